/*
 * DOC: the partition manager: P_KeyTables and enforcement (see pkey.h).
 *
 * What each port holds and should hold is kept per port in an
 * open-addressing table keyed by node GUID and port number, so it
 * survives fabric generations. Each port goes its own way inside the
 * bring-up phase, not waiting for the others:
 *
 *   read back the blocks not known -> write the blocks that differ ->
 *   enforcement bits (switch ports)
 *
 * A port that no SM has configured since its reset is not read: it holds
 * the reset content (reset_content()). The background audit reads every
 * programmed table over its period (sm_pkey_audit), so a port that held
 * something else after all is found and written back; an enforcing
 * switch port taken so is read back by the same path right after the
 * sweep (sm_pkey_verify), not left to the audit.
 *
 * The bits ride on the port's state Set when its link is walked this
 * sweep (its walk waits for the table: activate.h), else go in a
 * PortInfo Set of their own once the table is written; either way a
 * switch port never filters with a table that is not there yet.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/activate.h"
#include "sm/light.h"
#include "lib/log.h"
#include "sm/phase.h"
#include "sm/pkey.h"
#include "fabric/pkeyset.h"
#include "lib/clock.h"
#include "lib/guidtab.h"
#include "sm/sm.h"
#include "fabric/snap.h"
#include "sm/tablephases.h"

#define PK_BLOCK 32

enum pk_block { PK_UNKNOWN, PK_KNOWN, PK_FAILED };

struct pk_port {
	struct guidtab_key key;   /* first: the table finds records by it */
	bool used;           /* managed by the running phase */
	bool laid_out;       /* want holds the table as laid out */
	bool fits;           /* a switch port's copy fits: enforce */
	uint16_t cap;        /* table entries (at most PKEY_MAX_ENTRIES) */
	uint16_t nwant;      /* entries of want in use */
	uint16_t *held;      /* what the port holds (blocks marked known) */
	uint16_t *want;      /* before layout: the P_Keys; after: the table */
	uint8_t *known;      /* enum pk_block per block */
	struct sm_port *p;   /* during the phase */
	bool faces_ca;       /* a switch port with a copy of its CA's table */
	uint16_t left;       /* this sweep's reads, then writes, in flight */
	bool failed;         /* one of them failed: its link waits for the end walk */
	bool programmed;     /* this SM laid a table out for it once */
	bool assumed;        /* held is the reset content, taken, not read */
	bool unverified;     /* a switch port assumed so: read back after the sweep */
};

struct pk_stats {
	uint64_t ports, blocks_read, blocks_written, pi_sets, cut, read_failed, assumed;
	uint64_t verify_ports, verify_read, verify_repaired, verify_failed;   /* after the sweep */
};

struct sm_pkey {
	struct part_config cfg;
	struct part_config staged;   /* checked by a reload, not yet applied */
	bool have_staged;
	struct guidtab ports;   /* of struct pk_port */
	void (*then)(struct sm *);   /* once every port's reads are out */
	struct pk_stats st;
	uint64_t audit_read, audit_repaired;   /* blocks, since start */
	uint64_t verifying;                    /* read-back SMPs in flight */
	uint64_t verify_start_ms;
	void (*verified)(struct sm *);         /* once none is */
};

struct pk_ctx {
	struct sm *sm;
	struct pk_port *pp;
	uint16_t block;
};

/* An audit's read or repair: the port is found again by its key, since
 * the table may have moved its record meanwhile. */
struct pk_audit_ctx {
	struct sm *sm;
	struct guidtab_key key;
	uint64_t gen;
	uint16_t block;
	bool verify;          /* the read-back after a sweep, not the audit */
};

static unsigned nblocks(unsigned entries)
{
	return (entries + PK_BLOCK - 1) / PK_BLOCK;
}

/* --- the per-port table -------------------------------------------------- */

static void port_size(struct pk_port *pp, unsigned cap)
{
	if (pp->cap == cap)
		return;
	free(pp->held);
	free(pp->want);
	free(pp->known);
	pp->cap = (uint16_t)cap;
	pp->held = xcalloc(cap, sizeof(*pp->held));
	pp->want = xcalloc(cap, sizeof(*pp->want));
	pp->known = xcalloc(nblocks(cap), 1);
	pp->laid_out = false;
}

static struct pk_port *port_get(struct sm_pkey *k, const struct sm_port *p, unsigned cap)
{
	struct pk_port *pp = guidtab_get(&k->ports, p->node->guid, p->num);

	port_size(pp, cap > PKEY_MAX_ENTRIES ? PKEY_MAX_ENTRIES : cap);
	return pp;
}

static struct pk_port *port_find(const struct sm_pkey *k, uint64_t guid, uint8_t num)
{
	return k ? guidtab_find(&k->ports, guid, num) : NULL;
}

static struct pk_port *slot(const struct sm_pkey *k, size_t i)
{
	return guidtab_slot(&k->ports, i);
}

/* --- what each port should hold ------------------------------------------- */

