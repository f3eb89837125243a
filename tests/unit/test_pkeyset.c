/*
 * DOC: unit tests of fabric/pkeyset.c: P_Key lookup, the shared-partition
 * rule (full-full and full-limited talk, limited-limited does not), and
 * the stable layout: index 0 as the rules say, surviving P_Keys keep
 * their index (also across a membership change), new ones fill the lowest
 * free index, freed indexes are reused, and a table too long is reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/pkeyset.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_find(void **state)
{
	static const uint16_t t[] = { 0xffff, 0x0010, 0x0000, 0x8010, 0x0020, 0x8000 };

	assert_int_equal(pkey_find(t, N(t), 0x7fff), 0xffff);
	assert_int_equal(pkey_find(t, N(t), 0x0010), 0x8010);   /* full wins */
	assert_int_equal(pkey_find(t, N(t), 0x8020), 0x0020);
	assert_int_equal(pkey_find(t, N(t), 0x0030), 0);
	assert_int_equal(pkey_find(t, N(t), 0x0000), 0);        /* never an empty entry */
	assert_false(pkey_valid(0x8000));
	assert_true(pkey_valid(0x0001));
}

static void test_share(void **state)
{
	static const uint16_t full_a[] = { 0xffff, 0x8010 };
	static const uint16_t lim_b[] = { 0x7fff, 0x0010 };
	static const uint16_t lim_c[] = { 0x7fff, 0x0020 };
	uint16_t k = 0;

	assert_true(pkey_share(full_a, N(full_a), lim_b, N(lim_b), 0, &k));
	assert_int_equal(k, 0xffff);                            /* a's table order */
	assert_true(pkey_share(full_a, N(full_a), lim_b, N(lim_b), 0x0010, &k));
	assert_int_equal(k, 0x8010);
	assert_true(pkey_share(lim_b, N(lim_b), full_a, N(full_a), 0x8010, &k));
	assert_int_equal(k, 0x0010);                            /* a's own form */
	/* limited with limited: no */
	assert_false(pkey_share(lim_b, N(lim_b), lim_c, N(lim_c), 0, NULL));
	assert_false(pkey_share(lim_b, N(lim_b), lim_b, N(lim_b), 0x0010, NULL));
	/* a partition only one side holds */
	assert_false(pkey_share(full_a, N(full_a), lim_c, N(lim_c), 0x0020, NULL));
	assert_false(pkey_share(full_a, N(full_a), NULL, 0, 0, NULL));
}

static void test_share_both(void **state)
{
	/* a holds 0x0010 as limited and as full (allow_both_pkeys) */
	static const uint16_t both[] = { 0x7fff, 0x0010, 0x8010 };
	static const uint16_t lim[] = { 0x0010 };
	uint16_t k = 0;

	assert_true(pkey_share(both, N(both), lim, N(lim), 0, &k));
	assert_int_equal(k, 0x8010);
}

static void test_layout_fresh(void **state)
{
	static const uint16_t want[] = { 0xffff, 0x8010, 0x0020 };
	uint16_t out[8];

	assert_int_equal(pkey_layout(NULL, 0, want, N(want), out, N(out)), 3);
	assert_int_equal(out[0], 0xffff);
	assert_int_equal(out[1], 0x8010);
	assert_int_equal(out[2], 0x0020);
	assert_int_equal(out[3], 0);
	assert_int_equal(pkey_layout(NULL, 0, NULL, 0, out, N(out)), 0);
	assert_int_equal(out[0], 0);
}

/* A new partition sorted before the old ones does not move them. */
static void test_layout_stable(void **state)
{
	static const uint16_t prev[] = { 0xffff, 0x8010, 0x0030, 0x8040 };
	static const uint16_t want[] = { 0xffff, 0x8005, 0x8010, 0x0030, 0x8040 };
	uint16_t out[8];

	assert_int_equal(pkey_layout(prev, N(prev), want, N(want), out, N(out)), 5);
	assert_int_equal(out[1], 0x8010);
	assert_int_equal(out[2], 0x0030);
	assert_int_equal(out[3], 0x8040);
	assert_int_equal(out[4], 0x8005);
}

/* A dropped partition frees its index for the next new one; a P_Key whose
 * membership changed keeps its index; index 0 follows the rules even if
 * the port held something else there. */
static void test_layout_reuse(void **state)
{
	static const uint16_t prev[] = { 0x7fff, 0x8010, 0x0030, 0x8040, 0, 0x8050 };
	static const uint16_t want[] = { 0xffff, 0x0050, 0x8030, 0x8040, 0x8060 };
	uint16_t out[8];

	assert_int_equal(pkey_layout(prev, N(prev), want, N(want), out, N(out)), 6);
	assert_int_equal(out[0], 0xffff);
	assert_int_equal(out[1], 0x8060);   /* 0x8010 left: its index reused */
	assert_int_equal(out[2], 0x8030);   /* was limited, same index */
	assert_int_equal(out[3], 0x8040);
	assert_int_equal(out[4], 0);
	assert_int_equal(out[5], 0x0050);
}

/* Index 0's P_Key held elsewhere before moves to 0 and is not doubled. */
static void test_layout_index0(void **state)
{
	static const uint16_t prev[] = { 0xffff, 0x8010, 0x8020 };
	static const uint16_t want[] = { 0x8020, 0xffff, 0x8010 };
	uint16_t out[4];

	assert_int_equal(pkey_layout(prev, N(prev), want, N(want), out, N(out)), 3);
	assert_int_equal(out[0], 0x8020);
	assert_int_equal(out[1], 0x8010);
	assert_int_equal(out[2], 0xffff);
}

static void test_layout_full(void **state)
{
	static const uint16_t want[] = { 0xffff, 0x8001, 0x8002, 0x8003, 0x8004 };
	static const uint16_t prev[] = { 0xffff, 0, 0, 0x8004 };
	uint16_t out[4];

	assert_int_equal(pkey_layout(prev, N(prev), want, N(want), out, N(out)), 5);
	assert_int_equal(pkey_layout(prev, N(prev), want, 4, out, N(out)), 4);
	assert_int_equal(out[3], 0x8003);
	assert_int_equal(pkey_layout(prev, N(prev), want, 4, out, 3), 4);
	/* prev beyond the table is ignored */
	assert_int_equal(pkey_layout(prev, N(prev), want + 3, 2, out, 2), 2);
	assert_int_equal(out[0], 0x8003);
	assert_int_equal(out[1], 0x8004);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_share_both),
		cmocka_unit_test(test_layout_fresh),
		cmocka_unit_test(test_layout_stable),
		cmocka_unit_test(test_layout_reuse),
		cmocka_unit_test(test_layout_index0),
		cmocka_unit_test(test_layout_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
