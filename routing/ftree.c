/*
 * DOC: ftree, fat-tree routing that keeps working on degraded trees.
 *
 * Ranks: leaves (switches with CAs) are rank 0, every other switch is its
 * BFS distance from the nearest leaf. A fabric is a fat tree when every
 * switch-to-switch link joins adjacent ranks; going to a higher rank is
 * "up". All routes below are up*\/down*, so no credit loop can form on one
 * VL, whatever links or switches are missing. If up*\/down* from the
 * leaves cannot take some leaf to some LID that it is cabled to, the
 * engine gives up and route.c runs updn instead (route_tables.why says so).
 *
 * Destinations are the CA LIDs in host order (leaf by GUID, then port;
 * LMC offset 0 of every host first, then offset 1, ...), then switch LIDs.
 * Link loads count sources (hosts) whose path uses the link. First every
 * destination's main path is planned (step 2) with its load forecast,
 * and on a tree where some leaf will have to detour the leaves' cone paths
 * are forecast too, so later choices see roughly final loads. Then, for
 * one destination LID on leaf L:
 *   1. D = the switches that reach L going only down (BFS up from L).
 *   2. The main path climbs from L, at each step to the upper switch whose
 *      down link (and best link above it) carries the least: its top T is
 *      where the other sources turn down.
 *   3. Switches are routed from the top rank down: main-path and D switches
 *      go down (least-loaded candidate), the rest go up towards T along
 *      the "cone" of T when they can, else up to an upper switch with a
 *      route, chosen by a two-hop load lookahead and, on leaves, by how
 *      few of the destinations just before this one already use the port
 *      (shift permutations send a leaf's hosts to consecutive hosts).
 *   4. Links into L above L's fair share (its all-to-all bound), and main
 *      path links above the global bound, shed whole up-routed subtrees
 *      (a leaf, a middle switch with what is behind it) to other ways in,
 *      each move lowering the maximum.
 *   5. The loads grow by this destination's real flows.
 * On a full k-ary tree steps 2-3 amount to d-mod-k routing (every shift
 * permutation congestion-free) and step 4 never fires.
 *
 * That is the engine for complete trees and for trees plane routing
 * (planes.c) does not take: more than 3 ranks, parallel links, or no plane
 * structure. Degraded 2- and 3-level trees go to planes.c, which keeps
 * d-mod-k wherever the links allow and counts shift loads exactly for the
 * rest (route_planes()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/balance.h"
#include "routing/engine.h"
#include "routing/ftree_int.h"
#include "routing/par.h"
#include "routing/planes.h"

/* Least-loaded port of group k of switch s (ports ascend: first wins ties). */
static uint8_t least_port(const struct ft *f, uint32_t s, uint32_t k)
{
	const struct rg_group *gr = rg_group(f->g, s, k);
	const uint8_t *port = f->g->gports + gr->first;
	const uint64_t *load = f->load + f->pb[s];
	uint8_t best = port[0];

	for (uint32_t i = 1; i < gr->n; i++)
		if (load[port[i]] < load[best])
			best = port[i];
	return best;
}

static const uint8_t *get_cone(struct ft *f, uint32_t top)
{
	const struct rgraph *g = f->g;

	if (f->cone[top])
		return f->cone[top];
	uint8_t *cn = rg_xmalloc(g->nsw, 1);
	uint32_t *queue = rg_xmalloc(g->nsw, sizeof(*queue));
	uint32_t head = 0, tail = 0;
	memset(cn, 0xFF, g->nsw);
	cn[top] = 0xFE;
	queue[tail++] = top;
	while (head < tail) {
		uint32_t y = queue[head++];
		/* nothing is below a leaf */
		for (uint32_t k = 0; f->rank[y] && k < g->sw[y].ngroups; k++) {
			uint32_t p = rg_group(g, y, k)->peer;
			if (f->rank[p] + 1 != f->rank[y] || cn[p] != 0xFF)
				continue;
			cn[p] = back_group(f, y, k);
			queue[tail++] = p;
		}
	}
	free(queue);
	f->cone[top] = cn;
	return cn;
}

/* The ranked switches outside D, in desc order (runs per destination
 * switch: locals, no branch). */
static void rest_set(struct ft *f)
{
	const uint32_t *desc = f->desc, *inD = f->inD, curD = f->curD, n = f->ndesc;
	uint32_t *rest = f->rest, nrest = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = desc[i];
		rest[nrest] = s;
		nrest += inD[s] != curD;
	}
	f->nrest = nrest;
}

/*
 * Step 1: D and each D switch's down groups into D; the ranked switches
 * outside D into rest. A D switch with a single link down has no choice to
 * make for any LID of l: dport keeps it.
 */
static void down_set(struct ft *f, uint32_t l)
{
	const struct rgraph *g = f->g;
	uint32_t head = 0, tail = 0, *queue = f->dset;

	f->curD++;
	f->inD[l] = f->curD;
	queue[tail++] = l;
	while (head < tail) {
		uint32_t y = queue[head++];
		for (uint32_t i = 0; i < f->nup[y]; i++) {
			uint32_t k = f->upg[g->sw[y].gfirst + i];
			uint32_t p = rg_group(g, y, k)->peer;
			if (f->inD[p] != f->curD) {
				f->inD[p] = f->curD;
				f->ncand[p] = 0;
				queue[tail++] = p;
			}
			f->cand[g->sw[p].portbase + f->ncand[p]++] = back_group(f, y, k);
		}
	}
	f->nd = tail;
	for (uint32_t i = 1; i < tail; i++) {
		uint32_t p = queue[i];
		const struct rg_group *gr = rg_group(g, p, f->cand[g->sw[p].portbase]);
		f->dport[p] = f->ncand[p] == 1 && gr->n == 1 ? g->gports[gr->first] : 0;
		f->dnxt[p] = gr->peer;
	}
	rest_set(f);
}

