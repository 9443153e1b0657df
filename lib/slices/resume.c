/*
 * resume.c - a reader given a time slice's state (etl_reader_set_slice): the bytes are checked
 * as untrusted input (each field in range, each record one the reader would parse and learn
 * from), and at the opening of their input they stand in for indexing its buffers.  Iterating
 * then starts each CPU's stream where the state says and replays its records (merge.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "slices/slices.h"
#include "util/crc32.h"
#include "record/record.h"
#include "state/facts.h"
#include "util/cursor.h"


static int bad(struct etl_diag *d, size_t at, const char *what)
{
	etl__diag_set(d, ETL_E_FORMAT, at, "time slice state: %s at byte %zu", what, at);
	return ETL_E_FORMAT;
}

/* The header's fields (bytes 0-95). */
static int read_head(struct etl_cursor *c, struct slice_state *s, size_t *ncpus, uint64_t *nrec, struct etl_diag *d)
{
	const uint8_t *magic = cur_take(c, 8);
	uint32_t version = cur_u32(c), flags = cur_u32(c);

	if (!magic || memcmp(magic, SLICE_MAGIC, 8) != 0)
		return bad(d, 0, "not a slice state (no ETLSLICE mark)");
	if (version != SLICE_VERSION)
		return bad(d, 8, "an unknown version");
	if (flags & ~(SLICE_SKIPS | SLICE_STACKS))
		return bad(d, 12, "unknown flags");
	s->skip = (flags & SLICE_SKIPS) != 0;
	s->stacks_seen = (flags & SLICE_STACKS) != 0;
	s->trace = (int)cur_u32(c);
	*ncpus = cur_u32(c);
	s->from = cur_u64(c);
	s->to = cur_u64(c);
	s->file_size = cur_u64(c);
	s->ident = cur_u64(c);
	s->buffers = cur_u64(c);
	s->bytes_skipped = cur_u64(c);
	s->scan_off = cur_u64(c);
	s->scan_ordinal = cur_u64(c);
	*nrec = cur_u64(c);
	if (!cur_ok(c))
		return bad(d, c->len, "the header is cut short");
	if (s->trace < 0 || s->trace >= 65535)
		return bad(d, 16, "an input index out of range");
	if (s->to && s->to <= s->from)
		return bad(d, 32, "the slice ends before it starts");
	if (!s->skip && (*ncpus || *nrec))
		return bad(d, 20, "CPUs or records in a state that skips nothing");
	if (s->skip && (*ncpus == 0 || *ncpus > 65535 || s->buffers > UINT32_MAX || s->scan_off > s->file_size ||
			s->scan_ordinal > s->buffers))
		return bad(d, 20, "CPUs, buffers or where the scan starts out of range");
	if (*ncpus > cur_left(c) / SLICE_CPU || *nrec > cur_left(c) / SLICE_REC)
		return bad(d, 20, "more CPUs or records than the bytes hold");
	return ETL_OK;
}

static int read_cpus(struct etl_cursor *c, struct slice_state *s, struct etl_diag *d)
{
	size_t i;

	for (i = 0; i < s->ncpus; i++) {
		size_t at = c->pos;
		struct slice_cpu *x = &s->cpus[i];
		x->cpu = cur_u32(c);
		cur_skip(c, 4);
		x->resume = cur_u64(c);
		x->last_ts = cur_u64(c);
		x->clean_last = cur_u64(c);
		if (i > 0 && x->cpu <= s->cpus[i - 1].cpu)
			return bad(d, at, "CPUs not in rising order");
		if (x->resume != UINT64_MAX && (x->resume == 0 || x->resume >= s->buffers))
			return bad(d, at + 8, "a CPU's first buffer out of range");
	}
	return ETL_OK;
}

/* One record: its fields, its bytes a record that describes something, and its fact, made of
 * this host where it lies (the state's bytes are the reader's own copy). */
