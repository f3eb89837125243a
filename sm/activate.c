/*
 * DOC: links ARMED and ACTIVE as soon as their gates open (activate.h),
 * and the end walk that takes every link left.
 *
 * Gates are counters: per port the Sets and Gets its activation waits
 * for, per switch its LFT writes plus one held from the start of the
 * phase until its writes are known (program.c). A link is walked once:
 * ARMED Sets to its ends in INIT, and when both have answered, ACTIVE
 * Sets to its ends in ARMED.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sm/activate.h"
#include "sm/log.h"
#include "sm/sm.h"

/* Where a port's link walk stands; both ends move together but for
 * ARMING, which is per end. */
enum act_step {
	ACT_TODO = 0,      /* not walked yet */
	ACT_ARMING,        /* this end's ARMED Set is in flight */
	ACT_ARMED,         /* this end is ARMED (or was past INIT already) */
	ACT_FAILED,        /* this end's ARMED Set failed: the link stops */
	ACT_DONE,          /* ACTIVE Sets sent */
};

/* A switch that is never released: its links wait for the end walk. */
#define SW_NEVER (UINT_MAX / 2)

struct sm_act {
	uint32_t *base;        /* per node: slot of its port 0 in the port arrays */
	uint16_t *busy;        /* per port */
	uint8_t *step;         /* per port, enum act_step */
	unsigned *sw_busy;     /* per node; only switches are held */
	bool pipelined;        /* links may go ACTIVE before the end walk */
	bool routed;           /* the routes are computed (sm_act_routed) */
	bool all_open;         /* the end walk: every gate open */
};

static struct sm_act *act_of(const struct sm *sm)
{
	return sm->act;
}

static size_t slot(const struct sm_act *a, const struct sm_port *p)
{
	return (size_t)a->base[p->node->idx] + p->num;
}

void sm_act_free(struct sm *sm)
{
	struct sm_act *a = sm->act;

	if (!a)
		return;
	free(a->base);
	free(a->busy);
	free(a->step);
	free(a->sw_busy);
	free(a);
	sm->act = NULL;
}

void sm_act_begin(struct sm *sm, bool pipelined)
{
	const struct sm_fabric *f = sm->fabric;
	struct sm_act *a;
	size_t nports = 0;

	sm_act_free(sm);
	a = xcalloc(1, sizeof(*a));
	a->base = xcalloc(f->nnodes ? f->nnodes : 1, sizeof(*a->base));
	for (uint32_t i = 0; i < f->nnodes; i++) {
		a->base[i] = (uint32_t)nports;
		nports += (size_t)f->nodes[i]->ni.num_ports + 1;
	}
	a->busy = xcalloc(nports ? nports : 1, sizeof(*a->busy));
	for (size_t i = 0; i < nports; i++)
		a->busy[i] = 1;   /* until sm_act_prepared() */
	a->step = xcalloc(nports ? nports : 1, 1);
	a->sw_busy = xcalloc(f->nnodes ? f->nnodes : 1, sizeof(*a->sw_busy));
	for (uint32_t i = 0; i < f->nnodes; i++)
		a->sw_busy[i] = node_is_switch(f->nodes[i]) ? 1 : 0;
	a->pipelined = pipelined;
	sm->act = a;
}

bool sm_act_will_walk(const struct sm_port *p)
{
	const struct sm_port *q = p->peer;

	if (!sm_port_linked_up(p) || !node_usable(p->node) || !node_usable(q->node) ||
	    p->stale || q->stale)
		return false;
	return p->pi.port_state != TOPO_PORT_ACTIVE || q->pi.port_state != TOPO_PORT_ACTIVE;
}

static bool sw_ready(const struct sm_act *a, const struct sm_node *n)
{
	return a->sw_busy[n->idx] == 0;
}

/* The ports' own gates: their PortInfo and P_Key table are in. */
static bool ports_ready(const struct sm_act *a, const struct sm_port *p, const struct sm_port *q)
{
	return a->all_open || (!a->busy[slot(a, p)] && !a->busy[slot(a, q)]);
}

/* The routes' gate: both switches hold their whole LFT. */
static bool routes_ready(const struct sm_act *a, const struct sm_port *p, const struct sm_port *q)
{
	return a->all_open ||
	       (a->pipelined && a->routed && sw_ready(a, p->node) && sw_ready(a, q->node));
}

static bool active(const struct sm_port *p)
{
	return p->pi.port_state == TOPO_PORT_ACTIVE;
}

static void advance(struct sm *sm, struct sm_port *p);

static void armed(struct sm *sm, struct sm_port *p, bool ok)
{
	struct sm_act *a = act_of(sm);

	if (!a)
		return;
	a->step[slot(a, p)] = ok ? ACT_ARMED : ACT_FAILED;
	advance(sm, p);
}

