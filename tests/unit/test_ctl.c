/*
 * DOC: unit tests of the control protocol codec (ctl/ctl_proto.c,
 * ctl/ctl_json.c) and of the shared command and error tables
 * (include/ibsm/ctl_proto.h): strict request decoding and its error
 * replies, argument checks, framing of what we send (streamed replies
 * too), the access and admission rules, and the stability and
 * completeness of the tables.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctl/ctl_proto.h"

struct cmd_row {
	const char *name;
	enum ctl_access access;
	const char *args;
	const char *help;
};

#define ROW(n, acc, a, h) { #n, acc, a, h },
static const struct cmd_row table[] = { CTL_COMMANDS(ROW) };
#undef ROW
#define NROWS (sizeof(table) / sizeof(table[0]))

static int parse(const char *s, struct ctl_request *r)
{
	return ctl_parse_request(s, strlen(s), r);
}

static void test_parse_ok(void **state)
{
	struct ctl_request r;

	assert_int_equal(parse("{\"id\":7,\"cmd\":\"status\"}", &r), 0);
	assert_string_equal(r.cmd, "status");
	assert_int_equal(json_object_get_int(r.id), 7);
	assert_null(r.args);
	ctl_request_free(&r);

	assert_int_equal(parse(" {\"cmd\":\"lft\",\"id\":\"a\",\"args\":{\"switch\":\"S1\"}}  \r\n", &r), 0);
	assert_string_equal(json_object_get_string(r.id), "a");
	assert_non_null(r.args);
	ctl_request_free(&r);

	assert_int_equal(parse("{\"cmd\":\"nodes\",\"args\":null}", &r), 0);
	assert_null(r.id);
	assert_null(r.args);
	ctl_request_free(&r);
}

static void expect_err(const char *s, enum ctl_error code)
{
	struct ctl_request r;

	assert_int_equal(parse(s, &r), -1);
	assert_int_equal(r.err, code);
	assert_true(r.errmsg[0] != '\0');
	ctl_request_free(&r);
}

static void test_parse_errors(void **state)
{
	expect_err("{bad", CTL_E_parse_error);
	expect_err("", CTL_E_parse_error);
	expect_err("{\"cmd\":\"status\"", CTL_E_parse_error);
	expect_err("{\"cmd\":\"status\"} {}", CTL_E_parse_error);
	expect_err("{\"cmd\":\"status\"}x", CTL_E_parse_error);
	expect_err("[1,2]", CTL_E_invalid_request);
	expect_err("\"status\"", CTL_E_invalid_request);
	expect_err("{\"id\":1}", CTL_E_invalid_request);
	expect_err("{\"cmd\":5}", CTL_E_invalid_request);
	expect_err("{\"id\":{},\"cmd\":\"status\"}", CTL_E_invalid_request);
	expect_err("{\"id\":[1],\"cmd\":\"status\"}", CTL_E_invalid_request);
	expect_err("{\"cmd\":\"status\",\"args\":[1]}", CTL_E_invalid_args);
	expect_err("{\"cmd\":\"status\",\"args\":\"x\"}", CTL_E_invalid_args);
}

static void test_parse_keeps_id(void **state)
{
	struct ctl_request r;

	assert_int_equal(parse("{\"id\":42,\"cmd\":7}", &r), -1);
	assert_non_null(r.id);
	assert_int_equal(json_object_get_int(r.id), 42);
	ctl_request_free(&r);
}

static void test_parse_limits(void **state)
{
	struct ctl_request r;
	size_t n = CTL_MAX_REQUEST + 1;
	char *big = malloc(n + 1), *deep = malloc(4096);
	const char nul[] = "{\"cmd\":\"st\0atus\"}";

	memset(big, ' ', n);
	memcpy(big, "{\"cmd\":\"status\"}", 16);
	big[n] = '\0';
	assert_int_equal(ctl_parse_request(big, n, &r), -1);
	assert_int_equal(r.err, CTL_E_too_large);
	ctl_request_free(&r);
	/* the limit itself is still accepted */
	assert_int_equal(ctl_parse_request(big, CTL_MAX_REQUEST, &r), 0);
	ctl_request_free(&r);

	assert_int_equal(ctl_parse_request(nul, sizeof(nul) - 1, &r), -1);
	assert_int_equal(r.err, CTL_E_parse_error);
	ctl_request_free(&r);

	/* nesting beyond the tokener depth is refused, not recursed into */
	strcpy(deep, "{\"cmd\":\"x\",\"args\":{\"a\":");
	for (int i = 0; i < 1000; i++)
		strcat(deep, "[");
	assert_int_equal(parse(deep, &r), -1);
	assert_int_equal(r.err, CTL_E_parse_error);
	ctl_request_free(&r);
	free(big);
	free(deep);
}

