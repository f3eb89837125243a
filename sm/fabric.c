/*
 * DOC: fabric model: nodes by GUID, ports, links, shortest DR paths.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/fabric.h"
#include "sm/log.h"

static uint32_t guid_hash(uint64_t g, uint32_t size)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdULL;
	g ^= g >> 33;
	return (uint32_t)(g & (size - 1));
}

struct sm_fabric *fabric_new(void)
{
	struct sm_fabric *f = xcalloc(1, sizeof(*f));

	f->hash_size = 1024;
	f->hash = xcalloc(f->hash_size, sizeof(*f->hash));
	return f;
}

static void node_free(struct sm_node *n)
{
	free(n->ports);
	free(n->lft);
	free(n->lft_known);
	free(n);
}

void fabric_free(struct sm_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nnodes; i++)
		node_free(f->nodes[i]);
	free(f->nodes);
	free(f->hash);
	free(f);
}

struct sm_node *fabric_find(const struct sm_fabric *f, uint64_t guid)
{
	struct sm_node *n = f->hash[guid_hash(guid, f->hash_size)];

	while (n && n->guid != guid)
		n = n->hnext;
	return n;
}

static void rehash(struct sm_fabric *f)
{
	uint32_t size = f->hash_size * 2;
	struct sm_node **h = xcalloc(size, sizeof(*h));

	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *n = f->nodes[i];
		uint32_t b = guid_hash(n->guid, size);

		n->hnext = h[b];
		h[b] = n;
	}
	free(f->hash);
	f->hash = h;
	f->hash_size = size;
}

struct sm_node *fabric_add(struct sm_fabric *f, const struct smp_node_info *ni)
{
	struct sm_node *n = xcalloc(1, sizeof(*n));
	uint32_t b;

	n->guid = ni->node_guid;
	n->ni = *ni;
	n->ports = xcalloc((size_t)ni->num_ports + 1, sizeof(*n->ports));
	for (unsigned p = 0; p <= ni->num_ports; p++) {
		n->ports[p].node = n;
		n->ports[p].num = (uint8_t)p;
	}
	if (ni->node_type == TOPO_SWITCH) {
		n->ports[0].guid = ni->port_guid;
		f->nswitches++;
	} else {
		f->ncas++;
	}
	if (f->nnodes == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		f->nodes = xrealloc(f->nodes, f->cap * sizeof(*f->nodes));
	}
	n->idx = f->nnodes;
	f->nodes[f->nnodes++] = n;
	if (f->nnodes > f->hash_size / 2) {
		rehash(f);
	} else {
		b = guid_hash(n->guid, f->hash_size);
		n->hnext = f->hash[b];
		f->hash[b] = n;
	}
	return n;
}

int fabric_link(struct sm_fabric *f, struct sm_node *a, uint8_t pa, struct sm_node *b, uint8_t pb)
{
	struct sm_port *x, *y;

	if (pa > a->ni.num_ports || pb > b->ni.num_ports || pa == 0 || pb == 0)
		return -1;
	x = &a->ports[pa];
	y = &b->ports[pb];
	if (x->peer == y && y->peer == x)
		return 0;
	if (x->peer || y->peer || x == y)
		return -1;
	x->peer = y;
	y->peer = x;
	f->nlinks++;
	return 0;
}

void fabric_move_lft(struct sm_node *to, struct sm_node *from)
{
	to->lft = from->lft;
	to->lft_known = from->lft_known;
	to->lft_blocks = from->lft_blocks;
	from->lft = NULL;
	from->lft_known = NULL;
	from->lft_blocks = 0;
}

void fabric_unlink(struct sm_fabric *f, struct sm_port *p)
{
	if (!p->peer)
		return;
	p->peer->peer = NULL;
	p->peer = NULL;
	f->nlinks--;
}

static void unlink_node(struct sm_fabric *f, struct sm_node *n)
{
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		fabric_unlink(f, &n->ports[k]);
}

void fabric_remove_dropped(struct sm_fabric *f)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->drop)
			unlink_node(f, f->nodes[i]);
	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *n = f->nodes[i];

		if (!n->drop) {
			n->idx = k;
			f->nodes[k++] = n;
			continue;
		}
		if (node_is_switch(n))
			f->nswitches--;
		else
			f->ncas--;
		if (f->sm_node == n)
			f->sm_node = NULL;
		node_free(n);
	}
	f->nnodes = k;
	f->hash_size /= 2;
	rehash(f);
}

void fabric_note_conflict(struct sm_fabric *f, const struct sm_conflict *c)
{
	for (uint32_t i = 0; i < f->nconflicts; i++)
		if (f->conflicts[i].guid == c->guid && f->conflicts[i].port == c->port) {
			f->conflicts[i].claims++;
			return;
		}
	f->dup_guids++;
	if (f->nconflicts < SM_MAX_CONFLICTS) {
		f->conflicts[f->nconflicts] = *c;
		f->conflicts[f->nconflicts++].claims = 1;
	}
}

struct sm_port *fabric_find_port(const struct sm_fabric *f, uint64_t port_guid)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *n = f->nodes[i];

		for (unsigned p = 0; p <= n->ni.num_ports; p++)
			if (n->ports[p].guid == port_guid && port_guid)
				return &n->ports[p];
	}
	return NULL;
}

static int port_cmp(const void *a, const void *b)
{
	const struct sm_port *x = *(struct sm_port *const *)a, *y = *(struct sm_port *const *)b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->node->idx != y->node->idx)
		return x->node->idx < y->node->idx ? -1 : 1;
	return (int)x->num - (int)y->num;
}

void fabric_port_index_build(const struct sm_fabric *f, struct fabric_port_index *ix)
{
	size_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		n += (size_t)f->nodes[i]->ni.num_ports + 1;
	ix->p = xcalloc(n ? n : 1, sizeof(*ix->p));
	ix->n = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct sm_node *nd = f->nodes[i];

		for (unsigned p = 0; p <= nd->ni.num_ports; p++)
			if (nd->ports[p].guid)
				ix->p[ix->n++] = &nd->ports[p];
	}
	qsort(ix->p, ix->n, sizeof(*ix->p), port_cmp);
}

void fabric_port_index_free(struct fabric_port_index *ix)
{
	free(ix->p);
	ix->p = NULL;
	ix->n = 0;
}

const struct sm_port *fabric_port_index_find(const struct fabric_port_index *ix, uint64_t guid)
{
	size_t lo = 0, hi = ix->n;

	if (!guid)
		return NULL;
	while (lo < hi) {   /* the first entry >= guid */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->p[mid]->guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->p[lo]->guid == guid ? ix->p[lo] : NULL;
}

