/*
 * DOC: routing speed and memory benchmark.
 *
 * Builds a fabric in memory (no file parsing in the timing), fills LIDs,
 * runs one engine and prints wall time (CLOCK_MONOTONIC) and peak RSS
 * (getrusage), and a digest of every switch's table (equal digests: the
 * same routes, e.g. before and after a speed change). With -v it also runs
 * the verifier and prints its summary and time. Usage:
 *   route-bench [-e ENGINE] [-v] [-d PCT] [-s SEED] [-x NSWITCHES] [-m MIB] [-A] [-j N] [-S CELLS]
 *               ft2|ft3|torus|random|dragonfly SIZE
 * -m: the most memory balance may give shift counters (route_opts).
 * -A: also every shift permutation (verify samples 1000 above 1000 hosts)
 *     against its pair bound: how many pass it by more than one.
 * -j: threads for the engine and the verifier (1 or 2; default 2).
 * -S: route_opts.split_cells, the table cells from which plane routing's
 *     leaves and the reach fill go in two halves (default 64 Mi).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "routing/graph.h"
#include "routing/lids.h"
#include "routing/pairbound.h"
#include "routing/routing.h"
#include "routing/verify.h"
#include "tests/unit/test_routing_topo.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* User + system CPU seconds: less disturbed than wall time on a busy box. */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* FNV-1a over every switch's LFT in node order: two runs with the same
 * digest routed alike (for checking that a speed change kept the routes). */
static uint64_t lft_digest(const struct route_tables *rt)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t n = 0; n < rt->nnodes; n++)
		for (uint32_t l = 0; rt->lft[n].ports && l <= rt->top; l++)
			h = (h ^ rt->lft[n].ports[l]) * 0x100000001b3ull;
	return h;
}

static int build(struct tb *b, const char *kind, unsigned size, uint64_t seed)
{
	static const unsigned dims[3] = { 8, 8, 8 };

	if (!strcmp(kind, "ft2"))
		tb_ft2(b, size);
	else if (!strcmp(kind, "ft3"))
		tb_ft3(b, size);
	else if (!strcmp(kind, "torus"))
		tb_torus(b, dims, 3, size);
	else if (!strcmp(kind, "random"))
		tb_random(b, size, 8, 4, seed);
	else if (!strcmp(kind, "dragonfly"))
		tb_dragonfly(b, size, size / 2 ? size / 2 : 1, 4);
	else
		return -1;
	return 0;
}

static void verify(const struct topo *t, const struct route_tables *rt, unsigned threads)
{
	struct route_verify v;
	char buf[2048], err[256];
	double t0 = now();

	if (route_verify_threads(t, rt, &v, err, sizeof(err), threads ? threads : VERIFY_THREADS)) {
		fprintf(stderr, "route-bench: verify: %s\n", err);
		exit(1);
	}
	double t1 = now();
	route_verify_format(&v, 0, buf, sizeof(buf));
	printf("%sverify: %.3f s, peak RSS %.1f MiB\n", buf, t1 - t0, peak_rss_kib() / 1024.0);
}

struct bopts {
	struct route_opts o;
	unsigned pct, xsw;
	uint64_t seed;
	int verify;
	int all_shifts;
};

static int parse(int argc, char **argv, struct bopts *b)
{
	int c;

	while ((c = getopt(argc, argv, "e:vd:s:x:m:Aj:S:")) != -1) {
		switch (c) {
		case 'e': b->o.engine = optarg; break;
		case 'v': b->verify = 1; break;
		case 'd': b->pct = (unsigned)atoi(optarg); break;
		case 's': b->seed = strtoull(optarg, NULL, 0); break;
		case 'x': b->xsw = (unsigned)atoi(optarg); break;
		case 'm': b->o.balance_bytes = strtoull(optarg, NULL, 0) << 20; break;
		case 'A': b->all_shifts = 1; break;
		case 'j': b->o.threads = (unsigned)atoi(optarg); break;
		case 'S': b->o.split_cells = strtoull(optarg, NULL, 0); break;
		default: return -1;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: route-bench [-e engine] [-v] [-d pct] [-s seed] "
			"[-x nswitches] [-m MiB] [-A] [-j threads] [-S cells] "
			"ft2|ft3|torus|random|dragonfly SIZE\n");
		return -1;
	}
	return 0;
}

/* Busiest link of shift sh (host i -> i + sh); load is zero on entry and
 * on return. */
static uint32_t shift_max(const struct rgraph *g, const struct route_tables *rt, uint32_t sh,
			  uint32_t *load, uint32_t *touched)
{
	uint32_t n = g->nhosts, nt = 0, mx = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct rg_host *d = &g->hosts[(i + sh) % n];
		uint32_t s = g->hosts[i].sw;
		for (int h = 0; h < 64 && s != d->sw && s != RG_NONE; h++) {
			uint8_t p = rt->lft[g->sw[s].node].ports[d->lid];
			if (p == LFT_NO_PORT || !p || p > g->sw[s].nports)
				break;
			uint32_t id = g->sw[s].portbase + p;
			if (!load[id]++)
				touched[nt++] = id;
			mx = load[id] > mx ? load[id] : mx;
			s = rg_port_peer_sw(g, s, p);
		}
	}
	for (uint32_t j = 0; j < nt; j++)
		load[touched[j]] = 0;
	return mx;
}

