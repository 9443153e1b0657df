/*
 * check_windows.c - time windows over damaged traces (ROBUSTNESS.md, "Time
 * windows"): one timestamp moved far ahead or far back must not cut the
 * window short for the other events, the slices of a trace must together
 * deliver every event of a whole reading once, and a slice that delivers an
 * event outside its times says so.  Over the writer's traces and, where
 * present, a corpus trace (Tx_HTTP_Server.etl, the trace the damage was
 * found in).
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/windiff.h"
#include "internal.h"
#include "io/source.h"
#include "scenario.h"
#include "util/cursor.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

struct rec {
	uint64_t ts_at; /* file offset of the record's timestamp */
	uint64_t filetime;
};

/* The records of an uncompressed trace whose timestamp lies 16 bytes into them (every header
 * kind but the compact ones), in delivery order; how many. */
static size_t records(const uint8_t *d, size_t len, struct rec **out)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	size_t n = 0, cap = 0;
	int st;

	*out = NULL;
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "intact"), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		uint64_t at = etl_event_file_offset(ev) + 16;
		ck_assert_int_eq(st, ETL_OK);
		if (at + 8 > len || etl_le64(d + at) != etl_event_timestamp_raw(ev))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			*out = realloc(*out, cap * sizeof(**out));
			ck_assert_ptr_nonnull(*out);
		}
		(*out)[n].ts_at = at;
		(*out)[n].filetime = etl_event_filetime(ev);
		n++;
	}
	etl_reader_free(r);
	ck_assert_uint_gt(n, 100);
	return n;
}

static uint8_t *flipped(const uint8_t *d, size_t len, uint64_t at, unsigned bit)
{
	uint8_t *m = malloc(len);

	ck_assert_ptr_nonnull(m);
	memcpy(m, d, len);
	m[at + bit / 8] ^= (uint8_t)(1u << (bit % 8));
	return m;
}

/* The events of d in [from, to): read through a window of the reader (windowed: every event it
 * gives must be in it, *errors counts its non-fatal errors), or read whole and counted. */
static size_t count_in(const uint8_t *d, size_t len, uint64_t from, uint64_t to, int windowed, size_t *errors)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	size_t n = 0, ignored;
	int st;

	if (!errors)
		errors = &ignored;
	*errors = 0;
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "damaged"), ETL_OK);
	if (windowed && (from || to))
		ck_assert_int_eq(etl_reader_set_time_window(r, from, to), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		int in;
		if (st != ETL_OK) {
			ck_assert(!etl_error_is_fatal(etl_reader_error(r)));
			++*errors;
			continue;
		}
		in = etl_event_filetime(ev) >= from && (!to || etl_event_filetime(ev) < to);
		ck_assert_msg(in || !windowed, "an event outside [%llu, %llu) delivered", (unsigned long long)from,
			      (unsigned long long)to);
		n += (size_t)in;
	}
	etl_reader_free(r);
	return n;
}

static uint8_t *slurp_corpus(const char *name, size_t *len)
{
	char path[4096];
	struct etl_diag d;
	uint8_t *data;

	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, name);
	return etl__read_file(path, 1u << 30, "trace", &data, len, &d) == ETL_OK ? data : NULL;
}

/* Issue 38's case: bit 40 of the 1,000th event's timestamp in Tx_HTTP_Server.etl puts it hours
 * ahead.  Each slice, and a window with an end only, gives what a whole reading gives in its
 * times: nothing stops at the damaged event, and nothing is said (no event is out of place). */
START_TEST(far_future_timestamp_keeps_windows_exact)
{
	size_t len, n, i, k, errors, sum = 0, whole;
	uint8_t *d = slurp_corpus("Tx_HTTP_Server.etl", &len), *m;
	struct rec *recs;
	uint64_t bounds[5];
	struct etl_reader *r;

	if (!d)
		return;
	n = records(d, len, &recs);
	m = flipped(d, len, recs[n / 2].ts_at, 40);
	whole = count_in(m, len, 0, 0, 0, NULL);
	ck_assert_uint_eq(whole, 2042);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, m, len, "damaged"), ETL_OK);
	k = etl_reader_time_slices(r, 0, 4, bounds);
	etl_reader_free(r);
	ck_assert_uint_eq(k, 4);
	for (i = 0; i < k; i++) {
		size_t got = count_in(m, len, bounds[i], bounds[i + 1], 1, &errors);
		ck_assert_uint_eq(got, count_in(m, len, bounds[i], bounds[i + 1], 0, NULL));
		ck_assert_uint_eq(errors, 0);
		sum += got;
	}
	ck_assert_uint_eq(sum, whole);
	/* an end only (Python's open(until=...)): the 1,125 against 1,528 */
	ck_assert_uint_eq(count_in(m, len, 0, bounds[3], 1, &errors), count_in(m, len, 0, bounds[3], 0, NULL));
	free(recs);
	free(m);
	free(d);
}
END_TEST

/* Single bits flipped in timestamps across a trace, high and low: the slices add up to the
 * whole reading, each event once, and a slice that delivers one outside its times said so. */
static void flips_add_up(const uint8_t *d, size_t len, size_t step, size_t *late)
{
	static const unsigned bits[] = { 20, 27, 34, 40, 47, 55, 62 };
	struct rec *recs;
	size_t n = records(d, len, &recs), i, b;
	struct windiff w;

	for (i = 3; i < n; i += step)
		for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
			uint8_t *m = flipped(d, len, recs[i].ts_at, bits[b]);
			int rc = windiff_run(m, len, 2 + (i + b) % 5, &w);
			ck_assert_msg(rc == 0, "record %zu, bit %u: %s", i, bits[b], w.why);
			ck_assert(!w.skipped);
			ck_assert_uint_eq(w.whole, w.parts);
			*late += w.late;
			free(m);
		}
	free(recs);
}

START_TEST(writer_trace_slices_add_up)
{
	struct etlw_opts o;
	uint8_t *d;
	size_t len, late = 0;

	etlw_default_opts(&o);
	o.ncpu = 4;
	o.buffer_size = 4096;
	ck_assert_int_eq(scen_build_mixed(&o, 3000, &d, &len), 0);
	flips_add_up(d, len, 97, &late);
	ck_assert_uint_gt(late, 0); /* some flips moved an event past a slice's read-ahead */
	free(d);
}
END_TEST

START_TEST(corpus_trace_slices_add_up)
{
	size_t len, late = 0;
	uint8_t *d = slurp_corpus("Tx_HTTP_Server.etl", &len);

	if (!d)
		return;
	flips_add_up(d, len, 131, &late);
	ck_assert_uint_gt(late, 0);
	free(d);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("windows");
	TCase *t = tcase_create("windows"), *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_test(t, far_future_timestamp_keeps_windows_exact);
	tcase_add_test(t, writer_trace_slices_add_up);
	tcase_add_test(c, corpus_trace_slices_add_up);
	tcase_set_timeout(t, 600);
	tcase_set_timeout(c, 600);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/etl", corpus_dir);
	return run_part(s, c, probe);
}
