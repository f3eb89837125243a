/*
 * DOC: minhop, balanced shortest paths.
 *
 * For each destination switch a BFS gives hop counts; every other switch
 * may use any port towards a neighbour one hop closer, and per LID takes
 * the least used of those (lowest port on ties). Shortest, balanced, but
 * with no deadlock guarantee: credit loops are possible on rings and tori.
 */
#include <stdlib.h>

#include "routing/engine.h"

/* Candidate ports of every switch towards destination switch d. */
static void minhop_cands(const struct rgraph *g, const uint32_t *dist, uint8_t *cn,
			 uint8_t *cports)
{
	for (uint32_t s = 0; s < g->nsw; s++) {
		cn[s] = 0;
		if (dist[s] == UINT32_MAX || dist[s] == 0)
			continue;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, s, k);
			if (dist[gr->peer] + 1 != dist[s])
				continue;
			for (uint32_t i = 0; i < gr->n; i++)
				cports[g->sw[s].portbase + cn[s]++] = g->gports[gr->first + i];
		}
	}
}

int route_minhop(struct rctx *c)
{
	const struct rgraph *g = c->g;
	uint32_t *dist = rg_xmalloc(g->nsw, sizeof(*dist));
	uint32_t *queue = rg_xmalloc(g->nsw, sizeof(*queue));
	uint8_t *cn = rg_xcalloc(g->nsw, 1);
	uint8_t *cports = rg_xcalloc(g->nlinks, 1);
	uint32_t *use = rg_xcalloc(g->nlinks, sizeof(*use));

	for (uint32_t d = 0; d < g->nsw; d++) {
		rg_bfs(g, &d, 1, dist, queue);
		minhop_cands(g, dist, cn, cports);
		route_lids_at(c, d, cn, cports, use);
	}
	free(dist);
	free(queue);
	free(cn);
	free(cports);
	free(use);
	return 0;
}
