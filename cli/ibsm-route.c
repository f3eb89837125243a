/*
 * DOC: ibsm-route, offline routing and what-if analysis.
 *
 * Reads an ibnetdiscover or ibsim net file, assigns LIDs the way the
 * daemon does (keeping those in the file), runs a routing engine from
 * routing/, prints the verification summary (text or JSON) and can dump
 * the LFTs in ibroute's format. The daemon runs the same library code.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "routing/lids.h"
#include "routing/routing.h"
#include "routing/topo_parse.h"
#include "routing/verify.h"

#define MAX_FILE (512u << 20)

struct args {
	const char *engine, *dump, *file;
	uint8_t lmc;
	uint64_t *roots;
	size_t nroots;
	int json, verify, timing;
	unsigned threads;  /* 0: the library's default */
};

/* Wall-clock and CPU (all threads) times at the end of each step, for
 * --timing: CPU time says more than wall time on a busy machine. */
struct stamp {
	double wall, cpu;
};

struct steps {
	struct stamp t0, parsed, routed, verified;
};

static struct stamp now(void)
{
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	getrusage(RUSAGE_SELF, &ru);
	return (struct stamp){ (double)ts.tv_sec + (double)ts.tv_nsec / 1e9,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6 };
}

static void print_timing(const struct steps *st)
{
	struct rusage ru;
	struct stamp v = st->verified.wall ? st->verified : st->routed;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "ibsm-route: timing: parse %.3f s, route %.3f s (cpu %.3f s), "
		"verify %.3f s (cpu %.3f s); peak RSS %.1f MiB\n",
		st->parsed.wall - st->t0.wall, st->routed.wall - st->parsed.wall,
		st->routed.cpu - st->parsed.cpu, v.wall - st->routed.wall, v.cpu - st->routed.cpu,
		(double)ru.ru_maxrss / 1024.0);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ibsm-route [-e ENGINE] [--lmc N] [--roots GUID,GUID...] [--json]\n"
		   "                  [--dump-lfts FILE] [--no-verify] [--threads N] [--timing]\n"
		   "                  TOPOFILE\n"
		   "engines:");
	for (size_t i = 0; route_engine_names[i]; i++)
		fprintf(f, " %s", route_engine_names[i]);
	fprintf(f, "\n");
}

static int parse_roots(const char *s, struct args *a)
{
	size_t n = 1;

	for (const char *c = s; *c; c++)
		n += *c == ',';
	a->roots = calloc(n, sizeof(*a->roots));
	if (!a->roots)
		return -1;
	while (*s) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(s, &end, 0);
		if (errno || end == s || (*end && *end != ','))
			return -1;
		a->roots[a->nroots++] = v;
		s = *end ? end + 1 : end;
	}
	return a->nroots ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "lmc", required_argument, NULL, 'l' },
		{ "roots", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "dump-lfts", required_argument, NULL, 'd' },
		{ "no-verify", no_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "timing", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "e:h", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'e': a->engine = optarg; break;
		case 'l':
			a->lmc = (uint8_t)strtoul(optarg, &end, 10);
			if (*end || !*optarg || strtoul(optarg, NULL, 10) > 7) {
				fprintf(stderr, "ibsm-route: --lmc must be 0-7\n");
				return -1;
			}
			break;
		case 'r':
			if (parse_roots(optarg, a)) {
				fprintf(stderr, "ibsm-route: bad --roots list '%s'\n", optarg);
				return -1;
			}
			break;
		case 'j': a->json = 1; break;
		case 'd': a->dump = optarg; break;
		case 'n': a->verify = 0; break;
		case 't':
			a->threads = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !*optarg || !a->threads || a->threads > 2) {
				fprintf(stderr, "ibsm-route: --threads must be 1 or 2\n");
				return -1;
			}
			break;
		case 'T': a->timing = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return -1;
	}
	a->file = argv[optind];
	return 0;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	if (!f || !buf) {
		fprintf(stderr, "ibsm-route: %s: %s\n", path, strerror(errno));
		free(buf);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			cap *= 2;
			char *nb = cap <= MAX_FILE ? realloc(buf, cap) : NULL;
			if (!nb) {
				fprintf(stderr, "ibsm-route: %s: file too large\n", path);
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (buf && ferror(f)) {
		fprintf(stderr, "ibsm-route: %s: read error\n", path);
		free(buf);
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

struct lidref {
	uint32_t node;
	uint8_t port;
};

static struct lidref *lid_map(const struct topo *t, uint32_t top)
{
	struct lidref *m = calloc(top + 1u, sizeof(*m));

	if (!m)
		return NULL;
	for (uint32_t i = 0; i <= top; i++)
		m[i].node = TOPO_NONE;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		uint32_t first = n->type == TOPO_SWITCH ? 0 : 1;
		uint32_t last = n->type == TOPO_SWITCH ? 0 : n->nports;
		for (uint32_t p = first; p <= last; p++) {
			uint32_t cnt = n->type == TOPO_SWITCH ? 1u : 1u << (n->ports[p].lmc & 7);
			for (uint32_t k = 0; n->ports[p].lid && k < cnt; k++)
				if (n->ports[p].lid + k <= top)
					m[n->ports[p].lid + k] = (struct lidref){ i, (uint8_t)p };
		}
	}
	return m;
}

static const char *kind(uint8_t type)
{
	return type == TOPO_SWITCH ? "Switch" : type == TOPO_ROUTER ? "Router" : "Channel Adapter";
}

/* One switch in the format of infiniband-diags' ibroute. */
static void dump_switch(FILE *f, const struct topo *t, const struct route_tables *rt,
			const struct lidref *m, uint32_t s)
{
	const struct topo_node *n = &t->nodes[s];
	const uint8_t *lft = rt->lft[s].ports;
	unsigned cnt = 0;

	fprintf(f, "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016llx (%s):\n", rt->top,
		n->ports[0].lid, (unsigned long long)n->guid, n->desc);
	fprintf(f, "  Lid  Out   Destination\n       Port     Info \n");
	for (uint32_t lid = 1; lid <= rt->top; lid++) {
		if (lft[lid] == LFT_NO_PORT)
			continue;
		fprintf(f, "0x%04x %03u : ", lid, lft[lid]);
		if (m[lid].node == TOPO_NONE) {
			fprintf(f, "(unknown node and type)\n");
		} else {
			const struct topo_node *d = &t->nodes[m[lid].node];
			fprintf(f, "(%s portguid 0x%016llx: '%s')\n", kind(d->type),
				(unsigned long long)d->ports[m[lid].port].guid, d->desc);
		}
		cnt++;
	}
	fprintf(f, "%u valid lids dumped \n", cnt);
}

struct gi {
	uint64_t guid;
	uint32_t idx;
};

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct gi *)a)->guid, y = ((const struct gi *)b)->guid;

	return x < y ? -1 : x > y;
}

