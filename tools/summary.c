/*
 * summary.c - what etldump prints instead of events: --stats and --providers
 * (tallies by provider and event name), --processes (the reader's process
 * table) and --info (each input's trace information), as text or JSON.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "out.h"
#include "render.h"
#include "report.h"
#include "summary.h"

void info_text(const struct etl_trace_info *t, int index)

{
	char start[ETL_FILETIME_STRING_SIZE], end[ETL_FILETIME_STRING_SIZE], boot[ETL_FILETIME_STRING_SIZE];
	size_t i;

	if (index)
		out_char('\n');
	etl_filetime_format(etl_trace_info_start_time(t), start);
	etl_filetime_format(etl_trace_info_end_time(t), end);
	etl_filetime_format(etl_trace_info_boot_time(t), boot);
	out_printf("file:               %s\n", etl_trace_info_name(t));
	if (etl_trace_info_container(t)[0])
		out_printf("container:          %s\n", etl_trace_info_container(t));
	for (i = 0; i < etl_trace_info_other_member_count(t); i++)
		out_printf("other member:       %s\n", etl_trace_info_other_member(t, i));
	out_printf("size:               %" PRIu64 " bytes\n", etl_trace_info_file_size(t));
	out_printf("logger name:        %s\n", etl_trace_info_logger_name(t));
	out_printf("log file name:      %s\n", etl_trace_info_log_file_name(t));
	out_printf("os version:         %u.%u build %u\n", etl_trace_info_os_major(t),
	       etl_trace_info_os_minor(t), etl_trace_info_os_build(t));
	out_printf("file layout:        %u.%u\n", etl_trace_info_layout_major(t), etl_trace_info_layout_minor(t));
	out_printf("pointer size:       %u\n", etl_trace_info_pointer_size(t));
	out_printf("processors:         %u\n", etl_trace_info_cpu_count(t));
	out_printf("cpu speed:          %u MHz\n", etl_trace_info_cpu_speed_mhz(t));
	out_printf("buffer size:        %u\n", etl_trace_info_buffer_size(t));
	out_printf("buffers written:    %u\n", etl_trace_info_buffers_written(t));
	out_printf("buffers lost:       %u\n", etl_trace_info_buffers_lost(t));
	out_printf("events lost:        %u\n", etl_trace_info_events_lost(t));
	out_printf("log file mode:      0x%08x\n", etl_trace_info_log_file_mode(t));
	out_printf("compression:        %u\n", etl_trace_info_compression_format(t));
	out_printf("maximum file size:  %u\n", etl_trace_info_maximum_file_size(t));
	out_printf("start time:         %s\n", start);
	out_printf("end time:           %s\n", end);
	out_printf("boot time:          %s\n", boot);
	out_printf("clock type:         %s\n", etl_clock_name(etl_trace_info_clock_type(t)));
	out_printf("perf frequency:     %" PRIu64 "\n", etl_trace_info_perf_freq(t));
	out_printf("timer resolution:   %u (100 ns units)\n", etl_trace_info_timer_resolution(t));
	out_printf("timer source:       %u\n", etl_trace_info_timer_source(t));
	out_printf("perf counter source:%u\n", etl_trace_info_perf_counter_source(t));
	out_printf("start timestamp:    %" PRIu64 "\n", etl_trace_info_start_timestamp_raw(t));
	out_printf("time zone bias:     %d min\n", etl_trace_info_tz_bias(t));
	out_printf("time zone standard: %s (bias %d)\n", etl_trace_info_tz_standard_name(t),
	       etl_trace_info_tz_standard_bias(t));
	out_printf("time zone daylight: %s (bias %d)\n", etl_trace_info_tz_daylight_name(t),
	       etl_trace_info_tz_daylight_bias(t));
}

void info_json(const struct etl_trace_info *t, int index)
{
	char start[ETL_FILETIME_STRING_SIZE], end[ETL_FILETIME_STRING_SIZE], boot[ETL_FILETIME_STRING_SIZE];
	size_t i;

	etl_filetime_format(etl_trace_info_start_time(t), start);
	etl_filetime_format(etl_trace_info_end_time(t), end);
	etl_filetime_format(etl_trace_info_boot_time(t), boot);
	out_printf("{\"type\":\"trace\"");
	out_json_kv_str("file", etl_trace_info_name(t), 1);
	out_json_kv_str("container", etl_trace_info_container(t), 1);
	out_printf(",\"other_members\":[");
	for (i = 0; i < etl_trace_info_other_member_count(t); i++) {
		out_printf("%s\"", i ? "," : "");
		out_json_str(etl_trace_info_other_member(t, i));
		out_char('"');
	}
	out_printf("],\"size\":%" PRIu64, etl_trace_info_file_size(t));
	out_json_kv_str("logger_name", etl_trace_info_logger_name(t), 1);
	out_json_kv_str("log_file_name", etl_trace_info_log_file_name(t), 1);
	out_printf(",\"os_major\":%u,\"os_minor\":%u,\"os_build\":%u,\"layout\":\"%u.%u\"",
	       etl_trace_info_os_major(t), etl_trace_info_os_minor(t), etl_trace_info_os_build(t),
	       etl_trace_info_layout_major(t), etl_trace_info_layout_minor(t));
	out_printf(",\"pointer_size\":%u,\"cpu_count\":%u,\"cpu_speed_mhz\":%u,\"buffer_size\":%u",
	       etl_trace_info_pointer_size(t), etl_trace_info_cpu_count(t),
	       etl_trace_info_cpu_speed_mhz(t), etl_trace_info_buffer_size(t));
	out_printf(",\"buffers_written\":%u,\"buffers_lost\":%u,\"events_lost\":%u,\"log_file_mode\":%u",
	       etl_trace_info_buffers_written(t), etl_trace_info_buffers_lost(t),
	       etl_trace_info_events_lost(t), etl_trace_info_log_file_mode(t));
	out_printf(",\"compression_format\":%u,\"maximum_file_size\":%u",
	       etl_trace_info_compression_format(t), etl_trace_info_maximum_file_size(t));
	out_printf(",\"start_time\":\"%s\",\"end_time\":\"%s\",\"boot_time\":\"%s\"", start, end, boot);
	out_printf(",\"start_filetime\":%" PRIu64 ",\"end_filetime\":%" PRIu64,
	       etl_trace_info_start_time(t), etl_trace_info_end_time(t));
	out_printf(",\"clock_type\":\"%s\",\"perf_freq\":%" PRIu64 ",\"timer_resolution\":%u",
	       etl_clock_name(etl_trace_info_clock_type(t)), etl_trace_info_perf_freq(t),
	       etl_trace_info_timer_resolution(t));
	out_printf(",\"timer_source\":%u,\"perf_counter_source\":%u,\"start_timestamp\":%" PRIu64,
	       etl_trace_info_timer_source(t), etl_trace_info_perf_counter_source(t),
	       etl_trace_info_start_timestamp_raw(t));
	out_printf(",\"tz_bias\":%d,\"tz_standard_bias\":%d,\"tz_daylight_bias\":%d",
	       etl_trace_info_tz_bias(t), etl_trace_info_tz_standard_bias(t),
	       etl_trace_info_tz_daylight_bias(t));
	out_json_kv_str("tz_standard_name", etl_trace_info_tz_standard_name(t), 1);
	out_json_kv_str("tz_daylight_name", etl_trace_info_tz_daylight_name(t), 1);
	out_printf("}\n");
}

/* --processes: every process record the trace described */
static void print_processes(struct etl_reader *r, int json)
{
	size_t i, n = etl_reader_process_count(r);
	char start[ETL_FILETIME_STRING_SIZE], end[ETL_FILETIME_STRING_SIZE];

	if (!json)
		out_printf("%-5s %8s %8s %-28s %-28s %11s  %s %s\n", "trace", "pid", "ppid", "start", "end", "exit",
		       "image", "command line");
	for (i = 0; i < n; i++) {
		const struct etl_process *p = etl_reader_process_at(r, i);
		uint64_t st = etl_process_start_filetime(p), et = 0;
		int32_t code = 0;
		int ended = etl_process_end(p, &et, &code);

		if (st)
			etl_filetime_format(st, start);
		else
			snprintf(start, sizeof(start), "-");
		if (ended)
			etl_filetime_format(et, end);
		else
			snprintf(end, sizeof(end), "-");
		if (json) {
			out_printf("{\"type\":\"process\",\"trace\":%d,\"pid\":%u", etl_process_trace_index(p),
			       etl_process_id(p));
			if (etl_process_parent_id(p) != ETL_ID_NONE)
				out_printf(",\"parent_pid\":%u", etl_process_parent_id(p));
			if (etl_process_session_id(p) != ETL_ID_NONE)
				out_printf(",\"session_id\":%u", etl_process_session_id(p));
			if (st)
				out_printf(",\"start\":\"%s\"", start);
			if (ended)
				out_printf(",\"end\":\"%s\",\"exit_status\":%d", end, code);
			out_cstr(",\"image\":\"");
			out_json_str(etl_process_image_name(p));
			out_cstr("\",\"command_line\":\"");
			out_json_str(etl_process_command_line(p));
			out_printf("\",\"images\":%zu}\n", etl_process_image_count(p));
			continue;
		}
		out_printf("%-5d %8u ", etl_process_trace_index(p), etl_process_id(p));
		if (etl_process_parent_id(p) != ETL_ID_NONE)
			out_printf("%8u ", etl_process_parent_id(p));
		else
			out_printf("%8s ", "-");
		out_printf("%-28s %-28s ", start, end);
		if (ended)
			out_printf("%11d  ", code);
		else
			out_printf("%11s  ", "-");
		out_text_value(*etl_process_image_name(p) ? etl_process_image_name(p) : "-");
		out_char(' ');
		out_text_value(etl_process_command_line(p));
		out_char('\n');
	}
}


