/*
 * DOC: route verification (see verify.h).
 *
 * Per destination LID every switch's fate is resolved once and memoised
 * (reaches / no entry / dead port / loop, with hop count), so checking all
 * N^2 pairs costs O(destinations x switches), not O(N^2 x path length).
 * The channel dependency graph keeps, per directed switch link, a 256-bit
 * set of the output ports used next at the far switch; a cycle is searched
 * with an explicit-stack DFS so that 11k-host fabrics do not blow the stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "routing/graph.h"
#include "routing/pairbound.h"
#include "routing/reach.h"
#include "routing/verify.h"

enum { ST_INPROG = 1, ST_REACH, ST_UNREACH, ST_DEAD, ST_LOOP };

struct vctx {
	const struct rgraph *g;
	uint8_t **lft;          /* per switch index */
	uint32_t top;
	uint32_t *stamp, cur;
	uint8_t *st, *port;
	uint32_t *hops, *nxt, *dist, *queue, *stack, *list;
	uint32_t *act, acur;
	uint64_t *flow, *a2a;
	uint8_t *cdg;           /* 32 bytes per link id */
	uint32_t *sload, *touched;
	uint32_t *links;        /* switch-link ports per switch */
	uint32_t maxid;         /* busiest link of the last shift */
};

static uint8_t lft_at(const struct vctx *x, uint32_t s, uint32_t lid)
{
	return lid <= x->top ? x->lft[s][lid] : LFT_NO_PORT;
}

/* One step of switch s towards host d: final state, or 0 and *next. */
static int step(struct vctx *x, uint32_t s, const struct rg_host *d, uint32_t *next)
{
	const struct rgraph *g = x->g;
	uint8_t p = lft_at(x, s, d->lid);

	x->port[s] = p;
	if (p == LFT_NO_PORT)
		return ST_UNREACH;
	if (p == 0 || p > g->sw[s].nports)
		return ST_DEAD;
	uint32_t peer = rg_port_peer_sw(g, s, p);
	if (peer != RG_NONE) {
		*next = peer;
		return 0;
	}
	if (s == d->sw && p == d->swport)
		return ST_REACH;
	return ST_DEAD;
}

static void resolve(struct vctx *x, uint32_t s, const struct rg_host *d)
{
	uint32_t n = 0, cur = s;
	int fin = 0;

	while (x->stamp[cur] != x->cur) {
		x->stamp[cur] = x->cur;
		x->st[cur] = ST_INPROG;
		x->nxt[cur] = RG_NONE;
		x->hops[cur] = 0;
		uint32_t next = RG_NONE;
		int r = step(x, cur, d, &next);
		if (r) {
			x->st[cur] = (uint8_t)r;
			break;
		}
		x->nxt[cur] = next;
		x->stack[n++] = cur;
		cur = next;
	}
	fin = x->st[cur] == ST_INPROG ? ST_LOOP : x->st[cur];
	while (n--) {
		uint32_t y = x->stack[n];
		x->st[y] = (uint8_t)fin;
		if (fin == ST_REACH)
			x->hops[y] = x->hops[x->nxt[y]] + 1;
	}
}

static void count_pairs(struct vctx *x, const struct rg_host *d, struct route_verify *v)
{
	const struct rgraph *g = x->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		uint64_t n = g->sw[s].nhosts - (s == d->sw);
		if (!n)
			continue;
		resolve(x, s, d);
		v->pairs += n;
		switch (x->st[s]) {
		case ST_UNREACH: v->unreachable += n; continue;
		case ST_DEAD: v->dead_port += n; continue;
		case ST_LOOP: v->looping += n; continue;
		}
		uint32_t h = x->hops[s], sh = x->dist[s];
		if (h > v->max_hops)
			v->max_hops = h;
		if (sh != UINT32_MAX && h > sh) {
			v->nonminimal += n;
			if (h - sh > v->max_stretch)
				v->max_stretch = h - sh;
		}
	}
}

/* Marks switches on some path to d; returns them in x->list. */
static uint32_t active(struct vctx *x, const struct rg_host *d)
{
	const struct rgraph *g = x->g;
	uint32_t n = 0;

	x->acur++;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (g->sw[s].nhosts - (s == d->sw) == 0)
			continue;
		for (uint32_t y = s; y != RG_NONE && x->act[y] != x->acur; y = x->nxt[y]) {
			x->act[y] = x->acur;
			x->list[n++] = y;
		}
	}
	return n;
}

