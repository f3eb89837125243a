/*
 * DOC: balance, a local search that evens out finished fat-tree routes.
 *
 * ftree routes one destination at a time against forecast loads; on a
 * degraded tree that leaves some links above what the remaining links
 * allow. This pass works on the finished tables and measures what verify
 * measures: the all-to-all load of every directed switch link, and, where
 * every shift permutation (host i -> i + k, hosts in leaf/port order).
 *
 * A move re-points one switch z's entry for one CA base LID to another
 * neighbour, taking every source behind z with it. Moves keep routes
 * up*\/down*: an up-routed z moves to another upper neighbour whose path
 * does not come back through z, a down-routed z to another lower
 * neighbour that goes on down (or is the destination's leaf). So the
 * channel dependency graph stays acyclic and every pair stays reachable.
 *   1. All-to-all: sources move off the busiest link to paths whose links
 *      all stay below its load; where a flat stretch of near-busiest links
 *      stops that, a pass over every destination moves sources wherever
 *      the sum of squared loads drops. Until within 1 % of the bound.
 *   2. Shifts: every (shift, link) above the shift's bound + 1 (the larger
 *      of the per-switch and the pair bound) moves one of its flows by the
 *      move that lowers the total excess most; failing that, a swap of two
 *      destinations' ports at one switch, or a move that adds no excess
 *      followed by single moves that clear what it pushed over. The
 *      all-to-all load may rise to 20 % over its bound meanwhile...
 *   3. ...and step 1 runs again, now refusing moves that add shift excess.
 * Step 2 needs a counter per (shift, link). Where those do not fit
 * (balance_bytes, 64 MiB by default: about 5 000 hosts) it works by parts
 * instead, with the all-to-all load held to 5 % over its bound (or where
 * step 1 left it), as no step 3 follows: the leaves' links first, whose
 * shift loads are cheap to compute as needed (balance_leaf.c), then each
 * upper component in turn with counters for its links alone
 * (balance_shift.c).
 * Work is bounded by counts, not time, so the result is deterministic.
 * This file: the search's state, step 1 and the rounds; paths and moves
 * are balance_move.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "routing/balance_int.h"
#include "routing/engine.h"
#include "routing/routing.h"

static uint32_t busiest(const struct bal *b)
{
	return b->cid[b->mt[1]];
}

/* The largest load of a compact link but e's. */
static uint64_t runner_up(const struct bal *b, uint32_t e)
{
	uint64_t m = 0;

	for (uint32_t i = b->mtsize + b->ci[e]; i > 1; i /= 2) {
		uint32_t x = b->mt[i ^ 1];
		if (x != RG_NONE && b->load[b->cid[x]] > m)
			m = b->load[b->cid[x]];
	}
	return m;
}

/*
 * Phase 1 for the current tree: the move of a source subtree off link e
 * (load m) that leaves the smallest max(m - moved, new path max); 1 if it
 * lowers e without raising anything to m.
 */
static int a2a_move(struct bal *b, uint32_t e, uint64_t m)
{
	const struct rgraph *g = b->g;
	uint32_t nsub = bal_subtree(b, b->tail[e]), bz = RG_NONE;
	uint64_t bkey = m;
	uint8_t bq = 0;
	struct path op, np;

	memcpy(b->cand, b->sub, nsub * sizeof(*b->cand));
	for (uint32_t i = 0; i < nsub; i++) {
		uint32_t z = b->cand[i];
		uint64_t f = b->flow[z];
		if (!f || !bal_path_from(b, z, &op))
			continue;
		for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, z, k);
			for (uint32_t j = 0; j < gr->n; j++) {
				uint8_t q = g->gports[gr->first + j];
				b->work += op.n;
				if (q == b->cur[z] || !bal_new_path(b, z, q, &np) ||
				    bal_on_path(&np, e))
					continue;
				uint64_t key = bal_added_max(b, &op, &np, f);
				key = key > m - f ? key : m - f;
				if (key < bkey && bal_shift_ok(b, z, &op, &np)) {
					bkey = key;
					bz = z;
					bq = q;
				}
			}
		}
	}
	if (bz == RG_NONE)
		return 0;
	bal_path_from(b, bz, &op);
	bal_new_path(b, bz, bq, &np);
	bal_apply(b, bz, bq, &op, &np);
	return 1;
}

/* Moves off the busiest link until it drops below the runner-up; returns
 * the number of moves, 0 when it cannot be lowered. */
