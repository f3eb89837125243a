/*
 * DOC: routing on a worker thread over an immutable snapshot (routejob.h).
 */
#include "config.h"

#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm/fabric.h"
#include "sm/log.h"
#include "sm/routejob.h"
#include "sm/sm.h"

struct route_job {
	struct sm *sm;
	struct topo *t;
	struct route_opts o;
	uint64_t *roots;
	struct route_tables prev;
	bool have_prev;
	struct route_result res;
	route_job_done_fn done;
	pthread_t th;
	int pipefd[2];
	struct event *ev;
};

static void run(struct route_job *j)
{
	memset(&j->res, 0, sizeof(j->res));
	j->res.repaired = j->have_prev;
	if (j->have_prev)
		j->res.rc = route_repair(j->t, &j->o, &j->prev, &j->res.tables, &j->res.rs);
	else
		j->res.rc = route_compute(j->t, &j->o, &j->res.tables);
}

static void *worker(void *arg)
{
	struct route_job *j = arg;
	char c = 1;

	run(j);
	/* The loop reads it; a full pipe cannot happen (one byte per job). */
	if (write(j->pipefd[1], &c, 1) != 1)
		abort();
	return NULL;
}

static void job_free(struct route_job *j)
{
	if (j->ev)
		event_free(j->ev);
	if (j->pipefd[0] >= 0)
		close(j->pipefd[0]);
	if (j->pipefd[1] >= 0)
		close(j->pipefd[1]);
	if (j->have_prev) {
		for (uint32_t i = 0; i < j->prev.nnodes; i++)
			free(j->prev.lft[i].ports);
		free(j->prev.lft);
	}
	fabric_topo_free(j->t);
	free(j->roots);
	free(j);
}

static void finish(struct route_job *j)
{
	struct sm *sm = j->sm;
	route_job_done_fn done = j->done;
	struct route_result res = j->res;

	sm->route_job = NULL;
	job_free(j);
	done(sm, &res);
}

static void job_ready(evutil_socket_t fd, short what, void *arg)
{
	struct route_job *j = arg;
	char c;

	if (read(fd, &c, 1) != 1)
		return;
	pthread_join(j->th, NULL);
	finish(j);
}

static int start_thread(struct route_job *j)
{
	if (pipe2(j->pipefd, O_CLOEXEC | O_NONBLOCK) < 0) {
		j->pipefd[0] = j->pipefd[1] = -1;
		return -1;
	}
	j->ev = event_new(j->sm->base, j->pipefd[0], EV_READ | EV_PERSIST, job_ready, j);
	if (!j->ev || event_add(j->ev, NULL) < 0)
		return -1;
	return pthread_create(&j->th, NULL, worker, j) == 0 ? 0 : -1;
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
	if (start_thread(j) == 0)
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
	pthread_join(j->th, NULL);
	route_tables_free(&j->res.tables);
	sm->route_job = NULL;
	job_free(j);
}
