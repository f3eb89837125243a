/*
 * DOC: tests of the SMP transaction engine on the in-memory transport.
 *
 * Every test drives the engine the way the daemon does (submit, then
 * on_readable / on_timer) with a fake clock, and checks what went on the
 * wire, which completions ran (and how often), and the counters.
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
#include "mad/smp.h"
#include "tests/unit/fake_transport.h"

struct fx {
	struct fake_tp ft;
	struct mad_transport tp;
	struct mad_engine_opts o;
	struct mad_engine *e;
};

/* What a completion saw. */
struct rec {
	int calls;
	int err;
	int has_resp;
	uint16_t status;
	uint8_t data0;
};

static void rec_done(void *arg, int err, const struct smp *resp)
{
	struct rec *r = arg;

	r->calls++;
	r->err = err;
	r->has_resp = resp != NULL;
	if (resp) {
		r->status = resp->hdr.status;
		r->data0 = resp->data[0];
	}
}

static struct fx *fx_new(unsigned window, unsigned per_dest)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fake_tp_init(&f->ft, &f->tp);
	mad_engine_opts_default(&f->o);
	f->o.window = window;
	f->o.per_dest = per_dest;
	f->o.timeout_ms = 100;
	f->o.retries = 3;
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

static struct mad_req lid_req(uint16_t dlid)
{
	struct mad_req r;

	memset(&r, 0, sizeof(r));
	r.mgmt_class = MAD_CLASS_SMI;
	r.method = MAD_METHOD_GET;
	r.attr_id = SMP_ATTR_NODE_INFO;
	r.dlid = dlid;
	return r;
}

static struct mad_req dr_req(uint8_t hops, uint8_t first)
{
	struct mad_req r;

	memset(&r, 0, sizeof(r));
	r.mgmt_class = MAD_CLASS_SMI_DR;
	r.method = MAD_METHOD_GET;
	r.attr_id = SMP_ATTR_PORT_INFO;
	r.attr_mod = 1;
	r.hop_cnt = hops;
	for (unsigned i = 1; i <= hops; i++)
		r.path[i] = (uint8_t)(first + i);
	return r;
}

static struct mad_stats stats(const struct fx *f)
{
	struct mad_stats st;

	mad_engine_get_stats(f->e, &st);
	return st;
}

static void advance(struct fx *f, uint64_t ms)
{
	f->ft.now += ms;
	mad_engine_on_timer(f->e);
}

static struct smp sent_smp(const struct fx *f, size_t i)
{
	struct smp s;

	assert_true(i < f->ft.nsent);
	assert_int_equal(smp_decode(f->ft.sent[i].buf, f->ft.sent[i].len, &s), 0);
	return s;
}

/* Answer sent MAD i after edit() changed the valid response. */
static void respond_edited(struct fx *f, size_t i, void (*edit)(struct smp *))
{
	uint8_t buf[MAD_SIZE];
	struct smp s;

	fake_tp_make_resp(f->ft.sent[i].buf, buf, 0);
	assert_int_equal(smp_decode(buf, sizeof(buf), &s), 0);
	edit(&s);
	assert_int_equal(smp_encode(&s, buf, sizeof(buf)), 0);
	fake_tp_inject(&f->ft, buf, sizeof(buf), 0, NULL);
	mad_engine_on_readable(f->e);
}

/* n LID-routed Gets to LIDs 1..n, their completions in r[0..n). */
static void submit_lids(struct fx *f, struct rec *r, int n)
{
	memset(r, 0, (size_t)n * sizeof(*r));
	for (int i = 0; i < n; i++) {
		struct mad_req q = lid_req((uint16_t)(i + 1));

		assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r[i]), 0);
	}
}

static void test_window_cap(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct rec r[200];
	size_t answered = 0;

	submit_lids(f, r, 200);
	assert_int_equal(f->ft.nsent, 64);
	assert_int_equal(stats(f).outstanding, 64);
	assert_int_equal(stats(f).queued, 136);
	while (answered < f->ft.nsent) {
		fake_tp_respond(&f->ft, answered++, 0);
		mad_engine_on_readable(f->e);
		assert_true(stats(f).outstanding <= 64);
	}
	assert_int_equal(f->ft.nsent, 200);
	for (int i = 0; i < 200; i++) {
		assert_int_equal(r[i].calls, 1);
		assert_int_equal(r[i].err, MAD_OK);
	}
	assert_int_equal(stats(f).max_outstanding, 64);
	assert_int_equal(stats(f).completed, 200);
	assert_true(mad_engine_idle(f->e));
	assert_true(mad_engine_next_deadline(f->e) == UINT64_MAX);
	fx_free(f);
}

