/*
 * DOC: the clocks (see clock.h).
 */
#include "config.h"

#include <stddef.h>

#include "lib/clock.h"

static uint64_t (*fake_ms)(void *arg);
static void *fake_arg;

void clock_fake(uint64_t (*now_ms)(void *arg), void *arg)
{
	fake_ms = now_ms;
	fake_arg = arg;
}

uint64_t clock_us(void)
{
	struct timespec ts;

	if (fake_ms)
		return fake_ms(fake_arg) * 1000u;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t clock_ms(void)
{
	return clock_us() / 1000u;
}

uint64_t clock_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

double clock_diff_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}
