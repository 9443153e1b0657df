/*
 * check_reader.c - the reader over synthetic traces from the project's
 * writer: every header kind's fields, both pointer sizes, compressed
 * buffers, the time-ordered merge, file order, damage recovery with exact
 * offsets and counts, misuse, allocation failures, pipes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "record/record.h"
#include "util/cursor.h"
#include "clock.h"
#include "decoded_text.h"
#include "scenario.h"
#include "reader/reader.h"
#include "state/state.h"

#define NREC 600u

struct run {
	unsigned events, errors, header_records;
	uint64_t last_ft;
	int decreasing;
	int fatal;
	uint64_t first_err_offset;
	int first_err_code;
	unsigned seen[NREC]; /* how often scenario record i was delivered */
};

/* Maps a delivered event back to its scenario index (-1 for header records). */
static int scenario_index(const struct etl_event *ev)
{
	switch (etl_event_header_kind(ev)) {
	case ETL_HEADER_SYSTEM:
		if (etl_event_hook_id(ev) >> 8 == 0)
			return -1;
		return (int)etl_event_tid(ev) - 1000;
	case ETL_HEADER_COMPACT: return (int)etl_event_tid(ev) - 2000;
	case ETL_HEADER_FULL:
	case ETL_HEADER_INSTANCE: return (int)etl_event_tid(ev) - 3000;
	case ETL_HEADER_EVENT: return (int)etl_event_tid(ev) - 4000;
	case ETL_HEADER_MESSAGE: return (int)etl_event_tid(ev) - 5000;
	case ETL_HEADER_PERFINFO: {
		const uint8_t *p;
		size_t n;
		uint64_t pebs;
		/* perfinfo has no tid: identify it by its PMC/PEBS or payload */
		if (etl_event_pebs_index(ev, &pebs))
			return (int)(pebs - 0xABCD0000u);
		if (etl_event_pmc_count(ev) == 2)
			return (int)etl_event_pmc_at(ev, 1);
		etl_event_payload(ev, &p, &n);
		{
			unsigned i;
			for (i = SK_PERFINFO; i < NREC; i += SK_COUNT)
				if (scen_payload_len(i) == n && (i % 2) == 0 && i % 3 != 2 &&
				    (n == 0 || p[0] == scen_payload_byte(i, 0)))
					return (int)i;
		}
		return -2;
	}
	}
	return -2;
}

static void check_event_fields(const struct etlw_opts *o, const struct etl_event *ev, unsigned i)
{
	const uint8_t *p;
	size_t n, k;
	uint32_t a, b;
	struct etl_guid g;

	ck_assert_uint_eq(etl_event_cpu(ev), scen_cpu_of(i, o->ncpu));
	etl_event_payload(ev, &p, &n);
	ck_assert_uint_eq(n, scen_payload_len(i));
	for (k = 0; k < n; k++)
		ck_assert_uint_eq(p[k], scen_payload_byte(i, k));
	if (etl_event_header_kind(ev) != ETL_HEADER_MESSAGE || ((i / 7) % 2) == 0) {
		ck_assert_uint_eq(etl_event_timestamp_raw(ev), scen_ts_of(o, i, o->ncpu));
		ck_assert(!etl_event_timestamp_inherited(ev));
	} else {
		ck_assert(etl_event_timestamp_inherited(ev));
	}
	ck_assert_uint_eq(etl_event_pointer_size(ev),
			  etl_event_header_kind(ev) == ETL_HEADER_MESSAGE ? 8 : o->ptr_size);
	switch (scen_kind_of(i)) {
	case SK_SYSTEM:
		ck_assert_int_eq(etl_event_header_kind(ev), ETL_HEADER_SYSTEM);
		ck_assert_uint_eq(etl_event_hook_id(ev), 0x0300 | (i % 4 + 1));
		ck_assert(etl_guid_equal(etl_event_provider(ev), etl_kernel_group_guid(3)));
		ck_assert_uint_eq(etl_event_opcode(ev), i % 4 + 1);
		ck_assert_uint_eq(etl_event_id(ev), 0xFFFF);
		ck_assert_uint_eq(etl_event_pid(ev), 4);
		ck_assert_uint_eq(etl_event_kernel_time(ev), 11);
		ck_assert_uint_eq(etl_event_user_time(ev), 22);
		ck_assert_uint_eq(etl_event_version(ev), 9);
		break;
	case SK_COMPACT:
		ck_assert_int_eq(etl_event_header_kind(ev), ETL_HEADER_COMPACT);
		ck_assert_uint_eq(etl_event_hook_id(ev), 0x0524);
		ck_assert(etl_guid_equal(etl_event_provider(ev), etl_kernel_group_guid(5)));
		ck_assert_uint_eq(etl_event_pid(ev), 8);
		ck_assert_uint_eq(etl_event_kernel_time(ev), 0);
		break;
	case SK_PERFINFO: {
		uint64_t pebs;
		ck_assert_int_eq(etl_event_header_kind(ev), ETL_HEADER_PERFINFO);
		ck_assert_uint_eq(etl_event_hook_id(ev), 0x0F2E);
		ck_assert_uint_eq(etl_event_pid(ev), ETL_ID_NONE);
		ck_assert_uint_eq(etl_event_tid(ev), ETL_ID_NONE);
		ck_assert_uint_eq(etl_event_version(ev), 3);
		ck_assert_uint_eq(etl_event_pmc_count(ev), i % 3);
		if (i % 3 >= 1)
			ck_assert_uint_eq(etl_event_pmc_at(ev, 0), 0x1111111111111111ULL * (i % 7));
		ck_assert_int_eq(etl_event_pebs_index(ev, &pebs), (int)(i % 2));
		if (i % 2)
			ck_assert_uint_eq(pebs, 0xABCD0000u + i);
		break;
	}
	case SK_FULL:
	case SK_INSTANCE:
		ck_assert_int_eq(etl_event_header_kind(ev),
				 scen_kind_of(i) == SK_FULL ? ETL_HEADER_FULL : ETL_HEADER_INSTANCE);
		ck_assert(etl_guid_equal(etl_event_provider(ev), &scen_classic));
		ck_assert_uint_eq(etl_event_opcode(ev), i % 40);
		ck_assert_uint_eq(etl_event_level(ev), 4);
		ck_assert_uint_eq(etl_event_version(ev), 2);
		ck_assert_uint_eq(etl_event_pid(ev), 12);
		ck_assert_int_eq(etl_event_instance(ev, &a, &b, &g), scen_kind_of(i) == SK_INSTANCE);
		if (scen_kind_of(i) == SK_INSTANCE) {
			ck_assert_uint_eq(a, i);
			ck_assert_uint_eq(b, i / 2);
			ck_assert(etl_guid_equal(&g, &scen_related));
		}
		break;
	case SK_EVENT: {
		const uint8_t *d;
		size_t dl;
		ck_assert_int_eq(etl_event_header_kind(ev), ETL_HEADER_EVENT);
		ck_assert(etl_guid_equal(etl_event_provider(ev), &scen_provider));
		ck_assert_uint_eq(etl_event_id(ev), i % 100);
		ck_assert_uint_eq(etl_event_channel(ev), 16);
		ck_assert_uint_eq(etl_event_task(ev), i % 20);
		ck_assert_uint_eq(etl_event_opcode(ev), i % 10);
		ck_assert_uint_eq(etl_event_keywords(ev), 0x8000000000000000ULL | i);
		ck_assert_uint_eq(etl_event_activity_id(ev)->data1, i);
		ck_assert_uint_eq(etl_event_extended_count(ev), (i % 3 == 0) + (i % 2 == 0));
		if (i % 3 == 0)
			ck_assert(etl_guid_equal(etl_event_related_activity_id(ev), &scen_related));
		else
			ck_assert_ptr_null(etl_event_related_activity_id(ev));
		ck_assert_int_eq(etl_event_extended_find(ev, ETL_EXT_STACK_TRACE64, &d, &dl), i % 2 == 0);
		if (i % 2 == 0) {
			ck_assert_uint_eq(dl, 32);
			ck_assert_uint_eq(d[0], (uint8_t)i);
		}
		break;
	}
	case SK_MESSAGE:
		ck_assert_int_eq(etl_event_header_kind(ev), ETL_HEADER_MESSAGE);
		ck_assert_uint_eq(etl_event_id(ev), i % 50);
		ck_assert(etl_guid_equal(etl_event_provider(ev), &scen_classic));
		ck_assert_int_eq(etl_event_message_sequence(ev, &a), 1);
		ck_assert_uint_eq(a, i);
		ck_assert_int_eq(etl_event_message_component_id(ev, &a), 0);
		ck_assert_uint_eq(etl_event_pid(ev), 20);
		break;
	default:
		break;
	}
}

static void drain(struct etl_reader *r, const struct etlw_opts *o, struct run *run, int check_fields)
{
	const struct etl_event *ev;
	int st;

	memset(run, 0, sizeof(*run));
	run->first_err_offset = UINT64_MAX;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			const struct etl_error *e = etl_reader_error(r);
			ck_assert_ptr_nonnull(e);
			ck_assert_int_lt(st, 0);
			ck_assert_int_eq(etl_error_code(e), st);
			ck_assert(strlen(etl_error_message(e)) > 0);
			if (run->errors++ == 0) {
				run->first_err_offset = etl_error_offset(e);
				run->first_err_code = st;
			}
			if (etl_error_is_fatal(e)) {
				run->fatal = 1;
				break;
			}
			continue;
		}
		run->events++;
		if (etl_event_filetime(ev) < run->last_ft)
			run->decreasing++;
		run->last_ft = etl_event_filetime(ev);
		{
			int i = scenario_index(ev);
			if (i == -1) {
				run->header_records++;
				continue;
			}
			ck_assert_int_ge(i, 0);
			ck_assert_int_lt(i, (int)NREC);
			run->seen[i]++;
			if (check_fields)
				check_event_fields(o, ev, (unsigned)i);
		}
	}
}

