/*
 * DOC: the SA's dispatch table, and the record collector every handler
 * feeds.
 *
 * One row per attribute: the methods it takes (IBA 15.2.5 table 187 and
 * OpenSM's osm_sa.c dispatch, sa-mcast-ha.md 1.2), the size of its record,
 * whether only trusted requesters may read it, and its handlers. The
 * component-mask fields of each record are in mad/sa_fields.c; a handler
 * builds candidate records in wire format and sa_emit() decides, field by
 * field on those bytes, whether the template matches.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sa/sa_int.h"
#include "sm/log.h"

#define GT (SA_M_GET | SA_M_GET_TABLE)

static const struct sa_attr attrs[] = {
	{ { SA_ATTR_CLASS_PORT_INFO, "ClassPortInfo", "CPI" }, SA_M_GET, 72,
	  .get = sa_cpi_get },
	{ { SA_ATTR_INFORM_INFO, "InformInfo", "II" }, SA_M_SET, 36, .set = sa_ii_set },
	{ { SA_ATTR_NODE_REC, "NodeRecord", "NR" }, GT, 108, .get = sa_nr_get },
	{ { SA_ATTR_PORT_INFO_REC, "PortInfoRecord", "PIR" }, GT, 68,
	  .modifier_bit31 = true, .check = sa_pir_check, .get = sa_pir_get },
	{ { SA_ATTR_SL2VL_REC, "SL2VLTableRecord", "SL2VL" }, GT, 16, .get = sa_sl2vl_get },
	{ { SA_ATTR_SWITCH_INFO_REC, "SwitchInfoRecord", "SWIR" }, GT, 24, .get = sa_swir_get },
	{ { SA_ATTR_LFT_REC, "LinearForwardingTableRecord", "LFTR" }, GT, 72, .get = sa_lftr_get },
	{ { SA_ATTR_MFT_REC, "MulticastForwardingTableRecord", "MFTR" }, GT, 72,
	  .get = sa_mftr_get },
	{ { SA_ATTR_SM_INFO_REC, "SMInfoRecord", "SMIR" }, GT, 25, .get = sa_smir_get },
	{ { SA_ATTR_LINK_REC, "LinkRecord", "LR" }, GT, 6, .get = sa_lr_get },
	{ { SA_ATTR_GUID_INFO_REC, "GUIDInfoRecord", "GIR" }, GT, 72, .get = sa_gir_get },
	{ { SA_ATTR_SERVICE_REC, "ServiceRecord", "SR" },
	  GT | SA_M_SET | SA_M_DELETE, 176, .check = sa_sr_check, .get = sa_sr_get,
	  .set = sa_sr_set, .del = sa_sr_del },
	/* P_Key tables show who is in which partition: trusted only
	 * (sa-mcast-ha.md 3 and 10.2; OpenSM refuses them too) */
	{ { SA_ATTR_PKEY_REC, "P_KeyTableRecord", "PKTR" }, GT, 72, .trusted_only = true,
	  .get = sa_pktr_get },
	{ { SA_ATTR_PATH_REC, "PathRecord", "PR" }, GT, 64, .check = sa_pr_check,
	  .get = sa_pr_get },
	{ { SA_ATTR_VLARB_REC, "VLArbitrationTableRecord", "VLAR" }, GT, 72,
	  .get = sa_vlar_get },
	{ { SA_ATTR_MULTIPATH_REC, "MultiPathRecord", "MPR" }, SA_M_GET_MULTI, 24,
	  .check = sa_mpr_check, .get = sa_mpr_get },
	{ { SA_ATTR_INFORM_INFO_REC, "InformInfoRecord", "IIR" }, GT, 60, .get = sa_iir_get },
	{ { SA_ATTR_MCMEMBER_REC, "MCMemberRecord", "MCMR" },
	  GT | SA_M_SET | SA_M_DELETE, 52, .get = sa_mcmr_get, .set = sa_mcmr_set,
	  .del = sa_mcmr_del },
	/* ibsmd's own (vendor-specific): what a standby copies is complete
	 * and current (sa/follow.c); SM_Key holders only */
	{ { SA_ATTR_CLIENTS_INFO, "ClientStateInfo", "CSI" }, SA_M_GET, 48, .trusted_only = true,
	  .get = sa_csi_get },
};

