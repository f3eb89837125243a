/*
 * DOC: AR group and AR LFT computation for fat trees (see routing/ar.h).
 *
 * Per destination leaf L two distance arrays over switches: hd[s], hops
 * from s to L moving only down (to a lower rank), and hu[s], hops of the
 * shortest path that goes up zero or more times and then only down. hd is
 * filled in increasing rank order, hu in decreasing order, so each is one
 * pass. Links between switches of equal rank are never used: they would
 * allow down->up turns and break the up*-down* deadlock argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/ar.h"
#include "routing/graph.h"

#define INF UINT32_MAX

unsigned ar_ports_count(const struct ar_ports *m)
{
	unsigned n = 0;

	for (int i = 0; i < 4; i++)
		n += rg_pop64(m->w[i]);
	return n;
}

/* --- leaf id map --- */

void ar_ids_free(struct ar_ids *ids)
{
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}

uint16_t ar_ids_find(const struct ar_ids *ids, uint64_t guid)
{
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i].guid == guid)
			return ids->v[i].id;
	return 0;
}

uint16_t ar_ids_add(struct ar_ids *ids, uint64_t guid)
{
	uint8_t *used = rg_xcalloc(4096, 1);
	uint16_t id = 0;

	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i].id < 4096)
			used[ids->v[i].id] = 1;
	for (unsigned k = 1; k < 4096 && !id; k++)
		if (!used[k])
			id = (uint16_t)k;
	free(used);
	if (!id)
		return 0;
	if (ids->n == ids->cap) {
		ids->cap = ids->cap ? ids->cap * 2 : 16;
		ids->v = realloc(ids->v, ids->cap * sizeof(*ids->v));
		if (!ids->v)
			abort();
	}
	ids->v[ids->n].guid = guid;
	ids->v[ids->n++].id = id;
	ids->changed = 1;
	return id;
}

/* --- computation --- */

struct arc {
	const struct rgraph *g;
	const struct route_tables *rt;
	uint32_t *rank;      /* hops from the nearest leaf; INF unreached */
	uint32_t *order;     /* switches by increasing rank */
	uint32_t *hd, *hu;
	uint16_t *leaf_id;   /* per switch: group id, 0 if not a leaf */
	uint32_t *lid_leaf;  /* per LID: leaf switch, RG_NONE */
};

static void ranks(struct arc *c)
{
	const struct rgraph *g = c->g;
	uint32_t *src = rg_xcalloc(g->nsw + 1, sizeof(*src)), *queue, n = 0, maxr;

	queue = rg_xcalloc(g->nsw + 1, sizeof(*queue));
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].nhosts)
			src[n++] = s;
	maxr = rg_bfs(g, src, n, c->rank, queue);
	n = 0;
	/* unreached switches (rank INF) last */
	for (uint32_t r = 0; r <= maxr + 1; r++)
		for (uint32_t s = 0; s < g->nsw; s++)
			if (c->rank[s] == r || (r == maxr + 1 && c->rank[s] == INF))
				c->order[n++] = s;
	free(src);
	free(queue);
}

static uint32_t add1(uint32_t d)
{
	return d == INF ? INF : d + 1;
}

/* hd and hu towards leaf l. */
static void distances(struct arc *c, uint32_t l)
{
	const struct rgraph *g = c->g;

	for (uint32_t i = 0; i < g->nsw; i++) {
		uint32_t s = c->order[i];

		c->hd[s] = s == l ? 0 : INF;
		for (uint32_t k = 0; s != l && k < g->sw[s].ngroups; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			if (c->rank[p] < c->rank[s] && add1(c->hd[p]) < c->hd[s])
				c->hd[s] = add1(c->hd[p]);
		}
	}
	for (uint32_t i = g->nsw; i-- > 0;) {
		uint32_t s = c->order[i];

		c->hu[s] = c->hd[s];
		for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
			uint32_t p = rg_group(g, s, k)->peer;
			if (c->rank[p] != INF && c->rank[p] > c->rank[s] && add1(c->hu[p]) < c->hu[s])
				c->hu[s] = add1(c->hu[p]);
		}
	}
}

/* Ports of s starting a minimal legal path to leaf l (distances() ran). */
static void group_of(const struct arc *c, uint32_t s, uint32_t l, struct ar_ports *m)
{
	const struct rgraph *g = c->g;
	int down = c->hd[s] != INF;

	memset(m, 0, sizeof(*m));
	if (s == l || c->hu[s] == INF)
		return;
	for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
		const struct rg_group *gr = rg_group(g, s, k);
		uint32_t p = gr->peer;
		int ok = down ? c->rank[p] < c->rank[s] && add1(c->hd[p]) == c->hd[s]
			      : c->rank[p] != INF && c->rank[p] > c->rank[s] &&
					add1(c->hu[p]) == c->hu[s];

		for (uint16_t i = 0; ok && i < gr->n; i++)
			ar_ports_add(m, g->gports[gr->first + i]);
	}
}

