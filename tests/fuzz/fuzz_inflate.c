/*
 * fuzz_inflate - the two ways of inflating an archive's member, against each other: what
 * libdeflate inflates at once (whole.c) zlib must inflate too, to the same bytes, the same
 * length used and the same CRC-32; what it refuses leaves the spool as it was.  The first byte's
 * low bit: a gzip stream (the rest of the input), else a zip member's raw deflate data, the next
 * four bytes the size its directory would give.  (Without libdeflate, the refusals only.)
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "io/inflate.h"
#include "util/cursor.h"

#define LIMIT ((uint64_t)4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A copy of the spool's bytes (sp->end of them, at least one byte allocated). */
static uint8_t *spool_copy(struct spool *sp)
{
	struct etl_source w;
	struct etl_diag d;
	uint8_t *p = malloc(sp->end ? (size_t)sp->end : 1);

	if (!p)
		abort();
	if (sp->end) {
		etl__source_open_window(&w, sp->file, 0, sp->end);
		if (etl__source_read(&w, 0, p, (size_t)sp->end, &d) != ETL_OK)
			abort();
		etl__source_close(&w);
	}
	return p;
}

static void compare(const uint8_t *in, size_t n, int raw, uint64_t usize)
{
	struct etl_source src;
	struct spool a, b;
	struct etl_diag d;
	struct stat st;
	uint64_t used_a = 0, used_b = 0;
	uint8_t *pa, *pb;
	int whole, zst;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.limit = b.limit = LIMIT;
	if (etl__spool_begin(&a, raw, &d) != ETL_OK || etl__spool_begin(&b, raw, &d) != ETL_OK)
		goto out;
	etl__source_init(&src);
	etl__source_open_memory(&src, in, n);
	whole = raw ? etl__inflate_whole_raw(&src, 0, n, usize, &a, &used_a) : etl__inflate_whole_gzip(&src, &a, &used_a);
	if (whole != ETL_OK) {
		if (whole != ETL_END || a.end != 0 || fstat(a.file->fd, &st) != 0 || st.st_size != 0)
			abort(); /* a refusal touched the spool */
		goto out;
	}
	zst = etl__inflate_into(&src, 0, n, raw, etl__sink_spool, &b, &used_b, &d);
	if (zst != ETL_OK || used_a != used_b || a.end != b.end || (raw && (a.end != usize || a.crc != b.crc)))
		abort(); /* inflated at once what zlib does not */
	pa = spool_copy(&a);
	pb = spool_copy(&b);
	if (memcmp(pa, pb, (size_t)a.end) != 0)
		abort();
	free(pa);
	free(pb);
out:
	etl__tempfile_release(a.file);
	etl__tempfile_release(b.file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		compare(data + 1, size - 1, 0, 0);
	else if (size >= 5)
		compare(data + 5, size - 5, 1, etl_le32(data + 1));
	return 0;
}