/* err with the member named in field. */
static void expect_field(const char *s, enum ctl_error code, const char *field)
{
	struct ctl_request r;

	assert_int_equal(parse(s, &r), -1);
	assert_int_equal(r.err, code);
	assert_string_equal(r.field, field);
	assert_non_null(strstr(r.errmsg, field));
	ctl_request_free(&r);
}

/* Issue 17: a string is never cut at an embedded NUL, the last of two
 * same-named members never wins silently. */
static void test_parse_strict(void **state)
{
	struct ctl_request r;

	expect_field("{\"id\":1,\"cmd\":\"ports\",\"args\":{\"node\":\"h-000\\u0000x\"}}",
		     CTL_E_parse_error, "node");
	expect_field("{\"cmd\":\"status\\u0000\"}", CTL_E_parse_error, "cmd");
	expect_field("{\"cmd\":\"status\",\"a\\u0000b\":1}", CTL_E_parse_error, "");
	expect_field("{\"cmd\":\"status\",\"cmd\":\"sweep\"}", CTL_E_parse_error, "cmd");
	/* the same name after unescaping */
	expect_field("{\"cmd\":\"status\",\"\\u0063md\":\"sweep\"}", CTL_E_parse_error, "cmd");
	expect_field("{\"cmd\":\"path\",\"args\":{\"src\":\"a\",\"dst\":\"b\",\"src\":\"c\"}}",
		     CTL_E_parse_error, "src");
	/* nested: the innermost member is named */
	expect_field("{\"cmd\":\"x\",\"args\":{\"a\":[{\"b\":1,\"b\":2}]}}", CTL_E_parse_error, "b");
	/* same names in different objects are fine */
	assert_int_equal(parse("{\"id\":{\"id\":1}, \"cmd\":\"s\"}", &r), -1);
	assert_int_equal(r.err, CTL_E_invalid_request);   /* the id type, not a duplicate */
	ctl_request_free(&r);
	assert_int_equal(parse("{\"cmd\":\"x\",\"args\":{\"a\":{\"cmd\":1},\"b\":{\"cmd\":2}}}", &r), 0);
	ctl_request_free(&r);
	/* a rule broken after the id: the reply can still carry it */
	assert_int_equal(parse("{\"id\":9,\"cmd\":\"a\",\"cmd\":\"b\"}", &r), -1);
	assert_int_equal(json_object_get_int(r.id), 9);
	ctl_request_free(&r);
	/* ... but not when the id itself is duplicated: which one? */
	assert_int_equal(parse("{\"id\":9,\"id\":10,\"cmd\":\"a\"}", &r), -1);
	assert_null(r.id);
	assert_string_equal(r.field, "id");
	ctl_request_free(&r);
	/* non-ASCII survives, escaped or not */
	assert_int_equal(parse("{\"cmd\":\"s\",\"args\":{\"n\":\"\xc3\xa9\\u00e9\\ud83d\\ude00\"}}", &r), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(r.args, "n")),
			    "\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80");
	ctl_request_free(&r);
}

