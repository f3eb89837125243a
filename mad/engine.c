/*
 * DOC: the SMP transaction engine (see mad/engine.h for the contract).
 *
 * Requests wait in per-destination FIFOs; a destination with queued work and
 * fewer than per_dest SMPs on the wire sits on a ready list, and the pump
 * takes one request from the head destination and requeues it at the tail,
 * so one slow node holds at most per_dest window slots and never blocks the
 * others. Every step is O(1); destinations live in a chained hash table.
 *
 * An SMP on the wire owns a slot. Its TID's low 32 bits (the kernel may
 * rewrite the high 32) are [generation:12][attempt:4][slot:16]: a response
 * is matched by slot and generation, so an answer to any attempt of the
 * request counts, while anything for a slot that has since been freed and
 * reused (late, duplicate or stray responses) is dropped. A failed send
 * returned by the transport must also match the attempt, so a kernel
 * timeout that races with our own timer is not counted twice.
 *
 * The in-flight list is kept in deadline order, so expiry looks only at its
 * head. Attempts share one timeout, so a new one goes at the tail; only
 * after a reload shortened the timeout does it pass a few older ones.
 *
 * A request pausing before a backoff retry gives its slot back and waits on
 * the delayed list (by due time); when due it goes back to the head of its
 * destination's queue. It keeps its place in the destination's cap.
 *
 * GSI MADs bypass all of that: received ones go to the gsi hook, sent ones
 * straight to the transport. Only RMPP sends done in user space keep state:
 * a short list of sessions (at most rmpp_max_sessions, so lookups scan it),
 * each owning a copy of its message and an rmpp_sender.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "mad/engine.h"
#include "mad/gmp.h"
#include "mad/pma.h"
#include "mad/rmpp.h"
#include "mad/sa.h"
#include "mad/smp.h"

#define SLOT_BITS 16
#define ATT_BITS 4
#define GEN_BITS 12
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define ATT_SHIFT SLOT_BITS
#define ATT_MASK ((1u << ATT_BITS) - 1)
#define GEN_SHIFT (SLOT_BITS + ATT_BITS)
#define GEN_MASK ((1u << GEN_BITS) - 1)
#define MAX_WINDOW SLOT_MASK
#define SLOTS_MIN 1024        /* slots made at start, whatever the window */

#define STATUS_BUSY 0x0001   /* IBA 13.4.7: bit 0 of MAD status */
#define MAD_HDR_LEN 24

struct dest;

struct req {
	struct mad_req mr;
	mad_done_fn done;
	void *arg;
	struct dest *dest;
	struct req *qnext;              /* destination FIFO */
	struct req *tprev, *tnext;      /* in-flight list, by deadline */
	struct req *dnext;              /* delayed list, by due time */
	int on_tlist;
	uint64_t deadline;
	uint32_t tid;                   /* low 32 bits as sent */
	unsigned attempts;              /* attempts started */
};

struct dest {
	uint64_t key;
	struct dest *hnext;             /* hash chain */
	struct dest *rnext;             /* ready list */
	struct req *qhead, *qtail;
	unsigned inflight;
	unsigned delayed;               /* requests of ours pausing */
	unsigned failed_in_row;         /* requests that failed every attempt */
	int on_ready;
};

/* An RMPP send of ours in progress (MAD_TP_USER_RMPP transports). */
struct rmpp_sess {
	struct rmpp_sess *prev, *next;
	uint64_t tid;
	uint8_t mgmt_class;
	struct mad_addr to;
	struct rmpp_sender tx;
	size_t len;
	uint8_t msg[];                  /* our copy of the message */
};

struct mad_engine {
	struct mad_transport tp;
	struct mad_engine_opts o;
	struct mad_stats st;
	/* slots */
	struct req **slots;
	uint16_t *gen;
	unsigned *free_slots;
	unsigned nfree, nslots;
	/* in flight, oldest deadline first */
	struct req *thead, *ttail;
	/* pausing before a retry, earliest due first */
	struct req *dhead;
	/* destinations */
	struct dest **buckets;
	size_t nbuckets, ndests;
	struct dest *rhead, *rtail;
	int pumping;
	int rx_batch;                   /* reading a batch: slots refilled after it */
	int closing;
	int quiet;                      /* mad_engine_quiesce(): nothing new goes out */
	unsigned depth;                 /* callbacks running */
	uint8_t *rxbuf;                 /* MAD_RECV_MAX */
	struct rmpp_sess *sessions;
	/* requests done with, kept for the next ones: a bring-up submits
	 * thousands at once, more than the allocator keeps at hand */
	struct req *spare;
	unsigned nspare;
	struct gmp_queue *gmp;          /* GMP requests (mad/gmp.h) */
};

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		fputs("ibsmd: out of memory\n", stderr);
		abort();
	}
	return p;
}

#define SPARE_MAX 4096

static struct req *req_new(struct mad_engine *e)
{
	struct req *r = e->spare;

	if (!r)
		return xcalloc(1, sizeof(*r));
	e->spare = r->qnext;
	e->nspare--;
	memset(r, 0, sizeof(*r));
	return r;
}

static void req_free(struct mad_engine *e, struct req *r)
{
	if (e->nspare >= SPARE_MAX || e->closing) {
		free(r);
		return;
	}
	r->qnext = e->spare;
	e->spare = r;
	e->nspare++;
}

