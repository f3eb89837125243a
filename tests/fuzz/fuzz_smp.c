/*
 * DOC: libFuzzer target for everything that parses SMPs from the fabric.
 *
 * The input goes to smp_decode and to every attribute decoder (each decoded
 * attribute is re-encoded and decoded again, which must give the same
 * bytes), then through the engine's receive path on the fake transport:
 * the input is cut into MAD-sized records, each patched with the TID of one
 * of our outstanding requests when its first byte says so (a fuzzer would
 * seldom guess a live TID), and delivered as responses, requests or returned
 * sends while the fake clock runs. Every request must complete exactly once.
 * GMP requests (PerfMgt class 0x04) ride along: a record may also take the
 * whole header of a sent MAD, turned into a GetResp, so that answers of
 * the right class and attribute come often; each GMP completes once, with
 * the whole MAD exactly when it succeeded or carried a status.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mad/engine.h"
#include "mad/pma.h"
#include "mad/smp.h"
#include "tests/unit/fake_transport.h"

#define MAX_INPUT 4096

#define ROUND_TRIP(type, dec, enc, size)                                     \
	do {                                                                 \
		type a, b;                                                   \
		uint8_t out1[80], out2[80];                                  \
		memset(&a, 0, sizeof(a));                                    \
		memset(&b, 0, sizeof(b));                                    \
		if (dec(data, len, &a) == 0) {                               \
			if (enc(&a, out1, sizeof(out1)) != 0 ||              \
			    dec(out1, sizeof(out1), &b) != 0 ||              \
			    enc(&b, out2, sizeof(out2)) != 0 ||              \
			    memcmp(out1, out2, size) != 0)                   \
				abort();                                     \
		}                                                            \
	} while (0)

static void fuzz_codecs(const uint8_t *data, size_t len)
{
	struct smp s;
	uint8_t buf[MAD_SIZE];

	if (smp_decode(data, len, &s) == 0 && smp_encode(&s, buf, sizeof(buf)) != 0)
		abort();
	ROUND_TRIP(struct smp_node_info, smp_node_info_decode, smp_node_info_encode, 40);
	ROUND_TRIP(struct smp_node_desc, smp_node_desc_decode, smp_node_desc_encode, 64);
	ROUND_TRIP(struct smp_switch_info, smp_switch_info_decode, smp_switch_info_encode, 20);
	ROUND_TRIP(struct smp_port_info, smp_port_info_decode, smp_port_info_encode, 64);
	ROUND_TRIP(struct smp_sm_info, smp_sm_info_decode, smp_sm_info_encode, 21);
	ROUND_TRIP(struct smp_lft_block, smp_lft_block_decode, smp_lft_block_encode, 64);
	ROUND_TRIP(struct smp_notice, smp_notice_decode, smp_notice_encode, 80);
	ROUND_TRIP(struct smp_pkey_block, smp_pkey_block_decode, smp_pkey_block_encode, 64);
	ROUND_TRIP(struct smp_sl2vl, smp_sl2vl_decode, smp_sl2vl_encode, 8);
	ROUND_TRIP(struct smp_vlarb_block, smp_vlarb_block_decode, smp_vlarb_block_encode, 64);
	ROUND_TRIP(struct smp_mft_block, smp_mft_block_decode, smp_mft_block_encode, 64);
}

#define NSMP 8
#define NGMP 4
static unsigned calls[NSMP + NGMP];

static void done(void *arg, int err, const struct smp *resp)
{
	unsigned *c = arg;

	if (++*c > 1)
		abort();
	if ((err == MAD_OK || err == MAD_ERR_STATUS) != (resp != NULL))
		abort();
}

static void gmp_done(void *arg, int err, const uint8_t *mad, size_t len)
{
	unsigned *c = arg;

	if (++*c > 1)
		abort();
	if ((err == MAD_OK || err == MAD_ERR_STATUS) != (mad != NULL))
		abort();
	if (mad && (len != MAD_SIZE || mad[1] != MAD_CLASS_PERF || mad[3] != MAD_METHOD_GET_RESP))
		abort();
}

static void unsolicited(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	if (len == 0 || len > MAD_SIZE)
		abort();
}

static void submit_some(struct mad_engine *e)
{
	for (unsigned i = 0; i < NGMP; i++) {
		struct mad_gmp_req g;

		memset(&g, 0, sizeof(g));
		g.dlid = (uint16_t)(i + 1);
		g.mgmt_class = MAD_CLASS_PERF;
		g.class_version = PMA_CLASS_VERSION;
		g.method = MAD_METHOD_GET;
		g.attr_id = i & 1 ? PMA_ATTR_PORT_COUNTERS_EXT : PMA_ATTR_PORT_COUNTERS;
		calls[NSMP + i] = 0;
		mad_engine_submit_gmp(e, &g, gmp_done, &calls[NSMP + i]);
	}
	for (unsigned i = 0; i < NSMP; i++) {
		struct mad_req q;

		memset(&q, 0, sizeof(q));
		q.mgmt_class = i & 1 ? MAD_CLASS_SMI : MAD_CLASS_SMI_DR;
		q.method = i == 7 ? MAD_METHOD_SET : MAD_METHOD_GET;
		q.attr_id = i & 2 ? SMP_ATTR_PORT_INFO : SMP_ATTR_NODE_INFO;
		q.dlid = (uint16_t)(i + 1);
		q.hop_cnt = (uint8_t)(i / 2);
		for (unsigned h = 1; h <= q.hop_cnt; h++)
			q.path[h] = (uint8_t)h;
		calls[i] = 0;
		mad_engine_submit(e, &q, done, &calls[i]);
	}
}

/* One record: [ctl][MAD bytes...]; ctl bit 0: take the TID of sent MAD
 * ctl>>4; bit 1: deliver as a returned send; bit 2: advance the clock;
 * bit 3: take that MAD's whole header, as a GetResp. */
