/*
 * DOC: balance's paths and moves (see balance.c for the whole search).
 *
 * A destination's in-tree, the up*\/down* paths of its switches, the move
 * of one switch's entry with the all-to-all loads (a max tree over the
 * links) and the shift counters it changes, and the checks a move must
 * pass. balance.c, balance_shift.c and balance_leaf.c build on these;
 * nothing here calls back into them.
 */
#include <string.h>

#include "routing/balance_int.h"
#include "routing/routing.h"

uint32_t bal_hop(const struct bal *b, uint32_t s)
{
	uint8_t p = b->cur[s];

	if (p == LFT_NO_PORT || !p || p > b->g->sw[s].nports)
		return RG_NONE;
	return b->peer[b->g->sw[s].portbase + p];
}

/* Children lists, BFS order from the root and source counts of host h. */
void bal_tree(struct bal *b, uint32_t h)
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
		b->nxt[s] = s == b->root ? RG_NONE : bal_hop(b, s);
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
uint32_t bal_subtree(struct bal *b, uint32_t z)
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
int bal_path_from(const struct bal *b, uint32_t s, struct path *p)
{
	p->n = 0;
	for (; s != b->root; s = b->nxt[s]) {
		if (p->n == BAL_PATH || s == RG_NONE)
			return 0;
		p->id[p->n++] = b->g->sw[s].portbase + b->cur[s];
	}
	return 1;
}

int bal_on_path(const struct path *p, uint32_t id)
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
int bal_new_path(const struct bal *b, uint32_t z, uint8_t q, struct path *np)
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
void bal_minus(const struct path *a, const struct path *c, struct path *out)
{
	out->n = 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (!bal_on_path(c, a->id[i]))
			out->id[out->n++] = a->id[i];
}

/* The one of compact links x, y with the larger load, x on a tie (the
 * lower index: busiest() is the first busiest link). */
static uint32_t heavier(const struct bal *b, uint32_t x, uint32_t y)
{
	if (x == RG_NONE)
		return y;
	if (y == RG_NONE)
		return x;
	return b->load[b->cid[y]] > b->load[b->cid[x]] ? y : x;
}

/* The max tree over the compact links' loads, from scratch. */
void bal_mt_build(struct bal *b)
{
	for (uint32_t i = 0; i < b->mtsize; i++)
		b->mt[b->mtsize + i] = i < b->nsl ? i : RG_NONE;
	for (uint32_t i = b->mtsize - 1; i >= 1; i--)
		b->mt[i] = heavier(b, b->mt[2 * i], b->mt[2 * i + 1]);
}

/* Link id's load changed. */
static void mt_fix(struct bal *b, uint32_t id)
{
	uint32_t c = b->ci[id];

	if (c == RG_NONE)
		return;
	for (uint32_t i = (b->mtsize + c) / 2; i >= 1; i /= 2)
		b->mt[i] = heavier(b, b->mt[2 * i], b->mt[2 * i + 1]);
}

/* Moves z's entry to port q (op: its path now, np: then). */
void bal_apply(struct bal *b, uint32_t z, uint8_t q, const struct path *op,
	       const struct path *np)
{
	struct path gone, added;
	uint64_t f = b->flow[z];

	bal_minus(op, np, &gone);
	bal_minus(np, op, &added);
	for (uint32_t i = 0; i < gone.n; i++) {
		b->load[gone.id[i]] -= f;
		mt_fix(b, gone.id[i]);
	}
	for (uint32_t i = 0; i < added.n; i++) {
		b->load[added.id[i]] += f;
		mt_fix(b, added.id[i]);
	}
	if (b->sc) {
		uint32_t nsub = bal_subtree(b, z);
		bal_shift_add(b, nsub, &gone, -1);
		bal_shift_add(b, nsub, &added, 1);
	}
	if (b->logging && b->nlog < BAL_LOG)
		b->log[b->nlog++] = (struct bal_move){ b->dest, z, b->cur[z] };
	b->lft[z][b->lid] = q;
	b->cur[z] = q;
	bal_tree(b, b->dest);
}

/* The largest all-to-all load on the links np adds to op, with f more. */
uint64_t bal_added_max(const struct bal *b, const struct path *op, const struct path *np,
		       uint64_t f)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < np->n; i++)
		if (!bal_on_path(op, np->id[i]) && b->load[np->id[i]] + f > m)
			m = b->load[np->id[i]] + f;
	return m;
}

