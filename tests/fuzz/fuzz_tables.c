/*
 * fuzz_tables - the analysis tables over a memory buffer: every table built
 * from one reading (the stack column too, on half the inputs), every cell of
 * every kept row read as its type, every note; then the same tables streamed
 * through a row callback, which must see as many rows as the kept build holds
 * and the same notes.  The reader is freed as soon as the tables are built.
 * Then the HTML report of the input: written whole, no NaN in it, within
 * its documented size.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <etl.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void read_row(const struct etl_table *t, size_t row)
{
	size_t c;

	for (c = 0; c < etl_table_column_count(t); c++) {
		const char *s;
		if (etl_table_is_null(t, row, c))
			continue;
		switch (etl_table_column_type(t, c)) {
		case ETL_COLUMN_TEXT:
			if (!(s = etl_table_text(t, row, c)))
				__builtin_trap(); /* a text that is not null has its text */
			sink += strlen(s);
			break;
		case ETL_COLUMN_DOUBLE:
			sink += (uint64_t)(etl_table_double(t, row, c) != 0);
			break;
		default:
			sink += etl_table_u64(t, row, c);
			break;
		}
	}
}

static void on_row(void *ctx, const struct etl_table *t)
{
	(void)ctx;
	if (etl_table_row_count(t) != 1)
		__builtin_trap();
	read_row(t, 0);
}

static struct etl_tables *build(const uint8_t *data, size_t size, unsigned flags, etl_table_row_fn fn)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_tables *t = NULL;

	if (!r)
		return NULL;
	(void)etl_reader_set_limit(r, ETL_LIMIT_BUFFER_SIZE, 1u << 20);
	if (etl_reader_open_memory(r, data, size, "fuzz") != ETL_OK ||
	    etl_tables_build(r, NULL, 0, flags, fn, NULL, &t) != ETL_OK)
		t = NULL;
	etl_reader_free(r); /* built tables own their rows: they outlive the reader */
	return t;
}

struct page {
	size_t bytes;
	char tail[8];
};

static int to_page(void *ctx, const void *data, size_t size)
{
	struct page *p = ctx;
	const char *s = data;
	size_t i;

	for (i = 0; i + 3 <= size; i++)
		if (s[i] == 'N' && s[i + 1] == 'a' && s[i + 2] == 'N')
			__builtin_trap();
	p->bytes += size;
	if (size >= 8) {
		memcpy(p->tail, s + size - 8, 8);
	} else { /* (a last block shorter than the tail) */
		memmove(p->tail, p->tail + size, 8 - size);
		memcpy(p->tail + 8 - size, s, size);
	}
	return 0;
}

static void report(const uint8_t *data, size_t size)
{
	struct etl_reader *r = etl_reader_new();
	struct page p = { 0, { 0 } };
	int st;

	if (!r)
		return;
	(void)etl_reader_set_limit(r, ETL_LIMIT_BUFFER_SIZE, 1u << 20);
	if (etl_reader_open_memory(r, data, size, "fuzz") == ETL_OK) {
		st = etl_report_html(r, 0, to_page, &p);
		if (st == ETL_OK && (p.bytes > (8u << 20) || memcmp(p.tail, "</html>\n", 8) != 0))
			__builtin_trap();
	}
	etl_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned flags = size && (data[size - 1] & 1) ? ETL_TABLES_STACKS : 0;
	struct etl_tables *kept = build(data, size, flags, NULL), *streamed;
	size_t k, i, j;

	report(data, size);
	if (!kept)
		return 0;
	streamed = build(data, size, flags, on_row);
	for (k = 0; k < etl_table_kind_count(); k++) {
		const struct etl_table *t = etl_tables_get(kept, etl_table_kind_name(k)), *s;
		for (i = 0; i < etl_table_row_count(t); i++)
			read_row(t, i);
		for (i = 0; i < etl_table_note_count(t); i++) {
			uint64_t n = 0;
			if (!etl_table_note(t, i, &n) || n == 0)
				__builtin_trap();
		}
		if (etl_table_rows_seen(t) != etl_table_row_count(t))
			__builtin_trap();
		if (!streamed || !(s = etl_tables_get(streamed, etl_table_kind_name(k))))
			continue;
		/* streaming changes where the rows go, not which rows or notes there are */
		if (etl_table_rows_seen(s) != etl_table_row_count(t) || etl_table_note_count(s) != etl_table_note_count(t))
			__builtin_trap();
		for (j = 0; j < etl_table_note_count(t); j++) {
			uint64_t a = 0, b = 0;
			if (strcmp(etl_table_note(t, j, &a), etl_table_note(s, j, &b)) != 0 || a != b)
				__builtin_trap();
		}
	}
	etl_tables_free(streamed);
	etl_tables_free(kept);
	return 0;
}