/* The least loaded port of the i-th upper neighbour of s (*q) down to s. */
static uint8_t port_into(const struct ft *f, uint32_t s, uint32_t i, uint32_t *q)
{
	uint32_t at = f->g->sw[s].gfirst + i;

	*q = f->upsw[at];
	return f->upport[at] ? f->upport[at] : least_port(f, *q, back_group(f, s, f->upg[at]));
}

/*
 * The least load on a link into p from above. While all main paths are
 * planned, main_path() is the only one to change loads and it drops the
 * value of the switch below each link it loads: keep it until then.
 */
static uint64_t above_load(struct ft *f, uint32_t p)
{
	uint64_t b = UINT64_MAX;

	if (f->planning && f->above_ok[p])
		return f->above[p];
	for (uint32_t i = 0; i < f->nup[p]; i++) {
		uint32_t q;
		uint8_t qp = port_into(f, p, i, &q);
		uint64_t x = f->load[f->pb[q] + qp];
		b = x < b ? x : b;
	}
	f->above[p] = b;
	f->above_ok[p] = 1;
	return b;
}

/*
 * How loaded the main path gets if it climbs to p, entering it by port:
 * the larger of that down link's load and of the least loaded link into
 * p from above (one step of lookahead, so that a middle switch that lost
 * uplinks does not collect as many destinations as its full siblings).
 */
static uint64_t climb_key(struct ft *f, uint32_t p, uint8_t port)
{
	uint64_t a = f->load[f->pb[p] + port], b = above_load(f, p);

	return b == UINT64_MAX || b < a ? a : b;
}

/*
 * Step 2: plans the main path from l into mp (switches above l and the
 * down port each uses), adding w to every link on it as a prediction.
 * Planning all LIDs of a leaf before routing any of them lets the later
 * steps see the final load of the links into the leaf.
 */
static void main_path(struct ft *f, uint32_t l, uint64_t w, struct mp *mp)
{
	const struct rgraph *g = f->g;
	uint32_t y = l;

	mp->n = 0;
	f->nplan++;
	for (;;) {
		uint32_t bestp = RG_NONE;
		uint8_t bestport = 0;
		uint64_t bestkey = 0;
		for (uint32_t i = 0; i < f->nup[y]; i++) {
			uint32_t p;
			uint8_t port = port_into(f, y, i, &p);
			uint64_t key = climb_key(f, p, port);
			if (bestp == RG_NONE || key < bestkey ||
			    (key == bestkey && f->tlast[p] < f->tlast[bestp])) {
				bestp = p;
				bestport = port;
				bestkey = key;
			}
		}
		if (bestp == RG_NONE || mp->n == f->maxdepth)
			break;
		f->tlast[bestp] = f->nplan;
		mp->sw[mp->n] = bestp;
		mp->port[mp->n++] = bestport;
		f->load[g->sw[bestp].portbase + bestport] += w;
		f->above_ok[y] = 0;
		y = bestp;
	}
	mp->top = y;
}

static void unpredict(struct ft *f, const struct mp *mp, uint64_t w)
{
	for (uint32_t i = 0; i < mp->n; i++)
		f->load[f->g->sw[mp->sw[i]].portbase + mp->port[i]] -= w;
}

static uint32_t apply_plan(struct ft *f, const struct mp *mp)
{
	for (uint32_t i = 0; i < mp->n; i++) {
		f->onmain[mp->sw[i]] = f->stamp;
		f->route[mp->sw[i]] = mp->port[i];
	}
	return mp->top;
}

static uint8_t pick_down(const struct ft *f, uint32_t s)
{
	uint32_t base = f->g->sw[s].portbase;
	uint8_t best = 0;

	for (uint32_t i = 0; i < f->ncand[s]; i++) {
		uint8_t p = least_port(f, s, f->cand[base + i]);
		if (!best || f->load[base + p] < f->load[base + best] ||
		    (f->load[base + p] == f->load[base + best] && p < best))
			best = p;
	}
	return best;
}

/*
 * Shift windows: the hosts of a leaf x send, under a shift permutation, to
 * nhosts(x) consecutive destinations. How many of the destinations just
 * before the current one (of the last FT_RECENT, and of the first ones
 * when the window wraps) leave x through port p: detours weigh this above
 * the loads so that they spread over x's uplinks within every window.
 * An upper switch's window is the hosts below it: on a degraded tree its
 * uses are counted per window of that many destinations (this one and the
 * one before), so that the detours of a whole pod do not pile onto the one
 * top switch that happens to be least loaded.
 */
static uint64_t recent(const struct ft *f, uint32_t x, uint8_t p)
{
	uint32_t id = f->g->sw[x].portbase + p, h = f->g->sw[x].nhosts;
	const uint32_t *u = f->lastuse + FT_RECENT * id;
	uint64_t n = 0;

	if (f->rank[x] != 0) {
		/* upper switches: uses in the last window of the hosts below */
		if (!f->midrec || !f->below[x])
			return 0;
		uint32_t b = f->curidx / f->below[x];
		if (f->bucket[id] == b + 1)
			return f->bcnt[2 * id] + f->bcnt[2 * id + 1];
		return f->bucket[id] == b ? f->bcnt[2 * id] : 0;
	}
	if (!h)
		return 0;
	for (uint32_t i = 0; i < FT_RECENT; i++)
		n += u[i] && u[i] + h > f->curidx + 1;
	/* shifts wrap around: the first hosts follow the last ones */
	for (uint32_t i = 0; i < 2; i++)
		n += f->early[2 * id + i] && f->early[2 * id + i] - 1 + f->g->nhosts < f->curidx + h;
	return n;
}