static void map_lids(struct arc *c)
{
	const struct rgraph *g = c->g;
	uint32_t top = c->rt->top;

	for (uint32_t l = 0; l <= top; l++)
		c->lid_leaf[l] = RG_NONE;
	for (uint32_t h = 0; h < g->nhosts; h++)
		for (uint32_t k = 0; k < g->hosts[h].nlids; k++)
			if (g->hosts[h].lid + k <= top)
				c->lid_leaf[g->hosts[h].lid + k] = g->hosts[h].sw;
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].nhosts && g->sw[s].lid && g->sw[s].lid <= top)
			c->lid_leaf[g->sw[s].lid] = s;
}

static int assign_ids(struct arc *c, struct ar_ids *ids, struct ar_tables *out)
{
	const struct rgraph *g = c->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		uint64_t guid = g->t->nodes[g->sw[s].node].guid;
		uint16_t id;

		if (!g->sw[s].nhosts)
			continue;
		id = ar_ids_find(ids, guid);
		if (!id)
			id = ar_ids_add(ids, guid);
		if (!id) {
			snprintf(out->why, sizeof(out->why), "more than 4095 leaf switches");
			return -1;
		}
		c->leaf_id[s] = id;
		out->nleaves++;
		if (id > out->group_top)
			out->group_top = id;
	}
	return 0;
}

static void fill_entry(const struct arc *c, const struct ar_opts *o, uint32_t s, uint16_t lid,
		       struct ar_sw_tables *st, struct ar_tables *out)
{
	const uint8_t *ports = c->rt->lft[c->g->sw[s].node].ports;
	struct ar_entry *e = &st->lft[lid];
	uint32_t l = c->lid_leaf[lid];
	const struct ar_ports *m;

	e->state = AR_STATE_STATIC;
	e->port = ports ? ports[lid] : LFT_NO_PORT;
	e->group = 0;
	if (l == RG_NONE || l == s)
		return;
	m = &st->groups[c->leaf_id[l]];
	if (ar_ports_count(m) < 2)
		return;
	if (!ar_ports_has(m, e->port)) {
		out->static_outside++;
		return;
	}
	e->state = o->bounded ? AR_STATE_BOUNDED : AR_STATE_FREE;
	e->group = c->leaf_id[l];
	st->nadaptive++;
}

static void alloc_tables(struct arc *c, struct ar_tables *out)
{
	const struct rgraph *g = c->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		struct ar_sw_tables *st = &out->sw[g->sw[s].node];

		st->groups = rg_xcalloc((size_t)out->group_top + 1, sizeof(*st->groups));
		st->lft = rg_xcalloc((size_t)out->top + 1, sizeof(*st->lft));
	}
}

static void compute_all(struct arc *c, const struct ar_opts *o, struct ar_tables *out)
{
	const struct rgraph *g = c->g;

	alloc_tables(c, out);
	for (uint32_t l = 0; l < g->nsw; l++) {
		if (!c->leaf_id[l])
			continue;
		distances(c, l);
		for (uint32_t s = 0; s < g->nsw; s++)
			group_of(c, s, l, &out->sw[g->sw[s].node].groups[c->leaf_id[l]]);
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t lid = 0; lid <= out->top; lid++)
			fill_entry(c, o, s, (uint16_t)lid, &out->sw[g->sw[s].node], out);
}

static void arc_free(struct arc *c)
{
	free(c->rank);
	free(c->order);
	free(c->hd);
	free(c->hu);
	free(c->leaf_id);
	free(c->lid_leaf);
}

