/*
 * DOC: Subnet Administration MADs: constants, decoded header and records,
 * and their codecs.
 *
 * Wire layouts are in include/ibsm/sa_wire.h; everything here is host
 * order, as in mad/smp.h. Decoders take (buf, len), check the length and
 * return 0 or -EINVAL; encoders write exactly the record's wire size (a
 * GetTableResp pads each record to SA_REC_PADDED(size), the caller leaves
 * the pad zero). Records that embed an SMP attribute (NodeRecord,
 * PortInfoRecord, SwitchInfoRecord, SMInfoRecord) reuse its decoded struct
 * and codec from smp.h; Notice is smp_notice with all 80 bytes.
 *
 * Only layouts live here. Which records exist, who may see them and what
 * matches is the SA's business (sa/); mad/sa_fields.h has the
 * component-mask tables it matches with.
 */
#ifndef IBSM_MAD_SA_H
#define IBSM_MAD_SA_H

#include <stddef.h>
#include <stdint.h>

#include "mad/rmpp.h"
#include "mad/smp.h"

#define MAD_CLASS_SA 0x03
#define SA_CLASS_VERSION 2
#define SA_HDR_SIZE 56
#define SA_DATA_SIZE 200            /* data bytes in one SA MAD */

/* Methods (sa-mcast-ha.md 1.2; OpenSM IB_MAD_METHOD_*). */
#define SA_METHOD_GET 0x01
#define SA_METHOD_SET 0x02
#define SA_METHOD_REPORT 0x06
#define SA_METHOD_GET_TABLE 0x12
#define SA_METHOD_GET_TRACE_TABLE 0x13
#define SA_METHOD_GET_MULTI 0x14
#define SA_METHOD_DELETE 0x15
#define SA_METHOD_GET_RESP 0x81
#define SA_METHOD_REPORT_RESP 0x86
#define SA_METHOD_GET_TABLE_RESP 0x92
#define SA_METHOD_GET_MULTI_RESP 0x94
#define SA_METHOD_DELETE_RESP 0x95

/* Attribute IDs (OpenSM IB_MAD_ATTR_*). */
#define SA_ATTR_CLASS_PORT_INFO 0x0001
#define SA_ATTR_NOTICE 0x0002
#define SA_ATTR_INFORM_INFO 0x0003
#define SA_ATTR_NODE_REC 0x0011
#define SA_ATTR_PORT_INFO_REC 0x0012
#define SA_ATTR_SL2VL_REC 0x0013
#define SA_ATTR_SWITCH_INFO_REC 0x0014
#define SA_ATTR_LFT_REC 0x0015
#define SA_ATTR_MFT_REC 0x0017
#define SA_ATTR_SM_INFO_REC 0x0018
#define SA_ATTR_LINK_REC 0x0020
#define SA_ATTR_GUID_INFO_REC 0x0030
#define SA_ATTR_SERVICE_REC 0x0031
#define SA_ATTR_PKEY_REC 0x0033
#define SA_ATTR_PATH_REC 0x0035
#define SA_ATTR_VLARB_REC 0x0036
#define SA_ATTR_MCMEMBER_REC 0x0038
#define SA_ATTR_TRACE_REC 0x0039
#define SA_ATTR_MULTIPATH_REC 0x003A
#define SA_ATTR_INFORM_INFO_REC 0x00F3
#define SA_ATTR_CLIENTS_INFO 0xFF40     /* ibsmd's own: struct sa_clients_info */

/* MAD status, common part (IBA 13.4.7; OpenSM IB_MAD_STATUS_*). */
#define MAD_STATUS_BUSY 0x0001
#define MAD_STATUS_REDIRECT 0x0002
#define MAD_STATUS_UNSUP_CLASS_VER 0x0004
#define MAD_STATUS_UNSUP_METHOD 0x0008
#define MAD_STATUS_UNSUP_METHOD_ATTR 0x000C
#define MAD_STATUS_INVALID_FIELD 0x001C
/* SA-specific, bits 15..8 (OpenSM IB_SA_MAD_STATUS_*). */
#define SA_STATUS_NO_RESOURCES 0x0100
#define SA_STATUS_REQ_INVALID 0x0200
#define SA_STATUS_NO_RECORDS 0x0300
#define SA_STATUS_TOO_MANY_RECORDS 0x0400
#define SA_STATUS_INVALID_GID 0x0500
#define SA_STATUS_INSUF_COMPS 0x0600
#define SA_STATUS_REQ_DENIED 0x0700
#define SA_STATUS_PRIO_SUGGESTED 0x0800

