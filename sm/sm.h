/*
 * DOC: the subnet manager's state and its sweep pipeline.
 *
 * One struct sm lives for the whole process. A heavy sweep is a chain of
 * phases, each a batch of SMPs whose last completion starts the next phase:
 *
 *   discover -> LIDs -> bring-up -> QoS tables -> MFTs -> adaptive routing
 *   -> the links left to walk -> subnet up
 *
 * The bring-up phase (program.c) is everything that can go at once: the
 * PortInfo Sets (LID, SM LID, MTU, VLs...), P_Key tables read and written
 * port by port, LFT blocks read back and routing on its worker, then the
 * differing blocks and LinearFDBTop switch by switch; each link goes
 * ARMED as soon as its ports hold their configuration, and ACTIVE as soon
 * as its switches hold their whole LFT too (activate.h says why that is
 * safe), so the window stays full across what used to be phase
 * boundaries.
 *
 * Nothing blocks: the libevent loop keeps serving the umad fd and timers
 * between completions. A phase that fails for some node marks the sweep
 * unclean: the subnet is not declared up and the next sweep retries.
 */
#ifndef IBSM_SM_SM_H
#define IBSM_SM_SM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "conf/conf.h"
#include "mad/engine.h"
#include "routing/routing.h"
#include "sm/audit.h"
#include "sm/discover.h"
#include "sm/election.h"
#include "sm/fabric.h"
#include "sm/lids.h"
#include "sm/light.h"
#include "sm/linkset.h"

struct event_base;
struct event;
struct sm_ar;   /* adaptive routing state, sm/ar.c */
struct sm_pkey;
struct sm_qos;
struct sm_mcast;
struct sm_act;
struct sm_prog;
struct lids_job;
struct sm_steps;
struct portcfg_batch;
struct sm_rereg; /* ClientReregister to send, sm/rereg.c */
struct sm_snap; /* the last complete sweep, sm/snap.h */
struct sa;      /* Subnet Administration, sa/sa.h */
struct rt_hold;
struct sm;

/* Who hears about the SM's changes: the control server and the SA register
 * here (sm/ never calls up into them). changed() runs whenever a sweep or
 * reroute starts, finishes or fails, or the SM state changes; port_event()
 * for a port change seen between sweeps (trap, light sweep). */
struct sm_listener {
	void (*changed)(void *arg, struct sm *sm);
	void (*port_event)(void *arg, struct sm *sm, const char *type, const struct sm_port *p);
	/* A Trap the SM received and acknowledged (sm/smserv.c), decoded;
	 * the SA forwards traps 128 and 144 to its subscribers. */
	void (*trap)(void *arg, struct sm *sm, const struct smp_notice *n);
	void *arg;
};
#define SM_MAX_LISTENERS 4


struct sm_run_opts {
	bool once;              /* one sweep, print the summary, exit */
	bool discover_only;     /* stop after discovery */
	const char *dump_topology;
	const char *dump_lfts;  /* ibroute-format LFTs after each sweep */
	bool fresh_state;       /* ignore (and replace) the LID state file */
};

struct sweep_stats {
	uint64_t smps_start;      /* engine "sent" counter at sweep start */
	uint64_t discovery_smps;
	uint64_t lft_blocks_read;
	uint64_t lft_blocks_written;
	uint64_t portinfo_sets;
	uint64_t state_sets;
	uint64_t switchinfo_sets;
	uint32_t errors;          /* failed Sets/Gets outside discovery */
	struct timespec t_start, t_discovered, t_routed, t_done;
	uint32_t ports_active;
	uint64_t entries_changed;   /* LFT entries a repair changed */
	uint64_t lft_drift_blocks;  /* blocks read back changed, written back */
	uint64_t lft_drift_entries; /* ... and their entries */
	bool reroute;               /* a reroute without rediscovery */
};

struct sm {
	struct sm_conf conf;
	struct sm_run_opts run;
	struct event_base *base;
	struct event *ev_umad, *ev_timer, *ev_sweep;
	struct event *ev_light, *ev_hold;   /* light sweep, flap hold-down */
	struct event *ev_log;               /* counts of log lines left out */
	struct event *ev_retry;             /* sweep again after an unclean one */
	struct event *ev_sig[3];
	struct mad_transport tp;
	struct mad_port_info port;
	struct mad_engine *eng;

