/*
 * plan.c - planning time slices that start where they start (etl_reader_plan_slices).
 *
 * A reader with a time window reads every record before the window for what it tells
 * (processes, threads, images, in-trace metadata), so k slices read about k/2 traces.  The
 * plan reads the trace once, lightly - each record's size and time, and the few records that
 * describe something in full - and gives each slice what reading its past would have left: the
 * records that describe something (in the merge's order), and where each CPU's stream takes up
 * (the first buffer holding a record at or after the slice's start, with the stream's last time
 * before it).  A buffer is only skipped when reading it would give exactly what the plan read:
 * records that parse, in time order, none taken in by another's size (etl__record_swallowed);
 * from a buffer that is not so on, its CPU is read as the reader reads it (resume.c, merge.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/prefetch.h"
#include "reader/reader.h"
#include "slices/slices.h"
#include "record/record.h"
#include "util/cursor.h"

#define PLAN_STATE_BYTES ((size_t)64 << 20) /* the records that describe something, at most */

/* Keeps the record at pos of loaded buffer e (summary b) when it describes something: 0, or 1
 * when it cannot (the plan's room is spent: the buffer is then read by the slices). */
static int plan_keep(struct etl_slices *p, struct trace *t, const struct etl_bufload *ld, const struct etl_bufent *e,
		     const struct plan_buf *b, size_t pos)
{
	struct etl_event ev;
	struct etl_diag d;
	struct plan_rec *rec;
	size_t adv, len, flen = 0;

	if (etl__record_parse(ld->data, ld->fill, pos, t->ptr_size, &ev, &adv, &d) != ETL_OK)
		return 1; /* (the light reading found it parses) */
	ev.trace_index = t->index;
	if (!etl__decode_observes(&ev) && !etl__state_changes(&p->sys, &p->dec, &ev, &flen))
		return 0; /* (a kernel record without a layout, or damaged, changes nothing) */
	len = ev.record_size;
	if (p->arena_len + slice_pad8(len) + slice_pad8(flen) > PLAN_STATE_BYTES)
		return 1;
	if (etl__grow(&p->recs, &p->rec_cap, p->nrec + 1, sizeof(*p->recs), 256) != 0 ||
	    etl__grow(&p->arena, &p->arena_cap, p->arena_len + slice_pad8(len) + slice_pad8(flen), 1, 65536) != 0) {
		p->nomem = 1;
		return 1;
	}
	rec = &p->recs[p->nrec];
	rec->ts = ev.ts_raw;
	rec->ft = etl__clock_filetime(&t->clock, ev.ts_raw);
	rec->ordinal = e->ordinal;
	rec->file_offset = ld->compressed ? e->off : e->off + pos;
	rec->at = p->arena_len;
	rec->len = (uint32_t)len;
	rec->cpu = e->cpu;
	rec->buffer_offset = (uint32_t)pos;
	rec->ci = b->ci;
	rec->buf = (uint32_t)p->nbufs;
	rec->seq = (uint32_t)p->nrec;
	rec->flags = ld->compressed ? SLICE_REC_COMPRESSED : 0;
	/* (each padded with zeros to 8, as a state holds them: a reader may take them from here) */
	memcpy(p->arena + p->arena_len, ld->data + pos, len);
	memset(p->arena + p->arena_len + len, 0, slice_pad8(len) - len);
	p->arena_len += slice_pad8(len);
	/* and what it tells the tables, read once here: the slices take it instead of decoding it */
	rec->fact_at = p->arena_len;
	rec->fact_len = (uint32_t)flen;
	if (flen)
		memcpy(p->arena + p->arena_len, p->sys.fact, flen);
	memset(p->arena + p->arena_len + flen, 0, slice_pad8(flen) - flen);
	p->arena_len += slice_pad8(flen);
	p->nrec++;
	return 0;
}

/* What a buffer's light reading asks of each record that may describe something. */
struct plan_at {
	struct etl_slices *p;
	struct trace *t;
	const struct etl_bufload *ld;
	const struct etl_bufent *e;
	const struct plan_buf *b;
};

