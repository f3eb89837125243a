/*
 * DOC: plane routing, step 1: every leaf's plane for every destination.
 *
 * Destination leaves one at a time, in host order (on a big fabric two
 * runs of them side by side, see route_all_leaves()). First every (source
 * leaf, host) pair whose own plane and slot work (pl_primary) takes them.
 * Then the extras, the most constrained first (fewest planes to choose
 * from), each take a plane by pick(), counting what every shift puts
 * where:
 *   - the destination leaf's down link from the plane: counted per shift
 *     (cnt);
 *   - the source leaf's uplink: a shift's flows from leaf a go to a window
 *     of consecutive hosts, so the busiest window around the host on a's
 *     row of planes (erow: chosen ones, and the primaries still to come);
 *   - the plane between the two pods: per shift, the extras from the
 *     source pod into the destination leaf's pod (up), held to what the
 *     top slots the two middle switches share can take.
 * An extra left over the target gets another try, then others of the same
 * leaf sharing its link and shifts move aside where they fit (unblock()).
 */
#include <stdlib.h>
#include <string.h>

#include "routing/par.h"
#include "routing/planes_int.h"
#include "routing/routing.h"
#include "routing/simd.h"

#define PL_UNBLOCK 64 /* other extras unblock() may try to move */
#define NOPL 0xFF     /* erow: no plane (yet) */
/* Steps of placements a half keeps for the other: it takes those of step
 * k - 2 at step k, and the two are at most one step apart. */
#define PL_LOGS 4
#define PL_AHEAD 8 /* rows of erow fetched ahead of their reading */

/* A destination leaf's extras, listed at its turn (half_step()). */
struct lkeys {
	uint64_t *raw, *keys;/* (choices, host, leaf): by host, by choices */
	uint8_t *rq;         /* per raw key: its plane, once placed */
	uint32_t nkeys, capkeys;
	uint64_t colload[PL_MAXP]; /* its primaries' all-to-all, per plane */
};

struct lstate {
	uint8_t *cnt;        /* [q * N + shift]: extra flows into the leaf from plane q */
	uint8_t base[PL_MAXP]; /* and its primaries' (one flow each, every shift) */
	uint64_t colload[PL_MAXP]; /* all-to-all into the leaf from plane q */
	uint64_t coldn[PL_MAXP];   /* the larger of it and dn[upod * P + q] */
	uint8_t *erow;       /* [a * N + host]: leaf a's plane for the host */
	uint8_t *up;         /* [(p1 * P + q) * uw + shift - ubase[p1]]: extras from
				pod p1 through plane q into pod upod */
	uint32_t upod, uw;   /* uw: shifts a row holds (N, or a pod pair's window) */
	uint32_t *ubase;     /* per pod: first shift of its row */
	uint32_t *pstart, *plen; /* per pod: first host, hosts (if in one run) */
	uint32_t *room;      /* [p1 * P + q]: up_room() into pod upod */
	uint64_t *un, *dn;   /* [pod * P + q]: midup, middn per uplink of the middle */
	uint32_t cur;        /* the destination leaf being routed */
	uint64_t *raw, *keys;/* its extras (its struct lkeys') */
	uint32_t nkeys;
	uint8_t *rq;
	/* this half's view of the all-to-all loads (struct pl's, with
	 * route_all_leaves()'s two halves), and its placements of the last
	 * PL_LOGS steps for the other half (step k's in log[k % PL_LOGS]) */
	uint64_t *rowload, *midup, *middn;
	struct ldelta *log[PL_LOGS];
	uint32_t nlog[PL_LOGS], caplog[PL_LOGS], logk; /* logk: this step's */
	uint32_t **xl, *nxl, *capxl; /* its extras by plane, for struct pl's */
	uint64_t extras, over, a2a_max; /* its part of planes_stats' */
};

/* Extra (a, host) of destination leaf l put on plane q (add) or taken off. */
struct ldelta {
	uint32_t a, l, q, add;
};

/* The all-to-all load counts, zero, and each middle's uplinks. */
void pl_loads_init(struct pl *x)
{
	uint32_t P = x->P, S = x->S, np = x->npod;

	x->rowload = rg_xcalloc((size_t)x->nleaf * P, sizeof(*x->rowload));
	x->midup = rg_xcalloc((size_t)np * P, sizeof(*x->midup));
	x->middn = rg_xcalloc((size_t)np * P, sizeof(*x->middn));
	x->cup = rg_xcalloc((size_t)np * P, sizeof(*x->cup));
	x->mload = rg_xcalloc((size_t)P * np * (S ? S : 1), sizeof(*x->mload));
	x->tload = rg_xcalloc((size_t)P * np * (S ? S : 1), sizeof(*x->tload));
	x->rcup = rg_xcalloc((size_t)np * P, sizeof(*x->rcup));
	for (size_t k = 0; k < (size_t)np * P; k++) {
		x->cup[k] = pm_count(&x->upm[k]);
		x->rcup[k] = x->cup[k] ? (1ull << 24) / x->cup[k] : 0;
	}
}

/* Hosts a leaf of pod p1 may send whole (pl_primary(), its own uplink
 * aside): ok[i] for every host i. */
static void pod_ok(const struct pl *x, uint32_t p1, uint8_t *ok)
{
	const struct rgraph *g = x->g;
	uint32_t P = x->P, S = x->S;

	for (uint32_t i = 0, j0 = 0; i < x->N; i++, j0 = j0 + 1 == P ? 0 : j0 + 1) {
		uint32_t l = x->lidx[g->hosts[i].sw], p, t0;
		ok[i] = 0;
		if (l == RG_NONE || !x->primok[i])
			continue;
		p = x->pod[l];
		t0 = S ? (i / P) % S : 0;
		ok[i] = p == p1 || (S && x->mup[((size_t)p1 * P + j0) * S + t0] &&
				    x->tdown[((size_t)j0 * S + t0) * x->npod + p]);
	}
}

/* Leaf a's row of erow (its primaries: ok, and its uplink to the host's
 * plane) and its uplinks' load. */
