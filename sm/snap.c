/*
 * DOC: building, publishing and reading fabric snapshots (see snap.h).
 *
 * A snapshot is one allocation per array, filled in one pass over the
 * fabric: nodes in fabric order, their ports 0..n in a flat array, then
 * the LID map and the sorted GUID indices. The SM keeps one reference to
 * the current snapshot; the unicast tables are shared through an rt_hold
 * that the SM and every snapshot using them count on.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/pkey.h"
#include "sm/sm.h"
#include "sm/snap.h"

static void hold_put(struct rt_hold *h)
{
	if (h && --h->refs == 0) {
		route_tables_free(&h->t);
		free(h);
	}
}

void sm_routes_drop(struct sm *sm)
{
	if (sm->rt_hold) {
		hold_put(sm->rt_hold);   /* snapshots may still use them */
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

static void fill_lids(struct sm_snap *s)
{
	for (uint32_t i = 0; i < s->nports; i++) {
		unsigned last = s->ports[i].lid + (1u << s->ports[i].lmc) - 1;

		if (s->ports[i].lid && last > s->top && last <= 0xBFFF)
			s->top = (uint16_t)last;
	}
	s->by_lid = xmalloc(((size_t)s->top + 1) * sizeof(*s->by_lid));
	for (unsigned l = 0; l <= s->top; l++)
		s->by_lid[l] = SNAP_NONE;
	for (uint32_t i = 0; i < s->nports; i++) {
		const struct snap_port *p = &s->ports[i];

		for (unsigned l = p->lid; p->lid && l < p->lid + (1u << p->lmc) && l <= s->top; l++)
			s->by_lid[l] = i;
	}
}

static int cmp_guid(const void *a, const void *b)
{
	const struct snap_guid *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static void fill_guids(struct sm_snap *s)
{
	s->by_guid = xcalloc(s->nports ? s->nports : 1, sizeof(*s->by_guid));
	s->by_node = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*s->by_node));
	for (uint32_t i = 0; i < s->nports; i++)
		if (s->ports[i].guid)
			s->by_guid[s->nguids++] = (struct snap_guid){ s->ports[i].guid, i };
	for (uint32_t i = 0; i < s->nnodes; i++)
		s->by_node[i] = (struct snap_guid){ s->nodes[i].guid, i };
	qsort(s->by_guid, s->nguids, sizeof(*s->by_guid), cmp_guid);
	qsort(s->by_node, s->nnodes, sizeof(*s->by_node), cmp_guid);
}

static struct sm_snap *build(struct sm *sm)
{
	const struct sm_fabric *f = sm->fabric;
	struct sm_snap *s = xcalloc(1, sizeof(*s));

	s->refs = 1;
	s->sweep = sm->sweeps;
	s->subnet_prefix = sm->conf.subnet_prefix;
	s->sm_lid = sm->sm_lid;
	s->sm_port_guid = sm->port.port_guid;
	s->subnet_timeout = (uint8_t)sm->conf.subnet_timeout;
	s->nnodes = f->nnodes;
	for (uint32_t i = 0; i < f->nnodes; i++)
		s->nports += (uint32_t)f->nodes[i]->ni.num_ports + 1;
	s->nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*s->nodes));
	s->ports = xcalloc(s->nports ? s->nports : 1, sizeof(*s->ports));
	fill_nodes(s, f);
	fill_links(s, f);
	fill_lids(s);
	fill_guids(s);
	s->rt_hold = share_routes(sm);
	s->rt = s->rt_hold ? &s->rt_hold->t : NULL;
	sm_pkey_snap_fill(sm, s);
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

struct sm_snap *sm_snap_ref(const struct sm_snap *s)
{
	struct sm_snap *w = (struct sm_snap *)(uintptr_t)s;   /* the count is not content */

	w->refs++;
	return w;
}

void sm_snap_unref(struct sm_snap *s)
{
	if (!s || --s->refs)
		return;
	hold_put(s->rt_hold);
	free(s->nodes);
	free(s->ports);
	free(s->by_lid);
	free(s->by_guid);
	free(s->by_node);
	free(s->pkeys);
	free(s);
}

void sm_snap_fini(struct sm *sm)
{
	sm_snap_unref(sm->snap);
	sm->snap = NULL;
}

const struct snap_port *snap_port_by_lid(const struct sm_snap *s, uint16_t lid)
{
	if (lid == 0 || lid > s->top || s->by_lid[lid] == SNAP_NONE)
		return NULL;
	return &s->ports[s->by_lid[lid]];
}

static const struct snap_guid *find(const struct snap_guid *v, uint32_t n, uint64_t guid)
{
	struct snap_guid key = { guid, 0 };

	return bsearch(&key, v, n, sizeof(*v), cmp_guid);
}

const struct snap_port *snap_port_by_guid(const struct sm_snap *s, uint64_t port_guid)
{
	const struct snap_guid *g = find(s->by_guid, s->nguids, port_guid);

	return g ? &s->ports[g->port] : NULL;
}

const struct snap_node *snap_node_by_guid(const struct sm_snap *s, uint64_t node_guid)
{
	const struct snap_guid *g = find(s->by_node, s->nnodes, node_guid);

	return g ? &s->nodes[g->port] : NULL;
}

const struct snap_port *snap_peer(const struct sm_snap *s, const struct snap_port *p)
{
	return p->peer == SNAP_NONE ? NULL : &s->ports[p->peer];
}
