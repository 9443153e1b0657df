/*
 * pool.c - several threads (--threads):
 *
 * The main thread's reader is the only one that iterates: it copies its
 * events (etl_event_copy_into) into batches of up to BATCH_ITEMS events or
 * BATCH_BYTES, in a ring of RING(n) batches.  Every worker goes through every
 * batch in order; the first to reach a batch decodes and formats it, with a
 * reader of its own that never iterates: it opened the same inputs
 * (etl_reader_open_same) and learns, in order, from every event that
 * describes something (etl_reader_observe on the state events of the batches
 * it formats and of those it passes), so that it decodes and names processes
 * as the main reader would.  Stacks the main reader left for later are
 * completed through it when a worker asks (the first such ask makes the stack
 * index pass, which the workers' readers share with it).  The formatted batches are written in
 * order by the worker that makes the next one ready (drain), so the output is the same bytes as
 * with one thread and the main thread only reads; with each batch go its
 * diagnostics (diag.h: the damage met while reading it and the decoding
 * problems of its worker, held back and merged in event order); a batch's
 * slot is filled again once it is written and every worker has gone past it.
 * With --stats or --providers the workers count the events they decode in
 * summaries of their own (in the events' order numbers), merged when they
 * are done.
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
#include "pool.h"
#include "report.h"
#include "setup.h"
#include "out.h"
#include "summary.h"
#include "writers/writer.h"

#define BATCH_ITEMS 1024
#define BATCH_BYTES ((size_t)4 << 20) /* of event copies: a batch ends at either bound */
#define BATCH_DIAG_BYTES ((size_t)1 << 16) /* or at this much damage reported while reading it */
#define RING(n) (2 * (n) + 2)

/* Memory for event copies: a copy holds pointers into itself, so a block never moves; a batch
 * chains more blocks when one is full, and keeps them for its next events.  A copy is at most
 * a record (64 KiB) and its stack, so BATCH_BYTES fit in far fewer than MAX_BLOCKS blocks. */
#define BLOCK_SIZE ((size_t)1 << 18)
#define MAX_BLOCKS 64

struct block {
	unsigned char *p;
	size_t cap, used;
};

struct batch {
	uint64_t seq;        /* the batch of the run it holds */
	struct block blocks[MAX_BLOCKS];
	unsigned nblocks, cur; /* blocks allocated, and the one being filled */
	const struct etl_event **ev; /* its events' copies */
	uint32_t *state;     /* the copies that describe something (etl_event_updates_state) */
	size_t n, nstate, bytes;
	struct out_sink text; /* what its worker formatted */
	struct diag_log reading, decoding; /* its diagnostics, held back for the order (diag.h) */
	unsigned passes;     /* workers that have not gone past it */
	int filled, claimed, formatted, last;
};

struct pool;

struct worker {
	pthread_t thread;
	unsigned index;
	struct pool *pool;
	int exit_code, decode_errors;
	double cpu; /* its CPU seconds at its end (pool_thread_cpu) */
	double ended; /* when it ended (pool_wall_now) */
	struct summary sm; /* --stats, --providers: the events of the batches it took */
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t fed;   /* the workers wait here: for a batch filled, or the stop */
	pthread_cond_t freed; /* the main thread waits here: for want batches written, or the stop */
	uint64_t want;
	unsigned n, ring;
	struct worker *w;
	struct batch *b;
	const struct etl_reader *primary;
	const struct options *o;
	int stop; /* output failed or a worker could not go on */
	uint64_t damage; /* errors the main thread's reader returned (the summaries count them) */
	uint64_t written; /* batches written (drain) */
	int writer;       /* a worker is writing */
	int failed, err;  /* the output failed, its errno */
};

/* Stops the run, with pl->mu held: every worker and the main thread wake to see it. */
static void stop_locked(struct pool *pl)
{
	pl->stop = 1;
	pthread_cond_broadcast(&pl->fed);
	pthread_cond_signal(&pl->freed);
}

static void signal_stop(struct pool *pl)
{
	pthread_mutex_lock(&pl->mu);
	stop_locked(pl);
	pthread_mutex_unlock(&pl->mu);
}

