/*
 * DOC: control commands: the dispatch table and the handlers.
 *
 * The table is CTL_COMMANDS from ibsm/ctl_proto.h, expanded here with a
 * handler per name, so the daemon, ibsmctl's offline help and the
 * "commands" reply cannot disagree. Read-only handlers serialize the last
 * complete fabric generation through small *_json() helpers and change
 * nothing; admin handlers start work on the SM and reply at once, or park
 * the request (CTL_PENDING) until a sweep finishes.
 *
 * Names of nodes in arguments: "0x..." is a node or port GUID, a decimal
 * number is a LID, anything else is a NodeDescription (must be unique).
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/ctl_out.h"
#include "ctl/ctl.h"
#include "lib/clock.h"
#include "sm/ar.h"
#include "ctl/ctl_int.h"
#include "sm/problems.h"
#include "ctl/ctl_view.h"
#include "lib/log.h"
#include "sm/sm.h"

#define PATH_MAX_HOPS 64

/* ---- arguments ---- */

int ctl_arg_str(struct ctl_call *c, const char *name, const char **out)
{
	json_object *v;

	if (!json_object_object_get_ex(c->args, name, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_string)) {
		*out = json_object_get_string(v);
		return 1;
	}
	ctl_fail_field(c, CTL_E_invalid_args, name, "\"%s\" must be a string", name);
	return -1;
}

int ctl_arg_bool(struct ctl_call *c, const char *name, bool *out)
{
	json_object *v;

	if (!json_object_object_get_ex(c->args, name, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_boolean)) {
		ctl_fail(c, CTL_E_invalid_args, "\"%s\" must be true or false", name);
		return -1;
	}
	*out = json_object_get_boolean(v);
	return 1;
}

/* ---- JSON of fabric objects ---- */


/* ---- finding nodes ---- */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static struct sm_node *by_lid(const struct sm_fabric *f, unsigned long lid)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *n = f->nodes[i];

		for (unsigned k = 0; k <= n->ni.num_ports; k++)
			if (ctl_port_lid(&n->ports[k]) == lid && (k == 0) == node_is_switch(n))
				return n;
	}
	return NULL;
}

static struct sm_node *by_guid(const struct sm_fabric *f, uint64_t g)
{
	struct sm_node *n = fabric_find(f, g);
	struct sm_port *p;

	if (n)
		return n;
	p = fabric_find_port(f, g);
	return p ? p->node : NULL;
}

static struct sm_node *by_desc(struct ctl_call *c, const struct sm_fabric *f, const char *s)
{
	struct sm_node *found = NULL;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		if (strcmp(f->nodes[i]->desc, s))
			continue;
		if (found) {
			ctl_fail(c, CTL_E_invalid_args, "\"%.64s\" names more than one node; use a GUID", s);
			return NULL;
		}
		found = f->nodes[i];
	}
	if (!found)
		ctl_fail(c, CTL_E_not_found, "no node \"%.64s\"", s);
	return found;
}

static struct sm_node *find_node(struct ctl_call *c, const char *s)
{
	const struct sm_fabric *f = c->sm->fabric;
	struct sm_node *n;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		unsigned long long g = strtoull(s, &end, 16);

		if (*end || end == s + 2) {
			ctl_fail(c, CTL_E_invalid_args, "bad GUID \"%.64s\"", s);
			return NULL;
		}
		n = by_guid(f, g);
	} else if (all_digits(s)) {
		unsigned long lid = strtoul(s, NULL, 10);

		n = lid && lid <= TOPO_MAX_UCAST_LID ? by_lid(f, lid) : NULL;
	} else {
		return by_desc(c, f, s);
	}
	if (!n)
		ctl_fail(c, CTL_E_not_found, "no node \"%.64s\"", s);
	return n;
}

struct sm_node *ctl_node_arg(struct ctl_call *c, const char *s)
{
	if (!c->sm->fabric) {
		ctl_fail(c, CTL_E_not_ready, "no fabric yet: the first sweep is not done");
		return NULL;
	}
	return find_node(c, s);
}

static enum ctl_ret need_fabric(struct ctl_call *c)
{
	if (!c->sm->fabric)
		return ctl_fail(c, CTL_E_not_ready, "no fabric yet: the first sweep is not done");
	return CTL_DONE;
}

