/*
 * DOC: the real MAD transport, over libibumad (or umad2sim under LD_PRELOAD).
 *
 * mad_umad_open() picks a port, registers SMI agents for the LID-routed and
 * directed-route classes with a method mask that lets us receive requests
 * (Get/Set SMInfo from other SMs and diag tools, Traps), registers the SA
 * agent (class 0x03 version 2) at once - under umad2sim a MAD of a class
 * without an agent crashes the receiver, and SA requests come as soon as
 * the fabric routes to us -, a PerfMgt (class 0x04) client agent for the
 * performance manager's queries, optionally opens the issm device (which sets
 * IsSM in our PortInfo capability mask for as long as the fd stays open),
 * and fills the mad_transport vtable.
 *
 * RMPP: by default the SA agent is registered with rmpp_version 1, as
 * OpenSM does, so the kernel segments our long sends and reassembles long
 * requests; a long send is one umad_send of the whole message with the
 * Active flag set (byte 26 bit 0; the kernel fills in the rest of the RMPP
 * header). With opts.user_rmpp we ask for
 * UMAD_USER_RMPP instead and the engine runs rmpp.c; umad2sim refuses
 * that registration, so we fall back to kernel RMPP and say so in
 * info->note.
 *
 * Timeouts: the engine keeps its own per-attempt timer and retry policy
 * (umad2sim ignores the kernel's). We still pass a non-zero timeout to
 * umad_send with retries=0: on real hardware the kernel only delivers a
 * response if it still holds the matching send, so its timeout must be at
 * least the engine's per-attempt timeout (the daemon sets it to that with
 * mad_umad_set_timeout); when it expires the send comes back with status
 * ETIMEDOUT and the engine counts that attempt as failed. Responses go
 * with timeout 0, RMPP ones with retries (mad/umad_policy.c says why).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "mad/engine.h"
#include "mad/pma.h"
#include "mad/rmpp.h"
#include "mad/sa.h"
#include "mad/smp.h"
#include "mad/umad_policy.h"

/* The engine's default per-attempt timeout, until set; see the DOC comment. */
#define UMAD_SEND_TIMEOUT_MS 200
#define PORT_STATE_ACTIVE 4
/* umad_size() grows from 56 to 64 bytes once umad_open_port has enabled the
 * P_Key-index ABI, so size the buffer by the larger struct, not by a
 * umad_size() taken before the port was open (that overran the heap). */
#define UMAD_HDR_SIZE sizeof(struct ib_user_mad)
#define UMAD_BUF_SIZE (UMAD_HDR_SIZE + MAD_SIZE)
#define UMAD_DRAIN_MAX (64u << 20)

struct umad_tp {
	int portid;
	int agent_lid;          /* class 0x01 */
	int agent_dr;           /* class 0x81 */
	int agent_sa;           /* class 0x03 */
	int agent_perf;         /* class 0x04: our PerfMgt requests' answers */
	int user_rmpp;          /* the SA agent leaves RMPP to us */
	int issm_fd;
	int send_timeout;       /* ms, umad_send's: the engine's per-attempt one */
	void *umad;             /* UMAD_HDR_SIZE + umad_cap */
	size_t umad_cap;        /* MAD bytes umad holds, MAD_SIZE .. MAD_RECV_MAX */
};

static int agent_for(const struct umad_tp *u, uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case MAD_CLASS_SMI:
		return u->agent_lid;
	case MAD_CLASS_SMI_DR:
		return u->agent_dr;
	case MAD_CLASS_SA:
		return u->agent_sa;
	case MAD_CLASS_PERF:
		return u->agent_perf;
	default:
		return -1;
	}
}

static int is_response(uint8_t method)
{
	return (method & 0x80) || method == MAD_METHOD_TRAP_REPRESS;
}

/* The whole destination, GRH and P_Key index included (a GSI answer goes
 * back the way the request came). */
static void set_addr(void *umad, const struct mad_addr *to)
{
	ib_mad_addr_t *a = umad_get_mad_addr(umad);

	umad_set_addr(umad, to->dlid, (int)to->qpn, to->sl, (int)to->qkey);
	umad_set_pkey(umad, to->pkey_index);
	a->grh_present = to->grh_present ? 1 : 0;
	if (!a->grh_present)
		return;
	a->gid_index = to->gid_index;
	a->hop_limit = to->hop_limit;
	a->traffic_class = to->traffic_class;
	a->flow_label = htobe32(to->flow_label);
	memcpy(a->gid, to->gid, sizeof(a->gid));
}

