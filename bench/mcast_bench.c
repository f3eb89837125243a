/*
 * DOC: multicast tree benchmark: time and memory of mcast_compute().
 *
 * Builds a fat tree in memory, fills LIDs and routes it, then times
 * mcast_compute() (single thread, CLOCK_MONOTONIC, best and median of
 * RUNS) on one group of every host (IPoIB broadcast) plus GROUPS small
 * seeded groups of 2..MEMBERS hosts; then the same batch again with the
 * first result as prev (nothing changed), and after unplugging one
 * leaf-spine link of the broadcast tree (route_repair first, not timed
 * with it). Memory: the heap mcast_compute() holds at its peak and what
 * its result keeps, counted by wrapping malloc/calloc/realloc/free at
 * link time (so only code linked into this program counts). Usage:
 *   mcast-bench [-n RUNS] [-g GROUPS] [-m MEMBERS] [-s SEED] ft2|ft3 SIZE
 * The 648-host tree is "ft2 36".
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "routing/lids.h"
#include "routing/mcast.h"
#include "routing/repair.h"
#include "routing/routing.h"
#include "tests/unit/test_routing_topo.h"

/* ---- heap accounting (-Wl,--wrap=malloc,...) ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static size_t heap_now, heap_peak;

static void *counted(void *p)
{
	if (p) {
		heap_now += malloc_usable_size(p);
		heap_peak = heap_now > heap_peak ? heap_now : heap_peak;
	}
	return p;
}

void *__wrap_malloc(size_t n)
{
	return counted(__real_malloc(n));
}

void *__wrap_calloc(size_t n, size_t sz)
{
	return counted(__real_calloc(n, sz));
}

void *__wrap_realloc(void *p, size_t n)
{
	if (p)
		heap_now -= malloc_usable_size(p);
	void *q = __real_realloc(p, n);
	if (!q && p && n)
		heap_now += malloc_usable_size(p); /* p is still there */
	return counted(q);
}

void __wrap_free(void *p)
{
	if (p)
		heap_now -= malloc_usable_size(p);
	__real_free(p);
}

/* ---- the bench ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: mcast-bench [-n RUNS] [-g GROUPS] [-m MEMBERS] [-s SEED] "
		"ft2|ft3 SIZE\n");
	exit(2);
}

struct batch {
	uint32_t n;
	struct mcast_group *g;
	struct mcast_member *pool;
};

/* Every CA node, then the broadcast group and ng groups of 2..maxm. */
static void make_batch(const struct topo *t, uint32_t ng, uint32_t maxm, uint64_t seed,
		       struct batch *b)
{
	uint32_t *ca = calloc(t->nnodes, sizeof(*ca)), nca = 0, at = 0;

	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == TOPO_CA)
			ca[nca++] = i;
	b->n = ng + 1;
	b->g = calloc(b->n, sizeof(*b->g));
	b->pool = calloc(nca + (size_t)ng * maxm, sizeof(*b->pool));
	if (!ca || !b->g || !b->pool)
		abort();
	for (uint32_t i = 0; i < b->n; i++) {
		uint32_t nm = i ? 2 + (uint32_t)(tb_rand(&seed) % (maxm - 1)) : nca;
		b->g[i] = (struct mcast_group){ (uint16_t)(MCAST_MLID_MIN + i), nm, b->pool + at };
		for (uint32_t k = 0; k < nm; k++)
			b->pool[at++] = (struct mcast_member){
				i ? ca[tb_rand(&seed) % nca] : ca[k], 1 };
	}
	free(ca);
}

/* Best and median seconds of runs computations; keeps the last result. */
static void time_runs(const struct topo *t, const struct route_tables *rt, const struct batch *b,
		      const struct mcast_result *prev, int runs, struct mcast_result *r,
		      double *best, double *med)
{
	double *d = calloc((size_t)runs, sizeof(*d));
	struct mcast_opts o = { .prev = prev };

	for (int i = 0; i < runs; i++) {
		if (i)
			mcast_result_free(r);
		double t0 = now();
		if (mcast_compute(t, rt, b->g, b->n, &o, r)) {
			fprintf(stderr, "mcast_compute: %s\n", r->why);
			exit(1);
		}
		d[i] = now() - t0;
	}
	qsort(d, (size_t)runs, sizeof(*d), cmp_d);
	*best = d[0];
	*med = d[runs / 2];
	free(d);
}

/* Switch rows (switch, MLID) whose mask differs between a and b. */
static uint64_t changed_rows(const struct topo *t, const struct mcast_result *a,
			     const struct mcast_result *b)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct mcast_mft *x = &a->mft[i], *y = &b->mft[i];
		for (uint32_t k = 0; k < a->ngroups; k++) {
			const uint16_t *p = mcast_mft_find(x, a->trees[k].mlid);
			const uint16_t *q = mcast_mft_find(y, a->trees[k].mlid);
			n += !p != !q || (p && memcmp(p, q, x->npos * sizeof(*p)));
		}
	}
	return n;
}

