/*
 * check_threads.c - readers that share the work of one input: a reader that
 * iterates and readers that decode copies of its events (etl_event_copy_into,
 * etl_reader_observe, etl_event_updates_state), and the stack index pass: split
 * over helper threads (ETL_OPTION_THREADS), and made only when a stack is asked
 * for.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etlw.h"
#include "scenario.h"

static const char *showcase_manifest; /* fixtures/manifests/showcase.man (the first argument) */

/* A reader on d with the showcase manifest, so that manifest events decode too. */
static struct etl_reader *open_with_manifest(const uint8_t *d, size_t len)
{
	struct etl_reader *r = etl_reader_new();

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_add_manifest_path(r, showcase_manifest), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "showcase"), ETL_OK);
	return r;
}

/* The text of a decoding: its name, status, source and every top-level property. */
static char *decoded_text(const struct etl_decoded *d)
{
	size_t cap = 4096, len = 0, i;
	char *s = malloc(cap);

	ck_assert_ptr_nonnull(s);
	len += (size_t)snprintf(s, cap, "%s|%d|%d", etl_decoded_name(d), (int)etl_decoded_status(d),
				(int)etl_decoded_source(d));
	for (i = 0; i < etl_decoded_property_count(d) && len < cap; i++) {
		const struct etl_property *p = etl_decoded_property_at(d, i);
		len += (size_t)snprintf(s + len, cap - len, "|%s=%s", etl_property_name(p), etl_property_format(p));
	}
	return s;
}

static const char *process_name(const struct etl_reader *r, const struct etl_event *ev)
{
	const struct etl_process *p = etl_reader_event_process(r, ev);
	return p ? etl_process_image_name(p) : "(none)";
}

/* Both readers' process tables hold the same records: ids, names, command lines, times, exit
 * statuses, thread names and images.  The number of records compared. */
static size_t same_tables(const struct etl_reader *a, const struct etl_reader *b)
{
	size_t i, j, n = etl_reader_process_count(a);

	ck_assert_uint_eq(etl_reader_process_count(b), n);
	for (i = 0; i < n; i++) {
		const struct etl_process *p = etl_reader_process_at(a, i), *q = etl_reader_process_at(b, i);
		uint64_t ta = 0, tb = 0, ba, bb, sa, sb;
		int32_t ea = 0, eb = 0;
		uint32_t ida, idb;

		ck_assert_uint_eq(etl_process_id(p), etl_process_id(q));
		ck_assert_uint_eq(etl_process_parent_id(p), etl_process_parent_id(q));
		ck_assert_uint_eq(etl_process_session_id(p), etl_process_session_id(q));
		ck_assert_str_eq(etl_process_image_name(p), etl_process_image_name(q));
		ck_assert_str_eq(etl_process_command_line(p), etl_process_command_line(q));
		ck_assert_uint_eq(etl_process_start_filetime(p), etl_process_start_filetime(q));
		ck_assert_int_eq(etl_process_end(p, &ta, &ea), etl_process_end(q, &tb, &eb));
		ck_assert_uint_eq(ta, tb);
		ck_assert_int_eq(ea, eb);
		ck_assert_uint_eq(etl_process_thread_name_count(p), etl_process_thread_name_count(q));
		for (j = 0; j < etl_process_thread_name_count(p); j++) {
			ck_assert_str_eq(etl_process_thread_name_at(p, j, &ida), etl_process_thread_name_at(q, j, &idb));
			ck_assert_uint_eq(ida, idb);
		}
		ck_assert_uint_eq(etl_process_image_count(p), etl_process_image_count(q));
		for (j = 0; j < etl_process_image_count(p); j++) {
			ck_assert_str_eq(etl_process_image_at(p, j, &ba, &sa), etl_process_image_at(q, j, &bb, &sb));
			ck_assert_uint_eq(ba, bb);
			ck_assert_uint_eq(sa, sb);
		}
	}
	return n;
}

/* One reader iterates; another, on the same input, learns from copies of its events and decodes
 * them: the same decodings, the same processes, the same address resolution.  The copies live
 * in one block of the test's (and carry what the first reader learnt from them: the second
 * reader learns it without decoding them). */
