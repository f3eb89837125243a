/*
 * DOC: rogue_smp, a test tool that changes a fabric behind the SM's back,
 * as a misbehaving host or a second, misconfigured SM would.
 *
 *   rogue_smp lft LID BLOCK PORT      every entry of LFT block BLOCK of the
 *                                     switch at LID becomes PORT
 *   rogue_smp lid LID PORT NEWLID     port PORT of the node at LID gets
 *                                     LID NEWLID (PortInfo Get, then Set)
 *   rogue_smp sminfo LID MOD GUID [KEY [STATE [PRIO]]]
 *                                     SMInfo Set with AttributeModifier MOD
 *                                     (1 HANDOVER ... 5 DISCOVER) to the SM
 *                                     at LID, its payload forged: GUID,
 *                                     SM_Key KEY (default 1), SMState
 *                                     STATE (default 3, master), priority
 *   rogue_smp pkey-here BLOCK PKEY...  P_KeyTable block BLOCK of the port
 *                                     the tool is attached at becomes the
 *                                     P_Keys given, the rest of it 0
 *   rogue_smp lid-here LID SMLID      the port the tool is attached at gets
 *                                     LID and MasterSMLID (PortInfo Get,
 *                                     then Set; its state is left alone)
 *   rogue_smp pkey-dr PATH PORT BLOCK PKEY...
 *                                     P_KeyTable block BLOCK of port PORT
 *                                     of the switch at the directed route
 *                                     PATH (port numbers, comma-separated,
 *                                     from the tool's port) becomes the
 *                                     P_Keys given, the rest of it 0
 *
 * All but the -here and -dr ones are LID-routed SMPs (class 0x01); those
 * are directed-route SMPs, so they work on a fabric no SM has given LIDs
 * yet. They go through ibsmd's own engine and transport, sent
 * from wherever the tool is attached (SIM_HOST under the umad2sim
 * preload). Exit status 0 when the Set was answered without error,
 * 3 when it got no answer (a block that drops the way back to us loses the
 * answer, not the Set), 1 otherwise.
 */
#include "config.h"

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/engine.h"
#include "mad/smp.h"

struct job {
	int done;
	int err;
	struct smp resp;
};

static void on_done(void *arg, int err, const struct smp *resp)
{
	struct job *j = arg;

	j->done = 1;
	j->err = err;
	if (resp)
		j->resp = *resp;
}

/* Runs one request to completion; 0 or -1. */
static int run(struct mad_engine *e, const struct mad_transport *tp, const struct mad_req *r,
	       struct smp *resp)
{
	struct job j = { 0 };
	struct pollfd p = { .fd = tp->fd(tp->ctx), .events = POLLIN };

	if (mad_engine_submit(e, r, on_done, &j) < 0)
		return -1;
	while (!j.done) {
		if (poll(&p, 1, 10) > 0)
			mad_engine_on_readable(e);
		mad_engine_on_timer(e);
	}
	if (resp)
		*resp = j.resp;
	if (j.err != MAD_OK)
		fprintf(stderr, "rogue_smp: attribute 0x%x to LID %u: error %d, status 0x%x\n",
			r->attr_id, r->dlid, j.err, j.resp.hdr.status);
	return j.err == MAD_OK ? 0 : j.err == MAD_ERR_TIMEOUT ? -3 : -1;
}

static void lid_req(struct mad_req *r, uint8_t method, uint16_t attr, uint32_t mod, uint16_t lid)
{
	memset(r, 0, sizeof(*r));
	r->mgmt_class = MAD_CLASS_SMI;
	r->method = method;
	r->attr_id = attr;
	r->attr_mod = mod;
	r->dlid = lid;
}

static int set_lft(struct mad_engine *e, const struct mad_transport *tp, char **av)
{
	struct mad_req r;

	lid_req(&r, MAD_METHOD_SET, SMP_ATTR_LFT, (uint32_t)strtoul(av[1], NULL, 0),
		(uint16_t)strtoul(av[0], NULL, 0));
	memset(r.data, (int)strtoul(av[2], NULL, 0), 64);
	return run(e, tp, &r, NULL);
}

static int set_lid(struct mad_engine *e, const struct mad_transport *tp, char **av)
{
	uint16_t lid = (uint16_t)strtoul(av[0], NULL, 0);
	uint32_t port = (uint32_t)strtoul(av[1], NULL, 0);
	struct smp_port_info pi;
	struct mad_req r;
	struct smp s;

	lid_req(&r, MAD_METHOD_GET, SMP_ATTR_PORT_INFO, port, lid);
	if (run(e, tp, &r, &s) != 0 || smp_port_info_decode(s.data, sizeof(s.data), &pi) < 0)
		return -1;
	pi.lid = (uint16_t)strtoul(av[2], NULL, 0);
	smp_port_info_no_change(&pi);
	lid_req(&r, MAD_METHOD_SET, SMP_ATTR_PORT_INFO, port, lid);
	smp_port_info_encode(&pi, r.data, sizeof(r.data));
	return run(e, tp, &r, NULL);
}

static int set_sminfo(struct mad_engine *e, const struct mad_transport *tp, int ac, char **av)
{
	struct smp_sm_info si = { 0 };
	struct mad_req r;

	lid_req(&r, MAD_METHOD_SET, SMP_ATTR_SM_INFO, (uint32_t)strtoul(av[1], NULL, 0),
		(uint16_t)strtoul(av[0], NULL, 0));
	si.guid = strtoull(av[2], NULL, 0);
	si.sm_key = ac > 3 ? strtoull(av[3], NULL, 0) : 1;
	si.sm_state = (uint8_t)(ac > 4 ? strtoul(av[4], NULL, 0) : 3);
	si.priority = (uint8_t)(ac > 5 ? strtoul(av[5], NULL, 0) : 0);
	si.act_count = 1;
	smp_sm_info_encode(&si, r.data, sizeof(r.data));
	return run(e, tp, &r, NULL);
}

