/*
 * DOC: what hosts built through the SA - multicast groups with their
 * members, MLIDs and trees, ServiceRecords, InformInfo subscriptions -
 * survives a restart and, where it can, a takeover; otherwise hosts are
 * told to make it again.
 *
 * Saving. While we are master, every change (a join, a leave, a batch
 * whose trees differ, a service or subscription set, deleted or expired,
 * a port gone) is written to state_dir/clients (sm/clientfile.h,
 * atomically) once changes have paused for SAVE_QUIET_MS, or
 * SAVE_MAX_MS after the first unsaved one, and never sooner than
 * SAVE_GAP_MS after the last write: a join storm is written a few times,
 * not once per join, and joins that trickle in cost at most ten writes a
 * second. A multicast batch or a sweep in flight defers the write to its
 * end (at most SAVE_DEFER_MS), so the write does not delay the MFTs or
 * the sweep. A change answered less than that before a kill -9 is lost.
 * On ibsim's 648-host join storm (bench/bench-mcast.sh) that is one write
 * after the storm's batch, of 1 to 18 ms on a loaded 2-core VM.
 *
 * Loading, at start: a file that is refused (damaged, cut short, over the
 * limits, written by the SM of another port or subnet) is named in one
 * log line and ignored - a damaged one renamed clients.refused for a look
 * - and ibsmd starts without it.
 *
 * Becoming master. We are sure to hold what the hosts built when
 *  - we start as master (never standby since), loaded the file, and most
 *    CA ports that name a master (PortInfo:MasterSMLID) name our port's
 *    LID: no other SM ruled the subnet since we wrote it;
 *  - we take over from an ibsmd master whose state the standby copied
 *    completely and saw unchanged since (sa/follow.c): the copy replaces
 *    ours.
 * Otherwise (no file, refused, another SM ruled since, no copy or an
 * incomplete or stale one, the master was not ibsmd) what we held is
 * dropped - the partitions' groups stay - and, with client_reregister =
 * auto, every CA port gets ClientReregister once (sm/rereg.c), so that
 * hosts join and subscribe again; always and never override.
 */
#include "config.h"

#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sa/glue.h"
#include "sa/keep.h"
#include "sa/sa.h"
#include "sm/clientfile.h"
#include "sm/log.h"
#include "sm/mcast.h"
#include "sm/sm.h"

#define SAVE_QUIET_MS 5
#define SAVE_MAX_MS 200
#define SAVE_GAP_MS 100      /* between two writes at least */
#define SAVE_DEFER_MS 1000

static struct {
	struct event *ev;
	uint64_t saved_gen;      /* what the file holds */
	uint64_t seen_gen;       /* the last change noted */
	uint64_t t_first, t_last, t_saved;
	bool pending;
	bool loaded;             /* the file was read and restored at start */
	bool master;             /* we were master at the last look */
	bool followed;           /* we were standby (or disabled) since */
	bool save_failed;        /* logged once until a save works */
	uint64_t saves;
	double save_ms_last, save_ms_max;
} keep;

uint64_t sa_keep_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t gen_of(const struct sm *sm)
{
	return sm_mcast_gen(sm) + sa_clients_gen(sm->sa);
}

static void export_all(const struct sm *sm, struct client_state *cs)
{
	client_state_init(cs);
	cs->sm_guid = sm->port.port_guid;
	cs->subnet_prefix = sm->conf.subnet_prefix;
	cs->written_ms = sa_keep_wall_ms();
	sm_mcast_export(sm, cs);
	sa_clients_export(sm->sa, cs, cs->written_ms);
}

/* --- saving ---------------------------------------------------------------------- */

static void save(struct sm *sm)
{
	struct client_state cs;
	struct timespec t0, t1;
	uint64_t gen = gen_of(sm);
	char err[512];
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	export_all(sm, &cs);
	if (client_state_save(&cs, sm->conf.state_dir, err, sizeof(err)) < 0) {
		if (!keep.save_failed)
			log_warnx("cannot save the hosts' groups, services and subscriptions: %s", err);
		keep.save_failed = true;
	} else {
		keep.saved_gen = gen;
		keep.save_failed = false;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = ts_diff_ms(&t0, &t1);
	keep.t_saved = sm_now_ms();
	keep.saves++;
	keep.save_ms_last = ms;
	keep.save_ms_max = ms > keep.save_ms_max ? ms : keep.save_ms_max;
	log_debug("clients: %zu groups, %zu members, %zu services, %zu subscriptions saved in %.1f ms",
		  cs.ngroups, cs.nmembers, cs.nservices, cs.nsubs, ms);
	client_state_free(&cs);
}

static void arm(unsigned ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };

	evtimer_add(keep.ev, &tv);
}