/* The SA MAD header, decoded (IBA 15.2.1). hdr.d_bit/hop_* stay 0. */
struct sa_hdr {
	struct mad_hdr hdr;
	struct rmpp_hdr rmpp;
	uint64_t sm_key;
	uint16_t attr_offset;       /* record size in 8-byte words */
	uint64_t comp_mask;
};

/* Rejects short input, BaseVersion other than 1 and classes other than
 * 0x03; the class version is left to the SA to answer. */
int sa_hdr_decode(const uint8_t *buf, size_t len, struct sa_hdr *out);
/* Writes SA_HDR_SIZE bytes. */
int sa_hdr_encode(const struct sa_hdr *in, uint8_t *buf, size_t len);

/* The response method for a request method: Get/Set 0x81, GetTable and
 * GetTraceTable 0x92, GetMulti 0x94, Delete 0x95, Report 0x86; anything
 * else gets the response bit. */
uint8_t sa_resp_method(uint8_t req_method);
/* The header of a request: everything 0 but BaseVersion 1, the SA class
 * and its version, method, TID and attribute. */
void sa_req_hdr(struct sa_hdr *h, uint8_t method, uint16_t attr, uint64_t tid);
/* The header of the answer to req: TID, class, version, attribute and
 * modifier echoed exactly, response method, status 0, SM_Key 0 (C15-0.1.5),
 * the given AttributeOffset, no RMPP, ComponentMask echoed. */
void sa_resp_hdr(const struct sa_hdr *req, uint16_t attr_offset, struct sa_hdr *resp);
/* A whole MAD_SIZE error answer to req in buf: req's header with response
 * method, status, SM_Key 0, AttributeOffset 0, no RMPP, data zeroed (OpenSM
 * osm_sa_send_error; it goes out as one MAD, never RMPP). 0 or -EINVAL. */
int sa_error_resp(const struct sa_hdr *req, uint16_t status, uint8_t *buf, size_t len);

/* ClassPortInfo (IBA 13.4.8.1), 72 bytes. */
struct sa_class_port_info {
	uint8_t base_version;
	uint8_t class_version;
	uint16_t cap_mask;
	uint32_t cap_mask2;         /* 27 */
	uint8_t resp_time_value;    /* 5 */
	uint8_t redir_gid[16];
	uint8_t redir_tc;
	uint8_t redir_sl;           /* 4 */
	uint32_t redir_fl;          /* 20 */
	uint16_t redir_lid;
	uint16_t redir_pkey;
	uint32_t redir_qp;          /* 24 */
	uint32_t redir_qkey;
	uint8_t trap_gid[16];
	uint8_t trap_tc;
	uint8_t trap_sl;            /* 4 */
	uint32_t trap_fl;           /* 20 */
	uint16_t trap_lid;
	uint16_t trap_pkey;
	uint8_t trap_hl;
	uint32_t trap_qp;           /* 24 */
	uint32_t trap_qkey;
};

/* NodeRecord, 108 (112 in tables). */
struct sa_node_rec {
	uint16_t lid;
	struct smp_node_info info;
	struct smp_node_desc desc;
};

/* PortInfoRecord, 68 (72). */
struct sa_port_info_rec {
	uint16_t lid;
	uint8_t port_num;
	uint8_t options;
	struct smp_port_info info;
};

/* SL2VLTableRecord, 16. vl[sl] for SL 0..15. */
struct sa_sl2vl_rec {
	uint16_t lid;
	uint8_t in_port;
	uint8_t out_port;
	uint8_t vl[16];
};

/* SwitchInfoRecord, 24. */
struct sa_switch_info_rec {
	uint16_t lid;
	struct smp_switch_info info;
};

/* LinearForwardingTableRecord, 72. */
struct sa_lft_rec {
	uint16_t lid;
	uint16_t block;
	uint8_t port[64];
};

/* MulticastForwardingTableRecord, 72. */
struct sa_mft_rec {
	uint16_t lid;
	uint8_t position;           /* 4 */
	uint16_t block;             /* 9 */
	uint16_t mask[32];
};

/* SMInfoRecord, 25 (32). */
struct sa_sm_info_rec {
	uint16_t lid;
	struct smp_sm_info info;
};

/* LinkRecord, 6 (8). */
struct sa_link_rec {
	uint16_t from_lid;
	uint8_t from_port;
	uint8_t to_port;
	uint16_t to_lid;
};

/* GUIDInfoRecord, 72. */
struct sa_guid_info_rec {
	uint16_t lid;
	uint8_t block;
	uint64_t guid[8];
};

