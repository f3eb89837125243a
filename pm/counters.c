/*
 * DOC: running totals of PMA counters (see pm/counters.h).
 */
#include <string.h>

#include "pm/counters.h"

struct ctr_info {
	const char *name;        /* the word infiniband_exporter uses */
	uint8_t width;           /* bits of the PortCounters field */
	uint8_t slot;            /* index in last16[] or last8[] (errors only) */
	uint16_t select;         /* PortCounters:CounterSelect bit */
	uint8_t select2;         /* PortCounters:CounterSelect2 bit */
};

static const struct ctr_info ctrs[PM_NCTR] = {
	[PM_SYMBOL_ERR] = { "symbol_error", 16, 0, PMA_CS_SYMBOL_ERR, 0 },
	[PM_LINK_ERR_RECOVER] = { "link_error_recovery", 8, 0, PMA_CS_LINK_ERR_RECOVER, 0 },
	[PM_LINK_DOWNED] = { "link_downed", 8, 1, PMA_CS_LINK_DOWNED, 0 },
	[PM_RCV_ERR] = { "receive_errors", 16, 1, PMA_CS_RCV_ERR, 0 },
	[PM_RCV_REMOTE_PHYS] = { "receive_remote_physical_errors", 16, 2, PMA_CS_RCV_REMOTE_PHYS, 0 },
	[PM_RCV_SWITCH_RELAY] = { "receive_switch_relay_errors", 16, 3, PMA_CS_RCV_SWITCH_RELAY, 0 },
	[PM_XMIT_DISCARDS] = { "transmit_discards", 16, 4, PMA_CS_XMIT_DISCARDS, 0 },
	[PM_XMIT_CONSTRAINT] = { "transmit_constraint_errors", 8, 2, PMA_CS_XMIT_CONSTRAINT, 0 },
	[PM_RCV_CONSTRAINT] = { "receive_constraint_errors", 8, 3, PMA_CS_RCV_CONSTRAINT, 0 },
	[PM_LOCAL_LINK_INTEGRITY] = { "local_link_integrity_errors", 4, 4,
				      PMA_CS_LOCAL_LINK_INTEGRITY, 0 },
	[PM_EXCESSIVE_BUF_OVERRUN] = { "excessive_buffer_overrun_errors", 4, 4,
				       PMA_CS_EXCESSIVE_BUF_OVERRUN, 0 },
	[PM_VL15_DROPPED] = { "vl15_dropped", 16, 5, PMA_CS_VL15_DROPPED, 0 },
	[PM_XMIT_WAIT] = { "transmit_wait", 32, 0, 0, PMA_CS2_XMIT_WAIT },
	[PM_XMIT_DATA] = { "transmit_data_bytes", 32, 0, PMA_CS_XMIT_DATA, 0 },
	[PM_RCV_DATA] = { "receive_data_bytes", 32, 0, PMA_CS_RCV_DATA, 0 },
	[PM_XMIT_PKTS] = { "transmit_packets", 32, 0, PMA_CS_XMIT_PKTS, 0 },
	[PM_RCV_PKTS] = { "receive_packets", 32, 0, PMA_CS_RCV_PKTS, 0 },
};

_Static_assert(sizeof(struct pm_counters) == 200, "a port's counters fit 200 bytes");

#define PM_ERRS (PM_BIT(PM_NERR) - 1)
#define PM_DATA (PM_BIT(PM_XMIT_DATA) | PM_BIT(PM_RCV_DATA) | PM_BIT(PM_XMIT_PKTS) | \
		 PM_BIT(PM_RCV_PKTS))

uint64_t pm_ctr_legacy_max(enum pm_ctr c)
{
	return (1ull << ctrs[c].width) - 1;
}

const char *pm_ctr_name(enum pm_ctr c)
{
	return (unsigned)c < PM_NCTR ? ctrs[c].name : "?";
}

