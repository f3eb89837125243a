/*
 * DOC: routing and switch programming as a diff.
 *
 * The bring-up phase (sm_bringup_phase) runs everything that can go at
 * once after the LIDs: PortInfo Sets (portcfg.c), P_Key tables (pkey.c),
 * LFT read-back and routing, then the LFT writes; links go ACTIVE as
 * their switches are done (activate.h). One phase, so the wire stays
 * busy while routing runs on its worker and across what used to be
 * phase boundaries.
 *
 * Routes come from routing/ on an immutable topo snapshot. What a switch
 * holds is learned, not assumed: on the first sweep that sees a switch we
 * read back its LFT blocks up to its LinearFDBTop (a switch whose top is 0
 * holds nothing worth reading), later sweeps carry that knowledge over.
 * Then only 64-entry blocks that differ are written (IBA 14.2.5.10), and
 * SwitchInfo LinearFDBTop and LifeTimeValue only where they differ
 * (read-modify-write, PortStateChange written as 0, which leaves it
 * alone), after the blocks: an entry becomes live only holding our route.
 * Switches are written a few at a time (twice as many as the window needs
 * to stay full with smp_per_dest each), so that each is done early and
 * its links can go ACTIVE while the others are still being written. An
 * operator's sweep reads every block again: one that differs from what we
 * knew is drift, written back to our routes (drift.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "routing/repair.h"
#include "sm/activate.h"
#include "sm/ar.h"
#include "sm/bringup.h"
#include "sm/drift.h"
#include "fabric/linkset.h"
#include "sm/lidmgr.h"
#include "sm/phase.h"
#include "sm/pkey.h"
#include "sm/portcfg.h"
#include "sm/routejob.h"
#include "lib/log.h"
#include "sm/sm.h"
#include "sm/snap_build.h"
#include "sm/sweep.h"
#include "sm/tablephases.h"

/* The bring-up phase's own state. */
struct sm_prog {
	struct portcfg_batch *cfg;  /* the PortInfo Sets (none on a reroute) */
	unsigned reads;        /* LFT read-back in flight, +1 until all are sent */
	uint32_t *order;       /* switches to write, fabric order */
	uint32_t n, next;
	unsigned open, max_open;   /* switches being written now, and the cap */
	unsigned *left;        /* per node: its Sets in flight */
	bool *top_sent;        /* per node: its blocks are in, its top is next */
	bool *bad;             /* per node: a block failed or is unknown */
	void (*done)(struct sm *);   /* when everything above is through */
};

static void routes_ready(struct sm *sm);

struct lft_ctx {
	struct sm *sm;
	struct sm_node *n;
	uint16_t block;
	uint8_t data[64];
};

static unsigned blocks_for(unsigned top)
{
	return top / 64 + 1;
}

static void lft_reserve(struct sm_node *n, unsigned blocks)
{
	if (n->lft_blocks >= blocks)
		return;
	n->lft = xrealloc(n->lft, (size_t)blocks * 64);
	n->lft_known = xrealloc(n->lft_known, blocks);
	memset(n->lft + (size_t)n->lft_blocks * 64, LFT_NO_PORT, (size_t)(blocks - n->lft_blocks) * 64);
	memset(n->lft_known + n->lft_blocks, 0, blocks - n->lft_blocks);
	n->lft_blocks = blocks;
}

static void lft_get_done(void *arg, int err, const struct smp *resp)
{
	struct lft_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_lft_block b;

	if (err == MAD_OK && smp_lft_block_decode(resp->data, sizeof(resp->data), &b) == 0) {
		uint8_t *held = c->n->lft + (size_t)c->block * 64;
		uint8_t was = c->n->lft_known[c->block];
		bool drift = was == LFT_DRIFTED || (was == LFT_KNOWN && memcmp(held, b.port, 64));

		memcpy(held, b.port, 64);
		c->n->lft_known[c->block] = drift ? LFT_DRIFTED : LFT_KNOWN;
	} else {
		/* Not knowing what the block holds, we leave it alone this sweep:
		 * a lossy sweep must not write what a clean one would not. */
		c->n->lft_known[c->block] = LFT_READ_FAILED;
		sm->sweep_clean = false;
		sm->st.errors++;
		log_fabric(LOG_LVL_INFO, "%016llx: LFT block %u read failed (%d), left as it is",
			   (unsigned long long)c->n->guid, c->block, err);
	}
	pool_put(&sm->ctx_pool[SM_POOL_SWITCH], c);
	if (!--sm->prog->reads)
		routes_ready(sm);
	sm_phase_put(sm);
}

