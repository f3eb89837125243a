/*
 * DOC: the QoS phase: SL2VL and VLArbitration tables and VLHighLimit as a
 * diff (see qos.h).
 *
 * What each output port holds is kept in an open-addressing table keyed
 * by node GUID and port number: its SL2VL tables (one for a CA port, one
 * per input port for a switch port) and its four VLArbitration blocks,
 * each marked known once read or written. The phase is three batches:
 * read back what is not known, write what differs, then the PortInfo Sets
 * of VLHighLimit.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conf/partitions.h"
#include "sm/log.h"
#include "sm/pkey.h"
#include "sm/porttab.h"
#include "sm/qos.h"
#include "sm/qostab.h"
#include "sm/sm.h"
#include "sm/tables.h"

#define CAP_SL_MAPPING 0x00000040u   /* PortInfo CapabilityMask IsSLMappingSupported */

enum { QK_UNKNOWN, QK_KNOWN, QK_FAILED };

struct qport {
	struct porttab_key key;   /* first: the table finds records by it */
	bool used;              /* managed by the running phase */
	bool sl2vl;             /* the node takes SL2VL tables */
	uint16_t nin;           /* SL2VL tables: 1 (CA) or ports + 1 (switch) */
	struct smp_sl2vl *held; /* per input port */
	uint8_t *known;         /* per input port */
	uint8_t *in_used;       /* per input port: managed this phase */
	struct smp_vlarb_block arb[4];   /* by block id - 1 */
	uint8_t arb_known[4];
	struct qos_port_tables want;
	struct sm_port *p;
};

struct qos_stats {
	uint64_t ports, read, written, pi_sets;
};

struct sm_qos {
	struct porttab ports;   /* of struct qport */
	struct qos_params cls[QOS_NCLASSES];
	void (*done)(struct sm *);
	struct qos_stats st;
};

struct q_ctx {
	struct sm *sm;
	struct qport *q;
	bool arb;               /* a VLArbitration block, else an SL2VL table */
	uint8_t idx;            /* input port, or block id */
	uint8_t data[SMP_DATA_SIZE];
};

/* --- the per-port table ---------------------------------------------------------- */

static void port_size(struct qport *q, unsigned nin)
{
	if (q->nin == nin)
		return;
	free(q->held);
	free(q->known);
	free(q->in_used);
	q->nin = (uint16_t)nin;
	q->held = xcalloc(nin, sizeof(*q->held));
	q->known = xcalloc(nin, 1);
	q->in_used = xcalloc(nin, 1);
	memset(q->arb_known, QK_UNKNOWN, sizeof(q->arb_known));
}

static struct qport *qport_get(struct sm_qos *k, struct sm_port *p, unsigned nin)
{
	struct qport *q = porttab_get(&k->ports, p->node->guid, p->num);

	port_size(q, nin);
	return q;
}

static struct qport *slot(const struct sm_qos *k, size_t i)
{
	return porttab_slot(&k->ports, i);
}

/* --- which ports, which tables ------------------------------------------------- */

static bool up(const struct sm_port *p)
{
	return p->peer && p->have_pi && !p->stale && !p->held &&
	       p->pi.port_state > TOPO_PORT_DOWN;
}

static struct qport *manage(struct sm *sm, struct sm_port *p, unsigned nin, enum qos_class cls,
			    bool sl2vl)
{
	struct qport *q = qport_get(sm->qos, p, nin);
	unsigned vls = p->pi.oper_vls ? p->pi.oper_vls : p->pi.vl_cap;

	q->used = true;
	q->p = p;
	q->sl2vl = sl2vl;
	memset(q->in_used, 0, q->nin);
	if (tables_port_fresh(p)) {
		memset(q->known, QK_UNKNOWN, q->nin);
		memset(q->arb_known, QK_UNKNOWN, sizeof(q->arb_known));
	}
	qos_port_tables(&sm->qos->cls[cls], vls, p->pi.vl_arb_low_cap, p->pi.vl_arb_high_cap,
			&q->want);
	sm->qos->st.ports++;
	return q;
}

