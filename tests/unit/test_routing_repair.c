/*
 * DOC: tests of route_repair, the minimal-change reroute.
 *
 * One fault at a time on fat trees (a leaf-spine link and a whole spine on
 * the 648-host tree, a link and a middle switch on a 3-level tree, a host
 * link, nothing), with entry counts and the verifier's verdict (every
 * switch reaches every LID after each repair, too); tables
 * from the switches that cannot be trusted; seeded property runs that cut
 * links again and again from degraded trees, random graphs and tori and
 * repair the repair each time (every pair the fresh tables reach is
 * reached, no loop, no credit loop, no fallback); a credit loop that the
 * repair must notice; determinism under node shuffling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "routing/lids.h"
#include "routing/repair.h"
#include "routing/routing.h"
#include "routing/verify.h"
#include "test_routing_topo.h"

static void fill_lmc(struct topo *t, uint8_t lmc)
{
	char err[128];

	assert_int_equal(topo_fill_lids(t, lmc, err, sizeof(err)), 0);
}

static void fill(struct topo *t)
{
	fill_lmc(t, 0);
}

static void route(const struct topo *t, struct route_tables *rt)
{
	if (route_compute(t, NULL, rt))
		fail_msg("route_compute: %s", rt->why);
}

static void repair(const struct topo *t, const struct route_tables *prev, struct route_tables *rt,
		   struct route_repair_stats *st)
{
	if (route_repair(t, NULL, prev, rt, st))
		fail_msg("route_repair: %s", rt->why);
}

static void verify(const struct topo *t, const struct route_tables *rt, struct route_verify *v)
{
	char err[128];

	if (route_verify(t, rt, v, err, sizeof(err)))
		fail_msg("route_verify: %s", err);
}

static uint8_t at(const struct route_tables *rt, uint32_t n, uint32_t lid)
{
	return rt->lft[n].ports && lid <= rt->top ? rt->lft[n].ports[lid] : LFT_NO_PORT;
}

static int is_switch_lid(const struct topo *t, uint32_t lid)
{
	for (uint32_t n = 0; n < t->nnodes; n++)
		if (t->nodes[n].type == TOPO_SWITCH && t->nodes[n].ports[0].lid == lid)
			return 1;
	return 0;
}

/* Entries that differ; *ca gets those for CA LIDs. */
static uint64_t diff(const struct topo *t, const struct route_tables *a,
		     const struct route_tables *b, uint64_t *ca)
{
	uint32_t top = a->top > b->top ? a->top : b->top;
	uint64_t n = 0;

	*ca = 0;
	for (uint32_t lid = 0; lid <= top; lid++) {
		int sw = is_switch_lid(t, lid);
		for (uint32_t i = 0; i < t->nnodes; i++)
			if (t->nodes[i].type == TOPO_SWITCH && at(a, i, lid) != at(b, i, lid)) {
				n++;
				*ca += !sw;
			}
	}
	return n;
}

/* 1 if the CA LID is reached from switch node s in rt. */
static int reaches(const struct topo *t, const struct route_tables *rt, uint32_t s, uint32_t lid)
{
	for (uint32_t hops = 0; hops <= t->nnodes; hops++) {
		uint8_t p = at(rt, s, lid);
		if (p == LFT_NO_PORT || p == 0 || p > t->nodes[s].nports)
			return 0;
		const struct topo_port *tp = &t->nodes[s].ports[p];
		if (tp->peer_node == TOPO_NONE)
			return 0;
		const struct topo_node *pn = &t->nodes[tp->peer_node];
		if (pn->type != TOPO_SWITCH)
			return pn->ports[tp->peer_port].lid == lid;
		s = tp->peer_node;
	}
	return 0;
}

/* Every (CA-leaf switch, CA LID) pair fresh reaches, rep reaches too. */
static void assert_superset(const struct topo *t, const struct route_tables *fresh,
			    const struct route_tables *rep)
{
	for (uint32_t h = 0; h < t->nnodes; h++) {
		if (t->nodes[h].type != TOPO_CA)
			continue;
		for (uint32_t p = 1; p <= t->nodes[h].nports; p++) {
			uint32_t lid = t->nodes[h].ports[p].lid;
			if (!lid || t->nodes[h].ports[p].peer_node == TOPO_NONE)
				continue;
			for (uint32_t s = 0; s < t->nnodes; s++)
				if (t->nodes[s].type == TOPO_SWITCH && reaches(t, fresh, s, lid) &&
				    !reaches(t, rep, s, lid))
					fail_msg("switch %u loses LID %u", s, lid);
		}
	}
}

