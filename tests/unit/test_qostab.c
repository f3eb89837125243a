/*
 * DOC: unit tests of fabric/qostab.c: the SL2VL fold into a port's data VLs
 * (max_vls and OperVLs), VL15 kept only where configured, VLArbitration
 * blocks cut to the port's table sizes with weight 0 for VLs it does not
 * operate, no arbitration on a one-VL port, and the SL the SA gets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "fabric/qostab.h"

static void defaults(struct qos_params *p)
{
	struct sm_conf c;

	conf_defaults(&c);
	qos_params_for(&c, QOS_CA, p);
	conf_free(&c);
}

static void test_vls_of_code(void **state)
{
	assert_int_equal(qos_vls_of_code(1), 1);
	assert_int_equal(qos_vls_of_code(3), 4);
	assert_int_equal(qos_vls_of_code(5), 15);
	assert_int_equal(qos_vls_of_code(0), 0);
	assert_int_equal(qos_vls_of_code(6), 0);
}

/* OpenSM's default map 0..14,7 on a VL0-7 port: SL 8..14 fold into 0..6. */
static void test_sl2vl_fold(void **state)
{
	struct qos_port_tables t;
	struct qos_params p;

	defaults(&p);
	qos_port_tables(&p, 4, 8, 8, &t);
	assert_int_equal(t.data_vls, 8);
	for (int sl = 0; sl < 8; sl++)
		assert_int_equal(t.sl2vl.vl[sl], sl);
	for (int sl = 8; sl < 15; sl++)
		assert_int_equal(t.sl2vl.vl[sl], sl - 8);
	assert_int_equal(t.sl2vl.vl[15], 7);
	p.max_vls = 3;
	p.sl2vl[4] = 15;
	qos_port_tables(&p, 5, 8, 8, &t);
	assert_int_equal(t.data_vls, 3);
	assert_int_equal(t.sl2vl.vl[2], 2);
	assert_int_equal(t.sl2vl.vl[3], 0);
	assert_int_equal(t.sl2vl.vl[4], 15);      /* configured drop stays */
	assert_int_equal(t.sl2vl.vl[5], 2);
	for (int sl = 0; sl < 16; sl++)
		assert_true(t.sl2vl.vl[sl] < 3 || sl == 4);
}

static void test_vlarb_blocks(void **state)
{
	struct qos_port_tables t;
	struct qos_params p;

	defaults(&p);
	qos_port_tables(&p, 3, 8, 8, &t);       /* VL0-3 */
	assert_true(t.vlarb);
	assert_int_equal(t.nblocks, 2);
	assert_int_equal(t.block_id[0], SMP_VLARB_LOW_1);
	assert_int_equal(t.block_id[1], SMP_VLARB_HIGH_1);
	assert_int_equal(t.blocks[0].e[1].vl, 1);
	assert_int_equal(t.blocks[0].e[1].weight, 4);
	assert_int_equal(t.blocks[0].e[3].weight, 4);
	assert_int_equal(t.blocks[0].e[4].vl, 4);
	assert_int_equal(t.blocks[0].e[4].weight, 0);   /* VL4 not operated */
	assert_int_equal(t.blocks[0].e[8].vl, 0);       /* beyond the cap */
	assert_int_equal(t.blocks[0].e[8].weight, 0);
	assert_int_equal(t.blocks[1].e[0].weight, 4);
	assert_int_equal(t.blocks[1].e[1].weight, 0);
	/* a 40-entry low table takes two blocks; no high table */
	qos_port_tables(&p, 5, 40, 0, &t);
	assert_int_equal(t.nblocks, 2);
	assert_int_equal(t.block_id[1], SMP_VLARB_LOW_2);
	qos_port_tables(&p, 1, 8, 8, &t);
	assert_false(t.vlarb);
	assert_int_equal(t.nblocks, 0);
	for (int sl = 0; sl < 15; sl++)
		assert_int_equal(t.sl2vl.vl[sl], 0);
}

static void test_path_sl(void **state)
{
	struct qos_params cls[QOS_NCLASSES];

	for (int k = 0; k < QOS_NCLASSES; k++)
		defaults(&cls[k]);
	assert_int_equal(qos_path_sl(false, 5, cls), 0);
	assert_int_equal(qos_path_sl(true, 5, cls), 5);
	cls[QOS_SWE].sl2vl[5] = 15;
	cls[QOS_CA].sl2vl[0] = 15;
	assert_int_equal(qos_path_sl(true, 5, cls), 1);
	for (int sl = 0; sl < 16; sl++)
		cls[QOS_SW0].sl2vl[sl] = 15;
	assert_int_equal(qos_path_sl(true, 0, cls), -1);
	assert_int_equal(qos_path_sl(false, 0, cls), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vls_of_code),
		cmocka_unit_test(test_sl2vl_fold),
		cmocka_unit_test(test_vlarb_blocks),
		cmocka_unit_test(test_path_sl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
