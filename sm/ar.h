/*
 * DOC: adaptive routing in the daemon: detect, compute, program, fall back.
 *
 * Runs as the last table phase (tablephases.c), after the LFT writes of
 * the bring-up and before the end walk that activates the links left.
 * With ar_enable off and no switch left with AR on, it costs nothing.
 *
 * Per switch (remembered by GUID across sweeps and fabric generations):
 *   detection   NVIDIA vendor OUI -> GeneralInfo(mod 4) capability bit 2
 *               -> ARInfo group_cap != 0; any failure or timeout marks the
 *               switch unsupported for the life of the process (one failed
 *               SMP plus the engine's retries, never re-probed);
 *   programming standard LFT (bringup.c, while AR is off) -> ARInfo e=0
 *               (read-modify-write) -> group blocks -> AR LFT blocks ->
 *               ARInfo e=1 with group_top; afterwards only changed blocks,
 *               make-before-break, never a plain LFT Set;
 *   fallback    on any error: the complete standard LFT, then ARInfo e=0;
 *               retried on the next sweep; MAX_ERRORS errors within
 *               ERROR_WINDOW trip a fabric-wide breaker.
 * Group ids per leaf switch persist in state_dir/ar-groups.
 */
#ifndef IBSM_SM_AR_H
#define IBSM_SM_AR_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

struct sm;
struct sm_node;

/* The table phase (see above); then done(sm). */
void sm_ar_phase(struct sm *sm, void (*done)(struct sm *));
/* True when the switch's forwarding comes from AR tables we wrote: the
 * caller must not send it a standard LFT Set. */
bool sm_ar_owns_lft(const struct sm *sm, const struct sm_node *n);
/* After every sweep, write the AR tables of every switch to path
 * (text, see sm/ar.c). NULL: no dump. */
void sm_ar_set_dump(struct sm *sm, const char *path);
void sm_ar_free(struct sm *sm);

/* {"supported": true|false|null, "reason", "enabled", "last_error",
 *  "errors", "group_cap", "groups"} */
json_object *sm_ar_switch_json(const struct sm *sm, const struct sm_node *n);
/* [{"group": id, "leaf": "0x..", "ports": [..]}, ...], the non-empty groups
 * computed for this switch; an empty array when there are none. */
json_object *sm_ar_groups_json(const struct sm *sm, const struct sm_node *n);

/* The output ports switch n may use for dlid while AR is on there (the
 * group's ports, or just the default port for a Static entry): up to max
 * into ports, returns how many; -1 when AR is not on at n or dlid is out of
 * range. For the path command. */
int sm_ar_choices(const struct sm *sm, const struct sm_node *n, uint16_t dlid, uint8_t *ports,
		  int max);

#endif
