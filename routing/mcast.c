/*
 * DOC: multicast spanning trees, one per group (see mcast.h for the rules).
 *
 * Per group: resolve the member ports to (switch, port bit); keep the
 * member switches of the connected part holding most of them; choose the
 * root; load the previous tree's upstream ports that still hold; walk
 * every member switch along its next hops until the walk meets the tree,
 * then add the walked path, top first, so that parents precede children;
 * finally append one mask row per tree switch. A walk that meets a dead
 * port, a loop or a switch already known to fail marks its whole path bad
 * (each switch is walked at most once per group), and its members are
 * reported. All per-switch state is stamped with the group number, so no
 * array is cleared between groups.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/graph.h"
#include "routing/mcast_int.h"
#include "routing/simd.h"

#define NO_ROW SIZE_MAX
#define FAR 0xFF /* in a hop row: unreachable; hop counts stop at 254 */

/* A switch's state in the tree being built. */
enum { T_NONE, T_WALK, T_IN, T_BAD };

/* A switch's member flag in the current group. */
enum { M_NONE, M_LISTED, M_COUNTED, M_JOINED };

struct mres {
	uint32_t sw;  /* switch the member port hangs off, RG_NONE if none */
	uint8_t port; /* its bit on that switch */
};

struct mctx {
	const struct topo *t;
	const struct route_tables *rt;
	const struct mcast_result *prev;
	struct mcast_result *out;
	struct rgraph g;
	uint32_t *label, *ccount;  /* component per switch; per component, scratch */
	/* Hop rows of member switches: a byte per switch, padded with FAR to
	 * wpr * 64; sets of switches: bitsets of wpr words. */
	uint32_t wpr;
	uint8_t *rows;
	size_t nrows, rowcap;
	size_t *row_at;            /* per switch: its row, NO_ROW before needed */
	uint8_t *ecc;              /* per switch with a row: its largest hop count */
	uint64_t *cand, *acc;      /* candidate roots; scratch */
	uint32_t *dist, *queue;
	uint32_t *rooted;          /* groups rooted per switch */
	uint32_t *load;            /* trees per directed link id (child's upstream port) */
	uint8_t *used;             /* link id carries a unicast route (with prev only) */
	uint32_t *stamp, gid;      /* per switch: the fields below belong to group gid */
	uint8_t *st, *mflag, *up;
	uint8_t *kup;              /* upstream port in the previous tree, 0: none */
	int keep;                  /* the previous root stays: kup counts */
	uint32_t *par, *ent, *mrow, *path;
	uint32_t *msw, nmsw;       /* member switches of the group, ascending */
	struct mres *mres;
	uint32_t *tmp;
	uint32_t tswcap, misscap, mrescap;
};

static int fail(struct mctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct mctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->out->why, sizeof(x->out->why), fmt, ap);
	va_end(ap);
	return -1;
}

static void touch(struct mctx *x, uint32_t s)
{
	if (x->stamp[s] == x->gid)
		return;
	x->stamp[s] = x->gid;
	x->st[s] = T_NONE;
	x->mflag[s] = M_NONE;
	x->kup[s] = 0;
}

