/*
 * DOC: RMPP (IBA 13.6): the header codec and a pure sender state machine.
 *
 * A GSI message longer than one MAD (an SA GetTableResp: the 56-byte SA
 * header and n records) goes out as DATA segments of 256 bytes. Each
 * repeats the class header (bytes 0..35 with its own RMPP header, then the
 * rest of the class header up to the data offset, 56 for SA) and carries
 * the next 200 data bytes. The receiver ACKs windows; the sender starts
 * with a window of one segment, moves on when ACKs arrive, resends from the
 * last acknowledged segment + 1 when none comes in time, and gives up with
 * ABORT 126 after its retries.
 *
 * The sender here does no I/O and reads no clock: the caller passes `now`
 * (ms), feeds it the ACK/STOP/ABORT MADs of its transfer, asks
 * rmpp_sender_next() for each MAD to put on the wire, and calls
 * rmpp_sender_on_timer() at rmpp_sender_deadline(). It references the
 * caller's message buffer, which must stay unchanged until the sender is
 * finished. Segment numbers, PayloadLength and the ACK checks follow Linux
 * drivers/infiniband/core/mad_rmpp.c (send_next_seg, process_rmpp_ack), so
 * a receiver sees what the kernel's own RMPP would have sent.
 */
#ifndef IBSM_MAD_RMPP_H
#define IBSM_MAD_RMPP_H

#include <stddef.h>
#include <stdint.h>

#define RMPP_VERSION 1

/* RMPPType (IBA 13.6.2). */
#define RMPP_TYPE_DATA 1
#define RMPP_TYPE_ACK 2
#define RMPP_TYPE_STOP 3
#define RMPP_TYPE_ABORT 4

/* RMPPFlags, the low 3 bits of byte 26; RRespTime is the high 5. */
#define RMPP_FLAG_ACTIVE 0x01
#define RMPP_FLAG_FIRST 0x02
#define RMPP_FLAG_LAST 0x04
#define RMPP_RESP_TIME_NONE 0x1F

/* RMPPStatus (IBA 13.6.2; Linux IB_MGMT_RMPP_STATUS_*). */
#define RMPP_STATUS_OK 0
#define RMPP_STATUS_RESX 1          /* STOP: resources exhausted */
#define RMPP_STATUS_ABORT_MIN 118
#define RMPP_STATUS_T2L 118         /* total time too long */
#define RMPP_STATUS_BAD_LEN 119     /* inconsistent last segment and PayloadLength */
#define RMPP_STATUS_BAD_SEG 120     /* inconsistent first segment and SegmentNumber */
#define RMPP_STATUS_BADT 121        /* illegal RMPPType */
#define RMPP_STATUS_W2S 122         /* NewWindowLast too small */
#define RMPP_STATUS_S2B 123         /* SegmentNumber too big */
#define RMPP_STATUS_BAD_STATUS 124  /* illegal status */
#define RMPP_STATUS_UNV 125         /* unsupported version */
#define RMPP_STATUS_TMR 126         /* too many retries */
#define RMPP_STATUS_UNSPEC 127
#define RMPP_STATUS_ABORT_MAX 127

#define RMPP_HDR_OFF 24             /* the RMPP header in a MAD */
#define RMPP_HDR_END 36
#define RMPP_SEG_SIZE 256           /* one MAD */
/* The sender's limits: message size, and the defaults of its timer. */
#define RMPP_MAX_MSG (4u << 20)
#define RMPP_DEF_TIMEOUT_MS 1000
#define RMPP_DEF_RETRIES 3

/* The RMPP header, decoded. data1/data2 are SegmentNumber and
 * PayloadLength (DATA) or NewWindowLast (ACK). */
struct rmpp_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t resp_time;  /* 5 bits */
	uint8_t flags;      /* 3 bits */
	uint8_t status;
	uint32_t seg_num;
	uint32_t paylen_newwin;
};

/* Reads/writes bytes 24..35 of a MAD (len counts from the MAD start). */
int rmpp_hdr_decode(const uint8_t *mad, size_t len, struct rmpp_hdr *out);
int rmpp_hdr_encode(const struct rmpp_hdr *in, uint8_t *mad, size_t len);

/* Is this MAD an ACK, STOP or ABORT of an active RMPP transfer (version 1,
 * Active flag set)? Such MADs steer a sender; DATA carries a message. */
int rmpp_is_control(const uint8_t *mad, size_t len);

enum rmpp_state {
	RMPP_SENDING = 0,   /* segments out or waiting for an ACK */
	RMPP_DONE,          /* the last segment was acknowledged */
	RMPP_STOPPED,       /* the receiver sent STOP */
	RMPP_ABORTED,       /* aborted by either side; see rmpp_sender.status */
};

struct rmpp_opts {
	unsigned hdr_len;       /* class header incl. RMPP: 56 for SA */
	unsigned timeout_ms;    /* wait for an ACK; 0 = RMPP_DEF_TIMEOUT_MS */
	unsigned retries;       /* resends of a window before ABORT 126 */
};

struct rmpp_sender {
	const uint8_t *msg;     /* class header + data, the caller's */
	size_t len;
	unsigned hdr_len;
	uint32_t nseg;
	uint32_t pad;           /* zero bytes after the data in the last segment */
	uint32_t last_ack;      /* highest segment acknowledged */
	uint32_t sent;          /* highest segment sent since the last rewind */
	uint32_t newwin;        /* NewWindowLast granted by the receiver */
	unsigned timeout_ms;
	unsigned retries, retries_left;
	uint64_t deadline;      /* UINT64_MAX: not waiting */
	enum rmpp_state state;
	uint8_t status;         /* ABORT/STOP status sent or received */
	uint8_t abort_pending;  /* an ABORT for the receiver is waiting in next() */
	uint8_t abort_status;
	uint8_t probe;          /* after a timeout: last_ack + 1 may go past the window */
	/* counters */
	uint32_t segs_sent;     /* DATA MADs handed out, resends included */
	uint32_t resends;       /* timeouts that rewound the window */
	uint32_t acks;          /* ACKs that moved the transfer on */
	uint32_t ignored;       /* stale or duplicate ACKs */
};

/* Sets the sender up for msg (len >= hdr_len, <= RMPP_MAX_MSG). Nothing is
 * sent until rmpp_sender_next(). 0, -EINVAL or -EMSGSIZE. */
int rmpp_sender_start(struct rmpp_sender *s, const uint8_t *msg, size_t len,
		      const struct rmpp_opts *o);
/* The next MAD to send now, if any: writes RMPP_SEG_SIZE bytes into out and
 * returns 1; 0 when nothing is due. Call until it returns 0. */
int rmpp_sender_next(struct rmpp_sender *s, uint64_t now, uint8_t *out, size_t cap);
/* An ACK, STOP or ABORT from the receiver. 0 when it was used or ignored
 * as stale, -EINVAL when it is not one (wrong length or type). Bad ACKs
 * abort the transfer and queue an ABORT for the receiver, as Linux does. */
int rmpp_sender_on_mad(struct rmpp_sender *s, const uint8_t *mad, size_t len, uint64_t now);
/* The ACK timer: rewind to the last acknowledged segment + 1, or after the
 * retries abort with status 126. */
void rmpp_sender_on_timer(struct rmpp_sender *s, uint64_t now);
/* When rmpp_sender_on_timer() is due, or UINT64_MAX. */
uint64_t rmpp_sender_deadline(const struct rmpp_sender *s);
/* Finished (done, stopped or aborted) with nothing left to send. */
int rmpp_sender_finished(const struct rmpp_sender *s);

#endif
