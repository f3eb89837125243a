/*
 * DOC: the ibnetdiscover / ibsim net parser (see topo_parse.h).
 *
 * Two passes: lines are parsed into nodes and one-sided port records;
 * then remote names are resolved through a sorted name index and links
 * are made symmetric. Every token is bounds-checked against the line end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "routing/graph.h"
#include "routing/topo_parse.h"

#define MAX_NODES (1u << 20)

struct plink {
	uint32_t node, line;
	uint8_t port, rport;
	char *rname;
};

struct parser {
	struct topo t;
	uint32_t cap;
	char **names;        /* per node */
	uint32_t *nline;     /* header line of each node */
	struct plink *links;
	uint32_t nlinks, lcap;
	uint32_t cur;        /* node of the current record or TOPO_NONE */
	uint32_t line;
	uint64_t next_guid[3];
	char *err;
	size_t errlen;
};

struct cursor {
	const char *s, *e;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "line %u: %s", p->line, msg);
	return -1;
}

static void skip_ws(struct cursor *c)
{
	while (c->s < c->e && (*c->s == ' ' || *c->s == '\t' || *c->s == '\r'))
		c->s++;
}

static int at(const struct cursor *c, char ch)
{
	return c->s < c->e && *c->s == ch;
}

/* Unsigned number in base 10 or 16 (0x prefix when base is 0). */
static int get_num(struct cursor *c, int base, uint64_t max, uint64_t *v)
{
	const char *s = c->s;
	uint64_t x = 0;

	if (base == 0) {
		base = 10;
		if (c->e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
		}
	}
	const char *start = s;
	for (; s < c->e; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (x > (max - (uint64_t)d) / (uint64_t)base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	if (s == start)
		return -1;
	c->s = s;
	*v = x;
	return 0;
}

static int get_quoted(struct cursor *c, const char **str, size_t *len)
{
	if (!at(c, '"'))
		return -1;
	const char *q = memchr(c->s + 1, '"', (size_t)(c->e - c->s - 1));
	if (!q)
		return -1;
	*str = c->s + 1;
	*len = (size_t)(q - c->s - 1);
	c->s = q + 1;
	return 0;
}

/* "[N]" with 1 <= N <= max. */
static int get_port(struct cursor *c, uint64_t max, uint8_t *port)
{
	uint64_t v;

	if (!at(c, '['))
		return -1;
	c->s++;
	if (get_num(c, 10, 255, &v) || !at(c, ']') || v == 0 || v > max)
		return -1;
	c->s++;
	*port = (uint8_t)v;
	return 0;
}

/* Optional "(hexguid)". */
static int get_paren_guid(struct cursor *c, uint64_t *g, int *have)
{
	*have = 0;
	if (!at(c, '('))
		return 0;
	c->s++;
	if (get_num(c, 16, UINT64_MAX, g) || !at(c, ')'))
		return -1;
	c->s++;
	*have = 1;
	return 0;
}

static int word_is(const struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(c->e - c->s) >= n && !strncasecmp(c->s, w, n);
}

static char *xstrndup(const char *s, size_t len)
{
	char *n = rg_xmalloc(len + 1, 1);

	memcpy(n, s, len);
	n[len] = 0;
	return n;
}

/* "lid N" / "lmc N" / "w=N" / "4xQDR" style tokens in [s, e). */
static void scan_attrs(struct cursor c, uint16_t *lid, uint8_t *lmc)
{
	uint64_t v;

	while (c.s < c.e) {
		skip_ws(&c);
		if (word_is(&c, "lid ")) {
			c.s += 4;
			skip_ws(&c);
			if (!get_num(&c, 0, TOPO_MAX_UCAST_LID, &v) && lid)
				*lid = (uint16_t)v;
		} else if (word_is(&c, "lmc ")) {
			c.s += 4;
			skip_ws(&c);
			if (!get_num(&c, 10, 7, &v) && lmc)
				*lmc = (uint8_t)v;
		}
		while (c.s < c.e && *c.s != ' ' && *c.s != '\t')
			c.s++;
	}
}

/* Width (IBA LinkWidthActive encoding) from "w=N" or "4xQDR". */
static uint8_t scan_width(struct cursor c)
{
	static const struct { const char *tok; uint8_t w; } tab[] = {
		{ "w=12", 8 }, { "w=1", 1 }, { "w=4", 2 }, { "w=8", 4 },
		{ "12x", 8 }, { "1x", 1 }, { "4x", 2 }, { "8x", 4 },
	};

	while (c.s < c.e) {
		skip_ws(&c);
		for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			if (word_is(&c, tab[i].tok))
				return tab[i].w;
		while (c.s < c.e && *c.s != ' ' && *c.s != '\t')
			c.s++;
	}
	return 0;
}

static uint8_t scan_speed(struct cursor c)
{
	static const struct { const char *tok; uint8_t sp; } tab[] = {
		{ "SDR", 1 }, { "DDR", 2 }, { "QDR", 4 },
	};

	for (; c.s + 3 <= c.e; c.s++)
		for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			if (!strncmp(c.s, tab[i].tok, 3))
				return tab[i].sp;
	return 0;
}

/* The part of a comment before its first quoted string: local attributes. */
static struct cursor before_quote(struct cursor c)
{
	const char *q = memchr(c.s, '"', (size_t)(c.e - c.s));

	if (q)
		c.e = q;
	return c;
}

static int guid_line(struct parser *p, struct cursor c)
{
	static const char *const kw[3] = { "switchguid=", "caguid=", "rtguid=" };
	uint64_t v;

	for (int i = 0; i < 3; i++) {
		if (!word_is(&c, kw[i]))
			continue;
		c.s += strlen(kw[i]);
		if (get_num(&c, 0, UINT64_MAX, &v))
			return fail(p, "bad GUID after %s", kw[i]);
		p->next_guid[i] = v;
		return 0;
	}
	return 0; /* sysimgguid=, vendid=, devid=: nothing we need */
}

static uint32_t new_node(struct parser *p, uint8_t type, uint8_t nports)
{
	if (p->t.nnodes == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->t.nodes = realloc(p->t.nodes, p->cap * sizeof(*p->t.nodes));
		p->names = realloc(p->names, p->cap * sizeof(*p->names));
		p->nline = realloc(p->nline, p->cap * sizeof(*p->nline));
		if (!p->t.nodes || !p->names || !p->nline)
			abort();
	}
	uint32_t i = p->t.nnodes++;
	struct topo_node *n = &p->t.nodes[i];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->nports = nports;
	n->ports = rg_xcalloc(nports + 1u, sizeof(*n->ports));
	for (uint32_t k = 0; k <= nports; k++)
		n->ports[k].peer_node = TOPO_NONE;
	p->names[i] = NULL;
	p->nline[i] = p->line;
	return i;
}

static void set_guids(struct parser *p, struct topo_node *n)
{
	int k = n->type == TOPO_SWITCH ? 0 : n->type == TOPO_CA ? 1 : 2;

	n->guid = p->next_guid[k];
	p->next_guid[k] += n->type == TOPO_SWITCH ? 1 : n->nports + 1u;
	for (uint32_t i = 0; i <= n->nports; i++)
		n->ports[i].guid = n->type == TOPO_SWITCH ? n->guid : n->guid + i;
}

static int header_type(struct cursor *c, uint8_t *type)
{
	static const struct { const char *w; uint8_t t; } tab[] = {
		{ "Switch", TOPO_SWITCH }, { "Hca", TOPO_CA }, { "Ca", TOPO_CA },
		{ "Rt", TOPO_ROUTER }, { "Router", TOPO_ROUTER },
	};

	for (size_t i = sizeof(tab) / sizeof(tab[0]); i-- > 0;) {
		size_t n = strlen(tab[i].w);
		if (word_is(c, tab[i].w) && c->s + n < c->e &&
		    (c->s[n] == ' ' || c->s[n] == '\t')) {
			c->s += n;
			*type = tab[i].t;
			return 0;
		}
	}
	return -1;
}

static int header_line(struct parser *p, struct cursor c)
{
	uint8_t type;
	uint64_t np;
	const char *name;
	size_t nlen;

	if (header_type(&c, &type))
		return fail(p, "expected Switch, Hca, Ca or Rt, a port line or a GUID line");
	skip_ws(&c);
	if (get_num(&c, 10, TOPO_MAX_PORTS, &np) || np == 0)
		return fail(p, "port count must be 1-%u", TOPO_MAX_PORTS);
	skip_ws(&c);
	if (get_quoted(&c, &name, &nlen) || nlen == 0)
		return fail(p, "expected a quoted node name");
	if (p->t.nnodes >= MAX_NODES)
		return fail(p, "more than %u nodes", MAX_NODES);
	uint32_t i = new_node(p, type, (uint8_t)np);
	struct topo_node *n = &p->t.nodes[i];
	p->names[i] = xstrndup(name, nlen);
	set_guids(p, n);
	snprintf(n->desc, sizeof(n->desc), "%.*s", (int)(nlen < 64 ? nlen : 64), name);
	skip_ws(&c);
	if (at(&c, '#')) {
		struct cursor d = { c.s + 1, c.e };
		skip_ws(&d);
		if (!get_quoted(&d, &name, &nlen))
			snprintf(n->desc, sizeof(n->desc), "%.*s", (int)(nlen < 64 ? nlen : 64), name);
		if (type == TOPO_SWITCH)
			scan_attrs(d, &n->ports[0].lid, &n->ports[0].lmc);
	}
	p->cur = i;
	return 0;
}

static void add_plink(struct parser *p, uint8_t port, const char *rn, size_t rlen, uint8_t rport)
{
	if (p->nlinks == p->lcap) {
		p->lcap = p->lcap ? p->lcap * 2 : 256;
		p->links = realloc(p->links, p->lcap * sizeof(*p->links));
		if (!p->links)
			abort();
	}
	p->links[p->nlinks++] = (struct plink){ p->cur, p->line, port, rport,
						xstrndup(rn, rlen) };
}

/* Local LID/LMC (CA ports), width and speed from what follows the link. */
static void port_extras(struct parser *p, struct topo_port *tp, struct cursor c)
{
	struct topo_node *n = &p->t.nodes[p->cur];
	const char *hash = memchr(c.s, '#', (size_t)(c.e - c.s));

	tp->width = scan_width(c);
	tp->speed = scan_speed(c);
	if (hash && n->type != TOPO_SWITCH) {
		struct cursor d = before_quote((struct cursor){ hash + 1, c.e });
		scan_attrs(d, &tp->lid, &tp->lmc);
	}
}

static int port_line(struct parser *p, struct cursor c)
{
	uint8_t port, rport;
	uint64_t g;
	int have;
	const char *rn;
	size_t rlen;

	if (p->cur == TOPO_NONE)
		return fail(p, "port line outside a node record");
	struct topo_node *n = &p->t.nodes[p->cur];
	if (get_port(&c, n->nports, &port))
		return fail(p, "bad local port (node has %u ports)", n->nports);
	if (get_paren_guid(&c, &g, &have))
		return fail(p, "bad port GUID");
	if (have && n->type != TOPO_SWITCH)
		n->ports[port].guid = g;
	skip_ws(&c);
	if (get_quoted(&c, &rn, &rlen) || rlen == 0)
		return fail(p, "expected a quoted remote node name");
	skip_ws(&c);
	if (get_port(&c, TOPO_MAX_PORTS, &rport))
		return fail(p, "bad remote port");
	if (get_paren_guid(&c, &g, &have))
		return fail(p, "bad remote port GUID");
	for (uint32_t i = p->nlinks; i-- > 0 && p->links[i].node == p->cur;)
		if (p->links[i].port == port)
			return fail(p, "port %u listed twice", port);
	port_extras(p, &n->ports[port], c);
	add_plink(p, port, rn, rlen, rport);
	return 0;
}

static int parse_line(struct parser *p, struct cursor c)
{
	skip_ws(&c);
	if (c.s == c.e) {
		p->cur = TOPO_NONE; /* a blank line ends a record */
		return 0;
	}
	if (*c.s == '#')
		return 0;
	if (*c.s == '[')
		return port_line(p, c);
	const char *eq = memchr(c.s, '=', (size_t)(c.e - c.s));
	const char *q = memchr(c.s, '"', (size_t)(c.e - c.s));
	if (eq && (!q || eq < q))
		return guid_line(p, c);
	return header_line(p, c);
}

struct name_ix {
	const char *name;
	uint32_t idx;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct name_ix *)a)->name, ((const struct name_ix *)b)->name);
}