START_TEST(observing_reader_decodes_as_the_iterating_one)
{
	struct etlw_opts o;
	uint8_t *d = NULL, *block;
	size_t len = 0, used = 0, cap = (size_t)1 << 20;
	struct etl_reader *a, *b;
	const struct etl_event *ev;
	unsigned events = 0, state = 0, named = 0, resolved = 0;

	unsigned flags = _i & 2 ? ETL_COPY_STACK_LATER : 0;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.ptr_size = _i & 1 ? 4 : 8;
	ck_assert_int_eq(scen_build_showcase(&o, 0, &d, &len), 0);
	block = malloc(cap);
	ck_assert_ptr_nonnull(block);
	a = open_with_manifest(d, len);
	b = etl_reader_new();
	ck_assert_int_eq(etl_reader_add_manifest_path(b, showcase_manifest), ETL_OK);
	ck_assert_int_eq(etl_reader_open_same(b, a, 0), ETL_OK);
	while (etl_reader_next(a, &ev) == ETL_OK) {
		size_t need = etl_event_copy_size(ev, flags);
		const struct etl_event *c;
		const struct etl_decoded *da, *db;
		char *ta, *tb;
		uint64_t pa, pb, frame;

		ck_assert_uint_eq(need % 8, 0);
		ck_assert_uint_le(used + need, cap);
		ck_assert_ptr_null(etl_event_copy_into(ev, block + used + 4, need, flags)); /* misaligned */
		ck_assert_ptr_null(etl_event_copy_into(ev, block + used, need - 8, flags)); /* too small */
		c = etl_event_copy_into(ev, block + used, need, flags);
		ck_assert_ptr_eq(c, block + used);
		used += need;
		events++;
		state += etl_event_updates_state(c);
		ck_assert_int_eq(etl_event_updates_state(c), etl_event_updates_state(ev));
		ck_assert_int_eq(etl_reader_observe(b, c), ETL_OK);
		ck_assert_int_eq(etl_reader_decode(a, ev, &da), ETL_OK);
		ck_assert_int_eq(etl_reader_decode(b, c, &db), ETL_OK);
		ta = decoded_text(da);
		tb = decoded_text(db);
		ck_assert_str_eq(ta, tb);
		free(ta);
		free(tb);
		ck_assert_str_eq(process_name(a, ev), process_name(b, c));
		named += strcmp(process_name(b, c), "(none)") != 0 && *process_name(b, c);
		ck_assert_uint_eq(etl_event_stack_depth(c), etl_event_stack_depth(ev));
		if (etl_event_stack_depth(c)) {
			frame = etl_event_stack_frame(c, 0);
			ck_assert_uint_eq(frame, etl_event_stack_frame(ev, 0));
			ck_assert_str_eq(etl_reader_resolve_address(a, etl_reader_event_process(a, ev), frame, &pa),
					 etl_reader_resolve_address(b, etl_reader_event_process(b, c), frame, &pb));
			ck_assert_uint_eq(pa, pb);
			resolved++;
		}
	}
	/* processes 5 + 2, threads 3 + 1 (one a thread name), images 3 */
	ck_assert_uint_eq(state, 14);
	ck_assert_uint_eq(events, 30); /* the scenario's records and the logfile header */
	ck_assert_uint_gt(named, 10);
	ck_assert_uint_eq(resolved, 1); /* the sample's stack, in new.exe */
	ck_assert_uint_ge(same_tables(a, b), 5);
	/* the observer cannot iterate; the iterating reader cannot observe */
	ck_assert_int_eq(etl_reader_next(b, &ev), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_observe(a, (const struct etl_event *)(const void *)block), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_observe(b, NULL), ETL_E_MISUSE);
	ck_assert_int_eq(etl_event_updates_state(NULL), 0);
	etl_reader_free(b);
	etl_reader_free(a);
	free(block);
	free(d);
}
END_TEST

