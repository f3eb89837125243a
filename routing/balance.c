/*
 * DOC: balance, a local search that evens out finished fat-tree routes.
 *
 * ftree routes one destination at a time against forecast loads; on a
 * degraded tree that leaves some links above what the remaining links
 * allow. This pass works on the finished tables and measures what verify
 * measures: the all-to-all load of every directed switch link, and, where
 * the fabric is small enough for a counter per (shift, link), the
 * congestion of every shift permutation (host i -> i + k, hosts in
 * leaf/port order).
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
 * Work is bounded by counts, not time, so the result is deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "routing/balance.h"
#include "routing/engine.h"
#include "routing/pairbound.h"
#include "routing/routing.h"

#define BAL_SHIFT_BYTES (64u << 20) /* largest shift counter array */
#define BAL_WORK (1000ull << 20)    /* ~switch visits, all steps together */
#define BAL_ROUNDS 12               /* max search, then smoothing, rounds */
#define BAL_SWEEPS 4                /* shift phase sweeps */
#define BAL_LOG 64                  /* moves one chain may make */
#define BAL_ALL_PATHS 4096          /* hosts up to which smoothing tries every path */
/* Largest hosts x switches balanced (the copy of the CA-LID entries): a
 * pass then stays within the work bound (on 39 366 hosts and 3 645 switches
 * the first smoothing pass ran out of it without lowering anything). */
#define BAL_ROWS_BYTES (1ull << 25)
#define BAL_WINDOW 256             /* largest leaf (hosts) window_ok() watches */
#define BAL_WINDOW_SLACK 2         /* routes over a leaf's share one window may hold */
#define BAL_PATH 64                 /* longest path considered */

struct path {
	uint32_t n, id[BAL_PATH];
};

struct bal_move {
	uint32_t dest, z;
	uint8_t q;
};

struct bal {
	const struct rgraph *g;
	uint8_t **lft;
	uint8_t *rows;      /* [host * nsw + s]: lft[s][host's LID], kept in step */
	uint8_t *cur;       /* the row of the destination being looked at */
	const uint32_t *rank;
	uint32_t n, nsw, nsl;
	uint64_t *load;     /* per link id: all-to-all sources */
	uint32_t *peer;     /* per link id: peer switch or RG_NONE */
	uint32_t *tail;     /* per link id: switch */
	uint32_t *ci;       /* per link id: compact switch link or RG_NONE */
	uint32_t *cid;      /* per compact link: link id */
	uint32_t *links;    /* per switch: switch ports (shift bounds) */
	/* the in-tree of destination host dest */
	uint32_t dest, lid, root, stamp;
	uint32_t *nxt, *flow, *cstart, *cfill, *clist, *order, *intree, norder;
	uint32_t *sub;      /* subtree scratch */
	uint32_t *cand;     /* switches a2a_move tries */
	uint8_t *sc;        /* [row * nsl + compact link] */
	uint8_t *slim;      /* per shift: bound + 1 */
	uint32_t *srow;     /* per shift: its row in sc, RG_NONE if not tracked */
	uint32_t *trk, ntrk;/* the tracked shifts */
	struct bal_move log[BAL_LOG];
	uint32_t nlog;
	int logging;        /* apply() records what it changes, for undo() */
	int windows;        /* shifts wanted but not countable: window_ok() */
	uint64_t a2a_lim;
	uint64_t a2a_min;   /* the all-to-all bound */
	uint64_t work;
};

static uint32_t hop(const struct bal *b, uint32_t s)
{
	uint8_t p = b->cur[s];

	if (p == LFT_NO_PORT || !p || p > b->g->sw[s].nports)
		return RG_NONE;
	return b->peer[b->g->sw[s].portbase + p];
}