/* ServiceRecord, 176. The name is kept as raw bytes: it need not be
 * NUL-terminated, and matching compares all 64. */
struct sa_service_rec {
	uint64_t id;
	uint8_t gid[16];
	uint16_t pkey;
	uint32_t lease;
	uint8_t key[16];
	uint8_t name[64];
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

/* P_KeyTableRecord, 72. */
struct sa_pkey_rec {
	uint16_t lid;
	uint16_t block;
	uint8_t port_num;
	uint16_t pkey[32];
};

/* PathRecord, 64. Selectors and values are split (2 + 6 bits). */
struct sa_path_rec {
	uint64_t service_id;
	uint8_t dgid[16];
	uint8_t sgid[16];
	uint16_t dlid;
	uint16_t slid;
	uint8_t raw_traffic;        /* 1 */
	uint32_t flow_label;        /* 20 */
	uint8_t hop_limit;
	uint8_t tclass;
	uint8_t reversible;         /* 1 */
	uint8_t numb_path;          /* 7 */
	uint16_t pkey;
	uint16_t qos_class;         /* 12 */
	uint8_t sl;                 /* 4 */
	uint8_t mtu_sel, mtu;       /* 2, 6 */
	uint8_t rate_sel, rate;     /* 2, 6 */
	uint8_t pkt_life_sel, pkt_life; /* 2, 6 */
	uint8_t preference;
};

/* VLArbitrationTableRecord, 72. */
struct sa_vlarb_rec {
	uint16_t lid;
	uint8_t out_port;
	uint8_t block;
	struct {
		uint8_t vl;             /* 4 */
		uint8_t weight;
	} entry[32];
};

/* MCMemberRecord, 52 (56). */
struct sa_mcmember_rec {
	uint8_t mgid[16];
	uint8_t port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel, mtu;       /* 2, 6 */
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_sel, rate;     /* 2, 6 */
	uint8_t pkt_life_sel, pkt_life; /* 2, 6 */
	uint8_t sl;                 /* 4 */
	uint32_t flow_label;        /* 20 */
	uint8_t hop_limit;
	uint8_t scope;              /* 4 */
	uint8_t join_state;         /* 4 */
	uint8_t proxy_join;         /* 1: bit 7 of byte 49, or bit 0 as OpenSM writes it */
};

/* MultiPathRecord, the fixed 24 bytes; the GIDs stay in the buffer. */
struct sa_multipath_rec {
	uint8_t raw_traffic;        /* 1 */
	uint32_t flow_label;        /* 20 */
	uint8_t hop_limit;
	uint8_t tclass;
	uint8_t reversible;         /* 1 */
	uint8_t numb_path;          /* 7 */
	uint16_t pkey;
	uint16_t qos_class;         /* 12 */
	uint8_t sl;                 /* 4 */
	uint8_t mtu_sel, mtu;
	uint8_t rate_sel, rate;
	uint8_t pkt_life_sel, pkt_life;
	uint64_t service_id;        /* ServiceID8MSB and ServiceID56LSB joined */
	uint8_t independence_sel;   /* 2 */
	uint8_t sgid_count;
	uint8_t dgid_count;
};

/* InformInfo (IBA 13.4.8.3), 36. trap_num is the DeviceID and
 * producer_type the VendorID when !is_generic. */
struct sa_inform_info {
	uint8_t gid[16];
	uint16_t lid_begin;
	uint16_t lid_end;
	uint8_t is_generic;
	uint8_t subscribe;
	uint16_t type;
	uint16_t trap_num;
	uint32_t qpn;               /* 24 */
	uint8_t resp_time_value;    /* 5 */
	uint32_t producer_type;     /* 24 */
};

/* InformInfoRecord, 60 (64). */
struct sa_inform_info_rec {
	uint8_t subscriber_gid[16];
	uint16_t subscriber_enum;
	struct sa_inform_info info;
};

/* ClientStateInfo, 48: ibsmd's vendor-specific attribute (sa_wire.h). */
#define SA_CLIENTS_INFO_VERSION 1
struct sa_clients_info {
	uint8_t version;            /* decode: 0 when the magic is not ibsmd's */
	uint64_t sm_guid;
	uint64_t gen;
	uint32_t groups, members, services, subs;
};

/* Record codecs. */
int sa_class_port_info_decode(const uint8_t *buf, size_t len, struct sa_class_port_info *out);
int sa_class_port_info_encode(const struct sa_class_port_info *in, uint8_t *buf, size_t len);
int sa_node_rec_decode(const uint8_t *buf, size_t len, struct sa_node_rec *out);
int sa_node_rec_encode(const struct sa_node_rec *in, uint8_t *buf, size_t len);
int sa_port_info_rec_decode(const uint8_t *buf, size_t len, struct sa_port_info_rec *out);
int sa_port_info_rec_encode(const struct sa_port_info_rec *in, uint8_t *buf, size_t len);
int sa_sl2vl_rec_decode(const uint8_t *buf, size_t len, struct sa_sl2vl_rec *out);
int sa_sl2vl_rec_encode(const struct sa_sl2vl_rec *in, uint8_t *buf, size_t len);
int sa_switch_info_rec_decode(const uint8_t *buf, size_t len, struct sa_switch_info_rec *out);
int sa_switch_info_rec_encode(const struct sa_switch_info_rec *in, uint8_t *buf, size_t len);
int sa_lft_rec_decode(const uint8_t *buf, size_t len, struct sa_lft_rec *out);
int sa_lft_rec_encode(const struct sa_lft_rec *in, uint8_t *buf, size_t len);
int sa_mft_rec_decode(const uint8_t *buf, size_t len, struct sa_mft_rec *out);
int sa_mft_rec_encode(const struct sa_mft_rec *in, uint8_t *buf, size_t len);
int sa_sm_info_rec_decode(const uint8_t *buf, size_t len, struct sa_sm_info_rec *out);
int sa_sm_info_rec_encode(const struct sa_sm_info_rec *in, uint8_t *buf, size_t len);
int sa_link_rec_decode(const uint8_t *buf, size_t len, struct sa_link_rec *out);
int sa_link_rec_encode(const struct sa_link_rec *in, uint8_t *buf, size_t len);
int sa_guid_info_rec_decode(const uint8_t *buf, size_t len, struct sa_guid_info_rec *out);
int sa_guid_info_rec_encode(const struct sa_guid_info_rec *in, uint8_t *buf, size_t len);
int sa_service_rec_decode(const uint8_t *buf, size_t len, struct sa_service_rec *out);
int sa_service_rec_encode(const struct sa_service_rec *in, uint8_t *buf, size_t len);
int sa_pkey_rec_decode(const uint8_t *buf, size_t len, struct sa_pkey_rec *out);
int sa_pkey_rec_encode(const struct sa_pkey_rec *in, uint8_t *buf, size_t len);
int sa_path_rec_decode(const uint8_t *buf, size_t len, struct sa_path_rec *out);
int sa_path_rec_encode(const struct sa_path_rec *in, uint8_t *buf, size_t len);
int sa_vlarb_rec_decode(const uint8_t *buf, size_t len, struct sa_vlarb_rec *out);
int sa_vlarb_rec_encode(const struct sa_vlarb_rec *in, uint8_t *buf, size_t len);
int sa_mcmember_rec_decode(const uint8_t *buf, size_t len, struct sa_mcmember_rec *out);
int sa_mcmember_rec_encode(const struct sa_mcmember_rec *in, uint8_t *buf, size_t len);
int sa_inform_info_decode(const uint8_t *buf, size_t len, struct sa_inform_info *out);
int sa_inform_info_encode(const struct sa_inform_info *in, uint8_t *buf, size_t len);
int sa_inform_info_rec_decode(const uint8_t *buf, size_t len, struct sa_inform_info_rec *out);
int sa_inform_info_rec_encode(const struct sa_inform_info_rec *in, uint8_t *buf, size_t len);
int sa_clients_info_decode(const uint8_t *buf, size_t len, struct sa_clients_info *out);
int sa_clients_info_encode(const struct sa_clients_info *in, uint8_t *buf, size_t len);
int sa_notice_decode(const uint8_t *buf, size_t len, struct smp_notice *out);
int sa_notice_encode(const struct smp_notice *in, uint8_t *buf, size_t len);
/* The MultiPathRecord decoder also checks that len covers all
 * SGIDCount + DGIDCount GIDs; the encoder writes the fixed part only. */
int sa_multipath_rec_decode(const uint8_t *buf, size_t len, struct sa_multipath_rec *out);
int sa_multipath_rec_encode(const struct sa_multipath_rec *in, uint8_t *buf, size_t len);

/* GID i (sources first, then destinations) of the MultiPathRecord in buf.
 * 0, or -EINVAL when i is beyond the counts or the buffer. */
int sa_multipath_gid(const uint8_t *buf, size_t len, unsigned i, uint8_t gid[16]);

#endif
