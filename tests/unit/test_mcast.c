/*
 * DOC: tests of the multicast trees and MFT tables (routing/mcast.h).
 *
 * check_batch() judges a result from the masks alone, knowing nothing of
 * how trees are built: every bit is a member's port, port 0 of a member
 * switch, or a switch link that is up and that unicast uses, with the bit
 * on both ends; the switches holding the MLID and their links form one
 * tree (V - 1 links, connected); flooding from every member reaches every
 * other member exactly once; a root not taken over from prev has the
 * fewest hops to its farthest member switch; one member switch is the
 * whole tree; members that got no bit are reported with the right
 * reason; the tree description matches the masks. Around it: exact masks
 * on a small fat tree; bad input; several fabrics in one, unplugged
 * hosts, LFTs that lead nowhere or loop; seeded property runs (degraded
 * fat trees, tori, random graphs, dragonflies); spine balance; joins and
 * leaves; link failures repaired with route_repair or fresh tables;
 * previous ports over links unicast dropped; node-order shuffles; MFT
 * block, put and diff; corrupted fabrics and random LFT bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "routing/lids.h"
#include "routing/mcast.h"
#include "routing/repair.h"
#include "routing/routing.h"
#include "test_routing_topo.h"

/* ---- fabrics and groups ---- */

static void fill(struct topo *t)
{
	char err[128];

	assert_int_equal(topo_fill_lids(t, 0, err, sizeof(err)), 0);
}

static void route(const struct topo *t, struct route_tables *rt)
{
	if (route_compute(t, NULL, rt))
		fail_msg("route_compute: %s", rt->why);
}

static void mcast(const struct topo *t, const struct route_tables *rt, const struct mcast_group *g,
		  size_t n, const struct mcast_result *prev, struct mcast_result *r)
{
	struct mcast_opts o = { .prev = prev };

	if (mcast_compute(t, rt, g, n, &o, r))
		fail_msg("mcast_compute: %s", r->why);
}

struct gset {
	uint32_t n, cap;
	struct mcast_group *g;
	struct mcast_member **mem; /* g[i].members, writable */
};

static struct mcast_member *gs_add(struct gset *s, uint16_t mlid, uint32_t nmembers)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->g = realloc(s->g, s->cap * sizeof(*s->g));
		s->mem = realloc(s->mem, s->cap * sizeof(*s->mem));
		assert_true(s->g && s->mem);
	}
	struct mcast_member *m = calloc(nmembers + 1u, sizeof(*m));
	assert_non_null(m);
	s->mem[s->n] = m;
	s->g[s->n++] = (struct mcast_group){ mlid, nmembers, m };
	return m;
}

static void gs_free(struct gset *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->mem[i]);
	free(s->g);
	free(s->mem);
	memset(s, 0, sizeof(*s));
}

/* Every CA port 1 (linked or not) and every switch, by node index. */
struct ends {
	uint32_t nca, nsw;
	uint32_t *ca, *sw;
};

static void ends_get(const struct topo *t, struct ends *e)
{
	e->ca = calloc(t->nnodes + 1u, sizeof(*e->ca));
	e->sw = calloc(t->nnodes + 1u, sizeof(*e->sw));
	e->nca = e->nsw = 0;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].type == TOPO_SWITCH)
			e->sw[e->nsw++] = i;
		else
			e->ca[e->nca++] = i;
	}
}

static void ends_free(struct ends *e)
{
	free(e->ca);
	free(e->sw);
}

/* n groups of 1..maxm members (CA ports, now and then a switch itself),
 * MLIDs spread over several MFT blocks. */
static void random_groups(const struct topo *t, struct gset *s, uint32_t n, uint32_t maxm,
			  uint64_t seed)
{
	struct ends e;

	ends_get(t, &e);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nm = 1 + (uint32_t)(tb_rand(&seed) % maxm);
		struct mcast_member *m = gs_add(s, (uint16_t)(MCAST_MLID_MIN + 3 * i), nm);
		for (uint32_t k = 0; k < nm; k++) {
			if (tb_rand(&seed) % 8 == 0 && e.nsw)
				m[k] = (struct mcast_member){ e.sw[tb_rand(&seed) % e.nsw], 0 };
			else
				m[k] = (struct mcast_member){ e.ca[tb_rand(&seed) % e.nca], 1 };
		}
	}
	ends_free(&e);
}

/* One group of every CA port 1, the IPoIB broadcast group. */
static void all_hosts_group(const struct topo *t, struct gset *s, uint16_t mlid)
{
	struct ends e;

	ends_get(t, &e);
	struct mcast_member *m = gs_add(s, mlid, e.nca);
	for (uint32_t k = 0; k < e.nca; k++)
		m[k] = (struct mcast_member){ e.ca[k], 1 };
	ends_free(&e);
}

/* ---- the checker ---- */

struct chk {
	const struct topo *t;
	const struct route_tables *rt;
	uint8_t *used;    /* [node * 256 + port]: some LFT entry of node uses port */
	uint32_t *comp;   /* switch component per node, UINT32_MAX for others */
	uint32_t *hits;   /* deliveries per endpoint [node * 256 + port] */
	uint32_t *queue;  /* flood queue: node * 256 + in port */
	uint32_t qcap;
	uint32_t *touched, ntouched;
};

/* Peer of (n, p) when both ends name each other, else TOPO_NONE. */
static uint32_t peer(const struct topo *t, uint32_t n, uint32_t p, uint8_t *pp)
{
	if (p == 0 || p > t->nodes[n].nports)
		return TOPO_NONE;
	const struct topo_port *tp = &t->nodes[n].ports[p];
	if (tp->peer_node == TOPO_NONE || tp->peer_node >= t->nnodes)
		return TOPO_NONE;
	const struct topo_node *q = &t->nodes[tp->peer_node];
	if (tp->peer_port == 0 || tp->peer_port > q->nports)
		return TOPO_NONE;
	if (q->ports[tp->peer_port].peer_node != n || q->ports[tp->peer_port].peer_port != p)
		return TOPO_NONE;
	*pp = tp->peer_port;
	return tp->peer_node;
}

static int is_sw(const struct topo *t, uint32_t n)
{
	return t->nodes[n].type == TOPO_SWITCH;
}

static void chk_components(struct chk *c)
{
	const struct topo *t = c->t;
	uint32_t *q = calloc(t->nnodes + 1u, sizeof(*q));

	for (uint32_t i = 0; i < t->nnodes; i++)
		c->comp[i] = UINT32_MAX;
	for (uint32_t s = 0; s < t->nnodes; s++) {
		if (!is_sw(t, s) || c->comp[s] != UINT32_MAX)
			continue;
		uint32_t head = 0, tail = 0;
		c->comp[s] = s;
		q[tail++] = s;
		while (head < tail) {
			uint32_t x = q[head++];
			uint8_t pp;
			for (uint32_t p = 1; p <= t->nodes[x].nports; p++) {
				uint32_t y = peer(t, x, p, &pp);
				if (y != TOPO_NONE && is_sw(t, y) && c->comp[y] == UINT32_MAX) {
					c->comp[y] = s;
					q[tail++] = y;
				}
			}
		}
	}
	free(q);
}

static void chk_init(struct chk *c, const struct topo *t, const struct route_tables *rt)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->rt = rt;
	c->used = calloc((size_t)t->nnodes * 256 + 1, 1);
	c->hits = calloc((size_t)t->nnodes * 256 + 1, sizeof(*c->hits));
	c->touched = calloc((size_t)t->nnodes * 256 + 1, sizeof(*c->touched));
	c->comp = calloc(t->nnodes + 1u, sizeof(*c->comp));
	for (uint32_t n = 0; n < t->nnodes; n++)
		for (uint32_t lid = 1; rt->lft[n].ports && lid <= rt->top; lid++)
			c->used[n * 256u + rt->lft[n].ports[lid]] = 1;
	chk_components(c);
}

static void chk_free(struct chk *c)
{
	free(c->used);
	free(c->hits);
	free(c->touched);
	free(c->comp);
	free(c->queue);
}

static int bit(const uint16_t *w, uint32_t p)
{
	return w && (w[p / 16] >> (p % 16)) & 1;
}

static const uint16_t *mask_of(const struct mcast_result *r, uint32_t n, uint16_t mlid)
{
	return r->mft[n].npos ? mcast_mft_find(&r->mft[n], mlid) : NULL;
}

