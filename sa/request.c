/*
 * DOC: an SA request from receipt to answer (IBA 15.4).
 *
 * Admission, in this order; each refusal is answered with its status
 * (IBA 13.4.7 MAD status, 15.2.1.1 SA status), except where there is
 * nobody or nothing to answer:
 *   - we are not master: dropped, as OpenSM does (a standby is silent);
 *   - shorter than the SA header, BaseVersion not 1, class not 0x03:
 *     dropped (counted as malformed);
 *   - a response: ReportResp goes to rec_inform.c, the rest is dropped;
 *   - ClassVersion not 2: UNSUP_CLASS_VER (0x0004);
 *   - not an SA request method: UNSUP_METHOD (0x0008);
 *   - an attribute we do not serve, or a method it does not take:
 *     UNSUP_METHOD_ATTR (0x000C);
 *   - AttributeModifier not 0 (PortInfoRecord: 0 or bit 31): 0x001C;
 *   - an SM_Key that is neither 0 (untrusted) nor sa_key: ERR_REQ_DENIED.
 *     OpenSM drops such a request silently; an answer costs nothing and
 *     tells the requester what is wrong (a 64-bit key is not guessed by
 *     asking). P_KeyTableRecord from an untrusted requester: DENIED too;
 *   - data shorter than the record: ERR_REQ_INVALID;
 *   - ComponentMask bits beyond the record's components: ERR_REQ_INVALID;
 *   - the requester's work budget is spent (sa_int.h): BUSY (0x0001).
 * Then the attribute's own checks (PathRecord: half a ServiceID is
 * INSUFFICIENT_COMPONENTS, a bad selector value REQ_INVALID, a GID not in
 * the subnet INVALID_GID, ...) and the outcome: a Get or Delete without a
 * record ERR_NO_RECORDS, with two TOO_MANY_RECORDS; a GetTable above
 * max_records TOO_MANY_RECORDS (never an allocation that size); past the
 * work budget NO_RESOURCES.
 *
 * A query that needs port tables nobody has read yet (portdata.c) is
 * parked: its MAD is kept, the reads go out, and it runs again when they
 * are all in, or answers with what it has after SA_PARK_TIMEOUT_MS.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "sa/sa_int.h"
#include "lib/log.h"

static bool is_table(uint8_t method)
{
	return method == SA_METHOD_GET_TABLE || method == SA_METHOD_GET_MULTI;
}

static uint8_t method_bit(uint8_t method)
{
	switch (method) {
	case SA_METHOD_GET: return SA_M_GET;
	case SA_METHOD_SET: return SA_M_SET;
	case SA_METHOD_GET_TABLE: return SA_M_GET_TABLE;
	case SA_METHOD_DELETE: return SA_M_DELETE;
	case SA_METHOD_GET_MULTI: return SA_M_GET_MULTI;
	case SA_METHOD_GET_TRACE_TABLE: return 0x80;   /* a request we serve for nothing */
	default: return 0;
	}
}

/* --- requesters --- */

static struct sa_rq *rq_of(struct sa *sa, uint16_t lid)
{
	if (!sa->rq)
		sa->rq = xcalloc(SA_RQ_LIDS, sizeof(*sa->rq));
	/* LID 0 and non-unicast LIDs (a requester behind a router) share slot 0 */
	return &sa->rq[lid < SA_RQ_LIDS ? lid : 0];
}

static bool rq_admit(struct sa_rq *r, uint64_t now)
{
	if (!r->seen) {
		r->seen = true;
		r->tokens = SA_RQ_BURST;
	} else if (now > r->t_ms) {
		uint64_t add = (now - r->t_ms) * (uint64_t)SA_RQ_RATE / 1000u;

		r->tokens = add >= SA_RQ_BURST ? SA_RQ_BURST : r->tokens + (int64_t)add;
		if (r->tokens > SA_RQ_BURST)
			r->tokens = SA_RQ_BURST;
	}
	r->t_ms = now;
	return r->tokens > 0;
}

static void rq_charge(struct sa_rq *r, uint64_t work)
{
	r->tokens -= (int64_t)(work < SA_RQ_BURST ? work : SA_RQ_BURST);
	if (r->tokens < -SA_RQ_BURST)
		r->tokens = -SA_RQ_BURST;
}

/* --- sending --- */

static void send_msg(struct sa *sa, const uint8_t *msg, size_t len, const struct mad_addr *from)
{
	struct mad_addr to;
	int rc;

	mad_addr_reply(from, &to);
	rc = sa->env.send(sa->env.arg, msg, len, &to);
	/* -EALREADY: the kernel still sends our first answer to this TID
	 * (a client retry); that answer stands */
	if (rc == -EALREADY)
		sa->st.already++;
	else if (rc < 0)
		sa->st.send_failed++;
}

