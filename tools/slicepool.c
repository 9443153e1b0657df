/*
 * slicepool.c - several threads (--threads) over time slices:
 *
 * The main thread plans the input's time slices (etl_reader_plan_slices: one
 * light reading) and, where the plan says the slices read one after another
 * give a whole reading's events in its order (etl_slices_in_order), each
 * worker takes the next slice, reads it with a reader of its own given the
 * slice's state (etl_reader_set_slice: it starts at the slice's buffers,
 * knowing the processes, threads, images and metadata described before it)
 * and decodes and formats its events into chunks.  The main thread writes
 * the chunks of slice 0, then those of slice 1, and so on, each with its
 * diagnostics: the same bytes as one thread.  No event is copied and no
 * thread follows every event but the one that reads it, so the main thread
 * only plans and writes.  The slices ahead of the one being written hold at
 * most SLICE_AHEAD bytes of text together; a worker that would hold more
 * waits (the slices are cut small enough that this is rare).  Chunks are
 * reused.
 *
 * SPDX-License-Identifier: MIT
 */
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
#define CHUNK_TEXT ((size_t)1 << 20)   /* a chunk ends at CHUNK_ITEMS events or this much text */
#define CHUNK_DIAG ((size_t)1 << 16)   /* or this much diagnostics */
#define SLICE_AHEAD ((size_t)256 << 20) /* text the slices not being written hold, at most */
#define TEXT_RATIO 10                    /* text bytes an event's buffer byte gives, about (jsonl) */
#define SLICE_BUFFERS 4                  /* a slice's buffers of each CPU, at least */

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
	double cpu;
	struct summary sm; /* handle_event's (unused by the output formats but for its counters) */
};

struct spool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct etl_slices *plan;
	size_t k, next, writing; /* slices; the next to take; the one being written */
	size_t held;             /* text the slots hold, all together */
	struct slot *slots;
	struct chunk *free_chunks;
	const struct etl_reader *primary;
	const struct options *o;
	int stop;
};

