/*
 * DOC: tests of the Prometheus page writer (pm/prom.c): the exporter's
 * names and labels, data counters in bytes, label escaping of untrusted
 * node descriptions, no sample for a counter never read, families whole,
 * the same page whatever the step budget, and `promtool check metrics`
 * (Debian's prometheus package) on the page.
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

#include "pm/prom.h"

#define SW 0x0002c90300001000ull
#define CA 0x0002c90300002000ull

struct page {
	char *s;
	size_t n, cap;
};

static void sink(void *arg, const char *s, size_t n)
{
	struct page *p = arg;

	if (p->n + n + 1 > p->cap) {
		p->cap = (p->n + n + 1) * 2;
		p->s = realloc(p->s, p->cap);
		assert_non_null(p->s);
	}
	memcpy(p->s + p->n, s, n);
	p->n += n;
	p->s[p->n] = '\0';
}

static bool node(void *arg, uint64_t guid, struct prom_node *out)
{
	if (guid == SW) {
		snprintf(out->name, sizeof(out->name), "leaf \"1\"\\a\nb\xc3\xa9");
		out->lid = 1;
	} else {
		snprintf(out->name, sizeof(out->name), "host1 HCA-1");
		out->lid = 5;
	}
	return true;
}

static bool peer(void *arg, uint64_t guid, uint8_t port, struct prom_peer *out)
{
	if (guid == SW && port == 1) {
		*out = (struct prom_peer){ CA, 5, 1, 0, "host1 HCA-1" };
		return true;
	}
	if (guid == CA) {
		*out = (struct prom_peer){ SW, 1, 1, 1, "leaf" };
		return true;
	}
	return false;
}

/* A PMA that answers everything: 1000 words sent, 3 symbol errors. */
static const struct pma_reply *answer(const struct pm_query *q, struct pma_reply *r)
{
	static const uint16_t attr[] = { PMA_ATTR_CLASS_PORT_INFO, PMA_ATTR_PORT_COUNTERS,
					 PMA_ATTR_PORT_COUNTERS_EXT, PMA_ATTR_PORT_COUNTERS };

	memset(r, 0, sizeof(*r));
	r->attr_id = attr[q->kind];
	if (q->kind == PM_Q_CPI) {
		r->u.cpi.cap_mask = PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT;
	} else if (q->kind == PM_Q_PC) {
		r->u.pc.port_select = q->port;
		r->u.pc.symbol_err = 3;
	} else if (q->kind == PM_Q_PCE) {
		r->u.pce.port_select = q->port;
		r->u.pce.xmit_data = 1000;
	}
	return r;
}

static struct pm *fabric(bool read)
{
	struct pm_target t[3] = {
		{ .guid = SW, .lid = 1, .port = 1, .is_switch = 1 },
		{ .guid = SW, .lid = 1, .port = 2, .is_switch = 1 },
		{ .guid = CA, .lid = 5, .port = 1,
		  .link_problems = PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED) },
	};
	struct pm_opts o;
	struct pm *pm;
	struct pm_query q[16];
	struct pma_reply r;
	size_t n;

	pm_opts_default(&o);
	pm = pm_new(&o, NULL, NULL);
	assert_int_equal(pm_set_targets(pm, t, 3), 0);
	while (read && (n = pm_next(pm, 1000, q, 16)) > 0)
		for (size_t i = 0; i < n; i++)
			pm_done(pm, &q[i], answer(&q[i], &r), 1000);
	return pm;
}

static char *page_of(struct pm *pm, size_t budget)
{
	struct prom_fabric fab = { node, peer, NULL };
	struct prom_sm_metrics sm = { .sweeps = 3, .sm_state = PROM_SM_MASTER,
				      .sa_latency_count = 2 };
	struct prom_writer *w = prom_writer_new(pm, &fab, &sm);
	struct page p = { 0 };
	unsigned steps = 0;

	while (prom_writer_step(w, budget, sink, &p))
		steps++;
	prom_writer_free(w);
	if (budget < 200)
		assert_true(steps > 20);
	return p.s;
}

