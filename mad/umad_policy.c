/*
 * DOC: umad_send()'s timeout and retries, per kind of message.
 *
 * Requests (SMPs, SA Reports): the engine's per-attempt timeout, so the
 * kernel holds the send until the response comes, and no kernel retries
 * (the engine and the SA retry themselves).
 *
 * Responses expect nothing back: timeout 0. For a single MAD that ends the
 * send as soon as it is on the wire. For an RMPP-active response
 * (GetTableResp; the kernel segments it) timeout 0 is also the right
 * value, and retries must be non-zero. Linux mad_rmpp.c:
 *   - send_next_seg(): "2 seconds for an ACK": with timeout_ms 0 (or above
 *     2000) each window waits 2 s for its ACK, then ib_retry_rmpp() resends
 *     from the last ACKed segment while retries last (reset by every ACK
 *     that advances);
 *   - process_rmpp_ack(): "If no response is expected, the ACK completes
 *     the send" - only when timeout_ms is 0. With a non-zero timeout the
 *     final ACK re-arms the timer to wait for a response to our response,
 *     which never comes: the send then fails with a response timeout
 *     (returned to us as ETIMEDOUT, counted as a failed send) and holds the
 *     TID against the requester's retries meanwhile.
 * So the non-zero ACK timeout a GetTableResp needs on hardware is the
 * kernel's own 2 s, selected by timeout 0, with MAD_UMAD_RMPP_RETRIES
 * resends (OpenSM's vendor layer passes the same: timeout 0 for a send
 * that expects no response, its max_retries).
 */
#include "mad/umad_policy.h"

#include "mad/rmpp.h"
#include "mad/sa.h"
#include "mad/smp.h"

static bool is_response(uint8_t method)
{
	return (method & 0x80) || method == MAD_METHOD_TRAP_REPRESS;
}

void mad_umad_send_policy(const uint8_t *mad, size_t len, bool kernel_rmpp, int req_timeout_ms,
			  int *timeout, int *retries)
{
	bool rmpp = kernel_rmpp && len > RMPP_HDR_OFF + 2 && mad[1] == MAD_CLASS_SA &&
		    (mad[RMPP_HDR_OFF + 2] & RMPP_FLAG_ACTIVE);

	*timeout = len >= 4 && is_response(mad[3]) ? 0 : req_timeout_ms;
	*retries = rmpp ? MAD_UMAD_RMPP_RETRIES : 0;
}
