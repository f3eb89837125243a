/*
 * DOC: byte-exact tests of the adaptive-routing attribute codecs.
 *
 * The byte arrays were written by hand from the public MLNX_OFED layouts
 * (ibis packets_layouts.h: ARInfo, the group table, the SwitchX AR LFT,
 * the GeneralInfo capability mask), every field holding a
 * distinct value so a wrong shift or mask shows up as a wrong byte.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mad/ar.h"

static const uint8_t gi_bytes[16] = {
	0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

static void test_gi_caps(void **state)
{
	struct ar_gi_caps c;
	uint8_t buf[64];

	assert_int_equal(ar_gi_caps_decode(gi_bytes, 16, &c), 0);
	assert_true(ar_gi_has_cap(&c, AR_GI_CAP_AR_REV1));
	assert_false(ar_gi_has_cap(&c, 1));
	assert_false(ar_gi_has_cap(&c, 3));
	assert_true(ar_gi_has_cap(&c, 95));
	assert_true(ar_gi_has_cap(&c, 96));
	assert_false(ar_gi_has_cap(&c, 128));
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(ar_gi_caps_encode(&c, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, gi_bytes, 16);
	assert_int_equal(buf[16], 0xee);
	assert_int_equal(ar_gi_caps_decode(gi_bytes, 15, &c), -EINVAL);
}

static const uint8_t info_bytes[36] = {
	0x55, 0x12, 0x73, 0x2b,             /* flags0, directions, sub groups, flags3 */
	0xa3, 0x45, 0x67, 0x89,             /* width a, tables 3, top 0x456, cap 0x789 */
	0xbe, 0xef, 0x42, 0x54,             /* SL mask, sub groups supported, versions */
	0x00, 0x00, 0x00, 0x09,             /* reserved, transport disable */
	0x00, 0x01, 0xe2, 0x40,             /* ageing 123456 us */
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
	0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
};

static void check_info_fields(const struct ar_info *i)
{
	assert_int_equal(i->no_fallback, 1);
	assert_int_equal(i->is4_mode, 0);
	assert_int_equal(i->glb_groups, 1);
	assert_int_equal(i->by_sl_cap, 0);
	assert_int_equal(i->by_sl_en, 1);
	assert_int_equal(i->by_transp_cap, 0);
	assert_int_equal(i->dyn_cap_calc_sup, 1);
	assert_int_equal(i->direction_num_sup, 0x12);
	assert_int_equal(i->group_table_copy_sup, 7);
	assert_int_equal(i->sub_grps_active, 3);
	assert_int_equal(i->e, 1);
	assert_int_equal(i->is_arn_sup, 1);
	assert_int_equal(i->is_frn_sup, 0);
	assert_int_equal(i->is_fr_sup, 1);
	assert_int_equal(i->fr_enabled, 0);
	assert_int_equal(i->rn_xmit_enabled, 1);
	assert_int_equal(i->is_ar_trials_supported, 0);
	assert_int_equal(i->string_width_cap, 0xa);
	assert_int_equal(i->group_table_cap, 3);
	assert_int_equal(i->group_top, 0x456);
	assert_int_equal(i->group_cap, 0x789);
	assert_int_equal(i->enable_by_sl_mask, 0xbeef);
	assert_int_equal(i->sub_grps_supported, 0x42);
	assert_int_equal(i->rn_version_cap, 5);
	assert_int_equal(i->ar_version_cap, 4);
	assert_int_equal(i->by_transport_disable, 9);
	assert_int_equal(i->ageing_time_value, 123456);
}

