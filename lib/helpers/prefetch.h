/*
 * prefetch.h - loading buffers and parsing their records ahead of the merge
 * on helper threads (ETL_OPTION_THREADS): each stream hands its next
 * PF_DEPTH buffers to a pool of threads, which load (decompress) them into
 * loaders of the stream's and parse their records (struct etl_prerecs); the
 * stream takes each (waiting if it must) when it gets there.  What a helper
 * does depends on the buffer's bytes alone; everything else - the merge,
 * state, decoding - stays on the caller's thread, so events come in the same
 * order with the same bytes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_HELPERS_PREFETCH_H
#define ETL_HELPERS_PREFETCH_H

#include "state/stacks.h"
#include "walk/load.h"

struct etl_prefetch;
struct plan_classes;

/* A record a helper parsed ahead (etl__record_parse at pos, ETL_OK), with its times converted
 * unless it takes them from the record before (ETL_EVF_TS_INHERITED), what etl__record_swallowed
 * says of it (at the time of the record before where it takes that: PF_SWALLOW_UNKNOWN below),
 * and what etl__stacks_attach finds after it: the stream takes it instead of doing
 * the same again (all of them depend on the buffer's bytes alone). */
struct etl_prerec {
	size_t pos, adv, swallow;
	int stack_seen, stack_rec; /* etl__stacks_attach: the record shows stack records; it is one */
	struct etl_event ev;       /* with the stack records that follow it attached */
};

/* Where a message takes its time from the record before and no record of the buffer before it
 * has a time of its own, only the stream knows that time: it looks for a record swallowed then. */
#define PF_SWALLOW_UNKNOWN ((size_t)-1)

/* A record after those parsed ahead, as a helper peeked it (etl__record_peek): the stream parses
 * it itself, but knows what etl__record_swallowed says of it (nothing: the helper stops before the
 * first record it must not vouch for), its time converted where it has one of its own, and
 * whether etl__stacks_attach may find a stack there (PL_STACK: it or the record after it may be a
 * stack record or name a stack key; where the record after it was not peeked, it may). */
struct etl_prelight {
	uint32_t pos;
	uint32_t flags; /* PL_* */
	uint64_t filetime;
};

enum { PL_STACK = 1, PL_TIMED = 2 };

/* The records parsed ahead in a loaded buffer: those from its first, up to the first that does
 * not parse (damage, the end marker), that swallows another, or PF_PARSE_MAX; then, in lv, the
 * records after them peeked (at most the job's light_max). */
struct etl_prerecs {
	struct etl_prerec *v;
	size_t n, cap;
	struct etl_prelight *lv;
	size_t ln, lcap;
};

/* The memory of the records parsed ahead, for all the jobs of a reader's streams together: each
 * job parses at most its share of it (PF_PARSE_BYTES over the memories that may hold a buffer's
 * records - five a stream, its jobs' and its own, or the buffers where fewer: merge.c - at most
 * PF_PARSE_MAX records, and none where the share is below PF_PARSE_MIN - thousands of CPU
 * streams; the rest of a buffer is peeked, and parsed on the stream's thread).  A 64 KiB buffer
 * holds a few hundred to a few thousand records. */
#define PF_PARSE_BYTES ((size_t)32 << 20)
#define PF_PARSE_MIN 32
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define PF_PARSE_MAX 8 /* (a fuzzer's small buffers: a few records parsed ahead, the rest peeked) */
#else
#define PF_PARSE_MAX 4096
#endif
/* The same of the records peeked after them: PF_LIGHT_BYTES together, a share each (at most
 * PF_LIGHT_MAX, none below PF_LIGHT_MIN). */
#define PF_LIGHT_BYTES ((size_t)8 << 20)
#define PF_LIGHT_MIN 64
#define PF_LIGHT_MAX 65536

/* What the state records of a loaded buffer tell the tables (state/facts.h), read by a helper
 * (etl__state_changes: the same whatever thread reads it, as it depends on the record alone), by
 * the record's place in the buffer: the stream gives it to the event it parses there, and the
 * reader does not decode the record for it (state.c).  The facts of all the jobs of a reader's
 * streams take at most PF_FACT_BYTES together (each job its share, at most PF_FACT_MAX, none
 * below PF_FACT_MIN); the records past a job's share are read on the stream's thread. */
struct etl_prefact {
	size_t pos, at; /* the record's place; its fact's in bytes */
	uint32_t len;
};

struct etl_prefacts {
	struct etl_prefact *v;
	size_t n, cap;
	uint8_t *bytes;
	size_t len, bytes_cap;
};

#define PF_FACT_BYTES ((size_t)32 << 20)
#define PF_FACT_MIN ((size_t)16 << 10)
#define PF_FACT_MAX ((size_t)1 << 20)

/* One stream's job: owned by the stream, lent to the pool while queued or running. */
struct etl_pfjob {
	struct etl_bufload ld;  /* where the helper loads the buffer */
	struct etl_bufent ent;
	struct etl_diag diag;
	int status;
	int loaded;             /* ld holds the buffer already (a keep gave it): only parse */
	unsigned ptr_size;      /* the trace's */
	int stacks;             /* ETL_OPTION_STACKS: attach the StackWalk records after each record */
	const struct etl_clockconv *clock; /* the trace's, for the times of the records it parses */
	size_t parse_max;       /* records it parses at most */
	struct etl_prerecs pre; /* its records, parsed */
	size_t light_max;       /* records it peeks after them at most */
	size_t fact_max;        /* read the facts of its state records into fx, this many bytes at most */
	struct etl_prefacts fx;
	struct etl_stacks *stack_part; /* where it loads the buffer's part of the stack index pass
					  (NULL: none; etl__stacks_load_buffer), within stack_bytes */
	uint64_t stack_bytes;
	/* called last by the helper, the buffer loaded (NULL: none): a plan's light reading of it
	 * (reader/plan.c), with then_ctx and the thread's record classes (kept from job to job;
	 * NULL without memory) */
	void (*then)(struct etl_pfjob *j, void *ctx, struct plan_classes *classes);
	void *then_ctx;
	int state;              /* PF_* (under the pool's lock) */
	int awaited;            /* the reader waits for it (under the pool's lock) */
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
/* The same, running the queued jobs on this thread meanwhile, in their order (j first, when no
 * helper has taken it), with a scratch the pool keeps for it: for one thread at a time (the
 * plan's). */
void etl__prefetch_wait_helping(struct etl_prefetch *p, struct etl_pfjob *j);
/* The CPU seconds the waiting thread spent on jobs so far (0 where threads' CPU time cannot be
 * read). */
double etl__prefetch_waiter_cpu(const struct etl_prefetch *p);
/* Parses the records of the buffer j loaded into j->pre (see struct etl_prerecs), at most
 * j->parse_max; none where it could not be loaded whole or memory is short. */
void etl__prefetch_parse(struct etl_pfjob *j);
void etl__prefacts_free(struct etl_prefacts *fx);
void etl__prerecs_free(struct etl_prerecs *pre);
/* The records each of njobs jobs parses at most; peeks at most after them. */
size_t etl__prefetch_parse_max(size_t njobs);
size_t etl__prefetch_light_max(size_t njobs);
/* The bytes of facts each of njobs jobs reads at most (0: none). */
size_t etl__prefetch_fact_max(size_t njobs);
/* etl__stacks_finish; with threads (ETL_OPTION_THREADS) not 0, its image and .NET method
 * histories sorted on threads of their own where they are large (the same index). */
void etl__stacks_finish_threads(struct etl_stacks *k, unsigned threads);
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
