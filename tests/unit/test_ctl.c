/*
 * DOC: unit tests of the control protocol codec (ctl/ctl_proto.c) and of
 * the shared command and error tables (include/ibsm/ctl_proto.h): request
 * decoding and its error replies, framing of what we send, the access rule,
 * and the stability and completeness of the tables.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

/* Codes are part of the interface: this list may only grow at the end. */
static void test_error_codes_stable(void **state)
{
	static const char *const expected[] = {
		"parse_error", "invalid_request", "unknown_command", "invalid_args",
		"permission_denied", "not_found", "not_ready", "too_large", "failed", "busy",
		"internal",
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
		if (!(*p == ' ' || *p == '?' || *p == '!' || *p == '_' || (*p >= 'a' && *p <= 'z')))
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
					  "path", "routing", "ar", "subscribe", "commands",
					  "mcast", "tables" };
	static const char *const admin[] = { "sweep", "reroute", "reload", "loglevel",
					     "mcast_join", "mcast_leave" };

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_keeps_id),
		cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_reply_result),
		cmocka_unit_test(test_reply_error),
		cmocka_unit_test(test_error_codes_stable),
		cmocka_unit_test(test_hello_and_event),
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_table_complete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
