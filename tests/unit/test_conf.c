/*
 * DOC: unit tests of conf/: defaults, the option table, each value type,
 * the line syntax with its exact "FILE:LINE: message" errors, size limits,
 * conf_load_file (regular files only), conf_set, conf_dump round trip and conf_diff.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"

/* Parse text as "t.conf"; the caller frees c and errs. */
static int parse(const char *text, struct sm_conf *c, struct conf_errors *e)
{
	conf_errors_init(e);
	return conf_parse_buf(c, "t.conf", text, strlen(text), e);
}

/* text must give exactly one error, msg. */
static void expect_one_error(const char *text, const char *msg)
{
	struct conf_errors e;
	struct sm_conf c;

	assert_int_equal(parse(text, &c, &e), 1);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], msg);
	conf_errors_free(&e);
	conf_free(&c);
}

/* text must parse cleanly; returns the config (free it). */
static struct sm_conf parse_ok(const char *text)
{
	struct conf_errors e;
	struct sm_conf c;
	int n = parse(text, &c, &e);

	if (n)
		conf_errors_print(&e, stderr);
	assert_int_equal(n, 0);
	conf_errors_free(&e);
	return c;
}

static void test_defaults(void **state)
{
	struct sm_conf c;

	conf_defaults(&c);
	assert_string_equal(c.ca, "");
	assert_int_equal(c.port, 0);
	assert_int_equal(c.sweep_interval, 0);
	assert_int_equal(c.light_sweep_interval, 10);
	assert_int_equal(c.routing_engine, CONF_ROUTE_AUTO);
	assert_int_equal(c.root_guids.n, 0);
	assert_null(c.root_guids.v);
	assert_true(c.subnet_prefix == 0xfe80000000000000ULL);
	assert_int_equal(c.subnet_timeout, 18);
	assert_int_equal(c.max_op_vls, 5);
	assert_int_equal(c.smp_window, 64);
	assert_int_equal(c.smp_per_dest, 4);
	assert_int_equal(c.smp_timeout_ms, 200);
	assert_int_equal(c.smp_retries, 3);
	assert_string_equal(c.state_dir, "/var/lib/ibsmd");
	assert_string_equal(c.socket_path, "/run/ibsmd/ibsmd.sock");
	assert_string_equal(c.socket_group, "");
	assert_int_equal(c.max_clients, 64);
	assert_int_equal(c.log_level, CONF_LOG_INFO);
	assert_false(c.ar_enable);
	assert_int_equal(c.ar_mode, CONF_AR_FREE);
	assert_true(c.ar_sl_mask == 0xffff);
	assert_true(c.ar_transport_mask == 0xa);
	conf_free(&c);
	assert_null(c.ca);
}

/* Names unique, help present, C enums in the order of the value lists. */
static void test_table(void **state)
{
	size_t n = conf_opt_count();

	assert_true(n >= 30);
	assert_null(conf_opt_at(n));
	for (size_t i = 0; i < n; i++) {
		const struct conf_opt *o = conf_opt_at(i);

		assert_ptr_equal(conf_opt_find(o->name), o);
		assert_true(strlen(o->help) > 10);
		assert_true(o->off < sizeof(struct sm_conf));
	}
	assert_null(conf_opt_find("nope"));
	assert_string_equal(conf_enum_name(conf_opt_find("log_level"), CONF_LOG_ERR), "err");
	assert_string_equal(conf_enum_name(conf_opt_find("log_level"), CONF_LOG_DEBUG), "debug");
	assert_null(conf_enum_name(conf_opt_find("log_level"), CONF_LOG_DEBUG + 1));
	assert_string_equal(conf_enum_name(conf_opt_find("routing_engine"), CONF_ROUTE_MINHOP), "minhop");
	assert_string_equal(conf_enum_name(conf_opt_find("routing_engine"), CONF_ROUTE_UPDN), "updn");
	assert_string_equal(conf_enum_name(conf_opt_find("routing_engine"), CONF_ROUTE_FTREE), "ftree");
	assert_null(conf_enum_name(conf_opt_find("routing_engine"), CONF_ROUTE_FTREE + 1));
	assert_string_equal(conf_enum_name(conf_opt_find("ar_mode"), CONF_AR_BOUNDED), "bounded");
	assert_null(conf_enum_name(conf_opt_find("port"), 0));
}