static void answer_error(struct sa *sa, const struct sa_hdr *h, uint16_t status,
			 const struct mad_addr *from)
{
	uint8_t buf[MAD_SIZE];

	if (status == SA_STATUS_REQ_DENIED)
		sa->st.denied++;
	else if (status == MAD_STATUS_BUSY)
		sa->st.busy++;
	if (sa_error_resp(h, status, buf, sizeof(buf)) == 0)
		send_msg(sa, buf, sizeof(buf), from);
}

/* Answers c; returns the status sent. GetTableResp and GetMultiResp go
 * out RMPP-active even when they fit one MAD (OpenSM osm_sa_respond), the
 * others as one MAD with the first record. */
static uint16_t answer(struct sa *sa, const struct sa_hdr *h, const struct sa_ctx *c,
		       const struct mad_addr *from)
{
	size_t pad = SA_REC_PADDED(c->rec_size);
	bool table = is_table(c->method);
	uint16_t status = c->status;
	struct sa_hdr r;

	if (!status && !table && c->n == 0)
		status = SA_STATUS_NO_RECORDS;
	if (status) {
		answer_error(sa, h, status, from);
		return status;
	}
	sa_resp_hdr(h, c->n ? (uint16_t)(pad / 8) : 0, &r);
	if (table)
		r.rmpp.flags = RMPP_FLAG_ACTIVE;
	sa_hdr_encode(&r, sa->rbuf, SA_HDR_SIZE);
	send_msg(sa, sa->rbuf, SA_HDR_SIZE + (table ? c->len : pad), from);
	return 0;
}

/* --- admission --- */

static uint16_t admit(struct sa *sa, const struct sa_hdr *h, const struct sa_attr *a, size_t len,
		      bool *trusted)
{
	uint32_t mod_ok = a && a->modifier_bit31 ? 0x80000000u : 0;
	const struct sa_rec_desc *d;

	if (h->hdr.class_version != SA_CLASS_VERSION)
		return MAD_STATUS_UNSUP_CLASS_VER;
	if (!method_bit(h->hdr.method))
		return MAD_STATUS_UNSUP_METHOD;
	if (!a || !(a->methods & method_bit(h->hdr.method)))
		return MAD_STATUS_UNSUP_METHOD_ATTR;
	if (h->hdr.attr_mod & ~mod_ok)
		return MAD_STATUS_INVALID_FIELD;
	*trusted = h->sm_key && h->sm_key == sa->conf.sa_key;
	if ((h->sm_key && !*trusted) || (a->trusted_only && !*trusted))
		return SA_STATUS_REQ_DENIED;
	if (len < SA_HDR_SIZE + (size_t)a->size)
		return SA_STATUS_REQ_INVALID;
	d = sa_rec_desc_find(a->nm.id);
	if (d && sa_mask_check(d, h->comp_mask) < 0)
		return SA_STATUS_REQ_INVALID;
	return 0;
}

/* --- running a query --- */

static void ctx_init(struct sa_ctx *c, struct sa *sa, const struct sa_attr *a, uint8_t method,
		     uint32_t mod, uint64_t mask, const uint8_t *data, size_t dlen)
{
	memset(c, 0, sizeof(*c));
	if (sa->env.conf)
		sa->env.conf(sa->env.arg, &sa->conf);   /* a reload may have changed it */
	c->sa = sa;
	c->snap = sa_snap(sa, &c->ix);
	c->attr = a;
	c->desc = sa_rec_desc_find(a->nm.id);
	c->method = method;
	c->attr_mod = mod;
	c->mask = c->match_mask = mask;
	c->tmpl = c->data = data;
	c->dlen = dlen;
	c->rec_size = a->size;
	c->limit = is_table(method) && sa->conf.max_records ? sa->conf.max_records : 1;
	c->max_bytes = RMPP_MAX_MSG - SA_HDR_SIZE;
	c->work_max = SA_WORK_MAX;
	c->now_ms = sa_now(sa);
	if (!sa->rbuf) {
		sa->rcap = 4096;
		sa->rbuf = xmalloc(sa->rcap);
	}
	c->buf = sa->rbuf + SA_HDR_SIZE;
}

