/*
 * DOC: adaptive-routing tables for (possibly degraded) fat trees, pure.
 *
 * From a topo and the static tables route_compute() made, ar_compute()
 * derives per switch an AR group table and an AR LFT:
 *  - one group id per destination leaf switch, the same on every switch
 *    (ids live in a caller-owned leaf-GUID map so they survive restarts;
 *    id 0 stays empty);
 *  - group (s, L) = every port of s that starts a minimal up*-then-down*
 *    path to leaf L (ranks = hop distance from the nearest leaf): all
 *    minimal up ports while L is not below s, the minimal down ports once
 *    it is, parallel links included; a port whose subtree lost its way
 *    down to L has no finite distance and drops out;
 *  - per LID: the leaf's group, Free or Bounded, DefaultPort = the static
 *    port, which must lie in the group; otherwise (the leaf's own hosts,
 *    single-port groups, switch LIDs of non-leaves, static port outside
 *    the group) the entry is Static with the static port.
 * ar_verify() walks every path the entries allow (all group ports, not
 * just the static one): no loop, no dead end, no channel-dependency cycle.
 * No I/O, no globals.
 */
#ifndef IBSM_ROUTING_AR_H
#define IBSM_ROUTING_AR_H

#include <stddef.h>
#include <stdint.h>

#include "ibsm/topo.h"
#include "routing/routing.h"

/* LidState values: the same numbers as the wire (mad/ar.h). */
enum ar_state {
	AR_STATE_BOUNDED = 0,
	AR_STATE_FREE = 1,
	AR_STATE_STATIC = 2,
};

/* Bit p of w[p / 64] = port p. */
struct ar_ports {
	uint64_t w[4];
};

static inline int ar_ports_has(const struct ar_ports *m, unsigned p)
{
	return p < 256 && ((m->w[p / 64] >> (p % 64)) & 1);
}

static inline void ar_ports_add(struct ar_ports *m, unsigned p)
{
	if (p < 256)
		m->w[p / 64] |= 1ull << (p % 64);
}

unsigned ar_ports_count(const struct ar_ports *m);

struct ar_entry {
	uint8_t state;      /* enum ar_state */
	uint8_t port;       /* DefaultPort (static route), LFT_NO_PORT = drop */
	uint16_t group;     /* 0 when Static */
};

/* Leaf switch GUID -> group id, owned by the caller (persisted). */
struct ar_leaf_id {
	uint64_t guid;
	uint16_t id;
};

struct ar_ids {
	size_t n, cap;
	struct ar_leaf_id *v;
	int changed;        /* set by ar_compute when it added an id */
};

void ar_ids_free(struct ar_ids *ids);
/* Id of guid, 0 if none. */
uint16_t ar_ids_find(const struct ar_ids *ids, uint64_t guid);
/* Adds guid with the lowest free id >= 1; returns it, 0 if all are used. */
uint16_t ar_ids_add(struct ar_ids *ids, uint64_t guid);

struct ar_sw_tables {
	struct ar_ports *groups;   /* group_top + 1 entries; [0] empty */
	struct ar_entry *lft;      /* top + 1 entries; NULL for non-switches */
	uint32_t nadaptive;        /* LIDs with an adaptive state */
};

struct ar_tables {
	uint32_t nnodes;           /* == topo.nnodes, same order */
	uint16_t top;              /* == route_tables.top */
	uint16_t group_top;        /* highest group id in use */
	uint32_t nleaves;
	uint32_t static_outside;   /* LIDs made Static: static port not in group */
	struct ar_sw_tables *sw;
	char why[256];
};

struct ar_opts {
	int bounded;               /* Bounded instead of Free */
};

/* Returns 0, or -1 with out->why set. Adds ids for new leaves to *ids. */
int ar_compute(const struct topo *t, const struct route_tables *rt, const struct ar_opts *o,
	       struct ar_ids *ids, struct ar_tables *out);
void ar_tables_free(struct ar_tables *at);

struct ar_verify {
	uint64_t dests;            /* destination LIDs checked */
	uint64_t visits;           /* (switch, dest) states explored */
	uint64_t loops;            /* destinations with a loop reachable */
	uint64_t dead_ends;        /* destinations with a dead end reachable */
	uint64_t cdg_channels;
	uint64_t cdg_edges;
	int cdg_cycle;
};

/* Returns 0, or -1 with err set when the tables do not fit the topo. */
int ar_verify(const struct topo *t, const struct ar_tables *at, struct ar_verify *v,
	      char *err, size_t errlen);
int ar_verify_ok(const struct ar_verify *v);

#endif
