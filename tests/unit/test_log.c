/*
 * DOC: unit tests of the log's rate limits (sm/log.c) on a clock the
 * test moves: a call site's burst and rate, call sites apart, the limit
 * of the whole log, debug lines, the counts written by the flush, and
 * the bound on what a flood of a million lines writes in 20 s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sm/log.h"

static double t_now;
static char *buf;
static size_t len;
static FILE *mem;

static double fake_clock(void)
{
	return t_now;
}

/* Each test starts far from the last one: every bucket is full again. */
static int setup(void **state)
{
	FILE *null = fopen("/dev/null", "w");

	assert_non_null(null);
	t_now += 1e6;
	log_init(LOG_LVL_INFO, 0);
	log_set_clock(fake_clock);
	log_set_output(null);
	log_flush_suppressed();   /* what earlier tests left */
	fclose(null);
	mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	log_set_output(mem);
	return 0;
}

static int teardown(void **state)
{
	log_set_output(NULL);
	fclose(mem);
	free(buf);
	buf = NULL;
	return 0;
}

static size_t lines(void)
{
	size_t n = 0;

	fflush(mem);
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

static void site_a(int i)
{
	log_info("site a line %d", i);
}

static void site_b(int i)
{
	log_notice("site b line %d", i);
}

static void test_site_burst_then_rate(void **state)
{
	uint64_t before = log_suppressed();

	for (int i = 0; i < 1000; i++)
		site_a(i);
	assert_int_equal(lines(), LOG_SITE_BURST);
	assert_int_equal(log_suppressed() - before, 1000 - LOG_SITE_BURST);
	t_now += 10;   /* refills 10 x LOG_SITE_RATE */
	for (int i = 0; i < 1000; i++)
		site_a(i);
	assert_int_equal(lines(), LOG_SITE_BURST + (size_t)(10 * LOG_SITE_RATE));
}

static void test_sites_apart(void **state)
{
	for (int i = 0; i < 500; i++)
		site_a(i);
	for (int i = 0; i < 50; i++)
		site_b(i);
	assert_int_equal(lines(), LOG_SITE_BURST + 50);
}

static void test_flush_counts(void **state)
{
	for (int i = 0; i < 300; i++)
		site_a(i);
	log_flush_suppressed();
	assert_int_equal(lines(), LOG_SITE_BURST + 1);
	assert_non_null(strstr(buf, "log: 200 more lines like \"site a line %d\" left out"));
	log_flush_suppressed();   /* nothing new: no line */
	assert_int_equal(lines(), LOG_SITE_BURST + 1);
}

static void test_debug_not_limited(void **state)
{
	log_init(LOG_LVL_DEBUG, 0);
	for (int i = 0; i < 1000; i++)
		log_debug("debug %d", i);
	assert_int_equal(lines(), 1000);
}

static void test_below_level_not_counted(void **state)
{
	uint64_t before = log_suppressed();

	log_init(LOG_LVL_NOTICE, 0);
	for (int i = 0; i < 1000; i++)
		site_a(i);   /* info: not written, not counted */
	assert_int_equal(lines(), 0);
	assert_int_equal(log_suppressed(), before);
	log_init(LOG_LVL_INFO, 0);
	site_a(0);
	assert_int_equal(lines(), 1);
}

/* Forty call sites at once: the whole log stops at LOG_ALL_BURST. */
#define S(n) log_info("many sites " #n " %d", i);
#define S10(n) S(n##0) S(n##1) S(n##2) S(n##3) S(n##4) S(n##5) S(n##6) S(n##7) S(n##8) S(n##9)
static void test_whole_log_limit(void **state)
{
	for (int i = 0; i < LOG_SITE_BURST; i++) {
		S10(1) S10(2) S10(3) S10(4)
	}
	assert_int_equal(lines(), LOG_ALL_BURST);
	log_flush_suppressed();
	assert_non_null(strstr(buf, "more lines left out (the log took more than"));
}

/* A million lines from five call sites over 20 s: what is written stays
 * within the sites' bursts and rates. */
static void test_flood_bounded(void **state)
{
	size_t bound = 5 * (LOG_SITE_BURST + (size_t)(20 * LOG_SITE_RATE)) + 5 * 4;

	for (int i = 0; i < 1000000; i++) {
		t_now += 20.0 / 1000000;
		switch (i % 5) {
		case 0: log_info("flood 0 %d", i); break;
		case 1: log_info("flood 1 %d", i); break;
		case 2: log_notice("flood 2 %d", i); break;
		case 3: log_warnx("flood 3 %d", i); break;
		default: log_msg(LOG_LVL_ERR, "flood 4 %d", i); break;
		}
		if (i % 250000 == 0)
			log_flush_suppressed();
	}
	log_flush_suppressed();
	assert_true(lines() <= bound);
	assert_true(len < bound * 80);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_site_burst_then_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sites_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debug_not_limited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_below_level_not_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_whole_log_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_bounded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
