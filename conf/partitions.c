/*
 * DOC: partitions file parser, canonical printer and resolver (see
 * partitions.h for the grammar and where it differs from OpenSM).
 *
 * A small lexer turns the text into words and the punctuation = , : ;
 * remembering whether a newline came before each token. One pass reads
 * the statements into the partitions they name; generated P_Keys, the IP
 * multicast checks and the duplicate-MGID check run once the whole file
 * is read. A statement with a syntax error is skipped up to its ';' so
 * that later errors still get reported.
 *
 * part_flags[] is the only list of partition flags: the header, the mgid
 * entries, the printer and part_group_params() all walk it.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/partitions.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GOFF(f) offsetof(struct part_group, f)
#define NO_PART SIZE_MAX
#define N_PKEYS 0x8000            /* 15-bit P_Key space */
#define NAME_SLOTS 8192           /* > 2 * PART_MAX_PARTITIONS, power of 2 */

enum flag_kind {
	FK_IPOIB,       /* no value */
	FK_INDX0,       /* no value, this statement's members only */
	FK_DEFMEMBER,   /* full|limited|both, this statement's members only */
	FK_NUM,         /* group parameter, min..max */
	FK_SCOPE,       /* group parameter, adds to a set */
};

struct part_flag {
	const char *name;       /* OpenSM's spelling, which part_dump() writes */
	const char *alias;
	enum flag_kind kind;
	unsigned bit;           /* FK_NUM, FK_SCOPE: enum part_group_field */
	uint32_t min, max;
	size_t off;             /* FK_NUM: the uint32_t in struct part_group */
	bool hex;               /* written in hex */
};

#define NUM(n, a, b, lo, hi, f, h) \
	{ .name = n, .alias = a, .kind = FK_NUM, .bit = b, .min = lo, \
	  .max = hi, .off = GOFF(f), .hex = h }

/*
 * Ranges: MTU and rate are the codes of MCMemberRecord and PathRecord
 * (mtu 1..5 = 256..4096 bytes, rate 2..24 = 2.5..1200 Gb/s: OpenSM's
 * ib_types.h IB_MTU_LEN_*, IB_PATH_RECORD_RATE_*), SL 4 bits, scope 4
 * bits (0 is reserved, RFC 4291 2.7; OpenSM skips it too), Q_Key 32 bits,
 * TClass 8 bits, FlowLabel 20 bits.
 */
static const struct part_flag part_flags[] = {
	{ .name = "ipoib", .kind = FK_IPOIB },
	{ .name = "indx0", .kind = FK_INDX0 },
	{ .name = "defmember", .kind = FK_DEFMEMBER },
	NUM("mtu", NULL, PART_G_MTU, 1, 5, mtu, false),
	NUM("rate", NULL, PART_G_RATE, 2, 24, rate, false),
	NUM("sl", NULL, PART_G_SL, 0, 15, sl, false),
	{ .name = "scope", .kind = FK_SCOPE, .bit = PART_G_SCOPE, .min = 1,
	  .max = 15 },
	NUM("Q_Key", "qkey", PART_G_QKEY, 0, UINT32_MAX, qkey, true),
	NUM("TClass", NULL, PART_G_TCLASS, 0, 255, tclass, false),
	NUM("FlowLabel", NULL, PART_G_FLOWLABEL, 0, 0xfffff, flowlabel, true),
};

/* Member keywords; kind -1 is NONE, which adds nothing. */
static const struct keyword {
	const char *name;
	int kind;
} keywords[] = {
	{ "ALL", PART_M_ALL },
	{ "ALL_CAS", PART_M_ALL_CAS },
	{ "ALL_SWITCHES", PART_M_ALL_SWITCHES },
	{ "ALL_ROUTERS", PART_M_ALL_ROUTERS },
	{ "SELF", PART_M_SELF },
	{ "NONE", -1 },
};

static const char *const membership_names[] = {
	[PART_LIMITED] = "limited",
	[PART_FULL] = "full",
	[PART_BOTH] = "both",
};

/* OpenSM's defaults for a partition's groups (osm_base.h). */
#define DEFAULT_MTU 4    /* 2048 bytes */
#define DEFAULT_RATE 3   /* 10 Gb/s */
#define DEFAULT_SCOPE 2  /* link-local */

enum tok_type { T_EOF, T_BAD, T_WORD, T_EQ, T_COMMA, T_COLON, T_SEMI };

struct tok {
	enum tok_type type;
	const char *s;         /* T_WORD: not NUL-terminated */
	size_t n;
	unsigned line;
	bool nl_before;        /* a newline came between this and the last */
};

/* Partition indexes while parsing: entries are partition index + 1. */
struct part_index {
	uint16_t by_pkey[N_PKEYS];
	uint16_t by_name[NAME_SLOTS];
};

struct parser {
	struct part_config *c;
	const char *name;
	struct conf_errors *errs;
	int nerr;
	/* lexer */
	const char *buf;
	size_t len, pos, eol;   /* eol: end of the current line */
	unsigned line;
	bool bol;               /* pos is at the start of a line */
	bool has_la;
	struct tok la;          /* lookahead */
	enum tok_type last;     /* type of the last token taken */
	/* indexes and caps */
	struct part_index *idx;
	size_t n_members, n_mgids;
	bool parts_full, members_full, mgids_full;
};

/* The statement being read. */
struct stmt {
	size_t part;            /* index in c->parts or NO_PART */
	uint8_t defmember;
	bool defmember_set;
	bool indx0;
	unsigned line;
};

/* ---- small helpers ---- */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/* Room for element n of an array that holds n: capacities are powers of 2. */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n & (n - 1))
		return arr;
	arr = realloc(arr, (n ? 2 * n : 1) * size);
	if (!arr)
		abort();
	return arr;
}

/* Append "name:line: kind msg" to list, or only count it past the cap. */
__attribute__((format(printf, 5, 0)))
static void add_msg(struct conf_errors *list, const char *name, unsigned line,
		    const char *kind, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	if (list->n == CONF_MAX_ERRORS) {
		list->dropped++;
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(name) + strlen(kind) + strlen(msg) + 16;
	list->msg[list->n] = xmalloc(n);
	if (line)
		snprintf(list->msg[list->n], n, "%s:%u: %s%s", name, line, kind, msg);
	else
		snprintf(list->msg[list->n], n, "%s: %s%s", name, kind, msg);
	list->n++;
}

__attribute__((format(printf, 3, 4)))
static void perr(struct parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_msg(p->errs, p->name, line, "", fmt, ap);
	va_end(ap);
	p->nerr++;
}

__attribute__((format(printf, 3, 4)))
static void pwarn(struct parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_msg(&p->c->warnings, p->name, line, "warning: ", fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 4, 5)))
static void file_err(struct conf_errors *errs, const char *name,
		     unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_msg(errs, name, line, "", fmt, ap);
	va_end(ap);
}