static void manage_ca(struct sm *sm, struct sm_port *p)
{
	bool own = p->node == sm->fabric->sm_node && p->num == sm->fabric->sm_port_num;
	enum qos_class cls = p->node->ni.node_type == TOPO_ROUTER ? QOS_RTR : QOS_CA;
	struct qport *q;

	if (!(up(p) || (own && p->have_pi)) || p->dup_guid)
		return;
	q = manage(sm, p, 1, cls, p->pi.cap_mask & CAP_SL_MAPPING);
	q->in_used[0] = q->sl2vl;
}

/* Output port k of switch n, and its SL2VL table of every input port
 * 0..N: the switch's own packets (SMA replies, traps) come in by port 0,
 * base or enhanced, and a port whose link comes up later or a packet sent
 * back out its arrival port must not find the power-on map, which can
 * name VLs the output port does not operate. */
static void manage_switch_port(struct sm *sm, struct sm_node *n, unsigned k)
{
	bool sl2vl = n->ports[0].have_pi && (n->ports[0].pi.cap_mask & CAP_SL_MAPPING);
	struct qport *q = manage(sm, &n->ports[k], n->ni.num_ports + 1u, k ? QOS_SWE : QOS_SW0,
				 sl2vl);

	memset(q->in_used, sl2vl, q->nin);
}

static void manage_node(struct sm *sm, struct sm_node *n)
{
	bool enh0;

	if (!node_usable(n))
		return;
	if (!node_is_switch(n)) {
		for (unsigned k = 1; k <= n->ni.num_ports; k++)
			manage_ca(sm, &n->ports[k]);
		return;
	}
	enh0 = n->have_si && n->si.enhanced_port0 && n->ports[0].have_pi;
	if (enh0)
		manage_switch_port(sm, n, 0);
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		if (up(&n->ports[k]))
			manage_switch_port(sm, n, k);
}

/* --- SMPs ------------------------------------------------------------------------ */

static uint32_t modifier(const struct qport *q, bool arb, uint8_t idx)
{
	bool sw = node_is_switch(q->p->node);

	if (arb)
		return smp_vlarb_mod(idx, sw ? q->key.num : 0);
	return sw ? smp_sl2vl_mod(idx, q->key.num) : 0;
}

static void send(struct sm *sm, struct qport *q, bool arb, uint8_t idx, uint8_t method,
		 const uint8_t *data, mad_done_fn cb)
{
	struct q_ctx *c = xcalloc(1, sizeof(*c));
	struct mad_req r;

	c->sm = sm;
	c->q = q;
	c->arb = arb;
	c->idx = idx;
	sm_port_req(sm, q->p, method, arb ? SMP_ATTR_VLARB : SMP_ATTR_SL2VL, modifier(q, arb, idx),
		    &r);
	if (data) {
		memcpy(r.data, data, SMP_DATA_SIZE);
		memcpy(c->data, data, SMP_DATA_SIZE);
	}
	if (method == MAD_METHOD_GET)
		sm->qos->st.read++;
	else
		sm->qos->st.written++;
	if (sm_submit(sm, &r, cb, c) < 0)
		free(c);
}

static uint8_t *known_of(struct q_ctx *c)
{
	return c->arb ? &c->q->arb_known[c->idx - 1] : &c->q->known[c->idx];
}

/* Stores what the port now holds (read back, or written). */
static int store(struct q_ctx *c, const uint8_t *data)
{
	if (c->arb)
		return smp_vlarb_block_decode(data, SMP_DATA_SIZE, &c->q->arb[c->idx - 1]);
	return smp_sl2vl_decode(data, SMP_DATA_SIZE, &c->q->held[c->idx]);
}

static void failed(struct q_ctx *c, const char *what, int err)
{
	c->sm->sweep_clean = false;
	c->sm->st.errors++;
	log_fabric(LOG_LVL_WARNING, "%016llx \"%s\" port %u: %s %s %u failed (%d)",
		   (unsigned long long)c->q->key.guid, c->q->p->node->desc, c->q->key.num,
		   c->arb ? "VLArbitration block" : "SL2VL table from port", what, c->idx, err);
}

static void read_done(void *arg, int err, const struct smp *resp)
{
	struct q_ctx *c = arg;
	struct sm *sm = c->sm;

	if (err == MAD_OK && store(c, resp->data) == 0) {
		*known_of(c) = QK_KNOWN;
	} else {
		*known_of(c) = QK_FAILED;
		failed(c, "read", err);
	}
	free(c);
	sm_phase_put(sm);
}