/* ---- read-only commands ---- */


static json_object *last_sweep_json(struct ctl_call *c)
{
	const struct sm *sm = c->sm;
	json_object *o = json_object_new_object();
	bool done = !sm->sweeping && sm->sweeps;

	ADD(o, "time", ctl_last_sweep_time(c->ctl) > 0 ?
	    ctl_json_fixed(ctl_last_sweep_time(c->ctl), 3) : NULL);
	ADD(o, "duration_ms", done ? ctl_json_fixed(clock_diff_ms(&sm->st.t_start, &sm->st.t_done), 3) : NULL);
	ADD(o, "clean", json_object_new_boolean(sm->sweep_clean));
	ADD(o, "errors", JINT(sm->st.errors));
	ADD(o, "lft_blocks_written", JINT(sm->st.lft_blocks_written));
	ADD(o, "ports_active", JINT(sm->st.ports_active));
	return o;
}

static json_object *smps_json(const struct sm *sm)
{
	json_object *o = json_object_new_object();
	struct mad_stats ms;

	mad_engine_get_stats(sm->eng, &ms);
	ADD(o, "sent", JINT(ms.sent));
	ADD(o, "completed", JINT(ms.completed));
	ADD(o, "failed", JINT(ms.failed));
	ADD(o, "timeouts", JINT(ms.timeouts));
	ADD(o, "retries", JINT(ms.retries));
	ADD(o, "outstanding", JINT(ms.outstanding));
	ADD(o, "queued", JINT(ms.queued));
	return o;
}

static json_object *fabric_counts(const struct sm_fabric *f)
{
	json_object *o = json_object_new_object();

	ADD(o, "nodes", JINT(f ? f->nnodes : 0));
	ADD(o, "switches", JINT(f ? f->nswitches : 0));
	ADD(o, "cas", JINT(f ? f->ncas : 0));
	ADD(o, "links", JINT(f ? f->nlinks : 0));
	return o;
}

static enum ctl_ret cmd_status(struct ctl_call *c, json_object **res)
{
	const struct sm *sm = c->sm;
	json_object *o = json_object_new_object();

	ADD(o, "state", JSTR(sm_state_name((int)sm->state)));
	ADD(o, "sm", ctl_sms_json(sm));
	ADD(o, "subnet", JSTR(sm_subnet_state(sm)));
	ADD(o, "subnet_up", json_object_new_boolean(sm->subnet_up));
	ADD(o, "problems", ctl_problems_json(sm));
	ADD(o, "health", ctl_health_status(sm));
	ADD(o, "sweeping", json_object_new_boolean(sm->sweeping));
	ADD(o, "sweeps", JINT(sm->sweeps));
	ADD(o, "last_sweep", last_sweep_json(c));
	ADD(o, "smps", smps_json(sm));
	ADD(o, "fabric", fabric_counts(sm->fabric));
	ADD(o, "sm_lid", JINT(sm->sm_lid));
	ADD(o, "port_guid", jguid(sm->port.port_guid));
	ADD(o, "ca", JSTR(sm->port.ca_name));
	ADD(o, "port", JINT(sm->port.port_num));
	ADD(o, "routing_engine", sm->have_routes ? JSTR(sm->routes.engine) : NULL);
	ADD(o, "lids", JINT(lid_db_count(&sm->lids)));
	ADD(o, "pid", JINT(getpid()));
	*res = o;
	return CTL_DONE;
}

/* Streamed from a view: the reply can be megabytes on a large fabric. */
static enum ctl_ret cmd_nodes(struct ctl_call *c, json_object **res)
{
	if (need_fabric(c) != CTL_DONE)
		return CTL_ERROR;
	return ctl_stream(c, "nodes", ctl_view_now(c->ctl), CTL_VIEW_NODES, 0, SIZE_MAX);
}

static enum ctl_ret cmd_switches(struct ctl_call *c, json_object **res)
{
	const struct sm_fabric *f = c->sm->fabric;
	json_object *a, *o;

