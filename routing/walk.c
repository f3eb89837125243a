/*
 * DOC: every switch's way to one LID (see walk.h).
 *
 * Switches are resolved farthest from the hosts first: on a tree the top
 * switches then settle the middle ones below them on the way, and every
 * other switch finds its next hop settled already, one step each.
 */
#include <stdlib.h>
#include <string.h>

#include "routing/walk.h"

static void lid_owners(struct lwalk *w)
{
	const struct rgraph *g = w->g;

	for (uint32_t lid = 0; lid <= w->ltop; lid++)
		w->own[lid] = RG_NONE;
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].lid) {
			w->own[g->sw[s].lid] = s;
			w->last[g->sw[s].lid] = 0;
		}
	for (uint32_t h = 0; h < g->nhosts; h++)
		for (uint32_t i = 0; i < g->hosts[h].nlids; i++) {
			uint32_t lid = g->hosts[h].lid + i;
			w->own[lid] = g->hosts[h].sw;
			w->last[lid] = g->hosts[h].swport;
		}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Connected parts, and the order (farthest from the hosts first). */
static void parts_and_order(struct lwalk *w)
{
	const struct rgraph *g = w->g;
	uint32_t *dist = rg_xmalloc(g->nsw ? g->nsw : 1, sizeof(*dist)), nsrc = 0;
	uint64_t *key = rg_xmalloc(g->nsw ? g->nsw : 1, sizeof(*key));

	for (uint32_t s = 0; s < g->nsw; s++)
		w->comp[s] = RG_NONE;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (w->comp[s] != RG_NONE)
			continue;
		rg_bfs(g, &s, 1, dist, w->stack);
		for (uint32_t t = 0; t < g->nsw; t++)
			if (dist[t] != UINT32_MAX) {
				w->comp[t] = s;
				w->csize[s]++;
			}
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].nhosts)
			w->order[nsrc++] = s;
	rg_bfs(g, w->order, nsrc, dist, w->stack);
	/* descending distance (unreached first), then index */
	for (uint32_t s = 0; s < g->nsw; s++)
		key[s] = (uint64_t)(UINT32_MAX - dist[s]) << 32 | s;
	qsort(key, g->nsw, sizeof(*key), cmp_u64);
	for (uint32_t s = 0; s < g->nsw; s++)
		w->order[s] = (uint32_t)key[s];
	free(key);
	free(dist);
}

void lw_init(struct lwalk *w, const struct rgraph *g, uint8_t *const *lft, uint32_t top)
{
	uint32_t n = g->nsw ? g->nsw : 1;

	memset(w, 0, sizeof(*w));
	w->g = g;
	w->lft = lft;
	w->top = top;
	w->ltop = g->top > top ? g->top : top;
	w->own = rg_xmalloc(w->ltop + 1u, sizeof(*w->own));
	w->last = rg_xcalloc(w->ltop + 1u, 1);
	w->comp = rg_xmalloc(n, sizeof(*w->comp));
	w->csize = rg_xcalloc(n, sizeof(*w->csize));
	w->peer = rg_xmalloc(g->nlinks ? g->nlinks : 1, sizeof(*w->peer));
	w->pbase = rg_xmalloc(n, sizeof(*w->pbase));
	w->np = rg_xmalloc(n, sizeof(*w->np));
	w->order = rg_xmalloc(n, sizeof(*w->order));
	w->blk = rg_xmalloc((size_t)n * LW_RB, 1);
	w->s = rg_xcalloc(n, sizeof(*w->s));
	w->stack = rg_xcalloc(n, sizeof(*w->stack));
	for (uint32_t s = 0; s < g->nsw; s++) {
		w->pbase[s] = g->sw[s].portbase;
		w->np[s] = g->sw[s].nports;
		for (uint32_t p = 0; p <= g->sw[s].nports; p++)
			w->peer[g->sw[s].portbase + p] = rg_port_peer_sw(g, s, (uint8_t)p);
	}
	lid_owners(w);
	parts_and_order(w);
}

void lw_free(struct lwalk *w)
{
	free(w->own);
	free(w->last);
	free(w->comp);
	free(w->csize);
	free(w->peer);
	free(w->pbase);
	free(w->np);
	free(w->order);
	free(w->blk);
	free(w->s);
	free(w->stack);
}

void lw_put(struct lwalk *w, uint32_t s, uint32_t lid, uint8_t p)
{
	uint32_t j = lid - w->b0;

	w->lft[s][lid] = p;
	if (j < w->bn)
		w->blk[(size_t)s * LW_RB + j] = p;
}

void lw_begin(struct lwalk *w)
{
	for (uint32_t s = 0; s < w->g->nsw; s++)
		w->s[s].st = 0;
}

/* Hops of the switch before one with h. */
static inline uint16_t hop_on(uint16_t h)
{
	return h < UINT16_MAX ? (uint16_t)(h + 1) : h;
}

