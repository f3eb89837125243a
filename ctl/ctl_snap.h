/*
 * DOC: fabric snapshots for change events (ctl/ctl_snap.c).
 *
 * The SM keeps only the latest fabric generation, so the control server
 * keeps a small copy of the previous one (node GUIDs, links) and diffs the
 * two after every sweep to report nodes added/removed and links up/down.
 */
#ifndef IBSM_CTL_SNAP_H
#define IBSM_CTL_SNAP_H

#include <json-c/json.h>

struct sm_fabric;
struct ctl_snap;

typedef void (*ctl_emit_fn)(void *arg, const char *event, json_object *data);

struct ctl_snap *ctl_snap_take(const struct sm_fabric *f);
void ctl_snap_free(struct ctl_snap *s);
/* Calls emit once per difference; data ownership passes to emit. */
void ctl_snap_diff(const struct ctl_snap *old, const struct ctl_snap *nw, ctl_emit_fn emit, void *arg);

#endif
