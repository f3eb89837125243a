/*
 * DOC: the SA test fixture (see sa_fixture.h).
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/lids.h"
#include "sm/log.h"
#include "sm/mcdb.h"
#include "tests/unit/sa_fixture.h"

#define ACTIVE 4
#define DOWN 1

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 16;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

/* --- the fake environment --- */

static int env_send(void *arg, const uint8_t *msg, size_t len, const struct mad_addr *to)
{
	struct sa_fx *f = arg;
	struct sa_fx_sent *s;

	f->sent = grow(f->sent, &f->sent_cap, f->nsent, sizeof(*f->sent));
	s = &f->sent[f->nsent++];
	s->msg = malloc(len);
	if (!s->msg)
		abort();
	memcpy(s->msg, msg, len);
	s->len = len;
	s->to = *to;
	if (f->eng)
		return mad_engine_send_gsi(f->eng, msg, len, to);
	return f->send_rc;
}

static int env_smp(void *arg, const struct mad_req *r, mad_done_fn done, void *done_arg)
{
	struct sa_fx *f = arg;

	if (f->smp_rc)
		return f->smp_rc;
	f->smps = grow(f->smps, &f->smps_cap, f->nsmps, sizeof(*f->smps));
	f->smps[f->nsmps++] = (struct sa_fx_smp){ *r, done, done_arg };
	return 0;
}

static const struct sm_snap *env_snapshot(void *arg)
{
	return ((struct sa_fx *)arg)->snap;
}

static bool env_master(void *arg)
{
	return ((struct sa_fx *)arg)->master;
}

static size_t env_sm_list(void *arg, uint16_t *lids, struct smp_sm_info *infos, size_t max)
{
	struct sa_fx *f = arg;
	struct smp_sm_info *o = infos;

	if (max < 1)
		return 0;
	memset(o, 0, sizeof(*o));
	o->guid = f->b.t.nodes[f->sm_node].ports[1].guid;
	o->sm_key = SA_FX_SM_KEY;
	o->act_count = 42;
	o->priority = 5;
	o->sm_state = 3;
	lids[0] = f->b.t.nodes[f->sm_node].ports[1].lid;
	return 1;
}

static uint64_t env_now(void *arg)
{
	return ((struct sa_fx *)arg)->now;
}

/* --- the snapshot --- */

static void fill_ni(const struct topo_node *n, struct smp_node_info *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->base_version = 1;
	ni->class_version = 1;
	ni->node_type = n->type;
	ni->num_ports = n->nports;
	ni->sys_image_guid = n->guid;
	ni->node_guid = n->guid;
	ni->port_guid = n->ports[n->type == TOPO_SWITCH ? 0 : 1].guid;
	ni->partition_cap = 64;
	ni->device_id = 0x1003;
	ni->revision = 1;
	ni->local_port = 1;
	ni->vendor_id = 0x2c9;
}

static void fill_si(const struct sa_fx *f, struct smp_switch_info *si)
{
	memset(si, 0, sizeof(*si));
	si->lin_cap = 0xC000;
	si->mcast_cap = 1024;
	si->lin_top = f->rt.top;
	si->life_time_value = SA_FX_LTV;
	si->partition_enf_cap = 32;
}

static void fill_pi(const struct sa_fx *f, const struct topo_node *n, unsigned p, uint16_t sm_lid,
		    struct smp_port_info *pi)
{
	const struct topo_port *tp = &n->ports[p];
	bool sw = n->type == TOPO_SWITCH, up = (sw && !p) || topo_port_linked(tp);

	memset(pi, 0, sizeof(*pi));
	pi->mkey = 0x77;
	pi->gid_prefix = SA_FX_PREFIX;
	pi->lid = sw ? (p ? 0 : tp->lid) : tp->lid;
	pi->master_sm_lid = sm_lid;
	pi->cap_mask = sw ? (p ? 0 : 0xc048) : 0x0250c048;
	if (!sw && n == &f->b.t.nodes[f->sm_node] && p == 1)
		pi->cap_mask |= 0x2;   /* IsSM */
	pi->local_port = (uint8_t)p;
	pi->link_width_active = tp->width ? tp->width : 2;      /* 4x */
	pi->link_speed_active = tp->speed ? tp->speed : 4;      /* QDR */
	pi->port_state = up ? ACTIVE : DOWN;
	pi->phys_state = up ? 5 : 2;
	pi->lmc = sw ? 0 : tp->lmc;
	pi->neighbor_mtu = 4;
	pi->mtu_cap = 4;
	pi->vl_cap = 4;
	pi->vl_arb_high_cap = 8;
	pi->vl_arb_low_cap = 8;
	pi->oper_vls = 4;
	pi->guid_cap = sw ? 1 : 16;
	pi->subnet_timeout = 18;
}