static int plan_record(void *ctx, const uint8_t *buf, size_t pos, const struct etl_peek *pk)
{
	struct plan_at *a = ctx;

	return etl__plan_describes(&a->p->classes, buf, pos, pk) && plan_keep(a->p, a->t, a->ld, a->e, a->b, pos) != 0;
}

/* A buffer read lightly by a helper (plan_prewalk), from a time of 0 - what the planning thread's
 * reading of it gives but for its first record's time against the stream's last, and for the
 * describing records it keeps: each such record (cand) with the time and stack flag before it. */
struct plan_pre {
	struct plan_classes *classes; /* the reading thread's (kept from buffer to buffer) */
	struct etl_light lt;
	int usable;        /* read clean, its first record with a time of its own (or none) */
	struct plan_cand {
		size_t pos;
		uint64_t last;
		int stack;
	} *c;
	size_t n, cap;
};

static int pre_record(void *ctx, const uint8_t *buf, size_t pos, const struct etl_peek *pk)
{
	struct plan_pre *x = ctx;

	if (!etl__plan_describes(x->classes, buf, pos, pk))
		return 0;
	if (x->n == x->cap && etl__grow(&x->c, &x->cap, x->n + 1, sizeof(*x->c), 64) != 0)
		return 1; /* (not usable: the planning thread reads it) */
	x->c[x->n].pos = pos;
	x->c[x->n].last = x->lt.last;
	x->c[x->n++].stack = x->lt.stack;
	return 0;
}

/* A helper's light reading of the buffer its job loaded (etl_pfjob.then), into ctx's plan_pre. */
static void plan_prewalk(struct etl_pfjob *j, void *ctx, struct plan_classes *classes)
{
	struct plan_pre *x = ctx;
	const struct etl_bufload *ld = &j->ld;

	x->usable = 0;
	x->n = 0;
	if (j->status != ETL_OK || !ld->data || !classes)
		return;
	x->classes = classes;
	memset(&x->lt, 0, sizeof(x->lt));
	x->lt.each = pre_record;
	x->lt.ctx = x;
	x->usable = etl__record_walk_light(ld->data, ld->fill,
					   etl__walk_padding_start(ld->data, ETL_BUFFER_HEADER_SIZE, ld->fill), j->ptr_size,
					   &x->lt) == ETL_OK &&
		    !x->lt.lead_inherited;
}

/* plan_buffer from a helper's reading x (usable): the walk's checks of the first record against
 * *last, the describing records kept in order, stopping where one cannot be. */
static void plan_buffer_pre(struct etl_slices *p, struct trace *t, struct etl_bufload *ld, const struct etl_bufent *e,
			    struct plan_buf *b, uint64_t *last, const struct plan_pre *x)
{
	struct plan_at at = { p, t, ld, e, b };
	size_t i;

	b->clean = 0;
	b->stack = 0;
	if (x->lt.any && x->lt.first_ts < *last)
		return; /* (the walk stops at its first record: nothing kept, the time stays) */
	for (i = 0; i < x->n; i++)
		if (plan_keep(at.p, at.t, at.ld, at.e, at.b, x->c[i].pos) != 0) {
			if (x->c[i].pos != ETL_BUFFER_HEADER_SIZE)
				*last = x->c[i].last;
			b->stack = (uint8_t)x->c[i].stack;
			return;
		}
	b->clean = 1;
	b->stack = (uint8_t)x->lt.stack;
	b->nrec = (uint32_t)x->lt.records;
	if (x->lt.any)
		*last = x->lt.last;
}

/* Reads the buffer e the way a stream would, lightly, once loaded into ld (status: how loading
 * went) - or takes a helper's reading of it (x, NULL: none); its summary in b, its describing
 * records into p.  *last is the stream's last time, carried from buffer to buffer. */
