/*
 * DOC: libFuzzer target for the control socket's request decoder.
 *
 * Every input is one request line as the daemon would see it after framing
 * (at most CTL_MAX_REQUEST bytes). It goes through the strict decoder and,
 * for a command of the table, the argument check; the reply that would be
 * sent is built and serialized, so the whole path from untrusted bytes to
 * our output runs under ASan and UBSan. Traps on a broken rule: a reply
 * containing the framing delimiter, an accepted string holding a NUL (what
 * "h-000\u0000x" used to become), or an accepted request whose own
 * serialization by json-c is rejected (the strict check refusing JSON).
 * Oracles on the raw bytes, independent of the decoder, trap when it
 * accepts a NUL byte or a "\u0000" in any string, member names included
 * (json-c's keys are C strings and cannot show it), or a duplicate member
 * (json-c keeps one of the two: its members are fewer than the raw
 * text's); and when the argument check accepts an argument its command's
 * spec does not name.
 * Build with ./configure CC=clang --enable-fuzzing; run
 *   tests/fuzz/fuzz_ctl -dict=tests/fuzz/ctl.dict tests/fuzz/corpus/ctl
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "ctl/ctl_proto.h"

struct row {
	const char *name, *args;
};

#define ROW(n, acc, a, h) { #n, a },
static const struct row table[] = { CTL_COMMANDS(ROW) };
#undef ROW

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *spec_of(const char *cmd)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, cmd) == 0)
			return table[i].args;
	return NULL;
}

/* No string and no member name of an accepted request holds a NUL. */
static void no_nul(json_object *o)
{
	size_t n;

	switch (json_object_get_type(o)) {
	case json_type_string:
		if (strlen(json_object_get_string(o)) != (size_t)json_object_get_string_len(o))
			__builtin_trap();
		break;
	case json_type_array:
		n = json_object_array_length(o);
		for (size_t i = 0; i < n; i++)
			no_nul(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			no_nul(v);
		}
		break;
	}
	default:
		break;
	}
}

/* Members of all objects in o. */
static size_t members(json_object *o)
{
	size_t n = 0, len;

	switch (json_object_get_type(o)) {
	case json_type_array:
		len = json_object_array_length(o);
		for (size_t i = 0; i < len; i++)
			n += members(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			n += 1 + members(v);
		}
		break;
	}
	default:
		break;
	}
	return n;
}

static int hexval(uint8_t c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The raw text of an accepted request: no NUL byte, no "\u0000" escape,
 * and as many members (':' outside strings) as json-c's tree holds. */
static void raw_checks(const uint8_t *data, size_t size, json_object *root)
{
	size_t colons = 0;
	bool in_str = false;

	for (size_t i = 0; i < size; i++) {
		uint8_t c = data[i];
		int v = 0;

		if (c == 0)
			__builtin_trap();
		if (!in_str) {
			colons += c == ':';
			in_str = c == '"';
			continue;
		}
		if (c == '"') {
			in_str = false;
		} else if (c == '\\' && i + 1 < size) {
			if (data[++i] != 'u' || i + 4 >= size)
				continue;
			for (int k = 1; k <= 4; k++)
				v = v << 4 | (hexval(data[i + k]) & 0xf);
			if (v == 0)
				__builtin_trap();
		}
	}
	if (colons != members(root))
		__builtin_trap();
}

/* Every argument accepted for a command is named in its spec, unless the
 * spec takes any name ("*"). */
static void args_in_spec(const char *spec, json_object *args)
{
	char buf[256], *save = NULL;
	const char *names[16];
	size_t n = 0;

	if (!args)
		return;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *t = strtok_r(buf, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save)) {
		t += *t == '?' || *t == '!';
		if (strcmp(t, "*") == 0)
			return;
		names[n++] = t;
	}
	json_object_object_foreach(args, k, v) {
		size_t i = 0;

		(void)v;
		while (i < n && strcmp(names[i], k) != 0)
			i++;
		if (i == n)
			__builtin_trap();
	}
}

/* What json-c writes for an accepted request is accepted again. */
static void round_trip(json_object *root)
{
	struct ctl_request again;
	size_t len;
	const char *s = ctl_to_line(root, &len);

	if (len <= CTL_MAX_REQUEST && ctl_parse_request(s, len, &again) < 0)
		__builtin_trap();
	ctl_request_free(&again);
}

static json_object *decode(const uint8_t *data, size_t size, struct ctl_request *r)
{
	const char *spec;
	json_object *res;

	if (ctl_parse_request((const char *)data, size, r) < 0)
		return ctl_reply_error_field(r->id, r->err, r->errmsg, r->field);
	no_nul(r->root);
	raw_checks(data, size, r->root);
	round_trip(r->root);
	spec = spec_of(r->cmd);
	if (spec && ctl_check_args(r->cmd, spec, r->args, r) < 0)
		return ctl_reply_error_field(r->id, r->err, r->errmsg, r->field);
	if (spec)
		args_in_spec(spec, r->args);
	res = json_object_new_object();
	json_object_object_add(res, "cmd", json_object_new_string(r->cmd));
	if (r->args)
		json_object_object_add(res, "args", json_object_get(r->args));
	return ctl_reply_result(r->id, res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_request r;
	json_object *reply;
	size_t len;

	if (size > CTL_MAX_REQUEST + 16)
		return 0;
	reply = decode(data, size, &r);
	if (memchr(ctl_to_line(reply, &len), '\n', len))
		__builtin_trap();   /* would break framing */
	json_object_put(reply);
	ctl_request_free(&r);
	return 0;
}
