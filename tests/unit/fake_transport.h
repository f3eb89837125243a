/*
 * DOC: an in-memory MAD transport and clock for engine tests and fuzzing.
 *
 * It records every MAD the engine sends, hands back MADs the test injects
 * (responses, unsolicited requests, or the engine's own sends returned with
 * a non-zero status, as umad does for a timed-out send), can refuse sends,
 * and keeps a fake millisecond clock for mad_engine_opts.now_ms.
 *
 * GSI: sends and injected messages may be longer than a MAD (an RMPP
 * message handed to the kernel whole, a reassembled request); a received
 * one longer than the engine's buffer comes back as -EMSGSIZE, as umad.c
 * reports it. struct fake_rmpp_rx plays the RMPP receiver the kernel of a
 * requester would be: it takes the DATA segments the engine sent, ACKs at
 * the end of each window and at the last segment, and can lose segments.
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
	uint8_t *big;                 /* all len bytes when len > MAD_SIZE */
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

/* Inject a message of any length, kept whole. */
void fake_tp_inject_long(struct fake_tp *ft, const uint8_t *msg, size_t len, int status,
			 const struct mad_addr *from);
/* All bytes of sent MAD or message i. */
const uint8_t *fake_tp_sent_data(const struct fake_tp *ft, size_t i);

/* An RMPP receiver. */
struct fake_rmpp_rx {
	unsigned win_step;            /* segments granted per ACK (Linux: often 64) */
	uint32_t expected;            /* next segment in order */
	uint32_t newwin;              /* NewWindowLast granted */
	uint32_t acked;               /* last segment acknowledged */
	uint32_t drop_seg;            /* lose the first arrival of this segment */
	int dropped;
	int done;                     /* the Last segment arrived in order */
	unsigned acks;                /* ACKs made */
	unsigned hdr_len;             /* class header (56 for SA) */
	uint32_t paylen_first, paylen_last, nseg;
	uint8_t *data;                /* reassembled data after the class header */
	size_t len;
};

void fake_rmpp_rx_init(struct fake_rmpp_rx *rx, unsigned win_step);
void fake_rmpp_rx_fini(struct fake_rmpp_rx *rx);
/* Take one MAD the sender sent. Returns 1 and the ACK to send back in ack
 * (MAD_SIZE bytes) when the segment calls for one, 0 when not (not DATA,
 * lost, out of order, or inside the window). */
int fake_rmpp_rx_take(struct fake_rmpp_rx *rx, const uint8_t *seg, size_t len, uint8_t *ack);
/* Build an RMPP control MAD (ACK, STOP or ABORT) answering the transfer of
 * segment seg: its header with the response bit flipped, as Linux does. */
void fake_rmpp_make(const uint8_t *seg, uint8_t *out, uint8_t type, uint8_t status, uint32_t d1,
		    uint32_t d2);
/* Feed rx every MAD sent from *next on, inject its ACKs as coming from
 * `from`, and move *next past them. Returns the number of ACKs injected. */
unsigned fake_tp_rmpp_receive(struct fake_tp *ft, struct fake_rmpp_rx *rx, size_t *next,
			      const struct mad_addr *from);

#endif
