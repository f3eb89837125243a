/*
 * DOC: adaptive routing in the daemon (see sm/ar.h for the policy).
 *
 * Each switch runs its own little job inside the AR phase: a list of steps,
 * each a batch of SMPs; the last completion of a step starts the next, so
 * switches progress independently and the phase ends when the last job
 * does (sm->pending counts every SMP in flight, as everywhere else).
 * Caches hold the wire image of every group and AR LFT block a switch
 * acknowledged, so later sweeps send only what changed.
 *
 * An enabled switch is asked for ARInfo every sweep: if e reads 0 (it was
 * reset, or something sent it a plain LFT Set) it is reprogrammed from
 * scratch, standard LFT first.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "mad/ar.h"
#include "routing/ar.h"
#include "routing/verify.h"
#include "sm/ar.h"
#include "lib/atomicfile.h"
#include "lib/log.h"
#include "sm/phase.h"
#include "sm/sm.h"

#define AR_MAX_ERRORS 5                      /* switch failures ... */
#define AR_ERROR_WINDOW_MS 5000              /* ... within this window trip the breaker */
#define AR_BREAKER_HOLD_MS (10 * 60 * 1000)  /* AR stays off this long after a trip */
#define AR_IDS_MAGIC "ibsmd-ar-groups 1"
#define AR_IDS_MAX_FILE (1 << 20)

enum ar_cap { CAP_UNKNOWN, CAP_NO, CAP_YES };

enum ar_step {
	ST_GET_INFO, ST_INFO_OFF, ST_GROUPS, ST_TRANSIT, ST_LFT, ST_INFO_ON,
	ST_FB_LFT, ST_FB_OFF, ST_DONE,
};

static const enum ar_step steps_enable[] = {
	ST_GET_INFO, ST_INFO_OFF, ST_GROUPS, ST_LFT, ST_INFO_ON, ST_DONE,
};
static const enum ar_step steps_update[] = {
	ST_GET_INFO, ST_TRANSIT, ST_GROUPS, ST_LFT, ST_INFO_ON, ST_DONE,
};
static const enum ar_step steps_recover[] = {
	ST_FB_LFT, ST_INFO_OFF, ST_GROUPS, ST_LFT, ST_INFO_ON, ST_DONE,
};
static const enum ar_step steps_fallback[] = { ST_FB_LFT, ST_FB_OFF, ST_DONE };

static const char *const step_names[] = {
	"ARInfo Get", "ARInfo Set (e=0)", "group table Set", "AR LFT Set (transition)",
	"AR LFT Set", "ARInfo Set (e=1)", "LFT Set (fallback)", "ARInfo Set (fallback e=0)", "done",
};

struct ar_blocks {            /* 64-byte wire blocks and which are known */
	uint8_t *data;
	uint8_t *known;
	uint32_t n;
};

struct ar_sw {
	uint64_t guid;
	enum ar_cap cap;
	char reason[96];          /* why unsupported or not programmed */
	struct ar_info info;      /* as last read or acknowledged */
	bool enabled;             /* e=1 with tables we wrote */
	bool need_fallback;       /* a fallback failed: state unknown */
	uint64_t retry_sweep;     /* no new attempt before this sweep */
	char last_error[128];
	uint32_t errors;
	struct ar_blocks grp, lft; /* what the switch holds */
	/* this sweep's job */
	struct sm *sm;
	struct sm_node *n;
	const enum ar_step *steps;
	unsigned si, inflight;
	bool failed, fallback_job;
	struct ar_blocks want_grp, want_lft;
	uint16_t want_top;
};

struct sm_ar {
	struct ar_sw **sw;
	size_t nsw, cap;
	struct ar_ids ids;
	bool ids_loaded;
	struct ar_tables at;
	bool have_at;
	uint64_t *at_guids;       /* node GUID per at.sw index */
	char *dump_path;
	uint64_t err_ms[AR_MAX_ERRORS + 1];
	unsigned nerr;
	bool tripped;
	uint64_t tripped_ms;
	struct timespec t_phase;  /* start of this sweep's AR phase */
	void (*done)(struct sm *);    /* where the sweep goes after it */
};

struct ar_req {
	struct ar_sw *w;
	enum ar_step step;
	uint32_t block;
	uint8_t data[64];
};

/* --- state --- */

static struct sm_ar *ar_get(struct sm *sm)
{
	if (!sm->ar)
		sm->ar = xcalloc(1, sizeof(*sm->ar));
	return sm->ar;
}

static struct ar_sw *sw_find(const struct sm_ar *ar, uint64_t guid)
{
	for (size_t i = 0; ar && i < ar->nsw; i++)
		if (ar->sw[i]->guid == guid)
			return ar->sw[i];
	return NULL;
}

static struct ar_sw *sw_get(struct sm_ar *ar, uint64_t guid)
{
	struct ar_sw *w = sw_find(ar, guid);

	if (w)
		return w;
	if (ar->nsw == ar->cap) {
		ar->cap = ar->cap ? ar->cap * 2 : 32;
		ar->sw = xrealloc(ar->sw, ar->cap * sizeof(*ar->sw));
	}
	w = xcalloc(1, sizeof(*w));
	w->guid = guid;
	ar->sw[ar->nsw++] = w;
	return w;
}

