/*
 * DOC: adaptive-routing SMP attributes of NVIDIA/Mellanox switches:
 * decoded forms and codecs.
 *
 * Vendor attributes of the SM class (Get/Set through LID-routed or
 * directed-route SMPs): GeneralInfo capability mask (0xFF17, modifier 4),
 * AdaptiveRoutingInfo (0xFF20), AdaptiveRoutingGroupTable (0xFF21) and the
 * SX/Rev1 AdaptiveRoutingLinearForwardingTable (0xFF23). Wire layouts are
 * in include/ibsm/ar_wire.h. Conventions as in mad/smp.h: host order here,
 * decoders check the length and return 0 or -EINVAL.
 *
 * Attribute modifiers of 0xFF21/0xFF23 are not public; ar_*_mod() below
 * use the block number (pLFT 0, group table 0), see the README.
 */
#ifndef IBSM_MAD_AR_H
#define IBSM_MAD_AR_H

#include <stddef.h>
#include <stdint.h>

#define SMP_ATTR_GENERAL_INFO 0xFF17
#define SMP_ATTR_AR_INFO 0xFF20
#define SMP_ATTR_AR_GROUP_TABLE 0xFF21
#define SMP_ATTR_AR_LFT 0xFF23

#define AR_GI_MOD_CAPS 4            /* GeneralInfo modifier: capability mask */
#define AR_GI_CAP_AR_REV1 2         /* IsAdaptiveRoutingRev1Supported */
#define AR_GROUPS_PER_BLOCK 2
#define AR_LIDS_PER_BLOCK 16
#define AR_MAX_GROUPS 4096          /* GroupNumber is 12 bits */

/* LidState of an AR LFT entry. */
enum ar_lid_state {
	AR_LID_BOUNDED = 0,
	AR_LID_FREE = 1,
	AR_LID_STATIC = 2,
	AR_LID_HBF = 3,
};

struct ar_gi_caps {
	uint32_t cap[4];
};

/* 1 if capability bit `bit` (0..127) is set. */
int ar_gi_has_cap(const struct ar_gi_caps *c, unsigned bit);

struct ar_info {
	/* byte 0 */
	uint8_t no_fallback, is4_mode, glb_groups, by_sl_cap, by_sl_en, by_transp_cap,
		dyn_cap_calc_sup;
	uint8_t direction_num_sup;
	uint8_t sub_grps_active;        /* 4 */
	uint8_t group_table_copy_sup;   /* 4 */
	/* byte 3 */
	uint8_t e, is_arn_sup, is_frn_sup, is_fr_sup, fr_enabled, rn_xmit_enabled,
		is_ar_trials_supported;
	uint16_t group_cap;             /* 12 */
	uint16_t group_top;             /* 12 */
	uint8_t group_table_cap;        /* 4 */
	uint8_t string_width_cap;       /* 4 */
	uint16_t enable_by_sl_mask;
	uint8_t sub_grps_supported;
	uint8_t ar_version_cap;         /* 4 */
	uint8_t rn_version_cap;         /* 4 */
	uint8_t by_transport_disable;   /* 4: bit0 UD, bit1 RC, bit2 UC, bit3 DC */
	uint32_t ageing_time_value;     /* us */
	/* The attribute as read: the encoder starts from it, so fields and
	 * reserved bits we do not decode keep the device's values. */
	uint8_t raw[36];
};

/* Port sets: bit p of w[p / 64] is port p (0..255). */
struct ar_group_block {
	uint64_t ports[AR_GROUPS_PER_BLOCK][4];
};

struct ar_lft_entry {
	uint8_t state;      /* enum ar_lid_state */
	uint8_t table;      /* 4 */
	uint8_t port;       /* DefaultPort: the static route */
	uint16_t group;     /* 12 */
};

struct ar_lft_block {
	struct ar_lft_entry e[AR_LIDS_PER_BLOCK];
};

int ar_gi_caps_decode(const uint8_t *buf, size_t len, struct ar_gi_caps *out);
int ar_gi_caps_encode(const struct ar_gi_caps *in, uint8_t *buf, size_t len);
int ar_info_decode(const uint8_t *buf, size_t len, struct ar_info *out);
int ar_info_encode(const struct ar_info *in, uint8_t *buf, size_t len);
int ar_group_block_decode(const uint8_t *buf, size_t len, struct ar_group_block *out);
int ar_group_block_encode(const struct ar_group_block *in, uint8_t *buf, size_t len);
int ar_lft_block_decode(const uint8_t *buf, size_t len, struct ar_lft_block *out);
int ar_lft_block_encode(const struct ar_lft_block *in, uint8_t *buf, size_t len);

/* Attribute modifiers (see the DOC above: block number only). */
uint32_t ar_group_block_mod(uint32_t block);
uint32_t ar_lft_block_mod(uint32_t block);

#endif
