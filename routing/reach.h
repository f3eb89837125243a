/*
 * DOC: every switch reaches every LID: switches send replies and traps too.
 *
 * Engines route what hosts send to each other. A switch that up*\/down*
 * gives no way to some LID (a spine that lost its link to a leaf, for that
 * leaf's LIDs) would drop its own answers to LID-routed SMPs and PMA
 * queries, and its traps to the SM. reach_fill() gives every such switch a
 * route; the verifier (verify.h) counts the (switch, LID) pairs whose
 * packets do not arrive. Pure: LFTs in, LFTs out.
 *
 * The credit-loop view here covers every switch's routes to CA LIDs (what
 * hosts send, and what switches answer on data VLs, such as PMA replies).
 * Routes to switch LIDs are left out, as in verify.h: they carry SMPs on
 * VL15, which has no flow control, and a trickle of GMPs.
 */
#ifndef IBSM_ROUTING_REACH_H
#define IBSM_ROUTING_REACH_H

#include <stdint.h>

#include "routing/graph.h"

struct reach_stats {
	uint64_t filled;   /* reach_fill(): entries written */
	uint64_t cyclic;   /* of those (CA LIDs), entries whose every choice closed a CDG cycle */
	uint64_t unchecked;/* dependencies added without a cycle search (see reach.c), or
			      past_budget() the CA LIDs' entries written */
};

/*
 * Gives every switch that does not reach a LID of its connected part an
 * entry, leaving every entry that works as it is (so no host's path
 * changes): the way with the fewest hops whose channel dependency keeps the
 * CDG of CA LIDs acyclic, where one exists (the way may turn down, up and
 * down again: only the switch's own packets use it); then the least used
 * link and the lowest port. Where far more entries are missing than the
 * cycle searches can check, the fewest hops alone (reach.c: past_budget()).
 * Fills st->filled, st->cyclic and st->unchecked.
 */
void reach_fill(const struct rgraph *g, uint8_t **lft, uint32_t top, struct reach_stats *st);
/* reach_fill() on at most threads threads (ROUTE_THREADS above; the same
 * entries on any number); halves: the LIDs in two halves side by side,
 * each checking its new dependencies against its own (see reach.c), for
 * a big fabric (route_split()). */
void reach_fill_threads(const struct rgraph *g, uint8_t **lft, uint32_t top,
			struct reach_stats *st, unsigned threads, int halves);

/* The missing entries past which reach_fill() makes no cycle search, so
 * that an engine may give those ways itself (planes_own.c). */
uint64_t reach_search_limit(const struct rgraph *g, uint32_t top);

#endif