static void blocks_free(struct ar_blocks *b)
{
	free(b->data);
	free(b->known);
	memset(b, 0, sizeof(*b));
}

static void blocks_reserve(struct ar_blocks *b, uint32_t n)
{
	if (b->n >= n)
		return;
	b->data = xrealloc(b->data, (size_t)n * 64);
	b->known = xrealloc(b->known, n);
	memset(b->data + (size_t)b->n * 64, 0, (size_t)(n - b->n) * 64);
	memset(b->known + b->n, 0, n - b->n);
	b->n = n;
}

static bool block_is(const struct ar_blocks *b, uint32_t i, const uint8_t *want)
{
	return i < b->n && b->known[i] && !memcmp(b->data + (size_t)i * 64, want, 64);
}

static void block_store(struct ar_blocks *b, uint32_t i, const uint8_t *data)
{
	blocks_reserve(b, i + 1);
	memcpy(b->data + (size_t)i * 64, data, 64);
	b->known[i] = 1;
}

static void forget_tables(struct ar_sw *w)
{
	blocks_free(&w->grp);
	blocks_free(&w->lft);
}

void sm_ar_set_dump(struct sm *sm, const char *path)
{
	struct sm_ar *ar;

	if (!path)
		return;
	ar = ar_get(sm);
	free(ar->dump_path);
	ar->dump_path = xstrdup(path);
}

void sm_ar_free(struct sm *sm)
{
	struct sm_ar *ar = sm->ar;

	if (!ar)
		return;
	for (size_t i = 0; i < ar->nsw; i++) {
		forget_tables(ar->sw[i]);
		blocks_free(&ar->sw[i]->want_grp);
		blocks_free(&ar->sw[i]->want_lft);
		free(ar->sw[i]);
	}
	free(ar->sw);
	ar_ids_free(&ar->ids);
	ar_tables_free(&ar->at);
	free(ar->at_guids);
	free(ar->dump_path);
	free(ar);
	sm->ar = NULL;
}

bool sm_ar_owns_lft(const struct sm *sm, const struct sm_node *n)
{
	const struct ar_sw *w = sw_find(sm->ar, n->guid);

	/* a switch that came back reset (LinearFDBTop 0) holds no AR either */
	return w && w->enabled && n->si.lin_top != 0;
}

/* --- errors and the breaker --- */

static const char *err_name(int err)
{
	switch (err) {
	case MAD_ERR_TIMEOUT: return "timeout";
	case MAD_ERR_STATUS: return "error status";
	case MAD_ERR_SEND: return "send failed";
	case MAD_ERR_CANCELED: return "canceled";
	case MAD_ERR_REFUSED: return "refused: not master";
	default: return "error";
	}
}

static void note_error(struct sm *sm, struct ar_sw *w, const char *what, int err)
{
	struct sm_ar *ar = sm->ar;
	uint64_t now = clock_ms();
	unsigned recent = 0;

	snprintf(w->last_error, sizeof(w->last_error), "%s failed (%s)", what, err_name(err));
	w->errors++;
	log_fabric(LOG_LVL_WARNING, "%016" PRIx64 " \"%s\": AR %s; falling back to static routing",
		   w->guid, w->n ? w->n->desc : "", w->last_error);
	memmove(ar->err_ms + 1, ar->err_ms, AR_MAX_ERRORS * sizeof(ar->err_ms[0]));
	ar->err_ms[0] = now;
	if (ar->nerr <= AR_MAX_ERRORS)
		ar->nerr++;
	for (unsigned i = 0; i < ar->nerr; i++)
		recent += now - ar->err_ms[i] <= AR_ERROR_WINDOW_MS;
	if (recent > AR_MAX_ERRORS && !ar->tripped) {
		ar->tripped = true;
		ar->tripped_ms = now;
		log_warnx("AR: %u switch errors within %u ms: adaptive routing off fabric-wide "
			  "for %u s", recent, AR_ERROR_WINDOW_MS, AR_BREAKER_HOLD_MS / 1000);
	}
}

static bool breaker_open(struct sm_ar *ar)
{
	if (ar->tripped && clock_ms() - ar->tripped_ms >= AR_BREAKER_HOLD_MS) {
		ar->tripped = false;
		ar->nerr = 0;
		log_notice("AR: breaker hold time over, adaptive routing allowed again");
	}
	return ar->tripped;
}

/* --- persistent leaf GUID -> group id map --- */

static char *ids_path(const struct sm *sm)
{
	size_t len = strlen(sm->conf.state_dir) + sizeof("/ar-groups");
	char *p = xmalloc(len);

	snprintf(p, len, "%s/ar-groups", sm->conf.state_dir);
	return p;
}

static int ids_line(struct ar_ids *ids, const char *line)
{
	unsigned long long guid;
	unsigned id;
	char extra;

	if (line[0] == '#' || line[0] == '\0')
		return 0;
	if (sscanf(line, "%llx %u %c", &guid, &id, &extra) != 2 || !id || id >= AR_MAX_GROUPS)
		return -1;
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i].guid == guid || ids->v[i].id == id)
			return -1;
	if (ids->n == ids->cap) {
		ids->cap = ids->cap ? 2 * ids->cap : 64;
		ids->v = xrealloc(ids->v, ids->cap * sizeof(*ids->v));
	}
	ids->v[ids->n].guid = guid;
	ids->v[ids->n++].id = (uint16_t)id;
	return 0;
}

