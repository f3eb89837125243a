/*
 * DOC: an in-memory MAD transport and clock for engine tests and fuzzing.
 *
 * It records every MAD the engine sends, hands back MADs the test injects
 * (responses, unsolicited requests, or the engine's own sends returned with
 * a non-zero status, as umad does for a timed-out send), can refuse sends,
 * and keeps a fake millisecond clock for mad_engine_opts.now_ms.
 */
#ifndef IBSM_TESTS_FAKE_TRANSPORT_H
#define IBSM_TESTS_FAKE_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "mad/engine.h"

struct fake_mad {
	uint8_t buf[MAD_SIZE];
	size_t len;
	int status;
	struct mad_addr addr;
};

struct fake_tp {
	struct fake_mad *sent;
	size_t nsent, sent_cap;
	struct fake_mad *rx;          /* FIFO: rx[rx_head..nrx) waiting */
	size_t nrx, rx_head, rx_cap;
	unsigned fail_sends;          /* refuse this many sends ... */
	int send_err;                 /* ... with this -errno */
	uint64_t now;                 /* fake clock, ms */
};

void fake_tp_init(struct fake_tp *ft, struct mad_transport *tp);
void fake_tp_fini(struct fake_tp *ft);
/* For mad_engine_opts.now_ms with now_arg = ft. */
uint64_t fake_tp_now(void *arg);

void fake_tp_inject(struct fake_tp *ft, const uint8_t *mad, size_t len, int status,
		    const struct mad_addr *from);
/* Queue sent MAD i back to the engine with a non-zero umad status. */
void fake_tp_return_send(struct fake_tp *ft, size_t i, int status);
/* Build the valid response to the request in req (GetResp, or TrapRepress
 * for a Trap; DR: D bit set, hop pointer 0, return path filled). */
void fake_tp_make_resp(const uint8_t *req, uint8_t *resp, uint16_t mad_status);
/* Inject the valid response to sent MAD i. */
void fake_tp_respond(struct fake_tp *ft, size_t i, uint16_t mad_status);

#endif
