/*
 * DOC: tests of the RMPP sender (mad/rmpp.c), on its own with a fake clock.
 *
 * The message of most tests is an SA GetTableResp of 22 NodeRecords (112
 * bytes padded): 56 + 2464 bytes, 13 DATA segments. The sender's MADs are
 * checked byte by byte against the kernel's rule (mad_rmpp.c
 * send_next_seg: PayloadLength 13 * 220 - pad in the first, 220 - pad in the last, 0 in
 * between), and the receiver is either hand-written ACKs or the fake
 * transport's RMPP receiver (tests/unit/fake_transport.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mad/rmpp.h"
#include "mad/sa.h"
#include "tests/unit/fake_transport.h"

#define NREC 22
#define RECSZ 112
#define DATA_LEN (NREC * RECSZ)         /* 2464 */
#define MSG_LEN (SA_HDR_SIZE + DATA_LEN)
#define NSEG 13
#define PAD (NSEG * 200 - DATA_LEN)     /* 136 */

struct fx {
	uint8_t msg[MSG_LEN];
	struct rmpp_sender s;
	uint64_t now;
	uint8_t out[64][MAD_SIZE];      /* what next() handed out, in order */
	unsigned nout;
};

static void make_msg(uint8_t *msg, size_t len)
{
	struct sa_hdr h;

	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = 2;
	h.hdr.method = SA_METHOD_GET_TABLE_RESP;
	h.hdr.tid = 0x0000001200000034ull;
	h.hdr.attr_id = SA_ATTR_NODE_REC;
	h.rmpp.flags = RMPP_FLAG_ACTIVE;
	h.attr_offset = RECSZ / 8;
	h.comp_mask = 0;
	sa_hdr_encode(&h, msg, len);
	for (size_t i = SA_HDR_SIZE; i < len; i++)
		msg[i] = (uint8_t)(i * 7 + 3);
}

static struct fx *fx_new(unsigned retries)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct rmpp_opts o = { .hdr_len = SA_HDR_SIZE, .timeout_ms = 100, .retries = retries };

	assert_non_null(f);
	make_msg(f->msg, MSG_LEN);
	f->now = 5000;
	assert_int_equal(rmpp_sender_start(&f->s, f->msg, MSG_LEN, &o), 0);
	return f;
}

/* Everything next() has due now; returns how many. */
static unsigned drain(struct fx *f)
{
	unsigned n = 0;

	while (rmpp_sender_next(&f->s, f->now, f->out[f->nout % 64], MAD_SIZE) == 1) {
		f->nout++;
		n++;
	}
	return n;
}

static const uint8_t *last_out(const struct fx *f, unsigned back)
{
	return f->out[(f->nout - 1 - back) % 64];
}

static struct rmpp_hdr hdr_of(const uint8_t *mad)
{
	struct rmpp_hdr h;

	assert_int_equal(rmpp_hdr_decode(mad, MAD_SIZE, &h), 0);
	return h;
}

/* A control MAD from the receiver for our transfer. */
static void feed(struct fx *f, uint8_t type, uint8_t status, uint32_t d1, uint32_t d2)
{
	uint8_t m[MAD_SIZE];

	fake_rmpp_make(f->out[0], m, type, status, d1, d2);
	assert_int_equal(rmpp_sender_on_mad(&f->s, m, sizeof(m), f->now), 0);
}

static void ack(struct fx *f, uint32_t seg, uint32_t newwin)
{
	feed(f, RMPP_TYPE_ACK, 0, seg, newwin);
}

static void expect_abort(struct fx *f, uint8_t status)
{
	struct rmpp_hdr h;

	assert_int_equal(f->s.state, RMPP_ABORTED);
	assert_int_equal(f->s.status, status);
	assert_int_equal(drain(f), 1);
	h = hdr_of(last_out(f, 0));
	assert_int_equal(h.type, RMPP_TYPE_ABORT);
	assert_int_equal(h.status, status);
	assert_int_equal(h.flags, RMPP_FLAG_ACTIVE);
	assert_int_equal(h.version, 1);
	assert_memory_equal(last_out(f, 0), f->msg, 24);   /* the transfer's header */
	assert_int_equal(drain(f), 0);
	assert_true(rmpp_sender_finished(&f->s));
	assert_true(rmpp_sender_deadline(&f->s) == UINT64_MAX);
}