static void test_names(void **state)
{
	struct pm *pm = fabric(true);
	char *s = page_of(pm, 1 << 20);

	assert_non_null(strstr(s, "# TYPE infiniband_switch_port_transmit_data_bytes_total counter\n"));
	/* 1000 words are 4000 bytes */
	assert_non_null(strstr(s, "infiniband_switch_port_transmit_data_bytes_total"
				  "{guid=\"0x0002c90300001000\",port=\"2\"} 4000\n"));
	assert_non_null(strstr(s, "infiniband_hca_port_symbol_error_total"
				  "{guid=\"0x0002c90300002000\",port=\"1\"} 3\n"));
	assert_non_null(strstr(s, "infiniband_hca_info{guid=\"0x0002c90300002000\","
				  "hca=\"host1 HCA-1\",lid=\"5\"} 1\n"));
	/* escaped: quote, backslash, newline; non-ASCII bytes replaced */
	assert_non_null(strstr(s, "infiniband_switch_info{guid=\"0x0002c90300001000\","
				  "switch=\"leaf \\\"1\\\"\\\\a\\nb??\",lid=\"1\"} 1\n"));
	assert_non_null(strstr(s, "infiniband_switch_uplink_info{guid=\"0x0002c90300001000\","
				  "port=\"1\",switch=\"leaf \\\"1\\\"\\\\a\\nb??\","
				  "uplink=\"host1 HCA-1\",uplink_guid=\"0x0002c90300002000\","
				  "uplink_lid=\"5\",uplink_port=\"1\",uplink_type=\"CA\"} 1\n"));
	assert_non_null(strstr(s, "infiniband_hca_uplink_info{guid=\"0x0002c90300002000\","
				  "port=\"1\",hca=\"host1 HCA-1\",uplink=\"leaf\","));
	assert_non_null(strstr(s, "ibsmd_port_problem{guid=\"0x0002c90300002000\",port=\"1\","
				  "problem=\"link_width_degraded\"} 1\n"));
	assert_non_null(strstr(s, "ibsmd_health_problems{problem=\"link_width_degraded\"} 1\n"));
	assert_non_null(strstr(s, "ibsmd_sm_state{state=\"master\"} 1\n"));
	assert_non_null(strstr(s, "ibsmd_sweeps_total 3\n"));
	/* the switch port of an HCA family and vice versa never mix */
	assert_null(strstr(s, "infiniband_hca_port_symbol_error_total{guid=\"0x0002c90300001000\""));
	free(s);
	pm_free(pm);
}

static void test_unread(void **state)
{
	struct pm *pm = fabric(false);
	char *s = page_of(pm, 1 << 20);

	/* never read: no counter samples, but the family and the nodes are there */
	assert_non_null(strstr(s, "# TYPE infiniband_hca_port_symbol_error_total counter\n"));
	assert_null(strstr(s, "infiniband_hca_port_symbol_error_total{"));
	assert_non_null(strstr(s, "infiniband_hca_info{"));
	free(s);
	pm_free(pm);
}

/* Each family is one block: its TYPE line once, every sample under the
 * TYPE line of its own family. */
static void test_families_whole(void **state)
{
	struct pm *pm = fabric(true);
	char *big = page_of(pm, 1 << 20), *small = page_of(pm, 64);
	char *line, *save = NULL, fam[128] = "";
	char *copy = strdup(big);
	unsigned types = 0;

	assert_string_equal(big, small);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "# TYPE %127s", fam) == 1) {
			char type[160];

			snprintf(type, sizeof(type), "# TYPE %s ", fam);
			assert_null(strstr(strstr(big, type) + 1, type));
			types++;
		} else if (line[0] != '#') {
			assert_int_equal(strncmp(line, fam, strlen(fam)), 0);
		}
	}
	assert_true(types > 2 * PM_NCTR);
	free(copy);
	free(big);
	free(small);
	pm_free(pm);
}

static void test_promtool(void **state)
{
	struct pm *pm = fabric(true);
	char *s = page_of(pm, 4096);
	char path[] = "/tmp/test_pm_prom.XXXXXX", cmd[256];
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		unlink(path);
		free(s);
		pm_free(pm);
		/* CI installs it (scripts/install-deps.sh) and sets IBSM_REQUIRE_SIM */
		if (getenv("IBSM_REQUIRE_SIM"))
			fail_msg("promtool is missing");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	rc = system(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
	free(s);
	pm_free(pm);
}

static void test_escape(void **state)
{
	char out[16];

	assert_int_equal(prom_escape("a\"b", out, sizeof(out)), 4);
	assert_string_equal(out, "a\\\"b");
	/* never past the buffer */
	assert_int_equal(prom_escape("\\\\\\\\\\\\\\\\\\\\", out, 8), 6);
	assert_string_equal(out, "\\\\\\\\\\\\");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_families_whole),
		cmocka_unit_test(test_promtool),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
