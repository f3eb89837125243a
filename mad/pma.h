/*
 * DOC: Performance Management (class 0x04): constants, decoded attributes
 * and their codecs.
 *
 * Wire layouts are in include/ibsm/pma_wire.h; everything here is host
 * order, as in mad/smp.h. Decoders take (buf, len), check the length and
 * return 0 or -EINVAL; encoders write exactly the attribute's wire size into
 * a buffer at least that long. pma_reply_decode() is the one parser of what
 * a PMA sends back: it checks the whole MAD before it decodes the attribute.
 * A PMA's ClassPortInfo is the generic one of IBA 13.4.8.1 (mad/sa.h decodes
 * it); only its CapabilityMask bits are PerfMgt's own (IBA 16.1.3.1).
 */
#ifndef IBSM_MAD_PMA_H
#define IBSM_MAD_PMA_H

#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

#define MAD_CLASS_PERF 0x04
#define PMA_CLASS_VERSION 1
#define PMA_DATA_OFFSET 64          /* 24-byte header, then 40 reserved bytes */
#define PMA_DATA_SIZE 192

#define PMA_ATTR_CLASS_PORT_INFO 0x0001
#define PMA_ATTR_PORT_COUNTERS 0x0012
#define PMA_ATTR_PORT_COUNTERS_EXT 0x001D

#define PMA_PORT_SELECT_ALL 0xFF    /* PortSelect of AllPortSelect */

/* ClassPortInfo:CapabilityMask bits of a PMA (IBA 16.1.3.1 and the 1.2.1
 * errata; the same bits libibmad's iba_types.h names IB_PM_*). */
#define PMA_CAP_ALL_PORT_SELECT 0x0100      /* PortSelect 0xFF: every port */
#define PMA_CAP_EXT_WIDTH 0x0200            /* PortCountersExtended, all 8 counters */
#define PMA_CAP_EXT_WIDTH_NOIETF 0x0400     /* PortCountersExtended without the
					     * unicast/multicast counters */
#define PMA_CAP_SAMPLES_ONLY 0x0800
#define PMA_CAP_XMIT_WAIT 0x1000            /* PortCounters:PortXmitWait counts */
#define PMA_CAP_QP1_DROP 0x8000             /* PortCounters:QP1Dropped counts */
/* CapabilityMask2 (27 bits): PortCountersExtended bytes 72..183 exist. */
#define PMA_CAP2_ADDL_PORT_COUNTERS_EXT 0x00000002

/* PortCounters:CounterSelect bits (IBA 16.1.3.5), in field order. */
#define PMA_CS_SYMBOL_ERR 0x0001
#define PMA_CS_LINK_ERR_RECOVER 0x0002
#define PMA_CS_LINK_DOWNED 0x0004
#define PMA_CS_RCV_ERR 0x0008
#define PMA_CS_RCV_REMOTE_PHYS 0x0010
#define PMA_CS_RCV_SWITCH_RELAY 0x0020
#define PMA_CS_XMIT_DISCARDS 0x0040
#define PMA_CS_XMIT_CONSTRAINT 0x0080
#define PMA_CS_RCV_CONSTRAINT 0x0100
#define PMA_CS_LOCAL_LINK_INTEGRITY 0x0200
#define PMA_CS_EXCESSIVE_BUF_OVERRUN 0x0400
#define PMA_CS_VL15_DROPPED 0x0800
#define PMA_CS_XMIT_DATA 0x1000
#define PMA_CS_RCV_DATA 0x2000
#define PMA_CS_XMIT_PKTS 0x4000
#define PMA_CS_RCV_PKTS 0x8000
#define PMA_CS_ERRORS 0x0FFF                /* the twelve error counters */
/* PortCounters:CounterSelect2 bits. */
#define PMA_CS2_XMIT_WAIT 0x01

/* ClassPortInfo of a PMA: the parts a performance manager needs. */
struct pma_class_port_info {
	uint8_t base_version;
	uint8_t class_version;
	uint16_t cap_mask;          /* PMA_CAP_* */
	uint32_t cap_mask2;         /* 27 bits, PMA_CAP2_* */
	uint8_t resp_time_value;    /* 5 */
};

/* PortCounters (IBA 16.1.3.5), 44 bytes; field widths in comments. */
struct pma_port_counters {
	uint8_t port_select;
	uint16_t counter_select;
	uint8_t counter_select2;
	uint16_t symbol_err;
	uint8_t link_err_recover;
	uint8_t link_downed;
	uint16_t rcv_err;
	uint16_t rcv_remote_phys;
	uint16_t rcv_switch_relay;
	uint16_t xmit_discards;
	uint8_t xmit_constraint;
	uint8_t rcv_constraint;
	uint8_t local_link_integrity;   /* 4 */
	uint8_t excessive_buf_overrun;  /* 4 */
	uint16_t qp1_dropped;
	uint16_t vl15_dropped;
	uint32_t xmit_data;             /* 4-byte words */
	uint32_t rcv_data;              /* 4-byte words */
	uint32_t xmit_pkts;
	uint32_t rcv_pkts;
	uint32_t xmit_wait;
};

