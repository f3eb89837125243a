/*
 * DOC: the set of links the current routes were computed for.
 *
 * Deciding how to route after a change needs to know what changed since
 * the routes the switches hold were computed: links only lost -> repair
 * those routes with minimal change; links gained (or nothing known) ->
 * compute fresh routes and program the difference; nothing changed -> keep
 * the tables. The set is kept in memory and in state_dir/links so a
 * restarted daemon decides exactly as the running one would have:
 *
 *     ibsmd-links 1
 *     0x<guid> <port> 0x<guid> <port>      (lower GUID first, sorted)
 *
 * The file is a cache: a corrupt one is reported and treated as absent.
 */
#ifndef IBSM_FABRIC_LINKSET_H
#define IBSM_FABRIC_LINKSET_H

#include <stddef.h>
#include <stdint.h>

#include "ibsm/topo.h"

struct link_key {
	uint64_t ga, gb;
	uint8_t pa, pb;
};

struct linkset {
	struct link_key *v;
	size_t n;
	int valid;           /* 0: unknown (no file, corrupt, never routed) */
};

enum linkset_change { LINKS_SAME, LINKS_LOST_ONLY, LINKS_GAINED, LINKS_UNKNOWN };

/* The usable links of t (both ends up), sorted. */
void linkset_from_topo(struct linkset *ls, const struct topo *t);
enum linkset_change linkset_compare(const struct linkset *old, const struct linkset *nw);
void linkset_free(struct linkset *ls);
/* Parse / load / save. load: a missing file gives an empty, invalid set. */
int linkset_parse(struct linkset *ls, const char *buf, size_t len);
int linkset_load(struct linkset *ls, const char *dir, char *err, size_t errlen);
int linkset_save(const struct linkset *ls, const char *dir, char *err, size_t errlen);

#endif
