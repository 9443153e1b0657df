/*
 * check_corpus.c - every trace of ../shared/corpus/etl reads end to end
 * with zero errors, and its header facts and record counts agree with the
 * corpus README (whose counts come from an independent buffer walk), and the
 * decodings the reader makes as it delivers state records are the events' own.
 * Exits 77 (skipped) where the corpus is absent.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <etl.h>

#include "decoded_text.h"

static const char *corpus_dir;

static const struct fact {
	const char *file;
	unsigned os_major, os_minor, build, ptr, cpus, buffer_size, buffers_written;
	unsigned mode, events_lost;
	const char *logger, *logfile;
	long records; /* from the README's scan; -1: compressed, see below */
} facts[] = {
	{ "Tx_BondEtwSample.etl", 10, 0, 10240, 8, 4, 1048576, 3, 0x0, 0, "BondEtwSample", "C:\\bin\\Debug\\Net40\\BondEtwSample.etl", 13 },
	{ "Tx_CrossMachineHTTP.etl", 6, 1, 7601, 8, 4, 8192, 68, 0x0, 0, "DataCollector01", "C:\\PerfLogs\\Admin\\HTTP\\GEORGIS2_20110204-000006\\DataCollector01.etl", 3397 },
	{ "Tx_HTTP_Server.etl", 6, 1, 7601, 8, 4, 8192, 36, 0x0, 0, "DataCollector01", "C:\\PerfLogs\\Admin\\HTTP\\GEORGIS2_20110123-000005\\DataCollector01.etl", 2042 },
	{ "Tx_Process.etl", 6, 1, 7600, 8, 2, 8192, 182, 0x0, 0, "DataCollector02", "C:\\PerfLogs\\Admin\\PerfRepro\\GEORGIS3_20101029-000009\\DataCollector02.etl", 10344 },
	{ "Tx_WsRm01.etl", 6, 2, 7910, 8, 2, 8192, 7, 0x0, 0, "winrm_trace", "c:\\etw\\log_000001.etl", 71 },
	{ "airbus-etl-parser_AMSITrace.etl", 10, 0, 18362, 8, 8, 65536, 6, 0x8000001, 3, "AMSITraceSession", "c:\\work\\AMSITrace.etl", 21 },
	{ "airbus-etl-parser_lxcore_kernel.etl", 10, 0, 19041, 8, 6, 8192, 3, 0x0, 0, "lxcore_kernel", "C:\\Prog\\lxcore_kernel.etl", 4 },
	{ "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl", 10, 0, 20348, 8, 28, 65536, 88, 0x4010001, 0, "Relogger", "[multiple files]", -1 },
	{ "krabsetw_powershell.etl", 10, 0, 22623, 8, 32, 8192, 26, 0x9, 0, "usermode_trace", "C:\\Users\\aaaaa\\output1.etl", 114 },
	{ "perfview_SelfDescribingSingleEvent.etl", 10, 0, 22000, 8, 12, 65536, 3, 0x4010001, 0, "Relogger", "[multiple files]", -1 },
	{ "perfview_gcevents_PerfViewData.etl", 10, 0, 19045, 8, 8, 65536, 5, 0x8000002, 0, "PerfViewSession", "C:\\Dev\\runtime\\CoreLab\\PerfViewData.etl", 71 },
	{ "perfview_gcrundownevents_PerfViewData.clrRundown.etl", 10, 0, 19045, 8, 8, 65536, 2, 0x8000001, 0, "PerfViewSessionRundown", "C:\\Dev\\runtime\\CoreLab\\PerfViewData.clrRundown.etl", 112 },
	{ "perfview_net.4.5.2.x86.etl", 6, 2, 9200, 8, 8, 65536, 276, 0x4010001, 0, "Relogger", "[multiple files]", -1 },
	{ "perfview_primitive-types.etl", 10, 0, 19043, 8, 8, 8192, 2, 0x0, 0, "solar_system", "C:\\primitive-types_000004.etl", 7 },
	{ "perfview_smallEtlFile_relogged.etl", 10, 0, 10586, 4, 4, 65536, 2, 0x4011001, 0, "PerfWatsonGCHeapETLSession688", "ReloggedFile.ETL", -1 },
	{ "s4_SIH.20230422.034724.362.1.etl", 10, 0, 22621, 8, 1, 4096, 2, 0x11002009, 0, "SIH_trace_log", "C:\\Windows\\Logs\\SIH\\SIH.20230422.034724.362.1.etl", 12 },
	{ "s4_WindowsUpdate.20251008.140245.443.8.etl", 10, 0, 22631, 8, 1, 4096, 7, 0x11002009, 41, "WindowsUpdate_trace_log", "C:\\Windows\\Logs\\WindowsUpdate\\WindowsUpdate.20251008.140245.443.8.etl", 82 },
	{ "sawbuck_log_lib_image_data_32_v0.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\image_data_32_v0.etl", 27 },
	{ "sawbuck_log_lib_image_data_32_v1.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\image_data_32_v1.etl", 27 },
	{ "sawbuck_log_lib_image_data_32_v2.etl", 6, 1, 7600, 4, 16, 65536, 2, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\image_data_32_v2.etl", 27 },
	{ "sawbuck_log_lib_image_data_64_v0.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\image_data_64_v0.etl", 27 },
	{ "sawbuck_log_lib_image_data_64_v1.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\image_data_64_v1.etl", 27 },
	{ "sawbuck_log_lib_image_data_64_v2.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\image_data_64_v2.etl", 27 },
	{ "sawbuck_log_lib_process_data_32_v1.etl", 6, 1, 7600, 4, 16, 65536, 2, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\process_data_32_v1.etl", 3 },
	{ "sawbuck_log_lib_process_data_32_v2.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\process_data_32_v2.etl", 9 },
	{ "sawbuck_log_lib_process_data_32_v3.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\process_data_32_v3.etl", 9 },
	{ "sawbuck_log_lib_process_data_64_v2.etl", 6, 1, 7600, 4, 16, 65536, 3, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\process_data_64_v2.etl", 9 },
	{ "sawbuck_log_lib_process_data_64_v3.etl", 6, 1, 7600, 4, 16, 65536, 2, 0x1, 0, "Make Test Data Session", "c:\\src\\sawbuck\\trunk\\src\\sawbuck\\log_lib\\test_data\\process_data_64_v3.etl", 9 },
};

/* Compressed traces have no independent scan in the README.  These counts
 * are libetl's, and are trusted because every compressed buffer of these
 * files decompresses to exactly its declared size and its record walk ends
 * exactly at the fill level (no byte skipped); the SelfDescribingSingleEvent
 * count (2 header records + 20 + 1) matches the format reference 4. */
static const struct { const char *file; long records; } compressed_counts[] = {
	{ "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl", 28693 },
	{ "perfview_SelfDescribingSingleEvent.etl", 23 },
	{ "perfview_net.4.5.2.x86.etl", 168298 },
	{ "perfview_smallEtlFile_relogged.etl", 2 },
};

static long expected_records(const struct fact *f)
{
	size_t i;

	if (f->records >= 0)
		return f->records;
	for (i = 0; i < sizeof(compressed_counts) / sizeof(compressed_counts[0]); i++)
		if (strcmp(compressed_counts[i].file, f->file) == 0)
			return compressed_counts[i].records;
	return -1;
}

START_TEST(trace_reads_clean_and_matches_facts)
{
	const struct fact *f = &facts[_i];
	char path[4096];
	struct etl_reader *r = etl_reader_new();
	const struct etl_trace_info *t;
	const struct etl_event *ev;
	long n = 0;
	int st;
	uint64_t last = 0;

	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, f->file);
	st = etl_reader_open_path(r, path);
	ck_assert_msg(st == ETL_OK, "%s: %s", f->file, etl_error_message(etl_reader_error(r)));
	t = etl_reader_trace_info(r, 0);
	ck_assert_uint_eq(etl_trace_info_os_major(t), f->os_major);
	ck_assert_uint_eq(etl_trace_info_os_minor(t), f->os_minor);
	ck_assert_uint_eq(etl_trace_info_os_build(t), f->build);
	ck_assert_uint_eq(etl_trace_info_pointer_size(t), f->ptr);
	ck_assert_uint_eq(etl_trace_info_cpu_count(t), f->cpus);
	ck_assert_uint_eq(etl_trace_info_buffer_size(t), f->buffer_size);
	ck_assert_uint_eq(etl_trace_info_buffers_written(t), f->buffers_written);
	ck_assert_uint_eq(etl_trace_info_log_file_mode(t), f->mode);
	ck_assert_uint_eq(etl_trace_info_events_lost(t), f->events_lost);
	ck_assert_str_eq(etl_trace_info_logger_name(t), f->logger);
	ck_assert_str_eq(etl_trace_info_log_file_name(t), f->logfile);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BUFFERS), f->buffers_written);
	while ((st = etl_reader_next(r, &ev)) == ETL_OK) {
		ck_assert_uint_ge(etl_event_filetime(ev), last);
		last = etl_event_filetime(ev);
		if (n == 0) /* the logfile-header event comes first, at the start time */
			ck_assert_uint_eq(etl_event_filetime(ev), etl_trace_info_start_time(t));
		n++;
	}
	ck_assert_msg(st == ETL_END, "%s: %s", f->file, etl_error_message(etl_reader_error(r)));
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_ERRORS), 0);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BYTES_SKIPPED), 0);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_RECORDS_SKIPPED), 0);
	ck_assert_int_eq(n, expected_records(f));
	if (f->mode & 0x04000000u) {
		ck_assert_uint_eq(etl_trace_info_compression_format(t), 3);
		ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BUFFERS_COMPRESSED), f->buffers_written - 1);
	}
	etl_reader_free(r);
}
END_TEST