/* Where member i is attached: switch node and port, or TOPO_NONE. */
static uint32_t attach(const struct topo *t, const struct mcast_member *m, uint8_t *port)
{
	if (is_sw(t, m->node)) {
		*port = 0;
		return m->node;
	}
	uint32_t s = peer(t, m->node, m->port, port);
	return s != TOPO_NONE && is_sw(t, s) ? s : TOPO_NONE;
}

static int is_member_end(const struct topo *t, const struct mcast_group *gr, uint32_t s,
			 uint8_t p)
{
	for (uint32_t i = 0; i < gr->nmembers; i++) {
		uint8_t mp;
		if (attach(t, &gr->members[i], &mp) == s && mp == p)
			return 1;
	}
	return 0;
}

/* Checks every bit of switch n; returns its switch-link bits. */
static uint32_t check_bits(const struct chk *c, const struct mcast_group *gr,
			   const struct mcast_result *r, uint32_t n)
{
	const struct topo *t = c->t;
	const uint16_t *w = mask_of(r, n, gr->mlid);
	uint32_t links = 0;

	for (uint32_t p = 0; p < 16u * r->mft[n].npos; p++) {
		uint8_t pp = 0;
		if (!bit(w, p))
			continue;
		if (p > t->nodes[n].nports)
			fail_msg("MLID 0x%x: switch %u has bit %u > nports", gr->mlid, n, p);
		uint32_t q = p ? peer(t, n, p, &pp) : TOPO_NONE;
		if (p && q == TOPO_NONE)
			fail_msg("MLID 0x%x: switch %u port %u is not linked", gr->mlid, n, p);
		if (p == 0 || !is_sw(t, q)) {
			if (!is_member_end(t, gr, n, (uint8_t)p))
				fail_msg("MLID 0x%x: switch %u port %u is no member", gr->mlid, n, p);
			continue;
		}
		if (!bit(mask_of(r, q, gr->mlid), pp))
			fail_msg("MLID 0x%x: link %u/%u -> %u/%u one-sided", gr->mlid, n, p, q, pp);
		if (!c->used[n * 256u + p] && !c->used[q * 256u + pp])
			fail_msg("MLID 0x%x: link %u/%u carries no unicast route", gr->mlid, n, p);
		links++;
	}
	return links;
}

/* Switches reached from the root over mask links, BFS depth in *depth. */
static uint32_t tree_reach(const struct chk *c, const struct mcast_result *r, uint16_t mlid,
			   uint32_t root, uint32_t *depth)
{
	const struct topo *t = c->t;
	uint32_t *q = calloc(t->nnodes + 1u, sizeof(*q)), *d = calloc(t->nnodes + 1u, sizeof(*d));
	uint32_t head = 0, tail = 0;

	for (uint32_t i = 0; i < t->nnodes; i++)
		d[i] = UINT32_MAX;
	d[root] = 0;
	q[tail++] = root;
	*depth = 0;
	while (head < tail) {
		uint32_t s = q[head++];
		const uint16_t *w = mask_of(r, s, mlid);
		for (uint32_t p = 1; p <= t->nodes[s].nports; p++) {
			uint8_t pp;
			uint32_t y = bit(w, p) ? peer(t, s, p, &pp) : TOPO_NONE;
			if (y == TOPO_NONE || !is_sw(t, y) || d[y] != UINT32_MAX)
				continue;
			d[y] = d[s] + 1;
			*depth = d[y] > *depth ? d[y] : *depth;
			q[tail++] = y;
		}
	}
	free(q);
	free(d);
	return tail;
}

static void push(struct chk *c, uint32_t *tail, uint32_t v)
{
	if (*tail == c->qcap) {
		c->qcap = c->qcap ? c->qcap * 2 : 1024;
		c->queue = realloc(c->queue, c->qcap * sizeof(*c->queue));
		assert_non_null(c->queue);
	}
	c->queue[(*tail)++] = v;
}

static void hit(struct chk *c, uint32_t n, uint32_t p)
{
	if (!c->hits[n * 256u + p]++)
		c->touched[c->ntouched++] = n * 256u + p;
}

/* Floods one packet in at (s, in) and counts deliveries to end ports;
 * a loop shows up as more steps than the tree can take. */
static void flood(struct chk *c, const struct mcast_result *r, uint16_t mlid, uint32_t s,
		  uint8_t in, uint32_t limit)
{
	const struct topo *t = c->t;
	uint32_t head = 0, tail = 0;

	push(c, &tail, s * 256u + in);
	while (head < tail) {
		if (head > limit)
			fail_msg("MLID 0x%x: flooding does not stop (loop)", mlid);
		uint32_t x = c->queue[head] / 256, from = c->queue[head] % 256;
		const uint16_t *w = mask_of(r, x, mlid);
		head++;
		for (uint32_t p = 0; p < 16u * r->mft[x].npos; p++) {
			uint8_t pp;
			if (p == from || !bit(w, p))
				continue;
			uint32_t y = p ? peer(t, x, p, &pp) : TOPO_NONE;
			if (y != TOPO_NONE && is_sw(t, y))
				push(c, &tail, y * 256u + pp);
			else
				hit(c, x, p);
		}
	}
}

/* Every other attached member end gets exactly one copy, the source none. */
static void check_flood(struct chk *c, const struct mcast_group *gr,
			const struct mcast_result *r, uint32_t nsw)
{
	const struct topo *t = c->t;

	for (uint32_t i = 0; i < gr->nmembers; i++) {
		uint8_t sp, mp;
		uint32_t s = attach(t, &gr->members[i], &sp);
		if (s == TOPO_NONE || !bit(mask_of(r, s, gr->mlid), sp))
			continue;
		c->ntouched = 0;
		flood(c, r, gr->mlid, s, sp, 4 * (nsw + gr->nmembers) + 16);
		for (uint32_t k = 0; k < gr->nmembers; k++) {
			uint32_t e = attach(t, &gr->members[k], &mp);
			if (e == TOPO_NONE || !bit(mask_of(r, e, gr->mlid), mp))
				continue;
			uint32_t want = e == s && mp == sp ? 0 : 1;
			if (c->hits[e * 256u + mp] != want)
				fail_msg("MLID 0x%x: member %u gets %u copies from member %u", gr->mlid,
					 k, c->hits[e * 256u + mp], i);
		}
		for (uint32_t k = 0; k < c->ntouched; k++)
			c->hits[c->touched[k]] = 0;
	}
}

static const struct mcast_miss *find_miss(const struct mcast_result *r, uint16_t mlid,
					  uint32_t member)
{
	for (uint32_t i = 0; i < r->nmiss; i++)
		if (r->miss[i].mlid == mlid && r->miss[i].member == member)
			return &r->miss[i];
	return NULL;
}

/* Members without a bit are reported, with the right reason. */
static uint32_t check_members(const struct chk *c, const struct mcast_group *gr,
			      const struct mcast_result *r, const struct mcast_tree *tr,
			      uint32_t *noroute)
{
	uint32_t got = 0;

	for (uint32_t i = 0; i < gr->nmembers; i++) {
		uint8_t p;
		uint32_t s = attach(c->t, &gr->members[i], &p);
		const struct mcast_miss *m = find_miss(r, gr->mlid, i);
		if (s != TOPO_NONE && bit(mask_of(r, s, gr->mlid), p)) {
			assert_null(m);
			got++;
			continue;
		}
		if (!m)
			fail_msg("MLID 0x%x member %u has no bit and no report", gr->mlid, i);
		if (s == TOPO_NONE)
			assert_int_equal(m->why, MCAST_MISS_NOLINK);
		else if (tr->root != TOPO_NONE && c->comp[s] != c->comp[tr->root])
			assert_int_equal(m->why, MCAST_MISS_UNREACH);
		else if (tr->root != TOPO_NONE)
			assert_int_equal(m->why, MCAST_MISS_NOROUTE);
		else
			assert_true(m->why == MCAST_MISS_UNREACH || m->why == MCAST_MISS_NOROUTE);
		*noroute += m->why == MCAST_MISS_NOROUTE;
	}
	return got;
}

/* The root's component holds at least as many member switches as any;
 * a single member switch is the whole tree. */
static void check_component(const struct chk *c, const struct mcast_group *gr,
			    const struct mcast_tree *tr)
{
	uint32_t n = c->t->nnodes, *cnt = calloc(n + 1u, sizeof(*cnt));
	uint8_t *seen = calloc(n + 1u, 1);

	uint32_t distinct = 0, last = TOPO_NONE;

	for (uint32_t i = 0; i < gr->nmembers; i++) {
		uint8_t p;
		uint32_t s = attach(c->t, &gr->members[i], &p);
		if (s != TOPO_NONE && !seen[s]++) {
			cnt[c->comp[s]]++;
			distinct++;
			last = s;
		}
	}
	for (uint32_t k = 0; tr->root != TOPO_NONE && k < n; k++)
		assert_true(cnt[k] <= cnt[c->comp[tr->root]]);
	/* one member switch: no inter-switch link */
	if (distinct == 1) {
		assert_int_equal(tr->root, last);
		assert_int_equal(tr->nsw, 1);
	}
	free(cnt);
	free(seen);
}

