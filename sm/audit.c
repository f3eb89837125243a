/*
 * DOC: the background audit (see audit.h).
 *
 * Items, in fabric order: a switch is its port 0 PortInfo then its LFT
 * blocks (none where adaptive routing owns the tables: sm/ar.c audits
 * those itself when it re-enables them); a CA is its LID-holding ports.
 * Then each node's P_KeyTable blocks, port by port, of the ports whose
 * table the SM laid out (pkey.h).
 * Each light sweep takes the next share of items from a cursor that wraps
 * around the fabric. Every read and every repair is one SMP counted in the
 * light sweep, so the light sweep ends when the audit's share has.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "sm/ar.h"
#include "sm/audit.h"
#include "sm/bringup.h"
#include "sm/drift.h"
#include "lib/log.h"
#include "sm/pkey.h"
#include "sm/portcfg.h"
#include "sm/sm.h"

#define AUDIT_MIN_SHARE 32

enum item_kind { IT_PORT, IT_LFT };

struct audit_ctx {
	struct sm *sm;
	struct sm_node *n;
	uint64_t gen;
	enum item_kind kind;
	uint8_t port;
	uint16_t block;
	uint8_t data[64];     /* an LFT block written back */
};

static unsigned lft_blocks(const struct sm *sm)
{
	return sm->have_routes ? sm->routes.top / 64u + 1 : 0;
}

static bool audits_lft(const struct sm *sm, const struct sm_node *n)
{
	return sm->have_routes && n->have_si && sm->routes.lft[n->idx].ports &&
	       !sm_ar_owns_lft(sm, n);
}

static bool port_item(const struct sm_port *p)
{
	return p->guid && p->lid && !p->dup_guid && p->have_pi && !p->stale;
}

/* Items of node n before its P_KeyTable blocks; a switch's item 0 is
 * port 0, the rest LFT blocks. */
static unsigned own_items(const struct sm *sm, const struct sm_node *n)
{
	unsigned k = 0;

	if (node_is_switch(n))
		return 1 + (audits_lft(sm, n) ? lft_blocks(sm) : 0);
	for (unsigned p = 1; p <= n->ni.num_ports; p++)
		k += port_item(&n->ports[p]);
	return k;
}

static unsigned first_port(const struct sm_node *n)
{
	return node_is_switch(n) ? 0 : 1;
}

static unsigned pkey_items(const struct sm *sm, const struct sm_node *n)
{
	unsigned k = 0;

	for (unsigned p = first_port(n); p <= n->ni.num_ports; p++)
		k += sm_pkey_audit_blocks(sm, &n->ports[p]);
	return k;
}

static unsigned node_items(const struct sm *sm, const struct sm_node *n)
{
	return node_usable(n) ? own_items(sm, n) + pkey_items(sm, n) : 0;
}

static struct sm_port *ca_port_item(struct sm_node *n, unsigned item)
{
	for (unsigned p = 1; p <= n->ni.num_ports; p++)
		if (port_item(&n->ports[p]) && item-- == 0)
			return &n->ports[p];
	return NULL;
}

static struct audit_ctx *ctx_new(struct sm *sm, struct sm_node *n, enum item_kind k)
{
	struct audit_ctx *c = xcalloc(1, sizeof(*c));

	c->sm = sm;
	c->n = n;
	c->gen = sm->fabric_gen;
	c->kind = k;
	return c;
}

static void submit(struct sm *sm, struct audit_ctx *c, const struct mad_req *r, mad_done_fn cb)
{
	if (sm_light_submit(sm, r, cb, c) < 0)
		free(c);
}

/* --- LFT blocks --- */

static void lft_written(void *arg, int err, const struct smp *resp)
{
	struct audit_ctx *c = arg;
	struct sm *sm = c->sm;
	struct sm_node *n = c->n;

	if (err == MAD_OK && c->gen == sm->fabric_gen && c->block < n->lft_blocks) {
		memcpy(n->lft + (size_t)c->block * 64, c->data, 64);
		n->lft_known[c->block] = LFT_KNOWN;
	}
	free(c);
	sm_light_put(sm);
}