static void fill_port(struct sa_fx *f, struct sm_snap *s, uint32_t i, unsigned p, uint16_t sm_lid)
{
	const struct topo_node *n = &f->b.t.nodes[i];
	struct snap_port *sp = &s->ports[s->nodes[i].port0 + p];
	bool sw = n->type == TOPO_SWITCH;

	sp->node = i;
	sp->num = (uint8_t)p;
	sp->peer = SNAP_NONE;
	sp->guid = sw ? (p ? 0 : n->guid) : (topo_port_linked(&n->ports[p]) ? n->ports[p].guid : 0);
	sp->lid = sw ? (p ? 0 : n->ports[0].lid) : n->ports[p].lid;
	sp->lmc = sw ? 0 : n->ports[p].lmc;
	sp->have_pi = true;
	fill_pi(f, n, p, sm_lid, &sp->pi);
}

struct sm_snap *sa_fx_snapshot(struct sa_fx *f)
{
	const struct topo *t = &f->b.t;
	uint16_t sm_lid = t->nodes[f->sm_node].ports[1].lid;
	uint32_t nports = 0, k = 0;
	struct sm_snap *s;

	for (uint32_t i = 0; i < t->nnodes; i++)
		nports += t->nodes[i].nports + 1u;
	s = snap_new(t->nnodes, nports);
	s->sweep = f->now + 1;
	s->subnet_prefix = SA_FX_PREFIX;
	s->sm_lid = sm_lid;
	s->sm_port_guid = t->nodes[f->sm_node].ports[1].guid;
	s->subnet_timeout = 18;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		struct snap_node *sn = &s->nodes[i];

		sn->guid = t->nodes[i].guid;
		fill_ni(&t->nodes[i], &sn->ni);
		snprintf(sn->desc, sizeof(sn->desc), "%s", t->nodes[i].desc);
		sn->is_switch = t->nodes[i].type == TOPO_SWITCH;
		sn->have_si = sn->is_switch;
		if (sn->is_switch)
			fill_si(f, &sn->si);
		sn->port0 = k;
		sn->nports = t->nodes[i].nports;
		k += t->nodes[i].nports + 1u;
	}
	for (uint32_t i = 0; i < t->nnodes; i++)
		for (unsigned p = 0; p <= t->nodes[i].nports; p++) {
			const struct topo_port *tp = &t->nodes[i].ports[p];

			fill_port(f, s, i, p, sm_lid);
			if (p && topo_port_linked(tp)) {
				s->ports[s->nodes[i].port0 + p].peer = s->nodes[tp->peer_node].port0 +
								       tp->peer_port;
				s->ports[s->nodes[i].port0 + p].peer_port = tp->peer_port;
			}
		}
	snap_index(s);
	s->rt = &f->rt;
	return s;
}

void sa_fx_publish(struct sa_fx *f, struct sm_snap *s)
{
	sm_snap_unref(f->snap);
	f->snap = s;
}

struct snap_port *sa_fx_port(const struct sa_fx *f, uint32_t n, unsigned p)
{
	return &f->snap->ports[f->snap->nodes[n].port0 + p];
}

static uint32_t nth(const struct sa_fx *f, unsigned i, uint8_t type)
{
	for (uint32_t n = 0; n < f->b.t.nnodes; n++)
		if (f->b.t.nodes[n].type == type && !i--)
			return n;
	abort();
}

uint32_t sa_fx_ca(const struct sa_fx *f, unsigned i)
{
	return nth(f, i, TOPO_CA);
}

uint32_t sa_fx_switch(const struct sa_fx *f, unsigned i)
{
	return nth(f, i, TOPO_SWITCH);
}

unsigned sa_fx_nswitches(const struct sa_fx *f)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < f->b.t.nnodes; i++)
		n += f->b.t.nodes[i].type == TOPO_SWITCH;
	return n;
}

unsigned sa_fx_nends(const struct sa_fx *f)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < f->b.t.nnodes; i++) {
		const struct topo_node *nd = &f->b.t.nodes[i];

		if (nd->type == TOPO_SWITCH) {
			n++;
			continue;
		}
		for (unsigned p = 1; p <= nd->nports; p++)
			n += topo_port_linked(&nd->ports[p]);
	}
	return n;
}