static void plan_buffer(struct etl_slices *p, struct trace *t, struct etl_bufload *ld, int status,
			const struct etl_bufent *e, struct plan_buf *b, uint64_t *last, const struct plan_pre *x)
{
	struct plan_at at = { p, t, ld, e, b };
	struct etl_light lt;

	b->clean = 0;
	if (status != ETL_OK || !ld->data)
		return;
	if (x && x->usable) {
		plan_buffer_pre(p, t, ld, e, b, last, x);
		return;
	}
	memset(&lt, 0, sizeof(lt));
	lt.last = *last;
	lt.each = plan_record;
	lt.ctx = &at;
	b->clean = etl__record_walk_light(ld->data, ld->fill,
					  etl__walk_padding_start(ld->data, ETL_BUFFER_HEADER_SIZE, ld->fill), t->ptr_size,
					  &lt) == ETL_OK;
	b->stack = (uint8_t)lt.stack;
	b->nrec = (uint32_t)lt.records;
	*last = lt.last;
}

/* The reading of every data buffer (plan_read): the flush times for the bounds (f), each
 * buffer's records' last time (g: where the flush times are not in the session's clock), and
 * each CPU stream's last time so far. */
struct plan_reading {
	struct etl_flushed *f, *g;
	size_t nf, ng;
	uint64_t *last;
	struct etl_stacks *stacks; /* the trace's stack index, made in the same pass (NULL: not) */
	uint64_t stack_bytes;      /* its limit */
	int stacks_short;          /* a buffer's part did not fit: made again by the reader's pass */
	struct etl_bufkeep *keep;  /* where the decompressed buffers are kept (NULL: not) */
};

/* Takes data buffer e of CPU index ci, loaded into ld (status); part: its part of the stack
 * index, loaded by a helper (NULL: load it here); x: a helper's light reading of it (NULL:
 * none). */
static void plan_take(struct etl_slices *p, struct trace *t, struct plan_reading *pr, const struct etl_bufent *e,
		      uint32_t ci, struct etl_bufload *ld, int status, struct etl_stacks *part, const struct plan_pre *x)
{
	struct plan_buf *b = &p->bufs[p->nbufs];

	memset(b, 0, sizeof(*b));
	b->ent = *e;
	b->ci = ci;
	plan_buffer(p, t, ld, status, e, b, &pr->last[ci], x);
	b->last_ts = pr->last[ci];
	if (pr->keep && status == ETL_OK)
		(void)etl__walk_keep_take(pr->keep, ld, e); /* (when it fits) */
	if (pr->stacks && part) {
		if (!pr->stacks_short && etl__stacks_append(pr->stacks, part, pr->stack_bytes) != 0)
			pr->stacks_short = 1;
		etl__stacks_free(part);
	} else if (pr->stacks && ld->data) { /* (as the stack index pass takes what loading gave) */
		etl__stacks_load_buffer(pr->stacks, ld->data, ld->fill, t->ptr_size, pr->stack_bytes);
	}
	if (ld->data && e->avail >= ETL_BUFFER_HEADER_SIZE) { /* as etl_reader_time_slices reads them */
		pr->f[pr->nf].ft = etl__clock_filetime(&t->clock, etl_le64(ld->data + 0x10));
		pr->f[pr->nf++].bytes = e->avail;
		pr->g[pr->ng].ft = etl__clock_filetime(&t->clock, pr->last[ci]);
		pr->g[pr->ng++].bytes = e->avail;
	} else if (etl__slices_flush_time(t, e, &pr->f[pr->nf])) {
		pr->nf++;
	}
	p->nbufs++;
}

/* The next data buffer of the scan (the header buffer: every slice reads it) and its CPU's
 * index: 1, or 0 at the end. */
static int plan_next(struct etl_slices *p, struct trace *t, struct etl_bufiter *it, struct etl_bufent *e, uint32_t *ci)
{
	while (p->nbufs < t->ix.buffers && etl__walk_iter_next(it, e)) {
		long k = e->type == ETL_BUFTYPE_HEADER ? -1 : etl__walk_cpu_index(&t->ix, e->cpu);
		if (k >= 0) {
			*ci = (uint32_t)k;
			return 1;
		}
	}
	return 0;
}

/* Buffers the helpers load ahead of the planning thread, bounded in bytes for large buffers:
 * enough that a helper finds another waiting while one buffer is slow to load (with 8,
 * perfview_net's two helpers waited for work about 170 times a plan and the planning thread
 * about 230 times; with 32, and the planning thread woken only for the buffer it waits for,
 * etldump -j 2's voluntary context switches fell from about 320 to 80-150). */
