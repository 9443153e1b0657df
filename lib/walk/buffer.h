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

void etl__walk_header_decode(const uint8_t *p, struct etl_bufhdr *h);

/* Checks that a decoded header is plausible.  nominal is the trace's
 * BufferSize (0 if not known yet).  Fills d and returns < 0 if not. */
int etl__walk_header_check(const struct etl_bufhdr *h, uint64_t off, uint64_t size_limit,
		      uint32_t nominal, struct etl_diag *d);

/* The end of the records in the uncompressed buffer buf whose first avail
 * bytes are present: Offset if it is sane and only padding (0xFF or zero
 * bytes) follows it, else avail (every byte there is read: a damaged Offset
 * must not hide records).  When Offset is in range but bytes that are not
 * padding follow it, *short_by is how many (0 otherwise): the caller says so. */
/* Whether the bytes at p (off in the file; n >= 72 of them, more when there are) begin a data
 * buffer of a trace: a sane header of the trace's kind (compressed or not, of its size nominal
 * when it is uncompressed), no references, and, uncompressed, a first record that starts with a
 * record marker (format reference 1.3) unless the buffer is empty. */
int etl__walk_buffer_plausible(const uint8_t *p, size_t n, uint64_t off, uint32_t nominal, int compressed,
			       uint64_t size_limit);

/* Where the padding at the end of p[from, end) starts: past it only 0xFF (the end marker's
 * fill) or zero bytes.  Walks the padding alone, from the end. */
size_t etl__walk_padding_start(const uint8_t *p, size_t from, size_t end);

size_t etl__walk_header_fill(const uint8_t *buf, const struct etl_bufhdr *h, size_t avail, size_t *short_by);

/* A buffer of the file: 32 bytes. */
struct etl_bufent {
	uint64_t off;     /* file offset */
	uint64_t seq;
	uint32_t avail;   /* bytes present in the file (< size if truncated) */
	uint32_t cpu;
	uint32_t ordinal; /* position in file order (entries are sorted by CPU and sequence later) */
	uint16_t flags;
	uint16_t type;
};

typedef void (*etl_diag_fn)(void *ctx, const struct etl_diag *d);

/* Walks the buffer headers of a source in file order, resynchronising on the next plausible
 * header after damage (reported through report, when not NULL). */
struct etl_bufscan {
	const struct etl_source *src;
	struct etl_bufhdr first; /* the header buffer's header, as the caller read (and repaired) it */
	int have_first;
	uint32_t nominal;
	int compressed, done;
	uint64_t size_limit, off;
	uint64_t last_off;       /* where the buffer yielded last starts */
	uint64_t resynced;       /* where the last resynchronisation went (a later one starts past it) */
	uint64_t count;          /* buffers yielded: the next one's ordinal */
	uint64_t bytes_skipped;
	etl_diag_fn report;
	void *ctx;
	/* a read-ahead window for headers of file sources (one read per several buffers) */
	uint8_t *win;
	uint64_t win_off;
	size_t win_len;
	/* the offsets of buffers the file holds twice, ascending: passed over (dups.c) */
	const uint64_t *dup;
	size_t ndup, dup_at;
};

/* The next buffer (ordinal set): ETL_OK, ETL_END, or a fatal status (I/O, memory) with d set. */
int etl__walk_scan_next(struct etl_bufscan *sc, struct etl_bufent *e, struct etl_diag *d);
void etl__walk_scan_free(struct etl_bufscan *sc);

/*
 * The buffers of a trace.  The index keeps only the header buffer and the list of CPUs: the merge
 * scans the file again as it goes (in file order; or, in time order, queueing each CPU's buffers as
 * it meets them when that gives every CPU's buffers in sequence order - what Windows writes,
 * unless the log is circular), and whole-file passes scan it too: memory does not grow with the
 * file.  Only time order over an out-of-sequence file fills the index with every buffer (32 bytes
 * each, etl__walk_index_fill) for sorting.
 */
