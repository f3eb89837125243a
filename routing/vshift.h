/*
 * DOC: the busiest link of shift permutations, for the verifier.
 *
 * Under shift sh host i sends to host i + sh (mod hosts, in graph order).
 * Every path is followed through the tables; the counts per link are
 * those of one path after the other in host order, so the busiest link is
 * the first to reach the largest count. Pure.
 */
#ifndef IBSM_ROUTING_VSHIFT_H
#define IBSM_ROUTING_VSHIFT_H

#include <stdint.h>

#include "routing/graph.h"

struct shift_load {
	uint32_t busiest;  /* flows on the busiest link */
	uint32_t link;     /* its link id (the first to reach that count);
			      RG_NONE if the shift has no path */
	uint32_t bound;    /* the largest ceil(flows leaving a switch / its switch links) */
};

/* Shifts sh[0 .. n) into out[0 .. n); lft per switch index, top + 1 entries. */
void shift_loads(const struct rgraph *g, uint8_t *const *lft, uint32_t top, const uint32_t *sh,
		 uint32_t n, struct shift_load *out);

#endif
