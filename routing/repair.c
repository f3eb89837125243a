/*
 * DOC: route repair, minimal-change rerouting (see repair.h).
 *
 * The fresh tables F (route_compute on the new fabric) define what must be
 * reachable and, through the engine's up/down order, what is legal: ftree
 * ranks switches by hops from the CA leaves, updn by BFS hops from its
 * roots; either way a path that goes up zero or more times and then only
 * down cannot close a credit loop on one VL, whichever LIDs use it.
 *
 * Per destination LID (a "column" of the LFTs) every switch's previous
 * path is walked once, memoised: it still works when it reaches the
 * destination's switch over links that exist, without a loop. Pass 1 does
 * that for every column and adds the working paths' all-to-all traffic to
 * the link loads. Pass 2 fixes the columns with broken or missing entries,
 * switches nearest the destination (legal distance) first: a switch picks
 * among the neighbours one legal hop closer whose path already works and
 * has the right shape (down-only after a down hop), the port whose path's
 * busiest link is least loaded, then the port with the fewest LIDs, then
 * the lowest port; its own hosts' traffic is added along the new path, so
 * the next switch of the same column sees it; that per-column spreading
 * is what keeps the links into a leaf that lost an uplink near its bound.
 * A next switch that carries none of the column's traffic may move to a
 * better port of its own too: engines leave such latent entries
 * unbalanced (ftree's take the uplinks in turn, blind to loads), and trusting
 * them piles the rerouted traffic up.
 * Switch LIDs (management traffic) skip the up/down rules: mostly only
 * the switches whose old entry leads nowhere re-pick, and the switches
 * above them keep their entries (see fix_mgmt).
 * A column whose result does not reach everything F reaches, or loops, is
 * redone once re-picking also the working entries that break updn's "go
 * down when you can" rule, and then falls back to F's column. Pass 3
 * checks the channel dependency graph of all CA LIDs. A cycle (kept paths
 * legal under the old order but not the new one, e.g. after updn's root
 * moved) triggers a second run that keeps only paths legal under the new
 * order; a cycle after that returns F.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/graph.h"
#include "routing/reach.h"
#include "routing/repair.h"

#define INF UINT32_MAX

/* Path states; the valid ones say how the path goes under the up/down order. */
enum { S_BAD = 1, S_LOOP, S_PEND, S_DROP, S_INPROG, S_DOWN, S_LEGAL, S_ANY };
enum src { SRC_PREV, SRC_OUT, SRC_FRESH };

struct col {
	uint32_t lid, a;  /* destination LID and the switch it hangs off */
	uint8_t weight;   /* 1: a host's base LID, counts for all-to-all load */
	uint8_t host;     /* CA LID: credit loops matter */
};

struct rep {
	const struct rgraph *g;
	const struct route_tables *prev;
	/* prev, fresh and output LFTs, column-major (cell lid * nsw + switch):
	 * every pass walks one LID across all switches */
	uint8_t *pc, *fc, *oc;
	int strict;              /* keep only paths legal under the new order */
	uint32_t *key;           /* up/down order: a hop to a smaller key is up */
	uint32_t *order;         /* switches by key ascending */
	uint32_t *dd, *rd;       /* down-only and legal distance to col.a */
	uint32_t *byrd;          /* switches by rd ascending, unreachable last */
	uint32_t *stamp, cur;
	uint8_t *st, *fst;       /* walk state: current table, fresh table */
	uint32_t *nx, *stack;
	uint64_t *w;             /* all-to-all load per directed link id */
	uint32_t *cnt;           /* LIDs routed per directed link id */
	struct col *cols;
	uint32_t ncols;
	uint8_t *need;           /* per column: has entries to fix */
	uint64_t *cdg;           /* 4 words (256 output ports) per link id */
	uint32_t *chpeer;        /* far switch of every link id with edges */
	uint32_t *peer;          /* per link id: peer switch or RG_NONE */
	uint32_t *busy, bcur;    /* busy[s] == bcur: traffic of the column passes s */
	uint64_t broken, fallbacks;
};

static int valid(uint8_t s)
{
	return s >= S_DOWN;
}

/* rg_port_peer_sw() from a table: this is the innermost step of every walk. */
static uint32_t peer_of(const struct rep *r, uint32_t s, uint8_t p)
{
	if (p == 0 || p > r->g->sw[s].nports)
		return RG_NONE;
	return r->peer[r->g->sw[s].portbase + p];
}

#define CELL(tab, r, s, lid) ((tab)[(size_t)(lid) * (r)->g->nsw + (s)])

static uint8_t prev_raw(const struct rep *r, uint32_t s, uint32_t lid)
{
	const struct route_tables *p = r->prev;
	uint32_t node = r->g->sw[s].node;

	if (!p->lft || node >= p->nnodes || !p->lft[node].ports || lid > p->top)
		return LFT_NO_PORT;
	return p->lft[node].ports[lid];
}

static uint8_t entry(const struct rep *r, enum src src, uint32_t s, uint32_t lid)
{
	if (src == SRC_PREV)
		return CELL(r->pc, r, s, lid);
	return CELL(src == SRC_OUT ? r->oc : r->fc, r, s, lid);
}

