/*
 * DOC: route verification off the event loop.
 *
 * route_verify() walks every pair of hosts and up to 1000 shift
 * permutations: about 0.2 s for 3456 hosts, over 1 s for 11 664. The
 * control socket's "routing" command reports it, so it runs on a worker
 * thread over its own snapshot (a struct topo and a copy of the tables),
 * like routing itself (routejob.h, both on worker.h); the loop then hands
 * the result to a callback.
 */
#ifndef IBSM_CTL_VERIFYJOB_H
#define IBSM_CTL_VERIFYJOB_H

#include <event2/event.h>
#include <stdint.h>

#include "routing/routing.h"
#include "routing/verify.h"

struct verify_job;

/* rc: route_verify's (0, or -1 with err set). */
typedef void (*verify_done_fn)(void *arg, uint64_t tag, int rc, const struct route_verify *v,
			       const char *err);

/* Takes ownership of t; copies rt. NULL if no thread could be started
 * (nothing was taken then but t, which is freed). */
struct verify_job *verify_job_start(struct event_base *base, struct topo *t,
				    const struct route_tables *rt, uint64_t tag,
				    verify_done_fn done, void *arg);
/* Waits for the job and drops its result (shutdown). */
void verify_job_abandon(struct verify_job *j);

#endif