	if (need_fabric(c) != CTL_DONE)
		return CTL_ERROR;
	a = json_object_new_array();
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		if (!node_is_switch(n))
			continue;
		o = ctl_node_json(n);
		ADD(o, "lin_top", n->have_si ? JINT(n->si.lin_top) : NULL);
		ADD(o, "lin_cap", n->have_si ? JINT(n->si.lin_cap) : NULL);
		ADD(o, "ar", sm_ar_switch_json(c->sm, n));
		json_object_array_add(a, o);
	}
	*res = json_object_new_object();
	ADD(*res, "switches", a);
	return CTL_DONE;
}

static enum ctl_ret cmd_ports(struct ctl_call *c, json_object **res)
{
	const char *name = NULL;
	struct sm_node *n = NULL;
	size_t first = 0, end = SIZE_MAX;
	struct ctl_view *v;
	int r;

	if (need_fabric(c) != CTL_DONE || (r = ctl_arg_str(c, "node", &name)) < 0)
		return CTL_ERROR;
	if (r && !(n = find_node(c, name)))
		return CTL_ERROR;
	/* the view is of this very fabric, so node n has its place in it */
	v = ctl_view_now(c->ctl);
	if (n)
		ctl_view_node_ports(v, n->idx, &first, &end);
	return ctl_stream(c, "ports", v, CTL_VIEW_PORTS, first, end);
}

static enum ctl_ret cmd_links(struct ctl_call *c, json_object **res)
{
	if (need_fabric(c) != CTL_DONE)
		return CTL_ERROR;
	return ctl_stream(c, "links", ctl_view_now(c->ctl), CTL_VIEW_LINKS, 0, SIZE_MAX);
}

/* The forwarding table of switch n: the computed routes when they belong
 * to this fabric generation, otherwise what was last read from or written
 * to the switch. Returns the table and its top LID, or NULL. */
static const uint8_t *lft_of(const struct sm *sm, const struct sm_node *n, unsigned *top,
			     const char **source)
{
	if (ctl_routes_match(sm) && sm->routes.lft[n->idx].ports) {
		*top = sm->routes.top;
		*source = "routes";
		return sm->routes.lft[n->idx].ports;
	}
	if (n->lft && n->lft_blocks) {
		*top = n->have_si && n->si.lin_top < n->lft_blocks * 64 ? n->si.lin_top :
		       n->lft_blocks * 64 - 1;
		*source = "switch";
		return n->lft;
	}
	return NULL;
}

static enum ctl_ret cmd_lft(struct ctl_call *c, json_object **res)
{
	const char *name = NULL, *source = NULL;
	const struct sm_node *n;
	const uint8_t *lft;
	unsigned top = 0;
	json_object *a, *e;

	if (need_fabric(c) != CTL_DONE || ctl_arg_str(c, "switch", &name) < 0)
		return CTL_ERROR;
	if (!(n = find_node(c, name)))
		return CTL_ERROR;
	if (!node_is_switch(n))
		return ctl_fail(c, CTL_E_invalid_args, "\"%.64s\" is not a switch", name);
	if (!(lft = lft_of(c->sm, n, &top, &source)))
		return ctl_fail(c, CTL_E_not_ready, "no forwarding table known for this switch yet");
	a = json_object_new_array();
	for (unsigned lid = 1; lid <= top; lid++) {
		if (lft[lid] == LFT_NO_PORT)
			continue;
		e = json_object_new_array_ext(2);
		json_object_array_add(e, JINT(lid));
		json_object_array_add(e, JINT(lft[lid]));
		json_object_array_add(a, e);
	}
	*res = ctl_node_json(n);
	ADD(*res, "top", JINT(top));
	ADD(*res, "source", JSTR(source));
	ADD(*res, "entries", a);
	return CTL_DONE;
}

static json_object *hop_json(const struct sm_node *n, unsigned in, unsigned out)
{
	json_object *o = json_object_new_object();

	ADD(o, "guid", jguid(n->guid));
	ADD(o, "desc", JSTR(n->desc));
	ADD(o, "type", JSTR(node_type_name(n->ni.node_type)));
	ADD(o, "in_port", in ? JINT(in) : NULL);
	ADD(o, "out_port", out ? JINT(out) : NULL);
	return o;
}

