/*
 * DOC: sa_rogue, one hostile host: well-formed SA requests that try to
 * take what other hosts need (tests/integration/sa_fair.sh,
 * bench/bench-fair.sh). It runs at a host under ibsim like every client
 * and sends to the SM's LID, up to -w requests outstanding (default 32),
 * each given up after -T ms (default 1000); -k sends an SM_Key.
 *
 *   sa_rogue create N
 *       N group creates with a zero MGID (the SA picks one) for its own
 *       port, with the mask and fields IPoIB uses for its groups.
 *   sa_rogue [-a] proxy-create N GUID...
 *       the same with the PortGID of the other ports, in turn: proxy
 *       creates, whose only member is another host; with -a every other
 *       port given is then joined to each group created (proxy joins).
 *   sa_rogue [-s N] churn SECS
 *       first N InformInfo subscriptions to every trap (distinct LID
 *       ranges), whose Reports it never acknowledges; then for SECS a
 *       loop: create a group, leave it (traps 66 and 67 each time).
 *   sa_rogue squat GUID SERVICEID
 *       a ServiceRecord Set with the GID of port GUID, lease for ever.
 *   sa_rogue services N [GUID]
 *       N ServiceRecord Sets (ServiceIDs 0x5a5a000000000000 + i) under
 *       its own GID, or port GUID's.
 *   sa_rogue delete GUID SERVICEID
 *       a ServiceRecord Delete of that service of port GUID.
 *
 * One line sums up, then exit 0 (whatever the SA answered: judging is
 * the caller's), 1 when the port cannot be opened, 2 on usage errors:
 *
 *   sa_rogue: N requests, K ok, E refused (status:count ...), L lost,
 *             elapsed_ms T
 */
#include "config.h"

#include <endian.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/engine.h"
#include "mad/sa.h"

#define MAX_WINDOW 256
#define MAX_VICTIMS 4096
#define LINK_LOCAL 0xfe80000000000000ull
#define MCM_CREATE 0x173F7ull     /* IPoIB's mask for its groups */
#define SR_ID_GID 0x3ull          /* ServiceRecord ServiceID | ServiceGID */
#define SR_SET_MASK 0x17ull       /* ... | ServiceP_Key | ServiceLease */
#define ROGUE_SID 0x5a5a000000000000ull

enum kind { K_CREATE, K_LEAVE, K_JOIN, K_SUB, K_SR_SET, K_SR_DEL };

/* -a: a group created, whose other ports are still to be joined. */
struct to_join {
	uint8_t mgid[16];
	size_t next;
};

struct slot {
	bool busy;
	uint32_t tid;
	enum kind kind;
	double sent_ms;
};