/* Children lists, BFS order from the root and source counts of host h. */
static void tree(struct bal *b, uint32_t h)
{
	const struct rgraph *g = b->g;
	uint32_t head = 0;

	b->dest = h;
	b->cur = b->rows + (size_t)h * b->nsw;
	b->lid = g->hosts[h].lid;
	b->root = g->hosts[h].sw;
	b->stamp++;
	b->work += b->nsw;
	memset(b->cstart, 0, (b->nsw + 1) * sizeof(*b->cstart));
	for (uint32_t s = 0; s < b->nsw; s++) {
		b->nxt[s] = s == b->root ? RG_NONE : hop(b, s);
		if (b->nxt[s] != RG_NONE)
			b->cstart[b->nxt[s] + 1]++;
	}
	for (uint32_t s = 0; s < b->nsw; s++)
		b->cstart[s + 1] += b->cstart[s];
	memcpy(b->cfill, b->cstart, b->nsw * sizeof(*b->cfill));
	for (uint32_t s = 0; s < b->nsw; s++)
		if (b->nxt[s] != RG_NONE)
			b->clist[b->cfill[b->nxt[s]]++] = s;
	b->norder = 0;
	b->order[b->norder++] = b->root;
	b->intree[b->root] = b->stamp;
	while (head < b->norder) {
		uint32_t y = b->order[head++];
		b->flow[y] = y == b->root ? 0 : g->sw[y].nhosts;
		for (uint32_t i = b->cstart[y]; i < b->cstart[y + 1]; i++) {
			b->intree[b->clist[i]] = b->stamp;
			b->order[b->norder++] = b->clist[i];
		}
	}
	for (uint32_t i = b->norder; i-- > 1;)
		b->flow[b->nxt[b->order[i]]] += b->flow[b->order[i]];
}

/* Switches whose path goes through z (z first) into b->sub; their count. */
static uint32_t subtree(struct bal *b, uint32_t z)
{
	uint32_t head = 0, tail = 0;

	b->sub[tail++] = z;
	while (head < tail) {
		uint32_t y = b->sub[head++];
		for (uint32_t i = b->cstart[y]; i < b->cstart[y + 1]; i++)
			b->sub[tail++] = b->clist[i];
	}
	b->work += tail;
	return tail;
}

/* Link ids from s to the root; 0 if too long. */
static int path_from(const struct bal *b, uint32_t s, struct path *p)
{
	p->n = 0;
	for (; s != b->root; s = b->nxt[s]) {
		if (p->n == BAL_PATH || s == RG_NONE)
			return 0;
		p->id[p->n++] = b->g->sw[s].portbase + b->cur[s];
	}
	return 1;
}

static int on_path(const struct path *p, uint32_t id)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->id[i] == id)
			return 1;
	return 0;
}

/*
 * The path z takes if its entry becomes port q, into np; 0 if q is not a
 * move that keeps the routes up*\/down* and loop-free.
 */
static int new_path(const struct bal *b, uint32_t z, uint8_t q, struct path *np)
{
	uint32_t id = b->g->sw[z].portbase + q, w = b->peer[id], cur = b->nxt[z];

	if (w == RG_NONE || b->intree[w] != b->stamp || b->rank[w] == UINT32_MAX)
		return 0;
	if (b->rank[cur] > b->rank[z]) {
		if (b->rank[w] != b->rank[z] + 1)
			return 0;
	} else if (b->rank[w] + 1 != b->rank[z] ||
		   (w != b->root && b->rank[b->nxt[w]] > b->rank[w])) {
		return 0;
	}
	np->n = 1;
	np->id[0] = id;
	for (uint32_t s = w; s != b->root; s = b->nxt[s]) {
		if (s == z || np->n == BAL_PATH)
			return 0;
		np->id[np->n++] = b->g->sw[s].portbase + b->cur[s];
	}
	return 1;
}

/* Links of a not on c, into out. */
static void minus(const struct path *a, const struct path *c, struct path *out)
{
	out->n = 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (!on_path(c, a->id[i]))
			out->id[out->n++] = a->id[i];
}

/* Shift of source host j towards the current destination. */
static uint32_t shift_of(const struct bal *b, uint32_t j)
{
	return (b->dest + b->n - j) % b->n;
}

/* Counters of shift sh, NULL if it is not tracked. */
static uint8_t *row_of(const struct bal *b, uint32_t sh)
{
	return b->srow[sh] == RG_NONE ? NULL : b->sc + (size_t)b->srow[sh] * b->nsl;
}

