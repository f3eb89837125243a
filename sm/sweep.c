/*
 * DOC: the heavy sweep: its phases in order (one table, phases[]), its
 * start, the new generation of the fabric after discovery, and the
 * end-of-sweep verdict. A reroute runs the same table from the bring-up.
 *
 * The subnet is declared up only when a sweep ran without a failed Set,
 * routes were computed, every linked port is Active and nothing that is up
 * leads somewhere unknown. A sweep that could not confirm everything
 * (queries lost, nodes kept as last seen) is unclean: the next one follows,
 * immediately in --once mode (up to ONCE_ATTEMPTS), else after a pause
 * that doubles up to SWEEP_RETRY_MAX_S while sweeps stay unclean.
 */
#include "config.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "fabric/lastseen.h"
#include "fabric/dupguid.h"
#include "lib/log.h"
#include "sm/activate.h"
#include "sm/bringup.h"
#include "sm/lidmgr.h"
#include "sm/pkey.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/snap_build.h"
#include "sm/sweep.h"
#include "sm/tablephases.h"

#define ONCE_ATTEMPTS 10
#define SWEEP_RETRY_S 1
#define SWEEP_RETRY_MAX_S 30

static void next_phase(struct sm *sm);
static void retry_later(struct sm *sm);

static void keep_ignored_fields(const struct sm_node *o, struct sm_node *n)
{
	if (o->ni.num_ports != n->ni.num_ports)
		return;
	for (unsigned p = 0; p <= n->ni.num_ports; p++)
		n->ports[p].pi_ignored = o->ports[p].pi_ignored;
}

/* What we learned about nodes (switch tables, PortInfo fields a port
 * ignores) survives into the new generation. */
static void keep_learned(struct sm_fabric *old, struct sm_fabric *nw)
{
	for (uint32_t i = 0; old && i < nw->nnodes; i++) {
		struct sm_node *n = nw->nodes[i];
		struct sm_node *o = fabric_find(old, n->guid);

		if (o)
			keep_ignored_fields(o, n);
		if (o && node_is_switch(n) && o->lft)
			fabric_move_lft(n, o);
	}
}

/* The SMPs a sweep of this fabric cannot do without: a NodeInfo across every
 * link plus the local one, NodeDescription per node, SwitchInfo per switch,
 * PortInfo of every switch port (0..N) and of every CA port we reached; then
 * the Sets that were really needed (each port, block and state change that
 * differed). What we send beyond this is overhead: LFT reads, retries and
 * NodeInfos that crossed a link already known. */
static uint64_t smps_minimum(const struct sm *sm)
{
	const struct sm_fabric *f = sm->fabric;
	uint64_t n = (uint64_t)f->nlinks + 1 + f->nnodes + f->nswitches;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *nd = f->nodes[i];

		for (unsigned p = 0; p <= nd->ni.num_ports; p++)
			n += node_is_switch(nd) || (p && nd->ports[p].guid);
	}
	return n + sm->st.portinfo_sets + sm->st.lft_blocks_written + sm->st.switchinfo_sets +
	       sm->st.state_sets;
}

/* smps_sent counts the last sweep's SMPs, to its end; smps_after_up
 * those sent after it (the P_Key read-back) before the summary. */
static void print_summary(struct sm *sm)
{
	struct mad_stats ms;
	const struct sm_fabric *f = sm->fabric;
	uint64_t done;

	mad_engine_get_stats(sm->eng, &ms);
	done = sm->st.smps_done ? sm->st.smps_done : ms.sent;
	printf("%s: nodes=%u switches=%u cas=%u links=%u ports_active=%u lids=%zu "
	       "engine=%s smps_sent=%llu smps_after_up=%llu smps_min=%llu smps_failed=%llu "
	       "discovery_smps=%llu "
	       "lft_blocks_read=%llu lft_blocks_written=%llu portinfo_sets=%llu state_sets=%llu "
	       "dup_guids=%u discovery_ms=%.1f elapsed_ms=%.1f\n",
	       sm->run.discover_only ? "discovered" : sm->subnet_up ? "subnet up" : "subnet NOT up",
	       f ? f->nnodes : 0, f ? f->nswitches : 0,
	       f ? f->ncas : 0, f ? f->nlinks : 0, sm->st.ports_active, lid_db_count(&sm->lids),
	       sm->have_routes ? sm->routes.engine : "-",
	       (unsigned long long)(done - sm->st.smps_start), (unsigned long long)(ms.sent - done),
	       (unsigned long long)(f ? smps_minimum(sm) : 0), (unsigned long long)ms.failed,
	       (unsigned long long)sm->st.discovery_smps,
	       (unsigned long long)sm->st.lft_blocks_read,
	       (unsigned long long)sm->st.lft_blocks_written,
	       (unsigned long long)sm->st.portinfo_sets, (unsigned long long)sm->st.state_sets,
	       f ? f->dup_guids : 0, clock_diff_ms(&sm->st.t_start, &sm->st.t_discovered),
	       clock_diff_ms(&sm->st.t_start, &sm->st.t_done));
	fflush(stdout);
}

