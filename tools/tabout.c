/*
 * tabout.c - etldump --table=NAME and --tables: the library's analysis
 * tables (docs/TABLES.md) as aligned text, CSV or JSON Lines.
 *
 * The rows of streamed tables are written as they complete; text output
 * keeps the first TEXT_SAMPLE rows to size its columns (a longer value
 * later widens its own line only).  The table's notes (what could not be
 * paired) go to stderr at the end.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etldump.h"
#include "out.h"
#include "render.h"
#include "report.h"
#include "tabout.h"
#include "writers/writer.h"

#define TEXT_SAMPLE 1000
#define TEXT_MAX_WIDTH 48

enum { FMT_TEXT, FMT_CSV, FMT_JSONL };

struct tab_out {
	int fmt;
	int header_done;
	/* text: the first rows' cells, kept to size the columns */
	char **cells;
	size_t ncols, nrows;
	size_t rows_out;   /* rows written (or kept for text) */
	size_t *width;
	int sized;
};

/* A cell as text ("" when null). */
static const char *cell_text(const struct etl_table *t, size_t row, size_t col, char *buf, size_t cap)
{
	const char *unit = etl_table_column_unit(t, col);

	if (etl_table_is_null(t, row, col))
		return "";
	switch (etl_table_column_type(t, col)) {
	case ETL_COLUMN_TEXT:
		return etl_table_text(t, row, col);
	case ETL_COLUMN_INT:
		snprintf(buf, cap, "%lld", (long long)etl_table_i64(t, row, col));
		return buf;
	case ETL_COLUMN_DOUBLE:
		snprintf(buf, cap, "%.3f", etl_table_double(t, row, col));
		return buf;
	case ETL_COLUMN_TIME:
		etl_filetime_format(etl_table_u64(t, row, col), buf);
		return buf;
	case ETL_COLUMN_BOOL:
		return etl_table_u64(t, row, col) ? "true" : "false";
	default:
		if (strcmp(unit, "address") == 0 || strcmp(unit, "hex") == 0)
			snprintf(buf, cap, "0x%llx", (unsigned long long)etl_table_u64(t, row, col));
		else
			snprintf(buf, cap, "%llu", (unsigned long long)etl_table_u64(t, row, col));
		return buf;
	}
}

static int right_aligned(const struct etl_table *t, size_t col)
{
	enum etl_column_type ty = etl_table_column_type(t, col);

	return ty == ETL_COLUMN_UINT || ty == ETL_COLUMN_INT || ty == ETL_COLUMN_DOUBLE;
}

/* One text line of cells (the widths known). */
static void text_line(struct tab_out *w, const struct etl_table *t, const char *const *cells)
{
	size_t c;

	for (c = 0; c < w->ncols; c++) {
		size_t n = strlen(cells[c]), pad = n < w->width[c] ? w->width[c] - n : 0;
		if (c)
			out_cstr("  ");
		if (right_aligned(t, c))
			while (pad--)
				out_char(' ');
		out_text_name(cells[c]);
		if (!right_aligned(t, c) && c + 1 < w->ncols)
			while (pad--)
				out_char(' ');
	}
	out_char('\n');
}

/* The kept rows: widths from them and the header, then all of them. */
static void text_flush(struct tab_out *w, const struct etl_table *t)
{
	const char **head = calloc(w->ncols ? w->ncols : 1, sizeof(*head));
	size_t r, c;

	for (c = 0; head && c < w->ncols; c++) {
		head[c] = etl_table_column_name(t, c);
		w->width[c] = strlen(head[c]);
		for (r = 0; r < w->nrows; r++) {
			size_t n = strlen(w->cells[r * w->ncols + c]);
			if (n > w->width[c])
				w->width[c] = n < TEXT_MAX_WIDTH ? n : TEXT_MAX_WIDTH;
		}
	}
	if (head)
		text_line(w, t, head);
	for (r = 0; r < w->nrows; r++) {
		text_line(w, t, (const char *const *)w->cells + r * w->ncols);
		for (c = 0; c < w->ncols; c++)
			free(w->cells[r * w->ncols + c]);
	}
	free(head);
	w->nrows = 0;
	w->sized = 1;
}

