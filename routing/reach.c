/*
 * DOC: every switch reaches every LID (see reach.h).
 *
 * Per destination LID every switch's path is followed once (walk.h), so a
 * pass costs O(switches x LIDs).
 *
 * Filling one LID grows the set of switches that reach it outwards, fewest
 * hops first (a heap keyed by hops): a switch without a route takes a
 * neighbour that already has one. The new entry adds at most one channel
 * dependency, (switch -> neighbour) -> (neighbour's next link); it closes a
 * cycle exactly when the CDG already leads from the second channel back to
 * the first, which cdg.c answers. A switch whose every neighbour so far
 * closes a cycle waits a little for others to join; after that it takes
 * one anyway (a route beats none) and it is counted. Before any of that,
 * one scan of the tables' rows counts the missing entries: none spares
 * the walks on fabrics the engine routed whole, far too many for the
 * searches to matter skips them (past_budget()).
 */
#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "routing/par.h"
#include "routing/reach.h"
#include "routing/routing.h"
#include "routing/walk.h"

#define WAITS 2      /* times a switch waits for a neighbour without a cycle */
#define NOWAY (UINT32_MAX - 1) /* fill.hv of a switch without a way */
/* Channels the cycle searches may visit: a sixteenth of the table's cells,
 * at least this many (some 0.05 s), so that a fabric with many holes is not
 * held up; past it the entries are taken unchecked and the verification
 * tells whether a credit loop came of it. */
#define REACH_MIN_WORK (1u << 20)


struct cand {
	uint64_t key;       /* see candidates(): smaller is better */
	uint32_t y;
	uint8_t p;
};

/* State of reach_fill(): the walker, the heap and the cycle search. */
struct fill {
	struct lwalk w;
	uint32_t cur;       /* LIDs filled so far: astamp's stamp */
	struct ways *ways;  /* the block being filled, walked ahead */
	struct reach_stats *st;
	uint64_t *heap;     /* (hops << 32) | switch */
	uint32_t nheap;
	uint32_t *tent;     /* per switch: best hops it was queued with */
	uint8_t *waits;
	uint32_t *use;      /* per link id: entries fill wrote */
	struct cdg d;       /* CA LIDs' dependencies: the routes that work, then new ones */
	uint32_t *hv;       /* per switch: its hops to the LID being filled, NOWAY
			       while it has none (a hole); in ways */
	uint32_t *nbr;      /* the peers of every switch's groups (graph.h), dense */
	uint8_t *hole;      /* per LID: some switch does not reach it */
	uint8_t *swhole;    /* per switch: misses some CA LID */
	struct cand *cands; /* a switch's ports to choose from */
	uint32_t *astamp;   /* per switch: ahead[] is for the LID walked (cur) */
	uint8_t *ahead;     /* holes_ahead() of the switch */
	uint8_t *lastp;     /* per switch: the port it took last (same_again()) */
	/* a half of fill_halves(): (switch << 24 | LID << 8 | old entry) of
	 * its writes, as long as every new dependency was checked (NULL after) */
	uint64_t *rec;
	uint32_t nrec, caprec;
	int unsearched;     /* past_budget(): no cycle search at all */
};

static void heap_push(struct fill *f, uint64_t k)
{
	uint32_t i = f->nheap++;

	while (i && f->heap[(i - 1) / 2] > k) {
		f->heap[i] = f->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	f->heap[i] = k;
}

static uint64_t heap_pop(struct fill *f)
{
	uint64_t top = f->heap[0], k = f->heap[--f->nheap];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= f->nheap)
			break;
		if (c + 1 < f->nheap && f->heap[c + 1] < f->heap[c])
			c++;
		if (f->heap[c] >= k)
			break;
		f->heap[i] = f->heap[c];
		i = c;
	}
	if (f->nheap)
		f->heap[i] = k;
	return top;
}

/* 1 if switch x taking port p towards y for lid closes a CDG cycle. */
static int closes(struct fill *f, uint32_t x, uint8_t p, uint32_t y, uint32_t lid)
{
	if (f->unsearched || !f->w.last[lid] || y == f->w.own[lid])
		return 0;
	return cdg_closes(&f->d, f->w.g->sw[x].portbase + p, lw_at(&f->w, y, lid));
}