/* A directed-route SMP with no hops: to the port the tool is attached at. */
static void here_req(struct mad_req *r, uint8_t method, uint16_t attr, uint32_t mod)
{
	lid_req(r, method, attr, mod, LID_PERMISSIVE);
	r->mgmt_class = MAD_CLASS_SMI_DR;
}

/* Sends P_KeyTable Set r with the P_Keys av[0..ac-1], the rest of the
 * block 0. */
static int set_pkeys(struct mad_engine *e, const struct mad_transport *tp, struct mad_req *r,
		     int ac, char **av)
{
	struct smp_pkey_block blk = { 0 };

	if (ac < 1 || ac > (int)(sizeof(blk.pkey) / sizeof(blk.pkey[0])))
		return -1;
	for (int i = 0; i < ac; i++)
		blk.pkey[i] = (uint16_t)strtoul(av[i], NULL, 0);
	smp_pkey_block_encode(&blk, r->data, sizeof(r->data));
	return run(e, tp, r, NULL);
}

static int set_pkeys_here(struct mad_engine *e, const struct mad_transport *tp, int ac,
			  char **av)
{
	struct mad_req r;

	here_req(&r, MAD_METHOD_SET, SMP_ATTR_PKEY_TABLE,
		 smp_pkey_mod(0, (uint16_t)strtoul(av[0], NULL, 0)));
	return set_pkeys(e, tp, &r, ac - 1, av + 1);
}

/* "1,3,2": the hops of a directed route; -1 when malformed or too long. */
static int dr_path(const char *s, struct mad_req *r)
{
	char *end;

	r->hop_cnt = 0;
	for (;;) {
		unsigned long port = strtoul(s, &end, 10);

		if (end == s || port == 0 || port > 254 || r->hop_cnt + 1 >= (int)sizeof(r->path))
			return -1;
		r->path[++r->hop_cnt] = (uint8_t)port;
		if (*end != ',')
			return *end ? -1 : 0;
		s = end + 1;
	}
}

static int set_pkeys_dr(struct mad_engine *e, const struct mad_transport *tp, int ac, char **av)
{
	struct mad_req r;

	here_req(&r, MAD_METHOD_SET, SMP_ATTR_PKEY_TABLE,
		 smp_pkey_mod((uint8_t)strtoul(av[1], NULL, 0), (uint16_t)strtoul(av[2], NULL, 0)));
	if (dr_path(av[0], &r) < 0) {
		fprintf(stderr, "rogue_smp: bad directed route '%s'\n", av[0]);
		return -1;
	}
	return set_pkeys(e, tp, &r, ac - 3, av + 3);
}

static int set_lid_here(struct mad_engine *e, const struct mad_transport *tp, char **av)
{
	struct smp_port_info pi;
	struct mad_req r;
	struct smp s;

	here_req(&r, MAD_METHOD_GET, SMP_ATTR_PORT_INFO, 0);
	if (run(e, tp, &r, &s) != 0 || smp_port_info_decode(s.data, sizeof(s.data), &pi) < 0)
		return -1;
	pi.lid = (uint16_t)strtoul(av[0], NULL, 0);
	pi.master_sm_lid = (uint16_t)strtoul(av[1], NULL, 0);
	smp_port_info_no_change(&pi);
	here_req(&r, MAD_METHOD_SET, SMP_ATTR_PORT_INFO, 0);
	smp_port_info_encode(&pi, r.data, sizeof(r.data));
	return run(e, tp, &r, NULL);
}

static bool usage_ok(int argc, char **argv)
{
	if (argc >= 4 && (!strcmp(argv[1], "pkey-here") || !strcmp(argv[1], "lid-here")))
		return true;
	if (argc >= 6 && !strcmp(argv[1], "pkey-dr"))
		return true;
	return argc >= 5 && (!strcmp(argv[1], "lft") || !strcmp(argv[1], "lid") ||
			     !strcmp(argv[1], "sminfo"));
}

int main(int argc, char **argv)
{
	struct mad_transport tp;
	struct mad_port_info info;
	struct mad_engine *e;
	char err[256];
	int rc;

	if (!usage_ok(argc, argv)) {
		fprintf(stderr, "usage: rogue_smp lft LID BLOCK PORT | lid LID PORT NEWLID | "
			"sminfo LID MOD GUID [KEY [STATE [PRIO]]] | pkey-here BLOCK PKEY... | "
			"lid-here LID SMLID | pkey-dr PATH PORT BLOCK PKEY...\n");
		return 2;
	}
	if (mad_umad_open(NULL, 0, 0, 0, &tp, &info, err, sizeof(err)) < 0) {
		fprintf(stderr, "rogue_smp: %s\n", err);
		return 1;
	}
	e = mad_engine_new(&tp, NULL);
	if (!strcmp(argv[1], "sminfo"))
		rc = set_sminfo(e, &tp, argc - 2, argv + 2);
	else if (!strcmp(argv[1], "pkey-here"))
		rc = set_pkeys_here(e, &tp, argc - 2, argv + 2);
	else if (!strcmp(argv[1], "pkey-dr"))
		rc = set_pkeys_dr(e, &tp, argc - 2, argv + 2);
	else if (!strcmp(argv[1], "lid-here"))
		rc = set_lid_here(e, &tp, argv + 2);
	else
		rc = !strcmp(argv[1], "lft") ? set_lft(e, &tp, argv + 2) : set_lid(e, &tp, argv + 2);
	mad_engine_free(e);
	tp.close(tp.ctx);
	return rc == -3 ? 3 : rc < 0 ? 1 : 0;
}
