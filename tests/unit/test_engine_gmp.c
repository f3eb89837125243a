/*
 * DOC: tests of the engine's GMP requests (PerfMgt queries) on the
 * in-memory transport: their rank below SMPs, their own window, TID
 * matching, timeouts and retries, and replies that are not theirs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mad/engine.h"
#include "mad/pma.h"
#include "mad/sa.h"
#include "mad/smp.h"
#include "tests/unit/fake_transport.h"

struct fx {
	struct fake_tp ft;
	struct mad_transport tp;
	struct mad_engine_opts o;
	struct mad_engine *e;
};

struct rec {
	int calls;
	int err;
	size_t len;
	uint8_t mad[MAD_SIZE];
};

static void gmp_done(void *arg, int err, const uint8_t *mad, size_t len)
{
	struct rec *r = arg;

	r->calls++;
	r->err = err;
	r->len = len;
	if (mad)
		memcpy(r->mad, mad, MAD_SIZE);
}

static void smp_done(void *arg, int err, const struct smp *resp)
{
	(void)resp;
	((struct rec *)arg)->calls++;
	((struct rec *)arg)->err = err;
}

static struct fx *fx_new(unsigned smp_window, unsigned gmp_window, unsigned gmp_retries)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fake_tp_init(&f->ft, &f->tp);
	mad_engine_opts_default(&f->o);
	f->o.window = smp_window;
	f->o.timeout_ms = 100;
	f->o.gmp_window = gmp_window;
	f->o.gmp_timeout_ms = 50;
	f->o.gmp_retries = gmp_retries;
	f->o.now_ms = fake_tp_now;
	f->o.now_arg = &f->ft;
	f->e = mad_engine_new(&f->tp, &f->o);
	return f;
}

static void fx_free(struct fx *f)
{
	mad_engine_free(f->e);
	fake_tp_fini(&f->ft);
	free(f);
}

static struct mad_gmp_req pc_req(uint16_t dlid, uint8_t port)
{
	struct mad_gmp_req r;
	struct pma_req p = { .method = MAD_METHOD_GET, .attr_id = PMA_ATTR_PORT_COUNTERS,
			     .port_select = port };

	memset(&r, 0, sizeof(r));
	r.dlid = dlid;
	r.mgmt_class = MAD_CLASS_PERF;
	r.class_version = PMA_CLASS_VERSION;
	r.method = MAD_METHOD_GET;
	r.attr_id = PMA_ATTR_PORT_COUNTERS;
	assert_int_equal(pma_req_data(&p, r.data + PMA_DATA_OFFSET - 24, PMA_DATA_SIZE), 0);
	return r;
}

static struct mad_req smp_req(uint16_t dlid)
{
	struct mad_req r;

	memset(&r, 0, sizeof(r));
	r.mgmt_class = MAD_CLASS_SMI;
	r.method = MAD_METHOD_GET;
	r.attr_id = SMP_ATTR_NODE_INFO;
	r.dlid = dlid;
	return r;
}

/* The PMA's answer to sent MAD i: the request with method GetResp. */
static void pma_answer(struct fx *f, size_t i, uint16_t status, uint8_t mark)
{
	uint8_t resp[MAD_SIZE];
	struct mad_addr from = { .dlid = f->ft.sent[i].addr.dlid, .qpn = 1 };

	memcpy(resp, f->ft.sent[i].buf, MAD_SIZE);
	resp[3] = MAD_METHOD_GET_RESP;
	resp[4] = (uint8_t)(status >> 8);
	resp[5] = (uint8_t)status;
	resp[PMA_DATA_OFFSET + 4] = mark;   /* SymbolErrorCounter's high byte */
	fake_tp_inject(&f->ft, resp, sizeof(resp), 0, &from);
	mad_engine_on_readable(f->e);
}

static size_t count_class(const struct fx *f, uint8_t mgmt_class)
{
	size_t n = 0;

	for (size_t i = 0; i < f->ft.nsent; i++)
		n += f->ft.sent[i].buf[1] == mgmt_class;
	return n;
}

/* A GMP waits while an SMP waits for the SMP window, and goes once none
 * does; SMPs submitted while GMPs are out go at once. */
