/*
 * DOC: libFuzzer target for the control socket's request decoder.
 *
 * Every input is one request line as the daemon would see it after framing
 * (at most CTL_MAX_REQUEST bytes). Whatever it decodes to, the reply that
 * would be sent is built and serialized, so the whole path from untrusted
 * bytes to our output runs under ASan and UBSan. Build with
 * ./configure CC=clang --enable-fuzzing; run
 *   tests/fuzz/fuzz_ctl -dict=tests/fuzz/ctl.dict tests/fuzz/corpus/ctl
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ctl/ctl_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_request r;
	json_object *reply;
	size_t len;

	if (size > CTL_MAX_REQUEST + 16)
		return 0;
	if (ctl_parse_request((const char *)data, size, &r) == 0) {
		json_object *res = json_object_new_object();

		json_object_object_add(res, "cmd", json_object_new_string(r.cmd));
		if (r.args)
			json_object_object_add(res, "args", json_object_get(r.args));
		reply = ctl_reply_result(r.id, res);
	} else {
		reply = ctl_reply_error(r.id, r.err, r.errmsg);
	}
	if (memchr(ctl_to_line(reply, &len), '\n', len))
		__builtin_trap();   /* would break framing */
	json_object_put(reply);
	ctl_request_free(&r);
	return 0;
}
