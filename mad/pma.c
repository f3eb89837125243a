/*
 * DOC: PerfMgt attribute codecs and the PMA reply parser (see mad/pma.h).
 *
 * Same pattern as mad/smp.c: copy the input into the packed wire struct of
 * include/ibsm/pma_wire.h, convert byte order, unpack the nibbles; encoders
 * fill a zeroed wire struct and copy exactly its size out. Replies come
 * from the fabric: the whole MAD is checked before any attribute is read.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ibsm/pma_wire.h"
#include "mad/pma.h"
#include "mad/sa.h"

_Static_assert(offsetof(struct pma_mad_wire, data) == PMA_DATA_OFFSET, "PMA data offset");
_Static_assert(sizeof(struct pma_port_counters_ext_wire) == PMA_PCE_FULL_SIZE, "PCE size");
_Static_assert(offsetof(struct pma_port_counters_ext_wire, symbol_err) == PMA_PCE_BASE_SIZE,
	       "PCE additional counters offset");

int pma_class_port_info_decode(const uint8_t *buf, size_t len, struct pma_class_port_info *out)
{
	struct sa_class_port_info c;

	if (sa_class_port_info_decode(buf, len, &c) < 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->base_version = c.base_version;
	out->class_version = c.class_version;
	out->cap_mask = c.cap_mask;
	out->cap_mask2 = c.cap_mask2;
	out->resp_time_value = c.resp_time_value;
	return 0;
}

static int class_port_info_encode(const struct pma_class_port_info *in, uint8_t *buf, size_t len)
{
	struct sa_class_port_info c;

	memset(&c, 0, sizeof(c));
	c.base_version = in->base_version;
	c.class_version = in->class_version;
	c.cap_mask = in->cap_mask;
	c.cap_mask2 = in->cap_mask2 & 0x7FFFFFF;
	c.resp_time_value = in->resp_time_value & 0x1F;
	return sa_class_port_info_encode(&c, buf, len);
}

/* --- PortCounters (IBA 16.1.3.5) --- */

static void pc_errors_decode(const struct pma_port_counters_wire *w, struct pma_port_counters *o)
{
	o->symbol_err = be16toh(w->symbol_err);
	o->link_err_recover = w->link_err_recover;
	o->link_downed = w->link_downed;
	o->rcv_err = be16toh(w->rcv_err);
	o->rcv_remote_phys = be16toh(w->rcv_remote_phys);
	o->rcv_switch_relay = be16toh(w->rcv_switch_relay);
	o->xmit_discards = be16toh(w->xmit_discards);
	o->xmit_constraint = w->xmit_constraint;
	o->rcv_constraint = w->rcv_constraint;
	o->local_link_integrity = w->lli_ebo >> 4;
	o->excessive_buf_overrun = w->lli_ebo & 0xF;
	o->qp1_dropped = be16toh(w->qp1_dropped);
	o->vl15_dropped = be16toh(w->vl15_dropped);
}

int pma_port_counters_decode(const uint8_t *buf, size_t len, struct pma_port_counters *out)
{
	struct pma_port_counters_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, buf, sizeof(w));
	memset(out, 0, sizeof(*out));
	out->port_select = w.port_select;
	out->counter_select = be16toh(w.counter_select);
	out->counter_select2 = w.counter_select2;
	pc_errors_decode(&w, out);
	out->xmit_data = be32toh(w.xmit_data);
	out->rcv_data = be32toh(w.rcv_data);
	out->xmit_pkts = be32toh(w.xmit_pkts);
	out->rcv_pkts = be32toh(w.rcv_pkts);
	out->xmit_wait = be32toh(w.xmit_wait);
	return 0;
}

static void pc_errors_encode(const struct pma_port_counters *in, struct pma_port_counters_wire *w)
{
	w->symbol_err = htobe16(in->symbol_err);
	w->link_err_recover = in->link_err_recover;
	w->link_downed = in->link_downed;
	w->rcv_err = htobe16(in->rcv_err);
	w->rcv_remote_phys = htobe16(in->rcv_remote_phys);
	w->rcv_switch_relay = htobe16(in->rcv_switch_relay);
	w->xmit_discards = htobe16(in->xmit_discards);
	w->xmit_constraint = in->xmit_constraint;
	w->rcv_constraint = in->rcv_constraint;
	w->lli_ebo = (uint8_t)(((in->local_link_integrity & 0xF) << 4) |
			       (in->excessive_buf_overrun & 0xF));
	w->qp1_dropped = htobe16(in->qp1_dropped);
	w->vl15_dropped = htobe16(in->vl15_dropped);
}