static uint64_t engine_now(const struct mad_engine *e)
{
	return e->o.now_ms ? e->o.now_ms(e->o.now_arg) : clock_ms();
}

void mad_engine_opts_default(struct mad_engine_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window = 64;
	o->per_dest = 4;
	o->timeout_ms = 200;
	o->retries = 3;
	o->backoff_ms = 1;
	o->backoff_max_ms = 50;
	o->queue_max = 1u << 20;
	o->rmpp_max_sessions = 64;
	o->rmpp_max_bytes = 16u << 20;
	o->rmpp_timeout_ms = RMPP_DEF_TIMEOUT_MS;
	o->rmpp_retries = RMPP_DEF_RETRIES;
	o->gmp_window = 16;
}

/* --- destinations --- */

static int is_dr(const struct mad_req *mr)
{
	return mr->mgmt_class == MAD_CLASS_SMI_DR;
}

/* LID-routed: the DLID; DR: FNV-1a of hop count and path, top bit clear so
 * the two kinds never collide. Two paths hashing alike merely share a cap. */
static uint64_t dest_key(const struct mad_req *mr)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (!is_dr(mr))
		return (1ull << 63) | mr->dlid;
	h = (h ^ mr->hop_cnt) * 0x100000001b3ull;
	for (unsigned i = 1; i <= mr->hop_cnt; i++)
		h = (h ^ mr->path[i]) * 0x100000001b3ull;
	return h & ~(1ull << 63);
}

static size_t bucket_of(const struct mad_engine *e, uint64_t key)
{
	uint64_t x = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(x >> 32) & (e->nbuckets - 1);
}

static void dest_rehash(struct mad_engine *e)
{
	size_t old_n = e->nbuckets;
	struct dest **old = e->buckets;

	e->nbuckets = old_n * 2;
	e->buckets = xcalloc(e->nbuckets, sizeof(*e->buckets));
	for (size_t i = 0; i < old_n; i++) {
		struct dest *d = old[i], *next;

		for (; d; d = next) {
			size_t b = bucket_of(e, d->key);

			next = d->hnext;
			d->hnext = e->buckets[b];
			e->buckets[b] = d;
		}
	}
	free(old);
}

static struct dest *dest_get(struct mad_engine *e, uint64_t key)
{
	size_t b = bucket_of(e, key);
	struct dest *d;

	for (d = e->buckets[b]; d; d = d->hnext)
		if (d->key == key)
			return d;
	d = xcalloc(1, sizeof(*d));
	d->key = key;
	d->hnext = e->buckets[b];
	e->buckets[b] = d;
	if (++e->ndests > e->nbuckets)
		dest_rehash(e);
	return d;
}

static void dest_remove(struct mad_engine *e, struct dest *d)
{
	struct dest **pp = &e->buckets[bucket_of(e, d->key)];

	while (*pp != d)
		pp = &(*pp)->hnext;
	*pp = d->hnext;
	e->ndests--;
	free(d);
}

static void ready_push(struct mad_engine *e, struct dest *d)
{
	d->on_ready = 1;
	d->rnext = NULL;
	if (e->rtail)
		e->rtail->rnext = d;
	else
		e->rhead = d;
	e->rtail = d;
}

static struct dest *ready_pop(struct mad_engine *e)
{
	struct dest *d = e->rhead;

	e->rhead = d->rnext;
	if (!e->rhead)
		e->rtail = NULL;
	d->on_ready = 0;
	return d;
}

/* Put d on the ready list when it can send, free it when it has nothing. */
static void dest_update(struct mad_engine *e, struct dest *d)
{
	if (d->on_ready)
		return;
	if (d->qhead && d->inflight < e->o.per_dest)
		ready_push(e, d);
	else if (!d->qhead && d->inflight == 0 && d->delayed == 0)
		dest_remove(e, d);
}

/* --- in-flight list --- */

/* Deadlines grow with the send time, so r goes at the tail; only after a
 * reload shortened the timeout does it pass a few older attempts. */
static void tlist_append(struct mad_engine *e, struct req *r)
{
	struct req *after = e->ttail;

	while (after && after->deadline > r->deadline)
		after = after->tprev;
	r->tprev = after;
	r->tnext = after ? after->tnext : e->thead;
	if (r->tnext)
		r->tnext->tprev = r;
	else
		e->ttail = r;
	if (after)
		after->tnext = r;
	else
		e->thead = r;
	r->on_tlist = 1;
}

static void tlist_remove(struct mad_engine *e, struct req *r)
{
	if (!r->on_tlist)
		return;
	if (r->tprev)
		r->tprev->tnext = r->tnext;
	else
		e->thead = r->tnext;
	if (r->tnext)
		r->tnext->tprev = r->tprev;
	else
		e->ttail = r->tprev;
	r->on_tlist = 0;
}

/* --- slots and TIDs --- */

static unsigned tid_slot(uint32_t tid)
{
	return tid & SLOT_MASK;
}

static unsigned tid_gen(uint32_t tid)
{
	return tid >> GEN_SHIFT;
}

static void slot_take(struct mad_engine *e, struct req *r)
{
	unsigned s;

	assert(e->nfree > 0);
	s = e->free_slots[--e->nfree];
	e->slots[s] = r;
	r->tid = ((uint32_t)e->gen[s] << GEN_SHIFT) | s;
}

