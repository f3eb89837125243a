/*
 * DOC: checking a set of LFTs against the fabric they are meant for.
 *
 * Pure: takes a const topo and route_tables, fills a result struct, and
 * formats it into a caller's buffer (text or JSON); no I/O.
 *
 * Pairs are CA port -> CA port base LID, both attached to switches, source
 * != destination. Lower bounds are those of the routing issue: for every
 * switch, the routes that must leave it divided by its usable switch links,
 * rounded up; the bound is the largest of those. Shifts also get the pair
 * bound of pairbound.h, which every shortest-path routing must meet.
 * Switch pairs are every (switch, assigned LID) pair of one connected part
 * (reach.h): a switch's own replies and traps must arrive too.
 */
#ifndef IBSM_ROUTING_VERIFY_H
#define IBSM_ROUTING_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "ibsm/topo.h"
#include "routing/routing.h"

#define VERIFY_SHIFT_SAMPLES 1000/* above this many shifts, sample this many */
#define VERIFY_SHIFT_RUN 8       /* sampled in runs of this many neighbours */
_Static_assert(VERIFY_SHIFT_SAMPLES % VERIFY_SHIFT_RUN == 0, "whole runs of shifts");

/* Shift i of the k tried out of total (k <= total): all of them (k ==
 * total), or runs of VERIFY_SHIFT_RUN neighbouring shifts spread evenly.
 * Neighbouring shifts send from hosts of one leaf to the same destinations
 * along the same paths, so the count walks each of those paths once. */
static inline uint32_t verify_shift_at(uint32_t i, uint32_t k, uint32_t total)
{
	uint32_t runs = k / VERIFY_SHIFT_RUN;

	if (k == total || !runs)
		return 1 + i;
	return 1 + (uint32_t)((uint64_t)(i / VERIFY_SHIFT_RUN) * total / runs) + i % VERIFY_SHIFT_RUN;
}

struct route_verify {
	uint32_t nhosts;
	uint32_t nswitches;
	uint64_t pairs;
	uint64_t unreachable;    /* a hop has no entry (LFT_NO_PORT) */
	uint64_t looping;        /* path revisits a switch */
	uint64_t dead_port;      /* entry points at a port going nowhere useful */
	uint64_t dead_entries;   /* LFT entries (any LID, on or off a path) that
				    point at a port without a link: must be 0xFF */
	uint64_t sw_pairs;       /* (switch, assigned LID) pairs, CA and switch LIDs */
	uint64_t sw_unrouted;    /* of those, following the LFTs from the switch
				    does not arrive (replies, traps are dropped) */
	int sw_cdg_cycle;        /* 1: every switch's routes to CA LIDs (not only
				    hosts') close a credit loop on one VL */
	uint32_t max_hops;       /* switch-to-switch hops of the longest path */
	uint32_t max_stretch;    /* largest hops - shortest possible */
	uint64_t nonminimal;     /* pairs whose path is longer than shortest */
	int cdg_cycle;           /* 1: credit-loop risk on one VL */
	uint64_t cdg_channels;   /* channels that carry at least one route */
	uint64_t cdg_edges;
	uint64_t a2a_max;        /* busiest directed switch link, all-to-all */
	uint64_t a2a_bound;
	uint64_t a2a_max_guid;   /* switch and port of the busiest link */
	uint8_t a2a_max_port;
	uint32_t shift_max;      /* worst busiest link over the shifts tried */
	uint32_t shift_max_at;   /* the shift that produced it */
	uint32_t shift_bound;    /* largest per-shift bound */
	int32_t shift_excess;    /* largest (busiest - bound) over the shifts */
	uint32_t shift_pbound;   /* largest per-shift max(bound, pair bound) */
	int32_t shift_pexcess;   /* largest (busiest - that) over the shifts */
	uint32_t shifts_forced;  /* shifts tried whose pair bound passes bound + 1:
				    no shortest-path routing keeps them within it */
	int32_t shift_fexcess;   /* largest (busiest - bound) over the other shifts */
	uint64_t shift_worst_guid; /* switch and port of that busiest link */
	uint8_t shift_worst_port;
	uint32_t shifts_tried;
	int shifts_sampled;      /* 1 if not every shift was tried */
};

/* Returns 0, or -1 with err set (tables do not match the topo). Runs on
 * VERIFY_THREADS threads (par.h: the same result on any number). */
int route_verify(const struct topo *t, const struct route_tables *rt,
		 struct route_verify *v, char *err, size_t errlen);
#define VERIFY_THREADS 2
/* route_verify() on at most threads threads (1: the caller's alone). */
int route_verify_threads(const struct topo *t, const struct route_tables *rt,
			 struct route_verify *v, char *err, size_t errlen, unsigned threads);

/* Formats v into buf (always NUL-terminated); returns the length needed. */
size_t route_verify_format(const struct route_verify *v, int json, char *buf, size_t len);

/* 1 if every pair is routed, loop-free, no entry points at a dead port, no
 * CDG cycle, and every switch reaches every LID of its part of the fabric. */
int route_verify_ok(const struct route_verify *v);

#endif
