/*
 * DOC: every switch's way to one LID, LID after LID.
 *
 * The verifier and reach.c follow the LFTs from every switch towards a
 * destination LID. Per LID each switch's fate is resolved once and
 * memoised (a switch whose next hop is resolved takes its fate), so one
 * LID costs O(switches). The tables are read 64 LIDs at a time into a
 * block (one cache line of every switch's table): walking one LID across
 * all switches would otherwise miss the cache at every switch. Pure.
 */
#ifndef IBSM_ROUTING_WALK_H
#define IBSM_ROUTING_WALK_H

#include <stdint.h>

#include "routing/graph.h"
#include "routing/routing.h"

#define LW_RB 64 /* LIDs per block: one cache line of every LFT */

/* A switch's fate for the LID (0: not resolved yet). */
enum { LW_INPROG = 1, LW_REACH, LW_NOPORT, LW_DEAD, LW_LOOP };

/* A switch's way to the LID walked, in eight bytes: every LID's walk
 * reads this of every switch and of the switch it sends to, so the
 * array's size is what the walk asks of the cache (29 KB on the
 * radix-54 tree's 3645 switches, 58 KB at sixteen bytes). */
struct lw_sw {
	uint32_t nxt;     /* the switch it sends to, RG_NONE where its way ends */
	uint16_t hops;    /* LW_REACH: switch hops to the LID's switch (at most
			     UINT16_MAX, which no real fabric reaches) */
	uint8_t st;       /* LW_* */
	uint8_t port;     /* its entry */
};
_Static_assert(sizeof(struct lw_sw) == 8, "struct lw_sw is eight bytes");

struct lwalk {
	const struct rgraph *g;
	uint8_t *const *lft;
	uint32_t top;     /* the tables' highest LID; LIDs above have no entry */
	uint32_t ltop;    /* the highest LID assigned (g->top), or top if higher */
	uint32_t *own;    /* per LID: switch it ends at, RG_NONE if unassigned */
	uint8_t *last;    /* per LID: that switch's port for it (0: its own LID) */
	uint32_t *comp;   /* per switch: its connected part (lowest switch index) */
	uint32_t *csize;  /* per switch s: switches in part s (0 unless s names one) */
	uint32_t *peer;   /* per directed link id: peer switch or RG_NONE */
	uint32_t *pbase;  /* per switch: its portbase (graph.h) */
	uint8_t *np;      /* per switch: its ports */
	uint32_t *order;  /* switches, farthest from any host first */
	uint8_t *blk;     /* bn LIDs from b0 of every switch, LW_RB apart */
	uint32_t b0, bn;
	struct lw_sw *s;  /* per switch, for the LID being walked */
	uint32_t *stack;
};

void lw_init(struct lwalk *w, const struct rgraph *g, uint8_t *const *lft, uint32_t top);
void lw_free(struct lwalk *w);

/* Entry of switch s for lid, from the block where it holds lid. */
static inline uint8_t lw_at(const struct lwalk *w, uint32_t s, uint32_t lid)
{
	uint32_t j = lid - w->b0;

	if (j < w->bn)
		return w->blk[(size_t)s * LW_RB + j];
	return lid <= w->top ? w->lft[s][lid] : LFT_NO_PORT;
}

/* Writes an entry, in the table and in the block being walked. */
void lw_put(struct lwalk *w, uint32_t s, uint32_t lid, uint8_t p);

/* Forgets every switch's fate: the next lid is walked afresh. */
void lw_begin(struct lwalk *w);

/* Resolves switch s (and those on its way) for lid, once per lw_begin(). */
void lw_chain(struct lwalk *w, uint32_t s, uint32_t lid);

static inline void lw_resolve(struct lwalk *w, uint32_t s, uint32_t lid)
{
	if (!w->s[s].st)
		lw_chain(w, s, lid);
}

/* lw_begin(), then every switch resolved. */
void lw_resolve_all(struct lwalk *w, uint32_t lid);

typedef void (*lw_fn)(struct lwalk *w, uint32_t lid, void *arg);

/* Calls fn for every assigned LID in [first, end) (with want, those it
 * flags), with the LID's block loaded; fn resolves what it needs. Calls
 * done (if any) after each block, the block still loaded. */
void lw_each(struct lwalk *w, uint32_t first, uint32_t end, const uint8_t *want, lw_fn fn,
	     lw_fn done, void *arg);

/*
 * Channel dependencies (cdg.h), gathered a block at a time: a LID's walk
 * only flags the switches whose dependency counts (bit lid - b0), and
 * lw_deps_flush() sets them switch by switch, reading the ports back from
 * the block, while that switch's channels are in cache. Per LID the
 * switches' channels lie all over a table too big for the cache.
 */
struct lw_deps {
	uint64_t *flag;   /* per switch: LIDs of the block whose dependency counts */
	uint64_t *lo;     /* per link id: next ports below 64 */
	uint8_t *bits;    /* 32 bytes per link id: the other ports (all of them
			     once lw_deps_done() merged lo in) */
};

/* bits: the caller's (cdg.h layout, g->nlinks entries). */
void lw_deps_init(struct lw_deps *d, const struct rgraph *g, uint8_t *bits);
/* Sets the dependencies flagged in this block, and clears the flags. */
void lw_deps_flush(const struct lwalk *w, struct lw_deps *d);
/* Merges lo into bits and frees all but bits. */
void lw_deps_done(struct lw_deps *d, const struct rgraph *g);

#endif
