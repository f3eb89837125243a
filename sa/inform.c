/*
 * DOC: InformInfo subscriptions, InformInfoRecord, and the Reports sent
 * to subscribers (IBA 13.4.8.3, 15.2.5.12, 13.4.11; sa-mcast-ha.md 3).
 *
 * A Set(InformInfo) with Subscribe 1 adds a subscription of the
 * requesting port (found by the request's SLID; its GID is the
 * subscriber's), with Subscribe 0 removes the same one; the answer echoes
 * the InformInfo. Reports go back the way the Set came: the request's
 * SLID, source QP (OpenSM overwrites the QPN with it too), P_Key index
 * and GRH. Security traps 256-259 need a trusted requester. At most
 * subs_per_port per port (times trusted_share for a trusted requester)
 * and max_subs in all (ERR_NO_RESOURCES; sa/fair.c).
 *
 * A Notice is reported to every subscription it matches: IsGeneric
 * equal; TrapNumber (DeviceID), Type and ProducerType (VendorID) equal or
 * "all" (0xFFFF, 0xFFFF, 0xFFFFFF); the issuer's LID inside
 * LIDRangeBegin..End unless Begin is 0xFFFF; the issuer's GID equal to a
 * non-zero GID. Each Report is one MAD with its own TID, sent again every
 * SA_REPORT_RETRY_MS until a ReportResp with that TID (the low 32 bits:
 * the kernel and umad2sim own the rest) comes from the subscriber, at
 * most SA_REPORT_TRIES times. A subscriber that does not answer fills
 * only its own share of the queue: at most reports_per_port wait for one
 * subscriber port (the next is dropped), reports_max in all (a full queue
 * makes room by dropping one of the subscriber with the most waiting,
 * when that is more than the new one's); drops are counted. The traps 66
 * and 67 of the groups one requester creates and deletes are reported at
 * most SA_CAUSE_NOTICE_RATE a second (after a burst): a host that churns
 * groups does not fill the subscribers' queues, whose Reports of other
 * hosts' groups then arrive (counted as notices_dropped). A
 * subscriber whose port is in service and whose last SA_REPORT_FAILS_MAX
 * Reports all went unanswered loses its subscriptions, with one log
 * line: it may subscribe again.
 *
 * Traps 64 and 65 (GID in and out of service) come from comparing two
 * snapshots (sa_inform_diff): an end port is in service when it is
 * Active with a LID. A subscriber whose port left the fabric loses its
 * subscriptions (sa_clients_departed), as in OpenSM; a port merely down
 * keeps them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sa/sa_int.h"
#include "sm/log.h"

#define ALL16 0xFFFF
#define ALL24 0xFFFFFF
#define TRAP_GID_IN 64
#define TRAP_GID_OUT 65
#define NOTICE_TYPE_SM 3          /* subnet management (OpenSM byte 0 = 0x83) */
#define PRODUCER_CLASS_MANAGER 4

static void report_remove(struct sa *sa, uint32_t i);

/* --- subscriptions --- */

/* The same subscription: subscriber and every field but Subscribe, QPN
 * and RespTimeValue. */
static bool same_sub(const struct sa_sub *s, const uint8_t gid[16], const struct sa_inform_info *ii)
{
	const struct sa_inform_info *a = &s->ii;

	return !memcmp(s->gid, gid, 16) && !memcmp(a->gid, ii->gid, 16) &&
	       a->lid_begin == ii->lid_begin && a->lid_end == ii->lid_end &&
	       a->is_generic == ii->is_generic && a->type == ii->type &&
	       a->trap_num == ii->trap_num && a->producer_type == ii->producer_type;
}

static struct sa_sub *find_sub(struct sa *sa, const uint8_t gid[16], const struct sa_inform_info *ii)
{
	for (uint32_t i = 0; i < sa->nsubs; i++)
		if (same_sub(&sa->subs[i], gid, ii))
			return &sa->subs[i];
	return NULL;
}

static uint32_t subs_of(const struct sa *sa, const uint8_t gid[16])
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sa->nsubs; i++)
		n += !memcmp(sa->subs[i].gid, gid, 16);
	return n;
}

