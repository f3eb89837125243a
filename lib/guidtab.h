/*
 * DOC: records found by (GUID, port number) in an open-addressing hash:
 * the one GUID-keyed table every room uses (the SM's per-port table
 * managers and flap history, the LID file's entries, the fabric's nodes,
 * the SA's port index and its port tables).
 *
 * A record type starts with struct guidtab_key; the table holds the
 * records themselves, zeroed when made. The key is a GUID and a port
 * number (0 where a table is keyed by GUID alone); any non-zero 64-bit
 * value serves as the GUID. A pointer to a record stays good until the
 * next guidtab_get() or guidtab_del(), which may move them all. What a
 * record points to is its owner's to free.
 */
#ifndef IBSM_LIB_GUIDTAB_H
#define IBSM_LIB_GUIDTAB_H

#include <stddef.h>
#include <stdint.h>

struct guidtab_key {
	uint64_t guid;          /* 0: a free slot */
	uint8_t num;
};

struct guidtab {
	void *v;
	size_t size, count, elem;
	size_t first;           /* slots of the first allocation */
};

/* An empty table of records of elem bytes; its first allocation has 256
 * slots, or first (a power of two) with guidtab_init_sized(). Either
 * allocates nothing yet. */
void guidtab_init(struct guidtab *t, size_t elem);
void guidtab_init_sized(struct guidtab *t, size_t elem, size_t first);
/* Frees the records; the table is empty and usable again. */
void guidtab_free(struct guidtab *t);

/* The record of (guid, num), made when missing; guid must not be 0. */
void *guidtab_get(struct guidtab *t, uint64_t guid, uint8_t num);
/* The record of (guid, num), or NULL. */
void *guidtab_find(const struct guidtab *t, uint64_t guid, uint8_t num);
/* Removes the record of (guid, num), if there is one. */
void guidtab_del(struct guidtab *t, uint64_t guid, uint8_t num);

/* Slot i (0 <= i < size): a record, or a free slot (key.guid 0). */
static inline void *guidtab_slot(const struct guidtab *t, size_t i)
{
	return (char *)t->v + i * t->elem;
}

#endif
