/*
 * DOC: the SM among SMs: SMInfo queries, answers, polling and handover.
 *
 * After each discovery every port whose CapabilityMask says IsSM (and not
 * IsSMdisabled) is asked for its SMInfo; election.c then says whether we
 * are MASTER (the sweep goes on to configure the fabric) or STANDBY (the
 * sweep ends: a standby sends no Set, ever). A STANDBY polls its master's
 * SMInfo every sm_poll_interval ms and takes over when it stops answering
 * for sm_poll_retries polls in a row (a failed poll is repeated after a
 * quarter of the interval), when its ActCount stops moving, or when it
 * hands over to us. A MASTER re-asks the SMs after every heavy sweep and
 * on Trap 144 (a port's IsSM or an SM's priority changed) and hands over
 * to a higher STANDBY. A takeover keeps the LIDs the ports hold, reads
 * every LFT block back and repairs rather than reroutes, so an unchanged
 * fabric sees no LID change and no LFT write.
 */
#ifndef IBSM_SM_SMINFO_H
#define IBSM_SM_SMINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;
struct smp;
struct mad_addr;

/* The discovery's SMInfo phase: asks the SMs and elects; then done(sm),
 * MASTER or STANDBY (sm->state says which). */
void sm_sminfo_phase(struct sm *sm, void (*done)(struct sm *));
/* After a MASTER's sweep or light sweep: hand over or yield when an SM
 * above us says so, or an operator asked for a handover meanwhile. */
void sm_sminfo_after_sweep(struct sm *sm);
/* Answers a Get or Set of our SMInfo (req is changed into the answer). */
void sm_sminfo_answer(struct sm *sm, struct smp *req, const struct mad_addr *from);
/* Trap 144 from issuer_lid: as MASTER, ask the SMs again. */
void sm_sminfo_trap144(struct sm *sm, uint16_t issuer_lid);
/* An operator's handover to the best STANDBY: 0 started, 1 to start when
 * the running sweep (or light sweep) is over, -1 (err says why). */
int sm_handover(struct sm *sm, char *err, size_t errlen);
/* The MAD engine's set_gate: false (and a log line: a bug of ours) for
 * an SMP Set while sm_may_write() is false, SMInfo excepted. arg: the SM. */
bool sm_set_gate(void *arg, uint8_t mgmt_class, uint16_t attr_id);
/* Our ActCount: every SMP we sent, answers included (IBA 14.4.1). */
uint32_t sm_act_count(const struct sm *sm);
/* The SMs of the subnet for SMInfoRecord: us first (LID, SMInfo with our
 * SM_Key), then every other SM that answers and shares our key. Fills at
 * most max; returns how many there are. */
size_t sm_sm_list(const struct sm *sm, uint16_t *lids, struct smp_sm_info *infos, size_t max);
void sm_sminfo_fini(struct sm *sm);

#endif