/* A long send (kernel RMPP) gets a buffer of its own. */
static void *send_buf(struct umad_tp *u, size_t len)
{
	void *b = len <= u->umad_cap ? u->umad : calloc(1, UMAD_HDR_SIZE + len);

	if (b == u->umad)
		memset(b, 0, UMAD_HDR_SIZE + len);
	return b;
}

static int tp_send(void *ctx, const uint8_t *mad, size_t len, const struct mad_addr *to)
{
	struct umad_tp *u = ctx;
	int agent, timeout, retries, err = 0;
	void *b;

	if (len < 4 || (len > MAD_SIZE && (mad[1] != MAD_CLASS_SA || u->user_rmpp)) ||
	    len > RMPP_MAX_MSG)
		return -EINVAL;
	agent = agent_for(u, mad[1]);
	if (agent < 0)
		return -EINVAL;
	b = send_buf(u, len);
	if (!b)
		return -ENOMEM;
	memcpy(umad_get_mad(b), mad, len);
	set_addr(b, to);
	mad_umad_send_policy(mad, len, !u->user_rmpp, u->send_timeout, &timeout, &retries);
	errno = 0;
	if (umad_send(u->portid, agent, b, (int)len, timeout, retries) < 0)
		err = errno ? -errno : -EIO;
	if (b != u->umad)
		free(b);
	/* What is left of EINVAL once our own checks passed, for a GSI
	 * response, is the kernel's duplicate rule (user_mad.c is_duplicate):
	 * the same TID to the same destination is still in flight. */
	if (err == -EINVAL && mad[1] == MAD_CLASS_SA && is_response(mad[3]))
		err = -EALREADY;
	return err;
}

static int umad_grow(struct umad_tp *u, size_t cap)
{
	void *b = realloc(u->umad, UMAD_HDR_SIZE + cap);

	if (!b)
		return -ENOMEM;
	u->umad = b;
	u->umad_cap = cap;
	return 0;
}

/* Read the message at the head of the queue into a buffer of its own size
 * and forget it: the kernel keeps a message that does not fit (user_mad.c
 * requeues it), so this is the only way past one. The kernel holds that
 * much already; above UMAD_DRAIN_MAX we give up with -ENOMEM, and the
 * message blocks the queue until the kernel's receive side is reset. */
static int drain_one(struct umad_tp *u, size_t need)
{
	void *b = need <= UMAD_DRAIN_MAX ? malloc(UMAD_HDR_SIZE + need) : NULL;
	int len = (int)need;
	int rc;

	if (!b)
		return -ENOMEM;
	rc = umad_recv(u->portid, b, &len, 0);
	free(b);
	return rc < 0 ? rc : -EMSGSIZE;
}

static void get_addr(void *umad, struct mad_addr *from)
{
	const ib_mad_addr_t *a = umad_get_mad_addr(umad);

	from->dlid = be16toh(a->lid);
	from->qpn = be32toh(a->qpn) & 0xFFFFFF;
	from->qkey = be32toh(a->qkey);
	from->sl = a->sl;
	from->pkey_index = a->pkey_index;
	from->grh_present = a->grh_present ? 1 : 0;
	from->gid_index = a->gid_index;
	from->hop_limit = a->hop_limit;
	from->traffic_class = a->traffic_class;
	from->flow_label = be32toh(a->flow_label) & 0xFFFFF;
	memcpy(from->gid, a->gid, sizeof(from->gid));
}

/* umad_recv, growing the buffer for a reassembled RMPP message (-ENOSPC
 * with the length it needs, the message left queued) up to cap. */
static int recv_grow(struct umad_tp *u, size_t cap, int *len)
{
	int rc;

	*len = (int)u->umad_cap;
	rc = umad_recv(u->portid, u->umad, len, 0);
	if (rc != -ENOSPC || *len <= (int)u->umad_cap)
		return rc;
	if ((size_t)*len > cap)
		return drain_one(u, (size_t)*len);
	if (umad_grow(u, (size_t)*len) < 0)
		return drain_one(u, (size_t)*len);
	*len = (int)u->umad_cap;
	return umad_recv(u->portid, u->umad, len, 0);
}

