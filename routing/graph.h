/*
 * DOC: routing's private view of a struct topo.
 *
 * Engines and the verifier never walk topo.nodes directly: they work on
 * switches sorted by node GUID, neighbour groups (all ports of a switch
 * that lead to the same peer switch, parallel links together) and hosts
 * (CA ports with a LID attached to a switch) sorted by leaf GUID and port.
 * That ordering is what makes every result independent of topo.nodes order.
 */
#ifndef IBSM_ROUTING_GRAPH_H
#define IBSM_ROUTING_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "ibsm/topo.h"

#define RG_NONE UINT32_MAX

struct rg_group {
	uint32_t peer;      /* switch index of the peer */
	uint32_t first;     /* first port number in rgraph.gports */
	uint16_t n;         /* parallel ports to that peer */
	uint8_t rport0;     /* port on the peer of the first link */
};

struct rg_sw {
	uint32_t node;      /* index into topo.nodes */
	uint32_t gfirst;    /* first group in rgraph.groups */
	uint32_t ngroups;
	uint32_t hfirst;    /* first host in rgraph.hosts */
	uint32_t nhosts;
	uint32_t portbase;  /* directed link id of port p = portbase + p */
	uint16_t lid;       /* port 0 LID, 0 if none */
	uint8_t nports;
};

struct rg_host {
	uint32_t node;      /* CA node */
	uint8_t port;       /* CA port */
	uint32_t sw;        /* switch the CA port is cabled to */
	uint8_t swport;     /* port on that switch */
	uint16_t lid;       /* base LID */
	uint16_t nlids;     /* 1 << lmc */
};

struct rgraph {
	const struct topo *t;
	uint32_t nsw;
	struct rg_sw *sw;
	struct rg_group *groups;
	uint32_t ngroups;
	uint8_t *gports;
	uint32_t *node2sw;   /* topo node -> switch index or RG_NONE */
	struct rg_host *hosts;
	uint32_t nhosts;
	uint32_t nlinks;     /* size of the directed link id space */
	uint32_t top;        /* highest LID in use */
	uint8_t *port2group; /* [portbase + p] -> group index within switch, 0xFF none */
};

/* Builds the view; returns 0 or -1 with err filled (bad LIDs etc.). */
int rg_build(struct rgraph *g, const struct topo *t, char *err, size_t errlen);
void rg_free(struct rgraph *g);

/* Peer of port p of switch s if it is a switch (symmetric link), else RG_NONE. */
uint32_t rg_port_peer_sw(const struct rgraph *g, uint32_t s, uint8_t p);

/* Bits set in v. __builtin_popcountll is a libgcc call unless the build
 * targets a CPU with POPCNT, which the x86-64 baseline does not have. */
static inline uint32_t rg_pop64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
	return (uint32_t)((v * 0x0101010101010101ull) >> 56);
}

static inline const struct rg_group *rg_group(const struct rgraph *g, uint32_t s, uint32_t k)
{
	return &g->groups[g->sw[s].gfirst + k];
}

/* Multi-source BFS over switch links; dist[] gets hops (UINT32_MAX if
 * unreached). queue needs nsw entries. Returns the largest distance. */
uint32_t rg_bfs(const struct rgraph *g, const uint32_t *src, uint32_t nsrc,
		uint32_t *dist, uint32_t *queue);

void *rg_xcalloc(size_t n, size_t sz);
void *rg_xmalloc(size_t n, size_t sz);

#endif
