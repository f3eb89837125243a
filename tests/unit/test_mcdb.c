/*
 * DOC: unit tests of the multicast group database (sm/mcdb.c) through its
 * API, against a table of fake ports: IPoIB joins to a pre-created
 * broadcast group, create rules and their status codes, MGID allocation
 * and validation, MLID allocation and reuse, JoinState merging and
 * leaving, group deletion and traps 66/67, proxy joins, P_Key
 * membership, MTU/Rate selectors, queries (trusted, untrusted, by port),
 * ports going away, well-known groups across a reload, link rates, and a
 * randomized run of hostile requests checked against invariants.
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mad/sa.h"
#include "sm/mcdb.h"

#define PREFIX 0xfe80000000000000ull
#define NPORTS 8

struct fport {
	uint64_t guid;
	uint8_t mtu, rate;
	uint16_t pkeys[4];
	size_t npkeys;
};

/* 1..4 full default members; 5 limited default only; 6 small MTU; 7 in
 * partition 0x0010 only (full); 8 limited in 0x0010 and default */
static struct fport ports[NPORTS] = {
	{ 0x1001, 4, 3, { 0xffff, 0x8010 }, 2 },
	{ 0x1002, 4, 3, { 0xffff }, 1 },
	{ 0x1003, 5, 7, { 0xffff }, 1 },
	{ 0x1004, 4, 3, { 0xffff }, 1 },
	{ 0x1005, 4, 3, { 0x7fff }, 1 },
	{ 0x1006, 3, 3, { 0xffff }, 1 },
	{ 0x1007, 4, 3, { 0x8010 }, 1 },
	{ 0x1008, 4, 3, { 0x7fff, 0x0010 }, 2 },
};

static bool lookup(void *arg, uint64_t guid, struct mc_port *out)
{
	for (int i = 0; i < NPORTS; i++)
		if (ports[i].guid == guid) {
			out->mtu = ports[i].mtu;
			out->rate = ports[i].rate;
			out->pkeys = ports[i].pkeys;
			out->npkeys = ports[i].npkeys;
			return true;
		}
	return false;
}

static unsigned traps[2];   /* 66, 67 */
static uint8_t last_trap_mgid[16];

static void notice(void *arg, uint16_t trap, const uint8_t mgid[16], uint16_t pkey)
{
	traps[trap == MC_TRAP_DELETED]++;
	memcpy(last_trap_mgid, mgid, 16);
}

/* ff12:401b:ffff::ffff:ffff, the default partition's broadcast group */
static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
				   0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

static struct mcdb *db_new(void)
{
	struct mcdb_opts o = {
		.subnet_prefix = PREFIX, .pkt_life = 18, .mlid_top = 0xC00F,
		.port = lookup, .notice = notice,
	};
	struct sa_mcmember_rec b;
	struct mcdb *db = mcdb_new(&o);

	memset(traps, 0, sizeof(traps));
	memset(&b, 0, sizeof(b));
	memcpy(b.mgid, bcast, 16);
	b.qkey = 0x0b1b;
	b.pkey = 0xffff;
	b.mtu = 4;
	b.rate = 3;
	b.pkt_life = 18;
	b.scope = 2;
	b.mtu_sel = b.rate_sel = b.pkt_life_sel = 2;
	assert_int_equal(mcdb_well_known(db, &b), 0);
	return db;
}

static struct sa_mcmember_rec req_for(const uint8_t mgid[16], uint64_t guid, uint8_t js)
{
	struct sa_mcmember_rec r;
	uint64_t p = htobe64(PREFIX), g = htobe64(guid);

	memset(&r, 0, sizeof(r));
	if (mgid)
		memcpy(r.mgid, mgid, 16);
	memcpy(r.port_gid, &p, 8);
	memcpy(r.port_gid + 8, &g, 8);
	r.join_state = js;
	return r;
}

#define IPOIB_JOIN (MCM_MGID | MCM_PORT_GID | MCM_PKEY | MCM_JOIN_STATE)
/* IPoIB's mask for its other groups (reference 4.2): 0x173F7 */
#define IPOIB_CREATE (IPOIB_JOIN | MCM_QKEY | MCM_MTU_SEL | MCM_MTU | MCM_TCLASS | \
		      MCM_RATE_SEL | MCM_RATE | MCM_SL | MCM_FLOW | MCM_HOP)

static uint16_t join(struct mcdb *db, uint64_t who, const uint8_t *mgid, uint64_t guid,
		     uint8_t js, uint64_t mask, struct sa_mcmember_rec *resp)
{
	struct mc_who w = { .requester = who };
	struct sa_mcmember_rec r = req_for(mgid, guid, js), dummy;

	r.pkey = 0xffff;
	return mcdb_join(db, &w, &r, mask, resp ? resp : &dummy);
}

static uint16_t leave(struct mcdb *db, uint64_t who, const uint8_t *mgid, uint64_t guid,
		      uint8_t js, struct sa_mcmember_rec *resp)
{
	struct mc_who w = { .requester = who };
	struct sa_mcmember_rec r = req_for(mgid, guid, js), dummy;

	return mcdb_leave(db, &w, &r, MCM_JOIN_MASK, resp ? resp : &dummy);
}

/* A creating join as IPoIB sends it for mgid, parameters of the
 * broadcast group. */
static uint16_t create(struct mcdb *db, const uint8_t mgid[16], uint64_t guid, uint8_t js,
		       struct sa_mcmember_rec *resp)
{
	struct mc_who w = { .requester = guid };
	struct sa_mcmember_rec r = req_for(mgid, guid, js), dummy;

	r.pkey = 0xffff;
	r.qkey = 0x0b1b;
	r.mtu_sel = 2;
	r.mtu = 4;
	r.rate_sel = 2;
	r.rate = 3;
	return mcdb_join(db, &w, &r, IPOIB_CREATE, resp ? resp : &dummy);
}