/* A switch port that is up with nothing known behind it hides part of the
 * fabric (a query through it was lost). */
static bool port_ok(const struct sm_port *p)
{
	if (!p->have_pi || p->held || p->pi.port_state <= TOPO_PORT_DOWN)
		return true;
	if (!p->peer)
		return !node_is_switch(p->node) || p->node->hop_cnt >= SMP_MAX_HOPS;
	return p->pi.port_state == TOPO_PORT_ACTIVE;
}

static bool all_linked_active(const struct sm_fabric *f)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		for (unsigned k = 1; k <= n->ni.num_ports; k++)
			if (!port_ok(&n->ports[k]))
				return false;
	}
	return true;
}

/* The sweep's end in the log and to event subscribers. */
static void log_done(struct sm *sm)
{
	log_notice("%s %llu done in %.1f ms: subnet %s; %llu LFT blocks written, "
		   "%llu entries changed, %llu PortInfo sets, %llu port state changes",
		   sm->st.reroute ? "reroute" : "sweep", (unsigned long long)sm->sweeps,
		   clock_diff_ms(&sm->st.t_start, &sm->st.t_done), sm->subnet_up ? "UP" : "not up",
		   (unsigned long long)sm->st.lft_blocks_written,
		   (unsigned long long)sm->st.entries_changed,
		   (unsigned long long)sm->st.portinfo_sets, (unsigned long long)sm->st.state_sets);
	if (sm->st.reroute && sm->t_trap.tv_sec)
		log_notice("reroute %llu: last LFT block acknowledged %.1f ms after the trap arrived",
			   (unsigned long long)sm->sweeps, clock_diff_ms(&sm->t_trap, &sm->st.t_done));
	memset(&sm->t_trap, 0, sizeof(sm->t_trap));
	sm_event(sm, sm->st.reroute ? "reroute_done" : "sweep_done", NULL);
}

static void once_exit(struct sm *sm)
{
	print_summary(sm);
	event_base_loopexit(sm->base, NULL);
}

/* Whether --once is done: the summary is printed and the process exits
 * once the P_Key read-back is (finished()). */
static bool once_verdict(struct sm *sm)
{
	if ((sm->subnet_up && sm->sweep_clean) || sm->sweeps >= ONCE_ATTEMPTS) {
		if (!sm->subnet_up) {
			fprintf(stderr, "ibsmd: subnet not up after %llu sweeps (%u errors)\n",
				(unsigned long long)sm->sweeps, sm->st.errors);
			sm->exit_code = 1;
		}
		sm->sweep_again = false;
		return true;
	}
	log_notice("sweep %llu did not bring the subnet up, sweeping again",
		   (unsigned long long)sm->sweeps);
	sm->sweep_again = true;
	return false;
}

/* The end of a sweep or reroute that configured the fabric (or tried).
 * The P_KeyTables it took for the reset content are read back right
 * after it, unless another sweep follows at once (which looks again). */
static void finished(struct sm *sm)
{
	struct mad_stats ms;
	bool exiting;

	clock_gettime(CLOCK_MONOTONIC, &sm->st.t_done);
	mad_engine_get_stats(sm->eng, &ms);
	sm->st.smps_done = ms.sent;
	sm->sweeping = false;
	sm->subnet_up = sm->st.errors == 0 && sm->have_routes && all_linked_active(sm->fabric);
	if (sm->sweep_clean)
		sm->retry_s = 0;
	if (!sm->st.reroute)
		sm->takeover = false;
	sm_snap_publish(sm);
	if (sm->run.dump_lfts && sm->have_routes) {
		int err = fabric_dump_lfts(sm->fabric, &sm->routes, sm->run.dump_lfts);

		if (err < 0)
			log_warnx("cannot write %s: %s", sm->run.dump_lfts, strerror(-err));
	}
	log_done(sm);
	exiting = sm->run.once && once_verdict(sm);
	if ((!sm->subnet_up || !sm->sweep_clean) && !sm->run.once && !sm->sweep_again)
		retry_later(sm);
	if (!sm->sweep_again)
		sm_pkey_verify(sm, exiting ? once_exit : NULL);
	sm_sminfo_after_sweep(sm);
	if (sm->sweep_again) {
		sm->sweep_again = false;
		sm_sweep_request(sm);
	} else if (sm->light.pending_sweep) {
		sm_light_sweep(sm);
	}
}