/* Switch index of a switch node GUID (switches are sorted by it). */
static uint32_t sw_by_guid(const struct rgraph *g, uint64_t guid)
{
	uint32_t lo = 0, hi = g->nsw;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t v = g->t->nodes[g->sw[mid].node].guid;
		if (v == guid)
			return mid;
		if (v < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return RG_NONE;
}

static uint8_t lft_port(const struct mctx *x, uint32_t s, uint16_t lid)
{
	const uint8_t *row = x->rt->lft[x->g.sw[s].node].ports;

	return row && lid && lid <= x->rt->top ? row[lid] : LFT_NO_PORT;
}

/* A root must have a LID the unicast tables route. */
static int is_cand(const struct mctx *x, uint32_t s)
{
	return x->g.sw[s].lid && x->g.sw[s].lid <= x->rt->top;
}

const struct mcast_tree *mcast_find_tree(const struct mcast_result *r, uint16_t mlid)
{
	uint32_t lo = 0, hi = r ? r->ngroups : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->trees[mid].mlid == mlid)
			return &r->trees[mid];
		if (r->trees[mid].mlid < mlid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- checking the batch ---- */

static int check_member(struct mctx *x, const struct mcast_group *gr, uint32_t i)
{
	const struct mcast_member *mb = &gr->members[i];

	if (mb->node >= x->t->nnodes)
		return fail(x, "MLID 0x%04x member %u: node %u out of range", gr->mlid, i, mb->node);
	const struct topo_node *nd = &x->t->nodes[mb->node];
	if (nd->type == TOPO_SWITCH && mb->port != 0)
		return fail(x, "MLID 0x%04x member %u: a switch joins with port 0, not %u",
			    gr->mlid, i, mb->port);
	if (nd->type != TOPO_SWITCH && (mb->port == 0 || mb->port > nd->nports || !nd->ports))
		return fail(x, "MLID 0x%04x member %u: node 0x%016llx has no port %u", gr->mlid, i,
			    (unsigned long long)nd->guid, mb->port);
	return 0;
}

struct gref {
	uint16_t mlid;
	uint32_t idx;
};

static int cmp_gref(const void *a, const void *b)
{
	const struct gref *x = a, *y = b;

	return x->mlid != y->mlid ? (x->mlid < y->mlid ? -1 : 1) : 0;
}

/* Sorts the groups by MLID into order[] and checks MLIDs and members. */
static int check_groups(struct mctx *x, const struct mcast_group *grs, uint32_t n, uint16_t top,
			struct gref *order)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct mcast_group *gr = &grs[i];
		if (gr->mlid < MCAST_MLID_MIN || gr->mlid > top)
			return fail(x, "MLID 0x%04x outside 0x%04x..0x%04x", gr->mlid,
				    MCAST_MLID_MIN, top);
		if (gr->nmembers && !gr->members)
			return fail(x, "MLID 0x%04x: no member array", gr->mlid);
		for (uint32_t m = 0; m < gr->nmembers; m++)
			if (check_member(x, gr, m))
				return -1;
		order[i] = (struct gref){ gr->mlid, i };
	}
	qsort(order, n, sizeof(*order), cmp_gref);
	for (uint32_t i = 1; i < n; i++)
		if (order[i].mlid == order[i - 1].mlid)
			return fail(x, "MLID 0x%04x given twice", order[i].mlid);
	return 0;
}

/* ---- per-batch setup ---- */

static void label_components(struct mctx *x)
{
	const struct rgraph *g = &x->g;
	uint32_t nl = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		x->label[s] = RG_NONE;
	for (uint32_t s0 = 0; s0 < g->nsw; s0++) {
		if (x->label[s0] != RG_NONE)
			continue;
		uint32_t head = 0, tail = 0;
		x->label[s0] = nl;
		x->queue[tail++] = s0;
		while (head < tail) {
			uint32_t s = x->queue[head++];
			for (uint32_t k = 0; k < g->sw[s].ngroups; k++) {
				uint32_t p = rg_group(g, s, k)->peer;
				if (x->label[p] == RG_NONE) {
					x->label[p] = nl;
					x->queue[tail++] = p;
				}
			}
		}
		nl++;
	}
}

/* Which switch ports some LFT entry points out of (previous trees keep
 * only links unicast still uses). */
static void mark_used_links(struct mctx *x)
{
	const struct rgraph *g = &x->g;

	x->used = rg_xcalloc(g->nlinks, 1);
	for (uint32_t s = 0; s < g->nsw; s++) {
		const uint8_t *row = x->rt->lft[g->sw[s].node].ports;
		uint8_t *u = x->used + g->sw[s].portbase;
		for (uint32_t lid = 1; row && lid <= x->rt->top; lid++)
			if (row[lid] <= g->sw[s].nports)
				u[row[lid]] = 1;
	}
}

