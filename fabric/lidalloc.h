/*
 * DOC: the LID allocator: which LID each port gets, never one that two
 * ports could hold at the same moment.
 *
 * Input is one claim per port that holds or needs a LID (switch port 0,
 * CA ports), with the LID the port holds now as last read (0 when none or
 * unknown), and the state file (liddb.h). A LID is taken, and never handed
 * to a port that does not already own it, when
 *   - the state file reserves it for any GUID, present or not (a node that
 *     did not answer, a powered-off host, a replaced HCA keep theirs), or
 *   - any port holds it now, whether we assigned it or not (a port of a
 *     node that did not answer this sweep counts with what it held).
 * Each claim then gets, in this order:
 *   1. its reservation, unless another port holds that LID now: that port
 *      is moved to a new LID, and this one keeps what it holds until the
 *      move is confirmed by the next sweep (never two holders at once);
 *   2. else the LID it holds, if no reservation names another GUID and no
 *      earlier claim (switches before CAs, then by GUID) holds it too;
 *   3. else the lowest free aligned range, in that same order. A port that
 *      holds nothing we know of and has no reservation gets none (it could
 *      hold anything: we only learn that by reading it).
 * When the LID space runs short, the oldest reservations of GUIDs that are
 * not among the claims are released first, one by one, and logged.
 * Excluded claims (a port whose GUID another port also claims) hold their
 * LID against everybody but get none.
 */
#ifndef IBSM_FABRIC_LIDALLOC_H
#define IBSM_FABRIC_LIDALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/liddb.h"

struct lid_claim {
	uint64_t guid;       /* port GUID */
	uint64_t order;      /* tie-break after the GUID: node GUID << 8 | port */
	uint16_t held;       /* base LID the port holds now; 0 none */
	uint8_t held_lmc;    /* and its LMC */
	bool held_known;     /* false: we could not read what it holds */
	uint8_t lmc;         /* LMC it must get (0 for switch port 0) */
	bool is_switch;
	bool exclude;        /* holds, never gets (duplicate GUID) */
	uint16_t lid;        /* out: LID to use now, 0 none */
};

struct lid_alloc_stats {
	unsigned reserved;   /* got their state-file LID */
	unsigned kept;       /* kept the LID they hold (no reservation) */
	unsigned fresh;      /* got a new LID */
	unsigned waiting;    /* their reserved LID is held by another port */
	unsigned moved;      /* held a LID reserved for or kept by another port */
	unsigned none;       /* got nothing (unknown, excluded, or LIDs ran out) */
	unsigned released;   /* reservations of absent GUIDs released */
};

/*
 * Decides claims[i].lid for every claim and records the result in db
 * (last-seen now, Unix seconds). Returns 0, or -1 when the LID space ran
 * out even after releasing every absent reservation (claims that found
 * none have lid 0). Logs conflicts and releases.
 */
int lid_alloc(struct lid_db *db, struct lid_claim *claims, size_t n, uint64_t now,
	      struct lid_alloc_stats *st);

#endif