static struct part_port resolver_port(const struct sm *sm, const struct sm_port *p)
{
	struct part_port r = {
		.guid = p->guid,
		.is_switch = node_is_switch(p->node),
		.is_router = p->node->ni.node_type == TOPO_ROUTER,
		.is_sm = p->node == sm->fabric->sm_node && p->num == sm->fabric->sm_port_num,
	};

	return r;
}

/* The SM's own port is a full member of the default partition whatever
 * the file says (limited members cannot talk to each other, IBA 10.9, so
 * otherwise limited members could not reach the SA at all; OpenSM makes SELF full too). */
static size_t sm_port_full_default(uint16_t *t, size_t n, size_t cap)
{
	for (size_t i = 0; i < n && i < cap; i++)
		if (PKEY_BASE(t[i]) == PART_DEFAULT_PKEY) {
			t[i] |= PKEY_FULL;
			return n;
		}
	if (n < cap)
		t[n++] = PART_DEFAULT_PKEY | PKEY_FULL;
	return n;
}

/* Drops a second copy of a P_Key (the full member of Default twice). */
static size_t dedup(uint16_t *t, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = t[j] == t[i];
		if (!seen)
			t[k++] = t[i];
	}
	return k;
}

/* The partitions' P_Keys for p, index 0 first; cut to the table size. */
static void raw_want(struct sm *sm, struct pk_port *pp)
{
	struct part_port r = resolver_port(sm, pp->p);
	size_t n = part_port_pkeys(&sm->pkey->cfg, &r, sm->conf.allow_both_pkeys, pp->want, pp->cap);

	if (r.is_sm && n <= pp->cap)
		n = dedup(pp->want, sm_port_full_default(pp->want, n, pp->cap));
	if (n > pp->cap) {
		sm->pkey->st.cut++;
		log_fabric(LOG_LVL_WARNING, "%016llx \"%s\" port %u: %zu P_Keys, the table holds %u: "
			   "the last ones are left out", (unsigned long long)pp->key.guid,
			   pp->p->node->desc, pp->key.num, n, pp->cap);
		n = pp->cap;
	}
	pp->nwant = (uint16_t)n;
}

/* A switch port's copy of the CA's P_Keys: the limited form of a P_Key
 * the CA holds as full is left out (OpenSM pkey_mgr_update_peer_port). */
static void copy_want(struct pk_port *sw, const struct pk_port *ca)
{
	size_t n = 0;

	sw->fits = true;
	for (size_t i = 0; i < ca->nwant; i++) {
		uint16_t k = ca->want[i];

		if (!(k & PKEY_FULL) && pkey_find(ca->want, ca->nwant, k) != k)
			continue;
		if (n == sw->cap) {
			sw->fits = false;
			break;
		}
		sw->want[n++] = k;
	}
	sw->nwant = (uint16_t)n;
}

static bool reachable_port(const struct sm *sm, const struct sm_port *p)
{
	bool own = p->node == sm->fabric->sm_node && p->num == sm->fabric->sm_port_num;

	return p->have_pi && !p->stale && !p->dup_guid &&
	       (own || (p->peer && p->pi.port_state > TOPO_PORT_DOWN && !p->held));
}

static bool enforcing(const struct sm *sm, const struct sm_node *sw)
{
	return sm->conf.part_enforce != CONF_PART_ENF_OFF && sw->have_si &&
	       sw->si.partition_enf_cap > 0;
}

/* Whether no SM has configured switch n since its reset. After a reset a
 * port holds LID 0 and MasterSMLID 0 and, once its link is up, stays in
 * Init until an SM arms it (IBA 14.2.5.6, 7.2); a switch's LID and SM LID
 * are its port 0's. An SM gives a port its LID and SM LID in one Set, so
 * a port that lost its LID in a LID conflict, or whose LID another SM
 * cleared, still shows that SM's LID. */
static bool switch_untouched(const struct sm_node *n)
{
	const struct sm_port *p0 = &n->ports[0];

	if (!p0->have_pi || p0->stale || p0->pi.lid || p0->pi.master_sm_lid)
		return false;
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		if (n->ports[k].have_pi && n->ports[k].pi.port_state >= TOPO_PORT_ARMED)
			return false;
	return true;
}

/* Whether no SM has configured p since its reset: a CA port with LID 0,
 * SM LID 0, not Armed or Active; any port of a switch that is untouched
 * so as a whole (no port Armed or Active). Not proof: OpenSM writes
 * P_KeyTables before LIDs, so an OpenSM stopped in between leaves tables
 * behind on ports that look untouched. Such a port carries no data
 * traffic (Init passes SMPs only) until this SM arms it; a switch port's
 * table is read back right after the sweep (sm_pkey_verify), a CA port's
 * and a switch port 0's by the audit. */
static bool untouched(const struct sm_port *p)
{
	if (!p->have_pi || p->stale)
		return false;
	if (node_is_switch(p->node))
		return switch_untouched(p->node);
	return !p->pi.lid && !p->pi.master_sm_lid && p->pi.port_state <= TOPO_PORT_INIT;
}