bool fabric_port_departed(const struct sm_fabric *f, const struct fabric_port_index *ix,
			  uint64_t guid, bool clean)
{
	const struct sm_port *p = fabric_port_index_find(ix, guid);
	bool own = p && p->node == f->sm_node && p->num == f->sm_port_num;

	if (!p)
		return clean;
	if (p->stale || p->node->stale || own || !p->num)
		return false;
	return !p->peer || (p->have_pi && p->pi.port_state == TOPO_PORT_DOWN);
}

static bool port_up(const struct sm_port *p)
{
	return p->have_pi && p->pi.port_state > TOPO_PORT_DOWN && !p->held;
}

/* DR SMPs can leave a CA only at the SM node itself (hop 0): a CA does not
 * forward directed-route SMPs, so BFS expands switches and the SM node. */
static bool can_forward(const struct sm_fabric *f, const struct sm_node *n)
{
	return node_is_switch(n) || n == f->sm_node;
}

static void bfs_visit(struct sm_fabric *f, struct sm_node *n, struct sm_node **queue,
		      uint32_t *tail, uint8_t *seen)
{
	for (unsigned p = 1; p <= n->ni.num_ports; p++) {
		struct sm_port *peer = n->ports[p].peer;
		struct sm_node *m;

		if (!peer || n->hop_cnt >= SMP_MAX_HOPS)
			continue;
		/* Held (flapping) links still carry SMPs; only Down ones do not. */
		if (n->ports[p].have_pi && n->ports[p].pi.port_state == TOPO_PORT_DOWN)
			continue;
		if (peer->have_pi && peer->pi.port_state == TOPO_PORT_DOWN)
			continue;
		if (n == f->sm_node && p != f->sm_port_num)
			continue;
		m = peer->node;
		if (seen[m->idx])
			continue;
		seen[m->idx] = 1;
		m->reachable = true;
		memcpy(m->path, n->path, sizeof(m->path));
		m->hop_cnt = (uint8_t)(n->hop_cnt + 1);
		m->path[m->hop_cnt] = (uint8_t)p;
		queue[(*tail)++] = m;
	}
}

