/*
 * DOC: libFuzzer target for everything that parses SA MADs and RMPP
 * control MADs from the fabric.
 *
 * 1. The input as an SA MAD: header decode (and re-encode, which must
 *    decode to the same header), the record for its attribute (decoded,
 *    re-encoded and decoded again: the two encodings must agree), the
 *    response helpers, and sa_match() with the request's own component
 *    mask - a template must match itself, and against a zero record
 *    sa_match() must agree with a bit-by-bit reference written here.
 * 2. The input cut into 13-byte records of (control byte, RMPP header
 *    bytes 25..36) fed as ACK/STOP/ABORT MADs to an rmpp_sender sending a
 *    13-segment table, the clock moving on: every MAD it hands out must be
 *    a well-formed segment or ABORT, and it must end up finished or
 *    waiting with a deadline.
 * 3. The same records through the engine's GSI receive path with a user
 *    RMPP session open and a gsi hook, freed at the end (leaks show).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mad/engine.h"
#include "mad/rmpp.h"
#include "mad/sa.h"
#include "mad/sa_fields.h"
#include "tests/unit/fake_transport.h"

#define MAX_INPUT 8192
#define TABLE_LEN (SA_HDR_SIZE + 22 * 112)
#define NSEG 13

/* --- 1: SA MAD and records --- */

struct codec {
	uint16_t attr;
	int (*dec)(const uint8_t *, size_t, void *);
	int (*enc)(const void *, uint8_t *, size_t);
	size_t size;
};

#define WRAP(base)                                                           \
	static int dec_##base(const uint8_t *b, size_t l, void *o)           \
	{                                                                    \
		return sa_##base##_decode(b, l, o);                          \
	}                                                                    \
	static int enc_##base(const void *i, uint8_t *b, size_t l)           \
	{                                                                    \
		return sa_##base##_encode(i, b, l);                          \
	}
WRAP(class_port_info)
WRAP(notice)
WRAP(inform_info)
WRAP(node_rec)
WRAP(port_info_rec)
WRAP(sl2vl_rec)
WRAP(switch_info_rec)
WRAP(lft_rec)
WRAP(mft_rec)
WRAP(sm_info_rec)
WRAP(link_rec)
WRAP(guid_info_rec)
WRAP(service_rec)
WRAP(pkey_rec)
WRAP(path_rec)
WRAP(vlarb_rec)
WRAP(mcmember_rec)
WRAP(multipath_rec)
WRAP(inform_info_rec)

#define C(a, base, n) { a, dec_##base, enc_##base, n }
static const struct codec codecs[] = {
	C(SA_ATTR_CLASS_PORT_INFO, class_port_info, 72), C(SA_ATTR_NOTICE, notice, 80),
	C(SA_ATTR_INFORM_INFO, inform_info, 36),         C(SA_ATTR_NODE_REC, node_rec, 108),
	C(SA_ATTR_PORT_INFO_REC, port_info_rec, 68),     C(SA_ATTR_SL2VL_REC, sl2vl_rec, 16),
	C(SA_ATTR_SWITCH_INFO_REC, switch_info_rec, 24), C(SA_ATTR_LFT_REC, lft_rec, 72),
	C(SA_ATTR_MFT_REC, mft_rec, 72),                 C(SA_ATTR_SM_INFO_REC, sm_info_rec, 25),
	C(SA_ATTR_LINK_REC, link_rec, 6),                C(SA_ATTR_GUID_INFO_REC, guid_info_rec, 72),
	C(SA_ATTR_SERVICE_REC, service_rec, 176),        C(SA_ATTR_PKEY_REC, pkey_rec, 72),
	C(SA_ATTR_PATH_REC, path_rec, 64),               C(SA_ATTR_VLARB_REC, vlarb_rec, 72),
	C(SA_ATTR_MCMEMBER_REC, mcmember_rec, 52),       C(SA_ATTR_MULTIPATH_REC, multipath_rec, 24),
	C(SA_ATTR_INFORM_INFO_REC, inform_info_rec, 60),
};

static void fuzz_record(uint16_t attr, const uint8_t *p, size_t n)
{
	uint8_t a[1024] __attribute__((aligned(8))), b[1024] __attribute__((aligned(8)));
	/* room for the 510 GIDs a MultiPathRecord may announce: its encoder
	 * writes the fixed part, its decoder wants the GIDs too */
	static uint8_t out1[24 + 16 * 510], out2[24 + 16 * 510];

	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		const struct codec *c = &codecs[i];

		if (c->attr != attr)
			continue;
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		if (c->dec(p, n, a) != 0)
			return;
		memset(out1, 0, sizeof(out1));
		memset(out2, 0, sizeof(out2));
		if (c->enc(a, out1, sizeof(out1)) != 0 || c->dec(out1, sizeof(out1), b) != 0 ||
		    c->enc(b, out2, sizeof(out2)) != 0 || memcmp(out1, out2, c->size) != 0)
			abort();
	}
}

