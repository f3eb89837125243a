/*
 * DOC: the records of per-port tables: GUIDInfoRecord, P_KeyTableRecord,
 * SL2VLTableRecord and VLArbitrationTableRecord (IBA 15.2.5.18, 15.2.5.11,
 * 15.2.5.4, 15.2.5.9).
 *
 * They report what the ports hold, read on demand (portdata.c). Which
 * tables a port has comes from the snapshot: GUIDInfo blocks from
 * PortInfo:GUIDCap; P_Key blocks from NodeInfo:PartitionCap (CA ports and
 * switch port 0) or SwitchInfo:PartitionEnforcementCap (switch external
 * ports); SL2VL where PortInfo:CapabilityMask has IsSLMappingSupported (a
 * switch: port 0's), one table per input/output port pair; VLArbitration
 * blocks 1-2 (low) and 3-4 (high) from VLArbitrationLow/HighCap, only on
 * ports with more than VL0. Record numbering follows OpenSM: an SL2VL
 * record of a CA has ports 0/0.
 */
#include "config.h"

#include <string.h>

#include "sa/sa_int.h"

#define GIR_LID 0
#define GIR_BLOCK 1
#define PKTR_LID 0
#define PKTR_BLOCK 1
#define PKTR_PORT 2
#define SL2VL_LID 0
#define SL2VL_IN 1
#define SL2VL_OUT 2
#define VLAR_LID 0
#define VLAR_PORT 1
#define VLAR_BLOCK 2

/* Blocks [*first, *last] of a table with n blocks, narrowed to the
 * template's value when its bit is set. False when none is left. */
static bool block_range(const struct sa_ctx *c, unsigned bit, unsigned tmpl_val, unsigned lo,
			unsigned n, unsigned *first, unsigned *last)
{
	*first = lo;
	*last = lo + n - 1;
	if (!n)
		return false;
	if (sa_masked(c, bit)) {
		if (tmpl_val < *first || tmpl_val > *last)
			return false;
		*first = *last = tmpl_val;
	}
	return true;
}

/* Ports of the node at the template's LID (bit lid_bit), or of every
 * node: fn(c, port) for each; a CA's LID names just that port. */
static void for_ports(struct sa_ctx *c, unsigned lid_bit,
		      bool (*fn)(struct sa_ctx *, const struct snap_port *))
{
	const struct sm_snap *s = c->snap;

	if (sa_masked(c, lid_bit)) {
		const struct snap_port *p = snap_port_by_lid(s, sa_get16(c->tmpl));
		const struct snap_node *n = p ? snap_node_of(s, p) : NULL;

		if (n && !n->is_switch)
			fn(c, p);
		for (unsigned k = 0; n && n->is_switch && k <= n->nports; k++)
			if (!fn(c, snap_port(s, n, k)))
				return;
		return;
	}
	for (uint32_t i = 0; i < s->nports; i++) {
		const struct snap_port *p = &s->ports[i];

		if ((p->num || snap_node_of(s, p)->is_switch) && !fn(c, p))
			return;
	}
}

/* The table's 64 bytes, or why not: returns 1 ok, 0 skip, -1 stop. */
static int table(struct sa_ctx *c, const struct snap_port *p, uint16_t attr, uint32_t mod,
		 uint8_t data[64])
{
	int rc = sa_portdata(c, p, attr, mod, data);

	if (rc < 0)
		return c->stop ? -1 : 0;
	return rc;
}

/* --- GUIDInfoRecord --- */

static bool gir_port(struct sa_ctx *c, const struct snap_port *p)
{
	unsigned first, last;
	struct sa_guid_info_rec r;
	uint8_t data[64], rec[72];

	if (!sa_is_end_port(c->snap, p) || !p->have_pi || !sa_visible(c, p) ||
	    !block_range(c, GIR_BLOCK, c->tmpl[2], 0, (p->pi.guid_cap + 7u) / 8u, &first, &last))
		return sa_work(c, 1);
	for (unsigned b = first; b <= last; b++) {
		int rc = table(c, p, SMP_ATTR_GUID_INFO, b, data);

		if (rc < 0)
			return false;
		if (!rc)
			continue;
		r.lid = p->lid;
		r.block = (uint8_t)b;
		for (unsigned i = 0; i < 8; i++)
			r.guid[i] = sa_get64(data + 8 * i);
		sa_guid_info_rec_encode(&r, rec, sizeof(rec));
		if (!sa_emit(c, rec))
			return false;
	}
	return true;
}

void sa_gir_get(struct sa_ctx *c)
{
	for_ports(c, GIR_LID, gir_port);
}

/* --- P_KeyTableRecord --- */

static unsigned pkey_entries(const struct sm_snap *s, const struct snap_port *p)
{
	const struct snap_node *n = snap_node_of(s, p);

	if (n->is_switch && p->num)
		return n->have_si ? n->si.partition_enf_cap : 0;
	return n->ni.partition_cap;
}

