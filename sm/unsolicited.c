/*
 * DOC: answering the fabric: SMInfo and traps.
 *
 * Another SM or a diag tool (sminfo) asks for or sets our SMInfo (IBA
 * 14.2.5.13; sminfo.c answers); switches send Traps (IBA 14.2.5.1,
 * 13.4.8), which we acknowledge with TrapRepress so a real switch stops
 * repeating them. Everything here is
 * untrusted input: anything we do not understand is counted and dropped.
 */
#include "config.h"

#include <string.h>

#include "lib/log.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/unsolicited.h"

static uint64_t unsolicited_dropped;

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
	/* 128: PortStateChange (IBA 14.2.5.1 table 128), the master's to act on */
	if (n.is_generic && n.trap_num == 128 && !sm->run.once && !sm->ignore_traps &&
	    sm_is_master(sm)) {
		clock_gettime(CLOCK_MONOTONIC, &sm->t_trap);
		sm_trap_scan(sm, n.issuer_lid);
	}
	/* 144: a port's capabilities (IsSM) or an SM's priority changed */
	if (n.is_generic && n.trap_num == 144 && !sm->run.once)
		sm_sminfo_trap144(sm, n.issuer_lid);
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
	if ((req.hdr.method == MAD_METHOD_GET || req.hdr.method == MAD_METHOD_SET) &&
	    req.hdr.attr_id == SMP_ATTR_SM_INFO) {
		sm_sminfo_answer(sm, &req, from);
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
