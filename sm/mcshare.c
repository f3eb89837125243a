/*
 * DOC: fair shares of the multicast groups (see mcshare.h): counts per
 * port GUID in a hash (sm/porttab.h, port number 0), per partition in an
 * array indexed by the P_Key's low 15 bits.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mad/sa.h"
#include "sm/log.h"
#include "sm/mcshare.h"

struct mc_share {
	struct porttab_key key;      /* port GUID, 0 */
	uint32_t groups, members;
};

void mc_shares_init(struct mc_shares *s)
{
	memset(s, 0, sizeof(*s));
	porttab_init(&s->ports, sizeof(struct mc_share));
	s->part = xcalloc(MC_PARTITIONS, sizeof(*s->part));
}

void mc_shares_free(struct mc_shares *s)
{
	porttab_free(&s->ports);
	free(s->part);
	s->part = NULL;
}

void mc_shares_clear(struct mc_shares *s)
{
	porttab_free(&s->ports);
	memset(s->part, 0, MC_PARTITIONS * sizeof(*s->part));
	s->members = 0;
}

static struct mc_share *share(struct mc_shares *s, uint64_t guid)
{
	return porttab_get(&s->ports, guid, 0);
}

static const struct mc_share *share_find(const struct mc_shares *s, uint64_t guid)
{
	return porttab_find(&s->ports, guid, 0);
}

/* n + delta, never below 0: a release that was never charged (a bug)
 * must not turn a count into a huge one. */
static uint32_t add(uint32_t n, int delta)
{
	return delta < 0 && n < (uint32_t)-delta ? 0 : n + (uint32_t)delta;
}

void mc_share_group(struct mc_shares *s, uint64_t creator, uint16_t pkey, int delta)
{
	struct mc_share *p;

	if (!creator)
		return;
	p = share(s, creator);
	p->groups = add(p->groups, delta);
	s->part[pkey & 0x7FFF] = add(s->part[pkey & 0x7FFF], delta);
}

void mc_share_member(struct mc_shares *s, uint64_t maker, int delta)
{
	struct mc_share *p;

	s->members = delta < 0 && !s->members ? 0 : s->members + (uint64_t)(int64_t)delta;
	if (!maker)
		return;
	p = share(s, maker);
	p->members = add(p->members, delta);
}

uint32_t mc_share_groups_of(const struct mc_shares *s, uint64_t guid)
{
	const struct mc_share *p = share_find(s, guid);

	return p ? p->groups : 0;
}

uint32_t mc_share_members_of(const struct mc_shares *s, uint64_t guid)
{
	const struct mc_share *p = share_find(s, guid);

	return p ? p->members : 0;
}

uint32_t mc_share_partition(const struct mc_shares *s, uint16_t pkey)
{
	return s->part[pkey & 0x7FFF];
}

/* Is n at a per-port limit (times the trusted share)? */
static bool at(uint32_t n, uint32_t limit, const struct mc_limits *l, bool trusted)
{
	uint64_t max = (uint64_t)limit * (trusted && l->trusted_share ? l->trusted_share : 1);

	return limit && n >= max;
}

enum mc_refusal mc_share_may_create(const struct mc_shares *s, const struct mc_limits *l,
				    uint64_t requester, bool trusted, uint16_t pkey)
{
	if (!requester)
		return MC_REF_NONE;
	if (at(mc_share_groups_of(s, requester), l->groups_per_port, l, trusted))
		return MC_REF_GROUPS_PORT;
	if (l->groups_per_partition && mc_share_partition(s, pkey) >= l->groups_per_partition)
		return MC_REF_GROUPS_PARTITION;
	return MC_REF_NONE;
}

enum mc_refusal mc_share_may_join(const struct mc_shares *s, const struct mc_limits *l,
				  uint64_t maker, bool trusted)
{
	if (!maker)
		return MC_REF_NONE;
	if (at(mc_share_members_of(s, maker), l->memberships_per_port, l, trusted))
		return MC_REF_MEMBERSHIPS_PORT;
	if (l->memberships && s->members >= l->memberships)
		return MC_REF_MEMBERSHIPS;
	return MC_REF_NONE;
}

uint16_t mc_share_refuse(struct mc_shares *s, enum mc_refusal r)
{
	s->refused[r]++;
	s->last = r;
	return SA_STATUS_NO_RESOURCES;
}

/* Each reason: its name (ibsmctl) and what the log says. */
static const struct {
	const char *name, *text;
} reasons[MC_REF_N] = {
	[MC_REF_NONE] = { "none", "" },
	[MC_REF_GROUPS_PORT] = { "groups_per_port", "it created sa_groups_per_port groups" },
	[MC_REF_GROUPS_PARTITION] = { "groups_per_partition",
				      "the partition has sa_groups_per_partition groups" },
	[MC_REF_MEMBERSHIPS_PORT] = { "memberships_per_port",
				      "it made sa_memberships_per_port memberships" },
	[MC_REF_MEMBERSHIPS] = { "memberships", "sa_max_memberships reached" },
	[MC_REF_MLIDS] = { "mlids", "no MLID left" },
};

const char *mc_refusal_name(enum mc_refusal r)
{
	return r < MC_REF_N ? reasons[r].name : "unknown";
}

const char *mc_refusal_text(enum mc_refusal r)
{
	return r < MC_REF_N ? reasons[r].text : "unknown";
}
