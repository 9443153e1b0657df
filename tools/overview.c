/*
 * overview.c - etldump --report: one page that answers what people open a
 * trace for, from the library's tables in one pass: CPU by process (samples
 * and context switches), disk I/O by file, process and disk, file I/O by
 * file, network by process and endpoint, .NET GCs and exceptions by process,
 * and what could not be paired or read.
 *
 * Rows are added up as they stream out of the tables (memory grows with the
 * distinct processes, files and endpoints, not with the events).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etldump.h"
#include "hmap.h"
#include "out.h"
#include "render.h"
#include "report.h"
#include "tabout.h"
#include "writers/writer.h"

#define TOP 10
#define NV 4

/* A sum by key: a count and up to NV values. */
struct sum {
	char *key;
	uint64_t n;
	double v[NV];
};

struct agg {
	struct hmap m;
	int ready;
};

enum { A_SAMPLES, A_SWITCHES, A_DISK_FILE, A_DISK_PROC, A_DISK_DISK, A_FILE_FILE, A_NET_PROC, A_NET_END, A_GC,
       A_EXC, A_COUNT };

struct overview {
	struct agg a[A_COUNT];
	uint64_t rows[A_COUNT];
};

static int sum_eq(const void *entry, const void *key)
{
	return strcmp(((const struct sum *)entry)->key, key) == 0;
}

static struct sum *sum_of(struct agg *a, const char *key)
{
	uint64_t h = hmap_hash_bytes(key, strlen(key), 0x51);
	struct sum *s;

	if (!a->ready) {
		hmap_init(&a->m, sizeof(struct sum));
		a->ready = 1;
	}
	if ((s = hmap_find(&a->m, h, sum_eq, key)) != NULL)
		return s;
	if (!(s = hmap_insert(&a->m, h)))
		return NULL;
	if (!(s->key = strdup(key))) {
		s->key = (char *)""; /* (kept, never freed: an empty key) */
		return NULL;
	}
	return s;
}

static void add(struct agg *a, const char *key, double v0, double v1, double v2, double v3)
{
	struct sum *s = sum_of(a, key);

	if (!s)
		return;
	s->n++;
	s->v[0] += v0;
	s->v[1] += v1;
	s->v[2] += v2;
	s->v[3] = v3 > s->v[3] ? v3 : s->v[3]; /* the fourth is a maximum */
}

static const char *col_text(const struct etl_table *t, size_t row, const char *name)
{
	size_t c = etl_table_column_index(t, name);
	const char *v = c != (size_t)-1 ? etl_table_text(t, row, c) : NULL;

	return v ? v : "?";
}

static double col_num(const struct etl_table *t, size_t row, const char *name)
{
	size_t c = etl_table_column_index(t, name);

	if (c == (size_t)-1 || etl_table_is_null(t, row, c))
		return 0;
	return etl_table_column_type(t, c) == ETL_COLUMN_DOUBLE ? etl_table_double(t, row, c)
								 : (double)etl_table_u64(t, row, c);
}

/* "image (pid)" of a row. */
static const char *who(const struct etl_table *t, size_t row, char *buf, size_t cap)
{
	size_t c = etl_table_column_index(t, "pid");

	if (c == (size_t)-1 || etl_table_is_null(t, row, c))
		return "(no process)";
	snprintf(buf, cap, "%s (%llu)", col_text(t, row, "process"), (unsigned long long)etl_table_u64(t, row, c));
	return buf;
}

