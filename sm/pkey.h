/*
 * DOC: partitions on the SM: who is in which partition, and the
 * P_KeyTables and enforcement bits that make it so (pkey.c).
 *
 * The partitions come from partitions_file (conf/partitions.h; OpenSM's
 * syntax and defaults). Every sweep, each port gets the table
 * part_port_pkeys() gives it, laid out over what the port held so that
 * a P_Key keeps its index (pkey_layout): CA and router ports, switch
 * port 0, and, with part_enforce other than off on a switch whose
 * SwitchInfo.PartitionEnforcementCap is not 0, the switch port facing a
 * CA, which gets a copy of that CA's table (a limited P_Key left out when
 * the full one is there, as OpenSM does) and the PortInfo enforcement
 * bits. Inter-switch ports get the bits cleared. (IBA 10.9,
 * 14.2.5.7; OpenSM osm_pkey_mgr.c.) The SM's own port is a full member of
 * the default partition whatever the file says.
 *
 * Programming is a diff: blocks a port was not seen to hold (first sight,
 * or the port came up since: tables_port_fresh) are read back first,
 * then only differing 32-entry blocks are written; a block whose read
 * failed is left alone. A port that no SM has configured since its reset
 * (LID 0, SM LID 0, not Armed or Active; a switch's LID and SM LID are
 * its port 0's) is not read: it holds the reset content, the default
 * P_Key at index 0 and nothing else, unless this SM programmed it before. A table too long for the port is cut to its
 * size (PartitionCap, or the switch's enforcement cap) and logged; a
 * switch port whose copy does not fit is not enforced. The enforcement
 * bits ride on the port's state Set (ARMED or ACTIVE) when its link is
 * walked this sweep, after its table; only a port whose link is up
 * already gets a PortInfo Set of its own for them.
 */
#ifndef IBSM_SM_PKEY_H
#define IBSM_SM_PKEY_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/conf.h"
#include "conf/partitions.h"
#include "mad/smp.h"

#define PKEY_MAX_ENTRIES 2048   /* entries managed per port (64 blocks) */

struct sm;
struct sm_port;
struct sm_snap;

/* At start: load sm->conf.partitions_file (missing: OpenSM's default).
 * 0, or -1 with the errors printed to err. */
int sm_pkey_init(struct sm *sm, FILE *err);
void sm_pkey_free(struct sm *sm);

/* Parse path into *out (fresh); 0, or -1 with errors in err (then *out
 * is empty). Missing file: the default. */
int sm_pkey_stage(const char *path, struct part_config *out, char *err, size_t errlen);
/* Replace the partitions by *staged (taken over, left empty); true when
 * they differ from the old ones. */
bool sm_pkey_commit(struct sm *sm, struct part_config *staged);

/* A reload (tablephases.h): stage the partitions file nw names; 0, or
 * -1 with the errors in err. Nothing changes either way. */
int sm_pkey_reload_check(struct sm *sm, const struct sm_conf *nw, char *err, size_t errlen);
/* Then the staged partitions replace the old ones; adds "partitions":
 * "changed" or "unchanged" to result; true when they changed. */
bool sm_pkey_reload_apply(struct sm *sm, json_object *result);

/* The partitions in force. */
const struct part_config *sm_pkey_config(const struct sm *sm);

/* Within the running phase (sm.h): every port's table read where it is
 * not known, then written where it differs, each port on its own; its
 * link's walk waits for it (activate.h). then(sm) once every port has
 * been started (the reads are submitted a few hundred per loop turn). */
void sm_pkey_prepare(struct sm *sm, void (*then)(struct sm *));
/* Logs the phase's counters (at its end). */
void sm_pkey_log(const struct sm *sm);
/* For the state Set of switch port p (activate.h): sets w's partition
 * enforcement bits and returns true when they are to change. Asked only
 * once p's table is in place. */
bool sm_pkey_enforcement(struct sm *sm, const struct sm_port *p, struct smp_port_info *w);

/* The background audit (audit.h): how many blocks of port p's P_KeyTable
 * it reads (0 where the SM laid out no table for p this sweep), and the
 * read of one of them in the light sweep. A block that differs from the
 * table the SM laid out is written back and logged; ports whose table was
 * taken for the reset content, not read, are found out this way. */
unsigned sm_pkey_audit_blocks(const struct sm *sm, const struct sm_port *p);
void sm_pkey_audit(struct sm *sm, struct sm_port *p, uint16_t block);
/* Right after a sweep (sweep.c): every block of every switch port whose
 * table that sweep (or an earlier one, if not read back since) took for
 * the reset content is read back at once by the audit's path, written
 * back where it differs, and logged. The reads run as a light sweep
 * (light.h). then(sm), if not NULL, once none of them (nor a write-back)
 * is in flight: at once when there is nothing to read. */
void sm_pkey_verify(struct sm *sm, void (*then)(struct sm *));

/* Fills the snapshot's P_Key tables (snap.h): each CA port's and switch
 * port 0's table as the SM gives it. */
void sm_pkey_snap_fill(const struct sm *sm, struct sm_snap *s);

/* Block block of the P_KeyTable port num of node node_guid holds, as the
 * SM last read or wrote it (the SA's P_KeyTableRecord). false when the SM
 * does not know it (a port it does not program, or a failed read). */
bool sm_pkey_held(const struct sm *sm, uint64_t node_guid, uint8_t num, uint16_t block,
		  struct smp_pkey_block *out);

/* For the control socket: the last phase's counters. */
json_object *sm_pkey_json(const struct sm *sm);

#endif
