/*
 * DOC: on-the-wire layouts of the MADs and SMP attributes ibsmd speaks.
 *
 * Every struct is packed, uses big-endian typed members and is size-checked
 * with _Static_assert. Sub-byte fields stay raw bytes here (no C bitfields:
 * their layout is compiler-defined); mad/smp.c does the shifts and byte-order
 * conversion. Offsets in comments are byte offsets within the struct.
 * References: IBA 1.3 vol 1, 13.4.2 (MAD header), 14.2.1 (SMP formats),
 * 14.2.5 (SMP attributes), 13.4.8.2 (Notice).
 */
#ifndef IBSM_MAD_WIRE_H
#define IBSM_MAD_WIRE_H

#include <linux/types.h>
#include <stdint.h>

#define IBSM_PACKED __attribute__((packed))

/* IBA 13.4.2: the common MAD header. For directed-route SMPs (14.2.1.2)
 * bit 15 of status is the D (direction) bit and class_specific holds the
 * hop pointer (high byte) and hop count (low byte). */
struct mad_hdr_wire {
	uint8_t base_version;       /* 0 */
	uint8_t mgmt_class;         /* 1 */
	uint8_t class_version;      /* 2 */
	uint8_t method;             /* 3: R bit is 0x80 */
	__be16 status;              /* 4 */
	__be16 class_specific;      /* 6 */
	__be64 tid;                 /* 8 */
	__be16 attr_id;             /* 16 */
	__be16 reserved;            /* 18 */
	__be32 attr_mod;            /* 20 */
} IBSM_PACKED;
_Static_assert(sizeof(struct mad_hdr_wire) == 24, "MAD header is 24 bytes");

/* IBA 14.2.1.1: LID-routed SMP. */
struct smp_lid_wire {
	struct mad_hdr_wire hdr;    /* 0 */
	__be64 mkey;                /* 24 */
	uint8_t reserved1[32];      /* 32 */
	uint8_t data[64];           /* 64 */
	uint8_t reserved2[128];     /* 128 */
} IBSM_PACKED;
_Static_assert(sizeof(struct smp_lid_wire) == 256, "LID-routed SMP is 256 bytes");

/* IBA 14.2.1.2: directed-route SMP. */
struct smp_dr_wire {
	struct mad_hdr_wire hdr;    /* 0 */
	__be64 mkey;                /* 24 */
	__be16 dr_slid;             /* 32 */
	__be16 dr_dlid;             /* 34 */
	uint8_t reserved[28];       /* 36 */
	uint8_t data[64];           /* 64 */
	uint8_t initial_path[64];   /* 128 */
	uint8_t return_path[64];    /* 192 */
} IBSM_PACKED;
_Static_assert(sizeof(struct smp_dr_wire) == 256, "DR SMP is 256 bytes");

/* IBA 14.2.5.3: NodeInfo. */
struct node_info_wire {
	uint8_t base_version;       /* 0 */
	uint8_t class_version;      /* 1 */
	uint8_t node_type;          /* 2 */
	uint8_t num_ports;          /* 3 */
	__be64 sys_image_guid;      /* 4 */
	__be64 node_guid;           /* 12 */
	__be64 port_guid;           /* 20 */
	__be16 partition_cap;       /* 28 */
	__be16 device_id;           /* 30 */
	__be32 revision;            /* 32 */
	uint8_t local_port;         /* 36 */
	uint8_t vendor_id[3];       /* 37: 24-bit, big-endian */
} IBSM_PACKED;
_Static_assert(sizeof(struct node_info_wire) == 40, "NodeInfo is 40 bytes");

/* IBA 14.2.5.2: NodeDescription, UTF-8 text, NUL-padded. */
struct node_desc_wire {
	uint8_t desc[64];
} IBSM_PACKED;
_Static_assert(sizeof(struct node_desc_wire) == 64, "NodeDescription is 64 bytes");

/* IBA 14.2.5.4: SwitchInfo (1.2 layout, with MulticastFDBTop). */
struct switch_info_wire {
	__be16 lin_cap;             /* 0 */
	__be16 rand_cap;            /* 2 */
	__be16 mcast_cap;           /* 4 */
	__be16 lin_top;             /* 6 */
	uint8_t def_port;           /* 8 */
	uint8_t def_mcast_pri_port; /* 9 */
	uint8_t def_mcast_not_pri_port; /* 10 */
	uint8_t life_state_opt;     /* 11: LifeTimeValue:5 PortStateChange:1 OptSL2VL:2 */
	__be16 lids_per_port;       /* 12 */
	__be16 partition_enf_cap;   /* 14 */
	uint8_t enf_caps;           /* 16: InbEnf:1 OutbEnf:1 FiltRawInb:1 FiltRawOutb:1 EnhP0:1 rsv:3 */
	uint8_t reserved;           /* 17 */
	__be16 mcast_top;           /* 18 */
} IBSM_PACKED;
_Static_assert(sizeof(struct switch_info_wire) == 20, "SwitchInfo is 20 bytes");