START_TEST(every_corpus_file_is_in_the_table)
{
	char path[4096];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/etl", corpus_dir);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name), i;
		int found = 0;
		if (l < 4 || strcmp(e->d_name + l - 4, ".etl") != 0)
			continue;
		for (i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
			found |= strcmp(facts[i].file, e->d_name) == 0;
		ck_assert_msg(found, "%s is not in the facts table", e->d_name);
	}
	closedir(d);
}
END_TEST

/* Each archive and its extracted twin: the same events, byte for byte. */
static const struct { const char *archive, *twin; } twins[] = {
	{ "dotnetperf_DynamicEvents.etl.zip", "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl" },
	{ "perfview_gcevents.etl.zip", "perfview_gcevents_PerfViewData.etl" },
	{ "perfview_gcrundownevents.etl.zip", "perfview_gcrundownevents_PerfViewData.clrRundown.etl" },
	{ "perfview_net.4.5.2.x86.etl.zip", "perfview_net.4.5.2.x86.etl" },
	{ "perfview_primitive-types.etl.zip", "perfview_primitive-types.etl" },
};

static struct etl_reader *open_corpus(const char *file)
{
	char path[4096];
	struct etl_reader *r = etl_reader_new();

	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, file);
	ck_assert_msg(etl_reader_open_path(r, path) == ETL_OK, "%s: %s", file,
		      etl_error_message(etl_reader_error(r)));
	return r;
}

