/*
 * DOC: the SA's counters per attribute: requests, errors, records sent,
 * and a latency histogram for the percentiles `ibsmctl sa` shows.
 *
 * The histogram is log-linear: values below 8 us have a bucket each,
 * above that every power of two is split into 8 buckets, so a percentile
 * is read to within 12.5 % with a fixed 1 KiB per attribute and no
 * allocation per request.
 */
#include "config.h"

#include <string.h>

#include "sa/sa_int.h"

static unsigned bucket(uint64_t us)
{
	unsigned e = 63 - (unsigned)__builtin_clzll(us | 1);

	if (us < 8)
		return (unsigned)us;
	/* e >= 3: 8 sub-buckets from the 3 bits below the leading one */
	us = (e - 2) * 8 + ((us >> (e - 3)) & 7);
	return us < SA_HIST_BUCKETS ? (unsigned)us : SA_HIST_BUCKETS - 1;
}

uint32_t sa_hist_upper(unsigned i)
{
	unsigned e, sub;

	if (i < 8)
		return i + 1;
	e = i / 8 + 2;
	sub = i % 8;
	if (e >= 31)
		return UINT32_MAX;
	/* bucket [ (8 + sub) << (e - 3), (9 + sub) << (e - 3) ) */
	return (uint32_t)((9u + sub) << (e - 3));
}

void sa_stats_note(struct sa *sa, const struct sa_attr *a, uint16_t status, uint32_t records,
		   uint64_t us)
{
	struct sa_counters *k = &sa->cnt[sa_attr_index(a)];

	k->requests++;
	if (status)
		k->errors++;
	k->records += records;
	k->lat_sum_us += us;
	k->hist[bucket(us)]++;
}

void sa_get_latency(const struct sa *sa, const uint32_t *bounds_us, size_t n, uint64_t *le,
		    uint64_t *count, uint64_t *sum_us)
{
	memset(le, 0, n * sizeof(*le));
	*count = *sum_us = 0;
	for (size_t a = 0; a < sa_attr_count(); a++) {
		const struct sa_counters *k = &sa->cnt[a];

		*count += k->requests;
		*sum_us += k->lat_sum_us;
		for (unsigned i = 0; i < SA_HIST_BUCKETS; i++)
			for (size_t b = 0; b < n && k->hist[i]; b++)
				if (sa_hist_upper(i) <= bounds_us[b])
					le[b] += k->hist[i];
	}
}