/* The index of the tallies by key: entries are a tally's number. */
struct tally_key {
	const struct tallies *ts;
	const char *key;
};

static int tally_eq(const void *entry, const void *key)
{
	const struct tally_key *k = key;

	return strcmp(k->ts->t[*(const uint32_t *)entry].key, k->key) == 0;
}

static struct tally *tally_get(struct tallies *ts, const char *key)
{
	uint64_t h = hmap_hash_bytes(key, strlen(key), 0);
	struct tally_key k = { ts, key };
	uint32_t *at;
	struct tally *t;

	if (!ts->index.size)
		hmap_init(&ts->index, sizeof(uint32_t));
	if ((at = hmap_find(&ts->index, h, tally_eq, &k)) != NULL)
		return &ts->t[*at];
	if (ts->n >= UINT32_MAX || grow_array(&ts->t, &ts->cap, ts->n + 1, sizeof(*ts->t), 64) != 0)
		return NULL;
	t = &ts->t[ts->n];
	memset(t, 0, sizeof(*t));
	t->key = strdup(key);
	if (!t->key || !(at = hmap_insert(&ts->index, h))) {
		free(t->key);
		return NULL;
	}
	*at = (uint32_t)ts->n++;
	t->source = -1;
	return t;
}

static int tally_cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	if (x->events != y->events)
		return x->events < y->events ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void tallies_free(struct tallies *ts)
{
	size_t i;
	for (i = 0; i < ts->n; i++)
		free(ts->t[i].key);
	free(ts->t);
	hmap_free(&ts->index);
	memset(ts, 0, sizeof(*ts));
}