static void lft_get(struct sm *sm, struct sm_node *n, uint16_t block)
{
	struct lft_ctx *c = pool_get(&sm->ctx_pool[SM_POOL_SWITCH], sizeof(*c));
	struct mad_req r;

	c->sm = sm;
	c->n = n;
	c->block = block;
	sm_dr_req(sm, n, MAD_METHOD_GET, SMP_ATTR_LFT, block, &r);
	sm->st.lft_blocks_read++;
	if (sm_submit(sm, &r, lft_get_done, c) < 0)
		pool_put(&sm->ctx_pool[SM_POOL_SWITCH], c);
	else
		sm->prog->reads++;
}

static void read_back(struct sm *sm, unsigned need_blocks, bool reread)
{
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];
		unsigned have;

		if (!node_is_switch(n) || !n->have_si || !node_usable(n))
			continue;
		lft_reserve(n, need_blocks);
		if (reread && sm->takeover)   /* what we knew may be another SM's since */
			memset(n->lft_known, LFT_UNKNOWN, n->lft_blocks);
		if (n->si.lin_top == 0) {
			/* A reset switch holds nothing, whatever we wrote before. */
			memset(n->lft_known, 0, n->lft_blocks);
			memset(n->lft, LFT_NO_PORT, (size_t)n->lft_blocks * 64);
			continue;
		}
		have = blocks_for(n->si.lin_top);
		/* an operator's sweep trusts nothing it wrote */
		for (unsigned b = 0; b < have && b < need_blocks; b++)
			if (reread || !lft_block_known(n->lft_known[b]))
				lft_get(sm, n, (uint16_t)b);
	}
}

void sm_lft_desired(const struct sm *sm, const struct sm_node *n, unsigned b, uint8_t out[64])
{
	const uint8_t *ports = sm->routes.lft[n->idx].ports;

	for (unsigned k = 0; k < 64; k++) {
		unsigned lid = b * 64 + k;

		out[k] = (ports && lid <= sm->routes.top) ? ports[lid] : LFT_NO_PORT;
	}
}

static void switch_sets_put(struct sm *sm, struct sm_node *n);

static void lft_set_done(void *arg, int err, const struct smp *resp)
{
	struct lft_ctx *c = arg;
	struct sm *sm = c->sm;

	if (err == MAD_OK) {
		memcpy(c->n->lft + (size_t)c->block * 64, c->data, 64);
		c->n->lft_known[c->block] = LFT_KNOWN;
	} else {
		sm->prog->bad[c->n->idx] = true;
		sm->sweep_clean = false;
		sm->st.errors++;
		log_fabric(LOG_LVL_WARNING, "%016llx \"%s\": LFT block %u Set failed (%d)",
			   (unsigned long long)c->n->guid, c->n->desc, c->block, err);
	}
	switch_sets_put(sm, c->n);
	pool_put(&sm->ctx_pool[SM_POOL_SWITCH], c);
	sm_phase_put(sm);
}

static void switch_submit(struct sm *sm, const struct mad_req *r, mad_done_fn cb,
			  struct lft_ctx *c)
{
	if (sm_submit(sm, r, cb, c) < 0) {
		sm->prog->bad[c->n->idx] = true;
		pool_put(&sm->ctx_pool[SM_POOL_SWITCH], c);
		return;
	}
	sm->prog->left[c->n->idx]++;
}

static void lft_set(struct sm *sm, struct sm_node *n, uint16_t block, const uint8_t *data)
{
	struct lft_ctx *c = pool_get(&sm->ctx_pool[SM_POOL_SWITCH], sizeof(*c));
	struct mad_req r;

	c->sm = sm;
	c->n = n;
	c->block = block;
	memcpy(c->data, data, 64);
	sm_dr_req(sm, n, MAD_METHOD_SET, SMP_ATTR_LFT, block, &r);
	memcpy(r.data, data, 64);
	sm->st.lft_blocks_written++;
	sm->lft_blocks_total++;
	switch_submit(sm, &r, lft_set_done, c);
}

