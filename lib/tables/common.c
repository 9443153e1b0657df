/*
 * common.c - what the tables' parts call back: decoding an event, reading its fields, process
 * names and times, a row done (to the row callback), interned texts, one source per table and
 * trace.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"

const struct etl_decoded *etl__tables_decode(struct etl_tables *T, const struct etl_event *ev)
{
	const struct etl_decoded *d;

	if (etl_reader_decode(T->r, ev, &d) != ETL_OK || !d || etl_decoded_status(d) == ETL_DECODE_RAW)
		return NULL;
	return d;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int same_name(const char *a, const char *b)
{
	while (*a && lower((unsigned char)*a) == lower((unsigned char)*b))
		a++, b++;
	return lower((unsigned char)*a) == lower((unsigned char)*b);
}

/* A field by name; the kernel layouts, the merge-time metadata and the manifests do not agree
 * on the case of names ("NewThreadID", "NewThreadId"), so, failing an exact match, in any case. */
static const struct etl_property *field(const struct etl_decoded *d, const char *name)
{
	const struct etl_property *p;
	size_t i, n;

	if (!d)
		return NULL;
	if ((p = etl_decoded_property_by_name(d, name)) != NULL)
		return p;
	n = etl_decoded_property_count(d);
	for (i = 0; i < n; i++)
		if (same_name(etl_property_name(p = etl_decoded_property_at(d, i)), name))
			return p;
	return NULL;
}

uint64_t etl__tables_field_u64(const struct etl_decoded *d, const char *name, int *ok)
{
	const struct etl_property *p = field(d, name);
	uint64_t v = 0;
	int got = p && etl_property_as_u64(p, &v) == ETL_OK;

	if (ok)
		*ok = got;
	return got ? v : 0;
}

const char *etl__tables_field_text(const struct etl_decoded *d, const char *name)
{
	const struct etl_property *p = field(d, name);

	return p ? etl_property_format(p) : NULL;
}

const struct etl_property *etl__tables_derived(const struct etl_decoded *d, const char *name)
{
	size_t i, n = etl_decoded_derived_count(d);

	for (i = 0; i < n; i++) {
		const struct etl_property *p = etl_decoded_derived_at(d, i);
		if (strcmp(etl_property_name(p), name) == 0)
			return p;
	}
	return NULL;
}

const char *etl__tables_process_name(struct etl_tables *T, const struct etl_event *ev, uint32_t pid)
{
	const struct etl_process *p;

	if (pid == ETL_ID_NONE)
		return NULL;
	if (!(p = etl_reader_find_process(T->r, etl_event_trace_index(ev), pid)) || !*etl_process_image_name(p))
		return etl__kproc_process_name(T, etl_event_trace_index(ev), pid); /* Kernel-Process's */
	return etl_process_image_name(p);
}

uint64_t etl__tables_trace_start(struct etl_tables *T, int trace)
{
	const struct etl_trace_info *t = etl_reader_trace_info(T->r, trace);

	return t ? etl_trace_info_start_time(t) : 0;
}

double etl__tables_ms(uint64_t from, uint64_t to)
{
	return to >= from ? (double)(to - from) / 10000.0 : -(double)(from - to) / 10000.0;
}

void etl__tables_row_done(struct etl_tables *T, enum table_kind k)
{
	struct etl_table *t = T->tab[k];

	if (t && T->filter && t->nrows && !etl__tables_selected(T, t)) {
		t->nrows--; /* (its texts stay: kept once each, they may serve other rows) */
		t->seen--;
		return;
	}
	if (!t || !T->row_fn || !t->def->streamed || !t->nrows)
		return;
	T->row_fn(T->ctx, t);
	etl__table_clear_rows(t);
}

size_t etl__tables_keep(struct tables_texts *x, const char *t, size_t max)
{
	size_t n = t ? strlen(t) : 0, at;

	if (!n || x->n > max || etl__grow(&x->b, &x->cap, x->n + n + 1, 1, 4096) != 0)
		return 0;
	at = x->n;
	memcpy(x->b + at, t, n + 1);
	x->n += n + 1;
	return at + 1;
}

int etl__tables_source(struct etl_tables *T, enum table_kind k, const struct etl_event *ev, int src)
{
	static const char note[] = "events left out: another source of the same trace gave these rows first "
				   "(the kernel logger's, or the Kernel-Process, -File or -Disk provider's)";
	int trace = etl_event_trace_index(ev);
	uint8_t *at;

	if (trace < 0 || trace >= 64)
		return 1;
	at = &T->source[k][trace];
	if (!*at)
		*at = (uint8_t)src;
	if (*at == src)
		return 1;
	if (T->tab[k])
		etl__table_note(T->tab[k], note, 1);
	return 0;
}
