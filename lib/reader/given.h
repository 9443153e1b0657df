/*
 * given.h - what a reader is given to start where a time slice starts (the slices layer,
 * lib/slices, makes it: a plan and a slice's state): the plan's data it reads (the buffers it
 * kept, the records that describe something), the state as the reader takes it, and the
 * reader's side of it (given.c): taking the buffers as the state says at the opening, and
 * replaying its records in the merge.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_READER_GIVEN_H
#define ETL_READER_GIVEN_H

#include "helpers/classify.h"
#include "reader/reader.h"
#include "record/record.h"

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
	double helped_cpu;   /* CPU seconds the planning thread spent loading buffers (etl__slices_helped_cpu) */
	uint8_t *out;        /* the state made last (etl_slices_state) */
	size_t out_cap;
	size_t *state_bytes; /* k: the bytes of the records each slice's state holds, and how many */
	size_t *state_nrec;  /*    (etl__slices_weigh) */
	uint64_t *records;   /* k: each slice's records, each buffer's spread over its time (plan.c,
				plan_records; NULL: without memory) */
};

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

/* At the opening of input t (its header buffer h read): takes its buffers as the state says
 * instead of indexing them, when the state is t's: 1 taken, 0 not the state's input (indexed as
 * usual), < 0 with d set (the state was made of another file). */
int etl__slice_install(struct etl_reader *r, struct trace *t, const struct etl_bufhdr *h, struct etl_diag *d);

#endif
