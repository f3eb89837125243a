/*
 * DOC: ClientReregister (rereg.c): after we become master, every CA port
 * is told to register again what it registered with the SA.
 */
#ifndef IBSM_SM_REREG_H
#define IBSM_SM_REREG_H

#include <stdbool.h>
#include <stddef.h>

struct sm;
struct sm_port;

/* ClientReregister (rereg.c): want: every CA port gets a PortInfo Set
 * with the bit in the next PortInfo phase (sm_rereg_phase at its start),
 * until it answered; false drops what an earlier request left. Called
 * each time we become master. sm_rereg_wanted: does p get the bit now;
 * sm_rereg_result: its Set was answered (ok) or failed. */
void sm_rereg_request(struct sm *sm, bool want);
void sm_rereg_phase(struct sm *sm);
bool sm_rereg_wanted(const struct sm *sm, const struct sm_port *p);
void sm_rereg_result(struct sm *sm, const struct sm_port *p, bool ok);
size_t sm_rereg_pending(const struct sm *sm);
void sm_rereg_free(struct sm *sm);

#endif
