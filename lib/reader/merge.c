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

#include "reader/given.h"
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

/* Fixes up the location of a diagnostic produced for the loaded buffer. */
static void locate_diag(struct stream *s, struct etl_diag *d)
{
	const struct etl_bufent *e = &s->ent;

	d->buffer_index = (int64_t)s->ent.ordinal;
	if (d->offset == ETL_OFFSET_NONE)
		return;
	if (s->ld.compressed) {
		etl__diag_append(d, " (offset 0x%llx in the decompressed buffer)", (unsigned long long)d->offset);
		d->offset = e->off;
	} else {
		d->offset += e->off;
	}
}

/* Sets what the record does not say of itself (its times, when a helper did not convert them). */
static void finish_event(struct stream *s, int timed)
{
	struct etl_event *ev = &s->ev;
	const struct etl_bufent *e = &s->ent;

	ev->cpu = s->cpu;
	ev->trace_index = s->t->index;
	ev->buffer_index = e->ordinal;
	ev->buffer_offset = (uint32_t)s->pos;
	ev->file_offset = s->ld.compressed ? e->off : e->off + s->pos;
	if (s->ld.compressed)
		ev->flags |= ETL_EVF_COMPRESSED;
	if (ev->flags & ETL_EVF_TS_INHERITED) {
		ev->ts_raw = s->last_ts;
		timed = 0;
	} else {
		s->last_ts = ev->ts_raw;
	}
	if (!timed) {
		ev->filetime = etl__clock_filetime(&s->t->clock, ev->ts_raw);
		ev->unix_ns = etl__filetime_to_unix_ns(ev->filetime);
	}
}

/* A record of an uncompressed buffer runs past the buffer's Offset but not past the buffer:
 * Offset is short (it cannot cut a record) - unless a record after it ends where Offset does:
 * then the record's size is the damage (0: said as any record that runs past the filled bytes).
 * A short Offset is said, and the buffer read to its end. */
static int offset_cuts_record(struct stream *s)
{
	struct etl_event tmp;
	struct etl_diag ignored;
	size_t adv, avail = s->ent.avail;

	if (s->ld.compressed || s->fill >= avail ||
	    etl__record_parse(s->data, avail, s->pos, s->t->ptr_size, &tmp, &adv, &ignored) != ETL_OK ||
	    etl__stream_records_end_at_fill(s))
		return 0;
	etl__diag_set(&s->diag, ETL_E_FORMAT, 0x30,
		      "buffer header: Offset %zu cuts the record at buffer offset 0x%zx: records read to the buffer's end",
		      s->fill, s->pos);
	locate_diag(s, &s->diag);
	s->fill = avail;
	s->data_end = etl__walk_padding_start(s->data, s->pos, avail);
	return 1;
}

/* The record delivered last swallowed a whole record (etl__record_swallowed): says so, and goes
 * back to read it (the outer record keeps its size: which of the two is damaged is not known). */
static void say_swallowed(struct etl_reader *r, struct stream *s)
{
	etl__diag_set(&s->diag, ETL_E_FORMAT, s->swallow_from,
		      "record size %u takes in a whole record at buffer offset 0x%zx that ends where it ends "
		      "(a damaged size that swallowed the next record?): both are delivered",
		      (unsigned)s->ev.record_size, s->swallow_at);
	locate_diag(s, &s->diag);
	s->pos = s->swallow_at;
	s->swallow_at = 0;
	s->head = HEAD_ERROR;
}

/* The next record of a time slice's state (resume.c checked that it parses, or the plan kept
 * it): it sorts as the stream it came from would have it. */
