/*
 * DOC: the verifier against a plain one, on tables broken at random.
 *
 * The verifier (verify.c) walks every LID once for all switches, gathers
 * channel dependencies and flows a block of LIDs at a time, walks shifts
 * side by side and splits its work over two threads. The judge here does
 * it the plain way: every (source switch, destination host) path followed
 * on its own, hop by hop, through the tables; the dependencies, loads,
 * fates and shift loads summed path by path; one shift after the other.
 * Every field of the result must agree, on one thread and on two, on fat
 * trees, tori, random graphs and dragonflies, with LMC 0 to 2, routed by
 * each engine and then broken: entries removed, sent to port 0, to a port
 * past the switch's last, or to a random port (loops, dead ends).
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
#include "routing/pairbound.h"
#include "routing/routing.h"
#include "routing/verify.h"
#include "test_routing_topo.h"
#include "test_routing_util.h"

enum { GO, REACH, NOPORT, DEAD, LOOP };

struct judge {
	const struct rgraph *g;
	uint8_t **lft;          /* per switch index */
	uint32_t top;
	uint64_t *a2a;          /* per link id */
	uint8_t *hbits, *sbits; /* 32 bytes per link id */
	uint32_t path[1024], len;
	uint8_t port[1024];
};

/* One hop of switch s towards lid, which ends at port dport of dsw. */
static int step(const struct judge *j, uint32_t s, uint32_t lid, uint32_t dsw, uint8_t dport,
		uint32_t *next, uint8_t *p)
{
	*p = lid <= j->top ? j->lft[s][lid] : LFT_NO_PORT;
	if (s == dsw && *p == dport)
		return REACH;
	if (*p == LFT_NO_PORT)
		return NOPORT;
	if (*p == 0 || *p > j->g->sw[s].nports)
		return DEAD;
	*next = rg_port_peer_sw(j->g, s, *p);
	return *next == RG_NONE ? DEAD : GO;
}

/* The way from s: j->path/port (the last switch repeats one on a loop). */
static int walk(struct judge *j, uint32_t s, uint32_t lid, uint32_t dsw, uint8_t dport)
{
	j->len = 0;
	for (;;) {
		uint32_t next = RG_NONE;
		for (uint32_t i = 0; i < j->len; i++)
			if (j->path[i] == s)
				return LOOP;
		assert_true(j->len < 1024);
		j->path[j->len] = s;
		int r = step(j, s, lid, dsw, dport, &next, &j->port[j->len]);
		j->len++;
		if (r != GO)
			return r;
		s = next;
	}
}

static uint32_t link_of(const struct judge *j, uint32_t i)
{
	return j->g->sw[j->path[i]].portbase + j->port[i];
}

static void set_dep(uint8_t *bits, uint32_t c, uint8_t q)
{
	bits[32u * c + (q >> 3)] |= (uint8_t)(1u << (q & 7));
}

/* The channel dependencies of the way walked: a switch's link and the next
 * switch's port, where that one sends on (around a loop too). */
static void deps(const struct judge *j, int fate, uint8_t *bits)
{
	uint32_t k = j->len - 1;

	for (uint32_t i = 0; i < k; i++)
		if (i + 1 < k || fate == LOOP)
			set_dep(bits, link_of(j, i), j->port[i + 1]);
	if (fate != LOOP)
		return;
	uint32_t back = rg_port_peer_sw(j->g, j->path[k], j->port[k]), at = 0;
	while (j->path[at] != back)
		at++;
	set_dep(bits, link_of(j, k), j->port[at]);
}

static void count_host(struct judge *j, const struct rg_host *d, struct route_verify *v)
{
	const struct rgraph *g = j->g;
	uint32_t *dist = malloc(g->nsw * sizeof(*dist)), *queue = malloc(g->nsw * sizeof(*queue));

	rg_bfs(g, &d->sw, 1, dist, queue);
	for (uint32_t s = 0; s < g->nsw; s++) {
		uint64_t n = g->sw[s].nhosts - (s == d->sw);
		if (!n)
			continue;
		int fate = walk(j, s, d->lid, d->sw, d->swport);
		v->pairs += n;
		v->unreachable += fate == NOPORT ? n : 0;
		v->dead_port += fate == DEAD ? n : 0;
		v->looping += fate == LOOP ? n : 0;
		deps(j, fate, j->hbits);
		if (fate != REACH)
			continue;
		uint32_t h = j->len - 1;
		v->max_hops = h > v->max_hops ? h : v->max_hops;
		if (dist[s] != UINT32_MAX && h > dist[s]) {
			v->nonminimal += n;
			v->max_stretch = h - dist[s] > v->max_stretch ? h - dist[s] : v->max_stretch;
		}
		for (uint32_t i = 0; i + 1 < j->len; i++)
			j->a2a[link_of(j, i)] += n;
	}
	free(dist);
	free(queue);
}

