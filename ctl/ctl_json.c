/*
 * DOC: strict JSON check of a control request line (see ctl_json.h).
 *
 * A recursive-descent scanner over (buf, len) that builds nothing: it
 * only decodes member names, into one scratch buffer no longer than the
 * line, to compare them within their object. Recursion is bounded by
 * CTL_JSON_MAX_DEPTH and the name comparisons by CTL_JSON_MAX_MEMBERS per
 * object, so a 64 KiB line costs at most a few hundred thousand steps.
 * Grammar: RFC 8259 sections 2-7; UTF-8: RFC 3629 section 4.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_json.h"

struct scan {
	const char *start, *p, *end;
	char *names;            /* decoded member names of the open objects */
	size_t used;
	int depth;              /* arrays and objects */
	int odepth;             /* objects only */
	struct ctl_json_error *err;
};

static int fail(struct scan *s, const char *msg)
{
	snprintf(s->err->msg, sizeof(s->err->msg), "%s", msg);
	s->err->offset = (size_t)(s->p - s->start);
	return -1;
}

static int syntax(struct scan *s, const char *msg)
{
	s->err->syntax = true;
	return fail(s, msg);
}

static bool more(const struct scan *s)
{
	return s->p < s->end;
}

static void skip_blanks(struct scan *s)
{
	while (more(s) && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* Length of the UTF-8 sequence at p (1 to 4), 0 when it is not valid
 * UTF-8: overlong forms, UTF-16 surrogates and code points past U+10FFFF
 * are not (RFC 3629 section 4). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	uint32_t cp;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1fu;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07u;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		return 0;
	if (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return n;
}

static size_t utf8_put(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Four hex digits after "\u" at s->p (which points at the 'u'). */
static int hex4(struct scan *s, uint32_t *cp)
{
	*cp = 0;
	if (s->end - s->p < 5)
		return syntax(s, "truncated \\u escape");
	for (int i = 1; i <= 4; i++) {
		char c = s->p[i];

		*cp <<= 4;
		if (c >= '0' && c <= '9')
			*cp |= (uint32_t)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*cp |= (uint32_t)((c | 0x20) - 'a' + 10);
		else
			return syntax(s, "bad hex digit in a \\u escape");
	}
	s->p += 5;
	return 0;
}

/* "\uXXXX", or a surrogate pair "\uD8xx\uDCxx", at s->p ('u'). */
static int unicode_escape(struct scan *s, uint32_t *cp)
{
	uint32_t lo;

	if (hex4(s, cp) < 0)
		return -1;
	if (*cp == 0)
		return fail(s, "\\u0000 in a string");
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(s, "lone UTF-16 surrogate in a \\u escape");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
		return fail(s, "lone UTF-16 surrogate in a \\u escape");
	s->p++;
	if (hex4(s, &lo) < 0)
		return -1;
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(s, "lone UTF-16 surrogate in a \\u escape");
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* One escape at s->p (just past the backslash); its bytes go to out. */
static int escape(struct scan *s, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	uint32_t cp;

	if (!more(s))
		return syntax(s, "unterminated string");
	if (*s->p == 'u') {
		if (unicode_escape(s, &cp) < 0)
			return -1;
		*n = utf8_put(cp, out);
		return 0;
	}
	k = memchr(from, *s->p, sizeof(from) - 1);
	if (!k)
		return syntax(s, "bad escape in a string");
	out[0] = to[k - from];
	*n = 1;
	s->p++;
	return 0;
}

/* A string at s->p (the opening quote). Its decoded bytes are appended
 * to out when out is not NULL (room: as many bytes as the raw text). */
static int string(struct scan *s, char *out, size_t *outlen)
{
	char tmp[4];
	size_t n;

	*outlen = 0;
	for (s->p++;; s->p += n) {
		if (!more(s))
			return syntax(s, "unterminated string");
		if (*s->p == '"') {
			s->p++;
			return 0;
		}
		if ((unsigned char)*s->p < 0x20)
			return syntax(s, "control character in a string");
		if (*s->p == '\\') {
			s->p++;
			if (escape(s, tmp, &n) < 0)
				return -1;
			if (out)
				memcpy(out + *outlen, tmp, n);
			*outlen += n;
			n = 0;     /* escape() moved s->p */
			continue;
		}
		n = utf8_len((const unsigned char *)s->p, (const unsigned char *)s->end);
		if (!n)
			return fail(s, "invalid UTF-8 in a string");
		if (out)
			memcpy(out + *outlen, s->p, n);
		*outlen += n;
	}
}

static bool digit(const struct scan *s)
{
	return more(s) && *s->p >= '0' && *s->p <= '9';
}

static int digits(struct scan *s)
{
	if (!digit(s))
		return syntax(s, "bad number");
	while (digit(s))
		s->p++;
	return 0;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(struct scan *s)
{
	if (*s->p == '-')
		s->p++;
	if (more(s) && *s->p == '0')
		s->p++;
	else if (digits(s) < 0)
		return -1;
	if (more(s) && *s->p == '.') {
		s->p++;
		if (digits(s) < 0)
			return -1;
	}
	if (more(s) && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (more(s) && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s) < 0)
			return -1;
	}
	return 0;
}

static int literal(struct scan *s)
{
	static const char *const words[] = { "true", "false", "null" };

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);

		if ((size_t)(s->end - s->p) >= n && memcmp(s->p, words[i], n) == 0) {
			s->p += n;
			return 0;
		}
	}
	return syntax(s, "not a JSON value");
}

static int value(struct scan *s);

static int enter(struct scan *s)
{
	if (++s->depth > CTL_JSON_MAX_DEPTH)
		return fail(s, "nested too deeply");
	s->p++;
	skip_blanks(s);
	return 0;
}

/* After a member or element: ',' (1, go on) or the closing bracket (0). */
static int next(struct scan *s, char close)
{
	skip_blanks(s);
	if (more(s) && *s->p == ',') {
		s->p++;
		skip_blanks(s);
		return 1;
	}
	if (more(s) && *s->p == close) {
		s->p++;
		s->depth--;
		return 0;
	}
	return syntax(s, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

static int array(struct scan *s)
{
	int r;

	if (enter(s) < 0)
		return -1;
	if (more(s) && *s->p == ']') {
		s->p++;
		s->depth--;
		return 0;
	}
	do {
		if (value(s) < 0)
			return -1;
	} while ((r = next(s, ']')) == 1);
	return r;
}

/* The member name being scanned and its place, for error messages. */
static void blame(struct scan *s, const char *name, size_t len)
{
	struct ctl_json_error *e = s->err;
	size_t n = len < sizeof(e->field) - 1 ? len : sizeof(e->field) - 1;

	if (e->field[0])
		return;    /* a deeper member was named already */
	/* cut at a character boundary, so the name stays valid UTF-8 */
	while (n < len && n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;
	memcpy(e->field, name, n);
	e->field[n] = '\0';
	e->depth = s->odepth;
}

/* One "name": value member; names[0..nnames) are the earlier ones of this
 * object as (offset, length) in s->names. */
static int member(struct scan *s, uint32_t (*names)[2], size_t nnames)
{
	size_t off = s->used, len;
	const char *name;

	if (!more(s) || *s->p != '"')
		return syntax(s, "expected a member name");
	if (string(s, s->names + off, &len) < 0)
		return -1;
	name = s->names + off;
	for (size_t i = 0; i < nnames; i++) {
		if (names[i][1] == len && memcmp(s->names + names[i][0], name, len) == 0) {
			blame(s, name, len);
			return fail(s, "duplicate member name");
		}
	}
	names[nnames][0] = (uint32_t)off;
	names[nnames][1] = (uint32_t)len;
	s->used += len;
	skip_blanks(s);
	if (!more(s) || *s->p != ':')
		return syntax(s, "expected ':' after a member name");
	s->p++;
	skip_blanks(s);
	if (value(s) == 0)
		return 0;
	blame(s, name, len);
	return -1;
}

static int object(struct scan *s)
{
	uint32_t names[CTL_JSON_MAX_MEMBERS][2];
	size_t n = 0, mark = s->used;
	int r;

	if (enter(s) < 0)
		return -1;
	s->odepth++;
	if (more(s) && *s->p == '}') {
		s->p++;
		s->depth--;
		s->odepth--;
		return 0;
	}
	do {
		if (n == CTL_JSON_MAX_MEMBERS)
			return fail(s, "too many members in an object");
		if (member(s, names, n++) < 0)
			return -1;
	} while ((r = next(s, '}')) == 1);
	/* the names of a closed object are not needed any more */
	s->used = mark;
	s->odepth--;
	return r;
}

static int value(struct scan *s)
{
	size_t len;

	if (!more(s))
		return syntax(s, "missing value");
	switch (*s->p) {
	case '{':
		return object(s);
	case '[':
		return array(s);
	case '"':
		return string(s, NULL, &len);
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return number(s);
	default:
		return literal(s);
	}
}

int ctl_json_check(const char *buf, size_t len, struct ctl_json_error *err)
{
	struct scan s = { .start = buf, .p = buf, .end = buf + len, .err = err };
	int r;

	memset(err, 0, sizeof(*err));
	if (len > UINT32_MAX)
		return fail(&s, "too long");
	s.names = malloc(len + 1);
	if (!s.names)
		return fail(&s, "out of memory");
	skip_blanks(&s);
	r = value(&s);
	if (r == 0) {
		skip_blanks(&s);
		if (more(&s))
			r = syntax(&s, "trailing data after the value");
	}
	free(s.names);
	return r;
}
