/*
 * DOC: the SA over the control socket: "sa" shows its counters (and the
 * state file of the hosts' groups, services and subscriptions, and a
 * standby's copy of the master's: sa/keep.h), "sa
 * query ATTR [FIELD=VALUE...]" asks it for records.
 *
 * A query runs through the SA's own record code (sa_query_local), as a
 * GetTable whose template holds the FIELD=VALUE pairs and whose component
 * mask has their bits; field names are those of the record's component
 * table (mad/sa_fields.c: LID, NodeGUID, NodeDescription, ...), matched
 * without regard to case. Whole tables come back: there is no MAD size
 * limit here, only sa_max_records for admins, CTL_SA_QUERY_MAX records
 * for other clients, and CTL_MAX_OUTQ bytes of JSON for all, counted as the
 * reply is built (past either: reply_too_large). Admin clients are trusted (M_Keys,
 * SM_Key, P_Key tables), others are not. Port tables the SA reads on
 * demand may still be on their way: the reply says how many, and asking
 * again gives them.
 *
 * Records are shown field by field from the same component table, plus
 * the contents that are not components (LFT ports, P_Keys, SL2VL, VLArb
 * entries, SwitchInfo, ClassPortInfo).
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctl/ctl_out.h"
#include "ctl/ctl_int.h"
#include "mad/sa.h"
#include "mad/sa_fields.h"
#include "sa/keep.h"
#include "sa/sa.h"
#include "sm/mcast.h"
#include "sm/sm.h"


/* --- fields in wire bytes --- */

static uint64_t get_bits(const uint8_t *rec, const struct sa_field *f)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < f->width; i++) {
		unsigned b = f->bit + i;

		v = (v << 1) | ((rec[f->off + b / 8] >> (7 - b % 8)) & 1);
	}
	return v;
}

static void set_bits(uint8_t *rec, const struct sa_field *f, uint64_t v)
{
	for (unsigned i = 0; i < f->width; i++) {
		unsigned b = f->bit + i;
		uint8_t m = (uint8_t)(1u << (7 - b % 8));

		if ((v >> (f->width - 1 - i)) & 1)
			rec[f->off + b / 8] |= m;
		else
			rec[f->off + b / 8] &= (uint8_t)~m;
	}
}

static json_object *gid_json(const uint8_t *gid)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, gid, buf, sizeof(buf));
	return JSTR(buf);
}

static json_object *text_json(const uint8_t *p, size_t n)
{
	char buf[65];
	size_t i;

	for (i = 0; i < n && i < 64 && p[i]; i++)
		buf[i] = isprint(p[i]) ? (char)p[i] : '?';
	buf[i] = '\0';
	return JSTR(buf);
}

static json_object *field_json(const uint8_t *rec, const struct sa_field *f)
{
	char buf[24];

	if (f->width == 128)
		return gid_json(rec + f->off);
	if (f->width > 64)
		return text_json(rec + f->off, f->width / 8);
	if (f->width == 64) {
		snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)get_bits(rec, f));
		return JSTR(buf);
	}
	return JINT(get_bits(rec, f));
}

/* --- what the components do not cover --- */

static json_object *u8_array(const uint8_t *p, unsigned n)
{
	json_object *a = json_object_new_array_ext((int)n);

	for (unsigned i = 0; i < n; i++)
		json_object_array_add(a, JINT(p[i]));
	return a;
}

static json_object *hex16_array(const uint8_t *p, unsigned n)
{
	json_object *a = json_object_new_array_ext((int)n);
	char buf[8];

	for (unsigned i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "0x%04x", (p[2 * i] << 8) | p[2 * i + 1]);
		json_object_array_add(a, JSTR(buf));
	}
	return a;
}

static void add_switch_info(json_object *o, const uint8_t *rec)
{
	struct sa_switch_info_rec r;

	if (sa_switch_info_rec_decode(rec, 24, &r) < 0)
		return;
	ADD(o, "LinearFDBCap", JINT(r.info.lin_cap));
	ADD(o, "RandomFDBCap", JINT(r.info.rand_cap));
	ADD(o, "MulticastFDBCap", JINT(r.info.mcast_cap));
	ADD(o, "LinearFDBTop", JINT(r.info.lin_top));
	ADD(o, "DefaultPort", JINT(r.info.def_port));
	ADD(o, "LifeTimeValue", JINT(r.info.life_time_value));
	ADD(o, "PortStateChange", JINT(r.info.port_state_change));
	ADD(o, "LIDsPerPort", JINT(r.info.lids_per_port));
	ADD(o, "PartitionEnforcementCap", JINT(r.info.partition_enf_cap));
	ADD(o, "MulticastFDBTop", JINT(r.info.mcast_top));
}