/* The end of a sweep that found another SM master. */
static void standing_by(struct sm *sm)
{
	clock_gettime(CLOCK_MONOTONIC, &sm->st.t_done);
	sm->sweeping = false;
	sm->subnet_up = false;
	sm->sweep_again = false;
	log_notice("sweep %llu done in %.1f ms: standing by, SM %016llx is master",
		   (unsigned long long)sm->sweeps, clock_diff_ms(&sm->st.t_start, &sm->st.t_done),
		   (unsigned long long)sm->master_guid);
	sm_event(sm, "sweep_done", NULL);
	if (sm->run.once) {
		print_summary(sm);
		fprintf(stderr, "ibsmd: SM %016llx is master here: nothing configured\n",
			(unsigned long long)sm->master_guid);
		sm->exit_code = 1;
		event_base_loopexit(sm->base, NULL);
	}
}

static void discovery_only_done(struct sm *sm)
{
	int err;

	if (sm->run.dump_topology) {
		err = fabric_dump_ibnet(sm->fabric, sm->run.dump_topology);
		if (err < 0) {
			fprintf(stderr, "ibsmd: cannot write %s: %s\n", sm->run.dump_topology,
				strerror(-err));
			sm->exit_code = 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &sm->st.t_done);
	sm->sweeping = false;
	print_summary(sm);
	event_base_loopexit(sm->base, NULL);
}

static void discovered(void *arg, struct sm_fabric *f, const struct discover_stats *ds)
{
	struct sm *sm = arg;
	struct carry_stats cs;

	sm->disc = NULL;
	clock_gettime(CLOCK_MONOTONIC, &sm->st.t_discovered);
	sm->st.discovery_smps = ds->submitted;
	if (!f) {
		log_warnx("discovery failed: the local port did not answer");
		sm->sweeping = false;
		sm_event(sm, "sweep_failed", NULL);
		sm->exit_code = 1;
		if (sm->run.once)
			event_base_loopexit(sm->base, NULL);
		return;
	}
	log_info("discovered %u nodes (%u switches), %u links with %llu SMPs (%u failed, %u conflicts)",
		 f->nnodes, f->nswitches, f->nlinks, (unsigned long long)ds->submitted, ds->failed,
		 ds->conflicts);
	if (ds->failed || ds->rejected)
		sm->sweep_clean = false;
	dups_drop_nodes(f, sm->fabric);
	fabric_carry_unknown(f, sm->fabric, &cs);
	dups_mark_ports(f, sm->fabric);
	if (cs.nodes || cs.links || cs.ports || f->dup_guids)
		sm->sweep_clean = false;
	dups_log(f);
	keep_learned(sm->fabric, f);
	fabric_free(sm->fabric);
	sm->fabric = f;
	sm->fabric_gen++;
	sm_apply_holddown(sm);
	next_phase(sm);
}

/* Discovery, and the new generation of the fabric made of what it found
 * and of what the last one knew (discovered()). */
static void discovery(struct sm *sm, void (*done)(struct sm *))
{
	sm->disc = discover_start(sm->eng, sm->conf.m_key, discovered, sm);
	if (!sm->disc) {
		log_warnx("cannot start discovery");
		sm->sweeping = false;
		sm->exit_code = 1;
		event_base_loopexit(sm->base, NULL);
	}
}

/* --- the phases, in order -------------------------------------------------------- */

/* Before the election: --discover-only stops after discovery. */
static bool discovery_only(struct sm *sm)
{
	if (!sm->run.discover_only)
		return false;
	discovery_only_done(sm);
	return true;
}

/* Before the LIDs: a standby configures nothing. */
static bool not_elected(struct sm *sm)
{
	if (sm_is_master(sm))
		return false;
	standing_by(sm);
	return true;
}

/* Before the tables: without routes the bring-up was the last phase. */
static bool unrouted(struct sm *sm)
{
	if (sm->have_routes)
		return false;
	sm_act_free(sm);
	finished(sm);
	return true;
}

/* A phase: run does its part, as a batch of SMPs or several, and calls
 * done(sm) when it is through. ends, where set, is asked first: it may
 * end the sweep there (and returns true). */
struct sweep_phase {
	const char *name;
	void (*run)(struct sm *sm, void (*done)(struct sm *));
	bool (*ends)(struct sm *sm);
};

/* The heavy sweep, from the first SMP to the verdict (finished()). */
static const struct sweep_phase phases[] = {
	{ "discovery",   discovery,         NULL },           /* sm/discover.c */
	{ "SM election", sm_sminfo_phase,   discovery_only }, /* sm/sminfo.c */
	{ "LIDs",        sm_lids_phase,     not_elected },    /* sm/lidmgr.c */
	{ "bring-up",    sm_bringup_phase,  NULL },           /* sm/bringup.c */
	{ "tables",      sm_tables_phase,   unrouted },       /* sm/tablephases.c */
	{ "links",       sm_activate_phase, NULL },           /* sm/activate.c */
};
#define NPHASES (sizeof(phases) / sizeof(phases[0]))
/* A reroute (a link went down) is the same list from the bring-up on. */
#define REROUTE_FROM 3

static void next_phase(struct sm *sm)
{
	const struct sweep_phase *p;

	if (sm->sweep_at == NPHASES) {
		finished(sm);
		return;
	}
	p = &phases[sm->sweep_at++];
	if (p->ends && p->ends(sm))
		return;
	p->run(sm, next_phase);
}

static void sweep_begin(struct sm *sm, bool reroute)
{
	struct mad_stats ms;

	memset(&sm->st, 0, sizeof(sm->st));
	mad_engine_get_stats(sm->eng, &ms);
	sm->st.smps_start = ms.sent;
	sm->st.reroute = reroute;
	clock_gettime(CLOCK_MONOTONIC, &sm->st.t_start);
	sm->sweeping = true;
	sm->sweep_clean = true;
	sm->sweeps++;
}

void sm_reroute_request(struct sm *sm)
{
	if (sm->stopping)
		return;
	if (!sm_may_write(sm)) {
		/* a reroute writes LFTs, SwitchInfo, tables: a master's job */
		if (sm->handing_over)
			sm->sweep_again = true;   /* should the handover fail */
		else
			log_warnx("reroute not started: we are %s, not master",
				  sm_state_name((int)sm->state));
		return;
	}
	if (sm->sweeping || !sm->fabric) {
		sm->sweep_again = true;
		return;
	}
	sweep_begin(sm, true);
	fabric_shortest_paths(sm->fabric);
	log_info("reroute %llu started (no rediscovery)", (unsigned long long)sm->sweeps);
	sm_event(sm, "reroute_started", NULL);
	sm->sweep_at = REROUTE_FROM;
	next_phase(sm);
}

static void retry_due(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	if (!sm_is_master(sm))
		return;
	log_info("retrying after an unclean sweep");
	sm_sweep_request(sm);
}

/* A sweep that did not bring the subnet up, or could not confirm all of
 * it, is retried, not in a tight loop: a switch that rejects a Set or a
 * lossy link would otherwise keep the SM sweeping. The pause doubles
 * while sweeps stay unclean. */
static void retry_later(struct sm *sm)
{
	struct timeval tv;

	sm->retry_s = sm->retry_s ? 2 * sm->retry_s : SWEEP_RETRY_S;
	if (sm->retry_s > SWEEP_RETRY_MAX_S)
		sm->retry_s = SWEEP_RETRY_MAX_S;
	tv.tv_sec = (time_t)sm->retry_s;
	tv.tv_usec = 0;
	if (!sm->ev_retry)
		sm->ev_retry = evtimer_new(sm->base, retry_due, sm);
	if (!evtimer_pending(sm->ev_retry, NULL))
		evtimer_add(sm->ev_retry, &tv);
}

void sm_sweep_request(struct sm *sm)
{
	if (sm->stopping || sm->state == SM_STATE_NOT_ACTIVE)
		return;   /* disabled by the master: we send no SMP at all */
	if (sm->sweeping || sm->handing_over) {
		sm->sweep_again = true;
		return;
	}
	sweep_begin(sm, false);
	sm_event(sm, "sweep_started", NULL);
	if (sm->state != SM_STATE_MASTER)
		sm->state = SM_STATE_DISCOVERING;
	log_info("heavy sweep %llu started", (unsigned long long)sm->sweeps);
	sm->sweep_at = 0;
	next_phase(sm);
}