static int dump_lfts(const char *path, const struct topo *t, const struct route_tables *rt)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	struct lidref *m = lid_map(t, rt->top);
	struct gi *order = calloc(t->nnodes + 1u, sizeof(*order));
	uint32_t n = 0;

	if (!f || !m || !order) {
		fprintf(stderr, "ibsm-route: %s: %s\n", path, strerror(errno));
		free(m);
		free(order);
		return -1;
	}
	/* switches by GUID; GUIDs of switches are unique (route_compute checks) */
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (rt->lft[i].ports)
			order[n++] = (struct gi){ t->nodes[i].guid, i };
	qsort(order, n, sizeof(*order), cmp_guid);
	for (uint32_t k = 0; k < n; k++)
		dump_switch(f, t, rt, m, order[k].idx);
	free(m);
	free(order);
	if (f != stdout ? fclose(f) : fflush(f)) {
		fprintf(stderr, "ibsm-route: %s: write error\n", path);
		return -1;
	}
	return 0;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Prints the summary; returns 0, or 3 if verification found problems. */
static int report(const struct args *a, const struct topo *t, const struct route_tables *rt,
		  struct steps *st)
{
	struct route_verify v;
	char err[256], buf[4096];
	int have = 0;

	if (a->verify) {
		int rc = route_verify_threads(t, rt, &v, err, sizeof(err),
					      a->threads ? a->threads : VERIFY_THREADS);
		st->verified = now();
		if (rc) {
			fprintf(stderr, "ibsm-route: verify: %s\n", err);
			return 1;
		}
		route_verify_format(&v, a->json, buf, sizeof(buf));
		have = 1;
	}
	if (a->json) {
		printf("{\"engine\":");
		json_str(stdout, rt->engine);
		printf(",\"why\":");
		json_str(stdout, rt->why);
		printf(",\"top_lid\":%u,\"verify\":%s}\n", rt->top, have ? buf : "null");
	} else {
		printf("engine: %s (%s)\nLIDs: 1-%u\n%s", rt->engine, rt->why, rt->top,
		       have ? buf : "");
	}
	return have && !route_verify_ok(&v) ? 3 : 0;
}

static int run(const struct args *a)
{
	struct topo t;
	struct route_tables rt;
	char err[256] = "";
	size_t len;
	struct steps st = { now(), { 0, 0 }, { 0, 0 }, { 0, 0 } };
	char *buf = read_file(a->file, &len);

	if (!buf)
		return 1;
	int rc = topo_parse(buf, len, &t, err, sizeof(err));
	free(buf);
	if (rc) {
		fprintf(stderr, "ibsm-route: %s: %s\n", a->file, err);
		return 1;
	}
	struct route_opts o = { .engine = a->engine, .root_guids = a->roots, .nroots = a->nroots,
				.threads = a->threads };
	st.parsed = now();
	if (topo_fill_lids(&t, a->lmc, err, sizeof(err)) || route_compute(&t, &o, &rt)) {
		fprintf(stderr, "ibsm-route: %s\n", err[0] ? err : rt.why);
		topo_free(&t);
		return 1;
	}
	st.routed = now();
	rc = a->dump && dump_lfts(a->dump, &t, &rt) ? 1 : report(a, &t, &rt, &st);
	if (a->timing)
		print_timing(&st);
	route_tables_free(&rt);
	topo_free(&t);
	return rc;
}

int main(int argc, char **argv)
{
	struct args a = { "auto", NULL, NULL, 0, NULL, 0, 0, 1, 0, 0 };

	if (parse_args(argc, argv, &a)) {
		free(a.roots);
		return 1;
	}
	int rc = run(&a);
	free(a.roots);
	return rc;
}
