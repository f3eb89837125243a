/*
 * DOC: the heavy sweep and the reroute (sweep.c).
 *
 * A heavy sweep is a chain of phases, each a batch of SMPs whose last
 * completion starts the next phase:
 *
 *   discover -> LIDs -> bring-up -> QoS tables -> MFTs -> adaptive routing
 *   -> the links left to walk -> subnet up
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

void sm_sweep_start(struct sm *sm);
/* Route and program again without rediscovery (a link went down). */
void sm_reroute_start(struct sm *sm);
void sm_retry_later(struct sm *sm);
void sm_sweep_finished(struct sm *sm);   /* sweep.c */
/* The sweep ends here: another SM is master (sweep.c). */
void sm_sweep_standing_by(struct sm *sm);

#endif
