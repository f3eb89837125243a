/*
 * DOC: reroute benchmark: one fault, minimal-change repair vs fresh tables.
 *
 * Builds a fat tree in memory, routes it (the tables the switches hold),
 * applies one fault, then times route_repair() and route_compute() on the
 * faulted fabric (single thread, CLOCK_MONOTONIC, best and median of RUNS)
 * and prints how many LFT entries each would change, plus the verifier's
 * verdict on the repaired tables. Offline: no SMPs are counted. Usage:
 *   reroute-bench [-n RUNS] [-f link|spine|host] ft2|ft3 SIZE
 * The 648-host tree is "ft2 36", the 3456-host one "ft3 24".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "routing/lids.h"
#include "routing/repair.h"
#include "routing/routing.h"
#include "routing/verify.h"
#include "tests/unit/test_routing_topo.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int has_ca(const struct topo *t, uint32_t n)
{
	for (uint32_t p = 1; p <= t->nodes[n].nports; p++) {
		uint32_t q = t->nodes[n].ports[p].peer_node;
		if (q != TOPO_NONE && t->nodes[q].type == TOPO_CA)
			return 1;
	}
	return 0;
}

/* Applies the fault to the first leaf (lowest node index). */
static int fault(struct tb *b, const char *kind)
{
	struct topo *t = &b->t;

	for (uint32_t n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].type != TOPO_SWITCH || !has_ca(t, n))
			continue;
		for (uint32_t p = 1; p <= t->nodes[n].nports; p++) {
			uint32_t q = t->nodes[n].ports[p].peer_node;
			if (q == TOPO_NONE)
				continue;
			int sw = t->nodes[q].type == TOPO_SWITCH;
			if (!strcmp(kind, "host") && !sw) {
				tb_unlink(b, n, (uint8_t)p);
				return 0;
			}
			if (sw && !strcmp(kind, "link")) {
				tb_unlink(b, n, (uint8_t)p);
				return 0;
			}
			if (sw && !strcmp(kind, "spine")) {
				for (uint32_t i = 1; i <= t->nodes[q].nports; i++)
					tb_unlink(b, q, (uint8_t)i);
				return 0;
			}
		}
	}
	return -1;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Entries that differ; *ca gets those for LIDs that are no switch's. */
static uint64_t diff(const struct topo *t, const struct route_tables *a,
		     const struct route_tables *b, uint64_t *ca)
{
	uint64_t n = 0;
	uint32_t top = a->top > b->top ? a->top : b->top;
	uint8_t *swlid = calloc(top + 1u, 1);

	if (!swlid)
		abort();
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == TOPO_SWITCH && t->nodes[i].ports[0].lid <= top)
			swlid[t->nodes[i].ports[0].lid] = 1;
	*ca = 0;

	for (uint32_t i = 0; i < a->nnodes; i++) {
		if (!a->lft[i].ports && !b->lft[i].ports)
			continue;
		for (uint32_t lid = 0; lid <= top; lid++) {
			uint8_t x = a->lft[i].ports && lid <= a->top ? a->lft[i].ports[lid] : LFT_NO_PORT;
			uint8_t y = b->lft[i].ports && lid <= b->top ? b->lft[i].ports[lid] : LFT_NO_PORT;
			n += x != y;
			*ca += x != y && !swlid[lid];
		}
	}
	free(swlid);
	return n;
}

static void report(const struct topo *t, const struct route_tables *rt, const char *what)
{
	struct route_verify v;
	char err[128];

	if (route_verify(t, rt, &v, err, sizeof(err))) {
		printf("%s: verify failed: %s\n", what, err);
		return;
	}
	printf("%s: unreachable %llu looping %llu dead %llu cdg_cycle %d a2a %llu bound %llu "
	       "(+%.1f%%) at 0x%llx/%u, shift_excess %d\n", what, (unsigned long long)v.unreachable,
	       (unsigned long long)v.looping, (unsigned long long)v.dead_port, v.cdg_cycle,
	       (unsigned long long)v.a2a_max, (unsigned long long)v.a2a_bound,
	       v.a2a_bound ? 100.0 * ((double)v.a2a_max / (double)v.a2a_bound - 1) : 0.0,
	       (unsigned long long)v.a2a_max_guid, v.a2a_max_port, v.shift_excess);
}

static void usage(void)
{
	fprintf(stderr, "usage: reroute-bench [-n RUNS] [-f link|spine|host] ft2|ft3 SIZE\n");
	exit(2);
}

