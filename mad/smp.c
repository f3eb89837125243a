/*
 * DOC: SMP and SMP attribute codecs.
 *
 * Each decoder copies the input into the packed wire struct of
 * include/ibsm/mad_wire.h (so unaligned input is fine), then converts byte
 * order and unpacks the sub-byte fields; each encoder does the reverse into a
 * zeroed wire struct and copies it out. Input comes from the fabric: every
 * decoder checks the length first and never reads past it.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ibsm/mad_wire.h"
#include "mad/be24.h"
#include "mad/smp.h"

/* Two 4-bit fields in one byte, first one in the high nibble. */
static uint8_t nib_pack(uint8_t hi, uint8_t lo)
{
	return (uint8_t)(((hi & 0xF) << 4) | (lo & 0xF));
}

static uint8_t nib_hi(uint8_t b)
{
	return b >> 4;
}

static uint8_t nib_lo(uint8_t b)
{
	return b & 0xF;
}

/* --- MAD header (IBA 13.4.2; DR variant 14.2.1.2) --- */

static int is_dr_class(uint8_t mgmt_class)
{
	return mgmt_class == MAD_CLASS_SMI_DR;
}

static void hdr_decode(const struct mad_hdr_wire *w, struct mad_hdr *h)
{
	uint16_t status = be16toh(w->status);
	uint16_t cs = be16toh(w->class_specific);

	memset(h, 0, sizeof(*h));
	h->base_version = w->base_version;
	h->mgmt_class = w->mgmt_class;
	h->class_version = w->class_version;
	h->method = w->method;
	h->tid = be64toh(w->tid);
	h->attr_id = be16toh(w->attr_id);
	h->attr_mod = be32toh(w->attr_mod);
	if (is_dr_class(w->mgmt_class)) {
		h->d_bit = status >> 15;
		h->status = status & 0x7FFF;
		h->hop_ptr = (uint8_t)(cs >> 8);
		h->hop_cnt = (uint8_t)cs;
	} else {
		h->status = status;
	}
}

static void hdr_encode(const struct mad_hdr *h, struct mad_hdr_wire *w)
{
	uint16_t status = h->status;
	uint16_t cs = 0;

	if (is_dr_class(h->mgmt_class)) {
		status = (uint16_t)((status & 0x7FFF) | (h->d_bit ? 0x8000 : 0));
		cs = (uint16_t)((h->hop_ptr << 8) | h->hop_cnt);
	}
	w->base_version = h->base_version;
	w->mgmt_class = h->mgmt_class;
	w->class_version = h->class_version;
	w->method = h->method;
	w->status = htobe16(status);
	w->class_specific = htobe16(cs);
	w->tid = htobe64(h->tid);
	w->attr_id = htobe16(h->attr_id);
	w->reserved = 0;
	w->attr_mod = htobe32(h->attr_mod);
}

/* --- whole SMP (IBA 14.2.1) --- */

/* Both SMP formats keep the data area at the same offset, so one copy of
 * it serves both. */
_Static_assert(offsetof(struct smp_lid_wire, data) == offsetof(struct smp_dr_wire, data),
	       "SMP data offset");

int smp_decode(const uint8_t *buf, size_t len, struct smp *out)
{
	struct smp_dr_wire w;

	if (!buf || len < MAD_SIZE)
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	if (w.hdr.base_version != 1)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	hdr_decode(&w.hdr, &out->hdr);
	out->mkey = be64toh(w.mkey);
	memcpy(out->data, w.data, SMP_DATA_SIZE);
	if (is_dr_class(w.hdr.mgmt_class)) {
		out->dr_slid = be16toh(w.dr_slid);
		out->dr_dlid = be16toh(w.dr_dlid);
		memcpy(out->initial_path, w.initial_path, sizeof(out->initial_path));
		memcpy(out->return_path, w.return_path, sizeof(out->return_path));
	}
	return 0;
}

