/*
 * DOC: route verification on a worker thread (verifyjob.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "lib/log.h"
#include "ctl/verifyjob.h"
#include "lib/worker.h"

struct verify_job {
	struct topo *t;
	struct route_tables rt;
	uint64_t tag;
	verify_done_fn done;
	void *arg;
	int rc;
	struct route_verify v;
	char err[256];
	struct worker *w;
};

static void run(void *arg)
{
	struct verify_job *j = arg;

	j->rc = route_verify(j->t, &j->rt, &j->v, j->err, sizeof(j->err));
}

static void job_free(struct verify_job *j)
{
	route_tables_free(&j->rt);
	fabric_topo_free(j->t);
	free(j);
}

static void finish(void *arg)
{
	struct verify_job *j = arg;

	j->done(j->arg, j->tag, j->rc, &j->v, j->err);
	job_free(j);
}

/* Deep copy of the tables: the loop frees its own when it reroutes. */
static void copy_tables(const struct route_tables *src, struct route_tables *dst)
{
	*dst = *src;
	dst->lft = xcalloc(src->nnodes ? src->nnodes : 1, sizeof(*dst->lft));
	for (uint32_t i = 0; i < src->nnodes; i++)
		if (src->lft[i].ports) {
			dst->lft[i].ports = xmalloc((size_t)src->top + 1);
			memcpy(dst->lft[i].ports, src->lft[i].ports, (size_t)src->top + 1);
		}
}

struct verify_job *verify_job_start(struct event_base *base, struct topo *t,
				    const struct route_tables *rt, uint64_t tag,
				    verify_done_fn done, void *arg)
{
	struct verify_job *j = xcalloc(1, sizeof(*j));

	j->t = t;
	j->tag = tag;
	j->done = done;
	j->arg = arg;
	copy_tables(rt, &j->rt);
	j->w = worker_start(base, run, finish, j);
	if (j->w)
		return j;
	log_warnx("cannot start a verification thread");
	job_free(j);
	return NULL;
}

void verify_job_abandon(struct verify_job *j)
{
	if (!j)
		return;
	worker_abandon(j->w);
	job_free(j);
}