/* Decodes and formats the worker's own batch into its text. */
static int format_batch(struct worker *w, struct etl_reader *r, struct batch *b)
{
	size_t i, k = 0;

	b->text.len = 0;
	out_set_sink(&b->text);
	diag_to = &b->decoding;
	for (i = 0; i < b->n && !out_buf.failed; i++) {
		const struct etl_event *ev = b->ev[i];
		/* only the events that describe something teach the reader (etl_event_updates_state):
		 * the others would be a call each that does nothing */
		if (k < b->nstate && b->state[k] == i) {
			(void)etl_reader_observe(r, ev);
			k++;
		}
		w->sm.now = b->seq * BATCH_ITEMS + i; /* the event's place in the run */
		diag_item = (uint32_t)i;
		handle_event(r, ev, w->pool->o, &w->sm, NULL); /* stateless writers only */
	}
	diag_to = NULL;
	out_set_sink(NULL);
	return out_buf.failed ? -1 : 0;
}

/* Writes the batches that are ready, in order - formatted, and passed by every worker so that
 * their slots can be filled again - with their diagnostics, unless another worker is at it (it
 * writes what becomes ready meanwhile).  Called with pl->mu held by the worker that made a batch
 * ready; the lock is let go while writing. */
static void drain(struct pool *pl)
{
	if (pl->writer)
		return;
	pl->writer = 1;
	while (!pl->stop) {
		struct batch *b = &pl->b[pl->written % pl->ring];
		int err = 0;

		if (!(b->filled && b->seq == pl->written && b->formatted && b->passes == 0))
			break;
		pthread_mutex_unlock(&pl->mu);
		diag_log_print(&b->reading, &b->decoding);
		if (b->text.len && fwrite(b->text.data, 1, b->text.len, stdout) != b->text.len)
			err = errno ? errno : EIO;
		pthread_mutex_lock(&pl->mu);
		if (err) {
			pl->failed = 1;
			pl->err = err;
			stop_locked(pl);
		} else {
			b->filled = b->formatted = 0;
			if (++pl->written == pl->want)
				pthread_cond_signal(&pl->freed);
		}
	}
	pl->writer = 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *pl = w->pool;
	struct etl_reader *r;
	uint64_t seq;
	int last = 0;

	report_decode_errors_reset();
	out_thread_init();
	r = pool_reader_new(pl->o);
	if (r && pool_reader_open(r, pl->primary) != 0) {
		etl_reader_free(r);
		r = NULL;
	}
	if (!r) {
		w->exit_code = EXIT_NOMEM;
		signal_stop(pl);
		return NULL;
	}
	for (seq = 0; !last; seq++) {
		struct batch *b = &pl->b[seq % pl->ring];
		int stop, own = 0, failed = 0;
		size_t i;

		pthread_mutex_lock(&pl->mu);
		while (!(b->filled && b->seq == seq) && !pl->stop)
			pthread_cond_wait(&pl->fed, &pl->mu);
		stop = pl->stop;
		if (!b->claimed) /* the first worker to get here formats it */
			b->claimed = own = 1;
		pthread_mutex_unlock(&pl->mu);
		if (stop)
			break;
		if (own)
			failed = format_batch(w, r, b) != 0;
		else
			for (i = 0; i < b->nstate; i++)
				(void)etl_reader_observe(r, b->ev[b->state[i]]);
		pthread_mutex_lock(&pl->mu);
		last = b->last;
		b->passes--;
		if (own)
			b->formatted = 1;
		if (failed)
			stop_locked(pl);
		drain(pl); /* (the workers write: the main thread only reads) */
		pthread_mutex_unlock(&pl->mu);
		if (failed) {
			w->exit_code = exit_worse(w->exit_code, EXIT_NOMEM);
			break;
		}
	}
	w->decode_errors = report_decode_errors();
	etl_reader_free(r);
	w->cpu = pool_thread_cpu();
	w->ended = pool_wall_now();
	return NULL;
}

/* Room for need bytes in b's blocks (8-byte aligned, as malloc aligns), or NULL. */
static unsigned char *batch_room(struct batch *b, size_t need)
{
	struct block *k;

	while (b->cur < b->nblocks && b->blocks[b->cur].cap - b->blocks[b->cur].used < need)
		b->cur++;
	if (b->cur == b->nblocks) {
		size_t cap = need > BLOCK_SIZE ? need : BLOCK_SIZE;
		if (b->nblocks == MAX_BLOCKS || !(b->blocks[b->nblocks].p = malloc(cap)))
			return NULL;
		b->blocks[b->nblocks].cap = cap;
		b->blocks[b->nblocks++].used = 0;
	}
	k = &b->blocks[b->cur];
	k->used += need;
	return k->p + k->used - need;
}

