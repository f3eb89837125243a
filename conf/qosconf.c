/*
 * DOC: parsers for the QoS option values (see qosconf.h).
 *
 * Hand-written scanners over NUL-terminated text: numbers are decimal or
 * 0x hex, blanks around separators are allowed, nothing else is. The
 * option table (conf.c) runs the same parsers as checks, so a value that
 * reached a running configuration always parses here.
 */
#include "config.h"

#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "conf/qosconf.h"

__attribute__((format(printf, 3, 4)))
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A number at *s up to max; advances *s past it. */
static bool number(const char **s, unsigned max, unsigned *out)
{
	const char *p = *s;
	unsigned long v = 0;
	bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	unsigned base = hex ? 16 : 10, digits = 0;

	for (p += hex ? 2 : 0;; p++, digits++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (hex && ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f'))
			d = (unsigned)((*p | 0x20) - 'a' + 10);
		else
			break;
		v = v * base + d;
		if (v > max)
			return false;
	}
	if (!digits)
		return false;
	*out = (unsigned)v;
	*s = p;
	return true;
}

static int arb_entry(const char **s, struct qos_arb *e, char *err, size_t errlen)
{
	unsigned vl, w;

	*s = skip_blanks(*s);
	if (!number(s, QOS_DATA_VLS - 1, &vl)) {
		errf(err, errlen, "VLArbitration entry needs a VL 0..14");
		return -1;
	}
	*s = skip_blanks(*s);
	if (**s != ':') {
		errf(err, errlen, "VLArbitration entry is VL:Weight");
		return -1;
	}
	*s = skip_blanks(*s + 1);
	if (!number(s, 255, &w)) {
		errf(err, errlen, "VLArbitration weight must be 0..255");
		return -1;
	}
	e->vl = (uint8_t)vl;
	e->weight = (uint8_t)w;
	return 0;
}

int qos_parse_vlarb(const char *s, struct qos_arb *out, size_t *n, char *err, size_t errlen)
{
	*n = 0;
	if (!*skip_blanks(s))
		return 0;
	for (;;) {
		if (*n == QOS_MAX_ARB) {
			errf(err, errlen, "more than %d VLArbitration entries", QOS_MAX_ARB);
			return -1;
		}
		if (arb_entry(&s, &out[*n], err, errlen) < 0)
			return -1;
		(*n)++;
		s = skip_blanks(s);
		if (!*s)
			return 0;
		if (*s++ != ',') {
			errf(err, errlen, "VLArbitration entries are separated by ','");
			return -1;
		}
	}
}

int qos_parse_sl2vl(const char *s, uint8_t out[16], char *err, size_t errlen)
{
	for (unsigned sl = 0; sl < 16; sl++) {
		unsigned vl;

		s = skip_blanks(s);
		if (!number(&s, 15, &vl)) {
			errf(err, errlen, "SL2VL entry %u must be a VL 0..15", sl);
			return -1;
		}
		out[sl] = (uint8_t)vl;
		s = skip_blanks(s);
		if (sl < 15 && !*s) {
			errf(err, errlen, "SL2VL needs 16 VLs, got %u", sl + 1);
			return -1;
		}
		if (sl < 15 && *s++ != ',') {
			errf(err, errlen, "SL2VL needs 16 VLs separated by ','");
			return -1;
		}
	}
	if (*s) {
		errf(err, errlen, "SL2VL has more than 16 entries");
		return -1;
	}
	return 0;
}

/* The short form's keys, in the order of qosconf.h. */
enum class_key { K_MAX_VLS, K_HIGH_LIMIT, K_VLARB_HIGH, K_VLARB_LOW, K_SL2VL, K_COUNT };

static const char *const class_keys[K_COUNT] = {
	"max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl",
};

static int class_value(enum class_key k, const char *v, struct qos_params *p, char *err,
		       size_t errlen)
{
	const char *s = v;
	unsigned u;

	switch (k) {
	case K_MAX_VLS:
	case K_HIGH_LIMIT:
		if (!number(&s, k == K_MAX_VLS ? QOS_DATA_VLS : 255, &u) || *s ||
		    (k == K_MAX_VLS && u == 0)) {
			errf(err, errlen, "%s must be %s", class_keys[k],
			     k == K_MAX_VLS ? "1..15" : "0..255");
			return -1;
		}
		*(k == K_MAX_VLS ? &p->max_vls : &p->high_limit) = u;
		return 0;
	case K_VLARB_HIGH:
		return qos_parse_vlarb(v, p->high, &p->nhigh, err, errlen);
	case K_VLARB_LOW:
		return qos_parse_vlarb(v, p->low, &p->nlow, err, errlen);
	case K_SL2VL:
		return qos_parse_sl2vl(v, p->sl2vl, err, errlen);
	case K_COUNT:
		break;
	}
	assert(!"bad class key");
	return -1;
}

/* One "key=value" of n bytes. */
static int class_item(const char *s, size_t n, unsigned *seen, struct qos_params *p, char *err,
		      size_t errlen)
{
	const char *eq = memchr(s, '=', n);
	char val[512];

	for (unsigned k = 0; eq && k < K_COUNT; k++) {
		if (strlen(class_keys[k]) != (size_t)(eq - s) || strncmp(s, class_keys[k], (size_t)(eq - s)))
			continue;
		if (*seen & (1u << k)) {
			errf(err, errlen, "%s given twice", class_keys[k]);
			return -1;
		}
		*seen |= 1u << k;
		if (n - (size_t)(eq - s) - 1 >= sizeof(val)) {
			errf(err, errlen, "%s: value too long", class_keys[k]);
			return -1;
		}
		snprintf(val, sizeof(val), "%.*s", (int)(n - (size_t)(eq - s) - 1), eq + 1);
		return class_value((enum class_key)k, val, p, err, errlen);
	}
	errf(err, errlen, "expected max_vls=, high_limit=, vlarb_high=, vlarb_low= or sl2vl=, got '%.*s'",
	     (int)(n > 32 ? 32 : n), s);
	return -1;
}

int qos_parse_class(const char *s, struct qos_params *p, char *err, size_t errlen)
{
	static const char sep[] = " \t;";
	unsigned seen = 0;

	for (s += strspn(s, sep); *s; s += strspn(s, sep)) {
		size_t n = strcspn(s, sep);

		if (class_item(s, n, &seen, p, err, errlen) < 0)
			return -1;
		s += n;
	}
	return 0;
}

int qos_check_vlarb(const char *s, char *err, size_t errlen)
{
	struct qos_arb a[QOS_MAX_ARB];
	size_t n;

	return qos_parse_vlarb(s, a, &n, err, errlen);
}

int qos_check_sl2vl(const char *s, char *err, size_t errlen)
{
	uint8_t m[16];

	return qos_parse_sl2vl(s, m, err, errlen);
}

int qos_check_class(const char *s, char *err, size_t errlen)
{
	struct qos_params p;

	memset(&p, 0, sizeof(p));
	return qos_parse_class(s, &p, err, errlen);
}

static const char *class_option(const struct sm_conf *c, enum qos_class k)
{
	switch (k) {
	case QOS_CA: return c->qos_ca;
	case QOS_RTR: return c->qos_rtr;
	case QOS_SW0: return c->qos_sw0;
	case QOS_SWE: return c->qos_swe;
	case QOS_NCLASSES: break;
	}
	return "";
}

const char *qos_class_name(enum qos_class k)
{
	static const char *const names[QOS_NCLASSES] = { "ca", "rtr", "sw0", "swe" };

	return k < QOS_NCLASSES ? names[k] : "?";
}

void qos_params_for(const struct sm_conf *c, enum qos_class k, struct qos_params *out)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->max_vls = c->qos_max_vls;
	out->high_limit = c->qos_high_limit;
	rc |= qos_parse_vlarb(c->qos_vlarb_high, out->high, &out->nhigh, NULL, 0);
	rc |= qos_parse_vlarb(c->qos_vlarb_low, out->low, &out->nlow, NULL, 0);
	rc |= qos_parse_sl2vl(c->qos_sl2vl, out->sl2vl, NULL, 0);
	rc |= qos_parse_class(class_option(c, k), out, NULL, 0);
	assert(rc == 0);   /* the option table checked every value */
	(void)rc;
}
