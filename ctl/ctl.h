/*
 * DOC: the control socket server inside ibsmd (ctl/ctl.c, ctl/ctl_cmds.c, ctl/ctl_reload.c).
 *
 * One AF_UNIX listener and its clients are ordinary fds on the SM's
 * event_base; handlers read the SM's state between two loop turns and never
 * block. The protocol is in include/ibsm/ctl_proto.h. There is one control
 * server per process.
 */
#ifndef IBSM_CTL_H
#define IBSM_CTL_H

#include <stdint.h>

struct sm;

/* Remember the configuration file for reloads; call before ctl_init(). */
void ctl_set_config_path(const char *path);
/* Opens conf.socket_path and starts serving; also sets up sd_notify and the
 * watchdog. 0, or -1 with errno set (the daemon does not run without it). */
int ctl_init(struct sm *sm);
/* Closes every client, removes the socket, sends STOPPING=1. */
void ctl_fini(struct sm *sm);

/* SIGHUP: reload the configuration (the same as the "reload" command). */
void ctl_reload_signal(struct sm *sm);

/* A link-health change for subscribers (event "health"): what is
 * "problem", "cleared", "isolated" or "deisolated", about port `port` of
 * node `guid` and problem `problem` (a short name, or NULL). */
void ctl_health_event(struct sm *sm, const char *what, uint64_t guid, uint8_t port,
		      const char *problem);
/* Control-socket connections served now. */
unsigned ctl_client_count(void);

#endif
