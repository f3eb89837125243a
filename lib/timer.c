/*
 * DOC: a libevent timer set to an absolute deadline (see timer.h).
 */
#include "config.h"

#include <event2/event.h>

#include "lib/clock.h"
#include "lib/timer.h"

void timer_at(struct event *ev, uint64_t deadline_ms)
{
	uint64_t now = clock_ms();
	struct timeval tv = { 0, 0 };

	if (!ev)
		return;
	if (deadline_ms == UINT64_MAX) {
		evtimer_del(ev);
		return;
	}
	if (deadline_ms > now) {
		tv.tv_sec = (time_t)((deadline_ms - now) / 1000);
		tv.tv_usec = (suseconds_t)((deadline_ms - now) % 1000) * 1000;
	}
	evtimer_add(ev, &tv);
}