/* Moves the best of c[i .. n) to c[i]. */
static void take_best(struct cand *c, uint32_t i, uint32_t n)
{
	uint32_t b = i;

	for (uint32_t j = i + 1; j < n; j++)
		if (c[j].key < c[b].key)
			b = j;
	struct cand t = c[i];
	c[i] = c[b];
	c[b] = t;
}

/*
 * Switches on y's way to lid that miss CA LIDs themselves. Only their
 * entries add dependencies that turn up again, so a way through none of
 * them cannot become part of a cycle later either.
 */
static uint64_t holes_ahead(struct fill *f, uint32_t y, uint32_t lid)
{
	const struct rgraph *g = f->w.g;
	uint32_t n = 0, z = y;

	/* memoised per LID: many switches ask about the same way */
	for (uint32_t i = 0; i < g->nsw && z != f->w.own[lid] && f->astamp[z] != f->cur; i++) {
		n += f->swhole[z];
		z = f->w.peer[g->sw[z].portbase + lw_at(&f->w, z, lid)];
	}
	if (z != f->w.own[lid] && f->astamp[z] == f->cur)
		n += f->ahead[z];
	f->astamp[y] = f->cur;
	f->ahead[y] = n > 0xFF ? 0xFF : (uint8_t)n;
	return f->ahead[y];
}

/* 1 if x taking p towards y for lid adds a channel dependency (never
 * without searches: then it makes no difference). */
static uint64_t new_dep(const struct fill *f, uint32_t x, uint8_t p, uint32_t y, uint32_t lid)
{
	if (f->unsearched || !f->w.last[lid] || y == f->w.own[lid])
		return 0;
	return !cdg_has(&f->d, f->w.g->sw[x].portbase + p, lw_at(&f->w, y, lid));
}

/* Ports of x towards switches that reach lid, best first (hops, then no
 * new dependency, then ways past fewer switches with holes, then the least
 * used link, the lowest port); returns how many. */
static uint32_t candidates(struct fill *f, uint32_t x, uint32_t lid, struct cand *c)
{
	const struct rgraph *g = f->w.g;
	uint32_t n = 0;

	for (uint32_t k = 0; k < g->sw[x].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, x, k);
		uint32_t y = gr->peer;
		if (f->hv[y] == NOWAY)
			continue;
		uint64_t hops = f->hv[y] > 0xFFFF ? 0xFFFF : f->hv[y];
		uint64_t ahead = f->w.last[lid] && !f->unsearched ? holes_ahead(f, y, lid) : 0;
		for (uint32_t i = 0; i < gr->n; i++) {
			uint8_t p = g->gports[gr->first + i];
			uint64_t use = f->use[g->sw[x].portbase + p];
			use = use > 0xFFFFFF ? 0xFFFFFF : use;
			c[n++] = (struct cand){ hops << 48 | new_dep(f, x, p, y, lid) << 47 |
						ahead << 32 | use << 8 | p, y, p };
		}
	}
	return n;
}

/* Queues x's neighbours that do not reach lid yet, hops h away. */
static void relax(struct fill *f, uint32_t x, uint32_t h)
{
	const struct rg_sw *w = &f->w.g->sw[x];
	const uint32_t *nb = f->nbr + w->gfirst;

	for (uint32_t k = 0; k < w->ngroups; k++) {
		uint32_t y = nb[k];
		if (f->hv[y] == NOWAY && f->tent[y] > h) {
			f->tent[y] = h;
			heap_push(f, (uint64_t)h << 32 | y);
		}
	}
}

/* Hops of switch x (no route yet) by its best neighbour that has one,
 * from the walk's hops hv; UINT32_MAX if none. */
static uint32_t first_hops(const struct rgraph *g, const uint32_t *nbr, const uint32_t *hv,
			   uint32_t x)
{
	const struct rg_sw *w = &g->sw[x];
	const uint32_t *nb = nbr + w->gfirst;
	uint32_t best = NOWAY;

	for (uint32_t k = 0; k < w->ngroups; k++)
		best = hv[nb[k]] < best ? hv[nb[k]] : best;
	return best + 1;
}

static int waiting_neighbour(const struct fill *f, uint32_t x)
{
	const struct rg_sw *w = &f->w.g->sw[x];
	const uint32_t *nb = f->nbr + w->gfirst;

	for (uint32_t k = 0; k < w->ngroups; k++)
		if (f->hv[nb[k]] == NOWAY)
			return 1;
	return 0;
}

