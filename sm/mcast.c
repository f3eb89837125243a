/*
 * DOC: the multicast manager: the database behind the SA's calls, batches
 * that compute the trees and program the MFTs as a diff (see mcast.h).
 *
 * A batch is three stages of SMPs, counted by the manager itself (a batch
 * between sweeps is no sweep phase):
 *
 *   compute trees -> read back unknown blocks -> write differing blocks
 *   -> MulticastFDBTop where supported -> done
 *
 * What a switch holds is kept per switch GUID (struct mft_sw), so it
 * survives fabric generations; SMP contexts point at that, never at the
 * fabric, which a heavy sweep may replace while a batch is in flight.
 */
#include "config.h"

#include <endian.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "conf/partitions.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "sm/mcast.h"
#include "sm/pkey.h"
#include "lib/guidtab.h"
#include "sm/sm.h"
#include "sm/snap_build.h"
#include "sm/tablephases.h"

#define CAP_MCAST_FDB_TOP 0x40000000u   /* PortInfo CapabilityMask bit 30 */
#define RETRY_MS 1000                   /* after a batch with failed SMPs */

enum { K_UNKNOWN, K_KNOWN, K_FAILED };

struct mft_sw {
	uint64_t guid;
	bool used;                /* in the running batch */
	bool fdbtop;              /* takes MulticastFDBTop */
	uint8_t npos;
	struct mcast_mft held;    /* what the switch holds (known blocks) */
	uint8_t known[MCAST_MAX_BLOCKS];
	uint8_t rpend[MCAST_MAX_BLOCKS];   /* position reads outstanding */
	uint8_t rfail[MCAST_MAX_BLOCKS];
	uint32_t idx;             /* topo node index in the running batch */
};

/* The table holds a pointer per switch, not the 1.6 KB record: SMP
 * contexts keep the record's address, and the first batch on a large
 * fabric no longer copies every record each time the table doubles. */
struct mft_ref {
	struct guidtab_key key;   /* switch GUID, port 0 */
	struct mft_sw *w;
};

struct mc_stats {
	uint64_t batches, trees, blocks_read, blocks_written, top_sets, failed, dropped;
	double compute_ms, total_ms;
};

struct sm_mcast {
	struct mcdb *db;
	struct mcast_result res;   /* the last batch's trees (prev of the next) */
	bool have_res;
	struct mcast_result seed;  /* trees of a saved state, until the first batch */
	bool have_seed;
	uint64_t trees_gen;        /* bumped when a batch's trees differ */
	void (*on_batch)(void *arg, struct sm *sm);
	void *on_batch_arg;
	struct guidtab sw;        /* of struct mft_ref */
	struct event *ev;
	unsigned inflight;
	void (*stage)(struct sm *);
	void (*done)(struct sm *);      /* the running batch's continuation */
	void (*waiting)(struct sm *);   /* a sweep phase waiting for it */
	bool in_sweep;
	bool have_first;
	struct timespec t_first;        /* first change the batch programs */
	struct timespec t_last;         /* latest change */
	unsigned nchanges;              /* changes since t_first */
	struct timespec t_start;
	mc_notice_fn notice;
	void *notice_arg;
	struct mc_stats last, total;
	uint16_t top;                   /* MulticastFDBTop the batch wants */
};

struct mc_ctx {
	struct sm *sm;
	struct mft_sw *sw;
	uint16_t block;
	uint8_t pos;
	uint16_t words[32];
};

/* --- switches by GUID ----------------------------------------------------------- */

/* The switch in slot i of the table, or NULL. */
static struct mft_sw *sw_at(const struct sm_mcast *mc, size_t i)
{
	const struct mft_ref *r = guidtab_slot(&mc->sw, i);

	return r->key.guid ? r->w : NULL;
}

static void sw_forget(struct mft_sw *w, uint8_t npos)
{
	mcast_mft_free(&w->held);
	mcast_mft_init(&w->held, (uint8_t)(npos * 16 - 1));
	w->npos = npos;
	memset(w->known, K_UNKNOWN, sizeof(w->known));
}

static struct mft_sw *sw_get(struct sm_mcast *mc, uint64_t guid, uint8_t npos)
{
	struct mft_ref *r = guidtab_get(&mc->sw, guid, 0);
	struct mft_sw *w = r->w;

	if (!w) {
		w = r->w = xcalloc(1, sizeof(*w));
		w->guid = guid;
		mcast_mft_init(&w->held, 0);
		sw_forget(w, npos);
	}
	if (w->npos != npos)
		sw_forget(w, npos);
	return w;
}

static struct mft_sw *sw_find(const struct sm_mcast *mc, uint64_t guid)
{
	const struct mft_ref *r = mc ? guidtab_find(&mc->sw, guid, 0) : NULL;

	return r ? r->w : NULL;
}

/* --- SMPs, counted per stage ----------------------------------------------------- */

static void stage_begin(struct sm_mcast *mc, void (*next)(struct sm *))
{
	mc->stage = next;
	mc->inflight = 1;
}

static void stage_put(struct sm *sm)
{
	struct sm_mcast *mc = sm->mcast;
	void (*fn)(struct sm *) = mc->stage;

	if (--mc->inflight)
		return;
	mc->stage = NULL;
	if (!sm->stopping)   /* shutting down: the engine cancels what is left */
		fn(sm);
}

