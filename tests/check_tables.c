/*
 * check_tables.c - the analysis tables (etl_tables_*) and the process an
 * event is about (etl_reader_event_pid, etl_event_subject_tid).
 *
 * The "tables64" scenario (tests/writer/tables.c) has a known answer for every
 * cell of every table, and for its notes.  Over every trace of the corpus:
 * the payload offsets the attribution rules read agree with the decoded field
 * of that name, and the tables add up to the raw events (disk bytes per
 * process are the TransferSize sums of its DiskIO records, samples per
 * process the samples of its threads).
 *
 * The HTML report (etl_report_*) on the same trace: every section, escaping,
 * a failing writer, misuse, and a size that does not grow with the trace.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "etl.h"
#include "etlw.h"
#include "scenario.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

/* The scenario's start (2022-06-18T04:26:40Z) as a FILETIME, and ms after it. */
#define FT0 ((1655526400ull + 11644473600ull) * 10000000ull)
#define MS(x) (FT0 + (uint64_t)((x) * 10000.0 + 0.5))

static uint8_t *tables64(size_t *len)
{
	struct etlw_opts o;
	uint8_t *d = NULL;

	etlw_default_opts(&o);
	o.ncpu = 1;
	ck_assert_int_eq(scen_build_tables(&o, &d, len), 0);
	return d;
}

static struct etl_reader *open_tables64(uint8_t **keep)
{
	struct etl_reader *r = etl_reader_new();
	size_t len;

	*keep = tables64(&len);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_open_memory(r, *keep, len, "tables64"), ETL_OK);
	return r;
}

/* ---- reading cells by column name ---- */

static size_t col(const struct etl_table *t, const char *name)
{
	size_t c = etl_table_column_index(t, name);

	ck_assert_msg(c != (size_t)-1, "%s has no column %s", etl_table_name(t), name);
	return c;
}

static int is_null(const struct etl_table *t, size_t row, const char *name)
{
	return etl_table_is_null(t, row, col(t, name));
}

static uint64_t u64(const struct etl_table *t, size_t row, const char *name)
{
	size_t c = col(t, name);

	ck_assert_msg(!etl_table_is_null(t, row, c), "%s row %zu: %s is null", etl_table_name(t), row, name);
	return etl_table_u64(t, row, c);
}

static double dbl(const struct etl_table *t, size_t row, const char *name)
{
	size_t c = col(t, name);

	ck_assert_msg(!etl_table_is_null(t, row, c), "%s row %zu: %s is null", etl_table_name(t), row, name);
	return etl_table_double(t, row, c);
}

static const char *text(const struct etl_table *t, size_t row, const char *name)
{
	const char *s = etl_table_text(t, row, col(t, name));

	return s ? s : "(null)";
}

#define U(t, r, n, want) ck_assert_uint_eq(u64(t, r, n), (want))
#define D(t, r, n, want) ck_assert_double_eq_tol(dbl(t, r, n), (want), 1e-9)
#define S(t, r, n, want) ck_assert_str_eq(text(t, r, n), (want))
#define NUL(t, r, n) ck_assert_msg(is_null(t, r, n), "%s row %d: %s is not null", etl_table_name(t), (int)(r), n)

static const struct etl_table *table(const struct etl_tables *T, const char *name, size_t rows)
{
	const struct etl_table *t = etl_tables_get(T, name);

	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(etl_table_name(t), name);
	ck_assert_uint_eq(etl_table_row_count(t), rows);
	ck_assert_uint_eq(etl_table_rows_seen(t), rows);
	return t;
}

/* The count of the note whose text contains @p what (0 when none does). */
static uint64_t note(const struct etl_table *t, const char *what)
{
	size_t i;

	for (i = 0; i < etl_table_note_count(t); i++) {
		uint64_t n = 0;
		const char *s = etl_table_note(t, i, &n);
		if (s && strstr(s, what))
			return n;
	}
	return 0;
}

static struct etl_tables *build_all(struct etl_reader *r)
{
	struct etl_tables *T = NULL;

	ck_assert_int_eq(etl_tables_build(r, NULL, 0, 0, NULL, NULL, &T), ETL_OK);
	ck_assert_ptr_nonnull(T);
	ck_assert_uint_eq(etl_tables_damage(T), 0);
	return T;
}

/* ---- the tables64 scenario, cell by cell ---- */

START_TEST(kinds_are_listed)
{
	static const char *want[] = { "processes", "threads", "images", "cpu-samples", "cpu-usage", "disk-io",
				      "file-io", "network", "gc", "exceptions", "jit", "hard-faults" };
	size_t i;

	ck_assert_uint_eq(etl_table_kind_count(), 12);
	for (i = 0; i < 12; i++) {
		ck_assert_str_eq(etl_table_kind_name(i), want[i]);
		ck_assert_uint_gt(strlen(etl_table_kind_description(i)), 10);
	}
	ck_assert_ptr_null(etl_table_kind_name(12));
}
END_TEST

