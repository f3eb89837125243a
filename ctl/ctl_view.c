/*
 * DOC: fabric views for streamed replies, and node/port/link JSON (see
 * ctl_view.h).
 *
 * A view is two flat arrays: one record per node, one per port, ports of
 * a node next to each other, a peer named by its position. Records are
 * zeroed before they are filled and hold only values and pointers to
 * static strings, so two views compare with memcmp(). Copying is a few
 * dozen bytes per port, far less than the JSON it turns into.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_out.h"
#include "ctl/ctl_view.h"
#include "fabric/fabric.h"
#include "lib/log.h"

#define NONE UINT32_MAX

struct vnode {
	uint64_t guid;
	uint32_t first_port;       /* position of its port 1 in ports[] */
	uint16_t lid;
	uint8_t type;              /* NodeInfo:NodeType */
	uint8_t nports;
	uint8_t hops;
	char desc[65];
};

struct vport {
	const char *width, *speed; /* static strings, "?" when not read */
	uint32_t node;             /* position in nodes[] */
	uint32_t peer;             /* position in ports[], or NONE */
	uint16_t lid;
	uint8_t num;
	uint8_t state;             /* PortInfo:PortState as read */
	bool have_pi;
	bool owner;                /* the end a link is listed from */
};

struct ctl_view {
	unsigned refs;
	unsigned mark;          /* bookkeeping, not content */
	uint32_t nnodes, nports;
	struct vnode *nodes;
	struct vport *ports;
};

/* ---- JSON ---- */


static const char *state_name(unsigned s)
{
	static const char *const names[] = { "nochange", "down", "init", "armed", "active" };

	return s < 5 ? names[s] : "unknown";
}

static json_object *node_json(const struct vnode *n)
{
	json_object *o = json_object_new_object();

	ADD(o, "guid", jguid(n->guid));
	ADD(o, "type", JSTR(node_type_name(n->type)));
	ADD(o, "ports", JINT(n->nports));
	ADD(o, "lid", JINT(n->lid));
	ADD(o, "hops", JINT(n->hops));
	ADD(o, "desc", JSTR(n->desc));
	return o;
}

static json_object *end_json(const struct ctl_view *v, const struct vport *p)
{
	const struct vnode *n = &v->nodes[p->node];
	json_object *o = json_object_new_object();

	ADD(o, "guid", jguid(n->guid));
	ADD(o, "port", JINT(p->num));
	ADD(o, "desc", JSTR(n->desc));
	return o;
}

static json_object *port_json(const struct ctl_view *v, const struct vport *p)
{
	const struct vnode *n = &v->nodes[p->node];
	json_object *o = json_object_new_object();

	ADD(o, "guid", jguid(n->guid));
	ADD(o, "desc", JSTR(n->desc));
	ADD(o, "port", JINT(p->num));
	ADD(o, "state", JSTR(p->have_pi ? state_name(p->state) : "unknown"));
	ADD(o, "width", JSTR(p->width));
	ADD(o, "speed", JSTR(p->speed));
	ADD(o, "lid", JINT(p->lid));
	ADD(o, "peer", p->peer != NONE ? end_json(v, &v->ports[p->peer]) : NULL);
	return o;
}

/* A link is as far up as its lower end. */
static json_object *link_json(const struct ctl_view *v, const struct vport *p)
{
	const struct vport *q = &v->ports[p->peer];
	unsigned st = p->have_pi ? p->state : 0;
	json_object *o = json_object_new_object();

	if (q->have_pi && q->state < st)
		st = q->state;
	ADD(o, "from", end_json(v, p));
	ADD(o, "to", end_json(v, q));
	ADD(o, "state", JSTR(state_name(st)));
	ADD(o, "width", JSTR(p->width));
	ADD(o, "speed", JSTR(p->speed));
	return o;
}

json_object *ctl_view_item(const struct ctl_view *v, enum ctl_view_list l, size_t i)
{
	switch (l) {
	case CTL_VIEW_NODES:
		return i < v->nnodes ? node_json(&v->nodes[i]) : NULL;
	case CTL_VIEW_PORTS:
		return i < v->nports ? port_json(v, &v->ports[i]) : NULL;
	case CTL_VIEW_LINKS:
		if (i >= v->nports || v->ports[i].peer == NONE || !v->ports[i].owner)
			return NULL;
		return link_json(v, &v->ports[i]);
	}
	return NULL;
}

/* ---- taking a view ---- */

uint16_t ctl_port_lid(const struct sm_port *p)
{
	return p->lid ? p->lid : p->have_pi ? p->pi.lid : 0;
}

uint16_t ctl_node_lid(const struct sm_node *n)
{
	if (node_is_switch(n))
		return ctl_port_lid(&n->ports[0]);
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		if (ctl_port_lid(&n->ports[k]))
			return ctl_port_lid(&n->ports[k]);
	return 0;
}