unsigned sa_fx_nlinks(const struct sa_fx *f)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < f->b.t.nnodes; i++)
		for (unsigned p = 1; p <= f->b.t.nodes[i].nports; p++)
			n += topo_port_linked(&f->b.t.nodes[i].ports[p]);
	return n / 2;
}

/* --- life cycle --- */

static void build(struct sa_fx *f, const char *shape, unsigned k, uint8_t lmc)
{
	static const unsigned dims[2] = { 4, 4 };
	struct route_opts ro = { .engine = NULL };
	char err[256];

	tb_init(&f->b);
	if (!strcmp(shape, "ft3"))
		tb_ft3(&f->b, k);
	else if (!strcmp(shape, "torus"))
		tb_torus(&f->b, dims, 2, k);
	else
		tb_ft2(&f->b, k);
	if (topo_fill_lids(&f->b.t, lmc, err, sizeof(err)) < 0 ||
	    route_compute(&f->b.t, &ro, &f->rt) < 0) {
		fprintf(stderr, "fixture: %s %s\n", err, f->rt.why);
		abort();
	}
}

/* --- multicast: a real group database over the snapshot --- */

static const uint16_t default_keys[] = { 0xFFFF };

static bool mc_lookup(void *arg, uint64_t guid, struct mc_port *out)
{
	struct sa_fx *f = arg;
	const struct snap_port *p = snap_port_by_guid(f->snap, guid);

	if (!p || !p->have_pi || p->pi.port_state != TOPO_PORT_ACTIVE)
		return false;
	out->pkeys = f->snap->have_parts ? snap_port_pkeys(f->snap, p, &out->npkeys) : default_keys;
	if (!f->snap->have_parts)
		out->npkeys = 1;
	out->mtu = p->pi.neighbor_mtu;
	out->rate = mc_link_rate(p->pi.link_width_active, p->pi.link_speed_active,
				 p->pi.link_speed_ext_active, p->pi.cap_mask);
	return true;
}

static void mc_notice(void *arg, uint16_t trap, const uint8_t mgid[16], uint16_t pkey)
{
	sa_report_mcast(((struct sa_fx *)arg)->sa, trap, mgid, pkey);
}

static uint16_t env_mc_join(void *arg, const struct mc_who *who,
			    const struct sa_mcmember_rec *req, uint64_t mask,
			    struct sa_mcmember_rec *resp)
{
	return mcdb_join(((struct sa_fx *)arg)->mc, who, req, mask, resp);
}

static uint16_t env_mc_leave(void *arg, const struct mc_who *who,
			     const struct sa_mcmember_rec *req, uint64_t mask,
			     struct sa_mcmember_rec *resp)
{
	return mcdb_leave(((struct sa_fx *)arg)->mc, who, req, mask, resp);
}

static uint16_t env_mc_query(void *arg, const struct mc_who *who,
			     const struct sa_mcmember_rec *tmpl, uint64_t mask,
			     int (*fn)(void *, const struct sa_mcmember_rec *), void *fn_arg,
			     size_t *count)
{
	return mcdb_query(((struct sa_fx *)arg)->mc, who, tmpl, mask, fn, fn_arg, count);
}

static struct sa *new_sa(struct sa_fx *f)
{
	struct sa_env env = {
		.arg = f, .send = env_send, .smp = env_smp, .snapshot = env_snapshot,
		.master = env_master, .sm_list = env_sm_list, .now_ms = env_now,
	};

	if (f->mc) {
		env.mc_join = env_mc_join;
		env.mc_leave = env_mc_leave;
		env.mc_query = env_mc_query;
	}
	return sa_new(&env, &f->conf);
}

static void cancel_smps(struct sa_fx *f)
{
	/* an engine going away cancels what is outstanding */
	for (size_t i = 0; i < f->nsmps; i++)
		f->smps[i].done(f->smps[i].arg, MAD_ERR_CANCELED, NULL);
	f->nsmps = 0;
}

static void forget_sent(struct sa_fx *f)
{
	for (size_t i = 0; i < f->nsent; i++)
		free(f->sent[i].msg);
	f->nsent = 0;
}

void sa_fx_reset(struct sa_fx *f)
{
	cancel_smps(f);
	sa_free(f->sa);
	forget_sent(f);
	f->sa = new_sa(f);
}

