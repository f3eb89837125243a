/*
 * DOC: the performance manager inside ibsmd (see daemon/pmhost.h).
 *
 * One PM per process. Its queries go to the engine as GMPs, each with a
 * small record of the query so the answer can be handed back (pm_done,
 * exactly once per query, also when the engine cancels it at shutdown).
 * The engine sends them only while no SMP waits, so polling never slows a
 * sweep; pm/sched.c keeps at most perfmgr_window of them outstanding,
 * perfmgr_per_node to any one node.
 */
#include "config.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"
#include "daemon/pmhost.h"
#include "fabric/mcdb.h"
#include "http/httpd.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/timer.h"
#include "mad/pma.h"
#include "pm/prom.h"
#include "pm/sched.h"
#include "sa/host.h"
#include "sa/sa.h"
#include "sm/isolate.h"
#include "sm/mcast.h"
#include "sm/sm.h"

#define PUMP_BATCH 32
/* While hosts are asking the SA (a request in the last few ms) the PM
 * keeps PM_SA_YIELD queries outstanding, and sends one at most every
 * PM_SA_GAP_MS: an SA request and its answer queue behind the PMA MADs in
 * flight at the switches, the simulator and our receive queue, and the
 * answers we handle take CPU time the SA's need. On the 3456-host tree
 * under a saturating SA load (bench/bench-pm.sh) the SA's p99 rose
 * +8.3 % to +10.4 % with 2 outstanding and no gap, +5.1 % to +11.5 % with 1
 * outstanding, and the SA's own rate fell by 3-6 %; with the gap the PM takes
 * at most a thousand queries a second while the SA is busy (about 1,030 in
 * tests/integration/pm_yield.sh: under ibsim the gap ends in the pump loop,
 * pm_host_due(); libevent's timer alone came about 3.8 ms late, 265 a
 * second), so a round of that tree under such a load takes 41 s at least
 * instead of 0.12 s: the SA comes first, and the round still ends. */
#define PM_SA_YIELD 1
#define PM_SA_GAP_MS 1
#define UPS_MAX 64
#define SPARE_MAX 256       /* query records kept for reuse */

/* A port the SM saw come back up since the targets were last set. */
struct pm_host_up {
	uint64_t guid;
	uint8_t port;
};

static struct pm_host {
	struct sm *sm;
	struct event *ev_pm;        /* the next round (pm_next_deadline) */
	uint64_t pm_armed;          /* ev_pm's deadline, UINT64_MAX: not armed */
	uint64_t sa_gap_until;      /* no query before this while the SA is busy */
	struct event *ev_tick;      /* options and mastership, every second */
	struct pm_opts opts;
	bool polling;
	bool pumping;
	uint64_t fabric_gen;        /* the fabric the targets came from */
	bool have_targets;
	uint64_t rounds, queries, failed;   /* at the last round's log line */
	struct httpd *httpd;
	char *listen;               /* where httpd listens */
	struct pm_host_up ups[UPS_MAX];
	unsigned nups;              /* may pass UPS_MAX: the rest not noted */
} H;

/* One query on the wire. */
struct pm_host_q {
	struct pm_query q;
	struct pm_host_q *next;     /* on the spare list */
};

/* Finished records kept for the next queries (at most a window's worth),
 * rather than a malloc and a free for each of a round's queries. */
static struct pm_host_q *spare;
static unsigned nspare;

static struct pm_host_q *q_new(void)
{
	struct pm_host_q *x = spare;

	if (!x)
		return xmalloc(sizeof(*x));
	spare = x->next;
	nspare--;
	return x;
}

static void q_free(struct pm_host_q *x)
{
	if (nspare >= SPARE_MAX || !H.ev_pm) {
		free(x);
		return;
	}
	x->next = spare;
	spare = x;
	nspare++;
}

static void q_spares_free(void)
{
	while (spare) {
		struct pm_host_q *x = spare;

		spare = x->next;
		free(x);
	}
	nspare = 0;
}

static void pump(void);
static void pump_at(uint64_t now);

/* ev_pm may fire early (pump() then finds no round due and arms it
 * again), never late; moving it only to an earlier deadline spares a timer
 * update for every answer. */
static void pm_timer_arm(uint64_t deadline)
{
	if (deadline >= H.pm_armed)
		return;
	H.pm_armed = deadline;
	timer_at(H.ev_pm, deadline);
}

static void pm_timer_stop(void)
{
	H.pm_armed = UINT64_MAX;
	timer_at(H.ev_pm, UINT64_MAX);
}

/* --- options --- */