/* Gives x its entry for lid, or queues it again to wait; 1 if it took one. */
/*
 * The port x took last time, if it is as good as any now: fewest hops and
 * no new dependency (so no cycle either). A switch's holes come by the
 * hundred, one for each LID behind a lost link, and mostly want the same
 * way; weighing every port for each costs more than all the routing.
 */
static int same_again(struct fill *f, uint32_t x, uint32_t lid, uint32_t h, struct cand *c)
{
	uint8_t p = f->lastp[x];
	uint32_t y = p ? f->w.peer[f->w.g->sw[x].portbase + p] : RG_NONE;

	if (y == RG_NONE || f->hv[y] == NOWAY || f->hv[y] + 1 != h || new_dep(f, x, p, y, lid))
		return 0;
	c[0] = (struct cand){ 0, y, p };
	return 1;
}

/* Notes a half's write for fill_halves(), which may have to undo it; once
 * a dependency went in unchecked (or closing a cycle) it will not. */
static void keep_write(struct fill *f, uint32_t x, uint32_t lid, uint8_t old)
{
	if (f->st->cyclic || f->d.unchecked) {
		free(f->rec);
		f->rec = NULL;
		return;
	}
	if (f->nrec == f->caprec) {
		f->caprec = f->caprec ? 2 * f->caprec : 4096;
		uint64_t *n = realloc(f->rec, f->caprec * sizeof(*n));
		if (!n)
			abort();
		f->rec = n;
	}
	f->rec[f->nrec++] = (uint64_t)x << 24 | (uint64_t)lid << 8 | old;
}

static int settle(struct fill *f, uint32_t x, uint32_t lid, uint32_t h, struct cand *c)
{
	const struct rgraph *g = f->w.g;
	uint32_t n = 0, i = 0;

	if (same_again(f, x, lid, h, c))
		n = 1;
	else
		n = candidates(f, x, lid, c);

	for (; i < n; i++) {
		take_best(c, i, n);
		if (!closes(f, x, c[i].p, c[i].y, lid))
			break;
	}
	if (i == n && f->waits[x] < WAITS && waiting_neighbour(f, x)) {
		f->waits[x]++;
		heap_push(f, (uint64_t)(h + 1) << 32 | x);
		return 0;
	}
	int forced = i == n;
	if (forced) {
		i = 0;
		f->st->cyclic += f->w.last[lid] != 0;
		for (uint32_t j = 1; j < n; j++)
			if (c[j].key < c[0].key)
				c[0] = c[j];
	}
	uint32_t y = c[i].y;
	uint8_t old = lw_at(&f->w, x, lid);
	lw_put(&f->w, x, lid, c[i].p);
	f->lastp[x] = c[i].p;
	f->use[g->sw[x].portbase + c[i].p]++;
	if (f->unsearched)
		f->d.unchecked += f->w.last[lid] != 0;
	else if (f->w.last[lid] && y != f->w.own[lid])
		cdg_add(&f->d, g->sw[x].portbase + c[i].p, lw_at(&f->w, y, lid), forced);
	f->hv[x] = f->hv[y] + 1;
	f->st->filled++;
	if (f->rec)
		keep_write(f, x, lid, old);
	return 1;
}

/*
 * A block of LIDs walked for the fill, ahead of it: per LID every
 * switch's hops (NOWAY where it has no way), the switches of the LID's
 * part without one, and the hops each of those starts from. Filling a
 * LID writes only that LID's entries, so the next block can be walked (on
 * a second thread) while this one is filled.
 */
struct ways {
	uint32_t *hv;       /* [lid - b0][switch] */
	uint32_t *holes;    /* [lid - b0][...]: nh of them */
	uint32_t *first;    /* [lid - b0][...]: each hole's first_hops() */
	uint32_t nh[LW_RB];
	const uint32_t *nbr;/* the fill's: every switch's groups' peers */
};