static uint8_t *build(const struct etlw_opts *o, size_t *len)
{
	uint8_t *d = NULL;

	ck_assert_int_eq(scen_build_mixed(o, NREC, &d, len), 0);
	return d;
}

static struct etl_reader *open_mem(const uint8_t *d, size_t len)
{
	struct etl_reader *r = etl_reader_new();

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "mem"), ETL_OK);
	return r;
}

/* Variants: 0 mixed64, 1 mixed32, 2 compressed64, 3 compressed32, 4 win7 CPU field, 5 one CPU */
static void variant_opts(int v, struct etlw_opts *o)
{
	etlw_default_opts(o);
	o->ncpu = 4;
	o->header_extra = v != 1;
	switch (v) {
	case 1: o->ptr_size = 4; break;
	case 2: o->compress = 1; o->buffer_size = 65536; break;
	case 3: o->compress = 1; o->ptr_size = 4; o->buffer_size = 8192; break;
	case 4: o->old_cpu_field = 1; o->ncpu = 3; break;
	case 5: o->ncpu = 1; o->clock = 2; o->start_ts = o->start_ft; break;
	default: break;
	}
}

START_TEST(every_record_every_field)
{
	struct etlw_opts o;
	struct run run;
	size_t len;
	uint8_t *d;
	struct etl_reader *r;
	unsigned i;

	variant_opts(_i, &o);
	d = build(&o, &len);
	r = open_mem(d, len);
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(run.errors, 0);
	ck_assert_uint_eq(run.header_records, o.header_extra ? 2 : 1);
	ck_assert_uint_eq(run.events, NREC + run.header_records);
	ck_assert_uint_eq(run.decreasing, 0);
	for (i = 0; i < NREC; i++)
		ck_assert_uint_eq(run.seen[i], 1);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_EVENTS), run.events);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_RECORDS_SKIPPED), 0);
	if (o.compress)
		ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BUFFERS_COMPRESSED),
				  etl_reader_count(r, ETL_COUNT_BUFFERS) - 1);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(trace_info_fields)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	struct etl_reader *r;
	const struct etl_trace_info *t;

	variant_opts(_i, &o);
	d = build(&o, &len);
	r = open_mem(d, len);
	ck_assert_int_eq(etl_reader_trace_count(r), 1);
	t = etl_reader_trace_info(r, 0);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_null(etl_reader_trace_info(r, 1));
	ck_assert_str_eq(etl_trace_info_name(t), "mem");
	ck_assert_uint_eq(etl_trace_info_buffer_size(t), o.buffer_size);
	ck_assert_uint_eq(etl_trace_info_pointer_size(t), o.ptr_size);
	ck_assert_uint_eq(etl_trace_info_cpu_count(t), o.ncpu);
	ck_assert_uint_eq(etl_trace_info_os_major(t), 10);
	ck_assert_uint_eq(etl_trace_info_os_build(t), o.os_build);
	ck_assert_uint_eq(etl_trace_info_layout_major(t), o.compress ? 2 : 1);
	ck_assert_uint_eq(etl_trace_info_start_time(t), o.start_ft);
	ck_assert_uint_eq(etl_trace_info_boot_time(t), o.start_ft - 36000000000ULL);
	ck_assert_uint_eq(etl_trace_info_perf_freq(t), o.perf_freq);
	ck_assert_uint_eq(etl_trace_info_start_timestamp_raw(t), o.start_ts);
	ck_assert_int_eq(etl_trace_info_clock_type(t), (int)o.clock);
	ck_assert_uint_eq(etl_trace_info_cpu_speed_mhz(t), o.cpu_mhz);
	ck_assert_uint_eq(etl_trace_info_timer_resolution(t), 156250);
	ck_assert_uint_eq(etl_trace_info_timer_source(t), 5);
	ck_assert_uint_eq(etl_trace_info_perf_counter_source(t), 7);
	ck_assert_int_eq(etl_trace_info_tz_bias(t), 480);
	ck_assert_int_eq(etl_trace_info_tz_daylight_bias(t), -60);
	ck_assert_str_eq(etl_trace_info_tz_standard_name(t), "@tzres.dll,-212");
	ck_assert_str_eq(etl_trace_info_tz_daylight_name(t), "@tzres.dll,-211");
	ck_assert_str_eq(etl_trace_info_logger_name(t), "libetl test");
	ck_assert_str_eq(etl_trace_info_log_file_name(t), "C:\\fixture.etl");
	ck_assert_uint_eq(etl_trace_info_log_file_mode(t), o.compress ? 0x04010001u : 1u);
	ck_assert_uint_eq(etl_trace_info_compression_format(t), o.compress ? 3 : 0);
	ck_assert_uint_eq(etl_trace_info_buffers_written(t), etl_reader_count(r, ETL_COUNT_BUFFERS));
	ck_assert_uint_eq(etl_trace_info_file_size(t), len);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(time_conversion_and_header_event)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	struct etl_reader *r;
	const struct etl_event *ev;

	etlw_default_opts(&o);
	o.perf_freq = 2500000; /* 4 FILETIME units per tick */
	d = build(&o, &len);
	r = open_mem(d, len);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
	ck_assert_int_eq(etl_event_header_kind(ev), ETL_HEADER_SYSTEM);
	ck_assert_uint_eq(etl_event_hook_id(ev), 0);
	ck_assert_uint_eq(etl_event_file_offset(ev), 0x48);
	ck_assert_uint_eq(etl_event_buffer_index(ev), 0);
	ck_assert_uint_eq(etl_event_filetime(ev), o.start_ft);
	ck_assert_int_eq(etl_event_unix_ns(ev), (int64_t)(o.start_ft - 116444736000000000ULL) * 100);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		ck_assert_uint_eq(etl_event_filetime(ev),
				  o.start_ft + (etl_event_timestamp_raw(ev) - o.start_ts) * 4);
	}
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(file_order_keeps_layout)
{
	struct etlw_opts o;
	struct run run;
	size_t len;
	uint8_t *d;
	struct etl_reader *r;
	const struct etl_event *ev;
	uint64_t last_off = 0;
	unsigned n = 0;

	variant_opts(0, &o);
	d = build(&o, &len);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		ck_assert_uint_gt(etl_event_file_offset(ev) + (n == 0), last_off);
		last_off = etl_event_file_offset(ev);
		n++;
	}
	ck_assert_uint_eq(n, NREC + 2);
	etl_reader_free(r);
	/* time order reorders the same records: the CPUs' buffers interleave */
	r = open_mem(d, len);
	drain(r, &o, &run, 0);
	ck_assert_uint_eq(run.decreasing, 0);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* A trace whose CPUs' buffers come in sequence order keeps no per-buffer index: the merge scans
 * the file again (docs/PERFORMANCE.md, constant memory). */
START_TEST(forward_scan_keeps_only_the_header_buffer)
{
	struct etlw_opts o;
	struct run run;
	size_t len;
	uint8_t *d;
	struct etl_reader *r;

	variant_opts(_i ? 2 : 0, &o); /* plain, and compressed */
	d = build(&o, &len);
	r = open_mem(d, len);
	ck_assert_int_eq(r->traces[0]->ix.forward, 1);
	ck_assert_uint_eq(r->traces[0]->ix.count, 1);
	ck_assert_uint_eq(r->traces[0]->ix.ncpus, 4);
	ck_assert_uint_gt(r->traces[0]->ix.buffers, _i ? 4 : 10);
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(run.errors, 0);
	ck_assert_uint_eq(run.events, NREC + run.header_records);
	ck_assert_int_eq(run.decreasing, 0);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BUFFERS), r->traces[0]->ix.buffers);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* A CPU's buffers out of sequence in the file: two of them swapped (damage), or the first half
 * of the data buffers moved to the end (a circular log that wrapped).  Every buffer is then kept
 * and sorted: the same events in time order. */
START_TEST(buffers_out_of_sequence_are_sorted)
{
	struct etlw_opts o;
	struct run run;
	size_t len, hb, nbuf, i, j = 0, bs;
	uint8_t *d, *tmp;
	struct etl_reader *r;
	const struct etl_event *ev;

	variant_opts(0, &o);
	d = build(&o, &len);
	hb = etl_le32(d);
	bs = o.buffer_size;
	nbuf = (len - hb) / bs;
	ck_assert_uint_ge(nbuf, 8);
	ck_assert_uint_eq(hb + nbuf * bs, len);
	tmp = malloc(len);
	ck_assert_ptr_nonnull(tmp);
	if (_i == 0) { /* swap the first two buffers of the first buffer's CPU */
		uint16_t cpu = etl_le16(d + hb + 0x28);
		for (i = 1; i < nbuf && !j; i++)
			if (etl_le16(d + hb + i * bs + 0x28) == cpu)
				j = i;
		ck_assert_uint_gt(j, 0);
		memcpy(tmp, d + hb, bs);
		memcpy(d + hb, d + hb + j * bs, bs);
		memcpy(d + hb + j * bs, tmp, bs);
	} else { /* rotate: the first half of the data buffers to the end */
		size_t half = nbuf / 2 * bs;
		memcpy(tmp, d + hb, half);
		memmove(d + hb, d + hb + half, len - hb - half);
		memcpy(d + len - half, tmp, half);
	}
	free(tmp);
	r = open_mem(d, len);
	ck_assert_int_eq(r->traces[0]->ix.forward, 0);
	ck_assert_uint_eq(r->traces[0]->ix.count, 1); /* filled when time order needs it */
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(r->traces[0]->ix.count, nbuf + 1);
	ck_assert_uint_eq(run.errors, 0);
	ck_assert_uint_eq(run.events, NREC + run.header_records);
	ck_assert_int_eq(run.decreasing, 0);
	etl_reader_free(r);
	/* file order needs no index: every record, as laid out */
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_OK);
	for (i = 0; etl_reader_next(r, &ev) == ETL_OK; i++)
		;
	ck_assert_uint_eq(i, NREC + run.header_records);
	ck_assert_uint_eq(r->traces[0]->ix.count, 1);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* The digest of what r delivers from here to the end: each error's offset and message, each
 * event's time stamp, file offset and payload and, with stacks, its stack (asking for it: the
 * stack index pass runs at the first); *events and *errors count them. */