static void test_bool(void **state)
{
	struct sm_conf c = parse_ok("ar_enable On\n");

	assert_true(c.ar_enable);
	conf_free(&c);
	c = parse_ok("ar_enable 0\n");
	assert_false(c.ar_enable);
	conf_free(&c);
	expect_one_error("\nar_enable y\n",
			 "t.conf:2: ar_enable: invalid boolean 'y' (use yes or no)");
}

static void test_uint(void **state)
{
	struct sm_conf c = parse_ok("port 254\nsweep_interval 0\nar_ageing_time_us 4294967295\n");

	assert_int_equal(c.port, 254);
	assert_int_equal(c.sweep_interval, 0);
	assert_true(c.ar_ageing_time_us == 4294967295u);
	conf_free(&c);
	expect_one_error("port 255", "t.conf:1: port: 255 is out of range 0..254");
	expect_one_error("smp_window 0", "t.conf:1: smp_window: 0 is out of range 1..1024");
	expect_one_error("ar_ageing_time_us 4294967296",
			 "t.conf:1: ar_ageing_time_us: 4294967296 is out of range 0..4294967295");
	expect_one_error("lmc 18446744073709551616",
			 "t.conf:1: lmc: 18446744073709551616 is out of range 0..7");
	expect_one_error("lmc -0", "t.conf:1: lmc: invalid number '-0'");
	expect_one_error("lmc +1", "t.conf:1: lmc: invalid number '+1'");
	expect_one_error("lmc 0x1", "t.conf:1: lmc: invalid number '0x1'");
	expect_one_error("lmc 1 2", "t.conf:1: lmc: invalid number '1 2'");
}

static void test_hex(void **state)
{
	struct sm_conf c = parse_ok("m_key 0xFFFFFFFFFFFFFFFF\nsm_key 12ab\nar_sl_mask 0x0000ffff\n");

	assert_true(c.m_key == UINT64_MAX);
	assert_true(c.sm_key == 0x12ab);
	assert_true(c.ar_sl_mask == 0xffff);
	conf_free(&c);
	expect_one_error("m_key 0x", "t.conf:1: m_key: invalid hex number '0x'");
	expect_one_error("m_key 0x1FFFFFFFFFFFFFFFF",
			 "t.conf:1: m_key: invalid hex number '0x1FFFFFFFFFFFFFFFF'");
	expect_one_error("ar_sl_mask 0x10000",
			 "t.conf:1: ar_sl_mask: 0x10000 is out of range 0x0..0xffff");
}

static void test_string(void **state)
{
	char text[256];
	struct sm_conf c = parse_ok("ca mlx5_0\nsocket_group \"\"\nstate_dir \"/a b\"\n");

	assert_string_equal(c.ca, "mlx5_0");
	assert_string_equal(c.socket_group, "");
	assert_string_equal(c.state_dir, "/a b");
	conf_free(&c);
	/* socket_path is limited by sockaddr_un.sun_path (108 with the NUL) */
	snprintf(text, sizeof(text), "socket_path /%0106d\n", 0);
	c = parse_ok(text);
	assert_int_equal(strlen(c.socket_path), 107);
	conf_free(&c);
	snprintf(text, sizeof(text), "socket_path /%0107d\n", 0);
	expect_one_error(text, "t.conf:1: socket_path: longer than 107 bytes");
	expect_one_error("state_dir var", "t.conf:1: state_dir: must be an absolute path");
	expect_one_error("ca \"a\x1b[2Jb\"", "t.conf:1: ca: control character in value");
}

static void test_enum(void **state)
{
	struct sm_conf c = parse_ok("routing_engine minhop\nlog_level err\nar_mode bounded\n");

	assert_int_equal(c.routing_engine, CONF_ROUTE_MINHOP);
	assert_int_equal(c.log_level, CONF_LOG_ERR);
	assert_int_equal(c.ar_mode, CONF_AR_BOUNDED);
	conf_free(&c);
	expect_one_error("log_level loud",
			 "t.conf:1: log_level: invalid value 'loud' "
			 "(one of: err, warning, notice, info, debug)");
}

