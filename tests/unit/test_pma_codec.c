/*
 * DOC: tests of the PerfMgt codecs and the PMA reply parser.
 *
 * Layouts are checked against byte images written by hand from the bit
 * offsets of rdma-core's libibmad field table (fields.c: PortCounters,
 * PortCountersExtended and its additional error counters, and perfquery's
 * reading of ClassPortInfo bytes 2..7), not from our own structs; round
 * trips, short inputs and foreign MADs cover the rest.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mad/pma.h"

/* PortCounters of port 7, every field distinct. */
static const uint8_t pc_bytes[44] = {
	0x00, 0x07, 0xf0, 0x0f,             /* reserved, PortSelect 7, CounterSelect */
	0x12, 0x34, 0x56, 0x78,             /* SymbolError 0x1234, LinkErrorRecovery, LinkDowned */
	0x9a, 0xbc, 0xde, 0xf0,             /* PortRcvErrors, PortRcvRemotePhysicalErrors */
	0x11, 0x22, 0x33, 0x44,             /* PortRcvSwitchRelayErrors, PortXmitDiscards */
	0x55, 0x66, 0x01, 0xa5,             /* XmitConstraint, RcvConstraint, CounterSelect2, LLI 0xa EBO 5 */
	0x77, 0x88, 0x99, 0xaa,             /* QP1Dropped, VL15Dropped */
	0x01, 0x02, 0x03, 0x04,             /* PortXmitData */
	0x05, 0x06, 0x07, 0x08,             /* PortRcvData */
	0x09, 0x0a, 0x0b, 0x0c,             /* PortXmitPkts */
	0x0d, 0x0e, 0x0f, 0x10,             /* PortRcvPkts */
	0xff, 0xff, 0xff, 0xfe,             /* PortXmitWait */
};

static void check_pc(const struct pma_port_counters *c)
{
	assert_int_equal(c->port_select, 7);
	assert_int_equal(c->counter_select, 0xf00f);
	assert_int_equal(c->symbol_err, 0x1234);
	assert_int_equal(c->link_err_recover, 0x56);
	assert_int_equal(c->link_downed, 0x78);
	assert_int_equal(c->rcv_err, 0x9abc);
	assert_int_equal(c->rcv_remote_phys, 0xdef0);
	assert_int_equal(c->rcv_switch_relay, 0x1122);
	assert_int_equal(c->xmit_discards, 0x3344);
	assert_int_equal(c->xmit_constraint, 0x55);
	assert_int_equal(c->rcv_constraint, 0x66);
	assert_int_equal(c->counter_select2, 1);
	assert_int_equal(c->local_link_integrity, 0xa);
	assert_int_equal(c->excessive_buf_overrun, 5);
	assert_int_equal(c->qp1_dropped, 0x7788);
	assert_int_equal(c->vl15_dropped, 0x99aa);
	assert_int_equal(c->xmit_data, 0x01020304);
	assert_int_equal(c->rcv_data, 0x05060708);
	assert_int_equal(c->xmit_pkts, 0x090a0b0c);
	assert_int_equal(c->rcv_pkts, 0x0d0e0f10);
	assert_int_equal(c->xmit_wait, 0xfffffffeu);
}