static uint64_t digest_events(struct etl_reader *r, int stacks, unsigned *events, unsigned *errors)
{
	const struct etl_event *ev;
	uint64_t h = 1469598103934665603ull;
	int st;

	*events = *errors = 0;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		const uint8_t *p;
		size_t n, i;
		if (st != ETL_OK) {
			const char *m = etl_reader_error(r)->msg;
			(*errors)++;
			h = (h ^ etl_reader_error(r)->offset) * 1099511628211ull;
			for (; *m; m++)
				h = (h ^ (unsigned char)*m) * 1099511628211ull;
			continue;
		}
		(*events)++;
		h = (h ^ etl_event_timestamp_raw(ev)) * 1099511628211ull;
		h = (h ^ etl_event_file_offset(ev)) * 1099511628211ull;
		etl_event_payload(ev, &p, &n);
		for (i = 0; i < n; i++)
			h = (h ^ p[i]) * 1099511628211ull;
		for (i = 0; stacks && i < etl_event_stack_depth(ev); i++)
			h = (h ^ etl_event_stack_frame(ev, i)) * 1099511628211ull;
		if (stacks)
			h = (h ^ etl_event_stack_depth(ev)) * 1099511628211ull;
	}
	return h;
}

/* What the stack index pass decompressed is kept for the streams (ETL_LIMIT_KEPT_BUFFER_BYTES):
 * events, stacks and errors are those of a reader that decompresses every buffer itself, with
 * and without helper threads, whether all, some or none of the buffers fit the keep, and with a
 * compressed buffer damaged (the pass does not keep it: the stream meets the damage itself).
 * *given says how many buffers the streams took from the keep. */
static uint64_t kept_digest(const uint8_t *d, size_t len, int threads, int64_t keep, uint64_t *given)
{
	struct etl_reader *r = etl_reader_new();
	unsigned events, errors;
	uint64_t h;

	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, threads), ETL_OK);
	if (keep >= 0)
		ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_KEPT_BUFFER_BYTES, (uint64_t)keep), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_OK);
	h = digest_events(r, 1, &events, &errors);
	ck_assert_uint_gt(events, 100);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
	ck_assert_ptr_null(r->traces[0]->kept.region); /* freed at the end of the iteration */
	*given = r->traces[0]->kept.given;
	etl_reader_free(r);
	return h;
}

START_TEST(kept_buffers_change_nothing_but_time)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	uint64_t base, h, all, some, none;
	int threads[3] = { 0, 1, 3 }, k;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.ptr_size = _i == 1 ? 4 : 8;
	o.buffer_size = 1024; /* many buffers */
	o.compress = 1;
	ck_assert_int_eq(scen_build_stackkeys_rounds(&o, 40, &d, &len), 0);
	if (_i == 2)
		memset(d + len / 2, 0x5A, 48); /* damage inside a compressed buffer */
	base = kept_digest(d, len, 0, 0, &none);
	ck_assert_uint_eq(none, 0);
	for (k = 0; k < 3; k++) {
		h = kept_digest(d, len, threads[k], -1, &all); /* the default: room for every buffer */
		ck_assert_uint_eq(h, base);
		/* of 23 or 24 buffers: not the header buffer, not those the streams (and with threads,
		 * the helpers) had loaded when the first stack was asked for */
		ck_assert_uint_gt(all, 10);
		h = kept_digest(d, len, threads[k], 8 * 1088, &some); /* room for about 8 */
		ck_assert_uint_eq(h, base);
		if (threads[k] == 0)
			ck_assert_uint_gt(some, 0);
		ck_assert_uint_lt(some, all);
		h = kept_digest(d, len, threads[k], 0, &none);
		ck_assert_uint_eq(h, base);
		ck_assert_uint_eq(none, 0);
	}
	free(d);
}
END_TEST

/* ETL_OPTION_THREADS: helpers decompress ahead; the events, their order and bytes are the same
 * (compressed traces, 64-bit and 32-bit, and one damaged in a compressed buffer). */
static uint64_t run_digest(const uint8_t *d, size_t len, int threads, unsigned *events, unsigned *errors)
{
	struct etl_reader *r = etl_reader_new();
	uint64_t h;

	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, threads), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_OK);
	h = digest_events(r, 0, events, errors);
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, 1), ETL_E_MISUSE); /* too late */
	/* with helpers, every buffer is loaded by them, each stream's first one too */
	ck_assert_uint_eq(r->loaded_here, 0);
	etl_reader_free(r);
	return h;
}

START_TEST(helper_threads_change_nothing_but_time)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	unsigned ev0, er0, ev1, er1, ev3, er3;
	uint64_t h0, h1, h3;

	variant_opts(_i == 1 ? 3 : 2, &o);
	d = build(&o, &len);
	if (_i == 2)
		memset(d + len / 2, 0x5A, 64); /* damage inside a compressed buffer */
	h0 = run_digest(d, len, 0, &ev0, &er0);
	h1 = run_digest(d, len, 1, &ev1, &er1);
	h3 = run_digest(d, len, 3, &ev3, &er3);
	ck_assert_uint_gt(ev0, _i == 2 ? 100 : NREC);
	ck_assert_uint_eq(er0, _i == 2 ? er0 : 0);
	if (_i == 2)
		ck_assert_uint_gt(er0, 0);
	ck_assert_uint_eq(ev1, ev0);
	ck_assert_uint_eq(ev3, ev0);
	ck_assert_uint_eq(er1, er0);
	ck_assert_uint_eq(er3, er0);
	ck_assert_uint_eq(h1, h0);
	ck_assert_uint_eq(h3, h0);
	free(d);
}
END_TEST

/* A buffer holds more records than a helper parses ahead (PF_PARSE_MAX): it peeks the rest, and
 * the stream, parsing them itself, takes what it saw (times, the swallowed-record check, whether
 * a stack may follow) - the same events (check_threads tests the damaged and stack cases). */
START_TEST(records_past_the_parsed_share_are_peeked)
{
	struct etlw_opts o;
	struct etl_reader *r;
	size_t len;
	uint8_t *d = NULL;
	unsigned ev0, er0, ev2, er2;
	uint64_t h0, h2;

	variant_opts(0, &o);
	o.ncpu = 2;
	o.buffer_size = 1u << 20;
	o.compress = _i;
	ck_assert_int_eq(scen_build_mixed(&o, 30000, &d, &len), 0);
	r = open_mem(d, len);
	h0 = digest_events(r, 1, &ev0, &er0);
	etl_reader_free(r);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, 2), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_OK);
	h2 = digest_events(r, 1, &ev2, &er2);
	ck_assert_uint_eq(h2, h0);
	ck_assert_uint_eq(ev2, ev0);
	ck_assert_uint_eq(er2, 0);
	/* two CPUs' two buffers each (of up to about 12,500 records), the first PF_PARSE_MAX (4,096)
	 * of each parsed, the rest peeked */
	ck_assert_uint_gt(r->peeked, 30000 / 2);
	ck_assert_uint_lt(r->peeked, ev0);
	etl_reader_free(r);
	free(d);
}
END_TEST

static struct etlw *big_process_trace(struct etlw_opts *o, uint64_t *ts);

/* The digest of every event's decoding, with the name of the process it belongs to (what the
 * state the reader keeps says), reading with `threads` helpers; *helped counts the state records
 * whose facts a helper read (the reader did not decode them as it delivered them: state.c), and
 * each state record's fact must be what reading it here gives. */