static void opts_from_conf(const struct sm_conf *c, struct pm_opts *o)
{
	struct pm_thresholds *t = &o->th;

	pm_opts_default(o);
	o->window = c->perfmgr_window;
	o->per_node = c->perfmgr_per_node;
	o->period_ms = c->perfmgr_interval * 1000;
	t->window_s = c->health_window;
	t->count[PM_P_SYMBOL_ERRORS] = c->health_symbol_errors;
	t->count[PM_P_LINK_ERROR_RECOVERY] = c->health_link_error_recovery;
	t->count[PM_P_LINK_DOWNED] = c->health_link_downed;
	t->count[PM_P_RECEIVE_ERRORS] = c->health_rcv_errors;
	t->count[PM_P_RECEIVE_REMOTE_PHYSICAL_ERRORS] = c->health_rcv_remote_phys_errors;
	t->count[PM_P_TRANSMIT_DISCARDS] = c->health_xmit_discards;
	t->count[PM_P_LOCAL_LINK_INTEGRITY_ERRORS] = c->health_local_link_integrity;
	t->count[PM_P_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = c->health_excessive_buffer_overrun;
	t->count[PM_P_VL15_DROPPED] = c->health_vl15_dropped;
	t->xmit_wait_pct = c->health_xmit_wait_pct;
	t->flap_bounces = c->health_flap_bounces;
	t->not_answering_rounds = c->health_not_answering_rounds;
}

/* --- queries --- */

static void on_answer(void *arg, int err, const uint8_t *mad, size_t len)
{
	struct pm_host_q *x = arg;
	struct pma_reply r;
	bool ok = (err == MAD_OK || err == MAD_ERR_STATUS) && pma_reply_decode(mad, len, &r) == 0;
	uint64_t now = clock_ms();

	if (!ok && err != MAD_ERR_CANCELED)
		log_debug("PM: %s of 0x%016llx port %u: no answer (%d)",
			  x->q.kind == PM_Q_CPI ? "ClassPortInfo" : "counters",
			  (unsigned long long)x->q.guid, x->q.port, err);
	pm_done(H.sm->pm, &x->q, ok ? &r : NULL, now);
	q_free(x);
	pump_at(now);
}

static void submit(const struct pm_query *q)
{
	struct mad_gmp_req g;
	struct pma_req p;
	struct pm_host_q *x = q_new();

	memset(&g, 0, sizeof(g));
	pm_query_req(q, &p);
	g.dlid = q->lid;
	g.mgmt_class = MAD_CLASS_PERF;
	g.class_version = PMA_CLASS_VERSION;
	g.method = p.method;
	g.attr_id = p.attr_id;
	x->q = *q;
	/* the data area starts after the header and 40 reserved bytes */
	if (pma_req_data(&p, g.data + (PMA_DATA_OFFSET - 24), PMA_DATA_SIZE) < 0 ||
	    mad_engine_submit_gmp(H.sm->eng, &g, on_answer, x) < 0) {
		pm_done(H.sm->pm, q, NULL, clock_ms());
		q_free(x);
	}
}

/* One line per finished round (bench/bench-pm.sh reads it). */
static void round_check(void)
{
	struct pm_stats st;

	if (pm_rounds(H.sm->pm) == H.rounds)
		return;
	pm_get_stats(H.sm->pm, &st);
	log_info("PM: round %llu done: %u ports, %llu queries, %llu failed in %llu ms",
		 (unsigned long long)st.rounds, st.ports,
		 (unsigned long long)(st.queries - H.queries),
		 (unsigned long long)(st.failed - H.failed), (unsigned long long)st.last_round_ms);
	H.rounds = st.rounds;
	H.queries = st.queries;
	H.failed = st.failed;
}

/* Hand out what the scheduler has; an answer that comes back at once
 * (a refused send) re-enters here and finds H.pumping set, so the loop
 * below takes its follow-up. Nothing new while a sweep or reroute runs:
 * the engine already sends GMPs only when no SMP waits, but a sweep has
 * pauses (routing on the worker) after which its SMPs would find our
 * queries ahead of them at the switches; the round waits instead. */
/* How many queries may go out now: the SA has priority (see PM_SA_YIELD).
 * *gap is set when only PM_SA_GAP_MS holds them back. */
static size_t room(uint64_t now, bool *gap)
{
	unsigned out = pm_outstanding(H.sm->pm);

	if (!sa_host_busy_at(H.sm, now))
		return PUMP_BATCH;
	if (out >= PM_SA_YIELD)
		return 0;
	if (now < H.sa_gap_until) {
		*gap = true;
		return 0;
	}
	return PM_SA_YIELD - out;
}

static void pump_at(uint64_t now)
{
	struct pm_query q[PUMP_BATCH];
	size_t n, max;
	bool gap = false;

	if (!H.polling || H.pumping || H.sm->sweeping)
		return;
	H.pumping = true;
	while ((max = room(now, &gap)) > 0 && (n = pm_next(H.sm->pm, now, q, max)) > 0) {
		if (max < PUMP_BATCH)
			H.sa_gap_until = now + PM_SA_GAP_MS;
		for (size_t i = 0; i < n; i++)
			submit(&q[i]);
	}
	H.pumping = false;
	round_check();
	pm_timer_arm(gap ? H.sa_gap_until : pm_next_deadline(H.sm->pm));
	sm_arm_engine_timer(H.sm);
}

static void pump(void)
{
	pump_at(clock_ms());
}

static void on_pm_timer(evutil_socket_t fd, short what, void *arg)
{
	H.pm_armed = UINT64_MAX;
	pump();
}

void pm_host_due(uint64_t now)
{
	if (H.sm && H.pm_armed != UINT64_MAX && now >= H.pm_armed) {
		H.pm_armed = UINT64_MAX;
		pump_at(now);
	}
}

/* --- targets --- */

/* A port watched before whose link is gone now stays, idle, so that its
 * totals and verdicts (flapping) survive the link's absence. */
static bool idle_target(const struct sm_port *p, struct pm_target *t)
{
	struct pm_port_view v;

	if (!pm_port_find(H.sm->pm, p->node->guid, p->num, &v))
		return false;
	memset(t, 0, sizeof(*t));
	t->guid = v.guid;
	t->port = v.port;
	t->is_switch = v.is_switch;
	t->lid = v.lid;
	t->idle = 1;
	return true;
}

static bool target_of(const struct sm_port *p, struct pm_target *t)
{
	const struct sm_port *q = p->peer;
	struct pm_link_caps a, b;

	if (!q || !p->have_pi || !q->have_pi)
		return idle_target(p, t);
	memset(t, 0, sizeof(*t));
	t->guid = p->node->guid;
	t->port = p->num;
	t->is_switch = node_is_switch(p->node);
	t->lid = t->is_switch ? p->node->ports[0].lid : p->lid;
	pm_link_caps_from_port_info(&p->pi, &a);
	pm_link_caps_from_port_info(&q->pi, &b);
	t->width_act = a.width_act;
	t->speed_act = a.speed_act;
	t->link_problems = pm_link_problems(&a, &b);
	return true;
}

static bool up_noted(uint64_t guid, uint8_t port)
{
	for (unsigned i = 0; i < H.nups && i < UPS_MAX; i++)
		if (H.ups[i].guid == guid && H.ups[i].port == port)
			return true;
	return false;
}

static void note_up(uint64_t guid, uint8_t port)
{
	if (H.nups < UPS_MAX)
		H.ups[H.nups] = (struct pm_host_up){ guid, port };
	H.nups++;
}

/* Ports a sweep found linked again after it had lost their link: a
 * bounce each, unless a light sweep reported it already (its link_up). */
static bool *came_back(const struct pm_target *t, size_t n)
{
	bool *back = xcalloc(n ? n : 1, sizeof(*back));
	struct pm_port_view v;

	for (size_t i = 0; i < n; i++)
		back[i] = !t[i].idle && pm_port_find(H.sm->pm, t[i].guid, t[i].port, &v) &&
			  v.idle && !up_noted(t[i].guid, t[i].port);
	return back;
}

static void set_targets(const struct sm_fabric *f)
{
	size_t n = 0, cap = 0;
	struct pm_target *t = NULL;

	for (uint32_t i = 0; f && i < f->nnodes; i++) {
		const struct sm_node *nd = f->nodes[i];

		for (unsigned p = 1; p <= nd->ni.num_ports; p++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				t = xrealloc(t, cap * sizeof(*t));
			}
			n += target_of(&nd->ports[p], &t[n]);
		}
	}
	bool *back = came_back(t, n);

	if (pm_set_targets(H.sm->pm, t, n) < 0)
		log_warnx("PM: out of memory for %zu ports: watching the old set", n);
	for (size_t i = 0; i < n; i++)
		if (back[i])
			pm_bounce(H.sm->pm, t[i].guid, t[i].port, clock_ms());
	free(back);
	free(t);
	H.nups = 0;
}