#define PLAN_AHEAD_MIN 8
#define PLAN_AHEAD_MAX 32
#define PLAN_AHEAD_BYTES ((uint64_t)4 << 20)

/* A buffer in a helper's hands: the job, and what the helper reads of it. */
struct plan_job {
	struct etl_pfjob pf;
	struct etl_stacks part; /* its part of the stack index */
	struct plan_pre pre;    /* its light reading */
	uint32_t ci;            /* its CPU's index */
};

static size_t plan_ahead(const struct trace *t)
{
	uint64_t n = t->info.buffer_size ? PLAN_AHEAD_BYTES / t->info.buffer_size : 0;

	return n < PLAN_AHEAD_MIN ? PLAN_AHEAD_MIN : n > PLAN_AHEAD_MAX ? PLAN_AHEAD_MAX : (size_t)n;
}

static void plan_jobs_free(struct plan_job *jobs, size_t n)
{
	size_t j;

	for (j = 0; jobs && j < n; j++) {
		etl__walk_load_free(&jobs[j].pf.ld);
		etl__stacks_free(&jobs[j].part);
		etl__free(jobs[j].pre.c);
	}
	etl__free(jobs);
}

/* n jobs for t's buffers, or NULL without memory. */
static struct plan_job *plan_jobs_new(struct trace *t, const struct plan_reading *pr, size_t n)
{
	struct plan_job *jobs = etl__calloc(n, sizeof(*jobs));
	size_t j;