/* A P_KeyTable after reset: the default P_Key, full member, at index 0,
 * every other entry 0 (invalid). So ibsim starts every port's table. With
 * enforcement on, a switch external port whose table differs from the one
 * assumed would drop its CA's packets, or let through partitions it
 * should not, so such a port is read back right after the sweep that
 * assumed it (unverified, sm_pkey_verify), not left to the audit: its
 * link is not Active before its switch's LFT is written (activate.h), so
 * a wrong table lives from the port's activation to the read-back, the
 * rest of the sweep at most; until then the port carries no data. */
static void reset_content(struct pk_port *pp)
{
	memset(pp->held, 0, pp->cap * sizeof(*pp->held));
	pp->held[0] = PART_DEFAULT_PKEY | PKEY_FULL;
	memset(pp->known, PK_KNOWN, nblocks(pp->cap));
	pp->assumed = true;
	pp->unverified = pp->key.num && node_is_switch(pp->p->node);
}

/* A port whose tables may have been reset since we last looked: one no
 * SM touched holds the reset content; of any other we know nothing. A
 * port this SM programmed is read even when it looks untouched: a link
 * reset in ibsim clears the LID and keeps the table. */
static void forget(struct sm *sm, struct pk_port *pp, const struct sm_port *p)
{
	if (!pp->programmed && untouched(p)) {
		reset_content(pp);
		sm->pkey->st.assumed++;
		return;
	}
	memset(pp->known, PK_UNKNOWN, nblocks(pp->cap));
	pp->assumed = false;
	pp->unverified = false;
}

static struct pk_port *manage(struct sm *sm, struct sm_port *p, unsigned cap)
{
	struct pk_port *pp = port_get(sm->pkey, p, cap);

	pp->used = true;
	pp->p = p;
	pp->faces_ca = false;
	if (tables_port_fresh(p))
		forget(sm, pp, p);
	sm->pkey->st.ports++;
	return pp;
}

static void manage_ca(struct sm *sm, struct sm_port *p)
{
	struct sm_port *q = p->peer;
	struct pk_port *sw;

	if (!p->guid || !reachable_port(sm, p) || !p->node->ni.partition_cap)
		return;
	raw_want(sm, manage(sm, p, p->node->ni.partition_cap));
	if (!q || !node_is_switch(q->node) || !node_usable(q->node) || !enforcing(sm, q->node) ||
	    !q->have_pi || q->stale)
		return;
	sw = manage(sm, q, q->node->si.partition_enf_cap);   /* may move the CA's entry */
	sw->faces_ca = true;
	copy_want(sw, port_find(sm->pkey, p->node->guid, p->num));
}

static void manage_node(struct sm *sm, struct sm_node *n)
{
	if (!node_usable(n))
		return;
	if (node_is_switch(n)) {
		if (n->ports[0].have_pi && n->ni.partition_cap && n->ports[0].guid) {
			struct pk_port *pp = manage(sm, &n->ports[0], n->ni.partition_cap);

			raw_want(sm, pp);
		}
		return;
	}
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		manage_ca(sm, &n->ports[k]);
}

/* --- SMPs ---------------------------------------------------------------------- */

static void block_req(struct sm *sm, const struct pk_port *pp, uint8_t method, uint16_t b,
		      struct mad_req *r)
{
	uint8_t port = node_is_switch(pp->p->node) ? pp->key.num : 0;

	sm_port_req(sm, pp->p, method, SMP_ATTR_PKEY_TABLE, smp_pkey_mod(port, b), r);
}

static void submit(struct sm *sm, struct pk_port *pp, uint16_t b, const struct mad_req *r,
		   mad_done_fn cb)
{
	struct pk_ctx *c = xcalloc(1, sizeof(*c));

	c->sm = sm;
	c->pp = pp;
	c->block = b;
	if (sm_submit(sm, r, cb, c) < 0) {
		pp->failed = true;
		free(c);
		return;
	}
	pp->left++;
}

/* Entries of block b of t (cap entries); beyond cap, zeros. */
static void block_of(const uint16_t *t, unsigned cap, uint16_t b, struct smp_pkey_block *out)
{
	for (unsigned i = 0; i < PK_BLOCK; i++) {
		unsigned e = b * PK_BLOCK + i;

		out->pkey[i] = e < cap ? t[e] : 0;
	}
}

static void block_store(uint16_t *t, unsigned cap, uint16_t b, const struct smp_pkey_block *in)
{
	for (unsigned i = 0; i < PK_BLOCK && b * PK_BLOCK + i < cap; i++)
		t[b * PK_BLOCK + i] = in->pkey[i];
}

static void reads_done(struct sm *sm, struct pk_port *pp);
static void port_done(struct sm *sm, struct pk_port *pp);

