/*
 * DOC: the pair bound of a shift permutation (see pairbound.h).
 *
 * One BFS per switch with hosts gives every switch's distance to it; a
 * shift's sources come in runs (hosts are sorted by switch, so the hosts
 * of A send to consecutive hosts), and each run is one (A, B) pair. The
 * runs that leave one switch, or enter one, are looked at together: two
 * runs out of A whose shortest paths share A's only way up load it with
 * both.
 */
#include <stdlib.h>
#include <string.h>

#include "routing/pairbound.h"

#define PB_SETS 6 /* runs at one switch up to which every set of them is tried */

struct pb_run {
	uint32_t a, b, n;   /* n hosts on a send to hosts on b */
};

struct gset {
	uint64_t w[4];      /* neighbour groups of one switch (< 256) */
};

/* short_groups() of two switches with hosts, kept once computed (every
 * shift asks for the same pairs again): a pair keeps the index of its set
 * among the distinct sets met, which are few (on a fat tree, a leaf's
 * ways towards the other leaves differ only where links are missing). */
#define PB_NSETS 65535u     /* distinct sets kept at most (uint16_t index) */
#define PB_HASH (1u << 17)  /* open addressing slots, over twice PB_NSETS */

struct pb_sets {
	struct gset set[PB_NSETS + 1]; /* [1..n] */
	uint32_t n;
	uint16_t slot[PB_HASH];        /* 0 empty, else an index into set */
};

static uint32_t gset_hash(const struct gset *s)
{
	uint64_t h = s->w[0] * 0x9e3779b97f4a7c15ull;

	for (int i = 1; i < 4; i++)
		h = (h ^ s->w[i]) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 40) & (PB_HASH - 1);
}

/* s's index among the sets kept, adding it; 0 if the table is full. */
static uint16_t intern(struct pb_sets *ps, const struct gset *s)
{
	for (uint32_t i = gset_hash(s);; i = (i + 1) & (PB_HASH - 1)) {
		uint16_t x = ps->slot[i];
		if (!x) {
			if (ps->n == PB_NSETS)
				return 0;
			ps->set[++ps->n] = *s;
			ps->slot[i] = (uint16_t)ps->n;
			return (uint16_t)ps->n;
		}
		if (!memcmp(&ps->set[x], s, sizeof(*s)))
			return x;
	}
}

/* dist64()'s scratch, per switch. */
struct bfs64 {
	uint64_t *seen, *front, *acc;
	uint32_t *list, *touched;
};

/* One shift's runs and the memo of ways. */
static void scratch(struct pair_bound *pb)
{
	uint32_t rows = pb->nrows;

	pb->runs = rg_xmalloc(pb->g->nhosts + 1, sizeof(*pb->runs));
	pb->memo = NULL;
	pb->sets = NULL;
	if ((uint64_t)rows * rows <= PB_MEMO) {
		pb->memo = rg_xcalloc((size_t)rows * rows + 1, sizeof(*pb->memo));
		pb->sets = rg_xcalloc(1, sizeof(*pb->sets));
	}
}

/* Hops from the 64 (or m) switches src[0 .. m) to every switch into their
 * rows of dist, a BFS for all of them at once: a bit per source in every
 * switch's frontier, pushed to the neighbours level by level. */