/* Adds d (+1/-1) to the shift counters of every source behind z on links p. */
static void shift_add(struct bal *b, uint32_t nsub, const struct path *p, int d)
{
	const struct rgraph *g = b->g;

	for (uint32_t i = 0; i < nsub; i++) {
		const struct rg_sw *sw = &g->sw[b->sub[i]];
		for (uint32_t j = sw->hfirst; j < sw->hfirst + sw->nhosts; j++) {
			uint8_t *row = row_of(b, shift_of(b, j));
			for (uint32_t k = 0; row && k < p->n; k++)
				row[b->ci[p->id[k]]] = (uint8_t)(row[b->ci[p->id[k]]] + d);
		}
	}
}

/* Moves z's entry to port q (op: its path now, np: then). */
static void apply(struct bal *b, uint32_t z, uint8_t q, const struct path *op,
		  const struct path *np)
{
	struct path gone, added;
	uint64_t f = b->flow[z];

	minus(op, np, &gone);
	minus(np, op, &added);
	for (uint32_t i = 0; i < gone.n; i++)
		b->load[gone.id[i]] -= f;
	for (uint32_t i = 0; i < added.n; i++)
		b->load[added.id[i]] += f;
	if (b->sc) {
		uint32_t nsub = subtree(b, z);
		shift_add(b, nsub, &gone, -1);
		shift_add(b, nsub, &added, 1);
	}
	if (b->logging && b->nlog < BAL_LOG)
		b->log[b->nlog++] = (struct bal_move){ b->dest, z, b->cur[z] };
	b->lft[z][b->lid] = q;
	b->cur[z] = q;
	tree(b, b->dest);
}

static int shift_ok(struct bal *b, uint32_t z, const struct path *op, const struct path *np);

/* The largest all-to-all load on the links np adds to op, with f more. */
static uint64_t added_max(const struct bal *b, const struct path *op, const struct path *np,
			  uint64_t f)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < np->n; i++)
		if (!on_path(op, np->id[i]) && b->load[np->id[i]] + f > m)
			m = b->load[np->id[i]] + f;
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
	uint32_t nsub = subtree(b, b->tail[e]), bz = RG_NONE;
	uint64_t bkey = m;
	uint8_t bq = 0;
	struct path op, np;

	memcpy(b->cand, b->sub, nsub * sizeof(*b->cand));
	for (uint32_t i = 0; i < nsub; i++) {
		uint32_t z = b->cand[i];
		uint64_t f = b->flow[z];
		if (!f || !path_from(b, z, &op))
			continue;
		for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, z, k);
			for (uint32_t j = 0; j < gr->n; j++) {
				uint8_t q = g->gports[gr->first + j];
				b->work += op.n;
				if (q == b->cur[z] || !new_path(b, z, q, &np) ||
				    on_path(&np, e))
					continue;
				uint64_t key = added_max(b, &op, &np, f);
				key = key > m - f ? key : m - f;
				if (key < bkey && shift_ok(b, z, &op, &np)) {
					bkey = key;
					bz = z;
					bq = q;
				}
			}
		}
	}
	if (bz == RG_NONE)
		return 0;
	path_from(b, bz, &op);
	new_path(b, bz, bq, &np);
	apply(b, bz, bq, &op, &np);
	return 1;
}

static uint32_t busiest(const struct bal *b)
{
	uint32_t best = b->cid[0];

	for (uint32_t c = 1; c < b->nsl; c++)
		if (b->load[b->cid[c]] > b->load[best])
			best = b->cid[c];
	return best;
}

/* The largest load of a switch link other than e. */
static uint64_t runner_up(const struct bal *b, uint32_t e)
{
	uint64_t m = 0;

	for (uint32_t c = 0; c < b->nsl; c++)
		if (b->cid[c] != e && b->load[b->cid[c]] > m)
			m = b->load[b->cid[c]];
	return m;
}

/* Moves off the busiest link until it drops below the runner-up; returns
 * the number of moves, 0 when it cannot be lowered. */