static void failed(struct sm *sm, const struct mc_ctx *c, const char *what, int err)
{
	sm->mcast->last.failed++;
	if (sm->mcast->in_sweep) {
		sm->sweep_clean = false;
		sm->st.errors++;
	}
	log_fabric(LOG_LVL_WARNING, "%016llx: MFT block %u position %u %s failed (%d)",
		   (unsigned long long)c->sw->guid, c->block, c->pos, what, err);
}

static void submit(struct sm *sm, const struct mad_req *r, struct mc_ctx *c, mad_done_fn cb)
{
	if (mad_engine_submit(sm->eng, r, cb, c) < 0) {
		failed(sm, c, "submit", MAD_ERR_SEND);
		free(c);
		return;
	}
	sm->mcast->inflight++;
}

static struct mc_ctx *ctx(struct sm *sm, struct mft_sw *w, uint16_t block, uint8_t pos)
{
	struct mc_ctx *c = xcalloc(1, sizeof(*c));

	c->sm = sm;
	c->sw = w;
	c->block = block;
	c->pos = pos;
	return c;
}

/* --- read back ------------------------------------------------------------------- */

static void read_done(void *arg, int err, const struct smp *resp)
{
	struct mc_ctx *c = arg;
	struct sm *sm = c->sm;
	struct mft_sw *w = c->sw;
	struct smp_mft_block b;

	if (err == MAD_OK && smp_mft_block_decode(resp->data, sizeof(resp->data), &b) == 0 &&
	    mcast_mft_put(&w->held, c->block, c->pos, b.mask) == 0) {
		/* stored */
	} else {
		w->rfail[c->block] = 1;
		if (err != MAD_ERR_CANCELED)
			failed(sm, c, "read", err);
	}
	if (--w->rpend[c->block] == 0)
		w->known[c->block] = w->rfail[c->block] ? K_FAILED : K_KNOWN;
	free(c);
	stage_put(sm);
}

static void read_block(struct sm *sm, const struct sm_node *n, struct mft_sw *w, uint16_t b)
{
	struct mad_req r;

	w->rpend[b] = w->npos;
	w->rfail[b] = 0;
	sm->mcast->last.blocks_read += w->npos;
	for (uint8_t pos = 0; pos < w->npos; pos++) {
		sm_dr_req(sm, n, MAD_METHOD_GET, SMP_ATTR_MFT, smp_mft_mod(b, pos), &r);
		submit(sm, &r, ctx(sm, w, b, pos), read_done);
	}
}

/* Blocks the switch holds or should hold an MLID in. */
static void blocks_of(const struct mcast_mft *m, uint8_t *mark)
{
	for (uint32_t i = 0; i < m->n; i++)
		mark[(m->mlid[i] - MCAST_MLID_MIN) / MCAST_BLOCK_MLIDS] = 1;
}

static void read_switch(struct sm *sm, const struct sm_node *n, struct mft_sw *w)
{
	uint8_t mark[MCAST_MAX_BLOCKS] = { 0 };

	blocks_of(&sm->mcast->res.mft[w->idx], mark);
	blocks_of(&w->held, mark);
	for (uint16_t b = 0; b < MCAST_MAX_BLOCKS; b++)
		if (mark[b] && w->known[b] != K_KNOWN)
			read_block(sm, n, w, b);
}

/* --- writes ------------------------------------------------------------------------ */

static void write_done(void *arg, int err, const struct smp *resp)
{
	struct mc_ctx *c = arg;
	struct sm *sm = c->sm;

	if (err == MAD_OK)
		mcast_mft_put(&c->sw->held, c->block, c->pos, c->words);
	else {
		c->sw->known[c->block] = K_UNKNOWN;   /* read it again next time */
		if (err != MAD_ERR_CANCELED)
			failed(sm, c, "Set", err);
	}
	free(c);
	stage_put(sm);
}

static void write_switch(struct sm *sm, const struct sm_node *n, struct mft_sw *w)
{
	const struct mcast_mft *want = &sm->mcast->res.mft[w->idx];
	size_t nd = mcast_mft_diff(&w->held, want, NULL, 0);
	struct mcast_blockpos *d = xcalloc(nd ? nd : 1, sizeof(*d));
	struct smp_mft_block blk;
	struct mad_req r;

	mcast_mft_diff(&w->held, want, d, nd);
	for (size_t i = 0; i < nd; i++) {
		struct mc_ctx *c;

		if (w->known[d[i].block] != K_KNOWN)
			continue;   /* never write what we could not read */
		c = ctx(sm, w, d[i].block, d[i].pos);
		mcast_mft_block(want, d[i].block, d[i].pos, c->words);
		memcpy(blk.mask, c->words, sizeof(blk.mask));
		sm_dr_req(sm, n, MAD_METHOD_SET, SMP_ATTR_MFT, smp_mft_mod(d[i].block, d[i].pos), &r);
		smp_mft_block_encode(&blk, r.data, sizeof(r.data));
		sm->mcast->last.blocks_written++;
		submit(sm, &r, c, write_done);
	}
	free(d);
}