static uint64_t event_ident(const struct etl_event *ev)
{
	return (uint64_t)etl_event_id(ev) | (uint64_t)etl_event_version(ev) << 16 |
	       (uint64_t)etl_event_opcode(ev) << 24 | (uint64_t)etl_event_task(ev) << 32 |
	       (uint64_t)etl_event_header_kind(ev) << 48;
}

/* The cache slot of the event's identity (set to it if it held another), NULL without memory. */
static struct summary_slot *cache_slot(struct summary *sm, const struct etl_event *ev)
{
	const struct etl_guid *g = etl_event_provider(ev);
	uint64_t ident = event_ident(ev), h;
	struct summary_slot *s;

	if (!sm->cache && !(sm->cache = calloc(SUMMARY_CACHE_SLOTS, sizeof(*sm->cache))))
		return NULL;
	h = (ident ^ g->data1 ^ (uint64_t)g->data2 << 32 ^ (uint64_t)g->data4[7] << 40) * 0x9E3779B97F4A7C15ull;
	s = &sm->cache[h >> 54]; /* 10 bits: SUMMARY_CACHE_SLOTS */
	if (s->ident != ident || memcmp(&s->provider, g, sizeof(*g)) != 0) {
		s->provider = *g;
		s->ident = ident;
		s->pname = s->name = 0;
	}
	return s;
}

