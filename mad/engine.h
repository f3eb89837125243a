/*
 * DOC: the SMP transaction engine and the transport it runs on.
 *
 * The engine owns every outstanding SMP: it gives each a TID, finds the
 * request for a response in O(1), keeps at most `window` SMPs on the wire and
 * at most `per_dest` to any one destination, times out and retries them
 * itself (umad2sim ignores umad_send's timeout; on real hardware we pass
 * retries=0 to the kernel and keep the policy here), and calls exactly one
 * completion per submitted request.
 *
 * Retries adapt to loss: after `retries` immediate retries a request that
 * keeps failing is retried up to `retries_max` times in all, each after a
 * doubling pause (backoff_ms, capped at backoff_max_ms) during which it
 * holds no window slot, so a lossy path does not stall the rest of the
 * window (it keeps its place in its destination's cap). A destination whose
 * requests failed every attempt twice in a row is taken as gone for as long
 * as it has work queued: its further requests get the immediate retries
 * only, so a dead node costs two backoff series, not one per request.
 *
 * It knows nothing of libevent: the owner calls mad_engine_on_readable() when
 * the transport fd is readable and mad_engine_on_timer() at
 * mad_engine_next_deadline(). Time comes from opts.now_ms so tests can use a
 * fake clock.
 *
 * GSI classes (today the SA, class 0x03) ride on the same transport: every
 * received MAD of such a class goes to the `gsi` hook, and
 * mad_engine_send_gsi() sends whole GSI messages, segmenting long ones with
 * RMPP either in the kernel or, when the transport says so, in rmpp.c.
 *
 * GMPs (today PerfMgt, class 0x04): LID-routed Get/Set requests to QP1 with
 * the GSI Q_Key, TID-matched like SMPs but with a window, timeout and
 * retries of their own (gmp_*). They rank below everything else the SM
 * sends: a GMP goes on the wire only while no SMP waits for a window slot
 * and fewer than gmp_window GMPs are outstanding; GMPs never hold an SMP's
 * slot, and SA answers and traps are sent at once, queued behind nothing.
 */
#ifndef IBSM_MAD_ENGINE_H
#define IBSM_MAD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

/* Where a MAD goes: DR SMPs need only the path, LID-routed ones the DLID.
 * On receipt, where it came from (dlid is then the source LID). */
struct mad_addr {
	uint16_t dlid;     /* LID-routed destination; LID_PERMISSIVE for DR */
	uint32_t qpn;      /* 0 for SMPs */
	uint32_t qkey;
	uint8_t sl;
	/* GSI answers go back the way the request came (LID, QPN, P_Key index,
	 * SL and GRH of the request):
	 * these are copied from the received umad address. umad2sim fills only
	 * the LID and QPN and leaves the rest as its buffer held it, so they are
	 * untrusted input; the transport only clamps grh_present to 0 or 1. */
	uint16_t pkey_index;
	uint8_t grh_present;
	uint8_t gid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label;
	uint8_t gid[16];   /* the remote port's GID when grh_present */
};

/* The well-known Q_Key of QP1, which every GSI MAD carries. */
#define MAD_QKEY_GSI 0x80010000u

/* The address to answer a GSI MAD received from `from`: the same LID, QP,
 * SL, P_Key index and GRH, with the GSI Q_Key. */
void mad_addr_reply(const struct mad_addr *from, struct mad_addr *to);

/* struct mad_transport.flags */
#define MAD_TP_USER_RMPP 0x1   /* send() takes single MADs only: RMPP is ours */

/* The largest GSI message the engine receives; longer ones are dropped. */
#define MAD_RECV_MAX (64u * 1024)

/* The transport: real umad, umad2sim (the same code under LD_PRELOAD), or a
 * fake for unit tests. */
struct mad_transport {
	void *ctx;
	/* Send one MAD (len <= MAD_SIZE) or, unless flags has MAD_TP_USER_RMPP,
	 * a whole RMPP-active GSI message of any length, which the kernel
	 * segments. 0 or -errno; -EALREADY when the kernel refused a response
	 * because one with the same TID to the same destination is still in
	 * flight (Linux user_mad.c is_duplicate). */
	int (*send)(void *ctx, const uint8_t *mad, size_t len, const struct mad_addr *to);
	/* Non-blocking receive. Returns the MAD length (> 0), 0 when nothing is
	 * waiting, or -errno. *status is umad_status(): non-zero means the MAD is
	 * our own send coming back failed (e.g. ETIMEDOUT); *from the source.
	 * -EMSGSIZE: a (reassembled) message longer than cap arrived and was
	 * dropped; the caller may read on. */
	int (*recv)(void *ctx, uint8_t *buf, size_t cap, int *status, struct mad_addr *from);
	int (*fd)(void *ctx);
	void (*close)(void *ctx);
	unsigned flags;    /* MAD_TP_* */
};

