/*
 * DOC: the SM's snapshot (fabric/snap.h), built from its fabric and
 * tables at the end of every heavy sweep and reroute (snap_build.c).
 */
#ifndef IBSM_SM_SNAP_BUILD_H
#define IBSM_SM_SNAP_BUILD_H

#include "fabric/snap.h"

struct sm;

/* Builds a snapshot of sm's fabric and tables and makes it current (the
 * previous one loses the SM's reference). */
void sm_snap_publish(struct sm *sm);
/* The current snapshot (borrowed: valid until the next publish, or until
 * the caller's own reference is dropped), NULL before the first sweep. */
const struct sm_snap *sm_snap_current(const struct sm *sm);
/* Drops the SM's unicast tables (sm->routes): freed now, or by the last
 * snapshot that shares them. Leaves sm->routes empty. */
void sm_routes_drop(struct sm *sm);
/* Drops the SM's reference (shutdown). */
void sm_snap_fini(struct sm *sm);

#endif