struct etl_bufindex {
	struct etl_bufent *ent; /* the header buffer; every buffer once filled */
	size_t count, cap;      /* entries in ent */
	uint64_t buffers;       /* buffers in the file */
	uint64_t bytes_skipped;
	int forward;            /* a forward scan meets every CPU's buffers in sequence order */
	uint32_t *cpus;         /* the CPUs of the data buffers, ascending */
	size_t ncpus, cpus_cap;
	/* for scanning again */
	const struct etl_source *src;
	struct etl_bufhdr first;
	int have_first, compressed;
	uint32_t nominal;
	uint64_t size_limit;
	/* the offsets of the later copies of buffers the file holds twice (the same CPU, sequence
	 * number and bytes), ascending: no scan yields them, and the counts above leave them out */
	uint64_t *dup;
	size_t ndup, ndup_cap;
};

/* dups.c: finds the buffers an out-of-sequence file holds twice (a copy of a buffer is out of
 * its CPU's sequence), says so through report, and notes them in ix->dup; with each, the
 * sequence numbers missing among the buffers around it (a copy written over a buffer loses
 * that buffer's events).  ETL_OK, or a fatal status with d set. */
int etl__walk_find_dups(struct etl_bufindex *ix, uint64_t count_limit, etl_diag_fn report, void *ctx,
			struct etl_diag *d);

/* Walks every buffer header of the source from offset 0 (the header buffer's as first says, when
 * given), reporting damage through report() and skipping it by resynchronising on the next
 * plausible buffer header; counts the buffers and notes their CPUs and order (see above).
 * Returns ETL_OK, or a fatal status (out of memory, I/O error, buffer-count limit) with d set. */
int etl__walk_index_build(struct etl_bufindex *ix, const struct etl_source *src, const struct etl_bufhdr *first,
			uint32_t nominal, int compressed, uint64_t size_limit, uint64_t count_limit,
			etl_diag_fn report, void *ctx, struct etl_diag *d);
/* An index made from what a time slice's state says of the file (reader/resume.c) instead of
 * scanning it: the header buffer's header first, the buffer count, the bytes the scan skipped,
 * and the CPUs (ascending; taken).  A forward index: the caller knows it was. */
int etl__walk_index_given(struct etl_bufindex *ix, const struct etl_source *src, const struct etl_bufhdr *first,
			  uint32_t nominal, int compressed, uint64_t size_limit, uint64_t buffers,
			  uint64_t bytes_skipped, uint32_t *cpus, size_t ncpus, struct etl_diag *d);
/* The position of CPU cpu among the index's CPUs (ascending), or -1 when the first pass did not
 * see it. */
long etl__walk_cpu_index(const struct etl_bufindex *ix, uint32_t cpu);
/* Keeps every buffer in ent (file order), scanning again; ETL_OK, or a fatal status with d set. */
int etl__walk_index_fill(struct etl_bufindex *ix, uint64_t count_limit, struct etl_diag *d);
/* A scanner over the index's file again (damage not reported a second time). */
void etl__walk_scan_again(const struct etl_bufindex *ix, struct etl_bufscan *sc);
/* Moves a scanner to the buffer at off, the ordinal-th of the file (a time slice's start). */
void etl__walk_scan_seek(struct etl_bufscan *sc, uint64_t off, uint64_t ordinal);

/* Every buffer of an index: as stored once filled, else in file order by scanning. */
struct etl_bufiter {
	const struct etl_bufindex *ix;
	size_t i;
	struct etl_bufscan sc;
};
void etl__walk_iter_init(struct etl_bufiter *it, const struct etl_bufindex *ix);
/* The bytes of buffer e (just yielded) when the scan read them with its header, else NULL. */
const uint8_t *etl__walk_iter_bytes(const struct etl_bufiter *it, const struct etl_bufent *e);
/* 1 with *e the next buffer, 0 at the end (then the iterator holds nothing). */
int etl__walk_iter_next(struct etl_bufiter *it, struct etl_bufent *e);
/* Ends an iteration before etl__walk_iter_next returned 0 (frees the scan's window). */
void etl__walk_iter_stop(struct etl_bufiter *it);
void etl__walk_index_free(struct etl_bufindex *ix);

/* Whether bytes start like a trace: a header buffer whose first record is a system header with
 * HookId 0 (the logfile header).  For telling trace members of an archive from others. */
int etl__bytes_look_like_trace(const uint8_t *b, size_t n);
/* Whether a buffer's first record (at 0x48) is the logfile header: a system header with HookId 0. */
int etl__bytes_have_logfile_header(const uint8_t *b, size_t n);

#endif
