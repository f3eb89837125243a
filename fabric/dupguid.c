/*
 * DOC: duplicate node and port GUIDs (rules in dupguid.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/dupguid.h"
#include "lib/log.h"

/* Marks drop on every node that no link path from the SM node reaches
 * without passing a node already marked. */
static void mark_cut_off(struct sm_fabric *f)
{
	struct sm_node **queue = xcalloc(f->nnodes ? f->nnodes : 1, sizeof(*queue));
	uint8_t *seen = xcalloc(f->nnodes ? f->nnodes : 1, 1);
	uint32_t head = 0, tail = 0;

	if (f->sm_node && !f->sm_node->drop) {
		seen[f->sm_node->idx] = 1;
		queue[tail++] = f->sm_node;
	}
	while (head < tail) {
		const struct sm_node *n = queue[head++];

		for (unsigned k = 1; k <= n->ni.num_ports; k++) {
			const struct sm_port *p = &n->ports[k];

			if (!p->peer || p->peer->node->drop || seen[p->peer->node->idx])
				continue;
			seen[p->peer->node->idx] = 1;
			queue[tail++] = p->peer->node;
		}
	}
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (!seen[i])
			f->nodes[i]->drop = true;
	free(queue);
	free(seen);
}

/* Was n first found where the last sweep had its GUID? Then what was read
 * about n (it was read along that first path) is the known node's. */
static bool found_at_known_place(const struct sm_node *n, const struct sm_node *o)
{
	const struct sm_port *p;

	if (!o || o->ni.num_ports != n->ni.num_ports || n->via_local > o->ni.num_ports)
		return false;
	p = o->ports[n->via_local].peer;
	return p && p->node->guid == n->via_guid && p->num == n->via_port;
}

static bool old_link(const struct sm_node *o, unsigned k, const struct sm_port *p)
{
	const struct sm_port *q = o && k <= o->ni.num_ports ? o->ports[k].peer : NULL;

	return q && q->node->guid == p->node->guid && q->num == p->num;
}

/* A link of n is n's own when a query through n found it (it went along
 * n's path), when it is the link n was first found through, or when the
 * last sweep knew it. Another node's query that landed on n's GUID may
 * have met the newcomer (first come, first linked): such links go. */
static void keep_own_links(struct sm_fabric *f, struct sm_node *n, const struct sm_node *o)
{
	for (unsigned k = 1; k <= n->ni.num_ports; k++) {
		struct sm_port *p = &n->ports[k];
		bool via = p->peer && k == n->via_local && p->peer->node->guid == n->via_guid &&
			   p->peer->num == n->via_port;

		if (p->peer && !p->probed && !via && !old_link(o, k, p->peer))
			fabric_unlink(f, p);
	}
}

/* The node found first stays (fresh) unless the last sweep had its GUID
 * somewhere else: then it is the newcomer and goes, and lastseen.c brings the
 * known one back as it last was. */
static bool settle(struct sm_fabric *f, struct sm_node *n, const struct sm_fabric *old)
{
	const struct sm_node *o = old ? fabric_find(old, n->guid) : NULL;

	if (n == f->sm_node)
		return false;
	if (o && !found_at_known_place(n, o)) {
		n->drop = true;
		return true;
	}
	keep_own_links(f, n, o);
	n->dup_guid = false;
	return true;
}

unsigned dups_drop_nodes(struct sm_fabric *f, const struct sm_fabric *old)
{
	uint32_t before = f->nnodes;
	bool any = false;

	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->dup_guid)
			any |= settle(f, f->nodes[i], old);
	if (!any)
		return 0;
	mark_cut_off(f);
	fabric_remove_dropped(f);
	fabric_shortest_paths(f);
	return before - f->nnodes;
}

struct pg {
	uint64_t guid;
	struct sm_port *p;
};

static int cmp_pg(const void *x, const void *y)
{
	const struct pg *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	if (a->p->node->guid != b->p->node->guid)
		return a->p->node->guid < b->p->node->guid ? -1 : 1;
	return a->p->num < b->p->num ? -1 : a->p->num > b->p->num;
}

/* The port of the run [a, b) that keeps the GUID: the one old had at the
 * same node and port, else the first (lowest node GUID). */
static size_t keeper(const struct pg *v, size_t a, size_t b, const struct sm_fabric *old)
{
	const struct sm_port *o = old ? fabric_find_port(old, v[a].guid) : NULL;

	for (size_t i = a; o && i < b; i++)
		if (v[i].p->node->guid == o->node->guid && v[i].p->num == o->num)
			return i;
	return a;
}

static void where(struct sm_where *w, const struct sm_port *p)
{
	w->via = p->node->guid;
	w->via_port = p->num;
	w->local_port = p->num;
	memcpy(w->via_desc, p->node->desc, sizeof(w->via_desc));
}

static size_t collect_ports(struct sm_fabric *f, struct pg *v)
{
	size_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *nd = f->nodes[i];

		for (unsigned k = 0; k <= nd->ni.num_ports; k++)
			if (nd->ports[k].guid && (k == 0) == node_is_switch(nd))
				v[n++] = (struct pg){ nd->ports[k].guid, &nd->ports[k] };
	}
	return n;
}

unsigned dups_mark_ports(struct sm_fabric *nw, const struct sm_fabric *old)
{
	size_t cap = 1, n, marked = 0;
	struct pg *v;

	for (uint32_t i = 0; i < nw->nnodes; i++)
		cap += (size_t)nw->nodes[i]->ni.num_ports + 1;
	v = xcalloc(cap, sizeof(*v));
	n = collect_ports(nw, v);
	qsort(v, n, sizeof(*v), cmp_pg);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && v[b].guid == v[a].guid; b++)
			;
		if (b - a < 2)
			continue;
		size_t k = keeper(v, a, b, old);

		for (size_t i = a; i < b; i++) {
			struct sm_conflict c = { .guid = v[a].guid, .port = true };

			if (i == k)
				continue;
			v[i].p->dup_guid = true;
			where(&c.known, v[k].p);
			where(&c.other, v[i].p);
			fabric_note_conflict(nw, &c);
			marked++;
		}
	}
	free(v);
	return (unsigned)marked;
}

static void log_one(const struct sm_conflict *c)
{
	if (c->port) {
		log_fabric(LOG_LVL_WARNING,
			   "duplicate GUID: port GUID %016llx kept by %016llx \"%s\" port %u, "
			   "left out on %016llx \"%s\" port %u",
			   (unsigned long long)c->guid, (unsigned long long)c->known.via,
			   c->known.via_desc, c->known.via_port, (unsigned long long)c->other.via,
			   c->other.via_desc, c->other.via_port);
		return;
	}
	log_fabric(LOG_LVL_WARNING,
		   "duplicate GUID: node GUID %016llx found behind %016llx \"%s\" port %u (its port %u) "
		   "and behind %016llx \"%s\" port %u (its port %u)%s; the one known from the "
		   "last sweep (or the first found) is kept, the other is left out",
		   (unsigned long long)c->guid, (unsigned long long)c->known.via, c->known.via_desc,
		   c->known.via_port, c->known.local_port, (unsigned long long)c->other.via,
		   c->other.via_desc, c->other.via_port, c->other.local_port,
		   c->claims > 1 ? " and elsewhere" : "");
}

void dups_log(const struct sm_fabric *f)
{
	for (uint32_t i = 0; i < f->nconflicts; i++)
		log_one(&f->conflicts[i]);
	if (f->dup_guids > f->nconflicts)
		log_fabric(LOG_LVL_WARNING, "%u more duplicated GUIDs not listed",
			   f->dup_guids - f->nconflicts);
}
