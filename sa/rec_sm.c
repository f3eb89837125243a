/*
 * DOC: the SA's own records: ClassPortInfo, SMInfoRecord and
 * ClientStateInfo.
 *
 * ClassPortInfo (IBA 13.4.8.1, sa-mcast-ha.md 1.4) says what this SA
 * does; the kernel's ib_sa module caches it and saquery reads it before
 * SwitchInfoRecord queries. SMInfoRecord lists the SMs of the subnet:
 * us, and every other SM our election knows (sm/sminfo.c).
 * ClientStateInfo (ibsmd's own, mad/sa.h) counts the groups, memberships,
 * services and subscriptions, with a generation that changes with any of
 * them: a standby ibsmd reads it to know that its copy of them is
 * complete and current, and an SM that does not answer it is no ibsmd.
 */
#include "config.h"

#include <string.h>

#include "sa/sa_int.h"

/* RespTimeValue 18: 4.096 us * 2^18, about 1.07 s, covers a query parked
 * while port tables are read (SA_PARK_TIMEOUT_MS). */
#define SA_RESP_TIME_VALUE 18

void sa_cpi_get(struct sa_ctx *c)
{
	struct sa_class_port_info cpi;
	uint8_t rec[72];

	memset(&cpi, 0, sizeof(cpi));
	cpi.base_version = 1;
	cpi.class_version = SA_CLASS_VERSION;
	cpi.cap_mask = SA_CAP_NOTICE | SA_CAP_OPTIONAL_RECORDS | SA_CAP_MULTIPATH |
		       SA_CAP_PORTINFO_CAPMASK_MATCH;
	if (c->sa->env.mc_join)
		cpi.cap_mask |= SA_CAP_UD_MULTICAST;
	cpi.cap_mask2 = 0;
	cpi.resp_time_value = SA_RESP_TIME_VALUE;
	/* no redirection: QP1 and its Q_Key, as OpenSM answers */
	cpi.redir_qp = 1;
	cpi.redir_qkey = MAD_QKEY_GSI;
	cpi.trap_qkey = MAD_QKEY_GSI;
	sa_class_port_info_encode(&cpi, rec, sizeof(rec));
	sa_emit(c, rec);
}

#define SA_MAX_SMS 65

void sa_smir_get(struct sa_ctx *c)
{
	struct smp_sm_info infos[SA_MAX_SMS];
	uint16_t lids[SA_MAX_SMS];
	size_t n = 0;

	if (c->sa->env.sm_list)
		n = c->sa->env.sm_list(c->sa->env.arg, lids, infos, SA_MAX_SMS);
	if (n > SA_MAX_SMS)
		n = SA_MAX_SMS;
	for (size_t i = 0; i < n; i++) {
		struct sa_sm_info_rec r;
		uint8_t rec[25];

		memset(&r, 0, sizeof(r));
		r.info = infos[i];
		r.lid = i ? lids[i] : c->snap->sm_lid;
		/* the SM_Key only to trusted requesters (IBA 14.4.1; OpenSM
		 * does the same for SMInfoRecord) */
		if (!c->trusted)
			r.info.sm_key = 0;
		sa_sm_info_rec_encode(&r, rec, sizeof(rec));
		sa_emit(c, rec);
	}
}

void sa_csi_get(struct sa_ctx *c)
{
	const struct sa *sa = c->sa;
	struct sa_clients_info ci = { .version = SA_CLIENTS_INFO_VERSION };
	uint8_t rec[48];

	if (sa->env.mc_counts)
		sa->env.mc_counts(sa->env.arg, &ci.gen, &ci.groups, &ci.members);
	ci.gen += sa->gen;
	ci.sm_guid = c->snap->sm_port_guid;
	for (uint32_t i = 0; i < sa->nsvc; i++)
		ci.services += sa->svc[i].expires > c->now_ms;   /* what a query finds */
	ci.subs = sa->nsubs;
	sa_clients_info_encode(&ci, rec, sizeof(rec));
	sa_emit(c, rec);
}
