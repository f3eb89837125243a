/*
 * DOC: links isolated for their health (health_action = isolate): routed
 * around as if they had failed, though they stay up.
 *
 * The daemon's performance manager asks (sm_isolate) when a link's error
 * counters are over their threshold and lets it go (sm_deisolate) after a
 * quiet period. The SM decides: only a master isolates, at most
 * health_isolate_max links at once, and only when the fabric stays
 * connected without the link and those already held out: every CA keeps a
 * usable link to a switch and the switches stay one connected graph, so
 * every CA still reaches every CA and every switch every LID. Both ends of
 * an isolated link are `held` (fabric.h) - the routing input leaves held
 * ports out, as it does for flapping ones - and a reroute writes the LFT
 * blocks that change. Each isolation is logged with its reason; while any
 * link is isolated the subnet is "degraded" (problems.h).
 */
#ifndef IBSM_SM_ISOLATE_H
#define IBSM_SM_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;
struct sm_port;

#define SM_ISOLATE_REASON 96

struct sm_isolated {
	uint64_t guid, peer_guid;       /* the port asked about, and its far end */
	uint8_t port, peer_port;
	uint64_t since_ms;              /* clock_ms() of the isolation */
	uint64_t bad_ms;                /* the last time it was still unhealthy */
	char reason[SM_ISOLATE_REASON];
};

/* Isolate p's link: 0; -EALREADY (isolated already), -EPERM (not master),
 * -ENOSPC (health_isolate_max reached), -ENOLINK (no usable link there),
 * -EHOSTUNREACH (the fabric would fall apart without it). */
int sm_isolate(struct sm *sm, const struct sm_port *p, const char *reason);
/* Route over link i again (a reroute); logged with why. */
void sm_deisolate(struct sm *sm, size_t i, const char *why);
/* Forget every isolation without rerouting: we are no longer master and
 * the fabric is not ours to route. */
void sm_isolate_forget(struct sm *sm);
size_t sm_isolated_count(const struct sm *sm);
/* Link i (< sm_isolated_count()); writable so the caller notes bad_ms. */
struct sm_isolated *sm_isolated_at(struct sm *sm, size_t i);
/* Is p an end of an isolated link? (sm_apply_holddown holds it.) */
bool sm_port_isolated(const struct sm *sm, const struct sm_port *p);
void sm_isolate_free(struct sm *sm);

#endif