	enum sm_state state;
	struct sm_peers peers;          /* the other SMs (sminfo.c) */
	struct sm_poll poll;            /* as STANDBY: our polls of the master */
	uint64_t master_guid;           /* the SM we follow (STANDBY, NOT_ACTIVE) */
	uint64_t handed_to;             /* the SM we handed over to last */
	bool handing_over;              /* our HANDOVER Set is in flight: no writes */
	bool handover_wanted;           /* an operator's handover, after the sweep */
	struct event *ev_poll;
	unsigned rescan_pending;        /* SMInfo queries of a rescan */
	bool takeover;                  /* this sweep takes over from another SM */
	struct sm_fabric *fabric;       /* last complete sweep */
	uint64_t fabric_gen;            /* bumped each time fabric is replaced */
	struct discover *disc;          /* discovery in progress */
	struct lid_db lids;
	struct route_tables routes;
	bool have_routes;
	struct rt_hold *rt_hold;        /* routes, once a snapshot shares them */
	struct sm_snap *snap;           /* current snapshot (sm/snap.h) */
	struct linkset routed_links;    /* the links `routes` were computed for */
	struct linkset pending_links;   /* ... and those the running job routes */
	int pending_change;             /* enum linkset_change of that job */
	struct route_job *route_job;    /* routing running on the worker */
	struct sm_light light;
	struct sm_audit audit;
	struct flap_tab flaps;
	uint16_t sm_lid;                /* our own LID */
	struct sm_ar *ar;               /* adaptive routing, per switch (sm/ar.c) */
	struct sm_pkey *pkey;           /* partitions, P_KeyTables (sm/pkey.c) */
	struct sm_qos *qos;             /* SL2VL and VLArbitration (sm/qos.c) */
	struct sm_mcast *mcast;         /* multicast groups and MFTs (sm/mcast.c) */
	struct sm_act *act;             /* links walked this phase (sm/activate.c) */
	struct sm_prog *prog;           /* the bring-up phase's LFT writes (program.c) */
	struct lids_job *lids_job;      /* the LID file being written (lidmgr.c) */
	struct sm_steps *steps;         /* loops cut into turns (phase.c) */
	struct sm_rereg *rereg;         /* ClientReregister to send (sm/rereg.c) */

	/* the running phase */
	unsigned pending;
	void (*phase_done)(struct sm *);
	bool sweeping;
	bool sweep_again;               /* a sweep was asked for mid-sweep */
	bool reread_lfts;               /* next heavy sweep reads every LFT block */
	bool sweep_clean;               /* no error so far in this sweep */
	bool subnet_up;
	unsigned retry_s;               /* pause before retrying an unclean sweep */
	uint64_t sweeps;
	struct sweep_stats st;
	int exit_code;
	bool stopping;      /* shutting down: start nothing new */
	bool ignore_traps;  /* IBSMD_TEST_IGNORE_TRAPS: act as if traps were lost */
	struct timespec t_trap;   /* arrival of the last Trap 128 */
	struct sm_listener listeners[SM_MAX_LISTENERS];
	unsigned nlisteners;
	struct sa *sa;                  /* NULL with --once */
};

/* Registers l (copied); at most SM_MAX_LISTENERS. */
void sm_listen(struct sm *sm, const struct sm_listener *l);
/* Tells every listener with a trap hook about a received Trap. */
void sm_trap_notify(struct sm *sm, const struct smp_notice *n);

/* Are we the master SM? The SA serves only then (sa-mcast-ha.md 8.4). The
 * one place that decides, so SM election changes only this. */
static inline bool sm_is_master(const struct sm *sm)
{
	return sm->state == SM_STATE_MASTER;
}

/* May we write to the fabric now? Only as master, and not while a
 * handover we started is in flight: from the moment we send HANDOVER the
 * other SM may be master. A STANDBY, DISCOVERING or NOT_ACTIVE SM sends
 * no Set but SMInfo control packets (sminfo.c), ever. The MAD engine
 * asks sm_set_gate() (sminfo.c) before every SMP Set it sends, so this
 * also holds for a Set some path queued by mistake. */
static inline bool sm_may_write(const struct sm *sm)
{
	return sm->state == SM_STATE_MASTER && !sm->handing_over;
}

/* Phase plumbing: sm_phase_begin() before submitting a batch, one
 * sm_phase_sub() per request, sm_phase_end() after the batch; each request's
 * completion calls sm_phase_put(). The continuation runs when all are done
 * (also when the batch was empty). */
void sm_phase_begin(struct sm *sm, void (*done)(struct sm *));
void sm_phase_end(struct sm *sm);
void sm_phase_put(struct sm *sm);
/* One more completion the running phase waits for (a routing job); its
 * sm_phase_put() comes later. */
void sm_phase_hold(struct sm *sm);
/* step(sm, i) for i in 0..n-1 inside the running phase, STEPS_PER_TURN
 * (phase.c) per turn of the event loop, so that answers are read and the
 * SMP window refilled between turns; then then(sm). */
void sm_phase_steps(struct sm *sm, size_t n, void (*step)(struct sm *, size_t),
		    void (*then)(struct sm *));
/* Drops steps still to run (shutdown). */
void sm_phase_steps_abandon(struct sm *sm);
int sm_submit(struct sm *sm, const struct mad_req *r, mad_done_fn cb, void *arg);

