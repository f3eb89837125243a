/*
 * DOC: the LID phase of a heavy sweep: one claim per LID-holding port of
 * the fabric (switch port 0, CA ports; nodes carried over from the last
 * sweep included, with what they held), decided by the allocator
 * (lidalloc.h), written back to the state file.
 *
 * CA ports get 2^lmc LIDs, aligned; switches one LID on port 0 (base SP0).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sm/lidalloc.h"
#include "sm/log.h"
#include "sm/sm.h"

struct lid_port {
	struct sm_port *p;
	struct lid_claim c;
};

static void claim_of(const struct sm *sm, struct sm_port *p, struct lid_port *lp)
{
	bool sw = node_is_switch(p->node);

	memset(lp, 0, sizeof(*lp));
	lp->p = p;
	lp->c.guid = p->guid;
	lp->c.order = (p->node->guid << 8) | p->num;
	lp->c.held_known = p->have_pi;
	lp->c.held = p->have_pi ? p->pi.lid : 0;
	lp->c.held_lmc = p->have_pi && !sw ? p->pi.lmc : 0;
	lp->c.lmc = sw ? 0 : (uint8_t)sm->conf.lmc;
	lp->c.is_switch = sw;
	lp->c.exclude = p->dup_guid;
}

static size_t collect(const struct sm *sm, struct lid_port *out)
{
	const struct sm_fabric *f = sm->fabric;
	size_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *nd = f->nodes[i];

		for (unsigned p = 0; p <= nd->ni.num_ports; p++) {
			struct sm_port *sp = &nd->ports[p];

			if (sp->guid && (p == 0) == node_is_switch(nd))
				claim_of(sm, sp, &out[n++]);
		}
	}
	return n;
}

static void log_stats(const struct lid_alloc_stats *st)
{
	if (st->fresh || st->waiting || st->moved || st->released)
		log_info("LIDs: %u reserved, %u kept, %u new, %u moved, %u waiting for theirs, "
			 "%u none, %u reservations released", st->reserved, st->kept, st->fresh,
			 st->moved, st->waiting, st->none, st->released);
}

static void assign(struct sm *sm, struct lid_port *lp, size_t n)
{
	struct lid_claim *c = xcalloc(n ? n : 1, sizeof(*c));
	struct lid_alloc_stats st;
	char err[256];

	for (size_t i = 0; i < n; i++)
		c[i] = lp[i].c;
	if (lid_alloc(&sm->lids, c, n, (uint64_t)time(NULL), &st) < 0) {
		log_warnx("LID assignment: out of unicast LIDs; ports without one stay unrouted");
		sm->sweep_clean = false;
	}
	for (size_t i = 0; i < n; i++)
		lp[i].p->lid = c[i].lid;
	log_stats(&st);
	free(c);
	if (lid_db_save(&sm->lids, err, sizeof(err)) < 0) {
		log_warnx("cannot save LID state: %s", err);
		sm->sweep_clean = false;
	}
}

static uint16_t own_lid(const struct sm *sm)
{
	const struct sm_node *n = sm->fabric->sm_node;

	return node_is_switch(n) ? n->ports[0].lid : n->ports[sm->fabric->sm_port_num].lid;
}

void sm_lids_phase(struct sm *sm)
{
	struct sm_fabric *f = sm->fabric;
	size_t cap = 0, n;
	struct lid_port *lp;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		cap += (size_t)f->nodes[i]->ni.num_ports + 1;
		for (unsigned p = 0; p <= f->nodes[i]->ni.num_ports; p++)
			f->nodes[i]->ports[p].lid = 0;
	}
	lp = xcalloc(cap ? cap : 1, sizeof(*lp));
	n = collect(sm, lp);
	assign(sm, lp, n);
	sm->sm_lid = own_lid(sm);
	free(lp);
	sm_portcfg_phase(sm);
}