/* sa_match against a zero record, bit by bit. */
static bool naive_zero_match(const struct sa_rec_desc *d, const uint8_t *rec, uint64_t mask)
{
	for (unsigned k = 0; k < d->nfields; k++) {
		const struct sa_field *f = &d->fields[k];

		if (!((mask >> k) & 1))
			continue;
		for (unsigned i = 0; i < f->width; i++) {
			unsigned bit = f->off * 8u + f->bit + i;

			if (rec[bit / 8] & (0x80 >> (bit % 8)))
				return false;
		}
	}
	return true;
}

static void fuzz_match(const struct sa_hdr *h, const uint8_t *p, size_t n)
{
	static const uint8_t zero[256];
	const struct sa_rec_desc *d = sa_rec_desc_find(h->hdr.attr_id);
	uint8_t gid[16];

	if (!d || n < d->size)
		return;
	if (sa_mask_check(d, h->comp_mask) == 0 && d->nfields < 64 &&
	    (h->comp_mask >> d->nfields) != 0)
		abort();
	if (!sa_match(d, p, p, h->comp_mask))
		abort();
	if (sa_match(d, p, zero, h->comp_mask) != naive_zero_match(d, p, h->comp_mask))
		abort();
	if (d->attr_id == SA_ATTR_MULTIPATH_REC)
		for (unsigned i = 0; i < 600; i++)
			if (sa_multipath_gid(p, n, i, gid) < 0)
				break;
}

static void fuzz_sa_mad(const uint8_t *data, size_t len)
{
	struct sa_hdr h, h2, resp;
	uint8_t buf[MAD_SIZE], buf2[SA_HDR_SIZE];

	if (sa_hdr_decode(data, len, &h) != 0)
		return;
	if (sa_hdr_encode(&h, buf, sizeof(buf)) != 0 || sa_hdr_decode(buf, sizeof(buf), &h2) != 0 ||
	    sa_hdr_encode(&h2, buf2, sizeof(buf2)) != 0 || memcmp(buf, buf2, SA_HDR_SIZE) != 0)
		abort();
	sa_resp_hdr(&h, 14, &resp);
	if (resp.hdr.tid != h.hdr.tid || resp.sm_key != 0 || !(resp.hdr.method & 0x80))
		abort();
	if (sa_error_resp(&h, SA_STATUS_REQ_INVALID, buf, sizeof(buf)) != 0 ||
	    sa_hdr_decode(buf, sizeof(buf), &h2) != 0 || h2.hdr.tid != h.hdr.tid ||
	    h2.attr_offset != 0 || h2.rmpp.type != 0)
		abort();
	fuzz_record(h.hdr.attr_id, data + SA_HDR_SIZE, len - SA_HDR_SIZE);
	fuzz_match(&h, data + SA_HDR_SIZE, len - SA_HDR_SIZE);
}

/* --- 2: RMPP sender --- */

#define REC 13

static uint8_t table[TABLE_LEN];

static void make_table(void)
{
	struct sa_hdr h;

	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = SA_CLASS_VERSION;
	h.hdr.method = SA_METHOD_GET_TABLE_RESP;
	h.hdr.tid = 0x0000000100000042ull;
	h.hdr.attr_id = SA_ATTR_NODE_REC;
	h.rmpp.flags = RMPP_FLAG_ACTIVE;
	h.attr_offset = 14;
	sa_hdr_encode(&h, table, sizeof(table));
	for (size_t i = SA_HDR_SIZE; i < sizeof(table); i++)
		table[i] = (uint8_t)i;
}

/* A record's control MAD: our header with bytes 25..36 from the input
 * (RMPPType onwards; RMPPVersion stays 1 unless ctl bit 3 says). */
static void control_mad(const uint8_t *rec, uint8_t *mad)
{
	memset(mad, 0, MAD_SIZE);
	memcpy(mad, table, SA_HDR_SIZE);
	mad[3] ^= 0x80;
	mad[24] = (rec[0] & 8) ? rec[1] : RMPP_VERSION;
	memcpy(mad + 25, rec + 1, REC - 1);
	if (!(rec[0] & 16))
		mad[26] |= RMPP_FLAG_ACTIVE;
}

