/*
 * DOC: fair shares of the multicast groups: what each requesting port
 * made through the SA, counted against limits, so that one host can
 * take only its own share of the MLIDs and of the SM's memory.
 *
 * A group is charged to its creator - the port that asked for it, also
 * when it asked for another port (a proxy create) - and to the partition
 * of its P_Key, while it exists; a membership to its maker - the member
 * itself, or the proxy that joined it - while it exists. Groups the SM
 * made (the partitions file, ibsmctl) and memberships it made have no
 * creator or maker (0) and are not charged. A requester with the SM_Key
 * (trusted) gets trusted_share times the per-port limits; the SM itself
 * (requester 0) has none. A request over a limit is refused with
 * ERR_NO_RESOURCES, counted by reason.
 *
 * Pure: sm/mcdb.c calls it as groups and members come and go.
 */
#ifndef IBSM_SM_MCSHARE_H
#define IBSM_SM_MCSHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "sm/porttab.h"

/* 0: no limit of that kind. */
struct mc_limits {
	uint32_t groups_per_port;        /* groups a port created that still exist */
	uint32_t memberships_per_port;   /* memberships a port made that still exist */
	uint32_t groups_per_partition;   /* groups hosts created in one partition */
	uint32_t memberships;            /* memberships in all */
	uint32_t trusted_share;          /* per-port limits x this when trusted (0: 1) */
};

enum mc_refusal {
	MC_REF_NONE,
	MC_REF_GROUPS_PORT,
	MC_REF_GROUPS_PARTITION,
	MC_REF_MEMBERSHIPS_PORT,
	MC_REF_MEMBERSHIPS,
	MC_REF_MLIDS,               /* no MLID left */
	MC_REF_N
};

#define MC_PARTITIONS 0x8000

struct mc_shares {
	struct porttab ports;        /* struct mc_share by port GUID */
	uint32_t *part;              /* [MC_PARTITIONS] groups hosts created */
	uint64_t members;            /* memberships in all */
	uint64_t refused[MC_REF_N];
	enum mc_refusal last;        /* of the last join refused for a limit */
};

void mc_shares_init(struct mc_shares *s);
void mc_shares_free(struct mc_shares *s);
/* Every charge goes (the groups are cleared); the refusal counts stay. */
void mc_shares_clear(struct mc_shares *s);

/* A group of partition pkey that creator made came (+1) or went (-1). */
void mc_share_group(struct mc_shares *s, uint64_t creator, uint16_t pkey, int delta);
/* A membership that maker made came (+1) or went (-1). */
void mc_share_member(struct mc_shares *s, uint64_t maker, int delta);
uint32_t mc_share_groups_of(const struct mc_shares *s, uint64_t guid);
uint32_t mc_share_members_of(const struct mc_shares *s, uint64_t guid);
uint32_t mc_share_partition(const struct mc_shares *s, uint16_t pkey);

/* May requester create a group of partition pkey, or make one more
 * membership? MC_REF_NONE, or the limit it would pass. */
enum mc_refusal mc_share_may_create(const struct mc_shares *s, const struct mc_limits *l,
				    uint64_t requester, bool trusted, uint16_t pkey);
enum mc_refusal mc_share_may_join(const struct mc_shares *s, const struct mc_limits *l,
				  uint64_t maker, bool trusted);
/* Counts refusal r (the last one); returns the SA status, NO_RESOURCES. */
uint16_t mc_share_refuse(struct mc_shares *s, enum mc_refusal r);
/* "groups_per_port", ... as ibsmctl shows them; the log's words. */
const char *mc_refusal_name(enum mc_refusal r);
const char *mc_refusal_text(enum mc_refusal r);

#endif