static size_t count_to(const struct fx *f, uint16_t dlid)
{
	size_t n = 0;

	for (size_t i = 0; i < f->ft.nsent; i++)
		n += f->ft.sent[i].addr.dlid == dlid;
	return n;
}

/* A destination at its cap must not hold back requests queued behind it. */
static void test_per_dest_cap(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct rec r[30];

	memset(r, 0, sizeof(r));
	for (int i = 0; i < 20; i++) {
		struct mad_req q = lid_req(7);

		assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r[i]), 0);
	}
	for (int i = 20; i < 30; i++) {
		struct mad_req q = lid_req((uint16_t)(100 + i));

		assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r[i]), 0);
	}
	assert_int_equal(count_to(f, 7), 4);
	assert_int_equal(f->ft.nsent, 14);
	/* One answer to LID 7 lets exactly one more go to it. */
	fake_tp_respond(&f->ft, 0, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(count_to(f, 7), 5);
	assert_int_equal(r[0].calls, 1);
	fx_free(f);
}

/* A reload's new limits: a wider window sends at once, a shorter timeout
 * and fewer retries hold for what is sent from then on, and the in-flight
 * list stays in deadline order. */
static void test_set_limits_window_timeout(void **state)
{
	struct fx *f = fx_new(4, 2);
	struct mad_engine_opts o = f->o;
	struct rec r[10];

	submit_lids(f, r, 10);
	assert_int_equal(f->ft.nsent, 4);
	assert_true(mad_engine_next_deadline(f->e) == 1100);
	o.window = 8;
	o.timeout_ms = 50;
	o.retries = 0;
	mad_engine_set_limits(f->e, &o);
	assert_int_equal(f->ft.nsent, 8);
	assert_int_equal(stats(f).outstanding, 8);
	/* the four sent now expire first, without a retry */
	assert_true(mad_engine_next_deadline(f->e) == 1050);
	advance(f, 50);
	for (int i = 0; i < 10; i++)
		assert_int_equal(r[i].calls, i >= 4 && i < 8);
	assert_int_equal(r[4].err, MAD_ERR_TIMEOUT);
	assert_int_equal(stats(f).retries, 0);
	/* the two left in the queue went out when those ended */
	assert_int_equal(f->ft.nsent, 10);
	advance(f, 50);
	for (int i = 0; i < 4; i++)
		assert_int_equal(r[i].calls, 1);
	assert_int_equal(stats(f).retries, 0);
	fx_free(f);
}

/* A lower per-destination cap holds once the node's SMPs in flight drop
 * below it; a higher one lets its queue go at once. */
static void test_set_limits_per_dest(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_engine_opts o = f->o;
	struct rec r[6];

	memset(r, 0, sizeof(r));
	for (int i = 0; i < 6; i++) {
		struct mad_req q = lid_req(7);

		assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r[i]), 0);
	}
	assert_int_equal(count_to(f, 7), 4);
	o.per_dest = 2;
	mad_engine_set_limits(f->e, &o);
	assert_int_equal(count_to(f, 7), 4);
	fake_tp_respond(&f->ft, 0, 0);
	fake_tp_respond(&f->ft, 1, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(count_to(f, 7), 4); /* 2 in flight: at the new cap */
	fake_tp_respond(&f->ft, 2, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(count_to(f, 7), 5);
	o.per_dest = 4;
	mad_engine_set_limits(f->e, &o);
	assert_int_equal(count_to(f, 7), 6);
	fx_free(f);
}

/* 200k queued behind one slow destination: the rest still flow, fast. */
static void test_many_queued(void **state)
{
	enum { N = 200000 };
	struct fx *f = fx_new(64, 4);
	struct rec *r = calloc(N, sizeof(*r));
	size_t answered = 0;

	assert_non_null(r);
	for (int i = 0; i < N; i++) {
		struct mad_req q = lid_req(i < N / 2 ? 1 : (uint16_t)(2 + i % 5000));

		assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r[i]), 0);
	}
	/* LID 1 (the slow one) never answers until the end. */
	while (answered < f->ft.nsent) {
		if (f->ft.sent[answered].addr.dlid != 1)
			fake_tp_respond(&f->ft, answered, 0);
		answered++;
		mad_engine_on_readable(f->e);
	}
	assert_int_equal(count_to(f, 1), 4);
	assert_int_equal(stats(f).completed, N / 2);
	assert_int_equal(stats(f).queued, N / 2 - 4);
	fx_free(f);
	for (int i = 0; i < N; i++)
		assert_int_equal(r[i].calls, 1);
	free(r);
}

