/*
 * DOC: the QoS tables of one port (see qostab.h).
 */
#include "config.h"

#include <string.h>

#include "fabric/qostab.h"

#define VL_DROP QOS_VL_DROP

unsigned qos_vls_of_code(unsigned code)
{
	static const unsigned vls[] = { 0, 1, 2, 4, 8, 15 };

	return code < sizeof(vls) / sizeof(vls[0]) ? vls[code] : 0;
}

static void fill_sl2vl(const struct qos_params *p, unsigned n, struct smp_sl2vl *out)
{
	for (unsigned sl = 0; sl < 16; sl++) {
		unsigned vl = p->sl2vl[sl];

		out->vl[sl] = (uint8_t)(vl == VL_DROP || vl < n ? vl : vl % n);
	}
}

/* Entries of one priority into count = cap table slots, from block
 * first_id on (one block per 32 entries). */
static void fill_arb(const struct qos_arb *e, size_t ne, unsigned cap, unsigned n,
		     uint8_t first_id, struct qos_port_tables *out)
{
	for (unsigned b = 0; b * 32 < cap && b < 2; b++) {
		struct smp_vlarb_block *blk = &out->blocks[out->nblocks];

		memset(blk, 0, sizeof(*blk));
		for (unsigned i = 0; i < 32 && b * 32 + i < cap; i++) {
			size_t k = b * 32 + i;

			if (k >= ne)
				break;
			blk->e[i].vl = e[k].vl;
			blk->e[i].weight = e[k].vl < n ? e[k].weight : 0;
		}
		out->block_id[out->nblocks++] = (uint8_t)(first_id + b);
	}
}

void qos_port_tables(const struct qos_params *p, unsigned oper_vls, unsigned low_cap,
		     unsigned high_cap, struct qos_port_tables *out)
{
	unsigned n = qos_vls_of_code(oper_vls);

	memset(out, 0, sizeof(*out));
	if (n > p->max_vls)
		n = p->max_vls;
	if (n == 0)
		n = 1;
	out->data_vls = n;
	out->high_limit = (uint8_t)p->high_limit;
	fill_sl2vl(p, n, &out->sl2vl);
	out->vlarb = n > 1 && (low_cap || high_cap);
	if (!out->vlarb)
		return;
	fill_arb(p->low, p->nlow, low_cap, n, SMP_VLARB_LOW_1, out);
	fill_arb(p->high, p->nhigh, high_cap, n, SMP_VLARB_HIGH_1, out);
}

static bool sl_usable(unsigned sl, const struct qos_params classes[QOS_NCLASSES])
{
	for (unsigned k = 0; k < QOS_NCLASSES; k++)
		if (classes[k].sl2vl[sl] == VL_DROP)
			return false;
	return true;
}

int qos_path_sl(bool qos_on, int part_sl, const struct qos_params classes[QOS_NCLASSES])
{
	if (!qos_on)
		return 0;
	if (part_sl >= 0 && part_sl < 16 && sl_usable((unsigned)part_sl, classes))
		return part_sl;
	for (unsigned sl = 0; sl < 16; sl++)
		if (sl_usable(sl, classes))
			return (int)sl;
	return -1;
}
