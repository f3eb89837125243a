/*
 * DOC: the control socket server: listener, admission, events, systemd
 * notification, and the housekeeping of connections (ctl_client.c serves
 * them).
 *
 * Anybody may connect, so admission is the first line of defence against
 * a user who opens connections and keeps them: at most max_clients
 * connections; admin_clients of them only for admins (root, the daemon's
 * user, socket_group), so that others can never take every slot; at most
 * max_clients_per_uid for any one user without admin rights. A refused
 * connection gets a busy error and is closed; the warning about it is
 * rate-limited (CTL_LOG_INTERVAL) like every other warning a client can
 * provoke. Once a second a tick closes connections idle for
 * client_idle_timeout (not subscribed, not waiting for a sweep, nothing
 * read or taken) and, after a burst of queued output or of freed memory,
 * gives it back to the system (malloc_trim: glibc keeps it otherwise).
 *
 * Access comes from SO_PEERCRED/SO_PEERGROUPS at accept time; the command
 * table marks what needs admin rights.
 *
 * ctl_init() registers the server as an SM listener: sm_event() (sweep.c)
 * calls sm_changed() whenever a sweep starts, ends or fails, and it diffs
 * what it sees against what it saw last, so a missed or repeated call costs
 * nothing.
 */
#define _GNU_SOURCE 1 /* struct ucred */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <grp.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "ctl/ctl.h"
#include "ctl/ctl_int.h"
#include "ctl/ctl_snap.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "sm/problems.h"
#include "sm/sm.h"
#include "routing/verify.h"
#include "ctl/verifyjob.h"
#include "sm/sweep.h"

static struct ctl *the_ctl;

static void verify_start(struct ctl *ctl, const struct sm *sm);

double ctl_last_sweep_time(const struct ctl *ctl)
{
	return ctl->last_done_time;
}

static void sd_notifyf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sd_notifyf_(const char *fmt, ...)
{
#ifdef HAVE_SYSTEMD
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sd_notify(0, buf);
#else
	(void)fmt;
#endif
}

/* ---- rate-limited warnings ---- */

static void ratelog_flush(struct ctl_ratelog *r, int level)
{
	if (r->suppressed)
		log_msg(level, "control: %u more %s in %d s (not logged one by one)",
			r->suppressed, r->what, CTL_LOG_INTERVAL);
	r->suppressed = 0;
}

void ctl_ratelog(struct ctl_ratelog *r, int level, const char *fmt, ...)
{
	uint64_t now = clock_ms();
	char msg[512];
	va_list ap;

	if (r->logged && now - r->since_ms < CTL_LOG_INTERVAL * 1000u) {
		r->suppressed++;
		return;
	}
	ratelog_flush(r, level);
	r->logged = true;
	r->since_ms = now;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(level, "%s", msg);
}

/* ---- housekeeping ---- */

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct ctl *ctl = arg;
	struct ctl_client *cl = ctl->clients, *next;

	for (; cl; cl = next) {
		next = cl->next;
		if (cl->dead)
			ctl_client_free(cl);
	}
}

static void on_budget(evutil_socket_t fd, short what, void *arg)
{
	ctl_budget_check(arg);
}

static void close_idle(struct ctl *ctl, uint64_t now)
{
	uint64_t timeout = (uint64_t)ctl->sm->conf.client_idle_timeout * 1000u;
	char msg[96];

	if (!timeout)
		return;
	snprintf(msg, sizeof(msg), "no request and no reply taken for %u s: closing",
		 ctl->sm->conf.client_idle_timeout);
	for (struct ctl_client *cl = ctl->clients; cl; cl = cl->next) {
		if (!ctl_client_idle(cl, now, timeout))
			continue;
		ctl_ratelog(&ctl->idles, LOG_LVL_INFO, "control client pid %d uid %d: idle, closed",
			    (int)cl->peer.pid, (int)cl->peer.uid);
		ctl_client_close(cl, CTL_E_idle_timeout, msg);
	}
}

/* Bytes free in glibc's heap (0 where that cannot be known). */
static size_t heap_free(void)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
	return mallinfo2().fordblks;
#else
	return 0;
#endif
}

/* glibc keeps freed memory in the heap for reuse: what a burst of
 * clients took stays resident after they are gone unless it is given
 * back. That is done once the queues are nearly empty, after a burst of
 * queued output, or when the heap's free bytes have grown by
 * CTL_TRIM_AFTER over their lowest since the last trim (sampled every
 * tick): a flood that backpressure kept from queueing anything still
 * leaves its input buffers and requests behind. At most once per
 * CTL_TRIM_INTERVAL, so that sweeps freeing and taking back a fabric's
 * worth do not trim every second. The shared view goes too once no
 * stream reads it (the next request takes a new one). */
