/*
 * DOC: plane routing, ftree's engine for degraded 2- and 3-level trees.
 *
 * See planes.c for the method. Pure, like the rest of routing/.
 */
#ifndef IBSM_ROUTING_PLANES_H
#define IBSM_ROUTING_PLANES_H

#include <stddef.h>
#include <stdint.h>

struct rctx;
struct rgraph;

struct planes_stats {
	uint32_t pods, planes, slots;
	uint64_t leaf_extras;  /* (leaf, host) entries off the host's own plane and slot */
	uint64_t slot_extras;  /* (middle, host) entries that chose a top switch */
	uint64_t leaf_over;    /* of those, placed above the shift target */
	uint64_t slot_over;
	uint64_t slot_wide;    /* planes whose four-bit counters reached 15, redone
				  with byte counters */
	uint64_t a2a_max;      /* busiest switch link under all-to-all */
	uint64_t a2a_bound;    /* its lower bound (verify's) */
	uint64_t own;          /* entries of switches' own ways (planes_own.c) */
};

/*
 * Routes every CA LID of a degraded fat tree whose leaves, middle and top
 * switches form planes (see planes.c), and the switches' own ways to them
 * unless planes_unbalanced(); rank[] as ftree ranks switches.
 * Returns 0 when done, 1 when the tree is not one (complete, more ranks,
 * parallel links, no plane structure, a leaf pair up*\/down* cannot join):
 * then nothing was written and why says why.
 */
int planes_route(struct rctx *c, const uint32_t *rank, struct planes_stats *st, char *why,
		 size_t whylen);

/* 1 if ftree's balance has to go over what planes_route() gave: a shift
 * over its target, or all-to-all more than 8 % over its bound. The
 * switches' own ways are then left to route.c's fill, after balance,
 * which may move every CA route. */
int planes_unbalanced(const struct planes_stats *st);

/* 1 if planes_route() would route the tree (it answers from the same
 * checks), so that a caller may start independent work beside it. */
int planes_fit(const struct rgraph *g, const uint32_t *rank);

#endif
