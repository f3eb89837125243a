/*
 * DOC: smp-flood, the rate at which the test bed answers SMPs: the limit
 * that the bring-up benchmark compares ibsmd's time against.
 *
 * Attached like ibsmd (same libibumad transport, under ibsim the same
 * umad2sim preload), it first discovers the fabric with ibsmd's own
 * discovery (sm/discover.c), then sends COUNT directed-route NodeInfo Gets
 * through ibsmd's MAD engine, at ibsmd's window and per-destination cap,
 * keeping the engine's queue full so the window never drains. Only the
 * flood is timed: from its first submit to its last completion.
 *
 * Where the Gets go matters (a switch three hops away answers faster than
 * a host six hops away, and many destinations cost the engine more than
 * a few): they go to the nodes a bring-up's minimum SMPs go to, as often
 * (per switch its NodeInfo, NodeDescription, SwitchInfo, the PortInfo of
 * every port, its LID's PortInfo Set, its LFT blocks, its SwitchInfo Set
 * and two state Sets per linked port; per CA its NodeInfo,
 * NodeDescription, and per port its PortInfo, LID Set and two state
 * Sets), interleaved round-robin; -u sends to every node alike.
 *
 *   smp-flood [-w WINDOW] [-d PER_DEST] [-n COUNT] [-a ATTR] [-s] [-m] [-u]
 *
 * -a queries attribute ATTR instead of NodeInfo (0x15: PortInfo; 0x19, an
 * LFT block, and 0x12, SwitchInfo, go to switches only); -s sends
 * PortInfo Sets that change nothing instead (each node's port as read in
 * discovery, with the "no change" encodings): the rate of Sets. -m sends
 * each node the very mix of its bring-up SMPs listed above, in that order
 * (Gets, then Sets of PortInfo and SwitchInfo as read and of LFT blocks of
 * unused entries, 0xFF, which a fresh switch holds already): what the bed
 * takes for the bring-up's SMPs, not for as many NodeInfo Gets.
 *
 * Prints one line:
 *   flood smps=N failed=F ms=T rate=R window=W per_dest=D nodes=K discover_ms=M
 */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/engine.h"
#include "sm/discover.h"
#include "lib/log.h"

struct flood {
	struct mad_engine *eng;
	struct mad_transport tp;
	struct sm_fabric *f;
	bool discovered;
	uint64_t count, submitted, done, failed;
	uint32_t next;               /* node to query next */
	uint32_t *weight;            /* per node: its share of the Gets */
	uint32_t pass, passes;       /* round-robin pass; weights go that high */
	bool uniform;                /* -u: every node alike */
	uint16_t attr;
	bool set;                    /* PortInfo Sets that change nothing */
	bool mix;                    /* -m: each node's bring-up SMPs */
	uint32_t blocks;             /* LFT blocks a switch is sent */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void discovered(void *arg, struct sm_fabric *f, const struct discover_stats *st)
{
	struct flood *fl = arg;

	fl->f = f;
	fl->discovered = true;
}

static void got(void *arg, int err, const struct smp *resp)
{
	struct flood *fl = arg;

	fl->done++;
	if (err != MAD_OK)
		fl->failed++;
}

/* LinearForwardingTable and SwitchInfo go to switches only. */
static bool answers(const struct flood *fl, const struct sm_node *n)
{
	return node_is_switch(n) || (fl->attr != SMP_ATTR_LFT && fl->attr != SMP_ATTR_SWITCH_INFO);
}

/* The SMPs a bring-up of f needs at n (see the DOC comment). */
static uint32_t bringup_smps(const struct sm_fabric *f, const struct sm_node *n, uint32_t blocks)
{
	uint32_t w = 2, linked = 0, cports = 0;

	for (unsigned p = 1; p <= n->ni.num_ports; p++) {
		linked += n->ports[p].peer != NULL;
		cports += n->ports[p].guid != 0;
	}
	if (node_is_switch(n))
		return w + 1 + (n->ni.num_ports + 1u) + 1 + blocks + 1 + 2 * linked;
	return w + 2 * cports + 2 * linked;
}

static void weigh(struct flood *fl)
{
	const struct sm_fabric *f = fl->f;
	uint32_t lids = f->nswitches, blocks;

	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; !node_is_switch(f->nodes[i]) && p <= f->nodes[i]->ni.num_ports; p++)
			lids += f->nodes[i]->ports[p].guid != 0;
	blocks = lids / 64 + 1;
	fl->blocks = blocks;
	fl->weight = calloc(f->nnodes, sizeof(*fl->weight));
	if (!fl->weight)
		abort();
	for (uint32_t i = 0; i < f->nnodes; i++) {
		fl->weight[i] = fl->uniform ? 1 : bringup_smps(f, f->nodes[i], blocks);
		if (!answers(fl, f->nodes[i]))
			fl->weight[i] = 0;
		if (fl->weight[i] > fl->passes)
			fl->passes = fl->weight[i];
	}
}

