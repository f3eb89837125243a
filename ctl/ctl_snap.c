/*
 * DOC: fabric snapshots and their diff (see ctl_snap.h).
 *
 * Nodes are kept sorted by GUID, links as (GUID, port) pairs with the
 * smaller end first, sorted; a diff is then one merge pass over each list.
 * A link counts as up when both ends see each other and neither port is
 * Down.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibsm/ctl_proto.h"
#include "ctl/ctl_snap.h"
#include "fabric/fabric.h"
#include "lib/log.h"

struct snap_node {
	uint64_t guid;
	uint8_t type;
	char desc[65];
};

struct snap_link {
	uint64_t g1, g2;
	uint8_t p1, p2;
};

struct ctl_snap {
	struct snap_node *nodes;
	size_t nnodes;
	struct snap_link *links;
	size_t nlinks;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int node_cmp(const void *a, const void *b)
{
	return cmp_u64(((const struct snap_node *)a)->guid, ((const struct snap_node *)b)->guid);
}

static int link_cmp(const void *a, const void *b)
{
	const struct snap_link *x = a, *y = b;

	if (x->g1 != y->g1)
		return cmp_u64(x->g1, y->g1);
	if (x->p1 != y->p1)
		return x->p1 < y->p1 ? -1 : 1;
	if (x->g2 != y->g2)
		return cmp_u64(x->g2, y->g2);
	return x->p2 < y->p2 ? -1 : x->p2 > y->p2;
}

static bool port_up(const struct sm_port *p)
{
	return !p->have_pi || p->pi.port_state > 1;
}

/* Each link once: from the end with the smaller (GUID, port). */
static void add_links(struct ctl_snap *s, const struct sm_node *n)
{
	for (unsigned k = 1; k <= n->ni.num_ports; k++) {
		const struct sm_port *p = &n->ports[k], *q = p->peer;

		if (!q || q->peer != p || !port_up(p) || !port_up(q))
			continue;
		if (n->guid > q->node->guid || (n->guid == q->node->guid && k > q->num))
			continue;
		s->links[s->nlinks++] = (struct snap_link){ n->guid, q->node->guid,
							     (uint8_t)k, q->num };
	}
}

struct ctl_snap *ctl_snap_take(const struct sm_fabric *f)
{
	struct ctl_snap *s = xcalloc(1, sizeof(*s));
	size_t nports = 0;

	s->nodes = xcalloc(f->nnodes + 1, sizeof(*s->nodes));
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		s->nodes[i].guid = n->guid;
		s->nodes[i].type = n->ni.node_type;
		memcpy(s->nodes[i].desc, n->desc, sizeof(n->desc));
		nports += n->ni.num_ports;
	}
	s->nnodes = f->nnodes;
	s->links = xcalloc(nports + 1, sizeof(*s->links));
	for (uint32_t i = 0; i < f->nnodes; i++)
		add_links(s, f->nodes[i]);
	qsort(s->nodes, s->nnodes, sizeof(*s->nodes), node_cmp);
	qsort(s->links, s->nlinks, sizeof(*s->links), link_cmp);
	return s;
}

void ctl_snap_free(struct ctl_snap *s)
{
	if (!s)
		return;
	free(s->nodes);
	free(s->links);
	free(s);
}

static json_object *hex_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)g);
	return json_object_new_string(buf);
}

static json_object *node_json(const struct snap_node *n)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "guid", hex_guid(n->guid));
	json_object_object_add(o, "type", json_object_new_string(n->type == 2 ? "switch" : "ca"));
	json_object_object_add(o, "desc", json_object_new_string(n->desc));
	return o;
}

static json_object *link_json(const struct snap_link *l)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "guid1", hex_guid(l->g1));
	json_object_object_add(o, "port1", json_object_new_int(l->p1));
	json_object_object_add(o, "guid2", hex_guid(l->g2));
	json_object_object_add(o, "port2", json_object_new_int(l->p2));
	return o;
}

static void diff_nodes(const struct ctl_snap *a, const struct ctl_snap *b, ctl_emit_fn emit, void *arg)
{
	size_t i = 0, j = 0;

	while (i < a->nnodes || j < b->nnodes) {
		int c = i == a->nnodes ? 1 : j == b->nnodes ? -1 : node_cmp(&a->nodes[i], &b->nodes[j]);

		if (c < 0)
			emit(arg, CTL_EV_NODE_REMOVED, node_json(&a->nodes[i++]));
		else if (c > 0)
			emit(arg, CTL_EV_NODE_ADDED, node_json(&b->nodes[j++]));
		else
			i++, j++;
	}
}

static void diff_links(const struct ctl_snap *a, const struct ctl_snap *b, ctl_emit_fn emit, void *arg)
{
	size_t i = 0, j = 0;

	while (i < a->nlinks || j < b->nlinks) {
		int c = i == a->nlinks ? 1 : j == b->nlinks ? -1 : link_cmp(&a->links[i], &b->links[j]);

		if (c < 0)
			emit(arg, CTL_EV_LINK_DOWN, link_json(&a->links[i++]));
		else if (c > 0)
			emit(arg, CTL_EV_LINK_UP, link_json(&b->links[j++]));
		else
			i++, j++;
	}
}

void ctl_snap_diff(const struct ctl_snap *old, const struct ctl_snap *nw, ctl_emit_fn emit, void *arg)
{
	diff_nodes(old, nw, emit, arg);
	diff_links(old, nw, emit, arg);
}