static bool block_current(const struct sm_node *n, unsigned b, const uint8_t *want)
{
	return b < n->lft_blocks && lft_block_known(n->lft_known[b]) &&
	       memcmp(n->lft + (size_t)b * 64, want, 64) == 0;
}

static bool block_unknown(const struct sm_node *n, unsigned b)
{
	return b < n->lft_blocks && n->lft_known[b] == LFT_READ_FAILED;
}

static void si_set_done(void *arg, int err, const struct smp *resp)
{
	struct lft_ctx *c = arg;
	struct sm *sm = c->sm;

	if (err == MAD_OK) {
		smp_switch_info_decode(resp->data, sizeof(resp->data), &c->n->si);
		if (c->n->si.life_time_value != sm->conf.packet_life_time)
			log_fabric(LOG_LVL_WARNING, "%016llx \"%s\": SwitchInfo LifeTimeValue %u "
				   "not taken (holds %u)", (unsigned long long)c->n->guid,
				   c->n->desc, sm->conf.packet_life_time, c->n->si.life_time_value);
	} else {
		sm->prog->bad[c->n->idx] = true;
		sm->sweep_clean = false;
		sm->st.errors++;
		log_fabric(LOG_LVL_WARNING, "%016llx \"%s\": SwitchInfo Set failed (%d)",
			   (unsigned long long)c->n->guid, c->n->desc, err);
	}
	switch_sets_put(sm, c->n);
	pool_put(&sm->ctx_pool[SM_POOL_SWITCH], c);
	sm_phase_put(sm);
}

/* SwitchInfo fields we program: LinearFDBTop, and LifeTimeValue (IBA
 * 14.2.5.4: how long a packet may live in the switch, 4.096 us * 2^value;
 * the SA's PathRecord PacketLifeTime is derived from it). */
static bool si_current(const struct sm *sm, const struct sm_node *n)
{
	return n->si.lin_top == sm->routes.top &&
	       n->si.life_time_value == sm->conf.packet_life_time;
}

static void si_set(struct sm *sm, struct sm_node *n)
{
	struct lft_ctx *c = pool_get(&sm->ctx_pool[SM_POOL_SWITCH], sizeof(*c));
	struct smp_switch_info si = n->si;
	struct mad_req r;

	si.lin_top = sm->routes.top;
	si.life_time_value = (uint8_t)sm->conf.packet_life_time;
	si.port_state_change = 0;
	c->sm = sm;
	c->n = n;
	sm_dr_req(sm, n, MAD_METHOD_SET, SMP_ATTR_SWITCH_INFO, 0, &r);
	smp_switch_info_encode(&si, r.data, sizeof(r.data));
	sm->st.switchinfo_sets++;
	switch_submit(sm, &r, si_set_done, c);
}

/* --- switches written a few at a time ---------------------------------------- */

void sm_bringup_free(struct sm *sm)
{
	struct sm_prog *P = sm->prog;

	if (!P)
		return;
	sm_portcfg_free(P->cfg);
	free(P->order);
	free(P->left);
	free(P->top_sent);
	free(P->bad);
	free(P);
	sm->prog = NULL;
}

static void prog_new(struct sm *sm)
{
	uint32_t n = sm->fabric->nnodes ? sm->fabric->nnodes : 1;

	sm_bringup_free(sm);
	sm->prog = xcalloc(1, sizeof(*sm->prog));
	sm->prog->order = xcalloc(n, sizeof(*sm->prog->order));
	sm->prog->left = xcalloc(n, sizeof(*sm->prog->left));
	sm->prog->top_sent = xcalloc(n, sizeof(*sm->prog->top_sent));
	sm->prog->bad = xcalloc(n, sizeof(*sm->prog->bad));
}

static void open_more(struct sm *sm);

/* Its blocks are in: then its SwitchInfo (LinearFDBTop), so that entries
 * go live holding our routes; then its links may go ACTIVE. */
static void switch_step(struct sm *sm, struct sm_node *n)
{
	struct sm_prog *P = sm->prog;

	if (!P->top_sent[n->idx]) {
		P->top_sent[n->idx] = true;
		if (!si_current(sm, n))
			si_set(sm, n);
		if (P->left[n->idx])
			return;
	}
	P->open--;
	sm_act_release_switch(sm, n, !P->bad[n->idx] && !sm_ar_owns_lft(sm, n));
	open_more(sm);
}