START_TEST(system_tables)
{
	uint8_t *d;
	struct etl_reader *r = open_tables64(&d);
	struct etl_tables *T = build_all(r);
	const struct etl_table *t = table(T, "processes", 2);

	U(t, 0, "pid", 100); U(t, 0, "parent_pid", 4); S(t, 0, "image", "app.exe"); U(t, 0, "session", 1);
	U(t, 0, "start_time", FT0); U(t, 0, "start_is_trace_start", 1); NUL(t, 0, "end_time");
	NUL(t, 0, "exit_code"); U(t, 0, "threads", 1); U(t, 0, "images", 0);
	U(t, 1, "pid", 200); U(t, 1, "parent_pid", 100); S(t, 1, "command_line", "worker.exe -x");
	U(t, 1, "start_time", MS(5)); U(t, 1, "start_is_trace_start", 0); U(t, 1, "end_time", MS(50));
	ck_assert_int_eq(etl_table_i64(t, 1, col(t, "exit_code")), 3);
	ck_assert_int_eq(etl_table_column_type(t, col(t, "exit_code")), ETL_COLUMN_INT);
	U(t, 1, "threads", 2); U(t, 1, "images", 1);

	t = table(T, "threads", 3);
	U(t, 0, "tid", 101); U(t, 0, "pid", 100); U(t, 0, "start_is_trace_start", 1); NUL(t, 0, "end_time");
	U(t, 1, "tid", 201); S(t, 1, "process", "worker.exe"); S(t, 1, "name", "gc-worker");
	U(t, 1, "start_time", MS(5.1)); U(t, 1, "start_address", 0x7ff005000ull);
	U(t, 2, "tid", 202); U(t, 2, "start_time", MS(5.2)); U(t, 2, "end_time", MS(49)); NUL(t, 2, "name");

	t = table(T, "images", 1);
	U(t, 0, "pid", 200); S(t, 0, "path", "\\Device\\HarddiskVolume1\\worker.exe");
	U(t, 0, "base", 0x7ff000000000ull); U(t, 0, "size", 0x10000); U(t, 0, "load_time", MS(5.3));
	U(t, 0, "load_is_trace_start", 0); U(t, 0, "unload_time", MS(48)); U(t, 0, "checksum", 0x1234);
	U(t, 0, "time_date_stamp", 0x5678); S(t, 0, "pdb_guid", "0123abcd-4567-89ab-cdef-0123456789ab");
	U(t, 0, "pdb_age", 2); S(t, 0, "pdb_name", "worker.pdb");
	ck_assert_str_eq(etl_table_column_unit(t, col(t, "size")), "bytes");
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(cpu_tables)
{
	static const unsigned pid[6] = { 100, 100, 100, 200, 200, 0 }, tid[6] = { 101, 101, 101, 201, 201, 0 };
	static const double ms[6] = { 6, 7, 8, 9, 60, 61 };
	uint8_t *d;
	struct etl_reader *r = open_tables64(&d);
	struct etl_tables *T = build_all(r);
	const struct etl_table *t = table(T, "cpu-samples", 6);
	size_t i;

	for (i = 0; i < 6; i++) {
		U(t, i, "time", MS(ms[i])); U(t, i, "cpu", 0); U(t, i, "pid", pid[i]); U(t, i, "tid", tid[i]);
		D(t, i, "weight", 0.5);
	}
	S(t, 0, "process", "app.exe"); S(t, 3, "thread_name", "gc-worker"); S(t, 5, "process", "Idle");
	U(t, 3, "address", 0x2000); NUL(t, 3, "module"); NUL(t, 0, "stack");
	ck_assert_str_eq(etl_table_column_unit(t, col(t, "weight")), "ms");

	t = table(T, "cpu-usage", 3);
	U(t, 0, "tid", 101); U(t, 0, "pid", 100); U(t, 0, "switch_in_time", MS(10));
	U(t, 0, "switch_out_time", MS(12)); D(t, 0, "cpu_usage", 2); S(t, 0, "switch_out_reason", "WrQueue");
	NUL(t, 0, "ready_time"); NUL(t, 0, "wait_reason"); U(t, 0, "priority", 8);
	U(t, 1, "tid", 201); U(t, 1, "pid", 200); D(t, 1, "cpu_usage", 3); U(t, 1, "ready_time", MS(11));
	D(t, 1, "ready", 1); U(t, 1, "readying_tid", 101); U(t, 1, "readying_pid", 100);
	S(t, 1, "switch_out_reason", "Executive"); S(t, 1, "thread_name", "gc-worker");
	U(t, 2, "tid", 0); U(t, 2, "pid", 0); U(t, 2, "switch_in_time", MS(15)); NUL(t, 2, "switch_out_time");
	NUL(t, 2, "cpu_usage"); S(t, 2, "wait_reason", "Executive");
	ck_assert_uint_eq(note(t, "before the trace"), 1);
	ck_assert_uint_eq(note(t, "still running"), 1);
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(io_tables)
{
	uint8_t *d;
	struct etl_reader *r = open_tables64(&d);
	struct etl_tables *T = build_all(r);
	const struct etl_table *t = table(T, "disk-io", 3);

	/* A: issued and completed; C: completed with no issue; B: issued, never completed */
	U(t, 0, "init_time", MS(20)); U(t, 0, "complete_time", MS(22)); D(t, 0, "elapsed", 2);
	U(t, 0, "pid", 200); U(t, 0, "tid", 201); S(t, 0, "type", "read"); U(t, 0, "offset", 8192);
	U(t, 0, "bytes", 4096); S(t, 0, "file_name", "\\Device\\HarddiskVolume1\\data.bin");
	S(t, 0, "priority", "High"); U(t, 0, "irp", 0xffffa00000000a00ull); U(t, 0, "disk", 0);
	NUL(t, 1, "init_time"); U(t, 1, "complete_time", MS(24)); D(t, 1, "elapsed", 1); U(t, 1, "pid", 100);
	U(t, 1, "tid", 101); U(t, 1, "bytes", 512); NUL(t, 1, "file_name");
	U(t, 2, "init_time", MS(23)); NUL(t, 2, "complete_time"); NUL(t, 2, "elapsed"); NUL(t, 2, "bytes");
	S(t, 2, "type", "write"); U(t, 2, "pid", 200); U(t, 2, "irp", 0xffffa00000000b00ull);
	ck_assert_uint_eq(note(t, "no completion"), 1);
	ck_assert_uint_eq(note(t, "issue is not in the trace"), 1);

	t = table(T, "file-io", 3);
	S(t, 0, "operation", "create"); S(t, 0, "file_name", "\\??\\C:\\f.txt"); U(t, 0, "start_time", MS(30));
	U(t, 0, "end_time", MS(31)); D(t, 0, "elapsed", 1); U(t, 0, "status", 0); U(t, 0, "pid", 200);
	NUL(t, 0, "bytes");
	S(t, 1, "operation", "read"); S(t, 1, "file_name", "\\Device\\HarddiskVolume1\\data.bin");
	U(t, 1, "offset", 0); U(t, 1, "bytes", 50); U(t, 1, "tid", 201);
	S(t, 2, "operation", "write"); U(t, 2, "offset", 4096); U(t, 2, "bytes", 10); NUL(t, 2, "end_time");
	NUL(t, 2, "status");
	ck_assert_uint_eq(note(t, "no OperationEnd"), 1);

	t = table(T, "network", 2);
	U(t, 0, "time", MS(36)); U(t, 0, "pid", 200); S(t, 0, "protocol", "tcp"); S(t, 0, "operation", "send");
	S(t, 0, "local_address", "10.0.0.1"); U(t, 0, "local_port", 50000); S(t, 0, "remote_address", "10.0.0.2");
	U(t, 0, "remote_port", 443); U(t, 0, "bytes", 1000); S(t, 0, "source", "kernel");
	S(t, 1, "operation", "receive"); U(t, 1, "bytes", 500); S(t, 1, "process", "worker.exe");
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(clr_tables)
{
	uint8_t *d;
	struct etl_reader *r = open_tables64(&d);
	struct etl_tables *T = build_all(r);
	const struct etl_table *t = table(T, "gc", 2); /* GC 1 logged at two versions counts once */

	U(t, 0, "pid", 200); U(t, 0, "gc_number", 1); U(t, 0, "generation", 0); S(t, 0, "reason", "Induced");
	S(t, 0, "type", "NonConcurrentGC"); U(t, 0, "start_time", MS(40.1)); U(t, 0, "end_time", MS(40.5));
	D(t, 0, "duration", 0.4); U(t, 0, "pause_start_time", MS(40)); D(t, 0, "pause", 0.8);
	U(t, 0, "heap_after", 1000); U(t, 0, "promoted", 40); NUL(t, 0, "heap_before");
	U(t, 1, "gc_number", 2); U(t, 1, "generation", 1); S(t, 1, "reason", "AllocSmall");
	S(t, 1, "type", "BackgroundGC"); U(t, 1, "start_time", MS(45)); NUL(t, 1, "end_time");
	NUL(t, 1, "pause"); U(t, 1, "heap_before", 1000);
	ck_assert_uint_eq(note(t, "no GCEnd"), 1);

	t = table(T, "exceptions", 1);
	U(t, 0, "time", MS(46)); U(t, 0, "pid", 200); U(t, 0, "tid", 202); S(t, 0, "type", "System.Exception");
	S(t, 0, "message", "boom"); U(t, 0, "hresult", 0x80131500u);

	t = table(T, "jit", 1);
	U(t, 0, "time", MS(47.5)); S(t, 0, "namespace", "Ns.T"); S(t, 0, "name", "M");
	U(t, 0, "address", 0x7ff000002000ull); U(t, 0, "size", 64); U(t, 0, "jitted", 1); D(t, 0, "jit_time", 0.5);
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- streaming, selection, misuse ---- */

/* A row as one line of text, every cell. */
static void row_line(const struct etl_table *t, size_t row, char *out, size_t cap)
{
	size_t c, n = 0;

	out[0] = 0;
	for (c = 0; c < etl_table_column_count(t) && n < cap; c++) {
		const char *s = etl_table_text(t, row, c);
		if (etl_table_is_null(t, row, c))
			n += (size_t)snprintf(out + n, cap - n, "|-");
		else if (etl_table_column_type(t, c) == ETL_COLUMN_TEXT)
			n += (size_t)snprintf(out + n, cap - n, "|%s", s);
		else if (etl_table_column_type(t, c) == ETL_COLUMN_DOUBLE)
			n += (size_t)snprintf(out + n, cap - n, "|%.6f", etl_table_double(t, row, c));
		else
			n += (size_t)snprintf(out + n, cap - n, "|%llu", (unsigned long long)etl_table_u64(t, row, c));
	}
}

struct streamed {
	char lines[64][1024];
	char table[64][16];
	size_t n;
};

static void keep_row(void *ctx, const struct etl_table *t)
{
	struct streamed *s = ctx;

	ck_assert_uint_eq(etl_table_row_count(t), 1);
	ck_assert_uint_lt(s->n, 64);
	row_line(t, 0, s->lines[s->n], sizeof(s->lines[0]));
	snprintf(s->table[s->n], sizeof(s->table[0]), "%s", etl_table_name(t));
	s->n++;
}

START_TEST(streamed_rows_are_the_kept_rows)
{
	static struct streamed s;
	uint8_t *d1, *d2;
	struct etl_reader *r1 = open_tables64(&d1), *r2 = open_tables64(&d2);
	struct etl_tables *kept = build_all(r1), *streamed = NULL;
	size_t k, i, seen = 0;
	char line[1024];

	s.n = 0;
	ck_assert_int_eq(etl_tables_build(r2, NULL, 0, 0, keep_row, &s, &streamed), ETL_OK);
	for (k = 0; k < etl_table_kind_count(); k++) {
		const char *name = etl_table_kind_name(k);
		const struct etl_table *a = etl_tables_get(kept, name), *b = etl_tables_get(streamed, name);
		int whole = !strcmp(name, "processes") || !strcmp(name, "threads") || !strcmp(name, "images");
		ck_assert_uint_eq(etl_table_rows_seen(b), etl_table_row_count(a));
		ck_assert_uint_eq(etl_table_row_count(b), whole ? etl_table_row_count(a) : 0);
		ck_assert_uint_eq(etl_table_note_count(b), etl_table_note_count(a));
		if (whole)
			continue;
		for (i = 0; i < etl_table_row_count(a); i++) {
			size_t j;
			int found = 0;
			row_line(a, i, line, sizeof(line));
			for (j = 0; j < s.n && !found; j++)
				found = !strcmp(s.table[j], name) && !strcmp(s.lines[j], line);
			ck_assert_msg(found, "%s: kept row %zu not streamed: %s", name, i, line);
			seen++;
		}
	}
	ck_assert_uint_eq(seen, s.n);
	etl_tables_free(kept);
	etl_tables_free(streamed);
	etl_reader_free(r1);
	etl_reader_free(r2);
	free(d1);
	free(d2);
}
END_TEST

START_TEST(names_select_tables)
{
	static const char *two[] = { "gc", "disk-io" }, *bad[] = { "gc", "disks" };
	uint8_t *d;
	struct etl_reader *r = open_tables64(&d);
	struct etl_tables *T = NULL;
	const struct etl_event *ev;

	ck_assert_int_eq(etl_tables_build(r, bad, 2, 0, NULL, NULL, &T), ETL_E_MISUSE);
	ck_assert_ptr_null(T);
	ck_assert_int_eq(etl_tables_build(r, two, 2, 0, NULL, NULL, &T), ETL_OK);
	ck_assert_uint_eq(etl_table_row_count(etl_tables_get(T, "gc")), 2);
	ck_assert_uint_eq(etl_table_row_count(etl_tables_get(T, "disk-io")), 3);
	ck_assert_ptr_null(etl_tables_get(T, "processes"));
	ck_assert_ptr_null(etl_tables_get(T, "nothing"));
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);

	/* a reader that has delivered events cannot give all of them to the tables */
	r = open_tables64(&d);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
	T = (struct etl_tables *)1;
	ck_assert_int_eq(etl_tables_new(r, NULL, 0, 0, NULL, NULL, &T), ETL_E_MISUSE);
	ck_assert_ptr_null(T);
	etl_tables_free(NULL);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(stacks_column_on_request)
{
	uint8_t *d;
	struct etl_reader *r = open_tables64(&d);
	struct etl_tables *T = NULL;
	static const char *one[] = { "cpu-samples" };
	const struct etl_table *t;

	ck_assert_int_eq(etl_tables_build(r, one, 1, ETL_TABLES_STACKS, NULL, NULL, &T), ETL_OK);
	t = etl_tables_get(T, "cpu-samples");
	ck_assert_uint_eq(etl_table_row_count(t), 6);
	/* the scenario's samples have no stack: the column is there, and null */
	NUL(t, 0, "stack");
	ck_assert_uint_eq(etl_table_u64(t, 99, 0), 0);
	ck_assert_ptr_null(etl_table_text(t, 0, col(t, "pid"))); /* another type */
	ck_assert_ptr_null(etl_table_column_name(t, 99));
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- attribution ---- */

START_TEST(events_attributed_through_their_threads)
{
	uint8_t *d;
	struct etl_reader *r = open_tables64(&d);
	const struct etl_event *ev;
	unsigned samples = 0, switches = 0, disk = 0, ready = 0, net = 0;
	int st;

	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		uint16_t hook = etl_event_hook_id(ev);
		uint32_t pid = etl_reader_event_pid(r, ev), tid = etl_event_subject_tid(ev);
		ck_assert_int_eq(st, ETL_OK);
		if (etl_event_header_kind(ev) == ETL_HEADER_EVENT || etl_event_header_kind(ev) == ETL_HEADER_FULL) {
			if (etl_event_pid(ev) != ETL_ID_NONE)
				ck_assert_uint_eq(pid, etl_event_pid(ev)); /* the header decides */
			continue;
		}
		switch (hook) {
		case 0x0F2E: /* samples: 101 is app's; 201 worker's, still after the process ended; 0 idle */
			ck_assert_uint_eq(etl_event_pid(ev), ETL_ID_NONE);
			ck_assert_uint_eq(pid, (tid == 101 ? 100 : tid == 201 ? 200 : 0));
			samples++;
			break;
		case 0x0524: /* context switches: the thread switched in, whatever the header says */
			ck_assert_uint_eq(pid, (tid == 101 ? 100 : tid == 201 ? 200 : 0));
			switches++;
			break;
		case 0x0532: /* ReadyThread: the thread readied */
			ck_assert_uint_eq(tid, 201);
			ck_assert_uint_eq(pid, 200);
			ready++;
			break;
		case 0x010A: /* disk completions: IssuingThreadId */
			ck_assert_uint_eq(pid, (tid == 201 ? 200 : 100));
			ck_assert(tid == 201 || tid == 101);
			disk++;
			break;
		case 0x060A: case 0x060B: /* TcpIp: the payload's PID */
			ck_assert_uint_eq(pid, 200);
			net++;
			break;
		default:
			break;
		}
	}
	ck_assert_uint_eq(samples, 6);
	ck_assert_uint_eq(switches, 3);
	ck_assert_uint_eq(ready, 1);
	ck_assert_uint_eq(disk, 2);
	ck_assert_uint_eq(net, 2);
	ck_assert_uint_eq(etl_reader_event_pid(r, NULL), ETL_ID_NONE);
	ck_assert_uint_eq(etl_event_subject_tid(NULL), ETL_ID_NONE);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- Microsoft-Windows-Kernel-Network, decoded with its real manifest ---- */

START_TEST(kernel_network_rows)
{
	static const struct etl_guid knet = { 0x7dd42a49, 0x5329, 0x4832,
					      { 0x8d, 0xfd, 0x43, 0xd9, 0x79, 0x15, 0x3a, 0x88 } };
	/* SendIPV4 (10): PID, size, daddr, saddr, dport, sport (network order), startime, endtime,
	 * seqnum, connid; UDP's RecvIPV4 (43): PID, size, daddr, saddr, dport, sport, seqnum, connid */
	static const uint8_t send[36] = { 44, 1, 0, 0, 0xd2, 4, 0, 0, 192, 168, 1, 9, 192, 168, 1, 2, 0x01, 0xbb,
					  0xc3, 0x51, 1, 0, 0, 0, 2, 0, 0, 0 };
	static const uint8_t recv[28] = { 44, 1, 0, 0, 100, 0, 0, 0, 192, 168, 1, 9, 192, 168, 1, 2, 0, 53,
					  0xc3, 0x52 };
	char man[4096];
	struct etlw_opts o;
	struct etlw_event e;
	struct etlw *w;
	struct etl_reader *r;
	struct etl_tables *T = NULL;
	const struct etl_table *t;
	uint8_t *d = NULL;
	size_t len;
	FILE *f;

	snprintf(man, sizeof(man), "%s/manifests/Tx_SystemEvents.man", corpus_dir);
	if (!(f = fopen(man, "r")))
		return; /* (the corpus is absent) */
	fclose(f);
	etlw_default_opts(&o);
	o.ncpu = 1;
	ck_assert_ptr_nonnull(w = etlw_new(&o));
	ck_assert_int_eq(scen_process(w, &o, 0, 3, o.start_ts + 10, 300, 4, 259, "net.exe", "net.exe"), 0);
	memset(&e, 0, sizeof(e));
	e.provider = knet;
	e.level = 4;
	e.pid = 4; /* logged in the System process's context: the payload names the process */
	e.tid = 8;
	e.id = 10, e.opcode = 10, e.task = 2, e.ts = o.start_ts + 20;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, send, sizeof(send)), 0);
	e.id = 43, e.opcode = 11, e.task = 3, e.ts = o.start_ts + 30;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, recv, sizeof(recv)), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_add_manifest_path(r, man), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "knet"), ETL_OK);
	ck_assert_int_eq(etl_tables_build(r, NULL, 0, 0, NULL, NULL, &T), ETL_OK);
	t = table(T, "network", 2);
	U(t, 0, "pid", 300); S(t, 0, "process", "net.exe"); S(t, 0, "protocol", "tcp"); S(t, 0, "operation", "send");
	S(t, 0, "local_address", "192.168.1.2"); U(t, 0, "local_port", 50001); S(t, 0, "remote_address", "192.168.1.9");
	U(t, 0, "remote_port", 443); U(t, 0, "bytes", 1234); S(t, 0, "source", "Kernel-Network");
	S(t, 1, "protocol", "udp"); S(t, 1, "operation", "receive"); U(t, 1, "remote_port", 53); U(t, 1, "bytes", 100);
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- the kernel's manifest providers, with no kernel logger (kproviders64) ---- */

/* A logman session of Kernel-Process, Kernel-File and Kernel-Disk gives the processes, threads,
 * images, file-io and disk-io tables, decoded by the built-in descriptions (no manifest given). */
START_TEST(kernel_providers_give_the_tables)
{
	struct etlw_opts o;
	struct etl_reader *r = etl_reader_new();
	struct etl_tables *T;
	const struct etl_table *t;
	uint8_t *d = NULL;
	size_t len;

	etlw_default_opts(&o);
	o.ncpu = 1;
	ck_assert_int_eq(scen_build_kproviders(&o, &d, &len), 0);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "kproviders64"), ETL_OK);
	T = build_all(r);
	t = table(T, "processes", 1);
	U(t, 0, "pid", 300); U(t, 0, "parent_pid", 4); S(t, 0, "image", "app.exe"); U(t, 0, "session", 1);
	U(t, 0, "start_time", MS(1)); U(t, 0, "end_time", MS(61)); ck_assert_int_eq(etl_table_i64(t, 0, col(t, "exit_code")), 7);
	U(t, 0, "threads", 1); U(t, 0, "images", 1);
	t = table(T, "threads", 2);
	U(t, 0, "tid", 301); S(t, 0, "process", "app.exe"); U(t, 0, "start_time", MS(2)); U(t, 0, "end_time", MS(60));
	U(t, 0, "start_address", 0x140001000ull);
	U(t, 1, "tid", 999); U(t, 1, "pid", 4); U(t, 1, "start_is_trace_start", 1); U(t, 1, "end_time", MS(62));
	t = table(T, "images", 1);
	S(t, 0, "path", "\\Device\\HarddiskVolume1\\app.exe"); U(t, 0, "base", 0x140000000ull); U(t, 0, "size", 0x10000);
	U(t, 0, "load_time", MS(3)); NUL(t, 0, "unload_time"); U(t, 0, "checksum", 0x1234); S(t, 0, "process", "app.exe");
	t = table(T, "file-io", 4);
	S(t, 0, "operation", "create"); S(t, 0, "file_name", "\\Device\\HarddiskVolume1\\d.txt"); U(t, 0, "end_time", MS(11));
	S(t, 0, "process", "app.exe"); U(t, 0, "tid", 301);
	S(t, 1, "operation", "read"); S(t, 1, "file_name", "\\Device\\HarddiskVolume1\\d.txt"); U(t, 1, "offset", 4096);
	U(t, 1, "bytes", 60); D(t, 1, "elapsed", 2.0);
	/* the write never ended; the Irp's create before it was reused: a row each, counted */
	S(t, 2, "operation", "write"); NUL(t, 2, "end_time"); U(t, 2, "bytes", 10);
	S(t, 3, "operation", "create"); S(t, 3, "file_name", "\\Device\\HarddiskVolume1\\e.txt"); NUL(t, 3, "end_time");
	ck_assert_uint_eq(note(t, "no OperationEnd"), 2);
	t = table(T, "disk-io", 1);
	S(t, 0, "type", "read"); U(t, 0, "bytes", 4096); U(t, 0, "offset", 8192); D(t, 0, "elapsed", 2.0);
	S(t, 0, "file_name", "\\Device\\HarddiskVolume1\\d.txt"); NUL(t, 0, "init_time");
	etl_tables_free(T);
	etl_reader_free(r);
	/* without the built-in descriptions nothing decodes them: no rows */
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_BUILTIN_MANIFESTS, 0), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "kproviders64"), ETL_OK);
	T = build_all(r);
	table(T, "file-io", 0);
	table(T, "processes", 0);
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* A trace with both the kernel logger's FileIO and Kernel-File: the first source of file
 * operations keeps the table, the other's are counted, not rows twice. */
