/*
 * DOC: fabric builders for the routing tests and bench (see the header).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_routing_topo.h"

uint64_t tb_rand(uint64_t *s)
{
	/* splitmix64: small, seeded, the same on every platform */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		abort();
	return p;
}

void tb_init(struct tb *b)
{
	memset(b, 0, sizeof(*b));
	b->next_sw_guid = 0x0002c90000100000ULL;
	b->next_ca_guid = 0x0002c90000800000ULL;
}

static uint32_t add_node(struct tb *b, uint8_t type, uint8_t nports, uint64_t guid)
{
	if (b->t.nnodes == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->t.nodes = xrealloc(b->t.nodes, b->cap * sizeof(*b->t.nodes));
	}
	struct topo_node *n = &b->t.nodes[b->t.nnodes];
	memset(n, 0, sizeof(*n));
	n->guid = guid;
	n->type = type;
	n->nports = nports;
	n->ports = calloc(nports + 1u, sizeof(*n->ports));
	if (!n->ports)
		abort();
	for (uint32_t p = 0; p <= nports; p++) {
		n->ports[p].peer_node = TOPO_NONE;
		n->ports[p].guid = type == TOPO_SWITCH ? guid : guid + p;
	}
	snprintf(n->desc, sizeof(n->desc), "%s-%llx", type == TOPO_SWITCH ? "sw" : "ca",
		 (unsigned long long)guid);
	return b->t.nnodes++;
}

uint32_t tb_switch(struct tb *b, uint8_t nports)
{
	return add_node(b, TOPO_SWITCH, nports, b->next_sw_guid++);
}

uint32_t tb_ca(struct tb *b, uint8_t nports)
{
	uint32_t i = add_node(b, TOPO_CA, nports, b->next_ca_guid);

	b->next_ca_guid += nports + 1u;
	return i;
}

void tb_link(struct tb *b, uint32_t a, uint8_t pa, uint32_t c, uint8_t pc)
{
	struct topo_port *x = &b->t.nodes[a].ports[pa], *y = &b->t.nodes[c].ports[pc];

	x->peer_node = c;
	x->peer_port = pc;
	y->peer_node = a;
	y->peer_port = pa;
	x->state = y->state = TOPO_PORT_ACTIVE;
}

void tb_unlink(struct tb *b, uint32_t a, uint8_t pa)
{
	struct topo_port *x = &b->t.nodes[a].ports[pa];

	if (x->peer_node == TOPO_NONE)
		return;
	struct topo_port *y = &b->t.nodes[x->peer_node].ports[x->peer_port];
	y->peer_node = TOPO_NONE;
	y->peer_port = 0;
	x->peer_node = TOPO_NONE;
	x->peer_port = 0;
}

void topo_free_all(struct topo *t)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		free(t->nodes[i].ports);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

static void add_hosts(struct tb *b, uint32_t sw, unsigned h)
{
	for (unsigned i = 0; i < h; i++)
		tb_link(b, sw, (uint8_t)(i + 1), tb_ca(b, 1), 1);
}

void tb_ft2(struct tb *b, unsigned k)
{
	unsigned h = k / 2;
	uint32_t leaf0 = b->t.nnodes;

	for (unsigned l = 0; l < k; l++)
		add_hosts(b, tb_switch(b, (uint8_t)k), h);
	/* leaves are every (h+1)-th node from leaf0: switch then its CAs */
	for (unsigned s = 0; s < h; s++) {
		uint32_t sp = tb_switch(b, (uint8_t)k);
		for (unsigned l = 0; l < k; l++)
			tb_link(b, leaf0 + l * (h + 1), (uint8_t)(h + 1 + s), sp, (uint8_t)(l + 1));
	}
}

