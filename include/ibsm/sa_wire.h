/*
 * DOC: on-the-wire layouts of Subnet Administration MADs and SA records.
 *
 * Same rules as mad_wire.h: packed, big-endian typed members, sub-byte
 * fields kept as raw bytes (mad/sa.c unpacks them), sizes asserted.
 * Offsets in comments are byte offsets within the struct. Records are the
 * unpadded wire size; in a GetTableResp each is padded to a multiple of 8
 * bytes (SA_REC_PADDED) and AttributeOffset is that padded size / 8.
 * Layouts: IBA 1.3 vol 1 15.2.1 (SA MAD), 13.6.2 (RMPP header), 15.2.5
 * (SA records), 13.4.8 (ClassPortInfo, InformInfo). The specification was
 * not at hand: every layout was checked against the OpenSM type named next
 * to it (include/iba/ib_types.h at fa74b98c), PathRecord and MCMemberRecord
 * also against the Linux sa_query.c field tables; see
 * /work/shared/reference/sa-mcast-ha.md sections 1-3.
 */
#ifndef IBSM_SA_WIRE_H
#define IBSM_SA_WIRE_H

#include <linux/types.h>
#include <stdint.h>

#include "ibsm/mad_wire.h"

#define SA_REC_PADDED(size) (((size) + 7u) & ~7u)

/* IBA 13.6.2: the RMPP header, bytes 24..35 of every RMPP class MAD
 * (OpenSM ib_rmpp_mad_t). */
struct rmpp_hdr_wire {
	uint8_t version;            /* 0: 1, or 0 when RMPP is not used */
	uint8_t type;               /* 1: DATA 1, ACK 2, STOP 3, ABORT 4 */
	uint8_t rtime_flags;        /* 2: RRespTime:5 Flags:3 (Last 4, First 2, Active 1) */
	uint8_t status;             /* 3 */
	__be32 data1;               /* 4: SegmentNumber (DATA, ACK) */
	__be32 data2;               /* 8: PayloadLength (DATA), NewWindowLast (ACK) */
} IBSM_PACKED;
_Static_assert(sizeof(struct rmpp_hdr_wire) == 12, "RMPP header is 12 bytes");