static void add_cdg(struct vctx *x, uint32_t n)
{
	const struct rgraph *g = x->g;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = x->list[i], t = x->nxt[s];
		if (t == RG_NONE || x->nxt[t] == RG_NONE)
			continue;
		uint8_t *bits = x->cdg + 32u * (g->sw[s].portbase + x->port[s]);
		bits[x->port[t] >> 3] |= (uint8_t)(1u << (x->port[t] & 7));
	}
}

/* All-to-all: each reaching switch forwards its sources, farthest first. */
static void add_a2a(struct vctx *x, const struct rg_host *d, uint32_t n)
{
	const struct rgraph *g = x->g;
	uint32_t maxh = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = x->list[i];
		x->flow[s] = g->sw[s].nhosts - (s == d->sw);
		if (x->st[s] == ST_REACH && x->hops[s] > maxh)
			maxh = x->hops[s];
	}
	for (uint32_t h = maxh + 1; h-- > 1;)
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = x->list[i];
			if (x->st[s] != ST_REACH || x->hops[s] != h)
				continue;
			x->a2a[g->sw[s].portbase + x->port[s]] += x->flow[s];
			x->flow[x->nxt[s]] += x->flow[s];
		}
}

/* Hops of the path from switch s to host d; adds to sload. */
static void walk_shift(struct vctx *x, uint32_t s, const struct rg_host *d, uint32_t *nt,
		       uint32_t *maxl)
{
	const struct rgraph *g = x->g;

	for (uint32_t i = 0; i < g->nsw; i++) {
		uint8_t p = lft_at(x, s, d->lid);
		if (p == LFT_NO_PORT || p == 0 || p > g->sw[s].nports)
			return;
		uint32_t t = rg_port_peer_sw(g, s, p);
		if (t == RG_NONE)
			return;
		uint32_t id = g->sw[s].portbase + p;
		if (!x->sload[id]++)
			x->touched[(*nt)++] = id;
		if (x->sload[id] > *maxl) {
			*maxl = x->sload[id];
			x->maxid = id;
		}
		s = t;
	}
}

/* Busiest link and bound of shift sh (host i -> i + sh mod N). */
static void one_shift(struct vctx *x, uint32_t sh, uint32_t *cong, uint32_t *bound)
{
	const struct rgraph *g = x->g;
	uint32_t n = g->nhosts, nt = 0, maxl = 0, b = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct rg_host *src = &g->hosts[i], *dst = &g->hosts[(i + sh) % n];
		if (src->sw != dst->sw) {
			walk_shift(x, src->sw, dst, &nt, &maxl);
			x->flow[src->sw]++;
		}
	}
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (x->flow[s] && x->links[s]) {
			uint32_t need = (uint32_t)((x->flow[s] + x->links[s] - 1) / x->links[s]);
			b = need > b ? need : b;
		}
		x->flow[s] = 0;
	}
	for (uint32_t i = 0; i < nt; i++)
		x->sload[x->touched[i]] = 0;
	*cong = maxl;
	*bound = b;
}

static void link_name(const struct vctx *x, uint32_t id, uint64_t *guid, uint8_t *port)
{
	const struct rgraph *g = x->g;

	for (uint32_t s = 0; s < g->nsw; s++)
		if (id >= g->sw[s].portbase && id <= g->sw[s].portbase + g->sw[s].nports) {
			*guid = g->t->nodes[g->sw[s].node].guid;
			*port = (uint8_t)(id - g->sw[s].portbase);
		}
}

