/*
 * DOC: what we programmed stays programmed: the background audit.
 *
 * Between heavy sweeps nothing re-reads what the switches and ports hold,
 * so a table block overwritten by someone else, a port given another LID,
 * or our own port moved would stay broken. Each light sweep therefore
 * re-reads a rotating share of the fabric, sized so that the whole fabric
 * (every LID-holding port's PortInfo, every switch's LFT blocks and every
 * P_KeyTable block the SM laid out) is covered once every audit_period
 * seconds, and repairs and logs what drifted: a block that differs from
 * the routes or from the P_Keys we laid out is written back, a port
 * whose LID, LMC or SM LID differs is Set back, a linked port that fell to
 * Init or Armed is handled as a bounce (light.h). The SM's own port is read
 * at every light sweep. The audit sends nothing while a heavy sweep runs
 * and reads nothing that did not answer the last sweep.
 */
#ifndef IBSM_SM_AUDIT_H
#define IBSM_SM_AUDIT_H

#include <stdint.h>

struct sm;

struct sm_audit {
	uint32_t node;            /* cursor: node index ... */
	uint32_t item;            /* ... and item within it */
	uint64_t checked;         /* items read since start */
	uint64_t lft_repaired;    /* LFT blocks written back */
	uint64_t pi_repaired;     /* PortInfo Sets sent back */
	uint64_t passes;          /* full passes over the fabric */
	uint64_t pass_start_ms;   /* when the current pass began */
	uint64_t last_pass_ms;    /* duration of the last full pass */
};

/* Queues this light sweep's share (counted in the light sweep, see
 * sm_light_submit()). */
void sm_audit_step(struct sm *sm);

#endif
