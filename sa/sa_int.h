/*
 * DOC: what the files of sa/ share, and nobody else.
 *
 * A request becomes a struct sa_ctx (sa/request.c): the decoded header,
 * the template, who asks and whether they are trusted. The attribute's
 * handler (one file per record family, listed in table.c) enumerates the
 * candidate records from the snapshot, builds each in wire format and
 * calls sa_emit(), which matches it against the template under the
 * component mask, counts the work, applies the limits and appends it
 * padded to the response. Handlers that look records up by a key (a LID,
 * a GUID) instead of scanning clear that key's bit from match_mask.
 */
#ifndef IBSM_SA_SA_INT_H
#define IBSM_SA_SA_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ibsm/sa_wire.h"
#include "lib/guidtab.h"
#include "mad/sa.h"
#include "mad/sa_fields.h"
#include "sa/sa.h"
#include "fabric/snap.h"
#include "lib/guidtab.h"

/* Methods an attribute takes (struct sa_attr.methods). */
#define SA_M_GET 0x01
#define SA_M_SET 0x02
#define SA_M_GET_TABLE 0x04
#define SA_M_DELETE 0x08
#define SA_M_GET_MULTI 0x10

/* Limits. A unit of work is one candidate record looked at (a node, a
 * port, a port pair of a PathRecord query): tens to hundreds of ns. */
#define SA_WORK_MAX (1u << 20)        /* per request: then ERR_NO_RESOURCES */
#define SA_RQ_RATE 2000000            /* work per second per requester LID */
#define SA_RQ_BURST 4000000           /* ... and its bucket: then BUSY */
#define SA_PARK_MAX 64                /* requests waiting for port tables */
#define SA_PARK_PER_RQ 4              /* ... from one requester */
#define SA_PARK_TIMEOUT_MS 800        /* answer with what was read by then */
#define SA_FETCH_PER_REQ 4096         /* port tables one request may read */
#define SA_PORTDATA_MAX (1u << 15)    /* port tables kept per snapshot */
/* The defaults of the fair shares (struct sa_conf; ibsmd.conf's). */
#define SA_MAX_SERVICES 16384
#define SA_SERVICES_PER_PORT 64       /* ... registered by one requester port */
#define SA_MAX_SUBS 16384             /* InformInfo subscriptions */
#define SA_SUBS_PER_PORT 32
#define SA_TRUSTED_SHARE 16
#define SA_GROUPS_PER_PORT 64
#define SA_MEMBERSHIPS_PER_PORT 1024
#define SA_MAX_MEMBERSHIPS (1u << 20)
/* Reports waiting for a ReportResp: in all, and to one subscriber port
 * (a full queue makes room by dropping one of the subscriber with the
 * most); a subscriber in service whose Reports failed this many times in
 * a row loses its subscriptions. */
#define SA_REPORTS_MAX 4096
#define SA_REPORTS_PER_PORT 64
#define SA_REPORT_FAILS_MAX 8
/* Traps 66 and 67 of the groups one requester creates and deletes are
 * reported at most this often (a burst, then a second): a host that
 * churns groups does not fill everyone's Report queues and log. */
#define SA_CAUSE_NOTICE_BURST 100
#define SA_CAUSE_NOTICE_RATE 20
#define SA_REPORT_RETRY_MS 1000
#define SA_REPORT_TRIES 4

/* SA ClassPortInfo:CapabilityMask bits we set (ClassPortInfo is IBA
 * 13.4.8.1; the bits as OpenSM's osm_base.h OSM_CAP_*); IsUDMulticastSupported when the daemon
 * gives the SA its multicast groups. */
#define SA_CAP_NOTICE (1u << 1)              /* IsSubnetGetSetNoticeSupported */
#define SA_CAP_OPTIONAL_RECORDS (1u << 8)    /* IsSubnetOptionalRecordsSupported */
#define SA_CAP_UD_MULTICAST (1u << 9)        /* IsUDMulticastSupported */
#define SA_CAP_MULTIPATH (1u << 10)          /* IsMultiPathSupported */
#define SA_CAP_PORTINFO_CAPMASK_MATCH (1u << 13)