static void shifts(struct vctx *x, struct route_verify *v)
{
	uint32_t n = x->g->nhosts, total = n > 1 ? n - 1 : 0;
	uint32_t k = total > VERIFY_SHIFT_SAMPLES ? VERIFY_SHIFT_SAMPLES : total;

	struct pair_bound pb;

	memset(x->flow, 0, x->g->nsw * sizeof(*x->flow));
	v->shifts_sampled = k < total;
	v->shifts_tried = k;
	v->shift_excess = v->shift_pexcess = v->shift_fexcess = k ? INT32_MIN : 0;
	pair_bound_init(&pb, x->g);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t sh = 1 + (uint32_t)((uint64_t)i * total / k), c, b;
		one_shift(x, sh, &c, &b);
		if (c > v->shift_max || !v->shift_max_at) {
			v->shift_max = c;
			v->shift_max_at = sh;
		}
		if (b > v->shift_bound)
			v->shift_bound = b;
		if ((int32_t)(c - b) > v->shift_excess) {
			v->shift_excess = (int32_t)(c - b);
			link_name(x, x->maxid, &v->shift_worst_guid, &v->shift_worst_port);
		}
		uint32_t p = pair_bound_shift(&pb, sh);
		if (p > b + 1)
			v->shifts_forced++;
		else if ((int32_t)(c - b) > v->shift_fexcess)
			v->shift_fexcess = (int32_t)(c - b);
		p = p > b ? p : b;
		if (p > v->shift_pbound)
			v->shift_pbound = p;
		if ((int32_t)(c - p) > v->shift_pexcess)
			v->shift_pexcess = (int32_t)(c - p);
	}
	pair_bound_free(&pb);
}

static void a2a_bound(struct vctx *x, struct route_verify *v)
{
	const struct rgraph *g = x->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		uint64_t h = g->sw[s].nhosts, must = h * (g->nhosts - h);
		if (!x->links[s] || !must)
			continue;
		uint64_t b = (must + x->links[s] - 1) / x->links[s];
		if (b > v->a2a_bound)
			v->a2a_bound = b;
	}
}

static void vctx_init(struct vctx *x, const struct rgraph *g, const struct route_tables *rt)
{
	uint32_t n = g->nsw ? g->nsw : 1;

	memset(x, 0, sizeof(*x));
	x->g = g;
	x->top = rt->top;
	x->lft = rg_xcalloc(n, sizeof(*x->lft));
	for (uint32_t s = 0; s < g->nsw; s++)
		x->lft[s] = rt->lft[g->sw[s].node].ports;
	x->stamp = rg_xcalloc(n, sizeof(*x->stamp));
	x->act = rg_xcalloc(n, sizeof(*x->act));
	x->st = rg_xcalloc(n, 1);
	x->port = rg_xcalloc(n, 1);
	x->hops = rg_xcalloc(n, sizeof(*x->hops));
	x->nxt = rg_xcalloc(n, sizeof(*x->nxt));
	x->dist = rg_xcalloc(n, sizeof(*x->dist));
	x->queue = rg_xcalloc(n, sizeof(*x->queue));
	x->stack = rg_xcalloc(n, sizeof(*x->stack));
	x->list = rg_xcalloc(n, sizeof(*x->list));
	x->flow = rg_xcalloc(n, sizeof(*x->flow));
	x->links = rg_xcalloc(n, sizeof(*x->links));
	x->a2a = rg_xcalloc(g->nlinks, sizeof(*x->a2a));
	x->sload = rg_xcalloc(g->nlinks, sizeof(*x->sload));
	x->touched = rg_xcalloc(g->nlinks, sizeof(*x->touched));
	x->cdg = rg_xcalloc(g->nlinks, 32);
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			x->links[s] += rg_group(g, s, k)->n;
}

static void vctx_free(struct vctx *x)
{
	free(x->lft);
	free(x->stamp);
	free(x->act);
	free(x->st);
	free(x->port);
	free(x->hops);
	free(x->nxt);
	free(x->dist);
	free(x->queue);
	free(x->stack);
	free(x->list);
	free(x->flow);
	free(x->links);
	free(x->a2a);
	free(x->sload);
	free(x->touched);
	free(x->cdg);
}

