/*
 * DOC: SMInfo queries, answers, standby polling and handover (see
 * sminfo.h for the behaviour, election.h for the rules).
 *
 * Every SMInfo SMP of ours carries a small context saying which port it
 * went to and what it was for; answers update the peer table. Queries of
 * a sweep count in the sweep's phase; polls, rescans and handovers run on
 * their own between sweeps.
 */
#include "config.h"

#include <event2/event.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "fabric/election.h"
#include "lib/log.h"
#include "sm/lidmgr.h"
#include "sm/phase.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/sweep.h"

#define CAP_IS_SM 0x00000002u           /* PortInfo:CapabilityMask IsSM */
#define CAP_SM_DISABLED 0x00000400u     /* ... IsSMdisabled */
#define STATUS_BAD_VALUE 0x001C         /* invalid attribute value or modifier */
#define TRAP_SM_PRIORITY 0x0008         /* Trap 144 ChangeFlags: SM priority */

enum q_kind { Q_SCAN, Q_RESCAN, Q_POLL, Q_HANDOVER, Q_ACK, Q_LID };

struct info_ctx {
	struct sm *sm;
	enum q_kind kind;
	uint64_t node_guid;       /* the port the query went to */
	uint8_t port;
	uint64_t target;          /* handover: the SM's GUID */
};

static struct sm_self self_of(const struct sm *sm)
{
	struct sm_self s = { sm->port.port_guid, (uint8_t)sm->conf.sm_priority, sm->conf.sm_key };

	return s;
}

uint32_t sm_act_count(const struct sm *sm)
{
	struct mad_stats ms;

	mad_engine_get_stats(sm->eng, &ms);
	return (uint32_t)(ms.sent + ms.raw_sent);
}

static void fill_info(const struct sm *sm, struct smp_sm_info *si, bool with_key, uint8_t state)
{
	memset(si, 0, sizeof(*si));
	si->guid = sm->port.port_guid;
	/* IBA 14.4.1: the key only to whoever could have read it anyway */
	si->sm_key = with_key ? sm->conf.sm_key : 0;
	si->act_count = sm_act_count(sm);
	si->priority = (uint8_t)sm->conf.sm_priority;
	si->sm_state = state;
}

/* --- state changes --- */

static void poll_arm(struct sm *sm, unsigned ms);

static void become(struct sm *sm, enum sm_state to, uint64_t master)
{
	if (sm->state == to && sm->master_guid == master)
		return;
	if (master)
		log_notice("SM state %s -> %s, master %016" PRIx64, sm_state_name((int)sm->state),
			   sm_state_name(to), master);
	else
		log_notice("SM state %s -> %s", sm_state_name((int)sm->state), sm_state_name(to));
	sm->state = to;
	sm->master_guid = master;
	memset(&sm->poll, 0, sizeof(sm->poll));
	sm->poll.master = master;
	if (sm->ev_poll)
		evtimer_del(sm->ev_poll);
	if (to == SM_STATE_STANDBY)
		poll_arm(sm, sm->conf.sm_poll_interval);
	if (to == SM_STATE_MASTER)
		sm->subnet_up = false;   /* ours to bring up now */
	sm_event(sm, "sm_state", NULL);
}

/* Take the fabric over from an SM that is gone, stuck or handing over: keep
 * what the ports and switches hold, write only what differs. */
static void take_over(struct sm *sm, const char *why)
{
	log_notice("taking over: %s", why);
	sm->takeover = true;
	sm->reread_lfts = true;
	sm_sweep_request(sm);
}

/* --- sending --- */

static const struct sm_port *port_of(const struct sm *sm, uint64_t node_guid, uint8_t port)
{
	const struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, node_guid) : NULL;

	return n && port <= n->ni.num_ports && !n->stale ? &n->ports[port] : NULL;
}

static struct info_ctx *ctx_new(struct sm *sm, enum q_kind k, const struct sm_port *p)
{
	struct info_ctx *c = xcalloc(1, sizeof(*c));

	c->sm = sm;
	c->kind = k;
	if (p) {
		c->node_guid = p->node->guid;
		c->port = p->num;
	}
	return c;
}

