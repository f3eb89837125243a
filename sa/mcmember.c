/*
 * DOC: MCMemberRecord (IBA 15.2.5.17; sa-mcast-ha.md 5.2): joins (Set),
 * leaves (Delete) and queries (Get, GetTable) of multicast groups, and
 * the MulticastForwardingTableRecords that show the trees.
 *
 * The group database is the SM's (sm/mcdb.h has the rules, sm/mcast.h
 * programs the trees): joins change it between sweeps, so unlike the
 * other records it is not part of the snapshot. This file turns a
 * request into the SM's call through struct sa_env and its answer back
 * into a wire record. Who asks is the port at the request's SLID in the
 * snapshot; a request from a LID the snapshot does not know is refused,
 * never taken for the SM's own (requester 0, trusted and no proxy).
 */
#include "config.h"

#include <string.h>

#include "routing/mcast.h"
#include "sa/sa_int.h"
#include "sm/mcdb.h"

#define MCMR_SIZE 52

typedef uint16_t (*mc_change_fn)(void *arg, const struct mc_who *who,
				 const struct sa_mcmember_rec *req, uint64_t mask,
				 struct sa_mcmember_rec *resp);

static bool who_of(const struct sa_ctx *c, struct mc_who *w)
{
	w->trusted = c->trusted;
	w->requester = 0;
	if (c->local)
		return true;
	if (!c->requester || !c->requester->guid)
		return false;
	w->requester = c->requester->guid;
	return true;
}

static void change(struct sa_ctx *c, mc_change_fn fn)
{
	struct sa_mcmember_rec req, resp;
	struct mc_who who;
	uint8_t rec[MCMR_SIZE];
	uint16_t st;

	if (!fn || !who_of(c, &who) || sa_mcmember_rec_decode(c->tmpl, MCMR_SIZE, &req) < 0) {
		sa_fail(c, SA_STATUS_REQ_INVALID);
		return;
	}
	st = fn(c->sa->env.arg, &who, &req, c->mask, &resp);
	if (st) {
		sa_fail(c, st);
		return;
	}
	if (sa_mcmember_rec_encode(&resp, rec, sizeof(rec)) < 0) {
		sa_fail(c, SA_STATUS_NO_RESOURCES);
		return;
	}
	c->desc = NULL;   /* the answer is the group's record, not a match */
	sa_emit(c, rec);
}

void sa_mcmr_set(struct sa_ctx *c)
{
	change(c, c->sa->env.mc_join);
}

void sa_mcmr_del(struct sa_ctx *c)
{
	change(c, c->sa->env.mc_leave);
}

static int emit_one(void *arg, const struct sa_mcmember_rec *r)
{
	struct sa_ctx *c = arg;
	uint8_t rec[MCMR_SIZE];

	if (sa_mcmember_rec_encode(r, rec, sizeof(rec)) < 0)
		return 1;
	return sa_emit(c, rec) ? 0 : 1;
}

void sa_mcmr_get(struct sa_ctx *c)
{
	struct sa_mcmember_rec tmpl;
	struct mc_who who;
	size_t count = 0;
	uint16_t st;

	if (!c->sa->env.mc_query)
		return;   /* no multicast: no groups */
	if (!who_of(c, &who) || sa_mcmember_rec_decode(c->tmpl, MCMR_SIZE, &tmpl) < 0) {
		sa_fail(c, SA_STATUS_REQ_INVALID);
		return;
	}
	/* the SM matches the template itself: it knows which fields an
	 * untrusted requester may not see */
	c->desc = NULL;
	st = c->sa->env.mc_query(c->sa->env.arg, &who, &tmpl, c->mask, emit_one, c, &count);
	if (st)
		sa_fail(c, st);
}

/* --- MulticastForwardingTableRecord --- */

/* First MLID of mft at or above mlid. */
static uint32_t first_at(const struct mcast_mft *m, uint16_t mlid)
{
	uint32_t lo = 0, hi = m->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->mlid[mid] < mlid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool sa_mft_block(const struct sa_ctx *c, const struct snap_node *n, unsigned position,
		  unsigned block, uint16_t mask[32])
{
	const struct mcast_mft *m = c->sa->env.mft_held ?
		c->sa->env.mft_held(c->sa->env.arg, n->guid) : NULL;
	uint32_t base = MCAST_MLID_MIN + 32u * block;
	bool any = false;

	memset(mask, 0, 32 * sizeof(*mask));
	if (!m || position >= m->npos)
		return false;
	for (uint32_t i = first_at(m, (uint16_t)base); i < m->n && m->mlid[i] < base + 32; i++) {
		mask[m->mlid[i] - base] = m->mask[(size_t)i * m->npos + position];
		any |= mask[m->mlid[i] - base] != 0;
	}
	return any;
}