static void test_port_counters(void **state)
{
	struct pma_port_counters c;
	uint8_t out[64];

	assert_int_equal(pma_port_counters_decode(pc_bytes, sizeof(pc_bytes), &c), 0);
	check_pc(&c);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(pma_port_counters_encode(&c, out, 44), 0);
	assert_memory_equal(out, pc_bytes, 44);
	assert_int_equal(out[44], 0xee);     /* exactly the attribute, no more */
	assert_int_equal(pma_port_counters_decode(pc_bytes, 43, &c), -EINVAL);
	assert_int_equal(pma_port_counters_encode(&c, out, 43), -EINVAL);
	assert_int_equal(pma_port_counters_decode(NULL, 44, &c), -EINVAL);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* PortCountersExtended of port 3: counter k (k = 0 for PortXmitData) at
 * byte 8 + 8k holds 0x0100000000000000 * (k + 1) + k. */
static void pce_image(uint8_t *b, size_t n)
{
	memset(b, 0, n);
	b[1] = 3;
	b[2] = 0x00;
	b[3] = 0xff;
	b[4] = 0x00;
	b[5] = 0x00;
	b[6] = 0x3f;
	b[7] = 0xff;
	for (unsigned k = 0; 8 + 8 * k + 8 <= n && k < 22; k++)
		put64(b + 8 + 8 * k, 0x0100000000000000ull * (k + 1) + k);
}

static uint64_t val(unsigned k)
{
	return 0x0100000000000000ull * (k + 1) + k;
}

static void check_pce_base(const struct pma_port_counters_ext *c)
{
	assert_int_equal(c->port_select, 3);
	assert_int_equal(c->counter_select, 0x00ff);
	assert_true(c->xmit_data == val(0));
	assert_true(c->rcv_data == val(1));
	assert_true(c->xmit_pkts == val(2));
	assert_true(c->rcv_pkts == val(3));
	assert_true(c->ucast_xmit_pkts == val(4));
	assert_true(c->ucast_rcv_pkts == val(5));
	assert_true(c->mcast_xmit_pkts == val(6));
	assert_true(c->mcast_rcv_pkts == val(7));
}

static void check_pce_errors(const struct pma_port_counters_ext *c)
{
	assert_int_equal(c->counter_select2, 0x3fff);
	assert_true(c->symbol_err == val(8));
	assert_true(c->link_err_recover == val(9));
	assert_true(c->link_downed == val(10));
	assert_true(c->rcv_err == val(11));
	assert_true(c->rcv_remote_phys == val(12));
	assert_true(c->rcv_switch_relay == val(13));
	assert_true(c->xmit_discards == val(14));
	assert_true(c->xmit_constraint == val(15));
	assert_true(c->rcv_constraint == val(16));
	assert_true(c->local_link_integrity == val(17));
	assert_true(c->excessive_buf_overrun == val(18));
	assert_true(c->vl15_dropped == val(19));
	assert_true(c->xmit_wait == val(20));
	assert_true(c->qp1_dropped == val(21));
}

static void test_port_counters_ext(void **state)
{
	uint8_t img[184], out[192];
	struct pma_port_counters_ext c;

	pce_image(img, sizeof(img));
	assert_int_equal(pma_port_counters_ext_decode(img, 184, &c), 0);
	assert_int_equal(c.has_errors, 1);
	check_pce_base(&c);
	check_pce_errors(&c);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(pma_port_counters_ext_encode(&c, out, sizeof(out)), 0);
	assert_memory_equal(out, img, 184);
	assert_int_equal(out[184], 0xee);
}

static void test_port_counters_ext_base(void **state)
{
	uint8_t img[184], out[80];
	struct pma_port_counters_ext c;

	pce_image(img, 72);
	assert_int_equal(pma_port_counters_ext_decode(img, 72, &c), 0);
	assert_int_equal(c.has_errors, 0);
	check_pce_base(&c);
	assert_true(c.symbol_err == 0 && c.xmit_wait == 0 && c.counter_select2 == 0);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(pma_port_counters_ext_encode(&c, out, 72), 0);
	img[4] = img[5] = img[6] = img[7] = 0;   /* CounterSelect2 is not part of it */
	assert_memory_equal(out, img, 72);
	assert_int_equal(out[72], 0xee);
	assert_int_equal(pma_port_counters_ext_decode(img, 71, &c), -EINVAL);
	/* between the two sizes: the base counters only */
	assert_int_equal(pma_port_counters_ext_decode(img, 183, &c), 0);
	assert_int_equal(c.has_errors, 0);
}

/* ClassPortInfo as perfquery reads it: CapabilityMask at bytes 2..3,
 * CapabilityMask2 the top 27 bits of bytes 4..7. */
static void test_class_port_info(void **state)
{
	uint8_t b[72];
	struct pma_class_port_info c;

	memset(b, 0, sizeof(b));
	b[0] = 1;
	b[1] = 1;
	b[2] = 0x17;                        /* AllPortSelect, ExtWidth, NoIETF, XmitWait */
	b[3] = 0x00;
	b[4] = 0x00;
	b[5] = 0x00;
	b[6] = 0x00;
	b[7] = 0x52;                        /* CapabilityMask2 bit 1, RespTimeValue 18 */
	assert_int_equal(pma_class_port_info_decode(b, sizeof(b), &c), 0);
	assert_int_equal(c.cap_mask, PMA_CAP_ALL_PORT_SELECT | PMA_CAP_EXT_WIDTH |
					 PMA_CAP_EXT_WIDTH_NOIETF | PMA_CAP_XMIT_WAIT);
	assert_int_equal(c.cap_mask2, PMA_CAP2_ADDL_PORT_COUNTERS_EXT);
	assert_int_equal(c.resp_time_value, 18);
	assert_int_equal(pma_class_port_info_decode(b, 71, &c), -EINVAL);
}

static void test_req(void **state)
{
	struct pma_req q = { .method = MAD_METHOD_SET, .attr_id = PMA_ATTR_PORT_COUNTERS,
			     .port_select = PMA_PORT_SELECT_ALL, .counter_select = PMA_CS_ERRORS,
			     .counter_select2 = PMA_CS2_XMIT_WAIT, .tid = 0x0102030405060708ull };
	static const uint8_t want[24] = {
		0x01, 0x04, 0x01, 0x02, 0, 0, 0, 0,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x12, 0, 0, 0, 0, 0, 0,
	};
	uint8_t mad[MAD_SIZE];

	assert_int_equal(pma_req_encode(&q, mad, sizeof(mad)), 0);
	assert_memory_equal(mad, want, 24);
	for (int i = 24; i < 64; i++)
		assert_int_equal(mad[i], 0);
	assert_int_equal(mad[65], 0xff);     /* PortSelect */
	assert_int_equal(mad[66], 0x0f);     /* CounterSelect 0x0fff */
	assert_int_equal(mad[67], 0xff);
	assert_int_equal(mad[82], 0x01);     /* CounterSelect2 */
	for (int i = 68; i < 256; i++)
		if (i != 82)
			assert_int_equal(mad[i], 0);
	/* a Get carries no CounterSelect */
	q.method = MAD_METHOD_GET;
	q.attr_id = PMA_ATTR_PORT_COUNTERS_EXT;
	q.port_select = 9;
	assert_int_equal(pma_req_encode(&q, mad, sizeof(mad)), 0);
	assert_int_equal(mad[3], 0x01);
	assert_int_equal(mad[17], 0x1d);
	assert_int_equal(mad[65], 9);
	assert_int_equal(mad[66] | mad[67] | mad[82], 0);
	/* only what the PM sends */
	q.method = MAD_METHOD_SET;
	assert_int_equal(pma_req_encode(&q, mad, sizeof(mad)), -EINVAL);
	q.method = MAD_METHOD_GET;
	q.attr_id = 0x0010;
	assert_int_equal(pma_req_encode(&q, mad, sizeof(mad)), -EINVAL);
	q.attr_id = PMA_ATTR_CLASS_PORT_INFO;
	assert_int_equal(pma_req_encode(&q, mad, MAD_SIZE - 1), -EINVAL);
}

static void reply_image(uint8_t *mad, uint16_t attr, const uint8_t *data, size_t n)
{
	memset(mad, 0, MAD_SIZE);
	mad[0] = 1;
	mad[1] = 4;
	mad[2] = 1;
	mad[3] = 0x81;
	mad[15] = 0x42;                      /* TID 0x42 */
	mad[16] = (uint8_t)(attr >> 8);
	mad[17] = (uint8_t)attr;
	memcpy(mad + 64, data, n);
}

static void test_reply(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct pma_reply r;

	reply_image(mad, PMA_ATTR_PORT_COUNTERS, pc_bytes, sizeof(pc_bytes));
	assert_int_equal(pma_reply_decode(mad, MAD_SIZE, &r), 0);
	assert_true(r.tid == 0x42);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.attr_id, PMA_ATTR_PORT_COUNTERS);
	check_pc(&r.u.pc);
	/* too short for the attribute, or for a PMA MAD at all */
	assert_int_equal(pma_reply_decode(mad, 64 + 43, &r), -EINVAL);
	assert_int_equal(pma_reply_decode(mad, 63, &r), -EINVAL);
	/* foreign: another class, version, method or base version */
	mad[1] = 0x03;
	assert_int_equal(pma_reply_decode(mad, MAD_SIZE, &r), -EINVAL);
	mad[1] = 4;
	mad[2] = 2;
	assert_int_equal(pma_reply_decode(mad, MAD_SIZE, &r), -EINVAL);
	mad[2] = 1;
	mad[3] = 0x01;
	assert_int_equal(pma_reply_decode(mad, MAD_SIZE, &r), -EINVAL);
	mad[3] = 0x81;
	mad[0] = 2;
	assert_int_equal(pma_reply_decode(mad, MAD_SIZE, &r), -EINVAL);
	mad[0] = 1;
	/* an attribute we never ask for */
	mad[17] = 0x10;
	assert_int_equal(pma_reply_decode(mad, MAD_SIZE, &r), -EPROTO);
	/* an error status: header only */
	mad[17] = 0x12;
	mad[5] = 0x0c;
	assert_int_equal(pma_reply_decode(mad, 64, &r), 0);
	assert_int_equal(r.status, 0x0c);
}