/* What the property runs add up. */
struct tally {
	unsigned runs, fresh, strict;
	uint64_t changed, fresh_changed, col_fallbacks;
};

/* Repairs prev on t and checks what every repair must give. */
static void repair_checked_t(const struct topo *t, const struct route_tables *prev,
			     struct route_tables *rep, struct route_repair_stats *st,
			     struct route_verify *v, struct tally *ty)
{
	struct route_tables fresh;
	struct route_verify vf;
	uint64_t ca;

	repair(t, prev, rep, st);
	route(t, &fresh);
	verify(t, rep, v);
	verify(t, &fresh, &vf);
	assert_int_equal(v->looping, 0);
	assert_int_equal(v->dead_port, 0);
	/* an entry no legal path can use says "no route", never a dead port */
	assert_int_equal(v->dead_entries, 0);
	assert_int_equal(v->cdg_cycle, 0);
	/* switches send replies and traps too: every one reaches every LID */
	assert_int_equal(vf.sw_unrouted, 0);
	assert_int_equal(v->sw_unrouted, 0);
	assert_true(v->unreachable <= vf.unreachable);
	assert_superset(t, &fresh, rep);
	assert_int_equal(st->changed, diff(t, prev, rep, &ca));
	if (ty) {
		unsigned long long cols = 0;
		const char *w = strstr(rep->why, "column(s)");
		while (w && w > rep->why && w[-1] == ' ')
			w--;
		while (w && w > rep->why && w[-1] >= '0' && w[-1] <= '9')
			w--;
		if (w)
			cols = strtoull(w, NULL, 10);
		ty->runs++;
		ty->fresh += (unsigned)st->used_fresh;
		ty->strict += strstr(rep->why, "legal under the new") != NULL;
		ty->changed += st->changed;
		ty->fresh_changed += diff(t, prev, &fresh, &ca);
		ty->col_fallbacks += cols;
	}
	route_tables_free(&fresh);
}

static void repair_checked(const struct topo *t, const struct route_tables *prev,
			   struct route_tables *rep, struct route_repair_stats *st,
			   struct route_verify *v)
{
	repair_checked_t(t, prev, rep, st, v, NULL);
}

static void print_tally(const char *what, const struct tally *ty)
{
	print_message("%s: %u repairs, %u fell back to fresh, %u kept legal paths only, "
		      "%llu columns fell back; %llu entries changed (fresh tables: %llu)\n",
		      what, ty->runs, ty->fresh, ty->strict, (unsigned long long)ty->col_fallbacks,
		      (unsigned long long)ty->changed, (unsigned long long)ty->fresh_changed);
}

/* Node index of the n-th switch in creation order (tb builders). */
static uint32_t nth_switch(const struct topo *t, uint32_t n)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == TOPO_SWITCH && n-- == 0)
			return i;
	fail_msg("no such switch");
	return 0;
}

static void assert_near_bound(const struct route_verify *v)
{
	print_message("a2a busiest link %llu, bound %llu\n", (unsigned long long)v->a2a_max,
		      (unsigned long long)v->a2a_bound);
	assert_true(v->a2a_max * 10 <= v->a2a_bound * 11);
}

/* 648 hosts, radix 36: unplug leaf 0's first uplink (to spine 0). */
static void test_648_leaf_spine_link(void **state)
{
	struct tb b;
	struct route_tables prev, rep;
	struct route_repair_stats st;
	struct route_verify v;
	uint64_t ca;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 36);
	fill(&b.t);
	route(&b.t, &prev);
	tb_unlink(&b, nth_switch(&b.t, 0), 19);
	repair_checked(&b.t, &prev, &rep, &st, &v);
	diff(&b.t, &prev, &rep, &ca);
	print_message("changed %llu (CA LIDs %llu), kept %llu, broken %llu\n",
		      (unsigned long long)st.changed, (unsigned long long)ca,
		      (unsigned long long)st.kept, (unsigned long long)st.broken);
	assert_int_equal(st.used_fresh, 0);
	assert_int_equal(v.unreachable, 0);
	/* CA LIDs: the reference minimum is about 90 (35 + 35 + 18); switch
	 * LIDs add the spine's own routes that used the dead port */
	assert_true(ca <= 100);
	assert_true(st.changed <= 120);
	assert_near_bound(&v);
	route_tables_free(&prev);
	route_tables_free(&rep);
	topo_free_all(&b.t);
}