static void slice_step(struct stream *s)
{
	struct slice_rec rec, *x = &rec;
	struct etl_event *ev = &s->ev;
	size_t adv;

	if (!etl__slice_next(s->t->slice, &s->next, s->end, x)) {
		s->head = HEAD_NONE;
		return;
	}
	if (etl__record_parse(x->bytes, slice_pad8(x->len), 0, s->t->ptr_size, ev, &adv, &s->diag) != ETL_OK) {
		s->head = HEAD_NONE;
		return;
	}
	ev->cpu = x->cpu;
	ev->trace_index = s->t->index;
	ev->buffer_index = x->ordinal;
	ev->buffer_offset = x->buffer_offset;
	ev->file_offset = x->file_offset;
	if (x->flags & SLICE_REC_COMPRESSED)
		ev->flags |= ETL_EVF_COMPRESSED;
	ev->filetime = etl__clock_filetime(&s->t->clock, ev->ts_raw);
	ev->unix_ns = etl__filetime_to_unix_ns(ev->filetime);
	ev->state_fact = x->fact; /* what it tells the tables, read by the plan: not decoded again */
	ev->state_fact_len = x->fact_len;
	s->id = (uint32_t)(s->t->fwd_streams + x->ci);
	s->head = HEAD_EVENT;
	s->head_pre = NULL;
	s->head_light = NULL;
	s->key_ft = ev->filetime;
	s->key_raw = ev->ts_raw;
}

/* The fact a helper read of the record the stream just parsed, if it read one (prefetch.h). */
static void take_fact(struct stream *s)
{
	const struct etl_prefacts *fx = &s->fx;

	while (s->ifx < fx->n && fx->v[s->ifx].pos < s->pos)
		s->ifx++;
	if (s->ifx < fx->n && fx->v[s->ifx].pos == s->pos) {
		s->ev.state_fact = fx->bytes + fx->v[s->ifx].at;
		s->ev.state_fact_len = fx->v[s->ifx].len;
	}
}

/* What a helper saw of the record the stream just parsed, past those it parsed ahead, if it
 * peeked it (prefetch.h); its time, where it has one of its own, converted there. */
static const struct etl_prelight *take_light(struct stream *s)
{
	const struct etl_prerecs *pre = &s->pre;
	const struct etl_prelight *l;

	while (s->ilt < pre->ln && pre->lv[s->ilt].pos < s->pos)
		s->ilt++;
	if (s->ilt >= pre->ln || pre->lv[s->ilt].pos != s->pos)
		return NULL;
	l = &pre->lv[s->ilt++];
	if (l->flags & PL_TIMED) {
		s->ev.filetime = l->filetime;
		s->ev.unix_ns = etl__filetime_to_unix_ns(l->filetime);
	}
	return l;
}

/* What reading the record passed over at prev, which ends at the stream's position, would have
 * learnt of stacks from the records after it: that the trace shows them, when stack records of
 * its own follow (etl__reader_attach_stacks, before a window, until it is learnt). */
static void pass_stack_follows(struct stream *s, size_t prev)
{
	struct etl_event ev;
	struct etl_diag ignored;
	size_t adv;

	if (etl__record_parse(s->data, s->fill, prev, s->t->ptr_size, &ev, &adv, &ignored) != ETL_OK ||
	    prev + adv != s->pos)
		return;
	if (ev.flags & ETL_EVF_TS_INHERITED)
		ev.ts_raw = s->last_ts; /* (the time it was passed with) */
	(void)etl__stacks_attach(&s->t->stacks_seen, &ev, s->data, s->fill, s->pos);
}

/* Passes over the record at the stream's position when it is one of a time before seen_to - one
 * a reader moved on to a later time slice learnt before, or one of the plan's records replayed
 * (etl_reader_move_to_slice: the plan is in order, so every buffer's records parse, go forward in
 * time and take in none) - reading only its header, but for what it shows of stacks: 1, or 0
 * when it is to be read (and from the first such on, the stream's later ones). */
static int pass_seen(struct etl_reader *r, struct stream *s, uint64_t seen_to)
{
	struct etl_peek pk;
	size_t adv;
	uint64_t ts;

	if (etl__record_peek(s->data, s->fill, s->pos, &pk, &adv) != ETL_OK)
		return 0;
	ts = pk.inherited ? s->last_ts : pk.ts_raw;
	if (etl__clock_filetime(&s->t->clock, ts) >= seen_to) {
		s->past_seen = 1;
		if (s->passed_at && !s->t->stacks_seen && r->options[ETL_OPTION_STACKS])
			pass_stack_follows(s, s->passed_at);
		return 0;
	}
	if (pk.stack && r->options[ETL_OPTION_STACKS])
		s->t->stacks_seen = 1; /* (a stack record, or an event with a stack key) */
	s->passed_at = s->pos;
	s->last_ts = ts;
	s->pos += adv;
	return 1;
}

