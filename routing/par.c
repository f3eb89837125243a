/*
 * DOC: two halves of a pure computation on two threads (see par.h).
 */
#include <pthread.h>

#include "routing/par.h"

struct job {
	void (*fn)(void *);
	void *arg;
};

static void *run(void *p)
{
	struct job *j = p;

	j->fn(j->arg);
	return NULL;
}

void rg_par2(void (*fn)(void *), void *a, void *b, unsigned threads)
{
	struct job j = { fn, a };
	pthread_t th;

	if (threads < 2 || pthread_create(&th, NULL, run, &j)) {
		fn(a);
		fn(b);
		return;
	}
	fn(b);
	pthread_join(th, NULL);
}

unsigned rg_par_threads(const struct rgraph *g, unsigned threads)
{
	return (uint64_t)g->nsw * (g->top + 1u) < RG_PAR_CELLS ? 1 : threads;
}
