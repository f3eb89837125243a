/*
 * DOC: the subnet manager's state (struct sm), and what every part of the
 * SM shares (sm.c): the MAD engine with the timer at its next deadline,
 * the requests a phase builds, and the listeners through which the rooms
 * above (the SA, the control server) hear about the SM's changes: sm/
 * never calls up into them.
 *
 * One struct sm lives for the whole process. The heavy sweep and its
 * phases, in order, are sweep.h's; each module declares its own part in
 * its own header.
 */
#ifndef IBSM_SM_SM_H
#define IBSM_SM_SM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "conf/conf.h"
#include "lib/guidtab.h"
#include "lib/pool.h"
#include "mad/engine.h"
#include "routing/routing.h"
#include "sm/audit.h"
#include "sm/discover.h"
#include "fabric/election.h"
#include "fabric/fabric.h"
#include "fabric/liddb.h"
#include "sm/light.h"
#include "fabric/linkset.h"

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
struct sm_snap; /* the last complete sweep, fabric/snap.h */
struct sa;      /* Subnet Administration, sa/sa.h */
struct pm;      /* performance manager, pm/sched.h */
struct sm_isolated;
struct rt_hold;
struct sm;

/* Who hears about the SM's changes: the control server and the SA register
 * here (sm/ never calls up into them). changed() runs whenever a sweep or
 * reroute starts, finishes or fails, or the SM state changes; port_event()
 * for a port change seen between sweeps (trap, light sweep). */
struct sm_listener {
	void (*changed)(void *arg, struct sm *sm);
	void (*port_event)(void *arg, struct sm *sm, const char *type, const struct sm_port *p);
	/* A Trap the SM received and acknowledged (sm/unsolicited.c), decoded;
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
	uint64_t smps_done;       /* and at its end (0 before) */
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

/* The per-SMP contexts of the Sets a sweep sends, kept for reuse. */
enum sm_pool {
	SM_POOL_PORTINFO,   /* portcfg.c: PortInfo Sets */
	SM_POOL_SWITCH,     /* bringup.c: LFT blocks and SwitchInfo */
	SM_POOLS
};

struct sm {
	struct sm_conf conf;
	struct sm_run_opts run;
	struct event_base *base;
	struct event *ev_umad, *ev_timer, *ev_sweep;
	uint64_t timer_armed;               /* ev_timer's deadline, or UINT64_MAX */
	struct event *ev_light, *ev_hold;   /* light sweep, flap hold-down */
	struct event *ev_log;               /* counts of log lines left out */
	struct event *ev_retry;             /* sweep again after an unclean one */
	struct event *ev_sig[3];
	struct mad_transport tp;
	struct mad_port_info port;
	struct mad_engine *eng;
	struct pool ctx_pool[SM_POOLS];

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
	struct sm_snap *snap;           /* current snapshot (fabric/snap.h) */
	struct linkset routed_links;    /* the links `routes` were computed for */
	struct linkset pending_links;   /* ... and those the running job routes */
	int pending_change;             /* enum linkset_change of that job */
	struct route_job *route_job;    /* routing running on the worker */
	struct sm_light light;
	struct sm_audit audit;
	struct guidtab flaps;           /* when ports went down (light.c) */
	uint16_t sm_lid;                /* our own LID */
	struct sm_ar *ar;               /* adaptive routing, per switch (sm/ar.c) */
	struct sm_pkey *pkey;           /* partitions, P_KeyTables (sm/pkey.c) */
	struct sm_qos *qos;             /* SL2VL and VLArbitration (sm/qos.c) */
	struct sm_mcast *mcast;         /* multicast groups and MFTs (sm/mcast.c) */
	struct sm_act *act;             /* links walked this phase (sm/activate.c) */
	struct sm_prog *prog;           /* the bring-up phase's LFT writes (bringup.c) */
	struct lids_job *lids_job;      /* the LID file being written (lidmgr.c) */
	struct sm_steps *steps;         /* loops cut into turns (phase.c) */
	struct sm_rereg *rereg;         /* ClientReregister to send (sm/rereg.c) */

	/* the running phase */
	unsigned sweep_at;              /* the next of sweep.c's phases */
	unsigned tables_at;             /* the next of tablephases.c's tables */
	void (*tables_done)(struct sm *);   /* after the last table */
	void (*elected)(struct sm *);   /* after the election (sminfo.c) */
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
	uint64_t lft_blocks_total;      /* LFT blocks written since start */
	int exit_code;
	bool stopping;      /* shutting down: start nothing new */
	bool ignore_traps;  /* IBSMD_TEST_IGNORE_TRAPS: act as if traps were lost */
	struct timespec t_trap;   /* arrival of the last Trap 128 */
	struct sm_listener listeners[SM_MAX_LISTENERS];
	unsigned nlisteners;
	struct sa *sa;                  /* NULL with --once */
	/* the performance manager (pm/), run by the daemon; NULL when not
	 * started. The SM never calls it: listeners feed it. */
	struct pm *pm;
	/* links routed around for their health (sm/isolate.c) */
	struct sm_isolated *isolated;
	size_t nisolated;
};

/* Registers l (copied); at most SM_MAX_LISTENERS. */
void sm_listen(struct sm *sm, const struct sm_listener *l);
/* Tells every listener with a trap hook about a received Trap. */
void sm_trap_notify(struct sm *sm, const struct smp_notice *n);

/* Are we the master SM? The SA serves only then. The
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

int sm_submit(struct sm *sm, const struct mad_req *r, mad_done_fn cb, void *arg);

/* A DR request to node n (its shortest path). */
void sm_dr_req(const struct sm *sm, const struct sm_node *n, uint8_t method,
	       uint16_t attr, uint32_t mod, struct mad_req *r);
/* A DR request about port p: a CA port is addressed through its own link. */
void sm_port_req(const struct sm *sm, const struct sm_port *p, uint8_t method,
		 uint16_t attr, uint32_t mod, struct mad_req *r);

/* An event for subscribers and the log: "link_down", "link_up", ... */
void sm_event(struct sm *sm, const char *type, const struct sm_port *p);

/* The MAD engine on sm->tp with the smp_* options; it answers unsolicited
 * SMPs (sm_unsolicited), lets only a master write (sm_set_gate), and
 * hands every GSI MAD to gsi(gsi_arg, ...) (the SA; NULL: dropped). */
void sm_engine_start(struct sm *sm, mad_gsi_fn gsi, void *gsi_arg);
/* The engine's deadline timer on sm->base (after the loop exists). */
void sm_engine_timer_new(struct sm *sm);
/* The smp_* options into the running MAD engine (a reload). */
void sm_smp_limits_apply(struct sm *sm);
/* The MAD engine's timer set to its next deadline (after a send or a reply). */
void sm_arm_engine_timer(struct sm *sm);

#endif
