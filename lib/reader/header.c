/*
 * header.c - an input's header buffer and logfile header, read as tolerantly
 * as any other buffer: each field is cross-checked with the others and with
 * the data buffers after it, a damaged one is repaired from them where they
 * agree, and every repair is reported (queued for etl_reader_next()).  One
 * damaged field there must not lose the trace, nor every buffer after it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "reader/reader.h"
#include "record/record.h"
#include "util/cursor.h"

#define LOG_MODE_CIRCULAR 0x00000002u /* EVENT_TRACE_FILE_MODE_CIRCULAR: the file wraps */
#define RECORD_SIZE_AT 4              /* a system header's Size: after its 4-byte marker */

#define LOGFILE_BUFFER_SIZE_AT 0x68 /* the logfile header's BufferSize: after a 32-byte system header */
#define LOGFILE_MODE_AT 0x88        /* its LogFileMode */

/* Whether the bytes at off begin a data buffer of the trace (etl__walk_buffer_plausible); nominal:
 * the trace's buffer size. */
static int buffer_at(struct etl_reader *r, struct trace *t, uint64_t off, uint32_t nominal, int compressed)
{
	uint8_t raw[ETL_BUFFER_HEADER_SIZE + 4];
	struct etl_diag ignored;
	size_t n;

	if (off > t->src.size || t->src.size - off < ETL_BUFFER_HEADER_SIZE)
		return 0;
	n = t->src.size - off < sizeof(raw) ? (size_t)(t->src.size - off) : sizeof(raw);
	if (etl__source_read(&t->src, off, raw, n, &ignored) != ETL_OK)
		return 0;
	/* a compressed trace may hold buffers stored as they are, of the trace's size */
	return (compressed && etl__walk_buffer_plausible(raw, n, off, 0, 1, r->limits[ETL_LIMIT_BUFFER_SIZE])) ||
	       etl__walk_buffer_plausible(raw, n, off, nominal, 0, r->limits[ETL_LIMIT_BUFFER_SIZE]);
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/*
 * The header buffer's BufferSize and Offset when they cannot be right, its first record being
 * the logfile header: an Offset past BufferSize or the limit is taken as BufferSize (its records
 * are read to the buffer's end); a BufferSize too small for the logfile header, past the limit,
 * or where no buffer starts (before the file's end), gives way to where the next buffer does
 * start: the logfile header's BufferSize (in an uncompressed trace), or Offset rounded up to a
 * power of two from 512 bytes to 64 KiB (a compressed trace's header buffer is as long as its
 * records, so rounded: 512 and 1,024 bytes are seen).
 */
static void repair_sizes(struct etl_reader *r, struct trace *t, const uint8_t *raw, size_t n, struct etl_bufhdr *h)
{
	uint64_t limit = r->limits[ETL_LIMIT_BUFFER_SIZE], cand[1 + 8];
	uint32_t was = h->size, nominal = n >= LOGFILE_MODE_AT + 4 ? etl_le32(raw + LOGFILE_BUFFER_SIZE_AT) : 0;
	int compressed = n >= LOGFILE_MODE_AT + 4 && (etl_le32(raw + LOGFILE_MODE_AT) & ETL_LOG_MODE_COMPRESSED);
	struct etl_diag note;
	size_t i;

	cand[0] = compressed ? 0 : nominal; /* (a compressed trace's header buffer is not BufferSize long) */
	for (i = 1; i < 9; i++) /* Offset rounded up to 512 bytes, 1 KiB, ... 64 KiB */
		cand[i] = h->offset <= limit && compressed ? round_up(h->offset, (uint64_t)256 << i) : 0;
	if (h->size >= ETL_BUFFER_HEADER_SIZE + 8 && h->size <= limit) {
		for (i = 0; i < 9 && cand[i] != was; i++)
			;
		/* a size the other fields agree with (the next buffer may be the damaged one), one where a
		 * buffer starts, or one a file that ends within the next buffer's header cannot tell */
		if (i < 9 || (h->size <= t->src.size && h->size + ETL_BUFFER_HEADER_SIZE + 4 > t->src.size) ||
		    buffer_at(r, t, h->size, nominal, compressed))
			goto offset;
	}
	for (i = 0; i < 9; i++) {
		if (cand[i] >= ETL_BUFFER_HEADER_SIZE + 8 && cand[i] <= limit && cand[i] != was &&
		    buffer_at(r, t, cand[i], nominal, compressed)) {
			h->size = (uint32_t)cand[i];
			etl__diag_set(&note, ETL_E_FORMAT, 0,
				      "header buffer: BufferSize %u is damaged: read as %u, where the next buffer starts",
				      (unsigned)was, (unsigned)h->size);
			etl__reader_queue_diag(r, &note);
			break;
		}
	}
offset:
	if (h->offset > h->size && h->size >= ETL_BUFFER_HEADER_SIZE) {
		etl__diag_set(&note, ETL_E_FORMAT, 0x30,
			      "header buffer: Offset %u is past its BufferSize %u: its records are read to its end",
			      (unsigned)h->offset, (unsigned)h->size);
		etl__reader_queue_diag(r, &note);
		h->offset = h->size;
	}
}

/*
 * The header buffer's own header.  A trace whose first buffer header is damaged (its type or
 * flags, its sizes) but whose first record is the logfile header is still read, the damage
 * reported.
 */
int etl__reader_header_buffer(struct etl_reader *r, struct trace *t, struct etl_bufhdr *h, struct etl_diag *d)
{
	uint8_t raw[LOGFILE_MODE_AT + 4];
	size_t n = t->src.size < sizeof(raw) ? (size_t)t->src.size : sizeof(raw);
	int st = etl__source_read(&t->src, 0, raw, n, d);

	if (st != ETL_OK)
		return st;
	etl__walk_header_decode(raw, h);
	if (h->type != ETL_BUFTYPE_HEADER || (h->flags & (ETL_BUF_COMPRESSED | 0xFF80u))) {
		int type = h->type != ETL_BUFTYPE_HEADER;
		struct etl_diag note;
		if (!etl__bytes_have_logfile_header(raw, n)) {
			const char *what = etl__bytes_describe(raw, n, t->src.size);
			if (what)
				etl__diag_set(d, ETL_E_FORMAT, 0, "not a trace: %s", what);
			else if (type)
				etl__diag_set(d, ETL_E_FORMAT, 0x36, "not a trace: the first buffer has BufferType %u, not 4 (header)",
					      (unsigned)h->type);
			else
				etl__diag_set(d, ETL_E_FORMAT, 0x34, "not a trace: the header buffer has BufferFlag 0x%04x",
					      (unsigned)h->flags);
			return ETL_E_FORMAT;
		}
		etl__diag_set(&note, ETL_E_FORMAT, type ? 0x36 : 0x34,
			      "header buffer: %s %u is damaged, but the buffer starts with the logfile header: read as "
			      "the header buffer", type ? "BufferType" : "BufferFlag",
			      type ? (unsigned)h->type : (unsigned)h->flags);
		etl__reader_queue_diag(r, &note);
		h->type = ETL_BUFTYPE_HEADER;
		h->flags &= (uint16_t)(0x7Fu & ~ETL_BUF_COMPRESSED);
	}
	if (etl__bytes_have_logfile_header(raw, n))
		repair_sizes(r, t, raw, n, h);
	st = etl__walk_header_check(h, 0, r->limits[ETL_LIMIT_BUFFER_SIZE], 0, d);
	if (st != ETL_OK) {
		etl__diag_prefix(d, "not a trace: ");
		return st == ETL_E_LIMIT ? st : ETL_E_FORMAT;
	}
	return ETL_OK;
}

/*
 * The logfile header from the header buffer hb (fill bytes of records).  When its record's size
 * is damaged (too small for the record, or past the data) but the record is the logfile header
 * by its shape, it is read again as reaching the end of the buffer's data: the structure and
 * the two names that follow it do not need the size.  The record itself is still reported
 * where the header buffer's records are read.
 */
static int parse_logfile(struct etl_reader *r, struct trace *t, uint8_t *hb, size_t fill, struct etl_diag *d)
{
	size_t room = fill - ETL_BUFFER_HEADER_SIZE;
	struct etl_diag again, note;
	unsigned was;
	int st = etl__logfile_parse(hb, fill, &t->info, d);

	if (st == ETL_OK || st == ETL_E_NOMEM || !etl__bytes_have_logfile_header(hb, fill))
		return st;
	was = etl_le16(hb + ETL_BUFFER_HEADER_SIZE + RECORD_SIZE_AT);
	if (room > 0xFFF8u)
		room = 0xFFF8u;
	if (room == was)
		return st;
	hb[ETL_BUFFER_HEADER_SIZE + RECORD_SIZE_AT] = (uint8_t)room;
	hb[ETL_BUFFER_HEADER_SIZE + RECORD_SIZE_AT + 1] = (uint8_t)(room >> 8);
	etl__trace_info_clear(&t->info);
	if (etl__logfile_parse(hb, fill, &t->info, &again) != ETL_OK)
		return st; /* the first complaint: the size was not all that was wrong */
	t->info.file_size = t->src.size;
	etl__diag_set(&note, ETL_E_FORMAT, ETL_BUFFER_HEADER_SIZE + RECORD_SIZE_AT,
		      "logfile header: record size %u is damaged (%s); the header is read to the end of the buffer's "
		      "data (%zu bytes)", was, d->msg, room);
	etl__reader_queue_diag(r, &note);
	return ETL_OK;
}

/*
 * In a compressed trace the logfile header's BufferSize bounds what each buffer decompresses to
 * (its Offset).  When the first data buffer is plausible but for an Offset past it, that
 * BufferSize is the damaged one: only the buffer-size limit bounds the buffers then.
 */
static void compressed_size_check(struct etl_reader *r, struct trace *t, const struct etl_bufhdr *h)
{
	uint8_t raw[ETL_BUFFER_HEADER_SIZE];
	struct etl_bufhdr first;
	struct etl_diag note;

	if (!buffer_at(r, t, h->size, t->info.buffer_size, 1) || etl__source_read(&t->src, h->size, raw, sizeof(raw), &note) != ETL_OK)
		return;
	etl__walk_header_decode(raw, &first);
	if (!(first.flags & ETL_BUF_COMPRESSED) || first.offset <= t->info.buffer_size)
		return;
	etl__diag_set(&note, ETL_E_FORMAT, ETL_BUFFER_HEADER_SIZE,
		      "logfile header: BufferSize %u is smaller than the first buffer's %u decompressed bytes: "
		      "buffers are bounded by the buffer-size limit instead", (unsigned)t->info.buffer_size,
		      (unsigned)first.offset);
	etl__reader_queue_diag(r, &note);
	t->info.buffer_size = 0;
}

/*
 * The buffer size: the header buffer's BufferSize (where the first data buffer starts) and the
 * logfile header's (every buffer's size in an uncompressed trace) must agree.  When they do not,
 * the one the data buffers have wins - a data buffer of that size where it says the next one
 * starts - and the other is reported and repaired.  (In a compressed trace the two differ: the
 * header buffer is as long as its data.)
 */
static void cross_check_size(struct etl_reader *r, struct trace *t, struct etl_bufhdr *h)
{
	uint32_t own = h->size, logfile = t->info.buffer_size;
	struct etl_diag note;

	if (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) {
		compressed_size_check(r, t, h);
		return;
	}
	if (own == logfile)
		return;
	if (buffer_at(r, t, logfile, logfile, 0)) {
		etl__diag_set(&note, ETL_E_FORMAT, 0,
			      "header buffer: BufferSize %u differs from the logfile header's %u, which the data buffers "
			      "have: read as %u", (unsigned)own, (unsigned)logfile, (unsigned)logfile);
		h->size = logfile;
	} else if (buffer_at(r, t, own, own, 0)) {
		etl__diag_set(&note, ETL_E_FORMAT, ETL_BUFFER_HEADER_SIZE,
			      "logfile header: BufferSize %u differs from the header buffer's %u, which the data buffers "
			      "have: read as %u", (unsigned)logfile, (unsigned)own, (unsigned)own);
		t->info.buffer_size = own;
	} else if (logfile % 1024 && own % 1024 == 0) {
		/* no data buffer where either says (bytes were inserted or lost there): a session's
		 * buffers are whole KiB, so the logfile header's is the damaged one */
		etl__diag_set(&note, ETL_E_FORMAT, ETL_BUFFER_HEADER_SIZE,
			      "logfile header: BufferSize %u is not a whole number of KiB: read as the header buffer's %u",
			      (unsigned)logfile, (unsigned)own);
		t->info.buffer_size = own;
	} else {
		return;
	}
	etl__reader_queue_diag(r, &note);
}

int etl__reader_logfile_header(struct etl_reader *r, struct trace *t, struct etl_bufhdr *h, struct etl_diag *d)
{
	size_t avail = h->size, fill, short_by;
	uint8_t *hb;
	int st;

	if (avail > t->src.size)
		avail = (size_t)t->src.size;
	hb = etl__malloc(avail);
	if (!hb) {
		etl__diag_set(d, ETL_E_NOMEM, 0, "out of memory for the header buffer");
		return ETL_E_NOMEM;
	}
	st = etl__source_read(&t->src, 0, hb, avail, d);
	fill = etl__walk_header_fill(hb, h, avail, &short_by); /* reported when its records are read */
	/* the whole buffer first: a short Offset must not cut the logfile header's record (it is
	 * said when the buffer's records are read) */
	if (st == ETL_OK && etl__logfile_parse(hb, avail, &t->info, d) != ETL_OK) {
		etl__trace_info_clear(&t->info);
		t->info.file_size = t->src.size;
		st = parse_logfile(r, t, hb, fill, d);
	}
	etl__free(hb);
	if (st != ETL_OK)
		return st;
	cross_check_size(r, t, h);
	return ETL_OK;
}

/*
 * A file cut short at a buffer boundary reads as an intact shorter one: the logfile header says
 * how many buffers were written (updated when the session stops; a circular file that may have
 * wrapped holds fewer).  An uncompressed trace must be at least that many buffers long; a
 * compressed one (buffers of any size) must hold that many, unless damage already reported hid
 * some.
 */
void etl__reader_check_buffer_count(struct etl_reader *r, const struct trace *t)
{
	struct etl_diag note;
	uint64_t written = t->info.buffers_written, size = t->info.buffer_size, need = written * size;

	if ((t->info.log_file_mode & LOG_MODE_CIRCULAR) &&
	    (!t->info.maximum_file_size || need > ((uint64_t)t->info.maximum_file_size << 20)))
		return; /* it may have wrapped (MaximumFileSize: MB) */
	if (!(t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED)) {
		/* (a file that holds every buffer is not cut short: bytes were lost inside it, said
		 * where they were) */
		if (size < ETL_BUFFER_HEADER_SIZE || t->src.size >= need || t->ix.buffers + t->ix.ndup >= written)
			return;
		etl__diag_set(&note, ETL_E_TRUNCATED, t->src.size,
			      "the file ends %llu bytes short of the %llu buffers of %llu bytes the logfile header says were "
			      "written: the last %llu are missing (the file was cut short)",
			      (unsigned long long)(need - t->src.size), (unsigned long long)written,
			      (unsigned long long)size, (unsigned long long)((need - t->src.size + size - 1) / size));
	} else {
		if (written <= t->ix.buffers || t->ix.bytes_skipped)
			return;
		etl__diag_set(&note, ETL_E_TRUNCATED, t->src.size,
			      "the logfile header says %llu buffers were written, but the file holds %llu: the last %llu "
			      "are missing (the file was cut short)", (unsigned long long)written,
			      (unsigned long long)t->ix.buffers, (unsigned long long)(written - t->ix.buffers));
	}
	etl__reader_queue_diag(r, &note);
}