static void test_gmp_below_smps(void **state)
{
	struct fx *f = fx_new(1, 4, 0);
	struct mad_req s1 = smp_req(5), s2 = smp_req(6), s3 = smp_req(7);
	struct mad_gmp_req g = pc_req(9, 1);
	struct rec rs[3] = { 0 }, rg = { 0 };

	(void)state;
	assert_int_equal(mad_engine_submit(f->e, &s1, smp_done, &rs[0]), 0);
	assert_int_equal(mad_engine_submit(f->e, &s2, smp_done, &rs[1]), 0);
	assert_int_equal(mad_engine_submit_gmp(f->e, &g, gmp_done, &rg), 0);
	assert_int_equal(f->ft.nsent, 1);                 /* s1; s2 waits, so does g */
	assert_int_equal(count_class(f, MAD_CLASS_PERF), 0);
	fake_tp_respond(&f->ft, 0, 0);
	mad_engine_on_readable(f->e);
	/* s2 took the window; nothing else waits for it, so g goes too */
	assert_int_equal(f->ft.nsent, 3);
	assert_int_equal(f->ft.sent[1].buf[1], MAD_CLASS_SMI);
	assert_int_equal(f->ft.sent[2].buf[1], MAD_CLASS_PERF);
	assert_int_equal(f->ft.sent[2].addr.qpn, 1);
	assert_int_equal(f->ft.sent[2].addr.qkey, MAD_QKEY_GSI);
	assert_int_equal(f->ft.sent[2].addr.dlid, 9);
	fake_tp_respond(&f->ft, 1, 0);
	mad_engine_on_readable(f->e);
	/* the GMP on the wire holds no SMP slot */
	assert_int_equal(mad_engine_submit(f->e, &s3, smp_done, &rs[2]), 0);
	assert_int_equal(f->ft.nsent, 4);
	assert_int_equal(f->ft.sent[3].buf[1], MAD_CLASS_SMI);
	assert_int_equal(rg.calls, 0);
	fx_free(f);
	assert_int_equal(rg.calls, 1);
	assert_int_equal(rg.err, MAD_ERR_CANCELED);
}

/* At most gmp_window GMPs out; answers matched by TID, in any order. */
static void test_gmp_window_and_tids(void **state)
{
	struct fx *f = fx_new(8, 2, 0);
	struct rec r[3] = { 0 };
	struct mad_stats st;

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct mad_gmp_req g = pc_req((uint16_t)(10 + i), 1);

		assert_int_equal(mad_engine_submit_gmp(f->e, &g, gmp_done, &r[i]), 0);
	}
	assert_int_equal(f->ft.nsent, 2);
	pma_answer(f, 1, 0, 0x22);
	assert_int_equal(r[1].calls, 1);
	assert_int_equal(r[1].err, MAD_OK);
	assert_int_equal(r[1].len, MAD_SIZE);
	assert_int_equal(r[1].mad[PMA_DATA_OFFSET + 4], 0x22);
	assert_int_equal(r[0].calls, 0);
	assert_int_equal(f->ft.nsent, 3);                 /* the third took the slot */
	assert_int_equal(f->ft.sent[2].addr.dlid, 12);
	pma_answer(f, 0, 0, 0x11);
	pma_answer(f, 2, 0x0004, 0x33);                   /* a MAD status */
	assert_int_equal(r[0].err, MAD_OK);
	assert_int_equal(r[0].mad[PMA_DATA_OFFSET + 4], 0x11);
	assert_int_equal(r[2].err, MAD_ERR_STATUS);
	assert_int_equal(r[2].mad[5], 0x04);
	/* a duplicate of an answer already taken is dropped */
	pma_answer(f, 0, 0, 0x11);
	assert_int_equal(r[0].calls, 1);
	mad_engine_get_stats(f->e, &st);
	assert_int_equal(st.gmp_completed, 2);
	assert_int_equal(st.gmp_failed, 1);
	assert_int_equal(st.gmp_dropped, 1);
	assert_int_equal(st.gmp_outstanding, 0);
	assert_true(mad_engine_idle(f->e));
	fx_free(f);
}

/* An attempt that times out is sent again (a later attempt's answer and
 * the first one's both count); after gmp_retries it fails, once. */
static void test_gmp_timeout_retry(void **state)
{
	struct fx *f = fx_new(8, 4, 1);
	struct mad_gmp_req g = pc_req(20, 3);
	struct rec r = { 0 }, r2 = { 0 };
	struct mad_stats st;

	(void)state;
	assert_int_equal(mad_engine_submit_gmp(f->e, &g, gmp_done, &r), 0);
	assert_int_equal(mad_engine_next_deadline(f->e), f->ft.now + 50);
	f->ft.now += 50;
	mad_engine_on_timer(f->e);
	assert_int_equal(f->ft.nsent, 2);
	assert_memory_not_equal(f->ft.sent[0].buf + 12, f->ft.sent[1].buf + 12, 4);
	pma_answer(f, 0, 0, 7);                           /* late answer to attempt 1 */
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	assert_int_equal(mad_engine_submit_gmp(f->e, &g, gmp_done, &r2), 0);
	f->ft.now += 50;
	mad_engine_on_timer(f->e);
	f->ft.now += 50;
	mad_engine_on_timer(f->e);
	assert_int_equal(r2.calls, 1);
	assert_int_equal(r2.err, MAD_ERR_TIMEOUT);
	f->ft.now += 500;
	mad_engine_on_timer(f->e);
	assert_int_equal(r2.calls, 1);
	mad_engine_get_stats(f->e, &st);
	assert_int_equal(st.gmp_timeouts, 3);
	assert_int_equal(st.gmp_retries, 2);
	assert_int_equal(st.gmp_sent, 4);
	fx_free(f);
}