/* SMP attributes the SA reads from ports (IBA 14.2.5). */
#ifndef SMP_ATTR_GUID_INFO
#define SMP_ATTR_GUID_INFO 0x0014
#endif
#ifndef SMP_ATTR_PKEY_TABLE
#define SMP_ATTR_PKEY_TABLE 0x0016
#endif
#ifndef SMP_ATTR_SL2VL_TABLE
#define SMP_ATTR_SL2VL_TABLE 0x0017
#endif
#ifndef SMP_ATTR_VLARB_TABLE
#define SMP_ATTR_VLARB_TABLE 0x0018
#endif

/* PortInfo:CapabilityMask bit 6, IsSLMappingSupported (IBA 14.2.5.6). */
#define PI_CAP_SL_MAPPING (1u << 6)

struct sa_ctx;

struct sa_attr {
	struct sa_attr_name nm;
	uint8_t methods;             /* SA_M_* */
	uint16_t size;               /* wire size of the record (or attribute) */
	bool trusted_only;           /* untrusted requests: ERR_REQ_DENIED */
	bool modifier_bit31;         /* AttributeModifier may be 0x80000000 */
	/* Request checks beyond the generic ones: 0 or an SA status. */
	uint16_t (*check)(struct sa_ctx *c);
	/* Get, GetTable, GetMulti: sa_emit() every candidate. */
	void (*get)(struct sa_ctx *c);
	void (*set)(struct sa_ctx *c);
	void (*del)(struct sa_ctx *c);
};

/* What a PathRecord walk reads of a port and a node, packed (rec_path.c):
 * on a 40k-LID fabric the snapshot's own structs are tens of MB, and a
 * walk would miss the cache at every hop. */
struct sa_hop {
	uint32_t peer;               /* port index, SNAP_NONE */
	uint32_t node;
	uint16_t rate;               /* tenths of Gb/s, 0: no PortInfo */
	uint8_t mtu;                 /* NeighborMTU; MTUCap for a switch's port 0 */
	uint8_t active;
};

struct sa_hnode {
	uint32_t port0;
	uint8_t nports;
	uint8_t is_switch;
	uint8_t ltv;                 /* SwitchInfo:LifeTimeValue */
};

/* The per-snapshot index the SA builds once: port GUIDs hashed (O(1)
 * lookups; the snapshot's own are binary searches), the end ports - CA
 * ports and switch port 0 that hold a LID - in snapshot order, and the
 * packed hop tables. */
struct sa_index {
	struct guidtab by_guid;      /* port GUID -> port index (sa.c) */
	uint32_t *ends;
	uint32_t nends;
	struct sa_hop *hop;          /* [nports] */
	struct sa_hnode *hnode;      /* [nnodes] */
};

/* Fills ix->hop and ix->hnode for s (rec_path.c). */
void sa_path_index(struct sa_index *ix, const struct sm_snap *s);

struct sa_ctx {
	struct sa *sa;
	const struct sm_snap *snap;
	const struct sa_index *ix;
	const struct sa_attr *attr;
	const struct sa_rec_desc *desc;  /* NULL: no component mask (CPI, InformInfo) */
	uint8_t method;
	uint32_t attr_mod;
	uint64_t mask;
	uint64_t match_mask;         /* what sa_emit() compares */
	const uint8_t *tmpl;         /* the template, desc->size bytes at least */
	const uint8_t *data;         /* all request data (GetMulti's GIDs) */
	size_t dlen;
	bool trusted;
	bool local;                  /* the control socket: no partition filter */
	const struct snap_port *requester;   /* by the request's SLID; may be NULL */
	struct mad_addr from;
	uint64_t now_ms;
	/* the answer */
	uint16_t rec_size;           /* of what is emitted (MPR emits PathRecords) */
	uint8_t *buf;                /* records, each padded */
	size_t len, cap, max_bytes;
	uint32_t n, limit;           /* limit: Get 1, GetTable max_records */
	bool first_only;             /* Get of PathRecord: the first is the answer */
	uint64_t work, work_max;
	uint16_t status;
	uint32_t missing;            /* port tables not read yet (being read) */
	uint32_t fetches;            /* ... reads this request started */
	bool stop;
};

