/*
 * DOC: health verdicts on a port and its link (see pm/health.h).
 */
#include <string.h>

#include "pm/health.h"

static const char *const names[PM_NPROBLEM] = {
	[PM_P_SYMBOL_ERRORS] = "symbol_errors",
	[PM_P_LINK_ERROR_RECOVERY] = "link_error_recovery",
	[PM_P_LINK_DOWNED] = "link_downed",
	[PM_P_RECEIVE_ERRORS] = "receive_errors",
	[PM_P_RECEIVE_REMOTE_PHYSICAL_ERRORS] = "receive_remote_physical_errors",
	[PM_P_TRANSMIT_DISCARDS] = "transmit_discards",
	[PM_P_LOCAL_LINK_INTEGRITY_ERRORS] = "local_link_integrity_errors",
	[PM_P_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = "excessive_buffer_overrun_errors",
	[PM_P_VL15_DROPPED] = "vl15_dropped",
	[PM_P_XMIT_WAIT] = "xmit_wait",
	[PM_P_FLAPPING] = "flapping",
	[PM_P_LINK_WIDTH_DEGRADED] = "link_width_degraded",
	[PM_P_LINK_SPEED_DEGRADED] = "link_speed_degraded",
	[PM_P_NOT_ANSWERING] = "not_answering",
};

static const enum pm_ctr counted[PM_NCOUNTED] = {
	PM_SYMBOL_ERR, PM_LINK_ERR_RECOVER, PM_LINK_DOWNED, PM_RCV_ERR, PM_RCV_REMOTE_PHYS,
	PM_XMIT_DISCARDS, PM_LOCAL_LINK_INTEGRITY, PM_EXCESSIVE_BUF_OVERRUN, PM_VL15_DROPPED,
};

const char *pm_problem_name(enum pm_problem p)
{
	return (unsigned)p < PM_NPROBLEM ? names[p] : "?";
}

enum pm_ctr pm_problem_ctr(enum pm_problem p)
{
	return counted[p];
}

void pm_thresholds_default(struct pm_thresholds *t)
{
	/* Counts per window: the values infiniband-diags ships (commented out)
	 * in etc/error_thresholds for ibqueryerrors, whose own default is 0. */
	static const uint32_t ibdiags[PM_NCOUNTED] = {
		[PM_P_SYMBOL_ERRORS] = 10,
		[PM_P_LINK_ERROR_RECOVERY] = 10,
		[PM_P_LINK_DOWNED] = 10,
		[PM_P_RECEIVE_ERRORS] = 10,
		[PM_P_RECEIVE_REMOTE_PHYSICAL_ERRORS] = 100,
		[PM_P_TRANSMIT_DISCARDS] = 100,
		[PM_P_LOCAL_LINK_INTEGRITY_ERRORS] = 10,
		[PM_P_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = 10,
		[PM_P_VL15_DROPPED] = 100,
	};

	memset(t, 0, sizeof(*t));
	memcpy(t->count, ibdiags, sizeof(ibdiags));
	/* 5 minutes: the period UFM's PDR plugin judges ports over
	 * (T_ISOLATE=300 in its pdr_deterministic.conf). */
	t->window_s = 300;
	/* UFM's "Symbol BER Error" level for NDR links with PLR FEC
	 * (Field_BER_Thresholds.csv of the PDR plugin). */
	t->symbol_ber = 1e-14;
	/* Ours: a tenth of the time unable to send. */
	t->xmit_wait_pct = 10;
	/* Quantum-class switches count one tick per 8 bytes of port time
	 * (PortSamplesControl:Tick 7; NVIDIA ibdiagnet manual, "Congestion
	 * Assessment on InfiniBand Links"). */
	t->xmit_wait_tick_bytes = 8;
	/* Ours: three bounces in one window. */
	t->flap_bounces = 3;
	/* Ours: two rounds, so one lost round is not a verdict. */
	t->not_answering_rounds = 2;
}

/* --- links --- */

/* Lanes of each PortInfo width bit (IBA 14.2.5.6): 1x, 4x, 8x, 12x, 2x. */
static unsigned width_lanes(uint8_t w)
{
	static const uint8_t lanes[5] = { 1, 4, 8, 12, 2 };
	unsigned best = 0;

	for (unsigned i = 0; i < 5; i++)
		if ((w & (1u << i)) && lanes[i] > best)
			best = lanes[i];
	return best;
}

/* Data rate of one lane per speed bit, Gb/s after line coding (8b/10b up to
 * QDR, 64b/66b from FDR; HDR and NDR as their nominal 50 and 100). */
static double lane_gbps(uint8_t speed)
{
	static const double gbps[7] = { 2.0, 4.0, 8.0, 13.64, 25.0, 50.0, 100.0 };
	double best = 0;

	for (unsigned i = 0; i < 7; i++)
		if (speed & (1u << i))
			best = gbps[i];
	return best;
}

/* Extended speeds (FDR..NDR) go above the three classic bits. A
 * LinkSpeedExtEnabled of 30 means extended speeds are disabled. */
static uint8_t speeds(uint8_t classic, uint8_t ext)
{
	return (uint8_t)((classic & 0x7) | ((ext & 0xF) << 3));
}

void pm_link_caps_from_port_info(const struct smp_port_info *pi, struct pm_link_caps *out)
{
	uint8_t ext_en = pi->link_speed_ext_enabled == 30 ? 0 : pi->link_speed_ext_enabled;

	out->width_sup = pi->link_width_supported;
	out->width_en = pi->link_width_enabled;
	out->width_act = pi->link_width_active;
	out->speed_sup = speeds(pi->link_speed_supported, pi->link_speed_ext_supported);
	out->speed_en = speeds(pi->link_speed_enabled, ext_en);
	out->speed_act = pi->link_speed_ext_active ? speeds(0, pi->link_speed_ext_active)
						   : speeds(pi->link_speed_active, 0);
}

/* 4x: the width every IB port is built for (8x and 12x are the options). */
#define WIDTH_4X 0x02

uint32_t pm_link_problems(const struct pm_link_caps *a, const struct pm_link_caps *b)
{
	uint8_t w = a->width_sup & a->width_en & b->width_sup & b->width_en;
	uint8_t s = a->speed_sup & a->speed_en & b->speed_sup & b->speed_en;
	uint32_t p = 0;

	/* Narrower than 4x on ports that both support 4x is degraded whatever
	 * the enabled masks say: the SM never narrows them, and a link that
	 * lost lanes may show the narrow width as enabled too (ibsim's w=1
	 * sets LinkWidthEnabled to 1x on both ends). */
	if (a->width_sup & b->width_sup & WIDTH_4X)
		w |= WIDTH_4X;
	if (w && width_lanes(a->width_act) < width_lanes(w))
		p |= PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED);
	if (s && lane_gbps(a->speed_act) < lane_gbps(s))
		p |= PM_P_BIT(PM_P_LINK_SPEED_DEGRADED);
	return p;
}

double pm_link_rate_bps(const struct pm_link_caps *l)
{
	return width_lanes(l->width_act) * lane_gbps(l->speed_act) * 1e9;
}

/* --- windows --- */

void pm_health_init(struct pm_health *h, uint16_t seq)
{
	memset(h, 0, sizeof(*h));
	h->seq = seq;
}

static void roll(struct pm_health *h, uint16_t seq)
{
	uint16_t over = h->over;
	int next = (uint16_t)(h->seq + 1) == seq;

	if (h->seq == seq)
		return;
	pm_health_init(h, seq);
	/* a problem stays through the next window; a window skipped without
	 * readings tells nothing either way, so it ends it */
	h->over_prev = next ? over : 0;
}

static uint16_t sat16(uint32_t a)
{
	return a > UINT16_MAX ? UINT16_MAX : (uint16_t)a;
}

static int symbol_over(const struct pm_health *h, const struct pm_thresholds *t, double rate_bps)
{
	double bits = rate_bps * t->window_s;
	uint16_t n = h->growth[PM_P_SYMBOL_ERRORS];

	if (n > t->count[PM_P_SYMBOL_ERRORS])
		return 1;
	/* a BER limit can be judged only over enough bits that one error
	 * is within it (UFM's PDR plugin waits that long too) */
	return t->symbol_ber > 0 && bits * t->symbol_ber >= 1 && n > bits * t->symbol_ber;
}

static uint16_t judge(const struct pm_health *h, const struct pm_thresholds *t, double rate_bps)
{
	uint16_t over = 0;
	unsigned downs = h->growth[PM_P_LINK_DOWNED];

	for (unsigned p = 1; p < PM_NCOUNTED; p++)
		if (h->growth[p] > t->count[p])
			over |= PM_P_BIT(p);
	if (symbol_over(h, t, rate_bps))
		over |= PM_P_BIT(PM_P_SYMBOL_ERRORS);
	if ((uint64_t)h->wait_ds * 10 > (uint64_t)t->xmit_wait_pct * t->window_s)
		over |= PM_P_BIT(PM_P_XMIT_WAIT);
	if (t->flap_bounces && (h->bounces >= t->flap_bounces || downs >= t->flap_bounces))
		over |= PM_P_BIT(PM_P_FLAPPING);
	return over;
}

static void add_wait(struct pm_health *h, const struct pm_thresholds *t, uint64_t ticks,
		     double rate_bps)
{
	double ds;

	if (rate_bps <= 0 || !ticks)
		return;
	ds = (double)ticks * t->xmit_wait_tick_bytes * 8 / rate_bps * 10;
	h->wait_ds = ds >= (double)(UINT16_MAX - h->wait_ds) ? UINT16_MAX
							     : (uint16_t)(h->wait_ds + ds);
}

uint32_t pm_health_add(struct pm_health *h, const struct pm_thresholds *t, uint16_t seq,
		       const uint64_t delta[PM_NCTR], double rate_bps)
{
	roll(h, seq);
	for (unsigned p = 0; p < PM_NCOUNTED; p++) {
		uint64_t d = delta[counted[p]];

		h->growth[p] = sat16(h->growth[p] + (d > UINT16_MAX ? UINT16_MAX : (uint32_t)d));
	}
	add_wait(h, t, delta[PM_XMIT_WAIT], rate_bps);
	h->over |= judge(h, t, rate_bps);
	return h->over | h->over_prev;
}

uint32_t pm_health_bounce(struct pm_health *h, const struct pm_thresholds *t, uint16_t seq)
{
	roll(h, seq);
	if (h->bounces < UINT8_MAX)
		h->bounces++;
	if (t->flap_bounces && h->bounces >= t->flap_bounces)
		h->over |= PM_P_BIT(PM_P_FLAPPING);
	return h->over | h->over_prev;
}

uint32_t pm_health_problems(struct pm_health *h, uint16_t seq)
{
	roll(h, seq);
	return h->over | h->over_prev;
}
