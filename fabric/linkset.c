/*
 * DOC: the set of links the current routes were computed for (linkset.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomicfile.h"
#include "fabric/linkset.h"
#include "lib/log.h"

#define LINKS_MAGIC "ibsmd-links 1\n"
#define LINKS_MAX_FILE (64u << 20)

static int key_cmp(const void *a, const void *b)
{
	const struct link_key *x = a, *y = b;

	if (x->ga != y->ga)
		return x->ga < y->ga ? -1 : 1;
	if (x->pa != y->pa)
		return x->pa < y->pa ? -1 : 1;
	if (x->gb != y->gb)
		return x->gb < y->gb ? -1 : 1;
	return (x->pb > y->pb) - (x->pb < y->pb);
}

static struct link_key make_key(uint64_t g1, uint8_t p1, uint64_t g2, uint8_t p2)
{
	if (g1 > g2 || (g1 == g2 && p1 > p2))
		return (struct link_key){ g2, g1, p2, p1 };
	return (struct link_key){ g1, g2, p1, p2 };
}

void linkset_from_topo(struct linkset *ls, const struct topo *t)
{
	size_t cap = 0;

	for (uint32_t i = 0; i < t->nnodes; i++)
		cap += t->nodes[i].nports;
	ls->v = xcalloc(cap ? cap : 1, sizeof(*ls->v));
	ls->n = 0;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		for (unsigned p = 1; p <= n->nports; p++) {
			const struct topo_port *tp = &n->ports[p];
			struct link_key k;

			if (tp->peer_node == TOPO_NONE)
				continue;
			k = make_key(n->guid, (uint8_t)p, t->nodes[tp->peer_node].guid, tp->peer_port);
			if (k.ga == n->guid && k.pa == p)
				ls->v[ls->n++] = k;
		}
	}
	qsort(ls->v, ls->n, sizeof(*ls->v), key_cmp);
	ls->valid = 1;
}

enum linkset_change linkset_compare(const struct linkset *old, const struct linkset *nw)
{
	size_t i = 0, j = 0;
	int lost = 0;

	if (!old->valid || !nw->valid)
		return LINKS_UNKNOWN;
	while (j < nw->n) {
		int c = i < old->n ? key_cmp(&old->v[i], &nw->v[j]) : 1;

		if (c > 0)
			return LINKS_GAINED;
		lost |= c < 0;
		i++;
		j += c == 0;
	}
	return lost || i < old->n ? LINKS_LOST_ONLY : LINKS_SAME;
}

void linkset_free(struct linkset *ls)
{
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}

static int parse_line(const char *l, struct link_key *k)
{
	uint64_t ga, gb;
	unsigned pa, pb;
	char extra;

	if (sscanf(l, "0x%" SCNx64 " %u 0x%" SCNx64 " %u %c", &ga, &pa, &gb, &pb, &extra) != 4)
		return -1;
	if (pa == 0 || pb == 0 || pa > TOPO_MAX_PORTS || pb > TOPO_MAX_PORTS)
		return -1;
	*k = make_key(ga, (uint8_t)pa, gb, (uint8_t)pb);
	return 0;
}

int linkset_parse(struct linkset *ls, const char *buf, size_t len)
{
	size_t mlen = strlen(LINKS_MAGIC), cap = 16;
	char *text, *save = NULL;

	memset(ls, 0, sizeof(*ls));
	if (len < mlen || memcmp(buf, LINKS_MAGIC, mlen) != 0 || memchr(buf, '\0', len))
		return -1;
	text = xmalloc(len - mlen + 1);
	memcpy(text, buf + mlen, len - mlen);
	text[len - mlen] = '\0';
	ls->v = xcalloc(cap, sizeof(*ls->v));
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (ls->n == cap)
			ls->v = xrealloc(ls->v, (cap *= 2) * sizeof(*ls->v));
		if (parse_line(l, &ls->v[ls->n++]) < 0) {
			free(text);
			linkset_free(ls);
			return -1;
		}
	}
	free(text);
	qsort(ls->v, ls->n, sizeof(*ls->v), key_cmp);
	ls->valid = 1;
	return 0;
}

static char *path_in(const char *dir)
{
	size_t len = strlen(dir) + 7;
	char *p = xmalloc(len);

	snprintf(p, len, "%s/links", dir);
	return p;
}

int linkset_load(struct linkset *ls, const char *dir, char *err, size_t errlen)
{
	char *path = path_in(dir), *buf = NULL;
	FILE *f = fopen(path, "r");
	size_t len = 0;
	int rc = 0;

	memset(ls, 0, sizeof(*ls));
	if (!f) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			rc = -1;
		}
		free(path);
		return rc;
	}
	buf = xmalloc(LINKS_MAX_FILE + 1);
	len = fread(buf, 1, LINKS_MAX_FILE + 1, f);
	fclose(f);
	if (len > LINKS_MAX_FILE || linkset_parse(ls, buf, len) < 0) {
		snprintf(err, errlen, "%s: not a valid ibsmd link file", path);
		rc = -1;
	}
	free(buf);
	free(path);
	return rc;
}

static int write_links(FILE *f, const void *arg)
{
	const struct linkset *ls = arg;

	fputs(LINKS_MAGIC, f);
	for (size_t i = 0; i < ls->n; i++)
		fprintf(f, "0x%016" PRIx64 " %u 0x%016" PRIx64 " %u\n", ls->v[i].ga, ls->v[i].pa,
			ls->v[i].gb, ls->v[i].pb);
	return ferror(f) ? -1 : 0;
}

int linkset_save(const struct linkset *ls, const char *dir, char *err, size_t errlen)
{
	char *path = path_in(dir);
	int rc = atomic_write(path, write_links, ls, err, errlen);

	free(path);
	return rc;
}
