/*
 * DOC: the busiest link of shift permutations (see vshift.h).
 *
 * A path reads one table entry per hop, at a switch and LID far from the
 * last: on a large fabric nearly every read misses the cache, and one path
 * after the other leaves the memory idle while each miss is served. So a
 * group of neighbouring shifts is walked together, source by source: the
 * tables' entries near a destination are read again by the next shifts
 * while they are still in the cache, and many paths advance hop by hop
 * side by side, their reads in flight together. Each shift keeps its own
 * counts, added in its own host order, so every result is what walking
 * its paths one after the other gives. Where shift k + 1 follows shift k in
 * the group, host i + 1 sends to the destination of host i under k; on the
 * same leaf both take the same path, which is walked once (the verifier
 * samples shifts in runs of neighbours for this).
 */
#include <stdlib.h>
#include <string.h>

#include "routing/routing.h"
#include "routing/vshift.h"

#define SG 8            /* shifts walked together */
#define SB 32           /* sources per batch, of each shift */
#define SW (SG * SB)    /* paths in flight */
#define SHOPS 8         /* hops a path keeps in the batch; longer ones go on alone */
_Static_assert(SW <= 65536, "same[] holds a path index");

struct sgroup {
	const struct rgraph *g;
	uint8_t *const *lft;
	uint32_t top;
	uint32_t *pbase, *peer, *links;
	uint8_t *np;
	uint32_t *load;     /* [link id * SG + shift in group] */
	uint32_t *flow;     /* [shift in group * nsw + switch]: flows leaving it */
	uint32_t maxl[SG], maxid[SG];
	uint32_t cur[SW], lid[SW], id[SW][SHOPS], alive[SW];
	uint16_t same[SW];  /* the path walked for this one (itself, or the same path's) */
	uint8_t len[SW], done[SW];
	uint8_t used[SW];   /* 1: a path; 2: one whose LID is past the tables; 0: none */
};

static void sg_init(struct sgroup *x, const struct rgraph *g, uint8_t *const *lft, uint32_t top)
{
	uint32_t n = g->nsw ? g->nsw : 1;

	memset(x, 0, sizeof(*x));
	x->g = g;
	x->lft = lft;
	x->top = top;
	x->pbase = rg_xmalloc(n, sizeof(*x->pbase));
	x->np = rg_xmalloc(n, 1);
	x->links = rg_xcalloc(n, sizeof(*x->links));
	x->peer = rg_xmalloc(g->nlinks ? g->nlinks : 1, sizeof(*x->peer));
	x->load = rg_xcalloc((size_t)(g->nlinks ? g->nlinks : 1) * SG, sizeof(*x->load));
	x->flow = rg_xcalloc((size_t)n * SG, sizeof(*x->flow));
	for (uint32_t s = 0; s < g->nsw; s++) {
		x->pbase[s] = g->sw[s].portbase;
		x->np[s] = g->sw[s].nports;
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++)
			x->links[s] += rg_group(g, s, k)->n;
		for (uint32_t p = 0; p <= g->sw[s].nports; p++)
			x->peer[g->sw[s].portbase + p] = rg_port_peer_sw(g, s, (uint8_t)p);
	}
}

static void sg_free(struct sgroup *x)
{
	free(x->pbase);
	free(x->np);
	free(x->links);
	free(x->peer);
	free(x->load);
	free(x->flow);
}

/* The switch after s on its way to lid (at most top: batch() sees to
 * it), *id the link taken; RG_NONE where the way ends (at a CA, or
 * nowhere). Ports 1 .. np lead on: p - 1 wraps port 0 past them. */
static inline uint32_t hop(const struct sgroup *x, uint32_t s, uint32_t lid, uint32_t *id)
{
	uint8_t p = x->lft[s][lid];

	if (p == LFT_NO_PORT || (uint8_t)(p - 1) >= x->np[s])
		return RG_NONE;
	*id = x->pbase[s] + p;
	return x->peer[*id];
}

/* Counts one link of shift k's path. */
static void add(struct sgroup *x, uint32_t k, uint32_t id)
{
	uint32_t *c = &x->load[(size_t)id * SG + k];

	if (++*c > x->maxl[k]) {
		x->maxl[k] = *c;
		x->maxid[k] = id;
	}
}