/* Hops from switch s over symmetric switch links, UINT32_MAX if none. */
static void chk_bfs(const struct topo *t, uint32_t s, uint32_t *d, uint32_t *q)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t i = 0; i < t->nnodes; i++)
		d[i] = UINT32_MAX;
	d[s] = 0;
	q[tail++] = s;
	while (head < tail) {
		uint32_t x = q[head++];
		for (uint32_t p = 1; p <= t->nodes[x].nports; p++) {
			uint8_t pp;
			uint32_t y = peer(t, x, p, &pp);
			if (y != TOPO_NONE && is_sw(t, y) && d[y] == UINT32_MAX) {
				d[y] = d[x] + 1;
				q[tail++] = y;
			}
		}
	}
}

/* A root not taken over from prev has the fewest hops to the farthest
 * member switch of any switch with a routed LID (rule 3). */
static void check_root(const struct chk *c, const struct mcast_group *gr,
		       const struct mcast_tree *tr)
{
	const struct topo *t = c->t;
	uint32_t n = t->nnodes, *far = calloc(n + 1u, sizeof(*far));
	uint32_t *d = calloc(n + 1u, sizeof(*d)), *q = calloc(n + 1u, sizeof(*q));

	for (uint32_t i = 0; tr->root != TOPO_NONE && !tr->kept_root && i < gr->nmembers; i++) {
		uint8_t p;
		uint32_t s = attach(t, &gr->members[i], &p);
		if (s == TOPO_NONE || c->comp[s] != c->comp[tr->root])
			continue;
		chk_bfs(t, s, d, q);
		for (uint32_t v = 0; v < n; v++)
			far[v] = d[v] > far[v] ? d[v] : far[v];
	}
	for (uint32_t v = 0; tr->root != TOPO_NONE && !tr->kept_root && v < n; v++) {
		uint16_t lid = is_sw(t, v) ? t->nodes[v].ports[0].lid : 0;
		if (lid && lid <= c->rt->top && far[v] < far[tr->root])
			fail_msg("MLID 0x%x: root %u has %u hops to a member switch, switch %u %u",
				 gr->mlid, tr->root, far[tr->root], v, far[v]);
	}
	free(far);
	free(d);
	free(q);
}

/* The tree entries agree with the masks. */
static void check_entries(const struct chk *c, const struct mcast_result *r,
			  const struct mcast_tree *tr)
{
	for (uint32_t i = 0; i < tr->nsw; i++) {
		const struct mcast_tsw *e = &r->tsw[tr->first + i];
		assert_int_equal(e->guid, c->t->nodes[e->node].guid);
		assert_non_null(mask_of(r, e->node, tr->mlid));
		if (i == 0) {
			assert_int_equal(e->node, tr->root);
			assert_int_equal(e->parent, MCAST_NO_PARENT);
			continue;
		}
		uint8_t pp;
		assert_true(e->parent < i);
		const struct mcast_tsw *pe = &r->tsw[tr->first + e->parent];
		assert_int_equal(peer(c->t, e->node, e->up, &pp), pe->node);
		assert_true(bit(mask_of(r, e->node, tr->mlid), e->up));
		assert_int_equal(e->depth, pe->depth + 1);
	}
}

/* Everything a group's result must satisfy; returns NOROUTE misses. */
static uint32_t check_group(struct chk *c, const struct mcast_group *gr,
			    const struct mcast_result *r)
{
	const struct topo *t = c->t;
	const struct mcast_tree *tr = mcast_find_tree(r, gr->mlid);
	uint32_t nsw = 0, links = 0, depth = 0, noroute = 0;

	assert_non_null(tr);
	for (uint32_t n = 0; n < t->nnodes; n++)
		if (is_sw(t, n) && mask_of(r, n, gr->mlid)) {
			nsw++;
			links += check_bits(c, gr, r, n);
		}
	assert_int_equal(nsw, tr->nsw);
	if (nsw) {
		assert_int_equal(links, 2 * (nsw - 1)); /* both ends of every link */
		assert_int_equal(tree_reach(c, r, gr->mlid, tr->root, &depth), nsw);
		assert_int_equal(depth, tr->depth);
	} else {
		assert_int_equal(tr->root, TOPO_NONE);
	}
	check_entries(c, r, tr);
	check_component(c, gr, tr);
	check_root(c, gr, tr);
	check_flood(c, gr, r, nsw);
	uint32_t got = check_members(c, gr, r, tr, &noroute);
	assert_int_equal(got, tr->nmembers);
	assert_int_equal(gr->nmembers - got, tr->nmiss);
	return noroute;
}

/* The whole batch; every table row belongs to a tree. Returns NOROUTEs. */
static uint32_t check_batch(const struct topo *t, const struct route_tables *rt,
			    const struct gset *s, const struct mcast_result *r)
{
	struct chk c;
	uint64_t rows = 0, tsw = 0;
	uint32_t noroute = 0;

	chk_init(&c, t, rt);
	assert_int_equal(r->ngroups, s->n);
	for (uint32_t i = 0; i < s->n; i++)
		noroute += check_group(&c, &s->g[i], r);
	for (uint32_t i = 0; i < r->ngroups; i++) {
		tsw += r->trees[i].nsw;
		assert_true(i == 0 || r->trees[i - 1].mlid < r->trees[i].mlid);
	}
	for (uint32_t n = 0; n < t->nnodes; n++)
		rows += r->mft[n].n;
	assert_int_equal(rows, tsw);
	chk_free(&c);
	return noroute;
}

/* ---- helpers for the cases ---- */

/* Switches whose mask for mlid differs between a and b (same topo). */
static uint32_t changed(const struct topo *t, const struct mcast_result *a,
			const struct mcast_result *b, uint16_t mlid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->nnodes; i++) {
		if (!is_sw(t, i))
			continue;
		const uint16_t *x = mask_of(a, i, mlid), *y = mask_of(b, i, mlid);
		if (!x != !y || (x && memcmp(x, y, a->mft[i].npos * sizeof(*x))))
			n++;
	}
	return n;
}

/* 1 if the tree of mlid in r has the link (n, p) in it. */
static int tree_uses(const struct topo *t, const struct mcast_result *r, uint16_t mlid,
		     uint32_t n, uint8_t p)
{
	const struct mcast_tree *tr = mcast_find_tree(r, mlid);
	uint8_t pp;
	uint32_t q = peer(t, n, p, &pp);

	for (uint32_t i = 1; tr && i < tr->nsw; i++) {
		const struct mcast_tsw *e = &r->tsw[tr->first + i];
		if ((e->node == n && e->up == p) || (e->node == q && e->up == pp))
			return 1;
	}
	return 0;
}

/* ---- cases ---- */

/*
 * ft2 radix 4: leaves at nodes 0, 3, 6, 9 (hosts on ports 1-2, uplink
 * port 3 + s to spine s), spines at nodes 12 and 13 (port l + 1 to leaf l).
 */
static void test_exact_small(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct gset s = { 0 };
	struct mcast_result r;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 4);
	fill(&b.t);
	route(&b.t, &rt);
	struct mcast_member *m = gs_add(&s, 0xC000, 2);
	m[0] = (struct mcast_member){ 1, 1 };  /* leaf 0 port 1 */
	m[1] = (struct mcast_member){ 5, 1 };  /* leaf 1 port 2 */
	m = gs_add(&s, 0xC001, 2);
	m[0] = (struct mcast_member){ 1, 1 };
	m[1] = (struct mcast_member){ 5, 1 };
	m = gs_add(&s, 0xC002, 2);
	m[0] = (struct mcast_member){ 6, 0 };  /* leaf 2 itself */
	m[1] = (struct mcast_member){ 7, 1 };  /* leaf 2 port 1 */
	mcast(&b.t, &rt, s.g, s.n, NULL, &r);
	check_batch(&b.t, &rt, &s, &r);
	/* spines tie; the lower GUID roots the first group, the other the second */
	assert_int_equal(r.trees[0].root, 12);
	assert_int_equal(r.trees[1].root, 13);
	assert_int_equal(mask_of(&r, 0, 0xC000)[0], 0x000A);
	assert_int_equal(mask_of(&r, 3, 0xC000)[0], 0x000C);
	assert_int_equal(mask_of(&r, 12, 0xC000)[0], 0x0006);
	assert_int_equal(mask_of(&r, 0, 0xC001)[0], 0x0012);
	assert_int_equal(mask_of(&r, 3, 0xC001)[0], 0x0014);
	assert_int_equal(mask_of(&r, 13, 0xC001)[0], 0x0006);
	assert_null(mask_of(&r, 13, 0xC000));
	/* one member switch: that switch alone, port 0 and the host */
	assert_int_equal(r.trees[2].root, 6);
	assert_int_equal(r.trees[2].nsw, 1);
	assert_int_equal(r.trees[2].depth, 0);
	assert_int_equal(mask_of(&r, 6, 0xC002)[0], 0x0003);
	assert_int_equal(r.top, 0xC002);
	assert_int_equal(r.nmiss, 0);
	mcast_result_free(&r);
	route_tables_free(&rt);
	gs_free(&s);
	topo_free_all(&b.t);
}