static uint16_t ii_check(const struct sa_ctx *c, const struct sa_inform_info *ii)
{
	if (ii->subscribe > 1)
		return SA_STATUS_REQ_INVALID;
	if (ii->lid_begin != ALL16 && ii->lid_end && ii->lid_end < ii->lid_begin)
		return SA_STATUS_REQ_INVALID;
	/* traps 256-259 (bad M_Key, P_Key, Q_Key, ...) tell how to attack
	 * the fabric: trusted subscribers only (OpenSM osm_sa_informinfo.c) */
	if (ii->is_generic && ii->trap_num >= 256 && ii->trap_num <= 259 && !c->trusted)
		return SA_STATUS_REQ_DENIED;
	if (!c->requester || !c->requester->guid)
		return SA_STATUS_REQ_INVALID;   /* nowhere to send Reports */
	return 0;
}

static uint16_t subscribe(struct sa *sa, struct sa_ctx *c, const uint8_t gid[16],
			  const struct sa_inform_info *ii)
{
	struct sa_sub *s = find_sub(sa, gid, ii);
	uint64_t per_port = sa_share(c, sa->conf.subs_per_port);

	if (!s) {
		if (per_port && subs_of(sa, gid) >= per_port) {
			sa_refuse(c, SA_REF_SUBS_PORT, SA_STATUS_NO_RESOURCES);
			return SA_STATUS_NO_RESOURCES;
		}
		if (sa->conf.max_subs && sa->nsubs >= sa->conf.max_subs) {
			sa_refuse(c, SA_REF_SUBS, SA_STATUS_NO_RESOURCES);
			return SA_STATUS_NO_RESOURCES;
		}
		if (sa->nsubs == sa->subs_cap) {
			sa->subs_cap = sa->subs_cap ? 2 * sa->subs_cap : 16;
			sa->subs = xrealloc(sa->subs, sa->subs_cap * sizeof(*sa->subs));
		}
		s = &sa->subs[sa->nsubs++];
		memset(s, 0, sizeof(*s));
		memcpy(s->gid, gid, 16);
		s->id = sa->next_sub_id++;
		if (!sa->next_sub_id)
			sa->next_sub_id = 1;
	}
	s->ii = *ii;
	s->ii.qpn = c->from.qpn;
	s->lid = c->from.dlid;
	mad_addr_reply(&c->from, &s->to);
	sa->gen++;
	return 0;
}

void sa_ii_set(struct sa_ctx *c)
{
	struct sa *sa = c->sa;
	struct sa_inform_info ii;
	struct sa_sub *s;
	uint8_t gid[16];
	uint16_t st;

	sa_inform_info_decode(c->tmpl, c->dlen, &ii);
	if ((st = ii_check(c, &ii))) {
		sa_fail(c, st);
		return;
	}
	sa_make_gid(c->snap->subnet_prefix, c->requester->guid, gid);
	if (!sa_work(c, sa->nsubs))
		return;
	if (ii.subscribe) {
		st = subscribe(sa, c, gid, &ii);
	} else if ((s = find_sub(sa, gid, &ii))) {
		*s = sa->subs[--sa->nsubs];
		sa->gen++;
	} else {
		st = SA_STATUS_REQ_INVALID;   /* not subscribed */
	}
	if (st)
		sa_fail(c, st);
	else
		sa_emit(c, c->tmpl);   /* the answer echoes the InformInfo */
}

void sa_iir_get(struct sa_ctx *c)
{
	struct sa *sa = c->sa;

	for (uint32_t i = 0; i < sa->nsubs; i++) {
		const struct sa_sub *s = &sa->subs[i];
		struct sa_inform_info_rec r;
		uint8_t rec[60];

		if (!c->local && !sa_part_pkey(c->snap, c->requester,
					       sa_port_by_guid(c, sa_gid_guid(s->gid)), 0))
			continue;
		memcpy(r.subscriber_gid, s->gid, 16);
		r.subscriber_enum = s->id;
		r.info = s->ii;
		r.info.subscribe = 1;
		sa_inform_info_rec_encode(&r, rec, sizeof(rec));
		if (!sa_emit(c, rec))
			return;
	}
}