/* Milliseconds to wait before writing, 0: now. */
static unsigned wait_more(const struct sm *sm, uint64_t now)
{
	bool busy = sm->sweeping || sm_mcast_busy(sm);
	uint64_t quiet = now - keep.t_last, age = now - keep.t_first;

	if (keep.saves && now < keep.t_saved + SAVE_GAP_MS)
		return (unsigned)(keep.t_saved + SAVE_GAP_MS - now);
	if (busy && age < SAVE_DEFER_MS)
		return SAVE_QUIET_MS;
	if (quiet >= SAVE_QUIET_MS || age >= SAVE_MAX_MS)
		return 0;
	return (unsigned)(SAVE_QUIET_MS - quiet);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	unsigned ms;

	if (!sm_is_master(sm) || sm->stopping) {
		keep.pending = false;   /* our next mastership notes it again */
		return;
	}
	if (!keep.pending)
		return;
	if ((ms = wait_more(sm, sm_now_ms()))) {
		arm(ms);
		return;
	}
	keep.pending = false;
	save(sm);
	if (gen_of(sm) != keep.saved_gen)
		sa_keep_note(sm);   /* a failed write: try again later */
}

void sa_keep_note(struct sm *sm)
{
	uint64_t g, now;

	if (!keep.ev || !sm->sa || !sm_is_master(sm))
		return;
	g = gen_of(sm);
	if (g == keep.saved_gen || (g == keep.seen_gen && keep.pending))
		return;
	now = sm_now_ms();
	keep.seen_gen = g;
	keep.t_last = now;
	if (!keep.pending) {
		keep.pending = true;
		keep.t_first = now;
		arm(keep.save_failed ? SAVE_DEFER_MS : SAVE_QUIET_MS);
	}
}

/* --- becoming master --------------------------------------------------------------- */

/* Do most CA ports that name a master name another LID than ours? */
static bool other_master(const struct sm *sm, uint16_t *other)
{
	const struct sm_fabric *f = sm->fabric;
	const struct sm_node *own = f ? f->sm_node : NULL;
	uint16_t ours = own ? own->ports[f->sm_port_num].pi.lid : 0;
	size_t mine = 0, theirs = 0;

	for (uint32_t i = 0; f && i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		for (unsigned k = 1; !node_is_switch(n) && k <= n->ni.num_ports; k++) {
			const struct sm_port *p = &n->ports[k];
			uint16_t m = p->have_pi && !p->stale ? p->pi.master_sm_lid : 0;

			if (!m)
				continue;
			mine += m == ours;
			theirs += m != ours;
			if (m != ours)
				*other = m;
		}
	}
	return theirs > mine;
}

/* What we hold goes (the partitions' groups stay). */
static void drop_all(struct sm *sm)
{
	struct client_state empty;

	client_state_init(&empty);
	sm_mcast_restore(sm, &empty);
	sa_clients_clear(sm->sa);
}

static void restore_all(struct sm *sm, const struct client_state *cs, const char *from)
{
	size_t g = sm_mcast_restore(sm, cs), s = sa_clients_restore(sm->sa, cs, sa_keep_wall_ms());

	log_notice("%s: %zu multicast groups (%zu memberships, %zu tree switches), %zu services, "
		   "%zu subscriptions", from, cs->ngroups - g, cs->nmembers, cs->ntsw,
		   cs->nservices, cs->nsubs);
	if (g || s)
		log_warnx("%s: %zu groups and %zu services or subscriptions left out (an MLID "
			  "taken twice, a lease ended, over the SA's limits)", from, g, s);
}

