/*
 * DOC: the table of watched ports and the poll scheduler (see pm/sched.h).
 *
 * Each node and port carries `want` bits (queries still to send this
 * round) and `inflight` bits (sent, not answered); `pending` counts both
 * over the table, and a round is over when it drops to zero. pm_next()
 * walks the nodes from a cursor that wraps, so re-asks queued behind it are
 * found on the next pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pm/sched.h"

#define W_CPI 0x01
#define W_PC 0x02
#define W_PCE 0x04
#define W_CLEAR 0x08

enum { CPI_UNKNOWN, CPI_OK, CPI_FAILED };

struct pm_port {
	struct pm_counters c;
	struct pm_health h;
	uint16_t lid;
	uint16_t problems;
	uint8_t num;
	uint8_t width_act, speed_act;
	uint8_t want, inflight;
	uint8_t retries;        /* re-asks this round */
	uint8_t missed;
	uint8_t flags;          /* F_* */
	/* the data counters' growth per second between the readings of two
	 * consecutive rounds; negative: unknown */
	float rate[PM_NRATE];
};

#define F_FAILED 0x01       /* a read failed for good this round */
#define F_WIDTH 0x02        /* link_width_degraded, from the SM */
#define F_SPEED 0x04        /* link_speed_degraded, from the SM */
#define F_IDLE 0x08         /* not polled: its link is down */

struct pm_node {
	uint64_t guid;
	uint32_t first;         /* its first port in pm->ports */
	uint16_t lid;
	uint16_t cap_mask;      /* of its PMA's ClassPortInfo */
	uint8_t cap2;           /* PMA_CAP2_ADDL_PORT_COUNTERS_EXT or 0 */
	uint8_t nports;
	uint8_t is_switch : 1;
	uint8_t cpi : 2;        /* CPI_* */
	uint8_t want, inflight; /* W_CPI; W_CLEAR for an AllPortSelect clear */
	uint8_t out;            /* its queries outstanding, ports' included */
	uint8_t retries;
	uint8_t pc_left;        /* PortCounters reads of the round not done */
};

_Static_assert(sizeof(struct pm_port) <= 248, "a watched port takes at most 248 bytes");
_Static_assert(sizeof(struct pm_node) <= 24, "a watched node takes at most 24 bytes");

struct pm {
	struct pm_opts o;
	pm_change_fn change;
	void *change_arg;
	struct pm_node *nodes;
	struct pm_port *ports;
	size_t nnodes, nports;
	size_t cursor;          /* node pm_next() looks at first */
	size_t pending;         /* want and inflight bits in the table */
	size_t inflight;        /* inflight bits: with pending, the wants */
	struct pm_plan plan;    /* node_plan()'s last, made from plan_key */
	uint32_t plan_key;
	bool plan_made;
	unsigned outstanding;   /* queries handed out, not yet done */
	bool in_round;
	uint64_t round_start, next_round;
	uint64_t prev_round_start;      /* of the round before, 0 none */
	struct pm_stats st;
};

void pm_opts_default(struct pm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window = 256;        /* umad2sim freezes with more MADs unread */
	o->per_node = 4;
	o->retries = 2;
	o->period_ms = 10000;
	pm_thresholds_default(&o->th);
}

/* The attribute of each enum pm_qkind. */
static uint16_t kind_attr(uint8_t kind)
{
	static const uint16_t attr[] = { PMA_ATTR_CLASS_PORT_INFO, PMA_ATTR_PORT_COUNTERS,
					 PMA_ATTR_PORT_COUNTERS_EXT, PMA_ATTR_PORT_COUNTERS };

	return attr[kind & 3];
}

void pm_query_req(const struct pm_query *q, struct pma_req *out)
{
	memset(out, 0, sizeof(*out));
	out->method = q->kind == PM_Q_CLEAR ? MAD_METHOD_SET : MAD_METHOD_GET;
	out->attr_id = kind_attr(q->kind);
	out->port_select = q->port;
	out->counter_select = q->counter_select;
	out->counter_select2 = q->counter_select2;
}

struct pm *pm_new(const struct pm_opts *o, pm_change_fn fn, void *arg)
{
	struct pm *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return NULL;
	pm->o = *o;
	pm->change = fn;
	pm->change_arg = arg;
	return pm;
}