static void test_spine_removed(void **state)
{
	struct tb b;
	struct route_tables prev, rep;
	struct route_repair_stats st;
	struct route_verify v;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 36);
	fill(&b.t);
	route(&b.t, &prev);
	uint32_t sp = nth_switch(&b.t, 36);
	for (uint32_t p = 1; p <= b.t.nodes[sp].nports; p++)
		tb_unlink(&b, sp, (uint8_t)p);
	repair_checked(&b.t, &prev, &rep, &st, &v);
	print_message("changed %llu, broken %llu\n", (unsigned long long)st.changed,
		      (unsigned long long)st.broken);
	assert_int_equal(st.used_fresh, 0);
	assert_int_equal(v.unreachable, 0);
	assert_near_bound(&v);
	/* only entries through the dead spine move */
	assert_true(st.changed <= st.broken);
	route_tables_free(&prev);
	route_tables_free(&rep);
	topo_free_all(&b.t);
}

/* 3-level, radix 8: a leaf-to-middle link, then a whole middle switch. */
static void test_ft3_faults(void **state)
{
	for (int whole = 0; whole < 2; whole++) {
		struct tb b;
		struct route_tables prev, rep;
		struct route_repair_stats st;
		struct route_verify v;

		(void)state;
		tb_init(&b);
		tb_ft3(&b, 8);
		fill(&b.t);
		route(&b.t, &prev);
		uint32_t leaf = nth_switch(&b.t, 0), mid = b.t.nodes[leaf].ports[5].peer_node;
		if (whole)
			for (uint32_t p = 1; p <= b.t.nodes[mid].nports; p++)
				tb_unlink(&b, mid, (uint8_t)p);
		else
			tb_unlink(&b, leaf, 5);
		repair_checked(&b.t, &prev, &rep, &st, &v);
		print_message("%s: changed %llu, broken %llu\n", whole ? "middle switch" : "link",
			      (unsigned long long)st.changed, (unsigned long long)st.broken);
		assert_int_equal(st.used_fresh, 0);
		assert_int_equal(v.unreachable, 0);
		assert_near_bound(&v);
		route_tables_free(&prev);
		route_tables_free(&rep);
		topo_free_all(&b.t);
	}
}

static void test_host_link_removed(void **state)
{
	struct tb b;
	struct route_tables prev, rep;
	struct route_repair_stats st;
	struct route_verify v;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 8);
	fill(&b.t);
	route(&b.t, &prev);
	uint32_t leaf = nth_switch(&b.t, 2), ca = b.t.nodes[leaf].ports[1].peer_node;
	uint32_t lid = b.t.nodes[ca].ports[1].lid;
	tb_unlink(&b, leaf, 1);
	repair_checked(&b.t, &prev, &rep, &st, &v);
	for (uint32_t n = 0; n < b.t.nnodes; n++)
		for (uint32_t l = 0; l <= prev.top; l++)
			if (l != lid && at(&prev, n, l) != at(&rep, n, l))
				fail_msg("node %u LID %u changed, only LID %u should", n, l, lid);
	assert_int_equal(st.changed, 12); /* 8 leaves + 4 spines drop the LID */
	assert_int_equal(st.used_fresh, 0);
	route_tables_free(&prev);
	route_tables_free(&rep);
	topo_free_all(&b.t);
}

static void test_unchanged_keeps_all(void **state)
{
	struct tb b;
	struct route_tables prev, rep;
	struct route_repair_stats st;
	uint64_t routed = 0;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 8);
	fill(&b.t);
	route(&b.t, &prev);
	repair(&b.t, &prev, &rep, &st);
	for (uint32_t n = 0; n < b.t.nnodes; n++)
		for (uint32_t l = 0; l <= prev.top; l++)
			routed += at(&prev, n, l) != LFT_NO_PORT;
	assert_int_equal(st.changed, 0);
	assert_int_equal(st.broken, 0);
	assert_int_equal(st.kept, routed);
	assert_int_equal(st.used_fresh, 0);
	route_tables_free(&prev);
	route_tables_free(&rep);
	topo_free_all(&b.t);
}

/*
 * prev is only what the switches said: scrambled entries (ports that do
 * not exist, loops), a short top, a switch without a table, or tables of
 * another fabric must all give complete, loop-free tables.
 */