static int read_rec(struct etl_cursor *c, struct slice_state *s, struct slice_rec *x, struct etl_diag *d)
{
	size_t at = c->pos, adv, padded, fpadded;
	const uint8_t *fact;
	struct etl_event ev;
	struct etl_diag why;

	x->len = cur_u32(c);
	x->cpu = cur_u32(c);
	x->buffer_offset = cur_u32(c);
	x->ci = cur_u16(c);
	x->flags = cur_u16(c);
	x->ordinal = cur_u64(c);
	x->file_offset = cur_u64(c);
	x->fact_len = cur_u32(c);
	cur_skip(c, 4);
	if (!cur_ok(c) || x->len < 8 || x->len > cur_left(c) || (padded = slice_pad8(x->len)) > cur_left(c))
		return bad(d, at, "a record cut short");
	x->bytes = cur_take(c, padded);
	if (x->fact_len > cur_left(c) || (fpadded = slice_pad8(x->fact_len)) > cur_left(c))
		return bad(d, at + 32, "a record's fact cut short");
	fact = cur_take(c, fpadded);
	x->fact = NULL;
	if (x->fact_len) {
		if (etl__fact_from_le(fact, x->fact_len, (uint8_t *)fact) != 0)
			return bad(d, at + SLICE_REC + padded, "a record's fact that is not one");
		x->fact = fact;
	}
	if (x->ci >= s->ncpus || s->cpus[x->ci].cpu != x->cpu || (x->flags & ~(unsigned)SLICE_REC_COMPRESSED) ||
	    x->ordinal == 0 || x->ordinal >= s->buffers)
		return bad(d, at, "a record's CPU, buffer or flags out of range");
	if (etl__record_parse(x->bytes, padded, 0, 8, &ev, &adv, &why) != ETL_OK || adv != padded ||
	    (ev.flags & ETL_EVF_TS_INHERITED) || !etl_event_updates_state(&ev))
		return bad(d, at + SLICE_REC, "a record that is not one describing processes, threads, images or metadata");
	return ETL_OK;
}

/* Parses and checks the state; s owns a copy of the bytes. */
static int slice_parse(const void *bytes, size_t len, struct slice_state *s, struct etl_diag *d)
{
	struct etl_cursor c;
	uint64_t nrec;
	size_t ncpus, i;
	int st;

	if (!(s->mem = etl__malloc(len ? len : 1)))
		goto nomem;
	memcpy(s->mem, bytes, len);
	if (len >= SLICE_HEAD + SLICE_SUM && len % 8 == 0 && memcmp(s->mem, SLICE_MAGIC, 8) == 0 &&
	    etl_le32(s->mem + 8) == SLICE_VERSION &&
	    (etl_le32(s->mem + len - SLICE_SUM) != etl__crc32(0, s->mem, len - SLICE_SUM) ||
	     etl_le32(s->mem + len - 4) != 0))
		return bad(d, len - SLICE_SUM, "a checksum that does not match its bytes (the state was changed)");
	if (len >= SLICE_SUM)
		len -= SLICE_SUM; /* (a state too short for its sum fails below, as one cut short) */
	cur_init(&c, s->mem, len);
	if ((st = read_head(&c, s, &ncpus, &nrec, d)) != ETL_OK)
		return st;
	s->ncpus = ncpus;
	s->nrec = (size_t)nrec;
	s->cpus = etl__calloc(ncpus + 1, sizeof(*s->cpus));
	s->recs = etl__calloc(s->nrec + 1, sizeof(*s->recs));
	if (!s->cpus || !s->recs)
		goto nomem;
	if ((st = read_cpus(&c, s, d)) != ETL_OK)
		return st;
	for (i = 0; i < s->nrec; i++)
		if ((st = read_rec(&c, s, &s->recs[i], d)) != ETL_OK)
			return st;
	if (cur_left(&c))
		return bad(d, c.pos, "bytes after the last record");
	return ETL_OK;
nomem:
	etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return ETL_E_NOMEM;
}

/* Gives r state s (ETL_OK), or frees it. */
static int give(struct etl_reader *r, struct slice_state *s)
{
	int st;

	if (s->trace < r->ntraces)
		st = etl__reader_misuse(r, "the slice state's input is open already: give the state first");
	else
		st = etl_reader_set_time_window(r, s->from, s->to);
	if (st != ETL_OK) {
		etl__slice_state_free(s);
		return st;
	}
	r->slice = s; /* (after the window: the window is the state's from now on) */
	return ETL_OK;
}

/* A new state for r into *s: ETL_OK, or the reason (set in r). */
static int state_new(struct etl_reader *r, struct slice_state **s)
{
	if (r->state != ST_NEW || r->slice)
		return etl__reader_misuse(r, "a slice state can only be given once, before the first event is read");
	if (!(*s = etl__calloc(1, sizeof(**s))))
		return etl__reader_nomem(r);
	return ETL_OK;
}

