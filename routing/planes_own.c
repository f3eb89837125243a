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
#include <stdlib.h>

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

/* The hosts' CA LIDs with their leaves, in host order: the columns the
 * rows are scanned along (only CA LIDs' entries: the switch LIDs' may be
 * written beside this, see ftree.c's route_planes_beside()). */
struct cols {
	uint32_t *lid, *leaf;
	uint32_t n;
};

static void cols_init(const struct pl *x, struct cols *c)
{
	const struct rgraph *g = x->g;
	uint32_t n = 0;

	for (uint32_t i = 0; i < x->N; i++)
		n += x->lidx[g->hosts[i].sw] != RG_NONE ? g->hosts[i].nlids : 0;
	c->lid = rg_xmalloc(n ? n : 1, sizeof(*c->lid));
	c->leaf = rg_xmalloc(n ? n : 1, sizeof(*c->leaf));
	c->n = 0;
	for (uint32_t i = 0; i < x->N; i++) {
		uint32_t l = x->lidx[g->hosts[i].sw];
		for (uint32_t o = 0; l != RG_NONE && o < g->hosts[i].nlids; o++) {
			c->lid[c->n] = g->hosts[i].lid + o;
			c->leaf[c->n++] = l;
		}
	}
}

/* Row r of the phase: r < npod * P the middle of pod r / P, plane r % P;
 * above, the top of plane (r - npod * P) / S, slot (r - npod * P) % S. */
static uint32_t row_switch(const struct pl *x, uint32_t r)
{
	uint32_t nm = x->npod * x->P;

	return r < nm ? x->mid[r] : x->top[r - nm];
}

/* The CA LIDs switch s (a row's, RG_NONE: none) has no way to; counting
 * stops past stop. */
static uint64_t row_holes(uint8_t *const *lft, uint32_t s, const struct cols *c, uint64_t stop)
{
	uint64_t n = 0;

	for (uint32_t j = 0; s != RG_NONE && j < c->n && n <= stop; j++)
		n += lft[s][c->lid[j]] == LFT_NO_PORT;
	return n;
}

/* 1 if more ways are missing than reach.c's cycle searches could help
 * with (reach_search_limit()): counted until then. Below that, reach.c
 * gives them, keeping the switches' routes free of credit loops where it
 * can. */
static int past_limit(const struct pl *x, uint8_t *const *lft, const struct cols *c)
{
	uint64_t n = 0, limit = reach_search_limit(x->g, x->g->top);
	uint32_t rows = x->npod * x->P + x->P * x->S;

	for (uint32_t r = 0; r < rows && n <= limit; r++)
		n += row_holes(lft, row_switch(x, r), c, limit - n);
	return n > limit;
}

/* Rows [lo, hi) of one phase (middles, then tops) on one thread. */
struct own_part {
	const struct pl *x;
	uint8_t **lft;
	const struct cols *c;
	uint32_t lo, hi;
	uint64_t n;
};

static void own_run(void *arg)
{
	struct own_part *h = arg;
	const struct pl *x = h->x;
	uint32_t nm = x->npod * x->P;

	for (uint32_t r = h->lo; r < h->hi; r++) {
		uint32_t s = row_switch(x, r);
		for (uint32_t j = 0; s != RG_NONE && j < h->c->n; j++) {
			uint32_t lid = h->c->lid[j], l = h->c->leaf[j];
			if (h->lft[s][lid] != LFT_NO_PORT)
				continue;
			if (r < nm)
				h->n += middle_down(x, h->lft, r / x->P, r % x->P, l, lid);
			else
				h->n += top_down(x, h->lft, (r - nm) / x->S, (r - nm) % x->S,
						 x->pod[l], lid);
		}
	}
}

/* Rows [lo, hi) in two halves side by side: a row's ways read only
 * entries no other row of the phase writes. */
static uint64_t own_phase(const struct pl *x, uint8_t **lft, const struct cols *c, uint32_t lo,
			  uint32_t hi, unsigned threads)
{
	uint32_t mid = lo + (hi - lo) / 2;
	struct own_part h[2] = { { x, lft, c, lo, mid, 0 }, { x, lft, c, mid, hi, 0 } };

	rg_par2(own_run, &h[1], &h[0], threads);
	return h[0].n + h[1].n;
}

uint64_t pl_route_own(const struct pl *x, uint8_t **lft, unsigned threads)
{
	uint32_t nm = x->npod * x->P, nt = x->P * x->S;
	struct cols c;
	uint64_t n = 0;

	cols_init(x, &c);
	/* the middles first: the tops may go down through them */
	if (past_limit(x, lft, &c))
		n = own_phase(x, lft, &c, 0, nm, threads) + own_phase(x, lft, &c, nm, nm + nt, threads);
	free(c.lid);
	free(c.leaf);
	return n;
}
