/*
 * DOC: duplicate GUIDs: the owner we already know keeps its LID and its
 * routes, the newcomer is left out and reported.
 *
 * Node GUIDs: discovery flags a GUID that two nodes answer with (a second
 * port 0 GUID for one switch GUID, a port linked twice, another kind of
 * node). Discovery read the node along the path that first found it. If
 * that path ends where the last sweep had this GUID, what was read is the
 * known node's: it stays, with only the links the last sweep knew (any
 * other link may be the newcomer's). Otherwise it is dropped with what only
 * it leads to, and carry.c brings the known one back as it last saw it.
 * Either way the newcomer stays out. On a fresh start neither is known:
 * both stay out until the conflict is resolved.
 *
 * Port GUIDs: two ports (of different nodes) with one port GUID. The one
 * that held it in the last sweep (same node GUID and port) keeps it; the
 * others get no LID and no routes. With no history the lowest node GUID
 * keeps it.
 */
#ifndef IBSM_SM_DUPS_H
#define IBSM_SM_DUPS_H

#include "sm/fabric.h"

/* Settles nodes flagged dup_guid against old (may be NULL) and drops what
 * only dropped nodes lead to; returns the number of nodes dropped. */
unsigned dups_drop_nodes(struct sm_fabric *f, const struct sm_fabric *old);
/* Marks ports whose port GUID another port of nw holds (dup_guid), old
 * deciding who keeps it; records the conflicts. Returns ports marked. */
unsigned dups_mark_ports(struct sm_fabric *nw, const struct sm_fabric *old);
/* One log line per recorded conflict, naming both places. */
void dups_log(const struct sm_fabric *f);

#endif