static void write_done(void *arg, int err, const struct smp *resp)
{
	struct q_ctx *c = arg;
	struct sm *sm = c->sm;

	if (err == MAD_OK && store(c, c->data) == 0) {
		*known_of(c) = QK_KNOWN;
	} else {
		*known_of(c) = QK_UNKNOWN;
		failed(c, "Set", err);
	}
	free(c);
	sm_phase_put(sm);
}

static void read_port(struct sm *sm, struct qport *q)
{
	for (unsigned i = 0; i < q->nin; i++)
		if (q->in_used[i] && q->known[i] != QK_KNOWN)
			send(sm, q, false, (uint8_t)i, MAD_METHOD_GET, NULL, read_done);
	for (unsigned b = 0; b < q->want.nblocks; b++) {
		uint8_t id = q->want.block_id[b];

		if (q->arb_known[id - 1] != QK_KNOWN)
			send(sm, q, true, id, MAD_METHOD_GET, NULL, read_done);
	}
}

static void write_port(struct sm *sm, struct qport *q)
{
	uint8_t data[SMP_DATA_SIZE];

	for (unsigned i = 0; i < q->nin; i++) {
		if (!q->in_used[i] || q->known[i] != QK_KNOWN ||
		    !memcmp(&q->held[i], &q->want.sl2vl, sizeof(q->want.sl2vl)))
			continue;
		memset(data, 0, sizeof(data));
		smp_sl2vl_encode(&q->want.sl2vl, data, sizeof(data));
		send(sm, q, false, (uint8_t)i, MAD_METHOD_SET, data, write_done);
	}
	for (unsigned b = 0; b < q->want.nblocks; b++) {
		uint8_t id = q->want.block_id[b];

		if (q->arb_known[id - 1] != QK_KNOWN ||
		    !memcmp(&q->arb[id - 1], &q->want.blocks[b], sizeof(q->want.blocks[b])))
			continue;
		smp_vlarb_block_encode(&q->want.blocks[b], data, sizeof(data));
		send(sm, q, true, id, MAD_METHOD_SET, data, write_done);
	}
}

static void high_limit(struct sm *sm, struct qport *q)
{
	struct smp_port_info w = q->p->pi;

	if (!q->want.vlarb || w.vl_high_limit == q->want.high_limit ||
	    tables_pi_ignored(q->p, TF_HIGH_LIMIT))
		return;
	w.vl_high_limit = q->want.high_limit;
	sm->qos->st.pi_sets++;
	tables_pi_set(sm, q->p, &w, TF_HIGH_LIMIT);
}

/* --- the phase --------------------------------------------------------------------- */

static void limits_done(struct sm *sm)
{
	const struct qos_stats *s = &sm->qos->st;
	void (*done)(struct sm *) = sm->qos->done;

	log_info("QoS: %llu ports, %llu tables read, %llu written, %llu VLHighLimit sets",
		 (unsigned long long)s->ports, (unsigned long long)s->read,
		 (unsigned long long)s->written, (unsigned long long)s->pi_sets);
	sm->qos->done = NULL;
	done(sm);
}

static void writes_done(struct sm *sm)
{
	struct sm_qos *k = sm->qos;

	sm_phase_begin(sm, limits_done);
	for (size_t i = 0; i < k->ports.size; i++)
		if (slot(k, i)->used)
			high_limit(sm, slot(k, i));
	sm_phase_end(sm);
}

static void reads_done(struct sm *sm)
{
	struct sm_qos *k = sm->qos;

	sm_phase_begin(sm, writes_done);
	for (size_t i = 0; i < k->ports.size; i++)
		if (slot(k, i)->used)
			write_port(sm, slot(k, i));
	sm_phase_end(sm);
}

static void begin(struct sm *sm)
{
	struct sm_qos *k = sm->qos;

	memset(&k->st, 0, sizeof(k->st));
	for (unsigned c = 0; c < QOS_NCLASSES; c++)
		qos_params_for(&sm->conf, (enum qos_class)c, &k->cls[c]);
	for (size_t i = 0; i < k->ports.size; i++) {
		slot(k, i)->used = false;
		slot(k, i)->p = NULL;
	}
}

