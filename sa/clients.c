/*
 * DOC: the SA's own client state - ServiceRecords and InformInfo
 * subscriptions - in and out of a client_state (sm/clientfile.h), for the
 * state file and a standby's copy.
 *
 * A lease runs on the monotonic clock here and on the wall clock in a
 * client_state, so that it keeps running while the daemon is down: a
 * service whose lease ended meanwhile is not restored. A subscription
 * comes back with the address its Reports went to. What clients built
 * follows its port: the services under a port's GID and its
 * subscriptions go when it leaves the fabric (sa_clients_departed).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sa/sa_int.h"
#include "sm/clientfile.h"
#include "sm/log.h"

uint64_t sa_clients_gen(const struct sa *sa)
{
	return sa->gen;
}

static uint64_t to_wall(uint64_t expires, uint64_t now_mono, uint64_t now_wall)
{
	if (expires == UINT64_MAX)
		return CLIENT_NEVER;
	return expires > now_mono ? now_wall + (expires - now_mono) : now_wall;
}

void sa_clients_export(const struct sa *sa, struct client_state *cs, uint64_t now_wall)
{
	uint64_t now = sa_now(sa);

	for (uint32_t i = 0; i < sa->nsvc; i++) {
		const struct sa_service *s = &sa->svc[i];
		struct cf_service *o = client_add_service(cs);

		memcpy(o->rec, s->rec, sizeof(o->rec));
		o->owner_guid = s->owner_guid;
		o->owner_lid = s->owner_lid;
		o->lease_end_ms = to_wall(s->expires, now, now_wall);
	}
	for (uint32_t i = 0; i < sa->nsubs; i++) {
		const struct sa_sub *s = &sa->subs[i];
		struct cf_sub *o = client_add_sub(cs);

		memcpy(o->gid, s->gid, 16);
		o->id = s->id;
		o->lid = s->lid;
		o->ii = s->ii;
		o->ii.is_generic = s->ii.is_generic != 0;   /* the wire byte, as matching reads it */
		o->to = s->to;
	}
}

void sa_clients_clear(struct sa *sa)
{
	sa->nsvc = 0;
	sa->nsubs = 0;
	sa->nreps = 0;   /* Reports to subscriptions that are gone */
	porttab_free(&sa->rsubs);   /* and their counts */
	sa->gen++;
}

static void restore_service(struct sa *sa, const struct cf_service *c, uint64_t now,
			    uint64_t now_wall)
{
	struct sa_service *s;

	if (c->lease_end_ms != CLIENT_NEVER && c->lease_end_ms <= now_wall)
		return;   /* ended while we were away */
	if (sa->nsvc == sa->svc_cap) {
		sa->svc_cap = sa->svc_cap ? 2 * sa->svc_cap : 16;
		sa->svc = xrealloc(sa->svc, sa->svc_cap * sizeof(*sa->svc));
	}
	s = &sa->svc[sa->nsvc++];
	memcpy(s->rec, c->rec, sizeof(s->rec));
	s->owner_guid = c->owner_guid;
	s->owner_lid = c->owner_lid;
	s->expires = c->lease_end_ms == CLIENT_NEVER ? UINT64_MAX
						     : now + (c->lease_end_ms - now_wall);
}

static void restore_sub(struct sa *sa, const struct cf_sub *c)
{
	struct sa_sub *s;

	if (sa->nsubs == sa->subs_cap) {
		sa->subs_cap = sa->subs_cap ? 2 * sa->subs_cap : 16;
		sa->subs = xrealloc(sa->subs, sa->subs_cap * sizeof(*sa->subs));
	}
	s = &sa->subs[sa->nsubs++];
	memset(s, 0, sizeof(*s));
	memcpy(s->gid, c->gid, 16);
	s->id = c->id;
	s->lid = c->lid;
	s->ii = c->ii;
	s->ii.subscribe = 1;
	s->to = c->to;
	if (c->id >= sa->next_sub_id)
		sa->next_sub_id = c->id == UINT16_MAX ? 1 : (uint16_t)(c->id + 1);
}

/* Room for n more of a table whose limit is max (0: none). */
static bool room(uint32_t have, uint32_t max)
{
	return !max || have < max;
}

size_t sa_clients_restore(struct sa *sa, const struct client_state *cs, uint64_t now_wall)
{
	uint64_t now = sa_now(sa);
	size_t skipped = 0;

	sa_clients_clear(sa);
	for (size_t i = 0; i < cs->nservices && room(sa->nsvc, sa->conf.max_services); i++)
		restore_service(sa, &cs->services[i], now, now_wall);
	for (size_t i = 0; i < cs->nsubs && room(sa->nsubs, sa->conf.max_subs); i++)
		restore_sub(sa, &cs->subs[i]);
	skipped = cs->nservices + cs->nsubs - sa->nsvc - sa->nsubs;
	sa->gen++;
	return skipped;
}

void sa_client_limits(const struct sa_conf *c, struct client_limits *l)
{
	size_t share = c->trusted_share ? c->trusted_share : 1;

	client_limits_default(l);
	l->members = c->max_memberships;
	l->services = c->max_services;
	l->subs = c->max_subs;
	l->groups_per_port = c->groups_per_port * share;
	l->memberships_per_port = c->memberships_per_port * share;
	l->services_per_owner = c->services_per_port * share;
	l->subs_per_port = c->subs_per_port * share;
	l->groups_per_partition = c->groups_per_partition;
}

size_t sa_clients_departed(struct sa *sa, bool (*gone)(void *arg, uint64_t guid), void *arg)
{
	uint32_t nsvc = sa->nsvc, nsubs = sa->nsubs;

	for (uint32_t i = 0; i < sa->nsvc;) {
		if (gone(arg, sa_gid_guid(sa->svc[i].rec + 8))) {
			sa->svc[i] = sa->svc[--sa->nsvc];
			sa->gen++;
		} else {
			i++;
		}
	}
	for (uint32_t i = 0; i < sa->nsubs;) {
		uint64_t guid = sa_gid_guid(sa->subs[i].gid);

		if (gone(arg, guid))
			sa_inform_port_gone(sa, guid);   /* all of its subscriptions */
		else
			i++;
	}
	sa->st.departed += (nsvc - sa->nsvc) + (nsubs - sa->nsubs);
	return (nsvc - sa->nsvc) + (nsubs - sa->nsubs);
}
