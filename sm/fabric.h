/*
 * DOC: the daemon's fabric model, one generation per heavy sweep.
 *
 * struct sm_fabric owns every node and port found by a sweep. Nodes are
 * found by GUID through a hash table and kept in discovery order in an array;
 * each node records the shortest directed-route path from the SM port
 * (recomputed by BFS once discovery is complete, because responses arrive in
 * any order). Ports point at their peer port. routing/ never sees this: it
 * gets an immutable struct topo built by fabric_to_topo().
 */
#ifndef IBSM_SM_FABRIC_H
#define IBSM_SM_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "ibsm/topo.h"
#include "mad/smp.h"

struct sm_node;

enum lft_block_state {
	LFT_UNKNOWN = 0,      /* never read nor written */
	LFT_KNOWN = 1,        /* lft holds what the switch holds */
	LFT_READ_FAILED = 2,  /* this sweep's read failed: leave it alone */
	LFT_DRIFTED = 3,      /* lft holds what the switch holds, read back other
				 than we knew it: changed behind our back */
};

struct sm_port {
	struct sm_node *node;
	uint8_t num;
	struct sm_port *peer;      /* linked port, NULL if none seen */
	uint64_t guid;             /* port GUID (from NodeInfo) */
	bool have_pi;
	struct smp_port_info pi;   /* as last read */
	uint16_t lid;              /* the LID we assign (base), 0 none */
	unsigned pi_ignored;       /* PortInfo fields this port does not take */
	bool held;                 /* flapping: kept out of routing for now */
	/* What this sweep could not learn (discover.c), and what was carried
	 * over from the last sweep because of it (carry.c). */
	bool pi_failed;            /* its PortInfo Get failed */
	bool peer_unknown;         /* NodeInfo through it failed */
	bool stale;                /* pi is from an earlier sweep, not read now */
	bool dup_guid;             /* another port claims its GUID: left out */
	bool probed;               /* its link was found by a query through it */
};

struct sm_node {
	uint64_t guid;
	uint32_t idx;              /* position in fabric.nodes */
	struct smp_node_info ni;
	char desc[65];
	bool have_desc;
	bool have_si;
	struct smp_switch_info si;
	uint8_t hop_cnt;
	uint8_t path[64];          /* DR path, path[1..hop_cnt] */
	bool reachable;            /* a DR path over links that are up exists */
	struct sm_port *ports;     /* ni.num_ports + 1 entries */
	struct sm_node *hnext;     /* GUID hash chain */
	bool dup_guid;             /* a different node claimed this GUID */
	bool stale;                /* did not answer this sweep: as last seen */
	unsigned stale_sweeps;     /* heavy sweeps in a row it did not answer */
	bool drop;                 /* to be removed (fabric_remove_dropped) */
	uint64_t via_guid;         /* where discovery first found it: node ... */
	uint8_t via_port;          /* ... and port (0, 0: the SM node) */
	uint8_t via_local;         /* the port it answered on */
	/* LFT as read back from the switch (NULL until read), and which
	 * 64-entry blocks are known (enum lft_block_state). */
	uint8_t *lft;
	uint8_t *lft_known;
	unsigned lft_blocks;
};

/* Two nodes (or two ports) that answer with one GUID, and where. */
struct sm_where {
	uint64_t via;              /* node GUID the query went through, 0 local */
	uint8_t via_port, local_port;
	char via_desc[65];
};

struct sm_conflict {
	uint64_t guid;
	bool port;                 /* a port GUID; else a node GUID */
	struct sm_where known, other;   /* other: the first place that clashed */
	unsigned claims;           /* places that clashed with known */
};

#define SM_MAX_CONFLICTS 32

struct sm_fabric {
	struct sm_node **nodes;
	uint32_t nnodes, cap;
	struct sm_node **hash;
	uint32_t hash_size;
	struct sm_node *sm_node;   /* the node we run on */
	uint8_t sm_port_num;
	uint32_t nswitches, ncas;
	uint32_t nlinks;
	uint32_t dup_guids;        /* GUIDs claimed by more than one node or port */
	struct sm_conflict conflicts[SM_MAX_CONFLICTS];   /* the first ones */
	uint32_t nconflicts;
};

