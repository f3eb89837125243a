/*
 * DOC: GMP requests of the engine (see mad/gmp.h).
 *
 * One FIFO of queued requests, a slot table for those on the wire and a
 * list of them in deadline order: every attempt has the same timeout, so a
 * new one goes at the tail and expiry looks only at the head.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/gmp.h"
#include "mad/smp.h"

#define SLOT_MASK 0xFFFFu
#define ATT_SHIFT 16
#define ATT_MASK 0xFu
#define GEN_SHIFT 20
#define GEN_MASK 0xFFFu
#define HDR_LEN 24

struct gmp {
	struct mad_gmp_req mr;
	mad_gmp_done_fn done;
	void *arg;
	struct gmp *next;               /* queue, or in-flight list */
	struct gmp *prev;               /* in-flight list */
	uint64_t deadline;
	uint32_t tid;
	unsigned attempts;
};

struct gmp_queue {
	struct mad_transport tp;
	struct mad_stats *st;
	unsigned window, timeout_ms, retries;
	struct gmp *qhead, *qtail;
	struct gmp *thead, *ttail;      /* on the wire, oldest deadline first */
	struct gmp *slots[GMP_MAX_WINDOW];
	uint16_t gen[GMP_MAX_WINDOW];
	unsigned free_slots[GMP_MAX_WINDOW];
	unsigned nfree;
	struct gmp *spare;              /* finished requests kept for reuse */
	unsigned nspare;
	bool quiet;                     /* gmp_quiesce() */
};

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p) {
		fputs("ibsmd: out of memory\n", stderr);
		abort();
	}
	return p;
}

/* A round of counter reads takes and frees a window's worth of requests
 * over and over: up to GMP_MAX_WINDOW finished ones are kept for reuse
 * instead of a calloc and a free for each. */
static struct gmp *req_new(struct gmp_queue *g)
{
	struct gmp *r = g->spare;

	if (!r)
		return xcalloc(1, sizeof(*r));
	g->spare = r->next;
	g->nspare--;
	memset(r, 0, sizeof(*r));
	return r;
}

static void req_free(struct gmp_queue *g, struct gmp *r)
{
	if (g->nspare >= GMP_MAX_WINDOW) {
		free(r);
		return;
	}
	r->next = g->spare;
	g->spare = r;
	g->nspare++;
}

struct gmp_queue *gmp_new(const struct mad_transport *tp, struct mad_stats *st)
{
	struct gmp_queue *g = xcalloc(1, sizeof(*g));

	g->tp = *tp;
	g->st = st;
	g->window = 16;
	g->timeout_ms = 200;
	for (unsigned i = 0; i < GMP_MAX_WINDOW; i++)
		g->free_slots[i] = GMP_MAX_WINDOW - 1 - i;
	g->nfree = GMP_MAX_WINDOW;
	return g;
}

void gmp_set_limits(struct gmp_queue *g, unsigned window, unsigned timeout_ms, unsigned retries)
{
	g->window = window == 0 ? 1 : window > GMP_MAX_WINDOW ? GMP_MAX_WINDOW : window;
	g->timeout_ms = timeout_ms ? timeout_ms : 200;
	/* the attempt number lives in 4 TID bits */
	g->retries = retries > ATT_MASK ? ATT_MASK : retries;
}

/* --- the in-flight list and slots --- */

static void tlist_append(struct gmp_queue *g, struct gmp *r)
{
	r->next = NULL;
	r->prev = g->ttail;
	if (g->ttail)
		g->ttail->next = r;
	else
		g->thead = r;
	g->ttail = r;
}

static void tlist_remove(struct gmp_queue *g, struct gmp *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		g->thead = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		g->ttail = r->prev;
	r->next = r->prev = NULL;
}

static void slot_take(struct gmp_queue *g, struct gmp *r)
{
	unsigned s;

	assert(g->nfree > 0);
	s = g->free_slots[--g->nfree];
	g->slots[s] = r;
	r->tid = ((uint32_t)g->gen[s] << GEN_SHIFT) | s;
}