static void leaf_row(struct pl *x, struct lstate *ls, uint32_t a, const uint8_t *ok)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[a]];
	uint32_t N = x->N, P = x->P, n[PL_MAXP] = { 0 };
	const uint8_t *up = x->lup + (size_t)a * P;
	uint8_t *row = ls->erow + (size_t)a * N;

	for (uint32_t i = 0, j0 = 0; i < N; i++, j0 = j0 + 1 == P ? 0 : j0 + 1) {
		int prim = ok[i] && up[j0] && (i < w->hfirst || i >= w->hfirst + w->nhosts);
		row[i] = prim ? (uint8_t)j0 : NOPL;
		n[j0] += (uint32_t)prim;
	}
	for (uint32_t q = 0; q < P; q++)
		x->rowload[(size_t)a * P + q] += (uint64_t)w->nhosts * n[q];
}

/* Marks every (leaf, host) primary in erow and counts its all-to-all load
 * on the leaf's uplink and the middles' (rows and pods ahead of time, so
 * that extras see what primaries will bring). Pod by pod: a host another
 * pod's leaves send whole loads the middles with the hosts of every leaf
 * of the pod that has the host's plane (h, summed once). */
static void mark_primaries(struct pl *x, struct lstate *ls)
{
	const struct rgraph *g = x->g;
	uint32_t N = x->N, P = x->P, S = x->S, np = x->npod;
	uint8_t *ok = rg_xmalloc(N ? N : 1, 1);

	for (uint32_t p1 = 0; p1 < np; p1++) {
		uint64_t h[PL_MAXP] = { 0 };
		pod_ok(x, p1, ok);
		for (uint32_t k = x->pfirst[p1]; k < x->pfirst[p1 + 1]; k++) {
			uint32_t a = x->plist[k];
			leaf_row(x, ls, a, ok);
			for (uint32_t q = 0; q < P; q++)
				h[q] += x->lup[(size_t)a * P + q] ? g->sw[x->leafsw[a]].nhosts : 0;
		}
		for (uint32_t i = 0, j0 = 0; i < N; i++, j0 = j0 + 1 == P ? 0 : j0 + 1) {
			uint32_t p = ok[i] ? x->pod[x->lidx[g->hosts[i].sw]] : p1, t0;
			if (p == p1 || !h[j0])
				continue;
			t0 = (i / P) % S; /* p != p1: S is not 0 (pod_ok()) */
			x->midup[(size_t)p1 * P + j0] += h[j0];
			x->middn[(size_t)p * P + j0] += h[j0];
			x->mload[((size_t)j0 * np + p1) * S + t0] += h[j0];
			x->tload[((size_t)j0 * S + t0) * np + p] += h[j0];
		}
	}
	free(ok);
}

static void push_extra(struct lstate *ls, uint32_t q, uint32_t a, uint32_t i)
{
	if (ls->nxl[q] == ls->capxl[q]) {
		ls->capxl[q] = ls->capxl[q] ? 2 * ls->capxl[q] : 1024;
		uint32_t *n = realloc(ls->xl[q], ls->capxl[q] * sizeof(*n));
		if (!n)
			abort();
		ls->xl[q] = n;
	}
	ls->xl[q][ls->nxl[q]++] = PL_EXTRA(i, a);
}

/* Planes leaf a may send a host of leaf l through (the host's own one
 * too: through another top slot, or where the host is spread). */
static void choices(const struct pl *x, uint32_t a, uint32_t l, struct pmask *m)
{
	pm_and(m, &x->lmask[a], &x->dmask[l]);
	if (x->pod[a] != x->pod[l])
		pm_and(m, m, &x->common[(size_t)x->pod[a] * x->npod + x->pod[l]]);
}

/* The busiest window of h hosts holding host i on leaf a's uplink to plane
 * q, with i added: the windows are what shifts send from a. Walks the
 * hosts of q around i (few: a plane holds one host in P). */
static uint32_t row_load(const struct pl *x, const struct lstate *ls, uint32_t a, uint32_t q,
			 uint32_t i, uint32_t h)
{
	const uint8_t *row = ls->erow + (size_t)a * x->N;
	uint32_t N = x->N, span = 2 * h - 1 < N ? 2 * h - 1 : N, m = 0, best = 0;
	uint32_t d = pl_mod((uint64_t)i + N - (h - 1), N);
	uint16_t pos[2 * 256];

	int done = 0;
#ifdef __SSE2__
	if (d + span <= N) {
		/* 16 at a time: erow has PL_PAD bytes after it, bits past span cut */
		const __m128i qq = _mm_set1_epi8((char)q);
		for (uint32_t k = 0; k < span; k += 16) {
			__m128i v = rg_load16(row + d + k);
			uint32_t bits = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, qq));
			if (span - k < 16)
				bits &= (1u << (span - k)) - 1;
			for (; bits; bits &= bits - 1)
				pos[m++] = (uint16_t)(k + (uint32_t)__builtin_ctz(bits));
		}
		done = 1;
	}
#endif
	for (uint32_t k = 0; !done && k < span; k++, d = d + 1 == N ? 0 : d + 1)
		if (row[d] == q)
			pos[m++] = (uint16_t)k;
	/* i sits at h - 1: windows [w, w + h), w in [0, h - 1]; the busiest
	 * starts at 0 or just takes in a host on the right */
	for (uint32_t j = 0; j <= m; j++) {
		if (j < m && pos[j] < h)
			continue;
		uint32_t w = j < m ? pos[j] - (h - 1) : 0, n = 0;
		for (uint32_t k = 0; k < m; k++)
			n += pos[k] >= w && pos[k] < w + h;
		best = n > best ? n : best;
	}
	return best + 1;
}

/* Extras one shift may send from pod p1 to pod p through plane q: the top
 * slots the two middles share, each taking T - 2 besides its primary. */
static uint32_t up_room(const struct pl *x, uint32_t p1, uint32_t p, uint32_t q)
{
	struct pmask m;

	pm_and(&m, &x->upm[(size_t)p1 * x->P + q], &x->dnm[(size_t)q * x->npod + p]);
	uint32_t n = pm_count(&m) * (x->T - 2);
	return n ? n : 1;
}

