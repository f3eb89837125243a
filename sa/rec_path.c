/*
 * DOC: PathRecord (IBA 15.2.5.16).
 *
 * A path is the route the LFTs really program: from the source end port
 * (a CA port, or a switch's port 0) the walk follows the snapshot's
 * unicast tables hop by hop towards the DLID until it reaches the
 * destination port, and fails on a drop entry, a port without an Active
 * link, a wrong arrival or more than 64 hops. Along it:
 *   - MTU is the smallest NeighborMTU of the links crossed (both ends),
 *     and MTUCap of a switch's port 0 at an end;
 *   - Rate the slowest link, from LinkWidthActive x the lane speed
 *     (LinkSpeedExtActive when set, else LinkSpeedActive);
 *   - PacketLifeTime covers the time a packet may live in the switches it
 *     crosses: each holds it at most 4.096 us * 2^LifeTimeValue
 *     (SwitchInfo), so h switches take at most 2^(max LTV + ceil(log2 h));
 *     0 for a loopback path;
 *   - Reversible is set when the walk back from the destination to the
 *     SLID arrives too.
 * Selectors apply only when both the selector and the value are in the
 * mask (OpenSM pr_rcv_get_path_parms); the answer carries selector 2
 * ("exactly") and the value. P_Key and SL come from partition.c.
 *
 * Which pairs: the SGID or SLID names the source, the DGID or DLID the
 * destination, an absent one means every end port. With LMC > 0 each pair
 * has 2^lmc x 2^lmc LID pairs: those with the same offset first
 * (Preference 0), then the rest (Preference 1); NumbPath caps how many per
 * pair; a Get answers with the first (as OpenSM does). A query costs
 * O(hops) per record, lookups are O(1): nothing here grows with the fabric
 * except the world query itself, which the work budget bounds.
 */
#include "config.h"

#include <string.h>

#include "routing/routing.h"
#include "sa/sa_int.h"
#include "lib/log.h"

/* Component-mask bits (mad/sa_fields.c, path_rec). */
#define PR_SID_MSB 0
#define PR_SID_LSB 1
#define PR_DGID 2
#define PR_SGID 3
#define PR_DLID 4
#define PR_SLID 5
#define PR_FLOW 8
#define PR_HOP 9
#define PR_TCLASS 10
#define PR_REVERSIBLE 11
#define PR_NUMB_PATH 12
#define PR_PKEY 13
#define PR_QOS 14
#define PR_SL 15
#define PR_MTU_SEL 16
#define PR_MTU 17
#define PR_RATE_SEL 18
#define PR_RATE 19
#define PR_PLT_SEL 20
#define PR_PLT 21

#define BIT(n) (1ull << (n))
/* What the path code decides itself, not the generic matcher. */
#define PR_HANDLED (BIT(PR_SID_MSB) | BIT(PR_SID_LSB) | BIT(PR_DGID) | BIT(PR_SGID) |     \
		    BIT(PR_DLID) | BIT(PR_SLID) | BIT(PR_REVERSIBLE) | BIT(PR_NUMB_PATH) |  \
		    BIT(PR_PKEY) | BIT(PR_SL) | BIT(PR_MTU_SEL) | BIT(PR_MTU) |             \
		    BIT(PR_RATE_SEL) | BIT(PR_RATE) | BIT(PR_PLT_SEL) | BIT(PR_PLT))

#define PORT_ACTIVE 4
#define MAX_HOPS 64

/* Rate codes in tenths of Gb/s (PathRecord Rate, IBA 15.2.5.16); 0: not
 * a rate. */
static const uint16_t rate_tenths[25] = {
	[2] = 25, [3] = 100, [4] = 300, [5] = 50, [6] = 200, [7] = 400, [8] = 600,
	[9] = 800, [10] = 1200, [11] = 140, [12] = 560, [13] = 1120, [14] = 1680,
	[15] = 250, [16] = 1000, [17] = 2000, [18] = 3000, [19] = 280, [20] = 500,
	[21] = 4000, [22] = 6000, [23] = 8000, [24] = 12000,
};