/* The next node of the round robin: pass k goes to the nodes weighing
 * more than k; *k that pass. */
static const struct sm_node *next_node(struct flood *fl, uint32_t *k)
{
	for (;;) {
		uint32_t i = fl->next;

		*k = fl->pass;
		if (++fl->next == fl->f->nnodes) {
			fl->next = 0;
			fl->pass = (fl->pass + 1) % fl->passes;
		}
		if (fl->weight[i] > *k)
			return fl->f->nodes[i];
	}
}

/* A PortInfo Set of n's port p that changes nothing: as read, with the
 * Set's "no change" encodings. */
static void port_set(const struct sm_node *n, unsigned p, struct mad_req *r)
{
	struct smp_port_info pi = n->ports[p].pi;

	smp_port_info_no_change(&pi);
	r->method = MAD_METHOD_SET;
	r->attr_id = SMP_ATTR_PORT_INFO;
	r->attr_mod = p;
	smp_port_info_encode(&pi, r->data, sizeof(r->data));
}

/* The j-th port of n that is linked (linked 1) or has a GUID, 0 if none. */
static unsigned nth_port(const struct sm_node *n, uint32_t j, bool linked)
{
	for (unsigned p = 1; p <= n->ni.num_ports; p++)
		if ((linked ? n->ports[p].peer != NULL : n->ports[p].guid != 0) && !j--)
			return p;
	return 0;
}

/* -m: SMP k of a switch's bring-up list (see the DOC comment). */
static void switch_smp(const struct flood *fl, const struct sm_node *n, uint32_t k,
		       struct mad_req *r)
{
	uint32_t np = n->ni.num_ports + 1u;
	static const uint16_t first[] = { SMP_ATTR_NODE_INFO, SMP_ATTR_NODE_DESC,
					  SMP_ATTR_SWITCH_INFO };

	if (k < 3) {
		r->attr_id = first[k];
	} else if ((k -= 3) < np) {
		r->attr_id = SMP_ATTR_PORT_INFO;
		r->attr_mod = k;
	} else if ((k -= np) == 0) {
		port_set(n, 0, r);
	} else if (--k < fl->blocks) {
		struct smp_lft_block b;
		memset(b.port, 0xFF, sizeof(b.port));
		r->method = MAD_METHOD_SET;
		r->attr_id = SMP_ATTR_LFT;
		r->attr_mod = k;
		smp_lft_block_encode(&b, r->data, sizeof(r->data));
	} else if ((k -= fl->blocks) == 0) {
		r->method = MAD_METHOD_SET;
		r->attr_id = SMP_ATTR_SWITCH_INFO;
		smp_switch_info_encode(&n->si, r->data, sizeof(r->data));
	} else {
		port_set(n, nth_port(n, (k - 1) / 2, true), r);
	}
}

/* -m: SMP k of a CA's bring-up list. */
static void ca_smp(const struct sm_node *n, uint32_t k, struct mad_req *r)
{
	uint32_t nc = 0;

	for (unsigned p = 1; p <= n->ni.num_ports; p++)
		nc += n->ports[p].guid != 0;
	if (k < 2)
		r->attr_id = k ? SMP_ATTR_NODE_DESC : SMP_ATTR_NODE_INFO;
	else if ((k -= 2) < nc) {
		r->attr_id = SMP_ATTR_PORT_INFO;
		r->attr_mod = nth_port(n, k, false);
	} else if ((k -= nc) < nc)
		port_set(n, nth_port(n, k, false), r);
	else
		port_set(n, nth_port(n, (k - nc) / 2, true), r);
}

