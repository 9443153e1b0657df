/*
 * run.c - one run of etldump over its inputs: a reader set up with the
 * options, its events handled one by one (or by the --threads workers of
 * pool.c), then the writer's end or the summary.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etldump.h"
#include "handle.h"
#include "out.h"
#include "outfiles.h"
#include "pool.h"
#include "report.h"
#include "setup.h"
#include "summary.h"
#include "tabout.h"
#include "writers/writer.h"

/* Reads the events of the opened inputs and hands each to the writer (or the summary). */
static int read_events(struct etl_reader *r, const struct options *o, struct summary *sm, void *ws)
{
	int show_progress = !o->quiet && isatty(2), exit_code = EXIT_OK;
	const struct etl_event *ev;
	uint64_t n = 0;

	for (;;) {
		int st = etl_reader_next(r, &ev);
		if (st == ETL_END)
			break;
		if (st != ETL_OK) {
			sm->damage++;
			if (report_damage(r, o, st, &exit_code))
				break;
			continue;
		}
		if (!handle_event(r, ev, o, sm, ws))
			continue;
		if (out_buf.failed)
			break;
		++n;
		if (show_progress && (n & 1023) == 0)
			report_progress(r, n, 0);
		if (o->max_events && n >= o->max_events)
			break;
	}
	if (show_progress)
		report_progress(r, n, 1);
	return exit_code;
}

/* What the filter options did not do: the terms the analyses leave out, and the patterns that
 * matched nothing (with the closest names the inputs had). */
static void report_selection(const struct options *o)
{
	struct etl_filter *f = o->sel.filter;
	const char *field, *pattern, *near[3];
	size_t i, n, k;

	if (!f || o->quiet)
		return;
	if ((o->table || o->report) && (etl_filter_parts(f) & ETL_FILTER_OTHER))
		fprintf(stderr, "%s: --%s applies the time window and the processes selected; the other filters "
				"select events, not rows (left out)\n",
			progname, o->table ? "table" : "report");
	for (i = 0; (pattern = etl_filter_unmatched(f, i, &field)) != NULL; i++) {
		if ((o->table || o->report) && strcmp(field, "process") != 0)
			continue; /* (not matched against events there) */
		fprintf(stderr, "%s: no %s matched '%s'", progname,
			strcmp(field, "name") == 0 ? "event name" : field, pattern);
		n = etl_filter_closest(f, i, near, 3);
		for (k = 0; k < n; k++)
			fprintf(stderr, "%s'%s'", k ? ", " : " (closest: ", near[k]);
		fprintf(stderr, "%s\n", n ? ")" : "");
	}
}

/* The events of the opened inputs, through the writer (its state ws) or into the summary, by this
 * thread or by --threads workers (threaded); the exit status. */
static int read_and_write(struct etl_reader *r, int threaded, const struct options *o, void *ws)
{
	int summarise = o->stats || o->providers || o->processes, exit_code = EXIT_OK;
	struct summary sm;

	memset(&sm, 0, sizeof(sm));
	if (!summarise && o->writer->begin)
		o->writer->begin(ws, r, o);
	if (threaded) {
		/* this reader iterates; the workers decode and format (or count) copies of its events
		 * with readers of their own on the same inputs (pool.c) */
		pool_keep_freed_memory();
		if (!slicepool_run(r, o, o->threads, &exit_code)) /* time slices, where they apply */
			exit_code = pool_run(r, o, o->threads, &sm);
		if (summarise)
			o->writer->summary(&sm, r, o);
		summary_free(&sm);
		if (!summarise && o->writer->end)
			o->writer->end(ws, NULL, o);
		return exit_code;
	}
	exit_code = read_events(r, o, &sm, ws);
	if (summarise)
		o->writer->summary(&sm, r, o);
	else if (o->writer->end)
		o->writer->end(ws, r, o);
	summary_free(&sm);
	return exit_code;
}

int run_inputs(char **files, int nfiles, const struct options *o)
{
	struct etl_reader *r = etl_reader_new();
	int exit_code = EXIT_OK, opened, i;
	void *ws = o->writer->state_size ? calloc(1, o->writer->state_size) : NULL;

	report_decode_errors_reset();
	if (!r || (o->writer->state_size && !ws)) {
		fprintf(stderr, "%s: out of memory\n", progname);
		etl_reader_free(r);
		free(ws);
		return EXIT_NOMEM;
	}
	if (etl_reader_set_order(r, o->order) != ETL_OK) {
		etl_reader_free(r);
		free(ws);
		return EXIT_USAGE;
	}
	opened = setup_open(r, files, nfiles, o, 0, &exit_code);
	if (opened > 0 && o->out_path && output_open(o->out_path, o->out_exclusive, o->force, o->inputs) != 0) {
		etl_reader_free(r);
		free(ws);
		return exit_worse(exit_code, EXIT_IO);
	}
	if (opened == 0 || o->info) {
		for (i = 0; o->info && i < etl_reader_trace_count(r); i++)
			o->writer->info(etl_reader_trace_info(r, i), i);
		etl_reader_free(r);
		free(ws);
		return exit_code;
	}
	if (o->table || o->report) /* the analysis tables: one pass, this thread */
		exit_code = exit_worse(exit_code, o->table ? tables_run(r, o)
						  : o->report == REPORT_HTML ? overview_html_run(r, o) : overview_run(r, o));
	else { /* the workers open every input again: all of them must have opened */
		int threaded = opened == nfiles && pool_usable(o, r, files, nfiles);
		/* one reader: it skips what the filter rules out (workers follow theirs: it may not) */
		if (!threaded && o->sel.filter && etl_reader_set_filter(r, o->sel.filter) != ETL_OK) {
			report_error(r, NULL, o);
			exit_code = exit_worse(exit_code, EXIT_USAGE);
		}
		exit_code = exit_worse(exit_code, read_and_write(r, threaded, o, ws));
	}
	report_selection(o);
	exit_code = exit_worse(exit_code, setup_report_symbols(r, o));
	etl_reader_free(r);
	free(ws);
	return report_decode_errors() ? exit_worse(exit_code, EXIT_DAMAGED) : exit_code;
}
