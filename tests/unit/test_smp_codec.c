/*
 * DOC: byte-exact tests of the SMP and attribute codecs.
 *
 * The expected byte arrays were written by hand from the IBA 1.3 vol 1
 * layouts (13.4.2, 14.2.1, 14.2.5, 13.4.8.2) and, for the P_Key, SL2VL,
 * VLArbitration and multicast tables (14.2.5.7-9, 14.2.5.12) as OpenSM's
 * ib_types.h and ibsim's sim_mad.c decode them, with every
 * sub-byte field set to a distinct value, so a shift or mask mistake in
 * either direction shows up as a wrong byte. Each decoder is also fed one byte too few.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mad/smp.h"

static const uint8_t node_info_bytes[40] = {
	0x01, 0x01, 0x02, 0x24,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
	0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
	0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38,
	0x39, 0x3a, 0x3b, 0x3c,
};

static void test_node_info(void **state)
{
	struct smp_node_info ni, back;
	uint8_t buf[64];

	/* Padding too, so whole structs compare equal. */
	memset(&ni, 0, sizeof(ni));
	memset(&back, 0, sizeof(back));
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(smp_node_info_decode(node_info_bytes, 40, &ni), 0);
	assert_int_equal(ni.base_version, 1);
	assert_int_equal(ni.class_version, 1);
	assert_int_equal(ni.node_type, 2);
	assert_int_equal(ni.num_ports, 36);
	assert_true(ni.sys_image_guid == 0x0102030405060708ull);
	assert_true(ni.node_guid == 0x1112131415161718ull);
	assert_true(ni.port_guid == 0x2122232425262728ull);
	assert_int_equal(ni.partition_cap, 0x3132);
	assert_int_equal(ni.device_id, 0x3334);
	assert_int_equal(ni.revision, 0x35363738);
	assert_int_equal(ni.local_port, 0x39);
	assert_int_equal(ni.vendor_id, 0x3a3b3c);
	assert_int_equal(smp_node_info_encode(&ni, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, node_info_bytes, 40);
	assert_int_equal(buf[40], 0xee);   /* writes exactly the attribute */
	assert_int_equal(smp_node_info_decode(buf, 40, &back), 0);
	assert_memory_equal(&back, &ni, sizeof(ni));
	assert_int_equal(smp_node_info_decode(node_info_bytes, 39, &ni), -EINVAL);
	assert_int_equal(smp_node_info_encode(&ni, buf, 39), -EINVAL);
}

static void test_node_desc(void **state)
{
	struct smp_node_desc nd;
	uint8_t buf[64], full[64];

	memset(&nd, 0, sizeof(nd));
	strcpy(nd.desc, "Switch1 spine");
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(smp_node_desc_encode(&nd, buf, 64), 0);
	assert_memory_equal(buf, "Switch1 spine", 13);
	for (int i = 13; i < 64; i++)
		assert_int_equal(buf[i], 0);
	/* 64 bytes without a NUL still decode to a terminated string. */
	memset(full, 'x', sizeof(full));
	assert_int_equal(smp_node_desc_decode(full, 64, &nd), 0);
	assert_int_equal(strlen(nd.desc), 64);
	assert_int_equal(smp_node_desc_decode(full, 63, &nd), -EINVAL);
	assert_int_equal(smp_node_desc_encode(&nd, buf, 63), -EINVAL);
}

static const uint8_t switch_info_bytes[20] = {
	0xc0, 0x00, 0x01, 0x02, 0x02, 0x00, 0x00, 0xff,
	0x01, 0x02, 0x03, 0x9e,  /* life 0x13 << 3 | psc 1 << 2 | opt 2 */
	0x03, 0x04, 0x00, 0x20,
	0xa8, 0x00,              /* inb 1, outb 0, frin 1, frout 0, enh 1 */
	0xc1, 0x23,
};

