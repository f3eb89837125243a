/*
 * DOC: tests of the poll scheduler of pm/sched.c against a fake PMA: one
 * ClassPortInfo per node before its ports, both attributes per port, the
 * window and the cap per node, re-asks and not_answering, the clear before saturation (one
 * AllPortSelect Set per switch, per port elsewhere) that keeps the totals,
 * a clear behind our back, targets that change under a round, and the
 * memory a watched port takes, measured on the heap.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pm/sched.h"

#define SW 0x1000ull
#define CA 0x2000ull

/* The fake fabric: one switch with ports 1..3 (AllPortSelect, extended
 * width, XmitWait, as ibsim's switches) and one CA port (extended width). */
struct fake {
	uint16_t symbol[4];
	uint64_t xdata[4];
	uint32_t silent;        /* 1 << port: that port's PMA never answers; bit 0: the CA */
	unsigned clears, clears_all, cpis;
	unsigned max_out, out;
	uint32_t changes;       /* problems of the last change seen */
};

static struct fake F;

static void on_change(void *arg, uint64_t guid, uint8_t port, uint32_t before, uint32_t after)
{
	F.changes = after;
}

static int slot(const struct pm_query *q)
{
	return q->guid == CA ? 0 : q->port;
}

static void answer_counters(const struct pm_query *q, struct pma_reply *r)
{
	int s = slot(q);

	if (q->kind == PM_Q_PC) {
		r->u.pc.port_select = q->port;
		r->u.pc.symbol_err = F.symbol[s];
		r->u.pc.xmit_data = (uint32_t)F.xdata[s];
	} else {
		r->u.pce.port_select = q->port;
		r->u.pce.xmit_data = F.xdata[s];
	}
}

static void clear(const struct pm_query *q)
{
	int s = slot(q);

	assert_int_equal(q->counter_select, PMA_CS_ERRORS);
	F.clears++;
	if (q->port == PMA_PORT_SELECT_ALL) {
		F.clears_all++;
		for (int i = 1; i < 4; i++)
			F.symbol[i] = 0;
	} else {
		F.symbol[s] = 0;
	}
}

/* The PMA's answer, or NULL when it stays silent. */
static const struct pma_reply *fake_pma(const struct pm_query *q, struct pma_reply *r)
{
	static const uint16_t attr[] = { PMA_ATTR_CLASS_PORT_INFO, PMA_ATTR_PORT_COUNTERS,
					 PMA_ATTR_PORT_COUNTERS_EXT, PMA_ATTR_PORT_COUNTERS };

	/* slot 255: an AllPortSelect clear, never silenced */
	if (slot(q) < 32 && F.silent & (1u << slot(q)) && q->kind != PM_Q_CPI)
		return NULL;
	if (F.silent & 1 && q->guid == CA)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->attr_id = attr[q->kind];
	r->method = MAD_METHOD_GET_RESP;
	if (q->kind == PM_Q_CPI) {
		F.cpis++;
		r->u.cpi.cap_mask = PMA_CAP_EXT_WIDTH | (q->guid == SW ? PMA_CAP_ALL_PORT_SELECT |
								 PMA_CAP_XMIT_WAIT : 0);
	} else if (q->kind == PM_Q_CLEAR) {
		clear(q);
	} else {
		answer_counters(q, r);
	}
	return r;
}

static void targets(struct pm *pm, int with_ca)
{
	struct pm_target t[4];
	int n = 0;

	memset(t, 0, sizeof(t));
	for (int p = 3; p >= 1; p--)
		t[n++] = (struct pm_target){ .guid = SW, .lid = 1, .port = (uint8_t)p,
					     .is_switch = 1, .width_act = 2,
					     .speed_act = PM_SPEED_QDR };
	if (with_ca)
		t[n++] = (struct pm_target){ .guid = CA, .lid = 5, .port = 1, .width_act = 1,
					     .speed_act = PM_SPEED_QDR,
					     .link_problems = PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED) };
	assert_int_equal(pm_set_targets(pm, t, (size_t)n), 0);
}

