/*
 * DOC: routing on a worker thread over an immutable snapshot (routejob.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "lib/log.h"
#include "sm/routejob.h"
#include "sm/sm.h"
#include "lib/worker.h"

struct route_job {
	struct sm *sm;
	struct topo *t;
	struct route_opts o;
	uint64_t *roots;
	struct route_tables prev;
	bool have_prev;
	struct route_result res;
	route_job_done_fn done;
	struct worker *w;
};

static void run(void *arg)
{
	struct route_job *j = arg;

	memset(&j->res, 0, sizeof(j->res));
	j->res.repaired = j->have_prev;
	if (j->have_prev)
		j->res.rc = route_repair(j->t, &j->o, &j->prev, &j->res.tables, &j->res.rs);
	else
		j->res.rc = route_compute(j->t, &j->o, &j->res.tables);
}

static void job_free(struct route_job *j)
{
	if (j->have_prev) {
		for (uint32_t i = 0; i < j->prev.nnodes; i++)
			free(j->prev.lft[i].ports);
		free(j->prev.lft);
	}
	fabric_topo_free(j->t);
	free(j->roots);
	free(j);
}

static void finish(void *arg)
{
	struct route_job *j = arg;
	struct sm *sm = j->sm;
	route_job_done_fn done = j->done;
	struct route_result res = j->res;

	sm->route_job = NULL;
	job_free(j);
	done(sm, &res);
}

int route_job_start(struct sm *sm, struct topo *t, const struct route_opts *o,
		    struct route_tables *prev, route_job_done_fn done)
{
	struct route_job *j = xcalloc(1, sizeof(*j));

	j->sm = sm;
	j->t = t;
	j->o = *o;
	j->done = done;
	if (o->nroots) {
		j->roots = xcalloc(o->nroots, sizeof(*j->roots));
		memcpy(j->roots, o->root_guids, o->nroots * sizeof(*j->roots));
		j->o.root_guids = j->roots;
	}
	if (prev) {
		j->prev = *prev;
		j->have_prev = true;
	}
	sm->route_job = j;
	j->w = worker_start(sm->base, run, finish, j);
	if (j->w)
		return 0;
	log_warnx("cannot start a routing thread: routing inline");
	run(j);
	finish(j);
	return -1;
}

void route_job_abandon(struct sm *sm)
{
	struct route_job *j = sm->route_job;

	if (!j)
		return;
	worker_abandon(j->w);
	route_tables_free(&j->res.tables);
	sm->route_job = NULL;
	job_free(j);
}