/* A token for a message: at most 40 bytes, non-printables as '?'. */
static const char *shown(const struct tok *t, char out[48])
{
	size_t i;

	if (t->type == T_EOF)
		return strcpy(out, "end of file");
	for (i = 0; i < t->n && i < 40; i++)
		out[i] = (t->s[i] >= 0x20 && t->s[i] < 0x7f) ? t->s[i] : '?';
	strcpy(out + i, i < t->n ? "..." : "");
	return out;
}

static const char *gid_text(const uint8_t gid[16], char out[INET6_ADDRSTRLEN])
{
	if (!inet_ntop(AF_INET6, gid, out, INET6_ADDRSTRLEN))
		strcpy(out, "?");
	return out;
}

static bool tok_is(const struct tok *t, const char *s)
{
	return t->type == T_WORD && t->n == strlen(s) &&
	       !strncasecmp(t->s, s, t->n);
}

/* ---- numbers ---- */

enum num_result { NUM_OK, NUM_BAD, NUM_OCTAL, NUM_BIG };

static int digit_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
		return (ch | 0x20) - 'a' + 10;
	return 99;
}

/*
 * 0x hex or decimal, as OpenSM's strtoul(s, NULL, 0) reads them, except
 * that a leading 0 (octal to strtoul) is refused rather than guessed.
 */
static enum num_result parse_num(const char *s, size_t n, uint64_t *out)
{
	bool hex = n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x';
	unsigned base = hex ? 16 : 10;
	bool big = false;
	uint64_t v = 0;

	if (hex) {
		s += 2;
		n -= 2;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)digit_value(s[i]);

		if (d >= base)
			return NUM_BAD;
		if (v > (UINT64_MAX - d) / base)
			big = true;
		v = v * base + d;
	}
	if (n == 0)
		return NUM_BAD;
	if (!hex && n > 1 && s[0] == '0')
		return NUM_OCTAL;
	*out = v;
	return big ? NUM_BIG : NUM_OK;
}

