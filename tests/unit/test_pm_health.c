/*
 * DOC: tests of the health verdicts of pm/health.c: per-window thresholds
 * and how long a problem stays, the symbol BER limit and when it can be
 * judged, time in PortXmitWait, flapping, and degraded links.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pm/health.h"

#define NDR4 400e9
#define EDR4 100e9

static uint32_t add1(struct pm_health *h, const struct pm_thresholds *t, uint16_t seq,
		     enum pm_ctr c, uint64_t n, double rate)
{
	uint64_t d[PM_NCTR] = { 0 };

	d[c] = n;
	return pm_health_add(h, t, seq, d, rate);
}

static void test_window_threshold(void **state)
{
	struct pm_thresholds t;
	struct pm_health h;
	uint32_t rcv = PM_P_BIT(PM_P_RECEIVE_ERRORS);

	pm_thresholds_default(&t);
	pm_health_init(&h, 7);
	/* ten in a window is the threshold, not over it */
	assert_int_equal(add1(&h, &t, 7, PM_RCV_ERR, 6, EDR4), 0);
	assert_int_equal(add1(&h, &t, 7, PM_RCV_ERR, 4, EDR4), 0);
	assert_int_equal(add1(&h, &t, 7, PM_RCV_ERR, 1, EDR4), rcv);
	/* it stays through the next window, then a quiet window clears it */
	assert_int_equal(pm_health_problems(&h, 8), rcv);
	assert_int_equal(add1(&h, &t, 8, PM_RCV_ERR, 3, EDR4), rcv);
	assert_int_equal(pm_health_problems(&h, 9), 0);
	/* growth does not carry across windows */
	assert_int_equal(add1(&h, &t, 10, PM_RCV_ERR, 8, EDR4), 0);
	assert_int_equal(add1(&h, &t, 11, PM_RCV_ERR, 8, EDR4), 0);
	/* a window skipped without readings ends a problem too */
	assert_int_equal(add1(&h, &t, 11, PM_RCV_ERR, 100, EDR4), rcv);
	assert_int_equal(pm_health_problems(&h, 13), 0);
	/* remote physical errors have the threshold 100 */
	assert_int_equal(add1(&h, &t, 14, PM_RCV_REMOTE_PHYS, 100, EDR4), 0);
	assert_int_equal(add1(&h, &t, 14, PM_RCV_REMOTE_PHYS, 1, EDR4),
			 PM_P_BIT(PM_P_RECEIVE_REMOTE_PHYSICAL_ERRORS));
}

static void test_symbol_ber(void **state)
{
	struct pm_thresholds t;
	struct pm_health h;
	uint32_t sym = PM_P_BIT(PM_P_SYMBOL_ERRORS);

	pm_thresholds_default(&t);
	/* 5 min of NDR 4x carry 1.2e14 bits: 1e-14 allows 1.2 errors */
	pm_health_init(&h, 0);
	assert_int_equal(add1(&h, &t, 0, PM_SYMBOL_ERR, 1, NDR4), 0);
	assert_int_equal(add1(&h, &t, 0, PM_SYMBOL_ERR, 1, NDR4), sym);
	/* on EDR 4x the window carries too few bits to judge a BER of
	 * 1e-14, so only the count threshold applies */
	pm_health_init(&h, 0);
	assert_int_equal(add1(&h, &t, 0, PM_SYMBOL_ERR, 10, EDR4), 0);
	assert_int_equal(add1(&h, &t, 0, PM_SYMBOL_ERR, 1, EDR4), sym);
	/* a longer window makes the BER judgeable on EDR as well */
	t.window_s = 1000;
	pm_health_init(&h, 0);
	assert_int_equal(add1(&h, &t, 0, PM_SYMBOL_ERR, 1, EDR4), 0);
	assert_int_equal(add1(&h, &t, 0, PM_SYMBOL_ERR, 1, EDR4), sym);
}

static void test_xmit_wait(void **state)
{
	struct pm_thresholds t;
	struct pm_health h;
	/* NDR 4x moves 50e9 bytes/s: 6.25e9 ticks of 8 bytes per second */
	uint64_t ten_pct = (uint64_t)(6.25e9 * 30);

	pm_thresholds_default(&t);
	pm_health_init(&h, 0);
	assert_int_equal(add1(&h, &t, 0, PM_XMIT_WAIT, ten_pct / 2, NDR4), 0);
	/* counted in tenths of a second: 0.2 s short, then 0.4 s more */
	assert_int_equal(add1(&h, &t, 0, PM_XMIT_WAIT, ten_pct / 2 - 1250000000, NDR4), 0);
	assert_int_equal(add1(&h, &t, 0, PM_XMIT_WAIT, 2500000000u, NDR4),
			 PM_P_BIT(PM_P_XMIT_WAIT));
	/* without a known rate the ticks cannot be turned into time */
	pm_health_init(&h, 0);
	assert_int_equal(add1(&h, &t, 0, PM_XMIT_WAIT, ten_pct * 4, 0), 0);
}

