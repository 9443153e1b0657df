/*
 * merge.c - delivering events: each input's buffers are grouped into
 * streams, one per CPU (plus one for the header buffer); within a stream
 * buffers are ordered by sequence number, and records never go back in time.
 * A binary heap keyed on each stream's next record time merges the streams
 * of all inputs (format reference 1.5).  In file order, an input is a
 * single stream of its buffers as laid out.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "reader/reader.h"
#include "record/record.h"

static int cmp_cpu_seq(const void *a, const void *b)
{
	const struct etl_bufent *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/* Loads index entry i into s.  On damage, returns < 0 with s->diag set;
 * s->data/fill may still hold what could be recovered (a partly
 * decompressed buffer). */
static int load_buffer(struct etl_reader *r, struct stream *s, size_t i)
{
	const struct etl_bufent *e = &s->t->ix.ent[i];
	int st;

	s->cur = i;
	s->cpu = e->cpu;
	st = etl__bufload(&s->ld, e, &s->diag);
	r->counts[ETL_COUNT_BYTES_READ] += e->avail;
	s->data = s->ld.data;
	s->fill = s->data ? s->ld.fill : 0;
	s->pos = s->data ? ETL_BUFFER_HEADER_SIZE : 0;
	if (e->type != ETL_BUFTYPE_HEADER && (s->ld.flags & ETL_BUF_EVENTS_LOST))
		r->counts[ETL_COUNT_BUFFERS_EVENTS_LOST]++;
	if (s->ld.compressed)
		r->counts[ETL_COUNT_BUFFERS_COMPRESSED]++;
	if (st == ETL_E_UNSUPPORTED) {
		r->counts[ETL_COUNT_BUFFERS_SKIPPED]++;
		r->counts[ETL_COUNT_BYTES_SKIPPED] += e->avail;
	}
	return st;
}

/* Fixes up the location of a diagnostic produced for the loaded buffer. */
static void locate_diag(struct stream *s, struct etl_diag *d)
{
	const struct etl_bufent *e = &s->t->ix.ent[s->cur];

	d->buffer_index = (int64_t)s->t->ix.ent[s->cur].ordinal;
	if (d->offset == ETL_OFFSET_NONE)
		return;
	if (s->ld.compressed) {
		etl__diag_append(d, " (offset 0x%llx in the decompressed buffer)", (unsigned long long)d->offset);
		d->offset = e->off;
	} else {
		d->offset += e->off;
	}
}

/* Looks for the next record boundary after damage at s->pos. */
static void resync_in_buffer(struct etl_reader *r, struct stream *s)
{
	size_t p = (s->pos + 8) & ~(size_t)7;

	for (; p < s->fill; p += 8) {
		struct etl_event tmp;
		struct etl_diag ignored;
		size_t adv;
		int st = etl__record_parse(s->data, s->fill, p, s->t->ptr_size, &tmp, &adv, &ignored);

		if (st == ETL_OK || st == ETL_END)
			break;
	}
	if (p > s->fill)
		p = s->fill;
	r->counts[ETL_COUNT_BYTES_SKIPPED] += p - s->pos;
	s->pos = p;
}

static void finish_event(struct stream *s)
{
	struct etl_event *ev = &s->ev;
	const struct etl_bufent *e = &s->t->ix.ent[s->cur];

	ev->cpu = s->cpu;
	ev->trace_index = s->t->index;
	ev->buffer_index = s->t->ix.ent[s->cur].ordinal;
	ev->buffer_offset = (uint32_t)s->pos;
	ev->file_offset = s->ld.compressed ? e->off : e->off + s->pos;
	if (s->ld.compressed)
		ev->flags |= ETL_EVF_COMPRESSED;
	if (ev->flags & ETL_EVF_TS_INHERITED)
		ev->ts_raw = s->last_ts;
	else
		s->last_ts = ev->ts_raw;
	ev->filetime = etl__clock_filetime(&s->t->clock, ev->ts_raw);
	ev->unix_ns = etl__filetime_to_unix_ns(ev->filetime);
}

