/*
 * DOC: carrying over what a sweep could not confirm (rules in lastseen.h).
 *
 * A breadth-first walk over the old generation, starting from every node
 * both generations have: each old link of a node in the new generation is
 * looked at from the end(s) that answered, and brought in unless one of
 * them confirms it is gone. A carried link may bring in its far node as a
 * stale copy, whose own old links are then looked at in turn, so a switch
 * that did not answer comes in with the hosts behind it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/lastseen.h"
#include "lib/log.h"

struct walk {
	struct sm_fabric *nw, *old;
	struct sm_node **queue;
	uint32_t head, tail, cap;
	struct carry_stats *st;
};

static void push(struct walk *w, struct sm_node *n)
{
	if (w->tail == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->queue = xrealloc(w->queue, w->cap * sizeof(*w->queue));
	}
	w->queue[w->tail++] = n;
}

/* Does port p of a node in the new generation leave its old link open?
 * Only what answered can close it: a port read Down, or leading elsewhere. */
static bool unconfirmed(const struct sm_port *p)
{
	if (p->peer)
		return false;
	if (p->node->stale || p->stale || !p->have_pi)
		return true;
	return p->pi.port_state != TOPO_PORT_DOWN;
}

/* An answering node's port whose PortInfo Get failed: its last PortInfo. */
static void carry_pi(struct walk *w, struct sm_port *p, const struct sm_port *o)
{
	if (p->have_pi || !o->have_pi)
		return;
	p->pi = o->pi;
	p->have_pi = true;
	p->stale = true;
	w->st->ports++;
}

static void copy_ports(struct sm_node *n, const struct sm_node *o)
{
	for (unsigned k = 0; k <= n->ni.num_ports; k++) {
		struct sm_port *p = &n->ports[k];
		const struct sm_port *q = &o->ports[k];

		p->guid = q->guid;
		p->have_pi = q->have_pi;
		p->pi = q->pi;
		p->lid = q->lid;
		p->pi_ignored = q->pi_ignored;
		p->held = q->held;
		p->stale = true;
	}
}

/* A node that did not answer, as the last sweep saw it (tables handed over). */
static struct sm_node *stale_copy(struct walk *w, struct sm_node *o)
{
	struct sm_node *n = fabric_add(w->nw, &o->ni);

	memcpy(n->desc, o->desc, sizeof(n->desc));
	n->have_desc = o->have_desc;
	n->si = o->si;
	n->have_si = o->have_si;
	n->stale = true;
	n->stale_sweeps = o->stale_sweeps + 1;
	copy_ports(n, o);
	fabric_move_lft(n, o);
	w->st->nodes++;
	push(w, n);
	return n;
}

/* The old link from n:k to o_peer, if nothing in this sweep closes it. */
static void carry_link(struct walk *w, struct sm_node *n, unsigned k, const struct sm_port *o_peer)
{
	struct sm_port *p = &n->ports[k];
	struct sm_node *m;

	if (!unconfirmed(p))
		return;
	m = fabric_find(w->nw, o_peer->node->guid);
	if (m && (m->ni.num_ports != o_peer->node->ni.num_ports || m->dup_guid))
		return;   /* that GUID is another kind of node now */
	if (m && !unconfirmed(&m->ports[o_peer->num]))
		return;
	if (!m)
		m = stale_copy(w, o_peer->node);
	if (fabric_link(w->nw, n, (uint8_t)k, m, o_peer->num) == 0)
		w->st->links++;
}

static void visit(struct walk *w, struct sm_node *n)
{
	const struct sm_node *o = fabric_find(w->old, n->guid);

	if (!o || o->ni.num_ports != n->ni.num_ports || n->dup_guid)
		return;
	for (unsigned k = 1; k <= n->ni.num_ports; k++) {
		const struct sm_port *op = &o->ports[k];

		if (!n->stale)
			carry_pi(w, &n->ports[k], op);
		if (op->peer)
			carry_link(w, n, k, op->peer);
	}
}

void fabric_carry_unknown(struct sm_fabric *nw, struct sm_fabric *old, struct carry_stats *st)
{
	struct walk w = { .nw = nw, .old = old, .st = st };

	memset(st, 0, sizeof(*st));
	if (!old || !nw->sm_node)
		return;
	for (uint32_t i = 0; i < nw->nnodes; i++)
		push(&w, nw->nodes[i]);
	while (w.head < w.tail)
		visit(&w, w.queue[w.head++]);
	free(w.queue);
	if (st->nodes || st->links || st->ports) {
		log_notice("not confirmed this sweep, kept as last seen: %u nodes, %u links, "
			   "%u ports' PortInfo", st->nodes, st->links, st->ports);
		fabric_shortest_paths(nw);
	}
}
