/*
 * DOC: on-the-wire layouts of Performance Management MADs (class 0x04).
 *
 * Same rules as mad_wire.h: packed, big-endian typed members, sub-byte
 * fields kept as raw bytes (mad/pma.c unpacks them), sizes asserted.
 * Offsets in comments are byte offsets within the struct. A PerfMgt MAD is
 * the common header, 40 reserved bytes and 192 bytes of attribute data
 * (IBA 1.3 vol 1, 16.1.1). Attribute layouts: IBA 16.1.3.5 (PortCounters,
 * with the QP1Dropped and PortXmitWait words of the 1.2.1 errata and 1.3)
 * and 16.1.4.11 (PortCountersExtended, with the additional error counters
 * that ClassPortInfo:CapabilityMask2 bit 1 announces); the byte offsets were
 * checked against the field table of rdma-core's libibmad (fields.c), the
 * layout infiniband-diags' perfquery decodes with.
 */
#ifndef IBSM_PMA_WIRE_H
#define IBSM_PMA_WIRE_H

#include <linux/types.h>
#include <stdint.h>

#include "ibsm/mad_wire.h"

struct pma_mad_wire {
	struct mad_hdr_wire hdr;    /* 0 */
	uint8_t reserved[40];       /* 24 */
	uint8_t data[192];          /* 64 */
} IBSM_PACKED;
_Static_assert(sizeof(struct pma_mad_wire) == 256, "PerfMgt MAD is 256 bytes");

/* PortCounters (0x0012). All counters stop at all ones (they saturate). */
struct pma_port_counters_wire {
	uint8_t reserved0;          /* 0 */
	uint8_t port_select;        /* 1: 0xFF = every port, when AllPortSelect */
	__be16 counter_select;      /* 2: which counters a Set clears */
	__be16 symbol_err;          /* 4: SymbolErrorCounter */
	uint8_t link_err_recover;   /* 6: LinkErrorRecoveryCounter */
	uint8_t link_downed;        /* 7: LinkDownedCounter */
	__be16 rcv_err;             /* 8: PortRcvErrors */
	__be16 rcv_remote_phys;     /* 10: PortRcvRemotePhysicalErrors */
	__be16 rcv_switch_relay;    /* 12: PortRcvSwitchRelayErrors */
	__be16 xmit_discards;       /* 14: PortXmitDiscards */
	uint8_t xmit_constraint;    /* 16: PortXmitConstraintErrors */
	uint8_t rcv_constraint;     /* 17: PortRcvConstraintErrors */
	uint8_t counter_select2;    /* 18: bit 0 PortXmitWait */
	uint8_t lli_ebo;            /* 19: LocalLinkIntegrityErrors:4 ExcessiveBufferOverrunErrors:4 */
	__be16 qp1_dropped;         /* 20: QP1Dropped */
	__be16 vl15_dropped;        /* 22: VL15Dropped */
	__be32 xmit_data;           /* 24: PortXmitData, in 4-byte words */
	__be32 rcv_data;            /* 28: PortRcvData, in 4-byte words */
	__be32 xmit_pkts;           /* 32: PortXmitPkts */
	__be32 rcv_pkts;            /* 36: PortRcvPkts */
	__be32 xmit_wait;           /* 40: PortXmitWait */
} IBSM_PACKED;
_Static_assert(sizeof(struct pma_port_counters_wire) == 44, "PortCounters is 44 bytes");

/* PortCountersExtended (0x001D): 64-bit counters that do not saturate in
 * practice. Bytes 4..7 and 72..183 are defined only when the PMA's
 * ClassPortInfo:CapabilityMask2 has IsAdditionalPortCountersExtendedSupported;
 * the unicast/multicast counters only when CapabilityMask has
 * IsExtendedWidthSupported (not the NoIETF variant). */
struct pma_port_counters_ext_wire {
	uint8_t reserved0;          /* 0 */
	uint8_t port_select;        /* 1 */
	__be16 counter_select;      /* 2 */
	__be32 counter_select2;     /* 4 */
	__be64 xmit_data;           /* 8: in 4-byte words */
	__be64 rcv_data;            /* 16: in 4-byte words */
	__be64 xmit_pkts;           /* 24 */
	__be64 rcv_pkts;            /* 32 */
	__be64 ucast_xmit_pkts;     /* 40 */
	__be64 ucast_rcv_pkts;      /* 48 */
	__be64 mcast_xmit_pkts;     /* 56 */
	__be64 mcast_rcv_pkts;      /* 64 */
	__be64 symbol_err;          /* 72 */
	__be64 link_err_recover;    /* 80 */
	__be64 link_downed;         /* 88 */
	__be64 rcv_err;             /* 96 */
	__be64 rcv_remote_phys;     /* 104 */
	__be64 rcv_switch_relay;    /* 112 */
	__be64 xmit_discards;       /* 120 */
	__be64 xmit_constraint;     /* 128 */
	__be64 rcv_constraint;      /* 136 */
	__be64 local_link_integrity; /* 144 */
	__be64 excessive_buf_overrun; /* 152 */
	__be64 vl15_dropped;        /* 160 */
	__be64 xmit_wait;           /* 168 */
	__be64 qp1_dropped;         /* 176 */
} IBSM_PACKED;
_Static_assert(sizeof(struct pma_port_counters_ext_wire) == 184,
	       "PortCountersExtended with the additional counters is 184 bytes");

#endif
