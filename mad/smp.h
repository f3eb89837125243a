/*
 * DOC: subnet management packets: decoded attributes and their codecs.
 *
 * The wire layouts (packed, big-endian typed, size-asserted) live in
 * include/ibsm/mad_wire.h. Everything here is host order. Every decoder takes
 * (buf, len), checks the length and returns 0 or a negative errno (-EINVAL
 * for short or malformed input); encoders write exactly the attribute size.
 * IBA 1.3 vol 1, chapter 13.4 (MAD header), 14.2.1 (SMP), 14.2.5 (attributes).
 */
#ifndef IBSM_MAD_SMP_H
#define IBSM_MAD_SMP_H

#include <stddef.h>
#include <stdint.h>

#define MAD_SIZE 256
#define SMP_DATA_SIZE 64
#define SMP_MAX_HOPS 63

/* Management classes (IBA 13.4.4). */
#define MAD_CLASS_SMI 0x01
#define MAD_CLASS_SMI_DR 0x81

/* Methods (IBA 13.4.5). */
#define MAD_METHOD_GET 0x01
#define MAD_METHOD_SET 0x02
#define MAD_METHOD_GET_RESP 0x81
#define MAD_METHOD_TRAP 0x05
#define MAD_METHOD_TRAP_REPRESS 0x07

/* SMP attribute IDs (IBA 14.2.5). */
#define SMP_ATTR_NOTICE 0x0002
#define SMP_ATTR_NODE_DESC 0x0010
#define SMP_ATTR_NODE_INFO 0x0011
#define SMP_ATTR_SWITCH_INFO 0x0012
#define SMP_ATTR_PORT_INFO 0x0015
#define SMP_ATTR_PKEY_TABLE 0x0016
#define SMP_ATTR_SL2VL 0x0017
#define SMP_ATTR_VLARB 0x0018
#define SMP_ATTR_LFT 0x0019
#define SMP_ATTR_MFT 0x001B
#define SMP_ATTR_SM_INFO 0x0020

#define LID_PERMISSIVE 0xFFFF

/* MAD common header, decoded (IBA 13.4.2). For DR SMPs status holds the
 * 15-bit status and d_bit the direction bit; hop_ptr/hop_cnt come from the
 * class-specific field. */
struct mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;       /* including the R bit (0x80) */
	uint16_t status;
	uint8_t d_bit;        /* DR only */
	uint8_t hop_ptr;      /* DR only */
	uint8_t hop_cnt;      /* DR only */
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
};

/* A whole SMP, decoded (IBA 14.2.1.1 LID routed, 14.2.1.2 directed route). */
struct smp {
	struct mad_hdr hdr;
	uint64_t mkey;
	uint16_t dr_slid;                 /* DR only */
	uint16_t dr_dlid;                 /* DR only */
	uint8_t data[SMP_DATA_SIZE];
	uint8_t initial_path[64];         /* DR only; [1..hop_cnt] used */
	uint8_t return_path[64];          /* DR only */
};

int smp_decode(const uint8_t *buf, size_t len, struct smp *out);
/* Writes MAD_SIZE bytes. */
int smp_encode(const struct smp *in, uint8_t *buf, size_t len);

/* NodeInfo (IBA 14.2.5.3), 40 bytes. */
struct smp_node_info {
	uint8_t base_version;
	uint8_t class_version;
	uint8_t node_type;      /* 1 CA, 2 switch, 3 router */
	uint8_t num_ports;
	uint64_t sys_image_guid;
	uint64_t node_guid;
	uint64_t port_guid;
	uint16_t partition_cap;
	uint16_t device_id;
	uint32_t revision;
	uint8_t local_port;
	uint32_t vendor_id;     /* 24 bits */
};

/* NodeDescription (IBA 14.2.5.2): 64 bytes of text, NUL-terminated here. */
struct smp_node_desc {
	char desc[65];
};

/* SwitchInfo (IBA 14.2.5.4), 20 bytes. */
struct smp_switch_info {
	uint16_t lin_cap;
	uint16_t rand_cap;
	uint16_t mcast_cap;
	uint16_t lin_top;
	uint8_t def_port;
	uint8_t def_mcast_pri_port;
	uint8_t def_mcast_not_pri_port;
	uint8_t life_time_value;    /* 5 bits */
	uint8_t port_state_change;  /* 1 bit */
	uint8_t opt_sl2vl;          /* 2 bits */
	uint16_t lids_per_port;
	uint16_t partition_enf_cap;
	uint8_t inbound_enf_cap;
	uint8_t outbound_enf_cap;
	uint8_t filter_raw_inbound_cap;
	uint8_t filter_raw_outbound_cap;
	uint8_t enhanced_port0;
	uint16_t mcast_top;
};