int pma_port_counters_encode(const struct pma_port_counters *in, uint8_t *buf, size_t len)
{
	struct pma_port_counters_wire w;

	if (!buf || len < sizeof(w))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.port_select = in->port_select;
	w.counter_select = htobe16(in->counter_select);
	w.counter_select2 = in->counter_select2;
	pc_errors_encode(in, &w);
	w.xmit_data = htobe32(in->xmit_data);
	w.rcv_data = htobe32(in->rcv_data);
	w.xmit_pkts = htobe32(in->xmit_pkts);
	w.rcv_pkts = htobe32(in->rcv_pkts);
	w.xmit_wait = htobe32(in->xmit_wait);
	memcpy(buf, &w, sizeof(w));
	return 0;
}

/* --- PortCountersExtended (IBA 16.1.4.11) --- */

static void pce_errors_decode(const struct pma_port_counters_ext_wire *w,
			      struct pma_port_counters_ext *o)
{
	o->counter_select2 = be32toh(w->counter_select2);
	o->symbol_err = be64toh(w->symbol_err);
	o->link_err_recover = be64toh(w->link_err_recover);
	o->link_downed = be64toh(w->link_downed);
	o->rcv_err = be64toh(w->rcv_err);
	o->rcv_remote_phys = be64toh(w->rcv_remote_phys);
	o->rcv_switch_relay = be64toh(w->rcv_switch_relay);
	o->xmit_discards = be64toh(w->xmit_discards);
	o->xmit_constraint = be64toh(w->xmit_constraint);
	o->rcv_constraint = be64toh(w->rcv_constraint);
	o->local_link_integrity = be64toh(w->local_link_integrity);
	o->excessive_buf_overrun = be64toh(w->excessive_buf_overrun);
	o->vl15_dropped = be64toh(w->vl15_dropped);
	o->xmit_wait = be64toh(w->xmit_wait);
	o->qp1_dropped = be64toh(w->qp1_dropped);
}

int pma_port_counters_ext_decode(const uint8_t *buf, size_t len, struct pma_port_counters_ext *out)
{
	struct pma_port_counters_ext_wire w;

	if (!buf || len < PMA_PCE_BASE_SIZE)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	memcpy(&w, buf, len < sizeof(w) ? len : sizeof(w));
	memset(out, 0, sizeof(*out));
	out->port_select = w.port_select;
	out->counter_select = be16toh(w.counter_select);
	out->xmit_data = be64toh(w.xmit_data);
	out->rcv_data = be64toh(w.rcv_data);
	out->xmit_pkts = be64toh(w.xmit_pkts);
	out->rcv_pkts = be64toh(w.rcv_pkts);
	out->ucast_xmit_pkts = be64toh(w.ucast_xmit_pkts);
	out->ucast_rcv_pkts = be64toh(w.ucast_rcv_pkts);
	out->mcast_xmit_pkts = be64toh(w.mcast_xmit_pkts);
	out->mcast_rcv_pkts = be64toh(w.mcast_rcv_pkts);
	if (len >= PMA_PCE_FULL_SIZE) {
		out->has_errors = 1;
		pce_errors_decode(&w, out);
	}
	return 0;
}

static void pce_errors_encode(const struct pma_port_counters_ext *in,
			      struct pma_port_counters_ext_wire *w)
{
	w->counter_select2 = htobe32(in->counter_select2);
	w->symbol_err = htobe64(in->symbol_err);
	w->link_err_recover = htobe64(in->link_err_recover);
	w->link_downed = htobe64(in->link_downed);
	w->rcv_err = htobe64(in->rcv_err);
	w->rcv_remote_phys = htobe64(in->rcv_remote_phys);
	w->rcv_switch_relay = htobe64(in->rcv_switch_relay);
	w->xmit_discards = htobe64(in->xmit_discards);
	w->xmit_constraint = htobe64(in->xmit_constraint);
	w->rcv_constraint = htobe64(in->rcv_constraint);
	w->local_link_integrity = htobe64(in->local_link_integrity);
	w->excessive_buf_overrun = htobe64(in->excessive_buf_overrun);
	w->vl15_dropped = htobe64(in->vl15_dropped);
	w->xmit_wait = htobe64(in->xmit_wait);
	w->qp1_dropped = htobe64(in->qp1_dropped);
}

int pma_port_counters_ext_encode(const struct pma_port_counters_ext *in, uint8_t *buf, size_t len)
{
	struct pma_port_counters_ext_wire w;
	size_t size = in->has_errors ? PMA_PCE_FULL_SIZE : PMA_PCE_BASE_SIZE;

	if (!buf || len < size)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.port_select = in->port_select;
	w.counter_select = htobe16(in->counter_select);
	w.xmit_data = htobe64(in->xmit_data);
	w.rcv_data = htobe64(in->rcv_data);
	w.xmit_pkts = htobe64(in->xmit_pkts);
	w.rcv_pkts = htobe64(in->rcv_pkts);
	w.ucast_xmit_pkts = htobe64(in->ucast_xmit_pkts);
	w.ucast_rcv_pkts = htobe64(in->ucast_rcv_pkts);
	w.mcast_xmit_pkts = htobe64(in->mcast_xmit_pkts);
	w.mcast_rcv_pkts = htobe64(in->mcast_rcv_pkts);
	if (in->has_errors)
		pce_errors_encode(in, &w);
	memcpy(buf, &w, size);
	return 0;
}

