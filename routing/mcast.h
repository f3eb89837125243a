/*
 * DOC: multicast spanning trees and MulticastForwardingTable contents.
 *
 * Pure, like route_compute(): from a const topo, the unicast tables
 * computed for it and a batch of groups (MLID and member ports), one
 * spanning tree per group and, per switch, a port mask per MLID. The SM
 * programs those masks as a diff (mcast_mft_diff), as it does LFTs.
 *
 * Trees use only links the unicast tables use: a switch's upstream port in
 * a tree is its LFT entry for the root switch's LID, or the upstream port
 * it had in the previous tree (opts.prev) while that link and its chain up
 * to the same root still stand and some LFT entry of either end still
 * uses the link. Every switch thus has one "next" hop per group, and the
 * tree is the union of the next-paths from the member switches to the
 * root: paths that meet share the rest of the way, so no switch gets two
 * parents. A switch forwards a multicast packet out of every port of its
 * mask but the one it came in on, so flooding the tree from any member
 * reaches every other member once. (OpenSM's osm_mcast_mgr.c builds the
 * same kind of tree.)
 *
 * Root rule, in this order:
 *  1. one member switch: that switch (no inter-switch link at all);
 *  2. only member switches in the connected part of the fabric holding
 *     most of them count (ties: the part with the lowest-GUID switch);
 *     the others are reported as MCAST_MISS_UNREACH;
 *  3. candidates are switches with a LID the unicast tables route; the
 *     best minimise the largest hop count (BFS over the links) to the
 *     member switches, as OpenSM's osm_mcast_mgr.c does;
 *  4. the previous root of the MLID stays if its tree still stands whole
 *     (every member switch hangs on it through previous upstream ports
 *     that hold: a leave, or a fault elsewhere, changes nothing), or if
 *     it is still among the best. A root that is neither (a spine that
 *     lost its link to a member leaf, a leaf after a second leaf joined)
 *     would send traffic down into it and up again, so the tree is
 *     rebuilt around a best root instead;
 *  5. otherwise, among the best: the one rooting the fewest groups so far
 *     (previous roots of later MLIDs count from the start), then the one
 *     towards which the member switches' first hops (their LFT entries
 *     for its LID) lead nowhere least often, then carry the fewest trees
 *     on the busiest of them, then in sum, then the lowest GUID. Groups
 *     go in MLID order.
 * On a complete fat tree that spreads groups spanning several leaves
 * evenly over the spines, and every member-to-member path goes up to the
 * root's level and down again.
 *
 * Cost per batch: the graph view (switches by GUID), a component label
 * per switch, and per distinct member switch one BFS kept as a row of
 * hop counts (a byte per switch; counts past 254 read as 254); with
 * opts.prev also a pass over every LFT entry to know which links unicast
 * uses. Per group: the best roots are the candidates within d hops of
 * every member switch for the smallest d that leaves any, a bitset
 * narrowed row by row (SSE2 compares 16 hop counts at a time, switches
 * already out are skipped, and a d that fails mostly stops after a few
 * rows): O(member switches x switches / 16) per d tried. The balance
 * looks at each member switch's first hop towards each of the best roots
 * that root the fewest groups, O(those x member switches). The tree
 * costs O(tree + members), each member path walked only up to where it
 * meets the tree.
 */
#ifndef IBSM_ROUTING_MCAST_H
#define IBSM_ROUTING_MCAST_H

#include <stddef.h>
#include <stdint.h>

#include "ibsm/topo.h"
#include "routing/routing.h"

/* Multicast LIDs are 0xC000-0xFFFE; 0xFFFF is the permissive LID. */
#define MCAST_MLID_MIN 0xC000
#define MCAST_MLID_MAX 0xFFFE
#define MCAST_FDB_TOP_NONE 0xBFFF /* MulticastFDBTop when no group is in use */

/* IBA 1.3 vol 1, 14.2.5.12: the MulticastForwardingTable
 * attribute (0x001B). AttributeModifier bits 31..28 = position, 8..0 =
 * block; word i of block b is MLID 0xC000 + 32 * b + i; bit j of position
 * pos is port 16 * pos + j (port 0 is bit 0 of position 0). */
#define MCAST_BLOCK_MLIDS 32
#define MCAST_MAX_BLOCKS 512
#define MCAST_MAX_POS 16

#define MCAST_NO_PARENT UINT32_MAX

struct mcast_member {
	uint32_t node;  /* index into topo.nodes */
	uint8_t port;   /* CA (or router) port 1..nports; 0: the switch itself */
};

struct mcast_group {
	uint16_t mlid;
	uint32_t nmembers;
	const struct mcast_member *members;
};

/* One switch's MFT, holding only MLIDs whose mask is not empty. */
struct mcast_mft {
	uint8_t npos;    /* 16-bit words per MLID: ceil((nports + 1) / 16) */
	uint32_t n;      /* MLIDs held */
	uint32_t cap;
	uint16_t *mlid;  /* n MLIDs, ascending */
	uint16_t *mask;  /* n * npos words, host order, [i * npos + pos] */
};