/* How far placing (a, i) on plane q goes over the shift target. */
static int32_t excess(const struct pl *x, const struct lstate *ls, uint32_t a, uint32_t i,
		      uint32_t q)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[a]];
	uint32_t N = x->N, h = w->nhosts, st = pl_rstart(i, w->hfirst, h, N), rowlim = x->T;
	uint32_t p1 = x->pod[a], p = x->pod[ls->cur];
	int32_t e = INT32_MIN, d;

	if (x->S && p1 != p) {
		uint32_t at = pl_mod((uint64_t)st + N - ls->ubase[p1], N);
		e = (int32_t)pl_runmax(ls->up + ((size_t)p1 * x->P + q) * ls->uw, at, h, ls->uw) +
		    1 - (int32_t)ls->room[(size_t)p1 * x->P + q];
	}
	d = pl_run_excess(x, ls->cnt + (size_t)q * N, st, h, 1u + ls->base[q], UINT32_MAX);
	e = d > e ? d : e;
	/* a's uplink, held to the lowest limit of the run of shifts */
	if (st < x->zone || st + h > N - x->zone)
		for (uint32_t k = 0, s = st; k < h; k++, s = s + 1 == N ? 0 : s + 1)
			rowlim = x->lim[s] < rowlim ? x->lim[s] : rowlim;
	d = h <= 256 ? (int32_t)row_load(x, ls, a, q, i, h) - (int32_t)rowlim : 0;
	return d > e ? d : e;
}

/* 1 if excess() is below 0, asked the cheapest way first: whether some
 * counter reaches its limit (a compare), the uplink's windows last. */
static int fits(const struct pl *x, const struct lstate *ls, uint32_t a, uint32_t i, uint32_t q)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[a]];
	uint32_t N = x->N, h = w->nhosts, st = pl_rstart(i, w->hfirst, h, N), rowlim = x->T;
	uint32_t p1 = x->pod[a], p = x->pod[ls->cur], add = 1u + ls->base[q];

	/* the down link first: it turns most candidates away */
	if (st >= x->zone && st + h <= N - x->zone) {
		if (pl_run_reaches(ls->cnt + (size_t)q * N, st, h, N, x->T > add ? x->T - add : 0))
			return 0;
	} else {
		if (pl_run_excess(x, ls->cnt + (size_t)q * N, st, h, add, UINT32_MAX) >= 0)
			return 0;
		for (uint32_t k = 0, s = st; k < h; k++, s = s + 1 == N ? 0 : s + 1)
			rowlim = x->lim[s] < rowlim ? x->lim[s] : rowlim;
	}
	if (x->S && p1 != p &&
	    pl_run_reaches(ls->up + ((size_t)p1 * x->P + q) * ls->uw,
			   pl_mod((uint64_t)st + N - ls->ubase[p1], N), h, ls->uw,
			   ls->room[(size_t)p1 * x->P + q] - 1))
		return 0;
	return h <= 256 && (int32_t)row_load(x, ls, a, q, i, h) < (int32_t)rowlim;
}

/* The middles' loads per uplink, after midup or middn changed at k. */
static void norm(const struct pl *x, struct lstate *ls, size_t k)
{
	ls->un[k] = ls->midup[k] * x->rcup[k] >> 24;
	ls->dn[k] = ls->middn[k] * x->rcup[k] >> 24;
}

/*
 * The plane for extra (a, i), never excl: candidates in a2a key order, the
 * first that stays below the shift target and leaves room under the
 * all-to-all bound; failing that the least bad: excess over the target
 * first, then over the bound, then at the target, then the key. *exc gets
 * its excess.
 */
static uint32_t pick(const struct pl *x, const struct lstate *ls, uint32_t a, uint32_t i,
		     uint32_t l, uint32_t excl, int32_t *exc)
{
	static const uint64_t zero[PL_MAXP];
	uint32_t P = x->P, h = x->g->sw[x->leafsw[a]].nhosts;
	uint64_t key[PL_MAXP], kall[PL_MAXP], best = UINT64_MAX, vmin = UINT64_MAX;
	uint32_t cand[PL_MAXP], call[PL_MAXP], n = 0, bq = RG_NONE, kmin = 0;
	struct pmask m;
	/* the all-to-all load each plane would land on: the leaf's uplink,
	 * the down link into l, and per uplink of the two middle switches
	 * (from another pod; coldn holds the second middle's) */
	int far = x->pod[a] != x->pod[l] && x->S;
	const uint64_t *row = ls->rowload + (size_t)a * P, *col = far ? ls->coldn : ls->colload;
	const uint64_t *un = far ? ls->un + (size_t)x->pod[a] * P : zero;

	choices(x, a, l, &m);
	for (uint32_t w = 0; w < (P + 63) / 64; w++)
		for (uint64_t b = m.w[w]; b; b &= b - 1) {
			uint32_t q = w * 64 + (uint32_t)__builtin_ctzll(b);
			if (q == excl)
				continue;
			uint64_t k = row[q] > col[q] ? row[q] : col[q];
			k = un[q] > k ? un[q] : k;
			kmin = k < vmin ? n : kmin;
			vmin = k < vmin ? k : vmin;
			kall[n] = key[n] = k;
			call[n] = cand[n] = q;
			n++;
		}
	for (uint32_t left = n; left;) {
		uint64_t kk;
		uint32_t q = left == n ? pl_take_at(key, cand, &left, kmin, &kk) :
					 pl_take_min(key, cand, &left, &kk);
		if (kk + h > x->B)
			continue;
		if (fits(x, ls, a, i, q)) {
			*exc = -1; /* below the target: callers ask for the sign */
			return q;
		}
	}
	/* none is below both: the least bad */
	for (uint32_t k = 0; k < n; k++) {
		int32_t e = excess(x, ls, a, i, call[k]);
		uint64_t sc = ((uint64_t)(e > 0 ? e : 0) << 56) | ((uint64_t)(kall[k] + h > x->B) << 55) |
			      ((uint64_t)(e >= 0) << 54) | (kall[k] & ((1ull << 54) - 1));
		if (sc < best) {
			best = sc;
			bq = call[k];
			*exc = e;
		}
	}
	return bq;
}

