/*
 * DOC: balance's shift permutations (see balance.c for the whole search).
 *
 * Counters per (shift, link): for every switch link where they fit, else
 * for one upper component's links at a time. The flows of a (shift, link)
 * above its limit move one by one, by the move of a switch on their path
 * that lowers the total excess most; with every link counted, failing
 * that, by a swap or a chain of moves; one component at a time, by a move
 * of the source leaf's entry that adds no excess on the leaves' links.
 */
#include <stdlib.h>
#include <string.h>

#include "routing/balance_int.h"
#include "routing/pairbound.h"
#include "routing/simd.h"


/* Of h consecutive hosts (of one switch, among n), those whose
 * destination under shift k is one of them. */
static uint32_t local(uint32_t n, uint32_t h, uint32_t k)
{
	uint64_t in = 0;

	if (h >= n)
		return h;
	if (k < h)
		in += h - k;                   /* [k, h) */
	if ((uint64_t)k + h > n)
		in += (uint64_t)k + h - n < h ? (uint64_t)k + h - n : h; /* wrapped */
	return (uint32_t)(in < h ? in : h);
}

/* Per shift: the verifier's bounds (sources leaving each switch over its
 * switch ports, rounded up, largest over switches; the pair bound) + 1.
 * Where the pair bound is the per-switch bound + 1, a routing at the pair
 * bound meets the per-switch bound + 1 too: tlim asks for that. */
static void shift_limits(struct bal *b)
{
	const struct rgraph *g = b->g;
	struct pair_bound pb;

	pair_bound_init(&pb, g);
	for (uint32_t t = 0; t < b->ntrk; t++) {
		uint32_t bound = 0, k = b->trk[t];
		for (uint32_t s = 0; s < b->nsw; s++) {
			uint32_t out = g->sw[s].nhosts - local(b->n, g->sw[s].nhosts, k);
			if (out && b->links[s]) {
				uint32_t need = (out + b->links[s] - 1) / b->links[s];
				bound = need > bound ? need : bound;
			}
		}
		uint32_t p = pair_bound_shift(&pb, k), lim = (p > bound ? p : bound) + 1;
		lim = lim > 250 ? 250 : lim;
		b->slim[k] = b->nlim[k] = (uint8_t)lim;
		b->tlim[k] = (uint8_t)(p == bound + 1 && p < lim ? p : lim);
	}
	b->work += (uint64_t)b->ntrk * b->nsw * 2;
	pair_bound_free(&pb);
}

/* Shift counters of the current tables; 0 if one would overflow. */
static int shift_counts(struct bal *b)
{
	const struct rgraph *g = b->g;

	b->dest = RG_NONE; /* rows are walked directly, no tree is kept */
	for (uint32_t t = 0; t < b->ntrk; t++) {
		for (uint32_t j = 0; j < b->n; j++) {
			uint32_t d = (j + b->trk[t]) % b->n;
			b->cur = b->rows + (size_t)d * b->nsw;
			b->root = g->hosts[d].sw;
			for (uint32_t s = g->hosts[j].sw, h = 0; s != b->root && h < BAL_PATH; h++) {
				uint32_t next = bal_hop(b, s);
				if (next == RG_NONE)
					break; /* unrouted: verify reports it, nothing to balance */
				uint32_t c = b->sci[g->sw[s].portbase + b->cur[s]];
				if (++*bal_counter(b, b->trk[t], c) == 255)
					return 0;
				s = next;
			}
			b->work += 4;
		}
	}
	return 1;
}

/* The switches on source j's path (current tree) from its leaf up to link
 * e's tail, whose entries could take j off e; their count. */