/* Whether bytes are only padding: 0xFF (the end marker's fill) or zeros. */
static int only_padding(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0xFF && p[i] != 0)
			return 0;
	return 1;
}

/* Produces the stream's next head: an event, an error, or nothing (end). */
static void stream_advance(struct etl_reader *r, struct stream *s)
{
	for (;;) {
		size_t adv = 0;
		int st;

		if (s->cur == SIZE_MAX || s->pos >= s->fill) {
			if (s->next >= s->end) {
				s->head = HEAD_NONE;
				return;
			}
			st = load_buffer(r, s, s->next++);
			if (st != ETL_OK) {
				s->diag.buffer_index = (int64_t)s->t->ix.ent[s->cur].ordinal;
				s->head = HEAD_ERROR;
				goto keyed;
			}
			continue;
		}
		st = etl__record_parse(s->data, s->fill, s->pos, s->t->ptr_size, &s->ev, &adv, &s->diag);
		if ((st == ETL_END || st == ETL_E_FORMAT) && only_padding(s->data + s->pos, s->fill - s->pos)) {
			s->pos = s->fill; /* the end marker, or the buffer's padding: the records end here */
			continue;
		}
		if (st == ETL_END) { /* an end marker with data after it: nothing may be dropped unsaid */
			size_t rest = s->fill - s->pos;
			if (rest < 4)
				etl__diag_set(&s->diag, st = ETL_E_FORMAT, s->pos,
					      "%zu bytes after the last record are too few for a record", rest);
			else
				etl__diag_set(&s->diag, st = ETL_E_FORMAT, s->pos,
					      "an end-of-buffer marker with %zu bytes of data after it, before the buffer's end",
					      rest - 4);
		}
		if (st == ETL_OK) {
			finish_event(s);
			s->pos += adv;
			s->head = HEAD_EVENT;
			s->key_ft = s->ev.filetime;
			s->key_raw = s->ev.ts_raw;
			return;
		}
		locate_diag(s, &s->diag);
		r->counts[ETL_COUNT_RECORDS_SKIPPED]++;
		if (adv) {
			r->counts[ETL_COUNT_BYTES_SKIPPED] += adv;
			s->pos += adv;
		} else {
			resync_in_buffer(r, s);
		}
		s->head = HEAD_ERROR;
		goto keyed;
	}
keyed:
	/* An error sorts where the stream stood: right after its last event. */
	s->key_raw = s->last_ts;
	s->key_ft = etl__clock_filetime(&s->t->clock, s->last_ts);
}

static int stream_less(const struct etl_reader *r, const struct stream *a, const struct stream *b)
{
	if (r->order == ETL_ORDER_TIME) {
		if (a->key_ft != b->key_ft)
			return a->key_ft < b->key_ft;
		if (a->t == b->t && a->key_raw != b->key_raw)
			return a->key_raw < b->key_raw;
	}
	return a->id < b->id;
}

static void heap_push(struct etl_reader *r, struct stream *s)
{
	size_t i = r->heap_len++;

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!stream_less(r, s, r->heap[p]))
			break;
		r->heap[i] = r->heap[p];
		i = p;
	}
	r->heap[i] = s;
}

/* Restores the heap after its top changed (its stream advanced) or was replaced. */
static void heap_sift_top(struct etl_reader *r)
{
	struct stream *top = r->heap[0];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= r->heap_len)
			break;
		if (c + 1 < r->heap_len && stream_less(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!stream_less(r, r->heap[c], top))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = top;
}

/* Drops the top (a stream that ended). */
static void heap_remove_top(struct etl_reader *r)
{
	r->heap[0] = r->heap[--r->heap_len];
	if (r->heap_len > 0)
		heap_sift_top(r);
}