struct sm_fabric *fabric_new(void);
void fabric_free(struct sm_fabric *f);
struct sm_node *fabric_find(const struct sm_fabric *f, uint64_t guid);
/* Adds a node from its NodeInfo; the caller checks fabric_find first. */
struct sm_node *fabric_add(struct sm_fabric *f, const struct smp_node_info *ni);
/* Links a:pa with b:pb. Returns 0, or -1 if either end is already linked
 * elsewhere (a conflict: the caller reports it). Linking the same pair again
 * is a no-op. */
int fabric_link(struct sm_fabric *f, struct sm_node *a, uint8_t pa, struct sm_node *b, uint8_t pb);
/* Hands what switch `from` knows of its LFT to `to` (same switch, next
 * generation); from keeps none. */
void fabric_move_lft(struct sm_node *to, struct sm_node *from);
/* Unlinks p from its peer (both ends). */
void fabric_unlink(struct sm_fabric *f, struct sm_port *p);
/* Removes the nodes marked drop (unlinking them first), keeping order. */
void fabric_remove_dropped(struct sm_fabric *f);
/* Records a GUID conflict: one entry per GUID (the first SM_MAX_CONFLICTS
 * GUIDs), counting further clashes with it. */
void fabric_note_conflict(struct sm_fabric *f, const struct sm_conflict *c);
/* Recomputes every node's shortest DR path by BFS from the SM node. */
void fabric_shortest_paths(struct sm_fabric *f);
static inline bool node_is_switch(const struct sm_node *n)
{
	return n->ni.node_type == TOPO_SWITCH;
}
/* We may configure n this sweep: it answered, and a path over links that
 * are up leads to it. (A stale node is read, never written.) */
static inline bool node_usable(const struct sm_node *n)
{
	return n->reachable && !n->stale;
}
/* Port whose GUID is guid (CA ports, switch port 0), or NULL. */
struct sm_port *fabric_find_port(const struct sm_fabric *f, uint64_t port_guid);

/* The fabric's ports by GUID, for many lookups while the fabric does not
 * change (fabric_find_port scans every port: once per member, a 648-host
 * join storm's multicast batch took ms). Sorted by GUID, then in fabric
 * order, so the port found for a duplicated GUID is fabric_find_port's. */
struct fabric_port_index {
	struct sm_port **p;
	size_t n;
};
void fabric_port_index_build(const struct sm_fabric *f, struct fabric_port_index *ix);
const struct sm_port *fabric_port_index_find(const struct fabric_port_index *ix, uint64_t guid);
void fabric_port_index_free(struct fabric_port_index *ix);
/* Has the port with this GUID left the fabric, for certain (unknown is
 * not gone)? Missing after a clean sweep (every node that was there
 * answered, and what no link leads to any more is gone), or read this
 * sweep, not the SM's own port, and Down or without a link. A port or
 * node kept as last seen (stale) has not left. */
bool fabric_port_departed(const struct sm_fabric *f, const struct fabric_port_index *ix,
			  uint64_t guid, bool clean);

/* An immutable copy for routing. Ports count as linked only when both ends
 * are not Down. LIDs come from sm_port.lid. */
struct topo *fabric_to_topo(const struct sm_fabric *f);
void fabric_topo_free(struct topo *t);

const char *port_width_name(uint8_t w);     /* "4x" */
const char *port_speed_name(const struct smp_port_info *pi);   /* "QDR", "EDR" */

/* Writes the fabric in ibnetdiscover's text format. 0 or -errno. */
int fabric_dump_ibnet(const struct sm_fabric *f, const char *path);
struct route_tables;
/* Writes every switch's computed LFT in ibroute's format. 0 or -errno. */
int fabric_dump_lfts(const struct sm_fabric *f, const struct route_tables *rt, const char *path);

#endif
