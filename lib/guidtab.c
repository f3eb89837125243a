/*
 * DOC: records by (GUID, port number), open addressing with linear
 * probing (see guidtab.h). The table doubles before it is half full.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lib/guidtab.h"
#include "lib/log.h"

#define FIRST_SIZE 256

static const struct guidtab_key *key_at(const struct guidtab *t, size_t i)
{
	return guidtab_slot(t, i);
}

static size_t slot_of(const struct guidtab *t, uint64_t guid, uint8_t num)
{
	size_t i = (size_t)(((guid ^ ((uint64_t)num << 56)) * 0x9e3779b97f4a7c15ULL) >> 20) &
		   (t->size - 1);

	while (key_at(t, i)->guid && (key_at(t, i)->guid != guid || key_at(t, i)->num != num))
		i = (i + 1) & (t->size - 1);
	return i;
}

static void grow(struct guidtab *t)
{
	struct guidtab old = *t;

	t->size = old.size ? 2 * old.size : t->first;
	t->v = xcalloc(t->size, t->elem);
	for (size_t i = 0; i < old.size; i++) {
		const struct guidtab_key *k = key_at(&old, i);

		if (k->guid)
			memcpy(guidtab_slot(t, slot_of(t, k->guid, k->num)), k, t->elem);
	}
	free(old.v);
}

void guidtab_init_sized(struct guidtab *t, size_t elem, size_t first)
{
	*t = (struct guidtab){ .elem = elem, .first = first };
}

void guidtab_init(struct guidtab *t, size_t elem)
{
	guidtab_init_sized(t, elem, FIRST_SIZE);
}

void guidtab_free(struct guidtab *t)
{
	free(t->v);
	guidtab_init_sized(t, t->elem, t->first);
}

void *guidtab_get(struct guidtab *t, uint64_t guid, uint8_t num)
{
	struct guidtab_key *k;

	assert(guid);
	if (2 * (t->count + 1) > t->size)
		grow(t);
	k = guidtab_slot(t, slot_of(t, guid, num));
	if (!k->guid) {
		k->guid = guid;
		k->num = num;
		t->count++;
	}
	return k;
}

void *guidtab_find(const struct guidtab *t, uint64_t guid, uint8_t num)
{
	struct guidtab_key *k;

	if (!t->size || !guid)
		return NULL;
	k = guidtab_slot(t, slot_of(t, guid, num));
	return k->guid ? k : NULL;
}

/* Linear probing: the records after the hole, up to the next free slot,
 * are placed again so that each is still found. */
void guidtab_del(struct guidtab *t, uint64_t guid, uint8_t num)
{
	size_t i, j;
	char *tmp;

	if (!t->size || !guid)
		return;
	i = slot_of(t, guid, num);
	if (!key_at(t, i)->guid)
		return;
	memset(guidtab_slot(t, i), 0, t->elem);
	t->count--;
	tmp = xmalloc(t->elem);
	for (j = (i + 1) & (t->size - 1); key_at(t, j)->guid; j = (j + 1) & (t->size - 1)) {
		memcpy(tmp, guidtab_slot(t, j), t->elem);
		memset(guidtab_slot(t, j), 0, t->elem);
		memcpy(guidtab_slot(t, slot_of(t, ((struct guidtab_key *)tmp)->guid,
					       ((struct guidtab_key *)tmp)->num)), tmp, t->elem);
	}
	free(tmp);
}