static void test_switch_info(void **state)
{
	struct smp_switch_info si;
	uint8_t buf[64];

	assert_int_equal(smp_switch_info_decode(switch_info_bytes, 20, &si), 0);
	assert_int_equal(si.lin_cap, 0xc000);
	assert_int_equal(si.rand_cap, 0x0102);
	assert_int_equal(si.mcast_cap, 0x0200);
	assert_int_equal(si.lin_top, 0x00ff);
	assert_int_equal(si.def_port, 1);
	assert_int_equal(si.def_mcast_pri_port, 2);
	assert_int_equal(si.def_mcast_not_pri_port, 3);
	assert_int_equal(si.life_time_value, 0x13);
	assert_int_equal(si.port_state_change, 1);
	assert_int_equal(si.opt_sl2vl, 2);
	assert_int_equal(si.lids_per_port, 0x0304);
	assert_int_equal(si.partition_enf_cap, 0x0020);
	assert_int_equal(si.inbound_enf_cap, 1);
	assert_int_equal(si.outbound_enf_cap, 0);
	assert_int_equal(si.filter_raw_inbound_cap, 1);
	assert_int_equal(si.filter_raw_outbound_cap, 0);
	assert_int_equal(si.enhanced_port0, 1);
	assert_int_equal(si.mcast_top, 0xc123);
	assert_int_equal(smp_switch_info_encode(&si, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, switch_info_bytes, 20);
	/* The other half of the flags. */
	si.inbound_enf_cap = 0;
	si.outbound_enf_cap = 1;
	si.filter_raw_inbound_cap = 0;
	si.filter_raw_outbound_cap = 1;
	si.enhanced_port0 = 0;
	si.port_state_change = 0;
	si.opt_sl2vl = 1;
	assert_int_equal(smp_switch_info_encode(&si, buf, sizeof(buf)), 0);
	assert_int_equal(buf[16], 0x50);
	assert_int_equal(buf[11], 0x99);
	assert_int_equal(smp_switch_info_decode(switch_info_bytes, 19, &si), -EINVAL);
	assert_int_equal(smp_switch_info_encode(&si, buf, 19), -EINVAL);
}

static const uint8_t port_info_bytes[64] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,   /* M_Key */
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,   /* GidPrefix */
	0x12, 0x34, 0x56, 0x78,                           /* LID, MasterSMLID */
	0x02, 0x51, 0x08, 0x4a,                           /* CapabilityMask */
	0x0a, 0x0b, 0x0c, 0x0d,                           /* DiagCode, LeasePeriod */
	0x07, 0x03, 0x07, 0x02,                           /* port, widths */
	0x74,   /* LinkSpeedSupported 7, PortState 4 */
	0x52,   /* PhysState 5, LinkDownDefault 2 */
	0x85,   /* MKeyProtect 2, LMC 5 */
	0x26,   /* LinkSpeedActive 2, Enabled 6 */
	0x4b,   /* NeighborMTU 4, MasterSMSL 11 */
	0x3c,   /* VLCap 3, InitType 12 */
	0x10, 0x20, 0x30,                                 /* VLHighLimit, arb caps */
	0x95,   /* InitTypeReply 9, MTUCap 5 */
	0xd3,   /* VLStallCount 6, HOQLife 0x13 */
	0x3a,   /* OperVLs 3, PEInb 1, PEOutb 0, FRInb 1, FROutb 0 */
	0x41, 0x42, 0x43, 0x44, 0x45, 0x46,               /* violations */
	0x20,   /* GUIDCap */
	0x92,   /* ClientRereg 1, TrapSuppr 0, SubnetTimeOut 0x12 */
	0x11,   /* RespTimeValue 0x11 */
	0xa3,   /* LocalPhyErrors 10, OverrunErrors 3 */
	0x51, 0x52,                                       /* MaxCreditHint */
	0x00, 0x61, 0x62, 0x63,                           /* rsv, RoundTripLatency */
	0x71, 0x72,                                       /* CapabilityMask2 */
	0x13,   /* LinkSpeedExtActive 1, Supported 3 */
	0x1e,   /* LinkSpeedExtEnabled 0x1e */
};