/* PortInfo (IBA 14.2.5.6), 64 bytes. Field widths in comments. In a Set,
 * port_state 0, phys_state 0, link_speed_enabled 0 and link_width_enabled 0
 * mean "no change". */
struct smp_port_info {
	uint64_t mkey;
	uint64_t gid_prefix;
	uint16_t lid;
	uint16_t master_sm_lid;
	uint32_t cap_mask;
	uint16_t diag_code;
	uint16_t mkey_lease_period;
	uint8_t local_port;
	uint8_t link_width_enabled;
	uint8_t link_width_supported;
	uint8_t link_width_active;
	uint8_t link_speed_supported;    /* 4 */
	uint8_t port_state;              /* 4 */
	uint8_t phys_state;              /* 4 */
	uint8_t link_down_def_state;     /* 4 */
	uint8_t mkey_protect;            /* 2 */
	uint8_t lmc;                     /* 3 */
	uint8_t link_speed_active;       /* 4 */
	uint8_t link_speed_enabled;      /* 4 */
	uint8_t neighbor_mtu;            /* 4 */
	uint8_t master_sm_sl;            /* 4 */
	uint8_t vl_cap;                  /* 4 */
	uint8_t init_type;               /* 4 */
	uint8_t vl_high_limit;
	uint8_t vl_arb_high_cap;
	uint8_t vl_arb_low_cap;
	uint8_t init_type_reply;         /* 4 */
	uint8_t mtu_cap;                 /* 4 */
	uint8_t vl_stall_count;          /* 3 */
	uint8_t hoq_life;                /* 5 */
	uint8_t oper_vls;                /* 4 */
	uint8_t part_enf_inbound;        /* 1 */
	uint8_t part_enf_outbound;       /* 1 */
	uint8_t filter_raw_inbound;      /* 1 */
	uint8_t filter_raw_outbound;     /* 1 */
	uint16_t mkey_violations;
	uint16_t pkey_violations;
	uint16_t qkey_violations;
	uint8_t guid_cap;
	uint8_t client_reregister;       /* 1 */
	uint8_t mcast_pkey_trap_suppr;   /* 1 */
	uint8_t subnet_timeout;          /* 5 */
	uint8_t resp_time_value;         /* 5 */
	uint8_t local_phy_errors;        /* 4 */
	uint8_t overrun_errors;          /* 4 */
	uint16_t max_credit_hint;
	uint32_t link_round_trip_latency; /* 24 */
	uint16_t cap_mask2;
	uint8_t link_speed_ext_active;   /* 4 */
	uint8_t link_speed_ext_supported;/* 4 */
	uint8_t link_speed_ext_enabled;  /* 5 */
};

/* SMInfo (IBA 14.2.5.13), 21 bytes used (priority and state share byte 20). */
struct smp_sm_info {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;   /* 4 */
	uint8_t sm_state;   /* 4: 0 not active, 1 discovering, 2 standby, 3 master */
};

/* LinearForwardingTable block (IBA 14.2.5.10): 64 ports, attr_mod = block. */
struct smp_lft_block {
	uint8_t port[64];
};

/* Notice (IBA 14.2.5.1 / 13.4.8.2), 80 bytes. data_details is raw. */
struct smp_notice {
	uint8_t is_generic;
	uint8_t type;               /* 7 */
	uint32_t producer_type;     /* 24: generic producer type, or vendor id */
	uint16_t trap_num;          /* or device id when !is_generic */
	uint16_t issuer_lid;
	uint8_t toggle;
	uint16_t count;             /* 15 */
	uint8_t data_details[54];
	uint8_t issuer_gid[16];
};

/* P_KeyTable block (IBA 14.2.5.7): 32 P_Keys.
 * AttributeModifier: block in bits 15..0; on a switch, the port in bits
 * 23..16 (smp_pkey_mod). */
struct smp_pkey_block {
	uint16_t pkey[32];
};

/* SL2VLMappingTable (IBA 14.2.5.8): vl[sl], 4 bits each.
 * AttributeModifier on a switch: input port in bits 15..8, output port
 * in bits 7..0 (smp_sl2vl_mod); 0 on a CA. */
