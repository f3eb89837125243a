/*
 * DOC: the multicast group database (see mcdb.h for the rules).
 *
 * Groups live in an array sorted by MGID (binary search; a create or
 * delete moves the tail) and in a table indexed by MLID - 0xC000; the
 * members of a group in an array sorted by port GUID. Requests are
 * untrusted: every field is checked before anything changes, and a
 * request that fails leaves the database as it was.
 */
#include "config.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "routing/mcast.h"
#include "sm/log.h"
#include "sm/mcdb.h"
#include "sm/pkeyset.h"

#define MLID_SLOTS (MCAST_MLID_MAX - MCAST_MLID_MIN + 1)
#define SEL_EXACTLY 2

struct mcdb {
	struct mcdb_opts o;
	struct mc_group **g;        /* by MGID */
	size_t n, cap;
	struct mc_group **by_mlid;  /* [mlid - MCAST_MLID_MIN] */
	uint32_t counter;           /* for SA-assigned MGIDs */
	bool dirty;
	uint64_t gen;               /* changes in all (mcdb_gen) */
	struct mc_shares sh;        /* what each requester made */
	struct mc_limits lim;
};

static void touch(struct mcdb *db)
{
	db->dirty = true;
	db->gen++;
}

/* --- rates and MTUs (reference 3.1) ------------------------------------------- */

/* Bandwidth of rate codes 2..24 in 100 Mb/s units. */
static const uint16_t rate_bw[25] = {
	[2] = 25, [3] = 100, [4] = 300, [5] = 50, [6] = 200, [7] = 400, [8] = 600,
	[9] = 800, [10] = 1200, [11] = 140, [12] = 560, [13] = 1120, [14] = 1680,
	[15] = 250, [16] = 1000, [17] = 2000, [18] = 3000, [19] = 280, [20] = 500,
	[21] = 4000, [22] = 6000, [23] = 8000, [24] = 12000,
};

bool mc_rate_valid(uint8_t r)
{
	return r < 25 && rate_bw[r];
}

int mc_rate_cmp(uint8_t a, uint8_t b)
{
	unsigned x = mc_rate_valid(a) ? rate_bw[a] : 0, y = mc_rate_valid(b) ? rate_bw[b] : 0;

	return x < y ? -1 : x > y;
}

/* The valid code with the most bandwidth at most bw (0: none). */
static uint8_t rate_at_most(unsigned bw)
{
	uint8_t best = 0;

	for (uint8_t r = 2; r < 25; r++)
		if (rate_bw[r] <= bw && (!best || rate_bw[r] > rate_bw[best]))
			best = r;
	return best;
}

uint8_t mc_link_rate(uint8_t width, uint8_t speed, uint8_t ext_speed, uint32_t cap_mask)
{
	static const struct { uint8_t bit, lanes; } widths[] = {
		{ 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 },
	};
	/* per lane, 100 Mb/s: SDR, DDR, QDR; FDR, EDR, HDR, NDR */
	static const uint16_t lane[] = { 25, 50, 100 }, ext_lane[] = { 140, 250, 500, 1000 };
	unsigned lanes = 0, per = 0;

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (width == widths[i].bit)
			lanes = widths[i].lanes;
	for (unsigned i = 0; i < 3; i++)
		if (speed & (1u << i))
			per = lane[i];
	/* CapabilityMask bit 14 IsExtendedSpeedsSupported */
	for (unsigned i = 0; (cap_mask & (1u << 14)) && i < 4; i++)
		if (ext_speed & (1u << i))
			per = ext_lane[i];
	return rate_at_most(lanes * per);
}

static bool mtu_valid(uint8_t m)
{
	return m >= 1 && m <= 5;
}

/* Selector sel (0 greater, 1 less, 2 exactly, 3 any) accepts a group
 * value whose comparison with the required one is cmp. */
static bool sel_accepts(uint8_t sel, int cmp)
{
	switch (sel) {
	case 0: return cmp > 0;
	case 1: return cmp < 0;
	case 2: return cmp == 0;
	default: return true;
	}
}

static int u8_cmp(uint8_t a, uint8_t b)
{
	return a < b ? -1 : a > b;
}

/* Masked MTU and Rate with their selectors must be valid codes. */
static bool params_valid(const struct sa_mcmember_rec *r, uint64_t mask)
{
	if ((mask & MCM_MTU_SEL) && (mask & MCM_MTU) && !mtu_valid(r->mtu))
		return false;
	if ((mask & MCM_RATE_SEL) && (mask & MCM_RATE) && !mc_rate_valid(r->rate))
		return false;
	return true;
}

