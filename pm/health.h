/*
 * DOC: health verdicts on one port and its link.
 *
 * Error counters are judged per time window: windows are numbered by the
 * caller (seq = seconds / window_s, the same for every port, so all ports
 * roll together) and a counter is over its threshold when it grew by more
 * than the threshold within one window. A problem found in a window stays
 * reported through the next one, so it is cleared only after a whole quiet
 * window. Besides the counters: the share of time the port spent in
 * PortXmitWait, flapping (bounces the SM saw, or LinkDownedCounter growth),
 * a link active below the width or speed both ends support and enable, and
 * a PMA that stopped answering (the scheduler's verdict).
 * Pure: no I/O, no clock.
 */
#ifndef IBSM_PM_HEALTH_H
#define IBSM_PM_HEALTH_H

#include <stdint.h>

#include "mad/smp.h"
#include "pm/counters.h"

enum pm_problem {
	/* counters over their threshold in a window, in pm_health's order */
	PM_P_SYMBOL_ERRORS,
	PM_P_LINK_ERROR_RECOVERY,
	PM_P_LINK_DOWNED,
	PM_P_RECEIVE_ERRORS,
	PM_P_RECEIVE_REMOTE_PHYSICAL_ERRORS,
	PM_P_TRANSMIT_DISCARDS,
	PM_P_LOCAL_LINK_INTEGRITY_ERRORS,
	PM_P_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	PM_P_VL15_DROPPED,
	/* the other per-window verdicts */
	PM_P_XMIT_WAIT,
	PM_P_FLAPPING,
	/* verdicts of the moment */
	PM_P_LINK_WIDTH_DEGRADED,
	PM_P_LINK_SPEED_DEGRADED,
	PM_P_NOT_ANSWERING,
	PM_NPROBLEM
};

#define PM_NCOUNTED (PM_P_VL15_DROPPED + 1)
#define PM_P_BIT(p) (1u << (p))
#define PM_P_WINDOWED ((1u << (PM_P_FLAPPING + 1)) - 1)
#define PM_P_LINK (PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED) | PM_P_BIT(PM_P_LINK_SPEED_DEGRADED))

/* The short name of a problem (`symbol_errors`, `xmit_wait`, ...). */
const char *pm_problem_name(enum pm_problem p);
/* The counter a counted problem watches. */
enum pm_ctr pm_problem_ctr(enum pm_problem p);

struct pm_thresholds {
	unsigned window_s;              /* length of a window */
	uint32_t count[PM_NCOUNTED];    /* growth per window above which it is a problem */
	double symbol_ber;              /* symbol errors per bit the link carried */
	unsigned xmit_wait_pct;         /* per cent of a window spent waiting */
	unsigned xmit_wait_tick_bytes;  /* bytes of link time one PortXmitWait tick stands for */
	unsigned flap_bounces;          /* bounces (or LinkDowned) per window */
	unsigned not_answering_rounds;  /* poll rounds in a row without an answer */
};

void pm_thresholds_default(struct pm_thresholds *t);

/* What a port's link is: PortInfo's width and speed masks. Speeds are one
 * mask over SDR..NDR (PM_SPEED_*), widths PortInfo's (1 = 1x, 2 = 4x,
 * 4 = 8x, 8 = 12x, 16 = 2x). *_act holds one bit. */
#define PM_SPEED_SDR 0x01
#define PM_SPEED_DDR 0x02
#define PM_SPEED_QDR 0x04
#define PM_SPEED_FDR 0x08
#define PM_SPEED_EDR 0x10
#define PM_SPEED_HDR 0x20
#define PM_SPEED_NDR 0x40

struct pm_link_caps {
	uint8_t width_sup, width_en, width_act;
	uint8_t speed_sup, speed_en, speed_act;
};

void pm_link_caps_from_port_info(const struct smp_port_info *pi, struct pm_link_caps *out);
/* PM_P_LINK_WIDTH_DEGRADED and/or PM_P_LINK_SPEED_DEGRADED when the link
 * between a and b is active below the best width or speed that both ends
 * support and enable. */
uint32_t pm_link_problems(const struct pm_link_caps *a, const struct pm_link_caps *b);
/* Data rate of the active link in bits per second (0 when unknown). */
double pm_link_rate_bps(const struct pm_link_caps *l);

/* A port's windowed verdicts. */
struct pm_health {
	uint16_t growth[PM_NCOUNTED];   /* this window, saturating */
	uint16_t wait_ds;               /* tenths of seconds spent in PortXmitWait this window */
	uint16_t seq;                   /* the window these are about */
	uint16_t over, over_prev;       /* PM_P_BIT()s of this and the last window */
	uint8_t bounces;                /* this window */
};

void pm_health_init(struct pm_health *h, uint16_t seq);
/* Adds a reading's increments (pm_counters_apply) made in window seq on a
 * link of rate_bps; returns the port's windowed problems. */
uint32_t pm_health_add(struct pm_health *h, const struct pm_thresholds *t, uint16_t seq,
		       const uint64_t delta[PM_NCTR], double rate_bps);
/* The link went down or up in window seq. */
uint32_t pm_health_bounce(struct pm_health *h, const struct pm_thresholds *t, uint16_t seq);
/* The windowed problems as of window seq (which may have rolled). */
uint32_t pm_health_problems(struct pm_health *h, uint16_t seq);

#endif