static uint32_t a2a_step(struct bal *b, uint32_t *cursor, struct balance_stats *st)
{
	uint32_t e = busiest(b), a = b->tail[e], moves = 0;
	uint8_t port = (uint8_t)(e - b->g->sw[a].portbase);
	uint64_t second = runner_up(b, e);

	b->work += b->nsl;
	for (uint32_t i = 0; i < b->n; i++) {
		uint32_t h = (*cursor + i) % b->n, lid = b->g->hosts[h].lid;
		if (b->lft[a][lid] != port || b->g->hosts[h].sw == a)
			continue;
		if (b->work > BAL_WORK) {
			st->budget_hit = 1;
			return moves;
		}
		tree(b, h);
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

	if (!b->flow[z] || !path_from(b, z, &op))
		return 0;
	b->work += op.n;
	if (!hot(b, &op))
		return 0;
	for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, z, k);
		for (uint32_t j = 0; j < gr->n; j++) {
			uint8_t q = g->gports[gr->first + j];
			if (q == b->cur[z] || !new_path(b, z, q, &np))
				continue;
			minus(&op, &np, &gone);
			minus(&np, &op, &added);
			int64_t d = sq_delta(b, &gone, &added, b->flow[z], lim);
			if (d < best && shift_ok(b, z, &op, &np)) {
				best = d;
				bq = q;
			}
		}
	}
	b->work += (uint64_t)g->sw[z].nports * op.n;
	if (!bq)
		return 0;
	new_path(b, z, bq, &np);
	apply(b, z, bq, &op, &np);
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
		if (b->work > BAL_WORK) {
			st->budget_hit = 1;
			break;
		}
		tree(b, h);
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
		tree(b, h);
		for (uint32_t i = 1; i < b->norder; i++) {
			uint32_t s = b->order[i];
			b->load[b->g->sw[s].portbase + b->cur[s]] += b->flow[s];
		}
	}
}

/* Per shift: the verifier's bounds (sources leaving each switch over its
 * switch ports, rounded up, largest over switches; the pair bound) + 1. */
static void shift_limits(struct bal *b)
{
	const struct rgraph *g = b->g;
	uint32_t *cnt = rg_xcalloc(b->nsw, sizeof(*cnt));
	struct pair_bound pb;

	pair_bound_init(&pb, g);
	for (uint32_t t = 0; t < b->ntrk; t++) {
		uint32_t bound = 0, k = b->trk[t];
		for (uint32_t j = 0; j < b->n; j++)
			if (g->hosts[j].sw != g->hosts[(j + k) % b->n].sw)
				cnt[g->hosts[j].sw]++;
		for (uint32_t s = 0; s < b->nsw; s++) {
			if (cnt[s] && b->links[s]) {
				uint32_t need = (cnt[s] + b->links[s] - 1) / b->links[s];
				bound = need > bound ? need : bound;
			}
			cnt[s] = 0;
		}
		uint32_t p = pair_bound_shift(&pb, k);
		bound = p > bound ? p : bound;
		b->slim[k] = (uint8_t)(bound + 1 > 250 ? 250 : bound + 1);
	}
	b->work += (uint64_t)b->ntrk * (b->n + b->nsw);
	pair_bound_free(&pb);
	free(cnt);
}

/* Shift counters of the current tables; 0 if one would overflow. */
static int shift_counts(struct bal *b)
{
	const struct rgraph *g = b->g;

	b->dest = RG_NONE; /* rows are walked directly, no tree is kept */
	for (uint32_t t = 0; t < b->ntrk; t++) {
		uint8_t *row = b->sc + (size_t)t * b->nsl;
		for (uint32_t j = 0; j < b->n; j++) {
			uint32_t d = (j + b->trk[t]) % b->n;
			b->cur = b->rows + (size_t)d * b->nsw;
			b->root = g->hosts[d].sw;
			for (uint32_t s = g->hosts[j].sw, h = 0; s != b->root && h < BAL_PATH; h++) {
				uint32_t next = hop(b, s);
				if (next == RG_NONE)
					break; /* unrouted: verify reports it, nothing to balance */
				if (++row[b->ci[g->sw[s].portbase + b->cur[s]]] == 255)
					return 0;
				s = next;
			}
			b->work += 4;
		}
	}
	return 1;
}

/*
 * Change of the total excess over bound + 1, summed over (shift, link),
 * if the sources behind z (in sub, f of them) leave links gone and join
 * links added; INT64_MAX if a link would pass the all-to-all limit.
 */
