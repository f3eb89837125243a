/*
 * DOC: deterministic LID assignment on a struct topo.
 *
 * Used by the daemon (after it put persisted and discovered LIDs into the
 * topo) and by ibsm-route (LIDs from the file, or none).
 */
#ifndef IBSM_ROUTING_LIDS_H
#define IBSM_ROUTING_LIDS_H

#include <stddef.h>
#include <stdint.h>

#include "ibsm/topo.h"

/*
 * Keeps every non-zero LID already in t (switch port 0, linked CA ports)
 * unless it clashes with one kept before it, is out of range, or (CA) is
 * not aligned to 2^lmc: those are cleared and reassigned. Clash order and
 * assignment order are the same: switches by node GUID, then CA ports by
 * port GUID (node GUID, port number on ties), lowest free LID first; CA
 * ports get an aligned block of 2^lmc LIDs and their lmc set; switches one
 * LID (IBA 7.11.1: switch port 0 does not use LMC here). Unlinked CA
 * ports are left alone. Returns 0, or -1 with err set when LIDs run out
 * (TOPO_MAX_UCAST_LID) or lmc > 7.
 */
int topo_fill_lids(struct topo *t, uint8_t lmc, char *err, size_t errlen);

#endif