static int check_tables(const struct rgraph *g, const struct route_tables *rt, char *err,
			size_t errlen)
{
	if (rt->nnodes != g->t->nnodes || !rt->lft) {
		snprintf(err, errlen, "tables are for %u nodes, fabric has %u", rt->nnodes,
			 g->t->nnodes);
		return -1;
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		if (!rt->lft[g->sw[s].node].ports) {
			snprintf(err, errlen, "switch 0x%016llx has no LFT",
				 (unsigned long long)g->t->nodes[g->sw[s].node].guid);
			return -1;
		}
	return 0;
}

static void all_pairs(struct vctx *x, struct route_verify *v)
{
	const struct rgraph *g = x->g;
	uint32_t leaf = RG_NONE;

	for (uint32_t h = 0; h < g->nhosts; h++) {
		const struct rg_host *d = &g->hosts[h];
		if (d->sw != leaf) {
			leaf = d->sw;
			rg_bfs(g, &leaf, 1, x->dist, x->queue);
		}
		x->cur++;
		count_pairs(x, d, v);
		uint32_t n = active(x, d);
		add_cdg(x, n);
		add_a2a(x, d, n);
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t p = 0; p <= g->sw[s].nports; p++)
			if (x->a2a[g->sw[s].portbase + p] > v->a2a_max) {
				v->a2a_max = x->a2a[g->sw[s].portbase + p];
				v->a2a_max_guid = g->t->nodes[g->sw[s].node].guid;
				v->a2a_max_port = (uint8_t)p;
			}
	for (uint32_t i = 0; i < g->nlinks; i++) {
		v->cdg_channels += x->a2a[i] != 0;
		for (uint32_t b = 0; b < 32; b++)
			v->cdg_edges += rg_pop64(x->cdg[32u * i + b]);
	}
}

/* An entry toward a port that has no link sends packets nowhere: whether or
 * not a pair's path uses it, it must say "no route" (0xFF). */
static uint64_t count_dead_entries(const struct topo *t, const struct route_tables *rt)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct topo_node *nd = &t->nodes[i];
		const uint8_t *lft = rt->lft[i].ports;

		for (uint32_t lid = 1; lft && lid <= rt->top; lid++) {
			uint8_t p = lft[lid];

			if (p != 0 && p != LFT_NO_PORT &&
			    (p > nd->nports || !topo_port_linked(&nd->ports[p])))
				n++;
		}
	}
	return n;
}

/* Switches send replies and traps too: every (switch, LID) pair counts. */
static void switch_pairs(const struct vctx *x, struct route_verify *v)
{
	struct reach_stats st;

	reach_count(x->g, x->lft, x->top, &st);
	v->sw_pairs = st.pairs;
	v->sw_unrouted = st.unrouted;
	v->sw_cdg_cycle = st.cdg_cycle;
}

int route_verify(const struct topo *t, const struct route_tables *rt,
		 struct route_verify *v, char *err, size_t errlen)
{
	struct rgraph g;
	struct vctx x;

	memset(v, 0, sizeof(*v));
	if (rg_build(&g, t, err, errlen))
		return -1;
	if (check_tables(&g, rt, err, errlen)) {
		rg_free(&g);
		return -1;
	}
	vctx_init(&x, &g, rt);
	v->nhosts = g.nhosts;
	v->nswitches = g.nsw;
	v->dead_entries = count_dead_entries(t, rt);
	all_pairs(&x, v);
	a2a_bound(&x, v);
	v->cdg_cycle = cdg_cyclic(&g, x.cdg);
	shifts(&x, v);
	switch_pairs(&x, v);
	vctx_free(&x);
	rg_free(&g);
	return 0;
}

int route_verify_ok(const struct route_verify *v)
{
	return !v->unreachable && !v->looping && !v->dead_port && !v->dead_entries &&
	       !v->cdg_cycle && !v->sw_unrouted;
}

