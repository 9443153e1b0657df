/*
 * inflate.h - unpacking a container's members into sinks (inflate.c), for container.c.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_IO_INFLATE_H
#define ETL_IO_INFLATE_H

#include "io/container.h"

/* Where unpacked members are written: windows of one temporary file. */
struct spool {
	struct etl_tempfile *file; /* shared by every member of the archive (NULL until needed) */
	uint64_t end;              /* bytes written so far, all members */
	uint64_t limit;            /* what may be written in all */
	uint64_t start;            /* where the member being written begins */
	uint32_t crc;              /* of the member being written, where wanted */
	int want_crc;              /* zip members (etl__inflate_into checks a gzip member's own CRC-32) */
};

int etl__spool_begin(struct spool *s, int want_crc, struct etl_diag *d);
/* The bytes of the member being written. */
uint64_t etl__spool_len(const struct spool *s);
int etl__spool_write(struct spool *s, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d);
/* The member written last, as a source. */
void etl__spool_finish(struct spool *s, struct etl_source *src);

/* Where unpacked bytes go: the spool, or a peek at a member's first bytes.  A sink returns
 * ETL_OK to go on, ETL_END when it has had enough, or an error. */
typedef int (*etl_sink_fn)(void *ctx, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d);
int etl__sink_spool(void *ctx, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d);
/* A member's first ETL_CONTAINER_HEAD bytes (ctx: the head) */
struct etl_peek_head {
	uint8_t b[ETL_CONTAINER_HEAD];
	size_t n;
};

int etl__sink_peek(void *ctx, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d);
/* Nothing kept: how far a member's data goes. */
int etl__sink_count(void *ctx, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d);

/* Inflates from src at off (at most avail_in bytes) into the sink.  raw: a raw deflate stream
 * (zip); else a gzip stream, whose later members are inflated too, each checked against its
 * trailer (CRC-32 and length).  *used receives the compressed bytes consumed.  ETL_OK at the end
 * of the stream or when the sink has had enough; on damage < 0 with d set, the sink keeping what
 * came before. */
int etl__inflate_into(const struct etl_source *src, uint64_t off, uint64_t avail_in, int raw, etl_sink_fn sink,
		      void *ctx, uint64_t *used, struct etl_diag *d);
/* Checks the header CRC of the gzip member at `at` (of a stream ending at `end`) where its FLG
 * says it has one (FHCRC: the low 16 bits of the CRC-32 of the header's bytes before it), as zlib
 * does when it checks the member's data itself: ETL_E_FORMAT with d set when it differs, else
 * ETL_OK - also where the header is cut or is not one, which inflating then says. */
int etl__gzip_header_check(const struct etl_source *src, uint64_t at, uint64_t end, struct etl_diag *d);
/* The largest gzip input inflated at once (etl__inflate_whole_gzip reads it into memory). */
#define ETL_WHOLE_INPUT_MAX ((uint64_t)256 << 20)
/* Inflates the whole of src - one gzip member, up to ETL_WHOLE_INPUT_MAX bytes, which ends
 * where src does - into the spool at once (whole.c): ETL_OK with the spool holding it and *used
 * set, else ETL_END with the spool as it was: this way does not apply (the build lacks it,
 * several members, damage, sizes beyond the bounds), and etl__inflate_into is the one to use. */
int etl__inflate_whole_gzip(const struct etl_source *src, struct spool *sp, uint64_t *used);
/* The same for a zip member's raw deflate data, csize bytes of src at off that the directory
 * says inflate to usize (the spool computes their CRC-32 as etl__sink_spool does). */
int etl__inflate_whole_raw(const struct etl_source *src, uint64_t off, uint64_t csize, uint64_t usize,
			   struct spool *sp, uint64_t *used);
/* Whether this build has etl__inflate_whole_gzip's way (libdeflate, fallocate). */
int etl__inflate_whole_possible(void);
/* Copies n stored bytes from src at off into the sink. */
int etl__copy_into(const struct etl_source *src, uint64_t off, uint64_t n, etl_sink_fn sink, void *ctx,
		   struct etl_diag *d);

#endif /* ETL_IO_INFLATE_H */
