/*
 * DOC: ftree's state (see ftree.c): ranks, the ranked switches in the
 * order the routing visits them, connected parts, every per-switch and
 * per-link array, and the lookups the hot loops read instead of the graph
 * (peers by link id, up groups and their ports, classes of switches with
 * the same upper switches, leaves' all-to-all caps), built once.
 */
#include <stdlib.h>
#include <string.h>

#include "routing/ftree_int.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Ranked switches by rank descending, then index ascending. */
static void sort_desc(struct ft *f)
{
	const struct rgraph *g = f->g;
	uint64_t *key = rg_xmalloc(g->nsw ? g->nsw : 1, sizeof(*key));

	for (uint32_t s = 0; s < g->nsw; s++)
		if (f->rank[s] != UINT32_MAX)
			key[f->ndesc++] = ((uint64_t)(UINT32_MAX - f->rank[s]) << 32) | s;
	qsort(key, f->ndesc, sizeof(*key), cmp_u64);
	for (uint32_t i = 0; i < f->ndesc; i++)
		f->desc[i] = (uint32_t)key[i];
	free(key);
}

static uint32_t *components(const struct rgraph *g)
{
	uint32_t n = g->nsw ? g->nsw : 1;
	uint32_t *comp = rg_xmalloc(n, sizeof(*comp));
	uint32_t *dist = rg_xmalloc(n, sizeof(*dist)), *queue = rg_xmalloc(n, sizeof(*queue));

	for (uint32_t s = 0; s < g->nsw; s++)
		comp[s] = UINT32_MAX;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (comp[s] != UINT32_MAX)
			continue;
		rg_bfs(g, &s, 1, dist, queue);
		for (uint32_t t = 0; t < g->nsw; t++)
			if (dist[t] != UINT32_MAX)
				comp[t] = s;
	}
	free(dist);
	free(queue);
	return comp;
}

/* The all-to-all share of one uplink port of leaf l (see verify.h). */
static uint64_t leaf_cap(const struct ft *f, uint32_t l)
{
	const struct rgraph *g = f->g;
	uint64_t lids = 0, up = 0;

	for (uint32_t h = g->sw[l].hfirst; h < g->sw[l].hfirst + g->sw[l].nhosts; h++)
		lids += g->hosts[h].nlids;
	for (uint32_t k = 0; k < g->sw[l].ngroups; k++)
		if (is_up(f, l, k))
			up += rg_group(g, l, k)->n;
	if (!up)
		return UINT64_MAX;
	uint64_t in = lids * (f->nsrc - g->sw[l].nhosts);
	return (in + up - 1) / up;
}

static void ft_index(struct ft *f);

