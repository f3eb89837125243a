/*
 * DOC: the SA object: life cycle, the snapshot it answers from, timers,
 * and the lookups every record handler uses.
 *
 * The SA holds a reference to the snapshot it last saw and an index built
 * for it once (a hash of port GUIDs, the list of end ports), so a query
 * costs the same on 40 or 40,000 LIDs. When the SM publishes a new
 * snapshot, sa_sync() moves over: port tables read for the old one are
 * dropped, and the GIDs that came into or went out of service between the
 * two are reported to subscribers (inform.c).
 */
#include "config.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sa/sa_int.h"
#include "sm/log.h"

/* --- clock --- */

uint64_t sa_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t sa_now(const struct sa *sa)
{
	return sa->env.now_ms ? sa->env.now_ms(sa->env.arg) : sa_now_us() / 1000u;
}

/* --- GIDs --- */

void sa_make_gid(uint64_t prefix, uint64_t guid, uint8_t gid[16])
{
	uint64_t p = htobe64(prefix), g = htobe64(guid);

	memcpy(gid, &p, 8);
	memcpy(gid + 8, &g, 8);
}

uint64_t sa_gid_prefix(const uint8_t gid[16])
{
	return sa_get64(gid);
}

uint64_t sa_gid_guid(const uint8_t gid[16])
{
	return sa_get64(gid + 8);
}

uint16_t sa_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

uint32_t sa_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

uint64_t sa_get64(const uint8_t *p)
{
	return ((uint64_t)sa_get32(p) << 32) | sa_get32(p + 4);
}

bool sa_masked(const struct sa_ctx *c, unsigned bit)
{
	return (c->mask >> bit) & 1;
}

/* --- ports --- */

uint16_t sa_node_lid(const struct sm_snap *s, const struct snap_node *n)
{
	if (n->is_switch)
		return s->ports[n->port0].lid;
	for (unsigned k = 1; k <= n->nports; k++)
		if (s->ports[n->port0 + k].lid)
			return s->ports[n->port0 + k].lid;
	return 0;
}

uint16_t sa_port_lid(const struct sm_snap *s, const struct snap_port *p)
{
	const struct snap_node *n = snap_node_of(s, p);

	return n->is_switch ? s->ports[n->port0].lid : p->lid;
}

bool sa_is_end_port(const struct sm_snap *s, const struct snap_port *p)
{
	const struct snap_node *n = snap_node_of(s, p);

	return p->lid && p->guid && (n->is_switch ? p->num == 0 : p->num > 0);
}

/* In service (traps 64/65): an end port with a LID that is Active, as
 * of the last sweep. A switch's port 0 is up while the switch answers. */
bool sa_in_service(const struct sm_snap *s, const struct snap_port *p)
{
	const struct snap_node *n = snap_node_of(s, p);

	if (!sa_is_end_port(s, p) || p->stale || n->stale)
		return false;
	return n->is_switch || (p->have_pi && p->pi.port_state == 4 /* Active */);
}