static void top_done(void *arg, int err, const struct smp *resp)
{
	struct mc_ctx *c = arg;
	struct sm *sm = c->sm;
	struct sm_node *n = sm->fabric ? fabric_find(sm->fabric, c->sw->guid) : NULL;

	if (err == MAD_OK && n)
		smp_switch_info_decode(resp->data, sizeof(resp->data), &n->si);
	else if (err != MAD_OK && err != MAD_ERR_CANCELED)
		failed(sm, c, "MulticastFDBTop Set", err);
	free(c);
	stage_put(sm);
}

/* IBA 14.2.5.4 SwitchInfo: read-modify-write, PortStateChange written 0
 * (which leaves it alone), LinearFDBTop as the switch has it. */
static void set_top(struct sm *sm, const struct sm_node *n, struct mft_sw *w)
{
	struct smp_switch_info si = n->si;
	struct mad_req r;

	if (!w->fdbtop || si.mcast_top == sm->mcast->top)
		return;
	si.mcast_top = sm->mcast->top;
	si.port_state_change = 0;
	sm_dr_req(sm, n, MAD_METHOD_SET, SMP_ATTR_SWITCH_INFO, 0, &r);
	smp_switch_info_encode(&si, r.data, sizeof(r.data));
	sm->mcast->last.top_sets++;
	submit(sm, &r, ctx(sm, w, 0, 0), top_done);
}

/* --- the stages ---------------------------------------------------------------------- */

static void for_each_switch(struct sm *sm, void (*fn)(struct sm *, const struct sm_node *,
						      struct mft_sw *))
{
	struct sm_mcast *mc = sm->mcast;

	for (size_t i = 0; i < mc->sw.size; i++) {
		struct mft_sw *w = sw_at(mc, i);
		const struct sm_node *n;

		if (!w || !w->used)
			continue;
		n = fabric_find(sm->fabric, w->guid);
		if (n && node_usable(n))
			fn(sm, n, w);
	}
}

static void log_batch(struct sm *sm)
{
	struct sm_mcast *mc = sm->mcast;
	struct mc_stats *s = &mc->last;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	s->total_ms = clock_diff_ms(mc->have_first ? &mc->t_first : &mc->t_start, &now);
	/* Not "done in": scripts take that for the end of a sweep. */
	log_info("multicast: %s %llu: %llu trees in %.1f ms, %llu MFT blocks read, %llu written, "
		 "%llu MulticastFDBTop sets, %llu failed; %s %.1f ms", mc->in_sweep ? "sweep batch" : "batch",
		 (unsigned long long)mc->total.batches, (unsigned long long)s->trees, s->compute_ms,
		 (unsigned long long)s->blocks_read, (unsigned long long)s->blocks_written,
		 (unsigned long long)s->top_sets, (unsigned long long)s->failed,
		 mc->have_first ? "programmed after the first change in" : "took", s->total_ms);
	mc->total.trees += s->trees;
	mc->total.blocks_read += s->blocks_read;
	mc->total.blocks_written += s->blocks_written;
	mc->total.top_sets += s->top_sets;
	mc->total.failed += s->failed;
}

static void schedule(struct sm *sm, unsigned ms);

static void batch_end(struct sm *sm)
{
	struct sm_mcast *mc = sm->mcast;
	void (*done)(struct sm *) = mc->done, (*waiting)(struct sm *) = mc->waiting;
	bool failed_some = mc->last.failed > 0;

	log_batch(sm);
	if (mc->on_batch)
		mc->on_batch(mc->on_batch_arg, sm);
	mc->have_first = false;
	mc->done = mc->waiting = NULL;
	if (done)
		done(sm);
	if (waiting)
		sm_mcast_phase(sm, waiting);
	else if (!sm->stopping && (mcdb_dirty(mc->db) || failed_some))
		schedule(sm, failed_some ? RETRY_MS : sm->conf.mcast_batch_ms);
}

static void tops(struct sm *sm)
{
	stage_begin(sm->mcast, batch_end);
	for_each_switch(sm, set_top);
	stage_put(sm);
}

static void writes(struct sm *sm)
{
	stage_begin(sm->mcast, tops);
	for_each_switch(sm, write_switch);
	stage_put(sm);
}

/* --- computing the trees ----------------------------------------------------------- */

struct batch_groups {
	struct mcast_group *g;
	struct mcast_member *m;
	size_t ng, nm;
};

/* A member port in the fabric as (node, port), or false. */
static bool member_at(const struct fabric_port_index *ix, uint64_t guid, struct mcast_member *out)
{
	const struct sm_port *p = fabric_port_index_find(ix, guid);

	if (!p)
		return false;
	out->node = p->node->idx;
	out->port = p->num;
	return true;
}

static size_t members_total(const struct mcdb *db)
{
	size_t total = 0;

	for (size_t i = 0; i < mcdb_count(db); i++)
		total += mcdb_at(db, i)->nmembers;
	return total;
}

/* The ports by GUID, for the members' lookups: none are needed without
 * members (a fresh fabric), and on a large fabric the index costs more
 * than the rest of such a batch. */
static void members_index(const struct sm *sm, struct fabric_port_index *ix)
{
	if (members_total(sm->mcast->db))
		fabric_port_index_build(sm->fabric, ix);
	else
		*ix = (struct fabric_port_index){ 0 };
}

