/*
 * DOC: unit tests of the clients state file (sm/clientfile.c): a value
 * with groups, members, trees, services and subscriptions survives a
 * round trip through the text and through the file; every kind of damage
 * is refused with a reason and an empty value (a wrong magic, a file cut
 * at every line boundary and in the middle of lines, a changed count, a
 * byte flipped anywhere, fields out of range, broken order, repeats,
 * broken trees); huge files are refused by the limits before they cost
 * memory; per-port limits hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sm/clientfile.h"

#define PREFIX 0xfe80000000000000ull

static struct sa_mcmember_rec group_rec(uint8_t last, uint16_t mlid)
{
	struct sa_mcmember_rec r;

	memset(&r, 0, sizeof(r));
	r.mgid[0] = 0xff;
	r.mgid[1] = 0x12;
	r.mgid[2] = 0x40;
	r.mgid[3] = 0x1b;
	r.mgid[15] = last;
	r.mlid = mlid;
	r.qkey = 0x0b1b;
	r.pkey = 0xffff;
	r.mtu = 4;
	r.rate = 3;
	r.pkt_life = 18;
	r.scope = 2;
	r.flow_label = 0x12345;
	r.mtu_sel = r.rate_sel = r.pkt_life_sel = 2;
	return r;
}

/* Two groups (one with a tree), two services, one subscription. */
static void sample(struct client_state *cs)
{
	struct sa_mcmember_rec r = group_rec(1, 0xc000);
	struct cf_service *s;
	struct cf_sub *u;

	client_state_init(cs);
	cs->sm_guid = 0x0002c90300000001ull;
	cs->subnet_prefix = PREFIX;
	cs->written_ms = 1700000000123ull;
	client_add_group(cs, &r, true, 0x11);
	client_add_member(cs, 0x11, 1, false, 0x11);
	client_add_member(cs, 0x12, 8, true, 0x11);
	client_add_member(cs, 0x13, 2, false, 0x13);
	client_add_tsw(cs, 0x100, CLIENT_NO_PARENT, 0);
	client_add_tsw(cs, 0x101, 0, 3);
	client_add_tsw(cs, 0x102, 0, 4);
	client_add_tsw(cs, 0x103, 1, 1);
	r = group_rec(2, 0xc003);
	r.sl = 3;
	client_add_group(cs, &r, false, 0x11);
	client_add_member(cs, 0x11, 1, false, 0x11);
	for (int i = 0; i < 2; i++) {
		s = client_add_service(cs);
		memset(s->rec, 0xa0 + i, sizeof(s->rec));
		s->owner_guid = 0x11 + (uint64_t)i;
		s->lease_end_ms = i ? CLIENT_NEVER : 1700000060000ull;
	}
	u = client_add_sub(cs);
	u->gid[0] = 0xfe;
	u->gid[1] = 0x80;
	u->gid[15] = 0x11;
	u->id = 7;
	u->lid = 13;
	u->ii.lid_begin = 0xffff;
	u->ii.is_generic = 1;
	u->ii.subscribe = 1;
	u->ii.type = 0xffff;
	u->ii.trap_num = 66;
	u->ii.qpn = 1;
	u->ii.resp_time_value = 19;
	u->ii.producer_type = 0xffffff;
	u->to.dlid = 13;
	u->to.qpn = 1;
	u->to.qkey = 0x80010000u;
	u->to.sl = 2;
	u->to.grh_present = 1;
	u->to.flow_label = 0xabcde;
	u->to.gid[15] = 0x11;
}

static int parse(struct client_state *cs, const char *text, size_t len, char *err)
{
	struct client_limits lim;

	client_limits_default(&lim);
	return client_state_parse(cs, "t", text, len, &lim, err, 256);
}

static bool same(const struct client_state *a, const struct client_state *b)
{
	size_t la, lb;
	char *ta = client_state_format(a, &la), *tb = client_state_format(b, &lb);
	bool eq = la == lb && !memcmp(ta, tb, la);

	free(ta);
	free(tb);
	return eq;
}