START_TEST(one_source_of_file_operations_per_trace)
{
	static const struct etl_guid kfile = { 0xedd08927, 0x9cc4, 0x4e65,
					       { 0xb9, 0x70, 0xc2, 0x56, 0x0f, 0xb5, 0xc2, 0x89 } };
	struct etlw_opts o;
	struct etlw_event e;
	struct etlw *w;
	struct etl_reader *r = etl_reader_new();
	struct etl_tables *T;
	const struct etl_table *t;
	uint8_t *d = NULL, p[128];
	size_t len, n, k;

	etlw_default_opts(&o);
	o.ncpu = 1;
	ck_assert_ptr_nonnull(w = etlw_new(&o));
	memset(p, 0, sizeof(p)); /* FileIO Create v3: IrpPtr, FileObject, TTID, options, attributes, share, path */
	etlw_put64(p, 0xa00), etlw_put64(p + 8, 0xf1), etlw_put32(p + 16, 201);
	for (k = 0, n = 32; k < 6; k++, n += 2)
		etlw_put16(p + n, (uint16_t)"a.txt"[k]);
	ck_assert_int_eq(etlw_system(w, 0, 0, 3, 0x0440, 201, 200, o.start_ts + 10, p, n), 0);
	memset(&e, 0, sizeof(e)); /* Kernel-File Create v1 of another file: left out */
	e.provider = kfile, e.id = 12, e.version = 1, e.task = 12, e.level = 4, e.pid = 200, e.tid = 201;
	e.ts = o.start_ts + 20;
	memset(p, 0, sizeof(p));
	etlw_put64(p, 0xb00), etlw_put64(p + 8, 0xf2), etlw_put32(p + 16, 201);
	for (k = 0, n = 32; k < 6; k++, n += 2)
		etlw_put16(p + n, (uint16_t)"b.txt"[k]);
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, p, n), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "both"), ETL_OK);
	T = build_all(r);
	t = table(T, "file-io", 1);
	S(t, 0, "file_name", "a.txt");
	ck_assert_uint_eq(note(t, "events left out"), 1);
	etl_tables_free(T);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Counts of events of a provider by id, in a corpus trace; with pairs, also how many of ids 2, 4
 * and 6 end what an id 1, 3 or 5 began in the trace (the same ProcessID, ThreadID, or ProcessID
 * and ImageBase), in pairs[0..2]. */
