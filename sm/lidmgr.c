/*
 * DOC: the LID phase of a heavy sweep: one claim per LID-holding port of
 * the fabric (switch port 0, CA ports; nodes carried over from the last
 * sweep included, with what they held), decided by the allocator
 * (lidalloc.h), written back to the state file (sm_lids_save) before the
 * first PortInfo Set gives one out.
 *
 * CA ports get 2^lmc LIDs, aligned; switches one LID on port 0 (base SP0).
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/atomicfile.h"
#include "fabric/lidalloc.h"
#include "lib/log.h"
#include "sm/bringup.h"
#include "sm/lidmgr.h"
#include "sm/sm.h"
#include "lib/worker.h"

struct lid_port {
	struct sm_port *p;
	struct lid_claim c;
};

static void claim_of(const struct sm *sm, struct sm_port *p, struct lid_port *lp)
{
	bool sw = node_is_switch(p->node);

	memset(lp, 0, sizeof(*lp));
	lp->p = p;
	lp->c.guid = p->guid;
	lp->c.order = (p->node->guid << 8) | p->num;
	lp->c.held_known = p->have_pi;
	lp->c.held = p->have_pi ? p->pi.lid : 0;
	lp->c.held_lmc = p->have_pi && !sw ? p->pi.lmc : 0;
	lp->c.lmc = sw ? 0 : (uint8_t)sm->conf.lmc;
	lp->c.is_switch = sw;
	lp->c.exclude = p->dup_guid;
}

static size_t collect(const struct sm *sm, struct lid_port *out)
{
	const struct sm_fabric *f = sm->fabric;
	size_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *nd = f->nodes[i];

		for (unsigned p = 0; p <= nd->ni.num_ports; p++) {
			struct sm_port *sp = &nd->ports[p];

			if (sp->guid && (p == 0) == node_is_switch(nd))
				claim_of(sm, sp, &out[n++]);
		}
	}
	return n;
}

static void log_stats(const struct lid_alloc_stats *st)
{
	if (st->fresh || st->waiting || st->moved || st->released)
		log_info("LIDs: %u reserved, %u kept, %u new, %u moved, %u waiting for theirs, "
			 "%u none, %u reservations released", st->reserved, st->kept, st->fresh,
			 st->moved, st->waiting, st->none, st->released);
}

struct adopt {
	uint64_t *resv;        /* LID -> reserving GUID */
};

static void mark(void *arg, const struct lid_entry *e)
{
	struct adopt *a = arg;

	for (unsigned l = e->lid; l < e->lid + (1u << e->lmc) && l <= TOPO_MAX_UCAST_LID; l++)
		a->resv[l] = e->key.guid;
}

static void unmark(struct adopt *a, const struct lid_entry *e)
{
	for (unsigned l = e->lid; l < e->lid + (1u << e->lmc) && l <= TOPO_MAX_UCAST_LID; l++)
		a->resv[l] = 0;
}

/* On a takeover the ports hold what the last master gave them, and that is
 * what the hosts use: our file (stale, or another SM's era) yields to it.
 * Each port's held LID becomes its reservation, unless an earlier port
 * already took that LID this way (two holders: the rules decide). */
static void adopt_held(struct sm *sm, const struct lid_port *lp, size_t n)
{
	struct adopt a = { xcalloc(TOPO_MAX_UCAST_LID + 1u, sizeof(uint64_t)) };
	uint8_t *taken = xcalloc(TOPO_MAX_UCAST_LID + 1u, 1);
	unsigned adopted = 0;

	lid_db_each(&sm->lids, mark, &a);
	for (size_t i = 0; i < n; i++) {
		const struct lid_claim *c = &lp[i].c;
		unsigned span = 1u << c->lmc, l;
		const struct lid_entry *e;

		if (c->exclude || !c->held_known || !c->held || (c->held & (span - 1)) ||
		    c->held + span - 1 > TOPO_MAX_UCAST_LID || memchr(taken + c->held, 1, span))
			continue;
		memset(taken + c->held, 1, span);
		e = lid_db_get(&sm->lids, c->guid);
		if (e && e->lid == c->held && e->lmc == c->lmc)
			continue;
		if (e)
			unmark(&a, e);
		for (l = c->held; l < c->held + span; l++)
			if (a.resv[l] && (e = lid_db_get(&sm->lids, a.resv[l]))) {
				unmark(&a, e);
				lid_db_del(&sm->lids, e->key.guid);
			}
		lid_db_set(&sm->lids, c->guid, c->held, c->lmc, (uint64_t)time(NULL));
		for (l = c->held; l < c->held + span; l++)
			a.resv[l] = c->guid;
		adopted++;
	}
	if (adopted)
		log_notice("takeover: %u ports keep the LIDs they hold (the state file had others)",
			   adopted);
	free(a.resv);
	free(taken);
}