/* State of a path that takes x -> y and then y's path (state sy). */
static uint8_t compose(const struct rep *r, const struct col *c, uint32_t x, uint32_t y,
		       uint8_t sy)
{
	uint8_t s;

	if (!valid(sy))
		return sy == S_LOOP ? S_LOOP : S_BAD;
	if (r->key[y] > r->key[x])
		s = sy == S_DOWN ? S_DOWN : S_ANY;
	else
		s = sy == S_ANY ? S_ANY : S_LEGAL;
	if (s == S_ANY && r->strict && c->host)
		return S_BAD;
	return s;
}

/* One hop of x in table src: the next switch, or RG_NONE and *fin. */
static uint32_t hop(const struct rep *r, enum src src, const struct col *c, uint32_t x,
		    uint8_t *fin)
{
	uint8_t p = entry(r, src, x, c->lid);

	if (x == c->a) {
		*fin = p == CELL(r->fc, r, x, c->lid) ? S_DOWN : S_BAD;
		return RG_NONE;
	}
	uint32_t y = p == LFT_NO_PORT ? RG_NONE : peer_of(r, x, p);
	*fin = S_BAD;
	return y;
}

/* Walks x's path in table src, memoised in st[] for the current stamp. */
static uint8_t walk(struct rep *r, enum src src, const struct col *c, uint32_t x)
{
	uint32_t n = 0, s = x, g_n = r->g->nsw;
	uint8_t fin;

	while (r->stamp[s] != r->cur && n <= g_n) {
		r->stamp[s] = r->cur;
		r->st[s] = S_INPROG;
		uint32_t y = hop(r, src, c, s, &fin);
		if (y == RG_NONE) {
			r->st[s] = fin;
			break;
		}
		r->nx[s] = y;
		r->stack[n++] = s;
		s = y;
	}
	fin = r->st[s] == S_INPROG ? S_LOOP : r->st[s];
	while (n--) {
		uint32_t y = r->stack[n];
		fin = compose(r, c, y, r->nx[y], fin);
		r->st[y] = fin;
	}
	return r->st[x];
}

static void walk_all(struct rep *r, enum src src, const struct col *c)
{
	r->cur++;
	for (uint32_t s = 0; s < r->g->nsw; s++)
		walk(r, src, c, s);
}

static uint32_t link_id(const struct rep *r, uint32_t s, uint8_t p)
{
	return r->g->sw[s].portbase + p;
}

/* Sources of all-to-all traffic that enter the fabric at switch s. */
static uint32_t sources(const struct rep *r, const struct col *c, uint32_t s)
{
	if (!c->weight)
		return 0;
	return r->g->sw[s].nhosts - (s == c->a);
}

/* Adds wgt to every link of s's path in the output table. */
static void add_flow(struct rep *r, const struct col *c, uint32_t s, uint64_t wgt)
{
	for (uint32_t i = 0; wgt && s != c->a && i < r->g->nsw; i++) {
		uint8_t p = CELL(r->oc, r, s, c->lid);
		uint32_t y = peer_of(r, s, p);
		if (y == RG_NONE)
			return;
		r->w[link_id(r, s, p)] += wgt;
		r->busy[s] = r->bcur;
		s = y;
	}
}

/* Busiest link of s's path in the output table. */
static uint64_t path_max(const struct rep *r, const struct col *c, uint32_t s)
{
	uint64_t m = 0;

	for (uint32_t i = 0; s != c->a && i < r->g->nsw; i++) {
		uint8_t p = CELL(r->oc, r, s, c->lid);
		uint32_t y = peer_of(r, s, p);
		if (y == RG_NONE)
			break;
		if (r->w[link_id(r, s, p)] > m)
			m = r->w[link_id(r, s, p)];
		s = y;
	}
	return m;
}

/*
 * Pass 1 for one column: keeps what works (into the output table and the
 * loads) and says whether anything needs fixing.
 */
static int keep_column(struct rep *r, const struct col *c)
{
	const struct rgraph *g = r->g;
	int need = 0;

	walk_all(r, SRC_PREV, c);
	for (uint32_t s = 0; s < g->nsw; s++) {
		uint8_t p = CELL(r->pc, r, s, c->lid);
		if (!valid(r->st[s])) {
			r->broken += p != LFT_NO_PORT;
			need |= p != LFT_NO_PORT || CELL(r->fc, r, s, c->lid) != LFT_NO_PORT;
			continue;
		}
		CELL(r->oc, r, s, c->lid) = p;
		r->cnt[link_id(r, s, p)]++;
	}
	/* after the loop: add_flow follows entries of switches written in it */
	for (uint32_t s = 0; s < g->nsw; s++)
		if (valid(r->st[s]))
			add_flow(r, c, s, sources(r, c, s));
	return need;
}

/* updn's distances to switch a: down-only (children first), then legal. */
static void distances(struct rep *r, uint32_t a)
{
	const struct rgraph *g = r->g;

	for (uint32_t s = 0; s < g->nsw; s++)
		r->dd[s] = r->rd[s] = INF;
	r->dd[a] = 0;
	for (uint32_t i = g->nsw; i-- > 0;) {
		uint32_t s = r->order[i];
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			uint32_t y = rg_group(g, s, k)->peer;
			if (r->key[y] > r->key[s] && r->dd[y] != INF && r->dd[y] + 1 < r->dd[s])
				r->dd[s] = r->dd[y] + 1;
		}
	}
	for (uint32_t i = 0; i < g->nsw; i++) {
		uint32_t s = r->order[i];
		r->rd[s] = r->dd[s];
		if (r->rd[s] != INF)
			continue;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			uint32_t y = rg_group(g, s, k)->peer;
			if (r->key[y] < r->key[s] && r->rd[y] != INF && r->rd[y] + 1 < r->rd[s])
				r->rd[s] = r->rd[y] + 1;
		}
	}
}