static void expect_error(const struct topo *t, const struct route_tables *rt,
			 const struct mcast_group *g, size_t n, uint16_t top, const char *what)
{
	struct mcast_opts o = { .mlid_top = top };
	struct mcast_result r;

	assert_int_equal(mcast_compute(t, rt, g, n, &o, &r), -1);
	if (!strstr(r.why, what))
		fail_msg("why '%s' lacks '%s'", r.why, what);
	assert_null(r.mft);
	assert_null(r.trees);
	mcast_result_free(&r);
}

static void test_bad_input(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct mcast_member m[2] = { { 1, 1 }, { 4, 1 } };
	struct mcast_group g[2] = { { 0xC000, 2, m }, { 0xC001, 2, m } };

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 4);
	fill(&b.t);
	route(&b.t, &rt);
	g[0].mlid = 0xBFFF;
	expect_error(&b.t, &rt, g, 1, 0, "outside");
	g[0].mlid = 0xFFFF;
	expect_error(&b.t, &rt, g, 1, 0, "outside");
	g[0].mlid = 0xC400;
	expect_error(&b.t, &rt, g, 1, 0xC3FF, "outside");
	expect_error(&b.t, &rt, g, 1, 0xBFFF, "MLID top");
	g[0].mlid = 0xC001;
	expect_error(&b.t, &rt, g, 2, 0, "given twice");
	expect_error(&b.t, &rt, g, 2, 0xC000, "only MLIDs");
	g[0].mlid = 0xC000;
	m[1].node = b.t.nnodes;
	expect_error(&b.t, &rt, g, 1, 0, "out of range");
	m[1] = (struct mcast_member){ 4, 0 };
	expect_error(&b.t, &rt, g, 1, 0, "has no port 0");
	m[1] = (struct mcast_member){ 4, 2 };
	expect_error(&b.t, &rt, g, 1, 0, "has no port 2");
	m[1] = (struct mcast_member){ 3, 1 };
	expect_error(&b.t, &rt, g, 1, 0, "port 0, not 1");
	m[1] = (struct mcast_member){ 4, 1 };
	g[0].members = NULL;
	expect_error(&b.t, &rt, g, 1, 0, "no member array");
	g[0].members = m;
	rt.nnodes--;
	expect_error(&b.t, &rt, g, 1, 0, "do not match");
	rt.nnodes++;
	/* and the same input is fine */
	struct mcast_result r;
	assert_int_equal(mcast_compute(&b.t, &rt, g, 2, NULL, &r), 0);
	mcast_result_free(&r);
	route_tables_free(&rt);
	topo_free_all(&b.t);
}

/* Unlinks port 1 of the k-th CA (member ports that went down). */
static void unlink_ca(struct tb *b, uint32_t k)
{
	for (uint32_t i = 0; i < b->t.nnodes; i++)
		if (!is_sw(&b->t, i) && k-- == 0) {
			tb_unlink(b, i, 1);
			return;
		}
}

/* Seeded fabric number kind (0..5) with hosts; some CA ports unlinked. */
static void build_fabric(struct tb *b, unsigned kind, uint64_t seed)
{
	static const unsigned torus[2] = { 4, 5 }, small[2] = { 3, 3 };

	tb_init(b);
	switch (kind) {
	case 0: tb_ft2(b, 12); tb_remove_links(b, 10, seed); break;
	case 1: tb_ft3(b, 6); tb_remove_links(b, 10, seed); tb_remove_switches(b, 1, seed); break;
	case 2: tb_torus(b, torus, 2, 2); break;
	case 3: tb_random(b, 24, 4, 2, seed); tb_remove_links(b, 25, seed); break;
	case 4: tb_dragonfly(b, 5, 3, 2); break;
	default: tb_ft2(b, 6); tb_torus(b, small, 2, 2); break; /* two fabrics */
	}
	for (unsigned i = 0; i < 3; i++)
		unlink_ca(b, (uint32_t)(tb_rand(&seed) % 40));
	fill(&b->t);
}

/* Same roots and masks (same topo). */
static void assert_same_result(const struct topo *t, const struct mcast_result *a,
			       const struct mcast_result *b)
{
	assert_int_equal(a->ngroups, b->ngroups);
	for (uint32_t i = 0; i < a->ngroups; i++) {
		assert_int_equal(a->trees[i].root, b->trees[i].root);
		assert_int_equal(changed(t, a, b, a->trees[i].mlid), 0);
	}
}

static void test_props(void **state)
{
	uint64_t groups = 0, trees = 0, misses = 0, kept = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 48; seed++) {
		struct tb b;
		struct route_tables rt;
		struct gset s = { 0 };
		struct mcast_result r, again;
		build_fabric(&b, (unsigned)(seed % 6), seed);
		route(&b.t, &rt);
		random_groups(&b.t, &s, 40, 1 + seed % 12, seed * 7);
		all_hosts_group(&b.t, &s, 0xC800);
		mcast(&b.t, &rt, s.g, s.n, NULL, &r);
		/* fresh unicast tables reach every switch in the component */
		assert_int_equal(check_batch(&b.t, &rt, &s, &r), 0);
		/* nothing changed: the previous result comes back as it was */
		mcast(&b.t, &rt, s.g, s.n, &r, &again);
		assert_same_result(&b.t, &r, &again);
		for (uint32_t i = 0; i < r.ngroups; i++)
			trees += r.trees[i].root != TOPO_NONE;
		groups += r.ngroups;
		misses += r.nmiss;
		kept += again.kept_roots;
		mcast_result_free(&r);
		mcast_result_free(&again);
		route_tables_free(&rt);
		gs_free(&s);
		topo_free_all(&b.t);
	}
	print_message("%llu groups, %llu trees, %llu member ports reported, %llu roots kept\n",
		      (unsigned long long)groups, (unsigned long long)trees,
		      (unsigned long long)misses, (unsigned long long)kept);
	assert_int_equal(kept, trees);
}

/*
 * Two radix-4 fat trees in one topo (nodes 0-13 and 14-27), an unplugged
 * host, then unicast tables that lead nowhere or in a circle.
 */
