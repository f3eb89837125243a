/*
 * DOC: health_action = isolate: the PM's verdicts turned into isolations
 * (sm/isolate.h decides whether a link may go, and routes around it).
 *
 * A link is a candidate while either end has a problem that says it
 * corrupts what it carries (errors counted on the link itself, not
 * congestion: transmit discards, VL15 drops and XmitWait are left out).
 * An isolated link goes back into routing once both ends have been free of
 * those problems for health_isolate_quiet; all of them when health_action
 * goes back to report; none is kept by a standby.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl/ctl.h"
#include "daemon/pmhost.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "pm/sched.h"
#include "sm/isolate.h"
#include "sm/sm.h"

#define LINK_PROBLEMS                                                                  \
	(PM_P_BIT(PM_P_SYMBOL_ERRORS) | PM_P_BIT(PM_P_LINK_ERROR_RECOVERY) |           \
	 PM_P_BIT(PM_P_LINK_DOWNED) | PM_P_BIT(PM_P_RECEIVE_ERRORS) |                  \
	 PM_P_BIT(PM_P_RECEIVE_REMOTE_PHYSICAL_ERRORS) |                               \
	 PM_P_BIT(PM_P_LOCAL_LINK_INTEGRITY_ERRORS) |                                  \
	 PM_P_BIT(PM_P_EXCESSIVE_BUFFER_OVERRUN_ERRORS))
#define REFUSALS 16

/* Refusals logged lately, so that each is said once and not every tick. */
static struct refusal {
	uint64_t guid;
	uint8_t port;
	int rc;
} refused[REFUSALS];
static unsigned nrefused;

static uint32_t port_bad(const struct sm *sm, uint64_t guid, uint8_t port)
{
	struct pm_port_view v;

	return pm_port_find(sm->pm, guid, port, &v) ? v.problems & LINK_PROBLEMS : 0;
}

static const char *first_problem(uint32_t bits)
{
	for (unsigned p = 0; p < PM_NPROBLEM; p++)
		if (bits & PM_P_BIT(p))
			return pm_problem_name(p);
	return "?";
}

static void deisolate(struct sm *sm, size_t i, const char *why)
{
	struct sm_isolated x = *sm_isolated_at(sm, i);

	sm_deisolate(sm, i, why);
	ctl_health_event(sm, "deisolated", x.guid, x.port, NULL);
}

/* Isolated links quiet for long enough go back into routing. */
static void quiet_check(struct sm *sm, uint64_t now)
{
	uint64_t quiet = (uint64_t)sm->conf.health_isolate_quiet * 1000;
	char why[64];

	for (size_t i = sm_isolated_count(sm); i-- > 0;) {
		struct sm_isolated *x = sm_isolated_at(sm, i);

		if (port_bad(sm, x->guid, x->port) || port_bad(sm, x->peer_guid, x->peer_port))
			x->bad_ms = now;
		else if (now - x->bad_ms >= quiet) {
			snprintf(why, sizeof(why), "no error problem for %u s",
				 sm->conf.health_isolate_quiet);
			deisolate(sm, i, why);
		}
	}
}

static void note_refusal(const struct sm_port *p, int rc, const char *problem)
{
	uint64_t guid = p->node->guid;
	uint8_t port = p->num;

	for (unsigned i = 0; i < REFUSALS; i++)
		if (refused[i].guid == guid && refused[i].port == port && refused[i].rc == rc)
			return;
	refused[nrefused++ % REFUSALS] = (struct refusal){ guid, port, rc };
	log_fabric(LOG_LVL_NOTICE, "health: not isolating 0x%016llx port %u (%s, %s): %s",
		   (unsigned long long)guid, port, p->node->desc, problem,
		   rc == -ENOSPC ? "health_isolate_max links are isolated already" :
		   rc == -EHOSTUNREACH ? "the fabric would not stay connected without it" :
		   rc == -ENOLINK ? "no usable link there" : "not master");
}

static void try_isolate(struct sm *sm, const struct pm_port_view *v)
{
	const struct sm_node *n = fabric_find(sm->fabric, v->guid);
	const struct sm_port *p = n && v->port <= n->ni.num_ports ? &n->ports[v->port] : NULL;
	const char *problem = first_problem(v->problems & LINK_PROBLEMS);
	char reason[SM_ISOLATE_REASON];
	int rc;

	if (!p || !p->peer || sm_port_isolated(sm, p))
		return;
	snprintf(reason, sizeof(reason), "%s on 0x%016llx port %u", problem,
		 (unsigned long long)v->guid, v->port);
	rc = sm_isolate(sm, p, reason);
	if (rc == 0)
		ctl_health_event(sm, "isolated", v->guid, v->port, problem);
	else if (rc != -EALREADY)
		note_refusal(p, rc, problem);
}

void pm_isolate_tick(struct sm *sm)
{
	struct pm_port_view v;

	if (!sm_is_master(sm)) {
		sm_isolate_forget(sm);
		return;
	}
	if (sm->conf.health_action != CONF_HEALTH_ISOLATE) {
		while (sm_isolated_count(sm))
			deisolate(sm, 0, "health_action is report");
		return;
	}
	quiet_check(sm, clock_ms());
	if (!sm->pm || !sm->fabric || sm->sweeping)
		return;
	for (uint64_t g = 0, p = 0; pm_port_next(sm->pm, g, (uint8_t)p, &v); g = v.guid, p = v.port)
		if (v.problems & LINK_PROBLEMS)
			try_isolate(sm, &v);
}
