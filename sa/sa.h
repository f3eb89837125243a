/*
 * DOC: Subnet Administration (IBA 15), the SA agent of ibsmd.
 *
 * The SA answers SA MADs (class 0x03) that the MAD engine hands to its gsi
 * hook, from the immutable snapshot of the last complete sweep
 * (fabric/snap.h): a running sweep never blocks or changes an answer, and
 * answering never delays a sweep. It serves only while the SM is master.
 * Records, per attribute, come from one dispatch table (sa/table.c):
 * which methods are allowed, the record's size and component-mask fields
 * (mad/sa_fields.h), how the records are enumerated, special cases.
 *
 * Everything that arrives is untrusted: every malformed or unauthorized
 * request gets an SA status (sa/request.c has the list), and work and
 * memory are bounded per request (records, candidates examined, response
 * size) and per requester (a token bucket per source LID, parked requests).
 *
 * The SA knows nothing of struct sm: the daemon (sa/host.c) hands it a
 * struct sa_env of callbacks - send a GSI message, submit an SMP (to read
 * a port table lazily), the current snapshot, are we master, our SMInfo -
 * so unit tests and the fuzz target run it on synthetic snapshots.
 *
 * State of its own: ServiceRecords (with leases), InformInfo subscriptions
 * and the Reports sent to subscribers (retried until ReportResp, bounded),
 * the port tables read on demand (GUIDInfo, P_KeyTable, SL2VL, VLArb;
 * dropped with each new snapshot) and counters per attribute.
 */
#ifndef IBSM_SA_SA_H
#define IBSM_SA_SA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/engine.h"
#include "mad/smp.h"

struct sm_snap;
struct sa;
struct mc_who;
struct sa_mcmember_rec;
struct mcast_mft;

struct sa_conf {
	uint64_t sa_key;        /* SM_Key of trusted requests; 0: none is */
	uint32_t max_records;   /* records in one response, at most */
	/* Fair shares (ibsmd.conf's sa_* options; 0: no limit): per
	 * requesting port, times trusted_share for a trusted requester. */
	uint32_t services_per_port, max_services;
	uint32_t subs_per_port, max_subs;
	uint32_t trusted_share;
	/* ... and the multicast ones (fabric/mcshare.h), for the state file */
	uint32_t groups_per_port, groups_per_partition;
	uint32_t memberships_per_port, max_memberships;
	/* Reports waiting for their ReportResp: in all, to one subscriber
	 * port (sa/rec_inform.c; 0: the defaults) */
	uint32_t reports_max, reports_per_port;
};
/* The defaults of those limits, as ibsmd.conf's (conf/conf.c). */
void sa_conf_default(struct sa_conf *c);

struct sa_env {
	void *arg;
	/* Send one GSI message (mad_engine_send_gsi): 0 or -errno; -EALREADY
	 * means a response with that TID to that requester is still in flight. */
	int (*send)(void *arg, const uint8_t *msg, size_t len, const struct mad_addr *to);
	/* Submit a LID-routed SMP Get (mad_engine_submit): done runs exactly
	 * once, maybe later. 0, or -errno and done never runs. */
	int (*smp)(void *arg, const struct mad_req *r, mad_done_fn done, void *done_arg);
	/* The current snapshot (borrowed), NULL before the first sweep. */
	const struct sm_snap *(*snapshot)(void *arg);
	bool (*master)(void *arg);
	/* The SMs of the subnet, us first: their LID and SMInfo, SM_Key
	 * included (SMInfoRecord hides it from untrusted requesters). Fills
	 * at most max; returns how many there are. */
	size_t (*sm_list)(void *arg, uint16_t *lids, struct smp_sm_info *infos, size_t max);
	/* The configuration now (after a reload); NULL: the one given to
	 * sa_new() or sa_set_conf(). */
	void (*conf)(void *arg, struct sa_conf *out);
	/* Monotonic ms; NULL: CLOCK_MONOTONIC. */
	uint64_t (*now_ms)(void *arg);
	/* Multicast, the SM's group database (sm/mcast.h): MCMemberRecord
	 * Set, Delete, Get/GetTable; each returns the SA status. NULL: joins
	 * and leaves are refused (ERR_REQ_INVALID), queries find nothing. */
	uint16_t (*mc_join)(void *arg, const struct mc_who *who, const struct sa_mcmember_rec *req,
			    uint64_t mask, struct sa_mcmember_rec *resp);
	uint16_t (*mc_leave)(void *arg, const struct mc_who *who, const struct sa_mcmember_rec *req,
			     uint64_t mask, struct sa_mcmember_rec *resp);
	uint16_t (*mc_query)(void *arg, const struct mc_who *who,
			     const struct sa_mcmember_rec *tmpl, uint64_t mask,
			     int (*fn)(void *fn_arg, const struct sa_mcmember_rec *rec), void *fn_arg,
			     size_t *count);
	/* The MulticastForwardingTable a switch holds as far as the SM knows
	 * (MulticastForwardingTableRecord), NULL: none. */
	const struct mcast_mft *(*mft_held)(void *arg, uint64_t switch_guid);
	/* The groups' generation (fabric/mcdb.h mcdb_gen), how many groups and
	 * memberships there are, for ClientStateInfo. NULL: none. */
	void (*mc_counts)(void *arg, uint64_t *gen, uint32_t *groups, uint32_t *members);
};

