/*
 * DOC: sa_agent, a test client of the SA for what saquery cannot ask.
 *
 * saquery sends GetTables with well-formed masks only. The SA tests also
 * need a Get as RDMA CM sends it, GetMulti (MultiPathRecord), Set and
 * Delete (ServiceRecord), malformed requests (a bad method, a bad mask),
 * and an InformInfo subscriber that receives Reports. This tool speaks to
 * the SA through ibsmd's own umad transport (under ibsim with the
 * umad2sim preload, like every client):
 *
 *   sa_agent [-k SMKEY] [-m MOD] [-t SEC] req METHOD ATTR MASK [HEX]
 *       one request to the SM's LID (MasterSMLID of the local port);
 *       METHOD and ATTR in hex (0x12, 0x35), MASK the component mask, HEX
 *       the template (spaces ignored, zero-filled to 200 bytes). Prints
 *         status 0x0000 method 0x92 attr_offset 8 records 2
 *         rec 0 <hex of the record>
 *       only the records that end by MAD byte 224: under ibsim the bytes
 *       after that are garbage (sa-mcast-ha.md 2.5).
 *   sa_agent [-t SEC] subscribe TRAP[,TRAP...] COUNT
 *       opens issm (ibsim gives requests to QP1 only to an issm client),
 *       subscribes to each TRAP (0xffff: every trap) and prints "subscribed";
 *       then prints every Report as
 *         report trap 65 gid fe80::... issuer 13
 *       and answers it with ReportResp, until COUNT Reports came or the
 *       time is up; then unsubscribes. Exit 0 when COUNT came.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/engine.h"
#include "mad/sa.h"

#define INTACT_END 224            /* ibsim: MAD bytes beyond are garbage */

struct agent {
	struct mad_transport tp;
	struct mad_port_info pi;
	uint64_t sm_key;
	uint32_t mod;
	time_t deadline;
	uint32_t tid;
};

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

static size_t parse_hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		if (!isxdigit((unsigned char)s[0])) {
			s++;
			continue;
		}
		if (!isxdigit((unsigned char)s[1]))
			break;
		out[n++] = (uint8_t)(hexval(s[0]) << 4 | hexval(s[1]));
		s += 2;
	}
	return n;
}

static uint32_t tid_low(const uint8_t *mad)
{
	return ((uint32_t)mad[12] << 24) | ((uint32_t)mad[13] << 16) | ((uint32_t)mad[14] << 8) |
	       mad[15];
}

static void to_sm(const struct agent *a, struct mad_addr *to)
{
	memset(to, 0, sizeof(*to));
	to->dlid = a->pi.sm_lid;
	to->qpn = 1;
	to->qkey = MAD_QKEY_GSI;
}

/* Wait for a MAD: a response with TID tid (low 32 bits: the rest belong to
 * the kernel or umad2sim), or any request when tid is 0. */
static int wait_mad(struct agent *a, uint32_t tid, uint8_t *buf, size_t cap,
		    struct mad_addr *from)
{
	struct pollfd p = { .fd = a->tp.fd(a->tp.ctx), .events = POLLIN };

	while (time(NULL) < a->deadline) {
		int status = 0, n;

		poll(&p, 1, 100);
		n = a->tp.recv(a->tp.ctx, buf, cap, &status, from);
		if (n <= 0 || status || n < SA_HDR_SIZE || buf[1] != MAD_CLASS_SA)
			continue;
		if (tid ? (buf[3] & 0x80) && tid_low(buf) == tid : !(buf[3] & 0x80))
			return n;
	}
	return -1;
}

static size_t build(struct agent *a, uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask,
		    const uint8_t *tmpl, size_t tlen)
{
	struct sa_hdr h;

	sa_req_hdr(&h, method, attr, ++a->tid);
	h.hdr.attr_mod = a->mod;
	h.sm_key = a->sm_key;
	h.comp_mask = mask;
	memset(mad, 0, MAD_SIZE);
	sa_hdr_encode(&h, mad, MAD_SIZE);
	memcpy(mad + SA_HDR_SIZE, tmpl, tlen);
	return MAD_SIZE;
}

static void print_answer(const uint8_t *m, int n)
{
	struct sa_hdr h;
	size_t stride, recs = 0, end = (size_t)n < INTACT_END ? (size_t)n : INTACT_END;

	sa_hdr_decode(m, (size_t)n, &h);
	stride = (size_t)h.attr_offset * 8;
	if (stride && !h.hdr.status && end > SA_HDR_SIZE)
		recs = (end - SA_HDR_SIZE) / stride;
	printf("status 0x%04x method 0x%02x attr_offset %u records %zu\n", h.hdr.status,
	       h.hdr.method, h.attr_offset, recs);
	for (size_t i = 0; i < recs; i++) {
		printf("rec %zu ", i);
		for (size_t k = 0; k < stride; k++)
			printf("%02x", m[SA_HDR_SIZE + i * stride + k]);
		printf("\n");
	}
}

