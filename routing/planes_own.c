/*
 * DOC: the switches' own ways where plane routing leaves none (see
 * planes.c): a middle switch that lost its link down to a host's leaf,
 * the middles of a plane that cannot reach that leaf at all, and the top
 * switches above them or cut off from its pod, for that host's LIDs.
 *
 * Only the switch's own packets (answers, traps) take these ways: up*\/down*
 * has none. Every one turns down towards a switch whose way already
 * arrives, so it cannot loop: a middle goes down to another leaf of its pod
 * (whose way climbs through a plane that reaches the host, never the
 * middle's own, which does not), and then a top goes down to the host's
 * own pod's middle of its plane where it links to it, else to another
 * pod's middle of its plane (whose way climbs to a top that links down
 * where this one does not, or goes down a leaf as above). Each is the
 * fewest hops to the host, the choice among equal ones turned by the LID.
 * None of this weighs credit loops: it is done only where more ways are
 * missing than reach.c's cycle searches can help with, and there it costs
 * a fraction of reach.c's walk of every LID across all switches (which is
 * then skipped). Whatever this leaves (a middle with no link down, a leaf
 * without a way), and every way below that count, reach.c gives.
 */
#include "routing/par.h"
#include "routing/planes_int.h"
#include "routing/reach.h"
#include "routing/routing.h"

/* 1 if switch y's entry for lid leads somewhere other than back to s
 * (rg_port_peer_sw() inline: this runs for every way given). */
static int onward(const struct pl *x, uint8_t *const *lft, uint32_t y, uint32_t s,
		  uint32_t lid)
{
	const struct rgraph *g = x->g;
	uint8_t e = lft[y][lid];

	if (e == LFT_NO_PORT || !e || e > g->sw[y].nports)
		return 0;
	uint8_t k = g->port2group[g->sw[y].portbase + e];
	return k != 0xFF && rg_group(g, y, k)->peer != s;
}

/* Middle m (pod p1, plane q) without a way to lid: down to a leaf of its
 * pod, other than the host's leaf l, that has one. */
static int middle_down(const struct pl *x, uint8_t **lft, uint32_t p1, uint32_t q, uint32_t l,
			uint32_t lid)
{
	uint32_t m = x->mid[(size_t)p1 * x->P + q], f = x->pfirst[p1];
	uint32_t n = x->pfirst[p1 + 1] - f;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t a = x->plist[f + (lid + k) % n];
		uint8_t dn = x->mdown[((size_t)p1 * x->P + q) * x->L + x->lpos[a]];
		if (a != l && dn && onward(x, lft, x->leafsw[a], m, lid)) {
			lft[m][lid] = dn;
			return 1;
		}
	}
	return 0;
}

/* Top (plane q, slot t) without a way to lid on a leaf of pod p: down to
 * pod p's middle of plane q, else to another pod's, one with a way. */
static int top_down(const struct pl *x, uint8_t **lft, uint32_t q, uint32_t t, uint32_t p,
		     uint32_t lid)
{
	uint32_t ts = x->top[(size_t)q * x->S + t], np = x->npod;
	const uint8_t *td = x->tdown + ((size_t)q * x->S + t) * np;

	for (uint32_t k = 0; k <= np; k++) {
		uint32_t p2 = k ? (lid + k) % np : p;
		uint32_t m = x->mid[(size_t)p2 * x->P + q];
		if (td[p2] && m != RG_NONE && onward(x, lft, m, ts, lid)) {
			lft[ts][lid] = td[p2];
			return 1;
		}
	}
	return 0;
}

/* The ways of one CA LID on leaf l: middles first, then the tops that
 * may go down through them; returns how many. */
static uint64_t own_lid(const struct pl *x, uint8_t **lft, uint32_t l, uint32_t lid)
{
	uint32_t P = x->P, S = x->S;
	uint64_t n = 0;

	for (uint32_t p1 = 0; p1 < x->npod; p1++)
		for (uint32_t q = 0; q < P; q++) {
			uint32_t m = x->mid[(size_t)p1 * P + q];
			if (m != RG_NONE && lft[m][lid] == LFT_NO_PORT)
				n += middle_down(x, lft, p1, q, l, lid);
		}
	for (uint32_t q = 0; q < P && S; q++)
		for (uint32_t t = 0; t < S; t++) {
			uint32_t ts = x->top[(size_t)q * S + t];
			if (ts != RG_NONE && lft[ts][lid] == LFT_NO_PORT)
				n += top_down(x, lft, q, t, x->pod[l], lid);
		}
	return n;
}

/* Middle and top switches without a way to lid. */
static uint32_t holes_of(const struct pl *x, uint8_t *const *lft, uint32_t lid)
{
	uint32_t n = 0, nm = x->npod * x->P, nt = x->P * x->S;

	for (uint32_t k = 0; k < nm; k++)
		n += x->mid[k] != RG_NONE && lft[x->mid[k]][lid] == LFT_NO_PORT;
	for (uint32_t k = 0; k < nt; k++)
		n += x->top[k] != RG_NONE && lft[x->top[k]][lid] == LFT_NO_PORT;
	return n;
}

/* 1 if more ways are missing than reach.c's cycle searches could help
 * with (reach_search_limit()): counted until then. Below that, reach.c
 * gives them, keeping the switches' routes free of credit loops where it
 * can. */
static int past_limit(const struct pl *x, uint8_t *const *lft)
{
	const struct rgraph *g = x->g;
	uint64_t n = 0, limit = reach_search_limit(g, g->top);

	for (uint32_t i = 0; i < x->N; i++)
		for (uint32_t o = 0; x->lidx[g->hosts[i].sw] != RG_NONE && o < g->hosts[i].nlids; o++)
			if ((n += holes_of(x, lft, g->hosts[i].lid + o)) > limit)
				return 1;
	return 0;
}

/* The hosts [lo, hi) of pl_route_own(), on one thread. */
struct own_part {
	const struct pl *x;
	uint8_t **lft;
	uint32_t lo, hi;
	uint64_t n;
};

static void own_run(void *arg)
{
	struct own_part *h = arg;
	const struct rgraph *g = h->x->g;

	for (uint32_t i = h->lo; i < h->hi; i++) {
		uint32_t l = h->x->lidx[g->hosts[i].sw];
		for (uint32_t o = 0; l != RG_NONE && o < g->hosts[i].nlids; o++)
			h->n += own_lid(h->x, h->lft, l, g->hosts[i].lid + o);
	}
}

uint64_t pl_route_own(const struct pl *x, uint8_t **lft, unsigned threads)
{
	/* a LID's ways read and write only its own entries: the hosts in
	 * two halves, side by side */
	struct own_part h[2] = { { x, lft, 0, x->N / 2, 0 }, { x, lft, x->N / 2, x->N, 0 } };

	if (!past_limit(x, lft))
		return 0;
	rg_par2(own_run, &h[1], &h[0], threads);
	return h[0].n + h[1].n;
}