/* Records for recent() that upper switch x forwards this destination on p. */
static void mark_upper_use(struct ft *f, uint32_t x, uint8_t p)
{
	uint32_t id = f->pb[x] + p;

	if (!f->midrec || !f->below[x])
		return;
	uint32_t b = f->curidx / f->below[x] + 1;
	if (f->bucket[id] != b) {
		f->bcnt[2 * id + 1] = f->bucket[id] + 1 == b ? f->bcnt[2 * id] : 0;
		f->bcnt[2 * id] = 0;
		f->bucket[id] = b;
	}
	f->bcnt[2 * id]++;
}

/* Records for recent() that a leaf sends one of the first destinations
 * (as many as its hosts) out on link id. */
static void mark_early(struct ft *f, uint32_t id)
{
	for (uint32_t i = 0; i < 2; i++)
		if (!f->early[2 * id + i]) {
			f->early[2 * id + i] = f->curidx + 1;
			break;
		}
}

/*
 * Load of the link v forwards on: its route's, or for a deferred switch
 * (whose route is not chosen yet) that of its least loaded way up.
 */
static uint64_t next_load(struct ft *f, uint32_t v)
{
	const struct rgraph *g = f->g;
	uint64_t b = UINT64_MAX;

	if (f->deferred[v] != f->stamp)
		return f->nxt[v] == RG_NONE ? 0 : f->load[g->sw[v].portbase + f->route[v]];
	/* loads do not change while one destination is routed: cache */
	if (f->nlstamp[v] == f->stamp)
		return f->nlcache[v];
	for (uint32_t i = 0; i < f->nup[v]; i++) {
		uint32_t k = f->upg[g->sw[v].gfirst + i];
		if (f->ok[rg_group(g, v, k)->peer] != f->stamp)
			continue;
		uint64_t x = f->load[g->sw[v].portbase + least_port(f, v, k)];
		b = x < b ? x : b;
	}
	f->nlstamp[v] = f->stamp;
	f->nlcache[v] = b == UINT64_MAX ? 0 : b;
	return f->nlcache[v];
}

/*
 * Up to an upper switch that already has a route; 0 if none. Looks two
 * hops ahead: the key is the larger of our uplink's load and the load of
 * the upper switch's next link (loads include the forecast, so they are
 * comparable), ties to the smaller sum, so detours avoid both bottlenecks.
 */
static uint8_t pick_up(struct ft *f, uint32_t s)
{
	const struct rgraph *g = f->g;
	uint32_t base = g->sw[s].portbase;
	uint64_t bestk = 0, bests = 0;
	uint8_t best = 0;

	for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
		uint32_t v = rg_group(g, s, k)->peer;
		if (!is_up(f, s, k) || f->ok[v] != f->stamp)
			continue;
		uint8_t p = least_port(f, s, k);
		uint64_t a = f->load[base + p];
		uint64_t b = next_load(f, v);
		uint64_t key = a > b ? a : b;
		key += recent(f, s, p) * f->gcap;
		if (!best || key < bestk || (key == bestk && a + b < bests)) {
			best = p;
			bestk = key;
			bests = a + b;
		}
	}
	return best;
}

/*
 * Switch LIDs need no balance: the first upper switch with a route. The
 * upper rank is routed before s, so where one switch found none, all with
 * the same upper switches find none (a spine's switch LID leaves most
 * middle switches so): noup keeps that per class.
 */
static const struct rg_group *first_up(struct ft *f, uint32_t s)
{
	const struct rgraph *g = f->g;
	uint32_t gf = f->gf[s], n = f->nup[s], c = f->upcls[s];

	if (f->noup[c] == f->stamp)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		if (f->ok[f->upsw[gf + i]] == f->stamp)
			return rg_group(g, s, f->upg[gf + i]);
	f->noup[c] = f->stamp;
	return NULL;
}

/* The LFT byte of s for the current destination, as routed so far. */
static inline void set_col(struct ft *f, uint32_t s)
{
	f->col[(size_t)s * FT_COLS + f->j] = f->ok[s] == f->stamp ? f->route[s] : LFT_NO_PORT;
}

/* s forwards through port p to switch peer (p 0: s has no route). */
static inline void set_hop(struct ft *f, uint32_t s, uint8_t p, uint32_t peer)
{
	f->route[s] = p;
	if (!p) {
		f->nxt[s] = RG_NONE;
		set_col(f, s);
		return;
	}
	f->nxt[s] = peer;
	f->ok[s] = f->stamp;
	f->col[(size_t)s * FT_COLS + f->j] = p;
}

static void set_route(struct ft *f, uint32_t s, uint8_t p)
{
	set_hop(f, s, p, p ? f->peer[f->pb[s] + p] : RG_NONE);
}

/* s forwards through the first port of group gr (NULL: no route). */
static inline void set_first(struct ft *f, uint32_t s, const struct rg_group *gr)
{
	if (gr)
		set_hop(f, s, f->g->gports[gr->first], gr->peer);
	else
		set_hop(f, s, 0, RG_NONE);
}

/*
 * A switch off the main path, outside D and the cone first gets a cheap
 * route (turn_up) and is marked deferred: on a full tree nothing uses it.
 * When a lower switch does pick it, it gets its balanced route then.
 */
static void resolve(struct ft *f, uint32_t t)
{
	while (t != RG_NONE && f->deferred[t] == f->stamp) {
		f->deferred[t] = 0;
		set_route(f, t, pick_up(f, t));
		t = f->nxt[t];
	}
}

/* A switch of D: down along the main path or to the least loaded link. */
static void route_down(struct ft *f, uint32_t s)
{
	if (f->onmain[s] == f->stamp)
		set_route(f, s, f->route[s]);
	else if (f->dport[s])
		set_hop(f, s, f->dport[s], f->dnxt[s]);
	else
		set_route(f, s, pick_down(f, s));
}

/* A switch outside D whose way up the cone has no route (or that is not
 * in the cone), but not one route_rest() defers. */
