/*
 * DOC: what the control server (ctl.c) and its command handlers
 * (ctl_cmds.c, ctl_reload.c) share. Not for the rest of the daemon.
 */
#ifndef IBSM_CTL_INT_H
#define IBSM_CTL_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl/ctl_proto.h"

struct sm;
struct ctl;
struct ctl_client;
struct bufferevent;

enum ctl_ret {
	CTL_DONE,     /* *result is the reply */
	CTL_ERROR,    /* call->err and call->msg say why */
	CTL_PENDING,  /* the handler parked the request; the reply comes later */
};

struct ctl_call {
	struct ctl *ctl;
	struct ctl_client *cl;
	struct sm *sm;
	json_object *id;
	json_object *args;     /* never NULL (empty object when absent) */
	enum ctl_error err;
	char msg[256];
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

struct ctl_client {
	struct ctl *ctl;
	struct bufferevent *bev;
	struct ctl_client *next, *prev;
	struct ctl_peer peer;
	bool admin;
	bool subscribed;
	bool dead;             /* freed by the reaper */
	bool discarding;       /* inside a too long line */
	struct ctl_waiter *waits;
	size_t nwaits, capwaits;
	uint64_t requests;
};

/* Handler helpers. */
enum ctl_ret ctl_fail(struct ctl_call *c, enum ctl_error e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Argument getters: 1 found, 0 absent, -1 wrong type (c->err set). */
int ctl_arg_str(struct ctl_call *c, const char *name, const char **out);
int ctl_arg_bool(struct ctl_call *c, const char *name, bool *out);
/* Rejects arguments not named in cmd->args. */
int ctl_args_check(struct ctl_call *c, const struct ctl_cmd *cmd);

/* Server services for handlers (ctl.c). */
void ctl_subscribe(struct ctl_client *cl);
void ctl_wait_sweep(struct ctl_client *cl, json_object *id, uint64_t sweep);
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

/* The subnet's problems (sm/problems.h) as a JSON array, at most
 * CTL_MAX_PROBLEMS of them (then a last entry says how many more). */
#define CTL_MAX_PROBLEMS 64
json_object *ctl_problems_json(const struct sm *sm);

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

/* ctl_reload.c */
void ctl_reload_init(struct sm *sm, const char *path);
void ctl_reload_fini(void);
/* Reload; fills *result (applied / restart_needed / not_live). 0, or -1
 * with the file's errors in err when it was rejected (the old
 * configuration stays). */
int ctl_reload(struct sm *sm, json_object **result, char *err, size_t errlen);

#endif
