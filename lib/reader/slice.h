/*
 * slice.h - time slices: their bounds (slices.c), the plan that lets each start where it starts
 * (plan.c), and the state a plan gives one slice, as bytes and as a reader takes it (slice.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_READER_SLICE_H
#define ETL_READER_SLICE_H

#include "reader/reader.h"
#include "record/record.h"

#define ETL_SLICES_MAX 4096

/* slices.c: a data buffer's flush time (FILETIME) and bytes */
struct etl_flushed {
	uint64_t ft;
	uint64_t bytes;
};
/* The flush time of buffer e, read from the file: 1, or 0 when it has none (the header buffer,
 * too short, unreadable). */
int etl__slices_flush_time(struct trace *t, const struct etl_bufent *e, struct etl_flushed *out);
/* Every data buffer's, into out (room for the trace's buffers); how many. */
size_t etl__slices_read_flush_times(struct trace *t, struct etl_flushed *out);
/* Whether the flush times f (count, as etl__slices_flush_time read them) are in the session's
 * clock: each within the trace's start and end (an hour after it; any time after the start
 * when the end is unknown).  A relogged trace's are FILETIMEs in a QPC trace (FORMAT-NOTES 1). */
int etl__slices_flush_times_usable(const struct trace *t, const struct etl_flushed *f, size_t count);
/* Cuts at about equal bytes (sorts f): k + 1 bounds into bounds (room for n + 1); k. */
size_t etl__slices_cut(struct etl_flushed *f, size_t count, size_t n, uint64_t *bounds);

/* plan.c: what the plan keeps of a data buffer (56 bytes) */
struct plan_buf {
	struct etl_bufent ent; /* as the scan of buffer headers found it (the slices' readers take it) */
	uint64_t last_ts;  /* its stream's last time after it */
	uint32_t j0;       /* the first slice that skips it (UINT32_MAX: none) */
	uint32_t ci;       /* its CPU's index among the trace's */
	uint32_t nrec;     /* its records (read lightly: up to where its reading stopped) */
	uint8_t clean;     /* read lightly, it gives what the reader would */
	uint8_t stack;     /* it holds stack records (etl__stacks_attach would say so) */
};

/* A record that describes something (etl_event_updates_state), from a buffer a slice may skip */
struct plan_rec {
	uint64_t ft, ts;
	uint64_t ordinal, file_offset;
	size_t at;          /* its bytes in the plan's arena */
	size_t fact_at;     /* and its fact (state/facts.h: what it tells the tables; fact_len 0: none) */
	uint32_t fact_len;
	uint32_t len, cpu, buffer_offset, ci;
	uint32_t buf;       /* its buffer, in the plan's bufs */
	uint32_t seq;       /* order of finding */
	uint16_t flags;     /* SLICE_REC_COMPRESSED */
};

/* Which records describe something (plan.c): the last class GUID's answers, by opcode (one for
 * full headers, one for instance headers) */
struct plan_classify {
	struct etl_event cls;
	int have;
	uint8_t guid[16];
	uint8_t by_opcode[32];
};

/* What a light reading asked of the record kinds it met, and the answers (plan.c, describes):
 * the planning thread's and each helper's own. */
struct plan_classes {
	struct plan_classify cls[2];
	uint32_t kernel_seen[256]; /* kernel hooks and versions asked, and the answers */
	struct etl_decode_state dec; /* scratch for the kernel kinds */
};

/* Whether the record peek pk describes (at pos of data) would update what the reader keeps
 * (etl_event_updates_state), by its header alone; k remembers the answers (classify.c). */
int etl__plan_describes(struct plan_classes *k, const uint8_t *data, size_t pos, const struct etl_peek *pk);

struct etl_slices {
	int trace;
	int skip;            /* slices may skip buffers (a trace written in order) */
	int nomem;
	uint64_t file_size, ident, buffers, bytes_skipped, start_raw;
	uint32_t *cpus;
	uint64_t *clean_last; /* by CPU: the last buffer of its first run of clean ones (UINT64_MAX: all) */
	size_t ncpus;
	size_t k;
	uint64_t *bounds;    /* k + 1 */
	struct plan_buf *bufs;
	size_t nbufs;
	struct plan_rec *recs;
	size_t nrec, rec_cap;
	uint8_t *arena;
	size_t arena_len, arena_cap;
	struct etl_decode_state dec; /* scratch for the facts of the records kept */
	struct etl_state sys;
	struct plan_classes classes; /* the planning thread's */
	double helped_cpu;   /* CPU seconds the planning thread spent loading buffers (etl_slices_helped_cpu) */
	uint8_t *out;        /* the state made last (etl_slices_state) */
	size_t out_cap;
	size_t *state_bytes; /* k: the bytes of the records each slice's state holds, and how many */
	size_t *state_nrec;  /*    (etl__slices_weigh) */
	uint64_t *records;   /* k: each slice's records, each buffer's spread over its time (plan.c,
				plan_records; NULL: without memory) */
};
/* slice.c: the records of each slice's state and their bytes, in one pass over the plan's
 * records (once plan_skips said which slices skip each buffer): 0, or -1 without memory. */
