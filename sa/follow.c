/*
 * DOC: a standby's copy of the master's groups, services and
 * subscriptions, read through the master's SA, so that it serves them at
 * once if it takes over (sa/keep.c decides).
 *
 * The queries are GSI GetTables of a trusted requester (SM_Key =
 * sa_key), LID-routed to the master's LID, one in flight at a time, at
 * most standby_copy_rate a second; a standby sends no SMP Set, ever, and
 * its SA agent is registered (mad/umad.c), so the answers arrive. A copy
 * is a round over every end port the standby discovered (CA ports and
 * switch port 0): MCMemberRecord with the PortGID, ServiceRecord with the
 * ServiceGID, InformInfoRecord with the SubscriberGID of that port. Narrow
 * queries because a port has a handful of each: they work with the
 * kernel's RMPP on hardware and within the 256 bytes a MAD carries
 * through ibsim (3 MCMemberRecords; a ServiceRecord's last 8 bytes and an
 * InformInfoRecord past the second may arrive damaged there).
 *
 * Whether a copy is complete and current comes from the master itself:
 * ibsmd's SA answers ClientStateInfo (mad/sa.h), the number of groups,
 * memberships, services and subscriptions and a generation that moves
 * with every change. It is asked every sm_poll_interval. A round starts
 * when the generation differs from the copy's, and counts only if the
 * generation did not move during it and the round found as many
 * memberships, services and subscriptions as the master counts (a port
 * the standby did not discover, a partition it is not in, an answer cut
 * short, would each show there). The copy is current while the latest
 * answer, at most (sm_poll_retries + 3) x sm_poll_interval old, still
 * has its generation. A round that comes out incomplete while the
 * generation stood still is tried again AGAIN_MS later, not at once. An
 * SM that does not answer ClientStateInfo (OpenSM)
 * or refuses our key is not copied: a takeover from it tells the hosts.
 */
#include "config.h"

#include <endian.h>
#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa.h"
#include "sa/glue.h"
#include "sa/keep.h"
#include "sa/sa.h"
#include "sm/clientfile.h"
#include "sm/log.h"
#include "sm/mcdb.h"
#include "sm/sm.h"

#define QUERY_TIMEOUT_MS 1000
#define RETRY_NOT_OURS_MS 30000
#define INFO_SILENT_MAX 3           /* unanswered ClientStateInfo Gets: not ours */
#define AGAIN_MS 10000              /* after a round that came out incomplete */

#define SR_SIZE 176
#define IIR_SIZE 60
#define MCMR_SIZE 52

enum q_kind { Q_INFO, Q_MCMR, Q_SR, Q_IIR, Q_KINDS };

/* One membership as a query found it. */
struct found {
	struct sa_mcmember_rec rec;
	uint64_t guid;
};

struct end_port {
	uint64_t guid;
	uint16_t lid;
};

static struct {
	struct event *ev;
	uint64_t master;            /* the SM we follow, 0: none */
	/* the query in flight */
	bool busy;
	enum q_kind kind;
	uint32_t tid, next_tid;
	uint64_t sent_ms, info_sent_ms;
	/* the master's latest ClientStateInfo */
	bool have_info, not_ours;
	unsigned info_silent;       /* ClientStateInfo Gets unanswered in a row */
	struct sa_clients_info info;
	uint64_t info_ms;
	/* the round */
	bool in_round, round_bad, final_check;
	uint64_t round_gen, round_start_ms, next_round_ms;
	struct end_port *ports;
	size_t nports, next;
	enum q_kind next_kind;
	struct found *found;
	size_t nfound, found_cap;
	struct client_state extra;  /* services and subscriptions found */
	/* a round keeps no more than a state file may hold: a master that
	 * answers more is not copied */
	struct client_limits lim;
	/* the copy */
	bool have_copy;
	struct client_state copy;
	uint64_t copy_gen, copy_ms;
	uint64_t rounds, copies, queries, failed;
	bool said_not_ours, said_incomplete;
} fl;