static void test_ipoib_broadcast_join(void **state)
{
	struct mcdb *db = db_new();
	struct sa_mcmember_rec resp;

	assert_int_equal(mcdb_count(db), 1);
	assert_int_equal(join(db, 0x1001, bcast, 0x1001, MC_JOIN_FULL, IPOIB_JOIN, &resp), 0);
	assert_memory_equal(resp.mgid, bcast, 16);
	assert_int_equal(resp.mlid, 0xC000);
	assert_int_equal(resp.qkey, 0x0b1b);
	assert_int_equal(resp.mtu_sel, 2);
	assert_int_equal(resp.mtu, 4);
	assert_int_equal(resp.rate_sel, 2);
	assert_int_equal(resp.rate, 3);
	assert_int_equal(resp.pkt_life_sel, 2);
	assert_int_equal(resp.pkey, 0xffff);
	assert_int_equal(resp.join_state, MC_JOIN_FULL);
	assert_int_equal(be64toh(*(uint64_t *)(void *)(resp.port_gid + 8)), 0x1001);
	assert_int_equal(traps[0], 1);
	assert_int_equal(join(db, 0x1002, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_int_equal(traps[0], 1);                   /* only the first full member */
	assert_int_equal(mcdb_find(db, bcast)->nmembers, 2);
	assert_true(mcdb_take_dirty(db));
	assert_false(mcdb_take_dirty(db));
	/* a repeated join changes nothing */
	assert_int_equal(join(db, 0x1002, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_false(mcdb_take_dirty(db));
	mcdb_free(db);
}

static void test_join_errors(void **state)
{
	struct mcdb *db = db_new();
	struct mc_who w = { .requester = 0x1001 };
	struct sa_mcmember_rec r = req_for(bcast, 0x1001, MC_JOIN_FULL), resp;

	/* components */
	assert_int_equal(mcdb_join(db, &w, &r, MCM_MGID | MCM_PORT_GID, &resp), SA_STATUS_INSUF_COMPS);
	assert_int_equal(mcdb_leave(db, &w, &r, MCM_MGID | MCM_JOIN_STATE, &resp),
			 SA_STATUS_INSUF_COMPS);
	/* GID prefix: the subnet's or fe80::/64 only */
	r.port_gid[0] = 0xfe;
	r.port_gid[1] = 0xc0;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK, &resp), SA_STATUS_INVALID_GID);
	/* unknown port */
	r = req_for(bcast, 0x2222, MC_JOIN_FULL);
	w.requester = 0x2222;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK, &resp), SA_STATUS_REQ_INVALID);
	/* invalid MTU or rate codes with their selectors */
	r = req_for(bcast, 0x1001, MC_JOIN_FULL);
	w.requester = 0x1001;
	r.mtu = 7;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_MTU | MCM_MTU_SEL, &resp),
			 SA_STATUS_REQ_INVALID);
	r.mtu = 4;
	r.rate = 1;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_RATE | MCM_RATE_SEL, &resp),
			 SA_STATUS_REQ_INVALID);
	/* JoinState 0 */
	assert_int_equal(join(db, 0x1001, bcast, 0x1001, 0, IPOIB_JOIN, NULL), SA_STATUS_REQ_INVALID);
	/* P_Key masked and invalid */
	r = req_for(bcast, 0x1001, MC_JOIN_FULL);
	r.pkey = 0x8000;
	assert_int_equal(mcdb_join(db, &w, &r, IPOIB_JOIN, &resp), SA_STATUS_REQ_INVALID);
	assert_int_equal(mcdb_find(db, bcast)->nmembers, 0);
	assert_int_equal(traps[0], 0);
	mcdb_free(db);
}

static void test_create_rules(void **state)
{
	static const uint8_t g1[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					0, 0, 0, 0, 0xe0, 0, 0, 0x01 };
	struct mcdb *db = db_new();
	struct sa_mcmember_rec resp;

	/* a non-member cannot create */
	assert_int_equal(create(db, g1, 0x1001, MC_JOIN_NON, NULL), SA_STATUS_REQ_INVALID);
	/* the create mask is needed */
	assert_int_equal(join(db, 0x1001, g1, 0x1001, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_INSUF_COMPS);
	assert_int_equal(mcdb_count(db), 1);
	assert_int_equal(create(db, g1, 0x1001, MC_JOIN_FULL, &resp), 0);
	assert_int_equal(resp.mlid, 0xC001);
	assert_int_equal(resp.mtu, 4);
	assert_int_equal(resp.scope, 2);
	assert_int_equal(resp.pkt_life, 18);
	assert_int_equal(mcdb_count(db), 2);
	assert_int_equal(traps[0], 1);
	/* an existing group: parameters must agree */
	{
		struct mc_who w = { .requester = 0x1002 };
		struct sa_mcmember_rec r = req_for(g1, 0x1002, MC_JOIN_FULL);

		r.qkey = 0x1234;
		assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_QKEY, &resp),
				 SA_STATUS_REQ_INVALID);
		r.qkey = 0x0b1b;
		r.sl = 3;
		assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_QKEY | MCM_SL, &resp),
				 SA_STATUS_REQ_INVALID);
		assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_QKEY, &resp), 0);
	}
	mcdb_free(db);
}

/* IPoIB groups other than the broadcast group need it, and must agree
 * with it; other MGIDs are checked for form. */
static void test_mgid_validation(void **state)
{
	uint8_t g[16] = { 0xff, 0x12, 0x40, 0x1b, 0x80, 0x10, 0, 0,
			  0, 0, 0, 0, 0xe0, 0, 0, 0x01 };
	struct mcdb *db = db_new();

	/* partition 0x0010 has no broadcast group here */
	assert_int_equal(create(db, g, 0x1001, MC_JOIN_FULL, NULL), SA_STATUS_REQ_INVALID);
	/* not multicast */
	g[0] = 0xfe;
	g[4] = g[5] = 0xff;
	assert_int_equal(create(db, g, 0x1001, MC_JOIN_FULL, NULL), SA_STATUS_REQ_INVALID);
	/* SA signature with link-local scope */
	g[0] = 0xff;
	g[2] = 0xa0;
	assert_int_equal(create(db, g, 0x1001, MC_JOIN_FULL, NULL), SA_STATUS_REQ_INVALID);
	/* reserved flag bits */
	g[1] = 0x35;
	assert_int_equal(create(db, g, 0x1001, MC_JOIN_FULL, NULL), SA_STATUS_REQ_INVALID);
	/* an SA-format MGID with site scope is fine */
	g[1] = 0x15;
	assert_int_equal(create(db, g, 0x1001, MC_JOIN_FULL, NULL), 0);
	/* IPv6 all-nodes, ff12:601b:ffff::1 */
	memset(g, 0, 16);
	g[0] = 0xff, g[1] = 0x12, g[2] = 0x60, g[3] = 0x1b, g[4] = 0xff, g[5] = 0xff, g[15] = 1;
	assert_int_equal(create(db, g, 0x1001, MC_JOIN_FULL, NULL), 0);
	assert_int_equal(mcdb_count(db), 3);
	mcdb_free(db);
}

