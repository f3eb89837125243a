/*
 * DOC: the SA inside ibsmd: sa/ wired to struct sm.
 *
 * The SA gets its MADs from the engine's gsi hook, sends through
 * mad_engine_send_gsi(), reads port tables with LID-routed SMPs on the
 * same engine, answers from sm_snap_current() and only while
 * sm_is_master(). It listens to the SM: every change (a sweep or reroute
 * done, a state change) lets it catch up with the new snapshot (traps
 * 64/65), every trap the SM received goes to its subscribers, and the
 * multicast manager's group creations and deletions become traps 66/67.
 * What hosts built through it is saved and restored (sa/keep.c); a
 * standby copies an ibsmd master's (sa/follow.c), whose answers come in
 * here too.
 * MCMemberRecord requests go to the manager (sm_mcast_*), which owns the
 * groups and programs the MFTs. One
 * timer on the SM's event loop serves lease expiry, Report retries and
 * parked requests.
 *
 * A query storm must not delay a sweep: while one runs, the SA answers at
 * most sa_sweep_rate queries a second. The others wait in arrival order,
 * at most HOLD_MS each (then they are answered anyway) and HOLD_MAX of
 * them (then BUSY, which clients retry); the rest are answered as soon as
 * the sweep is done. Under ibsim, back-to-back heavy sweeps of a 152-node
 * tree took 13.5 ms idle and 16.1 ms under 4 loaders' PathRecord load
 * without this, the same as idle with it (bench/bench-sa.sh).
 */
#include "config.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "sa/host.h"
#include "sa/keep.h"
#include "sa/sa.h"
#include "lib/log.h"
#include "sm/mcast.h"
#include "sm/problems.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/snap_build.h"

/* After a request, the pump keeps waiting for the next one this long
 * instead of sleeping (daemon/main.c on_pump). */
#define SA_BUSY_MS 20

#define HOLD_MAX 4096
#define HOLD_MS 500

static struct event *ev_sa;
static uint64_t last_request_ms;

/* Requests waiting for the sweep to end (or for their turn). */
struct held {
	struct held *next;
	uint64_t t_us;          /* receipt (CLOCK_MONOTONIC): hold age, SA latency */
	struct mad_addr from;
	size_t len;
	uint8_t msg[];
};

static struct {
	struct held *head, **tail;
	unsigned n;
	double tokens;
	uint64_t t;
	struct event *ev;
} hold = { .tail = &hold.head };

static void arm(struct sm *sm)
{
	uint64_t dl = sm->sa ? sa_next_deadline(sm->sa) : UINT64_MAX, now = clock_ms();
	struct timeval tv = { 0, 0 };

	if (!ev_sa)
		return;
	if (dl == UINT64_MAX) {
		evtimer_del(ev_sa);
		return;
	}
	if (dl > now) {
		tv.tv_sec = (time_t)((dl - now) / 1000);
		tv.tv_usec = (suseconds_t)((dl - now) % 1000) * 1000;
	}
	evtimer_add(ev_sa, &tv);
}

static int env_send(void *arg, const uint8_t *msg, size_t len, const struct mad_addr *to)
{
	struct sm *sm = arg;

	return mad_engine_send_gsi(sm->eng, msg, len, to);
}

static int env_smp(void *arg, const struct mad_req *r, mad_done_fn done, void *done_arg)
{
	struct sm *sm = arg;
	struct mad_req q = *r;

	q.mkey = sm->conf.m_key;
	return mad_engine_submit(sm->eng, &q, done, done_arg);
}

static const struct sm_snap *env_snapshot(void *arg)
{
	return sm_snap_current(arg);
}

static bool env_master(void *arg)
{
	return sm_is_master(arg);
}

static size_t env_sm_list(void *arg, uint16_t *lids, struct smp_sm_info *infos, size_t max)
{
	return sm_sm_list(arg, lids, infos, max);
}

static void conf_of(const struct sm_conf *c, struct sa_conf *out)
{
	sa_conf_default(out);   /* what ibsmd.conf does not set */
	out->sa_key = c->sa_key;
	out->max_records = c->sa_max_records;
	out->services_per_port = c->sa_services_per_port;
	out->max_services = c->sa_max_services;
	out->subs_per_port = c->sa_subscriptions_per_port;
	out->max_subs = c->sa_max_subscriptions;
	out->trusted_share = c->sa_trusted_share;
	out->groups_per_port = c->sa_groups_per_port;
	out->groups_per_partition = c->sa_groups_per_partition;
	out->memberships_per_port = c->sa_memberships_per_port;
	out->max_memberships = c->sa_max_memberships;
}

static void env_conf(void *arg, struct sa_conf *out)
{
	conf_of(&((const struct sm *)arg)->conf, out);
}

void sa_host_limits(const struct sm *sm, struct client_limits *l)
{
	struct sa_conf c;

	conf_of(&sm->conf, &c);
	sa_client_limits(&c, l);
}