/* Replies of another class, attribute or method, or cut short, do not
 * complete the query; the right one still does. A send the transport
 * returns failed counts as a failed attempt. */
static void test_gmp_wrong_replies(void **state)
{
	struct fx *f = fx_new(8, 4, 0);
	struct mad_gmp_req g = pc_req(30, 1), g2 = pc_req(31, 1);
	struct rec r = { 0 }, r2 = { 0 };
	struct mad_addr from = { .dlid = 30, .qpn = 1 };
	uint8_t bad[MAD_SIZE];
	struct mad_stats st;

	(void)state;
	assert_int_equal(mad_engine_submit_gmp(f->e, &g, gmp_done, &r), 0);
	memcpy(bad, f->ft.sent[0].buf, MAD_SIZE);
	bad[3] = MAD_METHOD_GET_RESP;
	bad[17] = (uint8_t)PMA_ATTR_PORT_COUNTERS_EXT;    /* another attribute */
	fake_tp_inject(&f->ft, bad, MAD_SIZE, 0, &from);
	bad[17] = (uint8_t)PMA_ATTR_PORT_COUNTERS;
	fake_tp_inject(&f->ft, bad, 100, 0, &from);       /* cut short */
	bad[3] = MAD_METHOD_GET;                          /* a request, not an answer */
	fake_tp_inject(&f->ft, bad, MAD_SIZE, 0, &from);
	bad[3] = MAD_METHOD_GET_RESP;
	bad[0] = 2;                                       /* another base version */
	fake_tp_inject(&f->ft, bad, MAD_SIZE, 0, &from);
	bad[0] = 1;
	bad[1] = MAD_CLASS_SMI;                           /* same TID, an SMP */
	fake_tp_inject(&f->ft, bad, MAD_SIZE, 0, &from);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 0);
	mad_engine_get_stats(f->e, &st);
	assert_int_equal(st.gmp_dropped, 4);
	pma_answer(f, 0, 0, 1);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	assert_int_equal(mad_engine_submit_gmp(f->e, &g2, gmp_done, &r2), 0);
	fake_tp_return_send(&f->ft, 1, 110);
	mad_engine_on_readable(f->e);
	assert_int_equal(r2.calls, 1);
	assert_int_equal(r2.err, MAD_ERR_TIMEOUT);
	fx_free(f);
}

/* Only GMP classes; a refused send fails the query at once. */
static void test_gmp_submit_errors(void **state)
{
	struct fx *f = fx_new(8, 4, 0);
	struct mad_gmp_req g = pc_req(40, 1);
	struct rec r = { 0 };

	(void)state;
	g.mgmt_class = MAD_CLASS_SA;
	assert_int_equal(mad_engine_submit_gmp(f->e, &g, gmp_done, &r), -EINVAL);
	g.mgmt_class = MAD_CLASS_PERF;
	assert_int_equal(mad_engine_submit_gmp(f->e, &g, NULL, &r), -EINVAL);
	f->ft.fail_sends = 1;
	f->ft.send_err = -EIO;
	assert_int_equal(mad_engine_submit_gmp(f->e, &g, gmp_done, &r), 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_ERR_SEND);
	fx_free(f);
}

/* A stopping engine retries no GMP and sends none of those queued. */
static void test_gmp_quiesce(void **state)
{
	struct fx *f = fx_new(64, 1, 3);
	struct rec a = { 0 }, b = { 0 };
	struct mad_gmp_req q1 = pc_req(5, 1), q2 = pc_req(6, 1);

	assert_int_equal(mad_engine_submit_gmp(f->e, &q1, gmp_done, &a), 0);
	assert_int_equal(mad_engine_submit_gmp(f->e, &q2, gmp_done, &b), 0);
	assert_int_equal(f->ft.nsent, 1);
	mad_engine_quiesce(f->e);
	assert_true(mad_engine_awaiting(f->e));
	f->ft.now += 51;
	mad_engine_on_timer(f->e);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.err, MAD_ERR_TIMEOUT);
	assert_int_equal(f->ft.nsent, 1);
	assert_false(mad_engine_awaiting(f->e));
	assert_int_equal(b.calls, 0);
	fx_free(f);
	assert_int_equal(b.calls, 1);
	assert_int_equal(b.err, MAD_ERR_CANCELED);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gmp_below_smps),
		cmocka_unit_test(test_gmp_window_and_tids),
		cmocka_unit_test(test_gmp_timeout_retry),
		cmocka_unit_test(test_gmp_wrong_replies),
		cmocka_unit_test(test_gmp_submit_errors),
		cmocka_unit_test(test_gmp_quiesce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