static void run(struct sa_ctx *c)
{
	const struct sa_attr *a = c->attr;
	uint16_t st;

	if (!c->snap) {
		sa_fail(c, MAD_STATUS_BUSY);
		return;
	}
	st = a->check ? a->check(c) : 0;
	if (st) {
		sa_fail(c, st);
		return;
	}
	if (c->method == SA_METHOD_SET)
		a->set(c);
	else if (c->method == SA_METHOD_DELETE)
		a->del(c);
	else
		a->get(c);
}

static bool park(struct sa *sa, const uint8_t *msg, size_t len, const struct mad_addr *from,
		 const struct sa_park *prev, uint64_t t0, struct sa_rq *r)
{
	struct sa_park *p;

	if (sa->nparked >= SA_PARK_MAX || r->parked >= SA_PARK_PER_RQ)
		return false;
	p = xmalloc(sizeof(*p) + len);
	p->t_us = t0;
	p->deadline = prev ? prev->deadline : sa_now(sa) + SA_PARK_TIMEOUT_MS;
	p->runs = prev ? prev->runs + 1 : 1;
	p->from = *from;
	p->len = len;
	memcpy(p->msg, msg, len);
	p->next = sa->park;
	sa->park = p;
	sa->nparked++;
	r->parked++;
	if (!prev)
		sa->st.parked++;
	return true;
}

/* One run of a request (a parked one again: prev). final: answer with
 * what is there, whatever is still being read. */
static void process(struct sa *sa, const uint8_t *msg, size_t len, const struct mad_addr *from,
		    const struct sa_park *prev, bool final, uint64_t t0)
{
	struct sa_rq *r = rq_of(sa, from->dlid);
	bool trusted = false;
	struct sa_ctx c;
	struct sa_hdr h;
	const struct sa_attr *a;
	uint16_t st;

	if (sa_hdr_decode(msg, len, &h) < 0)
		return;
	a = sa_attr_find(h.hdr.attr_id);
	st = admit(sa, &h, a, len, &trusted);
	if (!st && !prev && !rq_admit(r, sa_now(sa)))
		st = MAD_STATUS_BUSY;
	if (st) {
		answer_error(sa, &h, st, from);
		if (a)
			sa_stats_note(sa, a, st, 0, clock_us() - t0);
		return;
	}
	ctx_init(&c, sa, a, h.hdr.method, h.hdr.attr_mod, h.comp_mask, msg + SA_HDR_SIZE,
		 len - SA_HDR_SIZE);
	c.trusted = trusted;
	c.from = *from;
	c.requester = c.snap ? snap_port_by_lid(c.snap, from->dlid) : NULL;
	run(&c);
	rq_charge(r, c.work);
	if (c.missing && !c.status && !final && (!prev || prev->runs < 3)) {
		if (park(sa, msg, len, from, prev, t0, r))
			return;
		sa_fail(&c, MAD_STATUS_BUSY);   /* asked again, the tables may be in */
	}
	st = answer(sa, &h, &c, from);
	sa_stats_note(sa, a, st, st ? 0 : is_table(c.method) ? c.n : 1, clock_us() - t0);
}

/* A send of ours came back failed (the kernel returns its first bytes). */
static void send_returned(struct sa *sa, const uint8_t *msg, size_t len)
{
	if (len >= 24 && msg[3] == SA_METHOD_REPORT)
		sa_inform_send_failed(sa, sa_get64(msg + 8));
	else
		sa->st.send_failed++;
}

void sa_recv(void *arg, const uint8_t *msg, size_t len, int status, const struct mad_addr *from)
{
	sa_recv_at(arg, msg, len, status, from, clock_us());
}

void sa_recv_at(struct sa *sa, const uint8_t *msg, size_t len, int status,
		const struct mad_addr *from, uint64_t t_us)
{
	struct sa_hdr h;

	if (status) {
		send_returned(sa, msg, len);
		return;
	}
	if (sa_hdr_decode(msg, len, &h) < 0) {
		sa->st.malformed++;
		return;
	}
	if (h.hdr.method & 0x80) {
		if (h.hdr.method == SA_METHOD_REPORT_RESP)
			sa_inform_report_resp(sa, h.hdr.tid, from);
		else
			sa->st.unexpected++;
		return;
	}
	sa->st.received++;
	if (!sa->env.master(sa->env.arg)) {
		sa->st.not_master++;
		return;
	}
	process(sa, msg, len, from, NULL, false, t_us);
}

void sa_busy(struct sa *sa, const uint8_t *msg, size_t len, const struct mad_addr *from)
{
	struct sa_hdr h;

	if (sa_hdr_decode(msg, len, &h) == 0)
		answer_error(sa, &h, MAD_STATUS_BUSY, from);
}

/* --- parked requests --- */

