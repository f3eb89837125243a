/*
 * DOC: unit and property tests of the routing engines and the verifier.
 *
 * Hand-checked LFT entries on a 2-level radix-4 fat tree, credit loops
 * that minhop makes on a ring and updn avoids, the verifier on broken
 * tables, the LID filler, determinism under node shuffling and on one
 * thread or two, and seeded property runs over degraded fat trees, tori,
 * random graphs and dragonflies (reachable, loop-free, no CDG cycle,
 * every time).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "routing/balance.h"
#include "routing/graph.h"
#include "routing/lids.h"
#include "routing/par.h"
#include "routing/routing.h"
#include "routing/verify.h"
#include "test_routing_topo.h"
#include "test_routing_util.h"

static uint32_t node_by_guid(const struct topo *t, uint64_t guid)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].guid == guid)
			return i;
	fail_msg("no node 0x%llx", (unsigned long long)guid);
	return 0;
}

/* Node index of the n-th switch / CA in creation order of tb (unshuffled). */
static uint32_t nth(const struct topo *t, uint8_t type, uint32_t n)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == type && n-- == 0)
			return i;
	fail_msg("no such node");
	return 0;
}

/*
 * ft2 radix 4: leaves L0..L3 (ports 1-2 hosts, 3 -> S0, 4 -> S1), spines
 * S0, S1 (port l+1 -> leaf l). LIDs: switches 1-6, hosts 7-14 in leaf order.
 * Host slot 0 of every leaf is reached through S0, slot 1 through S1:
 * d-mod-k, which is what makes every shift congestion-free.
 */
static void test_ftree_ft2_radix4_exact(void **state)
{
	struct tb b;
	struct route_tables rt;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 4);
	fill(&b.t, 0);
	route(&b.t, "auto", &rt);
	assert_string_equal(rt.engine, "ftree");
	assert_int_equal(rt.top, 14);
	for (uint32_t l = 0; l < 4; l++) {
		const uint8_t *lft = rt.lft[nth(&b.t, TOPO_SWITCH, l)].ports;
		assert_int_equal(lft[l + 1], 0);
		for (uint32_t lid = 7; lid <= 14; lid++) {
			uint32_t owner = (lid - 7) / 2, slot = (lid - 7) % 2;
			assert_int_equal(lft[lid], owner == l ? slot + 1 : slot + 3);
		}
	}
	for (uint32_t sp = 0; sp < 2; sp++) {
		const uint8_t *lft = rt.lft[nth(&b.t, TOPO_SWITCH, 4 + sp)].ports;
		for (uint32_t lid = 7; lid <= 14; lid++)
			assert_int_equal(lft[lid], (lid - 7) / 2 + 1);
		for (uint32_t l = 0; l < 4; l++)
			assert_int_equal(lft[l + 1], l + 1);
		assert_int_equal(lft[5 + sp], 0);
	}
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

static void test_full_trees_optimal(void **state)
{
	static const struct { int three; unsigned k; } cases[] = {
		{ 0, 4 }, { 0, 8 }, { 0, 12 }, { 0, 36 }, { 1, 4 }, { 1, 6 }, { 1, 8 }, { 1, 12 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tb b;
		struct route_tables rt;
		struct route_verify v;
		tb_init(&b);
		if (cases[i].three)
			tb_ft3(&b, cases[i].k);
		else
			tb_ft2(&b, cases[i].k);
		fill(&b.t, 0);
		route(&b.t, "ftree", &rt);
		verify(&b.t, &rt, &v);
		assert_true(route_verify_ok(&v));
		assert_int_equal(v.nonminimal, 0);
		assert_int_equal(v.a2a_max, v.a2a_bound);
		assert_int_equal(v.shift_max, 1);
		route_tables_free(&rt);
		topo_free_all(&b.t);
	}
}

static void ring(struct tb *b, unsigned n)
{
	unsigned dims[1] = { n };

	tb_init(b);
	tb_torus(b, dims, 1, 1);
	fill(&b->t, 0);
}

/* A ring is where minhop's credit loop shows and updn must avoid it. */
static void test_ring_minhop_cycle_updn_none(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct route_verify v;

	(void)state;
	ring(&b, 6);
	route(&b.t, "minhop", &rt);
	verify(&b.t, &rt, &v);
	assert_int_equal(v.unreachable + v.looping + v.dead_port, 0);
	assert_true(v.cdg_cycle);
	route_tables_free(&rt);
	route(&b.t, "auto", &rt);
	assert_string_equal(rt.engine, "updn");
	verify(&b.t, &rt, &v);
	assert_true(route_verify_ok(&v));
	assert_int_equal(v.pairs, 30);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/* Breaking tables by hand: each fault lands in its own counter. */
static void test_verify_counts_faults(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct route_verify v;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 4);
	fill(&b.t, 0);
	route(&b.t, "ftree", &rt);
	uint8_t *l1 = rt.lft[nth(&b.t, TOPO_SWITCH, 1)].ports;
	uint8_t *s0 = rt.lft[nth(&b.t, TOPO_SWITCH, 4)].ports;
	l1[7] = LFT_NO_PORT;  /* L1 -> host lid 7: no entry (2 sources) */
	l1[9] = 3;            /* L1's own host lid 9 sent up to S0 ... */
	s0[9] = 2;            /* ... and S0 sends it back: loop (7 sources) */
	l1[8] = 0;            /* port 0 at a non-destination: dead (2 sources) */
	verify(&b.t, &rt, &v);
	assert_int_equal(v.pairs, 56);
	assert_int_equal(v.unreachable, 2);
	assert_int_equal(v.dead_port, 2);
	assert_int_equal(v.looping, 7);
	assert_true(v.cdg_cycle);
	assert_false(route_verify_ok(&v));
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

static void test_verify_format(void **state)
{
	struct route_verify v;
	char buf[2048];

	(void)state;
	memset(&v, 0, sizeof(v));
	v.nhosts = 2;
	v.pairs = 2;
	v.a2a_max = 3;
	v.a2a_bound = 2;
	route_verify_format(&v, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"a2a_max\":3,\"a2a_bound\":2"));
	assert_non_null(strstr(buf, "\"ok\":true"));
	route_verify_format(&v, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "busiest link 3"));
	assert_non_null(strstr(buf, "(x1.500)"));
}

