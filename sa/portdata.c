/*
 * DOC: port tables read on demand: GUIDInfo, P_KeyTable, SL2VL and
 * VLArbitration, for the SA records that report them.
 *
 * The snapshot has no copy of these tables and a sweep does not read
 * them: SL2VL alone is (ports + 1)^2 SMPs per switch, 1369 for a 36-port
 * one, for records somebody may never ask for. So the SA reads a table
 * when a query first needs it, with a LID-routed Get to the port (by then
 * we are master and routes are up), and keeps what came back until the
 * next snapshot: the records report what the port holds, and a query
 * costs SMPs once per sweep. A port that answers with an error status, or
 * not at all, does not hold that table: its record is left out.
 *
 * A query that finds a table missing starts its read and is parked
 * (request.c); when no read is left in flight the parked queries run
 * again. Bounded: SA_FETCH_PER_REQ reads per query (more is
 * ERR_NO_RESOURCES: ask for fewer ports), SA_PORTDATA_MAX tables kept.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sa/sa_int.h"
#include "lib/log.h"

enum { PD_FETCHING = 1, PD_OK = 2, PD_NONE = 3 };

struct fetch {
	struct sa *sa;
	uint64_t key;
	uint64_t gen;
};

static unsigned attr_code(uint16_t attr)
{
	switch (attr) {
	case SMP_ATTR_GUID_INFO: return 1;
	case SMP_ATTR_PKEY_TABLE: return 2;
	case SMP_ATTR_SL2VL_TABLE: return 3;
	default: return 4;   /* SMP_ATTR_VLARB_TABLE */
	}
}

static struct sa_pd_entry *find(struct sa *sa, uint64_t key)
{
	return guidtab_find(&sa->pd, key, 0);
}

static struct sa_pd_entry *insert(struct sa *sa, uint64_t key)
{
	if (!sa->pd.elem)
		guidtab_init(&sa->pd, sizeof(struct sa_pd_entry));
	return guidtab_get(&sa->pd, key, 0);
}

static void fetched(void *arg, int err, const struct smp *resp)
{
	struct fetch *f = arg;
	struct sa *sa = f->sa;
	struct sa_pd_entry *e;

	sa->pd_inflight--;
	sa->st.smp_reads++;
	if (f->gen == sa->pd_gen && (e = find(sa, f->key))) {
		e->state = err == MAD_OK && resp ? PD_OK : PD_NONE;
		if (e->state == PD_OK)
			memcpy(e->data, resp->data, sizeof(e->data));
	}
	free(f);
	/* the engine cancels everything when it goes away: nothing to rerun */
	if (!sa->pd_inflight && sa->park && err != MAD_ERR_CANCELED)
		sa_park_rerun(sa);
}

static bool submit(struct sa *sa, const struct sm_snap *s, const struct snap_port *p,
		   uint16_t attr, uint32_t mod, uint64_t key)
{
	struct fetch *f = xmalloc(sizeof(*f));
	struct mad_req r;

	memset(&r, 0, sizeof(r));
	r.flags = MAD_REQ_NO_BACKOFF;   /* a requester waits: no long pauses */
	r.mgmt_class = MAD_CLASS_SMI;
	r.method = MAD_METHOD_GET;
	r.attr_id = attr;
	r.attr_mod = mod;
	r.dlid = sa_port_lid(s, p);
	*f = (struct fetch){ sa, key, sa->pd_gen };
	if (!r.dlid || !sa->env.smp || sa->env.smp(sa->env.arg, &r, fetched, f) < 0) {
		free(f);
		return false;
	}
	sa->pd_inflight++;
	return true;
}

int sa_portdata(struct sa_ctx *c, const struct snap_port *p, uint16_t attr, uint32_t mod,
		uint8_t data[64])
{
	struct sa *sa = c->sa;
	uint64_t key = ((uint64_t)(p - c->snap->ports + 1) << 32) |
		       ((uint64_t)attr_code(attr) << 24) | (mod & 0xFFFFFF);
	struct sa_pd_entry *e = find(sa, key);

	if (e && e->state != PD_FETCHING) {
		if (e->state == PD_OK)
			memcpy(data, e->data, 64);
		return e->state == PD_OK;
	}
	c->missing++;
	if (e)
		return -1;
	if (c->fetches >= SA_FETCH_PER_REQ || sa->pd.count >= SA_PORTDATA_MAX) {
		/* too many ports for one query: it must name fewer */
		sa_fail(c, SA_STATUS_NO_RESOURCES);
		return -1;
	}
	e = insert(sa, key);
	e->state = PD_FETCHING;
	if (!submit(sa, c->snap, p, attr, mod, key)) {
		e->state = PD_NONE;
		c->missing--;
		return 0;
	}
	c->fetches++;
	return -1;
}

void sa_portdata_clear(struct sa *sa)
{
	guidtab_free(&sa->pd);
	sa->pd_gen++;
}

void sa_portdata_free(struct sa *sa)
{
	sa_portdata_clear(sa);
}

bool sa_portdata_busy(const struct sa *sa)
{
	return sa->pd_inflight != 0;
}