/* The tally of key: the one numbered *cached if its key is that, else looked up (and remembered). */
static struct tally *tally_cached(struct tallies *ts, uint32_t *cached, const char *key)
{
	struct tally *t;

	if (cached && *cached && strcmp(ts->t[*cached - 1].key, key) == 0)
		return &ts->t[*cached - 1];
	t = tally_get(ts, key);
	if (t && cached)
		*cached = (uint32_t)(t - ts->t) + 1;
	return t;
}

void summary_add(struct summary *sm, const struct etl_event *ev, const struct etl_decoded *d, int st)
{
	char guid[ETL_GUID_STRING_SIZE + 2];
	struct summary_slot *slot = cache_slot(sm, ev);
	struct tally *t;
	const char *pname = d ? etl_decoded_provider_name(d) : NULL;

	sm->events++;
	sm->merged += d && etl_decoded_source(d) == ETL_DECODER_TRACE_METADATA;
	if (st != ETL_OK)
		sm->decode_errors++;
	else if (d && etl_decoded_source(d) != ETL_DECODER_NONE)
		sm->decoded++;
	else
		sm->undecoded++;
	if (sm->events == 1 || etl_event_filetime(ev) < sm->first)
		sm->first = etl_event_filetime(ev);
	if (etl_event_filetime(ev) > sm->last)
		sm->last = etl_event_filetime(ev);
	if (pname) {
		t = tally_cached(&sm->providers, slot ? &slot->pname : NULL, pname);
		if (slot)
			slot->pname_guid = 0;
	} else if (slot && slot->pname && slot->pname_guid) {
		t = &sm->providers.t[slot->pname - 1]; /* the slot's provider GUID is this event's */
	} else {
		guid[0] = '{';
		etl_guid_format(etl_event_provider(ev), guid + 1);
		strcat(guid, "}");
		t = tally_cached(&sm->providers, slot ? &slot->pname : NULL, guid);
		if (slot)
			slot->pname_guid = 1;
	}
	if (t) {
		if (!t->events) {
			t->guid = *etl_event_provider(ev);
			t->first_at = sm->now;
		}
		if (!d || etl_decoded_source(d) == ETL_DECODER_NONE) {
			t->raw++;
			t->rawkinds |= summary_raw_kind(ev, d);
		}
		t->wpp |= etl_event_header_kind(ev) == ETL_HEADER_MESSAGE;
		t->events++;
		t->bytes += etl_event_record_size(ev);
		if (d && (t->source < 0 || t->source == ETL_DECODER_NONE)) {
			t->source = (int)etl_decoded_source(d);
			t->source_at = sm->now;
		}
	}
	if (d && (t = tally_cached(&sm->names, slot ? &slot->name : NULL, etl_decoded_name(d))) != NULL) {
		if (!t->events)
			t->first_at = sm->now;
		t->events++;
		t->bytes += etl_event_record_size(ev);
		t->partial += etl_decoded_status(d) == ETL_DECODE_PARTIAL;
	}
	sm->now++;
}

