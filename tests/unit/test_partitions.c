/*
 * DOC: unit tests of conf/partitions: every construct of the partitions
 * file, every error with its exact "FILE:LINE: message", merging,
 * generated P_Keys, defaults, size limits, part_load_file, the round trip
 * through part_dump, the resolver, and two realistic files (OpenSM's
 * documented constructs, and three tenants sharing a storage partition).
 */
#include <errno.h>
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

#include "conf/partitions.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Ports for the resolver. */
static const struct part_port host1 = { .guid = 0x11 };
static const struct part_port host2 = { .guid = 0x12 };
static const struct part_port sw1 = { .guid = 0x100, .is_switch = true };
static const struct part_port rtr1 = { .guid = 0x200, .is_router = true };
static const struct part_port smport = { .guid = 0x1, .is_sm = true };

/* Parse text as "p.conf"; the caller frees c and e. */
static int parse(const char *text, struct part_config *c, struct conf_errors *e)
{
	conf_errors_init(e);
	return part_parse_buf(c, "p.conf", text, strlen(text), e);
}

/* text must parse without errors or warnings. */
static struct part_config parse_ok(const char *text)
{
	struct part_config c;
	struct conf_errors e;
	int n = parse(text, &c, &e);

	conf_errors_print(&e, stderr);
	conf_errors_print(&c.warnings, stderr);
	assert_int_equal(n, 0);
	assert_int_equal(c.warnings.n, 0);
	conf_errors_free(&e);
	return c;
}

