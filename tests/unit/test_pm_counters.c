/*
 * DOC: tests of the counter arithmetic of pm/counters.c: baselines,
 * increments, saturation and the clear that keeps the total, clears behind
 * our back, 64-bit counters, and which attribute each counter comes from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pm/counters.h"

static struct pm_plan legacy_plan(void)
{
	struct pm_plan p;

	pm_plan_legacy(&p);
	return p;
}

static void read_pc(struct pm_counters *c, const struct pma_port_counters *pc, uint64_t *d)
{
	struct pm_plan p = legacy_plan();
	struct pm_reading r;

	pm_reading_from_pc(pc, p.from_pc, &r);
	pm_counters_apply(c, &r, d);
}

static void test_baseline_and_increments(void **state)
{
	struct pm_counters c;
	struct pma_port_counters pc = { .symbol_err = 7, .xmit_data = 1000 };
	uint64_t d[PM_NCTR];

	pm_counters_init(&c);
	read_pc(&c, &pc, d);
	/* the total starts at what the device had counted, with no increment */
	assert_int_equal(c.total[PM_SYMBOL_ERR], 7);
	assert_int_equal(c.total[PM_XMIT_DATA], 1000);
	assert_int_equal(d[PM_SYMBOL_ERR], 0);
	pc.symbol_err = 12;
	pc.xmit_data = 1500;
	read_pc(&c, &pc, d);
	assert_int_equal(d[PM_SYMBOL_ERR], 5);
	assert_int_equal(d[PM_XMIT_DATA], 500);
	assert_int_equal(c.total[PM_SYMBOL_ERR], 12);
	assert_int_equal(c.total[PM_XMIT_DATA], 1500);
	assert_int_equal(pm_counters_saturated(&c, legacy_plan().from_pc), 0);
}

static void test_saturation_and_clear(void **state)
{
	struct pm_counters c;
	struct pm_plan p = legacy_plan();
	struct pma_port_counters pc = { .link_downed = 10 };
	uint64_t d[PM_NCTR];

	pm_counters_init(&c);
	read_pc(&c, &pc, d);
	assert_false(pm_counters_need_clear(&c, &p));
	pc.link_downed = 191;                /* 255 - 255/4 = 192 */
	read_pc(&c, &pc, d);
	assert_false(pm_counters_need_clear(&c, &p));
	pc.link_downed = 192;
	read_pc(&c, &pc, d);
	assert_true(pm_counters_need_clear(&c, &p));
	/* the Set is confirmed: the next reading counts from zero */
	pm_counters_cleared(&c, p.clear_select, p.clear_select2);
	assert_false(pm_counters_need_clear(&c, &p));
	pc.link_downed = 3;
	read_pc(&c, &pc, d);
	assert_int_equal(d[PM_LINK_DOWNED], 3);
	assert_int_equal(c.total[PM_LINK_DOWNED], 195);
	/* stuck at the maximum: a lower bound, marked */
	pc.link_downed = 255;
	read_pc(&c, &pc, d);
	read_pc(&c, &pc, d);
	assert_int_equal(d[PM_LINK_DOWNED], 0);
	assert_int_equal(c.total[PM_LINK_DOWNED], 447);
	assert_true(pm_counters_saturated(&c, p.from_pc) & PM_BIT(PM_LINK_DOWNED));
	pm_counters_cleared(&c, PMA_CS_LINK_DOWNED, 0);
	assert_false(pm_counters_saturated(&c, p.from_pc) & PM_BIT(PM_LINK_DOWNED));
}

static void test_four_bit_fields(void **state)
{
	struct pm_counters c;
	struct pm_plan p = legacy_plan();
	struct pma_port_counters pc = { .local_link_integrity = 9 };
	uint64_t d[PM_NCTR];

	pm_counters_init(&c);
	read_pc(&c, &pc, d);
	assert_false(pm_counters_need_clear(&c, &p));
	pc.excessive_buf_overrun = 10;
	read_pc(&c, &pc, d);
	assert_true(pm_counters_need_clear(&c, &p));
	pc.local_link_integrity = 15;
	read_pc(&c, &pc, d);
	assert_true(pm_counters_saturated(&c, p.from_pc) & PM_BIT(PM_LOCAL_LINK_INTEGRITY));
	assert_int_equal(pm_counters_last(&c, PM_EXCESSIVE_BUF_OVERRUN), 10);
	assert_int_equal(pm_counters_last(&c, PM_LOCAL_LINK_INTEGRITY), 15);
}

/* Someone runs `perfquery -R` between two of our readings. */
static void test_clear_behind_our_back(void **state)
{
	struct pm_counters c;
	struct pma_port_counters pc = { .symbol_err = 500, .rcv_err = 40 };
	struct pm_reading r;
	uint64_t d[PM_NCTR], before;
	uint32_t dropped;

	pm_counters_init(&c);
	read_pc(&c, &pc, d);
	pc.symbol_err = 600;
	read_pc(&c, &pc, d);
	before = c.total[PM_SYMBOL_ERR];
	pc.symbol_err = 30;                  /* cleared, then 30 more */
	pm_reading_from_pc(&pc, legacy_plan().from_pc, &r);
	dropped = pm_counters_apply(&c, &r, d);
	assert_true(dropped & PM_BIT(PM_SYMBOL_ERR));
	assert_false(dropped & PM_BIT(PM_RCV_ERR));
	assert_int_equal(d[PM_SYMBOL_ERR], 30);
	assert_int_equal(c.total[PM_SYMBOL_ERR], before + 30);
	pc.symbol_err = 0;                   /* cleared again, nothing since */
	read_pc(&c, &pc, d);
	assert_int_equal(c.total[PM_SYMBOL_ERR], before + 30);
	pc.symbol_err = 8;
	read_pc(&c, &pc, d);
	assert_int_equal(c.total[PM_SYMBOL_ERR], before + 38);
}

