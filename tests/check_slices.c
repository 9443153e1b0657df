/*
 * check_slices.c - time slices that start where they start (etl_reader_plan_slices): each slice
 * read with its state delivers what a reader with that slice's time window delivers - events,
 * times, decodings, process names, stack frames, errors, in the same order - over traces whose
 * processes, threads and images come and go (pids used again), compressed ones, damaged ones,
 * and the corpus; the state skips buffers, is checked as untrusted bytes, and refuses another
 * file.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/windiff.h"
#include "internal.h"
#include "util/crc32.h"
#include "io/source.h"
#include "reader/reader.h"
#include "slices/slices.h"
#include "scenario.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

/* Processes that start, load images, name threads and stop over the whole trace - pids used
 * again - between samples and context switches on four CPUs, in small buffers: a slice's past
 * holds state it must learn from its state's records. */
static void build_lifecycle(int compress, uint8_t **out, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	unsigned i;
	char name[64];

	etlw_default_opts(&o);
	o.ncpu = 4;
	o.buffer_size = 4096;
	o.compress = compress;
	w = etlw_new(&o);
	ck_assert_ptr_nonnull(w);
	for (i = 0; i < 400; i++) {
		uint64_t ts = o.start_ts + 1000 + (uint64_t)i * 5000;
		uint32_t pid = 100 + i % 7, tid = 1000 + i;
		unsigned cpu = i % 4, k;
		snprintf(name, sizeof(name), "\\Device\\HarddiskVolume2\\p%u-%u.exe", pid, i / 7);
		ck_assert_int_eq(scen_process(w, &o, cpu, i % 9 == 0 ? 3 : 1, ts, pid, 4, 0, name + 24, name), 0);
		ck_assert_int_eq(scen_thread(w, &o, cpu, 1, ts + 10, pid, tid), 0);
		ck_assert_int_eq(scen_image(w, &o, cpu, 10, ts + 20, pid, 0x7ff600000000ULL + i * 0x10000ULL, 0x8000,
					    name),
				 0);
		snprintf(name, sizeof(name), "worker %u", i);
		ck_assert_int_eq(scen_setname(w, &o, cpu, ts + 30, pid, tid, name), 0);
		for (k = 0; k < 12; k++) {
			ck_assert_int_eq(scen_sample(w, &o, (cpu + k) % 4, ts + 40 + k * 300,
						     0x7ff600000100ULL + i * 0x10000ULL + k, tid), 0);
			ck_assert_int_eq(scen_cswitch(w, (cpu + k) % 4, ts + 50 + k * 300, tid, tid - 1, 5), 0);
		}
		if (i % 3 == 0)
			ck_assert_int_eq(scen_thread(w, &o, cpu, 2, ts + 4000, pid, tid), 0);
		if (i % 2 == 0)
			ck_assert_int_eq(scen_process(w, &o, cpu, 2, ts + 4500, pid, 4, (int32_t)i, name, name), 0);
	}
	ck_assert_int_eq(etlw_finish(w, out, len), 0);
	etlw_free(w);
}

/* Each slice of a plan, read with its state, against its time window. */
static void assert_planned(const uint8_t *d, size_t len, size_t n, int stacks, const char *what)
{
	struct windiff w;
	int rc = windiff_planned(d, len, n, stacks, &w);

	ck_assert_msg(rc == 0, "%s (%zu slices, stacks %d): %s", what, n, stacks, w.why);
	ck_assert_msg(!w.skipped, "%s: not compared", what);
	ck_assert_uint_eq(w.whole, w.parts);
}

/* Plans made with helper threads and without are the same. */
static void assert_helped(const uint8_t *d, size_t len, size_t n, int stacks, const char *what)
{
	struct windiff w;
	int rc = windiff_helped(d, len, n, stacks, &w);

	ck_assert_msg(rc == 0, "%s (%zu slices, stacks %d): %s", what, n, stacks, rc > 0 ? "no plan" : w.why);
	ck_assert_uint_gt(w.slices, 0);
}

/* Whether a plan of n slices says it is in order. */
static int windiff_in_order_says(const uint8_t *d, size_t len, size_t n)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_slices *p;
	int in_order;

	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "plan"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, n);
	ck_assert_ptr_nonnull(p);
	in_order = etl_slices_in_order(p);
	etl_slices_free(p);
	etl_reader_free(r);
	return in_order;
}

/* A plan in order (etl_slices_in_order): its slices one after another give a whole reading. */
static void assert_in_order(const uint8_t *d, size_t len, size_t n, int stacks, const char *what)
{
	struct windiff w;
	int rc = windiff_in_order(d, len, n, stacks, &w);

	ck_assert_msg(rc == 0, "%s (%zu slices, stacks %d): %s", what, n, stacks,
		      rc > 0 ? "the plan is not in order" : w.why);
	ck_assert_uint_eq(w.whole, w.parts);
	ck_assert_uint_gt(w.whole, 0);
}

