/*
 * DOC: tests that every switch reaches every LID (its replies and traps).
 *
 * The judge is a walk of our own over struct topo (not routing's graph,
 * not reach.c): from every switch, for every assigned LID (CA ports with
 * their LMC ranges, switch port 0), follow the LFTs. On degraded 2- and
 * 3-level fat trees, on the trees, after one unplugged leaf-spine
 * link, with every engine and on other shapes, no pair may be left, and
 * the verifier must count what the walk counts, also on tables broken on
 * purpose. reach_fill() must leave every working entry as it is. The
 * channel dependency graph's cycle test (cdg.c) is checked against a
 * plain search after every insertion of random edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "routing/cdg.h"
#include "routing/graph.h"
#include "routing/lids.h"
#include "routing/reach.h"
#include "routing/routing.h"
#include "routing/verify.h"
#include "test_routing_topo.h"
#include "test_routing_util.h"

static int is_sw(const struct topo *t, uint32_t n)
{
	return t->nodes[n].type == TOPO_SWITCH;
}

/* 1 if node n's port p holds lid (its LMC range). */
static int holds(const struct topo *t, uint32_t n, uint32_t p, uint32_t lid)
{
	const struct topo_port *tp = &t->nodes[n].ports[p];

	return tp->lid && lid >= tp->lid && lid < tp->lid + (1u << tp->lmc);
}

/* Follows the LFTs from switch s to lid: 1 if the packet arrives. */
static int arrives(const struct topo *t, const struct route_tables *rt, uint32_t s, uint32_t lid)
{
	for (uint32_t hops = 0; hops <= t->nnodes; hops++) {
		const uint8_t *lft = rt->lft[s].ports;
		uint8_t p = lft && lid <= rt->top ? lft[lid] : LFT_NO_PORT;
		if (p == 0)
			return holds(t, s, 0, lid);
		if (p == LFT_NO_PORT || p > t->nodes[s].nports ||
		    !topo_port_linked(&t->nodes[s].ports[p]))
			return 0;
		uint32_t n = t->nodes[s].ports[p].peer_node;
		if (!is_sw(t, n))
			return holds(t, n, t->nodes[s].ports[p].peer_port, lid);
		s = n;
	}
	return 0;
}

/* Connected part of every switch (its lowest node index) over switch links. */
static uint32_t *switch_parts(const struct topo *t)
{
	uint32_t *part = malloc(t->nnodes * sizeof(*part)), *queue = malloc(t->nnodes * 4);

	for (uint32_t i = 0; i < t->nnodes; i++)
		part[i] = UINT32_MAX;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint32_t head = 0, tail = 0;
		if (!is_sw(t, i) || part[i] != UINT32_MAX)
			continue;
		part[i] = i;
		queue[tail++] = i;
		while (head < tail) {
			uint32_t s = queue[head++];
			for (uint32_t p = 1; p <= t->nodes[s].nports; p++) {
				uint32_t n = t->nodes[s].ports[p].peer_node;
				if (topo_port_linked(&t->nodes[s].ports[p]) && is_sw(t, n) &&
				    part[n] == UINT32_MAX) {
					part[n] = i;
					queue[tail++] = n;
				}
			}
		}
	}
	free(queue);
	return part;
}

/* The switch a LID ends at (the switch itself or the one a CA hangs off). */
static uint32_t lid_switch(const struct topo *t, uint32_t n, uint32_t p)
{
	if (is_sw(t, n))
		return n;
	uint32_t s = t->nodes[n].ports[p].peer_node;
	return topo_port_linked(&t->nodes[n].ports[p]) && is_sw(t, s) ? s : UINT32_MAX;
}

struct count {
	uint64_t pairs, unrouted;
};

/* Every (switch, assigned LID) pair of one connected part, walked. */
static struct count count_pairs(const struct topo *t, const struct route_tables *rt)
{
	struct count c = { 0, 0 };
	uint32_t *part = switch_parts(t);

	for (uint32_t n = 0; n < t->nnodes; n++)
		for (uint32_t p = 0; p <= t->nodes[n].nports; p++) {
			const struct topo_port *tp = &t->nodes[n].ports[p];
			uint32_t o = lid_switch(t, n, p);
			if (!tp->lid || (p == 0) != is_sw(t, n) || o == UINT32_MAX)
				continue;
			for (uint32_t lid = tp->lid; lid < tp->lid + (1u << tp->lmc); lid++)
				for (uint32_t s = 0; s < t->nnodes; s++) {
					if (!is_sw(t, s) || part[s] != part[o])
						continue;
					c.pairs++;
					c.unrouted += !arrives(t, rt, s, lid);
				}
		}
	free(part);
	return c;
}