static void read_done(void *arg, int err, const struct smp *resp)
{
	struct pk_ctx *c = arg;
	struct pk_port *pp = c->pp;
	struct smp_pkey_block blk;
	struct sm *sm = c->sm;

	if (err == MAD_OK && smp_pkey_block_decode(resp->data, sizeof(resp->data), &blk) == 0) {
		block_store(pp->held, pp->cap, c->block, &blk);
		pp->known[c->block] = PK_KNOWN;
		pp->assumed = false;
	} else {
		pp->known[c->block] = PK_FAILED;
		sm->pkey->st.read_failed++;
		sm->sweep_clean = false;
		sm->st.errors++;
		log_fabric(LOG_LVL_INFO, "%016llx port %u: P_KeyTable block %u read failed (%d), "
			   "left as it is", (unsigned long long)pp->key.guid, pp->key.num, c->block, err);
	}
	free(c);
	if (!--pp->left)
		reads_done(sm, pp);
	sm_phase_put(sm);
}

static void write_done(void *arg, int err, const struct smp *resp)
{
	struct pk_ctx *c = arg;
	struct pk_port *pp = c->pp;
	struct smp_pkey_block blk;
	struct sm *sm = c->sm;

	if (err == MAD_OK) {
		block_of(pp->want, pp->cap, c->block, &blk);
		block_store(pp->held, pp->cap, c->block, &blk);
		pp->known[c->block] = PK_KNOWN;
	} else {
		pp->known[c->block] = PK_UNKNOWN;
		pp->fits = false;   /* no enforcement without the table */
		sm->sweep_clean = false;
		sm->st.errors++;
		pp->failed = true;
		log_fabric(LOG_LVL_WARNING, "%016llx \"%s\" port %u: P_KeyTable block %u Set failed (%d)",
			   (unsigned long long)pp->key.guid, pp->p->node->desc, pp->key.num, c->block, err);
	}
	free(c);
	if (!--pp->left)
		port_done(sm, pp);
	sm_phase_put(sm);
}

static void read_port(struct sm *sm, struct pk_port *pp)
{
	struct mad_req r;

	for (uint16_t b = 0; b < nblocks(pp->cap); b++) {
		if (pp->known[b] == PK_KNOWN)
			continue;
		block_req(sm, pp, MAD_METHOD_GET, b, &r);
		sm->pkey->st.blocks_read++;
		submit(sm, pp, b, &r, read_done);
	}
}

static bool all_known(const struct pk_port *pp)
{
	for (unsigned b = 0; b < nblocks(pp->cap); b++)
		if (pp->known[b] != PK_KNOWN)
			return false;
	return true;
}

/* Lays the wanted P_Keys out over what the port holds. */
static void lay_out(struct pk_port *pp)
{
	uint16_t *t = xcalloc(pp->cap, sizeof(*t));

	pkey_layout(pp->held, pp->cap, pp->want, pp->nwant, t, pp->cap);
	memcpy(pp->want, t, pp->cap * sizeof(*t));
	pp->nwant = pp->cap;
	pp->laid_out = true;
	pp->programmed = true;
	free(t);
}

static void write_port(struct sm *sm, struct pk_port *pp)
{
	struct smp_pkey_block want, held;
	struct mad_req r;

	if (!all_known(pp)) {
		pp->fits = false;
		pp->laid_out = false;
		return;
	}
	if (pp->faces_ca && !pp->fits) {
		pp->laid_out = false;
		return;
	}
	lay_out(pp);
	for (uint16_t b = 0; b < nblocks(pp->cap); b++) {
		block_of(pp->want, pp->cap, b, &want);
		block_of(pp->held, pp->cap, b, &held);
		if (!memcmp(&want, &held, sizeof(want)))
			continue;
		block_req(sm, pp, MAD_METHOD_SET, b, &r);
		smp_pkey_block_encode(&want, r.data, sizeof(r.data));
		sm->pkey->st.blocks_written++;
		submit(sm, pp, b, &r, write_done);
	}
}

/* --- enforcement bits (PortInfo byte 43; IBA 14.2.5.6) ------------------- */

/* The bits switch port p should have: 0 clear, 1 set, -1 leave alone. */
static void wanted_bits(const struct sm *sm, const struct sm_port *p, int *in, int *out)
{
	const struct pk_port *pp = port_find(sm->pkey, p->node->guid, p->num);
	int e = sm->conf.part_enforce;

	*in = *out = -1;
	if (!p->peer || !p->have_pi || p->stale || p->pi.port_state <= TOPO_PORT_DOWN ||
	    !p->node->have_si || !p->node->si.partition_enf_cap)
		return;
	if (node_is_switch(p->peer->node)) {
		*in = *out = 0;   /* inter-switch links never filter */
		return;
	}
	if (e == CONF_PART_ENF_OFF) {
		*in = *out = 0;
		return;
	}
	if (!pp || !pp->used || !pp->faces_ca)
		return;
	*in = pp->fits && (e == CONF_PART_ENF_BOTH || e == CONF_PART_ENF_IN);
	*out = pp->fits && (e == CONF_PART_ENF_BOTH || e == CONF_PART_ENF_OUT);
}