void tb_ft3(struct tb *b, unsigned k)
{
	unsigned h = k / 2;
	uint32_t *leaf = calloc(k * h, sizeof(*leaf)), *mid = calloc(k * h, sizeof(*mid));

	for (unsigned i = 0; i < k * h; i++) {
		leaf[i] = tb_switch(b, (uint8_t)k);
		add_hosts(b, leaf[i], h);
	}
	for (unsigned pod = 0; pod < k; pod++)
		for (unsigned m = 0; m < h; m++) {
			mid[pod * h + m] = tb_switch(b, (uint8_t)k);
			for (unsigned l = 0; l < h; l++)
				tb_link(b, leaf[pod * h + l], (uint8_t)(h + 1 + m), mid[pod * h + m],
					(uint8_t)(l + 1));
		}
	for (unsigned m = 0; m < h; m++)
		for (unsigned i = 0; i < h; i++) {
			uint32_t sp = tb_switch(b, (uint8_t)k);
			for (unsigned pod = 0; pod < k; pod++)
				tb_link(b, mid[pod * h + m], (uint8_t)(h + 1 + i), sp, (uint8_t)(pod + 1));
		}
	free(leaf);
	free(mid);
}

void tb_remove_links(struct tb *b, unsigned pct, uint64_t seed)
{
	struct topo *t = &b->t;

	for (uint32_t n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].type != TOPO_SWITCH)
			continue;
		for (uint32_t p = 1; p <= t->nodes[n].nports; p++) {
			uint32_t peer = t->nodes[n].ports[p].peer_node;
			if (peer == TOPO_NONE || peer < n || t->nodes[peer].type != TOPO_SWITCH)
				continue;
			if (tb_rand(&seed) % 1000 < pct * 10u)
				tb_unlink(b, n, (uint8_t)p);
		}
	}
}

static int has_ca(const struct topo *t, uint32_t n)
{
	for (uint32_t p = 1; p <= t->nodes[n].nports; p++) {
		uint32_t peer = t->nodes[n].ports[p].peer_node;
		if (peer != TOPO_NONE && t->nodes[peer].type != TOPO_SWITCH)
			return 1;
	}
	return 0;
}

void tb_remove_switches(struct tb *b, unsigned cnt, uint64_t seed)
{
	struct topo *t = &b->t;
	uint32_t *cand = calloc(t->nnodes + 1, sizeof(*cand)), n = 0;

	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == TOPO_SWITCH && !has_ca(t, i))
			cand[n++] = i;
	for (unsigned r = 0; r < cnt && n; r++) {
		uint32_t j = (uint32_t)(tb_rand(&seed) % n);
		for (uint32_t p = 1; p <= t->nodes[cand[j]].nports; p++)
			tb_unlink(b, cand[j], (uint8_t)p);
		cand[j] = cand[--n];
	}
	free(cand);
}

void tb_torus(struct tb *b, const unsigned *dims, unsigned nd, unsigned h)
{
	unsigned n = 1;

	for (unsigned i = 0; i < nd; i++)
		n *= dims[i];
	uint32_t *sw = calloc(n, sizeof(*sw));
	for (unsigned i = 0; i < n; i++) {
		sw[i] = tb_switch(b, (uint8_t)(h + 2 * nd));
		add_hosts(b, sw[i], h);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned stride = 1;
		for (unsigned d = 0; d < nd; d++) {
			unsigned c = (i / stride) % dims[d];
			unsigned j = i - c * stride + ((c + 1) % dims[d]) * stride;
			if (dims[d] > 1)
				tb_link(b, sw[i], (uint8_t)(h + 1 + 2 * d), sw[j], (uint8_t)(h + 2 + 2 * d));
			stride *= dims[d];
		}
	}
	free(sw);
}

static int linked_to(const struct topo *t, uint32_t a, uint32_t c)
{
	for (uint32_t p = 1; p <= t->nodes[a].nports; p++)
		if (t->nodes[a].ports[p].peer_node == c)
			return 1;
	return 0;
}