static void check_port_info_fields(const struct smp_port_info *pi)
{
	assert_true(pi->mkey == 0x0102030405060708ull);
	assert_true(pi->gid_prefix == 0xfe80000000000001ull);
	assert_int_equal(pi->lid, 0x1234);
	assert_int_equal(pi->master_sm_lid, 0x5678);
	assert_int_equal(pi->cap_mask, 0x0251084a);
	assert_int_equal(pi->diag_code, 0x0a0b);
	assert_int_equal(pi->mkey_lease_period, 0x0c0d);
	assert_int_equal(pi->local_port, 7);
	assert_int_equal(pi->link_width_enabled, 3);
	assert_int_equal(pi->link_width_supported, 7);
	assert_int_equal(pi->link_width_active, 2);
	assert_int_equal(pi->link_speed_supported, 7);
	assert_int_equal(pi->port_state, 4);
	assert_int_equal(pi->phys_state, 5);
	assert_int_equal(pi->link_down_def_state, 2);
	assert_int_equal(pi->mkey_protect, 2);
	assert_int_equal(pi->lmc, 5);
	assert_int_equal(pi->link_speed_active, 2);
	assert_int_equal(pi->link_speed_enabled, 6);
	assert_int_equal(pi->neighbor_mtu, 4);
	assert_int_equal(pi->master_sm_sl, 11);
	assert_int_equal(pi->vl_cap, 3);
	assert_int_equal(pi->init_type, 12);
	assert_int_equal(pi->vl_high_limit, 0x10);
	assert_int_equal(pi->vl_arb_high_cap, 0x20);
	assert_int_equal(pi->vl_arb_low_cap, 0x30);
	assert_int_equal(pi->init_type_reply, 9);
	assert_int_equal(pi->mtu_cap, 5);
	assert_int_equal(pi->vl_stall_count, 6);
	assert_int_equal(pi->hoq_life, 0x13);
	assert_int_equal(pi->oper_vls, 3);
	assert_int_equal(pi->part_enf_inbound, 1);
	assert_int_equal(pi->part_enf_outbound, 0);
	assert_int_equal(pi->filter_raw_inbound, 1);
	assert_int_equal(pi->filter_raw_outbound, 0);
	assert_int_equal(pi->mkey_violations, 0x4142);
	assert_int_equal(pi->pkey_violations, 0x4344);
	assert_int_equal(pi->qkey_violations, 0x4546);
	assert_int_equal(pi->guid_cap, 0x20);
	assert_int_equal(pi->client_reregister, 1);
	assert_int_equal(pi->mcast_pkey_trap_suppr, 0);
	assert_int_equal(pi->subnet_timeout, 0x12);
	assert_int_equal(pi->resp_time_value, 0x11);
	assert_int_equal(pi->local_phy_errors, 10);
	assert_int_equal(pi->overrun_errors, 3);
	assert_int_equal(pi->max_credit_hint, 0x5152);
	assert_int_equal(pi->link_round_trip_latency, 0x616263);
	assert_int_equal(pi->cap_mask2, 0x7172);
	assert_int_equal(pi->link_speed_ext_active, 1);
	assert_int_equal(pi->link_speed_ext_supported, 3);
	assert_int_equal(pi->link_speed_ext_enabled, 0x1e);
}