static void test_guids(void **state)
{
	struct sm_conf c = parse_ok("root_guids 0x2, 0x1\t0xFFFFFFFFFFFFFFFF,\n");

	assert_int_equal(c.root_guids.n, 3);
	assert_true(c.root_guids.v[0] == 2 && c.root_guids.v[1] == 1);
	assert_true(c.root_guids.v[2] == UINT64_MAX);
	conf_free(&c);
	expect_one_error("root_guids 0x1,0x0", "t.conf:1: root_guids: invalid GUID '0x0'");
	expect_one_error("root_guids 0x1,,zz", "t.conf:1: root_guids: invalid GUID 'zz'");
	expect_one_error("root_guids 0x1 0x01",
			 "t.conf:1: root_guids: GUID 0x0000000000000001 listed twice");
	expect_one_error("root_guids 0x11111111111111111",
			 "t.conf:1: root_guids: invalid GUID '0x11111111111111111'");
}

static void test_syntax(void **state)
{
	struct sm_conf c = parse_ok("# c\n\n  \t\nport=1\nlmc =2 # x\nsm_priority\t3#x\r\n"
				    "ca \"#not comment\" # comment\nsocket_group \"q\\\"b\\\\\"");

	assert_int_equal(c.port, 1);
	assert_int_equal(c.lmc, 2);
	assert_int_equal(c.sm_priority, 3);
	assert_string_equal(c.ca, "#not comment");
	assert_string_equal(c.socket_group, "q\"b\\");
	conf_free(&c);
	expect_one_error("port", "t.conf:1: port: missing value");
	expect_one_error("port = # x", "t.conf:1: port: missing value");
	expect_one_error("port:1", "t.conf:1: expected 'key value' or 'key = value', got 'port:1'");
	expect_one_error("ca \"x", "t.conf:1: ca: missing closing quote");
	expect_one_error("ca \"x\" y", "t.conf:1: ca: text after closing quote");
	expect_one_error("ca \"\\n\"",
			 "t.conf:1: ca: invalid escape in quoted value (only \\\" and \\\\)");
}

static void test_unknown_and_duplicate(void **state)
{
	struct conf_errors e;
	struct sm_conf c;

	assert_int_equal(parse("port 1\nbogus 2\nport 2\n\nport x\n", &c, &e), 3);
	assert_int_equal(e.n, 3);
	assert_string_equal(e.msg[0], "t.conf:2: unknown key 'bogus'");
	assert_string_equal(e.msg[1], "t.conf:3: duplicate key 'port' (first set on line 1)");
	assert_string_equal(e.msg[2], "t.conf:5: duplicate key 'port' (first set on line 1)");
	assert_int_equal(c.port, 1);
	conf_errors_free(&e);
	conf_free(&c);
}

/* Errors past CONF_MAX_ERRORS are counted, not kept. */
static void test_error_cap(void **state)
{
	struct conf_errors e;
	struct sm_conf c;
	char text[1000] = "";

	for (int i = 0; i < 25; i++)
		strcat(text, "lmc 9\n");
	assert_int_equal(parse(text, &c, &e), 25);
	assert_int_equal(e.n, CONF_MAX_ERRORS);
	assert_int_equal(e.dropped, 5);
	assert_string_equal(e.msg[0], "t.conf:1: lmc: 9 is out of range 0..7");
	conf_errors_free(&e);
	conf_free(&c);
}