static bool following(const struct sm *sm)
{
	return sm->state == SM_STATE_STANDBY && sm->master_guid && sm->conf.standby_copy_rate &&
	       sm->conf.sa_key && sm->fabric && !sm->stopping;
}

static uint16_t master_lid(const struct sm *sm)
{
	for (size_t i = 0; i < sm->peers.n; i++)
		if (sm->peers.v[i].guid == fl.master)
			return sm->peers.v[i].lid;
	return 0;
}

static void round_free(void)
{
	free(fl.ports);
	free(fl.found);
	fl.ports = NULL;
	fl.found = NULL;
	fl.nports = fl.next = fl.nfound = fl.found_cap = 0;
	client_state_free(&fl.extra);
	fl.in_round = fl.round_bad = fl.final_check = false;
}

/* Everything about the master we followed goes. */
static void reset(void)
{
	round_free();
	client_state_free(&fl.copy);
	fl.have_copy = fl.have_info = fl.not_ours = fl.busy = false;
	fl.said_not_ours = fl.said_incomplete = false;
	fl.master = 0;
}

/* --- queries ------------------------------------------------------------------------ */

static void make_gid(const struct sm *sm, uint64_t guid, uint8_t gid[16])
{
	uint64_t p = htobe64(sm->conf.subnet_prefix), g = htobe64(guid);

	memcpy(gid, &p, 8);
	memcpy(gid + 8, &g, 8);
}

/* The template of a query about port guid, and its ComponentMask. */
static uint64_t template(const struct sm *sm, enum q_kind k, uint64_t guid, uint8_t *data)
{
	switch (k) {
	case Q_MCMR:
		make_gid(sm, guid, data + 16);   /* PortGID */
		return MCM_PORT_GID;
	case Q_SR:
		make_gid(sm, guid, data + 8);    /* ServiceGID */
		return 1ull << 1;
	case Q_IIR:
		make_gid(sm, guid, data);        /* SubscriberGID */
		return 1ull << 0;
	default:
		return 0;
	}
}

static void send_query(struct sm *sm, enum q_kind k, uint64_t guid)
{
	static const uint16_t attrs[Q_KINDS] = { SA_ATTR_CLIENTS_INFO, SA_ATTR_MCMEMBER_REC,
						 SA_ATTR_SERVICE_REC, SA_ATTR_INFORM_INFO_REC };
	struct mad_addr to = { .dlid = master_lid(sm), .qpn = 1, .qkey = MAD_QKEY_GSI };
	uint8_t mad[MAD_SIZE];
	struct sa_hdr h;

	memset(mad, 0, sizeof(mad));
	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = SA_CLASS_VERSION;
	h.hdr.method = k == Q_INFO ? SA_METHOD_GET : SA_METHOD_GET_TABLE;
	if (!++fl.next_tid)
		fl.next_tid++;
	h.hdr.tid = fl.tid = fl.next_tid;
	h.hdr.attr_id = attrs[k];
	h.sm_key = sm->conf.sa_key;
	h.comp_mask = template(sm, k, guid, mad + SA_HDR_SIZE);
	sa_hdr_encode(&h, mad, SA_HDR_SIZE);
	fl.busy = true;
	fl.kind = k;
	fl.sent_ms = sm_now_ms();
	fl.queries++;
	if (k == Q_INFO)
		fl.info_sent_ms = fl.sent_ms;
	if (!to.dlid || mad_engine_send_gsi(sm->eng, mad, sizeof(mad), &to) < 0)
		fl.sent_ms = 0;   /* fails at the next tick */
}

/* --- rounds ---------------------------------------------------------------------------- */

static void add_port(uint64_t guid, uint16_t lid, size_t *cap)
{
	if (!guid)
		return;
	if (fl.nports == *cap)
		fl.ports = xrealloc(fl.ports, (*cap = *cap ? 2 * *cap : 64) * sizeof(*fl.ports));
	fl.ports[fl.nports++] = (struct end_port){ guid, lid };
}

