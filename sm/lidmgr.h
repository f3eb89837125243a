/*
 * DOC: the LID phase (lidmgr.c): every port's LID from the allocator
 * (fabric/lidalloc.h) and the LID file, saved on a worker.
 */
#ifndef IBSM_SM_LIDMGR_H
#define IBSM_SM_LIDMGR_H

struct sm;

/* Every port's LID, as the allocator gives them; then done(sm). */
void sm_lids_phase(struct sm *sm, void (*done)(struct sm *));
/* The LIDs just assigned into the state file (lidmgr.c), written on a
 * worker; then(sm), if not NULL, runs once they are on disk (or could not
 * be written, logged): before it no PortInfo Set may give one out. A save
 * asked for while one is under way waits for it, then writes what changed
 * since. The LID phase starts one with no then; the bring-up waits on it. */
void sm_lids_save(struct sm *sm, void (*then)(struct sm *));
/* Waits for a save in progress and forgets it (shutdown). */
void sm_lids_abandon(struct sm *sm);

#endif