/* What json-c would let through and RFC 8259 does not. */
static void test_parse_not_json(void **state)
{
	static const char *const bad[] = {
		"{'cmd':'status'}", "{\"cmd\":\"status\",}", "{\"cmd\":\"status\"/*x*/}",
		"{\"cmd\":\"status\",\"id\":NaN}", "{\"cmd\":\"status\",\"id\":01}",
		"{\"cmd\":\"status\",\"id\":1.}", "{\"cmd\":\"status\",\"id\":+1}",
		"{\"cmd\":\"status\",\"id\":True}", "{\"cmd\":\"st\tatus\"}",
		"{\"cmd\":\"\\x41\"}", "{\"cmd\":\"\\u12\"}", "{cmd:\"status\"}",
		"{\"cmd\":\"status\"}}", "{\"cmd\" \"status\"}", "\"\\ud800\"",
		"{\"cmd\":\"\\udc00\"}", "{\"cmd\":\"\\ud800\\u0041\"}",
		"{\"cmd\":\"\xc0\xaf\"}", "{\"cmd\":\"\xed\xa0\x80\"}", "{\"cmd\":\"\xf4\x90\x80\x80\"}",
		"{\"cmd\":\"\xe2\x82\"}", "{\"cmd\":\"\x80\"}", "[1,]", "[,1]", "{,}", " ",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ctl_request r;

		if (parse(bad[i], &r) != -1 || r.err != CTL_E_parse_error)
			fail_msg("accepted or wrong code: %s", bad[i]);
		ctl_request_free(&r);
	}
}

static void test_parse_members(void **state)
{
	struct ctl_request r;
	char big[2048] = "{\"cmd\":\"s\",\"args\":{";

	expect_field("{\"id\":1,\"cmd\":\"status\",\"bogus\":1}", CTL_E_invalid_request, "bogus");
	expect_field("{\"id\":1,\"command\":\"status\"}", CTL_E_invalid_request, "command");
	expect_field("{\"id\":1}", CTL_E_invalid_request, "cmd");
	expect_field("{\"cmd\":\"status\",\"args\":[]}", CTL_E_invalid_args, "args");
	/* 64 members in an object are fine, 65 are not */
	for (int i = 0; i < 65; i++)
		snprintf(big + strlen(big), sizeof(big) - strlen(big), "%s\"a%d\":%d", i ? "," : "", i, i);
	strcat(big, "}}");
	assert_int_equal(parse(big, &r), -1);
	assert_int_equal(r.err, CTL_E_parse_error);
	ctl_request_free(&r);
	*strrchr(big, ',') = '\0';
	strcat(big, "}}");
	assert_int_equal(parse(big, &r), 0);
	ctl_request_free(&r);
}

/* err and field of ctl_check_args() on args (JSON text or NULL). */
static void check_args(const char *cmd, const char *args, int want, const char *field)
{
	json_object *a = args ? json_tokener_parse(args) : NULL;
	struct ctl_request r;
	const char *spec = NULL;

	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(table[i].name, cmd) == 0)
			spec = table[i].args;
	assert_non_null(spec);
	memset(&r, 0, sizeof(r));
	assert_int_equal(ctl_check_args(cmd, spec, a, &r), want);
	if (want < 0) {
		assert_int_equal(r.err, CTL_E_invalid_args);
		assert_string_equal(r.field, field);
	}
	if (a)
		json_object_put(a);
}

static void test_check_args(void **state)
{
	check_args("status", NULL, 0, NULL);
	check_args("status", "{}", 0, NULL);
	check_args("status", "{\"x\":1}", -1, "x");
	check_args("ports", "{\"node\":\"H1\"}", 0, NULL);
	check_args("ports", "{\"node\":null}", 0, NULL);
	check_args("ports", "{\"nodes\":\"H1\"}", -1, "nodes");
	check_args("ports", "{\"node\":[1]}", -1, "node");
	check_args("lft", "{\"switch\":17}", 0, NULL);      /* a LID */
	check_args("lft", NULL, -1, "switch");
	check_args("lft", "{\"switch\":null}", -1, "switch");
	check_args("path", "{\"src\":\"a\"}", -1, "dst");
	check_args("path", "{\"src\":\"a\",\"dst\":\"b\"}", 0, NULL);
	check_args("sweep", "{\"wait\":true}", 0, NULL);
	check_args("sweep", "{\"wait\":\"yes\"}", -1, "wait");
	check_args("sweep", "{\"wait\":1}", -1, "wait");
	check_args("ar", "{\"what\":\"status\",\"switch\":\"S1\",\"extra\":1}", -1, "extra");
	/* a name that is a prefix of a known one, or contains one */
	check_args("path", "{\"sr\":\"a\",\"dst\":\"b\"}", -1, "sr");
	check_args("path", "{\"src dst\":\"a\"}", -1, "src dst");
}