static void test_segments_13(void **state)
{
	struct fx *f = fx_new(3);
	uint32_t win = 1;

	assert_int_equal(f->s.nseg, NSEG);
	assert_int_equal(f->s.pad, PAD);
	assert_int_equal(drain(f), 1);
	/* ACK every segment as it comes, one window at a time */
	while (f->nout < NSEG) {
		ack(f, f->nout, ++win);
		assert_int_equal(drain(f), 1);
	}
	for (unsigned i = 0; i < NSEG; i++) {
		const uint8_t *m = f->out[i];
		struct rmpp_hdr h = hdr_of(m);
		uint32_t want_len = i == 0 ? NSEG * 220 - PAD : i == NSEG - 1 ? 220 - PAD : 0;
		size_t off = SA_HDR_SIZE + (size_t)i * 200;
		size_t n = i == NSEG - 1 ? 200 - PAD : 200;

		assert_int_equal(h.version, 1);
		assert_int_equal(h.type, RMPP_TYPE_DATA);
		assert_int_equal(h.seg_num, i + 1);
		assert_int_equal(h.paylen_newwin, want_len);
		assert_int_equal(h.flags, RMPP_FLAG_ACTIVE | (i == 0 ? RMPP_FLAG_FIRST : 0) |
					  (i == NSEG - 1 ? RMPP_FLAG_LAST : 0));
		assert_int_equal(h.status, 0);
		assert_memory_equal(m, f->msg, 24);
		assert_memory_equal(m + 36, f->msg + 36, 20);
		assert_memory_equal(m + 56, f->msg + off, n);
		for (size_t k = 56 + n; k < MAD_SIZE; k++)
			assert_int_equal(m[k], 0);
	}
	/* the kernel's numbers for this table: 13 * 220 - pad, 220 - pad */
	assert_int_equal(hdr_of(f->out[0]).paylen_newwin, 2724);
	assert_int_equal(hdr_of(f->out[12]).paylen_newwin, 84);
	assert_int_equal(f->s.state, RMPP_SENDING);
	ack(f, NSEG, NSEG);
	assert_int_equal(f->s.state, RMPP_DONE);
	assert_true(rmpp_sender_finished(&f->s));
	assert_true(rmpp_sender_deadline(&f->s) == UINT64_MAX);
	assert_int_equal(drain(f), 0);
	free(f);
}

static void test_window_growth(void **state)
{
	struct fx *f = fx_new(3);

	assert_int_equal(drain(f), 1);                  /* window 1 */
	assert_int_equal(drain(f), 0);
	assert_true(rmpp_sender_deadline(&f->s) == 5100);
	f->now += 10;
	ack(f, 1, 5);                                   /* 2..5 */
	assert_int_equal(drain(f), 4);
	assert_int_equal(hdr_of(last_out(f, 0)).seg_num, 5);
	assert_true(rmpp_sender_deadline(&f->s) == 5110);
	ack(f, 3, 5);                                   /* part of a window */
	assert_int_equal(drain(f), 0);
	ack(f, 5, 64);                                  /* past the end: up to 13 */
	assert_int_equal(drain(f), 8);
	assert_int_equal(hdr_of(last_out(f, 0)).seg_num, 13);
	assert_int_equal(f->s.acks, 3);
	ack(f, 13, 64);
	assert_int_equal(f->s.state, RMPP_DONE);
	free(f);
}

/* Segment 8 is lost: no ACK comes, the timeout resends from 6 (the last
 * acknowledged + 1), and the receiver completes. */
static void test_lost_segment_resend(void **state)
{
	struct fx *f = fx_new(3);
	struct fake_rmpp_rx rx;
	uint8_t a[MAD_SIZE];
	unsigned taken = 0;

	fake_rmpp_rx_init(&rx, 4);
	rx.drop_seg = 8;
	for (int round = 0; round < 20 && f->s.state == RMPP_SENDING; round++) {
		int acked = 0;

		drain(f);
		for (; taken < f->nout; taken++)
			if (fake_rmpp_rx_take(&rx, f->out[taken % 64], MAD_SIZE, a)) {
				assert_int_equal(rmpp_sender_on_mad(&f->s, a, sizeof(a), f->now), 0);
				acked = 1;
			}
		if (!acked && f->s.state == RMPP_SENDING) {
			f->now = rmpp_sender_deadline(&f->s);
			rmpp_sender_on_timer(&f->s, f->now);
		}
	}
	assert_int_equal(f->s.state, RMPP_DONE);
	assert_int_equal(f->s.resends, 1);
	assert_int_equal(rx.dropped, 1);
	assert_true(rx.done);
	assert_int_equal(rx.len, DATA_LEN);
	assert_memory_equal(rx.data, f->msg + SA_HDR_SIZE, DATA_LEN);
	assert_int_equal(rx.paylen_first, 2724);
	assert_int_equal(rx.paylen_last, 84);
	/* 1, 2-5, 6-9 (8 lost), then from 6 again: 6-9, 10-13 */
	assert_int_equal(f->s.segs_sent, 1 + 4 + 4 + 4 + 4);
	assert_int_equal(hdr_of(f->out[9]).seg_num, 6);
	fake_rmpp_rx_fini(&rx);
	free(f);
}