/* Appends a copy of ev to b; -1 without memory. */
static int batch_add(struct batch *b, const struct etl_event *ev)
{
	size_t need = etl_event_copy_size(ev, ETL_COPY_STACK_LATER);
	unsigned char *m;

	if (!b->ev && (!(b->ev = malloc(BATCH_ITEMS * sizeof(*b->ev))) ||
		       !(b->state = malloc(BATCH_ITEMS * sizeof(*b->state)))))
		return -1;
	if (!(m = batch_room(b, need)))
		return -1;
	if (etl_event_updates_state(ev))
		b->state[b->nstate++] = (uint32_t)b->n;
	/* the reader outlives the batches: a stack is completed by the worker that asks for it */
	b->ev[b->n++] = etl_event_copy_into(ev, m, need, ETL_COPY_STACK_LATER);
	b->bytes += need;
	return 0;
}

/* Fills b with the reader's next events; sets b->last at the end of the events or at an error
 * that ends them.  Errors are reported here, in order. */
static int fill_batch(struct etl_reader *r, const struct options *o, struct batch *b, uint64_t *events,
		      uint64_t *damage)
{
	int exit_code = EXIT_OK;
	unsigned k;

	for (k = 0; k < b->nblocks; k++)
		b->blocks[k].used = 0;
	b->cur = 0;
	b->n = b->nstate = b->bytes = 0;
	b->last = 0;
	diag_to = &b->reading;
	while (b->n < BATCH_ITEMS && b->bytes < BATCH_BYTES && b->reading.len < BATCH_DIAG_BYTES) {
		const struct etl_event *ev;
		int st;

		diag_item = (uint32_t)b->n; /* damage found now comes before the next event */
		st = etl_reader_next(r, &ev);

		if (st == ETL_END) {
			b->last = 1;
			break;
		}
		if (st != ETL_OK) {
			++*damage;
			if (report_damage(r, o, st, &exit_code)) {
				b->last = 1;
				break;
			}
			continue;
		}
		if (batch_add(b, ev) != 0) {
			fprintf(stderr, "%s: out of memory\n", progname);
			exit_code = exit_worse(exit_code, EXIT_NOMEM);
			b->last = 1;
			break;
		}
		(*events)++;
	}
	diag_to = NULL;
	return exit_code;
}

/* Waits until the batches before need are written (drain) - where they are not, until those
 * before want are (want >= need) - : 0, or -1 when the run stopped short of need.  The writer
 * wakes it once, when the last of them is written. */
static int wait_written(struct pool *pl, uint64_t need, uint64_t want)
{
	int rc;

	pthread_mutex_lock(&pl->mu);
	if (pl->written < need && !pl->stop) {
		pl->want = want;
		while (pl->written < want && !pl->stop)
			pthread_cond_wait(&pl->freed, &pl->mu);
	}
	rc = pl->written < need ? -1 : 0;
	pthread_mutex_unlock(&pl->mu);
	return rc;
}

/* The main thread: iterates and hands out batches (the workers write them).  Its exit status. */
static int feed(struct pool *pl, struct etl_reader *r)
{
	int show_progress = !pl->o->quiet && isatty(2), exit_code = EXIT_OK;
	uint64_t seq, events = 0;

	for (seq = 0;; seq++) {
		struct batch *b = &pl->b[seq % pl->ring];

		/* the slot's earlier batch must be written (and so passed by every worker); where it is
		 * not, wait on until half the ring is, so as to fill the slots freed meanwhile in a row
		 * (a ring holds 2 or more) */
		if (seq >= pl->ring && wait_written(pl, seq - pl->ring + 1, seq - pl->ring + pl->ring / 2) != 0)
			return exit_code; /* the output failed (pl->failed) or a worker stopped */
		exit_code = exit_worse(exit_code, fill_batch(r, pl->o, b, &events, &pl->damage));
		pthread_mutex_lock(&pl->mu);
		b->seq = seq;
		b->claimed = 0;
		b->passes = pl->n;
		b->filled = 1;
		pthread_cond_broadcast(&pl->fed);
		pthread_mutex_unlock(&pl->mu);
		if (show_progress)
			report_progress(r, events, 0);
		if (b->last)
			break;
	}
	(void)wait_written(pl, seq + 1, seq + 1);
	if (show_progress)
		report_progress(r, events, 1);
	return exit_code;
}