static void test_zero_mgid(void **state)
{
	struct mcdb *db = db_new();
	struct mc_who w = { .requester = 0x1003 };
	struct sa_mcmember_rec r = req_for(NULL, 0x1003, MC_JOIN_FULL), a, b;

	r.pkey = 0xffff;
	r.qkey = 7;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_CREATE_MASK, &a), 0);
	assert_int_equal(a.mgid[0], 0xff);
	assert_int_equal(a.mgid[1], 0x12);
	assert_int_equal(a.mgid[2], 0xa0);
	assert_int_equal(a.mgid[3], 0x1b);
	assert_int_equal(a.mgid[4], 0xfe);
	assert_int_equal(a.mgid[5], 0x80);
	/* the port's own MTU and rate when none are asked for */
	assert_int_equal(a.mtu, 5);
	assert_int_equal(a.rate, 7);
	r.scope = 5;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_CREATE_MASK | MCM_SCOPE, &b), 0);
	assert_int_equal(b.mgid[1], 0x15);
	assert_int_equal(b.scope, 5);
	assert_memory_not_equal(a.mgid + 12, b.mgid + 12, 4);
	assert_non_null(mcdb_find(db, a.mgid));
	mcdb_free(db);
}

static void test_mlid_alloc_reuse(void **state)
{
	uint8_t g[3][16];
	struct sa_mcmember_rec resp;
	struct mcdb *db = db_new();
	struct mc_who w = { .requester = 0x1001 };
	struct sa_mcmember_rec r;

	for (int i = 0; i < 3; i++) {
		memcpy(g[i], bcast, 16);
		g[i][1] = 0x15;
		g[i][2] = 0xa0;
		g[i][15] = (uint8_t)i;
		assert_int_equal(create(db, g[i], 0x1001, MC_JOIN_FULL, &resp), 0);
		assert_int_equal(resp.mlid, 0xC001 + i);
	}
	assert_int_equal(leave(db, 0x1001, g[1], 0x1001, MC_JOIN_FULL, &resp), 0);
	assert_int_equal(resp.join_state, 0);
	assert_null(mcdb_find(db, g[1]));
	assert_null(mcdb_by_mlid(db, 0xC002));
	assert_int_equal(traps[1], 1);
	assert_memory_equal(last_trap_mgid, g[1], 16);
	/* the freed MLID is the lowest free one again */
	g[1][15] = 9;
	assert_int_equal(create(db, g[1], 0x1001, MC_JOIN_FULL, &resp), 0);
	assert_int_equal(resp.mlid, 0xC002);
	/* a requested MLID is granted when free, else the lowest free one */
	r = req_for(NULL, 0x1001, MC_JOIN_FULL);
	r.pkey = 0xffff;
	r.mlid = 0xC00A;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_CREATE_MASK | MCM_MLID, &resp), 0);
	assert_int_equal(resp.mlid, 0xC00A);
	assert_int_equal(mcdb_join(db, &w, &r, MCM_CREATE_MASK | MCM_MLID, &resp), 0);
	assert_int_equal(resp.mlid, 0xC004);
	/* MLIDs run out at the top */
	for (int i = 0; i < 10; i++)
		assert_int_equal(mcdb_join(db, &w, &r, MCM_CREATE_MASK, &resp), 0);
	assert_int_equal(mcdb_join(db, &w, &r, MCM_CREATE_MASK, &resp), SA_STATUS_NO_RESOURCES);
	assert_int_equal(mcdb_count(db), 16);
	mcdb_free(db);
}

static void test_join_state_merge(void **state)
{
	struct mcdb *db = db_new();
	struct sa_mcmember_rec resp;

	assert_int_equal(join(db, 0x1002, bcast, 0x1002, MC_JOIN_NON, IPOIB_JOIN, &resp), 0);
	assert_int_equal(resp.join_state, MC_JOIN_NON);
	assert_int_equal(traps[0], 0);
	assert_int_equal(join(db, 0x1002, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, &resp), 0);
	assert_int_equal(resp.join_state, MC_JOIN_FULL | MC_JOIN_NON);
	assert_int_equal(traps[0], 1);
	/* leaving bits it does not hold, or more than it holds */
	assert_int_equal(leave(db, 0x1002, bcast, 0x1002, MC_JOIN_SENDONLY_NON, NULL),
			 SA_STATUS_REQ_INVALID);
	assert_int_equal(leave(db, 0x1002, bcast, 0x1002, 0x7, NULL), SA_STATUS_REQ_INVALID);
	assert_int_equal(leave(db, 0x1002, bcast, 0x1002, MC_JOIN_FULL, &resp), 0);
	assert_int_equal(resp.join_state, MC_JOIN_NON);
	assert_int_equal(traps[1], 1);
	/* the broadcast group is well known: it stays with its non-member */
	assert_int_equal(mcdb_find(db, bcast)->nmembers, 1);
	assert_int_equal(leave(db, 0x1002, bcast, 0x1002, MC_JOIN_NON, &resp), 0);
	assert_int_equal(mcdb_find(db, bcast)->nmembers, 0);
	/* not a member at all */
	assert_int_equal(leave(db, 0x1002, bcast, 0x1002, MC_JOIN_NON, NULL), SA_STATUS_REQ_INVALID);
	mcdb_free(db);
}

/* A created group lives as long as a full member (or send-only full) does;
 * its non-members go with it. */
static void test_group_lifetime(void **state)
{
	uint8_t g[16];
	struct mcdb *db = db_new();

	memcpy(g, bcast, 16);
	g[1] = 0x15, g[2] = 0xa0, g[15] = 0x42;
	assert_int_equal(create(db, g, 0x1001, MC_JOIN_SENDONLY_FULL, NULL), 0);
	assert_int_equal(traps[0], 1);
	assert_int_equal(join(db, 0x1002, g, 0x1002, MC_JOIN_NON, MCM_JOIN_MASK, NULL), 0);
	assert_int_equal(join(db, 0x1003, g, 0x1003, MC_JOIN_FULL, MCM_JOIN_MASK, NULL), 0);
	assert_int_equal(mcdb_find(db, g)->nfull, 2);
	assert_int_equal(leave(db, 0x1001, g, 0x1001, MC_JOIN_SENDONLY_FULL, NULL), 0);
	assert_non_null(mcdb_find(db, g));
	assert_int_equal(traps[1], 0);
	assert_int_equal(leave(db, 0x1003, g, 0x1003, MC_JOIN_FULL, NULL), 0);
	assert_null(mcdb_find(db, g));
	assert_int_equal(traps[1], 1);
	assert_int_equal(join(db, 0x1002, g, 0x1002, MC_JOIN_NON, MCM_JOIN_MASK, NULL),
			 SA_STATUS_REQ_INVALID);       /* gone, and a non-member cannot create */
	mcdb_free(db);
}