void sm_qos_phase(struct sm *sm, void (*done)(struct sm *))
{
	struct sm_qos *k;

	if (!sm->conf.qos) {
		done(sm);
		return;
	}
	if (!sm->qos) {
		sm->qos = xcalloc(1, sizeof(*sm->qos));
		porttab_init(&sm->qos->ports, sizeof(struct qport));
	}
	k = sm->qos;
	k->done = done;
	begin(sm);
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++)
		manage_node(sm, sm->fabric->nodes[i]);
	sm_phase_begin(sm, reads_done);
	for (size_t i = 0; i < k->ports.size; i++)
		if (slot(k, i)->used)
			read_port(sm, slot(k, i));
	sm_phase_end(sm);
}

void sm_qos_free(struct sm *sm)
{
	struct sm_qos *k = sm->qos;

	if (!k)
		return;
	for (size_t i = 0; i < k->ports.size; i++) {
		free(slot(k, i)->held);
		free(slot(k, i)->known);
		free(slot(k, i)->in_used);
	}
	porttab_free(&k->ports);
	free(k);
	sm->qos = NULL;
}

/* --- what the ports hold, for the SA ------------------------------------------------ */

static const struct qport *qport_find(const struct sm_qos *k, uint64_t guid, uint8_t num)
{
	return k ? porttab_find(&k->ports, guid, num) : NULL;
}

bool sm_qos_sl2vl(const struct sm *sm, uint64_t node_guid, uint8_t num, uint8_t in,
		  struct smp_sl2vl *out)
{
	const struct qport *q = qport_find(sm->qos, node_guid, num);

	if (!q || in >= q->nin || q->known[in] != QK_KNOWN)
		return false;
	*out = q->held[in];
	return true;
}

bool sm_qos_vlarb(const struct sm *sm, uint64_t node_guid, uint8_t num, uint8_t block_id,
		  struct smp_vlarb_block *out)
{
	const struct qport *q = qport_find(sm->qos, node_guid, num);

	if (!q || block_id < 1 || block_id > 4 || q->arb_known[block_id - 1] != QK_KNOWN)
		return false;
	*out = q->arb[block_id - 1];
	return true;
}

/* --- the SA's SL --------------------------------------------------------------------- */

int sm_qos_path_sl(const struct sm *sm, uint16_t pkey)
{
	const struct part_partition *p = pkey ? part_find(sm_pkey_config(sm), pkey) : NULL;
	struct qos_params cls[QOS_NCLASSES];

	if (!sm->conf.qos)
		return 0;
	for (unsigned c = 0; c < QOS_NCLASSES; c++)
		qos_params_for(&sm->conf, (enum qos_class)c, &cls[c]);
	return qos_path_sl(true, p ? (int)p->group.sl : 0, cls);
}

uint16_t sm_qos_sl_mask(const struct sm *sm)
{
	struct qos_params cls[QOS_NCLASSES];
	uint16_t ok = 0xFFFF;

	if (!sm->conf.qos)
		return ok;
	for (unsigned c = 0; c < QOS_NCLASSES; c++) {
		qos_params_for(&sm->conf, (enum qos_class)c, &cls[c]);
		for (unsigned sl = 0; sl < 16; sl++)
			if (cls[c].sl2vl[sl] == QOS_VL_DROP)
				ok &= (uint16_t)~(1u << sl);
	}
	return ok;
}

json_object *sm_qos_json(const struct sm *sm)
{
	json_object *o = json_object_new_object();
	struct qos_stats s = { 0 };

	if (sm->qos)
		s = sm->qos->st;
	json_object_object_add(o, "enabled", json_object_new_boolean(sm->conf.qos));
	json_object_object_add(o, "ports", json_object_new_int64((int64_t)s.ports));
	json_object_object_add(o, "tables_read", json_object_new_int64((int64_t)s.read));
	json_object_object_add(o, "tables_written", json_object_new_int64((int64_t)s.written));
	json_object_object_add(o, "vl_high_limit_sets", json_object_new_int64((int64_t)s.pi_sets));
	return o;
}
