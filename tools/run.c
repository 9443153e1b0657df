/*
 * run.c - one run of etldump over its inputs: a reader with the manifests
 * and inputs, the filters, decoding, the writer or the summary, damage
 * reports on stderr and progress on a terminal.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "etldump.h"
#include "out.h"
#include "outfiles.h"
#include "summary.h"
#include "writers/writer.h"

_Thread_local int decode_errors; /* per thread: workers add theirs up */

/* A payload that contradicts its schema: reported like damage, printing goes on. */
static void report_decode(const struct etl_reader *r, const struct options *o)
{
	const struct etl_error *e = etl_reader_error(r);
	char nb[SHOWN_MAX];
	int ti;

	decode_errors++;
	if (!e || o->quiet)
		return;
	ti = etl_error_trace_index(e);
	diag_printf("%s: %s: offset 0x%llx: %s\n", progname,
		    ti >= 0 && etl_reader_trace_info(r, ti) ? shown(etl_trace_info_name(etl_reader_trace_info(r, ti)), nb) : "?",
		    (unsigned long long)etl_error_offset(e), etl_error_message(e));
}

const char *shown(const char *name, char buf[SHOWN_MAX])
{
	return etl_text_escape(name ? name : "?", buf, SHOWN_MAX);
}

void report(const struct etl_reader *r, const char *fallback_name, const struct options *o)
{
	char nb[SHOWN_MAX], off[40], buf[40];
	const struct etl_error *e = etl_reader_error(r);
	int ti;
	const char *name = fallback_name;

	if (!e || o->quiet)
		return;
	ti = etl_error_trace_index(e);
	if (ti >= 0 && etl_reader_trace_info(r, ti))
		name = etl_trace_info_name(etl_reader_trace_info(r, ti));
	off[0] = buf[0] = '\0';
	if (etl_error_offset(e) != UINT64_MAX)
		snprintf(off, sizeof(off), "offset 0x%" PRIx64 ": ", etl_error_offset(e));
	if (etl_error_buffer_index(e) >= 0)
		snprintf(buf, sizeof(buf), "buffer %" PRId64 ": ", etl_error_buffer_index(e));
	diag_printf("%s: %s: %s%s%s\n", progname, name ? shown(name, nb) : "?", off, buf, etl_error_message(e));
}

int damage_ends(const struct etl_reader *r, const struct options *o, int st, int *exit_code)
{
	const struct etl_error *e = etl_reader_error(r);

	report(r, NULL, o);
	*exit_code = worse(*exit_code, status_exit(st));
	return !e || etl_error_is_fatal(e);
}

int status_exit(int st)
{
	switch (st) {
	case ETL_E_IO: return EXIT_IO;
	case ETL_E_NOMEM: return EXIT_NOMEM;
	default: return EXIT_DAMAGED;
	}
}

int worse(int a, int b)
{
	/* Order of severity: ok < damaged < io < nomem. */
	static const int rank[] = { [EXIT_OK] = 0, [EXIT_DAMAGED] = 1, [EXIT_USAGE] = 2,
				    [EXIT_IO] = 3, [EXIT_NOMEM] = 4 };
	return rank[a] >= rank[b] ? a : b;
}

/* Progress on a terminal: a line on stderr, at most five times a second - the share of the
 * inputs' bytes read (over all streams: it only grows), the events and the time left. */
void progress(const struct etl_reader *r, uint64_t n, int done)
{
	static struct timespec last, start;
	static double shown_pct;
	struct timespec now;
	uint64_t total = 0, read;
	char nb[SHOWN_MAX], eta[32] = "";
	double pct, elapsed;
	int i;

	if (done) {
		if (last.tv_sec || last.tv_nsec)
			fputs("\r\033[K", stderr);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!start.tv_sec && !start.tv_nsec)
		start = now;
	/* in 64 bits: a 32-bit long holds seconds times 10^9 only for two seconds */
	if ((int64_t)(now.tv_sec - last.tv_sec) * 1000000000 + (now.tv_nsec - last.tv_nsec) < 200000000)
		return;
	last = now;
	for (i = 0; i < etl_reader_trace_count(r); i++)
		total += etl_trace_info_file_size(etl_reader_trace_info(r, i));
	read = etl_reader_count(r, ETL_COUNT_BYTES_READ);
	pct = total ? 100.0 * (double)(read < total ? read : total) / (double)total : 0;
	if (pct < shown_pct)
		pct = shown_pct; /* never backwards */
	shown_pct = pct;
	elapsed = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
	if (pct > 1 && elapsed >= 1) {
		double left = elapsed * (100 - pct) / pct;
		snprintf(eta, sizeof(eta), "  %d:%02d left", (int)(left / 60), (int)left % 60);
	}
	if (etl_reader_trace_count(r) == 1)
		shown(etl_trace_info_name(etl_reader_trace_info(r, 0)), nb);
	else
		snprintf(nb, sizeof(nb), "%d inputs", etl_reader_trace_count(r));
	fprintf(stderr, "\r\033[K%s: %3.0f%%  %" PRIu64 " events%s", nb, pct, n, eta);
}

