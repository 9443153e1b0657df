/*
 * poolshare.c - what the two ways of --threads (pool.c: batches, slicepool.c: time slices)
 * share: whether threads apply to a run, the workers' readers, malloc's settings for them, and
 * the threads' CPU time and wall-clock phases reported for the benchmark (ETLDUMP_CPU_REPORT).
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "etldump.h"
#include "out.h"
#include "pool.h"
#include "setup.h"
#include "writers/writer.h"

void pool_output_failed(int err)
{
	out_buf.failed = 1;
	out_buf.err = err;
	errno = err;
}

/* The calling thread's CPU seconds so far, or -1 where the system cannot say. */
double pool_thread_cpu(void)
{
#ifdef CLOCK_THREAD_CPUTIME_ID
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
#endif
	return -1;
}

/* With ETLDUMP_CPU_REPORT in the environment: each thread's CPU seconds on standard error, for
 * the benchmark's serial share (etlbench --scaling; docs/PERFORMANCE.md).  The main thread's
 * includes the plan's buffers it loaded beside the helpers (work they could have taken: the
 * benchmark's instruction counts leave it out, run_first). */
void pool_report_cpu(double main_cpu, const double *workers, unsigned n)
{
	unsigned k;

	if (!getenv("ETLDUMP_CPU_REPORT"))
		return;
	fprintf(stderr, "%s: cpu seconds: main %.6f workers", progname, main_cpu);
	for (k = 0; k < n; k++)
		fprintf(stderr, " %.6f", workers[k]);
	fputc('\n', stderr);
}

double pool_wall_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return -1;
}

void pool_report_wall(double plan_at, double start_at, const double *ends, unsigned n)
{
	unsigned k;

	if (!getenv("ETLDUMP_CPU_REPORT"))
		return;
	fprintf(stderr, "%s: wall clock: plan ", progname);
	if (plan_at >= 0)
		fprintf(stderr, "%.6f", plan_at);
	else
		fputc('-', stderr);
	fprintf(stderr, " workers %.6f ends", start_at);
	for (k = 0; k < n; k++)
		fprintf(stderr, " %.6f", ends[k]);
	fputc('\n', stderr);
}

struct etl_reader *pool_reader_new(const struct options *o)
{
	struct etl_reader *r = etl_reader_new();
	int ignored = EXIT_OK;

	if (r)
		setup_configure(r, o, 1, &ignored);
	return r;
}

int pool_reader_open(struct etl_reader *r, const struct etl_reader *primary)
{
	int t;

	for (t = 0; t < etl_reader_trace_count(primary); t++)
		if (etl_reader_open_same(r, primary, t) != ETL_OK)
			return -1;
	return 0;
}

/* The log file mode bit of a trace whose buffers are compressed (EVENT_TRACE_COMPRESSED_MODE) */
#define LOG_MODE_COMPRESSED 0x04000000u

/* Whether some input's buffers are compressed (its log file mode says so). */
static int any_compressed(const struct etl_reader *r)
{
	int t;

	for (t = 0; t < etl_reader_trace_count(r); t++)
		if (etl_trace_info_log_file_mode(etl_reader_trace_info(r, t)) & LOG_MODE_COMPRESSED)
			return 1;
	return 0;
}

void pool_plan_memory(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	(void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

void pool_keep_freed_memory(void)
{
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
	(void)mallopt(M_MMAP_THRESHOLD, 32 << 20); /* (refused where above glibc's most: 32-bit) */
	(void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/* Whether --threads applies: event output in a stateless format (not chrome, whose
 * pairs and names span events), or --stats and --providers (not --processes alone, which
 * decodes nothing), no --count, no standard input (the workers open each input again). */
int pool_usable(const struct options *o, const struct etl_reader *r, char **files, int nfiles)
{
	int i, counted = o->stats || o->providers;

	if (o->threads < 2 || o->info || (!counted && (o->processes || !o->writer->stateless)) ||
	    o->csv_columns || o->max_events)
		return 0;
	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") == 0)
			return 0;
	if (o->threads_auto) {
		/* starting the workers and their readers costs a few ms: not worth it below a few MB
		 * (1.5 MB: slower; 7 MB: 1.45-1.7 times faster with two) */
		uint64_t total = 0;
		struct stat sb;
		for (i = 0; i < nfiles; i++)
			if (stat(files[i], &sb) == 0)
				total += (uint64_t)sb.st_size;
		if (total < ((uint64_t)4 << 20))
			return 0;
		/* counting leaves the main thread, which reads and copies every event, the bound: the
		 * workers pay off only where decompression is shared too (docs/PERFORMANCE.md) */
		if (counted && !any_compressed(r))
			return 0;
	}
	return 1;
}