static int send_dr(struct sm *sm, struct info_ctx *c, const struct sm_port *p, uint8_t method,
		   unsigned mod, uint8_t state, mad_done_fn cb)
{
	struct smp_sm_info si;
	struct mad_req r;

	sm_port_req(sm, p, method, SMP_ATTR_SM_INFO, mod, &r);
	r.flags = MAD_REQ_NO_BACKOFF;    /* an SM that went away does not come back */
	if (method == MAD_METHOD_SET) {
		fill_info(sm, &si, true, state);
		smp_sm_info_encode(&si, r.data, sizeof(r.data));
	}
	if (c->kind == Q_SCAN)
		return sm_submit(sm, &r, cb, c);
	return mad_engine_submit(sm->eng, &r, cb, c);
}

static bool decode_answer(int err, const struct smp *resp, struct smp_sm_info *si)
{
	return err == MAD_OK && smp_sm_info_decode(resp->data, sizeof(resp->data), si) == 0;
}

/* A peer answered: record it, and where it sits. */
static struct sm_peer *note_peer(struct sm *sm, const struct info_ctx *c,
				 const struct smp_sm_info *si)
{
	struct sm_self me = self_of(sm);
	const struct sm_port *p = port_of(sm, c->node_guid, c->port);
	struct sm_peer *peer;
	bool fresh, was_foreign;

	if (si->guid == me.guid || !si->guid)
		return NULL;
	fresh = !sm_peer_find(&sm->peers, si->guid);
	peer = sm_peer_get(&sm->peers, si->guid);
	if (!peer)
		return NULL;
	was_foreign = peer->foreign;
	sm_peer_seen(peer, si, &me, clock_ms());
	if (p) {
		peer->node_guid = c->node_guid;
		peer->port = c->port;
		peer->lid = p->lid ? p->lid : p->pi.lid;
	}
	if (fresh)
		log_notice("SM %016" PRIx64 " found at LID %u: %s, priority %u", si->guid, peer->lid,
			   sm_state_name(si->sm_state), si->priority);
	if (peer->foreign && (fresh || !was_foreign))
		log_warnx("SM %016" PRIx64 " has another SM_Key: ignored", si->guid);
	return peer;
}

/* --- the sweep's scan and the election --- */

static bool is_sm_port(const struct sm *sm, const struct sm_port *p)
{
	const struct sm_fabric *f = sm->fabric;

	if (!p->guid || !p->have_pi || p->stale || p->dup_guid)
		return false;
	if (p->node == f->sm_node && p->num == (node_is_switch(p->node) ? 0 : f->sm_port_num))
		return false;
	return (p->pi.cap_mask & CAP_IS_SM) && !(p->pi.cap_mask & CAP_SM_DISABLED);
}

/* A query's answer into the peer table; frees its context. */
static struct sm *absorb(struct info_ctx *c, int err, const struct smp *resp)
{
	struct sm *sm = c->sm;
	struct smp_sm_info si;

	if (decode_answer(err, resp, &si))
		note_peer(sm, c, &si);
	free(c);
	return sm;
}

static void scan_done(void *arg, int err, const struct smp *resp)
{
	sm_phase_put(absorb(arg, err, resp));
}

static void ask_all(struct sm *sm, enum q_kind kind, mad_done_fn cb)
{
	for (size_t i = 0; i < sm->peers.n; i++)
		sm->peers.v[i].seen = false;
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		for (unsigned k = 0; node_usable(n) && k <= n->ni.num_ports; k++) {
			struct info_ctx *c;

			if (!is_sm_port(sm, &n->ports[k]))
				continue;
			c = ctx_new(sm, kind, &n->ports[k]);
			if (send_dr(sm, c, &n->ports[k], MAD_METHOD_GET, 0, 0, cb) < 0)
				free(c);
			else if (kind == Q_RESCAN)
				sm->rescan_pending++;
		}
	}
}

