/*
 * DOC: routing engine interface.
 *
 * Pure functions from a const struct topo to linear forwarding tables.
 * No I/O, no globals: the daemon and ibsm-route call the same code, and the
 * same input gives byte-identical output.
 */
#ifndef IBSM_ROUTING_H
#define IBSM_ROUTING_H

#include <stddef.h>
#include <stdint.h>

#include "ibsm/topo.h"

#define LFT_NO_PORT 0xFF /* IBA: 255 = drop */

struct route_lft {
	uint8_t *ports; /* indexed by LID, 0..tables.top; NULL for non-switches */
};

struct route_tables {
	uint32_t nnodes;        /* == topo.nnodes */
	uint16_t top;           /* highest LID routed (SwitchInfo LinearFDBTop) */
	struct route_lft *lft;  /* nnodes entries, same order as topo.nodes */
	char engine[16];        /* engine that produced the tables */
	char why[512];          /* why this engine (auto choice, fallback, balance) */
};

struct route_opts {
	const char *engine;          /* "auto" (default when NULL), "minhop", "updn", "ftree" */
	const uint64_t *root_guids;  /* updn/ftree root override, may be NULL */
	size_t nroots;
	/* Largest array of shift counters (a byte per shift and link) balance
	 * may use on a degraded fat tree; 0: 64 MiB. Above it, it counts one
	 * upper component of the tree at a time. */
	uint64_t balance_bytes;
	/* Threads the engine may use (par.h: the tables do not depend on it);
	 * 0: ROUTE_THREADS. */
	unsigned threads;
	/* Table cells (switches x LIDs) from which plane routing chooses the
	 * leaves' planes, and reach.c fills switches' own routes, in two halves
	 * side by side; 0: 64 Mi, radix-48 3-level trees and larger. */
	uint64_t split_cells;
	/* 1: plane routing counts the middle switches' extras a byte each
	 * from the start, not four bits (the tables are the same either way;
	 * for tests) */
	int planes_bytes;
};

#define ROUTE_THREADS 2

/* Returns 0, or -1 with out->why saying what went wrong. */
int route_compute(const struct topo *t, const struct route_opts *o, struct route_tables *out);
void route_tables_free(struct route_tables *rt);

/* Names of the engines, NULL-terminated, for option validation and help. */
extern const char *const route_engine_names[];

#endif