static void lft_repair(struct sm *sm, struct sm_node *n, uint16_t block, const uint8_t *want,
		       unsigned bad)
{
	struct audit_ctx *c = ctx_new(sm, n, IT_LFT);
	struct mad_req r;

	log_fabric(LOG_LVL_WARNING, "audit: %016llx \"%s\" LFT block %u had %u entries that are "
		   "not our routes: written back", (unsigned long long)n->guid, n->desc, block, bad);
	c->block = block;
	memcpy(c->data, want, 64);
	sm_dr_req(sm, n, MAD_METHOD_SET, SMP_ATTR_LFT, block, &r);
	memcpy(r.data, want, 64);
	sm->audit.lft_repaired++;
	submit(sm, c, &r, lft_written);
}

static void lft_read(void *arg, int err, const struct smp *resp)
{
	struct audit_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_lft_block b;
	uint8_t want[64];

	if (err == MAD_OK && c->gen == sm->fabric_gen && !sm->sweeping && audits_lft(sm, c->n) &&
	    smp_lft_block_decode(resp->data, sizeof(resp->data), &b) == 0) {
		sm_lft_desired(sm, c->n, c->block, want);
		if (lft_differing(b.port, want))
			lft_repair(sm, c->n, c->block, want, lft_differing(b.port, want));
	}
	free(c);
	sm_light_put(sm);
}

static void audit_lft(struct sm *sm, struct sm_node *n, uint16_t block)
{
	struct audit_ctx *c = ctx_new(sm, n, IT_LFT);
	struct mad_req r;

	c->block = block;
	sm_dr_req(sm, n, MAD_METHOD_GET, SMP_ATTR_LFT, block, &r);
	submit(sm, c, &r, lft_read);
}

/* --- PortInfo --- */

static void pi_written(void *arg, int err, const struct smp *resp)
{
	struct audit_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_port_info pi;

	if (err == MAD_OK && c->gen == sm->fabric_gen &&
	    smp_port_info_decode(resp->data, sizeof(resp->data), &pi) == 0)
		c->n->ports[c->port].pi = pi;
	free(c);
	sm_light_put(sm);
}

/* Our LID, LMC and SM LID on a port that holds a LID. */
static bool lid_drift(const struct sm *sm, const struct sm_port *p, const struct smp_port_info *pi)
{
	uint8_t lmc = node_is_switch(p->node) ? 0 : (uint8_t)sm->conf.lmc;

	return pi->lid != p->lid || pi->master_sm_lid != sm->sm_lid || (p->num && pi->lmc != lmc);
}

static void pi_repair(struct sm *sm, struct sm_port *p, const struct smp_port_info *pi)
{
	struct audit_ctx *c = ctx_new(sm, p->node, IT_PORT);
	struct smp_port_info w;
	struct mad_req r;

	log_fabric(LOG_LVL_WARNING, "audit: %016llx \"%s\" port %u holds LID %u, SM LID %u; "
		   "setting back LID %u, SM LID %u", (unsigned long long)p->node->guid,
		   p->node->desc, p->num, pi->lid, pi->master_sm_lid, p->lid, sm->sm_lid);
	c->port = p->num;
	sm_port_wants(sm, p, &w);
	sm_port_set_req(sm, p, &w, TOPO_PORT_NOCHANGE, &r);
	sm->audit.pi_repaired++;
	sm_event(sm, "audit_repair", p);
	submit(sm, c, &r, pi_written);
}

static void pi_read(void *arg, int err, const struct smp *resp)
{
	struct audit_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_port_info pi;

	if (err == MAD_OK && c->gen == sm->fabric_gen && !sm->sweeping &&
	    smp_port_info_decode(resp->data, sizeof(resp->data), &pi) == 0) {
		struct sm_port *p = &c->n->ports[c->port];

		if (p->num)
			sm_port_seen(sm, p, &pi);
		p->pi = pi;
		if (p->lid && lid_drift(sm, p, &pi))
			pi_repair(sm, p, &pi);
	}
	free(c);
	sm_light_put(sm);
}