/* n counters from c plus d (1 or -1); one that reached 255 stays there (a
 * count that high is over any target anyway, and undoing must not wrap).
 * 16 at a time where the CPU has SSE2, the last 16 masked: the bytes after
 * the n (the next row's, or PL_PAD) are written back as they were, by the
 * one thread that owns the counters. */
static void bump_span(uint8_t *c, uint32_t n, int d)
{
#ifdef __SSE2__
	const __m128i one = _mm_set1_epi8(1), full = _mm_set1_epi8((char)0xFF);
	const __m128i all = _mm_set1_epi8(-1);

	for (uint32_t k = 0; k < n; k += 16) {
		__m128i in = n - k < 16 ? rg_lanes_below(n - k) : all, inc = _mm_and_si128(one, in);
		__m128i v = rg_load16(c + k), keep = _mm_cmpeq_epi8(v, full);
		__m128i r = d > 0 ? _mm_adds_epu8(v, inc) :
			    _mm_or_si128(_mm_and_si128(keep, v),
					 _mm_andnot_si128(keep, _mm_sub_epi8(v, inc)));
		_mm_storeu_si128((__m128i *)(void *)(c + k), r);
	}
#else
	for (uint32_t k = 0; k < n; k++)
		c[k] = c[k] == UINT8_MAX ? c[k] : (uint8_t)(c[k] + d);
#endif
}

/* bump_span() on the cyclic run [st, st + len) of a row of n counters. */
static void bump_run(uint8_t *c, uint32_t n, uint32_t st, uint32_t len, int d)
{
	uint32_t first = n - st < len ? n - st : len;

	bump_span(c + st, first, d);
	bump_span(c, len - first, d);
}

/* The all-to-all loads of a placement (dh: + or - leaf a's hosts). */
static void add_loads(const struct pl *x, struct lstate *ls, uint32_t a, uint32_t l, uint32_t q,
		      uint64_t dh)
{
	uint32_t P = x->P;

	ls->rowload[(size_t)a * P + q] += dh;
	if (x->S && x->pod[a] != x->pod[l]) {
		ls->midup[(size_t)x->pod[a] * P + q] += dh;
		ls->middn[(size_t)x->pod[l] * P + q] += dh;
		norm(x, ls, (size_t)x->pod[a] * P + q);
		norm(x, ls, (size_t)x->pod[l] * P + q);
	}
}

/* coldn[q] after colload[q] or dn changed. */
static void coldn(const struct pl *x, struct lstate *ls, uint32_t q)
{
	uint64_t d = x->S ? ls->dn[(size_t)x->pod[ls->cur] * x->P + q] : 0;

	ls->coldn[q] = ls->colload[q] > d ? ls->colload[q] : d;
}

/* Notes a placement for the other half (if any). */
static void log_delta(struct lstate *ls, uint32_t a, uint32_t l, uint32_t q, int add)
{
	uint32_t c = ls->logk;

	if (!ls->log[c])
		return;
	if (ls->nlog[c] == ls->caplog[c]) {
		ls->caplog[c] *= 2;
		struct ldelta *n = realloc(ls->log[c], ls->caplog[c] * sizeof(*n));
		if (!n)
			abort();
		ls->log[c] = n;
	}
	ls->log[c][ls->nlog[c]++] = (struct ldelta){ a, l, q, (uint32_t)add };
}

/* Puts extra (a, i) of leaf l on plane q (add) or takes it off. */
static void place(struct pl *x, struct lstate *ls, uint32_t a, uint32_t i, uint32_t l,
		  uint32_t q, int add)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[a]];
	uint32_t N = x->N, P = x->P, h = w->nhosts, st = pl_rstart(i, w->hfirst, h, N);
	uint64_t dh = add ? (uint64_t)h : -(uint64_t)h;
	uint8_t *cnt = ls->cnt + (size_t)q * N;
	int d = add ? 1 : -1;
	uint8_t *up = x->S && x->pod[a] != x->pod[l] ?
		      ls->up + ((size_t)x->pod[a] * P + q) * ls->uw : NULL;

	bump_run(cnt, N, st, h, d);
	if (up)
		bump_run(up, ls->uw, pl_mod((uint64_t)st + N - ls->ubase[x->pod[a]], N), h, d);
	ls->erow[(size_t)a * N + i] = add ? (uint8_t)q : NOPL;
	ls->colload[q] += dh;
	log_delta(ls, a, l, q, add);
	add_loads(x, ls, a, l, q, dh);
	coldn(x, ls, q);
}

static void grow_keys(struct lkeys *ls)
{
	ls->capkeys = ls->capkeys ? 2 * ls->capkeys : 4096;
	free(ls->raw);
	ls->raw = rg_xmalloc(ls->capkeys, sizeof(*ls->raw));
	uint64_t *k = realloc(ls->keys, ls->capkeys * sizeof(*k));
	if (!k)
		abort();
	ls->keys = k;
	free(ls->rq);
	ls->rq = rg_xmalloc(ls->capkeys, 1);
}

/*
 * Primaries of destination leaf l counted; the rest into keys, by leaf
 * (each leaf's row of erow in one go). Only l's hosts' columns of erow
 * are read, and until l's turn only its primaries are there: routing the
 * leaves before l writes their own hosts' columns alone.
 */
static void leaf_primaries(const struct pl *x, const uint8_t *erow, uint32_t l,
			   struct lkeys *ls)
{
	const struct rgraph *g = x->g;
	const struct rg_sw *w = &g->sw[x->leafsw[l]];
	uint32_t N = x->N;

