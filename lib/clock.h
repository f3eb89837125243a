/*
 * DOC: the clocks, read in one place.
 *
 * Deadlines, timeouts, rates and durations run on CLOCK_MONOTONIC (in ms
 * or us), which no clock setting moves; a time that leaves the process
 * (a lease in the clients file, an event's time shown to an operator) is
 * CLOCK_REALTIME. Unit tests that drive time by hand give the monotonic
 * clock a source of their own (clock_fake).
 */
#ifndef IBSM_LIB_CLOCK_H
#define IBSM_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in milliseconds and in microseconds. */
uint64_t clock_ms(void);
uint64_t clock_us(void);
/* CLOCK_REALTIME in Unix milliseconds. */
uint64_t clock_wall_ms(void);
/* b - a in milliseconds (two CLOCK_MONOTONIC stamps). */
double clock_diff_ms(const struct timespec *a, const struct timespec *b);

/* Tests: clock_ms() returns now_ms(arg) from here on, clock_us() the same
 * in microseconds; NULL restores the real clock. */
void clock_fake(uint64_t (*now_ms)(void *arg), void *arg);

#endif