static void test_port_info(void **state)
{
	struct smp_port_info pi;
	uint8_t buf[64];

	assert_int_equal(smp_port_info_decode(port_info_bytes, 64, &pi), 0);
	check_port_info_fields(&pi);
	assert_int_equal(smp_port_info_encode(&pi, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, port_info_bytes, 64);
	assert_int_equal(smp_port_info_decode(port_info_bytes, 63, &pi), -EINVAL);
	assert_int_equal(smp_port_info_encode(&pi, buf, 63), -EINVAL);
}

/* The single-bit fields that test_port_info leaves at 0. */
static void test_port_info_other_bits(void **state)
{
	struct smp_port_info pi, back;
	uint8_t buf[64];

	memset(&pi, 0, sizeof(pi));
	pi.mkey_protect = 1;
	pi.lmc = 2;
	pi.oper_vls = 0xf;
	pi.part_enf_outbound = 1;
	pi.filter_raw_outbound = 1;
	pi.mcast_pkey_trap_suppr = 1;
	pi.subnet_timeout = 3;
	pi.vl_stall_count = 1;
	pi.hoq_life = 0x1f;
	assert_int_equal(smp_port_info_encode(&pi, buf, sizeof(buf)), 0);
	assert_int_equal(buf[34], 0x42);
	assert_int_equal(buf[43], 0xf5);
	assert_int_equal(buf[51], 0x43);
	assert_int_equal(buf[42], 0x3f);
	/* Out-of-range values are masked to the field width. */
	pi.lmc = 0xff;
	pi.resp_time_value = 0xff;
	assert_int_equal(smp_port_info_encode(&pi, buf, sizeof(buf)), 0);
	assert_int_equal(buf[34], 0x47);
	assert_int_equal(buf[52], 0x1f);
	/* Reserved bits on the wire are ignored by the decoder. */
	buf[34] |= 0x38;
	buf[56] = 0xff;
	assert_int_equal(smp_port_info_decode(buf, 64, &back), 0);
	assert_int_equal(back.lmc, 7);
	assert_int_equal(back.mkey_protect, 1);
}

static void test_sm_info(void **state)
{
	static const uint8_t bytes[21] = {
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x34,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0xde, 0xad, 0xbe, 0xef,
		0xd3,   /* Priority 13, SMState 3 (master) */
	};
	struct smp_sm_info si;
	uint8_t buf[64];

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(smp_sm_info_decode(bytes, 21, &si), 0);
	assert_true(si.guid == 0x0002c90300001234ull);
	assert_true(si.sm_key == 0x1122334455667788ull);
	assert_int_equal(si.act_count, 0xdeadbeef);
	assert_int_equal(si.priority, 13);
	assert_int_equal(si.sm_state, 3);
	assert_int_equal(smp_sm_info_encode(&si, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, bytes, 21);
	assert_int_equal(buf[21], 0xee);
	assert_int_equal(smp_sm_info_decode(bytes, 20, &si), -EINVAL);
	assert_int_equal(smp_sm_info_encode(&si, buf, 20), -EINVAL);
}

static void test_lft_block(void **state)
{
	struct smp_lft_block b, back;
	uint8_t buf[64];

	for (int i = 0; i < 64; i++)
		b.port[i] = (uint8_t)(i ^ 0x55);
	assert_int_equal(smp_lft_block_encode(&b, buf, sizeof(buf)), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(buf[i], i ^ 0x55);
	assert_int_equal(smp_lft_block_decode(buf, 64, &back), 0);
	assert_memory_equal(back.port, b.port, 64);
	assert_int_equal(smp_lft_block_decode(buf, 63, &back), -EINVAL);
	assert_int_equal(smp_lft_block_encode(&b, buf, 63), -EINVAL);
}

/* P_Keys are big-endian 16-bit words; bit 15 survives both ways. */
static void test_pkey_block(void **state)
{
	struct smp_pkey_block b, back;
	uint8_t buf[64];

	for (int i = 0; i < 32; i++)
		b.pkey[i] = (uint16_t)(0x8001 + 0x0102 * i);
	assert_int_equal(smp_pkey_block_encode(&b, buf, sizeof(buf)), 0);
	assert_int_equal(buf[0], 0x80);
	assert_int_equal(buf[1], 0x01);
	assert_int_equal(buf[62], 0x9f);
	assert_int_equal(buf[63], 0x3f);
	assert_int_equal(smp_pkey_block_decode(buf, 64, &back), 0);
	assert_memory_equal(back.pkey, b.pkey, sizeof(b.pkey));
	assert_int_equal(smp_pkey_block_decode(buf, 63, &back), -EINVAL);
	assert_int_equal(smp_pkey_block_encode(&b, buf, 63), -EINVAL);
	assert_int_equal(smp_pkey_mod(7, 1), 0x00070001);
}

/* SL0 is the high nibble of byte 0, SL15 the low nibble of byte 7. */
static void test_sl2vl(void **state)
{
	static const uint8_t bytes[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe7 };
	struct smp_sl2vl t;
	uint8_t buf[8];

	assert_int_equal(smp_sl2vl_decode(bytes, 8, &t), 0);
	for (int sl = 0; sl < 15; sl++)
		assert_int_equal(t.vl[sl], sl);
	assert_int_equal(t.vl[15], 7);
	assert_int_equal(smp_sl2vl_encode(&t, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, bytes, 8);
	assert_int_equal(smp_sl2vl_decode(bytes, 7, &t), -EINVAL);
	assert_int_equal(smp_sl2vl_encode(&t, buf, 7), -EINVAL);
	assert_int_equal(smp_sl2vl_mod(3, 17), 0x0311);
}

/* VL in the low nibble of the first byte (the high one is reserved and
 * dropped), Weight in the second. */
static void test_vlarb_block(void **state)
{
	struct smp_vlarb_block b;
	uint8_t bytes[64], buf[64];

	for (int i = 0; i < 32; i++) {
		bytes[2 * i] = (uint8_t)(0xa0 | (i & 0xf));
		bytes[2 * i + 1] = (uint8_t)(200 + i);
	}
	assert_int_equal(smp_vlarb_block_decode(bytes, 64, &b), 0);
	assert_int_equal(b.e[5].vl, 5);
	assert_int_equal(b.e[17].vl, 1);
	assert_int_equal(b.e[31].weight, 231);
	assert_int_equal(smp_vlarb_block_encode(&b, buf, sizeof(buf)), 0);
	for (int i = 0; i < 32; i++) {
		assert_int_equal(buf[2 * i], i & 0xf);
		assert_int_equal(buf[2 * i + 1], 200 + i);
	}
	assert_int_equal(smp_vlarb_block_decode(bytes, 63, &b), -EINVAL);
	assert_int_equal(smp_vlarb_block_encode(&b, buf, 63), -EINVAL);
	assert_int_equal(smp_vlarb_mod(SMP_VLARB_HIGH_1, 9), 0x00030009);
}

/* Word i is MLID 0xC000 + 32 * block + i; the modifier puts the position
 * in bits 31..28 and the block in bits 8..0 (IBA 14.2.5.12). */
static void test_mft_block(void **state)
{
	struct smp_mft_block b, back;
	uint8_t buf[64];

	for (int i = 0; i < 32; i++)
		b.mask[i] = (uint16_t)(1u << (i % 16) | 0x0100 * (i & 1));
	assert_int_equal(smp_mft_block_encode(&b, buf, sizeof(buf)), 0);
	assert_int_equal(buf[0], 0x00);
	assert_int_equal(buf[1], 0x01);
	assert_int_equal(buf[2], 0x01);
	assert_int_equal(buf[3], 0x02);
	assert_int_equal(smp_mft_block_decode(buf, 64, &back), 0);
	assert_memory_equal(back.mask, b.mask, sizeof(b.mask));
	assert_int_equal(smp_mft_block_decode(buf, 63, &back), -EINVAL);
	assert_int_equal(smp_mft_block_encode(&b, buf, 63), -EINVAL);
	assert_int_equal(smp_mft_mod(511, 15), 0xF00001FFu);
	assert_int_equal(smp_mft_mod(2, 1), 0x10000002u);
}

static void make_notice_bytes(uint8_t bytes[80])
{
	static const uint8_t head[10] = {
		0x82,               /* IsGeneric 1, Type 2 (urgent) */
		0x00, 0x00, 0x02,   /* ProducerType: switch */
		0x00, 0x80,         /* TrapNumber 128 */
		0x00, 0x11,         /* IssuerLID */
		0x92, 0x34,         /* Toggle 1, Count 0x1234 */
	};

	memcpy(bytes, head, sizeof(head));
	for (int i = 0; i < 54; i++)
		bytes[10 + i] = (uint8_t)(0xa0 + i);
	bytes[64] = 0xfe;
	bytes[65] = 0x80;
	memset(bytes + 66, 0, 13);
	bytes[79] = 0x42;
}

static void test_notice(void **state)
{
	uint8_t bytes[80], buf[80];
	struct smp_notice n;

	make_notice_bytes(bytes);
	assert_int_equal(smp_notice_decode(bytes, 80, &n), 0);
	assert_int_equal(n.is_generic, 1);
	assert_int_equal(n.type, 2);
	assert_int_equal(n.producer_type, 2);
	assert_int_equal(n.trap_num, 128);
	assert_int_equal(n.issuer_lid, 0x11);
	assert_int_equal(n.toggle, 1);
	assert_int_equal(n.count, 0x1234);
	assert_int_equal(n.data_details[0], 0xa0);
	assert_int_equal(n.data_details[53], 0xa0 + 53);
	assert_int_equal(n.issuer_gid[0], 0xfe);
	assert_int_equal(n.issuer_gid[15], 0x42);
	assert_int_equal(smp_notice_encode(&n, buf, 80), 0);
	assert_memory_equal(buf, bytes, 80);
	/* From an SMP data area: 64 bytes, no IssuerGID. */
	assert_int_equal(smp_notice_decode(bytes, 64, &n), 0);
	assert_int_equal(n.trap_num, 128);
	for (int i = 0; i < 16; i++)
		assert_int_equal(n.issuer_gid[i], 0);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(smp_notice_encode(&n, buf, 64), 0);
	assert_memory_equal(buf, bytes, 64);
	assert_int_equal(buf[64], 0xee);
	assert_int_equal(smp_notice_decode(bytes, 63, &n), -EINVAL);
	assert_int_equal(smp_notice_encode(&n, buf, 63), -EINVAL);
}

/* A GetResp(NodeInfo) coming back over a 2-hop directed route. */
static void make_dr_bytes(uint8_t b[256])
{
	static const uint8_t head[36] = {
		0x01, 0x81, 0x01, 0x81,   /* base, class DR, version, GetResp */
		0x80, 0x1c,               /* D bit, status 0x001c */
		0x03, 0x02,               /* hop pointer 3, hop count 2 */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x11, 0x00, 0x00,   /* NodeInfo, reserved */
		0x0a, 0x0b, 0x0c, 0x0d,   /* attr_mod */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0xff, 0xff, 0xff, 0xfe,   /* DrSLID, DrDLID */
	};

	memset(b, 0, 256);
	memcpy(b, head, sizeof(head));
	for (int i = 0; i < 64; i++)
		b[64 + i] = (uint8_t)i;
	b[129] = 1;
	b[130] = 2;
	b[193] = 3;
	b[194] = 4;
}

static void test_dr_smp(void **state)
{
	uint8_t bytes[256], buf[256];
	struct smp s;

	make_dr_bytes(bytes);
	assert_int_equal(smp_decode(bytes, 256, &s), 0);
	assert_int_equal(s.hdr.base_version, 1);
	assert_int_equal(s.hdr.mgmt_class, MAD_CLASS_SMI_DR);
	assert_int_equal(s.hdr.method, MAD_METHOD_GET_RESP);
	assert_int_equal(s.hdr.d_bit, 1);
	assert_int_equal(s.hdr.status, 0x001c);
	assert_int_equal(s.hdr.hop_ptr, 3);
	assert_int_equal(s.hdr.hop_cnt, 2);
	assert_true(s.hdr.tid == 0x0102030405060708ull);
	assert_int_equal(s.hdr.attr_id, SMP_ATTR_NODE_INFO);
	assert_int_equal(s.hdr.attr_mod, 0x0a0b0c0d);
	assert_true(s.mkey == 0x1122334455667788ull);
	assert_int_equal(s.dr_slid, 0xffff);
	assert_int_equal(s.dr_dlid, 0xfffe);
	assert_int_equal(s.data[63], 63);
	assert_int_equal(s.initial_path[1], 1);
	assert_int_equal(s.initial_path[2], 2);
	assert_int_equal(s.return_path[1], 3);
	assert_int_equal(s.return_path[2], 4);
	assert_int_equal(smp_encode(&s, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, bytes, 256);
	assert_int_equal(smp_decode(bytes, 255, &s), -EINVAL);
	assert_int_equal(smp_encode(&s, buf, 255), -EINVAL);
}

static void test_lid_smp(void **state)
{
	uint8_t bytes[256], buf[256];
	struct smp s;

	memset(bytes, 0, sizeof(bytes));
	bytes[0] = 1;
	bytes[1] = MAD_CLASS_SMI;
	bytes[2] = 1;
	bytes[3] = MAD_METHOD_SET;
	bytes[4] = 0x80;            /* no D bit in class 0x01: plain status */
	bytes[5] = 0x01;
	bytes[15] = 0x2a;
	bytes[17] = 0x19;           /* LinearForwardingTable */
	bytes[23] = 0x03;           /* block 3 */
	bytes[31] = 0x99;
	for (int i = 0; i < 64; i++)
		bytes[64 + i] = (uint8_t)(i + 1);
	assert_int_equal(smp_decode(bytes, 256, &s), 0);
	assert_int_equal(s.hdr.mgmt_class, MAD_CLASS_SMI);
	assert_int_equal(s.hdr.method, MAD_METHOD_SET);
	assert_int_equal(s.hdr.status, 0x8001);
	assert_int_equal(s.hdr.d_bit, 0);
	assert_int_equal(s.hdr.hop_cnt, 0);
	assert_true(s.hdr.tid == 0x2a);
	assert_int_equal(s.hdr.attr_id, SMP_ATTR_LFT);
	assert_int_equal(s.hdr.attr_mod, 3);
	assert_true(s.mkey == 0x99);
	assert_int_equal(s.data[0], 1);
	assert_int_equal(s.data[63], 64);
	/* DR-only fields are not taken from a LID-routed SMP's reserved area. */
	bytes[129] = 7;
	assert_int_equal(smp_decode(bytes, 256, &s), 0);
	assert_int_equal(s.initial_path[1], 0);
	bytes[129] = 0;
	assert_int_equal(smp_encode(&s, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, bytes, 256);
}

static void test_smp_rejects(void **state)
{
	uint8_t bytes[256];
	struct smp s;

	make_dr_bytes(bytes);
	bytes[0] = 2;
	assert_int_equal(smp_decode(bytes, 256, &s), -EINVAL);
	assert_int_equal(smp_decode(NULL, 256, &s), -EINVAL);
	bytes[0] = 1;
	assert_int_equal(smp_decode(bytes, 24, &s), -EINVAL);
	assert_int_equal(smp_decode(bytes, 0, &s), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_info),
		cmocka_unit_test(test_node_desc),
		cmocka_unit_test(test_switch_info),
		cmocka_unit_test(test_port_info),
		cmocka_unit_test(test_port_info_other_bits),
		cmocka_unit_test(test_sm_info),
		cmocka_unit_test(test_lft_block),
		cmocka_unit_test(test_pkey_block),
		cmocka_unit_test(test_sl2vl),
		cmocka_unit_test(test_vlarb_block),
		cmocka_unit_test(test_mft_block),
		cmocka_unit_test(test_notice),
		cmocka_unit_test(test_dr_smp),
		cmocka_unit_test(test_lid_smp),
		cmocka_unit_test(test_smp_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