/* An event of an input the observing reader has not opened is refused. */
START_TEST(observe_checks_the_input)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	struct etl_reader *a = etl_reader_new(), *b = etl_reader_new();
	const struct etl_event *ev;

	etlw_default_opts(&o);
	ck_assert_int_eq(scen_build_system(&o, &d, &len), 0);
	ck_assert_int_eq(etl_reader_open_memory(a, d, len, "one"), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(a, d, len, "two"), ETL_OK);
	ck_assert_int_eq(etl_reader_open_same(b, a, 0), ETL_OK);
	while (etl_reader_next(a, &ev) == ETL_OK)
		ck_assert_int_eq(etl_reader_observe(b, ev), etl_event_trace_index(ev) == 0 ? ETL_OK : ETL_E_MISUSE);
	etl_reader_free(b);
	etl_reader_free(a);
	free(d);
}
END_TEST

/* The frames of every event of a reader on d, with n helper threads and a stack-index limit. */
static char *stacks_of(const uint8_t *d, size_t len, int threads, uint64_t limit, uint64_t *dropped)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	size_t cap = 1 << 18, n = 0, i;
	char *s = malloc(cap);

	ck_assert_ptr_nonnull(s);
	s[0] = 0;
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, threads), ETL_OK);
	if (limit)
		ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_STACK_KEY_BYTES, limit), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "stacks"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		for (i = 0; i < etl_event_stack_depth(ev) && n + 24 < cap; i++)
			n += (size_t)snprintf(s + n, cap - n, "%llx,", (unsigned long long)etl_event_stack_frame(ev, i));
		if (n + 2 < cap)
			s[n++] = ';', s[n] = 0;
	}
	*dropped = etl_reader_count(r, ETL_COUNT_STACKS_DROPPED);
	etl_reader_free(r);
	return s;
}

/* The stack index pass split over threads (contiguous parts of the buffers, appended in order)
 * gives the stacks of one pass; where a part's share of the limit is too small, the pass is
 * made again on one thread, so what is kept or dropped does not depend on the threads. */
START_TEST(stack_pass_on_threads_gives_the_same_stacks)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	uint64_t limits[3] = { 0, 1, 200 }, d0, d1, d3;
	unsigned k;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.ptr_size = _i & 1 ? 4 : 8;
	o.buffer_size = 1024; /* many buffers, so that the pass has parts */
	o.compress = _i >= 2;
	ck_assert_int_eq(scen_build_stackkeys_rounds(&o, 40, &d, &len), 0);
	for (k = 0; k < 3; k++) {
		char *s0 = stacks_of(d, len, 0, limits[k], &d0);
		char *s1 = stacks_of(d, len, 1, limits[k], &d1);
		char *s3 = stacks_of(d, len, 3, limits[k], &d3);
		ck_assert_str_eq(s1, s0);
		ck_assert_str_eq(s3, s0);
		ck_assert_uint_eq(d1, d0);
		ck_assert_uint_eq(d3, d0);
		if (k == 0) {
			ck_assert_uint_eq(d0, 0);
			ck_assert_ptr_nonnull(strstr(s0, ","));
		} else if (k == 1) {
			ck_assert_uint_gt(d0, 0);
		}
		free(s0);
		free(s1);
		free(s3);
	}
	free(d);
}
END_TEST

/* FNV-1a over n bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* A digest of everything a reader on d delivers with n helper threads: each event's place, times,
 * header and payload bytes and stack frames, and each error's code, offset and message. */
static uint64_t delivered(const uint8_t *d, size_t len, int threads, int stacks, uint64_t *events, uint64_t *errors)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	uint64_t h = 0xcbf29ce484222325ull;
	int st;

	*events = *errors = 0;
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, threads), ETL_OK);
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_STACKS, stacks), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "ahead"), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			const struct etl_error *e = etl_reader_error(r);
			uint64_t off = etl_error_offset(e);
			++*errors;
			h = fnv(h, &st, sizeof(st));
			h = fnv(h, &off, sizeof(off));
			h = fnv(h, etl_error_message(e), strlen(etl_error_message(e)));
			if (etl_error_is_fatal(e))
				break;
			continue;
		}
		{
			uint64_t v[8] = { etl_event_file_offset(ev), etl_event_timestamp_raw(ev), etl_event_filetime(ev),
					  etl_event_id(ev), etl_event_pid(ev), etl_event_tid(ev), etl_event_cpu(ev),
					  etl_event_stack_depth(ev) };
			size_t n, i;
			const uint8_t *p;
			etl_event_payload(ev, &p, &n);
			++*events;
			h = fnv(h, v, sizeof(v));
			h = fnv(h, etl_event_provider(ev), sizeof(struct etl_guid));
			h = fnv(h, p, n);
			for (i = 0; i < v[7]; i++) {
				uint64_t f = etl_event_stack_frame(ev, i);
				h = fnv(h, &f, sizeof(f));
			}
		}
	}
	etl_reader_free(r);
	return h;
}

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

