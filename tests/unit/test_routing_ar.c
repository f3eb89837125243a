/*
 * DOC: tests of the AR group / AR LFT computation and of its verifier.
 *
 * Small fat trees whose groups were worked out by hand (ft2 radix 4: 4
 * leaves with hosts on ports 1-2 and spines on ports 3-4; a tree with
 * parallel links), degraded trees (a lost link drops the spine from the
 * group; seeded link losses keep every AR path loop-free and the CDG
 * acyclic), stable group ids, and the verifier catching a loop, a dead
 * end and a channel-dependency cycle it is handed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "routing/ar.h"
#include "routing/lids.h"
#include "routing/routing.h"
#include "routing/verify.h"
#include "test_routing_topo.h"

struct fx {
	struct tb b;
	struct route_tables rt;
	struct ar_ids ids;
	struct ar_tables at;
};

static void route(struct fx *f, const char *engine)
{
	char err[256];
	struct route_opts o = { .engine = engine };

	assert_int_equal(topo_fill_lids(&f->b.t, 0, err, sizeof(err)), 0);
	assert_int_equal(route_compute(&f->b.t, &o, &f->rt), 0);
}

static void compute(struct fx *f, int bounded)
{
	struct ar_opts o = { .bounded = bounded };

	assert_int_equal(ar_compute(&f->b.t, &f->rt, &o, &f->ids, &f->at), 0);
}

static void fx_free(struct fx *f)
{
	ar_tables_free(&f->at);
	ar_ids_free(&f->ids);
	route_tables_free(&f->rt);
	topo_free_all(&f->b.t);
}

static struct ar_ports ports_of(unsigned a, unsigned b, unsigned c)
{
	struct ar_ports m = { { 0 } };

	if (a)
		ar_ports_add(&m, a);
	if (b)
		ar_ports_add(&m, b);
	if (c)
		ar_ports_add(&m, c);
	return m;
}

static void assert_ports(const struct ar_ports *got, struct ar_ports want)
{
	assert_memory_equal(got, &want, sizeof(want));
}

static void assert_verified(struct fx *f)
{
	struct ar_verify v;
	char err[256];

	assert_int_equal(ar_verify(&f->b.t, &f->at, &v, err, sizeof(err)), 0);
	assert_int_equal(v.loops, 0);
	assert_int_equal(v.dead_ends, 0);
	assert_int_equal(v.cdg_cycle, 0);
	assert_true(v.dests > 0);
	assert_true(ar_verify_ok(&v));
}

/* ft2 radix 4 node order: leaf i at 3i (hosts at 3i+1, 3i+2), spines at 12, 13. */
static uint32_t leaf(unsigned i)
{
	return 3 * i;
}

static uint16_t host_lid(const struct fx *f, unsigned l, unsigned h)
{
	return f->b.t.nodes[leaf(l) + 1 + h].ports[1].lid;
}

static void test_ft2_groups(void **state)
{
	struct fx f = { 0 };

	tb_init(&f.b);
	tb_ft2(&f.b, 4);
	route(&f, "ftree");
	compute(&f, 0);
	assert_int_equal(f.at.nleaves, 4);
	assert_int_equal(f.at.group_top, 4);
	assert_int_equal(f.at.static_outside, 0);
	for (unsigned l = 0; l < 4; l++) {
		uint16_t id = ar_ids_find(&f.ids, f.b.t.nodes[leaf(l)].guid);

		assert_true(id >= 1 && id <= 4);
		for (unsigned s = 0; s < 4; s++) {
			const struct ar_sw_tables *st = &f.at.sw[leaf(s)];
			assert_ports(&st->groups[0], ports_of(0, 0, 0));
			/* a leaf: both up ports to every other leaf, nothing to itself */
			assert_ports(&st->groups[id], s == l ? ports_of(0, 0, 0) : ports_of(3, 4, 0));
		}
		/* a spine: the one down port to that leaf (spine port l+1) */
		assert_ports(&f.at.sw[12].groups[id], ports_of(l + 1, 0, 0));
		assert_ports(&f.at.sw[13].groups[id], ports_of(l + 1, 0, 0));
	}
	/* leaf 0's entries: own hosts Static on their port, remote ones Free
	 * in the remote leaf's group with the ftree port as default */
	for (unsigned l = 0; l < 4; l++)
		for (unsigned h = 0; h < 2; h++) {
			uint16_t lid = host_lid(&f, l, h);
			const struct ar_entry *e = &f.at.sw[leaf(0)].lft[lid];

			assert_int_equal(e->port, f.rt.lft[leaf(0)].ports[lid]);
			if (l == 0) {
				assert_int_equal(e->state, AR_STATE_STATIC);
				assert_int_equal(e->port, h + 1);
				assert_int_equal(e->group, 0);
			} else {
				assert_int_equal(e->state, AR_STATE_FREE);
				assert_int_equal(e->group,
						 ar_ids_find(&f.ids, f.b.t.nodes[leaf(l)].guid));
				assert_true(e->port == 3 || e->port == 4);
			}
			/* spines have one way down: Static */
			assert_int_equal(f.at.sw[12].lft[lid].state, AR_STATE_STATIC);
		}
	/* 4 leaves x 6 remote hosts; spines none */
	/* a leaf: 6 remote hosts and 3 remote leaf switch LIDs */
	assert_int_equal(f.at.sw[leaf(1)].nadaptive, 6 + 3);
	assert_verified(&f);
	{
		struct ar_verify v;
		char err[256];

		assert_int_equal(ar_verify(&f.b.t, &f.at, &v, err, sizeof(err)), 0);
		assert_int_equal(v.dests, 8);   /* every host LID, walked or not */
		assert_true(v.cdg_edges > 0);
	}
	fx_free(&f);
}

