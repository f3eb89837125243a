/*
 * DOC: balance on the leaves' links, where not every shift is counted.
 *
 * Under shift k the hosts of leaf L send to the nhosts(L) destinations
 * from hfirst(L) + k on, so its uplinks' loads are counts over a sliding
 * window of its entries, and the load of a link into a leaf is a walk
 * from each of its hosts' k-th predecessors. Both are computed when
 * needed instead of counted. Both slide: from one shift to the next one
 * destination enters a leaf's window and one leaves it, and a host of L
 * changes source leaf only where its source crosses a leaf boundary, so
 * a shift costs O(1) until its largest load passes the limit. Every
 * window above the limit on an uplink moves (or swaps) entries of the
 * leaf; every link into a leaf above it moves a source leaf's entry. A
 * move adds no excess on the leaves' links of any shift; what it does
 * above them the upper components sort out (their counters leave the
 * links into leaves out).
 */
#include <stdlib.h>
#include <string.h>

#include "routing/balance_int.h"
#include "routing/routing.h"

/* Link id of the last hop from leaf l to destination host d; RG_NONE if
 * the route does not get there. */
static uint32_t last_link(const struct bal *b, uint32_t l, uint32_t d)
{
	const uint8_t *row = b->rows + (size_t)d * b->nsw;
	uint32_t root = b->g->hosts[d].sw, id = RG_NONE;

	for (uint32_t h = 0; l != root && h < BAL_PATH; h++) {
		if (row[l] == LFT_NO_PORT || !row[l] || row[l] > b->g->sw[l].nports)
			return RG_NONE;
		id = b->g->sw[l].portbase + row[l];
		if ((l = b->peer[id]) == RG_NONE)
			return RG_NONE;
	}
	return l == root ? id : RG_NONE;
}

/* 1 if np adds to op a link whose shift counters are kept (an upper
 * component's, while it is counted): a leaf move must leave those alone. */
static int adds_counted(const struct bal *b, const struct path *op, const struct path *np)
{
	struct path added;

	if (!b->sc)
		return 0;
	bal_minus(np, op, &added);
	for (uint32_t i = 0; i < added.n; i++)
		if (b->sci[added.id[i]] != RG_NONE)
			return 1;
	return 0;
}

/* Routes of shift k on leaf l's uplink port q. */
static uint32_t up_load(const struct bal *b, uint32_t l, uint8_t q, uint32_t k)
{
	const struct rg_sw *sw = &b->g->sw[l];
	uint32_t c = 0;

	for (uint32_t i = 0; i < sw->nhosts; i++) {
		uint32_t d = (sw->hfirst + k + i) % b->n;
		c += b->g->hosts[d].sw != l && b->rows[(size_t)d * b->nsw + l] == q;
	}
	return c;
}

/* Routes of shift k on link e into leaf l. */
static uint32_t down_load(const struct bal *b, uint32_t e, uint32_t l, uint32_t k)
{
	const struct rg_sw *sw = &b->g->sw[l];
	uint32_t c = 0;

	for (uint32_t d = sw->hfirst; d < sw->hfirst + sw->nhosts; d++) {
		uint32_t src = b->g->hosts[(d + b->n - k) % b->n].sw;
		c += src != l && last_link(b, src, d) == e;
	}
	return c;
}

/*
 * Moves leaf l's entry for host d to the uplink that adds no excess on
 * l's uplinks or on the link into d's leaf under any of the shifts it
 * serves, keeps the all-to-all limit, and (if avoid is a link) stops
 * using avoid; the one adding least all-to-all load. 1 if moved.
 */
int bal_leaf_move(struct bal *b, uint32_t l, uint32_t d, uint32_t avoid)
{
	const struct rgraph *g = b->g;
	const struct rg_sw *sw = &g->sw[l];
	struct path op, np;
	uint64_t best = UINT64_MAX;
	uint8_t bq = 0;

	bal_tree(b, d);
	if (b->intree[l] != b->stamp || !bal_path_from(b, l, &op))
		return 0;
	for (uint32_t k = 0; k < sw->ngroups; k++) {
		const struct rg_group *gr = rg_group(g, l, k);
		for (uint32_t x = 0; x < gr->n; x++) {
			uint8_t q = g->gports[gr->first + x];
			if (q == b->cur[l] || !bal_new_path(b, l, q, &np))
				continue;
			uint32_t e = np.id[np.n - 1], keep = e == op.id[op.n - 1];
			uint64_t m = bal_added_max(b, &op, &np, b->flow[l]);
			if (m > b->a2a_lim || m >= best || bal_on_path(&np, avoid) ||
			    adds_counted(b, &op, &np))
				continue;
			int ok = 1;
			b->work += (uint64_t)sw->nhosts * sw->nhosts * 5;
			for (uint32_t j = sw->hfirst; ok && j < sw->hfirst + sw->nhosts; j++) {
				uint32_t sh = (d + b->n - j) % b->n;
				ok = up_load(b, l, q, sh) < b->slim[sh] &&
				     (keep || down_load(b, e, g->hosts[d].sw, sh) < b->slim[sh]);
			}
			if (ok) {
				best = m;
				bq = q;
			}
		}
	}
	if (!bq)
		return 0;
	bal_new_path(b, l, bq, &np);
	bal_apply(b, l, bq, &op, &np);
	return 1;
}

