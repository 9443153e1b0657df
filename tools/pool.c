/*
 * pool.c - several threads (--threads):
 *
 * Every worker opens the inputs with a reader of its own (sharing what the
 * main thread's reader unpacked: etl_reader_open_same) and iterates all of
 * them (iteration is cheap next to decoding and formatting, and each reader
 * then keeps the full process tables and in-trace metadata), but it decodes
 * and formats only its own batches: batch b (BATCH_ITEMS consecutive results
 * of etl_reader_next, events and errors alike) belongs to worker b % N. The
 * main thread writes the batches in order, so the output is the same bytes as
 * with one thread. Each worker holds at most SLOTS formatted batches.
 *
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etldump.h"
#include "out.h"
#include "writers/writer.h"

#define BATCH_ITEMS 1024
#define SLOTS 4

struct slot {
	struct out_sink text;
	int ready;
};

struct pool;

struct worker {
	pthread_t thread;
	unsigned index;
	struct pool *pool;
	int exit_code, decode_errors;
	struct slot slots[SLOTS];
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n;
	struct worker *w;
	const struct etl_reader *primary; /* the inputs, opened once */
	const struct options *o;
	uint64_t total_items; /* results of etl_reader_next, known when a worker finished */
	int finished, stop;   /* stop: output failed or a worker could not go on */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *pl = w->pool;
	const struct options *o = pl->o;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	uint64_t i = 0, cur = UINT64_MAX;
	struct slot *slot = NULL;
	int ignored = EXIT_OK, stop = 0;

	int t, opened = 0;

	decode_errors = 0;
	if (r && etl_reader_set_order(r, o->order) == ETL_OK) {
		configure_reader(r, o, 1, &ignored);
		for (t = 0; t < etl_reader_trace_count(pl->primary); t++)
			opened += etl_reader_open_same(r, pl->primary, t) == ETL_OK;
	}
	if (!r || opened == 0 || opened != etl_reader_trace_count(pl->primary)) {
		w->exit_code = EXIT_NOMEM;
		pthread_mutex_lock(&pl->mu);
		pl->stop = 1;
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		etl_reader_free(r);
		return NULL;
	}
	for (;;) {
		int st = etl_reader_next(r, &ev);
		uint64_t b;

		if (st == ETL_END)
			break;
		b = i++ / BATCH_ITEMS;
		if (b % pl->n != w->index) {
			if (st != ETL_OK && (!etl_reader_error(r) || etl_error_is_fatal(etl_reader_error(r))))
				break;
			continue;
		}
		if (b != cur) {
			/* hand over the batch before, then wait for the slot of this one */
			if (slot) {
				out_flush();
				pthread_mutex_lock(&pl->mu);
				slot->ready = 1;
				pthread_cond_broadcast(&pl->cv);
				pthread_mutex_unlock(&pl->mu);
			}
			slot = &w->slots[(b / pl->n) % SLOTS];
			pthread_mutex_lock(&pl->mu);
			while (slot->ready && !pl->stop)
				pthread_cond_wait(&pl->cv, &pl->mu);
			stop = pl->stop;
			pthread_mutex_unlock(&pl->mu);
			if (stop)
				break;
			slot->text.len = 0;
			out_buf.sink = &slot->text;
			cur = b;
		}
		if (st != ETL_OK) {
			const struct etl_error *e = etl_reader_error(r);
			report(r, NULL, o);
			w->exit_code = worse(w->exit_code, status_exit(st));
			if (!e || etl_error_is_fatal(e))
				break;
			continue;
		}
		handle_event(r, ev, o, NULL);
		if (out_buf.failed) {
			w->exit_code = worse(w->exit_code, EXIT_NOMEM);
			stop = 1;
			break;
		}
	}
	if (slot && !stop) {
		out_flush();
		if (out_buf.failed)
			w->exit_code = worse(w->exit_code, EXIT_NOMEM);
	}
	out_buf.sink = NULL;
	w->decode_errors = decode_errors;
	pthread_mutex_lock(&pl->mu);
	if (slot && !stop && !out_buf.failed)
		slot->ready = 1;
	if (out_buf.failed)
		pl->stop = 1;
	if (!pl->finished || i > pl->total_items)
		pl->total_items = i;
	pl->finished = 1;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	etl_reader_free(r);
	return NULL;
}

/* Runs the workers and writes their batches in order; returns the exit status. */
int run_threaded(const struct etl_reader *primary, const struct options *o, unsigned n)
{
	struct pool pl;
	uint64_t b;
	unsigned k, started = 0;
	int exit_code = EXIT_OK;

	memset(&pl, 0, sizeof(pl));
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pl.n = n;
	pl.primary = primary;
	pl.o = o;
	pl.w = calloc(n, sizeof(*pl.w));
	if (!pl.w) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_NOMEM;
	}
	out_flush(); /* what the main thread wrote before the events */
	for (k = 0; k < n; k++) {
		pl.w[k].index = k;
		pl.w[k].pool = &pl;
		if (pthread_create(&pl.w[k].thread, NULL, worker_main, &pl.w[k]) != 0)
			break;
		started++;
	}
	if (started < n) {
		/* the batches of the missing workers would never come: stop the others */
		pthread_mutex_lock(&pl.mu);
		pl.stop = 1;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
		fprintf(stderr, "%s: cannot start %u threads\n", progname, n);
		exit_code = EXIT_NOMEM;
	}
	for (b = 0; started == n; b++) {
		struct slot *slot = &pl.w[b % n].slots[(b / n) % SLOTS];
		int have;

		pthread_mutex_lock(&pl.mu);
		while (!slot->ready && !pl.stop &&
		       !(pl.finished && b >= (pl.total_items + BATCH_ITEMS - 1) / BATCH_ITEMS))
			pthread_cond_wait(&pl.cv, &pl.mu);
		have = slot->ready && !pl.stop;
		pthread_mutex_unlock(&pl.mu);
		if (!have)
			break;
		if (slot->text.len && fwrite(slot->text.data, 1, slot->text.len, stdout) != slot->text.len)
			out_buf.failed = 1;
		pthread_mutex_lock(&pl.mu);
		slot->ready = 0;
		if (out_buf.failed)
			pl.stop = 1;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
	}
	for (k = 0; k < started; k++) {
		pthread_join(pl.w[k].thread, NULL);
		exit_code = worse(exit_code, pl.w[k].exit_code);
		decode_errors += pl.w[k].decode_errors;
	}
	for (k = 0; k < n; k++) {
		unsigned j;
		for (j = 0; j < SLOTS; j++)
			free(pl.w[k].slots[j].text.data);
	}
	free(pl.w);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
	return exit_code;
}

/* Whether --threads applies: event output in a stateless format (not chrome, whose
 * pairs and names span events; not the summaries), no --count, no standard input
 * (the workers read each input on their own). */
int threads_usable(const struct options *o, char **files, int nfiles)
{
	int i;

	if (o->threads < 2 || o->info || o->stats || o->providers || o->processes || !o->writer->stateless ||
	    o->csv_columns ||
	    o->max_events)
		return 0;
	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") == 0)
			return 0;
	if (o->threads_auto) {
		/* each worker opens the inputs again: not worth it below a few tens of MB */
		uint64_t total = 0;
		struct stat sb;
		for (i = 0; i < nfiles; i++)
			if (stat(files[i], &sb) == 0)
				total += (uint64_t)sb.st_size;
		if (total < ((uint64_t)32 << 20))
			return 0;
	}
	return 1;
}