/* A source that is a decoder's (not "none", not unset) */
static int decoded_source(int source)
{
	return source >= 0 && source != ETL_DECODER_NONE;
}

static int tallies_merge(struct tallies *into, const struct tallies *from)
{
	size_t i;

	for (i = 0; i < from->n; i++) {
		const struct tally *f = &from->t[i];
		struct tally *t = tally_get(into, f->key);

		if (!t)
			return -1;
		if (!t->events || f->first_at < t->first_at) {
			t->guid = f->guid;
			t->first_at = f->first_at;
		}
		/* the first decoder of its events, else "none" if any was looked at */
		if (decoded_source(f->source) ? !decoded_source(t->source) || f->source_at < t->source_at
					      : f->source == ETL_DECODER_NONE && t->source < 0) {
			t->source = f->source;
			t->source_at = f->source_at;
		}
		t->events += f->events;
		t->bytes += f->bytes;
		t->partial += f->partial;
		t->raw += f->raw;
		t->wpp |= f->wpp;
		t->rawkinds |= f->rawkinds;
	}
	return 0;
}

int summary_merge(struct summary *into, const struct summary *from)
{
	if (from->events) {
		if (!into->events || from->first < into->first)
			into->first = from->first;
		if (from->last > into->last)
			into->last = from->last;
	}
	into->events += from->events;
	into->decoded += from->decoded;
	into->undecoded += from->undecoded;
	into->decode_errors += from->decode_errors;
	into->damage += from->damage;
	into->merged += from->merged;
	if (tallies_merge(&into->providers, &from->providers) != 0)
		return -1;
	return tallies_merge(&into->names, &from->names);
}

/* Sorts the tallies and formats the time span; the events lost over all inputs. */
static uint64_t summary_prepare(struct summary *sm, struct etl_reader *r, char a[ETL_FILETIME_STRING_SIZE],
				char b[ETL_FILETIME_STRING_SIZE])
{
	uint64_t lost = 0;
	int k;

	for (k = 0; k < etl_reader_trace_count(r); k++)
		lost += etl_trace_info_events_lost(etl_reader_trace_info(r, k));
	/* sorted for printing: the indexes no longer match, and are not used again */
	free(sm->cache);
	sm->cache = NULL;
	if (sm->providers.n > 1) /* (none counted: no array, and qsort must not be given NULL) */
		qsort(sm->providers.t, sm->providers.n, sizeof(struct tally), tally_cmp);
	if (sm->names.n > 1)
		qsort(sm->names.t, sm->names.n, sizeof(struct tally), tally_cmp);
	etl_filetime_format(sm->first, a);
	etl_filetime_format(sm->last, b);
	return lost;
}

/* {"name":...,"events":...,"bytes":...} of each tally (and "partial" for event names),
 * comma-separated */
static void tallies_json(const struct tallies *ts, int partial)
{
	size_t i;

	for (i = 0; i < ts->n; i++) {
		out_printf("%s{\"name\":\"", i ? "," : "");
		out_json_str(ts->t[i].key);
		out_printf("\",\"events\":%" PRIu64 ",\"bytes\":%" PRIu64, ts->t[i].events, ts->t[i].bytes);
		if (partial)
			out_printf(",\"partial\":%" PRIu64, ts->t[i].partial);
		out_char('}');
	}
}