static void test_timeout_retries(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = dr_req(2, 0);
	struct rec r = { 0 };

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	assert_true(mad_engine_next_deadline(f->e) == 1100);
	advance(f, 99);
	assert_int_equal(f->ft.nsent, 1);
	for (int i = 1; i <= 3; i++) {
		advance(f, i == 1 ? 1 : 100);
		assert_int_equal(f->ft.nsent, (size_t)i + 1);
		assert_int_equal(stats(f).retries, (uint64_t)i);
		assert_int_equal(r.calls, 0);
	}
	advance(f, 100);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_ERR_TIMEOUT);
	assert_int_equal(r.has_resp, 0);
	assert_int_equal(f->ft.nsent, 4);
	assert_int_equal(stats(f).timeouts, 4);
	assert_int_equal(stats(f).failed, 1);
	/* Responses to any of the attempts, arriving late, are dropped. */
	for (size_t i = 0; i < 4; i++)
		fake_tp_respond(&f->ft, i, 0);
	mad_engine_on_readable(f->e);
	advance(f, 1000);
	assert_int_equal(r.calls, 1);
	assert_int_equal(stats(f).dropped, 4);
	assert_true(mad_engine_idle(f->e));
	fx_free(f);
}

static struct fx *fx_backoff(unsigned window, unsigned per_dest, unsigned retries_max)
{
	struct fx *f = fx_new(window, per_dest);

	f->o.retries = 1;
	f->o.retries_max = retries_max;
	f->o.backoff_ms = 10;
	f->o.backoff_max_ms = 40;
	mad_engine_free(f->e);
	f->e = mad_engine_new(&f->tp, &f->o);
	return f;
}

/* After the immediate retries, a request that keeps being lost pauses 10,
 * 20, 40, 40 ms between attempts, off the wire, and an answer to its last
 * attempt still completes it. */
static void test_backoff_retries(void **state)
{
	struct fx *f = fx_backoff(64, 4, 5);
	struct mad_req q = dr_req(3, 0);
	struct rec r = { 0 };
	static const unsigned pause[] = { 10, 20, 40, 40 };

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	fake_tp_return_send(&f->ft, 0, 110);
	mad_engine_on_readable(f->e);
	assert_int_equal(f->ft.nsent, 2);           /* immediate retry */
	for (unsigned k = 0; k < 4; k++) {
		fake_tp_return_send(&f->ft, f->ft.nsent - 1, 110);
		mad_engine_on_readable(f->e);
		assert_int_equal(stats(f).delayed, 1);
		assert_int_equal(stats(f).outstanding, 0);
		assert_false(mad_engine_idle(f->e));
		assert_true(mad_engine_next_deadline(f->e) == f->ft.now + pause[k]);
		advance(f, pause[k] - 1);
		assert_int_equal(f->ft.nsent, 2 + k);
		advance(f, 1);
		assert_int_equal(f->ft.nsent, 3 + k);
	}
	assert_int_equal(stats(f).backoffs, 4);
	fake_tp_respond(&f->ft, f->ft.nsent - 1, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	assert_true(mad_engine_idle(f->e));
	fx_free(f);
}

/* A pausing request gives its window slot to the next one: one lossy
 * destination does not stall the others. */
static void test_backoff_frees_window(void **state)
{
	struct fx *f = fx_backoff(1, 1, 3);
	struct mad_req a = dr_req(2, 0), b = dr_req(2, 10);
	struct rec ra = { 0 }, rb = { 0 };

	assert_int_equal(mad_engine_submit(f->e, &a, rec_done, &ra), 0);
	assert_int_equal(mad_engine_submit(f->e, &b, rec_done, &rb), 0);
	assert_int_equal(f->ft.nsent, 1);
	fake_tp_return_send(&f->ft, 0, 110);
	mad_engine_on_readable(f->e);
	fake_tp_return_send(&f->ft, 1, 110);      /* a's immediate retry lost */
	mad_engine_on_readable(f->e);
	assert_int_equal(f->ft.nsent, 3);         /* b took the slot */
	assert_int_equal(sent_smp(f, 2).initial_path[1], 11);
	fake_tp_respond(&f->ft, 2, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(rb.calls, 1);
	advance(f, 10);
	assert_int_equal(f->ft.nsent, 4);
	assert_int_equal(sent_smp(f, 3).initial_path[1], 1);
	fake_tp_respond(&f->ft, 3, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(ra.calls, 1);
	assert_int_equal(ra.err, MAD_OK);
	fx_free(f);
}

/* A destination that lost every attempt of two requests in a row is taken
 * as gone: its next request gets the immediate retry only. An answer makes
 * it alive again. */
static void test_backoff_gives_up_on_dead_dest(void **state)
{
	struct fx *f = fx_backoff(64, 1, 4);
	struct mad_req q = dr_req(2, 0);
	struct rec r[3] = { 0 };

	for (int i = 0; i < 3; i++)
		assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r[i]), 0);
	for (int i = 0; i < 2; i++) {
		size_t before = f->ft.nsent;

		for (int t = 0; t < 20 && !r[i].calls; t++)
			advance(f, 100);
		assert_int_equal(r[i].calls, 1);
		assert_int_equal(r[i].err, MAD_ERR_TIMEOUT);
		assert_int_equal(r[i + 1].calls, 0);
		/* 1 + 1 immediate + 3 paused, the next one's first attempt */
		assert_int_equal(f->ft.nsent, before + 5);
	}
	size_t before = f->ft.nsent;
	for (int t = 0; t < 20 && !r[2].calls; t++)
		advance(f, 100);
	assert_int_equal(r[2].calls, 1);
	assert_int_equal(f->ft.nsent, before + 1);        /* its retry, no pauses */
	fx_free(f);
}

/* An answer from a destination taken as gone makes it alive again. */
static void test_backoff_dest_alive_again(void **state)
{
	struct fx *f = fx_backoff(64, 1, 4);
	struct mad_req q = dr_req(2, 0);
	struct rec r[4] = { 0 };

	for (int i = 0; i < 4; i++)
		assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r[i]), 0);
	for (int t = 0; t < 40 && !r[1].calls; t++)
		advance(f, 100);
	assert_int_equal(r[1].err, MAD_ERR_TIMEOUT);
	assert_int_equal(r[2].calls, 0);
	fake_tp_respond(&f->ft, f->ft.nsent - 1, 0);     /* r[2]'s first attempt */
	mad_engine_on_readable(f->e);
	assert_int_equal(r[2].err, MAD_OK);
	size_t before = f->ft.nsent;                      /* r[3]'s first sent */
	for (int t = 0; t < 20 && !r[3].calls; t++)
		advance(f, 100);
	assert_int_equal(f->ft.nsent, before + 4);        /* pauses again */
	fx_free(f);
}