/* A corrupt file only costs id stability, unlike the LID file: warn, start
 * afresh, and replace it at the next change. */
static void ids_load(struct sm *sm, struct ar_ids *ids)
{
	char *path = ids_path(sm), line[256];
	FILE *f = fopen(path, "r");
	unsigned ln = 0;
	bool bad = false;

	if (!f) {
		if (errno != ENOENT)
			log_warn("AR: cannot read %s", path);
		free(path);
		return;
	}
	while (!bad && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		bad = ++ln == 1 ? strcmp(line, AR_IDS_MAGIC) != 0 : ids_line(ids, line) < 0;
	}
	fclose(f);
	if (bad || ln == 0) {
		log_warnx("AR: %s:%u is corrupt; group ids start afresh", path, ln);
		ar_ids_free(ids);
		ids->changed = 1;
	}
	free(path);
}

static int ids_write(FILE *f, const void *arg)
{
	const struct ar_ids *ids = arg;

	fprintf(f, "%s\n# leaf-switch-guid group-id\n", AR_IDS_MAGIC);
	for (size_t i = 0; i < ids->n; i++)
		fprintf(f, "0x%016" PRIx64 " %u\n", ids->v[i].guid, ids->v[i].id);
	return ferror(f) ? -1 : 0;
}

static void ids_save(struct sm *sm, struct ar_ids *ids)
{
	char *path = ids_path(sm), err[512];

	if (atomic_write(path, ids_write, ids, err, sizeof(err)) < 0)
		log_warnx("AR: cannot save group ids: %s", err);
	else
		ids->changed = 0;
	free(path);
}

/* --- detection --- */

static bool nvidia_vendor(uint32_t vendor)
{
	static const uint32_t ouis[] = {
		0x0002C9, 0xF45214, 0x00258B, 0xE41D2D, 0x7CFE90, 0xEC0D9A, 0x248A07,
		0x506B4B, 0x98039B, 0x00119F /* Bull OEM */,
	};

	for (size_t i = 0; i < sizeof(ouis) / sizeof(ouis[0]); i++)
		if (vendor == ouis[i])
			return true;
	return false;
}

static void unsupported(struct ar_sw *w, const char *fmt, ...) LOG_PRINTF(2, 3);

static void unsupported(struct ar_sw *w, const char *fmt, ...)
{
	va_list ap;

	w->cap = CAP_NO;
	va_start(ap, fmt);
	vsnprintf(w->reason, sizeof(w->reason), fmt, ap);
	va_end(ap);
	log_info("AR: %016" PRIx64 " \"%s\": not supported: %s", w->guid, w->n ? w->n->desc : "",
		 w->reason);
}

static void probe_info_done(void *arg, int err, const struct smp *resp)
{
	struct ar_sw *w = arg;
	struct sm *sm = w->sm;

	if (err != MAD_OK || ar_info_decode(resp->data, sizeof(resp->data), &w->info) < 0)
		unsupported(w, "ARInfo Get: %s", err == MAD_OK ? "short answer" : err_name(err));
	else if (w->info.group_cap == 0)
		unsupported(w, "ARInfo group_cap is 0");
	else {
		w->cap = CAP_YES;
		w->reason[0] = '\0';
		log_info("AR: %016" PRIx64 " \"%s\": supported, group_cap %u, AR version %u",
			 w->guid, w->n->desc, w->info.group_cap, w->info.ar_version_cap);
	}
	sm_phase_put(sm);
}

static void probe_gi_done(void *arg, int err, const struct smp *resp)
{
	struct ar_sw *w = arg;
	struct sm *sm = w->sm;
	struct ar_gi_caps caps;
	struct mad_req r;

	if (err != MAD_OK || ar_gi_caps_decode(resp->data, sizeof(resp->data), &caps) < 0)
		unsupported(w, "GeneralInfo Get: %s", err == MAD_OK ? "short answer" : err_name(err));
	else if (!ar_gi_has_cap(&caps, AR_GI_CAP_AR_REV1))
		unsupported(w, "GeneralInfo capability bit %u clear", AR_GI_CAP_AR_REV1);
	else {
		sm_dr_req(sm, w->n, MAD_METHOD_GET, SMP_ATTR_AR_INFO, 0, &r);
		sm_submit(sm, &r, probe_info_done, w);   /* queue full: probed again next sweep */
	}
	sm_phase_put(sm);
}

static void probe(struct sm *sm, struct ar_sw *w)
{
	struct mad_req r;

	if (!nvidia_vendor(w->n->ni.vendor_id)) {
		unsupported(w, "vendor 0x%06x is not NVIDIA", w->n->ni.vendor_id);
		return;
	}
	sm_dr_req(sm, w->n, MAD_METHOD_GET, SMP_ATTR_GENERAL_INFO, AR_GI_MOD_CAPS, &r);
	r.flags = MAD_REQ_NO_BACKOFF;   /* a switch without the vendor class never answers */
	sm_submit(sm, &r, probe_gi_done, w);
}

