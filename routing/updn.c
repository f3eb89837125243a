/*
 * DOC: updn, up*\/down* routing for any topology.
 *
 * Switches are ordered by (BFS rank from the roots, GUID); a hop towards a
 * smaller key is "up". A legal path goes up zero or more times, then only
 * down, so the channel dependency graph has no cycle on one VL.
 *
 * Per destination switch d two DAG passes give, for every switch, the
 * shortest down-only distance to d and, failing that, the shortest legal
 * distance when going up first. A switch that can go down does go down:
 * that way the next switch's entry (one LFT per LID, not per path state)
 * is also a down hop, which keeps every path legal.
 *
 * Roots: by default one per connected component, the switch of minimum
 * eccentricity (lowest GUID on ties); a root GUID list overrides that.
 */
#include <stdio.h>
#include <stdlib.h>

#include "routing/balance.h"
#include "routing/engine.h"

struct updn {
	const struct rgraph *g;
	uint32_t *key;    /* rank * nsw + index: the up/down order */
	uint32_t *order;  /* switches sorted by key */
	uint32_t *dd;     /* down-only distance to the destination */
	uint32_t *rd;     /* legal distance */
};

/* Minimum-eccentricity switch of the component containing start. */
static uint32_t component_root(const struct rgraph *g, uint32_t start, uint8_t *done,
			       uint32_t *dist, uint32_t *dist2, uint32_t *queue)
{
	uint32_t n = 0, best = start, beste = UINT32_MAX;

	rg_bfs(g, &start, 1, dist, queue);
	for (uint32_t s = 0; s < g->nsw; s++)
		if (dist[s] != UINT32_MAX) {
			done[s] = 1;
			n++;
		}
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (dist[s] == UINT32_MAX)
			continue;
		uint32_t e = rg_bfs(g, &s, 1, dist2, queue);
		if (e < beste) {
			beste = e;
			best = s;
		}
	}
	return best;
}

static uint32_t auto_roots(const struct rgraph *g, uint32_t *roots)
{
	uint8_t *done = rg_xcalloc(g->nsw, 1);
	uint32_t *dist = rg_xmalloc(g->nsw, sizeof(*dist));
	uint32_t *dist2 = rg_xmalloc(g->nsw, sizeof(*dist2));
	uint32_t *queue = rg_xmalloc(g->nsw, sizeof(*queue));
	uint32_t n = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		if (!done[s])
			roots[n++] = component_root(g, s, done, dist, dist2, queue);
	free(done);
	free(dist);
	free(dist2);
	free(queue);
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void make_order(struct updn *u, const uint32_t *roots, uint32_t nroots)
{
	const struct rgraph *g = u->g;
	uint32_t *queue = rg_xmalloc(g->nsw, sizeof(*queue));
	uint32_t *tmp = rg_xmalloc(g->nsw, sizeof(*tmp));

	rg_bfs(g, roots, nroots, u->dd, queue);
	for (uint32_t s = 0; s < g->nsw; s++) {
		uint32_t r = u->dd[s] == UINT32_MAX ? g->nsw : u->dd[s];
		u->key[s] = r * g->nsw + s;
		tmp[s] = u->key[s];
	}
	qsort(tmp, g->nsw, sizeof(*tmp), cmp_u32);
	for (uint32_t i = 0; i < g->nsw; i++)
		u->order[i] = tmp[i] % g->nsw;
	free(queue);
	free(tmp);
}

/* Down-only distances to d (children first), then legal ones (parents first). */
static void distances(struct updn *u, uint32_t d)
{
	const struct rgraph *g = u->g;

	for (uint32_t s = 0; s < g->nsw; s++)
		u->dd[s] = u->rd[s] = UINT32_MAX;
	u->dd[d] = 0;
	for (uint32_t i = g->nsw; i-- > 0;) {
		uint32_t s = u->order[i];
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			if (u->key[p] > u->key[s] && u->dd[p] != UINT32_MAX &&
			    u->dd[p] + 1 < u->dd[s])
				u->dd[s] = u->dd[p] + 1;
		}
	}
	for (uint32_t i = 0; i < g->nsw; i++) {
		uint32_t s = u->order[i];
		u->rd[s] = u->dd[s];
		if (u->rd[s] != UINT32_MAX)
			continue;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			if (u->key[p] < u->key[s] && u->rd[p] != UINT32_MAX &&
			    u->rd[p] + 1 < u->rd[s])
				u->rd[s] = u->rd[p] + 1;
		}
	}
}

