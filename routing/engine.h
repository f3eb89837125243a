/*
 * DOC: what routing engines share behind route_compute().
 *
 * An engine fills ctx->lft[s][lid] for every switch s (graph index) and
 * every destination LID except the last hop, which route.c writes itself
 * (a switch's own LID -> port 0, a CA LID -> the port the CA hangs off).
 * The helpers below are engine.c's: route.c calls the engines, the
 * engines call these, and nothing here calls back up.
 */
#ifndef IBSM_ROUTING_ENGINE_H
#define IBSM_ROUTING_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "routing/graph.h"
#include "routing/routing.h"

struct rctx {
	const struct rgraph *g;
	const struct route_opts *o;
	uint8_t **lft;       /* per switch index, g->top + 1 entries */
	char *why;           /* route_tables.why: append with route_why() */
	size_t whylen;
};

/* Engine return: 0 done, -1 error (why set), or this: redo with updn. */
#define ROUTE_FALLBACK_UPDN 1

typedef int (*route_engine_fn)(struct rctx *c);

int route_minhop(struct rctx *c);
int route_updn(struct rctx *c);
int route_ftree(struct rctx *c);

/* 1 if the fabric is a (possibly degraded) fat tree; why says why not. */
int ftree_detect(const struct rgraph *g, char *why, size_t whylen);
/* Every switch's rank: hops from the nearest switch with CAs (a leaf),
 * UINT32_MAX where none is reachable. */
void ftree_ranks(const struct rgraph *g, uint32_t *rank);

/* 1 if the fabric has route_opts.split_cells table cells (switches x
 * LIDs) or more: plane routing's leaves and the reach fill then go in two
 * halves side by side. */
int route_split(const struct rctx *c);

/* Appends to the explanation in c->why. */
void route_why(struct rctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Switch indices of the root GUID override; -1 with why on unknown GUID. */
int route_roots(struct rctx *c, uint32_t *out, uint32_t *nout);

/*
 * The port of the given candidate ports with the smallest use count,
 * lowest port number on ties; bumps its count. use is indexed by link id.
 */
uint8_t route_pick_least(const struct rgraph *g, uint32_t s, const uint8_t *ports,
			 uint32_t nports, uint32_t *use);

/*
 * Writes every LID that ends at switch d (its CAs' LIDs, then its own) into
 * all other switches, picking per LID the least-used of the candidate
 * ports of switch s: cports[portbase(s) .. + cn[s]).
 */
void route_lids_at(struct rctx *c, uint32_t d, const uint8_t *cn, const uint8_t *cports,
		   uint32_t *use);

#endif
