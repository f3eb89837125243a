/*
 * DOC: noticing changes: traps, light sweeps, flap damping.
 *
 * A switch reports a port state change with Trap 128 (IBA 14.2.5.1) and
 * sets SwitchInfo.PortStateChange (IBA 14.2.5.4). Either way we read the
 * PortInfo of that one switch's ports and compare with the model:
 *   - a link went down: mark both ends down and reroute at once, without
 *     rediscovery (only routes that used the link change, see bringup.c);
 *   - a link came up, or the switch stopped answering: heavy sweep;
 *   - a port that fell from Active to Init or Armed bounced (down and up
 *     again between two looks): it carries no traffic until it is walked
 *     to Active again, so both ends are held out of routing at once (a
 *     reroute), and the hold-down's end starts the heavy sweep that
 *     activates them; with no hold-down that sweep starts at once.
 * ibsim sends each trap once (a real switch repeats it until TrapRepress),
 * so the periodic light sweep -- SwitchInfo of every switch -- catches a
 * lost trap. A port that went down less than flap_holddown_s ago is held
 * out of routing and activation until it has been stable that long, so a
 * flapping link cannot keep the SM rerouting.
 */
#include "config.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/guidtab.h"
#include "sm/isolate.h"
#include "sm/light.h"
#include "lib/log.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/sweep.h"

struct scan_ctx {
	struct sm *sm;
	struct sm_node *n;
	uint64_t gen;       /* the fabric n belongs to (sm->fabric_gen) */
	uint8_t port;
};

/* A heavy sweep replaced the fabric while this SMP was out: its node is
 * gone, and the sweep has seen whatever it would have told. */
static bool outdated(const struct scan_ctx *c)
{
	return c->gen != c->sm->fabric_gen;
}

/* --- flap history: port -> when it last went down ---------------------- */

struct flap_entry {
	struct guidtab_key key;  /* node GUID, port */
	uint64_t down_ms;        /* when it last went down */
	uint32_t downs;
};

static void flap_note_down(struct sm *sm, const struct sm_port *p)
{
	struct flap_entry *e;

	if (!sm->flaps.elem)
		guidtab_init(&sm->flaps, sizeof(struct flap_entry));
	e = guidtab_get(&sm->flaps, p->node->guid, p->num);
	e->down_ms = clock_ms();
	e->downs++;
}

/* Milliseconds until p may be used again, 0 if it is not held. */
static uint64_t held_for(const struct sm *sm, const struct sm_port *p)
{
	uint64_t hold = (uint64_t)sm->conf.flap_holddown_s * 1000, now = clock_ms();
	const struct flap_entry *e;

	if (!hold)
		return 0;
	e = guidtab_find(&sm->flaps, p->node->guid, p->num);
	if (!e || now >= e->down_ms + hold)
		return 0;
	return e->down_ms + hold - now;
}

static void holddown_expired(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	if (!sm_is_master(sm))
		return;
	log_info("flap hold-down over: sweeping");
	sm_sweep_request(sm);
}

static void arm_holddown(struct sm *sm, uint64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 + 1000 };

	if (!sm->ev_hold)
		sm->ev_hold = evtimer_new(sm->base, holddown_expired, sm);
	if (!evtimer_pending(sm->ev_hold, NULL))
		evtimer_add(sm->ev_hold, &tv);
}

void sm_apply_holddown(struct sm *sm)
{
	uint64_t longest = 0;

	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		for (unsigned k = 1; k <= n->ni.num_ports; k++) {
			uint64_t ms = held_for(sm, &n->ports[k]);

			/* links isolated for their health stay out too */
			n->ports[k].held = ms > 0 || sm_port_isolated(sm, &n->ports[k]);
			if (ms > longest)
				longest = ms;
		}
	}
	if (longest) {
		log_notice("flapping ports held down for up to %llu ms", (unsigned long long)longest);
		arm_holddown(sm, longest);
	}
}

/* --- scanning one switch ------------------------------------------------ */

static bool model_up(const struct sm_port *p)
{
	return p->peer && p->have_pi && p->pi.port_state > TOPO_PORT_DOWN && !p->held;
}

static void link_went_down(struct sm *sm, struct sm_port *p)
{
	struct sm_port *q = p->peer;

	log_notice("link down: %016llx \"%s\" port %u <-> %016llx \"%s\" port %u",
		   (unsigned long long)p->node->guid, p->node->desc, p->num,
		   (unsigned long long)q->node->guid, q->node->desc, q->num);
	q->pi.port_state = TOPO_PORT_DOWN;
	flap_note_down(sm, p);
	flap_note_down(sm, q);
	sm->light.down = true;
	sm_event(sm, "link_down", p);
}

