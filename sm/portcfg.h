/*
 * DOC: what each port should hold in its PortInfo, and the Sets that
 * give it (portcfg.c).
 */
#ifndef IBSM_SM_PORTCFG_H
#define IBSM_SM_PORTCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sm;
struct sm_port;
struct smp_port_info;
struct mad_req;
struct portcfg_batch;

/* Both ends of p's link are up, read, and not held (portcfg.c). */
bool sm_port_linked_up(const struct sm_port *p);
/* What port p should hold (fills *w); returns the PortInfo fields that
 * differ and that the port takes (portcfg.c). */
unsigned sm_port_wants(const struct sm *sm, const struct sm_port *p, struct smp_port_info *w);
/* A PortInfo Set of want to p that changes only the fields we own and, if
 * state is not 0, the port state. */
void sm_port_set_req(const struct sm *sm, const struct sm_port *p, const struct smp_port_info *want,
		     uint8_t state, struct mad_req *r);
/* Within the running phase: a PortInfo Set moving p to state `to`, with
 * the partition enforcement bits riding on it (pkey.h); then(sm, p, ok)
 * runs on its answer, ok when p got there (portcfg.c). */
void sm_port_state_set(struct sm *sm, struct sm_port *p, uint8_t to,
		       void (*then)(struct sm *, struct sm_port *, bool));
/* The PortInfo Sets of the ports whose fields differ from what they
 * should hold, made and their ports held (a link's walk waits for the
 * answer), to be sent one by one inside the running phase once the LIDs
 * are on disk (portcfg.c). Free frees what was not sent. */
struct portcfg_batch *sm_portcfg_prepare(struct sm *sm);
size_t sm_portcfg_count(const struct portcfg_batch *b);
void sm_portcfg_send(struct sm *sm, struct portcfg_batch *b, size_t i);
void sm_portcfg_free(struct portcfg_batch *b);

#endif
