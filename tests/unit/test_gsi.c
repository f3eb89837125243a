/*
 * DOC: tests of the engine's GSI path on the in-memory transport.
 *
 * The gsi hook (what reaches it, with which address and status, what is
 * dropped and counted), and mad_engine_send_gsi() in its three ways: one
 * MAD, one long buffer for the kernel's RMPP, and segment by segment
 * through rmpp.c on a MAD_TP_USER_RMPP transport, with the fake transport
 * acting as the requester's RMPP receiver and a fake clock for the ACK
 * timer. The SMP path is covered, unchanged, by test_engine.
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
#include "mad/rmpp.h"
#include "mad/sa.h"
#include "mad/smp.h"
#include "mad/umad_policy.h"
#include "tests/unit/fake_transport.h"

#define NREC 22
#define RECSZ 112
#define TABLE_LEN (SA_HDR_SIZE + NREC * RECSZ)   /* 13 segments */

struct seen {
	int calls;
	int status;
	size_t len;
	uint8_t first[64];
	struct mad_addr from;
};

struct fx {
	struct fake_tp ft;
	struct mad_transport tp;
	struct mad_engine_opts o;
	struct mad_engine *e;
	struct seen seen;
};

static void gsi_hook(void *arg, const uint8_t *msg, size_t len, int status,
		     const struct mad_addr *from)
{
	struct seen *s = arg;

	s->calls++;
	s->status = status;
	s->len = len;
	memcpy(s->first, msg, len < sizeof(s->first) ? len : sizeof(s->first));
	s->from = *from;
}

static struct fx *fx_new(unsigned tp_flags)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fake_tp_init(&f->ft, &f->tp);
	f->tp.flags = tp_flags;
	mad_engine_opts_default(&f->o);
	f->o.now_ms = fake_tp_now;
	f->o.now_arg = &f->ft;
	f->o.gsi = gsi_hook;
	f->o.gsi_arg = &f->seen;
	f->o.rmpp_timeout_ms = 100;
	f->o.rmpp_retries = 2;
	f->e = mad_engine_new(&f->tp, &f->o);
	return f;
}

static void fx_reopen(struct fx *f)
{
	mad_engine_free(f->e);
	f->e = mad_engine_new(&f->tp, &f->o);
}

static void fx_free(struct fx *f)
{
	mad_engine_free(f->e);
	fake_tp_fini(&f->ft);
	free(f);
}

static struct mad_stats stats(const struct fx *f)
{
	struct mad_stats st;

	mad_engine_get_stats(f->e, &st);
	return st;
}

/* An SA request as saquery sends it: GetTable NodeRecord, mask LID. */
static void sa_request(uint8_t *buf, uint8_t method, uint64_t tid)
{
	struct sa_hdr h;

	memset(buf, 0, MAD_SIZE);
	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = SA_CLASS_VERSION;
	h.hdr.method = method;
	h.hdr.tid = tid;
	h.hdr.attr_id = SA_ATTR_NODE_REC;
	h.comp_mask = 1;
	sa_hdr_encode(&h, buf, MAD_SIZE);
	buf[SA_HDR_SIZE + 1] = 7;      /* template LID 7 */
}

/* A GetTableResp of NREC NodeRecords answering TID tid. */
static void sa_table(uint8_t *buf, uint64_t tid)
{
	struct sa_hdr req, resp;
	uint8_t r[MAD_SIZE];

	sa_request(r, SA_METHOD_GET_TABLE, tid);
	assert_int_equal(sa_hdr_decode(r, sizeof(r), &req), 0);
	sa_resp_hdr(&req, RECSZ / 8, &resp);
	resp.rmpp.flags = RMPP_FLAG_ACTIVE;
	memset(buf, 0, TABLE_LEN);
	sa_hdr_encode(&resp, buf, TABLE_LEN);
	for (size_t i = SA_HDR_SIZE; i < TABLE_LEN; i++)
		buf[i] = (uint8_t)(i * 13 + 1);
}

