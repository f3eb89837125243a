/*
 * DOC: immutable flat copies of the fabric for streamed replies
 * (ctl/ctl_view.c), and the JSON of nodes, ports and links.
 *
 * "nodes", "ports" and "links" replies are written a chunk at a time over
 * many loop turns, while the SM replaces sm->fabric on every heavy sweep
 * and edits ports in place between sweeps. So a streamed reply reads a
 * view: a copy of what those replies show, taken when the request is
 * read, with no pointer into the fabric, and reference-counted so that
 * requests that see the same fabric share one copy.
 *
 * Item JSON is built here only, for views and (ctl_node_json) for live
 * nodes in the other replies, so both print a node the same way.
 */
#ifndef IBSM_CTL_VIEW_H
#define IBSM_CTL_VIEW_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm_fabric;
struct sm_node;
struct sm_port;
struct ctl_view;

enum ctl_view_list {
	CTL_VIEW_NODES,   /* item i: node i */
	CTL_VIEW_PORTS,   /* item i: port i (node by node, port 1 first) */
	CTL_VIEW_LINKS,   /* item i: the link of port i, from the end that sorts first */
};

/* A new view of f with one reference. */
struct ctl_view *ctl_view_take(const struct sm_fabric *f);
/* True when a and b show the same thing (so one can stand for both). */
bool ctl_view_same(const struct ctl_view *a, const struct ctl_view *b);
struct ctl_view *ctl_view_ref(struct ctl_view *v);
void ctl_view_unref(struct ctl_view *v);
/* True when the caller's reference is the only one. */
bool ctl_view_alone(const struct ctl_view *v);
/* Heap bytes the view holds. */
size_t ctl_view_bytes(const struct ctl_view *v);
/* For counting views once: true the first time it is called with epoch. */
bool ctl_view_mark(struct ctl_view *v, unsigned epoch);

/* Positions in list l: items are at 0..count-1, but some positions of
 * CTL_VIEW_LINKS are no item (an unlinked port, a link's other end). */
size_t ctl_view_count(const struct ctl_view *v, enum ctl_view_list l);
/* The JSON of item i (new reference), or NULL when i is no item. */
json_object *ctl_view_item(const struct ctl_view *v, enum ctl_view_list l, size_t i);
/* Positions of node idx's ports in CTL_VIEW_PORTS: [*first, *end). */
void ctl_view_node_ports(const struct ctl_view *v, uint32_t idx, size_t *first, size_t *end);

/* The same node JSON for a node of the live fabric. */
json_object *ctl_node_json(const struct sm_node *n);
/* The LID of a port (assigned, else as read), and a node's: a switch's at
 * port 0, a CA's at its first port that has one. */
uint16_t ctl_port_lid(const struct sm_port *p);
uint16_t ctl_node_lid(const struct sm_node *n);

#endif
