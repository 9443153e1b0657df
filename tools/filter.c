/*
 * filter.c - etldump's event filters: provider, event name, id, opcode,
 * level, keywords, pid, tid, CPU, time window, --where (where.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filter.h"
#include "where.h"

void filter_init(struct filter *f)
{
	memset(f, 0, sizeof(*f));
	f->max_level = -1;
}

int filter_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

/* "5", "1-10", "5,7,9-12" */
int filter_add_ranges(struct range *r, size_t *n, const char *spec, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok + 1, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = 0;
		if (filter_parse_u64(tok, &lo) != 0 || (dash && filter_parse_u64(dash + 1, &hi) != 0)) {
			snprintf(err, errlen, "'%s' is not a number or a range like 5-9", spec);
			return -1;
		}
		if (!dash)
			hi = lo;
		if (hi < lo) {
			snprintf(err, errlen, "range '%s' ends before it starts", spec);
			return -1;
		}
		if (*n >= FILTER_MAX) {
			snprintf(err, errlen, "too many values");
			return -1;
		}
		r[*n].lo = lo;
		r[*n].hi = hi;
		(*n)++;
	}
	return 0;
}

static int in_ranges(const struct range *r, size_t n, uint64_t v)
{
	size_t i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (v >= r[i].lo && v <= r[i].hi)
			return 1;
	return 0;
}

/*
 * Times: an absolute UTC time "2024-01-02T03:04:05[.fffffff][Z]" (or with a space), or a
 * duration from the trace start "+1.5s", "250ms", "10us", "300ns", "2m", "1h" (a bare number
 * is seconds).
 */