/* Calls fn for each path of the environment variable env (separated by ':'), then of list. */
static void each_path(const char *env, const char *const *list, size_t n, void (*fn)(const char *path, void *ctx),
		      void *ctx)
{
	const char *v = getenv(env);
	char *copy = v && *v ? strdup(v) : NULL, *p, *save = NULL;
	size_t k;

	for (p = copy ? strtok_r(copy, ":", &save) : NULL; p; p = strtok_r(NULL, ":", &save))
		fn(p, ctx);
	free(copy);
	for (k = 0; k < n; k++)
		fn(list[k], ctx);
}

/* One problem line for a manifest or TMF path: one that could not be read (skipped 0), or how
 * many problems one had, with the first. */
static void path_problem(const char *path, unsigned skipped, const struct etl_error *e, const struct options *o)
{
	char nb[SHOWN_MAX];

	if (o->quiet || !e)
		return;
	if (skipped)
		fprintf(stderr, "%s: %s: %u problems, the first: %s\n", progname, shown(path, nb), skipped,
			etl_error_message(e));
	else
		fprintf(stderr, "%s: %s: %s\n", progname, shown(path, nb), etl_error_message(e));
}

struct manifest_ctx {
	struct etl_manifests *m;
	const struct options *o;
	int *exit_code;
};

static void add_manifest(const char *path, void *ctx)
{
	struct manifest_ctx *c = ctx;
	unsigned before = etl_manifests_warnings(c->m);

	if (etl_manifests_add_path(c->m, path) != ETL_OK) {
		path_problem(path, 0, etl_manifests_error(c->m), c->o);
		*c->exit_code = worse(*c->exit_code, EXIT_DAMAGED);
	} else if (etl_manifests_warnings(c->m) != before) {
		path_problem(path, etl_manifests_warnings(c->m) - before, etl_manifests_error(c->m), c->o);
	}
}

/* The manifests: the environment's search path first, then --manifest (later ones win). */
struct etl_manifests *load_manifests(const struct options *o, int *exit_code)
{
	const char *env = getenv("ETLDUMP_MANIFEST_PATH");
	struct manifest_ctx c;

	if ((!env || !*env) && o->nmanifests == 0)
		return NULL;
	if (!(c.m = etl_manifests_new())) {
		*exit_code = worse(*exit_code, EXIT_NOMEM);
		return NULL;
	}
	c.o = o;
	c.exit_code = exit_code;
	each_path("ETLDUMP_MANIFEST_PATH", o->manifests, o->nmanifests, add_manifest, &c);
	return c.m;
}

struct tmf_ctx {
	struct etl_reader *r;
	const struct options *o;
	int quiet;
	int *exit_code;
};

/* A TMF file or folder for r, its problems reported unless quiet. */
static void add_tmf(const char *path, void *ctx)
{
	struct tmf_ctx *c = ctx;
	unsigned before = etl_reader_tmf_warnings(c->r);
	int st = etl_reader_add_tmf_path(c->r, path);

	if (st != ETL_OK)
		*c->exit_code = worse(*c->exit_code, st == ETL_E_NOMEM ? EXIT_NOMEM : EXIT_DAMAGED);
	if ((st != ETL_OK || etl_reader_tmf_warnings(c->r) != before) && !c->quiet)
		path_problem(path, st == ETL_OK ? etl_reader_tmf_warnings(c->r) - before : 0, etl_reader_error(c->r),
			     c->o);
}

void configure_reader(struct etl_reader *r, const struct options *o, int quiet, int *exit_code)
{
	struct tmf_ctx tmf = { r, o, quiet, exit_code };

	if (!o->writer->stacks || o->info || o->stats || o->providers || o->processes)
		etl_reader_set_option(r, ETL_OPTION_STACKS, 0); /* no output shows them: no stack index */
	if (o->derive)
		etl_reader_set_option(r, ETL_OPTION_DERIVE, 1);
	if (o->manifest_set)
		etl_reader_use_manifests(r, o->manifest_set); /* parsed once, shared (load_manifests) */
	each_path("ETLDUMP_TMF_PATH", o->tmf, o->ntmf, add_tmf, &tmf); /* TMF files: for each reader */
}

