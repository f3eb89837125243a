/*
 * DOC: SM election and the standby's poll verdicts (rules in election.h).
 */
#include "config.h"

#include <string.h>

#include "fabric/election.h"

bool sm_higher(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb)
{
	if (pa != pb)
		return pa > pb;
	return ga < gb;
}

const char *sm_state_name(int state)
{
	static const char *const names[] = { "not_active", "discovering", "standby", "master" };

	return state >= 0 && state < 4 ? names[state] : "unknown";
}

struct sm_peer *sm_peer_find(struct sm_peers *ps, uint64_t guid)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].guid == guid)
			return &ps->v[i];
	return NULL;
}

struct sm_peer *sm_peer_get(struct sm_peers *ps, uint64_t guid)
{
	struct sm_peer *p = sm_peer_find(ps, guid);

	if (p || ps->n == SM_MAX_PEERS)
		return p;
	p = &ps->v[ps->n++];
	memset(p, 0, sizeof(*p));
	p->guid = guid;
	return p;
}

void sm_peer_seen(struct sm_peer *p, const struct smp_sm_info *si, const struct sm_self *self,
		  uint64_t now)
{
	p->priority = si->priority;
	p->state = si->sm_state;
	p->act_count = si->act_count;
	p->sm_key = si->sm_key;
	p->last_seen_ms = now;
	p->answered = true;
	p->seen = true;
	/* IBA 14.4.1: SM_Key 0 is "not told", not a different key */
	p->foreign = self->sm_key && si->sm_key && si->sm_key != self->sm_key;
	if (p->stuck && si->act_count != p->stuck_at)
		p->stuck = false;
}

static bool counts(const struct sm_peer *p)
{
	return p->answered && p->seen && !p->foreign && !p->stuck &&
	       p->state != SM_STATE_NOT_ACTIVE;
}

static bool above(const struct sm_peer *p, const struct sm_self *self)
{
	return sm_higher(p->priority, p->guid, self->priority, self->guid);
}

/* The first MASTER, else the highest of those above us. */
enum sm_state election_after_discovery(const struct sm_peers *ps, const struct sm_self *self,
				       const struct sm_peer **master)
{
	const struct sm_peer *best = NULL;

	*master = NULL;
	for (size_t i = 0; i < ps->n; i++) {
		const struct sm_peer *p = &ps->v[i];

		if (!counts(p))
			continue;
		if (p->state == SM_STATE_MASTER) {
			*master = p;
			return SM_STATE_STANDBY;
		}
		if (above(p, self) && (!best || sm_higher(p->priority, p->guid, best->priority,
							  best->guid)))
			best = p;
	}
	*master = best;
	return best ? SM_STATE_STANDBY : SM_STATE_MASTER;
}

const struct sm_peer *election_as_master(const struct sm_peers *ps, const struct sm_self *self,
					 const struct sm_peer **yield)
{
	const struct sm_peer *best = NULL;

	*yield = NULL;
	for (size_t i = 0; i < ps->n; i++) {
		const struct sm_peer *p = &ps->v[i];

		if (!counts(p) || !above(p, self))
			continue;
		if (p->state == SM_STATE_MASTER)
			*yield = p;
		else if (p->state == SM_STATE_STANDBY &&
			 (!best || sm_higher(p->priority, p->guid, best->priority, best->guid)))
			best = p;
	}
	return *yield ? NULL : best;
}

const struct sm_peer *election_best_standby(const struct sm_peers *ps)
{
	const struct sm_peer *best = NULL;

	for (size_t i = 0; i < ps->n; i++) {
		const struct sm_peer *p = &ps->v[i];

		if (counts(p) && p->state == SM_STATE_STANDBY &&
		    (!best || sm_higher(p->priority, p->guid, best->priority, best->guid)))
			best = p;
	}
	return best;
}

enum poll_verdict sm_poll_result(struct sm_poll *p, const struct smp_sm_info *si,
				 unsigned poll_retries)
{
	if (!si)
		return ++p->failed >= (poll_retries ? poll_retries : 1) ? POLL_TAKEOVER : POLL_AGAIN;
	p->failed = 0;
	if (si->sm_state != SM_STATE_MASTER)
		return POLL_REELECT;
	if (p->have_count && si->act_count == p->last_count) {
		if (++p->still >= poll_retries + 1)
			return POLL_TAKEOVER;
	} else {
		p->still = 0;
	}
	p->last_count = si->act_count;
	p->have_count = true;
	return POLL_OK;
}

/* IBA 14.4.2: HANDOVER, DISABLE, STANDBY and DISCOVER come from the master
 * (the sender says MASTER, and it is the one we follow); ACKNOWLEDGE from
 * the SM we handed over to, still saying STANDBY. The payload's GUID is
 * only a claim: the Set must also have come from that SM's port. */
int sm_ctl_verdict(unsigned mod, const struct smp_sm_info *si, enum sm_state mine,
		   uint64_t master, uint64_t handed_to, uint64_t sender, const struct sm_self *self)
{
	bool key_ok = !self->sm_key || si->sm_key == self->sm_key;
	bool from_master = si->sm_state == SM_STATE_MASTER && si->guid == master && master;

	if (!key_ok || !sender || sender != si->guid)
		return -1;
	switch (mod) {
	case SM_CTL_HANDOVER:
		return mine == SM_STATE_STANDBY && from_master ? SM_STATE_MASTER : -1;
	case SM_CTL_ACKNOWLEDGE:
		return si->sm_state == SM_STATE_STANDBY && si->guid == handed_to && handed_to ?
		       (int)mine : -1;
	case SM_CTL_DISABLE:
		return (mine == SM_STATE_STANDBY || mine == SM_STATE_NOT_ACTIVE) && from_master ?
		       SM_STATE_NOT_ACTIVE : -1;
	case SM_CTL_STANDBY:
		return mine == SM_STATE_NOT_ACTIVE && si->sm_state == SM_STATE_MASTER ?
		       SM_STATE_STANDBY : -1;
	case SM_CTL_DISCOVER:
		return mine == SM_STATE_STANDBY && from_master ? SM_STATE_DISCOVERING : -1;
	default:
		return -1;
	}
}