int filter_set_time(struct filter *f, int is_until, const char *spec, char *err, size_t errlen)
{
	int64_t v;
	int rel;

	if (isdigit((unsigned char)spec[0]) && strlen(spec) >= 19 && spec[4] == '-' && spec[7] == '-') {
		int y, mo, d, h, mi, sec, n = 0;
		double frac = 0;
		int64_t t;

		if (sscanf(spec, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6) {
			snprintf(err, errlen, "'%s' is not a time like 2024-01-02T03:04:05Z", spec);
			return -1;
		}
		if (spec[n] == '.') {
			char *end;
			frac = strtod(spec + n, &end);
			n = (int)(end - spec);
		}
		if (spec[n] == 'Z')
			n++;
		if (spec[n]) {
			snprintf(err, errlen, "'%s' is not a time like 2024-01-02T03:04:05Z", spec);
			return -1;
		}
		/* days since 1970 without timegm (not POSIX): the civil-from-days algorithm */
		{
			int64_t yy = y - (mo <= 2), era = (yy >= 0 ? yy : yy - 399) / 400;
			int64_t yoe = yy - era * 400, mp = (mo + 9) % 12;
			int64_t doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
			int64_t days = era * 146097 + doe - 719468;
			t = days * 86400 + h * 3600 + mi * 60 + sec; /* (not time_t: 32 bits on some systems) */
		}
		if (t < -(int64_t)(ETL_FILETIME_UNIX_EPOCH / 10000000) || !(frac >= 0 && frac < 1)) {
			snprintf(err, errlen, "'%s' is before 1601 or not a time", spec);
			return -1;
		}
		v = t * 10000000 + (int64_t)(frac * 1e7 + 0.5) + (int64_t)ETL_FILETIME_UNIX_EPOCH;
		rel = 0;
	} else {
		char *end;
		double x;
		const char *s = spec[0] == '+' ? spec + 1 : spec;

		errno = 0;
		x = strtod(s, &end);
		if (errno || end == s || x < 0) {
			snprintf(err, errlen, "'%s' is neither a UTC time nor a duration like 1.5s", spec);
			return -1;
		}
		if (!*end || strcmp(end, "s") == 0)
			x *= 1e7;
		else if (strcmp(end, "ms") == 0)
			x *= 1e4;
		else if (strcmp(end, "us") == 0)
			x *= 10;
		else if (strcmp(end, "ns") == 0)
			x /= 100;
		else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
			x *= 60e7;
		else if (strcmp(end, "h") == 0)
			x *= 3600e7;
		else {
			snprintf(err, errlen, "'%s': unknown unit (s, ms, us, ns, m, h)", spec);
			return -1;
		}
		if (!(x <= 3e18)) { /* (NaN too): about 9,500 years, within an int64 of 100 ns */
			snprintf(err, errlen, "'%s' is out of range (at most 9,500 years)", spec);
			return -1;
		}
		v = (int64_t)(x + 0.5); /* to the nearest 100 ns */
		rel = 1;
	}
	if (is_until) {
		f->until = v;
		f->until_rel = rel;
		f->have_until = 1;
	} else {
		f->since = v;
		f->since_rel = rel;
		f->have_since = 1;
	}
	return 0;
}

int filter_add_provider(struct filter *f, const char *spec, char *err, size_t errlen)
{
	if (f->nproviders >= FILTER_MAX) {
		snprintf(err, errlen, "too many --provider options");
		return -1;
	}
	f->providers[f->nproviders++] = spec;
	return 0;
}

/* s in lower case into buf (cap bytes), or into memory of its own when longer (*own: free it);
 * NULL without memory. */
static char *lower(const char *s, char *buf, size_t cap, char **own)
{
	size_t n = strlen(s), i;
	char *d = n < cap ? buf : (*own = malloc(n + 1));

	for (i = 0; d && i < n; i++)
		d[i] = (char)tolower((unsigned char)s[i]);
	if (d)
		d[n] = 0;
	return d;
}

/* Case-insensitive glob with plain POSIX fnmatch (FNM_CASEFOLD is an extension); names and
 * patterns of any length, never cut. */
static int glob_nocase(const char *pattern, const char *name)
{
	char pb[512], nb[512], *po = NULL, *no = NULL, *p = lower(pattern, pb, sizeof(pb), &po),
					 *n = lower(name, nb, sizeof(nb), &no);
	int hit = p && n && fnmatch(p, n, 0) == 0;

	free(po);
	free(no);
	return hit;
}

static int is_guid_spec(const char *s, struct etl_guid *g)
{
	return etl_guid_parse(s, g) == ETL_OK;
}

int filter_add_process(struct filter *f, const char *spec, char *err, size_t errlen)
{
	if (!*spec) {
		snprintf(err, errlen, "empty process name");
		return -1;
	}
	if (f->nprocesses == FILTER_MAX) {
		snprintf(err, errlen, "at most %d process filters", FILTER_MAX);
		return -1;
	}
	f->processes[f->nprocesses++] = spec;
	return 0;
}

int filter_add_name(struct filter *f, const char *spec, char *err, size_t errlen)
{
	if (f->nnames >= FILTER_MAX) {
		snprintf(err, errlen, "at most %d event names", FILTER_MAX);
		return -1;
	}
	f->names[f->nnames++] = spec;
	return 0;
}

int filter_set_where(struct filter *f, const char *spec, char *err, size_t errlen)
{
	struct where *w = where_parse(spec, err, errlen);

	if (!w)
		return -1;
	where_free(f->where);
	f->where = w;
	return 0;
}

void filter_free(struct filter *f)
{
	where_free(f->where);
	f->where = NULL;
}

int filter_needs_decoding(const struct filter *f)
{
	size_t i;
	struct etl_guid g;

	for (i = 0; i < f->nproviders; i++)
		if (!is_guid_spec(f->providers[i], &g))
			return 1;
	return f->nnames > 0 || f->where != NULL;
}

static int filter_provider(const struct filter *f, const struct etl_event *ev, const char *name)
{
	size_t i;
	struct etl_guid g;

	if (f->nproviders == 0)
		return 1;
	for (i = 0; i < f->nproviders; i++) {
		if (is_guid_spec(f->providers[i], &g)) {
			if (etl_guid_equal(&g, etl_event_provider(ev)))
				return 1;
		} else if (name && glob_nocase(f->providers[i], name)) {
			return 1;
		}
	}
	return 0;
}

int filter_decoded(const struct filter *f, const struct etl_event *ev, const struct etl_decoded *d)
{
	size_t i;

	if (!filter_provider(f, ev, d ? etl_decoded_provider_name(d) : NULL))
		return 0;
	if (f->nnames) {
		for (i = 0; i < f->nnames; i++)
			if (d && glob_nocase(f->names[i], etl_decoded_name(d)))
				break;
		if (i == f->nnames)
			return 0;
	}
	return !f->where || where_match(f->where, ev, d);
}

/* --pid: the process the event is about (its header's, else the one its payload names). */
static int pid_matches(const struct filter *f, const struct etl_reader *r, const struct etl_event *ev)
{
	uint32_t pid = etl_reader_event_pid(r, ev);

	return pid != ETL_ID_NONE && in_ranges(f->pids, f->npids, pid);
}

/* a + b for a FILETIME and an offset (both at least 0), INT64_MAX when it would not fit. */
static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int filter_header(const struct filter *f, const struct etl_reader *r, const struct etl_event *ev)
{
	uint64_t kw = etl_event_keywords(ev);

	if (!in_ranges(f->ids, f->nids, etl_event_id(ev)) || !in_ranges(f->opcodes, f->nopcodes, etl_event_opcode(ev)) ||
	    !in_ranges(f->cpus, f->ncpus, etl_event_cpu(ev)))
		return 0;
	if (f->npids && !pid_matches(f, r, ev))
		return 0;
	if (f->ntids && (etl_event_tid(ev) == ETL_ID_NONE || !in_ranges(f->tids, f->ntids, etl_event_tid(ev))))
		return 0;
	if (f->max_level >= 0 && etl_event_level(ev) > f->max_level)
		return 0;
	if (f->have_any && !(kw & f->keywords_any))
		return 0;
	if (f->have_all && (kw & f->keywords_all) != f->keywords_all)
		return 0;
	if (f->nprocesses) {
		const struct etl_process *p = etl_reader_event_process(r, ev);
		const char *name = p ? etl_process_image_name(p) : "";
		size_t i;
		for (i = 0; i < f->nprocesses && !glob_nocase(f->processes[i], name); i++)
			;
		if (i == f->nprocesses)
			return 0;
	}
	if (f->have_since || f->have_until) {
		const struct etl_trace_info *t = etl_reader_trace_info(r, etl_event_trace_index(ev));
		int64_t ft = (int64_t)etl_event_filetime(ev), start = t ? (int64_t)etl_trace_info_start_time(t) : 0;
		if (f->have_since && ft < (f->since_rel ? sat_add(start, f->since) : f->since))
			return 0;
		if (f->have_until && ft > (f->until_rel ? sat_add(start, f->until) : f->until))
			return 0;
	}
	return 1;
}