/* Every end port we discovered: CA ports, switch port 0. */
static void round_start(struct sm *sm, uint64_t gen)
{
	const struct sm_fabric *f = sm->fabric;
	size_t cap = 0;

	round_free();
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		if (node_is_switch(n)) {
			add_port(n->ports[0].guid, n->ports[0].pi.lid, &cap);
			continue;
		}
		for (unsigned k = 1; k <= n->ni.num_ports; k++)
			add_port(n->ports[k].guid, n->ports[k].pi.lid, &cap);
	}
	sa_glue_limits(sm, &fl.lim);
	fl.in_round = true;
	fl.round_gen = gen;
	fl.round_start_ms = sm_now_ms();
	fl.next_kind = Q_MCMR;
	fl.rounds++;
}

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int c = memcmp(x->rec.mgid, y->rec.mgid, 16);

	return c ? c : (x->guid > y->guid) - (x->guid < y->guid);
}

/* Two records of one group must agree on the group's fields. */
static bool same_group(const struct sa_mcmember_rec *a, const struct sa_mcmember_rec *b)
{
	return a->mlid == b->mlid && a->qkey == b->qkey && a->pkey == b->pkey &&
	       a->mtu == b->mtu && a->rate == b->rate && a->pkt_life == b->pkt_life &&
	       a->sl == b->sl && a->tclass == b->tclass && a->flow_label == b->flow_label &&
	       a->hop_limit == b->hop_limit && a->scope == b->scope;
}

/* The memberships found, as groups in MGID order; false if they disagree. */
static bool build_groups(struct client_state *cs)
{
	if (fl.nfound)   /* fl.found is NULL when no port is in a group */
		qsort(fl.found, fl.nfound, sizeof(*fl.found), found_cmp);
	for (size_t i = 0; i < fl.nfound; i++) {
		const struct found *f = &fl.found[i];
		bool first = !i || memcmp(f->rec.mgid, fl.found[i - 1].rec.mgid, 16);

		/* the master's records do not say who created a group or made a
		 * proxy's membership: none, and a member its own maker */
		if (first)
			client_add_group(cs, &f->rec, false, 0);
		else if (!same_group(&f->rec, &fl.found[i - 1].rec) || f->guid == fl.found[i - 1].guid)
			return false;
		client_add_member(cs, f->guid, f->rec.join_state & 0xF, f->rec.proxy_join & 1,
				  f->rec.proxy_join & 1 ? 0 : f->guid);
	}
	return true;
}

static void append_extra(struct client_state *cs)
{
	for (size_t i = 0; i < fl.extra.nservices; i++)
		*client_add_service(cs) = fl.extra.services[i];
	for (size_t i = 0; i < fl.extra.nsubs; i++)
		*client_add_sub(cs) = fl.extra.subs[i];
}

static bool counts_match(const struct client_state *cs)
{
	return cs->nmembers == fl.info.members && cs->nservices == fl.info.services &&
	       cs->nsubs == fl.info.subs && cs->ngroups <= fl.info.groups;
}