/* Makes some records of the uncompressed trace d, from its first-th on, swallow the record after
 * them (the size of one takes in the next, as check_damage does): the reader says so and goes
 * back into it. */
static unsigned swallow_some(uint8_t *d, size_t len, size_t first)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	uint64_t *off = NULL;
	size_t n = 0, cap = 0, i;
	unsigned made = 0;

	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "swallow"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (n == cap)
			ck_assert_ptr_nonnull(off = realloc(off, (cap = cap ? 2 * cap : 1024) * sizeof(*off)));
		off[n++] = etl_event_file_offset(ev);
	}
	etl_reader_free(r);
	for (i = first; i + 1 < n; i += 41) {
		uint32_t m = rd32(d + off[i]), mb = rd32(d + off[i + 1]);
		/* the size: after the marker of the system, compact and PerfInfo headers, else in its low half */
		unsigned ht = (m >> 16) & 0xFF, htb = (mb >> 16) & 0xFF;
		size_t at = off[i] + ((m & 0xC0000000u) == 0xC0000000u && (ht <= 4 || ht == 0x10 || ht == 0x11) ? 4 : 0);
		size_t atb = off[i + 1] + ((mb & 0xC0000000u) == 0xC0000000u && (htb <= 4 || htb == 0x10 || htb == 0x11) ? 4 : 0);
		size_t own = rd16(d + at), total = off[i + 1] - off[i] + rd16(d + atb);
		if (off[i + 1] != off[i] + ((own + 7) & ~(size_t)7) || (mb & 0xC0000000u) != 0xC0000000u || total > 0xFFFF)
			continue; /* not adjacent records of one buffer, or the next is not a simple one */
		d[at] = (uint8_t)total;
		d[at + 1] = (uint8_t)(total >> 8);
		made++;
	}
	free(off);
	return made;
}

/* Helper threads load each buffer and parse its records ahead of the merge (times, the swallowed
 * record check, the stack records that follow), and peek those past their share (the same but
 * the parsing); what the reader delivers is what it delivers reading them itself - on whole
 * traces and on damaged ones (records that swallow the next in the uncompressed ones; sizes,
 * markers and times hit at random in the compressed ones, where they are damage in the
 * compressed stream), compressed or not, with stack records and with ETL_OPTION_STACKS off, in
 * small buffers and in buffers of more records than a helper parses. */
START_TEST(records_parsed_ahead_are_delivered_as_read_here)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0, i;
	uint64_t e0, x0, e1, x1, e3, x3, h0, seed = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
	int keyed = _i >= 16, damaged = !keyed && (_i & 4) != 0, big = keyed || (_i & 8) != 0;
	size_t skip;

	etlw_default_opts(&o);
	o.ncpu = 3;
	/* big: buffers of more records than a helper parses (PF_PARSE_MAX): it peeks the rest */
	o.buffer_size = big ? (_i & 2 ? 256u << 10 : 1u << 20) : 2048;
	o.compress = _i & 1;
	/* the stack records come after several buffers of samples: the helpers see them first;
	 * keyed: events that name a stack key in an item of their own */
	if (keyed)
		ck_assert_int_eq(scen_build_keyed_events(&o, 60000, &d, &len), 0);
	else
		ck_assert_int_eq(_i & 2 ? scen_build_stackkeys_lead(&o, big ? 9000 : 600, 80, &d, &len)
					: scen_build_mixed(&o, big ? 40000 : 3000, &d, &len), 0);
	skip = big ? len / 4 : 2 * o.buffer_size;
	if (damaged && (_i & 1)) /* damage: 60 bytes past the first buffers, each set to a value records hold */
		for (i = 0; i < 60; i++) {
			static const uint8_t vals[] = { 0x00, 0xff, 0xc0, 0x90, 0x14, 0x08, 0x7f, 0x41 };
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			d[skip + (size_t)((seed >> 33) % (len - skip))] = vals[(seed >> 20) & 7];
		}
	if (damaged && !(_i & 1)) /* and records that swallow the next, in the uncompressed ones */
		ck_assert_uint_ge(swallow_some(d, len, big ? 6000 : 5), 5); /* (big: past the share parsed) */
	h0 = delivered(d, len, 0, 1, &e0, &x0);
	ck_assert_uint_eq(delivered(d, len, 1, 1, &e1, &x1), h0);
	ck_assert_uint_eq(delivered(d, len, 3, 1, &e3, &x3), h0);
	/* without stacks (the helpers attach none then) */
	ck_assert_uint_eq(delivered(d, len, 3, 0, &e3, &x3), delivered(d, len, 0, 0, &e1, &x1));
	ck_assert_uint_eq(e3, e1);
	ck_assert_uint_eq(e1, e0);
	ck_assert_uint_eq(e3, e0);
	ck_assert_uint_eq(x1, x0);
	ck_assert_uint_eq(x3, x0);
	ck_assert_uint_gt(e0, big && !damaged ? 9000 : 500);
	if (damaged)
		ck_assert_uint_gt(x0, 0); /* the damage was met */
	free(d);
}
END_TEST