static void route_up(struct ft *f, uint32_t s)
{
	if (!f->balance) {
		set_first(f, s, first_up(f, s));
	} else {
		uint8_t p = pick_up(f, s);
		if (p)
			resolve(f, f->peer[f->pb[s] + p]);
		set_route(f, s, p);
	}
}

/*
 * The switches of D but l: those with a single way down take it inline
 * (arrays in locals, as in route_rest()), the others go to route_down().
 */
static void route_dset(struct ft *f)
{
	const uint32_t *dset = f->dset, *onmain = f->onmain, *dnxt = f->dnxt;
	const uint32_t stamp = f->stamp, n = f->nd;
	const uint8_t *dport = f->dport;
	uint32_t *ok = f->ok, *nxt = f->nxt;
	uint8_t *route = f->route, *col = f->col + f->j;

	for (uint32_t i = 1; i < n; i++) {
		uint32_t s = dset[i];
		uint8_t p = dport[s];
		if (!p || onmain[s] == stamp) {
			route_down(f, s);
			continue;
		}
		route[s] = p;
		nxt[s] = dnxt[s];
		ok[s] = stamp;
		col[(size_t)s * FT_COLS] = p;
	}
}

/*
 * A deferred switch's stand-in route: the usable upper switches in turn,
 * by destination. Step 4 may move sources onto a deferred switch without
 * resolving it; turn by turn spreads those over its uplinks, where the
 * first one would collect them all (one window of a shift then crowds a
 * single link). at: curidx % n for the last switch's uplink count n.
 */
struct turn {
	const uint32_t *ok, *upsw;
	uint32_t stamp, idx, n, at;
};

/* Up index (at gfirst) of the upper switch s turns to, RG_NONE if none. */
static inline uint32_t turn_up(struct turn *t, uint32_t gf, uint32_t n)
{
	/* a division per switch costs more than all the rest here: most
	 * switches have as many uplinks as the one before */
	if (n && n != t->n) {
		t->n = n;
		t->at = t->idx % n;
	}
	/* from the destination's turn on, the first usable one: O(1) on a
	 * full tree, where every switch of a large fabric passes here */
	for (uint32_t i = 0, at = n ? t->at : 0; i < n; i++, at = at + 1 == n ? 0 : at + 1)
		if (t->ok[t->upsw[gf + at]] == t->stamp)
			return gf + at;
	return RG_NONE;
}

/*
 * The switches outside D, from the top rank down: up the cone of the top
 * where the next switch has a route; switches without hosts (rank 0 is
 * those with hosts) that are not in the cone are deferred; the rest go to
 * route_up(). This runs for every switch and destination: the common
 * cases are inline, with the arrays in locals (stores through f's
 * pointers would make the compiler read them from f again).
 */
static void route_rest(struct ft *f, const uint8_t *cone)
{
	const struct rg_group *groups = f->g->groups;
	const uint8_t *gports = f->g->gports, *nup = f->nup, *upfirst = f->upfirst;
	const uint32_t *rest = f->rest, *gf = f->gf, *rank = f->rank, n = f->nrest;
	const uint32_t stamp = f->stamp;
	uint32_t *ok = f->ok, *nxt = f->nxt, *deferred = f->deferred;
	uint8_t *route = f->route, *col = f->col + f->j;
	struct turn tn = { ok, f->upsw, stamp, f->curidx, 0, 0 };

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rest[i], peer, at;
		uint8_t k = cone[s], p;
		const struct rg_group *gr = k < 0xFE ? groups + gf[s] + k : NULL;
		if (gr && ok[gr->peer] == stamp) {
			p = gr->n == 1 ? gports[gr->first] : least_port(f, s, k);
			peer = gr->peer;
		} else if (f->balance && rank[s]) {
			deferred[s] = stamp;
			if ((at = turn_up(&tn, gf[s], nup[s])) == RG_NONE) {
				set_hop(f, s, 0, RG_NONE);
				continue;
			}
			p = upfirst[at];
			peer = tn.upsw[at];
		} else {
			route_up(f, s);
			continue;
		}
		route[s] = p;
		nxt[s] = peer;
		ok[s] = stamp;
		col[(size_t)s * FT_COLS] = p;
	}
}

/*
 * Step 3: routes of all ranked switches for the current destination. A
 * switch's choice reads only its own links' loads (fixed meanwhile) and
 * the routes of switches above it: D first (its routes only go down),
 * then the rest from the top rank down.
 */
static void route_all(struct ft *f, uint32_t l, uint32_t top)
{
	const uint8_t *cone = get_cone(f, top);

	f->ok[l] = f->stamp;
	f->nxt[l] = RG_NONE;
	route_dset(f);
	route_rest(f, cone);
}

static inline void add_flow(struct ft *f, uint32_t s, uint64_t n)
{
	if (f->tstamp[s] != f->stamp) {
		f->tstamp[s] = f->stamp;
		f->touched[f->ntouched++] = s;
	}
	f->flow[s] += n;
}

/* s passes its flow on to nxt[s] (l's own flow goes nowhere). */
static inline void pass_flow(struct ft *f, uint32_t s, uint32_t l)
{
	if (f->ok[s] == f->stamp && f->nxt[s] != l && f->nxt[s] != RG_NONE)
		add_flow(f, f->nxt[s], f->flow[s]);
}

/*
 * Where s comes on its way to l: up-routed switches (outside D) by rank,
 * then D from the top down. Every route goes to a later hop, so flows
 * pass on in hop order.
 */
static uint32_t hop(const struct ft *f, uint32_t s)
{
	return f->inD[s] == f->curD ? 2 * f->maxdepth - 1 - f->rank[s] : f->rank[s];
}

/*
 * Sources behind every routed switch but l. Only leaves have hosts and
 * nothing routes into a leaf but l, so a leaf's flow is always its hosts
 * (set once, in ft_index()); the few switches above that get any are
 * listed in touched and swept hop by hop, the rest keep flow 0. Leaves
 * that cannot reach l although cabled to it count in cut (up*\/down*
 * limits).
 */