/* The bytes of buffers a reader of slice i reads: given its state, or with its time window. */
static uint64_t bytes_read(const uint8_t *d, size_t len, struct etl_slices *p, size_t i, int with_state)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	const void *state;
	size_t slen;
	uint64_t n;
	int st;

	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_STACKS, 0), ETL_OK);
	state = etl_slices_state(p, i, &slen);
	ck_assert_ptr_nonnull(state);
	if (with_state)
		ck_assert_int_eq(etl_reader_set_slice(r, state, slen), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "slice"), ETL_OK);
	if (!with_state)
		ck_assert_int_eq(etl_reader_set_time_window(r, etl_slices_bound(p, i), etl_slices_bound(p, i + 1)), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END)
		ck_assert_int_eq(st, ETL_OK);
	n = etl_reader_count(r, ETL_COUNT_BYTES_READ);
	etl_reader_free(r);
	return n;
}

/* The bytes slice i's state skips: what its time window reads before it. */
static uint64_t skipped_by(const uint8_t *d, size_t len, struct etl_slices *p, size_t i)
{
	uint64_t window = bytes_read(d, len, p, i, 0), state = bytes_read(d, len, p, i, 1);

	ck_assert_uint_le(state, window);
	return window - state;
}

START_TEST(states_give_what_windows_give)
{
	uint8_t *d;
	size_t len, n;

	build_lifecycle(0, &d, &len);
	for (n = 1; n <= 16; n += 5) {
		assert_planned(d, len, n, 0, "lifecycle");
		assert_planned(d, len, n, 1, "lifecycle");
		assert_in_order(d, len, n, n & 1, "lifecycle");
		assert_helped(d, len, n, n & 1, "lifecycle");
	}
	free(d);
	build_lifecycle(1, &d, &len);
	assert_planned(d, len, 7, 1, "lifecycle, XPRESS");
	assert_in_order(d, len, 7, 1, "lifecycle, XPRESS");
	assert_helped(d, len, 7, 1, "lifecycle, XPRESS");
	assert_helped(d, len, 4, 0, "lifecycle, XPRESS");
	free(d);
}
END_TEST

START_TEST(writer_scenarios_give_what_windows_give)
{
	struct etlw_opts o;
	uint8_t *d;
	size_t len;

	etlw_default_opts(&o);
	o.ncpu = 4;
	o.buffer_size = 4096;
	ck_assert_int_eq(scen_build_mixed(&o, 6000, &d, &len), 0);
	assert_planned(d, len, 9, 1, "mixed");
	assert_in_order(d, len, 9, 1, "mixed");
	free(d);
	ck_assert_int_eq(scen_build_stackkeys_lead(&o, 600, 6, &d, &len), 0);
	assert_planned(d, len, 6, 1, "stack keys after stackless samples");
	assert_in_order(d, len, 6, 1, "stack keys after stackless samples");
	free(d);
	/* slices that skip the one stack record, and then give the last sample its stack logged
	 * away from it: the state says the skipped buffers hold stack records */
	ck_assert_int_eq(scen_build_stack_then_quiet(&o, 3000, &d, &len), 0);
	assert_planned(d, len, 6, 1, "a stack record, then none till one logged away");
	assert_in_order(d, len, 6, 1, "a stack record, then none till one logged away");
	free(d);
	ck_assert_int_eq(scen_build_showcase(&o, 0, &d, &len), 0);
	assert_planned(d, len, 4, 1, "showcase");
	free(d);
	ck_assert_int_eq(scen_build_tables(&o, &d, &len), 0);
	assert_planned(d, len, 5, 1, "tables");
	free(d);
}
END_TEST

/* The states skip: a later slice's reader reads fewer bytes than a whole reading, the more so
 * the later it starts; and a slice's state holds the records that describe what is running. */
/* The readers of a compressed trace's slices, opened from the planning reader, read the buffers
 * its plan decompressed (each as often as slices read it: lent, not given) and deliver what a
 * whole reading does; a second plan keeps nothing more; without a budget nothing is kept. */
static uint64_t lent_reading_slices(const uint8_t *d, size_t len, uint64_t budget, size_t *kept)
{
	struct etl_reader *r = etl_reader_new(), *s;
	const struct etl_event *ev;
	struct etl_slices *p, *again;
	uint64_t lent = 0, events = 0, whole = 0;
	const void *state;
	size_t i, slen;
	struct trace *t;

	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, 2), ETL_OK); /* aimed ahead */
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_KEPT_BUFFER_BYTES, budget), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "plan"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 5);
	ck_assert(etl_slices_in_order(p));
	t = r->traces[0];
	*kept = t->planned.n;
	ck_assert_int_eq(atomic_load(&t->planned_ready), *kept > 0);
	again = etl_reader_plan_slices(r, 0, 3);
	ck_assert_ptr_nonnull(again);
	ck_assert_uint_eq(t->planned.n, *kept);
	etl_slices_free(again);
	for (i = 0; i < etl_slices_count(p); i++) {
		s = etl_reader_new();
		state = etl_slices_state(p, i, &slen);
		ck_assert_int_eq(etl_reader_set_slice(s, state, slen), ETL_OK);
		ck_assert_int_eq(etl_reader_open_same(s, r, 0), ETL_OK);
		while (etl_reader_next(s, &ev) == ETL_OK)
			events++;
		lent += s->lent;
		etl_reader_free(s);
	}
	s = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(s, d, len, "whole"), ETL_OK);
	while (etl_reader_next(s, &ev) == ETL_OK)
		whole++;
	ck_assert_uint_eq(s->lent, 0); /* (not opened from the planning reader) */
	etl_reader_free(s);
	ck_assert_uint_eq(events, whole);
	etl_slices_free(p);
	etl_reader_free(r);
	return lent;
}