static int64_t shift_delta(struct bal *b, uint32_t nsub, const struct path *gone,
			   const struct path *added, uint64_t f)
{
	const struct rgraph *g = b->g;
	int64_t d = 0;

	for (uint32_t k = 0; k < added->n; k++)
		if (b->load[added->id[k]] + f > b->a2a_lim)
			return INT64_MAX;
	for (uint32_t i = 0; i < nsub; i++) {
		const struct rg_sw *sw = &g->sw[b->sub[i]];
		for (uint32_t j = sw->hfirst; j < sw->hfirst + sw->nhosts; j++) {
			uint32_t sh = shift_of(b, j);
			const uint8_t *row = row_of(b, sh);
			if (!row)
				continue;
			for (uint32_t k = 0; k < gone->n; k++)
				d -= row[b->ci[gone->id[k]]] > b->slim[sh];
			for (uint32_t k = 0; k < added->n; k++) {
				if (row[b->ci[added->id[k]]] >= 254)
					return INT64_MAX;
				d += row[b->ci[added->id[k]]] >= b->slim[sh];
			}
		}
	}
	b->work += (uint64_t)nsub * 4 + f * (gone->n + added->n);
	return d;
}

/*
 * Where shifts cannot be counted (too many hosts), a leaf's own uplinks
 * are still watched: under a shift the hosts of leaf z send to nhosts(z)
 * consecutive destinations, so a move of z's entry onto port q must leave
 * every such window that holds the destination with at most the leaf's
 * share + BAL_WINDOW_SLACK routes on q. (Tighter, the all-to-all search
 * loses too much; on ft3-36 this takes the worst shift from 9-10 to 7.)
 */
static int window_ok(struct bal *b, uint32_t z, uint32_t q)
{
	uint32_t h = b->g->sw[z].nhosts, n = b->n, run = 0, top = 0;
	uint8_t on[2 * BAL_WINDOW];

	if (b->rank[z] != 0 || !h || h > BAL_WINDOW || 2 * h > n || !b->links[z])
		return 1;
	for (uint32_t i = 0; i < 2 * h - 1; i++) {
		uint32_t d = (b->dest + n - h + 1 + i) % n;
		on[i] = d != b->dest && b->rows[(size_t)d * b->nsw + z] == q;
		run += on[i];
		if (i >= h)
			run -= on[i - h];
		if (i + 1 >= h && run > top)
			top = run;
	}
	b->work += 2 * h;
	return top + 1 <= (h + b->links[z] - 1) / b->links[z] + BAL_WINDOW_SLACK;
}

/* Once shifts are counted, all-to-all moves must not add shift excess;
 * without counters, window_ok() stands in for leaves. */
static int shift_ok(struct bal *b, uint32_t z, const struct path *op, const struct path *np)
{
	struct path gone, added;

	if (!b->sc)
		return !b->windows || window_ok(b, z, np->id[0] - b->g->sw[z].portbase);
	minus(op, np, &gone);
	minus(np, op, &added);
	return shift_delta(b, subtree(b, z), &gone, &added, 0) <= 0;
}

/*
 * Re-points z's entry for destination host d to port q and returns the
 * change of the shift excess; INT64_MAX (nothing done) if that is not a
 * legal move or, when check is set, passes the all-to-all limit.
 */
static int64_t move_to(struct bal *b, uint32_t d, uint32_t z, uint8_t q, int check)
{
	struct path op, np, gone, added;
	int64_t dl = 0;

	if (b->dest != d)
		tree(b, d);
	if (z == b->root || b->intree[z] != b->stamp || q == b->cur[z] ||
	    !path_from(b, z, &op) || !new_path(b, z, q, &np))
		return INT64_MAX;
	if (check) {
		minus(&op, &np, &gone);
		minus(&np, &op, &added);
		dl = shift_delta(b, subtree(b, z), &gone, &added, b->flow[z]);
		if (dl == INT64_MAX)
			return dl;
	}
	apply(b, z, q, &op, &np);
	return dl;
}

/* The switches on source j's path (current tree) from its leaf up to link
 * e's tail, whose entries could take j off e; their count. */
static uint32_t movers(struct bal *b, uint32_t j, uint32_t e, uint32_t *zl)
{
	struct path op;
	uint32_t nz = 0;

	for (uint32_t z = b->g->hosts[j].sw; z != b->root && nz < BAL_PATH; z = b->nxt[z]) {
		if (!path_from(b, z, &op) || !on_path(&op, e))
			break;
		zl[nz++] = z;
		if (b->tail[e] == z)
			break;
	}
	return nz;
}

