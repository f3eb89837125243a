/*
 * DOC: building routing's sorted view of the fabric (see graph.h).
 *
 * A link counts only when both ends name each other: a one-sided record in
 * the model is ignored rather than trusted, so no engine can route into a
 * port that does not lead back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/graph.h"

void *rg_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		abort();
	return p;
}

void *rg_xmalloc(size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		abort();
	void *p = malloc(n && sz ? n * sz : 1);

	if (!p)
		abort();
	return p;
}

/* The peer of (n, p) if the link is symmetric and in range, else NULL. */
static const struct topo_port *sym_peer(const struct topo *t, uint32_t n, uint32_t p)
{
	const struct topo_port *tp = &t->nodes[n].ports[p];

	if (!topo_port_linked(tp) || tp->peer_node >= t->nnodes)
		return NULL;
	const struct topo_node *pn = &t->nodes[tp->peer_node];
	if (tp->peer_port == 0 || tp->peer_port > pn->nports || !pn->ports)
		return NULL;
	const struct topo_port *back = &pn->ports[tp->peer_port];
	if (back->peer_node != n || back->peer_port != p)
		return NULL;
	return back;
}

struct guid_idx {
	uint64_t guid;
	uint32_t idx;
};

static int cmp_guid_idx(const void *a, const void *b)
{
	const struct guid_idx *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return 0;
}

static int collect_switches(struct rgraph *g, char *err, size_t errlen)
{
	const struct topo *t = g->t;
	struct guid_idx *v = rg_xmalloc(t->nnodes, sizeof(*v));
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == TOPO_SWITCH && t->nodes[i].ports)
			v[n++] = (struct guid_idx){ t->nodes[i].guid, i };
	qsort(v, n, sizeof(*v), cmp_guid_idx);
	g->nsw = n;
	g->sw = rg_xcalloc(n, sizeof(*g->sw));
	for (uint32_t s = 0; s < n; s++) {
		if (s && v[s].guid == v[s - 1].guid) {
			snprintf(err, errlen, "duplicate switch GUID 0x%016llx",
				 (unsigned long long)v[s].guid);
			free(v);
			return -1;
		}
		g->sw[s].node = v[s].idx;
		g->sw[s].nports = t->nodes[v[s].idx].nports;
		g->node2sw[v[s].idx] = s;
	}
	free(v);
	return 0;
}

/* Groups the switch links of switch s by peer, ordered by first port. */
static void build_groups(struct rgraph *g, uint32_t s, uint32_t *gof, uint32_t *cap)
{
	const struct topo *t = g->t;
	const struct topo_node *nd = &t->nodes[g->sw[s].node];
	struct rg_sw *w = &g->sw[s];

	w->gfirst = g->ngroups;
	for (uint32_t p = 1; p <= nd->nports; p++) {
		if (!sym_peer(t, w->node, p))
			continue;
		uint32_t ps = g->node2sw[nd->ports[p].peer_node];
		if (ps == RG_NONE || ps == s)
			continue;
		if (gof[ps] == RG_NONE) {
			if (g->ngroups == *cap) {
				*cap *= 2;
				g->groups = realloc(g->groups, *cap * sizeof(*g->groups));
				if (!g->groups)
					abort();
			}
			gof[ps] = g->ngroups++;
			g->groups[gof[ps]] = (struct rg_group){ ps, 0, 0, nd->ports[p].peer_port };
		}
		g->groups[gof[ps]].n++;
		g->port2group[w->portbase + p] = (uint8_t)(gof[ps] - w->gfirst);
	}
	w->ngroups = g->ngroups - w->gfirst;
	/* Second pass: lay the ports out contiguously per group. */
	uint32_t at = w->portbase;
	for (uint32_t k = w->gfirst; k < g->ngroups; k++) {
		g->groups[k].first = at;
		at += g->groups[k].n;
		gof[g->groups[k].peer] = RG_NONE;
	}
	uint32_t *fill = rg_xcalloc(w->ngroups, sizeof(*fill));
	for (uint32_t p = 1; p <= nd->nports; p++) {
		uint8_t k = g->port2group[w->portbase + p];
		if (k == 0xFF)
			continue;
		struct rg_group *gr = &g->groups[w->gfirst + k];
		g->gports[gr->first + fill[k]++] = (uint8_t)p;
	}
	free(fill);
}