static void count_ids(const char *file, const char *guid, unsigned counts[64], unsigned pairs[3])
{
	char path[1024];
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	struct etl_guid g;
	static uint64_t open[3][4096];
	size_t nopen[3] = { 0, 0, 0 };

	memset(counts, 0, 64 * sizeof(counts[0]));
	if (pairs)
		memset(pairs, 0, 3 * sizeof(pairs[0]));
	ck_assert_int_eq(etl_guid_parse(guid, &g), ETL_OK);
	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, file);
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_STACKS, 0), ETL_OK);
	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		unsigned id = etl_event_id(ev), k;
		uint64_t key = 0, v = 0;
		size_t i;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT || !etl_guid_equal(etl_event_provider(ev), &g) || id >= 64)
			continue;
		counts[id]++;
		if (!pairs || id < 1 || id > 6 || etl_reader_decode(r, ev, &d) != ETL_OK)
			continue;
		k = (id - 1) / 2;
		ck_assert_int_eq(etl_property_as_u64(etl_decoded_property_by_name(d, k == 1 ? "ThreadID" : "ProcessID"), &key),
				 ETL_OK);
		if (k == 2 && etl_property_as_u64(etl_decoded_property_by_name(d, "ImageBase"), &v) == ETL_OK)
			key ^= v;
		for (i = 0; i < nopen[k] && open[k][i] != key; i++)
			;
		if (id % 2) { /* a start */
			if (i == nopen[k] && nopen[k] < 4096)
				open[k][nopen[k]++] = key;
		} else if (i < nopen[k]) { /* the end of one begun in the trace */
			pairs[k]++;
			open[k][i] = open[k][--nopen[k]];
		}
	}
	etl_reader_free(r);
}

