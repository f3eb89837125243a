/*
 * DOC: pma-flood, the rate at which the test bed answers PerfMgt queries:
 * the limit that the counter-sweep benchmark compares ibsmd's round against.
 *
 * From the port it is attached at (under ibsim: SIM_HOST, with the
 * umad2sim preload) it sends LID-routed PortCounters Gets (class 0x04, to
 * QP1 with the GSI Q_Key) to every target of a list, PASSES times over the
 * list, keeping WINDOW of them in flight, straight through libibumad: no
 * engine, no scheduling, so what it measures is the bed (the simulator and
 * the umad path) rather than a manager. With -x each target gets a
 * PortCountersExtended Get too, as a complete counter round asks for both.
 * Only the flood is timed: first send to last completion.
 *
 *   pma-flood -f TARGETS [-w WINDOW] [-n PASSES] [-x] [-t TIMEOUT_MS]
 *
 * TARGETS has one "LID PORT" per line (the port of a switch is one of its
 * ports; a CA port's LID is its own). WINDOW is at most 256: umad2sim
 * freezes with more in flight unread.
 *
 * Prints one line:
 *   pma-flood queries=N failed=F ms=T rate=R window=W targets=K
 * (rate: completions per second, failures included; a query that never
 * completes within TIMEOUT_MS of the last completion ends the run as
 * failed).
 */
#include "config.h"

#include <errno.h>
#include <infiniband/umad.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/engine.h"
#include "mad/pma.h"

#define MAX_WINDOW 256

struct target {
	uint16_t lid;
	uint8_t port;
};

struct flood {
	int portid, agent;
	struct target *t;
	size_t nt;
	unsigned window, passes, timeout_ms;
	bool ext;
	uint64_t total, sent, done, failed;
	uint32_t tid;
	void *sbuf, *rbuf;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int read_targets(struct flood *fl, const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long lid, port;
	size_t cap = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%li %lu", (long *)&lid, &port) == 2) {
		if (!lid || lid >= 0xC000 || port > 254)
			continue;
		if (fl->nt == cap) {
			cap = cap ? 2 * cap : 1024;
			fl->t = realloc(fl->t, cap * sizeof(*fl->t));
			if (!fl->t)
				abort();
		}
		fl->t[fl->nt].lid = (uint16_t)lid;
		fl->t[fl->nt++].port = (uint8_t)port;
	}
	fclose(f);
	return fl->nt ? 0 : -1;
}

/* Query number k: target k (/2 with -x), PortCounters or, with -x, every
 * second one PortCountersExtended. */
static int send_one(struct flood *fl)
{
	uint64_t k = fl->sent;
	unsigned per = fl->ext ? 2 : 1;
	const struct target *t = &fl->t[(k / per) % fl->nt];
	struct pma_req r = {
		.method = MAD_METHOD_GET,
		.attr_id = per == 2 && k % 2 ? PMA_ATTR_PORT_COUNTERS_EXT : PMA_ATTR_PORT_COUNTERS,
		.port_select = t->port,
		.tid = ++fl->tid,
	};

	memset(fl->sbuf, 0, umad_size() + MAD_SIZE);
	if (pma_req_encode(&r, umad_get_mad(fl->sbuf), MAD_SIZE) < 0)
		return -1;
	umad_set_addr(fl->sbuf, t->lid, 1, 0, (int)MAD_QKEY_GSI);
	if (umad_send(fl->portid, fl->agent, fl->sbuf, MAD_SIZE, (int)fl->timeout_ms, 0) < 0)
		return -1;
	fl->sent++;
	return 0;
}

/* One completion: an answer with status 0 about what was asked is a
 * success; a MAD status, a send that came back failed (umad status, e.g.
 * ETIMEDOUT) or a garbled answer is a failure. */
static void complete(struct flood *fl, int len)
{
	struct pma_reply rep;

	fl->done++;
	if (umad_status(fl->rbuf) ||
	    pma_reply_decode(umad_get_mad(fl->rbuf), (size_t)len, &rep) < 0 || rep.status)
		fl->failed++;
}

/* Waits up to wait_ms for something to read and reads all there is. */
static void drain(struct flood *fl, int wait_ms)
{
	struct pollfd p = { .fd = umad_get_fd(fl->portid), .events = POLLIN };

	if (poll(&p, 1, wait_ms) <= 0)
		return;
	for (;;) {
		int len = MAD_SIZE;

		if (umad_recv(fl->portid, fl->rbuf, &len, 0) < 0)
			return;
		complete(fl, len);
	}
}

static int run(struct flood *fl)
{
	double last = now_ms();

	while (fl->done < fl->total) {
		uint64_t before = fl->done;

		while (fl->sent < fl->total && fl->sent - fl->done < fl->window)
			if (send_one(fl) < 0)
				return -1;
		drain(fl, 1);
		if (fl->done != before)
			last = now_ms();
		else if (now_ms() - last > fl->timeout_ms)
			break;
	}
	fl->failed += fl->total - fl->done;
	return 0;
}

static int open_port(struct flood *fl)
{
	if (umad_init() < 0 || (fl->portid = umad_open_port(NULL, 0)) < 0) {
		fprintf(stderr, "pma-flood: cannot open a umad port\n");
		return -1;
	}
	fl->agent = umad_register(fl->portid, MAD_CLASS_PERF, PMA_CLASS_VERSION, 0, NULL);
	fl->sbuf = calloc(1, umad_size() + MAD_SIZE);
	fl->rbuf = calloc(1, umad_size() + MAD_SIZE);
	if (fl->agent < 0 || !fl->sbuf || !fl->rbuf) {
		fprintf(stderr, "pma-flood: cannot register a PerfMgt agent\n");
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fputs("usage: pma-flood -f TARGETS [-w WINDOW] [-n PASSES] [-x] [-t TIMEOUT_MS]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	struct flood fl = { .window = 256, .passes = 3, .timeout_ms = 2000 };
	const char *path = NULL;
	double t0, t1;
	int ch;

	while ((ch = getopt(argc, argv, "f:w:n:xt:")) != -1) {
		if (ch == 'f')
			path = optarg;
		else if (ch == 'w')
			fl.window = (unsigned)strtoul(optarg, NULL, 0);
		else if (ch == 'n')
			fl.passes = (unsigned)strtoul(optarg, NULL, 0);
		else if (ch == 'x')
			fl.ext = true;
		else if (ch == 't')
			fl.timeout_ms = (unsigned)strtoul(optarg, NULL, 0);
		else
			usage();
	}
	if (!path || !fl.window || fl.window > MAX_WINDOW || !fl.passes || !fl.timeout_ms)
		usage();
	if (read_targets(&fl, path) < 0) {
		fprintf(stderr, "pma-flood: no targets in %s\n", path);
		return 1;
	}
	fl.total = (uint64_t)fl.nt * fl.passes * (fl.ext ? 2 : 1);
	if (open_port(&fl) < 0)
		return 1;
	t0 = now_ms();
	if (run(&fl) < 0) {
		fprintf(stderr, "pma-flood: umad_send failed: %s\n", strerror(errno));
		return 1;
	}
	t1 = now_ms();
	printf("pma-flood queries=%llu failed=%llu ms=%.1f rate=%.0f window=%u targets=%zu\n",
	       (unsigned long long)fl.done, (unsigned long long)fl.failed, t1 - t0,
	       (double)fl.done / ((t1 - t0) / 1e3), fl.window, fl.nt);
	umad_unregister(fl.portid, fl.agent);
	umad_close_port(fl.portid);
	free(fl.t);
	free(fl.sbuf);
	free(fl.rbuf);
	return fl.failed ? 1 : 0;
}
