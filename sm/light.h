/*
 * DOC: noticing changes: traps, light sweeps, flap damping (light.c).
 */
#ifndef IBSM_SM_LIGHT_H
#define IBSM_SM_LIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;

struct sm_light {
	unsigned pending;
	bool running;
	bool down;     /* a link went down: reroute */
	bool up;       /* a link came up: heavy sweep */
	bool failed;   /* a switch did not answer: heavy sweep */
	bool again;    /* a trap arrived while busy */
	bool pending_sweep; /* run a light sweep when the SM is idle again */
	uint64_t gen;  /* the fabric this light sweep looks at (sm->fabric_gen) */
};

void sm_light_sweep(struct sm *sm);
/* For what a light sweep sends besides its own SMPs (the audit): submit
 * counts toward the light sweep (0, or -1 when the engine refused: no
 * completion), each completion must call sm_light_put() once. */
struct mad_req;
struct smp;
struct sm_port;
struct smp_port_info;
int sm_light_submit(struct sm *sm, const struct mad_req *r,
		    void (*cb)(void *arg, int err, const struct smp *resp), void *arg);
void sm_light_put(struct sm *sm);
/* SMPs of another module's between sweeps (the P_Key read-back) as a
 * light sweep of their own, or joined to the one running: a handover or
 * the next light sweep waits for them. false when none may be sent now
 * (not master); else submit with sm_light_submit, then sm_light_put once. */
bool sm_light_begin(struct sm *sm);
/* A port's PortInfo read between sweeps: link down, bounce or up. */
void sm_port_seen(struct sm *sm, struct sm_port *p, const struct smp_port_info *pi);
void sm_trap_scan(struct sm *sm, uint16_t issuer_lid);
/* After discovery: hold recently flapped ports out; re-sweep when due. */
void sm_apply_holddown(struct sm *sm);
void sm_light_free(struct sm *sm);

#endif