/* Freeing the engine cancels pausing requests too. */
static void test_backoff_cancel(void **state)
{
	struct fx *f = fx_backoff(64, 4, 5);
	struct mad_req q = dr_req(2, 0);
	struct rec r = { 0 };

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	for (int a = 0; a < 2; a++) {
		fake_tp_return_send(&f->ft, f->ft.nsent - 1, 110);
		mad_engine_on_readable(f->e);
	}
	assert_int_equal(stats(f).delayed, 1);
	fx_free(f);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_ERR_CANCELED);
}

/* ibsim hands a response it dropped on its way back to us back as that
 * GetResp with a failed status: the attempt failed, retry at once (not
 * after our own timer). */
static void test_returned_response(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = dr_req(2, 0);
	struct rec r = { 0 };
	uint8_t resp[MAD_SIZE];
	struct mad_addr from = { .dlid = LID_PERMISSIVE };

	(void)state;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	fake_tp_make_resp(f->ft.sent[0].buf, resp, 0);
	fake_tp_inject(&f->ft, resp, sizeof(resp), 110, &from);
	mad_engine_on_readable(f->e);
	assert_int_equal(f->ft.nsent, 2);
	assert_int_equal(stats(f).timeouts, 1);
	assert_int_equal(r.calls, 0);
	/* another attribute with our TID is not ours */
	fake_tp_make_resp(f->ft.sent[1].buf, resp, 0);
	resp[17] ^= 1;
	fake_tp_inject(&f->ft, resp, sizeof(resp), 110, &from);
	mad_engine_on_readable(f->e);
	assert_int_equal(f->ft.nsent, 2);
	assert_int_equal(stats(f).dropped, 1);
	fx_free(f);
}

/* A late answer to a failed request must not complete the next request
 * that took over its slot, even an identical one. */