/* After a sweep: the new fabric's ports; with perfmgr off: none. */
static void targets_follow(struct sm *sm)
{
	static const struct pm_target none;

	if (!sm->conf.perfmgr) {
		if (H.have_targets)
			pm_set_targets(sm->pm, &none, 0);
		H.have_targets = false;
		return;
	}
	if (!sm->fabric || sm->sweeping || (H.have_targets && H.fabric_gen == sm->fabric_gen))
		return;
	set_targets(sm->fabric);
	H.fabric_gen = sm->fabric_gen;
	H.have_targets = true;
}

/* --- polling follows mastership and the options --- */

static void poll_follow(struct sm *sm)
{
	bool want = sm->conf.perfmgr && sm_is_master(sm) && H.have_targets && !sm->stopping;

	if (want == H.polling)
		return;
	H.polling = want;
	log_info("PM: %s polling", want ? "starts" : "stops");
	if (want)
		pump();
	else
		pm_timer_stop();
}

static void opts_follow(struct sm *sm)
{
	struct pm_opts o;

	opts_from_conf(&sm->conf, &o);
	if (memcmp(&o, &H.opts, sizeof(o)) == 0)
		return;
	H.opts = o;
	pm_set_opts(sm->pm, &o);
	pump();
}

static void metrics_follow(struct sm *sm);

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	opts_follow(sm);
	targets_follow(sm);
	poll_follow(sm);
	metrics_follow(sm);
	pm_isolate_tick(sm);
}

