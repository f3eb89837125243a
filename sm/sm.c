/*
 * DOC: what sm.h declares: the SM's MAD engine and the timer at its next
 * deadline, the requests every phase builds, and the listeners the rooms
 * above register to hear about the SM's changes.
 */
#include "config.h"

#include <event2/event.h>
#include <string.h>

#include "lib/log.h"
#include "lib/timer.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/unsolicited.h"

/* --- the MAD engine ------------------------------------------------------ */

/* The smp_* options into o. */
static void smp_limits(const struct sm *sm, struct mad_engine_opts *o)
{
	o->window = sm->conf.smp_window;
	o->per_dest = sm->conf.smp_per_dest;
	o->timeout_ms = sm->conf.smp_timeout_ms;
	o->retries = sm->conf.smp_retries;
	o->retries_max = sm->conf.smp_retries_max;
	/* the performance manager's PMA queries; it re-asks failed ones */
	o->gmp_window = sm->conf.perfmgr_window;
	o->gmp_timeout_ms = sm->conf.smp_timeout_ms;
	o->gmp_retries = 0;
}

void sm_smp_limits_apply(struct sm *sm)
{
	struct mad_engine_opts o;

	mad_engine_opts_default(&o);
	smp_limits(sm, &o);
	mad_engine_set_limits(sm->eng, &o);
	mad_umad_set_timeout(&sm->tp, sm->conf.smp_timeout_ms);
	sm_arm_engine_timer(sm); /* it may have sent, with earlier deadlines */
}

void sm_engine_start(struct sm *sm, mad_gsi_fn gsi, void *gsi_arg)
{
	struct mad_engine_opts o;

	mad_engine_opts_default(&o);
	smp_limits(sm, &o);
	mad_umad_set_timeout(&sm->tp, sm->conf.smp_timeout_ms);
	o.unsolicited = sm_unsolicited;
	o.unsolicited_arg = sm;
	o.set_gate = sm_set_gate;      /* only a master writes */
	o.set_gate_arg = sm;
	o.gsi = gsi;
	o.gsi_arg = gsi_arg;
	sm->eng = mad_engine_new(&sm->tp, &o);
}

/* Called after every event and every answer: re-arming each time cost a
 * clock read and a timer heap update per MAD. The timer may fire early (it
 * then finds nothing due and is armed again), never late: so it is moved
 * only to an earlier deadline. */
void sm_arm_engine_timer(struct sm *sm)
{
	uint64_t dl = mad_engine_next_deadline(sm->eng);

	if (dl >= sm->timer_armed)
		return;
	sm->timer_armed = dl;
	timer_at(sm->ev_timer, dl);
}

static void on_engine_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	sm->timer_armed = UINT64_MAX;
	mad_engine_on_timer(sm->eng);
	sm_arm_engine_timer(sm);
}

void sm_engine_timer_new(struct sm *sm)
{
	sm->ev_timer = evtimer_new(sm->base, on_engine_timer, sm);
	sm->timer_armed = UINT64_MAX;
}

/* --- requests -------------------------------------------------------------- */

int sm_submit(struct sm *sm, const struct mad_req *r, mad_done_fn cb, void *arg)
{
	if (mad_engine_submit(sm->eng, r, cb, arg) < 0) {
		log_warnx("SMP queue full: request dropped");
		sm->sweep_clean = false;
		return -1;
	}
	sm->pending++;
	return 0;
}

void sm_dr_req(const struct sm *sm, const struct sm_node *n, uint8_t method,
	       uint16_t attr, uint32_t mod, struct mad_req *r)
{
	memset(r, 0, sizeof(*r));
	r->mgmt_class = MAD_CLASS_SMI_DR;
	r->method = method;
	r->attr_id = attr;
	r->attr_mod = mod;
	r->mkey = sm->conf.m_key;
	r->dlid = LID_PERMISSIVE;
	r->hop_cnt = n->hop_cnt;
	memcpy(r->path, n->path, sizeof(r->path));
}

void sm_port_req(const struct sm *sm, const struct sm_port *p, uint8_t method, uint16_t attr,
		 uint32_t mod, struct mad_req *r)
{
	const struct sm_node *n = p->node;

	sm_dr_req(sm, n, method, attr, mod, r);
	if (node_is_switch(n) || !p->peer || p->peer->node->hop_cnt >= SMP_MAX_HOPS ||
	    (n == sm->fabric->sm_node && p->num == sm->fabric->sm_port_num))
		return;
	/* A CA port is reached through its own link (see discover.c). */
	memcpy(r->path, p->peer->node->path, sizeof(r->path));
	r->hop_cnt = (uint8_t)(p->peer->node->hop_cnt + 1);
	r->path[r->hop_cnt] = p->peer->num;
}

/* --- listeners ------------------------------------------------------------- */

void sm_listen(struct sm *sm, const struct sm_listener *l)
{
	if (sm->nlisteners == SM_MAX_LISTENERS)
		fatalx("too many SM listeners");
	sm->listeners[sm->nlisteners++] = *l;
}

void sm_trap_notify(struct sm *sm, const struct smp_notice *n)
{
	for (unsigned i = 0; i < sm->nlisteners; i++)
		if (sm->listeners[i].trap)
			sm->listeners[i].trap(sm->listeners[i].arg, sm, n);
}

void sm_event(struct sm *sm, const char *type, const struct sm_port *p)
{
	if (p)
		log_debug("event %s: %016llx port %u", type, (unsigned long long)p->node->guid, p->num);
	else
		log_debug("event %s", type);
	for (unsigned i = 0; i < sm->nlisteners; i++) {
		const struct sm_listener *l = &sm->listeners[i];

		if (p && l->port_event)
			l->port_event(l->arg, sm, type, p);
		if (l->changed)
			l->changed(l->arg, sm);
	}
}
