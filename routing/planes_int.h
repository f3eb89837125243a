/*
 * DOC: plane routing's private state, shared by planes.c (the structure
 * and the tables' last writes), planes_leaf.c (every leaf's plane for
 * every destination), planes_slot.c (every middle switch's top switch),
 * planes_own.c (the switches' own ways where those leave none) and,
 * below them all, planes_run.c (the counting primitives).
 */
#ifndef IBSM_ROUTING_PLANES_INT_H
#define IBSM_ROUTING_PLANES_INT_H

#include <stdint.h>

#include "routing/graph.h"
#include "routing/planes.h"

#define PL_MAXP 256 /* planes and slots a mask holds */
#define PL_PAD 16   /* bytes after counter arrays that whole-vector reads may touch */

/* A set of planes (or of slots in a plane). */
struct pmask {
	uint64_t w[PL_MAXP / 64];
};

/* A leaf entry that is not the destination's own plane and slot, for
 * planes_slot.c: leaf a sends host i through the plane it is listed in.
 * Hosts and leaves are fewer than unicast LIDs (pl_build() checks): 16
 * bits each. */
#define PL_EXTRA(i, a) ((uint32_t)(i) << 16 | (uint32_t)(a))
#define PL_EXTRA_HOST(k) ((uint32_t)(k) >> 16)
#define PL_EXTRA_LEAF(k) ((uint32_t)(k) & 0xFFFF)

struct pl {
	const struct rgraph *g;
	uint32_t N;          /* hosts */
	uint32_t nleaf, npod;
	uint32_t P;          /* planes */
	uint32_t S;          /* slots (top switches) per plane; 0 on 2 ranks */
	uint32_t L;          /* most leaves in a pod */
	uint64_t B;          /* all-to-all bound, as verify computes it */
	uint32_t T;          /* shift target: largest per-switch bound + 1 ... */
	uint8_t *lim;        /* ... and per shift (lower where leaves keep flows) */
	uint32_t zone;       /* shifts below it or above N - it may differ from T */
	uint32_t *lidx;      /* per switch: its leaf index, RG_NONE */
	uint32_t *leafsw;    /* per leaf: switch */
	uint32_t *pod;       /* per leaf */
	uint32_t *lpos;      /* per leaf: position in its pod */
	uint32_t *lcomp;     /* per leaf: connected component */
	uint32_t *pfirst;    /* leaves of pod p: plist[pfirst[p] .. pfirst[p + 1]) */
	uint32_t *plist;
	uint32_t *mid;       /* [pod * P + q]: middle switch or RG_NONE */
	uint32_t *top;       /* [q * S + t]: top switch or RG_NONE */
	/* ports, 0 where there is no link */
	uint8_t *lup;        /* [leaf * P + q]: leaf up to mid[pod][q] */
	uint8_t *mdown;      /* [(pod * P + q) * L + lpos]: middle down to leaf */
	uint8_t *mup;        /* [(pod * P + q) * S + t]: middle up to top[q][t] */
	uint8_t *tdown;      /* [(q * S + t) * npod + pod]: top down to mid[pod][q] */
	struct pmask *lmask; /* per leaf: planes it links up to */
	struct pmask *dmask; /* per leaf: planes whose middle links down to it */
	struct pmask *common;/* [p1 * npod + p]: planes with a top joining both pods */
	struct pmask *upm;   /* [pod * P + q]: slots mid[pod][q] links up to */
	struct pmask *dnm;   /* [q * npod + pod]: slots linking down to mid[pod][q] */
	uint8_t *primok;     /* per host: its own plane takes it whole (see planes.c) */
	/* all-to-all loads (sources), counted as entries are chosen */
	uint64_t *rowload;   /* [leaf * P + q]: leaf's uplink */
	uint64_t *midup;     /* [pod * P + q]: through mid[pod][q] up, all its uplinks */
	uint64_t *middn;     /* [pod * P + q]: into mid[pod][q] from above */
	uint32_t *cup;       /* [pod * P + q]: uplinks of mid[pod][q] */
	uint64_t *rcup;      /* [pod * P + q]: 2^24 / cup, 0 without uplinks */
	uint64_t *mload;     /* [(q * npod + pod) * S + t]: mid[pod][q] up to slot t */
	uint64_t *tload;     /* [(q * S + t) * npod + pod]: slot t down to mid[pod][q] */
	/* planes_leaf.c's output for planes_slot.c: extras by plane */
	uint32_t **xl;
	uint32_t *nxl, *capxl;
	struct planes_stats *st;
};