static int join(struct parser *p, const struct plink *l, uint32_t r)
{
	struct topo_node *rn = &p->t.nodes[r];

	p->line = l->line;
	if (l->rport > rn->nports)
		return fail(p, "\"%s\" has only %u ports", p->names[r], rn->nports);
	if (r == l->node && l->rport == l->port)
		return fail(p, "port %u is linked to itself", l->port);
	struct topo_port *a = &p->t.nodes[l->node].ports[l->port], *b = &rn->ports[l->rport];
	if ((a->peer_node != TOPO_NONE && (a->peer_node != r || a->peer_port != l->rport)) ||
	    (b->peer_node != TOPO_NONE && (b->peer_node != l->node || b->peer_port != l->port)))
		return fail(p, "[%u] -> \"%s\"[%u] conflicts with another port line", l->port,
			    p->names[r], l->rport);
	a->peer_node = r;
	a->peer_port = l->rport;
	b->peer_node = l->node;
	b->peer_port = l->port;
	a->state = b->state = TOPO_PORT_ACTIVE;
	if (!a->width)
		a->width = b->width;
	if (!b->width)
		b->width = a->width;
	if (!a->speed)
		a->speed = b->speed;
	if (!b->speed)
		b->speed = a->speed;
	return 0;
}

static int resolve_links(struct parser *p)
{
	uint32_t n = p->t.nnodes;
	struct name_ix *ix = rg_xmalloc(n ? n : 1, sizeof(*ix));
	int rc = 0;

	for (uint32_t i = 0; i < n; i++)
		ix[i] = (struct name_ix){ p->names[i], i };
	qsort(ix, n, sizeof(*ix), cmp_name);
	for (uint32_t i = 1; i < n && !rc; i++)
		if (!strcmp(ix[i].name, ix[i - 1].name)) {
			uint32_t later = ix[i].idx > ix[i - 1].idx ? ix[i].idx : ix[i - 1].idx;
			p->line = p->nline[later];
			rc = fail(p, "node \"%s\" defined twice", ix[i].name);
		}
	for (uint32_t i = 0; i < p->nlinks && !rc; i++) {
		struct name_ix key = { p->links[i].rname, 0 };
		const struct name_ix *f = bsearch(&key, ix, n, sizeof(*ix), cmp_name);
		if (!f) {
			p->line = p->links[i].line;
			rc = fail(p, "unknown node \"%s\"", p->links[i].rname);
		} else {
			rc = join(p, &p->links[i], f->idx);
		}
	}
	free(ix);
	return rc;
}

