/*
 * DOC: P_Key table helpers (see pkeyset.h).
 *
 * Tables are small (a port holds tens of P_Keys; sm/pkey.c caps them at
 * PKEY_MAX_ENTRIES), so the searches are linear.
 */
#include "config.h"

#include <string.h>

#include "fabric/pkeyset.h"

uint16_t pkey_find(const uint16_t *t, size_t n, uint16_t k)
{
	uint16_t found = 0;

	for (size_t i = 0; i < n; i++) {
		if (!pkey_valid(t[i]) || PKEY_BASE(t[i]) != PKEY_BASE(k))
			continue;
		if (t[i] & PKEY_FULL)
			return t[i];
		found = t[i];
	}
	return found;
}

bool pkey_share(const uint16_t *a, size_t na, const uint16_t *b, size_t nb, uint16_t k,
		uint16_t *out)
{
	for (size_t i = 0; i < na; i++) {
		uint16_t mine, theirs;

		if (!pkey_valid(a[i]) || (k && PKEY_BASE(a[i]) != PKEY_BASE(k)))
			continue;
		mine = pkey_find(a, na, a[i]);
		theirs = pkey_find(b, nb, a[i]);
		if (!theirs || !((mine | theirs) & PKEY_FULL))
			continue;
		if (out)
			*out = mine;
		return true;
	}
	return false;
}

/* Index of the first free slot j >= 1 of out where prev[j] matches w
 * exactly (same) or by partition (!same); 0 when none. */
static size_t prev_slot(const uint16_t *prev, size_t nprev, const uint16_t *out, size_t cap,
			uint16_t w, bool same)
{
	for (size_t j = 1; j < nprev && j < cap; j++) {
		if (out[j] || !pkey_valid(prev[j]))
			continue;
		if (same ? prev[j] == w : PKEY_BASE(prev[j]) == PKEY_BASE(w))
			return j;
	}
	return 0;
}

static size_t used_length(const uint16_t *out, size_t cap)
{
	size_t n = cap;

	while (n && !out[n - 1])
		n--;
	return n;
}

static bool in_table(const uint16_t *t, size_t n, uint16_t w)
{
	for (size_t i = 0; i < n; i++)
		if (t[i] == w)
			return true;
	return false;
}

/* want holds distinct P_Keys (sm/pkey.c builds it so), so an entry is
 * placed exactly when its value is in out. */
size_t pkey_layout(const uint16_t *prev, size_t nprev, const uint16_t *want, size_t nwant,
		   uint16_t *out, size_t cap)
{
	size_t next = 1;

	if (nwant > cap)
		return nwant;
	memset(out, 0, cap * sizeof(*out));
	if (!nwant)
		return 0;
	out[0] = want[0];
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 1; i < nwant; i++) {
			size_t j;

			if (in_table(out, cap, want[i]))
				continue;
			j = prev_slot(prev, nprev, out, cap, want[i], !pass);
			if (j)
				out[j] = want[i];
		}
	for (size_t i = 1; i < nwant; i++) {
		if (in_table(out, cap, want[i]))
			continue;
		while (out[next])
			next++;
		out[next] = want[i];
	}
	return used_length(out, cap);
}
