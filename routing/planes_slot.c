/*
 * DOC: plane routing, step 2: every middle switch's top switch.
 *
 * One plane at a time. A middle switch sends each host of another pod up
 * to the host's own slot when the host came whole (a primary: its slot
 * works from both pods, see pl_primary). The extras planes_leaf.c put in
 * this plane arrive from some leaves of a pod only; grouped by (host,
 * source pod) they are one entry of that pod's middle switch, carrying one
 * flow in each of the runs of shifts its source leaves give. Entries take
 * slots destination pod by destination pod (whose down links' counters
 * then stay in cache), the most constrained first (fewest slots, then most
 * sources), each the one that keeps the extras per shift on the middle's
 * uplink and on the top's down link within the target, in all-to-all order (as in
 * planes_leaf.c): primaries put one flow per shift on every such link (one
 * host per slot and pod), so the target leaves T - 2 for extras. An entry
 * left over the target gets another try, then others sharing its links
 * and shifts move aside where they fit elsewhere (unblock()).
 * The extras are counted per (link, shift), four bits each (routing/nib.h:
 * a count stays near the T - 2 the target leaves); a plane where one
 * reaches 15 is routed again with a byte each (T has no bound, and from 15
 * on four bits no longer tell counts apart), so that the choices are
 * those of byte counters always. The largest of every 64 counters is
 * kept beside them: a pod's run of shifts is long. A link's
 * counters live in blocks of 64 taken from a pool when the block first
 * gets an extra (most stay empty: a plane's extras fill a fifth of its
 * links' shifts), so that a plane needs a fraction of the memory, blocks
 * taken together (one destination pod's) lie together, and clearing them
 * for the next plane costs what was used.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "routing/nib.h"
#include "routing/par.h"
#include "routing/planes_int.h"

#define BLK NIB_BLK     /* counters per kept maximum */
#define PL_RUNS 64      /* runs of shifts kept per entry, more are merged */
#define PL_UNBLOCK 64   /* other entries unblock() may try to move */
#define PL_UNBLOCKS 256 /* unblock() calls per plane */
#define ENT_OVER (1u << 31) /* ent: placed over the target (first extra: 31 bits) */

/* The runs of shifts of one entry and its sources. */
struct runs {
	uint32_t st[PL_RUNS], len[PL_RUNS], n;
	uint64_t w;
};

struct sstate {
	/* extras on a link (row) in a shift: block shift / BLK of the row is
	 * pool + NIB_BYTES * (dir[row + S * block] - 1), all zero where dir is 0 */
	uint32_t *dir;
	uint8_t *pool;    /* room for every block (only those used are ever
			     touched, so only they take memory) */
	uint8_t *pool8;   /* the same with a byte per counter (PL_PAD more),
			     made for the first plane that needs it */
	int wide;         /* this plane's counters are pool8's */
	int full;         /* a four-bit counter of this plane reached NIB_MAX */
	uint32_t *owner;  /* per pool block: its row + S * block */
	uint32_t npool;
	uint8_t *bm;      /* [row + S * block]: the block's largest */
	uint32_t NB, N, S;
	uint64_t extras, over; /* planes_stats' slot_extras and slot_over */
	uint8_t *slot;    /* [pod * N + host]: chosen slot, 0xFF none */
	uint64_t *ent;    /* a plane's entries: (pod, slots, sources, first extra) */
	uint32_t nent, capent;
	const uint32_t *xl; /* the plane's extras, sorted */
	uint32_t nxl;
};

/*
 * Link rows: a middle's uplinks, then the tops' down links, each pod's
 * first; a row is where its block 0 is in dir and bm, its block b S
 * after block b - 1: the S slots an entry chooses from have their blocks
 * of a shift side by side (one or two cache lines, not S).
 */
static uint32_t uprow(const struct pl *x, const struct sstate *ss, uint32_t p1, uint32_t t)
{
	return p1 * ss->NB * x->S + t;
}

static uint32_t dnrow(const struct pl *x, const struct sstate *ss, uint32_t t, uint32_t p)
{
	return (x->npod + p) * ss->NB * x->S + t;
}

/* Block b of a row's counters; NULL while they are all zero. */
static const uint8_t *blk_at(const struct sstate *ss, uint32_t row, uint32_t b)
{
	uint32_t k = ss->dir[row + (size_t)ss->S * b];

	if (!k)
		return NULL;
	return ss->wide ? ss->pool8 + (size_t)(k - 1) * BLK : ss->pool + (size_t)(k - 1) * NIB_BYTES;
}

