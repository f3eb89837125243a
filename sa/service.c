/*
 * DOC: ServiceRecord (IBA 15.2.5.14; sa-mcast-ha.md 3): services
 * registered with Set, found with Get/GetTable, removed with Delete or
 * when their lease ends.
 *
 * A service is named by ServiceID, ServiceGID and ServiceP_Key: Set and
 * Delete must carry the first two (else INSUFFICIENT_COMPONENTS, as
 * OpenSM), the GID must be a port of this subnet (INVALID_GID), a P_Key
 * not in the mask means the default partition. A Set of a registered
 * service replaces it. ServiceLease is in seconds, 0xFFFFFFFF (or not in
 * the mask) for ever; lapsed services go at the next timer.
 *
 * An untrusted requester registers services only under its own GIDs:
 * the ServiceGID must be a port of the requester's node (else
 * ERR_REQ_DENIED, IBA 15.2.1.1: "the request is not allowed"), so no host
 * can squat another's service. A service belongs to the port that
 * registered it (the requester's port GUID, or its source LID when the
 * last sweep does not know that LID) and to the port of its ServiceGID:
 * either of them, or a trusted requester (SM_Key = sa_key), may replace
 * it with Set (and then owns it) or remove it with Delete; anyone else
 * gets ERR_REQ_DENIED, and a Delete removes only the matching records
 * the requester may remove. OpenSM checks nothing here, so any port can
 * remove any other's registration. At most services_per_port are
 * registered by one port (times trusted_share for a trusted requester)
 * and max_services in all (then ERR_NO_RESOURCES; sa/fair.c). A Set or
 * Delete scans the table: it costs the requester that much work. A
 * service goes with its lease, or when the port of its ServiceGID leaves
 * the fabric (sa_clients_departed); services outlive a restart of the
 * daemon with their leases (state_dir/clients, sa/clients.c).
 */
#include "config.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa_int.h"
#include "sm/log.h"

#define SR_ID 0
#define SR_GID 1
#define SR_PKEY 2
#define SR_LEASE 4
#define SR_SIZE 176
#define SR_OFF_GID 8
#define SR_OFF_PKEY 24
#define SR_OFF_LEASE 28
#define LEASE_FOREVER 0xFFFFFFFFu

static bool same_service(const uint8_t *a, const uint8_t *b)
{
	/* ServiceID, ServiceGID, ServiceP_Key: bytes 0..25 */
	return memcmp(a, b, SR_OFF_PKEY + 2) == 0;
}

static const struct snap_port *service_port(const struct sa_ctx *c, const uint8_t *rec)
{
	bool bad;

	return sa_port_by_gid(c, rec + SR_OFF_GID, &bad);
}

/* Is the record's ServiceGID a port of the requester's node? */
static bool own_gid(const struct sa_ctx *c, const uint8_t *rec)
{
	const struct snap_port *p = service_port(c, rec);

	return c->requester && p && p->node == c->requester->node;
}

uint16_t sa_sr_check(struct sa_ctx *c)
{
	if (c->method != SA_METHOD_SET && c->method != SA_METHOD_DELETE)
		return 0;
	if (!sa_masked(c, SR_ID) || !sa_masked(c, SR_GID))
		return SA_STATUS_INSUF_COMPS;
	if (c->method == SA_METHOD_SET && !service_port(c, c->tmpl))
		return SA_STATUS_INVALID_GID;
	return 0;
}

static bool may_see(const struct sa_ctx *c, const uint8_t *rec)
{
	return c->local ||
	       sa_part_pkey(c->snap, c->requester, service_port(c, rec), sa_get16(rec + SR_OFF_PKEY));
}

void sa_sr_get(struct sa_ctx *c)
{
	struct sa *sa = c->sa;

	for (uint32_t i = 0; i < sa->nsvc; i++) {
		if (sa->svc[i].expires <= c->now_ms || !may_see(c, sa->svc[i].rec))
			continue;
		if (!sa_emit(c, sa->svc[i].rec))
			return;
	}
}

/* Who asks, as a service's owner is recorded. */
static void requester_id(const struct sa_ctx *c, uint64_t *guid, uint16_t *lid)
{
	*guid = c->requester ? c->requester->guid : 0;
	*lid = *guid ? 0 : c->from.dlid;
}

static bool owns(const struct sa_ctx *c, const struct sa_service *s)
{
	uint64_t guid;
	uint16_t lid;

	if (c->trusted || own_gid(c, s->rec))
		return true;
	requester_id(c, &guid, &lid);
	return s->owner_guid ? s->owner_guid == guid : !guid && s->owner_lid == lid;
}

static uint32_t owned_by(const struct sa *sa, uint64_t guid, uint16_t lid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sa->nsvc; i++)
		n += guid ? sa->svc[i].owner_guid == guid :
			    !sa->svc[i].owner_guid && sa->svc[i].owner_lid == lid;
	return n;
}

