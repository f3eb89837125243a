/*
 * DOC: tests of the SA header and record codecs and the component tables.
 *
 * Layouts are checked against byte arrays written by hand from the
 * offsets of IBA 15.2.1 and 15.2.5 (as OpenSM's ib_types.h has them), not
 * from our own structs; round trips and short inputs cover the rest. The
 * component tables are checked three ways: hand-picked entries, tiling
 * (every table covers its record from byte 0 without gaps or overlaps), and
 * against the codecs (a component's bits survive decode + encode, reserved
 * ones do not, and together they are exactly what the codec carries).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibsm/sa_wire.h"
#include "mad/sa.h"
#include "mad/sa_fields.h"

static void fill_gid(uint8_t *g, uint8_t seed)
{
	for (int i = 0; i < 16; i++)
		g[i] = (uint8_t)(seed + i);
}

/* --- header --- */

static const uint8_t hdr_bytes[56] = {
	0x01, 0x03, 0x02, 0x12,                         /* base, class, version, GetTable */
	0x00, 0x00, 0x00, 0x00,                         /* status, class specific */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* TID */
	0x00, 0x35, 0x00, 0x00,                         /* PathRecord, reserved */
	0x80, 0x00, 0x00, 0x01,                         /* modifier */
	0x01, 0x01, 0xF9, 0x00,                         /* RMPP v1 DATA, RRespTime 31, Active */
	0x00, 0x00, 0x00, 0x02,                         /* SegmentNumber 2 */
	0x00, 0x00, 0x08, 0x9C,                         /* PayloadLength 2204 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* SM_Key 1 */
	0x00, 0x08, 0x00, 0x00,                         /* AttributeOffset 8, reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x30, /* ComponentMask */
};

static struct sa_hdr hdr_value(void)
{
	struct sa_hdr h;

	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = 2;
	h.hdr.method = SA_METHOD_GET_TABLE;
	h.hdr.tid = 0x1122334455667788ull;
	h.hdr.attr_id = SA_ATTR_PATH_REC;
	h.hdr.attr_mod = 0x80000001;
	h.rmpp.version = 1;
	h.rmpp.type = RMPP_TYPE_DATA;
	h.rmpp.resp_time = 0x1F;
	h.rmpp.flags = RMPP_FLAG_ACTIVE;
	h.rmpp.seg_num = 2;
	h.rmpp.paylen_newwin = 2204;
	h.sm_key = 1;
	h.attr_offset = 8;
	h.comp_mask = 0x1030;
	return h;
}