/* Excess of load over slim, plus BAL_TIER times that over nlim (see
 * bal_shift_delta()). */
static uint64_t over_by(const struct bal *b, uint32_t load, uint32_t sh)
{
	uint64_t x = load > b->slim[sh] ? load - b->slim[sh] : 0;

	return x + (load > b->nlim[sh] ? (uint64_t)BAL_TIER * (load - b->nlim[sh]) : 0);
}

/* Excess over the limits, on leaf l's uplinks p and q and on links e[],
 * under the shifts that carry l's flows to dd[0] or dd[1]. */
static uint64_t leaf_excess(const struct bal *b, uint32_t l, const uint32_t *dd, uint8_t p,
			    uint8_t q, const uint32_t *e, uint32_t ne)
{
	const struct rg_sw *sw = &b->g->sw[l];
	uint64_t x = 0;

	for (int i = 0; i < 2; i++)
		for (uint32_t j = sw->hfirst; j < sw->hfirst + sw->nhosts; j++) {
			uint32_t sh = (dd[i] + b->n - j) % b->n;
			x += over_by(b, up_load(b, l, p, sh), sh);
			x += over_by(b, up_load(b, l, q, sh), sh);
			for (uint32_t k = 0; k < ne; k++)
				x += over_by(b, down_load(b, e[k], b->peer[e[k]], sh), sh);
		}
	return x;
}

/* Last links of d's route from l now and via port q, into e[0], e[1]; 0
 * if q is no legal move or passes the all-to-all limit. */
static int swap_links(struct bal *b, uint32_t l, uint32_t d, uint8_t q, uint32_t *e)
{
	struct path op, np;

	bal_tree(b, d);
	if (b->intree[l] != b->stamp || !bal_path_from(b, l, &op) || !op.n ||
	    !bal_new_path(b, l, q, &np) || bal_added_max(b, &op, &np, b->flow[l]) > b->a2a_lim)
		return 0;
	e[0] = op.id[op.n - 1];
	e[1] = np.id[np.n - 1];
	return 1;
}

/*
 * Where no single move of leaf l's entry for d1 helps: d1 takes uplink q
 * and a destination d2 near it (their shift windows overlap) takes d1's
 * uplink p, if that lowers the excess on the links concerned. 1 if done.
 */
static int leaf_swap(struct bal *b, uint32_t l, uint32_t d1)
{
	const struct rgraph *g = b->g;
	uint32_t nh = g->sw[l].nhosts, e[4], dd[2] = { d1, 0 };
	uint8_t p = b->rows[(size_t)d1 * b->nsw + l];

	for (uint32_t k = 0; k < g->sw[l].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, l, k);
		for (uint32_t x = 0; x < gr->n; x++) {
			uint8_t q = g->gports[gr->first + x];
			if (q == p || !swap_links(b, l, d1, q, e))
				continue;
			for (uint32_t off = 1; off <= 4 * nh && off < b->n; off++) {
				uint32_t step = off & 1 ? off / 2 + 1 : b->n - off / 2;
				uint32_t d2 = (d1 + step) % b->n;
				if (g->hosts[d2].sw == l || b->rows[(size_t)d2 * b->nsw + l] != q ||
				    b->work > b->work_lim || !swap_links(b, l, d2, p, e + 2))
					continue;
				dd[1] = d2;
				b->work += 16ull * nh * nh;
				uint64_t before = leaf_excess(b, l, dd, p, q, e, 4);
				if (bal_move_to(b, d2, l, p, 0) == INT64_MAX)
					continue;
				if (bal_move_to(b, d1, l, q, 0) != INT64_MAX) {
					if (leaf_excess(b, l, dd, p, q, e, 4) < before)
						return 1;
					bal_move_to(b, d1, l, p, 0);
				}
				bal_move_to(b, d2, l, q, 0);
			}
		}
	}
	return 0;
}

/*
 * Loads of a leaf's uplinks (per port) or of the links into a leaf (per
 * link id) under one shift, with a histogram of the loads so that the
 * largest is known at once as the shift window slides.
 */
struct loads {
	uint32_t *cnt;    /* per port or link id */
	uint32_t hist[BAL_WINDOW + 1];
	uint32_t top;
};

