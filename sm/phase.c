/*
 * DOC: phase plumbing: a batch of requests and the continuation that runs
 * once every one of them has completed (sm.h, sm_phase_begin), and long
 * loops cut into turns of the event loop (sm_phase_steps). Apart from
 * sweep.c so that unit tests of the modules that use it link the real one.
 */
#include "config.h"

#include <event2/event.h>
#include <stdlib.h>

#include "sm/log.h"
#include "sm/sm.h"

/* Steps per turn of the loop. While a turn runs, no answer is read and
 * no SMP sent: the simulator answers a full window in well under a
 * millisecond, then waits. A few hundred steps (submissions, mostly)
 * take about that long. */
#define STEPS_PER_TURN 256

struct sm_steps {
	struct sm_steps *link;          /* sm->steps: those running */
	struct sm *sm;
	size_t next, n;
	void (*step)(struct sm *, size_t);
	void (*then)(struct sm *);
	struct event *ev;
};

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

static void steps_turn(evutil_socket_t fd, short what, void *arg)
{
	struct sm_steps *st = arg;
	struct sm *sm = st->sm;
	/* without an event (no loop: unit tests) all in one turn */
	size_t end = st->ev && st->n - st->next > STEPS_PER_TURN ? st->next + STEPS_PER_TURN : st->n;
	void (*then)(struct sm *);

	while (st->next < end)
		st->step(sm, st->next++);
	if (st->next < st->n) {
		/* a timer, not event_active(): libevent would run an event made
		 * active from a callback in the same pass, before the umad pump */
		static const struct timeval now = { 0, 0 };

		event_add(st->ev, &now);
		return;
	}
	then = st->then;
	for (struct sm_steps **pp = &sm->steps; *pp; pp = &(*pp)->link)
		if (*pp == st) {
			*pp = st->link;
			break;
		}
	if (st->ev)
		event_free(st->ev);
	free(st);
	if (then)
		then(sm);
	sm_phase_put(sm);
}

void sm_phase_steps(struct sm *sm, size_t n, void (*step)(struct sm *, size_t),
		    void (*then)(struct sm *))
{
	struct sm_steps *st = xcalloc(1, sizeof(*st));

	st->sm = sm;
	st->n = n;
	st->step = step;
	st->then = then;
	st->ev = sm->base ? event_new(sm->base, -1, 0, steps_turn, st) : NULL;
	st->link = sm->steps;
	sm->steps = st;
	sm_phase_hold(sm);
	steps_turn(-1, 0, st);
}

void sm_phase_steps_abandon(struct sm *sm)
{
	while (sm->steps) {
		struct sm_steps *st = sm->steps;

		sm->steps = st->link;
		if (st->ev)
			event_free(st->ev);
		free(st);
	}
}
