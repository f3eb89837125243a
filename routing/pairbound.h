/*
 * DOC: the pair bound of a shift permutation.
 *
 * The per-switch bound (routes leaving a switch over its switch links)
 * ignores where the routes go. On a degraded tree two leaves may share
 * few of their upper switches: all flows from leaf A to leaf B then
 * squeeze through A's few ports that lie on a shortest path to B, and
 * into B through B's few ports that lie on one from A. For every set of
 * (A, B) runs of a shift that leave one switch A (or enter one switch B),
 * ceil(their flows / the ports of A (of B) on their shortest paths) is a
 * lower bound on the busiest link of any routing whose paths are shortest
 * (ftree's are: up to the nearest common ancestor and down). Pure, like
 * the rest of routing/.
 */
#ifndef IBSM_ROUTING_PAIRBOUND_H
#define IBSM_ROUTING_PAIRBOUND_H

#include <stdint.h>

#include "routing/graph.h"

struct pb_run;
struct pb_sets;

#define PB_MEMO (1u << 24) /* largest (leaf, leaf) memo, in pairs (2 bytes each) */

struct pair_bound {
	const struct rgraph *g;
	struct pb_run *runs;  /* scratch: one shift's runs */
	uint32_t *row;      /* per switch: its row in dist, RG_NONE without hosts */
	uint16_t *dist;     /* [row * nsw + s]: hops from s to that switch */
	uint32_t nrows;
	uint16_t *memo;     /* [row x * nrows + row y]: index in sets, 0 unknown;
			       NULL if too many pairs */
	struct pb_sets *sets; /* the distinct ways met, each kept once */
	uint8_t *single;    /* per switch: no parallel links (a port per group) */
};

void pair_bound_init(struct pair_bound *pb, const struct rgraph *g);
void pair_bound_free(struct pair_bound *pb);

/* The pair bound of shift sh (host i -> host i + sh mod N). */
uint32_t pair_bound_shift(const struct pair_bound *pb, uint32_t sh);

#endif