void ft_init(struct ft *f, struct rctx *c)
{
	const struct rgraph *g = c->g;
	uint32_t n = g->nsw ? g->nsw : 1;

	memset(f, 0, sizeof(*f));
	f->g = g;
	f->c = c;
	f->rank = rg_xmalloc(n, sizeof(*f->rank));
	ftree_ranks(g, f->rank);
	f->desc = rg_xmalloc(n, sizeof(*f->desc));
	sort_desc(f);
	f->maxdepth = f->ndesc ? f->rank[f->desc[0]] + 1 : 1;
	f->load = rg_xcalloc(g->nlinks, sizeof(*f->load));
	f->cone = rg_xcalloc(n, sizeof(*f->cone));
	f->cpath = rg_xcalloc(n, sizeof(*f->cpath));
	f->inD = rg_xcalloc(n, sizeof(*f->inD));
	f->dset = rg_xcalloc(n, sizeof(*f->dset));
	f->rest = rg_xcalloc(n, sizeof(*f->rest));
	f->dport = rg_xcalloc(n, 1);
	f->dnxt = rg_xcalloc(n, sizeof(*f->dnxt));
	f->ncand = rg_xcalloc(n, 1);
	f->cand = rg_xcalloc(g->nlinks, 1);
	f->ok = rg_xcalloc(n, sizeof(*f->ok));
	f->onmain = rg_xcalloc(n, sizeof(*f->onmain));
	f->deferred = rg_xcalloc(n, sizeof(*f->deferred));
	f->route = rg_xcalloc(n, 1);
	f->nxt = rg_xcalloc(n, sizeof(*f->nxt));
	f->flow = rg_xcalloc(n, sizeof(*f->flow));
	f->touched = rg_xcalloc(n, sizeof(*f->touched));
	f->tstamp = rg_xcalloc(n, sizeof(*f->tstamp));
	f->lastuse = rg_xcalloc(g->nlinks, FT_RECENT * sizeof(*f->lastuse));
	f->usehead = rg_xcalloc(g->nlinks, 1);
	f->early = rg_xcalloc(g->nlinks, 2 * sizeof(*f->early));
	f->below = rg_xcalloc(n, sizeof(*f->below));
	f->bucket = rg_xcalloc(g->nlinks, sizeof(*f->bucket));
	f->bcnt = rg_xcalloc(g->nlinks, 2 * sizeof(*f->bcnt));
	f->cstart = rg_xcalloc(n + 1, sizeof(*f->cstart));
	f->cfill = rg_xcalloc(n, sizeof(*f->cfill));
	f->clist = rg_xcalloc(n, sizeof(*f->clist));
	f->bfs = rg_xcalloc(n, sizeof(*f->bfs));
	f->nlcache = rg_xcalloc(n, sizeof(*f->nlcache));
	f->nlstamp = rg_xcalloc(n, sizeof(*f->nlstamp));
	f->nsrc = g->nhosts;
	f->cap = rg_xcalloc(n, sizeof(*f->cap));
	f->tlast = rg_xcalloc(n, sizeof(*f->tlast));
	f->above = rg_xcalloc(n, sizeof(*f->above));
	f->above_ok = rg_xcalloc(n, 1);
	f->col = rg_xmalloc((size_t)n * FT_COLS, 1);
	memset(f->col, LFT_NO_PORT, (size_t)n * FT_COLS);
	f->peer = rg_xmalloc(g->nlinks, sizeof(*f->peer));
	f->pb = rg_xmalloc(n, sizeof(*f->pb));
	f->gf = rg_xmalloc(n, sizeof(*f->gf));
	f->upg = rg_xcalloc(g->ngroups, 1);
	f->back = rg_xcalloc(g->ngroups, 1);
	f->upsw = rg_xcalloc(g->ngroups, sizeof(*f->upsw));
	f->upport = rg_xcalloc(g->ngroups, 1);
	f->upfirst = rg_xcalloc(g->ngroups, 1);
	f->nup = rg_xcalloc(n, 1);
	f->upcls = rg_xcalloc(n, sizeof(*f->upcls));
	f->noup = rg_xcalloc(n, sizeof(*f->noup));
	f->leaves = rg_xcalloc(n, sizeof(*f->leaves));
	f->comp = components(g);
	ft_index(f);
}

/* Group lookups of s: back groups, up groups, their peers and ports. */
static void index_groups(struct ft *f, uint32_t s)
{
	const struct rgraph *g = f->g;
	uint32_t gf = g->sw[s].gfirst;

	for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, s, k);
		f->back[gf + k] = g->port2group[g->sw[gr->peer].portbase + gr->rport0];
	}
	for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, s, k);
		if (!is_up(f, s, k))
			continue;
		const struct rg_group *bg = rg_group(g, gr->peer, f->back[gf + k]);
		f->upg[gf + f->nup[s]] = (uint8_t)k;
		f->upsw[gf + f->nup[s]] = gr->peer;
		f->upfirst[gf + f->nup[s]] = g->gports[gr->first];
		/* what least_port() picks where there is no choice */
		f->upport[gf + f->nup[s]++] = bg->n == 1 ? g->gports[bg->first] : 0;
	}
}

/* An order-free hash of the upper switches of s. */
static uint32_t up_hash(const struct ft *f, uint32_t s)
{
	uint32_t h = 0;

	for (uint32_t i = 0; i < f->nup[s]; i++) {
		uint32_t x = f->upsw[f->gf[s] + i] * 0x9E3779B1u;
		h += x ^ (x >> 15);
	}
	return h;
}

