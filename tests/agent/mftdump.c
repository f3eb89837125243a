/*
 * DOC: mftdump, the first MulticastForwardingTable blocks of many switches
 * from one process, printed as `ibroute -M` prints them.
 *
 *   mftdump [-b BLOCKS] [-l] LID...
 *
 * For each switch LID: NodeInfo (its GUID and port count), then the MFT
 * blocks 0..BLOCKS-1 (default 1: MLIDs 0xC000-0xC01F) at every position
 * its ports need, as LID-routed SMP Gets, a window of them outstanding at
 * once. The output has ibroute's header and row layout (a mark in column
 * 12 + 2 * port), so tests/integration/mftcheck.py reads either. One
 * process instead of one ibroute per switch makes a poll of a large
 * fabric cheap enough to time multicast programming (bench/bench-mcast.sh).
 * With -l it dumps again and again, each round followed by the line
 * "=== round <epoch ms>" (when its last answer came), until killed: a
 * poller then judges round after round without starting a process each
 * time. Exit 1 when an SMP fails.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "mad/smp.h"

#define MAX_SW 4096
#define WINDOW 32

struct sw {
	uint16_t lid;
	uint64_t guid;
	uint8_t nports;
	uint16_t *mask;      /* [block * 32 + i][pos] flattened: (b*32+i)*npos + pos */
	unsigned npos;
};

struct job {
	struct sw *s;
	int nodeinfo;
	uint16_t block;
	uint8_t pos;
};

static int portid, agent;

static int send_get(struct job *j, uint64_t tid)
{
	uint8_t umad[512], *mad;
	struct smp q;

	memset(umad, 0, sizeof(umad));
	memset(&q, 0, sizeof(q));
	q.hdr.base_version = 1;
	q.hdr.mgmt_class = MAD_CLASS_SMI;
	q.hdr.class_version = 1;
	q.hdr.method = MAD_METHOD_GET;
	q.hdr.tid = tid;
	q.hdr.attr_id = j->nodeinfo ? SMP_ATTR_NODE_INFO : SMP_ATTR_MFT;
	q.hdr.attr_mod = j->nodeinfo ? 0 : smp_mft_mod(j->block, j->pos);
	mad = umad_get_mad(umad);
	smp_encode(&q, mad, MAD_SIZE);
	umad_set_addr(umad, j->s->lid, 0, 0, 0);
	return umad_send(portid, agent, umad, MAD_SIZE, 1000, 2);
}

static int take(struct job *j, const struct smp *r)
{
	struct smp_node_info ni;
	struct smp_mft_block b;

	if (j->nodeinfo) {
		if (smp_node_info_decode(r->data, sizeof(r->data), &ni) < 0)
			return -1;
		j->s->guid = ni.node_guid;
		j->s->nports = ni.num_ports;
		return 0;
	}
	if (smp_mft_block_decode(r->data, sizeof(r->data), &b) < 0)
		return -1;
	for (unsigned i = 0; i < 32; i++)
		j->s->mask[((size_t)j->block * 32 + i) * j->s->npos + j->pos] = b.mask[i];
	return 0;
}

/* Runs jobs[0..n) with WINDOW outstanding; 0, or -1 on a failure. */
static int run(struct job *jobs, size_t n)
{
	size_t next = 0, done = 0, out = 0;
	uint8_t umad[1024];

	while (done < n) {
		int len = MAD_SIZE;
		struct smp r;

		while (next < n && out < WINDOW) {
			if (send_get(&jobs[next], next + 1) < 0)
				return -1;
			next++;
			out++;
		}
		if (umad_recv(portid, umad, &len, 5000) < 0 || umad_status(umad))
			return -1;
		if (smp_decode(umad_get_mad(umad), MAD_SIZE, &r) < 0 || r.hdr.status)
			return -1;
		if ((r.hdr.tid & 0xffffffff) < 1 || (r.hdr.tid & 0xffffffff) > n ||
		    take(&jobs[(r.hdr.tid & 0xffffffff) - 1], &r) < 0)
			return -1;
		out--;
		done++;
	}
	return 0;
}