static void test_lids_keep_and_fix(void **state)
{
	struct tb b;
	char err[128];

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 4);
	uint32_t l0 = nth(&b.t, TOPO_SWITCH, 0), s1 = nth(&b.t, TOPO_SWITCH, 5);
	uint32_t c0 = nth(&b.t, TOPO_CA, 0), c1 = nth(&b.t, TOPO_CA, 1);
	uint32_t c2 = nth(&b.t, TOPO_CA, 2);
	b.t.nodes[l0].ports[0].lid = 100;   /* kept */
	b.t.nodes[s1].ports[0].lid = 100;   /* clashes with l0 (lower GUID wins) */
	b.t.nodes[c0].ports[1].lid = 64;    /* aligned for lmc 2: kept */
	b.t.nodes[c1].ports[1].lid = 66;    /* inside c0's range: reassigned */
	b.t.nodes[c2].ports[1].lid = 201;   /* misaligned: reassigned */
	assert_int_equal(topo_fill_lids(&b.t, 2, err, sizeof(err)), 0);
	assert_int_equal(b.t.nodes[l0].ports[0].lid, 100);
	assert_int_equal(b.t.nodes[s1].ports[0].lid, 5); /* 1-4: other switches */
	assert_int_equal(b.t.nodes[c0].ports[1].lid, 64);
	assert_int_equal(b.t.nodes[c0].ports[1].lmc, 2);
	assert_int_equal(b.t.nodes[c1].ports[1].lid, 8);  /* first free aligned block */
	assert_int_equal(b.t.nodes[c2].ports[1].lid, 12);
	for (uint32_t i = 0; i < b.t.nnodes; i++)
		if (b.t.nodes[i].type == TOPO_CA)
			assert_int_equal(b.t.nodes[i].ports[1].lid % 4, 0);
	assert_int_equal(topo_fill_lids(&b.t, 8, err, sizeof(err)), -1);
	topo_free_all(&b.t);
}

static void test_lids_run_out(void **state)
{
	struct tb b;
	char err[128];

	(void)state;
	tb_init(&b);
	uint32_t sw = tb_switch(&b, 254);
	for (unsigned i = 0; i < 200; i++)
		tb_link(&b, sw, (uint8_t)(i + 1), tb_ca(&b, 1), 1);
	uint32_t sw2 = tb_switch(&b, 254);
	tb_link(&b, sw, 254, sw2, 254);
	for (unsigned i = 0; i < 200; i++)
		tb_link(&b, sw2, (uint8_t)(i + 1), tb_ca(&b, 1), 1);
	/* 400 CA ports x 128 LIDs > 0xBFFF */
	assert_int_equal(topo_fill_lids(&b.t, 7, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of unicast LIDs"));
	topo_free_all(&b.t);
}

/* Same GUIDs -> same LIDs and same LFT per switch, whatever nodes[] order. */
static void check_shuffle(struct tb *b, const char *engine, uint64_t seed)
{
	struct topo c;
	struct route_tables r1, r2;

	topo_copy(&c, &b->t);
	tb_shuffle(&c, seed);
	fill(&b->t, 1);
	fill(&c, 1);
	route(&b->t, engine, &r1);
	route(&c, engine, &r2);
	assert_string_equal(r1.engine, r2.engine);
	assert_int_equal(r1.top, r2.top);
	for (uint32_t i = 0; i < b->t.nnodes; i++) {
		uint32_t j = node_by_guid(&c, b->t.nodes[i].guid);
		for (uint32_t p = 0; p <= b->t.nodes[i].nports; p++)
			assert_int_equal(b->t.nodes[i].ports[p].lid, c.nodes[j].ports[p].lid);
		if (!r1.lft[i].ports)
			continue;
		assert_memory_equal(r1.lft[i].ports, r2.lft[j].ports, r1.top + 1u);
	}
	route_tables_free(&r1);
	route_tables_free(&r2);
	topo_free_all(&c);
}

static void test_shuffle_determinism(void **state)
{
	static const char *const engines[] = { "minhop", "updn", "ftree", "auto" };
	unsigned dims[2] = { 4, 3 };

	(void)state;
	for (size_t e = 0; e < 4; e++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct tb b;
			tb_init(&b);
			tb_ft3(&b, 6);
			tb_remove_links(&b, 8, seed);
			check_shuffle(&b, engines[e], seed * 7);
			topo_free_all(&b.t);
			tb_init(&b);
			tb_torus(&b, dims, 2, 2);
			check_shuffle(&b, engines[e], seed * 11);
			topo_free_all(&b.t);
		}
}

/* Pairs whose hosts sit in different connected components. */
static uint64_t disconnected_pairs(const struct topo *t)
{
	uint32_t n = t->nnodes, *comp = malloc(n * sizeof(*comp)), *q = malloc(n * sizeof(*q));
	uint64_t *size = calloc(n, sizeof(*size)), hosts = 0, same = 0;

	for (uint32_t i = 0; i < n; i++)
		comp[i] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++) {
		if (comp[i] != UINT32_MAX)
			continue;
		uint32_t h = 0, tl = 0;
		comp[i] = i;
		q[tl++] = i;
		while (h < tl) {
			const struct topo_node *nd = &t->nodes[q[h++]];
			for (uint32_t p = 1; p <= nd->nports; p++) {
				uint32_t r = nd->ports[p].peer_node;
				if (r != TOPO_NONE && comp[r] == UINT32_MAX) {
					comp[r] = i;
					q[tl++] = r;
				}
			}
		}
	}
	for (uint32_t i = 0; i < n; i++)
		if (t->nodes[i].type == TOPO_CA && topo_port_linked(&t->nodes[i].ports[1])) {
			size[comp[i]]++;
			hosts++;
		}
	for (uint32_t i = 0; i < n; i++)
		same += size[i] * (size[i] ? size[i] - 1 : 0);
	free(comp);
	free(q);
	free(size);
	return hosts * (hosts - 1) - same;
}

static void check_props(struct tb *b, const char *engine, const char *what, uint64_t seed)
{
	struct route_tables rt;
	struct route_verify v;

	fill(&b->t, 0);
	route(&b->t, engine, &rt);
	verify(&b->t, &rt, &v);
	uint64_t cut = disconnected_pairs(&b->t);
	if (v.looping || v.dead_port || v.cdg_cycle || v.unreachable != cut)
		fail_msg("%s seed %llu engine %s: unreachable %llu (disconnected %llu), "
			 "looping %llu, dead %llu, cdg cycle %d", what,
			 (unsigned long long)seed, rt.engine, (unsigned long long)v.unreachable,
			 (unsigned long long)cut, (unsigned long long)v.looping,
			 (unsigned long long)v.dead_port, v.cdg_cycle);
	route_tables_free(&rt);
	topo_free_all(&b->t);
}

static void test_props_degraded_trees(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct tb b;
		tb_init(&b);
		tb_ft2(&b, 8 + 2 * (unsigned)(seed % 4));
		tb_remove_links(&b, 1 + (unsigned)(seed % 10), seed);
		check_props(&b, "auto", "ft2 degraded", seed);
		tb_init(&b);
		tb_ft3(&b, 6 + 2 * (unsigned)(seed % 2));
		tb_remove_links(&b, 1 + (unsigned)(seed % 10), seed);
		if (seed % 3 == 0)
			tb_remove_switches(&b, 2, seed);
		check_props(&b, "auto", "ft3 degraded", seed);
	}
}