/* Block b of a row's counters, taken from the pool (zero) if need be. */
static uint8_t *blk_take(struct sstate *ss, uint32_t row, uint32_t b)
{
	uint32_t *k = &ss->dir[row + (size_t)ss->S * b];

	if (!*k) {
		ss->owner[ss->npool] = row + ss->S * b;
		*k = ++ss->npool;
		memset((uint8_t *)(uintptr_t)blk_at(ss, row, b), 0, ss->wide ? BLK : NIB_BYTES);
	}
	return (uint8_t *)(uintptr_t)blk_at(ss, row, b);
}

/* The counters of a block, four bits or a byte each (ss->wide): the
 * largest of [off, off + n), counter k, whether one of [off, off + n) is
 * not 0. */
static uint8_t c_max(const struct sstate *ss, const uint8_t *c, uint32_t off, uint32_t n)
{
	return ss->wide ? (uint8_t)pl_runmax(c, off, n, BLK) : nib_max(c, off, n);
}

static uint8_t c_get(const struct sstate *ss, const uint8_t *c, uint32_t k)
{
	return ss->wide ? c[k] : nib_get(c, k);
}

static int c_any(const struct sstate *ss, const uint8_t *c, uint32_t off, uint32_t n)
{
	return ss->wide ? pl_run_reaches(c, off, n, BLK, 1) : nib_any(c, off, n);
}

/* Counters of block b (the last one of a row may be short). */
static uint32_t blk_len(const struct sstate *ss, uint32_t b)
{
	return ss->N - b * BLK < BLK ? ss->N - b * BLK : BLK;
}

/* Largest counter of a row in [st, st + len), st + len <= N, block by block. */
static uint32_t part_max(const struct sstate *ss, uint32_t row, uint32_t st, uint32_t len)
{
	uint32_t m = 0;

	while (len) {
		uint32_t b = st / BLK, off = st % BLK, n = BLK - off < len ? BLK - off : len;
		const uint8_t *c = blk_at(ss, row, b);
		uint32_t v = c ? c_max(ss, c, off, n) : 0;
		m = v > m ? v : m;
		st += n;
		len -= n;
	}
	return m;
}

/* One counter of a row. */
static uint8_t at_shift(const struct sstate *ss, uint32_t row, uint32_t s)
{
	const uint8_t *c = blk_at(ss, row, s / BLK);

	return c ? c_get(ss, c, s % BLK) : 0;
}

static uint32_t seg_max(const struct sstate *ss, uint32_t row, uint32_t st, uint32_t len)
{
	const uint8_t *bm = ss->bm + row;
	uint32_t e = st + len, m = 0, S = ss->S;

	if (len < 3 * BLK)
		return part_max(ss, row, st, len);
	uint32_t b0 = (st + BLK - 1) / BLK, b1 = e / BLK;
	m = part_max(ss, row, st, b0 * BLK - st);
	for (uint32_t b = b0; b < b1; b++)
		m = bm[(size_t)S * b] > m ? bm[(size_t)S * b] : m;
	uint32_t t = part_max(ss, row, b1 * BLK, e - b1 * BLK);
	return t > m ? t : m;
}

static uint32_t run_max(const struct sstate *ss, uint32_t row, uint32_t st, uint32_t len,
			uint32_t N)
{
	if (st + len <= N)
		return seg_max(ss, row, st, len);
	uint32_t a = seg_max(ss, row, st, N - st), b = seg_max(ss, row, 0, st + len - N);
	return a > b ? a : b;
}

/* Largest counter + add - limit over a cyclic run, from the run's largest
 * counter (mx, if known) where the limit is T throughout; as pl_run_excess(). */
static int32_t row_excess(const struct pl *x, const struct sstate *ss, uint32_t row, uint32_t st,
			  uint32_t len, uint32_t add, uint32_t mx)
{
	uint32_t N = x->N;
	int32_t e = INT32_MIN;

	if (st >= x->zone && st + len <= N - x->zone) {
		if (mx == UINT32_MAX)
			mx = run_max(ss, row, st, len, N);
		return (int32_t)(mx + add) - (int32_t)x->T;
	}
	for (uint32_t k = 0, s = st; k < len; k++, s = s + 1 == N ? 0 : s + 1) {
		int32_t v = (int32_t)(at_shift(ss, row, s) + add) - (int32_t)x->lim[s];
		e = v > e ? v : e;
	}
	return e;
}