/* One CPU's trace: lead samples, a message without a time of its own (it takes the one before),
 * a sample of an earlier time than the lead's last, then more samples. */
static void inherited_trace(unsigned lead, uint8_t **d, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_message m;
	uint8_t args[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	unsigned k;

	etlw_default_opts(&o);
	o.ncpu = 1;
	o.buffer_size = 2048;
	ck_assert_ptr_nonnull(w = etlw_new(&o));
	for (k = 0; k < lead; k++)
		ck_assert_int_eq(scen_sample(w, &o, 0, o.start_ts + 100 + 10 * (uint64_t)k, 0x1000 + k, 7), 0);
	memset(&m, 0, sizeof(m));
	m.number = 3;
	m.options = 0x0001 | 0x0002 | 0x0020 | 0x0080; /* sequence, GUID, system information: no time */
	m.guid = scen_classic;
	m.tid = 7;
	m.pid = 4;
	ck_assert_int_eq(etlw_message(w, 0, &m, args, sizeof(args)), 0);
	ck_assert_int_eq(scen_sample(w, &o, 0, o.start_ts + 50, 0x2000, 7), 0); /* (before the lead's last) */
	for (k = 0; k < 20; k++)
		ck_assert_int_eq(scen_sample(w, &o, 0, o.start_ts + 100 + 10 * (uint64_t)(lead + k), 0x3000 + k, 7), 0);
	ck_assert_int_eq(etlw_finish(w, d, len), 0);
	etlw_free(w);
}

/* A message that takes its time from the record before, first in its buffer, whose size is
 * damaged to take in the next record - of a time earlier than the stream's last: it has the time
 * of the last record of the buffer before, so nothing of a time at or after it is taken in, and it
 * is delivered whole.  A helper that parses the buffer ahead does not know that time: it leaves
 * the check to the stream, which reads the same with threads as without. */
START_TEST(a_message_first_in_its_buffer_takes_the_streams_time)
{
	uint8_t *d = NULL;
	size_t len = 0;
	uint64_t e0, x0, e1, x1, e3, x3, h0, msg = 0, next = 0;
	unsigned lead;

	for (lead = 40; lead < 90 && !msg; lead++) { /* the lead that puts the message first in a buffer */
		struct etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		free(d);
		inherited_trace(lead, &d, &len);
		ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, d, len, "inherited"), ETL_OK);
		while (etl_reader_next(r, &ev) == ETL_OK) {
			if (msg && !next)
				next = etl_event_file_offset(ev);
			if (etl_event_header_kind(ev) == ETL_HEADER_MESSAGE && etl_event_buffer_offset(ev) == 0x48)
				msg = etl_event_file_offset(ev);
		}
		etl_reader_free(r);
	}
	ck_assert_uint_ne(msg, 0);
	ck_assert_uint_gt(next, msg);
	{ /* the message's size (its marker's low half) to the end of the sample after it */
		size_t total = (size_t)(next - msg) + rd16(d + next + 4);
		d[msg] = (uint8_t)total;
		d[msg + 1] = (uint8_t)(total >> 8);
	}
	h0 = delivered(d, len, 0, 1, &e0, &x0);
	ck_assert_uint_eq(delivered(d, len, 1, 1, &e1, &x1), h0);
	ck_assert_uint_eq(delivered(d, len, 3, 1, &e3, &x3), h0);
	/* the header record, the samples and the message: the early sample inside it */
	ck_assert_uint_eq(e0, 1 + (lead - 1) + 1 + 20);
	ck_assert_uint_eq(e1, e0);
	ck_assert_uint_eq(e3, e0);
	ck_assert_uint_eq(x0, 0);
	free(d);
}
END_TEST