static void test_props_other_topologies(void **state)
{
	static const unsigned d2[2] = { 5, 4 }, d3[3] = { 3, 3, 3 };

	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		struct tb b;
		tb_init(&b);
		tb_random(&b, 10 + (unsigned)(seed % 30), 3 + (unsigned)(seed % 4), 2, seed);
		check_props(&b, "auto", "random", seed);
	}
	struct tb b;
	tb_init(&b);
	tb_torus(&b, d2, 2, 2);
	check_props(&b, "auto", "torus 5x4", 0);
	tb_init(&b);
	tb_torus(&b, d3, 3, 1);
	check_props(&b, "updn", "torus 3x3x3", 0);
	tb_init(&b);
	tb_dragonfly(&b, 9, 4, 2);
	check_props(&b, "auto", "dragonfly 9x4", 0);
	tb_init(&b);
	tb_ft3(&b, 8);
	check_props(&b, "updn", "ft3 updn", 0);
}

/* Routes a degraded tree with auto; fails unless ftree ran and every pair is
 * routed without a credit loop. */
static void route_degraded(struct tb *b, struct route_tables *rt, struct route_verify *v)
{
	fill(&b->t, 0);
	route(&b->t, "auto", rt);
	/* ftree, or updn where up*\/down* from the leaves cannot reach a LID */
	if (strcmp(rt->engine, "ftree"))
		assert_non_null(strstr(rt->why, "using updn"));
	verify(&b->t, rt, v);
	assert_true(route_verify_ok(v));
}

/* A lvl-level radix-k tree with pct % of its links and sw upper switches
 * removed (seed). */
static void build_tree(struct tb *b, unsigned lvl, unsigned k, unsigned pct, unsigned sw,
		       uint64_t seed)
{
	tb_init(b);
	if (lvl == 2)
		tb_ft2(b, k);
	else
		tb_ft3(b, k);
	tb_remove_links(b, pct, seed);
	tb_remove_switches(b, sw, seed);
}

/* build_tree(), routed by route_degraded(). */
static void route_tree(struct tb *b, unsigned lvl, unsigned k, unsigned pct, unsigned sw,
		       uint64_t seed, struct route_tables *rt, struct route_verify *v)
{
	build_tree(b, lvl, k, pct, sw, seed);
	route_degraded(b, rt, v);
}

/*
 * Degraded-tree targets of the routing issue: all-to-all within 10 % of
 * its bound, every shift at most one above what shortest paths allow.
 * 2-level trees of three radixes and 3-level radix 8, 12 and 16, with 5 %
 * or 10 % of the links or 2 or 4 upper switches removed, three seeds each.
 */
