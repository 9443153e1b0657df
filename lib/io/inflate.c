/*
 * inflate.c - a container's members unpacked: inflated (raw deflate, or gzip members one after
 * another, each checked against its trailer) or copied, into a sink - the spool (windows of one
 * temporary file, every member of an archive) or a peek at a member's first bytes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include <zlib.h>

#include "io/inflate.h"
#include "util/crc32.h"
#include "util/cursor.h"

#define CHUNK 65536u

int etl__spool_begin(struct spool *s, int want_crc, struct etl_diag *d)
{
	if (!s->file && !(s->file = etl__tempfile_new(d)))
		return d->code;
	s->start = s->end;
	s->crc = 0;
	s->want_crc = want_crc;
	return ETL_OK;
}

uint64_t etl__spool_len(const struct spool *s)
{
	return s->end - s->start;
}

int etl__spool_write(struct spool *s, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d)
{
	if (n > s->limit - s->end) {
		/* keep what fits: the trace up to the limit stays readable */
		size_t fit = (size_t)(s->limit - s->end);
		if (fit && etl__tempfile_write(s->file, p, fit, s->end, d) == ETL_OK)
			s->end += fit;
		etl__diag_set(d, ETL_E_LIMIT, at,
			      "unpacked data exceeds the spool limit of %llu bytes (the archive's size times %u, at most "
			      "the spool-size limit)", (unsigned long long)s->limit, ETL_SPOOL_RATIO);
		return ETL_E_LIMIT;
	}
	if (n && etl__tempfile_write(s->file, p, n, s->end, d) != ETL_OK)
		return ETL_E_IO;
	if (s->want_crc)
		s->crc = etl__crc32(s->crc, p, n);
	s->end += n;
	return ETL_OK;
}

/* The member written last, as a source. */
void etl__spool_finish(struct spool *s, struct etl_source *src)
{
	etl__source_open_window(src, s->file, s->start, etl__spool_len(s));
}

/* ---- inflating and copying a member ---- */

int etl__sink_spool(void *ctx, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d)
{
	return etl__spool_write(ctx, p, n, at, d);
}

int etl__sink_peek(void *ctx, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d)
{
	struct etl_peek_head *k = ctx;
	size_t take = n < sizeof(k->b) - k->n ? n : sizeof(k->b) - k->n;

	(void)at, (void)d;
	memcpy(k->b + k->n, p, take);
	k->n += take;
	return k->n == sizeof(k->b) ? ETL_END : ETL_OK;
}

int etl__sink_count(void *ctx, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d)
{
	(void)ctx, (void)p, (void)n, (void)at, (void)d;
	return ETL_OK;
}

/* One step of inflate; what it produced goes to the sink.  ETL_OK to go on, ETL_END at the end of
 * the stream (or when the sink has had enough), or an error. */
/* A gzip member's CRC-32 and length, as inflated so far (checked against its trailer here, where
 * zlib does not: etl__crc32 is the faster). */
struct member_check {
	int own;
	int ended;  /* inflate said the member ended (not the sink that it had enough) */
	uint32_t crc;
	uint64_t len;
};

static int inflate_step(z_stream *z, uint8_t *buf, int raw, etl_sink_fn sink, void *ctx, uint64_t at,
			struct member_check *mc, struct etl_diag *d)
{
	uInt had = z->avail_in;
	int zr, st;

	z->next_out = buf;
	z->avail_out = CHUNK;
	zr = inflate(z, Z_NO_FLUSH);
	if (mc->own) {
		mc->crc = etl__crc32(mc->crc, buf, CHUNK - z->avail_out);
		mc->len += CHUNK - z->avail_out;
	}
	/* keep what this call produced, even when it then failed */
	st = sink(ctx, buf, CHUNK - z->avail_out, at, d);
	if (st != ETL_OK)
		return st;
	if (zr == Z_STREAM_END) {
		mc->ended = 1;
		return ETL_END;
	}
	if ((zr != Z_OK && zr != Z_BUF_ERROR) || (zr == Z_BUF_ERROR && z->avail_in != 0)) {
		int code = zr == Z_MEM_ERROR ? ETL_E_NOMEM : ETL_E_FORMAT;
		/* where inflate stopped reading: at the damage or just past it (zlib names no bit) */
		etl__diag_set(d, code, at + (had - z->avail_in), "%s data is corrupt: %s", raw ? "deflate" : "gzip",
			      z->msg ? z->msg : "inflate failed");
		return code;
	}
	return ETL_OK;
}

