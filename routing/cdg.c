/*
 * DOC: channel dependency graphs (see cdg.h).
 *
 * Whether a new edge c -> v closes a cycle is asked many times while the
 * graph grows, on fabrics of tens of thousands of channels. A topological
 * order of the channels answers most questions at once: an edge that goes
 * forward in it cannot close a cycle. For one that goes backward only the
 * channels between v and c in the order are searched (from v, for c), and
 * if the edge is added, those found from v move behind those that lead to
 * c (D. J. Pearce, P. H. J. Kelly, "A dynamic topological sort algorithm
 * for directed acyclic graphs", JEA 11, 2006).
 */
#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"

static uint8_t *edge_byte(uint8_t *bits, uint32_t c, uint8_t q)
{
	return bits + 32u * c + (q >> 3);
}

static int has_bit(const uint8_t *bits, uint32_t c, uint8_t q)
{
	return (bits[32u * c + (q >> 3)] >> (q & 7)) & 1;
}

/* Bits 64w .. 64w + 63 of an edge set (byte order independent). */
static uint64_t word(const uint8_t *b, uint32_t w)
{
	uint64_t x = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&x, b + 8 * w, 8);
#else
	for (uint32_t i = 8; i-- > 0;)
		x = x << 8 | b[8 * w + i];
#endif
	return x;
}

/* The next port set in channel c's edges from q on; 256 if none. */
static uint32_t next_q(const uint8_t *bits, uint32_t c, uint32_t q)
{
	const uint8_t *b = bits + 32u * c;

	for (uint32_t w = q / 64; w < 4; w++) {
		uint64_t x = word(b, w);
		if (w == q / 64)
			x &= ~0ull << (q % 64);
		if (x)
			return 64 * w + (uint32_t)__builtin_ctzll(x);
	}
	return 256;
}

void cdg_init(struct cdg *d, const struct rgraph *g)
{
	uint32_t n = g->nlinks ? g->nlinks : 1;

	memset(d, 0, sizeof(*d));
	d->g = g;
	d->bits = rg_xcalloc(n, 32);
	d->forced = rg_xcalloc(n, 32);
	d->bad = rg_xcalloc(n, 32);
	d->chsw = rg_xcalloc(n, sizeof(*d->chsw));
	d->peer = rg_xmalloc(n, sizeof(*d->peer));
	d->tbase = rg_xcalloc(n, sizeof(*d->tbase));
	d->seen = rg_xcalloc(n / 64 + 1, sizeof(*d->seen));
	d->fl = rg_xmalloc(n, sizeof(*d->fl));
	d->bl = rg_xmalloc(n, sizeof(*d->bl));
	d->stack = rg_xmalloc(n, sizeof(*d->stack));
	d->pool = rg_xmalloc(n, sizeof(*d->pool));
	d->keys = rg_xmalloc(n, sizeof(*d->keys));
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t p = 0; p <= g->sw[s].nports; p++) {
			d->chsw[g->sw[s].portbase + p] = s;
			uint32_t t = rg_port_peer_sw(g, s, (uint8_t)p);
			d->peer[g->sw[s].portbase + p] = t;
			d->tbase[g->sw[s].portbase + p] = t == RG_NONE ? 0 : g->sw[t].portbase;
		}
}

void cdg_free(struct cdg *d)
{
	free(d->bits);
	free(d->forced);
	free(d->bad);
	free(d->ord);
	free(d->chsw);
	free(d->peer);
	free(d->tbase);
	free(d->seen);
	free(d->fl);
	free(d->bl);
	free(d->stack);
	free(d->pool);
	free(d->keys);
}

void cdg_set(struct cdg *d, uint32_t c, uint8_t q)
{
	d->kept = 0;
	*edge_byte(d->bits, c, q) |= (uint8_t)(1u << (q & 7));
}

int cdg_has(const struct cdg *d, uint32_t c, uint8_t q)
{
	return has_bit(d->bits, c, q) || has_bit(d->forced, c, q);
}

static uint32_t target(const struct cdg *d, uint32_t c, uint32_t q)
{
	return d->tbase[c] + q;
}

