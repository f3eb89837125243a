/*
 * DOC: the clients state file (format in clientfile.h).
 *
 * The parser reads a line at a time into the value, checking each field
 * against the range of what it goes into and the counts against the
 * limits as it goes, so a huge or hostile file costs at most the limits;
 * client_state_check() then checks the rules between lines (order, no
 * repeats, trees, per-port counts). The same check serves values built
 * from elsewhere (a standby's copy of the master's groups).
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/mcast.h"
#include "sm/atomic.h"
#include "sm/clientfile.h"
#include "sm/log.h"
#include "sm/mcdb.h"
#include "sm/pkeyset.h"

#define CF_MAGIC "ibsmd-clients 2"
#define CF_MAGIC_V1 "ibsmd-clients 1"   /* no creators and makers */
#define CF_NAME "clients"
#define CF_MAX_FILE (256u << 20)
#define CF_MAX_TOKENS 26
#define MAX_UCAST_LID 0xBFFF

enum { K_GROUP, K_MEMBER, K_TSW, K_SERVICE, K_SUB };

void client_limits_default(struct client_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->groups = MCAST_MLID_MAX - MCAST_MLID_MIN + 1;
	l->members = 1u << 22;
	l->tsw = 1u << 24;
	l->services = 4096;
	l->subs = 1024;
}

void client_state_init(struct client_state *cs)
{
	memset(cs, 0, sizeof(*cs));
}

void client_state_free(struct client_state *cs)
{
	free(cs->groups);
	free(cs->members);
	free(cs->tsw);
	free(cs->services);
	free(cs->subs);
	client_state_init(cs);
}

/* Room for one more element of array kind k. */
static void *grow(struct client_state *cs, int k, void **arr, size_t n, size_t size)
{
	if (n == cs->cap[k]) {
		cs->cap[k] = cs->cap[k] ? 2 * cs->cap[k] : 16;
		*arr = xrealloc(*arr, cs->cap[k] * size);
	}
	return (char *)*arr + n * size;
}

struct cf_group *client_add_group(struct client_state *cs, const struct sa_mcmember_rec *rec,
				  bool well_known, uint64_t creator)
{
	struct cf_group *g = grow(cs, K_GROUP, (void **)&cs->groups, cs->ngroups, sizeof(*g));

	memset(g, 0, sizeof(*g));
	g->rec = *rec;
	memset(g->rec.port_gid, 0, 16);
	g->rec.join_state = g->rec.proxy_join = 0;
	g->well_known = well_known;
	g->creator = creator;
	g->member0 = cs->nmembers;
	g->tsw0 = cs->ntsw;
	cs->ngroups++;
	return g;
}

void client_add_member(struct client_state *cs, uint64_t guid, uint8_t join_state, bool proxy,
		       uint64_t by)
{
	struct cf_member *m = grow(cs, K_MEMBER, (void **)&cs->members, cs->nmembers, sizeof(*m));

	*m = (struct cf_member){ guid, join_state, proxy, by };
	cs->nmembers++;
	cs->groups[cs->ngroups - 1].nmembers++;
}

void client_add_tsw(struct client_state *cs, uint64_t guid, uint32_t parent, uint8_t up)
{
	struct cf_tsw *t = grow(cs, K_TSW, (void **)&cs->tsw, cs->ntsw, sizeof(*t));

	*t = (struct cf_tsw){ guid, parent, up };
	cs->ntsw++;
	cs->groups[cs->ngroups - 1].ntsw++;
}

struct cf_service *client_add_service(struct client_state *cs)
{
	struct cf_service *s = grow(cs, K_SERVICE, (void **)&cs->services, cs->nservices,
				    sizeof(*s));

	memset(s, 0, sizeof(*s));
	cs->nservices++;
	return s;
}

struct cf_sub *client_add_sub(struct client_state *cs)
{
	struct cf_sub *u = grow(cs, K_SUB, (void **)&cs->subs, cs->nsubs, sizeof(*u));

	memset(u, 0, sizeof(*u));
	cs->nsubs++;
	return u;
}

/* --- writing ------------------------------------------------------------------------- */

