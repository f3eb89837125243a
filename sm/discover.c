/*
 * DOC: directed-route discovery.
 *
 * Every query carries a small context (which node and port it is about).
 * The discovery is finished when its last outstanding query completes; then
 * shortest DR paths are recomputed over the discovered links, since answers
 * arrive in any order and the first path that reached a node need not be the
 * shortest. IBA 14.2.2 (directed route SMPs), 14.2.5.3 (NodeInfo).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/discover.h"
#include "lib/log.h"
#include "lib/pool.h"

struct discover {
	struct mad_engine *eng;
	struct sm_fabric *f;
	uint64_t mkey;
	unsigned pending;
	bool aborted;
	discover_done_fn done;
	void *done_arg;
	struct discover_stats st;
	struct pool queries;    /* struct query, one per SMP */
};

enum query_kind { Q_NODE_INFO, Q_NODE_DESC, Q_SWITCH_INFO, Q_PORT_INFO };

struct query {
	struct discover *d;
	enum query_kind kind;
	struct sm_node *node;     /* target node (NULL for a NodeInfo to a new one) */
	uint8_t port;             /* PortInfo port; for NodeInfo: exit port of node */
};

/* A CA answers for the port an SMP arrived on (it may refuse a Set for
 * another port, IBA 14.2.5.6), so a CA port is always addressed along the
 * path that reached it: its neighbour's path plus one hop. */

static void query_done(void *arg, int err, const struct smp *resp);

static struct query *query_new(struct discover *d)
{
	return pool_get(&d->queries, sizeof(struct query));
}

static void discover_free(struct discover *d)
{
	pool_drain(&d->queries);
	free(d);
}

/* Names for the log and status: known once every NodeDescription is in. */
static void name_conflicts(struct sm_fabric *f)
{
	for (uint32_t i = 0; i < f->nconflicts; i++) {
		struct sm_conflict *c = &f->conflicts[i];
		const struct sm_node *a = fabric_find(f, c->known.via);
		const struct sm_node *b = fabric_find(f, c->other.via);

		if (a)
			memcpy(c->known.via_desc, a->desc, sizeof(c->known.via_desc));
		if (b)
			memcpy(c->other.via_desc, b->desc, sizeof(c->other.via_desc));
	}
}

static void finish_if_idle(struct discover *d)
{
	if (d->pending || d->aborted)
		return;
	name_conflicts(d->f);
	fabric_shortest_paths(d->f);
	if (!d->f->sm_node) {
		fabric_free(d->f);
		d->f = NULL;
	}
	d->done(d->done_arg, d->f, &d->st);
	discover_free(d);
}

static void submit(struct discover *d, struct query *q, const struct mad_req *r)
{
	q->d = d;
	if (mad_engine_submit(d->eng, r, query_done, q) < 0) {
		log_warnx("discovery: SMP queue full, query dropped");
		d->st.failed++;
		pool_put(&d->queries, q);
		return;
	}
	d->pending++;
	d->st.submitted++;
}

/* A DR Get along path[1..hops] (plus one more hop `extra` if non-zero). */
static void dr_get(struct discover *d, const struct sm_node *via, uint8_t extra,
		   uint16_t attr, uint32_t mod, struct query *q)
{
	struct mad_req r;

	memset(&r, 0, sizeof(r));
	r.mgmt_class = MAD_CLASS_SMI_DR;
	r.method = MAD_METHOD_GET;
	r.attr_id = attr;
	r.attr_mod = mod;
	r.mkey = d->mkey;
	r.dlid = LID_PERMISSIVE;
	if (via) {
		memcpy(r.path, via->path, sizeof(r.path));
		r.hop_cnt = via->hop_cnt;
	}
	if (extra)
		r.path[++r.hop_cnt] = extra;
	submit(d, q, &r);
}

static void query(struct discover *d, struct sm_node *n, enum query_kind kind, uint8_t port)
{
	static const uint16_t attr[] = {
		[Q_NODE_INFO] = SMP_ATTR_NODE_INFO, [Q_NODE_DESC] = SMP_ATTR_NODE_DESC,
		[Q_SWITCH_INFO] = SMP_ATTR_SWITCH_INFO, [Q_PORT_INFO] = SMP_ATTR_PORT_INFO,
	};
	struct query *q = query_new(d);

	q->kind = kind;
	q->node = n;
	q->port = port;
	if (kind == Q_NODE_INFO)
		dr_get(d, n, port, attr[kind], 0, q);
	else
		dr_get(d, n, 0, attr[kind], kind == Q_PORT_INFO ? port : 0, q);
}