int ar_compute(const struct topo *t, const struct route_tables *rt, const struct ar_opts *o,
	       struct ar_ids *ids, struct ar_tables *out)
{
	struct rgraph g;
	struct arc c = { .g = &g, .rt = rt };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (rt->nnodes != t->nnodes) {
		snprintf(out->why, sizeof(out->why), "route tables do not match the fabric");
		return -1;
	}
	if (rg_build(&g, t, out->why, sizeof(out->why)) < 0)
		return -1;
	out->nnodes = t->nnodes;
	out->top = rt->top;
	out->sw = rg_xcalloc(t->nnodes ? t->nnodes : 1, sizeof(*out->sw));
	c.rank = rg_xcalloc(g.nsw + 1, sizeof(uint32_t));
	c.order = rg_xcalloc(g.nsw + 1, sizeof(uint32_t));
	c.hd = rg_xcalloc(g.nsw + 1, sizeof(uint32_t));
	c.hu = rg_xcalloc(g.nsw + 1, sizeof(uint32_t));
	c.leaf_id = rg_xcalloc(g.nsw + 1, sizeof(uint16_t));
	c.lid_leaf = rg_xcalloc((size_t)rt->top + 1, sizeof(uint32_t));
	ranks(&c);
	map_lids(&c);
	if (assign_ids(&c, ids, out) == 0) {
		compute_all(&c, o, out);
		snprintf(out->why, sizeof(out->why), "%u leaves, group top %u, %u static outside group",
			 out->nleaves, out->group_top, out->static_outside);
		rc = 0;
	}
	arc_free(&c);
	rg_free(&g);
	if (rc < 0) {
		char why[256];
		memcpy(why, out->why, sizeof(why));
		ar_tables_free(out);
		memcpy(out->why, why, sizeof(why));
	}
	return rc;
}

void ar_tables_free(struct ar_tables *at)
{
	for (uint32_t i = 0; at->sw && i < at->nnodes; i++) {
		free(at->sw[i].groups);
		free(at->sw[i].lft);
	}
	free(at->sw);
	memset(at, 0, sizeof(*at));
}

/* --- verification: every path the AR entries allow --- */

/* The lowest port >= from in m, or -1. */
static int ports_next(const struct ar_ports *m, unsigned from)
{
	for (unsigned i = from / 64; i < 4; i++) {
		uint64_t x = m->w[i];

		if (i == from / 64)
			x &= ~0ull << (from % 64);
		if (x)
			return (int)(i * 64 + (unsigned)__builtin_ctzll(x));
	}
	return -1;
}

struct eset {               /* open-addressing set of CDG edges (key + 1) */
	uint64_t *k;
	size_t n, cap;
};

static void eset_put(struct eset *s, uint64_t key);

static void eset_grow(struct eset *s)
{
	struct eset o = *s;

	s->cap = o.cap ? o.cap * 2 : 1024;
	s->k = rg_xcalloc(s->cap, sizeof(*s->k));
	s->n = 0;
	for (size_t i = 0; i < o.cap; i++)
		if (o.k[i])
			eset_put(s, o.k[i] - 1);
	free(o.k);
}

static void eset_put(struct eset *s, uint64_t key)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap)
		eset_grow(s);
	i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (s->cap - 1);
	while (s->k[i] && s->k[i] != key + 1)
		i = (i + 1) & (s->cap - 1);
	if (!s->k[i]) {
		s->k[i] = key + 1;
		s->n++;
	}
}

struct arv {
	const struct rgraph *g;
	const struct ar_tables *at;
	uint8_t *color;     /* per switch: 0 new, 1 on the walk, 2 done */
	int loop, dead;
	struct ar_verify *v;
	struct eset edges;
};

/* The ports entry (s, lid) may use. */
static struct ar_ports next_ports(const struct arv *w, uint32_t s, uint16_t lid)
{
	const struct ar_sw_tables *st = &w->at->sw[w->g->sw[s].node];
	const struct ar_entry *e = &st->lft[lid];
	struct ar_ports m = { { 0 } };

	if (e->state != AR_STATE_STATIC && e->group && e->group <= w->at->group_top)
		return st->groups[e->group];
	if (e->port != LFT_NO_PORT)
		ar_ports_add(&m, e->port);
	return m;
}

/* 1 if port p of s hands lid to the CA port owning it (or to s itself). */
static int delivers(const struct arv *w, uint32_t s, uint8_t p, uint16_t lid)
{
	const struct topo *t = w->g->t;
	const struct topo_port *tp;
	const struct topo_node *cn;

	if (p == 0)
		return w->g->sw[s].lid == lid;
	if (p > w->g->sw[s].nports)
		return 0;
	tp = &t->nodes[w->g->sw[s].node].ports[p];
	if (!topo_port_linked(tp))
		return 0;
	cn = &t->nodes[tp->peer_node];
	if (cn->type == TOPO_SWITCH || tp->peer_port > cn->nports)
		return 0;
	tp = &cn->ports[tp->peer_port];
	return tp->lid && lid >= tp->lid && lid < tp->lid + (1u << tp->lmc);
}