static void pool_free(struct pool *pl)
{
	unsigned k;

	for (k = 0; pl->b && k < pl->ring; k++) {
		unsigned j;
		for (j = 0; j < pl->b[k].nblocks; j++)
			free(pl->b[k].blocks[j].p);
		free(pl->b[k].ev);
		free(pl->b[k].state);
		free(pl->b[k].text.data);
		diag_log_free(&pl->b[k].reading);
		diag_log_free(&pl->b[k].decoding);
	}
	free(pl->b);
	free(pl->w);
	pthread_cond_destroy(&pl->fed);
	pthread_cond_destroy(&pl->freed);
	pthread_mutex_destroy(&pl->mu);
}

/* Reads r's events with n workers decoding and formatting them; returns the exit status. */
int pool_run(struct etl_reader *r, const struct options *o, unsigned n, struct summary *sm)
{
	struct pool pl;
	unsigned k, started = 0;
	int exit_code = EXIT_OK;
	double main_cpu, cpu[POOL_THREADS_MAX] = { 0 }, ended[POOL_THREADS_MAX] = { 0 }, start_at;

	memset(&pl, 0, sizeof(pl));
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.fed, NULL);
	pthread_cond_init(&pl.freed, NULL);
	pl.n = n;
	pl.ring = RING(n);
	pl.primary = r;
	pl.o = o;
	pl.w = calloc(n, sizeof(*pl.w));
	pl.b = calloc(pl.ring, sizeof(*pl.b));
	if (!pl.w || !pl.b) {
		fprintf(stderr, "%s: out of memory\n", progname);
		pool_free(&pl);
		return EXIT_NOMEM;
	}
	out_flush(); /* what the main thread wrote before the events */
	/* helper threads for the reader: they decompress ahead, and split the stack index pass (which
	 * the workers wait for, and share: their readers use the primary's index) with the thread that
	 * asks first, one part per core.  Set before the workers start, as they read it. */
	(void)etl_reader_set_option(r, ETL_OPTION_THREADS, n - 1 < 3 ? n - 1 : 3);
	start_at = pool_wall_now();
	for (k = 0; k < n; k++) {
		pl.w[k].index = k;
		pl.w[k].pool = &pl;
		if (pthread_create(&pl.w[k].thread, NULL, worker_main, &pl.w[k]) != 0)
			break;
		started++;
	}
	if (started < n) {
		/* the batches of the missing workers would never be formatted: stop the others */
		signal_stop(&pl);
		fprintf(stderr, "%s: cannot start %u threads\n", progname, n);
		exit_code = EXIT_NOMEM;
	} else {
		exit_code = feed(&pl, r);
		signal_stop(&pl); /* workers still waiting for a batch (when feeding stopped early) */
	}
	main_cpu = pool_thread_cpu();
	for (k = 0; k < started; k++) {
		pthread_join(pl.w[k].thread, NULL);
		exit_code = exit_worse(exit_code, pl.w[k].exit_code);
		report_decode_errors_add(pl.w[k].decode_errors);
	}
	for (k = 0; k < started; k++) {
		cpu[k] = pl.w[k].cpu;
		ended[k] = pl.w[k].ended;
	}
	pool_report_cpu(main_cpu, cpu, started);
	pool_report_wall(-1, start_at, ended, started);
	sm->damage += pl.damage;
	for (k = 0; k < started; k++) {
		if (summary_merge(sm, &pl.w[k].sm) != 0 && exit_code != EXIT_NOMEM) {
			fprintf(stderr, "%s: out of memory\n", progname);
			exit_code = exit_worse(exit_code, EXIT_NOMEM);
		}
		summary_free(&pl.w[k].sm);
	}
	pool_free(&pl);
	if (pl.failed)
		pool_output_failed(pl.err);
	return exit_code;
}
