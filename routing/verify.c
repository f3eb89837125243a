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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "routing/graph.h"
#include "routing/pairbound.h"
#include "routing/par.h"
#include "routing/verify.h"
#include "routing/vshift.h"
#include "routing/walk.h"

/* What every part reads and none writes. */
struct vctx {
	const struct rgraph *g;
	const struct route_tables *rt;
	uint8_t **lft;          /* per switch index */
	uint32_t top, ltop;
	struct pair_bound pb;   /* its distances serve the pairs too */
	uint32_t *hostof;       /* per LID: the host whose base LID it is, RG_NONE */
	uint32_t *hnext;        /* per host: the next with the same base LID */
	uint32_t *hsw, nhsw;    /* switches with hosts */
	uint32_t *links;        /* switch-link ports per switch */
	uint32_t *sh, nsh;      /* the shifts tried */
	struct shift_load *sl;  /* their busiest links, per shift */
	uint32_t *spb;          /* their pair bounds */
};

#define VP_CHUNK (8 * LW_RB) /* LIDs a part takes at a time */

/* A part of the work, for one thread: the shifts' pair bounds (pb set) or
 * their busiest links, then chunks of LIDs as long as some are left (next
 * counts the chunks taken), with counts and memory of its own. */
struct vpart {
	const struct vctx *x;
	atomic_uint *next;
	int bounds;             /* 1: the pair bounds, 0: the busiest links */
	struct route_verify v;  /* its counts of pairs, faults, hops */
	struct lwalk w;
	uint32_t *act, acur;
	/* all-to-all flows per link id: at most hosts x (hosts - 1), and hosts
	 * are fewer than unicast LIDs (49151), so 32 bits hold it */
	uint32_t *a2a;
	uint16_t *fl;           /* [switch][lid - b0]: flows through it, this block
				   (at most the hosts, fewer than 65536) */
	struct lw_deps hdep;    /* the hosts' routes */
	struct lw_deps sdep;    /* every switch's routes to CA LIDs */
	uint8_t *hbits, *sbits; /* their dependencies, 32 bytes per link id */
};

/* Hosts' pairs towards d: fates, hops, stretch. */
static void count_pairs(struct vpart *y, const struct rg_host *d)
{
	const struct vctx *x = y->x;
	const struct rgraph *g = x->g;
	const struct lw_sw *ws = y->w.s;
	const uint16_t *dist = x->pb.dist + (size_t)x->pb.row[d->sw] * g->nsw;
	struct route_verify *v = &y->v;

	for (uint32_t k = 0; k < x->nhsw; k++) {
		uint32_t s = x->hsw[k];
		uint64_t n = g->sw[s].nhosts - (s == d->sw);
		if (!n)
			continue;
		v->pairs += n;
		switch (ws[s].st) {
		case LW_NOPORT: v->unreachable += n; continue;
		case LW_DEAD: v->dead_port += n; continue;
		case LW_LOOP: v->looping += n; continue;
		}
		uint32_t h = ws[s].hops, sh = dist[s];
		if (h > v->max_hops)
			v->max_hops = h;
		if (sh != UINT16_MAX && h > sh) {
			v->nonminimal += n;
			if (h - sh > v->max_stretch)
				v->max_stretch = h - sh;
		}
	}
}

/* Every switch on a host's way to d: its channel dependency once, and on
 * ways that arrive the all-to-all flows of the hosts behind it. */
static void host_ways(struct vpart *y, const struct rg_host *d, uint32_t j)
{
	const struct vctx *x = y->x;
	const struct rgraph *g = x->g;
	const struct lw_sw *ws = y->w.s;
	uint16_t *fl = y->fl + j;
	uint64_t bit = 1ull << j;

	y->acur++;
	for (uint32_t k = 0; k < x->nhsw; k++) {
		uint32_t s = x->hsw[k], n = g->sw[s].nhosts - (s == d->sw);
		for (uint32_t z = s; n && z != RG_NONE; z = ws[z].nxt) {
			const struct lw_sw *c = &ws[z];
			if (y->act[z] != y->acur) {
				y->act[z] = y->acur;
				if (c->nxt != RG_NONE && ws[c->nxt].nxt != RG_NONE)
					y->hdep.flag[z] |= bit;
			} else if (c->st != LW_REACH) {
				break; /* a loop, or a way seen already */
			}
			if (c->st == LW_REACH && c->hops)
				fl[(size_t)z * LW_RB] = (uint16_t)(fl[(size_t)z * LW_RB] + n);
		}
	}
}