/* Produces the stream's next head: an event, an error, or nothing (end). */
static void stream_step(struct etl_reader *r, struct stream *s)
{
	if (s->from == FROM_SLICE) {
		slice_step(s);
		return;
	}
	if (s->swallow_at) {
		say_swallowed(r, s);
		goto keyed;
	}
	for (;;) {
		const struct etl_prerec *parsed;
		const struct etl_prelight *lit;
		size_t adv = 0;
		int st;

		if (!s->loaded || s->pos >= s->fill) {
			int got = etl__stream_load_next(r, s, &st);
			if (got == 0) {
				s->head = HEAD_NONE;
				return;
			}
			if (got < 0) {
				s->diag.buffer_index = -1;
				s->head = HEAD_ERROR;
				goto keyed;
			}
			if (st != ETL_OK) {
				s->diag.buffer_index = (int64_t)s->ent.ordinal;
				s->head = HEAD_ERROR;
				goto keyed;
			}
			continue;
		}
		if (r->seen_to && !s->past_seen && pass_seen(r, s, r->seen_to))
			continue;
		lit = NULL;
		if (s->ipre < s->pre.n && s->pre.v[s->ipre].pos == s->pos) {
			parsed = &s->pre.v[s->ipre++]; /* parsed ahead by a helper: the same bytes */
			s->ev = parsed->ev;
			adv = parsed->adv;
			st = ETL_OK;
		} else {
			parsed = NULL;
			s->ipre = s->pre.n; /* past what was parsed ahead (its cap, damage, a record that
					       swallowed this one): parsed here to the buffer's end */
			st = etl__record_parse(s->data, s->fill, s->pos, s->t->ptr_size, &s->ev, &adv, &s->diag);
			if (st == ETL_OK && (lit = take_light(s)) != NULL)
				r->peeked++;
		}
		if (st == ETL_E_TRUNCATED && offset_cuts_record(s)) {
			s->head = HEAD_ERROR; /* said; the record is read next */
			goto keyed;
		}
		if ((st == ETL_END || st == ETL_E_FORMAT) && s->pos >= s->data_end) {
			/* the end marker, or the buffer's padding: the records end here - but not before
			 * the buffer's Offset says, where zero bytes are the end of a record a damaged
			 * size cut short (the logfile header's grown by 64 took in most of the next) */
			if (st == ETL_E_FORMAT && s->fill - s->pos >= 8 && s->fill == s->ld.fill && !s->said_short) {
				s->said_short = 1;
				etl__diag_set(&s->diag, ETL_E_FORMAT, s->pos,
					      "the records end %zu bytes before the buffer's Offset (0x%zx): a record's size "
					      "is damaged, and the records it took in are lost", s->fill - s->pos, s->fill);
				s->pos = s->fill;
				locate_diag(s, &s->diag);
				r->counts[ETL_COUNT_RECORDS_SKIPPED]++;
				s->head = HEAD_ERROR;
				goto keyed;
			}
			s->pos = s->fill;
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
			finish_event(s, parsed != NULL || (lit && (lit->flags & PL_TIMED)));
			take_fact(s);
			if (lit)
				s->swallow_at = 0; /* (a helper peeked it: it takes in no record) */
			else if (parsed && parsed->swallow != PF_SWALLOW_UNKNOWN)
				s->swallow_at = parsed->swallow;
			else
				s->swallow_at = etl__record_swallowed(s->data, s->pos, adv, (size_t)(s->ev.payload - s->data),
								      s->ev.ts_raw, s->t->ptr_size);
			if (s->swallow_at)
				s->swallow_from = s->pos;
			s->pos += adv;
			s->head = HEAD_EVENT;
			s->head_pre = parsed;
			s->head_light = lit;
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
			etl__stream_resync(r, s);
		}
		s->head = HEAD_ERROR;
		goto keyed;
	}
keyed:
	/* An error sorts where the stream stood: right after its last event. */
	s->key_raw = s->last_ts;
	s->key_ft = etl__clock_filetime(&s->t->clock, s->last_ts);
}

