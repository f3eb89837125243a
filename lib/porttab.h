/*
 * DOC: per-port records of the SM's table managers (P_Keys, QoS, MFTs), found
 * by (node GUID, port number) in an open-addressing hash.
 *
 * A record type starts with struct porttab_key; the table holds the
 * records themselves, zeroed when made. A pointer to one stays good until
 * the next porttab_get(), which may grow the table and move them all.
 * What a record points to is its owner's to free.
 */
#ifndef IBSM_LIB_PORTTAB_H
#define IBSM_LIB_PORTTAB_H

#include <stddef.h>
#include <stdint.h>

struct porttab_key {
	uint64_t guid;          /* node GUID; 0: a free slot */
	uint8_t num;
};

struct porttab {
	void *v;
	size_t size, count, elem;
};

void porttab_init(struct porttab *t, size_t elem);
void porttab_free(struct porttab *t);

/* The record of (guid, num), made when missing; guid must not be 0. */
void *porttab_get(struct porttab *t, uint64_t guid, uint8_t num);
/* The record of (guid, num), or NULL. */
void *porttab_find(const struct porttab *t, uint64_t guid, uint8_t num);

/* Slot i (0 <= i < size): a record, or a free slot (key.guid 0). */
static inline void *porttab_slot(const struct porttab *t, size_t i)
{
	return (char *)t->v + i * t->elem;
}

#endif
