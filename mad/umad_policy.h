/*
 * DOC: the timeout and retries mad/umad.c gives umad_send(), as a pure
 * function so that unit tests check them without libibumad.
 */
#ifndef IBSM_MAD_UMAD_POLICY_H
#define IBSM_MAD_UMAD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Segment resends of a kernel RMPP send after an ACK timeout. */
#define MAD_UMAD_RMPP_RETRIES 3

/* For the message mad (len bytes) on an agent whose RMPP the kernel runs
 * (kernel_rmpp), with req_timeout_ms the per-attempt timeout of requests:
 * *timeout and *retries for umad_send(). */
void mad_umad_send_policy(const uint8_t *mad, size_t len, bool kernel_rmpp, int req_timeout_ms,
			  int *timeout, int *retries);

#endif