static void switch_sets_put(struct sm *sm, struct sm_node *n)
{
	if (!--sm->prog->left[n->idx])
		switch_step(sm, n);
}

/* Every block of n that differs from its routes; AR-enabled switches
 * only get their top here (sm/ar.c writes their tables). */
static void open_switch(struct sm *sm, struct sm_node *n)
{
	unsigned blocks = blocks_for(sm->routes.top);
	struct sm_prog *P = sm->prog;
	uint8_t want[64];

	P->open++;
	for (unsigned b = 0; b < blocks && !sm_ar_owns_lft(sm, n); b++) {
		sm_lft_desired(sm, n, b, want);
		if (b < n->lft_blocks && n->lft_known[b] == LFT_DRIFTED)
			drift_written(sm, n, b, want);
		if (block_unknown(n, b))
			P->bad[n->idx] = true;
		else if (!block_current(n, b, want))
			lft_set(sm, n, (uint16_t)b, want);
	}
	if (!P->left[n->idx])
		switch_step(sm, n);
}

static void open_more(struct sm *sm)
{
	struct sm_prog *P = sm->prog;

	while (P->open < P->max_open && P->next < P->n)
		open_switch(sm, sm->fabric->nodes[P->order[P->next++]]);
}

static void write_tables(struct sm *sm)
{
	struct sm_prog *P = sm->prog;
	unsigned window = sm->conf.smp_window, per_dest = sm->conf.smp_per_dest;

	P->n = 0;
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		if (node_is_switch(n) && n->have_si && node_usable(n))
			P->order[P->n++] = i;
	}
	P->max_open = 2 * (window / (per_dest ? per_dest : 1)) + 1;
	open_more(sm);
}

static void route_opts_from_conf(const struct sm *sm, struct route_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->engine = conf_enum_name(conf_opt_find("routing_engine"), sm->conf.routing_engine);
	o->root_guids = sm->conf.root_guids.v;
	o->nroots = sm->conf.root_guids.n;
}

static void remember_links(struct sm *sm, struct linkset *cur, enum linkset_change ch)
{
	char err[256];

	if (ch == LINKS_SAME) {
		linkset_free(cur);
		return;
	}
	linkset_free(&sm->routed_links);
	sm->routed_links = *cur;
	if (linkset_save(cur, sm->conf.state_dir, err, sizeof(err)) < 0)
		log_warnx("cannot save the routed link set: %s", err);
}

static uint16_t max_lid(const struct sm_fabric *f)
{
	unsigned top = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 0; p <= f->nodes[i]->ni.num_ports; p++) {
			const struct sm_port *sp = &f->nodes[i]->ports[p];
			unsigned last = sp->lid + (p ? (1u << sp->pi.lmc) - 1 : 0);

			if (sp->lid && last > top)
				top = last;
		}
	return (uint16_t)(top > TOPO_MAX_UCAST_LID ? TOPO_MAX_UCAST_LID : top);
}

/* The routes are in (or routing failed): the hold routes_start took on
 * the phase goes once the writes are out. */
static void routes_computed(struct sm *sm, struct route_result *res)
{
	struct linkset cur = sm->pending_links;

	memset(&sm->pending_links, 0, sizeof(sm->pending_links));
	sm->routes = res->tables;
	sm->have_routes = res->rc == 0;
	if (res->repaired) {
		sm->st.entries_changed = res->rs.changed;
		log_info("route repair: %llu entries broken, %llu changed, %llu kept%s",
			 (unsigned long long)res->rs.broken, (unsigned long long)res->rs.changed,
			 (unsigned long long)res->rs.kept, res->rs.used_fresh ? " (fresh tables used)" : "");
	}
	if (res->rc < 0) {
		linkset_free(&cur);
		log_warnx("routing failed: %s", sm->routes.why);
		sm->sweep_clean = false;
		sm_phase_put(sm);
		return;
	}
	remember_links(sm, &cur, sm->pending_change);
	log_info("routing: engine %s, %u LIDs: %s", sm->routes.engine, sm->routes.top,
		 sm->routes.why);
	sm_act_routed(sm);
	write_tables(sm);
	sm_phase_put(sm);
}

static bool any_table(const struct route_tables *rt)
{
	for (uint32_t i = 0; i < rt->nnodes; i++)
		if (rt->lft[i].ports)
			return true;
	return false;
}