static void test_late_response_after_slot_reuse(void **state)
{
	struct fx *f = fx_new(1, 1);
	struct mad_req q = dr_req(2, 0);
	struct rec a = { 0 }, b = { 0 };

	f->o.retries = 0;
	mad_engine_free(f->e);
	f->e = mad_engine_new(&f->tp, &f->o);
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &a), 0);
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &b), 0);
	advance(f, 100);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.err, MAD_ERR_TIMEOUT);
	assert_int_equal(f->ft.nsent, 2);
	fake_tp_respond(&f->ft, 0, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(b.calls, 0);
	assert_int_equal(a.calls, 1);
	assert_int_equal(stats(f).dropped, 1);
	fake_tp_respond(&f->ft, 1, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(b.calls, 1);
	assert_int_equal(b.err, MAD_OK);
	fx_free(f);
}

/* A response to the first attempt still completes a retried request. */
static void test_response_to_earlier_attempt(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = lid_req(9);
	struct rec r = { 0 };

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	advance(f, 100);
	assert_int_equal(f->ft.nsent, 2);
	/* Attempts carry distinct TIDs. */
	assert_true(sent_smp(f, 0).hdr.tid != sent_smp(f, 1).hdr.tid);
	fake_tp_respond(&f->ft, 0, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	fx_free(f);
}

static void test_returned_send(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = lid_req(9);
	struct rec r = { 0 };

	f->o.retries = 1;
	mad_engine_free(f->e);
	f->e = mad_engine_new(&f->tp, &f->o);
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	fake_tp_return_send(&f->ft, 0, 110);
	mad_engine_on_readable(f->e);
	assert_int_equal(f->ft.nsent, 2);
	assert_int_equal(stats(f).retries, 1);
	assert_int_equal(stats(f).timeouts, 1);
	/* The first attempt coming back again is stale: no double count. */
	fake_tp_return_send(&f->ft, 0, 110);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 0);
	assert_int_equal(stats(f).dropped, 1);
	fake_tp_return_send(&f->ft, 1, 110);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_ERR_TIMEOUT);
	assert_int_equal(f->ft.nsent, 2);
	advance(f, 1000);
	assert_int_equal(r.calls, 1);
	fx_free(f);
}

static void test_duplicate_and_stray(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = dr_req(3, 0);
	struct rec r = { 0 };
	uint8_t buf[MAD_SIZE];

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	fake_tp_respond(&f->ft, 0, 0);
	fake_tp_respond(&f->ft, 0, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	assert_int_equal(stats(f).dropped, 1);
	/* Stray TID, for a slot that was never used. */
	fake_tp_make_resp(f->ft.sent[0].buf, buf, 0);
	buf[14] ^= 0x7f;
	buf[15] ^= 0x33;
	fake_tp_inject(&f->ft, buf, sizeof(buf), 0, NULL);
	/* Truncated and wrong base version. */
	fake_tp_inject(&f->ft, buf, 23, 0, NULL);
	fake_tp_inject(&f->ft, buf, 100, 0, NULL);
	buf[0] = 2;
	fake_tp_inject(&f->ft, buf, sizeof(buf), 0, NULL);
	mad_engine_on_readable(f->e);
	assert_int_equal(stats(f).dropped, 5);
	assert_int_equal(r.calls, 1);
	fx_free(f);
}

/* The kernel owns the high 32 bits of the TID. */
static void test_tid_high_bits_ignored(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = lid_req(3);
	struct rec r = { 0 };
	uint8_t buf[MAD_SIZE];

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	fake_tp_make_resp(f->ft.sent[0].buf, buf, 0);
	buf[8] = 0x00;
	buf[9] = 0x01;
	buf[11] = 0x07;
	fake_tp_inject(&f->ft, buf, sizeof(buf), 0, NULL);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	fx_free(f);
}

static void bad_attr(struct smp *s) { s->hdr.attr_id = SMP_ATTR_NODE_INFO; }
static void bad_method(struct smp *s) { s->hdr.method = MAD_METHOD_TRAP_REPRESS; }
static void bad_dbit(struct smp *s) { s->hdr.d_bit = 0; }
static void bad_path(struct smp *s) { s->initial_path[2] ^= 1; }
static void bad_hopcnt(struct smp *s) { s->hdr.hop_cnt = 2; }
static void bad_hopptr(struct smp *s) { s->hdr.hop_ptr = 2; }
static void bad_class(struct smp *s) { s->hdr.mgmt_class = MAD_CLASS_SMI; }
static void hopptr_cnt1(struct smp *s) { s->hdr.hop_ptr = (uint8_t)(s->hdr.hop_cnt + 1); }

static void test_invalid_responses_dropped(void **state)
{
	void (*const edits[])(struct smp *) = {
		bad_attr, bad_method, bad_dbit, bad_path, bad_hopcnt, bad_hopptr, bad_class,
	};
	const size_t n = sizeof(edits) / sizeof(edits[0]);
	struct fx *f = fx_new(64, 4);
	struct mad_req q = dr_req(3, 10);
	struct rec r = { 0 };

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	for (size_t i = 0; i < n; i++) {
		respond_edited(f, 0, edits[i]);
		assert_int_equal(r.calls, 0);
		assert_int_equal(stats(f).dropped, i + 1);
	}
	/* Hop pointer hop_cnt + 1 is the other accepted value. */
	respond_edited(f, 0, hopptr_cnt1);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	fx_free(f);
}

static void test_dr_request_on_wire(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = dr_req(3, 10);
	struct rec r = { 0 };
	struct smp s;

	q.method = MAD_METHOD_SET;
	q.data[0] = 0x5a;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	s = sent_smp(f, 0);
	assert_int_equal(f->ft.sent[0].len, MAD_SIZE);
	assert_int_equal(f->ft.sent[0].addr.dlid, LID_PERMISSIVE);
	assert_int_equal(s.hdr.mgmt_class, MAD_CLASS_SMI_DR);
	assert_int_equal(s.hdr.method, MAD_METHOD_SET);
	assert_int_equal(s.hdr.d_bit, 0);
	assert_int_equal(s.hdr.hop_ptr, 0);
	assert_int_equal(s.hdr.hop_cnt, 3);
	assert_int_equal(s.dr_slid, LID_PERMISSIVE);
	assert_int_equal(s.dr_dlid, LID_PERMISSIVE);
	assert_int_equal(s.initial_path[1], 11);
	assert_int_equal(s.initial_path[3], 13);
	assert_int_equal(s.data[0], 0x5a);
	assert_int_equal(s.hdr.attr_mod, 1);
	q.hop_cnt = 64;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), -EINVAL);
	fx_free(f);
}

