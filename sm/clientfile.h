/*
 * DOC: the state that hosts built through the SA, as a value and as the
 * file state_dir/clients: multicast groups (MGID, MLID, parameters,
 * members with JoinState and proxy flag, and the spanning tree the SM
 * programmed for each), ServiceRecords with their leases, and InformInfo
 * subscriptions with where their Reports go. A restarted daemon loads it
 * and serves the same groups, MLIDs and trees, so the switches' MFTs stay
 * as they are; a standby builds the same value from the master's SA.
 *
 * Pure but for client_state_load()/client_state_save(): the text is
 * parsed and written from memory, so unit tests and the fuzzer drive the
 * parser directly. The file, text, one object a line, fields separated
 * by one space:
 *
 *     ibsmd-clients 2
 *     sm 0x<SM port GUID> 0x<subnet prefix> <written, Unix ms>
 *     group <MGID, 32 hex> 0x<MLID> 0x<Q_Key> 0x<P_Key> <MTU> <rate>
 *           <PacketLifeTime> <SL> <TClass> 0x<FlowLabel> <HopLimit>
 *           <scope> <well-known 0|1> 0x<creator port GUID, 0: none>
 *     member 0x<port GUID> <JoinState 1..15> <proxy 0|1>
 *            0x<maker port GUID, 0: none>
 *     tree 0x<root switch GUID>
 *     tsw 0x<switch GUID> <up port 1..254> <parent entry>
 *     service <the 176-byte record, 352 hex> 0x<owner GUID> <owner LID>
 *             <lease end, Unix ms, or "never">
 *     sub <subscriber GID> <enum> <LID> <InformInfo: GID LIDRangeBegin
 *         LIDRangeEnd IsGeneric Type TrapNumber QPN RespTimeValue
 *         ProducerType> <Report address: LID QPN Q_Key SL P_Key-index
 *         GRH GID-index HopLimit TClass FlowLabel GID>
 *     end <groups> <members> <tree entries> <services> <subscriptions>
 *
 * (a group line is one line; it is folded here). Members and the tree
 * follow their group; the tree's entry 0 is its root, each tsw line the
 * next entry, hanging on an earlier one. Groups come in MGID order,
 * members in GUID order, both without repeats, and no MLID twice. The
 * end line must match what came before: a file cut short is refused,
 * as is anything else that does not follow these rules, a number out of
 * its range (MLID 0xC000..0xFFFE, a valid P_Key, MTU and rate codes, LIDs
 * 1..0xBFFF, ...) or a count over the limits given to the parser (struct
 * client_limits: in all, per partition, and per port: groups created,
 * memberships made, services registered, subscriptions). Refusing is all
 * or nothing: a partly read file is never used; a daemon that refuses
 * its own file (its limits were lowered) tells the hosts to make their
 * state again, within the limits (sa/keep.c). A file of version 1 (no
 * creators or makers: groups without creator, a member its own maker
 * unless a proxy added it, then none) is read too.
 */
#ifndef IBSM_SM_CLIENTFILE_H
#define IBSM_SM_CLIENTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/engine.h"
#include "mad/sa.h"

#define CLIENT_NEVER UINT64_MAX      /* a lease without end */
#define CLIENT_NO_PARENT UINT32_MAX  /* a tree's root */
#define CLIENT_SR_SIZE 176

struct cf_member {
	uint64_t guid;
	uint8_t join_state;
	bool proxy;
	uint64_t by;                 /* its maker; 0: none */
};

/* A switch of a tree: entry 0 is the root (parent CLIENT_NO_PARENT, up 0). */
struct cf_tsw {
	uint64_t guid;
	uint32_t parent;   /* entry of the same tree */
	uint8_t up;        /* port towards the parent */
};

struct cf_group {
	struct sa_mcmember_rec rec;  /* MGID, MLID, parameters; PortGID, JoinState 0 */
	bool well_known;
	uint64_t creator;            /* 0: none */
	size_t member0, nmembers;    /* in client_state.members */
	size_t tsw0, ntsw;           /* in client_state.tsw; 0: no tree */
};

struct cf_service {
	uint8_t rec[CLIENT_SR_SIZE]; /* wire format, as registered */
	uint64_t owner_guid;         /* 0: unknown, then ... */
	uint16_t owner_lid;          /* ... the LID it came from */
	uint64_t lease_end_ms;       /* Unix ms, CLIENT_NEVER */
};

struct cf_sub {
	uint8_t gid[16];             /* the subscriber */
	uint16_t id;                 /* InformInfoRecord Enum */
	uint16_t lid;
	struct sa_inform_info ii;
	struct mad_addr to;          /* where Reports go */
};

struct client_state {
	uint64_t sm_guid, subnet_prefix;
	uint64_t written_ms;
	struct cf_group *groups;
	struct cf_member *members;
	struct cf_tsw *tsw;
	struct cf_service *services;
	struct cf_sub *subs;
	size_t ngroups, nmembers, ntsw, nservices, nsubs;
	size_t cap[5];               /* allocated, by the add functions */
};

/* What the parser accepts at most; 0 means no limit of that kind. Per
 * port: groups by creator, memberships by maker, services by owner,
 * subscriptions by subscriber; per partition: groups with a creator. */
struct client_limits {
	size_t groups, members, tsw, services, subs;
	size_t groups_per_port, memberships_per_port, services_per_owner, subs_per_port;
	size_t groups_per_partition;
};

/* The limits of a daemon (bounded by MLIDs, the SA's caps). */
void client_limits_default(struct client_limits *l);

void client_state_init(struct client_state *cs);
void client_state_free(struct client_state *cs);

/* Building a value (in file order: a group, then its members and tree). */
struct cf_group *client_add_group(struct client_state *cs, const struct sa_mcmember_rec *rec,
				  bool well_known, uint64_t creator);
void client_add_member(struct client_state *cs, uint64_t guid, uint8_t join_state, bool proxy,
		       uint64_t by);
void client_add_tsw(struct client_state *cs, uint64_t guid, uint32_t parent, uint8_t up);
struct cf_service *client_add_service(struct client_state *cs);
struct cf_sub *client_add_sub(struct client_state *cs);

/* Parses the text of a file (name for messages). 0, or -1 with
 * "name:line: reason" in err and cs empty. */
int client_state_parse(struct client_state *cs, const char *name, const char *buf, size_t len,
		       const struct client_limits *lim, char *err, size_t errlen);
/* The rules between lines, for a value from anywhere (a parsed file, a
 * standby's copy): 0, or -1 with "name: reason" in err. */
int client_state_check(const struct client_state *cs, const struct client_limits *lim,
		       const char *name, char *err, size_t errlen);
/* The text of cs; a malloc'ed string, its length in *len. */
char *client_state_format(const struct client_state *cs, size_t *len);

/* dir/clients: 1 loaded, 0 no file (cs empty), -1 with the reason in err
 * (cs empty). */
int client_state_load(struct client_state *cs, const char *dir, const struct client_limits *lim,
		      char *err, size_t errlen);
/* Written atomically (sm/atomic.h). 0 or -1 with the reason in err. */
int client_state_save(const struct client_state *cs, const char *dir, char *err, size_t errlen);

#endif