void sa_fx_multicast(struct sa_fx *f)
{
	struct mcdb_opts o = {
		.subnet_prefix = SA_FX_PREFIX, .pkt_life = 18, .mlid_top = 0xC000 + 1023,
		.port = mc_lookup, .port_arg = f, .notice = mc_notice, .notice_arg = f,
	};

	if (!f->mc)
		f->mc = mcdb_new(&o);
	sa_fx_reset(f);
}

void sa_fx_pkeys(struct sm_snap *s, uint32_t n, unsigned p, const uint16_t *keys, size_t nk)
{
	struct snap_port *sp = &s->ports[s->nodes[n].port0 + p];
	size_t used = 0;

	if (!s->have_parts) {
		s->have_parts = true;
		s->sl_ok = 0xFFFF;
	}
	for (uint32_t i = 0; i < s->nports; i++)
		if (s->ports[i].npkeys && s->ports[i].pkey_first + s->ports[i].npkeys > used)
			used = s->ports[i].pkey_first + s->ports[i].npkeys;
	s->pkeys = xrealloc(s->pkeys, (used + nk + 1) * sizeof(*s->pkeys));
	memcpy(s->pkeys + used, keys, nk * sizeof(*keys));
	sp->pkey_first = (uint32_t)used;
	sp->npkeys = (uint16_t)nk;
}

void sa_fx_part_sl(struct sm_snap *s, uint16_t pkey, int8_t sl)
{
	uint32_t i = s->nparts;

	s->parts = xrealloc(s->parts, (s->nparts + 1) * sizeof(*s->parts));
	while (i > 0 && s->parts[i - 1].pkey > (pkey & 0x7FFF)) {
		s->parts[i] = s->parts[i - 1];
		i--;
	}
	s->parts[i].pkey = pkey & 0x7FFF;
	s->parts[i].sl = sl;
	s->nparts++;
}

void sa_fx_init(struct sa_fx *f, const char *shape, unsigned k, uint8_t lmc)
{
	memset(f, 0, sizeof(*f));
	build(f, shape, k, lmc);
	f->sm_node = sa_fx_ca(f, 0);
	f->master = true;
	f->now = 1000;
	f->next_tid = 0x1000;
	sa_conf_default(&f->conf);
	f->conf.sa_key = SA_FX_SA_KEY;
	f->conf.max_records = 65536;
	f->conf.max_services = 1024;   /* a test fills it: each Set scans the table */
	f->snap = sa_fx_snapshot(f);
	f->sa = new_sa(f);
}

void sa_fx_free(struct sa_fx *f)
{
	cancel_smps(f);
	sa_free(f->sa);
	mcdb_free(f->mc);
	sm_snap_unref(f->snap);
	route_tables_free(&f->rt);
	topo_free_all(&f->b.t);
	forget_sent(f);
	free(f->sent);
	free(f->smps);
}

/* --- requests and answers --- */

size_t sa_fx_mad(struct sa_fx *f, uint8_t *buf, uint8_t method, uint16_t attr, uint32_t mod,
		 uint64_t mask, const void *tmpl, size_t tlen, uint64_t sm_key)
{
	struct sa_hdr h;

	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = SA_CLASS_VERSION;
	h.hdr.method = method;
	h.hdr.tid = f->next_tid++;
	h.hdr.attr_id = attr;
	h.hdr.attr_mod = mod;
	h.sm_key = sm_key;
	h.comp_mask = mask;
	memset(buf, 0, SA_HDR_SIZE + (tlen > SA_DATA_SIZE ? tlen : SA_DATA_SIZE));
	sa_hdr_encode(&h, buf, SA_HDR_SIZE);
	if (tmpl)
		memcpy(buf + SA_HDR_SIZE, tmpl, tlen);
	return SA_HDR_SIZE + (tlen > SA_DATA_SIZE ? tlen : SA_DATA_SIZE);
}

size_t sa_fx_send(struct sa_fx *f, const uint8_t *mad, size_t len, uint16_t slid)
{
	struct mad_addr from = { .dlid = slid, .qpn = 1, .qkey = MAD_QKEY_GSI };
	size_t before = f->nsent;

	sa_recv(f->sa, mad, len, 0, &from);
	return f->nsent - before;
}

size_t sa_fx_req(struct sa_fx *f, uint8_t method, uint16_t attr, uint64_t mask,
		 const void *tmpl, size_t tlen)
{
	uint8_t buf[SA_HDR_SIZE + 4096];
	size_t len = sa_fx_mad(f, buf, method, attr, 0, mask, tmpl, tlen, 0);

	return sa_fx_send(f, buf, len, f->b.t.nodes[f->sm_node].ports[1].lid);
}

