/*
 * DOC: worker threads for the event loop (worker.h).
 */
#include "config.h"

#include <event2/event.h> /* first: its config sets _GNU_SOURCE (pipe2) */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "sm/log.h"
#include "sm/worker.h"

struct worker {
	worker_fn work, done;
	void *arg;
	pthread_t th;
	int pipefd[2];
	struct event *ev;
};

/* Workers whose work is done and whose done() has not run yet. */
static atomic_uint waiting;

bool worker_results_waiting(void)
{
	return atomic_load_explicit(&waiting, memory_order_relaxed) != 0;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	char c = 1;

	w->work(w->arg);
	atomic_fetch_add(&waiting, 1);
	/* one byte per worker: the pipe cannot be full */
	if (write(w->pipefd[1], &c, 1) != 1)
		abort();
	return NULL;
}

static void worker_free(struct worker *w)
{
	if (w->ev)
		event_free(w->ev);
	if (w->pipefd[0] >= 0)
		close(w->pipefd[0]);
	if (w->pipefd[1] >= 0)
		close(w->pipefd[1]);
	free(w);
}

static void ready(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	worker_fn done = w->done;
	void *darg = w->arg;
	char c;

	(void)what;
	if (read(fd, &c, 1) != 1)
		return;
	atomic_fetch_sub(&waiting, 1);
	pthread_join(w->th, NULL);
	/* freed first: done() may start the next worker */
	worker_free(w);
	done(darg);
}

struct worker *worker_start(struct event_base *base, worker_fn work, worker_fn done, void *arg)
{
	struct worker *w = xcalloc(1, sizeof(*w));

	w->work = work;
	w->done = done;
	w->arg = arg;
	if (pipe2(w->pipefd, O_CLOEXEC | O_NONBLOCK) < 0) {
		w->pipefd[0] = w->pipefd[1] = -1;
		goto fail;
	}
	w->ev = event_new(base, w->pipefd[0], EV_READ | EV_PERSIST, ready, w);
	if (!w->ev || event_add(w->ev, NULL) < 0)
		goto fail;
	if (pthread_create(&w->th, NULL, run, w) == 0)
		return w;
fail:
	worker_free(w);
	return NULL;
}

void worker_abandon(struct worker *w)
{
	char c;

	if (!w)
		return;
	pthread_join(w->th, NULL);
	if (read(w->pipefd[0], &c, 1) == 1)   /* finished, done() not run */
		atomic_fetch_sub(&waiting, 1);
	worker_free(w);
}
