/*
 * DOC: unit tests of conf/qosconf.c: VLArbitration lists, SL2VL maps, the
 * per-class short form, their errors (also as FILE:LINE messages from the
 * configuration parser, which runs them as option checks) and the merge of
 * class overrides over the qos_* defaults.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "conf/qosconf.h"

static void test_vlarb_lists(void **state)
{
	struct qos_arb a[QOS_MAX_ARB];
	char err[256];
	size_t n = 99;

	assert_int_equal(qos_parse_vlarb("", a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(qos_parse_vlarb(" 0:4 , 14 : 255,0x3:0x10", a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(a[1].vl, 14);
	assert_int_equal(a[1].weight, 255);
	assert_int_equal(a[2].vl, 3);
	assert_int_equal(a[2].weight, 16);
	assert_int_equal(qos_parse_vlarb("15:1", a, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "VLArbitration entry needs a VL 0..14");
	assert_int_equal(qos_parse_vlarb("1:256", a, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "VLArbitration weight must be 0..255");
	assert_int_equal(qos_parse_vlarb("1-2", a, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "VLArbitration entry is VL:Weight");
	assert_int_equal(qos_parse_vlarb("1:2;3:4", a, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "VLArbitration entries are separated by ','");
	assert_int_equal(qos_parse_vlarb("1:2,", a, &n, err, sizeof(err)), -1);
}

static void test_vlarb_cap(void **state)
{
	struct qos_arb a[QOS_MAX_ARB];
	char text[1024] = "", err[256];
	size_t n;

	for (int i = 0; i < QOS_MAX_ARB; i++)
		strcat(text, i ? ",1:1" : "1:1");
	assert_int_equal(qos_parse_vlarb(text, a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, QOS_MAX_ARB);
	strcat(text, ",2:2");
	assert_int_equal(qos_parse_vlarb(text, a, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 64 VLArbitration entries");
}

static void test_sl2vl_maps(void **state)
{
	uint8_t m[16];
	char err[256];

	assert_int_equal(qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", m, err, sizeof(err)), 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(m[i], i);
	assert_int_equal(qos_parse_sl2vl("0,1,2", m, err, sizeof(err)), -1);
	assert_string_equal(err, "SL2VL needs 16 VLs, got 3");
	assert_int_equal(qos_parse_sl2vl("0,1,", m, err, sizeof(err)), -1);
	assert_string_equal(err, "SL2VL entry 2 must be a VL 0..15");
	assert_int_equal(qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0", m, err,
					 sizeof(err)), -1);
	assert_string_equal(err, "SL2VL has more than 16 entries");
	assert_int_equal(qos_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16", m, err,
					 sizeof(err)), -1);
	assert_string_equal(err, "SL2VL entry 15 must be a VL 0..15");
	assert_int_equal(qos_parse_sl2vl("0 1", m, err, sizeof(err)), -1);
	assert_string_equal(err, "SL2VL needs 16 VLs separated by ','");
}

static void test_class_form(void **state)
{
	struct qos_params p;
	char err[256];

	memset(&p, 0, sizeof(p));
	p.max_vls = 15;
	assert_int_equal(qos_parse_class("", &p, err, sizeof(err)), 0);
	assert_int_equal(p.max_vls, 15);
	assert_int_equal(qos_parse_class(" max_vls=2; high_limit=9\tvlarb_low=0:1,1:2 ", &p, err,
					 sizeof(err)), 0);
	assert_int_equal(p.max_vls, 2);
	assert_int_equal(p.high_limit, 9);
	assert_int_equal(p.nlow, 2);
	assert_int_equal(p.low[1].weight, 2);
	assert_int_equal(qos_parse_class("max_vls=0", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "max_vls must be 1..15");
	assert_int_equal(qos_parse_class("high_limit=256", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "high_limit must be 0..255");
	assert_int_equal(qos_parse_class("max_vls=1 max_vls=2", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "max_vls given twice");
	assert_int_equal(qos_parse_class("vlarb=1:1", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "expected max_vls=, high_limit=, vlarb_high=, vlarb_low= or sl2vl=, "
			    "got 'vlarb=1:1'");
	assert_int_equal(qos_parse_class("sl2vl=1,2", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "SL2VL needs 16 VLs, got 2");
}

static int parse(const char *text, struct sm_conf *c, struct conf_errors *e)
{
	conf_errors_init(e);
	return conf_parse_buf(c, "t.conf", text, strlen(text), e);
}

/* The option table runs the checks: bad values are FILE:LINE errors. */
static void test_conf_errors(void **state)
{
	struct conf_errors e;
	struct sm_conf c;

	assert_int_equal(parse("qos yes\nqos_vlarb_high \"0:4,15:1\"\nqos_swe \"sl2vl=1\"\n"
			       "qos_sl2vl 1,2\npart_enforce sideways\n", &c, &e), 4);
	assert_string_equal(e.msg[0], "t.conf:2: qos_vlarb_high: VLArbitration entry needs a VL 0..14");
	assert_string_equal(e.msg[1], "t.conf:3: qos_swe: SL2VL needs 16 VLs, got 1");
	assert_string_equal(e.msg[2], "t.conf:4: qos_sl2vl: SL2VL needs 16 VLs, got 2");
	assert_string_equal(e.msg[3], "t.conf:5: part_enforce: invalid value 'sideways' "
			    "(one of: both, in, out, off)");
	conf_errors_free(&e);
	conf_free(&c);
}

/* Defaults as OpenSM's (osm_base.h), then a class override on top. */
static void test_params_merge(void **state)
{
	struct qos_params ca, swe;
	struct conf_errors e;
	struct sm_conf c;

	assert_int_equal(parse("qos_swe \"max_vls=4 vlarb_high=\"\nqos_max_vls 8\n", &c, &e), 0);
	qos_params_for(&c, QOS_CA, &ca);
	qos_params_for(&c, QOS_SWE, &swe);
	assert_int_equal(ca.max_vls, 8);
	assert_int_equal(swe.max_vls, 4);
	assert_int_equal(ca.nhigh, 1);
	assert_int_equal(ca.high[0].vl, 0);
	assert_int_equal(ca.high[0].weight, 4);
	assert_int_equal(swe.nhigh, 0);
	assert_int_equal(ca.nlow, 15);
	assert_int_equal(ca.low[0].weight, 0);
	assert_int_equal(ca.low[14].vl, 14);
	assert_int_equal(ca.sl2vl[15], 7);
	assert_memory_equal(ca.sl2vl, swe.sl2vl, 16);
	assert_string_equal(qos_class_name(QOS_SW0), "sw0");
	conf_errors_free(&e);
	conf_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vlarb_lists),
		cmocka_unit_test(test_vlarb_cap),
		cmocka_unit_test(test_sl2vl_maps),
		cmocka_unit_test(test_class_form),
		cmocka_unit_test(test_conf_errors),
		cmocka_unit_test(test_params_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