static void link_bounced(struct sm *sm, struct sm_port *p, uint8_t state)
{
	struct sm_port *q = p->peer;

	log_notice("link bounced: %016llx \"%s\" port %u <-> %016llx \"%s\" port %u is %s: "
		   "re-activating it", (unsigned long long)p->node->guid, p->node->desc, p->num,
		   (unsigned long long)q->node->guid, q->node->desc, q->num,
		   state == TOPO_PORT_ARMED ? "Armed" : "Init");
	if (q->pi.port_state == TOPO_PORT_ACTIVE)
		q->pi.port_state = TOPO_PORT_INIT;  /* both ends retrain together */
	flap_note_down(sm, p);
	flap_note_down(sm, q);
	sm_event(sm, "link_bounced", p);
	if (!sm->conf.flap_holddown_s) {
		sm->light.up = true;
		return;
	}
	p->held = q->held = true;
	sm->light.down = true;
	arm_holddown(sm, (uint64_t)sm->conf.flap_holddown_s * 1000);
}

static void port_seen(struct sm *sm, struct sm_port *p, const struct smp_port_info *pi)
{
	bool was_up = model_up(p);

	if (was_up && pi->port_state == TOPO_PORT_DOWN) {
		p->pi = *pi;
		link_went_down(sm, p);
		return;
	}
	if (was_up && p->pi.port_state == TOPO_PORT_ACTIVE &&
	    (pi->port_state == TOPO_PORT_INIT || pi->port_state == TOPO_PORT_ARMED)) {
		p->pi = *pi;
		link_bounced(sm, p, pi->port_state);
		return;
	}
	if (!was_up && pi->port_state > TOPO_PORT_DOWN && !p->held) {
		uint64_t ms = held_for(sm, p);

		if (ms) {
			/* up again within the hold-down: held, and said so;
			 * a bounce for whoever counts them (the link health) */
			p->pi = *pi;
			p->held = true;
			arm_holddown(sm, ms);
			sm_event(sm, "link_bounced", p);
		} else {
			log_notice("link up: %016llx \"%s\" port %u", (unsigned long long)p->node->guid,
				   p->node->desc, p->num);
			sm->light.up = true;
			sm_event(sm, "link_up", p);
		}
	}
	if (was_up || pi->port_state == TOPO_PORT_DOWN)
		p->pi = *pi;
}

/* A link that came up needs discovery: heavy sweep. A link that went down
 * is rerouted at once; a switch that did not answer may only have been
 * addressed over that link, so it is looked at again after the reroute
 * (new paths) and only a second failure costs a heavy sweep. */
static void light_done(struct sm *sm)
{
	bool down = sm->light.down, up = sm->light.up, failed = sm->light.failed;
	bool again = sm->light.again;

	sm->light.running = false;
	sm->light.down = sm->light.up = sm->light.failed = sm->light.again = false;
	sm_sminfo_after_sweep(sm);   /* a handover that waited for our writes */
	if (sm->light.gen != sm->fabric_gen)
		return;   /* a heavy sweep ran meanwhile */
	if (up || (failed && !down)) {
		sm_sweep_request(sm);
		return;
	}
	if (again || failed)
		sm->light.pending_sweep = true;
	if (down)
		sm_reroute_request(sm);
	if (sm->light.pending_sweep && !sm->sweeping)
		sm_light_sweep(sm);
}

void sm_light_put(struct sm *sm)
{
	if (--sm->light.pending == 0)
		light_done(sm);
}

void sm_port_seen(struct sm *sm, struct sm_port *p, const struct smp_port_info *pi)
{
	port_seen(sm, p, pi);
}

static void scan_port_done(void *arg, int err, const struct smp *resp)
{
	struct scan_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_port_info pi;

	if (outdated(c))
		;
	else if (err == MAD_OK && smp_port_info_decode(resp->data, sizeof(resp->data), &pi) == 0)
		port_seen(sm, &c->n->ports[c->port], &pi);
	else
		sm->light.failed = true;
	free(c);
	sm_light_put(sm);
}

int sm_light_submit(struct sm *sm, const struct mad_req *r, mad_done_fn cb, void *arg)
{
	if (mad_engine_submit(sm->eng, r, cb, arg) < 0) {
		sm->light.failed = true;
		return -1;
	}
	sm->light.pending++;
	return 0;
}

