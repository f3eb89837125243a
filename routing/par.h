/*
 * DOC: two halves of a pure computation on two threads.
 *
 * Routing stays pure and deterministic with a second thread: each half
 * works on its own memory and reads only what neither writes, and the
 * caller merges the halves' results in a fixed order, so the outcome does
 * not depend on which thread finishes first, nor on whether there is a
 * second thread at all.
 */
#ifndef IBSM_ROUTING_PAR_H
#define IBSM_ROUTING_PAR_H

#include "routing/graph.h"

/* Below this many table cells (switches x LIDs) a second thread costs more
 * to start, block after block, than it saves. */
#define RG_PAR_CELLS (1u << 22)

/* fn(a) on a second thread and fn(b) on this one, both done on return; one
 * after the other here if threads < 2 or no thread can be started. */
void rg_par2(void (*fn)(void *), void *a, void *b, unsigned threads);

/* threads, or 1 on a fabric too small for a second one to pay. */
unsigned rg_par_threads(const struct rgraph *g, unsigned threads);

#endif