static struct mad_addr requester(uint16_t lid)
{
	struct mad_addr a;

	memset(&a, 0, sizeof(a));
	a.dlid = lid;
	a.qpn = 1;
	a.sl = 2;
	a.pkey_index = 3;
	a.grh_present = 1;
	a.gid_index = 1;
	a.hop_limit = 255;
	a.traffic_class = 4;
	a.flow_label = 0x12345;
	memset(a.gid, 0xFE, sizeof(a.gid));
	return a;
}

static void assert_addr_equal(const struct mad_addr *a, const struct mad_addr *b)
{
	assert_int_equal(a->dlid, b->dlid);
	assert_int_equal(a->qpn, b->qpn);
	assert_int_equal(a->qkey, b->qkey);
	assert_int_equal(a->sl, b->sl);
	assert_int_equal(a->pkey_index, b->pkey_index);
	assert_int_equal(a->grh_present, b->grh_present);
	assert_int_equal(a->gid_index, b->gid_index);
	assert_int_equal(a->hop_limit, b->hop_limit);
	assert_int_equal(a->traffic_class, b->traffic_class);
	assert_int_equal(a->flow_label, b->flow_label);
	assert_memory_equal(a->gid, b->gid, sizeof(a->gid));
}

static void test_hook_gets_requests(void **state)
{
	struct fx *f = fx_new(0);
	struct mad_addr from = requester(7), to;
	uint8_t req[MAD_SIZE];

	sa_request(req, SA_METHOD_GET_TABLE, 0x0000000500001234ull);
	fake_tp_inject(&f->ft, req, sizeof(req), 0, &from);
	mad_engine_on_readable(f->e);
	assert_int_equal(f->seen.calls, 1);
	assert_int_equal(f->seen.status, 0);
	assert_int_equal(f->seen.len, MAD_SIZE);
	assert_memory_equal(f->seen.first, req, 64);
	assert_addr_equal(&f->seen.from, &from);
	assert_int_equal(stats(f).gsi, 1);
	assert_int_equal(stats(f).dropped, 0);
	/* the reply address: everything but the Q_Key from the request */
	mad_addr_reply(&f->seen.from, &to);
	assert_int_equal(to.qkey, MAD_QKEY_GSI);
	to.qkey = from.qkey;
	assert_addr_equal(&to, &from);
	fx_free(f);
}

/* A response such as ReportResp, and our own send coming back failed. */
static void test_hook_gets_responses_and_returns(void **state)
{
	struct fx *f = fx_new(0);
	struct mad_addr from = requester(9);
	uint8_t m[MAD_SIZE];

	sa_request(m, SA_METHOD_REPORT_RESP, 42);
	fake_tp_inject(&f->ft, m, sizeof(m), 0, &from);
	sa_request(m, SA_METHOD_REPORT, 43);
	fake_tp_inject(&f->ft, m, 24, 110, &from);      /* the kernel returns 24 bytes */
	mad_engine_on_readable(f->e);
	assert_int_equal(f->seen.calls, 2);
	assert_int_equal(f->seen.status, 110);
	assert_int_equal(f->seen.len, 24);
	assert_int_equal(f->seen.first[3], SA_METHOD_REPORT);
	fx_free(f);
}

