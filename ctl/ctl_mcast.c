/*
 * DOC: control commands for multicast and the table phases: "mcast"
 * (groups, their members and trees), "mcast_join" / "mcast_leave" (the SM
 * joins or removes ports, as an SA request from the SM itself would),
 * "tables" (P_Key, QoS and multicast counters), and "path" towards an MLID
 * (the tree as the MFTs the switches hold spread a packet from the
 * source).
 *
 * Groups are named by MGID (IPv6 text) or MLID (0xc000..0xfffe or
 * 49152..65534); ports by port GUID, node GUID or NodeDescription (a
 * CA's first linked port), several separated by commas, or "all" for
 * every active CA port.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_out.h"
#include "ctl/ctl_int.h"
#include "lib/log.h"
#include "sm/mcast.h"
#include "sm/pkey.h"
#include "sm/qos.h"
#include "sm/sm.h"
#include "sm/snap_build.h"

#define MAX_PATH_HOPS 4096

/* --- names ---------------------------------------------------------------------------- */

static json_object *jmgid(const uint8_t mgid[16])
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, mgid, buf, sizeof(buf));
	return JSTR(buf);
}

static json_object *jhex16(unsigned v)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "0x%04x", v & 0xffff);
	return JSTR(buf);
}

/* An MLID in hex (4 digits) or decimal, or 0. */
static uint16_t parse_mlid(const char *s)
{
	char *end;
	unsigned long v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (strlen(s) != 6)
			return 0;
		v = strtoul(s + 2, &end, 16);
	} else if (isdigit((unsigned char)s[0])) {
		v = strtoul(s, &end, 10);
	} else {
		return 0;
	}
	return *end || v < MCAST_MLID_MIN || v > MCAST_MLID_MAX ? 0 : (uint16_t)v;
}

bool ctl_mcast_is_mlid(const char *s)
{
	return parse_mlid(s) != 0;
}

static const struct mc_group *find_group(struct ctl_call *c, const char *s)
{
	const struct mcdb *db = sm_mcast_db(c->sm);
	const struct mc_group *g = NULL;
	uint8_t mgid[16];
	uint16_t mlid = parse_mlid(s);

	if (mlid)
		g = mcdb_by_mlid(db, mlid);
	else if (inet_pton(AF_INET6, s, mgid) == 1)
		g = mcdb_find(db, mgid);
	else {
		ctl_fail(c, CTL_E_invalid_args, "\"%.64s\" is neither an MGID nor an MLID", s);
		return NULL;
	}
	if (!g)
		ctl_fail(c, CTL_E_not_found, "no multicast group \"%.64s\"", s);
	return g;
}

/* --- the group list and one group ------------------------------------------------- */

static json_object *tree_summary(const struct sm *sm, uint16_t mlid)
{
	const struct mcast_tsw *tsw;
	const struct mcast_tree *t = sm_mcast_tree(sm, mlid, &tsw);
	json_object *o;

	if (!t)
		return NULL;
	o = json_object_new_object();
	ADD(o, "root", t->root == TOPO_NONE ? NULL : jguid(t->root_guid));
	ADD(o, "switches", JINT(t->nsw));
	ADD(o, "depth", JINT(t->depth));
	ADD(o, "members_reached", JINT(t->nmembers));
	ADD(o, "members_missed", JINT(t->nmiss));
	return o;
}

static json_object *group_json(const struct sm *sm, const struct mc_group *g)
{
	json_object *o = json_object_new_object();
	const struct sa_mcmember_rec *r = &g->rec;

	ADD(o, "mgid", jmgid(r->mgid));
	ADD(o, "mlid", jhex16(r->mlid));
	ADD(o, "pkey", jhex16(r->pkey));
	ADD(o, "qkey", jhex16(r->qkey));
	ADD(o, "mtu", JINT(r->mtu));
	ADD(o, "rate", JINT(r->rate));
	ADD(o, "sl", JINT(r->sl));
	ADD(o, "scope", JINT(r->scope));
	ADD(o, "well_known", json_object_new_boolean(g->well_known));
	ADD(o, "members", JINT(g->nmembers));
	ADD(o, "full_members", JINT(g->nfull));
	ADD(o, "tree", tree_summary(sm, r->mlid));
	return o;
}