static void setup_arrays(struct mctx *x)
{
	uint32_t n = x->g.nsw;

	x->label = rg_xmalloc(n, sizeof(*x->label));
	x->ccount = rg_xcalloc(n, sizeof(*x->ccount));
	x->wpr = (n + 63) / 64;
	x->row_at = rg_xmalloc(n, sizeof(*x->row_at));
	for (uint32_t s = 0; s < n; s++)
		x->row_at[s] = NO_ROW;
	x->ecc = rg_xmalloc(n, 1);
	x->cand = rg_xcalloc(x->wpr, sizeof(*x->cand));
	x->acc = rg_xmalloc(x->wpr, sizeof(*x->acc));
	for (uint32_t s = 0; s < n; s++)
		if (is_cand(x, s))
			x->cand[s / 64] |= 1ull << (s % 64);
	x->dist = rg_xmalloc(n, sizeof(*x->dist));
	x->queue = rg_xmalloc(n, sizeof(*x->queue));
	x->rooted = rg_xcalloc(n, sizeof(*x->rooted));
	x->load = rg_xcalloc(x->g.nlinks, sizeof(*x->load));
	x->stamp = rg_xcalloc(n, sizeof(*x->stamp));
	x->st = rg_xmalloc(n, 1);
	x->mflag = rg_xmalloc(n, 1);
	x->up = rg_xmalloc(n, 1);
	x->kup = rg_xmalloc(n, 1);
	x->par = rg_xmalloc(n, sizeof(*x->par));
	x->ent = rg_xmalloc(n, sizeof(*x->ent));
	x->mrow = rg_xmalloc(n, sizeof(*x->mrow));
	x->path = rg_xmalloc(n, sizeof(*x->path));
	x->msw = rg_xmalloc(n, sizeof(*x->msw));
}

static void free_ctx(struct mctx *x)
{
	void *p[] = { x->label, x->ccount, x->rows, x->row_at, x->ecc, x->cand, x->acc,
		      x->dist, x->queue,
		      x->rooted, x->load, x->used, x->stamp, x->st, x->mflag, x->up, x->kup,
		      x->par, x->ent, x->mrow, x->path, x->msw, x->mres, x->tmp };

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		free(p[i]);
	if (x->g.t)
		rg_free(&x->g);
}

/* The result's tables: an empty one for every switch node. */
static void init_result(struct mctx *x, uint32_t ngroups)
{
	struct mcast_result *r = x->out;

	r->nnodes = x->t->nnodes;
	r->mft = rg_xcalloc(r->nnodes, sizeof(*r->mft));
	for (uint32_t i = 0; i < r->nnodes; i++)
		if (x->t->nodes[i].type == TOPO_SWITCH)
			mcast_mft_init(&r->mft[i], x->t->nodes[i].nports);
	r->top = MCAST_FDB_TOP_NONE;
	r->trees = rg_xcalloc(ngroups, sizeof(*r->trees));
}

/* ---- members ---- */

/* The switch CA port (n, p) is cabled to, if both ends say so. */
static uint32_t ca_switch(const struct mctx *x, uint32_t n, uint8_t p, uint8_t *swport)
{
	const struct topo *t = x->t;
	const struct topo_port *tp = &t->nodes[n].ports[p];

	if (!topo_port_linked(tp) || tp->peer_node >= t->nnodes)
		return RG_NONE;
	uint32_t s = x->g.node2sw[tp->peer_node];
	if (s == RG_NONE || tp->peer_port == 0 || tp->peer_port > x->g.sw[s].nports)
		return RG_NONE;
	const struct topo_port *back = &t->nodes[tp->peer_node].ports[tp->peer_port];
	if (back->peer_node != n || back->peer_port != p)
		return RG_NONE;
	*swport = tp->peer_port;
	return s;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x != y ? (x < y ? -1 : 1) : 0;
}

/* Fills mres[] and the member switch list (ascending). */
static void resolve_members(struct mctx *x, const struct mcast_group *gr)
{
	if (gr->nmembers > x->mrescap) {
		x->mrescap = gr->nmembers;
		free(x->mres);
		x->mres = rg_xmalloc(x->mrescap, sizeof(*x->mres));
	}
	x->nmsw = 0;
	for (uint32_t i = 0; i < gr->nmembers; i++) {
		const struct mcast_member *mb = &gr->members[i];
		struct mres *r = &x->mres[i];
		r->port = 0;
		if (x->t->nodes[mb->node].type == TOPO_SWITCH)
			r->sw = x->g.node2sw[mb->node];
		else
			r->sw = ca_switch(x, mb->node, mb->port, &r->port);
		if (r->sw == RG_NONE)
			continue;
		touch(x, r->sw);
		if (x->mflag[r->sw] == M_NONE) {
			x->mflag[r->sw] = M_LISTED;
			x->msw[x->nmsw++] = r->sw;
		}
	}
	qsort(x->msw, x->nmsw, sizeof(*x->msw), cmp_u32);
}