/* Routes t with engine and checks every switch's routes and the count. */
static void check_fabric(const struct topo *t, const char *engine, const char *name)
{
	struct route_tables rt;
	struct route_verify v;

	route(t, engine, &rt);
	verify(t, &rt, &v);
	struct count c = count_pairs(t, &rt);
	if (c.unrouted || v.sw_unrouted || c.pairs != v.sw_pairs)
		fail_msg("%s, %s (%s): %llu of %llu (switch, LID) pairs unrouted, verify says "
			 "%llu of %llu", name, engine, rt.engine, (unsigned long long)c.unrouted,
			 (unsigned long long)c.pairs, (unsigned long long)v.sw_unrouted,
			 (unsigned long long)v.sw_pairs);
	assert_int_equal(v.unreachable, 0);
	assert_int_equal(v.looping, 0);
	assert_int_equal(v.dead_port, 0);
	assert_int_equal(v.dead_entries, 0);
	/* where the hosts' routes have no credit loop and nothing was forced,
	 * the switches' own routes add none either (minhop promises nothing:
	 * its shortest ways for spines turn down, up and down on their own) */
	if (strcmp(engine, "minhop") && !v.cdg_cycle && !strstr(rt.why, "credit loop") &&
	    v.sw_cdg_cycle)
		fail_msg("%s, %s: switches' routes close a credit loop (%s)", name, engine, rt.why);
	route_tables_free(&rt);
}

static const char *const engines[] = { "auto", "ftree", "updn", "minhop" };

/* Degraded 2- and 3-level trees (links and upper switches removed), every
 * engine, LMC 0 and 1. */
static void test_degraded_trees_every_engine(void **state)
{
	static const struct { unsigned lvl, k, pct, sw; } cases[] = {
		{ 2, 8, 10, 0 }, { 2, 16, 6, 0 }, { 2, 16, 10, 0 }, { 2, 24, 7, 0 },
		{ 2, 16, 0, 2 }, { 3, 8, 5, 0 }, { 3, 8, 10, 0 }, { 3, 12, 4, 0 }, { 3, 8, 0, 2 },
	};
	char name[96];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (uint64_t seed = 1; seed <= 2; seed++)
			for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
				struct tb b;
				tb_init(&b);
				if (cases[i].lvl == 2)
					tb_ft2(&b, cases[i].k);
				else
					tb_ft3(&b, cases[i].k);
				tb_remove_links(&b, cases[i].pct, seed);
				tb_remove_switches(&b, cases[i].sw, seed);
				fill(&b.t, (uint8_t)(seed == 2 && e == 0));
				snprintf(name, sizeof(name), "ft%u-%u, %u %% links, %u switches, seed %llu",
					 cases[i].lvl, cases[i].k, cases[i].pct, cases[i].sw,
					 (unsigned long long)seed);
				check_fabric(&b.t, engines[e], name);
				topo_free_all(&b.t);
			}
}

/* Intact trees and other shapes: nothing was missing there before either,
 * and nothing may go missing now. */
static void test_other_shapes(void **state)
{
	static const unsigned dims[] = { 3, 4 };

	(void)state;
	for (int shape = 0; shape < 5; shape++)
		for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
			struct tb b;
			tb_init(&b);
			if (shape == 0)
				tb_ft2(&b, 8);
			else if (shape == 1)
				tb_ft3(&b, 6);
			else if (shape == 2)
				tb_torus(&b, dims, 2, 2);
			else if (shape == 3)
				tb_random(&b, 16, 4, 2, 7);
			else
				tb_dragonfly(&b, 4, 3, 2);
			fill(&b.t, 0);
			check_fabric(&b.t, engines[e], "shape");
			topo_free_all(&b.t);
		}
}

/* Node index of the n-th switch in creation order of tb. */
static uint32_t nth_switch(const struct topo *t, uint32_t n)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (is_sw(t, i) && n-- == 0)
			return i;
	fail_msg("no such switch");
	return 0;
}

/*
 * The link failure: radix-16 2-level tree, leaf 0 loses its link
 * to spine 0. The spine's entries for the leaf's 8 hosts must lead down
 * another leaf and arrive.
 */
