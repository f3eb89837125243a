/*
 * DOC: balance, a local search over finished up*\/down* tables.
 *
 * Used by ftree on degraded trees; see balance.c for the method.
 */
#ifndef IBSM_ROUTING_BALANCE_H
#define IBSM_ROUTING_BALANCE_H

#include <stdint.h>

#include "routing/graph.h"

struct balance_stats {
	uint64_t a2a_before, a2a_after;     /* busiest switch link, all-to-all */
	uint32_t a2a_moves;
	int shifts_done;                    /* 0: no shift phase */
	int shift_overflow;                 /* a shift put over 254 routes on a link */
	uint32_t shifts_tracked;            /* shifts balanced: all of them or none */
	uint32_t shift_over_before;         /* (shift, link) pairs above bound + 1 */
	uint32_t shift_over_after;
	uint32_t shift_moves;
	uint32_t tight_before, tight_after; /* pairs above the per-switch bound + 1
					       where shortest paths allow it */
	uint32_t shift_parts;               /* upper components balanced one by one */
	uint32_t shift_comps;               /* upper components in all */
	int leaf_done;                      /* leaf links, then upper components */
	int parts_too_big;                  /* not even one upper component fits */
	uint32_t leaf_moves;                /* moves of leaf entries for leaf links */
	uint32_t leaf_over;                 /* (shift, leaf link) found above bound + 1 */
	uint32_t shift_escapes;             /* leaf moves out of an upper component */
	int shift_rounds;                   /* rounds over the upper components */
	int budget_hit;                     /* stopped by the work bound */
	int too_big;                        /* not even tried: hosts x switches too large */
};

/*
 * Re-points entries lft[s][base LID of a CA] (every switch s but the
 * destination's own) to even out link loads. rank[] must make the tables
 * up*\/down*: every switch link joins adjacent ranks, and every path goes
 * up, then down. Deterministic: work is bounded by counts, not time.
 */
void route_balance(const struct rgraph *g, uint8_t **lft, const uint32_t *rank,
		   int shifts, uint64_t shift_bytes, struct balance_stats *st);

struct rctx;

/* route_balance() on an engine's tables, the result appended to its why;
 * shifts: also balance shift permutations (fat trees). */
void route_balance_ctx(struct rctx *c, const uint32_t *rank, int shifts);

#endif
