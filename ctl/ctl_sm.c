/*
 * DOC: control commands about the SMs of the subnet: `sms` (the other SMs
 * we know of, as their SMInfo last said), the SM part of `status`, and
 * `handover` (an operator asks the master to hand over to the best
 * standby). Read from the SM through sminfo.h; nothing here changes the
 * SM but through sm_handover().
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "ctl/ctl_int.h"
#include "lib/clock.h"
#include "sm/sm.h"
#include "sm/sminfo.h"

static json_object *guid_json(uint64_t g)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%016" PRIx64, g);
	return json_object_new_string(b);
}

static json_object *peer_json(const struct sm_peer *p, uint64_t now)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "guid", guid_json(p->guid));
	json_object_object_add(o, "lid", json_object_new_int(p->lid));
	json_object_object_add(o, "priority", json_object_new_int(p->priority));
	json_object_object_add(o, "state", json_object_new_string(sm_state_name(p->state)));
	json_object_object_add(o, "act_count", json_object_new_uint64(p->act_count));
	json_object_object_add(o, "answering", json_object_new_boolean(p->answered && p->seen));
	json_object_object_add(o, "foreign_key", json_object_new_boolean(p->foreign));
	if (p->last_seen_ms)
		json_object_object_add(o, "seen_ms_ago",
				       json_object_new_uint64(now - p->last_seen_ms));
	return o;
}

json_object *ctl_sms_json(const struct sm *sm)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	uint64_t now = clock_ms();

	json_object_object_add(o, "state", json_object_new_string(sm_state_name((int)sm->state)));
	json_object_object_add(o, "priority", json_object_new_int((int)sm->conf.sm_priority));
	json_object_object_add(o, "guid", guid_json(sm->port.port_guid));
	json_object_object_add(o, "act_count", json_object_new_uint64(sm_act_count(sm)));
	if (sm->master_guid)
		json_object_object_add(o, "master", guid_json(sm->master_guid));
	for (size_t i = 0; i < sm->peers.n; i++)
		json_object_array_add(a, peer_json(&sm->peers.v[i], now));
	json_object_object_add(o, "others", a);
	return o;
}

enum ctl_ret cmd_sms(struct ctl_call *c, json_object **res)
{
	*res = ctl_sms_json(c->sm);
	return CTL_DONE;
}

enum ctl_ret cmd_handover(struct ctl_call *c, json_object **res)
{
	int rc = sm_handover(c->sm, c->msg, sizeof(c->msg));

	if (rc < 0) {
		c->err = CTL_E_failed;
		return CTL_ERROR;
	}
	sm_arm_engine_timer(c->sm);
	*res = json_object_new_object();
	json_object_object_add(*res, "started", json_object_new_boolean(rc == 0));
	/* a sweep is writing: the handover waits for it (never two masters) */
	json_object_object_add(*res, "after_sweep", json_object_new_boolean(rc == 1));
	return CTL_DONE;
}