/* ---- time windows ----
 * A stream's records go forward in time, but damage can put a record of an earlier time after
 * later ones.  So a window does not let a stream go at its first record at or after the window's
 * end: it reads on past records of later times, through the rest of that buffer and the whole
 * next one, and takes up delivering if it meets a time of its own there (stream_leaves_window).
 * Where a stream leaves (its cut) depends on the stream and the bound alone, so the window that
 * starts at that bound finds the same place (both follow cut_follow).  Records of earlier times past
 * the cut were read by no window before: this one delivers them, out of time order, and says so
 * once per stream.  Windows that tile the time line thus deliver every record exactly once, and
 * one window delivers exactly the records of its times unless damage moved a record further
 * than that read-ahead. */
#define WINDOW_READ_AHEAD 2 /* buffer loads past the first record at or after the bound */

/* The one rule of where a window ending at bound lets stream s go, followed head by head: the
 * window that ends there and the one that starts there both follow it, so they agree. */
static void cut_follow(struct window_cut *c, const struct stream *s, uint64_t bound)
{
	switch (c->state) {
	case CUT_BEFORE:
		if (s->key_ft >= bound) {
			c->state = CUT_LOOKING;
			c->loads = s->loads;
		}
		break;
	case CUT_LOOKING:
		if (s->key_ft < bound)
			c->state = CUT_BEFORE;
		else if (s->loads - c->loads >= WINDOW_READ_AHEAD)
			c->state = CUT_PASSED;
		break;
	case CUT_PASSED:
		break;
	}
}

/* The stream's next head.  A reader moved on to a later time slice learnt every record before
 * seen_to, or replays it from the plan: its buffers' streams pass over those (they go forward in
 * time, so none of them is the new slice's, and the window's cut stays before them). */
static void stream_advance(struct etl_reader *r, struct stream *s)
{
	do
		stream_step(r, s);
	while (s->head == HEAD_EVENT && s->key_ft < r->seen_to && s->from != FROM_SLICE);
	if (s->head != HEAD_NONE && r->win_from && r->order == ETL_ORDER_TIME)
		cut_follow(&s->from_cut, s, r->win_from);
}

/* Whether the stream's head is an error that stops the reader (no memory, an I/O error): it is
 * delivered whatever its time. */
static int head_is_fatal(const struct stream *s)
{
	return s->head == HEAD_ERROR && (s->diag.code == ETL_E_NOMEM || s->diag.code == ETL_E_IO);
}

/* Whether a time slice's plan found the stream's buffer, and the next one of its CPU, in the
 * first run of its buffers whose records read as the reader reads them, in time order. */
static int in_clean_run(const struct etl_reader *r, const struct stream *s)
{
	uint64_t last;

	if (s->from != FROM_QUEUE || s->head != HEAD_EVENT || r->order != ETL_ORDER_TIME)
		return 0;
	if (r->slice && r->slice->in_order && r->slice->trace == s->t->index)
		return 1; /* (the first slice's too, which indexes the file itself) */
	if (!s->t->slice)
		return 0;
	last = s->t->slice->cpus[(size_t)(s - r->streams) - s->t->fwd_streams].clean_last;
	return last == UINT64_MAX || s->ent.ordinal < last;
}

/* Whether stream s, the heap's top with a head at or after the window's end, leaves the window
 * (see above); 0 when it has a head in the window again.  In file order a stream is read to its
 * end: its times need not go forward. */
