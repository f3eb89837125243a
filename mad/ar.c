/*
 * DOC: codecs of the adaptive-routing vendor attributes.
 *
 * Same pattern as mad/smp.c: copy into the packed wire struct, convert
 * byte order, unpack sub-byte fields by shift and mask. Layout sources are
 * the public MLNX_OFED headers (ibis packets_layouts.h "adaptive_routing_info",
 * "ib_ar_grp_table", "ib_ar_lft_block_element_sx"; OpenSM ib_types.h).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "ibsm/ar_wire.h"
#include "mad/ar.h"

static uint8_t bit(uint8_t b, unsigned n)
{
	return (b >> n) & 1;
}

int ar_gi_has_cap(const struct ar_gi_caps *c, unsigned b)
{
	if (b >= 128)
		return 0;
	return (c->cap[b / 32] >> (b % 32)) & 1;
}

/* --- GeneralInfo capability mask (0xFF17, modifier 4) --- */

int ar_gi_caps_decode(const uint8_t *buf, size_t len, struct ar_gi_caps *out)
{
	struct ar_gi_caps_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	for (int i = 0; i < 4; i++)
		out->cap[i] = be32toh(w.cap[i]);
	return 0;
}

int ar_gi_caps_encode(const struct ar_gi_caps *in, uint8_t *buf, size_t len)
{
	struct ar_gi_caps_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	for (int i = 0; i < 4; i++)
		w.cap[i] = htobe32(in->cap[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- AdaptiveRoutingInfo (0xFF20) --- */

static void info_flags_decode(const struct ar_info_wire *w, struct ar_info *o)
{
	o->no_fallback = bit(w->flags0, 0);
	o->is4_mode = bit(w->flags0, 1);
	o->glb_groups = bit(w->flags0, 2);
	o->by_sl_cap = bit(w->flags0, 3);
	o->by_sl_en = bit(w->flags0, 4);
	o->by_transp_cap = bit(w->flags0, 5);
	o->dyn_cap_calc_sup = bit(w->flags0, 6);
	o->e = bit(w->flags3, 0);
	o->is_arn_sup = bit(w->flags3, 1);
	o->is_frn_sup = bit(w->flags3, 2);
	o->is_fr_sup = bit(w->flags3, 3);
	o->fr_enabled = bit(w->flags3, 4);
	o->rn_xmit_enabled = bit(w->flags3, 5);
	o->is_ar_trials_supported = bit(w->flags3, 6);
}

int ar_info_decode(const uint8_t *buf, size_t len, struct ar_info *out)
{
	struct ar_info_wire w;
	uint32_t caps;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memset(out, 0, sizeof(*out));
	memcpy(out->raw, buf, sizeof(out->raw));
	info_flags_decode(&w, out);
	out->direction_num_sup = w.direction_num_sup;
	out->sub_grps_active = w.sub_grps & 0xF;
	out->group_table_copy_sup = w.sub_grps >> 4;
	caps = be32toh(w.caps);
	out->group_cap = caps & 0xFFF;
	out->group_top = (caps >> 12) & 0xFFF;
	out->group_table_cap = (caps >> 24) & 0xF;
	out->string_width_cap = caps >> 28;
	out->enable_by_sl_mask = be16toh(w.enable_by_sl_mask);
	out->sub_grps_supported = w.sub_grps_supported;
	out->ar_version_cap = w.versions & 0xF;
	out->rn_version_cap = w.versions >> 4;
	out->by_transport_disable = w.by_transport & 0xF;
	out->ageing_time_value = be32toh(w.ageing_time_value);
	return 0;
}

/* Replaces bits `mask` of b with v. */
static uint8_t put_bits(uint8_t b, uint8_t mask, unsigned shift, unsigned v)
{
	return (uint8_t)((b & ~mask) | ((v << shift) & mask));
}

static uint8_t info_flags0(const struct ar_info *in, uint8_t b)
{
	b = put_bits(b, 0x01, 0, in->no_fallback);
	b = put_bits(b, 0x02, 1, in->is4_mode);
	b = put_bits(b, 0x04, 2, in->glb_groups);
	b = put_bits(b, 0x08, 3, in->by_sl_cap);
	b = put_bits(b, 0x10, 4, in->by_sl_en);
	b = put_bits(b, 0x20, 5, in->by_transp_cap);
	return put_bits(b, 0x40, 6, in->dyn_cap_calc_sup);
}

static uint8_t info_flags3(const struct ar_info *in, uint8_t b)
{
	b = put_bits(b, 0x01, 0, in->e);
	b = put_bits(b, 0x02, 1, in->is_arn_sup);
	b = put_bits(b, 0x04, 2, in->is_frn_sup);
	b = put_bits(b, 0x08, 3, in->is_fr_sup);
	b = put_bits(b, 0x10, 4, in->fr_enabled);
	b = put_bits(b, 0x20, 5, in->rn_xmit_enabled);
	return put_bits(b, 0x40, 6, in->is_ar_trials_supported);
}

int ar_info_encode(const struct ar_info *in, uint8_t *buf, size_t len)
{
	struct ar_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, in->raw, sizeof(w));
	w.flags0 = info_flags0(in, w.flags0);
	w.direction_num_sup = in->direction_num_sup;
	w.sub_grps = (uint8_t)(((in->group_table_copy_sup & 0xF) << 4) | (in->sub_grps_active & 0xF));
	w.flags3 = info_flags3(in, w.flags3);
	w.caps = htobe32((uint32_t)(in->string_width_cap & 0xF) << 28 |
			 (uint32_t)(in->group_table_cap & 0xF) << 24 |
			 (uint32_t)(in->group_top & 0xFFF) << 12 | (in->group_cap & 0xFFF));
	w.enable_by_sl_mask = htobe16(in->enable_by_sl_mask);
	w.sub_grps_supported = in->sub_grps_supported;
	w.versions = (uint8_t)(((in->rn_version_cap & 0xF) << 4) | (in->ar_version_cap & 0xF));
	w.by_transport = put_bits(w.by_transport, 0x0F, 0, in->by_transport_disable);
	w.ageing_time_value = htobe32(in->ageing_time_value);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- AdaptiveRoutingGroupTable (0xFF21) --- */

static void mask_decode(const uint8_t *m, uint64_t *ports)
{
	memset(ports, 0, 4 * sizeof(*ports));
	for (unsigned p = 0; p < 256; p++)
		if (m[31 - p / 8] & (1u << (p % 8)))
			ports[p / 64] |= 1ull << (p % 64);
}

static void mask_encode(const uint64_t *ports, uint8_t *m)
{
	memset(m, 0, 32);
	for (unsigned p = 0; p < 256; p++)
		if (ports[p / 64] & (1ull << (p % 64)))
			m[31 - p / 8] |= (uint8_t)(1u << (p % 8));
}

int ar_group_block_decode(const uint8_t *buf, size_t len, struct ar_group_block *out)
{
	struct ar_group_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	for (int i = 0; i < AR_GROUPS_PER_BLOCK; i++)
		mask_decode(w.mask[i], out->ports[i]);
	return 0;
}

int ar_group_block_encode(const struct ar_group_block *in, uint8_t *buf, size_t len)
{
	struct ar_group_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	for (int i = 0; i < AR_GROUPS_PER_BLOCK; i++)
		mask_encode(in->ports[i], w.mask[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- AdaptiveRoutingLinearForwardingTable SX/Rev1 (0xFF23) --- */

int ar_lft_block_decode(const uint8_t *buf, size_t len, struct ar_lft_block *out)
{
	struct ar_lft_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	for (int i = 0; i < AR_LIDS_PER_BLOCK; i++) {
		out->e[i].state = w.e[i].state_table >> 6;
		out->e[i].table = w.e[i].state_table & 0xF;
		out->e[i].port = w.e[i].default_port;
		out->e[i].group = be16toh(w.e[i].group) & 0xFFF;
	}
	return 0;
}

int ar_lft_block_encode(const struct ar_lft_block *in, uint8_t *buf, size_t len)
{
	struct ar_lft_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	for (int i = 0; i < AR_LIDS_PER_BLOCK; i++) {
		w.e[i].state_table = (uint8_t)(((in->e[i].state & 3) << 6) | (in->e[i].table & 0xF));
		w.e[i].default_port = in->e[i].port;
		w.e[i].group = htobe16(in->e[i].group & 0xFFF);
	}
	memcpy(buf, &w, sizeof(w));
	return 0;
}

uint32_t ar_group_block_mod(uint32_t block)
{
	return block;
}

uint32_t ar_lft_block_mod(uint32_t block)
{
	return block;
}