static void add_cpi(json_object *o, const uint8_t *rec)
{
	struct sa_class_port_info r;

	if (sa_class_port_info_decode(rec, 72, &r) < 0)
		return;
	ADD(o, "BaseVersion", JINT(r.base_version));
	ADD(o, "ClassVersion", JINT(r.class_version));
	ADD(o, "CapabilityMask", JINT(r.cap_mask));
	ADD(o, "CapabilityMask2", JINT(r.cap_mask2));
	ADD(o, "RespTimeValue", JINT(r.resp_time_value));
	ADD(o, "RedirectQP", JINT(r.redir_qp));
	ADD(o, "RedirectQ_Key", JINT(r.redir_qkey));
	ADD(o, "TrapQ_Key", JINT(r.trap_qkey));
}

static void add_vlarb(json_object *o, const uint8_t *rec)
{
	json_object *a = json_object_new_array_ext(32), *e;

	for (unsigned i = 0; i < 32; i++) {
		e = json_object_new_array_ext(2);
		json_object_array_add(e, JINT(rec[8 + 2 * i] & 0xF));
		json_object_array_add(e, JINT(rec[9 + 2 * i]));
		json_object_array_add(a, e);
	}
	ADD(o, "entries", a);
}

static void add_sl2vl(json_object *o, const uint8_t *rec)
{
	uint8_t vl[16];

	for (unsigned i = 0; i < 8; i++) {
		vl[2 * i] = rec[8 + i] >> 4;
		vl[2 * i + 1] = rec[8 + i] & 0xF;
	}
	ADD(o, "vl", u8_array(vl, 16));
}

static void add_extras(json_object *o, uint16_t attr, const uint8_t *rec)
{
	switch (attr) {
	case SA_ATTR_CLASS_PORT_INFO: add_cpi(o, rec); break;
	case SA_ATTR_SWITCH_INFO_REC: add_switch_info(o, rec); break;
	case SA_ATTR_LFT_REC: ADD(o, "ports", u8_array(rec + 8, 64)); break;
	case SA_ATTR_MFT_REC: ADD(o, "port_masks", hex16_array(rec + 8, 32)); break;
	case SA_ATTR_PKEY_REC: ADD(o, "pkeys", hex16_array(rec + 8, 32)); break;
	case SA_ATTR_SL2VL_REC: add_sl2vl(o, rec); break;
	case SA_ATTR_VLARB_REC: add_vlarb(o, rec); break;
	default: break;
	}
}

static json_object *record_json(uint16_t attr, const struct sa_rec_desc *d, const uint8_t *rec)
{
	json_object *o = json_object_new_object();

	for (unsigned i = 0; d && i < d->nfields; i++)
		if (strcmp(d->fields[i].name, "reserved"))
			ADD(o, d->fields[i].name, field_json(rec, &d->fields[i]));
	add_extras(o, attr, rec);
	return o;
}

/* --- the template from FIELD=VALUE arguments --- */

static const struct sa_field *field_named(const struct sa_rec_desc *d, const char *name,
					  unsigned *bit)
{
	for (unsigned i = 0; d && i < d->nfields; i++)
		if (!strcasecmp(d->fields[i].name, name) && strcmp(d->fields[i].name, "reserved")) {
			*bit = i;
			return &d->fields[i];
		}
	return NULL;
}

/* A number: decimal or 0x hex, fitting width bits. */
static int parse_num(json_object *v, unsigned width, uint64_t *out)
{
	const char *s = json_object_get_string(v);
	char *end;

	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return -1;
		*out = (uint64_t)json_object_get_int64(v);
	} else {
		errno = 0;
		*out = strtoull(s, &end, 0);
		if (errno || end == s || *end || s[0] == '-')
			return -1;
	}
	return width < 64 && *out >> width ? -1 : 0;
}

static int set_field(uint8_t *tmpl, const struct sa_field *f, json_object *v)
{
	const char *s = json_object_get_string(v);
	uint64_t n;

	if (f->width == 128)   /* a GID, as IPv6 text */
		return inet_pton(AF_INET6, s, tmpl + f->off) == 1 ? 0 : -1;
	if (f->width > 64) {   /* text, NUL-padded */
		if (strlen(s) > f->width / 8)
			return -1;
		memset(tmpl + f->off, 0, f->width / 8);
		memcpy(tmpl + f->off, s, strlen(s));
		return 0;
	}
	if (parse_num(v, f->width, &n) < 0)
		return -1;
	set_bits(tmpl, f, n);
	return 0;
}