bool sa_fx_last(const struct sa_fx *f, struct sa_fx_resp *r)
{
	const struct sa_fx_sent *s;

	memset(r, 0, sizeof(*r));
	if (!f->nsent)
		return false;
	s = &f->sent[f->nsent - 1];
	if (sa_hdr_decode(s->msg, s->len, &r->h) < 0)
		return false;
	r->data = s->msg + SA_HDR_SIZE;
	r->dlen = s->len - SA_HDR_SIZE;
	r->stride = (size_t)r->h.attr_offset * 8;
	r->to = s->to;
	if (r->h.hdr.status)
		r->n = 0;
	else if (r->h.hdr.method == SA_METHOD_GET_TABLE_RESP ||
		 r->h.hdr.method == SA_METHOD_GET_MULTI_RESP)
		r->n = r->stride ? r->dlen / r->stride : 0;
	else
		r->n = 1;
	return true;
}

const uint8_t *sa_fx_rec(const struct sa_fx_resp *r, size_t i)
{
	return r->data + i * r->stride;
}

/* --- what ports hold --- */

static bool model_guid(const struct snap_port *p, const struct snap_node *n, uint32_t block,
		       uint8_t *data)
{
	uint64_t g = htobe64(p->guid);

	if (block * 8 >= p->pi.guid_cap)
		return false;
	if (block == 0)
		memcpy(data, &g, 8);
	return true;
}

static bool model_pkey(const struct snap_node *n, uint32_t mod, uint8_t *data)
{
	unsigned port = n->is_switch ? mod >> 16 : 0, block = mod & 0xFFFF;
	unsigned size = n->is_switch && port ? n->si.partition_enf_cap : n->ni.partition_cap;

	if (block * 32 >= size)
		return false;
	if (block == 0) {
		data[0] = data[1] = 0xFF;   /* the default P_Key */
		data[2] = 0x80;
		data[3] = (uint8_t)port;    /* and one that says which port */
	}
	return true;
}

static bool model_vlarb(uint32_t mod, uint8_t *data)
{
	unsigned block = mod >> 16;

	/* caps 8 and 8: blocks 1 and 3 only */
	if (block != 1 && block != 3)
		return false;
	for (unsigned i = 0; i < 32; i++) {
		data[2 * i] = i & 7;
		data[2 * i + 1] = (uint8_t)(block * 10 + i);
	}
	return true;
}

bool sa_fx_model(const struct sa_fx *f, uint16_t dlid, uint16_t attr, uint32_t mod,
		 uint8_t data[64])
{
	const struct snap_port *p = snap_port_by_lid(f->snap, dlid);
	const struct snap_node *n = p ? snap_node_of(f->snap, p) : NULL;

	memset(data, 0, 64);
	if (!p)
		return false;
	switch (attr) {
	case 0x14: return model_guid(p, n, mod, data);
	case 0x16: return model_pkey(n, mod, data);
	case 0x17:
		for (unsigned i = 0; i < 8; i++)
			data[i] = (uint8_t)((((mod >> 8) + i) & 0xF) << 4 | ((mod + i) & 0xF));
		return true;
	case 0x18: return model_vlarb(mod, data);
	default: return false;
	}
}

size_t sa_fx_answer_smps(struct sa_fx *f)
{
	size_t n = f->nsmps;
	struct sa_fx_smp *q = malloc((n ? n : 1) * sizeof(*q));

	if (!q)
		abort();
	if (n)   /* f->smps is NULL before the first SMP */
		memcpy(q, f->smps, n * sizeof(*q));
	f->nsmps = 0;   /* answers may queue more */
	for (size_t i = 0; i < n; i++) {
		struct smp resp;

		memset(&resp, 0, sizeof(resp));
		resp.hdr.attr_id = q[i].r.attr_id;
		resp.hdr.attr_mod = q[i].r.attr_mod;
		if (q[i].r.dlid == f->dead_lid)
			q[i].done(q[i].arg, MAD_ERR_TIMEOUT, NULL);
		else if (sa_fx_model(f, q[i].r.dlid, q[i].r.attr_id, q[i].r.attr_mod, resp.data))
			q[i].done(q[i].arg, MAD_OK, &resp);
		else {
			resp.hdr.status = 0x1C;
			q[i].done(q[i].arg, MAD_ERR_STATUS, &resp);
		}
	}
	free(q);
	return n;
}