/* byrd = switches by legal distance (counting sort), unreachable last. */
static void sort_by_rd(struct rep *r)
{
	uint32_t n = r->g->nsw, *first = rg_xcalloc(n + 2, sizeof(*first));

	for (uint32_t s = 0; s < n; s++)
		first[(r->rd[s] == INF ? n : r->rd[s]) + 1]++;
	for (uint32_t i = 1; i <= n + 1; i++)
		first[i] += first[i - 1];
	for (uint32_t s = 0; s < n; s++)
		r->byrd[first[r->rd[s] == INF ? n : r->rd[s]]++] = s;
	free(first);
}

/* Can x (legal distance rd[x]) take neighbour y, given y's path state? */
static int legal_next(const struct rep *r, uint32_t x, uint32_t y)
{
	if (r->dd[x] != INF)
		return r->key[y] > r->key[x] && r->dd[y] != INF && r->dd[y] + 1 == r->dd[x] &&
		       r->st[y] == S_DOWN;
	return r->key[y] < r->key[x] && r->rd[y] != INF && r->rd[y] + 1 == r->rd[x] &&
	       (r->st[y] == S_DOWN || r->st[y] == S_LEGAL);
}

/* 1 if no traffic of column c passes switch y (its entry is latent). */
static int idle(const struct rep *r, const struct col *c, uint32_t y)
{
	return c->weight && y != c->a && r->busy[y] != r->bcur;
}

/* 1 if the output path of s to c.a passes switch y. */
static int passes(const struct rep *r, const struct col *c, uint32_t s, uint32_t y)
{
	for (uint32_t i = 0; s != RG_NONE && s != c->a && i < r->g->nsw; i++) {
		if (s == y)
			return 1;
		s = peer_of(r, s, CELL(r->oc, r, s, c->lid));
	}
	return 0;
}

/*
 * Legal port of x whose path has the least loaded busiest link (*cost),
 * then the fewest LIDs, then the lowest number; LFT_NO_PORT if none.
 * deep: a next switch that carries no traffic of this column counts with
 * the best port it could take instead (pick() then moves it there): an
 * engine's latent entries need not be balanced, so trusting them would
 * pile the rerouted traffic onto whatever port they happen to name.
 */
static uint8_t best_port(const struct rep *r, const struct col *c, uint32_t x, int deep,
			 uint64_t *cost)
{
	const struct rgraph *g = r->g;
	uint64_t best_m = UINT64_MAX, alt;
	uint32_t best_n = UINT32_MAX;
	uint8_t best = LFT_NO_PORT;

	for (uint32_t k = 0; k < g->sw[x].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, x, k);
		uint32_t y = gr->peer;
		if (!legal_next(r, x, y) || (!deep && passes(r, c, y, x)))
			continue;
		uint64_t bn = path_max(r, c, y);
		if (deep && idle(r, c, y) && best_port(r, c, y, 0, &alt) != LFT_NO_PORT && alt < bn)
			bn = alt;
		for (uint32_t i = 0; i < gr->n; i++) {
			uint8_t p = g->gports[gr->first + i];
			uint32_t id = link_id(r, x, p);
			uint64_t m = r->w[id] > bn ? r->w[id] : bn;
			if (m < best_m || (m == best_m && (r->cnt[id] < best_n ||
			    (r->cnt[id] == best_n && p < best)))) {
				best_m = m;
				best_n = r->cnt[id];
				best = p;
			}
		}
	}
	*cost = best_m;
	return best;
}

/* Moves idle switch y to its best port when that beats its path now. */
static void repoint(struct rep *r, const struct col *c, uint32_t y)
{
	uint64_t alt;
	uint8_t q = best_port(r, c, y, 0, &alt);

	if (q == LFT_NO_PORT || alt >= path_max(r, c, y))
		return;
	uint8_t old = CELL(r->oc, r, y, c->lid);
	r->cnt[link_id(r, y, old)]--;
	r->cnt[link_id(r, y, q)]++;
	CELL(r->oc, r, y, c->lid) = q;
	uint32_t z = peer_of(r, y, q);
	r->st[y] = compose(r, c, y, z, r->st[z]);
}

/* Port for broken entry x: its old one if that works again, else the best. */
static uint8_t pick(struct rep *r, const struct col *c, uint32_t x)
{
	uint8_t was = CELL(r->pc, r, x, c->lid);
	uint32_t y = peer_of(r, x, was);
	uint64_t cost;

	/* the old port works again once the next switch is fixed: no change */
	if (y != RG_NONE && legal_next(r, x, y))
		return was;
	uint8_t p = best_port(r, c, x, 1, &cost);
	y = peer_of(r, x, p);
	if (y != RG_NONE && idle(r, c, y))
		repoint(r, c, y);
	return p;
}

