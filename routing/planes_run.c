/*
 * DOC: plane routing's counting primitives (see planes.c for the whole
 * engine): run maxima and excess over the shift counters, the smallest
 * key of a candidate list, plane masks, and whether a (leaf, host) pair
 * keeps its own plane and slot. planes.c, planes_leaf.c and
 * planes_slot.c build on these; nothing here calls back into them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "routing/planes_int.h"
#include "routing/simd.h"

/* Largest byte of c[0 .. n), c readable 16 bytes on (see pl_runmax): the
 * search's inner loop, so 16 at a time where the CPU has SSE2 (every
 * x86-64 does). */
static uint8_t bytes_max(const uint8_t *c, uint32_t n)
{
#ifdef __SSE2__
	__m128i v;

	if (!n)
		return 0;
	if (n <= 16) {
		v = _mm_and_si128(rg_load16(c), rg_lanes_below(n));
	} else {
		v = rg_load16(c + n - 16);
		for (uint32_t k = 0; k + 16 < n; k += 16)
			v = _mm_max_epu8(v, rg_load16(c + k));
	}
	return rg_max_lane(v);
#else
	uint8_t m = 0;

	for (uint32_t k = 0; k < n; k++)
		m = c[k] > m ? c[k] : m;
	return m;
#endif
}

uint32_t pl_runmax(const uint8_t *c, uint32_t st, uint32_t len, uint32_t N)
{
	if (st + len <= N)
		return bytes_max(c + st, len);
	uint8_t a = bytes_max(c + st, N - st), b = bytes_max(c, st + len - N);
	return a > b ? a : b;
}

/* 1 if some byte of c[0 .. n) is k or more (c readable 16 bytes on): a
 * compare, without bytes_max()'s reduction. */
static int bytes_reach(const uint8_t *c, uint32_t n, uint8_t k)
{
#ifdef __SSE2__
	const __m128i kk = _mm_set1_epi8((char)k);
	uint32_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m128i v = rg_load16(c + i);
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, kk), v)))
			return 1;
	}
	if (i == n)
		return 0;
	__m128i v = _mm_and_si128(rg_load16(c + i), rg_lanes_below(n - i));
	uint32_t hit = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, kk), v));
	return (hit & ((1u << (n - i)) - 1)) != 0;
#else
	for (uint32_t i = 0; i < n; i++)
		if (c[i] >= k)
			return 1;
	return 0;
#endif
}

int pl_run_reaches(const uint8_t *c, uint32_t st, uint32_t len, uint32_t N, uint32_t k)
{
	if (!k)
		return 1;
	if (k > UINT8_MAX)
		return 0;
	if (st + len <= N)
		return bytes_reach(c + st, len, (uint8_t)k);
	return bytes_reach(c + st, N - st, (uint8_t)k) || bytes_reach(c, st + len - N, (uint8_t)k);
}

int32_t pl_run_excess(const struct pl *x, const uint8_t *c, uint32_t st, uint32_t len,
		      uint32_t add, uint32_t runmax)
{
	uint32_t N = x->N;
	int32_t e = INT32_MIN;

	if (st >= x->zone && st + len <= N - x->zone) {
		if (runmax == UINT32_MAX)
			runmax = pl_runmax(c, st, len, N);
		return (int32_t)(runmax + add) - (int32_t)x->T;
	}
	for (uint32_t k = 0, s = st; k < len; k++, s = s + 1 == N ? 0 : s + 1) {
		int32_t v = (int32_t)(c[s] + add) - (int32_t)x->lim[s];
		e = v > e ? v : e;
	}
	return e;
}

uint32_t pl_take_min(uint64_t *key, uint32_t *cand, uint32_t *left, uint64_t *kk)
{
	uint32_t k = 0;
	uint64_t v = key[0];

	for (uint32_t j = 1; j < *left; j++) {
		k = key[j] < v ? j : k;
		v = key[j] < v ? key[j] : v;
	}
	return pl_take_at(key, cand, left, k, kk);
}

uint32_t pl_take_at(uint64_t *key, uint32_t *cand, uint32_t *left, uint32_t k, uint64_t *kk)
{
	uint32_t c = cand[k];

	*kk = key[k];
	--*left;
	key[k] = key[*left];
	cand[k] = cand[*left];
	return c;
}

uint32_t pl_next(const struct pmask *m, uint32_t q, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++, q = q + 1 == n ? 0 : q + 1)
		if (pm_has(m, q))
			return q;
	return RG_NONE;
}

int pl_primary(const struct pl *x, uint32_t a, uint32_t i, uint32_t l)
{
	uint32_t P = x->P, S = x->S, j0 = i % P, p1 = x->pod[a], p = x->pod[l];

	if (!x->primok[i] || !x->lup[(size_t)a * P + j0])
		return 0;
	if (p1 == p)
		return 1;
	if (!S)
		return 0;
	uint32_t t0 = (i / P) % S;
	return x->mup[((size_t)p1 * P + j0) * S + t0] && x->tdown[((size_t)j0 * S + t0) * x->npod + p];
}

void *pl_big(size_t n, int zero)
{
#ifdef MADV_HUGEPAGE
	void *p = NULL;

	if (n >= PL_HUGE && !posix_memalign(&p, PL_HUGE, n)) {
		(void)madvise(p, n, MADV_HUGEPAGE); /* a hint: without it, small pages */
		return zero ? memset(p, 0, n) : p;
	}
#endif
	return zero ? rg_xcalloc(n, 1) : rg_xmalloc(n, 1);
}
