/*
 * DOC: one switch's MulticastForwardingTable in memory (see mcast.h).
 *
 * A table keeps only the MLIDs whose mask is not empty, ascending, each
 * with the npos 16-bit words its ports need: a leaf in 1000 groups out of
 * 16k MLIDs holds 1000 rows, and the SMP blocks are cut out of that on
 * demand. Words are host order; the SMP codec does the byte swapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/graph.h"
#include "routing/mcast_int.h"

void mcast_mft_init(struct mcast_mft *m, uint8_t nports)
{
	memset(m, 0, sizeof(*m));
	m->npos = (uint8_t)((nports + 1u + 15u) / 16u);
}

void mcast_mft_free(struct mcast_mft *m)
{
	free(m->mlid);
	free(m->mask);
	m->mlid = NULL;
	m->mask = NULL;
	m->n = m->cap = 0;
}

static void reserve(struct mcast_mft *m, uint32_t n)
{
	if (n <= m->cap)
		return;
	uint32_t cap = m->cap ? m->cap : 8;
	while (cap < n)
		cap *= 2;
	m->mlid = realloc(m->mlid, cap * sizeof(*m->mlid));
	m->mask = realloc(m->mask, (size_t)cap * m->npos * sizeof(*m->mask));
	if (!m->mlid || (!m->mask && m->npos))
		abort();
	m->cap = cap;
}

void mcast_mft_copy(struct mcast_mft *dst, const struct mcast_mft *src)
{
	mcast_mft_free(dst);
	dst->npos = src->npos;
	reserve(dst, src->n);
	dst->n = src->n;
	if (!src->n)
		return;
	memcpy(dst->mlid, src->mlid, src->n * sizeof(*src->mlid));
	memcpy(dst->mask, src->mask, (size_t)src->n * src->npos * sizeof(*src->mask));
}

uint32_t mcast_mft_append(struct mcast_mft *m, uint16_t mlid)
{
	reserve(m, m->n + 1);
	m->mlid[m->n] = mlid;
	memset(m->mask + (size_t)m->n * m->npos, 0, m->npos * sizeof(*m->mask));
	return m->n++;
}

/* First row whose MLID is >= mlid. */
static uint32_t lower_bound(const struct mcast_mft *m, uint32_t mlid)
{
	uint32_t lo = 0, hi = m->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->mlid[mid] < mlid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const uint16_t *mcast_mft_find(const struct mcast_mft *m, uint16_t mlid)
{
	uint32_t i = lower_bound(m, mlid);

	return i < m->n && m->mlid[i] == mlid ? m->mask + (size_t)i * m->npos : NULL;
}

static uint32_t block_mlid(uint16_t block)
{
	return MCAST_MLID_MIN + (uint32_t)block * MCAST_BLOCK_MLIDS;
}

int mcast_mft_block(const struct mcast_mft *m, uint16_t block, uint8_t pos, uint16_t words[32])
{
	if (block >= MCAST_MAX_BLOCKS || pos >= MCAST_MAX_POS)
		return -EINVAL;
	memset(words, 0, MCAST_BLOCK_MLIDS * sizeof(*words));
	if (pos >= m->npos)
		return 0;
	uint32_t lo = block_mlid(block);
	for (uint32_t i = lower_bound(m, lo); i < m->n && m->mlid[i] < lo + MCAST_BLOCK_MLIDS; i++)
		words[m->mlid[i] - lo] = m->mask[(size_t)i * m->npos + pos];
	return 0;
}

static int row_empty(const uint16_t *w, uint8_t npos)
{
	for (uint8_t p = 0; p < npos; p++)
		if (w[p])
			return 0;
	return 1;
}

/*
 * The block's rows, dense (32 x npos words) in dense, with word pos
 * replaced by words[]; returns how many rows are not empty.
 */
static uint32_t merge_block(const struct mcast_mft *m, uint32_t lo, uint32_t i0, uint32_t i1,
			    uint8_t pos, const uint16_t *words, uint16_t *dense)
{
	uint32_t nz = 0;

	memset(dense, 0, MCAST_BLOCK_MLIDS * m->npos * sizeof(*dense));
	for (uint32_t i = i0; i < i1; i++)
		memcpy(dense + (m->mlid[i] - lo) * m->npos, m->mask + (size_t)i * m->npos,
		       m->npos * sizeof(*dense));
	for (uint32_t k = 0; k < MCAST_BLOCK_MLIDS; k++) {
		dense[k * m->npos + pos] = words[k];
		nz += !row_empty(dense + k * m->npos, m->npos);
	}
	return nz;
}

/* Moves rows [from, n) to start at row to (the table has room). */
static void move_rows(struct mcast_mft *m, uint32_t from, uint32_t to)
{
	uint32_t cnt = m->n - from;

	if (!cnt || from == to)
		return;
	memmove(m->mlid + to, m->mlid + from, cnt * sizeof(*m->mlid));
	memmove(m->mask + (size_t)to * m->npos, m->mask + (size_t)from * m->npos,
		(size_t)cnt * m->npos * sizeof(*m->mask));
}

int mcast_mft_put(struct mcast_mft *m, uint16_t block, uint8_t pos, const uint16_t words[32])
{
	uint16_t dense[MCAST_BLOCK_MLIDS * MCAST_MAX_POS];

	if (block >= MCAST_MAX_BLOCKS || pos >= MCAST_MAX_POS)
		return -EINVAL;
	if (pos >= m->npos)
		return -ERANGE;
	uint32_t lo = block_mlid(block);
	uint32_t i0 = lower_bound(m, lo), i1 = lower_bound(m, lo + MCAST_BLOCK_MLIDS);
	uint32_t nz = merge_block(m, lo, i0, i1, pos, words, dense);
	reserve(m, m->n - (i1 - i0) + nz);
	move_rows(m, i1, i0 + nz);
	m->n = m->n - (i1 - i0) + nz;
	for (uint32_t k = 0, at = i0; k < MCAST_BLOCK_MLIDS; k++) {
		if (row_empty(dense + k * m->npos, m->npos))
			continue;
		m->mlid[at] = (uint16_t)(lo + k);
		memcpy(m->mask + (size_t)at++ * m->npos, dense + k * m->npos,
		       m->npos * sizeof(*dense));
	}
	return 0;
}

/* Block of row i of m, or MCAST_MAX_BLOCKS past the end. */
static uint32_t row_block(const struct mcast_mft *m, uint32_t i)
{
	if (i >= m->n || m->mlid[i] < MCAST_MLID_MIN)
		return MCAST_MAX_BLOCKS;
	return (m->mlid[i] - MCAST_MLID_MIN) / MCAST_BLOCK_MLIDS;
}

/* Appends the positions of block b where held and want differ. */
static size_t diff_block(const struct mcast_mft *held, const struct mcast_mft *want, uint16_t b,
			 struct mcast_blockpos *out, size_t cap, size_t n)
{
	uint8_t npos = held->npos > want->npos ? held->npos : want->npos;
	uint16_t a[MCAST_BLOCK_MLIDS], w[MCAST_BLOCK_MLIDS];

	for (uint8_t pos = 0; pos < npos; pos++) {
		mcast_mft_block(held, b, pos, a);
		mcast_mft_block(want, b, pos, w);
		if (!memcmp(a, w, sizeof(a)))
			continue;
		if (n < cap)
			out[n] = (struct mcast_blockpos){ b, pos };
		n++;
	}
	return n;
}

size_t mcast_mft_diff(const struct mcast_mft *held, const struct mcast_mft *want,
		      struct mcast_blockpos *out, size_t cap)
{
	uint32_t i = lower_bound(held, MCAST_MLID_MIN), j = lower_bound(want, MCAST_MLID_MIN);
	size_t n = 0;

	for (;;) {
		uint32_t bh = row_block(held, i), bw = row_block(want, j);
		uint32_t b = bh < bw ? bh : bw;
		if (b >= MCAST_MAX_BLOCKS)
			return n;
		n = diff_block(held, want, (uint16_t)b, out, cap, n);
		while (row_block(held, i) == b)
			i++;
		while (row_block(want, j) == b)
			j++;
	}
}
