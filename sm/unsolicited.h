/*
 * DOC: the MADs nobody asked for (unsolicited.c): Get SMInfo from other
 * SMs, and traps.
 */
#ifndef IBSM_SM_UNSOLICITED_H
#define IBSM_SM_UNSOLICITED_H

#include <stddef.h>
#include <stdint.h>

struct mad_addr;

/* Answers MADs nobody asked for: Get SMInfo, traps. */
void sm_unsolicited(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from);

#endif