static void elect(struct sm *sm)
{
	struct sm_self me = self_of(sm);
	const struct sm_peer *m, *yield;
	enum sm_state to;

	if (sm->state == SM_STATE_MASTER) {
		/* handed over to us, or our own sweep: only a higher master counts */
		election_as_master(&sm->peers, &me, &yield);
		to = yield ? SM_STATE_STANDBY : SM_STATE_MASTER;
		m = yield;
	} else {
		to = election_after_discovery(&sm->peers, &me, &m);
	}
	if (to == SM_STATE_MASTER) {
		become(sm, SM_STATE_MASTER, 0);
	} else {
		sm->takeover = false;
		become(sm, SM_STATE_STANDBY, m->guid);
	}
	sm->elected(sm);
}

void sm_sminfo_phase(struct sm *sm, void (*done)(struct sm *))
{
	sm->elected = done;
	sm_phase_begin(sm, elect);
	ask_all(sm, Q_SCAN, scan_done);
	sm_phase_end(sm);
}

/* --- as master: rescans and handover --- */

static bool writes_running(const struct sm *sm)
{
	return sm->sweeping || sm->light.running;
}

static void handover_done(void *arg, int err, const struct smp *resp)
{
	struct info_ctx *c = arg;
	struct sm *sm = c->sm;

	sm->handing_over = false;
	/* IBA 14.4.2: the receiver's GetResp accepting
	 * HANDOVER is the exchange; ACKNOWLEDGE is optional (OpenSM never
	 * sends it), so we step down on the answer, not before it. */
	if (err == MAD_OK && sm->state == SM_STATE_MASTER) {
		log_notice("handed over to SM %016" PRIx64, c->target);
		sm->handed_to = c->target;
		sm->sweep_again = false;   /* the new master sweeps */
		become(sm, SM_STATE_STANDBY, c->target);
	} else if (err != MAD_OK) {
		log_warnx("handover to SM %016" PRIx64 " failed (%d): staying master", c->target, err);
		if (sm->sweep_again && sm->state == SM_STATE_MASTER) {
			sm->sweep_again = false;
			sm_sweep_request(sm);   /* the one held back while handing over */
		}
	}
	free(c);
}

/* Sends HANDOVER to `to`. From here until its answer we write nothing
 * (sm_may_write() is false): the other SM may already be master. The
 * callers make sure no sweep or light sweep of ours is writing. */
static int hand_over(struct sm *sm, const struct sm_peer *to)
{
	const struct sm_port *p = port_of(sm, to->node_guid, to->port);
	struct info_ctx *c;

	if (!p)
		return -1;
	log_notice("handing over to SM %016" PRIx64 " (priority %u)", to->guid, to->priority);
	c = ctx_new(sm, Q_HANDOVER, p);
	c->target = to->guid;
	sm->handing_over = true;
	if (send_dr(sm, c, p, MAD_METHOD_SET, SM_CTL_HANDOVER, SM_STATE_MASTER, handover_done) < 0) {
		sm->handing_over = false;
		free(c);
		return -1;
	}
	return 0;
}

/* An operator's handover that waited for our writes to end. */
static bool wanted_handover(struct sm *sm)
{
	const struct sm_peer *to = election_best_standby(&sm->peers);

	sm->handover_wanted = false;
	if (!to) {
		log_warnx("handover asked for: no standby SM any more, staying master");
		return false;
	}
	return hand_over(sm, to) == 0;
}

void sm_sminfo_after_sweep(struct sm *sm)
{
	struct sm_self me = self_of(sm);
	const struct sm_peer *to, *yield;

	if (sm->state != SM_STATE_MASTER || sm->run.once || sm->handing_over || writes_running(sm))
		return;
	if (sm->handover_wanted && wanted_handover(sm))
		return;
	to = election_as_master(&sm->peers, &me, &yield);
	if (yield)
		become(sm, SM_STATE_STANDBY, yield->guid);
	else if (to)
		hand_over(sm, to);
}

static void rescan_done(void *arg, int err, const struct smp *resp)
{
	struct sm *sm = absorb(arg, err, resp);

	if (--sm->rescan_pending == 0 && !sm->sweeping)
		sm_sminfo_after_sweep(sm);
}

