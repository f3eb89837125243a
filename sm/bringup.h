/*
 * DOC: the bring-up phase (bringup.c): PortInfo, P_Keys, routing and the
 * LFTs as a diff, with the links that may go ACTIVE meanwhile.
 */
#ifndef IBSM_SM_BRINGUP_H
#define IBSM_SM_BRINGUP_H

#include <stdbool.h>
#include <stdint.h>

struct sm;
struct sm_node;

/* The bring-up: PortInfo (not on a reroute), P_Keys, routing, LFTs and
 * the links that may go ACTIVE meanwhile; then done(sm), routed or not
 * (sm->have_routes). */
void sm_bringup_phase(struct sm *sm, void (*done)(struct sm *));
/* Frees what a bring-up phase left (shutdown). */
void sm_bringup_free(struct sm *sm);
/* The LFT block b switch n should hold (bringup.c). */
void sm_lft_desired(const struct sm *sm, const struct sm_node *n, unsigned b, uint8_t out[64]);

#endif
