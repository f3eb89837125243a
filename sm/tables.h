/*
 * DOC: the table phases of a sweep, and their state's lifetime.
 *
 * P_KeyTables and partition enforcement (pkey.c) go with the bring-up
 * phase (program.c), port by port. After it, before adaptive routing
 * (program.c calls sm_tables_phase instead of sm_ar_phase), a heavy
 * sweep or a reroute runs
 *
 *   SL2VL + VLArbitration tables (qos.c) ->
 *   multicast trees and MulticastForwardingTables (mcast.c) -> sm_ar_phase
 *
 * (Multicast also programs between sweeps, in batches after joins: see
 * mcast.h.)
 *
 * each a diff against what the ports hold. Their state outlives fabric
 * generations (keyed by GUID) and is created by sm_tables_init at start,
 * which also loads the partitions file: a file with errors stops the
 * daemon, as a bad ibsmd.conf does. A reload checks the new partitions
 * file before anything is applied (sm_tables_reload_check) and commits it
 * with the rest of the configuration (sm_tables_reload_commit).
 */
#ifndef IBSM_SM_TABLES_H
#define IBSM_SM_TABLES_H

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
/* The sweep's table phases; ends with sm_ar_phase(). */
void sm_tables_phase(struct sm *sm);

/* Reload, step 1: parse the partitions file nw names. 0, or -1 with the
 * errors in err; nothing changes either way. */
int sm_tables_reload_check(struct sm *sm, const struct sm_conf *nw, char *err, size_t errlen);
/* Step 2, after the new configuration is in sm->conf: the checked
 * partitions replace the old ones; when partitions or table options
 * changed a heavy sweep reprograms the tables. Adds "partitions" and
 * "tables_sweep" to result. */
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