static void light_submit(struct sm *sm, struct sm_node *n, uint8_t port, uint8_t method,
			 uint16_t attr, const uint8_t *data, mad_done_fn cb)
{
	struct scan_ctx *c = xcalloc(1, sizeof(*c));
	struct mad_req r;

	c->sm = sm;
	c->n = n;
	c->gen = sm->fabric_gen;
	c->port = port;
	sm_dr_req(sm, n, method, attr, attr == SMP_ATTR_PORT_INFO ? port : 0, &r);
	if (data)
		memcpy(r.data, data, SMP_DATA_SIZE);
	if (sm_light_submit(sm, &r, cb, c) < 0)
		free(c);
}

static void ack_done(void *arg, int err, const struct smp *resp)
{
	struct scan_ctx *c = arg;
	struct sm *sm = c->sm;

	if (err == MAD_OK && !outdated(c))
		smp_switch_info_decode(resp->data, sizeof(resp->data), &c->n->si);
	free(c);
	sm_light_put(sm);
}

/* Reads every port of n; clears its PortStateChange bit (written as 1). */
static void scan_switch(struct sm *sm, struct sm_node *n)
{
	struct smp_switch_info si = n->si;
	uint8_t data[SMP_DATA_SIZE] = { 0 };

	si.port_state_change = 1;
	smp_switch_info_encode(&si, data, sizeof(data));
	light_submit(sm, n, 0, MAD_METHOD_SET, SMP_ATTR_SWITCH_INFO, data, ack_done);
	for (unsigned p = 1; p <= n->ni.num_ports; p++)
		light_submit(sm, n, (uint8_t)p, MAD_METHOD_GET, SMP_ATTR_PORT_INFO, NULL,
			     scan_port_done);
}

static bool busy(struct sm *sm)
{
	if (!sm->fabric || sm->stopping || !sm_may_write(sm))
		return true;   /* a standby sends no Set, and light sweeps send one */
	if (sm->sweeping || sm->light.running) {
		/* After the running operation, look again. */
		sm->light.again = true;
		sm->light.pending_sweep = true;
		return true;
	}
	return false;
}

static void begin(struct sm *sm)
{
	sm->light.running = true;
	sm->light.pending = 1;
	sm->light.gen = sm->fabric_gen;
}

bool sm_light_begin(struct sm *sm)
{
	if (!sm->fabric || sm->stopping || !sm_may_write(sm))
		return false;
	if (sm->light.running)
		sm->light.pending++;
	else
		begin(sm);
	return true;
}

void sm_trap_scan(struct sm *sm, uint16_t issuer_lid)
{
	struct sm_node *n = NULL;

	if (busy(sm))
		return;
	for (uint32_t i = 0; i < sm->fabric->nnodes && !n; i++)
		if (node_is_switch(sm->fabric->nodes[i]) && sm->fabric->nodes[i]->ports[0].lid == issuer_lid)
			n = sm->fabric->nodes[i];
	if (!n || !n->reachable) {
		sm_sweep_request(sm);
		return;
	}
	begin(sm);
	scan_switch(sm, n);
	sm_light_put(sm);
}

static void si_done(void *arg, int err, const struct smp *resp)
{
	struct scan_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_switch_info si;

	if (outdated(c))
		;
	else if (err != MAD_OK || smp_switch_info_decode(resp->data, sizeof(resp->data), &si) < 0)
		sm->light.failed = true;
	else if (c->n->stale) {
		log_info("%016llx \"%s\" answers again: sweeping", (unsigned long long)c->n->guid,
			 c->n->desc);
		sm->light.up = true;
	} else if (si.port_state_change) {
		log_debug("%016llx \"%s\": PortStateChange set", (unsigned long long)c->n->guid,
			  c->n->desc);
		scan_switch(sm, c->n);
	}
	free(c);
	sm_light_put(sm);
}

void sm_light_sweep(struct sm *sm)
{
	if (busy(sm))
		return;
	sm->light.pending_sweep = false;
	log_debug("light sweep");
	begin(sm);
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		if (node_is_switch(n) && n->reachable)
			light_submit(sm, n, 0, MAD_METHOD_GET, SMP_ATTR_SWITCH_INFO, NULL, si_done);
	}
	sm_audit_step(sm);
	sm_light_put(sm);
}

void sm_light_free(struct sm *sm)
{
	if (sm->ev_hold)
		event_free(sm->ev_hold);
	guidtab_free(&sm->flaps);
}