/* A port that took IsSM since the last sweep is not in our model yet: a
 * heavy sweep finds it; a known one is only asked again. */
void sm_sminfo_trap144(struct sm *sm, uint16_t issuer_lid)
{
	bool known = false;

	if (sm->state != SM_STATE_MASTER || !sm->fabric || sm->rescan_pending)
		return;
	for (size_t i = 0; i < sm->peers.n; i++)
		known |= sm->peers.v[i].lid == issuer_lid;
	if (!known || sm->sweeping) {
		sm_sweep_request(sm);
		return;
	}
	sm->rescan_pending = 1;
	ask_all(sm, Q_RESCAN, rescan_done);
	if (--sm->rescan_pending == 0)
		sm_sminfo_after_sweep(sm);
}

int sm_handover(struct sm *sm, char *err, size_t errlen)
{
	const struct sm_peer *to = election_best_standby(&sm->peers);

	if (sm->state != SM_STATE_MASTER) {
		snprintf(err, errlen, "not the master (%s)", sm_state_name((int)sm->state));
		return -1;
	}
	if (sm->handing_over) {
		snprintf(err, errlen, "a handover is already in flight");
		return -1;
	}
	if (!to) {
		snprintf(err, errlen, "no standby SM to hand over to");
		return -1;
	}
	if (writes_running(sm)) {
		/* never two masters: our sweep's writes end before the other
		 * SM becomes master */
		log_notice("handover asked for: after the running sweep");
		sm->handover_wanted = true;
		return 1;
	}
	if (hand_over(sm, to) < 0) {
		snprintf(err, errlen, "SM %016" PRIx64 " is not reachable", to->guid);
		return -1;
	}
	return 0;
}

bool sm_set_gate(void *arg, uint8_t mgmt_class, uint16_t attr_id)
{
	struct sm *sm = arg;
	struct mad_stats st;
	uint64_t n;

	/* SMInfo Sets are the SMs' control packets (IBA 14.4.2): HANDOVER as
	 * master, ACKNOWLEDGE on taking over; the rules are in this file */
	if (attr_id == SMP_ATTR_SM_INFO || sm_may_write(sm))
		return true;
	/* a bug of ours: say so, but not thousands of times (the engine
	 * counts this refusal once we return) */
	mad_engine_get_stats(sm->eng, &st);
	n = st.sets_refused + 1;
	if ((n & (n - 1)) == 0)
		log_msg(LOG_LVL_ERR, "BUG: SMP Set of attribute 0x%04x (class 0x%02x) refused: we are "
			"%s%s, not a writing master (%" PRIu64 " refused so far)", attr_id, mgmt_class,
			sm_state_name((int)sm->state), sm->handing_over ? " handing over" : "", n);
	return false;
}

/* --- as standby: polling --- */

/* Trap 144 with the SM-priority flag: tells a lower master to look at us
 * (OpenSM then sweeps and hands over). IBA 14.2.5.1, notice 144. */
static void nudge_master(struct sm *sm, uint16_t master_lid)
{
	const struct sm_node *n = sm->fabric ? sm->fabric->sm_node : NULL;
	struct smp_notice nt = { .is_generic = 1, .type = 4, .producer_type = 1, .trap_num = 144 };
	struct mad_addr to = { .dlid = master_lid };
	uint8_t buf[MAD_SIZE];
	struct smp t;

	if (!n || !master_lid)
		return;
	nt.issuer_lid = n->ports[sm->fabric->sm_port_num].pi.lid;
	nt.data_details[2] = (uint8_t)(nt.issuer_lid >> 8);
	nt.data_details[3] = (uint8_t)nt.issuer_lid;
	nt.data_details[11] = TRAP_SM_PRIORITY;
	memset(&t, 0, sizeof(t));
	t.hdr.base_version = 1;
	t.hdr.mgmt_class = MAD_CLASS_SMI;
	t.hdr.class_version = 1;
	t.hdr.method = MAD_METHOD_TRAP;
	t.hdr.tid = clock_ms();
	t.hdr.attr_id = SMP_ATTR_NOTICE;
	t.mkey = sm->conf.m_key;
	smp_notice_encode(&nt, t.data, sizeof(t.data));
	if (smp_encode(&t, buf, sizeof(buf)) == 0)
		mad_engine_send_raw(sm->eng, buf, sizeof(buf), &to);
}

