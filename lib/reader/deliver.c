/*
 * deliver.c - what the reader does with each event it delivers (see reader.h):
 * attaches its call stack (completed from the trace's stack index when it is
 * first asked for, on any thread: copies made with ETL_COPY_STACK_LATER ask
 * through here too), and takes note of what it describes for later events
 * (in-trace metadata, processes, threads, images) - which a reader that does
 * not iterate can also be given (etl_reader_observe).
 *
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>

#include "reader/reader.h"

/* The most the trace's decompressed buffers can take in a keep (each buffer is at most its
 * declared size, at a cache line of its own). */
uint64_t etl__trace_kept_need(const struct trace *t)
{
	return t->ix.buffers * ((uint64_t)t->info.buffer_size + 64);
}

/* The trace's stack index and image history, read in one pass over the trace the first time
 * they are needed, on whatever thread asks (another thread asking meanwhile waits for it). */
const struct etl_stacks *etl__reader_stack_index(struct etl_reader *r, struct trace *t)
{
	if (t->origin)
		return etl__reader_stack_index(t->origin_reader, t->origin);
	/* nearly every event of a trace with stack records asks: once the index is there, without the
	 * lock (two threads taking it for every event spend their time passing its cache line) */
	if (!atomic_load_explicit(&t->stacks_ready, memory_order_acquire)) {
		pthread_mutex_lock(&t->stack_mu);
		if (!t->stacks.loaded) {
			int compressed = (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0;
			/* the decompressed buffers are kept for the streams, when they fit */
			int keep;
			etl__walk_keep_init(&t->kept, r->limits[ETL_LIMIT_KEPT_BUFFER_BYTES]);
			keep = compressed && etl__walk_keep_reserve(&t->kept, etl__trace_kept_need(t)) == 0;
			etl__stacks_load_threads(&t->stacks, &t->src, compressed, t->info.compression_format,
						 &t->ix, t->ptr_size, r->limits[ETL_LIMIT_STACK_KEY_BYTES],
						 (unsigned)r->options[ETL_OPTION_THREADS], keep ? &t->kept : NULL);
		}
		atomic_store_explicit(&t->stacks_ready, 1, memory_order_release);
		pthread_mutex_unlock(&t->stack_mu);
	}
	return &t->stacks; /* the loaded index is only read */
}

/* Completes the stack of an event the reader delivered (or of a copy made with ETL_COPY_STACK_LATER),
 * when it is first asked for: the records the trace's stack index holds for it. */
static void finish_stack(void *ctx, struct etl_event *ev)
{
	struct etl_reader *r = ctx;

	etl__stacks_resolve(etl__reader_stack_index(r, r->traces[ev->trace_index]), ev);
}

/* The event's call stack: StackWalk records that follow it (now, while its buffer is loaded),
 * and - through the trace's stack index, when the stack is first asked for - compressed stacks
 * and stacks logged away from it (state/stacks.h). */
void etl__reader_attach_stacks(struct etl_reader *r, struct stream *s)
{
	struct trace *t = s->t;
	struct etl_event *ev = &s->ev;

	ev->stack_finish = NULL;
	if (!r->options[ETL_OPTION_STACKS]) {
		ev->nstack_parts = 0;
		return;
	}
	if (s->head_pre) { /* a helper attached them (prefetch.h) */
		t->stacks_seen |= s->head_pre->stack_seen;
		if (s->head_pre->stack_rec || !t->stacks_seen)
			return;
	} else if (s->head_light && !(s->head_light->flags & PL_STACK)) {
		ev->stack_pid = ev->pid; /* what etl__stacks_attach finds there: no stack of its own */
		if (!t->stacks_seen)
			return;
	} else if (!etl__stacks_attach(&t->stacks_seen, ev, s->data, s->fill, s->pos)) {
		return;
	}
	ev->stack_finish = finish_stack;
	ev->stack_ctx = r;
}

/* Takes note of what a delivered (or, before a time window, skipped) event tells about later
 * ones: in-trace metadata, processes, threads and images. */
void etl__reader_observe_event(struct etl_reader *r, const struct etl_event *ev, struct etl_event *keep)
{
	r->dec.out_event = NULL; /* ev may be where an earlier event was (a stream's own event) */
	if (ev->kind == ETL_HEADER_FULL || (ev->kind == ETL_HEADER_EVENT && ev->id == 0xFFFE))
		etl__decode_observe(&r->dec, ev); /* metadata that describes later events */
	if (ev->kind != ETL_HEADER_EVENT)
		etl__state_observe(&r->sys, &r->dec, ev, keep); /* processes, threads, images */
}

int etl_reader_observe(struct etl_reader *r, const struct etl_event *ev)
{
	if (!r)
		return ETL_E_MISUSE;
	if (!ev)
		return etl__reader_misuse(r, "NULL event");
	if (r->state != ST_NEW)
		return etl__reader_misuse(r, "a reader that iterates learns from its own events");
	if (ev->trace_index < 0 || ev->trace_index >= r->ntraces)
		return etl__reader_misuse(r, "the event's input is not open in this reader");
	r->observer = 1;
	etl__reader_observe_event(r, ev, NULL);
	return ETL_OK;
}