static int cmd_req(struct agent *a, int argc, char **argv)
{
	uint8_t tmpl[SA_DATA_SIZE] = { 0 }, mad[MAD_SIZE], ans[MAD_RECV_MAX];
	struct mad_addr to, from;
	size_t tlen = 0;
	int n;

	if (argc < 3)
		return 2;
	if (argc > 3)
		tlen = parse_hex(argv[3], tmpl, sizeof(tmpl));
	(void)tlen;
	build(a, mad, (uint8_t)strtoul(argv[0], NULL, 16), (uint16_t)strtoul(argv[1], NULL, 16),
	      strtoull(argv[2], NULL, 0), tmpl, sizeof(tmpl));
	to_sm(a, &to);
	if (a->tp.send(a->tp.ctx, mad, MAD_SIZE, &to) < 0) {
		fprintf(stderr, "sa_agent: send failed\n");
		return 1;
	}
	n = wait_mad(a, a->tid, ans, sizeof(ans), &from);
	if (n < 0) {
		fprintf(stderr, "sa_agent: no answer\n");
		return 1;
	}
	print_answer(ans, n);
	return 0;
}

/* --- subscriber --- */

static int inform(struct agent *a, uint16_t trap, uint8_t on)
{
	uint8_t ii[36] = { 0 }, mad[MAD_SIZE], ans[MAD_RECV_MAX];
	struct mad_addr to, from;
	struct sa_hdr h;

	ii[16] = ii[17] = 0xFF;           /* LIDRangeBegin: all */
	ii[22] = 1;                       /* IsGeneric */
	ii[23] = on;                      /* Subscribe */
	ii[24] = ii[25] = 0xFF;           /* Type: all */
	ii[26] = (uint8_t)(trap >> 8);
	ii[27] = (uint8_t)trap;
	ii[33] = ii[34] = ii[35] = 0xFF;  /* ProducerType: all */
	build(a, mad, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, ii, sizeof(ii));
	to_sm(a, &to);
	if (a->tp.send(a->tp.ctx, mad, MAD_SIZE, &to) < 0 ||
	    wait_mad(a, a->tid, ans, sizeof(ans), &from) < 0)
		return -1;
	sa_hdr_decode(ans, MAD_SIZE, &h);
	return h.hdr.status ? -1 : 0;
}

static void report_resp(struct agent *a, uint8_t *mad, const struct mad_addr *from)
{
	struct sa_hdr h, r;
	struct mad_addr to;

	sa_hdr_decode(mad, MAD_SIZE, &h);
	sa_resp_hdr(&h, 0, &r);
	sa_hdr_encode(&r, mad, MAD_SIZE);
	mad_addr_reply(from, &to);
	a->tp.send(a->tp.ctx, mad, MAD_SIZE, &to);
}

static int cmd_subscribe(struct agent *a, int argc, char **argv)
{
	uint8_t mad[MAD_RECV_MAX];
	struct mad_addr from;
	unsigned want, got = 0, ntraps = 0;
	uint16_t traps[8];
	char *p = argc ? argv[0] : NULL;

	if (argc < 2)
		return 2;
	while (p && *p && ntraps < 8) {
		traps[ntraps++] = (uint16_t)strtoul(p, &p, 0);
		p += *p == ',';
	}
	want = (unsigned)strtoul(argv[1], NULL, 0);
	for (unsigned i = 0; i < ntraps; i++)
		if (inform(a, traps[i], 1) < 0) {
			fprintf(stderr, "sa_agent: subscription refused or unanswered\n");
			return 1;
		}
	printf("subscribed\n");
	fflush(stdout);
	while (got < want && wait_mad(a, 0, mad, sizeof(mad), &from) > 0) {
		struct smp_notice n;
		char gid[INET6_ADDRSTRLEN];

		if (mad[3] != SA_METHOD_REPORT || sa_notice_decode(mad + SA_HDR_SIZE, 80, &n) < 0)
			continue;
		inet_ntop(AF_INET6, n.data_details + 6, gid, sizeof(gid));
		printf("report trap %u gid %s issuer %u\n", n.trap_num, gid, n.issuer_lid);
		fflush(stdout);
		report_resp(a, mad, &from);
		got++;
	}
	for (unsigned i = 0; i < ntraps; i++)
		inform(a, traps[i], 0);
	return got >= want ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct agent a;
	struct mad_umad_opts o;
	unsigned secs = 10;
	char err[256];
	int ch, rc;

	while ((ch = getopt(argc, argv, "+k:m:t:")) != -1) {
		switch (ch) {
		case 'k': a.sm_key = strtoull(optarg, NULL, 0); break;
		case 'm': a.mod = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': secs = (unsigned)strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		fprintf(stderr, "usage: sa_agent [-k KEY] [-m MOD] [-t SEC] req METHOD ATTR MASK [HEX]\n"
				"       sa_agent [-t SEC] subscribe TRAP COUNT\n");
		return 2;
	}
	mad_umad_opts_default(&o);
	o.want_issm = !strcmp(argv[0], "subscribe");
	if (mad_umad_open_opts(NULL, 0, 0, &o, &a.tp, &a.pi, err, sizeof(err)) < 0) {
		fprintf(stderr, "sa_agent: %s\n", err);
		return 1;
	}
	a.deadline = time(NULL) + secs;
	a.tid = (uint32_t)time(NULL) << 8;
	if (!strcmp(argv[0], "req"))
		rc = cmd_req(&a, argc - 1, argv + 1);
	else if (!strcmp(argv[0], "subscribe"))
		rc = cmd_subscribe(&a, argc - 1, argv + 1);
	else
		rc = 2;
	a.tp.close(a.tp.ctx);
	return rc;
}