/* At the end of a gzip member (its trailer's 8 bytes end at `end`): ETL_END when the trailer's
 * CRC-32 and length (mod 2^32) are those inflated, else ETL_E_FORMAT with d set as zlib says it. */
static int member_end(const struct etl_source *src, uint64_t end, struct member_check *mc, struct etl_diag *d)
{
	uint8_t trailer[8];
	int st = ETL_END;

	if (!mc->own || !mc->ended)
		return ETL_END;
	if (end < 8) { /* (inflate read a header and a trailer: cannot be) */
		etl__diag_set(d, ETL_E_FORMAT, end, "gzip member without its trailer");
		return ETL_E_FORMAT;
	}
	if (etl__source_read(src, end - 8, trailer, 8, d) != ETL_OK)
		return d->code;
	if (etl_le32(trailer) != mc->crc)
		etl__diag_set(d, st = ETL_E_FORMAT, end - 8, "gzip data is corrupt: incorrect data check");
	else if (etl_le32(trailer + 4) != (uint32_t)mc->len)
		etl__diag_set(d, st = ETL_E_FORMAT, end - 4, "gzip data is corrupt: incorrect length check");
	mc->crc = 0;
	mc->len = 0;
	mc->ended = 0;
	return st;
}

#define GZIP_FEXTRA 4u
#define GZIP_FHCRC 2u
#define GZIP_FNAME 8u
#define GZIP_FCOMMENT 16u

/* The CRC-32 of the header bytes from *pos on - n of them, or (to_zero) those up to and with the
 * first zero byte - continued into *crc, *pos moved past them: 0, or -1 where the stream ends
 * first. */
static int header_span(const struct etl_source *src, uint64_t *pos, uint64_t end, uint64_t n, int to_zero,
		       uint32_t *crc)
{
	uint8_t b[256];
	struct etl_diag ignored;
	int more = to_zero || n > 0;

	while (more) {
		size_t k = !to_zero && n < sizeof(b) ? (size_t)n : sizeof(b), z = 0;
		if (end - *pos < k)
			k = (size_t)(end - *pos);
		if (k == 0 || etl__source_read(src, *pos, b, k, &ignored) != ETL_OK)
			return -1;
		if (to_zero) {
			while (z < k && b[z])
				z++;
			more = z == k;
			k = more ? k : z + 1; /* (with its zero) */
		} else {
			more = (n -= k) > 0;
		}
		*crc = etl__crc32(*crc, b, k);
		*pos += k;
	}
	return 0;
}

int etl__gzip_header_check(const struct etl_source *src, uint64_t at, uint64_t end, struct etl_diag *d)
{
	uint8_t h[10], x[2];
	uint64_t pos = at + 10;
	uint32_t crc;
	struct etl_diag ignored;

	if (at > end || end - at < 12 || etl__source_read(src, at, h, 10, &ignored) != ETL_OK || h[0] != 0x1f ||
	    h[1] != 0x8b || !(h[3] & GZIP_FHCRC))
		return ETL_OK;
	crc = etl__crc32(0, h, 10);
	if (h[3] & GZIP_FEXTRA) {
		if (end - pos < 2 || etl__source_read(src, pos, x, 2, &ignored) != ETL_OK)
			return ETL_OK;
		pos += 2;
		crc = etl__crc32(crc, x, 2);
		if (header_span(src, &pos, end, etl_le16(x), 0, &crc) != 0)
			return ETL_OK;
	}
	if (((h[3] & GZIP_FNAME) && header_span(src, &pos, end, 0, 1, &crc) != 0) ||
	    ((h[3] & GZIP_FCOMMENT) && header_span(src, &pos, end, 0, 1, &crc) != 0) || end - pos < 2 ||
	    etl__source_read(src, pos, x, 2, &ignored) != ETL_OK || etl_le16(x) == (crc & 0xFFFFu))
		return ETL_OK;
	etl__diag_set(d, ETL_E_FORMAT, pos, "gzip data is corrupt: header crc mismatch");
	return ETL_E_FORMAT;
}