/* Completion status (the `err` of mad_done_fn). */
enum mad_err {
	MAD_OK = 0,
	MAD_ERR_TIMEOUT = -1,   /* no valid response after all retries */
	MAD_ERR_STATUS = -2,    /* response carried a non-zero MAD status */
	MAD_ERR_SEND = -3,      /* transport refused the send */
	MAD_ERR_CANCELED = -4,  /* engine destroyed or request canceled */
	MAD_ERR_REFUSED = -5,   /* the owner's set_gate refused to send it */
};

/* What to send. For DR SMPs (mgmt_class MAD_CLASS_SMI_DR) path[1..hop_cnt]
 * is the initial path; for LID-routed ones dlid is used. data is the SMP
 * attribute payload (Set data; ignored for Get). */
#define MAD_REQ_NO_BACKOFF 0x01   /* immediate retries only (a probe that a node
				      may well never answer) */

struct mad_req {
	uint8_t flags;          /* MAD_REQ_* */
	uint8_t mgmt_class;
	uint8_t method;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t mkey;
	uint16_t dlid;
	uint8_t hop_cnt;
	uint8_t path[64];
	uint8_t data[SMP_DATA_SIZE];
};

/* Called exactly once per submitted request. On MAD_OK and MAD_ERR_STATUS
 * resp is the decoded response (resp->hdr.status holds the status); on the
 * other errors resp is NULL. */
typedef void (*mad_done_fn)(void *arg, int err, const struct smp *resp);

/* A MAD that is not a response to one of ours (Get SMInfo from another SM or
 * a diag tool, a Trap): raw bytes and where it came from. */
typedef void (*mad_unsolicited_fn)(void *arg, const uint8_t *mad, size_t len,
				   const struct mad_addr *from);

/* A MAD (or a message the kernel reassembled, up to MAD_RECV_MAX bytes) of
 * a GSI class: a request, a response such as ReportResp, or - with a
 * non-zero umad status - one of our own GSI sends returned by the transport
 * (the kernel returns only its first 24 bytes then). RMPP ACK/STOP/ABORT
 * MADs of a send in progress in rmpp.c are consumed by the engine and do
 * not come here. The bytes are valid during the call only. */
typedef void (*mad_gsi_fn)(void *arg, const uint8_t *msg, size_t len, int status,
			   const struct mad_addr *from);

/* A GMP request: the MAD header's fields and what follows the header. */
#define MAD_GMP_DATA_SIZE (MAD_SIZE - 24)
struct mad_gmp_req {
	uint16_t dlid;
	uint8_t mgmt_class;     /* a GMP class the transport registered */
	uint8_t class_version;
	uint8_t method;         /* Get or Set */
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t data[MAD_GMP_DATA_SIZE];   /* MAD bytes 24..255 */
};

/* Called exactly once per submitted GMP: on MAD_OK and MAD_ERR_STATUS the
 * whole response MAD (MAD_SIZE bytes, class, attribute and TID checked,
 * the rest for the caller to parse); on the other errors mad is NULL. */
typedef void (*mad_gmp_done_fn)(void *arg, int err, const uint8_t *mad, size_t len);

struct mad_engine_opts {
	unsigned window;       /* max SMPs on the wire, default 64 */
	unsigned per_dest;     /* max SMPs to one destination, default 4 */
	unsigned timeout_ms;   /* per attempt, default 200 */
	unsigned retries;      /* immediate extra attempts after the first, default 3 */
	unsigned retries_max;  /* extra attempts in all, with backoff after the
				  immediate ones; <= retries (default): none */
	unsigned backoff_ms;   /* first pause, doubled each time; default 10 */
	unsigned backoff_max_ms; /* longest pause, default 500 */
	unsigned queue_max;    /* max queued (not yet sent) requests, default 1<<20 */
	uint64_t (*now_ms)(void *arg);  /* monotonic clock; NULL = CLOCK_MONOTONIC */
	void *now_arg;
	mad_unsolicited_fn unsolicited;
	void *unsolicited_arg;
	mad_gsi_fn gsi;        /* NULL: GSI MADs are dropped */
	void *gsi_arg;
	/* Asked before every SMP Set (method Set, class 0x01 or 0x81) goes on
	 * the wire: each attempt of a submitted request, retries included,
	 * and every raw send. Returning false refuses it: a request then
	 * completes with MAD_ERR_REFUSED, a raw send returns -EPERM. The SM
	 * uses it so that nothing but a master writes to the fabric, whatever
	 * path queued the Set. NULL: every Set goes. */
	bool (*set_gate)(void *arg, uint8_t mgmt_class, uint16_t attr_id);
	void *set_gate_arg;
	/* GMPs: the most outstanding at once (default 16, at most 1024), the
	 * per-attempt timeout (default: timeout_ms) and immediate retries
	 * (default 0: the performance manager re-asks itself) */
	unsigned gmp_window;
	unsigned gmp_timeout_ms;
	unsigned gmp_retries;
	/* RMPP sends done here (transports with MAD_TP_USER_RMPP) */
	unsigned rmpp_max_sessions; /* at once, default 64 */
	size_t rmpp_max_bytes;      /* their messages together, default 16 MiB */
	unsigned rmpp_timeout_ms;   /* ACK wait, default RMPP_DEF_TIMEOUT_MS */
	unsigned rmpp_retries;      /* window resends, default RMPP_DEF_RETRIES */
};