static int stream_leaves_window(struct etl_reader *r, struct stream *s)
{
	struct window_cut c = { CUT_LOOKING, s->loads }; /* the head: the first at or after the end */

	if (in_clean_run(r, s))
		return 1; /* its records go forward in time through the next buffer: none is this window's */
	for (;;) {
		stream_advance(r, s); /* the head is a later window's */
		if (s->head == HEAD_NONE)
			return 1;
		if (head_is_fatal(s))
			return 0;
		if (r->order != ETL_ORDER_TIME) {
			if (s->key_ft < r->win_to)
				return 0;
			continue;
		}
		cut_follow(&c, s, r->win_to);
		if (c.state != CUT_LOOKING)
			return c.state == CUT_PASSED;
	}
}

/* Says, once per stream, that a window delivers records of times before it (see above). */
static int say_late(struct etl_reader *r, struct stream *s)
{
	struct etl_diag d;

	s->late_said = 1;
	etl__diag_set(&d, ETL_E_FORMAT, s->head == HEAD_EVENT ? s->ev.file_offset : s->ent.off,
		      "CPU %u: records of times before the time window lie past where the window before "
		      "it stops reading (a damaged timestamp or buffer order): delivered here, out of time order",
		      (unsigned)s->cpu);
	d.buffer_index = (int64_t)s->ent.ordinal;
	r->counts[ETL_COUNT_ERRORS]++;
	return etl__reader_set_error(r, &d, s->t->index, 0);
}

static int stream_less(const struct etl_reader *r, const struct stream *a, const struct stream *b)
{
	if (r->order == ETL_ORDER_TIME) {
		if (a->key_ft != b->key_ft)
			return a->key_ft < b->key_ft;
		if (a->t == b->t && a->key_raw != b->key_raw)
			return a->key_raw < b->key_raw;
	}
	if (a->id != b->id)
		return a->id < b->id;
	return a->from == FROM_SLICE && b->from != FROM_SLICE; /* a state's record came first */
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

/* How many streams trace t needs (for time order over an out-of-sequence file, after filling and
 * sorting its index); 0 with d set when that fails or the CPUs are more than the limit allows. */
static size_t plan_streams(struct etl_reader *r, struct trace *t, struct etl_diag *d)
{
	size_t n, runs, i;

	if (r->order == ETL_ORDER_FILE || t->ix.buffers <= 1)
		return t->ix.buffers ? 1 : 0;
	if (t->ix.forward) {
		runs = 1 + t->ix.ncpus; /* the header buffer's stream, and one per CPU */
		runs += t->slice && t->slice->nrec; /* and a time slice's state */
	} else {
		/* out of sequence: every entry, sorted by (cpu, seq, offset); each keeps its file ordinal */
		if (etl__walk_index_fill(&t->ix, r->limits[ETL_LIMIT_BUFFER_COUNT], d) != ETL_OK)
			return 0;
		n = t->ix.count;
		qsort(t->ix.ent + 1, n - 1, sizeof(*t->ix.ent), cmp_cpu_seq);
		for (runs = 2, i = 2; i < n; i++)
			if (t->ix.ent[i].cpu != t->ix.ent[i - 1].cpu)
				runs++;
	}
	if (runs > r->limits[ETL_LIMIT_STREAMS] + 1) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "%zu per-CPU streams exceed the limit %llu", runs - 1,
			      (unsigned long long)r->limits[ETL_LIMIT_STREAMS]);
		return 0;
	}
	return runs;
}

static struct stream *add_stream(struct etl_reader *r, size_t *k, struct trace *t, enum stream_source from,
				 size_t next, size_t end)
{
	struct stream *s = &r->streams[(*k)++];

	s->t = t;
	s->from = from;
	s->next = next;
	s->end = end;
	return s;
}

