/*
 * DOC: the multicast group database and the MCMemberRecord semantics
 * (join, leave, query). Pure: no SMPs, no event loop, no globals; the
 * ports come through a lookup callback, so unit tests drive it directly
 * and sm/mcast.c backs it with the fabric snapshot. The SA calls it
 * through sm/mcast.h, which adds MFT programming.
 *
 * Semantics follow reference sa-mcast-ha.md 5.2 (OpenSM
 * osm_sa_mcmember_record.c, osm_multicast.c). Every call returns the SA
 * status the SA answers with (mad/sa.h), 0 on success, and then fills the
 * record the SA sends back.
 *
 * Join (SA Set):
 *  - the mask must hold MGID, PortGID and JoinState (else
 *    SA_STATUS_INSUF_COMPS); a masked MTU or Rate with its selector must
 *    be a valid code (else REQ_INVALID);
 *  - the PortGID's prefix must be the subnet prefix or the default
 *    fe80::/64 (INVALID_GID); its GUID a port we know (REQ_INVALID);
 *  - a requester other than the port is a proxy: it must share a
 *    partition with the port (REQ_INVALID); the SM itself (requester 0,
 *    e.g. ibsmctl) may join any port;
 *  - an unknown or zero MGID creates the group: JoinState must hold
 *    FullMember or SendOnlyFullMember (REQ_INVALID), the mask MGID,
 *    PortGID, JoinState, Q_Key, TClass, P_Key, FlowLabel and SL
 *    (INSUF_COMPS); a given MGID must start with 0xff, use no reserved
 *    flag bits, not pair signature 0xa01b with link-local scope, and an
 *    IPoIB MGID (signature 0x401b/0x601b) other than a broadcast group
 *    needs its partition's broadcast group, whose Q_Key, P_Key, TClass,
 *    SL, FlowLabel and HopLimit it must not contradict (REQ_INVALID); a
 *    zero MGID gets ff1S:a01b:<subnet prefix>:<counter>, S from a masked
 *    Scope or link-local; MTU and Rate come from their selectors and the
 *    port (missing: the port's own), REQ_INVALID when not realizable; the
 *    MLID is the requested one when masked, in range and free, else the
 *    lowest free one from 0xC000 (none left: NO_RESOURCES);
 *  - an existing group: masked Q_Key, P_Key (same partition, not both
 *    limited), TClass, SL, FlowLabel and HopLimit must match, the MTU and
 *    Rate selectors must accept the group's values, the port's MTU and
 *    rate must reach the group's, and JoinState must not be 0
 *    (REQ_INVALID);
 *  - the port must hold the group's P_Key (REQ_INVALID); a port already
 *    in the group may be changed only by itself, or, if it joined by
 *    proxy, by a requester holding the group's P_Key (REQ_INVALID);
 *  - the port's JoinState becomes the union of old and new; the answer is
 *    the group's record with the request's PortGID, the merged JoinState
 *    and selectors "exactly" (2).
 * Leave (SA Delete): the same mask and GID checks; the group must exist,
 * the port be a member, the JoinState overlap the stored one and not
 * exceed it, and the proxy rule hold (REQ_INVALID). The bits are
 * removed; with none left the port leaves. The answer carries the bits
 * left.
 * Group life: trap 66 when the number of full members (FullMember or
 * SendOnlyFullMember) goes from 0 to 1, trap 67 when it returns to 0;
 * then the group is deleted, with its remaining non-members, and its MLID
 * is free again, except groups created from the partitions file ("well
 * known": IPoIB broadcast groups, mgid lines), which stay.
 * Query (SA Get/GetTable): groups in MGID order whose P_Key the requester
 * holds, matching the masked MGID, MLID, Q_Key, P_Key, TClass, SL,
 * FlowLabel, HopLimit, MTU/Rate selectors, Scope, JoinState and
 * ProxyJoin; with PortGID masked the record of that member; trusted
 * requests without PortGID get one record per member, untrusted ones one
 * per group with PortGID, JoinState and ProxyJoin zeroed.
 *
 * Fair shares (sm/mcshare.h, limits from mcdb_set_limits()): a create
 * is charged to the requester (also a proxy create), a new membership to
 * its maker (the port itself, or the proxy); over a limit the request is
 * refused with NO_RESOURCES and nothing changes. A member a proxy added
 * that joins for itself becomes its own (its maker, no longer a proxy
 * member: the proxy may no longer change it); the memberships a proxy
 * made for ports that never joined themselves go when the proxy's port
 * leaves the fabric (mcdb_remove_made_by), and with them groups left
 * without a full member.
 *
 * Bounds: groups are bounded by the MLIDs (at most 16383), members by
 * the ports the lookup knows and the limits. A member insert is
 * O(members of the group).
 */
