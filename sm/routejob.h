/*
 * DOC: routing off the event loop.
 *
 * route_compute()/route_repair() take tens to hundreds of milliseconds on
 * large fabrics. They run on a worker thread over an immutable snapshot --
 * a struct topo, copies of the tables the switches hold and of the options
 * -- that shares nothing with the loop, so no lock is needed (worker.h);
 * the loop then takes the result. Meanwhile the loop keeps serving the control socket,
 * traps and the umad fd. While a job runs the SM is "sweeping", so nothing
 * changes the fabric model underneath it.
 */
#ifndef IBSM_SM_ROUTEJOB_H
#define IBSM_SM_ROUTEJOB_H

#include <stdbool.h>

#include "routing/repair.h"
#include "routing/routing.h"

struct sm;
struct route_job;

struct route_result {
	int rc;                          /* route_compute/route_repair's */
	bool repaired;                   /* route_repair was used */
	struct route_tables tables;      /* handed over to the caller */
	struct route_repair_stats rs;
};

typedef void (*route_job_done_fn)(struct sm *sm, struct route_result *res);

/* Takes ownership of t and of prev's port arrays (prev NULL: route afresh).
 * 0, or -1 if no thread could be started (then the job ran inline and done
 * has been called). */
int route_job_start(struct sm *sm, struct topo *t, const struct route_opts *o,
		    struct route_tables *prev, route_job_done_fn done);
/* Waits for a running job and drops its result (shutdown). */
void route_job_abandon(struct sm *sm);

#endif
