/*
 * time.c - the times a filter compares events with: an absolute UTC time
 * "2024-01-02T03:04:05[.fffffff][Z]" (or with a space), or a duration from
 * each trace's start "+1.5s", "250ms", "10us", "300ns", "2m", "1h" (a bare
 * number is seconds).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

/* Seconds since 1970 of a civil date, without timegm (not POSIX) or time_t (32 bits on some
 * systems): the days-from-civil algorithm. */
static int64_t unix_seconds(int y, int mo, int d, int h, int mi, int sec)
{
	int64_t yy = y - (mo <= 2), era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400, mp = (mo + 9) % 12;
	int64_t doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return (era * 146097 + doe - 719468) * 86400 + h * 3600 + mi * 60 + sec;
}

static int absolute(const char *spec, int64_t *v)
{
	int y, mo, d, h, mi, sec, n = 0;
	double frac = 0;
	int64_t t;

	if (sscanf(spec, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || mo < 1 ||
	    mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (spec[n] == '.') {
		char *end;
		frac = strtod(spec + n, &end);
		n = (int)(end - spec);
	}
	if (spec[n] == 'Z')
		n++;
	t = unix_seconds(y, mo, d, h, mi, sec);
	if (spec[n] || t < -(int64_t)(ETL_FILETIME_UNIX_EPOCH / 10000000) || !(frac >= 0 && frac < 1))
		return -1;
	*v = t * 10000000 + (int64_t)(frac * 1e7 + 0.5) + (int64_t)ETL_FILETIME_UNIX_EPOCH;
	return 0;
}

static int duration(const char *spec, int64_t *v)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "", 1e7 }, { "s", 1e7 }, { "ms", 1e4 }, { "us", 10 }, { "ns", 0.01 },
		      { "m", 60e7 }, { "min", 60e7 }, { "h", 3600e7 } };
	const char *s = spec[0] == '+' ? spec + 1 : spec;
	char *end;
	double x;
	size_t i;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || x < 0)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]) && strcmp(end, units[i].unit) != 0; i++)
		;
	if (i == sizeof(units) / sizeof(units[0]))
		return -1;
	x *= units[i].scale;
	if (!(x <= 3e18)) /* (NaN too): about 9,500 years, within an int64 of 100 ns */
		return -1;
	*v = (int64_t)(x + 0.5); /* to the nearest 100 ns */
	return 0;
}

int etl__filter_time(const char *spec, int64_t *v, int *rel)
{
	if (isdigit((unsigned char)spec[0]) && strlen(spec) >= 19 && spec[4] == '-' && spec[7] == '-') {
		*rel = 0;
		return absolute(spec, v);
	}
	*rel = 1;
	return duration(spec, v);
}