struct hops {
	uint8_t mtu;        /* IBA MTU code, the smallest seen */
	uint32_t rate;      /* tenths of Gb/s, the smallest seen */
	unsigned switches;
	uint8_t ltv;        /* the largest LifeTimeValue seen */
};

static uint32_t port_rate(const struct smp_port_info *pi)
{
	static const uint8_t lanes[17] = { [1] = 1, [2] = 4, [4] = 8, [8] = 12, [16] = 2 };
	unsigned w = pi->link_width_active, lane;

	/* lane speed: FDR 14, EDR 25, HDR 50, NDR 100 Gb/s (bit values of
	 * LinkSpeedExtActive), else SDR 2.5, DDR 5, QDR 10 */
	switch (pi->link_speed_ext_active) {
	case 1: lane = 140; break;
	case 2: lane = 250; break;
	case 4: lane = 500; break;
	case 8: lane = 1000; break;
	default:
		lane = pi->link_speed_active == 4 ? 100 : pi->link_speed_active == 2 ? 50 : 25;
	}
	return (w < sizeof(lanes) && lanes[w] ? lanes[w] : 1) * lane;
}

/* The fastest rate code not above tenths. */
static uint8_t rate_code(uint32_t tenths)
{
	uint8_t best = 2;

	for (uint8_t i = 2; i < sizeof(rate_tenths) / sizeof(rate_tenths[0]); i++)
		if (rate_tenths[i] <= tenths && rate_tenths[i] > rate_tenths[best])
			best = i;
	return best;
}

void sa_path_index(struct sa_index *ix, const struct sm_snap *s)
{
	ix->hop = xcalloc(s->nports ? s->nports : 1, sizeof(*ix->hop));
	ix->hnode = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*ix->hnode));
	for (uint32_t i = 0; i < s->nnodes; i++) {
		const struct snap_node *n = &s->nodes[i];

		ix->hnode[i] = (struct sa_hnode){ n->port0, n->nports, n->is_switch,
						  n->have_si ? n->si.life_time_value : 0 };
	}
	for (uint32_t i = 0; i < s->nports; i++) {
		const struct snap_port *p = &s->ports[i];
		struct sa_hop *h = &ix->hop[i];

		h->peer = p->peer;
		h->node = p->node;
		if (!p->have_pi)
			continue;
		h->rate = (uint16_t)port_rate(&p->pi);
		h->active = p->pi.port_state == PORT_ACTIVE;
		/* a switch's port 0 has no link: its MTUCap bounds a path ending there */
		h->mtu = s->nodes[p->node].is_switch && !p->num ? p->pi.mtu_cap : p->pi.neighbor_mtu;
	}
}

static void see_mtu(struct hops *h, uint8_t mtu)
{
	if (mtu && mtu < h->mtu)
		h->mtu = mtu;
}

/* Cross the link at egress port e: both ends Active. Returns the port at
 * the other end, or SNAP_NONE. */
static uint32_t cross(const struct sa_index *ix, uint32_t e, struct hops *h)
{
	uint32_t q = ix->hop[e].peer;

	if (q == SNAP_NONE || !ix->hop[e].active || !ix->hop[q].active)
		return SNAP_NONE;
	see_mtu(h, ix->hop[e].mtu);
	see_mtu(h, ix->hop[q].mtu);
	if (ix->hop[e].rate < h->rate)
		h->rate = ix->hop[e].rate;
	return q;
}

/* The next hop at switch n towards dlid, or -1 (a drop entry, no table). */
static int lft_out(const struct sm_snap *s, uint32_t n, uint16_t dlid)
{
	const struct route_tables *rt = s->rt;

	if (!rt || n >= rt->nnodes || !rt->lft[n].ports || dlid > rt->top)
		return -1;
	return rt->lft[n].ports[dlid] == LFT_NO_PORT ? -1 : rt->lft[n].ports[dlid];
}

/* Follows the LFTs from end port src towards dlid: true when the route
 * arrives at dst; h gets the path's MTU, rate and switches. */
static bool walk(const struct sa_ctx *c, uint32_t src, uint32_t dst, uint16_t dlid,
		 struct hops *h)
{
	const struct sa_index *ix = c->ix;
	uint32_t p = src;