START_TEST(slices_borrow_what_the_plan_decompressed)
{
	uint8_t *d;
	size_t len, kept;
	uint64_t lent;

	build_lifecycle(1, &d, &len);
	lent = lent_reading_slices(d, len, 32u << 20, &kept);
	ck_assert_uint_gt(kept, 50);
	ck_assert_uint_ge(lent, kept); /* every buffer, some by two slices */
	ck_assert_uint_eq(lent_reading_slices(d, len, 0, &kept), 0);
	ck_assert_uint_eq(kept, 0);
	lent = lent_reading_slices(d, len, 16 * 4096 + 100, &kept); /* room for 16 buffers of 4 KiB */
	ck_assert_uint_eq(kept, 16);
	ck_assert_uint_ge(lent, kept);
	free(d);
	build_lifecycle(0, &d, &len);
	ck_assert_uint_eq(lent_reading_slices(d, len, 32u << 20, &kept), 0); /* nothing to decompress */
	ck_assert_uint_eq(kept, 0);
	free(d);
}
END_TEST

/* Each state's bytes are all written (the padding and the reserved fields too): made again over
 * memory filled with another byte, they are the same; etl_slices_state_size says how many. */
static void assert_states_every_byte_written(struct etl_slices *p)
{
	size_t i, len, again;

	for (i = 0; i < etl_slices_count(p); i++) {
		const void *state = etl_slices_state(p, i, &len);
		uint8_t *copy = malloc(len);
		ck_assert_ptr_nonnull(state);
		ck_assert_uint_eq(etl_slices_state_size(p, i), len);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, state, len);
		memset(p->out, 0xA5, p->out_cap);
		state = etl_slices_state(p, i, &again);
		ck_assert_uint_eq(again, len);
		ck_assert_int_eq(memcmp(copy, state, len), 0);
		free(copy);
	}
}

START_TEST(states_skip_buffers)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_slices *p;
	uint8_t *d;
	size_t len, slen, k;
	uint64_t first, last;
	const void *state;

	build_lifecycle(0, &d, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "plan"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 8);
	ck_assert_ptr_nonnull(p);
	k = etl_slices_count(p);
	ck_assert_uint_eq(k, 8);
	first = skipped_by(d, len, p, 1);
	last = skipped_by(d, len, p, k - 1);
	ck_assert_uint_gt(first, len / 16);
	ck_assert_uint_gt(last, first * 4);
	state = etl_slices_state(p, k - 1, &slen);
	ck_assert_ptr_nonnull(state);
	ck_assert_uint_gt(slen, 96 + 4 * 32 + 100 * 32); /* the describing records of 6/7 of the trace */
	ck_assert_uint_eq(skipped_by(d, len, p, 0), 0);
	state = etl_slices_state(p, 0, &slen);
	ck_assert_ptr_nonnull(state);
	ck_assert_uint_eq(slen, 96 + 8); /* the first slice skips nothing: its header and its sum */
	ck_assert_ptr_null(etl_slices_state(p, k, &slen));
	ck_assert_uint_eq(etl_slices_state_size(p, k), 0);
	ck_assert_uint_eq(etl_slices_state_size(NULL, 0), 0);
	assert_states_every_byte_written(p);
	ck_assert_ptr_null(etl_reader_plan_slices(r, 0, 4097));
	ck_assert_ptr_null(etl_reader_plan_slices(r, 1, 4));
	etl_slices_free(p);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Damage in the trace: the light reading leaves damaged buffers to the slices, and each still
 * gives what its window gives. */
/* Samples on two CPUs whose times rise but for sample `back` on CPU 0, earlier than the one before
 * it: where that falls on a buffer's first record, only the stream's last time shows it. */
static void build_time_back(unsigned back, uint8_t **out, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	unsigned i;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.buffer_size = 4096;
	w = etlw_new(&o);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(scen_process(w, &o, 0, 3, o.start_ts + 10, 100, 4, 0, "p.exe", "\\Device\\p.exe"), 0);
	for (i = 0; i < 600; i++) {
		uint64_t ts = o.start_ts + 1000 + (uint64_t)i * 1000 - (i >= back ? 2500 : 0);
		ck_assert_int_eq(scen_sample(w, &o, i % 2 ? 1 : 0, i % 2 ? ts + 500 : ts, 0x1000 + i, 1000 + i % 5), 0);
	}
	ck_assert_int_eq(etlw_finish(w, out, len), 0);
	etlw_free(w);
}

START_TEST(helpers_plan_as_the_planning_thread)
{
	uint8_t *d;
	size_t len;
	unsigned back, not_in_order = 0;

	for (back = 2; back < 600; back += 2) { /* (some fall on a buffer's first record) */
		build_time_back(back, &d, &len);
		assert_helped(d, len, 3 + back % 5, (back & 2) != 0, "time going back");
		not_in_order += !windiff_in_order_says(d, len, 4);
		free(d);
	}
	ck_assert_uint_eq(not_in_order, 299);
}
END_TEST