/* Decides one broken or missing entry of x. */
static void fix_entry(struct rep *r, const struct col *c, uint32_t x)
{
	uint8_t f = CELL(r->fc, r, x, c->lid);

	if (x == c->a || f == LFT_NO_PORT) {
		CELL(r->oc, r, x, c->lid) = x == c->a ? f : LFT_NO_PORT;
		r->st[x] = x == c->a ? S_DOWN : S_BAD;
		return;
	}
	uint8_t p = pick(r, c, x);
	if (p == LFT_NO_PORT) {
		/* no legal way over working paths: F's entry, judged below */
		CELL(r->oc, r, x, c->lid) = f;
		r->st[x] = S_PEND;
		return;
	}
	uint32_t y = peer_of(r, x, p);
	CELL(r->oc, r, x, c->lid) = p;
	r->st[x] = compose(r, c, x, y, r->st[y]);
	r->cnt[link_id(r, x, p)]++;
	add_flow(r, c, x, sources(r, c, x));
}

/* The working neighbour of x with the fewest LIDs, lowest port; or none. */
static uint8_t any_working(const struct rep *r, uint32_t x)
{
	const struct rgraph *g = r->g;
	uint32_t best_n = UINT32_MAX;
	uint8_t best = LFT_NO_PORT;

	for (uint32_t k = 0; k < g->sw[x].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, x, k);
		if (!valid(r->st[gr->peer]))
			continue;
		for (uint32_t i = 0; i < gr->n; i++) {
			uint8_t p = g->gports[gr->first + i];
			uint32_t n = r->cnt[link_id(r, x, p)];
			if (n < best_n || (n == best_n && p < best)) {
				best_n = n;
				best = p;
			}
		}
	}
	return best;
}

/* Keeps every broken entry whose old next switch works again; 1 if any. */
static int cascade(struct rep *r, const struct col *c)
{
	int any = 0, more = 1;

	while (more) {
		more = 0;
		for (uint32_t x = 0; x < r->g->nsw; x++) {
			if (r->st[x] != S_BAD)
				continue;
			uint8_t p = CELL(r->pc, r, x, c->lid);
			uint32_t y = peer_of(r, x, p);
			if (y == RG_NONE || !valid(r->st[y]))
				continue;
			CELL(r->oc, r, x, c->lid) = p;
			r->st[x] = S_ANY;
			more = any = 1;
		}
	}
	return any;
}

/*
 * One layer: broken switches next to a working one take it. breaks_only:
 * only those whose old entry leads nowhere (the others may work again
 * without a change once the break below them is fixed).
 */
static int attach(struct rep *r, const struct col *c, int breaks_only, uint32_t only)
{
	int any = 0;

	for (uint32_t x = 0; x < r->g->nsw; x++) {
		if (r->st[x] != S_BAD || (only != RG_NONE && x != only))
			continue;
		uint32_t y = peer_of(r, x, CELL(r->pc, r, x, c->lid));
		if (breaks_only && y != RG_NONE && r->st[y] != S_DROP)
			continue;
		uint8_t p = any_working(r, x);
		if (p == LFT_NO_PORT)
			continue;
		CELL(r->oc, r, x, c->lid) = p;
		r->cnt[link_id(r, x, p)]++;
		r->st[x] = S_PEND; /* works, but no base for this layer */
		any = 1;
	}
	for (uint32_t x = 0; x < r->g->nsw; x++)
		if (r->st[x] == S_PEND)
			r->st[x] = S_ANY;
	return any;
}

/*
 * When no break has a working neighbour: the broken switch with one that
 * sits fewest old hops above its break, so that the break can take it next.
 */
static uint32_t nearest_break(const struct rep *r, const struct col *c)
{
	const struct rgraph *g = r->g;
	uint32_t best = RG_NONE, bestd = INF;

	for (uint32_t x = 0; x < g->nsw; x++) {
		if (r->st[x] != S_BAD || any_working(r, x) == LFT_NO_PORT)
			continue;
		uint32_t d = 0, y = x;
		while (d < bestd && d <= g->nsw && y != RG_NONE && r->st[y] == S_BAD) {
			y = peer_of(r, y, CELL(r->pc, r, y, c->lid));
			d++;
		}
		if (d < bestd) {
			bestd = d;
			best = x;
		}
	}
	return best;
}

/*
 * Switch LIDs carry management traffic only (SMPs on VL15, a trickle of
 * GMPs), and the engines do not keep them up/down either (ftree patches
 * them, verify leaves them out of the CDG). So broken entries just attach
 * to the part that works, and keep their old port whenever its next
 * switch works again. No distances needed, which matters because a fault
 * breaks the switch LID routes of many switches at once. The one-at-a-time
 * rounds are capped so that a pathological table cannot cost nsw^2.
 */
static void fix_mgmt(struct rep *r, const struct col *c)
{
	const struct rgraph *g = r->g;
	int more = 1;

	for (uint32_t x = 0; x < g->nsw; x++)
		if (!valid(r->st[x]) && (x == c->a || CELL(r->fc, r, x, c->lid) == LFT_NO_PORT)) {
			CELL(r->oc, r, x, c->lid) = x == c->a ? CELL(r->fc, r, x, c->lid) : LFT_NO_PORT;
			r->st[x] = x == c->a ? S_DOWN : S_DROP;
		} else if (!valid(r->st[x])) {
			r->st[x] = S_BAD;
		}
	for (uint32_t round = 0; more; round++) {
		more = cascade(r, c);
		more |= attach(r, c, 1, RG_NONE);
		if (!more)
			more = attach(r, c, 0, round < 8 ? nearest_break(r, c) : RG_NONE);
	}
}