static int add_hosts(struct rgraph *g, uint32_t s, char *err, size_t errlen)
{
	const struct topo *t = g->t;
	const struct topo_node *nd = &t->nodes[g->sw[s].node];

	g->sw[s].hfirst = g->nhosts;
	for (uint32_t p = 1; p <= nd->nports; p++) {
		const struct topo_port *cp = sym_peer(t, g->sw[s].node, p);
		if (!cp)
			continue;
		uint32_t cn = nd->ports[p].peer_node;
		if (t->nodes[cn].type == TOPO_SWITCH || cp->lid == 0)
			continue;
		uint32_t nl = cp->lmc > 7 ? 0 : 1u << cp->lmc;
		if (nl == 0 || (uint32_t)cp->lid + nl - 1 > TOPO_MAX_UCAST_LID) {
			snprintf(err, errlen, "CA 0x%016llx port %u: LID %u lmc %u out of range",
				 (unsigned long long)t->nodes[cn].guid, nd->ports[p].peer_port,
				 cp->lid, cp->lmc);
			return -1;
		}
		g->hosts[g->nhosts++] = (struct rg_host){ cn, nd->ports[p].peer_port, s,
			(uint8_t)p, cp->lid, (uint16_t)nl };
		if (cp->lid + nl - 1 > g->top)
			g->top = cp->lid + nl - 1;
	}
	g->sw[s].nhosts = g->nhosts - g->sw[s].hfirst;
	return 0;
}

static int check_switch_lids(struct rgraph *g, char *err, size_t errlen)
{
	for (uint32_t s = 0; s < g->nsw; s++) {
		const struct topo_node *nd = &g->t->nodes[g->sw[s].node];
		uint16_t lid = nd->ports[0].lid;
		if (lid > TOPO_MAX_UCAST_LID) {
			snprintf(err, errlen, "switch 0x%016llx: LID %u out of range",
				 (unsigned long long)nd->guid, lid);
			return -1;
		}
		g->sw[s].lid = lid;
		if (lid > g->top)
			g->top = lid;
	}
	return 0;
}

int rg_build(struct rgraph *g, const struct topo *t, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	g->t = t;
	g->node2sw = rg_xmalloc(t->nnodes, sizeof(*g->node2sw));
	for (uint32_t i = 0; i < t->nnodes; i++)
		g->node2sw[i] = RG_NONE;
	if (collect_switches(g, err, errlen) || check_switch_lids(g, err, errlen))
		goto fail;
	uint32_t nports_total = 0;
	for (uint32_t s = 0; s < g->nsw; s++) {
		g->sw[s].portbase = nports_total;
		nports_total += g->sw[s].nports + 1u;
	}
	g->nlinks = nports_total;
	g->port2group = rg_xmalloc(nports_total, 1);
	memset(g->port2group, 0xFF, nports_total);
	g->gports = rg_xcalloc(nports_total, 1);
	uint32_t cap = 64;
	g->groups = rg_xmalloc(cap, sizeof(*g->groups));
	uint32_t *gof = rg_xmalloc(g->nsw, sizeof(*gof));
	for (uint32_t s = 0; s < g->nsw; s++)
		gof[s] = RG_NONE;
	for (uint32_t s = 0; s < g->nsw; s++)
		build_groups(g, s, gof, &cap);
	free(gof);
	g->hosts = rg_xcalloc(nports_total, sizeof(*g->hosts));
	for (uint32_t s = 0; s < g->nsw; s++)
		if (add_hosts(g, s, err, errlen))
			goto fail;
	return 0;
fail:
	rg_free(g);
	return -1;
}

void rg_free(struct rgraph *g)
{
	free(g->sw);
	free(g->groups);
	free(g->gports);
	free(g->node2sw);
	free(g->hosts);
	free(g->port2group);
	memset(g, 0, sizeof(*g));
}

uint32_t rg_port_peer_sw(const struct rgraph *g, uint32_t s, uint8_t p)
{
	if (p == 0 || p > g->sw[s].nports)
		return RG_NONE;
	uint8_t k = g->port2group[g->sw[s].portbase + p];
	return k == 0xFF ? RG_NONE : rg_group(g, s, k)->peer;
}

uint32_t rg_bfs(const struct rgraph *g, const uint32_t *src, uint32_t nsrc,
		uint32_t *dist, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, maxd = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		dist[s] = UINT32_MAX;
	for (uint32_t i = 0; i < nsrc; i++)
		if (dist[src[i]] == UINT32_MAX) {
			dist[src[i]] = 0;
			queue[tail++] = src[i];
		}
	while (head < tail) {
		uint32_t s = queue[head++];
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			if (dist[p] != UINT32_MAX)
				continue;
			dist[p] = dist[s] + 1;
			maxd = dist[p];
			queue[tail++] = p;
		}
	}
	return maxd;
}