static void walk_lid(struct lwalk *w, uint32_t lid, void *arg)
{
	struct ways *r = arg;
	uint32_t part = w->comp[w->own[lid]], n = w->g->nsw, j = lid - w->b0, k = 0;
	uint32_t *hv = r->hv + (size_t)j * n, *holes = r->holes + (size_t)j * n;

	if (lid > w->top)
		return; /* fill_lid() skips it: no cell to write */
	lw_resolve_all(w, lid);
	for (uint32_t s = 0; s < n; s++) {
		/* switches of other parts are never a neighbour: any value */
		hv[s] = w->s[s].st == LW_REACH ? w->s[s].hops : NOWAY;
		if (w->comp[s] == part && w->s[s].st != LW_REACH)
			holes[k++] = s;
	}
	r->nh[j] = k;
	/* the hops every hole starts from depend on the walk alone */
	for (uint32_t i = 0; i < k; i++)
		r->first[(size_t)j * n + i] = first_hops(w->g, r->nbr, hv, holes[i]);
}

/* Fills one LID: its holes grow towards it, fewest hops first. */
static void fill_lid(struct lwalk *w, uint32_t lid, void *arg)
{
	struct fill *f = arg;
	struct cand *c = f->cands;
	uint32_t n;

	if (lid > w->top)
		return; /* no cell to write: the tables end below */
	n = f->ways->nh[lid - w->b0];
	f->hv = f->ways->hv + (size_t)(lid - w->b0) * w->g->nsw;
	const uint32_t *hs = f->ways->holes + (size_t)(lid - w->b0) * w->g->nsw;
	const uint32_t *first = f->ways->first + (size_t)(lid - w->b0) * w->g->nsw;
	/* without the last hop (route.c's) nothing reaches */
	int none = f->hv[w->own[lid]] == NOWAY;

	f->cur++;
	f->nheap = 0;
	for (uint32_t i = 0; i < n; i++) {
		f->tent[hs[i]] = none ? UINT32_MAX : first[i];
		f->waits[hs[i]] = 0;
		if (f->tent[hs[i]] != UINT32_MAX)
			heap_push(f, (uint64_t)f->tent[hs[i]] << 32 | hs[i]);
	}
	while (f->nheap) {
		uint64_t k = heap_pop(f);
		uint32_t x = (uint32_t)k, h = (uint32_t)(k >> 32);
		if (f->hv[x] != NOWAY || !settle(f, x, lid, h, c))
			continue;
		relax(f, x, f->hv[x] + 1);
	}
}

/* Pass 1 of a fill over LIDs [lo, hi), for one thread: which LIDs and
 * switches have holes, and the channel dependencies of the routes that
 * work. */
struct note {
	struct lwalk w;
	uint32_t lo, hi;
	struct lw_deps deps;
	uint8_t *hole;      /* per LID (each part writes its own LIDs') */
	uint8_t *swhole;    /* per switch: misses some CA LID */
};

static void note_lid(struct lwalk *w, uint32_t lid, void *arg)
{
	struct note *n = arg;
	uint32_t c = w->comp[w->own[lid]];
	uint64_t bit = w->last[lid] ? 1ull << (lid - w->b0) : 0;

	lw_resolve_all(w, lid);
	for (uint32_t s = 0; s < w->g->nsw; s++) {
		const struct lw_sw *y = &w->s[s];
		if (y->st == LW_REACH) {
			if (y->hops >= 2)
				n->deps.flag[s] |= bit;
			continue;
		}
		if (w->comp[s] != c)
			continue;
		n->hole[lid] = 1;
		n->swhole[s] |= w->last[lid] != 0;
	}
}

static void note_block(struct lwalk *w, uint32_t b0, void *arg)
{
	struct note *n = arg;

	(void)b0;
	lw_deps_flush(w, &n->deps);
}

static void note_run(void *arg)
{
	struct note *n = arg;

	lw_each(&n->w, n->lo, n->hi, NULL, note_lid, note_block, n);
	lw_deps_done(&n->deps, n->w.g);
}

/* Pass 1 in two parts of the LIDs (two threads, or one after the other),
 * the second's holes and dependencies merged into the first's (f's). */