static void test_reply_field(void **state)
{
	json_object *rep = ctl_reply_error_field(NULL, CTL_E_invalid_args, "m", "node"), *e;

	e = json_object_object_get(rep, CTL_F_ERROR);
	assert_string_equal(json_object_get_string(json_object_object_get(e, CTL_F_FIELD)), "node");
	json_object_put(rep);
	rep = ctl_reply_error_field(NULL, CTL_E_invalid_args, "m", "");
	e = json_object_object_get(rep, CTL_F_ERROR);
	assert_false(json_object_object_get_ex(e, CTL_F_FIELD, NULL));
	json_object_put(rep);
	/* a message cut inside a UTF-8 sequence loses the partial character */
	rep = ctl_reply_error(NULL, CTL_E_not_found, "no node \"\xc3\xa9\xe2\x82");
	e = json_object_object_get(rep, CTL_F_ERROR);
	assert_string_equal(json_object_get_string(json_object_object_get(e, CTL_F_MESSAGE)),
			    "no node \"\xc3\xa9");
	json_object_put(rep);
}

static void test_reply_result(void **state)
{
	json_object *id = json_object_new_int(3), *res = json_object_new_object(), *rep, *v;
	const char *s;
	size_t len;

	json_object_object_add(res, "text", json_object_new_string("two\nlines"));
	rep = ctl_reply_result(id, res);
	assert_true(json_object_object_get_ex(rep, CTL_F_ID, &v));
	assert_int_equal(json_object_get_int(v), 3);
	assert_true(json_object_object_get_ex(rep, CTL_F_RESULT, NULL));
	assert_false(json_object_object_get_ex(rep, CTL_F_ERROR, NULL));
	/* framing: a message never contains the delimiter */
	s = ctl_to_line(rep, &len);
	assert_null(memchr(s, '\n', len));
	assert_int_equal(strlen(s), len);
	json_object_put(rep);
	json_object_put(id);
}

static void test_reply_error(void **state)
{
	json_object *rep = ctl_reply_error(NULL, CTL_E_permission_denied, NULL), *e, *v;

	assert_true(json_object_object_get_ex(rep, CTL_F_ID, &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(rep, CTL_F_ERROR, &e));
	assert_false(json_object_object_get_ex(rep, CTL_F_RESULT, NULL));
	assert_string_equal(json_object_get_string(json_object_object_get(e, CTL_F_CODE)),
			    "permission_denied");
	assert_string_equal(json_object_get_string(json_object_object_get(e, CTL_F_MESSAGE)),
			    ctl_error_meaning(CTL_E_permission_denied));
	json_object_put(rep);

	rep = ctl_reply_error(NULL, CTL_E_not_found, "no node \"x\"");
	e = json_object_object_get(rep, CTL_F_ERROR);
	assert_string_equal(json_object_get_string(json_object_object_get(e, CTL_F_MESSAGE)),
			    "no node \"x\"");
	json_object_put(rep);
}

/* A streamed reply is byte for byte what the whole one would be. */
static void expect_stream(json_object *id, const char *key, int nitems)
{
	json_object *a = json_object_new_array(), *res = json_object_new_object(), *rep;
	char *whole, *head, buf[4096];
	size_t len, hlen, used;

	for (int i = 0; i < nitems; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "i", json_object_new_int(i));
		json_object_object_add(o, "s", json_object_new_string("a/\"b\"\n"));
		json_object_array_add(a, o);
	}
	json_object_object_add(res, key, a);
	rep = ctl_reply_result(id, res);
	whole = strdup(ctl_to_line(rep, &len));
	head = ctl_stream_head(id, key, &hlen);
	memcpy(buf, head, hlen);
	used = hlen;
	for (int i = 0; i < nitems; i++) {
		const char *s = json_object_to_json_string_ext(json_object_array_get_idx(a, (size_t)i),
							       JSON_C_TO_STRING_PLAIN);

		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "," : "", s);
	}
	used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s", CTL_STREAM_TAIL);
	assert_int_equal(used, len + 1);
	assert_memory_equal(buf, whole, len);
	assert_int_equal(buf[len], '\n');
	free(head);
	free(whole);
	json_object_put(rep);
}

