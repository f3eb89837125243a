/*
 * DOC: libFuzzer target for the SA's request path: decode, admission,
 * dispatch and every record handler, against a small synthetic fabric (a
 * 2-level fat tree with LMC 1, sa_fixture.h), with a multicast group
 * database behind MCMemberRecord, and partitions or none.
 *
 * The first byte chooses the snapshot: everybody in the default
 * partition, or partitions (CAs alternately full members of the default
 * and a tenant, limited members of the default, or both).
 * The input is a sequence of steps, each a control byte and what follows:
 *   op 0: a request MAD (up to 1 KiB, its length from two bytes) from the
 *         LID in the next byte, as the engine's gsi hook hands it over;
 *   op 1: answer the SMPs the SA submitted (port tables), from the model;
 *   op 2: move the clock on (lease expiry, Report retries, parked
 *         requests) and run the SA's timer;
 *   op 3: a control-socket query (attribute, mask and template from the
 *         input);
 *   op 4: a Notice to report to subscribers;
 *   op 5: a restart: the services and subscriptions saved to the clients
 *         file's text (sm/clientfile.h), which must parse back within
 *         the SA's limits, and restored into a new SA;
 *   op 6: a port leaves the fabric (chosen by the next byte): what it
 *         built goes (sa_clients_departed), its memberships and those it
 *         made by proxy (mcdb_remove_port, mcdb_remove_made_by); the
 *         shares must stay consistent with the groups;
 *   op 7: new, small fair shares (the next 4 bytes): per port, in all,
 *         the Reports' queue, the multicast groups' limits.
 * Every answer the SA sends must be a well-formed SA response to the
 * request it answers (response method, same TID and attribute, SM_Key 0,
 * the records' length a multiple of AttributeOffset) or a Report; the
 * SA's state is rebuilt for each input, so leaks and state bugs show.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa/sa.h"
#include "sm/clientfile.h"
#include "sm/mcdb.h"
#include "tests/unit/sa_fixture.h"

#define MAX_INPUT 16384
#define MAX_MAD 1024

static struct sa_fx *fx;
static struct sm_snap *plain, *parted;

static const uint16_t full_tenant[] = { 0xFFFF, 0x8010 }, lim[] = { 0x7FFF },
		      lim_tenant[] = { 0x7FFF, 0x8010, 0x0020 };

static struct sm_snap *partitioned(void)
{
	struct sm_snap *s = sa_fx_snapshot(fx);

	for (unsigned i = 0; i < sa_fx_nends(fx) - sa_fx_nswitches(fx); i++) {
		if (i % 3 == 0)
			sa_fx_pkeys(s, sa_fx_ca(fx, i), 1, full_tenant, 2);
		else if (i % 3 == 1)
			sa_fx_pkeys(s, sa_fx_ca(fx, i), 1, lim, 1);
		else
			sa_fx_pkeys(s, sa_fx_ca(fx, i), 1, lim_tenant, 3);
	}
	for (unsigned i = 0; i < sa_fx_nswitches(fx); i++)
		sa_fx_pkeys(s, sa_fx_switch(fx, i), 0, full_tenant, 1);
	sa_fx_part_sl(s, 0x7FFF, 0);
	sa_fx_part_sl(s, 0x0010, 2);
	s->sl_ok = 0x7FFF;
	return s;
}

static void check_answer(const struct sa_fx_sent *s, const struct sa_hdr *req)
{
	struct sa_hdr h;
	size_t stride;

	if (sa_hdr_decode(s->msg, s->len, &h) < 0)
		abort();
	if (h.hdr.method == SA_METHOD_REPORT)
		return;
	if (!(h.hdr.method & 0x80) || h.hdr.tid != req->hdr.tid ||
	    h.hdr.attr_id != req->hdr.attr_id || h.sm_key != 0 || s->len < SA_HDR_SIZE)
		abort();
	stride = (size_t)h.attr_offset * 8;
	if (h.hdr.status && (h.attr_offset || s->len != MAD_SIZE))
		abort();   /* errors are one plain MAD without records */
	if (!h.hdr.status && stride && (s->len - SA_HDR_SIZE) % stride &&
	    h.hdr.method != SA_METHOD_GET_RESP && h.hdr.method != SA_METHOD_DELETE_RESP)
		abort();
}

static size_t step_request(const uint8_t *p, size_t n)
{
	uint8_t mad[MAX_MAD];
	size_t len, before = fx->nsent;
	struct sa_hdr req;

	if (n < 3)
		return n;
	len = ((size_t)p[1] << 8 | p[2]) % MAX_MAD;
	if (len > n - 3)
		len = n - 3;
	memcpy(mad, p + 3, len);
	sa_fx_send(fx, mad, len, (uint16_t)(p[0] % 48));
	if (sa_hdr_decode(mad, len, &req) == 0)
		for (size_t i = before; i < fx->nsent; i++)
			check_answer(&fx->sent[i], &req);
	return 3 + len;
}

static size_t step_local(const uint8_t *p, size_t n)
{
	static const uint16_t attrs[] = { 0x01, 0x11, 0x12, 0x13, 0x14, 0x15, 0x17, 0x18, 0x20,
					  0x30, 0x31, 0x33, 0x35, 0x36, 0x38, 0x3A, 0xF3, 0xFF40 };
	uint8_t tmpl[512] = { 0 };
	struct sa_result r;
	uint64_t mask = 0;
	size_t take;

	if (n < 10)
		return n;
	memcpy(&mask, p + 2, 8);
	take = n - 10 < sizeof(tmpl) ? n - 10 : sizeof(tmpl);
	memcpy(tmpl, p + 10, take);
	sa_query_local(fx->sa, attrs[p[0] % (sizeof(attrs) / sizeof(attrs[0]))], p[1] & 1 ? 0x80000000u : 0, mask, tmpl,
		       sizeof(tmpl), p[1] & 2, p[1] & 4 ? 16 : 0, &r);
	if (!r.status && r.n && !r.recs)
		abort();
	sa_result_free(&r);
	return 10 + take;
}