int smp_encode(const struct smp *in, uint8_t *buf, size_t len)
{
	struct smp_dr_wire w;

	if (!buf || len < MAD_SIZE)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	hdr_encode(&in->hdr, &w.hdr);
	w.mkey = htobe64(in->mkey);
	memcpy(w.data, in->data, SMP_DATA_SIZE);
	if (is_dr_class(in->hdr.mgmt_class)) {
		w.dr_slid = htobe16(in->dr_slid);
		w.dr_dlid = htobe16(in->dr_dlid);
		memcpy(w.initial_path, in->initial_path, sizeof(w.initial_path));
		memcpy(w.return_path, in->return_path, sizeof(w.return_path));
	}
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- NodeInfo (IBA 14.2.5.3) --- */

int smp_node_info_decode(const uint8_t *buf, size_t len, struct smp_node_info *out)
{
	struct node_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->base_version = w.base_version;
	out->class_version = w.class_version;
	out->node_type = w.node_type;
	out->num_ports = w.num_ports;
	out->sys_image_guid = be64toh(w.sys_image_guid);
	out->node_guid = be64toh(w.node_guid);
	out->port_guid = be64toh(w.port_guid);
	out->partition_cap = be16toh(w.partition_cap);
	out->device_id = be16toh(w.device_id);
	out->revision = be32toh(w.revision);
	out->local_port = w.local_port;
	out->vendor_id = get_be24(w.vendor_id);
	return 0;
}

int smp_node_info_encode(const struct smp_node_info *in, uint8_t *buf, size_t len)
{
	struct node_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.base_version = in->base_version;
	w.class_version = in->class_version;
	w.node_type = in->node_type;
	w.num_ports = in->num_ports;
	w.sys_image_guid = htobe64(in->sys_image_guid);
	w.node_guid = htobe64(in->node_guid);
	w.port_guid = htobe64(in->port_guid);
	w.partition_cap = htobe16(in->partition_cap);
	w.device_id = htobe16(in->device_id);
	w.revision = htobe32(in->revision);
	w.local_port = in->local_port;
	put_be24(w.vendor_id, in->vendor_id);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- NodeDescription (IBA 14.2.5.2) --- */

int smp_node_desc_decode(const uint8_t *buf, size_t len, struct smp_node_desc *out)
{
	if (!buf || len < sizeof(struct node_desc_wire))
		return -EINVAL;
	/* The text need not be NUL-terminated on the wire; ours always is. */
	memcpy(out->desc, buf, 64);
	out->desc[64] = '\0';
	return 0;
}

int smp_node_desc_encode(const struct smp_node_desc *in, uint8_t *buf, size_t len)
{
	size_t n = strnlen(in->desc, 64);

	if (!buf || len < sizeof(struct node_desc_wire))
		return -EINVAL;
	memset(buf, 0, 64);
	memcpy(buf, in->desc, n);
	return 0;
}

/* --- SwitchInfo (IBA 14.2.5.4) --- */

int smp_switch_info_decode(const uint8_t *buf, size_t len, struct smp_switch_info *out)
{
	struct switch_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lin_cap = be16toh(w.lin_cap);
	out->rand_cap = be16toh(w.rand_cap);
	out->mcast_cap = be16toh(w.mcast_cap);
	out->lin_top = be16toh(w.lin_top);
	out->def_port = w.def_port;
	out->def_mcast_pri_port = w.def_mcast_pri_port;
	out->def_mcast_not_pri_port = w.def_mcast_not_pri_port;
	out->life_time_value = w.life_state_opt >> 3;
	out->port_state_change = (w.life_state_opt >> 2) & 1;
	out->opt_sl2vl = w.life_state_opt & 3;
	out->lids_per_port = be16toh(w.lids_per_port);
	out->partition_enf_cap = be16toh(w.partition_enf_cap);
	out->inbound_enf_cap = (w.enf_caps >> 7) & 1;
	out->outbound_enf_cap = (w.enf_caps >> 6) & 1;
	out->filter_raw_inbound_cap = (w.enf_caps >> 5) & 1;
	out->filter_raw_outbound_cap = (w.enf_caps >> 4) & 1;
	out->enhanced_port0 = (w.enf_caps >> 3) & 1;
	out->mcast_top = be16toh(w.mcast_top);
	return 0;
}

int smp_switch_info_encode(const struct smp_switch_info *in, uint8_t *buf, size_t len)
{
	struct switch_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lin_cap = htobe16(in->lin_cap);
	w.rand_cap = htobe16(in->rand_cap);
	w.mcast_cap = htobe16(in->mcast_cap);
	w.lin_top = htobe16(in->lin_top);
	w.def_port = in->def_port;
	w.def_mcast_pri_port = in->def_mcast_pri_port;
	w.def_mcast_not_pri_port = in->def_mcast_not_pri_port;
	w.life_state_opt = (uint8_t)(((in->life_time_value & 0x1F) << 3) |
				     ((in->port_state_change & 1) << 2) | (in->opt_sl2vl & 3));
	w.lids_per_port = htobe16(in->lids_per_port);
	w.partition_enf_cap = htobe16(in->partition_enf_cap);
	w.enf_caps = (uint8_t)(((in->inbound_enf_cap & 1) << 7) | ((in->outbound_enf_cap & 1) << 6) |
			       ((in->filter_raw_inbound_cap & 1) << 5) |
			       ((in->filter_raw_outbound_cap & 1) << 4) |
			       ((in->enhanced_port0 & 1) << 3));
	w.mcast_top = htobe16(in->mcast_top);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- PortInfo (IBA 14.2.5.6) --- */

static void port_info_unpack_bytes(const struct port_info_wire *w, struct smp_port_info *out)
{
	out->link_speed_supported = nib_hi(w->speed_sup_state);
	out->port_state = nib_lo(w->speed_sup_state);
	out->phys_state = nib_hi(w->phys_down_def);
	out->link_down_def_state = nib_lo(w->phys_down_def);
	out->mkey_protect = w->mkeyprot_lmc >> 6;
	out->lmc = w->mkeyprot_lmc & 7;
	out->link_speed_active = nib_hi(w->speed_act_en);
	out->link_speed_enabled = nib_lo(w->speed_act_en);
	out->neighbor_mtu = nib_hi(w->nmtu_smsl);
	out->master_sm_sl = nib_lo(w->nmtu_smsl);
	out->vl_cap = nib_hi(w->vlcap_inittype);
	out->init_type = nib_lo(w->vlcap_inittype);
	out->init_type_reply = nib_hi(w->itr_mtucap);
	out->mtu_cap = nib_lo(w->itr_mtucap);
	out->vl_stall_count = w->stall_hoq >> 5;
	out->hoq_life = w->stall_hoq & 0x1F;
	out->oper_vls = nib_hi(w->opvls_enf);
	out->part_enf_inbound = (w->opvls_enf >> 3) & 1;
	out->part_enf_outbound = (w->opvls_enf >> 2) & 1;
	out->filter_raw_inbound = (w->opvls_enf >> 1) & 1;
	out->filter_raw_outbound = w->opvls_enf & 1;
	out->client_reregister = w->rereg_subnet_to >> 7;
	out->mcast_pkey_trap_suppr = (w->rereg_subnet_to >> 6) & 1;
	out->subnet_timeout = w->rereg_subnet_to & 0x1F;
	out->resp_time_value = w->resp_time & 0x1F;
	out->local_phy_errors = nib_hi(w->phy_overrun_err);
	out->overrun_errors = nib_lo(w->phy_overrun_err);
	out->link_speed_ext_active = nib_hi(w->speed_ext_act_sup);
	out->link_speed_ext_supported = nib_lo(w->speed_ext_act_sup);
	out->link_speed_ext_enabled = w->speed_ext_en & 0x1F;
}

int smp_port_info_decode(const uint8_t *buf, size_t len, struct smp_port_info *out)
{
	struct port_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->mkey = be64toh(w.mkey);
	out->gid_prefix = be64toh(w.gid_prefix);
	out->lid = be16toh(w.lid);
	out->master_sm_lid = be16toh(w.master_sm_lid);
	out->cap_mask = be32toh(w.cap_mask);
	out->diag_code = be16toh(w.diag_code);
	out->mkey_lease_period = be16toh(w.mkey_lease_period);
	out->local_port = w.local_port;
	out->link_width_enabled = w.link_width_enabled;
	out->link_width_supported = w.link_width_supported;
	out->link_width_active = w.link_width_active;
	out->vl_high_limit = w.vl_high_limit;
	out->vl_arb_high_cap = w.vl_arb_high_cap;
	out->vl_arb_low_cap = w.vl_arb_low_cap;
	out->mkey_violations = be16toh(w.mkey_violations);
	out->pkey_violations = be16toh(w.pkey_violations);
	out->qkey_violations = be16toh(w.qkey_violations);
	out->guid_cap = w.guid_cap;
	out->max_credit_hint = be16toh(w.max_credit_hint);
	out->link_round_trip_latency = get_be24(w.link_rtl);
	out->cap_mask2 = be16toh(w.cap_mask2);
	port_info_unpack_bytes(&w, out);
	return 0;
}

static void port_info_pack_bytes(const struct smp_port_info *in, struct port_info_wire *w)
{
	w->speed_sup_state = nib_pack(in->link_speed_supported, in->port_state);
	w->phys_down_def = nib_pack(in->phys_state, in->link_down_def_state);
	w->mkeyprot_lmc = (uint8_t)(((in->mkey_protect & 3) << 6) | (in->lmc & 7));
	w->speed_act_en = nib_pack(in->link_speed_active, in->link_speed_enabled);
	w->nmtu_smsl = nib_pack(in->neighbor_mtu, in->master_sm_sl);
	w->vlcap_inittype = nib_pack(in->vl_cap, in->init_type);
	w->itr_mtucap = nib_pack(in->init_type_reply, in->mtu_cap);
	w->stall_hoq = (uint8_t)(((in->vl_stall_count & 7) << 5) | (in->hoq_life & 0x1F));
	w->opvls_enf = (uint8_t)(((in->oper_vls & 0xF) << 4) | ((in->part_enf_inbound & 1) << 3) |
				 ((in->part_enf_outbound & 1) << 2) |
				 ((in->filter_raw_inbound & 1) << 1) | (in->filter_raw_outbound & 1));
	w->rereg_subnet_to = (uint8_t)(((in->client_reregister & 1) << 7) |
				       ((in->mcast_pkey_trap_suppr & 1) << 6) |
				       (in->subnet_timeout & 0x1F));
	w->resp_time = in->resp_time_value & 0x1F;
	w->phy_overrun_err = nib_pack(in->local_phy_errors, in->overrun_errors);
	w->speed_ext_act_sup = nib_pack(in->link_speed_ext_active, in->link_speed_ext_supported);
	w->speed_ext_en = in->link_speed_ext_enabled & 0x1F;
}

void smp_port_info_no_change(struct smp_port_info *pi)
{
	pi->port_state = 0;
	pi->phys_state = 0;
	pi->link_down_def_state = 0;
	pi->link_speed_enabled = 0;
	pi->link_width_enabled = 0;
	pi->link_speed_ext_enabled = 0;
	pi->client_reregister = 0;
}

int smp_port_info_encode(const struct smp_port_info *in, uint8_t *buf, size_t len)
{
	struct port_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.mkey = htobe64(in->mkey);
	w.gid_prefix = htobe64(in->gid_prefix);
	w.lid = htobe16(in->lid);
	w.master_sm_lid = htobe16(in->master_sm_lid);
	w.cap_mask = htobe32(in->cap_mask);
	w.diag_code = htobe16(in->diag_code);
	w.mkey_lease_period = htobe16(in->mkey_lease_period);
	w.local_port = in->local_port;
	w.link_width_enabled = in->link_width_enabled;
	w.link_width_supported = in->link_width_supported;
	w.link_width_active = in->link_width_active;
	w.vl_high_limit = in->vl_high_limit;
	w.vl_arb_high_cap = in->vl_arb_high_cap;
	w.vl_arb_low_cap = in->vl_arb_low_cap;
	w.mkey_violations = htobe16(in->mkey_violations);
	w.pkey_violations = htobe16(in->pkey_violations);
	w.qkey_violations = htobe16(in->qkey_violations);
	w.guid_cap = in->guid_cap;
	w.max_credit_hint = htobe16(in->max_credit_hint);
	put_be24(w.link_rtl, in->link_round_trip_latency);
	w.cap_mask2 = htobe16(in->cap_mask2);
	port_info_pack_bytes(in, &w);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- SMInfo (IBA 14.2.5.13) --- */

int smp_sm_info_decode(const uint8_t *buf, size_t len, struct smp_sm_info *out)
{
	struct sm_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->guid = be64toh(w.guid);
	out->sm_key = be64toh(w.sm_key);
	out->act_count = be32toh(w.act_count);
	out->priority = nib_hi(w.prio_state);
	out->sm_state = nib_lo(w.prio_state);
	return 0;
}

int smp_sm_info_encode(const struct smp_sm_info *in, uint8_t *buf, size_t len)
{
	struct sm_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.guid = htobe64(in->guid);
	w.sm_key = htobe64(in->sm_key);
	w.act_count = htobe32(in->act_count);
	w.prio_state = nib_pack(in->priority, in->sm_state);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- LinearForwardingTable block (IBA 14.2.5.10) --- */

int smp_lft_block_decode(const uint8_t *buf, size_t len, struct smp_lft_block *out)
{
	if (!buf || len < sizeof(struct lft_block_wire))
		return -EINVAL;
	memcpy(out->port, buf, sizeof(out->port));
	return 0;
}

int smp_lft_block_encode(const struct smp_lft_block *in, uint8_t *buf, size_t len)
{
	if (!buf || len < sizeof(struct lft_block_wire))
		return -EINVAL;
	memcpy(buf, in->port, sizeof(in->port));
	return 0;
}

/* --- P_KeyTable block (IBA 14.2.5.7) --- */

int smp_pkey_block_decode(const uint8_t *buf, size_t len, struct smp_pkey_block *out)
{
	struct pkey_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	for (unsigned i = 0; i < 32; i++)
		out->pkey[i] = be16toh(w.pkey[i]);
	return 0;
}

int smp_pkey_block_encode(const struct smp_pkey_block *in, uint8_t *buf, size_t len)
{
	struct pkey_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	for (unsigned i = 0; i < 32; i++)
		w.pkey[i] = htobe16(in->pkey[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- SL2VLMappingTable (IBA 14.2.5.8) --- */

int smp_sl2vl_decode(const uint8_t *buf, size_t len, struct smp_sl2vl *out)
{
	struct sl2vl_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	for (unsigned i = 0; i < 8; i++) {
		out->vl[2 * i] = nib_hi(w.vl[i]);
		out->vl[2 * i + 1] = nib_lo(w.vl[i]);
	}
	return 0;
}

int smp_sl2vl_encode(const struct smp_sl2vl *in, uint8_t *buf, size_t len)
{
	struct sl2vl_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	for (unsigned i = 0; i < 8; i++)
		w.vl[i] = nib_pack(in->vl[2 * i], in->vl[2 * i + 1]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- VLArbitrationTable block (IBA 14.2.5.9) --- */

int smp_vlarb_block_decode(const uint8_t *buf, size_t len, struct smp_vlarb_block *out)
{
	struct vlarb_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	for (unsigned i = 0; i < 32; i++) {
		out->e[i].vl = nib_lo(w.e[i].vl);
		out->e[i].weight = w.e[i].weight;
	}
	return 0;
}

int smp_vlarb_block_encode(const struct smp_vlarb_block *in, uint8_t *buf, size_t len)
{
	struct vlarb_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	for (unsigned i = 0; i < 32; i++) {
		w.e[i].vl = in->e[i].vl & 0xF;
		w.e[i].weight = in->e[i].weight;
	}
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- MulticastForwardingTable block (IBA 14.2.5.12) --- */

int smp_mft_block_decode(const uint8_t *buf, size_t len, struct smp_mft_block *out)
{
	struct mft_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	for (unsigned i = 0; i < 32; i++)
		out->mask[i] = be16toh(w.mask[i]);
	return 0;
}

int smp_mft_block_encode(const struct smp_mft_block *in, uint8_t *buf, size_t len)
{
	struct mft_block_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	for (unsigned i = 0; i < 32; i++)
		w.mask[i] = htobe16(in->mask[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- Notice (IBA 13.4.8.2) --- */

/* An SMP data area holds only the first 64 bytes, so the decoder needs 64
 * and takes IssuerGID only when the caller has all 80 bytes. */
#define NOTICE_SMP_PART 64

int smp_notice_decode(const uint8_t *buf, size_t len, struct smp_notice *out)
{
	struct notice_wire w;

	if (!buf || len < NOTICE_SMP_PART)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	memcpy(&w, buf, len >= sizeof(w) ? sizeof(w) : NOTICE_SMP_PART);
	out->is_generic = w.generic_type >> 7;
	out->type = w.generic_type & 0x7F;
	out->producer_type = get_be24(w.producer_type);
	out->trap_num = be16toh(w.trap_num);
	out->issuer_lid = be16toh(w.issuer_lid);
	out->toggle = be16toh(w.toggle_count) >> 15;
	out->count = be16toh(w.toggle_count) & 0x7FFF;
	memcpy(out->data_details, w.data_details, sizeof(out->data_details));
	memcpy(out->issuer_gid, w.issuer_gid, sizeof(out->issuer_gid));
	return 0;
}

int smp_notice_encode(const struct smp_notice *in, uint8_t *buf, size_t len)
{
	struct notice_wire w;

	if (!buf || len < NOTICE_SMP_PART)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.generic_type = (uint8_t)(((in->is_generic & 1) << 7) | (in->type & 0x7F));
	put_be24(w.producer_type, in->producer_type);
	w.trap_num = htobe16(in->trap_num);
	w.issuer_lid = htobe16(in->issuer_lid);
	w.toggle_count = htobe16((uint16_t)(((in->toggle & 1) << 15) | (in->count & 0x7FFF)));
	memcpy(w.data_details, in->data_details, sizeof(w.data_details));
	memcpy(w.issuer_gid, in->issuer_gid, sizeof(w.issuer_gid));
	/* Into an SMP data area only the first 64 bytes fit. */
	memcpy(buf, &w, len >= sizeof(w) ? sizeof(w) : NOTICE_SMP_PART);
	return 0;
}