static void test_one_leaf_spine_link(void **state)
{
	struct tb b;
	struct route_tables rt;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 16);
	fill(&b.t, 0);
	uint32_t leaf = nth_switch(&b.t, 0), spine = nth_switch(&b.t, 16);
	uint8_t lp = 0;
	for (uint8_t p = 1; p <= b.t.nodes[leaf].nports; p++)
		if (b.t.nodes[leaf].ports[p].peer_node == spine)
			lp = p;
	assert_int_not_equal(lp, 0);
	uint8_t sp = b.t.nodes[leaf].ports[lp].peer_port;
	tb_unlink(&b, leaf, lp);
	route(&b.t, "auto", &rt);
	uint32_t hosts = 0;
	for (uint8_t p = 1; p <= b.t.nodes[leaf].nports; p++) {
		uint32_t h = b.t.nodes[leaf].ports[p].peer_node;
		if (!topo_port_linked(&b.t.nodes[leaf].ports[p]) || is_sw(&b.t, h))
			continue;
		uint32_t lid = b.t.nodes[h].ports[b.t.nodes[leaf].ports[p].peer_port].lid;
		uint8_t e = rt.lft[spine].ports[lid];
		assert_int_not_equal(e, LFT_NO_PORT);
		assert_int_not_equal(e, sp);
		assert_true(arrives(&b.t, &rt, spine, lid));
		hosts++;
	}
	assert_int_equal(hosts, 8);
	route_tables_free(&rt);
	check_fabric(&b.t, "auto", "ft2-16, one leaf-spine link unplugged");
	topo_free_all(&b.t);
}

/* The verifier counts what the walk counts on tables broken on purpose:
 * holes on spines (nobody's path), on leaves (others' paths too), a dead
 * port, a loop, and a table that ends below the highest LID. */
static void test_verify_counts_broken_tables(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct route_verify v;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 6);
	fill(&b.t, 0);
	route(&b.t, "auto", &rt);
	uint32_t top = rt.top, leaf = nth_switch(&b.t, 0), mid = nth_switch(&b.t, 18);
	for (uint32_t lid = 1; lid <= top; lid += 7) {
		rt.lft[nth_switch(&b.t, 40 + lid % 5)].ports[lid] = LFT_NO_PORT;
		rt.lft[nth_switch(&b.t, lid % 18)].ports[lid] = LFT_NO_PORT;
	}
	rt.lft[mid].ports[3] = rt.lft[mid].ports[4];
	rt.lft[leaf].ports[5] = 1; /* a host port, for a LID the host has not */
	rt.lft[leaf].ports[6] = 9; /* no such port */
	rt.top = (uint16_t)(top - 3);
	verify(&b.t, &rt, &v);
	struct count c = count_pairs(&b.t, &rt);
	print_message("broken on purpose: %llu of %llu pairs unrouted\n",
		      (unsigned long long)c.unrouted, (unsigned long long)c.pairs);
	assert_true(c.unrouted > 40);
	assert_int_equal(v.sw_unrouted, c.unrouted);
	assert_int_equal(v.sw_pairs, c.pairs);
	assert_false(route_verify_ok(&v));
	rt.top = (uint16_t)top;
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/* Per LID up to top: 1 if a CA port holds it (its LMC range). */
static uint8_t *ca_lids(const struct topo *t, uint32_t top)
{
	uint8_t *ca = calloc(top + 1u, 1);

	for (uint32_t n = 0; n < t->nnodes; n++)
		for (uint32_t p = 1; !is_sw(t, n) && p <= t->nodes[n].nports; p++) {
			const struct topo_port *tp = &t->nodes[n].ports[p];
			for (uint32_t lid = tp->lid; tp->lid && lid < tp->lid + (1u << tp->lmc); lid++)
				if (lid <= top)
					ca[lid] = 1;
		}
	return ca;
}

/* What fill_holes() saw. */
struct filled {
	uint64_t before, after; /* pairs that do not arrive */
	uint64_t ca;            /* CA LIDs' entries that did not arrive before */
	struct reach_stats st;
};

/*
 * Fills rt's tables (routed on t) with reach_fill_threads() and checks that
 * it wrote exactly the entries of switches that did not arrive, and that
 * afterwards every switch arrives.
 */