static void put_hex(FILE *f, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static void put_group(FILE *f, const struct client_state *cs, const struct cf_group *g)
{
	const struct sa_mcmember_rec *r = &g->rec;

	fputs("group ", f);
	put_hex(f, r->mgid, 16);
	fprintf(f, " 0x%04x 0x%08x 0x%04x %u %u %u %u %u 0x%05x %u %u %d 0x%016" PRIx64 "\n",
		r->mlid, r->qkey, r->pkey, r->mtu, r->rate, r->pkt_life, r->sl, r->tclass,
		r->flow_label, r->hop_limit, r->scope, g->well_known, g->creator);
	for (size_t i = 0; i < g->nmembers; i++) {
		const struct cf_member *m = &cs->members[g->member0 + i];

		fprintf(f, "member 0x%016" PRIx64 " %u %d 0x%016" PRIx64 "\n", m->guid,
			m->join_state, m->proxy, m->by);
	}
	for (size_t i = 0; i < g->ntsw; i++) {
		const struct cf_tsw *t = &cs->tsw[g->tsw0 + i];

		if (i == 0)
			fprintf(f, "tree 0x%016" PRIx64 "\n", t->guid);
		else
			fprintf(f, "tsw 0x%016" PRIx64 " %u %u\n", t->guid, t->up, t->parent);
	}
}

static void put_service(FILE *f, const struct cf_service *s)
{
	fputs("service ", f);
	put_hex(f, s->rec, CLIENT_SR_SIZE);
	fprintf(f, " 0x%016" PRIx64 " %u ", s->owner_guid, s->owner_lid);
	if (s->lease_end_ms == CLIENT_NEVER)
		fputs("never\n", f);
	else
		fprintf(f, "%" PRIu64 "\n", s->lease_end_ms);
}

static void put_sub(FILE *f, const struct cf_sub *u)
{
	const struct sa_inform_info *ii = &u->ii;
	const struct mad_addr *a = &u->to;

	fputs("sub ", f);
	put_hex(f, u->gid, 16);
	fprintf(f, " %u %u ", u->id, u->lid);
	put_hex(f, ii->gid, 16);
	fprintf(f, " %u %u %u %u %u %u %u %u", ii->lid_begin, ii->lid_end, ii->is_generic, ii->type,
		ii->trap_num, ii->qpn, ii->resp_time_value, ii->producer_type);
	fprintf(f, " %u %u 0x%08x %u %u %u %u %u %u %u ", a->dlid, a->qpn, a->qkey, a->sl,
		a->pkey_index, a->grh_present, a->gid_index, a->hop_limit, a->traffic_class,
		a->flow_label);
	put_hex(f, a->gid, 16);
	fputc('\n', f);
}

char *client_state_format(const struct client_state *cs, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		fatal("open_memstream");
	fprintf(f, "%s\nsm 0x%016" PRIx64 " 0x%016" PRIx64 " %" PRIu64 "\n", CF_MAGIC, cs->sm_guid,
		cs->subnet_prefix, cs->written_ms);
	for (size_t i = 0; i < cs->ngroups; i++)
		put_group(f, cs, &cs->groups[i]);
	for (size_t i = 0; i < cs->nservices; i++)
		put_service(f, &cs->services[i]);
	for (size_t i = 0; i < cs->nsubs; i++)
		put_sub(f, &cs->subs[i]);
	fprintf(f, "end %zu %zu %zu %zu %zu\n", cs->ngroups, cs->nmembers, cs->ntsw, cs->nservices,
		cs->nsubs);
	if (fclose(f) != 0)
		fatal("open_memstream");
	return buf;
}

/* --- fields --------------------------------------------------------------------------- */

static int hexdig(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "0x" and 1..16 hex digits, at most max. */
static bool get_hex(const char *t, uint64_t max, uint64_t *v)
{
	size_t n = strlen(t);

	if (n < 3 || n > 18 || t[0] != '0' || t[1] != 'x')
		return false;
	*v = 0;
	for (size_t i = 2; i < n; i++) {
		if (hexdig(t[i]) < 0)
			return false;
		*v = *v << 4 | (uint64_t)hexdig(t[i]);
	}
	return *v <= max;
}

/* 1..20 decimal digits, at most max. */
static bool get_dec(const char *t, uint64_t max, uint64_t *v)
{
	size_t n = strlen(t);

	if (n < 1 || n > 20)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9' || *v > (UINT64_MAX - 9) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(t[i] - '0');
	}
	return *v <= max;
}

static bool get_bytes(const char *t, uint8_t *out, size_t n)
{
	if (strlen(t) != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		int hi = hexdig(t[2 * i]), lo = hexdig(t[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

/* One line cut at single spaces. */
struct line {
	char *tok[CF_MAX_TOKENS];
	size_t n;
	size_t no;          /* line number */
};

static bool split(char *s, struct line *l)
{
	l->n = 0;
	for (char *p = s;; p++) {
		if (l->n == CF_MAX_TOKENS)
			return false;
		l->tok[l->n++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p = '\0';
		if (p[1] == '\0' || p[1] == ' ')
			return false;
	}
	return l->tok[0][0] != '\0';
}

/* A row of numeric fields: kind 'x' hex, 'd' decimal, each with its max. */
struct field {
	char kind;
	uint64_t max;
	uint64_t *out;
};

static bool get_fields(char *const *tok, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(f[i].kind == 'x' ? get_hex : get_dec)(tok[i], f[i].max, f[i].out))
			return false;
	return true;
}

/* --- parsing ---------------------------------------------------------------------------- */

struct parse {
	struct client_state *cs;
	const struct client_limits *lim;
	const char *name;
	char *err;
	size_t errlen;
	size_t lineno;
	bool ended, have_sm, in_tree;
	bool v1;            /* version 1: no creators and makers */
};

/* "where: message" into err; -1. */
static int verr(char *err, size_t errlen, const char *where, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static int verr(char *err, size_t errlen, const char *where, const char *fmt, va_list ap)
{
	char msg[200];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(err, errlen, "%s: %s", where, msg);
	return -1;
}

static int perr(struct parse *p, const char *fmt, ...) LOG_PRINTF(2, 3);
static int perr(struct parse *p, const char *fmt, ...)
{
	char where[300];
	va_list ap;
	int rc;

	snprintf(where, sizeof(where), "%s:%zu", p->name, p->lineno);
	va_start(ap, fmt);
	rc = verr(p->err, p->errlen, where, fmt, ap);
	va_end(ap);
	return rc;
}

static bool over(size_t n, size_t limit)
{
	return limit && n >= limit;
}

static int parse_sm(struct parse *p, const struct line *l)
{
	struct field f[] = {
		{ 'x', UINT64_MAX, &p->cs->sm_guid }, { 'x', UINT64_MAX, &p->cs->subnet_prefix },
		{ 'd', UINT64_MAX, &p->cs->written_ms },
	};

	if (l->n != 4 || p->have_sm || !get_fields(l->tok + 1, f, 3))
		return perr(p, "expected \"sm 0xGUID 0xPREFIX MS\" once, before the rest");
	p->have_sm = true;
	return 0;
}

static int parse_group(struct parse *p, const struct line *l)
{
	uint64_t v[13] = { 0 };
	struct field f[] = {
		{ 'x', 0xFFFF, &v[0] }, { 'x', UINT32_MAX, &v[1] }, { 'x', 0xFFFF, &v[2] },
		{ 'd', 255, &v[3] }, { 'd', 255, &v[4] }, { 'd', 255, &v[5] }, { 'd', 255, &v[6] },
		{ 'd', 255, &v[7] }, { 'x', 0xFFFFF, &v[8] }, { 'd', 255, &v[9] }, { 'd', 255, &v[10] },
		{ 'd', 1, &v[11] }, { 'x', UINT64_MAX, &v[12] },
	};
	size_t nf = p->v1 ? 12 : 13;
	struct sa_mcmember_rec r;

	memset(&r, 0, sizeof(r));
	if (l->n != nf + 2 || !get_bytes(l->tok[1], r.mgid, 16) || !get_fields(l->tok + 2, f, nf))
		return perr(p, "expected \"group MGID 0xMLID 0xQKEY 0xPKEY MTU RATE LIFE SL TCLASS "
			    "0xFLOW HOP SCOPE WELLKNOWN%s\"", p->v1 ? "" : " 0xCREATOR");
	if (over(p->cs->ngroups, p->lim->groups))
		return perr(p, "more than %zu groups", p->lim->groups);
	r.mlid = (uint16_t)v[0];
	r.qkey = (uint32_t)v[1];
	r.pkey = (uint16_t)v[2];
	r.mtu = (uint8_t)v[3];
	r.rate = (uint8_t)v[4];
	r.pkt_life = (uint8_t)v[5];
	r.sl = (uint8_t)v[6];
	r.tclass = (uint8_t)v[7];
	r.flow_label = (uint32_t)v[8];
	r.hop_limit = (uint8_t)v[9];
	r.scope = (uint8_t)v[10];
	r.mtu_sel = r.rate_sel = r.pkt_life_sel = 2;
	client_add_group(p->cs, &r, v[11], v[12]);
	p->in_tree = false;
	return 0;
}

static int parse_member(struct parse *p, const struct line *l)
{
	uint64_t guid, js, proxy, by = 0;
	struct field f[] = { { 'x', UINT64_MAX, &guid }, { 'd', 255, &js }, { 'd', 1, &proxy },
			     { 'x', UINT64_MAX, &by } };
	size_t nf = p->v1 ? 3 : 4;

	if (l->n != nf + 1 || !get_fields(l->tok + 1, f, nf))
		return perr(p, "expected \"member 0xGUID JOINSTATE PROXY%s\"", p->v1 ? "" : " 0xMAKER");
	if (p->v1 && !proxy)
		by = guid;   /* version 1: a member that joined itself made it */
	if (!p->cs->ngroups || p->in_tree)
		return perr(p, "a member outside a group, or after its tree");
	if (over(p->cs->nmembers, p->lim->members))
		return perr(p, "more than %zu members", p->lim->members);
	client_add_member(p->cs, guid, (uint8_t)js, proxy, by);
	return 0;
}

static int parse_tree(struct parse *p, const struct line *l)
{
	uint64_t guid, up = 0, parent = CLIENT_NO_PARENT;
	bool root = !strcmp(l->tok[0], "tree");
	struct field f[] = { { 'x', UINT64_MAX, &guid }, { 'd', 255, &up },
			     { 'd', UINT32_MAX - 1, &parent } };

	if (l->n != (root ? 2u : 4u) || !get_fields(l->tok + 1, f, l->n - 1))
		return perr(p, root ? "expected \"tree 0xGUID\"" : "expected \"tsw 0xGUID UP PARENT\"");
	if (!p->cs->ngroups || root == p->in_tree)
		return perr(p, root ? "a tree outside a group, or twice" : "a tsw outside a tree");
	if (over(p->cs->ntsw, p->lim->tsw))
		return perr(p, "more than %zu tree entries", p->lim->tsw);
	client_add_tsw(p->cs, guid, (uint32_t)parent, (uint8_t)up);
	p->in_tree = true;
	return 0;
}

static int parse_service(struct parse *p, const struct line *l)
{
	uint64_t guid, lid, end = CLIENT_NEVER;
	struct field f[] = { { 'x', UINT64_MAX, &guid }, { 'd', MAX_UCAST_LID, &lid } };
	uint8_t rec[CLIENT_SR_SIZE];
	struct cf_service *s;

	if (l->n != 5 || !get_bytes(l->tok[1], rec, sizeof(rec)) || !get_fields(l->tok + 2, f, 2) ||
	    (strcmp(l->tok[4], "never") && !get_dec(l->tok[4], UINT64_MAX - 1, &end)))
		return perr(p, "expected \"service RECORD 0xOWNER LID END|never\"");
	if (over(p->cs->nservices, p->lim->services))
		return perr(p, "more than %zu services", p->lim->services);
	s = client_add_service(p->cs);
	memcpy(s->rec, rec, sizeof(rec));
	s->owner_guid = guid;
	s->owner_lid = (uint16_t)lid;
	s->lease_end_ms = end;
	return 0;
}

static bool sub_fields(char *const *tok, struct cf_sub *u)
{
	uint64_t v[19];
	struct field f1[] = { { 'd', 0xFFFF, &v[0] }, { 'd', MAX_UCAST_LID, &v[1] } };
	struct field f2[] = {
		{ 'd', 0xFFFF, &v[2] }, { 'd', 0xFFFF, &v[3] }, { 'd', 1, &v[4] },
		{ 'd', 0xFFFF, &v[5] }, { 'd', 0xFFFF, &v[6] }, { 'd', 0xFFFFFF, &v[7] },
		{ 'd', 31, &v[8] }, { 'd', 0xFFFFFF, &v[9] },
		{ 'd', MAX_UCAST_LID, &v[10] }, { 'd', 0xFFFFFF, &v[11] }, { 'x', UINT32_MAX, &v[12] },
		{ 'd', 15, &v[13] }, { 'd', 0xFFFF, &v[14] }, { 'd', 1, &v[15] }, { 'd', 255, &v[16] },
		{ 'd', 255, &v[17] }, { 'd', 255, &v[18] },
	};
	uint64_t flow;

	if (!get_bytes(tok[0], u->gid, 16) || !get_fields(tok + 1, f1, 2) ||
	    !get_bytes(tok[3], u->ii.gid, 16) || !get_fields(tok + 4, f2, 17) ||
	    !get_dec(tok[21], 0xFFFFF, &flow) || !get_bytes(tok[22], u->to.gid, 16))
		return false;
	u->id = (uint16_t)v[0];
	u->lid = (uint16_t)v[1];
	u->ii.lid_begin = (uint16_t)v[2];
	u->ii.lid_end = (uint16_t)v[3];
	u->ii.is_generic = (uint8_t)v[4];
	u->ii.subscribe = 1;
	u->ii.type = (uint16_t)v[5];
	u->ii.trap_num = (uint16_t)v[6];
	u->ii.qpn = (uint32_t)v[7];
	u->ii.resp_time_value = (uint8_t)v[8];
	u->ii.producer_type = (uint32_t)v[9];
	u->to.dlid = (uint16_t)v[10];
	u->to.qpn = (uint32_t)v[11];
	u->to.qkey = (uint32_t)v[12];
	u->to.sl = (uint8_t)v[13];
	u->to.pkey_index = (uint16_t)v[14];
	u->to.grh_present = (uint8_t)v[15];
	u->to.gid_index = (uint8_t)v[16];
	u->to.hop_limit = (uint8_t)v[17];
	u->to.traffic_class = (uint8_t)v[18];
	u->to.flow_label = (uint32_t)flow;
	return true;
}

static int parse_sub(struct parse *p, const struct line *l)
{
	struct cf_sub u;

	memset(&u, 0, sizeof(u));
	if (l->n != 24 || !sub_fields(l->tok + 1, &u))
		return perr(p, "expected \"sub GID ENUM LID\" + 9 InformInfo + 11 address fields");
	if (over(p->cs->nsubs, p->lim->subs))
		return perr(p, "more than %zu subscriptions", p->lim->subs);
	*client_add_sub(p->cs) = u;
	return 0;
}

static int parse_end(struct parse *p, const struct line *l)
{
	const struct client_state *cs = p->cs;
	uint64_t v[5];
	struct field f[5];

	for (int i = 0; i < 5; i++)
		f[i] = (struct field){ 'd', UINT64_MAX, &v[i] };
	if (l->n != 6 || !get_fields(l->tok + 1, f, 5))
		return perr(p, "expected \"end GROUPS MEMBERS TREE-ENTRIES SERVICES SUBSCRIPTIONS\"");
	if (v[0] != cs->ngroups || v[1] != cs->nmembers || v[2] != cs->ntsw ||
	    v[3] != cs->nservices || v[4] != cs->nsubs)
		return perr(p, "the counts do not match what came before (cut short?)");
	p->ended = true;
	return 0;
}

static int parse_line(struct parse *p, char *s)
{
	static const struct {
		const char *kw;
		int (*fn)(struct parse *, const struct line *);
	} kinds[] = {
		{ "sm", parse_sm }, { "group", parse_group }, { "member", parse_member },
		{ "tree", parse_tree }, { "tsw", parse_tree }, { "service", parse_service },
		{ "sub", parse_sub }, { "end", parse_end },
	};
	struct line l;

	if (p->ended)
		return perr(p, "text after the end line");
	if (!split(s, &l))
		return perr(p, "not fields separated by single spaces");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(l.tok[0], kinds[i].kw))
			continue;
		if (i > 0 && !p->have_sm)
			return perr(p, "expected the sm line first");
		return kinds[i].fn(p, &l);
	}
	return perr(p, "unknown line \"%.20s\"", l.tok[0]);
}

static int parse_text(struct parse *p, char *text)
{
	char *line = text, *nl;

	p->lineno = 1;
	for (; *line; line = nl + 1) {
		p->lineno++;
		nl = strchr(line, '\n');
		if (!nl)
			return perr(p, "the last line has no newline (cut short?)");
		*nl = '\0';
		if (parse_line(p, line) < 0)
			return -1;
	}
	if (!p->ended)
		return perr(p, "no end line (cut short?)");
	return 0;
}

int client_state_parse(struct client_state *cs, const char *name, const char *buf, size_t len,
		       const struct client_limits *lim, char *err, size_t errlen)
{
	struct parse p = { cs, lim, name, err, errlen, 1, false, false, false, false };
	size_t mlen = strlen(CF_MAGIC);
	char *text;
	int rc;

	client_state_init(cs);
	p.v1 = len > mlen && !memcmp(buf, CF_MAGIC_V1, mlen);
	if (len <= mlen || (memcmp(buf, CF_MAGIC, mlen) && !p.v1) || buf[mlen] != '\n') {
		snprintf(err, errlen, "%s:1: not an ibsmd clients file (expected \"%s\")", name,
			 CF_MAGIC);
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "%s: a NUL byte: not a text file", name);
		return -1;
	}
	text = xmalloc(len - mlen);
	memcpy(text, buf + mlen + 1, len - mlen - 1);
	text[len - mlen - 1] = '\0';
	rc = parse_text(&p, text);
	free(text);
	if (rc == 0)
		rc = client_state_check(cs, lim, name, err, errlen);
	if (rc < 0)
		client_state_free(cs);
	return rc;
}

/* --- the rules between lines ------------------------------------------------------------ */

struct check {
	const char *name;
	char *err;
	size_t errlen;
};

static int cerr(struct check *c, const char *fmt, ...) LOG_PRINTF(2, 3);
static int cerr(struct check *c, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verr(c->err, c->errlen, c->name, fmt, ap);
	va_end(ap);
	return rc;
}

static const char *mgid_str(const uint8_t mgid[16], char buf[40])
{
	for (int i = 0; i < 8; i++)
		snprintf(buf + 5 * i, 6, "%02x%02x%s", mgid[2 * i], mgid[2 * i + 1], i < 7 ? ":" : "");
	return buf;
}

/* The group's own fields: what the SA could have made (mcdb.h). */
static bool params_ok(const struct sa_mcmember_rec *r)
{
	return r->mgid[0] == 0xff && r->mlid >= MCAST_MLID_MIN && r->mlid <= MCAST_MLID_MAX &&
	       pkey_valid(r->pkey) && r->mtu >= 1 && r->mtu <= 5 && mc_rate_valid(r->rate) &&
	       r->pkt_life <= 63 && r->sl <= 15 && r->scope <= 15 && r->flow_label <= 0xFFFFF;
}

static int check_members(struct check *c, const struct client_state *cs, const struct cf_group *g)
{
	const struct cf_member *m = cs->members + g->member0;
	char b[40];

	for (size_t i = 0; i < g->nmembers; i++) {
		if (!m[i].guid || !m[i].join_state || m[i].join_state > 15)
			return cerr(c, "group %s: member %zu: zero GUID or JoinState not 1..15",
				    mgid_str(g->rec.mgid, b), i);
		if (i && m[i].guid <= m[i - 1].guid)
			return cerr(c, "group %s: members not in GUID order, or twice",
				    mgid_str(g->rec.mgid, b));
	}
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The longest run of equal non-zero values in v (sorted in place). */
static size_t max_run(uint64_t *v, size_t n)
{
	size_t best = 0, run = 0;

	qsort(v, n, sizeof(*v), u64_cmp);
	for (size_t i = 0; i < n; i++) {
		run = i && v[i] == v[i - 1] ? run + 1 : 1;
		best = run > best && v[i] ? run : best;
	}
	return best;
}

/* Entry 0 the root, every other entry on an earlier one through a port,
 * each switch once. */
static int check_tree(struct check *c, const struct client_state *cs, const struct cf_group *g)
{
	const struct cf_tsw *t = cs->tsw + g->tsw0;
	uint64_t *guids = xcalloc(g->ntsw + 1, sizeof(*guids));
	bool ok = !g->ntsw || (t[0].guid && t[0].parent == CLIENT_NO_PARENT && !t[0].up);
	char b[40];

	for (size_t i = 0; i < g->ntsw; i++) {
		guids[i] = t[i].guid;
		if (i && (!t[i].guid || t[i].parent >= i || !t[i].up || t[i].up == 255))
			ok = false;
	}
	if (ok && g->ntsw > 1)
		ok = max_run(guids, g->ntsw) == 1;
	free(guids);
	return ok ? 0 : cerr(c, "group %s: not a tree", mgid_str(g->rec.mgid, b));
}

static int check_groups(struct check *c, const struct client_state *cs)
{
	uint8_t *mlids = xcalloc(MCAST_MLID_MAX - MCAST_MLID_MIN + 1, 1);
	size_t nm = 0, nt = 0;
	int rc = 0;
	char b[40];

	for (size_t i = 0; i < cs->ngroups && !rc; i++) {
		const struct cf_group *g = &cs->groups[i];

		if (g->member0 != nm || g->tsw0 != nt || g->nmembers > cs->nmembers - nm ||
		    g->ntsw > cs->ntsw - nt)
			rc = cerr(c, "group %zu: members or tree out of place", i);
		else if (!params_ok(&g->rec))
			rc = cerr(c, "group %s: a field out of range", mgid_str(g->rec.mgid, b));
		else if (i && memcmp(g->rec.mgid, cs->groups[i - 1].rec.mgid, 16) <= 0)
			rc = cerr(c, "group %s: groups not in MGID order, or twice",
				  mgid_str(g->rec.mgid, b));
		else if (mlids[g->rec.mlid - MCAST_MLID_MIN]++)
			rc = cerr(c, "MLID 0x%04x used twice", g->rec.mlid);
		else if (!(rc = check_members(c, cs, g)))
			rc = check_tree(c, cs, g);
		nm += g->nmembers;
		nt += g->ntsw;
	}
	free(mlids);
	if (!rc && (nm != cs->nmembers || nt != cs->ntsw))
		rc = cerr(c, "members or tree entries outside any group");
	return rc;
}

/* A service is named by ServiceID, ServiceGID and ServiceP_Key (bytes
 * 0..25 of the record, sa/service.c): the SA keeps one per name. */
static int svc_key_cmp(const void *a, const void *b)
{
	return memcmp(((const struct cf_service *)a)->rec, ((const struct cf_service *)b)->rec, 26);
}

static int check_services(struct check *c, const struct client_state *cs)
{
	struct cf_service *v = xcalloc(cs->nservices + 1, sizeof(*v));
	int rc = 0;

	if (cs->nservices)
		memcpy(v, cs->services, cs->nservices * sizeof(*v));
	qsort(v, cs->nservices, sizeof(*v), svc_key_cmp);
	for (size_t i = 0; i < cs->nservices && !rc; i++) {
		if (!v[i].owner_guid && (!v[i].owner_lid || v[i].owner_lid > MAX_UCAST_LID))
			rc = cerr(c, "a service without an owner");
		else if (i && !svc_key_cmp(&v[i], &v[i - 1]))
			rc = cerr(c, "a service (ServiceID, GID, P_Key) listed twice");
	}
	free(v);
	return rc;
}

static int check_subs(struct check *c, const struct client_state *cs)
{
	static const uint8_t zero[16];

	for (size_t i = 0; i < cs->nsubs; i++) {
		const struct cf_sub *u = &cs->subs[i];

		if (!memcmp(u->gid, zero, 16) || !u->lid || u->lid > MAX_UCAST_LID || !u->to.dlid ||
		    u->to.dlid > MAX_UCAST_LID || u->ii.qpn > 0xFFFFFF || u->ii.resp_time_value > 31 ||
		    u->ii.producer_type > 0xFFFFFF || u->to.qpn > 0xFFFFFF || u->to.sl > 15 ||
		    u->to.grh_present > 1 || u->to.flow_label > 0xFFFFF || u->ii.is_generic > 1)
			return cerr(c, "subscription %zu: a field out of range", i);
	}
	return 0;
}

/* Is the longest run of equal non-zero values in v[0..n) over limit? */
static bool over_run(uint64_t *v, size_t n, size_t limit)
{
	return limit && max_run(v, n) > limit;
}

/* Per port: groups by creator, memberships by maker, services by owner,
 * subscriptions by GID; per partition: groups with a creator. */
static int check_per_port(struct check *c, const struct client_state *cs,
			  const struct client_limits *lim)
{
	size_t n = cs->nmembers > cs->nservices ? cs->nmembers : cs->nservices;
	uint64_t *v = xcalloc((n > cs->nsubs ? n : cs->nsubs) + cs->ngroups + 1, sizeof(*v));
	int rc = 0;

	for (size_t i = 0; i < cs->ngroups; i++)
		v[i] = cs->groups[i].creator;
	if (over_run(v, cs->ngroups, lim->groups_per_port))
		rc = cerr(c, "a port created more than %zu groups", lim->groups_per_port);
	for (size_t i = 0; i < cs->ngroups; i++)
		v[i] = cs->groups[i].creator ? (cs->groups[i].rec.pkey & 0x7FFFu) + 1 : 0;
	if (!rc && over_run(v, cs->ngroups, lim->groups_per_partition))
		rc = cerr(c, "more than %zu groups created in a partition", lim->groups_per_partition);
	for (size_t i = 0; i < cs->nmembers; i++)
		v[i] = cs->members[i].by;
	if (!rc && over_run(v, cs->nmembers, lim->memberships_per_port))
		rc = cerr(c, "a port made more than %zu memberships", lim->memberships_per_port);
	for (size_t i = 0; i < cs->nservices; i++)
		v[i] = cs->services[i].owner_guid ? cs->services[i].owner_guid
						  : cs->services[i].owner_lid;
	if (!rc && over_run(v, cs->nservices, lim->services_per_owner))
		rc = cerr(c, "a port with more than %zu services", lim->services_per_owner);
	for (size_t i = 0; i < cs->nsubs; i++)
		memcpy(&v[i], cs->subs[i].gid + 8, 8);
	if (!rc && over_run(v, cs->nsubs, lim->subs_per_port))
		rc = cerr(c, "a port with more than %zu subscriptions", lim->subs_per_port);
	free(v);
	return rc;
}

static bool counts_ok(const struct client_state *cs, const struct client_limits *l)
{
	return (!l->groups || cs->ngroups <= l->groups) &&
	       (!l->members || cs->nmembers <= l->members) && (!l->tsw || cs->ntsw <= l->tsw) &&
	       (!l->services || cs->nservices <= l->services) && (!l->subs || cs->nsubs <= l->subs);
}

int client_state_check(const struct client_state *cs, const struct client_limits *lim,
		       const char *name, char *err, size_t errlen)
{
	struct check c = { name, err, errlen };

	if (!counts_ok(cs, lim))
		return cerr(&c, "more groups, members, tree entries, services or subscriptions "
			    "than the limits");
	if (check_groups(&c, cs) || check_services(&c, cs) || check_subs(&c, cs))
		return -1;
	return check_per_port(&c, cs, lim);
}

/* --- loading and saving ---------------------------------------------------------------- */

static char *path_in(const char *dir)
{
	size_t len = strlen(dir) + sizeof(CF_NAME) + 1;
	char *p = xmalloc(len);

	snprintf(p, len, "%s/%s", dir, CF_NAME);
	return p;
}

/* The whole file, at most CF_MAX_FILE bytes. 1, 0 (none), -1. */
static int read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16;

	*buf = NULL;
	*len = 0;
	if (!f) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	*buf = xmalloc(cap);
	while (!feof(f) && !ferror(f) && *len <= CF_MAX_FILE) {
		if (*len == cap)
			*buf = xrealloc(*buf, cap *= 2);
		*len += fread(*buf + *len, 1, cap - *len, f);
	}
	if (ferror(f) || *len > CF_MAX_FILE) {
		snprintf(err, errlen, "%s: %s", path,
			 ferror(f) ? "read error" : "larger than 256 MiB: not ours");
		fclose(f);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	fclose(f);
	return 1;
}

int client_state_load(struct client_state *cs, const char *dir, const struct client_limits *lim,
		      char *err, size_t errlen)
{
	char *path = path_in(dir), *buf;
	size_t len;
	int rc = read_file(path, &buf, &len, err, errlen);

	client_state_init(cs);
	if (rc > 0 && client_state_parse(cs, path, buf, len, lim, err, errlen) < 0)
		rc = -1;
	free(buf);
	free(path);
	return rc;
}

struct text {
	const char *s;
	size_t len;
};

static int write_text(FILE *f, const void *arg)
{
	const struct text *t = arg;

	return fwrite(t->s, 1, t->len, f) == t->len ? 0 : -1;
}

int client_state_save(const struct client_state *cs, const char *dir, char *err, size_t errlen)
{
	char *path = path_in(dir);
	struct text t;
	char *buf = client_state_format(cs, &t.len);
	int rc;

	t.s = buf;
	rc = atomic_write(path, write_text, &t, err, errlen);
	free(buf);
	free(path);
	return rc;
}
