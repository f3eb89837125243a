/*
 * DOC: blocks of 64 four-bit counters, 32 bytes each: counter k is the low
 * (k even) or high (k odd) half of byte k / 2. Plane routing's slot
 * counters count extras per (link, shift), which stay far below 15 (the
 * target keeps them at T - 2 or one over); half the bytes of 8-bit counters
 * halve the memory the middle switches' routing holds at its peak. A
 * counter that reaches 15 stays there until the block is cleared: a count
 * that high is over any target anyway, and it must not come back under it
 * by undoing a placement it did not count. Pure, header only (the routing's
 * innermost loops).
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
/* The 64 counters as bytes, 16 to a vector, in order. */
static inline void nib_unpack(const uint8_t *c, __m128i v[4])
{
	const __m128i m = _mm_set1_epi8(0x0F);

	for (int h = 0; h < 2; h++) {
		__m128i a = rg_load16(c + 16 * h);
		__m128i lo = _mm_and_si128(a, m), hi = _mm_and_si128(_mm_srli_epi16(a, 4), m);
		v[2 * h] = _mm_unpacklo_epi8(lo, hi);
		v[2 * h + 1] = _mm_unpackhi_epi8(lo, hi);
	}
}

/* nib_unpack() undone (every byte of v at most 15). */
static inline void nib_pack(uint8_t *c, const __m128i v[4])
{
	const __m128i lo = _mm_set1_epi16(0x00FF);

	for (int h = 0; h < 2; h++) {
		/* a 16-bit lane holds counters 2k and 2k + 1 as bytes: the
		 * second moves down to bits 4-7 of the first */
		__m128i x = _mm_or_si128(_mm_and_si128(v[2 * h], lo), _mm_srli_epi16(v[2 * h], 4));
		__m128i y = _mm_or_si128(_mm_and_si128(v[2 * h + 1], lo),
					 _mm_srli_epi16(v[2 * h + 1], 4));
		_mm_storeu_si128((__m128i *)(void *)(c + 16 * h), _mm_packus_epi16(x, y));
	}
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
	__m128i v[4], mx = _mm_setzero_si128();

	nib_unpack(c, v);
	for (int j = 0; j < 4; j++)
		mx = _mm_max_epu8(mx, _mm_and_si128(v[j], nib_in(j, off, off + n)));
	return rg_max_lane(mx);
#else
	uint8_t m = 0;

	for (uint32_t k = off; k < off + n; k++)
		m = nib_get(c, k) > m ? nib_get(c, k) : m;
	return m;
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
	__m128i v[4], mx = _mm_setzero_si128();

	nib_unpack(c, v);
	for (int j = 0; j < 4; j++) {
		__m128i in = nib_in(j, off, off + n), inc = _mm_and_si128(one, in);
		if (d > 0)
			v[j] = _mm_min_epu8(_mm_adds_epu8(v[j], inc), top);
		else
			v[j] = _mm_subs_epu8(v[j], _mm_andnot_si128(_mm_cmpeq_epi8(v[j], top), inc));
		mx = _mm_max_epu8(mx, _mm_and_si128(v[j], in));
	}
	nib_pack(c, v);
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
