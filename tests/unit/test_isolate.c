/*
 * DOC: tests of sm/isolate.c on a fabric built in the test: which links
 * may be isolated (never one whose loss cuts a node off, never more than
 * health_isolate_max, only as master), that both ends are held out of
 * routing and a reroute asked for, and the way back.
 *
 *   H0 (the SM) - S1 =two links= S2 - S3 - H2
 *                                 |
 *                                 H1
 * The rest of the SM (reroute, hold-down) is stubbed and counted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sm/isolate.h"
#include "sm/light.h"
#include "sm/sm.h"
#include "sm/sweep.h"

static unsigned reroutes;

void sm_reroute_request(struct sm *sm)
{
	reroutes++;
}

void sm_apply_holddown(struct sm *sm)
{
	/* the real one holds isolated ports and flapping ones; nothing flaps here */
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++)
		for (unsigned k = 1; k <= sm->fabric->nodes[i]->ni.num_ports; k++)
			sm->fabric->nodes[i]->ports[k].held =
				sm_port_isolated(sm, &sm->fabric->nodes[i]->ports[k]);
}

static struct sm_node *node(struct sm_fabric *f, uint8_t type, uint64_t guid, uint8_t ports)
{
	struct smp_node_info ni = { .node_type = type, .num_ports = ports, .node_guid = guid,
				    .port_guid = guid };
	struct sm_node *n = fabric_add(f, &ni);

	for (unsigned k = 0; k <= ports; k++) {
		n->ports[k].have_pi = true;
		n->ports[k].pi.port_state = TOPO_PORT_ACTIVE;
	}
	return n;
}

static struct sm_node *S1, *S2, *S3, *H0, *H1, *H2;

static void setup_sm(struct sm *sm)
{
	struct sm_fabric *f = fabric_new();

	memset(sm, 0, sizeof(*sm));
	S1 = node(f, TOPO_SWITCH, 0x11, 5);
	S2 = node(f, TOPO_SWITCH, 0x12, 5);
	S3 = node(f, TOPO_SWITCH, 0x13, 4);
	H0 = node(f, TOPO_CA, 0x1, 1);
	H1 = node(f, TOPO_CA, 0x2, 1);
	H2 = node(f, TOPO_CA, 0x3, 1);
	assert_int_equal(fabric_link(f, S1, 1, H0, 1), 0);
	assert_int_equal(fabric_link(f, S1, 3, S2, 3), 0);
	assert_int_equal(fabric_link(f, S1, 4, S2, 4), 0);
	assert_int_equal(fabric_link(f, S2, 1, H1, 1), 0);
	assert_int_equal(fabric_link(f, S2, 2, S3, 1), 0);
	assert_int_equal(fabric_link(f, S3, 2, H2, 1), 0);
	f->sm_node = H0;
	sm->fabric = f;
	sm->state = SM_STATE_MASTER;
	sm->conf.health_isolate_max = 1;
	reroutes = 0;
}

static void teardown_sm(struct sm *sm)
{
	sm_isolate_free(sm);
	fabric_free(sm->fabric);
}

/* One of two parallel links may go; both ends are held; a reroute. */
static void test_isolate_parallel_link(void **state)
{
	struct sm sm;

	setup_sm(&sm);
	assert_int_equal(sm_isolate(&sm, &S1->ports[3], "symbol_errors"), 0);
	assert_true(S1->ports[3].held && S2->ports[3].held);
	assert_false(S1->ports[4].held);
	assert_int_equal(reroutes, 1);
	assert_int_equal(sm_isolated_count(&sm), 1);
	assert_true(sm_port_isolated(&sm, &S2->ports[3]));
	assert_string_equal(sm_isolated_at(&sm, 0)->reason, "symbol_errors");
	/* from the other end: the same link */
	assert_int_equal(sm_isolate(&sm, &S2->ports[3], "x"), -EALREADY);
	/* the last link between S1 and S2: it may never go, whatever the limit */
	assert_int_equal(sm_isolate(&sm, &S1->ports[4], "x"), -EHOSTUNREACH);
	sm.conf.health_isolate_max = 2;
	assert_int_equal(sm_isolate(&sm, &S1->ports[4], "x"), -EHOSTUNREACH);
	assert_int_equal(reroutes, 1);
	sm_deisolate(&sm, 0, "quiet");
	assert_int_equal(sm_isolated_count(&sm), 0);
	assert_false(S1->ports[3].held || S2->ports[3].held);
	assert_int_equal(reroutes, 2);
	teardown_sm(&sm);
}