struct mad_stats {
	uint64_t sent;          /* MADs handed to the transport, retries included */
	uint64_t retries;       /* re-sends after a timeout */
	uint64_t completed;     /* requests completed MAD_OK */
	uint64_t failed;        /* requests completed with an error */
	uint64_t timeouts;      /* attempts that timed out */
	uint64_t backoffs;      /* retries sent after a pause */
	uint64_t raw_sent;      /* MADs sent with mad_engine_send_raw (answers, traps) */
	uint64_t dropped;       /* received MADs dropped: malformed, stray, duplicate, bad DR */
	uint64_t unsolicited;   /* received MADs handed to the unsolicited hook */
	uint64_t sets_refused;  /* SMP Sets set_gate refused (requests and raw sends) */
	unsigned outstanding;   /* on the wire now */
	unsigned queued;        /* waiting for a window slot */
	unsigned delayed;       /* pausing before a retry */
	unsigned max_outstanding; /* high-water mark */
	/* GSI; the two drop reasons are also counted in dropped */
	uint64_t unknown_class; /* received MADs of a class we do not serve */
	uint64_t too_long;      /* received messages longer than MAD_RECV_MAX */
	uint64_t gsi;           /* received GSI MADs handed to the gsi hook */
	uint64_t gsi_sent;      /* GSI sends handed to the transport (MADs or whole messages) */
	uint64_t rmpp_done;     /* RMPP sends of ours acknowledged to the end */
	uint64_t rmpp_failed;   /* ... stopped, aborted or timed out */
	unsigned rmpp_sessions; /* RMPP sends of ours in progress */
	size_t rmpp_bytes;      /* their messages together */
	/* GMPs */
	uint64_t gmp_sent;      /* GMPs handed to the transport, retries included */
	uint64_t gmp_retries;   /* re-sends after a timeout */
	uint64_t gmp_completed; /* completed MAD_OK */
	uint64_t gmp_failed;    /* completed with an error */
	uint64_t gmp_timeouts;  /* attempts that timed out */
	uint64_t gmp_dropped;   /* received GMPs dropped: stray, late, malformed */
	unsigned gmp_outstanding;
	unsigned gmp_queued;
};

struct mad_engine;

void mad_engine_opts_default(struct mad_engine_opts *o);
struct mad_engine *mad_engine_new(const struct mad_transport *tp, const struct mad_engine_opts *o);
/* Cancels everything outstanding (completions with MAD_ERR_CANCELED), closes
 * nothing: the transport belongs to the caller. */
void mad_engine_free(struct mad_engine *e);

/* Takes window (up to 1024, or the window at creation if larger),
 * per_dest, timeout_ms, retries, retries_max, backoff_ms, backoff_max_ms
 * and the gmp_* limits from o (zero: the default), the rest stays. Requests on the wire keep their deadline and count; the new caps
 * hold for what is sent from now on. */
void mad_engine_set_limits(struct mad_engine *e, const struct mad_engine_opts *o);

/* Queue a request; it is sent as soon as the window and the destination cap
 * allow. 0, or -ENOBUFS when the queue is full (no completion then). */
int mad_engine_submit(struct mad_engine *e, const struct mad_req *req, mad_done_fn done, void *arg);

/* Queue a GMP; it is sent when no SMP waits and the GMP window allows.
 * 0; -EINVAL (no done, not a GMP class); -ENOBUFS (queue_max reached). */
int mad_engine_submit_gmp(struct mad_engine *e, const struct mad_gmp_req *req,
			  mad_gmp_done_fn done, void *arg);

/* Send a MAD that expects no response (GetResp to a query, TrapRepress);
 * not windowed, not retried. 0 or -errno. */
