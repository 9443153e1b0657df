/*
 * buffers.c - the buffers of a stream, one after another (merge.c takes
 * their records): from the trace's index, its forward scan (a CPU's buffers
 * queued as the scan meets them), or as laid out; loaded here, or by the
 * helper threads ahead of the stream (prefetch.h), or taken from what the
 * stack index pass kept decompressed - and, after damage, where in its
 * buffer a stream's records go on, or whether they end where its Offset says.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "reader/reader.h"
#include "reader/given.h"

/* Takes note of buffer e, loaded into s->ld with status st. */
static int loaded_buffer(struct etl_reader *r, struct stream *s, const struct etl_bufent *e, int st)
{
	s->ent = *e;
	s->loaded = 1;
	s->passed_at = 0;
	s->unchained_to = 0;
	s->ends_fill = 0;
	s->said_short = 0;
	s->loads++;
	s->cpu = e->cpu;
	r->counts[ETL_COUNT_BYTES_READ] += e->avail;
	s->data = s->ld.data;
	s->fill = s->data ? s->ld.fill : 0;
	s->pos = s->data ? ETL_BUFFER_HEADER_SIZE : 0;
	s->data_end = s->data ? etl__walk_padding_start(s->data, s->pos, s->fill) : 0; /* once a buffer */
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

/* Loads compressed buffer e into ld from what the stack index pass kept of it, when it did
 * (the pass published its keep with stacks_ready; this thread alone takes from it), or from what
 * a slice plan of the input kept (published with planned_ready, then only read). */
static int kept_for(struct etl_reader *r, struct stream *s, const struct etl_bufent *e, struct etl_bufload *ld)
{
	struct trace *t = s->t, *o = t->origin ? t->origin : t;

	if (!(e->flags & ETL_BUF_COMPRESSED))
		return 0;
	if (atomic_load_explicit(&t->stacks_ready, memory_order_acquire) && t->kept.n &&
	    etl__walk_keep_give(&t->kept, ld, e))
		return 1;
	if (atomic_load_explicit(&o->planned_ready, memory_order_acquire) && etl__walk_keep_lend(&o->planned, ld, e)) {
		r->lent++;
		return 1;
	}
	return 0;
}

/* Loads buffer e into s.  On damage, returns < 0 with s->diag set;
 * s->data/fill may still hold what could be recovered (a partly
 * decompressed buffer). */
static int load_buffer(struct etl_reader *r, struct stream *s, const struct etl_bufent *e)
{
	s->pre.n = s->ipre = 0; /* nothing parsed ahead */
	s->pre.ln = s->ilt = 0;
	s->fx.n = s->ifx = 0;
	if (kept_for(r, s, e, &s->ld))
		return loaded_buffer(r, s, e, ETL_OK);
	return loaded_buffer(r, s, e, etl__walk_load(&s->ld, e, &s->diag));
}

/* Takes the oldest buffer handed to the helpers (waiting for it): its loader becomes the
 * stream's. */
static int take_prefetched(struct etl_reader *r, struct stream *s)
{
	struct etl_pfjob *j = &s->pf[s->pf_head];
	struct etl_bufload spare;
	struct etl_prerecs parsed;
	struct etl_prefacts facts;

	etl__prefetch_wait(r->pf, j);
	s->pf_head = (s->pf_head + 1) % PF_DEPTH;
	s->pf_count--;
	spare = s->ld;
	s->ld = j->ld;
	j->ld = spare;
	parsed = s->pre; /* its records, parsed in the loader's memory, which moved with it */
	s->pre = j->pre;
	j->pre = parsed;
	s->ipre = s->ilt = 0;
	facts = s->fx; /* and their facts */
	s->fx = j->fx;
	j->fx = facts;
	s->ifx = 0;
	s->diag = j->diag;
	return loaded_buffer(r, s, &j->ent, j->status);
}

/* The next buffer of the trace's forward scan: 1, or 0 at the end (or on an I/O fault, which
 * the first pass would have met: the rest of the file cannot be read). */
static int scan_one(struct trace *t, struct etl_bufent *e)
{
	struct etl_diag ignored;

	return etl__walk_scan_next(&t->fwd, e, &ignored) == ETL_OK;
}

static int queue_push(struct stream *s, const struct etl_bufent *e)
{
	if (s->q_head + s->q_len == s->q_cap) {
		if (s->q_head > 0) {
			memmove(s->q, s->q + s->q_head, s->q_len * sizeof(*s->q));
			s->q_head = 0;
		} else if (etl__grow(&s->q, &s->q_cap, s->q_len + 1, sizeof(*s->q), 4) != 0) {
			return -1;
		}
	}
	s->q[s->q_head + s->q_len++] = *e;
	return 0;
}

/* The stream of CPU cpu of a forward-scanned trace, or NULL. */
static struct stream *cpu_stream(struct etl_reader *r, const struct trace *t, uint32_t cpu)
{
	long ci = etl__walk_cpu_index(&t->ix, cpu);

	return ci < 0 ? NULL : &r->streams[t->fwd_streams + (size_t)ci];
}

/* The next buffer of a time slice's streams: from where the slice's scan starts, those the
 * plan's scan found when the reader borrows a plan (the same file: the same buffers, their
 * headers not read again - a slice's scan goes on until every CPU has a buffer past its end,
 * which on a relogged trace can be near the end of the file), else the trace's own scan. */
static int queue_scan(struct trace *t, struct etl_bufent *e)
{
	const struct etl_slices *p = t->slice ? t->slice->plan : NULL;

	if (!p)
		return scan_one(t, e);
	if (t->plan_scan >= p->nbufs)
		return 0;
	*e = p->bufs[t->plan_scan++].ent;
	return 1;
}

/* A buffer of a CPU the first pass did not see: the file changed since (it is being written?).
 * Said, and skipped. */
static void changed_file(struct etl_reader *r, const struct trace *t, const struct etl_bufent *x)
{
	struct etl_diag d;
	size_t before = r->q_len;

	etl__diag_set(&d, ETL_E_FORMAT, x->off,
		      "buffer of CPU %u was not in the file when it was opened (the file changed): skipped",
		      (unsigned)x->cpu);
	d.buffer_index = (int64_t)x->ordinal;
	etl__reader_queue_diag(r, &d);
	if (r->q_len > before)
		r->queue[before].trace = t->index;
	r->counts[ETL_COUNT_BYTES_SKIPPED] += x->avail;
	r->counts[ETL_COUNT_BUFFERS_SKIPPED]++;
}

/* The stream's next buffer: 1 with *e, 0 at its end, -1 out of memory (s->diag set). */
static int next_entry(struct etl_reader *r, struct stream *s, struct etl_bufent *e)
{
	struct trace *t = s->t;

	switch (s->from) {
	case FROM_INDEX:
		if (s->next >= s->end)
			return 0;
		*e = t->ix.ent[s->next++];
		return 1;
	case FROM_SCAN:
		return scan_one(t, e);
	case FROM_QUEUE:
		if (s->resume == UINT64_MAX)
			return 0; /* a time slice's state tells what all its buffers held */
		while (s->q_len == 0) {
			struct etl_bufent x;
			struct stream *o;
			if (!queue_scan(t, &x))
				return 0;
			if (x.ordinal == 0)
				continue; /* the header buffer's stream has it */
			if (!(o = cpu_stream(r, t, x.cpu))) {
				changed_file(r, t, &x);
				continue;
			}
			if (x.ordinal < o->resume)
				continue; /* before its time slice: the slice's state tells what it held */
			if (queue_push(o, &x) != 0) {
				etl__diag_set(&s->diag, ETL_E_NOMEM, x.off, "out of memory for the buffer queue");
				return -1;
			}
		}
		*e = s->q[s->q_head++];
		if (--s->q_len == 0)
			s->q_head = 0;
		return 1;
	case FROM_SLICE:
		break;
	}
	return 0;
}

/* The stream's next buffer (see next_entry), or the failure met taking it for the helpers. */
static int take_entry(struct etl_reader *r, struct stream *s, struct etl_bufent *e)
{
	if (s->take_failed) {
		s->take_failed = 0;
		etl__diag_set(&s->diag, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory for the buffer queue");
		return -1;
	}
	return next_entry(r, s, e);
}

/* With helpers: hands the stream's next buffers to them, up to depth (at most PF_DEPTH): they
 * load (decompress) each and parse its records ahead (etl__prefetch_parse), the work worth moving
 * off this thread. */
void etl__stream_prefetch(struct etl_reader *r, struct stream *s, unsigned depth)
{
	while (s->pf && s->pf_count < depth && s->pf_count < PF_DEPTH && !s->take_failed) {
		struct etl_bufent e;
		struct etl_pfjob *j;
		int got = next_entry(r, s, &e);
		if (got == 0)
			return;
		if (got < 0) {
			s->take_failed = 1;
			return;
		}
		j = &s->pf[(s->pf_head + s->pf_count++) % PF_DEPTH];
		j->ent = e;
		j->loaded = kept_for(r, s, &e, &j->ld); /* decompressed already: the helper only parses */
		if (j->loaded) {
			j->status = ETL_OK;
			j->diag.code = ETL_OK;
		}
		etl__prefetch_submit(r->pf, j);
	}
}

int etl__stream_load_next(struct etl_reader *r, struct stream *s, int *status)
{
	struct etl_bufent e;
	int got;

	if (s->pf_count) {
		*status = take_prefetched(r, s);
	} else {
		got = take_entry(r, s, &e);
		if (got <= 0)
			return got;
		r->loaded_here += s->pf != NULL;
		*status = load_buffer(r, s, &e);
	}
	etl__stream_prefetch(r, s, PF_DEPTH);
	return 1;
}

/* What is at p of s's buffer: AT_RECORD (*adv its size), AT_END (the buffer's end, or an end
 * marker in its padding: where a search stops), AT_BOUND (an end marker with data after it, or
 * other bytes of the padding: where a record may end), or AT_NONE. */
enum { AT_NONE, AT_RECORD, AT_END, AT_BOUND };
static int record_at(const struct stream *s, size_t p, size_t *adv)
{
	struct etl_event tmp;
	struct etl_diag ignored;
	int st;

	if (p >= s->fill)
		return AT_END;
	st = etl__record_parse(s->data, s->fill, p, s->t->ptr_size, &tmp, adv, &ignored);
	if (st == ETL_OK && *adv > 0)
		return AT_RECORD;
	if (st == ETL_END && p >= s->data_end)
		return AT_END;
	return st == ETL_END || p >= s->data_end ? AT_BOUND : AT_NONE;
}

/* Looks for the next record boundary after damage at s->pos: eight bytes at a time, the first
 * record that another record, an end marker or the buffer's end follows.  Damaged bytes often
 * parse as a record, whose size then takes in the real ones after it (taking the first bytes
 * that parsed once delivered such a record and lost the seven after it); where no record is
 * followed so, the first that parses - and the buffer's later resynchronisations take the
 * first at once, so that a buffer is looked through about twice at most.  The padding that
 * ends the buffer ends the search (not an end marker or padding with data after it: one
 * report for all of it). */
void etl__stream_resync(struct etl_reader *r, struct stream *s)
{
	size_t p = (s->pos + 8) & ~(size_t)7, first = SIZE_MAX, adv, next;
	int at = AT_NONE;

	for (; p < s->fill; p += 8) {
		if ((at = record_at(s, p, &adv)) == AT_END)
			break;
		if (at != AT_RECORD)
			continue;
		if (p < s->unchained_to)
			break; /* (looked at before: none is followed) */
		if (first == SIZE_MAX)
			first = p;
		/* followed by a record, the buffer's end, or its padding - not by an end marker with
		 * records after it: a ThreadId of 0xFFFFFFFF 8 bytes into a record reads as one */
		if ((at = record_at(s, p + adv, &next)) == AT_RECORD || at == AT_END ||
		    (at == AT_BOUND && p + adv >= s->data_end))
			break;
		at = AT_NONE;
	}
	if (first != SIZE_MAX && (p >= s->fill || at == AT_END)) { /* none followed: the first */
		s->unchained_to = p < s->fill ? p : s->fill;
		p = first;
	}
	if (p > s->fill)
		p = s->fill;
	r->counts[ETL_COUNT_BYTES_SKIPPED] += p - s->pos;
	s->pos = p;
}

int etl__stream_records_end_at_fill(struct stream *s)
{
	size_t start = (s->pos + 8) & ~(size_t)7, p, adv;

	if (s->ends_fill) /* looked before, from an earlier position */
		return s->ends_fill != SIZE_MAX && s->ends_fill >= start;
	s->ends_fill = SIZE_MAX;
	if (s->data_end <= start)
		return 0;
	for (p = (s->data_end - 1) & ~(size_t)7; p >= start; p -= 8) {
		if (record_at(s, p, &adv) == AT_RECORD && p + adv >= s->data_end) {
			s->ends_fill = p;
			return 1;
		}
		if (p == start)
			break;
	}
	return 0;
}
