/*
 * slicepool.c - several threads (--threads) over time slices:
 *
 * The main thread plans the input's time slices (etl_reader_plan_slices: one
 * light reading, which also makes the stack index) and, where the plan says
 * the slices read one after another give a whole reading's events in its
 * order (etl_slices_in_order), joins them into spans (a slice whose state is
 * large against it is read with the next ones) and waits.  Each worker takes
 * the next span, reads it with a reader of its own given its first slice's
 * state (etl_reader_set_slice: it starts at the slice's buffers, knowing the
 * processes, threads, images and metadata described before it; the window's
 * end moved to the span's) and decodes and formats its events into chunks.
 * The chunks are written in span order, each with its diagnostics, by the
 * worker whose span is due (drain): the same bytes as one thread.  No event
 * is copied and no thread but the one that reads it sees it.  The spans
 * ahead of the one being written hold at most SLICE_AHEAD bytes of text
 * together; a worker that would hold more waits (the slices are cut small
 * enough that this is rare).  Chunks are reused.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "etldump.h"
#include "handle.h"
#include "out.h"
#include "pool.h"
#include "report.h"
#include "setup.h"
#include "summary.h"
#include "writers/writer.h"

#define CHUNK_ITEMS 4096
#define CHUNK_CAP ((size_t)2 << 20) /* what a chunk's text takes but for huge events */
#define CHUNK_TEXT (CHUNK_CAP - 2 * (size_t)OUT_BUFFER_SIZE) /* a chunk ends at CHUNK_ITEMS events or this much text */
#define CHUNK_DIAG ((size_t)1 << 16)   /* or this much diagnostics */
#define SLICE_AHEAD ((size_t)256 << 20) /* text the slices not being written hold, at most */
#define TEXT_RATIO 10                    /* text bytes an event's buffer byte gives, about (jsonl) */
/* spans a worker, at least: the last span's worker finishes alone, and the text of the spans
 * ahead of the one being written is held (fresh memory), so smaller spans end sooner and hold
 * less; each worker's reader moves on from span to span (etl_reader_move_to_slice), replaying only
 * the state records between and passing over the records before the span in its CPUs' first
 * buffers by their headers, so a span costs little (-j 2, one thread's instructions: perfview_net
 * in 16 spans 1.076, 32 spans 1.080, where 8 slices each replaying its whole state took 1.09 and
 * 32 took 1.19; the 64 MB synthetic trace in 16 spans 1.052, 32 spans 1.056) */
#define SPANS_PER_WORKER 16
/* the plan's slices a span, about: spans are made of the plan's slices (cut at equal bytes) so
 * that each holds about as many records (a span's cost: perfview_net's slices of equal bytes hold
 * 1,300 to 20,500 records) */
#define SLICES_PER_SPAN 4
#define PLAN_SLICES_MOST 4096 /* a plan's slices, at most (etl_reader_plan_slices) */

struct chunk {
	struct chunk *next;
	struct out_sink text;
	struct diag_log log, none; /* its diagnostics, in order (one log: read and decoded here) */
	uint32_t events;
	int last;                  /* the run ends after it (fatal damage, or a worker failed) */
};

struct slot {
	struct chunk *head, *tail;
	size_t held; /* text bytes queued */
	int done;    /* its worker has queued its last chunk */
};

struct sworker {
	pthread_t thread;
	struct spool *sp;
	int exit_code, decode_errors;
	double cpu, ended; /* its CPU seconds and the clock at its end (pool_wall_now) */
	struct summary sm; /* handle_event's (unused by the output formats but for its counters) */
};

struct spool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct etl_slices *plan;
	size_t *first;           /* each span's first slice of the plan (k + 1: the plan's count) */
	size_t k, next, writing; /* spans; the next to take; the one being written */
	size_t held;             /* text the slots hold, all together */
	int writer;              /* a thread is writing (drain) */
	int show_progress;
	uint64_t events;         /* written (for the progress) */
	int failed, err;         /* the output failed, its errno */
	struct slot *slots;
	struct chunk *free_chunks;
	const struct etl_reader *primary;
	const struct options *o;
	int stop;
	double plan_at; /* when the plan began (pool_wall_now) */
};

static void chunk_free(struct chunk *c)
{
	free(c->text.data);
	diag_log_free(&c->log);
	diag_log_free(&c->none);
	free(c);
}