static int tp_recv(void *ctx, uint8_t *buf, size_t cap, int *status, struct mad_addr *from)
{
	struct umad_tp *u = ctx;
	int len;
	int rc = recv_grow(u, cap, &len);

	if (rc < 0)
		return rc == -ETIMEDOUT || rc == -EAGAIN || rc == -EWOULDBLOCK ? 0 : rc;
	if (len <= 0)
		return 0;
	if ((size_t)len > cap)
		len = (int)cap;
	memcpy(buf, umad_get_mad(u->umad), (size_t)len);
	*status = umad_status(u->umad);
	get_addr(u->umad, from);
	return len;
}

static int tp_fd(void *ctx)
{
	const struct umad_tp *u = ctx;

	return umad_get_fd(u->portid);
}

static void tp_close(void *ctx)
{
	struct umad_tp *u = ctx;

	if (!u)
		return;
	/* Closing the port releases its agents. */
	if (u->portid >= 0)
		umad_close_port(u->portid);
	if (u->issm_fd >= 0)
		close(u->issm_fd);
	free(u->umad);
	free(u);
	umad_done();
}

/* --- choosing the port --- */

struct port_choice {
	char ca[UMAD_CA_NAME_LEN];
	int port;
};

#define PORT_STATE_INIT 2

/* Does port p match what was asked? guid != 0 wins over the rest. Without
 * either, min_state picks the first port at least that far up: Active is
 * preferred, but before any SM ran every port is still in Init, which is
 * exactly when an SM must start. */
static int port_matches(const umad_port_t *p, int want_port, uint64_t guid, unsigned min_state)
{
	if (guid)
		return be64toh(p->port_guid) == guid;
	if (want_port)
		return p->portnum == want_port;
	return p->state >= min_state;
}

static int ca_find_port(const char *name, int want_port, uint64_t guid, unsigned min_state,
			struct port_choice *pc)
{
	umad_ca_t ca;
	int found = 0;

	if (umad_get_ca(name, &ca) < 0)
		return -1;
	for (int i = 0; i < UMAD_CA_MAX_PORTS && !found; i++) {
		if (ca.ports[i] && port_matches(ca.ports[i], want_port, guid, min_state)) {
			snprintf(pc->ca, sizeof(pc->ca), "%s", ca.ca_name);
			pc->port = ca.ports[i]->portnum;
			found = 1;
		}
	}
	umad_release_ca(&ca);
	return found ? 0 : 1;
}

/* Active first, then Init (the usual state before the first sweep). */
static int find_up_port(const char *ca, int port, uint64_t guid, struct port_choice *pc)
{
	int rc = ca_find_port(ca, port, guid, PORT_STATE_ACTIVE, pc);

	if (rc > 0 && !port && !guid)
		rc = ca_find_port(ca, port, guid, PORT_STATE_INIT, pc);
	return rc;
}

static int choose_port(const char *ca, int port, uint64_t guid, struct port_choice *pc,
		       char *err, size_t errlen)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);

	if (n <= 0) {
		snprintf(err, errlen, "no InfiniBand device found");
		return -1;
	}
	if (ca && !guid) {
		int rc = find_up_port(ca, port, 0, pc);

		if (rc < 0)
			snprintf(err, errlen, "CA '%s' not found", ca);
		else if (rc > 0 && port)
			snprintf(err, errlen, "port %d of '%s' not found", port, ca);
		else if (rc > 0)
			snprintf(err, errlen, "no active port on '%s'", ca);
		return rc ? -1 : 0;
	}
	for (int i = 0; i < n; i++)
		if (find_up_port(names[i], port, guid, pc) == 0)
			return 0;
	if (guid)
		snprintf(err, errlen, "no port with GUID 0x%016llx", (unsigned long long)guid);
	else if (port)
		snprintf(err, errlen, "no CA has a port %d", port);
	else
		snprintf(err, errlen, "no active port (none in state Init or Active)");
	return -1;
}

/* --- opening --- */

/* Get, Set, Trap and TrapRepress may reach us as requests. */
static const uint8_t smi_methods[] = { MAD_METHOD_GET, MAD_METHOD_SET, MAD_METHOD_TRAP,
				       MAD_METHOD_TRAP_REPRESS };