static void test_drops(void **state)
{
	struct fx *f = fx_new(0);
	uint8_t m[MAD_SIZE];

	sa_request(m, SA_METHOD_GET, 1);
	m[1] = 0x04;                                    /* PerfMgt: a request to us, we
							 * serve none (our queries' class) */
	fake_tp_inject(&f->ft, m, sizeof(m), 0, NULL);
	m[1] = 0x0A;
	fake_tp_inject(&f->ft, m, sizeof(m), 0, NULL);
	sa_request(m, SA_METHOD_GET, 2);
	m[0] = 2;                                       /* BaseVersion 2 */
	fake_tp_inject(&f->ft, m, sizeof(m), 0, NULL);
	sa_request(m, SA_METHOD_GET, 3);
	fake_tp_inject(&f->ft, m, 23, 0, NULL);         /* shorter than a header */
	mad_engine_on_readable(f->e);
	assert_int_equal(f->seen.calls, 0);
	assert_int_equal(stats(f).unknown_class, 1);
	assert_int_equal(stats(f).gmp_dropped, 1);
	assert_int_equal(stats(f).dropped, 4);
	/* no hook: SA MADs are dropped like any other */
	f->o.gsi = NULL;
	fx_reopen(f);
	sa_request(m, SA_METHOD_GET, 4);
	fake_tp_inject(&f->ft, m, sizeof(m), 0, NULL);
	mad_engine_on_readable(f->e);
	assert_int_equal(stats(f).dropped, 1);
	assert_int_equal(stats(f).gsi, 0);
	fx_free(f);
}

/* Reassembled requests up to MAD_RECV_MAX reach the hook whole; longer ones
 * are dropped by the transport and counted, and reading goes on. */
static void test_long_receive(void **state)
{
	struct fx *f = fx_new(0);
	uint8_t *big = calloc(1, MAD_RECV_MAX + 1);
	uint8_t m[MAD_SIZE];

	assert_non_null(big);
	sa_request(big, SA_METHOD_GET_MULTI, 5);
	fake_tp_inject_long(&f->ft, big, MAD_RECV_MAX + 1, 0, NULL);
	fake_tp_inject_long(&f->ft, big, 3000, 0, NULL);
	sa_request(m, SA_METHOD_GET, 6);
	fake_tp_inject(&f->ft, m, sizeof(m), 0, NULL);
	mad_engine_on_readable(f->e);
	assert_int_equal(stats(f).too_long, 1);
	assert_int_equal(stats(f).dropped, 1);
	assert_int_equal(stats(f).gsi, 2);
	assert_int_equal(f->seen.calls, 2);
	assert_int_equal(f->seen.len, MAD_SIZE);
	free(big);
	fx_free(f);
}

/* SMPs and GSI MADs interleaved: the SMP request still completes. */
struct rec {
	int calls;
	int err;
};

static void rec_done(void *arg, int err, const struct smp *resp)
{
	struct rec *r = arg;

	r->calls++;
	r->err = err;
}

static void test_smp_unaffected(void **state)
{
	struct fx *f = fx_new(0);
	struct mad_req q;
	struct rec r = { 0 };
	uint8_t m[MAD_SIZE];

	memset(&q, 0, sizeof(q));
	q.mgmt_class = MAD_CLASS_SMI;
	q.method = MAD_METHOD_GET;
	q.attr_id = SMP_ATTR_NODE_INFO;
	q.dlid = 4;
	assert_int_equal(mad_engine_submit(f->e, &q, rec_done, &r), 0);
	sa_request(m, SA_METHOD_GET, 9);
	fake_tp_inject(&f->ft, m, sizeof(m), 0, NULL);
	fake_tp_respond(&f->ft, 0, 0);
	mad_engine_on_readable(f->e);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, MAD_OK);
	assert_int_equal(f->seen.calls, 1);
	assert_int_equal(stats(f).completed, 1);
	assert_int_equal(stats(f).dropped, 0);
	fx_free(f);
}