static void test_proxy(void **state)
{
	struct mcdb *db = db_new();
	struct sa_mcmember_rec resp;

	/* 0x1001 joins 0x1002 by proxy: they share the default partition */
	assert_int_equal(join(db, 0x1001, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, &resp), 0);
	assert_true(mcdb_find(db, bcast)->members[0].proxy);
	/* a proxy joined member may be changed by any holder of the P_Key */
	assert_int_equal(leave(db, 0x1004, bcast, 0x1002, MC_JOIN_FULL, NULL), 0);
	/* a self joined member only by itself */
	assert_int_equal(join(db, 0x1002, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_false(mcdb_find(db, bcast)->members[0].proxy);
	assert_int_equal(leave(db, 0x1001, bcast, 0x1002, MC_JOIN_FULL, NULL), SA_STATUS_REQ_INVALID);
	assert_int_equal(join(db, 0x1001, bcast, 0x1002, MC_JOIN_NON, IPOIB_JOIN, NULL),
			 SA_STATUS_REQ_INVALID);
	/* ... or the SM */
	assert_int_equal(leave(db, 0, bcast, 0x1002, MC_JOIN_FULL, NULL), 0);
	/* no shared partition, no proxy: 0x1007 is only in 0x0010, 0x1005 only
	 * a limited default member */
	assert_int_equal(join(db, 0x1007, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_REQ_INVALID);
	assert_int_equal(join(db, 0x1005, bcast, 0x1008, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_REQ_INVALID);
	/* an unknown requester */
	assert_int_equal(join(db, 0x9999, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_REQ_INVALID);
	mcdb_free(db);
}

static void test_pkey_membership(void **state)
{
	struct mcdb *db = db_new();
	struct mc_who w = { .requester = 0x1001 };
	struct sa_mcmember_rec r, resp;

	/* 0x1007 does not hold the default P_Key */
	assert_int_equal(join(db, 0x1007, bcast, 0x1007, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_REQ_INVALID);
	/* a limited member may join a group with a full P_Key */
	assert_int_equal(join(db, 0x1005, bcast, 0x1005, MC_JOIN_FULL, MCM_JOIN_MASK, NULL), 0);
	/* a group in partition 0x0010 with its limited P_Key */
	r = req_for(NULL, 0x1001, MC_JOIN_FULL);
	r.pkey = 0x0010;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_CREATE_MASK, &resp), 0);
	assert_int_equal(resp.pkey, 0x0010);
	/* limited asking limited: refused; full asking: fine */
	w.requester = 0x1008;
	r = req_for(resp.mgid, 0x1008, MC_JOIN_NON);
	r.pkey = 0x0010;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_PKEY, &resp), SA_STATUS_REQ_INVALID);
	r.pkey = 0x8010;
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_PKEY, &resp), 0);
	/* 0x1002 does not hold 0x0010 */
	w.requester = 0x1002;
	r = req_for(resp.mgid, 0x1002, MC_JOIN_FULL);
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK, &resp), SA_STATUS_REQ_INVALID);
	mcdb_free(db);
}