/* Tx_Process (a PerfMon session of Kernel-Process alone): its tables against its events - a
 * process per start or stop that pairs (started in it, or ended in it), a thread and an image
 * the same way; perfview_net's Kernel-File creates: one file-io row each (no OperationEnd: the
 * session logged creates only, for names), its process's classic tables unchanged. */
START_TEST(corpus_kernel_provider_tables)
{
	unsigned kp[64], kf[64], pairs[3];
	char path[1024];
	struct etl_reader *r;
	struct etl_tables *T;
	const struct etl_table *t;
	size_t i;

	snprintf(path, sizeof(path), "%s/etl/Tx_Process.etl", corpus_dir);
	if (access(path, R_OK) != 0)
		return;
	count_ids("Tx_Process.etl", "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", kp, pairs);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	T = build_all(r);
	/* a record per start or end, one for both where an end closes a start of the trace */
	ck_assert_uint_eq(etl_table_row_count(etl_tables_get(T, "processes")), kp[1] + kp[2] - pairs[0]);
	ck_assert_uint_eq(etl_table_row_count(etl_tables_get(T, "threads")), kp[3] + kp[4] - pairs[1]);
	ck_assert_uint_eq(etl_table_row_count(etl_tables_get(T, "images")), kp[5] + kp[6] - pairs[2]);
	ck_assert_uint_gt(pairs[0], 0);
	ck_assert_uint_gt(pairs[1], 0);
	ck_assert_uint_gt(pairs[2], 0);
	etl_tables_free(T);
	etl_reader_free(r);

	snprintf(path, sizeof(path), "%s/etl/perfview_net.4.5.2.x86.etl", corpus_dir);
	count_ids("perfview_net.4.5.2.x86.etl", "edd08927-9cc4-4e65-b970-c2560fb5c289", kf, NULL);
	ck_assert_uint_eq(kf[12], 968);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	T = build_all(r);
	t = etl_tables_get(T, "file-io");
	ck_assert_uint_eq(etl_table_row_count(t), kf[12]);
	ck_assert_uint_eq(note(t, "no OperationEnd"), kf[12]);
	for (i = 0; i < etl_table_row_count(t); i++) {
		ck_assert_str_eq(text(t, i, "operation"), "create");
		/* named by the create, its NT volume replaced as the trace maps it */
		ck_assert_msg(strncmp(text(t, i, "file_name"), "\\Device\\Harddisk", 17) != 0, "%s", text(t, i, "file_name"));
	}
	ck_assert_uint_eq(note(etl_tables_get(T, "processes"), "Kernel-Process records left out"), 1);
	etl_tables_free(T);
	etl_reader_free(r);
}
END_TEST