static void collect_groups(const struct sm *sm, const struct fabric_port_index *ix,
			   struct batch_groups *bg)
{
	const struct mcdb *db = sm->mcast->db;
	size_t total = members_total(db);

	bg->g = xcalloc(mcdb_count(db) + 1, sizeof(*bg->g));
	bg->m = xcalloc(total + 1, sizeof(*bg->m));
	bg->ng = bg->nm = 0;
	for (size_t i = 0; i < mcdb_count(db); i++) {
		const struct mc_group *g = mcdb_at(db, i);
		struct mcast_group *out = &bg->g[bg->ng];

		if (g->rec.mlid > mcdb_mlid_top(db))
			continue;
		out->mlid = g->rec.mlid;
		out->members = bg->m + bg->nm;
		for (uint32_t k = 0; k < g->nmembers; k++)
			if (member_at(ix, g->members[k].guid, &bg->m[bg->nm]))
				bg->nm++;
		out->nmembers = (uint32_t)(bg->m + bg->nm - out->members);
		bg->ng++;
	}
}

/* Clears the bit of mlid for port on a switch's table; an MLID left with
 * no bit drops out (mcast_mft holds non-empty masks only). */
static void clear_bit(struct mcast_mft *m, uint16_t mlid, uint8_t port)
{
	for (uint32_t i = 0; i < m->n; i++) {
		uint16_t *w;
		bool empty = true;

		if (m->mlid[i] != mlid)
			continue;
		w = &m->mask[(size_t)i * m->npos];
		if (port / 16 < m->npos)
			w[port / 16] &= (uint16_t)~(1u << (port % 16));
		for (unsigned k = 0; k < m->npos; k++)
			empty = empty && !w[k];
		if (!empty)
			return;
		memmove(m->mlid + i, m->mlid + i + 1, (m->n - i - 1) * sizeof(*m->mlid));
		memmove(w, w + m->npos, (size_t)(m->n - i - 1) * m->npos * sizeof(*w));
		m->n--;
		return;
	}
}

/* Send-only members send into the tree but receive nothing: the bit of
 * their switch port goes. */
static void send_only(const struct sm *sm, const struct fabric_port_index *ix, const struct topo *t,
		      struct mcast_result *res)
{
	const struct mcdb *db = sm->mcast->db;

	for (size_t i = 0; i < mcdb_count(db); i++) {
		const struct mc_group *g = mcdb_at(db, i);

		for (uint32_t k = 0; k < g->nmembers; k++) {
			struct mcast_member m;
			const struct topo_port *tp;

			if (g->members[k].join_state & ~MC_JOIN_SENDONLY ||
			    !member_at(ix, g->members[k].guid, &m) || !m.port)
				continue;
			tp = &t->nodes[m.node].ports[m.port];
			if (tp->peer_node != TOPO_NONE && t->nodes[tp->peer_node].type == TOPO_SWITCH)
				clear_bit(&res->mft[tp->peer_node], g->rec.mlid, tp->peer_port);
		}
	}
}

static void log_misses(const struct mcast_result *res)
{
	static const char *const why[] = { "?", "its port has no link",
					   "its switch is cut off from the root",
					   "the unicast tables lead nowhere" };

	for (uint32_t i = 0; i < res->nmiss && i < 8; i++)
		log_fabric(LOG_LVL_WARNING, "multicast: MLID 0x%04x member %u not reached: %s",
			   res->miss[i].mlid, res->miss[i].member,
			   why[res->miss[i].why < 4 ? res->miss[i].why : 0]);
}

/* The same trees: roots, and every switch's place and upstream port. */
static bool same_trees(const struct mcast_result *a, const struct mcast_result *b)
{
	if (!b || a->ngroups != b->ngroups)
		return false;
	for (uint32_t i = 0; i < a->ngroups; i++) {
		const struct mcast_tree *x = &a->trees[i], *y = &b->trees[i];

		if (x->mlid != y->mlid || x->root_guid != y->root_guid || x->nsw != y->nsw)
			return false;
		for (uint32_t k = 0; k < x->nsw; k++) {
			const struct mcast_tsw *p = &a->tsw[x->first + k], *q = &b->tsw[y->first + k];

			if (p->guid != q->guid || p->parent != q->parent || p->up != q->up)
				return false;
		}
	}
	return true;
}

/* The trees of every group on the current fabric and routes. */
static bool compute(struct sm *sm)
{
	struct sm_mcast *mc = sm->mcast;
	struct topo *t = fabric_to_topo(sm->fabric);
	struct mcast_opts o = { .mlid_top = mcdb_mlid_top(mc->db), .prev = sm_mcast_trees(sm) };
	struct mcast_result res;
	struct batch_groups bg;
	struct fabric_port_index ix;
	struct timespec t0, t1;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	members_index(sm, &ix);
	collect_groups(sm, &ix, &bg);
	memset(&res, 0, sizeof(res));
	rc = mcast_compute(t, &sm->routes, bg.g, bg.ng, &o, &res);
	if (rc == 0)
		send_only(sm, &ix, t, &res);
	fabric_port_index_free(&ix);
	fabric_topo_free(t);
	free(bg.g);
	free(bg.m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	mc->last.compute_ms = clock_diff_ms(&t0, &t1);
	if (rc < 0) {
		log_warnx("multicast: trees not computed: %s", res.why);
		mcast_result_free(&res);
		return false;
	}
	log_misses(&res);
	if (!same_trees(&res, sm_mcast_trees(sm)))
		mc->trees_gen++;
	if (mc->have_res)
		mcast_result_free(&mc->res);
	if (mc->have_seed)
		mcast_result_free(&mc->seed);
	mc->have_seed = false;
	mc->res = res;
	mc->have_res = true;
	mc->last.trees = res.ngroups;
	mc->top = res.top;
	return true;
}

static uint16_t mlid_top_of(const struct sm_fabric *f)
{
	unsigned cap = MCAST_MLID_MAX - MCAST_MLID_MIN + 1;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		if (node_is_switch(n) && n->have_si && node_usable(n) && n->si.mcast_cap &&
		    n->si.mcast_cap < cap)
			cap = n->si.mcast_cap;
	}
	return (uint16_t)(MCAST_MLID_MIN + cap - 1);
}