static uint32_t a2a_step(struct bal *b, uint32_t *cursor, struct balance_stats *st)
{
	uint32_t e = busiest(b), a = b->tail[e], moves = 0;
	uint8_t port = (uint8_t)(e - b->g->sw[a].portbase);
	uint64_t second = runner_up(b, e);

	b->work += b->nsl; /* what the scans for these cost before the max tree: the
			    * work bound still stops where it was measured */
	for (uint32_t i = 0; i < b->n; i++) {
		uint32_t h = (*cursor + i) % b->n, lid = b->g->hosts[h].lid;
		if (b->lft[a][lid] != port || b->g->hosts[h].sw == a)
			continue;
		if (b->work > b->work_lim) {
			st->budget_hit = 1;
			return moves;
		}
		bal_tree(b, h);
		while (b->lft[a][lid] == port && a2a_move(b, e, b->load[e])) {
			moves++;
			*cursor = h;
			if (b->load[e] < second)
				return moves;
		}
	}
	return moves;
}

/*
 * Change of the sum of squared loads if f sources leave links gone and
 * join links added; INT64_MAX if an added link would pass lim.
 */
static int64_t sq_delta(const struct bal *b, const struct path *gone, const struct path *added,
			uint64_t f, uint64_t lim)
{
	int64_t d = 0;

	for (uint32_t i = 0; i < added->n; i++) {
		uint64_t l = b->load[added->id[i]];
		if (l + f > lim)
			return INT64_MAX;
		d += (int64_t)(f * (2 * l + f));
	}
	for (uint32_t i = 0; i < gone->n; i++)
		d -= (int64_t)(f * (2 * b->load[gone->id[i]] - f));
	return d;
}

/* 1 if a link of p carries more than the all-to-all bound (or the fabric
 * is small enough to look at every path). */
static int hot(const struct bal *b, const struct path *p)
{
	if (b->n <= BAL_ALL_PATHS)
		return 1;
	for (uint32_t i = 0; i < p->n; i++)
		if (b->load[p->id[i]] > b->a2a_min)
			return 1;
	return 0;
}

/* The move of z's sources that lowers the sum of squares most; 1 if made;
 * only paths over a hot link are worth the look. */
static int smooth_switch(struct bal *b, uint32_t z, uint64_t lim)
{
	const struct rgraph *g = b->g;
	struct path op, np, gone, added;
	int64_t best = 0;
	uint8_t bq = 0;

	if (!b->flow[z] || !bal_path_from(b, z, &op))
		return 0;
	b->work += op.n;
	if (!hot(b, &op))
		return 0;
	for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, z, k);
		for (uint32_t j = 0; j < gr->n; j++) {
			uint8_t q = g->gports[gr->first + j];
			if (q == b->cur[z] || !bal_new_path(b, z, q, &np))
				continue;
			bal_minus(&op, &np, &gone);
			bal_minus(&np, &op, &added);
			int64_t d = sq_delta(b, &gone, &added, b->flow[z], lim);
			if (d < best && bal_shift_ok(b, z, &op, &np)) {
				best = d;
				bq = q;
			}
		}
	}
	b->work += (uint64_t)g->sw[z].nports * op.n;
	if (!bq)
		return 0;
	bal_new_path(b, z, bq, &np);
	bal_apply(b, z, bq, &op, &np);
	return 1;
}

/*
 * One pass over every destination and switch, moving sources where that
 * lowers the sum of squared loads without passing the busiest load: flat
 * stretches of near-busiest links stop a pure max search, this spreads
 * them. Returns the number of moves.
 */
static uint32_t smooth_pass(struct bal *b, uint32_t *zs, struct balance_stats *st)
{
	uint32_t moves = 0;
	uint64_t lim = b->load[busiest(b)];

	for (uint32_t h = 0; h < b->n; h++) {
		if (b->work > b->work_lim) {
			st->budget_hit = 1;
			break;
		}
		bal_tree(b, h);
		uint32_t nz = b->norder;
		memcpy(zs, b->order, nz * sizeof(*zs));
		for (uint32_t i = 1; i < nz; i++)
			moves += (uint32_t)smooth_switch(b, zs[i], lim);
	}
	return moves;
}

/* All-to-all loads of the current tables (sources are hosts). */
static void loads(struct bal *b)
{
	for (uint32_t h = 0; h < b->n; h++) {
		bal_tree(b, h);
		for (uint32_t i = 1; i < b->norder; i++) {
			uint32_t s = b->order[i];
			b->load[b->g->sw[s].portbase + b->cur[s]] += b->flow[s];
		}
	}
}

