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
	c->sa->cause = who.requester;   /* whose traps 66, 67 it makes (sa/inform.c) */
	st = fn(c->sa->env.arg, &who, &req, c->mask, &resp);
	c->sa->cause = 0;
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

bool sa_mft_block(const struct sa_ctx *c, const struct snap_node *n, unsigned position,
		  unsigned block, uint16_t mask[32])
{
	const struct mcast_mft *m = c->sa->env.mft_held ?
		c->sa->env.mft_held(c->sa->env.arg, n->guid) : NULL;
	bool any = false;

	memset(mask, 0, 32 * sizeof(*mask));
	if (!m || block > UINT16_MAX || position > UINT8_MAX ||
	    mcast_mft_block(m, (uint16_t)block, (uint8_t)position, mask) < 0)
		return false;
	for (unsigned i = 0; i < 32; i++)
		any |= mask[i] != 0;
	return any;
}
