/*
 * DOC: the control socket server inside ibsmd (sm/ctl.c, sm/ctl_cmds.c).
 *
 * One AF_UNIX listener and its clients are ordinary fds on the SM's
 * event_base; handlers read the SM's state between two loop turns and never
 * block. The protocol is in include/ibsm/ctl_proto.h. There is one control
 * server per process.
 */
#ifndef IBSM_SM_CTL_H
#define IBSM_SM_CTL_H

struct sm;

/* Remember the configuration file for reloads; call before ctl_init(). */
void ctl_set_config_path(const char *path);
/* Opens conf.socket_path and starts serving; also sets up sd_notify and the
 * watchdog. 0, or -1 (logged; the SM runs on without a control socket). */
int ctl_init(struct sm *sm);
/* Closes every client, removes the socket, sends STOPPING=1. */
void ctl_fini(struct sm *sm);

/*
 * The SM's sweep state may have changed (sm_event() in sweep.c calls this
 * when a sweep or reroute starts, finishes or fails). Compares with what it
 * saw last and emits the events
 * (sweep started/done, state, subnet, node and link changes), answers
 * "sweep wait" requests and notifies systemd. Idempotent and cheap.
 */
void ctl_sm_changed(struct sm *sm);

/* A port event seen between sweeps (light sweep, trap): streamed at once
 * as a "port_event" {what: type, guid, port, desc}; the link_up/link_down
 * events come from the next sweep's fabric diff. */
struct sm_port;
void ctl_port_event(struct sm *sm, const char *type, const struct sm_port *p);

/* SIGHUP: reload the configuration (the same as the "reload" command). */
void ctl_reload_signal(struct sm *sm);

#endif