/*
 * Where no single move helps: z (on source j's path up to link e) swaps
 * ports between the current destination and one nearby in host order
 * (shift windows overlap there), if that lowers the total excess.
 */
static int shift_swap(struct bal *b, uint32_t j, uint32_t e)
{
	const struct rgraph *g = b->g;
	uint32_t d1 = b->dest, zl[BAL_PATH], nz = movers(b, j, e, zl);
	uint32_t span = 2 * g->sw[g->hosts[j].sw].nhosts;

	for (uint32_t i = 0; i < nz; i++) {
		uint32_t z = zl[i];
		for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, z, k);
			for (uint32_t x = 0; x < gr->n; x++) {
				uint8_t q = g->gports[gr->first + x];
				for (uint32_t off = 1; off <= 2 * span && off < b->n; off++) {
					uint32_t d2 = (d1 + b->n + (off & 1 ? off / 2 + 1 : -(off / 2))) % b->n;
					uint32_t lid2 = g->hosts[d2].lid;
					if (b->lft[z][lid2] != q || g->hosts[d2].sw == z)
						continue;
					if (b->work > BAL_WORK)
						return 0;
					uint8_t p1 = b->lft[z][g->hosts[d1].lid];
					int64_t a = move_to(b, d1, z, q, 1);
					if (a == INT64_MAX)
						continue;
					int64_t c = move_to(b, d2, z, p1, 1);
					if (c != INT64_MAX && a + c < 0)
						return 1;
					if (c != INT64_MAX)
						move_to(b, d2, z, q, 0);
					move_to(b, d1, z, p1, 0);
				}
			}
		}
	}
	return 0;
}

static int shift_fix(struct bal *b, uint32_t k, uint32_t c, int depth);

/* Undoes the logged moves, newest first. */
static void undo(struct bal *b)
{
	b->logging = 0;
	while (b->nlog) {
		b->nlog--;
		move_to(b, b->log[b->nlog].dest, b->log[b->nlog].z, b->log[b->nlog].q, 0);
	}
}

/*
 * (shift, link) pairs above bound + 1 on the links added by z's last move
 * for the current tree, at most max of them, into ks/cs.
 */
static uint32_t new_over(struct bal *b, uint32_t z, const struct path *added, uint32_t *ks,
			 uint32_t *cs, uint32_t max)
{
	const struct rgraph *g = b->g;
	uint32_t nsub = subtree(b, z), n = 0;

	for (uint32_t i = 0; i < nsub; i++) {
		const struct rg_sw *sw = &g->sw[b->sub[i]];
		for (uint32_t j = sw->hfirst; j < sw->hfirst + sw->nhosts; j++) {
			uint32_t sh = shift_of(b, j);
			const uint8_t *row = row_of(b, sh);
			for (uint32_t k = 0; row && k < added->n; k++) {
				uint32_t c = b->ci[added->id[k]];
				if (row[c] <= b->slim[sh])
					continue;
				if (n == max)
					return max + 1;
				ks[n] = sh;
				cs[n++] = c;
			}
		}
	}
	return n;
}

/*
 * Where no single move or swap helps: a move that adds no excess by
 * itself, followed by single moves that clear what it pushed over.
 * Kept if all of that succeeds (the total excess then fell), else undone.
 */
static int shift_chain(struct bal *b, uint32_t j, uint32_t e)
{
	const struct rgraph *g = b->g;
	uint32_t d1 = b->dest, zl[BAL_PATH], nz = movers(b, j, e, zl), ks[4], cs[4];
	struct path op, np, added;

	for (uint32_t i = 0; i < nz; i++) {
		uint32_t z = zl[i];
		for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, z, k);
			for (uint32_t x = 0; x < gr->n; x++) {
				uint8_t q = g->gports[gr->first + x];
				if (b->work > BAL_WORK)
					return 0;
				if (b->dest != d1)
					tree(b, d1);
				if (!path_from(b, z, &op) || !new_path(b, z, q, &np) || on_path(&np, e))
					continue;
				minus(&np, &op, &added);
				b->nlog = 0;
				b->logging = 1;
				if (move_to(b, d1, z, q, 1) > 0) {
					undo(b);
					continue;
				}
				uint32_t n = new_over(b, z, &added, ks, cs, 4), ok = n <= 4;
				for (uint32_t y = 0; ok && y < n; y++)
					while (ok && row_of(b, ks[y])[cs[y]] > b->slim[ks[y]])
						ok = b->nlog < BAL_LOG - 1 && shift_fix(b, ks[y], cs[y], 1);
				if (ok) {
					b->logging = 0;
					b->nlog = 0;
					return 1;
				}
				undo(b);
			}
		}
	}
	return 0;
}