static struct filled fill_holes(const struct topo *t, struct route_tables *rt,
				unsigned threads, int halves)
{
	struct rgraph g;
	struct filled r = { 0, 0, 0, { 0, 0, 0 } };
	char err[128];
	size_t cells = (size_t)t->nnodes * (rt->top + 1u);
	uint8_t *was = malloc(cells), *ok = malloc(cells), *ca = ca_lids(t, rt->top);

	r.before = count_pairs(t, rt).unrouted;
	for (uint32_t s = 0; s < t->nnodes; s++)
		for (uint32_t lid = 0; is_sw(t, s) && lid <= rt->top; lid++) {
			was[(size_t)s * (rt->top + 1u) + lid] = rt->lft[s].ports[lid];
			ok[(size_t)s * (rt->top + 1u) + lid] = (uint8_t)arrives(t, rt, s, lid);
		}
	assert_int_equal(rg_build(&g, t, err, sizeof(err)), 0);
	uint8_t **rows = calloc(g.nsw, sizeof(*rows));
	for (uint32_t s = 0; s < g.nsw; s++)
		rows[s] = rt->lft[g.sw[s].node].ports;
	reach_fill_threads(&g, rows, rt->top, &r.st, threads, halves);
	r.after = count_pairs(t, rt).unrouted;
	for (uint32_t s = 0; s < t->nnodes; s++)
		for (uint32_t lid = 1; is_sw(t, s) && lid <= rt->top; lid++) {
			size_t i = (size_t)s * (rt->top + 1u) + lid;
			if (ok[i])
				assert_int_equal(rt->lft[s].ports[lid], was[i]);
			else
				r.ca += ca[lid];
		}
	print_message("unrouted %llu -> %llu, %llu entries filled (%llu of CA LIDs), "
		      "%llu unchecked\n", (unsigned long long)r.before,
		      (unsigned long long)r.after, (unsigned long long)r.st.filled,
		      (unsigned long long)r.ca, (unsigned long long)r.st.unchecked);
	assert_int_equal(r.after, 0);
	free(rows);
	free(was);
	free(ok);
	free(ca);
	rg_free(&g);
	return r;
}

/* Takes away the entries of middle and top switches (those after the
 * first nleaf) for LIDs where keep says no: holes for reach_fill(). */
static void punch(const struct topo *t, struct route_tables *rt, uint32_t nleaf,
		  int (*keep)(uint32_t k, uint32_t lid, uint64_t *seed))
{
	uint64_t seed = 5;

	for (uint32_t s = 0, k = 0; s < t->nnodes; s++) {
		if (!is_sw(t, s) || k++ < nleaf)
			continue;
		for (uint32_t lid = 1; lid <= rt->top; lid++)
			if (rt->lft[s].ports[lid] && !keep(k - 1, lid, &seed))
				rt->lft[s].ports[lid] = LFT_NO_PORT;
	}
}

/* 200 random holes (never a last hop: their own LID). */
static int keep_most(uint32_t k, uint32_t lid, uint64_t *seed)
{
	(void)k;
	(void)lid;
	return tb_rand(seed) % 1000 >= 40;
}

/* reach_fill() writes exactly the entries of switches that do not arrive,
 * and afterwards every switch arrives; a few holes are all searched. */
static void test_fill_keeps_working_entries(void **state)
{
	struct tb b;
	struct route_tables rt;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 8);
	tb_remove_links(&b, 8, 3);
	fill(&b.t, 0);
	route(&b.t, "auto", &rt);
	punch(&b.t, &rt, 32, keep_most);
	struct filled r = fill_holes(&b.t, &rt, 2, 0);
	assert_true(r.before >= 150);
	assert_int_equal(r.st.unchecked, 0);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/* A third of the entries (a switch's for every third LID). */
static int keep_two_thirds(uint32_t k, uint32_t lid, uint64_t *seed)
{
	(void)seed;
	return (k + lid) % 3 != 0;
}

/*
 * Holes far past what the cycle searches' budget can check (the 320
 * switches of a radix-16 3-level tree miss some 100,000 entries, more
 * than budget / 64 = 16,384): filled without searches, every CA LID's
 * entry counted unchecked, none searched; the same tables on one thread
 * and on two.
 */
static void test_fill_past_budget(void **state)
{
	struct tb b;
	struct route_tables rt[2];
	struct filled r[2];

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 16);
	tb_remove_links(&b, 5, 1);
	fill(&b.t, 0);
	for (int k = 0; k < 2; k++) {
		route(&b.t, "ftree", &rt[k]);
		punch(&b.t, &rt[k], 128, keep_two_thirds);
		r[k] = fill_holes(&b.t, &rt[k], k ? 2 : 1, 1);
	}
	assert_true(r[0].before > 16384);
	assert_int_equal(r[0].st.cyclic, 0);
	assert_true(r[0].ca > 16384);
	assert_int_equal(r[0].st.unchecked, r[0].ca);
	for (uint32_t s = 0; s < b.t.nnodes; s++)
		if (is_sw(&b.t, s))
			assert_memory_equal(rt[0].lft[s].ports, rt[1].lft[s].ports, rt[0].top + 1u);
	route_tables_free(&rt[0]);
	route_tables_free(&rt[1]);
	topo_free_all(&b.t);
}