/* The per-switch bound of shift sh, as verify computes it: the largest
 * ceil(hosts of a switch sending off it / its switch ports). */
static uint32_t switch_bound(const struct rgraph *g, const uint32_t *links, uint32_t sh)
{
	uint32_t n = g->nhosts, b = 0;

	for (uint32_t s = 0; s < g->nsw; s++) {
		const struct rg_sw *sw = &g->sw[s];
		uint32_t out = 0;
		for (uint32_t h = sw->hfirst; h < sw->hfirst + sw->nhosts; h++)
			out += g->hosts[(h + sh) % n].sw != s;
		if (out && links[s] && (out + links[s] - 1) / links[s] > b)
			b = (out + links[s] - 1) / links[s];
	}
	return b;
}

/* -A: every shift against its pair bound, and against the per-switch bound
 * where the pair bound allows the per-switch bound + 1. */
static void all_shifts(const struct topo *t, const struct route_tables *rt)
{
	struct rgraph g;
	struct pair_bound pb;
	char err[256];
	uint32_t over = 0, worst = 0, worst_at = 0, forced = 0, free_over = 0, free_worst = 0;

	if (rg_build(&g, t, err, sizeof(err))) {
		fprintf(stderr, "route-bench: %s\n", err);
		return;
	}
	uint32_t *load = calloc(g.nlinks, sizeof(*load));
	uint32_t *touched = malloc((size_t)g.nhosts * 64 * sizeof(*touched));
	uint32_t *links = calloc(g.nsw ? g.nsw : 1, sizeof(*links));
	if (!load || !touched || !links) {
		fprintf(stderr, "route-bench: out of memory\n");
		exit(1);
	}
	for (uint32_t s = 0; s < g.nsw; s++)
		for (uint32_t p = 1; p <= g.sw[s].nports; p++)
			links[s] += rg_port_peer_sw(&g, s, (uint8_t)p) != RG_NONE;
	pair_bound_init(&pb, &g);
	double t0 = now();
	for (uint32_t sh = 1; sh < g.nhosts; sh++) {
		uint32_t m = shift_max(&g, rt, sh, load, touched), p = pair_bound_shift(&pb, sh);
		uint32_t sb = switch_bound(&g, links, sh), b = p > sb ? p : sb;
		over += m > b + 1;
		if (m > b && m - b > worst) {
			worst = m - b;
			worst_at = sh;
		}
		if (p > sb + 1) {
			forced++;
			continue;
		}
		free_over += m > sb + 1;
		free_worst = m > sb && m - sb > free_worst ? m - sb : free_worst;
	}
	printf("every shift (%u): %u more than one over the pair bound; worst excess %u "
	       "(shift %u); %.1f s\n", g.nhosts ? g.nhosts - 1 : 0, over, worst, worst_at,
	       now() - t0);
	printf("per-switch bound: %u shifts where the pair bound passes it + 1; on the "
	       "others %u more than one over it, worst excess %u\n", forced, free_over,
	       free_worst);
	pair_bound_free(&pb);
	free(links);
	free(load);
	free(touched);
	rg_free(&g);
}

int main(int argc, char **argv)
{
	struct bopts bo = { .o = { .engine = "auto" }, .seed = 1 };
	struct route_tables rt;
	struct tb b;
	char err[256];

	if (parse(argc, argv, &bo))
		return 2;
	tb_init(&b);
	if (build(&b, argv[optind], (unsigned)atoi(argv[optind + 1]), bo.seed)) {
		fprintf(stderr, "route-bench: unknown fabric %s\n", argv[optind]);
		return 2;
	}
	if (bo.pct)
		tb_remove_links(&b, bo.pct, bo.seed);
	if (bo.xsw)
		tb_remove_switches(&b, bo.xsw, bo.seed);
	if (topo_fill_lids(&b.t, 0, err, sizeof(err))) {
		fprintf(stderr, "route-bench: %s\n", err);
		return 1;
	}
	double t0 = now(), c0 = cpu_s();
	if (route_compute(&b.t, &bo.o, &rt)) {
		fprintf(stderr, "route-bench: %s\n", rt.why);
		return 1;
	}
	double t1 = now(), c1 = cpu_s();
	printf("fabric %s %s: %u nodes, top LID %u; engine %s (%s)\n", argv[optind],
	       argv[optind + 1], b.t.nnodes, rt.top, rt.engine, rt.why);
	printf("route: %.3f s (cpu %.3f s), peak RSS %.1f MiB, tables %016llx\n", t1 - t0,
	       c1 - c0, peak_rss_kib() / 1024.0, (unsigned long long)lft_digest(&rt));
	if (bo.verify)
		verify(&b.t, &rt, bo.o.threads);
	if (bo.all_shifts)
		all_shifts(&b.t, &rt);
	route_tables_free(&rt);
	topo_free_all(&b.t);
	return 0;
}