static void slot_release(struct mad_engine *e, struct req *r)
{
	unsigned s = tid_slot(r->tid);

	e->slots[s] = NULL;
	e->gen[s] = (uint16_t)((e->gen[s] + 1) & GEN_MASK);
	e->free_slots[e->nfree++] = s;
}

/* The request a received TID belongs to, or NULL for stale or stray ones. */
static struct req *tid_lookup(const struct mad_engine *e, uint64_t tid64)
{
	uint32_t tid = (uint32_t)tid64;
	struct req *r;

	if (tid_slot(tid) >= e->nslots)
		return NULL;
	r = e->slots[tid_slot(tid)];
	if (!r || tid_gen(r->tid) != tid_gen(tid))
		return NULL;
	return r;
}

/* --- sending --- */

static void req_to_smp(const struct req *r, struct smp *s)
{
	const struct mad_req *mr = &r->mr;

	memset(s, 0, sizeof(*s));
	s->hdr.base_version = 1;
	s->hdr.mgmt_class = mr->mgmt_class;
	s->hdr.class_version = 1;
	s->hdr.method = mr->method;
	s->hdr.tid = r->tid;
	s->hdr.attr_id = mr->attr_id;
	s->hdr.attr_mod = mr->attr_mod;
	s->mkey = mr->mkey;
	memcpy(s->data, mr->data, SMP_DATA_SIZE);
	if (is_dr(mr)) {
		/* IBA 14.2.2: outgoing, hop pointer 0, both DR LIDs permissive so
		 * the whole route is directed. */
		s->hdr.hop_cnt = mr->hop_cnt;
		s->dr_slid = LID_PERMISSIVE;
		s->dr_dlid = LID_PERMISSIVE;
		memcpy(s->initial_path, mr->path, (size_t)mr->hop_cnt + 1);
	}
}

static bool is_smp_class(uint8_t mgmt_class)
{
	return mgmt_class == MAD_CLASS_SMI || mgmt_class == MAD_CLASS_SMI_DR;
}

/* May this MAD go? Only SMP Sets are asked about (engine.h set_gate). */
static bool gate_ok(struct mad_engine *e, uint8_t mgmt_class, uint8_t method, uint16_t attr_id)
{
	if (!e->o.set_gate || method != MAD_METHOD_SET || !is_smp_class(mgmt_class) ||
	    e->o.set_gate(e->o.set_gate_arg, mgmt_class, attr_id))
		return true;
	e->st.sets_refused++;
	return false;
}

/* Hand the current attempt of r to the transport and start its timer.
 * -1 when the transport failed, -2 when the gate refused it. */
static int transmit(struct mad_engine *e, struct req *r, uint64_t now)
{
	uint8_t buf[MAD_SIZE];
	struct mad_addr to = { 0 };
	struct smp s;

	if (!gate_ok(e, r->mr.mgmt_class, r->mr.method, r->mr.attr_id))
		return -2;
	req_to_smp(r, &s);
	smp_encode(&s, buf, sizeof(buf));
	to.dlid = is_dr(&r->mr) ? LID_PERMISSIVE : r->mr.dlid;
	if (e->tp.send(e->tp.ctx, buf, sizeof(buf), &to) < 0)
		return -1;
	e->st.sent++;
	r->attempts++;
	r->deadline = now + e->o.timeout_ms;
	tlist_append(e, r);
	return 0;
}

/* Remove r from the engine, then run its completion exactly once. */
static void finish(struct mad_engine *e, struct req *r, int err, const struct smp *resp)
{
	struct dest *d = r->dest;

	tlist_remove(e, r);
	slot_release(e, r);
	e->st.outstanding--;
	d->inflight--;
	dest_update(e, d);
	if (err == MAD_OK)
		e->st.completed++;
	else
		e->st.failed++;
	e->depth++;
	r->done(r->arg, err, resp);
	e->depth--;
	req_free(e, r);
}

/* Send queued requests while the window and the destination caps allow. A
 * completion run from here may submit: the nested pump returns at once and
 * this loop picks the new request up. */
static void pump(struct mad_engine *e)
{
	uint64_t now;
	int rc;

	if (e->pumping || e->closing || e->rx_batch || e->quiet)
		return;
	e->pumping = 1;
	now = engine_now(e);
	while (e->st.outstanding < e->o.window && e->rhead) {
		struct dest *d = ready_pop(e);
		struct req *r = d->qhead;

		if (d->inflight >= e->o.per_dest)
			continue; /* per_dest was lowered: back on the list when one ends */
		d->qhead = r->qnext;
		if (!d->qhead)
			d->qtail = NULL;
		e->st.queued--;
		slot_take(e, r);
		d->inflight++;
		if (++e->st.outstanding > e->st.max_outstanding)
			e->st.max_outstanding = e->st.outstanding;
		dest_update(e, d);
		rc = transmit(e, r, now);
		if (rc < 0)
			finish(e, r, rc == -2 ? MAD_ERR_REFUSED : MAD_ERR_SEND, NULL);
	}
	/* GMPs only while no SMP waits for the window (engine.h) */
	if (e->st.queued == 0) {
		e->depth++;
		gmp_pump(e->gmp, now);
		e->depth--;
	}
	e->pumping = 0;
}

