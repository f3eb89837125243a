/*
 * DOC: an SA on a synthetic fabric, for the SA's unit tests, its fuzz
 * target and its per-query benchmark.
 *
 * A fabric from the routing tests' builders (fat trees, tori) gets LIDs
 * (topo_fill_lids) and real unicast tables (route_compute), and becomes a
 * snapshot as the SM would publish it: every linked port Active, PortInfo
 * filled the way ibsim's ports answer (4x QDR, MTU 2048, VL0-7, VLArb caps
 * 8/8, IsSM on the SM's port). The SA runs on a fake environment: sends
 * are recorded (or go through a real MAD engine on the fake transport),
 * SMPs the SA submits to read port tables are queued and answered from a
 * small deterministic model of what ports hold, the clock is fake.
 */
#ifndef IBSM_TESTS_SA_FIXTURE_H
#define IBSM_TESTS_SA_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/engine.h"
#include "mad/sa.h"
#include "routing/routing.h"
#include "sa/sa.h"
#include "fabric/snap.h"
#include "tests/unit/test_routing_topo.h"

#define SA_FX_PREFIX 0xfe80000000000000ULL
#define SA_FX_SA_KEY 0x5aULL
#define SA_FX_SM_KEY 0x1234ULL
#define SA_FX_LTV 18            /* SwitchInfo:LifeTimeValue of every switch */

struct sa_fx_sent {
	uint8_t *msg;
	size_t len;
	struct mad_addr to;
};

struct sa_fx_smp {
	struct mad_req r;
	mad_done_fn done;
	void *arg;
};

struct sa_fx {
	struct tb b;
	struct route_tables rt;
	struct sm_snap *snap;        /* current (published) */
	struct sa *sa;
	struct sa_conf conf;
	bool master;
	uint64_t now;
	uint64_t next_tid;
	uint32_t sm_node;            /* the SM's CA (first CA) */
	struct sa_fx_sent *sent;
	size_t nsent, sent_cap;
	int send_rc;                 /* what the fake send returns */
	struct mad_engine *eng;      /* set: sends go through it */
	struct sa_fx_smp *smps;
	size_t nsmps, smps_cap;
	uint16_t dead_lid;           /* SMPs to it time out */
	int smp_rc;                  /* what SMP submission returns */
	struct mcdb *mc;             /* sa_fx_multicast(): the groups */
};

/* shape: "ft2" (k-ary 2-level fat tree), "ft3", "torus" (k x k, 2 hosts
 * per switch). */
void sa_fx_init(struct sa_fx *f, const char *shape, unsigned k, uint8_t lmc);
void sa_fx_free(struct sa_fx *f);
/* A new SA on the same fabric: no services, subscriptions or cache;
 * outstanding SMPs cancelled, sends forgotten. */
void sa_fx_reset(struct sa_fx *f);
/* A new snapshot of f->b.t and f->rt (after a test changed them). */
struct sm_snap *sa_fx_snapshot(struct sa_fx *f);
/* Make s current (the old one is dropped). */
void sa_fx_publish(struct sa_fx *f, struct sm_snap *s);
/* The snapshot port of topo node n, port p. */
struct snap_port *sa_fx_port(const struct sa_fx *f, uint32_t n, unsigned p);
/* The first CA node after (or at) node i, and the i-th CA. */
uint32_t sa_fx_ca(const struct sa_fx *f, unsigned i);
uint32_t sa_fx_switch(const struct sa_fx *f, unsigned i);
unsigned sa_fx_nends(const struct sa_fx *f);
unsigned sa_fx_nswitches(const struct sa_fx *f);
unsigned sa_fx_nlinks(const struct sa_fx *f);

/* Give the SA a multicast group database (fabric/mcdb.h) over the current
 * snapshot's ports; traps 66/67 go to sa_report_mcast(). Resets the SA. */
void sa_fx_multicast(struct sa_fx *f);

/* Partitions in snapshot s: port p of node n holds keys[0..nk); ports
 * never given keys hold none. The first call marks s as partitioned with
 * every SL usable (s->sl_ok is the test's to change). */
void sa_fx_pkeys(struct sm_snap *s, uint32_t n, unsigned p, const uint16_t *keys, size_t nk);
/* Partition pkey's paths get SL sl (-1: none usable). */
void sa_fx_part_sl(struct sm_snap *s, uint16_t pkey, int8_t sl);

/* A request MAD: 56-byte header and tlen template bytes, len bytes in
 * all (MAD_SIZE when 0). */
size_t sa_fx_mad(struct sa_fx *f, uint8_t *buf, uint8_t method, uint16_t attr, uint32_t mod,
		 uint64_t mask, const void *tmpl, size_t tlen, uint64_t sm_key);
/* Hand it to the SA as from LID slid; returns how many sends it caused. */
size_t sa_fx_send(struct sa_fx *f, const uint8_t *mad, size_t len, uint16_t slid);
/* Both in one, from the SM's own CA port. */
size_t sa_fx_req(struct sa_fx *f, uint8_t method, uint16_t attr, uint64_t mask,
		 const void *tmpl, size_t tlen);

/* The last message sent, decoded: header and records. */
struct sa_fx_resp {
	struct sa_hdr h;
	const uint8_t *data;
	size_t dlen;
	size_t n;                    /* records, by AttributeOffset */
	size_t stride;
	struct mad_addr to;
};
bool sa_fx_last(const struct sa_fx *f, struct sa_fx_resp *r);
const uint8_t *sa_fx_rec(const struct sa_fx_resp *r, size_t i);

/* Answer every queued SMP from the port model; returns how many. */
size_t sa_fx_answer_smps(struct sa_fx *f);
/* What the model says a port holds (64 bytes), or false (error status). */
bool sa_fx_model(const struct sa_fx *f, uint16_t dlid, uint16_t attr, uint32_t mod,
		 uint8_t data[64]);

#endif