/*
 * Inflates from src at off (at most avail_in bytes) into the sink.  raw: a raw deflate stream
 * (zip); else a gzip stream, whose later members are inflated too.  *used receives the compressed
 * bytes consumed.  ETL_OK at the end of the stream or when the sink has had enough; on damage
 * < 0 with d set, the sink keeping what came before.
 */
int etl__inflate_into(const struct etl_source *src, uint64_t off, uint64_t avail_in, int raw, etl_sink_fn sink,
		      void *ctx, uint64_t *used, struct etl_diag *d)
{
	uint8_t *in = etl__malloc(CHUNK), *buf = etl__malloc(CHUNK);
	uint64_t pos = off, end = off + avail_in;
	z_stream z;
	struct member_check mc = { 0, 0, 0, 0 };
	int st = ETL_OK;

	memset(&z, 0, sizeof(z));
	if (!in || !buf || inflateInit2(&z, raw ? -15 : 15 + 16) != Z_OK) {
		etl__free(in);
		etl__free(buf);
		etl__diag_set(d, ETL_E_NOMEM, off, "out of memory for inflate");
		return ETL_E_NOMEM;
	}
#if ZLIB_VERNUM >= 0x1290
	mc.own = !raw && inflateValidate(&z, 0) == Z_OK; /* (zlib then checks no CRC: header nor data) */
#endif
	if (mc.own)
		st = etl__gzip_header_check(src, off, end, d); /* (its member not inflated, as zlib does) */
	while (st == ETL_OK) {
		uint8_t magic[2];
		uint64_t here;

		if (z.avail_in == 0) {
			size_t n = end - pos > CHUNK ? CHUNK : (size_t)(end - pos);
			if (n == 0) {
				etl__diag_set(d, st = ETL_E_TRUNCATED, pos, "%s stream ends early after %llu compressed bytes",
					      raw ? "deflate" : "gzip", (unsigned long long)(pos - off));
				break;
			}
			if ((st = etl__source_read(src, pos, in, n, d)) != ETL_OK)
				break;
			pos += n;
			z.next_in = in;
			z.avail_in = (uInt)n;
		}
		st = inflate_step(&z, buf, raw, sink, ctx, pos - z.avail_in, &mc, d);
		if (st == ETL_OK)
			continue;
		here = pos - z.avail_in;
		if (st == ETL_END && !raw)
			st = member_end(src, here, &mc, d);
		/* gzip: another member may follow (as `cat a.gz b.gz` makes) */
		if (st == ETL_END && !raw && end - here >= 2 && etl__source_read(src, here, magic, 2, d) == ETL_OK &&
		    magic[0] == 0x1f && magic[1] == 0x8b && inflateReset(&z) == Z_OK &&
		    (!mc.own || (st = etl__gzip_header_check(src, here, end, d)) == ETL_OK))
			continue;
		*used = here - off;
		if (st == ETL_END)
			st = ETL_OK;
		break;
	}
	inflateEnd(&z);
	etl__free(in);
	etl__free(buf);
	return st;
}

/* Copies n stored bytes from src at off into the sink. */
int etl__copy_into(const struct etl_source *src, uint64_t off, uint64_t n, etl_sink_fn sink, void *ctx,
		   struct etl_diag *d)
{
	uint8_t *buf = etl__malloc(CHUNK);
	int st = ETL_OK;

	if (!buf) {
		etl__diag_set(d, ETL_E_NOMEM, off, "out of memory");
		return ETL_E_NOMEM;
	}
	while (n > 0) {
		size_t k = n > CHUNK ? CHUNK : (size_t)n;
		if (off > src->size || k > src->size - off) {
			k = off < src->size ? (size_t)(src->size - off) : 0;
			if (k == 0) {
				etl__diag_set(d, ETL_E_TRUNCATED, off, "stored member ends early: %llu bytes missing",
					      (unsigned long long)n);
				st = ETL_E_TRUNCATED;
				break;
			}
		}
		st = etl__source_read(src, off, buf, k, d);
		if (st == ETL_OK)
			st = sink(ctx, buf, k, off, d);
		if (st != ETL_OK)
			break;
		off += k;
		n -= k;
	}
	etl__free(buf);
	return st == ETL_END ? ETL_OK : st;
}

