/*
 * DOC: PortInfo:ClientReregister, once per mastership (see sm.h).
 *
 * IBA 14.2.5.6: a Set of PortInfo with ClientReregister 1 tells the
 * port's clients that the SA may have lost what they registered; they
 * join their multicast groups and subscribe again (the kernel's ib_sa
 * turns it into IB_EVENT_CLIENT_REREGISTER for IPoIB and RDMA CM). The
 * bit is not stored: a Get reads 0, or whatever the port keeps, so it is
 * sent only with a request, never derived from a read.
 *
 * A request puts every CA port of the fabric on a list at the next
 * PortInfo phase; a port leaves the list when a Set carrying the bit was
 * answered. A port that did not answer (or whose Set failed) stays on
 * it, and later sweeps try it again while we are master; a new request
 * starts a new list. Every CA port gets the bit, whether or not its
 * CapabilityMask has bit 25 (IsClientReregistrationSupported): a port
 * without it ignores the bit, and ibsim's CAs, for one, do not advertise
 * it.
 */
#include "config.h"

#include <stdlib.h>

#include "sm/log.h"
#include "sm/porttab.h"
#include "sm/sm.h"

struct rereg_port {
	struct porttab_key key;   /* node GUID, port number */
	bool todo;
};

struct sm_rereg {
	bool requested;
	struct porttab ports;
	size_t todo, sent, done;
};

static struct sm_rereg *rr(struct sm *sm)
{
	if (!sm->rereg) {
		sm->rereg = xcalloc(1, sizeof(*sm->rereg));
		porttab_init(&sm->rereg->ports, sizeof(struct rereg_port));
	}
	return sm->rereg;
}

void sm_rereg_request(struct sm *sm, bool want)
{
	struct sm_rereg *r = rr(sm);

	porttab_free(&r->ports);
	porttab_init(&r->ports, sizeof(struct rereg_port));
	r->requested = want;
	r->todo = r->sent = r->done = 0;
}

static bool is_ca_port(const struct sm_port *p)
{
	return !node_is_switch(p->node) && p->num && p->guid;
}

static void list_all(struct sm *sm, struct sm_rereg *r)
{
	const struct sm_fabric *f = sm->fabric;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		for (unsigned k = 1; !node_is_switch(n) && k <= n->ni.num_ports; k++) {
			struct rereg_port *e;

			if (!is_ca_port(&n->ports[k]))
				continue;
			e = porttab_get(&r->ports, n->guid, (uint8_t)k);
			if (!e->todo)
				r->todo++;
			e->todo = true;
		}
	}
}

void sm_rereg_phase(struct sm *sm)
{
	struct sm_rereg *r = sm->rereg;

	if (!r || !r->requested)
		return;
	r->requested = false;
	list_all(sm, r);
	log_notice("setting ClientReregister on %zu CA ports: their clients join and subscribe "
		   "again", r->todo);
}

bool sm_rereg_wanted(const struct sm *sm, const struct sm_port *p)
{
	const struct rereg_port *e;

	if (!sm->rereg || !sm->rereg->todo || !is_ca_port(p) || !p->lid)
		return false;
	e = porttab_find(&sm->rereg->ports, p->node->guid, p->num);
	return e && e->todo;
}

void sm_rereg_result(struct sm *sm, const struct sm_port *p, bool ok)
{
	struct sm_rereg *r = sm->rereg;
	struct rereg_port *e = r ? porttab_find(&r->ports, p->node->guid, p->num) : NULL;

	if (!e || !e->todo)
		return;
	r->sent++;
	if (!ok)
		return;
	e->todo = false;
	r->todo--;
	if (++r->done % 1024 == 0 || !r->todo)
		log_info("ClientReregister: %zu CA ports told, %zu left", r->done, r->todo);
}

size_t sm_rereg_pending(const struct sm *sm)
{
	return sm->rereg ? sm->rereg->todo + sm->rereg->requested : 0;
}

void sm_rereg_free(struct sm *sm)
{
	if (!sm->rereg)
		return;
	porttab_free(&sm->rereg->ports);
	free(sm->rereg);
	sm->rereg = NULL;
}