/* Keeps the member switches of the component holding most of them. */
static void pick_component(struct mctx *x)
{
	uint32_t best = RG_NONE, n = 0;

	for (uint32_t i = 0; i < x->nmsw; i++) {
		uint32_t l = x->label[x->msw[i]];
		x->ccount[l]++;
		if (best == RG_NONE || x->ccount[l] > x->ccount[best] ||
		    (x->ccount[l] == x->ccount[best] && l < best))
			best = l;
	}
	for (uint32_t i = 0; i < x->nmsw; i++)
		x->ccount[x->label[x->msw[i]]] = 0;
	for (uint32_t i = 0; i < x->nmsw; i++)
		if (x->label[x->msw[i]] == best) {
			x->mflag[x->msw[i]] = M_COUNTED;
			x->msw[n++] = x->msw[i];
		}
	x->nmsw = n;
}

/* ---- the root ---- */

/* Hops from switch s to every switch, one BFS the first time. */
static const uint8_t *row(struct mctx *x, uint32_t s)
{
	size_t len = (size_t)x->wpr * 64;

	if (x->row_at[s] == NO_ROW) {
		uint32_t ecc = rg_bfs(&x->g, &s, 1, x->dist, x->queue);
		if (x->nrows == x->rowcap) {
			x->rowcap = x->rowcap ? x->rowcap * 2 : 16;
			x->rows = realloc(x->rows, x->rowcap * len);
			if (!x->rows)
				abort();
		}
		uint8_t *r = x->rows + x->nrows * len;
		memset(r, FAR, len);
		for (uint32_t v = 0; v < x->g.nsw; v++)
			if (x->dist[v] != UINT32_MAX)
				r[v] = x->dist[v] < FAR ? (uint8_t)x->dist[v] : FAR - 1;
		x->ecc[s] = ecc < FAR ? (uint8_t)ecc : FAR - 1;
		x->row_at[s] = x->nrows++;
	}
	return x->rows + x->row_at[s] * len;
}

/* Bit i: r[i] <= d, for the 64 bytes at r. */
static uint64_t at_most(const uint8_t *r, uint8_t d)
{
	uint64_t m = 0;
#ifdef __SSE2__
	__m128i dv = _mm_set1_epi8((char)d);

	for (uint32_t i = 0; i < 4; i++) {
		__m128i v = rg_load16(r + 16 * i);
		/* unsigned v <= d: max(v, d) == d */
		uint32_t k = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, dv), dv));
		m |= (uint64_t)k << (16 * i);
	}
#else
	for (uint32_t i = 0; i < 64; i++)
		m |= (uint64_t)(r[i] <= d) << i;
#endif
	return m;
}

/* acc = the candidates within d hops of every member switch; 1 if any. */
static int within(struct mctx *x, uint8_t d)
{
	memcpy(x->acc, x->cand, x->wpr * sizeof(*x->acc));
	for (uint32_t i = 0; i < x->nmsw; i++) {
		const uint8_t *r = row(x, x->msw[i]);
		uint64_t any = 0;
		for (uint32_t w = 0; w < x->wpr; w++)
			if (x->acc[w])
				any |= x->acc[w] &= at_most(r + 64 * w, d);
		if (!any)
			return 0;
	}
	return 1;
}

/* The fewest hops any candidate needs to the farthest member switch,
 * with those candidates in acc; UINT32_MAX if there is none. */
static uint32_t best_depth(struct mctx *x)
{
	uint8_t top = 0;

	for (uint32_t i = 0; i < x->nmsw; i++) {
		row(x, x->msw[i]);
		top = x->ecc[x->msw[i]] > top ? x->ecc[x->msw[i]] : top;
	}
	for (uint32_t d = 0; d <= top; d++)
		if (within(x, (uint8_t)d))
			return d;
	return UINT32_MAX;
}

