/*
 * DOC: the SA's fair shares: the limits of what one requesting port may
 * hold (services it registered, subscriptions; sm/mcshare.h has the
 * multicast groups and memberships), and refusals, counted by reason and
 * logged with the requester.
 *
 * A limit is per requesting port - the port at the request's source LID
 * in the snapshot, or that LID when the snapshot does not know it - so
 * that one host can exhaust only its own share; a trusted requester (the
 * SM_Key) gets trusted_share times as much, and the tables have a limit
 * in all besides. A refusal is ERR_NO_RESOURCES for a limit and
 * ERR_REQ_DENIED for a record of another port; its log line is
 * rate-limited like every other (sm/log.h).
 */
#include "config.h"

#include <string.h>

#include "sa/sa_int.h"
#include "sm/log.h"

void sa_conf_default(struct sa_conf *c)
{
	c->services_per_port = SA_SERVICES_PER_PORT;
	c->max_services = SA_MAX_SERVICES;
	c->subs_per_port = SA_SUBS_PER_PORT;
	c->max_subs = SA_MAX_SUBS;
	c->trusted_share = SA_TRUSTED_SHARE;
	c->groups_per_port = SA_GROUPS_PER_PORT;
	c->groups_per_partition = 0;
	c->memberships_per_port = SA_MEMBERSHIPS_PER_PORT;
	c->max_memberships = SA_MAX_MEMBERSHIPS;
	c->reports_max = SA_REPORTS_MAX;
	c->reports_per_port = SA_REPORTS_PER_PORT;
}

uint64_t sa_share(const struct sa_ctx *c, uint32_t limit)
{
	uint32_t share = c->trusted && c->sa->conf.trusted_share ? c->sa->conf.trusted_share : 1;

	return (uint64_t)limit * share;
}

/* Each reason: its name (ibsmctl) and what the log says. */
static const struct {
	const char *name, *text;
} reasons[SA_REF_N] = {
	[SA_REF_SERVICES_PORT] = { "services_per_port",
				   "the port registered sa_services_per_port services" },
	[SA_REF_SERVICES] = { "services", "sa_max_services reached" },
	[SA_REF_SERVICE_GID] = { "service_gid_not_own", "a ServiceGID of another port (untrusted)" },
	[SA_REF_SERVICE_OWNER] = { "service_not_owner", "a service another port registered" },
	[SA_REF_SUBS_PORT] = { "subscriptions_per_port",
			       "the port has sa_subscriptions_per_port subscriptions" },
	[SA_REF_SUBS] = { "subscriptions", "sa_max_subscriptions reached" },
};

const char *sa_refusal_name(enum sa_refusal r)
{
	return r < SA_REF_N ? reasons[r].name : "unknown";
}

void sa_refuse(struct sa_ctx *c, enum sa_refusal why, uint16_t status)
{
	c->sa->st.refused[why]++;
	log_notice("SA: %s %s from LID %u (port %016llx)%s refused: %s", c->attr->nm.name,
		   c->method == SA_METHOD_DELETE ? "Delete" : "Set", c->from.dlid,
		   (unsigned long long)(c->requester ? c->requester->guid : 0),
		   c->trusted ? " (trusted)" : "", reasons[why].text);
	sa_fail(c, status);
}