int mad_engine_send_raw(struct mad_engine *e, const uint8_t *mad, size_t len, const struct mad_addr *to);

/* Send a whole GSI message (class header + data; for the SA the 56-byte
 * header and the records). Up to MAD_SIZE bytes without the RMPP Active flag
 * it goes out as one MAD, zero-padded. Longer ones, and any with the Active
 * flag set (OpenSM marks every GetTableResp so), go out RMPP-active: as one
 * buffer that the kernel segments, or, on a MAD_TP_USER_RMPP transport,
 * segment by segment from rmpp.c, the engine keeping the message until the
 * receiver has acknowledged it (or stopped, aborted or timed out).
 * msg is copied; the caller may reuse it at once. Returns 0; -EINVAL (not a
 * GSI class, too short); -EMSGSIZE (over RMPP_MAX_MSG, or RMPP for a class
 * without it); -EALREADY (an RMPP send with this TID to this destination is
 * still in progress: the request was answered already); -ENOBUFS (the RMPP
 * session or byte cap is reached); or the transport's -errno. */
int mad_engine_send_gsi(struct mad_engine *e, const uint8_t *msg, size_t len,
			const struct mad_addr *to);

/* Drain the transport: match responses, fail timed-out sends, refill the
 * window. Completions run from here. */
void mad_engine_on_readable(struct mad_engine *e);
/* Expire attempts whose deadline passed (retry or fail), refill the window. */
void mad_engine_on_timer(struct mad_engine *e);
/* Milliseconds (on the engine's clock) of the earliest deadline, or
 * UINT64_MAX when nothing is outstanding. */
uint64_t mad_engine_next_deadline(const struct mad_engine *e);
/* True when no SMP or GMP is outstanding, queued or pausing before a retry
 * (RMPP sends are not counted; their deadlines are in
 * mad_engine_next_deadline()). */
int mad_engine_idle(const struct mad_engine *e);
/* For a clean stop: from here on no queued SMP or GMP goes on the wire
 * (mad_engine_free cancels them), while answers to those on it are still
 * taken. A process that closes its port with requests on the wire gets
 * their answers after the close: a kernel drops them, ibsim's umad2sim
 * crashes its receiver thread on them (a MAD for a closed agent). */
void mad_engine_quiesce(struct mad_engine *e);
/* True while an SMP or GMP sent is waiting for its answer or timeout. */
bool mad_engine_awaiting(const struct mad_engine *e);
void mad_engine_get_stats(const struct mad_engine *e, struct mad_stats *st);

/* The real transport: libibumad on CA `ca` (NULL = first with an active
 * port) port `port` (0 = first active), or the port whose GUID is port_guid
 * when non-zero. Registers classes 0x01 and 0x81 (Get/Set/Trap/TrapRepress
 * served) and the SA, class 0x03 version 2 (Get, Set, GetTable, GetMulti,
 * Delete, Report; kernel RMPP), opens issm when want_issm so we can set
 * IsSM and receive SMInfo. Fills *tp, and on success info about the opened
 * port. On error returns -1 with a one-line message in err. */
struct mad_port_info {
	char ca_name[64];
	int port_num;
	uint64_t port_guid;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t state;
	int user_rmpp;      /* the SA agent does RMPP in user space (rmpp.c) */
	char note[160];     /* "" or something worth a log line (RMPP fallback) */
};
int mad_umad_open(const char *ca, int port, uint64_t port_guid, int want_issm,
		  struct mad_transport *tp, struct mad_port_info *info, char *err, size_t errlen);

struct mad_umad_opts {
	int want_issm;      /* default 1 */
	int sa;             /* register the SA agent; default 1 */
	/* Ask the kernel to leave the SA agent's RMPP to us (umad_register2
	 * with UMAD_USER_RMPP); default 0. When refused (umad2sim, old kernels)
	 * the agent gets kernel RMPP and info->note says so. Without kernel
	 * RMPP long SA requests (GetMulti) arrive as raw segments. */
	int user_rmpp;
};
void mad_umad_opts_default(struct mad_umad_opts *o);
/* mad_umad_open() with all the options. */
int mad_umad_open_opts(const char *ca, int port, uint64_t port_guid,
		       const struct mad_umad_opts *o, struct mad_transport *tp,
		       struct mad_port_info *info, char *err, size_t errlen);
/* The kernel's send timeout of a transport from mad_umad_open(): set it to
 * the engine's per-attempt timeout (the kernel drops a response that comes
 * after it). Default 200 ms. */
void mad_umad_set_timeout(struct mad_transport *tp, unsigned ms);

/* An in-memory transport for unit tests: see tests/unit/fake_transport.h. */

#endif