/* Pause r before its next attempt: off the wire and out of the window, but
 * still counted against its destination's cap, so the destination's other
 * requests wait behind it (and learn from it whether the node is gone). */
static void delay(struct mad_engine *e, struct req *r, uint64_t now)
{
	unsigned k = r->attempts - e->o.retries - 1;
	uint64_t pause = k < 16 ? (uint64_t)e->o.backoff_ms << k : UINT64_MAX;
	struct req **pp = &e->dhead;

	if (pause > e->o.backoff_max_ms)
		pause = e->o.backoff_max_ms;
	r->deadline = now + pause;
	tlist_remove(e, r);
	slot_release(e, r);
	e->st.outstanding--;
	r->dest->delayed++;
	e->st.delayed++;
	while (*pp && (*pp)->deadline <= r->deadline)
		pp = &(*pp)->dnext;
	r->dnext = *pp;
	*pp = r;
	dest_update(e, r->dest);
}

/* Requests whose pause is over go back to the head of their queue. */
static void undelay_due(struct mad_engine *e, uint64_t now)
{
	while (e->dhead && e->dhead->deadline <= now) {
		struct req *r = e->dhead;
		struct dest *d = r->dest;

		e->dhead = r->dnext;
		r->qnext = d->qhead;
		d->qhead = r;
		if (!d->qtail)
			d->qtail = r;
		d->delayed--;
		d->inflight--;
		e->st.delayed--;
		e->st.queued++;
		e->st.backoffs++;
		dest_update(e, d);
	}
}

/* Immediate retries, then backoff ones while the destination is not
 * taken as gone; 0 when r has had all its attempts. */
static int may_retry(const struct mad_engine *e, const struct req *r)
{
	if (e->quiet)
		return 0;   /* stopping: a retry would go on the wire */
	if (r->attempts <= e->o.retries)
		return 1;
	if (r->mr.flags & MAD_REQ_NO_BACKOFF)
		return 0;
	return r->attempts <= e->o.retries_max && r->dest->failed_in_row < 2;
}

/* An attempt failed (timed out, send returned, busy): retry or give up. */
static void attempt_failed(struct mad_engine *e, struct req *r, int err, const struct smp *resp)
{
	uint64_t now = engine_now(e);
	int rc;

	if (!may_retry(e, r)) {
		if (err == MAD_ERR_TIMEOUT)
			r->dest->failed_in_row++;
		finish(e, r, err, resp);
		return;
	}
	if (r->attempts > e->o.retries) {
		delay(e, r, now);
		return;
	}
	tlist_remove(e, r);
	r->tid = (r->tid & ~(ATT_MASK << ATT_SHIFT)) |
		 ((r->attempts & ATT_MASK) << ATT_SHIFT);
	e->st.retries++;
	rc = transmit(e, r, now);
	if (rc < 0)
		finish(e, r, rc == -2 ? MAD_ERR_REFUSED : MAD_ERR_SEND, NULL);
}

/* --- GSI: addresses, sends, RMPP sessions --- */

/* The classes of GMP requests we send (mad/gmp.h). */
static bool is_gmp_class(uint8_t mgmt_class)
{
	return mgmt_class == MAD_CLASS_PERF;
}

/* The GSI classes the transport registers and we hand to the gsi hook. */
static int is_gsi_class(uint8_t mgmt_class)
{
	return mgmt_class == MAD_CLASS_SA;
}

/* Class header length before the data, for classes that use RMPP
 * (IBA 13.6: RMPP MADs carry the class header in every segment); 0 for
 * classes without RMPP. */
static unsigned rmpp_hdr_len(uint8_t mgmt_class)
{
	return mgmt_class == MAD_CLASS_SA ? SA_HDR_SIZE : 0;
}

void mad_addr_reply(const struct mad_addr *from, struct mad_addr *to)
{
	*to = *from;
	to->qkey = MAD_QKEY_GSI;
}

static uint64_t mad_tid(const uint8_t *mad)
{
	uint64_t tid = 0;

	for (int i = 8; i < 16; i++)
		tid = (tid << 8) | mad[i];
	return tid;
}

/* The session sending `tid` of `mgmt_class` to LID/QP `a`, or NULL. */
static struct rmpp_sess *sess_find(const struct mad_engine *e, uint64_t tid,
				   uint8_t mgmt_class, const struct mad_addr *a)
{
	for (struct rmpp_sess *s = e->sessions; s; s = s->next)
		if (s->tid == tid && s->mgmt_class == mgmt_class && s->to.dlid == a->dlid &&
		    s->to.qpn == a->qpn)
			return s;
	return NULL;
}

static void sess_end(struct mad_engine *e, struct rmpp_sess *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		e->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	e->st.rmpp_sessions--;
	e->st.rmpp_bytes -= s->len;
	if (s->tx.state == RMPP_DONE)
		e->st.rmpp_done++;
	else
		e->st.rmpp_failed++;
	free(s);
}

/* Send what the sender has due, then drop the session if it is over. A
 * refused segment stops the burst: the ACK timer resends it (Linux does the
 * same). Returns the first send error. */
