/*
 * DOC: mcjoin, a multicast join client that does what IPoIB does.
 *
 * For every port GUID given it sends an SA MCMemberRecord Set (join) or
 * Delete (leave) to the SM's LID, as the Linux IPoIB driver does for its
 * broadcast group (ipoib_multicast.c): ComponentMask MGID |
 * PortGID | P_Key | JoinState (0x10083), JoinState FullMember, the
 * default partition's full P_Key; with --create the mask and fields IPoIB
 * uses for its other groups (0x173F7, Q_Key 0x0b1b, MTU and Rate "exactly"
 * 2048 / 10 Gb/s). A PortGID other than the client's own port is a proxy
 * join: on ibsim, whose simulator takes at most ten clients, that is how a
 * few clients join the ports of hundreds of hosts.
 *
 * Requests go out with a window of --window outstanding; a request whose
 * answer does not come within --timeout ms, or comes back with a umad
 * error (ibsim drops nothing silently: it returns the send), is sent again
 * up to --retries times. At the end one line sums up:
 *
 *   mcjoin: N requests, N ok, E SA errors (status:count ...), L lost,
 *           first_ms F, last_ms L, elapsed_ms T, joins_per_s R
 *
 * (first/last: when the first and last answer arrived, in ms after the
 * first request went out). With --go FIFO the client first opens its port
 * and finds the SM, prints "mcjoin: ready" and waits until something is
 * written to FIFO (or a writer comes and goes): a driver starts several
 * clients, waits for all their "ready" lines and releases them at once,
 * so that process start-up is not part of what it times. The summary
 * then adds "go_epoch_ms G, last_epoch_ms L": wall-clock (CLOCK_REALTIME)
 * ms of the release and of the last answer, comparable between clients
 * and with other tools' epoch times. Exit 0 when every
 * request was answered with status 0, 1 otherwise, 2 on usage errors.
 * Ports are read from the command line or, one per line, from --file.
 * -p sets the P_Key of the request (default 0xffff), -s the SL of a
 * --create (default 0; IPoIB copies its broadcast group's), -v prints the record
 * each answer carries (MGID, MLID, JoinState ...) or its status.
 */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "mad/sa.h"

#define SA_QKEY 0x80010000u
#define MAX_PORTS 65536
#define MCM_JOIN 0x10083ull      /* MGID | PortGID | P_Key | JoinState */
#define MCM_CREATE 0x173F7ull    /* IPoIB's mask for its other groups */

struct req {
	uint64_t guid;
	unsigned tries;
	int state;          /* 0 waiting, 1 outstanding, 2 done */
	double sent_ms;
};

struct opts {
	uint8_t mgid[16];
	uint8_t join_state;
	uint16_t pkey;
	uint8_t sl;
	unsigned window, timeout_ms, retries;
	int leave, create, verbose;
	const char *file;
	const char *go;     /* --go FIFO: wait for it before the first request */
};

struct run {
	struct opts o;
	int portid, agent;
	uint16_t sm_lid;
	uint64_t prefix;
	struct req *r;
	size_t n, next, outstanding, done, ok, lost;
	unsigned status_count[16];
	uint16_t status_seen[16];
	double t0, first, last;
	double go_epoch, last_epoch;   /* CLOCK_REALTIME ms */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* An MGID in IPv6 notation ("::" allowed; "::" alone: the SA picks one). */
static int parse_mgid(const char *s, uint8_t out[16])
{
	return inet_pton(AF_INET6, s, out) == 1 ? 0 : -1;
}

static int add_port(struct run *R, const char *s)
{
	char *end;
	unsigned long long g = strtoull(s, &end, 16);

	if (*end && *end != '\n')
		return -1;
	if (R->n == MAX_PORTS)
		return -1;
	R->r[R->n++].guid = g;
	return 0;
}

static int read_file(struct run *R, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[128];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n' && add_port(R, line) < 0) {
			fclose(f);
			return -1;
		}
	fclose(f);
	return 0;
}

/* The MCMemberRecord request for port i, in buf (MAD_SIZE bytes). */
static void build(const struct run *R, size_t i, uint8_t *buf)
{
	struct sa_mcmember_rec m;
	struct sa_hdr h;
	uint64_t p = htobe64(R->prefix), g = htobe64(R->r[i].guid);

	memset(&h, 0, sizeof(h));
	memset(&m, 0, sizeof(m));
	memset(buf, 0, MAD_SIZE);
	h.hdr.base_version = 1;
	h.hdr.mgmt_class = MAD_CLASS_SA;
	h.hdr.class_version = SA_CLASS_VERSION;
	h.hdr.method = R->o.leave ? SA_METHOD_DELETE : SA_METHOD_SET;
	h.hdr.tid = (uint64_t)i + 1;
	h.hdr.attr_id = SA_ATTR_MCMEMBER_REC;
	h.comp_mask = R->o.create ? MCM_CREATE : MCM_JOIN;
	memcpy(m.mgid, R->o.mgid, 16);
	memcpy(m.port_gid, &p, 8);
	memcpy(m.port_gid + 8, &g, 8);
	m.pkey = R->o.pkey;
	m.join_state = R->o.join_state;
	m.qkey = 0x0b1b;
	m.mtu_sel = m.rate_sel = 2;
	m.mtu = 4;
	m.rate = 3;
	m.sl = R->o.sl;
	sa_hdr_encode(&h, buf, MAD_SIZE);
	sa_mcmember_rec_encode(&m, buf + SA_HDR_SIZE, MAD_SIZE - SA_HDR_SIZE);
}