/* The stack index pass runs when a stack is first asked for, not when the first event with stack
 * records is delivered: with a limit too small for any definition, an iteration that never asks
 * drops nothing; one that asks for the first sample's stack reads the index then (and drops). */
START_TEST(stack_index_is_read_when_a_stack_is_asked_for)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	struct etl_reader *r;
	const struct etl_event *ev;
	unsigned n = 0, asked = 0;
	int copy_first = _i;

	etlw_default_opts(&o);
	o.ncpu = 2;
	ck_assert_int_eq(scen_build_stackkeys(&o, &d, &len), 0);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_STACK_KEY_BYTES, 1), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "keys"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK)
		n++;
	ck_assert_uint_eq(n, 15);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
	etl_reader_free(r);

	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_STACK_KEY_BYTES, 1), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "keys"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_hook_id(ev) != 0x0F2E || asked++)
			continue;
		ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
		if (copy_first) { /* a copy asks too */
			struct etl_event *c = NULL;
			ck_assert_int_eq(etl_event_copy(ev, &c), ETL_OK);
			ck_assert_uint_gt(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
			ck_assert_uint_eq(etl_event_stack_depth(c), etl_event_stack_depth(ev));
			etl_event_free(c);
		} else {
			/* the kernel key is not defined (dropped); the user key is not either */
			ck_assert_uint_eq(etl_event_stack_depth(ev), 0);
			ck_assert_uint_gt(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
		}
	}
	ck_assert_uint_eq(asked, 5);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* The frames of copies[from, to) as text, one event per line. */
struct frames_job {
	const struct etl_event **copies;
	size_t from, to;
	char *text;
};

static void *frames_of(void *arg)
{
	struct frames_job *j = arg;
	size_t cap = (size_t)1 << 20, n = 0, i, k;

	j->text = malloc(cap);
	for (i = j->from; j->text && i < j->to; i++) {
		size_t depth = etl_event_stack_depth(j->copies[i]);
		for (k = 0; k < depth && n + 24 < cap; k++)
			n += (size_t)snprintf(j->text + n, cap - n, "%llx,",
					      (unsigned long long)etl_event_stack_frame(j->copies[i], k));
		if (n + 2 < cap)
			j->text[n++] = ';';
	}
	if (j->text)
		j->text[n] = 0;
	return NULL;
}

/* Copies of every event of a 40-round stack-key trace, one block for all, and the stacks an
 * iteration that asks at delivery gives (the reference). */
struct copied {
	uint8_t *trace, *block;
	size_t len, n;
	const struct etl_event **copies;
	char *direct;
};

#define COPIES_MAX 4096
#define COPIES_BLOCK ((size_t)8 << 20)

/* Builds the trace (compressed or not) and copies every event r delivers with flags (r opened on
 * it here, with the stack-key limit if nonzero). */
static void copy_every_event(struct copied *c, struct etl_reader *r, int compress, uint64_t limit, unsigned flags)
{
	struct etlw_opts o;
	const struct etl_event *ev;
	uint64_t dropped;
	size_t used = 0;

	memset(c, 0, sizeof(*c));
	etlw_default_opts(&o);
	o.ncpu = 2;
	o.buffer_size = 1024;
	o.compress = compress;
	ck_assert_int_eq(scen_build_stackkeys_rounds(&o, 40, &c->trace, &c->len), 0);
	c->direct = stacks_of(c->trace, c->len, 0, 0, &dropped);
	ck_assert_uint_eq(dropped, 0);
	c->block = malloc(COPIES_BLOCK);
	c->copies = malloc(COPIES_MAX * sizeof(*c->copies));
	ck_assert_ptr_nonnull(c->block);
	ck_assert_ptr_nonnull(c->copies);
	if (limit)
		ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_STACK_KEY_BYTES, limit), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, c->trace, c->len, "stacks"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		size_t need = etl_event_copy_size(ev, flags);
		ck_assert_uint_lt(c->n, COPIES_MAX);
		ck_assert_uint_le(used + need, COPIES_BLOCK);
		c->copies[c->n++] = etl_event_copy_into(ev, c->block + used, need, flags);
		used += need;
	}
	ck_assert_uint_gt(c->n, 400);
}