static void test_unreachable(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct gset s = { 0 };
	struct mcast_result r;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 4);
	tb_ft2(&b, 4);
	tb_unlink(&b, 2, 1);
	fill(&b.t);
	route(&b.t, &rt);
	struct mcast_member *m = gs_add(&s, 0xC000, 5);
	m[0] = (struct mcast_member){ 1, 1 };
	m[1] = (struct mcast_member){ 4, 1 };
	m[2] = (struct mcast_member){ 7, 1 };
	m[3] = (struct mcast_member){ 15, 1 }; /* other fabric */
	m[4] = (struct mcast_member){ 2, 1 };  /* unplugged */
	m = gs_add(&s, 0xC001, 2);
	m[0] = (struct mcast_member){ 15, 1 };
	m[1] = (struct mcast_member){ 18, 1 };
	gs_add(&s, 0xC002, 1)[0] = (struct mcast_member){ 2, 1 };
	gs_add(&s, 0xC003, 0);
	m = gs_add(&s, 0xC004, 4); /* 2 + 2: the part with the lower GUIDs */
	m[0] = (struct mcast_member){ 15, 1 };
	m[1] = (struct mcast_member){ 18, 1 };
	m[2] = (struct mcast_member){ 1, 1 };
	m[3] = (struct mcast_member){ 4, 1 };
	mcast(&b.t, &rt, s.g, s.n, NULL, &r);
	assert_int_equal(check_batch(&b.t, &rt, &s, &r), 0);
	assert_int_equal(r.trees[0].nmembers, 3);
	assert_int_equal(find_miss(&r, 0xC000, 3)->why, MCAST_MISS_UNREACH);
	assert_int_equal(find_miss(&r, 0xC000, 4)->why, MCAST_MISS_NOLINK);
	assert_true(r.trees[1].root == 26 || r.trees[1].root == 27);
	assert_int_equal(r.trees[2].root, TOPO_NONE);
	assert_int_equal(find_miss(&r, 0xC002, 0)->why, MCAST_MISS_NOLINK);
	assert_int_equal(r.trees[3].root, TOPO_NONE);
	assert_true(r.trees[4].root == 12 || r.trees[4].root == 13);
	assert_int_equal(r.trees[4].nmiss, 2);
	assert_int_equal(r.top, 0xC004);

	/* leaf 0 has no route to either spine, leaf 3 goes round in circles */
	uint16_t l12 = b.t.nodes[12].ports[0].lid, l13 = b.t.nodes[13].ports[0].lid;
	rt.lft[0].ports[l12] = rt.lft[0].ports[l13] = LFT_NO_PORT;
	rt.lft[9].ports[l12] = 4;  /* to spine 13 ... */
	rt.lft[13].ports[l12] = 4; /* ... and back */
	rt.lft[9].ports[l13] = 3;
	rt.lft[12].ports[l13] = 4;
	gs_free(&s);
	m = gs_add(&s, 0xC000, 3);
	m[0] = (struct mcast_member){ 1, 1 };
	m[1] = (struct mcast_member){ 4, 1 };
	m[2] = (struct mcast_member){ 10, 1 };
	struct mcast_result r2, r3;
	mcast(&b.t, &rt, s.g, s.n, NULL, &r2);
	assert_int_equal(check_batch(&b.t, &rt, &s, &r2), 2);
	assert_int_equal(find_miss(&r2, 0xC000, 0)->why, MCAST_MISS_NOROUTE);
	assert_int_equal(find_miss(&r2, 0xC000, 2)->why, MCAST_MISS_NOROUTE);
	assert_int_equal(r2.trees[0].nsw, 2);
	/* with the previous tree, leaf 0 keeps its working upstream port */
	mcast(&b.t, &rt, s.g, s.n, &r, &r3);
	assert_int_equal(check_batch(&b.t, &rt, &s, &r3), 1);
	assert_int_equal(find_miss(&r3, 0xC000, 2)->why, MCAST_MISS_NOROUTE);
	assert_int_equal(r3.trees[0].kept_root, 1);
	assert_int_equal(r3.trees[0].kept_edges, 2); /* leaves 0 and 1 */
	assert_int_equal(r3.trees[0].nsw, 3);
	mcast_result_free(&r);
	mcast_result_free(&r2);
	mcast_result_free(&r3);
	route_tables_free(&rt);
	gs_free(&s);
	topo_free_all(&b.t);
}

static void copy_tables(const struct route_tables *a, struct route_tables *b)
{
	*b = *a;
	b->lft = calloc(a->nnodes + 1u, sizeof(*b->lft));
	for (uint32_t n = 0; n < a->nnodes; n++)
		if (a->lft[n].ports) {
			b->lft[n].ports = malloc(a->top + 1u);
			memcpy(b->lft[n].ports, a->lft[n].ports, a->top + 1u);
		}
}

/* Entries of node n that point out of port from now point out of to. */
static void move_entries(struct route_tables *rt, uint32_t n, uint8_t from, uint8_t to)
{
	for (uint32_t lid = 0; lid <= rt->top; lid++)
		if (rt->lft[n].ports[lid] == from)
			rt->lft[n].ports[lid] = to;
}

/*
 * A previous upstream port over a link that is still up but that unicast
 * no longer uses is not kept: ft2 radix 4, leaf 0's link to spine 12
 * (its port 3, the spine's port 1) taken out of both ends' tables.
 */
static void test_kept_needs_unicast(void **state)
{
	struct tb b;
	struct route_tables rt, moved;
	struct gset s = { 0 };
	struct mcast_result r, r2;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 4);
	fill(&b.t);
	route(&b.t, &rt);
	struct mcast_member *m = gs_add(&s, 0xC000, 2);
	m[0] = (struct mcast_member){ 1, 1 };
	m[1] = (struct mcast_member){ 4, 1 };
	mcast(&b.t, &rt, s.g, s.n, NULL, &r);
	assert_int_equal(r.trees[0].root, 12);
	assert_true(tree_uses(&b.t, &r, 0xC000, 0, 3));
	copy_tables(&rt, &moved);
	move_entries(&moved, 0, 3, 4);
	move_entries(&moved, 12, 1, LFT_NO_PORT);
	mcast(&b.t, &moved, s.g, s.n, &r, &r2);
	check_batch(&b.t, &moved, &s, &r2);
	assert_int_equal(r2.trees[0].root, 12); /* still one hop from both leaves */
	assert_false(tree_uses(&b.t, &r2, 0xC000, 0, 3));
	assert_int_equal(r2.trees[0].kept_edges, 1); /* leaf 3's */
	mcast_result_free(&r);
	mcast_result_free(&r2);
	route_tables_free(&rt);
	route_tables_free(&moved);
	gs_free(&s);
	topo_free_all(&b.t);
}

/* 4 * S groups on a radix-k two-level tree, each on 2..k/2+1 leaves. */
static void balance_on(unsigned k, uint64_t seed)
{
	unsigned h = k / 2, nsp = k / 2, ng = 4 * nsp;
	struct tb b;
	struct route_tables rt;
	struct gset s = { 0 };
	struct mcast_result r;
	uint32_t rooted[64] = { 0 };

	tb_init(&b);
	tb_ft2(&b, k);
	fill(&b.t);
	route(&b.t, &rt);
	for (unsigned g = 0; g < ng; g++) {
		unsigned nl = 2 + (unsigned)(tb_rand(&seed) % h), first = (unsigned)tb_rand(&seed);
		struct mcast_member *m = gs_add(&s, (uint16_t)(MCAST_MLID_MIN + g), nl);
		for (unsigned i = 0; i < nl; i++) {
			unsigned leaf = (first + i * 5) % k; /* 5 is prime to k: distinct */
			m[i] = (struct mcast_member){
				leaf * (h + 1) + 1 + (unsigned)(tb_rand(&seed) % h), 1 };
		}
	}
	mcast(&b.t, &rt, s.g, s.n, NULL, &r);
	check_batch(&b.t, &rt, &s, &r);
	for (unsigned g = 0; g < ng; g++) {
		uint32_t sp = r.trees[g].root - k * (h + 1);
		assert_true(sp < nsp);
		rooted[sp]++;
	}
	for (unsigned sp = 0; sp < nsp; sp++)
		assert_int_equal(rooted[sp], 4);
	/* trees per leaf-spine link against the least possible busiest link:
	 * a leaf in n groups needs ceil(n / S) on one of its uplinks */
	uint32_t load[64 * 64] = { 0 }, ingroups[64] = { 0 }, mx = 0, bound = 0;
	for (uint32_t i = 0; i < r.ntsw; i++)
		if (r.tsw[i].parent != MCAST_NO_PARENT) {
			uint32_t leaf = r.tsw[i].node / (h + 1);
			load[leaf * nsp + r.tsw[i].up - h - 1]++;
			ingroups[leaf]++;
		}
	for (unsigned i = 0; i < k * nsp; i++)
		mx = load[i] > mx ? load[i] : mx;
	for (unsigned l = 0; l < k; l++)
		bound = (ingroups[l] + nsp - 1) / nsp > bound ? (ingroups[l] + nsp - 1) / nsp : bound;
	print_message("radix %u: %u groups, every one of %u spines roots 4; busiest "
		      "leaf-spine link carries %u trees, at least %u needed\n", k, ng, nsp, mx,
		      bound);
	assert_true(mx <= bound + 1);
	mcast_result_free(&r);
	route_tables_free(&rt);
	gs_free(&s);
	topo_free_all(&b.t);
}

static void test_balance(void **state)
{
	(void)state;
	balance_on(16, 1);
	balance_on(16, 2);
	balance_on(36, 3);
}

/* ft2 radix 8: leaf l at node 5 l, its hosts at 5 l + 1..4; spines 40-43. */
static void jl_batch(struct gset *s, const uint32_t *hosts, uint32_t n)
{
	struct mcast_member *m = gs_add(s, 0xC000, 2);

	m[0] = (struct mcast_member){ 16, 1 };
	m[1] = (struct mcast_member){ 21, 1 };
	m = gs_add(s, 0xC010, n);
	for (uint32_t i = 0; i < n; i++)
		m[i] = (struct mcast_member){ hosts[i], 1 };
	m = gs_add(s, 0xC020, 3);
	m[0] = (struct mcast_member){ 26, 1 };
	m[1] = (struct mcast_member){ 31, 1 };
	m[2] = (struct mcast_member){ 36, 1 };
}