/* Adds d (+1/-1) to the shift counters of every source behind z on links p. */
void bal_shift_add(struct bal *b, uint32_t nsub, const struct path *p, int d)
{
	const struct rgraph *g = b->g;

	for (uint32_t i = 0; i < nsub; i++) {
		const struct rg_sw *sw = &g->sw[b->sub[i]];
		for (uint32_t j = sw->hfirst; j < sw->hfirst + sw->nhosts; j++) {
			uint32_t sh = bal_shift_of(b, j);
			for (uint32_t k = 0; sh && k < p->n; k++) {
				uint32_t c = b->sci[p->id[k]];
				if (c == RG_NONE)
					continue;
				uint8_t *x = bal_counter(b, sh, c), old = *x;
				if ((d < 0 && !old) || (d > 0 && old == 255))
					continue; /* never wrap: 255 counts as too many */
				*x = (uint8_t)(old + d);
				if (d > 0 && old == b->slim[sh])
					b->nover[b->srow[sh]]++;
				else if (d < 0 && old == b->slim[sh] + 1)
					b->nover[b->srow[sh]]--;
			}
		}
	}
}

/* 1 if link id is one into a leaf while a component is counted: the
 * leaf phase keeps those within their limits, and the component's
 * counters leave them out. */
int bal_leaf_watched(const struct bal *b, uint32_t id)
{
	uint32_t w = b->peer[id];

	return b->ccur != RG_NONE && w != RG_NONE && b->rank[w] == 0 &&
	       b->g->sw[w].nhosts <= BAL_WINDOW;
}

/*
 * Change of the total excess over slim, summed over (shift, link), plus
 * BAL_TIER times that over nlim (the same limits but while tightening, so
 * that no move trades a pair over nlim for some over slim), if the sources
 * behind z (in sub, f of them) leave links gone and join links added;
 * INT64_MAX if a link would pass the all-to-all limit.
 */
int64_t bal_shift_delta(struct bal *b, uint32_t nsub, const struct path *gone,
			   const struct path *added, uint64_t f)
{
	const struct rgraph *g = b->g;
	int64_t d = 0;

	for (uint32_t k = 0; k < added->n; k++)
		if (b->load[added->id[k]] + f > b->a2a_lim || b->sci[added->id[k]] == RG_NONE)
			return INT64_MAX;
	for (uint32_t k = 0; k < gone->n; k++)
		if (b->sci[gone->id[k]] == RG_NONE && !bal_leaf_watched(b, gone->id[k]))
			return INT64_MAX; /* a link of another component: not counted */
	for (uint32_t i = 0; i < nsub; i++) {
		const struct rg_sw *sw = &g->sw[b->sub[i]];
		for (uint32_t j = sw->hfirst; j < sw->hfirst + sw->nhosts; j++) {
			uint32_t sh = bal_shift_of(b, j);
			if (!sh)
				continue;
			for (uint32_t k = 0; k < gone->n; k++) {
				if (b->sci[gone->id[k]] == RG_NONE)
					continue;
				uint8_t v = *bal_counter(b, sh, b->sci[gone->id[k]]);
				d -= (v > b->slim[sh]) + BAL_TIER * (v > b->nlim[sh]);
			}
			for (uint32_t k = 0; k < added->n; k++) {
				uint8_t v = *bal_counter(b, sh, b->sci[added->id[k]]);
				if (v >= 254)
					return INT64_MAX;
				d += (v >= b->slim[sh]) + BAL_TIER * (v >= b->nlim[sh]);
			}
		}
	}
	b->work += (uint64_t)nsub * 4 + f * (gone->n + added->n);
	return d;
}

/*
 * Re-points z's entry for destination host d to port q and returns the
 * change of the shift excess; INT64_MAX (nothing done) if that is not a
 * legal move or, when check is set, passes the all-to-all limit.
 */
int64_t bal_move_to(struct bal *b, uint32_t d, uint32_t z, uint8_t q, int check)
{
	struct path op, np, gone, added;
	int64_t dl = 0;

	if (b->dest != d)
		bal_tree(b, d);
	if (z == b->root || b->intree[z] != b->stamp || q == b->cur[z] ||
	    !bal_path_from(b, z, &op) || !bal_new_path(b, z, q, &np))
		return INT64_MAX;
	if (check) {
		bal_minus(&op, &np, &gone);
		bal_minus(&np, &op, &added);
		dl = bal_shift_delta(b, bal_subtree(b, z), &gone, &added, b->flow[z]);
		if (dl == INT64_MAX)
			return dl;
	}
	bal_apply(b, z, q, &op, &np);
	return dl;
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
int bal_shift_ok(struct bal *b, uint32_t z, const struct path *op, const struct path *np)
{
	struct path gone, added;

	if (!b->sc)
		return !b->windows || window_ok(b, z, np->id[0] - b->g->sw[z].portbase);
	bal_minus(op, np, &gone);
	bal_minus(np, op, &added);
	return bal_shift_delta(b, bal_subtree(b, z), &gone, &added, 0) <= 0;
}