/* Runs one round to its end with the fake PMA answering in order. */
static unsigned run_round(struct pm *pm, uint64_t now)
{
	struct pm_query q[64], inflight[512];
	struct pma_reply r;
	unsigned nin = 0, sent = 0;
	size_t got;

	for (;;) {
		struct pm_query one;

		got = pm_next(pm, now, q, 64);
		memcpy(inflight + nin, q, got * sizeof(q[0]));
		nin += (unsigned)got;
		sent += (unsigned)got;
		F.out += (unsigned)got;
		if (F.out > F.max_out)
			F.max_out = F.out;
		if (!nin)
			break;
		one = inflight[0];
		memmove(inflight, inflight + 1, --nin * sizeof(inflight[0]));
		F.out--;
		pm_done(pm, &one, fake_pma(&one, &r), now);
	}
	return sent;
}

static struct pm *setup_pm(unsigned window)
{
	struct pm_opts o;
	struct pm *pm;

	memset(&F, 0, sizeof(F));
	pm_opts_default(&o);
	o.window = window;
	o.period_ms = 1000;
	pm = pm_new(&o, on_change, NULL);
	assert_non_null(pm);
	targets(pm, 1);
	return pm;
}

static void test_round(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_stats st;
	struct pm_port_view v;

	F.xdata[2] = 777;
	/* 2 ClassPortInfo, then 4 ports x 2 attributes */
	assert_int_equal(run_round(pm, 1000), 10);
	assert_int_equal(F.cpis, 2);
	pm_get_stats(pm, &st);
	assert_int_equal(st.rounds, 1);
	assert_int_equal(st.ports, 4);
	assert_true(pm_port_find(pm, SW, 2, &v));
	assert_true(v.total[PM_XMIT_DATA] == 777);
	assert_true(v.lid == 1 && v.is_switch);
	/* the link verdict the SM gave stays with the port */
	assert_true(pm_port_find(pm, CA, 1, &v));
	assert_int_equal(v.problems, PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED));
	/* not before the period is over; ClassPortInfo is not asked again */
	assert_int_equal(run_round(pm, 1500), 0);
	assert_int_equal(pm_next_deadline(pm), 2000);
	assert_int_equal(run_round(pm, 2000), 8);
	assert_int_equal(F.cpis, 2);
	pm_free(pm);
}

static void test_window(void **state)
{
	struct pm *pm = setup_pm(2);
	struct pm_query q[8];

	assert_int_equal(pm_next(pm, 1000, q, 8), 2);
	assert_int_equal(pm_next(pm, 1000, q, 8), 0);
	pm_free(pm);
	pm = setup_pm(3);
	run_round(pm, 1000);
	assert_int_equal(F.max_out, 3);
	pm_free(pm);
}

/* A node gets at most per_node queries at once: its other ports wait for
 * its answers while other nodes' queries go out; with one at a time a
 * round still ends. */
static void test_per_node(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_opts o;
	struct pm_query q[16], more[16];
	struct pma_reply r;
	size_t got, i;
	unsigned sw = 0;

	pm_opts_default(&o);
	o.period_ms = 1000;
	o.per_node = 2;
	pm_set_opts(pm, &o);
	/* each node's ClassPortInfo first */
	got = pm_next(pm, 1000, q, 16);
	assert_int_equal(got, 2);
	for (i = 0; i < got; i++)
		pm_done(pm, &q[i], fake_pma(&q[i], &r), 1000);
	/* two of the switch's six (3 ports x 2), and the CA port's two */
	got = pm_next(pm, 1000, q, 16);
	for (i = 0; i < got; i++)
		sw += q[i].guid == SW;
	assert_int_equal(sw, 2);
	assert_int_equal(got, 4);
	assert_int_equal(pm_next(pm, 1000, more, 16), 0);
	/* one of the switch's answered: one more of its own goes out */
	for (i = 0; q[i].guid != SW; i++)
		;
	pm_done(pm, &q[i], fake_pma(&q[i], &r), 1000);
	assert_int_equal(pm_next(pm, 1000, more, 16), 1);
	assert_true(more[0].guid == SW);
	pm_free(pm);
	/* one at a time: the whole round all the same */
	pm = setup_pm(256);
	pm_opts_default(&o);
	o.period_ms = 1000;
	o.per_node = 1;
	pm_set_opts(pm, &o);
	assert_int_equal(run_round(pm, 1000), 10);
	assert_int_equal(F.max_out, 2);
	pm_free(pm);
}

/* A round with nothing to ask (the one link watched is down) ends in
 * pm_next() itself: no answer will come to end it. */