static void test_send_one_mad(void **state)
{
	struct fx *f = fx_new(0);
	struct mad_addr to = requester(7);
	uint8_t m[MAD_SIZE];

	sa_request(m, SA_METHOD_GET_RESP, 77);
	assert_int_equal(mad_engine_send_gsi(f->e, m, 56 + 108, &to), 0);
	assert_int_equal(f->ft.nsent, 1);
	assert_int_equal(f->ft.sent[0].len, MAD_SIZE);          /* padded */
	assert_memory_equal(f->ft.sent[0].buf, m, 56 + 108);
	for (int i = 56 + 108; i < MAD_SIZE; i++)
		assert_int_equal(f->ft.sent[0].buf[i], 0);
	assert_addr_equal(&f->ft.sent[0].addr, &to);
	assert_int_equal(stats(f).gsi_sent, 1);
	assert_true(mad_engine_idle(f->e));
	/* refused */
	assert_int_equal(mad_engine_send_gsi(f->e, m, 23, &to), -EINVAL);
	assert_int_equal(mad_engine_send_gsi(f->e, NULL, 100, &to), -EINVAL);
	m[1] = MAD_CLASS_SMI;
	assert_int_equal(mad_engine_send_gsi(f->e, m, MAD_SIZE, &to), -EINVAL);
	m[1] = 0x04;
	assert_int_equal(mad_engine_send_gsi(f->e, m, MAD_SIZE + 1, &to), -EINVAL);
	/* the kernel's duplicate rule, as the transport reports it */
	m[1] = MAD_CLASS_SA;
	f->ft.fail_sends = 1;
	f->ft.send_err = -EALREADY;
	assert_int_equal(mad_engine_send_gsi(f->e, m, MAD_SIZE, &to), -EALREADY);
	assert_int_equal(f->ft.nsent, 1);
	fx_free(f);
}

/* Kernel RMPP: one buffer, Active flag, version and type set. */
static void test_send_kernel_rmpp(void **state)
{
	struct fx *f = fx_new(0);
	struct mad_addr to = requester(7);
	static uint8_t t[TABLE_LEN], big[RMPP_MAX_MSG + 1];
	const uint8_t *s;

	sa_table(t, 0x0000000100000099ull);
	t[26] = 0;                                      /* the engine sets Active */
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	assert_int_equal(f->ft.nsent, 1);
	assert_int_equal(f->ft.sent[0].len, TABLE_LEN);
	s = fake_tp_sent_data(&f->ft, 0);
	assert_int_equal(s[24], RMPP_VERSION);
	assert_int_equal(s[25], RMPP_TYPE_DATA);
	assert_int_equal(s[26] & RMPP_FLAG_ACTIVE, RMPP_FLAG_ACTIVE);
	assert_memory_equal(s, t, 24);
	assert_memory_equal(s + 36, t + 36, TABLE_LEN - 36);
	assert_int_equal(t[26], 0);                     /* the caller's copy untouched */
	/* Active set by the caller on a short table: still one RMPP buffer,
	 * not padded (the kernel takes the length for PayloadLength) */
	t[26] = RMPP_FLAG_ACTIVE;
	assert_int_equal(mad_engine_send_gsi(f->e, t, SA_HDR_SIZE + RECSZ, &to), 0);
	assert_int_equal(f->ft.sent[1].len, SA_HDR_SIZE + RECSZ);
	assert_int_equal(f->ft.sent[1].buf[24], RMPP_VERSION);
	assert_int_equal(stats(f).gsi_sent, 2);
	assert_int_equal(stats(f).rmpp_sessions, 0);
	memcpy(big, t, SA_HDR_SIZE);
	assert_int_equal(mad_engine_send_gsi(f->e, big, sizeof(big), &to), -EMSGSIZE);
	fx_free(f);
}