/* Kahn's algorithm; 0 (and no order) if the edges hold a cycle. */
static int order(struct cdg *d)
{
	uint32_t n = d->g->nlinks, head = 0, tail = 0, k = 0, nch = 0;
	uint32_t *indeg = rg_xcalloc(n ? n : 1, sizeof(*indeg));

	d->ord = rg_xmalloc(n ? n : 1, sizeof(*d->ord));
	for (uint32_t c = 0; c < n; c++)
		for (uint32_t q = next_q(d->bits, c, 0); d->peer[c] != RG_NONE && q < 256;
		     q = next_q(d->bits, c, q + 1))
			indeg[target(d, c, q)]++;
	for (uint32_t c = 0; c < n; c++) {
		nch += d->peer[c] != RG_NONE;
		if (d->peer[c] != RG_NONE && !indeg[c])
			d->stack[tail++] = c;
	}
	while (head < tail) {
		uint32_t c = d->stack[head++];
		d->ord[c] = k++;
		for (uint32_t q = next_q(d->bits, c, 0); q < 256; q = next_q(d->bits, c, q + 1))
			if (!--indeg[target(d, c, q)])
				d->stack[tail++] = target(d, c, q);
	}
	for (uint32_t c = 0; c < n; c++)
		if (d->peer[c] == RG_NONE)
			d->ord[c] = k++;
	free(indeg);
	if (head < nch) {
		free(d->ord);
		d->ord = NULL;
		return 0;
	}
	return 1;
}

/* The searches' visited channels: a bit each (a dense set that stays in
 * cache), cleared by every search before it returns. */
static int seen(const struct cdg *d, uint32_t c)
{
	return (int)(d->seen[c / 64] >> (c % 64) & 1);
}

static void mark(struct cdg *d, uint32_t c)
{
	d->seen[c / 64] |= 1ull << (c % 64);
}

static void unmark(struct cdg *d, const uint32_t *list, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		d->seen[list[i] / 64] = 0;
}

/* Channels reached from v through positions below ub, into fl; 1 if u is. */
static int forward(struct cdg *d, uint32_t v, uint32_t u, uint32_t ub, uint32_t *nf)
{
	uint32_t n = 0, sp = 0;

	mark(d, v);
	d->stack[sp++] = v;
	while (sp) {
		uint32_t c = d->stack[--sp];
		d->fl[n++] = c;
		d->work++;
		for (uint32_t q = next_q(d->bits, c, 0); q < 256; q = next_q(d->bits, c, q + 1)) {
			uint32_t t = target(d, c, q);
			if (t == u) {
				unmark(d, d->fl, n);
				unmark(d, d->stack, sp);
				return 1;
			}
			if (!seen(d, t) && d->ord[t] < ub) {
				mark(d, t);
				d->stack[sp++] = t;
			}
		}
	}
	unmark(d, d->fl, n);
	*nf = n;
	return 0;
}