static void flows(struct ft *f, uint32_t l)
{
	for (uint32_t i = 0; i < f->nleaves; i++) {
		uint32_t x = f->leaves[i];
		if (x == l)
			continue;
		if (f->ok[x] == f->stamp)
			pass_flow(f, x, l);
		else if (f->comp[x] == f->comp[l])
			f->cut++;
	}
	/* what a sweep adds to the list is of a later hop: a later sweep's */
	for (uint32_t h = 1; h < 2 * f->maxdepth; h++)
		for (uint32_t i = 0; i < f->ntouched; i++)
			if (hop(f, f->touched[i]) == h)
				pass_flow(f, f->touched[i], l);
}

static uint64_t into_l(const struct ft *f, uint32_t u)
{
	return f->load[f->g->sw[u].portbase + f->route[u]] + f->flow[u];
}

/* 1 when the path of routed switch s to l leaves switch a. */
static int passes(const struct ft *f, uint32_t s, uint32_t a, uint32_t l)
{
	for (uint32_t n = 0; s != RG_NONE && s != l && n <= 2 * f->maxdepth; n++, s = f->nxt[s])
		if (s == a)
			return 1;
	return 0;
}

/* 1 if every link on w's path to l stays below lim with extra flow added. */
static int path_room(const struct ft *f, uint32_t w, uint64_t extra, uint64_t lim)
{
	for (uint32_t t = w; f->nxt[t] != RG_NONE; t = f->nxt[t])
		if (into_l(f, t) + extra >= lim)
			return 0;
	return 1;
}

/*
 * An up-neighbour w of up-routed switch z whose path avoids the link out
 * of a and stays below that link's load even with z's flow (so each move
 * lowers the maximum), without pushing z's uplink past the bound or, where
 * whole subtrees cannot meet it, past a's load.
 */
static uint32_t better_up(struct ft *f, uint32_t z, uint32_t a, uint32_t l,
			  uint32_t *kout)
{
	const struct rgraph *g = f->g;
	uint64_t lim = into_l(f, a), bestl = 0;
	uint32_t best = RG_NONE;

	for (uint32_t i = 0; i < f->nup[z]; i++) {
		uint32_t k = f->upg[g->sw[z].gfirst + i], w = rg_group(g, z, k)->peer;
		if (f->ok[w] != f->stamp || w == f->nxt[z] || passes(f, w, a, l) ||
		    !path_room(f, w, f->flow[z], lim))
			continue;
		uint8_t p = least_port(f, z, k);
		uint64_t zl = f->load[g->sw[z].portbase + p] + f->flow[z];
		if (zl > f->cap[z] && zl > f->gcap && zl >= lim)
			continue;
		zl += next_load(f, w) + recent(f, z, p) * 2 * f->gcap;
		if (best == RG_NONE || zl < bestl) {
			best = w;
			bestl = zl;
			*kout = k;
		}
	}
	return best;
}

static void move_flow(struct ft *f, uint32_t z, uint32_t w, uint32_t k, uint32_t l)
{
	for (uint32_t t = f->nxt[z]; t != l; t = f->nxt[t])
		f->flow[t] -= f->flow[z];
	for (uint32_t t = w; t != l; t = f->nxt[t])
		add_flow(f, t, f->flow[z]);
	f->route[z] = least_port(f, z, k);
	f->nxt[z] = w;
	set_col(f, z);
}

/* Who forwards to whom for this destination: children lists by parent. */
static void build_children(struct ft *f, uint32_t l)
{
	uint32_t n = f->g->nsw;

	memset(f->cstart, 0, (n + 1) * sizeof(*f->cstart));
	for (uint32_t i = 0; i < f->ndesc; i++) {
		uint32_t s = f->desc[i];
		if (s != l && f->ok[s] == f->stamp)
			f->cstart[f->nxt[s] + 1]++;
	}
	for (uint32_t s = 0; s < n; s++)
		f->cstart[s + 1] += f->cstart[s];
	memcpy(f->cfill, f->cstart, n * sizeof(*f->cfill));
	for (uint32_t i = 0; i < f->ndesc; i++) {
		uint32_t s = f->desc[i];
		if (s != l && f->ok[s] == f->stamp)
			f->clist[f->cfill[f->nxt[s]]++] = s;
	}
	f->children_ok = f->stamp;
}

/* Switches whose path leaves a (BFS over children), a first, into bfs. */
static uint32_t upstream(struct ft *f, uint32_t a)
{
	uint32_t head = 0, tail = 0;

	f->bfs[tail++] = a;
	while (head < tail) {
		uint32_t y = f->bfs[head++];
		for (uint32_t i = f->cstart[y]; i < f->cstart[y + 1]; i++)
			f->bfs[tail++] = f->clist[i];
	}
	return tail;
}

/*
 * Moves up-routed subtrees off the link out of a while it carries more
 * than lim: the sources furthest from a first (one sweep: a subtree that
 * could not move will not be able to later either), at most
 * FT_SCAN_BUDGET subtrees examined.
 */
static void divert_link(struct ft *f, uint32_t l, uint32_t a, uint64_t lim)
{
	uint32_t moves = 0, budget = FT_SCAN_BUDGET;

	if (into_l(f, a) <= lim)
		return;
	if (f->children_ok != f->stamp)
		build_children(f, l);
	for (uint32_t i = upstream(f, a); i-- > 1 && budget && moves < FT_MAX_MOVES;) {
		uint32_t z = f->bfs[i], k = 0;
		if (into_l(f, a) <= lim)
			break;
		if (f->inD[z] == f->curD || !f->flow[z] || !passes(f, z, a, l))
			continue;
		budget--;
		uint32_t w = better_up(f, z, a, l, &k);
		if (w == RG_NONE)
			continue;
		/* a deferred w gets its balanced route before sources land on it */
		if (f->deferred[w] == f->stamp && !f->flow[w]) {
			resolve(f, w);
			if (passes(f, w, a, l))
				continue;
		}
		move_flow(f, z, w, k, l);
		f->children_ok = 0;
		moves++;
	}
}