/* The switches of this batch, bound to their topo index. */
static void bind_switches(struct sm *sm)
{
	struct sm_mcast *mc = sm->mcast;
	const struct sm_fabric *f = sm->fabric;

	for (size_t i = 0; i < mc->sw.size; i++) {
		struct mft_sw *w = sw_at(mc, i);

		if (w)
			w->used = false;
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];
		struct mft_sw *w;

		if (!node_is_switch(n) || !n->have_si || !node_usable(n) || !n->si.mcast_cap ||
		    !mc->res.mft[i].npos)
			continue;
		w = sw_get(mc, n->guid, mc->res.mft[i].npos);
		if (tables_port_fresh(&n->ports[0]))
			sw_forget(w, w->npos);
		w->used = true;
		w->idx = i;
		w->fdbtop = n->ports[0].have_pi && (n->ports[0].pi.cap_mask & CAP_MCAST_FDB_TOP);
	}
}

static void batch_start(struct sm *sm, void (*done)(struct sm *), bool in_sweep)
{
	struct sm_mcast *mc = sm->mcast;

	mc->done = done;
	mc->in_sweep = in_sweep;
	memset(&mc->last, 0, sizeof(mc->last));
	mc->total.batches++;
	clock_gettime(CLOCK_MONOTONIC, &mc->t_start);
	mcdb_take_dirty(mc->db);
	mcdb_set_mlid_top(mc->db, mlid_top_of(sm->fabric));
	stage_begin(mc, writes);
	if (compute(sm)) {
		bind_switches(sm);
		for_each_switch(sm, read_switch);
	} else {
		mc->stage = batch_end;
	}
	stage_put(sm);
}

/* --- batching ------------------------------------------------------------------------ */

/* Only a master writes (a standby sends no Set, ever); a batch waits
 * for a running sweep, whose own phase may already have taken it. */
static bool can_program(const struct sm *sm)
{
	return sm_may_write(sm) && sm->fabric && sm->have_routes && !sm->sweeping &&
	       !sm->stopping;
}

/* The batch waits until changes pause, but no longer than mcast_batch_ms
 * after its first change: a join storm is programmed once, a lone join
 * soon. A pause is a fifth of mcast_batch_ms, or, once changes came in a
 * burst, QUIET_PACE times their mean spacing if that is shorter (at least
 * QUIET_MIN_MS): 648 joins in 20 ms are 31 us apart, and waiting 10 ms
 * after the last of them made programming wait for nothing. Milliseconds
 * still to wait, or 0. */
#define QUIET_PACE 8
#define QUIET_MIN_MS 1.0
static unsigned wait_more(const struct sm *sm)
{
	const struct sm_mcast *mc = sm->mcast;
	double cap = sm->conf.mcast_batch_ms, quiet = cap / 5, since_last, since_first;
	struct timespec now;

	if (!mc->have_first || cap == 0)
		return 0;
	if (mc->nchanges > 1) {
		double pace = QUIET_PACE * clock_diff_ms(&mc->t_first, &mc->t_last) / (mc->nchanges - 1);

		pace = pace < QUIET_MIN_MS ? QUIET_MIN_MS : pace;
		quiet = pace < quiet ? pace : quiet;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	since_last = clock_diff_ms(&mc->t_last, &now);
	since_first = clock_diff_ms(&mc->t_first, &now);
	if (since_last >= quiet || since_first >= cap)
		return 0;
	return (unsigned)(quiet - since_last) + 1;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct sm_mcast *mc = sm->mcast;
	unsigned ms;

	if (mc->inflight)
		return;   /* batch_end looks again */
	if (!can_program(sm)) {
		if (!sm->stopping && sm->fabric && sm->state == SM_STATE_MASTER)
			schedule(sm, sm->conf.mcast_batch_ms ? sm->conf.mcast_batch_ms : 10);
		return;
	}
	if (!mcdb_dirty(mc->db) && !mc->last.failed)
		return;
	if ((ms = wait_more(sm))) {
		schedule(sm, ms);
		return;
	}
	batch_start(sm, NULL, false);
	sm_arm_engine_timer(sm);
}

static void schedule(struct sm *sm, unsigned ms)
{
	struct sm_mcast *mc = sm->mcast;
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };

	if (!sm->base)
		return;
	if (!mc->ev)
		mc->ev = evtimer_new(sm->base, on_timer, sm);
	if (!evtimer_pending(mc->ev, NULL))
		evtimer_add(mc->ev, &tv);
}

