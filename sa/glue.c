/*
 * DOC: the SA inside ibsmd: sa/ wired to struct sm.
 *
 * The SA gets its MADs from the engine's gsi hook, sends through
 * mad_engine_send_gsi(), reads port tables with LID-routed SMPs on the
 * same engine, answers from sm_snap_current() and only while
 * sm_is_master(). It listens to the SM: every change (a sweep or reroute
 * done, a state change) lets it catch up with the new snapshot (traps
 * 64/65), and every trap the SM received goes to its subscribers. One
 * timer on the SM's event loop serves lease expiry, Report retries and
 * parked requests.
 */
#include "config.h"

#include <event2/event.h>

#include "sa/glue.h"
#include "sa/sa.h"
#include "sm/log.h"
#include "sm/sm.h"
#include "sm/snap.h"

/* After a request, the pump keeps waiting for the next one this long
 * instead of sleeping (main.c on_pump). */
#define SA_BUSY_MS 20

static struct event *ev_sa;
static uint64_t last_request_ms;

static void arm(struct sm *sm)
{
	uint64_t dl = sm->sa ? sa_next_deadline(sm->sa) : UINT64_MAX, now = sm_now_ms();
	struct timeval tv = { 0, 0 };

	if (!ev_sa)
		return;
	if (dl == UINT64_MAX) {
		evtimer_del(ev_sa);
		return;
	}
	if (dl > now) {
		tv.tv_sec = (time_t)((dl - now) / 1000);
		tv.tv_usec = (suseconds_t)((dl - now) % 1000) * 1000;
	}
	evtimer_add(ev_sa, &tv);
}

static int env_send(void *arg, const uint8_t *msg, size_t len, const struct mad_addr *to)
{
	struct sm *sm = arg;

	return mad_engine_send_gsi(sm->eng, msg, len, to);
}

static int env_smp(void *arg, const struct mad_req *r, mad_done_fn done, void *done_arg)
{
	struct sm *sm = arg;
	struct mad_req q = *r;

	q.mkey = sm->conf.m_key;
	return mad_engine_submit(sm->eng, &q, done, done_arg);
}

static const struct sm_snap *env_snapshot(void *arg)
{
	return sm_snap_current(arg);
}

static bool env_master(void *arg)
{
	return sm_is_master(arg);
}

static void env_sm_info(void *arg, struct smp_sm_info *out)
{
	struct sm *sm = arg;

	sm_sm_info(sm, out);
	out->sm_key = sm->conf.sm_key;   /* sa/ hides it from the untrusted */
}

static void env_conf(void *arg, struct sa_conf *out)
{
	struct sm *sm = arg;

	out->sa_key = sm->conf.sa_key;
	out->max_records = sm->conf.sa_max_records;
}

static uint64_t env_now(void *arg)
{
	return sm_now_ms();
}

void sa_glue_gsi(void *arg, const uint8_t *msg, size_t len, int status, const struct mad_addr *from)
{
	struct sm *sm = arg;

	if (!sm->sa)
		return;
	last_request_ms = sm_now_ms();
	sa_recv(sm->sa, msg, len, status, from);
	arm(sm);
}

bool sa_glue_busy(const struct sm *sm)
{
	return sm->sa && sm_now_ms() - last_request_ms < SA_BUSY_MS;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	sa_on_timer(sm->sa);
	arm(sm);
	sm_arm_engine_timer(sm);
}

static void on_changed(void *arg, struct sm *sm)
{
	if (!sm->sa)
		return;
	sa_sync(sm->sa);
	arm(sm);
	sm_arm_engine_timer(sm);
}

/* Traps the SM acknowledged go to subscribers, while we serve. */
static void on_trap(void *arg, struct sm *sm, const struct smp_notice *n)
{
	if (!sm->sa || !sm_is_master(sm))
		return;
	sa_report_notice(sm->sa, n);
	arm(sm);
}

void sa_glue_attach(struct sm *sm)
{
	struct sa_env env = {
		.arg = sm, .send = env_send, .smp = env_smp, .snapshot = env_snapshot,
		.master = env_master, .sm_info = env_sm_info, .conf = env_conf, .now_ms = env_now,
	};
	struct sa_conf conf;
	struct sm_listener l = { .changed = on_changed, .trap = on_trap, .arg = NULL };

	env_conf(sm, &conf);
	sm->sa = sa_new(&env, &conf);
	ev_sa = evtimer_new(sm->base, on_timer, sm);
	sm_listen(sm, &l);
}

void sa_glue_detach(struct sm *sm)
{
	if (ev_sa)
		event_free(ev_sa);
	ev_sa = NULL;
	sa_free(sm->sa);
	sm->sa = NULL;
}