struct smp_sl2vl {
	uint8_t vl[16];
};

/* VLArbitrationTable block (IBA 14.2.5.9): 32 entries.
 * AttributeModifier: block 1..4 (1-2 low priority, 3-4 high) in bits
 * 31..16, the port in bits 15..0 on a switch (smp_vlarb_mod). */
struct smp_vlarb_block {
	struct {
		uint8_t vl;       /* 4 */
		uint8_t weight;
	} e[32];
};

/* MulticastForwardingTable block (IBA 14.2.5.12): 32
 * PortMask words, host order. AttributeModifier: position in bits
 * 31..28, block in bits 8..0 (smp_mft_mod). */
struct smp_mft_block {
	uint16_t mask[32];
};

#define SMP_VLARB_LOW_1 1
#define SMP_VLARB_LOW_2 2
#define SMP_VLARB_HIGH_1 3
#define SMP_VLARB_HIGH_2 4

static inline uint32_t smp_pkey_mod(uint8_t port, uint16_t block)
{
	return ((uint32_t)port << 16) | block;
}

static inline uint32_t smp_sl2vl_mod(uint8_t in_port, uint8_t out_port)
{
	return ((uint32_t)in_port << 8) | out_port;
}

static inline uint32_t smp_vlarb_mod(uint8_t block, uint8_t port)
{
	return ((uint32_t)block << 16) | port;
}

static inline uint32_t smp_mft_mod(uint16_t block, uint8_t pos)
{
	return ((uint32_t)(pos & 0xF) << 28) | (block & 0x1FF);
}

/* Attribute codecs: decode reads from an SMP data area (len >= size),
 * encode writes the attribute into a 64-byte (80 for Notice) buffer. */
int smp_node_info_decode(const uint8_t *buf, size_t len, struct smp_node_info *out);
int smp_node_info_encode(const struct smp_node_info *in, uint8_t *buf, size_t len);
int smp_node_desc_decode(const uint8_t *buf, size_t len, struct smp_node_desc *out);
int smp_node_desc_encode(const struct smp_node_desc *in, uint8_t *buf, size_t len);
int smp_switch_info_decode(const uint8_t *buf, size_t len, struct smp_switch_info *out);
int smp_switch_info_encode(const struct smp_switch_info *in, uint8_t *buf, size_t len);
int smp_port_info_decode(const uint8_t *buf, size_t len, struct smp_port_info *out);
int smp_port_info_encode(const struct smp_port_info *in, uint8_t *buf, size_t len);
/* A PortInfo Set that changes nothing of these (IBA 14.2.5.6: 0 in
 * PortState, PortPhysicalState, LinkDownDefaultState, LinkSpeedEnabled,
 * LinkWidthEnabled and LinkSpeedExtEnabled means "no change") and asks
 * for no client reregistration. */
void smp_port_info_no_change(struct smp_port_info *pi);
int smp_sm_info_decode(const uint8_t *buf, size_t len, struct smp_sm_info *out);
int smp_sm_info_encode(const struct smp_sm_info *in, uint8_t *buf, size_t len);
int smp_lft_block_decode(const uint8_t *buf, size_t len, struct smp_lft_block *out);
int smp_lft_block_encode(const struct smp_lft_block *in, uint8_t *buf, size_t len);
int smp_pkey_block_decode(const uint8_t *buf, size_t len, struct smp_pkey_block *out);
int smp_pkey_block_encode(const struct smp_pkey_block *in, uint8_t *buf, size_t len);
int smp_sl2vl_decode(const uint8_t *buf, size_t len, struct smp_sl2vl *out);
int smp_sl2vl_encode(const struct smp_sl2vl *in, uint8_t *buf, size_t len);
int smp_vlarb_block_decode(const uint8_t *buf, size_t len, struct smp_vlarb_block *out);
int smp_vlarb_block_encode(const struct smp_vlarb_block *in, uint8_t *buf, size_t len);
int smp_mft_block_decode(const uint8_t *buf, size_t len, struct smp_mft_block *out);
int smp_mft_block_encode(const struct smp_mft_block *in, uint8_t *buf, size_t len);
int smp_notice_decode(const uint8_t *buf, size_t len, struct smp_notice *out);
int smp_notice_encode(const struct smp_notice *in, uint8_t *buf, size_t len);

#endif