/* Where adaptive routing is on, the ports the switch may choose from. */
static void add_ar_choices(const struct sm *sm, const struct sm_node *n, unsigned dlid,
			   json_object *hop)
{
	uint8_t ports[256];
	int k = sm_ar_choices(sm, n, (uint16_t)dlid, ports, (int)sizeof(ports));
	json_object *a;

	if (k < 0)
		return;
	a = json_object_new_array();
	for (int i = 0; i < k; i++)
		json_object_array_add(a, JINT(ports[i]));
	ADD(hop, "ar_ports", a);
}

/* A CA's first linked port (a multi-port CA is reached through it). */
static const struct sm_port *ca_uplink(const struct sm_node *n)
{
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		if (n->ports[k].peer)
			return &n->ports[k];
	return NULL;
}

/* Follows the forwarding tables from src towards dlid; fills hops.
 * Returns NULL when the destination was reached, or why not. */
static const char *walk(const struct sm *sm, const struct sm_node *src, unsigned dlid,
			json_object *hops)
{
	const struct sm_node *n = src;
	unsigned in = 0;

	if (!node_is_switch(n)) {
		const struct sm_port *up = ca_uplink(n);

		if (ctl_port_lid(up ? up : &n->ports[1]) == dlid && up) {
			json_object_array_add(hops, hop_json(n, 0, 0));
			return NULL;
		}
		if (!up)
			return "source has no link";
		json_object_array_add(hops, hop_json(n, 0, up->num));
		in = up->peer->num;
		n = up->peer->node;
	}
	for (int i = 0; i < PATH_MAX_HOPS; i++) {
		const char *source;
		unsigned top, out;
		const uint8_t *lft;
		const struct sm_port *p;

		if (!node_is_switch(n)) {
			json_object_array_add(hops, hop_json(n, in, 0));
			return ctl_port_lid(&n->ports[in]) == dlid ? NULL : "arrived at the wrong CA";
		}
		lft = lft_of(sm, n, &top, &source);
		if (!lft || dlid > top || lft[dlid] == LFT_NO_PORT) {
			json_object_array_add(hops, hop_json(n, in, 0));
			return "no route for the destination LID here";
		}
		out = lft[dlid];
		json_object_array_add(hops, hop_json(n, in, out));
		add_ar_choices(sm, n, dlid,
			       json_object_array_get_idx(hops, json_object_array_length(hops) - 1));
		if (out == 0)
			return ctl_port_lid(&n->ports[0]) == dlid ? NULL : "routed to port 0 of the wrong switch";
		if (out > n->ni.num_ports || !(p = n->ports[out].peer))
			return "route leads to a port without a link";
		in = p->num;
		n = p->node;
	}
	return "more than 64 hops: routing loop";
}

static unsigned dest_lid(const char *arg, const struct sm_node *dst)
{
	if (all_digits(arg))
		return (unsigned)strtoul(arg, NULL, 10);
	if (node_is_switch(dst))
		return ctl_port_lid(&dst->ports[0]);
	return ca_uplink(dst) ? ctl_port_lid(ca_uplink(dst)) : ctl_node_lid(dst);
}

static enum ctl_ret cmd_path(struct ctl_call *c, json_object **res)
{
	const char *s = NULL, *d = NULL, *why;
	const struct sm_node *src, *dst;
	json_object *hops;
	unsigned dlid;

	if (need_fabric(c) != CTL_DONE || ctl_arg_str(c, "src", &s) < 0 || ctl_arg_str(c, "dst", &d) < 0)
		return CTL_ERROR;
	if (ctl_mcast_is_mlid(d))   /* ctl_mcast.c */
		return (src = find_node(c, s)) ? ctl_mcast_path(c, src, d, res) : CTL_ERROR;
	if (!(src = find_node(c, s)) || !(dst = find_node(c, d)))
		return CTL_ERROR;
	dlid = dest_lid(d, dst);
	if (!dlid)
		return ctl_fail(c, CTL_E_not_ready, "the destination has no LID yet");
	hops = json_object_new_array();
	why = walk(c->sm, src, dlid, hops);
	*res = json_object_new_object();
	ADD(*res, "src", ctl_node_json(src));
	ADD(*res, "dst", ctl_node_json(dst));
	ADD(*res, "dlid", JINT(dlid));
	ADD(*res, "complete", json_object_new_boolean(!why));
	ADD(*res, "problem", why ? JSTR(why) : NULL);
	ADD(*res, "hops", hops);
	return CTL_DONE;
}