/* sa_emit: rec (rec_size bytes) matched and added. Returns false when the
 * caller must stop enumerating (limit, budget, error). */
bool sa_emit(struct sa_ctx *c, const uint8_t *rec);
/* Count n units of work; false (and ERR_NO_RESOURCES) past the budget. */
bool sa_work(struct sa_ctx *c, uint64_t n);
/* End the request with an SA status. */
void sa_fail(struct sa_ctx *c, uint16_t status);
/* End it with status for a limit (why): counted, logged (who asked). */
void sa_refuse(struct sa_ctx *c, enum sa_refusal why, uint16_t status);
/* The per-port limit of c's requester: limit, times the trusted share
 * when trusted; 0: none. */
uint64_t sa_share(const struct sa_ctx *c, uint32_t limit);
/* Should the requester see records about port p (partitions)? */
bool sa_visible(const struct sa_ctx *c, const struct snap_port *p);

/* Lookups over the snapshot and the index. */
const struct snap_port *sa_port_by_guid(const struct sa_ctx *c, uint64_t guid);
/* The end port of a GID: our subnet prefix (or the default fe80::/64)
 * and a known port GUID; NULL otherwise. *bad_prefix says which. */
const struct snap_port *sa_port_by_gid(const struct sa_ctx *c, const uint8_t gid[16],
				       bool *bad_prefix);
/* The LID a node answers at: a switch's port 0 LID, a CA port's own. */
uint16_t sa_node_lid(const struct sm_snap *s, const struct snap_node *n);
/* The LID of the record about port p: its own, or its switch's. */
uint16_t sa_port_lid(const struct sm_snap *s, const struct snap_port *p);
void sa_make_gid(uint64_t prefix, uint64_t guid, uint8_t gid[16]);
uint64_t sa_gid_guid(const uint8_t gid[16]);
uint64_t sa_gid_prefix(const uint8_t gid[16]);
bool sa_is_end_port(const struct sm_snap *s, const struct snap_port *p);
bool sa_in_service(const struct sm_snap *s, const struct snap_port *p);

/* Template helpers: a field of the template. */
bool sa_masked(const struct sa_ctx *c, unsigned bit);
uint16_t sa_get16(const uint8_t *p);
uint32_t sa_get32(const uint8_t *p);
uint64_t sa_get64(const uint8_t *p);

/* The attribute table (table.c). */
const struct sa_attr *sa_attr_find(uint16_t id);
size_t sa_attr_count(void);
const struct sa_attr *sa_attr_at(size_t i);
size_t sa_attr_index(const struct sa_attr *a);

/* Partitions (partition.c): the P_Key two end ports share that a path
 * between them uses - want when given (0: any), 0 when they share none. */
uint16_t sa_part_pkey(const struct sm_snap *s, const struct snap_port *a,
		      const struct snap_port *b, uint16_t want);
/* The SL a path in partition pkey gets when none is asked for, and
 * whether sl may be used in it. */
uint8_t sa_part_sl(const struct sm_snap *s, uint16_t pkey);
bool sa_part_sl_ok(const struct sm_snap *s, uint16_t pkey, uint8_t sl);
/* Does port p hold partition base(pkey), as a full or limited member? */
bool sa_part_holds(const struct sm_snap *s, const struct snap_port *p, uint16_t pkey);

/* Port tables read on demand (portdata.c). The 64 bytes of attribute
 * attr (GUIDInfo, P_KeyTable, SL2VL, VLArb) with modifier mod of port p:
 * 1 and data filled, 0 when the port does not hold it (it answered with
 * an error, or did not answer), -1 when it is being read (c->missing
 * counts it; the request is parked and run again). */
int sa_portdata(struct sa_ctx *c, const struct snap_port *p, uint16_t attr, uint32_t mod,
		uint8_t data[64]);