/* Channels that lead to u through positions above lb, into bl. */
static uint32_t backward(struct cdg *d, uint32_t u, uint32_t lb)
{
	const struct rgraph *g = d->g;
	uint32_t n = 0, sp = 0;

	mark(d, u);
	d->stack[sp++] = u;
	while (sp) {
		uint32_t c = d->stack[--sp], s = d->chsw[c];
		uint8_t p = (uint8_t)(c - g->sw[s].portbase);
		d->bl[n++] = c;
		d->work++;
		for (uint32_t pp = 1; pp <= g->sw[s].nports; pp++) {
			uint32_t w = d->peer[g->sw[s].portbase + pp];
			if (w == RG_NONE)
				continue;
			uint32_t ic = g->sw[w].portbase + g->t->nodes[g->sw[s].node].ports[pp].peer_port;
			if (has_bit(d->bits, ic, p) && !seen(d, ic) && d->ord[ic] > lb) {
				mark(d, ic);
				d->stack[sp++] = ic;
			}
		}
	}
	unmark(d, d->bl, n);
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts list by position, in place. */
static void by_position(struct cdg *d, uint32_t *list, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		d->keys[i] = (uint64_t)d->ord[list[i]] << 32 | list[i];
	qsort(d->keys, n, sizeof(*d->keys), cmp_u64);
	for (uint32_t i = 0; i < n; i++)
		list[i] = (uint32_t)d->keys[i];
}

/* Those leading to c first, then those reached from v, in the same slots. */
static void reorder(struct cdg *d, uint32_t nf, uint32_t nb)
{
	by_position(d, d->bl, nb);
	by_position(d, d->fl, nf);
	for (uint32_t i = 0; i < nb; i++)
		d->pool[i] = d->ord[d->bl[i]];
	for (uint32_t i = 0; i < nf; i++)
		d->pool[nb + i] = d->ord[d->fl[i]];
	qsort(d->pool, nb + nf, sizeof(*d->pool), cmp_u32);
	for (uint32_t i = 0; i < nb; i++)
		d->ord[d->bl[i]] = d->pool[i];
	for (uint32_t i = 0; i < nf; i++)
		d->ord[d->fl[i]] = d->pool[nb + i];
}

/* The order, made on first use; 0 if there is none. */
static int ordered(struct cdg *d)
{
	if (!d->tried) {
		d->tried = 1;
		order(d);
	}
	return d->ord != NULL;
}

int cdg_closes(struct cdg *d, uint32_t c, uint8_t q)
{
	uint32_t nf;

	d->kept = 0;
	if (cdg_has(d, c, q))
		return 0;
	if (has_bit(d->bad, c, q))
		return 1;
	if (!ordered(d))
		return 0;
	uint32_t v = target(d, c, q);
	if (d->ord[c] < d->ord[v])
		return 0;
	if (d->work >= d->budget)
		return 0;
	if (!forward(d, v, c, d->ord[c], &nf)) {
		d->kept = 1;
		d->kc = c;
		d->kq = q;
		d->knf = nf;
		return 0;
	}
	*edge_byte(d->bad, c, q) |= (uint8_t)(1u << (q & 7));
	return 1;
}

/*
 * forward() for edge (c, q) of cdg_add(): the search cdg_closes() just
 * made for it, if nothing changed since (a caller asks, then adds), else
 * a new one. A kept search counts its channels again, as repeating it
 * would: the budget runs out where it always did.
 */
static int forward_add(struct cdg *d, uint32_t c, uint8_t q, uint32_t *nf)
{
	if (d->kept && d->kc == c && d->kq == q) {
		d->kept = 0;
		d->work += d->knf;
		*nf = d->knf;
		return 0;
	}
	d->kept = 0;
	return forward(d, target(d, c, q), c, d->ord[c], nf);
}

void cdg_add(struct cdg *d, uint32_t c, uint8_t q, int forced)
{
	uint32_t nf = 0;

	if (cdg_has(d, c, q))
		return;
	int back = ordered(d) && d->ord[c] > d->ord[target(d, c, q)];
	uint32_t v = target(d, c, q);
	if (back && d->work >= d->budget) {
		d->unchecked++;
		forced = 1;
	}
	if (forced || (back && forward_add(d, c, q, &nf))) {
		d->kept = 0;
		*edge_byte(d->forced, c, q) |= (uint8_t)(1u << (q & 7));
		return;
	}
	if (back) {
		uint32_t nb = backward(d, c, d->ord[v]);
		reorder(d, nf, nb);
	}
	cdg_set(d, c, q);
}

struct frame {
	uint32_t sw;
	uint8_t port;
	uint16_t q;
};

/* Iterative DFS over channels (s, p); colour 1 = on stack, 2 = done. */
int cdg_cyclic(const struct rgraph *g, const uint8_t *bits)
{
	uint8_t *col = rg_xcalloc(g->nlinks, 1);
	struct frame *stk = rg_xmalloc(g->nlinks + 1u, sizeof(*stk));
	int cyc = 0;

	for (uint32_t s = 0; s < g->nsw && !cyc; s++)
		for (uint32_t p = 1; p <= g->sw[s].nports && !cyc; p++) {
			uint32_t id = g->sw[s].portbase + p;
			if (col[id] || rg_port_peer_sw(g, s, (uint8_t)p) == RG_NONE)
				continue;
			uint32_t n = 0;
			stk[n++] = (struct frame){ s, (uint8_t)p, 0 };
			col[id] = 1;
			while (n && !cyc) {
				struct frame *f = &stk[n - 1];
				uint32_t q = next_q(bits, g->sw[f->sw].portbase + f->port, f->q);
				if (q == 256) {
					col[g->sw[f->sw].portbase + f->port] = 2;
					n--;
					continue;
				}
				f->q = (uint16_t)(q + 1);
				uint32_t t = rg_port_peer_sw(g, f->sw, f->port);
				uint32_t tid = g->sw[t].portbase + q;
				if (col[tid] == 1)
					cyc = 1;
				else if (!col[tid]) {
					col[tid] = 1;
					stk[n++] = (struct frame){ t, (uint8_t)q, 0 };
				}
			}
		}
	free(col);
	free(stk);
	return cyc;
}