static void note_all(struct fill *f, unsigned threads)
{
	const struct rgraph *g = f->w.g;
	uint32_t mid = 1 + (f->w.ltop / 2 / LW_RB) * LW_RB, nl = g->nlinks ? g->nlinks : 1;
	uint8_t *bits = rg_xcalloc(nl, 32);
	struct note n[2] = { { .lo = 1, .hi = mid, .hole = f->hole, .swhole = f->swhole },
			     { .lo = mid, .hi = f->w.ltop + 1, .hole = f->hole } };

	n[0].w = f->w; /* the fill's walker: lw_init()'s work once less */
	lw_init(&n[1].w, g, f->w.lft, f->w.top);
	n[1].swhole = rg_xcalloc(g->nsw ? g->nsw : 1, 1);
	lw_deps_init(&n[0].deps, g, f->d.bits);
	lw_deps_init(&n[1].deps, g, bits);
	rg_par2(note_run, &n[1], &n[0], threads);
	f->w = n[0].w;
	for (size_t i = 0; i < (size_t)nl * 32; i++)
		f->d.bits[i] |= bits[i];
	for (uint32_t s = 0; s < g->nsw; s++)
		f->swhole[s] |= n[1].swhole[s];
	lw_free(&n[1].w);
	free(n[1].swhole);
	free(bits);
}

struct holes {
	const struct lwalk *w;
	uint8_t *hole;
	uint64_t n[2];          /* the count of each half of the LIDs */
};

/* count_no_route()'s scan over LIDs lo + 1 .. hi, both included (each
 * half its own LIDs' hole flags and its own count). */
static void holes_run(void *arg, int half, uint32_t lo, uint32_t hi)
{
	struct holes *h = arg;
	const struct lwalk *w = h->w;
	uint64_t n = 0;

	for (uint32_t s = 0; s < w->g->nsw; s++) {
		const uint8_t *row = w->lft[s], *p = row + lo + 1, *end = row + hi + 1;
		while (p < end && (p = memchr(p, LFT_NO_PORT, (size_t)(end - p)))) {
			uint32_t o = w->own[p - row];
			if (o != RG_NONE && w->comp[o] == w->comp[s]) {
				n++;
				h->hole[p - row] = 1;
			}
			p++;
		}
	}
	h->n[half] = n;
}

/*
 * The entries missing (LFT_NO_PORT) for LIDs of a switch's own part, and
 * per LID whether it misses any (hole). The engines' entries otherwise
 * lead somewhere, so on a fabric they route whole this one scan along the
 * tables' rows, far cheaper than walking every LID across the switches,
 * says there is nothing to fill. (Loops and dead ports are engine bugs the
 * verifier counts, not holes to fill.) LIDs past the tables' end count
 * once each.
 */
static uint64_t count_no_route(const struct lwalk *w, uint8_t *hole, unsigned threads)
{
	struct holes h = { w, hole, { 0, 0 } };
	uint64_t n = 0;

	for (uint32_t lid = w->top + 1; lid <= w->ltop; lid++) {
		n++;
		hole[lid] = 1;
	}
	rg_par_range(holes_run, &h, w->top, threads);
	return n + h.n[0] + h.n[1];
}

/* One block of pass 2 for one thread: walked ahead (w set) or filled. */
struct stage {
	struct fill *f;
	struct lwalk *w;    /* NULL: fill */
	struct ways *r;
	uint32_t b0;
};

static void stage_run(void *arg)
{
	struct stage *t = arg;
	struct fill *f = t->f;
	uint32_t end = t->b0 + LW_RB;

	if (t->w) {
		lw_each(t->w, t->b0, end, f->hole, walk_lid, NULL, t->r);
		return;
	}
	f->ways = t->r;
	lw_each(&f->w, t->b0, end, f->hole, fill_lid, NULL, f);
}

/* Pass 2: every LID in [lo, hi) with a hole (lo - 1 a multiple of
 * LW_RB), filled, block after block; the next block is walked meanwhile
 * (a second thread). */
static void fill_blocks(struct fill *f, uint32_t lo, uint32_t hi, unsigned threads)
{
	const struct rgraph *g = f->w.g;
	size_t cells = (size_t)(g->nsw ? g->nsw : 1) * LW_RB;
	struct ways r[2];
	struct lwalk wr;

	lw_init(&wr, g, f->w.lft, f->w.top);
	for (int k = 0; k < 2; k++) {
		r[k].hv = rg_xmalloc(cells, sizeof(*r[k].hv));
		r[k].holes = rg_xmalloc(cells, sizeof(*r[k].holes));
		r[k].first = rg_xmalloc(cells, sizeof(*r[k].first));
		r[k].nbr = f->nbr;
	}
	struct stage first = { f, &wr, &r[0], lo };
	stage_run(&first);
	for (uint32_t b0 = lo, k = 0; b0 < hi; b0 += LW_RB, k ^= 1) {
		struct stage fill = { f, NULL, &r[k], b0 }, next = { f, &wr, &r[k ^ 1], b0 + LW_RB };
		if (b0 + LW_RB < hi)
			rg_par2(stage_run, &next, &fill, threads);
		else
			stage_run(&fill);
	}
	lw_free(&wr);
	for (int k = 0; k < 2; k++) {
		free(r[k].hv);
		free(r[k].holes);
		free(r[k].first);
	}
}

