/*
 * DOC: QoS on the SM: SL2VLMappingTable, VLArbitrationTable and
 * VLHighLimit on every port that takes them (qos.c), and the SL the SA
 * hands out.
 *
 * With the qos option off nothing is written and every path gets SL 0,
 * as OpenSM does (reference sa-mcast-ha.md 7.3). With it on, each port
 * gets the tables sm/qostab.h computes for its class (CA, router, switch
 * port 0, switch external port) from its operational VLs:
 *  - a CA or router port: its SL2VL table (modifier 0) when its
 *    CapabilityMask has IsSLMappingSupported, its VLArbitration blocks;
 *  - a switch: for every output port that is up, the SL2VL table of
 *    every input port 0..N, port 0 included whether enhanced or not (the
 *    switch's own packets enter by it) (modifier in << 8 | out; ibsim
 *    ignores the "all ports" bits, so pairs are written one by one), when
 *    port 0's CapabilityMask has IsSLMappingSupported; the output port's
 *    VLArbitration blocks; port 0 only when SwitchInfo says enhanced
 *    port 0.
 * Programming is a diff as for P_Keys: tables not known are read back
 * (first sight, or the port came up since), only differing ones written,
 * a failed read leaves the table alone.
 */
#ifndef IBSM_SM_QOS_H
#define IBSM_SM_QOS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"

struct sm;

void sm_qos_phase(struct sm *sm, void (*done)(struct sm *));
void sm_qos_free(struct sm *sm);

/* The SL for paths in partition pkey (bit 15 ignored; 0: no partition
 * asked), or -1 when the QoS tables drop every SL somewhere (no usable
 * path). qostab.h qos_path_sl() says how it is chosen. */
int sm_qos_path_sl(const struct sm *sm, uint16_t pkey);
/* The SLs a path may use: bit s set when no port class maps SL s to
 * VL15 (all of them while QoS is off). */
uint16_t sm_qos_sl_mask(const struct sm *sm);

/* What output port num of node node_guid holds, as the SM last read or
 * wrote it (the SA's SL2VLTableRecord and VLArbitrationTableRecord):
 * the SL2VL table for input port in (a CA port: 0), or VLArbitration
 * block block_id (SMP_VLARB_*). false when not known: QoS off (nothing is
 * read then), a table the SM does not program, or a failed read. */
bool sm_qos_sl2vl(const struct sm *sm, uint64_t node_guid, uint8_t num, uint8_t in,
		  struct smp_sl2vl *out);
bool sm_qos_vlarb(const struct sm *sm, uint64_t node_guid, uint8_t num, uint8_t block_id,
		  struct smp_vlarb_block *out);

/* The last phase's counters. */
json_object *sm_qos_json(const struct sm *sm);

#endif