/* User RMPP end to end: 13 segments in windows, the receiver gets the table. */
static void test_user_rmpp_complete(void **state)
{
	struct fx *f = fx_new(MAD_TP_USER_RMPP);
	struct mad_addr to = requester(7);
	struct fake_rmpp_rx rx;
	static uint8_t t[TABLE_LEN];
	size_t next = 0;

	sa_table(t, 0x0000000100000099ull);
	fake_rmpp_rx_init(&rx, 4);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	assert_int_equal(f->ft.nsent, 1);               /* window 1 */
	assert_int_equal(stats(f).rmpp_sessions, 1);
	assert_int_equal(stats(f).rmpp_bytes, TABLE_LEN);
	assert_true(mad_engine_next_deadline(f->e) == f->ft.now + 100);
	memset(t, 0, sizeof(t));                        /* the engine has its copy */
	for (int round = 0; round < 10 && stats(f).rmpp_sessions; round++) {
		assert_true(fake_tp_rmpp_receive(&f->ft, &rx, &next, &to) > 0);
		mad_engine_on_readable(f->e);
	}
	assert_int_equal(stats(f).rmpp_sessions, 0);
	assert_int_equal(stats(f).rmpp_bytes, 0);
	assert_int_equal(stats(f).rmpp_done, 1);
	assert_int_equal(f->ft.nsent, 13);
	assert_int_equal(stats(f).gsi_sent, 13);
	assert_true(rx.done);
	sa_table(t, 0x0000000100000099ull);
	assert_int_equal(rx.len, NREC * RECSZ);
	assert_memory_equal(rx.data, t + SA_HDR_SIZE, NREC * RECSZ);
	for (size_t i = 0; i < f->ft.nsent; i++) {
		assert_int_equal(f->ft.sent[i].len, MAD_SIZE);
		assert_int_equal(f->ft.sent[i].addr.dlid, 7);
	}
	/* ACKs went to the session, not to the hook */
	assert_int_equal(f->seen.calls, 0);
	assert_true(mad_engine_next_deadline(f->e) == UINT64_MAX);
	fake_rmpp_rx_fini(&rx);
	fx_free(f);
}

/* A lost segment is resent after the ACK timeout, from the last ACK + 1;
 * a receiver that never answers gets ABORT 126 after the retries. */
static void test_user_rmpp_timeouts(void **state)
{
	struct fx *f = fx_new(MAD_TP_USER_RMPP);
	struct mad_addr to = requester(7);
	struct fake_rmpp_rx rx;
	static uint8_t t[TABLE_LEN];
	size_t next = 0;
	struct rmpp_hdr h;

	sa_table(t, 0x77);
	fake_rmpp_rx_init(&rx, 4);
	rx.drop_seg = 3;
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	for (int round = 0; round < 20 && stats(f).rmpp_sessions; round++) {
		if (fake_tp_rmpp_receive(&f->ft, &rx, &next, &to)) {
			mad_engine_on_readable(f->e);
		} else {
			f->ft.now = mad_engine_next_deadline(f->e);
			mad_engine_on_timer(f->e);
		}
	}
	assert_int_equal(stats(f).rmpp_done, 1);
	assert_true(rx.done);
	assert_memory_equal(rx.data, t + SA_HDR_SIZE, NREC * RECSZ);
	/* 1, 2-5 (3 lost), 2-5 again, 6-9, 10-13 */
	assert_int_equal(f->ft.nsent, 17);
	assert_int_equal(rmpp_hdr_decode(f->ft.sent[5].buf, MAD_SIZE, &h), 0);
	assert_int_equal(h.seg_num, 2);
	fake_rmpp_rx_fini(&rx);

	/* nobody answers: 1 + 2 resends, then ABORT 126, session gone */
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	next = f->ft.nsent;
	for (int i = 0; i < 3; i++) {
		assert_true(mad_engine_next_deadline(f->e) != UINT64_MAX);
		f->ft.now = mad_engine_next_deadline(f->e);
		mad_engine_on_timer(f->e);
	}
	assert_int_equal(f->ft.nsent, next + 3);
	assert_int_equal(rmpp_hdr_decode(f->ft.sent[next + 2].buf, MAD_SIZE, &h), 0);
	assert_int_equal(h.type, RMPP_TYPE_ABORT);
	assert_int_equal(h.status, RMPP_STATUS_TMR);
	assert_int_equal(stats(f).rmpp_failed, 1);
	assert_int_equal(stats(f).rmpp_sessions, 0);
	assert_true(mad_engine_next_deadline(f->e) == UINT64_MAX);
	fx_free(f);
}

