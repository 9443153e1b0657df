/*
 * buffer.h - WMI_BUFFER_HEADER decoding and the per-trace buffer index.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_WALK_BUFFER_H
#define ETL_WALK_BUFFER_H

#include "internal.h"
#include "io/source.h"

/* BufferFlag bits */
#define ETL_BUF_FLUSH_MARKER 0x0001u
#define ETL_BUF_EVENTS_LOST 0x0002u
#define ETL_BUF_BUFFER_LOST 0x0004u
#define ETL_BUF_RTBACKUP_CORRUPT 0x0008u
#define ETL_BUF_RTBACKUP 0x0010u
#define ETL_BUF_PROC_INDEX 0x0020u
#define ETL_BUF_COMPRESSED 0x0040u
/* BufferType values */
#define ETL_BUFTYPE_HEADER 4u
#define ETL_BUFTYPE_MAX 8u

struct etl_bufhdr {
	uint32_t size;   /* bytes the buffer occupies in the file */
	uint32_t saved;  /* SavedOffset */
	uint64_t ts;     /* flush time (session clock) */
	uint64_t seq;    /* SequenceNumber */
	uint32_t cpu;    /* processor index (u16 with PROC_INDEX, else u8) */
	uint16_t logger; /* LoggerId */
	uint32_t state;
	uint32_t offset; /* filled bytes incl. the header (uncompressed size if compressed) */
	uint16_t flags;
	uint16_t type;
};

void etl__bufhdr_decode(const uint8_t *p, struct etl_bufhdr *h);

/* Checks that a decoded header is plausible.  nominal is the trace's
 * BufferSize (0 if not known yet).  Fills d and returns < 0 if not. */
int etl__bufhdr_check(const struct etl_bufhdr *h, uint64_t off, uint64_t size_limit,
		      uint32_t nominal, struct etl_diag *d);

/* The end of the records in an uncompressed buffer whose first avail bytes
 * are present: Offset if it is sane, else avail (every byte there is read: a
 * damaged Offset must not hide records). */
size_t etl__bufhdr_fill(const struct etl_bufhdr *h, size_t avail);

/* 32 bytes per buffer: the only memory that grows with the trace (see docs/PERFORMANCE.md). */
struct etl_bufent {
	uint64_t off;     /* file offset */
	uint64_t seq;
	uint32_t avail;   /* bytes present in the file (< size if truncated) */
	uint32_t cpu;
	uint32_t ordinal; /* position in file order (entries are sorted by CPU and sequence later) */
	uint16_t flags;
	uint16_t type;
};

struct etl_bufindex {
	struct etl_bufent *ent;
	size_t count, cap;
	uint64_t bytes_skipped;
};

typedef void (*etl_diag_fn)(void *ctx, const struct etl_diag *d);

/* Walks every buffer header of the source from offset 0 and records them
 * (the header buffer's as first says, when given).  Damage is reported
 * through report() and skipped by resynchronising on the next plausible
 * buffer header.  Returns ETL_OK, or a fatal status (out of memory, I/O
 * error, buffer-count limit) with d set. */
int etl__bufindex_build(struct etl_bufindex *ix, const struct etl_source *src, const struct etl_bufhdr *first,
			uint32_t nominal, int compressed, uint64_t size_limit, uint64_t count_limit,
			etl_diag_fn report, void *ctx, struct etl_diag *d);
void etl__bufindex_free(struct etl_bufindex *ix);

/* Whether bytes start like a trace: a header buffer whose first record is a system header with
 * HookId 0 (the logfile header).  For telling trace members of an archive from others. */
int etl__bytes_look_like_trace(const uint8_t *b, size_t n);
/* Whether a buffer's first record (at 0x48) is the logfile header: a system header with HookId 0. */
int etl__bytes_have_logfile_header(const uint8_t *b, size_t n);

#endif
