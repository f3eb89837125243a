/*
 * DOC: a libevent timer set to an absolute deadline of clock_ms().
 *
 * Who keeps deadlines (the MAD engine, the SA, later the performance
 * manager) has no timer of its own: after each event the owner of the
 * loop sets one timer to the next deadline.
 */
#ifndef IBSM_LIB_TIMER_H
#define IBSM_LIB_TIMER_H

#include <stdint.h>

struct event;

/* ev (an evtimer) fires at deadline_ms (clock_ms()), at once when it has
 * passed; UINT64_MAX takes it off. A NULL ev is left alone. */
void timer_at(struct event *ev, uint64_t deadline_ms);

#endif