static void test_degraded_quality(void **state)
{
	static const struct { unsigned lvl, k, pct, sw; } cases[] = {
		{ 2, 16, 5, 0 }, { 2, 16, 10, 0 }, { 2, 16, 0, 2 }, { 2, 24, 5, 0 },
		{ 2, 24, 10, 0 }, { 2, 24, 0, 4 }, { 2, 36, 5, 0 }, { 2, 36, 10, 0 },
		{ 2, 36, 0, 4 }, { 3, 12, 5, 0 }, { 3, 12, 0, 2 }, { 3, 12, 0, 4 },
		/* these three needed the restarts of the shift phase */
		{ 3, 8, 5, 0 }, { 3, 8, 10, 0 }, { 3, 16, 10, 0 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct tb b;
			struct route_tables rt;
			struct route_verify v;
			route_tree(&b, cases[c].lvl, cases[c].k, cases[c].pct, cases[c].sw, seed,
				   &rt, &v);
			if (v.a2a_max * 100 > v.a2a_bound * 110 || v.shift_pexcess > 1)
				fail_msg("ft%u-%u, %u %% links, %u switches, seed %llu: all-to-all "
					 "%llu vs bound %llu, shift excess %d over the pair bound",
					 cases[c].lvl, cases[c].k, cases[c].pct, cases[c].sw,
					 (unsigned long long)seed, (unsigned long long)v.a2a_max,
					 (unsigned long long)v.a2a_bound, v.shift_pexcess);
			route_tables_free(&rt);
			topo_free_all(&b.t);
		}
}

/*
 * Where the pair bound of a shift is its per-switch bound + 1, a routing
 * at the pair bound also meets the per-switch bound + 1, the issue's own
 * wording of the target: balance asks for that once the pair bound + 1 is
 * met. Trees where it did not before (ft2-16 with 10 % of links removed,
 * seeds 2 and 3; ft2-24 with 5 %, seed 3; ft3-8 with 5 %, seed 2; ft3-12
 * with 4 switches removed, seed 2, as route-bench builds them).
 */
static void test_degraded_per_switch(void **state)
{
	static const struct { unsigned lvl, k, pct, sw; uint64_t seed; } cases[] = {
		{ 2, 16, 10, 0, 2 }, { 2, 16, 10, 0, 3 }, { 2, 24, 5, 0, 3 },
		{ 3, 8, 5, 0, 2 }, { 3, 12, 0, 4, 2 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tb b;
		struct route_tables rt;
		struct route_verify v;
		route_tree(&b, cases[c].lvl, cases[c].k, cases[c].pct, cases[c].sw,
			   cases[c].seed, &rt, &v);
		if (v.shift_pexcess > 1 || v.shift_fexcess > 1)
			fail_msg("ft%u-%u, %u %% links, %u switches, seed %llu: shift excess %d "
				 "over the pair bound, %d over the per-switch bound where the "
				 "pair bound allows it", cases[c].lvl, cases[c].k, cases[c].pct,
				 cases[c].sw, (unsigned long long)cases[c].seed, v.shift_pexcess,
				 v.shift_fexcess);
		route_tables_free(&rt);
		topo_free_all(&b.t);
	}
}

/*
 * The same targets where shift counters for every link do not fit (here
 * because balance_bytes says so; by default from about 5 000 hosts on):
 * plane routing alone, or where it left entries above its target, balance
 * by parts after it (the leaves' links, then one upper component at a
 * time). 3-level radix 24 (3 456 hosts), two seeds each.
 */
static void test_degraded_quality_parts(void **state)
{
	static const struct { unsigned k, pct, sw; } cases[] = {
		{ 24, 5, 0 }, { 24, 10, 0 }, { 24, 0, 2 }, { 24, 0, 4 },
	};
	struct route_opts o = { .engine = "ftree", .balance_bytes = 4u << 20 };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (uint64_t seed = 1; seed <= 2; seed++) {
			struct tb b;
			struct route_tables rt;
			struct route_verify v;
			tb_init(&b);
			tb_ft3(&b, cases[c].k);
			tb_remove_links(&b, cases[c].pct, seed);
			tb_remove_switches(&b, cases[c].sw, seed);
			fill(&b.t, 0);
			if (route_compute(&b.t, &o, &rt))
				fail_msg("route_compute: %s", rt.why);
			assert_non_null(strstr(rt.why, "planes:"));
			if (strstr(rt.why, "balanced"))
				assert_non_null(strstr(rt.why, "shifts by parts"));
			verify(&b.t, &rt, &v);
			assert_true(route_verify_ok(&v));
			if (v.a2a_max * 100 > v.a2a_bound * 110 || v.shift_pexcess > 1)
				fail_msg("ft3-%u, %u %% links, %u switches, seed %llu: all-to-all "
					 "%llu vs bound %llu, shift excess %d over the pair bound (%s)",
					 cases[c].k, cases[c].pct, cases[c].sw,
					 (unsigned long long)seed, (unsigned long long)v.a2a_max,
					 (unsigned long long)v.a2a_bound, v.shift_pexcess, rt.why);
			route_tables_free(&rt);
			topo_free_all(&b.t);
		}
}

/* Port of switch node sw that leads to node peer (0 if none). */
static uint8_t port_to(const struct topo *t, uint32_t sw, uint32_t peer)
{
	for (uint32_t p = 1; p <= t->nodes[sw].nports; p++)
		if (t->nodes[sw].ports[p].peer_node == peer)
			return (uint8_t)p;
	return 0;
}

/* LID of the h-th host in leaf/port order (tb creates them in that order). */
static uint16_t host_lid(const struct topo *t, uint32_t h)
{
	return t->nodes[nth(t, TOPO_CA, h)].ports[1].lid;
}

/*
 * ft2 radix 8 (leaves L0..L7 of 4 hosts, spines S0..S3; leaf port 5 + s
 * goes to Ss) without the link L0-S1: plane routing. Host i keeps its own
 * spine i mod 4 from every leaf that has it (d-mod-k). Host 1, whose leaf
 * lost S1, is spread: the other seven leaves take S0, S2 and S3 three,
 * two and two times. L0 sends the hosts of spine 1 (i = 5, 9, ..., 29)
 * through S0, S2 and S3, again 3, 2 and 2, never twice in a row. The
 * other spines go down to L0's hosts; S1, which cannot, goes down to
 * another leaf and over a spine that can (its own replies and traps).
 */
static void test_planes_ft2_one_link(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct route_verify v;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 8);
	uint32_t l0 = nth(&b.t, TOPO_SWITCH, 0), s1 = nth(&b.t, TOPO_SWITCH, 9);
	tb_unlink(&b, l0, port_to(&b.t, l0, s1));
	fill(&b.t, 0);
	route(&b.t, "auto", &rt);
	assert_string_equal(rt.engine, "ftree");
	assert_non_null(strstr(rt.why, "planes: 1 pods, 4 planes, 0 top slots"));
	uint32_t spread[4] = { 0 }, dev[4] = { 0 }, last = 4;
	for (uint32_t l = 0; l < 8; l++) {
		const uint8_t *lft = rt.lft[nth(&b.t, TOPO_SWITCH, l)].ports;
		for (uint32_t i = 0; i < 32; i++) {
			uint8_t p = lft[host_lid(&b.t, i)];
			if (i / 4 == l)
				continue;
			assert_true(p >= 5 && p <= 8);
			if (i == 1)
				spread[p - 5]++;
			else if (l == 0 && i % 4 == 1) {
				assert_int_not_equal(p - 5, last);
				dev[last = p - 5u]++;
			} else
				assert_int_equal(p, 5 + i % 4);
		}
	}
	assert_int_equal(spread[1], 0);
	assert_int_equal(dev[1], 0);
	for (uint32_t s = 0; s < 4; s += 1 + (s == 0)) {
		assert_in_range(spread[s], 2, 3);
		assert_in_range(dev[s], 2, 3);
	}
	for (uint32_t sp = 0; sp < 4; sp++) {
		const uint8_t *lft = rt.lft[nth(&b.t, TOPO_SWITCH, 8 + sp)].ports;
		/* spine 1 lost leaf 0: its own packets go down another leaf */
		for (uint32_t i = 0; i < 32; i++)
			if (sp == 1 && i < 4)
				assert_in_range(lft[host_lid(&b.t, i)], 2, 8);
			else
				assert_int_equal(lft[host_lid(&b.t, i)], i / 4 + 1);
	}
	verify(&b.t, &rt, &v);
	assert_true(route_verify_ok(&v));
	assert_true(v.a2a_max * 100 <= v.a2a_bound * 110);
	assert_true(v.shift_pexcess <= 1);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/*
 * ft3 radix 8 (8 pods of 4 leaves, 4 planes of 4 top switches) without
 * the link from leaf 0 to its pod's middle 1: plane routing alone (within
 * its targets, balance does not run). Leaf port 5 + m goes to middle m,
 * middle port 5 + t to top slot t. Every leaf sends host i through plane
 * i mod 4 (d-mod-k) but for host 1 (on leaf 0: spread over the other
 * planes) and, from leaf 0, the hosts of plane 1 (extras); every middle
 * sends the hosts of its plane in other pods up to slot (i / 4) mod 4
 * (host 1, which no middle 1 can take to leaf 0, aside), and middle 1 of
 * pod 0, which has no way down to leaf 0, goes down another leaf of its
 * pod for leaf 0's hosts (its own replies and traps).
 */
static void test_planes_ft3_one_link(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct route_verify v;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 8);
	tb_unlink(&b, nth(&b.t, TOPO_SWITCH, 0), 5 + 1);
	fill(&b.t, 0);
	route(&b.t, "auto", &rt);
	assert_non_null(strstr(rt.why, "planes: 8 pods, 4 planes, 4 top slots"));
	assert_null(strstr(rt.why, "balanced"));
	for (uint32_t l = 0; l < 32; l++) {
		const uint8_t *lft = rt.lft[nth(&b.t, TOPO_SWITCH, l)].ports;
		for (uint32_t i = 0; i < 128; i++) {
			uint8_t p = lft[host_lid(&b.t, i)];
			if (i / 4 == l)
				continue;
			if (i == 1 || (l == 0 && i % 4 == 1))
				assert_true(p == 5 || p == 7 || p == 8);
			else
				assert_int_equal(p, 5 + i % 4);
		}
	}
	for (uint32_t pod = 0; pod < 8; pod++)
		for (uint32_t q = 0; q < 4; q++) {
			const uint8_t *lft = rt.lft[nth(&b.t, TOPO_SWITCH, 32 + pod * 4 + q)].ports;
			for (uint32_t i = 0; i < 128; i++)
				if (i % 4 == q && i / 16 != pod && i != 1)
					assert_int_equal(lft[host_lid(&b.t, i)], 5 + (i / 4) % 4);
			/* middle 1 of pod 0 lost leaf 0: down another leaf of the pod */
			if (pod == 0 && q == 1)
				for (uint32_t i = 0; i < 4; i++)
					assert_in_range(lft[host_lid(&b.t, i)], 2, 4);
		}
	verify(&b.t, &rt, &v);
	assert_true(route_verify_ok(&v));
	assert_int_equal(v.nonminimal, 0);
	assert_true(v.a2a_max * 100 <= v.a2a_bound * 105);
	assert_true(v.shift_pexcess <= 1);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/* Hops from the leaf of CA c to LID lid through the tables, 0 if the walk
 * drops the packet or loops (more than 8 switches). */
static uint32_t walk_to(const struct topo *t, const struct route_tables *rt, uint32_t c,
			uint16_t lid)
{
	uint32_t s = t->nodes[c].ports[1].peer_node;

	for (uint32_t hops = 1; hops <= 8; hops++) {
		uint8_t p = rt->lft[s].ports[lid];
		if (p == LFT_NO_PORT || p > t->nodes[s].nports || !topo_port_linked(&t->nodes[s].ports[p]))
			return 0;
		uint32_t n = t->nodes[s].ports[p].peer_node;
		if (t->nodes[n].type == TOPO_CA)
			return t->nodes[n].ports[t->nodes[s].ports[p].peer_port].lid ==
			       (lid & ~3u) ? hops : 0;
		s = n;
	}
	return 0;
}

/* Degraded trees with LMC 2: plane routing (on the seeds where up*\/down*
 * joins every leaf pair: at least 4 of 8) reaches every LID of every host
 * from every other host, and the offsets of one host do not all share the
 * base LID's path. */
static void test_planes_lmc(void **state)
{
	uint32_t planed = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct tb b;
		struct route_tables rt;
		tb_init(&b);
		if (seed % 2)
			tb_ft3(&b, 8);
		else
			tb_ft2(&b, 12);
		tb_remove_links(&b, 10, seed);
		fill(&b.t, 2);
		route(&b.t, "auto", &rt);
		planed += strstr(rt.why, "planes:") != NULL;
		uint32_t differ = 0;
		for (uint32_t c = 0; c < b.t.nnodes; c++) {
			if (b.t.nodes[c].type != TOPO_CA)
				continue;
			for (uint32_t d = 0; d < b.t.nnodes; d++) {
				if (d == c || b.t.nodes[d].type != TOPO_CA)
					continue;
				uint16_t lid = b.t.nodes[d].ports[1].lid;
				uint32_t leaf = b.t.nodes[c].ports[1].peer_node;
				for (uint16_t o = 0; o < 4; o++)
					assert_int_not_equal(walk_to(&b.t, &rt, c, (uint16_t)(lid + o)), 0);
				differ += rt.lft[leaf].ports[lid] != rt.lft[leaf].ports[lid + 1];
			}
		}
		assert_true(differ > 0);
		route_tables_free(&rt);
		topo_free_all(&b.t);
	}
	assert_true(planed >= 4);
}

/* Complete trees keep ftree's own d-mod-k; trees with parallel links the
 * general engine: plane routing declines both. */
static void test_planes_declines(void **state)
{
	struct tb b;
	struct route_tables rt;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 8);
	fill(&b.t, 0);
	route(&b.t, "ftree", &rt);
	assert_null(strstr(rt.why, "planes"));
	route_tables_free(&rt);
	topo_free_all(&b.t);
	tb_init(&b);
	tb_ft2(&b, 8);
	uint32_t l0 = nth(&b.t, TOPO_SWITCH, 0), s0 = nth(&b.t, TOPO_SWITCH, 8);
	uint32_t l1 = nth(&b.t, TOPO_SWITCH, 1);
	/* L0's port to S1 goes to S0's port of L1: two L0-S0 links, and
	 * degraded */
	uint8_t ps = port_to(&b.t, s0, l1);
	tb_unlink(&b, s0, ps);
	tb_unlink(&b, l0, 6);
	tb_link(&b, l0, 6, s0, ps);
	fill(&b.t, 0);
	route(&b.t, "ftree", &rt);
	assert_null(strstr(rt.why, "planes"));
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/*
 * Radix-8 2-level tree (leaves of 4 hosts, spines S0..S3) where leaf 0
 * keeps only S0, S1 and leaf 1 only S1, S2: under shift 4 all four hosts
 * of leaf 0 send to leaf 1, whose only shared spine is S1. The per-switch
 * bound says 2 (4 routes over 2 links); the pair bound knows it is 4, and
 * the routes meet it.
 */
static void test_pair_bound(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct route_verify v;
	uint32_t leaf0, leaf1;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 8);
	leaf0 = nth(&b.t, TOPO_SWITCH, 0);
	leaf1 = nth(&b.t, TOPO_SWITCH, 1);
	tb_unlink(&b, leaf0, 7);   /* S2 */
	tb_unlink(&b, leaf0, 8);   /* S3 */
	tb_unlink(&b, leaf1, 5);   /* S0 */
	tb_unlink(&b, leaf1, 8);   /* S3 */
	route_degraded(&b, &rt, &v);
	assert_int_equal(v.shift_bound, 2);
	assert_int_equal(v.shift_pbound, 4);
	assert_int_equal(v.shift_max, 4);
	assert_true(v.shift_pexcess <= 1);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/*
 * The same tree where leaf 0 keeps S0, S1 and leaves 1 and 2 share only
 * S0 with it (they keep S0, S2 and S0, S3): under shift 6 leaf 0 sends two
 * hosts to each of them, every pair alone fits 2 on one link, but all
 * four need S0. The runs leaving leaf 0 are bounded together: 4. (Only
 * the bound is checked here; test_degraded_quality checks routes.)
 */
static void test_pair_bound_runs_together(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct route_verify v;
	uint32_t leaf[3];

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 8);
	for (uint32_t i = 0; i < 3; i++)
		leaf[i] = nth(&b.t, TOPO_SWITCH, i);
	tb_unlink(&b, leaf[0], 7);   /* S2 */
	tb_unlink(&b, leaf[0], 8);   /* S3 */
	tb_unlink(&b, leaf[1], 6);   /* S1 */
	tb_unlink(&b, leaf[1], 8);   /* S3 */
	tb_unlink(&b, leaf[2], 6);   /* S1 */
	tb_unlink(&b, leaf[2], 7);   /* S2 */
	route_degraded(&b, &rt, &v);
	assert_int_equal(v.shift_bound, 2);
	assert_int_equal(v.shift_pbound, 4);
	assert_true(v.shift_max >= 4);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/*
 * Balance by parts on tables with a hole: a top switch that some middle
 * switch sends one host to drops it (LFT_NO_PORT). Counting a component
 * must stop at the hole (it once read past the link table there: under
 * ASan that crashed when the bytes beyond held a large index), and the
 * routes stay loop-free and deadlock-free.
 */
static void test_balance_parts_hole(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct rgraph g;
	struct balance_stats st;
	char err[128];
	uint32_t n = 0, top = 0, victim = RG_NONE, hd = RG_NONE;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 8);
	tb_remove_links(&b, 10, 1);
	fill(&b.t, 0);
	route(&b.t, "ftree", &rt);
	assert_int_equal(rg_build(&g, &b.t, err, sizeof(err)), 0);
	uint32_t *rank = malloc(g.nsw * sizeof(*rank)), *src = malloc(g.nsw * sizeof(*src));
	uint32_t *q = malloc(g.nsw * sizeof(*q));
	uint8_t **lft = malloc(g.nsw * sizeof(*lft));
	assert_true(rank && src && q && lft);
	for (uint32_t s = 0; s < g.nsw; s++) {
		lft[s] = rt.lft[g.sw[s].node].ports;
		if (g.sw[s].nhosts)
			src[n++] = s;
	}
	rg_bfs(&g, src, n, rank, q);
	for (uint32_t s = 0; s < g.nsw; s++)
		if (rank[s] != UINT32_MAX && rank[s] >= top) {
			top = rank[s];
			victim = s;
		}
	for (uint32_t h = 0; h < g.nhosts && hd == RG_NONE; h++)
		for (uint32_t s = 0; s < g.nsw && hd == RG_NONE; s++) {
			uint8_t p = lft[s][g.hosts[h].lid];
			if (p && p <= g.sw[s].nports && rg_port_peer_sw(&g, s, p) == victim)
				hd = h;
		}
	assert_true(victim != RG_NONE && hd != RG_NONE);
	lft[victim][g.hosts[hd].lid] = LFT_NO_PORT;
	route_balance(&g, lft, rank, 1, 20000, &st);
	assert_int_equal(st.leaf_done, 1);
	assert_true(st.shift_comps > 0);
	struct route_verify v;
	verify(&b.t, &rt, &v);
	assert_true(v.unreachable > 0);
	assert_int_equal(v.looping, 0);
	assert_int_equal(v.cdg_cycle, 0);
	free(rank);
	free(src);
	free(q);
	free(lft);
	rg_free(&g);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/*
 * Balance on a torus: updn's tables on a bipartite fabric are evened out
 * (moves keep them up*\/down*), so the busiest link drops and no credit
 * loop appears.
 */
static void test_balance_updn_torus(void **state)
{
	static const unsigned dims[2] = { 4, 4 };
	struct tb b;
	struct route_tables rt;
	struct route_verify v;

	(void)state;
	tb_init(&b);
	tb_torus(&b, dims, 2, 2);
	fill(&b.t, 0);
	route(&b.t, "updn", &rt);
	verify(&b.t, &rt, &v);
	assert_true(route_verify_ok(&v));
	if (!strstr(rt.why, "balanced: all-to-all"))
		fail_msg("updn did not balance: %s", rt.why);
	unsigned long long before, after;
	const char *p = strstr(rt.why, "balanced: all-to-all");
	assert_int_equal(sscanf(p, "balanced: all-to-all %llu -> %llu", &before, &after), 2);
	assert_true(after < before);
	assert_int_equal(v.a2a_max, after);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/* Routes t on the given number of threads; split: route_opts.split_cells. */
static void route_threads(const struct topo *t, unsigned threads, uint64_t split,
			  struct route_tables *rt)
{
	struct route_opts o = { .engine = "auto", .threads = threads, .split_cells = split };

	if (route_compute(t, &o, rt))
		fail_msg("route_compute: %s", rt->why);
}

/*
 * A second thread changes when work is done, never what: switch LIDs
 * beside plane routing, the two halves of its leaves (split_cells 1: on
 * any tree), a reach fill's next block walked ahead. Radix 28 (980
 * switches, 6468 LIDs) has more table cells than RG_PAR_CELLS, so that
 * two threads do run; 5 % of its links removed, planes routes it and
 * switches' own packets need filling.
 */
static void test_threads_same_tables(void **state)
{
	static const struct { unsigned pct; uint64_t split; } cases[] = {
		{ 0, 0 }, { 5, 0 }, { 5, 1 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tb b;
		struct route_tables one, two;
		tb_init(&b);
		tb_ft3(&b, 28);
		tb_remove_links(&b, cases[c].pct, 3);
		fill(&b.t, 0);
		route_threads(&b.t, 1, cases[c].split, &one);
		route_threads(&b.t, 2, cases[c].split, &two);
		assert_string_equal(one.why, two.why);
		if (cases[c].pct)
			assert_non_null(strstr(one.why, "planes:"));
		assert_int_equal(one.top, two.top);
		for (uint32_t i = 0; i < b.t.nnodes; i++) {
			assert_int_equal(!one.lft[i].ports, !two.lft[i].ports);
			if (one.lft[i].ports && memcmp(one.lft[i].ports, two.lft[i].ports, one.top + 1u))
				fail_msg("%s: node %u's table differs on two threads", one.why, i);
		}
		route_tables_free(&one);
		route_tables_free(&two);
		topo_free_all(&b.t);
	}
}

struct marks {
	uint8_t hit[9];
	int half_of[9];
};

static void mark_range(void *arg, int half, uint32_t lo, uint32_t hi)
{
	struct marks *m = arg;

	for (uint32_t i = lo; i < hi; i++) {
		m->hit[i]++;
		m->half_of[i] = half;
	}
}

/* rg_par_range() hands out every index once, the lower half as half 0,
 * on two threads as on one, odd counts and empty halves included. */
static void test_par_range_halves(void **state)
{
	(void)state;
	for (unsigned threads = 1; threads <= 2; threads++)
		for (uint32_t n = 0; n <= 9; n++) {
			struct marks m;
			memset(&m, 0, sizeof(m));
			rg_par_range(mark_range, &m, n, threads);
			for (uint32_t i = 0; i < 9; i++) {
				assert_int_equal(m.hit[i], i < n);
				if (i < n)
					assert_int_equal(m.half_of[i], i >= n / 2);
			}
		}
}

/*
 * The middle switches' four-bit counters (planes_slot.c) are those of
 * bytes in effect: a radix-32 tree where 64 leaves (every 7th) keep one
 * uplink has a shift target of 17, so that counts pass 15 and their plane
 * is counted again a byte each. The tables equal those of byte counters
 * from the start (route_opts.planes_bytes); without the second count they
 * differ.
 */
static void test_planes_counters_wide(void **state)
{
	struct tb b;
	struct route_tables rt[2];
	uint32_t leaf = 0, h = 16;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 32);
	/* the leaves are the first 512 switches tb_ft3() makes */
	for (uint32_t n = 0; n < b.t.nnodes && leaf < 32 * h; n++) {
		if (b.t.nodes[n].type != TOPO_SWITCH)
			continue;
		for (uint32_t j = 0; j < 64; j++)
			if (leaf == j * 7 % (32 * h))
				for (uint8_t p = (uint8_t)(h + 2); p <= 32; p++)
					tb_unlink(&b, n, p);
		leaf++;
	}
	fill(&b.t, 0);
	for (int k = 0; k < 2; k++) {
		struct route_opts o = { .engine = "ftree", .threads = 1, .planes_bytes = k };
		if (route_compute(&b.t, &o, &rt[k]))
			fail_msg("route_compute: %s", rt[k].why);
	}
	assert_non_null(strstr(rt[0].why, "planes counted again a byte per counter"));
	assert_null(strstr(rt[1].why, "counted again"));
	assert_int_equal(rt[0].top, rt[1].top);
	for (uint32_t i = 0; i < b.t.nnodes; i++) {
		assert_int_equal(!rt[0].lft[i].ports, !rt[1].lft[i].ports);
		if (rt[0].lft[i].ports)
			assert_memory_equal(rt[0].lft[i].ports, rt[1].lft[i].ports, rt[0].top + 1u);
	}
	route_tables_free(&rt[0]);
	route_tables_free(&rt[1]);
	topo_free_all(&b.t);
}

/*
 * Plane routing's leaves and the reach fill in two halves (split_cells 1)
 * keep the degraded trees' targets (test_degraded_quality()): 3-level
 * radix 16 and 28 with 5 % or 10 % of their links removed; on radix 8
 * (pods too close in host order) and 2-level radix 16 (one run of 16
 * leaves) the leaves do not split.
 */
static void test_planes_halves_quality(void **state)
{
	static const struct { unsigned lvl, k, pct; } cases[] = {
		{ 3, 8, 5 }, { 2, 16, 5 }, { 3, 16, 5 }, { 3, 16, 10 }, { 3, 28, 5 }, { 3, 28, 10 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tb b;
		struct route_tables rt;
		struct route_verify v;
		build_tree(&b, cases[c].lvl, cases[c].k, cases[c].pct, 0, 1);
		fill(&b.t, 0);
		route_threads(&b.t, 2, 1, &rt);
		assert_non_null(strstr(rt.why, "planes:"));
		verify(&b.t, &rt, &v);
		assert_true(route_verify_ok(&v));
		if (v.a2a_max * 100 > v.a2a_bound * 110 || v.shift_pexcess > 1)
			fail_msg("ft%u-%u, %u %% links, halves: all-to-all %llu vs bound %llu, shift "
				 "excess %d over the pair bound", cases[c].lvl, cases[c].k, cases[c].pct,
				 (unsigned long long)v.a2a_max, (unsigned long long)v.a2a_bound,
				 v.shift_pexcess);
		route_tables_free(&rt);
		topo_free_all(&b.t);
	}
}

/*
 * Trees where the reach fill's two halves each keep their own new
 * dependencies acyclic but close a cycle together (ft3-12 without 2 upper
 * switches, ft2-16 with 5 % or 10 % of its links removed; the leaves do
 * not split there): the fill runs again in one go, so the tables are
 * those of split_cells 0, credit loops or none alike.
 */
static void test_reach_halves_cross(void **state)
{
	static const struct { unsigned lvl, k, pct, sw; uint64_t seed; } cases[] = {
		{ 3, 12, 0, 2, 1 }, { 2, 16, 5, 0, 1 }, { 2, 16, 10, 0, 2 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tb b;
		struct route_tables one, two;
		struct route_verify v1, v2;
		build_tree(&b, cases[c].lvl, cases[c].k, cases[c].pct, cases[c].sw, cases[c].seed);
		fill(&b.t, 0);
		route_threads(&b.t, 2, 0, &one);
		route_threads(&b.t, 2, 1, &two);
		verify(&b.t, &one, &v1);
		verify(&b.t, &two, &v2);
		assert_int_equal(v1.sw_cdg_cycle, v2.sw_cdg_cycle);
		for (uint32_t i = 0; i < b.t.nnodes; i++)
			if (one.lft[i].ports && memcmp(one.lft[i].ports, two.lft[i].ports, one.top + 1u))
				fail_msg("case %zu: node %u's table differs with halves", c, i);
		route_tables_free(&one);
		route_tables_free(&two);
		topo_free_all(&b.t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftree_ft2_radix4_exact),
		cmocka_unit_test(test_full_trees_optimal),
		cmocka_unit_test(test_ring_minhop_cycle_updn_none),
		cmocka_unit_test(test_verify_counts_faults),
		cmocka_unit_test(test_verify_format),
		cmocka_unit_test(test_lids_keep_and_fix),
		cmocka_unit_test(test_lids_run_out),
		cmocka_unit_test(test_shuffle_determinism),
		cmocka_unit_test(test_props_degraded_trees),
		cmocka_unit_test(test_props_other_topologies),
		cmocka_unit_test(test_degraded_quality),
		cmocka_unit_test(test_degraded_per_switch),
		cmocka_unit_test(test_degraded_quality_parts),
		cmocka_unit_test(test_planes_ft2_one_link),
		cmocka_unit_test(test_planes_ft3_one_link),
		cmocka_unit_test(test_planes_declines),
		cmocka_unit_test(test_planes_lmc),
		cmocka_unit_test(test_pair_bound),
		cmocka_unit_test(test_pair_bound_runs_together),
		cmocka_unit_test(test_balance_updn_torus),
		cmocka_unit_test(test_balance_parts_hole),
		cmocka_unit_test(test_threads_same_tables),
		cmocka_unit_test(test_par_range_halves),
		cmocka_unit_test(test_planes_counters_wide),
		cmocka_unit_test(test_planes_halves_quality),
		cmocka_unit_test(test_reach_halves_cross),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
