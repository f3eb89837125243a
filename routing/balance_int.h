/*
 * DOC: balance's private state, shared by balance.c (the search and its
 * all-to-all step), balance_shift.c (shift permutations), balance_leaf.c
 * (the leaves' links where not every shift is counted) and, below them
 * all, balance_move.c (paths, moves and the shift counters they change).
 */
#ifndef IBSM_ROUTING_BALANCE_INT_H
#define IBSM_ROUTING_BALANCE_INT_H

#include <stdint.h>

#include "routing/balance.h"
#include "routing/graph.h"

#define BAL_SHIFT_BYTES (64u << 20) /* default largest shift counter array */
#define BAL_WORK (4000ull << 20)    /* ~switch visits, all steps together */
#define BAL_ROUNDS 12               /* max search, then smoothing, rounds */
#define BAL_SWEEPS 4                /* shift phase sweeps */
#define BAL_LOG 64                  /* moves one chain may make */
#define BAL_ALL_PATHS 4096          /* hosts up to which smoothing tries every path */
/* Largest hosts x switches balanced (the copy of the CA-LID entries, a
 * byte each): 39 366 hosts on 3 645 switches take 143 MB. */
#define BAL_ROWS_BYTES (1ull << 28)
#define BAL_WINDOW 256             /* largest leaf (hosts) window_ok() watches */
#define BAL_WINDOW_SLACK 2         /* routes over a leaf's share one window may hold */
#define BAL_PATH 64                 /* longest path considered */
#define BAL_RESTARTS 16             /* shift phase runs at most, see shifts_and_back() */
#define BAL_RESTART_HOSTS 2048      /* hosts up to which it runs more than once */
/* Weight of excess over nlim against excess over slim: more than any one
 * move or swap can change the latter (under 2^23 terms: sources times
 * path links), so that none trades the former for the latter. */
#define BAL_TIER (1ll << 24)
#define BAL_TIGHT_WORK (64ull << 20) /* work bal_shift_tighten() may spend (a
					 component's, one at a time) */
#define BAL_TIGHT_LEAF_WORK (512ull << 20) /* and the leaf phase's (its work
					      units are cheaper) */

struct path {
	uint32_t n, id[BAL_PATH];
};

struct bal_move {
	uint32_t dest, z;
	uint8_t q;
};

struct bal {
	const struct rgraph *g;
	uint8_t **lft;
	uint8_t *rows;      /* [host * nsw + s]: lft[s][host's LID], kept in step */
	uint8_t *cur;       /* the row of the destination being looked at */
	const uint32_t *rank;
	uint32_t n, nsw, nsl;
	uint64_t *load;     /* per link id: all-to-all sources */
	uint32_t *mt;       /* max tree over compact links' loads: [1] busiest */
	uint32_t mtsize;    /* its leaves, a power of two >= nsl */
	uint32_t *peer;     /* per link id: peer switch or RG_NONE */
	uint32_t *tail;     /* per link id: switch */
	uint32_t *ci;       /* per link id: compact switch link or RG_NONE */
	uint32_t *cid;      /* per compact link: link id */
	uint32_t *links;    /* per switch: switch ports (shift bounds) */
	/* the in-tree of destination host dest */
	uint32_t dest, lid, root, stamp;
	uint32_t *nxt, *flow, *cstart, *cfill, *clist, *order, *intree, norder;
	uint32_t *sub;      /* subtree scratch */
	uint32_t *cand;     /* switches a2a_move tries */
	uint8_t *sc;        /* [row * nsc + shift link] */
	uint32_t *sci;      /* per link id: its shift link or RG_NONE (not counted) */
	uint32_t *scid;     /* per shift link: link id */
	uint32_t nsc;
	uint32_t *comp;     /* per switch: upper component (ranks >= 1), RG_NONE */
	uint32_t ccur;      /* the component counted, RG_NONE: every link */
	uint32_t *cone, *cmark, cstamp; /* leaves below a switch, scratch */
	uint32_t *js;       /* shift_fix's candidate sources */
	uint32_t *lidx;     /* per switch: its index among switches with hosts */
	uint32_t *ecnt;     /* per link id: leaf_downs() scratch, kept zero */
	uint32_t escapes;   /* leaf moves out of the component counted */
	uint64_t shift_bytes; /* largest shift counter array */
	uint32_t sweep_from;  /* sweeps start at shift ntrk * sweep_from / 8 */
	uint32_t swap_reach;  /* swaps look this many leaf spans either way */
	uint8_t *slim;      /* per shift: the limit the search works towards */
	uint8_t *nlim;      /* per shift: bound + 1, the limit no move may break
			       (slim too, but while tightening) */
	uint8_t *tlim;      /* per shift: the per-switch bound + 1 where shortest
			       paths allow it, else bound + 1 */
	uint32_t *srow;     /* per shift: its row in sc, RG_NONE if not tracked */
	uint32_t *trk, ntrk;/* the tracked shifts */
	uint32_t *nover;    /* per shift row: its links above the limit */
	struct bal_move log[BAL_LOG];
	uint32_t nlog;
	int logging;        /* apply() records what it changes, for undo() */
	int windows;        /* shifts wanted but not countable: window_ok() */
	uint64_t a2a_lim;
	uint64_t a2a_min;   /* the all-to-all bound */
	uint64_t work;
	uint64_t work_lim;  /* work bound: BAL_WORK, lower while tightening */
};