static void test_limits(void **state)
{
	char *buf = malloc(CONF_MAX_FILE + 1);
	struct conf_errors e;
	struct sm_conf c;
	size_t n;

	/* a comment line of exactly CONF_MAX_LINE bytes is fine, one more is not */
	memset(buf, '#', CONF_MAX_LINE);
	buf[CONF_MAX_LINE] = '\n';
	memset(buf + CONF_MAX_LINE + 1, '#', CONF_MAX_LINE + 1);
	n = 2 * CONF_MAX_LINE + 2;
	memcpy(buf + n, "\nport 300\n", 10);
	conf_errors_init(&e);
	assert_int_equal(conf_parse_buf(&c, "t.conf", buf, n + 10, &e), 2);
	assert_string_equal(e.msg[0], "t.conf:2: line too long (more than 4096 bytes)");
	assert_string_equal(e.msg[1], "t.conf:3: port: 300 is out of range 0..254");
	conf_errors_free(&e);
	conf_free(&c);

	assert_int_equal(conf_parse_buf(&c, "t.conf", "port 1\0x\nlmc 9", 14, &e), 2);
	assert_string_equal(e.msg[0], "t.conf:1: NUL byte in line");
	assert_string_equal(e.msg[1], "t.conf:2: lmc: 9 is out of range 0..7");
	conf_errors_free(&e);
	conf_free(&c);

	memset(buf, '\n', CONF_MAX_FILE + 1);
	assert_int_equal(conf_parse_buf(&c, "t.conf", buf, CONF_MAX_FILE, &e), 0);
	conf_free(&c);
	assert_int_equal(conf_parse_buf(&c, "t.conf", buf, CONF_MAX_FILE + 1, &e), 1);
	assert_string_equal(e.msg[0], "t.conf: file too large (more than 1048576 bytes)");
	assert_int_equal(c.light_sweep_interval, 10);   /* still the defaults */
	conf_errors_free(&e);
	conf_free(&c);
	free(buf);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/test_conf.XXXXXX";
	struct conf_errors e;
	struct sm_conf c;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "lmc 2\nport 999\n", 15), 15);
	close(fd);
	conf_errors_init(&e);
	assert_int_equal(conf_load_file(&c, path, &e), 1);
	assert_int_equal(c.lmc, 2);
	assert_true(strstr(e.msg[0], ":2: port: 999 is out of range 0..254") != NULL);
	assert_true(strncmp(e.msg[0], path, strlen(path)) == 0);
	conf_errors_free(&e);
	conf_free(&c);
	unlink(path);

	assert_int_equal(conf_load_file(&c, path, &e), 1);
	assert_int_equal(e.n, 1);
	assert_true(strstr(e.msg[0], ": No such file or directory") != NULL);
	assert_int_equal(c.smp_window, 64);   /* still the defaults */
	conf_errors_free(&e);
	conf_free(&c);
}

/* One error containing want, and c keeps the defaults. */
static void expect_load_error(const char *path, const char *want)
{
	struct conf_errors e;
	struct sm_conf c;

	conf_errors_init(&e);
	assert_int_equal(conf_load_file(&c, path, &e), 1);
	assert_int_equal(e.n, 1);
	if (!strstr(e.msg[0], want))
		fail_msg("\"%s\" does not contain \"%s\"", e.msg[0], want);
	assert_int_equal(c.smp_window, 64);
	conf_errors_free(&e);
	conf_free(&c);
}

/* Only regular files are read: a FIFO without a writer would block the
 * caller (the event loop, on reload) for ever. */
