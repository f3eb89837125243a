/*
 * DOC: LFT drift, and the routes a repair starts from (see drift.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/drift.h"
#include "sm/log.h"
#include "sm/sm.h"
#include "sm/snap.h"

#define DRIFT_LOG_MAX 16

bool lft_block_known(uint8_t state)
{
	return state == LFT_KNOWN || state == LFT_DRIFTED;
}

/* The current snapshot was built with our current routes, in its node
 * order: it tells which switch each of our tables belongs to. */
static const struct sm_snap *routes_snap(const struct sm *sm)
{
	const struct sm_snap *s = sm_snap_current(sm);

	if (!sm->have_routes || sm->takeover || !sm->rt_hold || !s || s->rt_hold != sm->rt_hold)
		return NULL;
	return s->nnodes == sm->routes.nnodes ? s : NULL;
}

static uint8_t *own_lft(const struct sm *sm, const struct sm_snap *s, uint64_t guid, uint16_t top)
{
	const struct snap_node *sn = snap_node_by_guid(s, guid);
	const uint8_t *ports = sn ? sm->routes.lft[sn - s->nodes].ports : NULL;
	unsigned have = sm->routes.top < top ? sm->routes.top : top;
	uint8_t *out;

	if (!ports)
		return NULL;
	out = xmalloc((size_t)top + 1);
	memset(out, LFT_NO_PORT, (size_t)top + 1);
	memcpy(out, ports, (size_t)have + 1);
	return out;
}

/* What switch n holds now, top + 1 entries, or NULL when we do not know
 * all of its blocks (it then counts as holding nothing). */
static uint8_t *held_lft(const struct sm_node *n, uint16_t top)
{
	unsigned blocks = top / 64u + 1;
	bool known = n->lft && n->lft_blocks >= blocks;
	uint8_t *out;

	for (unsigned b = 0; known && b < blocks; b++)
		known = lft_block_known(n->lft_known[b]);
	if (!known)
		return NULL;
	out = xmalloc((size_t)top + 1);
	memcpy(out, n->lft, (size_t)top + 1);
	return out;
}

bool drift_prev_routes(const struct sm *sm, uint16_t top, struct route_tables *prev)
{
	const struct sm_snap *s = routes_snap(sm);

	memset(prev, 0, sizeof(*prev));
	prev->nnodes = sm->fabric->nnodes;
	prev->top = top;
	prev->lft = xcalloc(prev->nnodes, sizeof(*prev->lft));
	for (uint32_t i = 0; i < sm->fabric->nnodes; i++) {
		const struct sm_node *n = sm->fabric->nodes[i];

		if (node_is_switch(n))
			prev->lft[i].ports = s ? own_lft(sm, s, n->guid, top) : held_lft(n, top);
	}
	return s != NULL;
}

unsigned lft_differing(const uint8_t *a, const uint8_t *b)
{
	unsigned k = 0;

	for (unsigned i = 0; i < 64; i++)
		k += a[i] != b[i];
	return k;
}

void drift_written(struct sm *sm, struct sm_node *n, unsigned b, const uint8_t want[64])
{
	unsigned bad = lft_differing(n->lft + (size_t)b * 64, want);

	n->lft_known[b] = LFT_KNOWN;   /* lft holds what we read */
	if (!bad)
		return;
	if (sm->st.lft_drift_blocks++ < DRIFT_LOG_MAX)
		log_fabric(LOG_LVL_WARNING, "LFT drift: %016llx \"%s\" block %u changed behind "
			   "our back: %u entries written back to our routes",
			   (unsigned long long)n->guid, n->desc, b, bad);
	sm->st.lft_drift_entries += bad;
}

void drift_summary(const struct sm *sm)
{
	if (!sm->st.lft_drift_blocks)
		return;
	log_warnx("LFT drift: %llu entries in %llu blocks changed behind our back, written "
		  "back to our routes (%llu blocks listed)",
		  (unsigned long long)sm->st.lft_drift_entries,
		  (unsigned long long)sm->st.lft_drift_blocks,
		  (unsigned long long)(sm->st.lft_drift_blocks < DRIFT_LOG_MAX ?
				       sm->st.lft_drift_blocks : DRIFT_LOG_MAX));
}