/*
 * Plane routing gives the switches' own ways itself where far more are
 * missing than the fill's cycle searches can check (a radix-16 3-level
 * tree without 8 % of its links misses some 20,000), and leaves them to
 * the fill below that (radix 8, 8 %) and where balance moves routes after it
 * (radix 16, 10 %: shifts over their target): every switch reaches every
 * LID either way.
 */
static void test_planes_own_ways(void **state)
{
	static const struct { unsigned k, pct, seed; const char *says; } cases[] = {
		{ 16, 8, 3, "entries for switches' own packets down and up again" },
		{ 16, 10, 1, "entries added for switches' own packets" },
		{ 8, 8, 3, "entries added for switches' own packets" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tb b;
		struct route_tables rt;
		struct route_verify v;
		tb_init(&b);
		tb_ft3(&b, cases[i].k);
		tb_remove_links(&b, cases[i].pct, cases[i].seed);
		fill(&b.t, 0);
		route(&b.t, "ftree", &rt);
		print_message("radix %u: %s\n", cases[i].k, rt.why);
		assert_non_null(strstr(rt.why, "planes:"));
		assert_non_null(strstr(rt.why, cases[i].says));
		assert_int_equal(count_pairs(&b.t, &rt).unrouted, 0);
		verify(&b.t, &rt, &v);
		assert_int_equal(v.sw_unrouted, 0);
		assert_int_equal(v.looping, 0);
		assert_int_equal(v.unreachable, 0);
		route_tables_free(&rt);
		topo_free_all(&b.t);
	}
}

/* Random edges among a fabric's channels: cdg_closes() answers what a plain
 * search over the graph with the edge added answers, every time, while
 * cdg_add() keeps reordering. */
static void test_cdg_order_matches_search(void **state)
{
	struct tb b;
	struct rgraph g;
	struct cdg d;
	char err[128];
	uint64_t seed = 11, closed = 0, added = 0;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 8);
	fill(&b.t, 0);
	assert_int_equal(rg_build(&g, &b.t, err, sizeof(err)), 0);
	cdg_init(&d, &g);
	d.budget = UINT64_MAX;
	uint8_t *copy = malloc(32u * g.nlinks);
	for (int i = 0; i < 3000; i++) {
		uint32_t s = (uint32_t)(tb_rand(&seed) % g.nsw);
		uint8_t p = (uint8_t)(1 + tb_rand(&seed) % g.sw[s].nports);
		uint32_t y = rg_port_peer_sw(&g, s, p);
		if (y == RG_NONE)
			continue;
		uint8_t q = (uint8_t)(1 + tb_rand(&seed) % g.sw[y].nports);
		if (rg_port_peer_sw(&g, y, q) == RG_NONE)
			continue;
		uint32_t c = g.sw[s].portbase + p;
		memcpy(copy, d.bits, 32u * g.nlinks);
		copy[32u * c + q / 8] |= (uint8_t)(1u << (q % 8));
		int cyc = cdg_cyclic(&g, copy);
		assert_int_equal(cdg_closes(&d, c, q), cyc);
		if (!cyc) {
			cdg_add(&d, c, q, 0);
			added++;
		}
		closed += (uint64_t)cyc;
	}
	print_message("%llu edges added, %llu refused\n", (unsigned long long)added,
		      (unsigned long long)closed);
	assert_true(added > 100 && closed > 100);
	assert_false(cdg_cyclic(&g, d.bits));
	free(copy);
	cdg_free(&d);
	rg_free(&g);
	topo_free_all(&b.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_degraded_trees_every_engine),
		cmocka_unit_test(test_other_shapes),
		cmocka_unit_test(test_one_leaf_spine_link),
		cmocka_unit_test(test_verify_counts_broken_tables),
		cmocka_unit_test(test_fill_keeps_working_entries),
		cmocka_unit_test(test_fill_past_budget),
		cmocka_unit_test(test_planes_own_ways),
		cmocka_unit_test(test_cdg_order_matches_search),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