static uint64_t state_digest(const uint8_t *d, size_t len, int threads, unsigned *state, unsigned *helped)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_state st;
	struct etl_decode_state dec;
	const struct etl_event *ev;
	uint64_t h = 1469598103934665603ull;
	int rc;

	memset(&st, 0, sizeof(st));
	memset(&dec, 0, sizeof(dec));
	*state = *helped = 0;
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_THREADS, threads), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "facts"), ETL_OK);
	while ((rc = etl_reader_next(r, &ev)) != ETL_END) {
		const struct etl_process *p;
		char *text;
		const char *c;
		if (rc != ETL_OK)
			continue;
		if (ev->kind != ETL_HEADER_EVENT && etl_event_updates_state(ev) && ev->state_fact) {
			struct etl_event plain = *ev;
			size_t flen = 0;
			(*state)++;
			*helped += r->dec.out_event != ev;
			plain.state_fact = NULL;
			plain.state_fact_len = 0;
			ck_assert(etl__state_changes(&st, &dec, &plain, &flen));
			ck_assert_uint_eq(flen, ev->state_fact_len);
			ck_assert(memcmp(st.fact, ev->state_fact, flen) == 0);
		}
		p = etl_reader_event_process(r, ev);
		for (c = p && etl_process_image_name(p) ? etl_process_image_name(p) : "-"; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		ck_assert_ptr_nonnull(text = decoded_text(r, ev));
		for (c = text; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		free(text);
	}
	etl_reader_free(r);
	etl__decode_state_free(&dec);
	etl__state_free(&st);
	return h;
}

/* With helper threads, the facts of the records that describe processes, threads and images
 * (state/facts.h) are read ahead by the helpers, for the buffers they load: the reader takes
 * them instead of decoding those records, and keeps the same state - each fact the one it reads
 * itself, every decoding and process name the same as without helpers.  Compressed or not, 32-
 * and 64-bit. */
START_TEST(facts_read_ahead_are_the_readers_own)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	unsigned s0, h0, s2, h2;

	struct etlw *w;
	uint64_t ts;
	unsigned i;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.buffer_size = 4096;
	o.compress = _i & 1;
	o.ptr_size = _i & 2 ? 4 : 8;
	ck_assert_ptr_nonnull(w = etlw_new(&o));
	ts = o.start_ts + 100;
	for (i = 0; i < 300; i++) { /* processes, their threads, images and samples, on both CPUs */
		char name[32];
		uint32_t pid = 1000 + 4 * (i % 60);
		snprintf(name, sizeof(name), "p%u.exe", i);
		ck_assert_int_eq(scen_process(w, &o, i % 2, i < 60 ? 1 : 3, ts++, pid, 4, 0, name, name), 0);
		ck_assert_int_eq(scen_thread(w, &o, (i + 1) % 2, 1, ts++, pid, pid + 1), 0);
		snprintf(name, sizeof(name), "\\m%u.dll", i);
		ck_assert_int_eq(scen_image(w, &o, i % 2, i % 3 ? 10 : 4, ts++, pid, 0x10000000ull + i * 0x10000ull, 0x10000, name), 0);
		ck_assert_int_eq(scen_sample(w, &o, i % 2, ts++, 0x10000010ull + i * 0x10000ull, pid + 1), 0);
		ck_assert_int_eq(scen_sample(w, &o, (i + 1) % 2, ts++, 0x1234, pid + 1), 0);
		if (i % 7 == 6)
			ck_assert_int_eq(scen_image(w, &o, i % 2, 2, ts++, pid, 0x10000000ull + i * 0x10000ull, 0x10000, name), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	ck_assert_uint_eq(state_digest(d, len, 2, &s2, &h2), state_digest(d, len, 0, &s0, &h0));
	ck_assert_uint_eq(s2, s0);
	ck_assert_uint_gt(s0, 900);
	ck_assert_uint_eq(h0, 0);      /* alone, the reader reads every one as it delivers it */
	ck_assert_uint_ge(h2, s2 / 2); /* the helpers read those of the buffers they load */
	free(d);
}
END_TEST

/* An Image/DCStop whose image the process does not have yet (a rundown at the end of a trace
 * that began after the image was loaded) is kept; one that repeats a DCStart is not.  Below the
 * size where a process's images get an index, a filter says which extents may be known, so that
 * each new one costs no walk over all of them. */
START_TEST(rundown_stops_keep_each_image_once)
{
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d = NULL;
	size_t len = 0;
	struct etl_reader *r;
	const struct etl_event *ev;
	uint64_t ts, base0 = 0x10000000ull;
	unsigned i;

	w = big_process_trace(&o, &ts);
	for (i = 0; i < 100; i++) /* DCStart of 100 images */
		ck_assert_int_eq(scen_image(w, &o, 0, 3, ts++, 500, base0 + (uint64_t)i * 0x10000, 0x10000, "\\a.dll"), 0);
	for (i = 0; i < 200; i++) /* DCStop of those (again: not kept) and of 100 more (kept) */
		ck_assert_int_eq(scen_image(w, &o, 0, 4, ts++, 500, base0 + (uint64_t)i * 0x10000, 0x10000,
					    i < 100 ? "\\a.dll" : "\\b.dll"), 0);
	for (i = 0; i < 100; i++) /* and the same base with another size: another image */
		ck_assert_int_eq(scen_image(w, &o, 0, 4, ts++, 500, base0 + (uint64_t)i * 0x10000, 0x20000, "\\c.dll"), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = open_mem(d, len);
	while (etl_reader_next(r, &ev) == ETL_OK)
		;
	ck_assert_uint_eq(etl_process_image_count(etl_reader_find_process(r, 0, 500)), 300);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(two_inputs_merge_by_time)
{
	struct etlw_opts o1, o2;
	size_t l1, l2;
	uint8_t *d1, *d2;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	uint64_t last = 0;
	unsigned n[2] = { 0, 0 }, switches = 0;
	int prev = -1;

	variant_opts(0, &o1);
	variant_opts(1, &o2);
	o2.start_ft += 150; /* interleave the two traces in time */
	d1 = build(&o1, &l1);
	d2 = build(&o2, &l2);
	ck_assert_int_eq(etl_reader_open_memory(r, d1, l1, "a"), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d2, l2, "b"), ETL_OK);
	ck_assert_int_eq(etl_reader_trace_count(r), 2);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		int t = etl_event_trace_index(ev);
		ck_assert_uint_ge(etl_event_filetime(ev), last);
		last = etl_event_filetime(ev);
		n[t]++;
		switches += prev >= 0 && prev != t;
		prev = t;
	}
	ck_assert_uint_eq(n[0], NREC + 2);
	ck_assert_uint_eq(n[1], NREC + 1);
	ck_assert_uint_gt(switches, 10);
	etl_reader_free(r);
	free(d1);
	free(d2);
}
END_TEST

/* ---- damage ---- */

/* Size of the record whose first byte is p (independent of the library's parser). */
static size_t rec_size(const uint8_t *p)
{
	uint32_t m = etl_le32(p);
	unsigned t = (m >> 16) & 0xFF;

	if ((m & 0xC0000000u) == 0xC0000000u && (t <= 4 || t == 0x10 || t == 0x11))
		return etl_le16(p + 4);
	return m & 0xFFFF; /* FULL, INSTANCE, EVENT and MESSAGE (0x90) */
}

static unsigned records_in_buffer(const uint8_t *d, size_t off)
{
	uint32_t fill = etl_le32(d + off + 0x30);
	size_t pos = ETL_BUFFER_HEADER_SIZE;
	unsigned n = 0;

	while (pos + 4 <= fill && etl_le32(d + off + pos) != 0xFFFFFFFFu) {
		pos += (rec_size(d + off + pos) + 7) & ~(size_t)7;
		n++;
	}
	return n;
}

START_TEST(zeroed_buffer_header_costs_only_that_buffer)
{
	struct etlw_opts o;
	struct run run;
	size_t len, victim;
	uint8_t *d;
	struct etl_reader *r;
	unsigned lost;

	variant_opts(0, &o);
	d = build(&o, &len);
	victim = 3 * o.buffer_size; /* the third data buffer */
	ck_assert_uint_lt(victim, len);
	lost = records_in_buffer(d, victim);
	ck_assert_uint_gt(lost, 0);
	memset(d + victim, 0x00, 8); /* BufferSize = 0 */
	r = open_mem(d, len);
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(run.errors, 1);
	ck_assert_int_eq(run.first_err_code, ETL_E_FORMAT);
	ck_assert_uint_eq(run.first_err_offset, victim);
	ck_assert_uint_eq(run.events, NREC + 2 - lost);
	ck_assert(!run.fatal);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BYTES_SKIPPED), o.buffer_size);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(bad_record_size_costs_the_rest_of_its_buffer_at_most)
{
	struct etlw_opts o;
	struct run run;
	size_t len, victim, rec;
	uint8_t *d;
	struct etl_reader *r;
	unsigned total;

	variant_opts(0, &o);
	d = build(&o, &len);
	victim = 2 * o.buffer_size;
	total = records_in_buffer(d, victim);
	/* second record of the buffer: find it and give it an absurd size */
	rec = victim + ETL_BUFFER_HEADER_SIZE;
	rec += (rec_size(d + rec) + 7) & ~(size_t)7;
	d[rec + 3] = 0x20; /* no longer a trace-header marker */
	r = open_mem(d, len);
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(run.errors, 1);
	ck_assert_uint_eq(run.first_err_offset, rec);
	/* resynchronisation finds the next record: only the damaged one is lost */
	ck_assert_uint_eq(run.events, NREC + 2 - 1);
	ck_assert_uint_gt(total, 2);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_RECORDS_SKIPPED), 1);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(truncated_file_keeps_every_whole_record)
{
	struct etlw_opts o;
	struct run run, full;
	size_t len, cut;
	uint8_t *d;
	struct etl_reader *r;

	variant_opts(0, &o);
	d = build(&o, &len);
	r = open_mem(d, len);
	drain(r, &o, &full, 0);
	etl_reader_free(r);
	for (cut = o.buffer_size; cut < len; cut += 1237) {
		r = open_mem(d, cut);
		drain(r, &o, &run, 0);
		ck_assert(!run.fatal);
		ck_assert_uint_le(run.events, full.events);
		if (cut % o.buffer_size == 0) { /* said by the buffer count alone */
			ck_assert_uint_eq(run.errors, 1);
			ck_assert_int_eq(run.first_err_code, ETL_E_TRUNCATED);
			ck_assert_uint_eq(run.first_err_offset, cut);
		} else {
			ck_assert_uint_ge(run.errors, 1);
		}
		etl_reader_free(r);
	}
	/* cut mid-buffer: the records wholly before the cut are all delivered */
	cut = 2 * o.buffer_size + 1000;
	r = open_mem(d, cut);
	drain(r, &o, &run, 1);
	{
		unsigned whole = 0;
		size_t pos = ETL_BUFFER_HEADER_SIZE, off = 2 * o.buffer_size;
		while (off + pos + 8 <= cut) {
			size_t sz = rec_size(d + off + pos);
			if (etl_le32(d + off + pos) == 0xFFFFFFFFu || off + pos + sz > cut)
				break;
			whole++;
			pos += (sz + 7) & ~(size_t)7;
		}
		ck_assert_uint_eq(run.events, 2 + records_in_buffer(d, o.buffer_size) + whole);
	}
	ck_assert_uint_eq(run.first_err_offset, 2 * o.buffer_size);
	ck_assert_int_eq(run.first_err_code, ETL_E_TRUNCATED);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(corrupt_compressed_stream_costs_its_tail)
{
	struct etlw_opts o;
	struct run run;
	size_t len, second;
	uint8_t *d;
	struct etl_reader *r;

	variant_opts(2, &o);
	d = build(&o, &len);
	second = 1024 + etl_le32(d + 1024); /* header buffer is 1 KiB; skip data buffer 1 */
	ck_assert_uint_lt(second + 200, len);
	memset(d + second + 0x48 + 100, 0xFF, 4); /* flags of all matches, far back */
	r = open_mem(d, len);
	drain(r, &o, &run, 0);
	ck_assert(!run.fatal);
	ck_assert_uint_ge(run.errors, 1);
	ck_assert_uint_lt(run.events, NREC + 2);
	ck_assert_uint_gt(run.events, NREC / 2);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(unsupported_compression_format_is_refused_per_buffer)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	struct etl_reader *r;
	const struct etl_event *ev;
	int st;
	unsigned errors = 0, events = 0;

	variant_opts(2, &o);
	d = build(&o, &len);
	d[0x2C] = 2; /* the header buffer declares LZNT1 */
	r = open_mem(d, len);
	ck_assert_uint_eq(etl_trace_info_compression_format(etl_reader_trace_info(r, 0)), 2);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st == ETL_OK) {
			events++;
			continue;
		}
		ck_assert_int_eq(st, ETL_E_UNSUPPORTED);
		ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)),
					     "compression format 2 is not supported"));
		errors++;
	}
	ck_assert_uint_eq(events, 2); /* the header buffer is not compressed */
	ck_assert_uint_eq(errors, etl_reader_count(r, ETL_COUNT_BUFFERS) - 1);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BUFFERS_SKIPPED), errors);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(not_a_trace)
{
	static const char junk[200] = "this is not an etl file";
	struct etl_reader *r = etl_reader_new();
	uint8_t hdr[0x48 + 0x20];
	const struct etl_error *e;

	ck_assert_int_eq(etl_reader_open_memory(r, junk, 10, "tiny"), ETL_E_FORMAT);
	e = etl_reader_error(r);
	ck_assert_ptr_nonnull(strstr(etl_error_message(e), "too small"));
	ck_assert_int_eq(etl_reader_open_memory(r, junk, sizeof(junk), "junk"), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "not a trace"));
	ck_assert_int_eq(etl_reader_trace_count(r), 0);
	/* a plausible buffer header that is not a header buffer */
	memset(hdr, 0xFF, sizeof(hdr));
	memset(hdr, 0, 0x48);
	hdr[0] = sizeof(hdr);
	hdr[0x30] = 0x48;
	ck_assert_int_eq(etl_reader_open_memory(r, hdr, sizeof(hdr), "x"), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "BufferType"));
	hdr[0x36] = 4; /* header type, but no logfile header record */
	ck_assert_int_eq(etl_reader_open_memory(r, hdr, sizeof(hdr), "x"), ETL_E_FORMAT);
	etl_reader_free(r);
}
END_TEST