static void test_empty_round(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_target t = { .guid = SW, .lid = 1, .port = 1, .is_switch = 1, .idle = 1 };
	struct pm_query q[8];
	struct pm_stats st;

	run_round(pm, 1000);    /* the switch's ClassPortInfo is known now */
	assert_int_equal(pm_set_targets(pm, &t, 1), 0);
	assert_int_equal(pm_next(pm, 2000, q, 8), 0);
	pm_get_stats(pm, &st);
	assert_int_equal(st.rounds, 2);
	assert_int_equal(pm_next_deadline(pm), 3000);
	pm_free(pm);
}

static void test_not_answering(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_port_view v;
	struct pm_stats st;

	F.xdata[0] = 5000;
	run_round(pm, 1000);
	F.silent = 1;                       /* the CA stops answering */
	F.xdata[0] = 9000;
	/* its two reads, and two re-asks: the budget is per port and round */
	assert_int_equal(run_round(pm, 2000), 6 + 4);
	assert_true(pm_port_find(pm, CA, 1, &v));
	assert_int_equal(v.missed, 1);
	assert_false(v.problems & PM_P_BIT(PM_P_NOT_ANSWERING));
	run_round(pm, 3000);
	assert_true(pm_port_find(pm, CA, 1, &v));
	assert_true(v.problems & PM_P_BIT(PM_P_NOT_ANSWERING));
	assert_true(F.changes & PM_P_BIT(PM_P_NOT_ANSWERING));
	/* reported, not zero: the total is what was read last */
	assert_true(v.total[PM_XMIT_DATA] == 5000);
	pm_get_stats(pm, &st);
	assert_int_equal(st.problems[PM_P_NOT_ANSWERING], 1);
	/* it answers again */
	F.silent = 0;
	run_round(pm, 4000);
	assert_true(pm_port_find(pm, CA, 1, &v));
	assert_false(v.problems & PM_P_BIT(PM_P_NOT_ANSWERING));
	assert_true(v.total[PM_XMIT_DATA] == 9000);
	pm_free(pm);
}

static void test_clear_all_ports(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_port_view v;

	F.symbol[1] = 100;
	F.symbol[3] = 7;
	run_round(pm, 1000);
	assert_int_equal(F.clears, 0);
	F.symbol[1] = 50000;                /* past 3/4 of 16 bits */
	F.symbol[3] = 9;
	run_round(pm, 2000);
	/* one Set with AllPortSelect for the switch, after all its reads */
	assert_int_equal(F.clears, 1);
	assert_int_equal(F.clears_all, 1);
	F.symbol[1] = 4;
	F.symbol[3] = 1;
	run_round(pm, 3000);
	assert_true(pm_port_find(pm, SW, 1, &v));
	assert_true(v.total[PM_SYMBOL_ERR] == 50004);
	assert_true(pm_port_find(pm, SW, 3, &v));
	assert_true(v.total[PM_SYMBOL_ERR] == 10);
	/* a clear behind our back: the total goes on from there */
	F.symbol[1] = 2;
	run_round(pm, 4000);
	assert_true(pm_port_find(pm, SW, 1, &v));
	assert_true(v.total[PM_SYMBOL_ERR] == 50006);
	pm_free(pm);
}

static void test_clear_one_port(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_port_view v;

	run_round(pm, 1000);
	F.symbol[0] = 60000;                /* the CA: no AllPortSelect */
	run_round(pm, 2000);
	assert_int_equal(F.clears, 1);
	assert_int_equal(F.clears_all, 0);
	F.symbol[0] = 1;
	run_round(pm, 3000);
	assert_true(pm_port_find(pm, CA, 1, &v));
	assert_true(v.total[PM_SYMBOL_ERR] == 60001);
	/* a switch port that did not answer holds the switch to per-port clears */
	F.symbol[1] = 60000;
	F.silent = 1u << 2;
	run_round(pm, 4000);
	assert_int_equal(F.clears_all, 0);
	assert_int_equal(F.clears, 2);
	pm_free(pm);
}