uint16_t pm_ctr_select(enum pm_ctr c)
{
	return ctrs[c].select;
}

uint8_t pm_ctr_select2(enum pm_ctr c)
{
	return ctrs[c].select2;
}

/* The PortCounters Set that clears the counters in `mask`. */
static void clear_selects(uint32_t mask, struct pm_plan *p)
{
	p->clear_select = 0;
	p->clear_select2 = 0;
	for (unsigned i = 0; i < PM_NCTR; i++)
		if (mask & PM_BIT(i)) {
			p->clear_select |= ctrs[i].select;
			p->clear_select2 |= ctrs[i].select2;
		}
}

void pm_plan_legacy(struct pm_plan *out)
{
	memset(out, 0, sizeof(*out));
	out->from_pc = PM_ERRS | PM_DATA;
	clear_selects(out->from_pc, out);
}

void pm_plan_from_cpi(const struct pma_class_port_info *cpi, struct pm_plan *out)
{
	bool ext = cpi->cap_mask & (PMA_CAP_EXT_WIDTH | PMA_CAP_EXT_WIDTH_NOIETF);

	pm_plan_legacy(out);
	out->all_port_select = cpi->cap_mask & PMA_CAP_ALL_PORT_SELECT;
	if (ext) {
		out->from_pc &= ~PM_DATA;
		out->from_pce |= PM_DATA;
	}
	if (ext && (cpi->cap_mask2 & PMA_CAP2_ADDL_PORT_COUNTERS_EXT))
		out->from_pce |= PM_BIT(PM_XMIT_WAIT);
	else if (cpi->cap_mask & PMA_CAP_XMIT_WAIT)
		out->from_pc |= PM_BIT(PM_XMIT_WAIT);
	/* Some PMAs share the 32- and 64-bit data counters, so a PortCounters
	 * Set of the data bits would clear the extended ones too (OpenSM
	 * PerfMgr, osm_perfmgr.c): clear only what comes from PortCounters. */
	clear_selects(out->from_pc, out);
}

void pm_reading_from_pc(const struct pma_port_counters *pc, uint32_t from, struct pm_reading *r)
{
	const uint64_t v[PM_NCTR] = {
		pc->symbol_err, pc->link_err_recover, pc->link_downed, pc->rcv_err,
		pc->rcv_remote_phys, pc->rcv_switch_relay, pc->xmit_discards,
		pc->xmit_constraint, pc->rcv_constraint, pc->local_link_integrity,
		pc->excessive_buf_overrun, pc->vl15_dropped, pc->xmit_wait, pc->xmit_data,
		pc->rcv_data, pc->xmit_pkts, pc->rcv_pkts,
	};

	memcpy(r->v, v, sizeof(v));
	r->valid = from & PM_ALL;
}

void pm_reading_from_pce(const struct pma_port_counters_ext *pce, uint32_t from,
			 struct pm_reading *r)
{
	memset(r, 0, sizeof(*r));
	r->v[PM_XMIT_DATA] = pce->xmit_data;
	r->v[PM_RCV_DATA] = pce->rcv_data;
	r->v[PM_XMIT_PKTS] = pce->xmit_pkts;
	r->v[PM_RCV_PKTS] = pce->rcv_pkts;
	r->valid = from & PM_DATA;
	if (pce->has_errors) {
		r->v[PM_XMIT_WAIT] = pce->xmit_wait;
		r->valid |= from & PM_BIT(PM_XMIT_WAIT);
	}
}

void pm_counters_init(struct pm_counters *c)
{
	memset(c, 0, sizeof(*c));
}

/* Where the last reading of error counter i lives: a 16-bit slot, an 8-bit
 * slot, or a nibble of last8[4] (LocalLinkIntegrity high, as on the wire). */