struct rogue {
	struct mad_transport tp;
	struct mad_port_info pi;
	uint64_t sm_key;
	unsigned window, timeout_ms;
	struct slot slot[MAX_WINDOW];
	unsigned outstanding;
	uint32_t next_tid;
	/* what to send */
	enum kind kind;
	uint64_t todo;               /* requests of kind still to send */
	uint64_t victims[MAX_VICTIMS];
	size_t nvictims;
	uint64_t sid, gid_guid;
	double until_ms;             /* churn: the loop's end */
	uint8_t (*leave)[16];        /* churn: MGIDs created, to leave */
	size_t nleave, leave_cap;
	bool join_all;               /* -a */
	struct to_join *join;
	size_t njoin, join_cap;
	/* counts */
	uint64_t sent, ok, lost, creates_ok, leaves_ok, joins_ok;
	uint16_t st_val[16];
	uint64_t st_cnt[16];
	double t0;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void make_gid(uint64_t guid, uint8_t gid[16])
{
	uint64_t p = htobe64(LINK_LOCAL), g = htobe64(guid);

	memcpy(gid, &p, 8);
	memcpy(gid + 8, &g, 8);
}

static void header(struct rogue *R, uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask,
		   uint32_t tid)
{
	struct sa_hdr h;

	sa_req_hdr(&h, method, attr, tid);
	h.sm_key = R->sm_key;
	h.comp_mask = mask;
	memset(mad, 0, MAD_SIZE);
	sa_hdr_encode(&h, mad, MAD_SIZE);
}

/* A create (zero MGID) for port guid, or a leave (join: a plain join) of
 * mgid. */
static void mcmr(struct rogue *R, uint8_t *mad, uint32_t tid, uint64_t guid, const uint8_t *mgid,
		 bool join)
{
	struct sa_mcmember_rec m;

	memset(&m, 0, sizeof(m));
	if (mgid)
		memcpy(m.mgid, mgid, 16);
	make_gid(guid, m.port_gid);
	m.qkey = 0x0b1b;
	m.mtu_sel = m.rate_sel = 2;
	m.mtu = 4;
	m.rate = 3;
	m.pkey = 0xffff;
	m.join_state = 1;
	header(R, mad, mgid && !join ? SA_METHOD_DELETE : SA_METHOD_SET, SA_ATTR_MCMEMBER_REC,
	       mgid ? 0x10083ull : MCM_CREATE, tid);
	sa_mcmember_rec_encode(&m, mad + SA_HDR_SIZE, MAD_SIZE - SA_HDR_SIZE);
}

/* Subscription i: every trap, issuers in LIDs 1..0xBFFF - i. */
static void subscription(struct rogue *R, uint8_t *mad, uint32_t tid, uint64_t i)
{
	struct sa_inform_info ii;

	memset(&ii, 0, sizeof(ii));
	ii.lid_begin = 1;
	ii.lid_end = (uint16_t)(0xBFFF - i);
	ii.is_generic = 1;
	ii.subscribe = 1;
	ii.type = 0xFFFF;
	ii.trap_num = 0xFFFF;
	ii.producer_type = 0xFFFFFF;
	header(R, mad, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, tid);
	sa_inform_info_encode(&ii, mad + SA_HDR_SIZE, MAD_SIZE - SA_HDR_SIZE);
}

static void service(struct rogue *R, uint8_t *mad, uint32_t tid, uint64_t sid, bool del)
{
	struct sa_service_rec s;

	memset(&s, 0, sizeof(s));
	s.id = sid;
	make_gid(R->gid_guid, s.gid);
	s.pkey = 0xffff;
	s.lease = 0xFFFFFFFFu;
	snprintf((char *)s.name, sizeof(s.name), "rogue");
	header(R, mad, del ? SA_METHOD_DELETE : SA_METHOD_SET, SA_ATTR_SERVICE_REC,
	       del ? SR_ID_GID : SR_SET_MASK, tid);
	sa_service_rec_encode(&s, mad + SA_HDR_SIZE, MAD_SIZE - SA_HDR_SIZE);
}

/* The next request to send into mad; false when there is none now. */
static bool next_request(struct rogue *R, uint8_t *mad, uint32_t tid, enum kind *k)
{
	uint64_t i = R->sent;

	if (R->nleave) {   /* churn: leave what was created first */
		*k = K_LEAVE;
		mcmr(R, mad, tid, R->pi.port_guid, R->leave[--R->nleave], false);
		return true;
	}
	if (R->njoin) {    /* -a: the others into the groups created */
		struct to_join *j = &R->join[R->njoin - 1];

		*k = K_JOIN;
		mcmr(R, mad, tid, R->victims[j->next++], j->mgid, true);
		R->njoin -= j->next == R->nvictims;
		return true;
	}
	if (!R->todo && !(R->kind == K_CREATE && R->until_ms && now_ms() < R->until_ms))
		return false;
	if (R->todo)
		R->todo--;
	*k = R->kind;
	switch (R->kind) {
	case K_SUB: subscription(R, mad, tid, i); break;
	case K_SR_SET: service(R, mad, tid, R->sid + (R->sid == ROGUE_SID ? i : 0), false); break;
	case K_SR_DEL: service(R, mad, tid, R->sid, true); break;
	default:
		mcmr(R, mad, tid, R->nvictims ? R->victims[i % R->nvictims] : R->pi.port_guid, NULL,
		     false);
		break;
	}
	return true;
}

static void count_status(struct rogue *R, uint16_t st)
{
	for (int k = 0; k < 16; k++)
		if (!R->st_cnt[k] || R->st_val[k] == st) {
			R->st_val[k] = st;
			R->st_cnt[k]++;
			return;
		}
}

static void fill_window(struct rogue *R)
{
	struct mad_addr to = { .dlid = R->pi.sm_lid, .qpn = 1, .qkey = MAD_QKEY_GSI };
	uint8_t mad[MAD_SIZE];

	for (unsigned s = 0; s < R->window && R->outstanding < R->window; s++) {
		struct slot *sl = &R->slot[s];

		if (sl->busy)
			continue;
		sl->tid = ++R->next_tid;
		if (!next_request(R, mad, sl->tid, &sl->kind))
			return;
		if (R->tp.send(R->tp.ctx, mad, MAD_SIZE, &to) < 0) {
			R->lost++;
			continue;
		}
		sl->busy = true;
		sl->sent_ms = now_ms();
		R->outstanding++;
		R->sent++;
	}
}

static void answered(struct rogue *R, struct slot *sl, const uint8_t *mad, size_t len)
{
	struct sa_hdr h;
	struct sa_mcmember_rec m;

	sl->busy = false;
	R->outstanding--;
	if (sa_hdr_decode(mad, len, &h) < 0) {
		R->lost++;
		return;
	}
	if (h.hdr.status) {
		count_status(R, h.hdr.status);
		return;
	}
	R->ok++;
	R->leaves_ok += sl->kind == K_LEAVE;
	R->joins_ok += sl->kind == K_JOIN;
	if (sl->kind != K_CREATE ||
	    sa_mcmember_rec_decode(mad + SA_HDR_SIZE, len - SA_HDR_SIZE, &m) < 0)
		return;
	R->creates_ok++;
	if (R->join_all && R->nvictims) {
		if (R->njoin == R->join_cap) {
			R->join_cap = R->join_cap ? 2 * R->join_cap : 64;
			R->join = realloc(R->join, R->join_cap * sizeof(*R->join));
			if (!R->join)
				exit(1);
		}
		memcpy(R->join[R->njoin].mgid, m.mgid, 16);
		R->join[R->njoin++].next = 0;
	}
	if (!R->until_ms)
		return;
	if (R->nleave == R->leave_cap) {
		R->leave_cap = R->leave_cap ? 2 * R->leave_cap : 64;
		R->leave = realloc(R->leave, R->leave_cap * 16);
		if (!R->leave)
			exit(1);
	}
	memcpy(R->leave[R->nleave++], m.mgid, 16);
}

static uint32_t tid_low(const uint8_t *mad)
{
	return (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 | (uint32_t)mad[14] << 8 | mad[15];
}

static void receive(struct rogue *R)
{
	struct pollfd p = { .fd = R->tp.fd(R->tp.ctx), .events = POLLIN };
	uint8_t mad[MAD_RECV_MAX];
	struct mad_addr from;
	int status = 0, n;

	poll(&p, 1, 5);
	while ((n = R->tp.recv(R->tp.ctx, mad, sizeof(mad), &status, &from)) > 0) {
		if (n < SA_HDR_SIZE || mad[1] != MAD_CLASS_SA || !(mad[3] & 0x80 || status))
			continue;   /* Reports are never acknowledged */
		for (unsigned s = 0; s < R->window; s++) {
			struct slot *sl = &R->slot[s];

			if (!sl->busy || sl->tid != tid_low(mad))
				continue;
			if (status) {
				sl->busy = false;
				R->outstanding--;
				R->lost++;
			} else {
				answered(R, sl, mad, (size_t)n);
			}
			break;
		}
	}
}

static void expire(struct rogue *R)
{
	double t = now_ms();

	for (unsigned s = 0; s < R->window; s++)
		if (R->slot[s].busy && t - R->slot[s].sent_ms >= R->timeout_ms) {
			R->slot[s].busy = false;
			R->outstanding--;
			R->lost++;
		}
}

static void run(struct rogue *R)
{
	do {
		fill_window(R);
		receive(R);
		expire(R);
	} while (R->outstanding || R->todo || R->nleave || R->njoin ||
		 (R->until_ms && R->kind == K_CREATE && now_ms() < R->until_ms));
}

static void report(const struct rogue *R)
{
	uint64_t refused = 0;

	for (int k = 0; k < 16; k++)
		refused += R->st_cnt[k];
	printf("sa_rogue: %llu requests, %llu ok, %llu refused", (unsigned long long)R->sent,
	       (unsigned long long)R->ok, (unsigned long long)refused);
	for (int k = 0; k < 16 && R->st_cnt[k]; k++)
		printf("%s0x%04x:%llu", k ? " " : " (", R->st_val[k], (unsigned long long)R->st_cnt[k]);
	printf("%s, %llu lost, elapsed_ms %.0f", R->st_cnt[0] ? ")" : "", (unsigned long long)R->lost,
	       now_ms() - R->t0);
	printf(", creates_ok %llu, joins_ok %llu, leaves_ok %llu", (unsigned long long)R->creates_ok,
	       (unsigned long long)R->joins_ok, (unsigned long long)R->leaves_ok);
	printf("\n");
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static uint64_t hex(const char *s)
{
	return strtoull(s, NULL, 16);
}

/* The command's work; 0 or 2 (usage). */
static int plan(struct rogue *R, int argc, char **argv, unsigned subs)
{
	const char *c = argv[0];

	R->gid_guid = R->pi.port_guid;
	if (!strcmp(c, "create") && argc == 2) {
		R->kind = K_CREATE;
		R->todo = num(argv[1]);
	} else if (!strcmp(c, "proxy-create") && argc >= 3) {
		R->kind = K_CREATE;
		R->todo = num(argv[1]);
		for (int i = 2; i < argc && R->nvictims < MAX_VICTIMS; i++)
			R->victims[R->nvictims++] = hex(argv[i]);
	} else if (!strcmp(c, "churn") && argc == 2) {
		R->kind = subs ? K_SUB : K_CREATE;
		R->todo = subs;
		R->until_ms = now_ms() + 1000.0 * (double)num(argv[1]);
	} else if (!strcmp(c, "squat") && argc == 3) {
		R->kind = K_SR_SET;
		R->todo = 1;
		R->gid_guid = hex(argv[1]);
		R->sid = num(argv[2]);
	} else if (!strcmp(c, "services") && (argc == 2 || argc == 3)) {
		R->kind = K_SR_SET;
		R->todo = num(argv[1]);
		R->sid = ROGUE_SID;
		if (argc == 3)
			R->gid_guid = hex(argv[2]);
	} else if (!strcmp(c, "delete") && argc == 3) {
		R->kind = K_SR_DEL;
		R->todo = 1;
		R->gid_guid = hex(argv[1]);
		R->sid = num(argv[2]);
	} else {
		return 2;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sa_rogue [-a] [-k KEY] [-w WINDOW] [-T TIMEOUT_MS] [-s SUBS] COMMAND\n"
		"  create N | proxy-create N GUID... | churn SECS | squat GUID SID |\n"
		"  services N [GUID] | delete GUID SID\n");
}

int main(int argc, char **argv)
{
	static struct rogue R;
	struct mad_umad_opts o;
	unsigned subs = 0;
	char err[256];
	int ch;

	R.window = 32;
	R.timeout_ms = 1000;
	while ((ch = getopt(argc, argv, "+ak:w:T:s:")) != -1) {
		switch (ch) {
		case 'a': R.join_all = true; break;
		case 'k': R.sm_key = num(optarg); break;
		case 'w': R.window = (unsigned)num(optarg); break;
		case 'T': R.timeout_ms = (unsigned)num(optarg); break;
		case 's': subs = (unsigned)num(optarg); break;
		default: usage(); return 2;
		}
	}
	if (optind >= argc || !R.window || R.window > MAX_WINDOW) {
		usage();
		return 2;
	}
	mad_umad_opts_default(&o);
	o.want_issm = 0;
	if (mad_umad_open_opts(NULL, 0, 0, &o, &R.tp, &R.pi, err, sizeof(err)) < 0) {
		fprintf(stderr, "sa_rogue: %s\n", err);
		return 1;
	}
	if (plan(&R, argc - optind, argv + optind, subs)) {
		usage();
		return 2;
	}
	R.t0 = now_ms();
	run(&R);
	if (R.kind == K_SUB) {   /* then the loop of creates and leaves */
		R.kind = K_CREATE;
		run(&R);
	}
	report(&R);
	free(R.leave);
	free(R.join);
	R.tp.close(R.tp.ctx);
	return 0;
}
