/*
 * slices.h - time slices, a layer above the reader: their bounds (slices.c), the plan that lets
 * each start where it starts (plan.c), the state a plan gives one slice as bytes (slice.c), and
 * a reader given one (resume.c).  What the reader reads of them is in reader/given.h.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_SLICES_SLICES_H
#define ETL_SLICES_SLICES_H

#include "reader/given.h"
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
/* The CPU seconds the planning thread spent loading (decompressing, reading lightly) buffers for
 * plan p while it waited for the helper threads (ETL_OPTION_THREADS): work a helper could as
 * well have taken.  0 without helpers, for NULL, or where a thread's CPU time cannot be read.
 * For tests and the benchmark; not in the API. */
double etl__slices_helped_cpu(const struct etl_slices *p);
size_t etl__slices_cut(struct etl_flushed *f, size_t count, size_t n, uint64_t *bounds);

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

/* slice.c: slice i's state of plan p in this host's form, but for its records (s zeroed): the
 * header's fields and, where it skips buffers, its CPUs (s->cpus, allocated) and its records'
 * count.  0, or -1 without memory.  What etl_slices_state writes and etl_reader_set_slice_planned
 * gives a reader. */
int etl__slice_head(const struct etl_slices *p, size_t i, struct slice_state *s);

#endif