/* The SA requests we answer, and Report, which another
 * SA could send us. Responses (ReportResp to our Reports, ACKs of our
 * RMPP sends come as requests) reach the sender by TID and need no bit.
 * GetTraceTable is left out: neither OpenSM nor we serve it. */
static const uint8_t sa_methods[] = { SA_METHOD_GET, SA_METHOD_SET, SA_METHOD_GET_TABLE,
				      SA_METHOD_GET_MULTI, SA_METHOD_DELETE, SA_METHOD_REPORT };

static void method_mask(const uint8_t *methods, size_t n, long mask[16 / sizeof(long)])
{
	const unsigned bits = 8 * sizeof(long);

	memset(mask, 0, 16);
	for (size_t i = 0; i < n; i++)
		mask[methods[i] / bits] |= 1l << (methods[i] % bits);
}

/* UMAD_USER_RMPP: the kernel leaves segmentation, reassembly and ACKs to
 * us. 0, or the errno of the refusal (umad2sim knows no REGISTER_AGENT2). */
static int register_sa_user_rmpp(struct umad_tp *u)
{
	struct umad_reg_attr attr;
	uint32_t id;
	long mask[16 / sizeof(long)];
	int rc;

	method_mask(sa_methods, sizeof(sa_methods), mask);
	memset(&attr, 0, sizeof(attr));
	attr.mgmt_class = MAD_CLASS_SA;
	attr.mgmt_class_version = SA_CLASS_VERSION;
	attr.flags = UMAD_USER_RMPP;
	attr.rmpp_version = RMPP_VERSION;
	memcpy(attr.method_mask, mask, sizeof(attr.method_mask));
	rc = umad_register2(u->portid, &attr, &id);
	if (rc != 0)
		return rc;
	u->agent_sa = (int)id;
	u->user_rmpp = 1;
	return 0;
}

static int open_sa_agent(struct umad_tp *u, int user_rmpp, struct mad_port_info *info,
			 char *err, size_t errlen)
{
	long mask[16 / sizeof(long)];
	int rc;

	if (user_rmpp) {
		rc = register_sa_user_rmpp(u);
		if (rc == 0)
			return 0;
		snprintf(info->note, sizeof(info->note),
			 "user-space RMPP refused (%s): the kernel does RMPP", strerror(rc));
	}
	method_mask(sa_methods, sizeof(sa_methods), mask);
	u->agent_sa = umad_register(u->portid, MAD_CLASS_SA, SA_CLASS_VERSION, RMPP_VERSION, mask);
	if (u->agent_sa < 0) {
		snprintf(err, errlen, "cannot register the SA agent (is another SM running?)");
		return -1;
	}
	return 0;
}

static int open_agents(struct umad_tp *u, char *err, size_t errlen)
{
	long mask[16 / sizeof(long)];

	method_mask(smi_methods, sizeof(smi_methods), mask);
	u->agent_lid = umad_register(u->portid, MAD_CLASS_SMI, 1, 0, mask);
	u->agent_dr = u->agent_lid < 0 ? -1 : umad_register(u->portid, MAD_CLASS_SMI_DR, 1, 0, mask);
	if (u->agent_lid < 0 || u->agent_dr < 0) {
		snprintf(err, errlen, "cannot register SMI agents (is another SM running?)");
		return -1;
	}
	/* PerfMgt: a client only (no method bits): the answers to our
	 * queries reach it by TID; the port's own PMA stays the kernel's */
	memset(mask, 0, sizeof(mask));
	u->agent_perf = umad_register(u->portid, MAD_CLASS_PERF, PMA_CLASS_VERSION, 0, mask);
	if (u->agent_perf < 0) {
		snprintf(err, errlen, "cannot register the PerfMgt agent (class 0x04)");
		return -1;
	}
	return 0;
}