static void text_row(struct tab_out *w, const struct etl_table *t, size_t row)
{
	char buf[64];
	const char *cells[64];
	size_t c;

	if (!w->cells) {
		w->ncols = etl_table_column_count(t);
		w->cells = calloc(TEXT_SAMPLE * w->ncols, sizeof(*w->cells));
		w->width = calloc(w->ncols, sizeof(*w->width));
		if (!w->cells || !w->width || w->ncols > 64) {
			w->sized = 1; /* (no memory: unaligned) */
			if (w->width)
				for (c = 0; c < w->ncols; c++)
					w->width[c] = 0;
		}
	}
	if (w->sized) {
		char bufs[64][64];
		for (c = 0; c < w->ncols && c < 64; c++)
			cells[c] = cell_text(t, row, c, bufs[c], sizeof(bufs[c]));
		if (w->width)
			text_line(w, t, cells);
		return;
	}
	for (c = 0; c < w->ncols; c++) {
		const char *v = cell_text(t, row, c, buf, sizeof(buf));
		w->cells[w->nrows * w->ncols + c] = strdup(v ? v : "");
	}
	if (++w->nrows == TEXT_SAMPLE)
		text_flush(w, t);
}

static void column_names(struct tab_out *w, const struct etl_table *t, const char *sep)
{
	size_t c;

	for (c = 0; c < etl_table_column_count(t); c++) {
		if (c)
			out_cstr(sep);
		out_cstr(etl_table_column_name(t, c));
	}
	out_char('\n');
	w->header_done = 1;
}

/* A table without rows: CSV keeps its header (so that a CSV reader takes it), text says so. */
static void no_rows(struct tab_out *w, const struct etl_table *t)
{
	if (w->fmt == FMT_CSV && !w->header_done)
		column_names(w, t, ",");
	else if (w->fmt == FMT_TEXT) {
		column_names(w, t, "  ");
		out_cstr("(no rows)\n");
	}
}

static void csv_row(struct tab_out *w, const struct etl_table *t, size_t row)
{
	size_t c, n = etl_table_column_count(t);
	char buf[64];

	if (!w->header_done)
		column_names(w, t, ",");
	for (c = 0; c < n; c++) {
		if (c)
			out_char(',');
		out_csv_cell(cell_text(t, row, c, buf, sizeof(buf)));
	}
	out_char('\n');
}

static void json_row(const struct etl_table *t, size_t row)
{
	size_t c, n = etl_table_column_count(t);
	char buf[64];

	out_char('{');
	for (c = 0; c < n; c++) {
		enum etl_column_type ty = etl_table_column_type(t, c);
		const char *unit = etl_table_column_unit(t, c);
		if (c)
			out_char(',');
		out_char('"');
		out_cstr(etl_table_column_name(t, c));
		out_cstr("\":");
		if (etl_table_is_null(t, row, c)) {
			out_cstr("null");
		} else if (ty == ETL_COLUMN_TEXT || ty == ETL_COLUMN_TIME ||
			   (ty == ETL_COLUMN_UINT && (strcmp(unit, "address") == 0 || strcmp(unit, "hex") == 0))) {
			out_char('"');
			out_json_str(cell_text(t, row, c, buf, sizeof(buf)));
			out_char('"');
		} else {
			out_cstr(cell_text(t, row, c, buf, sizeof(buf)));
		}
	}
	out_cstr("}\n");
}

static void write_row(void *ctx, const struct etl_table *t)
{
	struct tab_out *w = ctx;
	size_t r, n = etl_table_row_count(t);

	w->rows_out += n;
	for (r = 0; r < n; r++) {
		if (w->fmt == FMT_CSV)
			csv_row(w, t, r);
		else if (w->fmt == FMT_JSONL)
			json_row(t, r);
		else
			text_row(w, t, r);
	}
}

/* The table's notes on stderr. */
static void notes(const struct etl_table *t, const struct options *o)
{
	size_t i, n = etl_table_note_count(t);

	for (i = 0; i < n && !o->quiet; i++) {
		uint64_t count;
		const char *what = etl_table_note(t, i, &count);
		fprintf(stderr, "%s: %s: %llu %s\n", progname, etl_table_name(t), (unsigned long long)count, what);
	}
}