START_TEST(damaged_traces_give_what_windows_give)
{
	uint8_t *d, *m;
	size_t len, at, out_of_order = 0;

	build_lifecycle(0, &d, &len);
	m = malloc(len);
	ck_assert_ptr_nonnull(m);
	for (at = 0x2000 + 0x48 + 5; at < len; at += len / 23) {
		struct windiff w;
		int rc;
		memcpy(m, d, len);
		m[at] ^= 0x5A;
		m[at + 1] ^= 0x81;
		assert_planned(m, len, 2 + at % 9, 1, "damaged lifecycle");
		assert_helped(m, len, 2 + at % 9, at & 1, "damaged lifecycle");
		rc = windiff_in_order(m, len, 2 + at % 9, 1, &w);
		ck_assert_msg(rc >= 0, "damaged lifecycle at %zu: %s", at, w.why);
		out_of_order += rc > 0;
	}
	ck_assert_uint_gt(out_of_order, 0); /* damage the light reading sees: not in order */
	ck_assert_int_eq(etl_slices_in_order(NULL), 0);
	free(m);
	free(d);
}
END_TEST

/* Writes the sum of a state's first n bytes after them (what etl_slices_state ends a state
 * with); the state's length. */
static size_t seal(uint8_t *s, size_t n)
{
	etl_put_le32(s + n, etl__crc32(0, s, n));
	etl_put_le32(s + n + 4, 0);
	return n + 8;
}

/* The state is untrusted bytes: every cut and changed byte is refused with an error naming a
 * byte (its checksum), and one changed with its sum made again is read without harm; a state of
 * another file does not open it. */
/* A file of d's size and first bytes, changed past them (in other, grown to len; returned), is
 * refused by a reader given state (the identity was once the first 4 KiB and the size). */
static uint8_t *assert_changed_copy_refused(const uint8_t *d, size_t len, uint8_t *other, const void *state,
					    size_t slen)
{
	struct etl_reader *x = etl_reader_new();

	ck_assert_ptr_nonnull(other = realloc(other, len));
	memcpy(other, d, len);
	other[len / 2] ^= 0x01;
	ck_assert_int_eq(etl_reader_set_slice(x, state, slen), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(x, other, len, "changed"), ETL_E_MISUSE);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(x)), "another file"));
	etl_reader_free(x);
	return other;
}

START_TEST(states_are_checked)
{
	struct etl_reader *r = etl_reader_new(), *x;
	struct etl_slices *p;
	uint8_t *d, *other, *s;
	size_t len, olen, slen, i;
	const void *state;
	const struct etl_event *ev;

	build_lifecycle(0, &d, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "plan"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 4);
	state = etl_slices_state(p, 3, &slen);
	s = malloc(slen);
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < slen; i += 1 + i / 64) {
		x = etl_reader_new();
		if (etl_reader_set_slice(x, state, i) == ETL_OK)
			ck_abort_msg("a state cut at byte %zu was taken", i);
		ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(x)), "at byte"));
		etl_reader_free(x);
		memcpy(s, state, slen);
		s[i] ^= 0xFF;
		x = etl_reader_new();
		/* every changed byte is refused (its checksum; before it, a value in range was taken and
		 * changed what the slice delivered) */
		if (etl_reader_set_slice(x, s, slen) == ETL_OK)
			ck_abort_msg("a state with byte %zu changed was taken", i);
		etl_reader_free(x);
	}
	/* a state whose bytes and sum were both changed is read without harm */
	for (i = 0; i + 8 < slen; i += 1 + i / 64) {
		memcpy(s, state, slen);
		s[i] ^= 0xFF;
		seal(s, slen - 8);
		x = etl_reader_new();
		if (etl_reader_set_slice(x, s, slen) == ETL_OK && etl_reader_open_memory(x, d, len, "flipped") == ETL_OK)
			while (etl_reader_next(x, &ev) != ETL_END && !etl_error_is_fatal(etl_reader_error(x)))
				;
		etl_reader_free(x);
	}
	/* a state that says the trace has only its header buffer: nothing read, nothing harmed */
	memcpy(s, state, 96 + 4 * 32);
	memset(s + 88, 0, 8); /* no records */
	for (i = 56; i < 64; i++)
		s[i] = i == 56; /* one buffer */
	for (i = 80; i < 88; i++)
		s[i] = i == 80; /* the scan from ordinal 1 */
	for (i = 0; i < 4; i++)
		memset(s + 96 + i * 32 + 8, 0xFF, 8); /* no CPU buffer to read */
	x = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_slice(x, s, seal(s, 96 + 4 * 32)), ETL_OK);
	ck_assert_int_eq(etl_reader_set_time_window(x, 0, 0), ETL_E_MISUSE); /* the state's window stays */
	ck_assert_int_eq(etl_reader_open_memory(x, d, len, "one buffer"), ETL_OK);
	while (etl_reader_next(x, &ev) != ETL_END && !etl_error_is_fatal(etl_reader_error(x)))
		;
	etl_reader_free(x);
	build_lifecycle(1, &other, &olen);
	x = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_slice(x, state, slen), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(x, other, olen, "another"), ETL_E_MISUSE);
	etl_reader_free(x);
	other = assert_changed_copy_refused(d, len, other, state, slen);
	x = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(x, d, len, "opened first"), ETL_OK);
	ck_assert_int_eq(etl_reader_set_slice(x, state, slen), ETL_E_MISUSE);
	etl_reader_free(x);
	free(s);
	free(other);
	etl_slices_free(p);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* A plan's slice is given as its state is, and refused where a state would be. */