void pm_free(struct pm *pm)
{
	if (!pm)
		return;
	free(pm->nodes);
	free(pm->ports);
	free(pm);
}

void pm_set_opts(struct pm *pm, const struct pm_opts *o)
{
	pm->o = *o;
}

static uint16_t window_seq(const struct pm *pm, uint64_t now_ms)
{
	unsigned w = pm->o.th.window_s ? pm->o.th.window_s : 1;

	return (uint16_t)(now_ms / 1000 / w);
}

/* A node's plan follows from its PMA's capabilities, asked for each query
 * and answer; the nodes of a fabric mostly share them, so the last plan
 * made is kept with what it was made from. */
static void plan_make(const struct pm_node *n, struct pm_plan *p)
{
	struct pma_class_port_info cpi = { .cap_mask = n->cap_mask, .cap_mask2 = n->cap2 };

	if (n->cpi == CPI_OK)
		pm_plan_from_cpi(&cpi, p);
	else
		pm_plan_legacy(p);
}

static void node_plan(struct pm *pm, const struct pm_node *n, struct pm_plan *p)
{
	uint32_t key = n->cpi == CPI_OK ? 1u << 24 | (uint32_t)n->cap2 << 16 | n->cap_mask : 0;

	if (pm->plan_key != key || !pm->plan_made) {
		plan_make(n, &pm->plan);
		pm->plan_key = key;
		pm->plan_made = true;
	}
	*p = pm->plan;
}

/* --- the table --- */

static int cmp_target(const void *a, const void *b)
{
	const struct pm_target *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

static struct pm_node *node_find(struct pm_node *nodes, size_t n, uint64_t guid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nodes[mid].guid == guid)
			return &nodes[mid];
		if (nodes[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct pm_port *port_of(struct pm_port *ports, const struct pm_node *n, uint8_t num)
{
	for (unsigned i = 0; n && i < n->nports; i++)
		if (ports[n->first + i].num == num)
			return &ports[n->first + i];
	return NULL;
}

static unsigned bits(uint8_t v)
{
	return (unsigned)__builtin_popcount(v);
}

/* A bit both wanted and in flight (a re-ask queued behind its first
 * attempt) counts twice, as the changes made one at a time count it. */
static void recount(struct pm *pm)
{
	pm->pending = pm->inflight = 0;
	for (size_t i = 0; i < pm->nnodes; i++) {
		pm->inflight += bits(pm->nodes[i].inflight);
		pm->pending += bits(pm->nodes[i].want) + bits(pm->nodes[i].inflight);
	}
	for (size_t i = 0; i < pm->nports; i++) {
		pm->inflight += bits(pm->ports[i].inflight);
		pm->pending += bits(pm->ports[i].want) + bits(pm->ports[i].inflight);
	}
}

static void port_from_target(struct pm_port *p, const struct pm_target *t,
			     const struct pm_port *old, uint16_t seq)
{
	if (old) {
		*p = *old;
	} else {
		memset(p, 0, sizeof(*p));
		pm_counters_init(&p->c);
		pm_health_init(&p->h, seq);
	}
	p->num = t->port;
	p->lid = t->lid;
	p->width_act = t->width_act;
	p->speed_act = t->speed_act;
	p->flags &= (uint8_t)~(F_WIDTH | F_SPEED | F_IDLE);
	if (t->idle)
		p->flags |= F_IDLE;
	if (t->link_problems & PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED))
		p->flags |= F_WIDTH;
	if (t->link_problems & PM_P_BIT(PM_P_LINK_SPEED_DEGRADED))
		p->flags |= F_SPEED;
}

static void node_from_target(struct pm_node *n, const struct pm_target *t,
			     const struct pm_node *old, uint32_t first)
{
	if (old) {
		*n = *old;
	} else {
		memset(n, 0, sizeof(*n));
		n->guid = t->guid;
	}
	n->first = first;
	n->nports = 0;
	n->lid = t->lid;
	n->is_switch = t->is_switch;
}

/* Counts the distinct nodes and ports of sorted targets. */
static void count_targets(const struct pm_target *t, size_t n, size_t *nodes, size_t *ports)
{
	*nodes = *ports = 0;
	for (size_t i = 0; i < n; i++) {
		if (!t[i].guid || !t[i].lid || (i && cmp_target(&t[i - 1], &t[i]) == 0))
			continue;
		if (!*ports || t[i].guid != t[i - 1].guid)
			++*nodes;
		++*ports;
	}
}

static void build(struct pm *pm, const struct pm_target *t, size_t n, struct pm_node *nodes,
		  struct pm_port *ports, uint16_t seq)
{
	size_t nn = 0, np = 0;
	struct pm_node *cur = NULL, *old = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!t[i].guid || !t[i].lid || (i && cmp_target(&t[i - 1], &t[i]) == 0))
			continue;
		if (!cur || cur->guid != t[i].guid) {
			old = node_find(pm->nodes, pm->nnodes, t[i].guid);
			cur = &nodes[nn++];
			node_from_target(cur, &t[i], old, (uint32_t)np);
		}
		if (cur->nports == UINT8_MAX)
			continue;
		port_from_target(&ports[np++], &t[i], port_of(pm->ports, old, t[i].port), seq);
		cur->nports++;
	}
	pm->nnodes = nn;
	pm->nports = np;
}