/* text must give exactly the errors msgs, and an empty config. */
static void expect_errors(const char *text, size_t n, const char *const *msgs)
{
	struct part_config c;
	struct conf_errors e;

	assert_int_equal(parse(text, &c, &e), n);
	for (size_t i = 0; i < e.n; i++)
		if (i >= n || strcmp(e.msg[i], msgs[i]))
			fprintf(stderr, "got: %s\n", e.msg[i]);
	assert_int_equal(e.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(e.msg[i], msgs[i]);
	assert_int_equal(c.n_parts, 0);
	assert_null(c.parts);
	conf_errors_free(&e);
	part_config_free(&c);
}

static void expect_error(const char *text, const char *msg)
{
	expect_errors(text, 1, &msg);
}

/* text must parse cleanly but for the one warning msg. */
static struct part_config expect_warning(const char *text, const char *msg)
{
	struct part_config c;
	struct conf_errors e;

	assert_int_equal(parse(text, &c, &e), 0);
	if (c.warnings.n != 1)
		conf_errors_print(&c.warnings, stderr);
	assert_int_equal(c.warnings.n, 1);
	assert_string_equal(c.warnings.msg[0], msg);
	conf_errors_free(&e);
	return c;
}

static void expect_one_warning(const char *text, const char *msg)
{
	struct part_config c = expect_warning(text, msg);

	part_config_free(&c);
}

static const struct part_partition *must_find(const struct part_config *c,
					      uint16_t pkey)
{
	const struct part_partition *p = part_find(c, pkey);

	assert_non_null(p);
	return p;
}

/* The port's P_Key table must be exactly want[0..n-1]. */
static void expect_pkeys(const struct part_config *c, const struct part_port *port,
			 bool allow_both, size_t n, const uint16_t *want)
{
	uint16_t got[64];
	size_t k = part_port_pkeys(c, port, allow_both, got, ARRAY_SIZE(got));

	for (size_t i = 0; i < k && i < ARRAY_SIZE(got); i++)
		if (i >= n || got[i] != want[i])
			fprintf(stderr, "pkey %zu: got 0x%04x\n", i, got[i]);
	assert_int_equal(k, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static unsigned membership(const struct part_config *c, uint16_t pkey,
			   const struct part_port *port, bool allow_both)
{
	return part_port_membership(must_find(c, pkey), port, allow_both, NULL);
}

static char *dump_text(const struct part_config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	part_dump(c, f);
	fclose(f);
	return text;
}

/* c dumps to text that parses back to c and dumps to the same text. */
static void check_round_trip(const struct part_config *c)
{
	char *text = dump_text(c), *again;
	struct part_config d = parse_ok(text);

	assert_true(part_config_equal(c, &d));
	again = dump_text(&d);
	assert_string_equal(text, again);
	free(text);
	free(again);
	part_config_free(&d);
}

/* ---- defaults ---- */

static void test_defaults(void **state)
{
	struct part_config c;
	const struct part_partition *d;

	(void)state;
	part_defaults(&c);
	assert_int_equal(c.n_parts, 1);
	d = &c.parts[0];
	assert_string_equal(d->name, "Default");
	assert_int_equal(d->pkey, PART_DEFAULT_PKEY);
	assert_int_equal(d->flags, PART_F_IPOIB);
	/* the implicit entries, then the explicit ALL=full */
	assert_int_equal(d->n_members, 3);
	assert_true(d->members[0].implicit && d->members[0].kind == PART_M_ALL);
	assert_true(d->members[1].implicit && d->members[1].kind == PART_M_SELF);
	assert_false(d->members[2].implicit);
	assert_int_equal(d->members[2].membership, PART_FULL);
	expect_pkeys(&c, &host1, false, 1, (const uint16_t[]){ 0xffff });
	expect_pkeys(&c, &sw1, false, 1, (const uint16_t[]){ 0xffff });
	expect_pkeys(&c, &smport, false, 1, (const uint16_t[]){ 0xffff });
	check_round_trip(&c);
	part_config_free(&c);
	assert_null(c.parts);
}

/* A file without a Default rule: ALL=limited, SELF=full, no ipoib. */
static void test_empty_file(void **state)
{
	struct part_config c = parse_ok("# nothing\n\n   \n");

	(void)state;
	assert_int_equal(c.n_parts, 1);
	assert_int_equal(c.parts[0].pkey, 0x7fff);
	assert_int_equal(c.parts[0].flags, 0);
	assert_int_equal(c.parts[0].line, 0);
	expect_pkeys(&c, &host1, false, 1, (const uint16_t[]){ 0x7fff });
	expect_pkeys(&c, &smport, false, 1, (const uint16_t[]){ 0xffff });
	check_round_trip(&c);
	part_config_free(&c);
}

/* ---- layout ---- */

static void test_layout(void **state)
{
	struct part_config c = parse_ok(
		"# comment\n"
		"A=0x10,ipoib:ALL=full;B = 0x11 , ipoib : SELF = full ;\r\n"
		"C\n=\n0x12\n,\nipoib\n,\nmtu\n=\n5\n:\nALL_CAS\n=\nfull\n,\n0x5\n;\n"
		"D=0x13 : # comment inside\n"
		"\t0x6=full   # one entry per line,\n"
		"\t0x7=limited\n"
		"\tALL_SWITCHES ;   E=0x14 : ; # two statements on a line\n");
	const struct part_partition *p;

	(void)state;
	assert_int_equal(c.n_parts, 6);
	p = must_find(&c, 0x12);
	assert_string_equal(p->name, "C");
	assert_int_equal(p->line, 3);
	assert_int_equal(p->flags, PART_F_IPOIB);
	assert_int_equal(p->group.mtu, 5);
	assert_int_equal(p->n_members, 2);
	assert_int_equal(p->members[0].kind, PART_M_ALL_CAS);
	assert_int_equal(p->members[0].line, 13);
	assert_int_equal(p->members[1].guid, 5);
	assert_int_equal(p->members[1].membership, PART_LIMITED);
	p = must_find(&c, 0x13);
	assert_int_equal(p->n_members, 3);
	assert_int_equal(p->members[0].membership, PART_FULL);
	assert_int_equal(p->members[2].kind, PART_M_ALL_SWITCHES);
	assert_int_equal(p->members[2].line, 22);
	assert_int_equal(must_find(&c, 0x14)->n_members, 0);
	assert_string_equal(must_find(&c, 0x11)->name, "B");
	check_round_trip(&c);
	part_config_free(&c);
}

/* Keywords, flags and membership words are matched without case. */
static void test_case(void **state)
{
	struct part_config c = parse_ok("P=0x10, IPoIB, MTU=5, q_key=0x1, "
					"TCLASS=3, flowlabel=0x12 : all=FULL, "
					"Self=Limited, all_cas, NONE ;");
	const struct part_partition *p = must_find(&c, 0x10);

	(void)state;
	assert_int_equal(p->flags, PART_F_IPOIB);
	assert_int_equal(p->group.qkey, 1);
	assert_int_equal(p->group.tclass, 3);
	assert_int_equal(p->group.flowlabel, 0x12);
	assert_int_equal(p->n_members, 3);
	assert_int_equal(p->members[1].kind, PART_M_SELF);
	assert_int_equal(p->members[1].membership, PART_LIMITED);
	part_config_free(&c);
}

/* ---- names and P_Keys ---- */

static void test_names(void **state)
{
	struct part_config c = parse_ok("Storage  Net \t=0x20 : ALL ;\n"
					"0x21 : SELF ;\n"
					"=0x22 : SELF ;\n"
					"x-y.z_1/2=0x23 : ;\n");
	char text[200];

	(void)state;
	assert_string_equal(must_find(&c, 0x20)->name, "Storage Net");
	assert_string_equal(must_find(&c, 0x21)->name, "");
	assert_string_equal(must_find(&c, 0x22)->name, "");
	assert_string_equal(must_find(&c, 0x23)->name, "x-y.z_1/2");
	check_round_trip(&c);
	part_config_free(&c);

	memset(text, 'n', 64);
	strcpy(text + 64, "=0x10 : ALL ;");
	c = parse_ok(text);
	assert_int_equal(strlen(must_find(&c, 0x10)->name), 64);
	part_config_free(&c);
	memset(text, 'n', 65);
	strcpy(text + 65, "=0x10 : ALL ;");
	expect_error(text, "p.conf:1: partition name longer than 64 bytes");
	expect_error("a\x01=0x10 : ALL ;",
		     "p.conf:1: invalid character in partition name 'a?'");
	expect_error("caf\xc3\xa9=0x10 : ALL ;",
		     "p.conf:1: invalid character in partition name 'caf?\?'");
}

static void test_pkeys(void **state)
{
	struct part_config c = parse_ok("A=0x1 : ;\nB=32766 : ;\nC=0x8003 : ;\n");

	(void)state;
	assert_non_null(part_find(&c, 0x1));
	assert_string_equal(must_find(&c, 0x7ffe)->name, "B");
	assert_string_equal(must_find(&c, 0x3)->name, "C");
	assert_ptr_equal(part_find(&c, 0x8003), part_find(&c, 0x3));
	assert_null(part_find(&c, 0x4));
	part_config_free(&c);

	/* bit 15 is dropped: 0xffff is the Default partition */
	c = expect_warning("Everyone=0xffff, ipoib : ALL=full ;",
			   "p.conf:1: warning: name 'Everyone' ignored: P_Key "
			   "0x7fff is named 'Default' (built in)");
	assert_int_equal(c.n_parts, 1);
	assert_int_equal(c.parts[0].flags, PART_F_IPOIB);
	part_config_free(&c);

	expect_error("A=0x0 : ;", "p.conf:1: P_Key 0x0000 is invalid (its low 15 bits are 0)");
	expect_error("A=0x8000 : ;", "p.conf:1: P_Key 0x8000 is invalid (its low 15 bits are 0)");
	expect_error("A=0x10000 : ;", "p.conf:1: P_Key: 0x10000 is out of range 0x0..0xffff");
	expect_error("A=65536 : ;", "p.conf:1: P_Key: 65536 is out of range 0x0..0xffff");
	expect_error("A=0x : ;", "p.conf:1: P_Key: invalid number '0x'");
	expect_error("A=x10 : ;", "p.conf:1: P_Key: invalid number 'x10'");
	expect_error("A=-1 : ;", "p.conf:1: P_Key: invalid number '-1'");
	expect_error("A=010 : ;", "p.conf:1: P_Key: '010' starts with 0, which "
		     "OpenSM reads as octal; write it without the 0 or in hex");
	expect_error("12ab : ALL ;", "p.conf:1: P_Key: invalid number '12ab'");
	expect_error("\n\nA= : ;", "p.conf:3: missing P_Key after '='");
	expect_error("A=0x10=0x11 : ;", "p.conf:1: expected ',' or ':' after the "
		     "partition definition, got '='");
}

/* ---- merging and generated P_Keys ---- */

static void test_merge(void **state)
{
	struct part_config c = expect_warning(
		"A=0x10, ipoib : 0x1=full ;\n"
		"Other=0x10, mtu=5 : 0x2 ;\n"
		"A : 0x3 ;\n"
		"=0x10 : 0x4 ;\n",
		"p.conf:2: warning: name 'Other' ignored: P_Key 0x0010 is named "
		"'A' (line 1)");
	const struct part_partition *p = must_find(&c, 0x10);

	(void)state;
	assert_int_equal(c.n_parts, 2);
	assert_string_equal(p->name, "A");
	assert_int_equal(p->line, 1);
	assert_int_equal(p->flags, PART_F_IPOIB);
	assert_int_equal(p->group.mtu, 5);
	assert_int_equal(p->n_members, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(p->members[i].guid, i + 1);
		assert_int_equal(p->members[i].line, i + 1);
	}
	part_config_free(&c);

	/* a statement without P_Key joins the Default partition by name */
	c = parse_ok("Default, ipoib : ALL=full ;");
	assert_int_equal(c.n_parts, 1);
	assert_int_equal(c.parts[0].flags, PART_F_IPOIB);
	part_config_free(&c);

	expect_error("A=0x10 : ;\nA=0x11 : ;",
		     "p.conf:2: partition name 'A' is already used for P_Key 0x0010 (line 1)");
	expect_error("Default=0x11 : ;",
		     "p.conf:1: partition name 'Default' is already used for P_Key 0x7fff (built in)");
	expect_error("A : ;\n\nA=0x11 : ;",
		     "p.conf:3: partition 'A' got a generated P_Key (line 1), so no "
		     "statement can give it P_Key 0x0011; write the same P_Key in "
		     "all its statements");
}

static void test_generated_pkeys(void **state)
{
	/* generated keys skip every P_Key of the file, even later ones */
	struct part_config c = parse_ok("A : 0x1 ;\nB=0x1 : 0x2 ;\nC : 0x3 ;\n"
					": 0x4 ;\nA : 0x5 ;\nD=0x3 : ;\n: 0x6 ;\n");

	(void)state;
	assert_int_equal(c.n_parts, 7);
	assert_string_equal(must_find(&c, 0x1)->name, "B");
	assert_string_equal(must_find(&c, 0x2)->name, "A");
	assert_int_equal(must_find(&c, 0x2)->n_members, 2);
	assert_string_equal(must_find(&c, 0x3)->name, "D");
	assert_string_equal(must_find(&c, 0x4)->name, "C");
	/* an empty name never joins another statement */
	assert_string_equal(must_find(&c, 0x5)->name, "");
	assert_int_equal(must_find(&c, 0x5)->members[0].guid, 4);
	assert_int_equal(must_find(&c, 0x6)->members[0].guid, 6);
	check_round_trip(&c);
	part_config_free(&c);
}

/* ---- flags ---- */

static void test_flags(void **state)
{
	struct part_config c = parse_ok(
		"P=0x10, ipoib, indx0, defmember=full, mtu=5, rate=7, sl=3, "
		"scope=2, scope=5, Q_Key=0x80010000, TClass=255, "
		"FlowLabel=0xfffff : ALL ;\n"
		"Q=0x11, qkey=7, scope=0x5, scope=5, rate=24, mtu=1, sl=15 : ;\n");
	const struct part_partition *p = must_find(&c, 0x10);
	struct part_group g;

	(void)state;
	assert_int_equal(p->flags, PART_F_IPOIB);
	assert_int_equal(p->group.set, PART_G_MTU | PART_G_RATE | PART_G_SL |
			 PART_G_SCOPE | PART_G_QKEY | PART_G_TCLASS | PART_G_FLOWLABEL);
	assert_int_equal(p->group.mtu, 5);
	assert_int_equal(p->group.rate, 7);
	assert_int_equal(p->group.sl, 3);
	assert_int_equal(p->group.scopes, (1 << 2) | (1 << 5));
	assert_int_equal(p->group.qkey, 0x80010000u);
	assert_int_equal(p->group.tclass, 255);
	assert_int_equal(p->group.flowlabel, 0xfffff);
	assert_true(p->members[0].indx0);
	assert_int_equal(p->members[0].membership, PART_FULL);
	p = must_find(&c, 0x11);
	assert_int_equal(p->flags, 0);
	assert_int_equal(p->group.qkey, 7);
	assert_int_equal(p->group.scopes, 1 << 5);
	/* unset parameters hold OpenSM's defaults */
	p = must_find(&c, 0x7fff);
	assert_int_equal(p->group.set, 0);
	part_group_params(p, NULL, &g);
	assert_int_equal(g.mtu, 4);
	assert_int_equal(g.rate, 3);
	assert_int_equal(g.sl, 0);
	assert_int_equal(g.scopes, 1 << 2);
	assert_int_equal(g.qkey, PART_IPOIB_QKEY);
	check_round_trip(&c);
	part_config_free(&c);
}

static void test_flag_errors(void **state)
{
	(void)state;
	expect_error("P=0x10, mtu=0 : ;", "p.conf:1: mtu: 0 is out of range 1..5");
	expect_error("P=0x10, mtu=6 : ;", "p.conf:1: mtu: 6 is out of range 1..5");
	expect_error("P=0x10, rate=1 : ;", "p.conf:1: rate: 1 is out of range 2..24");
	expect_error("P=0x10, rate=25 : ;", "p.conf:1: rate: 25 is out of range 2..24");
	expect_error("P=0x10, sl=16 : ;", "p.conf:1: sl: 16 is out of range 0..15");
	expect_error("P=0x10, scope=0 : ;", "p.conf:1: scope: 0 is out of range 1..15");
	expect_error("P=0x10, scope=16 : ;", "p.conf:1: scope: 16 is out of range 1..15");
	expect_error("P=0x10, Q_Key=0x100000000 : ;",
		     "p.conf:1: Q_Key: 0x100000000 is out of range 0x0..0xffffffff");
	expect_error("P=0x10, qkey=99999999999999999999999 : ;",
		     "p.conf:1: Q_Key: 99999999999999999999999 is out of range 0x0..0xffffffff");
	expect_error("P=0x10, TClass=256 : ;", "p.conf:1: TClass: 256 is out of range 0..255");
	expect_error("P=0x10, FlowLabel=0x100000 : ;",
		     "p.conf:1: FlowLabel: 0x100000 is out of range 0x0..0xfffff");
	expect_error("P=0x10, sl=1x : ;", "p.conf:1: sl: invalid number '1x'");
	expect_error("P=0x10, sl=01 : ;", "p.conf:1: sl: '01' starts with 0, which "
		     "OpenSM reads as octal; write it without the 0 or in hex");
	expect_error("P=0x10, mtu : ;", "p.conf:1: mtu: missing value");
	expect_error("P=0x10, mtu= : ;", "p.conf:1: missing value after '='");
	expect_error("P=0x10, ipoib=1 : ;", "p.conf:1: ipoib takes no value");
	expect_error("P=0x10, indx0=yes : ;", "p.conf:1: indx0 takes no value");
	expect_error("P=0x10, ipob : ;", "p.conf:1: unknown partition flag 'ipob'");
	expect_error("P=0x10, m=5 : ;", "p.conf:1: unknown partition flag 'm'");
	expect_error("P=0x10, : ;", "p.conf:1: missing flag after ','");
	expect_error("P=0x10, mtu=4, mtu=5 : ;",
		     "p.conf:1: mtu=5 conflicts with mtu=4 given before for partition 'P' (0x0010)");
	expect_error("P=0x10, Q_Key=1 : ;\nP=0x10, qkey=2 : ;",
		     "p.conf:2: Q_Key=0x2 conflicts with Q_Key=0x1 given before for "
		     "partition 'P' (0x0010)");
	expect_error("P, sl=1 : ;\nP, sl=2 : ;",
		     "p.conf:2: sl=2 conflicts with sl=1 given before for partition 'P'");
	/* errors in a statement whose P_Key was bad are still found */
	expect_errors("P=0, mtu=9 : ;", 2, (const char *const[]){
		"p.conf:1: P_Key 0x0000 is invalid (its low 15 bits are 0)",
		"p.conf:1: mtu: 9 is out of range 1..5" });
}

/* The same value twice is no conflict; scopes add up. */
static void test_flag_repeats(void **state)
{
	struct part_config c = parse_ok("P=0x10, mtu=5, scope=2 : ;\n"
					"P=0x10, mtu=5, scope=8 : ;\n");

	(void)state;
	assert_int_equal(must_find(&c, 0x10)->group.mtu, 5);
	assert_int_equal(must_find(&c, 0x10)->group.scopes, (1 << 2) | (1 << 8));
	part_config_free(&c);
}

static void test_defmember(void **state)
{
	struct part_config c = parse_ok(
		"S=0x80, defmember=full : 0x1, 0x2=limited ;\n"
		"S=0x80 : 0x3 ;\n"
		"S=0x80, defmember=both : 0x4, ALL_SWITCHES ;\n"
		"S=0x80, defmember=l, defmember=limited : 0x5 ;\n");
	const struct part_partition *p = must_find(&c, 0x80);
	static const uint8_t want[] = { PART_FULL, PART_LIMITED, PART_LIMITED,
					PART_BOTH, PART_BOTH, PART_LIMITED };

	(void)state;
	assert_int_equal(p->n_members, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_int_equal(p->members[i].membership, want[i]);
	part_config_free(&c);
	expect_error("S=0x80, defmember=most : ;",
		     "p.conf:1: defmember: invalid value 'most' (full, limited or both)");
	expect_error("S=0x80, defmember : ;", "p.conf:1: defmember: missing value");
	expect_error("S=0x80, defmember=full, defmember=limited : ;",
		     "p.conf:1: defmember given twice with different values");
}

/* ---- members ---- */

static void test_members(void **state)
{
	struct part_config c = parse_ok(
		"P=0x10 : ALL, ALL_CAS=full, ALL_SWITCHES=limited, ALL_ROUTERS=both,"
		" SELF=f, NONE, NONE=full, 0x0002c90300a1b2c3=fu, 1234=lim,"
		" 18446744073709551615=b, 0xFFFFFFFFFFFFFFFF, , ,"
		" 0x7=FULL ;\n"
		"Q=0x11 : ;\nR=0x12 : NONE ;\nS=0x13 : , ;\n");
	const struct part_partition *p = must_find(&c, 0x10);
	static const struct { uint8_t kind, ms; uint64_t guid; } want[] = {
		{ PART_M_ALL, PART_LIMITED, 0 },
		{ PART_M_ALL_CAS, PART_FULL, 0 },
		{ PART_M_ALL_SWITCHES, PART_LIMITED, 0 },
		{ PART_M_ALL_ROUTERS, PART_BOTH, 0 },
		{ PART_M_SELF, PART_FULL, 0 },
		{ PART_M_GUID, PART_FULL, 0x0002c90300a1b2c3ULL },
		{ PART_M_GUID, PART_LIMITED, 1234 },
		{ PART_M_GUID, PART_BOTH, UINT64_MAX },
		{ PART_M_GUID, PART_LIMITED, UINT64_MAX },
		{ PART_M_GUID, PART_FULL, 7 },
	};

	(void)state;
	assert_int_equal(p->n_members, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_int_equal(p->members[i].kind, want[i].kind);
		assert_int_equal(p->members[i].membership, want[i].ms);
		assert_true(p->members[i].guid == want[i].guid);
		assert_false(p->members[i].indx0);
		assert_false(p->members[i].implicit);
	}
	assert_int_equal(must_find(&c, 0x11)->n_members, 0);
	assert_int_equal(must_find(&c, 0x12)->n_members, 0);
	assert_int_equal(must_find(&c, 0x13)->n_members, 0);
	check_round_trip(&c);
	part_config_free(&c);
}

static void test_member_errors(void **state)
{
	struct part_config c;

	(void)state;
	/* OpenSM takes an unknown membership as limited; we say so */
	c = expect_warning("P=0x10 :\n 0x5=yes ;",
			   "p.conf:2: warning: membership 'yes' of '0x5' is not "
			   "full, limited or both; taken as limited, as OpenSM does");
	assert_int_equal(must_find(&c, 0x10)->members[0].membership, PART_LIMITED);
	part_config_free(&c);
	expect_one_warning("P=0x10 : ALL=fulll ;",
			   "p.conf:1: warning: membership 'fulll' of 'ALL' is not "
			   "full, limited or both; taken as limited, as OpenSM does");

	expect_error("P=0x10 : 0x5= ;", "p.conf:1: missing membership after '='");
	expect_error("P=0x10 : 0x5=, 0x6 ;", "p.conf:1: missing membership after '='");
	expect_error("P=0x10 : 0x0 ;", "p.conf:1: port GUID 0 is invalid");
	expect_error("P=0x10 : 0x10000000000000000 ;",
		     "p.conf:1: invalid port GUID '0x10000000000000000'");
	expect_error("P=0x10 : 18446744073709551616 ;",
		     "p.conf:1: invalid port GUID '18446744073709551616'");
	expect_error("P=0x10 : 0x12g4 ;", "p.conf:1: invalid port GUID '0x12g4'");
	expect_error("P=0x10 : 0123 ;", "p.conf:1: port GUID '0123' starts with 0, "
		     "which OpenSM reads as octal; write it without the 0 or in hex");
	expect_error("P=0x10 : ALL_CA ;", "p.conf:1: unknown member 'ALL_CA' (a port "
		     "GUID, ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF or NONE)");
	/* errors in entries do not stop the statement */
	expect_errors("P=0x10 : zz, 0x5=full, 0x0 ;", 2, (const char *const[]){
		"p.conf:1: unknown member 'zz' (a port GUID, ALL, ALL_CAS, "
		"ALL_SWITCHES, ALL_ROUTERS, SELF or NONE)",
		"p.conf:1: port GUID 0 is invalid" });
}

/* ---- mgid entries ---- */

static void test_mgid(void **state)
{
	struct part_config c = parse_ok(
		"Default=0x7fff, ipoib, rate=7, sl=2, scope=5 :\n"
		"  mgid=ff12:401b::0707,sl=1   # an IPv4 group\n"
		"  mgid=ff12:601b:ffff::16\n"
		"  mgid = ff15::1 , Q_Key=0xDEADBEEF , mtu=2 , scope=8, ALL=full,\n"
		"  mgid=ff12:601b::2, TClass=4, FlowLabel=9\n"
		"  SELF=full ;\n");
	const struct part_partition *p = must_find(&c, 0x7fff);
	static const uint8_t gid0[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					  0, 0, 0, 0, 0, 0, 0x07, 0x07 };
	struct part_group g;

	(void)state;
	assert_int_equal(p->n_mgids, 4);
	assert_memory_equal(p->mgids[0].gid, gid0, 16);
	assert_int_equal(p->mgids[0].line, 2);
	assert_int_equal(p->mgids[0].group.set, PART_G_SL);
	assert_int_equal(p->mgids[0].group.sl, 1);
	assert_int_equal(p->mgids[1].group.set, 0);
	assert_int_equal(p->mgids[2].gid[1], 0x15);
	assert_int_equal(p->mgids[2].group.set, PART_G_QKEY | PART_G_MTU | PART_G_SCOPE);
	assert_int_equal(p->n_members, 4);   /* 2 implicit */
	assert_int_equal(p->members[2].kind, PART_M_ALL);
	assert_int_equal(p->members[3].kind, PART_M_SELF);
	/* effective values: the mgid's over the partition's, scopes added */
	part_group_params(p, &p->mgids[0], &g);
	assert_int_equal(g.sl, 1);
	assert_int_equal(g.rate, 7);
	assert_int_equal(g.mtu, 4);
	assert_int_equal(g.scopes, 1 << 5);
	assert_int_equal(g.qkey, PART_IPOIB_QKEY);
	part_group_params(p, &p->mgids[2], &g);
	assert_int_equal(g.mtu, 2);
	assert_int_equal(g.sl, 2);
	assert_int_equal(g.qkey, 0xdeadbeefu);
	assert_int_equal(g.scopes, (1 << 5) | (1 << 8));
	part_group_params(p, &p->mgids[3], &g);
	assert_int_equal(g.tclass, 4);
	assert_int_equal(g.flowlabel, 9);
	check_round_trip(&c);
	part_config_free(&c);

	/* not an IP group: Q_Key stays 0, scope link-local */
	c = parse_ok("P=0x10 : mgid=ff12::1 ;");
	p = must_find(&c, 0x10);
	part_group_params(p, &p->mgids[0], &g);
	assert_int_equal(g.qkey, 0);
	assert_int_equal(g.scopes, 1 << 2);
	assert_int_equal(g.set, 0x7f);
	part_config_free(&c);
}

/* IP MGIDs get the P_Key; OpenSM's broadcast MGID is taken as it is. */
static void test_mgid_ip(void **state)
{
	struct part_config c = parse_ok(
		"P=0x10 : mgid=ff12:401b::1, mgid=ff12:601b:8010::2,\n"
		"  mgid=ff12:401b:ffff::ffff:ffff ;\n");
	const struct part_partition *p = must_find(&c, 0x10);

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(p->mgids[i].gid[4], 0x80);
		assert_int_equal(p->mgids[i].gid[5], 0x10);
	}
	part_config_free(&c);
	expect_error("P=0x10 : mgid=ff12:401b:8011::1 ;",
		     "p.conf:1: mgid ff12:401b:8011::1: P_Key bits 0x8011 are "
		     "neither 0 nor the partition's 0x8010");
	expect_error("P=0x10, mtu=5 :\n mgid=ff12:401b::1, mtu=4 ;",
		     "p.conf:2: mgid ff12:401b::1: mtu 4 differs from the "
		     "partition's 5 (an IP group must match the broadcast group)");
	expect_error("P=0x10 : mgid=ff12:601b::1, rate=7 ;",
		     "p.conf:1: mgid ff12:601b::1: rate 7 differs from the "
		     "partition's 3 (an IP group must match the broadcast group)");
	/* a rejected MGID is not filled in, so it cannot look like a copy */
	expect_error("P=0x10 : mgid=ff12:401b:8012::1\n mgid=ff12:401b::1 ;",
		     "p.conf:1: mgid ff12:401b:8012::1: P_Key bits 0x8012 are "
		     "neither 0 nor the partition's 0x8010");
	/* the partition's values may come from a later statement */
	c = parse_ok("P=0x10 : mgid=ff12:401b::1, mtu=5 ;\nP=0x10, mtu=5 : ;");
	part_config_free(&c);
}

static void test_mgid_errors(void **state)
{
	struct part_config c;

	(void)state;
	expect_error("P=0x10 : mgid=fe80::1 ;",
		     "p.conf:1: mgid: fe80::1 is not a multicast GID (those start with ff)");
	expect_error("P=0x10 : mgid=ff12:::1 ;", "p.conf:1: mgid: invalid GID 'ff12:::1'");
	expect_error("P=0x10 : mgid=ff12::1::2 ;", "p.conf:1: mgid: invalid GID 'ff12::1::2'");
	expect_error("P=0x10 : mgid=ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:1 ;",
		     "p.conf:1: mgid: invalid GID 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:...'");
	expect_error("P=0x10 : mgid ;", "p.conf:1: mgid: expected '=' and a GID");
	expect_error("P=0x10 : mgid= ;", "p.conf:1: mgid: expected '=' and a GID");
	expect_error("P=0x10 : mgid ff12::1 ;", "p.conf:1: mgid: expected '=' and a GID");
	expect_error("P=0x10 : mgid=ff12::1, ipoib ;",
		     "p.conf:1: ipoib is not a multicast group flag");
	expect_error("P=0x10 : mgid=ff12::1, sl=16 ;", "p.conf:1: sl: 16 is out of range 0..15");
	expect_error("P=0x10 : mgid=ff12::1, sl=1, sl=2 ;",
		     "p.conf:1: sl=2 conflicts with sl=1 given before for mgid ff12::1");
	expect_error("P=0x10 : mgid=ff12::1, sl ;", "p.conf:1: sl: missing value");
	expect_error("P=0x10 : mgid=ff12::1 ALL ;", "p.conf:1: missing ',' before 'ALL'");
	/* OpenSM creates a group once: later copies are dropped with a warning */
	c = expect_warning("P=0x10 : mgid=ff12::1 ;\nQ=0x11 :\n mgid=ff12::2\n mgid=ff12::1 ;",
			   "p.conf:4: warning: mgid ff12::1 ignored: already given on line 1");
	assert_int_equal(must_find(&c, 0x11)->n_mgids, 1);
	part_config_free(&c);
	expect_one_warning("P=0x10 : mgid=ff12:401b::1\n mgid=ff12:401b:8010::1 ;",
			   "p.conf:2: warning: mgid ff12:401b:8010::1 ignored: "
			   "already given on line 1");
}

/* ---- statement syntax ---- */

static void test_syntax_errors(void **state)
{
	(void)state;
	expect_error("P=0x10 ;", "p.conf:1: missing ':' between the partition "
		     "definition and the member list");
	expect_error("\nP=0x10, ipoib\n", "p.conf:2: statement not terminated: "
		     "missing ':' before end of file");
	expect_error("P=0x10 ALL ;", "p.conf:1: expected ',' or ':' after the "
		     "partition definition, got 'ALL'");
	expect_error("\nP=0x10 :\n ALL,\n SELF", "p.conf:2: statement not "
		     "terminated: missing ';' before end of file");
	expect_error("P=0x10 : ALL\nQ=0x11 : SELF ;",
		     "p.conf:2: unexpected ':' in the member list (missing ';' "
		     "after the previous statement?)");
	expect_error("P=0x10 : ALL SELF ;", "p.conf:1: missing ',' before 'SELF'");
	expect_error("P=0x10 : =full ;", "p.conf:1: unexpected '=' in the member list");
	expect_error(";", "p.conf:1: ';' without a partition definition");
	expect_error("P=0x10 : ALL ;;", "p.conf:1: ';' without a partition definition");
	/* after an error the parser goes on with the next statement */
	expect_errors("A=0x10 ALL ;\nB=0x11 : ALL=full, 0x0 ;\nC=0x12 mtu=4 : ;\n"
		      "D=0x13 : SELF ;", 3, (const char *const[]){
		"p.conf:1: expected ',' or ':' after the partition definition, got 'ALL'",
		"p.conf:2: port GUID 0 is invalid",
		"p.conf:3: expected ',' or ':' after the partition definition, got 'mtu'" });
}

/* Checks made once the file is read still come out in line order. */
static void test_message_order(void **state)
{
	struct part_config c;
	struct conf_errors e;

	(void)state;
	expect_errors("P=0x10 : mgid=ff12:401b:8011::1 ;\nQ=0x11 : 0x0 ;\n"
		      "R=0x12 :\n mgid=ff12:601b::1, mtu=5\n 0x0 ;", 4,
		      (const char *const[]){
		"p.conf:1: mgid ff12:401b:8011::1: P_Key bits 0x8011 are neither "
		"0 nor the partition's 0x8010",
		"p.conf:2: port GUID 0 is invalid",
		"p.conf:4: mgid ff12:601b::1: mtu 5 differs from the partition's "
		"4 (an IP group must match the broadcast group)",
		"p.conf:5: port GUID 0 is invalid" });
	assert_int_equal(parse("Default=0x7fff : ALL ;\nA=0x10 : mgid=ff12::1 ;\n"
			       "B=0x11 : mgid=ff12::1, 0x1=maybe ;", &c, &e), 0);
	assert_int_equal(c.warnings.n, 3);
	assert_true(strstr(c.warnings.msg[0], "p.conf:1: warning: the SM's port"));
	/* one line: in the order found */
	assert_true(strstr(c.warnings.msg[1], "p.conf:3: warning: membership 'maybe'"));
	assert_true(strstr(c.warnings.msg[2], "p.conf:3: warning: mgid ff12::1 ignored"));
	conf_errors_free(&e);
	part_config_free(&c);
	/* messages the caller had before are left where they are */
	conf_errors_init(&e);
	assert_int_equal(part_parse_buf(&c, "z.conf", "A=0x0 : ;", 9, &e), 1);
	part_config_free(&c);
	assert_int_equal(part_parse_buf(&c, "a.conf", "\nA=0x0 : ;", 10, &e), 1);
	assert_string_equal(e.msg[0], "z.conf:1: P_Key 0x0000 is invalid (its low 15 bits are 0)");
	assert_string_equal(e.msg[1], "a.conf:2: P_Key 0x0000 is invalid (its low 15 bits are 0)");
	conf_errors_free(&e);
	part_config_free(&c);
}

/* ---- limits ---- */

static void test_line_limits(void **state)
{
	static const char nul[] = "P=0x10 : ALL\0 ;\nQ=0x11, sl=99 : ;\n";
	char *buf = malloc(3 * CONF_MAX_LINE);
	struct part_config c;
	struct conf_errors e;
	size_t n;

	(void)state;
	/* a comment of exactly CONF_MAX_LINE bytes is fine, one more is not */
	memset(buf, '#', CONF_MAX_LINE);
	buf[CONF_MAX_LINE] = '\n';
	memset(buf + CONF_MAX_LINE + 1, '#', CONF_MAX_LINE + 1);
	n = 2 * CONF_MAX_LINE + 2;
	memcpy(buf + n, "\nP=0x10, mtu=9 : ;\n", 19);
	conf_errors_init(&e);
	assert_int_equal(part_parse_buf(&c, "p.conf", buf, n + 19, &e), 2);
	assert_string_equal(e.msg[0], "p.conf:2: line too long (more than 4096 bytes)");
	assert_string_equal(e.msg[1], "p.conf:3: mtu: 9 is out of range 1..5");
	conf_errors_free(&e);
	part_config_free(&c);

	assert_int_equal(part_parse_buf(&c, "p.conf", nul, sizeof(nul) - 1, &e), 2);
	assert_string_equal(e.msg[0], "p.conf:1: NUL byte in line");
	assert_string_equal(e.msg[1], "p.conf:2: sl: 99 is out of range 0..15");
	assert_int_equal(c.n_parts, 0);
	conf_errors_free(&e);
	part_config_free(&c);
	free(buf);
}

static void test_file_limit(void **state)
{
	char *buf = malloc(CONF_MAX_FILE + 1);
	struct part_config c;
	struct conf_errors e;

	(void)state;
	memset(buf, '\n', CONF_MAX_FILE + 1);
	conf_errors_init(&e);
	assert_int_equal(part_parse_buf(&c, "p.conf", buf, CONF_MAX_FILE, &e), 0);
	assert_int_equal(c.n_parts, 1);
	part_config_free(&c);
	assert_int_equal(part_parse_buf(&c, "p.conf", buf, CONF_MAX_FILE + 1, &e), 1);
	assert_string_equal(e.msg[0], "p.conf: file too large (more than 1048576 bytes)");
	assert_int_equal(c.n_parts, 0);
	conf_errors_free(&e);
	part_config_free(&c);
	free(buf);
}

/* text = n statements printed by fmt (which may use i, 1..n). */
#define REPEAT(text, n, ...) do { \
		size_t len_ = 0; \
		FILE *f_ = open_memstream(&(text), &len_); \
		for (size_t i = 1; i <= (n); i++) \
			fprintf(f_, __VA_ARGS__); \
		fclose(f_); \
	} while (0)

static void test_caps(void **state)
{
	char *text;
	struct part_config c;
	struct conf_errors e;

	(void)state;
	/* Default plus 4095 more is the cap; one more is an error */
	REPEAT(text, PART_MAX_PARTITIONS - 1, "P%zu=%zu : SELF ;\n", i, i);
	c = parse_ok(text);
	assert_int_equal(c.n_parts, PART_MAX_PARTITIONS);
	part_config_free(&c);
	free(text);
	REPEAT(text, PART_MAX_PARTITIONS + 1, "P%zu=%zu : SELF ;\n", i, i);
	assert_int_equal(parse(text, &c, &e), 1);
	assert_string_equal(e.msg[0], "p.conf:4096: too many partitions (more than 4096)");
	conf_errors_free(&e);
	part_config_free(&c);
	free(text);

	/* one entry per line: 65536 statements would pass CONF_MAX_FILE */
	REPEAT(text, PART_MAX_MEMBERS, "%s%zu%s", i == 1 ? "P=0x10 :\n" : "", i,
	       i == PART_MAX_MEMBERS ? " ;\n" : "\n");
	c = parse_ok(text);
	assert_int_equal(must_find(&c, 0x10)->n_members, PART_MAX_MEMBERS);
	part_config_free(&c);
	free(text);
	REPEAT(text, PART_MAX_MEMBERS + 2, "%s%zu%s", i == 1 ? "P=0x10 :\n" : "", i,
	       i == PART_MAX_MEMBERS + 2 ? " ;\n" : "\n");
	assert_int_equal(parse(text, &c, &e), 1);
	assert_string_equal(e.msg[0], "p.conf:65538: too many members (more than 65536 in the file)");
	conf_errors_free(&e);
	part_config_free(&c);
	free(text);

	REPEAT(text, PART_MAX_MGIDS + 1, "P=0x10 : mgid=ff12::%zx ;\n", i);
	assert_int_equal(parse(text, &c, &e), 1);
	assert_string_equal(e.msg[0], "p.conf:4097: too many mgid entries (more than 4096 in the file)");
	conf_errors_free(&e);
	part_config_free(&c);
	free(text);
}

static void test_error_cap(void **state)
{
	char *text;
	struct part_config c;
	struct conf_errors e;

	(void)state;
	REPEAT(text, 25, "P%zu=0 : ;\n", i);
	assert_int_equal(parse(text, &c, &e), 25);
	assert_int_equal(e.n, CONF_MAX_ERRORS);
	assert_int_equal(e.dropped, 5);
	assert_string_equal(e.msg[19], "p.conf:20: P_Key 0x0000 is invalid (its low 15 bits are 0)");
	conf_errors_free(&e);
	part_config_free(&c);
	free(text);
}

/* A failed parse hands out no partitions, but keeps its warnings. */
static void test_failed_parse_is_empty(void **state)
{
	struct part_config c;
	struct conf_errors e;

	(void)state;
	assert_int_equal(parse("A=0x10, ipoib : ALL=full, 0x5=maybe ;\nB=0x11 : 0x0 ;",
			       &c, &e), 1);
	assert_int_equal(c.n_parts, 0);
	assert_null(c.parts);
	assert_int_equal(c.warnings.n, 1);
	assert_true(strstr(c.warnings.msg[0], "p.conf:1: warning: membership 'maybe'"));
	expect_pkeys(&c, &host1, false, 0, NULL);
	conf_errors_free(&e);
	part_config_free(&c);
}

/* ---- files ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_load_file(void **state)
{
	char dir[] = "/tmp/test_partitions.XXXXXX", path[64];
	struct part_config c;
	struct conf_errors e;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/partitions.conf", dir);
	write_file(path, "A=0x10 : ALL ;\nB=0x11, rate=1 : ;\n");
	conf_errors_init(&e);
	assert_int_equal(part_load_file(&c, path, &e), 1);
	assert_true(strncmp(e.msg[0], path, strlen(path)) == 0);
	assert_string_equal(e.msg[0] + strlen(path), ":2: rate: 1 is out of range 2..24");
	assert_int_equal(c.n_parts, 0);
	conf_errors_free(&e);
	part_config_free(&c);

	write_file(path, "A=0x10 : ALL ;\n");
	assert_int_equal(part_load_file(&c, path, &e), 0);
	assert_int_equal(c.n_parts, 2);
	part_config_free(&c);

	/* too large by its size, not by reading it */
	assert_int_equal(truncate(path, CONF_MAX_FILE + 1), 0);
	assert_int_equal(part_load_file(&c, path, &e), 1);
	assert_string_equal(e.msg[0] + strlen(path), ": file too large (more than 1048576 bytes)");
	conf_errors_free(&e);
	part_config_free(&c);
	unlink(path);

	/* no file: OpenSM's defaults, and the caller can tell */
	assert_int_equal(part_load_file(&c, path, &e), -ENOENT);
	assert_int_equal(e.n, 0);
	assert_int_equal(c.n_parts, 1);
	assert_int_equal(c.parts[0].flags, PART_F_IPOIB);
	expect_pkeys(&c, &host1, false, 1, (const uint16_t[]){ 0xffff });
	part_config_free(&c);

	/* a FIFO without a writer must not block */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(part_load_file(&c, path, &e), 1);
	assert_string_equal(e.msg[0] + strlen(path), ": a FIFO, not a regular file: refusing to read it");
	conf_errors_free(&e);
	part_config_free(&c);
	unlink(path);

	assert_int_equal(part_load_file(&c, dir, &e), 1);
	assert_string_equal(e.msg[0] + strlen(dir),
			    ": a directory, not a regular file: refusing to read it");
	conf_errors_free(&e);
	part_config_free(&c);
	assert_int_equal(rmdir(dir), 0);
}

/* ---- dump ---- */

static void test_dump(void **state)
{
	struct part_config c = parse_ok(
		"Default=0x7fff, ipoib : ALL=full ;\n"
		"T=0x10, ipoib, mtu=5, scope=5, scope=2, qkey=0x1b :\n"
		"  mgid=ff12::1, sl=1\n"
		"  ALL_CAS=full ;\n"
		"T=0x10, indx0 : 0x5=both ;\n"
		"T=0x10 : SELF ;\n"
		"Empty=0x20 : ;\n");
	char *text = dump_text(&c);

	(void)state;
	assert_string_equal(text,
		"# Partitions in canonical form (OpenSM partitions.conf syntax).\n"
		"# Default (0x7fff) always starts with ALL=limited, SELF=full; for each\n"
		"# port the last entry that names it wins.\n"
		"Default=0x7fff, ipoib :\n"
		"\tALL=full ;\n"
		"T=0x0010, ipoib, mtu=5, scope=2, scope=5, Q_Key=0x1b :\n"
		"\tmgid=ff12::1, sl=1\n"
		"\tALL_CAS=full ;\n"
		"T=0x0010, indx0 :\n"
		"\t0x0000000000000005=both ;\n"
		"T=0x0010 :\n"
		"\tSELF=limited ;\n"
		"Empty=0x0020 : ;\n");
	free(text);
	check_round_trip(&c);
	part_config_free(&c);
	/* a bare Default is left out */
	c = parse_ok("A=0x1 : ;");
	text = dump_text(&c);
	assert_non_null(strstr(text, "wins.\nA=0x0001 : ;\n"));
	assert_null(strstr(text, "Default="));
	free(text);
	part_config_free(&c);
}

static void test_equal(void **state)
{
	struct part_config a = parse_ok("A=0x10 : ALL ;"), b;

	(void)state;
	b = parse_ok("\n\nA = 0x10 :\n ALL=limited ;");
	assert_true(part_config_equal(&a, &b));   /* lines do not count */
	part_config_free(&b);
	b = parse_ok("A=0x10 : ALL=full ;");
	assert_false(part_config_equal(&a, &b));
	part_config_free(&b);
	b = parse_ok("B=0x10 : ALL ;");
	assert_false(part_config_equal(&a, &b));
	part_config_free(&b);
	b = parse_ok("A=0x10, sl=0 : ALL ;");
	assert_false(part_config_equal(&a, &b));   /* written vs default */
	part_config_free(&b);
	b = parse_ok("A=0x10, indx0 : ALL ;");
	assert_false(part_config_equal(&a, &b));
	part_config_free(&b);
	b = parse_ok("A=0x10 : ALL ; B=0x11 : ;");
	assert_false(part_config_equal(&a, &b));
	part_config_free(&b);
	part_config_free(&a);
}

/* ---- resolver ---- */

static void test_resolver_kinds(void **state)
{
	struct part_config c = parse_ok(
		"Cas=0x10 : ALL_CAS=full ;\n"
		"Sw=0x11 : ALL_SWITCHES=full ;\n"
		"Rtr=0x12 : ALL_ROUTERS=full ;\n"
		"Self=0x13 : SELF=full ;\n"
		"Guid=0x14 : 0x12=full, 0x100 ;\n");

	(void)state;
	assert_int_equal(membership(&c, 0x10, &host1, false), PART_FULL);
	assert_int_equal(membership(&c, 0x10, &sw1, false), 0);
	assert_int_equal(membership(&c, 0x10, &rtr1, false), 0);
	assert_int_equal(membership(&c, 0x10, &smport, false), PART_FULL);
	assert_int_equal(membership(&c, 0x11, &sw1, false), PART_FULL);
	assert_int_equal(membership(&c, 0x11, &host1, false), 0);
	assert_int_equal(membership(&c, 0x12, &rtr1, false), PART_FULL);
	assert_int_equal(membership(&c, 0x12, &sw1, false), 0);
	assert_int_equal(membership(&c, 0x13, &smport, false), PART_FULL);
	assert_int_equal(membership(&c, 0x13, &host1, false), 0);
	assert_int_equal(membership(&c, 0x14, &host2, false), PART_FULL);
	assert_int_equal(membership(&c, 0x14, &sw1, false), PART_LIMITED);
	assert_int_equal(membership(&c, 0x14, &host1, false), 0);
	expect_pkeys(&c, &host2, false, 3, (const uint16_t[]){ 0x7fff, 0x8010, 0x8014 });
	expect_pkeys(&c, &sw1, false, 3, (const uint16_t[]){ 0x7fff, 0x8011, 0x0014 });
	expect_pkeys(&c, &smport, false, 3, (const uint16_t[]){ 0xffff, 0x8010, 0x8013 });
	part_config_free(&c);
}

/* The last entry for a port wins, as in OpenSM; both needs allow_both. */
static void test_resolver_membership(void **state)
{
	struct part_config c = parse_ok(
		"A=0x10 : ALL=full, 0x11=limited ;\n"
		"B=0x20 : 0x11=limited ;\nB=0x20 : ALL_CAS=full ;\n"
		"C=0x30 : 0x11=both ;\n"
		"D=0x40 : 0x11=both, 0x11=limited ;\n"
		"E=0x50 : 0x11=full, ALL=both ;\n");

	(void)state;
	assert_int_equal(membership(&c, 0x10, &host1, false), PART_LIMITED);
	assert_int_equal(membership(&c, 0x10, &host2, false), PART_FULL);
	assert_int_equal(membership(&c, 0x20, &host1, false), PART_FULL);
	assert_int_equal(membership(&c, 0x30, &host1, false), PART_FULL);
	assert_int_equal(membership(&c, 0x30, &host1, true), PART_BOTH);
	assert_int_equal(membership(&c, 0x40, &host1, true), PART_LIMITED);
	assert_int_equal(membership(&c, 0x50, &host1, true), PART_BOTH);
	assert_int_equal(membership(&c, 0x50, &host2, false), PART_FULL);
	expect_pkeys(&c, &host1, false, 6, (const uint16_t[]){
		0x7fff, 0x0010, 0x8020, 0x8030, 0x0040, 0x8050 });
	/* with allow_both both P_Keys, full first */
	expect_pkeys(&c, &host1, true, 8, (const uint16_t[]){
		0x7fff, 0x0010, 0x8020, 0x8030, 0x0030, 0x0040, 0x8050, 0x0050 });
	part_config_free(&c);
}

static void test_resolver_indx0(void **state)
{
	struct part_config c = parse_ok(
		"Low=0x5 : ALL=full ;\n"
		"Ten=0x100, indx0 : 0x11=full, 0x12 ;\n"
		"Ten=0x100 : 0x12 ;\n"            /* 0x12's last entry has no indx0 */
		"Two=0x200, indx0 : ALL_CAS=full ;\n"
		"Both=0x300, indx0 : 0x11=both ;\n");
	bool ix;

	(void)state;
	assert_int_equal(part_port_membership(must_find(&c, 0x100), &host1, false, &ix),
			 PART_FULL);
	assert_true(ix);
	assert_int_equal(part_port_membership(must_find(&c, 0x100), &host2, false, &ix),
			 PART_LIMITED);
	assert_false(ix);
	/* the first partition (file order) whose entry asks for index 0 */
	expect_pkeys(&c, &host1, false, 5, (const uint16_t[]){
		0x8100, 0x8005, 0x8200, 0x8300, 0x7fff });
	expect_pkeys(&c, &host2, false, 4, (const uint16_t[]){
		0x8200, 0x8005, 0x0100, 0x7fff });
	expect_pkeys(&c, &sw1, false, 2, (const uint16_t[]){ 0x7fff, 0x8005 });
	part_config_free(&c);

	/* index 0 of a both port: the full P_Key */
	c = parse_ok("B=0x300, indx0 : 0x11=both ;\n");
	expect_pkeys(&c, &host1, true, 3, (const uint16_t[]){ 0x8300, 0x0300, 0x7fff });
	part_config_free(&c);
	/* Default both, no indx0: full at 0, limited in order */
	c = parse_ok("Default=0x7fff : 0x11=both ;\nA=0x10 : 0x11 ;\n");
	expect_pkeys(&c, &host1, true, 3, (const uint16_t[]){ 0xffff, 0x0010, 0x7fff });
	part_config_free(&c);
}

static void test_resolver_cap(void **state)
{
	char *text;
	struct part_config c;
	uint16_t got[8];

	(void)state;
	REPEAT(text, 40, "P%zu=%zu : ALL_CAS ;\n", i, i);
	c = parse_ok(text);
	memset(got, 0, sizeof(got));
	assert_int_equal(part_port_pkeys(&c, &host1, false, got, 4), 41);
	assert_int_equal(got[0], 0x7fff);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[3], 3);
	assert_int_equal(got[4], 0);   /* nothing past the cap */
	assert_int_equal(part_port_pkeys(&c, &host1, false, NULL, 0), 41);
	part_config_free(&c);
	free(text);
}

