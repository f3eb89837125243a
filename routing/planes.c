/*
 * DOC: plane routing, ftree's engine for degraded 2- and 3-level trees.
 *
 * A k-ary 3-level tree is pods (leaves and the middle switches they share)
 * and planes (middle and top switches joined by links): middle j of every
 * pod meets the same top switches, and leaf ports to middle j all lead into
 * plane j. On 2 levels every spine is a plane and all leaves one pod. The
 * fabric is read that way when every pod has at most one middle switch in
 * every plane and no two switches share parallel links; otherwise ftree
 * keeps its general engine.
 *
 * On a complete tree d-mod-k routing is congestion-free for every shift
 * permutation: host i (in host order) goes down through plane i mod P and
 * top slot (i / P) mod S, and every other leaf climbs to that top. Here
 * that stays the plan for every (leaf, host) pair whose own plane and slot
 * still work; the rest are "extras" and get the plane (planes_leaf.c) and
 * then the top slot (planes_slot.c) that keep every shift permutation at
 * its bound + 1 where the greedy can, and no link above the all-to-all
 * bound where it can:
 *   - a host's flows under shift k come from the host k before it, so a
 *     (source leaf, host) entry carries one flow in each of the runs of
 *     shifts its source hosts give; per link the number of extras in every
 *     shift is counted exactly (per destination leaf for its down links,
 *     per plane for the middle and top links, as windows of recent extras
 *     for a source leaf's uplinks);
 *   - the planes and slots every entry may take are sets (struct pmask),
 *     and a candidate is taken in order of the all-to-all load it would
 *     land on (loads of whole uplink sets per middle switch, so that a
 *     middle that lost uplinks draws fewer extras), the first that keeps
 *     every shift within the target;
 *   - a host whose own plane is missing on its leaf, or whose plane already
 *     carries as many of its leaf's hosts as the leaf has hosts per plane,
 *     is never anyone's primary: every source spreads it (primok).
 * Routes are up*\/down* by construction (leaf, middle, top, middle, leaf),
 * so no credit loop can form. Deterministic: fixed orders, total sort keys.
 * Where a leaf pair cannot be joined at all, or the tree is complete (where
 * ftree's own routing is already d-mod-k), planes_route() declines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine.h"
#include "routing/par.h"
#include "routing/planes_int.h"

static uint32_t uf_find(uint32_t *u, uint32_t v)
{
	while (u[v] != v)
		v = u[v] = u[u[v]];
	return v;
}

static void uf_join(uint32_t *u, uint32_t a, uint32_t b)
{
	u[uf_find(u, a)] = uf_find(u, b);
}

/* Rank 1 or 2 at most, and one port per neighbour switch. */
static int shape_ok(const struct rgraph *g, const uint32_t *rank, uint32_t *maxr, char *why,
		    size_t len)
{
	*maxr = 0;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (rank[s] != UINT32_MAX && rank[s] > *maxr)
			*maxr = rank[s];
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			if (rg_group(g, s, k)->n > 1) {
				snprintf(why, len, "parallel links");
				return 0;
			}
	}
	if (*maxr < 1 || *maxr > 2) {
		snprintf(why, len, "%u ranks", *maxr + 1);
		return 0;
	}
	return 1;
}

/* Pods: leaves with the middles they link to; planes: middles with their
 * tops (2 ranks: one pod, a plane per spine). ids[] gets pod or plane ids
 * in order of first switch. */
