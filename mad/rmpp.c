/*
 * DOC: the RMPP header codec and the sender state machine (see rmpp.h).
 *
 * Counting follows Linux mad_rmpp.c: segments are numbered from 1; `sent`
 * is the highest segment handed out since the last rewind, `last_ack` the
 * highest one acknowledged, `newwin` the receiver's NewWindowLast (1 until
 * the first ACK). next() hands out segments up to min(newwin, nseg); a
 * timeout rewinds `sent` to `last_ack`, so the window is sent again from
 * last_ack + 1. Every DATA segment restarts the ACK timer, and so does an
 * ACK that acknowledges something new.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ibsm/sa_wire.h"
#include "mad/rmpp.h"

/* Everything after the RMPP header counts as payload: 256 - 36. */
#define SEG_PAYLOAD (RMPP_SEG_SIZE - RMPP_HDR_END)

int rmpp_hdr_decode(const uint8_t *mad, size_t len, struct rmpp_hdr *out)
{
	struct rmpp_hdr_wire w;

	if (!mad || len < RMPP_HDR_END)
		return -EINVAL;
	memcpy(&w, mad + RMPP_HDR_OFF, sizeof(w));
	out->version = w.version;
	out->type = w.type;
	out->resp_time = w.rtime_flags >> 3;
	out->flags = w.rtime_flags & 7;
	out->status = w.status;
	out->seg_num = be32toh(w.data1);
	out->paylen_newwin = be32toh(w.data2);
	return 0;
}

int rmpp_hdr_encode(const struct rmpp_hdr *in, uint8_t *mad, size_t len)
{
	struct rmpp_hdr_wire w;

	if (!mad || len < RMPP_HDR_END)
		return -EINVAL;
	w.version = in->version;
	w.type = in->type;
	w.rtime_flags = (uint8_t)(((in->resp_time & 0x1F) << 3) | (in->flags & 7));
	w.status = in->status;
	w.data1 = htobe32(in->seg_num);
	w.data2 = htobe32(in->paylen_newwin);
	memcpy(mad + RMPP_HDR_OFF, &w, sizeof(w));
	return 0;
}

int rmpp_is_control(const uint8_t *mad, size_t len)
{
	uint8_t type;

	if (!mad || len < RMPP_HDR_END || !(mad[RMPP_HDR_OFF + 2] & RMPP_FLAG_ACTIVE))
		return 0;
	type = mad[RMPP_HDR_OFF + 1];
	return type == RMPP_TYPE_ACK || type == RMPP_TYPE_STOP || type == RMPP_TYPE_ABORT;
}

/* Data bytes per segment for this class header. */
static uint32_t seg_data(const struct rmpp_sender *s)
{
	return RMPP_SEG_SIZE - s->hdr_len;
}

int rmpp_sender_start(struct rmpp_sender *s, const uint8_t *msg, size_t len,
		      const struct rmpp_opts *o)
{
	size_t data_len, per;

	if (!s || !msg || !o || o->hdr_len < RMPP_HDR_END || o->hdr_len >= RMPP_SEG_SIZE ||
	    len < o->hdr_len)
		return -EINVAL;
	if (len > RMPP_MAX_MSG)
		return -EMSGSIZE;
	memset(s, 0, sizeof(*s));
	s->msg = msg;
	s->len = len;
	s->hdr_len = o->hdr_len;
	data_len = len - o->hdr_len;
	per = seg_data(s);
	s->nseg = (uint32_t)((data_len + per - 1) / per);
	if (s->nseg == 0)
		s->nseg = 1;        /* an empty table still takes one segment */
	s->pad = (uint32_t)(s->nseg * per - data_len);
	s->newwin = 1;
	s->timeout_ms = o->timeout_ms ? o->timeout_ms : RMPP_DEF_TIMEOUT_MS;
	s->retries = s->retries_left = o->retries;
	s->deadline = UINT64_MAX;
	s->state = RMPP_SENDING;
	return 0;
}

/* PayloadLength as Linux send_next_seg() sets it: the whole message in the
 * first segment, what the last one holds in the last, 0 in between. */
static uint32_t paylen(const struct rmpp_sender *s, uint32_t seg)
{
	if (seg == s->nseg)
		return SEG_PAYLOAD - s->pad;
	if (seg == 1)
		return s->nseg * SEG_PAYLOAD - s->pad;
	return 0;
}

static void put_rmpp(const struct rmpp_sender *s, uint8_t *out, uint8_t type, uint8_t flags,
		     uint8_t status, uint32_t d1, uint32_t d2)
{
	struct rmpp_hdr h = {
		.version = RMPP_VERSION,
		.type = type,
		/* RRespTime as the caller left it in its header */
		.resp_time = s->msg[RMPP_HDR_OFF + 2] >> 3,
		.flags = flags,
		.status = status,
		.seg_num = d1,
		.paylen_newwin = d2,
	};

	rmpp_hdr_encode(&h, out, RMPP_SEG_SIZE);
}

/* The class header around the RMPP header, then zeroes. */
static void put_headers(const struct rmpp_sender *s, uint8_t *out)
{
	memset(out, 0, RMPP_SEG_SIZE);
	memcpy(out, s->msg, RMPP_HDR_OFF);
	memcpy(out + RMPP_HDR_END, s->msg + RMPP_HDR_END, s->hdr_len - RMPP_HDR_END);
}

