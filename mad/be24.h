/*
 * DOC: 24-bit big-endian wire fields (vendor ids, producer types,
 * round-trip latency, flow labels), shared by the codecs of mad/.
 */
#ifndef IBSMD_MAD_BE24_H
#define IBSMD_MAD_BE24_H

#include <stdint.h>

static inline uint32_t get_be24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

#endif