static void test_bounded_and_switch_lids(void **state)
{
	struct fx f = { 0 };

	tb_init(&f.b);
	tb_ft2(&f.b, 4);
	route(&f, "ftree");
	compute(&f, 1);
	uint16_t l1 = f.b.t.nodes[leaf(1)].ports[0].lid, sp = f.b.t.nodes[12].ports[0].lid;
	const struct ar_entry *e = &f.at.sw[leaf(0)].lft[l1];

	/* a leaf switch's own LID goes adaptive like its hosts */
	assert_int_equal(e->state, AR_STATE_BOUNDED);
	assert_int_equal(e->group, ar_ids_find(&f.ids, f.b.t.nodes[leaf(1)].guid));
	/* a spine's LID is no leaf: Static on the ftree port */
	e = &f.at.sw[leaf(0)].lft[sp];
	assert_int_equal(e->state, AR_STATE_STATIC);
	assert_int_equal(e->port, 3);
	/* a switch's own LID: port 0 */
	assert_int_equal(f.at.sw[leaf(0)].lft[f.b.t.nodes[leaf(0)].ports[0].lid].port, 0);
	assert_verified(&f);
	fx_free(&f);
}

/* Two leaves A, B (hosts on 1, 2), spine S1 on ports 3+4 (parallel), spine
 * S2 on port 5. */
static void build_parallel(struct tb *b, uint32_t *a, uint32_t *bb, uint32_t *s1, uint32_t *s2)
{
	tb_init(b);
	*a = tb_switch(b, 8);
	*bb = tb_switch(b, 8);
	*s1 = tb_switch(b, 8);
	*s2 = tb_switch(b, 8);
	for (unsigned i = 0; i < 2; i++) {
		tb_link(b, *a, (uint8_t)(i + 1), tb_ca(b, 1), 1);
		tb_link(b, *bb, (uint8_t)(i + 1), tb_ca(b, 1), 1);
	}
	tb_link(b, *a, 3, *s1, 1);
	tb_link(b, *a, 4, *s1, 2);
	tb_link(b, *bb, 3, *s1, 3);
	tb_link(b, *bb, 4, *s1, 4);
	tb_link(b, *a, 5, *s2, 1);
	tb_link(b, *bb, 5, *s2, 2);
}

static void test_parallel_links(void **state)
{
	struct fx f = { 0 };
	uint32_t a, b, s1, s2;

	build_parallel(&f.b, &a, &b, &s1, &s2);
	route(&f, "updn");
	compute(&f, 0);
	uint16_t ida = ar_ids_find(&f.ids, f.b.t.nodes[a].guid);
	uint16_t idb = ar_ids_find(&f.ids, f.b.t.nodes[b].guid);

	assert_ports(&f.at.sw[a].groups[idb], ports_of(3, 4, 5));
	assert_ports(&f.at.sw[b].groups[ida], ports_of(3, 4, 5));
	assert_ports(&f.at.sw[s1].groups[idb], ports_of(3, 4, 0));
	assert_ports(&f.at.sw[s1].groups[ida], ports_of(1, 2, 0));
	assert_ports(&f.at.sw[s2].groups[ida], ports_of(1, 0, 0));
	/* S1 has two ways down to A: adaptive; S2 one: Static */
	uint16_t lid = f.b.t.nodes[s2 + 1].ports[1].lid;   /* first CA: on A */
	assert_int_equal(f.at.sw[s1].lft[lid].state, AR_STATE_FREE);
	assert_int_equal(f.at.sw[s2].lft[lid].state, AR_STATE_STATIC);
	assert_verified(&f);
	fx_free(&f);
}