static void test_extended(void **state)
{
	struct pma_class_port_info cpi = { .cap_mask = PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT };
	struct pm_plan p;
	struct pm_counters c;
	struct pma_port_counters_ext pce = { .xmit_data = 0x123456789abcull, .rcv_pkts = 5 };
	struct pm_reading r;
	uint64_t d[PM_NCTR];

	pm_plan_from_cpi(&cpi, &p);
	pm_counters_init(&c);
	pm_reading_from_pce(&pce, p.from_pce, &r);
	pm_counters_apply(&c, &r, d);
	pce.xmit_data += 0x100000000ull * 3; /* more than a 32-bit field holds */
	pm_reading_from_pce(&pce, p.from_pce, &r);
	pm_counters_apply(&c, &r, d);
	assert_true(d[PM_XMIT_DATA] == 0x300000000ull);
	assert_true(c.total[PM_XMIT_DATA] == 0x123456789abcull + 0x300000000ull);
	assert_int_equal(pm_counters_saturated(&c, p.from_pc), 0);
	/* 64-bit counters are never cleared by us and need no clear */
	assert_false(pm_counters_need_clear(&c, &p));
	/* but a reset of the device's counters is seen like any clear */
	pce.xmit_data = 10;
	pm_reading_from_pce(&pce, p.from_pce, &r);
	assert_true(pm_counters_apply(&c, &r, d) & PM_BIT(PM_XMIT_DATA));
	assert_true(c.total[PM_XMIT_DATA] == 0x123456789abcull + 0x300000000ull + 10);
}

static void test_plans(void **state)
{
	struct pma_class_port_info cpi = { 0 };
	struct pm_plan p;

	/* nothing advertised: everything from PortCounters, XmitWait ignored */
	pm_plan_from_cpi(&cpi, &p);
	assert_int_equal(p.from_pce, 0);
	assert_false(p.from_pc & PM_BIT(PM_XMIT_WAIT));
	assert_true(p.from_pc & PM_BIT(PM_XMIT_DATA));
	assert_int_equal(p.clear_select, 0xffff);
	assert_int_equal(p.clear_select2, 0);
	assert_false(p.all_port_select);
	/* a switch as ibsim describes it: AllPortSelect, ExtWidth, XmitWait */
	cpi.cap_mask = PMA_CAP_ALL_PORT_SELECT | PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT;
	pm_plan_from_cpi(&cpi, &p);
	assert_true(p.all_port_select);
	assert_int_equal(p.from_pce, PM_BIT(PM_XMIT_DATA) | PM_BIT(PM_RCV_DATA) |
				     PM_BIT(PM_XMIT_PKTS) | PM_BIT(PM_RCV_PKTS));
	assert_int_equal(p.clear_select, PMA_CS_ERRORS);
	assert_int_equal(p.clear_select2, PMA_CS2_XMIT_WAIT);
	/* the NoIETF variant carries the same four counters */
	cpi.cap_mask = PMA_CAP_EXT_WIDTH_NOIETF;
	pm_plan_from_cpi(&cpi, &p);
	assert_true(p.from_pce & PM_BIT(PM_XMIT_DATA));
	/* additional extended counters: PortXmitWait is 64-bit too */
	cpi.cap_mask = PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT;
	cpi.cap_mask2 = PMA_CAP2_ADDL_PORT_COUNTERS_EXT;
	pm_plan_from_cpi(&cpi, &p);
	assert_true(p.from_pce & PM_BIT(PM_XMIT_WAIT));
	assert_false(p.from_pc & PM_BIT(PM_XMIT_WAIT));
	assert_int_equal(p.clear_select2, 0);
	assert_int_equal(p.from_pc | p.from_pce, PM_ALL);
	assert_int_equal(p.from_pc & p.from_pce, 0);
}

static void test_names(void **state)
{
	assert_string_equal(pm_ctr_name(PM_SYMBOL_ERR), "symbol_error");
	assert_string_equal(pm_ctr_name(PM_XMIT_DATA), "transmit_data_bytes");
	assert_string_equal(pm_ctr_name(PM_XMIT_WAIT), "transmit_wait");
	for (unsigned i = 0; i < PM_NCTR; i++)
		assert_non_null(pm_ctr_name(i));
	assert_int_equal(pm_ctr_legacy_max(PM_XMIT_WAIT), 0xffffffffu);
	assert_int_equal(pm_ctr_legacy_max(PM_EXCESSIVE_BUF_OVERRUN), 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_and_increments),
		cmocka_unit_test(test_saturation_and_clear),
		cmocka_unit_test(test_four_bit_fields),
		cmocka_unit_test(test_clear_behind_our_back),
		cmocka_unit_test(test_extended),
		cmocka_unit_test(test_plans),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