/* 1 if s and t have the same upper switches (mark: scratch, all 0). */
static int same_ups(const struct ft *f, uint32_t s, uint32_t t, uint8_t *mark)
{
	int same = f->nup[s] == f->nup[t];

	for (uint32_t i = 0; i < f->nup[s]; i++)
		mark[f->upsw[f->gf[s] + i]] = 1;
	for (uint32_t i = 0; i < f->nup[t] && same; i++)
		same = mark[f->upsw[f->gf[t] + i]];
	for (uint32_t i = 0; i < f->nup[s]; i++)
		mark[f->upsw[f->gf[s] + i]] = 0;
	return same;
}

/* upcls: switches sorted by up_hash(), each compared with the classes
 * found before it among those of its hash. */
static void up_classes(struct ft *f)
{
	uint32_t n = f->g->nsw;
	uint64_t *key = rg_xmalloc(n ? n : 1, sizeof(*key));
	uint8_t *mark = rg_xcalloc(n ? n : 1, 1);

	for (uint32_t s = 0; s < n; s++)
		key[s] = (uint64_t)up_hash(f, s) << 32 | s;
	qsort(key, n, sizeof(*key), cmp_u64);
	for (uint32_t i = 0, run = 0; i < n; i++) {
		uint32_t s = (uint32_t)key[i];
		if (key[i] >> 32 != key[run] >> 32)
			run = i;
		f->upcls[s] = s;
		for (uint32_t j = run; j < i; j++) {
			uint32_t t = (uint32_t)key[j];
			if (f->upcls[t] == t && same_ups(f, s, t, mark)) {
				f->upcls[s] = t;
				break;
			}
		}
	}
	free(key);
	free(mark);
}

/* Per-switch lookups: peers by link id, up groups, leaves, leaf caps. */
static void ft_index(struct ft *f)
{
	const struct rgraph *g = f->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		f->pb[s] = g->sw[s].portbase;
		f->gf[s] = g->sw[s].gfirst;
		for (uint32_t p = 0; p <= g->sw[s].nports; p++)
			f->peer[g->sw[s].portbase + p] = rg_port_peer_sw(g, s, (uint8_t)p);
		index_groups(f, s);
		if (f->rank[s] == 0)
			f->leaves[f->nleaves++] = s;
		f->flow[s] = g->sw[s].nhosts;
	}
	for (uint32_t i = f->ndesc; i-- > 0;) {
		uint32_t s = f->desc[i];
		if (f->rank[s] == 0)
			f->below[s] = g->sw[s].nhosts;
		for (uint32_t j = 0; j < f->nup[s]; j++)
			f->below[rg_group(g, s, f->upg[g->sw[s].gfirst + j])->peer] += f->below[s];
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		if (f->rank[s] == 0) {
			f->cap[s] = leaf_cap(f, s);
			if (f->cap[s] != UINT64_MAX && f->cap[s] > f->gcap)
				f->gcap = f->cap[s];
		} else {
			f->cap[s] = UINT64_MAX;
		}
	up_classes(f);
}

void ft_free(struct ft *f)
{
	for (uint32_t s = 0; s < f->g->nsw; s++) {
		free(f->cone[s]);
		free(f->cpath[s]);
	}
	free(f->cpath);
	free(f->cone);
	free(f->rank);
	free(f->desc);
	free(f->load);
	free(f->inD);
	free(f->dset);
	free(f->rest);
	free(f->dport);
	free(f->dnxt);
	free(f->ncand);
	free(f->cand);
	free(f->ok);
	free(f->onmain);
	free(f->deferred);
	free(f->route);
	free(f->nxt);
	free(f->flow);
	free(f->touched);
	free(f->tstamp);
	free(f->lastuse);
	free(f->usehead);
	free(f->early);
	free(f->below);
	free(f->bucket);
	free(f->bcnt);
	free(f->cstart);
	free(f->cfill);
	free(f->clist);
	free(f->bfs);
	free(f->nlcache);
	free(f->nlstamp);
	free(f->cap);
	free(f->tlast);
	free(f->above);
	free(f->above_ok);
	free(f->col);
	free(f->peer);
	free(f->pb);
	free(f->gf);
	free(f->upg);
	free(f->back);
	free(f->upsw);
	free(f->upport);
	free(f->upfirst);
	free(f->nup);
	free(f->upcls);
	free(f->noup);
	free(f->leaves);
	free(f->comp);
}
