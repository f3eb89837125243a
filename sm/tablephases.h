/*
 * DOC: the table phases of a sweep, and their state's lifetime.
 *
 * The tables are the rows of one list in tablephases.c (struct
 * table_ops), in order:
 *
 *   P_KeyTables and partition enforcement (pkey.c): written with the
 *     bring-up phase (bringup.c), port by port, so no phase here;
 *   SL2VL + VLArbitration tables (qos.c);
 *   multicast trees and MulticastForwardingTables (mcast.c; multicast
 *     also programs between sweeps, in batches after joins: see mcast.h);
 *   adaptive routing (ar.c).
 *
 * After the bring-up, a heavy sweep or a reroute runs the rows' phases in
 * that order (sm_tables_phase, a phase of sweep.c), each a diff against
 * what the ports hold. Their state outlives fabric generations (keyed by
 * GUID): created by sm_tables_init at start (rows in order; P_Key loads
 * the partitions file, and a file with errors stops the daemon, as a bad
 * ibsmd.conf does), freed by sm_tables_free (rows in reverse, after the
 * MAD engine: its cancellations complete the tables' requests). A reload
 * checks every row's new input before anything is applied
 * (sm_tables_reload_check) and applies it with the rest of the
 * configuration (sm_tables_reload_commit).
 */
#ifndef IBSM_SM_TABLEPHASES_H
#define IBSM_SM_TABLEPHASES_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

#include "conf/conf.h"
#include "mad/smp.h"

struct sm;
struct sm_port;

/* 0, or -1 with the partitions file's errors written to err. */
int sm_tables_init(struct sm *sm, FILE *err);
void sm_tables_free(struct sm *sm);
/* The sweep's table phases, in order; then done(sm). */
void sm_tables_phase(struct sm *sm, void (*done)(struct sm *));

/* Reload, step 1: parse the partitions file nw names. 0, or -1 with the
 * errors in err; nothing changes either way. */
int sm_tables_reload_check(struct sm *sm, const struct sm_conf *nw, char *err, size_t errlen);
/* Step 2, after the new configuration is in sm->conf: every row applies
 * what step 1 checked (the partitions replace the old ones); when one of
 * them or a table option changed, a heavy sweep reprograms the tables.
 * Adds "partitions" and "tables_sweep" to result. */
void sm_tables_reload_commit(struct sm *sm, json_object *result);

/* PortInfo fields the table phases set (tables_pi_set). */
enum tables_pi_field {
	TF_ENFORCE = 1 << 0,     /* PartitionEnforcementInbound/Outbound */
	TF_HIGH_LIMIT = 1 << 1,  /* VLHighLimit */
};

/*
 * A PortInfo Set of port p inside the running phase: w is p's PortInfo
 * with field changed; the other Set-able fields go out with their "no
 * change" encodings (as in portcfg.c), so the link is never retrained.
 * The answer replaces p->pi; a failure makes the sweep unclean. A port
 * that answers without taking the field (ibsim keeps neither enforcement
 * bits nor VLHighLimit) is remembered, and tables_pi_ignored() then tells
 * the caller not to send the same Set every sweep.
 */
void tables_pi_set(struct sm *sm, struct sm_port *p, const struct smp_port_info *w,
		   enum tables_pi_field field);
bool tables_pi_ignored(const struct sm_port *p, enum tables_pi_field field);
/* The answer to a Set that carried field (want) is got: remembers a port
 * that did not take it (tables_pi_ignored). */
void tables_pi_check(const struct sm_port *p, const struct smp_port_info *want,
		     const struct smp_port_info *got, enum tables_pi_field field);

/* Whether the tables of p may have been reset since we last looked: a
 * port that is not Active has come up (or back) since the last sweep
 * activated it, so what we knew about it is void. For switch port 0,
 * true when no linked external port is Active (a rebooted switch). */
bool tables_port_fresh(const struct sm_port *p);

#endif
