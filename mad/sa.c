/*
 * DOC: SA header and SA record codecs (see mad/sa.h).
 *
 * Same pattern as mad/smp.c: copy the input into the packed wire struct of
 * include/ibsm/sa_wire.h (so unaligned input is fine), convert byte order,
 * unpack the sub-byte fields; encoders fill a zeroed wire struct and copy
 * exactly its size out. Input comes from the fabric: every decoder checks
 * the length before it reads.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ibsm/sa_wire.h"
#include "mad/be24.h"
#include "mad/sa.h"

/* A selector (2 bits) and a value (6 bits) in one byte: MTU, Rate,
 * PacketLifeTime of PathRecord and MCMemberRecord. */
static uint8_t sel_pack(uint8_t sel, uint8_t val)
{
	return (uint8_t)(((sel & 3) << 6) | (val & 0x3F));
}

static void sel_unpack(uint8_t b, uint8_t *sel, uint8_t *val)
{
	*sel = b >> 6;
	*val = b & 0x3F;
}

/* --- SA header (IBA 15.2.1) --- */

int sa_hdr_decode(const uint8_t *buf, size_t len, struct sa_hdr *out)
{
	struct sa_hdr_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	if (w.hdr.base_version != 1 || w.hdr.mgmt_class != MAD_CLASS_SA)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->hdr.base_version = w.hdr.base_version;
	out->hdr.mgmt_class = w.hdr.mgmt_class;
	out->hdr.class_version = w.hdr.class_version;
	out->hdr.method = w.hdr.method;
	out->hdr.status = be16toh(w.hdr.status);
	out->hdr.tid = be64toh(w.hdr.tid);
	out->hdr.attr_id = be16toh(w.hdr.attr_id);
	out->hdr.attr_mod = be32toh(w.hdr.attr_mod);
	rmpp_hdr_decode(buf, len, &out->rmpp);
	out->sm_key = be64toh(w.sm_key);
	out->attr_offset = be16toh(w.attr_offset);
	out->comp_mask = be64toh(w.comp_mask);
	return 0;
}

int sa_hdr_encode(const struct sa_hdr *in, uint8_t *buf, size_t len)
{
	struct sa_hdr_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.hdr.base_version = in->hdr.base_version;
	w.hdr.mgmt_class = in->hdr.mgmt_class;
	w.hdr.class_version = in->hdr.class_version;
	w.hdr.method = in->hdr.method;
	w.hdr.status = htobe16(in->hdr.status);
	w.hdr.class_specific = 0;
	w.hdr.tid = htobe64(in->hdr.tid);
	w.hdr.attr_id = htobe16(in->hdr.attr_id);
	w.hdr.attr_mod = htobe32(in->hdr.attr_mod);
	w.sm_key = htobe64(in->sm_key);
	w.attr_offset = htobe16(in->attr_offset);
	w.comp_mask = htobe64(in->comp_mask);
	memcpy(buf, &w, sizeof(w));
	rmpp_hdr_encode(&in->rmpp, buf, len);
	return 0;
}

uint8_t sa_resp_method(uint8_t req_method)
{
	switch (req_method) {
	case SA_METHOD_GET:
	case SA_METHOD_SET:
		return SA_METHOD_GET_RESP;
	case SA_METHOD_GET_TABLE:
	case SA_METHOD_GET_TRACE_TABLE:
		return SA_METHOD_GET_TABLE_RESP;
	case SA_METHOD_GET_MULTI:
		return SA_METHOD_GET_MULTI_RESP;
	case SA_METHOD_DELETE:
		return SA_METHOD_DELETE_RESP;
	case SA_METHOD_REPORT:
		return SA_METHOD_REPORT_RESP;
	default:
		return (uint8_t)(req_method | 0x80);
	}
}

void sa_req_hdr(struct sa_hdr *h, uint8_t method, uint16_t attr, uint64_t tid)
{
	memset(h, 0, sizeof(*h));
	h->hdr.base_version = 1;
	h->hdr.mgmt_class = MAD_CLASS_SA;
	h->hdr.class_version = SA_CLASS_VERSION;
	h->hdr.method = method;
	h->hdr.tid = tid;
	h->hdr.attr_id = attr;
}