static uint32_t movers(struct bal *b, uint32_t j, uint32_t e, uint32_t *zl)
{
	struct path op;
	uint32_t nz = 0;

	for (uint32_t z = b->g->hosts[j].sw; z != b->root && nz < BAL_PATH; z = b->nxt[z]) {
		if (!bal_path_from(b, z, &op) || !bal_on_path(&op, e))
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
				for (uint32_t off = 1; off <= b->swap_reach * span && off < b->n;
				     off++) {
					uint32_t d2 = (d1 + b->n + (off & 1 ? off / 2 + 1 : -(off / 2))) % b->n;
					uint32_t lid2 = g->hosts[d2].lid;
					if (b->lft[z][lid2] != q || g->hosts[d2].sw == z)
						continue;
					if (b->work > b->work_lim)
						return 0;
					uint8_t p1 = b->lft[z][g->hosts[d1].lid];
					int64_t a = bal_move_to(b, d1, z, q, 1);
					if (a == INT64_MAX)
						continue;
					int64_t c = bal_move_to(b, d2, z, p1, 1);
					if (c != INT64_MAX && a + c < 0)
						return 1;
					if (c != INT64_MAX)
						bal_move_to(b, d2, z, q, 0);
					bal_move_to(b, d1, z, p1, 0);
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
		bal_move_to(b, b->log[b->nlog].dest, b->log[b->nlog].z, b->log[b->nlog].q, 0);
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
	uint32_t nsub = bal_subtree(b, z), n = 0;

	for (uint32_t i = 0; i < nsub; i++) {
		const struct rg_sw *sw = &g->sw[b->sub[i]];
		for (uint32_t j = sw->hfirst; j < sw->hfirst + sw->nhosts; j++) {
			uint32_t sh = bal_shift_of(b, j);
			for (uint32_t k = 0; sh && k < added->n; k++) {
				uint32_t c = b->sci[added->id[k]];
				if (c == RG_NONE || *bal_counter(b, sh, c) <= b->slim[sh])
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
				if (b->work > b->work_lim)
					return 0;
				if (b->dest != d1)
					bal_tree(b, d1);
				if (!bal_path_from(b, z, &op) || !bal_new_path(b, z, q, &np) ||
				    bal_on_path(&np, e))
					continue;
				bal_minus(&np, &op, &added);
				b->nlog = 0;
				b->logging = 1;
				if (bal_move_to(b, d1, z, q, 1) > 0) {
					undo(b);
					continue;
				}
				uint32_t n = new_over(b, z, &added, ks, cs, 4), ok = n <= 4;
				for (uint32_t y = 0; ok && y < n; y++)
					while (ok && *bal_counter(b, ks[y], cs[y]) > b->slim[ks[y]])
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

/*
 * Counting one upper component, its switches' entries may not be enough:
 * source j's leaf moves the flow to another component, if that adds no
 * excess on leaf links. What it adds up there is not counted now: the
 * components get a second round.
 */
static int shift_escape(struct bal *b, uint32_t j, uint32_t e)
{
	uint32_t d = b->dest;

	/* (bal_leaf_move() takes no path that adds a counted link) */
	if (!bal_leaf_move(b, b->g->hosts[j].sw, d, e))
		return 0;
	b->escapes++;
	return 1;
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
		if (!bal_path_from(b, z, &op) || !bal_on_path(&op, e))
			break;
		for (uint32_t k = 0; k < g->sw[z].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, z, k);
			for (uint32_t i = 0; i < gr->n; i++) {
				uint8_t q = g->gports[gr->first + i];
				if (q == b->cur[z] || !bal_new_path(b, z, q, &np) ||
				    bal_on_path(&np, e))
					continue;
				if (!nsub)
					nsub = bal_subtree(b, z);
				bal_minus(&op, &np, &gone);
				bal_minus(&np, &op, &added);
				int64_t d = bal_shift_delta(b, nsub, &gone, &added, b->flow[z]);
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
	/* swaps and chains cost a tree per try: too dear at component scale */
	if (bz == RG_NONE && b->ccur != RG_NONE)
		return !depth && shift_escape(b, j, e);
	if (bz == RG_NONE)
		return !depth && (shift_swap(b, j, e) || shift_chain(b, j, e));
	bal_path_from(b, bz, &op);
	bal_new_path(b, bz, bq, &np);
	bal_apply(b, bz, bq, &op, &np);
	return 1;
}

/* The leaves strictly below x (x itself if a leaf) into b->cone; their count. */
static uint32_t cone(struct bal *b, uint32_t x)
{
	const struct rgraph *g = b->g;
	uint32_t head = 0, tail = 0, nl = 0;

	b->cstamp++;
	b->cmark[x] = b->cstamp;
	b->order[tail++] = x; /* free while no tree is kept */
	while (head < tail) {
		uint32_t y = b->order[head++];
		if (g->sw[y].nhosts)
			b->cone[nl++] = y;
		for (uint32_t k = 0; k < g->sw[y].ngroups; k++) {
			uint32_t w = rg_group(g, y, k)->peer;
			if (b->rank[w] < b->rank[y] && b->cmark[w] != b->cstamp) {
				b->cmark[w] = b->cstamp;
				b->order[tail++] = w;
			}
		}
	}
	b->work += tail;
	return nl;
}

static int cmp_u32(const void *a, const void *c)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)c;

	return (x > y) - (x < y);
}

static void reverse(uint32_t *a, uint32_t n)
{
	for (uint32_t i = 0; i < n / 2; i++) {
		uint32_t x = a[i];
		a[i] = a[n - 1 - i];
		a[n - 1 - i] = x;
	}
}

/* a[r..n) then a[0..r). */
static void rotate(uint32_t *a, uint32_t n, uint32_t r)
{
	reverse(a, r);
	reverse(a + r, n - r);
	reverse(a, n);
}

/*
 * The sources that may have a flow on link e under shift k, ascending:
 * up*\/down* routes reach an up link only from the leaves below its tail,
 * and leave a down link only towards the leaves below its head.
 */
static uint32_t candidates(struct bal *b, uint32_t k, uint32_t e)
{
	const struct rgraph *g = b->g;
	uint32_t t = b->tail[e], w = b->peer[e], down = b->rank[w] < b->rank[t];
	uint32_t nl = cone(b, down ? w : t), nj = 0, wrap = 0;

	/* switches and hosts are both in GUID order: leaves by index are
	 * leaves by first host */
	qsort(b->cone, nl, sizeof(*b->cone), cmp_u32);
	for (uint32_t i = 0; i < nl; i++) {
		const struct rg_sw *sw = &g->sw[b->cone[i]];
		for (uint32_t h = sw->hfirst; h < sw->hfirst + sw->nhosts; h++) {
			wrap += down && h < k;
			b->js[nj++] = h;
		}
	}
	b->work += nj + nl;
	if (!down)
		return nj;
	/* hosts h ascending give sources h - k ascending from the first h >= k */
	for (uint32_t i = 0; i < nj; i++)
		b->js[i] = (b->js[i] + b->n - k) % b->n;
	rotate(b->js, nj, wrap);
	return nj;
}

/* One flow off (shift k, shift link c); 0 if none can move. */
static int shift_fix(struct bal *b, uint32_t k, uint32_t c, int depth)
{
	const struct rgraph *g = b->g;
	uint32_t e = b->scid[c], nj;

	b->dest = RG_NONE; /* cone() uses the tree's scratch */
	nj = candidates(b, k, e);
	for (uint32_t i = 0; i < nj; i++) {
		uint32_t j = b->js[i], d = (j + k) % b->n;
		if (g->hosts[j].sw == g->hosts[d].sw)
			continue;
		b->dest = RG_NONE; /* the tree is not d's: probe d's path only */
		b->cur = b->rows + (size_t)d * b->nsw;
		b->lid = g->hosts[d].lid;
		b->root = g->hosts[d].sw;
		int uses = 0;
		b->work += 8;
		for (uint32_t s = g->hosts[j].sw, n = 0; s != b->root && s != RG_NONE && n < BAL_PATH;
		     s = bal_hop(b, s), n++)
			if (b->g->sw[s].portbase + b->cur[s] == e) {
				uses = 1;
				break;
			}
		if (!uses)
			continue;
		bal_tree(b, d);
		if (shift_move(b, j, e, depth))
			return 1;
		if (!depth) /* a chain's inner shift_fix() reused js */
			nj = candidates(b, k, e);
	}
	return 0;
}

#ifdef __SSE2__
/* nov[t .. t + 16) += the counters of column block t above lim, over rows
 * 0 .. nsc of stride ntrk (link-major): byte counts, flushed before they
 * could wrap. */
static void over16(const struct bal *b, uint32_t t, const uint8_t *lim, uint32_t *nov)
{
	const __m128i flip = _mm_set1_epi8((char)0x80);
	const __m128i l = _mm_xor_si128(rg_load16(lim), flip);
	uint8_t part[16];

	for (uint32_t c0 = 0; c0 < b->nsc; c0 += 255) {
		__m128i acc = _mm_setzero_si128();
		for (uint32_t c = c0; c < b->nsc && c < c0 + 255; c++) {
			const uint8_t *row = b->sc + (size_t)c * b->ntrk + t;
			__m128i v = rg_load16(row);
			acc = _mm_sub_epi8(acc, _mm_cmpgt_epi8(_mm_xor_si128(v, flip), l));
		}
		_mm_storeu_si128((__m128i *)(void *)part, acc);
		for (uint32_t k = 0; k < 16; k++)
			nov[t + k] += part[k];
	}
}
#endif

/* Per tracked shift t, its links whose counter is above limit[trk[t]],
 * into nov. */
static void over_per_shift(const struct bal *b, const uint8_t *limit, uint32_t *nov)
{
	memset(nov, 0, b->ntrk * sizeof(*nov));
	if (b->ccur == RG_NONE) {
		for (uint32_t t = 0; t < b->ntrk; t++)
			for (uint32_t c = 0; c < b->nsc; c++)
				nov[t] += b->sc[(size_t)t * b->nsc + c] > limit[b->trk[t]];
		return;
	}
	uint8_t *lim = rg_xmalloc(b->ntrk + 1, 1);
	uint32_t t = 0;
	for (uint32_t k = 0; k < b->ntrk; k++)
		lim[k] = limit[b->trk[k]];
#ifdef __SSE2__
	for (; t + 16 <= b->ntrk; t += 16)
		over16(b, t, lim + t, nov);
#endif
	for (uint32_t c = 0; c < b->nsc; c++)
		for (uint32_t k = t; k < b->ntrk; k++)
			nov[k] += b->sc[(size_t)c * b->ntrk + k] > lim[k];
	free(lim);
}

/* nover from the counters. */
static void count_over(struct bal *b)
{
	over_per_shift(b, b->slim, b->nover);
	b->work += (uint64_t)b->nsc * b->ntrk / 16;
}

uint32_t bal_shift_over(const struct bal *b)
{
	uint32_t over = 0;

	for (uint32_t t = 0; t < b->ntrk; t++)
		over += b->nover[t];
	return over;
}

/* Tracks every shift (the rows of sc); the per-shift limits. */
static void track_shifts(struct bal *b, struct balance_stats *st)
{
	uint32_t total = b->n - 1;

	b->ntrk = total;
	b->trk = rg_xmalloc(total, sizeof(*b->trk));
	b->srow = rg_xmalloc(b->n, sizeof(*b->srow));
	b->srow[0] = RG_NONE;
	for (uint32_t t = 0; t < total; t++) {
		b->trk[t] = t + 1;
		b->srow[t + 1] = t;
	}
	b->slim = rg_xcalloc(b->n, 1);
	b->nlim = rg_xcalloc(b->n, 1);
	b->tlim = rg_xcalloc(b->n, 1);
	b->nover = rg_xcalloc(total, sizeof(*b->nover));
	shift_limits(b);
	st->shifts_tracked = total;
}

/* Fixes (shift, link) pairs above their limit, sweeping until that stops
 * helping; 0 if the work bound stopped it. */
static int shift_sweeps(struct bal *b, int singles, struct balance_stats *st)
{
	uint32_t over = bal_shift_over(b);

	/* a fix may push an earlier (shift, link) over: sweep again */
	for (int sweep = 0; sweep < BAL_SWEEPS && over; sweep++) {
		uint32_t off = (uint32_t)((uint64_t)b->ntrk * b->sweep_from / 8);
		for (uint32_t i = 0; i < b->ntrk; i++)
			for (uint32_t t = (i + off) % b->ntrk, c = 0, k = b->trk[t];
			     b->nover[t] && c < b->nsc; c++)
				while (*bal_counter(b, k, c) > b->slim[k]) {
					if (b->work > b->work_lim) {
						st->budget_hit = 1;
						return 0;
					}
					if (!shift_fix(b, k, c, singles))
						break;
					st->shift_moves++;
				}
		uint32_t now = bal_shift_over(b);
		if (now >= over)
			break;
		over = now;
	}
	return 1;
}

/*
 * Upper components: switches above the leaves joined by switch links
 * among themselves (on a 3-level tree, the planes of middle and top
 * switches). A route that enters one by its first hop stays in it until
 * the hop down to its destination's leaf. Returns their number.
 */
static uint32_t components(struct bal *b)
{
	const struct rgraph *g = b->g;
	uint32_t nc = 0;

	for (uint32_t s = 0; s < b->nsw; s++)
		b->comp[s] = RG_NONE;
	for (uint32_t s = 0; s < b->nsw; s++) {
		if (b->comp[s] != RG_NONE || b->rank[s] == UINT32_MAX || !b->rank[s])
			continue;
		uint32_t head = 0, tail = 0;
		b->comp[s] = nc;
		b->order[tail++] = s;
		while (head < tail) {
			uint32_t y = b->order[head++];
			for (uint32_t k = 0; k < g->sw[y].ngroups; k++) {
				uint32_t w = rg_group(g, y, k)->peer;
				uint32_t r = b->rank[w];
				if (b->comp[w] == RG_NONE && r != UINT32_MAX && r) {
					b->comp[w] = nc;
					b->order[tail++] = w;
				}
			}
		}
		nc++;
	}
	return nc;
}

/* Counts the links out of component cc's switches but those into a leaf
 * (the leaf phase's); returns their number with sci/scid set to them
 * alone (every switch link if cc is RG_NONE). */
static uint32_t shift_links(struct bal *b, uint32_t cc)
{
	b->ccur = cc;
	b->nsc = 0;
	for (uint32_t c = 0; c < b->nsl; c++) {
		uint32_t id = b->cid[c];
		b->sci[id] = RG_NONE;
		if (cc == RG_NONE || (b->comp[b->tail[id]] == cc && !bal_leaf_watched(b, id))) {
			b->sci[id] = b->nsc;
			b->scid[b->nsc++] = id;
		}
	}
	return b->nsc;
}

/* One more on link c in every shift from leaf w's hosts to host d; 0 if a
 * counter reaches 255. Every shift is tracked (row sh - 1), d is not on
 * w: the shifts d - j, j on w, are one run of rows without a wrap. */
static int run_inc(struct bal *b, uint32_t c, uint32_t d, const struct rg_sw *w)
{
	uint32_t n = b->n, lo = (d + n - (w->hfirst + w->nhosts - 1)) % n - 1;
	uint8_t *x = b->sc + (size_t)c * b->ntrk + lo;
	uint32_t k = 0;

#ifdef __SSE2__
	/* sc has 16 bytes after its end for the last vector */
	const __m128i one = _mm_set1_epi8(1), top = _mm_set1_epi8((char)0xFF);
	for (; k < w->nhosts; k += 16) {
		uint32_t left = w->nhosts - k;
		__m128i v = rg_load16(x + k);
		__m128i add = left >= 16 ? one : _mm_and_si128(one, rg_lanes_below(left));
		v = _mm_add_epi8(v, add);
		_mm_storeu_si128((__m128i *)(void *)(x + k), v);
		if (_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(v, top),
						    _mm_cmpeq_epi8(add, one))))
			return 0;
	}
#endif
	for (; k < w->nhosts; k++)
		if (++x[k] == 255)
			return 0;
	return 1;
}

/* Shift counters of component b->ccur's links: every route whose first
 * hop enters it; 0 if one would overflow. */
static int comp_counts(struct bal *b)
{
	const struct rgraph *g = b->g;
	uint32_t nl = 0;

	for (uint32_t l = 0; l < b->nsw; l++)
		if (g->sw[l].nhosts)
			b->cone[nl++] = l;
	b->dest = RG_NONE;
	for (uint32_t d = 0; d < b->n; d++) {
		b->cur = b->rows + (size_t)d * b->nsw;
		b->root = g->hosts[d].sw;
		for (uint32_t i = 0; i < nl; i++) {
			uint32_t l = b->cone[i], s = l, next = bal_hop(b, l);
			if (l == b->root || next == RG_NONE ||
			    (b->comp[next] != b->ccur && b->comp[l] != b->ccur))
				continue;
			for (uint32_t h = 0; s != b->root && h < BAL_PATH; h++) {
				if ((next = bal_hop(b, s)) == RG_NONE)
					break; /* unrouted: verify reports it */
				uint32_t c = b->sci[g->sw[s].portbase + b->cur[s]];
				if (c != RG_NONE && !run_inc(b, c, d, &g->sw[l]))
					return 0;
				s = next;
			}
		}
		b->work += nl;
	}
	return 1;
}

/* bal_shift_tighten() for the component counted: single moves of its
 * switches' entries, within BAL_TIGHT_WORK; slim is back to nlim after. */
static void comp_tighten(struct bal *b, struct balance_stats *st)
{
	uint64_t lim = b->work_lim;
	int hit = st->budget_hit;

	for (uint32_t t = 0; t < b->ntrk; t++)
		b->slim[b->trk[t]] = b->tlim[b->trk[t]];
	count_over(b);
	st->tight_before += bal_shift_over(b);
	b->work_lim = b->work + BAL_TIGHT_WORK < lim ? b->work + BAL_TIGHT_WORK : lim;
	shift_sweeps(b, 0, st);
	b->work_lim = lim;
	st->budget_hit = hit;
	st->tight_after += bal_shift_over(b);
	memcpy(b->slim, b->nlim, b->n);
	count_over(b);
}

/* One round over the upper components; the (shift, link) pairs above
 * the limit before and after it into *before, *after. 0 if the work bound
 * stopped it. */
static int comp_round(struct bal *b, uint32_t nc, uint32_t *before, uint32_t *after,
		      struct balance_stats *st)
{
	*before = *after = 0;
	for (uint32_t cc = 0; cc < nc; cc++) {
		uint32_t nsc = shift_links(b, cc);
		int more = 1;
		if (!nsc || (uint64_t)b->ntrk * nsc > b->shift_bytes)
			continue; /* parts_fit() said all fit: only a part without links */
		b->sc = rg_xcalloc((size_t)b->ntrk * nsc + 16, 1); /* see run_inc() */
		if (comp_counts(b)) {
			count_over(b);
			*before += bal_shift_over(b);
			/* single moves first: the rest cost more per fix */
			more = shift_sweeps(b, 1, st) && shift_sweeps(b, 0, st);
			if (more)
				comp_tighten(b, st);
			*after += bal_shift_over_bound(b);
			st->shift_parts++;
		} else {
			st->shift_overflow = 1;
		}
		free(b->sc);
		b->sc = NULL;
		if (!more)
			return 0;
	}
	return 1;
}

/*
 * Where a counter per (shift, link) for every link does not fit, one
 * upper component at a time: its links' counters, and moves of its
 * switches' entries (which change no other link) or, failing those, of a
 * leaf's; a second round then checks what those did to the others.
 */
static void shift_components(struct bal *b, struct balance_stats *st)
{
	uint32_t nc = components(b), before, after;

	st->shift_comps = nc;
	st->shift_rounds = 1;
	if (comp_round(b, nc, &before, &after, st) && b->escapes) {
		uint32_t ignored, tight = st->tight_before;
		st->shift_rounds = 2;
		st->tight_before = st->tight_after = 0;
		comp_round(b, nc, &ignored, &after, st);
		st->tight_before = tight; /* before the first round, after the second */
	}
	st->shift_escapes = b->escapes;
	st->shift_over_before = before;
	st->shift_over_after = after;
	st->shifts_done = st->shift_parts > 0;
}

/* 1 if every upper component's counters fit in shift_bytes: the shift
 * phase can work by parts. */
static int parts_fit(struct bal *b)
{
	uint32_t nc = components(b), fit = nc > 0;

	for (uint32_t cc = 0; cc < nc && fit; cc++)
		fit = (uint64_t)(b->n - 1) * shift_links(b, cc) <= b->shift_bytes;
	for (uint32_t c = 0; c < b->nsl; c++)
		b->sci[b->cid[c]] = RG_NONE;
	b->ccur = RG_NONE;
	return fit;
}

void bal_shift_reset(struct bal *b)
{
	free(b->sc);
	free(b->slim);
	free(b->nlim);
	free(b->tlim);
	free(b->srow);
	free(b->trk);
	free(b->nover);
	b->sc = b->slim = b->nlim = b->tlim = NULL;
	b->srow = b->trk = b->nover = NULL;
	b->ntrk = 0;
}

/* The leaf phase again with the per-switch bound + 1 where the pair bound
 * allows it, within BAL_TIGHT_LEAF_WORK. */
static void leaf_tighten(struct bal *b, struct balance_stats *st)
{
	struct balance_stats ts = *st;
	uint64_t lim = b->work_lim;

	for (uint32_t t = 0; t < b->ntrk; t++)
		b->slim[b->trk[t]] = b->tlim[b->trk[t]];
	b->work_lim = b->work + BAL_TIGHT_LEAF_WORK < lim ? b->work + BAL_TIGHT_LEAF_WORK : lim;
	bal_leaf_phase(b, &ts);
	b->work_lim = lim;
	st->leaf_moves = ts.leaf_moves;
	memcpy(b->slim, b->nlim, b->n);
}

void bal_shift_phase(struct bal *b, struct balance_stats *st)
{
	int parts = (uint64_t)(b->n - 1) * b->nsl > b->shift_bytes;

	/* on the largest trees (39 366 hosts: 115 MB a component) not even
	 * one part fits; the leaves' links alone would not do */
	if (b->n < 3)
		return;
	if (parts && !parts_fit(b)) {
		st->parts_too_big = 1;
		return;
	}
	track_shifts(b, st);
	if (parts) {
		bal_leaf_phase(b, st);
		leaf_tighten(b, st);
		st->leaf_done = 1;
		shift_components(b, st);
		return;
	}
	shift_links(b, RG_NONE);
	b->sc = rg_xcalloc((size_t)b->ntrk * b->nsl, 1);
	if (shift_counts(b)) {
		count_over(b);
	} else {
		free(b->sc);
		b->sc = NULL;
		st->shift_overflow = 1;
		return;
	}
	st->shifts_done = 1;
	st->shift_over_before = bal_shift_over(b);
	shift_sweeps(b, 0, st);
	st->shift_over_after = bal_shift_over(b);
}

uint32_t bal_shift_over_bound(const struct bal *b)
{
	uint32_t over = 0, *nov;

	if (!b->sc)
		return 0;
	nov = rg_xmalloc(b->ntrk + 1, sizeof(*nov));
	over_per_shift(b, b->nlim, nov);
	for (uint32_t t = 0; t < b->ntrk; t++)
		over += nov[t];
	free(nov);
	return over;
}

void bal_shift_tighten(struct bal *b, int recount, struct balance_stats *st)
{
	uint64_t lim = b->work_lim;
	uint32_t n = 0;
	int hit = st->budget_hit;

	if (!b->sc || b->ccur != RG_NONE)
		return;
	if (recount) {
		memset(b->sc, 0, (size_t)b->ntrk * b->nsc);
		if (!shift_counts(b)) {
			free(b->sc); /* cannot happen: these tables were counted before */
			b->sc = NULL;
			return;
		}
		count_over(b);
	}
	for (uint32_t t = 0; t < b->ntrk; t++)
		n += b->tlim[b->trk[t]] < b->slim[b->trk[t]];
	if (!n)
		return;
	for (uint32_t t = 0; t < b->ntrk; t++)
		b->slim[b->trk[t]] = b->tlim[b->trk[t]];
	count_over(b);
	st->tight_before = bal_shift_over(b);
	b->work_lim = b->work + BAL_TIGHT_WORK < lim ? b->work + BAL_TIGHT_WORK : lim;
	shift_sweeps(b, 0, st);
	b->work_lim = lim;
	st->budget_hit = hit; /* its own bound: the search as such was done */
	st->tight_after = bal_shift_over(b);
}
