/*
 * DOC: libFuzzer target for the PMA reply parser and the PerfMgt codecs.
 *
 * The input goes to pma_reply_decode() as a whole MAD and to every
 * attribute decoder as raw attribute data. Whatever decodes is encoded and
 * decoded again, which must give the same bytes: the parser never accepts
 * what the codecs cannot say.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mad/pma.h"

#define MAX_INPUT 4096

static void round_trip_pc(const struct pma_port_counters *a)
{
	struct pma_port_counters b;
	uint8_t o1[44], o2[44];

	if (pma_port_counters_encode(a, o1, sizeof(o1)) ||
	    pma_port_counters_decode(o1, sizeof(o1), &b) ||
	    pma_port_counters_encode(&b, o2, sizeof(o2)) || memcmp(o1, o2, sizeof(o1)))
		abort();
}

static void round_trip_pce(const struct pma_port_counters_ext *a)
{
	struct pma_port_counters_ext b;
	uint8_t o1[PMA_PCE_FULL_SIZE], o2[PMA_PCE_FULL_SIZE];
	size_t n = a->has_errors ? PMA_PCE_FULL_SIZE : PMA_PCE_BASE_SIZE;

	if (pma_port_counters_ext_encode(a, o1, n) || pma_port_counters_ext_decode(o1, n, &b) ||
	    b.has_errors != a->has_errors || pma_port_counters_ext_encode(&b, o2, n) ||
	    memcmp(o1, o2, n))
		abort();
}

static void fuzz_reply(const uint8_t *data, size_t len)
{
	struct pma_reply r;
	struct pma_req q;
	uint8_t mad[MAD_SIZE];
	struct pma_reply r2;

	if (pma_reply_decode(data, len, &r) != 0)
		return;
	if (r.status)
		return;
	memset(&q, 0, sizeof(q));
	q.method = MAD_METHOD_GET;
	q.attr_id = r.attr_id;
	q.tid = r.tid;
	if (pma_resp_encode(&q, 0, &r.u, mad, sizeof(mad)) ||
	    pma_reply_decode(mad, sizeof(mad), &r2) || r2.tid != r.tid || r2.attr_id != r.attr_id)
		abort();
	if (r.attr_id == PMA_ATTR_PORT_COUNTERS)
		round_trip_pc(&r.u.pc);
	else if (r.attr_id == PMA_ATTR_PORT_COUNTERS_EXT)
		round_trip_pce(&r.u.pce);
	else if (r2.u.cpi.cap_mask != r.u.cpi.cap_mask || r2.u.cpi.cap_mask2 != r.u.cpi.cap_mask2)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pma_port_counters pc;
	struct pma_port_counters_ext pce;
	struct pma_class_port_info cpi;

	if (size > MAX_INPUT)
		return 0;
	fuzz_reply(data, size);
	if (pma_port_counters_decode(data, size, &pc) == 0)
		round_trip_pc(&pc);
	if (pma_port_counters_ext_decode(data, size, &pce) == 0)
		round_trip_pce(&pce);
	(void)pma_class_port_info_decode(data, size, &cpi);
	return 0;
}