static void components(const struct rgraph *g, const uint32_t *rank, uint32_t maxr,
		       uint32_t *podof, uint32_t *planeof, uint32_t *npod, uint32_t *nplane)
{
	uint32_t n = g->nsw, *u = rg_xmalloc(n, sizeof(*u)), *v = rg_xmalloc(n, sizeof(*v));
	uint32_t *pid = rg_xmalloc(n, sizeof(*pid)), *qid = rg_xmalloc(n, sizeof(*qid));

	for (uint32_t s = 0; s < n; s++) {
		u[s] = v[s] = s;
		pid[s] = qid[s] = podof[s] = planeof[s] = RG_NONE;
	}
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			if (rank[s] == 0 && rank[p] == 1 && maxr == 2)
				uf_join(u, s, p);
			if (rank[s] == 1 && rank[p] == 2)
				uf_join(v, s, p);
		}
	*npod = *nplane = 0;
	for (uint32_t s = 0; s < n; s++) {
		uint32_t r = maxr == 2 ? uf_find(u, s) : 0;
		if ((rank[s] == 0 || rank[s] == 1) && pid[r] == RG_NONE)
			pid[r] = (*npod)++;
		if (rank[s] == 0 || rank[s] == 1)
			podof[s] = pid[r];
		r = maxr == 2 ? uf_find(v, s) : s;
		if ((rank[s] == 1 || rank[s] == 2) && qid[r] == RG_NONE)
			qid[r] = (*nplane)++;
		if (rank[s] == 1 || rank[s] == 2)
			planeof[s] = qid[r];
	}
	if (maxr == 1) {
		*npod = 1;
		for (uint32_t s = 0; s < n; s++)
			podof[s] = rank[s] <= 1 ? 0 : RG_NONE;
	}
	free(u);
	free(v);
	free(pid);
	free(qid);
}

/* Leaves in switch order, their pods and positions, leaves by pod. */
static void leaves(struct pl *x, const uint32_t *rank, const uint32_t *podof)
{
	const struct rgraph *g = x->g;
	uint32_t *cnt = rg_xcalloc(x->npod + 1, sizeof(*cnt));

	x->lidx = rg_xmalloc(g->nsw, sizeof(*x->lidx));
	x->leafsw = rg_xmalloc(g->nsw, sizeof(*x->leafsw));
	x->pod = rg_xmalloc(g->nsw, sizeof(*x->pod));
	x->lpos = rg_xmalloc(g->nsw, sizeof(*x->lpos));
	for (uint32_t s = 0; s < g->nsw; s++) {
		x->lidx[s] = RG_NONE;
		if (rank[s] != 0)
			continue;
		uint32_t l = x->nleaf++;
		x->lidx[s] = l;
		x->leafsw[l] = s;
		x->pod[l] = podof[s];
		x->lpos[l] = cnt[podof[s]]++;
		x->L = cnt[podof[s]] > x->L ? cnt[podof[s]] : x->L;
	}
	x->pfirst = rg_xcalloc(x->npod + 1, sizeof(*x->pfirst));
	x->plist = rg_xmalloc(x->nleaf, sizeof(*x->plist));
	for (uint32_t p = 0; p < x->npod; p++)
		x->pfirst[p + 1] = x->pfirst[p] + cnt[p];
	memset(cnt, 0, (x->npod + 1) * sizeof(*cnt));
	for (uint32_t l = 0; l < x->nleaf; l++)
		x->plist[x->pfirst[x->pod[l]] + cnt[x->pod[l]]++] = l;
	free(cnt);
}

/* Middle switch of every (pod, plane), top switch of every (plane, slot);
 * 0 if a pod has two middles in one plane. */
static int places(struct pl *x, const uint32_t *rank, const uint32_t *podof,
		  const uint32_t *planeof, uint32_t *slotof, char *why, size_t len)
{
	const struct rgraph *g = x->g;
	uint32_t *cnt = rg_xcalloc(x->P, sizeof(*cnt));

	x->mid = rg_xmalloc((size_t)x->npod * x->P, sizeof(*x->mid));
	for (size_t i = 0; i < (size_t)x->npod * x->P; i++)
		x->mid[i] = RG_NONE;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (rank[s] == 2)
			slotof[s] = cnt[planeof[s]]++;
		if (rank[s] != 1)
			continue;
		uint32_t *m = &x->mid[(size_t)podof[s] * x->P + planeof[s]];
		if (*m != RG_NONE) {
			snprintf(why, len, "two middle switches of one pod in one plane");
			free(cnt);
			return 0;
		}
		*m = s;
	}
	for (uint32_t q = 0; q < x->P; q++)
		x->S = cnt[q] > x->S ? cnt[q] : x->S;
	free(cnt);
	/* a byte holds a plane or a slot, 0xFF meaning none */
	if (x->P > PL_MAXP - 1 || x->S > PL_MAXP - 1) {
		snprintf(why, len, "%u planes of %u slots", x->P, x->S);
		return 0;
	}
	x->top = rg_xmalloc((size_t)x->P * (x->S ? x->S : 1), sizeof(*x->top));
	for (size_t i = 0; i < (size_t)x->P * (x->S ? x->S : 1); i++)
		x->top[i] = RG_NONE;
	for (uint32_t s = 0; s < g->nsw; s++)
		if (rank[s] == 2)
			x->top[(size_t)planeof[s] * x->S + slotof[s]] = s;
	return 1;
}