static int in_set(const uint64_t *set, uint32_t s)
{
	return (set[s / 64] >> (s % 64)) & 1;
}

/* rg_port_peer_sw(g, s, p) != RG_NONE, inline: link_score asks it for
 * every member switch of every tied candidate. */
static int to_switch(const struct rgraph *g, uint32_t s, uint8_t p)
{
	return p && p <= g->sw[s].nports && g->port2group[g->sw[s].portbase + p] != 0xFF;
}

static uint64_t clamp(uint64_t v, unsigned bits)
{
	uint64_t top = (1ull << bits) - 1;

	return v < top ? v : top;
}

/* Trees already on the member switches' first hops towards c, to
 * compare candidates: first hops that lead nowhere, then the busiest of
 * them, then their sum. */
static uint64_t link_score(const struct mctx *x, uint32_t c)
{
	uint64_t broken = 0, busiest = 0, sum = 0;

	for (uint32_t i = 0; i < x->nmsw; i++) {
		uint32_t m = x->msw[i];
		if (m == c)
			continue;
		uint8_t p = lft_port(x, m, x->g.sw[c].lid);
		if (!to_switch(&x->g, m, p)) {
			broken++;
			continue;
		}
		uint32_t l = x->load[x->g.sw[m].portbase + p];
		busiest = l > busiest ? l : busiest;
		sum += l;
	}
	return clamp(broken, 16) << 48 | clamp(busiest, 16) << 32 | clamp(sum, 32);
}

/* Next switch of acc at or after s, RG_NONE past the end. */
static uint32_t next_in_acc(const struct mctx *x, uint32_t s)
{
	for (uint32_t w = s / 64; w < x->wpr; w++) {
		uint64_t v = x->acc[w] & (w == s / 64 ? ~0ull << (s % 64) : ~0ull);
		if (v)
			return w * 64 + (uint32_t)__builtin_ctzll(v);
	}
	return RG_NONE;
}

/* The switch of acc that roots the fewest groups, then by link_score. */
static uint32_t pick_best(struct mctx *x)
{
	uint32_t best = RG_NONE, minc = UINT32_MAX;
	uint64_t bscore = UINT64_MAX;

	for (uint32_t s = next_in_acc(x, 0); s != RG_NONE; s = next_in_acc(x, s + 1))
		minc = x->rooted[s] < minc ? x->rooted[s] : minc;
	for (uint32_t s = next_in_acc(x, 0); s != RG_NONE; s = next_in_acc(x, s + 1)) {
		if (x->rooted[s] != minc)
			continue;
		uint64_t sc = link_score(x, s);
		if (sc < bscore) {
			bscore = sc;
			best = s;
		}
	}
	return best;
}

/* Root by the rule in mcast.h; *kept = 1 if it is prev_root. whole: the
 * previous tree still carries every member switch to prev_root. */
static uint32_t choose_root(struct mctx *x, uint32_t prev_root, int whole, uint8_t *kept)
{
	uint32_t root;

	if (x->nmsw <= 1) {
		root = x->nmsw ? x->msw[0] : RG_NONE;
	} else {
		uint32_t d = best_depth(x);
		int keep = prev_root != RG_NONE && is_cand(x, prev_root) &&
			   (whole || (d != UINT32_MAX && in_set(x->acc, prev_root)));
		root = keep ? prev_root : d == UINT32_MAX ? RG_NONE : pick_best(x);
	}
	*kept = root != RG_NONE && root == prev_root;
	return root;
}

/* ---- the previous tree ---- */

/* 1 if unicast sends something over the link at port p of switch s. */
static int link_used(const struct mctx *x, uint32_t s, uint8_t p, uint32_t peer)
{
	const struct topo_port *tp = &x->t->nodes[x->g.sw[s].node].ports[p];

	return x->used[x->g.sw[s].portbase + p] ||
	       x->used[x->g.sw[peer].portbase + tp->peer_port];
}

/* The switch of previous entry e if its upstream port still leads to ps
 * (its parent's switch) over a link unicast uses, else RG_NONE. */
