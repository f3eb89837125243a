/*
 * DOC: per-port records by (node GUID, port number) (see porttab.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/porttab.h"
#include "lib/log.h"

static const struct porttab_key *key_at(const struct porttab *t, size_t i)
{
	return porttab_slot(t, i);
}

static size_t slot_of(const struct porttab *t, uint64_t guid, uint8_t num)
{
	size_t i = (size_t)(((guid ^ ((uint64_t)num << 56)) * 0x9e3779b97f4a7c15ULL) >> 20) &
		   (t->size - 1);

	while (key_at(t, i)->guid && (key_at(t, i)->guid != guid || key_at(t, i)->num != num))
		i = (i + 1) & (t->size - 1);
	return i;
}

static void grow(struct porttab *t)
{
	struct porttab old = *t;

	t->size = old.size ? 2 * old.size : 256;
	t->v = xcalloc(t->size, t->elem);
	for (size_t i = 0; i < old.size; i++) {
		const struct porttab_key *k = key_at(&old, i);

		if (k->guid)
			memcpy(porttab_slot(t, slot_of(t, k->guid, k->num)), k, t->elem);
	}
	free(old.v);
}

void porttab_init(struct porttab *t, size_t elem)
{
	*t = (struct porttab){ .elem = elem };
}

void porttab_free(struct porttab *t)
{
	free(t->v);
	porttab_init(t, t->elem);
}

void *porttab_get(struct porttab *t, uint64_t guid, uint8_t num)
{
	struct porttab_key *k;

	if (2 * (t->count + 1) > t->size)
		grow(t);
	k = porttab_slot(t, slot_of(t, guid, num));
	if (!k->guid) {
		k->guid = guid;
		k->num = num;
		t->count++;
	}
	return k;
}

void *porttab_find(const struct porttab *t, uint64_t guid, uint8_t num)
{
	struct porttab_key *k;

	if (!t->size || !guid)
		return NULL;
	k = porttab_slot(t, slot_of(t, guid, num));
	return k->guid ? k : NULL;
}
