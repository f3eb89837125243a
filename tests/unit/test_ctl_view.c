/*
 * DOC: unit tests of the fabric views streamed replies read
 * (ctl/ctl_view.c): what the items say, each link once, a node's ports,
 * views compared for sharing, and a view outliving its fabric.
 *
 * The fabric: switches S1 (GUID 0x20) and S2 (0x10) linked S1[3]-S2[4];
 * CA H1 (0x1) on S1[1], H2 (0x2) on S2[1]; H3 (0x3, two ports) unlinked.
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

#include "ctl/ctl_view.h"
#include "fabric/fabric.h"

static struct sm_node *node(struct sm_fabric *f, uint8_t type, uint64_t guid, uint8_t ports,
			    const char *desc)
{
	struct smp_node_info ni = { .node_type = type, .num_ports = ports, .node_guid = guid,
				    .port_guid = guid };
	struct sm_node *n = fabric_add(f, &ni);

	snprintf(n->desc, sizeof(n->desc), "%s", desc);
	n->hop_cnt = type == TOPO_SWITCH ? 1 : 2;
	return n;
}

/* Both ends active, 4x QDR. */
static void up(struct sm_port *p)
{
	p->have_pi = true;
	p->pi.port_state = 4;
	p->pi.link_width_active = 2;
	p->pi.link_speed_active = 4;
}

static struct sm_fabric *fabric(void)
{
	struct sm_fabric *f = fabric_new();
	struct sm_node *s1 = node(f, TOPO_SWITCH, 0x20, 4, "S1");
	struct sm_node *s2 = node(f, TOPO_SWITCH, 0x10, 4, "S2");
	struct sm_node *h1 = node(f, TOPO_CA, 0x1, 1, "H1");
	struct sm_node *h2 = node(f, TOPO_CA, 0x2, 1, "H2");

	node(f, TOPO_CA, 0x3, 2, "H3");
	assert_int_equal(fabric_link(f, s1, 3, s2, 4), 0);
	assert_int_equal(fabric_link(f, s1, 1, h1, 1), 0);
	assert_int_equal(fabric_link(f, s2, 1, h2, 1), 0);
	up(&s1->ports[3]);
	up(&s2->ports[4]);
	up(&s1->ports[1]);
	up(&h1->ports[1]);
	s1->ports[0].lid = 1;
	s2->ports[0].lid = 2;
	h1->ports[1].lid = 3;
	return f;
}

/* Item i of list l as text, "" when it is no item. */
static char *item(const struct ctl_view *v, enum ctl_view_list l, size_t i)
{
	json_object *o = ctl_view_item(v, l, i);
	char *s = strdup(o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "");

	if (o)
		json_object_put(o);
	return s;
}

static void expect_item(const struct ctl_view *v, enum ctl_view_list l, size_t i, const char *want)
{
	char *s = item(v, l, i);

	assert_string_equal(s, want);
	free(s);
}

static void test_items(void **state)
{
	struct sm_fabric *f = fabric();
	struct ctl_view *v = ctl_view_take(f);
	json_object *live = ctl_node_json(f->nodes[0]);

	assert_int_equal(ctl_view_count(v, CTL_VIEW_NODES), 5);
	assert_int_equal(ctl_view_count(v, CTL_VIEW_PORTS), 4 + 4 + 1 + 1 + 2);
	expect_item(v, CTL_VIEW_NODES, 0,
		    "{\"guid\":\"0x0000000000000020\",\"type\":\"switch\",\"ports\":4,\"lid\":1,"
		    "\"hops\":1,\"desc\":\"S1\"}");
	/* the same text as for a node of the live fabric */
	expect_item(v, CTL_VIEW_NODES, 0, json_object_to_json_string_ext(live, JSON_C_TO_STRING_PLAIN));
	expect_item(v, CTL_VIEW_NODES, 5, "");
	/* S1 port 3: up, its peer S2 port 4 */
	expect_item(v, CTL_VIEW_PORTS, 2,
		    "{\"guid\":\"0x0000000000000020\",\"desc\":\"S1\",\"port\":3,\"state\":\"active\","
		    "\"width\":\"4x\",\"speed\":\"QDR\",\"lid\":0,\"peer\":{\"guid\":"
		    "\"0x0000000000000010\",\"port\":4,\"desc\":\"S2\"}}");
	/* H3 port 2: never read, no peer */
	expect_item(v, CTL_VIEW_PORTS, 11,
		    "{\"guid\":\"0x0000000000000003\",\"desc\":\"H3\",\"port\":2,\"state\":\"unknown\","
		    "\"width\":\"?\",\"speed\":\"?\",\"lid\":0,\"peer\":null}");
	json_object_put(live);
	ctl_view_unref(v);
	fabric_free(f);
}

