/*
 * DOC: libFuzzer target for the topology parser (and what follows it).
 *
 * Input: bytes of a would-be ibnetdiscover / ibsim net file, capped at
 * 64 KiB. Whatever parses is also given LIDs, routed by every engine and
 * verified when small, so the whole path a file takes in ibsm-route is
 * covered. Build: ./configure CC=clang --enable-fuzzing; run:
 *   tests/fuzz/fuzz_topo -dict=tests/fuzz/fuzz_topo.dict CORPUS
 */
#include <stddef.h>
#include <stdint.h>

#include "routing/lids.h"
#include "routing/routing.h"
#include "routing/topo_parse.h"
#include "routing/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void route_all_engines(struct topo *t)
{
	static const char *const engines[] = { "minhop", "updn", "ftree", "auto" };
	struct route_verify v;
	char err[256];

	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		struct route_opts o = { .engine = engines[i] };
		struct route_tables rt;
		if (route_compute(t, &o, &rt))
			continue;
		route_verify(t, &rt, &v, err, sizeof(err));
		route_tables_free(&rt);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo t;
	char err[256];

	if (size > 65536)
		return 0;
	if (topo_parse((const char *)data, size, &t, err, sizeof(err)))
		return 0;
	if (t.nnodes <= 64 && !topo_fill_lids(&t, (uint8_t)(size & 1), err, sizeof(err)))
		route_all_engines(&t);
	topo_free(&t);
	return 0;
}