/* Every switch of the owner's part towards lid (ending at dport of dsw). */
static void count_switches(struct judge *j, uint32_t lid, uint32_t dsw, uint8_t dport,
			   const uint32_t *dist, struct route_verify *v)
{
	for (uint32_t s = 0; s < j->g->nsw; s++) {
		if (dist[s] == UINT32_MAX)
			continue;
		int fate = walk(j, s, lid, dsw, dport);
		v->sw_pairs++;
		v->sw_unrouted += fate != REACH;
		if (fate == REACH && dport)
			deps(j, fate, j->sbits);
	}
}

static void switch_pairs(struct judge *j, struct route_verify *v)
{
	const struct rgraph *g = j->g;
	uint32_t *dist = malloc(g->nsw * sizeof(*dist)), *queue = malloc(g->nsw * sizeof(*queue));

	for (uint32_t s = 0; s < g->nsw; s++) {
		if (!g->sw[s].lid)
			continue;
		rg_bfs(g, &s, 1, dist, queue);
		count_switches(j, g->sw[s].lid, s, 0, dist, v);
	}
	for (uint32_t h = 0; h < g->nhosts; h++) {
		rg_bfs(g, &g->hosts[h].sw, 1, dist, queue);
		for (uint32_t i = 0; i < g->hosts[h].nlids; i++)
			count_switches(j, g->hosts[h].lid + i, g->hosts[h].sw, g->hosts[h].swport, dist, v);
	}
	free(dist);
	free(queue);
}

struct shift_out {
	uint32_t busiest, link, bound;
};

/* Shift sh walked path after path, as the verifier once did. */
static struct shift_out one_shift(const struct judge *j, uint32_t sh)
{
	const struct rgraph *g = j->g;
	uint32_t *load = calloc(g->nlinks, sizeof(*load)), *flow = calloc(g->nsw, sizeof(*flow));
	struct shift_out o = { 0, RG_NONE, 0 };

	for (uint32_t i = 0; i < g->nhosts; i++) {
		const struct rg_host *src = &g->hosts[i], *dst = &g->hosts[(i + sh) % g->nhosts];
		if (src->sw == dst->sw)
			continue;
		flow[src->sw]++;
		for (uint32_t k = 0, s = src->sw; k < g->nsw; k++) {
			uint8_t p = dst->lid <= j->top ? j->lft[s][dst->lid] : LFT_NO_PORT;
			if (p == LFT_NO_PORT || p == 0 || p > g->sw[s].nports)
				break;
			uint32_t t = rg_port_peer_sw(g, s, p), id = g->sw[s].portbase + p;
			if (t == RG_NONE)
				break;
			if (++load[id] > o.busiest) {
				o.busiest = load[id];
				o.link = id;
			}
			s = t;
		}
	}
	for (uint32_t s = 0; s < g->nsw; s++) {
		uint32_t links = 0;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			links += rg_group(g, s, k)->n;
		if (flow[s] && links && (flow[s] + links - 1) / links > o.bound)
			o.bound = (flow[s] + links - 1) / links;
	}
	free(load);
	free(flow);
	return o;
}

static void name_link(const struct rgraph *g, uint32_t id, uint64_t *guid, uint8_t *port)
{
	for (uint32_t s = 0; s < g->nsw; s++)
		if (id >= g->sw[s].portbase && id <= g->sw[s].portbase + g->sw[s].nports) {
			*guid = g->t->nodes[g->sw[s].node].guid;
			*port = (uint8_t)(id - g->sw[s].portbase);
		}
}