START_TEST(plans_slices_are_refused_as_states_are)
{
	struct etl_reader *r = etl_reader_new(), *x;
	struct etl_slices *p;
	uint8_t *d, *other;
	size_t len, olen, slen;
	const void *state;

	build_lifecycle(0, &d, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "plan"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 4);
	ck_assert_uint_eq(etl_slices_count(p), 4);
	ck_assert_int_eq(etl_reader_set_slice_planned(NULL, p, 0), ETL_E_MISUSE);
	x = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_slice_planned(x, NULL, 0), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_slice_planned(x, p, 4), ETL_E_MISUSE); /* (slices 0 to 3) */
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(x)), "no such slice"));
	ck_assert_int_eq(etl_reader_set_slice_planned(x, p, 3), ETL_OK);
	ck_assert_int_eq(etl_reader_set_slice_planned(x, p, 2), ETL_E_MISUSE); /* once */
	state = etl_slices_state(p, 2, &slen);
	ck_assert_int_eq(etl_reader_set_slice(x, state, slen), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_time_window(x, 0, 0), ETL_E_MISUSE); /* the slice's window stays */
	build_lifecycle(1, &other, &olen);
	ck_assert_int_eq(etl_reader_open_memory(x, other, olen, "another"), ETL_E_MISUSE);
	etl_reader_free(x);
	other = assert_changed_copy_refused(d, len, other, state, slen);
	x = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(x, d, len, "opened first"), ETL_OK);
	ck_assert_int_eq(etl_reader_set_slice_planned(x, p, 1), ETL_E_MISUSE);
	etl_reader_free(x);
	free(other);
	etl_slices_free(p);
	etl_reader_free(r);
	free(d);
}
END_TEST

struct taker {
	const uint8_t *d;
	size_t len;
	const struct etl_slices *p;
	size_t first, k, events;
	int failed;
};

static void *take_slices(void *arg)
{
	struct taker *t = arg;
	size_t i;

	for (i = t->first; i < t->k; i += 2) {
		struct etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		int st;
		t->failed |= etl_reader_set_slice_planned(r, t->p, i) != ETL_OK ||
			     etl_reader_open_memory(r, t->d, t->len, "taker") != ETL_OK;
		while (!t->failed && (st = etl_reader_next(r, &ev)) != ETL_END) {
			t->failed |= st != ETL_OK;
			t->events++;
		}
		etl_reader_free(r);
	}
	return NULL;
}

/* Two threads take the slices of one plan at once (TSan's to watch): together they deliver the
 * whole reading's events. */
START_TEST(threads_take_slices_of_one_plan_at_once)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	struct taker t[2];
	pthread_t th[2];
	struct etl_slices *p;
	uint8_t *d;
	size_t len, whole = 0;
	int k;

	build_lifecycle(1, &d, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "plan"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 8);
	ck_assert_uint_gt(etl_slices_count(p), 2);
	ck_assert(etl_slices_in_order(p));
	for (k = 0; k < 2; k++) {
		t[k] = (struct taker){ d, len, p, (size_t)k, etl_slices_count(p), 0, 0 };
		ck_assert_int_eq(pthread_create(&th[k], NULL, take_slices, &t[k]), 0);
	}
	for (k = 0; k < 2; k++) {
		pthread_join(th[k], NULL);
		ck_assert(!t[k].failed);
	}
	while (etl_reader_next(r, &ev) == ETL_OK)
		whole++;
	ck_assert_uint_gt(whole, 100);
	ck_assert_uint_eq(t[0].events + t[1].events, whole);
	etl_slices_free(p);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* The light reading asks about a record only if it is of a kind that can describe something (a
 * kernel or classic header, an event with id 0xFFFE): no other kind does. */
START_TEST(light_reading_asks_about_every_describing_kind)
{
	struct etl_event ev;
	unsigned id, op;

	memset(&ev, 0, sizeof(ev));
	ev.kind = ETL_HEADER_MESSAGE;
	for (op = 0; op < 256; op++) {
		ev.opcode = (uint8_t)op;
		ck_assert(!etl_event_updates_state(&ev));
	}
	ev.kind = ETL_HEADER_EVENT;
	for (id = 0; id < 0x10000; id++)
		for (op = 0; op < 256; op += 1 + (id != 0xFFFE) * 14) {
			ev.id = (uint16_t)id;
			ev.opcode = (uint8_t)op;
			ck_assert(!etl_event_updates_state(&ev) || id == 0xFFFE);
		}
}
END_TEST

/* Readers that move on from slice to slice (etl_reader_move_to_slice) deliver, together, a whole
 * reading: one reader taking every slice, two and three taking every other or third. */
static void assert_moved(const uint8_t *d, size_t len, size_t n, int stacks, size_t ways, const char *what)
{
	struct windiff w;
	int rc = windiff_moved(d, len, n, stacks, ways, &w);

	ck_assert_msg(rc == 0, "%s (%zu slices, stacks %d, %zu readers): %s", what, n, stacks, ways,
		      rc > 0 ? "the plan is not in order" : w.why);
	ck_assert_uint_eq(w.whole, w.parts);
	ck_assert_uint_gt(w.whole, 0);
}