static void dist64(struct pair_bound *pb, const uint32_t *src, uint32_t m, struct bfs64 *b)
{
	const struct rgraph *g = pb->g;
	uint32_t n = g->nsw, nf = 0;

	for (uint32_t k = 0; k < m; k++)
		for (uint32_t t = 0; t < n; t++)
			pb->dist[(size_t)pb->row[src[k]] * n + t] = UINT16_MAX;
	memset(b->seen, 0, n * sizeof(*b->seen));
	for (uint32_t k = 0; k < m; k++) {
		if (!b->front[src[k]])
			b->list[nf++] = src[k];
		b->front[src[k]] |= 1ull << k;
		b->seen[src[k]] |= 1ull << k;
		pb->dist[(size_t)pb->row[src[k]] * n + src[k]] = 0;
	}
	for (uint32_t level = 1; nf; level++) {
		uint32_t nt = 0, nn = 0;
		for (uint32_t i = 0; i < nf; i++) {
			uint32_t s = b->list[i];
			for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
				uint32_t t = rg_group(g, s, k)->peer;
				if (!b->acc[t])
					b->touched[nt++] = t;
				b->acc[t] |= b->front[s];
			}
		}
		for (uint32_t i = 0; i < nf; i++)
			b->front[b->list[i]] = 0;
		uint16_t d = level > UINT16_MAX - 1 ? UINT16_MAX : (uint16_t)level;
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t t = b->touched[i];
			uint64_t nx = b->acc[t] & ~b->seen[t];
			b->acc[t] = 0;
			if (!nx)
				continue;
			b->seen[t] |= nx;
			b->front[t] = nx;
			b->list[nn++] = t;
			for (; nx; nx &= nx - 1)
				pb->dist[(size_t)pb->row[src[__builtin_ctzll(nx)]] * n + t] = d;
		}
		nf = nn;
	}
}

void pair_bound_init(struct pair_bound *pb, const struct rgraph *g)
{
	uint32_t n = g->nsw ? g->nsw : 1, rows = 0, m = 0;
	uint32_t *src = rg_xmalloc(n, sizeof(*src));
	struct bfs64 b = { rg_xcalloc(n, sizeof(uint64_t)), rg_xcalloc(n, sizeof(uint64_t)),
			   rg_xcalloc(n, sizeof(uint64_t)), rg_xmalloc(n, sizeof(uint32_t)),
			   rg_xmalloc(n, sizeof(uint32_t)) };

	pb->g = g;
	pb->row = rg_xmalloc(n, sizeof(*pb->row));
	for (uint32_t s = 0; s < g->nsw; s++)
		pb->row[s] = g->sw[s].nhosts ? rows++ : RG_NONE;
	pb->dist = rg_xmalloc((size_t)(rows ? rows : 1) * n, sizeof(*pb->dist));
	pb->nrows = rows;
	pb->single = rg_xmalloc(n, sizeof(*pb->single));
	for (uint32_t s = 0; s < g->nsw; s++) {
		pb->single[s] = 1;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			pb->single[s] &= rg_group(g, s, k)->n == 1;
	}
	scratch(pb);
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (pb->row[s] != RG_NONE)
			src[m++] = s;
		if (m == 64 || (m && s + 1 == g->nsw)) {
			dist64(pb, src, m, &b);
			m = 0;
		}
	}
	free(src);
	free(b.seen);
	free(b.front);
	free(b.acc);
	free(b.list);
	free(b.touched);
}

void pair_bound_free(struct pair_bound *pb)
{
	free(pb->row);
	free(pb->dist);
	free(pb->single);
	free(pb->runs);
	free(pb->memo);
	free(pb->sets);
}

/* Groups of x whose peer is one hop closer to y (y has hosts): the ways
 * out of x on a shortest path to y, or into x on one from y. */
static void short_groups(const struct pair_bound *pb, uint32_t x, uint32_t y, struct gset *out)
{
	const struct rgraph *g = pb->g;
	const uint16_t *d = pb->dist + (size_t)pb->row[y] * g->nsw;
	uint16_t *m = NULL;

	if (pb->memo && pb->row[x] != RG_NONE) {
		m = &pb->memo[(size_t)pb->row[x] * pb->nrows + pb->row[y]];
		if (*m) {
			*out = pb->sets->set[*m];
			return;
		}
	}
	memset(out, 0, sizeof(*out));
	for (uint32_t k = 0; d[x] != UINT16_MAX && d[x] && k < g->sw[x].ngroups && k < 256; k++)
		if (d[rg_group(g, x, k)->peer] + 1 == d[x])
			out->w[k >> 6] |= 1ull << (k & 63);
	if (m)
		*m = intern(pb->sets, out);
}