static void trim(struct ctl *ctl, uint64_t now)
{
	size_t total = 0, free_now = heap_free();

	if (ctl->view && ctl_view_alone(ctl->view)) {
		ctl_view_unref(ctl->view);
		ctl->view = NULL;
	}
	if (free_now < ctl->heap_free_low)
		ctl->heap_free_low = free_now;
	if (ctl->queued_peak < CTL_TRIM_AFTER && free_now < ctl->heap_free_low + CTL_TRIM_AFTER)
		return;
	if (ctl->trimmed_ms && now - ctl->trimmed_ms < CTL_TRIM_INTERVAL * 1000u)
		return;
	for (struct ctl_client *cl = ctl->clients; cl; cl = cl->next)
		total += cl->dead ? 0 : ctl_client_queued(cl);
	if (total > CTL_TRIM_AFTER / 16)
		return;
	ctl->queued_peak = 0;
	ctl->trimmed_ms = now;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	ctl->heap_free_low = heap_free();
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct ctl *ctl = arg;
	uint64_t now = clock_ms();
	struct ctl_ratelog *logs[] = { &ctl->refusals, &ctl->drops, &ctl->idles };

	close_idle(ctl, now);
	ctl_budget_check(ctl);
	trim(ctl, now);
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++)
		if (now - logs[i]->since_ms >= CTL_LOG_INTERVAL * 1000u)
			ratelog_flush(logs[i], logs[i] == &ctl->idles ? LOG_LVL_INFO : LOG_LVL_WARNING);
}

/* ---- events to subscribers ---- */

void ctl_broadcast(struct ctl *ctl, const char *event, json_object *data)
{
	json_object *ev = ctl_event_new(event, ((double)clock_wall_ms() / 1000), data);

	for (struct ctl_client *cl = ctl->clients; cl; cl = cl->next)
		if (cl->subscribed && !cl->dead)
			ctl_send_event(cl, json_object_get(ev));
	ctl->events_sent++;
	json_object_put(ev);
}

/* ---- the view streamed replies read ---- */

struct ctl_view *ctl_view_now(struct ctl *ctl)
{
	struct ctl_view *v = ctl_view_take(ctl->sm->fabric);

	/* one copy for every request that sees the same fabric */
	if (ctl->view && ctl_view_same(ctl->view, v)) {
		ctl_view_unref(v);
		return ctl_view_ref(ctl->view);
	}
	ctl_view_unref(ctl->view);
	ctl->view = ctl_view_ref(v);
	return v;
}

/* ---- admission ---- */

static void peer_creds(int fd, struct ctl_peer *p)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	memset(p, 0, sizeof(*p));
	p->uid = (uid_t)-1;
	p->gid = (gid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0) {
		p->pid = uc.pid;
		p->uid = uc.uid;
		p->gid = uc.gid;
	}
#ifdef SO_PEERGROUPS
	len = sizeof(p->groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, p->groups, &len) == 0)
		p->ngroups = len / sizeof(gid_t);
#endif
}

static void refuse(int fd, const char *why)
{
	json_object *e = ctl_reply_error(NULL, CTL_E_busy, why);
	size_t len;
	const char *s = ctl_to_line(e, &len);

	/* Best effort: the socket is fresh, so its buffer takes one line. */
	if (write(fd, s, len) < 0 || write(fd, "\n", 1) < 0)
		log_debug("control: refusal not delivered: %s", strerror(errno));
	json_object_put(e);
	close(fd);
}

struct ctl_limits ctl_limits_now(const struct ctl *ctl)
{
	const struct sm_conf *c = &ctl->sm->conf;
	struct ctl_limits l = { c->max_clients, c->max_clients_per_uid, c->admin_clients,
				c->client_idle_timeout };

	return l;
}

static struct ctl_counts count_clients(const struct ctl *ctl, uid_t uid)
{
	struct ctl_counts n = { 0, 0, 0 };