/* Whether p's enforcement bits are to change; w gets the new ones. */
static bool enforcement_due(const struct sm *sm, const struct sm_port *p, struct smp_port_info *w)
{
	int in, out;

	wanted_bits(sm, p, &in, &out);
	if (in < 0 || (p->pi.part_enf_inbound == in && p->pi.part_enf_outbound == out) ||
	    tables_pi_ignored(p, TF_ENFORCE))
		return false;
	w->part_enf_inbound = (uint8_t)in;
	w->part_enf_outbound = (uint8_t)out;
	return true;
}

bool sm_pkey_enforcement(struct sm *sm, const struct sm_port *p, struct smp_port_info *w)
{
	if (!sm->pkey || !p->num || !node_is_switch(p->node) || !enforcement_due(sm, p, w))
		return false;
	sm->pkey->st.pi_sets++;
	return true;
}

/* The bits in a PortInfo Set of their own, when no state Set of this
 * sweep will carry them (the link is up already, or not walked). */
static void enforce_alone(struct sm *sm, struct sm_port *p)
{
	struct smp_port_info w = p->pi;

	if (sm_act_will_walk(p) || !enforcement_due(sm, p, &w))
		return;
	sm->pkey->st.pi_sets++;
	tables_pi_set(sm, p, &w, TF_ENFORCE);
}

/* --- the phase ----------------------------------------------------------------- */

void sm_pkey_log(const struct sm *sm)
{
	const struct pk_stats *s = &sm->pkey->st;

	log_info("P_Keys: %llu ports (%llu untouched since reset: not read), %llu blocks read, "
		 "%llu written, %llu enforcement changes, %llu tables cut",
		 (unsigned long long)s->ports, (unsigned long long)s->assumed,
		 (unsigned long long)s->blocks_read, (unsigned long long)s->blocks_written,
		 (unsigned long long)s->pi_sets, (unsigned long long)s->cut);
}

/* Its table is what it should be (or cannot be known): its link may be
 * walked, and a switch port's bits follow. */
static void port_done(struct sm *sm, struct pk_port *pp)
{
	if (!pp->failed)
		sm_act_release_port(sm, pp->p);
	if (pp->faces_ca)
		enforce_alone(sm, pp->p);
}

static void reads_done(struct sm *sm, struct pk_port *pp)
{
	write_port(sm, pp);
	if (!pp->left)
		port_done(sm, pp);
}

static bool has_copy(const struct sm *sm, const struct sm_port *p)
{
	const struct pk_port *pp = port_find(sm->pkey, p->node->guid, p->num);

	return pp && pp->used && pp->faces_ca;
}

/* Switch ports without a table of their own this sweep: their bits now. */
static void enforce_others(struct sm *sm)
{
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];

		for (unsigned k = 1; node_is_switch(n) && node_usable(n) && k <= n->ni.num_ports; k++)
			if (!has_copy(sm, &n->ports[k]))
				enforce_alone(sm, &n->ports[k]);
	}
}

static void start_port(struct sm *sm, struct pk_port *pp)
{
	pp->left = 0;
	pp->failed = false;
	sm_act_hold_port(sm, pp->p);
	read_port(sm, pp);
	if (!pp->left)
		reads_done(sm, pp);
}

static void start_slot(struct sm *sm, size_t i)
{
	if (slot(sm->pkey, i)->used)
		start_port(sm, slot(sm->pkey, i));
}

static void all_started(struct sm *sm)
{
	void (*then)(struct sm *) = sm->pkey->then;

	enforce_others(sm);
	sm->pkey->then = NULL;
	then(sm);
}

void sm_pkey_prepare(struct sm *sm, void (*then)(struct sm *))
{
	struct sm_pkey *k = sm->pkey;

	memset(&k->st, 0, sizeof(k->st));
	for (size_t i = 0; i < k->ports.size; i++) {
		slot(k, i)->used = false;
		slot(k, i)->p = NULL;
	}
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++)
		manage_node(sm, sm->fabric->nodes[i]);
	k->then = then;
	sm_phase_steps(sm, k->ports.size, start_slot, all_started);
}

/* --- configuration ---------------------------------------------------------------- */

static void errors_text(const struct conf_errors *e, char *err, size_t errlen)
{
	size_t used = 0;

	err[0] = '\0';
	for (size_t i = 0; i < e->n && used + 1 < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? "; " : "", e->msg[i]);
	if (e->dropped && used + 1 < errlen)
		snprintf(err + used, errlen - used, "; (%zu more)", e->dropped);
}

int sm_pkey_stage(const char *path, struct part_config *out, char *err, size_t errlen)
{
	struct conf_errors e;
	int n;

	conf_errors_init(&e);
	memset(out, 0, sizeof(*out));
	n = part_load_file(out, path, &e);
	if (n > 0)
		errors_text(&e, err, errlen);
	conf_errors_free(&e);
	return n > 0 ? -1 : 0;
}

static void log_warnings(const struct part_config *c)
{
	for (size_t i = 0; i < c->warnings.n; i++)
		log_warnx("%s", c->warnings.msg[i]);
}