/* The round is over and the master's generation did not move. */
static void round_end(struct sm *sm)
{
	struct client_state cs;
	char err[256];
	bool ok;

	client_state_init(&cs);
	cs.sm_guid = fl.master;
	cs.subnet_prefix = sm->conf.subnet_prefix;
	ok = !fl.round_bad && build_groups(&cs);
	append_extra(&cs);
	ok = ok && counts_match(&cs) &&
	     client_state_check(&cs, &fl.lim, "copy", err, sizeof(err)) == 0;
	if (ok) {
		client_state_free(&fl.copy);
		fl.copy = cs;
		fl.have_copy = true;
		fl.copy_gen = fl.round_gen;
		fl.copy_ms = sm_now_ms();
		fl.copies++;
		fl.said_incomplete = false;
		log_info("standby: copied the master's state: %zu groups, %zu memberships, %zu services, "
			 "%zu subscriptions in %" PRIu64 " ms", cs.ngroups, cs.nmembers, cs.nservices,
			 cs.nsubs, fl.copy_ms - fl.round_start_ms);
	} else {
		if (!fl.said_incomplete)
			log_notice("standby: the copy of the master's state is incomplete (%zu of %u "
				   "memberships, %zu of %u services, %zu of %u subscriptions%s): "
				   "copying again", cs.nmembers, fl.info.members, cs.nservices,
				   fl.info.services, cs.nsubs, fl.info.subs,
				   fl.round_bad ? ", queries failed" : "");
		fl.said_incomplete = true;
		fl.next_round_ms = sm_now_ms() + AGAIN_MS;
		client_state_free(&cs);
	}
	round_free();
}

/* --- answers ------------------------------------------------------------------------------ */

/* The master shows us nothing: OpenSM answers ClientStateInfo with an
 * error or not at all, an ibsmd with another sa_key refuses us. */
static void not_ours(const char *why)
{
	if (!fl.said_not_ours)
		log_notice("standby: SM %016" PRIx64 " does not show its clients' state to us (%s: "
			   "not ibsmd, or another sa_key): no copy, a takeover will tell the hosts "
			   "to register again", fl.master, why);
	fl.said_not_ours = fl.not_ours = true;
	fl.have_info = false;
	round_free();
}

static void got_info(struct sm *sm, uint16_t status, const uint8_t *rec, size_t len)
{
	struct sa_clients_info ci;
	char why[40];

	fl.info_silent = 0;
	if (status || len < 48 || sa_clients_info_decode(rec, len, &ci) < 0 || !ci.version ||
	    ci.sm_guid != fl.master) {
		snprintf(why, sizeof(why), "status 0x%04x", status);
		not_ours(why);
		return;
	}
	fl.not_ours = false;
	fl.info = ci;
	fl.have_info = true;
	fl.info_ms = sm_now_ms();
	if (fl.in_round && (ci.gen != fl.round_gen || fl.final_check)) {
		if (ci.gen == fl.round_gen)
			round_end(sm);
		else
			round_free();   /* it changed meanwhile: start again */
	}
	if (!fl.in_round && !(fl.have_copy && fl.copy_gen == ci.gen) &&
	    fl.info_ms >= fl.next_round_ms)
		round_start(sm, ci.gen);
}

static uint64_t gid_guid(const uint8_t gid[16])
{
	uint64_t g;

	memcpy(&g, gid + 8, 8);
	return be64toh(g);
}

static void got_mcmr(const uint8_t *rec, uint64_t guid)
{
	struct found *f;

	if (fl.nfound >= fl.lim.members) {
		fl.round_bad = true;
		return;
	}
	if (fl.nfound == fl.found_cap)
		fl.found = xrealloc(fl.found, (fl.found_cap = fl.found_cap ? 2 * fl.found_cap : 64) *
					      sizeof(*fl.found));
	f = &fl.found[fl.nfound];
	if (sa_mcmember_rec_decode(rec, MCMR_SIZE, &f->rec) < 0 ||
	    gid_guid(f->rec.port_gid) != guid) {
		fl.round_bad = true;
		return;
	}
	f->guid = guid;
	fl.nfound++;
}

static void got_sr(const uint8_t *rec)
{
	struct cf_service *s;
	uint32_t lease;

	if (fl.extra.nservices >= fl.lim.services) {
		fl.round_bad = true;
		return;
	}
	s = client_add_service(&fl.extra);

	memcpy(s->rec, rec, SR_SIZE);
	s->owner_guid = gid_guid(rec + 8);   /* the ServiceGID's port owns it */
	/* the lease as registered: it runs again from the takeover */
	memcpy(&lease, rec + 28, 4);
	lease = be32toh(lease);
	s->lease_end_ms = lease == UINT32_MAX ? CLIENT_NEVER : sa_keep_wall_ms() + lease * 1000ull;
}