static void test_round_trip(void **st)
{
	struct client_state a, b;
	size_t len;
	char *text, err[256];

	sample(&a);
	text = client_state_format(&a, &len);
	assert_int_equal(parse(&b, text, len, err), 0);
	assert_int_equal(b.ngroups, 2);
	assert_int_equal(b.nmembers, 4);
	assert_int_equal(b.ntsw, 4);
	assert_int_equal(b.nservices, 2);
	assert_int_equal(b.nsubs, 1);
	assert_memory_equal(&b.groups[0].rec, &a.groups[0].rec, sizeof(a.groups[0].rec));
	assert_true(b.groups[0].well_known);
	assert_int_equal(b.members[1].join_state, 8);
	assert_true(b.members[1].proxy);
	assert_int_equal(b.tsw[3].parent, 1);
	assert_int_equal(b.tsw[3].up, 1);
	assert_memory_equal(b.services[0].rec, a.services[0].rec, CLIENT_SR_SIZE);
	assert_int_equal(b.services[1].lease_end_ms, CLIENT_NEVER);
	assert_memory_equal(&b.subs[0].ii, &a.subs[0].ii, sizeof(a.subs[0].ii));
	assert_memory_equal(&b.subs[0].to, &a.subs[0].to, sizeof(a.subs[0].to));
	assert_true(same(&a, &b));
	free(text);
	client_state_free(&a);
	client_state_free(&b);
}

static void test_empty(void **st)
{
	struct client_state a, b;
	size_t len;
	char *text, err[256];

	client_state_init(&a);
	text = client_state_format(&a, &len);
	assert_int_equal(parse(&b, text, len, err), 0);
	assert_int_equal(b.ngroups + b.nservices + b.nsubs, 0);
	free(text);
	client_state_free(&b);
}

static void test_file(void **st)
{
	char dir[] = "/tmp/test_clientfile.XXXXXX", err[256], path[64];
	struct client_state a, b;
	struct client_limits lim;

	client_limits_default(&lim);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(client_state_load(&b, dir, &lim, err, sizeof(err)), 0);
	sample(&a);
	assert_int_equal(client_state_save(&a, dir, err, sizeof(err)), 0);
	assert_int_equal(client_state_load(&b, dir, &lim, err, sizeof(err)), 1);
	assert_true(same(&a, &b));
	client_state_free(&b);
	snprintf(path, sizeof(path), "%s/clients", dir);
	assert_int_equal(truncate(path, 100), 0);
	assert_int_equal(client_state_load(&b, dir, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "clients:"));
	assert_int_equal(b.ngroups, 0);
	unlink(path);
	rmdir(dir);
	client_state_free(&a);
}

/* Cut after every byte: only the whole text parses. */
static void test_truncated(void **st)
{
	struct client_state a, b;
	size_t len;
	char *text, err[256];

	sample(&a);
	text = client_state_format(&a, &len);
	for (size_t cut = 0; cut < len; cut++) {
		assert_int_equal(parse(&b, text, cut, err), -1);
		assert_int_equal(b.ngroups + b.nmembers + b.nservices + b.nsubs, 0);
	}
	free(text);
	client_state_free(&a);
}

/* A byte changed anywhere: refused, or the same kind of value (a flipped
 * hex digit of a record may still be a valid record), never a crash. */
static void test_corrupt(void **st)
{
	static const char junk[] = { 'z', ' ', '\n', '\0', '0', 'f', '-', 'x' };
	struct client_state a, b;
	size_t len, refused = 0;
	char *text, err[256];

	sample(&a);
	text = client_state_format(&a, &len);
	for (size_t i = 0; i < len; i++) {
		for (size_t j = 0; j < sizeof(junk); j++) {
			char was = text[i];

			text[i] = junk[j];
			if (parse(&b, text, len, err) < 0) {
				refused++;
				assert_true(err[0] != '\0');
			}
			client_state_free(&b);
			text[i] = was;
		}
	}
	assert_true(refused > len * 4);
	free(text);
	client_state_free(&a);
}

static void expect_refused(const char *text, const char *why)
{
	struct client_state b;
	char err[256];

	assert_int_equal(parse(&b, text, strlen(text), err), -1);
	if (!strstr(err, why))
		fail_msg("\"%s\" refused with \"%s\", not \"%s\"", text, err, why);
	assert_int_equal(b.ngroups, 0);
}

#define HEAD "ibsmd-clients 2\nsm 0x1 0xfe80000000000000 1\n"
#define MGID1 "ff12401b000000000000000000000001"
#define MGID2 "ff12401b000000000000000000000002"
#define GRP(mgid, mlid) "group " mgid " " mlid " 0x00000b1b 0xffff 4 3 18 0 0 0x00000 0 2 0 0x0\n"

