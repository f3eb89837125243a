/*
 * DOC: blocks of 64 four-bit counters, 32 bytes each: counter k is the low
 * (k even) or high (k odd) half of byte k / 2. Plane routing's middle
 * switches count extras per (link, shift) in these (planes_slot.c): the
 * counts stay near the target, and half the bytes of 8-bit counters halve
 * the memory that step holds at its peak. A counter that reaches 15 stays
 * there until the block is cleared, so that it never comes back under a
 * limit by undoing a placement it did not count; from 15 on counts are
 * no longer told apart, and planes_slot.c then counts the plane again a
 * byte each. Pure, header only (the routing's innermost loops).
 */
#ifndef IBSM_ROUTING_NIB_H
#define IBSM_ROUTING_NIB_H

#include <stdint.h>

#include "routing/simd.h"

#define NIB_BLK 64   /* counters per block */
#define NIB_BYTES 32 /* bytes per block */
#define NIB_MAX 15

/* Counter k (< NIB_BLK) of block c. */
static inline uint8_t nib_get(const uint8_t *c, uint32_t k)
{
	return (uint8_t)(c[k >> 1] >> (4 * (k & 1)) & 0x0F);
}

#ifdef __SSE2__
/* Counters 32h .. 32h + 31 (bytes 16h ..) as bytes, 16 to a vector, in order. */
static inline void nib_unpack(const uint8_t *c, int h, __m128i v[2])
{
	const __m128i m = _mm_set1_epi8(0x0F);
	__m128i a = rg_load16(c + 16 * h);
	__m128i lo = _mm_and_si128(a, m), hi = _mm_and_si128(_mm_srli_epi16(a, 4), m);

	v[0] = _mm_unpacklo_epi8(lo, hi);
	v[1] = _mm_unpackhi_epi8(lo, hi);
}

/* nib_unpack() undone (every byte of v at most 15). */
static inline void nib_pack(uint8_t *c, int h, const __m128i v[2])
{
	const __m128i lo = _mm_set1_epi16(0x00FF);
	/* a 16-bit lane holds counters 2k and 2k + 1 as bytes: the second
	 * moves down to bits 4-7 of the first */
	__m128i x = _mm_or_si128(_mm_and_si128(v[0], lo), _mm_srli_epi16(v[0], 4));
	__m128i y = _mm_or_si128(_mm_and_si128(v[1], lo), _mm_srli_epi16(v[1], 4));

	_mm_storeu_si128((__m128i *)(void *)(c + 16 * h), _mm_packus_epi16(x, y));
}

/* 0xFF in the lanes of vector j (counters 16j ..) that are in [off, end). */
static inline __m128i nib_in(int j, uint32_t off, uint32_t end)
{
	__m128i i = _mm_add_epi8(_mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
				 _mm_set1_epi8((char)(16 * j)));
	/* all below 128: signed compares serve */
	__m128i ge = _mm_cmpgt_epi8(i, _mm_set1_epi8((char)((int)off - 1)));

	return _mm_and_si128(ge, _mm_cmpgt_epi8(_mm_set1_epi8((char)end), i));
}
#endif

/* The largest of counters [off, off + n) of block c (off + n <= NIB_BLK). */
static inline uint8_t nib_max(const uint8_t *c, uint32_t off, uint32_t n)
{
#ifdef __SSE2__
	__m128i v[2], mx = _mm_setzero_si128();

	/* only the halves (32 counters each) the range meets */
	for (int h = (int)(off / 32); n && h <= (int)((off + n - 1) / 32); h++) {
		nib_unpack(c, h, v);
		mx = _mm_max_epu8(mx, _mm_and_si128(v[0], nib_in(2 * h, off, off + n)));
		mx = _mm_max_epu8(mx, _mm_and_si128(v[1], nib_in(2 * h + 1, off, off + n)));
	}
	return rg_max_lane(mx);
#else
	uint8_t m = 0;

	for (uint32_t k = off; k < off + n; k++)
		m = nib_get(c, k) > m ? nib_get(c, k) : m;
	return m;
#endif
}

/* 1 if some counter of [off, off + n) of block c is not 0 (off + n <=
 * NIB_BLK): the bytes masked to the range's halves, not unpacked. */
static inline int nib_any(const uint8_t *c, uint32_t off, uint32_t n)
{
#ifdef __SSE2__
	const __m128i lo = _mm_set1_epi8(0x0F), hi = _mm_set1_epi8((char)0xF0);
	const __m128i ge = _mm_set1_epi8((char)((int)off - 1)), lt = _mm_set1_epi8((char)(off + n));

	for (int h = (int)(off / 32); n && h <= (int)((off + n - 1) / 32); h++) {
		/* byte k of the half holds counters 2k (low) and 2k + 1 (high) */
		__m128i k2 = _mm_add_epi8(_mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24,
							26, 28, 30),
					  _mm_set1_epi8((char)(32 * h)));
		__m128i k21 = _mm_add_epi8(k2, _mm_set1_epi8(1));
		__m128i inl = _mm_and_si128(_mm_cmpgt_epi8(k2, ge), _mm_cmpgt_epi8(lt, k2));
		__m128i inh = _mm_and_si128(_mm_cmpgt_epi8(k21, ge), _mm_cmpgt_epi8(lt, k21));
		__m128i m = _mm_or_si128(_mm_and_si128(inl, lo), _mm_and_si128(inh, hi));
		__m128i x = _mm_and_si128(rg_load16(c + 16 * h), m);
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) != 0xFFFF)
			return 1;
	}
	return 0;
#else
	for (uint32_t k = off; k < off + n; k++)
		if (nib_get(c, k))
			return 1;
	return 0;
#endif
}

/*
 * Adds d (1 or -1) to counters [off, off + n) of block c (off + n <=
 * NIB_BLK): up to NIB_MAX, down to 0, one at NIB_MAX staying there.
 * Returns the largest of them after.
 */
static inline uint8_t nib_bump(uint8_t *c, uint32_t off, uint32_t n, int d)
{
#ifdef __SSE2__
	const __m128i one = _mm_set1_epi8(1), top = _mm_set1_epi8(NIB_MAX);
	__m128i v[2], mx = _mm_setzero_si128();

	for (int h = (int)(off / 32); n && h <= (int)((off + n - 1) / 32); h++) {
		nib_unpack(c, h, v);
		for (int j = 0; j < 2; j++) {
			__m128i in = nib_in(2 * h + j, off, off + n), inc = _mm_and_si128(one, in);
			if (d > 0)
				v[j] = _mm_min_epu8(_mm_adds_epu8(v[j], inc), top);
			else
				v[j] = _mm_subs_epu8(v[j],
						     _mm_andnot_si128(_mm_cmpeq_epi8(v[j], top), inc));
			mx = _mm_max_epu8(mx, _mm_and_si128(v[j], in));
		}
		nib_pack(c, h, v);
	}
	return rg_max_lane(mx);
#else
	uint8_t m = 0;

	for (uint32_t k = off; k < off + n; k++) {
		uint8_t x = nib_get(c, k), sh = (uint8_t)(4 * (k & 1));
		x = d > 0 ? (uint8_t)(x + (x < NIB_MAX)) : (uint8_t)(x - (x > 0 && x < NIB_MAX));
		c[k >> 1] = (uint8_t)((c[k >> 1] & ~(0x0F << sh)) | x << sh);
		m = x > m ? x : m;
	}
	return m;
#endif
}

#endif
