/*
 * report.c - what etldump says on stderr: names escaped, the reader's errors,
 * damage and decoding problems (counted per thread: --threads workers add
 * theirs up), and progress on a terminal.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "diag.h"
#include "etldump.h"
#include "report.h"

static _Thread_local unsigned decode_errors; /* per thread: workers add theirs up */

unsigned report_decode_errors(void)
{
	return decode_errors;
}

void report_decode_errors_reset(void)
{
	decode_errors = 0;
}

void report_decode_errors_add(unsigned n)
{
	decode_errors += n;
}

/* A payload that contradicts its schema: reported like damage, printing goes on. */
void report_decode(const struct etl_reader *r, const struct options *o)
{
	const struct etl_error *e = etl_reader_error(r);
	char nb[REPORT_SHOWN_MAX];
	int ti;

	decode_errors++;
	if (!e || o->quiet)
		return;
	ti = etl_error_trace_index(e);
	diag_printf("%s: %s: offset 0x%llx: %s\n", progname,
		    ti >= 0 && etl_reader_trace_info(r, ti) ? report_shown(etl_trace_info_name(etl_reader_trace_info(r, ti)), nb) : "?",
		    (unsigned long long)etl_error_offset(e), etl_error_message(e));
}

const char *report_shown(const char *name, char buf[REPORT_SHOWN_MAX])
{
	return etl_text_escape(name ? name : "?", buf, REPORT_SHOWN_MAX);
}

void report_error(const struct etl_reader *r, const char *fallback_name, const struct options *o)
{
	char nb[REPORT_SHOWN_MAX], off[40], buf[40];
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
	diag_printf("%s: %s: %s%s%s\n", progname, name ? report_shown(name, nb) : "?", off, buf, etl_error_message(e));
}

int report_damage(const struct etl_reader *r, const struct options *o, int st, int *exit_code)
{
	const struct etl_error *e = etl_reader_error(r);

	report_error(r, NULL, o);
	*exit_code = exit_worse(*exit_code, exit_of_status(st));
	return !e || etl_error_is_fatal(e);
}

/* Progress on a terminal: a line on stderr, at most five times a second - the share of the
 * inputs' bytes read (over all streams: it only grows), the events and the time left. */
void report_progress(const struct etl_reader *r, uint64_t n, int done)
{
	report_progress_read(r, etl_reader_count(r, ETL_COUNT_BYTES_READ), n, done);
}

void report_progress_read(const struct etl_reader *r, uint64_t read, uint64_t n, int done)
{
	static struct timespec last, start;
	static double shown_pct;
	struct timespec now;
	uint64_t total = 0;
	char nb[REPORT_SHOWN_MAX], eta[32] = "";
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
		report_shown(etl_trace_info_name(etl_reader_trace_info(r, 0)), nb);
	else
		snprintf(nb, sizeof(nb), "%d inputs", etl_reader_trace_count(r));
	fprintf(stderr, "\r\033[K%s: %3.0f%%  %" PRIu64 " events%s", nb, pct, n, eta);
}