START_TEST(archive_equals_extracted_twin)
{
	struct etl_reader *a = open_corpus(twins[_i].archive), *b = open_corpus(twins[_i].twin);
	const struct etl_trace_info *ta = etl_reader_trace_info(a, 0);
	const struct etl_event *ea, *eb;
	long n = 0;
	int sa, sb;

	ck_assert_int_eq(etl_reader_trace_count(a), 1);
	ck_assert_str_eq(etl_trace_info_container(ta), "zip");
	ck_assert_uint_eq(etl_trace_info_file_size(ta), etl_trace_info_file_size(etl_reader_trace_info(b, 0)));
	for (;;) {
		const uint8_t *pa, *pb;
		size_t la, lb;

		sa = etl_reader_next(a, &ea);
		sb = etl_reader_next(b, &eb);
		ck_assert_int_eq(sa, sb);
		if (sa != ETL_OK)
			break;
		n++;
		ck_assert_uint_eq(etl_event_file_offset(ea), etl_event_file_offset(eb));
		ck_assert_uint_eq(etl_event_timestamp_raw(ea), etl_event_timestamp_raw(eb));
		ck_assert_uint_eq(etl_event_cpu(ea), etl_event_cpu(eb));
		ck_assert_uint_eq(etl_event_record_size(ea), etl_event_record_size(eb));
		etl_event_payload(ea, &pa, &la);
		etl_event_payload(eb, &pb, &lb);
		ck_assert_uint_eq(la, lb);
		ck_assert(la == 0 || memcmp(pa, pb, la) == 0);
	}
	ck_assert_int_eq(sa, ETL_END);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(etl_reader_count(a, ETL_COUNT_ERRORS), 0);
	etl_reader_free(a);
	etl_reader_free(b);
}
END_TEST

