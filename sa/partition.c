/*
 * DOC: partitions as the SA applies them (IBA 10.9).
 *
 * Two ports may talk when they share a P_Key: the same low 15 bits and
 * at least one a full member. The SA hides records of ports that share
 * none with the requester, and a path gets a P_Key both ends share (the
 * requested one when given) and an SL its partition allows.
 *
 * The P_Keys are those the SM gives each port (the snapshot's, built
 * from the partitions file by sm/pkey.c): what the port will hold, not
 * what a read found, so a port whose table is still being written is
 * already answered by the rules in force. A switch's external ports go
 * by the switch's port 0. A snapshot without partitions (have_parts
 * false: one a test built) puts everybody in the default partition.
 */
#include "config.h"

#include "sa/sa_int.h"

static const uint16_t default_table[] = { 0xFFFF };

static const uint16_t *table_of(const struct sm_snap *s, const struct snap_port *p, size_t *n)
{
	const struct snap_node *node;

	if (!s->have_parts) {
		*n = 1;
		return default_table;
	}
	node = snap_node_of(s, p);
	if (node->is_switch && p->num)
		p = snap_port(s, node, 0);
	return snap_port_pkeys(s, p, n);
}

uint16_t sa_part_pkey(const struct sm_snap *s, const struct snap_port *a,
		      const struct snap_port *b, uint16_t want)
{
	const uint16_t *ta, *tb;
	size_t na, nb;
	uint16_t k;

	if (want && !pkey_valid(want))
		return 0;
	if (!s->have_parts)   /* everybody: a full member of the default */
		return !want ? 0xFFFF : PKEY_BASE(want) == 0x7FFF ? want : 0;
	if (!a || !b)         /* a requester not in the snapshot sees nobody */
		return 0;
	ta = table_of(s, a, &na);
	tb = table_of(s, b, &nb);
	if (!pkey_share(ta, na, tb, nb, want, &k))
		return 0;
	/* a requested P_Key is answered as asked: its membership bit is the
	 * requester's business (a limited member asking for the full key
	 * still sends its own) */
	return want ? want : k;
}

static const struct snap_part *part_of(const struct sm_snap *s, uint16_t pkey)
{
	uint32_t lo = 0, hi = s->nparts;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->parts[mid].pkey == PKEY_BASE(pkey))
			return &s->parts[mid];
		if (s->parts[mid].pkey < PKEY_BASE(pkey))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint8_t sa_part_sl(const struct sm_snap *s, uint16_t pkey)
{
	const struct snap_part *p = s->have_parts ? part_of(s, pkey) : NULL;

	/* -1 (every SL dropped somewhere): 0, which sa_part_sl_ok refuses */
	return p && p->sl >= 0 ? (uint8_t)p->sl : 0;
}

bool sa_part_sl_ok(const struct sm_snap *s, uint16_t pkey, uint8_t sl)
{
	if (sl > 15)
		return false;
	return !s->have_parts || (s->sl_ok >> sl & 1);
}

bool sa_part_holds(const struct sm_snap *s, const struct snap_port *p, uint16_t pkey)
{
	size_t n;
	const uint16_t *t = p ? table_of(s, p, &n) : NULL;

	return t && pkey_find(t, n, pkey) != 0;
}