	*h = (struct hops){ .mtu = 0x3F, .rate = UINT32_MAX };
	/* a switch's port 0 at an end brings its MTUCap */
	if (ix->hnode[ix->hop[src].node].is_switch)
		see_mtu(h, ix->hop[src].mtu);
	if (ix->hnode[ix->hop[dst].node].is_switch)
		see_mtu(h, ix->hop[dst].mtu);
	if (src == dst)
		return true;
	if (!ix->hnode[ix->hop[p].node].is_switch && (p = cross(ix, p, h)) == SNAP_NONE)
		return false;
	for (unsigned i = 0; i < MAX_HOPS; i++) {
		uint32_t ni = ix->hop[p].node;
		const struct sa_hnode *n = &ix->hnode[ni];
		int out;

		if (!n->is_switch)
			return p == dst;
		h->switches++;
		if (n->ltv > h->ltv)
			h->ltv = n->ltv;
		out = lft_out(c->snap, ni, dlid);
		if (out == 0)
			return n->port0 == dst;
		if (out < 0 || out > n->nports || (p = cross(ix, n->port0 + (uint32_t)out, h)) == SNAP_NONE)
			return false;
	}
	return false;   /* a loop */
}

static uint8_t ceil_log2(unsigned v)
{
	uint8_t r = 0;

	while ((1u << r) < v)
		r++;
	return r;
}

/* --- selectors (IBA 15.2.5.16) --- */

/* MTU: 0 greater, 1 less (lowered to below the value), 2 exactly (the
 * path may do more), 3 largest. */
static bool sel_mtu(uint8_t sel, uint8_t want, uint8_t have, uint8_t *out)
{
	switch (sel) {
	case 0: *out = have; return have > want;
	case 1: *out = have < want ? have : (uint8_t)(want - 1); return *out >= 1;
	case 2: *out = want; return have >= want;
	default: *out = have; return true;
	}
}

/* The fastest rate strictly below tenths, or 0. */
static uint8_t rate_below(uint32_t tenths)
{
	uint8_t best = 0;

	for (uint8_t i = 2; i < sizeof(rate_tenths) / sizeof(rate_tenths[0]); i++)
		if (rate_tenths[i] < tenths && (!best || rate_tenths[i] > rate_tenths[best]))
			best = i;
	return best;
}

static bool sel_rate(uint8_t sel, uint8_t want, uint32_t have, uint8_t *out)
{
	/* want is the request's: checked for selectors 0-2, anything for 3 */
	uint32_t w = want < sizeof(rate_tenths) / sizeof(rate_tenths[0]) ? rate_tenths[want] : 0;

	*out = rate_code(have);
	switch (sel) {
	case 0: return have > w;
	case 1:
		if (have >= w)
			*out = rate_below(w);
		return *out != 0;
	case 2: *out = want; return have >= w;
	default: return true;
	}
}

/* PacketLifeTime: a longer lifetime is always safe to give. */
static bool sel_plt(uint8_t sel, uint8_t want, uint8_t have, uint8_t *out)
{
	*out = have;
	switch (sel) {
	case 0:
		if (have <= want)
			*out = (uint8_t)(want + 1);
		return want < 63;
	case 1: return have < want;
	case 2: *out = want; return have <= want;
	default: return true;
	}
}

static bool both(uint64_t mask, unsigned sel_bit)
{
	return (mask & BIT(sel_bit)) && (mask & BIT(sel_bit + 1));
}

uint16_t sa_pr_check_sel(const struct sa_path_rec *t, uint64_t mask)
{
	/* MTU codes 1..5 (256..4096); rates as in rate_tenths; selector 3
	 * ("largest") leaves the value unused */
	if (both(mask, PR_MTU_SEL) && t->mtu_sel != 3 && (t->mtu < 1 || t->mtu > 5))
		return SA_STATUS_REQ_INVALID;
	if (both(mask, PR_RATE_SEL) && t->rate_sel != 3 &&
	    (t->rate >= sizeof(rate_tenths) / sizeof(rate_tenths[0]) || !rate_tenths[t->rate]))
		return SA_STATUS_REQ_INVALID;
	return 0;
}