struct sa *sa_new(const struct sa_env *env, const struct sa_conf *conf);
/* Frees everything; parked requests are dropped unanswered. Free it after
 * the MAD engine, whose teardown completes the SMPs the SA submitted. */
void sa_free(struct sa *sa);
void sa_set_conf(struct sa *sa, const struct sa_conf *conf);

/* The MAD engine's gsi hook (mad_gsi_fn, arg = the struct sa): the MAD
 * counts as received now. */
void sa_recv(void *sa, const uint8_t *msg, size_t len, int status, const struct mad_addr *from);
/* The same for a MAD the daemon received at t_us (clock_us()) and held
 * since (sa/host.c's queue while a sweep runs): latency counts from t_us. */
void sa_recv_at(struct sa *sa, const uint8_t *msg, size_t len, int status,
		const struct mad_addr *from, uint64_t t_us);
/* Answer the request in msg BUSY without looking further (the daemon's
 * queue of requests waiting for a sweep is full); counted as busy. */
void sa_busy(struct sa *sa, const uint8_t *msg, size_t len, const struct mad_addr *from);
/* Catch up with the current snapshot: GIDs that came into or went out of
 * service since the last one are reported (traps 64 and 65), port tables
 * read for the old one are dropped. Called on every SM change; requests
 * call it too. */
void sa_sync(struct sa *sa);
/* Timers: lease expiry, Report retries, parked requests. Call
 * sa_on_timer() at sa_next_deadline() (UINT64_MAX: none). */
void sa_on_timer(struct sa *sa);
uint64_t sa_next_deadline(const struct sa *sa);

/* Report a Notice to the subscribers whose InformInfo matches it: traps
 * 64/65 (made by sa_sync), 66/67 (MGID created/deleted: the multicast
 * code's entry point) and the traps the SM received (128, 144, ...). The
 * Notice is sent as is; IssuerLID/IssuerGID are the caller's to fill. */
void sa_report_notice(struct sa *sa, const struct smp_notice *n);
/* Traps 66 and 67 (a multicast group created, deleted): reported only to
 * subscribers whose port holds the group's partition (pkey). */
void sa_report_mcast(struct sa *sa, uint16_t trap, const uint8_t mgid[16], uint16_t pkey);
/* A Notice of ours (traps 64-67): generic, type 3 (informational),
 * ProducerType 4 (class manager), issued by the SM's port; gid goes into
 * DataDetails bytes 6..21 (IBA 13.4.8.2, Notice). */
void sa_sm_notice(const struct sm_snap *s, uint16_t trap, const uint8_t gid[16],
		  struct smp_notice *n);

/* --- what clients built, kept across restarts (sa/clients.c) --- */

struct client_state;
struct client_limits;
/* Changes with every change of services or subscriptions. */
uint64_t sa_clients_gen(const struct sa *sa);
/* Appends the services (leases on the wall clock now_wall, Unix ms) and
 * subscriptions to cs. */
void sa_clients_export(const struct sa *sa, struct client_state *cs, uint64_t now_wall);
/* Replaces them with cs's (checked: client_state_check); services whose
 * lease ended before now_wall are left out. Returns how many were. */
size_t sa_clients_restore(struct sa *sa, const struct client_state *cs, uint64_t now_wall);
/* Forgets every service, subscription and Report waiting for its answer. */
void sa_clients_clear(struct sa *sa);
/* What a saved state may hold: the limits of c, a trusted requester's
 * share per port (a file does not say who was trusted). */
void sa_client_limits(const struct sa_conf *c, struct client_limits *l);
/* What clients built for ports that left the fabric goes: services
 * under their GIDs, their subscriptions, Reports waiting for them.
 * gone(arg, port GUID) says whether a port left (for certain). Returns
 * how many services and subscriptions went. */
size_t sa_clients_departed(struct sa *sa, bool (*gone)(void *arg, uint64_t guid), void *arg);

/* --- the control socket's view (ctl/ctl_sa.c) --- */