static void lid_done(void *arg, int err, const struct smp *resp)
{
	struct info_ctx *c = arg;
	struct sm *sm = c->sm;
	struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, c->node_guid) : NULL;
	struct smp_port_info pi;

	if (err == MAD_OK && n && !n->stale && c->port <= n->ni.num_ports &&
	    smp_port_info_decode(resp->data, sizeof(resp->data), &pi) == 0) {
		n->ports[c->port].pi.lid = pi.lid;
		for (size_t i = 0; i < sm->peers.n; i++)
			if (sm->peers.v[i].node_guid == c->node_guid && sm->peers.v[i].port == c->port)
				sm->peers.v[i].lid = pi.lid;
	}
	free(c);
}

static void read_lid(struct sm *sm, const struct sm_port *p)
{
	struct info_ctx *c = ctx_new(sm, Q_LID, p);
	struct mad_req r;

	sm_port_req(sm, p, MAD_METHOD_GET, SMP_ATTR_PORT_INFO, p->num, &r);
	r.flags = MAD_REQ_NO_BACKOFF;
	if (mad_engine_submit(sm->eng, &r, lid_done, c) < 0)
		free(c);
}

/* A standby that discovered the fabric before the master gave out LIDs
 * knows neither its own LID nor the master's, and a trap needs both:
 * read them again instead of waiting for the master's next sweep. */
static void nudge_or_read_lids(struct sm *sm, const struct sm_peer *m)
{
	const struct sm_node *n = sm->fabric->sm_node;
	const struct sm_port *own = n ? &n->ports[sm->fabric->sm_port_num] : NULL;
	const struct sm_port *mp = port_of(sm, m->node_guid, m->port);

	if (m->lid && own && own->pi.lid) {
		nudge_master(sm, m->lid);
		return;
	}
	if (own && !own->pi.lid)
		read_lid(sm, own);
	if (mp && !m->lid)
		read_lid(sm, mp);
}

static void poll_done(void *arg, int err, const struct smp *resp)
{
	struct info_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_sm_info si;
	bool ok = decode_answer(err, resp, &si) && si.guid == sm->master_guid;
	struct sm_peer *m = ok ? note_peer(sm, c, &si) : NULL;
	struct sm_self me = self_of(sm);

	free(c);
	if (sm->state != SM_STATE_STANDBY || sm->sweeping)
		return;
	switch (sm_poll_result(&sm->poll, ok ? &si : NULL, sm->conf.sm_poll_retries)) {
	case POLL_OK:
		if (m && sm->fabric && sm_higher(me.priority, me.guid, m->priority, m->guid))
			nudge_or_read_lids(sm, m);
		poll_arm(sm, sm->conf.sm_poll_interval);
		break;
	case POLL_AGAIN:
		poll_arm(sm, sm->conf.sm_poll_interval / 4);
		break;
	case POLL_TAKEOVER:
		if (!sm->poll.failed && m) {
			/* it answers: only its frozen count says it no longer works */
			m->stuck = true;
			m->stuck_at = si.act_count;
		}
		take_over(sm, sm->poll.failed ? "the master stopped answering"
					      : "the master's ActCount stopped moving");
		break;
	case POLL_REELECT:
		log_notice("SM %016" PRIx64 " is no longer master: electing again", sm->master_guid);
		become(sm, SM_STATE_DISCOVERING, 0);
		sm_sweep_request(sm);
		break;
	}
}

static void poll_due(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	const struct sm_peer *m = sm_peer_find(&sm->peers, sm->master_guid);
	const struct sm_port *p = m ? port_of(sm, m->node_guid, m->port) : NULL;
	struct info_ctx *c;

	if (sm->state != SM_STATE_STANDBY || sm->sweeping)
		return;
	c = ctx_new(sm, Q_POLL, p);
	if (!p || send_dr(sm, c, p, MAD_METHOD_GET, 0, 0, poll_done) < 0)
		poll_done(c, MAD_ERR_SEND, NULL);
	sm_arm_engine_timer(sm);
}

