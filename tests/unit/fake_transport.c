/*
 * DOC: the in-memory MAD transport used by the engine tests and the fuzzer.
 *
 * Growable arrays, no limits beyond memory; the receive queue is a FIFO that
 * the engine drains through recv().
 */
#include <stdlib.h>
#include <string.h>

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
	n = m->len < cap ? m->len : cap;
	memcpy(buf, m->buf, n);
	*status = m->status;
	*from = m->addr;
	return (int)n;
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
}

void fake_tp_fini(struct fake_tp *ft)
{
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
