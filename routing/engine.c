/*
 * DOC: what the engines call back: the helpers engine.h declares, below
 * both the engines and route.c, which dispatches to them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine.h"

#define SPLIT_CELLS (64ull << 20) /* route_opts.split_cells' default */

int route_split(const struct rctx *c)
{
	uint64_t from = c->o->split_cells ? c->o->split_cells : SPLIT_CELLS;

	return (uint64_t)c->g->nsw * (c->g->top + 1u) >= from;
}

void route_why(struct rctx *c, const char *fmt, ...)
{
	size_t n = strlen(c->why);
	va_list ap;

	if (n + 1 >= c->whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(c->why + n, c->whylen - n, fmt, ap);
	va_end(ap);
}

int route_roots(struct rctx *c, uint32_t *out, uint32_t *nout)
{
	const struct rgraph *g = c->g;

	*nout = 0;
	for (size_t i = 0; i < c->o->nroots; i++) {
		uint32_t s;
		for (s = 0; s < g->nsw; s++)
			if (g->t->nodes[g->sw[s].node].guid == c->o->root_guids[i])
				break;
		if (s == g->nsw) {
			route_why(c, "%sroot GUID 0x%016llx is not a switch",
				  c->why[0] ? "; " : "", (unsigned long long)c->o->root_guids[i]);
			return -1;
		}
		out[(*nout)++] = s;
	}
	return 0;
}

uint8_t route_pick_least(const struct rgraph *g, uint32_t s, const uint8_t *ports,
			 uint32_t nports, uint32_t *use)
{
	uint32_t base = g->sw[s].portbase, best = 0;

	for (uint32_t i = 1; i < nports; i++) {
		uint32_t a = use[base + ports[i]], b = use[base + ports[best]];
		if (a < b || (a == b && ports[i] < ports[best]))
			best = i;
	}
	use[base + ports[best]]++;
	return ports[best];
}

static void route_one_lid(struct rctx *c, uint32_t d, uint32_t lid, const uint8_t *cn,
			  const uint8_t *cports, uint32_t *use)
{
	const struct rgraph *g = c->g;

	for (uint32_t s = 0; s < g->nsw; s++)
		if (s != d && cn[s])
			c->lft[s][lid] = route_pick_least(g, s, cports + g->sw[s].portbase,
							  cn[s], use);
}

void route_lids_at(struct rctx *c, uint32_t d, const uint8_t *cn, const uint8_t *cports,
		   uint32_t *use)
{
	const struct rgraph *g = c->g;
	const struct rg_sw *w = &g->sw[d];

	for (uint32_t h = w->hfirst; h < w->hfirst + w->nhosts; h++)
		for (uint32_t i = 0; i < g->hosts[h].nlids; i++)
			route_one_lid(c, d, g->hosts[h].lid + i, cn, cports, use);
	if (w->lid)
		route_one_lid(c, d, w->lid, cn, cports, use);
}

void ftree_ranks(const struct rgraph *g, uint32_t *rank)
{
	uint32_t *src = rg_xmalloc(g->nsw, sizeof(*src));
	uint32_t *queue = rg_xmalloc(g->nsw, sizeof(*queue));
	uint32_t n = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].nhosts)
			src[n++] = s;
	rg_bfs(g, src, n, rank, queue);
	free(src);
	free(queue);
}

int ftree_detect(const struct rgraph *g, char *why, size_t whylen)
{
	uint32_t *rank = rg_xmalloc(g->nsw ? g->nsw : 1, sizeof(*rank));
	uint32_t leaves = 0, top = 0;
	int rc = 1;

	ftree_ranks(g, rank);
	for (uint32_t s = 0; s < g->nsw && rc; s++) {
		leaves += g->sw[s].nhosts > 0;
		if (rank[s] != UINT32_MAX && rank[s] > top)
			top = rank[s];
		for (uint32_t k = 0; k < g->sw[s].ngroups && rc; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			if (rank[s] == UINT32_MAX || rank[p] + 1 == rank[s] ||
			    rank[s] + 1 == rank[p])
				continue;
			snprintf(why, whylen, "not a fat tree: switches 0x%016llx (rank %u) and "
				 "0x%016llx (rank %u) are linked",
				 (unsigned long long)g->t->nodes[g->sw[s].node].guid, rank[s],
				 (unsigned long long)g->t->nodes[g->sw[p].node].guid, rank[p]);
			rc = 0;
		}
	}
	if (rc && !leaves) {
		snprintf(why, whylen, "not a fat tree: no switch has CAs");
		rc = 0;
	}
	if (rc)
		snprintf(why, whylen, "fat tree: %u leaf switches, %u ranks", leaves, top + 1);
	free(rank);
	return rc;
}