void sa_inform_port_gone(struct sa *sa, uint64_t guid)
{
	for (uint32_t i = 0; i < sa->nsubs;) {
		if (sa_gid_guid(sa->subs[i].gid) == guid) {
			sa->subs[i] = sa->subs[--sa->nsubs];
			sa->gen++;
		} else
			i++;
	}
	for (uint32_t i = 0; i < sa->nreps;) {   /* Reports to nobody */
		if (sa->reps[i].guid == guid)
			report_remove(sa, i);
		else
			i++;
	}
}

uint32_t sa_inform_count(const struct sa *sa)
{
	return sa->nsubs;
}

/* --- Reports --- */

static bool notice_matches(const struct sa_inform_info *ii, const struct smp_notice *n)
{
	static const uint8_t zero[16];
	uint16_t end = ii->lid_end ? ii->lid_end : ii->lid_begin;

	if (!ii->is_generic != !n->is_generic)
		return false;
	if (ii->trap_num != ALL16 && ii->trap_num != n->trap_num)
		return false;
	if (ii->type != ALL16 && ii->type != n->type)
		return false;
	if (ii->producer_type != ALL24 && ii->producer_type != n->producer_type)
		return false;
	if (ii->lid_begin != ALL16 && (n->issuer_lid < ii->lid_begin || n->issuer_lid > end))
		return false;
	return !memcmp(ii->gid, zero, 16) || !memcmp(ii->gid, n->issuer_gid, 16);
}

static void report_send(struct sa *sa, struct sa_report *r, uint64_t now)
{
	r->tries++;
	r->deadline = now + SA_REPORT_RETRY_MS;
	sa->st.reports_sent++;
	/* a failed send is retried at the deadline like a lost one */
	sa->env.send(sa->env.arg, r->mad, sizeof(r->mad), &r->to);
}

static void report_build(struct sa *sa, struct sa_report *r, const struct smp_notice *n)
{
	struct sa_hdr h;

	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = SA_CLASS_VERSION;
	h.hdr.method = SA_METHOD_REPORT;
	h.hdr.tid = r->tid;
	h.hdr.attr_id = SA_ATTR_NOTICE;
	h.attr_offset = SA_REC_PADDED(80) / 8;
	memset(r->mad, 0, sizeof(r->mad));
	sa_hdr_encode(&h, r->mad, sizeof(r->mad));
	sa_notice_encode(n, r->mad + SA_HDR_SIZE, sizeof(r->mad) - SA_HDR_SIZE);
}

#define AS_SUBSCRIBER 0
#define AS_CAUSE 1

/* The Reports of subscriber port guid, or that its requests caused (made
 * when missing). */
static struct sa_rsub *rsub(struct sa *sa, uint64_t guid, uint8_t as)
{
	return porttab_get(&sa->rsubs, guid, as);
}

/* Report i is answered or given up: out of the queue. */
static void report_remove(struct sa *sa, uint32_t i)
{
	struct sa_rsub *rs = rsub(sa, sa->reps[i].guid, AS_SUBSCRIBER);

	if (rs->queued)
		rs->queued--;
	sa->reps[i] = sa->reps[--sa->nreps];
}

/* May one more notice that requester cause made be reported? */
static bool cause_admits(struct sa *sa, uint64_t cause)
{
	struct sa_rsub *c = rsub(sa, cause, AS_CAUSE);
	uint64_t now = sa_now(sa);

	if (!c->started) {
		c->started = true;
		c->tokens = SA_CAUSE_NOTICE_BURST;
	} else if (now > c->t_ms) {
		c->tokens += (double)(now - c->t_ms) * SA_CAUSE_NOTICE_RATE / 1000.0;
		if (c->tokens > SA_CAUSE_NOTICE_BURST)
			c->tokens = SA_CAUSE_NOTICE_BURST;
	}
	c->t_ms = now;
	if (c->tokens < 1.0)
		return false;
	c->tokens -= 1.0;
	return true;
}