/* The streams of trace t, from *k on. */
static void make_streams(struct etl_reader *r, struct trace *t, size_t *k)
{
	size_t n = t->ix.count, start, c;

	if (r->order == ETL_ORDER_FILE || t->ix.buffers == 1) {
		etl__walk_scan_again(&t->ix, &t->fwd); /* every buffer as laid out */
		add_stream(r, k, t, FROM_SCAN, 0, 0);
		return;
	}
	add_stream(r, k, t, FROM_INDEX, 0, 1); /* the header buffer: ent[0] in either form */
	if (t->ix.forward) {
		etl__walk_scan_again(&t->ix, &t->fwd);
		t->fwd_streams = *k;
		for (c = 0; c < t->ix.ncpus; c++)
			add_stream(r, k, t, FROM_QUEUE, 0, 0);
		if (t->slice && t->slice->nrec)
			add_stream(r, k, t, FROM_SLICE, t->slice->rec_from, etl__slice_scan_end(t->slice));
		return;
	}
	for (start = 1; start < n;) {
		size_t end = start + 1;
		while (end < n && t->ix.ent[end].cpu == t->ix.ent[start].cpu)
			end++;
		add_stream(r, k, t, FROM_INDEX, start, end);
		start = end;
	}
}

/* Where a time slice's state starts each CPU's stream of t, and its scan. */
static void slice_start(struct etl_reader *r, struct trace *t)
{
	size_t c;

	for (c = 0; c < t->ix.ncpus; c++) {
		struct stream *s = &r->streams[t->fwd_streams + c];
		s->resume = t->slice->cpus[c].resume;
		s->last_ts = t->slice->cpus[c].last_ts;
	}
	etl__walk_scan_seek(&t->fwd, t->slice->scan_off, t->slice->scan_ordinal);
	t->plan_scan = t->slice->scan_at;
}

