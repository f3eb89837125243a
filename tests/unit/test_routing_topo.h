/*
 * DOC: building struct topo fabrics in C for routing tests and the bench.
 *
 * Fat trees (2 and 3 levels, k-ary, optionally with parallel links),
 * seeded degradation (links or switches removed), tori, random regular
 * graphs, dragonflies, and a node shuffle for order-independence tests.
 * No I/O, so property tests can build thousands of fabrics quickly.
 */
#ifndef TEST_ROUTING_TOPO_H
#define TEST_ROUTING_TOPO_H

#include <stdint.h>

#include "ibsm/topo.h"

struct tb {
	struct topo t;
	uint32_t cap;
	uint64_t next_sw_guid, next_ca_guid;
};

void tb_init(struct tb *b);
uint32_t tb_switch(struct tb *b, uint8_t nports);
uint32_t tb_ca(struct tb *b, uint8_t nports);
void tb_link(struct tb *b, uint32_t a, uint8_t pa, uint32_t c, uint8_t pc);
void tb_unlink(struct tb *b, uint32_t a, uint8_t pa);
void topo_free_all(struct topo *t);

/* k-ary fat trees of radix k (even); hosts per leaf = k/2. */
void tb_ft2(struct tb *b, unsigned k);
void tb_ft3(struct tb *b, unsigned k);
/* Removes about pct percent of switch-to-switch links (seeded, keeps none
 * of a leaf's hosts isolated only by chance: no guarantee). */
void tb_remove_links(struct tb *b, unsigned pct, uint64_t seed);
/* Unlinks every port of n seeded non-leaf switches. */
void tb_remove_switches(struct tb *b, unsigned n, uint64_t seed);
/* dims[0..nd) torus with h hosts per switch. */
void tb_torus(struct tb *b, const unsigned *dims, unsigned nd, unsigned h);
/* n switches of degree d (random regular-ish), h hosts each, seeded. */
void tb_random(struct tb *b, unsigned n, unsigned d, unsigned h, uint64_t seed);
/* g groups of a routers, each with h hosts, all-to-all inside a group and
 * one global link between every pair of groups. */
void tb_dragonfly(struct tb *b, unsigned g, unsigned a, unsigned h);
/* Permutes t->nodes (seeded), fixing peer indices. */
void tb_shuffle(struct topo *t, uint64_t seed);
/* Deep copy. */
void topo_copy(struct topo *dst, const struct topo *src);

uint64_t tb_rand(uint64_t *state);

#endif