static void got_iir(const uint8_t *rec, const struct end_port *p)
{
	struct sa_inform_info_rec r;
	struct cf_sub *u;

	if (sa_inform_info_rec_decode(rec, IIR_SIZE, &r) < 0 || !p->lid ||
	    fl.extra.nsubs >= fl.lim.subs) {
		fl.round_bad = true;
		return;
	}
	u = client_add_sub(&fl.extra);
	memcpy(u->gid, r.subscriber_gid, 16);
	u->id = r.subscriber_enum;
	u->lid = p->lid;
	u->ii = r.info;
	u->to.dlid = p->lid;
	u->to.qpn = r.info.qpn;
	u->to.qkey = MAD_QKEY_GSI;
}

/* The records of a GetTableResp about the port of the round. */
static void got_records(enum q_kind k, uint16_t status, const uint8_t *data, size_t len,
			size_t stride)
{
	static const size_t size[Q_KINDS] = { 0, MCMR_SIZE, SR_SIZE, IIR_SIZE };
	const struct end_port *p = &fl.ports[fl.next];

	if (status == SA_STATUS_NO_RECORDS)
		return;
	if (status || (len && stride < size[k])) {
		fl.round_bad = true;
		return;
	}
	for (size_t off = 0; stride && off + size[k] <= len; off += stride) {
		if (k == Q_MCMR)
			got_mcmr(data + off, p->guid);
		else if (k == Q_SR)
			got_sr(data + off);
		else
			got_iir(data + off, p);
	}
}

/* The next query of the round: the next kind, or the next port. */
static void round_advance(void)
{
	if (fl.next_kind < Q_IIR) {
		fl.next_kind++;
		return;
	}
	fl.next_kind = Q_MCMR;
	if (++fl.next == fl.nports)
		fl.final_check = true;
}

static void answered(struct sm *sm, const struct sa_hdr *h, const uint8_t *msg, size_t len)
{
	const uint8_t *data = msg + SA_HDR_SIZE;
	size_t dlen = len - SA_HDR_SIZE;

	fl.busy = false;
	if (fl.kind == Q_INFO) {
		got_info(sm, h->hdr.status, data, dlen);
		return;
	}
	if (!fl.in_round || fl.next >= fl.nports)
		return;
	got_records(fl.kind, h->hdr.status, data, dlen, (size_t)h->attr_offset * 8);
	round_advance();
}

static void query_failed(void)
{
	fl.busy = false;
	fl.failed++;
	if (fl.kind == Q_INFO && ++fl.info_silent >= INFO_SILENT_MAX && !fl.not_ours)
		not_ours("no answer");
	if (fl.kind != Q_INFO && fl.in_round) {
		fl.round_bad = true;
		round_advance();
	}
}

static uint32_t tid_low(const uint8_t *mad)
{
	return (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 | (uint32_t)mad[14] << 8 | mad[15];
}

bool sa_follow_recv(struct sm *sm, const uint8_t *msg, size_t len, int status,
		    const struct mad_addr *from)
{
	struct sa_hdr h;

	/* a returned send carries only the first 24 bytes: the TID is there */
	if (!fl.busy || len < 16 || msg[1] != MAD_CLASS_SA || tid_low(msg) != fl.tid)
		return false;
	if (status) {   /* our own request, returned: it was not delivered */
		query_failed();
		return true;
	}
	if (!(msg[3] & 0x80) || sa_hdr_decode(msg, len, &h) < 0 || from->dlid != master_lid(sm))
		return false;   /* not from the master: the SA drops it as unexpected */
	answered(sm, &h, msg, len);
	return true;
}

/* --- the loop ---------------------------------------------------------------------------- */

static void arm(unsigned ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };

	evtimer_add(fl.ev, &tv);
}