/* Moves the flow of source j (current tree) off link e: the move of a
 * switch on its path, from j's leaf up to e, that lowers the total excess
 * most. */
static int shift_move(struct bal *b, uint32_t j, uint32_t e, int depth)
{
	const struct rgraph *g = b->g;
	struct path op, np, gone, added;
	uint32_t bz = RG_NONE;
	int64_t best = 0;
	uint8_t bq = 0;

	for (uint32_t z = g->hosts[j].sw; z != b->root && z != RG_NONE; z = b->nxt[z]) {
		uint32_t nsub = 0;
		if (!path_from(b, z, &op) || !on_path(&op, e))
			break;
		for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, z, k);
			for (uint32_t i = 0; i < gr->n; i++) {
				uint8_t q = g->gports[gr->first + i];
				if (q == b->cur[z] || !new_path(b, z, q, &np) ||
				    on_path(&np, e))
					continue;
				if (!nsub)
					nsub = subtree(b, z);
				minus(&op, &np, &gone);
				minus(&np, &op, &added);
				int64_t d = shift_delta(b, nsub, &gone, &added, b->flow[z]);
				if (d < best) {
					best = d;
					bz = z;
					bq = q;
				}
			}
		}
		if (b->tail[e] == z)
			break;
	}
	if (bz == RG_NONE)
		return !depth && (shift_swap(b, j, e) || shift_chain(b, j, e));
	path_from(b, bz, &op);
	new_path(b, bz, bq, &np);
	apply(b, bz, bq, &op, &np);
	return 1;
}

/* One flow off (shift k, compact link c); 0 if none can move. */
static int shift_fix(struct bal *b, uint32_t k, uint32_t c, int depth)
{
	const struct rgraph *g = b->g;
	uint32_t e = b->cid[c];

	for (uint32_t j = 0; j < b->n; j++) {
		uint32_t d = (j + k) % b->n;
		if (g->hosts[j].sw == g->hosts[d].sw)
			continue;
		b->dest = RG_NONE; /* the tree is not d's: probe d's path only */
		b->cur = b->rows + (size_t)d * b->nsw;
		b->lid = g->hosts[d].lid;
		b->root = g->hosts[d].sw;
		int uses = 0;
		b->work += 8;
		for (uint32_t s = g->hosts[j].sw, n = 0; s != b->root && s != RG_NONE && n < BAL_PATH;
		     s = hop(b, s), n++)
			if (b->g->sw[s].portbase + b->cur[s] == e) {
				uses = 1;
				break;
			}
		if (!uses)
			continue;
		tree(b, d);
		if (shift_move(b, j, e, depth))
			return 1;
	}
	return 0;
}

static uint32_t shift_over(const struct bal *b)
{
	uint32_t over = 0;

	for (uint32_t t = 0; t < b->ntrk; t++)
		for (uint32_t c = 0; c < b->nsl; c++)
			over += b->sc[(size_t)t * b->nsl + c] > b->slim[b->trk[t]];
	return over;
}

/*
 * Every shift, if a counter per (shift, link) fits in BAL_SHIFT_BYTES; 0
 * if not. (Tuning a sample of the shifts was tried on 11 664 hosts: with
 * the base routes that far off it hardly moved and cost seconds.)
 */
static int track_shifts(struct bal *b, struct balance_stats *st)
{
	uint32_t total = b->n - 1;

	if ((uint64_t)total * b->nsl > BAL_SHIFT_BYTES)
		return 0;
	b->ntrk = total;
	b->trk = rg_xmalloc(total, sizeof(*b->trk));
	b->srow = rg_xmalloc(b->n, sizeof(*b->srow));
	b->srow[0] = RG_NONE;
	for (uint32_t t = 0; t < total; t++) {
		b->trk[t] = t + 1;
		b->srow[t + 1] = t;
	}
	st->shifts_tracked = total;
	return 1;
}