/* From our own file: sure unless another SM ruled since. */
static bool sure_of_file(struct sm *sm)
{
	uint16_t other = 0;

	if (!keep.loaded)
		return false;
	if (!other_master(sm, &other))
		return true;
	log_notice("the CA ports name another SM (LID %u) as master: the saved groups, services "
		   "and subscriptions may be stale and are dropped", other);
	return false;
}

/* From the standby's copy of the master's state. */
static bool sure_of_copy(struct sm *sm)
{
	struct client_state cs;

	if (!sa_follow_take(sm, &cs))
		return false;
	restore_all(sm, &cs, "taken over from the master's state as the standby copied it");
	client_state_free(&cs);
	return true;
}

static void became_master(struct sm *sm)
{
	bool sure = keep.followed ? sure_of_copy(sm) : sure_of_file(sm);
	int how = sm->conf.client_reregister;
	bool rereg = how == CONF_REREG_ALWAYS || (how == CONF_REREG_AUTO && !sure);

	if (!sure)
		drop_all(sm);
	keep.followed = false;
	keep.loaded = false;
	keep.pending = false;
	sm_rereg_request(sm, rereg);
	if (!sure && !rereg)
		log_warnx("client_reregister = never: hosts keep groups and subscriptions this SM "
			  "does not know of");
	sa_keep_note(sm);
}

void sa_keep_changed(struct sm *sm)
{
	bool master = sm_is_master(sm);

	if (sm->state == SM_STATE_STANDBY || sm->state == SM_STATE_NOT_ACTIVE)
		keep.followed = true;
	if (master && !keep.master && sm->sa)
		became_master(sm);
	keep.master = master;
	sa_keep_note(sm);
}

/* --- at start and at exit -------------------------------------------------------------- */

static bool ours(const struct sm *sm, const struct client_state *cs, const char *dir)
{
	if (cs->sm_guid == sm->port.port_guid && cs->subnet_prefix == sm->conf.subnet_prefix)
		return true;
	log_warnx("%s/clients: written by the SM on port %016" PRIx64 " of subnet %016" PRIx64
		  ", not ours: ignored", dir, cs->sm_guid, cs->subnet_prefix);
	return false;
}

/* A refused file is kept for a look, and not overwritten by our next save. */
static const char *set_aside(const char *dir)
{
	size_t len = strlen(dir) + 20;
	char *from = xmalloc(len), *to = xmalloc(len);
	int rc;

	snprintf(from, len, "%s/clients", dir);
	snprintf(to, len, "%s/clients.refused", dir);
	rc = rename(from, to);
	free(from);
	free(to);
	return rc == 0 ? "kept as clients.refused" : "left in place";
}

void sa_keep_attach(struct sm *sm)
{
	struct client_limits lim;
	struct client_state cs;
	char err[512];
	int rc;

	memset(&keep, 0, sizeof(keep));
	keep.ev = evtimer_new(sm->base, on_timer, sm);
	sa_glue_limits(sm, &lim);
	rc = client_state_load(&cs, sm->conf.state_dir, &lim, err, sizeof(err));
	if (rc < 0)
		log_warnx("%s: refused (%s), starting without the saved groups, services and "
			  "subscriptions", err, set_aside(sm->conf.state_dir));
	else if (rc > 0 && ours(sm, &cs, sm->conf.state_dir)) {
		restore_all(sm, &cs, "restored from the state file");
		keep.loaded = true;
	}
	client_state_free(&cs);
	keep.saved_gen = keep.seen_gen = gen_of(sm);
}

json_object *sa_keep_json(const struct sm *sm)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "saves", json_object_new_int64((int64_t)keep.saves));
	json_object_object_add(o, "save_ms_last", json_object_new_double(keep.save_ms_last));
	json_object_object_add(o, "save_ms_max", json_object_new_double(keep.save_ms_max));
	json_object_object_add(o, "unsaved", json_object_new_boolean(
		sm->sa && gen_of(sm) != keep.saved_gen));
	json_object_object_add(o, "save_failed", json_object_new_boolean(keep.save_failed));
	json_object_object_add(o, "standby_copy", sa_follow_json(sm));
	return o;
}

void sa_keep_detach(struct sm *sm)
{
	if (keep.pending && sm->sa && sm_is_master(sm))
		save(sm);
	if (keep.ev)
		event_free(keep.ev);
	keep.ev = NULL;
}
