/*
 * DOC: the engine's GMP requests (mad/engine.h says what they are for);
 * internal to mad/: engine.c owns one gmp_queue and calls it.
 *
 * GMPs have a window of their own and never take an SMP's slot: the engine
 * lets gmp_pump() send only while no SMP waits for the SMP window, so a
 * performance manager's queries go out in the SM's idle moments and an SMP
 * never waits behind one. Answers to others (SA responses, TrapRepress)
 * bypass both queues. Responses are matched by TID in a table of their own
 * (TID low 32 bits [generation:12][attempt:4][slot:16], as for SMPs), and
 * must carry the request's class and attribute and method GetResp, in a
 * whole MAD; anything else is dropped and the request waits on.
 */
#ifndef IBSM_MAD_GMP_H
#define IBSM_MAD_GMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/engine.h"

struct gmp_queue;

/* Window up to GMP_MAX_WINDOW. */
#define GMP_MAX_WINDOW 1024

struct gmp_queue *gmp_new(const struct mad_transport *tp, struct mad_stats *st);
/* Everything queued or on the wire completes with MAD_ERR_CANCELED. */
void gmp_free(struct gmp_queue *g);
void gmp_set_limits(struct gmp_queue *g, unsigned window, unsigned timeout_ms, unsigned retries);
int gmp_submit(struct gmp_queue *g, const struct mad_gmp_req *req, mad_gmp_done_fn done,
	       void *arg);
/* Send queued GMPs while the GMP window has room. */
void gmp_pump(struct gmp_queue *g, uint64_t now);
/* A received MAD of a GMP class (status: umad's, non-zero for our own
 * send returned failed). */
void gmp_on_mad(struct gmp_queue *g, const uint8_t *buf, size_t len, int status, uint64_t now);
/* Retry or fail attempts whose deadline passed. */
void gmp_on_timer(struct gmp_queue *g, uint64_t now);
uint64_t gmp_next_deadline(const struct gmp_queue *g);
bool gmp_idle(const struct gmp_queue *g);
/* From here on nothing new goes out: no retry either (mad_engine_quiesce). */
void gmp_quiesce(struct gmp_queue *g);
/* True while a GMP sent waits for its answer or timeout. */
bool gmp_awaiting(const struct gmp_queue *g);

#endif
