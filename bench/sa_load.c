/*
 * DOC: sa-load, a PathRecord load generator for the SA benchmark.
 *
 * From the port it is attached at (under ibsim: SIM_HOST, with the
 * umad2sim preload), it sends PathRecord Gets by SLID and DLID for random
 * pairs of the LIDs in a file to the SM (the port's MasterSMLID), keeping
 * WINDOW of them outstanding, for SECONDS. An answer frees its slot; one
 * unanswered after TIMEOUT ms is counted lost and its slot reused. It
 * speaks through ibsmd's umad transport (libibumad underneath), as a
 * client would.
 *
 *   sa-load -l LIDFILE [-w WINDOW] [-d SECONDS] [-t TIMEOUT_MS] [-s SEED]
 *           [-o LATFILE]
 * Prints one line:
 *   sent S answered A errors E lost L seconds T qps Q p50_us P p99_us P max_us M
 * (qps: answered with status 0 per second); -o writes every latency, in
 * microseconds, one per line, for merging the runs of several loaders.
 */
#include "config.h"

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/engine.h"
#include "mad/sa.h"

#define MAX_WINDOW 256

struct slot {
	bool busy;
	uint32_t tid;
	uint64_t t_us;
};

struct load {
	struct mad_transport tp;
	struct mad_port_info pi;
	uint16_t *lids;
	unsigned nlids, window;
	uint64_t seed;
	uint32_t tid;
	struct slot slot[MAX_WINDOW];
	uint64_t sent, ok, errors, lost;
	uint32_t *lat;
	size_t nlat, cap;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int read_lids(struct load *l, const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned v, cap = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%u", &v) == 1) {
		if (l->nlids == cap) {
			cap = cap ? 2 * cap : 256;
			l->lids = realloc(l->lids, cap * sizeof(*l->lids));
		}
		l->lids[l->nlids++] = (uint16_t)v;
	}
	fclose(f);
	return l->nlids >= 2 ? 0 : -1;
}

static void send_one(struct load *l, struct slot *s)
{
	uint8_t mad[MAD_SIZE];
	struct mad_addr to = { .dlid = l->pi.sm_lid, .qpn = 1, .qkey = MAD_QKEY_GSI };
	struct sa_hdr h;
	uint16_t a = l->lids[rnd(&l->seed) % l->nlids], b = l->lids[rnd(&l->seed) % l->nlids];

	memset(&h, 0, sizeof(h));
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = SA_CLASS_VERSION;
	h.hdr.method = SA_METHOD_GET;
	h.hdr.tid = ++l->tid;
	h.hdr.attr_id = SA_ATTR_PATH_REC;
	h.comp_mask = 0x30;   /* DLID, SLID */
	memset(mad, 0, sizeof(mad));
	sa_hdr_encode(&h, mad, sizeof(mad));
	mad[SA_HDR_SIZE + 40] = (uint8_t)(b >> 8);
	mad[SA_HDR_SIZE + 41] = (uint8_t)b;
	mad[SA_HDR_SIZE + 42] = (uint8_t)(a >> 8);
	mad[SA_HDR_SIZE + 43] = (uint8_t)a;
	s->busy = true;
	s->tid = l->tid;
	s->t_us = now_us();
	l->sent++;
	if (l->tp.send(l->tp.ctx, mad, sizeof(mad), &to) < 0)
		s->busy = false;
}

static void note(struct load *l, uint32_t us)
{
	if (l->nlat == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 65536;
		l->lat = realloc(l->lat, l->cap * sizeof(*l->lat));
	}
	l->lat[l->nlat++] = us;
}

/* The answer to one of ours: its slot is free again. */
static void answered(struct load *l, const uint8_t *m, int n)
{
	uint32_t tid = ((uint32_t)m[12] << 24) | ((uint32_t)m[13] << 16) | ((uint32_t)m[14] << 8) | m[15];

	for (unsigned i = 0; i < l->window; i++) {
		struct slot *s = &l->slot[i];

		if (!s->busy || s->tid != tid)
			continue;
		s->busy = false;
		if (m[4] | m[5])
			l->errors++;
		else
			l->ok++;
		note(l, (uint32_t)(now_us() - s->t_us));
		return;
	}
}

