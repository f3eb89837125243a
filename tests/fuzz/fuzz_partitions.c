/*
 * DOC: libFuzzer target for the partitions file parser and resolver.
 *
 * Any input must parse without a crash, leak or sanitizer report, and:
 *  - with errors, no partitions are handed out;
 *  - without, Default comes first, P_Keys are unique and valid, the caps
 *    hold, and the canonical dump parses back to an equal config that
 *    dumps to the same text (when the dump fits in CONF_MAX_FILE);
 *  - the resolver gives, for a few ports, P_Key lists without repeats
 *    whose entries all name partitions, the same however small the cap.
 * Inputs above CONF_MAX_FILE are cut: past that the parser only counts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/partitions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static char *dump(const struct part_config *c, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	CHECK(f);
	part_dump(c, f);
	fclose(f);
	return text;
}

static void check_round_trip(const struct part_config *c)
{
	struct conf_errors errs;
	struct part_config again;
	size_t len, len2;
	char *text = dump(c, &len), *text2;

	if (len > CONF_MAX_FILE) {
		free(text);
		return;
	}
	conf_errors_init(&errs);
	if (part_parse_buf(&again, "dump", text, len, &errs) != 0) {
		conf_errors_print(&errs, stderr);
		abort();
	}
	CHECK(part_config_equal(c, &again));
	text2 = dump(&again, &len2);
	CHECK(len == len2 && !memcmp(text, text2, len));
	free(text);
	free(text2);
	conf_errors_free(&errs);
	part_config_free(&again);
}

static void check_shape(const struct part_config *c)
{
	size_t members = 0, mgids = 0;
	struct part_group g;

	CHECK(c->n_parts >= 1 && c->n_parts <= PART_MAX_PARTITIONS);
	CHECK(c->parts[0].pkey == PART_DEFAULT_PKEY);
	for (size_t i = 0; i < c->n_parts; i++) {
		const struct part_partition *p = &c->parts[i];

		CHECK(p->pkey >= 1 && p->pkey <= 0x7fff);
		CHECK(part_find(c, p->pkey) == p);
		CHECK(strlen(p->name) <= PART_MAX_NAME);
		members += p->n_members;
		mgids += p->n_mgids;
		for (size_t j = 0; j < p->n_mgids; j++) {
			part_group_params(p, &p->mgids[j], &g);
			CHECK(g.scopes && g.mtu >= 1 && g.mtu <= 5);
		}
	}
	CHECK(members <= PART_MAX_MEMBERS + 2);   /* + Default's implicit two */
	CHECK(mgids <= PART_MAX_MGIDS);
}

static void check_port(const struct part_config *c, const struct part_port *port,
		       bool allow_both)
{
	uint16_t keys[64], first = 0;
	size_t n = part_port_pkeys(c, port, allow_both, keys, 64);

	CHECK(n <= 2 * c->n_parts);
	for (size_t i = 0; i < n && i < 64; i++) {
		CHECK(part_find(c, keys[i]));
		for (size_t j = 0; j < i; j++)
			CHECK(keys[j] != keys[i]);
	}
	CHECK(part_port_pkeys(c, port, allow_both, &first, 1) == n);
	CHECK(n == 0 || first == keys[0]);
}

/* The first GUID member of the file (or 1), as a CA, and some others. */
static void check_resolver(const struct part_config *c)
{
	struct part_port ports[4] = {
		{ .guid = 1 },
		{ .guid = 2, .is_switch = true },
		{ .guid = 3, .is_router = true },
		{ .guid = 4, .is_sm = true },
	};

	for (size_t i = 0; i < c->n_parts && ports[0].guid == 1; i++)
		for (size_t j = 0; j < c->parts[i].n_members; j++)
			if (c->parts[i].members[j].kind == PART_M_GUID) {
				ports[0].guid = c->parts[i].members[j].guid;
				break;
			}
	for (size_t i = 0; i < 4; i++) {
		check_port(c, &ports[i], false);
		check_port(c, &ports[i], true);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_errors errs;
	struct part_config c;
	int n;

	if (size > CONF_MAX_FILE + 1)
		size = CONF_MAX_FILE + 1;
	conf_errors_init(&errs);
	n = part_parse_buf(&c, "fuzz", (const char *)data, size, &errs);
	CHECK(errs.n <= CONF_MAX_ERRORS && c.warnings.n <= CONF_MAX_ERRORS);
	CHECK((n == 0) == (errs.n == 0));
	if (n) {
		CHECK(c.n_parts == 0 && !c.parts);
	} else {
		check_shape(&c);
		check_round_trip(&c);
		check_resolver(&c);
	}
	conf_errors_free(&errs);
	part_config_free(&c);
	return 0;
}