static void test_retries_exhausted(void **state)
{
	struct fx *f = fx_new(2);

	drain(f);
	ack(f, 1, 3);
	assert_int_equal(drain(f), 2);
	for (int i = 0; i < 2; i++) {
		f->now = rmpp_sender_deadline(&f->s) - 1;
		rmpp_sender_on_timer(&f->s, f->now);       /* not yet */
		assert_int_equal(drain(f), 0);
		f->now++;
		rmpp_sender_on_timer(&f->s, f->now);
		assert_int_equal(drain(f), 2);             /* 2 and 3 again */
		assert_int_equal(hdr_of(last_out(f, 1)).seg_num, 2);
	}
	f->now = rmpp_sender_deadline(&f->s);
	rmpp_sender_on_timer(&f->s, f->now);
	expect_abort(f, RMPP_STATUS_TMR);
	assert_int_equal(f->s.resends, 2);
	/* late ACKs change nothing */
	ack(f, 3, 13);
	assert_int_equal(drain(f), 0);
	assert_int_equal(f->s.state, RMPP_ABORTED);
	free(f);
}

/* Progress gives the retries back. */
static void test_retries_reset_on_progress(void **state)
{
	struct fx *f = fx_new(1);

	drain(f);
	f->now = rmpp_sender_deadline(&f->s);
	rmpp_sender_on_timer(&f->s, f->now);            /* retry 1 of 1 */
	assert_int_equal(drain(f), 1);
	ack(f, 1, 2);
	assert_int_equal(drain(f), 1);
	f->now = rmpp_sender_deadline(&f->s);
	rmpp_sender_on_timer(&f->s, f->now);            /* again allowed */
	assert_int_equal(f->s.state, RMPP_SENDING);
	assert_int_equal(drain(f), 1);
	free(f);
}

/* A receiver whose window ends at what it acknowledged is probed with the
 * next segment after a timeout, not waited on forever. */
static void test_closed_window_probe(void **state)
{
	struct fx *f = fx_new(3);

	drain(f);
	ack(f, 1, 1);
	assert_int_equal(drain(f), 0);
	assert_true(rmpp_sender_deadline(&f->s) != UINT64_MAX);
	f->now = rmpp_sender_deadline(&f->s);
	rmpp_sender_on_timer(&f->s, f->now);
	assert_int_equal(drain(f), 1);
	assert_int_equal(hdr_of(last_out(f, 0)).seg_num, 2);
	assert_int_equal(drain(f), 0);
	free(f);
}

static void test_duplicate_and_old_acks(void **state)
{
	struct fx *f = fx_new(3);

	drain(f);
	ack(f, 1, 5);
	assert_int_equal(drain(f), 4);
	ack(f, 5, 9);
	assert_int_equal(drain(f), 4);
	ack(f, 5, 9);                                   /* the same again */
	ack(f, 1, 5);                                   /* an old one */
	ack(f, 3, 9);                                   /* below last_ack */
	assert_int_equal(f->s.ignored, 3);
	assert_int_equal(drain(f), 0);
	assert_int_equal(f->s.last_ack, 5);
	assert_int_equal(f->s.state, RMPP_SENDING);
	ack(f, 9, 13);
	assert_int_equal(drain(f), 4);
	free(f);
}

static void test_stop(void **state)
{
	struct fx *f = fx_new(3);

	drain(f);
	feed(f, RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, 0);
	assert_int_equal(f->s.state, RMPP_STOPPED);
	assert_int_equal(drain(f), 0);                  /* no ABORT for a STOP */
	assert_true(rmpp_sender_finished(&f->s));
	free(f);
	/* Linux: a STOP with another status is answered with ABORT 124 */
	f = fx_new(3);
	drain(f);
	feed(f, RMPP_TYPE_STOP, 0, 0, 0);
	expect_abort(f, RMPP_STATUS_BAD_STATUS);
	free(f);
}