/* ARMED Sets to the ends in INIT. */
static void arm(struct sm *sm, struct sm_port *p, struct sm_port *q)
{
	struct sm_act *a = act_of(sm);
	struct sm_port *end[2] = { p, q };

	a->step[slot(a, p)] = a->step[slot(a, q)] = ACT_ARMED;
	for (int i = 0; i < 2; i++)
		if (end[i]->pi.port_state == TOPO_PORT_INIT) {
			a->step[slot(a, end[i])] = ACT_ARMING;
			sm_port_state_set(sm, end[i], TOPO_PORT_ARMED, armed);
		}
}

/* ACTIVE Sets to the ends in ARMED. */
static void activate(struct sm *sm, struct sm_port *p, struct sm_port *q)
{
	struct sm_act *a = act_of(sm);
	struct sm_port *end[2] = { p, q };

	a->step[slot(a, p)] = a->step[slot(a, q)] = ACT_DONE;
	for (int i = 0; i < 2; i++)
		if (end[i]->pi.port_state == TOPO_PORT_ARMED)
			sm_port_state_set(sm, end[i], TOPO_PORT_ACTIVE, NULL);
}

/* Takes p's link as far as its gates allow. An end in ARMED carries no
 * data until the other end is ACTIVE (a data packet from it would turn
 * it ACTIVE): so a link arms on its ports' own gates, unless an end is
 * ACTIVE already, and goes ACTIVE on the routes' gate (activate.h). */
static void advance(struct sm *sm, struct sm_port *p)
{
	struct sm_act *a = act_of(sm);
	struct sm_port *q = p->peer;
	uint8_t sp, sq;

	if (!a || !sm_act_will_walk(p))
		return;
	sp = a->step[slot(a, p)];
	sq = a->step[slot(a, q)];
	if (sp == ACT_TODO) {
		if (ports_ready(a, p, q) && (!(active(p) || active(q)) || routes_ready(a, p, q)))
			arm(sm, p, q);
		sp = a->step[slot(a, p)];
		sq = a->step[slot(a, q)];
	}
	if (sp == ACT_ARMED && sq == ACT_ARMED && routes_ready(a, p, q))
		activate(sm, p, q);
}

void sm_act_hold_port(struct sm *sm, const struct sm_port *p)
{
	struct sm_act *a = act_of(sm);

	if (a)
		a->busy[slot(a, p)]++;
}

void sm_act_release_port(struct sm *sm, struct sm_port *p)
{
	struct sm_act *a = act_of(sm);

	if (!a || --a->busy[slot(a, p)])
		return;
	advance(sm, p);
}

void sm_act_prepared(struct sm *sm, size_t i)
{
	struct sm_node *n = sm->fabric->nodes[i];

	for (unsigned k = 0; sm->act && k <= n->ni.num_ports; k++)
		sm_act_release_port(sm, &n->ports[k]);
}

void sm_act_routed(struct sm *sm)
{
	if (sm->act)
		sm->act->routed = true;
}

void sm_act_hold_switch(struct sm *sm, const struct sm_node *n)
{
	struct sm_act *a = act_of(sm);

	if (a && a->sw_busy[n->idx] < SW_NEVER)
		a->sw_busy[n->idx]++;
}

void sm_act_release_switch(struct sm *sm, const struct sm_node *n, bool ok)
{
	struct sm_act *a = act_of(sm);

	if (!a)
		return;
	if (!ok)
		a->sw_busy[n->idx] = SW_NEVER;
	if (a->sw_busy[n->idx] >= SW_NEVER || --a->sw_busy[n->idx])
		return;
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		advance(sm, &n->ports[k]);
}

/* --- the end walk ------------------------------------------------------------- */

static void count_active(struct sm *sm)
{
	sm->st.ports_active = 0;
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		for (unsigned k = 1; k <= n->ni.num_ports; k++)
			if (n->ports[k].have_pi && n->ports[k].pi.port_state == TOPO_PORT_ACTIVE)
				sm->st.ports_active++;
	}
}

static void active_done(struct sm *sm)
{
	sm_act_free(sm);
	count_active(sm);
	sm_sweep_finished(sm);
}

/* Every link still to walk, whatever its gates: after the table phases,
 * in the order every sweep used before links were pipelined. */
void sm_activate_phase(struct sm *sm)
{
	if (!sm->act)
		sm_act_begin(sm, false);
	act_of(sm)->all_open = true;
	sm_phase_begin(sm, active_done);
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		for (unsigned k = 1; k <= n->ni.num_ports; k++)
			advance(sm, &n->ports[k]);
	}
	sm_phase_end(sm);
}
