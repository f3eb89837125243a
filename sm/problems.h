/*
 * DOC: what keeps the subnet from being simply "up": the list an operator
 * sees in `ibsmctl status`, and the subnet's state word.
 *
 * Computed on demand from the current fabric and the last sweep (no state
 * of its own), so it is always what is true now:
 *   duplicate_guid  a GUID two nodes or ports claim (dupguid.h)
 *   not_answering   a node kept as last seen because it did not answer
 *   held            a link held down after flapping, until the hold-down ends
 *   isolated        a link routed around for its health (isolate.h)
 *   not_active      a linked port that is not Active
 *   unknown_peer    a switch port that is up with nothing known behind it
 *   set_failed      Sets or table reads that failed in the last sweep
 *   no_routes       routing failed
 *   public_key      sm_key or sa_key is 0x1, the well-known default that
 *                   any host may send: it makes that host a trusted SA
 *                   requester (a warning: it does not degrade the subnet)
 * The subnet is "down" when it is not up, "degraded" when it is up with
 * problems other than warnings, else "up".
 */
#ifndef IBSM_SM_PROBLEMS_H
#define IBSM_SM_PROBLEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;

struct sm_problem {
	const char *kind;
	uint64_t guid;        /* node (or port, for duplicate port GUIDs); 0 none */
	uint8_t port;
	bool warning;         /* does not degrade the subnet */
	char text[200];
};

/* The well-known default SM_Key (OpenSM's, and ours: ibsmd.conf). */
#define SM_PUBLIC_KEY 0x1ull

/* Writes at most max problems into out; returns how many there are. */
size_t sm_problems(const struct sm *sm, struct sm_problem *out, size_t max);
/* "up", "degraded" or "down"; as a non-master our SM state instead
 * ("standby"...): the subnet is another SM's to report. */
const char *sm_subnet_state(const struct sm *sm);
/* A digest of the problem list, to notice when it changes. */
uint64_t sm_problems_digest(const struct sm *sm);

#endif
