/*
 * DOC: P_Key tables as plain arrays: membership questions and stable
 * index assignment. Pure functions, shared by the partition manager
 * (sm/pkey.c), the multicast group database (fabric/mcdb.c) and the SA.
 *
 * A P_Key is 16 bits: bit 15 set = full member, bits 14..0 the partition;
 * 0x0000 and 0x8000 are invalid and stand for an empty table entry
 * (IBA 10.9). Two ports may talk in a partition when
 * both hold it and at least one of them is a full member.
 */
#ifndef IBSM_FABRIC_PKEYSET_H
#define IBSM_FABRIC_PKEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PKEY_FULL 0x8000
#define PKEY_BASE(k) ((uint16_t)((k) & 0x7fff))

static inline bool pkey_valid(uint16_t k)
{
	return PKEY_BASE(k) != 0;
}

/* The entry of t (n entries) holding partition base(k): the full one when
 * the port holds both, else the limited one; 0 when none. */
uint16_t pkey_find(const uint16_t *t, size_t n, uint16_t k);

/* True when a port with table a and one with b share partition base(k)
 * with at least one full member (k 0: any partition). *out gets a's entry
 * for the first such partition in a's table order (may be NULL). */
bool pkey_share(const uint16_t *a, size_t na, const uint16_t *b, size_t nb, uint16_t k,
		uint16_t *out);

/*
 * Lays out want (nwant entries, index 0 first as the partition rules give
 * it) over what the port held before (prev, nprev entries; 0 entries are
 * empty): index 0 is want[0]; every other wanted P_Key keeps the index it
 * had in prev (its full or limited form), and the new ones take the
 * lowest free indexes. Indexes prev used for P_Keys no longer wanted are
 * free again. Writes cap entries to out (empty ones 0) and returns the
 * number of entries used up to the last non-empty one, or more than cap
 * when want does not fit.
 */
size_t pkey_layout(const uint16_t *prev, size_t nprev, const uint16_t *want, size_t nwant,
		   uint16_t *out, size_t cap);

#endif