/* The queue is full: drop a Report of the subscriber with the most
 * waiting, if that is more than mine would make. */
static bool make_room(struct sa *sa, uint32_t mine)
{
	uint32_t worst = 0, most = 0;

	for (uint32_t i = 0; i < sa->nreps; i++) {
		uint32_t q = rsub(sa, sa->reps[i].guid, AS_SUBSCRIBER)->queued;

		if (q > most) {
			most = q;
			worst = i;
		}
	}
	if (most <= mine + 1)
		return false;
	sa->st.reports_dropped++;
	report_remove(sa, worst);
	return true;
}

static void report_queue(struct sa *sa, const struct sa_sub *s, const struct smp_notice *n)
{
	uint32_t per_port = sa->conf.reports_per_port ? sa->conf.reports_per_port
						       : SA_REPORTS_PER_PORT;
	uint32_t max = sa->conf.reports_max ? sa->conf.reports_max : SA_REPORTS_MAX;
	uint64_t guid = sa_gid_guid(s->gid);
	uint32_t queued = rsub(sa, guid, AS_SUBSCRIBER)->queued;
	struct sa_report *r;

	if (queued >= per_port || (sa->nreps >= max && !make_room(sa, queued))) {
		sa->st.reports_dropped++;
		return;
	}
	if (sa->nreps == sa->reps_cap) {
		sa->reps_cap = sa->reps_cap ? 2 * sa->reps_cap : 16;
		sa->reps = xrealloc(sa->reps, sa->reps_cap * sizeof(*sa->reps));
	}
	rsub(sa, guid, AS_SUBSCRIBER)->queued++;
	r = &sa->reps[sa->nreps++];
	memset(r, 0, sizeof(*r));
	r->guid = guid;
	r->tid = sa->next_tid++;
	if (!sa->next_tid)
		sa->next_tid = 1;
	r->to = s->to;
	report_build(sa, r, n);
	report_send(sa, r, sa_now(sa));
}

void sa_report_notice(struct sa *sa, const struct smp_notice *n)
{
	for (uint32_t i = 0; i < sa->nsubs; i++)
		if (notice_matches(&sa->subs[i].ii, n))
			report_queue(sa, &sa->subs[i], n);
}

void sa_inform_report_resp(struct sa *sa, uint64_t tid, const struct mad_addr *from)
{
	for (uint32_t i = 0; i < sa->nreps; i++) {
		struct sa_report *r = &sa->reps[i];

		if (r->tid == (uint32_t)tid && r->to.dlid == from->dlid) {
			sa->st.reports_acked++;
			rsub(sa, r->guid, AS_SUBSCRIBER)->fails = 0;
			report_remove(sa, i);
			return;
		}
	}
	sa->st.unexpected++;   /* late, or not ours */
}

void sa_inform_send_failed(struct sa *sa, uint64_t tid)
{
	/* the retry timer sends it again; nothing to do before then */
}

/* The subscriber's Reports failed SA_REPORT_FAILS_MAX times in a row
 * while its port was in service: its subscriptions go. */
static bool give_up(struct sa *sa, uint64_t guid)
{
	const struct sm_snap *s = sa->snap;   /* no sa_sync() here: the timer walks the Reports */
	const struct snap_port *p = s ? snap_port_by_guid(s, guid) : NULL;
	struct sa_rsub *rs = rsub(sa, guid, AS_SUBSCRIBER);
	uint32_t n = sa->nsubs;

	if (!p || !sa_in_service(s, p) || ++rs->fails < SA_REPORT_FAILS_MAX)
		return false;
	rs->fails = 0;
	sa_inform_port_gone(sa, guid);
	sa->st.subscribers_dropped++;
	log_notice("SA: port %016llx (LID %u) answered none of its last %u Reports: its %u "
		   "subscriptions are dropped (it may subscribe again)", (unsigned long long)guid,
		   p->lid, SA_REPORT_FAILS_MAX, n - sa->nsubs);
	return true;
}