int etl__slices_weigh(struct etl_slices *p);


/* slice.c: the state's bytes (their layout: slice.c, docs/API.md) */
#define SLICE_MAGIC "ETLSLICE"
#define SLICE_VERSION 2u
#define SLICE_SUM 8u        /* the end: u32 CRC-32 of every byte before it, u32 0 (version 2) */
#define SLICE_HEAD 96u      /* the header */
#define SLICE_CPU 32u       /* a CPU's entry */
#define SLICE_REC 40u       /* a record's fields, before its bytes and its fact */
#define SLICE_SKIPS 1u      /* flags: the state skips buffers */
#define SLICE_STACKS 2u     /*        the skipped buffers hold stack records */
#define SLICE_REC_COMPRESSED 1u /* a record's flags: from a compressed buffer */

/* A record's (or a fact's) bytes with their padding to 8. */
static inline size_t slice_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}
/* What identifies an input for a state: a hash of its first bytes (with its size). */
int etl__slice_ident(const struct etl_source *src, uint64_t *ident, struct etl_diag *d);

/* A slice's state as a reader takes it (etl_reader_set_slice): a copy of the bytes, checked. */
struct slice_cpu {
	uint32_t cpu;
	uint64_t resume;   /* the ordinal of its first buffer to read (UINT64_MAX: none) */
	uint64_t last_ts;  /* its stream's last time before it */
	uint64_t clean_last; /* the last buffer of its first run of buffers read lightly as the reader
			        reads them (UINT64_MAX: all): up to it, its records go forward in time */
};
struct slice_rec {
	const uint8_t *bytes;
	const uint8_t *fact; /* its fact, of this host (NULL: none) */
	uint32_t fact_len;
	uint32_t len, cpu, buffer_offset, ci;
	uint64_t ordinal, file_offset;
	uint16_t flags;
};
struct slice_state {
	int trace, skip, stacks_seen, used;
	uint64_t from, to, file_size, ident, buffers, bytes_skipped, scan_off, scan_ordinal;
	size_t scan_at; /* with a plan: its buffer where the scan starts (the buffers found there) */
	struct slice_cpu *cpus;
	size_t ncpus;
	struct slice_rec *recs;
	size_t nrec;    /* its records */
	uint8_t *mem;   /* a copy of the bytes: the records, and their facts made of this host in place */
	/* or the records are those of a plan's slice, borrowed (etl_reader_set_slice_planned) */
	const struct etl_slices *plan;
	size_t slice;
	size_t rec_from; /* the first of them to replay: 0, or where a reader moved on to this slice
			    takes up (etl_reader_move_to_slice) */
	int in_order;       /* a slice of a plan in order (etl_slices_in_order): every buffer clean */
	uint64_t replay_to; /* and the plan's records of times before it are replayed whatever buffer
			       holds them (a moved reader's streams pass over those: its slice's start;
			       0: only those of the buffers the slice skips) */
};
void etl__slice_state_free(struct slice_state *s);
/* The record of s at *next - or, where s borrows a plan's records, the first from *next on that
 * is in s's slice's state - before end: 1 with *x set and *next past it, or 0 at the end. */
int etl__slice_next(const struct slice_state *s, size_t *next, size_t end, struct slice_rec *x);
/* Where a stream of s's records ends (etl__slice_next): its own, or the plan's it borrows. */
static inline size_t etl__slice_scan_end(const struct slice_state *s)
{
	return s->plan ? s->plan->nrec : s->nrec;
}
/* slice.c: slice i's state of plan p in this host's form, but for its records (s zeroed): the
 * header's fields and, where it skips buffers, its CPUs (s->cpus, allocated) and its records'
 * count.  0, or -1 without memory.  What etl_slices_state writes and etl_reader_set_slice_planned
 * gives a reader. */
int etl__slice_head(const struct etl_slices *p, size_t i, struct slice_state *s);
/* At the opening of input t (its header buffer h read): takes its buffers as the state says
 * instead of indexing them, when the state is t's: 1 taken, 0 not the state's input (indexed as
 * usual), < 0 with d set (the state was made of another file). */
int etl__slice_install(struct etl_reader *r, struct trace *t, const struct etl_bufhdr *h, struct etl_diag *d);

#endif