START_TEST(record_kinds_damage_table)
{
	/* Each case: a record at offset 0x48 of a 0x100-byte buffer region. */
	static const struct {
		uint8_t bytes[24];
		size_t len;
		int status;
		size_t advance;
	} cases[] = {
		{ { 0xff, 0xff, 0xff, 0xff }, 4, ETL_END, 0 },
		/* a size smaller than the kind's header: no advance by it (the caller looks for the next
		 * record rather than step into this one) */
		{ { 0x02, 0x00, 0x02, 0xc0, 0x08, 0x00 }, 6, ETL_E_FORMAT, 0 },        /* system, size 8 < 0x20 */
		{ { 0x02, 0x00, 0x02, 0xc0, 0x00, 0x10 }, 6, ETL_E_TRUNCATED, 0 },     /* system, size 0x1000 > room */
		{ { 0x02, 0x00, 0x02, 0xc0, 0x00, 0x00 }, 6, ETL_E_FORMAT, 0 },        /* size 0 */
		{ { 0x10, 0x00, 0x0c, 0xc0 }, 4, ETL_E_UNSUPPORTED, 16 },              /* obsolete TIMED, size 16 */
		{ { 0x20, 0x00, 0x77, 0xc0 }, 4, ETL_E_UNSUPPORTED, 32 },              /* unknown type 0x77 */
		{ { 0x00, 0x00, 0x00, 0x12 }, 4, ETL_E_FORMAT, 0 },                    /* not a marker */
		{ { 0x03, 0x07, 0x11, 0xc0, 0x18, 0x00 }, 6, ETL_E_FORMAT, 0x18 },     /* perfinfo: 7 PMCs in 8 bytes (its size stands) */
		{ { 0x08, 0x00, 0x00, 0x90, 1, 0, 0x09, 0 }, 8, ETL_E_FORMAT, 8 },     /* message: options past size */
		{ { 0x30, 0x00, 0x13, 0xc0 }, 4, ETL_E_FORMAT, 0 },                    /* event header too small */
	};
	uint8_t buf[0x100];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct etl_event ev;
		struct etl_diag d;
		size_t adv = 99;
		int st;

		memset(buf, 0, sizeof(buf));
		memcpy(buf + 0x48, cases[i].bytes, cases[i].len);
		st = etl__record_parse(buf, sizeof(buf), 0x48, 8, &ev, &adv, &d);
		ck_assert_msg(st == cases[i].status, "case %zu: status %d, want %d", i, st, cases[i].status);
		if (st < 0) {
			ck_assert_msg(adv == cases[i].advance, "case %zu: advance %zu, want %zu", i, adv, cases[i].advance);
			ck_assert_uint_eq(d.offset, 0x48);
		}
	}
}
END_TEST

START_TEST(extended_item_chain_overrun)
{
	uint8_t buf[0x48 + 0x68];
	struct etl_event ev;
	struct etl_diag d;
	size_t adv;
	uint8_t *p = buf + 0x48;

	memset(buf, 0, sizeof(buf));
	p[0] = 0x68; p[2] = 0x13; p[3] = 0xc0;
	p[4] = 1; /* EXTENDED_INFO */
	/* item: size 0x40 but only 0x18 bytes remain */
	p[0x50] = 0x40; p[0x52] = 1; p[0x56] = 16;
	ck_assert_int_eq(etl__record_parse(buf, sizeof(buf), 0x48, 8, &ev, &adv, &d), ETL_E_FORMAT);
	ck_assert_uint_eq(d.offset, 0x48 + 0x50);
	ck_assert_uint_eq(adv, 0x68);
	/* a proper item with the link bit set and nothing after it */
	p[0x50] = 0x18; p[0x54] = 1;
	ck_assert_int_eq(etl__record_parse(buf, sizeof(buf), 0x48, 8, &ev, &adv, &d), ETL_E_TRUNCATED);
}
END_TEST

/* ---- API contract ---- */

START_TEST(misuse_is_reported)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;

	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_E_MISUSE);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "no input"));
	ck_assert_int_eq(etl_reader_next(NULL, &ev), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_path(NULL, "x"), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_BUFFER_SIZE, 10), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_COUNT_, 10), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_path(r, "/nonexistent/file.etl"), ETL_E_IO);
	ck_assert_int_eq(etl_error_is_fatal(etl_reader_error(r)), 0);
	variant_opts(0, &o);
	d = build(&o, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_OK);
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_BUFFER_SIZE, 1 << 20), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
	ck_assert_int_eq(etl_reader_set_order(r, ETL_ORDER_FILE), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_E_MISUSE);
	while (etl_reader_next(r, &ev) == ETL_OK)
		;
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_END);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_END);
	etl_reader_free(r);
	etl_reader_free(NULL);
	free(d);
}
END_TEST

/* ---- system state: processes, threads, images from kernel records ---- */