static void copied_free(struct copied *c)
{
	free(c->direct);
	free(c->copies);
	free(c->block);
	free(c->trace);
}

/* Copies made with ETL_COPY_STACK_LATER leave a stack the reader has not completed for later: the
 * copies do not make the stack index pass; asking one of them does (on any thread: two threads
 * ask at once here), and every copy's stack is then the stack of the event, as an iteration that
 * asks at delivery gives it. */
START_TEST(copies_complete_their_stack_when_asked)
{
	struct etl_reader *r = etl_reader_new();
	struct frames_job jobs[2];
	struct copied c;
	pthread_t th;

	/* _i & 2: a limit that keeps nothing */
	copy_every_event(&c, r, _i & 1, _i & 2 ? 1 : 0, ETL_COPY_STACK_LATER);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0); /* no pass yet */
	jobs[0] = (struct frames_job){ c.copies, 0, c.n / 2, NULL };
	jobs[1] = (struct frames_job){ c.copies, c.n / 2, c.n, NULL };
	ck_assert_int_eq(pthread_create(&th, NULL, frames_of, &jobs[1]), 0);
	frames_of(&jobs[0]);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_ptr_nonnull(jobs[0].text);
	ck_assert_ptr_nonnull(jobs[1].text);
	if (_i & 2) {
		/* the pass ran (and dropped), the stacks lost their keys */
		ck_assert_uint_gt(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
	} else {
		size_t l0 = strlen(jobs[0].text);
		ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
		ck_assert_int_eq(strncmp(c.direct, jobs[0].text, l0), 0);
		ck_assert_str_eq(c.direct + l0, jobs[1].text);
		ck_assert_ptr_nonnull(strstr(c.direct, ","));
	}
	free(jobs[0].text);
	free(jobs[1].text);
	etl_reader_free(r);
	copied_free(&c);
}
END_TEST

/* Copies made without ETL_COPY_STACK_LATER hold their whole stack: they outlive the reader (under
 * AddressSanitizer, a copy that still needed it would be a use after free). */
START_TEST(copies_without_the_flag_outlive_the_reader)
{
	struct etl_reader *r = etl_reader_new();
	struct frames_job job;
	struct copied c;

	copy_every_event(&c, r, 1, 0, 0);
	etl_reader_free(r);
	job = (struct frames_job){ c.copies, 0, c.n, NULL };
	frames_of(&job);
	ck_assert_ptr_nonnull(job.text);
	ck_assert_str_eq(job.text, c.direct);
	free(job.text);
	copied_free(&c);
}
END_TEST

static Suite *threads_suite(void)
{
	Suite *s = suite_create("threads");
	TCase *t = tcase_create("threads");

	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, observing_reader_decodes_as_the_iterating_one, 0, 4);
	tcase_add_test(t, observe_checks_the_input);
	tcase_add_loop_test(t, stack_pass_on_threads_gives_the_same_stacks, 0, 4);
	tcase_add_loop_test(t, stack_index_is_read_when_a_stack_is_asked_for, 0, 2);
	tcase_add_loop_test(t, records_parsed_ahead_are_delivered_as_read_here, 0, 18);
	tcase_add_test(t, a_message_first_in_its_buffer_takes_the_streams_time);
	tcase_add_loop_test(t, copies_complete_their_stack_when_asked, 0, 4);
	tcase_add_test(t, copies_without_the_flag_outlive_the_reader);
	suite_add_tcase(s, t);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc < 2) {
		fprintf(stderr, "usage: check_threads fixtures/manifests/showcase.man\n");
		return 2;
	}
	showcase_manifest = argv[1];
	sr = srunner_create(threads_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
