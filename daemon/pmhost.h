/*
 * DOC: the performance manager inside ibsmd (daemon/pmhost.c): the
 * wiring of pm/ to the SM, the MAD engine, the control socket and the
 * metrics server.
 *
 * After every sweep the PM watches every linked port of the new fabric;
 * it polls while this SM is master and perfmgr is on, through the engine's
 * GMP queue (below every SMP); it hears of link bounces from the SM's
 * listeners; problem changes go to the log (rate-limited, one line per new
 * problem) and to `ibsmctl watch`; metrics_listen serves the Prometheus
 * page. A one-second tick applies reloaded options and follows mastership.
 */
#ifndef IBSM_DAEMON_PMHOST_H
#define IBSM_DAEMON_PMHOST_H

struct sm;

/* Creates the PM (sm->pm) and starts what the configuration asks for.
 * 0, or -1 with a message on stderr (metrics_listen unusable). */
int pm_host_attach(struct sm *sm);
/* Runs the PM's timer now if it is due: the simulator's pump loop calls
 * it, as libevent's own timers wait for the loop (daemon/main.c). */
void pm_host_due(uint64_t now);
/* Stops polling and serving; before the engine is freed. */
void pm_host_stop(struct sm *sm);
/* Frees the PM; after the engine (its cancellations answer our queries). */
void pm_host_detach(struct sm *sm);
/* health_action = isolate: isolate links over their error thresholds and
 * route over quiet ones again (daemon/pmisolate.c); every tick. */
void pm_isolate_tick(struct sm *sm);

#endif
