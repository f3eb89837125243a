/*
 * DOC: the multicast manager's groups and trees in and out of a
 * client_state (sm/clientfile.h): what a restart reads from state_dir and
 * a standby copied from the master, and what is saved.
 *
 * Restoring replaces every group (their MLIDs as saved), then makes the
 * partitions' groups again (sm_mcast_partitions: a group the partitions
 * still list stays well known; one they no longer list goes unless it has
 * a full member). The saved trees become the previous result of the
 * first batch, which keeps every root and upstream port that still stands
 * (routing/mcast.h): on an unchanged fabric the trees, and so the MFTs,
 * come out as they were.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/clientfile.h"
#include "sm/log.h"
#include "sm/mcast.h"
#include "sm/sm.h"

struct gref {
	uint16_t mlid;
	size_t i;
};

static int by_mlid(const void *a, const void *b)
{
	uint16_t x = ((const struct gref *)a)->mlid, y = ((const struct gref *)b)->mlid;

	return (x > y) - (x < y);
}

static void seed_tree(const struct client_state *cs, const struct cf_group *g,
		      struct mcast_result *r)
{
	const struct cf_tsw *t = cs->tsw + g->tsw0;
	struct mcast_tree *tr = &r->trees[r->ngroups++];

	tr->mlid = g->rec.mlid;
	tr->root = 0;   /* a topo index of no fabric: only "not TOPO_NONE" counts */
	tr->root_guid = t[0].guid;
	tr->first = r->ntsw;
	tr->nsw = (uint32_t)g->ntsw;
	for (size_t i = 0; i < g->ntsw; i++) {
		struct mcast_tsw *e = &r->tsw[r->ntsw++];

		e->guid = t[i].guid;
		e->up = t[i].up;
		e->parent = i ? t[i].parent : MCAST_NO_PARENT;
		e->depth = i ? r->tsw[tr->first + t[i].parent].depth + 1 : 0;
		tr->depth = e->depth > tr->depth ? e->depth : tr->depth;
	}
	r->top = g->rec.mlid;
}

/* The saved trees as a routing result (trees by MLID), for opts.prev. */
static void seed_of(const struct client_state *cs, struct mcast_result *r)
{
	struct gref *order = xcalloc(cs->ngroups + 1, sizeof(*order));
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	r->top = MCAST_FDB_TOP_NONE;
	for (size_t i = 0; i < cs->ngroups; i++)
		if (cs->groups[i].ntsw)
			order[n++] = (struct gref){ cs->groups[i].rec.mlid, i };
	qsort(order, n, sizeof(*order), by_mlid);
	r->trees = xcalloc(n + 1, sizeof(*r->trees));
	r->tsw = xcalloc(cs->ntsw + 1, sizeof(*r->tsw));
	for (size_t i = 0; i < n; i++)
		seed_tree(cs, &cs->groups[order[i].i], r);
	free(order);
}

size_t sm_mcast_restore(struct sm *sm, const struct client_state *cs)
{
	struct mcdb *db = sm_mcast_db_rw(sm);
	struct mcast_result seed;
	size_t skipped = 0;

	mcdb_clear(db);
	for (size_t i = 0; i < cs->ngroups; i++) {
		const struct cf_group *g = &cs->groups[i];
		struct mc_member *m = xcalloc(g->nmembers + 1, sizeof(*m));

		for (size_t k = 0; k < g->nmembers; k++) {
			const struct cf_member *c = &cs->members[g->member0 + k];

			m[k] = (struct mc_member){ c->guid, c->join_state, c->proxy, c->by };
		}
		skipped += !mcdb_restore(db, &g->rec, g->well_known, g->creator, m, g->nmembers);
		free(m);
	}
	seed_of(cs, &seed);
	sm_mcast_seed(sm, &seed);
	sm_mcast_partitions(sm);
	return skipped;
}

static void export_tree(struct client_state *cs, const struct mcast_result *r, uint16_t mlid)
{
	const struct mcast_tree *t = r ? mcast_find_tree(r, mlid) : NULL;

	if (!t || t->root == TOPO_NONE || !t->nsw || t->first > r->ntsw || t->nsw > r->ntsw - t->first)
		return;
	for (uint32_t i = 0; i < t->nsw; i++) {
		const struct mcast_tsw *e = &r->tsw[t->first + i];

		client_add_tsw(cs, e->guid, i ? e->parent : CLIENT_NO_PARENT, i ? e->up : 0);
	}
}

void sm_mcast_export(const struct sm *sm, struct client_state *cs)
{
	const struct mcdb *db = sm_mcast_db(sm);
	const struct mcast_result *trees = sm_mcast_trees(sm);

	for (size_t i = 0; i < mcdb_count(db); i++) {
		const struct mc_group *g = mcdb_at(db, i);

		client_add_group(cs, &g->rec, g->well_known, g->creator);
		for (uint32_t k = 0; k < g->nmembers; k++)
			client_add_member(cs, g->members[k].guid, g->members[k].join_state,
					  g->members[k].proxy, g->members[k].by);
		export_tree(cs, trees, g->rec.mlid);
	}
}