static void test_refused(void **st)
{
	expect_refused("ibsmd-lids 2\n", "not an ibsmd clients file");
	expect_refused("ibsmd-clients 3\nend 0 0 0 0 0\n", "not an ibsmd clients file");
	expect_refused("ibsmd-clients 2\nend 0 0 0 0 0\n", "sm line first");
	expect_refused(HEAD GRP(MGID1, "0xc000") "member 0x11 1 0\nend 1 1 0 0 0\n",
		       "expected \"member 0xGUID JOINSTATE PROXY 0xMAKER");
	expect_refused(HEAD "group " MGID1 " 0xc000 0x00000b1b 0xffff 4 3 18 0 0 0x00000 0 2 0\n"
		       "end 1 0 0 0 0\n", "0xCREATOR");
	expect_refused(HEAD "end 1 0 0 0 0\n", "counts do not match");
	expect_refused(HEAD "end 0 0 0 0 0\nend 0 0 0 0 0\n", "after the end");
	expect_refused(HEAD "end 0 0 0 0 0", "no newline");
	expect_refused(HEAD "end  0 0 0 0 0\n", "single spaces");
	expect_refused(HEAD "bogus 1\nend 0 0 0 0 0\n", "unknown line");
	expect_refused(HEAD "member 0x11 1 0 0x11\nend 0 1 0 0 0\n", "outside a group");
	expect_refused(HEAD GRP(MGID1, "0xbfff") "end 1 0 0 0 0\n", "out of range");
	expect_refused(HEAD GRP(MGID1, "0xffff") "end 1 0 0 0 0\n", "out of range");
	expect_refused(HEAD GRP(MGID1, "0x10000") "end 1 0 0 0 0\n", "expected \"group");
	expect_refused(HEAD GRP(MGID2, "0xc000") GRP(MGID1, "0xc001") "end 2 0 0 0 0\n",
		       "not in MGID order");
	expect_refused(HEAD GRP(MGID1, "0xc000") GRP(MGID1, "0xc001") "end 2 0 0 0 0\n",
		       "not in MGID order");
	expect_refused(HEAD GRP(MGID1, "0xc000") GRP(MGID2, "0xc000") "end 2 0 0 0 0\n",
		       "used twice");
	expect_refused(HEAD GRP(MGID1, "0xc000")
		       "member 0x12 1 0 0x0\nmember 0x11 1 0 0x0\nend 1 2 0 0 0\n",
		       "not in GUID order");
	expect_refused(HEAD GRP(MGID1, "0xc000") "member 0x11 0 0 0x0\nend 1 1 0 0 0\n", "JoinState");
	expect_refused(HEAD GRP(MGID1, "0xc000") "member 0x11 16 0 0x0\nend 1 1 0 0 0\n", "JoinState");
	expect_refused(HEAD GRP(MGID1, "0xc000") "member 0x11 1 2 0x0\nend 1 1 0 0 0\n",
		       "expected \"member");
	expect_refused(HEAD GRP(MGID1, "0xc000") "member 11 1 0 0x0\nend 1 1 0 0 0\n",
		       "expected \"member");
	expect_refused(HEAD GRP(MGID1, "0xc000") "tsw 0x5 1 0\nend 1 0 1 0 0\n", "outside a tree");
	expect_refused(HEAD GRP(MGID1, "0xc000") "tree 0x5\ntsw 0x6 1 1\nend 1 0 2 0 0\n",
		       "not a tree");
	expect_refused(HEAD GRP(MGID1, "0xc000") "tree 0x5\ntsw 0x5 1 0\nend 1 0 2 0 0\n",
		       "not a tree");
	expect_refused(HEAD GRP(MGID1, "0xc000") "tree 0x5\ntsw 0x6 0 0\nend 1 0 2 0 0\n",
		       "not a tree");
	expect_refused(HEAD GRP(MGID1, "0xc000") "tree 0x5\ntree 0x6\nend 1 0 2 0 0\n", "twice");
	expect_refused(HEAD GRP(MGID1, "0xc000") "tree 0x5\nmember 0x1 1 0 0x0\nend 1 1 1 0 0\n",
		       "after its tree");
	expect_refused(HEAD "service 00 0x1 0 never\nend 0 0 0 0 0\n", "expected \"service");
	expect_refused(HEAD "sub 00\nend 0 0 0 0 0\n", "expected \"sub");
}