static void submit_one(struct flood *fl)
{
	uint32_t k;
	const struct sm_node *n = next_node(fl, &k);
	struct mad_req r;

	memset(&r, 0, sizeof(r));
	r.mgmt_class = MAD_CLASS_SMI_DR;
	r.method = MAD_METHOD_GET;
	r.attr_id = fl->attr;
	if (fl->mix && node_is_switch(n))
		switch_smp(fl, n, k, &r);
	else if (fl->mix)
		ca_smp(n, k, &r);
	else if (fl->set)
		port_set(n, node_is_switch(n) ? 0 : n->via_local, &r);
	r.dlid = LID_PERMISSIVE;
	r.hop_cnt = n->hop_cnt;
	memcpy(r.path, n->path, sizeof(r.path));
	if (mad_engine_submit(fl->eng, &r, got, fl) == 0)
		fl->submitted++;
}

/* Keep twice the window queued behind the wire, so it never drains. */
static void top_up(struct flood *fl, unsigned window)
{
	while (fl->submitted < fl->count && fl->submitted - fl->done < 3ull * window)
		submit_one(fl);
}

/* Drain the transport the way ibsmd does under umad2sim (daemon/main.c on_pump):
 * poll the fake fd with a short wait, then read and expire. */
static void pump(struct flood *fl)
{
	struct pollfd p = { .fd = fl->tp.fd(fl->tp.ctx), .events = POLLIN };

	if (poll(&p, 1, 1) > 0)
		mad_engine_on_readable(fl->eng);
	mad_engine_on_timer(fl->eng);
}

static int open_engine(struct flood *fl, unsigned window, unsigned per_dest)
{
	struct mad_engine_opts eo;
	struct mad_umad_opts uo;
	struct mad_port_info pi;
	char err[256];

	mad_umad_opts_default(&uo);
	uo.want_issm = 0;
	uo.sa = 0;
	if (mad_umad_open_opts(NULL, 0, 0, &uo, &fl->tp, &pi, err, sizeof(err)) < 0) {
		fprintf(stderr, "smp-flood: %s\n", err);
		return -1;
	}
	mad_engine_opts_default(&eo);
	eo.window = window;
	eo.per_dest = per_dest;
	fl->eng = mad_engine_new(&fl->tp, &eo);
	return 0;
}

static void usage(void)
{
	fputs("usage: smp-flood [-w WINDOW] [-d PER_DEST] [-n COUNT] [-a ATTR] [-s] [-m] [-u]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned window = 64, per_dest = 4;
	struct flood fl = { .count = 200000, .attr = SMP_ATTR_NODE_INFO };
	double t0, t1, t2;
	int ch;

	while ((ch = getopt(argc, argv, "w:d:n:a:smu")) != -1) {
		if (ch == 'w')
			window = (unsigned)strtoul(optarg, NULL, 0);
		else if (ch == 'd')
			per_dest = (unsigned)strtoul(optarg, NULL, 0);
		else if (ch == 's')
			fl.set = true;
		else if (ch == 'm')
			fl.mix = true;
		else if (ch == 'u')
			fl.uniform = true;
		else if (ch == 'a')
			fl.attr = (uint16_t)strtoul(optarg, NULL, 0);
		else if (ch == 'n')
			fl.count = strtoull(optarg, NULL, 0);
		else
			usage();
	}
	if (!window || window > 1024 || !per_dest || per_dest > 64 || !fl.count)
		usage();
	log_init(LOG_LVL_WARNING, 0);
	if (open_engine(&fl, window, per_dest) < 0)
		return 1;
	t0 = now_ms();
	if (!discover_start(fl.eng, 0, discovered, &fl))
		return 1;
	while (!fl.discovered)
		pump(&fl);
	if (!fl.f) {
		fprintf(stderr, "smp-flood: the local port did not answer\n");
		return 1;
	}
	t1 = now_ms();
	weigh(&fl);
	if (!fl.passes) {
		fprintf(stderr, "smp-flood: no node answers attribute 0x%x\n", fl.attr);
		return 1;
	}
	top_up(&fl, window);
	while (fl.done < fl.count) {
		pump(&fl);
		top_up(&fl, window);
	}
	t2 = now_ms();
	printf("flood smps=%llu failed=%llu ms=%.1f rate=%.0f window=%u per_dest=%u nodes=%u "
	       "discover_ms=%.1f\n", (unsigned long long)fl.done, (unsigned long long)fl.failed,
	       t2 - t1, (double)fl.done / ((t2 - t1) / 1e3), window, per_dest, fl.f->nnodes,
	       t1 - t0);
	free(fl.weight);
	fabric_free(fl.f);
	mad_engine_free(fl.eng);
	fl.tp.close(fl.tp.ctx);
	return fl.failed ? 1 : 0;
}
