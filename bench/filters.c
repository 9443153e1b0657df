/*
 * filters.c - what etlbench's jsonl-p and jsonl-win rows select, and their
 * times over jsonl's (docs/PERFORMANCE.md, "Filters"): -p of the provider
 * whose events are nearest a third of a trace's (by GUID), and --since and
 * --until of the middle tenth of its time.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "etl.h"

struct bench_selection bench_sel;

#define PROVIDERS_MAX 256

struct count {
	struct etl_guid g;
	unsigned long long n;
};

/* The index of the count nearest a third of total. */
static size_t nearest_third(const struct count *p, size_t np, unsigned long long total)
{
	size_t i, best = 0;

	for (i = 1; i < np; i++) {
		long long a = (long long)(p[i].n * 3) - (long long)total, b = (long long)(p[best].n * 3) - (long long)total;
		if (llabs(a) < llabs(b))
			best = i;
	}
	return best;
}

void bench_pick_selection(const char *path)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	struct count p[PROVIDERS_MAX];
	size_t np = 0, i;
	unsigned long long total = 0, first = 0, last = 0, start;
	char g[ETL_GUID_STRING_SIZE];
	double d;

	memset(&bench_sel, 0, sizeof(bench_sel));
	if (!r || etl_reader_set_option(r, ETL_OPTION_STACKS, 0) != ETL_OK || etl_reader_open_path(r, path) != ETL_OK) {
		etl_reader_free(r);
		return;
	}
	for (;;) {
		int st = etl_reader_next(r, &ev);
		if (st == ETL_END || (st != ETL_OK && etl_error_is_fatal(etl_reader_error(r))))
			break;
		if (st != ETL_OK)
			continue;
		for (i = 0; i < np && !etl_guid_equal(&p[i].g, etl_event_provider(ev)); i++)
			;
		if (i == np && np < PROVIDERS_MAX) {
			p[np].g = *etl_event_provider(ev);
			p[np++].n = 0;
		}
		if (i < np)
			p[i].n++;
		if (!total++)
			first = etl_event_filetime(ev);
		if (etl_event_filetime(ev) > last)
			last = etl_event_filetime(ev);
	}
	if (np) {
		etl_guid_format(&p[nearest_third(p, np, total)].g, g);
		snprintf(bench_sel.provider, sizeof(bench_sel.provider), "--provider=%s", g);
	}
	/* times from the trace's start, which may come before its first event */
	start = etl_reader_trace_count(r) ? etl_trace_info_start_time(etl_reader_trace_info(r, 0)) : first;
	d = first > start ? (double)(first - start) / 1e7 : 0;
	snprintf(bench_sel.since, sizeof(bench_sel.since), "--since=+%.7fs", d + (double)(last - first) / 1e7 * 0.45);
	snprintf(bench_sel.until, sizeof(bench_sel.until), "--until=+%.7fs", d + (double)(last - first) / 1e7 * 0.55);
	etl_reader_free(r);
}

static struct {
	char label[48];
	double p, win;
} ratios[64];
static size_t nratios;

void bench_filter_ratio(const char *label, double p, double win)
{
	if (nratios == sizeof(ratios) / sizeof(ratios[0]))
		return;
	snprintf(ratios[nratios].label, sizeof(ratios[nratios].label), "%s", label);
	ratios[nratios].p = p;
	ratios[nratios++].win = win;
}

void bench_print_filter_ratios(void)
{
	size_t i;

	if (!nratios)
		return;
	printf("\nFilter ratios (time over jsonl's; targets: jsonl-p at most 0.6, jsonl-win at most 0.25)\n\n");
	printf("| %-44s | jsonl-p | jsonl-win |\n|---|---|---|\n", "trace");
	for (i = 0; i < nratios; i++)
		printf("| %-44s | %7.3f | %9.3f |\n", ratios[i].label, ratios[i].p, ratios[i].win);
}