/* Port tables and the sets built from them. */
static void links(struct pl *x, const uint32_t *rank, const uint32_t *podof,
		  const uint32_t *planeof, const uint32_t *slotof)
{
	const struct rgraph *g = x->g;
	size_t S1 = x->S ? x->S : 1;

	x->lup = rg_xcalloc((size_t)x->nleaf * x->P, 1);
	x->mdown = rg_xcalloc((size_t)x->npod * x->P * x->L, 1);
	x->mup = rg_xcalloc((size_t)x->npod * x->P * S1, 1);
	x->tdown = rg_xcalloc((size_t)x->P * S1 * x->npod, 1);
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			const struct rg_group *gr = rg_group(g, s, k);
			uint32_t p = gr->peer;
			uint8_t port = g->gports[gr->first];
			if (rank[s] == 0 && rank[p] == 1)
				x->lup[(size_t)x->lidx[s] * x->P + planeof[p]] = port;
			else if (rank[s] == 1 && rank[p] == 0)
				x->mdown[((size_t)podof[s] * x->P + planeof[s]) * x->L +
					 x->lpos[x->lidx[p]]] = port;
			else if (rank[s] == 1 && rank[p] == 2)
				x->mup[((size_t)podof[s] * x->P + planeof[s]) * S1 + slotof[p]] = port;
			else if (rank[s] == 2 && rank[p] == 1)
				x->tdown[((size_t)planeof[s] * S1 + slotof[s]) * x->npod + podof[p]] = port;
		}
}

static void masks(struct pl *x)
{
	uint32_t P = x->P, S = x->S, np = x->npod;

	x->lmask = rg_xcalloc(x->nleaf, sizeof(*x->lmask));
	x->dmask = rg_xcalloc(x->nleaf, sizeof(*x->dmask));
	x->upm = rg_xcalloc((size_t)np * P, sizeof(*x->upm));
	x->dnm = rg_xcalloc((size_t)np * P, sizeof(*x->dnm));
	x->common = rg_xcalloc((size_t)np * np, sizeof(*x->common));
	for (uint32_t l = 0; l < x->nleaf; l++)
		for (uint32_t q = 0; q < P; q++) {
			if (x->lup[(size_t)l * P + q])
				pm_set(&x->lmask[l], q);
			if (x->mdown[((size_t)x->pod[l] * P + q) * x->L + x->lpos[l]])
				pm_set(&x->dmask[l], q);
		}
	for (uint32_t p = 0; p < np; p++)
		for (uint32_t q = 0; q < P; q++)
			for (uint32_t t = 0; t < S; t++) {
				if (x->mup[((size_t)p * P + q) * S + t])
					pm_set(&x->upm[(size_t)p * P + q], t);
				if (x->tdown[((size_t)q * S + t) * np + p])
					pm_set(&x->dnm[(size_t)q * np + p], t);
			}
	for (uint32_t a = 0; a < np && S; a++)
		for (uint32_t b = 0; b < np; b++)
			for (uint32_t q = 0; q < P; q++) {
				struct pmask m;
				pm_and(&m, &x->upm[(size_t)a * P + q], &x->dnm[(size_t)q * np + b]);
				if (pl_next(&m, 0, S) != RG_NONE)
					pm_set(&x->common[(size_t)a * np + b], q);
			}
}

/*
 * The all-to-all bound and the shift target, as verify computes them: per
 * shift, the largest ceil(flows leaving a leaf / its uplinks), plus one.
 * Leaves keep some of their hosts' flows only in shifts below the largest
 * leaf's hosts (or as far from the end): the target is T between those.
 */
