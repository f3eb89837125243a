#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/pool.h"

void *pool_get(struct pool *p, size_t size)
{
	void *x = p->head;

	if (size < sizeof(void *))
		size = sizeof(void *);
	if (!p->size)
		p->size = size;
	assert(p->size == size);
	if (!x)
		return xcalloc(1, size);
	memcpy(&p->head, x, sizeof(void *));
	p->nfree--;
	memset(x, 0, p->size);
	return x;
}

void pool_put(struct pool *p, void *x)
{
	if (!x)
		return;
	if (p->nfree >= POOL_KEEP) {
		free(x);
		return;
	}
	memcpy(x, &p->head, sizeof(void *));
	p->head = x;
	p->nfree++;
}

void pool_drain(struct pool *p)
{
	while (p->head) {
		void *x = p->head;

		memcpy(&p->head, x, sizeof(void *));
		free(x);
	}
	p->nfree = 0;
}