#ifndef IBSM_SM_MCDB_H
#define IBSM_SM_MCDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/sa.h"
#include "sm/mcshare.h"

/* JoinState bits (reference 5.2). */
#define MC_JOIN_FULL 0x1
#define MC_JOIN_NON 0x2
#define MC_JOIN_SENDONLY_NON 0x4
#define MC_JOIN_SENDONLY_FULL 0x8
#define MC_JOIN_ANY_FULL (MC_JOIN_FULL | MC_JOIN_SENDONLY_FULL)
#define MC_JOIN_SENDONLY (MC_JOIN_SENDONLY_NON | MC_JOIN_SENDONLY_FULL)

/* MCMemberRecord ComponentMask bits (reference section 3; kernel
 * sa_query.c, OpenSM IB_MCR_COMPMASK_*). */
#define MCM_MGID (1ull << 0)
#define MCM_PORT_GID (1ull << 1)
#define MCM_QKEY (1ull << 2)
#define MCM_MLID (1ull << 3)
#define MCM_MTU_SEL (1ull << 4)
#define MCM_MTU (1ull << 5)
#define MCM_TCLASS (1ull << 6)
#define MCM_PKEY (1ull << 7)
#define MCM_RATE_SEL (1ull << 8)
#define MCM_RATE (1ull << 9)
#define MCM_LIFE_SEL (1ull << 10)
#define MCM_LIFE (1ull << 11)
#define MCM_SL (1ull << 12)
#define MCM_FLOW (1ull << 13)
#define MCM_HOP (1ull << 14)
#define MCM_SCOPE (1ull << 15)
#define MCM_JOIN_STATE (1ull << 16)
#define MCM_PROXY (1ull << 17)
#define MCM_JOIN_MASK (MCM_MGID | MCM_PORT_GID | MCM_JOIN_STATE)
#define MCM_CREATE_MASK (MCM_JOIN_MASK | MCM_QKEY | MCM_TCLASS | MCM_PKEY | MCM_FLOW | MCM_SL)

#define MC_TRAP_CREATED 66
#define MC_TRAP_DELETED 67

#define MC_SCOPE_LINK_LOCAL 2
#define MC_DEFAULT_PREFIX 0xfe80000000000000ull

/* A port as the database needs it. */
struct mc_port {
	uint8_t mtu;            /* MTU code it can take (NeighborMTU) */
	uint8_t rate;           /* rate code of its link */
	const uint16_t *pkeys;  /* its P_Key table (sm/pkeyset.h) */
	size_t npkeys;
};

/* Looks up port_guid; false when the port is not known (or not usable). */
typedef bool (*mc_port_fn)(void *arg, uint64_t port_guid, struct mc_port *out);
/* A group gained its first full member (66) or lost its last (67). */
typedef void (*mc_notice_fn)(void *arg, uint16_t trap, const uint8_t mgid[16], uint16_t pkey);

struct mc_member {
	uint64_t guid;          /* port GUID */
	uint8_t join_state;
	bool proxy;             /* joined by another port, never by itself */
	uint64_t by;            /* who made it: guid, the proxy; 0 the SM or unknown */
};

struct mc_group {
	struct sa_mcmember_rec rec;  /* MGID, MLID and parameters; selectors 2 */
	bool well_known;             /* from the partitions file */
	uint64_t creator;            /* the requester that created it; 0: the SM, unknown */
	uint32_t nmembers, cap;
	struct mc_member *members;   /* by GUID */
	uint32_t nfull;              /* members with a full bit */
};

/* Who asks. */
struct mc_who {
	uint64_t requester;     /* the requesting port's GUID; 0: the SM itself */
	bool trusted;           /* SM_Key given and right */
};

struct mcdb_opts {
	uint64_t subnet_prefix;
	uint8_t pkt_life;       /* PacketLifeTime of the groups (subnet_timeout) */
	uint16_t mlid_top;      /* highest usable MLID */
	mc_port_fn port;
	void *port_arg;
	mc_notice_fn notice;    /* may be NULL */
	void *notice_arg;
};

struct mcdb;

struct mcdb *mcdb_new(const struct mcdb_opts *o);
void mcdb_free(struct mcdb *db);
/* A new MLID limit (switches' MulticastFDBCap); groups above it stay
 * and are counted by mcdb_over_top(). */