/* PortCountersExtended (IBA 16.1.4.11): 72 bytes, or 184 with the
 * additional counters. has_errors says whether the input was long enough to
 * carry them (decode; whether the PMA defines them is its CapabilityMask2's
 * business) or whether to write them (encode). */
struct pma_port_counters_ext {
	uint8_t port_select;
	uint16_t counter_select;
	uint32_t counter_select2;
	uint64_t xmit_data;             /* 4-byte words */
	uint64_t rcv_data;              /* 4-byte words */
	uint64_t xmit_pkts;
	uint64_t rcv_pkts;
	uint64_t ucast_xmit_pkts;
	uint64_t ucast_rcv_pkts;
	uint64_t mcast_xmit_pkts;
	uint64_t mcast_rcv_pkts;
	uint8_t has_errors;
	uint64_t symbol_err;
	uint64_t link_err_recover;
	uint64_t link_downed;
	uint64_t rcv_err;
	uint64_t rcv_remote_phys;
	uint64_t rcv_switch_relay;
	uint64_t xmit_discards;
	uint64_t xmit_constraint;
	uint64_t rcv_constraint;
	uint64_t local_link_integrity;
	uint64_t excessive_buf_overrun;
	uint64_t vl15_dropped;
	uint64_t xmit_wait;
	uint64_t qp1_dropped;
};

#define PMA_PCE_BASE_SIZE 72
#define PMA_PCE_FULL_SIZE 184

int pma_class_port_info_decode(const uint8_t *buf, size_t len, struct pma_class_port_info *out);
int pma_port_counters_decode(const uint8_t *buf, size_t len, struct pma_port_counters *out);
int pma_port_counters_encode(const struct pma_port_counters *in, uint8_t *buf, size_t len);
/* len >= 184 decodes the additional counters too (has_errors = 1). */
int pma_port_counters_ext_decode(const uint8_t *buf, size_t len, struct pma_port_counters_ext *out);
/* Writes 72 bytes, or 184 when in->has_errors. */
int pma_port_counters_ext_encode(const struct pma_port_counters_ext *in, uint8_t *buf, size_t len);

/* A request to a PMA: Get of ClassPortInfo (port_select unused),
 * PortCounters or PortCountersExtended, or a PortCounters Set that clears
 * the counters counter_select/counter_select2 name (to zero). */
struct pma_req {
	uint8_t method;             /* MAD_METHOD_GET or MAD_METHOD_SET */
	uint16_t attr_id;
	uint8_t port_select;
	uint16_t counter_select;    /* Set of PortCounters only */
	uint8_t counter_select2;    /* Set of PortCounters only */
	uint64_t tid;
};

/* The data area (PMA_DATA_SIZE bytes) of req: what a GMP sender puts after
 * the header and the 40 reserved bytes. -EINVAL for an attribute or method
 * this module does not send. */
int pma_req_data(const struct pma_req *req, uint8_t *data, size_t len);
/* A whole MAD_SIZE request: header (class 0x04 version 1, attribute
 * modifier 0) and data. */
int pma_req_encode(const struct pma_req *req, uint8_t *buf, size_t len);

/* What a PMA answered. status is the MAD status; the attribute is decoded
 * only when it is 0, into the member attr_id names. */
struct pma_reply {
	uint64_t tid;
	uint16_t status;
	uint16_t attr_id;
	uint8_t method;
	union {
		struct pma_class_port_info cpi;
		struct pma_port_counters pc;
		struct pma_port_counters_ext pce;
	} u;
};

/* Parses a whole MAD from a PMA: at least PMA_DATA_OFFSET + the attribute's
 * size bytes, BaseVersion 1, class 0x04 version 1, method GetResp, one of
 * the three attributes above. 0, or -EINVAL for anything else (a short,
 * foreign or malformed MAD); -EPROTO for a well-formed answer about an
 * attribute we never ask for. */
int pma_reply_decode(const uint8_t *mad, size_t len, struct pma_reply *out);

/* An answer to req from a PMA, for tests and test agents: GetResp with
 * req's TID, status and the attribute in `attr` (a struct pma_port_counters,
 * pma_port_counters_ext or pma_class_port_info, by req->attr_id). */
int pma_resp_encode(const struct pma_req *req, uint16_t status, const void *attr, uint8_t *buf,
		    size_t len);

#endif