static void test_abort_from_receiver(void **state)
{
	struct fx *f = fx_new(3);

	drain(f);
	feed(f, RMPP_TYPE_ABORT, RMPP_STATUS_T2L, 0, 0);
	assert_int_equal(f->s.state, RMPP_ABORTED);
	assert_int_equal(f->s.status, RMPP_STATUS_T2L);
	assert_int_equal(drain(f), 0);
	assert_true(rmpp_sender_finished(&f->s));
	free(f);
	f = fx_new(3);
	drain(f);
	feed(f, RMPP_TYPE_ABORT, 5, 0, 0);
	expect_abort(f, RMPP_STATUS_BAD_STATUS);
	free(f);
}

/* Bad ACKs abort with the status Linux process_rmpp_ack() would send. */
static void test_bad_acks(void **state)
{
	static const struct { uint8_t type, status, version; uint32_t seg, win; uint8_t want; } c[] = {
		{ RMPP_TYPE_ACK, 0, 1, 4, 3, RMPP_STATUS_W2S },     /* NewWindowLast < seg */
		{ RMPP_TYPE_ACK, 0, 1, 14, 20, RMPP_STATUS_S2B },   /* beyond the message */
		{ RMPP_TYPE_ACK, 0, 1, 2, 5, RMPP_STATUS_S2B },     /* beyond what we sent */
		{ RMPP_TYPE_ACK, 9, 1, 1, 5, RMPP_STATUS_BAD_STATUS },
		{ RMPP_TYPE_ACK, 0, 2, 1, 5, RMPP_STATUS_UNV },
		{ 9, 0, 1, 1, 5, RMPP_STATUS_BADT },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fx *f = fx_new(3);
		uint8_t m[MAD_SIZE];

		drain(f);
		fake_rmpp_make(f->out[0], m, c[i].type, c[i].status, c[i].seg, c[i].win);
		m[24] = c[i].version;
		assert_int_equal(rmpp_sender_on_mad(&f->s, m, sizeof(m), f->now), 0);
		expect_abort(f, c[i].want);
		free(f);
	}
}

/* Not control MADs of an active transfer: refused, state unchanged. */
static void test_not_control(void **state)
{
	struct fx *f = fx_new(3);
	uint8_t m[MAD_SIZE];

	drain(f);
	fake_rmpp_make(f->out[0], m, RMPP_TYPE_ACK, 0, 1, 5);
	assert_int_equal(rmpp_sender_on_mad(&f->s, m, 35, f->now), -EINVAL);
	assert_int_equal(rmpp_sender_on_mad(&f->s, NULL, MAD_SIZE, f->now), -EINVAL);
	m[26] = 0;                                      /* not Active */
	assert_int_equal(rmpp_sender_on_mad(&f->s, m, sizeof(m), f->now), -EINVAL);
	assert_false(rmpp_is_control(m, sizeof(m)));
	fake_rmpp_make(f->out[0], m, RMPP_TYPE_DATA, 0, 1, 5);
	assert_int_equal(rmpp_sender_on_mad(&f->s, m, sizeof(m), f->now), -EINVAL);
	assert_false(rmpp_is_control(m, sizeof(m)));
	assert_int_equal(f->s.state, RMPP_SENDING);
	assert_int_equal(drain(f), 0);
	fake_rmpp_make(f->out[0], m, RMPP_TYPE_STOP, 1, 0, 0);
	assert_true(rmpp_is_control(m, sizeof(m)));
	assert_false(rmpp_is_control(m, 35));
	free(f);
}