/* MTU, rate and lifetime of the record from the walk and the selectors. */
static bool path_params(const struct sa_path_rec *t, uint64_t mask, const struct hops *h,
			struct sa_path_rec *r)
{
	uint8_t plt = h->switches ? (uint8_t)(h->ltv + ceil_log2(h->switches)) : 0;

	if (plt > 63)
		plt = 63;
	r->mtu_sel = r->rate_sel = r->pkt_life_sel = 2;
	r->mtu = h->mtu;
	r->rate = rate_code(h->rate);
	r->pkt_life = plt;
	if (both(mask, PR_MTU_SEL) && !sel_mtu(t->mtu_sel, t->mtu, h->mtu, &r->mtu))
		return false;
	if (both(mask, PR_RATE_SEL) && !sel_rate(t->rate_sel, t->rate, h->rate, &r->rate))
		return false;
	if (both(mask, PR_PLT_SEL) && !sel_plt(t->pkt_life_sel, t->pkt_life, plt, &r->pkt_life))
		return false;
	return true;
}

/* --- records --- */

struct pair {
	const struct snap_port *src, *dst;
	uint16_t pkey;
	uint8_t sl;
};

/* The loopback rate and MTU are the port's own. */
static void loopback(const struct snap_port *p, struct hops *h)
{
	if (p->have_pi) {
		see_mtu(h, p->pi.neighbor_mtu);
		h->rate = port_rate(&p->pi);
	}
	if (h->mtu == 0x3F)
		h->mtu = 1;
	if (h->rate == UINT32_MAX)
		h->rate = rate_tenths[2];
}

static void path_rec(struct sa_ctx *c, const struct sa_path_rec *t, uint64_t mask,
		     const struct pair *pp, uint16_t slid, uint16_t dlid, uint8_t pref)
{
	const struct sm_snap *s = c->snap;
	struct hops h, back;
	struct sa_path_rec r;
	uint8_t rec[64];
	bool rev;

	uint32_t a = (uint32_t)(pp->src - s->ports), b = (uint32_t)(pp->dst - s->ports);

	if (!walk(c, a, b, dlid, &h))
		return;
	rev = walk(c, b, a, slid, &back);
	if ((mask & BIT(PR_REVERSIBLE)) && t->reversible && !rev)
		return;
	if (pp->src == pp->dst)
		loopback(pp->src, &h);
	memset(&r, 0, sizeof(r));
	if (!path_params(t, mask, &h, &r))
		return;
	r.service_id = mask & BIT(PR_SID_MSB) ? t->service_id : 0;
	sa_make_gid(s->subnet_prefix, pp->dst->guid, r.dgid);
	sa_make_gid(s->subnet_prefix, pp->src->guid, r.sgid);
	r.dlid = dlid;
	r.slid = slid;
	r.raw_traffic = t->raw_traffic & !!(mask & BIT(6));
	r.flow_label = mask & BIT(PR_FLOW) ? t->flow_label : 0;
	r.hop_limit = mask & BIT(PR_HOP) ? t->hop_limit : 0;
	r.tclass = mask & BIT(PR_TCLASS) ? t->tclass : 0;
	r.reversible = rev;
	r.pkey = pp->pkey;
	r.qos_class = mask & BIT(PR_QOS) ? t->qos_class : 0;
	r.sl = pp->sl;
	r.preference = pref;
	sa_path_rec_encode(&r, rec, sizeof(rec));
	sa_emit(c, rec);
}

/* One LID pair, if the template lets it through; false to stop. */
static bool lid_pair(struct sa_ctx *c, const struct sa_path_rec *t, uint64_t mask,
		     const struct pair *pp, unsigned i, unsigned j, uint32_t *budget)
{
	uint16_t slid = (uint16_t)(pp->src->lid + i), dlid = (uint16_t)(pp->dst->lid + j);
	uint32_t before = c->n;

	if (((mask & BIT(PR_SLID)) && t->slid != slid) || ((mask & BIT(PR_DLID)) && t->dlid != dlid))
		return true;
	if (!*budget || !sa_work(c, 1))
		return false;
	path_rec(c, t, mask, pp, slid, dlid, i == j ? 0 : 1);
	if (c->n > before)
		(*budget)--;
	return !c->stop;
}