static bool pktr_port(struct sa_ctx *c, const struct snap_port *p)
{
	const struct snap_node *n = snap_node_of(c->snap, p);
	unsigned first, last;
	struct sa_pkey_rec r;
	uint8_t data[64], rec[72];

	if ((sa_masked(c, PKTR_PORT) && c->tmpl[4] != p->num) || !sa_visible(c, p) ||
	    !block_range(c, PKTR_BLOCK, sa_get16(c->tmpl + 2), 0,
			 (pkey_entries(c->snap, p) + 31u) / 32u, &first, &last))
		return sa_work(c, 1);
	for (unsigned b = first; b <= last; b++) {
		/* a switch port by number in bits 23..16 (IBA 14.2.5.7) */
		uint32_t mod = n->is_switch ? ((uint32_t)p->num << 16) | b : b;
		int rc = table(c, p, SMP_ATTR_PKEY_TABLE, mod, data);

		if (rc < 0)
			return false;
		if (!rc)
			continue;
		r.lid = sa_port_lid(c->snap, p);
		r.block = (uint16_t)b;
		r.port_num = p->num;
		for (unsigned i = 0; i < 32; i++)
			r.pkey[i] = sa_get16(data + 2 * i);
		sa_pkey_rec_encode(&r, rec, sizeof(rec));
		if (!sa_emit(c, rec))
			return false;
	}
	return true;
}

void sa_pktr_get(struct sa_ctx *c)
{
	for_ports(c, PKTR_LID, pktr_port);
}

/* --- SL2VLTableRecord --- */

static bool sl2vl_one(struct sa_ctx *c, const struct snap_port *p, unsigned in, unsigned out)
{
	const struct snap_node *n = snap_node_of(c->snap, p);
	struct sa_sl2vl_rec r;
	uint8_t data[64], rec[16];
	int rc;

	if ((sa_masked(c, SL2VL_IN) && c->tmpl[2] != in) ||
	    (sa_masked(c, SL2VL_OUT) && c->tmpl[3] != out))
		return sa_work(c, 1);
	/* switches: input port in bits 15..8, output in 7..0 (IBA 14.2.5.8) */
	rc = table(c, p, SMP_ATTR_SL2VL_TABLE, n->is_switch ? (in << 8) | out : 0, data);
	if (rc <= 0)
		return rc == 0;
	r.lid = sa_port_lid(c->snap, p);
	r.in_port = (uint8_t)in;
	r.out_port = (uint8_t)out;
	for (unsigned i = 0; i < 8; i++) {
		r.vl[2 * i] = data[i] >> 4;
		r.vl[2 * i + 1] = data[i] & 0xF;
	}
	sa_sl2vl_rec_encode(&r, rec, sizeof(rec));
	return sa_emit(c, rec);
}

/* A switch's tables hang off its port 0 (one per port pair); a CA
 * port has one. */
static bool sl2vl_port(struct sa_ctx *c, const struct snap_port *p)
{
	const struct snap_node *n = snap_node_of(c->snap, p);

	if ((n->is_switch && p->num) || !p->have_pi || !(p->pi.cap_mask & PI_CAP_SL_MAPPING) ||
	    !sa_visible(c, p))
		return sa_work(c, 1);
	if (!n->is_switch)
		return sl2vl_one(c, p, 0, 0);
	for (unsigned in = 0; in <= n->nports; in++)
		for (unsigned out = 0; out <= n->nports; out++)
			if (!sl2vl_one(c, p, in, out))
				return false;
	return true;
}

void sa_sl2vl_get(struct sa_ctx *c)
{
	for_ports(c, SL2VL_LID, sl2vl_port);
}

/* --- VLArbitrationTableRecord --- */

static bool vlar_block(struct sa_ctx *c, const struct snap_port *p, unsigned block)
{
	const struct snap_node *n = snap_node_of(c->snap, p);
	/* block in bits 31..16, a switch's port in 15..0 (IBA 14.2.5.9) */
	uint32_t mod = (block << 16) | (n->is_switch ? p->num : 0u);
	struct sa_vlarb_rec r;
	uint8_t data[64], rec[72];
	int rc = table(c, p, SMP_ATTR_VLARB_TABLE, mod, data);

	if (rc <= 0)
		return rc == 0;
	r.lid = sa_port_lid(c->snap, p);
	r.out_port = p->num;
	r.block = (uint8_t)block;
	for (unsigned i = 0; i < 32; i++) {
		r.entry[i].vl = data[2 * i] & 0xF;
		r.entry[i].weight = data[2 * i + 1];
	}
	sa_vlarb_rec_encode(&r, rec, sizeof(rec));
	return sa_emit(c, rec);
}

static bool vlar_port(struct sa_ctx *c, const struct snap_port *p)
{
	unsigned caps[2];

	if (!p->have_pi || p->pi.vl_cap < 2 || !sa_visible(c, p) ||
	    (sa_masked(c, VLAR_PORT) && c->tmpl[2] != p->num))
		return sa_work(c, 1);
	caps[0] = p->pi.vl_arb_low_cap;
	caps[1] = p->pi.vl_arb_high_cap;
	for (unsigned b = 1; b <= 4; b++) {
		unsigned cap = caps[(b - 1) / 2];

		/* blocks 1 and 3 hold entries 0-31, 2 and 4 entries 32-63 */
		if (cap <= ((b - 1) % 2) * 32 || (sa_masked(c, VLAR_BLOCK) && c->tmpl[3] != b))
			continue;
		if (!vlar_block(c, p, b))
			return false;
	}
	return true;
}

void sa_vlar_get(struct sa_ctx *c)
{
	for_ports(c, VLAR_LID, vlar_port);
}
