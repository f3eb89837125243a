/*
 * DOC: unit tests of lib/guidtab.c: records by (GUID, port number) are
 * found again after the table grows, ports of one GUID are apart, a
 * record made once is the same record later, and a removal leaves every
 * other record findable (the records after the hole are placed again),
 * checked against a plain list over thousands of random operations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/guidtab.h"

struct rec {
	struct guidtab_key key;
	uint32_t value;
};

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_get_find(void **state)
{
	struct guidtab t;
	struct rec *r;

	guidtab_init(&t, sizeof(struct rec));
	assert_null(guidtab_find(&t, 0x100, 1));   /* nothing allocated yet */
	r = guidtab_get(&t, 0x100, 1);
	assert_int_equal(r->value, 0);             /* made zeroed */
	r->value = 7;
	r = guidtab_get(&t, 0x100, 2);
	r->value = 8;
	assert_int_equal(((struct rec *)guidtab_get(&t, 0x100, 1))->value, 7);
	assert_int_equal(((struct rec *)guidtab_find(&t, 0x100, 2))->value, 8);
	assert_null(guidtab_find(&t, 0x100, 3));
	assert_null(guidtab_find(&t, 0, 0));
	assert_int_equal(t.count, 2);
	assert_int_equal(t.size, 256);
	guidtab_free(&t);
	assert_null(guidtab_find(&t, 0x100, 1));
	assert_int_equal(t.count, 0);
}

static void test_grow(void **state)
{
	struct guidtab t;

	guidtab_init_sized(&t, sizeof(struct rec), 16);
	for (uint32_t i = 1; i <= 10000; i++)
		((struct rec *)guidtab_get(&t, (uint64_t)i << 20, (uint8_t)i))->value = i;
	assert_int_equal(t.count, 10000);
	assert_true(t.size >= 20000);
	for (uint32_t i = 1; i <= 10000; i++) {
		const struct rec *r = guidtab_find(&t, (uint64_t)i << 20, (uint8_t)i);

		assert_non_null(r);
		assert_int_equal(r->value, i);
		assert_null(guidtab_find(&t, (uint64_t)i << 20, (uint8_t)(i + 1)));
	}
	guidtab_free(&t);
}

/* Random gets and removals in a small key space (long probe runs), each
 * step checked against a plain array of what should be there. */
static void test_del(void **state)
{
	enum { KEYS = 600, STEPS = 20000 };
	uint32_t *want = calloc(KEYS, sizeof(*want));
	struct guidtab t;
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	guidtab_init(&t, sizeof(struct rec));
	for (uint32_t step = 1; step <= STEPS; step++) {
		uint32_t k = (uint32_t)(next(&s) % KEYS);
		uint64_t guid = 1 + k / 4;

		if (next(&s) % 3 == 0) {
			guidtab_del(&t, guid, (uint8_t)(k % 4));
			want[k] = 0;
		} else {
			((struct rec *)guidtab_get(&t, guid, (uint8_t)(k % 4)))->value = step;
			want[k] = step;
		}
		if (step % 97)
			continue;
		size_t n = 0;
		for (uint32_t j = 0; j < KEYS; j++) {
			const struct rec *r = guidtab_find(&t, 1 + j / 4, (uint8_t)(j % 4));

			n += want[j] != 0;
			if (!want[j]) {
				assert_null(r);
				continue;
			}
			assert_non_null(r);
			assert_int_equal(r->value, want[j]);
		}
		assert_int_equal(t.count, n);
	}
	guidtab_free(&t);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_find),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_del),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