static uint32_t prev_entry(struct mctx *x, const struct mcast_tsw *e, uint32_t ps, uint32_t root)
{
	uint32_t s = sw_by_guid(&x->g, e->guid);

	if (s == RG_NONE || ps == RG_NONE || s == root)
		return RG_NONE;
	touch(x, s);
	if (x->kup[s] || rg_port_peer_sw(&x->g, s, e->up) != ps || !link_used(x, s, e->up, ps))
		return RG_NONE;
	x->kup[s] = e->up;
	return s;
}

/* Loads the upstream ports of pt that still hold, with their whole chain
 * to root; returns 1 if every member switch hangs on root through them. */
static int load_prev(struct mctx *x, const struct mcast_tree *pt, uint32_t root)
{
	const struct mcast_result *pr = x->prev;

	if (!pt->nsw || pt->first > pr->ntsw || pt->nsw > pr->ntsw - pt->first)
		return 0;
	const struct mcast_tsw *e = pr->tsw + pt->first;
	if (e[0].guid != pt->root_guid || e[0].parent != MCAST_NO_PARENT)
		return 0;
	x->tmp = realloc(x->tmp, pt->nsw * sizeof(*x->tmp));
	if (!x->tmp)
		abort();
	x->tmp[0] = root;
	for (uint32_t i = 1; i < pt->nsw; i++)
		x->tmp[i] = e[i].parent < i ? prev_entry(x, &e[i], x->tmp[e[i].parent], root)
					    : RG_NONE;
	for (uint32_t i = 0; i < x->nmsw; i++)
		if (x->msw[i] != root && !x->kup[x->msw[i]])
			return 0;
	return 1;
}

/* ---- the tree ---- */

/* s's next switch towards the root, RG_NONE if its port leads nowhere. */
static uint32_t next_hop(struct mctx *x, uint32_t s, uint16_t rlid)
{
	x->up[s] = x->keep && x->kup[s] ? x->kup[s] : lft_port(x, s, rlid);
	return rg_port_peer_sw(&x->g, s, x->up[s]);
}

static void add_entry(struct mctx *x, struct mcast_tree *tr, uint32_t s, uint32_t parent)
{
	struct mcast_result *r = x->out;

	if (r->ntsw == x->tswcap) {
		x->tswcap = x->tswcap ? x->tswcap * 2 : 256;
		r->tsw = realloc(r->tsw, x->tswcap * sizeof(*r->tsw));
		if (!r->tsw)
			abort();
	}
	struct mcast_tsw *e = &r->tsw[r->ntsw];
	e->node = x->g.sw[s].node;
	e->guid = x->t->nodes[e->node].guid;
	e->parent = parent == RG_NONE ? MCAST_NO_PARENT : x->ent[parent];
	e->depth = parent == RG_NONE ? 0 : r->tsw[tr->first + e->parent].depth + 1;
	e->up = parent == RG_NONE ? 0 : x->up[s];
	if (e->depth > tr->depth)
		tr->depth = e->depth;
	tr->kept_edges += parent != RG_NONE && x->keep && x->kup[s] == e->up;
	x->ent[s] = r->ntsw++ - tr->first;
	x->st[s] = T_IN;
}

/* Walks m's next hops until the tree; adds the path if it got there. */
static int join(struct mctx *x, struct mcast_tree *tr, uint32_t m, uint16_t rlid)
{
	uint32_t n = 0, s = m;
	int ok;

	for (;;) {
		touch(x, s);
		if (x->st[s] != T_NONE) {
			ok = x->st[s] == T_IN; /* T_WALK: a loop; T_BAD: known to fail */
			break;
		}
		x->st[s] = T_WALK;
		x->path[n++] = s;
		x->par[s] = next_hop(x, s, rlid);
		if (x->par[s] == RG_NONE) {
			ok = 0;
			break;
		}
		s = x->par[s];
	}
	/* top of the path first, so that every parent has its entry */
	while (n--) {
		uint32_t y = x->path[n];
		if (ok)
			add_entry(x, tr, y, x->par[y]);
		else
			x->st[y] = T_BAD;
	}
	return ok;
}

/* One mask row per tree switch: upstream port, the child's port on the
 * parent, then the member ports. */