/* 1 if the output column reaches everything F's does, without a loop. */
static int column_ok(struct rep *r, const struct col *c)
{
	const struct rgraph *g = r->g;

	walk_all(r, SRC_FRESH, c);
	memcpy(r->fst, r->st, g->nsw);
	walk_all(r, SRC_OUT, c);
	for (uint32_t s = 0; s < g->nsw; s++)
		if (r->st[s] == S_LOOP || (valid(r->fst[s]) && !valid(r->st[s])))
			return 0;
	return 1;
}

/*
 * One try at a column. canon: also re-pick working entries of switches
 * that could go down but do not (updn's rule), so that a switch above
 * them that must go down finds a down-only path to take.
 */
static int fix_try(struct rep *r, const struct col *c, int canon)
{
	const struct rgraph *g = r->g;

	walk_all(r, SRC_PREV, c);
	r->bcur++;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (valid(r->st[s]))
			CELL(r->oc, r, s, c->lid) = CELL(r->pc, r, s, c->lid);
		for (uint32_t x = s; c->weight && sources(r, c, s) && valid(r->st[s]) &&
		     x != c->a && r->busy[x] != r->bcur; x = r->nx[x])
			r->busy[x] = r->bcur;
	}
	for (uint32_t s = 0; canon && s < g->nsw; s++)
		if (valid(r->st[s]) && r->dd[s] != INF && r->st[s] != S_DOWN)
			r->st[s] = S_BAD;
	if (!c->host)
		fix_mgmt(r, c);
	for (uint32_t i = 0; c->host && i < g->nsw; i++) {
		uint32_t x = r->byrd[i];
		if (!valid(r->st[x]))
			fix_entry(r, c, x);
	}
	return column_ok(r, c);
}

/*
 * Pass 2 for one column; host columns need their distances in dd/rd. A
 * retry leaves the loads of the first try in w (they only steer choices).
 */
static void fix_column(struct rep *r, const struct col *c)
{
	if (fix_try(r, c, 0) || (c->host && fix_try(r, c, 1)))
		return;
	for (uint32_t x = 0; x < r->g->nsw; x++)
		CELL(r->oc, r, x, c->lid) = CELL(r->fc, r, x, c->lid);
	r->fallbacks++;
}

static void cdg_add(struct rep *r, uint32_t x, uint8_t p, uint32_t y, uint8_t q)
{
	uint32_t id = link_id(r, x, p);

	r->cdg[4u * id + q / 64] |= 1ULL << (q % 64);
	r->chpeer[id] = y;
}

/* Channel dependencies of column c: every hop pair on a source's path. */
static void cdg_column(struct rep *r, const struct col *c)
{
	const struct rgraph *g = r->g;

	r->cur++;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (!(g->sw[s].nhosts - (s == c->a)))
			continue;
		for (uint32_t x = s; x != c->a && r->stamp[x] != r->cur;) {
			r->stamp[x] = r->cur;
			uint8_t p = CELL(r->oc, r, x, c->lid);
			uint32_t y = peer_of(r, x, p);
			if (y == RG_NONE)
				break;
			uint8_t q = CELL(r->oc, r, y, c->lid);
			if (y != c->a && peer_of(r, y, q) != RG_NONE)
				cdg_add(r, x, p, y, q);
			x = y;
		}
	}
}

struct cframe {
	uint32_t id;
	uint32_t word;
	uint64_t left;
};

/* Iterative DFS over channels; colour 1 = on the stack, 2 = done. */
static int cdg_cyclic(struct rep *r)
{
	const struct rgraph *g = r->g;
	uint8_t *colour = rg_xcalloc(g->nlinks, 1);
	struct cframe *stk = rg_xmalloc(g->nlinks + 1u, sizeof(*stk));
	int cyc = 0;

	for (uint32_t s = 0; s < g->nlinks && !cyc; s++) {
		const uint64_t *b = &r->cdg[4u * s];
		if (colour[s] || !(b[0] | b[1] | b[2] | b[3]))
			continue;
		uint32_t n = 0;
		stk[n++] = (struct cframe){ s, 0, b[0] };
		colour[s] = 1;
		while (n && !cyc) {
			struct cframe *f = &stk[n - 1];
			while (!f->left && f->word < 3)
				f->left = r->cdg[4u * f->id + ++f->word];
			if (!f->left) {
				colour[f->id] = 2;
				n--;
				continue;
			}
			uint32_t q = f->word * 64 + (uint32_t)__builtin_ctzll(f->left);
			f->left &= f->left - 1;
			uint32_t t = g->sw[r->chpeer[f->id]].portbase + q;
			if (colour[t] == 1)
				cyc = 1;
			else if (!colour[t]) {
				colour[t] = 1;
				stk[n++] = (struct cframe){ t, 0, r->cdg[4u * t] };
			}
		}
	}
	free(colour);
	free(stk);
	return cyc;
}