int pm_set_targets(struct pm *pm, const struct pm_target *t, size_t n)
{
	struct pm_target *s = malloc((n ? n : 1) * sizeof(*s));
	struct pm_node *nodes;
	struct pm_port *ports;
	size_t nn, np;

	if (!s)
		return -ENOMEM;
	memcpy(s, t, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_target);
	count_targets(s, n, &nn, &np);
	nodes = malloc((nn ? nn : 1) * sizeof(*nodes));
	ports = malloc((np ? np : 1) * sizeof(*ports));
	if (!nodes || !ports) {
		free(s);
		free(nodes);
		free(ports);
		return -ENOMEM;
	}
	build(pm, s, n, nodes, ports, window_seq(pm, pm->round_start));
	free(s);
	free(pm->nodes);
	free(pm->ports);
	pm->nodes = nodes;
	pm->ports = ports;
	pm->cursor = 0;
	pm->st.ports = (unsigned)pm->nports;
	recount(pm);
	return 0;
}

/* --- rounds --- */

/* The ports of n that are polled (not idle). */
static uint8_t polled_ports(const struct pm *pm, const struct pm_node *n)
{
	uint8_t k = 0;

	for (unsigned i = 0; i < n->nports; i++)
		k += !(pm->ports[n->first + i].flags & F_IDLE);
	return k;
}

static void start_round(struct pm *pm, uint64_t now_ms)
{
	for (size_t i = 0; i < pm->nnodes; i++) {
		struct pm_node *n = &pm->nodes[i];
		struct pm_plan plan;

		node_plan(pm, n, &plan);
		n->want = n->cpi == CPI_OK ? 0 : W_CPI;
		n->retries = 0;
		n->pc_left = plan.from_pc ? polled_ports(pm, n) : 0;
		for (unsigned k = 0; k < n->nports; k++) {
			struct pm_port *p = &pm->ports[n->first + k];

			p->want = p->flags & F_IDLE ? 0 :
				  (uint8_t)((plan.from_pc ? W_PC : 0) | (plan.from_pce ? W_PCE : 0));
			p->retries = 0;
			p->flags &= (uint8_t)~F_FAILED;
		}
	}
	recount(pm);
	pm->in_round = true;
	pm->prev_round_start = pm->round_start;
	pm->round_start = now_ms;
	pm->next_round = now_ms + pm->o.period_ms;
	pm->cursor = 0;
}

static void end_round(struct pm *pm, uint64_t now_ms)
{
	pm->in_round = false;
	pm->st.rounds++;
	pm->st.last_round_ms = now_ms - pm->round_start;
	if (now_ms > pm->next_round) {
		pm->st.overruns++;
		pm->next_round = now_ms;
	}
}

uint64_t pm_next_deadline(const struct pm *pm)
{
	return pm->in_round ? UINT64_MAX : pm->next_round;
}

static void emit(struct pm *pm, struct pm_node *n, uint8_t kind, uint8_t port,
		 struct pm_query *q)
{
	n->out++;
	memset(q, 0, sizeof(*q));
	q->guid = n->guid;
	q->lid = n->lid;
	q->kind = kind;
	q->port = port;
	pm->outstanding++;
	pm->inflight++;         /* each caller sets one inflight bit */
	pm->st.queries++;
}