static inline int pm_has(const struct pmask *m, uint32_t b)
{
	return (int)((m->w[b >> 6] >> (b & 63)) & 1);
}

static inline void pm_set(struct pmask *m, uint32_t b)
{
	m->w[b >> 6] |= 1ull << (b & 63);
}

static inline uint32_t pm_count(const struct pmask *m)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < PL_MAXP / 64; k++)
		n += m->w[k] ? rg_pop64(m->w[k]) : 0;
	return n;
}

static inline void pm_and(struct pmask *r, const struct pmask *a, const struct pmask *b)
{
	for (uint32_t k = 0; k < PL_MAXP / 64; k++)
		r->w[k] = a->w[k] & b->w[k];
}

/* v mod N, without a division where v < 3N (what callers mostly have). */
static inline uint32_t pl_mod(uint64_t v, uint32_t N)
{
	if (v >= 2 * (uint64_t)N)
		v = v < 3 * (uint64_t)N ? v - 2 * (uint64_t)N : v % N;
	return (uint32_t)(v >= N ? v - N : v);
}

/* The first host of the run of shifts in which leaf (or pod) hosts
 * [a0, a0 + h) send to host i: shifts i - a0 - h + 1 .. i - a0, mod N. */
static inline uint32_t pl_rstart(uint32_t i, uint32_t a0, uint32_t h, uint32_t N)
{
	return pl_mod((uint64_t)i + 2 * (uint64_t)N - a0 - h + 1, N);
}

/* planes_run.c */
/* Largest counter in the cyclic run [st, st + len) of c (N counters, and
 * 16 readable bytes after the last: counter arrays get PL_PAD more). */
uint32_t pl_runmax(const uint8_t *c, uint32_t st, uint32_t len, uint32_t N);
/* 1 if some counter of the cyclic run [st, st + len) of c is k or more
 * (the same reads as pl_runmax()). */
int pl_run_reaches(const uint8_t *c, uint32_t st, uint32_t len, uint32_t N, uint32_t k);
/* Largest c[s] + add - lim[s] over the cyclic run, from the run's largest
 * counter (runmax, if known, else UINT32_MAX) where lim is T throughout. */
int32_t pl_run_excess(const struct pl *x, const uint8_t *c, uint32_t st, uint32_t len,
		      uint32_t add, uint32_t runmax);

/* Takes the candidate of smallest key out of cand[0 .. *left) (keys in key,
 * the order of the rest changes); returns it, its key in *kk. */
uint32_t pl_take_min(uint64_t *key, uint32_t *cand, uint32_t *left, uint64_t *kk);
/* The same for candidate k, the first of smallest key (its caller found it
 * while it made the keys). */
uint32_t pl_take_at(uint64_t *key, uint32_t *cand, uint32_t *left, uint32_t k, uint64_t *kk);

/* 1 if leaf a reaches host i (leaf l) through i's own plane and slot. */
int pl_primary(const struct pl *x, uint32_t a, uint32_t i, uint32_t l);
/* The first plane of m from q on (cyclically), or RG_NONE. */
uint32_t pl_next(const struct pmask *m, uint32_t q, uint32_t n);

/* n bytes (zero if asked) for a big array read at random: on 2 MB pages
 * where the system gives them on request, which spares most of the TLB
 * misses (and page faults) of tens of MB of counters. free() frees it. */
#define PL_HUGE ((size_t)2 << 20)
void *pl_big(size_t n, int zero);

/* planes_leaf.c */
/* Allocates the all-to-all load counts (and middles' uplink counts). */
void pl_loads_init(struct pl *x);
/* Every leaf's entry for every CA base LID of another leaf; the extras
 * listed by plane in xl for pl_route_middles(). split: the destination
 * leaves in two halves side by side (route_all_leaves()), on threads. */
void pl_route_leaves(struct pl *x, uint8_t **lft, int split, unsigned threads);

/* planes_slot.c */
/* Every middle's entry for every CA base LID of another pod. */
void pl_route_middles(struct pl *x, uint8_t **lft, unsigned threads, int bytes);

/* planes_own.c */
/* After the rest, where far more are missing than route.c's fill could
 * check for credit loops: middle and top switches without a way to a CA
 * LID get one for their own packets, down and up again (two halves of the
 * hosts on threads); returns the entries written. */
uint64_t pl_route_own(const struct pl *x, uint8_t **lft, unsigned threads);

#endif