static void test_status(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = lid_req(4);
	struct rec r = { 0 }, r2 = { 0 };

	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	fake_tp_respond(&f->ft, 0, 0x001c);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_ERR_STATUS);
	assert_int_equal(r.has_resp, 1);
	assert_int_equal(r.status, 0x001c);
	assert_int_equal(f->ft.nsent, 1);
	/* Busy: retried at once, then answered. */
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r2), 0);
	fake_tp_respond(&f->ft, 1, 0x0001);
	mad_engine_on_readable(f->e);
	assert_int_equal(r2.calls, 0);
	assert_int_equal(f->ft.nsent, 3);
	fake_tp_respond(&f->ft, 2, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(r2.calls, 1);
	assert_int_equal(r2.err, MAD_OK);
	fx_free(f);
}

/* The owner's set_gate: asked for every SMP Set attempt (first and retry)
 * and raw Set; Gets and answers never. */
struct gate {
	bool open;
	unsigned asked;
	uint16_t attr;
};

static bool gate_fn(void *arg, uint8_t mgmt_class, uint16_t attr_id)
{
	struct gate *g = arg;

	(void)mgmt_class;
	g->asked++;
	g->attr = attr_id;
	return g->open;
}

static void test_set_gate(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct gate g = { .open = false };
	struct mad_req q;
	struct rec r = { 0 }, r2 = { 0 }, r3 = { 0 };
	uint8_t raw[MAD_SIZE];
	struct smp s;

	fake_tp_init(&f->ft, &f->tp);
	mad_engine_opts_default(&f->o);
	f->o.timeout_ms = 100;
	f->o.retries = 3;
	f->o.now_ms = fake_tp_now;
	f->o.now_arg = &f->ft;
	f->o.set_gate = gate_fn;
	f->o.set_gate_arg = &g;
	f->e = mad_engine_new(&f->tp, &f->o);
	/* a Set while the gate is closed never reaches the wire */
	q = dr_req(2, 1);
	q.method = MAD_METHOD_SET;
	q.attr_id = SMP_ATTR_LFT;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_ERR_REFUSED);
	assert_int_equal(f->ft.nsent, 0);
	assert_int_equal(g.attr, SMP_ATTR_LFT);
	assert_int_equal(stats(f).sets_refused, 1);
	/* a Get goes, without asking */
	q.method = MAD_METHOD_GET;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r2), 0);
	assert_int_equal(f->ft.nsent, 1);
	assert_int_equal(g.asked, 1);
	/* a Set sent while open is not retried once the gate closed */
	g.open = true;
	q.method = MAD_METHOD_SET;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r3), 0);
	assert_int_equal(f->ft.nsent, 2);
	g.open = false;
	advance(f, 150);
	assert_int_equal(r3.calls, 1);
	assert_int_equal(r3.err, MAD_ERR_REFUSED);
	assert_int_equal(f->ft.nsent, 2 + 1);   /* only the Get's retry went */
	/* raw sends: a Set is refused, a GetResp goes */
	memset(&s, 0, sizeof(s));
	s.hdr.base_version = 1;
	s.hdr.mgmt_class = MAD_CLASS_SMI;
	s.hdr.class_version = 1;
	s.hdr.method = MAD_METHOD_SET;
	s.hdr.attr_id = SMP_ATTR_PORT_INFO;
	assert_int_equal(smp_encode(&s, raw, sizeof(raw)), 0);
	assert_int_equal(mad_engine_send_raw(f->e, raw, sizeof(raw), &(struct mad_addr){ .dlid = 3 }),
			 -EPERM);
	s.hdr.method = MAD_METHOD_GET_RESP;
	assert_int_equal(smp_encode(&s, raw, sizeof(raw)), 0);
	assert_int_equal(mad_engine_send_raw(f->e, raw, sizeof(raw), &(struct mad_addr){ .dlid = 3 }),
			 0);
	assert_int_equal(stats(f).sets_refused, 3);
	fx_free(f);
}