void sa_inform_timer(struct sa *sa, uint64_t now)
{
	for (uint32_t i = 0; i < sa->nreps;) {
		struct sa_report *r = &sa->reps[i];
		uint64_t guid = r->guid;

		if (r->deadline > now) {
			i++;
		} else if (r->tries >= SA_REPORT_TRIES) {
			sa->st.reports_dropped++;
			report_remove(sa, i);
			if (give_up(sa, guid))
				i = 0;   /* its other Reports went: look again from the start */
		} else {
			report_send(sa, r, now);
			i++;
		}
	}
}

uint64_t sa_inform_deadline(const struct sa *sa)
{
	uint64_t d = UINT64_MAX;

	for (uint32_t i = 0; i < sa->nreps; i++)
		if (sa->reps[i].deadline < d)
			d = sa->reps[i].deadline;
	return d;
}

void sa_inform_free(struct sa *sa)
{
	free(sa->subs);
	free(sa->reps);
	porttab_free(&sa->rsubs);
	sa->subs = NULL;
	sa->reps = NULL;
	sa->nsubs = sa->subs_cap = sa->nreps = sa->reps_cap = 0;
}

/* --- traps 64 and 65 --- */

void sa_sm_notice(const struct sm_snap *s, uint16_t trap, const uint8_t gid[16],
		  struct smp_notice *n)
{
	memset(n, 0, sizeof(*n));
	n->is_generic = 1;
	n->type = NOTICE_TYPE_SM;
	n->producer_type = PRODUCER_CLASS_MANAGER;
	n->trap_num = trap;
	n->issuer_lid = s->sm_lid;
	/* the GID in DataDetails bytes 6..21, i.e. Notice bytes 16..31 */
	memcpy(n->data_details + 6, gid, 16);
	sa_make_gid(s->subnet_prefix, s->sm_port_guid, n->issuer_gid);
}

void sa_report_mcast(struct sa *sa, uint16_t trap, const uint8_t mgid[16], uint16_t pkey)
{
	const struct sa_index *ix;
	const struct sm_snap *s = sa->nsubs ? sa_snap(sa, &ix) : NULL;
	struct smp_notice n;

	if (!s)
		return;
	if (sa->cause && !cause_admits(sa, sa->cause)) {
		sa->st.notices_dropped++;
		return;
	}
	sa_sm_notice(s, trap, mgid, &n);
	for (uint32_t i = 0; i < sa->nsubs; i++) {
		const struct snap_port *p = snap_port_by_guid(s, sa_gid_guid(sa->subs[i].gid));

		/* a group's existence is news only inside its partition */
		if (notice_matches(&sa->subs[i].ii, &n) && sa_part_holds(s, p, pkey))
			report_queue(sa, &sa->subs[i], &n);
	}
}

static void report_gid(struct sa *sa, const struct sm_snap *s, uint16_t trap, uint64_t guid)
{
	struct smp_notice n;
	uint8_t gid[16];

	sa_make_gid(s->subnet_prefix, guid, gid);
	sa_sm_notice(s, trap, gid, &n);
	sa_report_notice(sa, &n);
}

static bool was_in_service(const struct sm_snap *s, uint64_t guid)
{
	const struct snap_port *p = snap_port_by_guid(s, guid);

	return p && sa_in_service(s, p);
}

void sa_inform_diff(struct sa *sa, const struct sm_snap *old, const struct sm_snap *cur)
{
	if (!sa->nsubs)
		return;
	for (uint32_t i = 0; i < cur->nports; i++) {
		const struct snap_port *p = &cur->ports[i];

		if (sa_in_service(cur, p) && !was_in_service(old, p->guid))
			report_gid(sa, cur, TRAP_GID_IN, p->guid);
	}
	for (uint32_t i = 0; i < old->nports; i++) {
		const struct snap_port *p = &old->ports[i];

		if (sa_in_service(old, p) && !was_in_service(cur, p->guid))
			report_gid(sa, cur, TRAP_GID_OUT, p->guid);
	}
}
