/*
 * DOC: the switch records: SwitchInfoRecord, LinearForwardingTableRecord
 * and MulticastForwardingTableRecord (IBA 15.2.5.5, 15.2.5.6, 15.2.5.8).
 *
 * SwitchInfo is the snapshot's, as last read or programmed. LFT records
 * are the unicast tables the snapshot shares with the SM: exactly what
 * was computed and written to the switches, block by block up to
 * LinearFDBTop; entries above the top read 255 (drop), as we wrote them.
 * MFT records cover the multicast blocks the SM's multicast manager
 * holds (sa_mft_block(), through struct sa_env): the blocks as computed
 * and written, not read back from the switches.
 */
#include "config.h"

#include <string.h>

#include "sa/sa_int.h"
#include "routing/routing.h"

#define SWIR_LID 0
#define LFTR_LID 0
#define LFTR_BLOCK 1
#define MFTR_LID 0

/* The switch holding lid, or NULL. */
static const struct snap_node *switch_at(const struct sa_ctx *c, uint16_t lid)
{
	const struct snap_port *p = snap_port_by_lid(c->snap, lid);
	const struct snap_node *n = p ? snap_node_of(c->snap, p) : NULL;

	return n && n->is_switch ? n : NULL;
}

/* Every switch, or the one the template's LID (at byte 0) names. */
static void for_switches(struct sa_ctx *c, unsigned lid_bit,
			 bool (*fn)(struct sa_ctx *, const struct snap_node *))
{
	const struct sm_snap *s = c->snap;

	if (sa_masked(c, lid_bit)) {
		const struct snap_node *n = switch_at(c, sa_get16(c->tmpl));

		if (n)
			fn(c, n);
		return;
	}
	for (uint32_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].is_switch && !fn(c, &s->nodes[i]))
			return;
}

/* --- SwitchInfoRecord --- */

static bool swir_one(struct sa_ctx *c, const struct snap_node *n)
{
	struct sa_switch_info_rec r;
	uint8_t rec[24];

	if (!n->have_si || !sa_visible(c, snap_port(c->snap, n, 0)))
		return sa_work(c, 1);
	memset(&r, 0, sizeof(r));
	r.lid = sa_node_lid(c->snap, n);
	r.info = n->si;
	sa_switch_info_rec_encode(&r, rec, sizeof(rec));
	return sa_emit(c, rec);
}

void sa_swir_get(struct sa_ctx *c)
{
	for_switches(c, SWIR_LID, swir_one);
}

/* --- LinearForwardingTableRecord --- */

static bool lftr_block(struct sa_ctx *c, const struct snap_node *n, const uint8_t *lft,
		       unsigned top, unsigned block)
{
	struct sa_lft_rec r;
	uint8_t rec[72];

	r.lid = sa_node_lid(c->snap, n);
	r.block = (uint16_t)block;
	for (unsigned i = 0; i < 64; i++) {
		unsigned lid = block * 64 + i;

		r.port[i] = lid <= top ? lft[lid] : LFT_NO_PORT;
	}
	sa_lft_rec_encode(&r, rec, sizeof(rec));
	return sa_emit(c, rec);
}

static bool lftr_one(struct sa_ctx *c, const struct snap_node *n)
{
	const struct route_tables *rt = c->snap->rt;
	uint32_t idx = (uint32_t)(n - c->snap->nodes);
	const uint8_t *lft;
	unsigned top, first = 0, last;

	if (!rt || idx >= rt->nnodes || !(lft = rt->lft[idx].ports) ||
	    !sa_visible(c, snap_port(c->snap, n, 0)))
		return sa_work(c, 1);
	top = rt->top;
	last = top / 64;
	if (sa_masked(c, LFTR_BLOCK)) {
		first = last = sa_get16(c->tmpl + 2);
		if (first > top / 64)
			return true;
	}
	for (unsigned b = first; b <= last; b++)
		if (!lftr_block(c, n, lft, top, b))
			return false;
	return true;
}

void sa_lftr_get(struct sa_ctx *c)
{
	for_switches(c, LFTR_LID, lftr_one);
}

/* --- MulticastForwardingTableRecord --- */

static bool mftr_one(struct sa_ctx *c, const struct snap_node *n)
{
	/* blocks: MulticastFDBCap entries, 32 MLIDs each; positions: 16 ports
	 * each (IBA 14.2.5.12) */
	unsigned blocks = n->have_si ? (n->si.mcast_cap + 31u) / 32u : 0;
	unsigned positions = n->nports / 16u + 1;
	struct sa_mft_rec r;
	uint8_t rec[72];

	for (unsigned b = 0; b < blocks; b++) {
		for (unsigned pos = 0; pos < positions; pos++) {
			if (!sa_work(c, 1))
				return false;
			if (!sa_mft_block(c, n, pos, b, r.mask))
				continue;
			r.lid = sa_node_lid(c->snap, n);
			r.position = (uint8_t)pos;
			r.block = (uint16_t)b;
			sa_mft_rec_encode(&r, rec, sizeof(rec));
			if (!sa_emit(c, rec))
				return false;
		}
	}
	return true;
}

void sa_mftr_get(struct sa_ctx *c)
{
	/* the record's LID is the switch's (OpenSM osm_sa_mft_record.c);
	 * block b holds MLIDs 0xC000 + 32 b ... + 31 */
	for_switches(c, MFTR_LID, mftr_one);
}