/*
 * Step 4: the links into l carry at most l's fair share (cap) where whole
 * subtrees of sources can be moved to other ways in; the main path's
 * higher links at most the all-to-all bound.
 */
static void divert(struct ft *f, uint32_t l, uint64_t cap, const struct mp *mp)
{
	const struct rgraph *g = f->g;

	for (uint32_t k = 0; k < g->sw[l].ngroups; k++) {
		uint32_t u = rg_group(g, l, k)->peer;
		if (is_up(f, l, k) && f->ok[u] == f->stamp && f->nxt[u] == l)
			divert_link(f, l, u, cap);
	}
	for (uint32_t i = 1; i < mp->n; i++)
		divert_link(f, l, mp->sw[i], f->gcap);
}

/*
 * LFT writes go through a column buffer: one LFT byte per switch per LID
 * is a cache miss each on big fabrics; COLS consecutive LIDs per switch
 * share cache lines.
 */
static void flush_cols(struct ft *f)
{
	int run = 1;

	for (uint32_t j = 1; j < f->ncol; j++)
		run &= f->collid[j] == f->collid[0] + j;
	for (uint32_t s = 0; s < f->g->nsw; s++) {
		const uint8_t *col = f->col + (size_t)s * FT_COLS;
		uint8_t *lft = f->c->lft[s];
		if (run && f->ncol) {
			/* unrouted entries are LFT_NO_PORT, as the LFT already is */
			memcpy(lft + f->collid[0], col, f->ncol);
			continue;
		}
		for (uint32_t j = 0; j < f->ncol; j++)
			if (col[j] != LFT_NO_PORT)
				lft[f->collid[j]] = col[j];
	}
	f->ncol = 0;
	/* set_col() writes only the ranked switches' bytes of a column */
	memset(f->col, LFT_NO_PORT, (size_t)f->g->nsw * FT_COLS);
}

/* A fresh column for lid, flushing the buffer first if it is full. */
static uint32_t new_col(struct ft *f, uint32_t lid)
{
	if (f->ncol == FT_COLS)
		flush_cols(f);
	f->collid[f->ncol] = lid;
	return f->ncol++;
}

/*
 * Step 5 for the leaves: their uplinks' loads, and the records for
 * recent() that the leaf sends this destination out there. Every leaf
 * passes here for every destination: the arrays are in locals, which
 * the stores (that might alias f's fields) do not make the compiler
 * read again.
 */
static void commit_leaves(struct ft *f, uint32_t l)
{
	const uint32_t *leaves = f->leaves, *ok = f->ok, *pb = f->pb;
	const uint32_t stamp = f->stamp, cur = f->curidx + 1, n = f->nleaves;
	const uint8_t *route = f->route;
	const uint64_t *flow = f->flow;
	uint64_t *load = f->load;
	uint32_t *lastuse = f->lastuse;
	uint8_t *head = f->usehead;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = leaves[i];
		if (x == l || ok[x] != stamp)
			continue;
		uint32_t id = pb[x] + route[x], *u = lastuse + FT_RECENT * id;
		load[id] += flow[x];
		if (u[head[id]] == cur)
			continue;
		head[id] = (uint8_t)((head[id] + 1) % FT_RECENT);
		u[head[id]] = cur;
		/* a leaf's flow is its hosts */
		if (cur <= (uint32_t)flow[x])
			mark_early(f, id);
	}
}

/*
 * Step 5: link loads grow by the number of sources behind each switch
 * that has any, and flows above the leaves go back to 0 for the next
 * destination.
 */
static void commit(struct ft *f, uint32_t l)
{
	commit_leaves(f, l);
	for (uint32_t i = 0; i < f->ntouched; i++) {
		uint32_t s = f->touched[i];
		if (f->flow[s] && f->ok[s] == f->stamp) {
			f->load[f->pb[s] + f->route[s]] += f->flow[s];
			mark_upper_use(f, s, f->route[s]);
		}
		f->flow[s] = 0;
	}
	f->ntouched = 0;
}

/* One destination LID ending at switch l; cap 0: switch LID, no loads. */
static void route_lid(struct ft *f, uint32_t l, uint32_t lid, const struct mp *mp,
		      uint64_t cap)
{
	f->stamp++;
	f->j = new_col(f, lid);
	uint32_t top = apply_plan(f, mp);
	route_all(f, l, top);
	if (cap) {
		flows(f, l);
		if (cap != UINT64_MAX)
			divert(f, l, cap, mp);
		commit(f, l);
	}
}

struct dest {
	uint32_t leaf, lid, host;
};

/* Destinations in routing order: LMC offset, leaf, host port. */
static uint32_t list_dests(const struct ft *f, struct dest *d)
{
	const struct rgraph *g = f->g;
	uint32_t maxl = 1, n = 0;

	for (uint32_t h = 0; h < g->nhosts; h++)
		if (g->hosts[h].nlids > maxl)
			maxl = g->hosts[h].nlids;
	for (uint32_t off = 0; off < maxl; off++)
		for (uint32_t h = 0; h < g->nhosts; h++)
			if (off < g->hosts[h].nlids && f->rank[g->hosts[h].sw] == 0)
				d[n++] = (struct dest){ g->hosts[h].sw, g->hosts[h].lid + off, h };
	return n;
}

/*
 * Forecast of the link loads of one destination: every leaf in the cone of
 * the top sends its hosts up the cone until it meets the main path (whose
 * links main_path() forecast already). Added for all destinations before
 * routing and replaced by the real routes one destination at a time, so
 * that choices made early see roughly final loads.
 */