static bool is_control_arg(const char *key)
{
	return !strcmp(key, "what") || !strcmp(key, "attr") || !strcmp(key, "modifier");
}

static int build_template(struct ctl_call *c, const struct sa_rec_desc *d, const char *attr,
			  uint8_t *tmpl, uint64_t *mask)
{
	json_object_object_foreach(c->args, key, val) {
		const struct sa_field *f;
		unsigned bit;

		if (is_control_arg(key))
			continue;
		if (!(f = field_named(d, key, &bit))) {
			ctl_fail_field(c, CTL_E_invalid_args, key, "%s has no field \"%.40s\"", attr,
				       key);
			return -1;
		}
		if (set_field(tmpl, f, val) < 0) {
			ctl_fail_field(c, CTL_E_invalid_args, key, "bad value for %s (%u bits)", f->name,
				       f->width);
			return -1;
		}
		*mask |= 1ull << bit;
	}
	return 0;
}

/* --- the commands --- */

/* Records one reply may hold for this client. */
static unsigned query_max(const struct ctl_call *c)
{
	unsigned conf = c->sm->conf.sa_max_records;

	return c->cl->admin || (conf && conf < CTL_SA_QUERY_MAX) ? conf : CTL_SA_QUERY_MAX;
}

/* The records as JSON, within CTL_MAX_OUTQ bytes (less room for the rest
 * of the reply): -1 past it, when *out is not set. */
static int records_json(json_object **out, uint16_t attr, const struct sa_rec_desc *d,
			const struct sa_result *r)
{
	struct ctl_capped cap;

	ctl_capped_init(&cap, CTL_MAX_OUTQ - 1024);
	for (uint32_t i = 0; i < r->n; i++) {
		if (ctl_capped_add(&cap, record_json(attr, d, r->recs + (size_t)i * r->padded)) < 0) {
			json_object_put(cap.arr);
			return -1;
		}
	}
	*out = cap.arr;
	return 0;
}

static enum ctl_ret sa_query(struct ctl_call *c, json_object **res)
{
	const char *attr = NULL, *mod = NULL;
	const struct sa_attr_name *an;
	const struct sa_rec_desc *d;
	uint8_t tmpl[512] = { 0 };
	uint64_t mask = 0, m = 0;
	struct sa_result r;
	json_object *a;

	if (ctl_arg_str(c, "attr", &attr) < 0 || ctl_arg_str(c, "modifier", &mod) < 0)
		return CTL_ERROR;
	if (!attr || !(an = sa_attr_lookup(attr)))
		return ctl_fail_field(c, CTL_E_invalid_args, "attr", "which attribute? (NR, PIR, LR, SWIR, LFTR, "
				"MFTR, GIR, PKTR, SL2VL, VLAR, SMIR, PR, SR, IIR, CPI)");
	d = sa_rec_desc_find(an->id);
	if (build_template(c, d, an->name, tmpl, &mask) < 0)
		return CTL_ERROR;
	if (mod && parse_num(json_object_object_get(c->args, "modifier"), 32, &m) < 0)
		return ctl_fail_field(c, CTL_E_invalid_args, "modifier", "bad modifier");
	sa_query_local(c->sm->sa, an->id, (uint32_t)m, mask, tmpl, sizeof(tmpl), c->cl->admin,
		       c->cl->admin ? 0 : CTL_SA_QUERY_MAX, &r);
	if (r.status == SA_STATUS_TOO_MANY_RECORDS)
		return ctl_fail(c, CTL_E_reply_too_large, "more than %u records, the most one reply "
				"holds%s: narrow the query with FIELD=VALUE",
				query_max(c), c->cl->admin ? " (sa_max_records)" : " without admin rights");
	if (r.status)
		return ctl_fail(c, CTL_E_failed, "SA status 0x%04x %s", r.status,
				sa_status_name(r.status));
	if (records_json(&a, an->id, d, &r) < 0) {
		sa_result_free(&r);
		return ctl_fail(c, CTL_E_reply_too_large, "the reply would pass %u bytes: narrow "
				"the query with FIELD=VALUE", CTL_MAX_OUTQ);
	}
	*res = json_object_new_object();
	ADD(*res, "attribute", JSTR(an->name));
	ADD(*res, "count", JINT(r.n));
	ADD(*res, "trusted", json_object_new_boolean(c->cl->admin));
	ADD(*res, "pending", JINT(r.pending));
	if (r.pending)
		ADD(*res, "note", JSTR("port tables are being read from the ports: ask again"));
	ADD(*res, "records", a);
	sa_result_free(&r);
	return CTL_DONE;
}