/* The query a port wants next, as a W_ bit (0: none now). A node's clear
 * is asked only once every read of its round is done. */
static uint8_t port_wants(const struct pm_node *n, const struct pm_port *p)
{
	uint8_t w = (uint8_t)(p->want & ~p->inflight);

	if (n->cpi != CPI_OK)
		return 0;
	if (w & W_PC)
		return W_PC;
	if (w & W_PCE)
		return W_PCE;
	return w & W_CLEAR && !(p->inflight & W_PC) ? W_CLEAR : 0;
}

static void port_query(struct pm *pm, struct pm_node *n, struct pm_port *p, uint8_t w,
		       struct pm_query *q)
{
	struct pm_plan plan;

	node_plan(pm, n, &plan);
	emit(pm, n, w == W_PC ? PM_Q_PC : w == W_PCE ? PM_Q_PCE : PM_Q_CLEAR, p->num, q);
	if (n->is_switch == 0)
		q->lid = p->lid;
	if (w == W_CLEAR) {
		q->counter_select = plan.clear_select;
		q->counter_select2 = plan.clear_select2;
	}
	p->want &= (uint8_t)~w;
	p->inflight |= w;
}

/* A clear of every port loses what a port counted since its last reading:
 * only when each was read in this round. */
static bool clear_all_ok(const struct pm *pm, const struct pm_node *n)
{
	for (unsigned k = 0; k < n->nports; k++)
		if (pm->ports[n->first + k].flags & F_FAILED)
			return false;
	return true;
}

/* Instead, clear the ports that need it one by one. */
static void clear_each(struct pm *pm, struct pm_node *n)
{
	struct pm_plan plan;

	node_plan(pm, n, &plan);
	n->want &= (uint8_t)~W_CLEAR;
	pm->pending--;
	for (unsigned k = 0; k < n->nports; k++) {
		struct pm_port *p = &pm->ports[n->first + k];

		if (!(p->flags & F_FAILED) && pm_counters_need_clear(&p->c, &plan)) {
			p->want |= W_CLEAR;
			pm->pending++;
		}
	}
}

/* One query of node n, or false when it has none to send now. A switch's
 * ports all answer at its one LID, from one management processor: a node
 * gets at most per_node queries at once, so that a round goes over the
 * nodes side by side rather than loading one node with all of its
 * ports' queries (and losing those its PMA cannot queue). */
static bool node_query(struct pm *pm, struct pm_node *n, struct pm_query *q)
{
	if (n->out >= (pm->o.per_node ? pm->o.per_node : 1))
		return false;
	if (n->want & W_CPI && !(n->inflight & W_CPI)) {
		emit(pm, n, PM_Q_CPI, 0, q);
		n->want &= (uint8_t)~W_CPI;
		n->inflight |= W_CPI;
		return true;
	}
	if (n->want & W_CLEAR && !n->pc_left && !clear_all_ok(pm, n))
		clear_each(pm, n);
	if (n->want & W_CLEAR && !n->pc_left) {
		struct pm_plan plan;

		node_plan(pm, n, &plan);
		emit(pm, n, PM_Q_CLEAR, PMA_PORT_SELECT_ALL, q);
		q->counter_select = plan.clear_select;
		q->counter_select2 = plan.clear_select2;
		n->want &= (uint8_t)~W_CLEAR;
		n->inflight |= W_CLEAR;
		return true;
	}
	for (unsigned k = 0; k < n->nports; k++) {
		struct pm_port *p = &pm->ports[n->first + k];
		uint8_t w = port_wants(n, p);

		if (w) {
			port_query(pm, n, p, w, q);
			return true;
		}
	}
	return false;
}