/* _i: 0 = 64-bit, 1 = 32-bit pointers */
START_TEST(system_state_tracks_processes_threads_images)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_process *p, *seen_stop = NULL;
	uint64_t ft = 0, base = 0, size = 0, off = 0;
	uint64_t kbase = _i ? 0x80000000ULL : 0xfffff80000000000ULL, ubase = _i ? 0x400000ULL : 0x140000000ULL;
	int32_t code = 0;
	unsigned n = 0, stacks = 0;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.ptr_size = _i ? 4 : 8;
	ck_assert_int_eq(scen_build_system(&o, &d, &len), 0);
	r = open_mem(d, len);
	ck_assert_uint_eq(etl_reader_process_count(r), 0);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		n++;
		p = etl_reader_event_process(r, ev);
		if (etl_event_hook_id(ev) == 0x0302) {
			seen_stop = p; /* the record is updated before the event is delivered */
			ck_assert_ptr_nonnull(p);
			ck_assert_str_eq(etl_process_image_name(p), "new.exe");
		}
		if (etl_event_hook_id(ev) == 0x0F2E) { /* a CPU sample: by the thread in its payload */
			ck_assert_ptr_nonnull(p);
			ck_assert_str_eq(etl_process_image_name(p), "new.exe");
			/* its stack: the StackWalk record after it (the next one names another thread) */
			ck_assert_uint_eq(etl_event_stack_depth(ev), 3);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 0), ubase + 0x1234);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 1), ubase + 0x2000);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 2), kbase + 0x10);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 3), 0);
			ck_assert_str_eq(etl_reader_resolve_address(r, p, etl_event_stack_frame(ev, 2), &off),
					 "\\SystemRoot\\system32\\ntoskrnl.exe");
			ck_assert_uint_eq(off, 0x10);
			stacks++;
		} else if (etl_event_hook_id(ev) == 0x1820) {
			ck_assert_uint_eq(etl_event_stack_depth(ev), 0); /* stack records keep none */
			stacks++;
		} else {
			ck_assert_uint_eq(etl_event_stack_depth(ev), 0);
		}
	}
	ck_assert_uint_eq(n, 18); /* 17 written + the logfile header */
	ck_assert_uint_eq(stacks, 3);
	ck_assert_ptr_nonnull(seen_stop);
	ck_assert_uint_eq(etl_reader_process_count(r), 4); /* 400, 0 (kernel images), 500, 500 again */
	ck_assert_uint_eq(etl_reader_state_dropped(r), 0);

	p = etl_reader_process_at(r, 0);
	ck_assert_uint_eq(etl_process_id(p), 400);
	ck_assert_uint_eq(etl_process_parent_id(p), 4);
	ck_assert_uint_eq(etl_process_session_id(p), 1);
	ck_assert_str_eq(etl_process_image_name(p), "old.exe");
	ck_assert_str_eq(etl_process_command_line(p), "old.exe /x");
	ck_assert_uint_eq(etl_process_start_filetime(p), 0);
	ck_assert_int_eq(etl_process_end(p, NULL, NULL), 0); /* DCStop is no end */

	p = etl_reader_process_at(r, 2);
	ck_assert_ptr_eq(p, seen_stop);
	ck_assert_str_eq(etl_process_command_line(p), "new.exe -v \"a b\"");
	ck_assert_uint_eq(etl_process_start_filetime(p), o.start_ft + 10 * 10000);
	ck_assert_int_eq(etl_process_end(p, &ft, &code), 1);
	ck_assert_int_eq(code, 3);
	ck_assert_uint_eq(ft, o.start_ft + 20 * 10000);
	ck_assert_uint_eq(etl_process_image_count(p), 1);
	ck_assert_str_eq(etl_process_image_at(p, 0, &base, &size), "\\Device\\HarddiskVolume1\\new.exe");
	ck_assert_uint_eq(base, ubase);
	ck_assert_uint_eq(size, 0x20000);
	ck_assert_ptr_null(etl_process_image_at(p, 1, NULL, NULL));
	/* addresses: the process's images, then the kernel's */
	ck_assert_str_eq(etl_reader_resolve_address(r, p, ubase + 0x1234, &off), "\\Device\\HarddiskVolume1\\new.exe");
	ck_assert_uint_eq(off, 0x1234);
	ck_assert_str_eq(etl_reader_resolve_address(r, p, kbase + 0x10, &off), "\\SystemRoot\\system32\\ntoskrnl.exe");
	ck_assert_uint_eq(off, 0x10);
	ck_assert_ptr_null(etl_reader_resolve_address(r, p, ubase + 0x20000, &off));
	ck_assert_ptr_null(etl_reader_resolve_address(r, p, 0x10, &off));

	/* threads: 5001 named by Thread/SetName; 4001 has no name */
	ck_assert_uint_eq(etl_process_thread_name_count(p), 1);
	{
		uint32_t tid = 0;
		ck_assert_str_eq(etl_process_thread_name_at(p, 0, &tid), "worker one");
		ck_assert_uint_eq(tid, 5001);
		ck_assert_ptr_null(etl_process_thread_name_at(p, 1, &tid));
	}
	ck_assert_str_eq(etl_reader_thread_name(r, 0, 5001), "worker one");
	ck_assert_ptr_null(etl_reader_thread_name(r, 0, 4001));
	ck_assert_ptr_null(etl_reader_thread_name(r, 0, 77));
	ck_assert_uint_eq(etl_process_id(etl_reader_thread_process(r, 0, 5001)), 500); /* pid 500's latest record */
	ck_assert_uint_eq(etl_process_id(etl_reader_thread_process(r, 0, 4001)), 400);
	ck_assert_ptr_null(etl_reader_thread_process(r, 1, 4001));
	ck_assert_uint_eq(etl_process_thread_name_count(etl_reader_process_at(r, 0)), 0);

	/* pid 500 now names the process that reused it */
	p = etl_reader_find_process(r, 0, 500);
	ck_assert_ptr_eq(p, etl_reader_process_at(r, 3));
	ck_assert_str_eq(etl_process_image_name(p), "reuse.exe");
	ck_assert_ptr_null(etl_reader_find_process(r, 0, 999));
	ck_assert_ptr_null(etl_reader_find_process(r, 1, 500));
	ck_assert_ptr_null(etl_reader_process_at(r, 4));
	etl_reader_free(r);
	free(d);
}
END_TEST

/* A state record is decoded as it is delivered (for the process tables) and that decoding is
 * what etl_reader_decode() first gives for it: it must be the one a decoding of its own makes,
 * errors included (a limit of 2 properties makes every state record's decoding fail, and the
 * tables must still learn from them), and an event after one whose decoding nobody asked for
 * must not get it.  One pass per way of leaving events undecoded: every third one (three
 * phases), every state record.  _i: bit 0 32-bit pointers, bit 1 the limit. */
static void decode_pass(const uint8_t *d, size_t len, int limit, int skip)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned n = 0, states = 0, failed = 0, decoded = 0;

	ck_assert_ptr_nonnull(r);
	if (limit)
		ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_PROPERTIES, 2), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "mem"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		char *first, *again;
		int state = etl_event_updates_state(ev);
		states += state;
		if (skip < 3 ? n++ % 3 == (unsigned)skip : (n++, state))
			continue; /* not decoded: the next event must not be given this one's decoding */
		first = decoded_text(r, ev);
		again = decoded_text(r, ev);
		ck_assert_ptr_nonnull(first);
		ck_assert_ptr_nonnull(again);
		ck_assert_str_eq(first, again);
		failed += strncmp(first, "status 0\n", 9) != 0 && state;
		decoded += state;
		free(first);
		free(again);
	}
	ck_assert_uint_eq(n, 18);
	ck_assert_uint_ge(states, 5);
	ck_assert_uint_eq(failed, limit ? decoded : 0);
	/* the tables are those of system_state_tracks_processes_threads_images, limit or not */
	ck_assert_uint_eq(etl_reader_process_count(r), 4);
	ck_assert_str_eq(etl_process_image_name(etl_reader_find_process(r, 0, 500)), "reuse.exe");
	ck_assert_str_eq(etl_process_command_line(etl_reader_process_at(r, 0)), "old.exe /x");
	ck_assert_str_eq(etl_reader_thread_name(r, 0, 5001), "worker one");
	etl_reader_free(r);
}

START_TEST(decoding_at_delivery_is_the_decoding)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	int skip;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.ptr_size = _i & 1 ? 4 : 8;
	ck_assert_int_eq(scen_build_system(&o, &d, &len), 0);
	for (skip = 0; skip <= 3; skip++)
		decode_pass(d, len, _i & 2, skip);
	free(d);
}
END_TEST

/* A one-CPU, 64-bit writer whose trace starts with the rundown of process 500 (big.exe); *ts
 * is the next time stamp to use. */
static struct etlw *big_process_trace(struct etlw_opts *o, uint64_t *ts)
{
	struct etlw *w;

	etlw_default_opts(o);
	o->ncpu = 1;
	o->ptr_size = 8;
	o->buffer_size = 65536;
	w = etlw_new(o);
	ck_assert_ptr_nonnull(w);
	*ts = o->start_ts + 100;
	ck_assert_int_eq(scen_process(w, o, 0, 3, (*ts)++, 500, 4, 0, "big.exe", "big.exe"), 0);
	return w;
}

/* ROBUSTNESS.md: a process with many images cost, for each Image/DCStop and Unload record,
 * a walk over all of them, and for each stack frame no image holds, another: a crafted trace
 * of 60,000 image rundowns, their 60,000 DCStops, 30,000 unloads of a reused base and 1,000
 * samples with 64 frames each took seconds per megabyte.  Now hash tables and an index
 * (state/images.c); the answers stay those of the plain search (check_units). */