/* ---- the HTML report ---- */

struct page {
	char *b;
	size_t n, cap;
	unsigned calls, fail_at; /* fail_at: the call that fails (0: none) */
};

static int to_page(void *ctx, const void *data, size_t size)
{
	struct page *p = ctx;

	if (++p->calls == p->fail_at)
		return -1;
	if (p->n + size + 1 > p->cap) {
		p->cap = (p->n + size + 1) * 2;
		ck_assert_ptr_nonnull(p->b = realloc(p->b, p->cap));
	}
	memcpy(p->b + p->n, data, size);
	p->n += size;
	p->b[p->n] = 0;
	return 0;
}

static void page_of(const uint8_t *d, size_t len, struct page *p)
{
	struct etl_reader *r = etl_reader_new();

	memset(p, 0, sizeof(*p));
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "report"), ETL_OK);
	ck_assert_int_eq(etl_report_html(r, 0, to_page, p), ETL_OK);
	etl_reader_free(r);
}

START_TEST(report_of_tables64)
{
	static const char *const want[] = { "<!DOCTYPE html>", "<section id=\"overview\">", "<section id=\"processes\">",
					    "<section id=\"cpu\">", "<section id=\"io\">", "<section id=\"network\">",
					    "<section id=\"dotnet\">", "<section id=\"losses\">", "app.exe (100)",
					    "worker.exe (200)", "\\Device\\HarddiskVolume1\\data.bin", "tcp 10.0.0.2:443",
					    "System.Exception", "Microsoft-Windows-DotNETRuntime", "id=\"flame\"",
					    "disk I/Os issued with no completion", "data-ready" };
	struct page p;
	size_t len, i;
	uint8_t *d = tables64(&len);

	page_of(d, len, &p);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(p.b, want[i]) != NULL, "the page lacks %s", want[i]);
	ck_assert_ptr_null(strstr(p.b, "NaN"));
	ck_assert_ptr_null(strstr(p.b, "http"));
	ck_assert_str_eq(p.b + p.n - 8, "</html>\n");
	/* the CPU of a one-processor trace never passes one processor (1000 ms per second) */
	ck_assert_ptr_nonnull(strstr(p.b, ">1000 ms/s</text>"));
	ck_assert_ptr_null(strstr(p.b, ">1500 ms/s</text>"));
	free(p.b);
	free(d);
}
END_TEST

