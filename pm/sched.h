/*
 * DOC: the performance manager's table of watched ports and its poll
 * scheduler.
 *
 * The SM hands over the ports to watch after each sweep (pm_set_targets:
 * node GUID, port, the LID its PMA answers at, the link's width and speed
 * and the link verdicts it can judge with both ends known); the table keeps
 * each port's counters and health across sweeps, found by (GUID, port) in
 * arrays sorted by GUID (no hash table, at most 248 bytes per port).
 *
 * Polling runs in rounds, one every period_ms. A node's PMA ClassPortInfo
 * is read once, before its ports (and again while it fails); it says which
 * attributes each port needs (pm/counters.h: PortCounters and/or
 * PortCountersExtended) and whether the node takes AllPortSelect. Reads are
 * per port: AllPortSelect in a Get returns the sum over all ports (IBA
 * 16.1.3.5; perfquery -a), so it serves only the clears, where one Set with
 * PortSelect 0xFF clears a whole switch once every port of it was read in
 * the round. pm_next() hands out at most `window` queries at a time; a
 * query that fails is asked again later in the same round, up to `retries`
 * re-asks per port (per node for ClassPortInfo) and round, so a dead port
 * costs few MADs; a port whose reads fail for not_answering_rounds rounds in a row
 * is reported not_answering, its totals kept as they were.
 *
 * Pure: the caller sends the queries (through the MAD engine, as GMPs
 * below the SM's own SMPs) and gives time as now_ms; nothing here blocks
 * or does I/O.
 */
#ifndef IBSM_PM_SCHED_H
#define IBSM_PM_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/pma.h"
#include "pm/counters.h"
#include "pm/health.h"

/* The counters with rates: PM_XMIT_DATA and PM_RCV_DATA. */
#define PM_NRATE 2

struct pm_opts {
	unsigned window;        /* queries outstanding; <= 256 on ibsim (umad2sim) */
	unsigned per_node;      /* of them to one node at most (its PMA) */
	unsigned retries;       /* re-asks per port and round of failed queries */
	unsigned period_ms;     /* from the start of one round to the next */
	struct pm_thresholds th;
};

void pm_opts_default(struct pm_opts *o);

/* A port to watch, from the SM's model. */
struct pm_target {
	uint64_t guid;          /* node GUID */
	uint16_t lid;           /* where its PMA answers: the switch's LID, the CA port's own */
	uint8_t port;
	uint8_t is_switch;
	uint8_t width_act, speed_act;   /* pm_link_caps: for rates */
	uint8_t idle;           /* its link is down: keep its totals and
				 * verdicts, do not poll it */
	uint32_t link_problems; /* pm_link_problems() of its link */
};

enum pm_qkind {
	PM_Q_CPI,               /* Get ClassPortInfo */
	PM_Q_PC,                /* Get PortCounters */
	PM_Q_PCE,               /* Get PortCountersExtended */
	PM_Q_CLEAR,             /* Set PortCounters clearing counter_select(2) */
};

struct pm_query {
	uint64_t guid;
	uint16_t lid;
	uint8_t kind;           /* enum pm_qkind */
	uint8_t port;           /* PortSelect: a port, or 0xFF with AllPortSelect */
	uint16_t counter_select;
	uint8_t counter_select2;
};

/* The PMA request of a query (the caller fills in the TID). */
void pm_query_req(const struct pm_query *q, struct pma_req *out);

/* Called when a port's problems change (PM_P_BIT()s). */
typedef void (*pm_change_fn)(void *arg, uint64_t guid, uint8_t port, uint32_t before,
			     uint32_t after);

struct pm;

struct pm *pm_new(const struct pm_opts *o, pm_change_fn fn, void *arg);
void pm_free(struct pm *pm);
/* Options may change at any time (a reload); the window and retries apply
 * at once, the period from the next round. */
void pm_set_opts(struct pm *pm, const struct pm_opts *o);
/* The ports to watch from now on, in any order; ports that stay keep their
 * state. Targets without a GUID or LID are ignored. 0 or -ENOMEM. */
int pm_set_targets(struct pm *pm, const struct pm_target *t, size_t n);

/* Queries to send now: at most max, within the window. Starts a round
 * when the last one is over and its time has come. */
size_t pm_next(struct pm *pm, uint64_t now_ms, struct pm_query *out, size_t max);
/* The outcome of a query pm_next() gave: r is the parsed reply, NULL when
 * the request failed (timeout, send error). Every query must be answered
 * exactly once, even after pm_set_targets() dropped its port. */
void pm_done(struct pm *pm, const struct pm_query *q, const struct pma_reply *r, uint64_t now_ms);
/* When pm_next() has work again without a pm_done(): the next round. */
uint64_t pm_next_deadline(const struct pm *pm);
/* The SM saw the port's link go down or up. */
void pm_bounce(struct pm *pm, uint64_t guid, uint8_t port, uint64_t now_ms);

/* A port as the writers (metrics, ibsmctl) see it. The pointers are good
 * until the next pm_set_targets(). */
struct pm_port_view {
	uint64_t guid;
	uint16_t lid;
	uint8_t port;
	uint8_t is_switch;
	uint8_t width_act, speed_act;
	uint8_t missed;         /* rounds in a row without a full answer */
	uint8_t idle;           /* not polled: its link is down */
	uint32_t problems;      /* PM_P_BIT()s */
	uint32_t valid;         /* PM_BIT()s the PMA gives (its plan) */
	uint32_t seen;          /* PM_BIT()s read at least once */
	uint32_t saturated;     /* PM_BIT()s whose totals are lower bounds */
	const uint64_t *total;  /* [PM_NCTR] */
	/* per second over the last round, of PM_XMIT_DATA and PM_RCV_DATA
	 * (4-byte words); negative while unknown (first reading, a round
	 * missed) */
	double rate[PM_NRATE];
};

size_t pm_port_count(const struct pm *pm);
/* The first port after (guid, port) in (GUID, port) order; (0, 0) gives
 * the first. A cursor that survives pm_set_targets(). false at the end. */
bool pm_port_next(const struct pm *pm, uint64_t guid, uint8_t port, struct pm_port_view *v);
bool pm_port_find(const struct pm *pm, uint64_t guid, uint8_t port, struct pm_port_view *v);

struct pm_stats {
	uint64_t rounds;        /* rounds finished */
	uint64_t queries;       /* queries handed out, re-asks included */
	uint64_t failed;        /* queries that failed */
	uint64_t clears;        /* PortCounters Sets confirmed */
	uint64_t overruns;      /* rounds that took longer than the period */
	uint64_t last_round_ms; /* duration of the last round */
	unsigned outstanding;
	unsigned ports;
	unsigned problems[PM_NPROBLEM];   /* ports with each problem */
};

/* Walks every port (for the problem counts): not for every answer. */
void pm_get_stats(const struct pm *pm, struct pm_stats *st);
/* Rounds finished: cheap, to notice the end of one. */
uint64_t pm_rounds(const struct pm *pm);
/* Queries handed out and not yet done: cheap. */
unsigned pm_outstanding(const struct pm *pm);
/* Bytes the table holds (nodes and ports), for the memory benchmark. */
size_t pm_table_bytes(const struct pm *pm);

#endif