/* Pass 2's state around fill_blocks(), its searches held to budget. */
static void fill_init(struct fill *f, uint64_t budget)
{
	const struct rgraph *g = f->w.g;
	uint32_t n = g->nsw ? g->nsw : 1;

	f->d.budget = budget;
	f->heap = rg_xmalloc((size_t)n * (WAITS + 2) + g->nlinks, sizeof(*f->heap));
	f->tent = rg_xmalloc(n, sizeof(*f->tent));
	f->waits = rg_xcalloc(n, 1);
	f->use = rg_xcalloc(g->nlinks, sizeof(*f->use));
	f->cands = rg_xmalloc(256, sizeof(*f->cands));
	f->astamp = rg_xcalloc(n, sizeof(*f->astamp));
	f->ahead = rg_xcalloc(n, 1);
	f->lastp = rg_xcalloc(n, 1);
}

static void fill_free(struct fill *f)
{
	free(f->astamp);
	free(f->ahead);
	free(f->lastp);
	free(f->cands);
	free(f->heap);
	free(f->tent);
	free(f->waits);
	free(f->use);
	free(f->rec);
}

/* The searches may visit a sixteenth of the table's cells, at least
 * REACH_MIN_WORK (see there); none past_budget(). */
static uint64_t budget_of(const struct rgraph *g, uint32_t ltop)
{
	uint64_t b = (uint64_t)g->nsw * ltop / 16;

	return b < REACH_MIN_WORK ? REACH_MIN_WORK : b;
}

static uint64_t fill_budget(const struct fill *f)
{
	return f->unsearched ? 0 : budget_of(f->w.g, f->w.ltop);
}

static void fill_all(struct fill *f, unsigned threads)
{
	fill_init(f, fill_budget(f));
	fill_blocks(f, 1, f->w.ltop + 1, threads);
	f->st->unchecked = f->d.unchecked;
	fill_free(f);
}

/* One half of fill_halves(): base's pass 1 (its dependencies, holes), its
 * own walker, state, stats and half the budget, LIDs [lo, hi). */
struct half {
	struct fill f;
	struct reach_stats st;
	uint32_t lo, hi;
};

static void half_init(struct half *h, const struct fill *base, uint32_t lo, uint32_t hi)
{
	const struct rgraph *g = base->w.g;

	memset(h, 0, sizeof(*h));
	h->lo = lo;
	h->hi = hi;
	h->f.st = &h->st;
	h->f.nbr = base->nbr;
	h->f.hole = base->hole;
	h->f.swhole = base->swhole;
	h->f.unsearched = base->unsearched;
	lw_init(&h->f.w, g, base->w.lft, base->w.top);
	cdg_init(&h->f.d, g);
	memcpy(h->f.d.bits, base->d.bits, (size_t)(g->nlinks ? g->nlinks : 1) * 32);
	fill_init(&h->f, fill_budget(base) / 2);
	h->f.caprec = 4096;
	h->f.rec = rg_xmalloc(h->f.caprec, sizeof(*h->f.rec));
}

static void half_run(void *arg)
{
	struct half *h = arg;

	fill_blocks(&h->f, h->lo, h->hi, 1);
}

/* 1 if both halves checked every dependency they added, yet together
 * they close a cycle: the fill in one go could have done without. */
static int halves_cross(const struct rgraph *g, const struct half *h)
{
	size_t n = (size_t)(g->nlinks ? g->nlinks : 1) * 32;

	if (!h[0].f.rec || !h[1].f.rec)
		return 0;
	uint8_t *u = rg_xmalloc(n, 1);
	for (size_t i = 0; i < n; i++)
		u[i] = h[0].f.d.bits[i] | h[1].f.d.bits[i];
	int cyc = cdg_cyclic(g, u);
	free(u);
	return cyc;
}

