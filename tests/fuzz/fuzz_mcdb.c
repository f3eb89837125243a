/*
 * DOC: libFuzzer target for the multicast group database (fabric/mcdb.c): the
 * MCMemberRecord joins, leaves and queries the SA will hand it come from
 * any host, so they are fuzzed as a sequence.
 *
 * The input is cut into 64-byte operations: byte 0 picks the operation
 * (join, leave, query, a port going away, a partitions reload, a new MLID
 * limit), byte 1 the requester (0: the SM itself, else one of six fake
 * ports or an unknown one), byte 2 trust, bytes 3..10 the ComponentMask,
 * bytes 12..63 the MCMemberRecord as it comes off the wire
 * (sa_mcmember_rec_decode). Byte 11 makes the PortGID one of the known
 * ports when its low bit is set, since random GUIDs rarely are. After
 * every operation the database's invariants must hold: groups sorted by
 * MGID and found by MLID, members sorted, full-member counts right, no
 * group without a full member unless it is well known, no empty member,
 * MLIDs in range.
 */
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa.h"
#include "routing/mcast.h"
#include "fabric/mcdb.h"

#define OP_SIZE 64
#define NPORTS 6

static const struct {
	uint64_t guid;
	uint8_t mtu, rate;
	uint16_t pkeys[3];
	size_t n;
} ports[NPORTS] = {
	{ 0x11, 4, 3, { 0xffff, 0x8010 }, 2 },
	{ 0x12, 5, 7, { 0xffff }, 1 },
	{ 0x13, 3, 3, { 0x7fff, 0x0010 }, 2 },
	{ 0x14, 4, 16, { 0x8010 }, 1 },
	{ 0x15, 1, 2, { 0x7fff }, 1 },
	{ 0x16, 4, 3, { 0 }, 0 },
};

static bool lookup(void *arg, uint64_t guid, struct mc_port *out)
{
	for (int i = 0; i < NPORTS; i++)
		if (ports[i].guid == guid) {
			out->mtu = ports[i].mtu;
			out->rate = ports[i].rate;
			out->pkeys = ports[i].pkeys;
			out->npkeys = ports[i].n;
			return true;
		}
	return false;
}

static int count_rec(void *arg, const struct sa_mcmember_rec *r)
{
	(*(size_t *)arg)++;
	return 0;
}

static void check(const struct mcdb *db)
{
	for (size_t i = 0; i < mcdb_count(db); i++) {
		const struct mc_group *g = mcdb_at(db, i);
		uint32_t full = 0;

		if (mcdb_by_mlid(db, g->rec.mlid) != g || mcdb_find(db, g->rec.mgid) != g ||
		    g->rec.mlid < MCAST_MLID_MIN || g->rec.mlid > MCAST_MLID_MAX)
			abort();
		if (i && memcmp(mcdb_at(db, i - 1)->rec.mgid, g->rec.mgid, 16) >= 0)
			abort();
		for (uint32_t k = 0; k < g->nmembers; k++) {
			if (!g->members[k].join_state ||
			    (k && g->members[k - 1].guid >= g->members[k].guid))
				abort();
			full += !!(g->members[k].join_state & MC_JOIN_ANY_FULL);
		}
		if (full != g->nfull || (!g->well_known && !g->nfull))
			abort();
	}
}

static void well_known(struct mcdb *db, const struct sa_mcmember_rec *r)
{
	struct sa_mcmember_rec w = *r;

	mcdb_clear_well_known(db);
	w.mgid[0] = 0xff;
	mcdb_well_known(db, &w);
	mcdb_prune(db);
}

static void one(struct mcdb *db, const uint8_t *op)
{
	struct sa_mcmember_rec r, resp;
	struct mc_who w;
	uint64_t mask, g;
	size_t n = 0;

	memcpy(&mask, op + 3, 8);
	if (sa_mcmember_rec_decode(op + 12, OP_SIZE - 12, &r) < 0)
		return;
	if (op[11] & 1) {
		g = htobe64(ports[(op[11] >> 1) % NPORTS].guid);
		memcpy(r.port_gid + 8, &g, 8);
	}
	w.requester = op[1] % 8 == 0 ? 0 : op[1] % 8 == 7 ? 0x99 : ports[op[1] % 8 - 1].guid;
	w.trusted = op[2] & 1;
	switch (op[0] % 8) {
	case 0: case 1: mcdb_join(db, &w, &r, mask, &resp); break;
	case 2: mcdb_leave(db, &w, &r, mask, &resp); break;
	case 3: mcdb_query(db, &w, &r, mask, count_rec, &n, &n); break;
	case 4: mcdb_remove_port(db, ports[op[1] % NPORTS].guid); break;
	case 5: well_known(db, &r); break;
	case 6: mcdb_set_mlid_top(db, (uint16_t)(0xC000 + op[1] % 64)); break;
	default: mcdb_take_dirty(db); break;
	}
	check(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct mcdb_opts o = {
		.subnet_prefix = 0xfe80000000000000ull, .pkt_life = 18, .mlid_top = 0xC01F,
		.port = lookup,
	};
	struct mcdb *db;

	if (len > 64 * OP_SIZE)
		return 0;
	db = mcdb_new(&o);
	for (size_t off = 0; off + OP_SIZE <= len; off += OP_SIZE)
		one(db, data + off);
	mcdb_free(db);
	return 0;
}