static void shift_phase(struct bal *b, struct balance_stats *st)
{
	if (b->n < 3 || !track_shifts(b, st))
		return;
	b->sc = rg_xcalloc((size_t)b->ntrk * b->nsl, 1);
	b->slim = rg_xcalloc(b->n, 1);
	shift_limits(b);
	if (!shift_counts(b)) {
		free(b->sc);
		b->sc = NULL;
		st->shift_overflow = 1;
		return;
	}
	st->shifts_done = 1;
	uint32_t over = st->shift_over_before = shift_over(b);
	/* a fix may push an earlier (shift, link) over: sweep again */
	for (int sweep = 0; sweep < BAL_SWEEPS && over; sweep++) {
		for (uint32_t t = 0; t < b->ntrk; t++)
			for (uint32_t c = 0, k = b->trk[t]; c < b->nsl; c++)
				while (b->sc[(size_t)t * b->nsl + c] > b->slim[k]) {
					if (b->work > BAL_WORK) {
						st->budget_hit = 1;
						goto out;
					}
					if (!shift_fix(b, k, c, 0))
						break;
					st->shift_moves++;
				}
		uint32_t now = shift_over(b);
		if (now >= over)
			break;
		over = now;
	}
out:
	st->shift_over_after = shift_over(b);
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
	/* tree() reads one LFT entry per switch: a row per destination keeps
	 * those in one cache line run instead of one miss per switch */
	b->rows = rg_xmalloc((size_t)g->nhosts * n, 1);
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t h = 0; h < g->nhosts; h++)
			b->rows[(size_t)h * n + s] = lft[s][g->hosts[h].lid];
	b->cand = rg_xcalloc(n, sizeof(*b->cand));
}

static void bal_free(struct bal *b)
{
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
	free(b->sc);
	free(b->slim);
	free(b->srow);
	free(b->trk);
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
		/* on big fabrics the targeted search costs a tree per destination
		 * tried for every move: smoothing alone does more per work */
		while (b->n <= BAL_ALL_PATHS && (m = a2a_step(b, &cursor, st)))
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

void route_balance(const struct rgraph *g, uint8_t **lft, const uint32_t *rank,
		   int shifts, struct balance_stats *st)
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
	if (b.nsl) {
		loads(&b);
		b.a2a_min = a2a_bound(&b);
		b.windows = shifts && (uint64_t)(b.n - 1) * b.nsl > BAL_SHIFT_BYTES;
		st->a2a_before = b.load[busiest(&b)];
		a2a_rounds(&b, st);
		st->a2a_after = b.load[busiest(&b)];
		/* shifts may spend all-to-all slack, up to 20 % over the bound... */
		b.a2a_lim = a2a_bound(&b) + a2a_bound(&b) / 5;
		b.a2a_lim = b.a2a_lim > st->a2a_after ? b.a2a_lim : st->a2a_after;
		if (shifts)
			shift_phase(&b, st);
		if (b.sc) {
			/* and win back what they spent, adding no shift excess */
			a2a_rounds(&b, st);
			st->a2a_after = b.load[busiest(&b)];
			st->shift_over_after = shift_over(&b);
		}
	}
	bal_free(&b);
}

void route_balance_ctx(struct rctx *c, const uint32_t *rank, int shifts)
{
	struct balance_stats st;

	route_balance(c->g, c->lft, rank, shifts, &st);
	if (st.too_big) {
		route_why(c, "; too big to balance (hosts x switches over %llu)",
			  (unsigned long long)BAL_ROWS_BYTES);
		return;
	}
	if (!st.a2a_moves && !st.shift_moves && !st.shift_over_before && !st.budget_hit)
		return;
	route_why(c, "; balanced: all-to-all %llu -> %llu (%u moves)",
		  (unsigned long long)st.a2a_before, (unsigned long long)st.a2a_after,
		  st.a2a_moves);
	if (st.shifts_done)
		route_why(c, ", (shift, link) pairs above bound + 1: %u -> %u (%u moves)",
			  st.shift_over_before, st.shift_over_after, st.shift_moves);
	else if (st.shift_overflow)
		route_why(c, ", shifts not balanced (a link carries over 254 routes of one)");
	else if (shifts)
		route_why(c, ", shifts not balanced (too many hosts)");
	if (st.budget_hit)
		route_why(c, ", stopped at the work bound");
}
