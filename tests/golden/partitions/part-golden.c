/*
 * DOC: part-golden, the driver of the partitions golden tests.
 *
 * "part-golden FILE" prints the warnings of FILE as comments, then either
 * its error list (exit 1) or its canonical dump followed, as comments, by
 * the P_Key table of every port GUID the file names and of a CA, a
 * switch, a router and the SM's port (exit 0). Comments keep the output
 * a partitions file, so the round trip in golden.sh applies to all of it.
 * "part-golden --defaults" does the same for part_defaults().
 *
 * "part-golden --ports FILE ALLOW_BOTH" reads lines "GUID KIND" (KIND ca,
 * sw, rt or sm) and prints "GUID idx0=P0 P..." per port: index 0, then
 * every P_Key of the port sorted (opensm-cross.sh compares that with what
 * OpenSM programmed).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/partitions.h"

static void print_port(const struct part_config *c, const char *what,
		       const struct part_port *port)
{
	uint16_t keys[128];
	size_t n = part_port_pkeys(c, port, false, keys, 128);

	printf("# %-24s", what);
	for (size_t i = 0; i < n && i < 128; i++)
		printf(" 0x%04x", keys[i]);
	printf("\n");
}

/* Each GUID once, in file order; then one port of each kind. */
static void print_ports(const struct part_config *c)
{
	static const struct { const char *what; struct part_port port; } kinds[] = {
		{ "other CA", { .guid = 0xdead } },
		{ "switch", { .guid = 0xbeef, .is_switch = true } },
		{ "router", { .guid = 0xf00d, .is_router = true } },
		{ "SM port (SELF)", { .guid = 0xcafe, .is_sm = true } },
	};
	uint64_t seen[64];
	size_t n_seen = 0;
	char what[32];

	printf("#\n# P_Key tables (allow_both off):\n");
	for (size_t i = 0; i < c->n_parts; i++) {
		for (size_t j = 0; j < c->parts[i].n_members; j++) {
			const struct part_member *m = &c->parts[i].members[j];
			struct part_port port = { .guid = m->guid };
			size_t k = 0;

			while (k < n_seen && seen[k] != m->guid)
				k++;
			if (m->kind != PART_M_GUID || k < n_seen || n_seen == 64)
				continue;
			seen[n_seen++] = m->guid;
			snprintf(what, sizeof(what), "CA 0x%016llx",
				 (unsigned long long)m->guid);
			print_port(c, what, &port);
		}
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		print_port(c, kinds[i].what, &kinds[i].port);
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static int resolve_ports(const char *path, bool allow_both)
{
	unsigned long long guid;
	struct conf_errors errs;
	struct part_config c;
	char kind[4];

	conf_errors_init(&errs);
	if (part_load_file(&c, path, &errs) > 0) {
		conf_errors_print(&errs, stderr);
		return 1;
	}
	while (scanf("%llx %3s", &guid, kind) == 2) {
		struct part_port port = { .guid = guid,
			.is_switch = !strcmp(kind, "sw"),
			.is_router = !strcmp(kind, "rt"), .is_sm = !strcmp(kind, "sm") };
		uint16_t keys[128];
		size_t n = part_port_pkeys(&c, &port, allow_both, keys, 128);

		printf("0x%016llx idx0=0x%04x", guid, n ? keys[0] : 0);
		qsort(keys, n < 128 ? n : 128, sizeof(*keys), cmp_u16);
		for (size_t i = 0; i < n && i < 128; i++)
			printf(" 0x%04x", keys[i]);
		printf("\n");
	}
	part_config_free(&c);
	return 0;
}

int main(int argc, char **argv)
{
	struct conf_errors errs;
	struct part_config c;
	int n = 0;

	if (argc == 4 && !strcmp(argv[1], "--ports"))
		return resolve_ports(argv[2], !strcmp(argv[3], "1"));
	if (argc != 2) {
		fprintf(stderr, "usage: part-golden FILE | --defaults | "
			"--ports FILE ALLOW_BOTH\n");
		return 2;
	}
	conf_errors_init(&errs);
	if (!strcmp(argv[1], "--defaults"))
		part_defaults(&c);
	else
		n = part_load_file(&c, argv[1], &errs);
	for (size_t i = 0; i < c.warnings.n; i++)
		printf("# %s\n", c.warnings.msg[i]);
	if (n > 0) {
		conf_errors_print(&errs, stdout);
	} else {
		part_dump(&c, stdout);
		print_ports(&c);
	}
	conf_errors_free(&errs);
	part_config_free(&c);
	return n > 0 ? 1 : 0;
}