static void test_degraded_link(void **state)
{
	struct fx f = { 0 };

	tb_init(&f.b);
	tb_ft2(&f.b, 4);
	tb_unlink(&f.b, leaf(2), 4);   /* spine 13 loses its link to leaf 2 */
	route(&f, "auto");
	compute(&f, 0);
	uint16_t id2 = ar_ids_find(&f.ids, f.b.t.nodes[leaf(2)].guid);
	uint16_t id0 = ar_ids_find(&f.ids, f.b.t.nodes[leaf(0)].guid);

	/* leaves only go up through spine 12 (port 3) to reach leaf 2 */
	assert_ports(&f.at.sw[leaf(0)].groups[id2], ports_of(3, 0, 0));
	assert_ports(&f.at.sw[leaf(1)].groups[id2], ports_of(3, 0, 0));
	/* spine 13 has no legal path to leaf 2 (it would have to go down-up) */
	assert_ports(&f.at.sw[13].groups[id2], ports_of(0, 0, 0));
	/* leaf 2 itself can only go up via port 3 */
	assert_ports(&f.at.sw[leaf(2)].groups[id0], ports_of(3, 0, 0));
	/* one port left: Static on it */
	uint16_t lid = host_lid(&f, 2, 0);
	assert_int_equal(f.at.sw[leaf(0)].lft[lid].state, AR_STATE_STATIC);
	assert_int_equal(f.at.sw[leaf(0)].lft[lid].port, 3);
	assert_verified(&f);
	fx_free(&f);
}

/* Seeded link losses on 2- and 3-level trees: whenever the static tables
 * pass their own verification (some seeds cut the fabric apart; the daemon
 * then programs no AR), every AR path is loop-free, ends at its host, and
 * the CDG is acyclic. */
static void test_degraded_random(void **state)
{
	unsigned checked = 0;

	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct fx f = { 0 };
		struct route_verify rv;
		struct ar_verify v;
		char err[256];

		tb_init(&f.b);
		if (seed % 2)
			tb_ft3(&f.b, 4);
		else
			tb_ft2(&f.b, 8);
		tb_remove_links(&f.b, (unsigned)(5 + seed % 15), seed);
		route(&f, "auto");
		compute(&f, (int)(seed % 3 == 0));
		assert_int_equal(route_verify(&f.b.t, &f.rt, &rv, err, sizeof(err)), 0);
		assert_int_equal(ar_verify(&f.b.t, &f.at, &v, err, sizeof(err)), 0);
		if (route_verify_ok(&rv)) {
			assert_int_equal(v.loops, 0);
			assert_int_equal(v.cdg_cycle, 0);
			assert_int_equal(v.dead_ends, 0);
			checked++;
		}
		/* every adaptive entry's default port lies in its group */
		for (uint32_t n = 0; n < f.b.t.nnodes; n++)
			for (uint32_t l = 0; f.at.sw[n].lft && l <= f.at.top; l++) {
				const struct ar_entry *e = &f.at.sw[n].lft[l];
				if (e->state != AR_STATE_STATIC)
					assert_true(ar_ports_has(&f.at.sw[n].groups[e->group], e->port));
			}
		fx_free(&f);
	}
	assert_true(checked >= 10);
}

static void test_ids_stable(void **state)
{
	struct fx f = { 0 }, g = { 0 };

	tb_init(&f.b);
	tb_ft2(&f.b, 4);
	route(&f, "ftree");
	/* leaf 2 kept id 9 from an earlier run; a vanished leaf holds 1 */
	ar_ids_add(&f.ids, 0x1234);
	f.ids.v[0].id = 1;
	f.ids.n = 1;
	f.ids.v[f.ids.n].guid = f.b.t.nodes[leaf(2)].guid;
	f.ids.v[f.ids.n++].id = 9;
	f.ids.changed = 0;
	compute(&f, 0);
	assert_int_equal(ar_ids_find(&f.ids, f.b.t.nodes[leaf(2)].guid), 9);
	assert_int_equal(ar_ids_find(&f.ids, 0x1234), 1);
	/* new leaves take the lowest free ids, in GUID order: 2, 3, 4 */
	assert_int_equal(ar_ids_find(&f.ids, f.b.t.nodes[leaf(0)].guid), 2);
	assert_int_equal(ar_ids_find(&f.ids, f.b.t.nodes[leaf(1)].guid), 3);
	assert_int_equal(ar_ids_find(&f.ids, f.b.t.nodes[leaf(3)].guid), 4);
	assert_int_equal(f.at.group_top, 9);
	assert_true(f.ids.changed);
	/* the same fabric in another node order gives the same groups per GUID */
	topo_copy(&g.b.t, &f.b.t);
	tb_shuffle(&g.b.t, 7);
	route(&g, "ftree");
	g.ids.v = malloc(f.ids.cap * sizeof(*f.ids.v));
	memcpy(g.ids.v, f.ids.v, f.ids.n * sizeof(*f.ids.v));
	g.ids.n = f.ids.n;
	g.ids.cap = f.ids.cap;
	compute(&g, 0);
	assert_false(g.ids.changed);
	for (uint32_t i = 0; i < f.b.t.nnodes; i++)
		for (uint32_t j = 0; j < g.b.t.nnodes; j++)
			if (f.at.sw[i].groups && g.b.t.nodes[j].guid == f.b.t.nodes[i].guid)
				assert_memory_equal(f.at.sw[i].groups, g.at.sw[j].groups,
						    10 * sizeof(struct ar_ports));
	fx_free(&f);
	fx_free(&g);
}

