/*
 * DOC: answering the fabric: Get SMInfo and traps.
 *
 * Another SM or a diag tool (sminfo) asks for our SMInfo (IBA 14.2.5.13);
 * switches send Traps (IBA 14.2.5.1, 13.4.8), which we acknowledge with
 * TrapRepress so a real switch stops repeating them. Everything here is
 * untrusted input: anything we do not understand is counted and dropped.
 */
#include "config.h"

#include <string.h>

#include "sm/log.h"
#include "sm/sm.h"

static uint64_t unsolicited_dropped;

void sm_sm_info(const struct sm *sm, struct smp_sm_info *si)
{
	struct mad_stats ms;

	mad_engine_get_stats(sm->eng, &ms);
	memset(si, 0, sizeof(*si));
	si->guid = sm->port.port_guid;
	si->sm_key = 0;   /* IBA 14.4.1: SM_Key is returned only to a trusted SM */
	si->act_count = (uint32_t)ms.sent;
	si->priority = (uint8_t)sm->conf.sm_priority;
	si->sm_state = (uint8_t)sm->state;
}

static void fill_sm_info(const struct sm *sm, uint8_t *data)
{
	struct smp_sm_info si;

	sm_sm_info(sm, &si);
	memset(data, 0, SMP_DATA_SIZE);
	smp_sm_info_encode(&si, data, SMP_DATA_SIZE);
}

/* A directed-route response travels back along the same path: D bit set,
 * the hop pointer left where the request arrived (IBA 14.2.2.2); the kernel
 * or the simulator takes it from there. */
static void respond(struct sm *sm, struct smp *req, const struct mad_addr *from)
{
	uint8_t buf[MAD_SIZE];

	req->hdr.method = MAD_METHOD_GET_RESP;
	req->hdr.status = 0;
	if (req->hdr.mgmt_class == MAD_CLASS_SMI_DR)
		req->hdr.d_bit = 1;
	fill_sm_info(sm, req->data);
	if (smp_encode(req, buf, sizeof(buf)) < 0)
		return;
	if (mad_engine_send_raw(sm->eng, buf, sizeof(buf), from) < 0)
		log_fabric(LOG_LVL_INFO, "cannot answer SMInfo Get from LID %u", from->dlid);
}

static void trap_repress(struct sm *sm, struct smp *trap, const struct mad_addr *from)
{
	uint8_t buf[MAD_SIZE];
	struct smp_notice n;

	int ok = smp_notice_decode(trap->data, sizeof(trap->data), &n) == 0;

	trap->hdr.method = MAD_METHOD_TRAP_REPRESS;
	trap->hdr.status = 0;
	if (smp_encode(trap, buf, sizeof(buf)) == 0)
		mad_engine_send_raw(sm->eng, buf, sizeof(buf), from);
	if (!ok)
		return;
	log_fabric(LOG_LVL_INFO, "trap %u from LID %u", n.trap_num, n.issuer_lid);
	sm_trap_notify(sm, &n);
	/* 128: PortStateChange (IBA 14.2.5.1 table 128); the others (144
	 * capability changes, e.g. a port taking IsSM) need no routing work. */
	if (n.is_generic && n.trap_num == 128 && !sm->run.once && !sm->ignore_traps) {
		clock_gettime(CLOCK_MONOTONIC, &sm->t_trap);
		sm_trap_scan(sm, n.issuer_lid);
	}
}

void sm_unsolicited(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct sm *sm = arg;
	struct smp req;

	if (smp_decode(mad, len, &req) < 0) {
		unsolicited_dropped++;
		log_fabric(LOG_LVL_INFO, "malformed MAD from LID %u dropped", from->dlid);
		return;
	}
	if (req.hdr.method == MAD_METHOD_GET && req.hdr.attr_id == SMP_ATTR_SM_INFO) {
		respond(sm, &req, from);
		return;
	}
	if (req.hdr.method == MAD_METHOD_TRAP && req.hdr.attr_id == SMP_ATTR_NOTICE) {
		trap_repress(sm, &req, from);
		return;
	}
	unsolicited_dropped++;
	log_fabric(LOG_LVL_DEBUG, "unexpected MAD method 0x%x attr 0x%x from LID %u dropped",
		   req.hdr.method, req.hdr.attr_id, from->dlid);
}