/* Builds the streams of every input and primes the heap. */
static int start_iteration(struct etl_reader *r)
{
	struct etl_diag d;
	size_t total = 0, k = 0, i, j, jobs;
	uint64_t nbuf = 0;
	int ti;

	for (ti = 0; ti < r->ntraces; ti++) {
		size_t runs = plan_streams(r, r->traces[ti], &d);
		if (runs == 0 && r->traces[ti]->ix.buffers > 0)
			return etl__reader_set_error(r, &d, ti, 1);
		total += runs;
		nbuf += r->traces[ti]->ix.buffers;
	}
	r->streams = etl__calloc(total ? total : 1, sizeof(*r->streams));
	r->heap = etl__calloc(total ? total : 1, sizeof(*r->heap));
	if (!r->streams || !r->heap)
		goto oom;
	for (ti = 0; ti < r->ntraces; ti++)
		if (r->traces[ti]->ix.buffers > 0)
			make_streams(r, r->traces[ti], &k);
	r->nstreams = k;
	/* the memories that may hold a buffer's records: each stream's jobs' and its own (a job's
	 * moves to the stream that reads its buffer, the stream's to the job), but no more than the
	 * buffers (one that never held a buffer's records holds none): the shares then add up to
	 * the PF_*_BYTES bounds */
	jobs = k * (PF_DEPTH + 1) < nbuf ? k * (PF_DEPTH + 1) : (size_t)nbuf;
	if (r->options[ETL_OPTION_THREADS] > 0)
		r->pf = etl__prefetch_new((unsigned)r->options[ETL_OPTION_THREADS]); /* NULL: no helpers */
	for (i = 0; i < k; i++) {
		struct stream *s = &r->streams[i];
		int compressed = (s->t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0;
		s->id = (uint32_t)i;
		s->loaded = 0;
		s->last_ts = s->t->info.start_raw;
		etl__walk_load_init(&s->ld, &s->t->src, compressed, s->t->info.compression_format);
		if (r->pf) {
			s->pf = etl__calloc(PF_DEPTH, sizeof(*s->pf)); /* NULL: this stream loads its own */
			for (j = 0; s->pf && j < PF_DEPTH; j++) {
				etl__walk_load_init(&s->pf[j].ld, &s->t->src, compressed, s->t->info.compression_format);
				s->pf[j].ptr_size = s->t->ptr_size;
				s->pf[j].stacks = r->options[ETL_OPTION_STACKS] != 0;
				s->pf[j].clock = &s->t->clock;
				s->pf[j].parse_max = etl__prefetch_parse_max(jobs);
				s->pf[j].light_max = etl__prefetch_light_max(jobs);
				s->pf[j].fact_max = etl__prefetch_fact_max(jobs);
			}
		}
	}
	for (ti = 0; ti < r->ntraces; ti++) /* (with per-CPU streams: make_streams) */
		if (r->traces[ti]->slice && r->order == ETL_ORDER_TIME && r->traces[ti]->ix.buffers > 1)
			slice_start(r, r->traces[ti]);
	/* the helpers load each stream's first buffer (and parse it) while the streams are primed;
	 * handed over in order: a CPU stream's first buffer may queue the buffers of later streams */
	for (i = 0; r->pf && i < k; i++)
		etl__stream_prefetch(r, &r->streams[i], 1);
	for (i = 0; i < k; i++) {
		struct stream *s = &r->streams[i];
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
	while (r->heap_len > 0) {
		s = r->heap[0];
		if (!r->windowed || !r->win_to || s->key_ft < r->win_to || head_is_fatal(s)) {
			r->pending = s;
			return s;
		}
		if (stream_leaves_window(r, s))
			heap_remove_top(r);
		else
			heap_sift_top(r);
	}
	return NULL;
}

/* At the end no stream loads a buffer again: what the stack index passes kept goes (a pass that
 * has not been made yet, or runs now on another thread, keeps its own until the reader is freed). */
static void drop_kept(struct etl_reader *r)
{
	int i;

	for (i = 0; i < r->ntraces; i++) {
		struct trace *t = r->traces[i];
		if (atomic_load_explicit(&t->stacks_ready, memory_order_acquire) && t->kept.region)
			etl__walk_keep_free(&t->kept);
	}
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
	r->dec.out_event = NULL; /* the last event's decoding, if made as it was delivered, is gone */
	if (r->state == ST_FATAL)
		return r->err.code;
	if (r->state == ST_NEW || r->state == ST_MOVED) {
		if (r->ntraces == 0)
			return etl__reader_misuse(r, "no input was opened");
		if (r->observer)
			return etl__reader_misuse(r, "a reader given events with etl_reader_observe does not iterate");
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
		int early = r->windowed && s->key_ft < r->win_from;
		int before = (early && s->from_cut.state != CUT_PASSED) || s->from == FROM_SLICE;
		if (early && !before && !s->late_said) {
			r->pending = NULL; /* the record stays the head, delivered by the next call */
			return say_late(r, s);
		}
		if (s->head == HEAD_ERROR) {
			int fatal = head_is_fatal(s);
			if (before && !fatal)
				continue; /* damage before the window: the window that holds it reports it */
			r->counts[ETL_COUNT_ERRORS]++;
			return etl__reader_set_error(r, &s->diag, s->t->index, fatal);
		}
		if (before) {
			r->counts[ETL_COUNT_EVENTS_BEFORE_WINDOW]++;
			if (!s->t->stacks_seen && s->from != FROM_SLICE)
				etl__reader_attach_stacks(r, s); /* (for the stack records it shows) */
			etl__reader_observe_event(r, &s->ev, &s->ev);
			continue;
		}
		etl__reader_attach_stacks(r, s);
		etl__reader_observe_event(r, &s->ev, &s->ev);
		if (r->keep && !r->keep(r->keep_ctx, r, &s->ev)) {
			r->counts[ETL_COUNT_EVENTS_FILTERED]++;
			continue;
		}
		r->counts[ETL_COUNT_EVENTS]++;
		*event = &s->ev;
		return ETL_OK;
	}
	drop_kept(r);
	r->ended = 1;
	return ETL_END;
}

int etl_reader_set_time_window(struct etl_reader *r, uint64_t from, uint64_t to)
{
	if (!r)
		return ETL_E_MISUSE;
	if (r->state != ST_NEW && r->state != ST_MOVED)
		return etl__reader_misuse(r, "the time window can only be set before the first event is read");
	if (to && to <= from)
		return etl__reader_misuse(r, "the time window ends before it starts");
	if (r->slice && from != r->slice->from)
		return etl__reader_misuse(r, "a time slice's state sets where the window starts (etl_reader_set_slice): "
					     "only its end can be moved");
	r->windowed = from != 0 || to != 0;
	r->win_from = from;
	r->win_to = to;
	return ETL_OK;
}