void sa_portdata_clear(struct sa *sa);
void sa_portdata_free(struct sa *sa);
bool sa_portdata_busy(const struct sa *sa);

/* Handlers, one family per file. */
void sa_cpi_get(struct sa_ctx *c);                       /* rec_sm.c */
void sa_csi_get(struct sa_ctx *c);                       /* rec_sm.c */
void sa_smir_get(struct sa_ctx *c);
void sa_nr_get(struct sa_ctx *c);                        /* rec_node.c */
void sa_pir_get(struct sa_ctx *c);
uint16_t sa_pir_check(struct sa_ctx *c);
void sa_lr_get(struct sa_ctx *c);                        /* rec_link.c */
void sa_swir_get(struct sa_ctx *c);                      /* rec_switch.c */
void sa_lftr_get(struct sa_ctx *c);
void sa_mftr_get(struct sa_ctx *c);
void sa_gir_get(struct sa_ctx *c);                       /* rec_ports.c */
void sa_pktr_get(struct sa_ctx *c);
void sa_sl2vl_get(struct sa_ctx *c);
void sa_vlar_get(struct sa_ctx *c);
uint16_t sa_pr_check(struct sa_ctx *c);                  /* rec_path.c */
void sa_pr_get(struct sa_ctx *c);
uint16_t sa_mpr_check(struct sa_ctx *c);                 /* rec_multipath.c */
void sa_mpr_get(struct sa_ctx *c);
uint16_t sa_sr_check(struct sa_ctx *c);                  /* rec_service.c */
void sa_sr_get(struct sa_ctx *c);
void sa_sr_set(struct sa_ctx *c);
void sa_sr_del(struct sa_ctx *c);
void sa_ii_set(struct sa_ctx *c);                        /* rec_inform.c */
void sa_mcmr_set(struct sa_ctx *c);                      /* rec_mcmember.c */
void sa_mcmr_del(struct sa_ctx *c);
void sa_mcmr_get(struct sa_ctx *c);
/* The port masks of MFT block (position, block) of switch n as the SM
 * holds them; false when none is set. */
bool sa_mft_block(const struct sa_ctx *c, const struct snap_node *n, unsigned position,
		  unsigned block, uint16_t mask[32]);
void sa_iir_get(struct sa_ctx *c);

/* PathRecords for one pair of end ports (rec_path.c), also for MultiPath:
 * t is the PathRecord template (host order) and c->match_mask its mask in
 * PathRecord bits; *budget is how many more records the caller wants
 * (UINT32_MAX: all). */
void sa_pr_pair(struct sa_ctx *c, const struct sa_path_rec *t, uint64_t mask,
		const struct snap_port *src, const struct snap_port *dst, uint32_t *budget);
/* Validate the selector/value pairs of a PathRecord template. */
uint16_t sa_pr_check_sel(const struct sa_path_rec *t, uint64_t mask);

/* Services, subscriptions and Reports (rec_service.c, rec_inform.c). */
void sa_services_free(struct sa *sa);
void sa_services_expire(struct sa *sa, uint64_t now);
uint64_t sa_services_deadline(const struct sa *sa);
uint32_t sa_services_count(const struct sa *sa);
void sa_inform_free(struct sa *sa);
void sa_inform_timer(struct sa *sa, uint64_t now);
uint64_t sa_inform_deadline(const struct sa *sa);
void sa_inform_report_resp(struct sa *sa, uint64_t tid, const struct mad_addr *from);
void sa_inform_send_failed(struct sa *sa, uint64_t tid);
void sa_inform_port_gone(struct sa *sa, uint64_t guid);
uint32_t sa_inform_count(const struct sa *sa);
/* Reports traps 64/65 for the end ports whose service state differs. */
void sa_inform_diff(struct sa *sa, const struct sm_snap *old, const struct sm_snap *cur);

/* Requests (request.c) and the parked ones. */
void sa_park_timer(struct sa *sa, uint64_t now);
uint64_t sa_park_deadline(const struct sa *sa);
void sa_park_rerun(struct sa *sa);
void sa_park_free(struct sa *sa);

