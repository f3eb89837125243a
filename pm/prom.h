/*
 * DOC: the Prometheus text exposition (format 0.0.4) of the fabric's
 * counters and health and of the SM's own metrics.
 *
 * Port counters carry the names treydock/infiniband_exporter gives them,
 * so dashboards and recording rules built on it keep working:
 * infiniband_{switch,hca}_port_<counter>_total{guid,port} (guid is the node
 * GUID as "0x%016x"; data counters in bytes, the PMA's 4-byte words times
 * four), infiniband_{switch,hca}_info{guid,<switch|hca>,lid} and
 * infiniband_{switch,hca}_uplink_info{guid,port,<switch|hca>,uplink,
 * uplink_guid,uplink_lid,uplink_port,uplink_type}. The SM's own metrics
 * are the ibsmd_ family (prom_sm_metrics below), with the health problems
 * of each port as ibsmd_port_problem{guid,port,problem}.
 *
 * A page of a large fabric is tens of megabytes, so it is produced in
 * steps: prom_writer_step() writes whole lines until a byte budget is spent
 * and says whether more is to come. Between steps it keeps a cursor of
 * (metric family, node GUID, port), which stays valid when the table is
 * replaced by a new sweep's targets. Pure: the caller owns the output
 * (a sink) and the loop.
 */
#ifndef IBSM_PM_PROM_H
#define IBSM_PM_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pm/sched.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* What the fabric model knows of a node and of a port's far end. */
struct prom_node {
	char name[65];          /* NodeDescription */
	uint16_t lid;
};

struct prom_peer {
	uint64_t guid;
	uint16_t lid;
	uint8_t port;
	uint8_t is_switch;
	char name[65];
};

struct prom_fabric {
	bool (*node)(void *arg, uint64_t guid, struct prom_node *out);
	bool (*peer)(void *arg, uint64_t guid, uint8_t port, struct prom_peer *out);
	void *arg;
};

/* SA latency histogram bounds, seconds (cumulative buckets, +Inf last). */
#define PROM_SA_NBUCKETS 8
extern const double prom_sa_bounds[PROM_SA_NBUCKETS];

enum prom_sm_state { PROM_SM_NOT_ACTIVE, PROM_SM_DISCOVERING, PROM_SM_STANDBY, PROM_SM_MASTER };

/* The SM's own numbers, taken once at the start of a page. */
struct prom_sm_metrics {
	uint64_t sweeps;                /* heavy sweeps done */
	double sweep_seconds;           /* duration of the last one */
	uint64_t smps_sent, smps_failed, smps_retried;
	uint64_t lft_blocks;            /* LFT blocks written */
	unsigned ports_active;          /* ports in the Active state */
	unsigned isolated_links;        /* links health_action=isolate routes around */
	uint64_t sa_requests, sa_errors;
	uint64_t sa_latency_le[PROM_SA_NBUCKETS]; /* requests answered within each bound */
	uint64_t sa_latency_count;
	double sa_latency_sum;          /* seconds */
	unsigned mcast_groups;
	int sm_state;                   /* enum prom_sm_state */
	unsigned ctl_clients;           /* control-socket connections */
};

typedef void (*prom_sink)(void *arg, const char *s, size_t n);

struct prom_writer;

/* A page over pm (counters, health, its own statistics), fab (names,
 * LIDs, far ends; either hook may be NULL) and sm (copied). */
struct prom_writer *prom_writer_new(const struct pm *pm, const struct prom_fabric *fab,
				    const struct prom_sm_metrics *sm);
void prom_writer_free(struct prom_writer *w);
/* Writes whole lines until at least `budget` bytes went to the sink or
 * the page is done; true while more is to come. */
bool prom_writer_step(struct prom_writer *w, size_t budget, prom_sink sink, void *arg);

/* Appends s as a label value: backslash, double quote and newline escaped,
 * bytes outside printable ASCII as '?', so the page is always valid UTF-8.
 * Returns the length written, at most 2 * strlen(s) (out must hold that + 1). */
size_t prom_escape(const char *s, char *out, size_t cap);

#endif