/* balance_move.c */
/* Next switch from s on the current destination's route, RG_NONE if none. */
uint32_t bal_hop(const struct bal *b, uint32_t s);
/* Builds the in-tree of destination host h: children, BFS order, flows. */
void bal_tree(struct bal *b, uint32_t h);
/* Switches whose route goes through z (z first) into b->sub; their count. */
uint32_t bal_subtree(struct bal *b, uint32_t z);
/* Link ids from s to the root; 0 if too long. */
int bal_path_from(const struct bal *b, uint32_t s, struct path *p);
int bal_on_path(const struct path *p, uint32_t id);
/* z's path if its entry becomes port q; 0 if not a legal up*\/down* move. */
int bal_new_path(const struct bal *b, uint32_t z, uint8_t q, struct path *np);
/* Links of a not on c, into out. */
void bal_minus(const struct path *a, const struct path *c, struct path *out);
/* Moves z's entry to port q (op: its path now, np: then). */
void bal_apply(struct bal *b, uint32_t z, uint8_t q, const struct path *op,
	       const struct path *np);
/* The largest all-to-all load on the links np adds to op, with f more. */
uint64_t bal_added_max(const struct bal *b, const struct path *op, const struct path *np,
		       uint64_t f);
/* The max tree over the compact links' loads, from scratch. */
void bal_mt_build(struct bal *b);
/* Re-points z's entry for host d to port q; the change of shift excess,
 * INT64_MAX (nothing done) if illegal or (check) over the limits. */
int64_t bal_move_to(struct bal *b, uint32_t d, uint32_t z, uint8_t q, int check);
void bal_shift_add(struct bal *b, uint32_t nsub, const struct path *p, int d);
/* 1 if link id is one into a leaf while a component is counted. */
int bal_leaf_watched(const struct bal *b, uint32_t id);
/* The change of the shift excess if the sources behind z leave links
 * gone and join links added (INT64_MAX: not allowed). */
int64_t bal_shift_delta(struct bal *b, uint32_t nsub, const struct path *gone,
			const struct path *added, uint64_t f);
/* 1 if moving z from path op to np adds no shift excess (as far as known). */
int bal_shift_ok(struct bal *b, uint32_t z, const struct path *op, const struct path *np);

/* Shift of source host j towards the current destination. */
static inline uint32_t bal_shift_of(const struct bal *b, uint32_t j)
{
	return (b->dest + b->n - j) % b->n;
}

/* The counter of (shift sh, shift link c). Counting a component is
 * faster link-major (a source leaf's hosts, consecutive shifts, count
 * into one cache line); the sweeps over every link are faster shift-major. */
static inline uint8_t *bal_counter(const struct bal *b, uint32_t sh, uint32_t c)
{
	if (b->ccur != RG_NONE)
		return b->sc + (size_t)c * b->ntrk + b->srow[sh];
	return b->sc + (size_t)b->srow[sh] * b->nsc + c;
}

/* balance_shift.c */
uint32_t bal_shift_over(const struct bal *b);
void bal_shift_phase(struct bal *b, struct balance_stats *st);
/* Frees the shift phase's counters and limits (before it runs again). */
void bal_shift_reset(struct bal *b);
/* With every shift counted: lowers slim to tlim and searches again, within
 * BAL_TIGHT_WORK, never adding excess over nlim; recount: the counters
 * are not those of the tables (restored). */
void bal_shift_tighten(struct bal *b, int recount, struct balance_stats *st);
/* (shift, link) pairs above nlim. */
uint32_t bal_shift_over_bound(const struct bal *b);

/* balance_leaf.c */
/* Moves leaf l's entry for host d to an uplink that adds no excess on the
 * leaves' links and (avoid a link) whose route does not use avoid. */
int bal_leaf_move(struct bal *b, uint32_t l, uint32_t d, uint32_t avoid);
void bal_leaf_phase(struct bal *b, struct balance_stats *st);

#endif
