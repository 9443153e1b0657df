/*
 * filetime.c - FILETIME as text.  The calendar is computed here (days to a
 * proleptic Gregorian date by whole 400-year cycles), not with gmtime(): it
 * covers every FILETIME on every platform (a 32-bit time_t included), needs
 * no locale or time zone, and is safe from any thread.
 *
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

/* Days from 0000-03-01 (the first day of a 400-year cycle, counting years from March) to
 * 1601-01-01, the FILETIME epoch. */
#define DAYS_0000_03_01_TO_1601 584694u
#define DAYS_PER_400_YEARS 146097u

static char *put_num(char *o, uint64_t v, int digits)
{
	int i;

	for (i = digits - 1; i >= 0; i--) {
		o[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return o + digits;
}

size_t etl_filetime_format(uint64_t ft, char out[ETL_FILETIME_STRING_SIZE])
{
	uint64_t secs = ft / 10000000u, frac = ft % 10000000u;
	uint64_t days = secs / 86400u + DAYS_0000_03_01_TO_1601, sod = secs % 86400u;
	uint64_t era = days / DAYS_PER_400_YEARS, doe = days % DAYS_PER_400_YEARS;
	uint64_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u; /* 0..399 */
	uint64_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);                 /* from March 1 */
	uint64_t mp = (5u * doy + 2u) / 153u;                                      /* March = 0 */
	uint64_t day = doy - (153u * mp + 2u) / 5u + 1u, month = mp < 10u ? mp + 3u : mp - 9u;
	uint64_t year = era * 400u + yoe + (month <= 2u);
	char *o = out;

	o = put_num(o, year, year > 9999u ? 5 : 4);
	*o++ = '-';
	o = put_num(o, month, 2);
	*o++ = '-';
	o = put_num(o, day, 2);
	*o++ = 'T';
	o = put_num(o, sod / 3600u, 2);
	*o++ = ':';
	o = put_num(o, sod / 60u % 60u, 2);
	*o++ = ':';
	o = put_num(o, sod % 60u, 2);
	*o++ = '.';
	o = put_num(o, frac, 7);
	*o++ = 'Z';
	*o = 0;
	return (size_t)(o - out);
}
