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
 */
#ifndef IBSM_MAD_ENGINE_H
#define IBSM_MAD_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

/* Where a MAD goes: DR SMPs need only the path, LID-routed ones the DLID. */
struct mad_addr {
	uint16_t dlid;     /* LID-routed destination; LID_PERMISSIVE for DR */
	uint32_t qpn;      /* 0 for SMPs */
	uint32_t qkey;
	uint8_t sl;
};

/* The transport: real umad, umad2sim (the same code under LD_PRELOAD), or a
 * fake for unit tests. */
struct mad_transport {
	void *ctx;
	/* Send one MAD (len <= MAD_SIZE). 0 or -errno. */
	int (*send)(void *ctx, const uint8_t *mad, size_t len, const struct mad_addr *to);
	/* Non-blocking receive. Returns the MAD length (> 0), 0 when nothing is
	 * waiting, or -errno. *status is umad_status(): non-zero means the MAD is
	 * our own send coming back failed (e.g. ETIMEDOUT); *from the source. */
	int (*recv)(void *ctx, uint8_t *buf, size_t cap, int *status, struct mad_addr *from);
	int (*fd)(void *ctx);
	void (*close)(void *ctx);
};

/* Completion status (the `err` of mad_done_fn). */
enum mad_err {
	MAD_OK = 0,
	MAD_ERR_TIMEOUT = -1,   /* no valid response after all retries */
	MAD_ERR_STATUS = -2,    /* response carried a non-zero MAD status */
	MAD_ERR_SEND = -3,      /* transport refused the send */
	MAD_ERR_CANCELED = -4,  /* engine destroyed or request canceled */
};

/* What to send. For DR SMPs (mgmt_class MAD_CLASS_SMI_DR) path[1..hop_cnt]
 * is the initial path; for LID-routed ones dlid is used. data is the SMP
 * attribute payload (Set data; ignored for Get). */
struct mad_req {
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
};

struct mad_stats {
	uint64_t sent;          /* MADs handed to the transport, retries included */
	uint64_t retries;       /* re-sends after a timeout */
	uint64_t completed;     /* requests completed MAD_OK */
	uint64_t failed;        /* requests completed with an error */
	uint64_t timeouts;      /* attempts that timed out */
	uint64_t backoffs;      /* retries sent after a pause */
	uint64_t dropped;       /* received MADs dropped: malformed, stray, duplicate, bad DR */
	uint64_t unsolicited;   /* received MADs handed to the unsolicited hook */
	unsigned outstanding;   /* on the wire now */
	unsigned queued;        /* waiting for a window slot */
	unsigned delayed;       /* pausing before a retry */
	unsigned max_outstanding; /* high-water mark */
};

struct mad_engine;

void mad_engine_opts_default(struct mad_engine_opts *o);
struct mad_engine *mad_engine_new(const struct mad_transport *tp, const struct mad_engine_opts *o);
/* Cancels everything outstanding (completions with MAD_ERR_CANCELED), closes
 * nothing: the transport belongs to the caller. */
void mad_engine_free(struct mad_engine *e);

/* Takes window (up to 1024, or the window at creation if larger),
 * per_dest, timeout_ms, retries, retries_max, backoff_ms and backoff_max_ms
 * from o (zero: the default), the rest stays. Requests on the wire keep their deadline and count; the new caps
 * hold for what is sent from now on. */
void mad_engine_set_limits(struct mad_engine *e, const struct mad_engine_opts *o);

/* Queue a request; it is sent as soon as the window and the destination cap
 * allow. 0, or -ENOBUFS when the queue is full (no completion then). */
int mad_engine_submit(struct mad_engine *e, const struct mad_req *req, mad_done_fn done, void *arg);

/* Send a MAD that expects no response (GetResp to a query, TrapRepress);
 * not windowed, not retried. 0 or -errno. */
int mad_engine_send_raw(struct mad_engine *e, const uint8_t *mad, size_t len, const struct mad_addr *to);

/* Drain the transport: match responses, fail timed-out sends, refill the
 * window. Completions run from here. */
void mad_engine_on_readable(struct mad_engine *e);
/* Expire attempts whose deadline passed (retry or fail), refill the window. */
void mad_engine_on_timer(struct mad_engine *e);
/* Milliseconds (on the engine's clock) of the earliest deadline, or
 * UINT64_MAX when nothing is outstanding. */
uint64_t mad_engine_next_deadline(const struct mad_engine *e);
/* True when nothing is outstanding, queued or pausing before a retry. */
int mad_engine_idle(const struct mad_engine *e);
void mad_engine_get_stats(const struct mad_engine *e, struct mad_stats *st);

/* The real transport: libibumad on CA `ca` (NULL = first with an active
 * port) port `port` (0 = first active), or the port whose GUID is port_guid
 * when non-zero. Registers classes 0x01 and 0x81 (Get/Set/Trap/TrapRepress
 * served), opens issm when want_issm so we can set IsSM and receive SMInfo.
 * Fills *tp, and on success info about the opened port. On error returns
 * -1 with a one-line message in err. */
struct mad_port_info {
	char ca_name[64];
	int port_num;
	uint64_t port_guid;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t state;
};
int mad_umad_open(const char *ca, int port, uint64_t port_guid, int want_issm,
		  struct mad_transport *tp, struct mad_port_info *info, char *err, size_t errlen);
/* The kernel's send timeout of a transport from mad_umad_open(): set it to
 * the engine's per-attempt timeout (the kernel drops a response that comes
 * after it). Default 200 ms. */
void mad_umad_set_timeout(struct mad_transport *tp, unsigned ms);

/* An in-memory transport for unit tests: see tests/unit/fake_transport.h. */

#endif