static void walk(struct arv *w, uint32_t s, uint16_t lid)
{
	struct ar_ports m = next_ports(w, s, lid);

	w->color[s] = 1;
	w->v->visits++;
	if (!ar_ports_count(&m))
		w->dead = 1;
	for (int p = ports_next(&m, 0); p >= 0; p = ports_next(&m, (unsigned)p + 1)) {
		uint32_t u = rg_port_peer_sw(w->g, s, (uint8_t)p);

		if (u == RG_NONE) {
			w->dead |= !delivers(w, s, (uint8_t)p, lid);
			continue;
		}
		if (w->color[u] == 1)
			w->loop = 1;
		else if (!w->color[u])
			walk(w, u, lid);
	}
	w->color[s] = 2;
}

/* Channel dependencies of one destination: (s,p) -> (u,q) for every pair
 * of consecutive hops some walk can take. */
static void add_edges(struct arv *w, uint16_t lid)
{
	const struct rgraph *g = w->g;

	for (uint32_t s = 0; s < g->nsw; s++) {
		struct ar_ports m;

		if (w->color[s] != 2)
			continue;
		m = next_ports(w, s, lid);
		for (int p = ports_next(&m, 1); p >= 0; p = ports_next(&m, (unsigned)p + 1)) {
			uint32_t u = rg_port_peer_sw(g, s, (uint8_t)p);
			struct ar_ports n;

			if (u == RG_NONE)
				continue;
			n = next_ports(w, u, lid);
			for (int q = ports_next(&n, 1); q >= 0; q = ports_next(&n, (unsigned)q + 1))
				if (rg_port_peer_sw(g, u, (uint8_t)q) != RG_NONE)
					eset_put(&w->edges,
						 (uint64_t)(g->sw[s].portbase + (unsigned)p) << 32 |
							 (g->sw[u].portbase + (unsigned)q));
		}
	}
}

static void walk_dest(struct arv *w, uint16_t lid)
{
	const struct rgraph *g = w->g;

	memset(w->color, 0, g->nsw);
	w->loop = w->dead = 0;
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].nhosts && !w->color[s])
			walk(w, s, lid);
	add_edges(w, lid);
}

/*
 * Destinations that look the same to every switch walk the same: the next
 * ports leading to switches (or nowhere) equal, and "hands it to its owner"
 * in the same places. All LIDs behind one leaf usually do, so each such
 * class is walked once (a 3-level radix-24 tree: 288 walks, not 3456).
 */
struct hop_sig {
	uint64_t w[4];
	uint64_t delivered;
};

#define SIG_CLASSES_MAX 1024      /* beyond this, walk every destination */

struct sig_class {
	uint64_t hash;
	struct hop_sig *sig;      /* nsw entries */
	int loop, dead;
};

static uint64_t dest_sig(const struct arv *w, uint16_t lid, struct hop_sig *sig)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t s = 0; s < w->g->nsw; s++) {
		struct ar_ports m = next_ports(w, s, lid);

		sig[s].delivered = 0;
		for (unsigned i = 0; i < 4; i++)
			for (uint64_t x = m.w[i]; x; x &= x - 1) {
				unsigned p = i * 64 + (unsigned)__builtin_ctzll(x);

				if (rg_port_peer_sw(w->g, s, (uint8_t)p) == RG_NONE &&
				    delivers(w, s, (uint8_t)p, lid)) {
					m.w[i] &= ~(1ull << (p % 64));
					sig[s].delivered = 1;
				}
			}
		memcpy(sig[s].w, m.w, sizeof(m.w));
		for (int i = 0; i < 4; i++)
			h = (h ^ m.w[i]) * 1099511628211ull;
		h = (h ^ sig[s].delivered) * 1099511628211ull;
	}
	return h;
}

static struct sig_class *find_class(struct sig_class *cl, uint32_t n, uint64_t h,
				    const struct hop_sig *sig, uint32_t nsw)
{
	for (uint32_t i = 0; i < n; i++)
		if (cl[i].hash == h && !memcmp(cl[i].sig, sig, nsw * sizeof(*sig)))
			return &cl[i];
	return NULL;
}

static void verify_dest(struct arv *w, uint16_t lid, struct sig_class *cl, uint32_t *ncl,
			struct hop_sig *sig)
{
	uint32_t nsw = w->g->nsw;
	uint64_t h = dest_sig(w, lid, sig);
	struct sig_class *c = find_class(cl, *ncl, h, sig, nsw);