/* One full repair with the current strictness; 1 if the CDG is acyclic. */
static int run(struct rep *r)
{
	const struct rgraph *g = r->g;
	uint32_t lasta = RG_NONE;

	r->broken = r->fallbacks = 0;
	memset(r->w, 0, g->nlinks * sizeof(*r->w));
	memset(r->cnt, 0, g->nlinks * sizeof(*r->cnt));
	memcpy(r->oc, r->fc, (g->top + 1u) * (size_t)g->nsw);
	for (uint32_t i = 0; i < r->ncols; i++)
		r->need[i] = (uint8_t)keep_column(r, &r->cols[i]);
	for (uint32_t i = 0; i < r->ncols; i++) {
		if (!r->need[i])
			continue;
		if (r->cols[i].host && r->cols[i].a != lasta) {
			lasta = r->cols[i].a;
			distances(r, lasta);
			sort_by_rd(r);
		}
		fix_column(r, &r->cols[i]);
	}
	memset(r->cdg, 0, 4u * g->nlinks * sizeof(*r->cdg));
	for (uint32_t i = 0; i < r->ncols; i++)
		if (r->cols[i].host)
			cdg_column(r, &r->cols[i]);
	return !cdg_cyclic(r);
}

/* Destination columns: per switch (GUID order) its CA LIDs, then its own. */
static void make_cols(struct rep *r)
{
	const struct rgraph *g = r->g;

	r->cols = rg_xmalloc(g->top + 1u, sizeof(*r->cols));
	r->ncols = 0;
	for (uint32_t a = 0; a < g->nsw; a++) {
		const struct rg_sw *w = &g->sw[a];
		for (uint32_t h = w->hfirst; h < w->hfirst + w->nhosts; h++)
			for (uint32_t i = 0; i < g->hosts[h].nlids; i++)
				r->cols[r->ncols++] = (struct col){ g->hosts[h].lid + i, a, i == 0, 1 };
		if (w->lid)
			r->cols[r->ncols++] = (struct col){ w->lid, a, 0, 0 };
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* key = rank * nsw + index; order = switches by key. */
static void keys_from_ranks(struct rep *r, const uint32_t *rank, uint32_t unranked)
{
	uint32_t n = r->g->nsw;

	for (uint32_t s = 0; s < n; s++)
		r->key[s] = (rank[s] == INF ? unranked : rank[s]) * n + s;
	memcpy(r->order, r->key, n * sizeof(*r->key));
	qsort(r->order, n, sizeof(*r->order), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		r->order[i] %= n;
}

/* ftree's order: hops from the nearest CA leaf, leaves at the bottom. */
static void ftree_keys(struct rep *r, uint32_t *rank, uint32_t *queue)
{
	const struct rgraph *g = r->g;
	uint32_t n = 0, top = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].nhosts)
			queue[n++] = s;
	memcpy(r->stack, queue, n * sizeof(*queue));
	rg_bfs(g, r->stack, n, rank, queue);
	for (uint32_t s = 0; s < g->nsw; s++)
		if (rank[s] != INF && rank[s] > top)
			top = rank[s];
	for (uint32_t s = 0; s < g->nsw; s++)
		if (rank[s] != INF)
			rank[s] = top - rank[s];
	keys_from_ranks(r, rank, top + 1);
}

/* updn's roots: the override, else per component the switch of least
 * eccentricity, lowest GUID on ties (the rule updn.c documents). */
static uint32_t updn_roots(struct rep *r, const struct route_opts *o, uint32_t *roots,
			   uint32_t *dist, uint32_t *queue)
{
	const struct rgraph *g = r->g;
	uint32_t n = 0;

	if (o && o->nroots) {
		for (size_t i = 0; i < o->nroots; i++)
			for (uint32_t s = 0; s < g->nsw; s++)
				if (g->t->nodes[g->sw[s].node].guid == o->root_guids[i] && n < g->nsw)
					roots[n++] = s;
		return n;
	}
	uint32_t *comp = rg_xmalloc(g->nsw, sizeof(*comp));
	for (uint32_t s = 0; s < g->nsw; s++)
		comp[s] = INF;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (comp[s] != INF)
			continue;
		rg_bfs(g, &s, 1, dist, queue);
		uint32_t best = s, beste = INF;
		for (uint32_t x = 0; x < g->nsw; x++)
			if (dist[x] != INF)
				comp[x] = s;
		for (uint32_t x = 0; x < g->nsw; x++) {
			if (comp[x] != s)
				continue;
			uint32_t e = rg_bfs(g, &x, 1, dist, queue);
			if (e < beste) {
				beste = e;
				best = x;
			}
		}
		roots[n++] = best;
	}
	free(comp);
	return n;
}

static void updn_keys(struct rep *r, const struct route_opts *o, uint32_t *rank,
		      uint32_t *queue)
{
	uint32_t *roots = rg_xmalloc(r->g->nsw, sizeof(*roots));
	uint32_t n = updn_roots(r, o, roots, rank, queue);

	rg_bfs(r->g, roots, n, rank, queue);
	keys_from_ranks(r, rank, r->g->nsw);
	free(roots);
}

/*
 * Without cols: returns the column-major copy of rt's switch LFTs (LIDs
 * past rt->top, or tables that are missing, read as LFT_NO_PORT). With
 * cols: writes them back into rt's rows. Blocks of switches keep both
 * sides in cache.
 */