static enum ctl_ret cmd_ar(struct ctl_call *c, json_object **res)
{
	const char *name = NULL, *what = NULL;
	const struct sm_node *n;

	if (need_fabric(c) != CTL_DONE || ctl_arg_str(c, "what", &what) < 0 ||
	    ctl_arg_str(c, "switch", &name) < 0)
		return CTL_ERROR;
	if (strcmp(what, "status") != 0 && strcmp(what, "groups") != 0)
		return ctl_fail(c, CTL_E_invalid_args, "what must be status or groups");
	if (!(n = find_node(c, name)))
		return CTL_ERROR;
	if (!node_is_switch(n))
		return ctl_fail(c, CTL_E_invalid_args, "\"%.64s\" is not a switch", name);
	*res = ctl_node_json(n);
	ADD(*res, "ar", sm_ar_switch_json(c->sm, n));
	if (strcmp(what, "groups") == 0)
		ADD(*res, "groups", sm_ar_groups_json(c->sm, n));
	return CTL_DONE;
}

static enum ctl_ret cmd_routing(struct ctl_call *c, json_object **res)
{
	const struct sm *sm = c->sm;
	json_object *v;

	if (!sm->have_routes)
		return ctl_fail(c, CTL_E_not_ready, "no routes computed yet");
	v = ctl_routing_summary(c->ctl, c->sm);
	*res = json_object_new_object();
	ADD(*res, "engine", JSTR(sm->routes.engine));
	ADD(*res, "why", JSTR(sm->routes.why));
	ADD(*res, "top", JINT(sm->routes.top));
	ADD(*res, "verify", v ? json_object_get(v) : NULL);
	if (!v)
		ADD(*res, "verify_note", JSTR(ctl_verify_running(c->ctl)
			? "being computed on a worker thread; retry in a moment"
			: "not available: a sweep is changing the fabric; retry"));
	return CTL_DONE;
}

/* ---- admin commands ---- */

static enum ctl_ret start_sweep(struct ctl_call *c, json_object **res, bool reroute,
				const char *note)
{
	bool wait = false, was = c->sm->sweeping;
	uint64_t no;

	if (ctl_arg_bool(c, "wait", &wait) < 0)
		return CTL_ERROR;
	no = ctl_start_sweep(c->sm, reroute);
	if (wait && !c->sm->sweeping && c->sm->sweeps >= no) {
		/* finished before we could park the request (route failure) */
		*res = ctl_sweep_json(c->sm, no, true);
		return CTL_DONE;
	}
	if (wait)
		return ctl_wait_sweep(c, no) < 0 ? CTL_ERROR : CTL_PENDING;
	*res = json_object_new_object();
	ADD(*res, "sweep", JINT(no));
	ADD(*res, "queued_after_running", json_object_new_boolean(was));
	if (note)
		ADD(*res, "note", JSTR(note));
	return CTL_DONE;
}

static enum ctl_ret cmd_sweep(struct ctl_call *c, json_object **res)
{
	return start_sweep(c, res, false, NULL);
}

static enum ctl_ret cmd_reroute(struct ctl_call *c, json_object **res)
{
	/* a reroute writes LFTs and tables: a standby sends no Set, ever */
	if (!sm_may_write(c->sm))
		return ctl_fail(c, CTL_E_not_master, "not master: this SM is %s%s; "
				"only the master reroutes", sm_state_name((int)c->sm->state),
				c->sm->handing_over ? " and handing over" : "");
	return start_sweep(c, res, true, c->sm->sweeping || !c->sm->fabric ?
			   "a sweep is running or none has finished: a heavy sweep follows instead" :
			   "routes recomputed on the current fabric; changed LFT blocks are written");
}

static enum ctl_ret cmd_reload(struct ctl_call *c, json_object **res)
{
	if (ctl_reload(c->sm, res, c->msg, sizeof(c->msg)) == 0)
		return CTL_DONE;
	c->err = CTL_E_failed;
	return CTL_ERROR;
}

static enum ctl_ret cmd_loglevel(struct ctl_call *c, json_object **res)
{
	const char *name = NULL;
	int old = log_get_level(), lvl;
	int r = ctl_arg_str(c, "level", &name);

