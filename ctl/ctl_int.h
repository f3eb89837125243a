/*
 * DOC: what the control server (ctl.c: listener, admission, SM events;
 * ctl_client.c: connections) and its command handlers (ctl_cmds.c,
 * ctl_reload.c) share. Not for the rest of the daemon.
 */
#ifndef IBSM_CTL_INT_H
#define IBSM_CTL_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl/ctl_proto.h"
#include "ctl/ctl_view.h"

struct sm;
struct ctl_client;
struct ctl_snap;
struct verify_job;
struct bufferevent;
struct evbuffer;
struct event;
struct evconnlistener;

/* Inner limits; the documented ones are in ibsm/ctl_proto.h. */
#define CTL_STREAM_CHUNK (32u << 10)  /* a streamed reply is refilled up to
				       * this many unsent bytes */
#define CTL_TURN_UNITS 4              /* requests or chunks of one client per
				       * loop turn, then the others' turn */
#define CTL_MAX_WAITS 64              /* "sweep wait" requests parked per client */
#define CTL_LOG_INTERVAL 10           /* s between two lines of one rate-limited warning */
#define CTL_TRIM_AFTER (1u << 20)     /* queued bytes, or bytes freed, after which
				       * memory is given back to the system once
				       * the queues empty */
#define CTL_TRIM_INTERVAL 5           /* s at least between two such trims */

/* A warning that a client can provoke at will: logged at most once per
 * CTL_LOG_INTERVAL, with a count of the ones left out. */
struct ctl_ratelog {
	uint64_t since_ms;      /* when the last line was logged */
	bool logged;
	unsigned suppressed;
	const char *what;       /* "refused connections" */
};

/* Loop time that clients without admin rights may use together, as a
 * token bucket: a request or chunk of theirs runs only while the credit
 * is positive, and its measured duration is taken off. */
struct ctl_share {
	int64_t credit;         /* hundredths of a microsecond */
	uint64_t at_us;         /* last refill */
};

struct ctl {
	struct sm *sm;
	struct evconnlistener *lev;
	char *path;
	struct ctl_client *clients;
	unsigned nclients;
	bool have_group;
	gid_t group;
	struct event *ev_reap, *ev_wd, *ev_budget, *ev_tick;
	/* what sm_changed() saw last */
	uint64_t seen_sweeps;
	bool seen_sweeping, seen_up;
	int seen_state;
	uint64_t seen_problems;         /* sm_problems_digest() */
	double last_done_time;
	struct ctl_snap *snap;
	/* routing verification cache, filled by a worker (verifyjob.h) */
	uint64_t verify_sweep;
	json_object *verify;
	struct verify_job *vjob;        /* running (started on request) */
	bool ready_sent;
	uint64_t events_sent;
	/* abuse control */
	struct ctl_view *view;          /* the last view taken, shared while it is current */
	unsigned view_epoch;            /* for counting each view once */
	struct ctl_share share;
	struct ctl_ratelog refusals, drops, idles;
	size_t queued_peak;             /* most bytes queued since the last trim */
	size_t queued_since;            /* bytes queued since the last count */
	size_t heap_free_low;           /* fewest free heap bytes seen since the last trim */
	uint64_t trimmed_ms;            /* when the last trim was */
};

enum ctl_ret {
	CTL_DONE,     /* *result is the reply */
	CTL_ERROR,    /* call->err and call->msg say why */
	CTL_PENDING,  /* the handler parked the request; the reply comes later */
	CTL_STREAM,   /* the reply is being streamed (ctl_stream()) */
};

struct ctl_call {
	struct ctl *ctl;
	struct ctl_client *cl;
	struct sm *sm;
	json_object *id;
	json_object *args;     /* never NULL (empty object when absent) */
	enum ctl_error err;
	char msg[256];
	char field[64];        /* the argument at fault, "" when none */
};

