/*
 * clock.c - raw session timestamps to FILETIME and Unix time.
 *
 * FILETIME = StartTime + (raw - origin_raw) * num / den, where origin_raw is
 * the raw timestamp of the logfile-header event and num/den is the number
 * of 100 ns units per tick of the session clock (format reference 2.4).
 * The product is computed without overflow and without floating point.
 *
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"


void etl__clock_init(struct etl_clockconv *c, enum etl_clock type, uint64_t origin_raw,
		     uint64_t start_ft, uint64_t perf_freq, uint32_t cpu_mhz)
{
	c->type = type;
	c->origin_raw = origin_raw;
	c->origin_ft = start_ft;
	switch (type) {
	case ETL_CLOCK_QPC:
		c->num = 10000000;
		c->den = perf_freq;
		break;
	case ETL_CLOCK_CPU_CYCLES:
		c->num = 10;
		c->den = cpu_mhz;
		break;
	case ETL_CLOCK_SYSTEM_TIME:
	default:
		c->num = 1;
		c->den = 1;
		break;
	}
	if (c->den == 0) { /* a header without a usable frequency: keep raw units */
		c->num = 1;
		c->den = 1;
	}
}

/* a * num / den without overflow for num < 2^32 and den < 2^32; saturates. */
static uint64_t scale(uint64_t a, uint64_t num, uint64_t den)
{
	uint64_t q = a / den, r = a % den;
	uint64_t hi, lo;

	if (num == den)
		return a;
	if (num > UINT32_MAX || den > UINT32_MAX) { /* not produced by etl__clock_init */
		return (a / den) * num;
	}
	if (q != 0 && num > UINT64_MAX / q)
		return UINT64_MAX;
	hi = q * num;
	lo = r * num / den; /* r < den < 2^32 and num < 2^32: no overflow */
	if (hi > UINT64_MAX - lo)
		return UINT64_MAX;
	return hi + lo;
}

uint64_t etl__clock_filetime(const struct etl_clockconv *c, uint64_t raw)
{
	uint64_t d;

	if (raw >= c->origin_raw) {
		d = scale(raw - c->origin_raw, c->num, c->den);
		return d > UINT64_MAX - c->origin_ft ? UINT64_MAX : c->origin_ft + d;
	}
	d = scale(c->origin_raw - raw, c->num, c->den);
	return d > c->origin_ft ? 0 : c->origin_ft - d;
}

int64_t etl__filetime_to_unix_ns(uint64_t ft)
{
	/* The result fits in int64 for FILETIMEs up to year 2262; saturate beyond. */
	if (ft >= ETL_FILETIME_UNIX_EPOCH) {
		uint64_t d = ft - ETL_FILETIME_UNIX_EPOCH;
		return d > (uint64_t)INT64_MAX / 100 ? INT64_MAX : (int64_t)(d * 100);
	} else {
		uint64_t d = ETL_FILETIME_UNIX_EPOCH - ft;
		return d > (uint64_t)INT64_MAX / 100 ? INT64_MIN : -(int64_t)(d * 100);
	}
}