static json_object *totals_json(const struct sa_stats *st)
{
	json_object *o = json_object_new_object();

	ADD(o, "received", JINT(st->received));
	ADD(o, "not_master", JINT(st->not_master));
	ADD(o, "malformed", JINT(st->malformed));
	ADD(o, "unexpected", JINT(st->unexpected));
	ADD(o, "denied", JINT(st->denied));
	ADD(o, "busy", JINT(st->busy));
	ADD(o, "already_answered", JINT(st->already));
	ADD(o, "send_failed", JINT(st->send_failed));
	ADD(o, "parked", JINT(st->parked));
	ADD(o, "pending", JINT(st->pending));
	ADD(o, "port_table_reads", JINT(st->smp_reads));
	ADD(o, "reports_sent", JINT(st->reports_sent));
	ADD(o, "reports_acked", JINT(st->reports_acked));
	ADD(o, "reports_dropped", JINT(st->reports_dropped));
	ADD(o, "subscribers_dropped", JINT(st->subscribers_dropped));
	ADD(o, "notices_dropped", JINT(st->notices_dropped));
	ADD(o, "departed", JINT(st->departed));
	ADD(o, "subscriptions", JINT(st->subscriptions));
	ADD(o, "services", JINT(st->services));
	return o;
}

/* Requests refused for a limit, by reason: the SA's and the multicast
 * groups' (sm/mcshare.h). */
static json_object *refused_json(const struct sm *sm, const struct sa_stats *st)
{
	const struct mc_shares *sh = sm->mcast ? mcdb_shares(sm_mcast_db(sm)) : NULL;
	json_object *o = json_object_new_object();

	for (int r = MC_REF_NONE + 1; r < MC_REF_N; r++)
		ADD(o, mc_refusal_name((enum mc_refusal)r), JINT(sh ? sh->refused[r] : 0));
	for (int r = 0; r < SA_REF_N; r++)
		ADD(o, sa_refusal_name((enum sa_refusal)r), JINT(st->refused[r]));
	return o;
}

static enum ctl_ret sa_counters(struct ctl_call *c, json_object **res)
{
	struct sa_attr_stats as[32];
	struct sa_stats st;
	size_t total, n = sa_get_attr_stats(c->sm->sa, as, 32, &total);
	json_object *a = json_object_new_array_ext((int)n), *o;

	for (size_t i = 0; i < n; i++) {
		o = json_object_new_object();
		ADD(o, "attribute", JSTR(as[i].name));
		ADD(o, "requests", JINT(as[i].requests));
		ADD(o, "errors", JINT(as[i].errors));
		ADD(o, "records", JINT(as[i].records));
		ADD(o, "p50_us", JINT(as[i].p50_us));
		ADD(o, "p99_us", JINT(as[i].p99_us));
		json_object_array_add(a, o);
	}
	sa_get_stats(c->sm->sa, &st);
	*res = json_object_new_object();
	ADD(*res, "serving", json_object_new_boolean(sm_is_master(c->sm)));
	ADD(*res, "totals", totals_json(&st));
	ADD(*res, "refused", refused_json(c->sm, &st));
	ADD(*res, "clients", sa_keep_json(c->sm));
	ADD(*res, "attributes", a);
	return CTL_DONE;
}

/* The command table's spec for "sa" takes any argument name ("*", for
 * the record fields); the counters take only "what", so any other name is
 * refused here as the generic check refuses it for other commands. */
static enum ctl_ret counters_args(struct ctl_call *c)
{
	json_object_object_foreach(c->args, key, val) {
		(void)val;
		if (strcmp(key, "what"))
			return ctl_fail_field(c, CTL_E_invalid_args, key,
					      "sa takes no argument \"%.64s\" (only sa query takes "
					      "FIELD=VALUE)", key);
	}
	return CTL_DONE;
}

enum ctl_ret cmd_sa(struct ctl_call *c, json_object **res)
{
	const char *what = NULL;

	if (ctl_arg_str(c, "what", &what) < 0)
		return CTL_ERROR;
	if (!c->sm->sa)
		return ctl_fail(c, CTL_E_not_ready, "the SA is not running");
	if (json_object_object_get_ex(c->args, "*", NULL))
		return ctl_fail_field(c, CTL_E_invalid_args, "*",
				      "after the attribute: FIELD=VALUE pairs");
	if (!what || !strcmp(what, "counters"))
		return counters_args(c) == CTL_DONE ? sa_counters(c, res) : CTL_ERROR;
	if (!strcmp(what, "query"))
		return sa_query(c, res);
	return ctl_fail_field(c, CTL_E_invalid_args, "what",
			      "sa [counters] | sa query ATTR [FIELD=VALUE...]");
}
