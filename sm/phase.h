/*
 * DOC: phase plumbing (phase.c): a batch of requests and the continuation
 * that runs once every one of them has completed, and long loops cut into
 * turns of the event loop.
 */
#ifndef IBSM_SM_PHASE_H
#define IBSM_SM_PHASE_H

#include <stddef.h>

struct sm;

/* Phase plumbing: sm_phase_begin() before submitting a batch, one
 * sm_phase_sub() per request, sm_phase_end() after the batch; each request's
 * completion calls sm_phase_put(). The continuation runs when all are done
 * (also when the batch was empty). */
void sm_phase_begin(struct sm *sm, void (*done)(struct sm *));
void sm_phase_end(struct sm *sm);
void sm_phase_put(struct sm *sm);
/* One more completion the running phase waits for (a routing job); its
 * sm_phase_put() comes later. */
void sm_phase_hold(struct sm *sm);
/* step(sm, i) for i in 0..n-1 inside the running phase, STEPS_PER_TURN
 * (phase.c) per turn of the event loop, so that answers are read and the
 * SMP window refilled between turns; then then(sm). */
void sm_phase_steps(struct sm *sm, size_t n, void (*step)(struct sm *, size_t),
		    void (*then)(struct sm *));
/* Drops steps still to run (shutdown). */
void sm_phase_steps_abandon(struct sm *sm);

#endif