/* The used paths, up to SHOPS hops, hop by hop across them. */
static void walk(struct sgroup *x)
{
	uint32_t na = 0;

	for (uint32_t w = 0; w < SW; w++) {
		x->len[w] = 0;
		x->done[w] = x->used[w] == 2; /* past the tables: no hop */
		if (x->used[w] == 1 && x->same[w] == w)
			x->alive[na++] = w;
	}
	for (uint32_t h = 0; h < SHOPS && na; h++) {
		uint32_t keep = 0;
		for (uint32_t i = 0; i < na; i++) {
			uint32_t w = x->alive[i], id = 0, t = hop(x, x->cur[w], x->lid[w], &id);
			if (t == RG_NONE) {
				x->done[w] = 1;
				continue;
			}
			x->id[w][x->len[w]++] = id;
			x->cur[w] = t;
			x->alive[keep++] = w;
			__builtin_prefetch(x->lft[t] + x->lid[w]);
		}
		na = keep;
	}
}

/* Path w's links counted for shift k, and the rest of a long path. */
static void count(struct sgroup *x, uint32_t k, uint32_t w)
{
	w = x->same[w];
	for (uint32_t h = 0; h < x->len[w]; h++)
		add(x, k, x->id[w][h]);
	for (uint32_t i = x->len[w], s = x->cur[w], id = 0; !x->done[w] && i < x->g->nsw; i++) {
		s = hop(x, s, x->lid[w], &id);
		if (s == RG_NONE)
			break;
		add(x, k, id);
	}
}

/* Sources t0 .. t0 + nb of the m shifts of the group. */
static void batch(struct sgroup *x, const uint32_t *sh, uint32_t m, uint32_t t0, uint32_t nb)
{
	const struct rgraph *g = x->g;
	uint32_t N = g->nhosts;

	memset(x->used, 0, sizeof(x->used));
	for (uint32_t k = 0; k < m; k++)
		for (uint32_t b = 0; b < nb; b++) {
			const struct rg_host *src = &g->hosts[t0 + b];
			const struct rg_host *dst = &g->hosts[(uint32_t)(((uint64_t)t0 + b + sh[k]) % N)];
			uint32_t w = k * SB + b;
			x->same[w] = (uint16_t)w;
			if (src->sw == dst->sw)
				continue;
			/* host t0 + b + 1 of the same leaf, one shift lower: same path */
			if (k && sh[k] == sh[k - 1] + 1 && b + 1 < nb && src[1].sw == src->sw)
				x->same[w] = x->same[w - SB + 1];
			x->used[w] = dst->lid <= x->top ? 1 : 2;
			x->cur[w] = src->sw;
			x->lid[w] = dst->lid;
			x->flow[(size_t)k * g->nsw + src->sw]++;
		}
	walk(x);
	for (uint32_t k = 0; k < m; k++)
		for (uint32_t b = 0; b < nb; b++)
			if (x->used[k * SB + b])
				count(x, k, k * SB + b);
}

/* Each shift's result; the counts back to zero for the next group. */
static void results(struct sgroup *x, uint32_t m, struct shift_load *out)
{
	const struct rgraph *g = x->g;

	for (uint32_t k = 0; k < m; k++) {
		uint32_t *f = x->flow + (size_t)k * g->nsw, b = 0;
		for (uint32_t s = 0; s < g->nsw; s++) {
			if (f[s] && x->links[s]) {
				uint32_t need = (f[s] + x->links[s] - 1) / x->links[s];
				b = need > b ? need : b;
			}
			f[s] = 0;
		}
		out[k] = (struct shift_load){ x->maxl[k], x->maxl[k] ? x->maxid[k] : RG_NONE, b };
		x->maxl[k] = x->maxid[k] = 0;
	}
	memset(x->load, 0, (size_t)g->nlinks * SG * sizeof(*x->load));
}

void shift_loads(const struct rgraph *g, uint8_t *const *lft, uint32_t top, const uint32_t *sh,
		 uint32_t n, struct shift_load *out)
{
	struct sgroup *x = rg_xmalloc(1, sizeof(*x));

	sg_init(x, g, lft, top);
	for (uint32_t g0 = 0; g0 < n; g0 += SG) {
		uint32_t m = n - g0 < SG ? n - g0 : SG;
		for (uint32_t t0 = 0; t0 < g->nhosts; t0 += SB)
			batch(x, sh + g0, m, t0, g->nhosts - t0 < SB ? g->nhosts - t0 : SB);
		results(x, m, out + g0);
	}
	sg_free(x);
	free(x);
}