static uint8_t *transpose(const struct rep *r, uint8_t *cols, const struct route_tables *rt)
{
	const struct rgraph *g = r->g;
	uint32_t n = g->nsw, top = g->top, lim = cols ? top : rt->top < top ? rt->top : top;
	uint8_t *c = cols ? cols : rg_xmalloc((top + 1u) * (size_t)(n ? n : 1), 1);
	uint8_t **rows = rg_xcalloc(n ? n : 1, sizeof(*rows));

	if (!cols)
		memset(c, LFT_NO_PORT, (top + 1u) * (size_t)n);
	for (uint32_t s = 0; s < n; s++)
		if (rt->lft && g->sw[s].node < rt->nnodes)
			rows[s] = rt->lft[g->sw[s].node].ports;
	for (uint32_t s0 = 0; s0 < n; s0 += 64) {
		uint32_t s1 = s0 + 64 < n ? s0 + 64 : n;
		for (uint32_t lid = 0; lid <= lim; lid++) {
			uint8_t *cell = c + (size_t)lid * n;
			for (uint32_t s = s0; s < s1; s++) {
				if (!rows[s])
					continue;
				if (cols)
					rows[s][lid] = cell[s];
				else
					cell[s] = rows[s][lid];
			}
		}
	}
	free(rows);
	return c;
}

static void rep_init(struct rep *r, const struct rgraph *g, const struct route_tables *prev,
		     const struct route_tables *fresh)
{
	uint32_t n = g->nsw ? g->nsw : 1;

	memset(r, 0, sizeof(*r));
	r->g = g;
	r->prev = prev;
	r->key = rg_xmalloc(n, sizeof(*r->key));
	r->order = rg_xmalloc(n, sizeof(*r->order));
	r->dd = rg_xmalloc(n, sizeof(*r->dd));
	r->rd = rg_xmalloc(n, sizeof(*r->rd));
	r->byrd = rg_xmalloc(n, sizeof(*r->byrd));
	r->stamp = rg_xcalloc(n, sizeof(*r->stamp));
	r->st = rg_xcalloc(n, 1);
	r->fst = rg_xcalloc(n, 1);
	r->nx = rg_xcalloc(n, sizeof(*r->nx));
	r->stack = rg_xcalloc(n + 1, sizeof(*r->stack));
	r->w = rg_xcalloc(g->nlinks, sizeof(*r->w));
	r->cnt = rg_xcalloc(g->nlinks, sizeof(*r->cnt));
	r->cdg = rg_xcalloc(4u * g->nlinks, sizeof(*r->cdg));
	r->chpeer = rg_xcalloc(g->nlinks, sizeof(*r->chpeer));
	r->peer = rg_xmalloc(g->nlinks, sizeof(*r->peer));
	r->busy = rg_xcalloc(n, sizeof(*r->busy));
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t p = 0; p <= g->sw[s].nports; p++)
			r->peer[g->sw[s].portbase + p] = rg_port_peer_sw(g, s, (uint8_t)p);
	r->pc = transpose(r, NULL, prev);
	r->fc = transpose(r, NULL, fresh);
	r->oc = rg_xmalloc((g->top + 1u) * (size_t)n, 1);
	make_cols(r);
	r->need = rg_xcalloc(r->ncols + 1u, 1);
}

static void rep_free(struct rep *r)
{
	free(r->pc);
	free(r->fc);
	free(r->oc);
	free(r->key);
	free(r->order);
	free(r->dd);
	free(r->rd);
	free(r->byrd);
	free(r->stamp);
	free(r->st);
	free(r->fst);
	free(r->nx);
	free(r->stack);
	free(r->w);
	free(r->cnt);
	free(r->cdg);
	free(r->chpeer);
	free(r->peer);
	free(r->busy);
	free(r->cols);
	free(r->need);
}

/* changed / kept against prev, over every LID either table covers. */
static void count_changes(const struct route_tables *prev, const struct route_tables *out,
			  struct route_repair_stats *st)
{
	uint32_t top = out->top > prev->top ? out->top : prev->top;

	for (uint32_t n = 0; n < out->nnodes; n++) {
		const uint8_t *o = out->lft[n].ports;
		const uint8_t *p = prev->lft && n < prev->nnodes ? prev->lft[n].ports : NULL;
		if (!o)
			continue;
		for (uint32_t lid = 0; lid <= top; lid++) {
			uint8_t a = lid <= out->top ? o[lid] : LFT_NO_PORT;
			uint8_t b = p && lid <= prev->top ? p[lid] : LFT_NO_PORT;
			st->changed += a != b;
			st->kept += a == b && b != LFT_NO_PORT;
		}
	}
}

/* Routed prev entries for LIDs that are no destination any more. */
static uint64_t stale_entries(const struct rep *r)
{
	const struct rgraph *g = r->g;
	uint8_t *isdest = rg_xcalloc(r->prev->top + 1u, 1);
	uint64_t n = 0;

	for (uint32_t i = 0; i < r->ncols; i++)
		if (r->cols[i].lid <= r->prev->top)
			isdest[r->cols[i].lid] = 1;
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t lid = 1; lid <= r->prev->top; lid++)
			n += !isdest[lid] && prev_raw(r, s, lid) != LFT_NO_PORT;
	free(isdest);
	return n;
}

/* Switches send replies and traps too: whatever the repaired columns
 * leave a switch without (a kept path's end changed), it gets. */
