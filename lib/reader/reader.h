/*
 * reader.h - the reader's own structures, shared by its parts:
 *   reader.c     lifecycle, options and limits, counters, decoding and the
 *                accessors of what the reader keeps (traces, processes)
 *   open.c       adding inputs: plain traces and containers of traces
 *   header.c     the header buffer and the logfile header, checked and repaired
 *   merge.c      per-CPU streams and the time-ordered merge (etl_reader_next)
 *   buffers.c    the buffers of each stream, loaded in turn or by helpers
 *   deliver.c    what each delivered event gets: its stack, and the state it
 *                describes (also for etl_reader_observe)
 *   frames.c     stack frames with names: methods, images, PDB functions
 *   derive.c     derived fields (ETL_OPTION_DERIVE)
 *   manifests.c  manifest sets (etl_manifests_*) and the reader's manifests
 *   given.c      a time slice's state given to the reader (given.h): taken at
 *                the opening, its records replayed in the merge
 *   errors.c     the error the next call returns, and diagnostics queued
 * Below: lib/helpers (helper threads: prefetch.c, stackpass.c, classify.c).
 * Above: lib/slices (plans and slice states, through given.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_READER_READER_H
#define ETL_READER_READER_H

#include <pthread.h>
#include <stdatomic.h>

#include "decode/decode.h"
#include "io/source.h"
#include "state/files.h"
#include "state/stacks.h"
#include "state/state.h"
#include "symbols/symbols.h"
#include "walk/buffer.h"
#include "walk/load.h"
#include "helpers/prefetch.h"
#include "reader/access.h"

struct slice_state;

#define DIAG_QUEUE_MAX 1024

/* ST_MOVED: moved on to a later time slice (etl_reader_move_to_slice) - it iterates from the
 * start again, but takes no new inputs, options or observed events */
enum reader_state { ST_NEW = 0, ST_ITERATING = 1, ST_FATAL = 2, ST_MOVED = 3 };
enum head_kind { HEAD_NONE = 0, HEAD_EVENT = 1, HEAD_ERROR = 2 };

struct etl_error {
	int code;
	int fatal;
	int trace;
	int64_t buffer;
	uint64_t offset;
	char msg[320];
};

struct trace {
	int index;
	struct etl_source src;
	struct etl_trace_info info;
	struct etl_clockconv clock;
	struct etl_bufindex ix;
	struct etl_bufscan fwd;   /* a forward index: the merge's scan of the buffers (merge.c) */
	size_t fwd_streams;       /* and the first of the trace's per-CPU streams, in CPU order */
	unsigned ptr_size;
	struct etl_stacks stacks; /* compressed and deferred stacks: read when a stack is first asked for */
	int stacks_seen;          /* the trace has shown stack records (etl__stacks_attach) */
	/* Guards the reading of the index: a stack may be asked for from other threads (copies made
	 * with ETL_COPY_STACK_LATER); once loaded, the index does not change until the reader is freed,
	 * and stacks_ready (set after it, under the lock) lets later asks read it without the lock. */
	pthread_mutex_t stack_mu;
	atomic_int stacks_ready;
	/* Buffers the stack index pass decompressed, kept for the streams (within
	 * ETL_LIMIT_KEPT_BUFFER_BYTES): filled with the index, then taken from only by the thread
	 * that iterates (merge.c), after it sees stacks_ready. */
	struct etl_bufkeep kept;
	/* Buffers a slice plan's light reading decompressed (reader/plan.c, within
	 * ETL_LIMIT_KEPT_BUFFER_BYTES): filled once, by the trace's first plan, then only read - lent
	 * (not given) to the streams of this reader and of those opened from it, after they see
	 * planned_ready. */
	struct etl_bufkeep planned;
	atomic_int planned_ready;
	/* Opened again from another reader's trace (etl_reader_open_same): the trace first opened
	 * and its reader (they outlive this one; NULL otherwise).  Its stack index is the one used,
	 * read once for all the readers of the input, and what its plans kept is lent to this one. */
	struct etl_reader *origin_reader;
	struct trace *origin;
	/* The EventSource manifests its readers parse (this trace's, or its origin's: their readers
	 * share the origin's), made with the trace; NULL without memory (each parses its own).  Used
	 * once another reader was opened from it (shared): a reader alone parses as before, and
	 * keeps no copy of the documents' text. */
	struct etl_mdoc_cache *mdocs;
	atomic_int shared;
	struct etl_files files;   /* file names and volumes for derived fields: read when first needed */
	/* Read as a time slice whose state stood in for indexing it (resume.c): the reader's. */
	const struct slice_state *slice;
	size_t plan_scan; /* and when it borrows a plan: the plan's buffer its scan finds next */
};