/* Multicast: the SM's group database (sm/mcast.h). */
static uint16_t env_mc_join(void *arg, const struct mc_who *who,
			    const struct sa_mcmember_rec *req, uint64_t mask,
			    struct sa_mcmember_rec *resp)
{
	return sm_mcast_join(arg, who, req, mask, resp);
}

static uint16_t env_mc_leave(void *arg, const struct mc_who *who,
			     const struct sa_mcmember_rec *req, uint64_t mask,
			     struct sa_mcmember_rec *resp)
{
	return sm_mcast_leave(arg, who, req, mask, resp);
}

static uint16_t env_mc_query(void *arg, const struct mc_who *who,
			     const struct sa_mcmember_rec *tmpl, uint64_t mask,
			     int (*fn)(void *, const struct sa_mcmember_rec *), void *fn_arg,
			     size_t *count)
{
	return sm_mcast_query(arg, who, tmpl, mask, fn, fn_arg, count);
}

static const struct mcast_mft *env_mft_held(void *arg, uint64_t switch_guid)
{
	return sm_mcast_held(arg, switch_guid);
}

static void env_mc_counts(void *arg, uint64_t *gen, uint32_t *groups, uint32_t *members)
{
	const struct mcdb *db = sm_mcast_db(arg);

	*gen = mcdb_gen(db);
	*groups = (uint32_t)mcdb_count(db);
	*members = 0;
	for (size_t i = 0; i < mcdb_count(db); i++)
		*members += mcdb_at(db, i)->nmembers;
}

/* Traps 66/67 from the group database, to subscribers while we serve. */
static void on_mc_notice(void *arg, uint16_t trap, const uint8_t mgid[16], uint16_t pkey)
{
	struct sm *sm = arg;

	if (!sm->sa || !sm_is_master(sm))
		return;
	sa_report_mcast(sm->sa, trap, mgid, pkey);
	arm(sm);
}

/* --- the SA's share while a sweep runs --- */

static bool sweep_limited(const struct sm *sm)
{
	return sm->sweeping && sm->conf.sa_sweep_rate;
}

/* A token per query, sa_sweep_rate a second, 10 ms of them at most. */
static bool take_token(const struct sm *sm)
{
	double rate = sm->conf.sa_sweep_rate, now = (double)clock_ms();

	hold.tokens += (now - (double)hold.t) * rate / 1000.0;
	if (hold.tokens > rate / 100.0 + 1)
		hold.tokens = rate / 100.0 + 1;
	hold.t = (uint64_t)now;
	if (hold.tokens < 1)
		return false;
	hold.tokens -= 1;
	return true;
}

static void hold_release(struct sm *sm)
{
	struct timeval ms = { 0, 1000 };

	while (hold.head && (!sweep_limited(sm) ||
			     clock_us() - hold.head->t_us >= HOLD_MS * 1000u || take_token(sm))) {
		struct held *h = hold.head;

		if (!(hold.head = h->next))
			hold.tail = &hold.head;
		hold.n--;
		sa_recv_at(sm->sa, h->msg, h->len, 0, &h->from, h->t_us);
		free(h);
	}
	if (hold.head)
		evtimer_add(hold.ev, &ms);
}

static void hold_push(const uint8_t *msg, size_t len, const struct mad_addr *from,
		      uint64_t t_us)
{
	struct held *h = xmalloc(sizeof(*h) + len);

	h->next = NULL;
	h->t_us = t_us;
	h->from = *from;
	h->len = len;
	memcpy(h->msg, msg, len);
	*hold.tail = h;
	hold.tail = &h->next;
	hold.n++;
}

static void on_hold_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	hold_release(sm);
	arm(sm);
	sa_keep_note(sm);
	sm_arm_engine_timer(sm);
}

/* Should this request wait? Requests keep their order: once one waits,
 * the next waits behind it. */
static bool must_wait(struct sm *sm, const uint8_t *msg, size_t len, int status)
{
	if (status || len < 4 || (msg[3] & 0x80))
		return false;   /* a response or a returned send: no work for the sweep to wait on */
	if (!hold.head && (!sweep_limited(sm) || take_token(sm)))
		return false;
	return true;
}

void sa_host_gsi(void *arg, const uint8_t *msg, size_t len, int status, const struct mad_addr *from)
{
	struct sm *sm = arg;
	uint64_t t_us = clock_us();   /* the engine calls us as it reads the MAD */

	if (!sm->sa || sa_follow_recv(sm, msg, len, status, from))
		return;
	last_request_ms = clock_ms();
	if (must_wait(sm, msg, len, status)) {
		if (hold.n >= HOLD_MAX)
			sa_busy(sm->sa, msg, len, from);
		else
			hold_push(msg, len, from, t_us);
		hold_release(sm);
	} else {
		sa_recv_at(sm->sa, msg, len, status, from, t_us);
	}
	arm(sm);
	sa_keep_note(sm);
}