static void chunk_free(struct chunk *c)
{
	free(c->text.data);
	diag_log_free(&c->log);
	diag_log_free(&c->none);
	free(c);
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
	c->next = NULL;
	c->text.len = 0;
	c->events = 0;
	c->last = 0;
	return c;
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
	pthread_cond_broadcast(&sp->cv);
	while (!sp->stop && sp->writing != i && sp->held - sp->slots[sp->writing].held > SLICE_AHEAD)
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

/* The next slice to read, its state copied into *state (cap *cap): its index, -1 when none is
 * left (or the run stopped), -2 without memory. */
static long take_slice(struct spool *sp, void **state, size_t *cap, size_t *len)
{
	const void *s;
	long i = -1;

	pthread_mutex_lock(&sp->mu);
	if (!sp->stop && sp->next < sp->k) {
		i = -2;
		if ((s = etl_slices_state(sp->plan, sp->next, len)) != NULL && *len > *cap) {
			void *m = realloc(*state, *len);
			if (m) {
				*state = m;
				*cap = *len;
			}
		}
		if (s && *len <= *cap) {
			memcpy(*state, s, *len);
			i = (long)sp->next++;
		}
	}
	pthread_mutex_unlock(&sp->mu);
	return i;
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
	void *state = NULL;
	size_t cap = 0, len = 0;
	long i;

	report_decode_errors_reset();
	out_thread_init();
	while ((i = take_slice(sp, &state, &cap, &len)) >= 0) {
		struct etl_reader *r = pool_reader(sp->primary, sp->o, state, len);
		int failed = !r || read_slice(w, r, (size_t)i) != 0;

		etl_reader_free(r);
		if (failed) {
			i = r ? -1 : -2;
			break;
		}
	}
	if (i == -2) {
		fprintf(stderr, "%s: out of memory\n", progname);
		w->exit_code = exit_worse(w->exit_code, EXIT_NOMEM);
	}
	if (i != -1 || w->exit_code == EXIT_NOMEM)
		stop_all(sp);
	free(state);
	w->decode_errors = report_decode_errors();
	w->cpu = pool_thread_cpu();
	return NULL;
}

/* Takes slice i's next chunk (waiting for it): the chunk, or NULL when the slice is done or the
 * run stopped (*stopped). */
static struct chunk *next_chunk(struct spool *sp, size_t i, int *stopped)
{
	struct slot *s = &sp->slots[i];
	struct chunk *c;

	pthread_mutex_lock(&sp->mu);
	while (!s->head && !s->done && !sp->stop)
		pthread_cond_wait(&sp->cv, &sp->mu);
	if ((c = s->head) != NULL) {
		s->head = c->next;
		if (!s->head)
			s->tail = NULL;
		s->held -= c->text.len;
		sp->held -= c->text.len;
		pthread_cond_broadcast(&sp->cv);
	}
	*stopped = !c && !s->done;
	pthread_mutex_unlock(&sp->mu);
	return c;
}

/* The main thread: writes the slices' chunks in order.  -1 when the output failed or a worker
 * stopped the run. */
static int write_slices(struct spool *sp)
{
	int show_progress = !sp->o->quiet && isatty(2);
	uint64_t total = etl_trace_info_file_size(etl_reader_trace_info(sp->primary, 0)), events = 0;
	size_t i;

	for (i = 0; i < sp->k; i++) {
		struct chunk *c;
		int stopped = 0;

		pthread_mutex_lock(&sp->mu);
		sp->writing = i;
		pthread_cond_broadcast(&sp->cv);
		pthread_mutex_unlock(&sp->mu);
		while ((c = next_chunk(sp, i, &stopped)) != NULL) {
			int last = c->last;
			events += c->events;
			if (show_progress) /* (the slices are of about equal bytes) */
				report_progress_read(sp->primary, total / sp->k * i, events, 0);
			diag_log_print(&c->log, &c->none);
			if (c->text.len && fwrite(c->text.data, 1, c->text.len, stdout) != c->text.len)
				out_buf.failed = 1;
			pthread_mutex_lock(&sp->mu);
			c->next = sp->free_chunks;
			sp->free_chunks = c;
			pthread_mutex_unlock(&sp->mu);
			if (out_buf.failed || last) {
				stop_all(sp);
				return -1;
			}
		}
		if (stopped)
			return -1;
	}
	if (show_progress)
		report_progress_read(sp->primary, total, events, 1);
	return 0;
}

/* How many slices for n workers: 3n at least, and more where a slice's text would take more
 * than its share of SLICE_AHEAD (a TEXT_RATIO of its buffers' bytes); 0 when the input has too
 * few buffers for 2n slices of SLICE_BUFFERS buffers a CPU (a slice reads up to two buffers of
 * each CPU that its neighbours read too, and takes up the trace's state: then pool_run's
 * batches do better). */
static size_t slice_count(const struct etl_reader *r, unsigned n)
{
	const struct etl_trace_info *ti = etl_reader_trace_info(r, 0);
	uint64_t size = etl_trace_info_file_size(ti), bsize = etl_trace_info_buffer_size(ti);
	uint64_t bufs = etl_trace_info_buffers_written(ti), cpus = etl_trace_info_cpu_count(ti), k, most;
	uint64_t per = SLICE_AHEAD / (2 * (uint64_t)n) / TEXT_RATIO; /* buffer bytes a slice */
	const char *force = getenv("ETLDUMP_SLICES");

	if (bsize && size / bsize > bufs)
		bufs = size / bsize; /* (buffers written: 0 in a trace never closed) */
	if (force && *force) /* (tests, measures: that many, where slices apply; 0: none) */
		return (size_t)strtoul(force, NULL, 10) > 4096 ? 4096 : (size_t)strtoul(force, NULL, 10);
	most = bufs / SLICE_BUFFERS / (cpus ? cpus : 1);
	k = bufs * bsize / per;
	if (k < 3 * (uint64_t)n)
		k = 3 * (uint64_t)n;
	if (k > most)
		k = most;
	return k < 2 * (uint64_t)n ? 0 : k > 4096 ? 4096 : (size_t)k;
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
	etl_slices_free(sp->plan);
	pthread_cond_destroy(&sp->cv);
	pthread_mutex_destroy(&sp->mu);
}

/* Starts n workers, writes, joins them: the exit status. */
static int run_workers(struct spool *sp, unsigned n)
{
	struct sworker w[POOL_THREADS_MAX];
	double cpu[POOL_THREADS_MAX], main_cpu;
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
	} else {
		(void)write_slices(sp);
	}
	stop_all(sp); /* workers waiting to queue (when writing stopped early) */
	main_cpu = pool_thread_cpu();
	for (k = 0; k < started; k++) {
		pthread_join(w[k].thread, NULL);
		exit_code = exit_worse(exit_code, w[k].exit_code);
		report_decode_errors_add(w[k].decode_errors);
		summary_free(&w[k].sm);
		cpu[k] = w[k].cpu;
	}
	pool_report_cpu(main_cpu, cpu, started);
	return exit_code;
}

int slicepool_run(struct etl_reader *r, const struct options *o, unsigned n, int *exit_code)
{
	struct spool sp;
	size_t k;

	if (!slices_apply(r, o) || (k = slice_count(r, n)) == 0)
		return 0;
	memset(&sp, 0, sizeof(sp));
	/* helper threads decompress the buffers for the plan (the workers have not started) */
	(void)etl_reader_set_option(r, ETL_OPTION_THREADS, n);
	sp.plan = etl_reader_plan_slices(r, 0, k);
	/* and split the stack index pass (the first slice reader to need it makes it, for all:
	 * pool_reader's readers use the primary's), one part a core */
	(void)etl_reader_set_option(r, ETL_OPTION_THREADS, n - 1 < 3 ? n - 1 : 3);
	if (!sp.plan || !etl_slices_in_order(sp.plan)) {
		etl_slices_free(sp.plan);
		return 0;
	}
	pthread_mutex_init(&sp.mu, NULL);
	pthread_cond_init(&sp.cv, NULL);
	sp.k = etl_slices_count(sp.plan);
	sp.primary = r;
	sp.o = o;
	if (!(sp.slots = calloc(sp.k, sizeof(*sp.slots)))) {
		spool_free(&sp);
		return 0;
	}
	out_flush(); /* what the main thread wrote before the events */
	*exit_code = run_workers(&sp, n);
	spool_free(&sp);
	return 1;
}
