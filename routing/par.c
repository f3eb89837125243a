/*
 * DOC: two halves of a pure computation on two threads (see par.h).
 */
#include <pthread.h>
#include <stdlib.h>

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

int rg_par2_both(void (*fn)(void *), void *a, void *b)
{
	struct job j = { fn, a };
	pthread_t th;

	if (pthread_create(&th, NULL, run, &j))
		return -1;
	fn(b);
	pthread_join(th, NULL);
	return 0;
}

struct range {
	void (*fn)(void *, int, uint32_t, uint32_t);
	void *arg;
	int half;
	uint32_t lo, hi;
};

static void range_run(void *p)
{
	struct range *r = p;

	r->fn(r->arg, r->half, r->lo, r->hi);
}

void rg_par_range(void (*fn)(void *, int, uint32_t, uint32_t), void *arg, uint32_t n,
		  unsigned threads)
{
	struct range a = { fn, arg, 0, 0, n / 2 }, b = { fn, arg, 1, n / 2, n };

	rg_par2(range_run, &a, &b, threads);
}

struct rg_steps {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t done[2];
};

struct rg_steps *rg_steps_new(void)
{
	struct rg_steps *s = rg_xcalloc(1, sizeof(*s));

	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	return s;
}

void rg_steps_free(struct rg_steps *s)
{
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

void rg_steps_done(struct rg_steps *s, int side, uint32_t n)
{
	pthread_mutex_lock(&s->mu);
	s->done[side] = n;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void rg_steps_wait(struct rg_steps *s, int side, uint32_t n)
{
	pthread_mutex_lock(&s->mu);
	while (s->done[side] < n)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

unsigned rg_par_threads(const struct rgraph *g, unsigned threads)
{
	return (uint64_t)g->nsw * (g->top + 1u) < RG_PAR_CELLS ? 1 : threads;
}
