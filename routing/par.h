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

/* fn(a) on a second thread and fn(b) on this one, both done on return: 0.
 * -1, and neither run, if no second thread could be started (for halves
 * that wait for each other, which one after the other would not end). */
int rg_par2_both(void (*fn)(void *), void *a, void *b);

/* fn(arg, 0, 0, n / 2) on a second thread and fn(arg, 1, n / 2, n) on this
 * one (the half, then its range), as rg_par2(): for loops whose iterations
 * write apart from each other. */
void rg_par_range(void (*fn)(void *, int, uint32_t, uint32_t), void *arg, uint32_t n,
		  unsigned threads);

/*
 * Two sides stepping together: each says when it finished a step and may
 * wait until the other finished some number of them (a mutex and a
 * condition variable, so that the waits order the memory too).
 */
struct rg_steps;
struct rg_steps *rg_steps_new(void);
void rg_steps_free(struct rg_steps *s);
/* Side (0 or 1) finished its first n steps. */
void rg_steps_done(struct rg_steps *s, int side, uint32_t n);
/* Waits until side finished at least n steps. */
void rg_steps_wait(struct rg_steps *s, int side, uint32_t n);

/* threads, or 1 on a fabric too small for a second one to pay. */
unsigned rg_par_threads(const struct rgraph *g, unsigned threads);

#endif