static void on_row(void *ctx, const struct etl_table *t)
{
	struct overview *ov = ctx;
	const char *name = etl_table_name(t);
	char b[512], e[600];
	size_t r = 0;

	if (strcmp(name, "cpu-samples") == 0) {
		ov->rows[A_SAMPLES]++;
		add(&ov->a[A_SAMPLES], who(t, r, b, sizeof(b)), col_num(t, r, "weight"), 0, 0, 0);
	} else if (strcmp(name, "cpu-usage") == 0) {
		ov->rows[A_SWITCHES]++;
		add(&ov->a[A_SWITCHES], who(t, r, b, sizeof(b)), col_num(t, r, "cpu_usage"), col_num(t, r, "ready"), 0, 0);
	} else if (strcmp(name, "disk-io") == 0) {
		double bytes = col_num(t, r, "bytes"), ms = col_num(t, r, "elapsed");
		const char *file = col_text(t, r, "file_name");
		ov->rows[A_DISK_FILE]++;
		if (strcmp(file, "?") == 0)
			file = strcmp(col_text(t, r, "type"), "flush") == 0 ? "(flushes)" : "(no file name in the trace)";
		add(&ov->a[A_DISK_FILE], file, bytes, ms, 0, ms);
		add(&ov->a[A_DISK_PROC], who(t, r, b, sizeof(b)), bytes, ms, 0, ms);
		snprintf(e, sizeof(e), "disk %.0f", col_num(t, r, "disk"));
		add(&ov->a[A_DISK_DISK], e, bytes, ms, 0, ms);
	} else if (strcmp(name, "file-io") == 0) {
		ov->rows[A_FILE_FILE]++;
		add(&ov->a[A_FILE_FILE], col_text(t, r, "file_name"), col_num(t, r, "bytes"), col_num(t, r, "elapsed"), 0,
		    col_num(t, r, "elapsed"));
	} else if (strcmp(name, "network") == 0) {
		const char *op = col_text(t, r, "operation");
		double bytes = col_num(t, r, "bytes"), sent = strcmp(op, "send") == 0 ? bytes : 0,
		       recv = strcmp(op, "receive") == 0 ? bytes : 0;
		ov->rows[A_NET_PROC]++;
		add(&ov->a[A_NET_PROC], who(t, r, b, sizeof(b)), sent, recv, 0, 0);
		snprintf(e, sizeof(e), "%s %s:%.0f", col_text(t, r, "protocol"), col_text(t, r, "remote_address"),
			 col_num(t, r, "remote_port"));
		add(&ov->a[A_NET_END], e, sent, recv, 0, 0);
	} else if (strcmp(name, "gc") == 0) {
		ov->rows[A_GC]++;
		add(&ov->a[A_GC], who(t, r, b, sizeof(b)), col_num(t, r, "pause"), col_num(t, r, "duration"), 0,
		    col_num(t, r, "pause"));
	} else if (strcmp(name, "exceptions") == 0) {
		ov->rows[A_EXC]++;
		snprintf(e, sizeof(e), "%s in %s", col_text(t, r, "type"), who(t, r, b, sizeof(b)));
		add(&ov->a[A_EXC], e, 0, 0, 0, 0);
	}
}

static int by_v(const void *x, const void *y, int k)
{
	const struct sum *a = *(const struct sum *const *)x, *b = *(const struct sum *const *)y;
	double va = k < 0 ? (double)a->n : a->v[k], vb = k < 0 ? (double)b->n : b->v[k];

	if (va != vb)
		return va > vb ? -1 : 1;
	return strcmp(a->key, b->key);
}

static int by_v0(const void *x, const void *y) { return by_v(x, y, 0); }
static int by_v1(const void *x, const void *y) { return by_v(x, y, 1); }
static int by_n(const void *x, const void *y) { return by_v(x, y, -1); }

/* The top entries of an aggregate, sorted by column k (-1: the count), as a small table. */
static void section(const char *title, struct agg *a, int k, const char *const *cols, int ncols)
{
	struct sum **all;
	size_t i, n = 0, shown;
	int (*cmp)(const void *, const void *) = k < 0 ? by_n : k == 0 ? by_v0 : by_v1;

	out_printf("\n%s\n", title);
	if (!a->ready || !a->m.count) {
		out_cstr("  (none in this trace)\n");
		return;
	}
	all = malloc(a->m.count * sizeof(*all));
	for (i = 0; all && i < a->m.cap; i++) {
		struct sum *s = hmap_at(&a->m, i);
		if (s)
			all[n++] = s;
	}
	if (!all)
		return;
	qsort(all, n, sizeof(*all), cmp);
	out_printf("  %10s", "count");
	for (i = 0; i < (size_t)ncols; i++)
		out_printf(" %14s", cols[i]);
	out_cstr("  name\n");
	shown = n < TOP ? n : TOP;
	for (i = 0; i < shown; i++) {
		int c;
		out_printf("  %10llu", (unsigned long long)all[i]->n);
		for (c = 0; c < ncols; c++) /* times to the microsecond, counts of bytes whole */
			out_printf(strstr(cols[c], "ms") ? " %14.3f" : " %14.0f", all[i]->v[c == ncols - 1 && ncols == 3 ? 3 : c]);
		out_cstr("  ");
		out_text_name(all[i]->key);
		out_char('\n');
	}
	if (n > shown)
		out_printf("  ... and %zu more\n", n - shown);
	free(all);
}

static void agg_free(struct agg *a)
{
	size_t i;

	if (!a->ready)
		return;
	for (i = 0; i < a->m.cap; i++) {
		struct sum *s = hmap_at(&a->m, i);
		if (s && *s->key)
			free(s->key);
	}
	hmap_free(&a->m);
}

static void losses(struct etl_tables *tabs, struct etl_reader *r)
{
	size_t i, k, any = 0;

	out_cstr("\nPairing and losses\n");
	for (i = 0; i < etl_table_kind_count(); i++) {
		const struct etl_table *t = etl_tables_get(tabs, etl_table_kind_name(i));
		for (k = 0; k < etl_table_note_count(t); k++) {
			uint64_t n;
			const char *what = etl_table_note(t, k, &n);
			out_printf("  %s: %llu %s\n", etl_table_name(t), (unsigned long long)n, what);
			any++;
		}
	}
	for (i = 0; i < (size_t)etl_reader_trace_count(r); i++) {
		const struct etl_trace_info *ti = etl_reader_trace_info(r, (int)i);
		if (etl_trace_info_events_lost(ti)) {
			out_printf("  %s: %u events lost by the logger\n", etl_trace_info_name(ti), etl_trace_info_events_lost(ti));
			any++;
		}
	}
	if (etl_tables_damage(tabs)) {
		out_printf("  %llu damage reports while reading (on stderr)\n", (unsigned long long)etl_tables_damage(tabs));
		any++;
	}
	if (!any)
		out_cstr("  none\n");
}