static void unpark(struct sa *sa, struct sa_park *p, bool final)
{
	sa->nparked--;
	rq_of(sa, p->from.dlid)->parked--;
	if (sa->env.master(sa->env.arg))
		process(sa, p->msg, p->len, &p->from, p, final, p->t_us);
	free(p);
}

void sa_park_rerun(struct sa *sa)
{
	struct sa_park *list = sa->park;
	uint64_t now = sa_now(sa);

	sa->park = NULL;
	while (list) {
		struct sa_park *p = list;

		list = p->next;
		unpark(sa, p, now >= p->deadline);
	}
}

void sa_park_timer(struct sa *sa, uint64_t now)
{
	struct sa_park **pp = &sa->park;

	while (*pp) {
		struct sa_park *p = *pp;

		if (now < p->deadline) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		unpark(sa, p, true);
		pp = &sa->park;   /* unpark may have parked others in front */
	}
}

uint64_t sa_park_deadline(const struct sa *sa)
{
	uint64_t d = UINT64_MAX;

	for (const struct sa_park *p = sa->park; p; p = p->next)
		if (p->deadline < d)
			d = p->deadline;
	return d;
}

void sa_park_free(struct sa *sa)
{
	while (sa->park) {
		struct sa_park *p = sa->park;

		sa->park = p->next;
		free(p);
	}
	sa->nparked = 0;
}

/* --- the control socket --- */

void sa_query_local(struct sa *sa, uint16_t attr, uint32_t attr_mod, uint64_t mask,
		    const uint8_t *tmpl, size_t tlen, bool trusted, uint32_t max_records,
		    struct sa_result *res)
{
	const struct sa_attr *a = sa_attr_find(attr);
	uint8_t method = a && a->methods == SA_M_GET ? SA_METHOD_GET : SA_METHOD_GET_TABLE;
	struct sa_ctx c;

	memset(res, 0, sizeof(*res));
	if (!a || !(a->methods & method_bit(method)) || tlen < a->size) {
		res->status = MAD_STATUS_UNSUP_METHOD_ATTR;
		return;
	}
	ctx_init(&c, sa, a, method, attr_mod, mask, tmpl, tlen);
	c.trusted = trusted;
	c.local = true;
	if (max_records && c.limit > max_records && method != SA_METHOD_GET)
		c.limit = max_records;
	c.max_bytes = (size_t)c.limit * SA_REC_PADDED(a->size) + 1;
	if (c.desc && sa_mask_check(c.desc, mask) < 0)
		sa_fail(&c, SA_STATUS_REQ_INVALID);
	else if (a->trusted_only && !trusted)
		sa_fail(&c, SA_STATUS_REQ_DENIED);
	else
		run(&c);
	res->status = c.status;
	res->size = c.rec_size;
	res->padded = (uint16_t)SA_REC_PADDED(c.rec_size);
	res->pending = c.missing;
	if (c.status || !c.n)
		return;
	res->n = c.n;
	res->recs = xmalloc(c.len);
	memcpy(res->recs, c.buf, c.len);
}

void sa_result_free(struct sa_result *res)
{
	free(res->recs);
	res->recs = NULL;
	res->n = 0;
}

const char *sa_status_name(uint16_t status)
{
	switch (status) {
	case 0: return "OK";
	case MAD_STATUS_BUSY: return "BUSY";
	case MAD_STATUS_UNSUP_CLASS_VER: return "UNSUPPORTED_CLASS_VERSION";
	case MAD_STATUS_UNSUP_METHOD: return "UNSUPPORTED_METHOD";
	case MAD_STATUS_UNSUP_METHOD_ATTR: return "UNSUPPORTED_METHOD_ATTRIBUTE";
	case MAD_STATUS_INVALID_FIELD: return "INVALID_ATTRIBUTE_OR_MODIFIER";
	case SA_STATUS_NO_RESOURCES: return "ERR_NO_RESOURCES";
	case SA_STATUS_REQ_INVALID: return "ERR_REQ_INVALID";
	case SA_STATUS_NO_RECORDS: return "ERR_NO_RECORDS";
	case SA_STATUS_TOO_MANY_RECORDS: return "ERR_REQ_TOO_MANY_RECORDS";
	case SA_STATUS_INVALID_GID: return "ERR_REQ_INVALID_GID";
	case SA_STATUS_INSUF_COMPS: return "ERR_REQ_INSUFFICIENT_COMPONENTS";
	case SA_STATUS_REQ_DENIED: return "ERR_REQ_DENIED";
	default: return "UNKNOWN";
	}
}