	for (j = 0; jobs && j < n; j++) {
		struct etl_pfjob *pf = &jobs[j].pf;
		etl__walk_load_init(&pf->ld, &t->src, (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0,
				    t->info.compression_format);
		pf->stack_part = pr->stacks ? &jobs[j].part : NULL;
		pf->stack_bytes = pr->stack_bytes;
		pf->then = plan_prewalk; /* (the planning thread keeps only what it finds) */
		pf->then_ctx = &jobs[j].pre;
		pf->ptr_size = t->ptr_size;
		pf->clock = &t->clock;
	}
	return jobs;
}

/* Submits the next data buffer to jb's job: 1, or 0 at the end. */
static int plan_submit(struct etl_slices *p, struct trace *t, struct plan_reading *pr, struct etl_bufiter *it,
		       struct etl_prefetch *pf, struct plan_job *jb)
{
	if (!plan_next(p, t, it, &jb->pf.ent, &jb->ci))
		return 0;
	jb->pf.ld.into = NULL;
	jb->pf.ld.into_cap = 0;
	if (pr->keep && (jb->pf.ent.flags & ETL_BUF_COMPRESSED)) /* (decompressed into the keep) */
		etl__walk_keep_aim_ahead(pr->keep, &jb->pf.ld, t->info.buffer_size);
	etl__prefetch_submit(pf, &jb->pf);
	return 1;
}

/* The buffers loaded (decompressed) by helper threads (ETL_OPTION_THREADS), which also load their
 * parts of the stack index, taken in order; ETL_E_NOMEM when they cannot be had (the caller then
 * reads them itself). */
static int plan_read_helped(struct etl_slices *p, struct trace *t, struct plan_reading *pr, unsigned threads)
{
	size_t ahead = plan_ahead(t), head = 0, count = 0;
	struct etl_prefetch *pf = etl__prefetch_new(threads);
	struct plan_job *jobs = pf ? plan_jobs_new(t, pr, ahead) : NULL;
	struct etl_bufiter it;
	int more = 1;

	if (!jobs) {
		etl__prefetch_free(pf);
		return ETL_E_NOMEM;
	}
	etl__walk_iter_init(&it, &t->ix);
	for (;;) {
		struct plan_job *jb;
		while (more && count < ahead && (more = plan_submit(p, t, pr, &it, pf, &jobs[(head + count) % ahead])))
			count++;
		if (!count)
			break;
		jb = &jobs[head];
		etl__prefetch_wait_helping(pf, &jb->pf);
		plan_take(p, t, pr, &jb->pf.ent, jb->ci, &jb->pf.ld, jb->pf.status, jb->pf.stack_part, &jb->pre);
		head = (head + 1) % ahead;
		count--;
	}
	etl__walk_iter_stop(&it);
	p->helped_cpu += etl__prefetch_waiter_cpu(pf);
	etl__prefetch_free(pf);
	plan_jobs_free(jobs, ahead);
	return ETL_OK;
}

/* Reads every data buffer (see struct plan_reading), each buffer's summary into p. */
static int plan_read(struct etl_slices *p, struct trace *t, struct plan_reading *pr, unsigned threads)
{
	int compressed = (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0;
	struct etl_bufiter it;
	struct etl_bufent e;
	struct etl_bufload ld;
	struct etl_diag d;
	uint32_t ci;
	size_t i;

	if (!(pr->last = etl__calloc(t->ix.ncpus ? t->ix.ncpus : 1, sizeof(*pr->last))))
		return ETL_E_NOMEM;
	for (i = 0; i < t->ix.ncpus; i++)
		pr->last[i] = t->info.start_raw;
	if (threads && plan_read_helped(p, t, pr, threads) == ETL_OK)
		return p->nomem ? ETL_E_NOMEM : ETL_OK;
	etl__walk_load_init(&ld, &t->src, compressed, t->info.compression_format);
	etl__walk_iter_init(&it, &t->ix);
	while (plan_next(p, t, &it, &e, &ci)) {
		const uint8_t *raw = t->src.mem ? NULL : etl__walk_iter_bytes(&it, &e);
		int st = raw ? etl__walk_load_raw(&ld, &e, raw, &d) : etl__walk_load(&ld, &e, &d);
		plan_take(p, t, pr, &e, ci, &ld, st, NULL, NULL);
	}
	etl__walk_iter_stop(&it);
	etl__walk_load_free(&ld);
	return p->nomem ? ETL_E_NOMEM : ETL_OK;
}

/* plan_read, making the trace's stack index in the same pass when the reader shows stacks and
 * has none yet: the readers of the slices opened with etl_reader_open_same share it, and need
 * not read the trace again for it. */
static int plan_read_stacks(struct etl_reader *r, struct etl_slices *p, struct trace *t, struct plan_reading *pr)
{
	int st;

	if (!r->options[ETL_OPTION_STACKS] || t->origin)
		return plan_read(p, t, pr, (unsigned)r->options[ETL_OPTION_THREADS]);
	pthread_mutex_lock(&t->stack_mu);
	if (!t->stacks.loaded) {
		pr->stacks = &t->stacks;
		pr->stack_bytes = r->limits[ETL_LIMIT_STACK_KEY_BYTES];
	}
	st = plan_read(p, t, pr, (unsigned)r->options[ETL_OPTION_THREADS]);
	if (pr->stacks && st == ETL_OK && !pr->stacks_short) {
		etl__stacks_finish_threads(&t->stacks, (unsigned)r->options[ETL_OPTION_THREADS]);
		atomic_store_explicit(&t->stacks_ready, 1, memory_order_release);
	} else if (pr->stacks) {
		etl__stacks_free(&t->stacks); /* (the reader's own pass makes it when asked) */
	}
	pthread_mutex_unlock(&t->stack_mu);
	return st;
}

/* The keep for the buffers the plan decompresses, when the trace is compressed and has none
 * yet (trace.planned: the first plan's stays while the reader lives), or NULL. */
static struct etl_bufkeep *plan_keep_reserve(const struct etl_reader *r, struct trace *t)
{
	if (!(t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) || t->origin ||
	    atomic_load_explicit(&t->planned_ready, memory_order_acquire))
		return NULL;
	etl__walk_keep_init(&t->planned, r->limits[ETL_LIMIT_KEPT_BUFFER_BYTES]);
	return etl__walk_keep_reserve(&t->planned, etl__trace_kept_need(t)) == 0 ? &t->planned : NULL;
}

/* Publishes what the plan kept (then only read), or frees the keep when it holds nothing. */
static void plan_keep_publish(struct trace *t, struct etl_bufkeep *keep)
{
	if (keep && keep->n)
		atomic_store_explicit(&t->planned_ready, 1, memory_order_release);
	else if (keep)
		etl__walk_keep_free(keep);
}

/* The first slice that starts after FILETIME ft (its bound above it), or UINT32_MAX: the bounds
 * 1 to k - 1 rise. */
static uint32_t first_slice_after(const struct etl_slices *p, uint64_t ft)
{
	size_t lo = 1, hi = p->k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->bounds[mid] <= ft)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->k ? (uint32_t)lo : UINT32_MAX;
}

/* Which slices skip each buffer: from j0 on (the first bound after every time of its CPU's
 * stream up to it), never past a buffer that is not clean; and each CPU's first run of clean
 * buffers.  Without memory for it, none is skipped. */
static void plan_skips(struct etl_slices *p, const struct trace *t)
{
	uint8_t *stop = etl__calloc(p->ncpus + 1, 1);
	uint64_t *seen = etl__calloc(p->ncpus + 1, sizeof(*seen)); /* the last clean buffer, by CPU */
	size_t i;

	for (i = 0; i < p->ncpus; i++)
		p->clean_last[i] = stop && seen ? UINT64_MAX : 0;
	for (i = 0; i < p->nbufs; i++) {
		struct plan_buf *b = &p->bufs[i];

		b->j0 = UINT32_MAX;
		if (!stop || !seen || stop[b->ci])
			continue;
		if (!b->clean) {
			p->clean_last[b->ci] = seen[b->ci]; /* (0: none) */
			stop[b->ci] = 1;
			continue;
		}
		seen[b->ci] = b->ent.ordinal;
		b->j0 = first_slice_after(p, etl__clock_filetime(&t->clock, b->last_ts));
	}
	etl__free(stop);
	etl__free(seen);
}

/* The slice that holds time ft. */
static size_t slice_at(const struct etl_slices *p, uint64_t ft)
{
	uint32_t j = first_slice_after(p, ft);

	return j == UINT32_MAX ? p->k - 1 : j > 0 ? j - 1 : 0;
}

/* Each slice's records (p->records): each buffer's spread evenly over the time from its CPU's
 * time before it to its last - what reading a slice costs, about: the records of perfview_net's
 * slices of equal bytes differ fifteenfold.  The slices a buffer spans whole take their share as
 * a rate, summed once at the end (a buffer may span them all).  Without memory, none. */
static void plan_records(struct etl_slices *p, const struct trace *t)
{
	double *w = etl__calloc(p->k + 1, sizeof(*w)), *rate = etl__calloc(p->k + 1, sizeof(*rate)), r = 0;
	uint64_t *prev = etl__calloc(p->ncpus + 1, sizeof(*prev)); /* each CPU's last time (FILETIME) */
	size_t i;

	if (w && rate && prev && p->k && (p->records = etl__calloc(p->k, sizeof(*p->records)))) {
		for (i = 0; i < p->ncpus; i++)
			prev[i] = etl__clock_filetime(&t->clock, t->info.start_raw);
		for (i = 0; i < p->nbufs; i++) {
			const struct plan_buf *b = &p->bufs[i];
			uint64_t a = prev[b->ci], e = etl__clock_filetime(&t->clock, b->last_ts);
			size_t ja = slice_at(p, a), je = slice_at(p, e);
			prev[b->ci] = e;
			if (ja >= je || e <= a) {
				w[je] += b->nrec;
				continue;
			}
			r = (double)b->nrec / (double)(e - a); /* (ja < je: bounds ja + 1 to je are times) */
			w[ja] += r * (double)(p->bounds[ja + 1] - a);
			w[je] += r * (double)(e - p->bounds[je]);
			rate[ja + 1] += r;
			rate[je] -= r;
		}
		for (r = 0, i = 0; i < p->k; i++) {
			r += rate[i];
			if (i > 0 && i + 1 < p->k)
				w[i] += r * (double)(p->bounds[i + 1] - p->bounds[i]);
			p->records[i] = w[i] > 0 ? (uint64_t)(w[i] + 0.5) : 0;
		}
	}
	etl__free(w);
	etl__free(rate);
	etl__free(prev);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct plan_rec *x = a, *y = b;

	if (x->ft != y->ft)
		return x->ft < y->ft ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->ci != y->ci)
		return x->ci < y->ci ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct etl_slices *etl_reader_plan_slices(struct etl_reader *r, int trace, size_t n)
{
	struct etl_slices *p;
	struct plan_reading pr;
	struct trace *t;
	struct etl_diag d;
	int st = ETL_E_NOMEM;

	if (!r || trace < 0 || trace >= r->ntraces || n == 0 || n > ETL_SLICES_MAX)
		return NULL;
	t = r->traces[trace];
	p = etl__calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	memset(&pr, 0, sizeof(pr));
	p->trace = trace;
	p->file_size = t->src.size;
	p->buffers = t->ix.buffers;
	p->bytes_skipped = t->ix.bytes_skipped;
	p->start_raw = t->info.start_raw;
	p->ncpus = t->ix.ncpus;
	p->cpus = etl__calloc(p->ncpus + 1, sizeof(*p->cpus));
	p->clean_last = etl__calloc(p->ncpus + 1, sizeof(*p->clean_last));
	p->bounds = etl__calloc(n + 1, sizeof(*p->bounds));
	if (!p->cpus || !p->clean_last || !p->bounds)
		goto out;
	if (p->ncpus)
		memcpy(p->cpus, t->ix.cpus, p->ncpus * sizeof(*p->cpus));
	if (etl__slice_ident(&t->src, &p->ident, &d) != ETL_OK) {
		st = d.code;
		goto out;
	}
	p->bufs = etl__calloc((size_t)t->ix.buffers + 1, sizeof(*p->bufs));
	pr.f = etl__calloc((size_t)t->ix.buffers + 1, sizeof(*pr.f));
	pr.g = etl__calloc((size_t)t->ix.buffers + 1, sizeof(*pr.g));
	if (!p->bufs || !pr.f || !pr.g)
		goto out;
	/* a slice's state stands in for the index (etl__walk_index_given), which then knows no copies
	 * of buffers (dups.c): a file that holds some is indexed again by each slice's reader */
	p->skip = t->ix.forward && t->ix.ncpus > 0 && t->ix.ndup == 0;
	pr.keep = p->skip ? plan_keep_reserve(r, t) : NULL;
	st = p->skip ? plan_read_stacks(r, p, t, &pr) : ETL_OK;
	plan_keep_publish(t, pr.keep);
	if (st != ETL_OK)
		goto out;
	if (!p->skip)
		pr.nf = etl__slices_read_flush_times(t, pr.f);
	/* flush times that are not the session's (a relogged trace's): cut by the records' times */
	if (p->skip && !etl__slices_flush_times_usable(t, pr.f, pr.nf))
		p->k = etl__slices_cut(pr.g, pr.ng, n, p->bounds);
	else
		p->k = etl__slices_cut(pr.f, pr.nf, n, p->bounds);
	plan_skips(p, t);
	plan_records(p, t);
	if (p->nrec) /* (qsort of no array: NULL is not allowed) */
		qsort(p->recs, p->nrec, sizeof(*p->recs), cmp_rec);
	st = etl__slices_weigh(p) == 0 ? ETL_OK : ETL_E_NOMEM;
out:
	etl__free(pr.f);
	etl__free(pr.g);
	etl__free(pr.last);
	if (st != ETL_OK) {
		etl_slices_free(p);
		return NULL;
	}
	return p;
}

int etl_slices_in_order(const struct etl_slices *p)
{
	size_t i;

	if (!p || !p->skip || p->bytes_skipped) /* (a plan short of memory is not made) */
		return 0;
	for (i = 0; i < p->ncpus; i++)
		if (p->clean_last[i] != UINT64_MAX)
			return 0;
	return 1;
}

double etl__slices_helped_cpu(const struct etl_slices *p)
{
	return p ? p->helped_cpu : 0;
}
