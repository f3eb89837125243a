/*
 * DOC: the heavy sweep and the reroute (sweep.c).
 *
 * A heavy sweep is a list of phases, each one or more batches of SMPs,
 * listed once in order in sweep.c (phases[]); a phase that is through
 * hands back to the sweep, which starts the next:
 *
 *   discovery -> SM election -> LIDs -> bring-up -> tables (QoS,
 *   multicast, adaptive routing: tablephases.c) -> the links left to
 *   walk -> the verdict: subnet up or not
 *
 * A reroute (a link went down) runs the same list from the bring-up on,
 * without rediscovery. Modules that need a sweep ask for one
 * (sm_sweep_request); none starts a phase of its own accord.
 *
 * The bring-up phase (bringup.c) is everything that can go at once: the
 * PortInfo Sets (LID, SM LID, MTU, VLs...), P_Key tables read and written
 * port by port, LFT blocks read back and routing on its worker, then the
 * differing blocks and LinearFDBTop switch by switch; each link goes
 * ARMED as soon as its ports hold their configuration, and ACTIVE as soon
 * as its switches hold their whole LFT too (activate.h says why that is
 * safe), so the window stays full across what used to be phase
 * boundaries.
 *
 * Nothing blocks: the libevent loop keeps serving the umad fd and timers
 * between completions. A phase that fails for some node marks the sweep
 * unclean: the subnet is not declared up and the next sweep retries.
 */
#ifndef IBSM_SM_SWEEP_H
#define IBSM_SM_SWEEP_H

struct sm;

/* A heavy sweep: now, or after the one running (or the handover in
 * flight, should it fail); none while disabled or stopping. */
void sm_sweep_request(struct sm *sm);
/* Route and program again without rediscovery (a link went down): now,
 * or as a heavy sweep after the one running; only as master. */
void sm_reroute_request(struct sm *sm);

#endif
