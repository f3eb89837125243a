/*
 * DOC: ftree's private state, shared by ftree.c (the routing) and
 * ftree_setup.c (the state's allocation and the lookups built once per
 * fabric).
 */
#ifndef IBSM_ROUTING_FTREE_INT_H
#define IBSM_ROUTING_FTREE_INT_H

#include <stdint.h>

#include "routing/engine.h"
#include "routing/graph.h"

#define FT_COLS 64
#define FT_RECENT 8      /* uses remembered per leaf uplink, see recent() */
#define FT_MAX_MOVES 1024 /* per destination and link: bounds the work */
#define FT_SCAN_BUDGET 1024 /* candidate subtrees examined per link and destination */

struct mp {
	uint32_t top, n;
	uint32_t *sw;       /* maxdepth entries */
	uint8_t *port;
};

struct ft {
	const struct rgraph *g;
	struct rctx *c;
	uint32_t *rank;
	uint32_t *desc;     /* ranked switches, rank descending, index ascending */
	uint32_t ndesc;
	uint64_t *load;     /* traffic per directed link id */
	uint8_t **cone;     /* per top switch: group towards it, lazily */
	uint32_t **cpath;   /* per top switch: see cone_paths() */
	uint32_t *inD, curD;
	uint32_t *dset, nd; /* D, l first (see down_set()) */
	uint32_t *rest, nrest; /* the other ranked switches, in desc order */
	uint8_t *ncand, *cand;
	uint8_t *dport;     /* per D switch: its only way down, or 0 (a choice) */
	uint32_t *dnxt;     /* ... and the switch it leads to */
	uint32_t *ok, *onmain, *deferred, stamp;
	uint8_t *route;
	uint32_t *nxt;
	uint64_t *flow;     /* sources behind each switch, see flows() */
	uint32_t *touched;  /* switches whose flow may not be 0: commit() clears */
	uint32_t *tstamp;   /* ... listed in touched for this stamp */
	uint32_t ntouched;
	uint32_t *lastuse;  /* per link id: last FT_RECENT destination indices + 1 */
	uint32_t curidx;    /* host index of the destination being routed */
	uint32_t *cstart, *cfill, *clist, *bfs, children_ok; /* build_children() */
	uint64_t *nlcache;  /* next_load() of deferred switches ... */
	uint32_t *nlstamp;  /* ... valid for this stamp */
	uint8_t *usehead;   /* per link id: newest slot in lastuse (a ring) */
	uint32_t *early;    /* per link id: first two uses (index + 1) if early */
	uint32_t *below;    /* per switch: hosts that can climb through it */
	uint32_t *bucket;   /* per link id: window (curidx / below + 1) counted */
	uint32_t *bcnt;     /* per link id: uses in that window and the one before */
	int midrec;         /* degraded tree: upper switches count uses too */
	uint64_t nsrc;      /* hosts: sources of traffic */
	uint64_t *cap;      /* per leaf: all-to-all share of one uplink port */
	uint64_t gcap;      /* the largest of those: the all-to-all bound */
	uint32_t maxdepth;  /* longest main path: number of ranks */
	uint32_t *tlast;    /* last main path (plan number + 1) through each switch */
	uint64_t *above;    /* per switch: above_load(), while planning ... */
	uint8_t *above_ok;  /* ... and whether it is still that */
	int planning;       /* main paths of the CA LIDs: only they move loads */
	uint32_t nplan;
	int balance;        /* CA LIDs: balance loads; switch LIDs: do not */
	uint32_t *peer;     /* per link id: peer switch or RG_NONE */
	uint32_t *pb;       /* per switch: its portbase (hot loops read it) */
	uint32_t *gf;       /* ... and its gfirst */
	uint8_t *upg;       /* per switch at gfirst: its up groups */
	uint8_t *back;      /* per group: back_group() */
	uint32_t *upsw;     /* per switch at gfirst: peers of its up groups */
	uint8_t *upport;    /* ... and their one port down to it, 0 if several */
	uint8_t *upfirst;   /* ... and the first port up to them */
	uint8_t *nup;
	uint32_t *upcls;    /* per switch: first switch with the same upper ones */
	uint32_t *noup;     /* per class: stamp at which first_up() found none */
	uint32_t *leaves;   /* rank-0 switches */
	uint32_t nleaves;
	uint32_t *comp;     /* connected component of every switch */
	uint64_t cut;       /* (leaf, CA LID) pairs cabled but not routable */
	uint8_t *col;       /* FT_COLS LFT bytes per switch, see flush_cols() */
	uint32_t collid[FT_COLS], ncol;
	uint32_t j;         /* column of the destination being routed */
};

/* Group index at the peer of group k of s that leads back to s. */
static inline uint8_t back_group(const struct ft *f, uint32_t s, uint32_t k)
{
	return f->back[f->g->sw[s].gfirst + k];
}

static inline int is_up(const struct ft *f, uint32_t s, uint32_t k)
{
	return f->rank[rg_group(f->g, s, k)->peer] == f->rank[s] + 1;
}

/* ftree_setup.c */
/* Ranks, the ranked switches' order, every per-switch and per-link array
 * and lookup, for c's fabric. */
void ft_init(struct ft *f, struct rctx *c);
void ft_free(struct ft *f);

#endif