size_t pm_next(struct pm *pm, uint64_t now_ms, struct pm_query *out, size_t max)
{
	size_t got = 0, idle = 0;

	if (!pm->in_round && now_ms >= pm->next_round && pm->outstanding == 0)
		start_round(pm, now_ms);
	if (!pm->in_round)
		return 0;
	/* every bit pending is in flight: nothing to send, and no walk over
	 * the table for each of the round's last answers */
	if (pm->pending <= pm->inflight)
		idle = pm->nnodes;
	while (got < max && pm->outstanding < pm->o.window && idle < pm->nnodes) {
		if (pm->cursor >= pm->nnodes)
			pm->cursor = 0;
		if (node_query(pm, &pm->nodes[pm->cursor], &out[got])) {
			got++;
			idle = 0;
		} else {
			pm->cursor++;
			idle++;
		}
	}
	if (pm->pending == 0 && pm->outstanding == 0)
		end_round(pm, now_ms);
	return got;
}

/* --- answers --- */

static void set_problems(struct pm *pm, const struct pm_node *n, struct pm_port *p,
			 uint32_t windowed)
{
	uint32_t before = p->problems, after = windowed;

	if (p->flags & F_WIDTH)
		after |= PM_P_BIT(PM_P_LINK_WIDTH_DEGRADED);
	if (p->flags & F_SPEED)
		after |= PM_P_BIT(PM_P_LINK_SPEED_DEGRADED);
	if (pm->o.th.not_answering_rounds && p->missed >= pm->o.th.not_answering_rounds)
		after |= PM_P_BIT(PM_P_NOT_ANSWERING);
	p->problems = (uint16_t)after;
	if (before != after && pm->change)
		pm->change(pm->change_arg, n->guid, p->num, before, after);
}

static double port_rate(const struct pm_port *p)
{
	struct pm_link_caps l = { 0, 0, p->width_act, 0, 0, p->speed_act };

	return pm_link_rate_bps(&l);
}

/* The port is through with its round: judge whether it answered. */
static void port_settled(struct pm *pm, const struct pm_node *n, struct pm_port *p,
			 uint64_t now_ms)
{
	if (p->want || p->inflight)
		return;
	if (p->flags & F_FAILED) {
		if (p->missed < UINT8_MAX)
			p->missed++;
	} else {
		p->missed = 0;
	}
	set_problems(pm, n, p, pm_health_problems(&p->h, window_seq(pm, now_ms)));
}

static void drop_want(struct pm *pm, uint8_t *want, uint8_t bit)
{
	if (*want & bit) {
		*want &= (uint8_t)~bit;
		pm->pending--;
	}
}

static void pc_done(struct pm *pm, struct pm_node *n)
{
	if (n->pc_left)
		n->pc_left--;
}

/* Rates over one round: the growth since the last round's reading, over
 * the time between the two rounds' starts (a port is read at much the
 * same place in every round). Unknown after a round the port missed, or
 * at its first reading (had: the data counter had a baseline). */
static void note_rates(struct pm *pm, struct pm_port *p, const struct pm_reading *rd,
		       const uint64_t delta[PM_NCTR], bool had)
{
	double s = (double)(pm->round_start - pm->prev_round_start) / 1000;
	bool known = had && !p->missed && pm->prev_round_start && s > 0;

	if (!(rd->valid & PM_BIT(PM_XMIT_DATA)))
		return;
	for (unsigned i = 0; i < PM_NRATE; i++)
		p->rate[i] = known ? (float)(delta[PM_XMIT_DATA + i] / s) : -1;
}


static void reading(struct pm *pm, struct pm_node *n, struct pm_port *p,
		    const struct pma_reply *r, uint64_t now_ms)
{
	struct pm_plan plan;
	struct pm_reading rd;
	uint64_t delta[PM_NCTR];
	uint32_t win;
	bool had;

	node_plan(pm, n, &plan);
	if (r->attr_id == PMA_ATTR_PORT_COUNTERS)
		pm_reading_from_pc(&r->u.pc, plan.from_pc, &rd);
	else
		pm_reading_from_pce(&r->u.pce, plan.from_pce, &rd);
	had = pm_counters_seen(&p->c, PM_XMIT_DATA);
	pm_counters_apply(&p->c, &rd, delta);
	note_rates(pm, p, &rd, delta, had);
	win = pm_health_add(&p->h, &pm->o.th, window_seq(pm, now_ms), delta, port_rate(p));
	set_problems(pm, n, p, win);
	if (r->attr_id != PMA_ATTR_PORT_COUNTERS || !pm_counters_need_clear(&p->c, &plan))
		return;
	if (plan.all_port_select && !(n->want & W_CLEAR) && !(n->inflight & W_CLEAR)) {
		n->want |= W_CLEAR;
		pm->pending++;
	} else if (!plan.all_port_select && !(p->want & W_CLEAR)) {
		p->want |= W_CLEAR;
		pm->pending++;
	}
}

