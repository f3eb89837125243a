/*
 * DOC: NodeRecord and PortInfoRecord (IBA 15.2.5.2, 15.2.5.3).
 *
 * NodeRecord: one per switch (its port 0) and one per CA or router port,
 * whose NodeInfo carries that port's GUID and number. PortInfoRecord: one
 * per port with a PortInfo, every port of a switch under the switch's
 * LID. Both come straight from the snapshot's NodeInfo, NodeDescription
 * and PortInfo, as last read or programmed.
 *
 * A LID in the template is looked up, not scanned for, and matches any
 * LID of the port's LMC range (OpenSM does the same). PortInfoRecord with
 * AttributeModifier bit 31 matches CapabilityMask as "every template bit
 * set" (saquery -s); M_Key reads as 0 to untrusted requesters.
 */
#include "config.h"

#include <string.h>

#include "sa/sa_int.h"

#define NR_LID 0            /* component-mask bits (mad/sa_fields.c) */
#define NR_NODE_GUID 7
#define NR_PORT_GUID 8
#define PIR_LID 0
#define PIR_CAPMASK 7
#define PIR_TMPL_CAPMASK 24 /* record byte of PortInfo:CapabilityMask */

/* --- NodeRecord --- */

static bool nr_one(struct sa_ctx *c, const struct snap_node *n, const struct snap_port *p)
{
	struct sa_node_rec r;
	uint8_t rec[108];

	if (!p->guid || !sa_visible(c, p))
		return true;
	memset(&r, 0, sizeof(r));
	r.lid = sa_port_lid(c->snap, p);
	r.info = n->ni;
	r.info.port_guid = p->guid;
	if (!n->is_switch)
		r.info.local_port = p->num;
	memcpy(r.desc.desc, n->desc, sizeof(r.desc.desc));
	sa_node_rec_encode(&r, rec, sizeof(rec));
	return sa_emit(c, rec);
}

static bool nr_node(struct sa_ctx *c, const struct snap_node *n)
{
	if (n->is_switch)
		return nr_one(c, n, snap_port(c->snap, n, 0));
	for (unsigned k = 1; k <= n->nports; k++)
		if (!nr_one(c, n, snap_port(c->snap, n, k)))
			return false;
	return true;
}

void sa_nr_get(struct sa_ctx *c)
{
	const struct sm_snap *s = c->snap;
	const struct snap_port *p;
	const struct snap_node *n;

	if (sa_masked(c, NR_LID)) {
		c->match_mask &= ~(1ull << NR_LID);
		p = snap_port_by_lid(s, sa_get16(c->tmpl));
		if (p)
			nr_one(c, snap_node_of(s, p), p);
		return;
	}
	if (sa_masked(c, NR_PORT_GUID)) {
		p = sa_port_by_guid(c, sa_get64(c->tmpl + 24));
		if (p)
			nr_one(c, snap_node_of(s, p), p);
		return;
	}
	if (sa_masked(c, NR_NODE_GUID)) {
		n = snap_node_by_guid(s, sa_get64(c->tmpl + 16));
		if (n)
			nr_node(c, n);
		return;
	}
	for (uint32_t i = 0; i < s->nnodes; i++)
		if (!nr_node(c, &s->nodes[i]))
			return;
}

/* --- PortInfoRecord --- */

uint16_t sa_pir_check(struct sa_ctx *c)
{
	/* bit 31 means something only with CapabilityMask in the mask */
	if ((c->attr_mod & 0x80000000u) && sa_masked(c, PIR_CAPMASK))
		c->match_mask &= ~(1ull << PIR_CAPMASK);
	return 0;
}

static bool pir_one(struct sa_ctx *c, const struct snap_port *p, uint16_t lid)
{
	uint32_t want = sa_get32(c->tmpl + PIR_TMPL_CAPMASK);
	struct sa_port_info_rec r;
	uint8_t rec[68];

	if (!p->have_pi || !sa_visible(c, p))
		return true;
	memset(&r, 0, sizeof(r));
	r.lid = lid;
	r.port_num = p->num;
	r.info = p->pi;
	if (!c->trusted)
		r.info.mkey = 0;   /* OpenSM hides it from untrusted requesters too */
	if ((c->attr_mod & 0x80000000u) && sa_masked(c, PIR_CAPMASK) &&
	    (r.info.cap_mask & want) != want)
		return sa_work(c, 1);
	sa_port_info_rec_encode(&r, rec, sizeof(rec));
	return sa_emit(c, rec);
}

static bool pir_node(struct sa_ctx *c, const struct snap_node *n)
{
	uint16_t lid = sa_node_lid(c->snap, n);

	for (unsigned k = n->is_switch ? 0 : 1; k <= n->nports; k++) {
		const struct snap_port *p = snap_port(c->snap, n, k);

		if (!pir_one(c, p, n->is_switch ? lid : p->lid))
			return false;
	}
	return true;
}

void sa_pir_get(struct sa_ctx *c)
{
	const struct sm_snap *s = c->snap;
	const struct snap_port *p;

	if (sa_masked(c, PIR_LID)) {
		c->match_mask &= ~(1ull << PIR_LID);
		p = snap_port_by_lid(s, sa_get16(c->tmpl));
		if (!p)
			return;
		if (snap_node_of(s, p)->is_switch)
			pir_node(c, snap_node_of(s, p));
		else
			pir_one(c, p, p->lid);
		return;
	}
	for (uint32_t i = 0; i < s->nnodes; i++)
		if (!pir_node(c, &s->nodes[i]))
			return;
}