static bool usable_switch(const struct sm_node *n)
{
	return node_is_switch(n) && n->have_si && node_usable(n);
}

/* Binds this generation's nodes to the per-GUID state. */
static void bind_nodes(struct sm *sm)
{
	struct sm_ar *ar = sm->ar;

	for (size_t i = 0; i < ar->nsw; i++)
		ar->sw[i]->n = NULL;
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		struct sm_node *n = sm->fabric->nodes[i];
		struct ar_sw *w;

		if (!usable_switch(n))
			continue;
		w = sm->conf.ar_enable ? sw_get(ar, n->guid) : sw_find(ar, n->guid);
		if (w) {
			w->n = n;
			w->sm = sm;
		}
	}
}

/* --- what a switch should hold --- */

static void want_images(const struct sm_ar *ar, struct ar_sw *w)
{
	const struct ar_sw_tables *st = &ar->at.sw[w->n->idx];
	struct ar_group_block gb;
	struct ar_lft_block lb;

	w->want_top = ar->at.group_top;
	blocks_reserve(&w->want_grp, w->want_top / AR_GROUPS_PER_BLOCK + 1u);
	for (uint32_t b = 0; b <= w->want_top / AR_GROUPS_PER_BLOCK; b++) {
		memset(&gb, 0, sizeof(gb));
		for (uint32_t k = 0; k < AR_GROUPS_PER_BLOCK; k++) {
			uint32_t g = b * AR_GROUPS_PER_BLOCK + k;
			if (g <= w->want_top)
				memcpy(gb.ports[k], st->groups[g].w, sizeof(gb.ports[k]));
		}
		ar_group_block_encode(&gb, w->want_grp.data + (size_t)b * 64, 64);
	}
	w->want_grp.n = w->want_top / AR_GROUPS_PER_BLOCK + 1u;
	blocks_reserve(&w->want_lft, ar->at.top / AR_LIDS_PER_BLOCK + 1u);
	for (uint32_t b = 0; b <= ar->at.top / AR_LIDS_PER_BLOCK; b++) {
		for (uint32_t k = 0; k < AR_LIDS_PER_BLOCK; k++) {
			uint32_t lid = b * AR_LIDS_PER_BLOCK + k;
			struct ar_lft_entry *e = &lb.e[k];

			e->table = 0;
			e->state = lid <= ar->at.top ? st->lft[lid].state : AR_LID_STATIC;
			e->port = lid <= ar->at.top ? st->lft[lid].port : LFT_NO_PORT;
			e->group = lid <= ar->at.top ? st->lft[lid].group : 0;
		}
		ar_lft_block_encode(&lb, w->want_lft.data + (size_t)b * 64, 64);
	}
	w->want_lft.n = ar->at.top / AR_LIDS_PER_BLOCK + 1u;
}

static void desired_info(const struct sm *sm, const struct ar_sw *w, int e, struct ar_info *o)
{
	*o = w->info;
	o->e = (uint8_t)e;
	o->group_top = w->want_top;
	if (o->by_sl_cap) {
		o->by_sl_en = sm->conf.ar_sl_mask != 0xffff;
		o->enable_by_sl_mask = (uint16_t)sm->conf.ar_sl_mask;
	}
	if (o->by_transp_cap)
		o->by_transport_disable = (uint8_t)(~sm->conf.ar_transport_mask & 0xF);
	o->ageing_time_value = sm->conf.ar_ageing_time_us;
}

/* --- one switch's job --- */

static void job_advance(struct ar_sw *w);

/* The static routes of LIDs 64b..64b+63 for this switch. */
static void lft_block(const struct sm *sm, const struct sm_node *n, uint32_t b, uint8_t *out)
{
	const uint8_t *ports = sm->routes.lft[n->idx].ports;

	for (uint32_t k = 0; k < 64; k++) {
		uint32_t lid = b * 64 + k;
		out[k] = ports && lid <= sm->routes.top ? ports[lid] : LFT_NO_PORT;
	}
}

/* bringup.c's picture of the standard LFT follows what the switch
 * forwards by statically: the AR LFT DefaultPorts. */
static void note_static_ports(struct ar_sw *w, uint32_t block, const uint8_t *data)
{
	struct sm_node *n = w->n;
	struct ar_lft_block lb;

	if (ar_lft_block_decode(data, 64, &lb) < 0)
		return;
	for (uint32_t k = 0; k < AR_LIDS_PER_BLOCK; k++) {
		uint32_t lid = block * AR_LIDS_PER_BLOCK + k;
		if (lid / 64 < n->lft_blocks)
			n->lft[lid] = lb.e[k].port;
	}
}