bool sa_host_busy_at(const struct sm *sm, uint64_t now_ms)
{
	return sm->sa && now_ms - last_request_ms < SA_BUSY_MS;
}

bool sa_host_busy(const struct sm *sm)
{
	return sa_host_busy_at(sm, clock_ms());
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	sa_on_timer(sm->sa);
	arm(sm);
	sa_keep_note(sm);   /* a lease ended */
	sm_arm_engine_timer(sm);
}

struct gone_ctx {
	const struct sm *sm;
	const struct fabric_port_index *ix;
};

static bool port_gone(void *arg, uint64_t guid)
{
	const struct gone_ctx *g = arg;

	return fabric_port_departed(g->sm->fabric, g->ix, guid, g->sm->sweep_clean);
}

/* After each sweep or reroute of ours, what hosts built for ports that
 * left the fabric goes (the groups' members went in its multicast
 * phase). */
static void departures(struct sm *sm)
{
	static uint64_t seen;
	struct fabric_port_index ix;
	struct gone_ctx g = { sm, &ix };
	size_t n;

	if (!sm_is_master(sm) || !sm->fabric || sm->sweeping || sm->sweeps == seen)
		return;
	seen = sm->sweeps;
	fabric_port_index_build(sm->fabric, &ix);
	n = sa_clients_departed(sm->sa, port_gone, &g);
	fabric_port_index_free(&ix);
	if (n)
		log_notice("SA: %zu services and subscriptions of ports that left the fabric are "
			   "gone with them", n);
}

static void on_changed(void *arg, struct sm *sm)
{
	if (!sm->sa)
		return;
	if (!sm->sweeping)
		hold_release(sm);
	sa_sync(sm->sa);
	departures(sm);
	sa_keep_changed(sm);   /* before the follower lets its copy go */
	sa_follow_changed(sm);
	arm(sm);
	sm_arm_engine_timer(sm);
}

static void on_batch(void *arg, struct sm *sm)
{
	sa_keep_note(sm);
}

/* Traps the SM acknowledged go to subscribers, while we serve. */
static void on_trap(void *arg, struct sm *sm, const struct smp_notice *n)
{
	if (!sm->sa || !sm_is_master(sm))
		return;
	sa_report_notice(sm->sa, n);
	arm(sm);
}

/* Anyone may send the well-known default key: say so (ibsmctl status
 * lists it as a warning too, sm/problems.c). */
static void warn_public_key(const struct sm *sm)
{
	if (sm->conf.sm_key != SM_PUBLIC_KEY && sm->conf.sa_key != SM_PUBLIC_KEY)
		return;
	log_warnx("the SM_Key is 0x1, the well-known default (%s%s%s): any host that sends it is a "
		  "trusted SA requester, may read every M_Key and change or delete what other hosts "
		  "registered; set the same secret sm_key and sa_key on every SM of the subnet "
		  "(ibsmd.conf(5))", sm->conf.sm_key == SM_PUBLIC_KEY ? "sm_key" : "",
		  sm->conf.sm_key == SM_PUBLIC_KEY && sm->conf.sa_key == SM_PUBLIC_KEY ? ", " : "",
		  sm->conf.sa_key == SM_PUBLIC_KEY ? "sa_key" : "");
}

void sa_host_attach(struct sm *sm)
{
	struct sa_env env = {
		.arg = sm, .send = env_send, .smp = env_smp, .snapshot = env_snapshot,
		.master = env_master, .sm_list = env_sm_list, .conf = env_conf,
		.mc_join = env_mc_join, .mc_leave = env_mc_leave, .mc_query = env_mc_query,
		.mft_held = env_mft_held, .mc_counts = env_mc_counts,
	};
	struct sa_conf conf;
	struct sm_listener l = { .changed = on_changed, .trap = on_trap, .arg = NULL };

	env_conf(sm, &conf);
	sm->sa = sa_new(&env, &conf);
	ev_sa = evtimer_new(sm->base, on_timer, sm);
	hold.ev = evtimer_new(sm->base, on_hold_timer, sm);
	sm_listen(sm, &l);
	if (sm->mcast) {
		sm_mcast_on_notice(sm, on_mc_notice, sm);
		sm_mcast_on_batch(sm, on_batch, NULL);
	}
	sa_keep_attach(sm);
	sa_follow_attach(sm);
	warn_public_key(sm);
}

void sa_host_detach(struct sm *sm)
{
	while (hold.head) {
		struct held *h = hold.head;

		hold.head = h->next;
		free(h);
	}
	hold.tail = &hold.head;
	hold.n = 0;
	if (hold.ev)
		event_free(hold.ev);
	hold.ev = NULL;
	if (ev_sa)
		event_free(ev_sa);
	ev_sa = NULL;
	sa_follow_detach(sm);
	sa_keep_detach(sm);
	sa_free(sm->sa);
	sm->sa = NULL;
}