/* The tables a repair starts from: our own routes, else what the switches
 * hold (drift.h). When neither exists (a power-cycled fabric) there is
 * nothing to keep: false, and the caller routes afresh. */
static bool repair_from(const struct sm *sm, struct route_tables *prev)
{
	bool own = drift_prev_routes(sm, max_lid(sm->fabric), prev);

	if (!own && !any_table(prev)) {
		route_tables_free(prev);
		log_info("routing: no switch holds routes, routing afresh");
		return false;
	}
	log_info("routing: repairing %s", own ? "our own routes" : "the routes the switches hold");
	return true;
}

/* Links only lost since the held tables were computed (or nothing changed):
 * repair them with minimal change, from our own routes where we have them
 * (drift.h); otherwise route afresh. Either way on the routing worker
 * (routejob.c). */
static void routes_ready(struct sm *sm)
{
	struct topo *t = fabric_to_topo(sm->fabric);
	struct route_tables prev;
	struct route_opts o;
	bool repair;

	clock_gettime(CLOCK_MONOTONIC, &sm->st.t_routed);
	linkset_from_topo(&sm->pending_links, t);
	sm->pending_change = linkset_compare(&sm->routed_links, &sm->pending_links);
	/* a takeover keeps what the switches hold wherever it still works:
	 * the last master's history (its link set) is not ours; so does a
	 * restart that lost the links file (no history at all) */
	repair = sm->pending_change == LINKS_SAME || sm->pending_change == LINKS_LOST_ONLY ||
		 sm->pending_change == LINKS_UNKNOWN || sm->takeover;
	if (repair)
		repair = repair_from(sm, &prev);
	sm_routes_drop(sm);
	route_opts_from_conf(sm, &o);
	route_job_start(sm, t, &o, repair ? &prev : NULL, routes_computed);
}

/* Learn what the switches hold before routing: a restarted daemon then
 * repairs or keeps those tables exactly as the running one would have.
 * Holds the running phase until the routes are in and written. */
static void routes_start(struct sm *sm)
{
	bool reread = sm->reread_lfts && !sm->st.reroute;

	if (reread)
		sm->reread_lfts = false;
	sm_phase_hold(sm);
	sm->prog->reads = 1;
	read_back(sm, blocks_for(max_lid(sm->fabric)), reread);
	if (!--sm->prog->reads)
		routes_ready(sm);
}

static void program_done(struct sm *sm)
{
	void (*done)(struct sm *) = sm->prog->done;

	sm_bringup_free(sm);
	sm_pkey_log(sm);
	drift_summary(sm);
	done(sm);
}

static void cfg_send(struct sm *sm, size_t i)
{
	sm_portcfg_send(sm, sm->prog->cfg, i);
}

/* The LIDs are on disk: the PortInfo Sets may give them out. */
static void ports_next(struct sm *sm)
{
	sm_phase_steps(sm, sm_portcfg_count(sm->prog->cfg), cfg_send, NULL);
	sm_phase_put(sm);
}

/* Every Set and Get the ports wait for is made: their own holds go, and
 * links whose ports need nothing more may arm meanwhile. */
static void ports_held(struct sm *sm)
{
	sm_phase_steps(sm, sm->fabric->nnodes, sm_act_prepared, NULL);
}

/* Routing first: it is the longest step, and on its worker it computes
 * while the loop puts the P_Key reads and the PortInfo Sets on the wire.
 * The LID file has been on its way to disk since the LID phase; the Sets
 * follow it (none on a reroute: the ports keep what the last sweep gave
 * them), in turns beside the P_Key phase's, so that the window is not
 * left empty while that phase looks at every port. No port moves on
 * before ports_held(): sm_act_begin() holds them all until then. Long
 * loops go a few hundred steps per turn of the event loop, so that
 * answers are read between. */
void sm_bringup_phase(struct sm *sm, void (*done)(struct sm *))
{
	prog_new(sm);
	sm->prog->done = done;
	sm_act_begin(sm, !sm->conf.qos);
	sm_phase_begin(sm, program_done);
	routes_start(sm);
	if (!sm->st.reroute)
		sm->prog->cfg = sm_portcfg_prepare(sm);
	sm_pkey_prepare(sm, ports_held);
	sm_phase_hold(sm);   /* until ports_next() */
	if (sm->prog->cfg)
		sm_lids_save(sm, ports_next);
	else
		ports_next(sm);
	sm_phase_end(sm);
}