static void emit_masks(struct mctx *x, const struct mcast_tree *tr, const struct mcast_group *gr)
{
	struct mcast_result *r = x->out;

	for (uint32_t i = 0; i < tr->nsw; i++) {
		const struct mcast_tsw *e = &r->tsw[tr->first + i];
		uint32_t s = x->g.node2sw[e->node];
		x->mrow[s] = mcast_mft_append(&r->mft[e->node], tr->mlid);
		if (e->parent == MCAST_NO_PARENT)
			continue;
		const struct mcast_tsw *pe = &r->tsw[tr->first + e->parent];
		mcast_mft_set(&r->mft[e->node], x->mrow[s], e->up);
		mcast_mft_set(&r->mft[pe->node], x->mrow[x->g.node2sw[pe->node]],
			      x->t->nodes[e->node].ports[e->up].peer_port);
	}
	for (uint32_t i = 0; i < gr->nmembers; i++) {
		const struct mres *m = &x->mres[i];
		if (m->sw != RG_NONE && x->mflag[m->sw] == M_JOINED)
			mcast_mft_set(&r->mft[x->g.sw[m->sw].node], x->mrow[m->sw], m->port);
	}
}

static void add_miss(struct mctx *x, struct mcast_tree *tr, uint32_t member, uint8_t why)
{
	struct mcast_result *r = x->out;

	if (r->nmiss == x->misscap) {
		x->misscap = x->misscap ? x->misscap * 2 : 64;
		r->miss = realloc(r->miss, x->misscap * sizeof(*r->miss));
		if (!r->miss)
			abort();
	}
	r->miss[r->nmiss++] = (struct mcast_miss){ tr->mlid, member, why };
	tr->nmiss++;
}

static void count_members(struct mctx *x, struct mcast_tree *tr, const struct mcast_group *gr)
{
	for (uint32_t i = 0; i < gr->nmembers; i++) {
		uint32_t s = x->mres[i].sw;
		if (s == RG_NONE)
			add_miss(x, tr, i, MCAST_MISS_NOLINK);
		else if (x->mflag[s] == M_LISTED)
			add_miss(x, tr, i, MCAST_MISS_UNREACH);
		else if (x->mflag[s] == M_COUNTED)
			add_miss(x, tr, i, MCAST_MISS_NOROUTE);
		else
			tr->nmembers++;
	}
}

/* Builds the tree around root; returns the member switches it carries. */
static uint32_t grow(struct mctx *x, struct mcast_tree *tr, uint32_t root)
{
	uint32_t joined = 0;

	tr->first = x->out->ntsw;
	tr->root = x->g.sw[root].node;
	tr->root_guid = x->t->nodes[tr->root].guid;
	touch(x, root);
	add_entry(x, tr, root, RG_NONE);
	for (uint32_t i = 0; i < x->nmsw; i++)
		if (join(x, tr, x->msw[i], x->g.sw[root].lid)) {
			x->mflag[x->msw[i]] = M_JOINED;
			joined++;
		}
	tr->nsw = x->out->ntsw - tr->first;
	return joined;
}

/* A root no member switch reaches is no tree (and has no mask row). */
static void drop_tree(struct mctx *x, struct mcast_tree *tr)
{
	x->out->ntsw = tr->first;
	tr->root = TOPO_NONE;
	tr->root_guid = 0;
	tr->first = tr->nsw = tr->depth = tr->kept_edges = 0;
	tr->kept_root = 0;
}

/* The switch that rooted mlid's previous tree, RG_NONE if none. */
static uint32_t prev_root(const struct mctx *x, uint16_t mlid, const struct mcast_tree **pt)
{
	*pt = mcast_find_tree(x->prev, mlid);
	if (!*pt || (*pt)->root == TOPO_NONE)
		return RG_NONE;
	return sw_by_guid(&x->g, (*pt)->root_guid);
}

/* Trees per link: what the next groups' roots are balanced against. */
static void count_load(struct mctx *x, const struct mcast_tree *tr)
{
	for (uint32_t i = 1; i < tr->nsw; i++) {
		const struct mcast_tsw *e = &x->out->tsw[tr->first + i];
		x->load[x->g.sw[x->g.node2sw[e->node]].portbase + e->up]++;
	}
}