static void assign(struct sm *sm, struct lid_port *lp, size_t n)
{
	struct lid_claim *c = xcalloc(n ? n : 1, sizeof(*c));
	struct lid_alloc_stats st;

	if (sm->takeover)
		adopt_held(sm, lp, n);
	for (size_t i = 0; i < n; i++)
		c[i] = lp[i].c;
	if (lid_alloc(&sm->lids, c, n, (uint64_t)time(NULL), &st) < 0) {
		log_warnx("LID assignment: out of unicast LIDs; ports without one stay unrouted");
		sm->sweep_clean = false;
	}
	for (size_t i = 0; i < n; i++)
		lp[i].p->lid = c[i].lid;
	log_stats(&st);
	free(c);
}

/* --- the file, written on a worker ------------------------------------------- */

/* fsync costs milliseconds (8 ms on the development VM's disk): the loop
 * puts other SMPs on the wire meanwhile, and gives no LID out before the
 * file is on disk. */
struct lids_job {
	struct sm *sm;
	char *buf, *path;
	size_t len;
	int rc;
	char err[256];
	void (*then)(struct sm *);
	struct worker *w;
};

static int fill(FILE *f, const void *arg)
{
	const struct lids_job *j = arg;

	return fwrite(j->buf, 1, j->len, f) == j->len ? 0 : -1;
}

static void save_work(void *arg)
{
	struct lids_job *j = arg;

	j->rc = atomic_write(j->path, fill, j, j->err, sizeof(j->err));
}

static void job_free(struct lids_job *j)
{
	free(j->buf);
	free(j->path);
	free(j);
}

/* then, if anyone waits: after a failure at once (logged; the next save
 * writes the file again); after a success, what changed since the copy
 * was taken is written too, and then runs once that is on disk. */
static void save_done(void *arg)
{
	struct lids_job *j = arg;
	struct sm *sm = j->sm;
	void (*then)(struct sm *) = j->then;
	int rc = j->rc;

	sm->lids_job = NULL;
	if (rc < 0) {
		lid_db_touch(&sm->lids);   /* written again by the next save */
		log_warnx("cannot save LID state: %s", j->err);
		sm->sweep_clean = false;
	}
	job_free(j);
	if (rc < 0) {
		if (then)
			then(sm);
	} else if (then || sm->lids.dirty) {
		sm_lids_save(sm, then);
	}
}

void sm_lids_save(struct sm *sm, void (*then)(struct sm *))
{
	struct lids_job *j = sm->lids_job;
	size_t len = 0;
	char *buf;

	if (j) {   /* one file, one writer: wait for the save under way */
		assert(!j->then || !then);
		if (then)
			j->then = then;
		return;
	}
	buf = lid_db_content(&sm->lids, &len);

	if (!buf && sm->lids.dirty) {   /* no memory for the copy: here */
		char err[256];

		if (lid_db_save(&sm->lids, err, sizeof(err)) < 0) {
			log_warnx("cannot save LID state: %s", err);
			sm->sweep_clean = false;
		}
	}
	if (!buf) {
		if (then)
			then(sm);
		return;
	}
	j = xcalloc(1, sizeof(*j));
	j->sm = sm;
	j->buf = buf;
	j->len = len;
	j->path = xstrdup(sm->lids.path);
	j->then = then;
	j->w = worker_start(sm->base, save_work, save_done, j);
	if (j->w) {
		sm->lids_job = j;
		return;
	}
	save_work(j);
	save_done(j);
}

void sm_lids_abandon(struct sm *sm)
{
	struct lids_job *j = sm->lids_job;

	if (!j)
		return;
	worker_abandon(j->w);
	sm->lids_job = NULL;
	job_free(j);
}

static uint16_t own_lid(const struct sm *sm)
{
	const struct sm_node *n = sm->fabric->sm_node;

	return node_is_switch(n) ? n->ports[0].lid : n->ports[sm->fabric->sm_port_num].lid;
}

void sm_lids_phase(struct sm *sm, void (*done)(struct sm *))
{
	struct sm_fabric *f = sm->fabric;
	size_t cap = 0, n;
	struct lid_port *lp;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		cap += (size_t)f->nodes[i]->ni.num_ports + 1;
		for (unsigned p = 0; p <= f->nodes[i]->ni.num_ports; p++)
			f->nodes[i]->ports[p].lid = 0;
	}
	lp = xcalloc(cap ? cap : 1, sizeof(*lp));
	n = collect(sm, lp);
	assign(sm, lp, n);
	sm->sm_lid = own_lid(sm);
	free(lp);
	/* on disk while the bring-up prepares and routing computes: the
	 * PortInfo Sets then find the file written (sm_lids_save in bringup.c) */
	sm_lids_save(sm, NULL);
	done(sm);
}