static void build_data(const struct rmpp_sender *s, uint32_t seg, uint8_t *out)
{
	size_t off = s->hdr_len + (size_t)(seg - 1) * seg_data(s);
	size_t n = s->len - off < seg_data(s) ? s->len - off : seg_data(s);
	uint8_t flags = RMPP_FLAG_ACTIVE;

	if (seg == 1)
		flags |= RMPP_FLAG_FIRST;
	if (seg == s->nseg)
		flags |= RMPP_FLAG_LAST;
	put_headers(s, out);
	put_rmpp(s, out, RMPP_TYPE_DATA, flags, 0, seg, paylen(s, seg));
	memcpy(out + s->hdr_len, s->msg + off, n);
}

/* ABORT in the transfer's own header (Linux nack_recv: the ACK's method
 * with the response bit flipped back, i.e. our DATA method). */
static void build_abort(const struct rmpp_sender *s, uint8_t *out)
{
	put_headers(s, out);
	put_rmpp(s, out, RMPP_TYPE_ABORT, RMPP_FLAG_ACTIVE, s->abort_status, 0, 0);
}

static uint32_t send_limit(const struct rmpp_sender *s)
{
	uint32_t lim = s->newwin < s->nseg ? s->newwin : s->nseg;

	/* After a timeout Linux resends last_ack + 1 even when the window
	 * ends there (ib_retry_rmpp), so a receiver that granted nothing more
	 * is probed instead of waited on forever. */
	if (s->probe && lim <= s->last_ack)
		lim = s->last_ack + 1;
	return lim;
}

int rmpp_sender_next(struct rmpp_sender *s, uint64_t now, uint8_t *out, size_t cap)
{
	if (!out || cap < RMPP_SEG_SIZE)
		return -EINVAL;
	if (s->abort_pending) {
		build_abort(s, out);
		s->abort_pending = 0;
		return 1;
	}
	if (s->state != RMPP_SENDING || s->sent >= send_limit(s))
		return 0;
	build_data(s, ++s->sent, out);
	s->probe = 0;
	s->segs_sent++;
	s->deadline = now + s->timeout_ms;
	return 1;
}

static void finish(struct rmpp_sender *s, enum rmpp_state st, uint8_t status)
{
	s->state = st;
	s->status = status;
	s->deadline = UINT64_MAX;
}

/* Abort and tell the receiver why. */
static void abort_with(struct rmpp_sender *s, uint8_t status)
{
	finish(s, RMPP_ABORTED, status);
	s->abort_pending = 1;
	s->abort_status = status;
}

/* Linux process_rmpp_ack(): the same checks in the same order. */
static void on_ack(struct rmpp_sender *s, const struct rmpp_hdr *h, uint64_t now)
{
	uint32_t seg = h->seg_num, nw = h->paylen_newwin;

	if (h->status) {
		abort_with(s, RMPP_STATUS_BAD_STATUS);
		return;
	}
	if (nw < seg) {
		abort_with(s, RMPP_STATUS_W2S);
		return;
	}
	if (seg > s->nseg || seg > s->newwin) {
		abort_with(s, RMPP_STATUS_S2B);
		return;
	}
	if (nw < s->newwin || seg < s->last_ack || (seg == s->last_ack && nw == s->newwin)) {
		s->ignored++;       /* stale, or a repeat of the last one */
		return;
	}
	if (seg > s->last_ack) {
		s->last_ack = seg;
		s->retries_left = s->retries;
		s->deadline = now + s->timeout_ms;
		/* the rewind point moves with it */
		if (s->sent < seg)
			s->sent = seg;
	}
	s->acks++;
	s->newwin = nw;
	if (s->last_ack == s->nseg)
		finish(s, RMPP_DONE, RMPP_STATUS_OK);
}

int rmpp_sender_on_mad(struct rmpp_sender *s, const uint8_t *mad, size_t len, uint64_t now)
{
	struct rmpp_hdr h;

	if (rmpp_hdr_decode(mad, len, &h) < 0 || !(h.flags & RMPP_FLAG_ACTIVE) ||
	    h.type == RMPP_TYPE_DATA)
		return -EINVAL;
	if (s->state != RMPP_SENDING) {
		s->ignored++;
		return 0;
	}
	if (h.version != RMPP_VERSION) {
		abort_with(s, RMPP_STATUS_UNV);
		return 0;
	}
	switch (h.type) {
	case RMPP_TYPE_ACK:
		on_ack(s, &h, now);
		break;
	case RMPP_TYPE_STOP:
		/* Linux process_rmpp_stop(): only "resources exhausted" is a STOP */
		if (h.status == RMPP_STATUS_RESX)
			finish(s, RMPP_STOPPED, h.status);
		else
			abort_with(s, RMPP_STATUS_BAD_STATUS);
		break;
	case RMPP_TYPE_ABORT:
		if (h.status >= RMPP_STATUS_ABORT_MIN && h.status <= RMPP_STATUS_ABORT_MAX)
			finish(s, RMPP_ABORTED, h.status);
		else
			abort_with(s, RMPP_STATUS_BAD_STATUS);
		break;
	default:
		abort_with(s, RMPP_STATUS_BADT);
		break;
	}
	return 0;
}

void rmpp_sender_on_timer(struct rmpp_sender *s, uint64_t now)
{
	if (s->state != RMPP_SENDING || now < s->deadline)
		return;
	if (s->retries_left == 0) {
		abort_with(s, RMPP_STATUS_TMR);
		return;
	}
	s->retries_left--;
	s->resends++;
	s->sent = s->last_ack;
	s->probe = 1;
	/* next() restarts the timer with the first segment it resends */
	s->deadline = UINT64_MAX;
}

uint64_t rmpp_sender_deadline(const struct rmpp_sender *s)
{
	return s->state == RMPP_SENDING ? s->deadline : UINT64_MAX;
}

int rmpp_sender_finished(const struct rmpp_sender *s)
{
	return s->state != RMPP_SENDING && !s->abort_pending;
}
