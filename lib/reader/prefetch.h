/*
 * prefetch.h - decompressing buffers ahead of the merge on helper threads
 * (ETL_OPTION_THREADS): each stream hands its next PF_DEPTH compressed
 * buffers to a pool of threads, which load them into loaders of the
 * stream's; the stream takes each (waiting if it must) when it gets there.  Everything else - the merge, parsing, state, decoding - stays on
 * the caller's thread, so events come in the same order with the same bytes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_READER_PREFETCH_H
#define ETL_READER_PREFETCH_H

#include "state/stacks.h"
#include "walk/load.h"

struct etl_prefetch;

/* One stream's job: owned by the stream, lent to the pool while queued or running. */
struct etl_pfjob {
	struct etl_bufload ld;  /* where the helper loads the buffer */
	struct etl_bufent ent;
	struct etl_diag diag;
	int status;
	int state;              /* PF_* (under the pool's lock) */
	struct etl_pfjob *next; /* in the pool's queue */
};

enum { PF_IDLE, PF_QUEUED, PF_RUNNING, PF_DONE };

/* Buffers a stream keeps in the helpers' hands: enough that they never wait to be woken for
 * work the reader needs next (one was not: waking a thread costs about what one buffer takes
 * to decompress). */
#define PF_DEPTH 4

/* A pool of n threads (1 to 64); NULL when threads cannot be made (the caller then loads
 * everything itself). */
struct etl_prefetch *etl__prefetch_new(unsigned n);
/* Stops the threads (waiting for the jobs they are running; queued ones are dropped). */
void etl__prefetch_free(struct etl_prefetch *p);
/* Queues j (state PF_IDLE, ld and ent set). */
void etl__prefetch_submit(struct etl_prefetch *p, struct etl_pfjob *j);
/* Waits until j is done (it must have been submitted). */
void etl__prefetch_wait(struct etl_prefetch *p, struct etl_pfjob *j);
/* etl__stacks_load on up to 4 threads (the caller's and up to `threads` more; 0: the caller's
 * alone, in one pass): each loads a contiguous part of the buffers into an index of its own,
 * with a share of max_bytes; the parts
 * are appended in file order, which gives the index of one pass.  Where a part dropped records
 * (its share was not enough), the pass is made again on one thread, so what is kept never
 * depends on the threads.  Memory: at most max_bytes in the parts, then max_bytes in k.  With
 * keep (empty), the buffers decompressed without fault are kept there within its budget (each
 * part a share of it) for the reader's streams (walk/keep.h). */
void etl__stacks_load_threads(struct etl_stacks *k, const struct etl_source *src, int compressed,
			      uint32_t compression_format, const struct etl_bufindex *ix, unsigned ptr_size,
			      uint64_t max_bytes, unsigned threads, struct etl_bufkeep *keep);

#endif