void tb_random(struct tb *b, unsigned n, unsigned d, unsigned h, uint64_t seed)
{
	uint32_t *sw = calloc(n, sizeof(*sw));
	uint32_t *stub = calloc(n * d + 1, sizeof(*stub)), ns = 0;

	for (unsigned i = 0; i < n; i++) {
		sw[i] = tb_switch(b, (uint8_t)(h + d));
		add_hosts(b, sw[i], h);
	}
	/* a ring keeps it connected; the other ports are paired at random */
	for (unsigned i = 0; i < n && n > 1; i++)
		if (n > 2 || i == 0)
			tb_link(b, sw[i], (uint8_t)(h + 1), sw[(i + 1) % n], (uint8_t)(h + 2));
	for (unsigned i = 0; i < n; i++)
		for (unsigned p = h + 3; p <= h + d; p++)
			stub[ns++] = i * 256 + p;
	for (uint32_t i = ns; i > 1; i--) {
		uint32_t j = (uint32_t)(tb_rand(&seed) % i), tmp = stub[i - 1];
		stub[i - 1] = stub[j];
		stub[j] = tmp;
	}
	for (uint32_t i = 0; i + 1 < ns; i += 2) {
		uint32_t a = sw[stub[i] / 256], c = sw[stub[i + 1] / 256];
		if (a != c && !linked_to(&b->t, a, c))
			tb_link(b, a, (uint8_t)(stub[i] % 256), c, (uint8_t)(stub[i + 1] % 256));
	}
	free(sw);
	free(stub);
}

void tb_dragonfly(struct tb *b, unsigned g, unsigned a, unsigned h)
{
	unsigned glob = (g - 1 + a - 1) / a, np = h + (a - 1) + glob;
	uint32_t *r = calloc(g * a, sizeof(*r));
	uint8_t *next = calloc(g * a, 1);

	for (unsigned i = 0; i < g * a; i++) {
		r[i] = tb_switch(b, (uint8_t)np);
		add_hosts(b, r[i], h);
		next[i] = (uint8_t)(h + 1);
	}
	for (unsigned G = 0; G < g; G++)
		for (unsigned x = 0; x < a; x++)
			for (unsigned y = x + 1; y < a; y++) {
				unsigned i = G * a + x, j = G * a + y;
				tb_link(b, r[i], next[i]++, r[j], next[j]++);
			}
	for (unsigned G = 0; G < g; G++)
		for (unsigned H = G + 1; H < g; H++) {
			unsigned i = G * a + (H - 1) % a, j = H * a + G % a;
			tb_link(b, r[i], next[i]++, r[j], next[j]++);
		}
	free(r);
	free(next);
}

void tb_shuffle(struct topo *t, uint64_t seed)
{
	uint32_t n = t->nnodes;
	uint32_t *perm = calloc(n + 1, sizeof(*perm));
	struct topo_node *nn = calloc(n + 1, sizeof(*nn));

	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(tb_rand(&seed) % i), tmp = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = tmp;
	}
	for (uint32_t i = 0; i < n; i++) {
		nn[perm[i]] = t->nodes[i];
		for (uint32_t p = 0; p <= nn[perm[i]].nports; p++) {
			struct topo_port *tp = &nn[perm[i]].ports[p];
			if (tp->peer_node != TOPO_NONE)
				tp->peer_node = perm[tp->peer_node];
		}
	}
	free(t->nodes);
	t->nodes = nn;
	free(perm);
}

void topo_copy(struct topo *dst, const struct topo *src)
{
	dst->nnodes = src->nnodes;
	dst->nodes = calloc(src->nnodes + 1, sizeof(*dst->nodes));
	for (uint32_t i = 0; i < src->nnodes; i++) {
		dst->nodes[i] = src->nodes[i];
		size_t sz = (src->nodes[i].nports + 1u) * sizeof(struct topo_port);
		dst->nodes[i].ports = malloc(sz);
		memcpy(dst->nodes[i].ports, src->nodes[i].ports, sz);
	}
}
