/*
 * DOC: LinkRecord (IBA 15.2.5.13): one record per
 * direction of every link of the snapshot, FromLID/ToLID being the LIDs
 * of the nodes at the ends (a switch's LID for any of its ports).
 *
 * A FromLID or ToLID in the template narrows the search to that node's
 * ports: saquery's LR queries cost a node, not the fabric.
 */
#include "config.h"

#include "sa/sa_int.h"

#define LR_FROM_LID 0
#define LR_TO_LID 3

static bool lr_port(struct sa_ctx *c, const struct snap_port *p, bool reverse)
{
	const struct sm_snap *s = c->snap;
	const struct snap_port *q = snap_peer(s, p);
	struct sa_link_rec r;
	uint8_t rec[6];

	if (!q)
		return sa_work(c, 1);
	if (reverse) {
		const struct snap_port *t = p;

		p = q;
		q = t;
	}
	if (!sa_visible(c, p) || !sa_visible(c, q))
		return true;
	r.from_lid = sa_port_lid(s, p);
	r.from_port = p->num;
	r.to_port = q->num;
	r.to_lid = sa_port_lid(s, q);
	sa_link_rec_encode(&r, rec, sizeof(rec));
	return sa_emit(c, rec);
}

/* The links of the node holding lid: from it, or (reverse) towards it. */
static void lr_node(struct sa_ctx *c, uint16_t lid, bool reverse)
{
	const struct snap_port *p = snap_port_by_lid(c->snap, lid);
	const struct snap_node *n;

	if (!p)
		return;
	n = snap_node_of(c->snap, p);
	for (unsigned k = 1; k <= n->nports; k++) {
		const struct snap_port *q = snap_port(c->snap, n, k);

		/* a CA's LID is its port's: the links of that port only */
		if (!n->is_switch && q != p)
			continue;
		if (!lr_port(c, q, reverse))
			return;
	}
}

void sa_lr_get(struct sa_ctx *c)
{
	const struct sm_snap *s = c->snap;

	if (sa_masked(c, LR_FROM_LID)) {
		lr_node(c, sa_get16(c->tmpl), false);
		return;
	}
	if (sa_masked(c, LR_TO_LID)) {
		lr_node(c, sa_get16(c->tmpl + 4), true);
		return;
	}
	for (uint32_t i = 0; i < s->nports; i++)
		if (s->ports[i].num && !lr_port(c, &s->ports[i], false))
			return;
}
