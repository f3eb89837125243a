/*
 * DOC: partitions as the SA applies them (sa-mcast-ha.md 3.2, 6.1).
 *
 * Two ports may talk when they share a P_Key: the same low 15 bits and
 * at least one a full member. The SA hides records of ports that share
 * none with the requester, and a path gets a P_Key both ends share (the
 * requested one when given) and an SL the partition allows.
 *
 * Today the SM programs no P_Key tables, so every port holds only the
 * default P_Key 0xFFFF at index 0 (full member of the default partition):
 * everybody shares it, and the default partition uses SL 0 unless a
 * request names another. The partitions work (conf/partitions.c turned
 * into P_Key tables) replaces the bodies of these three functions; their
 * callers already pass the ports and the P_Key in question.
 */
#include "config.h"

#include "sa/sa_int.h"

#define PKEY_DEFAULT 0xFFFF

uint16_t sa_part_pkey(const struct sm_snap *s, const struct snap_port *a,
		      const struct snap_port *b, uint16_t want)
{
	if (!want)
		return PKEY_DEFAULT;
	/* the default partition, as a full (0xFFFF) or limited (0x7FFF)
	 * member: the other side is full, so either works */
	return PKEY_BASE(want) == PKEY_BASE(PKEY_DEFAULT) ? want : 0;
}

uint8_t sa_part_sl(const struct sm_snap *s, uint16_t pkey)
{
	return 0;
}

bool sa_part_sl_ok(const struct sm_snap *s, uint16_t pkey, uint8_t sl)
{
	/* QoS is not configured: no SL is reserved or mapped away */
	return sl < 16;
}