/* The number in t for what, within lo..hi; 0, or -1 with the error given. */
static int tok_num(struct parser *p, const struct tok *t, const char *what,
		   uint64_t lo, uint64_t hi, bool hex, uint64_t *out)
{
	char buf[48];
	uint64_t v = 0;

	switch (parse_num(t->s, t->n, &v)) {
	case NUM_BAD:
		perr(p, t->line, "%s: invalid number '%s'", what, shown(t, buf));
		return -1;
	case NUM_OCTAL:
		perr(p, t->line, "%s: '%s' starts with 0, which OpenSM reads as "
		     "octal; write it without the 0 or in hex", what, shown(t, buf));
		return -1;
	case NUM_BIG:
		v = UINT64_MAX;
		break;
	case NUM_OK:
		break;
	}
	if (v < lo || v > hi) {
		if (hex)
			perr(p, t->line, "%s: %s is out of range 0x%llx..0x%llx", what,
			     shown(t, buf), (unsigned long long)lo, (unsigned long long)hi);
		else
			perr(p, t->line, "%s: %s is out of range %llu..%llu", what,
			     shown(t, buf), (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* ---- lexer ---- */

/*
 * Start the line at pos: find its end; a line longer than CONF_MAX_LINE
 * or holding a NUL byte is reported and skipped (false).
 */
static bool begin_line(struct parser *p)
{
	const char *nl = memchr(p->buf + p->pos, '\n', p->len - p->pos);
	size_t n;

	p->eol = nl ? (size_t)(nl - p->buf) : p->len;
	n = p->eol - p->pos;
	p->line++;
	p->bol = false;
	if (n > 0 && p->buf[p->eol - 1] == '\r')
		n--;
	if (n > CONF_MAX_LINE)
		perr(p, p->line, "line too long (more than %d bytes)", CONF_MAX_LINE);
	else if (memchr(p->buf + p->pos, '\0', n))
		perr(p, p->line, "NUL byte in line");
	else
		return true;
	p->pos = p->eol;
	return false;
}

/* Skip blanks, comments and newlines; false when a bad line was skipped. */
static bool skip_space(struct parser *p, bool *nl)
{
	for (;;) {
		if (p->bol && p->pos < p->len && !begin_line(p))
			return false;
		if (p->pos >= p->len)
			return true;
		switch (p->buf[p->pos]) {
		case '\n':
			p->bol = true;
			*nl = true;
			p->pos++;
			break;
		case ' ':
		case '\t':
		case '\r':
			p->pos++;
			break;
		case '#':
			p->pos = p->eol;
			break;
		default:
			return true;
		}
	}
}

/* In an MGID (gid), ':' belongs to the word. begin_line() keeps NUL
 * bytes out; should one get here it is part of a word, never an end. */
static bool ends_word(char ch, bool gid)
{
	return (ch && strchr(" \t\r\n#=,;", ch)) || (ch == ':' && !gid);
}

static void lex(struct parser *p, struct tok *t, bool gid)
{
	static const char punct[] = "=,:;";
	static const enum tok_type punct_type[] = { T_EQ, T_COMMA, T_COLON, T_SEMI };
	const char *q;
	bool nl = false;

	memset(t, 0, sizeof(*t));
	t->type = skip_space(p, &nl) ? T_EOF : T_BAD;
	t->line = p->line;
	t->nl_before = nl;
	if (t->type == T_BAD || p->pos >= p->len)
		return;
	t->s = p->buf + p->pos;
	q = *t->s ? strchr(punct, *t->s) : NULL;
	if (q && !(gid && *q == ':')) {
		t->type = punct_type[q - punct];
		t->n = 1;
		p->pos++;
		return;
	}
	t->type = T_WORD;
	while (p->pos < p->eol && !ends_word(p->buf[p->pos], gid))
		p->pos++;
	t->n = (size_t)(p->buf + p->pos - t->s);
}

static const struct tok *peek(struct parser *p)
{
	if (!p->has_la) {
		lex(p, &p->la, false);
		p->has_la = true;
	}
	return &p->la;
}

static void next(struct parser *p, struct tok *t)
{
	*t = *peek(p);
	p->has_la = false;
	p->last = t->type;
}

/* The next token read as an MGID; nothing may have been peeked. */
static void next_gid(struct parser *p, struct tok *t)
{
	if (p->has_la)
		abort();
	lex(p, t, true);
	p->last = t->type;
}

/* 0 when t is a word; else -1 and what as the error (a bad line was
 * reported already). */
static int want_word(struct parser *p, const struct tok *t, unsigned line,
		     const char *what)
{
	if (t->type == T_WORD)
		return 0;
	if (t->type != T_BAD)
		perr(p, line, "%s", what);
	return -1;
}

/* ---- partitions ---- */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;   /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Slot of name in the name index: its own, or the empty one to fill. */
static uint16_t *name_slot(struct parser *p, const char *name)
{
	uint32_t i = name_hash(name);

	for (;; i++) {
		uint16_t *s = &p->idx->by_name[i % NAME_SLOTS];

		if (!*s || !strcmp(p->c->parts[*s - 1].name, name))
			return s;
	}
}

static size_t find_name(struct parser *p, const char *name)
{
	uint16_t s = *name ? *name_slot(p, name) : 0;

	return s ? s - 1u : NO_PART;
}

static size_t find_pkey(struct parser *p, uint16_t pkey)
{
	uint16_t s = p->idx->by_pkey[pkey];

	return s ? s - 1u : NO_PART;
}

static void group_defaults(struct part_group *g)
{
	memset(g, 0, sizeof(*g));
	g->mtu = DEFAULT_MTU;
	g->rate = DEFAULT_RATE;
}

/* A new partition; pkey 0: generated at the end. NO_PART past the cap. */
static size_t add_partition(struct parser *p, const char *name, uint16_t pkey,
			    unsigned line)
{
	struct part_config *c = p->c;
	struct part_partition *pt;

	if (c->n_parts == PART_MAX_PARTITIONS) {
		if (!p->parts_full)
			perr(p, line, "too many partitions (more than %d)",
			     PART_MAX_PARTITIONS);
		p->parts_full = true;
		return NO_PART;
	}
	c->parts = grow(c->parts, c->n_parts, sizeof(*c->parts));
	pt = &c->parts[c->n_parts];
	memset(pt, 0, sizeof(*pt));
	pt->name = xstrdup(name);
	pt->pkey = pkey;
	pt->line = line;
	group_defaults(&pt->group);
	c->n_parts++;
	if (pkey)
		p->idx->by_pkey[pkey] = (uint16_t)c->n_parts;
	if (*name)
		*name_slot(p, name) = (uint16_t)c->n_parts;
	return c->n_parts - 1;
}

static void push_member(struct part_partition *pt, const struct part_member *m)
{
	pt->members = grow(pt->members, pt->n_members, sizeof(*pt->members));
	pt->members[pt->n_members++] = *m;
}

/* Default (0x7fff), first, with OpenSM's entries for a file without a
 * Default rule (osm_prtn.c prtn_make_default). */
static void add_default(struct parser *p)
{
	struct part_member all = { .kind = PART_M_ALL, .membership = PART_LIMITED,
				   .implicit = true };
	struct part_member self = { .kind = PART_M_SELF, .membership = PART_FULL,
				    .implicit = true };
	size_t i = add_partition(p, "Default", PART_DEFAULT_PKEY, 0);

	push_member(&p->c->parts[i], &all);
	push_member(&p->c->parts[i], &self);
}

static void where(const struct part_partition *pt, char *out, size_t len)
{
	if (pt->line)
		snprintf(out, len, "line %u", pt->line);
	else
		snprintf(out, len, "built in");
}

/* Name errors of a statement with P_Key pkey; byname has its name. */
static void name_conflict(struct parser *p, const struct part_partition *byname,
			  uint16_t pkey, unsigned line)
{
	char at[32];

	where(byname, at, sizeof(at));
	if (!byname->pkey)
		perr(p, line, "partition '%s' got a generated P_Key (%s), so no "
		     "statement can give it P_Key 0x%04x; write the same P_Key "
		     "in all its statements", byname->name, at, pkey);
	else
		perr(p, line, "partition name '%s' is already used for P_Key "
		     "0x%04x (%s)", byname->name, byname->pkey, at);
}

/* The partition a statement adds to: by P_Key, else by name, else new. */
static size_t stmt_partition(struct parser *p, const char *name, bool keyed,
			     uint16_t pkey, unsigned line)
{
	size_t byname = find_name(p, name), i;
	struct part_partition *pt;
	char at[32];

	if (!keyed)
		return byname != NO_PART ? byname : add_partition(p, name, 0, line);
	if (byname != NO_PART && p->c->parts[byname].pkey != pkey) {
		name_conflict(p, &p->c->parts[byname], pkey, line);
		return NO_PART;
	}
	i = find_pkey(p, pkey);
	if (i == NO_PART)
		return add_partition(p, name, pkey, line);
	pt = &p->c->parts[i];
	if (*name && strcmp(name, pt->name)) {
		where(pt, at, sizeof(at));
		pwarn(p, line, "name '%s' ignored: P_Key 0x%04x is named '%s' (%s)",
		      name, pkey, pt->name, at);
	}
	return i;
}

/* ---- statement header: Name[=PKey][,flag[=value]]... : ---- */

/* Words up to '=', ',' or ':' joined by one space. */
static int read_name(struct parser *p, char name[PART_MAX_NAME + 1])
{
	size_t len = 0;
	int ret = 0;
	struct tok t;
	char buf[48];

	while (peek(p)->type == T_WORD) {
		next(p, &t);
		for (size_t i = 0; i < t.n && !ret; i++) {
			if (t.s[i] < 0x21 || t.s[i] > 0x7e) {
				perr(p, t.line, "invalid character in partition name "
				     "'%s'", shown(&t, buf));
				ret = -1;
			}
		}
		if (!ret && len + (len > 0) + t.n > PART_MAX_NAME) {
			perr(p, t.line, "partition name longer than %d bytes",
			     PART_MAX_NAME);
			ret = -1;
		}
		if (ret)
			continue;
		if (len)
			name[len++] = ' ';
		memcpy(name + len, t.s, t.n);
		len += t.n;
	}
	name[len] = '\0';
	return ret;
}

/* P_Key text: 16 bits at most, bit 15 dropped, low bits not all 0. */
static int pkey_value(struct parser *p, const struct tok *t, uint16_t *out)
{
	uint64_t v;

	if (tok_num(p, t, "P_Key", 0, 0xffff, true, &v) < 0)
		return -1;
	if (!(v & 0x7fff)) {
		perr(p, t->line, "P_Key 0x%04x is invalid (its low 15 bits are 0)",
		     (unsigned)v);
		return -1;
	}
	*out = (uint16_t)(v & 0x7fff);
	return 0;
}

static const struct part_flag *find_flag(const struct tok *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(part_flags); i++) {
		const struct part_flag *f = &part_flags[i];

		if (tok_is(t, f->name) || (f->alias && tok_is(t, f->alias)))
			return f;
	}
	return NULL;
}

/* full, limited, both or a prefix of one (OpenSM's "limi"), else 0. */
static unsigned membership_of(const struct tok *t)
{
	for (unsigned m = PART_LIMITED; m <= PART_BOTH; m++) {
		const char *s = membership_names[m];

		if (t->n <= strlen(s) && !strncasecmp(t->s, s, t->n))
			return m;
	}
	return 0;
}

static uint32_t *group_field(struct part_group *g, const struct part_flag *f)
{
	return (uint32_t *)((char *)g + f->off);
}

static uint32_t group_value(const struct part_group *g, const struct part_flag *f)
{
	return *(const uint32_t *)((const char *)g + f->off);
}

/* A group parameter value as the file writes it. */
static const char *flag_value(const struct part_flag *f, uint64_t v, char out[24])
{
	snprintf(out, 24, f->hex ? "0x%llx" : "%llu", (unsigned long long)v);
	return out;
}

/* Group parameter f=val into g; ctx names g's owner in a conflict. */
static void set_group_flag(struct parser *p, struct part_group *g,
			   const struct part_flag *f, const struct tok *val,
			   unsigned line, const char *ctx)
{
	char was[24], now[24];
	uint32_t *field;
	uint64_t v;

	if (!val) {
		perr(p, line, "%s: missing value", f->name);
		return;
	}
	if (tok_num(p, val, f->name, f->min, f->max, f->hex, &v) < 0)
		return;
	if (f->kind == FK_SCOPE) {
		g->scopes |= (uint16_t)(1u << v);
		g->set |= f->bit;
		return;
	}
	field = group_field(g, f);
	if ((g->set & f->bit) && *field != v) {
		perr(p, val->line, "%s=%s conflicts with %s=%s given before for %s",
		     f->name, flag_value(f, v, now), f->name,
		     flag_value(f, *field, was), ctx);
		return;
	}
	*field = (uint32_t)v;
	g->set |= f->bit;
}

static void part_ctx(const struct part_partition *pt, char *out, size_t len)
{
	if (pt->pkey)
		snprintf(out, len, "partition '%s' (0x%04x)", pt->name, pt->pkey);
	else
		snprintf(out, len, "partition '%s'", pt->name);
}

static void set_defmember(struct parser *p, struct stmt *st,
			  const struct tok *val, unsigned line)
{
	unsigned m = val ? membership_of(val) : 0;
	char buf[48];

	if (!val) {
		perr(p, line, "defmember: missing value");
		return;
	}
	if (!m) {
		perr(p, val->line, "defmember: invalid value '%s' (full, limited "
		     "or both)", shown(val, buf));
		return;
	}
	if (st->defmember_set && st->defmember != m)
		perr(p, val->line, "defmember given twice with different values");
	st->defmember = (uint8_t)m;
	st->defmember_set = true;
}

static void header_flag(struct parser *p, struct stmt *st,
			const struct part_flag *f, const struct tok *val,
			unsigned line)
{
	struct part_partition *pt = st->part != NO_PART ? &p->c->parts[st->part] : NULL;
	char ctx[PART_MAX_NAME + 48] = "";
	struct part_group scratch;

	switch (f->kind) {
	case FK_IPOIB:
	case FK_INDX0:
		if (val)
			perr(p, line, "%s takes no value", f->name);
		else if (f->kind == FK_INDX0)
			st->indx0 = true;
		else if (pt)
			pt->flags |= PART_F_IPOIB;
		return;
	case FK_DEFMEMBER:
		set_defmember(p, st, val, line);
		return;
	case FK_NUM:
	case FK_SCOPE:
		break;
	}
	group_defaults(&scratch);
	if (pt)
		part_ctx(pt, ctx, sizeof(ctx));
	set_group_flag(p, pt ? &pt->group : &scratch, f, val, line, ctx);
}

/* "=value" after a flag or member, if there is one: 1, 0 without, -1 bad. */
static int read_value(struct parser *p, struct tok *val, const char *what)
{
	if (peek(p)->type != T_EQ)
		return 0;
	next(p, val);
	next(p, val);
	return want_word(p, val, val->line, what) < 0 ? -1 : 1;
}

static int parse_flag(struct parser *p, struct stmt *st)
{
	const struct part_flag *f;
	struct tok name, val;
	char buf[48];
	int has;

	next(p, &name);
	if (want_word(p, &name, name.line, "missing flag after ','") < 0)
		return -1;
	has = read_value(p, &val, "missing value after '='");
	if (has < 0)
		return -1;
	f = find_flag(&name);
	if (!f)
		perr(p, name.line, "unknown partition flag '%s'", shown(&name, buf));
	else
		header_flag(p, st, f, has ? &val : NULL, name.line);
	return 0;
}

/* t ended the header where ':' was due. */
static int header_end(struct parser *p, const struct stmt *st,
		      const struct tok *t)
{
	char buf[48];

	switch (t->type) {
	case T_EOF:
		perr(p, st->line, "statement not terminated: missing ':' before "
		     "end of file");
		break;
	case T_SEMI:
		perr(p, t->line, "missing ':' between the partition definition "
		     "and the member list");
		break;
	case T_BAD:
		break;
	default:
		perr(p, t->line, "expected ',' or ':' after the partition "
		     "definition, got '%s'", shown(t, buf));
		break;
	}
	return -1;
}

/* Name and P_Key: which partition the statement adds to. */
static int parse_target(struct parser *p, struct stmt *st)
{
	char name[PART_MAX_NAME + 1], num[PART_MAX_NAME + 1];
	struct tok key = { .type = T_EOF };
	uint16_t pkey = 0;

	if (read_name(p, name) < 0 ||
	    read_value(p, &key, "missing P_Key after '='") < 0)
		return -1;
	/* a lone number is a P_Key (osm_prtn_config.c partition_create) */
	if (key.type != T_WORD && name[0] >= '0' && name[0] <= '9' &&
	    !strchr(name, ' ')) {
		strcpy(num, name);
		key = (struct tok){ .type = T_WORD, .s = num, .n = strlen(num),
				    .line = st->line };
		name[0] = '\0';
	}
	if (key.type == T_WORD && pkey_value(p, &key, &pkey) < 0)
		return 0;   /* read on, into no partition */
	st->part = stmt_partition(p, name, key.type == T_WORD, pkey, st->line);
	return 0;
}

static int parse_header(struct parser *p, struct stmt *st)
{
	struct tok t = *peek(p);

	st->line = t.line;
	if (t.type == T_SEMI) {
		next(p, &t);
		perr(p, t.line, "';' without a partition definition");
		return -1;
	}
	if (parse_target(p, st) < 0)
		return -1;
	for (;;) {
		next(p, &t);
		if (t.type == T_COLON)
			return 0;
		if (t.type != T_COMMA)
			return header_end(p, st, &t);
		if (parse_flag(p, st) < 0)
			return -1;
	}
}

/* ---- member list ---- */

static const struct keyword *find_keyword(const struct tok *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
		if (tok_is(t, keywords[i].name))
			return &keywords[i];
	return NULL;
}

static int guid_value(struct parser *p, const struct tok *t, uint64_t *out)
{
	enum num_result r = parse_num(t->s, t->n, out);
	char buf[48];

	if (r == NUM_OK && *out)
		return 0;
	if (r == NUM_OK)
		perr(p, t->line, "port GUID 0 is invalid");
	else if (r == NUM_OCTAL)
		perr(p, t->line, "port GUID '%s' starts with 0, which OpenSM reads "
		     "as octal; write it without the 0 or in hex", shown(t, buf));
	else if (t->s[0] >= '0' && t->s[0] <= '9')
		perr(p, t->line, "invalid port GUID '%s'", shown(t, buf));
	else
		perr(p, t->line, "unknown member '%s' (a port GUID, ALL, ALL_CAS, "
		     "ALL_SWITCHES, ALL_ROUTERS, SELF or NONE)", shown(t, buf));
	return -1;
}

/* "=value" of a member: OpenSM takes anything unknown as limited. */
static uint8_t member_value(struct parser *p, const struct tok *w,
			    const struct tok *v)
{
	unsigned m = membership_of(v);
	char a[48], b[48];

	if (m)
		return (uint8_t)m;
	pwarn(p, v->line, "membership '%s' of '%s' is not full, limited or both; "
	      "taken as limited, as OpenSM does", shown(v, a), shown(w, b));
	return PART_LIMITED;
}

static void store_member(struct parser *p, const struct stmt *st,
			 const struct part_member *m)
{
	if (st->part == NO_PART)
		return;
	if (p->n_members == PART_MAX_MEMBERS) {
		if (!p->members_full)
			perr(p, m->line, "too many members (more than %d in the file)",
			     PART_MAX_MEMBERS);
		p->members_full = true;
		return;
	}
	p->n_members++;
	push_member(&p->c->parts[st->part], m);
}

static void add_member(struct parser *p, const struct stmt *st,
		       const struct tok *w, const struct tok *v)
{
	const struct keyword *k = find_keyword(w);
	struct part_member m = { .membership = st->defmember, .indx0 = st->indx0,
				 .line = w->line };

	if (k && k->kind < 0)
		return;
	if (k)
		m.kind = (uint8_t)k->kind;
	else if (guid_value(p, w, &m.guid) < 0)
		return;
	if (v)
		m.membership = member_value(p, w, v);
	store_member(p, st, &m);
}

static int gid_value(struct parser *p, const struct tok *t, uint8_t gid[16])
{
	char text[INET6_ADDRSTRLEN], buf[48];

	if (t->n < sizeof(text)) {
		memcpy(text, t->s, t->n);
		text[t->n] = '\0';
		if (inet_pton(AF_INET6, text, gid) == 1 && gid[0] == 0xff)
			return 0;
		if (inet_pton(AF_INET6, text, gid) == 1) {
			perr(p, t->line, "mgid: %s is not a multicast GID (those "
			     "start with ff)", text);
			return -1;
		}
	}
	perr(p, t->line, "mgid: invalid GID '%s'", shown(t, buf));
	return -1;
}

static void store_mgid(struct parser *p, const struct stmt *st,
		       const struct part_mgid *m)
{
	struct part_partition *pt;

	if (st->part == NO_PART)
		return;
	if (p->n_mgids == PART_MAX_MGIDS) {
		if (!p->mgids_full)
			perr(p, m->line, "too many mgid entries (more than %d in "
			     "the file)", PART_MAX_MGIDS);
		p->mgids_full = true;
		return;
	}
	p->n_mgids++;
	pt = &p->c->parts[st->part];
	pt->mgids = grow(pt->mgids, pt->n_mgids, sizeof(*pt->mgids));
	pt->mgids[pt->n_mgids++] = *m;
}

/* After "mgid=GID," a group flag continues the entry; anything else is
 * the next member. */
static bool mgid_flag_follows(struct parser *p)
{
	const struct tok *t = peek(p);

	return t->type == T_WORD && find_flag(t);
}

static int parse_mgid_flag(struct parser *p, struct part_group *g,
			   const char *ctx)
{
	const struct part_flag *f;
	struct tok name, val;
	int has;

	next(p, &name);
	f = find_flag(&name);
	has = read_value(p, &val, "missing value after '='");
	if (has < 0)
		return -1;
	if (f->kind != FK_NUM && f->kind != FK_SCOPE)
		perr(p, name.line, "%s is not a multicast group flag", f->name);
	else
		set_group_flag(p, g, f, has ? &val : NULL, name.line, ctx);
	return 0;
}

/* mgid=GID[,group flag]...; *need_sep: no comma was taken after it. */
static int parse_mgid(struct parser *p, struct stmt *st, unsigned line,
		      bool *need_sep)
{
	struct part_mgid m = { .line = line };
	char ctx[64];
	struct tok t;
	bool ok;

	next(p, &t);
	if (t.type == T_EQ)
		next_gid(p, &t);
	else if (t.type == T_WORD)
		t.type = T_EOF;   /* "mgid x": report, not take x as the GID */
	if (want_word(p, &t, line, "mgid: expected '=' and a GID") < 0)
		return -1;
	ok = gid_value(p, &t, m.gid) == 0;
	snprintf(ctx, sizeof(ctx), "mgid %.*s", (int)(t.n < 46 ? t.n : 46), t.s);
	*need_sep = true;
	while (peek(p)->type == T_COMMA) {
		next(p, &t);
		if (!mgid_flag_follows(p)) {
			*need_sep = false;
			break;
		}
		if (parse_mgid_flag(p, &m.group, ctx) < 0)
			return -1;
	}
	if (ok)
		store_mgid(p, st, &m);
	return 0;
}

static int parse_entry(struct parser *p, struct stmt *st, bool *need_sep)
{
	struct tok w, v;
	int has;

	next(p, &w);
	if (tok_is(&w, "mgid"))
		return parse_mgid(p, st, w.line, need_sep);
	*need_sep = true;
	has = read_value(p, &v, "missing membership after '='");
	if (has < 0)
		return -1;
	/* "Name=PKey :": the ';' before it is missing (parse_body says so);
	 * no need to also call Name an unknown member */
	if (peek(p)->type != T_COLON)
		add_member(p, st, &w, has ? &v : NULL);
	return 0;
}

/* Entries up to ';', separated by ',' or a newline. */
static int parse_body(struct parser *p, struct stmt *st)
{
	bool need_sep = false;
	char buf[48];
	struct tok t;

	for (;;) {
		t = *peek(p);
		switch (t.type) {
		case T_SEMI:
			next(p, &t);
			return 0;
		case T_COMMA:
			next(p, &t);
			need_sep = false;
			break;
		case T_WORD:
			if (need_sep && !t.nl_before) {
				perr(p, t.line, "missing ',' before '%s'", shown(&t, buf));
				return -1;
			}
			if (parse_entry(p, st, &need_sep) < 0)
				return -1;
			break;
		case T_EOF:
			perr(p, st->line, "statement not terminated: missing ';' "
			     "before end of file");
			return -1;
		case T_BAD:
			return -1;
		case T_COLON:
			perr(p, t.line, "unexpected ':' in the member list (missing "
			     "';' after the previous statement?)");
			return -1;
		case T_EQ:
			perr(p, t.line, "unexpected '=' in the member list");
			return -1;
		}
	}
}

/* After an error: skip to the end of the statement. */
static void skip_statement(struct parser *p)
{
	struct tok t = { .type = p->last };

	while (t.type != T_SEMI && t.type != T_EOF)
		next(p, &t);
}

static void parse_statement(struct parser *p)
{
	struct stmt st = { .part = NO_PART, .defmember = PART_LIMITED };
	struct tok t;

	/* a bad line between statements: the next one starts after it */
	if (peek(p)->type == T_BAD) {
		next(p, &t);
		return;
	}
	if (parse_header(p, &st) < 0 || parse_body(p, &st) < 0)
		skip_statement(p);
}

/* ---- after the last statement ---- */

/*
 * Partitions without a P_Key, in file order, take the lowest free values
 * from 0x0001. At most PART_MAX_PARTITIONS are taken, so one is always
 * free below 0x7fff.
 */
static void assign_pkeys(struct parser *p)
{
	uint16_t key = 1;

	for (size_t i = 0; i < p->c->n_parts; i++) {
		struct part_partition *pt = &p->c->parts[i];

		if (pt->pkey)
			continue;
		while (p->idx->by_pkey[key])
			key++;
		pt->pkey = key;
		p->idx->by_pkey[key] = (uint16_t)(i + 1);
	}
}

/* IPoIB MGIDs (RFC 4391 section 4): ff1S:401b (IPv4) or ff1S:601b (IPv6),
 * then the P_Key with the full bit. */
static bool gid_is_ip(const uint8_t *g)
{
	return (g[2] == 0x40 || g[2] == 0x60) && g[3] == 0x1b;
}

/*
 * An IP group takes P_Key bits 0 (filled in here), the partition's full
 * P_Key, or OpenSM's broadcast MGID with 0xffff; its mtu and rate must
 * be the partition's (osm_prtn_config.c ip_mgroup_*_ok).
 */
static void check_ip_mgid(struct parser *p, const struct part_partition *pt,
			  struct part_mgid *m)
{
	static const uint8_t bcast[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	uint16_t full = pt->pkey | PART_PKEY_FULL;
	uint16_t bits = (uint16_t)(m->gid[4] << 8 | m->gid[5]);
	char gid[INET6_ADDRSTRLEN];

	if (!gid_is_ip(m->gid))
		return;
	gid_text(m->gid, gid);
	if (bits && bits != full && memcmp(m->gid, bcast, sizeof(bcast))) {
		perr(p, m->line, "mgid %s: P_Key bits 0x%04x are neither 0 nor "
		     "the partition's 0x%04x", gid, bits, full);
		return;
	}
	if ((m->group.set & PART_G_MTU) && m->group.mtu != pt->group.mtu)
		perr(p, m->line, "mgid %s: mtu %u differs from the partition's %u "
		     "(an IP group must match the broadcast group)", gid,
		     m->group.mtu, pt->group.mtu);
	if ((m->group.set & PART_G_RATE) && m->group.rate != pt->group.rate)
		perr(p, m->line, "mgid %s: rate %u differs from the partition's %u "
		     "(an IP group must match the broadcast group)", gid,
		     m->group.rate, pt->group.rate);
	m->gid[4] = (uint8_t)(full >> 8);
	m->gid[5] = (uint8_t)full;
}

/* The mgid with this GID before mgid k of partition i, if any. */
static const struct part_mgid *earlier_mgid(const struct part_config *c,
					    size_t i, size_t k, const uint8_t *gid)
{
	for (size_t a = 0; a <= i; a++) {
		const struct part_partition *pt = &c->parts[a];
		size_t n = a == i ? k : pt->n_mgids;

		for (size_t b = 0; b < n; b++)
			if (!memcmp(pt->mgids[b].gid, gid, 16))
				return &pt->mgids[b];
	}
	return NULL;
}

/* OpenSM creates a group once and skips later copies; say so. */
static void drop_duplicate_mgids(struct parser *p)
{
	struct part_config *c = p->c;
	char gid[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < c->n_parts; i++) {
		struct part_partition *pt = &c->parts[i];
		size_t k = 0;

		for (size_t j = 0; j < pt->n_mgids; j++) {
			const struct part_mgid *m = &pt->mgids[j];
			const struct part_mgid *d = earlier_mgid(c, i, k, m->gid);

			if (d)
				pwarn(p, m->line, "mgid %s ignored: already given on "
				      "line %u", gid_text(m->gid, gid), d->line);
			else
				pt->mgids[k++] = *m;
		}
		pt->n_mgids = k;
	}
}

/*
 * Limited members cannot talk to each other (IBA 10.9: two ports talk
 * when one of them is a full member), so a limited SM port shuts limited
 * hosts out of the SA. OpenSM lets a file do that ("Default=0x7fff :
 * ALL=limited ;"); warn about it.
 */
static void check_self(struct parser *p)
{
	const struct part_partition *pt = &p->c->parts[0];

	for (size_t i = pt->n_members; i-- > 0;) {
		const struct part_member *m = &pt->members[i];

		if (m->kind != PART_M_SELF && m->kind != PART_M_ALL)
			continue;
		if (m->membership == PART_LIMITED)
			pwarn(p, m->line, "the SM's port (SELF) ends up a limited "
			      "member of the Default partition, so limited members "
			      "cannot reach the SA");
		return;
	}
}

static void finish(struct parser *p)
{
	assign_pkeys(p);
	for (size_t i = 0; i < p->c->n_parts; i++) {
		struct part_partition *pt = &p->c->parts[i];

		for (size_t j = 0; j < pt->n_mgids; j++)
			check_ip_mgid(p, pt, &pt->mgids[j]);
	}
	drop_duplicate_mgids(p);
	check_self(p);
}

/* ---- public entry points ---- */

/* The line of "name:line: ..." (0 for "name: ..."). */
static unsigned msg_line(const char *msg, size_t name_len)
{
	return (unsigned)strtoul(msg + name_len + 1, NULL, 10);
}

/*
 * Messages from 'from' on in line order, those of one line in the order
 * found: without this the checks that need the whole file would come
 * after all the others.
 */
static void sort_by_line(struct conf_errors *list, size_t from, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = from + 1; i < list->n; i++) {
		char *m = list->msg[i];
		unsigned line = msg_line(m, len);
		size_t j = i;

		for (; j > from && msg_line(list->msg[j - 1], len) > line; j--)
			list->msg[j] = list->msg[j - 1];
		list->msg[j] = m;
	}
}

static void free_partitions(struct part_config *c)
{
	for (size_t i = 0; i < c->n_parts; i++) {
		free(c->parts[i].name);
		free(c->parts[i].members);
		free(c->parts[i].mgids);
	}
	free(c->parts);
	c->parts = NULL;
	c->n_parts = 0;
}

int part_parse_buf(struct part_config *out, const char *name,
		   const char *buf, size_t len, struct conf_errors *errs)
{
	struct parser p = { .c = out, .name = name, .errs = errs, .buf = buf,
			    .len = len, .bol = true };
	size_t first_err = errs->n;

	memset(out, 0, sizeof(*out));
	conf_errors_init(&out->warnings);
	if (len > CONF_MAX_FILE) {
		file_err(errs, name, 0, "file too large (more than %u bytes)",
			 CONF_MAX_FILE);
		return 1;
	}
	p.idx = calloc(1, sizeof(*p.idx));
	if (!p.idx)
		abort();
	add_default(&p);
	while (peek(&p)->type != T_EOF)
		parse_statement(&p);
	finish(&p);
	free(p.idx);
	sort_by_line(errs, first_err, name);
	sort_by_line(&out->warnings, 0, name);
	if (p.nerr)
		free_partitions(out);
	return p.nerr;
}

int part_load_file(struct part_config *out, const char *path,
		   struct conf_errors *errs)
{
	char *buf;
	size_t len;
	int ret = conf_read_file(path, errs, &buf, &len);

	memset(out, 0, sizeof(*out));
	if (ret == -ENOENT) {
		part_defaults(out);
		return -ENOENT;
	}
	if (ret < 0)
		return 1;
	ret = part_parse_buf(out, path, buf, len, errs);
	free(buf);
	return ret;
}

/* Written in file syntax, so the defaults cannot say what a file cannot. */
void part_defaults(struct part_config *out)
{
	static const char text[] = "Default=0x7fff, ipoib : ALL=full ;\n";
	struct conf_errors errs;

	conf_errors_init(&errs);
	if (part_parse_buf(out, "defaults", text, sizeof(text) - 1, &errs) ||
	    out->warnings.n) {
		conf_errors_print(&errs, stderr);
		abort();
	}
}

void part_config_free(struct part_config *c)
{
	free_partitions(c);
	conf_errors_free(&c->warnings);
}

const struct part_partition *part_find(const struct part_config *c, uint16_t pkey)
{
	for (size_t i = 0; i < c->n_parts; i++)
		if (c->parts[i].pkey == (pkey & 0x7fff))
			return &c->parts[i];
	return NULL;
}

/* ---- equality ---- */

static bool group_equal(const struct part_group *a, const struct part_group *b)
{
	return a->set == b->set && a->mtu == b->mtu && a->rate == b->rate &&
	       a->sl == b->sl && a->qkey == b->qkey && a->tclass == b->tclass &&
	       a->flowlabel == b->flowlabel && a->scopes == b->scopes;
}

static bool member_equal(const struct part_member *a, const struct part_member *b)
{
	return a->kind == b->kind && a->membership == b->membership &&
	       a->indx0 == b->indx0 && a->implicit == b->implicit &&
	       a->guid == b->guid;
}

static bool partition_equal(const struct part_partition *a,
			    const struct part_partition *b)
{
	if (strcmp(a->name, b->name) || a->pkey != b->pkey ||
	    a->flags != b->flags || !group_equal(&a->group, &b->group) ||
	    a->n_members != b->n_members || a->n_mgids != b->n_mgids)
		return false;
	for (size_t i = 0; i < a->n_members; i++)
		if (!member_equal(&a->members[i], &b->members[i]))
			return false;
	for (size_t i = 0; i < a->n_mgids; i++)
		if (memcmp(a->mgids[i].gid, b->mgids[i].gid, 16) ||
		    !group_equal(&a->mgids[i].group, &b->mgids[i].group))
			return false;
	return true;
}

bool part_config_equal(const struct part_config *a, const struct part_config *b)
{
	if (a->n_parts != b->n_parts)
		return false;
	for (size_t i = 0; i < a->n_parts; i++)
		if (!partition_equal(&a->parts[i], &b->parts[i]))
			return false;
	return true;
}

/* ---- canonical printer ---- */

/* The group parameters g sets, in table order: ", mtu=5, scope=2". */
static void dump_group(const struct part_group *g, FILE *out)
{
	char v[24];

	for (size_t i = 0; i < ARRAY_SIZE(part_flags); i++) {
		const struct part_flag *f = &part_flags[i];

		if (!(g->set & f->bit) || (f->kind != FK_NUM && f->kind != FK_SCOPE))
			continue;
		if (f->kind == FK_NUM) {
			fprintf(out, ", %s=%s", f->name,
				flag_value(f, group_value(g, f), v));
			continue;
		}
		for (unsigned s = 0; s < 16; s++)
			if (g->scopes & (1u << s))
				fprintf(out, ", %s=%u", f->name, s);
	}
}

static const char *kind_name(unsigned kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
		if (keywords[i].kind == (int)kind)
			return keywords[i].name;
	return "?";
}

static void dump_member(const struct part_member *m, FILE *out)
{
	if (m->kind == PART_M_GUID)
		fprintf(out, "\n\t0x%016llx=%s", (unsigned long long)m->guid,
			membership_names[m->membership]);
	else
		fprintf(out, "\n\t%s=%s", kind_name(m->kind),
			membership_names[m->membership]);
}

static bool has_explicit(const struct part_partition *pt)
{
	for (size_t i = 0; i < pt->n_members; i++)
		if (!pt->members[i].implicit)
			return true;
	return pt->flags || pt->group.set || pt->n_mgids;
}

/*
 * One statement for the explicit members from *i on that share indx0;
 * the first statement carries the flags and the mgid entries.
 */
static void dump_statement(const struct part_partition *pt, size_t *i,
			   bool first, FILE *out)
{
	bool indx0 = false, sep = false;
	char gid[INET6_ADDRSTRLEN];

	while (*i < pt->n_members && pt->members[*i].implicit)
		++*i;
	if (*i < pt->n_members)
		indx0 = pt->members[*i].indx0;
	fprintf(out, "%s=0x%04x%s%s", pt->name, pt->pkey,
		first && (pt->flags & PART_F_IPOIB) ? ", ipoib" : "",
		indx0 ? ", indx0" : "");
	if (first)
		dump_group(&pt->group, out);
	fprintf(out, " :");
	for (size_t j = 0; first && j < pt->n_mgids; j++) {
		fprintf(out, "\n\tmgid=%s", gid_text(pt->mgids[j].gid, gid));
		dump_group(&pt->mgids[j].group, out);
	}
	for (; *i < pt->n_members; ++*i) {
		const struct part_member *m = &pt->members[*i];

		if (m->implicit)
			continue;
		if (m->indx0 != indx0)
			break;
		fprintf(out, "%s", sep ? "," : "");
		dump_member(m, out);
		sep = true;
	}
	fprintf(out, " ;\n");
}

void part_dump(const struct part_config *c, FILE *out)
{
	fprintf(out, "# Partitions in canonical form (OpenSM partitions.conf "
		"syntax).\n# Default (0x7fff) always starts with ALL=limited, "
		"SELF=full; for each\n# port the last entry that names it "
		"wins.\n");
	for (size_t i = 0; i < c->n_parts; i++) {
		const struct part_partition *pt = &c->parts[i];
		size_t m = 0;

		if (!pt->line && !has_explicit(pt))
			continue;
		dump_statement(pt, &m, true, out);
		while (m < pt->n_members)
			dump_statement(pt, &m, false, out);
	}
}

/* ---- groups ---- */

void part_group_params(const struct part_partition *p, const struct part_mgid *m,
		       struct part_group *out)
{
	*out = p->group;
	for (size_t i = 0; m && i < ARRAY_SIZE(part_flags); i++) {
		const struct part_flag *f = &part_flags[i];

		if (f->kind == FK_NUM && (m->group.set & f->bit))
			*group_field(out, f) = group_value(&m->group, f);
	}
	if (m)
		out->scopes |= m->group.scopes;
	if (!out->scopes)
		out->scopes = 1u << DEFAULT_SCOPE;
	if (!out->qkey && (!m || gid_is_ip(m->gid)))
		out->qkey = PART_IPOIB_QKEY;
	out->set = PART_G_MTU | PART_G_RATE | PART_G_SL | PART_G_SCOPE |
		   PART_G_QKEY | PART_G_TCLASS | PART_G_FLOWLABEL;
}

void part_ipoib_mgid(uint16_t pkey, unsigned scope, uint8_t gid[16])
{
	uint16_t full = pkey | PART_PKEY_FULL;

	memset(gid, 0, 16);
	gid[0] = 0xff;
	gid[1] = (uint8_t)(0x10 | (scope & 0xf));   /* T flag: not permanent */
	gid[2] = 0x40;
	gid[3] = 0x1b;
	gid[4] = (uint8_t)(full >> 8);
	gid[5] = (uint8_t)full;
	memset(gid + 12, 0xff, 4);   /* IPv4 broadcast 255.255.255.255 */
}

/* ---- resolver ---- */

static bool member_matches(const struct part_member *m, const struct part_port *port)
{
	switch (m->kind) {
	case PART_M_GUID:
		return m->guid == port->guid;
	case PART_M_ALL:
		return true;
	case PART_M_ALL_CAS:
		return !port->is_switch && !port->is_router;
	case PART_M_ALL_SWITCHES:
		return port->is_switch;
	case PART_M_ALL_ROUTERS:
		return port->is_router;
	case PART_M_SELF:
		return port->is_sm;
	}
	return false;
}

unsigned part_port_membership(const struct part_partition *p,
			      const struct part_port *port, bool allow_both,
			      bool *indx0)
{
	const struct part_member *last = NULL;

	for (size_t i = p->n_members; i-- > 0 && !last;)
		if (member_matches(&p->members[i], port))
			last = &p->members[i];
	if (indx0)
		*indx0 = last && last->indx0;
	if (!last)
		return 0;
	/* without allow_both_pkeys OpenSM adds a "both" port as full only */
	if (last->membership == PART_BOTH && !allow_both)
		return PART_FULL;
	return last->membership;
}

/* By P_Key, the full one first. */
static int cmp_pkey(const void *a, const void *b)
{
	unsigned x = *(const uint16_t *)a, y = *(const uint16_t *)b;
	unsigned kx = (x & 0x7fff) << 1 | !(x & PART_PKEY_FULL);
	unsigned ky = (y & 0x7fff) << 1 | !(y & PART_PKEY_FULL);

	return (kx > ky) - (kx < ky);
}

size_t part_port_pkeys(const struct part_config *c, const struct part_port *port,
		       bool allow_both, uint16_t *pkeys, size_t cap)
{
	uint16_t *all = xmalloc(2 * c->n_parts * sizeof(*all)), zero = 0;
	int zero_rank = 0;   /* 1: the Default P_Key, 2: an indx0 one */
	size_t n = 0, k = 0;

	for (size_t i = 0; i < c->n_parts; i++) {
		const struct part_partition *pt = &c->parts[i];
		bool ix;
		unsigned m = part_port_membership(pt, port, allow_both, &ix);
		uint16_t key = m & PART_FULL ? pt->pkey | PART_PKEY_FULL : pt->pkey;
		int rank = ix ? 2 : pt->pkey == PART_DEFAULT_PKEY;

		if (!m)
			continue;
		if (rank > zero_rank) {
			zero = key;
			zero_rank = rank;
		}
		if (m & PART_FULL)
			all[n++] = pt->pkey | PART_PKEY_FULL;
		if (m & PART_LIMITED)
			all[n++] = pt->pkey;
	}
	qsort(all, n, sizeof(*all), cmp_pkey);
	if (zero_rank && cap)
		pkeys[k] = zero;
	k += zero_rank > 0;
	for (size_t i = 0; i < n; i++) {
		if (zero_rank && all[i] == zero)
			continue;
		if (k < cap)
			pkeys[k] = all[i];
		k++;
	}
	free(all);
	return k;
}