static void shifts(const struct judge *j, struct route_verify *v)
{
	uint32_t n = j->g->nhosts, total = n > 1 ? n - 1 : 0, last = 0;
	uint32_t k = total > VERIFY_SHIFT_SAMPLES ? VERIFY_SHIFT_SAMPLES : total;
	struct pair_bound pb;

	pair_bound_init(&pb, j->g);
	v->shifts_sampled = k < total;
	v->shifts_tried = k;
	v->shift_excess = v->shift_pexcess = v->shift_fexcess = k ? INT32_MIN : 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t sh = verify_shift_at(i, k, total);
		struct shift_out o = one_shift(j, sh);
		uint32_t c = o.busiest, bd = o.bound, p = pair_bound_shift(&pb, sh);
		last = o.link != RG_NONE ? o.link : last;
		if (c > v->shift_max || !v->shift_max_at) {
			v->shift_max = c;
			v->shift_max_at = sh;
		}
		v->shift_bound = bd > v->shift_bound ? bd : v->shift_bound;
		if ((int32_t)(c - bd) > v->shift_excess) {
			v->shift_excess = (int32_t)(c - bd);
			name_link(j->g, last, &v->shift_worst_guid, &v->shift_worst_port);
		}
		if (p > bd + 1)
			v->shifts_forced++;
		else if ((int32_t)(c - bd) > v->shift_fexcess)
			v->shift_fexcess = (int32_t)(c - bd);
		p = p > bd ? p : bd;
		v->shift_pbound = p > v->shift_pbound ? p : v->shift_pbound;
		if ((int32_t)(c - p) > v->shift_pexcess)
			v->shift_pexcess = (int32_t)(c - p);
	}
	pair_bound_free(&pb);
}

/* The loads, dependencies and all-to-all bound into v. */
static void loads(const struct judge *j, struct route_verify *v)
{
	const struct rgraph *g = j->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		uint32_t links = 0;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			links += rg_group(g, s, k)->n;
		uint64_t h = g->sw[s].nhosts, must = h * (g->nhosts - h);
		if (links && must && (must + links - 1) / links > v->a2a_bound)
			v->a2a_bound = (must + links - 1) / links;
		for (uint32_t p = 0; p <= g->sw[s].nports; p++)
			if (j->a2a[g->sw[s].portbase + p] > v->a2a_max) {
				v->a2a_max = j->a2a[g->sw[s].portbase + p];
				v->a2a_max_guid = g->t->nodes[g->sw[s].node].guid;
				v->a2a_max_port = (uint8_t)p;
			}
	}
	for (uint32_t i = 0; i < g->nlinks; i++) {
		v->cdg_channels += j->a2a[i] != 0;
		for (uint32_t b = 0; b < 32; b++)
			v->cdg_edges += rg_pop64(j->hbits[32u * i + b]);
	}
	v->cdg_cycle = cdg_cyclic(g, j->hbits);
	v->sw_cdg_cycle = cdg_cyclic(g, j->sbits);
}

static void dead_entries(const struct topo *t, const struct route_tables *rt,
			 struct route_verify *v)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		for (uint32_t lid = 1; rt->lft[i].ports && lid <= rt->top; lid++) {
			uint8_t p = rt->lft[i].ports[lid];
			v->dead_entries += p != 0 && p != LFT_NO_PORT &&
					   (p > t->nodes[i].nports ||
					    !topo_port_linked(&t->nodes[i].ports[p]));
		}
}

static void judge(const struct topo *t, const struct route_tables *rt, struct route_verify *v)
{
	struct rgraph g;
	struct judge j;
	char err[128];

	assert_int_equal(rg_build(&g, t, err, sizeof(err)), 0);
	memset(v, 0, sizeof(*v));
	memset(&j, 0, sizeof(j));
	j.g = &g;
	j.top = rt->top;
	j.lft = calloc(g.nsw, sizeof(*j.lft));
	for (uint32_t s = 0; s < g.nsw; s++)
		j.lft[s] = rt->lft[g.sw[s].node].ports;
	j.a2a = calloc(g.nlinks, sizeof(*j.a2a));
	j.hbits = calloc(g.nlinks, 32);
	j.sbits = calloc(g.nlinks, 32);
	v->nhosts = g.nhosts;
	v->nswitches = g.nsw;
	dead_entries(t, rt, v);
	for (uint32_t h = 0; h < g.nhosts; h++)
		count_host(&j, &g.hosts[h], v);
	switch_pairs(&j, v);
	loads(&j, v);
	shifts(&j, v);
	free(j.lft);
	free(j.a2a);
	free(j.hbits);
	free(j.sbits);
	rg_free(&g);
}