/* --- GIDs -------------------------------------------------------------------------- */

static uint64_t gid_prefix(const uint8_t gid[16])
{
	uint64_t v;

	memcpy(&v, gid, 8);
	return be64toh(v);
}

static uint64_t gid_guid(const uint8_t gid[16])
{
	uint64_t v;

	memcpy(&v, gid + 8, 8);
	return be64toh(v);
}

static bool gid_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return !memcmp(gid, zero, 16);
}

static uint16_t mgid_signature(const uint8_t mgid[16])
{
	return (uint16_t)(mgid[2] << 8 | mgid[3]);
}

static uint8_t mgid_scope(const uint8_t mgid[16])
{
	return mgid[1] & 0xF;
}

static bool prefix_ok(const struct mcdb *db, const uint8_t gid[16])
{
	uint64_t p = gid_prefix(gid);

	return p == db->o.subnet_prefix || p == MC_DEFAULT_PREFIX;
}

/* --- groups and members ----------------------------------------------------------- */

static int cmp_mgid(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, 16);
}

/* Index of mgid in db->g, or where it would go (*found false). */
static size_t group_pos(const struct mcdb *db, const uint8_t mgid[16], bool *found)
{
	size_t lo = 0, hi = db->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_mgid(db->g[mid]->rec.mgid, mgid);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static struct mc_group *group_find(const struct mcdb *db, const uint8_t mgid[16])
{
	bool found;
	size_t i = group_pos(db, mgid, &found);

	return found ? db->g[i] : NULL;
}

static size_t member_pos(const struct mc_group *g, uint64_t guid, bool *found)
{
	size_t lo = 0, hi = g->nmembers;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->members[mid].guid == guid) {
			*found = true;
			return mid;
		}
		if (g->members[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static struct mc_member *member_find(const struct mc_group *g, uint64_t guid)
{
	bool found;
	size_t i = member_pos(g, guid, &found);

	return found ? &g->members[i] : NULL;
}

static uint16_t mlid_alloc(const struct mcdb *db, uint16_t want)
{
	if (want >= MCAST_MLID_MIN && want <= db->o.mlid_top && !db->by_mlid[want - MCAST_MLID_MIN])
		return want;
	for (unsigned m = MCAST_MLID_MIN; m <= db->o.mlid_top; m++)
		if (!db->by_mlid[m - MCAST_MLID_MIN])
			return (uint16_t)m;
	return 0;
}

/* Inserts a group whose rec is filled (MLID allocated by the caller). */
static struct mc_group *group_add(struct mcdb *db, const struct sa_mcmember_rec *rec,
				  uint64_t creator)
{
	struct mc_group *g = xcalloc(1, sizeof(*g));
	bool found;
	size_t i = group_pos(db, rec->mgid, &found);

	g->rec = *rec;
	g->creator = creator;
	mc_share_group(&db->sh, creator, rec->pkey, 1);
	if (db->n == db->cap) {
		db->cap = db->cap ? 2 * db->cap : 64;
		db->g = xrealloc(db->g, db->cap * sizeof(*db->g));
	}
	memmove(db->g + i + 1, db->g + i, (db->n - i) * sizeof(*db->g));
	db->g[i] = g;
	db->n++;
	db->by_mlid[rec->mlid - MCAST_MLID_MIN] = g;
	touch(db);
	return g;
}

static void group_delete(struct mcdb *db, struct mc_group *g)
{
	bool found;
	size_t i = group_pos(db, g->rec.mgid, &found);

	if (found) {
		memmove(db->g + i, db->g + i + 1, (db->n - i - 1) * sizeof(*db->g));
		db->n--;
	}
	if (db->by_mlid[g->rec.mlid - MCAST_MLID_MIN] == g)
		db->by_mlid[g->rec.mlid - MCAST_MLID_MIN] = NULL;
	mc_share_group(&db->sh, g->creator, g->rec.pkey, -1);
	for (uint32_t k = 0; k < g->nmembers; k++)
		mc_share_member(&db->sh, g->members[k].by, -1);
	free(g->members);
	free(g);
	touch(db);
}

static void notify(struct mcdb *db, uint16_t trap, const struct mc_group *g)
{
	if (db->o.notice)
		db->o.notice(db->o.notice_arg, trap, g->rec.mgid, g->rec.pkey);
}

/* Sets m's JoinState to js (0 removes it) and keeps nfull: trap 66 when
 * it goes from 0 to 1, 67 when it returns to 0 (OpenSM osm_multicast.c;
 * a well-known group stays, but its traps are the same). Returns false
 * when m was removed. */
static bool member_set(struct mcdb *db, struct mc_group *g, struct mc_member *m, uint8_t js)
{
	bool was = m->join_state & MC_JOIN_ANY_FULL, is = js & MC_JOIN_ANY_FULL;
	size_t i = (size_t)(m - g->members);

	if (m->join_state != js)
		touch(db);
	m->join_state = js;
	g->nfull += is && !was;
	g->nfull -= was && !is;
	if (is && !was && g->nfull == 1)
		notify(db, MC_TRAP_CREATED, g);
	if (was && !is && g->nfull == 0)
		notify(db, MC_TRAP_DELETED, g);
	if (js)
		return true;
	mc_share_member(&db->sh, m->by, -1);
	memmove(g->members + i, g->members + i + 1, (g->nmembers - i - 1) * sizeof(*m));
	g->nmembers--;
	return false;
}

/* The member guid, added by maker (a proxy when it is not guid), or made
 * its own when it joins for itself (mcdb.h). */
static struct mc_member *member_add(struct mcdb *db, struct mc_group *g, uint64_t guid, bool proxy,
				    uint64_t maker)
{
	bool found;
	size_t i = member_pos(g, guid, &found);
	struct mc_member *m = found ? &g->members[i] : NULL;

	if (m && !proxy && m->proxy) {
		mc_share_member(&db->sh, m->by, -1);
		mc_share_member(&db->sh, maker, 1);
		m->proxy = false;
		m->by = maker;
		touch(db);
	}
	if (m)
		return m;
	if (g->nmembers == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 8;
		g->members = xrealloc(g->members, g->cap * sizeof(*g->members));
	}
	memmove(g->members + i + 1, g->members + i, (g->nmembers - i) * sizeof(*g->members));
	g->members[i] = (struct mc_member){ .guid = guid, .proxy = proxy, .by = maker };
	g->nmembers++;
	mc_share_member(&db->sh, maker, 1);
	touch(db);
	return &g->members[i];
}

/* A group without full members goes, unless the partitions keep it. */
static bool group_gone(struct mcdb *db, struct mc_group *g)
{
	if (g->nfull || g->well_known)
		return false;
	group_delete(db, g);
	return true;
}

/* --- the database ----------------------------------------------------------------- */

struct mcdb *mcdb_new(const struct mcdb_opts *o)
{
	struct mcdb *db = xcalloc(1, sizeof(*db));

	db->o = *o;
	if (!db->o.mlid_top || db->o.mlid_top > MCAST_MLID_MAX)
		db->o.mlid_top = MCAST_MLID_MAX;
	db->by_mlid = xcalloc(MLID_SLOTS, sizeof(*db->by_mlid));
	mc_shares_init(&db->sh);
	return db;
}

void mcdb_free(struct mcdb *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n; i++) {
		free(db->g[i]->members);
		free(db->g[i]);
	}
	free(db->g);
	free(db->by_mlid);
	mc_shares_free(&db->sh);
	free(db);
}

void mcdb_set_mlid_top(struct mcdb *db, uint16_t top)
{
	db->o.mlid_top = top >= MCAST_MLID_MIN && top <= MCAST_MLID_MAX ? top : MCAST_MLID_MAX;
}

uint16_t mcdb_mlid_top(const struct mcdb *db)
{
	return db->o.mlid_top;
}

size_t mcdb_count(const struct mcdb *db)
{
	return db->n;
}

const struct mc_group *mcdb_at(const struct mcdb *db, size_t i)
{
	return i < db->n ? db->g[i] : NULL;
}

const struct mc_group *mcdb_find(const struct mcdb *db, const uint8_t mgid[16])
{
	return group_find(db, mgid);
}

const struct mc_group *mcdb_by_mlid(const struct mcdb *db, uint16_t mlid)
{
	if (mlid < MCAST_MLID_MIN || mlid > MCAST_MLID_MAX)
		return NULL;
	return db->by_mlid[mlid - MCAST_MLID_MIN];
}

bool mcdb_take_dirty(struct mcdb *db)
{
	bool d = db->dirty;

	db->dirty = false;
	return d;
}

bool mcdb_dirty(const struct mcdb *db)
{
	return db->dirty;
}

size_t mcdb_over_top(const struct mcdb *db)
{
	size_t n = 0;

	for (size_t i = 0; i < db->n; i++)
		n += db->g[i]->rec.mlid > db->o.mlid_top;
	return n;
}

/* --- checks shared by join, leave and query ------------------------------------ */

/* Masked Q_Key, P_Key, TClass, SL, FlowLabel, HopLimit agree with g
 * (OpenSM validate_other_comp_fields). */
static bool others_match(const struct sa_mcmember_rec *r, uint64_t mask,
			 const struct sa_mcmember_rec *g)
{
	if ((mask & MCM_QKEY) && r->qkey != g->qkey)
		return false;
	if ((mask & MCM_PKEY) && (!((r->pkey | g->pkey) & PKEY_FULL) ||
				  PKEY_BASE(r->pkey) != PKEY_BASE(g->pkey)))
		return false;
	if ((mask & MCM_TCLASS) && r->tclass != g->tclass)
		return false;
	if ((mask & MCM_SL) && r->sl != g->sl)
		return false;
	if ((mask & MCM_FLOW) && r->flow_label != g->flow_label)
		return false;
	return !(mask & MCM_HOP) || r->hop_limit == g->hop_limit;
}

/* The request's MTU and Rate selectors accept the group's values. */
static bool selectors_accept(const struct sa_mcmember_rec *r, uint64_t mask,
			     const struct sa_mcmember_rec *g)
{
	if ((mask & MCM_MTU_SEL) && (mask & MCM_MTU) &&
	    !sel_accepts(r->mtu_sel, u8_cmp(g->mtu, r->mtu)))
		return false;
	return !((mask & MCM_RATE_SEL) && (mask & MCM_RATE)) ||
	       sel_accepts(r->rate_sel, mc_rate_cmp(g->rate, r->rate));
}

static bool port_reaches(const struct mc_port *p, const struct sa_mcmember_rec *g)
{
	return p->mtu >= g->mtu && mc_rate_cmp(p->rate, g->rate) >= 0;
}

static bool holds_pkey(const struct mc_port *p, uint16_t pkey)
{
	return pkey_find(p->pkeys, p->npkeys, pkey) != 0;
}

/* The proxy rule for changing member m (OpenSM validate_modify). */
static bool may_modify(const struct mcdb *db, const struct mc_who *who, const struct mc_member *m,
		       const struct mc_group *g)
{
	struct mc_port req;

	if (!who->requester)
		return true;
	if (!m->proxy)
		return who->requester == m->guid;
	return db->o.port(db->o.port_arg, who->requester, &req) && holds_pkey(&req, g->rec.pkey);
}

/* Common request checks; fills *port and *proxy. 0 or an SA status. */
static uint16_t check_request(const struct mcdb *db, const struct mc_who *who,
			      const struct sa_mcmember_rec *r, uint64_t mask, struct mc_port *port,
			      bool *proxy)
{
	struct mc_port req;
	uint64_t guid = gid_guid(r->port_gid);

	if ((mask & MCM_JOIN_MASK) != MCM_JOIN_MASK)
		return SA_STATUS_INSUF_COMPS;
	if (!params_valid(r, mask))
		return SA_STATUS_REQ_INVALID;
	if (!prefix_ok(db, r->port_gid))
		return SA_STATUS_INVALID_GID;
	if (!db->o.port(db->o.port_arg, guid, port))
		return SA_STATUS_REQ_INVALID;
	*proxy = who->requester && who->requester != guid;
	if (!*proxy)
		return 0;
	if (!db->o.port(db->o.port_arg, who->requester, &req) ||
	    !pkey_share(req.pkeys, req.npkeys, port->pkeys, port->npkeys, 0, NULL))
		return SA_STATUS_REQ_INVALID;
	return 0;
}

/* The answer: the group's record with the request's PortGID. */
static void answer(const struct mc_group *g, const struct sa_mcmember_rec *req, uint8_t js,
		   struct sa_mcmember_rec *resp)
{
	*resp = g->rec;
	memcpy(resp->port_gid, req->port_gid, 16);
	resp->join_state = js;
	resp->proxy_join = req->proxy_join;
	resp->mtu_sel = resp->rate_sel = resp->pkt_life_sel = SEL_EXACTLY;
}

/* --- creating a group ---------------------------------------------------------------- */

static bool new_mgid(struct mcdb *db, const struct sa_mcmember_rec *r, uint64_t mask, uint8_t mgid[16])
{
	uint64_t prefix = htobe64(db->o.subnet_prefix);
	uint8_t scope = (mask & MCM_SCOPE) ? (r->scope & 0xF) : MC_SCOPE_LINK_LOCAL;

	mgid[0] = 0xff;
	mgid[1] = (uint8_t)(0x10 | scope);
	mgid[2] = 0xa0;
	mgid[3] = 0x1b;
	memcpy(mgid + 4, &prefix, 8);
	for (unsigned i = 0; i < 1000; i++) {
		uint32_t c = htobe32(db->counter++);

		memcpy(mgid + 12, &c, 4);
		if (!group_find(db, mgid))
			return true;
	}
	return false;
}

/* The IPoIB broadcast group of an IPoIB MGID: scope and P_Key from it
 * (RFC 4391; reference 5.1). */
static void broadcast_of(const uint8_t mgid[16], uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = 0xff;
	out[1] = (uint8_t)(0x10 | mgid_scope(mgid));
	out[2] = 0x40;
	out[3] = 0x1b;
	out[4] = mgid[4];
	out[5] = mgid[5];
	memset(out + 12, 0xff, 4);
}

/* OpenSM validate_requested_mgid, and the IPoIB group check of
 * mcmr_rcv_create_new_mgrp. */
static bool mgid_acceptable(const struct mcdb *db, const struct sa_mcmember_rec *r, uint64_t mask)
{
	uint16_t sig = mgid_signature(r->mgid);
	uint8_t bcast[16];
	const struct mc_group *b;

	if (r->mgid[0] != 0xff)
		return false;
	if (sig != 0x401b && sig != 0x601b)
		return !(r->mgid[1] & 0xe0) &&
		       !(sig == 0xa01b && mgid_scope(r->mgid) == MC_SCOPE_LINK_LOCAL);
	broadcast_of(r->mgid, bcast);
	if (!memcmp(bcast, r->mgid, 16))
		return true;
	b = group_find(db, bcast);
	return b && others_match(r, mask, &b->rec);
}

/* MTU of a new group from the request's selector and the port (OpenSM
 * mgrp_request_is_realizable). 0 when not realizable. */
static uint8_t new_mtu(const struct sa_mcmember_rec *r, uint64_t mask, uint8_t port_mtu)
{
	uint8_t want = r->mtu, m;

	if (!(mask & MCM_MTU_SEL) || !(mask & MCM_MTU) || r->mtu_sel == 3)
		return port_mtu;
	switch (r->mtu_sel) {
	case 0: m = want >= port_mtu ? 0 : port_mtu; break;
	case 1: m = want > port_mtu ? port_mtu : (uint8_t)(want - 1); break;
	default: m = want; break;
	}
	return mtu_valid(m) ? m : 0;
}

/* The next lower rate than r by bandwidth, 0 when none. */
static uint8_t rate_below(uint8_t r)
{
	return rate_bw[r] ? rate_at_most(rate_bw[r] - 1) : 0;
}

static uint8_t new_rate(const struct sa_mcmember_rec *r, uint64_t mask, uint8_t port_rate)
{
	uint8_t want = r->rate;

	if (!(mask & MCM_RATE_SEL) || !(mask & MCM_RATE) || r->rate_sel == 3)
		return port_rate;
	switch (r->rate_sel) {
	case 0: return mc_rate_cmp(want, port_rate) >= 0 ? 0 : port_rate;
	case 1: return mc_rate_cmp(want, port_rate) > 0 ? port_rate : rate_below(want);
	default: return want;
	}
}

/* The new group's record from the request. 0 or an SA status. */
static uint16_t create_rec(struct mcdb *db, const struct sa_mcmember_rec *r, uint64_t mask,
			   const struct mc_port *port, struct sa_mcmember_rec *g)
{
	memset(g, 0, sizeof(*g));
	if (gid_zero(r->mgid) ? !new_mgid(db, r, mask, g->mgid) : !mgid_acceptable(db, r, mask))
		return gid_zero(r->mgid) ? SA_STATUS_NO_RESOURCES : SA_STATUS_REQ_INVALID;
	if (!gid_zero(r->mgid))
		memcpy(g->mgid, r->mgid, 16);
	g->mtu = new_mtu(r, mask, port->mtu);
	g->rate = new_rate(r, mask, port->rate);
	if (!g->mtu || !mc_rate_valid(g->rate) || !pkey_valid(r->pkey))
		return SA_STATUS_REQ_INVALID;
	g->mlid = mlid_alloc(db, (mask & MCM_MLID) ? r->mlid : 0);
	if (!g->mlid)
		return mc_share_refuse(&db->sh, MC_REF_MLIDS);
	g->qkey = r->qkey;
	g->tclass = r->tclass;
	g->pkey = r->pkey;
	g->sl = r->sl & 0xF;
	g->flow_label = r->flow_label & 0xFFFFF;
	g->hop_limit = (mask & MCM_HOP) ? r->hop_limit : 0;
	g->pkt_life = (mask & MCM_LIFE) ? (r->pkt_life & 0x3F) : db->o.pkt_life;
	g->scope = mgid_scope(g->mgid);
	g->mtu_sel = g->rate_sel = g->pkt_life_sel = SEL_EXACTLY;
	return 0;
}

/* --- join ------------------------------------------------------------------------------ */

/* The group to join, created if need be (charged to the requester);
 * *created says so. */
static uint16_t join_group(struct mcdb *db, const struct mc_who *who,
			   const struct sa_mcmember_rec *r, uint64_t mask,
			   const struct mc_port *port, struct mc_group **out, bool *created)
{
	struct sa_mcmember_rec rec;
	enum mc_refusal ref;
	uint16_t st;

	*created = false;
	*out = gid_zero(r->mgid) ? NULL : group_find(db, r->mgid);
	if (*out)
		return others_match(r, mask, &(*out)->rec) ? 0 : SA_STATUS_REQ_INVALID;
	if (!(r->join_state & MC_JOIN_ANY_FULL))
		return SA_STATUS_REQ_INVALID;
	if ((mask & MCM_CREATE_MASK) != MCM_CREATE_MASK)
		return SA_STATUS_INSUF_COMPS;
	ref = mc_share_may_create(&db->sh, &db->lim, who->requester, who->trusted, r->pkey);
	if (ref)
		return mc_share_refuse(&db->sh, ref);
	st = create_rec(db, r, mask, port, &rec);
	if (st)
		return st;
	*out = group_add(db, &rec, who->requester);
	*created = true;
	return 0;
}

/* A new membership, or a proxy's member joining for itself, is charged
 * to its maker, the requester. */
static uint16_t join_quota(struct mcdb *db, const struct mc_who *who, const struct mc_group *g,
			   uint64_t guid, bool proxy)
{
	const struct mc_member *m = member_find(g, guid);
	enum mc_refusal ref;

	if (m && (proxy || !m->proxy))
		return 0;
	ref = mc_share_may_join(&db->sh, &db->lim, who->requester, who->trusted);
	return ref ? mc_share_refuse(&db->sh, ref) : 0;
}

/* Joins that would change an existing group or member must pass these
 * (OpenSM mcmr_rcv_join_mgrp after the group is found or made). */
static uint16_t join_allowed(const struct mcdb *db, const struct mc_who *who,
			     const struct sa_mcmember_rec *r, uint64_t mask,
			     const struct mc_port *port, const struct mc_group *g)
{
	const struct mc_member *m;

	if (!selectors_accept(r, mask, &g->rec) || !port_reaches(port, &g->rec) ||
	    !(r->join_state & 0xF))
		return SA_STATUS_REQ_INVALID;
	if (!holds_pkey(port, g->rec.pkey))
		return SA_STATUS_REQ_INVALID;
	m = member_find(g, gid_guid(r->port_gid));
	if (m && !may_modify(db, who, m, g))
		return SA_STATUS_REQ_INVALID;
	return 0;
}

uint16_t mcdb_join(struct mcdb *db, const struct mc_who *who, const struct sa_mcmember_rec *req,
		   uint64_t mask, struct sa_mcmember_rec *resp)
{
	struct mc_port port;
	struct mc_group *g;
	struct mc_member *m;
	bool proxy, created = false, dirty = db->dirty;
	uint64_t gen = db->gen;
	uint16_t st = check_request(db, who, req, mask, &port, &proxy);

	db->sh.last = MC_REF_NONE;
	if (!st && (mask & MCM_PKEY) && !pkey_valid(req->pkey))
		st = SA_STATUS_REQ_INVALID;
	if (!st)
		st = join_group(db, who, req, mask, &port, &g, &created);
	if (!st)
		st = join_allowed(db, who, req, mask, &port, g);
	if (!st)
		st = join_quota(db, who, g, gid_guid(req->port_gid), proxy);
	if (st) {
		if (created) {   /* as if it never was */
			group_delete(db, g);
			db->dirty = dirty;
			db->gen = gen;
		}
		return st;
	}
	m = member_add(db, g, gid_guid(req->port_gid), proxy, who->requester);
	member_set(db, g, m, (uint8_t)(m->join_state | (req->join_state & 0xF)));
	answer(g, req, m->join_state, resp);
	return 0;
}

/* --- leave --------------------------------------------------------------------------------- */

uint16_t mcdb_leave(struct mcdb *db, const struct mc_who *who, const struct sa_mcmember_rec *req,
		    uint64_t mask, struct sa_mcmember_rec *resp)
{
	struct mc_port port;
	struct mc_group *g;
	struct mc_member *m;
	uint8_t js = req->join_state & 0xF, left;
	bool proxy;
	uint16_t st = check_request(db, who, req, mask, &port, &proxy);

	if (st)
		return st;
	g = group_find(db, req->mgid);
	m = g ? member_find(g, gid_guid(req->port_gid)) : NULL;
	if (!m || !(js & m->join_state) || (js & ~m->join_state) || !may_modify(db, who, m, g))
		return SA_STATUS_REQ_INVALID;
	left = (uint8_t)(m->join_state & ~js);
	member_set(db, g, m, left);
	answer(g, req, left, resp);
	group_gone(db, g);
	return 0;
}

/* --- query --------------------------------------------------------------------------------- */

struct query {
	const struct mcdb *db;
	const struct mc_who *who;
	const struct sa_mcmember_rec *t;
	uint64_t mask;
	int (*fn)(void *arg, const struct sa_mcmember_rec *rec);
	void *arg;
	size_t count;
	bool stop;
};

/* The group-level match (OpenSM mcmr_by_comp_mask before the port part). */
static bool group_matches(const struct query *q, const struct mc_group *g)
{
	struct mc_port req;

	if ((q->mask & MCM_MGID) && cmp_mgid(q->t->mgid, g->rec.mgid))
		return false;
	if ((q->mask & MCM_MLID) && q->t->mlid != g->rec.mlid)
		return false;
	if (q->who->requester && (!q->db->o.port(q->db->o.port_arg, q->who->requester, &req) ||
				  !holds_pkey(&req, g->rec.pkey)))
		return false;
	if ((q->mask & MCM_SCOPE) && (q->t->scope & 0xF) != g->rec.scope)
		return false;
	return others_match(q->t, q->mask, &g->rec) && selectors_accept(q->t, q->mask, &g->rec);
}

static void emit(struct query *q, const struct mc_group *g, const struct mc_member *m,
		 uint8_t js)
{
	struct sa_mcmember_rec r = g->rec;
	uint64_t prefix = htobe64(q->db->o.subnet_prefix), guid = m ? htobe64(m->guid) : 0;

	if ((q->mask & MCM_JOIN_STATE) && (q->t->join_state & 0xF) != js)
		return;
	if ((q->mask & MCM_PROXY) && (q->t->proxy_join & 1) != (m ? m->proxy : 0))
		return;
	if (m && q->who->trusted) {
		memcpy(r.port_gid, &prefix, 8);
		memcpy(r.port_gid + 8, &guid, 8);
		r.join_state = js;
		r.proxy_join = m->proxy;
	}
	q->count++;
	if (q->fn(q->arg, &r))
		q->stop = true;
}

static uint8_t all_states(const struct mc_group *g)
{
	uint8_t js = 0;

	for (uint32_t i = 0; i < g->nmembers; i++)
		js |= g->members[i].join_state;
	return js;
}

static void query_group(struct query *q, const struct mc_group *g)
{
	const struct mc_member *m;

	if (!group_matches(q, g))
		return;
	if (q->mask & MCM_PORT_GID) {
		m = member_find(g, gid_guid(q->t->port_gid));
		if (m)
			emit(q, g, m, m->join_state);
		return;
	}
	if (!q->who->trusted) {
		emit(q, g, NULL, all_states(g));
		return;
	}
	for (uint32_t i = 0; i < g->nmembers && !q->stop; i++)
		emit(q, g, &g->members[i], g->members[i].join_state);
}

uint16_t mcdb_query(const struct mcdb *db, const struct mc_who *who,
		    const struct sa_mcmember_rec *tmpl, uint64_t mask,
		    int (*fn)(void *arg, const struct sa_mcmember_rec *rec), void *arg,
		    size_t *count)
{
	struct query q = { db, who, tmpl, mask, fn, arg, 0, false };

	*count = 0;
	if (!params_valid(tmpl, mask))
		return SA_STATUS_REQ_INVALID;
	for (size_t i = 0; i < db->n && !q.stop; i++)
		query_group(&q, db->g[i]);
	*count = q.count;
	return 0;
}

/* --- groups from the partitions file, ports going away ------------------------ */

uint16_t mcdb_well_known(struct mcdb *db, const struct sa_mcmember_rec *rec)
{
	struct mc_group *g = group_find(db, rec->mgid);
	struct sa_mcmember_rec r = *rec;

	if (g) {
		r.mlid = g->rec.mlid;
		if (memcmp(&r, &g->rec, sizeof(r)))
			touch(db);
		g->rec = r;
		g->well_known = true;
		return 0;
	}
	r.mlid = mlid_alloc(db, 0);
	if (!r.mlid)
		return SA_STATUS_NO_RESOURCES;
	group_add(db, &r, 0)->well_known = true;
	return 0;
}

void mcdb_clear_well_known(struct mcdb *db)
{
	for (size_t i = 0; i < db->n; i++)
		db->g[i]->well_known = false;
}

void mcdb_prune(struct mcdb *db)
{
	for (size_t i = db->n; i-- > 0;)
		group_gone(db, db->g[i]);
}

size_t mcdb_remove_made_by(struct mcdb *db, uint64_t proxy)
{
	size_t n = 0;

	for (size_t i = db->n; proxy && i-- > 0;) {
		struct mc_group *g = db->g[i];
		size_t before = n;

		for (uint32_t k = g->nmembers; k-- > 0;) {
			if (!g->members[k].proxy || g->members[k].by != proxy)
				continue;
			member_set(db, g, &g->members[k], 0);
			n++;
		}
		if (n > before)
			group_gone(db, g);
	}
	return n;
}

void mcdb_set_limits(struct mcdb *db, const struct mc_limits *l)
{
	db->lim = *l;
}

const struct mc_shares *mcdb_shares(const struct mcdb *db)
{
	return &db->sh;
}

size_t mcdb_remove_port(struct mcdb *db, uint64_t guid)
{
	size_t n = 0;

	for (size_t i = db->n; i-- > 0;) {
		struct mc_group *g = db->g[i];
		struct mc_member *m = member_find(g, guid);

		if (!m)
			continue;
		n++;
		member_set(db, g, m, 0);
		group_gone(db, g);
	}
	return n;
}

/* --- a saved or copied state ------------------------------------------------------ */

uint64_t mcdb_gen(const struct mcdb *db)
{
	return db->gen;
}

void mcdb_clear(struct mcdb *db)
{
	for (size_t i = 0; i < db->n; i++) {
		db->by_mlid[db->g[i]->rec.mlid - MCAST_MLID_MIN] = NULL;
		free(db->g[i]->members);
		free(db->g[i]);
	}
	db->n = 0;
	mc_shares_clear(&db->sh);
	touch(db);
}

/* The next SA-assigned MGID does not retrace restored ones. */
static void counter_past(struct mcdb *db, const uint8_t mgid[16])
{
	uint64_t prefix = htobe64(db->o.subnet_prefix);
	uint32_t c;

	if (mgid_signature(mgid) != 0xa01b || memcmp(mgid + 4, &prefix, 8))
		return;
	memcpy(&c, mgid + 12, 4);
	c = be32toh(c);
	if (c >= db->counter && c != UINT32_MAX)
		db->counter = c + 1;
}

static bool members_ok(const struct mc_member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!m[i].join_state || m[i].join_state > 0xF || (i && m[i].guid <= m[i - 1].guid))
			return false;
	return true;
}

const struct mc_group *mcdb_restore(struct mcdb *db, const struct sa_mcmember_rec *rec,
				    bool well_known, uint64_t creator,
				    const struct mc_member *members, size_t n)
{
	struct mc_group *g;

	if (rec->mlid < MCAST_MLID_MIN || rec->mlid > MCAST_MLID_MAX ||
	    db->by_mlid[rec->mlid - MCAST_MLID_MIN] || group_find(db, rec->mgid) ||
	    !members_ok(members, n) || n > UINT32_MAX)
		return NULL;
	g = group_add(db, rec, creator);
	g->well_known = well_known;
	g->members = xcalloc(n ? n : 1, sizeof(*g->members));
	memcpy(g->members, members, n * sizeof(*members));
	g->nmembers = g->cap = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		g->nfull += (members[i].join_state & MC_JOIN_ANY_FULL) != 0;
		mc_share_member(&db->sh, members[i].by, 1);
	}
	counter_past(db, rec->mgid);
	return g;
}
