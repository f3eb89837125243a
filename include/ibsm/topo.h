/*
 * DOC: the immutable fabric model that routing works on.
 *
 * The daemon builds a struct topo from what discovery found (a snapshot),
 * the offline tool builds one from a topology file. routing/ only ever sees
 * a const struct topo, so its results depend on nothing else.
 *
 * Node order in nodes[] is arbitrary (discovery order, file order): routing
 * must not let it influence results, it orders by GUID where order matters.
 */
#ifndef IBSM_TOPO_H
#define IBSM_TOPO_H

#include <stddef.h>
#include <stdint.h>

#define TOPO_NONE UINT32_MAX   /* no peer node */
#define TOPO_MAX_PORTS 254     /* IBA: NumPorts is 8 bits, 255 reserved */
#define TOPO_MAX_UCAST_LID 0xBFFF

enum topo_node_type {
	TOPO_CA = 1,
	TOPO_SWITCH = 2,
	TOPO_ROUTER = 3,
};

/* IBA PortInfo:PortState values. */
enum topo_port_state {
	TOPO_PORT_NOCHANGE = 0,
	TOPO_PORT_DOWN = 1,
	TOPO_PORT_INIT = 2,
	TOPO_PORT_ARMED = 3,
	TOPO_PORT_ACTIVE = 4,
};

struct topo_port {
	uint32_t peer_node;  /* index into topo.nodes, TOPO_NONE if not linked */
	uint8_t peer_port;   /* port number on the peer */
	uint8_t state;       /* enum topo_port_state */
	uint8_t width;       /* LinkWidthActive (IBA encoding), 0 unknown */
	uint8_t speed;       /* LinkSpeedActive (IBA encoding), 0 unknown */
	uint64_t guid;       /* port GUID; switches: the same for all ports */
	uint16_t lid;        /* base LID: CA ports, and port 0 of switches */
	uint8_t lmc;
};

struct topo_node {
	uint64_t guid;            /* node GUID */
	uint8_t type;             /* enum topo_node_type */
	uint8_t nports;           /* physical ports, numbered 1..nports */
	char desc[65];            /* NodeDescription, NUL-terminated */
	struct topo_port *ports;  /* nports + 1 entries; [0] is switch port 0 */
};

struct topo {
	uint32_t nnodes;
	struct topo_node *nodes;
};

/* A peer link is usable for routing when both ends see it (any state but
 * Down) -- the caller decides what it puts into topo.ports[].peer_node. */
static inline int topo_port_linked(const struct topo_port *p)
{
	return p->peer_node != TOPO_NONE;
}

#endif