/* Three links, each listed once, from the end with the smaller GUID; a
 * link is only as up as its lower end (H2's port was never read). */
static void test_links(void **state)
{
	struct sm_fabric *f = fabric();
	struct ctl_view *v = ctl_view_take(f);
	size_t n = 0;

	for (size_t i = 0; i < ctl_view_count(v, CTL_VIEW_LINKS); i++) {
		char *s = item(v, CTL_VIEW_LINKS, i);

		n += s[0] != '\0';
		free(s);
	}
	assert_int_equal(n, 3);
	/* S1[3]-S2[4] from S2 (0x10 < 0x20): position 4 + 3, not 2 */
	expect_item(v, CTL_VIEW_LINKS, 2, "");
	expect_item(v, CTL_VIEW_LINKS, 7,
		    "{\"from\":{\"guid\":\"0x0000000000000010\",\"port\":4,\"desc\":\"S2\"},"
		    "\"to\":{\"guid\":\"0x0000000000000020\",\"port\":3,\"desc\":\"S1\"},"
		    "\"state\":\"active\",\"width\":\"4x\",\"speed\":\"QDR\"}");
	/* S2[1]-H2[1] from H2 (0x2), whose port was never read */
	expect_item(v, CTL_VIEW_LINKS, 9,
		    "{\"from\":{\"guid\":\"0x0000000000000002\",\"port\":1,\"desc\":\"H2\"},"
		    "\"to\":{\"guid\":\"0x0000000000000010\",\"port\":1,\"desc\":\"S2\"},"
		    "\"state\":\"nochange\",\"width\":\"?\",\"speed\":\"?\"}");
	ctl_view_unref(v);
	fabric_free(f);
}

static void test_node_ports(void **state)
{
	struct sm_fabric *f = fabric();
	struct ctl_view *v = ctl_view_take(f);
	size_t first, end;

	ctl_view_node_ports(v, 4, &first, &end);   /* H3 */
	assert_int_equal(first, 10);
	assert_int_equal(end, 12);
	ctl_view_node_ports(v, 1, &first, &end);   /* S2 */
	assert_int_equal(first, 4);
	assert_int_equal(end, 8);
	ctl_view_node_ports(v, 5, &first, &end);   /* no such node */
	assert_int_equal(first, end);
	ctl_view_unref(v);
	fabric_free(f);
}

/* Views of an unchanged fabric stand for each other; any change shown
 * in a reply makes them differ. */
static void test_same(void **state)
{
	struct sm_fabric *f = fabric();
	struct ctl_view *a = ctl_view_take(f), *b = ctl_view_take(f), *c;

	assert_true(ctl_view_same(a, b));
	f->nodes[0]->ports[3].pi.port_state = 1;
	c = ctl_view_take(f);
	assert_false(ctl_view_same(a, c));
	ctl_view_unref(c);
	f->nodes[0]->ports[3].pi.port_state = 4;
	snprintf(f->nodes[2]->desc, sizeof(f->nodes[2]->desc), "H1 renamed");
	c = ctl_view_take(f);
	assert_false(ctl_view_same(a, c));
	ctl_view_unref(c);
	ctl_view_unref(b);
	ctl_view_unref(a);
	fabric_free(f);
}

/* A view reads nothing of the fabric it was taken from (ASan checks). */
static void test_outlives_fabric(void **state)
{
	struct sm_fabric *f = fabric();
	struct ctl_view *v = ctl_view_take(f);

	fabric_free(f);
	assert_true(ctl_view_alone(v));
	assert_ptr_equal(ctl_view_ref(v), v);
	assert_false(ctl_view_alone(v));
	ctl_view_unref(v);
	expect_item(v, CTL_VIEW_NODES, 4,
		    "{\"guid\":\"0x0000000000000003\",\"type\":\"ca\",\"ports\":2,\"lid\":0,"
		    "\"hops\":2,\"desc\":\"H3\"}");
	assert_true(ctl_view_bytes(v) > 5 * 65);
	ctl_view_unref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_node_ports),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_outlives_fabric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
