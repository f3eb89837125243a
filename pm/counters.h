/*
 * DOC: 64-bit running totals of one port's PMA counters.
 *
 * A port's counters come from two attributes: PortCounters, whose fields
 * are 4 to 32 bits wide and stop at all ones (IBA 16.1.3.5), and
 * PortCountersExtended, 64 bits wide. pm_plan_from_cpi() decides per node
 * which attribute each counter is read from; pm_counters_apply() turns each
 * reading into increments and adds them to the totals:
 *  - the first reading of a counter only sets its baseline (the total
 *    starts at the device's own value, so it reads like perfquery);
 *  - a reading at or above the last one adds the difference;
 *  - a reading below the last means the counter was cleared (by us, or by
 *    someone else's `perfquery -R`): the baseline starts again from zero
 *    and the reading itself is added, so the total never goes backwards;
 *  - a legacy counter read at its maximum has lost counts since: it is
 *    saturated (pm_counters_saturated) and its total is a lower bound.
 * pm_counters_need_clear() says when the legacy counters should be cleared
 * with a PortCounters Set (at 3/4 of their range, OpenSM PerfMgr's margin),
 * pm_counters_cleared() moves the baselines once the Set is confirmed.
 * Pure: no I/O, no clock, no allocation.
 */
#ifndef IBSM_PM_COUNTERS_H
#define IBSM_PM_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/pma.h"

/* The counters tracked, errors first (their legacy fields are at most 16
 * bits wide), then the wide ones. */
enum pm_ctr {
	PM_SYMBOL_ERR,
	PM_LINK_ERR_RECOVER,
	PM_LINK_DOWNED,
	PM_RCV_ERR,
	PM_RCV_REMOTE_PHYS,
	PM_RCV_SWITCH_RELAY,
	PM_XMIT_DISCARDS,
	PM_XMIT_CONSTRAINT,
	PM_RCV_CONSTRAINT,
	PM_LOCAL_LINK_INTEGRITY,
	PM_EXCESSIVE_BUF_OVERRUN,
	PM_VL15_DROPPED,
	PM_XMIT_WAIT,            /* first wide counter */
	PM_XMIT_DATA,            /* 4-byte words */
	PM_RCV_DATA,             /* 4-byte words */
	PM_XMIT_PKTS,
	PM_RCV_PKTS,
	PM_NCTR
};

#define PM_NERR PM_XMIT_WAIT
#define PM_NWIDE (PM_NCTR - PM_NERR)
#define PM_BIT(c) (1u << (c))
#define PM_ALL ((1u << PM_NCTR) - 1)

/* Where a node's counters come from (from its PMA ClassPortInfo). */
struct pm_plan {
	uint32_t from_pc;        /* PM_BIT()s read from PortCounters */
	uint32_t from_pce;       /* PM_BIT()s read from PortCountersExtended */
	uint16_t clear_select;   /* PortCounters Set: CounterSelect to clear them */
	uint8_t clear_select2;   /* ... and CounterSelect2 */
	bool all_port_select;    /* one Set with PortSelect 0xFF clears every port */
};

/* Errors always come from PortCounters, whose Set clears them on every PMA;
 * data and packets from PortCountersExtended when the PMA has it;
 * PortXmitWait from the extended attribute when it carries the additional
 * counters, else from PortCounters when CapabilityMask says it counts,
 * else not at all. */
void pm_plan_from_cpi(const struct pma_class_port_info *cpi, struct pm_plan *out);
/* The plan of a PMA whose ClassPortInfo is unknown: PortCounters only. */
void pm_plan_legacy(struct pm_plan *out);

/* One attribute's reading, as raw counter values. */
struct pm_reading {
	uint64_t v[PM_NCTR];
	uint32_t valid;          /* PM_BIT()s present */
};

/* The counters of `from` (a PM_BIT() mask, normally plan.from_pc or
 * plan.from_pce) found in one attribute. */
void pm_reading_from_pc(const struct pma_port_counters *pc, uint32_t from, struct pm_reading *r);
void pm_reading_from_pce(const struct pma_port_counters_ext *pce, uint32_t from,
			 struct pm_reading *r);

/* Packed to keep a port small: the last raw readings of the error counters
 * in their legacy widths (6 of 16 bits, 4 of 8 bits, two 4-bit ones in one
 * byte), and one `seen` bit per counter that has a baseline. */
struct pm_counters {
	uint64_t total[PM_NCTR];
	uint64_t last_wide[PM_NWIDE];   /* last raw reading of the wide counters */
	uint16_t last16[6];
	uint8_t last8[5];
	uint8_t seen[3];
};

void pm_counters_init(struct pm_counters *c);
/* Adds a reading; delta[i] gets each valid counter's increment (0 for the
 * others and for a first reading). Returns the PM_BIT()s that went below
 * their last value (cleared since). */
uint32_t pm_counters_apply(struct pm_counters *c, const struct pm_reading *r,
			   uint64_t delta[PM_NCTR]);
/* Whether a legacy counter of `plan` is close enough to its maximum that
 * the port should be cleared now. */
bool pm_counters_need_clear(const struct pm_counters *c, const struct pm_plan *plan);
/* A PortCounters Set clearing (select, select2) was confirmed: the
 * baselines of those counters start again from zero. */
void pm_counters_cleared(struct pm_counters *c, uint16_t select, uint8_t select2);
/* The PM_BIT()s of `from_pc` whose last reading was their maximum: counts
 * were lost since, the totals are lower bounds until the next clear. */
uint32_t pm_counters_saturated(const struct pm_counters *c, uint32_t from_pc);
/* The last raw reading of a counter (0 before the first). */
uint64_t pm_counters_last(const struct pm_counters *c, enum pm_ctr i);
/* Whether counter i has a baseline (was read since its port came). */
bool pm_counters_seen(const struct pm_counters *c, enum pm_ctr i);

/* The largest value of a counter's legacy field (all ones), and the
 * exporter-style name of a counter (e.g. "symbol_error"). */
uint64_t pm_ctr_legacy_max(enum pm_ctr c);
const char *pm_ctr_name(enum pm_ctr c);
/* PortCounters:CounterSelect/CounterSelect2 bit of a counter (0 for none). */
uint16_t pm_ctr_select(enum pm_ctr c);
uint8_t pm_ctr_select2(enum pm_ctr c);

#endif