/* A slot for a new service, or NULL after sa_refuse() (a limit). */
static struct sa_service *service_new(struct sa_ctx *c)
{
	struct sa *sa = c->sa;
	uint64_t guid, per_port = sa_share(c, sa->conf.services_per_port);
	uint16_t lid;

	requester_id(c, &guid, &lid);
	if (per_port && owned_by(sa, guid, lid) >= per_port) {
		sa_refuse(c, SA_REF_SERVICES_PORT, SA_STATUS_NO_RESOURCES);
		return NULL;
	}
	if (sa->conf.max_services && sa->nsvc >= sa->conf.max_services) {
		sa_refuse(c, SA_REF_SERVICES, SA_STATUS_NO_RESOURCES);
		return NULL;
	}
	if (sa->nsvc == sa->svc_cap) {
		sa->svc_cap = sa->svc_cap ? 2 * sa->svc_cap : 16;
		sa->svc = xrealloc(sa->svc, sa->svc_cap * sizeof(*sa->svc));
	}
	return &sa->svc[sa->nsvc++];
}

static uint64_t expiry(uint64_t now, uint32_t lease)
{
	return lease == LEASE_FOREVER ? UINT64_MAX : now + (uint64_t)lease * 1000u;
}

void sa_sr_set(struct sa_ctx *c)
{
	struct sa *sa = c->sa;
	uint8_t rec[SR_SIZE];
	struct sa_service *s = NULL;
	uint16_t pkey = 0xFFFF;
	uint32_t lease = LEASE_FOREVER;

	memcpy(rec, c->tmpl, SR_SIZE);
	if (sa_masked(c, SR_PKEY))
		pkey = sa_get16(rec + SR_OFF_PKEY);
	if (sa_masked(c, SR_LEASE))
		lease = sa_get32(rec + SR_OFF_LEASE);
	pkey = htobe16(pkey);
	lease = htobe32(lease);
	memcpy(rec + SR_OFF_PKEY, &pkey, 2);
	memcpy(rec + SR_OFF_LEASE, &lease, 4);
	if (!may_see(c, rec)) {
		sa_fail(c, SA_STATUS_REQ_DENIED);
		return;
	}
	if (!c->trusted && !own_gid(c, rec)) {
		sa_refuse(c, SA_REF_SERVICE_GID, SA_STATUS_REQ_DENIED);
		return;
	}
	if (!sa_work(c, sa->nsvc))
		return;
	for (uint32_t i = 0; i < sa->nsvc && !s; i++)
		if (same_service(sa->svc[i].rec, rec))
			s = &sa->svc[i];
	if (s && !owns(c, s)) {
		sa_refuse(c, SA_REF_SERVICE_OWNER, SA_STATUS_REQ_DENIED);
		return;
	}
	if (!s && !(s = service_new(c)))
		return;
	requester_id(c, &s->owner_guid, &s->owner_lid);   /* a Set makes it the requester's */
	memcpy(s->rec, rec, SR_SIZE);
	s->expires = expiry(c->now_ms, be32toh(lease));
	sa->gen++;
	c->desc = NULL;   /* the answer is the record as stored */
	sa_emit(c, s->rec);
}

static void remove_at(struct sa *sa, uint32_t i)
{
	sa->svc[i] = sa->svc[--sa->nsvc];
	sa->gen++;
}

void sa_sr_del(struct sa_ctx *c)
{
	struct sa *sa = c->sa;
	uint8_t first[SR_SIZE];
	uint32_t found = 0, denied = 0;

	if (!sa_work(c, sa->nsvc))
		return;
	for (uint32_t i = 0; i < sa->nsvc;) {
		struct sa_service *s = &sa->svc[i];

		if (!sa_match(c->desc, c->tmpl, s->rec, c->mask) || !may_see(c, s->rec)) {
			i++;
			continue;
		}
		if (!owns(c, s)) {
			denied++;
			i++;
			continue;
		}
		if (!found++)
			memcpy(first, s->rec, SR_SIZE);
		remove_at(sa, i);
	}
	if (!found && denied)
		sa_refuse(c, SA_REF_SERVICE_OWNER, SA_STATUS_REQ_DENIED);
	if (!found)
		return;   /* ERR_NO_RECORDS, or denied */
	c->desc = NULL;
	sa_emit(c, first);
}

void sa_services_expire(struct sa *sa, uint64_t now)
{
	for (uint32_t i = 0; i < sa->nsvc;) {
		if (sa->svc[i].expires <= now)
			remove_at(sa, i);
		else
			i++;
	}
}

uint64_t sa_services_deadline(const struct sa *sa)
{
	uint64_t d = UINT64_MAX;

	for (uint32_t i = 0; i < sa->nsvc; i++)
		if (sa->svc[i].expires < d)
			d = sa->svc[i].expires;
	return d;
}

uint32_t sa_services_count(const struct sa *sa)
{
	return sa->nsvc;
}

void sa_services_free(struct sa *sa)
{
	free(sa->svc);
	sa->svc = NULL;
	sa->nsvc = sa->svc_cap = 0;
}