void sa_resp_hdr(const struct sa_hdr *req, uint16_t attr_offset, struct sa_hdr *resp)
{
	*resp = *req;
	resp->hdr.method = sa_resp_method(req->hdr.method);
	resp->hdr.status = 0;
	memset(&resp->rmpp, 0, sizeof(resp->rmpp));
	/* C15-0.1.5: responses always carry SM_Key 0 */
	resp->sm_key = 0;
	resp->attr_offset = attr_offset;
}

int sa_error_resp(const struct sa_hdr *req, uint16_t status, uint8_t *buf, size_t len)
{
	struct sa_hdr h;

	if (!req || !buf || len < MAD_SIZE)
		return -EINVAL;
	sa_resp_hdr(req, 0, &h);
	h.hdr.status = status;
	memset(buf, 0, MAD_SIZE);
	return sa_hdr_encode(&h, buf, MAD_SIZE);
}

/* --- ClassPortInfo (IBA 13.4.8.1) --- */

/* TC:8 SL:4 FlowLabel:20 */
static void tsf_unpack(__be32 v, uint8_t *tc, uint8_t *sl, uint32_t *fl)
{
	uint32_t x = be32toh(v);

	*tc = (uint8_t)(x >> 24);
	*sl = (x >> 20) & 0xF;
	*fl = x & 0xFFFFF;
}

static __be32 tsf_pack(uint8_t tc, uint8_t sl, uint32_t fl)
{
	return htobe32(((uint32_t)tc << 24) | ((uint32_t)(sl & 0xF) << 20) | (fl & 0xFFFFF));
}

int sa_class_port_info_decode(const uint8_t *buf, size_t len, struct sa_class_port_info *out)
{
	struct class_port_info_wire w;
	uint32_t cm2;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memset(out, 0, sizeof(*out));
	out->base_version = w.base_version;
	out->class_version = w.class_version;
	out->cap_mask = be16toh(w.cap_mask);
	cm2 = be32toh(w.cap_mask2_resp_time);
	out->cap_mask2 = cm2 >> 5;
	out->resp_time_value = cm2 & 0x1F;
	memcpy(out->redir_gid, w.redir_gid, 16);
	tsf_unpack(w.redir_tc_sl_fl, &out->redir_tc, &out->redir_sl, &out->redir_fl);
	out->redir_lid = be16toh(w.redir_lid);
	out->redir_pkey = be16toh(w.redir_pkey);
	out->redir_qp = be32toh(w.redir_qp) & 0xFFFFFF;
	out->redir_qkey = be32toh(w.redir_qkey);
	memcpy(out->trap_gid, w.trap_gid, 16);
	tsf_unpack(w.trap_tc_sl_fl, &out->trap_tc, &out->trap_sl, &out->trap_fl);
	out->trap_lid = be16toh(w.trap_lid);
	out->trap_pkey = be16toh(w.trap_pkey);
	out->trap_hl = (uint8_t)(be32toh(w.trap_hl_qp) >> 24);
	out->trap_qp = be32toh(w.trap_hl_qp) & 0xFFFFFF;
	out->trap_qkey = be32toh(w.trap_qkey);
	return 0;
}