/* IBA 14.2.5.6: PortInfo. Nibble pairs are named high_low. */
struct port_info_wire {
	__be64 mkey;                /* 0 */
	__be64 gid_prefix;          /* 8 */
	__be16 lid;                 /* 16 */
	__be16 master_sm_lid;       /* 18 */
	__be32 cap_mask;            /* 20 */
	__be16 diag_code;           /* 24 */
	__be16 mkey_lease_period;   /* 26 */
	uint8_t local_port;         /* 28 */
	uint8_t link_width_enabled; /* 29 */
	uint8_t link_width_supported; /* 30 */
	uint8_t link_width_active;  /* 31 */
	uint8_t speed_sup_state;    /* 32: LinkSpeedSupported:4 PortState:4 */
	uint8_t phys_down_def;      /* 33: PortPhysicalState:4 LinkDownDefaultState:4 */
	uint8_t mkeyprot_lmc;       /* 34: M_KeyProtectBits:2 rsv:3 LMC:3 */
	uint8_t speed_act_en;       /* 35: LinkSpeedActive:4 LinkSpeedEnabled:4 */
	uint8_t nmtu_smsl;          /* 36: NeighborMTU:4 MasterSMSL:4 */
	uint8_t vlcap_inittype;     /* 37: VLCap:4 InitType:4 */
	uint8_t vl_high_limit;      /* 38 */
	uint8_t vl_arb_high_cap;    /* 39 */
	uint8_t vl_arb_low_cap;     /* 40 */
	uint8_t itr_mtucap;         /* 41: InitTypeReply:4 MTUCap:4 */
	uint8_t stall_hoq;          /* 42: VLStallCount:3 HOQLife:5 */
	uint8_t opvls_enf;          /* 43: OperationalVLs:4 PEInb:1 PEOutb:1 FRInb:1 FROutb:1 */
	__be16 mkey_violations;     /* 44 */
	__be16 pkey_violations;     /* 46 */
	__be16 qkey_violations;     /* 48 */
	uint8_t guid_cap;           /* 50 */
	uint8_t rereg_subnet_to;    /* 51: ClientReregister:1 McastPKeyTrapSuppr:1 rsv:1 SubnetTimeOut:5 */
	uint8_t resp_time;          /* 52: rsv:3 RespTimeValue:5 */
	uint8_t phy_overrun_err;    /* 53: LocalPhyErrors:4 OverrunErrors:4 */
	__be16 max_credit_hint;     /* 54 */
	uint8_t reserved;           /* 56 */
	uint8_t link_rtl[3];        /* 57: LinkRoundTripLatency, 24-bit */
	__be16 cap_mask2;           /* 60 */
	uint8_t speed_ext_act_sup;  /* 62: LinkSpeedExtActive:4 LinkSpeedExtSupported:4 */
	uint8_t speed_ext_en;       /* 63: rsv:3 LinkSpeedExtEnabled:5 */
} IBSM_PACKED;
_Static_assert(sizeof(struct port_info_wire) == 64, "PortInfo is 64 bytes");

/* IBA 14.2.5.13: SMInfo. The attribute uses the first 21 bytes of the SMP
 * data area: 20 bytes of GUID, SM_Key and ActCount plus the byte holding
 * Priority and SMState. */
struct sm_info_wire {
	__be64 guid;                /* 0 */
	__be64 sm_key;              /* 8 */
	__be32 act_count;           /* 16 */
	uint8_t prio_state;         /* 20: Priority:4 SMState:4 */
} IBSM_PACKED;
_Static_assert(sizeof(struct sm_info_wire) == 21, "SMInfo is 21 bytes");

/* IBA 14.2.5.10: one 64-entry block of the LinearForwardingTable. */
struct lft_block_wire {
	uint8_t port[64];
} IBSM_PACKED;
_Static_assert(sizeof(struct lft_block_wire) == 64, "LFT block is 64 bytes");

/* IBA 13.4.8.2: Notice. An SMP data area carries only bytes 0..63. */
struct notice_wire {
	uint8_t generic_type;       /* 0: IsGeneric:1 Type:7 */
	uint8_t producer_type[3];   /* 1: ProducerType or VendorID, 24-bit */
	__be16 trap_num;            /* 4: TrapNumber or DeviceID */
	__be16 issuer_lid;          /* 6 */
	__be16 toggle_count;        /* 8: NoticeToggle:1 NoticeCount:15 */
	uint8_t data_details[54];   /* 10 */
	uint8_t issuer_gid[16];     /* 64 */
} IBSM_PACKED;
_Static_assert(sizeof(struct notice_wire) == 80, "Notice is 80 bytes");

/* IBA 14.2.5.7: one block of 32 P_Keys of the P_KeyTable, big-endian.
 * Bit 15 of a P_Key is the membership bit. */
struct pkey_block_wire {
	__be16 pkey[32];
} IBSM_PACKED;
_Static_assert(sizeof(struct pkey_block_wire) == 64, "P_KeyTable block is 64 bytes");

/* IBA 14.2.5.8: SL2VLMappingTable, 16 nibbles; SL 2k in
 * the high nibble of byte k, SL 2k+1 in the low one. */
struct sl2vl_wire {
	uint8_t vl[8];
} IBSM_PACKED;
_Static_assert(sizeof(struct sl2vl_wire) == 8, "SL2VLMappingTable is 8 bytes");

/* IBA 14.2.5.9: one block of 32 VLArbitrationTable
 * entries: reserved:4 VL:4, then Weight. */
struct vlarb_entry_wire {
	uint8_t vl;                 /* 0: rsv:4 VL:4 */
	uint8_t weight;             /* 1 */
} IBSM_PACKED;
struct vlarb_block_wire {
	struct vlarb_entry_wire e[32];
} IBSM_PACKED;
_Static_assert(sizeof(struct vlarb_block_wire) == 64, "VLArbitrationTable block is 64 bytes");

/* IBA 14.2.5.12: one block of the MulticastForwardingTable,
 * 32 PortMask words for MLIDs 0xC000 + 32 * block + i. */
struct mft_block_wire {
	__be16 mask[32];
} IBSM_PACKED;
_Static_assert(sizeof(struct mft_block_wire) == 64, "MFT block is 64 bytes");

#endif