static void audit_port(struct sm *sm, struct sm_port *p)
{
	struct audit_ctx *c = ctx_new(sm, p->node, IT_PORT);
	struct mad_req r;

	c->port = p->num;
	sm_port_req(sm, p, MAD_METHOD_GET, SMP_ATTR_PORT_INFO, p->num, &r);
	submit(sm, c, &r, pi_read);
}

/* --- the share --- */

/* Item-th P_KeyTable block of n's ports, in port order. */
static void audit_pkey(struct sm *sm, struct sm_node *n, unsigned item)
{
	for (unsigned p = first_port(n); p <= n->ni.num_ports; p++) {
		unsigned k = sm_pkey_audit_blocks(sm, &n->ports[p]);

		if (item < k) {
			sm_pkey_audit(sm, &n->ports[p], (uint16_t)item);
			return;
		}
		item -= k;
	}
}

static void audit_item(struct sm *sm, struct sm_node *n, unsigned item)
{
	unsigned own = own_items(sm, n);
	struct sm_port *p;

	sm->audit.checked++;
	if (item >= own)
		audit_pkey(sm, n, item - own);
	else if (node_is_switch(n)) {
		if (item == 0)
			audit_port(sm, &n->ports[0]);
		else
			audit_lft(sm, n, (uint16_t)(item - 1));
	} else if ((p = ca_port_item(n, item))) {
		audit_port(sm, p);
	}
}

static uint64_t total_items(const struct sm *sm)
{
	uint64_t t = 0;

	for (uint32_t i = 0; i < sm->fabric->nnodes; i++)
		t += node_items(sm, sm->fabric->nodes[i]);
	return t;
}

/* The share that covers the fabric once per audit_period. */
static uint64_t share(const struct sm *sm, uint64_t total)
{
	uint64_t light = sm->conf.light_sweep_interval ? sm->conf.light_sweep_interval : 1;
	uint64_t n = (total * light + sm->conf.audit_period - 1) / sm->conf.audit_period;

	return n < AUDIT_MIN_SHARE ? AUDIT_MIN_SHARE : n;
}

static void next_pass(struct sm *sm)
{
	uint64_t now = clock_ms();

	if (sm->audit.pass_start_ms)
		sm->audit.last_pass_ms = now - sm->audit.pass_start_ms;
	sm->audit.pass_start_ms = now;
	sm->audit.passes++;
	sm->audit.node = sm->audit.item = 0;
}

static void audit_share(struct sm *sm)
{
	struct sm_fabric *f = sm->fabric;
	uint64_t total = total_items(sm), n;

	if (!total)
		return;
	if (!sm->audit.pass_start_ms || sm->audit.node >= f->nnodes)
		next_pass(sm);
	n = share(sm, total);
	for (uint64_t k = 0; k < n && k < total; k++) {
		struct sm_node *nd;

		while (sm->audit.item >= node_items(sm, f->nodes[sm->audit.node])) {
			sm->audit.item = 0;
			if (++sm->audit.node >= f->nnodes)
				next_pass(sm);
		}
		nd = f->nodes[sm->audit.node];
		audit_item(sm, nd, sm->audit.item++);
	}
}

/* Our own port: if its LID or SM LID moved, no trap and no SA query finds us. */
static void own_port(struct sm *sm)
{
	struct sm_node *n = sm->fabric->sm_node;
	struct sm_port *p;

	if (!n || n->stale)
		return;
	p = &n->ports[node_is_switch(n) ? 0 : sm->fabric->sm_port_num];
	if (p->lid)
		audit_port(sm, p);
}

void sm_audit_step(struct sm *sm)
{
	if (!sm->fabric || sm->sweeping || !sm->have_routes)
		return;
	own_port(sm);
	if (sm->conf.audit_period)
		audit_share(sm);
}