	for (const struct ctl_client *cl = ctl->clients; cl; cl = cl->next) {
		if (cl->dead)
			continue;
		n.total++;
		n.nonadmin += !cl->admin;
		n.same_uid += !cl->admin && cl->peer.uid == uid;
	}
	return n;
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
		      int salen, void *arg)
{
	struct ctl *ctl = arg;
	struct ctl_limits lim = ctl_limits_now(ctl);
	struct ctl_counts n;
	struct ctl_peer peer;
	char why[160];
	bool admin;

	peer_creds(fd, &peer);
	admin = ctl_peer_is_admin(&peer, geteuid(), ctl->have_group, ctl->group);
	n = count_clients(ctl, peer.uid);
	if (ctl_admit(&lim, &n, admin, why, sizeof(why)) < 0) {
		ctl_ratelog(&ctl->refusals, LOG_LVL_WARNING,
			    "control: refused a connection of pid %d uid %d: %s",
			    (int)peer.pid, (int)peer.uid, why);
		refuse(fd, why);
		return;
	}
	ctl_client_new(ctl, fd, &peer, admin);
}

static void on_accept_error(struct evconnlistener *l, void *arg)
{
	log_warn("control: accept");
}

/* ---- the listening socket ---- */

/* A socket file nobody listens on is left over from a crash: remove it.
 * Anything else at that path is not ours to touch. */
static int clear_stale(const char *path, const struct sockaddr_un *sun)
{
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = EEXIST;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	rc = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (rc == 0) {
		errno = EADDRINUSE;
		return -1;
	}
	return unlink(path);
}

static int listen_on(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (clear_stale(path, &sun) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* Everybody may connect; SO_PEERCRED decides what they may do. */
	old = umask(0111);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(fd, 64) < 0) {
		umask(old);
		close(fd);
		return -1;
	}
	umask(old);
	return fd;
}

static void resolve_group(struct ctl *ctl, const char *name)
{
	struct group *g;

	if (!name || !*name)
		return;
	g = getgrnam(name);
	if (!g) {
		log_warnx("control: socket_group \"%s\" does not exist; admin is root only", name);
		return;
	}
	ctl->have_group = true;
	ctl->group = g->gr_gid;
}

/* ---- watching the SM ---- */

static void notify_status(struct ctl *ctl, const struct sm *sm)
{
	const struct sm_fabric *f = sm->fabric;

	sd_notifyf_("STATUS=%s, sweep %llu: subnet %s, %u nodes, %u switches, %u links",
		    sm_state_name((int)sm->state), (unsigned long long)sm->sweeps,
		    sm_subnet_state(sm), f ? f->nnodes : 0, f ? f->nswitches : 0, f ? f->nlinks : 0);
	/* a standby is ready too: it is doing its job */
	if ((sm->subnet_up || sm->state == SM_STATE_STANDBY) && !ctl->ready_sent) {
		ctl->ready_sent = true;
		sd_notifyf_("READY=1");
	}
}

/* "sweep wait" requests are answered by the first sweep to finish whose
 * number is at least the one they wait for. */
static void answer_waiters(struct ctl *ctl, uint64_t done_no, json_object *done)
{
	for (struct ctl_client *cl = ctl->clients; cl; cl = cl->next) {
		size_t k = 0;

		for (size_t i = 0; i < cl->nwaits; i++) {
			struct ctl_waiter *w = &cl->waits[i];

			if (w->sweep > done_no) {
				cl->waits[k++] = *w;
				continue;
			}
			ctl_reply(cl, ctl_reply_result(w->id, json_object_get(done)));
			json_object_put(w->id);
		}
		cl->nwaits = k;
	}
}

json_object *ctl_sweep_json(const struct sm *sm, uint64_t no, bool done)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "sweep", json_object_new_uint64(no));
	if (sm->sweeps == no)
		json_object_object_add(o, "reroute", json_object_new_boolean(sm->st.reroute));
	if (!done)
		return o;
	json_object_object_add(o, "subnet_up", json_object_new_boolean(sm->subnet_up));
	json_object_object_add(o, "clean", json_object_new_boolean(sm->sweep_clean));
	/* Seen late (the next sweep has reset the stats): no numbers. */
	if (sm->sweeps != no)
		return o;
	json_object_object_add(o, "errors", json_object_new_uint64(sm->st.errors));
	json_object_object_add(o, "duration_ms",
			       ctl_json_fixed(clock_diff_ms(&sm->st.t_start, &sm->st.t_done), 3));
	return o;
}

static void emit_cb(void *arg, const char *event, json_object *data)
{
	ctl_broadcast(arg, event, data);
}