	if (r < 0)
		return CTL_ERROR;
	if (r) {
		lvl = log_level_from_name(name);
		if (lvl < 0)
			return ctl_fail(c, CTL_E_invalid_args,
					"unknown level \"%.32s\" (err warning notice info debug)", name);
		log_set_level(lvl);
		if (lvl >= LOG_LVL_ERR && lvl <= LOG_LVL_DEBUG)
			c->sm->conf.log_level = lvl - LOG_LVL_ERR;
		log_notice("log level %s -> %s (control socket)", log_level_name(old), log_level_name(lvl));
	}
	*res = json_object_new_object();
	ADD(*res, "level", JSTR(log_level_name(log_get_level())));
	ADD(*res, "previous", JSTR(log_level_name(old)));
	return CTL_DONE;
}

static enum ctl_ret cmd_subscribe(struct ctl_call *c, json_object **res)
{
	static const char *const evs[] = {
		CTL_EV_SWEEP_STARTED, CTL_EV_SWEEP_DONE, CTL_EV_STATE, CTL_EV_SUBNET,
		CTL_EV_NODE_ADDED, CTL_EV_NODE_REMOVED, CTL_EV_LINK_UP, CTL_EV_LINK_DOWN,
		CTL_EV_RELOAD, CTL_EV_PORT, CTL_EV_HEALTH,
	};
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		json_object_array_add(a, JSTR(evs[i]));
	ctl_subscribe(c->cl);
	*res = json_object_new_object();
	ADD(*res, "events", a);
	return CTL_DONE;
}

/* What a connection may cost, as in force now (ibsmctl help shows it). */
static json_object *limits_json(const struct ctl *ctl)
{
	struct ctl_limits l = ctl_limits_now(ctl);
	json_object *o = json_object_new_object();

	ADD(o, "max_clients", JINT(l.max_clients));
	ADD(o, "admin_clients", JINT(l.admin_slots));
	ADD(o, "max_clients_per_uid", JINT(l.per_uid));
	ADD(o, "client_idle_timeout", JINT(l.idle_timeout_s));
	ADD(o, "max_request_bytes", JINT(CTL_MAX_REQUEST));
	ADD(o, "max_unread_bytes", JINT(CTL_MAX_OUTQ));
	ADD(o, "max_unread_event_bytes", JINT(CTL_MAX_EVQ));
	ADD(o, "max_queued_bytes", JINT(CTL_MAX_QUEUED));
	ADD(o, "client_share_percent", JINT(CTL_CLIENT_SHARE));
	ADD(o, "client_share_sweep_percent", JINT(CTL_CLIENT_SHARE_SWEEP));
	return o;
}

static enum ctl_ret cmd_commands(struct ctl_call *c, json_object **res)
{
	json_object *a = json_object_new_array(), *e, *o;

	for (size_t i = 0; i < ctl_cmd_count(); i++) {
		const struct ctl_cmd *cmd = ctl_cmd_at(i);

		o = json_object_new_object();
		ADD(o, "name", JSTR(cmd->name));
		ADD(o, "access", JSTR(cmd->access == CTL_ADMIN ? "admin" : "ro"));
		ADD(o, "args", JSTR(cmd->args));
		ADD(o, "help", JSTR(cmd->help));
		json_object_array_add(a, o);
	}
	e = json_object_new_array();
	for (int i = 0; i < CTL_E_COUNT; i++)
		json_object_array_add(e, JSTR(ctl_error_name((enum ctl_error)i)));
	*res = json_object_new_object();
	ADD(*res, "protocol_version", JINT(CTL_PROTOCOL_VERSION));
	ADD(*res, "commands", a);
	ADD(*res, "errors", e);
	ADD(*res, "limits", limits_json(c->ctl));
	return CTL_DONE;
}

/* ---- the table ---- */

#define CTL_CMD_ENTRY(n, acc, args, help) { #n, acc, args, help, cmd_##n },
static const struct ctl_cmd cmds[] = { CTL_COMMANDS(CTL_CMD_ENTRY) };
#undef CTL_CMD_ENTRY

const struct ctl_cmd *ctl_cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

size_t ctl_cmd_count(void)
{
	return sizeof(cmds) / sizeof(cmds[0]);
}

const struct ctl_cmd *ctl_cmd_at(size_t i)
{
	return i < ctl_cmd_count() ? &cmds[i] : NULL;
}