static void updn_cands(const struct updn *u, uint8_t *cn, uint8_t *cports)
{
	const struct rgraph *g = u->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		cn[s] = 0;
		if (u->rd[s] == UINT32_MAX || u->rd[s] == 0)
			continue;
		int down = u->dd[s] != UINT32_MAX;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, s, k);
			uint32_t p = gr->peer;
			int ok = down ? u->key[p] > u->key[s] && u->dd[p] + 1 == u->dd[s]
				      : u->key[p] < u->key[s] && u->rd[p] + 1 == u->rd[s];
			for (uint32_t i = 0; ok && i < gr->n; i++)
				cports[g->sw[s].portbase + cn[s]++] = g->gports[gr->first + i];
		}
	}
}

/*
 * On a bipartite fabric (fat trees, even tori) every link joins adjacent
 * BFS ranks, so balance can even out the loads and keep every route
 * up*\/down*: its ranks grow towards the roots.
 */
static void updn_balance(struct rctx *c, const struct updn *u)
{
	const struct rgraph *g = c->g;
	uint32_t *rank = rg_xmalloc(g->nsw ? g->nsw : 1, sizeof(*rank)), top = 0;
	int ok = 1;

	for (uint32_t s = 0; s < g->nsw; s++) {
		rank[s] = u->key[s] / g->nsw;
		if (rank[s] < g->nsw && rank[s] > top)
			top = rank[s];
	}
	for (uint32_t s = 0; s < g->nsw && ok; s++)
		for (uint32_t k = 0; k < g->sw[s].ngroups && ok; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			ok = rank[s] == g->nsw || rank[s] + 1 == rank[p] || rank[p] + 1 == rank[s];
		}
	for (uint32_t s = 0; s < g->nsw; s++)
		rank[s] = rank[s] == g->nsw ? UINT32_MAX : top - rank[s];
	/* shifts only where they mean something: on fat trees (ftree fell
	 * back to updn); on tori and the like updn's shifts are far off */
	char why[160];
	if (ok)
		route_balance_ctx(c, rank, ftree_detect(g, why, sizeof(why)));
	free(rank);
}

int route_updn(struct rctx *c)
{
	const struct rgraph *g = c->g;
	struct updn u = { g, NULL, NULL, NULL, NULL };
	uint32_t *roots = rg_xmalloc(g->nsw + c->o->nroots + 1, sizeof(*roots));
	uint32_t nroots;

	if (c->o->nroots) {
		if (route_roots(c, roots, &nroots)) {
			free(roots);
			return -1;
		}
	} else {
		nroots = auto_roots(g, roots);
	}
	u.key = rg_xmalloc(g->nsw, sizeof(*u.key));
	u.order = rg_xmalloc(g->nsw, sizeof(*u.order));
	u.dd = rg_xmalloc(g->nsw, sizeof(*u.dd));
	u.rd = rg_xmalloc(g->nsw, sizeof(*u.rd));
	make_order(&u, roots, nroots);
	if (nroots)
		route_why(c, "%s%u root(s), first 0x%016llx",
			  c->why[0] ? "; " : "updn: ", nroots,
			 (unsigned long long)g->t->nodes[g->sw[roots[0]].node].guid);
	uint8_t *cn = rg_xcalloc(g->nsw, 1);
	uint8_t *cports = rg_xcalloc(g->nlinks, 1);
	uint32_t *use = rg_xcalloc(g->nlinks, sizeof(*use));
	for (uint32_t d = 0; d < g->nsw; d++) {
		distances(&u, d);
		updn_cands(&u, cn, cports);
		route_lids_at(c, d, cn, cports, use);
	}
	updn_balance(c, &u);
	free(cn);
	free(cports);
	free(use);
	free(roots);
	free(u.key);
	free(u.order);
	free(u.dd);
	free(u.rd);
	return 0;
}