void mcdb_set_mlid_top(struct mcdb *db, uint16_t top);
uint16_t mcdb_mlid_top(const struct mcdb *db);

uint16_t mcdb_join(struct mcdb *db, const struct mc_who *who, const struct sa_mcmember_rec *req,
		   uint64_t mask, struct sa_mcmember_rec *resp);
uint16_t mcdb_leave(struct mcdb *db, const struct mc_who *who, const struct sa_mcmember_rec *req,
		    uint64_t mask, struct sa_mcmember_rec *resp);
/* Calls fn for each matching record until it returns non-zero; returns
 * the number of records passed to fn. Status: REQ_INVALID for an invalid
 * masked MTU or Rate, else 0. */
uint16_t mcdb_query(const struct mcdb *db, const struct mc_who *who,
		    const struct sa_mcmember_rec *tmpl, uint64_t mask,
		    int (*fn)(void *arg, const struct sa_mcmember_rec *rec), void *arg,
		    size_t *count);

/* A group the partitions file asks for (rec: MGID, Q_Key, P_Key, MTU,
 * Rate, SL, TClass, FlowLabel, HopLimit, Scope). An existing group of
 * that MGID becomes well known and takes the parameters; otherwise it is
 * created empty. 0, or NO_RESOURCES without an MLID. */
uint16_t mcdb_well_known(struct mcdb *db, const struct sa_mcmember_rec *rec);
/* Every group loses the well-known mark (before a reload re-adds them);
 * groups without full members are then deleted by mcdb_prune(). */
void mcdb_clear_well_known(struct mcdb *db);
/* Deletes the groups that are neither well known nor have a full member
 * (their trap 67 went out when the last full member left). */
void mcdb_prune(struct mcdb *db);
/* The port left every group (it went down or away); returns the groups
 * it was in. */
size_t mcdb_remove_port(struct mcdb *db, uint64_t guid);
/* The memberships proxy made for ports that never joined themselves go
 * (the proxy's port left the fabric); returns how many. */
size_t mcdb_remove_made_by(struct mcdb *db, uint64_t proxy);

/* The limits of the fair shares (copied); all 0 at first: no limit. */
void mcdb_set_limits(struct mcdb *db, const struct mc_limits *l);
/* The shares and the refusals counted by reason; last: the reason the
 * last join was refused, MC_REF_NONE when it was not for a limit. */
const struct mc_shares *mcdb_shares(const struct mcdb *db);

size_t mcdb_count(const struct mcdb *db);
/* Groups in MGID order. */
const struct mc_group *mcdb_at(const struct mcdb *db, size_t i);
const struct mc_group *mcdb_find(const struct mcdb *db, const uint8_t mgid[16]);
const struct mc_group *mcdb_by_mlid(const struct mcdb *db, uint16_t mlid);
/* Changes since the last mcdb_take_dirty(): a member set or JoinState
 * changed, or a group came or went. Clears the flag; mcdb_dirty() only
 * looks. */
bool mcdb_take_dirty(struct mcdb *db);
bool mcdb_dirty(const struct mcdb *db);
/* Groups whose MLID is above the current top (not programmable). */
size_t mcdb_over_top(const struct mcdb *db);

/* A number that changes with every change mcdb_take_dirty() would see
 * (and never goes back): whether the groups changed since a save. */
uint64_t mcdb_gen(const struct mcdb *db);
/* Every group goes, without traps (before a saved state replaces them). */
void mcdb_clear(struct mcdb *db);
/* A group as saved or copied: rec with its MLID, its creator, members
 * sorted by GUID with JoinStates 1..15, charged to their makers as when
 * they were made (no limit is checked: the caller checked the whole
 * state). No trap. NULL when the MLID is out of range or taken, the MGID
 * exists, or the members break those rules. */
const struct mc_group *mcdb_restore(struct mcdb *db, const struct sa_mcmember_rec *rec,
				    bool well_known, uint64_t creator,
				    const struct mc_member *members, size_t n);

/* Rate codes (reference 3.1) compared by bandwidth: <0, 0, >0. */
int mc_rate_cmp(uint8_t a, uint8_t b);
bool mc_rate_valid(uint8_t r);
/* The rate code of a link of width/speed as PortInfo gives them
 * (LinkWidthActive, LinkSpeedActive, LinkSpeedExtActive, CapabilityMask). */
uint8_t mc_link_rate(uint8_t width, uint8_t speed, uint8_t ext_speed, uint32_t cap_mask);

#endif
