/*
 * DOC: duplicate GUIDs: the owner we already know keeps its LID and its
 * routes, the newcomer is left out and reported.
 *
 * Node GUIDs: discovery flags a GUID that two nodes answer with (a second
 * port 0 GUID for one switch GUID, a port linked twice, another kind of
 * node). Discovery read the node along the path that first found it. If
 * the last sweep had this GUID elsewhere, that node is the newcomer: it is
 * dropped with what only it leads to, and lastseen.c brings the known one back
 * as it last saw it. Otherwise (found at its known place, or no history:
 * the first found is taken as the owner) it stays, keeping only the links
 * that are surely its own: found by queries through it, the one it was
 * found through, or known to the last sweep. Another node's query that
 * landed on its GUID may have met the newcomer. Either way the newcomer
 * stays out.
 *
 * Port GUIDs: two ports (of different nodes) with one port GUID. The one
 * that held it in the last sweep (same node GUID and port) keeps it; the
 * others get no LID and no routes. With no history the lowest node GUID
 * keeps it.
 */
#ifndef IBSM_FABRIC_DUPGUID_H
#define IBSM_FABRIC_DUPGUID_H

#include "fabric/fabric.h"

/* Settles nodes flagged dup_guid against old (may be NULL) and drops what
 * only dropped nodes lead to; returns the number of nodes dropped. */
unsigned dups_drop_nodes(struct sm_fabric *f, const struct sm_fabric *old);
/* Marks ports whose port GUID another port of nw holds (dup_guid), old
 * deciding who keeps it; records the conflicts. Returns ports marked. */
unsigned dups_mark_ports(struct sm_fabric *nw, const struct sm_fabric *old);
/* One log line per recorded conflict, naming both places. */
void dups_log(const struct sm_fabric *f);

#endif
