/*
 * DOC: the pair bound of a shift permutation (see pairbound.h).
 *
 * One BFS per switch with hosts gives every switch's distance to it; a
 * shift's sources come in runs (hosts are sorted by switch, so the hosts
 * of A send to consecutive hosts), and each run is one (A, B) pair.
 */
#include <stdlib.h>
#include <string.h>

#include "routing/pairbound.h"

void pair_bound_init(struct pair_bound *pb, const struct rgraph *g)
{
	uint32_t n = g->nsw ? g->nsw : 1, rows = 0;
	uint32_t *dist = rg_xmalloc(n, sizeof(*dist)), *queue = rg_xmalloc(n, sizeof(*queue));

	pb->g = g;
	pb->row = rg_xmalloc(n, sizeof(*pb->row));
	for (uint32_t s = 0; s < g->nsw; s++)
		pb->row[s] = g->sw[s].nhosts ? rows++ : RG_NONE;
	pb->dist = rg_xmalloc((size_t)(rows ? rows : 1) * n, sizeof(*pb->dist));
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (pb->row[s] == RG_NONE)
			continue;
		rg_bfs(g, &s, 1, dist, queue);
		uint16_t *d = pb->dist + (size_t)pb->row[s] * n;
		for (uint32_t t = 0; t < g->nsw; t++)
			d[t] = dist[t] > UINT16_MAX - 1 ? UINT16_MAX : (uint16_t)dist[t];
	}
	free(dist);
	free(queue);
}

void pair_bound_free(struct pair_bound *pb)
{
	free(pb->row);
	free(pb->dist);
}

/* Ports of a on a shortest path to b (parallel links count); 0: none. */
static uint32_t short_ports(const struct pair_bound *pb, uint32_t a, uint32_t b)
{
	const struct rgraph *g = pb->g;
	const uint16_t *d = pb->dist + (size_t)pb->row[b] * g->nsw;
	uint32_t n = 0;

	if (d[a] == UINT16_MAX || !d[a])
		return 0;
	for (uint32_t k = 0; k < g->sw[a].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, a, k);
		if (d[gr->peer] + 1 == d[a])
			n += gr->n;
	}
	return n;
}

uint32_t pair_bound_shift(const struct pair_bound *pb, uint32_t sh)
{
	const struct rgraph *g = pb->g;
	uint32_t n = g->nhosts, best = 0, run = 0, a = RG_NONE, b = RG_NONE;

	for (uint32_t i = 0; i <= n; i++) {
		uint32_t x = i < n ? g->hosts[i].sw : RG_NONE;
		uint32_t y = i < n ? g->hosts[(i + sh) % n].sw : RG_NONE;
		if (x == a && y == b) {
			run++;
			continue;
		}
		if (run && a != b) {
			uint32_t m = short_ports(pb, a, b);
			if (m && (run + m - 1) / m > best)
				best = (run + m - 1) / m;
		}
		a = x;
		b = y;
		run = 1;
	}
	return best;
}