/*
 * The cone paths of all leaves towards top T, cached: per leaf, up to
 * maxdepth (switch, link id) steps, switch RG_NONE after the last one.
 */
static const uint32_t *cone_paths(struct ft *f, uint32_t top)
{
	const struct rgraph *g = f->g;
	uint32_t md = f->maxdepth, *cp;

	if (f->cpath[top])
		return f->cpath[top];
	const uint8_t *cone = get_cone(f, top);
	cp = rg_xmalloc((size_t)f->nleaves * md * 2, sizeof(*cp));
	for (uint32_t i = 0; i < f->nleaves; i++) {
		uint32_t *e = cp + (size_t)i * md * 2, n = 0;
		for (uint32_t t = f->leaves[i]; t != top && cone[t] < 0xFE && n < md; n++) {
			const struct rg_group *gr = rg_group(g, t, cone[t]);
			e[2 * n] = t;
			e[2 * n + 1] = g->sw[t].portbase + g->gports[gr->first];
			t = gr->peer;
		}
		if (n < md)
			e[2 * n] = RG_NONE;
	}
	f->cpath[top] = cp;
	return cp;
}

static void predict(struct ft *f, uint32_t l, const struct mp *mp, int sign)
{
	const uint32_t *cp = cone_paths(f, mp->top);
	uint32_t md = f->maxdepth;

	f->stamp++;
	apply_plan(f, mp);
	for (uint32_t i = 0; i < f->nleaves; i++) {
		const uint32_t *e = cp + (size_t)i * md * 2;
		uint64_t h = f->g->sw[f->leaves[i]].nhosts;
		if (f->leaves[i] == l)
			continue;
		for (uint32_t n = 0; n < md && e[2 * n] != RG_NONE; n++) {
			if (f->onmain[e[2 * n]] == f->stamp)
				break;
			if (sign > 0)
				f->load[e[2 * n + 1]] += h;
			else
				f->load[e[2 * n + 1]] -= h;
		}
	}
}

/*
 * 1 if every leaf reaches top going only up. If that holds for every top,
 * no leaf ever detours and the forecast cannot change a choice: skip it.
 */
static int cone_covers_leaves(struct ft *f, uint32_t top)
{
	const uint8_t *cone = get_cone(f, top);

	for (uint32_t i = 0; i < f->nleaves; i++)
		if (cone[f->leaves[i]] >= 0xFE && f->leaves[i] != top)
			return 0;
	return 1;
}

/* cone_covers_leaves() of the top of every main path (each top once). */
static int cones_cover_leaves(struct ft *f, const struct mp *mp, uint32_t n)
{
	uint8_t *seen = rg_xcalloc(f->g->nsw ? f->g->nsw : 1, 1);
	int all = 1;

	for (uint32_t i = 0; i < n && all; i++)
		if (!seen[mp[i].top]) {
			seen[mp[i].top] = 1;
			all = cone_covers_leaves(f, mp[i].top);
		}
	free(seen);
	return all;
}

/*
 * 1 if every leaf's LIDs split evenly over its uplink ports: then no link
 * into a leaf ever exceeds its share on a complete tree and step 4 never
 * moves anything (with parallel links or spare uplinks it does).
 */
static int even_leaves(const struct ft *f)
{
	const struct rgraph *g = f->g;

	for (uint32_t i = 0; i < f->nleaves; i++) {
		uint32_t l = f->leaves[i], up = 0, lids = 0;
		for (uint32_t j = 0; j < f->nup[l]; j++)
			up += rg_group(g, l, f->upg[g->sw[l].gfirst + j])->n;
		for (uint32_t h = g->sw[l].hfirst; h < g->sw[l].hfirst + g->sw[l].nhosts; h++)
			lids += g->hosts[h].nlids;
		if (up && lids % up)
			return 0;
	}
	return 1;
}

/* Routes every CA LID; returns 1 if the tree is degraded (some leaf
 * detours or splits its LIDs unevenly over its uplinks). */
static int route_hosts(struct ft *f)
{
	const struct rgraph *g = f->g;
	uint32_t cap = 0;

	for (uint32_t h = 0; h < g->nhosts; h++)
		cap += g->hosts[h].nlids;
	struct dest *d = rg_xcalloc(cap, sizeof(*d));
	struct mp *mp = rg_xcalloc(cap, sizeof(*mp));
	uint32_t n = list_dests(f, d), md = f->maxdepth + 1;
	uint32_t *psw = rg_xcalloc((size_t)n * md, sizeof(*psw));
	uint8_t *pport = rg_xcalloc((size_t)n * md, 1);

	f->planning = 1;
	memset(f->above_ok, 0, g->nsw);
	for (uint32_t i = 0; i < n; i++) {
		mp[i].sw = psw + (size_t)i * md;
		mp[i].port = pport + (size_t)i * md;
		main_path(f, d[i].leaf, f->nsrc - g->sw[d[i].leaf].nhosts, &mp[i]);
	}
	f->planning = 0;
	int forecast = !even_leaves(f) || !cones_cover_leaves(f, mp, n);
	f->midrec = forecast;
	for (uint32_t i = 0; i < n && forecast; i++)
		predict(f, d[i].leaf, &mp[i], 1);
	for (uint32_t i = 0; i < n; i++) {
		if (!i || d[i].leaf != d[i - 1].leaf)
			down_set(f, d[i].leaf);
		unpredict(f, &mp[i], f->nsrc - g->sw[d[i].leaf].nhosts);
		if (forecast)
			predict(f, d[i].leaf, &mp[i], -1);
		f->curidx = d[i].host;
		route_lid(f, d[i].leaf, d[i].lid, &mp[i], f->cap[d[i].leaf]);
	}
	flush_cols(f);
	free(psw);
	free(pport);
	free(mp);
	free(d);
	return forecast;
}