static void load_add(struct loads *w, uint32_t x, int d)
{
	uint32_t v = w->cnt[x];

	w->hist[v]--;
	w->cnt[x] = v = d > 0 ? v + 1 : v - 1;
	w->hist[v]++;
	if (v > w->top)
		w->top = v;
	else if (!w->hist[w->top])
		w->top--;
}

/* Leaf l's routes per uplink under shift k, into w. */
static void window(const struct bal *b, uint32_t l, uint32_t k, struct loads *w)
{
	const struct rg_sw *sw = &b->g->sw[l];

	memset(w->cnt, 0, 256 * sizeof(*w->cnt));
	memset(w->hist, 0, sizeof(w->hist));
	w->hist[0] = 256;
	w->top = 0;
	for (uint32_t i = 0; i < sw->nhosts; i++) {
		uint32_t d = (sw->hfirst + k + i) % b->n;
		if (b->g->hosts[d].sw != l)
			load_add(w, b->rows[(size_t)d * b->nsw + l], 1);
	}
}

/* Moves, or failing that swaps, entries of leaf l off uplink p until
 * shift k's window holds no more than the limit on it. */
static void leaf_up_fix(struct bal *b, uint32_t l, uint32_t k, uint8_t p, struct loads *w,
			struct balance_stats *st)
{
	const struct rg_sw *sw = &b->g->sw[l];

	for (int swap = 0; swap < 2; swap++)
		for (uint32_t i = 0; i < sw->nhosts && w->cnt[p] > b->slim[k]; i++) {
			uint32_t d = (sw->hfirst + k + i) % b->n;
			if (b->g->hosts[d].sw == l || b->rows[(size_t)d * b->nsw + l] != p ||
			    b->work > b->work_lim)
				continue;
			if (swap ? leaf_swap(b, l, d) : bal_leaf_move(b, l, d, RG_NONE)) {
				window(b, l, k, w);
				st->leaf_moves++;
			}
		}
}

/* Leaf l's uplinks under every shift: the window slides one destination
 * per shift, and only a shift whose largest load passes its limit looks
 * at the ports. */
static void leaf_ups(struct bal *b, uint32_t l, struct loads *w, struct balance_stats *st)
{
	const struct rgraph *g = b->g;
	const struct rg_sw *sw = &g->sw[l];
	uint32_t n = b->n, nh = sw->nhosts;

	window(b, l, 1, w);
	for (uint32_t k = 1; k < n; k++) {
		if (k > 1) {
			uint32_t out = (sw->hfirst + k - 1) % n, in = (sw->hfirst + k - 1 + nh) % n;
			if (g->hosts[out].sw != l)
				load_add(w, b->rows[(size_t)out * b->nsw + l], -1);
			if (g->hosts[in].sw != l)
				load_add(w, b->rows[(size_t)in * b->nsw + l], 1);
		}
		b->work += 2;
		if (w->top <= b->slim[k])
			continue;
		for (uint8_t p = 1; p <= sw->nports; p++) {
			if (w->cnt[p] > b->slim[k])
				leaf_up_fix(b, l, k, p, w, st);
			st->leaf_over += w->cnt[p] > b->slim[k];
		}
	}
}

/* 1 if e is among es[0..i). */
static int seen(const uint32_t *es, uint32_t i, uint32_t e)
{
	while (i--)
		if (es[i] == e)
			return 1;
	return 0;
}

/* Host i of leaf l takes link e into l now (RG_NONE: no flow). */
static void set_link(struct loads *w, uint32_t *es, uint32_t i, uint32_t e)
{
	if (es[i] != RG_NONE)
		load_add(w, es[i], -1);
	es[i] = e;
	if (e != RG_NONE)
		load_add(w, e, 1);
}

/* Host i of leaf l's link into l from its source under shift k. */
static uint32_t link_of(const struct bal *b, uint32_t l, const uint32_t *ll, uint32_t nl,
			uint32_t i, uint32_t k)
{
	const struct rg_sw *sw = &b->g->sw[l];
	uint32_t src = b->g->hosts[(sw->hfirst + i + b->n - k) % b->n].sw;

	return src == l ? RG_NONE : ll[i * nl + b->lidx[src]];
}

/* From shift k - 1 to k every host of l gets the source one host lower:
 * only hosts whose old source was the first host of its leaf change
 * source leaf, and with it maybe their link. */