START_TEST(report_write_failure_and_misuse)
{
	struct page p;
	size_t len;
	uint8_t *d = tables64(&len);
	struct etl_reader *r = etl_reader_new();
	struct etl_report *rep = NULL;
	const struct etl_event *ev;

	memset(&p, 0, sizeof(p));
	p.fail_at = 1;
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "report"), ETL_OK);
	ck_assert_int_eq(etl_report_html(r, 0, to_page, &p), ETL_E_IO);
	ck_assert_uint_eq(p.calls, 1); /* nothing is written after a failure */
	etl_reader_free(r);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "report"), ETL_OK);
	ck_assert_int_eq(etl_report_html(r, 0, NULL, NULL), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_next(r, &ev), ETL_OK);
	rep = (struct etl_report *)1;
	ck_assert_int_eq(etl_report_new(r, 0, &rep), ETL_E_MISUSE); /* it has delivered an event */
	ck_assert_ptr_null(rep);
	ck_assert_int_eq(etl_report_add(NULL, ev), ETL_E_MISUSE);
	etl_report_free(NULL);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(report_names_are_escaped)
{
	struct etlw_opts o;
	struct etlw *w;
	struct page p;
	uint8_t *d = NULL;
	size_t len;

	etlw_default_opts(&o);
	o.ncpu = 1;
	ck_assert_ptr_nonnull(w = etlw_new(&o));
	ck_assert_int_eq(scen_process(w, &o, 0, 1, o.start_ts + 10, 300, 4, 0, "<script>alert(1)</script>\"'&.exe",
				      "x \x01\xff\"<b>"), 0);
	ck_assert_int_eq(scen_thread(w, &o, 0, 1, o.start_ts + 11, 300, 301), 0);
	ck_assert_int_eq(scen_sample(w, &o, 0, o.start_ts + 20, 0x1000, 301), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	page_of(d, len, &p);
	ck_assert_ptr_null(strstr(p.b, "<script>alert"));
	/* the command line (a tooltip): a control byte as U+FFFD (the writer made 0xFF U+00FF) */
	ck_assert_ptr_nonnull(strstr(p.b, "x \xEF\xBF\xBD\xC3\xBF&quot;&lt;b&gt;"));
	ck_assert_ptr_nonnull(strstr(p.b, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;.exe (300)"));
	free(p.b);
	free(d);
}
END_TEST

/* The page's size does not grow with the trace: bins, tops and caps bound it. */
START_TEST(report_size_is_bounded)
{
	struct etlw_opts o;
	struct page small, big;
	uint8_t *d = NULL;
	size_t len;

	etlw_default_opts(&o);
	ck_assert_int_eq(scen_build_mixed(&o, 5000, &d, &len), 0);
	page_of(d, len, &small);
	free(d);
	ck_assert_int_eq(scen_build_mixed(&o, 100000, &d, &len), 0);
	page_of(d, len, &big);
	free(d);
	ck_assert_uint_lt(big.n, 1u << 20);
	ck_assert_uint_lt(big.n, small.n * 3 / 2);
	free(small.b);
	free(big.b);
}
END_TEST

/* ---- every trace of the corpus ---- */

static char **files;
static size_t nfiles;

static char **corpus_files(size_t *n)
{
	char path[4096], **v = NULL;
	struct dirent *e;
	DIR *dir;

	*n = 0;
	snprintf(path, sizeof(path), "%s/etl", corpus_dir);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((e = readdir(dir)) != NULL) {
		char **nv;
		if (e->d_name[0] == '.')
			continue;
		nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv)
			abort();
		v = nv;
		v[*n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		if (!v[*n])
			abort();
		sprintf(v[*n], "%s/%s", path, e->d_name);
		(*n)++;
	}
	closedir(dir);
	return v;
}

/* Sums per pid: a small open-addressed-by-scan list (traces have hundreds of processes). */
struct sums {
	uint32_t pid[4096];
	uint64_t sum[4096];
	size_t n;
};

static void add(struct sums *s, uint32_t pid, uint64_t v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->pid[i] == pid)
			break;
	if (i == s->n) {
		ck_assert_uint_lt(s->n, 4096);
		s->pid[s->n] = pid, s->sum[s->n++] = 0;
	}
	s->sum[i] += v;
}

static uint64_t get(const struct sums *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->pid[i] == pid)
			return s->sum[i];
	return 0;
}

static void same_sums(const char *file, const char *what, const struct sums *a, const struct sums *b)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		ck_assert_msg(get(b, a->pid[i]) == a->sum[i], "%s: %s of pid %u: %llu from the events, %llu in the table",
			      file, what, a->pid[i], (unsigned long long)a->sum[i], (unsigned long long)get(b, a->pid[i]));
	for (i = 0; i < b->n; i++)
		ck_assert_msg(get(a, b->pid[i]) == b->sum[i], "%s: %s of pid %u: %llu in the table, %llu from the events",
			      file, what, b->pid[i], (unsigned long long)b->sum[i], (unsigned long long)get(a, b->pid[i]));
}

struct totals {
	struct sums disk_events, disk_rows, sample_events, sample_rows;
};

static uint32_t row_pid(const struct etl_table *t)
{
	size_t c = etl_table_column_index(t, "pid");

	return etl_table_is_null(t, 0, c) ? ETL_ID_NONE : (uint32_t)etl_table_u64(t, 0, c);
}

static void total_row(void *ctx, const struct etl_table *t)
{
	struct totals *tot = ctx;

	if (!strcmp(etl_table_name(t), "cpu-samples")) {
		add(&tot->sample_rows, row_pid(t), 1);
	} else {
		size_t c = etl_table_column_index(t, "bytes");
		if (!etl_table_is_null(t, 0, c))
			add(&tot->disk_rows, row_pid(t), etl_table_u64(t, 0, c));
	}
}

/* The decoded property of that name, any case. */
static const struct etl_property *prop(const struct etl_decoded *dec, const char *name)
{
	size_t i, n = etl_decoded_property_count(dec);

	for (i = 0; i < n; i++)
		if (strcasecmp(etl_property_name(etl_decoded_property_at(dec, i)), name) == 0)
			return etl_decoded_property_at(dec, i);
	return NULL;
}

/* The field a kernel record's attribution reads (a thread, or with *is_pid a process). */
static const char *subject_field(const struct etl_event *ev, int *is_pid)
{
	unsigned group = etl_event_hook_id(ev) >> 8, op = etl_event_opcode(ev);

	*is_pid = 0;
	switch (group) {
	case 0x0F: return op == 46 || op == 47 ? "ThreadId" : NULL;
	case 0x05:
		if (op == 36)
			return "NewThreadId";
		if (op == 50)
			return "TThreadId";
		*is_pid = 1;
		return op == 72 || (op >= 1 && op <= 4) ? "ProcessId" : NULL;
	case 0x01: return "IssuingThreadId";
	case 0x02: return op == 32 ? "TThreadId" : NULL;
	case 0x04: return "TTID";
	case 0x06: case 0x08: *is_pid = 1; return "PID";
	default: return NULL;
	}
}

/* Checks the attribution of one kernel record against its decoded field; 1 when checked. */
static int check_subject(struct etl_reader *r, const struct etl_event *ev, const char *file)
{
	const struct etl_decoded *dec;
	const struct etl_property *p;
	const char *field;
	uint64_t v;
	int is_pid, kind = etl_event_header_kind(ev);

	if (kind != ETL_HEADER_SYSTEM && kind != ETL_HEADER_COMPACT && kind != ETL_HEADER_PERFINFO)
		return 0;
	field = subject_field(ev, &is_pid);
	if (!field || (etl_event_pid(ev) != ETL_ID_NONE && !(etl_event_hook_id(ev) == 0x0524)))
		return 0;
	if (etl_reader_decode(r, ev, &dec) < 0 || etl_decoded_status(dec) != ETL_DECODE_COMPLETE ||
	    !(p = prop(dec, field)) || etl_property_as_u64(p, &v) != ETL_OK)
		return 0;
	if (is_pid)
		ck_assert_msg(etl_reader_event_pid(r, ev) == v, "%s: %s at 0x%llx: pid %u, %s %llu", file,
			      etl_decoded_name(dec), (unsigned long long)etl_event_file_offset(ev),
			      etl_reader_event_pid(r, ev), field, (unsigned long long)v);
	else
		ck_assert_msg(etl_event_subject_tid(ev) == v, "%s: %s at 0x%llx: tid %u, %s %llu", file,
			      etl_decoded_name(dec), (unsigned long long)etl_event_file_offset(ev),
			      etl_event_subject_tid(ev), field, (unsigned long long)v);
	return 1;
}