/* Samples without stack records, one with its stack record halfway, more without, and last a
 * sample whose stack record is logged away from it (what only the stack index gives it, once the
 * trace showed a stack record): a reader that moves past the slice of the one stack record learns
 * from the plan that the trace shows stacks. */
static void build_stack_halfway(unsigned quiet, uint8_t **out, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	uint64_t tick, t, kb = 0xfffff80000000000ULL;
	const uint64_t fk[2] = { kb + 0x10, kb + 0x11 }, fe[1] = { 0x140000001ULL };
	unsigned k;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.buffer_size = 4096;
	tick = o.perf_freq / 1000;
	t = o.start_ts;
	w = etlw_new(&o);
	ck_assert_ptr_nonnull(w);
	for (k = 0; k < 2 * quiet + 1; k++) {
		t += tick;
		ck_assert_int_eq(scen_sample(w, &o, k & 1, t, kb + 0x20, 5001), 0);
		if (k == quiet)
			ck_assert_int_eq(scen_stack_at(w, &o, k & 1, t + 1, t, 500, 5001, fk, 2), 0);
	}
	t += 2 * tick;
	ck_assert_int_eq(scen_sample(w, &o, 0, t, fe[0], 5002), 0);
	ck_assert_int_eq(scen_stack_at(w, &o, 1, t + tick, t, 500, 5002, fe, 1), 0);
	ck_assert_int_eq(etlw_finish(w, out, len), 0);
	etlw_free(w);
}

/* The one event with a stack record halfway, its stack record logged long after it (but next in
 * its CPU's buffer), then samples whose stack records are logged away from them (what only the
 * stack index gives them, once the trace showed a stack record): on CPU 0 a sample every unit,
 * on CPU 1 one every 200 units, sparse (one buffer holds all of them from the start to well past
 * the stack records), so that slices start between the event and its stack
 * record, or after the stack record but in the buffer that holds it - where a moved reader
 * passes over the records before its slice by their headers, and must learn from them that the
 * trace shows stacks. */
static void build_stack_across_bounds(uint8_t **out, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	uint64_t u, t0, kb = 0xfffff80000000000ULL;
	const uint64_t fk[2] = { kb + 0x10, kb + 0x11 }, fe[1] = { 0x140000001ULL };
	const unsigned total = 12000, ev = 5000, gap = 2000, away = 100, nx = 50;
	unsigned j, k;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.buffer_size = 4096;
	u = o.perf_freq / 100000;
	t0 = o.start_ts;
	w = etlw_new(&o);
	ck_assert_ptr_nonnull(w);
	for (j = 1; j <= total; j++) {
		uint64_t t = t0 + j * u;
		int x = j > ev && j <= ev + nx * away && (j - ev) % away == 0; /* a sample with its stack away */
		ck_assert_int_eq(scen_sample(w, &o, 0, t, x ? fe[0] : kb + 0x20, x ? 5002 : 5001), 0);
		if (j == ev) {
			ck_assert_int_eq(scen_sample(w, &o, 1, t, kb + 0x30, 5003), 0);
			ck_assert_int_eq(scen_stack_at(w, &o, 1, t + gap * u, t, 500, 5003, fk, 2), 0);
		}
		if (j == ev + gap) /* the stacks of the samples before, away from them */
			for (k = 1; ev + k * away < j; k++)
				ck_assert_int_eq(scen_stack_at(w, &o, 1, t + k, t0 + (ev + k * away) * u, 500, 5002, fe, 1), 0);
		if (x && j > ev + gap)
			ck_assert_int_eq(scen_stack_at(w, &o, 1, t + 5 * u, t, 500, 5002, fe, 1), 0);
		if (j % 200 == 0 && (j < ev || j > ev + gap))
			ck_assert_int_eq(scen_sample(w, &o, 1, t + 6 * u, kb + 0x40, 6001), 0);
	}
	ck_assert_int_eq(etlw_finish(w, out, len), 0);
	etlw_free(w);
}

START_TEST(moved_readers_give_a_whole_reading)
{
	struct etlw_opts o;
	uint8_t *d;
	size_t len, ways, n;

	for (ways = 1; ways <= 3; ways++) {
		build_lifecycle(0, &d, &len);
		assert_moved(d, len, 11, 1, ways, "lifecycle");
		assert_moved(d, len, 16, 0, ways, "lifecycle");
		free(d);
		build_lifecycle(1, &d, &len);
		assert_moved(d, len, 7, 1, ways, "lifecycle, XPRESS");
		free(d);
	}
	etlw_default_opts(&o);
	o.ncpu = 4;
	o.buffer_size = 4096;
	ck_assert_int_eq(scen_build_mixed(&o, 6000, &d, &len), 0);
	assert_moved(d, len, 9, 1, 2, "mixed");
	free(d);
	ck_assert_int_eq(scen_build_stackkeys_lead(&o, 600, 6, &d, &len), 0);
	assert_moved(d, len, 6, 1, 2, "stack keys after stackless samples");
	free(d);
	ck_assert_int_eq(scen_build_stack_then_quiet(&o, 3000, &d, &len), 0);
	assert_moved(d, len, 6, 1, 1, "a stack record, then none till one logged away");
	assert_moved(d, len, 6, 1, 3, "a stack record, then none till one logged away");
	free(d);
	build_stack_halfway(1500, &d, &len);
	for (ways = 2; ways <= 3; ways++) {
		assert_moved(d, len, 6, 1, ways, "the one stack record halfway");
		assert_moved(d, len, 9, 1, ways, "the one stack record halfway");
	}
	free(d);
	build_stack_across_bounds(&d, &len);
	for (ways = 2; ways <= 3; ways++)
		for (n = 4; n <= 24; n++)
			assert_moved(d, len, n, 1, ways, "the first stack record in the buffer a slice takes up");
	free(d);
}
END_TEST

