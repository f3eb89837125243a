/*
 * DOC: ar_agent, a test tool that plays the adaptive-routing side of an
 * NVIDIA switch on an ibsim fabric.
 *
 * ibsim answers the standard SMP attributes of a switch itself and hands
 * every attribute it does not know (0xFF17, 0xFF20-0xFF23) to a client
 * attached at that node that opened issm. This agent is that client
 * (SIM_HOST=<switch>, under the umad2sim preload): it answers GeneralInfo
 * (capability mask), ARInfo, the AR group table and the AR LFT with Get and
 * Set from in-memory tables, using ibsmd's own codecs (mad/ar.h).
 *
 *   ar_agent -o FILE [-g GROUP_CAP] [-n] [-f N [-F COUNT]] [-t SECONDS]
 *     -o FILE   dump the tables to FILE on SIGUSR1 and at exit
 *     -g CAP    ARInfo group_cap (default 64; 0 = AR not supported)
 *     -n        GeneralInfo without capability bit 2 (AR Rev1)
 *     -f N      answer Set number N+1 (and the COUNT-1 after it, -F,
 *               default 1) with an error status
 *     -t SEC    exit after SEC seconds (default 300)
 *
 * Dump format (the same as ibsmd --dump-ar):
 *   switch 0xGUID enabled E group_top T
 *   group G ports P,P,...      (G = 1..T; "-" when empty; only when E=1)
 *   lid L STATE port P group G (every LID of every AR LFT block written)
 *   info ...                   (ARInfo R/W fields, agent only)
 *   sets N                     (Sets received, agent only)
 * Blocking and single-threaded on purpose: it is a test tool. umad2sim's
 * fake fd is served by poll() with a timeout, as in ibsmd's pump.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/ar.h"
#include "mad/engine.h"
#include "mad/smp.h"

#define GRP_BLOCKS (AR_MAX_GROUPS / AR_GROUPS_PER_BLOCK)
#define LFT_BLOCKS 3072           /* LIDs 0..0xBFFF */
#define ST_BAD_ATTR (3 << 2)      /* MAD status: method/attribute unsupported */
#define ST_BAD_VALUE (7 << 2)     /* MAD status: invalid attribute or modifier */

struct agent {
	struct mad_transport tp;
	uint64_t guid;
	struct ar_gi_caps caps;
	struct ar_info info;
	uint8_t grp[GRP_BLOCKS][64];
	uint8_t lft[LFT_BLOCKS][64];
	int lft_top;                  /* highest AR LFT block written, -1 none */
	unsigned sets, fail_after, fail_count;
	const char *dump;
};

static volatile sig_atomic_t want_dump, want_exit;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		want_dump = 1;
	else
		want_exit = 1;
}

static void dump_ports(FILE *f, const uint64_t *w)
{
	int any = 0;

	for (unsigned p = 0; p < 256; p++)
		if ((w[p / 64] >> (p % 64)) & 1) {
			fprintf(f, "%s%u", any ? "," : " ", p);
			any = 1;
		}
	if (!any)
		fputs(" -", f);
}

static void dump_tables(FILE *f, const struct agent *a)
{
	static const char *const names[] = { "bounded", "free", "static", "hbf" };
	struct ar_group_block gb;
	struct ar_lft_block lb;

	fprintf(f, "switch 0x%016" PRIx64 " enabled %d group_top %u\n", a->guid, a->info.e,
		a->info.e ? a->info.group_top : 0);
	if (a->info.e) {
		for (unsigned g = 1; g <= a->info.group_top; g++) {
			ar_group_block_decode(a->grp[g / 2], 64, &gb);
			fprintf(f, "group %u ports", g);
			dump_ports(f, gb.ports[g % 2]);
			fputc('\n', f);
		}
		for (int b = 0; b <= a->lft_top; b++) {
			ar_lft_block_decode(a->lft[b], 64, &lb);
			for (int k = 0; k < AR_LIDS_PER_BLOCK; k++)
				fprintf(f, "lid %d %s port %u group %u\n", b * AR_LIDS_PER_BLOCK + k,
					names[lb.e[k].state & 3], lb.e[k].port, lb.e[k].group);
		}
	}
	fprintf(f, "info by_sl_en %u sl_mask 0x%04x transport_disable 0x%x ageing %u\n",
		a->info.by_sl_en, a->info.enable_by_sl_mask, a->info.by_transport_disable,
		a->info.ageing_time_value);
	fprintf(f, "sets %u\n", a->sets);
}

/* Written to FILE.tmp and renamed, so a reader never sees half a dump. */
static void dump(const struct agent *a)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", a->dump);
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		return;
	}
	dump_tables(f, a);
	if (fclose(f) == 0)
		rename(tmp, a->dump);
}

/* The writable ARInfo fields; capabilities stay ours. */
static void set_info(struct agent *a, const struct ar_info *in)
{
	a->info.e = in->e;
	a->info.no_fallback = in->no_fallback;
	a->info.by_sl_en = in->by_sl_en;
	a->info.enable_by_sl_mask = in->enable_by_sl_mask;
	a->info.by_transport_disable = in->by_transport_disable;
	a->info.ageing_time_value = in->ageing_time_value;
	a->info.group_top = in->group_top;
	a->info.sub_grps_active = in->sub_grps_active;
	a->info.fr_enabled = in->fr_enabled;
	a->info.rn_xmit_enabled = in->rn_xmit_enabled;
}