/* Switches that reach the LID; with bit, every switch's channel
 * dependency on its way (to a CA LID) flagged. */
static uint32_t switch_ways(struct vpart *y, uint64_t bit)
{
	const struct lw_sw *ws = y->w.s;
	uint64_t *flag = y->sdep.flag;
	uint32_t n = 0;

	for (uint32_t s = 0; s < y->x->g->nsw; s++) {
		n += ws[s].st == LW_REACH;
		if (ws[s].st == LW_REACH && ws[s].hops >= 2)
			flag[s] |= bit;
	}
	return n;
}

static void visit_lid(struct lwalk *w, uint32_t lid, void *arg)
{
	struct vpart *y = arg;
	const struct vctx *x = y->x;
	uint32_t o = w->own[lid], part = w->csize[w->comp[o]];
	uint64_t bit = 1ull << (lid - w->b0);

	lw_resolve_all(w, lid);
	y->v.sw_pairs += part;
	y->v.sw_unrouted += part - switch_ways(y, w->last[lid] ? bit : 0);
	for (uint32_t h = x->hostof[lid]; h != RG_NONE; h = x->hnext[h]) {
		count_pairs(y, &x->g->hosts[h]);
		host_ways(y, &x->g->hosts[h], lid - w->b0);
	}
}

/* The block's flows onto the links, switch by switch (its links' counts
 * then in cache, as they are not when each LID's walk adds to them). */
static void flush_flows(struct vpart *y)
{
	const struct lwalk *w = &y->w;

	for (uint32_t s = 0; s < y->x->g->nsw; s++) {
		const uint8_t *row = w->blk + (size_t)s * LW_RB;
		uint32_t *a = y->a2a + w->pbase[s];
		for (uint32_t j = 0; j < w->bn; j++) {
			uint16_t *f = &y->fl[(size_t)s * LW_RB + j];
			if (*f) {
				a[row[j]] += *f; /* a flow goes on: the entry is a link */
				*f = 0;
			}
		}
	}
}

static void block_done(struct lwalk *w, uint32_t b0, void *arg)
{
	struct vpart *y = arg;

	(void)b0;
	lw_deps_flush(w, &y->hdep);
	lw_deps_flush(w, &y->sdep);
	flush_flows(y);
}

static void part_init(struct vpart *y, const struct vctx *x, atomic_uint *next, int bounds)
{
	const struct rgraph *g = x->g;
	uint32_t n = g->nsw ? g->nsw : 1, nl = g->nlinks ? g->nlinks : 1;

	memset(y, 0, sizeof(*y));
	y->x = x;
	y->next = next;
	y->bounds = bounds;
	lw_init(&y->w, g, x->lft, x->top);
	y->act = rg_xcalloc(n, sizeof(*y->act));
	y->a2a = rg_xcalloc(nl, sizeof(*y->a2a));
	y->fl = rg_xcalloc((size_t)n * LW_RB, sizeof(*y->fl));
	y->hbits = rg_xcalloc(nl, 32);
	y->sbits = rg_xcalloc(nl, 32);
	lw_deps_init(&y->hdep, g, y->hbits);
	lw_deps_init(&y->sdep, g, y->sbits);
}