/* IBA 15.2.1: the SA MAD header (OpenSM ib_sa_mad_t without data). */
struct sa_hdr_wire {
	struct mad_hdr_wire hdr;    /* 0 */
	struct rmpp_hdr_wire rmpp;  /* 24 */
	__be64 sm_key;              /* 36 */
	__be16 attr_offset;         /* 44: record size in 8-byte words */
	__be16 reserved;            /* 46 */
	__be64 comp_mask;           /* 48 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_hdr_wire) == 56, "SA header is 56 bytes");

struct sa_mad_wire {
	struct sa_hdr_wire sa;      /* 0 */
	uint8_t data[200];          /* 56 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_mad_wire) == 256, "SA MAD is 256 bytes");

/* ClassPortInfo (0x0001; IBA 13.4.8.1, OpenSM ib_class_port_info_t). */
struct class_port_info_wire {
	uint8_t base_version;       /* 0 */
	uint8_t class_version;      /* 1 */
	__be16 cap_mask;            /* 2 */
	__be32 cap_mask2_resp_time; /* 4: CapabilityMask2:27 RespTimeValue:5 */
	uint8_t redir_gid[16];      /* 8 */
	__be32 redir_tc_sl_fl;      /* 24: TC:8 SL:4 FlowLabel:20 */
	__be16 redir_lid;           /* 28 */
	__be16 redir_pkey;          /* 30 */
	__be32 redir_qp;            /* 32: rsv:8 QP:24 */
	__be32 redir_qkey;          /* 36 */
	uint8_t trap_gid[16];       /* 40 */
	__be32 trap_tc_sl_fl;       /* 56: TC:8 SL:4 FlowLabel:20 */
	__be16 trap_lid;            /* 60 */
	__be16 trap_pkey;           /* 62 */
	__be32 trap_hl_qp;          /* 64: HopLimit:8 QP:24 */
	__be32 trap_qkey;           /* 68 */
} IBSM_PACKED;
_Static_assert(sizeof(struct class_port_info_wire) == 72, "ClassPortInfo is 72 bytes");

/* NodeRecord (0x0011; OpenSM ib_node_record_t). */
struct sa_node_rec_wire {
	__be16 lid;                 /* 0 */
	__be16 reserved;            /* 2 */
	struct node_info_wire node_info; /* 4 */
	struct node_desc_wire node_desc; /* 44 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_node_rec_wire) == 108, "NodeRecord is 108 bytes");

/* PortInfoRecord (0x0012; ib_portinfo_record_t). */
struct sa_port_info_rec_wire {
	__be16 endport_lid;         /* 0 */
	uint8_t port_num;           /* 2 */
	uint8_t options;            /* 3 */
	struct port_info_wire port_info; /* 4 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_port_info_rec_wire) == 68, "PortInfoRecord is 68 bytes");

/* SL2VLTableRecord (0x0013; ib_slvl_table_record_t). */
struct sa_sl2vl_rec_wire {
	__be16 lid;                 /* 0 */
	uint8_t in_port;            /* 2 */
	uint8_t out_port;           /* 3 */
	uint8_t reserved[4];        /* 4 */
	uint8_t sl2vl[8];           /* 8: SL 2i in the high nibble of byte i */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_sl2vl_rec_wire) == 16, "SL2VLTableRecord is 16 bytes");

/* SwitchInfoRecord (0x0014; ib_switch_info_record_t). */
struct sa_switch_info_rec_wire {
	__be16 lid;                 /* 0 */
	__be16 reserved;            /* 2 */
	struct switch_info_wire switch_info; /* 4 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_switch_info_rec_wire) == 24, "SwitchInfoRecord is 24 bytes");

/* LinearForwardingTableRecord (0x0015; ib_lft_record_t). */
struct sa_lft_rec_wire {
	__be16 lid;                 /* 0 */
	__be16 block;               /* 2 */
	uint8_t reserved[4];        /* 4 */
	uint8_t port[64];           /* 8 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_lft_rec_wire) == 72, "LFTRecord is 72 bytes");

/* MulticastForwardingTableRecord (0x0017; ib_mft_record_t). */
struct sa_mft_rec_wire {
	__be16 lid;                 /* 0 */
	__be16 pos_block;           /* 2: Position:4 rsv:3 BlockNum:9 */
	uint8_t reserved[4];        /* 4 */
	__be16 mask[32];            /* 8 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_mft_rec_wire) == 72, "MFTRecord is 72 bytes");

/* SMInfoRecord (0x0018; ib_sminfo_record_t). */
struct sa_sm_info_rec_wire {
	__be16 lid;                 /* 0 */
	__be16 reserved;            /* 2 */
	struct sm_info_wire sm_info; /* 4 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_sm_info_rec_wire) == 25, "SMInfoRecord is 25 bytes");

/* LinkRecord (0x0020; ib_link_record_t). */
struct sa_link_rec_wire {
	__be16 from_lid;            /* 0 */
	uint8_t from_port;          /* 2 */
	uint8_t to_port;            /* 3 */
	__be16 to_lid;              /* 4 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_link_rec_wire) == 6, "LinkRecord is 6 bytes");

/* GUIDInfoRecord (0x0030; ib_guidinfo_record_t). */
struct sa_guid_info_rec_wire {
	__be16 lid;                 /* 0 */
	uint8_t block;              /* 2 */
	uint8_t reserved1;          /* 3 */
	uint8_t reserved2[4];       /* 4 */
	__be64 guid[8];             /* 8 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_guid_info_rec_wire) == 72, "GUIDInfoRecord is 72 bytes");

/* ServiceRecord (0x0031; ib_service_record_t). */
struct sa_service_rec_wire {
	__be64 id;                  /* 0 */
	uint8_t gid[16];            /* 8 */
	__be16 pkey;                /* 24 */
	__be16 reserved;            /* 26 */
	__be32 lease;               /* 28: seconds, 0xFFFFFFFF = infinite */
	uint8_t key[16];            /* 32 */
	uint8_t name[64];           /* 48: UTF-8, NUL-padded */
	uint8_t data8[16];          /* 112 */
	__be16 data16[8];           /* 128 */
	__be32 data32[4];           /* 144 */
	__be64 data64[2];           /* 160 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_service_rec_wire) == 176, "ServiceRecord is 176 bytes");

/* P_KeyTableRecord (0x0033; ib_pkey_table_record_t). */
struct sa_pkey_rec_wire {
	__be16 lid;                 /* 0 */
	__be16 block;               /* 2 */
	uint8_t port_num;           /* 4 */
	uint8_t reserved[3];        /* 5 */
	__be16 pkey[32];            /* 8 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_pkey_rec_wire) == 72, "P_KeyTableRecord is 72 bytes");

/* PathRecord (0x0035; ib_path_rec_t, Linux sa_query.c path_rec_table). */
struct sa_path_rec_wire {
	__be64 service_id;          /* 0 */
	uint8_t dgid[16];           /* 8 */
	uint8_t sgid[16];           /* 24 */
	__be16 dlid;                /* 40 */
	__be16 slid;                /* 42 */
	__be32 raw_flow_hop;        /* 44: RawTraffic:1 rsv:3 FlowLabel:20 HopLimit:8 */
	uint8_t tclass;             /* 48 */
	uint8_t rev_numpath;        /* 49: Reversible:1 NumbPath:7 */
	__be16 pkey;                /* 50 */
	__be16 qos_sl;              /* 52: QoSClass:12 SL:4 */
	uint8_t mtu;                /* 54: Selector:2 MTU:6 */
	uint8_t rate;               /* 55: Selector:2 Rate:6 */
	uint8_t pkt_life;           /* 56: Selector:2 PacketLifeTime:6 */
	uint8_t preference;         /* 57 */
	uint8_t reserved[6];        /* 58 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_path_rec_wire) == 64, "PathRecord is 64 bytes");

/* VLArbitrationTableRecord (0x0036; ib_vl_arb_table_record_t). */
struct sa_vlarb_rec_wire {
	__be16 lid;                 /* 0 */
	uint8_t out_port;           /* 2 */
	uint8_t block;              /* 3: 1..4 */
	uint8_t reserved[4];        /* 4 */
	uint8_t entry[32][2];       /* 8: rsv:4 VL:4, Weight */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_vlarb_rec_wire) == 72, "VLArbitrationTableRecord is 72 bytes");

/* MCMemberRecord (0x0038; ib_member_rec_t, sa_query.c mcmember_rec_table). The IBA puts ProxyJoin in bit 7
 * of byte 49; OpenSM and rdma-core declare it as a C bitfield that GCC
 * places in bit 0 (see the reference, section 3). */
struct sa_mcmember_rec_wire {
	uint8_t mgid[16];           /* 0 */
	uint8_t port_gid[16];       /* 16 */
	__be32 qkey;                /* 32 */
	__be16 mlid;                /* 36 */
	uint8_t mtu;                /* 38: Selector:2 MTU:6 */
	uint8_t tclass;             /* 39 */
	__be16 pkey;                /* 40 */
	uint8_t rate;               /* 42: Selector:2 Rate:6 */
	uint8_t pkt_life;           /* 43: Selector:2 PacketLifeTime:6 */
	__be32 sl_flow_hop;         /* 44: SL:4 FlowLabel:20 HopLimit:8 */
	uint8_t scope_state;        /* 48: Scope:4 JoinState:4 */
	uint8_t proxy_join;         /* 49: ProxyJoin:1 rsv:7 */
	uint8_t reserved[2];        /* 50 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_mcmember_rec_wire) == 52, "MCMemberRecord is 52 bytes");

/* MultiPathRecord (0x003A; ib_multipath_rec_t), the fixed part. SGIDCount
 * source GIDs and then DGIDCount destination GIDs follow from byte 24. */
struct sa_multipath_rec_wire {
	__be32 raw_flow_hop;        /* 0: RawTraffic:1 rsv:3 FlowLabel:20 HopLimit:8 */
	uint8_t tclass;             /* 4 */
	uint8_t rev_numpath;        /* 5: Reversible:1 NumbPath:7 */
	__be16 pkey;                /* 6 */
	__be16 qos_sl;              /* 8: QoSClass:12 SL:4 */
	uint8_t mtu;                /* 10: Selector:2 MTU:6 */
	uint8_t rate;               /* 11: Selector:2 Rate:6 */
	uint8_t pkt_life;           /* 12: Selector:2 PacketLifeTime:6 */
	uint8_t service_id_msb;     /* 13: ServiceID bits 63..56 */
	uint8_t independence;       /* 14: IndependenceSelector:2 rsv:6 */
	uint8_t sgid_count;         /* 15 */
	uint8_t dgid_count;         /* 16 */
	uint8_t service_id_lsb[7];  /* 17: ServiceID bits 55..0 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_multipath_rec_wire) == 24, "MultiPathRecord fixed part is 24 bytes");

/* InformInfo (0x0003; IBA 13.4.8.3, OpenSM ib_inform_info_t). */
struct inform_info_wire {
	uint8_t gid[16];            /* 0 */
	__be16 lid_begin;           /* 16: 0xFFFF = all */
	__be16 lid_end;             /* 18 */
	__be16 reserved1;           /* 20 */
	uint8_t is_generic;         /* 22 */
	uint8_t subscribe;          /* 23 */
	__be16 type;                /* 24: 0xFFFF = all */
	__be16 trap_num;            /* 26: TrapNumber, or DeviceID when !is_generic */
	__be32 qpn_resp_time;       /* 28: QPN:24 rsv:3 RespTimeValue:5 */
	uint8_t reserved2;          /* 32 */
	uint8_t producer_type[3];   /* 33: ProducerType, or VendorID when !is_generic */
} IBSM_PACKED;
_Static_assert(sizeof(struct inform_info_wire) == 36, "InformInfo is 36 bytes");

/* InformInfoRecord (0x00F3; ib_inform_info_record_t). */
struct sa_inform_info_rec_wire {
	uint8_t subscriber_gid[16]; /* 0 */
	__be16 subscriber_enum;     /* 16 */
	uint8_t reserved[6];        /* 18 */
	struct inform_info_wire inform_info; /* 24 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_inform_info_rec_wire) == 60, "InformInfoRecord is 60 bytes");

/* Notice (0x0002) is struct notice_wire of mad_wire.h: all 80 bytes fit an
 * SA Report's data area. */

/* ClientStateInfo (0xFF40, a vendor-specific attribute of ibsmd's SA; IBA
 * 13.4.7 leaves 0xFF00-0xFFFF to vendors): how much state hosts built
 * through this SA, and a generation that changes with any of it. */
struct sa_clients_info_wire {
	uint8_t magic[8];           /* 0: "ibsmd" 0 0 version */
	__be64 sm_guid;             /* 8: the answering SM's port GUID */
	__be64 gen;                 /* 16 */
	__be32 groups;              /* 24 */
	__be32 members;             /* 28 */
	__be32 services;            /* 32 */
	__be32 subs;                /* 36 */
	uint8_t reserved[8];        /* 40 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sa_clients_info_wire) == 48, "ClientStateInfo is 48 bytes");

#endif