static void bal_init(struct bal *b, const struct rgraph *g, uint8_t **lft, const uint32_t *rank)
{
	uint32_t n = g->nsw ? g->nsw : 1;

	memset(b, 0, sizeof(*b));
	b->g = g;
	b->lft = lft;
	b->rank = rank;
	b->n = g->nhosts;
	b->nsw = g->nsw;
	b->load = rg_xcalloc(g->nlinks, sizeof(*b->load));
	b->peer = rg_xmalloc(g->nlinks, sizeof(*b->peer));
	b->tail = rg_xmalloc(g->nlinks, sizeof(*b->tail));
	b->ci = rg_xmalloc(g->nlinks, sizeof(*b->ci));
	b->cid = rg_xmalloc(g->nlinks, sizeof(*b->cid));
	b->links = rg_xcalloc(n, sizeof(*b->links));
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t p = 0; p <= g->sw[s].nports; p++) {
			uint32_t id = g->sw[s].portbase + p;
			b->peer[id] = p ? rg_port_peer_sw(g, s, (uint8_t)p) : RG_NONE;
			b->tail[id] = s;
			b->ci[id] = RG_NONE;
			if (b->peer[id] != RG_NONE) {
				b->ci[id] = b->nsl;
				b->cid[b->nsl++] = id;
				b->links[s]++;
			}
		}
	b->nxt = rg_xmalloc(n, sizeof(*b->nxt));
	b->flow = rg_xcalloc(n, sizeof(*b->flow));
	b->cstart = rg_xcalloc(n + 1, sizeof(*b->cstart));
	b->cfill = rg_xcalloc(n, sizeof(*b->cfill));
	b->clist = rg_xcalloc(n, sizeof(*b->clist));
	b->order = rg_xcalloc(n, sizeof(*b->order));
	b->intree = rg_xcalloc(n, sizeof(*b->intree));
	b->sub = rg_xcalloc(n, sizeof(*b->sub));
	/* bal_tree() reads one LFT entry per switch: a row per destination keeps
	 * those in one cache line run instead of one miss per switch */
	b->rows = rg_xmalloc((size_t)g->nhosts * n, 1);
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t h = 0; h < g->nhosts; h++)
			b->rows[(size_t)h * n + s] = lft[s][g->hosts[h].lid];
	b->cand = rg_xcalloc(n, sizeof(*b->cand));
	b->sci = rg_xmalloc(g->nlinks, sizeof(*b->sci));
	b->scid = rg_xmalloc(g->nlinks, sizeof(*b->scid));
	for (uint32_t i = 0; i < g->nlinks; i++)
		b->sci[i] = RG_NONE;
	b->comp = rg_xmalloc(n, sizeof(*b->comp));
	b->cone = rg_xmalloc(n, sizeof(*b->cone));
	b->cmark = rg_xcalloc(n, sizeof(*b->cmark));
	b->js = rg_xmalloc(g->nhosts, sizeof(*b->js));
	b->lidx = rg_xmalloc(n, sizeof(*b->lidx));
	b->ccur = RG_NONE;
	b->ecnt = rg_xcalloc(g->nlinks, sizeof(*b->ecnt));
	b->swap_reach = 2;
	b->work_lim = BAL_WORK;
	for (b->mtsize = 1; b->mtsize < b->nsl; b->mtsize *= 2)
		;
	b->mt = rg_xmalloc(2 * (size_t)b->mtsize, sizeof(*b->mt));
	bal_mt_build(b);
}

static void bal_free(struct bal *b)
{
	free(b->mt);
	free(b->load);
	free(b->peer);
	free(b->tail);
	free(b->ci);
	free(b->cid);
	free(b->links);
	free(b->nxt);
	free(b->flow);
	free(b->cstart);
	free(b->cfill);
	free(b->clist);
	free(b->order);
	free(b->intree);
	free(b->sub);
	free(b->rows);
	free(b->cand);
	bal_shift_reset(b);
	free(b->sci);
	free(b->scid);
	free(b->comp);
	free(b->cone);
	free(b->cmark);
	free(b->js);
	free(b->lidx);
	free(b->ecnt);
}

/* The verifier's all-to-all bound: sources leaving a switch over its
 * switch ports, rounded up, largest over switches. */
static uint64_t a2a_bound(const struct bal *b)
{
	uint64_t bound = 0;

	for (uint32_t s = 0; s < b->nsw; s++) {
		uint64_t h = b->g->sw[s].nhosts, must = h * (b->n - h);
		if (b->links[s] && (must + b->links[s] - 1) / b->links[s] > bound)
			bound = (must + b->links[s] - 1) / b->links[s];
	}
	return bound;
}