static void test_user_rmpp_stop_abort(void **state)
{
	struct fx *f = fx_new(MAD_TP_USER_RMPP);
	struct mad_addr to = requester(7), other = requester(8);
	static uint8_t t[TABLE_LEN];
	uint8_t m[MAD_SIZE];

	sa_table(t, 0x100);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	/* a STOP from another port is not for this session: the hook gets it */
	fake_rmpp_make(f->ft.sent[0].buf, m, RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, 0);
	fake_tp_inject(&f->ft, m, sizeof(m), 0, &other);
	mad_engine_on_readable(f->e);
	assert_int_equal(f->seen.calls, 1);
	assert_int_equal(stats(f).rmpp_sessions, 1);
	fake_tp_inject(&f->ft, m, sizeof(m), 0, &to);
	mad_engine_on_readable(f->e);
	assert_int_equal(stats(f).rmpp_sessions, 0);
	assert_int_equal(stats(f).rmpp_failed, 1);
	assert_int_equal(f->ft.nsent, 1);               /* no ABORT for a STOP */
	/* a bad ACK: the session ends with ABORT 123 to the receiver */
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	fake_rmpp_make(f->ft.sent[1].buf, m, RMPP_TYPE_ACK, 0, 9, 9);
	fake_tp_inject(&f->ft, m, sizeof(m), 0, &to);
	mad_engine_on_readable(f->e);
	assert_int_equal(f->ft.nsent, 3);
	assert_int_equal(f->ft.sent[2].buf[25], RMPP_TYPE_ABORT);
	assert_int_equal(f->ft.sent[2].buf[27], RMPP_STATUS_S2B);
	assert_int_equal(stats(f).rmpp_failed, 2);
	assert_int_equal(f->seen.calls, 1);
	fx_free(f);
}

static void test_user_rmpp_limits(void **state)
{
	struct fx *f = fx_new(MAD_TP_USER_RMPP);
	struct mad_addr a = requester(7), b = requester(8);
	static uint8_t t[TABLE_LEN];

	f->o.rmpp_max_sessions = 2;
	f->o.rmpp_max_bytes = 3 * TABLE_LEN;
	fx_reopen(f);
	sa_table(t, 0x200);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &a), 0);
	/* the same TID to the same port again: already answered */
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &a), -EALREADY);
	/* to another port it is another transfer */
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &b), 0);
	sa_table(t, 0x201);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &a), -ENOBUFS);
	assert_int_equal(stats(f).rmpp_sessions, 2);
	fx_free(f);

	f = fx_new(MAD_TP_USER_RMPP);
	f->o.rmpp_max_bytes = TABLE_LEN + 10;
	fx_reopen(f);
	/* a refused first segment leaves no session behind */
	f->ft.fail_sends = 1;
	f->ft.send_err = -EIO;
	assert_int_equal(mad_engine_send_gsi(f->e, t, 300, &b), -EIO);
	assert_int_equal(stats(f).rmpp_sessions, 0);
	assert_int_equal(stats(f).rmpp_bytes, 0);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &a), 0);
	sa_table(t, 0x202);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &a), -ENOBUFS);
	assert_int_equal(stats(f).rmpp_sessions, 1);
	/* freeing the engine with a session open frees it (ASan checks) */
	fx_free(f);
}

/* Segments the transport refuses later are sent again by the ACK timer. */
static void test_user_rmpp_send_refused(void **state)
{
	struct fx *f = fx_new(MAD_TP_USER_RMPP);
	struct mad_addr to = requester(7);
	struct fake_rmpp_rx rx;
	static uint8_t t[TABLE_LEN];
	size_t next = 0;

	sa_table(t, 0x300);
	fake_rmpp_rx_init(&rx, 64);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	fake_tp_rmpp_receive(&f->ft, &rx, &next, &to);
	f->ft.fail_sends = 1;                           /* segment 2 */
	mad_engine_on_readable(f->e);
	assert_int_equal(f->ft.nsent, 1);
	f->ft.now = mad_engine_next_deadline(f->e);
	mad_engine_on_timer(f->e);
	assert_int_equal(f->ft.nsent, 13);
	fake_tp_rmpp_receive(&f->ft, &rx, &next, &to);
	mad_engine_on_readable(f->e);
	assert_int_equal(stats(f).rmpp_done, 1);
	assert_true(rx.done);
	fake_rmpp_rx_fini(&rx);
	fx_free(f);
}