/* Adds d (1 or -1) to n counters from c (n <= BLK), saturating at both
 * ends; returns the largest of them after. Where the CPU has SSE2, 16 at
 * a time, the last 16 masked: the bytes after the n are written back as
 * they were (the pool has PL_PAD bytes after its last block). */
static uint8_t bump_max(uint8_t *c, uint32_t n, int d)
{
#ifdef __SSE2__
	const __m128i one = _mm_set1_epi8(1), all = _mm_set1_epi8(-1);
	__m128i mx = _mm_setzero_si128();

	for (uint32_t k = 0; k < n; k += 16) {
		__m128i in = n - k < 16 ? rg_lanes_below(n - k) : all;
		__m128i v = rg_load16(c + k), inc = _mm_and_si128(one, in);
		v = d > 0 ? _mm_adds_epu8(v, inc) : _mm_subs_epu8(v, inc);
		_mm_storeu_si128((__m128i *)(void *)(c + k), v);
		mx = _mm_max_epu8(mx, _mm_and_si128(v, in));
	}
	return rg_max_lane(mx);
#else
	uint8_t m = 0;

	for (uint32_t k = 0; k < n; k++) {
		c[k] = d > 0 ? (uint8_t)(c[k] + (c[k] < UINT8_MAX)) : (uint8_t)(c[k] - (c[k] > 0));
		m = c[k] > m ? c[k] : m;
	}
	return m;
#endif
}

/* Adds d (1 or -1) to n counters of block c from off; returns the largest
 * of them after. A four-bit counter at NIB_MAX marks the plane full. */
static uint8_t c_bump(struct sstate *ss, uint8_t *c, uint32_t off, uint32_t n, int d)
{
	if (ss->wide)
		return bump_max(c + off, n, d);
	uint8_t m = nib_bump(c, off, n, d);
	ss->full |= m == NIB_MAX;
	return m;
}

/* Adds d (1 or -1) to a cyclic run's counters (as c_bump() does), block by
 * block, each block's largest brought up to date. */
static void run_add(struct sstate *ss, uint32_t row, uint32_t st, uint32_t len, int d)
{
	uint8_t *bm = ss->bm + row;

	for (uint32_t s = st; len;) {
		uint32_t b = s / BLK, off = s % BLK, bl = blk_len(ss, b);
		uint32_t n = bl - off < len ? bl - off : len;
		uint8_t *c = d > 0 ? blk_take(ss, row, b) : (uint8_t *)(uintptr_t)blk_at(ss, row, b);
		if (c) {
			uint32_t m = c_bump(ss, c, off, n, d);
			/* adding raises only the run; taking off may lower the block's largest */
			m = d > 0 ? m : c_max(ss, c, 0, bl);
			uint8_t *bb = bm + (size_t)ss->S * b;
			*bb = (uint8_t)(d > 0 && *bb > m ? *bb : m);
		}
		len -= n;
		s = s + n == ss->N ? 0 : s + n;
	}
}

/* Every counter back to zero, the pool emptied: the next plane. */
static void clear_counts(struct sstate *ss)
{
	for (uint32_t k = 0; k < ss->npool; k++) {
		ss->dir[ss->owner[k]] = 0;
		ss->bm[ss->owner[k]] = 0;
	}
	ss->npool = 0;
}

/* Adds leaf a's run of shifts for host i, merged with one it meets (a
 * pod's leaves are often in host order). */
static void add_run(const struct pl *x, struct runs *r, uint32_t a, uint32_t i)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[a]];
	uint32_t N = x->N, st = pl_rstart(i, w->hfirst, w->nhosts, N), len = w->nhosts;

	r->w += len;
	for (uint32_t k = 0; k < r->n; k++) {
		if (pl_mod((uint64_t)st + len, N) == r->st[k] && r->len[k] + len < N) {
			r->st[k] = st;
			r->len[k] += len;
			return;
		}
		if (pl_mod((uint64_t)r->st[k] + r->len[k], N) == st && r->len[k] + len < N) {
			r->len[k] += len;
			return;
		}
	}
	if (r->n < PL_RUNS) {
		r->st[r->n] = st;
		r->len[r->n++] = len;
		return;
	}
	/* more runs than kept: widen the last one over the gap */
	uint32_t e = pl_mod((uint64_t)st + len + N - r->st[r->n - 1], N);
	r->len[r->n - 1] = e > r->len[r->n - 1] && e < N ? e : N - 1;
}