static void test_targets_change(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_query q[16];
	struct pma_reply r;
	struct pm_port_view v;
	size_t n;

	struct pm_opts o;

	/* every read of the round out at once */
	pm_opts_default(&o);
	o.period_ms = 1000;
	o.per_node = 8;
	pm_set_opts(pm, &o);
	F.xdata[0] = 42;
	run_round(pm, 1000);
	n = pm_next(pm, 2000, q, 16);
	assert_int_equal(n, 8);
	/* a sweep drops the CA while its reads are out */
	targets(pm, 0);
	assert_false(pm_port_find(pm, CA, 1, &v));
	for (size_t i = 0; i < n; i++)
		pm_done(pm, &q[i], fake_pma(&q[i], &r), 2000);
	assert_int_equal(pm_next(pm, 2000, q, 16), 0);
	/* it comes back: new state, ClassPortInfo read again */
	targets(pm, 1);
	assert_int_equal(run_round(pm, 3000), 1 + 8);
	assert_true(pm_port_find(pm, SW, 1, &v));
	/* a cursor walks every port once, in order */
	n = 0;
	for (uint64_t g = 0, p = 0; pm_port_next(pm, g, (uint8_t)p, &v); g = v.guid, p = v.port)
		n++;
	assert_int_equal(n, 4);
	pm_free(pm);
}

/* Rates: the data counters' growth between the readings of two rounds
 * over the time between them; none after one reading or a missed round. */
static void test_rates(void **state)
{
	struct pm *pm = setup_pm(256);
	struct pm_port_view v;

	F.xdata[2] = 1000;
	run_round(pm, 1000);
	assert_true(pm_port_find(pm, SW, 2, &v));
	assert_true(v.rate[0] < 0);
	F.xdata[2] = 1000 + 5000;
	run_round(pm, 3000);
	assert_true(pm_port_find(pm, SW, 2, &v));
	assert_int_equal(v.total[PM_XMIT_DATA], 6000);
	assert_true(v.rate[0] > 2499.9 && v.rate[0] < 2500.1);   /* 5000 words in 2 s */
	assert_true(v.rate[1] == 0);
	/* a round the port missed: the next rate is unknown */
	F.silent = 1u << 2;
	run_round(pm, 4000);
	F.silent = 0;
	F.xdata[2] += 100;
	run_round(pm, 5000);
	assert_true(pm_port_find(pm, SW, 2, &v));
	assert_true(v.rate[0] < 0);
	assert_int_equal(v.total[PM_XMIT_DATA], 6100);
	pm_free(pm);
}

/* As many ports as the 3456-host three-level fat tree of the benchmark
 * watches: 3456 CA ports and 5 x 3456 = 17280 linked switch ports (both
 * ends of the two layers of up-links, and the leaves' down-links), here on
 * 720 switches of 24. */
static void test_memory_per_port(void **state)
{
	const size_t ncas = 3456, nsw = 720, per_sw = 24;
	size_t n = ncas + nsw * per_sw, k = 0;
	struct pm_target *t = calloc(n, sizeof(*t));
	struct pm_opts o;
	struct pm *pm;
	struct mallinfo2 before, after;
	double per_port;

	for (size_t i = 0; i < ncas; i++)
		t[k++] = (struct pm_target){ .guid = 0x100000 + i, .lid = (uint16_t)(1 + i),
					     .port = 1 };
	for (size_t s = 0; s < nsw; s++)
		for (size_t p = 1; p <= per_sw; p++)
			t[k++] = (struct pm_target){ .guid = 0x900000 + s,
						     .lid = (uint16_t)(4000 + s),
						     .port = (uint8_t)p, .is_switch = 1 };
	pm_opts_default(&o);
	malloc_trim(0);
	before = mallinfo2();
	pm = pm_new(&o, NULL, NULL);
	assert_int_equal(pm_set_targets(pm, t, n), 0);
	after = mallinfo2();
	/* large blocks are mmapped: hblkhd counts them */
	per_port = (double)(after.uordblks + after.hblkhd - before.uordblks - before.hblkhd) /
		   (double)n;
	printf("pm memory: %zu ports, %.1f bytes per port on the heap, %zu in the table\n", n,
	       per_port, pm_table_bytes(pm) / n);
	/* the target */
	assert_true(per_port <= 256);
	assert_int_equal(pm_port_count(pm), n);
	pm_free(pm);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_per_node),
		cmocka_unit_test(test_empty_round),
		cmocka_unit_test(test_not_answering),
		cmocka_unit_test(test_clear_all_ports),
		cmocka_unit_test(test_clear_one_port),
		cmocka_unit_test(test_targets_change),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_memory_per_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