static void print(const struct sw *s, unsigned blocks)
{
	unsigned nmlids = 0;

	printf("Multicast mlids [0xc000-0x%04x] of switch Lid %u guid 0x%016llx (mftdump):\n",
	       0xc000 + blocks * 32 - 1, s->lid, (unsigned long long)s->guid);
	printf("     Ports:");
	for (unsigned p = 0; p <= s->nports; p++)
		printf(" %u", p % 10);
	printf("\n MLid\n");
	for (unsigned m = 0; m < blocks * 32; m++) {
		const uint16_t *w = &s->mask[(size_t)m * s->npos];
		char line[600];
		size_t k;
		int any = 0;

		k = (size_t)snprintf(line, sizeof(line), "0x%04x", 0xc000 + m);
		memset(line + k, ' ', sizeof(line) - k - 1);
		for (unsigned p = 0; p <= s->nports && 12 + 2 * p < sizeof(line) - 2; p++)
			if ((w[p / 16] >> (p % 16)) & 1) {
				line[12 + 2 * p] = 'x';
				any = 1;
			}
		line[12 + 2 * (s->nports + 1)] = '\0';
		if (any) {
			printf("%s\n", line);
			nmlids++;
		}
	}
	printf("%u valid mlids dumped\n", nmlids);
}

static struct job *mft_jobs(struct sw *sws, size_t nsw, unsigned blocks, size_t *n)
{
	struct job *jobs;

	*n = 0;
	for (size_t i = 0; i < nsw; i++) {
		sws[i].npos = (sws[i].nports + 16u) / 16;
		sws[i].mask = calloc((size_t)blocks * 32 * sws[i].npos, sizeof(uint16_t));
		*n += (size_t)blocks * sws[i].npos;
	}
	jobs = calloc(*n + 1, sizeof(*jobs));
	*n = 0;
	for (size_t i = 0; i < nsw; i++)
		for (unsigned b = 0; b < blocks; b++)
			for (unsigned p = 0; p < sws[i].npos; p++)
				jobs[(*n)++] = (struct job){ &sws[i], 0, (uint16_t)b, (uint8_t)p };
	return jobs;
}

static long long epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Rounds of dumps until an SMP fails (or the process is killed). */
static int loop(struct sw *sws, size_t nsw, struct job *jobs, size_t n, unsigned blocks)
{
	for (;;) {
		if (run(jobs, n) < 0)
			return -1;
		for (size_t i = 0; i < nsw; i++)
			print(&sws[i], blocks);
		printf("=== round %lld\n", epoch_ms());
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	static struct sw sws[MAX_SW];
	static struct job ni[MAX_SW];
	unsigned blocks = 1;
	size_t nsw = 0, n;
	struct job *jobs;
	int a = 1, rc, rounds = 0;

	if (argc > 2 && !strcmp(argv[1], "-b")) {
		blocks = (unsigned)strtoul(argv[2], NULL, 0);
		a = 3;
	}
	if (a < argc && !strcmp(argv[a], "-l")) {
		rounds = 1;
		a++;
	}
	for (; a < argc && nsw < MAX_SW; a++, nsw++) {
		sws[nsw].lid = (uint16_t)strtoul(argv[a], NULL, 0);
		ni[nsw] = (struct job){ &sws[nsw], 1, 0, 0 };
	}
	if (!nsw || !blocks || blocks > 512) {
		fprintf(stderr, "usage: mftdump [-b BLOCKS] [-l] LID...\n");
		return 2;
	}
	if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(portid, MAD_CLASS_SMI, 1, 0, NULL)) < 0) {
		fprintf(stderr, "mftdump: cannot open the port: %s\n", strerror(errno));
		return 1;
	}
	rc = run(ni, nsw);
	jobs = rc ? NULL : mft_jobs(sws, nsw, blocks, &n);
	if (jobs && rounds)
		rc = loop(sws, nsw, jobs, n, blocks);
	else if (jobs)
		rc = run(jobs, n);
	for (size_t i = 0; !rc && i < nsw; i++)
		print(&sws[i], blocks);
	if (rc)
		fprintf(stderr, "mftdump: an SMP failed\n");
	for (size_t i = 0; i < nsw; i++)
		free(sws[i].mask);
	free(jobs);
	umad_close_port(portid);
	return rc ? 1 : 0;
}
