/*
 * DOC: directed-route discovery (heavy sweep, first half).
 *
 * Breadth-first over the whole fabric with many SMPs in flight: each answer
 * immediately submits the next queries (NodeInfo -> NodeDescription,
 * SwitchInfo, PortInfo of every port -> NodeInfo through every port that is
 * up and whose peer is not yet known). The engine's window keeps the wire
 * full; nothing waits for a "hop level" to finish.
 */
#ifndef IBSM_SM_DISCOVER_H
#define IBSM_SM_DISCOVER_H

#include <stdint.h>

#include "mad/engine.h"
#include "fabric/fabric.h"

struct discover_stats {
	uint64_t submitted;      /* SMPs this discovery submitted */
	uint32_t failed;         /* queries that failed (timeout, bad status) */
	uint32_t rejected;       /* answers that made no sense (bad NodeInfo...) */
	uint32_t conflicts;      /* link or GUID conflicts */
};

/* Called once when discovery has finished: f is the new fabric (owned by the
 * callee from then on), or NULL if even the local node did not answer. */
typedef void (*discover_done_fn)(void *arg, struct sm_fabric *f, const struct discover_stats *st);

struct discover;

/* mkey: M_Key to put in every SMP. */
struct discover *discover_start(struct mad_engine *e, uint64_t mkey, discover_done_fn done, void *arg);
/* Abandon a discovery in progress (its outstanding SMPs complete into the
 * void); the done callback is not called. */
void discover_abort(struct discover *d);

#endif
