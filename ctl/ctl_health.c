/*
 * DOC: link health and port counters for the control socket: the
 * "health" and "counters" commands and the health part of "status", read
 * from the performance manager (pm/sched.h) the daemon runs, with names
 * and far ends from the fabric of the last sweep.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_int.h"
#include "ctl/ctl_out.h"
#include "pm/sched.h"
#include "sm/sm.h"

/* Longest reply of "health": a port's entry is some 300 bytes. */
#define HEALTH_MAX_BYTES (CTL_MAX_OUTQ / 2)

static bool pm_polls(const struct sm *sm)
{
	return sm->pm && sm->conf.perfmgr && sm_is_master(sm);
}

static json_object *problem_names(uint32_t problems)
{
	json_object *a = json_object_new_array();

	for (unsigned p = 0; p < PM_NPROBLEM; p++)
		if (problems & PM_P_BIT(p))
			json_object_array_add(a, JSTR(pm_problem_name(p)));
	return a;
}

static const struct sm_port *fabric_port(const struct sm *sm, uint64_t guid, uint8_t port)
{
	const struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, guid) : NULL;

	return n && port <= n->ni.num_ports ? &n->ports[port] : NULL;
}

static json_object *health_port(const struct sm *sm, const struct pm_port_view *v)
{
	const struct sm_port *p = fabric_port(sm, v->guid, v->port);
	const struct sm_port *q = p ? p->peer : NULL;
	json_object *o = json_object_new_object();

	ADD(o, "guid", jguid(v->guid));
	ADD(o, "port", JINT(v->port));
	ADD(o, "node", JSTR(p ? p->node->desc : ""));
	ADD(o, "lid", JINT(v->lid));
	ADD(o, "peer_guid", q ? jguid(q->node->guid) : NULL);
	ADD(o, "peer_port", q ? JINT(q->num) : NULL);
	ADD(o, "peer_node", q ? JSTR(q->node->desc) : NULL);
	ADD(o, "problems", problem_names(v->problems));
	ADD(o, "missed_rounds", JINT(v->missed));
	ADD(o, "link_down", json_object_new_boolean(v->idle));
	return o;
}

/* Watched ports, rounds, and how many ports have each problem. */
static json_object *health_summary(const struct sm *sm)
{
	json_object *o = json_object_new_object(), *by = json_object_new_object();
	struct pm_stats st;

	pm_get_stats(sm->pm, &st);
	ADD(o, "polling", json_object_new_boolean(pm_polls(sm)));
	ADD(o, "ports_watched", JINT(st.ports));
	ADD(o, "rounds", JINT(st.rounds));
	ADD(o, "last_round_ms", JINT(st.last_round_ms));
	ADD(o, "queries", JINT(st.queries));
	ADD(o, "queries_failed", JINT(st.failed));
	for (unsigned p = 0; p < PM_NPROBLEM; p++)
		if (st.problems[p])
			ADD(by, pm_problem_name(p), JINT(st.problems[p]));
	ADD(o, "problems", by);
	return o;
}

json_object *ctl_health_status(const struct sm *sm)
{
	return sm->pm ? health_summary(sm) : NULL;
}

static enum ctl_ret need_pm(struct ctl_call *c)
{
	if (!c->sm->pm)
		return ctl_fail(c, CTL_E_not_ready, "the performance manager does not run");
	return CTL_DONE;
}

enum ctl_ret cmd_health(struct ctl_call *c, json_object **res)
{
	struct ctl_capped cap;
	struct pm_port_view v;

	if (need_pm(c) != CTL_DONE)
		return CTL_ERROR;
	ctl_capped_init(&cap, HEALTH_MAX_BYTES);
	for (uint64_t g = 0, p = 0; pm_port_next(c->sm->pm, g, (uint8_t)p, &v);
	     g = v.guid, p = v.port) {
		if (v.problems && ctl_capped_add(&cap, health_port(c->sm, &v)) < 0) {
			json_object_put(cap.arr);
			return ctl_fail(c, CTL_E_reply_too_large, "more unhealthy ports than one reply holds");
		}
	}
	*res = health_summary(c->sm);
	ADD(*res, "ports", cap.arr);
	return CTL_DONE;
}

/* --- counters --- */

/* The PMA counts data in 4-byte words; the names say bytes. */
static unsigned data_scale(unsigned ctr)
{
	return ctr == PM_XMIT_DATA || ctr == PM_RCV_DATA ? 4 : 1;
}

static json_object *counters_port(const struct pm_port_view *v)
{
	json_object *o = json_object_new_object(), *t = json_object_new_object();
	json_object *r = json_object_new_object(), *sat = json_object_new_array();

	ADD(o, "port", JINT(v->port));
	ADD(o, "lid", JINT(v->lid));
	for (unsigned i = 0; i < PM_NCTR; i++) {
		if (!(v->seen & PM_BIT(i)))
			continue;
		ADD(t, pm_ctr_name(i), json_object_new_uint64(v->total[i] * data_scale(i)));
		if (v->saturated & PM_BIT(i))
			json_object_array_add(sat, JSTR(pm_ctr_name(i)));
	}
	for (unsigned i = 0; i < PM_NRATE; i++)
		if (v->rate[i] >= 0)
			ADD(r, pm_ctr_name(PM_XMIT_DATA + i),
			    ctl_json_fixed(v->rate[i] * data_scale(PM_XMIT_DATA + i), 1));
	ADD(o, "totals", t);
	ADD(o, "per_second", r);
	ADD(o, "saturated", sat);
	ADD(o, "problems", problem_names(v->problems));
	return o;
}

/* The port argument: absent (every port), or 1..254. */
static int port_arg(struct ctl_call *c, const struct sm_node *n, int *port)
{
	const char *s = NULL;
	char *end;
	long v;
	int rc = ctl_arg_str(c, "port", &s);

	*port = -1;
	if (rc <= 0)
		return rc;
	v = strtol(s, &end, 10);
	if (*end || end == s || v < 1 || v > n->ni.num_ports) {
		ctl_fail_field(c, CTL_E_invalid_args, "port", "port must be 1..%u, not \"%.16s\"",
			       n->ni.num_ports, s);
		return -1;
	}
	*port = (int)v;
	return 1;
}

enum ctl_ret cmd_counters(struct ctl_call *c, json_object **res)
{
	const struct sm_node *n;
	const char *name = NULL;
	struct pm_port_view v;
	json_object *a;
	int port;

	if (need_pm(c) != CTL_DONE || ctl_arg_str(c, "node", &name) <= 0 ||
	    !(n = ctl_node_arg(c, name)) || port_arg(c, n, &port) < 0)
		return CTL_ERROR;
	a = json_object_new_array();
	for (unsigned p = 1; p <= n->ni.num_ports; p++)
		if ((port < 0 || (int)p == port) && pm_port_find(c->sm->pm, n->guid, (uint8_t)p, &v))
			json_object_array_add(a, counters_port(&v));
	if (port > 0 && json_object_array_length(a) == 0) {
		json_object_put(a);
		return ctl_fail(c, CTL_E_not_found, "port %d of \"%s\" is not watched (not linked, "
				"or the performance manager is off)", port, n->desc);
	}
	*res = json_object_new_object();
	ADD(*res, "guid", jguid(n->guid));
	ADD(*res, "node", JSTR(n->desc));
	ADD(*res, "ports", a);
	return CTL_DONE;
}