/* A new chunk's text block: malloc's, its pages mapped as the text reaches them (a chunk that
 * ends a small span touches a few; mapping all 2 MiB at once, madvise(MADV_POPULATE_WRITE), gave
 * a 1.5 MB trace at -j 8 112 MB of memory and four times its time: docs/PERFORMANCE.md).  A huge
 * event grows it with realloc (out.c), and free returns it. */
static char *chunk_text_new(void)
{
	return malloc(CHUNK_CAP);
}

/* A chunk from the free list, or a new one (NULL without memory). */
static struct chunk *chunk_get(struct spool *sp)
{
	struct chunk *c;

	pthread_mutex_lock(&sp->mu);
	if ((c = sp->free_chunks) != NULL)
		sp->free_chunks = c->next;
	pthread_mutex_unlock(&sp->mu);
	if (!c && !(c = calloc(1, sizeof(*c))))
		return NULL;
	if (!c->text.data && (c->text.data = chunk_text_new()) != NULL) /* (growing it would copy it) */
		c->text.cap = CHUNK_CAP;
	c->next = NULL;
	c->text.len = 0;
	c->events = 0;
	c->last = 0;
	return c;
}

/* Writes chunk c (with its diagnostics, held back for the order) to stdout, and reports
 * progress: by the one thread writing (sp->writer), outside the lock.  0, or -1 when the output
 * failed. */