/* An attribute the SA serves: its name, saquery's alias, the record. */
struct sa_attr_name {
	uint16_t id;
	const char *name;
	const char *alias;
};
/* By name or alias (case-insensitive), NULL when unknown. */
const struct sa_attr_name *sa_attr_lookup(const char *name);
/* All of them, for help texts. */
const struct sa_attr_name *sa_attr_names(size_t *n);

/* The answer to a query through the control socket: the records exactly
 * as a GetTableResp would carry them (padded), or an SA status. */
struct sa_result {
	uint16_t status;        /* MAD/SA status; 0 ok */
	uint16_t size;          /* record wire size */
	uint16_t padded;        /* their stride in recs */
	uint32_t n;
	uint8_t *recs;          /* owned: sa_result_free() */
	uint32_t pending;       /* port tables being read: ask again */
};
/* A GetTable (Get for ClassPortInfo) of attribute attr with template tmpl
 * (the record's wire size, zero-filled where unused) and component mask,
 * answered by the same code as a MAD, without the response size limits of
 * a MAD but with max_records (the smaller of the argument, when not 0,
 * and the configuration's: then ERR_REQ_TOO_MANY_RECORDS). No partition
 * filtering (the control socket is local); trusted sees M_Keys, SM_Keys
 * and P_Key tables. */
void sa_query_local(struct sa *sa, uint16_t attr, uint32_t attr_mod, uint64_t mask,
		    const uint8_t *tmpl, size_t tlen, bool trusted, uint32_t max_records,
		    struct sa_result *res);
void sa_result_free(struct sa_result *res);
/* A short name for an SA status ("ERR_NO_RECORDS"). */
const char *sa_status_name(uint16_t status);

/* Why a request was refused (sa_stats.refused). */
enum sa_refusal {
	SA_REF_SERVICES_PORT,   /* the port has sa_services_per_port */
	SA_REF_SERVICES,        /* sa_max_services reached */
	SA_REF_SERVICE_GID,     /* untrusted, under another port's GID */
	SA_REF_SERVICE_OWNER,   /* replace or delete another's service */
	SA_REF_SUBS_PORT,       /* the port has sa_subscriptions_per_port */
	SA_REF_SUBS,            /* sa_max_subscriptions reached */
	SA_REF_N
};
/* "services_per_port", ... as ibsmctl shows them. */
const char *sa_refusal_name(enum sa_refusal r);

/* Counters. Latency: microseconds from the daemon's receipt of the request
 * (sa_recv_at) to the response's send, time held or parked included. */
struct sa_attr_stats {
	const char *name;
	uint16_t attr;
	uint64_t requests;      /* answered or refused with a status */
	uint64_t errors;        /* ... of them with a non-zero status */
	uint64_t records;       /* records sent */
	uint32_t p50_us, p99_us;
};
struct sa_stats {
	uint64_t received;      /* requests handed to the SA */
	uint64_t not_master;    /* dropped: we are not master */
	uint64_t malformed;     /* dropped: too short, not an SA MAD */
	uint64_t unexpected;    /* dropped: responses other than ReportResp */
	uint64_t denied;        /* answered ERR_REQ_DENIED (SM_Key, trust) */
	uint64_t busy;          /* answered BUSY (requester over its budget) */
	uint64_t already;       /* response refused: one still in flight */
	uint64_t send_failed;   /* other send errors */
	uint64_t parked;        /* requests that waited for port tables */
	uint64_t smp_reads;     /* port tables read */
	uint64_t reports_sent;  /* Report MADs sent, retries included */
	uint64_t reports_acked;
	uint64_t reports_dropped; /* given up after the retries, or queue full */
	uint64_t subscribers_dropped; /* their Reports kept failing */
	uint64_t notices_dropped; /* traps 66/67 of one requester's groups past its rate */
	uint64_t refused[SA_REF_N];   /* requests refused for a limit, by reason */
	uint64_t departed;      /* services and subscriptions of ports that left */
	uint32_t subscriptions;
	uint32_t services;
	uint32_t pending;       /* requests parked now */
};
void sa_get_stats(const struct sa *sa, struct sa_stats *st);
/* Per attribute, in table order; returns how many were written (at most
 * max) and the total in *total. */
size_t sa_get_attr_stats(const struct sa *sa, struct sa_attr_stats *out, size_t max,
			 size_t *total);
/* For a Prometheus histogram: requests answered within each bound (us,
 * ascending; a histogram bucket counts when its whole range is within),
 * all requests, and their latencies summed (us). */
void sa_get_latency(const struct sa *sa, const uint32_t *bounds_us, size_t n, uint64_t *le,
		    uint64_t *count, uint64_t *sum_us);

#endif
