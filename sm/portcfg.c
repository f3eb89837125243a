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
 *
 * The state walk itself is activate.c's: this file makes its Sets.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/activate.h"
#include "lib/log.h"
#include "sm/phase.h"
#include "sm/pkey.h"
#include "sm/portcfg.h"
#include "sm/rereg.h"
#include "sm/sm.h"
#include "sm/tablephases.h"

struct pi_ctx {
	struct sm *sm;
	struct sm_port *p;
	uint8_t want_state;   /* 0 for a configuration Set */
	unsigned fields;      /* what the Set was for */
	bool enforce;         /* partition enforcement bits ride on it */
	struct smp_port_info want;
	void (*then)(struct sm *, struct sm_port *, bool);
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

bool sm_port_linked_up(const struct sm_port *p)
{
	return p->num && p->peer && p->have_pi && p->peer->have_pi && !p->held && !p->peer->held &&
	       p->pi.port_state > TOPO_PORT_DOWN && p->peer->pi.port_state > TOPO_PORT_DOWN;
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
	if (sm_port_linked_up(p))
		want_link_fields(sm, p, w);
	return pi_diff(w, &p->pi) & ~p->pi_ignored;
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
	bool ok = reached(c, err, resp, &pi) ||
		  (err == MAD_OK && smp_port_info_decode(resp->data, sizeof(resp->data), &pi) == 0);

	if (ok) {
		c->p->pi = pi;
		learn_ignored(c, &pi);
		if (c->enforce)
			tables_pi_check(c->p, &c->want, &pi, TF_ENFORCE);
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
	if (c->then)
		c->then(sm, c->p, ok && (!c->want_state || pi.port_state == c->want_state ||
					 pi.port_state == TOPO_PORT_ACTIVE));
	pool_put(&sm->ctx_pool[SM_POOL_PORTINFO], c);
	sm_phase_put(sm);
}

static void port_set_req(const struct sm *sm, const struct sm_port *p,
			 const struct smp_port_info *want, uint8_t state, bool rereg,
			 struct mad_req *r)
{
	struct smp_port_info w = *want;

	smp_port_info_no_change(&w);
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

static struct pi_ctx *new_ctx(struct sm *sm, struct sm_port *p, struct smp_port_info *w,
			       uint8_t state, unsigned fields)
{
	struct pi_ctx *c = pool_get(&sm->ctx_pool[SM_POOL_PORTINFO], sizeof(*c));

	c->want = *w;
	c->sm = sm;
	c->p = p;
	c->want_state = state;
	c->fields = fields;
	return c;
}

static void submit(struct sm *sm, struct pi_ctx *c)
{
	struct mad_req r;

	port_set_req(sm, c->p, &c->want, c->want_state, c->fields & PF_REREG, &r);
	if (sm_submit(sm, &r, set_done, c) < 0)
		pool_put(&sm->ctx_pool[SM_POOL_PORTINFO], c);
}

void sm_port_state_set(struct sm *sm, struct sm_port *p, uint8_t to,
		       void (*then)(struct sm *, struct sm_port *, bool))
{
	struct smp_port_info w = p->pi;
	struct pi_ctx *c;
	bool enforce = sm_pkey_enforcement(sm, p, &w);

	sm->st.state_sets++;
	c = new_ctx(sm, p, &w, to, 0);
	c->enforce = enforce;
	c->then = then;
	submit(sm, c);
}

/* A port whose configuration did not take keeps its link for the end
 * walk (activate.h), which goes on as every sweep did. */
static void configured(struct sm *sm, struct sm_port *p, bool ok)
{
	if (ok)
		sm_act_release_port(sm, p);
}

/* The configuration Sets of a phase, made (and their ports held) before
 * they may go: the LIDs they give out must be on disk first. */
struct portcfg_batch {
	struct pi_ctx **v;
	size_t n, cap;
};

static void config_node(struct sm *sm, struct sm_node *n, struct portcfg_batch *b)
{
	struct smp_port_info w;
	unsigned fields;

	for (unsigned i = 0; i <= n->ni.num_ports; i++) {
		struct sm_port *p = &n->ports[i];
		struct pi_ctx *c;

		if (!p->have_pi || p->stale)
			continue;
		fields = sm_port_wants(sm, p, &w) | (sm_rereg_wanted(sm, p) ? PF_REREG : 0);
		if (!fields)
			continue;
		sm->st.portinfo_sets++;
		c = new_ctx(sm, p, &w, TOPO_PORT_NOCHANGE, fields);
		c->then = configured;
		sm_act_hold_port(sm, p);
		if (b->n == b->cap)
			b->v = xrealloc(b->v, (b->cap = b->cap ? 2 * b->cap : 256) * sizeof(*b->v));
		b->v[b->n++] = c;
	}
}

struct portcfg_batch *sm_portcfg_prepare(struct sm *sm)
{
	struct portcfg_batch *b = xcalloc(1, sizeof(*b));

	sm_rereg_phase(sm);
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++)
		if (node_usable(sm->fabric->nodes[i]))
			config_node(sm, sm->fabric->nodes[i], b);
	return b;
}

size_t sm_portcfg_count(const struct portcfg_batch *b)
{
	return b ? b->n : 0;
}

void sm_portcfg_send(struct sm *sm, struct portcfg_batch *b, size_t i)
{
	submit(sm, b->v[i]);
	b->v[i] = NULL;
}

void sm_portcfg_free(struct portcfg_batch *b)
{
	for (size_t i = 0; b && i < b->n; i++)
		free(b->v[i]);
	if (b)
		free(b->v);
	free(b);
}