static void query_ca_port(struct discover *d, struct sm_node *n, const struct query *via,
			  uint8_t port)
{
	struct query *q = query_new(d);

	q->kind = Q_PORT_INFO;
	q->node = n;
	q->port = port;
	if (via->node)
		dr_get(d, via->node, via->port, SMP_ATTR_PORT_INFO, port, q);
	else
		dr_get(d, NULL, 0, SMP_ATTR_PORT_INFO, port, q);
}

static void query_new_node(struct discover *d, struct sm_node *n, const struct query *via)
{
	query(d, n, Q_NODE_DESC, 0);
	if (node_is_switch(n)) {
		query(d, n, Q_SWITCH_INFO, 0);
		for (unsigned p = 0; p <= n->ni.num_ports; p++)
			query(d, n, Q_PORT_INFO, (uint8_t)p);
	} else {
		query_ca_port(d, n, via, n->ni.local_port);
	}
}

static bool node_info_sane(const struct smp_node_info *ni)
{
	if (ni->node_type < TOPO_CA || ni->node_type > TOPO_ROUTER)
		return false;
	if (ni->num_ports == 0 || ni->num_ports > TOPO_MAX_PORTS)
		return false;
	if (ni->node_guid == 0)
		return false;
	if (ni->node_type == TOPO_SWITCH)
		return ni->local_port <= ni->num_ports;
	return ni->local_port >= 1 && ni->local_port <= ni->num_ports;
}

/* The same GUID answering as a different kind of node is not the same node. */
static bool same_node(const struct sm_node *n, const struct smp_node_info *ni)
{
	return n->ni.node_type == ni->node_type && n->ni.num_ports == ni->num_ports;
}

static void new_node(struct discover *d, struct query *q, const struct smp_node_info *ni)
{
	struct sm_node *n = fabric_add(d->f, ni);

	n->via_local = ni->local_port;
	if (q->node) {
		memcpy(n->path, q->node->path, sizeof(n->path));
		n->hop_cnt = (uint8_t)(q->node->hop_cnt + 1);
		n->path[n->hop_cnt] = q->port;
		n->via_guid = q->node->guid;
		n->via_port = q->port;
	} else {
		d->f->sm_node = n;
		d->f->sm_port_num = ni->local_port;
	}
	if (!node_is_switch(n))
		n->ports[ni->local_port].guid = ni->port_guid;
	query_new_node(d, n, q);
}

/* Two nodes answer with n's GUID: n (found first) and the one that just
 * answered through q. Neither can be told apart from the other by what we
 * send, so both are left out of this sweep (dupguid.c says what is kept). */
static void conflict(struct discover *d, struct sm_node *n, const struct query *q,
		     const struct smp_node_info *ni, const char *what)
{
	struct sm_conflict c = { .guid = n->guid };

	c.known.via = n->via_guid;
	c.known.via_port = n->via_port;
	c.known.local_port = n->via_local;
	c.other.via = q->node ? q->node->guid : 0;
	c.other.via_port = q->port;
	c.other.local_port = ni->local_port;
	d->st.conflicts++;
	n->dup_guid = true;
	fabric_note_conflict(d->f, &c);
	log_fabric(LOG_LVL_WARNING, "node GUID %016llx answered through %016llx port %u: %s",
		   (unsigned long long)n->guid, (unsigned long long)c.other.via, c.other.via_port,
		   what);
}

/* 0, or -1 after a conflict: the answer cannot come from n itself. */
static int known_node(struct discover *d, struct sm_node *n, const struct query *via,
		      const struct smp_node_info *ni)
{
	struct sm_port *p;

	if (node_is_switch(n)) {
		/* one switch has one port 0 GUID, whichever link reached it */
		if (n->ports[0].guid != ni->port_guid) {
			conflict(d, n, via, ni, "another switch with this node GUID");
			return -1;
		}
		return 0;
	}
	/* A CA reached again through another of its ports. */
	p = &n->ports[ni->local_port];
	if (p->guid && p->guid != ni->port_guid) {
		conflict(d, n, via, ni, "another CA with this node GUID");
		return -1;
	}
	if (!p->guid) {
		p->guid = ni->port_guid;
		query_ca_port(d, n, via, ni->local_port);
	}
	return 0;
}