#define NATTRS (sizeof(attrs) / sizeof(attrs[0]))

const struct sa_attr *sa_attr_find(uint16_t id)
{
	for (size_t i = 0; i < NATTRS; i++)
		if (attrs[i].nm.id == id)
			return &attrs[i];
	return NULL;
}

size_t sa_attr_count(void)
{
	return NATTRS;
}

const struct sa_attr *sa_attr_at(size_t i)
{
	return i < NATTRS ? &attrs[i] : NULL;
}

size_t sa_attr_index(const struct sa_attr *a)
{
	return (size_t)(a - attrs);
}

const struct sa_attr_name *sa_attr_lookup(const char *name)
{
	for (size_t i = 0; i < NATTRS; i++)
		if (!strcasecmp(attrs[i].nm.name, name) || !strcasecmp(attrs[i].nm.alias, name))
			return &attrs[i].nm;
	return NULL;
}

const struct sa_attr_name *sa_attr_names(size_t *n)
{
	static struct sa_attr_name names[NATTRS];

	for (size_t i = 0; i < NATTRS; i++)
		names[i] = attrs[i].nm;
	*n = NATTRS;
	return names;
}

/* --- the collector --- */

void sa_fail(struct sa_ctx *c, uint16_t status)
{
	if (!c->status)
		c->status = status;
	c->stop = true;
}

bool sa_work(struct sa_ctx *c, uint64_t n)
{
	c->work += n;
	if (c->work <= c->work_max)
		return true;
	/* the answer would cost more than one request may (sa_int.h) */
	sa_fail(c, SA_STATUS_NO_RESOURCES);
	return false;
}

/* The response buffer belongs to the SA and keeps SA_HDR_SIZE bytes in
 * front of the records for the header. */
static void reserve(struct sa_ctx *c, size_t need)
{
	struct sa *sa = c->sa;
	size_t cap = sa->rcap ? sa->rcap : 4096;

	if (SA_HDR_SIZE + need <= sa->rcap)
		return;
	while (cap < SA_HDR_SIZE + need)
		cap *= 2;
	sa->rbuf = xrealloc(sa->rbuf, cap);
	sa->rcap = cap;
	c->buf = sa->rbuf + SA_HDR_SIZE;
}

bool sa_emit(struct sa_ctx *c, const uint8_t *rec)
{
	size_t pad = SA_REC_PADDED(c->rec_size);

	if (c->stop || !sa_work(c, 1))
		return false;
	if (c->desc && !sa_match(c->desc, c->tmpl, rec, c->match_mask))
		return true;
	if (c->n >= c->limit) {
		/* a second match for a Get, or more than max_records */
		sa_fail(c, SA_STATUS_TOO_MANY_RECORDS);
		return false;
	}
	if (c->len + pad > c->max_bytes) {
		sa_fail(c, SA_STATUS_TOO_MANY_RECORDS);
		return false;
	}
	reserve(c, c->len + pad);
	memcpy(c->buf + c->len, rec, c->rec_size);
	memset(c->buf + c->len + c->rec_size, 0, pad - c->rec_size);
	c->len += pad;
	c->n++;
	/* a PathRecord Get answers with the first path (sa-mcast-ha.md 3.1) */
	if (c->first_only && c->n >= c->limit)
		c->stop = true;
	return !c->stop;
}

/* A port a limited member shares nothing with is still its own (and on
 * its own node): a requester always sees those. */
bool sa_visible(const struct sa_ctx *c, const struct snap_port *p)
{
	return c->local ||
	       (c->requester && snap_node_of(c->snap, c->requester) == snap_node_of(c->snap, p)) ||
	       sa_part_pkey(c->snap, c->requester, p, 0) != 0;
}