static void stats_json(struct summary *sm, struct etl_reader *r, const struct options *o)
{
	char a[ETL_FILETIME_STRING_SIZE], b[ETL_FILETIME_STRING_SIZE];
	uint64_t lost = summary_prepare(sm, r, a, b);
	size_t i;

	if (o->providers) {
		for (i = 0; i < sm->providers.n; i++) {
			const struct tally *t = &sm->providers.t[i];
			char g[ETL_GUID_STRING_SIZE];
			etl_guid_format(&t->guid, g);
			out_printf("{\"type\":\"provider\",\"name\":\"");
			out_json_str(t->key);
			out_printf("\",\"guid\":\"%s\",\"source\":\"%s\",\"events\":%" PRIu64 ",\"bytes\":%" PRIu64
				   ",\"undecoded\":%" PRIu64 ",\"schema\":%s}\n",
				   g, etl_decoder_description((enum etl_decoder)t->source), t->events, t->bytes, t->raw,
				   t->raw < t->events ? "true" : "false");
		}
		summary_schema_hint(sm, o);
		return;
	}
	out_printf("{\"type\":\"stats\",\"events\":%" PRIu64 ",\"decoded\":%" PRIu64 ",\"undecoded\":%" PRIu64
	       ",\"decode_errors\":%" PRIu64 ",\"damage_reports\":%" PRIu64 ",\"events_lost\":%" PRIu64
	       ",\"buffers_flagged_events_lost\":%" PRIu64 ",\"first\":\"%s\",\"last\":\"%s\",\"providers\":[",
	       sm->events, sm->decoded, sm->undecoded, sm->decode_errors, sm->damage, lost,
	       etl_reader_count(r, ETL_COUNT_BUFFERS_EVENTS_LOST), a, b);
	tallies_json(&sm->providers, 0);
	out_printf("],\"event_names\":[");
	tallies_json(&sm->names, 1);
	out_printf("],\"undecoded_providers\":[");
	undecoded_json(sm);
	out_printf("]}\n");
}

static void stats_text(struct summary *sm, struct etl_reader *r, const struct options *o)
{
	char a[ETL_FILETIME_STRING_SIZE], b[ETL_FILETIME_STRING_SIZE];
	uint64_t lost = summary_prepare(sm, r, a, b);
	size_t i;

	if (o->providers) {
		out_printf("%10s  %-32s  %s\n", "events", "source", "provider");
		for (i = 0; i < sm->providers.n; i++) {
			const struct tally *t = &sm->providers.t[i];
			out_printf("%10" PRIu64 "  %-32s  %s\n", t->events,
				   t->raw == t->events ? "none (no schema)" : etl_decoder_description((enum etl_decoder)t->source),
				   t->key);
		}
		summary_schema_hint(sm, o);
		return;
	}
	out_printf("events:          %" PRIu64 " (decoded %" PRIu64 ", undecoded %" PRIu64 ", decoding errors %" PRIu64 ")\n",
	       sm->events, sm->decoded, sm->undecoded, sm->decode_errors);
	out_printf("damage reports:  %" PRIu64 "\n", sm->damage);
	out_printf("events lost:     %" PRIu64 " (logger's count), %" PRIu64 " buffers flagged\n", lost,
	       etl_reader_count(r, ETL_COUNT_BUFFERS_EVENTS_LOST));
	out_printf("time span:       %s .. %s\n\n", a, b);
	out_printf("%10s %12s  %s\n", "events", "bytes", "provider");
	for (i = 0; i < sm->providers.n; i++)
		out_printf("%10" PRIu64 " %12" PRIu64 "  %s\n", sm->providers.t[i].events, sm->providers.t[i].bytes,
		       sm->providers.t[i].key);
	out_printf("\n%10s %12s %8s  %s\n", "events", "bytes", "partial", "event name");
	for (i = 0; i < sm->names.n; i++)
		out_printf("%10" PRIu64 " %12" PRIu64 " %8" PRIu64 "  %s\n", sm->names.t[i].events, sm->names.t[i].bytes,
		       sm->names.t[i].partial, sm->names.t[i].key);
	undecoded_text(sm);
}

void summary_json(struct summary *sm, struct etl_reader *r, const struct options *o)
{
	if (o->stats || o->providers)
		stats_json(sm, r, o);
	if (o->processes)
		print_processes(r, 1);
}

void summary_text(struct summary *sm, struct etl_reader *r, const struct options *o)
{
	if (o->stats || o->providers)
		stats_text(sm, r, o);
	if (o->processes)
		print_processes(r, 0);
}

void summary_free(struct summary *sm)
{
	tallies_free(&sm->providers);
	tallies_free(&sm->names);
	free(sm->cache);
	sm->cache = NULL;
}