/* Reads r to its end: its events. */
static size_t read_to_end(struct etl_reader *r)
{
	const struct etl_event *ev;
	size_t n = 0;
	int st;

	while ((st = etl_reader_next(r, &ev)) != ETL_END)
		n += st == ETL_OK;
	return n;
}

/* A new reader opened from `from` given slice i of plan p. */
static struct etl_reader *slice_reader(const struct etl_reader *from, const struct etl_slices *p, size_t i)
{
	struct etl_reader *x = etl_reader_new();

	ck_assert_int_eq(etl_reader_set_slice_planned(x, p, i), ETL_OK);
	ck_assert_int_eq(etl_reader_open_same(x, from, 0), ETL_OK);
	return x;
}

/* A move is refused wherever what the reader learnt would not be what a new reader of the slice
 * learns, and a moved reader takes only its window's end. */
START_TEST(moves_are_refused_where_they_cannot_hold)
{
	struct etl_reader *r = etl_reader_new(), *x, *y;
	struct etl_slices *p, *q;
	const struct etl_event *ev;
	uint8_t *d;
	size_t len, slen;
	const void *state;

	build_lifecycle(0, &d, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "plan"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 8);
	q = etl_reader_plan_slices(r, 0, 8);
	ck_assert(etl_slices_in_order(p));
	ck_assert_uint_eq(etl_slices_count(p), 8);
	ck_assert_int_eq(etl_reader_move_to_slice(NULL, p, 3), ETL_E_MISUSE);
	x = slice_reader(r, p, 2);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 4), ETL_E_MISUSE); /* not read yet */
	ck_assert_int_eq(etl_reader_next(x, &ev), ETL_OK);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 4), ETL_E_MISUSE); /* not to its end */
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(x)), "to its end"));
	ck_assert_uint_gt(read_to_end(x), 0);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 2), ETL_E_MISUSE); /* not after it */
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 1), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 8), ETL_E_MISUSE); /* no such slice */
	ck_assert_int_eq(etl_reader_move_to_slice(x, NULL, 4), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_move_to_slice(x, q, 4), ETL_E_MISUSE); /* another plan */
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 4), ETL_OK);
	/* moved: only the window's end can be set, nothing opened, no option changed */
	ck_assert_int_eq(etl_reader_set_time_window(x, etl_slices_bound(p, 3), etl_slices_bound(p, 6)), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_memory(x, d, len, "again"), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_option(x, ETL_OPTION_STACKS, 0), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_time_window(x, etl_slices_bound(p, 4), etl_slices_bound(p, 6)), ETL_OK);
	y = slice_reader(r, p, 4); /* slices 4 and 5 as one, read new */
	ck_assert_int_eq(etl_reader_set_time_window(y, etl_slices_bound(p, 4), etl_slices_bound(p, 6)), ETL_OK);
	ck_assert_uint_eq(read_to_end(x), read_to_end(y));
	etl_reader_free(y);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 5), ETL_E_MISUSE); /* it read slice 5 too */
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 7), ETL_OK);
	ck_assert_uint_gt(read_to_end(x), 0);
	etl_reader_free(x);
	x = slice_reader(r, p, 0); /* the first slice's reader indexes the file itself */
	read_to_end(x);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 3), ETL_E_MISUSE);
	etl_reader_free(x);
	x = etl_reader_new(); /* a state given as bytes borrows no plan */
	state = etl_slices_state(p, 2, &slen);
	ck_assert_int_eq(etl_reader_set_slice(x, state, slen), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(x, d, len, "bytes"), ETL_OK);
	read_to_end(x);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 3), ETL_E_MISUSE);
	etl_reader_free(x);
	etl_slices_free(q);
	etl_slices_free(p);
	etl_reader_free(r);
	free(d);
	/* a plan that is not in order: a reader of its slices has not learnt everything before */
	build_time_back(300, &d, &len);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "time back"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 4);
	ck_assert(!etl_slices_in_order(p));
	x = slice_reader(r, p, 1);
	read_to_end(x);
	ck_assert_int_eq(etl_reader_move_to_slice(x, p, 2), ETL_E_MISUSE);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(x)), "not in order"));
	etl_reader_free(x);
	etl_slices_free(p);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Each slice's records, as the plan counts them: together those the whole reading delivers (with
 * the rounding of each slice's share), and more in the slices of small records. */
/* The CPU the planning thread spent loading buffers beside its helpers: none without helpers,
 * and with one never more than the process spent planning. */