static uint16_t handle_info(struct agent *a, struct smp *m, int set)
{
	struct ar_info in;

	if (set) {
		if (ar_info_decode(m->data, sizeof(m->data), &in) < 0)
			return ST_BAD_VALUE;
		set_info(a, &in);
	}
	memset(m->data, 0, sizeof(m->data));
	ar_info_encode(&a->info, m->data, sizeof(m->data));
	return 0;
}

static uint16_t handle_block(struct agent *a, struct smp *m, int set)
{
	uint32_t b = m->hdr.attr_mod;
	int lft = m->hdr.attr_id == SMP_ATTR_AR_LFT;
	uint32_t nblocks = lft ? LFT_BLOCKS : (a->info.group_cap + 1u) / 2;
	uint8_t *blk;

	if (b >= nblocks)
		return ST_BAD_VALUE;
	blk = lft ? a->lft[b] : a->grp[b];
	if (set) {
		memcpy(blk, m->data, 64);
		if (lft && (int)b > a->lft_top)
			a->lft_top = (int)b;
	}
	memcpy(m->data, blk, 64);
	return 0;
}

static uint16_t handle(struct agent *a, struct smp *m)
{
	int set = m->hdr.method == MAD_METHOD_SET;

	if (set && a->sets++ >= a->fail_after && a->sets <= a->fail_after + a->fail_count) {
		fprintf(stderr, "ar_agent: failing Set %u (attr 0x%04x mod %u)\n", a->sets,
			m->hdr.attr_id, m->hdr.attr_mod);
		return ST_BAD_VALUE;
	}
	switch (m->hdr.attr_id) {
	case SMP_ATTR_GENERAL_INFO:
		if (set || m->hdr.attr_mod != AR_GI_MOD_CAPS)
			return ST_BAD_VALUE;
		memset(m->data, 0, sizeof(m->data));
		ar_gi_caps_encode(&a->caps, m->data, sizeof(m->data));
		return 0;
	case SMP_ATTR_AR_INFO:
		return handle_info(a, m, set);
	case SMP_ATTR_AR_GROUP_TABLE:
	case SMP_ATTR_AR_LFT:
		return handle_block(a, m, set);
	default:
		return ST_BAD_ATTR;
	}
}

static void serve_one(struct agent *a, const uint8_t *buf, int len, const struct mad_addr *from)
{
	struct smp m;
	uint8_t out[MAD_SIZE];

	if (smp_decode(buf, (size_t)len, &m) < 0 ||
	    (m.hdr.method != MAD_METHOD_GET && m.hdr.method != MAD_METHOD_SET))
		return;
	m.hdr.status = handle(a, &m);
	m.hdr.method = MAD_METHOD_GET_RESP;
	if (m.hdr.mgmt_class == MAD_CLASS_SMI_DR)
		m.hdr.d_bit = 1;
	if (smp_encode(&m, out, sizeof(out)) == 0 && a->tp.send(a->tp.ctx, out, sizeof(out), from) < 0)
		fprintf(stderr, "ar_agent: cannot send a response\n");
}

static void serve(struct agent *a, time_t until)
{
	uint8_t buf[MAD_SIZE];
	struct mad_addr from;
	int status, n;

	while (!want_exit && time(NULL) < until) {
		struct pollfd p = { .fd = a->tp.fd(a->tp.ctx), .events = POLLIN };

		if (want_dump) {
			want_dump = 0;
			dump(a);
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		while ((n = a->tp.recv(a->tp.ctx, buf, sizeof(buf), &status, &from)) > 0)
			if (!status)
				serve_one(a, buf, n, &from);
	}
}

static void defaults(struct agent *a)
{
	memset(a, 0, sizeof(*a));
	a->caps.cap[0] = 1u << AR_GI_CAP_AR_REV1;
	a->info.group_cap = 64;
	a->info.group_table_cap = 1;
	a->info.ar_version_cap = 2;
	a->info.by_sl_cap = 1;
	a->info.by_transp_cap = 1;
	a->info.sub_grps_supported = 1;
	a->info.ageing_time_value = 0;
	a->lft_top = -1;
	a->fail_after = UINT32_MAX / 2;
	a->fail_count = 1;
}

static int parse(int argc, char **argv, struct agent *a, unsigned *lifetime)
{
	int ch;

	while ((ch = getopt(argc, argv, "o:g:nf:F:t:")) != -1) {
		switch (ch) {
		case 'o': a->dump = optarg; break;
		case 'g': a->info.group_cap = (uint16_t)(strtoul(optarg, NULL, 0) & 0xFFF); break;
		case 'n': a->caps.cap[0] = 0; break;
		case 'f': a->fail_after = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'F': a->fail_count = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': *lifetime = (unsigned)strtoul(optarg, NULL, 0); break;
		default: return -1;
		}
	}
	return a->dump ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct agent a;
	struct mad_port_info pi;
	unsigned lifetime = 300;
	char err[256];

	defaults(&a);
	if (parse(argc, argv, &a, &lifetime) < 0) {
		fprintf(stderr, "usage: ar_agent -o FILE [-g CAP] [-n] [-f N [-F COUNT]] [-t SEC]\n");
		return 2;
	}
	if (mad_umad_open(NULL, 0, 0, 1, &a.tp, &pi, err, sizeof(err)) < 0) {
		fprintf(stderr, "ar_agent: %s\n", err);
		return 1;
	}
	a.guid = pi.port_guid;
	signal(SIGUSR1, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	fprintf(stderr, "ar_agent: ready on %s port %d, GUID 0x%016" PRIx64 "\n", pi.ca_name,
		pi.port_num, a.guid);
	serve(&a, time(NULL) + lifetime);
	dump(&a);
	a.tp.close(a.tp.ctx);
	return 0;
}
