/*
 * DOC: tests of the ibnetdiscover / ibsim net parser.
 *
 * Good inputs in both dialects (GUIDs must equal what ibsim assigns and
 * ibnetdiscover reports for the same file), the symmetric-link rule, and
 * one test per error path: each must name the right line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "routing/topo_parse.h"

/* /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca, abridged. */
static const char ibsim_net[] =
	"# comment\n"
	"Switch\t8 \"Switch1\"\n"
	"[1]\t\"Hca1\"[1]\n"
	"[2]\t\"Hca3\"[1]\n"
	"[3]\t\"Switch2\"[3]\n"
	"[5]\t\"Switch2\"[5]\tw=4\n"
	"\n"
	"Switch 8 \"Switch2\"\n"
	"[1]\t\"Hca2\"[1]\n"
	"[2]\t\"Hca4\"[1]\n"
	"[3]\t\"Switch1\"[3]\n"
	"[5]\t\"Switch1\"[5]\n"
	"\n"
	"Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n\n"
	"Hca\t2 \"Hca2\"\n[1]\t\"Switch2\"[1]\n\n"
	"Hca\t2 \"Hca3\"\n[1]\t\"Switch1\"[2]\n\n"
	"Hca \t2 \"Hca4\"\n[1]\t\"Switch2\"[2]\n";

/* What ibnetdiscover printed for that fabric on ibsim after OpenSM ran. */
static const char ibnd[] =
	"#\n# Topology file: generated on Mon Nov 23 02:24:03 2026\n#\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x200001\nswitchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 2 4xSDR\n"
	"\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x200000\nswitchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 1 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100003\ncaguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"caguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 1 lmc 0 \"Switch1\" lid 2 4xSDR\n";

static uint32_t find(const struct topo *t, const char *desc)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (!strcmp(t->nodes[i].desc, desc))
			return i;
	fail_msg("no node %s", desc);
	return 0;
}

static void test_ibsim_net(void **state)
{
	struct topo t;
	char err[200];

	(void)state;
	assert_int_equal(topo_parse(ibsim_net, strlen(ibsim_net), &t, err, sizeof(err)), 0);
	assert_int_equal(t.nnodes, 6);
	/* ibsim: switches 0x200000 + n, CAs 0x100000 + 3n (2 ports), in file order;
	 * ibnetdiscover on ibsim reported exactly these. */
	const struct topo_node *s1 = &t.nodes[find(&t, "Switch1")];
	const struct topo_node *h4 = &t.nodes[find(&t, "Hca4")];
	assert_int_equal(s1->guid, 0x200000);
	assert_int_equal(t.nodes[find(&t, "Switch2")].guid, 0x200001);
	assert_int_equal(t.nodes[find(&t, "Hca2")].guid, 0x100003);
	assert_int_equal(h4->guid, 0x100009);
	assert_int_equal(h4->ports[1].guid, 0x10000a);
	assert_int_equal(h4->type, TOPO_CA);
	assert_int_equal(s1->type, TOPO_SWITCH);
	assert_int_equal(s1->nports, 8);
	assert_int_equal(s1->ports[5].peer_node, find(&t, "Switch2"));
	assert_int_equal(s1->ports[5].peer_port, 5);
	assert_int_equal(s1->ports[5].width, 2);
	assert_int_equal(t.nodes[find(&t, "Switch2")].ports[5].width, 2);
	assert_int_equal(s1->ports[4].peer_node, TOPO_NONE);
	assert_int_equal(h4->ports[2].peer_node, TOPO_NONE);
	assert_int_equal(s1->ports[0].lid, 0);
	topo_free(&t);
}

static void test_ibnetdiscover(void **state)
{
	struct topo t;
	char err[200];

	(void)state;
	assert_int_equal(topo_parse(ibnd, strlen(ibnd), &t, err, sizeof(err)), 0);
	assert_int_equal(t.nnodes, 4);
	const struct topo_node *s2 = &t.nodes[find(&t, "Switch2")];
	const struct topo_node *h2 = &t.nodes[find(&t, "Hca2")];
	assert_int_equal(s2->guid, 0x200001);
	assert_int_equal(s2->ports[0].lid, 3);
	assert_int_equal(h2->guid, 0x100003);
	assert_int_equal(h2->ports[1].guid, 0x100004);
	assert_int_equal(h2->ports[1].lid, 4);
	assert_int_equal(h2->ports[1].speed, 1);
	assert_int_equal(h2->ports[1].peer_node, find(&t, "Switch2"));
	assert_int_equal(s2->ports[1].peer_node, find(&t, "Hca2"));
	assert_int_equal(t.nodes[find(&t, "Switch1")].ports[0].lid, 2);
	topo_free(&t);
}

