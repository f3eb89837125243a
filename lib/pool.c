#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/pool.h"

/* Under AddressSanitizer an object kept free is poisoned, so a use after
 * pool_put is reported as a use after free() would be. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
#define poison(x, n) ASAN_POISON_MEMORY_REGION((x), (n))
#define unpoison(x, n) ASAN_UNPOISON_MEMORY_REGION((x), (n))
#else
#define poison(x, n) ((void)(x), (void)(n))
#define unpoison(x, n) ((void)(x), (void)(n))
#endif

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
	unpoison(x, p->size);
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
	poison(x, p->size);
	p->head = x;
	p->nfree++;
}

void pool_drain(struct pool *p)
{
	while (p->head) {
		void *x = p->head;

		unpoison(x, p->size);
		memcpy(&p->head, x, sizeof(void *));
		free(x);
	}
	p->nfree = 0;
}
