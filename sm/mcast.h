/*
 * DOC: the multicast manager on the SM side: the API the SA calls for
 * MCMemberRecord, and the programming of MulticastForwardingTables.
 *
 * For the SA (a thin adapter over these):
 *  - MCMemberRecord Set     -> sm_mcast_join()
 *  - MCMemberRecord Delete  -> sm_mcast_leave()
 *  - Get / GetTable         -> sm_mcast_query() (Get: exactly one record,
 *    else ERR_NO_RECORDS / ERR_REQ_TOO_MANY_RECORDS, the SA's rule)
 * Each takes the decoded record (mad/sa.h struct sa_mcmember_rec), the
 * request's ComponentMask and who asks: the GUID of the requesting port
 * (the SA finds it from the request's SLID in the snapshot; 0 means the
 * SM itself, e.g. ibsmctl, which is trusted and no proxy) and whether the
 * SM_Key was given and right. The return value is the SA status to
 * answer with (0 success); on success *resp is the record to send back.
 * The rules are those of sm/mcdb.h. Ports are looked up in the current
 * snapshot (sm/snap.h): a port must be in it and Active, its MTU is its
 * NeighborMTU, its rate that of its link, its P_Keys those the SM gave
 * it.
 *  - Traps 66 and 67 (a group got its first full member / lost its
 *    last): sm_mcast_on_notice() registers the SA's callback, which
 *    reports them to InformInfo subscribers holding the group's P_Key.
 *  - MulticastForwardingTableRecord: sm_mcast_held() is what a switch
 *    holds as far as the SM knows (read back or written).
 *
 * The groups of the partitions file (each ipoib partition's IPv4
 * broadcast group, one per scope, and its mgid lines; reference 5.3) exist
 * from the start with the partition's parameters and stay while it lists
 * them.
 *
 * Programming. Joins and leaves change the database at once and answer;
 * the trees (routing/mcast.h over the unicast tables) are recomputed and
 * the MFTs written in batches: a batch starts when changes have paused
 * for a fifth of mcast_batch_ms (after a burst, for eight times its mean
 * spacing if that is shorter, at least 1 ms), or mcast_batch_ms after its
 * first change at the latest, and takes everything that arrived until then, so a storm
 * of joins writes each MFT block about once, not once per join. A batch never overlaps a sweep or another batch: changes made
 * meanwhile go into the next one. Every heavy sweep and reroute ends its
 * table phases with a batch too (sm_mcast_phase), after dropping the
 * members whose port went down or away, so a link failure repairs the
 * trees along the new unicast routes.
 * A batch is a diff like the LFTs': a block not known (first sight, or the
 * switch came up since: tables_port_fresh) is read back before it is
 * written, and a block (one position: 16 ports) is written only when it
 * differs; a read that fails leaves the block alone. MulticastFDBTop is
 * set to the highest MLID in use (0xBFFF for none) on switches whose port
 * 0 advertises IsMulticastFDBTopSupported. Send-only members (JoinState
 * 0x4 / 0x8 only) get the tree to their switch but no bit for their own
 * port: they send, they do not receive.
 */
#ifndef IBSM_SM_MCAST_H
#define IBSM_SM_MCAST_H

#include <json-c/json.h>
#include <stdint.h>

#include "routing/mcast.h"
#include "sm/mcdb.h"

struct sm;

/* At start (after the partitions are loaded). */
void sm_mcast_init(struct sm *sm);
void sm_mcast_free(struct sm *sm);
/* The partitions changed (a reload): their groups are made again. */
void sm_mcast_partitions(struct sm *sm);

uint16_t sm_mcast_join(struct sm *sm, const struct mc_who *who, const struct sa_mcmember_rec *req,
		       uint64_t mask, struct sa_mcmember_rec *resp);
uint16_t sm_mcast_leave(struct sm *sm, const struct mc_who *who,
			const struct sa_mcmember_rec *req, uint64_t mask,
			struct sa_mcmember_rec *resp);
uint16_t sm_mcast_query(const struct sm *sm, const struct mc_who *who,
			const struct sa_mcmember_rec *tmpl, uint64_t mask,
			int (*fn)(void *arg, const struct sa_mcmember_rec *rec), void *arg,
			size_t *count);
void sm_mcast_on_notice(struct sm *sm, mc_notice_fn fn, void *arg);

const struct mcdb *sm_mcast_db(const struct sm *sm);
/* The table switch guid holds as far as the SM knows, or NULL. */
const struct mcast_mft *sm_mcast_held(const struct sm *sm, uint64_t switch_guid);
/* The tree of mlid from the last batch (switch GUIDs in mcast_tsw), and
 * the entries of that result, or NULL. */
const struct mcast_tree *sm_mcast_tree(const struct sm *sm, uint16_t mlid,
				       const struct mcast_tsw **tsw);

/* A saved or copied state (sm/mcstate.c does the rest): the database to
 * fill, and the trees the switches were given, which the first batch
 * keeps where they still stand (routing/mcast.h, opts.prev), so a restart
 * on an unchanged fabric writes no MFT block. sm_mcast_seed takes seed
 * over (it is zeroed) and drops the last batch's trees. */
struct mcdb *sm_mcast_db_rw(struct sm *sm);
void sm_mcast_seed(struct sm *sm, struct mcast_result *seed);
/* The last batch's trees, or before the first batch the seed; NULL: none. */
const struct mcast_result *sm_mcast_trees(const struct sm *sm);
struct client_state;
/* Replaces the groups and trees with cs's (checked: client_state_check);
 * returns how many groups did not fit (an MLID taken twice). */
size_t sm_mcast_restore(struct sm *sm, const struct client_state *cs);
/* Appends the groups, members and trees to cs. */
void sm_mcast_export(const struct sm *sm, struct client_state *cs);
/* Changes with every change of the groups or of the trees. */
uint64_t sm_mcast_gen(const struct sm *sm);
/* A batch is running (its SMPs in flight). */
bool sm_mcast_busy(const struct sm *sm);
/* fn runs at the end of every batch (the trees may have changed). */
void sm_mcast_on_batch(struct sm *sm, void (*fn)(void *arg, struct sm *sm), void *arg);

/* The sweep's phase; calls done(sm) when its SMPs completed. */
void sm_mcast_phase(struct sm *sm, void (*done)(struct sm *));

/* Counters of the last batch and in all, for ibsmctl. */
json_object *sm_mcast_stats_json(const struct sm *sm);

#endif