int sm_pkey_init(struct sm *sm, FILE *err)
{
	struct part_config c;
	char msg[2048];

	if (sm_pkey_stage(sm->conf.partitions_file, &c, msg, sizeof(msg)) < 0) {
		fprintf(err, "ibsmd: partitions file rejected: %s\n", msg);
		part_config_free(&c);
		return -1;
	}
	sm->pkey = xcalloc(1, sizeof(*sm->pkey));
	guidtab_init(&sm->pkey->ports, sizeof(struct pk_port));
	sm->pkey->cfg = c;
	return 0;
}

bool sm_pkey_commit(struct sm *sm, struct part_config *staged)
{
	bool changed = !part_config_equal(&sm->pkey->cfg, staged);

	log_warnings(staged);
	part_config_free(&sm->pkey->cfg);
	sm->pkey->cfg = *staged;
	memset(staged, 0, sizeof(*staged));
	return changed;
}

int sm_pkey_reload_check(struct sm *sm, const struct sm_conf *nw, char *err, size_t errlen)
{
	struct sm_pkey *k = sm->pkey;
	char msg[2048];

	if (k->have_staged)
		part_config_free(&k->staged);
	k->have_staged = false;
	if (sm_pkey_stage(nw->partitions_file, &k->staged, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "partitions file rejected: %s", msg);
		part_config_free(&k->staged);
		return -1;
	}
	k->have_staged = true;
	return 0;
}

bool sm_pkey_reload_apply(struct sm *sm, json_object *result)
{
	struct sm_pkey *k = sm->pkey;
	bool changed = k->have_staged && sm_pkey_commit(sm, &k->staged);

	k->have_staged = false;
	json_object_object_add(result, "partitions",
			       json_object_new_string(changed ? "changed" : "unchanged"));
	return changed;
}

const struct part_config *sm_pkey_config(const struct sm *sm)
{
	return &sm->pkey->cfg;
}

void sm_pkey_free(struct sm *sm)
{
	struct sm_pkey *k = sm->pkey;

	if (!k)
		return;
	for (size_t i = 0; i < k->ports.size; i++) {
		free(slot(k, i)->held);
		free(slot(k, i)->want);
		free(slot(k, i)->known);
	}
	guidtab_free(&k->ports);
	part_config_free(&k->cfg);
	if (k->have_staged)
		part_config_free(&k->staged);
	free(k);
	sm->pkey = NULL;
}

/* --- the snapshot --------------------------------------------------------------- */

/* What the SM gives port p: the last layout, or (a port not programmed
 * yet) what the partitions say. Writes at most cap, returns the count. */
static size_t snap_table(const struct sm *sm, const struct sm_snap *s, const struct snap_port *p,
			 uint16_t *out, size_t cap)
{
	const struct snap_node *n = snap_node_of(s, p);
	const struct pk_port *pp = port_find(sm->pkey, n->guid, p->num);
	struct part_port r = {
		.guid = p->guid, .is_switch = n->is_switch,
		.is_router = n->ni.node_type == TOPO_ROUTER, .is_sm = p->guid == s->sm_port_guid,
	};
	size_t k = 0;

	if (pp && pp->laid_out) {
		for (size_t i = 0; i < pp->nwant && k < cap; i++)
			if (pkey_valid(pp->want[i]))
				out[k++] = pp->want[i];
		return k;
	}
	k = part_port_pkeys(&sm->pkey->cfg, &r, sm->conf.allow_both_pkeys, out, cap);
	if (r.is_sm && k <= cap)
		k = dedup(out, sm_port_full_default(out, k, cap));
	return k > cap ? cap : k;
}

void sm_pkey_snap_fill(const struct sm *sm, struct sm_snap *s)
{
	uint16_t *t = xcalloc(PKEY_MAX_ENTRIES, sizeof(*t));
	size_t used = 0, capacity = 0;

	for (uint32_t i = 0; i < s->nports && sm->pkey; i++) {
		struct snap_port *p = &s->ports[i];
		size_t n;

		p->pkey_first = 0;
		p->npkeys = 0;
		if (!p->guid || (p->num && snap_node_of(s, p)->is_switch))
			continue;
		n = snap_table(sm, s, p, t, PKEY_MAX_ENTRIES);
		if (used + n > capacity) {
			capacity = 2 * (used + n) + 64;
			s->pkeys = xrealloc(s->pkeys, capacity * sizeof(*s->pkeys));
		}
		memcpy(s->pkeys + used, t, n * sizeof(*t));
		p->pkey_first = (uint32_t)used;
		p->npkeys = (uint16_t)n;
		used += n;
	}
	free(t);
}

bool sm_pkey_held(const struct sm *sm, uint64_t node_guid, uint8_t num, uint16_t block,
		  struct smp_pkey_block *out)
{
	const struct pk_port *pp = port_find(sm->pkey, node_guid, num);

	if (!pp || block >= nblocks(pp->cap) || pp->known[block] != PK_KNOWN)
		return false;
	block_of(pp->held, pp->cap, block, out);
	return true;
}

/* --- the audit (audit.h) ------------------------------------------------------ */