static uint32_t ports_of(const struct pair_bound *pb, uint32_t x, const struct gset *s)
{
	const struct rgraph *g = pb->g;
	uint32_t n = 0;

	if (pb->single[x])
		return rg_pop64(s->w[0]) + rg_pop64(s->w[1]) + rg_pop64(s->w[2]) +
		       rg_pop64(s->w[3]);
	for (int w = 0; w < 4; w++)
		for (uint64_t bits = s->w[w]; bits; bits &= bits - 1) {
			uint32_t k = (uint32_t)w * 64 + (uint32_t)__builtin_ctzll(bits);
			n += rg_group(g, x, k)->n;
		}
	return n;
}

/*
 * Runs r[0..m) share switch x (as source, src, or as destination): every
 * set of them squeezes its flows through the union of their shortest-path
 * ways at x. The largest ceil(flows / ports) over the sets (singles and
 * the whole lot when there are too many to try every set).
 */
static uint32_t at_switch(const struct pair_bound *pb, uint32_t x, const struct pb_run *r,
			  uint32_t m, int src)
{
	struct gset set[PB_SETS], u;
	uint32_t best = 0, all = m <= PB_SETS ? (1u << m) - 1 : 0;

	for (uint32_t i = 0; i < m && i < PB_SETS; i++)
		short_groups(pb, x, src ? r[i].b : r[i].a, &set[i]);
	for (uint32_t mask = 1; mask <= all || (!all && mask <= 1); mask++) {
		uint32_t flows = 0, ports;
		memset(&u, 0, sizeof(u));
		for (uint32_t i = 0; i < m && i < PB_SETS; i++)
			if (!all || mask >> i & 1) {
				flows += r[i].n;
				for (int w = 0; w < 4; w++)
					u.w[w] |= set[i].w[w];
			}
		ports = ports_of(pb, x, &u);
		if (ports && (flows + ports - 1) / ports > best)
			best = (flows + ports - 1) / ports;
	}
	for (uint32_t i = PB_SETS; !all && i < m; i++) {
		struct gset one;
		short_groups(pb, x, src ? r[i].b : r[i].a, &one);
		uint32_t ports = ports_of(pb, x, &one);
		if (ports && (r[i].n + ports - 1) / ports > best)
			best = (r[i].n + ports - 1) / ports;
	}
	return best;
}

/* Runs of shift sh: (source switch, destination switch, flows), in host
 * order, local traffic left out. A switch's hosts are consecutive, so a
 * run ends where its source or its destination switch ends. */
static uint32_t runs_of(const struct pair_bound *pb, uint32_t sh, struct pb_run *r)
{
	const struct rgraph *g = pb->g;
	uint32_t n = g->nhosts, m = 0;

	for (uint32_t i = 0; i < n;) {
		uint32_t a = g->hosts[i].sw, d = (i + sh) % n, b = g->hosts[d].sw;
		uint32_t aend = g->sw[a].hfirst + g->sw[a].nhosts;
		uint32_t bend = g->sw[b].hfirst + g->sw[b].nhosts;
		uint32_t len = aend - i < bend - d ? aend - i : bend - d;
		if (a != b) {
			if (m && r[m - 1].a == a && r[m - 1].b == b)
				r[m - 1].n += len;
			else
				r[m++] = (struct pb_run){ a, b, len };
		}
		i += len;
	}
	return m;
}

uint32_t pair_bound_shift(const struct pair_bound *pb, uint32_t sh)
{
	uint32_t m = runs_of(pb, sh, pb->runs), best = 0;
	const struct pb_run *r = pb->runs;

	/* hosts are sorted by switch, so the runs of one source are adjacent,
	 * and so are the runs into one destination (but for the wrap) */
	for (uint32_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && r[j].a == r[i].a; j++)
			;
		uint32_t x = at_switch(pb, r[i].a, r + i, j - i, 1);
		best = x > best ? x : best;
	}
	for (uint32_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && r[j].b == r[i].b; j++)
			;
		uint32_t x = at_switch(pb, r[i].b, r + i, j - i, 0);
		best = x > best ? x : best;
	}
	return best;
}
