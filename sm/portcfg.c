/*
 * DOC: PortInfo configuration and the INIT -> ARMED -> ACTIVE walk.
 *
 * A port gets a PortInfo Set only when a field we own differs from what it
 * reported (IBA 14.2.5.6): LID/LMC, MasterSMLID, subnet prefix, M_Key and
 * lease, subnet timeout on ports that hold a LID; NeighborMTU and OperVLs,
 * from both ends' capabilities, on linked ports. The Set carries the port's
 * own PortInfo with the "no change" encodings (0) in PortState,
 * PortPhysicalState, LinkDownDefaultState and the LinkSpeed/Width Enabled
 * fields, so it never retrains a link by accident. MTU and VLs are not
 * changed on a port that is already Active: that needs a link bounce, which
 * is an operator's decision.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/sm.h"

struct pi_ctx {
	struct sm *sm;
	struct sm_port *p;
	uint8_t want_state;   /* 0 for a configuration Set */
	unsigned fields;      /* what the Set was for */
	struct smp_port_info want;
};

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

static bool holds_lid(const struct sm_port *p)
{
	return p->num == 0 || !node_is_switch(p->node);
}

static bool linked_up(const struct sm_port *p)
{
	return p->num && p->peer && p->have_pi && p->peer->have_pi && !p->held && !p->peer->held &&
	       p->pi.port_state > TOPO_PORT_DOWN && p->peer->pi.port_state > TOPO_PORT_DOWN;
}

/* Both ends read this sweep: a state walk needs to know where both are. */
static bool both_fresh(const struct sm_port *p)
{
	return !p->stale && !p->peer->stale && !p->peer->node->stale;
}

static void want_lid_fields(const struct sm *sm, const struct sm_port *p, struct smp_port_info *w)
{
	const struct sm_conf *c = &sm->conf;

	w->lid = p->lid;
	w->lmc = (uint8_t)(p->num ? c->lmc : 0);
	w->master_sm_lid = sm->sm_lid;
	w->gid_prefix = c->subnet_prefix;
	w->mkey = c->m_key;
	w->mkey_lease_period = (uint16_t)c->m_key_lease_period;
	w->mkey_protect = (uint8_t)c->m_key_protect;
	w->subnet_timeout = (uint8_t)c->subnet_timeout;
}

static void want_link_fields(const struct sm *sm, const struct sm_port *p, struct smp_port_info *w)
{
	const struct smp_port_info *a = &p->pi, *b = &p->peer->pi;

	if (p->pi.port_state == TOPO_PORT_ACTIVE)
		return;
	w->neighbor_mtu = (uint8_t)min3(a->mtu_cap, b->mtu_cap, 0xF);
	w->oper_vls = (uint8_t)min3(a->vl_cap, b->vl_cap, sm->conf.max_op_vls);
}

/* The fields we own, as a bit mask, so a port that ignores one of them
 * (ibsim ignores M_KeyLeasePeriod and SubnetTimeout, some HCAs the prefix)
 * is not sent the same Set on every sweep. */
enum pi_field {
	PF_LID = 1 << 0, PF_LMC = 1 << 1, PF_SMLID = 1 << 2, PF_PREFIX = 1 << 3,
	PF_MKEY = 1 << 4, PF_LEASE = 1 << 5, PF_PROTECT = 1 << 6, PF_TIMEOUT = 1 << 7,
	PF_MTU = 1 << 8, PF_VLS = 1 << 9,
	PF_REREG = 1 << 10,   /* ClientReregister (sm/rereg.c): never read back */
};

static unsigned pi_diff(const struct smp_port_info *a, const struct smp_port_info *b)
{
	return (a->lid != b->lid ? PF_LID : 0) | (a->lmc != b->lmc ? PF_LMC : 0) |
	       (a->master_sm_lid != b->master_sm_lid ? PF_SMLID : 0) |
	       (a->gid_prefix != b->gid_prefix ? PF_PREFIX : 0) |
	       (a->mkey != b->mkey ? PF_MKEY : 0) |
	       (a->mkey_lease_period != b->mkey_lease_period ? PF_LEASE : 0) |
	       (a->mkey_protect != b->mkey_protect ? PF_PROTECT : 0) |
	       (a->subnet_timeout != b->subnet_timeout ? PF_TIMEOUT : 0) |
	       (a->neighbor_mtu != b->neighbor_mtu ? PF_MTU : 0) |
	       (a->oper_vls != b->oper_vls ? PF_VLS : 0);
}

unsigned sm_port_wants(const struct sm *sm, const struct sm_port *p, struct smp_port_info *w)
{
	*w = p->pi;
	if (holds_lid(p) && p->lid)
		want_lid_fields(sm, p, w);
	if (linked_up(p))
		want_link_fields(sm, p, w);
	return pi_diff(w, &p->pi) & ~p->pi_ignored;
}

static void no_change_fields(struct smp_port_info *w)
{
	w->port_state = TOPO_PORT_NOCHANGE;
	w->phys_state = 0;
	w->link_down_def_state = 0;
	w->link_speed_enabled = 0;
	w->link_width_enabled = 0;
	w->link_speed_ext_enabled = 0;
	w->client_reregister = 0;
}