static int open_issm(struct umad_tp *u, const struct port_choice *pc, char *err, size_t errlen)
{
	char path[256];

	if (umad_get_issm_path(pc->ca, pc->port, path, sizeof(path)) < 0) {
		snprintf(err, errlen, "no issm device for %s port %d", pc->ca, pc->port);
		return -1;
	}
	u->issm_fd = open(path, O_RDWR | O_CLOEXEC);
	if (u->issm_fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int fill_info(const struct port_choice *pc, struct mad_port_info *info, char *err,
		     size_t errlen)
{
	umad_port_t p;

	if (umad_get_port(pc->ca, pc->port, &p) < 0) {
		snprintf(err, errlen, "port %d of '%s' not found", pc->port, pc->ca);
		return -1;
	}
	memset(info, 0, sizeof(*info));
	snprintf(info->ca_name, sizeof(info->ca_name), "%s", pc->ca);
	info->port_num = pc->port;
	info->port_guid = be64toh(p.port_guid);
	info->lid = (uint16_t)p.base_lid;
	info->sm_lid = (uint16_t)p.sm_lid;
	info->state = (uint8_t)p.state;
	umad_release_port(&p);
	return 0;
}

static int open_port(struct umad_tp *u, const struct port_choice *pc,
		     const struct mad_umad_opts *o, struct mad_port_info *info, char *err,
		     size_t errlen)
{
	int fl;

	u->portid = umad_open_port(pc->ca, pc->port);
	if (u->portid < 0) {
		snprintf(err, errlen, "cannot open umad device of %s port %d: %s", pc->ca,
			 pc->port, strerror(-u->portid));
		return -1;
	}
	if (open_agents(u, err, errlen) < 0 ||
	    (o->sa && open_sa_agent(u, o->user_rmpp, info, err, errlen) < 0))
		return -1;
	if (o->want_issm && open_issm(u, pc, err, errlen) < 0)
		return -1;
	/* Best effort: recv polls with timeout 0 anyway, and umad2sim's fd is
	 * not one fcntl knows. */
	fl = fcntl(umad_get_fd(u->portid), F_GETFL);
	if (fl >= 0)
		(void)fcntl(umad_get_fd(u->portid), F_SETFL, fl | O_NONBLOCK);
	return 0;
}

void mad_umad_opts_default(struct mad_umad_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->want_issm = 1;
	o->sa = 1;
}

int mad_umad_open(const char *ca, int port, uint64_t port_guid, int want_issm,
		  struct mad_transport *tp, struct mad_port_info *info, char *err, size_t errlen)
{
	struct mad_umad_opts o;

	mad_umad_opts_default(&o);
	o.want_issm = want_issm;
	return mad_umad_open_opts(ca, port, port_guid, &o, tp, info, err, errlen);
}

int mad_umad_open_opts(const char *ca, int port, uint64_t port_guid,
		       const struct mad_umad_opts *o, struct mad_transport *tp,
		       struct mad_port_info *info, char *err, size_t errlen)
{
	struct port_choice pc;
	struct umad_tp *u;
	struct mad_port_info tmp;

	if (!info)
		info = &tmp;
	if (umad_init() < 0) {
		snprintf(err, errlen, "no InfiniBand device found (umad_init failed)");
		return -1;
	}
	if (choose_port(ca, port, port_guid, &pc, err, errlen) < 0 ||
	    fill_info(&pc, info, err, errlen) < 0) {
		umad_done();
		return -1;
	}
	u = calloc(1, sizeof(*u));
	if (u)
		u->umad = calloc(1, UMAD_BUF_SIZE);
	if (!u || !u->umad) {
		free(u);
		umad_done();
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	u->umad_cap = MAD_SIZE;
	u->agent_lid = u->agent_dr = u->agent_sa = u->agent_perf = u->issm_fd = -1;
	u->send_timeout = UMAD_SEND_TIMEOUT_MS;
	if (open_port(u, &pc, o, info, err, errlen) < 0) {
		tp_close(u);
		return -1;
	}
	info->user_rmpp = u->user_rmpp;
	memset(tp, 0, sizeof(*tp));
	tp->ctx = u;
	tp->send = tp_send;
	tp->recv = tp_recv;
	tp->fd = tp_fd;
	tp->close = tp_close;
	tp->flags = u->user_rmpp ? MAD_TP_USER_RMPP : 0;
	return 0;
}

void mad_umad_set_timeout(struct mad_transport *tp, unsigned ms)
{
	struct umad_tp *u = tp->ctx;

	u->send_timeout = ms < 1 ? 1 : ms > 60000 ? 60000 : (int)ms;
}
