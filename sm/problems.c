/*
 * DOC: the subnet's problem list (see problems.h), walked from the
 * fabric of the last sweep into a sink that either keeps the entries or
 * only hashes them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sm/isolate.h"
#include "sm/problems.h"
#include "sm/sm.h"

struct sink {
	struct sm_problem *out;
	size_t max, n;
	size_t degrading;     /* of n, those that are not warnings */
	uint64_t digest;
};

static void mix(uint64_t *h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		*h = (*h ^ (v & 0xff)) * 0x100000001b3ull;
}

static void vadd(struct sink *s, const char *kind, uint64_t guid, uint8_t port, bool warning,
		 const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
static void vadd(struct sink *s, const char *kind, uint64_t guid, uint8_t port, bool warning,
		 const char *fmt, va_list ap)
{
	for (const char *k = kind; *k; k++)
		mix(&s->digest, (uint8_t)*k);
	mix(&s->digest, guid);
	mix(&s->digest, port);
	if (s->n < s->max) {
		struct sm_problem *p = &s->out[s->n];

		p->kind = kind;
		p->guid = guid;
		p->port = port;
		p->warning = warning;
		vsnprintf(p->text, sizeof(p->text), fmt, ap);
	}
	s->n++;
	s->degrading += !warning;
}

static void add(struct sink *s, const char *kind, uint64_t guid, uint8_t port, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void add(struct sink *s, const char *kind, uint64_t guid, uint8_t port, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(s, kind, guid, port, false, fmt, ap);
	va_end(ap);
}

static void warn(struct sink *s, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn(struct sink *s, const char *kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(s, kind, 0, 0, true, fmt, ap);
	va_end(ap);
}

/* The well-known default key lets any host be a trusted SA requester. */
static void keys(const struct sm *sm, struct sink *s)
{
	bool sm_pub = sm->conf.sm_key == SM_PUBLIC_KEY, sa_pub = sm->conf.sa_key == SM_PUBLIC_KEY;

	if (sm_pub || sa_pub)
		warn(s, "public_key", "%s%s%s %s 0x1, the well-known default: any host that sends it "
		     "is a trusted SA requester; set a shared secret on every SM of the subnet "
		     "(ibsmd.conf(5))", sm_pub ? "sm_key" : "", sm_pub && sa_pub ? " and " : "",
		     sa_pub ? "sa_key" : "", sm_pub && sa_pub ? "are" : "is");
}

static void conflicts(const struct sm_fabric *f, struct sink *s)
{
	for (uint32_t i = 0; i < f->nconflicts; i++) {
		const struct sm_conflict *c = &f->conflicts[i];

		add(s, "duplicate_guid", c->guid, 0,
		    "%s GUID %016llx is also claimed behind \"%s\" port %u; the known one is kept, "
		    "the other left out", c->port ? "port" : "node", (unsigned long long)c->guid,
		    c->other.via_desc, c->other.via_port);
	}
}

static void port_problems(const struct sm *sm, const struct sm_port *p, struct sink *s)
{
	const struct sm_node *n = p->node;

	if (!p->have_pi || p->pi.port_state <= TOPO_PORT_DOWN || sm_port_isolated(sm, p))
		return;
	if (p->held) {
		add(s, "held", n->guid, p->num, "\"%s\" port %u: held down after flapping",
		    n->desc, p->num);
	} else if (!p->peer && node_is_switch(n) && n->hop_cnt < SMP_MAX_HOPS) {
		add(s, "unknown_peer", n->guid, p->num,
		    "\"%s\" port %u is up but what is behind it is unknown", n->desc, p->num);
	} else if (p->peer && p->pi.port_state != TOPO_PORT_ACTIVE) {
		add(s, "not_active", n->guid, p->num, "\"%s\" port %u is %s, not Active", n->desc,
		    p->num, p->pi.port_state == TOPO_PORT_ARMED ? "Armed" : "Init");
	}
}

static void node_problems(const struct sm *sm, const struct sm_node *n, struct sink *s)
{
	if (n->stale)
		add(s, "not_answering", n->guid, 0,
		    "\"%s\" did not answer in the last %u sweep(s): kept as last seen", n->desc,
		    n->stale_sweeps);
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		port_problems(sm, &n->ports[k], s);
}

static void walk(const struct sm *sm, struct sink *s)
{
	const struct sm_fabric *f = sm->fabric;

	s->digest = 0xcbf29ce484222325ull;
	keys(sm, s);
	if (!f)
		return;
	conflicts(f, s);
	for (uint32_t i = 0; i < f->nnodes; i++)
		node_problems(sm, f->nodes[i], s);
	for (size_t i = 0; i < sm->nisolated; i++) {
		const struct sm_isolated *x = &sm->isolated[i];

		add(s, "isolated", x->guid, x->port,
		    "link %016llx port %u <-> %016llx port %u routed around: %s",
		    (unsigned long long)x->guid, x->port, (unsigned long long)x->peer_guid,
		    x->peer_port, x->reason);
	}
	if (!sm->have_routes && !sm->sweeping && sm->sweeps)
		add(s, "no_routes", 0, 0, "routing failed: %s", sm->routes.why);
	if (sm->st.errors && !sm->sweeping)
		add(s, "set_failed", 0, 0, "%u Sets or table reads failed in the last sweep",
		    sm->st.errors);
}

size_t sm_problems(const struct sm *sm, struct sm_problem *out, size_t max)
{
	struct sink s = { .out = out, .max = max };

	walk(sm, &s);
	return s.n;
}

uint64_t sm_problems_digest(const struct sm *sm)
{
	struct sink s = { 0 };

	walk(sm, &s);
	return s.digest;
}

const char *sm_subnet_state(const struct sm *sm)
{
	struct sink s = { 0 };

	if (sm->state != SM_STATE_MASTER)
		return sm_state_name((int)sm->state);   /* another SM's subnet */
	if (!sm->subnet_up)
		return "down";
	walk(sm, &s);
	return s.degrading ? "degraded" : "up";
}
