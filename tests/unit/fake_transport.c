/*
 * DOC: the in-memory MAD transport used by the engine tests and the fuzzer.
 *
 * Growable arrays, no limits beyond memory; the receive queue is a FIFO that
 * the engine drains through recv().
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/rmpp.h"
#include "mad/smp.h"
#include "tests/unit/fake_transport.h"

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * elem);
	if (!p)
		abort();
	return p;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t len)
{
	uint8_t *d = malloc(len);

	if (!d)
		abort();
	memcpy(d, p, len);
	return d;
}

static int ft_send(void *ctx, const uint8_t *mad, size_t len, const struct mad_addr *to)
{
	struct fake_tp *ft = ctx;
	struct fake_mad *m;

	if (ft->fail_sends) {
		ft->fail_sends--;
		return ft->send_err ? ft->send_err : -5;
	}
	ft->sent = grow(ft->sent, &ft->sent_cap, ft->nsent + 1, sizeof(*ft->sent));
	m = &ft->sent[ft->nsent++];
	memset(m, 0, sizeof(*m));
	memcpy(m->buf, mad, len > MAD_SIZE ? MAD_SIZE : len);
	m->len = len;
	m->addr = *to;
	if (len > MAD_SIZE)
		m->big = dup_bytes(mad, len);
	return 0;
}

static int ft_recv(void *ctx, uint8_t *buf, size_t cap, int *status, struct mad_addr *from)
{
	struct fake_tp *ft = ctx;
	struct fake_mad *m;
	size_t n;

	if (ft->rx_head == ft->nrx) {
		ft->rx_head = ft->nrx = 0;
		return 0;
	}
	m = &ft->rx[ft->rx_head++];
	n = m->len;
	if (n <= cap) {
		memcpy(buf, m->big ? m->big : m->buf, n);
		*status = m->status;
		*from = m->addr;
	}
	free(m->big);
	m->big = NULL;
	/* too long: read and dropped, as umad.c does */
	return n <= cap ? (int)n : -EMSGSIZE;
}

static int ft_fd(void *ctx)
{
	return -1;
}

static void ft_close(void *ctx)
{
}

void fake_tp_init(struct fake_tp *ft, struct mad_transport *tp)
{
	memset(ft, 0, sizeof(*ft));
	ft->now = 1000;
	tp->ctx = ft;
	tp->send = ft_send;
	tp->recv = ft_recv;
	tp->fd = ft_fd;
	tp->close = ft_close;
	tp->flags = 0;          /* kernel-RMPP style; tests set MAD_TP_USER_RMPP */
}

void fake_tp_fini(struct fake_tp *ft)
{
	for (size_t i = 0; i < ft->nsent; i++)
		free(ft->sent[i].big);
	for (size_t i = 0; i < ft->nrx; i++)
		free(ft->rx[i].big);
	free(ft->sent);
	free(ft->rx);
	memset(ft, 0, sizeof(*ft));
}

uint64_t fake_tp_now(void *arg)
{
	const struct fake_tp *ft = arg;

	return ft->now;
}

void fake_tp_inject(struct fake_tp *ft, const uint8_t *mad, size_t len, int status,
		    const struct mad_addr *from)
{
	struct fake_mad *m;

	ft->rx = grow(ft->rx, &ft->rx_cap, ft->nrx + 1, sizeof(*ft->rx));
	m = &ft->rx[ft->nrx++];
	memset(m, 0, sizeof(*m));
	memcpy(m->buf, mad, len > MAD_SIZE ? MAD_SIZE : len);
	m->len = len > MAD_SIZE ? MAD_SIZE : len;
	m->status = status;
	if (from)
		m->addr = *from;
}

void fake_tp_return_send(struct fake_tp *ft, size_t i, int status)
{
	fake_tp_inject(ft, ft->sent[i].buf, ft->sent[i].len, status, &ft->sent[i].addr);
}

void fake_tp_make_resp(const uint8_t *req, uint8_t *resp, uint16_t mad_status)
{
	struct smp s;

	if (smp_decode(req, MAD_SIZE, &s) < 0) {
		memset(resp, 0, MAD_SIZE);
		return;
	}
	s.hdr.method = s.hdr.method == MAD_METHOD_TRAP ? MAD_METHOD_TRAP_REPRESS
						      : MAD_METHOD_GET_RESP;
	s.hdr.status = mad_status;
	if (s.hdr.mgmt_class == MAD_CLASS_SMI_DR) {
		/* What the requester sees once the return trip is over. */
		s.hdr.d_bit = 1;
		s.hdr.hop_ptr = 0;
		for (unsigned h = 1; h <= s.hdr.hop_cnt; h++)
			s.return_path[h] = (uint8_t)(h + 100);
	}
	smp_encode(&s, resp, MAD_SIZE);
}

void fake_tp_respond(struct fake_tp *ft, size_t i, uint16_t mad_status)
{
	uint8_t resp[MAD_SIZE];
	struct mad_addr from = { .dlid = ft->sent[i].addr.dlid };

	fake_tp_make_resp(ft->sent[i].buf, resp, mad_status);
	fake_tp_inject(ft, resp, sizeof(resp), 0, &from);
}

