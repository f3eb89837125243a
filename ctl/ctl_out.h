/*
 * DOC: building blocks of the control commands' JSON replies, so that a
 * GUID or a node type reads the same in every command.
 */
#ifndef IBSMD_CTL_OUT_H
#define IBSMD_CTL_OUT_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "ibsm/topo.h"

#define ADD(o, k, v) json_object_object_add((o), (k), (v))
#define JINT(v) json_object_new_int64((int64_t)(v))
#define JSTR(v) json_object_new_string(v)

/* "0x0002c90300000001" */
static inline json_object *jguid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)g);
	return json_object_new_string(buf);
}

/* NodeInfo:NodeType as the replies name it. */
static inline const char *node_type_name(uint8_t t)
{
	switch (t) {
	case TOPO_CA: return "ca";
	case TOPO_SWITCH: return "switch";
	case TOPO_ROUTER: return "router";
	default: return "unknown";
	}
}

#endif
