/*
 * DOC: SSE2 helpers for the byte-counter loops of planes and balance
 * (every x86-64 has SSE2; elsewhere those loops run byte by byte).
 */
#ifndef IBSM_ROUTING_SIMD_H
#define IBSM_ROUTING_SIMD_H

#ifdef __SSE2__
#include <emmintrin.h>
#include <stdint.h>

static inline __m128i rg_load16(const uint8_t *c)
{
	return _mm_loadu_si128((const __m128i *)(const void *)c);
}

/* 0xFF in the lanes below n (n <= 16), 0 from n on. */
static inline __m128i rg_lanes_below(uint32_t n)
{
	/* 16 lanes on then 16 off: a load from 16 - n */
	static const uint8_t ramp[32] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
					  0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

	return rg_load16(ramp + 16 - n);
}

/* The largest of v's 16 bytes. */
static inline uint8_t rg_max_lane(__m128i v)
{
	v = _mm_max_epu8(v, _mm_srli_si128(v, 8));
	v = _mm_max_epu8(v, _mm_srli_si128(v, 4));
	v = _mm_max_epu8(v, _mm_srli_si128(v, 2));
	v = _mm_max_epu8(v, _mm_srli_si128(v, 1));
	return (uint8_t)_mm_cvtsi128_si32(v);
}
#endif

#endif
