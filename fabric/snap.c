/*
 * DOC: fabric snapshots as a data structure (see snap.h): allocation, the
 * LID map and GUID indices, references and lookups. Filling one from the
 * SM's fabric is sm/snap_build.c, so that the SA's tests, benchmarks and
 * fuzzers build snapshots of their own without the SM.
 *
 * A snapshot is one allocation per array: nodes, their ports 0..n in a
 * flat array, then the LID map and the sorted GUID indices.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "routing/routing.h"
#include "fabric/snap.h"

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

struct sm_snap *snap_new(uint32_t nnodes, uint32_t nports)
{
	struct sm_snap *s = xcalloc(1, sizeof(*s));

	s->refs = 1;
	s->nnodes = nnodes;
	s->nports = nports;
	s->nodes = xcalloc(nnodes ? nnodes : 1, sizeof(*s->nodes));
	s->ports = xcalloc(nports ? nports : 1, sizeof(*s->ports));
	return s;
}

void snap_index(struct sm_snap *s)
{
	fill_lids(s);
	fill_guids(s);
}

void rt_hold_put(struct rt_hold *h)
{
	if (h && --h->refs == 0) {
		route_tables_free(&h->t);
		free(h);
	}
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
	rt_hold_put(s->rt_hold);
	free(s->nodes);
	free(s->ports);
	free(s->by_lid);
	free(s->by_guid);
	free(s->by_node);
	free(s->pkeys);
	free(s->parts);
	free(s);
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
