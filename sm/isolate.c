/*
 * DOC: links isolated for their health (see isolate.h).
 *
 * The connectivity check counts the nodes reachable from the SM's node
 * over usable links, entering CAs but leaving only through switches (a CA
 * forwards nothing), once as the fabric is and once without the candidate
 * link: the link may go only when both counts are equal, so isolating it
 * cuts nobody off that was reachable.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "sm/isolate.h"
#include "sm/light.h"
#include "sm/sm.h"
#include "sm/sweep.h"

static bool port_usable(const struct sm_port *p)
{
	return p->have_pi && p->pi.port_state > TOPO_PORT_DOWN && !p->held;
}

/* A link the routing input would use, other than the one through skip. */
static bool link_usable(const struct sm_port *p, const struct sm_port *skip)
{
	const struct sm_port *q = p->peer;

	return q && p != skip && q != skip && port_usable(p) && port_usable(q);
}

/* Nodes reachable from the SM's node without skip's link. */
static uint32_t reach_count(const struct sm_fabric *f, const struct sm_port *skip)
{
	struct sm_node **queue = xcalloc(f->nnodes, sizeof(*queue));
	bool *seen = xcalloc(f->nnodes, sizeof(*seen));
	uint32_t head = 0, tail = 0;

	seen[f->sm_node->idx] = true;
	queue[tail++] = f->sm_node;
	while (head < tail) {
		const struct sm_node *n = queue[head++];

		if (n != f->sm_node && !node_is_switch(n))
			continue;
		for (unsigned k = 1; k <= n->ni.num_ports; k++) {
			const struct sm_port *p = &n->ports[k];

			if (!link_usable(p, skip) || seen[p->peer->node->idx])
				continue;
			seen[p->peer->node->idx] = true;
			queue[tail++] = p->peer->node;
		}
	}
	free(queue);
	free(seen);
	return tail;
}

static struct sm_isolated *find(const struct sm *sm, uint64_t guid, uint8_t port)
{
	for (size_t i = 0; i < sm->nisolated; i++) {
		struct sm_isolated *x = &sm->isolated[i];

		if ((x->guid == guid && x->port == port) ||
		    (x->peer_guid == guid && x->peer_port == port))
			return x;
	}
	return NULL;
}

bool sm_port_isolated(const struct sm *sm, const struct sm_port *p)
{
	return find(sm, p->node->guid, p->num) != NULL;
}

/* A link that may never go (none, or one that would cut someone off) is
 * refused for that before the limit is looked at: "the limit is reached"
 * would tell the operator it goes once another comes back, and which of
 * the two a port heard would depend on the order the PM read them in. */
static int check(const struct sm *sm, const struct sm_port *p)
{
	const struct sm_fabric *f = sm->fabric;

	if (find(sm, p->node->guid, p->num))
		return -EALREADY;
	if (!sm_may_write(sm) || !f || !f->sm_node)
		return -EPERM;
	if (!link_usable(p, NULL))
		return -ENOLINK;
	if (reach_count(f, p) != reach_count(f, NULL))
		return -EHOSTUNREACH;
	if (sm->nisolated >= sm->conf.health_isolate_max)
		return -ENOSPC;
	return 0;
}

static void hold(struct sm *sm, const struct sm_isolated *x, bool on)
{
	const struct sm_node *a = fabric_find(sm->fabric, x->guid);
	const struct sm_node *b = fabric_find(sm->fabric, x->peer_guid);

	if (a && x->port <= a->ni.num_ports)
		a->ports[x->port].held = on;
	if (b && x->peer_port <= b->ni.num_ports)
		b->ports[x->peer_port].held = on;
}

int sm_isolate(struct sm *sm, const struct sm_port *p, const char *reason)
{
	struct sm_isolated *x;
	int rc = check(sm, p);

	if (rc < 0)
		return rc;
	sm->isolated = xrealloc(sm->isolated, (sm->nisolated + 1) * sizeof(*sm->isolated));
	x = &sm->isolated[sm->nisolated++];
	memset(x, 0, sizeof(*x));
	x->guid = p->node->guid;
	x->port = p->num;
	x->peer_guid = p->peer->node->guid;
	x->peer_port = p->peer->num;
	x->since_ms = x->bad_ms = clock_ms();
	snprintf(x->reason, sizeof(x->reason), "%s", reason);
	log_notice("isolating link %016llx \"%s\" port %u <-> %016llx \"%s\" port %u (%s): "
		   "routing around it", (unsigned long long)x->guid, p->node->desc, x->port,
		   (unsigned long long)x->peer_guid, p->peer->node->desc, x->peer_port, reason);
	hold(sm, x, true);
	sm_reroute_request(sm);
	return 0;
}

void sm_deisolate(struct sm *sm, size_t i, const char *why)
{
	struct sm_isolated x;

	if (i >= sm->nisolated)
		return;
	x = sm->isolated[i];
	memmove(&sm->isolated[i], &sm->isolated[i + 1],
		(sm->nisolated - i - 1) * sizeof(*sm->isolated));
	sm->nisolated--;
	log_notice("routing over link %016llx port %u <-> %016llx port %u again: %s",
		   (unsigned long long)x.guid, x.port, (unsigned long long)x.peer_guid,
		   x.peer_port, why);
	if (!sm->fabric)
		return;
	hold(sm, &x, false);
	/* a port also in its flap hold-down stays held */
	sm_apply_holddown(sm);
	sm_reroute_request(sm);
}

void sm_isolate_forget(struct sm *sm)
{
	if (sm->nisolated)
		log_notice("forgetting %zu isolated link(s): not master", sm->nisolated);
	sm->nisolated = 0;
}

size_t sm_isolated_count(const struct sm *sm)
{
	return sm->nisolated;
}

struct sm_isolated *sm_isolated_at(struct sm *sm, size_t i)
{
	return i < sm->nisolated ? &sm->isolated[i] : NULL;
}

void sm_isolate_free(struct sm *sm)
{
	free(sm->isolated);
	sm->isolated = NULL;
	sm->nisolated = 0;
}
