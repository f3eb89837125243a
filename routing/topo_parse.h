/*
 * DOC: reading a fabric from ibnetdiscover or ibsim "net" text.
 *
 * Pure: parses a memory buffer into a struct topo; the caller reads the
 * file. Every error is "line N: reason"; nothing in the input can crash it
 * (fuzzed in tests/fuzz/fuzz_topo.c).
 *
 * Accepted (both formats overlap):
 *   Switch|Hca|Ca|Rt PORTS "name" [# "desc" ... lid N lmc M]
 *   [p](portguid) "remote"[q](guid) [w=W] [# lid N lmc M "desc" lid X 4xQDR]
 *   switchguid=0x..(..)  caguid=0x..  rtguid=0x..  sysimgguid= vendid= devid=
 *   comment lines starting with '#', blank lines.
 *
 * GUIDs: a switchguid=/caguid=/rtguid= line sets the GUID of the next node
 * of that kind; without one, GUIDs continue from the last one like ibsim
 * does (switches +1 per switch from 0x200000, CAs +(ports+1) per CA from
 * 0x100000, CA port i = node GUID + i; routers as CAs from 0x300000).
 *
 * Links: a port line on one side is enough: the other side is filled in
 * symmetrically. Both sides listed must agree, otherwise it is an error.
 * LIDs: a switch's from "lid N" on its header comment, a CA port's from
 * "lid N" before the quoted description on its port line; 0 otherwise.
 */
#ifndef IBSM_ROUTING_TOPO_PARSE_H
#define IBSM_ROUTING_TOPO_PARSE_H

#include <stddef.h>

#include "ibsm/topo.h"

int topo_parse(const char *buf, size_t len, struct topo *out, char *err, size_t errlen);

/* Frees what topo_parse() allocated (nodes and their ports). */
void topo_free(struct topo *t);

#endif