/* Records an acknowledged request; false if the answer is unusable. */
static bool req_ok(struct ar_sw *w, const struct ar_req *c, const struct smp *resp)
{
	struct sm_node *n = w->n;

	switch (c->step) {
	case ST_GET_INFO:
		return ar_info_decode(resp->data, sizeof(resp->data), &w->info) == 0;
	case ST_INFO_OFF: case ST_INFO_ON: case ST_FB_OFF:
		return ar_info_decode(c->data, sizeof(c->data), &w->info) == 0;
	case ST_GROUPS:
		block_store(&w->grp, c->block, c->data);
		break;
	case ST_TRANSIT: case ST_LFT:
		block_store(&w->lft, c->block, c->data);
		note_static_ports(w, c->block, c->data);
		break;
	case ST_FB_LFT:
		if (c->block < n->lft_blocks) {
			memcpy(n->lft + (size_t)c->block * 64, c->data, 64);
			n->lft_known[c->block] = LFT_KNOWN;
		}
		break;
	case ST_DONE:
		break;
	}
	return true;
}

static void req_done(void *arg, int err, const struct smp *resp)
{
	struct ar_req *c = arg;
	struct ar_sw *w = c->w;
	struct sm *sm = w->sm;

	if (err == MAD_OK && !req_ok(w, c, resp))
		err = MAD_ERR_STATUS;
	if (err != MAD_OK && !w->failed) {
		w->failed = true;
		note_error(sm, w, step_names[c->step], err);
	}
	free(c);
	if (--w->inflight == 0)
		job_advance(w);
	sm_phase_put(sm);
}

static uint32_t block_mod(uint16_t attr, uint32_t block)
{
	if (attr == SMP_ATTR_AR_LFT)
		return ar_lft_block_mod(block);
	if (attr == SMP_ATTR_AR_GROUP_TABLE)
		return ar_group_block_mod(block);
	return attr == SMP_ATTR_LFT ? block : 0;
}

static void submit(struct ar_sw *w, enum ar_step step, uint8_t method, uint16_t attr,
		   uint32_t block, const uint8_t *data)
{
	struct ar_req *c = xcalloc(1, sizeof(*c));
	struct mad_req r;

	c->w = w;
	c->step = step;
	c->block = block;
	sm_dr_req(w->sm, w->n, method, attr, block_mod(attr, block), &r);
	if (data) {
		memcpy(c->data, data, 64);
		memcpy(r.data, data, 64);
	}
	if (sm_submit(w->sm, &r, req_done, c) < 0) {
		free(c);
		if (!w->failed)
			note_error(w->sm, w, step_names[step], MAD_ERR_SEND);
		w->failed = true;
		return;
	}
	w->inflight++;
}

static void send_info(struct ar_sw *w, enum ar_step step, int e)
{
	struct ar_info want;
	uint8_t buf[64] = { 0 }, cur[64] = { 0 };

	desired_info(w->sm, w, e, &want);
	ar_info_encode(&want, buf, sizeof(buf));
	ar_info_encode(&w->info, cur, sizeof(cur));
	/* an update needs no Set when nothing changed */
	if (w->steps == steps_update && step == ST_INFO_ON && !memcmp(buf, cur, sizeof(buf)))
		return;
	submit(w, step, MAD_METHOD_SET, SMP_ATTR_AR_INFO, 0, buf);
}

static void send_changed(struct ar_sw *w, enum ar_step step, uint16_t attr,
			 const struct ar_blocks *want, const struct ar_blocks *have)
{
	for (uint32_t b = 0; b < want->n && !w->failed; b++) {
		const uint8_t *d = want->data + (size_t)b * 64;
		if (!block_is(have, b, d))
			submit(w, step, MAD_METHOD_SET, attr, b, d);
	}
}

/* 1 for every group id whose port set the switch does not hold yet. */
static uint8_t *changed_groups(const struct ar_sw *w)
{
	uint8_t *ch = xcalloc((size_t)w->want_grp.n * AR_GROUPS_PER_BLOCK, 1);

	for (uint32_t b = 0; b < w->want_grp.n; b++)
		for (uint32_t k = 0; k < AR_GROUPS_PER_BLOCK; k++) {
			size_t off = (size_t)b * 64 + k * 32;
			ch[b * AR_GROUPS_PER_BLOCK + k] =
				b >= w->grp.n || !w->grp.known[b] ||
				memcmp(w->grp.data + off, w->want_grp.data + off, 32) != 0;
		}
	return ch;
}

/* Make before break: LIDs whose group is about to be rewritten go Static on
 * their new default port first; ST_LFT then points them at the new group. */
static void send_transit(struct ar_sw *w)
{
	uint8_t *ch = changed_groups(w), buf[64];
	uint32_t ngroups = w->want_grp.n * AR_GROUPS_PER_BLOCK;
	struct ar_lft_block cur, want;

	for (uint32_t b = 0; b < w->lft.n && b < w->want_lft.n && !w->failed; b++) {
		bool moved = false;

		if (!w->lft.known[b])
			continue;
		ar_lft_block_decode(w->lft.data + (size_t)b * 64, 64, &cur);
		ar_lft_block_decode(w->want_lft.data + (size_t)b * 64, 64, &want);
		for (uint32_t k = 0; k < AR_LIDS_PER_BLOCK; k++) {
			struct ar_lft_entry *e = &cur.e[k];
			if (e->state == AR_LID_STATIC || (e->group < ngroups && !ch[e->group]))
				continue;
			e->state = AR_LID_STATIC;
			e->group = 0;
			e->port = want.e[k].port;
			moved = true;
		}
		if (moved) {
			ar_lft_block_encode(&cur, buf, sizeof(buf));
			submit(w, ST_TRANSIT, MAD_METHOD_SET, SMP_ATTR_AR_LFT, b, buf);
		}
	}
	free(ch);
}