static void cleared(struct pm *pm, struct pm_node *n, struct pm_port *p,
		    const struct pm_query *q)
{
	pm->st.clears++;
	for (unsigned k = 0; k < n->nports; k++) {
		struct pm_port *x = &pm->ports[n->first + k];

		if (x == p || q->port == PMA_PORT_SELECT_ALL)
			pm_counters_cleared(&x->c, q->counter_select, q->counter_select2);
	}
}

/* A failed query: ask again later in the round, or give it up. */
static bool retry(struct pm *pm, uint8_t *want, uint8_t *retries, uint8_t bit)
{
	pm->st.failed++;
	if (*retries >= pm->o.retries)
		return false;
	(*retries)++;
	*want |= bit;
	pm->pending++;
	return true;
}

static void cpi_done(struct pm *pm, struct pm_node *n, const struct pma_reply *r,
		     uint64_t now_ms)
{
	struct pm_plan plan;

	if (r && !r->status) {
		n->cpi = CPI_OK;
		n->cap_mask = r->u.cpi.cap_mask;
		n->cap2 = (uint8_t)(r->u.cpi.cap_mask2 & PMA_CAP2_ADDL_PORT_COUNTERS_EXT);
	} else if (!retry(pm, &n->want, &n->retries, W_CPI)) {
		n->cpi = CPI_FAILED;
	} else {
		return;
	}
	/* the ports' wants of the round follow the plan now known */
	node_plan(pm, n, &plan);
	n->pc_left = n->cpi == CPI_OK && plan.from_pc ? polled_ports(pm, n) : 0;
	for (unsigned k = 0; k < n->nports; k++) {
		struct pm_port *p = &pm->ports[n->first + k];

		drop_want(pm, &p->want, W_PC);
		drop_want(pm, &p->want, W_PCE);
		if (n->cpi == CPI_FAILED) {
			p->flags |= F_FAILED;
			port_settled(pm, n, p, now_ms);
			continue;
		}
		p->want |= (uint8_t)((plan.from_pc ? W_PC : 0) | (plan.from_pce ? W_PCE : 0));
		pm->pending += bits(p->want);
	}
}

static uint8_t kind_bit(uint8_t kind)
{
	static const uint8_t b[] = { W_CPI, W_PC, W_PCE, W_CLEAR };

	return b[kind & 3];
}

static void port_done(struct pm *pm, struct pm_node *n, struct pm_port *p,
		      const struct pm_query *q, const struct pma_reply *r, uint64_t now_ms)
{
	uint8_t bit = kind_bit(q->kind);
	bool ok = r && !r->status;

	if (ok && q->kind == PM_Q_CLEAR)
		cleared(pm, n, p, q);
	else if (ok)
		reading(pm, n, p, r, now_ms);
	else if (retry(pm, &p->want, &p->retries, bit))
		return;
	else if (q->kind != PM_Q_CLEAR)
		p->flags |= F_FAILED;
	if (q->kind == PM_Q_PC)
		pc_done(pm, n);
	port_settled(pm, n, p, now_ms);
}

static bool answer_matches(const struct pm_query *q, const struct pma_reply *r)
{
	return r->attr_id == kind_attr(q->kind) &&
	       (q->kind == PM_Q_CPI || r->status || q->kind == PM_Q_CLEAR ||
		(r->attr_id == PMA_ATTR_PORT_COUNTERS ? r->u.pc.port_select
						      : r->u.pce.port_select) == q->port);
}