	if (!c) {
		walk_dest(w, lid);
		if (*ncl < SIG_CLASSES_MAX) {
			c = &cl[(*ncl)++];
			c->hash = h;
			c->sig = rg_xmalloc(nsw ? nsw : 1, sizeof(*sig));
			memcpy(c->sig, sig, nsw * sizeof(*sig));
			c->loop = w->loop;
			c->dead = w->dead;
		}
	} else {
		w->loop = c->loop;
		w->dead = c->dead;
	}
	w->v->dests++;
	w->v->loops += (uint64_t)w->loop;
	w->v->dead_ends += (uint64_t)w->dead;
}

static void verify_all(struct arv *w)
{
	const struct rgraph *g = w->g;
	struct sig_class *cl = rg_xcalloc(SIG_CLASSES_MAX, sizeof(*cl));
	struct hop_sig *sig = rg_xcalloc(g->nsw + 1, sizeof(*sig));
	uint32_t ncl = 0;

	for (uint32_t h = 0; h < g->nhosts; h++)
		for (uint32_t k = 0; k < g->hosts[h].nlids; k++)
			if (g->hosts[h].lid + k <= w->at->top)
				verify_dest(w, (uint16_t)(g->hosts[h].lid + k), cl, &ncl, sig);
	for (uint32_t i = 0; i < ncl; i++)
		free(cl[i].sig);
	free(cl);
	free(sig);
}

/* Kahn's algorithm: 1 if the dependency graph has a cycle. */
static int cdg_cyclic(const struct eset *es, uint32_t nch, uint64_t *nchannels)
{
	uint32_t *indeg = rg_xcalloc(nch + 1, sizeof(uint32_t));
	uint32_t *start = rg_xcalloc(nch + 2, sizeof(uint32_t)), *adj, *queue, *fill;
	uint32_t head = 0, tail = 0, done = 0, used = 0;
	uint8_t *seen = rg_xcalloc(nch + 1, 1);

	adj = rg_xcalloc(es->n + 1, sizeof(uint32_t));
	queue = rg_xcalloc(nch + 1, sizeof(uint32_t));
	for (size_t i = 0; i < es->cap; i++) {
		if (!es->k[i])
			continue;
		uint32_t a = (uint32_t)((es->k[i] - 1) >> 32), b = (uint32_t)(es->k[i] - 1);
		start[a + 1]++;
		indeg[b]++;
		seen[a] = seen[b] = 1;
	}
	for (uint32_t c = 0; c < nch; c++)
		start[c + 1] += start[c];
	fill = rg_xcalloc(nch + 1, sizeof(uint32_t));
	for (size_t i = 0; i < es->cap; i++) {
		if (!es->k[i])
			continue;
		uint32_t a = (uint32_t)((es->k[i] - 1) >> 32);
		adj[start[a] + fill[a]++] = (uint32_t)(es->k[i] - 1);
	}
	for (uint32_t c = 0; c < nch; c++) {
		used += seen[c];
		if (seen[c] && !indeg[c])
			queue[tail++] = c;
	}
	while (head < tail) {
		uint32_t c = queue[head++];
		done++;
		for (uint32_t i = start[c]; i < start[c + 1]; i++)
			if (!--indeg[adj[i]])
				queue[tail++] = adj[i];
	}
	*nchannels = used;
	free(indeg), free(start), free(adj), free(queue), free(fill), free(seen);
	return done != used;
}

static int tables_fit(const struct rgraph *g, const struct ar_tables *at)
{
	if (at->nnodes != g->t->nnodes)
		return 0;
	for (uint32_t s = 0; s < g->nsw; s++)
		if (!at->sw[g->sw[s].node].lft || !at->sw[g->sw[s].node].groups)
			return 0;
	return 1;
}

int ar_verify(const struct topo *t, const struct ar_tables *at, struct ar_verify *v,
	      char *err, size_t errlen)
{
	struct rgraph g;
	struct arv w = { .g = &g, .at = at, .v = v };

	memset(v, 0, sizeof(*v));
	if (rg_build(&g, t, err, errlen) < 0)
		return -1;
	if (!tables_fit(&g, at)) {
		snprintf(err, errlen, "AR tables do not match the fabric");
		rg_free(&g);
		return -1;
	}
	w.color = rg_xcalloc(g.nsw + 1, 1);
	verify_all(&w);
	v->cdg_edges = w.edges.n;
	v->cdg_cycle = cdg_cyclic(&w.edges, g.nlinks, &v->cdg_channels);
	free(w.edges.k);
	free(w.color);
	rg_free(&g);
	return 0;
}

int ar_verify_ok(const struct ar_verify *v)
{
	return !v->loops && !v->dead_ends && !v->cdg_cycle;
}