static uint32_t guid_hash(uint64_t g, uint32_t mask)
{
	return (uint32_t)((g * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

const struct snap_port *sa_port_by_guid(const struct sa_ctx *c, uint64_t guid)
{
	const struct sa_index *ix = c->ix;

	if (!guid || !ix->slot)
		return NULL;
	for (uint32_t i = guid_hash(guid, ix->mask);; i = (i + 1) & ix->mask) {
		uint32_t v = ix->slot[i];

		if (!v)
			return NULL;
		if (c->snap->ports[v - 1].guid == guid)
			return &c->snap->ports[v - 1];
	}
}

const struct snap_port *sa_port_by_gid(const struct sa_ctx *c, const uint8_t gid[16],
				       bool *bad_prefix)
{
	uint64_t prefix = sa_gid_prefix(gid);

	/* The default link-local prefix is valid in every subnet (IBA 4.1.1). */
	*bad_prefix = prefix != c->snap->subnet_prefix && prefix != 0xfe80000000000000ULL;
	return *bad_prefix ? NULL : sa_port_by_guid(c, sa_gid_guid(gid));
}

static void index_free(struct sa_index *ix)
{
	free(ix->slot);
	free(ix->ends);
	free(ix->hop);
	free(ix->hnode);
	memset(ix, 0, sizeof(*ix));
}

static void index_build(struct sa_index *ix, const struct sm_snap *s)
{
	uint32_t size = 16;

	index_free(ix);
	while (size < 2 * s->nguids)
		size *= 2;
	ix->mask = size - 1;
	ix->slot = xcalloc(size, sizeof(*ix->slot));
	ix->ends = xcalloc(s->nports ? s->nports : 1, sizeof(*ix->ends));
	for (uint32_t i = 0; i < s->nports; i++) {
		const struct snap_port *p = &s->ports[i];
		uint32_t h;

		if (sa_is_end_port(s, p))
			ix->ends[ix->nends++] = i;
		if (!p->guid)
			continue;
		/* a GUID appears once in the snapshot (dups.c leaves clashes out) */
		for (h = guid_hash(p->guid, ix->mask); ix->slot[h]; h = (h + 1) & ix->mask)
			;
		ix->slot[h] = i + 1;
	}
	sa_path_index(ix, s);
}

/* --- life cycle --- */

struct sa *sa_new(const struct sa_env *env, const struct sa_conf *conf)
{
	struct sa *sa = xcalloc(1, sizeof(*sa));

	sa->env = *env;
	sa->conf = *conf;
	sa->cnt = xcalloc(sa_attr_count(), sizeof(*sa->cnt));
	sa->next_tid = 1;
	sa->next_sub_id = 1;
	porttab_init(&sa->rsubs, sizeof(struct sa_rsub));
	return sa;
}

void sa_set_conf(struct sa *sa, const struct sa_conf *conf)
{
	sa->conf = *conf;
}

void sa_free(struct sa *sa)
{
	if (!sa)
		return;
	sa_park_free(sa);
	sa_portdata_free(sa);
	sa_services_free(sa);
	sa_inform_free(sa);
	index_free(&sa->ix);
	sm_snap_unref(sa->snap);
	free(sa->cnt);
	free(sa->rq);
	free(sa->rbuf);
	free(sa);
}

void sa_sync(struct sa *sa)
{
	const struct sm_snap *cur = sa->env.snapshot ? sa->env.snapshot(sa->env.arg) : NULL;
	struct sm_snap *old = sa->snap;

	if (!cur || cur == old)
		return;
	sa->snap = sm_snap_ref(cur);
	index_build(&sa->ix, sa->snap);
	sa_portdata_clear(sa);
	if (old) {
		sa_inform_diff(sa, old, sa->snap);
		sm_snap_unref(old);
	}
	/* parked requests read their tables again, from the new snapshot */
	sa_park_rerun(sa);
}

const struct sm_snap *sa_snap(struct sa *sa, const struct sa_index **ix)
{
	sa_sync(sa);
	*ix = &sa->ix;
	return sa->snap;
}

/* --- timers --- */

void sa_on_timer(struct sa *sa)
{
	uint64_t now = sa_now(sa);

	sa_services_expire(sa, now);
	sa_inform_timer(sa, now);
	sa_park_timer(sa, now);
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t sa_next_deadline(const struct sa *sa)
{
	return min64(sa_services_deadline(sa), min64(sa_inform_deadline(sa), sa_park_deadline(sa)));
}

/* --- counters --- */

void sa_get_stats(const struct sa *sa, struct sa_stats *st)
{
	*st = sa->st;
	st->subscriptions = sa_inform_count(sa);
	st->services = sa_services_count(sa);
	st->pending = sa->nparked;
}

static uint32_t percentile(const struct sa_counters *k, unsigned pct)
{
	uint64_t total = 0, seen = 0, want;

	for (unsigned i = 0; i < SA_HIST_BUCKETS; i++)
		total += k->hist[i];
	if (!total)
		return 0;
	want = (total * pct + 99) / 100;
	for (unsigned i = 0; i < SA_HIST_BUCKETS; i++) {
		seen += k->hist[i];
		if (seen >= want)
			return sa_hist_upper(i);
	}
	return sa_hist_upper(SA_HIST_BUCKETS - 1);
}

size_t sa_get_attr_stats(const struct sa *sa, struct sa_attr_stats *out, size_t max,
			 size_t *total)
{
	size_t n = 0;

	*total = sa_attr_count();
	for (size_t i = 0; i < *total && n < max; i++) {
		const struct sa_attr *a = sa_attr_at(i);
		const struct sa_counters *k = &sa->cnt[i];

		out[n++] = (struct sa_attr_stats){
			.name = a->nm.name, .attr = a->nm.id, .requests = k->requests,
			.errors = k->errors, .records = k->records,
			.p50_us = percentile(k, 50), .p99_us = percentile(k, 99),
		};
	}
	return n;
}