/* Puts back what a half wrote. */
static void half_undo(const struct half *h, uint8_t *const *lft)
{
	for (uint32_t k = h->f.nrec; k-- > 0;) {
		uint64_t r = h->f.rec[k];
		lft[r >> 24][(r >> 8) & 0xFFFF] = (uint8_t)r;
	}
}

/*
 * Pass 2 on a big fabric: the LIDs in two halves side by side (two
 * threads, or one after the other), each from pass 1's dependencies with
 * its own and half the search budget (the searches are most of the time
 * and they run one after another). Each half's new dependencies are
 * checked against its own; where both checked all of theirs and together
 * they close a cycle, pass 2 runs again in one go.
 */
static void fill_halves(struct fill *f, unsigned threads)
{
	const struct rgraph *g = f->w.g;
	uint32_t mid = 1 + (f->w.ltop / 2 / LW_RB) * LW_RB;
	struct half h[2];

	half_init(&h[0], f, 1, mid);
	half_init(&h[1], f, mid, f->w.ltop + 1);
	rg_par2(half_run, &h[1], &h[0], threads);
	int again = halves_cross(g, h);
	for (int k = 0; k < 2; k++) {
		if (again)
			half_undo(&h[k], f->w.lft);
		f->st->filled += again ? 0 : h[k].st.filled;
		f->st->cyclic += again ? 0 : h[k].st.cyclic;
		f->st->unchecked += again ? 0 : h[k].f.d.unchecked;
		lw_free(&h[k].f.w);
		cdg_free(&h[k].f.d);
		fill_free(&h[k].f);
	}
	if (again)
		fill_all(f, threads);
}

void reach_fill(const struct rgraph *g, uint8_t **lft, uint32_t top, struct reach_stats *st)
{
	reach_fill_threads(g, lft, top, st, ROUTE_THREADS, 0);
}

/* Pass 2, once pass 1 found some hole. */
static void fill_pass(struct fill *f, unsigned threads, int halves)
{
	const struct rgraph *g = f->w.g;

	f->nbr = rg_xmalloc(g->ngroups ? g->ngroups : 1, sizeof(*f->nbr));
	for (uint32_t k = 0; k < g->ngroups; k++)
		f->nbr[k] = g->groups[k].peer;
	if (halves && f->w.ltop > 2 * LW_RB)
		fill_halves(f, threads);
	else
		fill_all(f, threads);
	free(f->nbr);
}

/*
 * More missing entries than the cycle searches could help with. On the
 * degraded fat trees measured (3-level, radix 16 to 54, links or switches
 * removed, 18,935 to 5,647,860 entries to fill), the fills with more than
 * budget / 64 missing entries that were followed ran their budget out
 * after a few thousand entries (most within their first 10 %) or were
 * forced into cycles, and every one ended with the switches' routes
 * closing a credit loop all the same; the searches and the walk of every
 * LID that gathers their dependencies took half to three quarters of the
 * fill's time. Past that count both are skipped: every entry is taken by
 * hops and use alone, counted unchecked.
 */
uint64_t reach_search_limit(const struct rgraph *g, uint32_t top)
{
	return budget_of(g, g->top > top ? g->top : top) / 64;
}

static int past_budget(const struct fill *f, uint64_t missing)
{
	return missing > reach_search_limit(f->w.g, f->w.top);
}

void reach_fill_threads(const struct rgraph *g, uint8_t **lft, uint32_t top,
			struct reach_stats *st, unsigned threads, int halves)
{
	struct fill f;

	memset(&f, 0, sizeof(f));
	f.st = st;
	st->filled = st->cyclic = st->unchecked = 0;
	lw_init(&f.w, g, lft, top);
	threads = rg_par_threads(g, threads);
	f.hole = rg_xcalloc(f.w.ltop + 1u, 1);
	f.swhole = rg_xcalloc(g->nsw ? g->nsw : 1, 1);
	uint64_t missing = count_no_route(&f.w, f.hole, threads);
	if (missing) {
		cdg_init(&f.d, g);
		if (past_budget(&f, missing))
			f.unsearched = 1;
		else
			note_all(&f, threads);
		fill_pass(&f, threads, halves);
		cdg_free(&f.d);
	}
	free(f.hole);
	free(f.swhole);
	lw_free(&f.w);
}
