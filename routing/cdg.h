/*
 * DOC: channel dependency graphs of LFTs, kept acyclic as edges are added.
 *
 * A channel is a directed switch-to-switch link, named by its link id
 * (graph.h: portbase + port). A dependency (c, q) says that some packet
 * arriving over channel c leaves the far switch by its port q. A cycle
 * among them is a credit loop on one VL: every buffer on it can fill and
 * wait for the next (IBA 7.9 flow control). Edges are stored as 32 bytes
 * per link id, bit q set for each port q used next.
 */
#ifndef IBSM_ROUTING_CDG_H
#define IBSM_ROUTING_CDG_H

#include <stdint.h>

#include "routing/graph.h"

struct cdg {
	const struct rgraph *g;
	uint8_t *bits;     /* the edges, 32 bytes per link id */
	uint8_t *forced;   /* edges added although they close a cycle */
	uint8_t *bad;      /* edges known to close a cycle */
	uint32_t *ord;     /* topological position per link id; NULL: none */
	uint32_t *chsw;    /* per link id: its switch */
	uint32_t *peer;    /* per link id: the far switch or RG_NONE */
	uint32_t *tbase;   /* per link id: the far switch's portbase (graph.h) */
	uint64_t *seen;    /* the search's channels, a bit each */
	uint32_t *fl, *bl, *stack, *pool;
	uint64_t *keys;
	int tried;         /* the order was made (or found impossible) */
	uint64_t work;     /* channels visited by the searches so far ... */
	uint64_t budget;   /* ... and how many they may: past it, no search */
	uint64_t unchecked;/* edges added unchecked, past the budget */
	/* the last search cdg_closes() made, if it found no cycle and nothing
	 * changed since: its edge and its channels (fl), for cdg_add() */
	int kept;
	uint32_t kc, knf;
	uint8_t kq;
};

void cdg_init(struct cdg *d, const struct rgraph *g);
void cdg_free(struct cdg *d);

/* Sets edge (c, q) without any check (the routes as they are). */
void cdg_set(struct cdg *d, uint32_t c, uint8_t q);

/* 1 if edge (c, q) is there already (forced ones included). */
int cdg_has(const struct cdg *d, uint32_t c, uint8_t q);

/*
 * 1 if adding (c, q) would close a cycle. The first call orders the
 * channels; if the edges set so far hold a cycle already, nothing can be
 * told and every answer is 0; so it is once the searches visited budget
 * channels (the caller sets it: 0 means no search at all).
 */
int cdg_closes(struct cdg *d, uint32_t c, uint8_t q);

/* Adds (c, q) keeping the order (Pearce and Kelly's dynamic topological
 * sort); forced: it closes a cycle, keep it apart from the order. */
void cdg_add(struct cdg *d, uint32_t c, uint8_t q, int forced);

/* 1 if the dependencies in bits (32 bytes per link id of g) hold a cycle. */
int cdg_cyclic(const struct rgraph *g, const uint8_t *bits);

#endif