static size_t step_notice(const uint8_t *p, size_t n)
{
	struct smp_notice no;

	if (n < 80)
		return n;
	sa_notice_decode(p, 80, &no);
	if (no.trap_num == 66 || no.trap_num == 67)
		sa_report_mcast(fx->sa, no.trap_num, no.data_details + 6, no.issuer_lid);
	sa_report_notice(fx->sa, &no);
	return 80;
}

/* What the SA holds survives its own save and restore. */
static void step_restart(void)
{
	struct client_state cs, back;
	struct client_limits limits;
	uint64_t wall = 1700000000000ull + fx->now;
	size_t len, ended = 0;
	char err[256], *text;

	client_state_init(&cs);
	sa_clients_export(fx->sa, &cs, wall);
	text = client_state_format(&cs, &len);
	/* the restart is at the default limits, which what op 7's smaller
	 * ones let in, or a 16 KiB input's requests, never pass */
	sa_conf_default(&fx->conf);
	fx->conf.sa_key = SA_FX_SA_KEY;
	fx->conf.max_records = 1000;
	sa_client_limits(&fx->conf, &limits);
	if (client_state_parse(&back, "f", text, len, &limits, err, sizeof(err)) < 0) {
		fprintf(stderr, "the SA's own state does not parse back: %s\n", err);
		abort();
	}
	if (back.nservices != cs.nservices || back.nsubs != cs.nsubs)
		abort();
	for (size_t k = 0; k < back.nservices; k++)
		ended += back.services[k].lease_end_ms <= wall;   /* not expired by the timer yet */
	free(text);
	sa_fx_reset(fx);
	sa_set_conf(fx->sa, &fx->conf);
	if (sa_clients_restore(fx->sa, &back, wall) != ended)
		abort();
	client_state_free(&back);
	client_state_free(&cs);
}

static uint64_t gone_guid;

static bool gone(void *arg, uint64_t guid)
{
	return guid == gone_guid;
}

/* The shares count what the groups hold: every membership, each maker's. */
static void check_shares(void)
{
	const struct mc_shares *sh = mcdb_shares(fx->mc);
	uint64_t members = 0, by_gone = 0;

	for (size_t g = 0; g < mcdb_count(fx->mc); g++) {
		const struct mc_group *grp = mcdb_at(fx->mc, g);

		members += grp->nmembers;
		for (uint32_t k = 0; k < grp->nmembers; k++)
			by_gone += grp->members[k].by == gone_guid;
	}
	if (sh->members != members || mc_share_members_of(sh, gone_guid) != by_gone)
		abort();
}

static size_t step_departed(const uint8_t *p, size_t n)
{
	unsigned cas = sa_fx_nends(fx) - sa_fx_nswitches(fx);

	if (!n)
		return 0;
	gone_guid = fx->b.t.nodes[sa_fx_ca(fx, p[0] % cas)].ports[1].guid;
	sa_clients_departed(fx->sa, gone, NULL);
	if (p[0] & 0x80)
		mcdb_remove_made_by(fx->mc, gone_guid);
	else
		mcdb_remove_port(fx->mc, gone_guid);
	check_shares();
	return 1;
}

static size_t step_limits(const uint8_t *p, size_t n)
{
	struct mc_limits l;

	if (n < 4)
		return n;
	fx->conf.services_per_port = p[0] & 7;
	fx->conf.subs_per_port = p[0] >> 4 & 7;
	fx->conf.max_services = p[1] & 31;
	fx->conf.max_subs = p[1] >> 3;
	fx->conf.trusted_share = p[2] & 3;
	fx->conf.reports_per_port = p[2] >> 2 & 7;
	fx->conf.reports_max = p[2] >> 5;
	sa_set_conf(fx->sa, &fx->conf);
	l = (struct mc_limits){ p[3] & 3, p[3] >> 2 & 7, p[3] >> 5 & 3, p[0] >> 3 & 1 ? 0 : 40,
				fx->conf.trusted_share };
	mcdb_set_limits(fx->mc, &l);
	return 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i = 0;

	if (size > MAX_INPUT)
		return 0;
	if (!fx) {
		fx = calloc(1, sizeof(*fx));
		sa_fx_init(fx, "ft2", 4, 1);
		plain = sm_snap_ref(fx->snap);
		parted = partitioned();
	}
	sa_fx_reset(fx);
	sa_conf_default(&fx->conf);
	fx->conf.sa_key = SA_FX_SA_KEY;
	fx->conf.max_records = 1000;
	sa_set_conf(fx->sa, &fx->conf);
	if (!size)
		return 0;
	sa_fx_publish(fx, sm_snap_ref(data[i++] & 1 ? parted : plain));
	/* a fresh group database for every input */
	mcdb_free(fx->mc);
	fx->mc = NULL;
	sa_fx_multicast(fx);
	while (i < size) {
		uint8_t op = data[i++];

		switch (op % 8) {
		case 0: i += step_request(data + i, size - i); break;
		case 1: sa_fx_answer_smps(fx); break;
		case 2:
			fx->now += (op >> 3) * 250u;
			sa_on_timer(fx->sa);
			break;
		case 3: i += step_local(data + i, size - i); break;
		case 4: i += step_notice(data + i, size - i); break;
		case 5: step_restart(); break;
		case 6: i += step_departed(data + i, size - i); break;
		default: i += step_limits(data + i, size - i); break;
		}
	}
	return 0;
}