/* One hop of switch s for lid: a final fate, or 0 and *next. */
static int step(struct lwalk *w, uint32_t s, uint32_t lid, uint8_t p, uint32_t *next)
{
	if (s == w->own[lid] && p == w->last[lid])
		return LW_REACH;
	if (p == LFT_NO_PORT)
		return LW_NOPORT;
	if (p == 0 || p > w->np[s])
		return LW_DEAD;
	*next = w->peer[w->pbase[s] + p];
	return *next == RG_NONE ? LW_DEAD : 0;
}

void lw_chain(struct lwalk *w, uint32_t s, uint32_t lid)
{
	uint32_t n = 0, cur = s;

	while (!w->s[cur].st) {
		struct lw_sw *c = &w->s[cur];
		uint32_t next = RG_NONE;
		uint8_t p = lw_at(w, cur, lid);
		int r = step(w, cur, lid, p, &next);
		c->port = p;
		c->nxt = next;
		c->hops = 0;
		if (r) {
			c->st = (uint8_t)r;
			break;
		}
		c->st = LW_INPROG;
		w->stack[n++] = cur;
		cur = next;
	}
	uint8_t fin = w->s[cur].st == LW_INPROG ? LW_LOOP : w->s[cur].st;
	while (n--) {
		struct lw_sw *y = &w->s[w->stack[n]];
		y->st = fin;
		if (fin == LW_REACH)
			y->hops = hop_on(w->s[y->nxt].hops);
	}
}

void lw_resolve_all(struct lwalk *w, uint32_t lid)
{
	const uint8_t *col = w->blk + (lid - w->b0);
	uint32_t n = w->g->nsw, o = w->own[lid];

	lw_begin(w);
	if (lid - w->b0 >= w->bn) {
		for (uint32_t k = 0; k < n; k++)
			lw_resolve(w, w->order[k], lid);
	} else {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t s = w->order[k], t;
			struct lw_sw *c = &w->s[s];
			uint8_t p = col[(size_t)s * LW_RB];
			/* the common case inline: the next switch is settled */
			if (c->st || s == o || p == LFT_NO_PORT || p == 0 || p > w->np[s] ||
			    (t = w->peer[w->pbase[s] + p]) == RG_NONE || w->s[t].st < LW_REACH) {
				lw_resolve(w, s, lid);
				continue;
			}
			c->st = w->s[t].st;
			c->port = p;
			c->nxt = t;
			c->hops = c->st == LW_REACH ? hop_on(w->s[t].hops) : 0;
		}
	}
}

void lw_each(struct lwalk *w, uint32_t first, uint32_t end, const uint8_t *want, lw_fn fn,
	     lw_fn done, void *arg)
{
	const struct rgraph *g = w->g;

	end = end > w->ltop + 1 ? w->ltop + 1 : end;
	for (uint32_t b0 = first; b0 < end; b0 += LW_RB) {
		uint32_t n = end - b0 < LW_RB ? end - b0 : LW_RB;
		uint32_t have = b0 > w->top ? 0 : w->top + 1 - b0 < n ? w->top + 1 - b0 : n;
		for (uint32_t s = 0; s < g->nsw; s++) {
			memcpy(w->blk + (size_t)s * LW_RB, w->lft[s] + b0, have);
			memset(w->blk + (size_t)s * LW_RB + have, LFT_NO_PORT, n - have);
		}
		w->b0 = b0;
		w->bn = n;
		for (uint32_t lid = b0; lid < b0 + n; lid++)
			if (w->own[lid] != RG_NONE && (!want || want[lid]))
				fn(w, lid, arg);
		if (done)
			done(w, b0, arg);
	}
	w->bn = 0;
}

void lw_deps_init(struct lw_deps *d, const struct rgraph *g, uint8_t *bits)
{
	d->flag = rg_xcalloc(g->nsw ? g->nsw : 1, sizeof(*d->flag));
	d->lo = rg_xcalloc(g->nlinks ? g->nlinks : 1, sizeof(*d->lo));
	d->bits = bits;
}

void lw_deps_flush(const struct lwalk *w, struct lw_deps *d)
{
	for (uint32_t s = 0; s < w->g->nsw; s++) {
		const uint8_t *row = w->blk + (size_t)s * LW_RB;
		uint32_t pb = w->pbase[s];
		for (uint64_t f = d->flag[s]; f; f &= f - 1) {
			uint32_t j = (uint32_t)__builtin_ctzll(f), c = pb + row[j];
			uint8_t q = w->blk[(size_t)w->peer[c] * LW_RB + j];
			if (q < 64)
				d->lo[c] |= 1ull << q;
			else
				d->bits[32u * c + (q >> 3)] |= (uint8_t)(1u << (q & 7));
		}
		d->flag[s] = 0;
	}
}

void lw_deps_done(struct lw_deps *d, const struct rgraph *g)
{
	for (uint32_t c = 0; c < g->nlinks; c++)
		for (uint32_t b = 0; b < 8; b++)
			d->bits[32u * c + b] |= (uint8_t)(d->lo[c] >> (8 * b));
	free(d->lo);
	free(d->flag);
	d->lo = NULL;
	d->flag = NULL;
}
