/*
 * DOC: cmocka helpers shared by the routing tests: LIDs, routes and the
 * verification of a struct topo, each failing the test on an error.
 * Include after <cmocka.h>.
 */
#ifndef TEST_ROUTING_UTIL_H
#define TEST_ROUTING_UTIL_H

#include "routing/lids.h"
#include "routing/routing.h"
#include "routing/verify.h"

static inline void fill(struct topo *t, uint8_t lmc)
{
	char err[128];

	assert_int_equal(topo_fill_lids(t, lmc, err, sizeof(err)), 0);
}

static inline void route(const struct topo *t, const char *engine, struct route_tables *rt)
{
	struct route_opts o = { .engine = engine };

	if (route_compute(t, &o, rt))
		fail_msg("route_compute: %s", rt->why);
}

static inline void verify(const struct topo *t, const struct route_tables *rt,
			  struct route_verify *v)
{
	char err[128];

	if (route_verify(t, rt, v, err, sizeof(err)))
		fail_msg("route_verify: %s", err);
}

#endif
