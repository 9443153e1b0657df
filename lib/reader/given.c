/*
 * given.c - the reader's side of a time slice's state (reader/given.h; the slices layer makes
 * the state): what identifies a file for it, taking the input's buffers as it says at the
 * opening instead of indexing them, and its records, replayed in the merge.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "reader/given.h"

#define IDENT_ENDS ((size_t)64 << 10) /* bytes hashed at each end of the file */
#define IDENT_SAMPLE 4096u              /* and at each sixteenth of it */

void etl__slice_state_free(struct slice_state *s)
{
	if (!s)
		return;
	etl__free(s->cpus);
	etl__free(s->recs);
	etl__free(s->mem);
	etl__free(s);
}

/* Hashes n bytes of src at off into *h; ETL_OK or the read's status. */
static int ident_part(const struct etl_source *src, uint64_t off, size_t n, uint64_t *h, uint8_t *buf,
		      struct etl_diag *d)
{
	int st;

	if (off >= src->size)
		return ETL_OK;
	if (n > src->size - off)
		n = (size_t)(src->size - off);
	if ((st = etl__source_read(src, off, buf, n, d)) == ETL_OK)
		*h = etl__hash_mix(*h ^ etl__hash_bytes(buf, n) ^ off);
	return st;
}

/* What tells a file from another of the same size and first bytes (a copy damaged or changed
 * after the plan): its ends and a sample of 4 KiB at each sixteenth, about 200 KiB read. */
int etl__slice_ident(const struct etl_source *src, uint64_t *ident, struct etl_diag *d)
{
	uint8_t *buf = etl__malloc(IDENT_ENDS);
	uint64_t h = src->size;
	unsigned k;
	int st;

	if (!buf) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	st = ident_part(src, 0, IDENT_ENDS, &h, buf, d);
	for (k = 1; k < 16 && st == ETL_OK; k++)
		st = ident_part(src, src->size / 16 * k, IDENT_SAMPLE, &h, buf, d);
	if (st == ETL_OK && src->size > IDENT_ENDS)
		st = ident_part(src, src->size - IDENT_ENDS, IDENT_ENDS, &h, buf, d);
	etl__free(buf);
	*ident = h;
	return st;
}

int etl__slice_next(const struct slice_state *s, size_t *next, size_t end, struct slice_rec *x)
{
	const struct etl_slices *p = s->plan;

	if (!p) {
		if (*next >= end)
			return 0;
		*x = s->recs[(*next)++];
		return 1;
	}
	while (*next < end) {
		const struct plan_rec *rc = &p->recs[(*next)++];
		if (p->bufs[rc->buf].j0 > s->slice && rc->ft >= s->replay_to)
			continue; /* (a record of the buffers this slice reads, or later) */
		x->bytes = p->arena + rc->at;
		x->fact = rc->fact_len ? p->arena + rc->fact_at : NULL;
		x->fact_len = rc->fact_len;
		x->len = rc->len;
		x->cpu = rc->cpu;
		x->buffer_offset = rc->buffer_offset;
		x->ci = rc->ci;
		x->ordinal = rc->ordinal;
		x->file_offset = rc->file_offset;
		x->flags = rc->flags;
		return 1;
	}
	return 0;
}

int etl__slice_install(struct etl_reader *r, struct trace *t, const struct etl_bufhdr *h, struct etl_diag *d)
{
	struct slice_state *s = r->slice;
	uint64_t ident;
	uint32_t *cpus;
	size_t i;
	int st;

	if (!s || s->used || t->index != s->trace)
		return 0;
	if ((st = etl__slice_ident(&t->src, &ident, d)) != ETL_OK)
		return st;
	if (ident != s->ident || t->src.size != s->file_size) {
		etl__diag_set(d, ETL_E_MISUSE, ETL_OFFSET_NONE,
			      "the time slice state was made of another file (its size or bytes differ)");
		return ETL_E_MISUSE;
	}
	s->used = 1;
	if (!s->skip)
		return 0; /* (the first slice: indexed as usual, its damage reported) */
	if (s->buffers > r->limits[ETL_LIMIT_BUFFER_COUNT] || s->ncpus > r->limits[ETL_LIMIT_STREAMS]) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "the time slice state's %llu buffers or %zu CPUs exceed the limits",
			      (unsigned long long)s->buffers, s->ncpus);
		return ETL_E_LIMIT;
	}
	if (!(cpus = etl__calloc(s->ncpus, sizeof(*cpus)))) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	for (i = 0; i < s->ncpus; i++)
		cpus[i] = s->cpus[i].cpu;
	st = etl__walk_index_given(&t->ix, &t->src, h, t->info.buffer_size,
				   (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0, r->limits[ETL_LIMIT_BUFFER_SIZE],
				   s->buffers, s->bytes_skipped, cpus, s->ncpus, d);
	if (st != ETL_OK)
		return st;
	t->stacks_seen = s->stacks_seen;
	t->slice = s;
	return 1;
}