static void fabric_changed(struct ctl *ctl, const struct sm *sm)
{
	struct ctl_snap *nw;

	if (!sm->fabric)
		return;
	nw = ctl_snap_take(sm->fabric);
	if (ctl->snap)
		ctl_snap_diff(ctl->snap, nw, emit_cb, ctl);
	ctl_snap_free(ctl->snap);
	ctl->snap = nw;
}

static void sweep_done(struct ctl *ctl, const struct sm *sm, uint64_t no)
{
	json_object *done = ctl_sweep_json(sm, no, true);

	ctl->last_done_time = ((double)clock_wall_ms() / 1000);
	if (ctl->verify) {
		json_object_put(ctl->verify);
		ctl->verify = NULL;
	}
	fabric_changed(ctl, sm);
	answer_waiters(ctl, no, done);
	ctl_broadcast(ctl, CTL_EV_SWEEP_DONE, done);
	notify_status(ctl, sm);
}


static void state_events(struct ctl *ctl, const struct sm *sm)
{
	json_object *d;

	if ((int)sm->state != ctl->seen_state) {
		d = json_object_new_object();
		json_object_object_add(d, "from", json_object_new_string(sm_state_name(ctl->seen_state)));
		json_object_object_add(d, "to", json_object_new_string(sm_state_name((int)sm->state)));
		ctl->seen_state = (int)sm->state;
		ctl_broadcast(ctl, CTL_EV_STATE, d);
	}
	if (sm->subnet_up != ctl->seen_up) {
		d = json_object_new_object();
		json_object_object_add(d, "subnet_up", json_object_new_boolean(sm->subnet_up));
		ctl->seen_up = sm->subnet_up;
		ctl_broadcast(ctl, CTL_EV_SUBNET, d);
	}
}

json_object *ctl_problems_json(const struct sm *sm)
{
	struct sm_problem *p = xcalloc(CTL_MAX_PROBLEMS, sizeof(*p));
	size_t n = sm_problems(sm, p, CTL_MAX_PROBLEMS);
	json_object *a = json_object_new_array();
	char guid[24];

	for (size_t i = 0; i < n && i < CTL_MAX_PROBLEMS; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", json_object_new_string(p[i].kind));
		if (p[i].guid) {
			snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)p[i].guid);
			json_object_object_add(o, "guid", json_object_new_string(guid));
			json_object_object_add(o, "port", json_object_new_int(p[i].port));
		}
		json_object_object_add(o, "text", json_object_new_string(p[i].text));
		if (p[i].warning)
			json_object_object_add(o, "warning", json_object_new_boolean(true));
		json_object_array_add(a, o);
	}
	if (n > CTL_MAX_PROBLEMS) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", json_object_new_string("more"));
		snprintf(guid, sizeof(guid), "%zu", n - CTL_MAX_PROBLEMS);
		json_object_object_add(o, "text", json_object_new_string(guid));
		json_object_array_add(a, o);
	}
	free(p);
	return a;
}

/* The problem list changed: subscribers get it whole. */
static void problem_events(struct ctl *ctl, const struct sm *sm)
{
	uint64_t d = sm_problems_digest(sm);
	json_object *o;

	if (d == ctl->seen_problems)
		return;
	ctl->seen_problems = d;
	o = json_object_new_object();
	json_object_object_add(o, "subnet", json_object_new_string(sm_subnet_state(sm)));
	json_object_object_add(o, "problems", ctl_problems_json(sm));
	ctl_broadcast(ctl, CTL_EV_PROBLEMS, o);
}

static void observe(struct ctl *ctl)
{
	const struct sm *sm = ctl->sm;

	/* A sweep we saw running has finished, possibly followed at once by
	 * the next one (sweep_again). */
	if (ctl->seen_sweeping && (!sm->sweeping || sm->sweeps != ctl->seen_sweeps))
		sweep_done(ctl, sm, ctl->seen_sweeps);
	if (sm->sweeps != ctl->seen_sweeps) {
		ctl->seen_sweeps = sm->sweeps;
		ctl_broadcast(ctl, CTL_EV_SWEEP_STARTED, ctl_sweep_json(sm, sm->sweeps, false));
		if (!sm->sweeping)
			sweep_done(ctl, sm, sm->sweeps);
	}
	ctl->seen_sweeping = sm->sweeping;
	if ((int)sm->state != ctl->seen_state)
		notify_status(ctl, sm);
	state_events(ctl, sm);
	if (!sm->sweeping)
		problem_events(ctl, sm);
}

/* The SM's sweep state may have changed: compare with what we saw last
 * and emit the events (sweep started/done, state, subnet, node and link
 * changes), answer "sweep wait" requests and notify systemd. */
