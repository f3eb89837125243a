/*
 * DOC: on-the-wire layouts of the NVIDIA/Mellanox adaptive-routing SMP
 * attributes (vendor range of the SM class).
 *
 * These are not in the IBA specification. The layouts restate public
 * MLNX_OFED headers (ibis packets_layouts.h, OpenSM ib_types.h):
 * AdaptiveRoutingInfo 0xFF20, AdaptiveRoutingGroupTable 0xFF21, the
 * SwitchX-format AR LFT 0xFF23 and GeneralInfo 0xFF17 (modifier 4, the
 * capability mask).
 * Same rules as mad_wire.h: packed, big-endian typed members, sub-byte
 * fields kept as raw bytes (mad/ar.c unpacks them), sizes asserted.
 */
#ifndef IBSM_AR_WIRE_H
#define IBSM_AR_WIRE_H

#include <linux/types.h>
#include <stdint.h>

#include "ibsm/mad_wire.h"

/* GeneralInfo (0xFF17), modifier 4: the SMP capability mask, 128 bits.
 * Capability bit N is bit N%32 of big-endian word N/32. */
struct ar_gi_caps_wire {
	__be32 cap[4];              /* 0 */
} IBSM_PACKED;
_Static_assert(sizeof(struct ar_gi_caps_wire) == 16, "GeneralInfo caps are 16 bytes");

/* AdaptiveRoutingInfo (0xFF20). Bit numbers: LSB = 0 within the byte. */
struct ar_info_wire {
	uint8_t flags0;             /* 0: rsv:1 dyn_cap_calc_sup:1 by_transp_cap:1 by_sl_en:1
				     *    by_sl_cap:1 glb_groups:1 is4_mode:1 no_fallback:1 */
	uint8_t direction_num_sup;  /* 1 */
	uint8_t sub_grps;           /* 2: group_table_copy_sup:4 sub_grps_active:4 */
	uint8_t flags3;             /* 3: rsv:1 ar_trials:1 rn_xmit_en:1 fr_en:1 is_fr_sup:1
				     *    is_frn_sup:1 is_arn_sup:1 e:1 */
	__be32 caps;                /* 4: string_width_cap:4 group_table_cap:4 group_top:12
				     *    group_cap:12 */
	__be16 enable_by_sl_mask;   /* 8 */
	uint8_t sub_grps_supported; /* 10 */
	uint8_t versions;           /* 11: rn_version_cap:4 ar_version_cap:4 */
	uint8_t reserved1[3];       /* 12 */
	uint8_t by_transport;       /* 15: rsv:4 by_transport_disable:4 */
	__be32 ageing_time_value;   /* 16: microseconds */
	uint8_t hbf[16];            /* 20: HBF/pFRN fields, kept as read */
} IBSM_PACKED;
_Static_assert(sizeof(struct ar_info_wire) == 36, "ARInfo is 36 bytes");

/* AdaptiveRoutingGroupTable (0xFF21): two 256-bit port masks per block.
 * Port p is bit p%8 of byte 31 - p/8 ("network order": byte 31 holds
 * ports 0-7). */
struct ar_group_block_wire {
	uint8_t mask[2][32];        /* 0, 32 */
} IBSM_PACKED;
_Static_assert(sizeof(struct ar_group_block_wire) == 64, "AR group block is 64 bytes");

/* AdaptiveRoutingLinearForwardingTable SX/Rev1 (0xFF23): 16 LIDs per block. */
struct ar_lft_entry_wire {
	uint8_t state_table;        /* 0: LidState:2 rsv:2 TableNumber:4 */
	uint8_t default_port;       /* 1 */
	__be16 group;               /* 2: rsv:4 GroupNumber:12 */
} IBSM_PACKED;
_Static_assert(sizeof(struct ar_lft_entry_wire) == 4, "AR LFT entry is 4 bytes");

struct ar_lft_block_wire {
	struct ar_lft_entry_wire e[16];
} IBSM_PACKED;
_Static_assert(sizeof(struct ar_lft_block_wire) == 64, "AR LFT block is 64 bytes");

#endif