void fabric_shortest_paths(struct sm_fabric *f)
{
	struct sm_node **queue;
	uint8_t *seen;
	uint32_t head = 0, tail = 0;

	if (!f->sm_node)
		return;
	queue = xcalloc(f->nnodes, sizeof(*queue));
	seen = xcalloc(f->nnodes, 1);
	for (uint32_t i = 0; i < f->nnodes; i++)
		f->nodes[i]->reachable = false;
	f->sm_node->reachable = true;
	f->sm_node->hop_cnt = 0;
	memset(f->sm_node->path, 0, sizeof(f->sm_node->path));
	seen[f->sm_node->idx] = 1;
	queue[tail++] = f->sm_node;
	while (head < tail) {
		struct sm_node *n = queue[head++];

		if (can_forward(f, n))
			bfs_visit(f, n, queue, &tail, seen);
	}
	free(queue);
	free(seen);
}

static void topo_fill_port(const struct sm_port *sp, struct topo_port *tp)
{
	tp->peer_node = TOPO_NONE;
	tp->guid = sp->guid;
	tp->lid = sp->lid;
	if (sp->dup_guid)
		return;   /* left out: another port owns its GUID */
	if (sp->have_pi) {
		tp->state = sp->pi.port_state;
		tp->width = sp->pi.link_width_active;
		tp->speed = sp->pi.link_speed_active;
		tp->lmc = sp->pi.lmc;
	}
	if (sp->peer && port_up(sp) && port_up(sp->peer)) {
		tp->peer_node = sp->peer->node->idx;
		tp->peer_port = sp->peer->num;
	}
}

struct topo *fabric_to_topo(const struct sm_fabric *f)
{
	struct topo *t = xcalloc(1, sizeof(*t));

	t->nnodes = f->nnodes;
	t->nodes = xcalloc(f->nnodes, sizeof(*t->nodes));
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];
		struct topo_node *tn = &t->nodes[i];

		tn->guid = n->guid;
		tn->type = n->ni.node_type;
		tn->nports = n->ni.num_ports;
		memcpy(tn->desc, n->desc, sizeof(tn->desc));
		tn->ports = xcalloc((size_t)tn->nports + 1, sizeof(*tn->ports));
		for (unsigned p = 0; p <= tn->nports; p++)
			topo_fill_port(&n->ports[p], &tn->ports[p]);
		if (node_is_switch(n))
			tn->ports[0].guid = n->ni.port_guid;
	}
	return t;
}

void fabric_topo_free(struct topo *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nnodes; i++)
		free(t->nodes[i].ports);
	free(t->nodes);
	free(t);
}

/* IBA 14.2.5.6 PortInfo:LinkWidthActive, LinkSpeedActive and
 * LinkSpeedExtActive encodings, as the diags print them. */
const char *port_width_name(uint8_t w)
{
	switch (w) {
	case 1: return "1x";
	case 2: return "4x";
	case 4: return "8x";
	case 8: return "12x";
	case 16: return "2x";
	default: return "?";
	}
}

const char *port_speed_name(const struct smp_port_info *pi)
{
	static const char *const ext[] = { "", "FDR", "EDR", "HDR", "NDR", "XDR" };

	if (pi->link_speed_ext_active >= 1 && pi->link_speed_ext_active <= 5)
		return ext[pi->link_speed_ext_active];
	switch (pi->link_speed_active) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	default: return "?";
	}
}