static void sm_changed(void *arg, struct sm *sm)
{
	struct ctl *ctl = arg;

	if (ctl->sm == sm)
		observe(ctl);
}

/* A port event seen between sweeps (light sweep, trap): streamed at once
 * as a "port_event" {what: type, guid, port, desc}; the link_up/link_down
 * events come from the next sweep's fabric diff. */
static void port_event(void *arg, struct sm *sm, const char *type, const struct sm_port *p)
{
	struct ctl *ctl = arg;
	json_object *d;
	char guid[24];

	if (ctl->sm != sm || !p)
		return;
	snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)p->node->guid);
	d = json_object_new_object();
	json_object_object_add(d, "what", json_object_new_string(type));
	json_object_object_add(d, "guid", json_object_new_string(guid));
	json_object_object_add(d, "port", json_object_new_int(p->num));
	json_object_object_add(d, "desc", json_object_new_string(p->node->desc));
	ctl_broadcast(ctl, CTL_EV_PORT, d);
}

void ctl_health_event(struct sm *sm, const char *what, uint64_t guid, uint8_t port,
		      const char *problem)
{
	const struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, guid) : NULL;
	json_object *d;
	char g[24];

	if (!the_ctl || the_ctl->sm != sm)
		return;
	snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)guid);
	d = json_object_new_object();
	json_object_object_add(d, "what", json_object_new_string(what));
	json_object_object_add(d, "guid", json_object_new_string(g));
	json_object_object_add(d, "port", json_object_new_int(port));
	json_object_object_add(d, "node", json_object_new_string(n ? n->desc : ""));
	if (problem)
		json_object_object_add(d, "problem", json_object_new_string(problem));
	ctl_broadcast(the_ctl, CTL_EV_HEALTH, d);
}

unsigned ctl_client_count(void)
{
	return the_ctl ? the_ctl->nclients : 0;
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	sd_notifyf_("WATCHDOG=1");
}

/* ---- services for handlers ---- */

uint64_t ctl_start_sweep(struct sm *sm, bool reroute)
{
	bool was = sm->sweeping || (reroute && !sm->fabric);

	if (reroute) {
		sm_reroute_request(sm);
	} else {
		sm->reread_lfts = true;   /* an operator's sweep reads every LFT back */
		sm_sweep_request(sm);
	}
	sm_arm_engine_timer(sm);
	if (the_ctl)
		observe(the_ctl);
	/* A running sweep may have read the fabric already: wait for the
	 * one queued after it. */
	return was ? sm->sweeps + 1 : sm->sweeps;
}

bool ctl_routes_match(const struct sm *sm)
{
	const struct sm_fabric *f = sm->fabric;

	if (!sm->have_routes || !f || sm->routes.nnodes != f->nnodes)
		return false;
	/* Mid-sweep the fabric is replaced before routes are recomputed. */
	if (sm->sweeping && !sm->disc)
		return false;
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (node_is_switch(f->nodes[i]) != (sm->routes.lft[i].ports != NULL))
			return false;
	return true;
}

/* The worker's result: kept if it is still about the routes in place. */
static void on_verified(void *arg, uint64_t tag, int rc, const struct route_verify *v,
			const char *err)
{
	struct ctl *ctl = arg;
	struct sm *sm = ctl->sm;
	char *buf;
	size_t need;

	ctl->vjob = NULL;
	if (rc < 0)
		log_warnx("control: route_verify: %s", err);
	if (rc == 0 && tag == sm->sweeps && ctl_routes_match(sm)) {
		need = route_verify_format(v, 1, NULL, 0) + 1;
		buf = xmalloc(need);
		route_verify_format(v, 1, buf, need);
		if (ctl->verify)
			json_object_put(ctl->verify);
		ctl->verify = json_tokener_parse(buf);
		free(buf);
		if (ctl->verify) {
			json_object_object_add(ctl->verify, "ok",
					       json_object_new_boolean(route_verify_ok(v)));
			ctl->verify_sweep = tag;
		}
		return;
	}
	if (tag != sm->sweeps)
		verify_start(ctl, sm);
}

/* Verifies the routes in place on a worker, unless one already runs (a
 * job that finishes after a sweep gave new routes starts over). */
static void verify_start(struct ctl *ctl, const struct sm *sm)
{
	if (ctl->vjob || !ctl_routes_match(sm))
		return;
	ctl->vjob = verify_job_start(sm->base, fabric_to_topo(sm->fabric), &sm->routes,
				     sm->sweeps, on_verified, ctl);
}