static json_object *member_json(const struct sm_snap *s, const struct mc_member *m)
{
	json_object *o = json_object_new_object();
	const struct snap_port *p = s ? snap_port_by_guid(s, m->guid) : NULL;

	ADD(o, "guid", jguid(m->guid));
	ADD(o, "join_state", JINT(m->join_state));
	ADD(o, "proxy", json_object_new_boolean(m->proxy));
	ADD(o, "desc", p ? JSTR(snap_node_of(s, p)->desc) : NULL);
	ADD(o, "port", p ? JINT(p->num) : NULL);
	return o;
}

/* Ports of switch guid whose bit mlid has in what the switch holds. */
static json_object *held_ports(const struct sm *sm, uint64_t guid, uint16_t mlid)
{
	const struct mcast_mft *m = sm_mcast_held(sm, guid);
	const uint16_t *w = m ? mcast_mft_find(m, mlid) : NULL;
	json_object *a = json_object_new_array();

	for (unsigned p = 0; w && p < (unsigned)m->npos * 16; p++)
		if ((w[p / 16] >> (p % 16)) & 1)
			json_object_array_add(a, JINT(p));
	return a;
}

static json_object *tree_json(const struct sm *sm, uint16_t mlid)
{
	const struct mcast_tsw *tsw;
	const struct mcast_tree *t = sm_mcast_tree(sm, mlid, &tsw);
	const struct sm_snap *s = sm_snap_current(sm);
	json_object *a = json_object_new_array();

	for (uint32_t i = 0; t && i < t->nsw; i++) {
		const struct mcast_tsw *e = &tsw[t->first + i];
		const struct snap_node *n = s ? snap_node_by_guid(s, e->guid) : NULL;
		json_object *o = json_object_new_object();

		ADD(o, "guid", jguid(e->guid));
		ADD(o, "desc", n ? JSTR(n->desc) : NULL);
		ADD(o, "depth", JINT(e->depth));
		ADD(o, "up_port", e->up ? JINT(e->up) : NULL);
		ADD(o, "ports", held_ports(sm, e->guid, mlid));
		json_object_array_add(a, o);
	}
	return a;
}

static enum ctl_ret one_group(struct ctl_call *c, const char *name, json_object **res)
{
	const struct mc_group *g = find_group(c, name);
	const struct sm_snap *s = sm_snap_current(c->sm);
	json_object *m;

	if (!g)
		return CTL_ERROR;
	*res = group_json(c->sm, g);
	m = json_object_new_array();
	for (uint32_t i = 0; i < g->nmembers; i++)
		json_object_array_add(m, member_json(s, &g->members[i]));
	ADD(*res, "member_list", m);
	ADD(*res, "tree_switches", tree_json(c->sm, g->rec.mlid));
	return CTL_DONE;
}

enum ctl_ret cmd_mcast(struct ctl_call *c, json_object **res)
{
	const struct mcdb *db = sm_mcast_db(c->sm);
	const char *name = NULL;
	json_object *a;
	int r = ctl_arg_str(c, "group", &name);

	if (r < 0)
		return CTL_ERROR;
	if (r)
		return one_group(c, name, res);
	a = json_object_new_array();
	for (size_t i = 0; i < mcdb_count(db); i++)
		json_object_array_add(a, group_json(c->sm, mcdb_at(db, i)));
	*res = json_object_new_object();
	ADD(*res, "groups", a);
	ADD(*res, "stats", sm_mcast_stats_json(c->sm));
	return CTL_DONE;
}

enum ctl_ret cmd_tables(struct ctl_call *c, json_object **res)
{
	*res = json_object_new_object();
	ADD(*res, "partitions", sm_pkey_json(c->sm));
	ADD(*res, "qos", sm_qos_json(c->sm));
	ADD(*res, "multicast", sm_mcast_stats_json(c->sm));
	return CTL_DONE;
}

