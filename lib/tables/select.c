/*
 * select.c - the rows a filter selects (etl_tables_set_filter): those of the
 * processes its @pid and @process terms name, in its time window.  A row
 * falls in the window as its table's span says (tables.h, docs/TABLES.md):
 * an event's time, a lifetime that meets the window, or an interval cut to it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "tables/tables.h"

int etl_tables_set_filter(struct etl_tables *T, struct etl_filter *f)
{
	if (!T)
		return ETL_E_MISUSE;
	T->filter = f;
	return ETL_OK;
}

/* A cell of the selection's columns (col -1: the table has none), through the store's accessors. */
static int has(const struct etl_table *t, size_t row, int col)
{
	return col >= 0 && !etl_table_is_null(t, row, (size_t)col);
}

static uint64_t at(const struct etl_table *t, size_t row, int col)
{
	return etl_table_u64(t, row, (size_t)col);
}

/* Whether [t0, t1] (t1 UINT64_MAX: open) meets [from, to]; cuts it to the window when clip. */
static int in_window(struct etl_table *t, size_t row, uint64_t from, uint64_t to)
{
	const struct tdef *d = t->def;
	uint64_t t0, t1;
	int clip = d->span == SPAN_CLIPPED;

	if (d->span == SPAN_POINT) {
		if (!has(t, row, d->t0) && !has(t, row, d->t1))
			return 0; /* (no time: in no window) */
		t0 = at(t, row, has(t, row, d->t0) ? d->t0 : d->t1);
		return t0 >= from && t0 <= to;
	}
	t0 = has(t, row, d->t0) ? at(t, row, d->t0) : 0;
	t1 = has(t, row, d->t1) ? at(t, row, d->t1) : UINT64_MAX;
	if (t0 > to || t1 < from)
		return 0;
	if (clip && t0 < from && has(t, row, d->t0))
		etl__table_u64(t, row, (unsigned)d->t0, t0 = from);
	if (clip && t1 != UINT64_MAX && t1 > to && to != UINT64_MAX)
		etl__table_u64(t, row, (unsigned)d->t1, t1 = to + 1); /* (where the window ends) */
	if (clip && d->ms >= 0 && has(t, row, d->ms) && t1 != UINT64_MAX)
		etl__table_double(t, row, (unsigned)d->ms, etl__tables_ms(t0, t1));
	return 1;
}

int etl__tables_selected(struct etl_tables *T, struct etl_table *t)
{
	const struct tdef *d = t->def;
	size_t row = t->nrows - 1;
	uint32_t pid = has(t, row, d->pid) ? (uint32_t)at(t, row, d->pid) : ETL_ID_NONE;
	const char *process = has(t, row, d->process) ? etl_table_text(t, row, (size_t)d->process) : NULL;
	uint64_t from, to;

	if (!etl_filter_process_selected(T->filter, pid, process))
		return 0;
	if (!(etl_filter_parts(T->filter) & ETL_FILTER_TIME))
		return 1;
	if (etl_filter_window(T->filter, T->r, (int)at(t, row, 0), &from, &to) != ETL_OK)
		return 0;
	return in_window(t, row, from, to);
}