struct unsol {
	int calls;
	uint8_t method;
	uint16_t attr;
	uint16_t from_lid;
};

static void unsol_hook(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct unsol *u = arg;
	struct smp s;

	u->calls++;
	assert_int_equal(smp_decode(mad, len, &s), 0);
	u->method = s.hdr.method;
	u->attr = s.hdr.attr_id;
	u->from_lid = from->dlid;
}

static void test_unsolicited(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct unsol u = { 0 };
	struct mad_addr from = { .dlid = 42 };
	struct smp s;
	uint8_t buf[MAD_SIZE];

	f->o.unsolicited = unsol_hook;
	f->o.unsolicited_arg = &u;
	mad_engine_free(f->e);
	f->e = mad_engine_new(&f->tp, &f->o);
	memset(&s, 0, sizeof(s));
	s.hdr.base_version = 1;
	s.hdr.mgmt_class = MAD_CLASS_SMI;
	s.hdr.class_version = 1;
	s.hdr.method = MAD_METHOD_GET;
	s.hdr.attr_id = SMP_ATTR_SM_INFO;
	s.hdr.tid = 0x1234;
	smp_encode(&s, buf, sizeof(buf));
	fake_tp_inject(&f->ft, buf, sizeof(buf), 0, &from);
	s.hdr.method = MAD_METHOD_TRAP;
	s.hdr.attr_id = SMP_ATTR_NOTICE;
	smp_encode(&s, buf, sizeof(buf));
	fake_tp_inject(&f->ft, buf, sizeof(buf), 0, &from);
	mad_engine_on_readable(f->e);
	assert_int_equal(u.calls, 2);
	assert_int_equal(u.method, MAD_METHOD_TRAP);
	assert_int_equal(u.attr, SMP_ATTR_NOTICE);
	assert_int_equal(u.from_lid, 42);
	assert_int_equal(stats(f).unsolicited, 2);
	assert_int_equal(stats(f).dropped, 0);
	/* send_raw: on the wire, not tracked. */
	s.hdr.method = MAD_METHOD_TRAP_REPRESS;
	smp_encode(&s, buf, sizeof(buf));
	assert_int_equal(mad_engine_send_raw(f->e, buf, sizeof(buf), &from), 0);
	assert_int_equal(f->ft.nsent, 1);
	assert_int_equal(f->ft.sent[0].addr.dlid, 42);
	assert_true(mad_engine_idle(f->e));
	assert_int_equal(mad_engine_send_raw(f->e, buf, MAD_SIZE + 1, &from), -EINVAL);
	fx_free(f);
}

/* Discovery-style: each completion submits the next hop. */
struct chain {
	struct mad_engine *e;
	int depth;
	int calls;
	int errs;
};

static void chain_done(void *arg, int err, const struct smp *resp)
{
	struct chain *c = arg;
	struct mad_req q;

	c->calls++;
	if (err)
		c->errs++;
	if (err != MAD_ERR_CANCELED && c->depth < 10) {
		c->depth++;
		q = dr_req((uint8_t)c->depth, 0);
		assert_int_equal(mad_engine_submit(c->e, &q, chain_done, c), 0);
	}
}

static void test_reentrant_submit(void **state)
{
	struct fx *f = fx_new(1, 1);
	struct chain c = { .e = f->e };
	struct mad_req q = dr_req(0, 0);
	size_t answered = 0;

	assert_int_equal(mad_engine_submit(f->e, &q, chain_done, &c), 0);
	while (answered < f->ft.nsent) {
		fake_tp_respond(&f->ft, answered++, 0);
		mad_engine_on_readable(f->e);
	}
	assert_int_equal(c.calls, 11);
	assert_int_equal(c.errs, 0);
	assert_int_equal(f->ft.nsent, 11);
	assert_true(mad_engine_idle(f->e));
	/* Submitting from a completion run inside the pump (refused send). */
	c.depth = 0;
	c.calls = 0;
	f->ft.fail_sends = 3;
	f->ft.send_err = -EIO;
	assert_int_equal(mad_engine_submit(f->e, &q, chain_done, &c), 0);
	assert_int_equal(c.calls, 3);
	assert_int_equal(c.errs, 3);
	assert_int_equal(f->ft.nsent, 12);
	assert_int_equal(stats(f).outstanding, 1);
	fx_free(f);
	assert_int_equal(c.calls, 4);   /* the one on the wire, canceled */
}

struct cancel_ctx {
	struct mad_engine *e;
	int calls;
	int canceled;
	int resubmit_rc;
};