static void test_ar_info(void **state)
{
	struct ar_info i;
	uint8_t buf[64], want[36];

	assert_int_equal(ar_info_decode(info_bytes, 36, &i), 0);
	check_info_fields(&i);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(ar_info_encode(&i, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, info_bytes, 36);
	assert_int_equal(buf[36], 0xee);
	/* Read-modify-write: changing e, group_top, SL mask and ageing
	 * touches only their bytes; the HBF tail stays as read. */
	i.e = 0;
	i.group_top = 0x001;
	i.enable_by_sl_mask = 0x0001;
	i.ageing_time_value = 30;
	i.by_transport_disable = 0xa;
	memcpy(want, info_bytes, 36);
	want[3] = 0x2a;
	want[4] = 0xa3; want[5] = 0x00; want[6] = 0x17; want[7] = 0x89;
	want[8] = 0x00; want[9] = 0x01;
	want[15] = 0x0a;
	want[16] = 0; want[17] = 0; want[18] = 0; want[19] = 30;
	assert_int_equal(ar_info_encode(&i, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, want, 36);
	assert_int_equal(ar_info_decode(info_bytes, 35, &i), -EINVAL);
	assert_int_equal(ar_info_encode(&i, buf, 35), -EINVAL);
}

static void test_ar_info_reserved_bits_kept(void **state)
{
	uint8_t in[36] = { 0x80, 0, 0, 0x80 }, buf[36];
	struct ar_info i;

	assert_int_equal(ar_info_decode(in, 36, &i), 0);
	assert_int_equal(i.no_fallback + i.e + i.dyn_cap_calc_sup + i.is_ar_trials_supported, 0);
	i.e = 1;
	assert_int_equal(ar_info_encode(&i, buf, sizeof(buf)), 0);
	assert_int_equal(buf[0], 0x80);
	assert_int_equal(buf[3], 0x81);
}

static uint8_t group_bytes[64];

static void set_group_bytes(void)
{
	memset(group_bytes, 0, sizeof(group_bytes));
	group_bytes[31] = 0x03;       /* group 0: ports 0, 1 */
	group_bytes[30] = 0x02;       /* port 9 */
	group_bytes[23] = 0x01;       /* port 64 */
	group_bytes[0] = 0x80;        /* port 255 */
	group_bytes[32 + 27] = 0x10;  /* group 1: port 36 */
	group_bytes[32 + 15] = 0x01;  /* port 128 */
}

static void test_group_block(void **state)
{
	struct ar_group_block g;
	uint8_t buf[64];

	set_group_bytes();
	assert_int_equal(ar_group_block_decode(group_bytes, 64, &g), 0);
	assert_true(g.ports[0][0] == ((1ull << 0) | (1ull << 1) | (1ull << 9)));
	assert_true(g.ports[0][1] == 1ull);
	assert_true(g.ports[0][2] == 0);
	assert_true(g.ports[0][3] == (1ull << 63));
	assert_true(g.ports[1][0] == (1ull << 36));
	assert_true(g.ports[1][1] == 0);
	assert_true(g.ports[1][2] == 1ull);
	assert_true(g.ports[1][3] == 0);
	assert_int_equal(ar_group_block_encode(&g, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, group_bytes, 64);
	assert_int_equal(ar_group_block_decode(group_bytes, 63, &g), -EINVAL);
	assert_int_equal(ar_group_block_encode(&g, buf, 63), -EINVAL);
}

static const uint8_t lft_bytes[64] = {
	0x40, 0x03, 0x00, 0x01,   /* free, table 0, port 3, group 1 */
	0x80, 0xff, 0x00, 0x00,   /* static, drop */
	0x05, 0x11, 0x0a, 0xbc,   /* bounded, table 5, port 17, group 0xabc */
	[60] = 0xcf, 0x24, 0x0f, 0xff, /* HBF, table 15, port 36, group 0xfff */
};

static void test_lft_block(void **state)
{
	struct ar_lft_block b;
	uint8_t buf[64], odd[64];

	assert_int_equal(ar_lft_block_decode(lft_bytes, 64, &b), 0);
	assert_int_equal(b.e[0].state, AR_LID_FREE);
	assert_int_equal(b.e[0].port, 3);
	assert_int_equal(b.e[0].group, 1);
	assert_int_equal(b.e[1].state, AR_LID_STATIC);
	assert_int_equal(b.e[1].port, 0xff);
	assert_int_equal(b.e[2].state, AR_LID_BOUNDED);
	assert_int_equal(b.e[2].table, 5);
	assert_int_equal(b.e[2].port, 17);
	assert_int_equal(b.e[2].group, 0xabc);
	assert_int_equal(b.e[3].state, AR_LID_BOUNDED);
	assert_int_equal(b.e[3].group, 0);
	assert_int_equal(b.e[15].state, AR_LID_HBF);
	assert_int_equal(b.e[15].table, 15);
	assert_int_equal(b.e[15].port, 36);
	assert_int_equal(b.e[15].group, 0xfff);
	assert_int_equal(ar_lft_block_encode(&b, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, lft_bytes, 64);
	/* reserved bits (5:4 of byte 0, 15:12 of the group) are ignored */
	memcpy(odd, lft_bytes, 64);
	odd[0] |= 0x30;
	odd[2] |= 0xf0;
	assert_int_equal(ar_lft_block_decode(odd, 64, &b), 0);
	assert_int_equal(b.e[0].state, AR_LID_FREE);
	assert_int_equal(b.e[0].table, 0);
	assert_int_equal(b.e[0].group, 1);
	assert_int_equal(ar_lft_block_decode(lft_bytes, 63, &b), -EINVAL);
	assert_int_equal(ar_lft_block_encode(&b, buf, 63), -EINVAL);
}

static void test_mods(void **state)
{
	assert_int_equal(ar_group_block_mod(7), 7);
	assert_int_equal(ar_lft_block_mod(3071), 3071);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gi_caps),
		cmocka_unit_test(test_ar_info),
		cmocka_unit_test(test_ar_info_reserved_bits_kept),
		cmocka_unit_test(test_group_block),
		cmocka_unit_test(test_lft_block),
		cmocka_unit_test(test_mods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