static void parser_free(struct parser *p)
{
	for (uint32_t i = 0; i < p->t.nnodes; i++)
		free(p->names[i]);
	for (uint32_t i = 0; i < p->nlinks; i++)
		free(p->links[i].rname);
	free(p->names);
	free(p->nline);
	free(p->links);
}

int topo_parse(const char *buf, size_t len, struct topo *out, char *err, size_t errlen)
{
	struct parser p;
	const char *s = buf, *end = buf + len;
	int rc = 0;

	memset(&p, 0, sizeof(p));
	p.cur = TOPO_NONE;
	p.err = err;
	p.errlen = errlen;
	p.next_guid[0] = 0x200000;
	p.next_guid[1] = 0x100000;
	p.next_guid[2] = 0x300000;
	while (s < end && !rc) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		p.line++;
		rc = parse_line(&p, (struct cursor){ s, e });
		s = nl ? nl + 1 : end;
	}
	if (!rc && !p.t.nnodes) {
		p.line = p.line ? p.line : 1;
		rc = fail(&p, "no nodes");
	}
	if (!rc)
		rc = resolve_links(&p);
	parser_free(&p);
	if (rc) {
		topo_free(&p.t);
		return -1;
	}
	*out = p.t;
	return 0;
}

void topo_free(struct topo *t)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		free(t->nodes[i].ports);
	free(t->nodes);
	t->nodes = NULL;
	t->nnodes = 0;
}
