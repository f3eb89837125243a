/*
 * DOC: links go ARMED and then ACTIVE one by one, each as soon as it is
 * safe, while the rest of the sweep is still routing and writing tables.
 *
 * The rule. A link's ports go ACTIVE only when
 *   - every switch at an end of the link holds our whole LFT: each block
 *     we write to it and then its LinearFDBTop acknowledged, and no block
 *     in its range unknown (a failed read leaves it as it was);
 *   - each port's own PortInfo Set (LID, MTU, VLs...) and P_Key table
 *     writes are acknowledged (partition enforcement bits ride on the
 *     state Sets themselves, see pkey.h).
 * Why that is "the routes toward it exist": a packet enters the fabric
 * at an ACTIVE CA port, whose switch holds our whole LFT by the rule; it
 * leaves a switch only through an ACTIVE port, whose link's other switch
 * holds our whole LFT too. By induction every switch a packet can reach
 * forwards it by our routes, for every destination: wherever a packet
 * toward a port can be, the route toward that port exists. A packet
 * whose next link is not ACTIVE yet is dropped there, never misrouted
 * by a table half written.
 *
 * ARMED comes earlier, on the ports' own gate alone: a port in ARMED
 * sends no data, and turns ACTIVE by itself only when a data packet
 * arrives, which only an ACTIVE port at the other end of its link can
 * send. With both ends ARMED nothing crosses the link until our ACTIVE
 * Set, so ports are armed while the routes are still being computed.
 * A link with an end ACTIVE already waits for the whole rule to arm.
 *
 * ACTIVE is pipelined this way (sm_act_begin with pipelined set) only
 * without QoS: with qos on, SL2VL and VLArbitration tables come first, so
 * every link waits for the end walk. Switches whose LFT sm/ar.c writes
 * (adaptive routing), or that could not be programmed cleanly, also wait
 * for it: sm_activate_phase(), after the table phases, takes every link
 * that is left, as every sweep did before.
 */
#ifndef IBSM_SM_ACTIVATE_H
#define IBSM_SM_ACTIVATE_H

#include <stdbool.h>
#include <stddef.h>

struct sm;
struct sm_node;
struct sm_port;

/* A new bring-up phase on sm->fabric: every gate closed; every switch
 * held once until its LFT is written (program.c releases it), every port
 * until the Sets and Gets it waits for are known (sm_act_prepared). */
void sm_act_begin(struct sm *sm, bool pipelined);
/* Every hold of this phase's ports is taken: the own hold of the ports
 * of fabric node i goes (a step of sm_phase_steps). */
void sm_act_prepared(struct sm *sm, size_t i);
/* A Set or Get port p's activation waits for, and its completion. */
void sm_act_hold_port(struct sm *sm, const struct sm_port *p);
void sm_act_release_port(struct sm *sm, struct sm_port *p);
/* The routes are computed: links between CAs alone need nothing else. */
void sm_act_routed(struct sm *sm);
/* The same for switch n's LFT; ok false keeps its links for the end walk. */
void sm_act_hold_switch(struct sm *sm, const struct sm_node *n);
void sm_act_release_switch(struct sm *sm, const struct sm_node *n, bool ok);
/* Whether p's link gets a state Set this sweep (one end in INIT or ARMED,
 * both ends up and read this sweep): fields that ride on it wait for it. */
bool sm_act_will_walk(const struct sm_port *p);
/* Frees the phase's state (the sweep ended, or the fabric is replaced). */
void sm_act_free(struct sm *sm);

#endif