static void do_group(struct mctx *x, const struct mcast_group *gr, struct mcast_tree *tr)
{
	const struct mcast_tree *pt;
	uint32_t proot = prev_root(x, gr->mlid, &pt);

	x->gid++;
	tr->mlid = gr->mlid;
	tr->root = TOPO_NONE;
	resolve_members(x, gr);
	pick_component(x);
	if (proot != RG_NONE)
		x->rooted[proot]--; /* counted ahead by count_prev_roots */
	int whole = proot != RG_NONE && load_prev(x, pt, proot);
	uint32_t root = choose_root(x, proot, whole, &tr->kept_root);
	x->keep = tr->kept_root;
	if (root != RG_NONE && grow(x, tr, root)) {
		x->rooted[root]++;
		count_load(x, tr);
		emit_masks(x, tr, gr);
		x->out->top = gr->mlid;
	} else if (root != RG_NONE) {
		drop_tree(x, tr);
	}
	count_members(x, tr, gr);
	x->out->kept_roots += tr->kept_root;
	x->out->kept_edges += tr->kept_edges;
}

/* Previous roots of the batch's MLIDs count for balance from the start. */
static void count_prev_roots(struct mctx *x, const struct mcast_group *grs, uint32_t n)
{
	const struct mcast_tree *pt;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = prev_root(x, grs[i].mlid, &pt);
		if (s != RG_NONE)
			x->rooted[s]++;
	}
}

static int setup(struct mctx *x, const struct mcast_group *grs, uint32_t n, uint16_t top,
		 struct gref *order)
{
	char err[200];

	if (x->rt->nnodes != x->t->nnodes || !x->rt->lft)
		return fail(x, "unicast tables do not match the fabric (%u nodes, %u tables)",
			    x->t->nnodes, x->rt->nnodes);
	if (check_groups(x, grs, n, top, order))
		return -1;
	if (rg_build(&x->g, x->t, err, sizeof(err)))
		return fail(x, "%s", err);
	setup_arrays(x);
	label_components(x);
	if (x->prev)
		mark_used_links(x);
	count_prev_roots(x, grs, n);
	init_result(x, n);
	return 0;
}

int mcast_compute(const struct topo *t, const struct route_tables *rt,
		  const struct mcast_group *groups, size_t ngroups,
		  const struct mcast_opts *o, struct mcast_result *out)
{
	static const struct mcast_opts defaults = { 0 };
	struct mctx x = { .t = t, .rt = rt, .out = out };

	o = o ? o : &defaults;
	if (o->prev == out)
		return fail(&x, "the previous result cannot be the output");
	memset(out, 0, sizeof(*out));
	x.prev = o->prev;
	uint16_t top = o->mlid_top ? o->mlid_top : MCAST_MLID_MAX;
	if (top < MCAST_MLID_MIN || top > MCAST_MLID_MAX)
		return fail(&x, "MLID top 0x%04x outside 0x%04x..0x%04x", top, MCAST_MLID_MIN,
			    MCAST_MLID_MAX);
	if (ngroups > (size_t)top - MCAST_MLID_MIN + 1)
		return fail(&x, "%zu groups, but only MLIDs 0x%04x..0x%04x", ngroups,
			    MCAST_MLID_MIN, top);
	struct gref *order = rg_xmalloc(ngroups, sizeof(*order));
	int rc = setup(&x, groups, (uint32_t)ngroups, top, order);
	for (uint32_t i = 0; !rc && i < ngroups; i++)
		do_group(&x, &groups[order[i].idx], &out->trees[out->ngroups++]);
	free(order);
	free_ctx(&x);
	if (rc) {
		char why[sizeof(out->why)];
		memcpy(why, out->why, sizeof(why));
		mcast_result_free(out);
		memcpy(out->why, why, sizeof(why));
	}
	return rc;
}

void mcast_result_free(struct mcast_result *r)
{
	for (uint32_t i = 0; r->mft && i < r->nnodes; i++)
		mcast_mft_free(&r->mft[i]);
	free(r->mft);
	free(r->trees);
	free(r->tsw);
	free(r->miss);
	memset(r, 0, sizeof(*r));
}
