/*
 * DOC: what hosts built through the SA, across restarts and takeovers:
 * sa/keep.c saves and loads it and decides, on becoming master, whether
 * we hold it (else hosts are told to make it again); sa/follow.c is the
 * standby's copy of an ibsmd master's. Both are wired in by sa/glue.c.
 */
#ifndef IBSM_SA_KEEP_H
#define IBSM_SA_KEEP_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;
struct mad_addr;
struct client_state;

/* After sm->sa exists: loads state_dir/clients into the SM and the SA. */
void sa_keep_attach(struct sm *sm);
/* Before sm->sa goes: a change not written yet is written. */
void sa_keep_detach(struct sm *sm);
/* Something may have changed: written soon if so (cheap: call often). */
void sa_keep_note(struct sm *sm);
/* The SM changed (its state, a sweep): on becoming master, decide. */
void sa_keep_changed(struct sm *sm);
/* The state file (saves, their cost, whether a change waits) and the
 * standby's copy, for ibsmctl sa. */
json_object *sa_keep_json(const struct sm *sm);
/* The wall clock in Unix ms: leases in a client_state run on it. */
uint64_t sa_keep_wall_ms(void);

void sa_follow_attach(struct sm *sm);
void sa_follow_detach(struct sm *sm);
/* A GSI MAD: true when it answered one of the standby's queries (taken). */
bool sa_follow_recv(struct sm *sm, const uint8_t *msg, size_t len, int status,
		    const struct mad_addr *from);
/* The SM changed: start, go on or stop following. */
void sa_follow_changed(struct sm *sm);
/* On becoming master after a standby time: true, and the copy in *out,
 * when it is complete and current for the master we followed. */
bool sa_follow_take(struct sm *sm, struct client_state *out);
/* What the standby's copy is, for ibsmctl. */
json_object *sa_follow_json(const struct sm *sm);

#endif
