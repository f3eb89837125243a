/*
 * DOC: the SA's place in the daemon (sa/host.c): what daemon/main.c calls.
 */
#ifndef IBSM_SA_HOST_H
#define IBSM_SA_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;
struct mad_addr;
struct client_limits;

/* Creates sm->sa, its timer and its SM listener; after events_setup(). */
void sa_host_attach(struct sm *sm);
/* After the MAD engine is freed (it completes the SA's SMPs). */
void sa_host_detach(struct sm *sm);
/* The engine's gsi hook; arg is the struct sm. */
void sa_host_gsi(void *arg, const uint8_t *msg, size_t len, int status,
		 const struct mad_addr *from);
/* An SA request arrived in the last few ms: keep the umad pump waiting
 * for the next instead of sleeping (daemon/main.c). */
bool sa_host_busy(const struct sm *sm);
/* The same, at now_ms (clock_ms()) already read by the caller. */
bool sa_host_busy_at(const struct sm *sm, uint64_t now_ms);
/* What a saved or copied state may hold under the configuration now. */
void sa_host_limits(const struct sm *sm, struct client_limits *l);

#endif