static void learn_ignored(struct pi_ctx *c, const struct smp_port_info *got)
{
	unsigned ignored = pi_diff(&c->want, got) & c->fields;

	if (!ignored)
		return;
	c->p->pi_ignored |= ignored;
	log_debug("%016llx port %u ignores PortInfo fields 0x%x; not setting them again",
		  (unsigned long long)c->p->node->guid, c->p->num, ignored);
}

/* A state Set whose first answer was lost is repeated; the port, already
 * in that state, refuses the repeat (a transition to the state it is in is
 * invalid). Its answer still carries its PortInfo: if it is where we
 * wanted it, the walk went through. */
static bool reached(const struct pi_ctx *c, int err, const struct smp *resp,
		    struct smp_port_info *pi)
{
	if (err != MAD_ERR_STATUS || !resp || !c->want_state ||
	    smp_port_info_decode(resp->data, sizeof(resp->data), pi) < 0)
		return false;
	return pi->port_state == c->want_state ||
	       (c->want_state == TOPO_PORT_ARMED && pi->port_state == TOPO_PORT_ACTIVE);
}

static void set_done(void *arg, int err, const struct smp *resp)
{
	struct pi_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_port_info pi;

	if (reached(c, err, resp, &pi) || (err == MAD_OK &&
	    smp_port_info_decode(resp->data, sizeof(resp->data), &pi) == 0)) {
		c->p->pi = pi;
		learn_ignored(c, &pi);
		if (c->want_state && pi.port_state != c->want_state)
			log_fabric(LOG_LVL_INFO, "%016llx port %u: state %u after Set to %u",
				   (unsigned long long)c->p->node->guid, c->p->num, pi.port_state,
				   c->want_state);
	} else {
		sm->sweep_clean = false;
		sm->st.errors++;
		log_fabric(LOG_LVL_WARNING, "PortInfo Set to %016llx \"%s\" port %u failed (%d)",
			   (unsigned long long)c->p->node->guid, c->p->node->desc, c->p->num, err);
	}
	if (c->fields & PF_REREG)
		sm_rereg_result(sm, c->p, err == MAD_OK);
	free(c);
	sm_phase_put(sm);
}

static void port_set_req(const struct sm *sm, const struct sm_port *p,
			 const struct smp_port_info *want, uint8_t state, bool rereg,
			 struct mad_req *r)
{
	struct smp_port_info w = *want;

	no_change_fields(&w);
	w.port_state = state;
	w.client_reregister = rereg;
	sm_port_req(sm, p, MAD_METHOD_SET, SMP_ATTR_PORT_INFO, p->num, r);
	smp_port_info_encode(&w, r->data, sizeof(r->data));
}

void sm_port_set_req(const struct sm *sm, const struct sm_port *p, const struct smp_port_info *want,
		     uint8_t state, struct mad_req *r)
{
	port_set_req(sm, p, want, state, false, r);
}

static void send_set(struct sm *sm, struct sm_port *p, struct smp_port_info *w, uint8_t state,
		     unsigned fields)
{
	struct pi_ctx *c = xcalloc(1, sizeof(*c));
	struct mad_req r;

	c->want = *w;
	c->sm = sm;
	c->p = p;
	c->want_state = state;
	c->fields = fields;
	port_set_req(sm, p, w, state, fields & PF_REREG, &r);
	if (sm_submit(sm, &r, set_done, c) < 0)
		free(c);
}

static void config_node(struct sm *sm, struct sm_node *n)
{
	struct smp_port_info w;
	unsigned fields;

	for (unsigned i = 0; i <= n->ni.num_ports; i++) {
		struct sm_port *p = &n->ports[i];

		if (!p->have_pi || p->stale)
			continue;
		fields = sm_port_wants(sm, p, &w) | (sm_rereg_wanted(sm, p) ? PF_REREG : 0);
		if (!fields)
			continue;
		sm->st.portinfo_sets++;
		send_set(sm, p, &w, TOPO_PORT_NOCHANGE, fields);
	}
}

static void portcfg_done(struct sm *sm)
{
	sm_route_phase(sm);
}

void sm_portcfg_phase(struct sm *sm)
{
	sm_rereg_phase(sm);
	sm_phase_begin(sm, portcfg_done);
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++)
		if (node_usable(sm->fabric->nodes[i]))
			config_node(sm, sm->fabric->nodes[i]);
	sm_phase_end(sm);
}

/* One pass of the state walk: every linked port in state `from` is Set to
 * `to`. Both ends of every link are walked, so a pass is fabric-wide. */
static void walk(struct sm *sm, uint8_t from, uint8_t to)
{
	struct smp_port_info w;

	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		for (unsigned k = 1; node_usable(n) && k <= n->ni.num_ports; k++) {
			struct sm_port *p = &n->ports[k];

			if (!linked_up(p) || !both_fresh(p) || p->pi.port_state != from)
				continue;
			w = p->pi;
			sm->st.state_sets++;
			send_set(sm, p, &w, to, 0);
		}
	}
}

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
	count_active(sm);
	sm_sweep_finished(sm);
}

static void armed_done(struct sm *sm)
{
	sm_phase_begin(sm, active_done);
	walk(sm, TOPO_PORT_ARMED, TOPO_PORT_ACTIVE);
	sm_phase_end(sm);
}

void sm_activate_phase(struct sm *sm)
{
	sm_phase_begin(sm, armed_done);
	walk(sm, TOPO_PORT_INIT, TOPO_PORT_ARMED);
	sm_phase_end(sm);
}