static void test_untrusted_prev(void **state)
{
	struct tb b;
	struct route_tables prev, rep;
	struct route_repair_stats st;
	struct route_verify v;
	uint64_t seed = 11;

	(void)state;
	tb_init(&b);
	tb_ft3(&b, 8);
	fill(&b.t);
	route(&b.t, &prev);
	for (uint32_t n = 0; n < b.t.nnodes; n++)
		for (uint32_t l = 0; prev.lft[n].ports && l <= prev.top; l++)
			if (tb_rand(&seed) % 4 == 0)
				prev.lft[n].ports[l] = (uint8_t)tb_rand(&seed);
	uint32_t sw = nth_switch(&b.t, 3);
	free(prev.lft[sw].ports);
	prev.lft[sw].ports = NULL;
	prev.top = (uint16_t)(prev.top / 2);
	repair_checked(&b.t, &prev, &rep, &st, &v);
	assert_int_equal(v.unreachable, 0);
	assert_int_equal(st.used_fresh, 0);
	route_tables_free(&rep);
	prev.nnodes--;
	assert_int_equal(route_repair(&b.t, NULL, &prev, &rep, &st), 0);
	assert_int_equal(st.used_fresh, 1);
	assert_non_null(strstr(rep.why, "do not match"));
	prev.nnodes++;
	route_tables_free(&rep);
	route_tables_free(&prev);
	topo_free_all(&b.t);
}

/* Unlinks one seeded switch-to-switch link; 0 if there is none. */
static int cut_random_link(struct tb *b, uint64_t *seed)
{
	struct topo *t = &b->t;
	uint32_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		uint32_t pick = pass ? (uint32_t)(tb_rand(seed) % n) : 0, i = 0;
		for (uint32_t a = 0; a < t->nnodes; a++)
			for (uint32_t p = 1; t->nodes[a].type == TOPO_SWITCH &&
			     p <= t->nodes[a].nports; p++) {
				uint32_t q = t->nodes[a].ports[p].peer_node;
				if (q == TOPO_NONE || q < a || t->nodes[q].type != TOPO_SWITCH)
					continue;
				if (pass && i == pick) {
					tb_unlink(b, a, (uint8_t)p);
					return 1;
				}
				i++;
			}
		n = i;
		if (!n)
			return 0;
	}
	return 0;
}

/* Repeated cuts, each repaired from the previous repair. */
static void cut_and_repair(struct tb *b, unsigned rounds, uint64_t seed, struct tally *ty)
{
	struct route_tables prev, rep;
	struct route_repair_stats st;
	struct route_verify v;

	route(&b->t, &prev);
	for (unsigned r = 0; r < rounds && cut_random_link(b, &seed); r++) {
		repair_checked_t(&b->t, &prev, &rep, &st, &v, ty);
		route_tables_free(&prev);
		prev = rep;
	}
	route_tables_free(&prev);
}

static void test_props_degraded_trees(void **state)
{
	struct tally ty = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct tb b;
		tb_init(&b);
		if (seed % 2)
			tb_ft2(&b, 12);
		else
			tb_ft3(&b, 8);
		fill_lmc(&b.t, seed % 5 == 0);
		tb_remove_links(&b, 10, seed);
		cut_and_repair(&b, 6, seed * 77, &ty);
		topo_free_all(&b.t);
	}
	print_tally("degraded trees", &ty);
	/* ftree's order survives link loss here, so nothing needs a fallback;
	 * but seed 30 falls back to updn midway (a leaf pair up*\/down* cannot
	 * join), whose order differs: paths kept from ftree's order and new
	 * ones through the switches' own entries may then close a loop, which
	 * is what the run that keeps only legal paths is for */
	assert_int_equal(ty.fresh, 0);
	assert_true(ty.strict <= 1);
	assert_int_equal(ty.col_fallbacks, 0);
}

static void test_props_random_graphs(void **state)
{
	struct tally ty = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		static const unsigned dims[2] = { 4, 5 };
		struct tb b;
		tb_init(&b);
		if (seed % 4 == 0)
			tb_torus(&b, dims, 2, 2);
		else
			tb_random(&b, 24, 4, 2, seed);
		fill_lmc(&b.t, seed % 5 == 0);
		cut_and_repair(&b, 6, seed * 31, &ty);
		topo_free_all(&b.t);
	}
	print_tally("random graphs and tori (updn)", &ty);
	/* updn's roots move, so strict reruns happen; fallbacks should not */
	assert_int_equal(ty.fresh, 0);
	assert_int_equal(ty.col_fallbacks, 0);
}