	ls->nkeys = 0;
	memset(ls->colload, 0, sizeof(ls->colload));
	for (uint32_t a = 0; a < x->nleaf; a++) {
		const uint8_t *row = erow + (size_t)a * N;
		uint64_t h = g->sw[x->leafsw[a]].nhosts;
		/* a column of rows N apart: too far apart for the hardware to
		 * fetch ahead on a big fabric */
		if (a + PL_AHEAD < x->nleaf) {
			__builtin_prefetch(row + (size_t)PL_AHEAD * N + w->hfirst);
			__builtin_prefetch(row + (size_t)PL_AHEAD * N + w->hfirst + w->nhosts - 1);
		}
		uint64_t nc = UINT64_MAX; /* a's choices for l's hosts, once needed */
		if (a == l || x->lcomp[a] != x->lcomp[l])
			continue;
		for (uint32_t i = w->hfirst; i < w->hfirst + w->nhosts; i++) {
			if (row[i] != NOPL) {
				ls->colload[row[i]] += h;
				continue;
			}
			if (nc == UINT64_MAX) {
				struct pmask m;
				choices(x, a, l, &m);
				nc = pm_count(&m);
			}
			if (ls->nkeys == ls->capkeys)
				grow_keys(ls);
			ls->keys[ls->nkeys++] = nc << 48 | (uint64_t)(i - w->hfirst) << 24 | a;
		}
	}
}

/* keys (leaf, host order) into raw by host and keys by number of choices,
 * both stable: raw (host, leaf), keys (choices, host, leaf). */
static void sort_keys(const struct pl *x, struct lkeys *ls, uint32_t nh)
{
	uint32_t pos[PL_MAXP + 2] = { 0 }, *hp = rg_xcalloc(nh + 1, sizeof(*hp));

	for (uint32_t k = 0; k < ls->nkeys; k++)
		hp[(ls->keys[k] >> 24 & 0xFFFFFF) + 1]++;
	for (uint32_t i = 0; i < nh; i++)
		hp[i + 1] += hp[i];
	for (uint32_t k = 0; k < ls->nkeys; k++)
		ls->raw[hp[ls->keys[k] >> 24 & 0xFFFFFF]++] = ls->keys[k];
	free(hp);
	for (uint32_t k = 0; k < ls->nkeys; k++)
		pos[(ls->raw[k] >> 48) + 1]++;
	for (uint32_t c = 0; c <= x->P; c++)
		pos[c + 1] += pos[c];
	for (uint32_t k = 0; k < ls->nkeys; k++)
		ls->keys[pos[ls->raw[k] >> 48]++] = ls->raw[k];
}

static uint32_t key_leaf(uint64_t k)
{
	return (uint32_t)(k & 0xFFFFFF);
}

static uint32_t key_host(const struct rg_sw *w, uint64_t k)
{
	return w->hfirst + (uint32_t)(k >> 24 & 0xFFFFFF);
}

/* 1 if the cyclic runs [s1, s1 + n1) and [s2, s2 + n2) of N meet. */
static int runs_meet(uint32_t s1, uint32_t n1, uint32_t s2, uint32_t n2, uint32_t N)
{
	uint32_t d = s2 >= s1 ? s2 - s1 : s2 + N - s1;

	return d < n1 || N - d < n2;
}

/*
 * Extra k of leaf l is over the target on plane q: moves other extras of
 * l off q where they share its shifts (the down link) or its source
 * leaf's window (the uplink), each only to a plane within the target,
 * until k fits. 1 if it does.
 */
static int unblock(struct pl *x, struct lstate *ls, uint32_t l, uint32_t k, uint32_t q)
{
	const struct rgraph *g = x->g;
	const struct rg_sw *lw = &g->sw[x->leafsw[l]];
	uint32_t N = x->N, a = key_leaf(ls->keys[k]), i = key_host(lw, ls->keys[k]);
	const struct rg_sw *aw = &g->sw[x->leafsw[a]];
	uint32_t st = pl_rstart(i, aw->hfirst, aw->nhosts, N), tries = 0;
	int32_t e;

	for (uint32_t j = 0; j < ls->nkeys && tries < PL_UNBLOCK; j++) {
		uint32_t b = key_leaf(ls->keys[j]), ib = key_host(lw, ls->keys[j]);
		const struct rg_sw *bw = &g->sw[x->leafsw[b]];
		if (j == k || ls->erow[(size_t)b * N + ib] != q)
			continue;
		uint32_t sb = pl_rstart(ib, bw->hfirst, bw->nhosts, N);
		uint32_t d = ib > i ? ib - i : i - ib;
		if (!runs_meet(st, aw->nhosts, sb, bw->nhosts, N) &&
		    !(b == a && (d < aw->nhosts || N - d < aw->nhosts)))
			continue;
		tries++;
		place(x, ls, b, ib, l, q, 0);
		uint32_t nq = pick(x, ls, b, ib, l, q, &e);
		if (nq == RG_NONE || e > 0) {
			place(x, ls, b, ib, l, q, 1);
			continue;
		}
		place(x, ls, b, ib, l, nq, 1);
		place(x, ls, a, i, l, q, 0);
		e = excess(x, ls, a, i, q);
		place(x, ls, a, i, l, q, 1);
		if (e <= 0)
			return 1;
	}
	return 0;
}

/* The extras of leaf l: greedy, the most constrained first, then another
 * try for each left over the target; then listed for planes_slot.c in
 * (host, leaf) order. */
static void leaf_extras(struct pl *x, struct lstate *ls, uint32_t l)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[l]];
	uint32_t N = x->N;
	int32_t e;

	for (uint32_t k = 0; k < ls->nkeys; k++) {
		uint32_t a = key_leaf(ls->keys[k]), i = key_host(w, ls->keys[k]);
		uint32_t q = pick(x, ls, a, i, l, RG_NONE, &e);
		ls->extras++;
		if (q == RG_NONE)
			continue;
		place(x, ls, a, i, l, q, 1);
		if (e > 0)
			ls->keys[k] |= 1ull << 63; /* over: see below */
	}
	for (uint32_t k = 0; k < ls->nkeys; k++) {
		if (!(ls->keys[k] >> 63))
			continue;
		ls->keys[k] &= ~(1ull << 63);
		uint32_t a = key_leaf(ls->keys[k]), i = key_host(w, ls->keys[k]);
		uint32_t q = ls->erow[(size_t)a * N + i];
		place(x, ls, a, i, l, q, 0);
		q = pick(x, ls, a, i, l, RG_NONE, &e);
		place(x, ls, a, i, l, q, 1);
		if (e > 0 && !unblock(x, ls, l, k, q))
			ls->over++;
	}
	for (uint32_t k = 0; k < ls->nkeys; k++) {
		uint32_t a = key_leaf(ls->raw[k]), i = key_host(w, ls->raw[k]);
		ls->rq[k] = ls->erow[(size_t)a * N + i];
		if (ls->rq[k] != NOPL)
			push_extra(ls, ls->rq[k], a, i);
	}
}