static void cancel_done(void *arg, int err, const struct smp *resp)
{
	struct cancel_ctx *c = arg;
	struct mad_req q = lid_req(1);

	c->calls++;
	c->canceled += err == MAD_ERR_CANCELED;
	c->resubmit_rc = mad_engine_submit(c->e, &q, cancel_done, c);
}

static void test_free_cancels_once(void **state)
{
	struct fx *f = fx_new(4, 4);
	struct cancel_ctx c = { .e = f->e };

	for (int i = 0; i < 10; i++) {
		struct mad_req q = i & 1 ? lid_req((uint16_t)(i + 1)) : dr_req(2, (uint8_t)i);

		assert_int_equal(mad_engine_submit(f->e, &q, cancel_done, &c), 0);
	}
	assert_int_equal(stats(f).outstanding, 4);
	assert_int_equal(stats(f).queued, 6);
	mad_engine_free(f->e);
	f->e = NULL;
	assert_int_equal(c.calls, 10);
	assert_int_equal(c.canceled, 10);
	assert_int_equal(c.resubmit_rc, -ESHUTDOWN);
	fake_tp_fini(&f->ft);
	free(f);
}

/* A stopping engine sends nothing new, no retry either, and still takes
 * the answers to what is on the wire; the queued wait for the free. */
static void test_quiesce(void **state)
{
	struct fx *f = fx_new(2, 4);
	struct rec r[4];

	submit_lids(f, r, 4);
	assert_int_equal(f->ft.nsent, 2);
	mad_engine_quiesce(f->e);
	assert_true(mad_engine_awaiting(f->e));
	fake_tp_respond(&f->ft, 0, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(r[0].calls, 1);
	assert_int_equal(r[0].err, MAD_OK);
	assert_int_equal(f->ft.nsent, 2);          /* the window has room: still nothing */
	assert_true(mad_engine_awaiting(f->e));
	advance(f, 101);                           /* the second times out: no retry */
	assert_int_equal(r[1].calls, 1);
	assert_int_equal(r[1].err, MAD_ERR_TIMEOUT);
	assert_int_equal(f->ft.nsent, 2);
	assert_false(mad_engine_awaiting(f->e));
	assert_int_equal(stats(f).queued, 2);
	mad_engine_free(f->e);
	f->e = NULL;
	for (int i = 2; i < 4; i++) {
		assert_int_equal(r[i].calls, 1);
		assert_int_equal(r[i].err, MAD_ERR_CANCELED);
	}
	fake_tp_fini(&f->ft);
	free(f);
}

static void test_send_refused_and_queue_full(void **state)
{
	struct fx *f = fx_new(64, 4);
	struct mad_req q = lid_req(1);
	struct rec r = { 0 }, r2 = { 0 };

	f->ft.fail_sends = 1;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_ERR_SEND);
	/* A refused retry fails the request the same way. */
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r2), 0);
	f->ft.fail_sends = 1;
	advance(f, 100);
	assert_int_equal(r2.calls, 1);
	assert_int_equal(r2.err, MAD_ERR_SEND);
	fx_free(f);

	f = fx_new(1, 1);
	f->o.queue_max = 2;
	mad_engine_free(f->e);
	f->e = mad_engine_new(&f->tp, &f->o);
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);  /* on the wire */
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), -ENOBUFS);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_cap),
		cmocka_unit_test(test_per_dest_cap),
		cmocka_unit_test(test_set_limits_window_timeout),
		cmocka_unit_test(test_set_limits_per_dest),
		cmocka_unit_test(test_many_queued),
		cmocka_unit_test(test_timeout_retries),
		cmocka_unit_test(test_backoff_retries),
		cmocka_unit_test(test_returned_response),
		cmocka_unit_test(test_backoff_frees_window),
		cmocka_unit_test(test_backoff_gives_up_on_dead_dest),
		cmocka_unit_test(test_backoff_dest_alive_again),
		cmocka_unit_test(test_backoff_cancel),
		cmocka_unit_test(test_late_response_after_slot_reuse),
		cmocka_unit_test(test_response_to_earlier_attempt),
		cmocka_unit_test(test_returned_send),
		cmocka_unit_test(test_duplicate_and_stray),
		cmocka_unit_test(test_tid_high_bits_ignored),
		cmocka_unit_test(test_invalid_responses_dropped),
		cmocka_unit_test(test_dr_request_on_wire),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_set_gate),
		cmocka_unit_test(test_unsolicited),
		cmocka_unit_test(test_reentrant_submit),
		cmocka_unit_test(test_free_cancels_once),
		cmocka_unit_test(test_send_refused_and_queue_full),
		cmocka_unit_test(test_quiesce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
