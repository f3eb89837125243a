/*
 * DOC: building the SM's snapshot after every sweep and reroute (fabric/snap.h, snap_build.h).
 *
 * One pass over the fabric fills nodes in fabric order and their ports;
 * snap_index() adds the LID map and GUID indices. The SM keeps one
 * reference to the current snapshot; the unicast tables are shared
 * through an rt_hold that the SM and every snapshot using them count on.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "conf/partitions.h"
#include "sm/pkey.h"
#include "sm/qos.h"
#include "sm/sm.h"
#include "sm/snap_build.h"

void sm_routes_drop(struct sm *sm)
{
	if (sm->rt_hold) {
		rt_hold_put(sm->rt_hold);   /* snapshots may still use them */
		sm->rt_hold = NULL;
	} else if (sm->have_routes || sm->routes.lft) {
		route_tables_free(&sm->routes);
	}
	memset(&sm->routes, 0, sizeof(sm->routes));
	sm->have_routes = false;
}

/* The SM's tables, shared from now on. */
static struct rt_hold *share_routes(struct sm *sm)
{
	if (!sm->have_routes)
		return NULL;
	if (!sm->rt_hold) {
		sm->rt_hold = xcalloc(1, sizeof(*sm->rt_hold));
		sm->rt_hold->refs = 1;
		sm->rt_hold->t = sm->routes;
	}
	sm->rt_hold->refs++;
	return sm->rt_hold;
}

static void fill_port(struct sm_snap *s, uint32_t node, const struct sm_port *p, uint32_t idx)
{
	struct snap_port *sp = &s->ports[idx];

	sp->node = node;
	sp->num = p->num;
	sp->peer = SNAP_NONE;
	sp->guid = p->dup_guid ? 0 : p->guid;
	sp->lid = p->lid;
	sp->lmc = p->have_pi && p->num ? p->pi.lmc : 0;
	sp->have_pi = p->have_pi;
	sp->stale = p->stale || p->node->stale;
	sp->pi = p->pi;
}

static void fill_nodes(struct sm_snap *s, const struct sm_fabric *f)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];
		struct snap_node *sn = &s->nodes[i];

		sn->guid = n->guid;
		sn->ni = n->ni;
		memcpy(sn->desc, n->desc, sizeof(sn->desc));
		sn->is_switch = node_is_switch(n);
		sn->have_si = n->have_si;
		sn->stale = n->stale;
		sn->si = n->si;
		sn->port0 = k;
		sn->nports = n->ni.num_ports;
		for (unsigned p = 0; p <= n->ni.num_ports; p++)
			fill_port(s, i, &n->ports[p], k++);
	}
}

/* Peers by port index: a node's port p sits at port0 + p. */
static void fill_links(struct sm_snap *s, const struct sm_fabric *f)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		for (unsigned p = 1; p <= n->ni.num_ports; p++) {
			const struct sm_port *q = n->ports[p].peer;
			struct snap_port *sp = &s->ports[s->nodes[i].port0 + p];

			if (!q || n->ports[p].dup_guid || q->dup_guid)
				continue;
			sp->peer = s->nodes[q->node->idx].port0 + q->num;
			sp->peer_port = q->num;
		}
	}
}

static int cmp_part(const void *a, const void *b)
{
	const struct snap_part *x = a, *y = b;

	return (x->pkey > y->pkey) - (x->pkey < y->pkey);
}

/* The partitions and the SLs their paths take (sa/partition.c). */
static void fill_parts(struct sm *sm, struct sm_snap *s)
{
	const struct part_config *pc = sm->pkey ? sm_pkey_config(sm) : NULL;

	if (!pc)
		return;
	s->have_parts = true;
	s->sl_ok = sm_qos_sl_mask(sm);
	s->parts = xcalloc(pc->n_parts + 1, sizeof(*s->parts));
	for (size_t i = 0; i < pc->n_parts; i++) {
		s->parts[s->nparts].pkey = PKEY_BASE(pc->parts[i].pkey);
		s->parts[s->nparts++].sl = (int8_t)sm_qos_path_sl(sm, pc->parts[i].pkey);
	}
	qsort(s->parts, s->nparts, sizeof(*s->parts), cmp_part);
}

static struct sm_snap *build(struct sm *sm)
{
	const struct sm_fabric *f = sm->fabric;
	uint32_t nports = 0;
	struct sm_snap *s;

	for (uint32_t i = 0; i < f->nnodes; i++)
		nports += (uint32_t)f->nodes[i]->ni.num_ports + 1;
	s = snap_new(f->nnodes, nports);
	s->sweep = sm->sweeps;
	s->subnet_prefix = sm->conf.subnet_prefix;
	s->sm_lid = sm->sm_lid;
	s->sm_port_guid = sm->port.port_guid;
	s->subnet_timeout = (uint8_t)sm->conf.subnet_timeout;
	fill_nodes(s, f);
	fill_links(s, f);
	snap_index(s);
	s->rt_hold = share_routes(sm);
	s->rt = s->rt_hold ? &s->rt_hold->t : NULL;
	sm_pkey_snap_fill(sm, s);
	fill_parts(sm, s);
	return s;
}

void sm_snap_publish(struct sm *sm)
{
	struct sm_snap *s;

	if (!sm->fabric)
		return;
	s = build(sm);
	sm_snap_unref(sm->snap);
	sm->snap = s;
}

const struct sm_snap *sm_snap_current(const struct sm *sm)
{
	return sm->snap;
}

void sm_snap_fini(struct sm *sm)
{
	sm_snap_unref(sm->snap);
	sm->snap = NULL;
}