/* A switch in a tree; entries of one tree list parents before children. */
struct mcast_tsw {
	uint32_t node;    /* topo node index */
	uint64_t guid;
	uint32_t parent;  /* entry of the parent within the tree, MCAST_NO_PARENT: root */
	uint32_t depth;   /* hops from the root */
	uint8_t up;       /* port towards the parent, 0 for the root */
};

struct mcast_tree {
	uint16_t mlid;
	uint32_t root;       /* topo node index, TOPO_NONE: no member reachable */
	uint64_t root_guid;
	uint32_t first, nsw; /* entries in mcast_result.tsw, root first */
	uint32_t depth;      /* hops from the root to the farthest tree switch */
	uint32_t nmembers;   /* member ports the tree reaches */
	uint32_t nmiss;      /* member ports it does not (see mcast_result.miss) */
	uint32_t kept_edges; /* upstream ports taken over from opts.prev */
	uint8_t kept_root;   /* root taken over from opts.prev */
};

enum mcast_miss_why {
	MCAST_MISS_NOLINK = 1, /* member port not linked to a switch */
	MCAST_MISS_UNREACH,    /* its switch has no link path to the root */
	MCAST_MISS_NOROUTE,    /* the unicast tables lead it nowhere or round */
};

struct mcast_miss {
	uint16_t mlid;
	uint32_t member; /* index into that group's members[] */
	uint8_t why;     /* enum mcast_miss_why */
};

struct mcast_result {
	uint32_t nnodes;          /* == topo.nnodes */
	struct mcast_mft *mft;    /* per topo node; switches only (npos 0 otherwise) */
	uint16_t top;             /* highest MLID with a tree, MCAST_FDB_TOP_NONE if none */
	uint32_t ngroups;
	struct mcast_tree *trees; /* one per group, by MLID ascending */
	uint32_t ntsw;
	struct mcast_tsw *tsw;
	uint32_t nmiss;
	struct mcast_miss *miss;  /* by MLID, then member index */
	uint32_t kept_roots;
	uint64_t kept_edges;
	char why[256];            /* what went wrong when mcast_compute fails */
};

struct mcast_opts {
	/* Highest usable MLID: 0xC000 + min(MulticastFDBCap) - 1; 0: 0xFFFE. */
	uint16_t mlid_top;
	/* Previous result (may be NULL, must not be the output): roots and
	 * upstream ports are matched by MLID and GUIDs, so it may come from
	 * an older topo. */
	const struct mcast_result *prev;
};

/*
 * Builds the trees of ngroups groups on t, whose unicast tables are rt
 * (route_compute or route_repair on the same t). Groups may come in any
 * order; members on switches the tree cannot reach are reported in
 * out->miss, not errors. Returns 0, or -1 with out->why set: rt does not
 * match t, an MLID is outside 0xC000..mlid_top or repeated, a member's
 * node or port is out of range (a switch member must be port 0), or the
 * fabric has a duplicate switch GUID. Same input, same output: the order
 * of topo.nodes does not matter.
 */
int mcast_compute(const struct topo *t, const struct route_tables *rt,
		  const struct mcast_group *groups, size_t ngroups,
		  const struct mcast_opts *o, struct mcast_result *out);
void mcast_result_free(struct mcast_result *r);

/* The tree of mlid in r, or NULL. */
const struct mcast_tree *mcast_find_tree(const struct mcast_result *r, uint16_t mlid);

/* An empty table for a switch with nports ports. */
void mcast_mft_init(struct mcast_mft *m, uint8_t nports);
void mcast_mft_free(struct mcast_mft *m);
/* Deep copy into dst (freed first if it holds anything: init it once). */
void mcast_mft_copy(struct mcast_mft *dst, const struct mcast_mft *src);

/* The npos mask words of mlid, or NULL when its mask is empty. */
const uint16_t *mcast_mft_find(const struct mcast_mft *m, uint16_t mlid);

/*
 * The 32 PortMask words (host order; the SMP codec swaps them) of block
 * block, position pos. Returns 0, or -EINVAL for block >= 512 or
 * pos >= 16. Positions the switch's ports do not reach read as zeros.
 */
int mcast_mft_block(const struct mcast_mft *m, uint16_t block, uint8_t pos, uint16_t words[32]);

/*
 * Records what a switch holds in block block, position pos (read with a
 * Get, or written with a Set): MLIDs whose masks become empty drop out.
 * Returns 0, -EINVAL for block >= 512 or pos >= 16, or -ERANGE for a
 * position the table has no word for (pos >= npos).
 */
int mcast_mft_put(struct mcast_mft *m, uint16_t block, uint8_t pos, const uint16_t words[32]);

struct mcast_blockpos {
	uint16_t block;
	uint8_t pos;
};

/*
 * The (block, position) pairs whose 32 words differ between held (what
 * the switch holds) and want, block by block, positions ascending; blocks
 * where either table has an MLID are compared. Writes up to cap of them
 * to out and returns how many there are.
 */
size_t mcast_mft_diff(const struct mcast_mft *held, const struct mcast_mft *want,
		      struct mcast_blockpos *out, size_t cap);

#endif
