/*
 * DOC: the LID allocator (rules in lidalloc.h).
 *
 * Three maps over the unicast LID space are built per call: which GUID the
 * state file reserves each LID for, how many claims hold it now (and the
 * first of them), and whether this call gave it out. Claims are visited
 * in one fixed order (switches first, then by port GUID), so the result
 * depends only on the claims and the file, never on discovery order.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ibsm/topo.h"
#include "fabric/lidalloc.h"
#include "lib/log.h"

#define NLIDS (TOPO_MAX_UCAST_LID + 1u)
#define NO_CLAIM UINT32_MAX

struct alloc {
	struct lid_db *db;
	struct lid_claim *c;
	size_t n;
	uint32_t *order;        /* claim indices in visiting order */
	uint64_t *resv;         /* LID -> reserving GUID, 0 none */
	uint32_t *first;        /* LID -> first claim holding it */
	uint8_t *nhold;         /* LID -> claims holding it (saturates) */
	uint8_t *given;         /* LID -> handed out by this call */
	uint32_t cursor[8];     /* lowest LID worth trying, per LMC */
	uint64_t *present;      /* claim GUIDs, sorted, for "absent" */
	struct lid_alloc_stats *st;
};

static unsigned span(uint8_t lmc)
{
	return 1u << lmc;
}

static bool range_ok(unsigned lid, uint8_t lmc)
{
	return lid && (lid & (span(lmc) - 1)) == 0 && lid + span(lmc) - 1 <= TOPO_MAX_UCAST_LID;
}

struct sort_key {
	uint64_t guid, order;
	uint32_t i;
	bool sw;
};