int sa_class_port_info_encode(const struct sa_class_port_info *in, uint8_t *buf, size_t len)
{
	struct class_port_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.base_version = in->base_version;
	w.class_version = in->class_version;
	w.cap_mask = htobe16(in->cap_mask);
	w.cap_mask2_resp_time = htobe32((in->cap_mask2 << 5) | (in->resp_time_value & 0x1F));
	memcpy(w.redir_gid, in->redir_gid, 16);
	w.redir_tc_sl_fl = tsf_pack(in->redir_tc, in->redir_sl, in->redir_fl);
	w.redir_lid = htobe16(in->redir_lid);
	w.redir_pkey = htobe16(in->redir_pkey);
	w.redir_qp = htobe32(in->redir_qp & 0xFFFFFF);
	w.redir_qkey = htobe32(in->redir_qkey);
	memcpy(w.trap_gid, in->trap_gid, 16);
	w.trap_tc_sl_fl = tsf_pack(in->trap_tc, in->trap_sl, in->trap_fl);
	w.trap_lid = htobe16(in->trap_lid);
	w.trap_pkey = htobe16(in->trap_pkey);
	w.trap_hl_qp = htobe32(((uint32_t)in->trap_hl << 24) | (in->trap_qp & 0xFFFFFF));
	w.trap_qkey = htobe32(in->trap_qkey);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- records that wrap an SMP attribute --- */

int sa_node_rec_decode(const uint8_t *buf, size_t len, struct sa_node_rec *out)
{
	struct sa_node_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	smp_node_info_decode(buf + offsetof(struct sa_node_rec_wire, node_info),
			     sizeof(w.node_info), &out->info);
	return smp_node_desc_decode(buf + offsetof(struct sa_node_rec_wire, node_desc),
				    sizeof(w.node_desc), &out->desc);
}

int sa_node_rec_encode(const struct sa_node_rec *in, uint8_t *buf, size_t len)
{
	struct sa_node_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	smp_node_info_encode(&in->info, (uint8_t *)&w.node_info, sizeof(w.node_info));
	smp_node_desc_encode(&in->desc, w.node_desc.desc, sizeof(w.node_desc));
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_port_info_rec_decode(const uint8_t *buf, size_t len, struct sa_port_info_rec *out)
{
	struct sa_port_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.endport_lid);
	out->port_num = w.port_num;
	out->options = w.options;
	return smp_port_info_decode(buf + offsetof(struct sa_port_info_rec_wire, port_info),
				    sizeof(w.port_info), &out->info);
}

int sa_port_info_rec_encode(const struct sa_port_info_rec *in, uint8_t *buf, size_t len)
{
	struct sa_port_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.endport_lid = htobe16(in->lid);
	w.port_num = in->port_num;
	w.options = in->options;
	smp_port_info_encode(&in->info, (uint8_t *)&w.port_info, sizeof(w.port_info));
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_switch_info_rec_decode(const uint8_t *buf, size_t len, struct sa_switch_info_rec *out)
{
	struct sa_switch_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	return smp_switch_info_decode(buf + offsetof(struct sa_switch_info_rec_wire, switch_info),
				      sizeof(w.switch_info), &out->info);
}

int sa_switch_info_rec_encode(const struct sa_switch_info_rec *in, uint8_t *buf, size_t len)
{
	struct sa_switch_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	smp_switch_info_encode(&in->info, (uint8_t *)&w.switch_info, sizeof(w.switch_info));
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_sm_info_rec_decode(const uint8_t *buf, size_t len, struct sa_sm_info_rec *out)
{
	struct sa_sm_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	return smp_sm_info_decode(buf + offsetof(struct sa_sm_info_rec_wire, sm_info),
				  sizeof(w.sm_info), &out->info);
}

int sa_sm_info_rec_encode(const struct sa_sm_info_rec *in, uint8_t *buf, size_t len)
{
	struct sa_sm_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	smp_sm_info_encode(&in->info, (uint8_t *)&w.sm_info, sizeof(w.sm_info));
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* Notice: the whole 80 bytes, IssuerGID included. */
int sa_notice_decode(const uint8_t *buf, size_t len, struct smp_notice *out)
{
	if (!buf || len < sizeof(struct notice_wire))
		return -EINVAL;
	return smp_notice_decode(buf, sizeof(struct notice_wire), out);
}

int sa_notice_encode(const struct smp_notice *in, uint8_t *buf, size_t len)
{
	if (!buf || len < sizeof(struct notice_wire))
		return -EINVAL;
	return smp_notice_encode(in, buf, sizeof(struct notice_wire));
}

/* --- table records --- */

int sa_sl2vl_rec_decode(const uint8_t *buf, size_t len, struct sa_sl2vl_rec *out)
{
	struct sa_sl2vl_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	out->in_port = w.in_port;
	out->out_port = w.out_port;
	/* IBA 14.2.5.8: SL 2i in the high nibble of byte i */
	for (unsigned i = 0; i < 8; i++) {
		out->vl[2 * i] = w.sl2vl[i] >> 4;
		out->vl[2 * i + 1] = w.sl2vl[i] & 0xF;
	}
	return 0;
}

int sa_sl2vl_rec_encode(const struct sa_sl2vl_rec *in, uint8_t *buf, size_t len)
{
	struct sa_sl2vl_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	w.in_port = in->in_port;
	w.out_port = in->out_port;
	for (unsigned i = 0; i < 8; i++)
		w.sl2vl[i] = (uint8_t)(((in->vl[2 * i] & 0xF) << 4) | (in->vl[2 * i + 1] & 0xF));
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_lft_rec_decode(const uint8_t *buf, size_t len, struct sa_lft_rec *out)
{
	struct sa_lft_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	out->block = be16toh(w.block);
	memcpy(out->port, w.port, sizeof(out->port));
	return 0;
}

int sa_lft_rec_encode(const struct sa_lft_rec *in, uint8_t *buf, size_t len)
{
	struct sa_lft_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	w.block = htobe16(in->block);
	memcpy(w.port, in->port, sizeof(w.port));
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_mft_rec_decode(const uint8_t *buf, size_t len, struct sa_mft_rec *out)
{
	struct sa_mft_rec_wire w;
	uint16_t pb;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	pb = be16toh(w.pos_block);
	out->position = pb >> 12;
	out->block = pb & 0x1FF;
	for (unsigned i = 0; i < 32; i++)
		out->mask[i] = be16toh(w.mask[i]);
	return 0;
}

int sa_mft_rec_encode(const struct sa_mft_rec *in, uint8_t *buf, size_t len)
{
	struct sa_mft_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	w.pos_block = htobe16((uint16_t)(((in->position & 0xF) << 12) | (in->block & 0x1FF)));
	for (unsigned i = 0; i < 32; i++)
		w.mask[i] = htobe16(in->mask[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_link_rec_decode(const uint8_t *buf, size_t len, struct sa_link_rec *out)
{
	struct sa_link_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->from_lid = be16toh(w.from_lid);
	out->from_port = w.from_port;
	out->to_port = w.to_port;
	out->to_lid = be16toh(w.to_lid);
	return 0;
}

int sa_link_rec_encode(const struct sa_link_rec *in, uint8_t *buf, size_t len)
{
	struct sa_link_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	w.from_lid = htobe16(in->from_lid);
	w.from_port = in->from_port;
	w.to_port = in->to_port;
	w.to_lid = htobe16(in->to_lid);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_guid_info_rec_decode(const uint8_t *buf, size_t len, struct sa_guid_info_rec *out)
{
	struct sa_guid_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	out->block = w.block;
	for (unsigned i = 0; i < 8; i++)
		out->guid[i] = be64toh(w.guid[i]);
	return 0;
}

int sa_guid_info_rec_encode(const struct sa_guid_info_rec *in, uint8_t *buf, size_t len)
{
	struct sa_guid_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	w.block = in->block;
	for (unsigned i = 0; i < 8; i++)
		w.guid[i] = htobe64(in->guid[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_pkey_rec_decode(const uint8_t *buf, size_t len, struct sa_pkey_rec *out)
{
	struct sa_pkey_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	out->block = be16toh(w.block);
	out->port_num = w.port_num;
	for (unsigned i = 0; i < 32; i++)
		out->pkey[i] = be16toh(w.pkey[i]);
	return 0;
}

int sa_pkey_rec_encode(const struct sa_pkey_rec *in, uint8_t *buf, size_t len)
{
	struct sa_pkey_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	w.block = htobe16(in->block);
	w.port_num = in->port_num;
	for (unsigned i = 0; i < 32; i++)
		w.pkey[i] = htobe16(in->pkey[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_vlarb_rec_decode(const uint8_t *buf, size_t len, struct sa_vlarb_rec *out)
{
	struct sa_vlarb_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->lid = be16toh(w.lid);
	out->out_port = w.out_port;
	out->block = w.block;
	for (unsigned i = 0; i < 32; i++) {
		out->entry[i].vl = w.entry[i][0] & 0xF;
		out->entry[i].weight = w.entry[i][1];
	}
	return 0;
}

int sa_vlarb_rec_encode(const struct sa_vlarb_rec *in, uint8_t *buf, size_t len)
{
	struct sa_vlarb_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.lid = htobe16(in->lid);
	w.out_port = in->out_port;
	w.block = in->block;
	for (unsigned i = 0; i < 32; i++) {
		w.entry[i][0] = in->entry[i].vl & 0xF;
		w.entry[i][1] = in->entry[i].weight;
	}
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- ServiceRecord --- */

int sa_service_rec_decode(const uint8_t *buf, size_t len, struct sa_service_rec *out)
{
	struct sa_service_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->id = be64toh(w.id);
	memcpy(out->gid, w.gid, 16);
	out->pkey = be16toh(w.pkey);
	out->lease = be32toh(w.lease);
	memcpy(out->key, w.key, 16);
	memcpy(out->name, w.name, 64);
	memcpy(out->data8, w.data8, 16);
	for (unsigned i = 0; i < 8; i++)
		out->data16[i] = be16toh(w.data16[i]);
	for (unsigned i = 0; i < 4; i++)
		out->data32[i] = be32toh(w.data32[i]);
	for (unsigned i = 0; i < 2; i++)
		out->data64[i] = be64toh(w.data64[i]);
	return 0;
}

int sa_service_rec_encode(const struct sa_service_rec *in, uint8_t *buf, size_t len)
{
	struct sa_service_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.id = htobe64(in->id);
	memcpy(w.gid, in->gid, 16);
	w.pkey = htobe16(in->pkey);
	w.lease = htobe32(in->lease);
	memcpy(w.key, in->key, 16);
	memcpy(w.name, in->name, 64);
	memcpy(w.data8, in->data8, 16);
	for (unsigned i = 0; i < 8; i++)
		w.data16[i] = htobe16(in->data16[i]);
	for (unsigned i = 0; i < 4; i++)
		w.data32[i] = htobe32(in->data32[i]);
	for (unsigned i = 0; i < 2; i++)
		w.data64[i] = htobe64(in->data64[i]);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- PathRecord and MultiPathRecord share their QoS fields --- */

/* RawTraffic:1 rsv:3 FlowLabel:20 HopLimit:8 */
static void rfh_unpack(__be32 v, uint8_t *raw, uint32_t *fl, uint8_t *hl)
{
	uint32_t x = be32toh(v);

	*raw = x >> 31;
	*fl = (x >> 8) & 0xFFFFF;
	*hl = (uint8_t)x;
}

static __be32 rfh_pack(uint8_t raw, uint32_t fl, uint8_t hl)
{
	return htobe32(((uint32_t)(raw & 1) << 31) | ((fl & 0xFFFFF) << 8) | hl);
}

int sa_path_rec_decode(const uint8_t *buf, size_t len, struct sa_path_rec *out)
{
	struct sa_path_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	out->service_id = be64toh(w.service_id);
	memcpy(out->dgid, w.dgid, 16);
	memcpy(out->sgid, w.sgid, 16);
	out->dlid = be16toh(w.dlid);
	out->slid = be16toh(w.slid);
	rfh_unpack(w.raw_flow_hop, &out->raw_traffic, &out->flow_label, &out->hop_limit);
	out->tclass = w.tclass;
	out->reversible = w.rev_numpath >> 7;
	out->numb_path = w.rev_numpath & 0x7F;
	out->pkey = be16toh(w.pkey);
	out->qos_class = be16toh(w.qos_sl) >> 4;
	out->sl = be16toh(w.qos_sl) & 0xF;
	sel_unpack(w.mtu, &out->mtu_sel, &out->mtu);
	sel_unpack(w.rate, &out->rate_sel, &out->rate);
	sel_unpack(w.pkt_life, &out->pkt_life_sel, &out->pkt_life);
	out->preference = w.preference;
	return 0;
}

int sa_path_rec_encode(const struct sa_path_rec *in, uint8_t *buf, size_t len)
{
	struct sa_path_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.service_id = htobe64(in->service_id);
	memcpy(w.dgid, in->dgid, 16);
	memcpy(w.sgid, in->sgid, 16);
	w.dlid = htobe16(in->dlid);
	w.slid = htobe16(in->slid);
	w.raw_flow_hop = rfh_pack(in->raw_traffic, in->flow_label, in->hop_limit);
	w.tclass = in->tclass;
	w.rev_numpath = (uint8_t)(((in->reversible & 1) << 7) | (in->numb_path & 0x7F));
	w.pkey = htobe16(in->pkey);
	w.qos_sl = htobe16((uint16_t)(((in->qos_class & 0xFFF) << 4) | (in->sl & 0xF)));
	w.mtu = sel_pack(in->mtu_sel, in->mtu);
	w.rate = sel_pack(in->rate_sel, in->rate);
	w.pkt_life = sel_pack(in->pkt_life_sel, in->pkt_life);
	w.preference = in->preference;
	memcpy(buf, &w, sizeof(w));
	return 0;
}

static size_t multipath_len(const struct sa_multipath_rec_wire *w)
{
	return sizeof(*w) + 16u * ((size_t)w->sgid_count + w->dgid_count);
}

int sa_multipath_rec_decode(const uint8_t *buf, size_t len, struct sa_multipath_rec *out)
{
	struct sa_multipath_rec_wire w;
	uint64_t sid = 0;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	if (len < multipath_len(&w))
		return -EINVAL;
	rfh_unpack(w.raw_flow_hop, &out->raw_traffic, &out->flow_label, &out->hop_limit);
	out->tclass = w.tclass;
	out->reversible = w.rev_numpath >> 7;
	out->numb_path = w.rev_numpath & 0x7F;
	out->pkey = be16toh(w.pkey);
	out->qos_class = be16toh(w.qos_sl) >> 4;
	out->sl = be16toh(w.qos_sl) & 0xF;
	sel_unpack(w.mtu, &out->mtu_sel, &out->mtu);
	sel_unpack(w.rate, &out->rate_sel, &out->rate);
	sel_unpack(w.pkt_life, &out->pkt_life_sel, &out->pkt_life);
	for (unsigned i = 0; i < 7; i++)
		sid = (sid << 8) | w.service_id_lsb[i];
	out->service_id = ((uint64_t)w.service_id_msb << 56) | sid;
	out->independence_sel = w.independence >> 6;
	out->sgid_count = w.sgid_count;
	out->dgid_count = w.dgid_count;
	return 0;
}

int sa_multipath_rec_encode(const struct sa_multipath_rec *in, uint8_t *buf, size_t len)
{
	struct sa_multipath_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.raw_flow_hop = rfh_pack(in->raw_traffic, in->flow_label, in->hop_limit);
	w.tclass = in->tclass;
	w.rev_numpath = (uint8_t)(((in->reversible & 1) << 7) | (in->numb_path & 0x7F));
	w.pkey = htobe16(in->pkey);
	w.qos_sl = htobe16((uint16_t)(((in->qos_class & 0xFFF) << 4) | (in->sl & 0xF)));
	w.mtu = sel_pack(in->mtu_sel, in->mtu);
	w.rate = sel_pack(in->rate_sel, in->rate);
	w.pkt_life = sel_pack(in->pkt_life_sel, in->pkt_life);
	w.service_id_msb = (uint8_t)(in->service_id >> 56);
	for (unsigned i = 0; i < 7; i++)
		w.service_id_lsb[i] = (uint8_t)(in->service_id >> (8 * (6 - i)));
	w.independence = (uint8_t)((in->independence_sel & 3) << 6);
	w.sgid_count = in->sgid_count;
	w.dgid_count = in->dgid_count;
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_multipath_gid(const uint8_t *buf, size_t len, unsigned i, uint8_t gid[16])
{
	struct sa_multipath_rec_wire w;
	size_t off;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	if (i >= (unsigned)w.sgid_count + w.dgid_count)
		return -EINVAL;
	off = sizeof(w) + 16u * i;
	if (len < off + 16)
		return -EINVAL;
	memcpy(gid, buf + off, 16);
	return 0;
}

/* --- MCMemberRecord --- */

int sa_mcmember_rec_decode(const uint8_t *buf, size_t len, struct sa_mcmember_rec *out)
{
	struct sa_mcmember_rec_wire w;
	uint32_t sfh;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memcpy(out->mgid, w.mgid, 16);
	memcpy(out->port_gid, w.port_gid, 16);
	out->qkey = be32toh(w.qkey);
	out->mlid = be16toh(w.mlid);
	sel_unpack(w.mtu, &out->mtu_sel, &out->mtu);
	out->tclass = w.tclass;
	out->pkey = be16toh(w.pkey);
	sel_unpack(w.rate, &out->rate_sel, &out->rate);
	sel_unpack(w.pkt_life, &out->pkt_life_sel, &out->pkt_life);
	sfh = be32toh(w.sl_flow_hop);
	out->sl = sfh >> 28;
	out->flow_label = (sfh >> 8) & 0xFFFFF;
	out->hop_limit = (uint8_t)sfh;
	out->scope = w.scope_state >> 4;
	out->join_state = w.scope_state & 0xF;
	/* bit 7 per the IBA and Linux; bit 0 where OpenSM's bitfield put it */
	out->proxy_join = ((w.proxy_join >> 7) | w.proxy_join) & 1;
	return 0;
}

int sa_mcmember_rec_encode(const struct sa_mcmember_rec *in, uint8_t *buf, size_t len)
{
	struct sa_mcmember_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	memcpy(w.mgid, in->mgid, 16);
	memcpy(w.port_gid, in->port_gid, 16);
	w.qkey = htobe32(in->qkey);
	w.mlid = htobe16(in->mlid);
	w.mtu = sel_pack(in->mtu_sel, in->mtu);
	w.tclass = in->tclass;
	w.pkey = htobe16(in->pkey);
	w.rate = sel_pack(in->rate_sel, in->rate);
	w.pkt_life = sel_pack(in->pkt_life_sel, in->pkt_life);
	w.sl_flow_hop = htobe32(((uint32_t)(in->sl & 0xF) << 28) |
				((in->flow_label & 0xFFFFF) << 8) | in->hop_limit);
	w.scope_state = (uint8_t)(((in->scope & 0xF) << 4) | (in->join_state & 0xF));
	w.proxy_join = (uint8_t)((in->proxy_join & 1) << 7);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- InformInfo and InformInfoRecord --- */

static void inform_unpack(const struct inform_info_wire *w, struct sa_inform_info *out)
{
	uint32_t q = be32toh(w->qpn_resp_time);

	memcpy(out->gid, w->gid, 16);
	out->lid_begin = be16toh(w->lid_begin);
	out->lid_end = be16toh(w->lid_end);
	out->is_generic = w->is_generic;
	out->subscribe = w->subscribe;
	out->type = be16toh(w->type);
	out->trap_num = be16toh(w->trap_num);
	out->qpn = q >> 8;
	out->resp_time_value = q & 0x1F;
	out->producer_type = get_be24(w->producer_type);
}

static void inform_pack(const struct sa_inform_info *in, struct inform_info_wire *w)
{
	memcpy(w->gid, in->gid, 16);
	w->lid_begin = htobe16(in->lid_begin);
	w->lid_end = htobe16(in->lid_end);
	w->is_generic = in->is_generic;
	w->subscribe = in->subscribe;
	w->type = htobe16(in->type);
	w->trap_num = htobe16(in->trap_num);
	w->qpn_resp_time = htobe32(((in->qpn & 0xFFFFFF) << 8) | (in->resp_time_value & 0x1F));
	put_be24(w->producer_type, in->producer_type);
}

int sa_inform_info_decode(const uint8_t *buf, size_t len, struct sa_inform_info *out)
{
	struct inform_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	inform_unpack(&w, out);
	return 0;
}

int sa_inform_info_encode(const struct sa_inform_info *in, uint8_t *buf, size_t len)
{
	struct inform_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	inform_pack(in, &w);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

int sa_inform_info_rec_decode(const uint8_t *buf, size_t len, struct sa_inform_info_rec *out)
{
	struct sa_inform_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memcpy(out->subscriber_gid, w.subscriber_gid, 16);
	out->subscriber_enum = be16toh(w.subscriber_enum);
	inform_unpack(&w.inform_info, &out->info);
	return 0;
}

int sa_inform_info_rec_encode(const struct sa_inform_info_rec *in, uint8_t *buf, size_t len)
{
	struct sa_inform_info_rec_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	memcpy(w.subscriber_gid, in->subscriber_gid, 16);
	w.subscriber_enum = htobe16(in->subscriber_enum);
	inform_pack(&in->info, &w.inform_info);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* ClientStateInfo: the magic says the answer is ibsmd's. */
static const uint8_t clients_magic[7] = { 'i', 'b', 's', 'm', 'd', 0, 0 };

int sa_clients_info_decode(const uint8_t *buf, size_t len, struct sa_clients_info *out)
{
	struct sa_clients_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memset(out, 0, sizeof(*out));
	if (memcmp(w.magic, clients_magic, sizeof(clients_magic)))
		return 0;
	out->version = w.magic[7];
	out->sm_guid = be64toh(w.sm_guid);
	out->gen = be64toh(w.gen);
	out->groups = be32toh(w.groups);
	out->members = be32toh(w.members);
	out->services = be32toh(w.services);
	out->subs = be32toh(w.subs);
	return 0;
}

int sa_clients_info_encode(const struct sa_clients_info *in, uint8_t *buf, size_t len)
{
	struct sa_clients_info_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	memcpy(w.magic, clients_magic, sizeof(clients_magic));
	w.magic[7] = in->version;
	w.sm_guid = htobe64(in->sm_guid);
	w.gen = htobe64(in->gen);
	w.groups = htobe32(in->groups);
	w.members = htobe32(in->members);
	w.services = htobe32(in->services);
	w.subs = htobe32(in->subs);
	memcpy(buf, &w, sizeof(w));
	return 0;
}