static void test_selectors(void **state)
{
	struct mcdb *db = db_new();
	struct mc_who w = { .requester = 0x1001 };
	struct sa_mcmember_rec r = req_for(bcast, 0x1001, MC_JOIN_FULL), resp;
	uint64_t mtu = MCM_JOIN_MASK | MCM_MTU | MCM_MTU_SEL, rate = MCM_JOIN_MASK | MCM_RATE | MCM_RATE_SEL;

	r.mtu_sel = 0, r.mtu = 4;     /* greater than 2048: the group is 2048 */
	assert_int_equal(mcdb_join(db, &w, &r, mtu, &resp), SA_STATUS_REQ_INVALID);
	r.mtu_sel = 1, r.mtu = 5;     /* less than 4096 */
	assert_int_equal(mcdb_join(db, &w, &r, mtu, &resp), 0);
	r.mtu_sel = 2, r.mtu = 3;     /* exactly 1024 */
	assert_int_equal(mcdb_join(db, &w, &r, mtu, &resp), SA_STATUS_REQ_INVALID);
	r.mtu_sel = 0, r.mtu = 4;     /* the selector alone is not applied */
	assert_int_equal(mcdb_join(db, &w, &r, MCM_JOIN_MASK | MCM_MTU_SEL, &resp), 0);
	r.rate_sel = 2, r.rate = 3;
	assert_int_equal(mcdb_join(db, &w, &r, rate, &resp), 0);
	r.rate_sel = 0, r.rate = 3;   /* greater than 10 Gb/s */
	assert_int_equal(mcdb_join(db, &w, &r, rate, &resp), SA_STATUS_REQ_INVALID);
	r.rate_sel = 1, r.rate = 11;  /* less than 14 Gb/s: 10 is */
	assert_int_equal(mcdb_join(db, &w, &r, rate, &resp), 0);
	/* a port whose MTU is below the group's */
	assert_int_equal(join(db, 0x1006, bcast, 0x1006, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_REQ_INVALID);
	mcdb_free(db);
}

/* Creating with selectors: the MTU/rate the request and the port allow. */
static void test_create_realizable(void **state)
{
	struct mcdb *db = db_new();
	struct mc_who w = { .requester = 0x1003 };
	struct sa_mcmember_rec r = req_for(NULL, 0x1003, MC_JOIN_FULL), resp;
	uint64_t m = MCM_CREATE_MASK | MCM_MTU | MCM_MTU_SEL | MCM_RATE | MCM_RATE_SEL;

	r.pkey = 0xffff;
	r.mtu_sel = 1, r.mtu = 4;          /* less than 2048 */
	r.rate_sel = 3, r.rate = 2;        /* largest: the port's */
	assert_int_equal(mcdb_join(db, &w, &r, m, &resp), 0);
	assert_int_equal(resp.mtu, 3);
	assert_int_equal(resp.rate, 7);
	r.mtu_sel = 0, r.mtu = 4;          /* greater than 2048: the port's 4096 */
	r.rate_sel = 1, r.rate = 7;        /* less than 40: the next lower, 30 */
	assert_int_equal(mcdb_join(db, &w, &r, m, &resp), 0);
	assert_int_equal(resp.mtu, 5);
	assert_int_equal(resp.rate, 4);
	r.mtu_sel = 0, r.mtu = 5;          /* greater than the port can */
	assert_int_equal(mcdb_join(db, &w, &r, m, &resp), SA_STATUS_REQ_INVALID);
	r.mtu_sel = 2, r.mtu = 4;
	r.rate_sel = 0, r.rate = 7;        /* greater than the port's 40 */
	assert_int_equal(mcdb_join(db, &w, &r, m, &resp), SA_STATUS_REQ_INVALID);
	r.rate_sel = 2, r.rate = 16;       /* exactly 100: the port cannot */
	assert_int_equal(mcdb_join(db, &w, &r, m, &resp), SA_STATUS_REQ_INVALID);
	assert_int_equal(mcdb_count(db), 3);
	mcdb_free(db);
}

struct collected {
	unsigned n;
	struct sa_mcmember_rec r[16];
	unsigned stop_after;
};

static int collect(void *arg, const struct sa_mcmember_rec *rec)
{
	struct collected *c = arg;

	if (c->n < 16)
		c->r[c->n] = *rec;
	c->n++;
	return c->stop_after && c->n >= c->stop_after;
}

static void test_query(void **state)
{
	struct mcdb *db = db_new();
	struct mc_who untrusted = { .requester = 0x1002 }, trusted = { .requester = 0x1002, .trusted = true };
	struct mc_who outsider = { .requester = 0x1007 };
	struct sa_mcmember_rec t, resp;
	struct collected c;
	size_t n;

	assert_int_equal(join(db, 0x1001, bcast, 0x1001, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_int_equal(join(db, 0x1002, bcast, 0x1002, MC_JOIN_NON, IPOIB_JOIN, NULL), 0);
	t = req_for(NULL, 0x1001, 0);
	t.pkey = 0x0010;
	assert_int_equal(mcdb_join(db, &(struct mc_who){ 0x1001, false }, &t, MCM_CREATE_MASK | MCM_JOIN_STATE,
				   &resp), SA_STATUS_REQ_INVALID);   /* JoinState 0 */
	t.join_state = MC_JOIN_FULL;
	assert_int_equal(mcdb_join(db, &(struct mc_who){ 0x1001, false }, &t, MCM_CREATE_MASK, &resp), 0);
	memset(&t, 0, sizeof(t));
	/* untrusted: one record per visible group, member fields zeroed */
	memset(&c, 0, sizeof(c));
	assert_int_equal(mcdb_query(db, &untrusted, &t, 0, collect, &c, &n), 0);
	assert_int_equal(n, 1);                 /* 0x1002 is not in 0x0010 */
	assert_int_equal(c.r[0].mlid, 0xC000);
	assert_int_equal(c.r[0].join_state, 0);
	assert_true(!memcmp(c.r[0].port_gid, (uint8_t[16]){ 0 }, 16));
	/* trusted: a record per member */
	memset(&c, 0, sizeof(c));
	assert_int_equal(mcdb_query(db, &trusted, &t, 0, collect, &c, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(c.r[1].join_state, MC_JOIN_NON);
	assert_int_equal(c.r[1].port_gid[15], 0x02);
	/* by JoinState; by PortGID; by MLID; a Q_Key no group has */
	t.join_state = MC_JOIN_FULL;
	memset(&c, 0, sizeof(c));
	assert_int_equal(mcdb_query(db, &trusted, &t, MCM_JOIN_STATE, collect, &c, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(c.r[0].port_gid[15], 0x01);
	t = req_for(NULL, 0x1002, 0);
	assert_int_equal(mcdb_query(db, &trusted, &t, MCM_PORT_GID, collect, &c, &n), 0);
	assert_int_equal(n, 1);
	t.mlid = 0xC001;
	assert_int_equal(mcdb_query(db, &(struct mc_who){ 0, true }, &t, MCM_MLID, collect, &c, &n), 0);
	assert_int_equal(n, 1);
	t.qkey = 99;
	assert_int_equal(mcdb_query(db, &trusted, &t, MCM_QKEY, collect, &c, &n), 0);
	assert_int_equal(n, 0);
	/* outside every group's partition */
	assert_int_equal(mcdb_query(db, &outsider, &t, 0, collect, &c, &n), 0);
	assert_int_equal(n, 1);                 /* 0x1007 is in 0x0010 */
	/* bad MTU; a callback that stops */
	t.mtu = 9;
	assert_int_equal(mcdb_query(db, &trusted, &t, MCM_MTU | MCM_MTU_SEL, collect, &c, &n),
			 SA_STATUS_REQ_INVALID);
	memset(&c, 0, sizeof(c));
	c.stop_after = 1;
	assert_int_equal(mcdb_query(db, &trusted, &t, 0, collect, &c, &n), 0);
	assert_int_equal(n, 1);
	mcdb_free(db);
}

static void test_remove_port(void **state)
{
	uint8_t g[16];
	struct mcdb *db = db_new();

	memcpy(g, bcast, 16);
	g[1] = 0x15, g[2] = 0xa0;
	assert_int_equal(create(db, g, 0x1003, MC_JOIN_FULL, NULL), 0);
	assert_int_equal(join(db, 0x1003, bcast, 0x1003, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_int_equal(join(db, 0x1004, bcast, 0x1004, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	mcdb_take_dirty(db);
	assert_int_equal(mcdb_remove_port(db, 0x1003), 2);
	assert_true(mcdb_take_dirty(db));
	assert_null(mcdb_find(db, g));          /* its only full member went */
	assert_int_equal(mcdb_find(db, bcast)->nmembers, 1);
	assert_int_equal(traps[1], 1);
	assert_int_equal(mcdb_remove_port(db, 0x1003), 0);
	mcdb_free(db);
}

/* A reload: groups the partitions no longer name lose the well-known mark
 * and go once they have no full member. */
static void test_well_known_reload(void **state)
{
	struct mcdb *db = db_new();
	struct sa_mcmember_rec b = mcdb_find(db, bcast)->rec, other = b;

	other.mgid[5] = 0x10;
	other.pkey = 0x8010;
	assert_int_equal(mcdb_well_known(db, &other), 0);
	assert_int_equal(mcdb_by_mlid(db, 0xC001)->rec.pkey, 0x8010);
	assert_int_equal(join(db, 0x1001, bcast, 0x1001, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	mcdb_clear_well_known(db);
	b.mtu = 3;                              /* the new file changes the MTU */
	assert_int_equal(mcdb_well_known(db, &b), 0);
	mcdb_prune(db);
	assert_int_equal(mcdb_count(db), 1);
	assert_int_equal(mcdb_find(db, bcast)->rec.mtu, 3);
	assert_int_equal(mcdb_find(db, bcast)->rec.mlid, 0xC000);
	mcdb_clear_well_known(db);
	mcdb_prune(db);                         /* it still has a full member */
	assert_int_equal(mcdb_count(db), 1);
	assert_int_equal(leave(db, 0x1001, bcast, 0x1001, MC_JOIN_FULL, NULL), 0);
	assert_int_equal(mcdb_count(db), 0);
	mcdb_free(db);
}

static void test_link_rate(void **state)
{
	assert_int_equal(mc_link_rate(2, 1, 0, 0), 3);             /* 4x SDR: 10 */
	assert_int_equal(mc_link_rate(1, 1, 0, 0), 2);             /* 1x SDR: 2.5 */
	assert_int_equal(mc_link_rate(2, 4, 0, 0), 7);             /* 4x QDR: 40 */
	assert_int_equal(mc_link_rate(2, 4, 1, 1u << 14), 12);     /* 4x FDR: 56 */
	assert_int_equal(mc_link_rate(2, 4, 1, 0), 7);             /* no ext. speeds */
	assert_int_equal(mc_link_rate(8, 4, 2, 1u << 14), 18);     /* 12x EDR: 300 */
	assert_int_equal(mc_link_rate(0, 0, 0, 0), 0);
	assert_true(mc_rate_cmp(11, 3) > 0);                       /* 14 > 10 */
	assert_true(mc_rate_cmp(5, 3) < 0);                        /* 5 < 10 */
	assert_int_equal(mc_rate_cmp(0, 0), 0);
	assert_false(mc_rate_valid(25));
	assert_false(mc_rate_valid(1));
}

/* Half of the leaves name a real member and a part of its JoinState. */
static void aim_at_member(const struct mcdb *db, unsigned *seed, struct sa_mcmember_rec *r,
			  struct mc_who *w, uint64_t *mask)
{
	const struct mc_group *g;
	const struct mc_member *m;
	uint64_t guid;

	if (!mcdb_count(db) || rand_r(seed) % 2)
		return;
	g = mcdb_at(db, (size_t)rand_r(seed) % mcdb_count(db));
	if (!g->nmembers)
		return;
	m = &g->members[(size_t)rand_r(seed) % g->nmembers];
	guid = htobe64(m->guid);
	memcpy(r->mgid, g->rec.mgid, 16);
	memcpy(r->port_gid + 8, &guid, 8);
	r->join_state = (uint8_t)(m->join_state & (rand_r(seed) | 1));
	w->requester = m->guid;
	*mask &= ~(MCM_MTU_SEL | MCM_RATE_SEL);
}

/* Invariants after any sequence: groups sorted by MGID and found by
 * MLID, members sorted and counted, full counts right. */
static void check_invariants(const struct mcdb *db)
{
	for (size_t i = 0; i < mcdb_count(db); i++) {
		const struct mc_group *g = mcdb_at(db, i);
		uint32_t full = 0;

		assert_ptr_equal(mcdb_by_mlid(db, g->rec.mlid), g);
		assert_ptr_equal(mcdb_find(db, g->rec.mgid), g);
		if (i)
			assert_true(memcmp(mcdb_at(db, i - 1)->rec.mgid, g->rec.mgid, 16) < 0);
		for (uint32_t k = 0; k < g->nmembers; k++) {
			assert_true(g->members[k].join_state != 0);
			assert_true(k == 0 || g->members[k - 1].guid < g->members[k].guid);
			full += !!(g->members[k].join_state & MC_JOIN_ANY_FULL);
		}
		assert_int_equal(full, g->nfull);
		assert_true(g->well_known || g->nfull);
	}
	assert_true(traps[0] >= traps[1]);
}

static void test_random_requests(void **state)
{
	struct mcdb *db = db_new();
	unsigned seed = 12345, ok[3] = { 0 };

	for (int it = 0; it < 20000; it++) {
		struct sa_mcmember_rec r, resp;
		struct mc_who w;
		uint64_t mask = (uint64_t)rand_r(&seed) << 1 ^ (uint64_t)rand_r(&seed);
		int op = rand_r(&seed) % 3;
		size_t n;

		memset(&r, 0, sizeof(r));
		r = req_for(NULL, ports[rand_r(&seed) % NPORTS].guid + (rand_r(&seed) % 10 == 0),
			    (uint8_t)(rand_r(&seed) & 0xF));
		r.mgid[0] = 0xff;
		r.mgid[1] = (uint8_t)(rand_r(&seed) & 0x3F);
		r.mgid[2] = (uint8_t)(rand_r(&seed) % 2 ? 0x40 : 0xa0);
		r.mgid[3] = 0x1b;
		r.mgid[4] = r.mgid[5] = 0xff;
		r.mgid[15] = (uint8_t)(rand_r(&seed) % 4);
		if (rand_r(&seed) % 4 == 0)
			memset(r.mgid, 0, 16);
		r.pkey = (uint16_t)(rand_r(&seed) % 2 ? 0xffff : rand_r(&seed));
		r.mtu = (uint8_t)(rand_r(&seed) % 8), r.mtu_sel = (uint8_t)(rand_r(&seed) % 4);
		r.rate = (uint8_t)(rand_r(&seed) % 30), r.rate_sel = (uint8_t)(rand_r(&seed) % 4);
		r.mlid = (uint16_t)(0xBFF0 + rand_r(&seed) % 40);
		w.requester = rand_r(&seed) % 5 ? ports[rand_r(&seed) % NPORTS].guid : 0;
		w.trusted = rand_r(&seed) % 2;
		if (op == 0)
			ok[0] += !mcdb_join(db, &w, &r, mask | (rand_r(&seed) % 2 ? MCM_CREATE_MASK : 0),
					    &resp);
		else if (op == 1) {
			aim_at_member(db, &seed, &r, &w, &mask);
			ok[1] += !mcdb_leave(db, &w, &r, mask | MCM_JOIN_MASK, &resp);
		}
		else
			ok[2] += !mcdb_query(db, &w, &r, mask, collect, &(struct collected){ 0 }, &n) && n;
		if (it % 97 == 0)
			mcdb_remove_port(db, ports[rand_r(&seed) % NPORTS].guid);
		if (it % 500 == 0)
			check_invariants(db);
	}
	check_invariants(db);
	print_message("random: %u joins, %u leaves, %u queries with records succeeded\n", ok[0], ok[1],
		      ok[2]);
	assert_true(ok[0] > 100 && ok[1] > 100 && ok[2] > 20);
	mcdb_free(db);
}

/* A saved state comes back as it was: MLIDs as saved, members with their
 * JoinStates and proxy flags, full-member counts right (the last full
 * member's leave deletes the group with trap 67), no trap while
 * restoring, and anything that would break the database refused. */
static void test_restore(void **state)
{
	struct mcdb *db = db_new();
	struct mc_member m[3] = { { 0x1001, MC_JOIN_FULL, false, 0x1001 },
				  { 0x1002, MC_JOIN_NON, true, 0x1004 },
				  { 0x1003, MC_JOIN_SENDONLY_FULL, false, 0x1003 } };
	struct sa_mcmember_rec g, resp;
	const struct mc_group *rg;
	uint8_t mgid2[16];
	uint64_t gen;

	memset(&g, 0, sizeof(g));
	g.mgid[0] = 0xff;
	g.mgid[1] = 0x12;
	g.mgid[2] = 0xa0;
	g.mgid[3] = 0x1b;
	g.mgid[4] = 0xfe;
	g.mgid[5] = 0x80;
	g.mgid[15] = 5;   /* an SA-assigned MGID, counter 5 */
	g.mlid = 0xC007;
	g.qkey = 0x0b1b;
	g.pkey = 0xffff;
	g.mtu = 4;
	g.rate = 3;
	g.scope = 2;
	gen = mcdb_gen(db);
	mcdb_clear(db);
	assert_int_equal(mcdb_count(db), 0);
	assert_true(mcdb_gen(db) != gen);
	rg = mcdb_restore(db, &g, false, 0, m, 3);
	assert_non_null(rg);
	assert_int_equal(rg->nfull, 2);
	assert_int_equal(mcdb_by_mlid(db, 0xC007), rg);
	assert_int_equal(traps[0] + traps[1], 0);
	/* the same MLID, the same MGID, bad members: refused */
	memcpy(mgid2, g.mgid, 16);
	g.mgid[15] = 6;
	assert_null(mcdb_restore(db, &g, false, 0, m, 3));
	g.mlid = 0xC008;
	g.mgid[15] = 5;
	assert_null(mcdb_restore(db, &g, false, 0, m, 3));
	g.mgid[15] = 6;
	m[1].guid = 0x1000;   /* out of GUID order */
	assert_null(mcdb_restore(db, &g, false, 0, m, 3));
	m[1].guid = 0x1002;
	m[2].join_state = 0;
	assert_null(mcdb_restore(db, &g, false, 0, m, 3));
	m[2].join_state = MC_JOIN_SENDONLY_FULL;
	g.mlid = 0xBFFF;
	assert_null(mcdb_restore(db, &g, false, 0, m, 3));
	/* it behaves like any group: the proxy member answers as such */
	assert_int_equal(join(db, 0x1002, mgid2, 0x1002, MC_JOIN_NON, IPOIB_JOIN, &resp), 0);
	assert_int_equal(resp.mlid, 0xC007);
	assert_int_equal(leave(db, 0x1001, mgid2, 0x1001, MC_JOIN_FULL, NULL), 0);
	assert_int_equal(traps[1], 0);
	assert_int_equal(leave(db, 0x1003, mgid2, 0x1003, MC_JOIN_SENDONLY_FULL, NULL), 0);
	assert_int_equal(traps[1], 1);
	assert_null(mcdb_find(db, mgid2));
	/* a new SA-assigned MGID does not retrace a restored one */
	g.mlid = 0xC001;
	g.mgid[15] = 9;
	assert_non_null(mcdb_restore(db, &g, false, 0, m, 1));
	memset(mgid2, 0, sizeof(mgid2));
	assert_int_equal(create(db, mgid2, 0x1001, MC_JOIN_FULL, &resp), 0);
	assert_true(resp.mgid[15] >= 10 && resp.mgid[2] == 0xa0);
	mcdb_free(db);
}


/* --- fair shares ------------------------------------------------------------- */

/* A creating join by requester who (trusted or not) for port guid, with
 * a zero MGID (the SA picks one); the MGID it got into mgid. */
static uint16_t create_as(struct mcdb *db, uint64_t who, bool trusted, uint64_t guid,
			  uint16_t pkey, uint8_t mgid[16])
{
	struct mc_who w = { .requester = who, .trusted = trusted };
	struct sa_mcmember_rec r = req_for(NULL, guid, MC_JOIN_FULL), resp;
	uint16_t st;

	r.pkey = pkey;
	r.qkey = 0x0b1b;
	r.mtu_sel = 2;
	r.mtu = 4;
	r.rate_sel = 2;
	r.rate = 3;
	st = mcdb_join(db, &w, &r, IPOIB_CREATE, &resp);
	if (mgid)
		memcpy(mgid, resp.mgid, 16);
	return st;
}

static void limits(struct mcdb *db, uint32_t groups, uint32_t members, uint32_t part,
		   uint32_t all, uint32_t share)
{
	struct mc_limits l = { groups, members, part, all, share };

	mcdb_set_limits(db, &l);
}

/* Creates are charged to the requester, proxy creates too; past its
 * share it is refused and the reason counted; a leave that deletes a
 * group gives its share back; trusted requesters get a bigger share. */
static void test_quota_groups(void **state)
{
	struct mcdb *db = db_new();
	const struct mc_shares *sh = mcdb_shares(db);
	uint8_t g1[16], g2[16];
	size_t n = mcdb_count(db);

	limits(db, 2, 0, 0, 0, 2);
	assert_int_equal(create_as(db, 0x1001, false, 0x1001, 0xffff, g1), 0);
	assert_int_equal(create_as(db, 0x1001, false, 0x1002, 0xffff, g2), 0);   /* proxy */
	assert_int_equal(mc_share_groups_of(sh, 0x1001), 2);
	assert_int_equal(mc_share_groups_of(sh, 0x1002), 0);
	assert_int_equal(create_as(db, 0x1001, false, 0x1001, 0xffff, NULL),
			 SA_STATUS_NO_RESOURCES);
	assert_int_equal(sh->last, MC_REF_GROUPS_PORT);
	assert_int_equal(sh->refused[MC_REF_GROUPS_PORT], 1);
	assert_int_equal(mcdb_count(db), n + 2);              /* nothing changed */
	assert_int_equal(create_as(db, 0x1002, false, 0x1002, 0xffff, NULL), 0);
	assert_int_equal(sh->last, MC_REF_NONE);
	/* the leave that deletes g1 gives the share back */
	assert_int_equal(leave(db, 0x1001, g1, 0x1001, MC_JOIN_FULL, NULL), 0);
	assert_int_equal(mc_share_groups_of(sh, 0x1001), 1);
	assert_int_equal(create_as(db, 0x1001, false, 0x1001, 0xffff, NULL), 0);
	/* trusted: twice the share */
	assert_int_equal(create_as(db, 0x1001, true, 0x1001, 0xffff, NULL), 0);
	assert_int_equal(create_as(db, 0x1001, true, 0x1001, 0xffff, NULL), 0);
	assert_int_equal(create_as(db, 0x1001, true, 0x1001, 0xffff, NULL),
			 SA_STATUS_NO_RESOURCES);
	/* the SM itself has no share to pass */
	assert_int_equal(create_as(db, 0, false, 0x1003, 0xffff, NULL), 0);
	mcdb_free(db);
}

/* Groups hosts created per partition; the partitions file's do not count. */
static void test_quota_partition(void **state)
{
	struct mcdb *db = db_new();

	limits(db, 0, 0, 1, 0, 1);
	assert_int_equal(create_as(db, 0x1002, false, 0x1002, 0xffff, NULL), 0);
	assert_int_equal(create_as(db, 0x1003, false, 0x1003, 0xffff, NULL), SA_STATUS_NO_RESOURCES);
	assert_int_equal(mcdb_shares(db)->last, MC_REF_GROUPS_PARTITION);
	assert_int_equal(create_as(db, 0x1001, false, 0x1001, 0x8010, NULL), 0);
	assert_int_equal(mc_share_partition(mcdb_shares(db), 0xffff), 1);
	mcdb_free(db);
}

/* Memberships are charged to their maker: a proxy's joins to the proxy;
 * a member that then joins itself takes its own charge over; a leave or
 * a port gone gives it back; the total is bounded too. */
static void test_quota_memberships(void **state)
{
	struct mcdb *db = db_new();
	const struct mc_shares *sh = mcdb_shares(db);

	limits(db, 0, 3, 0, 0, 1);
	for (uint64_t g = 0x1002; g <= 0x1004; g++)
		assert_int_equal(join(db, 0x1001, bcast, g, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_int_equal(mc_share_members_of(sh, 0x1001), 3);
	assert_int_equal(join(db, 0x1001, bcast, 0x1001, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_NO_RESOURCES);
	assert_int_equal(sh->last, MC_REF_MEMBERSHIPS_PORT);
	assert_int_equal(mcdb_find(db, bcast)->nmembers, 3);
	/* 0x1002 joins itself: its membership becomes its own */
	assert_int_equal(join(db, 0x1002, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_int_equal(mc_share_members_of(sh, 0x1001), 2);
	assert_int_equal(mc_share_members_of(sh, 0x1002), 1);
	assert_false(mcdb_find(db, bcast)->members[0].proxy);
	/* and the proxy may no longer change it */
	assert_int_equal(leave(db, 0x1001, bcast, 0x1002, MC_JOIN_FULL, NULL), SA_STATUS_REQ_INVALID);
	assert_int_equal(join(db, 0x1001, bcast, 0x1001, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	/* a leave, a port gone: the charge goes */
	assert_int_equal(leave(db, 0x1001, bcast, 0x1003, MC_JOIN_FULL, NULL), 0);
	assert_int_equal(mc_share_members_of(sh, 0x1001), 2);
	assert_int_equal(mcdb_remove_port(db, 0x1001), 1);
	assert_int_equal(mc_share_members_of(sh, 0x1001), 1);
	assert_int_equal(sh->members, 2);
	/* in all */
	limits(db, 0, 0, 0, 2, 1);
	assert_int_equal(join(db, 0x1003, bcast, 0x1003, MC_JOIN_FULL, IPOIB_JOIN, NULL),
			 SA_STATUS_NO_RESOURCES);
	assert_int_equal(sh->last, MC_REF_MEMBERSHIPS);
	mcdb_free(db);
}

/* When a proxy's port goes, the members it added that never joined
 * themselves go too; a group left without a full member goes with trap
 * 67 and its MLID is free; members that joined themselves stay. */
static void test_remove_made_by(void **state)
{
	struct mcdb *db = db_new();
	const struct mc_shares *sh = mcdb_shares(db);
	uint8_t g1[16], g2[16];
	uint16_t mlid2;

	assert_int_equal(create_as(db, 0x1001, false, 0x1002, 0xffff, g1), 0);
	assert_int_equal(join(db, 0x1003, g1, 0x1003, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_int_equal(create_as(db, 0x1001, false, 0x1004, 0xffff, g2), 0);
	mlid2 = mcdb_find(db, g2)->rec.mlid;
	assert_int_equal(join(db, 0x1001, bcast, 0x1002, MC_JOIN_FULL, IPOIB_JOIN, NULL), 0);
	assert_int_equal(join(db, 0x1001, bcast, 0x1003, MC_JOIN_NON, IPOIB_JOIN, NULL), 0);
	assert_int_equal(mc_share_members_of(sh, 0x1001), 4);
	traps[1] = 0;
	assert_int_equal(mcdb_remove_made_by(db, 0x1005), 0);
	assert_int_equal(mcdb_remove_made_by(db, 0x1001), 4);
	assert_int_equal(mc_share_members_of(sh, 0x1001), 0);
	assert_int_equal(mcdb_find(db, g1)->nmembers, 1);       /* 0x1003 joined itself */
	assert_null(mcdb_find(db, g2));
	assert_null(mcdb_by_mlid(db, mlid2));
	assert_int_equal(traps[1], 2);                          /* g2, and bcast: no full member */
	assert_int_equal(mc_share_groups_of(sh, 0x1001), 1);   /* g1 is still there */
	assert_int_equal(mcdb_find(db, bcast)->nmembers, 0);   /* well known: stays */
	mcdb_free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipoib_broadcast_join),
		cmocka_unit_test(test_join_errors),
		cmocka_unit_test(test_create_rules),
		cmocka_unit_test(test_mgid_validation),
		cmocka_unit_test(test_zero_mgid),
		cmocka_unit_test(test_mlid_alloc_reuse),
		cmocka_unit_test(test_join_state_merge),
		cmocka_unit_test(test_group_lifetime),
		cmocka_unit_test(test_proxy),
		cmocka_unit_test(test_pkey_membership),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_create_realizable),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_remove_port),
		cmocka_unit_test(test_well_known_reload),
		cmocka_unit_test(test_link_rate),
		cmocka_unit_test(test_random_requests),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_quota_groups),
		cmocka_unit_test(test_quota_partition),
		cmocka_unit_test(test_quota_memberships),
		cmocka_unit_test(test_remove_made_by),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