static int cmp_key(const void *x, const void *y)
{
	const struct sort_key *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw ? -1 : 1;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Switches first, then by port GUID (node GUID and port on ties). */
static void sort_claims(struct alloc *a)
{
	struct sort_key *k = xcalloc(a->n ? a->n : 1, sizeof(*k));

	for (uint32_t i = 0; i < a->n; i++)
		k[i] = (struct sort_key){ a->c[i].guid, a->c[i].order, i, a->c[i].is_switch };
	qsort(k, a->n, sizeof(*k), cmp_key);
	for (uint32_t i = 0; i < a->n; i++)
		a->order[i] = k[i].i;
	free(k);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void mark_resv(void *arg, const struct lid_entry *e)
{
	struct alloc *a = arg;

	for (unsigned l = e->lid; l < e->lid + span(e->lmc) && l < NLIDS; l++)
		a->resv[l] = e->key.guid;
}

static void mark_held(struct alloc *a, uint32_t i)
{
	const struct lid_claim *c = &a->c[i];

	if (!c->held_known || !c->held)
		return;
	for (unsigned l = c->held; l < c->held + span(c->held_lmc) && l < NLIDS; l++) {
		if (a->nhold[l] == 0)
			a->first[l] = i;
		if (a->nhold[l] < UINT8_MAX)
			a->nhold[l]++;
	}
}

static void alloc_init(struct alloc *a, struct lid_db *db, struct lid_claim *c, size_t n,
		       struct lid_alloc_stats *st)
{
	memset(a, 0, sizeof(*a));
	a->db = db;
	a->c = c;
	a->n = n;
	a->st = st;
	a->order = xcalloc(n ? n : 1, sizeof(*a->order));
	a->present = xcalloc(n ? n : 1, sizeof(*a->present));
	a->resv = xcalloc(NLIDS, sizeof(*a->resv));
	a->first = xcalloc(NLIDS, sizeof(*a->first));
	a->nhold = xcalloc(NLIDS, 1);
	a->given = xcalloc(NLIDS, 1);
	for (uint32_t i = 0; i < n; i++) {
		a->order[i] = i;
		a->present[i] = c[i].guid;
		c[i].lid = 0;
		mark_held(a, i);
	}
	sort_claims(a);
	qsort(a->present, n, sizeof(*a->present), cmp_u64);
	lid_db_each(db, mark_resv, a);
	for (unsigned k = 0; k < 8; k++)
		a->cursor[k] = span((uint8_t)k);
}

static void alloc_fini(struct alloc *a)
{
	free(a->order);
	free(a->present);
	free(a->resv);
	free(a->first);
	free(a->nhold);
	free(a->given);
}

/* Held now by a claim other than i that counts (excluded ones do not stop
 * the owner: they get nothing and are reported elsewhere). */
static bool held_by_other(const struct alloc *a, uint32_t i, unsigned l)
{
	if (a->nhold[l] == 0)
		return false;
	if (a->nhold[l] == 1)
		return a->first[l] != i && !a->c[a->first[l]].exclude;
	for (uint32_t k = 0; k < a->n; k++) {
		const struct lid_claim *o = &a->c[k];

		if (k != i && !o->exclude && o->held_known && o->held &&
		    l >= o->held && l < o->held + span(o->held_lmc))
			return true;
	}
	return false;
}

static bool holds(const struct lid_claim *c, unsigned l)
{
	return c->held_known && c->held && l >= c->held && l < c->held + span(c->held_lmc);
}

/* Giving l to claim i would make a second holder of l: another claim holds
 * it and i does not. (Where both hold it already, the conflict exists; the
 * rules decide who keeps it and the other is moved.) */
static bool intrudes(const struct alloc *a, uint32_t i, unsigned l)
{
	return !holds(&a->c[i], l) && held_by_other(a, i, l);
}

static void give(struct alloc *a, struct lid_claim *c, unsigned lid)
{
	memset(a->given + lid, 1, span(c->lmc));
	c->lid = (uint16_t)lid;
}

static bool given_any(const struct alloc *a, unsigned lid, uint8_t lmc)
{
	return memchr(a->given + lid, 1, span(lmc)) != NULL;
}

/* Rule 1: the state file's reservation. */
static void pass_reserved(struct alloc *a)
{
	for (size_t k = 0; k < a->n; k++) {
		uint32_t i = a->order[k];
		struct lid_claim *c = &a->c[i];
		const struct lid_entry *e = lid_db_get(a->db, c->guid);
		bool busy = false;

		if (c->exclude || !e || e->lmc != c->lmc || !range_ok(e->lid, c->lmc))
			continue;
		for (unsigned l = e->lid; l < e->lid + span(c->lmc) && !busy; l++)
			busy = intrudes(a, i, l);
		if (!busy && !given_any(a, e->lid, c->lmc)) {
			give(a, c, e->lid);
			a->st->reserved++;
			continue;
		}
		a->st->waiting++;
		log_notice("LID %u is reserved for port %016" PRIx64 " but another port holds it: "
			   "that port gets a new LID first", e->lid, c->guid);
	}
}

/* May claim i keep the range it holds? Another holder of it either has it
 * reserved (resv says so) or has no better right, and then whichever is
 * visited first keeps it (given[] stops the other). */
static bool may_keep(const struct alloc *a, uint32_t i)
{
	const struct lid_claim *c = &a->c[i];

	if (!c->held_known || !range_ok(c->held, c->lmc) || given_any(a, c->held, c->lmc))
		return false;
	for (unsigned l = c->held; l < c->held + span(c->lmc); l++)
		if ((a->resv[l] && a->resv[l] != c->guid) || intrudes(a, i, l))
			return false;
	return true;
}

/* Rule 2: the LID the port holds; with two holders and no reservation, the
 * one that comes first keeps it (given[] stops the second). */
static void pass_held(struct alloc *a)
{
	for (size_t k = 0; k < a->n; k++) {
		uint32_t i = a->order[k];
		struct lid_claim *c = &a->c[i];

		if (c->lid || c->exclude || !c->held)
			continue;
		if (may_keep(a, i)) {
			give(a, c, c->held);
			a->st->kept++;
		} else if (c->held_known) {
			a->st->moved++;
			log_notice("port %016" PRIx64 " holds LID %u, which another port owns: "
				   "giving it a new LID", c->guid, c->held);
		}
	}
}

static bool lid_free(const struct alloc *a, unsigned lid, uint8_t lmc)
{
	for (unsigned l = lid; l < lid + span(lmc); l++)
		if (a->resv[l] || a->nhold[l] || a->given[l])
			return false;
	return true;
}

static unsigned find_free(struct alloc *a, uint8_t lmc)
{
	unsigned lid = a->cursor[lmc];

	while (range_ok(lid, lmc) && !lid_free(a, lid, lmc))
		lid += span(lmc);
	a->cursor[lmc] = lid;
	return range_ok(lid, lmc) ? lid : 0;
}

struct oldest {
	const struct alloc *a;
	const struct lid_entry *e;
};

static void pick_oldest(void *arg, const struct lid_entry *e)
{
	struct oldest *o = arg;
	const struct alloc *a = o->a;

	if (bsearch(&e->key.guid, a->present, a->n, sizeof(*a->present), cmp_u64))
		return;
	if (!o->e || e->seen < o->e->seen || (e->seen == o->e->seen && e->key.guid < o->e->key.guid))
		o->e = e;
}

/* Frees the oldest reservation of a GUID not among the claims; false when
 * there is none left. */
static bool release_oldest(struct alloc *a)
{
	struct oldest o = { a, NULL };
	struct lid_entry e;

	lid_db_each(a->db, pick_oldest, &o);
	if (!o.e)
		return false;
	e = *o.e;
	for (unsigned l = e.lid; l < e.lid + span(e.lmc) && l < NLIDS; l++)
		a->resv[l] = 0;
	lid_db_del(a->db, e.key.guid);
	for (unsigned k = 0; k < 8; k++)
		a->cursor[k] = span((uint8_t)k);
	a->st->released++;
	log_warnx("LID space short: released LID %u of port %016" PRIx64
		  " (absent, last seen %" PRIu64 ")", e.lid, e.key.guid, e.seen);
	return true;
}

/* Rule 3: the lowest free range. */
static int pass_fresh(struct alloc *a)
{
	int rc = 0;

	for (size_t k = 0; k < a->n; k++) {
		struct lid_claim *c = &a->c[a->order[k]];
		unsigned lid;

		if (c->lid || c->exclude || !c->held_known)
			continue;
		while (!(lid = find_free(a, c->lmc)) && release_oldest(a))
			;
		if (!lid) {
			rc = -1;
			continue;
		}
		give(a, c, lid);
		a->st->fresh++;
	}
	return rc;
}

static void record(struct alloc *a, uint64_t now)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct lid_claim *c = &a->c[i];
		const struct lid_entry *e = lid_db_get(a->db, c->guid);

		if (!c->lid) {
			a->st->none++;
			if (e && !c->exclude)
				lid_db_set(a->db, c->guid, e->lid, e->lmc, now);
			continue;
		}
		/* waiting for its reservation: keep it, only note it was seen */
		if (e && e->lid != c->lid && e->lmc == c->lmc)
			lid_db_set(a->db, c->guid, e->lid, e->lmc, now);
		else
			lid_db_set(a->db, c->guid, c->lid, c->lmc, now);
	}
}

int lid_alloc(struct lid_db *db, struct lid_claim *claims, size_t n, uint64_t now,
	      struct lid_alloc_stats *st)
{
	struct alloc a;
	int rc;

	memset(st, 0, sizeof(*st));
	alloc_init(&a, db, claims, n, st);
	pass_reserved(&a);
	pass_held(&a);
	rc = pass_fresh(&a);
	record(&a, now);
	alloc_fini(&a);
	return rc;
}