static void bounds(struct pl *x)
{
	const struct rgraph *g = x->g;
	uint32_t N = x->N;

	x->T = 2;
	for (uint32_t l = 0; l < x->nleaf; l++) {
		const struct rg_sw *w = &g->sw[x->leafsw[l]];
		uint64_t h = w->nhosts, up = w->ngroups;
		x->zone = (uint32_t)h > x->zone ? (uint32_t)h : x->zone;
		if (!h || !up)
			continue;
		uint64_t b = (h * (N - h) + up - 1) / up;
		x->B = b > x->B ? b : x->B;
		if ((h + up - 1) / up + 1 > x->T)
			x->T = (uint32_t)((h + up - 1) / up + 1);
	}
	x->zone = x->zone < N / 2 ? x->zone : N / 2;
	x->lim = rg_xmalloc(N ? N : 1, 1);
	memset(x->lim, (int)x->T, N);
	for (uint32_t s = 0; s < N; s++) {
		if (s >= x->zone && s <= N - x->zone)
			continue;
		uint32_t b = 1;
		for (uint32_t l = 0; l < x->nleaf; l++) {
			const struct rg_sw *w = &g->sw[x->leafsw[l]];
			uint32_t h = w->nhosts, up = w->ngroups, out = 0;
			for (uint32_t k = 0; k < h && up; k++)
				out += g->hosts[(w->hfirst + k + s) % N].sw != x->leafsw[l];
			if (up && (out + up - 1) / up > b)
				b = (out + up - 1) / up;
		}
		x->lim[s] = (uint8_t)(b + 1 < x->T ? b + 1 : x->T);
	}
}

static void leaf_components(struct pl *x)
{
	const struct rgraph *g = x->g;
	uint32_t *u = rg_xmalloc(g->nsw, sizeof(*u));

	for (uint32_t s = 0; s < g->nsw; s++)
		u[s] = s;
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			uf_join(u, s, rg_group(g, s, k)->peer);
	x->lcomp = rg_xmalloc(x->nleaf, sizeof(*x->lcomp));
	for (uint32_t l = 0; l < x->nleaf; l++)
		x->lcomp[l] = uf_find(u, x->leafsw[l]);
	free(u);
}

static void pl_free(struct pl *x)
{
	free(x->lidx);
	free(x->leafsw);
	free(x->pod);
	free(x->lpos);
	free(x->lcomp);
	free(x->pfirst);
	free(x->plist);
	free(x->mid);
	free(x->top);
	free(x->lup);
	free(x->mdown);
	free(x->mup);
	free(x->tdown);
	free(x->lmask);
	free(x->dmask);
	free(x->common);
	free(x->upm);
	free(x->dnm);
	free(x->primok);
	free(x->lim);
	free(x->rowload);
	free(x->midup);
	free(x->middn);
	free(x->cup);
	free(x->rcup);
	free(x->mload);
	free(x->tload);
	for (uint32_t q = 0; x->xl && q < x->P; q++)
		free(x->xl[q]);
	free(x->xl);
	free(x->nxl);
	free(x->capxl);
}

static int pl_build(struct pl *x, const struct rgraph *g, const uint32_t *rank, char *why,
		    size_t len)
{
	uint32_t maxr, n = g->nsw ? g->nsw : 1;

	memset(x, 0, sizeof(*x));
	x->g = g;
	x->N = g->nhosts;
	if (!shape_ok(g, rank, &maxr, why, len))
		return -1;
	if (g->nhosts > UINT16_MAX) {
		snprintf(why, len, "more hosts than a 16-bit index");
		return -1;
	}
	uint32_t *podof = rg_xmalloc(n, sizeof(*podof)), *planeof = rg_xmalloc(n, sizeof(*planeof));
	uint32_t *slotof = rg_xcalloc(n, sizeof(*slotof));
	components(g, rank, maxr, podof, planeof, &x->npod, &x->P);
	leaves(x, rank, podof);
	int ok = places(x, rank, podof, planeof, slotof, why, len);
	if (ok) {
		links(x, rank, podof, planeof, slotof);
		masks(x);
		bounds(x);
		leaf_components(x);
	}
	free(podof);
	free(planeof);
	free(slotof);
	return ok ? 0 : -1;
}

