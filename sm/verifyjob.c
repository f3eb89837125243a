/*
 * DOC: route verification on a worker thread (verifyjob.h).
 */
#include "config.h"

#include <event2/event.h> /* first, like routejob.c: its config sets _GNU_SOURCE (pipe2) */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm/fabric.h"
#include "sm/log.h"
#include "sm/verifyjob.h"

struct verify_job {
	struct topo *t;
	struct route_tables rt;
	uint64_t tag;
	verify_done_fn done;
	void *arg;
	int rc;
	struct route_verify v;
	char err[256];
	pthread_t th;
	int pipefd[2];
	struct event *ev;
};

static void *worker(void *arg)
{
	struct verify_job *j = arg;
	char c = 1;

	j->rc = route_verify(j->t, &j->rt, &j->v, j->err, sizeof(j->err));
	/* one byte per job: the pipe cannot be full */
	if (write(j->pipefd[1], &c, 1) != 1)
		abort();
	return NULL;
}

static void job_free(struct verify_job *j)
{
	if (j->ev)
		event_free(j->ev);
	if (j->pipefd[0] >= 0)
		close(j->pipefd[0]);
	if (j->pipefd[1] >= 0)
		close(j->pipefd[1]);
	route_tables_free(&j->rt);
	fabric_topo_free(j->t);
	free(j);
}

static void job_ready(evutil_socket_t fd, short what, void *arg)
{
	struct verify_job *j = arg;
	char c;

	(void)what;
	if (read(fd, &c, 1) != 1)
		return;
	pthread_join(j->th, NULL);
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
	if (pipe2(j->pipefd, O_CLOEXEC | O_NONBLOCK) < 0) {
		j->pipefd[0] = j->pipefd[1] = -1;
		goto fail;
	}
	j->ev = event_new(base, j->pipefd[0], EV_READ | EV_PERSIST, job_ready, j);
	if (!j->ev || event_add(j->ev, NULL) < 0)
		goto fail;
	if (pthread_create(&j->th, NULL, worker, j) == 0)
		return j;
fail:
	log_warnx("cannot start a verification thread");
	job_free(j);
	return NULL;
}

void verify_job_abandon(struct verify_job *j)
{
	if (!j)
		return;
	pthread_join(j->th, NULL);
	job_free(j);
}