static void feed_record(struct fake_tp *ft, struct mad_engine *e, const uint8_t *rec, size_t len)
{
	uint8_t mad[MAD_SIZE];
	uint8_t ctl = rec[0];
	size_t n = len - 1;

	memset(mad, 0, sizeof(mad));
	memcpy(mad, rec + 1, n);
	if ((ctl & 1) && ft->nsent && n >= 16)
		memcpy(mad + 12, ft->sent[(ctl >> 4) % ft->nsent].buf + 12, 4);
	if ((ctl & 8) && ft->nsent && n >= 24) {
		memcpy(mad, ft->sent[(ctl >> 4) % ft->nsent].buf, 24);
		mad[3] = MAD_METHOD_GET_RESP;
	}
	fake_tp_inject(ft, mad, n, ctl & 2 ? 110 : 0, NULL);
	mad_engine_on_readable(e);
	if (ctl & 4) {
		ft->now += 150;
		mad_engine_on_timer(e);
	}
}

static void fuzz_engine(const uint8_t *data, size_t len)
{
	struct fake_tp ft;
	struct mad_transport tp;
	struct mad_engine_opts o;
	struct mad_engine *e;
	const size_t rec = MAD_SIZE + 1;

	fake_tp_init(&ft, &tp);
	mad_engine_opts_default(&o);
	o.window = 4;
	o.per_dest = 2;
	o.timeout_ms = 100;
	o.retries = 2;
	o.now_ms = fake_tp_now;
	o.now_arg = &ft;
	o.unsolicited = unsolicited;
	e = mad_engine_new(&tp, &o);
	submit_some(e);
	for (size_t off = 0; off < len; off += rec)
		if (len - off >= 2)
			feed_record(&ft, e, data + off, len - off < rec ? len - off : rec);
	mad_engine_free(e);
	for (unsigned i = 0; i < NSMP + NGMP; i++)
		if (calls[i] != 1)
			abort();
	fake_tp_fini(&ft);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	fuzz_codecs(data, size);
	fuzz_engine(data, size);
	return 0;
}