/*
 * Switches that up*\/down* cannot take to switch d (one spine to another)
 * step to any neighbour that already has a route: each takes a switch
 * routed before it, so these paths cannot loop. Only management traffic
 * uses switch LIDs.
 */
static void patch_switch_lid(struct ft *f, uint32_t d, uint32_t j)
{
	const struct rgraph *g = f->g;
	int changed = 1;

	f->ok[d] = f->stamp;
	while (changed) {
		changed = 0;
		for (uint32_t s = 0; s < g->nsw; s++) {
			if (f->ok[s] == f->stamp)
				continue;
			for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
				const struct rg_group *gr = rg_group(g, s, k);
				if (f->ok[gr->peer] != f->stamp)
					continue;
				f->col[(size_t)s * FT_COLS + j] = g->gports[gr->first];
				f->ok[s] = f->stamp;
				changed = 1;
				break;
			}
		}
	}
}

static void route_switch_lids(struct ft *f)
{
	const struct rgraph *g = f->g;
	struct mp mp[1];

	mp->sw = rg_xcalloc(f->maxdepth + 1, sizeof(*mp->sw));
	mp->port = rg_xcalloc(f->maxdepth + 1, 1);
	for (uint32_t d = 0; d < g->nsw; d++) {
		if (!g->sw[d].lid)
			continue;
		if (f->rank[d] != UINT32_MAX) {
			down_set(f, d);
			main_path(f, d, 0, mp);
			route_lid(f, d, g->sw[d].lid, mp, 0);
		} else {
			f->stamp++;
			new_col(f, g->sw[d].lid);
		}
		patch_switch_lid(f, d, f->ncol - 1);
	}
	flush_cols(f);
	free(mp->sw);
	free(mp->port);
}

/*
 * 1 if some switch link carries more than the all-to-all bound. On a
 * complete tree none does, and balance (whose first step alone costs a
 * pass over every destination and switch) is skipped.
 */
static int over_cap(const struct ft *f)
{
	for (uint32_t i = 0; i < f->g->nlinks; i++)
		if (f->peer[i] != RG_NONE && f->load[i] > f->gcap)
			return 1;
	return 0;
}

/*
 * Degraded 2- and 3-level trees: plane routing (planes.c). Where it left
 * entries above its shift target, or the all-to-all load more than 8 %
 * above its bound (the target is 10 %), balance searches on (shifts by
 * parts where not every shift's counters fit). 0 if planes declined: the
 * general engine runs, and why says why unless the tree is complete.
 */
static int route_planes(struct rctx *c, const uint32_t *rank)
{
	struct planes_stats st;
	char why[200] = "";

	if (planes_route(c, rank, &st, why, sizeof(why))) {
		if (strcmp(why, "complete"))
			route_why(c, "; not plane routed (%s)", why);
		return 0;
	}
	route_why(c, "; planes: %u pods, %u planes, %u top slots; %llu leaf and %llu middle "
		  "entries chosen, %llu and %llu over the shift target; all-to-all %llu (bound %llu)",
		  st.pods, st.planes, st.slots,
		  (unsigned long long)st.leaf_extras, (unsigned long long)st.slot_extras,
		  (unsigned long long)st.leaf_over, (unsigned long long)st.slot_over,
		  (unsigned long long)st.a2a_max, (unsigned long long)st.a2a_bound);
	if (st.slot_wide)
		route_why(c, "; planes counted again a byte per counter: %llu", /* planes_slot.c */
			  (unsigned long long)st.slot_wide);
	if (st.own)
		route_why(c, "; %llu entries for switches' own packets down and up again",
			  (unsigned long long)st.own);
	if (planes_unbalanced(&st))
		route_balance_ctx(c, rank, 1);
	return 1;
}

/* One of the two sides of route_planes_beside(). */
struct side {
	struct ft *f;
	int lids;           /* 0: the plane side */
};

static void side_run(void *arg)
{
	struct side *d = arg;

	if (d->lids) {
		route_switch_lids(d->f);
		/* not needed again: their room is planes' while it works */
		for (uint32_t s = 0; s < d->f->g->nsw; s++) {
			free(d->f->cone[s]);
			d->f->cone[s] = NULL;
		}
	} else
		route_planes(d->f->c, d->f->rank);
}

/*
 * A tree plane routing takes: its CA LIDs (planes, balance) on this
 * thread and the switch LIDs (ftree's own engine) on a second one. They
 * write different LIDs' entries, and neither reads what the other
 * writes: planes and balance read and write only CA LIDs' columns, and
 * switch LIDs are routed from ftree's state alone (its loads stay zero
 * when planes routes), so the tables are those of one after the other.
 */
static void route_planes_beside(struct ft *f, unsigned threads)
{
	struct side lids = { f, 1 }, planes = { f, 0 };

	f->balance = 0;
	rg_par2(side_run, &lids, &planes, threads);
}

int route_ftree(struct rctx *c)
{
	struct ft f;
	unsigned threads = rg_par_threads(c->g, c->o->threads ? c->o->threads : ROUTE_THREADS);

	if (c->o->nroots)
		route_why(c, "; ftree ranks from the CA leaves, root GUIDs ignored");
	ft_init(&f, c);
	if (threads > 1 && planes_fit(c->g, f.rank)) {
		route_planes_beside(&f, threads);
		ft_free(&f);
		return 0;
	}
	f.balance = 1;
	if (!route_planes(c, f.rank) && (route_hosts(&f) || over_cap(&f)) && !f.cut)
		route_balance_ctx(c, f.rank, 1);
	f.balance = 0;
	uint64_t cut = f.cut;
	if (!cut)
		route_switch_lids(&f);
	ft_free(&f);
	if (cut) {
		route_why(c, "; %llu leaf-to-LID routes impossible up*/down* from the leaves, "
			  "using updn", (unsigned long long)cut);
		return ROUTE_FALLBACK_UPDN;
	}
	return 0;
}