/* Builds the streams of every input and primes the heap. */
static int start_iteration(struct etl_reader *r)
{
	struct etl_diag d;
	size_t total = 0, k = 0, i;
	int ti;

	for (ti = 0; ti < r->ntraces; ti++) {
		struct trace *t = r->traces[ti];
		size_t n = t->ix.count, runs = n > 0 ? 1 : 0;

		/* Sort entries 1..n by (cpu, seq, offset); each keeps its file ordinal. */
		if (r->order == ETL_ORDER_TIME && n > 1) {
			qsort(t->ix.ent + 1, n - 1, sizeof(*t->ix.ent), cmp_cpu_seq);
			for (i = 2; i < n; i++)
				if (t->ix.ent[i].cpu != t->ix.ent[i - 1].cpu)
					runs++;
			runs++; /* the header buffer's own stream */
			if (runs > r->limits[ETL_LIMIT_STREAMS] + 1) {
				etl__diag_set(&d, ETL_E_LIMIT, ETL_OFFSET_NONE,
					      "%zu per-CPU streams exceed the limit %llu", runs - 1,
					      (unsigned long long)r->limits[ETL_LIMIT_STREAMS]);
				return etl__reader_set_error(r, &d, ti, 1);
			}
		}
		total += runs;
	}
	r->streams = etl__calloc(total ? total : 1, sizeof(*r->streams));
	r->heap = etl__calloc(total ? total : 1, sizeof(*r->heap));
	if (!r->streams || !r->heap)
		goto oom;
	for (ti = 0; ti < r->ntraces; ti++) {
		struct trace *t = r->traces[ti];
		size_t n = t->ix.count, start;

		if (n == 0)
			continue;
		if (r->order == ETL_ORDER_FILE || n == 1) {
			r->streams[k].t = t;
			r->streams[k].next = 0;
			r->streams[k].end = n;
			k++;
			continue;
		}
		r->streams[k].t = t; /* the header buffer */
		r->streams[k].next = 0;
		r->streams[k].end = 1;
		k++;
		for (start = 1; start < n;) {
			size_t end = start + 1;
			while (end < n && t->ix.ent[end].cpu == t->ix.ent[start].cpu)
				end++;
			r->streams[k].t = t;
			r->streams[k].next = start;
			r->streams[k].end = end;
			k++;
			start = end;
		}
	}
	r->nstreams = k;
	for (i = 0; i < k; i++) {
		struct stream *s = &r->streams[i];
		s->id = (uint32_t)i;
		s->cur = SIZE_MAX;
		s->last_ts = s->t->info.start_raw;
		etl__bufload_init(&s->ld, &s->t->src, (s->t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0,
				  s->t->info.compression_format);
		stream_advance(r, s);
		if (s->head != HEAD_NONE)
			heap_push(r, s);
	}
	r->state = ST_ITERATING;
	return ETL_OK;
oom:
	etl__diag_set(&d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return etl__reader_set_error(r, &d, -1, 1);
}

/* The event's call stack: StackWalk records that follow it, and (through the trace's stack
 * index, read in one pass the first time a trace shows stack records) compressed stacks and
 * stacks logged away from it (state/stacks.h). */
static void attach_stacks(struct etl_reader *r, struct stream *s)
{
	struct trace *t = s->t;
	struct etl_event *ev = &s->ev;

	ev->nstack_parts = 0;
	if (!r->options[ETL_OPTION_STACKS])
		return;
	if (!etl__stacks_attach(&t->stacks, ev, s->data, s->fill, s->pos))
		return;
	if (!t->stacks.loaded) {
		struct etl_bufload ld;
		etl__bufload_init(&ld, &t->src, (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0,
				  t->info.compression_format);
		etl__stacks_load(&t->stacks, &ld, &t->ix, t->ptr_size, r->limits[ETL_LIMIT_STACK_KEY_BYTES]);
		etl__bufload_free(&ld);
		r->counts[ETL_COUNT_STACKS_DROPPED] += t->stacks.dropped;
	}
	etl__stacks_resolve(&t->stacks, ev);
}

static int deliver_queued(struct etl_reader *r)
{
	struct etl_diag d;

	if (r->q_head < r->q_len) {
		d = r->queue[r->q_head++];
		r->counts[ETL_COUNT_ERRORS]++;
		return etl__reader_set_error(r, &d, d.trace, 0);
	}
	if (r->q_dropped) {
		etl__diag_set(&d, ETL_E_FORMAT, ETL_OFFSET_NONE,
			      "%llu further buffer-level errors were not listed",
			      (unsigned long long)r->q_dropped);
		r->q_dropped = 0;
		r->counts[ETL_COUNT_ERRORS]++;
		return etl__reader_set_error(r, &d, -1, 0);
	}
	return ETL_OK;
}

/* Takes note of what a delivered (or, before a time window, skipped) event tells about later
 * ones: in-trace metadata, processes, threads and images. */
static void observe(struct etl_reader *r, const struct etl_event *ev)
{
	if (ev->kind == ETL_HEADER_FULL || (ev->kind == ETL_HEADER_EVENT && ev->id == 0xFFFE))
		etl__decode_observe(&r->dec, ev); /* metadata that describes later events */
	if (ev->kind != ETL_HEADER_EVENT)
		etl__state_observe(&r->sys, &r->dec, ev); /* processes, threads, images */
}

/* The heap's next head: advances the stream delivered last first.  NULL at the end. */
static struct stream *next_head(struct etl_reader *r)
{
	struct stream *s = r->pending;

	if (s) {
		/* the stream delivered last is still the heap's top: advance it and sift it down
		 * once (a pop and a push would walk the heap twice) */
		r->pending = NULL;
		stream_advance(r, s);
		if (s->head != HEAD_NONE)
			heap_sift_top(r);
		else
			heap_remove_top(r);
	}
	if (r->heap_len == 0 || r->window_done)
		return NULL;
	s = r->heap[0];
	if (r->windowed && r->win_to && s->key_ft >= r->win_to) {
		r->window_done = 1; /* the streams go on in time: nothing later is in the window */
		return NULL;
	}
	r->pending = s;
	return s;
}

int etl_reader_next(struct etl_reader *r, const struct etl_event **event)
{
	struct stream *s;
	int st;

	if (!r)
		return ETL_E_MISUSE;
	if (!event)
		return etl__reader_misuse(r, "NULL event pointer");
	*event = NULL;
	if (r->state == ST_FATAL)
		return r->err.code;
	if (r->state == ST_NEW) {
		if (r->ntraces == 0)
			return etl__reader_misuse(r, "no input was opened");
		st = start_iteration(r);
		if (st != ETL_OK)
			return st;
	}
	if (!r->windowed || r->win_from == 0) { /* a window from a later time leaves them to the first */
		st = deliver_queued(r);
		if (st != ETL_OK)
			return st;
	}
	while ((s = next_head(r)) != NULL) {
		int before = r->windowed && s->key_ft < r->win_from;
		if (s->head == HEAD_ERROR) {
			int fatal = s->diag.code == ETL_E_NOMEM || s->diag.code == ETL_E_IO;
			if (before && !fatal)
				continue; /* damage before the window: the window that holds it reports it */
			r->counts[ETL_COUNT_ERRORS]++;
			return etl__reader_set_error(r, &s->diag, s->t->index, fatal);
		}
		if (before) {
			r->counts[ETL_COUNT_EVENTS_BEFORE_WINDOW]++;
			observe(r, &s->ev);
			continue;
		}
		r->counts[ETL_COUNT_EVENTS]++;
		attach_stacks(r, s);
		observe(r, &s->ev);
		*event = &s->ev;
		return ETL_OK;
	}
	return ETL_END;
}

int etl_reader_set_time_window(struct etl_reader *r, uint64_t from, uint64_t to)
{
	if (!r)
		return ETL_E_MISUSE;
	if (r->state != ST_NEW)
		return etl__reader_misuse(r, "the time window can only be set before the first event is read");
	if (to && to <= from)
		return etl__reader_misuse(r, "the time window ends before it starts");
	r->windowed = from != 0 || to != 0;
	r->win_from = from;
	r->win_to = to;
	return ETL_OK;
}