/* p's record when the SM laid out a table for p this sweep and nothing of
 * it is in flight; else NULL. A switch's external ports have no GUID of
 * their own (IBA 14.2.5.3): they are found by the switch's. */
static struct pk_port *audited(const struct sm *sm, const struct sm_port *p)
{
	bool has_table = p->guid || node_is_switch(p->node);
	struct pk_port *pp = has_table ? port_find(sm->pkey, p->node->guid, p->num) : NULL;

	return pp && pp->used && pp->p == p && pp->laid_out && !pp->left ? pp : NULL;
}

unsigned sm_pkey_audit_blocks(const struct sm *sm, const struct sm_port *p)
{
	const struct pk_port *pp = sm->pkey ? audited(sm, p) : NULL;

	return pp ? nblocks(pp->cap) : 0;
}

static struct pk_audit_ctx *audit_ctx(struct sm *sm, const struct pk_port *pp, uint16_t b,
				      bool verify)
{
	struct pk_audit_ctx *c = xcalloc(1, sizeof(*c));

	c->sm = sm;
	c->key = pp->key;
	c->gen = sm->fabric_gen;
	c->block = b;
	c->verify = verify;
	return c;
}

/* Sends an audit's or a read-back's SMP; -1 when the engine refused it
 * (c is freed). */
static int audit_send(struct sm *sm, const struct mad_req *r, mad_done_fn cb,
		      struct pk_audit_ctx *c)
{
	if (sm_light_submit(sm, r, cb, c) < 0) {
		free(c);
		return -1;
	}
	if (c->verify)
		sm->pkey->verifying++;
	return 0;
}

static void verify_put(struct sm *sm);

/* The end of an audit's or a read-back's SMP. */
static void audit_finish(struct pk_audit_ctx *c)
{
	struct sm *sm = c->sm;
	bool verify = c->verify;

	free(c);
	if (verify)
		verify_put(sm);
	sm_light_put(sm);
}

/* The port of an answer, if the sweep it was asked in still stands. */
static struct pk_port *audit_port(const struct pk_audit_ctx *c, int err)
{
	struct pk_port *pp;

	if (err != MAD_OK || c->gen != c->sm->fabric_gen || c->sm->sweeping)
		return NULL;
	pp = port_find(c->sm->pkey, c->key.guid, c->key.num);
	return pp && pp->used && pp->laid_out && c->block < nblocks(pp->cap) ? pp : NULL;
}

static void audit_written(void *arg, int err, const struct smp *resp)
{
	struct pk_audit_ctx *c = arg;
	struct pk_port *pp = audit_port(c, err);
	struct smp_pkey_block blk;

	(void)resp;
	if (pp) {
		block_of(pp->want, pp->cap, c->block, &blk);
		block_store(pp->held, pp->cap, c->block, &blk);
		pp->known[c->block] = PK_KNOWN;
	}
	audit_finish(c);
}

static unsigned differing(const struct smp_pkey_block *a, const struct smp_pkey_block *b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < PK_BLOCK; i++)
		n += a->pkey[i] != b->pkey[i];
	return n;
}

/* What we laid out is the reference: the block goes back to it. */
static void audit_repair(struct sm *sm, struct pk_port *pp, const struct pk_audit_ctx *rc,
			 const struct smp_pkey_block *want, unsigned bad)
{
	struct mad_req r;

	log_fabric(LOG_LVL_WARNING, "%s: %016llx \"%s\" port %u P_KeyTable block %u had %u "
		   "entries that are not ours%s: written back",
		   rc->verify ? "read-back after the sweep" : "audit", (unsigned long long)pp->key.guid,
		   pp->p->node->desc, pp->key.num, rc->block, bad,
		   pp->assumed ? " (its table was taken for the reset one, not read)" : "");
	if (rc->verify)
		sm->pkey->st.verify_repaired++;
	else
		sm->pkey->audit_repaired++;
	block_req(sm, pp, MAD_METHOD_SET, rc->block, &r);
	smp_pkey_block_encode(want, r.data, sizeof(r.data));
	sm_event(sm, "audit_repair", pp->p);
	audit_send(sm, &r, audit_written, audit_ctx(sm, pp, rc->block, rc->verify));
}

/* A read-back that did not come through: the port stays to be read back
 * (after the next sweep; the audit reads it meanwhile). */
static void verify_missed(const struct pk_audit_ctx *c)
{
	struct pk_port *pp = port_find(c->sm->pkey, c->key.guid, c->key.num);

	if (pp)
		pp->unverified = true;
	c->sm->pkey->st.verify_failed++;
}

static void audit_read(void *arg, int err, const struct smp *resp)
{
	struct pk_audit_ctx *c = arg;
	struct pk_port *pp = audit_port(c, err);
	struct smp_pkey_block got, want;

	if (pp && smp_pkey_block_decode(resp->data, sizeof(resp->data), &got) == 0) {
		block_of(pp->want, pp->cap, c->block, &want);
		block_store(pp->held, pp->cap, c->block, &got);
		pp->known[c->block] = PK_KNOWN;
		if (differing(&got, &want))
			audit_repair(c->sm, pp, c, &want, differing(&got, &want));
	} else if (c->verify) {
		verify_missed(c);
	}
	audit_finish(c);
}