/* Breaks about pct % of the switches' entries, seeded. */
static void break_tables(const struct topo *t, struct route_tables *rt, unsigned pct,
			 uint64_t seed)
{
	uint64_t st = seed * 0x9e3779b97f4a7c15ull + 1;

	for (uint32_t n = 0; n < t->nnodes; n++) {
		uint8_t *lft = rt->lft[n].ports;
		for (uint32_t lid = 1; lft && lid <= rt->top; lid++) {
			if (tb_rand(&st) % 100 >= pct)
				continue;
			switch (tb_rand(&st) % 4) {
			case 0: lft[lid] = LFT_NO_PORT; break;
			case 1: lft[lid] = 0; break;
			case 2: lft[lid] = (uint8_t)(t->nodes[n].nports + 1 + tb_rand(&st) % 3); break;
			default: lft[lid] = (uint8_t)(1 + tb_rand(&st) % t->nodes[n].nports); break;
			}
		}
	}
}

static void expect_same(const struct route_verify *a, const struct route_verify *b)
{
	char x[4096], y[4096];

	route_verify_format(a, 1, x, sizeof(x));
	route_verify_format(b, 1, y, sizeof(y));
	assert_string_equal(x, y);
	/* the format leaves out a few: the rest, field by field */
	assert_int_equal(a->shifts_sampled, b->shifts_sampled);
	assert_int_equal(a->shift_worst_guid, b->shift_worst_guid);
	assert_int_equal(a->shift_worst_port, b->shift_worst_port);
	assert_int_equal(a->a2a_max_port, b->a2a_max_port);
}

/* Routes t, breaks its tables (pct 0: not), and compares verifier and judge. */
static void check(const struct topo *t, const char *engine, unsigned pct, uint64_t seed)
{
	struct route_tables rt;
	struct route_verify want, one, two;
	char err[128];

	route(t, engine, &rt);
	if (pct)
		break_tables(t, &rt, pct, seed);
	judge(t, &rt, &want);
	assert_int_equal(route_verify_threads(t, &rt, &one, err, sizeof(err), 1), 0);
	assert_int_equal(route_verify_threads(t, &rt, &two, err, sizeof(err), 2), 0);
	expect_same(&want, &one);
	expect_same(&want, &two);
	route_tables_free(&rt);
}

static void fabric(struct tb *b, int kind, uint64_t seed)
{
	static const unsigned dims[2] = { 4, 3 };

	tb_init(b);
	switch (kind) {
	case 0: tb_ft2(b, 8); tb_remove_links(b, 10, seed); break;
	case 1: tb_ft3(b, 6); tb_remove_links(b, 5, seed); break;
	case 2: tb_ft3(b, 4); tb_remove_switches(b, 2, seed); break;
	case 3: tb_torus(b, dims, 2, 2); break;
	case 4: tb_random(b, 24, 4, 2, seed); break;
	case 5: tb_dragonfly(b, 4, 3, 2); break;
	default: tb_ft2(b, 8); tb_remove_links(b, 45, seed); break; /* parts apart */
	}
}

static void test_verify_matches_judge(void **state)
{
	static const char *const engines[] = { "auto", "minhop", "updn" };

	(void)state;
	for (int kind = 0; kind < 7; kind++)
		for (uint8_t lmc = 0; lmc <= 2; lmc++) {
			struct tb b;
			fabric(&b, kind, 1 + (uint64_t)kind);
			fill(&b.t, lmc);
			for (size_t e = 0; e < 3; e++)
				for (unsigned pct = 0; pct <= 12; pct += 6)
					check(&b.t, engines[e], pct, 7 * (uint64_t)kind + lmc + e);
			topo_free_all(&b.t);
		}
}

/* More hosts than shifts sampled (VERIFY_SHIFT_SAMPLES), more LIDs than
 * one block of the walk, and (radix 28: 980 switches, 6468 LIDs) more
 * table cells than RG_PAR_CELLS, so that two threads do run. */
static void test_verify_matches_judge_large(void **state)
{
	static const unsigned radix[] = { 16, 28 };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct tb b;
		tb_init(&b);
		tb_ft3(&b, radix[k]);
		tb_remove_links(&b, 5, 3);
		fill(&b.t, 0);
		check(&b.t, "auto", 0, 1);
		check(&b.t, "auto", 3, 2);
		topo_free_all(&b.t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_matches_judge),
		cmocka_unit_test(test_verify_matches_judge_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