static void check_out(const struct rmpp_sender *s, const uint8_t *m)
{
	struct rmpp_hdr h;

	if (rmpp_hdr_decode(m, MAD_SIZE, &h) != 0 || memcmp(m, table, 24) != 0)
		abort();
	if (h.type == RMPP_TYPE_ABORT) {
		if (h.status < RMPP_STATUS_ABORT_MIN || s->state != RMPP_ABORTED)
			abort();
		return;
	}
	if (h.type != RMPP_TYPE_DATA || h.seg_num < 1 || h.seg_num > NSEG)
		abort();
	if (h.seg_num == NSEG && h.paylen_newwin != 220 - s->pad)
		abort();
	if (h.seg_num > 1 && h.seg_num < NSEG && h.paylen_newwin != 0)
		abort();
}

static void drain(struct rmpp_sender *s, uint64_t now)
{
	uint8_t out[MAD_SIZE];
	int n = 0;

	while (rmpp_sender_next(s, now, out, sizeof(out)) == 1) {
		check_out(s, out);
		if (++n > NSEG + 1)
			abort();        /* never more than the message and an ABORT */
	}
}

static void fuzz_rmpp(const uint8_t *data, size_t len)
{
	struct rmpp_sender s;
	struct rmpp_opts o = { .hdr_len = SA_HDR_SIZE, .timeout_ms = 100, .retries = 2 };
	uint8_t mad[MAD_SIZE];
	uint64_t now = 1000;

	if (rmpp_sender_start(&s, table, sizeof(table), &o) != 0 || s.nseg != NSEG)
		abort();
	drain(&s, now);
	for (size_t off = 0; off + REC <= len; off += REC) {
		control_mad(data + off, mad);
		rmpp_sender_on_mad(&s, mad, (data[off] & 32) ? 35 : sizeof(mad), now);
		if (data[off] & 1) {
			now += 50 * (data[off] >> 6);
			rmpp_sender_on_timer(&s, now);
		}
		drain(&s, now);
		if (s.last_ack > NSEG || s.sent > NSEG)
			abort();
	}
	if (!rmpp_sender_finished(&s) && rmpp_sender_deadline(&s) == UINT64_MAX && s.sent)
		abort();
	if (rmpp_sender_finished(&s) && rmpp_sender_deadline(&s) != UINT64_MAX)
		abort();
}

/* --- 3: the engine's GSI receive path --- */

static void hook(void *arg, const uint8_t *msg, size_t len, int status, const struct mad_addr *from)
{
	if (len < 24 || len > MAD_RECV_MAX)
		abort();
}

static void fuzz_engine(const uint8_t *data, size_t len)
{
	struct fake_tp ft;
	struct mad_transport tp;
	struct mad_engine_opts o;
	struct mad_engine *e;
	struct mad_addr to = { .dlid = 7, .qpn = 1 }, other = { .dlid = 8, .qpn = 1 };
	struct mad_stats st;
	uint8_t mad[MAD_SIZE];

	fake_tp_init(&ft, &tp);
	tp.flags = MAD_TP_USER_RMPP;
	mad_engine_opts_default(&o);
	o.now_ms = fake_tp_now;
	o.now_arg = &ft;
	o.gsi = hook;
	o.rmpp_timeout_ms = 100;
	o.rmpp_retries = 2;
	e = mad_engine_new(&tp, &o);
	if (mad_engine_send_gsi(e, table, sizeof(table), &to) != 0)
		abort();
	for (size_t off = 0; off + REC <= len; off += REC) {
		control_mad(data + off, mad);
		fake_tp_inject(&ft, mad, sizeof(mad), (data[off] & 4) ? 110 : 0,
			       (data[off] & 2) ? &other : &to);
		mad_engine_on_readable(e);
		if (data[off] & 1) {
			ft.now += 50 * (data[off] >> 6);
			mad_engine_on_timer(e);
		}
		mad_engine_get_stats(e, &st);
		if (st.rmpp_sessions > 1 || st.rmpp_done + st.rmpp_failed + st.rmpp_sessions != 1)
			abort();
	}
	mad_engine_free(e);
	fake_tp_fini(&ft);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!table[1])
		make_table();
	if (size > MAX_INPUT)
		return 0;
	fuzz_sa_mad(data, size);
	fuzz_rmpp(data, size);
	fuzz_engine(data, size);
	return 0;
}