static void summary(const struct topo *t, const struct mcast_result *r)
{
	uint32_t *per = calloc(t->nnodes, sizeof(*per)), lo = UINT32_MAX, hi = 0, roots = 0;
	uint64_t rows = 0;

	for (uint32_t i = 0; i < r->ngroups; i++)
		if (r->trees[i].root != TOPO_NONE && r->trees[i].nsw > 1)
			per[r->trees[i].root]++;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		rows += r->mft[i].n;
		if (!per[i])
			continue;
		roots++;
		lo = per[i] < lo ? per[i] : lo;
		hi = per[i] > hi ? per[i] : hi;
	}
	printf("trees: broadcast %u switches depth %u; %u switches root the multi-switch trees "
	       "(%u..%u each); %llu switch rows; %u member ports reported\n", r->trees[0].nsw,
	       r->trees[0].depth, roots, roots ? lo : 0, hi, (unsigned long long)rows, r->nmiss);
	free(per);
}

/* Unplugs the broadcast tree's first upstream link; repairs unicast. */
static void fault(struct tb *b, const struct mcast_result *r, struct route_tables *rt)
{
	const struct mcast_tsw *e = &r->tsw[r->trees[0].first + 1];
	struct route_tables nrt;
	struct route_repair_stats st;

	tb_unlink(b, e->node, e->up);
	if (route_repair(&b->t, NULL, rt, &nrt, &st)) {
		fprintf(stderr, "route_repair: %s\n", nrt.why);
		exit(1);
	}
	printf("fault: unplugged switch 0x%016llx port %u\n", (unsigned long long)e->guid, e->up);
	route_tables_free(rt);
	*rt = nrt;
}

static void setup(struct tb *b, const char *kind, unsigned size, struct route_tables *rt)
{
	char err[128];

	tb_init(b);
	if (!strcmp(kind, "ft2"))
		tb_ft2(b, size);
	else if (!strcmp(kind, "ft3"))
		tb_ft3(b, size);
	else
		usage();
	if (topo_fill_lids(&b->t, 0, err, sizeof(err)) || route_compute(&b->t, NULL, rt)) {
		fprintf(stderr, "setup: %s%s\n", err, rt->why);
		exit(1);
	}
}

/* The first computation again, alone, for its heap peak. */
static void memory(const struct topo *t, const struct route_tables *rt, const struct batch *b)
{
	struct mcast_result r;
	size_t base = heap_now;

	heap_peak = heap_now;
	if (mcast_compute(t, rt, b->g, b->n, NULL, &r))
		exit(1);
	printf("memory: peak heap %.2f MiB during mcast_compute, result keeps %.2f MiB\n",
	       (double)(heap_peak - base) / 1048576.0, (double)(heap_now - base) / 1048576.0);
	mcast_result_free(&r);
}

int main(int argc, char **argv)
{
	int runs = 5, c;
	uint32_t ng = 1000, maxm = 8;
	uint64_t seed = 1;
	struct tb b;
	struct route_tables rt;
	struct batch bt;
	struct mcast_result r0, r1, r2, r3;
	double best, med;

	while ((c = getopt(argc, argv, "n:g:m:s:")) != -1) {
		switch (c) {
		case 'n': runs = atoi(optarg); break;
		case 'g': ng = (uint32_t)atoi(optarg); break;
		case 'm': maxm = (uint32_t)atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (optind + 2 != argc || runs < 1 || maxm < 2 || ng > 16000)
		usage();
	setup(&b, argv[optind], (unsigned)atoi(argv[optind + 1]), &rt);
	make_batch(&b.t, ng, maxm, seed, &bt);
	printf("%s %s: %u nodes, 1 broadcast group + %u groups of 2..%u hosts\n",
	       argv[optind], argv[optind + 1], b.t.nnodes, ng, maxm);
	time_runs(&b.t, &rt, &bt, NULL, runs, &r0, &best, &med);
	printf("compute: best %.2f ms, median %.2f ms (%d runs)\n", best * 1e3, med * 1e3, runs);
	summary(&b.t, &r0);
	memory(&b.t, &rt, &bt);
	time_runs(&b.t, &rt, &bt, &r0, runs, &r1, &best, &med);
	printf("again with prev: best %.2f ms, median %.2f ms; roots kept %u of %u, rows changed "
	       "%llu\n", best * 1e3, med * 1e3, r1.kept_roots, r1.ngroups,
	       (unsigned long long)changed_rows(&b.t, &r0, &r1));
	fault(&b, &r0, &rt);
	time_runs(&b.t, &rt, &bt, &r0, runs, &r2, &best, &med);
	printf("after the fault with prev: best %.2f ms, median %.2f ms; roots kept %u, rows "
	       "changed %llu\n", best * 1e3, med * 1e3, r2.kept_roots,
	       (unsigned long long)changed_rows(&b.t, &r0, &r2));
	time_runs(&b.t, &rt, &bt, NULL, runs, &r3, &best, &med);
	printf("after the fault without prev: best %.2f ms, median %.2f ms; rows changed %llu\n",
	       best * 1e3, med * 1e3, (unsigned long long)changed_rows(&b.t, &r0, &r3));
	mcast_result_free(&r0);
	mcast_result_free(&r1);
	mcast_result_free(&r2);
	mcast_result_free(&r3);
	route_tables_free(&rt);
	free(bt.g);
	free(bt.pool);
	topo_free_all(&b.t);
	return 0;
}
