/*
 * DOC: minimal-change rerouting after a fabric fault ("route repair").
 *
 * When a link or switch goes away, rewriting every LFT from scratch moves
 * traffic that was never affected. route_repair() keeps every entry of the
 * tables the switches hold now whose path still works, re-picks only the
 * broken or missing ones, and checks the result; if that check fails it
 * hands back the fresh tables instead. Pure, like route_compute().
 */
#ifndef IBSM_ROUTING_REPAIR_H
#define IBSM_ROUTING_REPAIR_H

#include <stdint.h>

#include "ibsm/topo.h"
#include "routing/routing.h"

struct route_repair_stats {
	uint64_t kept;    /* routed entries of prev kept as they were */
	uint64_t changed; /* switch LFT entries that differ from prev */
	uint64_t broken;  /* routed entries of prev whose path no longer works */
	int used_fresh;   /* 1: fell back to the fresh tables (why says why) */
};

/*
 * Minimal-change routing. prev: the tables the switches hold now (same
 * node order and top semantics as t; entries for LIDs above prev->top
 * count as missing). Keeps every prev entry whose path still reaches its
 * destination; re-picks only broken or missing entries among the ports
 * the fresh engine's up/down rules allow, preferring the path whose
 * busiest link carries the least all-to-all traffic so far; then checks
 * the result (every LID the fresh tables reach from a switch is reached,
 * no loop, no credit-dependency cycle on one VL) and otherwise returns the
 * fresh tables. out->why says which. Deterministic: node order does not
 * matter. Returns 0, or -1 (route_compute failed) with out->why set.
 */
int route_repair(const struct topo *t, const struct route_opts *o, const struct route_tables *prev,
		 struct route_tables *out, struct route_repair_stats *st);

/*
 * prev, indexed like the nodes of old, re-indexed like the nodes of t by
 * node GUID (discovery order changes between sweeps). Nodes of t that are
 * no switch with a table in old get none (route_repair: all missing).
 * Returns 0, or -1 if prev does not fit old or old repeats a switch GUID.
 */
int route_tables_remap(const struct topo *old, const struct route_tables *prev,
		       const struct topo *t, struct route_tables *out);

#endif