START_TEST(many_images_cost_little)
{
	enum { N = 60000, SAMPLES = 1000, FRAMES = 64 };
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d = NULL, stack[16 + 8 * FRAMES];
	size_t len = 0;
	struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_process *p;
	uint64_t ts, base0 = 0x10000000ull, off = 0;
	unsigned i, k, resolved = 0, frames = 0;
	double t0;

	w = big_process_trace(&o, &ts);
	ck_assert_int_eq(scen_thread(w, &o, 0, 3, ts++, 500, 5001), 0);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(scen_image(w, &o, 0, 3, ts++, 500, base0 + (uint64_t)i * 0x10000, 0x10000, "\\x.dll"), 0);
	for (i = 0; i < N; i++) /* each repeats a rundown: none is kept again */
		ck_assert_int_eq(scen_image(w, &o, 0, 4, ts++, 500, base0 + (uint64_t)i * 0x10000, 0x10000, "\\x.dll"), 0);
	for (i = 0; i < N / 2; i++) /* loads and unloads at one base: each unload finds the newest */
		ck_assert_int_eq(scen_image(w, &o, 0, i % 2 ? 2 : 10, ts++, 500, 0x7f0000000000ull, 0x10000, "\\y.dll"), 0);
	for (i = 0; i < SAMPLES; i++) {
		etlw_put64(stack, ts); /* StackWalk/Stack: EventTimeStamp, process, thread, frames */
		etlw_put32(stack + 8, 500);
		etlw_put32(stack + 12, 5001);
		for (k = 0; k < FRAMES; k++) /* half in no image (each its own page), half in one */
			etlw_put64(stack + 16 + 8 * k, k % 2 ? base0 + ((uint64_t)(i * FRAMES + k) % N) * 0x10000 + 0x10
							  : 0x7000000000ull + (uint64_t)(i * FRAMES + k) * 0x1000);
		ck_assert_int_eq(scen_sample(w, &o, 0, ts, 0x1234, 5001), 0);
		ck_assert_int_eq(etlw_perfinfo(w, 0, 2, 0x1820, ts, NULL, 0, NULL, stack, sizeof(stack)), 0);
		ts++;
	}
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);

	t0 = test_cpu_seconds();
	r = open_mem(d, len);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		size_t n = etl_event_stack_depth(ev);
		p = etl_reader_event_process(r, ev);
		for (k = 0; k < n; k++, frames++)
			resolved += etl_reader_resolve_address(r, p, etl_event_stack_frame(ev, k), &off) != NULL;
	}
	ck_assert_double_lt(test_cpu_seconds() - t0, 3.0 * test_slowdown()); /* about 0.2 s here; minutes before */
	p = etl_reader_find_process(r, 0, 500);
	ck_assert_uint_eq(etl_process_image_count(p), N + N / 4);
	ck_assert_uint_eq(frames, SAMPLES * FRAMES);
	ck_assert_uint_eq(resolved, SAMPLES * FRAMES / 2);
	ck_assert_uint_eq(off, 0x10);
	{ /* every other load at the reused base was unloaded (the newest one each time) */
		uint64_t b, sz;
		unsigned unloaded = 0;
		for (i = N; i < N + N / 4; i++) {
			ck_assert_str_eq(etl_process_image_at(p, i, &b, &sz), "\\y.dll");
			unloaded += p->images[i].unload_time != 0;
		}
		ck_assert_uint_eq(unloaded, N / 4);
	}
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ROBUSTNESS.md: each Thread/SetName record walked the named threads of its process: 100,000
 * names (4 MB) took 1.5 s, a million minutes.  Now a table by thread id; the latest name of
 * each thread is kept, in the order the threads were first named. */
static int set_name(struct etlw *w, uint64_t ts, uint32_t pid, uint32_t tid, const char *name)
{
	uint8_t b[64];
	size_t k = 8, j;

	etlw_put32(b, pid);
	etlw_put32(b + 4, tid);
	for (j = 0; name[j] && k + 4 <= sizeof(b); j++) {
		b[k++] = (uint8_t)name[j];
		b[k++] = 0;
	}
	b[k++] = 0;
	b[k++] = 0;
	return etlw_perfinfo(w, 0, 2, 0x0548, ts, NULL, 0, NULL, b, k);
}

START_TEST(many_thread_names_cost_little)
{
	enum { N = 100000 };
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d = NULL;
	size_t len = 0;
	struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_process *p;
	uint64_t ts;
	uint32_t tid = 0;
	unsigned i;
	double t0;

	w = big_process_trace(&o, &ts);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(set_name(w, ts++, 500, 8 + 4 * i, "worker"), 0);
	for (i = 0; i < N; i += 3) /* renamed, and named the same again */
		ck_assert_int_eq(set_name(w, ts++, 500, 8 + 4 * i, i % 2 ? "renamed" : "worker"), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);

	t0 = test_cpu_seconds();
	r = open_mem(d, len);
	while (etl_reader_next(r, &ev) == ETL_OK)
		;
	ck_assert_double_lt(test_cpu_seconds() - t0, 2.0 * test_slowdown()); /* about 0.1 s here */
	p = etl_reader_find_process(r, 0, 500);
	ck_assert_uint_eq(etl_process_thread_name_count(p), N);
	for (i = 0; i < N; i += 1111) {
		ck_assert_str_eq(etl_process_thread_name_at(p, i, &tid), i % 3 == 0 && i % 2 ? "renamed" : "worker");
		ck_assert_uint_eq(tid, 8 + 4 * i);
	}
	ck_assert_uint_eq(etl_reader_state_dropped(r), 0);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Compressed stacks: StackKeyKernel/User records name keys that KeyDelete/KeyRundown define
 * later; a key evicted and used again means another stack; a stack record logged away from
 * its event is found by the event's time stamp and thread.  _i: 64- or 32-bit. */
static void expect_frames(const struct etl_event *ev, const uint64_t *want, size_t n)
{
	size_t i;

	ck_assert_uint_eq(etl_event_stack_depth(ev), n);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(etl_event_stack_frame(ev, i), want[i]);
	ck_assert_uint_eq(etl_event_stack_frame(ev, n), 0);
}

START_TEST(stack_keys_and_deferred_stacks)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;
	struct etl_reader *r;
	const struct etl_event *ev;
	struct etl_event *copy_a = NULL;
	uint64_t kb = _i ? 0x80000000ULL : 0xfffff80000000000ULL, ub = _i ? 0x400000ULL : 0x140000000ULL;
	const uint64_t a[4] = { kb + 0x10, kb + 0x11, ub + 0x100, ub + 0x200 }, b[2] = { kb + 0x10, kb + 0x11 };
	const uint64_t c[1] = { kb + 0x30 }, e[1] = { ub + 1 };
	unsigned samples = 0, n = 0;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.ptr_size = _i ? 4 : 8;
	ck_assert_int_eq(scen_build_stackkeys(&o, &d, &len), 0);
	r = open_mem(d, len);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		n++;
		if (etl_event_hook_id(ev) != 0x0F2E) {
			ck_assert_uint_eq(etl_event_stack_depth(ev), 0);
			continue;
		}
		switch (samples++) {
		case 0: /* the kernel key, then the user key logged later on the other CPU */
			expect_frames(ev, a, 4);
			ck_assert_int_eq(etl_event_copy(ev, &copy_a), ETL_OK);
			break;
		case 1: expect_frames(ev, b, 2); break;     /* defined by the KeyDelete after it */
		case 2: expect_frames(ev, c, 1); break;     /* the key reused: the KeyRundown's stack */
		case 3: expect_frames(ev, NULL, 0); break;  /* never defined */
		case 4: expect_frames(ev, e, 1); break;     /* a Stack record on the other CPU */
		}
	}
	ck_assert_uint_eq(samples, 5);
	ck_assert_uint_eq(n, 15); /* 14 written + the logfile header */
	ck_assert_int_eq(etl_reader_count(r, ETL_COUNT_ERRORS), 0);
	ck_assert_int_eq(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 0);
	etl_reader_free(r);
	/* the copy holds its frames */
	expect_frames(copy_a, a, 4);
	etl_event_free(copy_a);

	/* no memory for the definitions: no compressed stacks, everything else as before */
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_STACK_KEY_BYTES, 1), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "keys"), ETL_OK);
	samples = n = 0;
	while (etl_reader_next(r, &ev) == ETL_OK) {
		n++;
		if (etl_event_hook_id(ev) == 0x0F2E)
			ck_assert_uint_eq(etl_event_stack_depth(ev), 0);
	}
	ck_assert_uint_eq(n, 15);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_STACKS_DROPPED), 5); /* 3 definitions, 2 records */
	etl_reader_free(r);

	/* room for part of the index: some limit keeps part of the records and counts the rest, and
	 * enough room keeps them all (the bytes a record takes depend on the platform's struct sizes,
	 * so the limits are searched, not fixed) */
	{
		uint64_t limit, last = 5;
		int partial = 0;
		for (limit = 16; last > 0 && limit <= 4096; limit += 8) {
			uint64_t dropped;
			r = etl_reader_new();
			ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_STACK_KEY_BYTES, limit), ETL_OK);
			ck_assert_int_eq(etl_reader_open_memory(r, d, len, "keys"), ETL_OK);
			n = 0;
			while (etl_reader_next(r, &ev) == ETL_OK)
				n += etl_event_stack_depth(ev) > 0;
			dropped = etl_reader_count(r, ETL_COUNT_STACKS_DROPPED);
			ck_assert_uint_le(dropped, 5);
			if (dropped > 0 && dropped < 5 && n > 0)
				partial = 1;
			last = dropped;
			etl_reader_free(r);
		}
		ck_assert_uint_eq(last, 0); /* enough room keeps everything */
		ck_assert(partial);
	}
	free(d);
}
END_TEST

/* EVENT_HEADER records carry their stack in an extended item: 64-bit (type 6) or 32-bit (type 5)
 * addresses after an 8-byte match id. */