static int send_one(struct run *R, size_t i)
{
	uint8_t umad[512];

	memset(umad, 0, sizeof(umad));
	build(R, i, umad_get_mad(umad));
	umad_set_addr(umad, R->sm_lid, 1, 0, (int)SA_QKEY);
	if (umad_send(R->portid, R->agent, umad, MAD_SIZE, (int)R->o.timeout_ms, 0) < 0)
		return -1;
	R->r[i].state = 1;
	R->r[i].tries++;
	R->r[i].sent_ms = now_ms();
	R->outstanding++;
	return 0;
}

static void count_status(struct run *R, uint16_t st)
{
	for (int k = 0; k < 16; k++)
		if (!R->status_count[k] || R->status_seen[k] == st) {
			R->status_seen[k] = st;
			R->status_count[k]++;
			return;
		}
}

static void finish(struct run *R, size_t i, int ok, uint16_t st)
{
	double t = now_ms() - R->t0;

	R->r[i].state = 2;
	R->outstanding--;
	R->done++;
	if (!R->first)
		R->first = t;
	R->last = t;
	R->last_epoch = epoch_ms();
	if (ok)
		R->ok++;
	else if (st)
		count_status(R, st);
	else
		R->lost++;
}

/* No answer to request i: send it again later, or give it up. */
static void retry_or_lose(struct run *R, size_t i)
{
	if (R->r[i].tries > R->o.retries) {
		finish(R, i, 0, 0);
		return;
	}
	R->r[i].state = 0;
	R->outstanding--;
}

/* -v: one line per answer, the record the SA sent back. */
static void print_answer(const struct run *R, size_t i, const struct sa_hdr *h, const uint8_t *mad)
{
	struct sa_mcmember_rec m;
	char g[48];

	if (h->hdr.status || sa_mcmember_rec_decode(mad + SA_HDR_SIZE, MAD_SIZE - SA_HDR_SIZE, &m) < 0) {
		printf("port %016llx status 0x%04x\n", (unsigned long long)R->r[i].guid, h->hdr.status);
		return;
	}
	inet_ntop(AF_INET6, m.mgid, g, sizeof(g));
	printf("port %016llx status 0x0000 mgid %s mlid 0x%04x join_state 0x%x pkey 0x%04x "
	       "qkey 0x%08x mtu %u rate %u sl %u\n", (unsigned long long)R->r[i].guid, g, m.mlid,
	       m.join_state, m.pkey, m.qkey, m.mtu, m.rate, m.sl);
}

/* An answer, or a send the transport returned. An SM may answer with
 * just the header and the record (OpenSM sends 56 + 56 bytes). */
static void received(struct run *R, const uint8_t *umad, int len)
{
	uint8_t mad[MAD_SIZE] = { 0 };
	struct sa_hdr h;
	size_t i;

	if (len < SA_HDR_SIZE)
		return;
	memcpy(mad, umad_get_mad((void *)(uintptr_t)umad), len < MAD_SIZE ? (size_t)len : MAD_SIZE);
	if (sa_hdr_decode(mad, MAD_SIZE, &h) < 0)
		return;
	i = (size_t)(h.hdr.tid & 0xffffffffu) - 1;   /* the agent owns the high bits */
	if (i >= R->n || R->r[i].state != 1)
		return;
	if (umad_status((void *)(uintptr_t)umad)) {
		retry_or_lose(R, i);
		return;
	}
	if (R->o.verbose)
		print_answer(R, i, &h, mad);
	finish(R, i, h.hdr.status == 0, h.hdr.status);
}

static void expire(struct run *R)
{
	double t = now_ms();

	for (size_t i = 0; i < R->n; i++)
		if (R->r[i].state == 1 && t - R->r[i].sent_ms >= R->o.timeout_ms)
			retry_or_lose(R, i);
}

static void fill_window(struct run *R)
{
	for (size_t i = 0; i < R->n && R->outstanding < R->o.window; i++)
		if (R->r[i].state == 0 && send_one(R, i) < 0)
			break;
}

static void run_all(struct run *R)
{
	uint8_t umad[1024];

	R->t0 = now_ms();
	while (R->done < R->n) {
		int len = MAD_SIZE;

		fill_window(R);
		if (umad_recv(R->portid, umad, &len, 20) >= 0)
			received(R, umad, len);
		expire(R);
	}
}