/* DiskIO Read and Write completions: TransferSize, to the event's process. */
static void disk_event(struct etl_reader *r, const struct etl_event *ev, struct sums *s)
{
	const struct etl_decoded *dec;
	const struct etl_property *p;
	uint64_t v;
	int kind = etl_event_header_kind(ev);

	if (kind != ETL_HEADER_SYSTEM && kind != ETL_HEADER_COMPACT && kind != ETL_HEADER_PERFINFO)
		return;
	if (etl_event_hook_id(ev) != 0x010A && etl_event_hook_id(ev) != 0x010B)
		return;
	if (etl_reader_decode(r, ev, &dec) < 0 || !(p = prop(dec, "TransferSize")) || etl_property_as_u64(p, &v) != ETL_OK)
		return;
	add(s, etl_reader_event_pid(r, ev), v);
}

START_TEST(corpus_tables_add_up)
{
	static const char *names[] = { "disk-io", "cpu-samples" };
	static struct totals tot;
	struct etl_reader *r = etl_reader_new();
	struct etl_tables *T = NULL;
	const struct etl_event *ev;
	unsigned long checked = 0;
	int st;

	memset(&tot, 0, sizeof(tot));
	ck_assert_int_eq(etl_reader_open_path(r, files[_i]), ETL_OK);
	ck_assert_int_eq(etl_tables_new(r, names, 2, 0, total_row, &tot, &T), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st < 0)
			continue;
		ck_assert_int_eq(etl_tables_add(T, ev), ETL_OK);
		checked += (unsigned long)check_subject(r, ev, files[_i]);
		disk_event(r, ev, &tot.disk_events);
		if (etl_event_hook_id(ev) == 0x0F2E && etl_event_header_kind(ev) == ETL_HEADER_PERFINFO)
			add(&tot.sample_events, etl_reader_event_pid(r, ev), 1);
	}
	ck_assert_int_eq(etl_tables_finish(T), ETL_OK);
	same_sums(files[_i], "disk bytes", &tot.disk_events, &tot.disk_rows);
	same_sums(files[_i], "samples", &tot.sample_events, &tot.sample_rows);
	if (strstr(files[_i], "perfview_net.4.5.2.x86.etl") && !strstr(files[_i], ".zip"))
		ck_assert_uint_gt(checked, 1000);
	printf("%s: %lu attributions checked, %zu processes with disk I/O, %zu with samples\n",
	       strrchr(files[_i], '/') + 1, checked, tot.disk_rows.n, tot.sample_rows.n);
	etl_tables_free(T);
	etl_reader_free(r);
}
END_TEST

/* perfview_net's 394 Memory/HardFault records: a row each, their bytes adding up to the records'
 * ByteCount, and the first one's cells as the record and its derived fields give them. */
START_TEST(corpus_hard_faults)
{
	static const char *names[] = { "hard-faults" };
	char path[4096];
	struct etl_reader *r = etl_reader_new();
	struct etl_tables *T = NULL;
	const struct etl_table *t;
	const struct etl_event *ev;
	uint64_t records = 0, bytes = 0, row_bytes = 0, v;
	size_t i;

	snprintf(path, sizeof(path), "%s/etl/perfview_net.4.5.2.x86.etl", corpus_dir);
	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	ck_assert_int_eq(etl_tables_new(r, names, 1, 0, NULL, NULL, &T), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		ck_assert_int_eq(etl_tables_add(T, ev), ETL_OK);
		if (etl_event_header_kind(ev) != ETL_HEADER_PERFINFO || etl_event_hook_id(ev) != 0x0220)
			continue;
		records++;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_int_eq(etl_property_as_u64(etl_decoded_property_by_name(d, "ByteCount"), &v), ETL_OK);
		bytes += v;
	}
	ck_assert_int_eq(etl_tables_finish(T), ETL_OK);
	t = table(T, "hard-faults", 394);
	for (i = 0; i < etl_table_row_count(t); i++)
		row_bytes += u64(t, i, "bytes");
	ck_assert_uint_eq(records, 394);
	ck_assert_uint_eq(row_bytes, bytes);
	S(t, 0, "process", "PerfView.exe"); U(t, 0, "pid", 3988); U(t, 0, "tid", 3992);
	S(t, 0, "file_name", "C:\\Windows\\System32\\wow64win.dll");
	U(t, 0, "offset", 326656); U(t, 0, "bytes", 13824); U(t, 0, "address", 0x777054c8);
	D(t, 0, "elapsed", 6.6601);
	etl_tables_free(T);
	etl_reader_free(r);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("tables");
	TCase *t = tcase_create("tables"), *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_set_timeout(t, 600);
	tcase_add_test(t, kinds_are_listed);
	tcase_add_test(t, system_tables);
	tcase_add_test(t, cpu_tables);
	tcase_add_test(t, io_tables);
	tcase_add_test(t, clr_tables);
	tcase_add_test(t, streamed_rows_are_the_kept_rows);
	tcase_add_test(t, names_select_tables);
	tcase_add_test(t, stacks_column_on_request);
	tcase_add_test(t, events_attributed_through_their_threads);
	tcase_add_test(c, kernel_network_rows);
	tcase_add_test(t, kernel_providers_give_the_tables);
	tcase_add_test(t, one_source_of_file_operations_per_trace);
	tcase_add_test(c, corpus_kernel_provider_tables);
	tcase_add_test(c, corpus_hard_faults);
	tcase_add_test(t, report_of_tables64);
	tcase_add_test(t, report_write_failure_and_misuse);
	tcase_add_test(t, report_names_are_escaped);
	tcase_add_test(t, report_size_is_bounded);
	files = corpus_files(&nfiles);
	tcase_add_loop_test(c, corpus_tables_add_up, 0, (int)nfiles);
	tcase_set_timeout(c, 600);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/etl", corpus_dir);
	return run_part(s, c, probe);
}