static void slot_release(struct gmp_queue *g, struct gmp *r)
{
	unsigned s = r->tid & SLOT_MASK;

	g->slots[s] = NULL;
	g->gen[s] = (uint16_t)((g->gen[s] + 1) & GEN_MASK);
	g->free_slots[g->nfree++] = s;
}

/* The request a received TID (low 32 bits) belongs to, or NULL. */
static struct gmp *tid_lookup(const struct gmp_queue *g, uint32_t tid)
{
	unsigned s = tid & SLOT_MASK;
	struct gmp *r;

	if (s >= GMP_MAX_WINDOW)
		return NULL;
	r = g->slots[s];
	if (!r || (r->tid >> GEN_SHIFT) != (tid >> GEN_SHIFT))
		return NULL;
	return r;
}

/* --- sending and completing --- */

static void encode(const struct gmp *r, uint8_t *mad)
{
	const struct mad_gmp_req *m = &r->mr;

	memset(mad, 0, MAD_SIZE);
	mad[0] = 1;                     /* BaseVersion */
	mad[1] = m->mgmt_class;
	mad[2] = m->class_version;
	mad[3] = m->method;
	for (int i = 0; i < 4; i++)     /* TID: the kernel owns the high 32 bits */
		mad[12 + i] = (uint8_t)(r->tid >> (24 - 8 * i));
	mad[16] = (uint8_t)(m->attr_id >> 8);
	mad[17] = (uint8_t)m->attr_id;
	for (int i = 0; i < 4; i++)
		mad[20 + i] = (uint8_t)(m->attr_mod >> (24 - 8 * i));
	memcpy(mad + HDR_LEN, m->data, MAD_GMP_DATA_SIZE);
}

static int transmit(struct gmp_queue *g, struct gmp *r, uint64_t now)
{
	uint8_t mad[MAD_SIZE];
	struct mad_addr to = { .dlid = r->mr.dlid, .qpn = 1, .qkey = MAD_QKEY_GSI };

	encode(r, mad);
	if (g->tp.send(g->tp.ctx, mad, sizeof(mad), &to) < 0)
		return -1;
	g->st->gmp_sent++;
	r->attempts++;
	r->deadline = now + g->timeout_ms;
	tlist_append(g, r);
	return 0;
}

/* r is off every list and holds a slot: free both, then complete it. */
static void finish(struct gmp_queue *g, struct gmp *r, int err, const uint8_t *mad, size_t len)
{
	slot_release(g, r);
	g->st->gmp_outstanding--;
	if (err == MAD_OK)
		g->st->gmp_completed++;
	else
		g->st->gmp_failed++;
	r->done(r->arg, err, mad, len);
	req_free(g, r);
}

void gmp_pump(struct gmp_queue *g, uint64_t now)
{
	while (!g->quiet && g->qhead && g->st->gmp_outstanding < g->window) {
		struct gmp *r = g->qhead;

		g->qhead = r->next;
		if (!g->qhead)
			g->qtail = NULL;
		g->st->gmp_queued--;
		g->st->gmp_outstanding++;
		slot_take(g, r);
		if (transmit(g, r, now) < 0)
			finish(g, r, MAD_ERR_SEND, NULL, 0);
	}
}

int gmp_submit(struct gmp_queue *g, const struct mad_gmp_req *req, mad_gmp_done_fn done,
	       void *arg)
{
	struct gmp *r = req_new(g);

	r->mr = *req;
	r->done = done;
	r->arg = arg;
	if (g->qtail)
		g->qtail->next = r;
	else
		g->qhead = r;
	g->qtail = r;
	g->st->gmp_queued++;
	return 0;
}