/* --go: the FIFO is opened before "ready" is printed (non-blocking, so
 * the open needs no writer), then polled: data, or a writer that came and
 * went (POLLHUP), releases the client. No race with the driver: it writes
 * only after every client said ready, i.e. had its FIFO open. */
static int wait_go(struct run *R)
{
	struct pollfd p;
	int fd = open(R->o.go, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	printf("mcjoin: ready\n");
	fflush(stdout);
	p.fd = fd;
	p.events = POLLIN;
	for (;;) {
		p.revents = 0;
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR))
			break;
	}
	R->go_epoch = epoch_ms();
	close(fd);
	return 0;
}

static int open_port(struct run *R)
{
	umad_port_t port;

	if (umad_init() < 0 || (R->portid = umad_open_port(NULL, 0)) < 0)
		return -1;
	if (umad_get_port(NULL, 0, &port) < 0)
		return -1;
	R->sm_lid = (uint16_t)port.sm_lid;
	R->prefix = be64toh(port.gid_prefix);
	umad_release_port(&port);
	R->agent = umad_register(R->portid, MAD_CLASS_SA, SA_CLASS_VERSION, 0, NULL);
	return R->agent < 0 || !R->sm_lid ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: mcjoin [-g MGID] [-j JOINSTATE] [-w WINDOW] [-t TIMEOUT_MS] "
		"[-r RETRIES] [-p PKEY] [-s SL] [-v] [--leave] [--create] [--go FIFO] [-f FILE] "
		"[PORTGUID...]\n");
}

static int parse_args(int argc, char **argv, struct run *R)
{
	static const struct option lo[] = {
		{ "mgid", required_argument, NULL, 'g' }, { "join-state", required_argument, NULL, 'j' },
		{ "window", required_argument, NULL, 'w' }, { "timeout", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' }, { "file", required_argument, NULL, 'f' },
		{ "leave", no_argument, NULL, 'L' }, { "create", no_argument, NULL, 'C' },
		{ "pkey", required_argument, NULL, 'p' }, { "verbose", no_argument, NULL, 'v' },
		{ "sl", required_argument, NULL, 's' }, { "go", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	parse_mgid("ff12:401b:ffff:0:0:0:ffff:ffff", R->o.mgid);
	R->o.join_state = 1;
	R->o.pkey = 0xffff;
	R->o.window = 16;
	R->o.timeout_ms = 1000;
	R->o.retries = 3;
	while ((ch = getopt_long(argc, argv, "g:j:w:t:r:f:p:s:v", lo, NULL)) != -1) {
		switch (ch) {
		case 'g': if (parse_mgid(optarg, R->o.mgid) < 0) return -1; break;
		case 'j': R->o.join_state = (uint8_t)strtoul(optarg, NULL, 0); break;
		case 'w': R->o.window = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': R->o.timeout_ms = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'r': R->o.retries = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'f': if (read_file(R, optarg) < 0) return -1; break;
		case 'L': R->o.leave = 1; break;
		case 'C': R->o.create = 1; break;
		case 'p': R->o.pkey = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'v': R->o.verbose = 1; break;
		case 's': R->o.sl = (uint8_t)(strtoul(optarg, NULL, 0) & 0xf); break;
		case 'G': R->o.go = optarg; break;
		default: return -1;
		}
	}
	for (; optind < argc; optind++)
		if (add_port(R, argv[optind]) < 0)
			return -1;
	return R->n && R->o.window ? 0 : -1;
}

static void report(const struct run *R)
{
	double el = R->last;

	printf("mcjoin: %zu requests, %zu ok, %zu SA errors", R->n, R->ok, R->done - R->ok - R->lost);
	for (int k = 0; k < 16 && R->status_count[k]; k++)
		printf("%s0x%04x:%u", k ? " " : " (", R->status_seen[k], R->status_count[k]);
	printf("%s, %zu lost, first_ms %.1f, last_ms %.1f, elapsed_ms %.1f, joins_per_s %.0f",
	       R->status_count[0] ? ")" : "", R->lost, R->first, R->last, el,
	       el > 0 ? (double)R->ok * 1000.0 / el : 0.0);
	if (R->o.go)
		printf(", go_epoch_ms %.1f, last_epoch_ms %.1f", R->go_epoch, R->last_epoch);
	printf("\n");
}

int main(int argc, char **argv)
{
	static struct run R;

	R.r = calloc(MAX_PORTS, sizeof(*R.r));
	if (!R.r || parse_args(argc, argv, &R) < 0) {
		usage();
		return 2;
	}
	if (open_port(&R) < 0) {
		fprintf(stderr, "mcjoin: cannot open the port or it has no SM LID: %s\n", strerror(errno));
		return 1;
	}
	if (R.o.go && wait_go(&R) < 0) {
		fprintf(stderr, "mcjoin: %s: %s\n", R.o.go, strerror(errno));
		return 1;
	}
	run_all(&R);
	report(&R);
	free(R.r);
	umad_unregister(R.portid, R.agent);
	umad_close_port(R.portid);
	return R.ok == R.n ? 0 : 1;
}