/* A bridge to a switch, a CA's only link, a port without a link, and any
 * isolation but by a master: refused, nothing held. */
static void test_isolate_refused(void **state)
{
	struct sm sm;

	setup_sm(&sm);
	sm.conf.health_isolate_max = 8;
	assert_int_equal(sm_isolate(&sm, &S2->ports[2], "x"), -EHOSTUNREACH);
	assert_int_equal(sm_isolate(&sm, &S3->ports[1], "x"), -EHOSTUNREACH);
	assert_int_equal(sm_isolate(&sm, &S2->ports[1], "x"), -EHOSTUNREACH);
	assert_int_equal(sm_isolate(&sm, &H2->ports[1], "x"), -EHOSTUNREACH);
	assert_int_equal(sm_isolate(&sm, &S3->ports[3], "x"), -ENOLINK);
	sm.state = SM_STATE_STANDBY;
	assert_int_equal(sm_isolate(&sm, &S1->ports[3], "x"), -EPERM);
	sm.state = SM_STATE_MASTER;
	sm.handing_over = true;
	assert_int_equal(sm_isolate(&sm, &S1->ports[3], "x"), -EPERM);
	for (uint32_t i = 0; i < sm.fabric->nnodes; i++)
		for (unsigned k = 1; k <= sm.fabric->nodes[i]->ni.num_ports; k++)
			assert_false(sm.fabric->nodes[i]->ports[k].held);
	assert_int_equal(reroutes, 0);
	assert_int_equal(sm_isolated_count(&sm), 0);
	teardown_sm(&sm);
}

/* The limit refuses a link that could go. One that may never go is
 * refused for that at any limit: which of the two a port hears must not
 * depend on whether the PM read it before or after another link went. */
static void test_isolate_limit(void **state)
{
	struct sm sm;

	(void)state;
	setup_sm(&sm);
	assert_int_equal(fabric_link(sm.fabric, S1, 5, S2, 5), 0);
	assert_int_equal(sm_isolate(&sm, &S1->ports[3], "x"), 0);
	assert_int_equal(sm_isolate(&sm, &S1->ports[4], "x"), -ENOSPC);
	assert_int_equal(sm_isolate(&sm, &H2->ports[1], "x"), -EHOSTUNREACH);
	assert_int_equal(sm_isolate(&sm, &S2->ports[2], "x"), -EHOSTUNREACH);
	assert_int_equal(sm_isolate(&sm, &S2->ports[1], "x"), -EHOSTUNREACH);
	sm.conf.health_isolate_max = 2;
	assert_int_equal(sm_isolate(&sm, &S1->ports[4], "x"), 0);
	assert_int_equal(sm_isolate(&sm, &S2->ports[5], "x"), -EHOSTUNREACH);
	assert_int_equal(sm_isolated_count(&sm), 2);
	teardown_sm(&sm);
}

/* A link already held out (flapping) counts as gone: its parallel link is
 * then the last one and stays. */
static void test_isolate_counts_held_links(void **state)
{
	struct sm sm;

	setup_sm(&sm);
	S1->ports[4].held = S2->ports[4].held = true;
	assert_int_equal(sm_isolate(&sm, &S1->ports[3], "x"), -EHOSTUNREACH);
	S1->ports[4].held = S2->ports[4].held = false;
	assert_int_equal(sm_isolate(&sm, &S1->ports[3], "x"), 0);
	/* a standby forgets, without a reroute */
	sm_isolate_forget(&sm);
	assert_int_equal(sm_isolated_count(&sm), 0);
	assert_int_equal(reroutes, 1);
	teardown_sm(&sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolate_parallel_link),
		cmocka_unit_test(test_isolate_refused),
		cmocka_unit_test(test_isolate_limit),
		cmocka_unit_test(test_isolate_counts_held_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