static void got_node_info(struct discover *d, struct query *q, const struct smp *r)
{
	struct smp_node_info ni;
	struct sm_node *n;

	if (smp_node_info_decode(r->data, sizeof(r->data), &ni) < 0 || !node_info_sane(&ni)) {
		d->st.rejected++;
		log_fabric(LOG_LVL_WARNING, "discovery: malformed NodeInfo behind %016llx port %u",
			   q->node ? (unsigned long long)q->node->guid : 0ULL, q->port);
		return;
	}
	n = fabric_find(d->f, ni.node_guid);
	if (n && !same_node(n, &ni)) {
		conflict(d, n, q, &ni, "a node of another kind with this GUID");
		return;
	}
	if (!n)
		new_node(d, q, &ni);
	else if (known_node(d, n, q, &ni) < 0)
		return;
	if (!q->node)
		return;
	n = fabric_find(d->f, ni.node_guid);
	if (fabric_link(d->f, q->node, q->port, n, ni.local_port) < 0)
		conflict(d, n, q, &ni, "its port is linked elsewhere already");
	else
		q->node->ports[q->port].probed = true;
}

static bool should_probe(const struct discover *d, const struct sm_node *n, uint8_t port)
{
	const struct sm_port *p = &n->ports[port];

	if (port == 0 || p->peer || p->pi.port_state <= TOPO_PORT_DOWN)
		return false;
	if (n->hop_cnt >= SMP_MAX_HOPS)
		return false;
	if (node_is_switch(n))
		return true;
	/* Directed-route SMPs leave a CA only where we are. */
	return n == d->f->sm_node && port == d->f->sm_port_num;
}

static void got_port_info(struct discover *d, struct query *q, const struct smp *r)
{
	struct sm_node *n = q->node;
	struct sm_port *p = &n->ports[q->port];

	if (smp_port_info_decode(r->data, sizeof(r->data), &p->pi) < 0) {
		d->st.rejected++;
		p->pi_failed = true;
		return;
	}
	p->have_pi = true;
	if (should_probe(d, n, q->port))
		query(d, n, Q_NODE_INFO, q->port);
}

static void got_answer(struct discover *d, struct query *q, const struct smp *r)
{
	struct smp_node_desc nd;

	switch (q->kind) {
	case Q_NODE_INFO:
		got_node_info(d, q, r);
		break;
	case Q_NODE_DESC:
		if (smp_node_desc_decode(r->data, sizeof(r->data), &nd) == 0) {
			memcpy(q->node->desc, nd.desc, sizeof(q->node->desc));
			q->node->have_desc = true;
		}
		break;
	case Q_SWITCH_INFO:
		if (smp_switch_info_decode(r->data, sizeof(r->data), &q->node->si) == 0)
			q->node->have_si = true;
		break;
	case Q_PORT_INFO:
		got_port_info(d, q, r);
		break;
	}
}

/* What a failed query leaves unknown; lastseen.c fills it in from the last
 * sweep rather than taking it as gone. */
static void note_failure(const struct query *q)
{
	if (!q->node)
		return;
	if (q->kind == Q_PORT_INFO)
		q->node->ports[q->port].pi_failed = true;
	else if (q->kind == Q_NODE_INFO)
		q->node->ports[q->port].peer_unknown = true;
}

static void query_done(void *arg, int err, const struct smp *resp)
{
	struct query *q = arg;
	struct discover *d = q->d;

	d->pending--;
	if (d->aborted) {
		pool_put(&d->queries, q);
		if (!d->pending)
			discover_free(d);
		return;
	}
	if (err == MAD_OK) {
		got_answer(d, q, resp);
	} else {
		d->st.failed++;
		note_failure(q);
		log_fabric(LOG_LVL_INFO, "discovery: query %d to %016llx port %u failed (%d)",
			   q->kind, q->node ? (unsigned long long)q->node->guid : 0ULL, q->port, err);
	}
	pool_put(&d->queries, q);
	finish_if_idle(d);
}

struct discover *discover_start(struct mad_engine *e, uint64_t mkey, discover_done_fn done, void *arg)
{
	struct discover *d = xcalloc(1, sizeof(*d));
	struct query *q = query_new(d);

	d->eng = e;
	d->f = fabric_new();
	d->mkey = mkey;
	d->done = done;
	d->done_arg = arg;
	q->kind = Q_NODE_INFO;
	dr_get(d, NULL, 0, SMP_ATTR_NODE_INFO, 0, q);
	if (!d->pending) {
		fabric_free(d->f);
		discover_free(d);
		return NULL;
	}
	return d;
}

void discover_abort(struct discover *d)
{
	d->aborted = true;
	fabric_free(d->f);
	d->f = NULL;
	if (!d->pending)
		discover_free(d);
}
