/*
 * DOC: what we programmed is the reference: LFT drift is written back.
 *
 * A heavy sweep that reads an LFT block back (an operator's sweep reads
 * every block) compares it with what we knew the switch held, which after
 * our write phase is our routes. A block that differs was changed behind
 * our back: it is marked LFT_DRIFTED, and the write phase writes it back
 * and logs it (drift_written).
 *
 * Routing after a sweep that lost links, or changed none, repairs the
 * previous routes with minimal change (routing/repair.h). The previous
 * routes are our own whenever we have them for the link set the switches
 * were programmed with (drift_prev_routes), so a switch's changed content
 * never seeds the repair and is simply written back. Only when we have no
 * routes of our own does what the switches hold seed the repair: on a
 * takeover from another SM, on a restart with the links file (we do not
 * keep LFTs on disk, so the tables the switches hold are then the best
 * knowledge of the routes we computed before; a change made while no SM
 * ran is taken as ours), and on a restart without it (no link history: the
 * switches' tables are the only record of the routes in use). When no
 * switch holds any table either (a new or power-cycled fabric) there is
 * nothing to keep and the routes are computed afresh (program.c).
 */
#ifndef IBSM_SM_DRIFT_H
#define IBSM_SM_DRIFT_H

#include <stdbool.h>
#include <stdint.h>

#include "routing/routing.h"

struct sm;
struct sm_node;

/* Whether the block state says we know what the switch holds. */
bool lft_block_known(uint8_t state);
/* How many of two LFT blocks' 64 entries differ. */
unsigned lft_differing(const uint8_t *a, const uint8_t *b);

/*
 * The previous tables for route_repair, in the node order of sm->fabric,
 * top + 1 entries each (copies: the routing worker shares no memory with
 * the loop). Our own routes (matched by node GUID, LIDs above our top
 * missing): true. Without routes of our own (none yet, routing failed,
 * this sweep takes over from another SM) what the switches hold, a switch
 * whose blocks we do not all know holding nothing: false.
 */
bool drift_prev_routes(const struct sm *sm, uint16_t top, struct route_tables *prev);

/* Block b of n was read back this sweep other than we knew it, and want is
 * what our routes put there: counts and logs the entries it gets back
 * (the first DRIFT_LOG_MAX blocks of a sweep one line each), and marks the
 * block's content known. */
void drift_written(struct sm *sm, struct sm_node *n, unsigned b, const uint8_t want[64]);
/* The sweep's total, logged once when any block drifted. */
void drift_summary(const struct sm *sm);

#endif