static void on_changed(void *arg, struct sm *sm)
{
	targets_follow(sm);
	poll_follow(sm);
	pump();   /* a sweep that ended lets the round go on */
}

/* Bounces the SM saw feed the flapping verdict, for both ends when it
 * knows the far one: a link counts once each time it comes back (a link
 * that went down for good is not flapping). */
static void on_port_event(void *arg, struct sm *sm, const char *type, const struct sm_port *p)
{
	uint64_t now = clock_ms();

	if (strcmp(type, "link_up") != 0 && strcmp(type, "link_bounced") != 0)
		return;
	pm_bounce(sm->pm, p->node->guid, p->num, now);
	note_up(p->node->guid, p->num);
	if (!p->peer)
		return;
	pm_bounce(sm->pm, p->peer->node->guid, p->peer->num, now);
	note_up(p->peer->node->guid, p->peer->num);
}

/* --- problems: the log and ibsmctl watch --- */

static const char *node_name(const struct sm *sm, uint64_t guid)
{
	const struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, guid) : NULL;

	return n ? n->desc : "?";
}

static void on_change(void *arg, uint64_t guid, uint8_t port, uint32_t before, uint32_t after)
{
	struct sm *sm = arg;

	for (unsigned p = 0; p < PM_NPROBLEM; p++) {
		uint32_t b = PM_P_BIT(p);
		const char *name = pm_problem_name(p);

		if ((after & b) && !(before & b)) {
			log_fabric(LOG_LVL_WARNING, "health: 0x%016llx port %u (%s): %s",
				   (unsigned long long)guid, port, node_name(sm, guid), name);
			ctl_health_event(sm, "problem", guid, port, name);
		} else if ((before & b) && !(after & b)) {
			log_fabric(LOG_LVL_INFO, "health: 0x%016llx port %u (%s): %s cleared",
				   (unsigned long long)guid, port, node_name(sm, guid), name);
			ctl_health_event(sm, "cleared", guid, port, name);
		}
	}
}

/* --- the metrics page --- */

static bool fab_node(void *arg, uint64_t guid, struct prom_node *out)
{
	const struct sm *sm = arg;
	const struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, guid) : NULL;

	if (!n)
		return false;
	snprintf(out->name, sizeof(out->name), "%s", n->desc);
	out->lid = n->ports[node_is_switch(n) ? 0 : 1].lid;
	return true;
}

static bool fab_peer(void *arg, uint64_t guid, uint8_t port, struct prom_peer *out)
{
	const struct sm *sm = arg;
	const struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, guid) : NULL;
	const struct sm_port *q;

	if (!n || port > n->ni.num_ports || !(q = n->ports[port].peer))
		return false;
	out->guid = q->node->guid;
	out->port = q->num;
	out->is_switch = node_is_switch(q->node);
	out->lid = out->is_switch ? q->node->ports[0].lid : q->lid;
	snprintf(out->name, sizeof(out->name), "%s", q->node->desc);
	return true;
}

static void sa_metrics(const struct sm *sm, struct prom_sm_metrics *m)
{
	struct sa_attr_stats a[64];
	uint32_t bounds[PROM_SA_NBUCKETS];
	uint64_t sum_us = 0;
	size_t total, n;

	if (!sm->sa)
		return;
	n = sa_get_attr_stats(sm->sa, a, 64, &total);
	for (size_t i = 0; i < n; i++) {
		m->sa_requests += a[i].requests;
		m->sa_errors += a[i].errors;
	}
	for (unsigned i = 0; i < PROM_SA_NBUCKETS; i++)
		bounds[i] = (uint32_t)(prom_sa_bounds[i] * 1e6 + 0.5);
	sa_get_latency(sm->sa, bounds, PROM_SA_NBUCKETS, m->sa_latency_le, &m->sa_latency_count,
		       &sum_us);
	m->sa_latency_sum = (double)sum_us / 1e6;
}