/* The next query, if one is due; ms until the next look. */
static unsigned next_query(struct sm *sm, uint64_t now)
{
	unsigned every = sm->conf.sm_poll_interval, gap = 1000 / sm->conf.standby_copy_rate;
	uint64_t info_due = fl.info_sent_ms + (fl.not_ours ? RETRY_NOT_OURS_MS : every);

	if (fl.busy) {
		if (fl.sent_ms && now < fl.sent_ms + QUERY_TIMEOUT_MS)
			return (unsigned)(fl.sent_ms + QUERY_TIMEOUT_MS - now);
		query_failed();
	}
	if (!master_lid(sm))
		return every;   /* the election has not read the master's LID yet */
	if (now >= info_due || fl.final_check)
		send_query(sm, Q_INFO, 0);
	else if (fl.in_round)
		send_query(sm, fl.next_kind, fl.ports[fl.next].guid);
	else
		return (unsigned)(info_due - now);
	return gap ? gap : 1;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	if (!following(sm))
		return;
	arm(next_query(sm, sm_now_ms()));
	sm_arm_engine_timer(sm);
}

void sa_follow_changed(struct sm *sm)
{
	if (!following(sm)) {
		if (sm->state != SM_STATE_STANDBY && fl.master)
			reset();   /* master, or no longer following anyone */
		return;
	}
	if (fl.master != sm->master_guid) {
		reset();
		fl.master = sm->master_guid;
		fl.info_sent_ms = 0;
	}
	if (fl.ev && !evtimer_pending(fl.ev, NULL))
		arm(1);
}

bool sa_follow_take(struct sm *sm, struct client_state *out)
{
	uint64_t fresh = (uint64_t)(sm->conf.sm_poll_retries + 3) * sm->conf.sm_poll_interval;
	bool ok = fl.master && fl.have_copy && fl.have_info && fl.info.gen == fl.copy_gen &&
		  sm_now_ms() - fl.info_ms <= fresh;

	client_state_init(out);
	if (ok) {
		*out = fl.copy;
		client_state_init(&fl.copy);
		fl.have_copy = false;
	} else if (fl.master) {
		log_notice("no complete and current copy of SM %016" PRIx64 "'s clients' state (%s)",
			   fl.master, !fl.have_copy ? (fl.not_ours ? "it shows none to us" : "none made")
			   : fl.info.gen != fl.copy_gen ? "it changed since" : "not checked lately");
	}
	reset();
	return ok;
}

json_object *sa_follow_json(const struct sm *sm)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "following", json_object_new_boolean(following(sm) && fl.master));
	json_object_object_add(o, "copy", json_object_new_boolean(fl.have_copy));
	json_object_object_add(o, "current", json_object_new_boolean(
		fl.have_copy && fl.have_info && fl.info.gen == fl.copy_gen));
	json_object_object_add(o, "groups", json_object_new_int64((int64_t)fl.copy.ngroups));
	json_object_object_add(o, "memberships", json_object_new_int64((int64_t)fl.copy.nmembers));
	json_object_object_add(o, "services", json_object_new_int64((int64_t)fl.copy.nservices));
	json_object_object_add(o, "subscriptions", json_object_new_int64((int64_t)fl.copy.nsubs));
	json_object_object_add(o, "rounds", json_object_new_int64((int64_t)fl.rounds));
	json_object_object_add(o, "queries", json_object_new_int64((int64_t)fl.queries));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)fl.failed));
	return o;
}

void sa_follow_attach(struct sm *sm)
{
	memset(&fl, 0, sizeof(fl));
	fl.ev = evtimer_new(sm->base, on_timer, sm);
	/* TIDs that another host cannot guess from a restart of ours */
	fl.next_tid = (uint32_t)(sm_now_ms() * 2654435761u);
}

void sa_follow_detach(struct sm *sm)
{
	reset();
	if (fl.ev)
		event_free(fl.ev);
	fl.ev = NULL;
}