static int sess_pump(struct mad_engine *e, struct rmpp_sess *s)
{
	uint8_t seg[RMPP_SEG_SIZE];
	uint64_t now = engine_now(e);
	int rc = 0;

	while (rmpp_sender_next(&s->tx, now, seg, sizeof(seg)) == 1) {
		rc = e->tp.send(e->tp.ctx, seg, sizeof(seg), &s->to);
		if (rc < 0)
			break;
		e->st.gsi_sent++;
	}
	if (rmpp_sender_finished(&s->tx))
		sess_end(e, s);
	return rc;
}

static void sess_timers(struct mad_engine *e, uint64_t now)
{
	struct rmpp_sess *s, *next;

	for (s = e->sessions; s; s = next) {
		next = s->next;
		if (rmpp_sender_deadline(&s->tx) <= now) {
			rmpp_sender_on_timer(&s->tx, now);
			sess_pump(e, s);
		}
	}
}

static int sess_start(struct mad_engine *e, const uint8_t *msg, size_t len,
		      const struct mad_addr *to)
{
	struct rmpp_opts ro = { .hdr_len = rmpp_hdr_len(msg[1]),
				.timeout_ms = e->o.rmpp_timeout_ms,
				.retries = e->o.rmpp_retries };
	uint8_t seg[RMPP_SEG_SIZE];
	struct rmpp_sess *s;
	int rc;

	if (sess_find(e, mad_tid(msg), msg[1], to))
		return -EALREADY;
	if (e->st.rmpp_sessions >= e->o.rmpp_max_sessions ||
	    len > e->o.rmpp_max_bytes - e->st.rmpp_bytes)
		return -ENOBUFS;
	s = xcalloc(1, sizeof(*s) + len);
	memcpy(s->msg, msg, len);
	s->len = len;
	s->tid = mad_tid(msg);
	s->mgmt_class = msg[1];
	s->to = *to;
	/* The first window is segment 1 alone: send it here, so that a refusal
	 * reaches the caller and leaves nothing behind. */
	rc = rmpp_sender_start(&s->tx, s->msg, len, &ro);
	if (rc == 0 && rmpp_sender_next(&s->tx, engine_now(e), seg, sizeof(seg)) == 1)
		rc = e->tp.send(e->tp.ctx, seg, sizeof(seg), to);
	if (rc < 0) {
		free(s);
		return rc;
	}
	e->st.gsi_sent++;
	s->next = e->sessions;
	if (s->next)
		s->next->prev = s;
	e->sessions = s;
	e->st.rmpp_sessions++;
	e->st.rmpp_bytes += len;
	return 0;
}

/* Is this GSI message to go out RMPP-active? Only RMPP classes have the
 * flag byte. */
static int gsi_is_rmpp(const uint8_t *msg, size_t len)
{
	return len > MAD_SIZE || (rmpp_hdr_len(msg[1]) && len >= RMPP_HDR_END &&
				  (msg[RMPP_HDR_OFF + 2] & RMPP_FLAG_ACTIVE));
}

static int send_kernel_rmpp(struct mad_engine *e, const uint8_t *msg, size_t len,
			    const struct mad_addr *to)
{
	uint8_t *copy = xcalloc(1, len);
	int rc;

	memcpy(copy, msg, len);
	copy[RMPP_HDR_OFF] = RMPP_VERSION;
	copy[RMPP_HDR_OFF + 1] = RMPP_TYPE_DATA;
	copy[RMPP_HDR_OFF + 2] |= RMPP_FLAG_ACTIVE;
	rc = e->tp.send(e->tp.ctx, copy, len, to);
	free(copy);
	return rc;
}

static int send_one(struct mad_engine *e, const uint8_t *msg, size_t len,
		    const struct mad_addr *to)
{
	uint8_t mad[MAD_SIZE];

	memset(mad, 0, sizeof(mad));
	memcpy(mad, msg, len);
	return e->tp.send(e->tp.ctx, mad, sizeof(mad), to);
}

static int send_rmpp(struct mad_engine *e, const uint8_t *msg, size_t len,
		     const struct mad_addr *to)
{
	unsigned hdr_len = rmpp_hdr_len(msg[1]);

	if (!hdr_len || len > RMPP_MAX_MSG)
		return -EMSGSIZE;
	if (len < hdr_len)
		return -EINVAL;
	if (e->tp.flags & MAD_TP_USER_RMPP)
		return sess_start(e, msg, len, to);
	return send_kernel_rmpp(e, msg, len, to);
}

int mad_engine_send_gsi(struct mad_engine *e, const uint8_t *msg, size_t len,
			const struct mad_addr *to)
{
	int rc;

	if (e->closing)
		return -ESHUTDOWN;
	if (!msg || !to || len < MAD_HDR_LEN || !is_gsi_class(msg[1]))
		return -EINVAL;
	if (!gsi_is_rmpp(msg, len)) {
		rc = send_one(e, msg, len, to);
		if (rc == 0)
			e->st.gsi_sent++;
		return rc;
	}
	rc = send_rmpp(e, msg, len, to);
	/* sess_start counts its own sends */
	if (rc == 0 && !(e->tp.flags & MAD_TP_USER_RMPP))
		e->st.gsi_sent++;
	return rc;
}

/* A GSI MAD arrived: an ACK/STOP/ABORT for one of our RMPP sends feeds it;
 * anything else goes to the hook. */