/* --- whole MADs --- */

static int req_valid(const struct pma_req *req)
{
	if (req->method == MAD_METHOD_SET)
		return req->attr_id == PMA_ATTR_PORT_COUNTERS;
	return req->method == MAD_METHOD_GET &&
	       (req->attr_id == PMA_ATTR_CLASS_PORT_INFO || req->attr_id == PMA_ATTR_PORT_COUNTERS ||
		req->attr_id == PMA_ATTR_PORT_COUNTERS_EXT);
}

int pma_req_data(const struct pma_req *req, uint8_t *data, size_t len)
{
	struct pma_port_counters pc;

	if (!req || !data || len < PMA_DATA_SIZE || !req_valid(req))
		return -EINVAL;
	memset(data, 0, PMA_DATA_SIZE);
	if (req->attr_id == PMA_ATTR_CLASS_PORT_INFO)
		return 0;
	/* PortSelect sits at byte 1 of both counter attributes */
	memset(&pc, 0, sizeof(pc));
	pc.port_select = req->port_select;
	if (req->method == MAD_METHOD_SET) {
		pc.counter_select = req->counter_select;
		pc.counter_select2 = req->counter_select2;
	}
	return pma_port_counters_encode(&pc, data, len);
}

static void hdr_fill(struct mad_hdr_wire *h, uint8_t method, uint16_t status, uint64_t tid,
		     uint16_t attr_id)
{
	memset(h, 0, sizeof(*h));
	h->base_version = 1;
	h->mgmt_class = MAD_CLASS_PERF;
	h->class_version = PMA_CLASS_VERSION;
	h->method = method;
	h->status = htobe16(status);
	h->tid = htobe64(tid);
	h->attr_id = htobe16(attr_id);
}

int pma_req_encode(const struct pma_req *req, uint8_t *buf, size_t len)
{
	struct pma_mad_wire w;

	if (!buf || len < MAD_SIZE || pma_req_data(req, w.data, sizeof(w.data)) < 0)
		return -EINVAL;
	hdr_fill(&w.hdr, req->method, 0, req->tid, req->attr_id);
	memset(w.reserved, 0, sizeof(w.reserved));
	memcpy(buf, &w, sizeof(w));
	return 0;
}

static int attr_decode(uint16_t attr_id, const uint8_t *data, size_t len, struct pma_reply *out)
{
	switch (attr_id) {
	case PMA_ATTR_CLASS_PORT_INFO:
		return pma_class_port_info_decode(data, len, &out->u.cpi);
	case PMA_ATTR_PORT_COUNTERS:
		return pma_port_counters_decode(data, len, &out->u.pc);
	case PMA_ATTR_PORT_COUNTERS_EXT:
		return pma_port_counters_ext_decode(data, len, &out->u.pce);
	default:
		return -EPROTO;
	}
}

int pma_reply_decode(const uint8_t *mad, size_t len, struct pma_reply *out)
{
	struct mad_hdr_wire h;

	if (!mad || !out || len < PMA_DATA_OFFSET)
		return -EINVAL;
	memcpy(&h, mad, sizeof(h));
	if (h.base_version != 1 || h.mgmt_class != MAD_CLASS_PERF ||
	    h.class_version != PMA_CLASS_VERSION || h.method != MAD_METHOD_GET_RESP)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->tid = be64toh(h.tid);
	out->status = be16toh(h.status);
	out->attr_id = be16toh(h.attr_id);
	out->method = h.method;
	if (len > MAD_SIZE)
		len = MAD_SIZE;
	if (out->status)
		return out->attr_id == PMA_ATTR_CLASS_PORT_INFO ||
		       out->attr_id == PMA_ATTR_PORT_COUNTERS ||
		       out->attr_id == PMA_ATTR_PORT_COUNTERS_EXT ? 0 : -EPROTO;
	return attr_decode(out->attr_id, mad + PMA_DATA_OFFSET, len - PMA_DATA_OFFSET, out);
}

int pma_resp_encode(const struct pma_req *req, uint16_t status, const void *attr, uint8_t *buf,
		    size_t len)
{
	struct pma_mad_wire w;
	int r = 0;

	if (!req || !buf || len < MAD_SIZE || !req_valid(req))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	hdr_fill(&w.hdr, MAD_METHOD_GET_RESP, status, req->tid, req->attr_id);
	if (attr && req->attr_id == PMA_ATTR_CLASS_PORT_INFO)
		r = class_port_info_encode(attr, w.data, sizeof(w.data));
	else if (attr && req->attr_id == PMA_ATTR_PORT_COUNTERS)
		r = pma_port_counters_encode(attr, w.data, sizeof(w.data));
	else if (attr)
		r = pma_port_counters_ext_encode(attr, w.data, sizeof(w.data));
	memcpy(buf, &w, sizeof(w));
	return r;
}