/* 1 if no link of the plane structure is missing. */
static int complete(const struct pl *x)
{
	uint32_t P = x->P, S = x->S, np = x->npod;

	for (size_t i = 0; i < (size_t)np * P; i++)
		if (x->mid[i] == RG_NONE)
			return 0;
	for (size_t i = 0; i < (size_t)P * S; i++)
		if (x->top[i] == RG_NONE)
			return 0;
	for (uint32_t l = 0; l < x->nleaf; l++)
		for (uint32_t q = 0; q < P; q++)
			if (!pm_has(&x->lmask[l], q) || !pm_has(&x->dmask[l], q))
				return 0;
	for (uint32_t p = 0; p < np; p++)
		for (uint32_t q = 0; q < P; q++)
			for (uint32_t t = 0; t < S; t++)
				if (!pm_has(&x->upm[(size_t)p * P + q], t) ||
				    !pm_has(&x->dnm[(size_t)q * np + p], t))
					return 0;
	return 1;
}

/* 1 (why set) if two leaves of one component have no plane in common. */
static int cut(const struct pl *x, char *why, size_t len)
{
	const struct rgraph *g = x->g;

	for (uint32_t a = 0; a < x->nleaf; a++)
		for (uint32_t l = 0; l < x->nleaf; l++) {
			if (a == l || x->lcomp[a] != x->lcomp[l] || !g->sw[x->leafsw[l]].nhosts)
				continue;
			struct pmask m;
			pm_and(&m, &x->lmask[a], &x->dmask[l]);
			if (x->pod[a] != x->pod[l])
				pm_and(&m, &m, &x->common[(size_t)x->pod[a] * x->npod + x->pod[l]]);
			if (pl_next(&m, 0, x->P) == RG_NONE) {
				snprintf(why, len, "leaf 0x%016llx cannot reach leaf 0x%016llx "
					 "up*/down*", (unsigned long long)g->t->nodes[
					 g->sw[x->leafsw[a]].node].guid, (unsigned long long)
					 g->t->nodes[g->sw[x->leafsw[l]].node].guid);
				return 1;
			}
		}
	return 0;
}

/*
 * A host goes whole through its own plane unless its leaf lost that plane,
 * or the plane already holds the leaf's share of hosts (more hosts than
 * planes left): every source then spreads it, so that no link into the
 * leaf carries two hosts' worth of all-to-all traffic.
 */
static void primaries(struct pl *x)
{
	const struct rgraph *g = x->g;

	x->primok = rg_xcalloc(x->N, 1);
	for (uint32_t l = 0; l < x->nleaf; l++) {
		const struct rg_sw *w = &g->sw[x->leafsw[l]];
		uint32_t u = 0, held[PL_MAXP] = { 0 };
		for (uint32_t q = 0; q < x->P; q++)
			u += pm_has(&x->dmask[l], q);
		uint32_t cap = u && w->nhosts / u > 1 ? w->nhosts / u : 1;
		for (uint32_t i = w->hfirst; i < w->hfirst + w->nhosts; i++) {
			uint32_t j0 = i % x->P;
			if (!pm_has(&x->dmask[l], j0) || held[j0] >= cap)
				continue;
			held[j0]++;
			x->primok[i] = 1;
		}
	}
}

/* Own-pod middles and top switches go down, where they can. */
static void route_down(const struct pl *x, uint8_t **lft, uint32_t i, uint16_t lid)
{
	uint32_t l = x->lidx[x->g->hosts[i].sw], P = x->P, S = x->S;
	uint32_t p = x->pod[l], lp = x->lpos[l];

	for (uint32_t q = 0; q < P; q++) {
		uint8_t dn = x->mdown[((size_t)p * P + q) * x->L + lp];
		if (!dn)
			continue;
		if (x->mid[(size_t)p * P + q] != RG_NONE)
			lft[x->mid[(size_t)p * P + q]][lid] = dn;
		for (uint32_t t = 0; t < S; t++) {
			uint32_t ts = x->top[(size_t)q * S + t];
			uint8_t td = x->tdown[((size_t)q * S + t) * x->npod + p];
			if (ts != RG_NONE && td)
				lft[ts][lid] = td;
		}
	}
}

struct downs {
	const struct pl *x;
	uint8_t **lft;
};

/* route_down() for the base LIDs of hosts [lo, hi) (each its own column). */
static void route_downs(void *arg, int half, uint32_t lo, uint32_t hi)
{
	const struct downs *d = arg;
	const struct rgraph *g = d->x->g;

	for (uint32_t i = lo; i < hi; i++)
		if (d->x->lidx[g->hosts[i].sw] != RG_NONE)
			route_down(d->x, d->lft, i, g->hosts[i].lid);
}