static void handle_gsi(struct mad_engine *e, const uint8_t *buf, size_t len, int status,
		       const struct mad_addr *from)
{
	struct rmpp_sess *s;

	if (!status && buf[0] != 1) {
		e->st.dropped++;
		return;
	}
	if (!status && rmpp_is_control(buf, len) &&
	    (s = sess_find(e, mad_tid(buf), buf[1], from))) {
		rmpp_sender_on_mad(&s->tx, buf, len, engine_now(e));
		sess_pump(e, s);
		return;
	}
	if (!e->o.gsi) {
		e->st.dropped++;
		return;
	}
	e->st.gsi++;
	e->depth++;
	e->o.gsi(e->o.gsi_arg, buf, len, status, from);
	e->depth--;
}

/* --- public: life cycle and submit --- */

static void opts_fill(struct mad_engine_opts *o, const struct mad_engine_opts *in)
{
	struct mad_engine_opts d;

	mad_engine_opts_default(&d);
	*o = in ? *in : d;
	if (o->window == 0)
		o->window = d.window;
	if (o->window > MAX_WINDOW)
		o->window = MAX_WINDOW;
	if (o->per_dest == 0)
		o->per_dest = d.per_dest;
	/* A zero timeout would make on_timer retry forever within one call. */
	if (o->timeout_ms == 0)
		o->timeout_ms = d.timeout_ms;
	if (o->queue_max == 0)
		o->queue_max = d.queue_max;
	if (o->backoff_ms == 0)
		o->backoff_ms = d.backoff_ms;
	if (o->backoff_max_ms == 0)
		o->backoff_max_ms = d.backoff_max_ms;
	/* the attempt number lives in 4 TID bits */
	if (o->retries_max > ATT_MASK)
		o->retries_max = ATT_MASK;
	if (o->rmpp_max_sessions == 0)
		o->rmpp_max_sessions = d.rmpp_max_sessions;
	if (o->rmpp_max_bytes == 0)
		o->rmpp_max_bytes = d.rmpp_max_bytes;
	if (o->rmpp_timeout_ms == 0)
		o->rmpp_timeout_ms = d.rmpp_timeout_ms;
}

struct mad_engine *mad_engine_new(const struct mad_transport *tp, const struct mad_engine_opts *o)
{
	struct mad_engine *e = xcalloc(1, sizeof(*e));

	e->tp = *tp;
	opts_fill(&e->o, o);
	/* room for the largest window a reload may set */
	e->nslots = e->o.window > SLOTS_MIN ? e->o.window : SLOTS_MIN;
	e->slots = xcalloc(e->nslots, sizeof(*e->slots));
	e->gen = xcalloc(e->nslots, sizeof(*e->gen));
	e->free_slots = xcalloc(e->nslots, sizeof(*e->free_slots));
	/* Hand out low slot numbers first (a stack, so push in reverse). */
	for (unsigned i = 0; i < e->nslots; i++)
		e->free_slots[i] = e->nslots - 1 - i;
	e->nfree = e->nslots;
	e->nbuckets = 64;
	e->buckets = xcalloc(e->nbuckets, sizeof(*e->buckets));
	e->rxbuf = xcalloc(MAD_RECV_MAX, 1);
	e->gmp = gmp_new(tp, &e->st);
	gmp_set_limits(e->gmp, e->o.gmp_window, e->o.gmp_timeout_ms ? e->o.gmp_timeout_ms :
			e->o.timeout_ms, e->o.gmp_retries);
	return e;
}

void mad_engine_set_limits(struct mad_engine *e, const struct mad_engine_opts *o)
{
	struct mad_engine_opts n;

	opts_fill(&n, o);
	e->o.window = n.window < e->nslots ? n.window : e->nslots;
	e->o.per_dest = n.per_dest;
	e->o.timeout_ms = n.timeout_ms;
	e->o.retries = n.retries;
	e->o.retries_max = n.retries_max;
	e->o.backoff_ms = n.backoff_ms;
	e->o.backoff_max_ms = n.backoff_max_ms;
	gmp_set_limits(e->gmp, n.gmp_window, n.gmp_timeout_ms ? n.gmp_timeout_ms : n.timeout_ms,
		       n.gmp_retries);
	/* a destination held back by the old cap may send now */
	for (size_t b = 0; b < e->nbuckets; b++)
		for (struct dest *d = e->buckets[b], *next; d; d = next) {
			next = d->hnext; /* dest_update() may free d */
			dest_update(e, d);
		}
	pump(e);
}

static void cancel(struct mad_engine *e, struct req *r)
{
	e->st.failed++;
	r->done(r->arg, MAD_ERR_CANCELED, NULL);
	req_free(e, r);
}

void mad_engine_free(struct mad_engine *e)
{
	if (!e)
		return;
	/* Freeing from inside a completion would pull the engine from under the
	 * caller's own frame: a bug in the caller. */
	assert(e->depth == 0);
	e->closing = 1;
	while (e->dhead) {
		struct req *r = e->dhead;

		e->dhead = r->dnext;
		cancel(e, r);
	}
	for (unsigned i = 0; i < e->nslots; i++) {
		struct req *r = e->slots[i];

		if (r) {
			e->slots[i] = NULL;
			cancel(e, r);
		}
	}
	for (size_t b = 0; b < e->nbuckets; b++) {
		struct dest *d, *dnext;

		for (d = e->buckets[b]; d; d = dnext) {
			struct req *r, *rnext;

			dnext = d->hnext;
			for (r = d->qhead; r; r = rnext) {
				rnext = r->qnext;
				cancel(e, r);
			}
			free(d);
		}
	}
	gmp_free(e->gmp);
	free(e->buckets);
	free(e->slots);
	free(e->gen);
	free(e->free_slots);
	while (e->sessions)
		sess_end(e, e->sessions);
	free(e->rxbuf);
	while (e->spare) {
		struct req *r = e->spare;

		e->spare = r->qnext;
		free(r);
	}
	free(e);
}