/* Entry j: its host, source pod and runs. */
static void entry(const struct pl *x, const struct sstate *ss, uint32_t j, uint32_t *i,
		  uint32_t *p1, struct runs *r)
{
	uint32_t k = (uint32_t)ss->ent[j] & ~ENT_OVER;

	*i = PL_EXTRA_HOST(ss->xl[k]);
	*p1 = x->pod[PL_EXTRA_LEAF(ss->xl[k])];
	r->n = 0;
	r->w = 0;
	for (; k < ss->nxl && PL_EXTRA_HOST(ss->xl[k]) == *i &&
	       x->pod[PL_EXTRA_LEAF(ss->xl[k])] == *p1; k++)
		add_run(x, r, PL_EXTRA_LEAF(ss->xl[k]), *i);
}

/* Largest extras + add over the shift target, over the runs, on the
 * middle's uplink to slot t and t's down link into pod p; stops early once
 * it reaches stop. */
static int32_t excess(const struct pl *x, const struct sstate *ss, const struct runs *r,
		      uint32_t p1, uint32_t t, uint32_t p, uint32_t add, int32_t stop)
{
	int32_t m = INT32_MIN;
	uint32_t rows[2] = { uprow(x, ss, p1, t), dnrow(x, ss, t, p) };

	for (uint32_t k = 0; k < r->n; k++)
		for (uint32_t j = 0; j < 2; j++) {
			int32_t e = row_excess(x, ss, rows[j], r->st[k], r->len[k], add, UINT32_MAX);
			m = e > m ? e : m;
			if (m >= stop)
				return m;
		}
	return m;
}

/* 1 if some counter of a row in [st, st + len), st + len <= N, is not 0:
 * the blocks' largest first. */
static int seg_busy(const struct sstate *ss, uint32_t row, uint32_t st, uint32_t len)
{
	const uint8_t *bm = ss->bm + row;

	while (len) {
		uint32_t b = st / BLK, off = st % BLK, n = BLK - off < len ? BLK - off : len;
		if (bm[(size_t)ss->S * b] && (n == blk_len(ss, b) ||
			      c_any(ss, blk_at(ss, row, b), off, n)))
			return 1;
		st += n;
		len -= n;
	}
	return 0;
}

/*
 * 1 if excess() with add 2 stays below goal (3 - T): where the limit is T
 * throughout, every counter of the runs on both links is 0; elsewhere as
 * row_excess() says. The first loop of choose() asks just that.
 */
static int empty(const struct pl *x, const struct sstate *ss, const struct runs *r,
		 uint32_t p1, uint32_t t, uint32_t p, int32_t goal)
{
	uint32_t rows[2] = { uprow(x, ss, p1, t), dnrow(x, ss, t, p) }, N = x->N;

	for (uint32_t k = 0; k < r->n; k++)
		for (uint32_t j = 0; j < 2; j++) {
			uint32_t st = r->st[k], len = r->len[k];
			if (st < x->zone || st + len > N - x->zone) {
				if (row_excess(x, ss, rows[j], st, len, 2, UINT32_MAX) >= goal)
					return 0;
			} else if (st + len <= N ? seg_busy(ss, rows[j], st, len) :
				   seg_busy(ss, rows[j], st, N - st) ||
				   seg_busy(ss, rows[j], 0, st + len - N)) {
				return 0;
			}
		}
	return 1;
}

/* The slot for an entry (pod p1, plane q, host of pod p), never excl, as
 * pick() in planes_leaf.c does for planes; *exc gets its excess. */