static void drain(struct load *l, int wait_ms)
{
	struct pollfd p = { .fd = l->tp.fd(l->tp.ctx), .events = POLLIN };
	uint8_t buf[MAD_RECV_MAX];
	struct mad_addr from;
	int status, n;

	poll(&p, 1, wait_ms);
	while ((n = l->tp.recv(l->tp.ctx, buf, sizeof(buf), &status, &from)) > 0)
		if (!status && n >= SA_HDR_SIZE && buf[1] == MAD_CLASS_SA && (buf[3] & 0x80))
			answered(l, buf, n);
}

static void expire(struct load *l, uint64_t now, uint64_t timeout_us)
{
	for (unsigned i = 0; i < l->window; i++)
		if (l->slot[i].busy && now - l->slot[i].t_us > timeout_us) {
			l->slot[i].busy = false;
			l->lost++;
		}
}

static void run(struct load *l, unsigned secs, unsigned timeout_ms, double *elapsed)
{
	uint64_t t0 = now_us(), end = t0 + secs * 1000000ull, now;

	while ((now = now_us()) < end) {
		for (unsigned i = 0; i < l->window; i++)
			if (!l->slot[i].busy)
				send_one(l, &l->slot[i]);
		drain(l, 1);
		expire(l, now_us(), timeout_ms * 1000ull);
	}
	*elapsed = (double)(now_us() - t0) / 1e6;
	/* the last answers still count as answered, not as throughput */
	for (int i = 0; i < 50; i++)
		drain(l, 2);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t pct(const struct load *l, unsigned p)
{
	return l->nlat ? l->lat[(l->nlat - 1) * p / 100] : 0;
}

int main(int argc, char **argv)
{
	static struct load l;
	struct mad_umad_opts o;
	const char *lidfile = NULL, *latfile = NULL;
	unsigned secs = 10, timeout_ms = 1000;
	double elapsed;
	char err[256];
	int ch;

	l.window = 16;
	l.seed = (uint64_t)getpid();
	while ((ch = getopt(argc, argv, "l:w:d:t:s:o:")) != -1) {
		switch (ch) {
		case 'l': lidfile = optarg; break;
		case 'w': l.window = (unsigned)atoi(optarg); break;
		case 'd': secs = (unsigned)atoi(optarg); break;
		case 't': timeout_ms = (unsigned)atoi(optarg); break;
		case 's': l.seed = strtoull(optarg, NULL, 0); break;
		case 'o': latfile = optarg; break;
		default: lidfile = NULL; optind = argc; break;
		}
	}
	if (!lidfile || !l.window || l.window > MAX_WINDOW || read_lids(&l, lidfile) < 0) {
		fprintf(stderr, "usage: sa-load -l LIDFILE [-w WINDOW<=%d] [-d SEC] [-t MS] [-s SEED] "
			"[-o LATFILE]\n", MAX_WINDOW);
		return 2;
	}
	mad_umad_opts_default(&o);
	o.want_issm = 0;
	if (mad_umad_open_opts(NULL, 0, 0, &o, &l.tp, &l.pi, err, sizeof(err)) < 0) {
		fprintf(stderr, "sa-load: %s\n", err);
		return 1;
	}
	l.tid = (uint32_t)rnd(&l.seed) & 0xFFFF0000u;
	run(&l, secs, timeout_ms, &elapsed);
	qsort(l.lat, l.nlat, sizeof(*l.lat), cmp_u32);
	printf("sent %llu answered %llu errors %llu lost %llu seconds %.2f qps %.0f "
	       "p50_us %u p99_us %u max_us %u\n", (unsigned long long)l.sent,
	       (unsigned long long)l.ok, (unsigned long long)l.errors, (unsigned long long)l.lost,
	       elapsed, l.ok / elapsed, pct(&l, 50), pct(&l, 99), pct(&l, 100));
	if (latfile) {
		FILE *f = fopen(latfile, "w");

		for (size_t i = 0; f && i < l.nlat; i++)
			fprintf(f, "%u\n", l.lat[i]);
		if (f)
			fclose(f);
	}
	l.tp.close(l.tp.ctx);
	return 0;
}