/* ---- warnings about the SM's port ---- */

static void test_self_warning(void **state)
{
	struct part_config c;

	(void)state;
	c = expect_warning("Default=0x7fff :\n ALL=limited ;",
			   "p.conf:2: warning: the SM's port (SELF) ends up a limited "
			   "member of the Default partition, so limited members cannot "
			   "reach the SA");
	/* as OpenSM: the file's entry comes last and wins */
	expect_pkeys(&c, &smport, false, 1, (const uint16_t[]){ 0x7fff });
	part_config_free(&c);
	c = parse_ok("Default=0x7fff : ALL=limited, SELF=full ;");
	expect_pkeys(&c, &smport, false, 1, (const uint16_t[]){ 0xffff });
	part_config_free(&c);
}

static void test_ipoib_mgid(void **state)
{
	static const uint8_t want[16] = { 0xff, 0x12, 0x40, 0x1b, 0x80, 0x10, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	uint8_t gid[16];

	(void)state;
	part_ipoib_mgid(0x10, 2, gid);
	assert_memory_equal(gid, want, 16);
	part_ipoib_mgid(0x7fff, 5, gid);
	assert_int_equal(gid[1], 0x15);
	assert_int_equal(gid[4], 0xff);
	assert_int_equal(gid[5], 0xff);
}

/* ---- realistic files ---- */

/*
 * The constructs OpenSM's partition-config.txt shows, with our own names
 * and GUIDs: a Default rule, an abbreviated membership, one partition
 * split over statements with different default memberships, IP and
 * other groups in the Default partition.
 */
static const char opensm_style[] =
	"# Every port may use the default partition; switches and the SM\n"
	"# as full members.\n"
	"Default=0x7fff, ipoib :\n"
	"    mgid=ff12:401b::e0,sl=1        # an IPv4 group of our own\n"
	"    mgid=ff12:601b::1              # all IPv6 nodes\n"
	"    mgid=ff12::cafe,sl=1,Q_Key=0xABCDEF01,rate=3,mtu=2\n"
	"    ALL, ALL_SWITCHES=full, SELF=full ;\n"
	"\n"
	"Lab , ipoib : 0x0002c9030000aa01=full, 0x0002c9030000aa02=limi,\n"
	"              0x0002c9030000aa03 ;\n"
	"\n"
	"Backup = 0x400 : SELF=full ;\n"
	"Backup = 0x400 : ALL_CAS=limited ;\n"
	"\n"
	"Io = 0x90 , defmember=full : 0x11, 0x12 ;\n"
	"Io = 0x90 : 0x13, 0x14=full ;   # 0x13 stays limited\n"
	"Io = 0x90 , defmember=full : 0x15, 0x16=limited, 0x17 ;\n";

static void test_opensm_style(void **state)
{
	struct part_config c = parse_ok(opensm_style);
	const struct part_partition *lab;
	const struct part_port aa01 = { .guid = 0x0002c9030000aa01 };
	const struct part_port io13 = { .guid = 0x13 }, io17 = { .guid = 0x17 };

	(void)state;
	assert_int_equal(c.n_parts, 4);
	assert_int_equal(must_find(&c, 0x7fff)->n_mgids, 3);
	lab = &c.parts[1];
	assert_string_equal(lab->name, "Lab");
	assert_int_equal(lab->pkey, 0x0001);   /* generated */
	assert_int_equal(lab->members[1].membership, PART_LIMITED);
	assert_int_equal(lab->members[0].membership, PART_FULL);
	expect_pkeys(&c, &aa01, false, 3, (const uint16_t[]){ 0x7fff, 0x8001, 0x0400 });
	expect_pkeys(&c, &sw1, false, 1, (const uint16_t[]){ 0xffff });
	/* SELF=full, then ALL_CAS=limited: the last entry wins, as in OpenSM */
	expect_pkeys(&c, &smport, false, 2, (const uint16_t[]){ 0xffff, 0x0400 });
	expect_pkeys(&c, &host1, false, 3, (const uint16_t[]){ 0x7fff, 0x8090, 0x0400 });
	expect_pkeys(&c, &io13, false, 3, (const uint16_t[]){ 0x7fff, 0x0090, 0x0400 });
	expect_pkeys(&c, &io17, false, 3, (const uint16_t[]){ 0x7fff, 0x8090, 0x0400 });
	check_round_trip(&c);
	part_config_free(&c);
}

/*
 * Three tenants, each with its own IPoIB partition, and a storage
 * partition the storage servers serve as full members and every tenant
 * host reaches as a limited member. Hosts of one tenant must share no
 * P_Key with another tenant except as limited members of storage.
 */
static const char tenants[] =
	"Default=0x7fff : ALL_SWITCHES=full, SELF=full ;\n"
	"\n"
	"tenant-red=0x0101, ipoib, mtu=5, rate=7, defmember=full :\n"
	"    0x0002c90300001001, 0x0002c90300001002 ;\n"
	"tenant-green=0x0102, ipoib, mtu=5, rate=7, defmember=full :\n"
	"    0x0002c90300002001\n"
	"    0x0002c90300002002 ;\n"
	"tenant-blue=0x0103, ipoib, mtu=4, defmember=full, indx0 :\n"
	"    0x0002c90300003001 ;\n"
	"\n"
	"storage=0x0200, ipoib, mtu=5, rate=7, sl=1 :\n"
	"    0x0002c9030000f001=full, 0x0002c9030000f002=full,\n"
	"    0x0002c90300001001, 0x0002c90300001002,\n"
	"    0x0002c90300002001, 0x0002c90300002002,\n"
	"    0x0002c90300003001,\n"
	"    SELF=full ;\n";

static void test_tenants(void **state)
{
	struct part_config c = parse_ok(tenants);
	const struct part_port red = { .guid = 0x0002c90300001001 };
	const struct part_port green = { .guid = 0x0002c90300002002 };
	const struct part_port blue = { .guid = 0x0002c90300003001 };
	const struct part_port nas = { .guid = 0x0002c9030000f001 };
	const struct part_port stray = { .guid = 0x0002c9030000beef };
	struct part_group g;

	(void)state;
	assert_int_equal(c.n_parts, 5);
	expect_pkeys(&c, &red, false, 3, (const uint16_t[]){ 0x7fff, 0x8101, 0x0200 });
	expect_pkeys(&c, &green, false, 3, (const uint16_t[]){ 0x7fff, 0x8102, 0x0200 });
	/* blue asked for its tenant P_Key at index 0 */
	expect_pkeys(&c, &blue, false, 3, (const uint16_t[]){ 0x8103, 0x0200, 0x7fff });
	expect_pkeys(&c, &nas, false, 2, (const uint16_t[]){ 0x7fff, 0x8200 });
	expect_pkeys(&c, &stray, false, 1, (const uint16_t[]){ 0x7fff });
	expect_pkeys(&c, &smport, false, 2, (const uint16_t[]){ 0xffff, 0x8200 });
	expect_pkeys(&c, &sw1, false, 1, (const uint16_t[]){ 0xffff });
	part_group_params(must_find(&c, 0x0200), NULL, &g);
	assert_int_equal(g.mtu, 5);
	assert_int_equal(g.rate, 7);
	assert_int_equal(g.sl, 1);
	assert_int_equal(g.qkey, PART_IPOIB_QKEY);
	part_group_params(must_find(&c, 0x0103), NULL, &g);
	assert_int_equal(g.mtu, 4);
	assert_int_equal(g.rate, 3);
	check_round_trip(&c);
	part_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_case),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_pkeys),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_generated_pkeys),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_flag_errors),
		cmocka_unit_test(test_flag_repeats),
		cmocka_unit_test(test_defmember),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_member_errors),
		cmocka_unit_test(test_mgid),
		cmocka_unit_test(test_mgid_ip),
		cmocka_unit_test(test_mgid_errors),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_message_order),
		cmocka_unit_test(test_line_limits),
		cmocka_unit_test(test_file_limit),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_failed_parse_is_empty),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_resolver_kinds),
		cmocka_unit_test(test_resolver_membership),
		cmocka_unit_test(test_resolver_indx0),
		cmocka_unit_test(test_resolver_cap),
		cmocka_unit_test(test_self_warning),
		cmocka_unit_test(test_ipoib_mgid),
		cmocka_unit_test(test_opensm_style),
		cmocka_unit_test(test_tenants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