/* Recomputes with G's new members; returns switches changed for G. */
static uint32_t jl_step(const struct topo *t, const struct route_tables *rt,
			struct mcast_result *r, const uint32_t *hosts, uint32_t n)
{
	struct gset s = { 0 };
	struct mcast_result nr;

	jl_batch(&s, hosts, n);
	mcast(t, rt, s.g, s.n, r, &nr);
	check_batch(t, rt, &s, &nr);
	assert_int_equal(changed(t, r, &nr, 0xC000), 0);
	assert_int_equal(changed(t, r, &nr, 0xC020), 0);
	uint32_t c = changed(t, r, &nr, 0xC010);
	mcast_result_free(r);
	*r = nr;
	gs_free(&s);
	return c;
}

static void test_join_leave(void **state)
{
	static const uint32_t g0[] = { 1, 6, 11 }, g1[] = { 1, 6, 11, 16 },
		g2[] = { 1, 2, 6, 11, 16 }, g3[] = { 1, 2, 11, 16 }, g4[] = { 1, 2 },
		g5[] = { 1, 21 };
	struct tb b;
	struct route_tables rt;
	struct gset s = { 0 };
	struct mcast_result r;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 8);
	fill(&b.t);
	route(&b.t, &rt);
	jl_batch(&s, g0, 3);
	mcast(&b.t, &rt, s.g, s.n, NULL, &r);
	uint32_t root = r.trees[1].root;
	assert_true(root >= 40);
	/* a member on a new leaf: its leaf, and the root's port to it */
	assert_int_equal(jl_step(&b.t, &rt, &r, g1, 4), 2);
	assert_int_equal(r.trees[1].root, root);
	assert_int_equal(r.trees[1].kept_root, 1);
	/* a second member on a leaf in the tree: that leaf only */
	assert_int_equal(jl_step(&b.t, &rt, &r, g2, 5), 1);
	/* the only member of leaf 1 leaves: its leaf, and the root's port */
	assert_int_equal(jl_step(&b.t, &rt, &r, g3, 4), 2);
	assert_int_equal(r.trees[1].root, root);
	/* one leaf left: it is the tree (root, leaves 2 and 3 drop out) */
	assert_int_equal(jl_step(&b.t, &rt, &r, g4, 2), 4);
	assert_int_equal(r.trees[1].root, 0);
	assert_int_equal(r.trees[1].nsw, 1);
	/* a second leaf: a leaf root would not be among the best, a spine is */
	jl_step(&b.t, &rt, &r, g5, 2);
	assert_true(r.trees[1].root >= 40);
	assert_int_equal(r.trees[1].kept_root, 0);
	mcast_result_free(&r);
	route_tables_free(&rt);
	gs_free(&s);
	topo_free_all(&b.t);
}

/* What a link cut did to the trees of a batch. */
struct cut_tally {
	unsigned cuts, affected, unaffected, kept_root;
	uint64_t changed, changed_fresh;
};

/* 1 if entry i's chain to the root in r's tree avoids link (n, p). */
static int chain_avoids(const struct mcast_result *r, const struct mcast_tree *tr, uint32_t i,
			uint32_t n, uint8_t p, uint32_t q, uint8_t pp)
{
	for (; i && i < tr->nsw; i = r->tsw[tr->first + i].parent) {
		const struct mcast_tsw *e = &r->tsw[tr->first + i];
		if ((e->node == n && e->up == p) || (e->node == q && e->up == pp))
			return 0;
	}
	return 1;
}

static const struct mcast_tsw *tree_entry(const struct mcast_result *r,
					  const struct mcast_tree *tr, uint32_t node)
{
	for (uint32_t i = 0; tr && i < tr->nsw; i++)
		if (r->tsw[tr->first + i].node == node)
			return &r->tsw[tr->first + i];
	return NULL;
}

/* A tree whose root stayed: every switch whose old chain to the root
 * avoided the cut link and is still in the tree kept its upstream port. */
static void check_branches_kept(const struct mcast_result *a, const struct mcast_result *b,
				uint16_t mlid, const uint32_t *cut)
{
	const struct mcast_tree *ta = mcast_find_tree(a, mlid), *tb = mcast_find_tree(b, mlid);

	for (uint32_t i = 1; i < ta->nsw; i++) {
		const struct mcast_tsw *e = &a->tsw[ta->first + i], *f;
		if (!chain_avoids(a, ta, i, cut[0], (uint8_t)cut[1], cut[2], (uint8_t)cut[3]))
			continue;
		f = tree_entry(b, tb, e->node);
		if (f && f->up != e->up)
			fail_msg("MLID 0x%x: switch %u moved from port %u to %u", mlid, e->node,
				 e->up, f->up);
	}
}

/* Compares the trees before (a) and after (b) cutting link cut[0..3]
 * (n, p, q, pp); fresh: the same without the previous result. */
static void compare_cut(const struct topo *t, const struct mcast_result *a,
			const struct mcast_result *b, const struct mcast_result *fresh,
			const uint8_t *used, const uint32_t *cut, struct cut_tally *ty)
{
	for (uint32_t i = 0; i < a->ngroups; i++) {
		uint16_t mlid = a->trees[i].mlid;
		uint32_t c = changed(t, a, b, mlid);
		ty->changed += c;
		ty->changed_fresh += changed(t, a, fresh, mlid);
		if (!used[i]) {
			ty->unaffected++;
			if (c || a->trees[i].root != b->trees[i].root)
				fail_msg("MLID 0x%x did not use the cut link but changed", mlid);
			continue;
		}
		ty->affected++;
		if (b->trees[i].kept_root) {
			ty->kept_root++;
			check_branches_kept(a, b, mlid, cut);
		}
	}
	ty->cuts++;
}

/* Which trees of r use link (n, p); fills cut[] with both ends. */
static uint8_t *trees_using(const struct topo *t, const struct mcast_result *r, uint32_t n,
			    uint8_t p, uint32_t *cut)
{
	uint8_t *u = calloc(r->ngroups + 1u, 1), pp = 0;

	cut[0] = n;
	cut[1] = p;
	cut[2] = peer(t, n, p, &pp);
	cut[3] = pp;
	for (uint32_t i = 0; i < r->ngroups; i++)
		u[i] = (uint8_t)tree_uses(t, r, r->trees[i].mlid, n, p);
	return u;
}

/* A seeded switch-to-switch link, in (*n, *p); 0 if there is none. */
static int pick_link(const struct topo *t, uint64_t *seed, uint32_t *n, uint8_t *p)
{
	uint32_t cnt = 0, pick = 0;

	for (int pass = 0; pass < 2; pass++) {
		uint32_t i = 0;
		for (uint32_t a = 0; a < t->nnodes; a++)
			for (uint32_t q = 1; is_sw(t, a) && q <= t->nodes[a].nports; q++) {
				uint8_t pp;
				uint32_t y = peer(t, a, q, &pp);
				if (y == TOPO_NONE || y < a || !is_sw(t, y))
					continue;
				if (pass && i == pick) {
					*n = a;
					*p = (uint8_t)q;
					return 1;
				}
				i++;
			}
		cnt = i;
		if (!cnt)
			return 0;
		pick = (uint32_t)(tb_rand(seed) % cnt);
	}
	return 0;
}

/* Cuts link (n, p), repairs unicast (route_repair, or fresh tables),
 * recomputes with and without prev, checks and compares. rt and r move on. */
static void cut_and_check(struct tb *b, const struct gset *s, struct route_tables *rt,
			  struct mcast_result *r, uint32_t n, uint8_t p, int fresh_unicast,
			  struct cut_tally *ty)
{
	struct route_tables nrt;
	struct route_repair_stats st;
	struct mcast_result nr, fr;
	uint32_t cut[4];
	uint8_t *used = trees_using(&b->t, r, n, p, cut);

	tb_unlink(b, n, p);
	if (fresh_unicast)
		route(&b->t, &nrt);
	else if (route_repair(&b->t, NULL, rt, &nrt, &st))
		fail_msg("route_repair: %s", nrt.why);
	mcast(&b->t, &nrt, s->g, s->n, r, &nr);
	mcast(&b->t, &nrt, s->g, s->n, NULL, &fr);
	assert_int_equal(check_batch(&b->t, &nrt, s, &nr), 0);
	compare_cut(&b->t, r, &nr, &fr, used, cut, ty);
	free(used);
	mcast_result_free(&fr);
	mcast_result_free(r);
	route_tables_free(rt);
	*r = nr;
	*rt = nrt;
}