static void test_service_rules(void **st)
{
	struct client_state a, b;
	size_t len;
	char *text, err[256];

	sample(&a);
	a.services[1].owner_guid = 0;
	a.services[1].owner_lid = 0;
	text = client_state_format(&a, &len);
	assert_int_equal(parse(&b, text, len, err), -1);
	assert_non_null(strstr(err, "without an owner"));
	free(text);
	a.services[1].owner_lid = 12;
	memcpy(a.services[1].rec, a.services[0].rec, 26);
	text = client_state_format(&a, &len);
	assert_int_equal(parse(&b, text, len, err), -1);
	assert_non_null(strstr(err, "listed twice"));
	free(text);
	client_state_free(&a);
}

/* Far more groups than allowed: refused at the limit, without reading on. */
static void test_huge(void **st)
{
	struct client_limits lim;
	struct client_state b;
	size_t n = 20000, off = 0, cap = n * 96 + 256;
	char *text = malloc(cap), err[256];

	client_limits_default(&lim);
	off += (size_t)snprintf(text + off, cap - off, HEAD);
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, cap - off,
					"group ff12401b0000000000000000%08zx 0x%04zx 0x00000b1b 0xffff 4 3 "
					"18 0 0 0x00000 0 2 0 0x0\n", i, 0xc000 + i % 0x3fff);
	off += (size_t)snprintf(text + off, cap - off, "end %zu 0 0 0 0\n", n);
	assert_int_equal(client_state_parse(&b, "t", text, off, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 16383 groups"));
	lim.groups = 10;
	assert_int_equal(client_state_parse(&b, "t", text, off, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "t:13: more than 10 groups"));
	free(text);
}

static void test_per_port_limits(void **st)
{
	struct client_limits lim;
	struct client_state a, b;
	size_t len;
	char *text, err[256];

	sample(&a);
	text = client_state_format(&a, &len);
	client_limits_default(&lim);
	lim.memberships_per_port = 2;   /* 0x11 made three: its own two, 0x12's */
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "made more than 2 memberships"));
	lim.memberships_per_port = 3;
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), 0);
	client_state_free(&b);
	lim.groups_per_port = 1;        /* 0x11 created both groups */
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "created more than 1 groups"));
	lim.groups_per_port = 2;
	lim.groups_per_partition = 1;   /* both in the default partition */
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 1 groups created in a partition"));
	lim.groups_per_partition = 2;
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), 0);
	client_state_free(&b);
	lim.services_per_owner = 1;
	a.services[1].owner_guid = a.services[0].owner_guid;
	free(text);
	text = client_state_format(&a, &len);
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 1 services"));
	lim.services_per_owner = 0;
	lim.subs_per_port = 0;
	lim.subs = 0;
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), 0);
	client_state_free(&b);
	lim.subs = 1;
	*client_add_sub(&a) = a.subs[0];
	free(text);
	text = client_state_format(&a, &len);
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 1 subscriptions"));
	lim.subs = 0;
	lim.subs_per_port = 1;
	assert_int_equal(client_state_parse(&b, "t", text, len, &lim, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 1 subscriptions"));
	free(text);
	client_state_free(&a);
}

/* A file of version 1 is read: groups without creator, members their
 * own makers unless a proxy joined them. */
static void test_version1(void **st)
{
	static const char v1[] = "ibsmd-clients 1\nsm 0x1 0xfe80000000000000 1\n"
		"group " MGID1 " 0xc000 0x00000b1b 0xffff 4 3 18 0 0 0x00000 0 2 0\n"
		"member 0x11 1 0\nmember 0x12 1 1\nend 1 2 0 0 0\n";
	struct client_state b;
	char err[256];

	assert_int_equal(parse(&b, v1, strlen(v1), err), 0);
	assert_int_equal(b.ngroups, 1);
	assert_int_equal(b.groups[0].creator, 0);
	assert_int_equal(b.members[0].by, 0x11);
	assert_int_equal(b.members[1].by, 0);
	client_state_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_service_rules),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_per_port_limits),
		cmocka_unit_test(test_version1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
