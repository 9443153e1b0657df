/*
 * store.c - a table's rows and the public accessors (see tables.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"

/* An entry of text_ix: a text's offset in t->text. */
struct text_slot {
	size_t at;
};

struct text_key {
	const struct etl_table *t;
	const char *s;
};

void etl__table_init(struct etl_table *t, const struct tdef *def)
{
	memset(t, 0, sizeof(*t));
	t->def = def;
	etl__htab_init(&t->text_ix, sizeof(struct text_slot));
}

void etl__table_free(struct etl_table *t)
{
	etl__free(t->cells);
	etl__free(t->set);
	etl__free(t->text);
	etl__htab_free(&t->text_ix);
	memset(t, 0, sizeof(*t));
}

void etl__table_note(struct etl_table *t, const char *what, uint64_t n)
{
	unsigned i;

	for (i = 0; i < t->nnotes; i++)
		if (t->notes[i].what == what) {
			t->notes[i].count += n;
			return;
		}
	if (t->nnotes < TABLE_MAX_NOTES)
		t->notes[t->nnotes++] = (struct tnote){ what, n };
}

static const char note_no_memory[] = "rows not kept: out of memory";

size_t etl__table_row(struct etl_table *t)
{
	size_t nc = t->def->ncols;

	if (t->failed) {
		etl__table_note(t, note_no_memory, 1);
		return SIZE_MAX;
	}
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64, cells;
		uint64_t *c;
		uint8_t *b;
		if (!etl__mul_size(cap, nc, &cells) || cells > SIZE_MAX / sizeof(*c) ||
		    !(c = etl__realloc(t->cells, cells * sizeof(*c)))) {
			t->failed = 1;
			etl__table_note(t, note_no_memory, 1);
			return SIZE_MAX;
		}
		t->cells = c;
		if (!(b = etl__realloc(t->set, cells))) {
			t->failed = 1;
			etl__table_note(t, note_no_memory, 1);
			return SIZE_MAX;
		}
		t->set = b;
		t->cap = cap;
	}
	memset(t->set + t->nrows * nc, 0, nc);
	memset(t->cells + t->nrows * nc, 0, nc * sizeof(*t->cells));
	t->seen++;
	return t->nrows++;
}

static int cell(struct etl_table *t, size_t row, unsigned col, uint64_t v)
{
	if (row >= t->nrows || col >= t->def->ncols)
		return -1;
	t->cells[row * t->def->ncols + col] = v;
	t->set[row * t->def->ncols + col] = 1;
	return 0;
}

void etl__table_u64(struct etl_table *t, size_t row, unsigned col, uint64_t v)
{
	(void)cell(t, row, col, v);
}

void etl__table_i64(struct etl_table *t, size_t row, unsigned col, int64_t v)
{
	(void)cell(t, row, col, (uint64_t)v);
}

void etl__table_double(struct etl_table *t, size_t row, unsigned col, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	(void)cell(t, row, col, bits);
}

static int text_eq(const void *entry, const void *key)
{
	const struct text_key *k = key;

	return strcmp(k->t->text + ((const struct text_slot *)entry)->at, k->s) == 0;
}

void etl__table_text(struct etl_table *t, size_t row, unsigned col, const char *s)
{
	struct text_key key = { t, s };
	struct text_slot *e;
	uint64_t h;
	size_t n;

	if (!s || !*s || row >= t->nrows)
		return;
	n = strlen(s);
	h = etl__hash_bytes(s, n);
	if ((e = etl__htab_find(&t->text_ix, h, text_eq, &key)) != NULL) {
		(void)cell(t, row, col, e->at + 1);
		return;
	}
	if (etl__grow(&t->text, &t->text_cap, t->text_len + n + 1, 1, 4096) != 0 ||
	    !(e = etl__htab_insert(&t->text_ix, h))) {
		etl__table_note(t, note_no_memory, 1);
		return;
	}
	memcpy(t->text + t->text_len, s, n + 1);
	e->at = t->text_len;
	t->text_len += n + 1;
	(void)cell(t, row, col, e->at + 1);
}

void etl__table_clear_rows(struct etl_table *t)
{
	t->nrows = 0;
	if (t->text_len > (1u << 20)) { /* the texts of rows given away: start over */
		t->text_len = 0;
		etl__htab_clear(&t->text_ix);
	}
}

/* ---- public ---- */

const char *etl_table_name(const struct etl_table *t)
{
	return t ? t->def->name : NULL;
}

size_t etl_table_row_count(const struct etl_table *t)
{
	return t ? t->nrows : 0;
}

size_t etl_table_column_count(const struct etl_table *t)
{
	return t ? t->def->ncols : 0;
}

const char *etl_table_column_name(const struct etl_table *t, size_t col)
{
	return t && col < t->def->ncols ? t->def->cols[col].name : NULL;
}

enum etl_column_type etl_table_column_type(const struct etl_table *t, size_t col)
{
	return t && col < t->def->ncols ? t->def->cols[col].type : ETL_COLUMN_UINT;
}

const char *etl_table_column_unit(const struct etl_table *t, size_t col)
{
	return t && col < t->def->ncols && t->def->cols[col].unit ? t->def->cols[col].unit : "";
}

size_t etl_table_column_index(const struct etl_table *t, const char *name)
{
	size_t i;

	for (i = 0; t && name && i < t->def->ncols; i++)
		if (strcmp(t->def->cols[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

/* The cell, or NULL when it is out of the table or null. */
static const uint64_t *get(const struct etl_table *t, size_t row, size_t col)
{
	if (!t || row >= t->nrows || col >= t->def->ncols || !t->set[row * t->def->ncols + col])
		return NULL;
	return &t->cells[row * t->def->ncols + col];
}

int etl_table_is_null(const struct etl_table *t, size_t row, size_t col)
{
	return get(t, row, col) == NULL;
}

uint64_t etl_table_u64(const struct etl_table *t, size_t row, size_t col)
{
	const uint64_t *c = get(t, row, col);
	enum etl_column_type ty = etl_table_column_type(t, col);

	return c && ty != ETL_COLUMN_DOUBLE && ty != ETL_COLUMN_TEXT ? *c : 0;
}

int64_t etl_table_i64(const struct etl_table *t, size_t row, size_t col)
{
	return (int64_t)etl_table_u64(t, row, col);
}

double etl_table_double(const struct etl_table *t, size_t row, size_t col)
{
	const uint64_t *c = get(t, row, col);
	double v = 0;

	if (c && etl_table_column_type(t, col) == ETL_COLUMN_DOUBLE)
		memcpy(&v, c, sizeof(v));
	return v;
}

const char *etl_table_text(const struct etl_table *t, size_t row, size_t col)
{
	const uint64_t *c = get(t, row, col);

	return c && etl_table_column_type(t, col) == ETL_COLUMN_TEXT && *c && *c - 1 < t->text_len ? t->text + *c - 1
												       : NULL;
}

size_t etl_table_note_count(const struct etl_table *t)
{
	return t ? t->nnotes : 0;
}

const char *etl_table_note(const struct etl_table *t, size_t i, uint64_t *count)
{
	if (!t || i >= t->nnotes)
		return NULL;
	if (count)
		*count = t->notes[i].count;
	return t->notes[i].what;
}

uint64_t etl_table_rows_seen(const struct etl_table *t)
{
	return t ? t->seen : 0;
}