START_TEST(plans_count_the_planning_threads_loading)
{
	struct etl_reader *r;
	struct etl_slices *p;
	struct timespec a, b;
	uint8_t *d;
	size_t len;
	unsigned threads;

	ck_assert(etl__slices_helped_cpu(NULL) == 0);
	build_lifecycle(1, &d, &len);
	for (threads = 0; threads <= 1; threads++) {
		r = etl_reader_new();
		ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, threads), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, d, len, "lifecycle"), ETL_OK);
		ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a), 0);
		p = etl_reader_plan_slices(r, 0, 5);
		ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b), 0);
		ck_assert_ptr_nonnull(p);
		if (threads == 0)
			ck_assert(etl__slices_helped_cpu(p) == 0);
		ck_assert(etl__slices_helped_cpu(p) >= 0);
		ck_assert(etl__slices_helped_cpu(p) <= (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 + 1e-3);
		etl_slices_free(p);
		etl_reader_free(r);
	}
	free(d);
}
END_TEST

START_TEST(slices_count_their_records)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etl_reader *r;
	struct etl_slices *p;
	uint8_t *d, big[600];
	size_t len, i, k;
	uint64_t sum = 0, whole;
	unsigned n;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.buffer_size = 4096;
	w = etlw_new(&o);
	ck_assert_ptr_nonnull(w);
	memset(big, 0x41, sizeof(big));
	for (n = 0; n < 4000; n++) { /* small records first, then records of 600 bytes */
		struct etlw_event e;
		memset(&e, 0, sizeof(e));
		e.provider = (struct etl_guid){ 0x11112222, 0x3333, 0x4444, { 1, 2, 3, 4, 5, 6, 7, 8 } };
		e.id = 7;
		e.ts = o.start_ts + 1000 + (uint64_t)n * 1000;
		e.pid = 4;
		e.tid = 8;
		ck_assert_int_eq(etlw_event(w, n % 2, &e, NULL, 0, big, n < 2000 ? 8 : sizeof(big)), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "records"), ETL_OK);
	p = etl_reader_plan_slices(r, 0, 8);
	k = etl_slices_count(p);
	ck_assert_uint_ge(k, 6);
	for (i = 0; i < k; i++)
		sum += etl_slices_records(p, i);
	ck_assert_uint_eq(etl_slices_records(p, k), 0);
	ck_assert_uint_eq(etl_slices_records(NULL, 0), 0);
	whole = read_to_end(r) - 1; /* (and the header buffer's, which every slice reads) */
	ck_assert_uint_eq(whole, 4000);
	ck_assert_uint_le(sum, whole + k);
	ck_assert_uint_ge(sum + k, whole);
	/* slices of equal bytes: the first holds the small records, many times as many */
	ck_assert_uint_gt(etl_slices_records(p, 0), 4 * etl_slices_records(p, k - 1));
	etl_slices_free(p);
	etl_reader_free(r);
	free(d);
}
END_TEST

static uint8_t *slurp_corpus(const char *name, size_t *len)
{
	char path[4096];
	struct etl_diag d;
	uint8_t *data;

	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, name);
	return etl__read_file(path, 1u << 30, "trace", &data, len, &d) == ETL_OK ? data : NULL;
}

START_TEST(corpus_traces_give_what_windows_give)
{
	static const char *const names[] = { "Tx_HTTP_Server.etl", "perfview_net.4.5.2.x86.etl", "Tx_Process.etl" };
	size_t i, len, tried = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint8_t *d = slurp_corpus(names[i], &len);
		if (!d)
			continue;
		assert_planned(d, len, 6, 1, names[i]);
		assert_in_order(d, len, 6, 1, names[i]);
		assert_helped(d, len, 6, 1, names[i]);
		assert_helped(d, len, 5, 0, names[i]);
		assert_moved(d, len, 9, 1, 2, names[i]);
		free(d);
		tried++;
	}
	if (!tried)
		fprintf(stderr, "check_slices: no corpus trace under %s\n", corpus_dir);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("slices");
	TCase *t = tcase_create("slices"), *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_test(t, states_give_what_windows_give);
	tcase_add_test(t, writer_scenarios_give_what_windows_give);
	tcase_add_test(t, states_skip_buffers);
	tcase_add_test(t, helpers_plan_as_the_planning_thread);
	tcase_add_test(t, slices_borrow_what_the_plan_decompressed);
	tcase_add_test(t, damaged_traces_give_what_windows_give);
	tcase_add_test(t, states_are_checked);
	tcase_add_test(t, plans_slices_are_refused_as_states_are);
	tcase_add_test(t, threads_take_slices_of_one_plan_at_once);
	tcase_add_test(c, corpus_traces_give_what_windows_give);
	tcase_add_test(t, light_reading_asks_about_every_describing_kind);
	tcase_add_test(t, moved_readers_give_a_whole_reading);
	tcase_add_test(t, moves_are_refused_where_they_cannot_hold);
	tcase_add_test(t, slices_count_their_records);
	tcase_add_test(t, plans_count_the_planning_threads_loading);
	tcase_set_timeout(t, 900);
	tcase_set_timeout(c, 900);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/etl", corpus_dir);
	return run_part(s, c, probe);
}