/* Max search, then smoothing, until neither lowers the busiest link. */
static void a2a_rounds(struct bal *b, struct balance_stats *st)
{
	uint32_t *zs = rg_xmalloc(b->nsw, sizeof(*zs)), cursor = 0;

	for (int round = 0; round < BAL_ROUNDS; round++) {
		uint64_t before = b->load[busiest(b)];
		uint32_t m;
		while ((m = a2a_step(b, &cursor, st)))
			st->a2a_moves += m;
		/* within 1 % of the bound is as good as it needs to get */
		if (b->load[busiest(b)] <= a2a_bound(b) + a2a_bound(b) / 100)
			break;
		m = smooth_pass(b, zs, st);
		st->a2a_moves += m;
		if (!m || (round && b->load[busiest(b)] >= before))
			break;
	}
	free(zs);
}

/* The current tables (CA-LID entries) and loads into rows and load. */
static void save(const struct bal *b, uint8_t *rows, uint64_t *load)
{
	memcpy(rows, b->rows, (size_t)b->n * b->nsw);
	memcpy(load, b->load, b->g->nlinks * sizeof(*load));
}

/* Tables and loads back from save(); load NULL: leave the loads. */
static void restore(struct bal *b, const uint8_t *rows, const uint64_t *load)
{
	memcpy(b->rows, rows, (size_t)b->n * b->nsw);
	if (load)
		memcpy(b->load, load, b->g->nlinks * sizeof(*load));
	bal_mt_build(b);
	for (uint32_t h = 0; h < b->n; h++)
		for (uint32_t s = 0; s < b->nsw; s++)
			if (s != b->g->hosts[h].sw)
				b->lft[s][b->g->hosts[h].lid] = rows[(size_t)h * b->nsw + s];
	b->dest = RG_NONE;
}

/* The shift phase, then (with every shift counted) all-to-all again,
 * adding no shift excess. */
static void shift_run(struct bal *b, struct balance_stats *st)
{
	bal_shift_phase(b, st);
	if (b->sc) {
		a2a_rounds(b, st);
		st->a2a_after = b->load[busiest(b)];
		st->shift_over_after = bal_shift_over(b);
	}
}

/* The per-switch bound + 1 where shortest paths allow it (every shift
 * counted), then all-to-all again. */
static void tighten(struct bal *b, int recount, struct balance_stats *st)
{
	bal_shift_tighten(b, recount, st);
	if (!st->tight_before || !b->sc)
		return;
	a2a_rounds(b, st);
	st->a2a_after = b->load[busiest(b)];
	st->shift_over_after = bal_shift_over_bound(b);
	st->tight_after = bal_shift_over(b);
}

/*
 * shift_run(); where every shift is counted, the fabric is small and some
 * (shift, link) stays over its limit, again from the same tables with the
 * sweeps starting elsewhere and swaps looking further, up to BAL_RESTARTS
 * runs in all: the search ends in a local optimum that depends on its
 * order. The best run's tables are kept.
 */
static void shifts_and_back(struct bal *b, struct balance_stats *st)
{
	size_t nr = (size_t)b->n * b->nsw;
	uint8_t *rows0 = NULL, *best = NULL;
	uint64_t *load0 = NULL, *bload = NULL;
	struct balance_stats st0 = *st, bst = *st;
	int restored = 0;

	if (b->n <= BAL_RESTART_HOSTS) {
		rows0 = rg_xmalloc(nr, 1);
		load0 = rg_xmalloc(b->g->nlinks, sizeof(*load0));
		save(b, rows0, load0);
	}
	shift_run(b, st);
	for (uint32_t v = 1; rows0 && b->sc && st->shift_over_after && v < BAL_RESTARTS &&
	     b->work <= b->work_lim; v++) {
		if (!best || st->shift_over_after < bst.shift_over_after) {
			best = best ? best : rg_xmalloc(nr, 1);
			bload = bload ? bload : rg_xmalloc(b->g->nlinks, sizeof(*bload));
			save(b, best, bload);
			bst = *st;
		}
		bal_shift_reset(b);
		restore(b, rows0, load0);
		*st = st0;
		b->sweep_from = v / 2;
		b->swap_reach = v % 2 ? 32 : 2;
		shift_run(b, st);
	}
	if (best && st->shift_over_after > bst.shift_over_after) {
		restore(b, best, bload);
		*st = bst;
		restored = 1;
	}
	tighten(b, restored, st);
	free(rows0);
	free(load0);
	free(best);
	free(bload);
}

