/*
 * DOC: unknown is not gone: what a lossy sweep could not learn is carried
 * over from the last one.
 *
 * A heavy sweep under MAD loss finds a different subset of the fabric
 * each time. Taking what did not answer as gone would take LIDs and
 * routes away from hosts that are alive, and give them back on the next
 * sweep. So after discovery, the links and nodes of the last generation
 * are brought into the new one wherever this sweep did not *confirm* a
 * change:
 *   - a link is gone only when an end that answered reads Down (or
 *     Polling: PortState Down), or that end now leads to another node;
 *   - a node is carried (marked stale, with what it last reported: LIDs,
 *     PortInfo, tables) when some link to it is carried;
 *   - a port of an answering node whose PortInfo Get failed keeps its last
 *     PortInfo (marked stale).
 * Stale nodes and ports keep their LIDs and the routes to them; nothing
 * is sent to them until they answer again (no Sets, no tables).
 */
#ifndef IBSM_FABRIC_LASTSEEN_H
#define IBSM_FABRIC_LASTSEEN_H

#include "fabric/fabric.h"

struct carry_stats {
	unsigned nodes;      /* stale nodes brought in */
	unsigned links;      /* links brought in */
	unsigned ports;      /* ports of answering nodes given their last PortInfo */
};

/* Carries from old (left untouched but for the switch tables it hands
 * over) into nw, then recomputes nw's DR paths. */
void fabric_carry_unknown(struct sm_fabric *nw, struct sm_fabric *old, struct carry_stats *st);

#endif