/* gzip-wrapped traces: every one reads clean; facts from the corpus README. */
START_TEST(gzip_traces_read_clean)
{
	static const struct { const char *file; unsigned build, buffers; long records; } gz[] = {
		/* 42,991,616 bytes unpacked; no independent count exists for the record number */
		{ "etwanalyzer_TraceLoggingTester.etl.gz", 26100, 0, 172716 },
		/* an 8 KiB WPP trace: 4 header-buffer records + 3 WPP messages */
		{ "s4_CldFlt1-2025-12-21-121418.etlgz", 26100, 2, 7 },
		/* only the logfile header (and its PartitionInfo record) */
		{ "s4_CldFlt2-2025-12-21-121418.etlgz", 26100, 1, 2 },
	};
	struct etl_reader *r = open_corpus(gz[_i].file);
	const struct etl_trace_info *t = etl_reader_trace_info(r, 0);
	const struct etl_event *ev;
	long n = 0;
	uint64_t last = 0;
	int st;

	ck_assert_str_eq(etl_trace_info_container(t), "gzip");
	ck_assert_uint_eq(etl_trace_info_os_build(t), gz[_i].build);
	if (gz[_i].buffers)
		ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BUFFERS), gz[_i].buffers);
	else
		ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BUFFERS), etl_trace_info_buffers_written(t));
	while ((st = etl_reader_next(r, &ev)) == ETL_OK) {
		ck_assert_uint_ge(etl_event_filetime(ev), last);
		last = etl_event_filetime(ev);
		n++;
	}
	ck_assert_msg(st == ETL_END, "%s", etl_error_message(etl_reader_error(r)));
	ck_assert_int_eq(n, gz[_i].records);
	ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_BYTES_SKIPPED), 0);
	etl_reader_free(r);
}
END_TEST

/* Time slices tile a trace: the events of readers that each read one slice (in time order)
 * are, concatenated, the events of the whole reading, with the same decoded names and the same
 * processes resolved - for every corpus trace and 1 to 5 slices. */
struct seen {
	uint64_t off, ts;
	uint32_t boff;
	char name[96];
	char proc[32];
};

static size_t read_window(const char *file, uint64_t from, uint64_t to, struct seen **out, size_t have)
{
	struct etl_reader *r = open_corpus(file);
	const struct etl_event *ev;
	const struct etl_decoded *d;
	size_t n = have;
	int st;

	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_STACKS, 0), ETL_OK);
	if (from || to)
		ck_assert_int_eq(etl_reader_set_time_window(r, from, to), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		const struct etl_process *p;
		ck_assert_msg(st == ETL_OK, "%s: %s", file, etl_error_message(etl_reader_error(r)));
		if ((n & (n - 1)) == 0 || n < 1024) { /* grow at powers of two (a realloc per event is
							   quadratic under ASan, which always copies) */
			size_t cap = n < 1024 ? 1024 : 2 * n;
			*out = realloc(*out, cap * sizeof(**out));
			ck_assert_ptr_nonnull(*out);
		}
		(*out)[n].off = etl_event_file_offset(ev);
		(*out)[n].ts = etl_event_timestamp_raw(ev);
		(*out)[n].boff = etl_event_buffer_offset(ev);
		etl_reader_decode(r, ev, &d);
		snprintf((*out)[n].name, sizeof((*out)[n].name), "%s", d ? etl_decoded_name(d) : "");
		p = etl_reader_event_process(r, ev);
		snprintf((*out)[n].proc, sizeof((*out)[n].proc), "%s", p ? etl_process_image_name(p) : "");
		n++;
	}
	etl_reader_free(r);
	return n;
}

START_TEST(time_slices_tile_every_trace)
{
	const char *file = facts[_i % (sizeof(facts) / sizeof(facts[0]))].file;
	size_t slices = (size_t)(_i / (int)(sizeof(facts) / sizeof(facts[0]))) * 2 + 2; /* 2 and 4 */
	struct etl_reader *r = open_corpus(file);
	uint64_t bounds[8];
	struct seen *whole = NULL, *parts = NULL;
	size_t n_whole, n_parts = 0, k, i;

	k = etl_reader_time_slices(r, 0, slices, bounds);
	etl_reader_free(r);
	ck_assert_uint_ge(k, 1);
	ck_assert_uint_le(k, slices);
	if (facts[_i % (int)(sizeof(facts) / sizeof(facts[0]))].buffers_written >= 26)
		ck_assert_uint_eq(k, slices); /* enough buffers to cut where asked */
	ck_assert_uint_eq(bounds[0], 0);
	ck_assert_uint_eq(bounds[k], 0);
	for (i = 1; i < k; i++)
		ck_assert_uint_gt(bounds[i], bounds[i - 1]);
	n_whole = read_window(file, 0, 0, &whole, 0);
	for (i = 0; i < k; i++)
		n_parts = read_window(file, bounds[i], bounds[i + 1], &parts, n_parts);
	ck_assert_uint_eq(n_parts, n_whole);
	for (i = 0; i < n_whole; i++) {
		ck_assert_uint_eq(parts[i].off, whole[i].off);
		ck_assert_uint_eq(parts[i].boff, whole[i].boff);
		ck_assert_uint_eq(parts[i].ts, whole[i].ts);
		ck_assert_str_eq(parts[i].name, whole[i].name);
		ck_assert_str_eq(parts[i].proc, whole[i].proc);
	}
	free(whole);
	free(parts);
}
END_TEST