static uint64_t last_of(const struct pm_counters *c, unsigned i)
{
	const struct ctr_info *k = &ctrs[i];

	if (i >= PM_NERR)
		return c->last_wide[i - PM_NERR];
	if (k->width == 16)
		return c->last16[k->slot];
	if (k->width == 8)
		return c->last8[k->slot];
	return i == PM_LOCAL_LINK_INTEGRITY ? c->last8[4] >> 4 : c->last8[4] & 0xF;
}

static void set_last(struct pm_counters *c, unsigned i, uint64_t v)
{
	const struct ctr_info *k = &ctrs[i];

	if (i >= PM_NERR)
		c->last_wide[i - PM_NERR] = v;
	else if (k->width == 16)
		c->last16[k->slot] = (uint16_t)v;
	else if (k->width == 8)
		c->last8[k->slot] = (uint8_t)v;
	else if (i == PM_LOCAL_LINK_INTEGRITY)
		c->last8[4] = (uint8_t)((c->last8[4] & 0x0F) | ((v & 0xF) << 4));
	else
		c->last8[4] = (uint8_t)((c->last8[4] & 0xF0) | (v & 0xF));
}

bool pm_counters_seen(const struct pm_counters *c, enum pm_ctr i)
{
	return c->seen[i / 8] & (1u << (i % 8));
}

uint64_t pm_counters_last(const struct pm_counters *c, enum pm_ctr i)
{
	return last_of(c, i);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One counter's reading; returns whether it went below the last one. */
static bool apply_one(struct pm_counters *c, unsigned i, uint64_t raw, uint64_t *delta)
{
	bool dropped = false;

	*delta = 0;
	if (i < PM_NERR && raw > pm_ctr_legacy_max(i))
		raw = pm_ctr_legacy_max(i); /* only legacy fields feed the error counters */
	if (!pm_counters_seen(c, i)) {
		c->seen[i / 8] |= (uint8_t)(1u << (i % 8));
		c->total[i] = raw;
	} else if (raw >= last_of(c, i)) {
		*delta = raw - last_of(c, i);
	} else {
		*delta = raw;
		dropped = true;
	}
	c->total[i] = add_sat(c->total[i], *delta);
	set_last(c, i, raw);
	return dropped;
}

uint32_t pm_counters_apply(struct pm_counters *c, const struct pm_reading *r,
			   uint64_t delta[PM_NCTR])
{
	uint32_t dropped = 0;

	for (unsigned i = 0; i < PM_NCTR; i++) {
		delta[i] = 0;
		if (r->valid & PM_BIT(i) && apply_one(c, i, r->v[i], &delta[i]))
			dropped |= PM_BIT(i);
	}
	return dropped;
}

/* OpenSM PerfMgr clears at 3/4 of a field's range, and at 10 for the 4-bit
 * fields (osm_perfmgr.c counter_overflow_*); we do the same. */
static bool near_max(unsigned i, uint64_t v)
{
	uint64_t max = pm_ctr_legacy_max(i);

	return ctrs[i].width == 4 ? v >= 10 : v >= max - max / 4;
}

bool pm_counters_need_clear(const struct pm_counters *c, const struct pm_plan *plan)
{
	for (unsigned i = 0; i < PM_NCTR; i++)
		if ((plan->from_pc & PM_BIT(i)) && pm_counters_seen(c, i) && near_max(i, last_of(c, i)))
			return true;
	return false;
}

void pm_counters_cleared(struct pm_counters *c, uint16_t select, uint8_t select2)
{
	for (unsigned i = 0; i < PM_NCTR; i++)
		if ((ctrs[i].select & select) || (ctrs[i].select2 & select2))
			set_last(c, i, 0);
}

uint32_t pm_counters_saturated(const struct pm_counters *c, uint32_t from_pc)
{
	uint32_t s = 0;

	for (unsigned i = 0; i < PM_NCTR; i++)
		if ((from_pc & PM_BIT(i)) && pm_counters_seen(c, i) && last_of(c, i) >= pm_ctr_legacy_max(i))
			s |= PM_BIT(i);
	return s;
}