int tabout_read(struct etl_reader *r, const struct options *o, int (*add)(void *ctx, const struct etl_event *ev),
		void *ctx)
{
	const struct etl_event *ev;
	int exit_code = EXIT_OK, show_progress = !o->quiet && isatty(2);
	uint64_t n = 0;

	for (;;) {
		int st = etl_reader_next(r, &ev);
		if (st == ETL_END)
			break;
		if (st != ETL_OK) {
			if (report_damage(r, o, st, &exit_code))
				break;
			continue;
		}
		if (add(ctx, ev) != ETL_OK) {
			exit_code = exit_worse(exit_code, EXIT_NOMEM);
			break;
		}
		if (show_progress && (++n & 4095) == 0)
			report_progress(r, n, 0);
	}
	if (show_progress)
		report_progress(r, n, 1);
	return exit_code;
}

int tabout_add_to_tables(void *ctx, const struct etl_event *ev)
{
	return etl_tables_add(ctx, ev);
}

int tables_run(struct etl_reader *r, const struct options *o)
{
	const char *names[1] = { o->table };
	struct tab_out w;
	struct etl_tables *tabs;
	const struct etl_table *t;
	int exit_code;

	memset(&w, 0, sizeof(w));
	w.fmt = strcmp(o->writer->name, "csv") == 0 ? FMT_CSV : strcmp(o->writer->name, "jsonl") == 0 ? FMT_JSONL
													: FMT_TEXT;
	if (etl_tables_new(r, names, 1, o->table_stacks ? ETL_TABLES_STACKS : 0, write_row, &w, &tabs) != ETL_OK) {
		fprintf(stderr, "%s: %s\n", progname, etl_error_message(etl_reader_error(r)));
		return EXIT_NOMEM;
	}
	if (o->sel.filter)
		etl_tables_set_filter(tabs, o->sel.filter);
	exit_code = tabout_read(r, o, tabout_add_to_tables, tabs);
	etl_tables_finish(tabs);
	t = etl_tables_get(tabs, o->table);
	write_row(&w, t); /* the tables made at the end (a streamed one holds no row now) */
	if (w.fmt == FMT_TEXT && !w.sized && w.cells)
		text_flush(&w, t);
	if (!w.rows_out && t)
		no_rows(&w, t);
	notes(t, o);
	free(w.cells);
	free(w.width);
	etl_tables_free(tabs);
	return exit_code;
}

void tables_list(const struct options *o)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_tables *tabs = NULL;
	size_t i, k, n = etl_table_kind_count();

	/* the columns come from a table: made empty, from a reader with no input */
	if (r && etl_tables_new(r, NULL, 0, ETL_TABLES_STACKS, NULL, NULL, &tabs) != ETL_OK)
		tabs = NULL;
	for (i = 0; i < n; i++) {
		const struct etl_table *t = etl_tables_get(tabs, etl_table_kind_name(i));
		int json = strcmp(o->writer->name, "jsonl") == 0;
		if (json)
			printf("{\"table\":\"%s\",\"description\":\"%s\",\"columns\":[", etl_table_kind_name(i),
			       etl_table_kind_description(i));
		else
			printf("%s: %s\n   ", etl_table_kind_name(i), etl_table_kind_description(i));
		for (k = 0; t && k < etl_table_column_count(t); k++) {
			const char *unit = etl_table_column_unit(t, k);
			static const char *const types[] = { "uint", "int", "double", "text", "time", "bool" };
			if (json)
				printf("%s{\"name\":\"%s\",\"type\":\"%s\",\"unit\":\"%s\"}", k ? "," : "",
				       etl_table_column_name(t, k), types[etl_table_column_type(t, k)], unit);
			else
				printf(" %s%s%s%s", etl_table_column_name(t, k), *unit ? " (" : "", unit, *unit ? ")" : "");
		}
		printf(json ? "]}\n" : "\n");
	}
	etl_tables_free(tabs);
	etl_reader_free(r);
}