/* The user-RMPP transport takes nothing longer than a MAD; the engine
 * never asks it to. Kernel-RMPP ones take the whole message. */
static void test_transport_contract(void **state)
{
	struct fx *f = fx_new(MAD_TP_USER_RMPP);
	struct mad_addr to = requester(7);
	static uint8_t t[TABLE_LEN];

	sa_table(t, 0x400);
	assert_int_equal(mad_engine_send_gsi(f->e, t, TABLE_LEN, &to), 0);
	for (size_t i = 0; i < f->ft.nsent; i++)
		assert_true(f->ft.sent[i].len <= MAD_SIZE);
	fx_free(f);
}

/* What umad_send() gets (mad/umad_policy.c): an RMPP-active GetTableResp
 * on a kernel-RMPP agent timeout 0 - the kernel's 2 s per ACK, and the
 * final ACK completes the send - with retries; a single-MAD response 0/0;
 * requests the per-attempt timeout and no kernel retries; with user RMPP
 * (segments of ours) no kernel retries either. */
static void test_umad_send_policy(void **state)
{
	uint8_t m[TABLE_LEN] = { 1, MAD_CLASS_SA, 2, SA_METHOD_GET_TABLE_RESP };
	int timeout = -1, retries = -1;

	m[RMPP_HDR_OFF + 2] = RMPP_FLAG_ACTIVE;
	mad_umad_send_policy(m, TABLE_LEN, true, 300, &timeout, &retries);
	assert_int_equal(timeout, 0);
	assert_int_equal(retries, MAD_UMAD_RMPP_RETRIES);
	assert_true(retries > 0);
	/* an RMPP-active answer that fits one MAD is still segmented by the kernel */
	mad_umad_send_policy(m, MAD_SIZE, true, 300, &timeout, &retries);
	assert_int_equal(timeout, 0);
	assert_true(retries > 0);
	mad_umad_send_policy(m, MAD_SIZE, false, 300, &timeout, &retries);
	assert_int_equal(retries, 0);
	/* a GetResp: one MAD, nothing comes back */
	m[3] = SA_METHOD_GET_RESP;
	m[RMPP_HDR_OFF + 2] = 0;
	mad_umad_send_policy(m, MAD_SIZE, true, 300, &timeout, &retries);
	assert_int_equal(timeout, 0);
	assert_int_equal(retries, 0);
	/* a Report (request): held for its ReportResp, retried by the SA */
	m[3] = SA_METHOD_REPORT;
	mad_umad_send_policy(m, MAD_SIZE, true, 300, &timeout, &retries);
	assert_int_equal(timeout, 300);
	assert_int_equal(retries, 0);
	/* an SMP Get and a TrapRepress */
	m[1] = MAD_CLASS_SMI;
	m[3] = MAD_METHOD_GET;
	mad_umad_send_policy(m, MAD_SIZE, true, 200, &timeout, &retries);
	assert_int_equal(timeout, 200);
	assert_int_equal(retries, 0);
	m[3] = MAD_METHOD_TRAP_REPRESS;
	mad_umad_send_policy(m, MAD_SIZE, true, 200, &timeout, &retries);
	assert_int_equal(timeout, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook_gets_requests),
		cmocka_unit_test(test_hook_gets_responses_and_returns),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_long_receive),
		cmocka_unit_test(test_smp_unaffected),
		cmocka_unit_test(test_send_one_mad),
		cmocka_unit_test(test_send_kernel_rmpp),
		cmocka_unit_test(test_user_rmpp_complete),
		cmocka_unit_test(test_user_rmpp_timeouts),
		cmocka_unit_test(test_user_rmpp_stop_abort),
		cmocka_unit_test(test_user_rmpp_limits),
		cmocka_unit_test(test_user_rmpp_send_refused),
		cmocka_unit_test(test_transport_contract),
		cmocka_unit_test(test_umad_send_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