static void poll_arm(struct sm *sm, unsigned ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };

	if (!sm->base)
		return;
	if (!sm->ev_poll)
		sm->ev_poll = evtimer_new(sm->base, poll_due, sm);
	evtimer_add(sm->ev_poll, &tv);
}

/* --- answering --- */

static void reply(struct sm *sm, struct smp *req, const struct mad_addr *from, uint16_t status)
{
	bool key = !sm->conf.m_key_protect || req->mkey == sm->conf.m_key;
	struct smp_sm_info si;
	uint8_t buf[MAD_SIZE];

	fill_info(sm, &si, key, (uint8_t)sm->state);
	req->hdr.method = MAD_METHOD_GET_RESP;
	req->hdr.status = status;
	/* DR: the answer goes back along the same path, D set, hop pointer
	 * left where it arrived (IBA 14.2.2.2) */
	if (req->hdr.mgmt_class == MAD_CLASS_SMI_DR)
		req->hdr.d_bit = 1;
	memset(req->data, 0, sizeof(req->data));
	smp_sm_info_encode(&si, req->data, sizeof(req->data));
	if (smp_encode(req, buf, sizeof(buf)) < 0 ||
	    mad_engine_send_raw(sm->eng, buf, sizeof(buf), from) < 0)
		log_fabric(LOG_LVL_INFO, "cannot answer SMInfo from LID %u", from->dlid);
}

static void ack_done(void *arg, int err, const struct smp *resp)
{
	free(arg);
}

static const char *const ctl_names[] = {
	"?", "HANDOVER", "ACKNOWLEDGE", "DISABLE", "STANDBY", "DISCOVER"
};

static void apply(struct sm *sm, unsigned mod, const struct smp_sm_info *in)
{
	switch (mod) {
	case SM_CTL_HANDOVER: {
		const struct sm_peer *m = sm_peer_find(&sm->peers, in->guid);
		const struct sm_port *p = m ? port_of(sm, m->node_guid, m->port) : NULL;
		struct info_ctx *c = p ? ctx_new(sm, Q_ACK, p) : NULL;

		if (c && send_dr(sm, c, p, MAD_METHOD_SET, SM_CTL_ACKNOWLEDGE, SM_STATE_STANDBY,
				 ack_done) < 0)
			free(c);
		become(sm, SM_STATE_MASTER, 0);
		take_over(sm, "the master handed over to us");
		break;
	}
	case SM_CTL_DISABLE:
		become(sm, SM_STATE_NOT_ACTIVE, in->guid);
		break;
	case SM_CTL_STANDBY:
		become(sm, SM_STATE_STANDBY, in->guid);
		break;
	case SM_CTL_DISCOVER:
		become(sm, SM_STATE_DISCOVERING, 0);
		sm_sweep_request(sm);
		break;
	default:
		log_info("SM %016" PRIx64 " acknowledged our handover", in->guid);
		break;
	}
}

/* The port GUID of a port of our model: a switch's SM is its port 0. */
static uint64_t port_guid_of(const struct sm_port *p)
{
	return node_is_switch(p->node) ? p->node->ports[0].guid : p->guid;
}

static const struct sm_port *port_by_lid(const struct sm *sm, uint16_t lid)
{
	const struct sm_fabric *f = sm->fabric;

	for (uint32_t i = 0; lid && lid < 0xC000 && i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		for (unsigned k = 0; k <= n->ni.num_ports; k++) {
			const struct sm_port *p = &n->ports[k];
			uint16_t base = p->lid ? p->lid : p->pi.lid;

			if (p->guid && base && lid >= base && lid < base + (1u << (p->pi.lmc & 7)))
				return p;
		}
	}
	return NULL;
}

/* Where a directed-route SMP came from: walk its return path back through
 * our model, from our own port over hop_cnt links (IBA 14.2.2: every hop
 * writes the port the SMP arrived on into ReturnPath, so leaving each
 * switch by that port retraces the route). */