static void print_cuts(const char *what, const struct cut_tally *ty)
{
	print_message("%s: %u cuts; trees: %u untouched (identical), %u used the link (%u kept "
		      "their root); switch masks changed %llu, without the previous trees %llu\n",
		      what, ty->cuts, ty->unaffected, ty->affected, ty->kept_root,
		      (unsigned long long)ty->changed, (unsigned long long)ty->changed_fresh);
}

/* ft2 radix 12: cut a link a tree uses, unicast repaired or recomputed. */
static void test_link_failure_ft2(void **state)
{
	(void)state;
	for (int fresh = 0; fresh < 2; fresh++) {
		struct tb b;
		struct route_tables rt;
		struct gset s = { 0 };
		struct mcast_result r;
		struct cut_tally ty = { 0 };
		tb_init(&b);
		tb_ft2(&b, 12);
		fill(&b.t);
		route(&b.t, &rt);
		random_groups(&b.t, &s, 60, 8, 99);
		mcast(&b.t, &rt, s.g, s.n, NULL, &r);
		const struct mcast_tree *tr = &r.trees[0];
		for (uint32_t i = 0; tr->nsw < 2; i++)
			tr = &r.trees[i];
		const struct mcast_tsw *e = &r.tsw[tr->first + 1];
		cut_and_check(&b, &s, &rt, &r, e->node, e->up, fresh, &ty);
		print_cuts(fresh ? "ft2-12, fresh unicast" : "ft2-12, route_repair", &ty);
		assert_true(ty.affected > 0 && ty.unaffected > 0);
		assert_true(ty.changed <= ty.changed_fresh);
		mcast_result_free(&r);
		route_tables_free(&rt);
		gs_free(&s);
		topo_free_all(&b.t);
	}
}

/* Repeated seeded cuts on degraded trees, tori, random graphs. */
static void test_props_link_failures(void **state)
{
	struct cut_tally ty = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct tb b;
		struct route_tables rt;
		struct gset s = { 0 };
		struct mcast_result r;
		uint64_t cs = seed * 13;
		unsigned kind = (unsigned)(seed % 4); /* 0, 1: fat trees, slower to repair */
		build_fabric(&b, kind, seed);
		route(&b.t, &rt);
		random_groups(&b.t, &s, 30, 6, seed);
		mcast(&b.t, &rt, s.g, s.n, NULL, &r);
		for (unsigned round = 0; round < (kind < 2 ? 2u : 6u); round++) {
			uint32_t n;
			uint8_t p;
			if (!pick_link(&b.t, &cs, &n, &p))
				break;
			cut_and_check(&b, &s, &rt, &r, n, p, 0, &ty);
		}
		mcast_result_free(&r);
		route_tables_free(&rt);
		gs_free(&s);
		topo_free_all(&b.t);
	}
	print_cuts("degraded trees, tori, random graphs", &ty);
	assert_true(ty.kept_root > 0);
	assert_true(ty.changed <= ty.changed_fresh);
}

static uint32_t node_by_guid(const struct topo *t, uint64_t guid)
{
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].guid == guid)
			return i;
	fail_msg("no node 0x%llx", (unsigned long long)guid);
	return 0;
}

/* Same trees and masks, node by node GUID. */
static void assert_same_by_guid(const struct topo *ta, const struct mcast_result *a,
				const struct topo *tb, const struct mcast_result *b)
{
	assert_int_equal(a->ngroups, b->ngroups);
	for (uint32_t i = 0; i < a->ngroups; i++) {
		assert_int_equal(a->trees[i].root_guid, b->trees[i].root_guid);
		assert_int_equal(a->trees[i].nsw, b->trees[i].nsw);
		assert_int_equal(a->trees[i].depth, b->trees[i].depth);
		assert_int_equal(a->trees[i].nmiss, b->trees[i].nmiss);
	}
	for (uint32_t n = 0; n < ta->nnodes; n++) {
		if (!is_sw(ta, n))
			continue;
		const struct mcast_mft *x = &a->mft[n];
		const struct mcast_mft *y = &b->mft[node_by_guid(tb, ta->nodes[n].guid)];
		assert_int_equal(x->n, y->n);
		assert_memory_equal(x->mlid, y->mlid, x->n * sizeof(*x->mlid));
		assert_memory_equal(x->mask, y->mask, (size_t)x->n * x->npos * sizeof(*x->mask));
	}
}

/* The groups of s for t re-indexed for u (same GUIDs), in reverse order. */
static void remap_groups(const struct topo *t, const struct gset *s, const struct topo *u,
			 struct gset *out)
{
	for (uint32_t i = s->n; i-- > 0;) {
		struct mcast_member *m = gs_add(out, s->g[i].mlid, s->g[i].nmembers);
		for (uint32_t k = 0; k < s->g[i].nmembers; k++)
			m[k] = (struct mcast_member){
				node_by_guid(u, t->nodes[s->g[i].members[k].node].guid),
				s->g[i].members[k].port };
	}
}

static void test_shuffle(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct tb b;
		struct topo u;
		struct route_tables rt, ru;
		struct gset s = { 0 }, su = { 0 };
		struct mcast_result r, ra, rb;
		build_fabric(&b, (unsigned)(seed % 6), seed);
		topo_copy(&u, &b.t);
		tb_shuffle(&u, seed * 1000);
		route(&b.t, &rt);
		route(&u, &ru);
		random_groups(&b.t, &s, 50, 8, seed);
		remap_groups(&b.t, &s, &u, &su);
		mcast(&b.t, &rt, s.g, s.n, NULL, &r);
		mcast(&u, &ru, su.g, su.n, NULL, &ra);
		assert_same_by_guid(&b.t, &r, &u, &ra);
		/* a previous result from the other node order keeps everything */
		mcast(&u, &ru, su.g, su.n, &r, &rb);
		assert_same_by_guid(&b.t, &r, &u, &rb);
		for (uint32_t i = 0; i < rb.ngroups; i++)
			assert_int_equal(rb.trees[i].kept_root, rb.trees[i].root != TOPO_NONE);
		mcast_result_free(&r);
		mcast_result_free(&ra);
		mcast_result_free(&rb);
		route_tables_free(&rt);
		route_tables_free(&ru);
		gs_free(&s);
		gs_free(&su);
		topo_free_all(&b.t);
		topo_free_all(&u);
	}
}

static void test_mft_helpers(void **state)
{
	struct mcast_mft a, b;
	uint16_t w[32] = { 0 }, out[32], zero[32] = { 0 };
	struct mcast_blockpos bp[4];

	(void)state;
	mcast_mft_init(&a, 36);
	mcast_mft_init(&b, 36);
	assert_int_equal(a.npos, 3);
	w[0] = 0x0003;
	w[31] = 0x8000;
	assert_int_equal(mcast_mft_put(&a, 0, 0, w), 0);
	assert_int_equal(a.n, 2);
	memset(w, 0, sizeof(w));
	w[0] = 0x001F; /* ports 32..36 */
	assert_int_equal(mcast_mft_put(&a, 0, 2, w), 0);
	const uint16_t *f = mcast_mft_find(&a, 0xC000);
	assert_non_null(f);
	assert_int_equal(f[0], 0x0003);
	assert_int_equal(f[1], 0);
	assert_int_equal(f[2], 0x001F);
	assert_int_equal(mcast_mft_find(&a, 0xC01F)[0], 0x8000);
	assert_null(mcast_mft_find(&a, 0xC001));
	assert_int_equal(mcast_mft_block(&a, 0, 2, out), 0);
	assert_int_equal(out[0], 0x001F);
	assert_int_equal(out[31], 0);
	/* the last block holds 0xFFE0..0xFFFF */
	memset(w, 0, sizeof(w));
	w[30] = 0x0100;
	assert_int_equal(mcast_mft_put(&a, 511, 1, w), 0);
	assert_int_equal(mcast_mft_find(&a, 0xFFFE)[1], 0x0100);
	assert_int_equal(a.n, 3);
	/* out of range */
	assert_int_equal(mcast_mft_block(&a, 512, 0, out), -EINVAL);
	assert_int_equal(mcast_mft_block(&a, 0, 16, out), -EINVAL);
	assert_int_equal(mcast_mft_block(&a, 0, 3, out), 0); /* no such ports: zeros */
	assert_memory_equal(out, zero, sizeof(zero));
	assert_int_equal(mcast_mft_put(&a, 0, 3, w), -ERANGE);
	assert_int_equal(mcast_mft_put(&a, 512, 0, w), -EINVAL);
	assert_int_equal(mcast_mft_put(&a, 0, 16, w), -EINVAL);
	/* diff against an empty table, also with too small an out[] */
	assert_int_equal(mcast_mft_diff(&b, &a, bp, 4), 3);
	assert_int_equal(bp[0].block, 0);
	assert_int_equal(bp[0].pos, 0);
	assert_int_equal(bp[1].block, 0);
	assert_int_equal(bp[1].pos, 2);
	assert_int_equal(bp[2].block, 511);
	assert_int_equal(bp[2].pos, 1);
	assert_int_equal(mcast_mft_diff(&a, &b, bp, 1), 3);
	assert_int_equal(bp[0].pos, 0);
	mcast_mft_copy(&b, &a);
	assert_int_equal(mcast_mft_diff(&a, &b, bp, 4), 0);
	/* clearing position 0 of block 0 drops 0xC01F, 0xC000 keeps pos 2 */
	assert_int_equal(mcast_mft_put(&a, 0, 0, zero), 0);
	assert_int_equal(a.n, 2);
	assert_null(mcast_mft_find(&a, 0xC01F));
	assert_int_equal(mcast_mft_diff(&b, &a, bp, 4), 1);
	assert_int_equal(bp[0].block, 0);
	assert_int_equal(bp[0].pos, 0);
	mcast_mft_free(&a);
	mcast_mft_free(&b);
}