enum stream_source {
	FROM_INDEX, /* the index entries [next, end) */
	FROM_SCAN,  /* every buffer, as the trace's forward scan meets it (file order) */
	FROM_QUEUE, /* one CPU's buffers, queued by the trace's forward scan (merge.c) */
	FROM_SLICE  /* the records of a time slice's state [next, end): what skipped buffers describe */
};

/* Where a window that ends at a bound lets a stream go (merge.c, "time windows"). */
struct window_cut {
	enum { CUT_BEFORE, CUT_LOOKING, CUT_PASSED } state;
	uint64_t loads; /* CUT_LOOKING: the stream's loads at its first head at or after the bound */
};

struct stream {
	struct trace *t;
	uint32_t id;
	enum stream_source from;
	size_t next, end;    /* FROM_INDEX: index entries still to load: [next, end) */
	struct etl_bufent *q; /* FROM_QUEUE: entries met by the scan, not loaded yet */
	uint64_t resume;     /* FROM_QUEUE: its buffers before this ordinal are skipped (a time slice's
			        state says what they tell); UINT64_MAX: all are */
	size_t q_head, q_len, q_cap;
	int loaded;          /* a buffer is loaded: ent */
	struct etl_bufent ent;
	struct etl_pfjob *pf; /* ETL_OPTION_THREADS: the next PF_DEPTH buffers, loaded by helpers */
	unsigned pf_head, pf_count; /* the ring of submitted jobs not taken yet */
	int take_failed;     /* taking the next buffer for the helpers ran out of memory: said
			        when the stream needs that buffer */
	struct etl_bufload ld; /* the loaded buffer */
	struct etl_prerecs pre; /* its records a helper parsed ahead, the next of them at ipre */
	size_t ipre;
	struct etl_prefacts fx; /* the facts a helper read of its state records, the next at ifx */
	size_t ifx;
	const struct etl_prerec *head_pre; /* the head's record, when it was parsed ahead */
	const struct etl_prelight *head_light; /* else what a helper saw of it, when it peeked it */
	size_t ilt;                        /* the next of pre's lights */
	const uint8_t *data; /* its bytes, header included (NULL if none) */
	size_t fill, pos;
	size_t data_end;     /* past it, only padding up to fill (merge.c) */
	int said_short;      /* said the records end before fill (merge.c) */
	uint32_t cpu;
	uint64_t last_ts;
	enum head_kind head;
	struct etl_event ev;
	struct etl_diag diag;
	uint64_t key_ft, key_raw;
	size_t swallow_from, swallow_at; /* the head's record holds a whole record at swallow_at that
				           ends where it ends (0: none): said, then read */
	uint64_t loads;      /* buffers loaded so far (the window's read-ahead counts in them) */
	/* a window from a later time: where the window before it stops reading this stream
	 * (merge.c, cut_follow); past it, events of earlier times are this window's */
	struct window_cut from_cut;
	int late_said;       /* the window said it delivers events of earlier times */
	int past_seen;       /* it met a record at or after the reader's seen_to (merge.c, pass_seen) */
	size_t passed_at;    /* the last record of its buffer it passed over (0: none) */
	size_t unchained_to; /* from its buffer's last resynchronisation to it, no record is followed
				by another (buffers.c, etl__stream_resync; 0: none looked at) */
	size_t ends_fill;    /* the last record of its buffer that ends where its records end
				(buffers.c, etl__stream_records_end_at_fill; 0: not looked for; SIZE_MAX: none) */
};