static void send_fallback_lft(struct ar_sw *w)
{
	uint8_t buf[64];
	uint32_t blocks = w->sm->routes.top / 64u + 1;

	for (uint32_t b = 0; b < blocks && !w->failed; b++) {
		lft_block(w->sm, w->n, b, buf);
		w->sm->st.lft_blocks_written++;
		w->sm->lft_blocks_total++;
		submit(w, ST_FB_LFT, MAD_METHOD_SET, SMP_ATTR_LFT, b, buf);
	}
}

static void run_step(struct ar_sw *w, enum ar_step st)
{
	switch (st) {
	case ST_GET_INFO:
		submit(w, st, MAD_METHOD_GET, SMP_ATTR_AR_INFO, 0, NULL);
		break;
	case ST_INFO_OFF: send_info(w, st, 0); break;
	case ST_INFO_ON: send_info(w, st, 1); break;
	case ST_FB_OFF: send_info(w, st, 0); break;
	case ST_GROUPS: send_changed(w, st, SMP_ATTR_AR_GROUP_TABLE, &w->want_grp, &w->grp); break;
	case ST_TRANSIT: send_transit(w); break;
	case ST_LFT: send_changed(w, st, SMP_ATTR_AR_LFT, &w->want_lft, &w->lft); break;
	case ST_FB_LFT: send_fallback_lft(w); break;
	case ST_DONE: break;
	}
}

static void job_start(struct ar_sw *w, const enum ar_step *steps)
{
	w->steps = steps;
	w->si = 0;
	w->failed = false;
	w->fallback_job = steps == steps_fallback;
	if (steps != steps_update)
		forget_tables(w);
	/* AR is off (or about to be) while these run: bringup.c may write */
	if (steps != steps_update)
		w->enabled = false;
	run_step(w, steps[0]);
	if (!w->inflight)
		job_advance(w);
}

static void job_finished(struct ar_sw *w)
{
	struct sm *sm = w->sm;

	if (w->fallback_job) {
		w->need_fallback = false;
		w->retry_sweep = sm->sweeps + 1;
		log_notice("AR: %016" PRIx64 " \"%s\": static routing (AR off)", w->guid, w->n->desc);
		return;
	}
	if (!w->enabled)
		log_notice("AR: %016" PRIx64 " \"%s\": adaptive routing on, %u groups", w->guid,
			   w->n->desc, w->want_top);
	w->enabled = true;
}

/* A failed step: fall back, or give up for this sweep if the fallback
 * itself failed (the switch's state is then unknown). */
static void job_failed(struct ar_sw *w)
{
	if (!w->fallback_job) {
		job_start(w, steps_fallback);
		return;
	}
	w->need_fallback = true;
	w->enabled = false;
	w->sm->sweep_clean = false;
	log_warnx("AR: %016" PRIx64 " \"%s\": fallback to static routing failed; retrying next "
		  "sweep", w->guid, w->n->desc);
}

static void job_advance(struct ar_sw *w)
{
	for (;;) {
		enum ar_step st;

		if (w->failed) {
			job_failed(w);
			return;
		}
		/* an update found AR off on the switch: start from scratch */
		if (w->steps == steps_update && w->si == 0 && !w->info.e) {
			log_notice("AR: %016" PRIx64 " \"%s\": AR found off, reprogramming",
				   w->guid, w->n->desc);
			job_start(w, steps_recover);
			return;
		}
		st = w->steps[++w->si];
		if (st == ST_DONE) {
			job_finished(w);
			return;
		}
		run_step(w, st);
		if (w->inflight)
			return;
	}
}

/* --- the phase --- */

static void phase_done(struct sm *sm);

static bool any_enabled(const struct sm_ar *ar)
{
	for (size_t i = 0; ar && i < ar->nsw; i++)
		if (ar->sw[i]->enabled || ar->sw[i]->need_fallback)
			return true;
	return false;
}

static bool any_capable(const struct sm_ar *ar)
{
	for (size_t i = 0; i < ar->nsw; i++)
		if (ar->sw[i]->n && ar->sw[i]->cap == CAP_YES)
			return true;
	return false;
}

