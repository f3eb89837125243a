/*
 * DOC: the SA's place in the daemon (sa/glue.c): what main.c calls.
 */
#ifndef IBSM_SA_GLUE_H
#define IBSM_SA_GLUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;
struct mad_addr;
struct client_limits;

/* Creates sm->sa, its timer and its SM listener; after events_setup(). */
void sa_glue_attach(struct sm *sm);
/* After the MAD engine is freed (it completes the SA's SMPs). */
void sa_glue_detach(struct sm *sm);
/* The engine's gsi hook; arg is the struct sm. */
void sa_glue_gsi(void *arg, const uint8_t *msg, size_t len, int status,
		 const struct mad_addr *from);
/* An SA request arrived in the last few ms: keep the umad pump waiting
 * for the next instead of sleeping (main.c). */
bool sa_glue_busy(const struct sm *sm);
/* What a saved or copied state may hold under the configuration now. */
void sa_glue_limits(const struct sm *sm, struct client_limits *l);

#endif