/*
 * LMC offset o of host i: no shift or all-to-all bound counts it, so it
 * takes the first plane and slot that work from i's own turned by o, for
 * a path apart from the base LID's where one exists.
 */
static void route_offset(const struct pl *x, uint8_t **lft, uint32_t i, uint32_t o)
{
	uint32_t l = x->lidx[x->g->hosts[i].sw], P = x->P, S = x->S, np = x->npod;
	uint32_t p = x->pod[l];
	uint16_t lid = (uint16_t)(x->g->hosts[i].lid + o);

	route_down(x, lft, i, lid);
	for (uint32_t a = 0; a < x->nleaf; a++) {
		struct pmask m;
		if (a == l || x->lcomp[a] != x->lcomp[l])
			continue;
		pm_and(&m, &x->lmask[a], &x->dmask[l]);
		if (x->pod[a] != p)
			pm_and(&m, &m, &x->common[(size_t)x->pod[a] * np + p]);
		uint32_t q = pl_next(&m, (i + o) % P, P);
		if (q != RG_NONE)
			lft[x->leafsw[a]][lid] = x->lup[(size_t)a * P + q];
	}
	for (uint32_t p1 = 0; p1 < np && S; p1++)
		for (uint32_t q = 0; q < P && p1 != p; q++) {
			struct pmask m;
			uint32_t s = x->mid[(size_t)p1 * P + q];
			if (s == RG_NONE || !pm_has(&x->dmask[l], q))
				continue;
			pm_and(&m, &x->upm[(size_t)p1 * P + q], &x->dnm[(size_t)q * np + p]);
			uint32_t t = pl_next(&m, (i / P + o) % S, S);
			if (t != RG_NONE)
				lft[s][lid] = x->mup[((size_t)p1 * P + q) * S + t];
		}
}

/* 0 with x built if the tree takes plane routing, else 1 (x freed, why
 * says why). */
static int pl_take(struct pl *x, const struct rgraph *g, const uint32_t *rank, char *why,
		   size_t whylen)
{
	if (pl_build(x, g, rank, why, whylen)) {
		pl_free(x);
		return 1;
	}
	if (complete(x) || cut(x, why, whylen)) {
		if (complete(x))
			snprintf(why, whylen, "complete");
		pl_free(x);
		return 1;
	}
	return 0;
}

int planes_unbalanced(const struct planes_stats *st)
{
	return st->leaf_over || st->slot_over || st->a2a_max * 25 > st->a2a_bound * 27;
}

int planes_fit(const struct rgraph *g, const uint32_t *rank)
{
	struct pl x;
	char why[200];

	if (pl_take(&x, g, rank, why, sizeof(why)))
		return 0;
	pl_free(&x);
	return 1;
}

int planes_route(struct rctx *c, const uint32_t *rank, struct planes_stats *st, char *why,
		 size_t whylen)
{
	const struct rgraph *g = c->g;
	struct pl x;

	memset(st, 0, sizeof(*st));
	if (pl_take(&x, g, rank, why, whylen))
		return 1;
	x.st = st;
	st->a2a_bound = x.B;
	st->pods = x.npod;
	st->planes = x.P;
	st->slots = x.S;
	primaries(&x);
	pl_loads_init(&x);
	unsigned threads = rg_par_threads(g, c->o->threads ? c->o->threads : ROUTE_THREADS);
	pl_route_leaves(&x, c->lft, route_split(c), threads);
	struct downs d = { &x, c->lft };
	rg_par_range(route_downs, &d, x.N, threads);
	if (x.S)
		pl_route_middles(&x, c->lft, threads, c->o->planes_bytes);
	for (uint32_t i = 0; i < x.N; i++)
		for (uint32_t o = 1; x.lidx[g->hosts[i].sw] != RG_NONE && o < g->hosts[i].nlids; o++)
			route_offset(&x, c->lft, i, o);
	if (!planes_unbalanced(st))
		st->own = pl_route_own(&x, c->lft, threads);
	pl_free(&x);
	return 0;
}