static void test_stream_framing(void **state)
{
	json_object *n = json_object_new_int(42), *s = json_object_new_string("x/\"y\"\u00e9");

	expect_stream(n, "nodes", 3);
	expect_stream(s, "links", 1);
	expect_stream(NULL, "ports", 0);
	json_object_put(n);
	json_object_put(s);
}

static void test_admit(void **state)
{
	struct ctl_limits l = { .max_clients = 64, .per_uid = 16, .admin_slots = 8 };
	struct ctl_counts n = { 0, 0, 0 };
	char why[160];

	assert_int_equal(ctl_admit(&l, &n, false, why, sizeof(why)), 0);
	/* one user at the per-uid limit; another user still gets in */
	n = (struct ctl_counts){ 16, 16, 16 };
	assert_int_equal(ctl_admit(&l, &n, false, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "max_clients_per_uid 16"));
	n.same_uid = 0;
	assert_int_equal(ctl_admit(&l, &n, false, why, sizeof(why)), 0);
	/* users without admin rights hold 56: the last 8 are for admins */
	n = (struct ctl_counts){ 56, 56, 3 };
	assert_int_equal(ctl_admit(&l, &n, false, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "admin_clients 8"));
	assert_int_equal(ctl_admit(&l, &n, true, why, sizeof(why)), 0);
	/* admins hold some too: everybody else still gets only 56 */
	n = (struct ctl_counts){ 60, 55, 0 };
	assert_int_equal(ctl_admit(&l, &n, false, why, sizeof(why)), 0);
	/* all full: even an admin is refused */
	n = (struct ctl_counts){ 64, 56, 0 };
	assert_int_equal(ctl_admit(&l, &n, true, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "max_clients 64"));
	/* more reserved slots than slots: admins only */
	l.admin_slots = 100;
	n = (struct ctl_counts){ 0, 0, 0 };
	assert_int_equal(ctl_admit(&l, &n, false, why, sizeof(why)), -1);
	assert_int_equal(ctl_admit(&l, &n, true, why, sizeof(why)), 0);
}

/* Codes are part of the interface: this list may only grow at the end. */
static void test_error_codes_stable(void **state)
{
	static const char *const expected[] = {
		"parse_error", "invalid_request", "unknown_command", "invalid_args",
		"permission_denied", "not_found", "not_ready", "too_large", "failed", "busy",
		"internal", "idle_timeout", "reply_too_large", "not_master",
	};

	assert_true(CTL_E_COUNT >= sizeof(expected) / sizeof(expected[0]));
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		assert_string_equal(ctl_error_name((enum ctl_error)i), expected[i]);
	for (int i = 0; i < CTL_E_COUNT; i++) {
		assert_true(strlen(ctl_error_meaning((enum ctl_error)i)) > 0);
		for (int k = 0; k < i; k++)
			assert_string_not_equal(ctl_error_name((enum ctl_error)i),
						ctl_error_name((enum ctl_error)k));
	}
	assert_string_equal(ctl_error_name((enum ctl_error)999), "internal");
}

static void test_hello_and_event(void **state)
{
	json_object *h = ctl_hello_new("1.0", false), *e, *v;

	assert_true(json_object_object_get_ex(h, CTL_F_PROTO, &v));
	assert_int_equal(json_object_get_int(v), CTL_PROTOCOL_VERSION);
	assert_false(json_object_get_boolean(json_object_object_get(h, "admin")));
	json_object_put(h);
	e = ctl_event_new(CTL_EV_SWEEP_DONE, 12.5, NULL);
	assert_false(json_object_object_get_ex(e, CTL_F_ID, NULL));
	assert_string_equal(json_object_get_string(json_object_object_get(e, CTL_F_EVENT)),
			    "sweep_done");
	json_object_put(e);
}