/* Relogged traces, whose buffers' flush times are FILETIMEs in a QPC trace (FORMAT-NOTES 1), are
 * cut by their records' times: each of 4 slices holds a share of the events (with the flush
 * times, the first held all of them). */
START_TEST(time_slices_of_relogged_traces_share_the_events)
{
	static const char *const files[] = { "perfview_net.4.5.2.x86.etl", "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl",
					     "etwanalyzer_TraceLoggingTester.etl.gz" };
	const char *file = files[_i];
	struct etl_reader *r = open_corpus(file);
	struct etl_slices *p;
	uint64_t bounds[8];
	struct seen *parts = NULL;
	size_t k, i, n = 0, before;

	k = etl_reader_time_slices(r, 0, 4, bounds);
	ck_assert_uint_eq(k, 4);
	p = etl_reader_plan_slices(r, 0, 4); /* the plan cuts the same */
	ck_assert_ptr_nonnull(p);
	for (i = 0; i <= k; i++)
		ck_assert_uint_eq(etl_slices_bound(p, i), bounds[i]);
	etl_slices_free(p);
	etl_reader_free(r);
	for (i = 0; i < k; i++) {
		before = n;
		n = read_window(file, bounds[i], bounds[i + 1], &parts, n);
		ck_assert_msg(n - before > 400, "%s: window %zu of %zu holds %zu events", file, i, k, n - before);
	}
	free(parts);
}
END_TEST

/* A state record's decoding made as it is delivered (for the process tables) is the one a
 * decoding of its own makes: every other state record and the event after each are decoded
 * twice and compared; the others are left undecoded, so that the event after them shows that
 * it is not given their decoding. */
START_TEST(decoding_at_delivery_is_the_decoding)
{
	/* every trace of the table, and TraceLoggingTester's 30,547 state records */
	const char *file = _i < (int)(sizeof(facts) / sizeof(facts[0])) ? facts[_i].file
									  : "etwanalyzer_TraceLoggingTester.etl.gz";
	struct etl_reader *r = open_corpus(file);
	const struct etl_event *ev;
	long states = 0, compared = 0;
	int after = 0, st;

	while ((st = etl_reader_next(r, &ev)) == ETL_OK) {
		int state = etl_event_updates_state(ev);
		states += state;
		if ((state && states % 2 == 0) || after) {
			char *first = decoded_text(r, ev), *again = decoded_text(r, ev);
			ck_assert_ptr_nonnull(first);
			ck_assert_ptr_nonnull(again);
			ck_assert_msg(strcmp(first, again) == 0, "%s at %llu:\n%s\nagain:\n%s", file,
				      (unsigned long long)etl_event_file_offset(ev), first, again);
			free(first);
			free(again);
			compared++;
		}
		after = state;
	}
	ck_assert_int_eq(st, ETL_END);
	ck_assert(states == 0 || compared > 0);
	etl_reader_free(r);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("corpus");
	TCase *t = tcase_create("etl");
	SRunner *sr;
	char probe[4096];
	DIR *d;
	int failed;

	corpus_dir = argc > 1 ? argv[1] : "../shared/corpus";
	snprintf(probe, sizeof(probe), "%s/etl", corpus_dir);
	d = opendir(probe);
	if (!d) {
		printf("corpus not found at %s: skipped\n", probe);
		return 77;
	}
	closedir(d);
	tcase_add_loop_test(t, trace_reads_clean_and_matches_facts, 0, (int)(sizeof(facts) / sizeof(facts[0])));
	tcase_add_test(t, every_corpus_file_is_in_the_table);
	tcase_add_loop_test(t, archive_equals_extracted_twin, 0, (int)(sizeof(twins) / sizeof(twins[0])));
	tcase_add_loop_test(t, gzip_traces_read_clean, 0, 3);
	tcase_add_loop_test(t, decoding_at_delivery_is_the_decoding, 0, (int)(sizeof(facts) / sizeof(facts[0])) + 1);
	tcase_add_loop_test(t, time_slices_tile_every_trace, 0, 2 * (int)(sizeof(facts) / sizeof(facts[0])));
	tcase_add_loop_test(t, time_slices_of_relogged_traces_share_the_events, 0, 3);
	tcase_set_timeout(t, 120);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