/* Counters (stats.c). */
void sa_stats_note(struct sa *sa, const struct sa_attr *a, uint16_t status, uint32_t records,
		   uint64_t us);
/* The upper end (us) of latency histogram bucket i. */
uint32_t sa_hist_upper(unsigned i);

/* The SA's clock. */
uint64_t sa_now(const struct sa *sa);

/* Snapshot bookkeeping (sa.c): the snapshot the SA answers from, and
 * its index; NULL before the first sweep. */
const struct sm_snap *sa_snap(struct sa *sa, const struct sa_index **ix);

/* --- the SA's state --- */

/* Latency histogram: 8 buckets per power of two of microseconds. */
#define SA_HIST_BUCKETS 256
struct sa_counters {
	uint64_t requests, errors, records;
	uint64_t lat_sum_us;    /* latencies summed */
	uint32_t hist[SA_HIST_BUCKETS];
};

/* A requester's token bucket (one per source LID). */
struct sa_rq {
	int64_t tokens;
	uint64_t t_ms;
	uint16_t parked;
	bool seen;
};

struct sa_service {
	uint8_t rec[176];           /* as registered, wire format */
	uint64_t expires;           /* ms; UINT64_MAX: never */
	uint64_t owner_guid;        /* the port that registered it; 0: unknown, */
	uint16_t owner_lid;         /* ... then its source LID */
};

/* An InformInfo subscription; to: where its Reports go. */
struct sa_sub {
	uint8_t gid[16];            /* the subscriber's port GID */
	uint16_t id;                /* InformInfoRecord Enum */
	uint16_t lid;
	struct sa_inform_info ii;
	struct mad_addr to;
};

/* A Report waiting for its ReportResp. */
struct sa_report {
	uint64_t guid;              /* the subscriber's port */
	uint32_t tid;               /* the low 32 bits: the kernel owns the rest */
	unsigned tries;
	uint64_t deadline;
	struct mad_addr to;
	uint8_t mad[MAD_SIZE];
};

/* A subscriber port's Reports (key port number 0): waiting now, failed
 * in a row; or the notices a requester's requests caused (1): a token
 * bucket of SA_CAUSE_NOTICE_*. */
struct sa_rsub {
	struct guidtab_key key;     /* port GUID, 0 or 1 */
	uint32_t queued, fails;
	double tokens;
	uint64_t t_ms;
	bool started;
};

/* A request parked until the port tables it needs are read. */
struct sa_park {
	struct sa_park *next;
	uint64_t t_us;              /* arrival, for the latency counters */
	uint64_t deadline;
	unsigned runs;
	struct mad_addr from;
	size_t len;
	uint8_t msg[];
};

struct sa_pd_entry {
	struct guidtab_key key;     /* guid: (port + 1, attribute, modifier) */
	uint8_t state;              /* PD_* in portdata.c */
	uint8_t data[64];
};

struct sa {
	struct sa_env env;
	struct sa_conf conf;
	struct sm_snap *snap;       /* a reference */
	struct sa_index ix;
	struct sa_counters *cnt;    /* per attribute, table order */
	struct sa_stats st;
	struct sa_rq *rq;           /* [SA_RQ_LIDS], allocated on first use */
	uint8_t *rbuf;              /* the response being built */
	size_t rcap;
	struct sa_park *park;
	unsigned nparked;
	struct guidtab pd;          /* of struct sa_pd_entry (portdata.c) */
	uint32_t pd_inflight;
	uint64_t pd_gen;            /* bumped when the tables are dropped */
	struct sa_service *svc;
	uint32_t nsvc, svc_cap;
	struct sa_sub *subs;
	uint32_t nsubs, subs_cap;
	uint16_t next_sub_id;
	struct sa_report *reps;
	uint32_t nreps, reps_cap;
	struct guidtab rsubs;       /* struct sa_rsub: subscriber (port 0), cause (port 1) */
	uint64_t cause;             /* the requester of the change being made; 0: none */
	uint32_t next_tid;
	uint64_t gen;               /* bumped by every change of services or subscriptions */
};

#define SA_RQ_LIDS 0xC000u

#endif
