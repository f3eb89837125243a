/*
 * DOC: libFuzzer target for the clients state file parser
 * (sm/clientfile.c): the file a restarted daemon reads from state_dir,
 * which a disk error, an operator's editor or another program may have
 * damaged in any way. Whatever the input, the parser must return an
 * error or a value that passes client_state_check(), within the limits,
 * and that value must survive its own round trip unchanged (a version 1
 * file comes back as version 2). Small limits make the fuzzer reach the
 * per-port (groups by creator, memberships by maker, services, subscriptions),
 * per-partition and total caps.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm/clientfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct client_limits lim = { .groups = 64, .members = 256, .tsw = 256, .services = 16,
				     .subs = 16, .groups_per_port = 4, .memberships_per_port = 8,
				     .services_per_owner = 4, .subs_per_port = 4,
				     .groups_per_partition = 6 };
	struct client_state cs, again;
	char err[256], *text;
	size_t len, len2;

	if (size > (1u << 20))
		return 0;
	if (client_state_parse(&cs, "f", (const char *)data, size, &lim, err, sizeof(err)) < 0) {
		if (cs.ngroups || cs.nmembers || cs.ntsw || cs.nservices || cs.nsubs || !err[0])
			abort();
		return 0;
	}
	if (client_state_check(&cs, &lim, "f", err, sizeof(err)) < 0)
		abort();
	text = client_state_format(&cs, &len);
	if (client_state_parse(&again, "f", text, len, &lim, err, sizeof(err)) < 0)
		abort();
	free(text);
	text = client_state_format(&again, &len2);
	if (len2 != len)
		abort();
	free(text);
	client_state_free(&again);
	client_state_free(&cs);
	return 0;
}
