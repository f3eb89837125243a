/*
 * DOC: unit tests of lib/pool.c: an object comes back zeroed whatever was
 * written into it, what was put is handed out again, no more than
 * POOL_KEEP objects are kept free whatever the peak, and a drained pool
 * starts over. Run under ASan in CI, which reports a leak or a use of a
 * freed object; there an object kept free must be poisoned, so that a use
 * after pool_put is reported too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/pool.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

struct obj {
	uint64_t a[12];
};

static void test_zeroed_and_reused(void **state)
{
	struct pool p = { 0 };
	struct obj *o = pool_get(&p, sizeof(*o)), *again;

	for (size_t i = 0; i < 12; i++)
		assert_int_equal(o->a[i], 0);
	memset(o, 0xA5, sizeof(*o));
	pool_put(&p, o);
	assert_int_equal(p.nfree, 1);
	again = pool_get(&p, sizeof(*again));
	assert_ptr_equal(again, o);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(again->a[i], 0);
	assert_int_equal(p.nfree, 0);
	pool_put(&p, again);
	pool_put(&p, NULL);
	assert_int_equal(p.nfree, 1);
	pool_drain(&p);
	assert_int_equal(p.nfree, 0);
	assert_null(p.head);
}

/* A peak of more than POOL_KEEP objects: the rest go back to free(). */
static void test_kept_bounded(void **state)
{
	struct pool p = { 0 };
	size_t n = POOL_KEEP + 100;
	struct obj **v = calloc(n, sizeof(*v));

	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = pool_get(&p, sizeof(struct obj));
	for (size_t i = 0; i < n; i++)
		pool_put(&p, v[i]);
	assert_int_equal(p.nfree, POOL_KEEP);
	for (size_t i = 0; i < n; i++)
		v[i] = pool_get(&p, sizeof(struct obj));
	assert_int_equal(p.nfree, 0);
	for (size_t i = 0; i < n; i++)
		free(v[i]);   /* pool objects are plain allocations */
	pool_drain(&p);
	free(v);
}

/* Objects smaller than a pointer still hold the free list's link. */
static void test_tiny_objects(void **state)
{
	struct pool p = { 0 };
	uint8_t *a = pool_get(&p, 1), *b;

	pool_put(&p, a);
	b = pool_get(&p, 1);
	assert_ptr_equal(a, b);
	assert_int_equal(b[0], 0);
	pool_put(&p, b);
	pool_drain(&p);
}

/* Under ASan every byte of a kept object is poisoned until handed out. */
static void test_kept_poisoned(void **state)
{
#ifdef TEST_ASAN
	struct pool p = { 0 };
	struct obj *o = pool_get(&p, sizeof(*o));

	assert_int_equal(__asan_region_is_poisoned(o, sizeof(*o)), 0);
	pool_put(&p, o);
	assert_ptr_equal(__asan_region_is_poisoned(o, sizeof(*o)), o);
	for (size_t i = 0; i < sizeof(*o); i++)
		assert_int_not_equal(__asan_address_is_poisoned((char *)o + i), 0);
	o = pool_get(&p, sizeof(*o));
	assert_int_equal(__asan_region_is_poisoned(o, sizeof(*o)), 0);
	pool_put(&p, o);
	pool_drain(&p);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zeroed_and_reused),
		cmocka_unit_test(test_kept_bounded),
		cmocka_unit_test(test_tiny_objects),
		cmocka_unit_test(test_kept_poisoned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