/* A change to the groups: program it with whatever else comes meanwhile. */
static void changed(struct sm *sm)
{
	struct sm_mcast *mc = sm->mcast;

	if (!mcdb_dirty(mc->db))
		return;
	clock_gettime(CLOCK_MONOTONIC, &mc->t_last);
	if (!mc->have_first) {
		mc->t_first = mc->t_last;
		mc->have_first = true;
		mc->nchanges = 0;
	}
	mc->nchanges++;
	schedule(sm, sm->conf.mcast_batch_ms / 5);
}

/* --- the sweep's phase ----------------------------------------------------------------- */

/* A member whose port went down or away leaves its groups (a port that
 * did not answer this sweep is kept as last seen), and so do the members
 * a proxy that went away added and that never joined themselves. */
static bool member_gone(const struct sm *sm, const struct fabric_port_index *ix, uint64_t guid)
{
	return fabric_port_departed(sm->fabric, ix, guid, sm->sweep_clean);
}

static void push_guid(uint64_t **v, size_t *n, size_t *cap, uint64_t guid)
{
	if (*n && (*v)[*n - 1] == guid)
		return;
	if (*n == *cap)
		*v = xrealloc(*v, (*cap = *cap ? 2 * *cap : 16) * sizeof(**v));
	(*v)[(*n)++] = guid;
}

static int guid_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sorted, each once; the new count. */
static size_t uniq(uint64_t *v, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), guid_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* The ports gone (members, and proxies that made members), in *gone and
 * *proxies; returns how many of each through *ng and *np. */
static void find_gone(struct sm *sm, uint64_t **gone, size_t *ng, uint64_t **proxies, size_t *np)
{
	const struct mcdb *db = sm->mcast->db;
	struct fabric_port_index ix;
	size_t cg = 0, cp = 0;

	members_index(sm, &ix);
	for (size_t i = 0; i < mcdb_count(db); i++) {
		const struct mc_group *g = mcdb_at(db, i);

		for (uint32_t k = 0; k < g->nmembers; k++) {
			const struct mc_member *m = &g->members[k];

			if (member_gone(sm, &ix, m->guid))
				push_guid(gone, ng, &cg, m->guid);
			else if (m->proxy && m->by && member_gone(sm, &ix, m->by))
				push_guid(proxies, np, &cp, m->by);
		}
	}
	fabric_port_index_free(&ix);
	*ng = uniq(*gone, *ng);
	*np = uniq(*proxies, *np);
}

static void drop_members(struct sm *sm)
{
	struct mcdb *db = sm->mcast->db;
	uint64_t *gone = NULL, *proxies = NULL;
	size_t ng = 0, np = 0, n;

	find_gone(sm, &gone, &ng, &proxies, &np);
	for (size_t i = 0; i < ng; i++)
		if (mcdb_remove_port(db, gone[i])) {
			sm->mcast->last.dropped++;
			log_notice("multicast: port %016llx is down or gone: it left its groups",
				   (unsigned long long)gone[i]);
		}
	for (size_t i = 0; i < np; i++)
		if ((n = mcdb_remove_made_by(db, proxies[i])))
			log_notice("multicast: port %016llx is down or gone: the %zu memberships it "
				   "made for ports that never joined themselves went with it",
				   (unsigned long long)proxies[i], n);
	free(gone);
	free(proxies);
}

void sm_mcast_phase(struct sm *sm, void (*done)(struct sm *))
{
	struct sm_mcast *mc = sm->mcast;

	if (mc->inflight) {   /* a batch is running: this one follows it */
		mc->waiting = done;
		return;
	}
	if (!sm->have_routes) {
		done(sm);
		return;
	}
	if (mc->ev)
		evtimer_del(mc->ev);
	drop_members(sm);
	batch_start(sm, done, true);
}

/* --- the database and the SA's calls ----------------------------------------------- */

static bool lookup(void *arg, uint64_t guid, struct mc_port *out)
{
	const struct sm *sm = arg;
	const struct sm_snap *s = sm_snap_current(sm);
	const struct snap_port *p = s ? snap_port_by_guid(s, guid) : NULL;

	if (!p || !p->have_pi || p->pi.port_state != TOPO_PORT_ACTIVE)
		return false;
	out->pkeys = snap_port_pkeys(s, p, &out->npkeys);
	if (!p->num) {   /* switch port 0: no link of its own */
		out->mtu = 5;
		out->rate = 24;
		return true;
	}
	out->mtu = p->pi.neighbor_mtu ? p->pi.neighbor_mtu : p->pi.mtu_cap;
	out->rate = mc_link_rate(p->pi.link_width_active, p->pi.link_speed_active,
				 p->pi.link_speed_ext_active, p->pi.cap_mask);
	return true;
}