static void test_load_not_regular(void **state)
{
	char dir[] = "/tmp/test_conf.XXXXXX", path[64], link[64];
	struct conf_errors e;
	struct sm_conf c;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_load_error(path, "a FIFO, not a regular file");
	unlink(path);
	expect_load_error(dir, "a directory, not a regular file");
	expect_load_error("/dev/null", "a device, not a regular file");
	snprintf(path, sizeof(path), "%s/big", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("lmc 1\n", f);
	/* sparse: the size alone rejects it, nothing is read */
	assert_int_equal(fseek(f, 64L << 20, SEEK_SET), 0);
	fputc('\n', f);
	fclose(f);
	expect_load_error(path, "file too large (more than 1048576 bytes)");
	/* a symlink to a regular file is read */
	assert_int_equal(truncate(path, 6), 0);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	conf_errors_init(&e);
	assert_int_equal(conf_load_file(&c, link, &e), 0);
	assert_int_equal(c.lmc, 1);
	conf_errors_free(&e);
	conf_free(&c);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

static void test_set(void **state)
{
	struct sm_conf c;
	char err[128];

	conf_defaults(&c);
	assert_int_equal(conf_set(&c, "ca", "mlx5_3", err, sizeof(err)), 0);
	assert_int_equal(conf_set(&c, "ca", "mlx5_4", err, sizeof(err)), 0);
	assert_string_equal(c.ca, "mlx5_4");
	assert_int_equal(conf_set(&c, "root_guids", "0x5,0x6", err, sizeof(err)), 0);
	assert_int_equal(conf_set(&c, "root_guids", "0x7", err, sizeof(err)), 0);
	assert_int_equal(c.root_guids.n, 1);
	assert_int_equal(conf_set(&c, "lmc", "8", err, sizeof(err)), -1);
	assert_string_equal(err, "lmc: 8 is out of range 0..7");
	assert_int_equal(c.lmc, 0);
	assert_int_equal(conf_set(&c, "root_guids", "0x7,0", err, sizeof(err)), -1);
	assert_true(c.root_guids.n == 1 && c.root_guids.v[0] == 7);
	assert_int_equal(conf_set(&c, "nope", "1", err, sizeof(err)), -1);
	assert_string_equal(err, "unknown key 'nope'");
	conf_free(&c);
}

/* The dump of a non-default config parses back to the same config. */
static void test_dump_roundtrip(void **state)
{
	struct sm_conf a = parse_ok("ca \"x \\\"y\\\" #z\"\nroot_guids 0x1,0x2\nlmc 3\n"
				    "ar_enable yes\nlog_level debug\nm_key 0xabc\n");
	struct conf_change ch[4];
	struct conf_errors e;
	struct sm_conf b;
	char *text = NULL, *again = NULL;
	size_t len = 0, len2 = 0;
	FILE *f = open_memstream(&text, &len);

	conf_dump(&a, f);
	fclose(f);
	assert_true(strstr(text, "\nlmc 3\n") != NULL);
	assert_true(strstr(text, "\nca \"x \\\"y\\\" #z\"\n") != NULL);
	conf_errors_init(&e);
	assert_int_equal(conf_parse_buf(&b, "dump", text, len, &e), 0);
	assert_int_equal(conf_diff(&a, &b, ch, 4), 0);
	f = open_memstream(&again, &len2);
	conf_dump(&b, f);
	fclose(f);
	assert_string_equal(text, again);
	free(text);
	free(again);
	conf_free(&a);
	conf_free(&b);
}

static void test_format_value(void **state)
{
	const struct conf_opt *o = conf_opt_find("subnet_prefix");
	struct sm_conf c;
	char buf[8], syn[64];

	conf_defaults(&c);
	assert_int_equal(conf_format_value(&c, o, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "0xfe800");
	conf_opt_syntax(conf_opt_find("sweep_interval"), syn, sizeof(syn));
	assert_string_equal(syn, "integer 0..86400 (s)");
	conf_opt_syntax(conf_opt_find("ar_mode"), syn, sizeof(syn));
	assert_string_equal(syn, "one of free, bounded");
	conf_free(&c);
}

static void test_diff(void **state)
{
	struct sm_conf a = parse_ok("port 1\nroot_guids 0x1\n");
	struct sm_conf b = parse_ok("port 2\nroot_guids 0x1,0x2\nsweep_interval 5\nca x\n");
	struct conf_change ch[8];

	assert_int_equal(conf_diff(&a, &a, ch, 8), 0);
	assert_int_equal(conf_diff(&a, &b, ch, 8), 4);
	/* table order: ca, port, sweep_interval, root_guids */
	assert_string_equal(ch[0].opt->name, "ca");
	assert_true(ch[0].needs_restart);
	assert_string_equal(ch[1].opt->name, "port");
	assert_true(ch[1].needs_restart);
	assert_string_equal(ch[2].opt->name, "sweep_interval");
	assert_false(ch[2].needs_restart);
	assert_string_equal(ch[3].opt->name, "root_guids");
	assert_false(ch[3].needs_restart);
	/* a short array still gets the total */
	memset(ch, 0, sizeof(ch));
	assert_int_equal(conf_diff(&a, &b, ch, 1), 4);
	assert_string_equal(ch[0].opt->name, "ca");
	assert_null(ch[1].opt);
	conf_free(&a);
	conf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_guids),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_unknown_and_duplicate),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_load_not_regular),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_dump_roundtrip),
		cmocka_unit_test(test_format_value),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