static void part_free(struct vpart *y)
{
	lw_free(&y->w);
	free(y->act);
	free(y->a2a);
	free(y->fl);
	free(y->hbits);
	free(y->sbits);
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

/* A part's work: the shifts' pair bounds and the entries toward dead
 * ports, or the shifts' busiest links; then one walk per LID of every
 * chunk it takes (the hosts' pairs, the switches' own, the channel
 * dependencies and all-to-all loads). */
static void part_run(void *arg)
{
	struct vpart *y = arg;
	struct vctx *x = (struct vctx *)(uintptr_t)y->x; /* its shift results only */

	if (!y->bounds)
		shift_loads(x->g, x->lft, x->top, x->sh, x->nsh, x->sl);
	else
		y->v.dead_entries = count_dead_entries(x->g->t, x->rt);
	for (uint32_t i = 0; y->bounds && i < x->nsh; i++)
		x->spb[i] = pair_bound_shift(&x->pb, x->sh[i]);
	for (;;) {
		uint64_t lo = 1 + (uint64_t)atomic_fetch_add(y->next, 1) * VP_CHUNK;
		if (lo > x->ltop)
			break;
		lw_each(&y->w, (uint32_t)lo, (uint32_t)(lo + VP_CHUNK), NULL, visit_lid,
			block_done, y);
	}
	lw_deps_done(&y->hdep, x->g);
	lw_deps_done(&y->sdep, x->g);
}

/* Part b's counts, flows and dependencies into part a's. */
static void part_merge(struct vpart *a, const struct vpart *b, uint32_t nlinks)
{
	struct route_verify *v = &a->v;
	const struct route_verify *u = &b->v;

	v->pairs += u->pairs;
	v->unreachable += u->unreachable;
	v->dead_port += u->dead_port;
	v->looping += u->looping;
	v->nonminimal += u->nonminimal;
	v->sw_pairs += u->sw_pairs;
	v->sw_unrouted += u->sw_unrouted;
	v->dead_entries += u->dead_entries;
	v->max_hops = u->max_hops > v->max_hops ? u->max_hops : v->max_hops;
	v->max_stretch = u->max_stretch > v->max_stretch ? u->max_stretch : v->max_stretch;
	for (uint32_t i = 0; i < nlinks; i++)
		a->a2a[i] += b->a2a[i];
	for (size_t i = 0; i < (size_t)nlinks * 32; i++) {
		a->hbits[i] |= b->hbits[i];
		a->sbits[i] |= b->sbits[i];
	}
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

/* The shifts tried: all, or VERIFY_SHIFT_SAMPLES in runs spread evenly. */
static void pick_shifts(struct vctx *x, struct route_verify *v)
{
	uint32_t n = x->g->nhosts, total = n > 1 ? n - 1 : 0;
	uint32_t k = total > VERIFY_SHIFT_SAMPLES ? VERIFY_SHIFT_SAMPLES : total;

	x->nsh = k;
	x->sh = rg_xmalloc(k ? k : 1, sizeof(*x->sh));
	x->sl = rg_xmalloc(k ? k : 1, sizeof(*x->sl));
	x->spb = rg_xmalloc(k ? k : 1, sizeof(*x->spb));
	for (uint32_t i = 0; i < k; i++)
		x->sh[i] = verify_shift_at(i, k, total);
	v->shifts_sampled = k < total;
	v->shifts_tried = k;
	v->shift_excess = v->shift_pexcess = v->shift_fexcess = k ? INT32_MIN : 0;
}

/* The shifts' results, in shift order. */
static void shifts(const struct vctx *x, struct route_verify *v)
{
	uint32_t last = 0; /* a shift without a path names the link of the one before */

	for (uint32_t i = 0; i < x->nsh; i++) {
		uint32_t c = x->sl[i].busiest, bd = x->sl[i].bound, p = x->spb[i];
		last = x->sl[i].link != RG_NONE ? x->sl[i].link : last;
		if (c > v->shift_max || !v->shift_max_at) {
			v->shift_max = c;
			v->shift_max_at = x->sh[i];
		}
		if (bd > v->shift_bound)
			v->shift_bound = bd;
		if ((int32_t)(c - bd) > v->shift_excess) {
			v->shift_excess = (int32_t)(c - bd);
			link_name(x, last, &v->shift_worst_guid, &v->shift_worst_port);
		}
		if (p > bd + 1)
			v->shifts_forced++;
		else if ((int32_t)(c - bd) > v->shift_fexcess)
			v->shift_fexcess = (int32_t)(c - bd);
		p = p > bd ? p : bd;
		if (p > v->shift_pbound)
			v->shift_pbound = p;
		if ((int32_t)(c - p) > v->shift_pexcess)
			v->shift_pexcess = (int32_t)(c - p);
	}
}

static void a2a_bound(const struct vctx *x, struct route_verify *v)
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
	x->rt = rt;
	x->top = rt->top;
	x->ltop = g->top > rt->top ? g->top : rt->top;
	x->lft = rg_xcalloc(n, sizeof(*x->lft));
	for (uint32_t s = 0; s < g->nsw; s++)
		x->lft[s] = rt->lft[g->sw[s].node].ports;
	pair_bound_init(&x->pb, g);
	x->hostof = rg_xmalloc(x->ltop + 1u, sizeof(*x->hostof));
	for (uint32_t l = 0; l <= x->ltop; l++)
		x->hostof[l] = RG_NONE;
	x->hnext = rg_xmalloc(g->nhosts ? g->nhosts : 1, sizeof(*x->hnext));
	for (uint32_t h = g->nhosts; h-- > 0;) {
		x->hnext[h] = x->hostof[g->hosts[h].lid];
		x->hostof[g->hosts[h].lid] = h;
	}
	x->hsw = rg_xcalloc(n, sizeof(*x->hsw));
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].nhosts)
			x->hsw[x->nhsw++] = s;
	x->links = rg_xcalloc(n, sizeof(*x->links));
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			x->links[s] += rg_group(g, s, k)->n;
}

