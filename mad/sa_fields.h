/*
 * DOC: component-mask field tables of the SA records, and the generic
 * template matcher.
 *
 * An SA query carries a template record and a 64-bit ComponentMask; bit n
 * selects the record's n-th component in wire order, reserved components
 * included (the SA MAD header, IBA 15.2.1). Each record type has a
 * table of its components: byte offset, bit offset of the first bit within
 * that byte counted from the most significant bit (0 = bit 7), and width in
 * bits. The tables follow OpenSM's IB_*_COMPMASK_* (ib_types.h at fa74b98c)
 * bit for bit; PathRecord adds bit 22 Preference (Linux
 * IB_SA_PATH_REC_PREFERENCE). OpenSM's names are given in sa_fields.c.
 * PathRecord bits 0 and 1 split the ServiceID as 8 + 56 bits (see there);
 * for the masks OpenSM accepts (both bits or neither) the split does not
 * change a match.
 *
 * sa_match() compares the selected components of two records bit-exactly
 * on their wire bytes. It knows nothing of semantics: selectors,
 * PortInfoRecord's "all CapabilityMask bits set" match (AttributeModifier
 * bit 31), the ServiceID bit pair rule, or MCMemberRecord's ProxyJoin in
 * bit 0 are the SA's to handle before or after calling it.
 */
#ifndef IBSM_MAD_SA_FIELDS_H
#define IBSM_MAD_SA_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sa_field {
	const char *name;
	uint16_t off;       /* byte offset of the first bit */
	uint8_t bit;        /* 0..7, from the MSB of that byte */
	uint16_t width;     /* bits */
};

struct sa_rec_desc {
	const char *name;
	uint16_t attr_id;
	uint16_t size;      /* wire size */
	uint16_t padded;    /* size in a GetTableResp, multiple of 8 */
	uint8_t nfields;    /* component-mask bits 0 .. nfields-1 */
	const struct sa_field *fields;
};

/* The record description for an SA attribute ID, or NULL. Covers
 * NodeRecord, PortInfoRecord, SL2VLTableRecord, SwitchInfoRecord, LFTRecord,
 * MFTRecord, SMInfoRecord, LinkRecord, GUIDInfoRecord, ServiceRecord,
 * P_KeyTableRecord, PathRecord, VLArbitrationTableRecord, MCMemberRecord,
 * MultiPathRecord (fixed part) and InformInfoRecord. */
const struct sa_rec_desc *sa_rec_desc_find(uint16_t attr_id);
/* All descriptions, for iteration; *n gets their number. */
const struct sa_rec_desc *sa_rec_descs(size_t *n);

/* 0 when every bit of mask names a component of d, else -EINVAL. */
int sa_mask_check(const struct sa_rec_desc *d, uint64_t mask);
/* True when every component selected by mask has the same bits in tmpl and
 * rec (both d->size bytes of wire data). Mask bits beyond d's components
 * are ignored: reject them first with sa_mask_check(). */
bool sa_match(const struct sa_rec_desc *d, const uint8_t *tmpl, const uint8_t *rec,
	      uint64_t mask);
/* True when field f has the same bits in a and b. */
bool sa_field_equal(const struct sa_field *f, const uint8_t *a, const uint8_t *b);

#endif