static const struct sm_port *port_by_route(const struct sm *sm, const struct smp *req)
{
	const struct sm_fabric *f = sm->fabric;
	const struct sm_port *p;
	unsigned n = req->hdr.hop_cnt;

	if (!f->sm_node || node_is_switch(f->sm_node) || !n || n >= SMP_MAX_HOPS)
		return NULL;
	p = f->sm_node->ports[f->sm_port_num].peer;
	for (unsigned i = n - 1; p && i >= 1; i--) {
		unsigned out = req->return_path[i];

		if (out > p->node->ni.num_ports)
			return NULL;
		p = p->node->ports[out].peer;
	}
	return p;
}

/* The port GUID a SMInfo Set came from, 0 when our model cannot tell:
 * the source LID of a LID-routed SMP, the DrSLID of a directed route that
 * began LID-routed, else the directed route itself. */
static uint64_t sender_of(const struct sm *sm, const struct smp *req, const struct mad_addr *from)
{
	const struct sm_port *p;

	if (!sm->fabric)
		return 0;
	if (req->hdr.mgmt_class == MAD_CLASS_SMI)
		p = port_by_lid(sm, from->dlid);
	else if (req->dr_slid != LID_PERMISSIVE)
		p = port_by_lid(sm, req->dr_slid);
	else
		p = port_by_route(sm, req);
	return p ? port_guid_of(p) : 0;
}

static void answer_set(struct sm *sm, struct smp *req, const struct mad_addr *from)
{
	struct sm_self me = self_of(sm);
	struct smp_sm_info in;
	unsigned mod = req->hdr.attr_mod;
	uint64_t sender = sender_of(sm, req, from);
	int to = -1;

	memset(&in, 0, sizeof(in));
	if (smp_sm_info_decode(req->data, sizeof(req->data), &in) == 0)
		to = sm_ctl_verdict(mod, &in, sm->state, sm->master_guid, sm->handed_to, sender, &me);
	if (to < 0) {
		log_fabric(LOG_LVL_WARNING, "refused SMInfo Set %s from SM %016" PRIx64
			   " (says %s) at LID %u, sent by port %016" PRIx64 ": %s",
			   mod < 6 ? ctl_names[mod] : "?", in.guid, sm_state_name(in.sm_state),
			   from->dlid, sender,
			   sender && sender != in.guid ? "not sent by the SM it names" :
			   !sender ? "sender not found in our fabric" :
			   "not part of a handover with us");
		reply(sm, req, from, STATUS_BAD_VALUE);
		return;
	}
	log_notice("SMInfo Set %s from SM %016" PRIx64 " at LID %u", ctl_names[mod], in.guid,
		   from->dlid);
	reply(sm, req, from, 0);
	apply(sm, mod, &in);
}

void sm_sminfo_answer(struct sm *sm, struct smp *req, const struct mad_addr *from)
{
	if (req->hdr.method == MAD_METHOD_SET)
		answer_set(sm, req, from);
	else
		reply(sm, req, from, 0);
	sm_arm_engine_timer(sm);
}

size_t sm_sm_list(const struct sm *sm, uint16_t *lids, struct smp_sm_info *infos, size_t max)
{
	size_t n = 0;

	if (max) {
		lids[0] = sm->sm_lid;
		fill_info(sm, &infos[0], true, (uint8_t)sm->state);
	}
	n = 1;
	for (size_t i = 0; i < sm->peers.n; i++) {
		const struct sm_peer *p = &sm->peers.v[i];

		if (!p->answered || p->foreign)
			continue;
		if (n < max) {
			lids[n] = p->lid;
			infos[n] = (struct smp_sm_info){ .guid = p->guid, .sm_key = p->sm_key,
							 .act_count = p->act_count,
							 .priority = p->priority, .sm_state = p->state };
		}
		n++;
	}
	return n;
}

void sm_sminfo_fini(struct sm *sm)
{
	if (sm->ev_poll)
		event_free(sm->ev_poll);
	sm->ev_poll = NULL;
}