/* Takes one from the run of shifts of (a, i) in a counter row. */
static void run_sub(const struct pl *x, uint8_t *c, uint32_t a, uint32_t i)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[a]];

	bump_run(c, x->N, pl_rstart(i, w->hfirst, w->nhosts, x->N), w->nhosts, -1);
}

/*
 * Pods whose hosts are one run each: a pod pair's flows fall in a window
 * of shifts as wide as their hosts together, so up keeps just that window
 * per source pod (2 MB on radix 54, not 57) and clearing it is cheap.
 */
static void up_windows(const struct pl *x, struct lstate *ls)
{
	const struct rgraph *g = x->g;
	uint32_t np = x->npod, run = 1, wide = 0;

	ls->pstart = rg_xmalloc(np, sizeof(*ls->pstart));
	ls->plen = rg_xcalloc(np, sizeof(*ls->plen));
	ls->ubase = rg_xcalloc(np, sizeof(*ls->ubase));
	for (uint32_t p = 0; p < np; p++) {
		uint32_t lo = UINT32_MAX, hi = 0;
		for (uint32_t k = x->pfirst[p]; k < x->pfirst[p + 1]; k++) {
			const struct rg_sw *w = &g->sw[x->leafsw[x->plist[k]]];
			lo = w->hfirst < lo ? w->hfirst : lo;
			hi = w->hfirst + w->nhosts > hi ? w->hfirst + w->nhosts : hi;
			ls->plen[p] += w->nhosts;
		}
		ls->pstart[p] = lo == UINT32_MAX ? 0 : lo;
		run &= lo == UINT32_MAX || hi - lo == ls->plen[p];
		wide = ls->plen[p] > wide ? ls->plen[p] : wide;
	}
	ls->uw = run && 2 * wide < x->N ? 2 * wide : x->N;
}

/* The next pod: up cleared, rows placed on its windows, room for it. */
static void next_pod(struct pl *x, struct lstate *ls, uint32_t p)
{
	uint32_t P = x->P, N = x->N;

	memset(ls->up, 0, (size_t)x->npod * P * ls->uw);
	ls->upod = p;
	for (uint32_t p1 = 0; p1 < x->npod; p1++) {
		/* shifts from pod p1's last host to pod p's first host on */
		uint64_t last = (uint64_t)ls->pstart[p1] + ls->plen[p1] - 1;
		ls->ubase[p1] = ls->uw == N ? 0 :
				(uint32_t)(((uint64_t)ls->pstart[p] + N - last % N) % N);
		for (uint32_t q = 0; q < P; q++)
			ls->room[(size_t)p1 * P + q] = up_room(x, p1, p, q);
	}
}

static void route_leaf(struct pl *x, struct lstate *ls, uint32_t l, const struct lkeys *lk)
{
	const struct rg_sw *w = &x->g->sw[x->leafsw[l]];
	uint32_t N = x->N, P = x->P;

	for (uint32_t q = 0; q < P; q++) {
		uint32_t b = 0;
		for (uint32_t i = w->hfirst; i < w->hfirst + w->nhosts; i++)
			b += x->primok[i] && i % P == q;
		ls->base[q] = (uint8_t)(b < UINT8_MAX ? b : UINT8_MAX);
		ls->colload[q] = lk->colload[q];
	}
	ls->cur = l;
	for (uint32_t q = 0; q < P; q++)
		coldn(x, ls, q);
	ls->keys = lk->keys;
	ls->raw = lk->raw;
	ls->rq = lk->rq;
	ls->nkeys = lk->nkeys;
	if (x->S && ls->upod != x->pod[l])
		next_pod(x, ls, x->pod[l]);
	leaf_extras(x, ls, l);
	for (uint32_t q = 0; q < P; q++)
		ls->a2a_max = ls->colload[q] > ls->a2a_max ? ls->colload[q] : ls->a2a_max;
	/* cnt back to zero for the next leaf */
	for (uint32_t k = 0; k < ls->nkeys; k++)
		if (ls->rq[k] != NOPL)
			run_sub(x, ls->cnt + (size_t)ls->rq[k] * N, key_leaf(ls->raw[k]),
				key_host(w, ls->raw[k]));
}

struct lwrite {
	const struct pl *x;
	const struct lstate *ls;
	uint8_t **lft;
	uint16_t *lid;      /* per host: its base LID (a row's reads then stay in cache) */
};

/* Leaves [lo, hi)'s entries, primaries and extras, from erow: row by row. */
static void write_leaves(void *arg, int half, uint32_t lo, uint32_t hi)
{
	const struct lwrite *wr = arg;
	const struct pl *x = wr->x;
	const struct lstate *ls = wr->ls;
	uint8_t **lft = wr->lft;

	for (uint32_t a = lo; a < hi; a++) {
		const uint8_t *row = ls->erow + (size_t)a * x->N, *up = x->lup + (size_t)a * x->P;
		uint8_t *t = lft[x->leafsw[a]];
		for (uint32_t i = 0; i < x->N; i++)
			if (row[i] != NOPL)
				t[wr->lid[i]] = up[row[i]];
	}
}

/* A run of destination leaves routed in order by one thread (list[0 ..
 * n), step the next), with its own state. */
struct lhalf {
	struct pl *x;
	struct lstate ls;
	struct lhalf *other;    /* with two halves: the other one, */
	struct rg_steps *sy;    /* how far each got, */
	int side;               /* and which this one is */
	const uint32_t *list;
	uint32_t n, off;        /* its leaves: list[k - off] at step k */
	uint32_t steps;         /* n, or with two halves both's last step + 3 */
	struct lkeys k;
};

/* b's placements of step j into a's view. */
static void take_deltas(const struct pl *x, struct lstate *a, const struct lstate *b, uint32_t j)
{
	const struct ldelta *d = b->log[j % PL_LOGS];

	for (uint32_t k = 0; k < b->nlog[j % PL_LOGS]; k++) {
		uint64_t h = x->g->sw[x->leafsw[d[k].a]].nhosts;
		add_loads(x, a, d[k].a, d[k].l, d[k].q, d[k].add ? h : -h);
	}
}