static void test_start_limits(void **state)
{
	struct rmpp_sender s;
	struct rmpp_opts o = { .hdr_len = SA_HDR_SIZE };
	static uint8_t big[RMPP_MAX_MSG + 1];
	uint8_t m[MAD_SIZE];
	struct rmpp_hdr h;

	assert_int_equal(rmpp_sender_start(&s, big, sizeof(big), &o), -EMSGSIZE);
	assert_int_equal(rmpp_sender_start(&s, big, SA_HDR_SIZE - 1, &o), -EINVAL);
	assert_int_equal(rmpp_sender_start(&s, NULL, 100, &o), -EINVAL);
	o.hdr_len = 20;
	assert_int_equal(rmpp_sender_start(&s, big, 100, &o), -EINVAL);
	o.hdr_len = SA_HDR_SIZE;
	/* the largest message: 4 MiB in ceil((4 MiB - 56) / 200) segments */
	assert_int_equal(rmpp_sender_start(&s, big, RMPP_MAX_MSG, &o), 0);
	assert_int_equal(s.nseg, (RMPP_MAX_MSG - SA_HDR_SIZE + 199) / 200);
	assert_int_equal(s.timeout_ms, RMPP_DEF_TIMEOUT_MS);
	/* an empty table is one segment with PayloadLength 20 */
	make_msg(m, SA_HDR_SIZE);
	assert_int_equal(rmpp_sender_start(&s, m, SA_HDR_SIZE, &o), 0);
	assert_int_equal(s.nseg, 1);
	assert_int_equal(rmpp_sender_next(&s, 0, big, MAD_SIZE), 1);
	h = hdr_of(big);
	assert_int_equal(h.paylen_newwin, 20);
	assert_int_equal(h.flags, RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST | RMPP_FLAG_LAST);
	assert_int_equal(rmpp_sender_next(&s, 0, big, MAD_SIZE - 1), -EINVAL);
}

/* One window to the end, the fake receiver granting 64 at a time. */
static void test_with_fake_receiver(void **state)
{
	struct fx *f = fx_new(3);
	struct fake_rmpp_rx rx;
	uint8_t a[MAD_SIZE];
	unsigned taken = 0, rounds = 0;

	fake_rmpp_rx_init(&rx, 64);
	while (f->s.state == RMPP_SENDING && rounds++ < 10) {
		drain(f);
		for (; taken < f->nout; taken++)
			if (fake_rmpp_rx_take(&rx, f->out[taken % 64], MAD_SIZE, a))
				assert_int_equal(rmpp_sender_on_mad(&f->s, a, sizeof(a), f->now), 0);
	}
	assert_int_equal(f->s.state, RMPP_DONE);
	assert_int_equal(rounds, 2);                    /* segment 1, then 2..13 */
	assert_int_equal(rx.acks, 2);
	assert_int_equal(rx.len, DATA_LEN);
	assert_memory_equal(rx.data, f->msg + SA_HDR_SIZE, DATA_LEN);
	fake_rmpp_rx_fini(&rx);
	free(f);
}

static void test_hdr_codec(void **state)
{
	struct rmpp_hdr h = { .version = 1, .type = 2, .resp_time = 0x1F, .flags = 7,
			      .status = 126, .seg_num = 0x01020304, .paylen_newwin = 0xA0B0C0D0 };
	struct rmpp_hdr d;
	uint8_t m[36];

	memset(m, 0, sizeof(m));
	assert_int_equal(rmpp_hdr_encode(&h, m, sizeof(m)), 0);
	assert_memory_equal(m + 24, "\x01\x02\xFF\x7E\x01\x02\x03\x04\xA0\xB0\xC0\xD0", 12);
	assert_int_equal(rmpp_hdr_decode(m, sizeof(m), &d), 0);
	assert_int_equal(d.version, 1);
	assert_int_equal(d.type, 2);
	assert_int_equal(d.resp_time, 0x1F);
	assert_int_equal(d.flags, 7);
	assert_int_equal(d.status, 126);
	assert_int_equal(d.seg_num, 0x01020304);
	assert_int_equal(d.paylen_newwin, 0xA0B0C0D0);
	assert_int_equal(rmpp_hdr_decode(m, 35, &d), -EINVAL);
	assert_int_equal(rmpp_hdr_encode(&h, m, 35), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segments_13),
		cmocka_unit_test(test_window_growth),
		cmocka_unit_test(test_lost_segment_resend),
		cmocka_unit_test(test_retries_exhausted),
		cmocka_unit_test(test_retries_reset_on_progress),
		cmocka_unit_test(test_closed_window_probe),
		cmocka_unit_test(test_duplicate_and_old_acks),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_abort_from_receiver),
		cmocka_unit_test(test_bad_acks),
		cmocka_unit_test(test_not_control),
		cmocka_unit_test(test_start_limits),
		cmocka_unit_test(test_with_fake_receiver),
		cmocka_unit_test(test_hdr_codec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