typedef enum ctl_ret (*ctl_handler)(struct ctl_call *c, json_object **result);

struct ctl_cmd {
	const char *name;
	enum ctl_access access;
	const char *args;
	const char *help;
	ctl_handler fn;
};

/* The command table (ctl_cmds.c). */
const struct ctl_cmd *ctl_cmd_find(const char *name);
size_t ctl_cmd_count(void);
const struct ctl_cmd *ctl_cmd_at(size_t i);

/* A request waiting for a sweep to finish. */
struct ctl_waiter {
	json_object *id;
	uint64_t sweep;        /* reply once sm->sweeps >= this and it is done */
};

/* A reply {"id":..,"result":{KEY:[items]}} being written from a view. */
struct ctl_stream {
	struct ctl_view *view;  /* a reference */
	enum ctl_view_list list;
	size_t pos, end;        /* next position, one past the last */
	size_t written;         /* items written so far */
};

struct ctl_client {
	struct ctl *ctl;
	struct bufferevent *bev;
	struct ctl_client *next, *prev;
	struct ctl_peer peer;
	bool admin;
	bool subscribed;
	bool dead;             /* freed by the reaper */
	bool discarding;       /* inside a too long line */
	size_t scanned;        /* input bytes known to hold no '\n' */
	struct ctl_waiter *waits;
	size_t nwaits, capwaits;
	uint64_t requests;
	struct ctl_stream *stream;   /* the reply being streamed, or NULL */
	struct evbuffer *held;       /* messages that came meanwhile */
	struct event *ev_resume;     /* more work, after the other fds' turn */
	uint64_t last_active_ms;     /* a request read, or output taken */
};

