/*
 * DOC: the engine table and route_compute(), the one entry point.
 *
 * route_compute() builds the sorted view of the fabric, lets the chosen
 * engine fill the LFTs, and writes the last hop of every LID itself so that
 * no engine can get that part wrong. "auto" picks ftree for fat trees
 * (degraded ones included) and updn for everything else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine.h"
#include "routing/par.h"
#include "routing/reach.h"
#include "routing/routing.h"

const char *const route_engine_names[] = { "auto", "minhop", "updn", "ftree", NULL };

static const struct {
	const char *name;
	route_engine_fn fn;
} engines[] = {
	{ "minhop", route_minhop },
	{ "updn", route_updn },
	{ "ftree", route_ftree },
};

static route_engine_fn find_engine(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i].name, name))
			return engines[i].fn;
	return NULL;
}

/* Resolves "auto" and ftree-on-a-non-tree into the engine to run. */
static const char *choose(const struct rgraph *g, const char *want, char *why, size_t len)
{
	char reason[200];

	if (strcmp(want, "auto") && strcmp(want, "ftree")) {
		snprintf(why, len, "%s requested", want);
		return want;
	}
	if (ftree_detect(g, reason, sizeof(reason))) {
		snprintf(why, len, "%s%s", !strcmp(want, "auto") ? "auto: " : "", reason);
		return "ftree";
	}
	snprintf(why, len, "%s%s, using updn", !strcmp(want, "auto") ? "auto: " : "ftree: ",
		 reason);
	return "updn";
}

static void last_hops(const struct rgraph *g, uint8_t **lft)
{
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->sw[s].lid)
			lft[s][g->sw[s].lid] = 0;
	for (uint32_t h = 0; h < g->nhosts; h++) {
		const struct rg_host *ho = &g->hosts[h];
		for (uint32_t i = 0; i < ho->nlids; i++)
			lft[ho->sw][ho->lid + i] = ho->swport;
	}
}

static int check_lid_clash(const struct rgraph *g, char *why, size_t len)
{
	uint8_t *seen = rg_xcalloc(g->top + 1u, 1);
	int rc = 0;

	for (uint32_t s = 0; s < g->nsw && !rc; s++)
		if (g->sw[s].lid && seen[g->sw[s].lid]++)
			rc = -1;
	for (uint32_t h = 0; h < g->nhosts && !rc; h++)
		for (uint32_t i = 0; i < g->hosts[h].nlids; i++)
			if (seen[g->hosts[h].lid + i]++)
				rc = -1;
	if (rc)
		snprintf(why, len, "LIDs are not unique");
	free(seen);
	return rc;
}

/* Switches send replies and traps too: every switch gets a route to every
 * LID of its part of the fabric, whatever the engine left out. */
static void route_reach_all(struct rctx *c)
{
	struct reach_stats st;

	reach_fill_threads(c->g, c->lft, c->g->top, &st,
			   c->o->threads ? c->o->threads : ROUTE_THREADS, route_split(c));
	if (st.filled)
		route_why(c, "; %llu entries added for switches' own packets%s%s",
			  (unsigned long long)st.filled, st.cyclic ?
			  " (some close a credit loop: no other way)" : "", st.unchecked ?
			  " (too many to check all for credit loops)" : "");
}

/* Rows [lo, hi) of the tables: no entry yet. */
static void clear_rows(void *arg, int half, uint32_t lo, uint32_t hi)
{
	const struct rctx *c = arg;

	for (uint32_t s = lo; s < hi; s++)
		memset(c->lft[s], LFT_NO_PORT, c->g->top + 1u);
}

int route_compute(const struct topo *t, const struct route_opts *o, struct route_tables *out)
{
	static const struct route_opts defaults = { .engine = NULL };
	struct rgraph g;
	char err[200];

	memset(out, 0, sizeof(*out));
	o = o ? o : &defaults;
	const char *want = o->engine ? o->engine : "auto";
	if (strcmp(want, "auto") && !find_engine(want)) {
		snprintf(out->why, sizeof(out->why), "unknown routing engine '%s'", want);
		return -1;
	}
	if (rg_build(&g, t, err, sizeof(err)) || check_lid_clash(&g, err, sizeof(err))) {
		snprintf(out->why, sizeof(out->why), "%s", err);
		if (g.t)
			rg_free(&g);
		return -1;
	}
	const char *name = choose(&g, want, out->why, sizeof(out->why));
	snprintf(out->engine, sizeof(out->engine), "%s", name);
	out->nnodes = t->nnodes;
	out->top = (uint16_t)g.top;
	out->lft = rg_xcalloc(t->nnodes, sizeof(*out->lft));
	uint8_t **lft = rg_xcalloc(g.nsw, sizeof(*lft));
	for (uint32_t s = 0; s < g.nsw; s++) {
		lft[s] = rg_xmalloc(g.top + 1u, 1);
		out->lft[g.sw[s].node].ports = lft[s];
	}
	struct rctx c = { &g, o, lft, out->why, sizeof(out->why) };
	/* on a big fabric the clearing (most of it the kernel zeroing the
	 * rows' pages as they are first written) is far from free */
	rg_par_range(clear_rows, &c, g.nsw,
		     rg_par_threads(&g, o->threads ? o->threads : ROUTE_THREADS));
	int rc = find_engine(name)(&c);
	if (rc == ROUTE_FALLBACK_UPDN) {
		for (uint32_t s = 0; s < g.nsw; s++)
			memset(lft[s], LFT_NO_PORT, g.top + 1u);
		snprintf(out->engine, sizeof(out->engine), "updn");
		rc = route_updn(&c);
	}
	if (!rc) {
		last_hops(&g, lft);
		route_reach_all(&c);
	}
	free(lft);
	rg_free(&g);
	if (rc)
		route_tables_free(out);
	return rc;
}

void route_tables_free(struct route_tables *rt)
{
	if (!rt->lft)
		return;
	for (uint32_t i = 0; i < rt->nnodes; i++)
		free(rt->lft[i].ports);
	free(rt->lft);
	rt->lft = NULL;
	rt->nnodes = 0;
}