static void test_flapping(void **state)
{
	struct pm_thresholds t;
	struct pm_health h;
	uint32_t flap = PM_P_BIT(PM_P_FLAPPING);

	pm_thresholds_default(&t);
	pm_health_init(&h, 0);
	assert_int_equal(pm_health_bounce(&h, &t, 0), 0);
	assert_int_equal(pm_health_bounce(&h, &t, 0), 0);
	assert_int_equal(pm_health_bounce(&h, &t, 0), flap);
	assert_int_equal(pm_health_problems(&h, 1), flap);
	assert_int_equal(pm_health_problems(&h, 2), 0);
	/* LinkDownedCounter counts bounces the SM may not have seen */
	assert_int_equal(add1(&h, &t, 2, PM_LINK_DOWNED, 2, EDR4), 0);
	assert_int_equal(add1(&h, &t, 2, PM_LINK_DOWNED, 1, EDR4), flap);
}

static struct pm_link_caps caps(uint8_t wsup, uint8_t wen, uint8_t wact, uint8_t ssup,
				uint8_t sen, uint8_t sact)
{
	struct pm_link_caps c = { wsup, wen, wact, ssup, sen, sact };

	return c;
}

static void test_link(void **state)
{
	struct pm_link_caps a = caps(3, 3, 2, 7, 7, PM_SPEED_QDR);
	struct pm_link_caps b = caps(3, 3, 2, 7, 7, PM_SPEED_QDR);

	assert_int_equal(pm_link_problems(&a, &b), 0);
	/* 1x while both support and enable 4x */
	a.width_act = b.width_act = 1;
	assert_int_equal(pm_link_problems(&a, &b), PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED));
	/* a net-file link with w=1 on ibsim: 1x enabled and active on both
	 * ends, 4x supported: below 4x is degraded all the same */
	a.width_en = b.width_en = 1;
	assert_int_equal(pm_link_problems(&a, &b), PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED));
	/* 1x is all one end supports: nothing wrong */
	b.width_sup = 1;
	assert_int_equal(pm_link_problems(&a, &b), 0);
	/* 4x where both could do 12x but enable 4x (ibsim's ports) */
	a = caps(0x1F, 2, 2, 7, 1, PM_SPEED_SDR);
	b = caps(0x1F, 2, 2, 7, 1, PM_SPEED_SDR);
	assert_int_equal(pm_link_problems(&a, &b), 0);
	b.width_en = 1;
	a.width_act = b.width_act = 1;
	assert_int_equal(pm_link_problems(&a, &b), PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED));
	a = caps(3, 3, 1, 7, 7, PM_SPEED_QDR);
	b = caps(1, 1, 1, 7, 7, PM_SPEED_QDR);
	a.speed_act = PM_SPEED_SDR;
	assert_int_equal(pm_link_problems(&a, &b), PM_P_BIT(PM_P_LINK_SPEED_DEGRADED));
	b.speed_sup = PM_SPEED_SDR;
	assert_int_equal(pm_link_problems(&a, &b), 0);
	assert_true(pm_link_rate_bps(&a) == 2e9);
}

static void test_port_info(void **state)
{
	struct smp_port_info pi;
	struct pm_link_caps a;

	memset(&pi, 0, sizeof(pi));
	pi.link_width_supported = 3;
	pi.link_width_enabled = 3;
	pi.link_width_active = 2;
	pi.link_speed_supported = 7;
	pi.link_speed_enabled = 7;
	pi.link_speed_active = 4;
	pi.link_speed_ext_supported = 0xF;
	pi.link_speed_ext_enabled = 0xF;
	pi.link_speed_ext_active = 8;
	pm_link_caps_from_port_info(&pi, &a);
	assert_int_equal(a.speed_act, PM_SPEED_NDR);
	assert_int_equal(a.speed_sup, 0x7F);
	assert_true(pm_link_rate_bps(&a) == NDR4);
	/* QDR while NDR is possible on both ends */
	pi.link_speed_ext_active = 0;
	pm_link_caps_from_port_info(&pi, &a);
	assert_int_equal(a.speed_act, PM_SPEED_QDR);
	assert_int_equal(pm_link_problems(&a, &a), PM_P_BIT(PM_P_LINK_SPEED_DEGRADED));
	/* extended speeds disabled (30): QDR is the best */
	pi.link_speed_ext_enabled = 30;
	pm_link_caps_from_port_info(&pi, &a);
	assert_int_equal(a.speed_en, 7);
	assert_int_equal(pm_link_problems(&a, &a), 0);
}

static void test_names(void **state)
{
	assert_string_equal(pm_problem_name(PM_P_SYMBOL_ERRORS), "symbol_errors");
	assert_string_equal(pm_problem_name(PM_P_LINK_WIDTH_DEGRADED), "link_width_degraded");
	assert_string_equal(pm_problem_name(PM_P_LINK_SPEED_DEGRADED), "link_speed_degraded");
	assert_string_equal(pm_problem_name(PM_P_XMIT_WAIT), "xmit_wait");
	assert_string_equal(pm_problem_name(PM_P_FLAPPING), "flapping");
	assert_string_equal(pm_problem_name(PM_P_NOT_ANSWERING), "not_answering");
	for (unsigned p = 0; p < PM_NPROBLEM; p++)
		assert_non_null(pm_problem_name(p));
	assert_int_equal(pm_problem_ctr(PM_P_VL15_DROPPED), PM_VL15_DROPPED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_threshold),
		cmocka_unit_test(test_symbol_ber),
		cmocka_unit_test(test_xmit_wait),
		cmocka_unit_test(test_flapping),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_port_info),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
