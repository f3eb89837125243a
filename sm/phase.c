/*
 * DOC: phase plumbing: a batch of requests and the continuation that runs
 * once every one of them has completed (sm.h, sm_phase_begin). Apart from
 * sweep.c so that unit tests of the modules that use it link the real one.
 */
#include "config.h"

#include "sm/sm.h"

void sm_phase_begin(struct sm *sm, void (*done)(struct sm *))
{
	sm->phase_done = done;
	sm->pending = 1;
}

void sm_phase_put(struct sm *sm)
{
	void (*fn)(struct sm *) = sm->phase_done;

	if (--sm->pending)
		return;
	sm->phase_done = NULL;
	if (fn)
		fn(sm);
}

void sm_phase_hold(struct sm *sm)
{
	sm->pending++;
}

void sm_phase_end(struct sm *sm)
{
	sm_phase_put(sm);
}