static void slide(struct bal *b, uint32_t l, const uint32_t *ll, uint32_t nl, uint32_t k,
		  uint32_t *es, struct loads *w)
{
	const struct rgraph *g = b->g;
	uint32_t nh = g->sw[l].nhosts;
	uint64_t j0 = (g->sw[l].hfirst + b->n - k) % b->n; /* host 0's source */

	for (uint64_t x = j0 + 1; x <= j0 + nh;) {
		uint32_t h = (uint32_t)(x % b->n), leaf = g->hosts[h].sw;
		uint64_t start = x - (h - g->sw[leaf].hfirst);
		if (start == x) {
			uint32_t i = (uint32_t)(x - 1 - j0);
			set_link(w, es, i, link_of(b, l, ll, nl, i, k));
		}
		x = start + (g->sw[leaf].nhosts ? g->sw[leaf].nhosts : 1);
		b->work++;
	}
}

/* Moves flows off links into leaf l above shift k's limit; the moves
 * update ll and es. */
static void down_fix(struct bal *b, uint32_t l, uint32_t *ll, uint32_t nl, uint32_t k,
		     uint32_t *es, struct loads *w, struct balance_stats *st)
{
	const struct rgraph *g = b->g;
	const struct rg_sw *sw = &g->sw[l];
	uint32_t nh = sw->nhosts;

	for (uint32_t i = 0; i < nh; i++) {
		uint32_t e = es[i];
		if (e == RG_NONE || w->cnt[e] <= b->slim[k] || seen(es, i, e))
			continue;
		for (uint32_t x = i; x < nh && w->cnt[e] > b->slim[k] && b->work <= b->work_lim; x++) {
			uint32_t d = sw->hfirst + x;
			uint32_t src = g->hosts[(d + b->n - k) % b->n].sw;
			if (es[x] != e || !bal_leaf_move(b, src, d, e))
				continue;
			ll[x * nl + b->lidx[src]] = last_link(b, src, d);
			set_link(w, es, x, ll[x * nl + b->lidx[src]]);
			st->leaf_moves++;
		}
		st->leaf_over += w->cnt[e] > b->slim[k];
	}
}

/* Links into leaf l over the limit under some shift: a source leaf's
 * entry moves its flow off. es: a link per host of l; ll: per host of l
 * and source leaf, the link a flow takes into l (a route depends on its
 * source leaf, not its shift). w counts per link id, in b->ecnt. */
static void leaf_downs(struct bal *b, uint32_t l, uint32_t *es, uint32_t *ll,
		       const uint32_t *leaves, uint32_t nl, struct balance_stats *st)
{
	const struct rgraph *g = b->g;
	const struct rg_sw *sw = &g->sw[l];
	uint32_t nh = sw->nhosts;
	struct loads w = { .cnt = b->ecnt, .hist = { nh + 1 }, .top = 0 };

	for (uint32_t i = 0; i < nh; i++)
		for (uint32_t x = 0; x < nl; x++)
			ll[i * nl + x] = leaves[x] == l ? RG_NONE :
				last_link(b, leaves[x], sw->hfirst + i);
	b->work += (uint64_t)nh * nl * 5;
	for (uint32_t i = 0; i < nh; i++) {
		es[i] = RG_NONE;
		set_link(&w, es, i, link_of(b, l, ll, nl, i, 1));
	}
	for (uint32_t k = 1; k < b->n; k++) {
		if (k > 1)
			slide(b, l, ll, nl, k, es, &w);
		if (w.top > b->slim[k])
			down_fix(b, l, ll, nl, k, es, &w, st);
	}
	for (uint32_t i = 0; i < nh; i++)
		set_link(&w, es, i, RG_NONE); /* ecnt is kept zero */
}

/* Every leaf's uplinks, then every link into a leaf. */
void bal_leaf_phase(struct bal *b, struct balance_stats *st)
{
	uint32_t *cnt = rg_xmalloc(256, sizeof(*cnt)), *es = rg_xmalloc(BAL_WINDOW, sizeof(*es));
	uint32_t *leaves = rg_xmalloc(b->nsw, sizeof(*leaves)), *ll, nl = 0;
	struct loads w = { .cnt = cnt };

	for (uint32_t l = 0; l < b->nsw; l++) {
		b->lidx[l] = RG_NONE;
		if (b->g->sw[l].nhosts) {
			b->lidx[l] = nl;
			leaves[nl++] = l;
		}
	}
	ll = rg_xmalloc((size_t)nl * BAL_WINDOW, sizeof(*ll));
	for (uint32_t x = 0; x < nl; x++)
		if (!b->rank[leaves[x]] && b->g->sw[leaves[x]].nhosts <= BAL_WINDOW)
			leaf_ups(b, leaves[x], &w, st);
	for (uint32_t x = 0; x < nl; x++)
		if (!b->rank[leaves[x]] && b->g->sw[leaves[x]].nhosts <= BAL_WINDOW)
			leaf_downs(b, leaves[x], es, ll, leaves, nl, st);
	free(ll);
	free(leaves);
	free(es);
	free(cnt);
}
