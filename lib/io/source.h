/*
 * source.h - where trace bytes come from: a file read with pread(), or
 * memory (the caller's, or a container unpacked by the library into a
 * temporary file of its own, mapped where it can be).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_IO_SOURCE_H
#define ETL_IO_SOURCE_H

#include <stdatomic.h>

#include "internal.h"

/* A temporary file several sources read windows of (the members of one archive): one descriptor
 * whatever the number of members, closed with its last source. */
struct etl_tempfile {
	int fd;
	atomic_size_t refs; /* (readers opened with etl_reader_open_same take theirs on their threads) */
};

struct etl_source {
	const uint8_t *mem; /* non-NULL: the whole trace is in memory */
	uint64_t size;
	int fd;             /* -1 if none */
	int close_fd;       /* the library opened fd and closes it */
	struct etl_tempfile *temp; /* a window [base, base + size) of a temporary file (one reference) */
	uint64_t base;
	void *map;          /* the window's pages mapped (mem points into them), or NULL */
	size_t map_len;
};

/* A new temporary file in $TMPDIR (else /tmp), already unlinked; NULL with d set. */
struct etl_tempfile *etl__tempfile_new(struct etl_diag *d);
void etl__tempfile_release(struct etl_tempfile *t);
/* Writes n bytes at off of the temporary file. */
int etl__tempfile_write(struct etl_tempfile *t, const uint8_t *p, size_t n, uint64_t off, struct etl_diag *d);
/* The window [base, base + size) of t as a source (it takes a reference); mapped where the system
 * lets it (then read in place: the file is the library's, unlinked, written before, so nothing
 * shrinks it under the mapping), else read with pread(). */
void etl__source_open_window(struct etl_source *s, struct etl_tempfile *t, uint64_t base, uint64_t size);

void etl__source_init(struct etl_source *s);
int etl__source_open_path(struct etl_source *s, const char *path, struct etl_diag *d);
/* A regular file only (a FIFO, a device or a directory is refused without blocking). */
int etl__source_open_regular(struct etl_source *s, const char *path, struct etl_diag *d);
/* A second source of what src reads (its own descriptor, or a reference to its temporary file and
 * pages of its own), which may outlive src; memory is borrowed. */
int etl__source_dup(struct etl_source *dst, const struct etl_source *src, struct etl_diag *d);
/* fd must be seekable; it is not closed. */
int etl__source_open_fd(struct etl_source *s, int fd, struct etl_diag *d);
/* Copies a non-seekable descriptor (a pipe) to an anonymous temporary file (in $TMPDIR),
 * at most limit bytes, and reads from that. */
int etl__source_spool_fd(struct etl_source *s, int fd, uint64_t limit, struct etl_diag *d);
void etl__source_open_memory(struct etl_source *s, const void *data, size_t size);
/* Reads exactly n bytes at off into dst. */
int etl__source_read(const struct etl_source *s, uint64_t off, void *dst, size_t n,
		     struct etl_diag *d);
/* Returns a pointer to n bytes at off: into memory when the source is in
 * memory, else read into scratch (which must hold n bytes).  NULL on error. */
const uint8_t *etl__source_view(const struct etl_source *s, uint64_t off, size_t n,
				uint8_t *scratch, struct etl_diag *d);
void etl__source_close(struct etl_source *s);

/* What the first n bytes of an input of size bytes look like when they are not a trace ("an
 * empty file", "an ELF executable or library", "text", ...), or NULL when they match nothing
 * known (sniff.c). */
const char *etl__bytes_describe(const uint8_t *p, size_t n, uint64_t size);

/* A whole (small) file into *out (malloc'd, one spare byte past *len), refusing one of more than
 * max bytes; messages start with "WHAT PATH:" (manifests and TMF files).  ETL_OK, or ETL_E_IO,
 * ETL_E_LIMIT, ETL_E_NOMEM with d set. */
int etl__read_file(const char *path, unsigned long max, const char *what, uint8_t **out, size_t *len,
		   struct etl_diag *d);

#endif