static void fill_node(struct vnode *r, const struct sm_node *n)
{
	memset(r, 0, sizeof(*r));
	r->guid = n->guid;
	r->lid = ctl_node_lid(n);
	r->type = n->ni.node_type;
	r->nports = n->ni.num_ports;
	r->hops = n->hop_cnt;
	memcpy(r->desc, n->desc, sizeof(r->desc));
	r->desc[sizeof(r->desc) - 1] = '\0';
}

json_object *ctl_node_json(const struct sm_node *n)
{
	struct vnode r;

	fill_node(&r, n);
	return node_json(&r);
}

/* Each link once, from the end that sorts first (GUID, then port, then
 * position for two nodes claiming one GUID). */
static bool link_owner(const struct sm_port *p)
{
	const struct sm_port *q = p->peer;

	return p->node->guid < q->node->guid || (p->node == q->node && p->num < q->num) ||
	       (p->node->guid == q->node->guid && p->node != q->node && p->node->idx < q->node->idx);
}

/* Position of the fabric's port q in the view, NONE if its node is not
 * where its idx says (never expected; the view then shows no peer). */
static uint32_t position(const struct ctl_view *v, const struct sm_fabric *f,
			 const struct sm_port *q)
{
	uint32_t i = q->node->idx;

	if (i >= f->nnodes || f->nodes[i] != q->node || q->num == 0 || q->num > v->nodes[i].nports)
		return NONE;
	return v->nodes[i].first_port + q->num - 1u;
}

static void fill_port(struct vport *r, const struct ctl_view *v, const struct sm_fabric *f,
		      uint32_t node, const struct sm_port *p)
{
	memset(r, 0, sizeof(*r));
	r->node = node;
	r->num = p->num;
	r->lid = ctl_port_lid(p);
	r->have_pi = p->have_pi;
	r->state = p->have_pi ? p->pi.port_state : 0;
	r->width = p->have_pi ? port_width_name(p->pi.link_width_active) : "?";
	r->speed = p->have_pi ? port_speed_name(&p->pi) : "?";
	r->peer = p->peer ? position(v, f, p->peer) : NONE;
	r->owner = p->peer && link_owner(p);
}

struct ctl_view *ctl_view_take(const struct sm_fabric *f)
{
	struct ctl_view *v = xcalloc(1, sizeof(*v));
	uint32_t k = 0;

	v->refs = 1;
	v->nnodes = f->nnodes;
	v->nodes = xcalloc(f->nnodes + 1, sizeof(*v->nodes));
	for (uint32_t i = 0; i < f->nnodes; i++) {
		fill_node(&v->nodes[i], f->nodes[i]);
		v->nodes[i].first_port = k;
		k += f->nodes[i]->ni.num_ports;
	}
	v->nports = k;
	v->ports = xcalloc(k + 1, sizeof(*v->ports));
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		for (unsigned p = 1; p <= n->ni.num_ports; p++)
			fill_port(&v->ports[v->nodes[i].first_port + p - 1], v, f, i, &n->ports[p]);
	}
	return v;
}

bool ctl_view_same(const struct ctl_view *a, const struct ctl_view *b)
{
	return a->nnodes == b->nnodes && a->nports == b->nports &&
	       memcmp(a->nodes, b->nodes, a->nnodes * sizeof(*a->nodes)) == 0 &&
	       memcmp(a->ports, b->ports, a->nports * sizeof(*a->ports)) == 0;
}

struct ctl_view *ctl_view_ref(struct ctl_view *v)
{
	v->refs++;
	return v;
}

bool ctl_view_alone(const struct ctl_view *v)
{
	return v->refs == 1;
}

void ctl_view_unref(struct ctl_view *v)
{
	if (!v || --v->refs)
		return;
	free(v->nodes);
	free(v->ports);
	free(v);
}

size_t ctl_view_bytes(const struct ctl_view *v)
{
	return sizeof(*v) + (v->nnodes + 1) * sizeof(*v->nodes) + (v->nports + 1) * sizeof(*v->ports);
}

bool ctl_view_mark(struct ctl_view *v, unsigned epoch)
{
	if (v->mark == epoch)
		return false;
	v->mark = epoch;
	return true;
}

size_t ctl_view_count(const struct ctl_view *v, enum ctl_view_list l)
{
	return l == CTL_VIEW_NODES ? v->nnodes : v->nports;
}

void ctl_view_node_ports(const struct ctl_view *v, uint32_t idx, size_t *first, size_t *end)
{
	*first = *end = 0;
	if (idx >= v->nnodes)
		return;
	*first = v->nodes[idx].first_port;
	*end = *first + v->nodes[idx].nports;
}
