/*
 * DOC: a free list of fixed-size objects, capped.
 *
 * A bring-up allocates and frees one small context per SMP (some 130,000
 * on a 3456-host tree); malloc and free of each cost more than the rest of
 * the context's life. A pool hands back what was put, zeroed, and keeps at
 * most POOL_KEEP objects free, so its memory stays bounded whatever the
 * peak. A zeroed struct pool is an empty pool; its objects are single
 * allocations, so free() may take one too.
 */
#ifndef IBSM_LIB_POOL_H
#define IBSM_LIB_POOL_H

#include <stddef.h>

/* Many times the SMP window; keeping 4096 raised a bring-up's peak RSS on
 * the 11,664-host tree by 5.5 MB (the objects kept pin heap the routing
 * snapshot would reuse), 1024 by nothing measurable. */
#define POOL_KEEP 1024

struct pool {
	size_t size;        /* object size (0 until the first pool_get) */
	unsigned nfree;
	void *head;         /* free objects, linked through their first bytes */
};

/* A zeroed object of size bytes (the same size on every call for one
 * pool); exits like xcalloc when memory runs out. */
void *pool_get(struct pool *p, size_t size);
/* x back to the pool, or to free() when POOL_KEEP are kept. NULL is ignored. */
void pool_put(struct pool *p, void *x);
/* Frees every object kept; the pool stays usable. */
void pool_drain(struct pool *p);

#endif