static size_t fmt_text(const struct route_verify *v, char *buf, size_t len)
{
	double ratio = v->a2a_bound ? (double)v->a2a_max / (double)v->a2a_bound : 0.0;

	return (size_t)snprintf(buf, len,
		"hosts %u, switches %u, pairs %llu\n"
		"reachability: unreachable %llu, looping %llu, dead-port %llu, "
		"entries to dead ports %llu\n"
		"switches' own packets: (switch, LID) pairs %llu, without a route %llu; "
		"credit loops with them: %s\n"
		"path length: max hops %u, non-minimal pairs %llu, max stretch %u\n"
		"credit loops (CDG, one VL): %s (%llu channels, %llu dependencies)\n"
		"all-to-all: busiest link %llu (0x%016llx port %u), lower bound %llu (x%.3f)\n"
		"shift permutations: busiest link %u (shift %u), bound %u, worst excess %d, "
		"%u of %u shifts%s\n"
		"worst shift excess at 0x%016llx port %u\n"
		"shifts against what shortest paths allow (pair bound): bound %u, worst excess %d\n"
		"shifts whose pair bound passes the bound + 1: %u; worst excess over the bound "
		"on the others %d\n",
		v->nhosts, v->nswitches, (unsigned long long)v->pairs,
		(unsigned long long)v->unreachable, (unsigned long long)v->looping,
		(unsigned long long)v->dead_port, (unsigned long long)v->dead_entries,
		(unsigned long long)v->sw_pairs, (unsigned long long)v->sw_unrouted,
		v->sw_cdg_cycle ? "CYCLE" : "none", v->max_hops,
		(unsigned long long)v->nonminimal, v->max_stretch,
		v->cdg_cycle ? "CYCLE" : "none", (unsigned long long)v->cdg_channels,
		(unsigned long long)v->cdg_edges, (unsigned long long)v->a2a_max,
		(unsigned long long)v->a2a_max_guid, v->a2a_max_port,
		(unsigned long long)v->a2a_bound, ratio, v->shift_max, v->shift_max_at,
		v->shift_bound, v->shift_excess, v->shifts_tried,
		v->nhosts > 1 ? v->nhosts - 1 : 0, v->shifts_sampled ? " (sampled)" : "",
		(unsigned long long)v->shift_worst_guid, v->shift_worst_port,
		v->shift_pbound, v->shift_pexcess, v->shifts_forced,
		v->shifts_forced < v->shifts_tried ? v->shift_fexcess : 0);
}

static size_t fmt_json(const struct route_verify *v, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len,
		"{\"hosts\":%u,\"switches\":%u,\"pairs\":%llu,\"unreachable\":%llu,"
		"\"looping\":%llu,\"dead_port\":%llu,\"dead_entries\":%llu,\"switch_pairs\":%llu,"
		"\"switch_unrouted\":%llu,\"switch_cdg_cycle\":%s,\"max_hops\":%u,\"nonminimal\":%llu,"
		"\"max_stretch\":%u,\"cdg_cycle\":%s,\"cdg_channels\":%llu,"
		"\"cdg_edges\":%llu,\"a2a_max\":%llu,\"a2a_bound\":%llu,"
		"\"a2a_max_link\":{\"guid\":\"0x%016llx\",\"port\":%u},\"shift_max\":%u,"
		"\"shift_max_at\":%u,\"shift_bound\":%u,\"shift_excess\":%d,"
		"\"shift_pair_bound\":%u,\"shift_pair_excess\":%d,\"shifts_forced\":%u,"
		"\"shift_free_excess\":%d,\"shifts_tried\":%u,\"shifts_sampled\":%s,\"ok\":%s}",
		v->nhosts, v->nswitches, (unsigned long long)v->pairs,
		(unsigned long long)v->unreachable, (unsigned long long)v->looping,
		(unsigned long long)v->dead_port, (unsigned long long)v->dead_entries,
		(unsigned long long)v->sw_pairs, (unsigned long long)v->sw_unrouted,
		v->sw_cdg_cycle ? "true" : "false", v->max_hops,
		(unsigned long long)v->nonminimal, v->max_stretch,
		v->cdg_cycle ? "true" : "false", (unsigned long long)v->cdg_channels,
		(unsigned long long)v->cdg_edges, (unsigned long long)v->a2a_max,
		(unsigned long long)v->a2a_bound, (unsigned long long)v->a2a_max_guid,
		v->a2a_max_port, v->shift_max, v->shift_max_at,
		v->shift_bound, v->shift_excess, v->shift_pbound, v->shift_pexcess,
		v->shifts_forced, v->shifts_forced < v->shifts_tried ? v->shift_fexcess : 0,
		v->shifts_tried, v->shifts_sampled ? "true" : "false",
		route_verify_ok(v) ? "true" : "false");
}

size_t route_verify_format(const struct route_verify *v, int json, char *buf, size_t len)
{
	return json ? fmt_json(v, buf, len) : fmt_text(v, buf, len);
}
