/*
 * DOC: the immutable snapshot of the fabric after the last complete sweep.
 *
 * Everything that answers questions about the fabric without sending an
 * SMP reads a snapshot, never the SM's working state: the SA (sa/), the
 * control socket's large replies (ctl/), later the performance manager. A
 * running sweep therefore never blocks or changes an answer, and an answer
 * never waits for a sweep. A new snapshot is published at the end of every
 * heavy sweep and reroute (sm/snap_build.h); readers that hold one across
 * loop turns take a reference.
 *
 * Contents: every node (NodeInfo, NodeDescription, SwitchInfo), every port
 * (PortInfo as last read or programmed, link, LID range), O(1) lookups by
 * LID and by port GUID, and the unicast tables the switches were given
 * (shared with the SM, never copied; the snapshot takes them over when the
 * SM replaces them).
 */
#ifndef IBSM_FABRIC_SNAP_H
#define IBSM_FABRIC_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"
#include "routing/routing.h"
#include "fabric/pkeyset.h"

#define SNAP_NONE UINT32_MAX

struct snap_port {
	uint32_t node;            /* index into snap.nodes */
	uint8_t num;
	uint8_t peer_port;
	uint32_t peer;            /* port index of the linked port, SNAP_NONE */
	uint64_t guid;            /* CA ports and switch port 0; else 0 */
	uint16_t lid;             /* base LID of a LID-holding port, else 0 */
	uint8_t lmc;
	uint32_t pkey_first;      /* its P_Keys: snap.pkeys[pkey_first..+npkeys] */
	uint16_t npkeys;          /* (CA ports and switch port 0; sm/pkey.c) */
	bool have_pi;
	bool stale;               /* PortInfo from an earlier sweep */
	struct smp_port_info pi;
};

struct snap_node {
	uint64_t guid;
	struct smp_node_info ni;
	char desc[65];
	bool is_switch;
	bool have_si;
	bool stale;               /* did not answer the last sweep */
	struct smp_switch_info si;
	uint32_t port0;           /* its port p is snap.ports[port0 + p] */
	uint8_t nports;
};

struct snap_guid {
	uint64_t guid;
	uint32_t port;            /* port index */
};

struct sm_snap {
	unsigned refs;
	uint64_t sweep;           /* the sweep (or reroute) it follows */
	uint64_t subnet_prefix;
	uint16_t sm_lid;
	uint64_t sm_port_guid;
	uint8_t subnet_timeout;
	uint32_t nnodes, nports;
	struct snap_node *nodes;
	struct snap_port *ports;
	uint16_t top;             /* highest unicast LID in use */
	uint32_t *by_lid;         /* [0..top]: port holding that LID, SNAP_NONE */
	struct snap_guid *by_guid;    /* port GUIDs, sorted */
	uint32_t nguids;
	struct snap_guid *by_node;    /* node GUIDs -> node index, sorted */
	/* The unicast tables (same node order as nodes[]); NULL when routing
	 * failed. Shared with the SM and other snapshots (rt_hold counts). */
	const struct route_tables *rt;
	struct rt_hold *rt_hold;
	uint16_t *pkeys;          /* P_Key tables of the ports, see snap_port */
	/* Partitions as paths use them (sm/snap_build.c). Without them
	 * (have_parts false: a snapshot built by a test) every port is a full
	 * member of the default partition and every SL is usable. */
	bool have_parts;
	uint16_t sl_ok;           /* bit s: SL s reaches no VL15 anywhere (QoS) */
	uint32_t nparts;
	struct snap_part *parts;  /* sorted by P_Key */
};

/* A partition: the SL its paths get when none is asked for, -1 when
 * every SL is dropped somewhere. */
struct snap_part {
	uint16_t pkey;            /* low 15 bits */
	int8_t sl;
};

/* Unicast tables shared by the SM and snapshots, freed with the last. */
struct rt_hold {
	unsigned refs;
	struct route_tables t;
};
/* Drops one reference; the last frees the tables. */
void rt_hold_put(struct rt_hold *h);

/* Another reference to s; dropping the last frees it. */
struct sm_snap *sm_snap_ref(const struct sm_snap *s);
void sm_snap_unref(struct sm_snap *s);

/* For snapshots built without an SM (unit tests, benchmarks, fuzzing):
 * snap_new() allocates zeroed nodes[] and ports[] with one reference;
 * the caller fills them (and sweep, subnet_prefix, sm_lid, rt ...), then
 * snap_index() builds the LID map and the GUID indices. rt_hold stays
 * NULL: the caller keeps any tables it points rt at alive. */
struct sm_snap *snap_new(uint32_t nnodes, uint32_t nports);
void snap_index(struct sm_snap *s);

/* Lookups, all O(1) or O(log n). */
const struct snap_port *snap_port_by_lid(const struct sm_snap *s, uint16_t lid);
const struct snap_port *snap_port_by_guid(const struct sm_snap *s, uint64_t port_guid);
const struct snap_node *snap_node_by_guid(const struct sm_snap *s, uint64_t node_guid);
static inline const struct snap_node *snap_node_of(const struct sm_snap *s,
						   const struct snap_port *p)
{
	return &s->nodes[p->node];
}
static inline const struct snap_port *snap_port(const struct sm_snap *s, const struct snap_node *n,
					       unsigned num)
{
	return &s->ports[n->port0 + num];
}
/* The port a LID-holding port p is linked to (the switch port of a CA), or
 * NULL. */
const struct snap_port *snap_peer(const struct sm_snap *s, const struct snap_port *p);

/* The P_Key table the SM gives p (a CA port or switch port 0; empty for
 * other ports), in table order without empty entries (sm/pkey.c). */
static inline const uint16_t *snap_port_pkeys(const struct sm_snap *s, const struct snap_port *p,
					      size_t *n)
{
	*n = p->npkeys;
	return p->npkeys ? s->pkeys + p->pkey_first : NULL;
}

/* Whether a and b may talk in partition base(want) (want 0: in any): both
 * hold it and at least one is a full member (IBA 10.9;
 * the SA hides the records of ports that share no partition with the
 * requester). *pkey (may be NULL) gets a's P_Key of the first such partition
 * in a's table order: the one a PathRecord from a to b carries. */
static inline bool snap_share_pkey(const struct sm_snap *s, const struct snap_port *a,
				   const struct snap_port *b, uint16_t want, uint16_t *pkey)
{
	size_t na, nb;
	const uint16_t *ta = snap_port_pkeys(s, a, &na), *tb = snap_port_pkeys(s, b, &nb);

	return pkey_share(ta, na, tb, nb, want, pkey);
}

#endif