static void test_hdr_layout(void **state)
{
	struct sa_hdr h = hdr_value(), d;
	uint8_t buf[56];

	assert_int_equal(sa_hdr_encode(&h, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, hdr_bytes, 56);
	assert_int_equal(sa_hdr_decode(hdr_bytes, sizeof(hdr_bytes), &d), 0);
	assert_memory_equal(&d, &h, sizeof(h));
}

static void test_hdr_rejects(void **state)
{
	uint8_t buf[56];
	struct sa_hdr d;

	memcpy(buf, hdr_bytes, sizeof(buf));
	assert_int_equal(sa_hdr_decode(buf, 55, &d), -EINVAL);
	assert_int_equal(sa_hdr_decode(NULL, 56, &d), -EINVAL);
	buf[0] = 2;
	assert_int_equal(sa_hdr_decode(buf, 56, &d), -EINVAL);
	buf[0] = 1;
	buf[1] = 0x01;
	assert_int_equal(sa_hdr_decode(buf, 56, &d), -EINVAL);
	/* a class version we do not speak is for the SA to answer */
	buf[1] = 0x03;
	buf[2] = 7;
	assert_int_equal(sa_hdr_decode(buf, 56, &d), 0);
	assert_int_equal(d.hdr.class_version, 7);
	assert_int_equal(sa_hdr_encode(&d, buf, 55), -EINVAL);
}

static void test_resp_methods(void **state)
{
	assert_int_equal(sa_resp_method(SA_METHOD_GET), 0x81);
	assert_int_equal(sa_resp_method(SA_METHOD_SET), 0x81);
	assert_int_equal(sa_resp_method(SA_METHOD_GET_TABLE), 0x92);
	assert_int_equal(sa_resp_method(SA_METHOD_GET_TRACE_TABLE), 0x92);
	assert_int_equal(sa_resp_method(SA_METHOD_GET_MULTI), 0x94);
	assert_int_equal(sa_resp_method(SA_METHOD_DELETE), 0x95);
	assert_int_equal(sa_resp_method(SA_METHOD_REPORT), 0x86);
	assert_int_equal(sa_resp_method(0x20), 0xA0);
}

static void test_resp_hdr(void **state)
{
	struct sa_hdr req = hdr_value(), resp;
	uint8_t buf[56];

	req.hdr.tid = 0xFFFFEEEE00000001ull;   /* all 64 bits must come back */
	sa_resp_hdr(&req, 14, &resp);
	assert_int_equal(sa_hdr_encode(&resp, buf, sizeof(buf)), 0);
	assert_int_equal(buf[3], 0x92);
	assert_memory_equal(buf + 8, "\xFF\xFF\xEE\xEE\x00\x00\x00\x01", 8);
	assert_memory_equal(buf + 16, hdr_bytes + 16, 8);  /* attribute, modifier */
	for (int i = 24; i < 44; i++)                      /* no RMPP, SM_Key 0 */
		assert_int_equal(buf[i], 0);
	assert_int_equal(buf[44], 0);
	assert_int_equal(buf[45], 14);
	assert_memory_equal(buf + 48, hdr_bytes + 48, 8);  /* ComponentMask */
}

static void test_error_resp(void **state)
{
	struct sa_hdr req = hdr_value();
	uint8_t buf[MAD_SIZE];

	req.hdr.method = SA_METHOD_SET;
	memset(buf, 0xAA, sizeof(buf));
	assert_int_equal(sa_error_resp(&req, SA_STATUS_NO_RECORDS, buf, sizeof(buf)), 0);
	assert_int_equal(buf[3], 0x81);
	assert_int_equal(buf[4], 0x03);
	assert_int_equal(buf[5], 0x00);
	assert_memory_equal(buf + 8, hdr_bytes + 8, 8);
	for (int i = 24; i < 48; i++)                      /* no RMPP, SM_Key 0, offset 0 */
		assert_int_equal(buf[i], 0);
	for (int i = 56; i < MAD_SIZE; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(sa_error_resp(&req, 0x0200, buf, MAD_SIZE - 1), -EINVAL);
}

/* --- record layouts --- */

static void test_node_rec_layout(void **state)
{
	struct sa_node_rec r, d;
	uint8_t buf[108];

	memset(&r, 0, sizeof(r));
	r.lid = 0x0102;
	r.info.base_version = 1;
	r.info.class_version = 1;
	r.info.node_type = 2;
	r.info.num_ports = 36;
	r.info.sys_image_guid = 0x1000000000000001ull;
	r.info.node_guid = 0x2000000000000002ull;
	r.info.port_guid = 0x3000000000000003ull;
	r.info.partition_cap = 64;
	r.info.device_id = 0xCAFE;
	r.info.revision = 0xA0B0C0D0;
	r.info.local_port = 5;
	r.info.vendor_id = 0x0002C9;
	strcpy(r.desc.desc, "S1 switch");
	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(sa_node_rec_encode(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, "\x01\x02\x00\x00\x01\x01\x02\x24", 8);
	assert_memory_equal(buf + 8, "\x10\x00\x00\x00\x00\x00\x00\x01", 8);
	assert_memory_equal(buf + 16, "\x20\x00\x00\x00\x00\x00\x00\x02", 8); /* NodeGUID */
	assert_memory_equal(buf + 24, "\x30\x00\x00\x00\x00\x00\x00\x03", 8);
	assert_memory_equal(buf + 32, "\x00\x40\xCA\xFE\xA0\xB0\xC0\xD0\x05\x00\x02\xC9", 12);
	assert_memory_equal(buf + 44, "S1 switch\0", 10);
	assert_int_equal(buf[107], 0);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_node_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
}

static void test_port_info_rec_layout(void **state)
{
	struct sa_port_info_rec r, d;
	uint8_t buf[68];

	memset(&r, 0, sizeof(r));
	r.lid = 7;
	r.port_num = 1;
	r.options = 0x80;
	r.info.mkey = 0x0102030405060708ull;
	r.info.lid = 7;
	r.info.master_sm_lid = 1;
	r.info.cap_mask = 0x02000402;
	r.info.port_state = 4;
	r.info.link_speed_supported = 1;
	r.info.mkey_protect = 2;
	r.info.lmc = 3;
	r.info.neighbor_mtu = 5;
	r.info.vl_cap = 4;
	r.info.oper_vls = 4;
	r.info.part_enf_inbound = 1;
	r.info.client_reregister = 1;
	r.info.subnet_timeout = 18;
	r.info.cap_mask2 = 0x1234;
	r.info.link_speed_ext_enabled = 0x1E;
	assert_int_equal(sa_port_info_rec_encode(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, "\x00\x07\x01\x80\x01\x02\x03\x04\x05\x06\x07\x08", 12);
	assert_memory_equal(buf + 20, "\x00\x07\x00\x01\x02\x00\x04\x02", 8); /* LID, SM LID, caps */
	assert_int_equal(buf[36], 0x14);   /* LinkSpeedSupported 1, PortState 4 */
	assert_int_equal(buf[38], 0x83);   /* M_KeyProtectBits 2, LMC 3 */
	assert_int_equal(buf[40], 0x50);   /* NeighborMTU 5 */
	assert_int_equal(buf[41], 0x40);   /* VLCap 4 */
	assert_int_equal(buf[47], 0x48);   /* OperationalVLs 4, enforcement in */
	assert_int_equal(buf[55], 0x92);   /* ClientReregister, SubnetTimeOut 18 */
	assert_memory_equal(buf + 64, "\x12\x34\x00\x1E", 4);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_port_info_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
}

static void test_small_records_layout(void **state)
{
	struct sa_link_rec lr = { .from_lid = 0x0A0B, .from_port = 3, .to_port = 4, .to_lid = 0x0C0D };
	struct sa_link_rec lrd;
	struct sa_sl2vl_rec sl, sld;
	struct sa_sm_info_rec sm, smd;
	uint8_t buf[32];

	assert_int_equal(sa_link_rec_encode(&lr, buf, 6), 0);
	assert_memory_equal(buf, "\x0A\x0B\x03\x04\x0C\x0D", 6);
	assert_int_equal(sa_link_rec_decode(buf, 6, &lrd), 0);
	assert_memory_equal(&lrd, &lr, sizeof(lr));

	memset(&sl, 0, sizeof(sl));
	sl.lid = 9;
	sl.in_port = 1;
	sl.out_port = 2;
	for (int i = 0; i < 16; i++)
		sl.vl[i] = (uint8_t)(i == 15 ? 15 : i % 8);
	assert_int_equal(sa_sl2vl_rec_encode(&sl, buf, 16), 0);
	assert_memory_equal(buf, "\x00\x09\x01\x02\x00\x00\x00\x00"
			    "\x01\x23\x45\x67\x01\x23\x45\x6F", 16);
	memset(&sld, 0, sizeof(sld));
	assert_int_equal(sa_sl2vl_rec_decode(buf, 16, &sld), 0);
	assert_memory_equal(&sld, &sl, sizeof(sl));

	memset(&sm, 0, sizeof(sm));
	sm.lid = 1;
	sm.info.guid = 0x0008F10400411A08ull;
	sm.info.sm_key = 0;
	sm.info.act_count = 0x100;
	sm.info.priority = 5;
	sm.info.sm_state = 3;
	assert_int_equal(sa_sm_info_rec_encode(&sm, buf, 25), 0);
	assert_memory_equal(buf, "\x00\x01\x00\x00\x00\x08\xF1\x04\x00\x41\x1A\x08", 12);
	assert_memory_equal(buf + 20, "\x00\x00\x01\x00\x53", 5);
	memset(&smd, 0, sizeof(smd));
	assert_int_equal(sa_sm_info_rec_decode(buf, 25, &smd), 0);
	assert_memory_equal(&smd, &sm, sizeof(sm));
}

static void test_switch_info_rec_layout(void **state)
{
	struct sa_switch_info_rec r, d;
	uint8_t buf[24];

	memset(&r, 0, sizeof(r));
	r.lid = 2;
	r.info.lin_cap = 0xC000;
	r.info.mcast_cap = 1024;
	r.info.lin_top = 20;
	r.info.life_time_value = 0x1F;
	r.info.port_state_change = 1;
	r.info.partition_enf_cap = 64;
	r.info.inbound_enf_cap = 1;
	r.info.enhanced_port0 = 1;
	r.info.mcast_top = 0xC010;
	assert_int_equal(sa_switch_info_rec_encode(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, "\x00\x02\x00\x00\xC0\x00\x00\x00\x04\x00\x00\x14", 12);
	assert_int_equal(buf[15], 0xFC);
	assert_memory_equal(buf + 18, "\x00\x40\x88\x00\xC0\x10", 6);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_switch_info_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
}

static void test_table_records_layout(void **state)
{
	struct sa_lft_rec lft, lftd;
	struct sa_mft_rec mft, mftd;
	struct sa_guid_info_rec gir, gird;
	struct sa_pkey_rec pk, pkd;
	struct sa_vlarb_rec va, vad;
	uint8_t buf[72];

	memset(&lft, 0, sizeof(lft));
	lft.lid = 3;
	lft.block = 0x0102;
	lft.port[0] = 9;
	lft.port[63] = 0xFF;
	assert_int_equal(sa_lft_rec_encode(&lft, buf, 72), 0);
	assert_memory_equal(buf, "\x00\x03\x01\x02\x00\x00\x00\x00\x09", 9);
	assert_int_equal(buf[71], 0xFF);
	assert_int_equal(sa_lft_rec_decode(buf, 72, &lftd), 0);
	assert_memory_equal(&lftd, &lft, sizeof(lft));

	memset(&mft, 0, sizeof(mft));
	mft.lid = 0xC001;
	mft.position = 3;
	mft.block = 0x1FF;
	mft.mask[0] = 0x8001;
	assert_int_equal(sa_mft_rec_encode(&mft, buf, 72), 0);
	assert_memory_equal(buf, "\xC0\x01\x31\xFF\x00\x00\x00\x00\x80\x01", 10);
	memset(&mftd, 0, sizeof(mftd));
	assert_int_equal(sa_mft_rec_decode(buf, 72, &mftd), 0);
	assert_memory_equal(&mftd, &mft, sizeof(mft));

	memset(&gir, 0, sizeof(gir));
	gir.lid = 4;
	gir.block = 2;
	gir.guid[0] = 0x0102030405060708ull;
	gir.guid[7] = 0x1112131415161718ull;
	assert_int_equal(sa_guid_info_rec_encode(&gir, buf, 72), 0);
	assert_memory_equal(buf, "\x00\x04\x02\x00\x00\x00\x00\x00\x01\x02\x03", 11);
	assert_memory_equal(buf + 64, "\x11\x12\x13\x14\x15\x16\x17\x18", 8);
	memset(&gird, 0, sizeof(gird));
	assert_int_equal(sa_guid_info_rec_decode(buf, 72, &gird), 0);
	assert_memory_equal(&gird, &gir, sizeof(gir));

	memset(&pk, 0, sizeof(pk));
	pk.lid = 5;
	pk.block = 1;
	pk.port_num = 7;
	pk.pkey[0] = 0xFFFF;
	pk.pkey[31] = 0x8001;
	assert_int_equal(sa_pkey_rec_encode(&pk, buf, 72), 0);
	assert_memory_equal(buf, "\x00\x05\x00\x01\x07\x00\x00\x00\xFF\xFF", 10);
	assert_memory_equal(buf + 70, "\x80\x01", 2);
	memset(&pkd, 0, sizeof(pkd));
	assert_int_equal(sa_pkey_rec_decode(buf, 72, &pkd), 0);
	assert_memory_equal(&pkd, &pk, sizeof(pk));

	memset(&va, 0, sizeof(va));
	va.lid = 6;
	va.out_port = 2;
	va.block = 3;
	va.entry[0].vl = 1;
	va.entry[0].weight = 64;
	va.entry[31].vl = 14;
	va.entry[31].weight = 255;
	assert_int_equal(sa_vlarb_rec_encode(&va, buf, 72), 0);
	assert_memory_equal(buf, "\x00\x06\x02\x03\x00\x00\x00\x00\x01\x40", 10);
	assert_memory_equal(buf + 70, "\x0E\xFF", 2);
	memset(&vad, 0, sizeof(vad));
	assert_int_equal(sa_vlarb_rec_decode(buf, 72, &vad), 0);
	assert_memory_equal(&vad, &va, sizeof(va));
}

static void test_service_rec_layout(void **state)
{
	struct sa_service_rec r, d;
	uint8_t buf[176];

	memset(&r, 0, sizeof(r));
	r.id = 0x1000000000000001ull;
	fill_gid(r.gid, 0x40);
	r.pkey = 0xFFFF;
	r.lease = 0xFFFFFFFF;
	fill_gid(r.key, 0x80);
	memcpy(r.name, "svc", 3);
	r.data8[0] = 0xD8;
	r.data16[0] = 0xD160;
	r.data32[0] = 0xD3200000;
	r.data64[1] = 0xD641000000000001ull;
	assert_int_equal(sa_service_rec_encode(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, "\x10\x00\x00\x00\x00\x00\x00\x01\x40\x41", 10);
	assert_memory_equal(buf + 24, "\xFF\xFF\x00\x00\xFF\xFF\xFF\xFF\x80", 9);
	assert_memory_equal(buf + 48, "svc\0", 4);
	assert_int_equal(buf[112], 0xD8);
	assert_memory_equal(buf + 128, "\xD1\x60", 2);
	assert_memory_equal(buf + 144, "\xD3\x20\x00\x00", 4);
	assert_memory_equal(buf + 168, "\xD6\x41\x00\x00\x00\x00\x00\x01", 8);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_service_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
}

static struct sa_path_rec path_value(void)
{
	struct sa_path_rec r;

	memset(&r, 0, sizeof(r));
	r.service_id = 0x0102030405060708ull;
	fill_gid(r.dgid, 0x10);
	fill_gid(r.sgid, 0x20);
	r.dlid = 8;
	r.slid = 7;
	r.raw_traffic = 1;
	r.flow_label = 0x12345;
	r.hop_limit = 0x40;
	r.tclass = 0x0C;
	r.reversible = 1;
	r.numb_path = 0x7F;
	r.pkey = 0xFFFF;
	r.qos_class = 0xABC;
	r.sl = 5;
	r.mtu_sel = 2;
	r.mtu = 4;
	r.rate_sel = 2;
	r.rate = 3;
	r.pkt_life_sel = 2;
	r.pkt_life = 18;
	r.preference = 1;
	return r;
}

static void test_path_rec_layout(void **state)
{
	struct sa_path_rec r = path_value(), d;
	uint8_t buf[64];

	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(sa_path_rec_encode(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, "\x01\x02\x03\x04\x05\x06\x07\x08\x10\x11", 10);
	assert_int_equal(buf[24], 0x20);
	assert_memory_equal(buf + 40, "\x00\x08\x00\x07", 4);
	assert_memory_equal(buf + 44, "\x81\x23\x45\x40", 4);  /* raw, flow 0x12345, hop 0x40 */
	assert_memory_equal(buf + 48, "\x0C\xFF\xFF\xFF\xAB\xC5\x84\x83\x92\x01", 10);
	for (int i = 58; i < 64; i++)
		assert_int_equal(buf[i], 0);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_path_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
}

static void test_mcmember_rec_layout(void **state)
{
	struct sa_mcmember_rec r, d;
	uint8_t buf[52];

	memset(&r, 0, sizeof(r));
	memcpy(r.mgid, "\xff\x12\x40\x1b\xff\xff\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff", 16);
	fill_gid(r.port_gid, 0x30);
	r.qkey = 0x0B1B;
	r.mlid = 0xC000;
	r.mtu_sel = 2;
	r.mtu = 4;
	r.tclass = 0;
	r.pkey = 0xFFFF;
	r.rate_sel = 2;
	r.rate = 3;
	r.pkt_life_sel = 2;
	r.pkt_life = 0x12;
	r.sl = 3;
	r.flow_label = 0xABCDE;
	r.hop_limit = 7;
	r.scope = 2;
	r.join_state = 1;
	r.proxy_join = 1;
	assert_int_equal(sa_mcmember_rec_encode(&r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, r.mgid, 16);
	assert_memory_equal(buf + 32, "\x00\x00\x0B\x1B\xC0\x00\x84\x00\xFF\xFF\x83\x92", 12);
	assert_memory_equal(buf + 44, "\x3A\xBC\xDE\x07\x21\x80\x00\x00", 8);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_mcmember_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
	/* ProxyJoin where OpenSM's bitfield puts it (bit 0) reads as set too */
	buf[49] = 0x01;
	assert_int_equal(sa_mcmember_rec_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.proxy_join, 1);
	buf[49] = 0x7E;
	assert_int_equal(sa_mcmember_rec_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.proxy_join, 0);
}

static void test_multipath_rec(void **state)
{
	struct sa_multipath_rec r, d;
	uint8_t buf[24 + 3 * 16], gid[16];

	memset(&r, 0, sizeof(r));
	r.flow_label = 1;
	r.hop_limit = 2;
	r.numb_path = 4;
	r.pkey = 0x8001;
	r.sl = 1;
	r.service_id = 0xA1B2C3D4E5F60718ull;
	r.independence_sel = 1;
	r.sgid_count = 2;
	r.dgid_count = 1;
	memset(buf, 0, sizeof(buf));
	assert_int_equal(sa_multipath_rec_encode(&r, buf, 24), 0);
	assert_memory_equal(buf, "\x00\x00\x01\x02\x00\x04\x80\x01\x00\x01", 10);
	assert_int_equal(buf[13], 0xA1);                 /* ServiceID8MSB */
	assert_memory_equal(buf + 14, "\x40\x02\x01", 3); /* independence, counts */
	assert_memory_equal(buf + 17, "\xB2\xC3\xD4\xE5\xF6\x07\x18", 7);
	for (int i = 0; i < 3; i++)
		fill_gid(buf + 24 + 16 * i, (uint8_t)(0x50 + 0x10 * i));
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_multipath_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
	assert_int_equal(sa_multipath_gid(buf, sizeof(buf), 2, gid), 0);
	assert_int_equal(gid[0], 0x70);
	assert_int_equal(sa_multipath_gid(buf, sizeof(buf), 3, gid), -EINVAL);
	/* the counts promise more GIDs than the buffer has */
	assert_int_equal(sa_multipath_rec_decode(buf, sizeof(buf) - 1, &d), -EINVAL);
	assert_int_equal(sa_multipath_gid(buf, sizeof(buf) - 1, 2, gid), -EINVAL);
	buf[15] = 255;
	buf[16] = 255;
	assert_int_equal(sa_multipath_rec_decode(buf, sizeof(buf), &d), -EINVAL);
}

static void test_inform_layout(void **state)
{
	struct sa_inform_info_rec r, d;
	struct sa_inform_info ii;
	uint8_t buf[60];

	memset(&r, 0, sizeof(r));
	fill_gid(r.subscriber_gid, 0x60);
	r.subscriber_enum = 3;
	r.info.lid_begin = 0xFFFF;
	r.info.lid_end = 0;
	r.info.is_generic = 1;
	r.info.subscribe = 1;
	r.info.type = 0xFFFF;
	r.info.trap_num = 64;
	r.info.qpn = 0x123456;
	r.info.resp_time_value = 19;
	r.info.producer_type = 4;
	assert_int_equal(sa_inform_info_rec_encode(&r, buf, sizeof(buf)), 0);
	assert_int_equal(buf[0], 0x60);
	assert_memory_equal(buf + 16, "\x00\x03\x00\x00\x00\x00\x00\x00", 8);
	assert_memory_equal(buf + 40, "\xFF\xFF\x00\x00\x00\x00\x01\x01\xFF\xFF\x00\x40", 12);
	assert_memory_equal(buf + 52, "\x12\x34\x56\x13\x00\x00\x00\x04", 8);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_inform_info_rec_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
	/* InformInfo alone is the record from byte 24 on */
	memset(&ii, 0, sizeof(ii));
	assert_int_equal(sa_inform_info_decode(buf + 24, 36, &ii), 0);
	assert_memory_equal(&ii, &r.info, sizeof(ii));
}

static void test_class_port_info_layout(void **state)
{
	struct sa_class_port_info c, d;
	uint8_t buf[72];

	/* what saquery -c showed from OpenSM 3.3.23 on ibsim */
	memset(&c, 0, sizeof(c));
	c.base_version = 1;
	c.class_version = 2;
	c.cap_mask = 0x2602;
	c.cap_mask2 = 0xB5E8;
	c.resp_time_value = 16;
	c.redir_qp = 1;
	c.redir_qkey = 0x80010000;
	c.trap_qkey = 0x80010000;
	c.trap_hl = 0xFF;
	c.trap_qp = 0xABCDEF;
	c.trap_sl = 3;
	c.trap_fl = 0x12345;
	c.trap_tc = 7;
	assert_int_equal(sa_class_port_info_encode(&c, buf, sizeof(buf)), 0);
	/* CapabilityMask2 0xB5E8 << 5 | 16 = 0x0016BD10 */
	assert_memory_equal(buf, "\x01\x02\x26\x02\x00\x16\xBD\x10", 8);
	assert_memory_equal(buf + 32, "\x00\x00\x00\x01\x80\x01\x00\x00", 8);
	assert_memory_equal(buf + 56, "\x07\x31\x23\x45", 4);
	assert_memory_equal(buf + 64, "\xFF\xAB\xCD\xEF\x80\x01\x00\x00", 8);
	memset(&d, 0, sizeof(d));
	assert_int_equal(sa_class_port_info_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(&d, &c, sizeof(c));
}

static void test_notice(void **state)
{
	struct smp_notice n, d;
	uint8_t buf[80];

	memset(&n, 0, sizeof(n));
	n.is_generic = 1;
	n.type = 3;
	n.producer_type = 4;
	n.trap_num = 64;
	n.issuer_lid = 1;
	fill_gid(n.data_details + 6, 0x90);
	fill_gid(n.issuer_gid, 0xA0);
	assert_int_equal(sa_notice_encode(&n, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, "\x83\x00\x00\x04\x00\x40\x00\x01", 8);
	assert_int_equal(buf[16], 0x90);   /* the GID of traps 64-67 */
	assert_int_equal(buf[64], 0xA0);   /* IssuerGID: all 80 bytes in SA */
	assert_int_equal(sa_notice_decode(buf, sizeof(buf), &d), 0);
	assert_memory_equal(d.issuer_gid, n.issuer_gid, 16);
	assert_int_equal(sa_notice_decode(buf, 79, &d), -EINVAL);
	assert_int_equal(sa_notice_encode(&n, buf, 79), -EINVAL);
}

/* --- every codec: short input and output --- */

typedef int (*dec_fn)(const uint8_t *, size_t, void *);
typedef int (*enc_fn)(const void *, uint8_t *, size_t);

struct codec {
	const char *name;
	uint16_t attr_id;       /* 0: no field table */
	size_t size;
	dec_fn dec;
	enc_fn enc;
};

/* Type-erased wrappers, so one table can drive every codec. */
#define WRAP(base)                                                           \
	static int dec_##base(const uint8_t *b, size_t l, void *o)           \
	{                                                                    \
		return sa_##base##_decode(b, l, o);                          \
	}                                                                    \
	static int enc_##base(const void *i, uint8_t *b, size_t l)           \
	{                                                                    \
		return sa_##base##_encode(i, b, l);                          \
	}
WRAP(class_port_info)
WRAP(node_rec)
WRAP(port_info_rec)
WRAP(sl2vl_rec)
WRAP(switch_info_rec)
WRAP(lft_rec)
WRAP(mft_rec)
WRAP(sm_info_rec)
WRAP(link_rec)
WRAP(guid_info_rec)
WRAP(service_rec)
WRAP(pkey_rec)
WRAP(path_rec)
WRAP(vlarb_rec)
WRAP(mcmember_rec)
WRAP(multipath_rec)
WRAP(inform_info)
WRAP(inform_info_rec)
WRAP(notice)

#define CODEC(n, id, size, base) { n, id, size, dec_##base, enc_##base }

static const struct codec codecs[] = {
	CODEC("ClassPortInfo", 0, 72, class_port_info),
	CODEC("NodeRecord", SA_ATTR_NODE_REC, 108, node_rec),
	CODEC("PortInfoRecord", SA_ATTR_PORT_INFO_REC, 68, port_info_rec),
	CODEC("SL2VLTableRecord", SA_ATTR_SL2VL_REC, 16, sl2vl_rec),
	CODEC("SwitchInfoRecord", SA_ATTR_SWITCH_INFO_REC, 24, switch_info_rec),
	CODEC("LFTRecord", SA_ATTR_LFT_REC, 72, lft_rec),
	CODEC("MFTRecord", SA_ATTR_MFT_REC, 72, mft_rec),
	CODEC("SMInfoRecord", SA_ATTR_SM_INFO_REC, 25, sm_info_rec),
	CODEC("LinkRecord", SA_ATTR_LINK_REC, 6, link_rec),
	CODEC("GUIDInfoRecord", SA_ATTR_GUID_INFO_REC, 72, guid_info_rec),
	CODEC("ServiceRecord", SA_ATTR_SERVICE_REC, 176, service_rec),
	CODEC("P_KeyTableRecord", SA_ATTR_PKEY_REC, 72, pkey_rec),
	CODEC("PathRecord", SA_ATTR_PATH_REC, 64, path_rec),
	CODEC("VLArbitrationTableRecord", SA_ATTR_VLARB_REC, 72, vlarb_rec),
	CODEC("MCMemberRecord", SA_ATTR_MCMEMBER_REC, 52, mcmember_rec),
	CODEC("MultiPathRecord", SA_ATTR_MULTIPATH_REC, 24, multipath_rec),
	CODEC("InformInfo", 0, 36, inform_info),
	CODEC("InformInfoRecord", SA_ATTR_INFORM_INFO_REC, 60, inform_info_rec),
	CODEC("Notice", 0, 80, notice),
};

#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))
#define MAXREC 176

static void test_bad_lengths(void **state)
{
	uint8_t in[MAXREC], out[MAXREC + 8];
	uint8_t rec[1024] __attribute__((aligned(8)));

	memset(in, 0, sizeof(in));
	for (size_t i = 0; i < NCODECS; i++) {
		const struct codec *c = &codecs[i];

		memset(rec, 0, sizeof(rec));
		assert_int_equal(c->dec(in, c->size - 1, rec), -EINVAL);
		assert_int_equal(c->dec(NULL, c->size, rec), -EINVAL);
		assert_int_equal(c->dec(in, c->size, rec), 0);
		assert_int_equal(c->enc(rec, out, c->size - 1), -EINVAL);
		assert_int_equal(c->enc(rec, NULL, c->size), -EINVAL);
		/* exactly the record size is written, not a byte more */
		memset(out, 0x5A, sizeof(out));
		assert_int_equal(c->enc(rec, out, sizeof(out)), 0);
		assert_int_equal(out[c->size], 0x5A);
	}
}

/* --- component tables --- */

static const struct sa_field *field(uint16_t attr, unsigned bit)
{
	const struct sa_rec_desc *d = sa_rec_desc_find(attr);

	assert_non_null(d);
	assert_true(bit < d->nfields);
	return &d->fields[bit];
}

static void expect_field(uint16_t attr, unsigned bit, unsigned off, unsigned b, unsigned width)
{
	const struct sa_field *f = field(attr, bit);

	assert_int_equal(f->off, off);
	assert_int_equal(f->bit, b);
	assert_int_equal(f->width, width);
}

static void test_field_entries(void **state)
{
	/* the ones the brief names */
	expect_field(SA_ATTR_NODE_REC, 7, 16, 0, 64);      /* NodeGUID */
	expect_field(SA_ATTR_PATH_REC, 15, 53, 4, 4);      /* SL */
	expect_field(SA_ATTR_MCMEMBER_REC, 16, 48, 4, 4);  /* JoinState */
	/* a few per record, from the IBA 15.2.5 offsets */
	expect_field(SA_ATTR_NODE_REC, 0, 0, 0, 16);
	expect_field(SA_ATTR_NODE_REC, 13, 41, 0, 24);     /* VendorID */
	expect_field(SA_ATTR_NODE_REC, 14, 44, 0, 512);
	expect_field(SA_ATTR_PORT_INFO_REC, 7, 24, 0, 32); /* CapabilityMask */
	expect_field(SA_ATTR_PORT_INFO_REC, 15, 36, 4, 4); /* PortState */
	expect_field(SA_ATTR_PORT_INFO_REC, 20, 38, 5, 3); /* LMC */
	expect_field(SA_ATTR_PORT_INFO_REC, 43, 55, 0, 1); /* ClientReregister */
	expect_field(SA_ATTR_PORT_INFO_REC, 53, 64, 0, 16); /* CapabilityMask2 */
	expect_field(SA_ATTR_PORT_INFO_REC, 57, 67, 3, 5); /* LinkSpeedExtEnabled */
	expect_field(SA_ATTR_LINK_REC, 3, 4, 0, 16);
	expect_field(SA_ATTR_SWITCH_INFO_REC, 1, 2, 0, 16);
	expect_field(SA_ATTR_LFT_REC, 1, 2, 0, 16);
	expect_field(SA_ATTR_MFT_REC, 3, 2, 7, 9);         /* BlockNum */
	expect_field(SA_ATTR_GUID_INFO_REC, 4, 8, 0, 64);
	expect_field(SA_ATTR_GUID_INFO_REC, 11, 64, 0, 64);
	expect_field(SA_ATTR_PKEY_REC, 2, 4, 0, 8);
	expect_field(SA_ATTR_SL2VL_REC, 2, 3, 0, 8);
	expect_field(SA_ATTR_VLARB_REC, 2, 3, 0, 8);
	expect_field(SA_ATTR_SM_INFO_REC, 6, 24, 4, 4);    /* SMState */
	expect_field(SA_ATTR_SERVICE_REC, 6, 48, 0, 512);
	expect_field(SA_ATTR_SERVICE_REC, 22, 127, 0, 8);  /* ServiceData8.15 */
	expect_field(SA_ATTR_SERVICE_REC, 36, 168, 0, 64); /* ServiceData64.1 */
	expect_field(SA_ATTR_PATH_REC, 8, 44, 4, 20);      /* FlowLabel */
	expect_field(SA_ATTR_PATH_REC, 12, 49, 1, 7);      /* NumbPath */
	expect_field(SA_ATTR_PATH_REC, 17, 54, 2, 6);      /* MTU */
	expect_field(SA_ATTR_MCMEMBER_REC, 12, 44, 0, 4);  /* SL */
	expect_field(SA_ATTR_MCMEMBER_REC, 17, 49, 0, 1);  /* ProxyJoin, bit 7 */
	expect_field(SA_ATTR_MULTIPATH_REC, 9, 9, 4, 4);   /* SL */
	expect_field(SA_ATTR_MULTIPATH_REC, 21, 17, 0, 56);
	expect_field(SA_ATTR_INFORM_INFO_REC, 11, 52, 0, 24); /* QPN */
	expect_field(SA_ATTR_INFORM_INFO_REC, 13, 55, 3, 5);
	expect_field(SA_ATTR_INFORM_INFO_REC, 15, 57, 0, 24);
	assert_null(sa_rec_desc_find(SA_ATTR_CLASS_PORT_INFO));
}

/* OpenSM's number of IB_*_COMPMASK_* bits per record (+1 Preference). */
static void test_field_counts(void **state)
{
	static const struct { uint16_t attr; unsigned n; uint16_t padded; } want[] = {
		{ SA_ATTR_NODE_REC, 15, 112 },       { SA_ATTR_PORT_INFO_REC, 58, 72 },
		{ SA_ATTR_SL2VL_REC, 3, 16 },        { SA_ATTR_SWITCH_INFO_REC, 2, 24 },
		{ SA_ATTR_LFT_REC, 2, 72 },          { SA_ATTR_MFT_REC, 5, 72 },
		{ SA_ATTR_SM_INFO_REC, 7, 32 },      { SA_ATTR_LINK_REC, 4, 8 },
		{ SA_ATTR_GUID_INFO_REC, 12, 72 },   { SA_ATTR_SERVICE_REC, 37, 176 },
		{ SA_ATTR_PKEY_REC, 3, 72 },         { SA_ATTR_PATH_REC, 23, 64 },
		{ SA_ATTR_VLARB_REC, 3, 72 },        { SA_ATTR_MCMEMBER_REC, 18, 56 },
		{ SA_ATTR_MULTIPATH_REC, 22, 24 },   { SA_ATTR_INFORM_INFO_REC, 16, 64 },
	};
	size_t n;

	sa_rec_descs(&n);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		const struct sa_rec_desc *d = sa_rec_desc_find(want[i].attr);

		assert_non_null(d);
		assert_int_equal(d->nfields, want[i].n);
		assert_int_equal(d->padded, want[i].padded);
		assert_int_equal(d->padded % 8, 0);
	}
}

/* Components follow each other in wire order from bit 0, and stay inside
 * the record. */
static void test_field_tiling(void **state)
{
	size_t n;
	const struct sa_rec_desc *d = sa_rec_descs(&n);

	for (size_t i = 0; i < n; i++) {
		unsigned pos = 0;

		for (unsigned k = 0; k < d[i].nfields; k++) {
			const struct sa_field *f = &d[i].fields[k];

			assert_true(f->bit < 8 && f->width > 0);
			assert_int_equal(f->off * 8u + f->bit, pos);
			pos += f->width;
		}
		assert_true(pos <= d[i].size * 8u);
	}
}

static void set_bits(uint8_t *p, const struct sa_field *f)
{
	for (unsigned k = 0; k < f->width; k++) {
		unsigned b = f->off * 8u + f->bit + k;

		p[b / 8] |= (uint8_t)(0x80 >> (b % 8));
	}
}

static const struct codec *codec_for(uint16_t attr)
{
	for (size_t i = 0; i < NCODECS; i++)
		if (codecs[i].attr_id == attr)
			return &codecs[i];
	return NULL;
}

/* decode + encode of wire bytes. The input is followed by zeros, room
 * for the 510 GIDs an all-ones MultiPathRecord announces. */
static void through_codec(const struct codec *c, const uint8_t *in, uint8_t *out)
{
	static uint8_t big[24 + 16 * 510];
	uint8_t rec[1024] __attribute__((aligned(8)));

	memset(big, 0, sizeof(big));
	memcpy(big, in, c->size);
	memset(rec, 0, sizeof(rec));
	memset(out, 0, MAXREC);
	assert_int_equal(c->dec(big, sizeof(big), rec), 0);
	assert_int_equal(c->enc(rec, out, c->size), 0);
}

/* a is inside b, bit for bit */
static int bits_within(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] & ~b[i])
			return 0;
	return 1;
}

static int is_reserved(const struct sa_field *f)
{
	return strcmp(f->name, "reserved") == 0;
}

/* Each component's bits survive the codec (a reserved one's may be lost,
 * or partly kept: OpenSM's PortInfoRecord RESV3 holds
 * MulticastPKeyTrapSuppression), none spills into other bits, and up to
 * the last component the codec carries exactly what the components do
 * (after it, LFT and similar records hold rows no component names). */
static void test_fields_vs_codecs(void **state)
{
	size_t n;
	const struct sa_rec_desc *d = sa_rec_descs(&n);

	for (size_t i = 0; i < n; i++) {
		const struct codec *c = codec_for(d[i].attr_id);
		uint8_t in[MAXREC], out[MAXREC], named[MAXREC];
		const struct sa_field *last = &d[i].fields[d[i].nfields - 1];
		unsigned end = last->off * 8u + last->bit + last->width;

		assert_non_null(c);
		assert_int_equal(c->size, d[i].size);
		memset(named, 0, sizeof(named));
		for (unsigned k = 0; k < d[i].nfields; k++) {
			const struct sa_field *f = &d[i].fields[k];

			memset(in, 0, sizeof(in));
			set_bits(in, f);
			through_codec(c, in, out);
			if (!bits_within(out, in, c->size))
				fail_msg("%s: %s spills", d[i].name, f->name);
			if (!is_reserved(f) && memcmp(out, in, c->size) != 0)
				fail_msg("%s: %s does not survive the codec", d[i].name, f->name);
			for (size_t b = 0; b < c->size; b++)
				named[b] |= out[b];
		}
		/* all ones through the codec: what comes out beyond the last
		 * component is row data; before it, exactly the named bits */
		memset(in, 0xFF, sizeof(in));
		through_codec(c, in, out);
		for (unsigned b = 0; b < end; b++) {
			int got = (out[b / 8] >> (7 - b % 8)) & 1;
			int want = (named[b / 8] >> (7 - b % 8)) & 1;

			if (got != want)
				fail_msg("%s: bit %u of the record: codec %d, table %d", d[i].name,
					 b, got, want);
		}
	}
}

/* --- matcher --- */

static void test_match_node_guid(void **state)
{
	const struct sa_rec_desc *d = sa_rec_desc_find(SA_ATTR_NODE_REC);
	struct sa_node_rec a, b;
	uint8_t ta[108], tb[108];

	memset(&a, 0, sizeof(a));
	a.lid = 1;
	a.info.node_guid = 0x0002C90300000001ull;
	strcpy(a.desc.desc, "H1");
	b = a;
	b.lid = 2;
	strcpy(b.desc.desc, "H2");
	sa_node_rec_encode(&a, ta, sizeof(ta));
	sa_node_rec_encode(&b, tb, sizeof(tb));
	assert_true(sa_match(d, ta, tb, 1u << 7));              /* NodeGUID */
	assert_false(sa_match(d, ta, tb, (1u << 7) | 1u));      /* + LID */
	assert_false(sa_match(d, ta, tb, 1u << 14));            /* NodeDescription */
	assert_true(sa_match(d, ta, tb, 0));                    /* no mask: all match */
	b.info.node_guid ^= 1;                                  /* last bit of the GUID */
	sa_node_rec_encode(&b, tb, sizeof(tb));
	assert_false(sa_match(d, ta, tb, 1u << 7));
}

static void test_match_subbyte(void **state)
{
	const struct sa_rec_desc *d = sa_rec_desc_find(SA_ATTR_PATH_REC);
	struct sa_path_rec a = path_value(), b = path_value();
	uint8_t ta[64], tb[64];

	b.qos_class = 0x123;         /* the other 12 bits of SL's 16-bit word */
	b.hop_limit = 1;             /* byte 47, next to the flow label */
	b.raw_traffic = 0;           /* bit 7 of byte 44, before it */
	sa_path_rec_encode(&a, ta, sizeof(ta));
	sa_path_rec_encode(&b, tb, sizeof(tb));
	assert_true(sa_match(d, ta, tb, 1u << 15));             /* SL */
	assert_true(sa_match(d, ta, tb, 1u << 8));              /* FlowLabel */
	assert_false(sa_match(d, ta, tb, 1u << 14));            /* QoSClass */
	assert_false(sa_match(d, ta, tb, 1u << 9));             /* HopLimit */
	assert_false(sa_match(d, ta, tb, 1u << 6));             /* RawTraffic */
	b = a;
	b.sl = 4;
	sa_path_rec_encode(&b, tb, sizeof(tb));
	assert_false(sa_match(d, ta, tb, 1u << 15));
	assert_true(sa_match(d, ta, tb, 1u << 14));
	b = a;
	b.flow_label ^= 0x80000 | 1; /* first and last bit of the 20 */
	sa_path_rec_encode(&b, tb, sizeof(tb));
	assert_false(sa_match(d, ta, tb, 1u << 8));
	assert_true(sa_match(d, ta, tb, (1u << 9) | (1u << 6) | (1u << 7)));
	/* the RDMA CM mask: DGID SGID P_Key NumbPath Reversible ServiceID */
	assert_true(sa_match(d, ta, ta, 0x380F));
}

static void test_match_mcmember_join_state(void **state)
{
	const struct sa_rec_desc *d = sa_rec_desc_find(SA_ATTR_MCMEMBER_REC);
	uint8_t ta[52], tb[52];

	memset(ta, 0, sizeof(ta));
	memset(tb, 0, sizeof(tb));
	ta[48] = 0x21;               /* scope 2, JoinState 1 */
	tb[48] = 0x51;               /* scope 5, JoinState 1 */
	assert_true(sa_match(d, ta, tb, 1u << 16));
	assert_false(sa_match(d, ta, tb, 1u << 15));
	tb[48] = 0x22;
	assert_false(sa_match(d, ta, tb, 1u << 16));
	assert_true(sa_match(d, ta, tb, 1u << 15));
	/* ProxyJoin compares bit 7 of byte 49 only */
	tb[48] = 0x21;
	tb[49] = 0x7F;
	assert_true(sa_match(d, ta, tb, (1u << 17) | (1u << 16)));
	tb[49] = 0x80;
	assert_false(sa_match(d, ta, tb, 1u << 17));
}

static void test_mask_check(void **state)
{
	size_t n;
	const struct sa_rec_desc *d = sa_rec_descs(&n);
	uint8_t a[MAXREC], b[MAXREC];

	memset(a, 0, sizeof(a));
	memset(b, 0xFF, sizeof(b));
	for (size_t i = 0; i < n; i++) {
		uint64_t all = d[i].nfields == 64 ? ~0ull : (1ull << d[i].nfields) - 1;

		assert_int_equal(sa_mask_check(&d[i], all), 0);
		assert_int_equal(sa_mask_check(&d[i], 0), 0);
		assert_int_equal(sa_mask_check(&d[i], 1ull << d[i].nfields), -EINVAL);
		assert_int_equal(sa_mask_check(&d[i], 1ull << 63), -EINVAL);
		/* bits past the components are no part of a match */
		assert_true(sa_match(&d[i], a, b, ~all));
		assert_false(sa_match(&d[i], a, b, all));
	}
	assert_int_equal(sa_mask_check(NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_layout),
		cmocka_unit_test(test_hdr_rejects),
		cmocka_unit_test(test_resp_methods),
		cmocka_unit_test(test_resp_hdr),
		cmocka_unit_test(test_error_resp),
		cmocka_unit_test(test_node_rec_layout),
		cmocka_unit_test(test_port_info_rec_layout),
		cmocka_unit_test(test_small_records_layout),
		cmocka_unit_test(test_switch_info_rec_layout),
		cmocka_unit_test(test_table_records_layout),
		cmocka_unit_test(test_service_rec_layout),
		cmocka_unit_test(test_path_rec_layout),
		cmocka_unit_test(test_mcmember_rec_layout),
		cmocka_unit_test(test_multipath_rec),
		cmocka_unit_test(test_inform_layout),
		cmocka_unit_test(test_class_port_info_layout),
		cmocka_unit_test(test_notice),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_field_entries),
		cmocka_unit_test(test_field_counts),
		cmocka_unit_test(test_field_tiling),
		cmocka_unit_test(test_fields_vs_codecs),
		cmocka_unit_test(test_match_node_guid),
		cmocka_unit_test(test_match_subbyte),
		cmocka_unit_test(test_match_mcmember_join_state),
		cmocka_unit_test(test_mask_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