static void notice(void *arg, uint16_t trap, const uint8_t mgid[16], uint16_t pkey)
{
	struct sm *sm = arg;
	char buf[48];

	snprintf(buf, sizeof(buf), "%02x%02x:%02x%02x:%02x%02x:...:%02x%02x:%02x%02x", mgid[0],
		 mgid[1], mgid[2], mgid[3], mgid[4], mgid[5], mgid[12], mgid[13], mgid[14], mgid[15]);
	log_info("multicast: trap %u, group %s (P_Key 0x%04x) %s", trap, buf, pkey,
		 trap == MC_TRAP_CREATED ? "has a full member" : "has no full member left");
	if (sm->mcast->notice)
		sm->mcast->notice(sm->mcast->notice_arg, trap, mgid, pkey);
}

int sm_mcast_init(struct sm *sm, FILE *err)
{
	struct mcdb_opts o = {
		.subnet_prefix = sm->conf.subnet_prefix,
		.pkt_life = (uint8_t)sm->conf.subnet_timeout,
		.port = lookup, .port_arg = sm, .notice = notice, .notice_arg = sm,
	};

	sm->mcast = xcalloc(1, sizeof(*sm->mcast));
	guidtab_init(&sm->mcast->sw, sizeof(struct mft_ref));
	(void)err;   /* nothing here can fail */
	sm->mcast->db = mcdb_new(&o);
	sm_mcast_partitions(sm);
	return 0;
}

void sm_mcast_free(struct sm *sm)
{
	struct sm_mcast *mc = sm->mcast;

	if (!mc)
		return;
	if (mc->ev)
		event_free(mc->ev);
	for (size_t i = 0; i < mc->sw.size; i++) {
		struct mft_sw *w = sw_at(mc, i);

		if (w)
			mcast_mft_free(&w->held);
		free(w);
	}
	guidtab_free(&mc->sw);
	if (mc->have_res)
		mcast_result_free(&mc->res);
	if (mc->have_seed)
		mcast_result_free(&mc->seed);
	mcdb_free(mc->db);
	free(mc);
	sm->mcast = NULL;
}

static void set_limits(struct sm *sm)
{
	const struct sm_conf *c = &sm->conf;
	struct mc_limits l = {
		.groups_per_port = c->sa_groups_per_port,
		.memberships_per_port = c->sa_memberships_per_port,
		.groups_per_partition = c->sa_groups_per_partition,
		.memberships = c->sa_max_memberships,
		.trusted_share = c->sa_trusted_share,
	};

	mcdb_set_limits(sm->mcast->db, &l);
}

/* A join refused for a limit: who asked, for whom, which limit. */
static void log_refusal(const struct sm *sm, const struct mc_who *who,
			const struct sa_mcmember_rec *req)
{
	enum mc_refusal r = mcdb_shares(sm->mcast->db)->last;
	uint64_t guid;

	if (!r)
		return;
	memcpy(&guid, req->port_gid + 8, 8);
	log_notice("multicast: a join from port %016llx%s for port %016llx refused: %s",
		   (unsigned long long)who->requester, who->trusted ? " (trusted)" : "",
		   (unsigned long long)be64toh(guid), mc_refusal_text(r));
}

uint16_t sm_mcast_join(struct sm *sm, const struct mc_who *who, const struct sa_mcmember_rec *req,
		       uint64_t mask, struct sa_mcmember_rec *resp)
{
	uint16_t st;

	set_limits(sm);
	st = mcdb_join(sm->mcast->db, who, req, mask, resp);
	if (st == SA_STATUS_NO_RESOURCES)
		log_refusal(sm, who, req);
	changed(sm);
	return st;
}

uint16_t sm_mcast_leave(struct sm *sm, const struct mc_who *who,
			const struct sa_mcmember_rec *req, uint64_t mask,
			struct sa_mcmember_rec *resp)
{
	uint16_t st = mcdb_leave(sm->mcast->db, who, req, mask, resp);

	changed(sm);
	return st;
}

uint16_t sm_mcast_query(const struct sm *sm, const struct mc_who *who,
			const struct sa_mcmember_rec *tmpl, uint64_t mask,
			int (*fn)(void *arg, const struct sa_mcmember_rec *rec), void *arg,
			size_t *count)
{
	return mcdb_query(sm->mcast->db, who, tmpl, mask, fn, arg, count);
}

void sm_mcast_on_notice(struct sm *sm, mc_notice_fn fn, void *arg)
{
	sm->mcast->notice = fn;
	sm->mcast->notice_arg = arg;
}

const struct mcdb *sm_mcast_db(const struct sm *sm)
{
	return sm->mcast->db;
}

struct mcdb *sm_mcast_db_rw(struct sm *sm)
{
	return sm->mcast->db;
}

const struct mcast_result *sm_mcast_trees(const struct sm *sm)
{
	const struct sm_mcast *mc = sm->mcast;

	return mc->have_res ? &mc->res : mc->have_seed ? &mc->seed : NULL;
}

void sm_mcast_seed(struct sm *sm, struct mcast_result *seed)
{
	struct sm_mcast *mc = sm->mcast;

	if (mc->have_seed)
		mcast_result_free(&mc->seed);
	if (mc->have_res)
		mcast_result_free(&mc->res);
	mc->have_res = false;
	mc->seed = *seed;
	mc->have_seed = true;
	memset(seed, 0, sizeof(*seed));
	mc->trees_gen++;
}

bool sm_mcast_busy(const struct sm *sm)
{
	return sm->mcast->inflight > 0;
}

uint64_t sm_mcast_gen(const struct sm *sm)
{
	return mcdb_gen(sm->mcast->db) + sm->mcast->trees_gen;
}

