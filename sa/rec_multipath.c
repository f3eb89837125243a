/*
 * DOC: MultiPathRecord, SubnAdmGetMulti (IBA 15.2.5.20).
 *
 * The request carries SGIDCount source and DGIDCount destination GIDs
 * after its 24 fixed bytes; the answer is PathRecords, for every source x
 * destination pair, built by the PathRecord code (rec_path.c) from the same
 * QoS fields: MultiPathRecord component bits 0-15 are PathRecord bits
 * 6-21, and ServiceID comes in the same two halves (bits 16 and 21).
 * NumbPath caps the records of the whole answer. IndependenceSelector is
 * accepted and not acted on: the paths are those the LFTs program (with
 * LMC, the LID pairs with the same offset come first, and those are the
 * disjoint ones where routing spreads them).
 *
 * GetMulti is "dual-sided" RMPP: a request with many GIDs spans several
 * MADs, which the kernel reassembles (the SA agent is registered with
 * RMPP); under ibsim only single-MAD requests (up to 11 GIDs) arrive.
 */
#include "config.h"

#include <string.h>

#include "sa/sa_int.h"

#define MPR_SID_MSB 16
#define MPR_SID_LSB 21
#define MPR_NUMB_PATH 6
#define PR_RECORD 64

/* The PathRecord template and mask equivalent to m and its mask. */
static void to_path(const struct sa_multipath_rec *m, uint64_t mmask, struct sa_path_rec *t,
		    uint64_t *mask)
{
	memset(t, 0, sizeof(*t));
	t->raw_traffic = m->raw_traffic;
	t->flow_label = m->flow_label;
	t->hop_limit = m->hop_limit;
	t->tclass = m->tclass;
	t->reversible = m->reversible;
	t->numb_path = m->numb_path;
	t->pkey = m->pkey;
	t->qos_class = m->qos_class;
	t->sl = m->sl;
	t->mtu_sel = m->mtu_sel;
	t->mtu = m->mtu;
	t->rate_sel = m->rate_sel;
	t->rate = m->rate;
	t->pkt_life_sel = m->pkt_life_sel;
	t->pkt_life = m->pkt_life;
	t->service_id = m->service_id;
	*mask = (mmask & 0xFFFFu) << 6;
	if (mmask & (1ull << MPR_SID_MSB))
		*mask |= 1u << 0;
	if (mmask & (1ull << MPR_SID_LSB))
		*mask |= 1u << 1;
}

uint16_t sa_mpr_check(struct sa_ctx *c)
{
	struct sa_multipath_rec m;
	struct sa_path_rec t;
	uint64_t mask;

	if (sa_multipath_rec_decode(c->data, c->dlen, &m) < 0)
		return SA_STATUS_REQ_INVALID;   /* GIDs beyond the data */
	if (!m.sgid_count || !m.dgid_count)
		return SA_STATUS_INSUF_COMPS;
	if (sa_masked(c, MPR_SID_MSB) != sa_masked(c, MPR_SID_LSB))
		return SA_STATUS_INSUF_COMPS;
	to_path(&m, c->mask, &t, &mask);
	return sa_pr_check_sel(&t, mask);
}

static const struct snap_port *gid_port(struct sa_ctx *c, unsigned i)
{
	const struct snap_port *p;
	uint8_t gid[16];
	bool bad;

	if (sa_multipath_gid(c->data, c->dlen, i, gid) < 0 || !(p = sa_port_by_gid(c, gid, &bad))) {
		sa_fail(c, SA_STATUS_INVALID_GID);
		return NULL;
	}
	return p;
}

void sa_mpr_get(struct sa_ctx *c)
{
	struct sa_multipath_rec m;
	struct sa_path_rec t;
	uint8_t tmpl[PR_RECORD];
	uint64_t mask;
	uint32_t budget;

	sa_multipath_rec_decode(c->data, c->dlen, &m);
	to_path(&m, c->mask, &t, &mask);
	budget = (c->mask & (1ull << MPR_NUMB_PATH)) && m.numb_path ? m.numb_path : UINT32_MAX;
	/* the answer is PathRecords, matched as PathRecords */
	sa_path_rec_encode(&t, tmpl, sizeof(tmpl));
	c->desc = sa_rec_desc_find(SA_ATTR_PATH_REC);
	c->rec_size = PR_RECORD;
	c->tmpl = tmpl;
	/* what rec_path.c leaves to the matcher: RawTraffic..TClass, QoSClass */
	c->match_mask = mask & ((0x1Full << 6) | (1ull << 14));
	for (unsigned i = 0; i < m.sgid_count && budget && !c->stop; i++) {
		const struct snap_port *src = gid_port(c, i);

		for (unsigned j = 0; src && j < m.dgid_count && budget && !c->stop; j++) {
			const struct snap_port *dst = gid_port(c, m.sgid_count + j);

			if (dst)
				sa_pr_pair(c, &t, mask, src, dst, &budget);
		}
	}
	c->tmpl = c->data;
}
