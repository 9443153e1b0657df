/*
 * whole.c - a gzip input inflated at once: libdeflate, where the build has it, decompresses the
 * whole member - or a zip member whose sizes are known - straight into the spool's temporary
 * file (mapped, its space reserved first), where the size it claims is at most WHOLE_RATIO times
 * its compressed bytes.
 * About three times zlib's speed, and no copy through write().  It is only a faster way to
 * the same bytes: any input it does not take whole and clean - several members, bytes after
 * the member, damage, a trailer whose length is not the data's, a size beyond the spool limit,
 * the ratio or the memory bound - comes back to the caller untouched, which then inflates it with zlib
 * (inflate.c), with zlib's diagnostics and what it recovers.
 *
 * SPDX-License-Identifier: MIT
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* fallocate */
#endif
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef ETL_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "io/inflate.h"
#include "util/crc32.h"
#include "util/cursor.h"

#define GZIP_MIN 18u /* a header of 10 bytes and a trailer of 8, around an empty block at least */
/* The most a member may claim to unpack to, over its compressed size, for this way: what a
 * trace compresses to is far below it (TraceLoggingTester 10:1), and what a damaged or hostile
 * archive claims then costs at most that much reserved space, never more than zlib's way would
 * have written for its bytes (an archive of many members each claiming the spool limit) */
#define WHOLE_RATIO 64u

int etl__inflate_whole_possible(void)
{
#if defined(ETL_HAVE_LIBDEFLATE) && defined(ETL_HAVE_FALLOCATE)
	return 1;
#else
	return 0;
#endif
}

#if defined(ETL_HAVE_LIBDEFLATE) && defined(ETL_HAVE_FALLOCATE)

/* Inflates in (n bytes: one gzip member, or raw deflate) into out (exactly want bytes); whether
 * it all went, every input byte used. */
static int inflate_all(const uint8_t *in, size_t n, int raw, uint8_t *out, size_t want)
{
	struct libdeflate_decompressor *dc = libdeflate_alloc_decompressor();
	size_t in_used = 0, got = 0;
	enum libdeflate_result r;

	if (!dc)
		return 0;
	/* (gzip: libdeflate checks the trailer's CRC-32 and length against what it produced) */
	r = raw ? libdeflate_deflate_decompress_ex(dc, in, n, out, want, &in_used, &got)
		: libdeflate_gzip_decompress_ex(dc, in, n, out, want, &in_used, &got);
	libdeflate_free_decompressor(dc);
	return r == LIBDEFLATE_SUCCESS && in_used == n && got == want;
}

/* The spool's file from its end on, want bytes long, its space reserved and mapped for writing:
 * the mapping (its length in *map_len, the member's first byte at *at), or NULL with the file as
 * it was. */
static uint8_t *map_spool(struct spool *sp, size_t want, size_t *map_len, uint8_t **at)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = ps > 0 ? (uint64_t)ps : 4096, from = sp->end - sp->end % page;
	uint64_t len = sp->end - from + want;
	void *p;

	if (len > SIZE_MAX || (sizeof(off_t) < 8 && sp->end + want > (uint64_t)INT32_MAX))
		return NULL; /* (a 32-bit system's address space or file offsets) */
	/* reserved first: a page of a mapping the file system has no room for would kill the
	 * process (SIGBUS) where write() reports it; fallocate, not posix_fallocate, which would
	 * write every block where the file system cannot reserve */
	if (fallocate(sp->file->fd, 0, (off_t)sp->end, (off_t)want) != 0) {
		(void)ftruncate(sp->file->fd, (off_t)sp->end); /* (what a failed call may have left) */
		return NULL;
	}
	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, sp->file->fd, (off_t)from);
	if (p == MAP_FAILED) {
		(void)ftruncate(sp->file->fd, (off_t)sp->end);
		return NULL;
	}
	*map_len = (size_t)len;
	*at = (uint8_t *)p + (sp->end - from);
	return p;
}

/* Inflates n bytes of src at off into want bytes at the spool's end at once: ETL_OK, or ETL_END
 * with the spool as it was.  A zip member's CRC-32 is the spool's to compute (want_crc). */
static int whole(const struct etl_source *src, uint64_t off, uint64_t n, int raw, uint64_t want, struct spool *sp)
{
	uint8_t *copy = NULL, *map, *out;
	const uint8_t *in;
	size_t map_len = 0;
	struct etl_diag ignored;
	int ok;

	if (n == 0 || n > ETL_WHOLE_INPUT_MAX || want == 0 || want > n * WHOLE_RATIO || want > sp->limit - sp->end ||
	    want > SIZE_MAX || !sp->file)
		return ETL_END;
	/* (a source in memory, or a mapped window of the temporary file, is read in place) */
	if (!src->mem && !(copy = etl__malloc((size_t)n)))
		return ETL_END;
	if (!(in = etl__source_view(src, off, (size_t)n, copy, &ignored))) {
		etl__free(copy);
		return ETL_END;
	}
	if (!(map = map_spool(sp, (size_t)want, &map_len, &out))) {
		etl__free(copy);
		return ETL_END;
	}
	ok = inflate_all(in, (size_t)n, raw, out, (size_t)want);
	if (ok && sp->want_crc)
		sp->crc = etl__crc32(0, out, (size_t)want);
	munmap(map, map_len);
	etl__free(copy);
	if (!ok) {
		(void)ftruncate(sp->file->fd, (off_t)sp->end); /* (its pages and reserved space go) */
		return ETL_END;
	}
	sp->end += want;
	return ETL_OK;
}

int etl__inflate_whole_gzip(const struct etl_source *src, struct spool *sp, uint64_t *used)
{
	uint8_t trailer[4];
	struct etl_diag ignored;

	/* (libdeflate skips a header CRC: a member whose header's differs is zlib's to say) */
	if (src->size < GZIP_MIN || etl__source_read(src, src->size - 4, trailer, 4, &ignored) != ETL_OK ||
	    etl__gzip_header_check(src, 0, src->size, &ignored) != ETL_OK ||
	    whole(src, 0, src->size, 0, etl_le32(trailer), sp) != ETL_OK) /* (the length mod 2^32) */
		return ETL_END;
	*used = src->size;
	return ETL_OK;
}

int etl__inflate_whole_raw(const struct etl_source *src, uint64_t off, uint64_t csize, uint64_t usize,
			   struct spool *sp, uint64_t *used)
{
	if (off > src->size || csize > src->size - off || whole(src, off, csize, 1, usize, sp) != ETL_OK)
		return ETL_END;
	*used = csize;
	return ETL_OK;
}

#else

int etl__inflate_whole_gzip(const struct etl_source *src, struct spool *sp, uint64_t *used)
{
	(void)src, (void)sp, (void)used;
	return ETL_END;
}

int etl__inflate_whole_raw(const struct etl_source *src, uint64_t off, uint64_t csize, uint64_t usize,
			   struct spool *sp, uint64_t *used)
{
	(void)src, (void)off, (void)csize, (void)usize, (void)sp, (void)used;
	return ETL_END;
}

#endif