int setup_reader(struct etl_reader *r, char **files, int nfiles, const struct options *o, int quiet,
		 int *exit_code)
{
	int opened = 0, i;

	configure_reader(r, o, quiet, exit_code);
	for (i = 0; i < nfiles; i++) {
		int st;
		if (strcmp(files[i], "-") == 0)
			st = etl_reader_open_fd(r, 0, "(stdin)");
		else
			st = etl_reader_open_path(r, files[i]);
		if (st != ETL_OK) {
			struct options loud = *o;
			if (quiet)
				continue;
			loud.quiet = 0;
			report(r, files[i], &loud);
			/* nothing of it could be read as a trace: not partial damage */
			*exit_code = worse(*exit_code, st == ETL_E_NOMEM ? EXIT_NOMEM : EXIT_IO);
			continue;
		}
		opened++;
	}
	return opened;
}


int handle_event(struct etl_reader *r, const struct etl_event *ev, const struct options *o, struct summary *sm)
{
	const struct etl_decoded *d = NULL;
	int dst = ETL_OK;

	if (!filter_header(&o->filter, r, ev))
		return 0;
	/* decode for the output, the summaries and name filters; --processes alone needs
	 * only the reader's own tables */
	if (filter_needs_decoding(&o->filter) || o->stats || o->providers || (!o->raw && !o->processes)) {
		dst = etl_reader_decode(r, ev, &d);
		if (dst != ETL_OK)
			report_decode(r, o);
	}
	if (!filter_decoded(&o->filter, ev, d))
		return 0;
	if (o->stats || o->providers)
		summary_add(sm, ev, d, dst);
	else if (o->processes)
		; /* listed after the last event */
	else
		o->writer->event(r, o, ev, o->raw ? NULL : d);
	return 1;
}

/* Reads the events of the opened inputs and hands each to the writer (or the summary). */
static int read_events(struct etl_reader *r, const struct options *o, struct summary *sm)
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
			if (damage_ends(r, o, st, &exit_code))
				break;
			continue;
		}
		if (!handle_event(r, ev, o, sm))
			continue;
		if (out_buf.failed)
			break;
		++n;
		if (show_progress && (n & 1023) == 0)
			progress(r, n, 0);
		if (o->max_events && n >= o->max_events)
			break;
	}
	if (show_progress)
		progress(r, n, 1);
	return exit_code;
}

int run_inputs(char **files, int nfiles, const struct options *o)
{
	struct etl_reader *r = etl_reader_new();
	int exit_code = EXIT_OK, opened, i;
	struct summary sm;
	int summarise = o->stats || o->providers || o->processes;

	memset(&sm, 0, sizeof(sm));
	decode_errors = 0;
	if (!r) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_NOMEM;
	}
	if (etl_reader_set_order(r, o->order) != ETL_OK) {
		etl_reader_free(r);
		return EXIT_USAGE;
	}
	opened = setup_reader(r, files, nfiles, o, 0, &exit_code);
	if (opened > 0 && o->out_path && output_open(o->out_path, o->out_exclusive, o->force, o->inputs) != 0) {
		etl_reader_free(r);
		return worse(exit_code, EXIT_IO);
	}
	if (opened == 0 || o->info) {
		for (i = 0; o->info && i < etl_reader_trace_count(r); i++)
			o->writer->info(etl_reader_trace_info(r, i), i);
		etl_reader_free(r);
		return exit_code;
	}
	if (!summarise && o->writer->begin)
		o->writer->begin(r, o);
	if (threads_usable(o, r, files, nfiles) && opened == nfiles) {
		/* this reader iterates; the workers decode and format (or count) copies of its events
		 * with readers of their own on the same inputs (pool.c) */
		exit_code = worse(exit_code, run_threaded(r, o, o->threads, &sm));
		if (summarise)
			o->writer->summary(&sm, r, o);
		summary_free(&sm);
		etl_reader_free(r);
		if (!summarise && o->writer->end)
			o->writer->end(NULL, o);
		return decode_errors ? worse(exit_code, EXIT_DAMAGED) : exit_code;
	}
	exit_code = worse(exit_code, read_events(r, o, &sm));
	if (summarise)
		o->writer->summary(&sm, r, o);
	else if (o->writer->end)
		o->writer->end(r, o);
	summary_free(&sm);
	etl_reader_free(r);
	return decode_errors ? worse(exit_code, EXIT_DAMAGED) : exit_code;
}