/* Computes and checks this sweep's AR tables; false: program none. */
static bool compute(struct sm *sm)
{
	struct sm_ar *ar = sm->ar;
	struct topo *t = fabric_to_topo(sm->fabric);
	struct ar_opts o = { .bounded = sm->conf.ar_mode == CONF_AR_BOUNDED };
	struct ar_verify v;
	char err[256];
	bool ok;

	ar_tables_free(&ar->at);
	ar->have_at = ar_compute(t, &sm->routes, &o, &ar->ids, &ar->at) == 0;
	ok = ar->have_at;
	if (!ok)
		log_warnx("AR: no tables: %s", ar->at.why);
	else if (ar_verify(t, &ar->at, &v, err, sizeof(err)) < 0 || !ar_verify_ok(&v)) {
		log_warnx("AR: tables fail verification (%" PRIu64 " loops, %" PRIu64
			  " dead ends, CDG cycle %d): static routing only",
			  v.loops, v.dead_ends, v.cdg_cycle);
		ok = false;
	} else
		log_info("AR: %s; all %" PRIu64 " destinations verified over every AR path",
			 ar->at.why, v.dests);
	ar->at_guids = xrealloc(ar->at_guids, (t->nnodes + 1) * sizeof(uint64_t));
	for (uint32_t i = 0; i < t->nnodes; i++)
		ar->at_guids[i] = t->nodes[i].guid;
	fabric_topo_free(t);
	if (ar->ids.changed)
		ids_save(sm, &ar->ids);
	return ok;
}

static const enum ar_step *pick_job(struct sm *sm, struct ar_sw *w, bool tables_ok)
{
	bool allowed = sm->conf.ar_enable && tables_ok && !breaker_open(sm->ar);

	if (w->need_fallback)
		return steps_fallback;
	if (w->enabled && (!allowed || w->cap != CAP_YES))
		return steps_fallback;
	if (!allowed || w->cap != CAP_YES || w->retry_sweep > sm->sweeps)
		return NULL;
	if (w->n->idx >= sm->ar->at.nnodes || !sm->ar->at.sw[w->n->idx].lft)
		return w->enabled ? steps_fallback : NULL;   /* not in the routed fabric */
	if (sm->ar->at.group_top >= w->info.group_cap) {
		snprintf(w->reason, sizeof(w->reason), "needs %u groups, group_cap is %u",
			 sm->ar->at.group_top + 1u, w->info.group_cap);
		return w->enabled ? steps_fallback : NULL;
	}
	w->reason[0] = '\0';
	return w->enabled ? steps_update : steps_enable;
}

static void program(struct sm *sm, bool tables_ok)
{
	struct sm_ar *ar = sm->ar;

	sm_phase_begin(sm, phase_done);
	for (size_t i = 0; i < ar->nsw; i++) {
		struct ar_sw *w = ar->sw[i];
		const enum ar_step *steps;

		if (!w->n)
			continue;
		steps = pick_job(sm, w, tables_ok);
		if (!steps)
			continue;
		if (steps != steps_fallback)
			want_images(ar, w);
		job_start(w, steps);
	}
	sm_phase_end(sm);
}

static void probed(struct sm *sm)
{
	struct sm_ar *ar = sm->ar;
	bool ok = false;

	if (any_capable(ar) && sm->have_routes)
		ok = compute(sm);
	if (!ok && !any_enabled(ar)) {
		phase_done(sm);
		return;
	}
	program(sm, ok);
}

void sm_ar_phase(struct sm *sm, void (*done)(struct sm *))
{
	struct sm_ar *ar = sm->ar;

	if (ar)
		ar->done = done;
	if (!sm->conf.ar_enable && !any_enabled(ar)) {
		if (ar && ar->dump_path)
			phase_done(sm);
		else
			done(sm);
		return;
	}
	ar = ar_get(sm);
	ar->done = done;
	clock_gettime(CLOCK_MONOTONIC, &ar->t_phase);
	if (sm->conf.ar_enable && !ar->ids_loaded) {
		ids_load(sm, &ar->ids);
		ar->ids_loaded = true;
	}
	bind_nodes(sm);
	if (!sm->conf.ar_enable) {
		program(sm, false);
		return;
	}
	sm_phase_begin(sm, probed);
	for (size_t i = 0; i < ar->nsw; i++)
		if (ar->sw[i]->n && ar->sw[i]->cap == CAP_UNKNOWN)
			probe(sm, ar->sw[i]);
	sm_phase_end(sm);
}

/* --- dump (--dump-ar) --- */

static const char *state_name(unsigned s)
{
	static const char *const names[] = { "bounded", "free", "static", "hbf" };

	return names[s & 3];
}

static void dump_ports(FILE *f, const uint64_t *w)
{
	bool any = false;

	for (unsigned p = 0; p < 256; p++)
		if ((w[p / 64] >> (p % 64)) & 1) {
			fprintf(f, "%s%u", any ? "," : " ", p);
			any = true;
		}
	if (!any)
		fputs(" -", f);
}

/* The same text tests/agent/ar_agent.c writes, so the two can be diffed;
 * dump_fill() adds a "json" line per switch that the agent has not. */
static void dump_switch(FILE *f, const struct ar_sw *w)
{
	struct ar_group_block gb;
	struct ar_lft_block lb;

	fprintf(f, "switch 0x%016" PRIx64 " enabled %d group_top %u\n", w->guid, w->enabled,
		w->enabled ? w->want_top : 0);
	if (!w->enabled)
		return;
	for (uint32_t g = 1; g <= w->want_top; g++) {
		ar_group_block_decode(w->want_grp.data + (size_t)(g / 2) * 64, 64, &gb);
		fprintf(f, "group %u ports", g);
		dump_ports(f, gb.ports[g % 2]);
		fputc('\n', f);
	}
	for (uint32_t b = 0; b < w->want_lft.n; b++) {
		ar_lft_block_decode(w->want_lft.data + (size_t)b * 64, 64, &lb);
		for (uint32_t k = 0; k < AR_LIDS_PER_BLOCK; k++)
			fprintf(f, "lid %u %s port %u group %u\n", b * AR_LIDS_PER_BLOCK + k,
				state_name(lb.e[k].state), lb.e[k].port, lb.e[k].group);
	}
}

