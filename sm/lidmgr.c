/*
 * DOC: LID assignment for a freshly discovered fabric.
 *
 * Priority, so that LIDs never move for a port we have seen:
 *   1. the LID in the state file for the port GUID,
 *   2. a valid, aligned LID the port already holds (another SM set it, or
 *      we did before the state file existed) that nobody else claims,
 *   3. a new one from topo_fill_lids(), the same deterministic filler the
 *      offline tool uses.
 * CA ports get 2^lmc LIDs, aligned; switches one LID on port 0 (base SP0).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "routing/lids.h"
#include "sm/log.h"
#include "sm/sm.h"

struct lid_port {
	struct sm_port *p;
	uint8_t lmc;
};

static bool range_free(const uint8_t *used, unsigned lid, unsigned lmc)
{
	unsigned n = 1u << lmc;

	if (lid == 0 || lid + n - 1 > TOPO_MAX_UCAST_LID || (lid & (n - 1)))
		return false;
	for (unsigned l = lid; l < lid + n; l++)
		if (used[l])
			return false;
	return true;
}

static void take(uint8_t *used, struct sm_port *p, unsigned lid, unsigned lmc)
{
	for (unsigned l = lid; l < lid + (1u << lmc); l++)
		used[l] = 1;
	p->lid = (uint16_t)lid;
}

/* The port that holds the node's LID(s): port 0 of a switch, else each
 * discovered CA port. */
static size_t collect(const struct sm *sm, struct lid_port *out)
{
	const struct sm_fabric *f = sm->fabric;
	size_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *nd = f->nodes[i];

		if (node_is_switch(nd)) {
			out[n++] = (struct lid_port){ &nd->ports[0], 0 };
			continue;
		}
		for (unsigned p = 1; p <= nd->ni.num_ports; p++)
			if (nd->ports[p].guid && nd->ports[p].have_pi)
				out[n++] = (struct lid_port){ &nd->ports[p], (uint8_t)sm->conf.lmc };
	}
	return n;
}

static void place_known(struct sm *sm, struct lid_port *lp, size_t n, uint8_t *used)
{
	for (size_t i = 0; i < n; i++) {
		const struct lid_entry *e = lid_db_get(&sm->lids, lp[i].p->guid);

		lp[i].p->lid = 0;
		if (e && range_free(used, e->lid, lp[i].lmc))
			take(used, lp[i].p, e->lid, lp[i].lmc);
	}
	for (size_t i = 0; i < n; i++) {
		struct sm_port *p = lp[i].p;

		if (!p->lid && !lid_db_get(&sm->lids, p->guid) && p->have_pi &&
		    range_free(used, p->pi.lid, lp[i].lmc))
			take(used, p, p->pi.lid, lp[i].lmc);
	}
}

/* New LIDs for whoever still has none, from the shared deterministic filler. */
static int fill_rest(struct sm *sm)
{
	struct topo *t = fabric_to_topo(sm->fabric);
	char err[256];
	int rc = topo_fill_lids(t, (uint8_t)sm->conf.lmc, err, sizeof(err));

	if (rc < 0) {
		log_warnx("LID assignment: %s", err);
	} else {
		for (uint32_t i = 0; i < t->nnodes; i++) {
			struct sm_node *nd = sm->fabric->nodes[i];

			for (unsigned p = 0; p <= nd->ni.num_ports; p++)
				if (!nd->ports[p].lid)
					nd->ports[p].lid = t->nodes[i].ports[p].lid;
		}
	}
	fabric_topo_free(t);
	return rc;
}

static void remember(struct sm *sm, struct lid_port *lp, size_t n)
{
	char err[256];

	for (size_t i = 0; i < n; i++)
		if (lp[i].p->lid)
			lid_db_set(&sm->lids, lp[i].p->guid, lp[i].p->lid, lp[i].lmc);
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
	uint8_t *used = xcalloc(TOPO_MAX_UCAST_LID + 1, 1);

	for (uint32_t i = 0; i < f->nnodes; i++)
		cap += (size_t)f->nodes[i]->ni.num_ports + 1;
	lp = xcalloc(cap, sizeof(*lp));
	n = collect(sm, lp);
	place_known(sm, lp, n, used);
	if (fill_rest(sm) < 0)
		sm->sweep_clean = false;
	remember(sm, lp, n);
	sm->sm_lid = own_lid(sm);
	free(lp);
	free(used);
	sm_portcfg_phase(sm);
}