static void header(struct etl_reader *r, const struct etl_tables *tabs, const struct options *o)
{
	const struct etl_table *p = etl_tables_get(tabs, "processes");
	int i;

	out_cstr("etldump report\n");
	for (i = 0; i < etl_reader_trace_count(r); i++) {
		const struct etl_trace_info *ti = etl_reader_trace_info(r, i);
		char a[ETL_FILETIME_STRING_SIZE], b[ETL_FILETIME_STRING_SIZE];
		etl_filetime_format(etl_trace_info_start_time(ti), a);
		etl_filetime_format(etl_trace_info_end_time(ti), b);
		out_cstr("  ");
		out_text_name(etl_trace_info_name(ti));
		out_printf(": %s .. %s, %u processors\n", a, b, etl_trace_info_cpu_count(ti));
	}
	out_printf("  %llu events, %zu processes%s\n", (unsigned long long)etl_reader_count(r, ETL_COUNT_EVENTS),
		   etl_table_row_count(p), o->sel.filter ? " in the selection" : "");
	if (o->sel.filter) {
		out_cstr("  selection: ");
		out_text_name(etl_filter_text(o->sel.filter));
		out_cstr("\n");
	}
}

int overview_run(struct etl_reader *r, const struct options *o)
{
	static const char *const c_cpu[] = { "ms" }, *const c_sw[] = { "cpu ms", "ready ms" },
				 *const c_io[] = { "bytes", "ms", "max ms" }, *const c_net[] = { "sent", "received" },
				 *const c_gc[] = { "pause ms", "gc ms", "max pause ms" };
	struct overview ov;
	struct etl_tables *tabs;
	int exit_code, k;

	memset(&ov, 0, sizeof(ov));
	if (etl_tables_new(r, NULL, 0, 0, on_row, &ov, &tabs) != ETL_OK) {
		fprintf(stderr, "%s: %s\n", progname, etl_error_message(etl_reader_error(r)));
		return EXIT_NOMEM;
	}
	if (o->sel.filter)
		etl_tables_set_filter(tabs, o->sel.filter);
	exit_code = tabout_read(r, o, tabout_add_to_tables, tabs);
	etl_tables_finish(tabs);
	header(r, tabs, o);
	section("CPU by process, from samples (ms: samples times the sampling interval)", &ov.a[A_SAMPLES], 0, c_cpu,
		1);
	section("CPU by process, from context switches", &ov.a[A_SWITCHES], 0, c_sw, 2);
	section("Disk I/O by file (the slowest first)", &ov.a[A_DISK_FILE], 1, c_io, 3);
	section("Disk I/O by process (the most bytes first)", &ov.a[A_DISK_PROC], 0, c_io, 3);
	section("Disk I/O by disk", &ov.a[A_DISK_DISK], 0, c_io, 3);
	section("File I/O by file (the slowest first)", &ov.a[A_FILE_FILE], 1, c_io, 3);
	section("Network by process (bytes)", &ov.a[A_NET_PROC], 0, c_net, 2);
	section("Network by remote endpoint (bytes)", &ov.a[A_NET_END], 0, c_net, 2);
	section(".NET GCs by process", &ov.a[A_GC], 0, c_gc, 3);
	section(".NET exceptions by type", &ov.a[A_EXC], -1, NULL, 0);
	losses(tabs, r);
	for (k = 0; k < A_COUNT; k++)
		agg_free(&ov.a[k]);
	etl_tables_free(tabs);
	return exit_code;
}

/* ---- --report=html ---- */

static int write_out(void *ctx, const void *data, size_t size)
{
	(void)ctx;
	out_mem(data, size);
	return out_buf.failed ? -1 : 0;
}

static int add_to_report(void *ctx, const struct etl_event *ev)
{
	return etl_report_add(ctx, ev);
}

int overview_html_run(struct etl_reader *r, const struct options *o)
{
	struct etl_report *rep;
	int exit_code;

	if (etl_report_new(r, 0, &rep) != ETL_OK) {
		fprintf(stderr, "%s: %s\n", progname, etl_error_message(etl_reader_error(r)));
		return EXIT_NOMEM;
	}
	if (o->sel.filter)
		etl_report_set_filter(rep, o->sel.filter);
	exit_code = tabout_read(r, o, add_to_report, rep);
	if (etl_report_write_html(rep, write_out, NULL) == ETL_E_NOMEM)
		exit_code = exit_worse(exit_code, EXIT_NOMEM);
	etl_report_free(rep);
	return exit_code;
}