/* Step k of a half: the other's placements of step k - 2 taken (once it
 * finished that step), then this half's k-th leaf, if any. */
static void half_step(struct lhalf *h, uint32_t k)
{
	if (h->other && k >= 2) {
		rg_steps_wait(h->sy, !h->side, k - 1);
		take_deltas(h->x, &h->ls, &h->other->ls, k - 2);
	}
	h->ls.logk = k % PL_LOGS;
	h->ls.nlog[h->ls.logk] = 0;
	if (k >= h->off && k - h->off < h->n) {
		uint32_t l = h->list[k - h->off];
		leaf_primaries(h->x, h->ls.erow, l, &h->k);
		sort_keys(h->x, &h->k, h->x->g->sw[h->x->leafsw[l]].nhosts);
		route_leaf(h->x, &h->ls, l, &h->k);
	}
	if (h->other)
		rg_steps_done(h->sy, h->side, k + 1);
}

static void half_run(void *arg)
{
	struct lhalf *h = arg;

	for (uint32_t k = 0; k < h->steps; k++)
		half_step(h, k);
}

static uint64_t *dup_u64(const uint64_t *a, size_t n)
{
	uint64_t *d = rg_xmalloc(n ? n : 1, sizeof(*d));

	memcpy(d, a, n * sizeof(*d));
	return d;
}

/* b: a second half's state, a's counters' twins (zero), its own copy of
 * a's loads; both log their changes from now on. */
static void fork_state(const struct pl *x, struct lstate *a, struct lstate *b)
{
	size_t N = x->N ? x->N : 1, np = (size_t)x->npod * x->P;

	*b = *a;
	b->cnt = pl_big((size_t)x->P * N + PL_PAD, 1);
	if (x->S) {
		b->up = pl_big(np * b->uw + PL_PAD, 1);
		b->room = rg_xmalloc(np, sizeof(*b->room));
		b->ubase = rg_xcalloc(x->npod, sizeof(*b->ubase));
	}
	b->un = dup_u64(a->un, np);
	b->dn = dup_u64(a->dn, np);
	b->rowload = dup_u64(a->rowload, (size_t)x->nleaf * x->P);
	b->midup = dup_u64(a->midup, np);
	b->middn = dup_u64(a->middn, np);
	b->xl = rg_xcalloc(x->P, sizeof(*b->xl));
	b->nxl = rg_xcalloc(x->P, sizeof(*b->nxl));
	b->capxl = rg_xcalloc(x->P, sizeof(*b->capxl));
	for (int k = 0; k < 2; k++)
		for (uint32_t j = 0; j < PL_LOGS; j++) {
			struct lstate *s = k ? b : a;
			s->caplog[j] = 1024;
			s->nlog[j] = 0;
			s->log[j] = rg_xmalloc(s->caplog[j], sizeof(*s->log[j]));
		}
}

/* b's extras after a's (a's destinations come first), b's state freed. */
static void join_state(const struct pl *x, struct lstate *a, struct lstate *b)
{
	for (uint32_t q = 0; q < x->P; q++) {
		uint32_t *n = realloc(a->xl[q], ((size_t)a->nxl[q] + b->nxl[q] + 1) * sizeof(*n));
		if (!n)
			abort();
		memcpy(n + a->nxl[q], b->xl[q], (size_t)b->nxl[q] * sizeof(*n));
		a->xl[q] = n;
		a->nxl[q] += b->nxl[q];
		a->capxl[q] = a->nxl[q] + 1;
		free(b->xl[q]);
	}
	a->extras += b->extras;
	a->over += b->over;
	a->a2a_max = b->a2a_max > a->a2a_max ? b->a2a_max : a->a2a_max;
	free(b->xl);
	free(b->nxl);
	free(b->capxl);
	free(b->cnt);
	free(b->up);
	free(b->room);
	free(b->ubase);
	free(b->un);
	free(b->dn);
	free(b->rowload);
	free(b->midup);
	free(b->middn);
	for (uint32_t j = 0; j < PL_LOGS; j++) {
		free(b->log[j]);
		free(a->log[j]);
		a->log[j] = NULL;
	}
}

/* 1 if the leaves a and b, routed side by side, lie far enough apart in
 * host order (both ways round) that neither's row_load() windows, vector
 * reads included, reach the other's hosts' columns of erow. */
static int apart(const struct pl *x, uint32_t a, uint32_t b, uint32_t gap)
{
	const struct rg_sw *wa = &x->g->sw[x->leafsw[a]], *wb = &x->g->sw[x->leafsw[b]];
	uint64_t ea = (uint64_t)wa->hfirst + wa->nhosts, eb = (uint64_t)wb->hfirst + wb->nhosts;

	return ea + gap <= wb->hfirst && eb + gap <= (uint64_t)wa->hfirst + x->N;
}

/* 1 if the leaves of halves h routed side by side (b's at step k - off
 * beside a's at steps k - 1 .. k + 1) stay apart(). */
static int apart_all(const struct pl *x, uint32_t *const h[2], const uint32_t nh[2],
		     uint32_t off, uint32_t gap)
{
	for (uint32_t j = 0; j < nh[1]; j++)
		for (uint32_t k = j + off ? j + off - 1 : 0; k <= j + off + 1 && k < nh[0]; k++)
			if (!apart(x, h[0][k], h[1][j], gap) && !apart(x, h[1][j], h[0][k], gap))
				return 0;
	return 1;
}

/*
 * The destination leaves (list, in host order) in two halves: runs of a
 * pod's leaves (up counts one pod's flows from its first leaf on; 16
 * leaves on two ranks) to each in turn, so that both halves go through
 * the hosts together; b half a run behind, so that the leaves routed side
 * by side stay apart (apart_all()). 0 (and nothing in h) where they
 * would not.
 */
