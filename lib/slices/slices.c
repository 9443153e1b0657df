/*
 * slices.c - cutting an input into time slices of about equal bytes, for
 * readers that each read one slice (etl_reader_set_time_window).
 *
 * A buffer's header carries the time it was flushed: the records of a
 * per-CPU buffer are no later than it.  Sorting the buffers by flush time
 * and cutting where the bytes before reach i/n of the whole gives bounds
 * that split the work evenly enough; the windows they make are exact
 * whatever the bounds (each event belongs to the window of its own time).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "slices/slices.h"
#include "util/cursor.h"

static int cmp_flushed(const void *a, const void *b)
{
	const struct etl_flushed *x = a, *y = b;

	return x->ft < y->ft ? -1 : x->ft > y->ft;
}

int etl__slices_flush_time(struct trace *t, const struct etl_bufent *e, struct etl_flushed *out)
{
	uint8_t h[ETL_BUFFER_HEADER_SIZE];
	struct etl_diag d;

	if (e->type == ETL_BUFTYPE_HEADER || e->avail < sizeof(h) || etl__source_read(&t->src, e->off, h, sizeof(h), &d) != ETL_OK)
		return 0;
	out->ft = etl__clock_filetime(&t->clock, etl_le64(h + 0x10));
	out->bytes = e->avail;
	return 1;
}

size_t etl__slices_read_flush_times(struct trace *t, struct etl_flushed *out)
{
	size_t k = 0;
	struct etl_bufiter it;
	struct etl_bufent e;

	etl__walk_iter_init(&it, &t->ix);
	while (etl__walk_iter_next(&it, &e) && k < t->ix.buffers)
		k += (size_t)etl__slices_flush_time(t, &e, &out[k]);
	etl__walk_iter_stop(&it);
	return k;
}

#define FT_SECOND 10000000ull

int etl__slices_flush_times_usable(const struct trace *t, const struct etl_flushed *f, size_t count)
{
	uint64_t lo = t->info.start_time > 10 * FT_SECOND ? t->info.start_time - 10 * FT_SECOND : 0;
	uint64_t hi = t->info.end_time && t->info.end_time >= t->info.start_time ? t->info.end_time + 3600 * FT_SECOND
										 : UINT64_MAX;
	size_t i;

	for (i = 0; i < count; i++)
		if (f[i].ft < lo || f[i].ft > hi)
			return 0;
	return 1;
}

size_t etl__slices_cut(struct etl_flushed *f, size_t count, size_t n, uint64_t *bounds)
{
	uint64_t total = 0, seen = 0;
	size_t i, k = 1;

	bounds[0] = 0;
	qsort(f, count, sizeof(*f), cmp_flushed);
	for (i = 0; i < count; i++)
		total += f[i].bytes;
	for (i = 0; i < count && k < n; i++) {
		seen += f[i].bytes;
		/* cut after the buffer that brings the bytes to k/n of the whole, at a new time */
		if (seen * n >= total * k && i + 1 < count && f[i + 1].ft > f[i].ft && f[i].ft > bounds[k - 1]) {
			bounds[k] = f[i].ft + 1;
			k++;
		}
	}
	bounds[k] = 0;
	return k;
}

size_t etl_reader_time_slices(struct etl_reader *r, int trace, size_t n, uint64_t *bounds)
{
	struct etl_flushed *f;
	size_t k;

	if (!r || trace < 0 || trace >= r->ntraces || n == 0 || !bounds)
		return 0;
	f = etl__calloc((size_t)r->traces[trace]->ix.buffers + 1, sizeof(*f));
	if (!f)
		return 0;
	k = etl__slices_read_flush_times(r->traces[trace], f);
	if (!etl__slices_flush_times_usable(r->traces[trace], f, k)) {
		/* not in the session's clock: the plan cuts by the records' times (reading them) */
		struct etl_slices *p = etl_reader_plan_slices(r, trace, n);
		if (p && p->skip) {
			etl__free(f);
			k = p->k;
			memcpy(bounds, p->bounds, (k + 1) * sizeof(*bounds));
			etl_slices_free(p);
			return k;
		}
		etl_slices_free(p);
	}
	k = etl__slices_cut(f, k, n, bounds);
	etl__free(f);
	return k;
}