static void vctx_free(struct vctx *x)
{
	pair_bound_free(&x->pb);
	free(x->lft);
	free(x->hostof);
	free(x->hnext);
	free(x->hsw);
	free(x->links);
	free(x->sh);
	free(x->sl);
	free(x->spb);
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

struct cycle {
	const struct rgraph *g;
	const uint8_t *bits;
	int cyclic;
};

static void cycle_run(void *arg)
{
	struct cycle *c = arg;

	c->cyclic = cdg_cyclic(c->g, c->bits);
}

/* The merged part's loads and dependencies into v: the hosts' and the
 * switches' dependency graphs searched for cycles side by side. */
static void loads(const struct vctx *x, const struct vpart *y, struct route_verify *v,
		  unsigned threads)
{
	struct cycle hc = { x->g, y->hbits, 0 }, sc = { x->g, y->sbits, 0 };

	const struct rgraph *g = x->g;

	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t p = 0; p <= g->sw[s].nports; p++)
			if (y->a2a[g->sw[s].portbase + p] > v->a2a_max) {
				v->a2a_max = y->a2a[g->sw[s].portbase + p];
				v->a2a_max_guid = g->t->nodes[g->sw[s].node].guid;
				v->a2a_max_port = (uint8_t)p;
			}
	for (uint32_t i = 0; i < g->nlinks; i++) {
		v->cdg_channels += y->a2a[i] != 0;
		for (uint32_t b = 0; b < 32; b++)
			v->cdg_edges += rg_pop64(y->hbits[32u * i + b]);
	}
	rg_par2(cycle_run, &sc, &hc, threads);
	v->cdg_cycle = hc.cyclic;
	v->sw_cdg_cycle = sc.cyclic;
}

/* The LIDs and the shifts in two parts, on two threads (or one after the
 * other): one part the shifts' busiest links, the other their pair
 * bounds, then both the LIDs, a chunk at a time, so that they end
 * together. What a part counts adds up (or is a maximum or a union), so
 * which part walked a LID changes nothing. */
static void run_parts(struct vctx *x, struct route_verify *v, unsigned threads)
{
	atomic_uint next = 0;
	struct vpart y[2];

	part_init(&y[0], x, &next, 1);
	part_init(&y[1], x, &next, 0);
	rg_par2(part_run, &y[1], &y[0], threads);
	part_merge(&y[0], &y[1], x->g->nlinks);
	part_free(&y[1]);
	v->pairs = y[0].v.pairs;
	v->unreachable = y[0].v.unreachable;
	v->dead_port = y[0].v.dead_port;
	v->looping = y[0].v.looping;
	v->nonminimal = y[0].v.nonminimal;
	v->sw_pairs = y[0].v.sw_pairs;
	v->sw_unrouted = y[0].v.sw_unrouted;
	v->dead_entries = y[0].v.dead_entries;
	v->max_hops = y[0].v.max_hops;
	v->max_stretch = y[0].v.max_stretch;
	loads(x, &y[0], v, threads);
	part_free(&y[0]);
}

int route_verify_threads(const struct topo *t, const struct route_tables *rt,
			 struct route_verify *v, char *err, size_t errlen, unsigned threads)
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
	threads = rg_par_threads(&g, threads);
	v->nhosts = g.nhosts;
	v->nswitches = g.nsw;
	pick_shifts(&x, v);
	run_parts(&x, v, threads);
	a2a_bound(&x, v);
	shifts(&x, v);
	vctx_free(&x);
	rg_free(&g);
	return 0;
}

int route_verify(const struct topo *t, const struct route_tables *rt,
		 struct route_verify *v, char *err, size_t errlen)
{
	return route_verify_threads(t, rt, v, err, errlen, VERIFY_THREADS);
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