/* A DR request to node n (its shortest path). */
void sm_dr_req(const struct sm *sm, const struct sm_node *n, uint8_t method,
	       uint16_t attr, uint32_t mod, struct mad_req *r);
/* A DR request about port p: a CA port is addressed through its own link. */
void sm_port_req(const struct sm *sm, const struct sm_port *p, uint8_t method,
		 uint16_t attr, uint32_t mod, struct mad_req *r);

/* Both ends of p's link are up, read, and not held (portcfg.c). */
bool sm_port_linked_up(const struct sm_port *p);
/* What port p should hold (fills *w); returns the PortInfo fields that
 * differ and that the port takes (portcfg.c). */
unsigned sm_port_wants(const struct sm *sm, const struct sm_port *p, struct smp_port_info *w);
/* A PortInfo Set of want to p that changes only the fields we own and, if
 * state is not 0, the port state. */
void sm_port_set_req(const struct sm *sm, const struct sm_port *p, const struct smp_port_info *want,
		     uint8_t state, struct mad_req *r);
/* Within the running phase: a PortInfo Set moving p to state `to`, with
 * the partition enforcement bits riding on it (pkey.h); then(sm, p, ok)
 * runs on its answer, ok when p got there (portcfg.c). */
void sm_port_state_set(struct sm *sm, struct sm_port *p, uint8_t to,
		       void (*then)(struct sm *, struct sm_port *, bool));
/* The PortInfo Sets of the ports whose fields differ from what they
 * should hold, made and their ports held (a link's walk waits for the
 * answer), to be sent one by one inside the running phase once the LIDs
 * are on disk (portcfg.c). Free frees what was not sent. */
struct portcfg_batch *sm_portcfg_prepare(struct sm *sm);
size_t sm_portcfg_count(const struct portcfg_batch *b);
void sm_portcfg_send(struct sm *sm, struct portcfg_batch *b, size_t i);
void sm_portcfg_free(struct portcfg_batch *b);
/* ClientReregister (rereg.c): want: every CA port gets a PortInfo Set
 * with the bit in the next PortInfo phase (sm_rereg_phase at its start),
 * until it answered; false drops what an earlier request left. Called
 * each time we become master. sm_rereg_wanted: does p get the bit now;
 * sm_rereg_result: its Set was answered (ok) or failed. */
void sm_rereg_request(struct sm *sm, bool want);
void sm_rereg_phase(struct sm *sm);
bool sm_rereg_wanted(const struct sm *sm, const struct sm_port *p);
void sm_rereg_result(struct sm *sm, const struct sm_port *p, bool ok);
size_t sm_rereg_pending(const struct sm *sm);
void sm_rereg_free(struct sm *sm);
/* The LFT block b switch n should hold (program.c). */
void sm_lft_desired(const struct sm *sm, const struct sm_node *n, unsigned b, uint8_t out[64]);

void sm_sweep_start(struct sm *sm);
/* Route and program again without rediscovery (a link went down). */
void sm_reroute_start(struct sm *sm);
void sm_retry_later(struct sm *sm);
/* An event for subscribers and the log: "link_down", "link_up", ... */
void sm_event(struct sm *sm, const char *type, const struct sm_port *p);
/* Pipeline stages, in order (each in its own file). */
void sm_lids_phase(struct sm *sm);       /* lidmgr.c */
/* The LIDs just assigned into the state file (lidmgr.c), written on a
 * worker; then(sm) runs once they are on disk (or could not be written,
 * logged): before it no PortInfo Set may give one out. */
void sm_lids_save(struct sm *sm, void (*then)(struct sm *));
/* Waits for a save in progress and forgets it (shutdown). */
void sm_lids_abandon(struct sm *sm);
/* The bring-up: PortInfo, P_Keys, routing, LFTs and the links that may
 * go ACTIVE meanwhile (program.c); with_ports false for a reroute. */
void sm_program_phase(struct sm *sm, bool with_ports);
/* Frees what a bring-up phase left (shutdown). */
void sm_program_free(struct sm *sm);
void sm_activate_phase(struct sm *sm);   /* the end walk, activate.c */
void sm_sweep_finished(struct sm *sm);   /* sweep.c */
/* The sweep ends here: another SM is master (sweep.c). */
void sm_sweep_standing_by(struct sm *sm);

/* The smp_* options into the running MAD engine (a reload). */
void sm_smp_limits_apply(struct sm *sm);           /* main.c */
/* The MAD engine's timer set to its next deadline (after a send or a reply). */
void sm_arm_engine_timer(struct sm *sm);           /* main.c */

/* Answers MADs nobody asked for: Get SMInfo, traps. */
void sm_unsolicited(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from);

uint64_t sm_now_ms(void);
double ts_diff_ms(const struct timespec *a, const struct timespec *b);

#endif