static uint64_t reach_out(const struct rgraph *g, struct route_tables *out)
{
	uint8_t **rows = rg_xcalloc(g->nsw ? g->nsw : 1, sizeof(*rows));
	struct reach_stats st;

	for (uint32_t s = 0; s < g->nsw; s++)
		rows[s] = out->lft[g->sw[s].node].ports;
	reach_fill(g, rows, out->top, &st);
	free(rows);
	return st.filled;
}

/* Runs the repair on g; 0 with out's switch LFTs replaced, or -1. */
static int repair_on(const struct rgraph *g, const struct route_opts *o,
		     const struct route_tables *prev, struct route_tables *out,
		     struct route_repair_stats *st, char *why, size_t whylen)
{
	struct rep r;
	uint32_t *rank = rg_xmalloc(g->nsw + 1u, sizeof(*rank));
	uint32_t *queue = rg_xmalloc(g->nsw + 1u, sizeof(*queue));
	int ok;

	rep_init(&r, g, prev, out);
	if (!strcmp(out->engine, "ftree"))
		ftree_keys(&r, rank, queue);
	else
		updn_keys(&r, o, rank, queue);
	ok = run(&r);
	if (!ok) {
		r.strict = 1;
		ok = run(&r);
	}
	st->broken = r.broken + stale_entries(&r);
	if (ok) {
		transpose(&r, r.oc, out);
		uint64_t added = reach_out(g, out);
		snprintf(why, whylen, "%s%llu column(s) fell back to %s%s", r.strict ?
			 "kept paths legal under the new up/down order only; " : "",
			 (unsigned long long)r.fallbacks, out->engine,
			 added ? "; entries added for switches' own packets" : "");
	} else {
		snprintf(why, whylen, "repaired tables have a credit loop");
	}
	free(rank);
	free(queue);
	rep_free(&r);
	return ok ? 0 : -1;
}

int route_repair(const struct topo *t, const struct route_opts *o, const struct route_tables *prev,
		 struct route_tables *out, struct route_repair_stats *st)
{
	struct rgraph g;
	char err[200], why[200];
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (route_compute(t, o, out))
		return -1;
	if (prev->nnodes != t->nnodes || !prev->lft)
		snprintf(why, sizeof(why), "previous tables do not match the fabric");
	else if (strcmp(out->engine, "ftree") && strcmp(out->engine, "updn"))
		snprintf(why, sizeof(why), "%s has no up/down order to repair within", out->engine);
	else if (rg_build(&g, t, err, sizeof(err)))
		snprintf(why, sizeof(why), "%s", err);
	else {
		rc = repair_on(&g, o, prev, out, st, why, sizeof(why));
		rg_free(&g);
	}
	st->used_fresh = rc != 0;
	count_changes(prev, out, st);
	char fresh_why[sizeof(out->why)];
	memcpy(fresh_why, out->why, sizeof(fresh_why));
	snprintf(out->why, sizeof(out->why), "%s, %llu entries changed: %.90s (%.100s)",
		 rc ? "fresh tables, repair not used" : "repair", (unsigned long long)st->changed,
		 why, fresh_why);
	return 0;
}

struct guid_node {
	uint64_t guid;
	uint32_t node;
};

static int cmp_guid_node(const void *a, const void *b)
{
	const struct guid_node *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Switches of old that have a table, sorted by GUID; NULL on a repeat. */
static struct guid_node *old_switches(const struct topo *old, const struct route_tables *prev,
				      uint32_t *n)
{
	struct guid_node *v = rg_xmalloc(old->nnodes, sizeof(*v));

	*n = 0;
	for (uint32_t i = 0; i < old->nnodes; i++)
		if (old->nodes[i].type == TOPO_SWITCH && prev->lft[i].ports)
			v[(*n)++] = (struct guid_node){ old->nodes[i].guid, i };
	qsort(v, *n, sizeof(*v), cmp_guid_node);
	for (uint32_t i = 1; i < *n; i++)
		if (v[i].guid == v[i - 1].guid) {
			free(v);
			return NULL;
		}
	return v;
}

int route_tables_remap(const struct topo *old, const struct route_tables *prev,
		       const struct topo *t, struct route_tables *out)
{
	uint32_t n;
	struct guid_node *v;

	memset(out, 0, sizeof(*out));
	if (prev->nnodes != old->nnodes || !prev->lft || !(v = old_switches(old, prev, &n)))
		return -1;
	out->nnodes = t->nnodes;
	out->top = prev->top;
	out->lft = rg_xcalloc(t->nnodes, sizeof(*out->lft));
	memcpy(out->engine, prev->engine, sizeof(out->engine));
	memcpy(out->why, prev->why, sizeof(out->why));
	for (uint32_t i = 0; i < t->nnodes; i++) {
		struct guid_node key = { t->nodes[i].guid, 0 };
		const struct guid_node *hit = t->nodes[i].type != TOPO_SWITCH ? NULL :
			bsearch(&key, v, n, sizeof(*v), cmp_guid_node);
		if (!hit)
			continue;
		out->lft[i].ports = rg_xmalloc(prev->top + 1u, 1);
		memcpy(out->lft[i].ports, prev->lft[hit->node].ports, prev->top + 1u);
	}
	free(v);
	return 0;
}