/*
 * Tables from minhop on a torus have credit loops; keeping all of them
 * would too, so the repair must notice the cycle and keep only the paths
 * legal under updn's order (this is what makes the CDG check testable).
 */
static void test_credit_loop_detected(void **state)
{
	static const unsigned dims[2] = { 4, 4 };
	struct route_opts mh = { .engine = "minhop" };
	struct route_tables prev, rep;
	struct route_repair_stats st;
	struct route_verify v;
	struct tb b;

	(void)state;
	tb_init(&b);
	tb_torus(&b, dims, 2, 1);
	fill(&b.t);
	if (route_compute(&b.t, &mh, &prev))
		fail_msg("minhop: %s", prev.why);
	verify(&b.t, &prev, &v);
	assert_int_equal(v.cdg_cycle, 1);
	repair_checked(&b.t, &prev, &rep, &st, &v);
	print_message("%s\nchanged %llu kept %llu\n", rep.why, (unsigned long long)st.changed,
		      (unsigned long long)st.kept);
	assert_int_equal(st.used_fresh, 0);
	assert_non_null(strstr(rep.why, "legal under the new up/down order only"));
	assert_true(st.kept > 0);
	route_tables_free(&prev);
	route_tables_free(&rep);
	topo_free_all(&b.t);
}

static uint32_t node_by_guid(const struct topo *t, uint64_t guid)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].guid == guid)
			return i;
	fail_msg("no node 0x%llx", (unsigned long long)guid);
	return 0;
}

/*
 * Builds, routes, cuts and repairs; shuffled with seed sh unless 0. remap:
 * the old fabric is shuffled differently (another sweep's discovery
 * order) and its tables go through route_tables_remap().
 */
static void shuffled_repair(uint64_t sh, int tree, int remap, struct tb *b,
			    struct route_tables *rep)
{
	struct route_tables prev, moved;
	struct route_repair_stats st;
	uint64_t seed = 5;
	struct topo old;

	tb_init(b);
	if (tree)
		tb_ft3(b, 8);
	else
		tb_random(b, 24, 4, 2, 7);
	fill(&b->t);
	tb_remove_links(b, 5, 3);
	topo_copy(&old, &b->t);
	cut_random_link(b, &seed);
	cut_random_link(b, &seed);
	if (sh) {
		tb_shuffle(&old, remap ? sh + 1 : sh);
		tb_shuffle(&b->t, sh);
	}
	route(&old, &prev);
	if (remap) {
		assert_int_equal(route_tables_remap(&old, &prev, &b->t, &moved), 0);
		route_tables_free(&prev);
		prev = moved;
	}
	repair(&b->t, &prev, rep, &st);
	route_tables_free(&prev);
	topo_free_all(&old);
}

static void test_shuffle_determinism(void **state)
{
	(void)state;
	for (int tree = 0; tree < 4; tree++) {
		struct tb a, b;
		struct route_tables ra, rb;
		shuffled_repair(0, tree % 2, 0, &a, &ra);
		shuffled_repair(99, tree % 2, tree / 2, &b, &rb);
		assert_int_equal(ra.top, rb.top);
		assert_string_equal(ra.why, rb.why);
		for (uint32_t i = 0; i < a.t.nnodes; i++) {
			if (a.t.nodes[i].type != TOPO_SWITCH)
				continue;
			uint32_t j = node_by_guid(&b.t, a.t.nodes[i].guid);
			assert_memory_equal(ra.lft[i].ports, rb.lft[j].ports, ra.top + 1u);
		}
		route_tables_free(&ra);
		route_tables_free(&rb);
		topo_free_all(&a.t);
		topo_free_all(&b.t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_648_leaf_spine_link),
		cmocka_unit_test(test_spine_removed),
		cmocka_unit_test(test_ft3_faults),
		cmocka_unit_test(test_host_link_removed),
		cmocka_unit_test(test_unchanged_keeps_all),
		cmocka_unit_test(test_untrusted_prev),
		cmocka_unit_test(test_props_degraded_trees),
		cmocka_unit_test(test_props_random_graphs),
		cmocka_unit_test(test_credit_loop_detected),
		cmocka_unit_test(test_shuffle_determinism),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