/* One side is enough; GUID lines set the next GUID and numbering goes on. */
static void test_one_sided_and_guid_base(void **state)
{
	static const char in[] =
		"switchguid=0x1000\n"
		"Switch 4 \"a\"\n[1] \"b\"[2]\n[2] \"h\"[1]\n\n"
		"Switch 4 \"b\"\n\n"
		"caguid=0x50\nHca 1 \"h\"\n\nHca 3 \"h2\"\n[3] \"b\"[4]\n";
	struct topo t;
	char err[200];

	(void)state;
	assert_int_equal(topo_parse(in, strlen(in), &t, err, sizeof(err)), 0);
	const struct topo_node *b = &t.nodes[find(&t, "b")];
	assert_int_equal(t.nodes[find(&t, "a")].guid, 0x1000);
	assert_int_equal(b->guid, 0x1001);
	assert_int_equal(b->ports[2].peer_node, find(&t, "a"));
	assert_int_equal(b->ports[2].peer_port, 1);
	assert_int_equal(b->ports[4].peer_node, find(&t, "h2"));
	assert_int_equal(t.nodes[find(&t, "h")].guid, 0x50);
	assert_int_equal(t.nodes[find(&t, "h2")].guid, 0x52);
	assert_int_equal(t.nodes[find(&t, "h2")].ports[3].guid, 0x55);
	topo_free(&t);
}

static void expect_error(const char *in, const char *msg)
{
	struct topo t;
	char err[200] = "";

	if (topo_parse(in, strlen(in), &t, err, sizeof(err)) == 0)
		fail_msg("accepted: %s", in);
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "line 1: no nodes");
	expect_error("Switch 0 \"a\"\n", "line 1: port count");
	expect_error("Switch 255 \"a\"\n", "line 1: port count");
	expect_error("Switch 4 a\n", "line 1: expected a quoted node name");
	expect_error("Switch 4 \"\"\n", "line 1: expected a quoted node name");
	expect_error("Blah 4 \"a\"\n", "line 1: expected Switch");
	expect_error("[1] \"b\"[1]\n", "line 1: port line outside");
	expect_error("Switch 4 \"a\"\n\n[1] \"b\"[1]\n", "line 3: port line outside");
	expect_error("Switch 4 \"a\"\n[5] \"b\"[1]\n", "line 2: bad local port");
	expect_error("Switch 4 \"a\"\n[0] \"b\"[1]\n", "line 2: bad local port");
	expect_error("Switch 4 \"a\"\n[1](zz) \"b\"[1]\n", "line 2: bad port GUID");
	expect_error("Switch 4 \"a\"\n[1] b[1]\n", "line 2: expected a quoted remote");
	expect_error("Switch 4 \"a\"\n[1] \"b\"[x]\n", "line 2: bad remote port");
	expect_error("Switch 4 \"a\"\n[1] \"b\"\n", "line 2: bad remote port");
	expect_error("Switch 4 \"a\"\n[1] \"b\"[1](q)\n", "line 2: bad remote port GUID");
	expect_error("Switch 4 \"a\"\n[1] \"b\"[1]\n[1] \"b\"[2]\n", "line 3: port 1 listed twice");
	expect_error("Switch 4 \"a\"\n[1] \"zz\"[1]\n", "line 2: unknown node \"zz\"");
	expect_error("Switch 4 \"a\"\n\nSwitch 4 \"a\"\n", "line 3: node \"a\" defined twice");
	expect_error("Switch 4 \"a\"\n[1] \"a\"[1]\n", "line 2: port 1 is linked to itself");
	expect_error("Switch 4 \"a\"\n[1] \"b\"[9]\n\nSwitch 4 \"b\"\n", "line 2: \"b\" has only 4");
	expect_error("Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n[1] \"a\"[2]\n",
		     "line 5: [1] -> \"a\"[2] conflicts");
	expect_error("caguid=0xzz\n", "line 1: bad GUID after caguid=");
	expect_error("switchguid=0x10000000000000000\n", "line 1: bad GUID");
}

/* Binary junk, NULs, and truncated lines are errors, never crashes. */
static void test_junk(void **state)
{
	static const char junk[] = "Switch 4 \"a\0b\"\n[1] \"\xff\"[";
	struct topo t;
	char err[200];

	(void)state;
	assert_int_equal(topo_parse(junk, sizeof(junk) - 1, &t, err, sizeof(err)), -1);
	assert_int_equal(topo_parse("Switch 4 \"a", 11, &t, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibsim_net),
		cmocka_unit_test(test_ibnetdiscover),
		cmocka_unit_test(test_one_sided_and_guid_base),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_junk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
