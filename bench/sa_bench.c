/*
 * DOC: sa-bench, the CPU cost of one SA query, on fabrics of any size.
 *
 * The SA runs on a synthetic snapshot (tests/unit/sa_fixture.h: a 3-level
 * fat tree with real LIDs and routing tables) with a fake environment that
 * only counts sends, and answers N queries of one kind from random host
 * pairs; the CPU time per query (CLOCK_PROCESS_CPUTIME_ID) is printed for
 * each kind. Running it on a small and on a 40k-LID fabric shows whether
 * a query's cost depends on the fabric's size: the work per query does
 * not (O(hops) and hashed lookups); on a large fabric random pairs miss
 * the cache at every hop, which the "one pair over and over" line, the
 * same work with everything in cache, tells apart.
 *
 *   sa-bench [-k RADIX] [-n QUERIES] [-s SEED]
 *     -k  ft3 radix (default 54: 39366 hosts, 3645 switches, 43011 LIDs)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/sa.h"
#include "sa/sa.h"
#include "tests/unit/sa_fixture.h"

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct bench {
	struct sa_fx f;
	uint16_t *lids;
	uint64_t *guids;
	unsigned nhosts;
	uint64_t seed;
};

static void hosts(struct bench *b)
{
	const struct topo *t = &b->f.b.t;

	b->lids = calloc(t->nnodes, sizeof(*b->lids));
	b->guids = calloc(t->nnodes, sizeof(*b->guids));
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == TOPO_CA) {
			b->lids[b->nhosts] = t->nodes[i].ports[1].lid;
			b->guids[b->nhosts++] = t->nodes[i].ports[1].guid;
		}
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_gid(uint8_t *p, uint64_t guid)
{
	for (int i = 0; i < 8; i++) {
		p[i] = (uint8_t)(SA_FX_PREFIX >> (56 - 8 * i));
		p[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

enum kind { PR_LIDS, PR_GIDS, PR_SAME, NR_LID, PIR_LID, KINDS };
static const char *const kind_name[KINDS] = {
	"PathRecord Get by SLID/DLID", "PathRecord Get by SGID/DGID (RDMA CM mask)",
	"PathRecord Get, one pair over and over", "NodeRecord Get by LID",
	"PortInfoRecord GetTable by LID",
};

/* One request of kind k between random hosts, as a MAD. */
static size_t request(struct bench *b, enum kind k, uint8_t *mad)
{
	unsigned s = (unsigned)(tb_rand(&b->seed) % b->nhosts);
	unsigned d = (unsigned)(tb_rand(&b->seed) % b->nhosts);
	uint8_t t[200] = { 0 };

	switch (k) {
	case PR_SAME:
		/* the same pair, far apart: the same work, all of it in cache */
		s = 0;
		d = b->nhosts - 1;
		/* fall through */
	case PR_LIDS:
		put16(t + 42, b->lids[s]);
		put16(t + 40, b->lids[d]);
		return sa_fx_mad(&b->f, mad, SA_METHOD_GET, SA_ATTR_PATH_REC, 0, 0x30, t, 64, 0);
	case PR_GIDS:
		put_gid(t + 8, b->guids[d]);
		put_gid(t + 24, b->guids[s]);
		t[49] = 0x81;
		t[50] = t[51] = 0xFF;
		return sa_fx_mad(&b->f, mad, SA_METHOD_GET, SA_ATTR_PATH_REC, 0, 0x380F, t, 64, 0);
	case NR_LID:
		put16(t, b->lids[d]);
		return sa_fx_mad(&b->f, mad, SA_METHOD_GET, SA_ATTR_NODE_REC, 0, 1, t, 108, 0);
	default:
		put16(t, b->lids[d]);
		return sa_fx_mad(&b->f, mad, SA_METHOD_GET_TABLE, SA_ATTR_PORT_INFO_REC, 0, 1, t, 68, 0);
	}
}

static void run(struct bench *b, enum kind k, unsigned n)
{
	uint8_t mad[MAD_SIZE];
	unsigned ok = 0;
	double t0;

	t0 = cpu_s();
	for (unsigned i = 0; i < n; i++) {
		size_t len = request(b, k, mad);
		struct sa_fx_resp r;

		sa_fx_send(&b->f, mad, len, b->lids[i % b->nhosts]);
		if (sa_fx_last(&b->f, &r) && !r.h.hdr.status)
			ok++;
		if (b->f.nsent > 4096) {   /* the fixture keeps what was sent */
			for (size_t j = 0; j < b->f.nsent; j++)
				free(b->f.sent[j].msg);
			b->f.nsent = 0;
		}
	}
	printf("  %-44s %8.0f ns/query  (%u of %u answered OK)\n", kind_name[k],
	       (cpu_s() - t0) / n * 1e9, ok, n);
}

int main(int argc, char **argv)
{
	static struct bench b;
	unsigned k = 54, n = 200000;
	double t0;
	int ch;

	b.seed = 1;
	while ((ch = getopt(argc, argv, "k:n:s:")) != -1) {
		switch (ch) {
		case 'k': k = (unsigned)atoi(optarg); break;
		case 'n': n = (unsigned)atoi(optarg); break;
		case 's': b.seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: sa-bench [-k RADIX] [-n QUERIES] [-s SEED]\n");
			return 2;
		}
	}
	t0 = wall_s();
	sa_fx_init(&b.f, "ft3", k, 0);
	hosts(&b);
	printf("ft3 radix %u: %u nodes, %u hosts, top LID %u; built and routed in %.1f s\n", k,
	       b.f.b.t.nnodes, b.nhosts, b.f.rt.top, wall_s() - t0);
	b.f.conf.max_records = 65536;
	sa_set_conf(b.f.sa, &b.f.conf);
	b.f.send_rc = 0;
	for (enum kind q = 0; q < KINDS; q++)
		run(&b, q, n);
	sa_fx_free(&b.f);
	free(b.lids);
	free(b.guids);
	return 0;
}
