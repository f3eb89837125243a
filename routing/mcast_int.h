/*
 * DOC: what mcast.c and mcast_mft.c share beyond mcast.h.
 *
 * mcast_compute() fills each switch's table group by group in MLID order,
 * so a row is only ever appended at the end.
 */
#ifndef IBSM_ROUTING_MCAST_INT_H
#define IBSM_ROUTING_MCAST_INT_H

#include <stdint.h>

#include "routing/mcast.h"

/* Appends an empty mask for mlid (above every MLID held); returns its row. */
uint32_t mcast_mft_append(struct mcast_mft *m, uint16_t mlid);

/* Sets the bit of port in row (port < 16 * npos). */
static inline void mcast_mft_set(struct mcast_mft *m, uint32_t row, uint8_t port)
{
	m->mask[(size_t)row * m->npos + port / 16u] |= (uint16_t)(1u << (port % 16u));
}

#endif