int mad_engine_submit(struct mad_engine *e, const struct mad_req *req, mad_done_fn done, void *arg)
{
	struct req *r;
	struct dest *d;

	if (e->closing)
		return -ESHUTDOWN;
	if (!req || !done || (is_dr(req) && req->hop_cnt > SMP_MAX_HOPS))
		return -EINVAL;
	if (e->st.queued >= e->o.queue_max)
		return -ENOBUFS;
	r = req_new(e);
	r->mr = *req;
	r->done = done;
	r->arg = arg;
	d = dest_get(e, dest_key(req));
	r->dest = d;
	if (d->qtail)
		d->qtail->qnext = r;
	else
		d->qhead = r;
	d->qtail = r;
	e->st.queued++;
	dest_update(e, d);
	pump(e);
	return 0;
}

int mad_engine_submit_gmp(struct mad_engine *e, const struct mad_gmp_req *req,
			  mad_gmp_done_fn done, void *arg)
{
	if (e->closing)
		return -ESHUTDOWN;
	if (!req || !done || !is_gmp_class(req->mgmt_class))
		return -EINVAL;
	if (e->st.gmp_queued >= e->o.queue_max)
		return -ENOBUFS;
	gmp_submit(e->gmp, req, done, arg);
	pump(e);
	return 0;
}

int mad_engine_send_raw(struct mad_engine *e, const uint8_t *mad, size_t len, const struct mad_addr *to)
{
	int rc;

	if (!mad || len == 0 || len > MAD_SIZE || !to)
		return -EINVAL;
	/* MAD header: class at byte 1, method at 3, AttributeID at 16-17 */
	if (len >= 24 && !gate_ok(e, mad[1], mad[3], (uint16_t)(mad[16] << 8 | mad[17])))
		return -EPERM;
	rc = e->tp.send(e->tp.ctx, mad, len, to);
	if (rc == 0)
		e->st.raw_sent++;
	return rc;
}

/* --- receiving --- */

static uint8_t resp_method(uint8_t method)
{
	return method == MAD_METHOD_TRAP ? MAD_METHOD_TRAP_REPRESS : MAD_METHOD_GET_RESP;
}

static int is_response(uint8_t method)
{
	return (method & 0x80) || method == MAD_METHOD_TRAP_REPRESS;
}

/* A DR response comes back with D set over the same initial path. Its hop
 * pointer, as the requester sees it: 0, because the return trip counts it
 * down to 0 on arrival at a permissive DrSLID (IBA 14.2.2.4, C14-13-3;
 * Linux smi.c does the same, and ibsim/umad2sim returned 0 for hop counts
 * 0, 1 and 2 when we tried); or hop_cnt + 1, the value the responder leaves
 * it at, which a local (hop_cnt 0) response handled without a return trip
 * may carry. Anything in between means a broken or forged SMP. */
static int dr_resp_valid(const struct req *r, const struct smp *s)
{
	const struct mad_req *mr = &r->mr;

	if (!s->hdr.d_bit || s->hdr.hop_cnt != mr->hop_cnt)
		return 0;
	if (s->hdr.hop_ptr != 0 && s->hdr.hop_ptr != mr->hop_cnt + 1)
		return 0;
	return memcmp(s->initial_path + 1, mr->path + 1, mr->hop_cnt) == 0;
}

static int resp_valid(const struct req *r, const struct smp *s)
{
	if (s->hdr.mgmt_class != r->mr.mgmt_class || s->hdr.attr_id != r->mr.attr_id)
		return 0;
	if (s->hdr.method != resp_method(r->mr.method))
		return 0;
	return !is_dr(&r->mr) || dr_resp_valid(r, s);
}

static void handle_response(struct mad_engine *e, const uint8_t *buf, size_t len)
{
	struct smp s;
	struct req *r;

	if (smp_decode(buf, len, &s) < 0 || !(r = tid_lookup(e, s.hdr.tid)) || !resp_valid(r, &s)) {
		e->st.dropped++;
		return;
	}
	r->dest->failed_in_row = 0;   /* it answers */
	if (s.hdr.status & STATUS_BUSY)
		attempt_failed(e, r, MAD_ERR_STATUS, &s);
	else
		finish(e, r, s.hdr.status ? MAD_ERR_STATUS : MAD_OK, &s);
}

/* Our own send, returned by the transport with a non-zero status. */
static void handle_returned(struct mad_engine *e, const uint8_t *buf, size_t len)
{
	struct smp s;
	struct req *r;

	/* Our own request, or its response lost on the way back (ibsim hands
	 * those back as the GetResp, with status 110): the attempt failed.
	 * A GetResp or TrapRepress we sent for someone else carries their TID,
	 * so a response only counts if TID and attribute are exactly ours. */
	if (smp_decode(buf, len, &s) < 0 || !(r = tid_lookup(e, s.hdr.tid)) ||
	    (uint32_t)s.hdr.tid != r->tid || s.hdr.attr_id != r->mr.attr_id ||
	    (is_response(s.hdr.method) && s.hdr.method != resp_method(r->mr.method))) {
		e->st.dropped++;
		return;
	}
	e->st.timeouts++;
	attempt_failed(e, r, MAD_ERR_TIMEOUT, NULL);
}