void sm_mcast_on_batch(struct sm *sm, void (*fn)(void *arg, struct sm *sm), void *arg)
{
	sm->mcast->on_batch = fn;
	sm->mcast->on_batch_arg = arg;
}

const struct mcast_mft *sm_mcast_held(const struct sm *sm, uint64_t switch_guid)
{
	const struct mft_sw *w = sw_find(sm->mcast, switch_guid);

	return w ? &w->held : NULL;
}

const struct mcast_tree *sm_mcast_tree(const struct sm *sm, uint16_t mlid,
				       const struct mcast_tsw **tsw)
{
	const struct sm_mcast *mc = sm->mcast;

	if (!mc->have_res)
		return NULL;
	*tsw = mc->res.tsw;
	return mcast_find_tree(&mc->res, mlid);
}

/* --- the partitions' groups -------------------------------------------------------------- */

static void group_rec(const struct sm *sm, const struct part_partition *p,
		      const struct part_group *gp, const uint8_t mgid[16], struct sa_mcmember_rec *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->mgid, mgid, 16);
	r->qkey = gp->qkey;
	r->pkey = (uint16_t)(p->pkey | PART_PKEY_FULL);
	r->mtu = (uint8_t)gp->mtu;
	r->rate = (uint8_t)gp->rate;
	r->sl = sm->conf.qos ? (uint8_t)gp->sl : 0;   /* OpenSM: sl only with QoS */
	r->tclass = (uint8_t)gp->tclass;
	r->flow_label = gp->flowlabel;
	r->scope = mgid[1] & 0xF;
	r->hop_limit = r->scope == MC_SCOPE_LINK_LOCAL ? 0 : 0xFF;   /* as OpenSM: beyond the link, 0xFF */
	r->pkt_life = (uint8_t)sm->conf.subnet_timeout;
	r->mtu_sel = r->rate_sel = r->pkt_life_sel = 2;
}

static void partition_groups(struct sm *sm, const struct part_partition *p)
{
	struct sa_mcmember_rec r;
	struct part_group gp;
	uint8_t mgid[16];

	part_group_params(p, NULL, &gp);
	for (unsigned s = 0; (p->flags & PART_F_IPOIB) && s < 16; s++) {
		if (!(gp.scopes & (1u << s)))
			continue;
		part_ipoib_mgid(p->pkey, s, mgid);
		group_rec(sm, p, &gp, mgid, &r);
		if (mcdb_well_known(sm->mcast->db, &r))
			log_warnx("multicast: no MLID left for partition 0x%04x's broadcast group",
				  p->pkey);
	}
	for (size_t i = 0; i < p->n_mgids; i++) {
		part_group_params(p, &p->mgids[i], &gp);
		group_rec(sm, p, &gp, p->mgids[i].gid, &r);
		if (mcdb_well_known(sm->mcast->db, &r))
			log_warnx("multicast: no MLID left for a group of partition 0x%04x", p->pkey);
	}
}

void sm_mcast_partitions(struct sm *sm)
{
	const struct part_config *c = sm_pkey_config(sm);

	mcdb_clear_well_known(sm->mcast->db);
	for (size_t i = 0; i < c->n_parts; i++)
		partition_groups(sm, &c->parts[i]);
	mcdb_prune(sm->mcast->db);
	if (sm->base)   /* a reload; at start the first sweep programs them */
		changed(sm);
}

bool sm_mcast_reload_apply(struct sm *sm, json_object *result)
{
	(void)result;
	sm_mcast_partitions(sm);   /* their groups, and the SL they carry */
	return false;
}

/* --- counters ------------------------------------------------------------------------------ */

static json_object *stats_json(const struct mc_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "trees", json_object_new_int64((int64_t)s->trees));
	json_object_object_add(o, "blocks_read", json_object_new_int64((int64_t)s->blocks_read));
	json_object_object_add(o, "blocks_written", json_object_new_int64((int64_t)s->blocks_written));
	json_object_object_add(o, "fdb_top_sets", json_object_new_int64((int64_t)s->top_sets));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)s->failed));
	return o;
}

json_object *sm_mcast_stats_json(const struct sm *sm)
{
	const struct sm_mcast *mc = sm->mcast;
	json_object *o = json_object_new_object(), *last = stats_json(&mc->last);

	json_object_object_add(last, "compute_ms", json_object_new_double(mc->last.compute_ms));
	json_object_object_add(last, "programmed_ms", json_object_new_double(mc->last.total_ms));
	json_object_object_add(last, "members_dropped", json_object_new_int64((int64_t)mc->last.dropped));
	json_object_object_add(o, "groups", json_object_new_int64((int64_t)mcdb_count(mc->db)));
	json_object_object_add(o, "batches", json_object_new_int64((int64_t)mc->total.batches));
	json_object_object_add(o, "busy", json_object_new_boolean(mc->inflight > 0));
	json_object_object_add(o, "pending", json_object_new_boolean(mcdb_dirty(mc->db)));
	json_object_object_add(o, "mlid_top", json_object_new_int64(mcdb_mlid_top(mc->db)));
	json_object_object_add(o, "last_batch", last);
	json_object_object_add(o, "total", stats_json(&mc->total));
	return o;
}