static void test_resp_round_trip(void **state)
{
	struct pma_req q = { .method = MAD_METHOD_GET, .attr_id = PMA_ATTR_PORT_COUNTERS_EXT,
			     .port_select = 3, .tid = 77 };
	uint8_t img[184], mad[MAD_SIZE];
	struct pma_port_counters_ext c;
	struct pma_class_port_info cpi = { 1, 1, PMA_CAP_EXT_WIDTH, 0, 18 };
	struct pma_reply r;

	pce_image(img, sizeof(img));
	assert_int_equal(pma_port_counters_ext_decode(img, sizeof(img), &c), 0);
	assert_int_equal(pma_resp_encode(&q, 0, &c, mad, sizeof(mad)), 0);
	assert_int_equal(pma_reply_decode(mad, sizeof(mad), &r), 0);
	assert_true(r.tid == 77);
	check_pce_base(&r.u.pce);
	check_pce_errors(&r.u.pce);
	q.attr_id = PMA_ATTR_CLASS_PORT_INFO;
	assert_int_equal(pma_resp_encode(&q, 0, &cpi, mad, sizeof(mad)), 0);
	assert_int_equal(pma_reply_decode(mad, sizeof(mad), &r), 0);
	assert_int_equal(r.u.cpi.cap_mask, PMA_CAP_EXT_WIDTH);
	assert_int_equal(r.u.cpi.resp_time_value, 18);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_counters),
		cmocka_unit_test(test_port_counters_ext),
		cmocka_unit_test(test_port_counters_ext_base),
		cmocka_unit_test(test_class_port_info),
		cmocka_unit_test(test_req),
		cmocka_unit_test(test_reply),
		cmocka_unit_test(test_resp_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