/* The control socket's view of the switch, on one line. */
static void dump_json(FILE *f, const struct sm *sm, const struct sm_node *n)
{
	json_object *o = sm_ar_switch_json(sm, n);

	json_object_object_add(o, "group_table", sm_ar_groups_json(sm, n));
	fprintf(f, "json %s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static int dump_fill(FILE *f, const void *arg)
{
	const struct sm *sm = arg;
	const struct sm_ar *ar = sm->ar;

	for (size_t i = 0; i < ar->nsw; i++)
		if (ar->sw[i]->n) {
			dump_switch(f, ar->sw[i]);
			dump_json(f, sm, ar->sw[i]->n);
		}
	return ferror(f) ? -1 : 0;
}

static void phase_done(struct sm *sm)
{
	struct sm_ar *ar = sm->ar;
	char err[512];

	struct timespec now;

	if (ar && ar->t_phase.tv_sec) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		log_info("AR: phase took %.1f ms", clock_diff_ms(&ar->t_phase, &now));
		ar->t_phase.tv_sec = 0;
	}
	if (ar && ar->dump_path && atomic_write(ar->dump_path, dump_fill, sm, err, sizeof(err)) < 0)
		log_warnx("AR: cannot write the dump: %s", err);
	ar->done(sm);
}

/* --- JSON for the control socket --- */

json_object *sm_ar_switch_json(const struct sm *sm, const struct sm_node *n)
{
	const struct ar_sw *w = sw_find(sm->ar, n->guid);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "supported", !w || w->cap == CAP_UNKNOWN ? NULL :
				json_object_new_boolean(w->cap == CAP_YES));
	json_object_object_add(o, "reason", w && w->reason[0] ?
				json_object_new_string(w->reason) : NULL);
	json_object_object_add(o, "enabled", json_object_new_boolean(w && w->enabled));
	json_object_object_add(o, "last_error", w && w->last_error[0] ?
				json_object_new_string(w->last_error) : NULL);
	json_object_object_add(o, "errors", json_object_new_int64(w ? w->errors : 0));
	json_object_object_add(o, "group_cap", json_object_new_int(w && w->cap == CAP_YES ?
								   w->info.group_cap : 0));
	json_object_object_add(o, "groups", json_object_new_int(w && w->enabled ? w->want_top : 0));
	return o;
}

static uint64_t leaf_of(const struct sm_ar *ar, uint16_t id)
{
	for (size_t i = 0; i < ar->ids.n; i++)
		if (ar->ids.v[i].id == id)
			return ar->ids.v[i].guid;
	return 0;
}

json_object *sm_ar_groups_json(const struct sm *sm, const struct sm_node *n)
{
	const struct sm_ar *ar = sm->ar;
	json_object *a = json_object_new_array();
	const struct ar_sw_tables *st;
	char guid[24];

	if (!ar || !ar->have_at || n->idx >= ar->at.nnodes || ar->at_guids[n->idx] != n->guid)
		return a;
	st = &ar->at.sw[n->idx];
	for (uint32_t g = 1; st->groups && g <= ar->at.group_top; g++) {
		json_object *o, *ports;

		if (!ar_ports_count(&st->groups[g]))
			continue;
		o = json_object_new_object();
		ports = json_object_new_array();
		for (unsigned p = 0; p < 256; p++)
			if (ar_ports_has(&st->groups[g], p))
				json_object_array_add(ports, json_object_new_int((int)p));
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, leaf_of(ar, (uint16_t)g));
		json_object_object_add(o, "group", json_object_new_int((int)g));
		json_object_object_add(o, "leaf", json_object_new_string(guid));
		json_object_object_add(o, "ports", ports);
		json_object_array_add(a, o);
	}
	return a;
}

int sm_ar_choices(const struct sm *sm, const struct sm_node *n, uint16_t dlid, uint8_t *ports,
		  int max)
{
	const struct sm_ar *ar = sm->ar;
	const struct ar_sw *w = sw_find(ar, n->guid);
	const struct ar_sw_tables *st;
	const struct ar_entry *e;
	int k = 0;

	if (!w || !w->enabled || !ar->have_at || n->idx >= ar->at.nnodes ||
	    ar->at_guids[n->idx] != n->guid || dlid > ar->at.top)
		return -1;
	st = &ar->at.sw[n->idx];
	if (!st->lft)
		return -1;
	e = &st->lft[dlid];
	if (e->state == AR_STATE_STATIC || !e->group || e->group > ar->at.group_top) {
		if (max > 0)
			ports[k++] = e->port;
		return k;
	}
	for (unsigned p = 0; p < 256 && k < max; p++)
		if (ar_ports_has(&st->groups[e->group], p))
			ports[k++] = (uint8_t)p;
	return k;
}