/* --- joins and leaves by the SM ---------------------------------------------------- */

static uint64_t node_port(const struct sm_snap *s, const struct snap_node *n)
{
	for (unsigned k = 1; k <= n->nports && !n->is_switch; k++) {
		const struct snap_port *p = snap_port(s, n, k);

		if (p->guid && p->peer != SNAP_NONE)
			return p->guid;
	}
	return n->is_switch ? snap_port(s, n, 0)->guid : 0;
}

/* One port name to a port GUID, 0 when unknown. */
static uint64_t port_guid(const struct sm_snap *s, const char *name)
{
	const struct snap_node *n;
	char *end;

	if (name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
		uint64_t g = strtoull(name, &end, 16);

		if (*end)
			return 0;
		if (snap_port_by_guid(s, g))
			return g;
		n = snap_node_by_guid(s, g);
		return n ? node_port(s, n) : 0;
	}
	for (uint32_t i = 0; i < s->nnodes; i++)
		if (!strcmp(s->nodes[i].desc, name))
			return node_port(s, &s->nodes[i]);
	return 0;
}

static void all_ca_ports(const struct sm_snap *s, uint64_t **v, size_t *n)
{
	*v = xcalloc(s->nports + 1, sizeof(**v));
	*n = 0;
	for (uint32_t i = 0; i < s->nports; i++) {
		const struct snap_port *p = &s->ports[i];

		if (p->num && p->guid && !snap_node_of(s, p)->is_switch &&
		    p->pi.port_state == TOPO_PORT_ACTIVE)
			(*v)[(*n)++] = p->guid;
	}
}

/* The port list; NULL with c->err set when a name is unknown. */
static uint64_t *parse_ports(struct ctl_call *c, const struct sm_snap *s, const char *list,
			     size_t *n)
{
	uint64_t *v;
	char *dup, *tok, *save = NULL;

	if (!strcmp(list, "all")) {
		all_ca_ports(s, &v, n);
		return v;
	}
	v = xcalloc(strlen(list) / 2 + 2, sizeof(*v));
	dup = xstrdup(list);
	*n = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!(v[*n] = port_guid(s, tok))) {
			ctl_fail(c, CTL_E_not_found, "no port \"%.64s\"", tok);
			free(v);
			free(dup);
			return NULL;
		}
		(*n)++;
	}
	free(dup);
	return v;
}

static int join_state_arg(struct ctl_call *c, uint8_t *js)
{
	static const struct { const char *name; uint8_t js; } names[] = {
		{ "full", MC_JOIN_FULL }, { "non", MC_JOIN_NON },
		{ "sendonly", MC_JOIN_SENDONLY_NON }, { "sendonly_full", MC_JOIN_SENDONLY_FULL },
	};
	const char *s = NULL;

	*js = MC_JOIN_FULL;
	if (ctl_arg_str(c, "state", &s) < 0)
		return -1;
	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*js = names[i].js;
			return 0;
		}
	if (s) {
		ctl_fail(c, CTL_E_invalid_args, "state must be full, non, sendonly or sendonly_full");
		return -1;
	}
	return 0;
}

/* The request record for port guid: a group that does not exist is
 * created in partition pkey (default 0xffff), Q_Key 0x0b1b. */
static uint64_t request(const uint8_t mgid[16], uint64_t prefix, uint64_t guid, uint8_t js,
			uint16_t pkey, bool exists, struct sa_mcmember_rec *r)
{
	uint64_t p = htobe64(prefix), g = htobe64(guid);

	memset(r, 0, sizeof(*r));
	memcpy(r->mgid, mgid, 16);
	memcpy(r->port_gid, &p, 8);
	memcpy(r->port_gid + 8, &g, 8);
	r->join_state = js;
	r->pkey = pkey;
	r->qkey = 0x0b1b;
	return exists ? MCM_JOIN_MASK : MCM_CREATE_MASK;
}

