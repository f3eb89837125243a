/*
 * DOC: the real MAD transport, over libibumad (or umad2sim under LD_PRELOAD).
 *
 * mad_umad_open() picks a port, registers SMI agents for the LID-routed and
 * directed-route classes with a method mask that lets us receive requests
 * (Get/Set SMInfo from other SMs and diag tools, Traps), optionally opens the
 * issm device (which sets IsSM in our PortInfo capability mask for as long
 * as the fd stays open), and fills the mad_transport vtable.
 *
 * Timeouts: the engine keeps its own per-attempt timer and retry policy
 * (umad2sim ignores the kernel's). We still pass a non-zero timeout to
 * umad_send with retries=0: on real hardware the kernel only delivers a
 * response if it still holds the matching send, so its timeout must be at
 * least the engine's per-attempt timeout (the daemon sets it to that with
 * mad_umad_set_timeout); when it expires the send comes back with status
 * ETIMEDOUT and the engine counts that attempt as failed.
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
#include "mad/smp.h"

/* The engine's default per-attempt timeout, until set; see the DOC comment. */
#define UMAD_SEND_TIMEOUT_MS 200
#define PORT_STATE_ACTIVE 4
/* umad_size() grows from 56 to 64 bytes once umad_open_port has enabled the
 * P_Key-index ABI, so size the buffer by the larger struct, not by a
 * umad_size() taken before the port was open (that overran the heap). */
#define UMAD_BUF_SIZE (sizeof(struct ib_user_mad) + MAD_SIZE)

struct umad_tp {
	int portid;
	int agent_lid;          /* class 0x01 */
	int agent_dr;           /* class 0x81 */
	int issm_fd;
	int send_timeout;       /* ms, umad_send's: the engine's per-attempt one */
	void *umad;             /* UMAD_BUF_SIZE */
};

static int tp_send(void *ctx, const uint8_t *mad, size_t len, const struct mad_addr *to)
{
	struct umad_tp *u = ctx;
	int agent, timeout;

	if (len < 4 || len > MAD_SIZE)
		return -EINVAL;
	memset(u->umad, 0, UMAD_BUF_SIZE);
	memcpy(umad_get_mad(u->umad), mad, len);
	umad_set_addr(u->umad, to->dlid, (int)to->qpn, to->sl, (int)to->qkey);
	agent = mad[1] == MAD_CLASS_SMI_DR ? u->agent_dr : u->agent_lid;
	/* Responses (GetResp, TrapRepress) expect nothing back: timeout 0. */
	timeout = (mad[3] & 0x80) || mad[3] == MAD_METHOD_TRAP_REPRESS ? 0 : u->send_timeout;
	errno = 0;
	if (umad_send(u->portid, agent, u->umad, (int)len, timeout, 0) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

static int tp_recv(void *ctx, uint8_t *buf, size_t cap, int *status, struct mad_addr *from)
{
	struct umad_tp *u = ctx;
	int len = MAD_SIZE;
	int rc = umad_recv(u->portid, u->umad, &len, 0);
	ib_mad_addr_t *a;

	if (rc < 0)
		return rc == -ETIMEDOUT || rc == -EAGAIN || rc == -EWOULDBLOCK ? 0 : rc;
	if (len <= 0)
		return 0;
	if ((size_t)len > cap)
		len = (int)cap;
	memcpy(buf, umad_get_mad(u->umad), (size_t)len);
	*status = umad_status(u->umad);
	a = umad_get_mad_addr(u->umad);
	from->dlid = be16toh(a->lid);
	from->qpn = be32toh(a->qpn);
	from->qkey = be32toh(a->qkey);
	from->sl = a->sl;
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
static void method_mask(long mask[16 / sizeof(long)])
{
	static const uint8_t methods[] = { MAD_METHOD_GET, MAD_METHOD_SET, MAD_METHOD_TRAP,
					   MAD_METHOD_TRAP_REPRESS };
	const unsigned bits = 8 * sizeof(long);

	memset(mask, 0, 16);
	for (size_t i = 0; i < sizeof(methods); i++)
		mask[methods[i] / bits] |= 1l << (methods[i] % bits);
}

static int open_agents(struct umad_tp *u, char *err, size_t errlen)
{
	long mask[16 / sizeof(long)];

	method_mask(mask);
	u->agent_lid = umad_register(u->portid, MAD_CLASS_SMI, 1, 0, mask);
	u->agent_dr = u->agent_lid < 0 ? -1 : umad_register(u->portid, MAD_CLASS_SMI_DR, 1, 0, mask);
	if (u->agent_lid < 0 || u->agent_dr < 0) {
		snprintf(err, errlen, "cannot register SMI agents (is another SM running?)");
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

static int open_port(struct umad_tp *u, const struct port_choice *pc, int want_issm, char *err,
		     size_t errlen)
{
	int fl;

	u->portid = umad_open_port(pc->ca, pc->port);
	if (u->portid < 0) {
		snprintf(err, errlen, "cannot open umad device of %s port %d: %s", pc->ca,
			 pc->port, strerror(-u->portid));
		return -1;
	}
	if (open_agents(u, err, errlen) < 0)
		return -1;
	if (want_issm && open_issm(u, pc, err, errlen) < 0)
		return -1;
	/* Best effort: recv polls with timeout 0 anyway, and umad2sim's fd is
	 * not one fcntl knows. */
	fl = fcntl(umad_get_fd(u->portid), F_GETFL);
	if (fl >= 0)
		(void)fcntl(umad_get_fd(u->portid), F_SETFL, fl | O_NONBLOCK);
	return 0;
}

int mad_umad_open(const char *ca, int port, uint64_t port_guid, int want_issm,
		  struct mad_transport *tp, struct mad_port_info *info, char *err, size_t errlen)
{
	struct port_choice pc;
	struct umad_tp *u;
	struct mad_port_info tmp;

	if (umad_init() < 0) {
		snprintf(err, errlen, "no InfiniBand device found (umad_init failed)");
		return -1;
	}
	if (choose_port(ca, port, port_guid, &pc, err, errlen) < 0 ||
	    fill_info(&pc, info ? info : &tmp, err, errlen) < 0) {
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
	u->agent_lid = u->agent_dr = u->issm_fd = -1;
	u->send_timeout = UMAD_SEND_TIMEOUT_MS;
	if (open_port(u, &pc, want_issm, err, errlen) < 0) {
		tp_close(u);
		return -1;
	}
	tp->ctx = u;
	tp->send = tp_send;
	tp->recv = tp_recv;
	tp->fd = tp_fd;
	tp->close = tp_close;
	return 0;
}

void mad_umad_set_timeout(struct mad_transport *tp, unsigned ms)
{
	struct umad_tp *u = tp->ctx;

	u->send_timeout = ms < 1 ? 1 : ms > 60000 ? 60000 : (int)ms;
}