static uint32_t choose(const struct pl *x, const struct sstate *ss, const struct runs *r,
		       uint32_t q, uint32_t p1, uint32_t p, uint32_t excl, int32_t *exc)
{
	uint32_t S = x->S, np = x->npod, cand[PL_MAXP], call[PL_MAXP], n = 0, bt = RG_NONE;
	uint32_t kmin = 0;
	uint64_t key[PL_MAXP], kall[PL_MAXP], best = UINT64_MAX, vmin = UINT64_MAX;
	const uint64_t *ml = x->mload + ((size_t)q * np + p1) * S;
	const uint64_t *tl = x->tload + (size_t)q * S * np + p;
	/* a primary, the extras there, this one: T - 2 extras fit */
	int32_t goal = 3 - (int32_t)x->T;
	struct pmask m;

	pm_and(&m, &x->upm[(size_t)p1 * x->P + q], &x->dnm[(size_t)q * np + p]);
	for (uint32_t w = 0; w < (S + 63) / 64; w++)
		for (uint64_t b = m.w[w]; b; b &= b - 1) {
			uint32_t t = w * 64 + (uint32_t)__builtin_ctzll(b);
			if (t == excl)
				continue;
			uint64_t k = ml[t] > tl[(size_t)t * np] ? ml[t] : tl[(size_t)t * np];
			kmin = k < vmin ? n : kmin;
			vmin = k < vmin ? k : vmin;
			kall[n] = key[n] = k;
			call[n] = cand[n] = t;
			n++;
		}
	for (uint32_t left = n; left;) {
		uint64_t kk;
		uint32_t t = left == n ? pl_take_at(key, cand, &left, kmin, &kk) :
					 pl_take_min(key, cand, &left, &kk);
		if (kk + r->w > x->B)
			continue;
		/* the first with room to spare: no extra there yet (callers
		 * look at the sign of the excess only, at most goal - 1 here) */
		if (empty(x, ss, r, p1, t, p, goal)) {
			*exc = goal > 1 ? excess(x, ss, r, p1, t, p, 2, INT32_MAX) : goal - 1;
			return t;
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		int32_t e = excess(x, ss, r, p1, call[k], p, 2, INT32_MAX);
		uint64_t sc = ((uint64_t)(e > 0 ? e : 0) << 56) | ((uint64_t)(kall[k] + r->w > x->B) << 55) |
			      ((uint64_t)(e >= goal) << 54) | (kall[k] & ((1ull << 54) - 1));
		if (sc < best) {
			best = sc;
			bt = call[k];
			*exc = e;
		}
	}
	return bt;
}

/* Puts an entry on slot t (add) or takes it off. */
static void place(struct pl *x, struct sstate *ss, const struct runs *r, uint32_t q,
		  uint32_t p1, uint32_t i, uint32_t t, int add)
{
	uint32_t p = x->pod[x->lidx[x->g->hosts[i].sw]], S = x->S, np = x->npod;
	uint64_t dw = add ? r->w : -r->w;

	ss->slot[(size_t)p1 * x->N + i] = add ? (uint8_t)t : 0xFF;
	for (uint32_t k = 0; k < r->n; k++) {
		run_add(ss, uprow(x, ss, p1, t), r->st[k], r->len[k], add ? 1 : -1);
		run_add(ss, dnrow(x, ss, t, p), r->st[k], r->len[k], add ? 1 : -1);
	}
	x->mload[((size_t)q * np + p1) * S + t] += dw;
	x->tload[((size_t)q * S + t) * np + p] += dw;
}

static int runs_meet(const struct pl *x, const struct runs *a, const struct runs *b)
{
	for (uint32_t i = 0; i < a->n; i++)
		for (uint32_t j = 0; j < b->n; j++) {
			uint32_t d = b->st[j] >= a->st[i] ? b->st[j] - a->st[i] :
				     b->st[j] + x->N - a->st[i];
			if (d < a->len[i] || x->N - d < b->len[j])
				return 1;
		}
	return 0;
}

/* Entry j is over the target on slot t: moves entries sharing one of its
 * two links and some of its shifts to other slots where they fit. */
static int unblock(struct pl *x, struct sstate *ss, uint32_t q, uint32_t j, uint32_t t)
{
	uint32_t i, p1, tries = 0;
	struct runs r, rb;
	int32_t e;

	entry(x, ss, j, &i, &p1, &r);
	uint32_t p = x->pod[x->lidx[x->g->hosts[i].sw]];
	for (uint32_t k = 0; k < ss->nent && tries < PL_UNBLOCK; k++) {
		uint32_t ib, pb1;
		if (k == j)
			continue;
		entry(x, ss, k, &ib, &pb1, &rb);
		uint32_t pb = x->pod[x->lidx[x->g->hosts[ib].sw]];
		if (ss->slot[(size_t)pb1 * x->N + ib] != t || (pb1 != p1 && pb != p) ||
		    !runs_meet(x, &r, &rb))
			continue;
		tries++;
		place(x, ss, &rb, q, pb1, ib, t, 0);
		uint32_t nt = choose(x, ss, &rb, q, pb1, pb, t, &e);
		if (nt == RG_NONE || e > 0) {
			place(x, ss, &rb, q, pb1, ib, t, 1);
			continue;
		}
		place(x, ss, &rb, q, pb1, ib, nt, 1);
		place(x, ss, &r, q, p1, i, t, 0);
		e = excess(x, ss, &r, p1, t, p, 2, INT32_MAX);
		place(x, ss, &r, q, p1, i, t, 1);
		if (e <= 0)
			return 1;
	}
	return 0;
}

/* Entries by their upper 32 bits (pod, slots, sources), stable: two passes
 * of a 16-bit radix sort; they were made in extra order. */
static void sort_hi32(struct sstate *ss)
{
	uint32_t n = ss->nent, *pos = rg_xmalloc(65537, sizeof(*pos));
	uint64_t *tmp = rg_xmalloc(n ? n : 1, sizeof(*tmp)), *a = ss->ent, *b = tmp;

	for (uint32_t shift = 32; shift < 64; shift += 16) {
		memset(pos, 0, 65537 * sizeof(*pos));
		for (uint32_t k = 0; k < n; k++)
			pos[(a[k] >> shift & 0xFFFF) + 1]++;
		for (uint32_t v = 0; v < 65536; v++)
			pos[v + 1] += pos[v];
		for (uint32_t k = 0; k < n; k++)
			b[pos[a[k] >> shift & 0xFFFF]++] = a[k];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	free(tmp);
	free(pos);
}

/* An extra's order within its host: source pod, then leaf. */
static uint64_t pod_leaf(const struct pl *x, uint32_t e)
{
	return (uint64_t)x->pod[PL_EXTRA_LEAF(e)] << 32 | PL_EXTRA_LEAF(e);
}

/* Extras of plane q, by (host, source pod): one entry each. */
static void plane_entries(struct pl *x, struct sstate *ss, uint32_t q)
{
	uint32_t *e = x->xl[q];
	uint32_t n = x->nxl[q], np = x->npod;

	/* planes_leaf.c lists them by host: order each host's by (pod, leaf) */
	for (uint32_t k = 1; k < n; k++) {
		uint32_t v = e[k], j = k;
		while (j && PL_EXTRA_HOST(e[j - 1]) == PL_EXTRA_HOST(v) &&
		       pod_leaf(x, e[j - 1]) > pod_leaf(x, v)) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = v;
	}
	ss->xl = e;
	ss->nxl = n;
	ss->nent = 0;
	if (n > ss->capent) {
		free(ss->ent);
		ss->capent = n;
		ss->ent = rg_xmalloc(n, sizeof(*ss->ent));
	}
	for (uint32_t k = 0; k < n;) {
		uint32_t i = PL_EXTRA_HOST(e[k]), p1 = x->pod[PL_EXTRA_LEAF(e[k])], k0 = k;
		uint32_t p = x->pod[x->lidx[x->g->hosts[i].sw]];
		uint64_t w = 0, nc;
		struct pmask m;
		for (; k < n && PL_EXTRA_HOST(e[k]) == i && x->pod[PL_EXTRA_LEAF(e[k])] == p1; k++)
			w += x->g->sw[x->leafsw[PL_EXTRA_LEAF(e[k])]].nhosts;
		if (p1 == p)
			continue;
		pm_and(&m, &x->upm[(size_t)p1 * x->P + q], &x->dnm[(size_t)q * np + p]);
		nc = pm_count(&m);
		/* by destination pod (its down links stay in cache), then the most
		 * constrained first: fewest slots, then most sources */
		uint64_t pk = p < 0x7FFF ? p : 0x7FFF, wb = w / 16 < 0xFF ? w / 16 : 0xFF;
		ss->ent[ss->nent++] = pk << 48 | nc << 40 | (0xFF - wb) << 32 | k0;
	}
	sort_hi32(ss);
}

/* Greedy over the entries, then the second try for those over the target. */
/* What choose() will read first for an entry of pod p1 into pod p,
 * fetched ahead: every slot's block maxima and directory at the start of
 * each run, on the uplinks (the down links of one destination pod stay in
 * cache: entries come by destination pod). */
static void fetch_ahead(const struct pl *x, const struct sstate *ss, const struct runs *r,
			uint32_t p1)
{
	uint32_t row = uprow(x, ss, p1, 0);

	for (uint32_t k = 0; k < r->n; k++) {
		size_t c = row + (size_t)ss->S * (r->st[k] / BLK);
		__builtin_prefetch(ss->bm + c);
		__builtin_prefetch(ss->dir + c);
		__builtin_prefetch(ss->dir + c + ss->S - 1);
	}
}

static void plane_slots(struct pl *x, struct sstate *ss, uint32_t q)
{
	uint32_t i, p1, ni = 0, np1 = 0;
	struct runs rr[2], *r = &rr[0], *rn = &rr[1], *rt;
	int32_t e;

	if (ss->nent)
		entry(x, ss, 0, &ni, &np1, rn);
	for (uint32_t j = 0; j < ss->nent; j++) {
		rt = r;
		r = rn;
		rn = rt;
		i = ni;
		p1 = np1;
		if (j + 1 < ss->nent) {
			entry(x, ss, j + 1, &ni, &np1, rn);
			fetch_ahead(x, ss, rn, np1);
		}
		uint32_t p = x->pod[x->lidx[x->g->hosts[i].sw]];
		uint32_t t = choose(x, ss, r, q, p1, p, RG_NONE, &e);
		ss->extras++;
		if (t == RG_NONE)
			continue;
		place(x, ss, r, q, p1, i, t, 1);
		if (e > 0)
			ss->ent[j] |= ENT_OVER;
	}
	for (uint32_t j = 0, tries = 0; j < ss->nent; j++) {
		if (!(ss->ent[j] & ENT_OVER))
			continue;
		ss->ent[j] &= ~(uint64_t)ENT_OVER;
		entry(x, ss, j, &i, &p1, r);
		uint32_t p = x->pod[x->lidx[x->g->hosts[i].sw]];
		uint32_t t = ss->slot[(size_t)p1 * x->N + i];
		place(x, ss, r, q, p1, i, t, 0);
		t = choose(x, ss, r, q, p1, p, RG_NONE, &e);
		place(x, ss, r, q, p1, i, t, 1);
		/* unblock() walks the plane's entries: a bounded number of times */
		if (e > 0 && (tries++ >= PL_UNBLOCKS || !unblock(x, ss, q, j, t)))
			ss->over++;
	}
}

/* Pod of every host the middles of plane q route (its leaf has plane q
 * down), RG_NONE for the others. */
static void plane_pods(const struct pl *x, uint32_t q, uint32_t *hp)
{
	const struct rgraph *g = x->g;

	for (uint32_t i = 0; i < x->N; i++) {
		uint32_t l = x->lidx[g->hosts[i].sw];
		hp[i] = l == RG_NONE || !pm_has(&x->dmask[l], q) ? RG_NONE : x->pod[l];
	}
}

/* What write_plane() reads of every host for each middle switch, kept
 * small (the hosts' records are 20 bytes each). */
struct hcols {
	uint32_t *hp;    /* plane_pods() */
	uint8_t *t0s;    /* the host's own slot */
	uint16_t *lid;   /* its base LID */
	uint16_t *dport; /* [pod * S + t0]: a host's port without a slot of its
			    own (its t0 if both links work, else the next that
			    does), 0xFFFF if none */
};

/* Middle switches of plane q, every host of another pod they can reach:
 * switch by switch (its table row and its slots in one run each). */
static void write_plane(const struct pl *x, const struct sstate *ss, uint32_t q,
			const struct hcols *hc, uint8_t **lft)
{
	uint32_t P = x->P, S = x->S, np = x->npod;

	plane_pods(x, q, hc->hp);
	for (uint32_t p1 = 0; p1 < np; p1++) {
		uint32_t s = x->mid[(size_t)p1 * P + q];
		const uint8_t *slot = ss->slot + (size_t)p1 * x->N;
		const uint8_t *mup = x->mup + ((size_t)p1 * P + q) * S;
		const struct pmask *up = &x->upm[(size_t)p1 * P + q];
		if (s == RG_NONE)
			continue;
		for (uint32_t p = 0; p < np; p++) {
			struct pmask m;
			pm_and(&m, up, &x->dnm[(size_t)q * np + p]);
			for (uint32_t t0 = 0; t0 < S; t0++) {
				uint32_t t = pl_next(&m, t0, S);
				hc->dport[(size_t)p * S + t0] = t == RG_NONE ? 0xFFFF : mup[t];
			}
		}
		for (uint32_t i = 0; i < x->N; i++) {
			uint32_t p = hc->hp[i], t = slot[i];
			if (p == p1 || p == RG_NONE)
				continue;
			uint32_t port = t != 0xFF ? mup[t] : hc->dport[(size_t)p * S + hc->t0s[i]];
			if (port != 0xFFFF)
				lft[s][hc->lid[i]] = (uint8_t)port;
		}
	}
}

/* Planes taken one at a time from next, with counters of its own. */
struct half {
	struct pl *x;
	uint8_t **lft;
	atomic_uint *next;
	struct sstate ss;
	uint64_t *sl;     /* a plane's mload and tload before its slots */
	uint64_t wide;    /* planes routed again with byte counters */
	int bytes;        /* route_opts.planes_bytes */
};

/* Plane q's slots (ss->slot), on four-bit counters; where one reached 15,
 * again from the start on byte counters. */
static void plane_counted(struct half *h, uint32_t q, uint32_t rows)
{
	struct pl *x = h->x;
	struct sstate *ss = &h->ss;
	size_t n = (size_t)x->npod * x->S;
	uint64_t *ml = x->mload + (size_t)q * n, *tl = x->tload + (size_t)q * n;
	uint64_t extras = ss->extras, over = ss->over;

	memcpy(h->sl, ml, n * sizeof(*ml));
	memcpy(h->sl + n, tl, n * sizeof(*tl));
	for (ss->wide = h->bytes;; ss->wide = 1) {
		if (ss->wide && !ss->pool8)
			ss->pool8 = pl_big((size_t)rows * ss->NB * BLK + PL_PAD, 0);
		clear_counts(ss);
		ss->full = 0;
		memset(ss->slot, 0xFF, (size_t)x->npod * x->N);
		plane_entries(x, ss, q);
		plane_slots(x, ss, q);
		if (ss->wide || !ss->full)
			break;
		memcpy(ml, h->sl, n * sizeof(*ml));
		memcpy(tl, h->sl + n, n * sizeof(*tl));
		ss->extras = extras;
		ss->over = over;
		h->wide++;
	}
}

static void route_half(void *arg)
{
	struct half *h = arg;
	struct pl *x = h->x;
	struct sstate *ss = &h->ss;
	uint32_t rows = 2 * x->npod * x->S, n = x->N ? x->N : 1;
	struct hcols hc = { rg_xmalloc(n, sizeof(*hc.hp)), rg_xmalloc(n, 1),
			    rg_xmalloc(n, sizeof(*hc.lid)),
			    rg_xmalloc((size_t)x->npod * x->S + 1, sizeof(*hc.dport)) };

	for (uint32_t i = 0; i < x->N; i++) {
		hc.t0s[i] = (uint8_t)((i / x->P) % x->S); /* S < PL_MAXP (pl_take()) */
		hc.lid[i] = x->g->hosts[i].lid;
	}

	ss->N = x->N;
	ss->NB = (x->N + BLK - 1) / BLK;
	ss->S = x->S;
	ss->dir = pl_big((size_t)rows * ss->NB * sizeof(*ss->dir), 1);
	ss->pool = pl_big((size_t)rows * ss->NB * NIB_BYTES, 0);
	ss->owner = rg_xmalloc((size_t)rows * ss->NB, sizeof(*ss->owner));
	ss->bm = pl_big((size_t)rows * ss->NB, 1);
	ss->slot = rg_xmalloc((size_t)x->npod * x->N, 1);
	h->sl = rg_xmalloc(2 * (size_t)x->npod * x->S + 1, sizeof(*h->sl));
	for (uint32_t q; (q = atomic_fetch_add(h->next, 1)) < x->P;) {
		plane_counted(h, q, rows);
		write_plane(x, ss, q, &hc, h->lft);
		free(x->xl[q]); /* done with: the next planes need the room */
		x->xl[q] = NULL;
	}
	free(ss->dir);
	free(ss->pool);
	free(ss->pool8);
	free(h->sl);
	free(ss->owner);
	free(ss->bm);
	free(ss->slot);
	free(ss->ent);
	free(hc.hp);
	free(hc.t0s);
	free(hc.lid);
	free(hc.dport);
}

/* Planes are apart: two threads may take them one by one, whichever is
 * free next (a plane's load counts, extras list and middle switches are
 * its own, and its counters start from zero). */
void pl_route_middles(struct pl *x, uint8_t **lft, unsigned threads, int bytes)
{
	atomic_uint next = 0;
	struct half h[2] = { { .x = x, .lft = lft, .next = &next, .bytes = bytes },
			     { .x = x, .lft = lft, .next = &next, .bytes = bytes } };

	rg_par2(route_half, &h[1], &h[0], threads);
	for (uint32_t k = 0; k < 2; k++) {
		x->st->slot_extras += h[k].ss.extras;
		x->st->slot_over += h[k].ss.over;
		x->st->slot_wide += h[k].wide;
	}
	for (size_t k = 0; k < (size_t)x->P * x->npod * x->S; k++) {
		x->st->a2a_max = x->mload[k] > x->st->a2a_max ? x->mload[k] : x->st->a2a_max;
		x->st->a2a_max = x->tload[k] > x->st->a2a_max ? x->tload[k] : x->st->a2a_max;
	}
}