static int split(const struct pl *x, const uint32_t *list, uint32_t n, uint32_t *h[2],
		 uint32_t nh[2], uint32_t *off)
{
	uint32_t hmax = 0, run = 0, first = 0;

	h[0] = rg_xmalloc(n ? n : 1, sizeof(*h[0]));
	h[1] = rg_xmalloc(n ? n : 1, sizeof(*h[1]));
	nh[0] = nh[1] = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t nhost = x->g->sw[x->leafsw[list[k]]].nhosts;
		hmax = nhost > hmax ? nhost : hmax;
		if (k && (x->S ? x->pod[list[k - 1]] != x->pod[list[k]] : k % 16 == 0))
			run ^= 1;
		first += !run && !nh[1];
		h[run][nh[run]++] = list[k];
	}
	*off = first / 2;
	int ok = nh[1] > 0 && apart_all(x, h, nh, *off, 2 * hmax + 32);
	if (!ok) {
		free(h[0]);
		free(h[1]);
	}
	return ok;
}

/* Both halves, to two steps past the last leaf of either: a's view then
 * holds b's every placement. On two threads, or step by step. */
static void run_halves(struct pl *x, struct lhalf *h, unsigned threads)
{
	uint32_t steps = (h[0].n > h[1].off + h[1].n ? h[0].n : h[1].off + h[1].n) + 2;

	fork_state(x, &h[0].ls, &h[1].ls);
	h[0].sy = h[1].sy = rg_steps_new();
	h[0].other = &h[1];
	h[1].other = &h[0];
	h[0].steps = h[1].steps = steps;
	/* step by step: two of a's, then two of b's (each then reads loads
	 * two steps old, as on two threads), the caches kept longer */
	if (threads < 2 || rg_par2_both(half_run, &h[1], &h[0]))
		for (uint32_t k = 0; k < steps; k += 2)
			for (int j = 0; j < 4; j++)
				if (k + (j & 1) < steps)
					half_step(&h[j >> 1], k + (j & 1));
	rg_steps_free(h[0].sy);
	join_state(x, &h[0].ls, &h[1].ls);
}

/*
 * The destination leaves in order; with halves (a big fabric, where this
 * is most of the routing's time), in two halves (split()) side by side
 * (two threads, or step by step), a leaf of each at every step: each half
 * counts its shifts itself (they are per destination leaf and pod) and
 * sees the other's all-to-all loads as they were two steps before, so
 * that one may run a step ahead. The same entries on any number of
 * threads.
 */
static void route_all_leaves(struct pl *x, struct lstate *ls, int halves, unsigned threads)
{
	uint32_t *list = rg_xmalloc(x->nleaf ? x->nleaf : 1, sizeof(*list)), n = 0;
	uint32_t *hl[2] = { list, NULL }, nh[2] = { 0, 0 }, off = 0;
	struct lhalf h[2];

	for (uint32_t l = 0; l < x->nleaf; l++)
		if (x->g->sw[x->leafsw[l]].nhosts)
			list[n++] = l;
	if (!(halves && split(x, list, n, hl, nh, &off))) {
		hl[0] = list;
		hl[1] = NULL;
		nh[0] = n;
		nh[1] = 0;
	}
	memset(h, 0, sizeof(h));
	h[0] = (struct lhalf){ .x = x, .ls = *ls, .list = hl[0], .n = nh[0], .steps = nh[0] };
	h[1] = (struct lhalf){ .x = x, .list = hl[1], .n = nh[1], .off = off, .side = 1 };
	if (h[1].n)
		run_halves(x, h, threads);
	else
		half_run(&h[0]);
	*ls = h[0].ls;
	for (int k = 0; k < 2; k++) {
		free(h[k].k.raw);
		free(h[k].k.keys);
		free(h[k].k.rq);
	}
	if (hl[0] != list) {
		free(hl[0]);
		free(hl[1]);
	}
	free(list);
}

void pl_route_leaves(struct pl *x, uint8_t **lft, int split, unsigned threads)
{
	struct lstate ls;
	size_t N = x->N ? x->N : 1;

	memset(&ls, 0, sizeof(ls));
	ls.cnt = pl_big((size_t)x->P * N + PL_PAD, 1);
	ls.erow = pl_big((size_t)x->nleaf * N + PL_PAD, 0);
	ls.upod = RG_NONE;
	if (x->S) {
		up_windows(x, &ls);
		ls.up = pl_big((size_t)x->npod * x->P * ls.uw + PL_PAD, 1);
		ls.room = rg_xmalloc((size_t)x->npod * x->P, sizeof(*ls.room));
	}
	ls.un = rg_xcalloc((size_t)x->npod * x->P, sizeof(*ls.un));
	ls.dn = rg_xcalloc((size_t)x->npod * x->P, sizeof(*ls.dn));
	ls.rowload = x->rowload;
	ls.midup = x->midup;
	ls.middn = x->middn;
	ls.xl = x->xl = rg_xcalloc(x->P, sizeof(*x->xl));
	ls.nxl = x->nxl = rg_xcalloc(x->P, sizeof(*x->nxl));
	ls.capxl = x->capxl = rg_xcalloc(x->P, sizeof(*x->capxl));
	mark_primaries(x, &ls);
	for (size_t k = 0; k < (size_t)x->npod * x->P; k++)
		norm(x, &ls, k);
	route_all_leaves(x, &ls, split, threads);
	x->st->leaf_extras += ls.extras;
	x->st->leaf_over += ls.over;
	x->st->a2a_max = ls.a2a_max > x->st->a2a_max ? ls.a2a_max : x->st->a2a_max;
	for (size_t k = 0; k < (size_t)x->nleaf * x->P; k++)
		x->st->a2a_max = x->rowload[k] > x->st->a2a_max ? x->rowload[k] : x->st->a2a_max;
	struct lwrite wr = { x, &ls, lft, rg_xmalloc(N, sizeof(*wr.lid)) };
	for (uint32_t i = 0; i < x->N; i++)
		wr.lid[i] = x->g->hosts[i].lid;
	rg_par_range(write_leaves, &wr, x->nleaf, threads);
	free(wr.lid);
	free(ls.cnt);
	free(ls.erow);
	free(ls.up);
	free(ls.room);
	free(ls.pstart);
	free(ls.plen);
	free(ls.ubase);
	free(ls.un);
	free(ls.dn);
}