static const char *status_name(uint16_t st)
{
	switch (st) {
	case SA_STATUS_NO_RESOURCES: return "ERR_NO_RESOURCES";
	case SA_STATUS_REQ_INVALID: return "ERR_REQ_INVALID";
	case SA_STATUS_INVALID_GID: return "ERR_REQ_INVALID_GID";
	case SA_STATUS_INSUF_COMPS: return "ERR_REQ_INSUFFICIENT_COMPONENTS";
	default: return "error";
	}
}

struct jl_args {
	uint8_t mgid[16];
	uint8_t js;
	uint16_t pkey;
	uint64_t *ports;
	size_t n;
};

static int jl_parse(struct ctl_call *c, struct jl_args *a)
{
	const char *g = NULL, *p = NULL, *k = NULL;
	const struct sm_snap *s = sm_snap_current(c->sm);

	if (!s)
		return ctl_fail(c, CTL_E_not_ready, "no fabric yet: the first sweep is not done"), -1;
	if (ctl_arg_str(c, "group", &g) < 0 || ctl_arg_str(c, "ports", &p) < 0 ||
	    ctl_arg_str(c, "pkey", &k) < 0 || join_state_arg(c, &a->js) < 0)
		return -1;
	if (inet_pton(AF_INET6, g, a->mgid) != 1)
		return ctl_fail(c, CTL_E_invalid_args, "\"%.64s\" is not an MGID", g), -1;
	a->pkey = k ? (uint16_t)strtoul(k, NULL, 0) : 0xffff;
	a->ports = parse_ports(c, s, p, &a->n);
	return a->ports ? 0 : -1;
}

static enum ctl_ret join_leave(struct ctl_call *c, json_object **res, bool join)
{
	struct mc_who who = { .requester = 0, .trusted = true };
	struct sa_mcmember_rec r, resp;
	json_object *errs = json_object_new_array();
	struct jl_args a;
	size_t ok = 0;

	if (jl_parse(c, &a) < 0) {
		json_object_put(errs);
		return CTL_ERROR;
	}
	for (size_t i = 0; i < a.n; i++) {
		bool exists = mcdb_find(sm_mcast_db(c->sm), a.mgid) != NULL;
		uint64_t mask = request(a.mgid, c->sm->conf.subnet_prefix, a.ports[i], a.js, a.pkey,
					exists, &r);
		uint16_t st = join ? sm_mcast_join(c->sm, &who, &r, mask, &resp) :
				     sm_mcast_leave(c->sm, &who, &r, MCM_JOIN_MASK, &resp);
		json_object *e;

		if (!st) {
			ok++;
			continue;
		}
		e = json_object_new_object();
		ADD(e, "port", jguid(a.ports[i]));
		ADD(e, "status", JSTR(status_name(st)));
		json_object_array_add(errs, e);
	}
	free(a.ports);
	*res = json_object_new_object();
	ADD(*res, join ? "joined" : "left", JINT(ok));
	ADD(*res, "refused", errs);
	return CTL_DONE;
}

enum ctl_ret cmd_mcast_join(struct ctl_call *c, json_object **res)
{
	return join_leave(c, res, true);
}

enum ctl_ret cmd_mcast_leave(struct ctl_call *c, json_object **res)
{
	return join_leave(c, res, false);
}

/* --- path to an MLID -------------------------------------------------------------- */

struct mwalk {
	const struct sm *sm;
	uint16_t mlid;
	json_object *hops, *reached;
	uint64_t *got;             /* port GUIDs reached */
	size_t ngot;
	const char *problem;
	unsigned nhops;
	const struct sm_node **seen;
	size_t nseen;
};

static bool mask_has(const struct sm *sm, const struct sm_node *n, uint16_t mlid, unsigned p)
{
	const struct mcast_mft *m = sm_mcast_held(sm, n->guid);
	const uint16_t *w = m ? mcast_mft_find(m, mlid) : NULL;

	return w && p / 16 < m->npos && ((w[p / 16] >> (p % 16)) & 1);
}