static void sm_metrics(const struct sm *sm, struct prom_sm_metrics *m)
{
	struct mad_stats ms;
	const struct mcdb *db = sm->mcast ? sm_mcast_db(sm) : NULL;

	memset(m, 0, sizeof(*m));
	mad_engine_get_stats(sm->eng, &ms);
	m->sweeps = sm->sweeps;
	if (sm->sweeps)
		m->sweep_seconds = clock_diff_ms(&sm->st.t_start, &sm->st.t_done) / 1000;
	m->smps_sent = ms.sent;
	m->smps_failed = ms.failed;
	m->smps_retried = ms.retries;
	m->lft_blocks = sm->lft_blocks_total;
	m->ports_active = sm->st.ports_active;
	m->isolated_links = (unsigned)sm_isolated_count(sm);
	sa_metrics(sm, m);
	m->mcast_groups = db ? (unsigned)mcdb_count(db) : 0;
	m->sm_state = (int)sm->state;
	m->ctl_clients = ctl_client_count();
}

static void *page_open(void *arg)
{
	struct sm *sm = arg;
	struct prom_fabric fab = { .node = fab_node, .peer = fab_peer, .arg = sm };
	struct prom_sm_metrics m;

	sm_metrics(sm, &m);
	return prom_writer_new(sm->pm, &fab, &m);
}

static void sink(void *arg, const char *s, size_t n)
{
	evbuffer_add(arg, s, n);
}

static bool page_step(void *page, size_t budget, struct evbuffer *out)
{
	return prom_writer_step(page, budget, sink, out);
}

static void page_close(void *page)
{
	prom_writer_free(page);
}

static const struct httpd_page_ops page_ops = {
	.open = page_open, .step = page_step, .close = page_close,
	.content_type = PROM_CONTENT_TYPE,
};

static int metrics_start(struct sm *sm)
{
	struct httpd_opts o;
	char err[256];

	httpd_free(H.httpd);
	H.httpd = NULL;
	free(H.listen);
	H.listen = xstrdup(sm->conf.metrics_listen);
	if (!H.listen[0])
		return 0;
	httpd_opts_default(&o);
	H.httpd = httpd_new(sm->base, H.listen, &o, &page_ops, sm, err, sizeof(err));
	if (!H.httpd) {
		log_warnx("metrics: cannot listen at %s: %s", H.listen, err);
		return -1;
	}
	log_info("metrics: serving http://%s/metrics (port %u)", H.listen, httpd_port(H.httpd));
	return 0;
}

/* A reload changed metrics_listen: serve at the new place. */
static void metrics_follow(struct sm *sm)
{
	if (strcmp(H.listen, sm->conf.metrics_listen) != 0)
		(void)metrics_start(sm);
}

/* --- life cycle --- */

int pm_host_attach(struct sm *sm)
{
	struct sm_listener l = { .changed = on_changed, .port_event = on_port_event };
	static const struct timeval sec = { 1, 0 };

	H.sm = sm;
	opts_from_conf(&sm->conf, &H.opts);
	sm->pm = pm_new(&H.opts, on_change, sm);
	if (!sm->pm)
		fatalx("out of memory");
	H.ev_pm = evtimer_new(sm->base, on_pm_timer, NULL);
	H.pm_armed = UINT64_MAX;
	H.ev_tick = event_new(sm->base, -1, EV_PERSIST, on_tick, sm);
	event_add(H.ev_tick, &sec);
	sm_listen(sm, &l);
	if (metrics_start(sm) < 0) {
		fprintf(stderr, "ibsmd: metrics_listen \"%s\" is unusable\n", sm->conf.metrics_listen);
		return -1;
	}
	return 0;
}

void pm_host_stop(struct sm *sm)
{
	H.polling = false;
	httpd_free(H.httpd);
	H.httpd = NULL;
	if (H.ev_pm)
		event_free(H.ev_pm);
	if (H.ev_tick)
		event_free(H.ev_tick);
	H.ev_pm = H.ev_tick = NULL;
	q_spares_free();
}

void pm_host_detach(struct sm *sm)
{
	pm_free(sm->pm);
	sm->pm = NULL;
	free(H.listen);
	H.listen = NULL;
}