static int write_chunk(struct spool *sp, struct chunk *c)
{
	uint64_t total = etl_trace_info_file_size(etl_reader_trace_info(sp->primary, 0));

	sp->events += c->events;
	if (sp->show_progress) /* (the plan's slices are of about equal bytes) */
		report_progress_read(sp->primary, total / sp->first[sp->k] * sp->first[sp->writing], sp->events, 0);
	diag_log_print(&c->log, &c->none);
	if (c->text.len && fwrite(c->text.data, 1, c->text.len, stdout) != c->text.len) {
		sp->err = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

/* Writes the chunks that can be written now, in order - the slot being written, and the next
 * ones once it is done - unless another thread is at it (it writes what comes meanwhile).  Any
 * thread that queues a chunk calls it, with sp->mu held: the output needs no thread of its own. */
static void drain(struct spool *sp)
{
	if (sp->writer)
		return;
	sp->writer = 1;
	while (!sp->stop && sp->writing < sp->k) {
		struct slot *s = &sp->slots[sp->writing];
		struct chunk *c = s->head;
		int failed, last;

		if (!c) {
			if (!s->done)
				break; /* (its reader queues more, and writes it) */
			sp->writing++;
			pthread_cond_broadcast(&sp->cv);
			continue;
		}
		s->head = c->next;
		if (!s->head)
			s->tail = NULL;
		s->held -= c->text.len;
		sp->held -= c->text.len;
		pthread_mutex_unlock(&sp->mu);
		failed = write_chunk(sp, c) != 0;
		last = c->last;
		pthread_mutex_lock(&sp->mu);
		c->next = sp->free_chunks;
		sp->free_chunks = c;
		if (failed || last) /* (the output failed, or damage that ends the reading) */
			sp->stop = 1;
		sp->failed |= failed;
		pthread_cond_broadcast(&sp->cv);
	}
	sp->writer = 0;
}

/* Queues c (NULL: none) for slice i, done when it is the slice's last; waits while the slice is
 * not being written and the slices ahead hold more than SLICE_AHEAD.  0, or -1 when the run
 * stopped. */
static int put(struct spool *sp, size_t i, struct chunk *c, int done)
{
	struct slot *s = &sp->slots[i];
	int stopped;

	pthread_mutex_lock(&sp->mu);
	if (c) {
		if (s->tail)
			s->tail->next = c;
		else
			s->head = c;
		s->tail = c;
		s->held += c->text.len;
		sp->held += c->text.len;
	}
	s->done = done;
	drain(sp);
	pthread_cond_broadcast(&sp->cv);
	while (!sp->stop && sp->writing < sp->k && sp->writing != i &&
	       sp->held - sp->slots[sp->writing].held > SLICE_AHEAD)
		pthread_cond_wait(&sp->cv, &sp->mu);
	stopped = sp->stop;
	pthread_mutex_unlock(&sp->mu);
	return stopped ? -1 : 0;
}

/* Whether the chunk being filled is full (its text: what the sink holds and the window). */
static int chunk_full(const struct chunk *c, uint32_t n)
{
	return n >= CHUNK_ITEMS || c->text.len + out_buf.len >= CHUNK_TEXT || c->log.len >= CHUNK_DIAG;
}

/* Reads slice i with r, formatting its events into chunks queued in order.  -1 to stop. */
static int read_slice(struct sworker *w, struct etl_reader *r, size_t i)
{
	struct spool *sp = w->sp;
	struct chunk *c = NULL;
	uint64_t at = (uint64_t)i << 40; /* the events' order in the run, for the summary */
	uint32_t n = 0;
	int st = ETL_OK, fatal = 0;

	for (;;) {
		const struct etl_event *ev;

		if (!c) {
			if (!(c = chunk_get(sp))) {
				fprintf(stderr, "%s: out of memory\n", progname);
				w->exit_code = exit_worse(w->exit_code, EXIT_NOMEM);
				return -1;
			}
			out_set_sink(&c->text);
			diag_to = &c->log;
			n = 0;
		}
		diag_item = n;
		if ((st = etl_reader_next(r, &ev)) == ETL_END)
			break;
		if (st != ETL_OK) {
			w->sm.damage++;
			if (report_damage(r, sp->o, st, &w->exit_code)) {
				fatal = 1;
				break;
			}
			continue;
		}
		w->sm.now = at++;
		handle_event(r, ev, sp->o, &w->sm, NULL);
		n++;
		if (out_buf.failed)
			break;
		if (chunk_full(c, n)) {
			c->events = n;
			out_set_sink(NULL);
			diag_to = NULL;
			if (put(sp, i, c, 0) != 0)
				return -1;
			c = NULL;
		}
	}
	out_set_sink(NULL);
	diag_to = NULL;
	c->events = n;
	c->last = fatal = fatal || out_buf.failed;
	if (out_buf.failed)
		w->exit_code = exit_worse(w->exit_code, EXIT_NOMEM);
	return put(sp, i, c, 1) != 0 || fatal ? -1 : 0; /* (c is the writer's once queued) */
}

/* The next span to read: its index, -1 when none is left (or the run stopped). */
static long take_span(struct spool *sp)
{
	long i = -1;

	pthread_mutex_lock(&sp->mu);
	if (!sp->stop && sp->next < sp->k)
		i = (long)sp->next++;
	pthread_mutex_unlock(&sp->mu);
	return i;
}

/* Gives span i to r - moved on from the span it read (etl_reader_move_to_slice: it keeps what it
 * learnt and replays only the state records between), or new (NULL: made here, its first slice's
 * state given, its input opened) - with the window's end moved to the span's.  The reader, or NULL
 * without memory (r freed). */
static struct etl_reader *span_reader(struct spool *sp, struct etl_reader *r, size_t i)
{
	size_t a = sp->first[i], b = sp->first[i + 1];

	/* (the plan is only read: the workers take their slices at once) */
	if (r && etl_reader_move_to_slice(r, sp->plan, a) != ETL_OK) {
		etl_reader_free(r); /* (the first slice's reader, or no memory: a new one) */
		r = NULL;
	}
	if (!r && (!(r = pool_reader_new(sp->o)) || etl_reader_set_slice_planned(r, sp->plan, a) != ETL_OK ||
		   pool_reader_open(r, sp->primary) != 0))
		goto fail;
	if (etl_reader_set_time_window(r, etl_slices_bound(sp->plan, a), etl_slices_bound(sp->plan, b)) != ETL_OK)
		goto fail;
	return r;
fail:
	etl_reader_free(r);
	return NULL;
}

static void stop_all(struct spool *sp)
{
	pthread_mutex_lock(&sp->mu);
	sp->stop = 1;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
}

static void *sworker_main(void *arg)
{
	struct sworker *w = arg;
	struct spool *sp = w->sp;
	struct etl_reader *r = NULL; /* moved on from span to span (span_reader) */
	long i;

	report_decode_errors_reset();
	out_thread_init();
	for (;;) {
		if ((i = take_span(sp)) < 0)
			break;
		if (!(r = span_reader(sp, r, (size_t)i))) {
			i = -2; /* (no memory) */
			break;
		}
		if (read_slice(w, r, (size_t)i) != 0) {
			i = -1;
			break;
		}
	}
	etl_reader_free(r);
	if (i == -2) {
		fprintf(stderr, "%s: out of memory\n", progname);
		w->exit_code = exit_worse(w->exit_code, EXIT_NOMEM);
	}
	if (i != -1 || w->exit_code == EXIT_NOMEM)
		stop_all(sp);
	w->decode_errors = report_decode_errors();
	w->cpu = pool_thread_cpu();
	w->ended = pool_wall_now();
	return NULL;
}

/* The bytes of the input's buffers (as they are read: decompressed). */
static uint64_t input_bytes(const struct etl_reader *r)
{
	const struct etl_trace_info *ti = etl_reader_trace_info(r, 0);
	uint64_t size = etl_trace_info_file_size(ti), bsize = etl_trace_info_buffer_size(ti);
	uint64_t bufs = etl_trace_info_buffers_written(ti);

	if (bsize && size / bsize > bufs)
		bufs = size / bsize; /* (buffers written: 0 in a trace never closed) */
	return bufs * bsize > size ? bufs * bsize : size;
}

/* How many spans to read for *n workers: SPANS_PER_WORKER *n at least, and more where a span's
 * text would take more than its share of SLICE_AHEAD (a TEXT_RATIO of its buffers' bytes), but
 * none of fewer buffers than the input has CPUs (a span reads again, lightly, the records before
 * its start in its CPUs' first buffers).  Where that leaves fewer than 2 *n, *n becomes half the
 * spans: fewer workers on slices do less work than all of them on the batches (perfview_net, 34
 * spans: -j 32's batches took 1.18 times one thread's instructions, 17 workers on the spans 1.06;
 * and the batches' ring grows with the workers); 0 when fewer than 4 are left (pool_run's batches
 * then do better).  ETLDUMP_SLICES (tests, measures) gives the count, each span one slice of the
 * plan; 0 for none. */
static size_t span_count(const struct etl_reader *r, unsigned *n, int *forced)
{
	const struct etl_trace_info *ti = etl_reader_trace_info(r, 0);
	uint64_t bsize = etl_trace_info_buffer_size(ti), bytes = input_bytes(r);
	uint64_t bufs = bsize ? bytes / bsize : 0, cpus = etl_trace_info_cpu_count(ti), k, most;
	uint64_t per = SLICE_AHEAD / (2 * (uint64_t)*n) / TEXT_RATIO; /* buffer bytes a span */
	const char *force = getenv("ETLDUMP_SLICES");

	*forced = force && *force;
	if (*forced) {
		k = strtoull(force, NULL, 10);
		return k > PLAN_SLICES_MOST ? PLAN_SLICES_MOST : (size_t)k;
	}
	most = bufs / (cpus ? cpus : 1);
	k = bytes / per;
	if (k < SPANS_PER_WORKER * (uint64_t)*n)
		k = SPANS_PER_WORKER * (uint64_t)*n;
	if (k > most)
		k = most;
	if (k > PLAN_SLICES_MOST / SLICES_PER_SPAN)
		k = PLAN_SLICES_MOST / SLICES_PER_SPAN;
	if (k < 4)
		return 0;
	if (k < 2 * (uint64_t)*n)
		*n = (unsigned)(k / 2);
	return (size_t)k;
}

/* Joins the plan's slices into k spans of about as many records each (etl_slices_records; each
 * slice weighs a tenth of the mean besides, for what its bytes cost), read each by one reader (the
 * window's end moved): into sp->first, sp->k.  The last 2n spans (n workers) take half a share
 * each, so that the workers finish closer together (the last span's worker ends alone).  0
 * without memory. */
static size_t make_spans(struct spool *sp, size_t k, unsigned n)
{
	size_t k0 = etl_slices_count(sp->plan), i, t = 2 * (size_t)n;
	uint64_t all = 0, seen = 0, floor;

	if (!(sp->first = calloc(k0 + 1, sizeof(*sp->first))))
		return 0;
	for (i = 0; i < k0; i++)
		all += etl_slices_records(sp->plan, i);
	floor = all / k0 / 10 + 1;
	all += floor * k0;
	if (t > k / 2)
		t = 0;
	sp->k = 0;
	for (i = 0; i < k0; i++) {
		/* (a span starts once the last has its share: in units of 1 / (2k - t) of all, two
		 * a span, one for the last t) */
		uint64_t j = sp->k, due = j <= k - t ? 2 * j : j + k - t;
		if (i == 0 || k >= k0 || seen * (2 * k - t) >= all * due)
			sp->first[sp->k++] = i;
		seen += etl_slices_records(sp->plan, i) + floor;
	}
	sp->first[sp->k] = k0;
	return sp->k;
}

/* Whether the run can be read in slices: one input, time order, event output that a reader of a
 * slice formats as a whole reading's would (no counts, no derived fields, no PDB files: each
 * reader would load its own). */
static int slices_apply(const struct etl_reader *r, const struct options *o)
{
	return etl_reader_trace_count(r) == 1 && o->order == ETL_ORDER_TIME && !o->stats && !o->providers &&
	       !o->processes && !o->derive && (o->no_symbols || !o->writer->stacks || !setup_symbol_paths_given(o));
}

static void spool_free(struct spool *sp)
{
	size_t i;

	for (i = 0; sp->slots && i < sp->k; i++)
		while (sp->slots[i].head) {
			struct chunk *c = sp->slots[i].head;
			sp->slots[i].head = c->next;
			chunk_free(c);
		}
	while (sp->free_chunks) {
		struct chunk *c = sp->free_chunks;
		sp->free_chunks = c->next;
		chunk_free(c);
	}
	free(sp->slots);
	free(sp->first);
	etl_slices_free(sp->plan);
	pthread_cond_destroy(&sp->cv);
	pthread_mutex_destroy(&sp->mu);
}

/* Starts n workers, writes, joins them: the exit status. */
static int run_workers(struct spool *sp, unsigned n)
{
	struct sworker w[POOL_THREADS_MAX];
	double cpu[POOL_THREADS_MAX], ended[POOL_THREADS_MAX], main_cpu, start_at = pool_wall_now();
	unsigned k, started = 0;
	int exit_code = EXIT_OK;

	memset(w, 0, sizeof(w));
	for (k = 0; k < n; k++) {
		w[k].sp = sp;
		if (pthread_create(&w[k].thread, NULL, sworker_main, &w[k]) != 0)
			break;
		started++;
	}
	if (started == 0) {
		fprintf(stderr, "%s: cannot start %u threads\n", progname, n);
		exit_code = EXIT_NOMEM;
	}
	/* the workers write the output themselves (drain), and end when every span is written or
	 * the run stopped (whoever stops it wakes those waiting): the main thread only joins them,
	 * not woken for each chunk */
	for (k = 0; k < started; k++) {
		pthread_join(w[k].thread, NULL);
		exit_code = exit_worse(exit_code, w[k].exit_code);
		report_decode_errors_add(w[k].decode_errors);
		summary_free(&w[k].sm);
		cpu[k] = w[k].cpu;
		ended[k] = w[k].ended;
	}
	main_cpu = pool_thread_cpu();
	pool_report_cpu(main_cpu, cpu, started);
	pool_report_wall(sp->plan_at, start_at, ended, started);
	if (sp->show_progress)
		report_progress_read(sp->primary, 0, sp->events, 1);
	return exit_code;
}

int slicepool_run(struct etl_reader *r, const struct options *o, unsigned n, int *exit_code)
{
	struct spool sp;
	size_t k;
	unsigned workers = n; /* (fewer where the input gives too few spans: span_count) */
	int forced, failed, err;

	if (!slices_apply(r, o) || (k = span_count(r, &workers, &forced)) == 0)
		return 0;
	memset(&sp, 0, sizeof(sp));
	sp.plan_at = pool_wall_now();
	/* n - 1 helper threads decompress the buffers for the plan, and the main thread while it waits
	 * (the workers have not started) */
	(void)etl_reader_set_option(r, ETL_OPTION_THREADS, n - 1);
	pool_plan_memory();
	sp.plan = etl_reader_plan_slices(r, 0, forced ? k : k * SLICES_PER_SPAN);
	pool_keep_freed_memory(); /* (for the workers: see pool.h) */
	/* and split the stack index pass (the first slice reader to need it makes it, for all:
	 * pool_reader's readers use the primary's), one part a core */
	(void)etl_reader_set_option(r, ETL_OPTION_THREADS, n - 1 < 3 ? n - 1 : 3);
	pthread_mutex_init(&sp.mu, NULL);
	pthread_cond_init(&sp.cv, NULL);
	/* (a plan not in order, or fewer than 4 spans: the batches then; the plan's stack index
	 * serves them) */
	if (!sp.plan || !etl_slices_in_order(sp.plan) ||
	    make_spans(&sp, forced ? etl_slices_count(sp.plan) : k, workers) < (forced ? 1 : 4) ||
	    !(sp.slots = calloc(sp.k, sizeof(*sp.slots)))) {
		spool_free(&sp);
		return 0;
	}
	if (!forced && sp.k < 2 * (size_t)workers) /* (two spans a worker at least: span_count) */
		workers = (unsigned)(sp.k / 2);
	sp.primary = r;
	sp.o = o;
	sp.show_progress = !o->quiet && isatty(2);
	out_flush(); /* what the main thread wrote before the events */
	*exit_code = run_workers(&sp, workers);
	failed = sp.failed;
	err = sp.err;
	spool_free(&sp);
	if (failed)
		pool_output_failed(err);
	return 1;
}
