/*
 * DOC: the QoS tables one port should hold, from the configured
 * parameters and the port's VL capabilities (pure; sm/qos.c programs
 * them). IBA 14.2.5.8 (SL2VL), 14.2.5.9 (VLArbitration).
 *
 * A port operating OperVLs (IBA encoding 1 = VL0, 2 = VL0-1, 3 = VL0-3,
 * 4 = VL0-7, 5 = VL0-14) has n = min(those VLs, max_vls) data VLs.
 *  - SL2VL: SL s goes to VL sl2vl[s] when that is below n, to VL
 *    sl2vl[s] mod n otherwise (OpenSM masks with 2^(OperVLs-1)-1 instead,
 *    which for max_vls below the operational VLs can name a VL the port
 *    does not use), and to VL15 (drop) only when the configuration says
 *    15.
 *  - VLArbitration: the configured entries in order, as many as the
 *    port's VLArbitrationLowCap / HighCap hold, the rest VL0 weight 0;
 *    an entry naming a VL >= n gets weight 0. A port with one data VL
 *    has no arbitration table (IBA 14.2.5.9) and gets no tables.
 *  - VLHighLimit: the configured value.
 */
#ifndef IBSM_FABRIC_QOSTAB_H
#define IBSM_FABRIC_QOSTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/qosconf.h"
#include "mad/smp.h"

struct qos_port_tables {
	unsigned data_vls;                 /* n above */
	struct smp_sl2vl sl2vl;
	bool vlarb;                        /* the port takes arbitration tables */
	unsigned nblocks;                  /* blocks below, in SMP_VLARB_* order */
	uint8_t block_id[4];               /* SMP_VLARB_LOW_1 ... */
	struct smp_vlarb_block blocks[4];
	uint8_t high_limit;
};

/* VLs of an OperVLs / VLCap code (0 for codes outside 1..5). */
unsigned qos_vls_of_code(unsigned code);

/* The tables of a port with OperVLs code oper_vls and arbitration table
 * sizes low_cap / high_cap, under p. */
void qos_port_tables(const struct qos_params *p, unsigned oper_vls, unsigned low_cap,
		     unsigned high_cap, struct qos_port_tables *out);

/*
 * The SL paths in a partition get: with QoS off 0 (OpenSM forces the
 * partition's sl to 0 then); with QoS on the partition's sl (part_sl, or
 * 0 when it gives none), provided that no port class maps it to VL15;
 * otherwise the lowest SL no class maps to VL15. -1 when every SL is
 * dropped somewhere: there is no usable path then. classes[] holds the
 * parameters of every port class.
 */
int qos_path_sl(bool qos_on, int part_sl, const struct qos_params classes[QOS_NCLASSES]);

#endif