static bool seen_before(struct mwalk *w, const struct sm_node *n)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i] == n)
			return true;
	w->seen = xrealloc(w->seen, (w->nseen + 1) * sizeof(*w->seen));
	w->seen[w->nseen++] = n;
	return false;
}

static void reached(struct mwalk *w, const struct sm_port *p)
{
	json_object *o = json_object_new_object();

	ADD(o, "guid", jguid(p->guid));
	ADD(o, "desc", JSTR(p->node->desc));
	ADD(o, "port", JINT(p->num));
	json_object_array_add(w->reached, o);
	w->got = xrealloc(w->got, (w->ngot + 1) * sizeof(*w->got));
	w->got[w->ngot++] = p->guid;
}

/* Receiving members (not send-only, not the source) the walk missed. */
static json_object *missed(const struct mwalk *w, const struct mc_group *g, uint64_t src)
{
	json_object *a = json_object_new_array();

	for (uint32_t i = 0; g && i < g->nmembers; i++) {
		const struct mc_member *m = &g->members[i];
		bool found = m->guid == src || !(m->join_state & ~MC_JOIN_SENDONLY);

		for (size_t k = 0; k < w->ngot && !found; k++)
			found = w->got[k] == m->guid;
		if (!found)
			json_object_array_add(a, jguid(m->guid));
	}
	return a;
}

/* The packet enters switch n at port in: it leaves at every port of the
 * MLID's mask but in: a packet floods the tree. */
static void visit(struct mwalk *w, const struct sm_node *n, unsigned in)
{
	json_object *hop = json_object_new_object(), *outs = json_object_new_array();

	if (seen_before(w, n) || ++w->nhops > MAX_PATH_HOPS) {
		w->problem = "a switch is reached twice: the tree has a loop";
		json_object_put(hop);
		json_object_put(outs);
		return;
	}
	ADD(hop, "guid", jguid(n->guid));
	ADD(hop, "desc", JSTR(n->desc));
	ADD(hop, "in_port", JINT(in));
	ADD(hop, "out_ports", outs);
	json_object_array_add(w->hops, hop);
	for (unsigned p = 1; p <= n->ni.num_ports; p++) {
		const struct sm_port *q = n->ports[p].peer;

		if (p == in || !mask_has(w->sm, n, w->mlid, p))
			continue;
		json_object_array_add(outs, JINT(p));
		if (!q)
			continue;
		if (node_is_switch(q->node))
			visit(w, q->node, q->num);
		else
			reached(w, q);
	}
}

enum ctl_ret ctl_mcast_path(struct ctl_call *c, const struct sm_node *src, const char *dst,
			    json_object **res)
{
	struct mwalk w = { .sm = c->sm, .mlid = parse_mlid(dst) };
	const struct mc_group *g = mcdb_by_mlid(sm_mcast_db(c->sm), w.mlid);
	const struct sm_port *up = NULL;
	json_object *miss;

	for (unsigned k = 1; !node_is_switch(src) && k <= src->ni.num_ports && !up; k++)
		if (src->ports[k].peer)
			up = &src->ports[k];
	w.hops = json_object_new_array();
	w.reached = json_object_new_array();
	if (node_is_switch(src))
		visit(&w, src, 0);
	else if (up)
		visit(&w, up->peer->node, up->peer->num);
	else
		w.problem = "the source has no link";
	miss = missed(&w, g, up ? up->guid : 0);
	if (!w.problem && json_object_array_length(miss))
		w.problem = "members not reached";
	free(w.seen);
	free(w.got);
	*res = json_object_new_object();
	ADD(*res, "src", jguid(src->guid));
	ADD(*res, "mlid", jhex16(w.mlid));
	ADD(*res, "group", g ? jmgid(g->rec.mgid) : NULL);
	ADD(*res, "complete", json_object_new_boolean(!w.problem));
	ADD(*res, "problem", w.problem ? JSTR(w.problem) : NULL);
	ADD(*res, "switches", w.hops);
	ADD(*res, "reached", w.reached);
	ADD(*res, "missed", miss);
	return CTL_DONE;
}