/* Handler helpers. */
enum ctl_ret ctl_fail(struct ctl_call *c, enum ctl_error e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, naming the argument at fault in the reply's "field" member
 * (as the generic argument check does). */
enum ctl_ret ctl_fail_field(struct ctl_call *c, enum ctl_error e, const char *field,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Argument getters: 1 found, 0 absent, -1 wrong type (c->err set). The
 * arguments have passed ctl_check_args() against cmd->args already. */
int ctl_arg_str(struct ctl_call *c, const char *name, const char **out);
int ctl_arg_bool(struct ctl_call *c, const char *name, bool *out);

/* Server services for handlers. */
void ctl_subscribe(struct ctl_client *cl);
/* Parks a "sweep wait" request; -1 (c->err set) when too many are. */
int ctl_wait_sweep(struct ctl_call *c, uint64_t sweep);
/* A view of the current fabric (new reference); sm->fabric must exist. */
struct ctl_view *ctl_view_now(struct ctl *ctl);
/* Streams {key: [items first..end-1 of list l of v]} as the reply; takes
 * the reference on v. The handler returns what this returns. */
enum ctl_ret ctl_stream(struct ctl_call *c, const char *key, struct ctl_view *v,
			enum ctl_view_list l, size_t first, size_t end);
/* Starts a heavy sweep (or a reroute without rediscovery, which the SM
 * turns into a heavy sweep when one is running or there is no fabric yet)
 * and re-arms the engine timer; returns the sweep number whose completion
 * answers "wait". */
uint64_t ctl_start_sweep(struct sm *sm, bool reroute);
/* A sweep's outcome as in sweep_done events and "wait" replies. */
json_object *ctl_sweep_json(const struct sm *sm, uint64_t no, bool done);
void ctl_broadcast(struct ctl *ctl, const char *event, json_object *data);
/* The routing verification of the current sweep, cached (borrowed). */
json_object *ctl_routing_summary(struct ctl *ctl, struct sm *sm);
/* True while a worker verifies the routes (ctl_routing_summary() NULL). */
bool ctl_verify_running(const struct ctl *ctl);
double ctl_last_sweep_time(const struct ctl *ctl);
bool ctl_routes_match(const struct sm *sm);
/* The limits in force, for "commands". */
struct ctl_limits ctl_limits_now(const struct ctl *ctl);

/* The subnet's problems (sm/problems.h) as a JSON array, at most
 * CTL_MAX_PROBLEMS of them (then a last entry says how many more). */
#define CTL_MAX_PROBLEMS 64
json_object *ctl_problems_json(const struct sm *sm);

/* The SMs of the subnet (ctl_sm.c), and its commands. */
json_object *ctl_sms_json(const struct sm *sm);
enum ctl_ret cmd_sms(struct ctl_call *c, json_object **res);
enum ctl_ret cmd_handover(struct ctl_call *c, json_object **res);
/* Multicast and table commands (ctl_mcast.c). */
enum ctl_ret cmd_mcast(struct ctl_call *c, json_object **result);
enum ctl_ret cmd_mcast_join(struct ctl_call *c, json_object **result);
enum ctl_ret cmd_mcast_leave(struct ctl_call *c, json_object **result);
enum ctl_ret cmd_tables(struct ctl_call *c, json_object **result);
/* "path" when dst names an MLID: the walk over the switches' MFTs. */
bool ctl_mcast_is_mlid(const char *s);
struct sm_node;
enum ctl_ret ctl_mcast_path(struct ctl_call *c, const struct sm_node *src, const char *dst,
			    json_object **result);

/* Tells subscribers (ctl.c); takes ownership of result. */
void ctl_reloaded(json_object *result);

/* ctl.c, for ctl_client.c */
void ctl_ratelog(struct ctl_ratelog *r, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ctl_client.c */
void ctl_client_new(struct ctl *ctl, int fd, const struct ctl_peer *peer, bool admin);
void ctl_client_free(struct ctl_client *cl);
/* Marks cl dead; the reaper event frees it after the current callback. */
void ctl_client_kill(struct ctl_client *cl);
/* Sends an error (best effort: it may not be read) and closes. */
void ctl_client_close(struct ctl_client *cl, enum ctl_error code, const char *msg);
/* Replies and events; a client whose unsent output is over the limit is
 * dropped instead. */
void ctl_reply(struct ctl_client *cl, json_object *msg);
void ctl_send_event(struct ctl_client *cl, json_object *ev);
/* Bytes queued for cl and not yet taken (its share of views aside). */
size_t ctl_client_queued(const struct ctl_client *cl);
/* Not subscribed, not waiting for a sweep, nothing read or taken for
 * timeout_ms. */
bool ctl_client_idle(const struct ctl_client *cl, uint64_t now_ms, uint64_t timeout_ms);
/* Drops the clients with the most unsent bytes while everything queued
 * (views included) is over CTL_MAX_QUEUED. ctl_queued() notes bytes
 * queued and has the check run soon when they could pass the limit. */
void ctl_queued(struct ctl *ctl, size_t bytes);
void ctl_budget_check(struct ctl *ctl);

/* Link health and counters (ctl_health.c); the health part of
 * "status", NULL when the performance manager does not run. */
enum ctl_ret cmd_health(struct ctl_call *c, json_object **result);
enum ctl_ret cmd_counters(struct ctl_call *c, json_object **result);
json_object *ctl_health_status(const struct sm *sm);
/* The node an argument names (GUID, LID or description), or NULL with
 * the call failed (ctl_cmds.c). */
struct sm_node *ctl_node_arg(struct ctl_call *c, const char *s);

/* The SA's command (ctl_sa.c). */
enum ctl_ret cmd_sa(struct ctl_call *c, json_object **result);

/* ctl_reload.c */
void ctl_reload_init(struct sm *sm, const char *path);
void ctl_reload_fini(void);
/* Reload; fills *result (applied / restart_needed / not_live). 0, or -1
 * with the file's errors in err when it was rejected (the old
 * configuration stays). */
int ctl_reload(struct sm *sm, json_object **result, char *err, size_t errlen);

#endif