int etl_reader_set_slice(struct etl_reader *r, const void *state, size_t len)
{
	struct slice_state *s;
	struct etl_diag d;
	int st;

	if (!r)
		return ETL_E_MISUSE;
	if (!state)
		return etl__reader_misuse(r, "NULL slice state");
	if ((st = state_new(r, &s)) != ETL_OK)
		return st;
	if ((st = slice_parse(state, len, s, &d)) != ETL_OK) {
		etl__reader_set_error(r, &d, -1, 0);
		etl__slice_state_free(s);
		return st;
	}
	return give(r, s);
}

/* Fills s (zeroed) as slice i of plan p, whose records it borrows where it skips buffers: 0, or
 * -1 without memory. */
static int borrow_plan(const struct etl_slices *p, size_t i, struct slice_state *s)
{
	if (etl__slice_head(p, i, s) != 0)
		return -1;
	s->in_order = etl_slices_in_order(p);
	if (s->skip) {
		s->plan = p; /* (its records: the plan's, of slice i) */
		s->slice = i;
	}
	return 0;
}

int etl_reader_set_slice_planned(struct etl_reader *r, const struct etl_slices *p, size_t i)
{
	struct slice_state *s;
	int st;

	if (!r)
		return ETL_E_MISUSE;
	if (!p || i >= p->k)
		return etl__reader_misuse(r, "no such slice of the plan");
	if ((st = state_new(r, &s)) != ETL_OK)
		return st;
	if (borrow_plan(p, i, s) != 0) {
		etl__slice_state_free(s);
		return etl__reader_nomem(r);
	}
	return give(r, s);
}

/* The first of plan p's records (sorted by time) of a time at or after ft. */
static size_t first_rec_from(const struct etl_slices *p, uint64_t ft)
{
	size_t lo = 0, hi = p->nrec;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->recs[mid].ft < ft)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Why r cannot move on to slice i of p, or NULL: it read a later slice of p (one whose records
 * it borrows, so not the first) to its end, alone, with a window that ends at or before slice
 * i's start, and p is in order (etl_slices_in_order: every stream's records go forward in time,
 * so what r learnt is exactly the records of times before its window's end). */
static const char *cannot_move(const struct etl_reader *r, const struct etl_slices *p, size_t i)
{
	if (!p || i >= p->k)
		return "no such slice of the plan";
	if (!r->slice || r->slice->plan != p || !r->slice->used || r->ntraces != 1)
		return "the reader did not read a slice of this plan, alone, after the first (whose reader indexes the file "
		       "itself)";
	if (r->state != ST_ITERATING || !r->ended)
		return "the reader has not read its slice to its end";
	if (!r->win_to || p->bounds[i] < r->win_to)
		return "the slice starts before the reader's window ended";
	if (r->order != ETL_ORDER_TIME || !etl_slices_in_order(p))
		return "the plan is not in order (etl_slices_in_order)";
	return NULL;
}

int etl_reader_move_to_slice(struct etl_reader *r, const struct etl_slices *p, size_t i)
{
	const char *why;
	struct slice_state *s;
	struct trace *t;

	if (!r)
		return ETL_E_MISUSE;
	if ((why = cannot_move(r, p, i)) != NULL)
		return etl__reader_misuse(r, why);
	/* (a later slice of a plan in order skips buffers: its records are the plan's) */
	if (!(s = etl__calloc(1, sizeof(*s))) || borrow_plan(p, i, s) != 0) {
		etl__slice_state_free(s);
		return etl__reader_nomem(r);
	}
	s->used = 1; /* (its input is open, its buffers given: the plan's, as before) */
	s->rec_from = first_rec_from(p, r->win_to);
	s->replay_to = s->from;
	t = r->traces[0];
	etl__reader_streams_free(r);
	etl__walk_scan_free(&t->fwd);
	t->slice = s;
	t->stacks_seen |= s->stacks_seen;
	etl__slice_state_free(r->slice);
	r->slice = s;
	r->seen_to = s->from; /* (what it learnt, and the records replayed) */
	r->win_from = s->from;
	r->win_to = s->to;
	r->ended = 0;
	r->dec.out_event = NULL;
	r->state = ST_MOVED;
	return ETL_OK;
}