static void test_verify_catches_loop_and_dead_end(void **state)
{
	struct fx f = { 0 };
	struct ar_verify v;
	char err[256];

	tb_init(&f.b);
	tb_ft2(&f.b, 4);
	route(&f, "ftree");
	compute(&f, 0);
	uint16_t id1 = ar_ids_find(&f.ids, f.b.t.nodes[leaf(1)].guid);
	/* spine 12 may also send leaf 1's traffic down to leaf 0, which goes
	 * back up: a loop only the adaptive walk can find */
	ar_ports_add(&f.at.sw[12].groups[id1], 1);
	for (uint32_t l = 0; l <= f.at.top; l++)
		if (f.at.sw[12].lft[l].port == 2 && l == host_lid(&f, 1, 0)) {
			f.at.sw[12].lft[l].state = AR_STATE_FREE;
			f.at.sw[12].lft[l].group = id1;
		}
	assert_int_equal(ar_verify(&f.b.t, &f.at, &v, err, sizeof(err)), 0);
	assert_true(v.loops >= 1);
	assert_false(ar_verify_ok(&v));
	ar_tables_free(&f.at);
	compute(&f, 0);
	/* an unlinked port in a group: dead end */
	ar_ports_add(&f.at.sw[leaf(0)].groups[id1], 4);
	ar_ports_add(&f.at.sw[leaf(0)].groups[id1], 4 + 0);
	f.at.sw[leaf(0)].groups[id1].w[0] |= 1ull << 4;
	tb_unlink(&f.b, leaf(0), 4);
	assert_int_equal(ar_verify(&f.b.t, &f.at, &v, err, sizeof(err)), 0);
	assert_true(v.dead_ends >= 1);
	fx_free(&f);
}

/* Three switches in a ring, one host each, every route two hops clockwise:
 * no destination loops, but the channels wait on each other in a cycle. */
static void test_verify_catches_cdg_cycle(void **state)
{
	struct fx f = { 0 };
	struct ar_verify v;
	char err[256];
	uint32_t sw[3];

	tb_init(&f.b);
	for (int i = 0; i < 3; i++) {
		sw[i] = tb_switch(&f.b, 4);
		tb_link(&f.b, sw[i], 1, tb_ca(&f.b, 1), 1);
	}
	for (int i = 0; i < 3; i++)   /* port 2 clockwise, port 3 back */
		tb_link(&f.b, sw[i], 2, sw[(i + 1) % 3], 3);
	route(&f, "minhop");
	/* rewrite: everything not local goes clockwise */
	for (int i = 0; i < 3; i++)
		for (uint32_t l = 1; l <= f.rt.top; l++)
			if (f.rt.lft[sw[i]].ports[l] == 3)
				f.rt.lft[sw[i]].ports[l] = 2;
	compute(&f, 0);
	assert_int_equal(ar_verify(&f.b.t, &f.at, &v, err, sizeof(err)), 0);
	assert_int_equal(v.loops, 0);
	assert_int_equal(v.dead_ends, 0);
	assert_int_equal(v.cdg_cycle, 1);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ft2_groups),
		cmocka_unit_test(test_bounded_and_switch_lids),
		cmocka_unit_test(test_parallel_links),
		cmocka_unit_test(test_degraded_link),
		cmocka_unit_test(test_degraded_random),
		cmocka_unit_test(test_ids_stable),
		cmocka_unit_test(test_verify_catches_loop_and_dead_end),
		cmocka_unit_test(test_verify_catches_cdg_cycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