void fake_tp_inject_long(struct fake_tp *ft, const uint8_t *msg, size_t len, int status,
			 const struct mad_addr *from)
{
	struct fake_mad *m;

	fake_tp_inject(ft, msg, len, status, from);
	m = &ft->rx[ft->nrx - 1];
	m->len = len;
	if (len > MAD_SIZE)
		m->big = dup_bytes(msg, len);
}

const uint8_t *fake_tp_sent_data(const struct fake_tp *ft, size_t i)
{
	return ft->sent[i].big ? ft->sent[i].big : ft->sent[i].buf;
}

/* --- RMPP receiver --- */

void fake_rmpp_rx_init(struct fake_rmpp_rx *rx, unsigned win_step)
{
	memset(rx, 0, sizeof(*rx));
	rx->win_step = win_step ? win_step : 1;
	rx->expected = 1;
	rx->newwin = 1;
	rx->hdr_len = 56;
}

void fake_rmpp_rx_fini(struct fake_rmpp_rx *rx)
{
	free(rx->data);
	memset(rx, 0, sizeof(*rx));
}

void fake_rmpp_make(const uint8_t *seg, uint8_t *out, uint8_t type, uint8_t status, uint32_t d1,
		    uint32_t d2)
{
	struct rmpp_hdr h = { .version = RMPP_VERSION, .type = type, .resp_time = 0,
			      .flags = RMPP_FLAG_ACTIVE, .status = status,
			      .seg_num = d1, .paylen_newwin = d2 };

	memset(out, 0, MAD_SIZE);
	memcpy(out, seg, 56);
	out[3] ^= 0x80;
	rmpp_hdr_encode(&h, out, MAD_SIZE);
}

static void rx_store(struct fake_rmpp_rx *rx, const uint8_t *seg, const struct rmpp_hdr *h)
{
	size_t per = MAD_SIZE - rx->hdr_len;

	rx->data = realloc(rx->data, (size_t)h->seg_num * per);
	if (!rx->data)
		abort();
	memcpy(rx->data + (size_t)(h->seg_num - 1) * per, seg + rx->hdr_len, per);
	if (h->seg_num == 1)
		rx->paylen_first = h->paylen_newwin;
	if (h->flags & RMPP_FLAG_LAST) {
		/* Linux get_mad_len(): the length comes from the last segment */
		rx->paylen_last = h->paylen_newwin;
		rx->nseg = h->seg_num;
		rx->len = (size_t)(h->seg_num - 1) * per + h->paylen_newwin - (rx->hdr_len - 36);
		rx->done = 1;
	}
	rx->expected++;
}

static int rx_ack(struct fake_rmpp_rx *rx, const uint8_t *seg, uint32_t n, uint8_t *ack)
{
	if (rx->newwin < n)
		rx->newwin = n;
	rx->acked = n;
	fake_rmpp_make(seg, ack, RMPP_TYPE_ACK, 0, n, rx->newwin);
	rx->acks++;
	return 1;
}

/* As Linux mad_rmpp.c does it, simplified: in-order segments are kept, an
 * ACK goes out at the window's end (granting win_step more) and at the
 * last segment; a resent segment already acknowledged is answered with the
 * last ACK again; gaps and anything else are dropped. */
int fake_rmpp_rx_take(struct fake_rmpp_rx *rx, const uint8_t *seg, size_t len, uint8_t *ack)
{
	struct rmpp_hdr h;

	if (rmpp_hdr_decode(seg, len, &h) < 0 || h.type != RMPP_TYPE_DATA ||
	    !(h.flags & RMPP_FLAG_ACTIVE) || len < MAD_SIZE)
		return 0;
	if (h.seg_num == rx->drop_seg && !rx->dropped) {
		rx->dropped = 1;
		return 0;
	}
	if (h.seg_num < rx->expected)
		return h.seg_num <= rx->acked ? rx_ack(rx, seg, rx->acked, ack) : 0;
	if (h.seg_num > rx->expected || rx->done)
		return 0;
	rx_store(rx, seg, &h);
	if (rx->done)
		return rx_ack(rx, seg, h.seg_num, ack);
	if (h.seg_num == rx->newwin) {
		rx->newwin += rx->win_step;
		return rx_ack(rx, seg, h.seg_num, ack);
	}
	return 0;
}

unsigned fake_tp_rmpp_receive(struct fake_tp *ft, struct fake_rmpp_rx *rx, size_t *next,
			      const struct mad_addr *from)
{
	uint8_t ack[MAD_SIZE];
	unsigned n = 0;

	for (; *next < ft->nsent; (*next)++) {
		const struct fake_mad *m = &ft->sent[*next];

		if (fake_rmpp_rx_take(rx, m->buf, m->len, ack)) {
			fake_tp_inject(ft, ack, sizeof(ack), 0, from);
			n++;
		}
	}
	return n;
}
