/*
 * DOC: one computation on a worker thread, its completion back on the loop.
 *
 * The loop must never wait, so routing (routejob.h) and verification
 * (verifyjob.h) run work(arg) on a thread of their own over data the loop
 * does not touch meanwhile; the thread then writes one byte to a pipe the
 * loop watches, and the loop joins it and calls done(arg). No locks.
 */
#ifndef IBSM_SM_WORKER_H
#define IBSM_SM_WORKER_H

#include <event2/event.h>
#include <stdbool.h>

struct worker;

typedef void (*worker_fn)(void *arg);

/* Starts work(arg) on a thread; done(arg) runs on the loop after it. NULL
 * if no thread could be started (then neither has run). */
struct worker *worker_start(struct event_base *base, worker_fn work, worker_fn done, void *arg);
/* Whether some worker has finished and its done() waits for the loop: a
 * loop that keeps itself busy (sm/main.c pumping the simulator's fake fd)
 * returns to libevent then, or done() would wait for it. */
bool worker_results_waiting(void);
/* Waits for work() to finish and drops the worker; done() is not called. */
void worker_abandon(struct worker *w);

#endif