void route_balance(const struct rgraph *g, uint8_t **lft, const uint32_t *rank,
		   int shifts, uint64_t shift_bytes, struct balance_stats *st)
{
	struct bal b;

	memset(st, 0, sizeof(*st));
	if (g->nhosts < 2 || !g->nsw)
		return;
	if ((uint64_t)g->nhosts * g->nsw > BAL_ROWS_BYTES) {
		st->too_big = 1;
		return;
	}
	bal_init(&b, g, lft, rank);
	b.shift_bytes = shift_bytes ? shift_bytes : BAL_SHIFT_BYTES;
	if (b.nsl) {
		loads(&b);
		bal_mt_build(&b);
		b.a2a_min = a2a_bound(&b);
		b.windows = shifts && (uint64_t)(b.n - 1) * b.nsl > b.shift_bytes;
		st->a2a_before = b.load[busiest(&b)];
		a2a_rounds(&b, st);
		st->a2a_after = b.load[busiest(&b)];
		/* shifts may spend all-to-all slack, up to 20 % over the bound... */
		b.a2a_lim = a2a_bound(&b) + a2a_bound(&b) / 5;
		b.a2a_lim = b.a2a_lim > st->a2a_after ? b.a2a_lim : st->a2a_after;
		/* no pass after the components wins back what they spend: 5 % */
		if (b.windows)
			b.a2a_lim = st->a2a_after > a2a_bound(&b) + a2a_bound(&b) / 20 ?
				st->a2a_after : a2a_bound(&b) + a2a_bound(&b) / 20;
		if (shifts)
			shifts_and_back(&b, st);
	}
	bal_free(&b);
}

/* The shift part of route_balance_ctx()'s report. */
static void why_shifts(struct rctx *c, const struct balance_stats *st, int shifts)
{
	uint32_t rounds = st->shift_rounds ? (uint32_t)st->shift_rounds : 1;

	if (st->leaf_done)
		route_why(c, ", shifts by parts: on leaf links %u moves, %u (shift, link) pairs "
			  "left above bound + 1; above the leaves %u -> %u (%u moves, %u via a "
			  "leaf; %u of %u upper components counted, rounds: %u)",
			  st->leaf_moves, st->leaf_over, st->shift_over_before,
			  st->shift_over_after, st->shift_moves, st->shift_escapes,
			  st->shift_parts / rounds, st->shift_comps, rounds);
	else if (st->shifts_done)
		route_why(c, ", (shift, link) pairs above bound + 1: %u -> %u (%u moves)",
			  st->shift_over_before, st->shift_over_after, st->shift_moves);
	if ((st->leaf_done || st->shifts_done) && st->tight_before)
		route_why(c, "; above the per-switch bound + 1 where the pair bound allows it%s: "
			  "%u -> %u", st->leaf_done ? " (above the leaves)" : "",
			  st->tight_before, st->tight_after);
	if (st->leaf_done || st->shifts_done)
		return;
	if (st->parts_too_big)
		route_why(c, ", shifts not balanced (counters for one upper component would "
			  "pass %llu MiB)", (unsigned long long)(c->o->balance_bytes ?
			  c->o->balance_bytes : BAL_SHIFT_BYTES) >> 20);
	else if (st->shift_overflow)
		route_why(c, ", shifts not balanced (a link carries over 254 routes of one)");
	else if (shifts)
		route_why(c, ", shifts not balanced (too many hosts)");
}

void route_balance_ctx(struct rctx *c, const uint32_t *rank, int shifts)
{
	struct balance_stats st;

	route_balance(c->g, c->lft, rank, shifts, c->o->balance_bytes, &st);
	if (st.too_big) {
		route_why(c, "; too big to balance (hosts x switches over %llu)",
			  (unsigned long long)BAL_ROWS_BYTES);
		return;
	}
	if (!st.a2a_moves && !st.shift_moves && !st.shift_over_before && !st.budget_hit &&
	    !st.leaf_moves && !st.leaf_over)
		return;
	route_why(c, "; balanced: all-to-all %llu -> %llu (%u moves)",
		  (unsigned long long)st.a2a_before, (unsigned long long)st.a2a_after,
		  st.a2a_moves);
	why_shifts(c, &st, shifts);
	if (st.budget_hit)
		route_why(c, ", stopped at the work bound");
}