struct etl_reader {
	enum reader_state state;
	int observer; /* given events with etl_reader_observe: never iterates */
	enum etl_order order;
	uint64_t limits[ETL_LIMIT_COUNT_];
	int64_t options[ETL_OPTION_COUNT_];
	struct trace **traces;
	int ntraces;
	size_t cap_traces;
	struct stream *streams;
	size_t nstreams;
	struct stream **heap;
	size_t heap_len;
	struct stream *pending; /* heap[0], delivered its head; advance before the next delivery */
	struct etl_prefetch *pf; /* ETL_OPTION_THREADS helpers, or NULL */
	struct etl_diag *queue; /* damage found while indexing, delivered first */
	size_t q_head, q_len;
	uint64_t q_dropped;
	struct etl_error err;
	int has_err;
	uint64_t counts[ETL_COUNT_COUNT_];
	uint64_t lent; /* buffers loaded from a plan's keep (tests, measurements) */
	uint64_t loaded_here; /* buffers a stream with helpers loaded on this thread (tests) */
	uint64_t peeked; /* records a stream parsed itself that a helper had peeked (tests) */
	struct etl_decode_state dec;
	unsigned manifest_warnings;
	struct etl_manifests *shared_manifests; /* etl_reader_use_manifests: a reference, or NULL */
	struct etl_state sys; /* processes, threads, images */
	struct etl_symbols symbols; /* symbol paths and the PDB files read (frames.c) */
	/* etl_reader_set_time_window: events before win_from are read for what they tell (state,
	 * metadata) but not delivered; a stream is read past win_to until it leaves the window
	 * (merge.c, stream_leaves_window) */
	int windowed;
	uint64_t win_from, win_to;
	/* etl_reader_set_filter (filter/select.c): events it says no to are read, not delivered */
	int (*keep)(void *ctx, const struct etl_reader *r, const struct etl_event *ev);
	void *keep_ctx;
	struct slice_state *slice; /* etl_reader_set_slice (resume.c), or NULL */
	int ended;       /* etl_reader_next returned ETL_END */
	/* moved on to a slice that starts here (etl_reader_move_to_slice): the records of times
	 * before it were learnt from the slices read, or are replayed from the plan, so the
	 * streams pass over them (0: none) */
	uint64_t seen_to;
};

/* reader.c */
int etl__reader_set_error(struct etl_reader *r, const struct etl_diag *d, int trace, int fatal);
void etl__reader_trace_free(struct trace *t);
/* Frees the streams, the heap and the helpers (an iteration's, not what it learnt). */
void etl__reader_streams_free(struct etl_reader *r);
/* Adds the derived fields of a decoded event (derive.c; ETL_OPTION_DERIVE). */
void etl__reader_derive(struct etl_reader *r, const struct etl_event *ev, struct etl_decoded *out);

/* open.c */
/* Queues d (damage found while indexing input r->ntraces) for delivery. */
void etl__reader_queue_diag(void *ctx, const struct etl_diag *d);
/* header.c: an input's header buffer, its logfile header, and its buffer count, checked */
int etl__reader_header_buffer(struct etl_reader *r, struct trace *t, struct etl_bufhdr *h, struct etl_diag *d);
int etl__reader_logfile_header(struct etl_reader *r, struct trace *t, struct etl_bufhdr *h, struct etl_diag *d);
void etl__reader_check_buffer_count(struct etl_reader *r, const struct trace *t);

/* buffers.c */
/* Loads the stream's next buffer: 1 with *status that of the load (s->diag set when it is not
 * ETL_OK), 0 at the stream's end, -1 out of memory (s->diag set). */
int etl__stream_load_next(struct etl_reader *r, struct stream *s, int *status);
/* With helpers (r->pf, s->pf): hands the stream's next buffers to them until depth (at most
 * PF_DEPTH) are with them; etl__stream_load_next takes the oldest. */
void etl__stream_prefetch(struct etl_reader *r, struct stream *s, unsigned depth);
/* After damage at s->pos, moves s->pos on to where the buffer's records go on (its next record,
 * or the padding that ends it), the bytes passed counted as skipped. */
void etl__stream_resync(struct etl_reader *r, struct stream *s);
/* Whether a record after s->pos (eight bytes at a time) ends where the buffer's records end
 * (s->data_end, its padding up to s->fill): then a record at s->pos that runs past the filled
 * bytes took in the records after it with a damaged size, rather than the Offset being short.
 * Looks through the buffer once (s->ends_fill remembers what it found). */
int etl__stream_records_end_at_fill(struct stream *s);

/* deliver.c */
/* The most the trace's decompressed buffers can take in a keep (walk/keep.h). */
uint64_t etl__trace_kept_need(const struct trace *t);
/* Attaches to the stream's event the stack records that follow it, and leaves the rest of its
 * stack (from the trace's stack index) to be completed when it is first asked for. */
void etl__reader_attach_stacks(struct etl_reader *r, struct stream *s);
/* The trace's stack index with its image and method histories, read the first time it is asked
 * for (by any thread; it does not change after). */
const struct etl_stacks *etl__reader_stack_index(struct etl_reader *r, struct trace *t);
/* Takes note of what a delivered (or, before a time window, skipped) event tells about later
 * ones: in-trace metadata, processes, threads, images.  keep: the event itself when this reader
 * delivers it (it keeps what its tables learnt from it, for copies), else NULL. */
void etl__reader_observe_event(struct etl_reader *r, const struct etl_event *ev, struct etl_event *keep);

#endif