bool ctl_verify_running(const struct ctl *ctl)
{
	return ctl->vjob != NULL;
}

/* The verification of the routes in place; NULL while a worker computes
 * it (started by the first request after a sweep) or while no routes
 * match the fabric. Never on the loop, where it would hold everything up
 * for a second on 10k hosts. */
json_object *ctl_routing_summary(struct ctl *ctl, struct sm *sm)
{
	if (ctl->verify && ctl->verify_sweep == sm->sweeps)
		return ctl->verify;
	verify_start(ctl, sm);
	return NULL;
}

void ctl_reloaded(json_object *result)
{
	if (the_ctl)
		ctl_broadcast(the_ctl, CTL_EV_RELOAD, result);
	else
		json_object_put(result);
}

/* ---- init / fini ---- */

static void watchdog_setup(struct ctl *ctl)
{
#ifdef HAVE_SYSTEMD
	uint64_t usec;

	if (sd_watchdog_enabled(0, &usec) <= 0)
		return;
	struct timeval tv = { (time_t)(usec / 2000000), (suseconds_t)(usec / 2 % 1000000) };

	ctl->ev_wd = event_new(ctl->sm->base, -1, EV_PERSIST, on_watchdog, ctl);
	event_add(ctl->ev_wd, &tv);
	log_info("systemd watchdog: pinging every %llu ms", (unsigned long long)(usec / 2000));
#else
	(void)ctl;
	(void)on_watchdog;
#endif
}

static void observer_setup(struct ctl *ctl)
{
	struct timeval second = { 1, 0 };

	ctl->seen_state = (int)ctl->sm->state;
	ctl->seen_up = ctl->sm->subnet_up;
	ctl->ev_reap = event_new(ctl->sm->base, -1, 0, on_reap, ctl);
	ctl->ev_budget = event_new(ctl->sm->base, -1, 0, on_budget, ctl);
	ctl->ev_tick = event_new(ctl->sm->base, -1, EV_PERSIST, on_tick, ctl);
	if (!ctl->ev_reap || !ctl->ev_budget || !ctl->ev_tick)
		fatalx("cannot create the control server's events");
	event_add(ctl->ev_tick, &second);
	ctl->heap_free_low = heap_free();
	ctl->refusals.what = "refused connections";
	ctl->drops.what = "dropped clients";
	ctl->idles.what = "idle clients closed";
}

int ctl_init(struct sm *sm)
{
	struct ctl *ctl = xcalloc(1, sizeof(*ctl));
	struct sm_listener l = { .changed = sm_changed, .port_event = port_event, .arg = ctl };
	int fd;

	ctl->sm = sm;
	the_ctl = ctl;
	sm_listen(sm, &l);
	observer_setup(ctl);
	watchdog_setup(ctl);
	ctl_reload_init(sm, NULL);
	resolve_group(ctl, sm->conf.socket_group);
	fd = listen_on(sm->conf.socket_path);
	if (fd < 0)
		return -1;   /* errno says why; the caller reports it */
	ctl->path = xstrdup(sm->conf.socket_path);
	ctl->lev = evconnlistener_new(sm->base, on_accept, ctl, LEV_OPT_CLOSE_ON_FREE, -1, fd);
	if (!ctl->lev)
		fatalx("cannot create the control listener");
	evconnlistener_set_error_cb(ctl->lev, on_accept_error);
	log_info("control socket %s", ctl->path);
	return 0;
}

void ctl_fini(struct sm *sm)
{
	struct ctl *ctl = the_ctl;

	if (!ctl || ctl->sm != sm) {
		ctl_reload_fini();
		return;
	}
	sd_notifyf_("STOPPING=1");
	while (ctl->clients)
		ctl_client_free(ctl->clients);
	if (ctl->lev) {
		evconnlistener_free(ctl->lev);
		unlink(ctl->path);
	}
	free(ctl->path);
	if (ctl->ev_reap)
		event_free(ctl->ev_reap);
	if (ctl->ev_budget)
		event_free(ctl->ev_budget);
	if (ctl->ev_tick)
		event_free(ctl->ev_tick);
	ctl_view_unref(ctl->view);
	if (ctl->ev_wd)
		event_free(ctl->ev_wd);
	verify_job_abandon(ctl->vjob);
	if (ctl->verify)
		json_object_put(ctl->verify);
	ctl_snap_free(ctl->snap);
	ctl_reload_fini();
	free(ctl);
	the_ctl = NULL;
}
