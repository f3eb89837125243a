/*
 * DOC: the four-bit counter blocks of routing/nib.h against plain byte
 * counters. Built twice: as the compiler targets (SSE2 on x86-64), and as
 * test_nib_scalar with __SSE2__ undefined, for the byte-by-byte fallback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "routing/nib.h"

/*
 * Four-bit counter blocks (routing/nib.h) against 64 plain counters with
 * the same rules (up to 15, down to 0, 15 stays): random runs bumped up
 * and down, every counter and random ranges' largest compared after each.
 */
static void test_nib_counters(void **state)
{
	uint8_t blk[NIB_BYTES], ref[NIB_BLK];
	uint32_t seed = 12345;
	int saw_max = 0;

	(void)state;
	memset(blk, 0, sizeof(blk));
	memset(ref, 0, sizeof(ref));
	for (int step = 0; step < 20000; step++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t off = (seed >> 8) % NIB_BLK, n = (seed >> 16) % (NIB_BLK - off + 1);
		int d = (seed >> 30) & 1 || step < 200 ? 1 : -1;
		uint8_t want = 0;
		for (uint32_t k = off; k < off + n; k++) {
			if (d > 0)
				ref[k] = (uint8_t)(ref[k] + (ref[k] < NIB_MAX));
			else
				ref[k] = (uint8_t)(ref[k] - (ref[k] > 0 && ref[k] < NIB_MAX));
			want = ref[k] > want ? ref[k] : want;
		}
		assert_int_equal(nib_bump(blk, off, n, d), want);
		saw_max |= want == NIB_MAX;
		for (uint32_t k = 0; k < NIB_BLK; k++)
			assert_int_equal(nib_get(blk, k), ref[k]);
		seed = seed * 1103515245u + 12345u;
		off = (seed >> 8) % NIB_BLK;
		n = (seed >> 16) % (NIB_BLK - off + 1);
		want = 0;
		for (uint32_t k = off; k < off + n; k++)
			want = ref[k] > want ? ref[k] : want;
		assert_int_equal(nib_max(blk, off, n), want);
		assert_int_equal(nib_any(blk, off, n), want != 0);
		if (step % 5000 == 4999) { /* from zero again: sparse counters */
			memset(blk, 0, sizeof(blk));
			memset(ref, 0, sizeof(ref));
		}
	}
	/* the first runs reached 15: the top that stays was tried */
	assert_true(saw_max);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nib_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