static void handle_unsolicited(struct mad_engine *e, const uint8_t *buf, size_t len,
			       const struct mad_addr *from)
{
	if (!e->o.unsolicited) {
		e->st.dropped++;
		return;
	}
	e->st.unsolicited++;
	e->depth++;
	e->o.unsolicited(e->o.unsolicited_arg, buf, len, from);
	e->depth--;
}

static void handle_mad(struct mad_engine *e, const uint8_t *buf, size_t len, int status,
		       const struct mad_addr *from)
{
	if (len >= MAD_HDR_LEN && is_gsi_class(buf[1])) {
		handle_gsi(e, buf, len, status, from);
		return;
	}
	if (len >= MAD_HDR_LEN && is_gmp_class(buf[1])) {
		e->depth++;
		gmp_on_mad(e->gmp, buf, len, status, engine_now(e));
		e->depth--;
		return;
	}
	/* SMPs are never longer; this keeps their path as it always was */
	if (len > MAD_SIZE)
		len = MAD_SIZE;
	if (status) {
		handle_returned(e, buf, len);
		return;
	}
	/* Only version-1 SMPs are ours; anything else is dropped here. */
	if (len < MAD_HDR_LEN || buf[0] != 1 ||
	    (buf[1] != MAD_CLASS_SMI && buf[1] != MAD_CLASS_SMI_DR)) {
		if (len >= MAD_HDR_LEN && buf[1] != MAD_CLASS_SMI && buf[1] != MAD_CLASS_SMI_DR)
			e->st.unknown_class++;
		e->st.dropped++;
		return;
	}
	if (is_response(buf[3]))
		handle_response(e, buf, len);
	else
		handle_unsolicited(e, buf, len, from);
}

/* What is readable is taken in batches of up to RX_BATCH MADs, and the
 * slots they freed are refilled after each batch, not after each MAD:
 * the sends of a batch then go out back to back. Under ibsim (umad2sim:
 * a lock per read and per write, shared with its reader thread) that took
 * a bring-up of the 3456-host tree from 529 to 491 ms (means of 5
 * alternating runs of bench/ibsmd-once.sh, SIM_PIN=yes) and a counter
 * round of it from 113-119 to 103-106 ms.
 * The bound keeps a stream of requests from hosts from holding our own
 * sends back for long. */
#define RX_BATCH 64

void mad_engine_on_readable(struct mad_engine *e)
{
	unsigned k = 0;

	for (;;) {
		struct mad_addr from = { 0 };
		int status = 0;
		int n = e->tp.recv(e->tp.ctx, e->rxbuf, MAD_RECV_MAX, &status, &from);

		if (n == -EMSGSIZE) {
			/* the transport read and dropped it: go on */
			e->st.too_long++;
			e->st.dropped++;
			continue;
		}
		if (n <= 0)
			break;
		e->rx_batch = 1;
		handle_mad(e, e->rxbuf, (size_t)n > MAD_RECV_MAX ? MAD_RECV_MAX : (size_t)n,
			   status, &from);
		e->rx_batch = 0;
		if (++k % RX_BATCH == 0)
			pump(e);
	}
	pump(e);
}

void mad_engine_on_timer(struct mad_engine *e)
{
	uint64_t now = engine_now(e);

	/* A retried request goes to the tail with a later deadline, so this
	 * ends even when everything times out. */
	while (e->thead && e->thead->deadline <= now) {
		e->st.timeouts++;
		attempt_failed(e, e->thead, MAD_ERR_TIMEOUT, NULL);
	}
	undelay_due(e, now);
	sess_timers(e, now);
	e->depth++;
	gmp_on_timer(e->gmp, now);
	e->depth--;
	pump(e);
}

uint64_t mad_engine_next_deadline(const struct mad_engine *e)
{
	uint64_t dl = e->thead ? e->thead->deadline : UINT64_MAX;

	if (e->dhead && e->dhead->deadline < dl)
		dl = e->dhead->deadline;
	if (gmp_next_deadline(e->gmp) < dl)
		dl = gmp_next_deadline(e->gmp);
	for (const struct rmpp_sess *s = e->sessions; s; s = s->next) {
		uint64_t d = rmpp_sender_deadline(&s->tx);

		if (d < dl)
			dl = d;
	}
	return dl;
}

void mad_engine_quiesce(struct mad_engine *e)
{
	e->quiet = 1;
	gmp_quiesce(e->gmp);
}

bool mad_engine_awaiting(const struct mad_engine *e)
{
	return e->st.outstanding || gmp_awaiting(e->gmp);
}

int mad_engine_idle(const struct mad_engine *e)
{
	return e->st.outstanding == 0 && e->st.queued == 0 && e->st.delayed == 0 &&
	       gmp_idle(e->gmp);
}

void mad_engine_get_stats(const struct mad_engine *e, struct mad_stats *st)
{
	*st = e->st;
}