/* A switch's words of (block, pos) in the two tables differ. */
static int block_differs(const struct mcast_mft *x, const struct mcast_mft *y, uint16_t blk,
			 uint8_t pos)
{
	uint16_t a[32], b[32];

	assert_int_equal(mcast_mft_block(x, blk, pos, a), 0);
	assert_int_equal(mcast_mft_block(y, blk, pos, b), 0);
	return memcmp(a, b, sizeof(a)) != 0;
}

/*
 * Every switch of a computed result: writing all its blocks into an empty
 * table rebuilds it exactly; against a table of seeded garbage the diff
 * lists exactly the (block, position) pairs a full comparison finds.
 */
static void test_mft_roundtrip(void **state)
{
	struct tb b;
	struct route_tables rt;
	struct gset s = { 0 };
	struct mcast_result r;
	struct mcast_blockpos *bp = calloc(MCAST_MAX_BLOCKS * MCAST_MAX_POS, sizeof(*bp));
	uint64_t seed = 5, diffs = 0;

	(void)state;
	tb_init(&b);
	tb_ft2(&b, 36);
	fill(&b.t);
	route(&b.t, &rt);
	random_groups(&b.t, &s, 400, 6, 3); /* MLIDs 0xC000..0xC4AD */
	mcast(&b.t, &rt, s.g, s.n, NULL, &r);
	for (uint32_t n = 0; n < b.t.nnodes; n++) {
		if (!is_sw(&b.t, n))
			continue;
		const struct mcast_mft *want = &r.mft[n];
		struct mcast_mft held, junk;
		uint16_t w[32];
		mcast_mft_init(&held, b.t.nodes[n].nports);
		mcast_mft_init(&junk, b.t.nodes[n].nports);
		for (uint16_t blk = 0; blk < 40; blk++)
			for (uint8_t pos = 0; pos < want->npos; pos++) {
				assert_int_equal(mcast_mft_block(want, blk, pos, w), 0);
				assert_int_equal(mcast_mft_put(&held, blk, pos, w), 0);
				for (int i = 0; i < 32; i++)
					w[i] = tb_rand(&seed) % 4 ? w[i] : (uint16_t)tb_rand(&seed);
				assert_int_equal(mcast_mft_put(&junk, blk, pos, w), 0);
			}
		assert_int_equal(held.n, want->n);
		assert_memory_equal(held.mlid, want->mlid, want->n * sizeof(*want->mlid));
		assert_memory_equal(held.mask, want->mask, (size_t)want->n * want->npos * 2);
		assert_int_equal(mcast_mft_diff(&held, want, bp, 1), 0);
		size_t nd = mcast_mft_diff(&junk, want, bp, MCAST_MAX_BLOCKS * MCAST_MAX_POS), k = 0;
		for (uint16_t blk = 0; blk < MCAST_MAX_BLOCKS; blk++)
			for (uint8_t pos = 0; pos < MCAST_MAX_POS; pos++)
				if (block_differs(&junk, want, blk, pos)) {
					assert_true(k < nd);
					assert_int_equal(bp[k].block, blk);
					assert_int_equal(bp[k++].pos, pos);
				}
		assert_int_equal(k, nd);
		diffs += nd;
		mcast_mft_free(&held);
		mcast_mft_free(&junk);
	}
	print_message("%llu (block, position) pairs differ from the seeded garbage\n",
		      (unsigned long long)diffs);
	assert_true(diffs > 0);
	free(bp);
	mcast_result_free(&r);
	route_tables_free(&rt);
	gs_free(&s);
	topo_free_all(&b.t);
}

/* One-sided and out-of-range links, LIDs the graph view rejects. */
static void corrupt_topo(struct topo *t, uint64_t *seed)
{
	for (uint32_t n = 0; n < t->nnodes; n++)
		for (uint32_t p = 0; p <= t->nodes[n].nports; p++) {
			struct topo_port *tp = &t->nodes[n].ports[p];
			uint64_t r = tb_rand(seed) % 64;
			if (r == 0)
				tp->peer_node = (uint32_t)(tb_rand(seed) % (t->nnodes + 4u));
			else if (r == 1)
				tp->peer_port = (uint8_t)tb_rand(seed);
			else if (r == 2 && tb_rand(seed) % 8 == 0)
				tp->lid = (uint16_t)tb_rand(seed);
		}
}

/* Tables of random bytes (some switches without any), top at random. */
static void garbage_tables(const struct topo *t, struct route_tables *rt, uint64_t *seed)
{
	memset(rt, 0, sizeof(*rt));
	rt->nnodes = t->nnodes;
	rt->top = (uint16_t)(tb_rand(seed) % 300);
	rt->lft = calloc(t->nnodes + 1u, sizeof(*rt->lft));
	for (uint32_t n = 0; n < t->nnodes; n++) {
		if (!is_sw(t, n) || tb_rand(seed) % 10 == 0)
			continue;
		rt->lft[n].ports = malloc(rt->top + 1u);
		for (uint32_t l = 0; l <= rt->top; l++)
			rt->lft[n].ports[l] = (uint8_t)tb_rand(seed) % 16;
	}
}

/*
 * What the fabric says is untrusted: corrupted links, bogus LIDs and LFTs
 * of random bytes, with and without a previous result from another
 * fabric, give an error or results that pass every check.
 */
static void test_garbage(void **state)
{
	unsigned ok = 0, errors = 0;
	struct mcast_result prev;

	(void)state;
	memset(&prev, 0, sizeof(prev));
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct tb b;
		struct route_tables rt;
		struct gset s = { 0 };
		struct mcast_result r;
		uint64_t gs = seed;
		tb_init(&b);
		if (seed % 2)
			tb_random(&b, 8 + (unsigned)(seed % 8), 3, 2, seed);
		else
			tb_ft2(&b, 6);
		fill(&b.t);
		corrupt_topo(&b.t, &gs);
		garbage_tables(&b.t, &rt, &gs);
		random_groups(&b.t, &s, 12, 6, seed);
		struct mcast_opts o = { .prev = seed % 4 ? &prev : NULL };
		if (mcast_compute(&b.t, &rt, s.g, s.n, &o, &r)) {
			assert_true(r.why[0] != 0);
			errors++;
		} else {
			check_batch(&b.t, &rt, &s, &r);
			ok++;
		}
		mcast_result_free(&prev);
		prev = r; /* zeroed by mcast_result_free() after an error */
		route_tables_free(&rt);
		gs_free(&s);
		topo_free_all(&b.t);
	}
	print_message("%u garbage fabrics: %u computed and checked, %u refused\n", ok + errors,
		      ok, errors);
	assert_true(ok > 100);
	mcast_result_free(&prev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_small),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_kept_needs_unicast),
		cmocka_unit_test(test_props),
		cmocka_unit_test(test_balance),
		cmocka_unit_test(test_join_leave),
		cmocka_unit_test(test_link_failure_ft2),
		cmocka_unit_test(test_props_link_failures),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_mft_helpers),
		cmocka_unit_test(test_mft_roundtrip),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