START_TEST(stack_extended_items)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_event e;
	struct etlw_ext ext;
	uint8_t st64[8 + 3 * 8], st32[8 + 2 * 4], *d;
	size_t len, i;
	struct etl_reader *r;
	const struct etl_event *ev;
	unsigned seen = 0;

	memset(st64, 0, sizeof(st64));
	memset(st32, 0, sizeof(st32));
	for (i = 0; i < 3; i++) {
		uint64_t a = 0x7ff612340000ULL + 0x10 * i;
		unsigned k;
		for (k = 0; k < 8; k++)
			st64[8 + 8 * i + k] = (uint8_t)(a >> (8 * k));
	}
	st32[8] = 0x78; st32[9] = 0x56; st32[10] = 0x34; st32[11] = 0x12;
	st32[12] = 0x01; st32[13] = 0x00; st32[14] = 0x40; st32[15] = 0x00;
	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&e, 0, sizeof(e));
	e.provider = scen_provider;
	e.id = 7;
	e.pid = 10;
	e.tid = 11;
	e.ts = o.start_ts + 5;
	ext.type = ETL_EXT_STACK_TRACE64;
	ext.data = st64;
	ext.len = sizeof(st64);
	ck_assert_int_eq(etlw_event(w, 0, &e, &ext, 1, "ab", 2), 0);
	e.ts++;
	ext.type = ETL_EXT_STACK_TRACE32;
	ext.data = st32;
	ext.len = sizeof(st32);
	ck_assert_int_eq(etlw_event(w, 0, &e, &ext, 1, "ab", 2), 0);
	e.ts++;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, "ab", 2), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = open_mem(d, len);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		if (seen == 0) {
			ck_assert_uint_eq(etl_event_stack_depth(ev), 3);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 0), 0x7ff612340000ULL);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 2), 0x7ff612340020ULL);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 3), 0);
		} else if (seen == 1) {
			ck_assert_uint_eq(etl_event_stack_depth(ev), 2);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 0), 0x12345678);
			ck_assert_uint_eq(etl_event_stack_frame(ev, 1), 0x400001);
		} else {
			ck_assert_uint_eq(etl_event_stack_depth(ev), 0);
		}
		seen++;
	}
	ck_assert_uint_eq(seen, 3);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(limits_are_enforced)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	struct etl_reader *r = etl_reader_new();

	variant_opts(0, &o);
	d = build(&o, &len);
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_BUFFER_SIZE, 1024), ETL_OK);
	ck_assert_uint_eq(etl_reader_get_limit(r, ETL_LIMIT_BUFFER_SIZE), 1024);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_E_LIMIT);
	etl_reader_free(r);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_BUFFER_COUNT, 3), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, NULL), ETL_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "limit"));
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(event_copy_outlives_the_reader)
{
	struct etlw_opts o;
	size_t len, n1, n2;
	uint8_t *d;
	struct etl_reader *r;
	const struct etl_event *ev;
	struct etl_event *copy = NULL;
	const uint8_t *p1, *p2;
	int i = 0;

	variant_opts(0, &o);
	d = build(&o, &len);
	r = open_mem(d, len);
	while (etl_reader_next(r, &ev) == ETL_OK)
		if (etl_event_header_kind(ev) == ETL_HEADER_EVENT && etl_event_extended_count(ev) == 2)
			break;
	ck_assert_int_eq(etl_event_copy(ev, &copy), ETL_OK);
	etl_event_payload(ev, &p1, &n1);
	i = (int)etl_event_tid(ev);
	etl_reader_free(r);
	memset(d, 0, len); /* the copy must not point into the input */
	free(d);
	etl_event_payload(copy, &p2, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_uint_eq(etl_event_tid(copy), (uint32_t)i);
	ck_assert_uint_eq(etl_event_extended_count(copy), 2);
	ck_assert(etl_guid_equal(etl_event_related_activity_id(copy), &scen_related));
	for (size_t k = 0; k < n2; k++)
		ck_assert_uint_eq(p2[k], scen_payload_byte((unsigned)(i - 4000), k));
	etl_event_free(copy);
}
END_TEST

START_TEST(allocation_failures_are_clean)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	unsigned long n;
	int succeeded = 0;

	variant_opts(2, &o); /* compressed: every allocation path */
	d = build(&o, &len);
	for (n = 1; n < 200 && !succeeded; n++) {
		struct etl_reader *r;
		const struct etl_event *ev;
		int st = ETL_OK, got_nomem = 0;
		unsigned events = 0;

		etl__test_fail_alloc_after(n);
		r = etl_reader_new();
		if (!r)
			continue;
		st = etl_reader_open_memory(r, d, len, "m");
		if (st == ETL_E_NOMEM)
			got_nomem = 1;
		else {
			ck_assert_int_eq(st, ETL_OK);
			while ((st = etl_reader_next(r, &ev)) != ETL_END) {
				if (st == ETL_OK) {
					events++;
					continue;
				}
				ck_assert_int_eq(st, ETL_E_NOMEM);
				ck_assert(etl_error_is_fatal(etl_reader_error(r)));
				ck_assert_int_eq(etl_reader_next(r, &ev), ETL_E_NOMEM); /* sticky */
				got_nomem = 1;
				break;
			}
		}
		if (!got_nomem) {
			ck_assert_uint_eq(events, NREC + 2);
			succeeded = 1;
		}
		etl_reader_free(r);
	}
	etl__test_fail_alloc_after(0);
	ck_assert(succeeded);
	free(d);
}
END_TEST

START_TEST(pipe_is_spooled)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	int fds[2];
	pid_t child;
	struct etl_reader *r;
	struct run run;

	variant_opts(1, &o);
	d = build(&o, &len);
	ck_assert_int_eq(pipe(fds), 0);
	child = fork();
	if (child == 0) {
		size_t off = 0;
		close(fds[0]);
		while (off < len) {
			ssize_t w = write(fds[1], d + off, len - off);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_fd(r, fds[0], "pipe"), ETL_OK);
	close(fds[0]);
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(run.events, NREC + 1);
	ck_assert_uint_eq(run.errors, 0);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(path_and_fd_sources)
{
	struct etlw_opts o;
	size_t len;
	uint8_t *d;
	char path[] = "/tmp/check_reader_XXXXXX";
	int fd;
	struct etl_reader *r;
	struct run run;

	variant_opts(3, &o);
	d = build(&o, &len);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq((int)write(fd, d, len), (int)len);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(run.events, NREC + 2);
	etl_reader_free(r);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_fd(r, fd, NULL), ETL_OK);
	drain(r, &o, &run, 1);
	ck_assert_uint_eq(run.events, NREC + 2);
	ck_assert_str_eq(etl_trace_info_name(etl_reader_trace_info(r, 0)), "(fd)");
	etl_reader_free(r);
	close(fd);
	unlink(path);
	free(d);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *t = tcase_create("read");
	TCase *dmg = tcase_create("damage");
	TCase *api = tcase_create("api");

	tcase_add_loop_test(t, every_record_every_field, 0, 6);
	tcase_add_loop_test(t, trace_info_fields, 0, 6);
	tcase_add_test(t, time_conversion_and_header_event);
	tcase_add_test(t, file_order_keeps_layout);
	tcase_add_loop_test(t, forward_scan_keeps_only_the_header_buffer, 0, 2);
	tcase_add_loop_test(t, buffers_out_of_sequence_are_sorted, 0, 2);
	tcase_add_loop_test(t, helper_threads_change_nothing_but_time, 0, 3);
	tcase_add_loop_test(t, records_past_the_parsed_share_are_peeked, 0, 2);
	tcase_add_loop_test(t, kept_buffers_change_nothing_but_time, 0, 3);
	tcase_add_test(t, two_inputs_merge_by_time);
	tcase_add_test(dmg, zeroed_buffer_header_costs_only_that_buffer);
	tcase_add_test(dmg, bad_record_size_costs_the_rest_of_its_buffer_at_most);
	tcase_add_test(dmg, truncated_file_keeps_every_whole_record);
	tcase_add_test(dmg, corrupt_compressed_stream_costs_its_tail);
	tcase_add_test(dmg, not_a_trace);
	tcase_add_test(dmg, unsupported_compression_format_is_refused_per_buffer);
	tcase_add_test(dmg, record_kinds_damage_table);
	tcase_add_test(dmg, extended_item_chain_overrun);
	tcase_add_test(api, misuse_is_reported);
	tcase_add_loop_test(api, system_state_tracks_processes_threads_images, 0, 2);
	tcase_add_loop_test(api, decoding_at_delivery_is_the_decoding, 0, 4);
	tcase_add_test(api, many_images_cost_little);
	tcase_add_test(api, many_thread_names_cost_little);
	tcase_add_test(api, limits_are_enforced);
	tcase_add_test(api, stack_extended_items);
	tcase_add_loop_test(api, stack_keys_and_deferred_stacks, 0, 2);
	tcase_add_test(api, event_copy_outlives_the_reader);
	tcase_add_test(api, allocation_failures_are_clean);
	tcase_add_test(api, pipe_is_spooled);
	tcase_add_test(api, path_and_fd_sources);
	tcase_add_loop_test(api, facts_read_ahead_are_the_readers_own, 0, 4);
	tcase_add_test(api, rundown_stops_keep_each_image_once);
	tcase_set_timeout(t, 60);
	tcase_set_timeout(dmg, 120);
	tcase_set_timeout(api, 120);
	suite_add_tcase(s, t);
	suite_add_tcase(s, dmg);
	suite_add_tcase(s, api);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reader_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