/* Builds the fabric, fills LIDs and routes it: the tables the switches hold. */
static void setup(struct tb *b, const char *kind, unsigned size, struct route_tables *prev)
{
	char err[128];

	tb_init(b);
	if (!strcmp(kind, "ft2"))
		tb_ft2(b, size);
	else if (!strcmp(kind, "ft3"))
		tb_ft3(b, size);
	else
		usage();
	if (topo_fill_lids(&b->t, 0, err, sizeof(err))) {
		fprintf(stderr, "lids: %s\n", err);
		exit(1);
	}
	if (route_compute(&b->t, NULL, prev)) {
		fprintf(stderr, "route: %s\n", prev->why);
		exit(1);
	}
}

/* Times route_repair (tr) and route_compute (tf); keeps the last tables. */
static void time_runs(const struct topo *t, const struct route_tables *prev, unsigned runs,
		      double *tr, double *tf, struct route_tables *rep, struct route_tables *fresh,
		      struct route_repair_stats *st)
{
	for (unsigned i = 0; i < runs; i++) {
		double t0 = now();
		if (route_repair(t, NULL, prev, rep, st)) {
			fprintf(stderr, "repair: %s\n", rep->why);
			exit(1);
		}
		double t1 = now();
		if (route_compute(t, NULL, fresh)) {
			fprintf(stderr, "route: %s\n", fresh->why);
			exit(1);
		}
		tf[i] = now() - t1;
		tr[i] = t1 - t0;
		if (i + 1 < runs) {
			route_tables_free(rep);
			route_tables_free(fresh);
		}
	}
	qsort(tr, runs, sizeof(*tr), cmp_d);
	qsort(tf, runs, sizeof(*tf), cmp_d);
}

static void print_changes(const struct topo *t, const struct route_tables *prev,
			  const struct route_tables *rep, const struct route_tables *fresh,
			  const struct route_repair_stats *st)
{
	uint64_t ca, all = diff(t, prev, rep, &ca);

	printf("repair: changed %llu (CA LIDs %llu) kept %llu broken %llu used_fresh %d\n",
	       (unsigned long long)st->changed, (unsigned long long)ca,
	       (unsigned long long)st->kept, (unsigned long long)st->broken, st->used_fresh);
	if (all != st->changed)
		printf("repair: stats disagree: %llu entries differ\n", (unsigned long long)all);
	printf("repair why: %s\n", rep->why);
	all = diff(t, prev, fresh, &ca);
	printf("fresh:  changed %llu (CA LIDs %llu)\n", (unsigned long long)all,
	       (unsigned long long)ca);
}

int main(int argc, char **argv)
{
	const char *fkind = "link";
	unsigned runs = 20;
	int c;

	while ((c = getopt(argc, argv, "n:f:")) != -1) {
		if (c == 'n')
			runs = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'f')
			fkind = optarg;
		else
			usage();
	}
	if (argc - optind != 2 || !runs || runs > 100000)
		usage();
	unsigned size = (unsigned)strtoul(argv[optind + 1], NULL, 10);
	if (size < 4 || size > 254 || size % 2)
		usage(); /* radix: even, and a port number must fit in 8 bits */
	struct tb b;
	struct route_tables prev, rep, fresh;
	struct route_repair_stats st;
	setup(&b, argv[optind], size, &prev);
	if (fault(&b, fkind)) {
		fprintf(stderr, "no place for fault '%s'\n", fkind);
		return 1;
	}
	double *tr = calloc(runs, sizeof(*tr)), *tf = calloc(runs, sizeof(*tf));
	if (!tr || !tf)
		return 1;
	time_runs(&b.t, &prev, runs, tr, tf, &rep, &fresh, &st);
	printf("%s %u, fault %s, %u runs\n", argv[optind], size, fkind, runs);
	printf("repair: best %.2f ms median %.2f ms (includes one route_compute)\n",
	       tr[0] * 1e3, tr[runs / 2] * 1e3);
	printf("fresh:  best %.2f ms median %.2f ms\n", tf[0] * 1e3, tf[runs / 2] * 1e3);
	print_changes(&b.t, &prev, &rep, &fresh, &st);
	report(&b.t, &rep, "repair");
	report(&b.t, &fresh, "fresh");
	route_tables_free(&rep);
	route_tables_free(&fresh);
	route_tables_free(&prev);
	topo_free_all(&b.t);
	free(tr);
	free(tf);
	return 0;
}