static void test_access(void **state)
{
	struct ctl_peer p = { .uid = 1000, .gid = 1000 };

	assert_false(ctl_peer_is_admin(&p, 0, false, 0));
	assert_true(ctl_peer_is_admin(&p, 1000, false, 0));    /* the daemon's own user */
	assert_false(ctl_peer_is_admin(&p, 0, true, 50));
	p.gid = 50;
	assert_true(ctl_peer_is_admin(&p, 0, true, 50));       /* primary group */
	assert_false(ctl_peer_is_admin(&p, 0, false, 50));     /* no group configured */
	p.gid = 1000;
	p.ngroups = 2;
	p.groups[0] = 7;
	p.groups[1] = 50;
	assert_true(ctl_peer_is_admin(&p, 0, true, 50));       /* supplementary */
	p.uid = 0;
	p.ngroups = 0;
	assert_true(ctl_peer_is_admin(&p, 1234, true, 50));    /* root */
	assert_true(ctl_access_allowed(CTL_RO, false));
	assert_false(ctl_access_allowed(CTL_ADMIN, false));
	assert_true(ctl_access_allowed(CTL_ADMIN, true));
}

static bool arg_spec_ok(const char *spec)
{
	for (const char *p = spec; *p; p++)
		if (!(*p == ' ' || *p == '?' || *p == '!' || *p == '_' || *p == '*' ||
		      (*p >= 'a' && *p <= 'z')))
			return false;
	return true;
}

static const struct cmd_row *row(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

/* The commands of the issue exist, the mutating ones need admin, the rest
 * do not, and every row is documented. */
static void test_table_complete(void **state)
{
	static const char *const ro[] = { "status", "nodes", "switches", "ports", "links", "lft",
					  "path", "routing", "ar", "subscribe", "commands", "sa",
					  "mcast", "tables", "sms", "health", "counters" };
	static const char *const admin[] = { "sweep", "reroute", "reload", "loglevel",
					     "mcast_join", "mcast_leave", "handover" };

	assert_int_equal(NROWS, sizeof(ro) / sizeof(ro[0]) + sizeof(admin) / sizeof(admin[0]));
	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		assert_non_null(row(ro[i]));
		assert_int_equal(row(ro[i])->access, CTL_RO);
	}
	for (size_t i = 0; i < sizeof(admin) / sizeof(admin[0]); i++) {
		assert_non_null(row(admin[i]));
		assert_int_equal(row(admin[i])->access, CTL_ADMIN);
	}
	for (size_t i = 0; i < NROWS; i++) {
		assert_true(strlen(table[i].help) > 10);
		assert_true(arg_spec_ok(table[i].args));
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(table[i].name, table[k].name);
	}
}

/* A reply array under a byte budget: items go in while the serialized
 * array fits, the one that would pass it is refused (and freed). */
static void test_capped_array(void **state)
{
	struct ctl_capped cap;
	size_t len = 0, n = 0;

	ctl_capped_init(&cap, 1000);
	while (ctl_capped_add(&cap, json_object_new_string("0123456789012345678")) == 0)
		n++;
	/* "...": 21 bytes, and a comma */
	assert_int_equal(n, (1000 - 2) / 22);
	json_object_to_json_string_length(cap.arr, JSON_C_TO_STRING_PLAIN, &len);
	assert_true(len <= 1000);
	assert_int_equal(json_object_array_length(cap.arr), n);
	json_object_put(cap.arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_keeps_id),
		cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_parse_strict),
		cmocka_unit_test(test_parse_not_json),
		cmocka_unit_test(test_parse_members),
		cmocka_unit_test(test_check_args),
		cmocka_unit_test(test_reply_field),
		cmocka_unit_test(test_stream_framing),
		cmocka_unit_test(test_admit),
		cmocka_unit_test(test_reply_result),
		cmocka_unit_test(test_reply_error),
		cmocka_unit_test(test_error_codes_stable),
		cmocka_unit_test(test_hello_and_event),
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_table_complete),
		cmocka_unit_test(test_capped_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