void sa_pr_pair(struct sa_ctx *c, const struct sa_path_rec *t, uint64_t mask,
		const struct snap_port *src, const struct snap_port *dst, uint32_t *budget)
{
	unsigned ns = 1u << src->lmc, nd = 1u << dst->lmc;
	struct pair pp = { src, dst, 0, 0 };

	if (!sa_visible(c, src) || !sa_visible(c, dst))
		return;
	pp.pkey = sa_part_pkey(c->snap, src, dst, mask & BIT(PR_PKEY) ? t->pkey : 0);
	if (!pp.pkey)
		return;
	pp.sl = mask & BIT(PR_SL) ? t->sl : sa_part_sl(c->snap, pp.pkey);
	if (!sa_part_sl_ok(c->snap, pp.pkey, pp.sl))
		return;
	/* the LID pairs with the same offset first: they are the disjoint
	 * ones LMC routing spreads (OpenSM's order) */
	for (unsigned i = 0; i < ns && i < nd; i++)
		if (!lid_pair(c, t, mask, &pp, i, i, budget))
			return;
	for (unsigned i = 0; i < ns; i++)
		for (unsigned j = 0; j < nd; j++)
			if (i != j && !lid_pair(c, t, mask, &pp, i, j, budget))
				return;
}

/* --- the query --- */

uint16_t sa_pr_check(struct sa_ctx *c)
{
	struct sa_path_rec t;

	/* ServiceID comes in two components; half of it is not enough
	 * (OpenSM answers the same) */
	if (sa_masked(c, PR_SID_MSB) != sa_masked(c, PR_SID_LSB))
		return SA_STATUS_INSUF_COMPS;
	sa_path_rec_decode(c->tmpl, c->dlen, &t);
	return sa_pr_check_sel(&t, c->mask);
}

/* The end port the template names by GID and/or LID: *p (NULL: any).
 * False when there can be no record (a status may be set). */
static bool resolve(struct sa_ctx *c, const uint8_t *gid, uint16_t lid, unsigned gid_bit,
		    unsigned lid_bit, const struct snap_port **p)
{
	const struct snap_port *byl;
	bool bad;

	*p = NULL;
	if (sa_masked(c, gid_bit)) {
		*p = sa_port_by_gid(c, gid, &bad);
		if (!*p) {
			sa_fail(c, SA_STATUS_INVALID_GID);
			return false;
		}
	}
	if (sa_masked(c, lid_bit)) {
		byl = snap_port_by_lid(c->snap, lid);
		if (!byl || !sa_is_end_port(c->snap, byl) || (*p && *p != byl))
			return false;
		*p = byl;
	}
	return true;
}

void sa_pr_get(struct sa_ctx *c)
{
	const struct sa_index *ix = c->ix;
	const struct snap_port *src, *dst;
	struct sa_path_rec t;
	uint32_t per_pair;
	uint32_t ns, nd;

	sa_path_rec_decode(c->tmpl, c->dlen, &t);
	c->first_only = c->method == SA_METHOD_GET;
	per_pair = sa_masked(c, PR_NUMB_PATH) && t.numb_path ? t.numb_path : UINT32_MAX;
	if (!resolve(c, t.sgid, t.slid, PR_SGID, PR_SLID, &src) ||
	    !resolve(c, t.dgid, t.dlid, PR_DGID, PR_DLID, &dst))
		return;
	c->match_mask &= ~PR_HANDLED;
	ns = src ? 1 : ix->nends;
	nd = dst ? 1 : ix->nends;
	for (uint32_t i = 0; i < ns; i++) {
		const struct snap_port *a = src ? src : &c->snap->ports[ix->ends[i]];

		for (uint32_t j = 0; j < nd; j++) {
			const struct snap_port *b = dst ? dst : &c->snap->ports[ix->ends[j]];
			uint32_t budget = per_pair;

			sa_pr_pair(c, &t, c->mask, a, b, &budget);
			if (c->stop || !sa_work(c, 1))
				return;
		}
	}
}