void sm_pkey_audit(struct sm *sm, struct sm_port *p, uint16_t block)
{
	struct pk_port *pp = audited(sm, p);
	struct mad_req r;

	if (!pp || block >= nblocks(pp->cap))
		return;
	block_req(sm, pp, MAD_METHOD_GET, block, &r);
	if (audit_send(sm, &r, audit_read, audit_ctx(sm, pp, block, false)) == 0)
		sm->pkey->audit_read++;
}

/* --- the read-back after a sweep --------------------------------------------- */

static void verify_put(struct sm *sm)
{
	struct sm_pkey *k = sm->pkey;
	const struct pk_stats *s = &k->st;
	void (*then)(struct sm *) = k->verified;

	if (--k->verifying)
		return;
	log_info("P_Keys: %llu switch ports' tables assumed, %llu blocks verified after the sweep, "
		 "%llu written back, %llu not read back, in %llu ms", (unsigned long long)s->verify_ports,
		 (unsigned long long)s->verify_read, (unsigned long long)s->verify_repaired,
		 (unsigned long long)s->verify_failed,
		 (unsigned long long)(clock_ms() - k->verify_start_ms));
	k->verified = NULL;
	if (then)
		then(sm);
}

static void verify_port(struct sm *sm, struct pk_port *pp)
{
	struct mad_req r;

	pp->unverified = false;
	sm->pkey->st.verify_ports++;
	for (uint16_t b = 0; b < nblocks(pp->cap); b++) {
		block_req(sm, pp, MAD_METHOD_GET, b, &r);
		if (audit_send(sm, &r, audit_read, audit_ctx(sm, pp, b, true)) < 0) {
			pp->unverified = true;
			sm->pkey->st.verify_failed++;
			continue;
		}
		sm->pkey->st.verify_read++;
	}
}

/* The switch ports of the fabric due for a read-back (with nothing of
 * them in flight), each given to fn if not NULL; how many. Walks the
 * fabric, not the records: a record's port may be of a fabric gone. */
static unsigned each_due(struct sm *sm, void (*fn)(struct sm *, struct pk_port *))
{
	unsigned n = 0;

	for (uint32_t i = 0; sm->fabric && i < sm->fabric->nnodes; i++) {
		struct sm_node *nd = sm->fabric->nodes[i];

		for (unsigned k = 1; node_is_switch(nd) && k <= nd->ni.num_ports; k++) {
			struct pk_port *pp = audited(sm, &nd->ports[k]);

			if (pp && pp->unverified) {
				n++;
				if (fn)
					fn(sm, pp);
			}
		}
	}
	return n;
}

void sm_pkey_verify(struct sm *sm, void (*then)(struct sm *))
{
	struct sm_pkey *k = sm->pkey;
	bool send = k && each_due(sm, NULL) && sm_light_begin(sm);

	if (!k || (!send && !k->verifying)) {
		if (then)
			then(sm);
		return;
	}
	if (then)
		k->verified = then;
	if (!send)
		return;
	if (!k->verifying)
		k->verify_start_ms = clock_ms();
	k->verifying++;   /* held until every port's reads are out */
	each_due(sm, verify_port);
	verify_put(sm);
	sm_light_put(sm);
}

/* --- control socket ---------------------------------------------------------------- */

json_object *sm_pkey_json(const struct sm *sm)
{
	json_object *o = json_object_new_object();
	const struct pk_stats *s = &sm->pkey->st;

	json_object_object_add(o, "partitions", json_object_new_int64((int64_t)sm->pkey->cfg.n_parts));
	json_object_object_add(o, "ports", json_object_new_int64((int64_t)s->ports));
	json_object_object_add(o, "blocks_read", json_object_new_int64((int64_t)s->blocks_read));
	json_object_object_add(o, "blocks_written", json_object_new_int64((int64_t)s->blocks_written));
	json_object_object_add(o, "enforcement_changes", json_object_new_int64((int64_t)s->pi_sets));
	json_object_object_add(o, "tables_cut", json_object_new_int64((int64_t)s->cut));
	json_object_object_add(o, "ports_untouched", json_object_new_int64((int64_t)s->assumed));
	json_object_object_add(o, "ports_verified", json_object_new_int64((int64_t)s->verify_ports));
	json_object_object_add(o, "blocks_verified", json_object_new_int64((int64_t)s->verify_read));
	json_object_object_add(o, "verify_blocks_repaired",
			       json_object_new_int64((int64_t)s->verify_repaired));
	json_object_object_add(o, "audit_blocks_read",
			       json_object_new_int64((int64_t)sm->pkey->audit_read));
	json_object_object_add(o, "audit_blocks_repaired",
			       json_object_new_int64((int64_t)sm->pkey->audit_repaired));
	return o;
}