void pm_done(struct pm *pm, const struct pm_query *q, const struct pma_reply *r, uint64_t now_ms)
{
	struct pm_node *n = node_find(pm->nodes, pm->nnodes, q->guid);
	struct pm_port *p = NULL;
	uint8_t bit = kind_bit(q->kind);

	if (pm->outstanding)
		pm->outstanding--;
	if (n && n->out)
		n->out--;
	if (r && !answer_matches(q, r))
		r = NULL;       /* an answer about something else is no answer */
	if (n && (q->kind == PM_Q_CPI || q->port == PMA_PORT_SELECT_ALL)) {
		if (!(n->inflight & bit))
			return;
		n->inflight &= (uint8_t)~bit;
		pm->pending--;
		pm->inflight--;
		if (q->kind == PM_Q_CPI)
			cpi_done(pm, n, r, now_ms);
		else if (r && !r->status)
			cleared(pm, n, NULL, q);
		else
			retry(pm, &n->want, &n->retries, bit);
	} else if ((p = port_of(pm->ports, n, q->port)) && (p->inflight & bit)) {
		p->inflight &= (uint8_t)~bit;
		pm->pending--;
		pm->inflight--;
		port_done(pm, n, p, q, r, now_ms);
	}
	if (pm->in_round && pm->pending == 0 && pm->outstanding == 0)
		end_round(pm, now_ms);
}

void pm_bounce(struct pm *pm, uint64_t guid, uint8_t port, uint64_t now_ms)
{
	struct pm_node *n = node_find(pm->nodes, pm->nnodes, guid);
	struct pm_port *p = port_of(pm->ports, n, port);

	if (p)
		set_problems(pm, n, p, pm_health_bounce(&p->h, &pm->o.th, window_seq(pm, now_ms)));
}

/* --- views --- */

static void view(const struct pm *pm, const struct pm_node *n, const struct pm_port *p,
		 struct pm_port_view *v)
{
	struct pm_plan plan;

	plan_make(n, &plan);
	v->guid = n->guid;
	v->lid = n->is_switch ? n->lid : p->lid;
	v->port = p->num;
	v->is_switch = n->is_switch;
	v->width_act = p->width_act;
	v->speed_act = p->speed_act;
	v->missed = p->missed;
	v->idle = (p->flags & F_IDLE) != 0;
	v->problems = p->problems;
	v->valid = plan.from_pc | plan.from_pce;
	v->seen = p->c.seen[0] | (uint32_t)p->c.seen[1] << 8 | (uint32_t)p->c.seen[2] << 16;
	v->saturated = pm_counters_saturated(&p->c, plan.from_pc);
	v->total = p->c.total;
	for (unsigned i = 0; i < PM_NRATE; i++)
		v->rate[i] = p->rate[i];
}

size_t pm_port_count(const struct pm *pm)
{
	return pm->nports;
}

bool pm_port_find(const struct pm *pm, uint64_t guid, uint8_t port, struct pm_port_view *v)
{
	struct pm_node *n = node_find(pm->nodes, pm->nnodes, guid);
	struct pm_port *p = port_of(pm->ports, n, port);

	if (p)
		view(pm, n, p, v);
	return p != NULL;
}

bool pm_port_next(const struct pm *pm, uint64_t guid, uint8_t port, struct pm_port_view *v)
{
	size_t lo = 0, hi = pm->nnodes;

	while (lo < hi) {       /* the first node with a GUID >= guid */
		size_t mid = lo + (hi - lo) / 2;

		if (pm->nodes[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < pm->nnodes; lo++) {
		const struct pm_node *n = &pm->nodes[lo];

		for (unsigned k = 0; k < n->nports; k++) {
			const struct pm_port *p = &pm->ports[n->first + k];

			if (n->guid > guid || p->num > port) {
				view(pm, n, p, v);
				return true;
			}
		}
	}
	return false;
}

uint64_t pm_rounds(const struct pm *pm)
{
	return pm->st.rounds;
}

unsigned pm_outstanding(const struct pm *pm)
{
	return pm->outstanding;
}

void pm_get_stats(const struct pm *pm, struct pm_stats *st)
{
	*st = pm->st;
	st->outstanding = pm->outstanding;
	memset(st->problems, 0, sizeof(st->problems));
	for (size_t i = 0; i < pm->nports; i++)
		for (unsigned k = 0; k < PM_NPROBLEM; k++)
			if (pm->ports[i].problems & PM_P_BIT(k))
				st->problems[k]++;
}

size_t pm_table_bytes(const struct pm *pm)
{
	return pm->nnodes * sizeof(struct pm_node) + pm->nports * sizeof(struct pm_port);
}