/* An attempt failed: send it again, or complete it failed. */
static void attempt_failed(struct gmp_queue *g, struct gmp *r, uint64_t now)
{
	tlist_remove(g, r);
	g->st->gmp_timeouts++;
	if (r->attempts > g->retries || g->quiet) {
		finish(g, r, MAD_ERR_TIMEOUT, NULL, 0);
		return;
	}
	r->tid = (r->tid & ~(ATT_MASK << ATT_SHIFT)) | ((r->attempts & ATT_MASK) << ATT_SHIFT);
	g->st->gmp_retries++;
	if (transmit(g, r, now) < 0)
		finish(g, r, MAD_ERR_SEND, NULL, 0);
}

void gmp_on_timer(struct gmp_queue *g, uint64_t now)
{
	/* a retried attempt goes to the tail with a later deadline */
	while (g->thead && g->thead->deadline <= now)
		attempt_failed(g, g->thead, now);
}

/* --- receiving --- */

static uint32_t mad_tid32(const uint8_t *mad)
{
	return (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 | (uint32_t)mad[14] << 8 | mad[15];
}

static uint16_t mad_attr(const uint8_t *mad)
{
	return (uint16_t)(mad[16] << 8 | mad[17]);
}

/* A response to r: a whole MAD, version 1, r's class and attribute,
 * GetResp. */
static bool resp_valid(const struct gmp *r, const uint8_t *mad, size_t len)
{
	return len >= MAD_SIZE && mad[0] == 1 && mad[1] == r->mr.mgmt_class &&
	       mad[3] == MAD_METHOD_GET_RESP && mad_attr(mad) == r->mr.attr_id;
}

static void on_response(struct gmp_queue *g, const uint8_t *mad, size_t len)
{
	struct gmp *r = tid_lookup(g, mad_tid32(mad));
	uint16_t status;

	if (!r || !resp_valid(r, mad, len)) {
		g->st->gmp_dropped++;
		g->st->dropped++;
		return;
	}
	tlist_remove(g, r);
	status = (uint16_t)(mad[4] << 8 | mad[5]);
	finish(g, r, status ? MAD_ERR_STATUS : MAD_OK, mad, MAD_SIZE);
}

/* Our own send, returned failed: only the exact attempt counts. */
static void on_returned(struct gmp_queue *g, const uint8_t *mad, size_t len, uint64_t now)
{
	struct gmp *r = len >= HDR_LEN ? tid_lookup(g, mad_tid32(mad)) : NULL;

	if (!r || r->tid != mad_tid32(mad) || mad_attr(mad) != r->mr.attr_id) {
		g->st->gmp_dropped++;
		g->st->dropped++;
		return;
	}
	attempt_failed(g, r, now);
}

void gmp_on_mad(struct gmp_queue *g, const uint8_t *buf, size_t len, int status, uint64_t now)
{
	if (status)
		on_returned(g, buf, len, now);
	else if (len >= HDR_LEN && (buf[3] & 0x80))
		on_response(g, buf, len);
	else {
		/* a request to us: we serve no GMP class */
		g->st->gmp_dropped++;
		g->st->dropped++;
	}
}

uint64_t gmp_next_deadline(const struct gmp_queue *g)
{
	return g->thead ? g->thead->deadline : UINT64_MAX;
}

bool gmp_idle(const struct gmp_queue *g)
{
	return !g->qhead && !g->thead;
}

void gmp_quiesce(struct gmp_queue *g)
{
	g->quiet = true;
}

bool gmp_awaiting(const struct gmp_queue *g)
{
	return g->thead != NULL;
}

void gmp_free(struct gmp_queue *g)
{
	if (!g)
		return;
	while (g->thead) {
		struct gmp *r = g->thead;

		tlist_remove(g, r);
		finish(g, r, MAD_ERR_CANCELED, NULL, 0);
	}
	while (g->qhead) {
		struct gmp *r = g->qhead;

		g->qhead = r->next;
		g->st->gmp_queued--;
		g->st->gmp_failed++;
		r->done(r->arg, MAD_ERR_CANCELED, NULL, 0);
		free(r);
	}
	while (g->spare) {
		struct gmp *r = g->spare;

		g->spare = r->next;
		free(r);
	}
	free(g);
}
