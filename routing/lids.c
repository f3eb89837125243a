/*
 * DOC: the LID filler (see lids.h).
 *
 * Pure and order-independent: the set of candidates is sorted by GUID
 * before anything is kept or assigned, so the order of topo.nodes cannot
 * change the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/graph.h"
#include "routing/lids.h"

struct lid_slot {
	uint64_t key1, key2;  /* switches: (0, node guid); CAs: (1, port guid) */
	uint64_t key3;        /* node guid << 8 | port, tie-break */
	uint32_t node;
	uint8_t port;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct lid_slot *x = a, *y = b;

	if (x->key1 != y->key1)
		return x->key1 < y->key1 ? -1 : 1;
	if (x->key2 != y->key2)
		return x->key2 < y->key2 ? -1 : 1;
	if (x->key3 != y->key3)
		return x->key3 < y->key3 ? -1 : 1;
	return 0;
}

static uint32_t collect(const struct topo *t, struct lid_slot *v)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct topo_node *nd = &t->nodes[i];
		if (!nd->ports)
			continue;
		if (nd->type == TOPO_SWITCH) {
			v[n++] = (struct lid_slot){ 0, nd->guid, nd->guid << 8, i, 0 };
			continue;
		}
		for (uint32_t p = 1; p <= nd->nports; p++)
			if (topo_port_linked(&nd->ports[p]))
				v[n++] = (struct lid_slot){ 1, nd->ports[p].guid,
					(nd->guid << 8) | p, i, (uint8_t)p };
	}
	qsort(v, n, sizeof(*v), cmp_slot);
	return n;
}

static int range_free(const uint8_t *used, uint32_t lid, uint32_t n)
{
	if (lid == 0 || lid + n - 1 > TOPO_MAX_UCAST_LID)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (used[lid + i])
			return 0;
	return 1;
}

/* Keeps valid LIDs, clears the rest. */
static void keep_pass(struct topo *t, const struct lid_slot *v, uint32_t n, uint8_t lmc,
		      uint8_t *used)
{
	for (uint32_t i = 0; i < n; i++) {
		struct topo_port *p = &t->nodes[v[i].node].ports[v[i].port];
		uint32_t cnt = v[i].key1 ? 1u << lmc : 1u;
		if (p->lid && (p->lid & (cnt - 1)) == 0 && range_free(used, p->lid, cnt))
			memset(used + p->lid, 1, cnt);
		else
			p->lid = 0;
		if (v[i].key1)
			p->lmc = lmc;
	}
}

static int assign_pass(struct topo *t, const struct lid_slot *v, uint32_t n, uint8_t lmc,
		       uint8_t *used, char *err, size_t errlen)
{
	uint32_t next1 = 1, nextb = 1u << lmc;

	for (uint32_t i = 0; i < n; i++) {
		struct topo_port *p = &t->nodes[v[i].node].ports[v[i].port];
		uint32_t cnt = v[i].key1 ? 1u << lmc : 1u;
		uint32_t *next = v[i].key1 ? &nextb : &next1;
		if (p->lid)
			continue;
		while (*next <= TOPO_MAX_UCAST_LID && !range_free(used, *next, cnt))
			*next += cnt;
		if (*next > TOPO_MAX_UCAST_LID) {
			snprintf(err, errlen, "out of unicast LIDs (node 0x%016llx)",
				 (unsigned long long)t->nodes[v[i].node].guid);
			return -1;
		}
		p->lid = (uint16_t)*next;
		memset(used + *next, 1, cnt);
	}
	return 0;
}

int topo_fill_lids(struct topo *t, uint8_t lmc, char *err, size_t errlen)
{
	if (lmc > 7) {
		snprintf(err, errlen, "lmc %u out of range (0-7)", lmc);
		return -1;
	}
	size_t cap = 0;
	for (uint32_t i = 0; i < t->nnodes; i++)
		cap += (size_t)t->nodes[i].nports + 1;
	struct lid_slot *v = rg_xmalloc(cap ? cap : 1, sizeof(*v));
	uint8_t *used = rg_xcalloc(TOPO_MAX_UCAST_LID + 2u, 1);
	uint32_t n = collect(t, v);
	keep_pass(t, v, n, lmc, used);
	int rc = assign_pass(t, v, n, lmc, used, err, errlen);
	free(v);
	free(used);
	return rc;
}
