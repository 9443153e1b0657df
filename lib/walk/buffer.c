/*
 * buffer.c - WMI buffers: header decoding, plausibility, and the index.
 *
 * Layout: format reference 1.2.  The next buffer starts BufferSize bytes
 * after this one (buffers of compressed traces have odd sizes).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cursor.h"
#include "util/htab.h"
#include "walk/buffer.h"

void etl__walk_header_decode(const uint8_t *p, struct etl_bufhdr *h)
{
	uint16_t cpu_raw = etl_le16(p + 0x28);

	h->size = etl_le32(p + 0x00);
	h->saved = etl_le32(p + 0x04);
	h->ts = etl_le64(p + 0x10);
	h->seq = etl_le64(p + 0x18);
	h->logger = etl_le16(p + 0x2A);
	h->state = etl_le32(p + 0x2C);
	h->offset = etl_le32(p + 0x30);
	h->flags = etl_le16(p + 0x34);
	h->type = etl_le16(p + 0x36);
	/* Windows 8+ (flag PROC_INDEX): a 16-bit processor index.  Before that
	 * a UCHAR ProcessorNumber followed by an alignment byte (seen as 0x08). */
	h->cpu = (h->flags & ETL_BUF_PROC_INDEX) ? cpu_raw : (uint32_t)(cpu_raw & 0xFF);
}

int etl__walk_header_check(const struct etl_bufhdr *h, uint64_t off, uint64_t size_limit,
		      uint32_t nominal, struct etl_diag *d)
{
	int compressed = (h->flags & ETL_BUF_COMPRESSED) != 0;

	if (h->size < ETL_BUFFER_HEADER_SIZE) {
		etl__diag_set(d, ETL_E_FORMAT, off, "buffer header: BufferSize %u is smaller than the 72-byte header",
			      (unsigned)h->size);
		return ETL_E_FORMAT;
	}
	if (h->size > size_limit) {
		etl__diag_set(d, ETL_E_LIMIT, off, "buffer header: BufferSize %u exceeds the limit %llu",
			      (unsigned)h->size, (unsigned long long)size_limit);
		return ETL_E_LIMIT;
	}
	if (h->type > ETL_BUFTYPE_MAX) {
		etl__diag_set(d, ETL_E_FORMAT, off, "buffer header: BufferType %u is not a known type",
			      (unsigned)h->type);
		return ETL_E_FORMAT;
	}
	if (h->flags & 0xFF80u) {
		etl__diag_set(d, ETL_E_FORMAT, off, "buffer header: BufferFlag 0x%04x has unknown bits",
			      (unsigned)h->flags);
		return ETL_E_FORMAT;
	}
	if (compressed) {
		if (h->offset < ETL_BUFFER_HEADER_SIZE || h->offset > size_limit ||
		    (nominal && h->offset > nominal)) {
			etl__diag_set(d, ETL_E_FORMAT, off,
				      "compressed buffer header: uncompressed size (Offset) %u is out of range",
				      (unsigned)h->offset);
			return ETL_E_FORMAT;
		}
	} else {
		if (h->offset > h->size) {
			etl__diag_set(d, ETL_E_FORMAT, off, "buffer header: Offset %u exceeds BufferSize %u",
				      (unsigned)h->offset, (unsigned)h->size);
			return ETL_E_FORMAT;
		}
		if (nominal && h->size != nominal && h->type != ETL_BUFTYPE_HEADER) {
			etl__diag_set(d, ETL_E_FORMAT, off,
				      "buffer header: BufferSize %u differs from the trace's %u in an uncompressed trace",
				      (unsigned)h->size, (unsigned)nominal);
			return ETL_E_FORMAT;
		}
	}
	return ETL_OK;
}

static int all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* Whether each byte of w is 0x00 or 0xFF: all its bits equal, each (but a byte's lowest) the
 * one below it.  A property of the bytes, whatever the host's byte order. */
static int padding_word(uint64_t w)
{
	return ((w ^ (w << 1)) & UINT64_C(0xFEFEFEFEFEFEFEFE)) == 0;
}

size_t etl__walk_padding_start(const uint8_t *p, size_t from, size_t end)
{
	/* eight bytes at a time, then byte by byte: a partly filled 1 MiB buffer's padding walked
	 * a byte at a time was 7 % of a conversion of TraceLoggingTester */
	while (end > from && end - from >= 8) {
		uint64_t w;
		memcpy(&w, p + end - 8, 8);
		if (!padding_word(w))
			break;
		end -= 8;
	}
	while (end > from && (p[end - 1] == 0xFF || p[end - 1] == 0))
		end--;
	return end;
}

size_t etl__walk_header_fill(const uint8_t *buf, const struct etl_bufhdr *h, size_t avail, size_t *short_by)
{
	*short_by = 0;
	if (h->offset < ETL_BUFFER_HEADER_SIZE || h->offset > avail)
		return avail; /* damaged or truncated: read what is there (the caller says so) */
	*short_by = etl__walk_padding_start(buf, h->offset, avail) - h->offset;
	return *short_by ? avail : h->offset;
}

static int push(struct etl_bufindex *ix, const struct etl_bufent *e, uint64_t count_limit,
		struct etl_diag *d)
{
	if (ix->count >= count_limit) {
		etl__diag_set(d, ETL_E_LIMIT, e->off, "more than %llu buffers (buffer-count limit)",
			      (unsigned long long)count_limit);
		return ETL_E_LIMIT;
	}
	if (etl__grow(&ix->ent, &ix->cap, ix->count + 1, sizeof(*ix->ent), 64) != 0) {
		etl__diag_set(d, ETL_E_NOMEM, e->off, "out of memory for the buffer index");
		return ETL_E_NOMEM;
	}
	ix->ent[ix->count] = *e;
	ix->ent[ix->count].ordinal = (uint32_t)ix->count;
	ix->count++;
	return ETL_OK;
}

/* Whether every byte from off to the end of the source is zero. */
static int rest_is_zero(const struct etl_source *src, uint64_t off, int *zero, struct etl_diag *d)
{
	enum { WIN = 65536 };
	uint8_t *win = NULL;
	int st = ETL_OK;

	*zero = 1;
	if (!src->mem && !(win = etl__malloc(WIN))) {
		etl__diag_set(d, ETL_E_NOMEM, off, "out of memory");
		return ETL_E_NOMEM;
	}
	while (off < src->size && *zero) {
		size_t n = src->size - off > WIN ? WIN : (size_t)(src->size - off);
		const uint8_t *p = etl__source_view(src, off, n, win, d);
		if (!p) {
			st = d->code;
			break;
		}
		*zero = all_bytes(p, n, 0);
		off += n;
	}
	etl__free(win);
	return st;
}

int etl__walk_buffer_plausible(const uint8_t *p, size_t n, uint64_t off, uint32_t nominal, int compressed,
			       uint64_t size_limit)
{
	struct etl_bufhdr h;
	struct etl_diag ignored;
	uint8_t top;

	etl__walk_header_decode(p, &h);
	if (etl__walk_header_check(&h, off, size_limit, nominal, &ignored) != ETL_OK ||
	    h.type == ETL_BUFTYPE_HEADER || !!(h.flags & ETL_BUF_COMPRESSED) != !!compressed ||
	    etl_le32(p + 0x0C) != 0 /* ReferenceCount */)
		return 0;
	if (compressed || h.offset == ETL_BUFFER_HEADER_SIZE)
		return 1;
	if (n < ETL_BUFFER_HEADER_SIZE + 4)
		return 0;
	top = p[ETL_BUFFER_HEADER_SIZE + 3];
	return (top & 0xC0) == 0xC0 || (top & 0xD0) == 0x90; /* a trace header, or a message header */
}

/* Whether the bytes at p may begin a data buffer of the trace, by a look at two of its header's
 * fields: its BufferSize (the trace's, when uncompressed) and its BufferType and compressed flag.
 * What resync asks of every byte before the whole check (etl__walk_buffer_plausible). */
static int may_be_header(const uint8_t *p, uint32_t nominal, int compressed)
{
	if (p[0x37] != 0 || p[0x36] > ETL_BUFTYPE_MAX || !(p[0x34] & ETL_BUF_COMPRESSED) != !compressed)
		return 0;
	return compressed || !nominal || etl_le32(p) == nominal;
}

/* Finds the next offset >= from whose bytes decode as a plausible buffer header, at every byte -
 * not only where buffers of the trace's size would start, nor at 8-byte offsets: bytes inserted or
 * lost, however many, cost the buffer they are in, not every buffer after it.  Each byte gets a
 * look at two fields first (may_be_header), so a search costs about a memchr.  Scans a window at a
 * time.  *found is the file size if there is none. */
static int resync(const struct etl_source *src, uint64_t from, uint32_t nominal, int compressed,
		  uint64_t size_limit, uint64_t *found, struct etl_diag *d)
{
	enum { WIN = 65536, LOOK = ETL_BUFFER_HEADER_SIZE + 4 };
	uint8_t *win = NULL;
	uint64_t pos = from;
	int st = ETL_OK;

	*found = src->size;
	if (!src->mem) {
		win = etl__malloc(WIN);
		if (!win) {
			etl__diag_set(d, ETL_E_NOMEM, from, "out of memory while resynchronising");
			return ETL_E_NOMEM;
		}
	}
	while (pos < src->size && src->size - pos >= ETL_BUFFER_HEADER_SIZE) {
		size_t n = src->size - pos > WIN ? WIN : (size_t)(src->size - pos);
		const uint8_t *p = etl__source_view(src, pos, n, win, d);
		size_t i, last = n < WIN ? n - ETL_BUFFER_HEADER_SIZE : n - LOOK;

		if (!p) {
			st = d->code;
			break;
		}
		for (i = 0; i <= last; i++) {
			if (may_be_header(p + i, nominal, compressed) &&
			    etl__walk_buffer_plausible(p + i, n - i, pos + i, nominal, compressed, size_limit)) {
				*found = pos + i;
				goto out;
			}
		}
		if (n < WIN)
			break;
		pos += i; /* i is the first position not yet tried */
	}
out:
	etl__free(win);
	return st;
}

static void etl__walk_scan_init(struct etl_bufscan *sc, const struct etl_source *src, const struct etl_bufhdr *first,
		       uint32_t nominal, int compressed, uint64_t size_limit, etl_diag_fn report, void *ctx)
{
	memset(sc, 0, sizeof(*sc));
	sc->src = src;
	if (first) {
		sc->first = *first;
		sc->have_first = 1;
	}
	sc->nominal = nominal;
	sc->compressed = compressed;
	sc->size_limit = size_limit;
	sc->report = report;
	sc->ctx = ctx;
}

#define SCAN_WINDOW 32768u

void etl__walk_scan_free(struct etl_bufscan *sc)
{
	etl__free(sc->win);
	sc->win = NULL;
	sc->win_len = 0;
}

/* The header bytes at off (n <= 72) through the read-ahead window; ETL_OK or an I/O status.  The
 * window serves buffers of less than half its size (uncompressed ones of the trace's size;
 * compressed ones are stored smaller): for larger ones it would hold one header and read half the
 * file to get it. */
static int scan_read(struct etl_bufscan *sc, uint64_t off, uint8_t *raw, size_t n, struct etl_diag *d)
{
	const struct etl_source *src = sc->src;

	if (src->mem || src->size - off < SCAN_WINDOW || (!sc->compressed && sc->nominal >= SCAN_WINDOW / 2))
		return etl__source_read(src, off, raw, n, d);
	if (!(off >= sc->win_off && off + n <= sc->win_off + sc->win_len)) {
		if (!sc->win && !(sc->win = etl__malloc(SCAN_WINDOW)))
			return etl__source_read(src, off, raw, n, d);
		sc->win_len = 0;
		if (etl__source_read(src, off, sc->win, SCAN_WINDOW, d) != ETL_OK)
			return d->code;
		sc->win_off = off;
		sc->win_len = SCAN_WINDOW;
	}
	memcpy(raw, sc->win + (off - sc->win_off), n);
	return ETL_OK;
}

static void scan_report(struct etl_bufscan *sc, struct etl_diag *bad)
{
	bad->buffer_index = (int64_t)sc->count;
	if (sc->report)
		sc->report(sc->ctx, bad);
}

/* Whether compressed buffer h at off is at fault only for an Offset past the logfile header's
 * BufferSize: then it is read, as reader/header.c reads the first data buffer at opening - a
 * BufferSize short by a few bytes would cost every full buffer, a damaged Offset no more than the
 * decompressor's report of a short stream - said once, and buffers are bounded by the
 * buffer-size limit alone from there. */
static int nominal_too_small(struct etl_bufscan *sc, const struct etl_bufhdr *h, uint64_t off)
{
	struct etl_diag note, ignored;

	if (!sc->compressed || !sc->nominal || !sc->count || !(h->flags & ETL_BUF_COMPRESSED) ||
	    h->offset <= sc->nominal || etl__walk_header_check(h, off, sc->size_limit, 0, &ignored) != ETL_OK)
		return 0;
	etl__diag_set(&note, ETL_E_FORMAT, off,
		      "compressed buffer header: uncompressed size (Offset) %u is past the logfile header's BufferSize "
		      "%u (one of them is damaged): the buffer is read, and buffers are bounded by the buffer-size "
		      "limit from here",
		      (unsigned)h->offset, (unsigned)sc->nominal);
	scan_report(sc, &note);
	sc->nominal = 0;
	return 1;
}

/* A compressed buffer's BufferSize is its own (they differ): checked against where the next buffer
 * header really is.  Where the bytes at off + size are no buffer header (nor the file's end or its
 * zero tail) and one starts inside the claimed size, the size is damaged: the buffer ends there,
 * said once, and a bit flipped high costs that buffer at most, not the buffers it would cover. */
static int check_compressed_size(struct etl_bufscan *sc, struct etl_bufhdr *h, uint64_t off)
{
	const struct etl_source *src = sc->src;
	uint64_t at = off + h->size, q;
	uint8_t next[ETL_BUFFER_HEADER_SIZE + 4];
	struct etl_diag note, d;
	int zero;

	if (at == src->size || h->size <= 2u * ETL_BUFFER_HEADER_SIZE)
		return ETL_OK;
	if (at < src->size) { /* (past the file's end: looked inside it) */
		if (src->size - at < sizeof(next))
			return ETL_OK;
		if (scan_read(sc, at, next, sizeof(next), &d) != ETL_OK)
			return d.code == ETL_E_NOMEM || d.code == ETL_E_IO ? d.code : ETL_OK;
		if (etl__walk_buffer_plausible(next, sizeof(next), at, sc->nominal, 1, sc->size_limit) ||
		    (all_bytes(next, sizeof(next), 0) && rest_is_zero(src, at, &zero, &d) == ETL_OK && zero))
			return ETL_OK;
	}
	if (resync(src, off + ETL_BUFFER_HEADER_SIZE, sc->nominal, 1, sc->size_limit, &q, &d) != ETL_OK)
		return d.code;
	if (q >= at)
		return ETL_OK; /* none inside: the damage is after it (the scan resynchronises there) */
	etl__diag_set(&note, ETL_E_FORMAT, off,
		      "compressed buffer header: BufferSize %u runs past the next buffer header, at offset 0x%llx: "
		      "the buffer is read to there", (unsigned)h->size, (unsigned long long)q);
	scan_report(sc, &note);
	h->size = (uint32_t)(q - off);
	return ETL_OK;
}

/* Where to look for the next buffer header when the one at off is not one: from inside the
 * buffer before (bytes lost in it put the next header before off), but past where the last
 * search went - a header found there that led back here (a copy skipped, a buffer too short)
 * must not be found again, or the scan would go round for ever. */
static uint64_t resync_from(const struct etl_bufscan *sc, uint64_t off)
{
	uint64_t from = off + 1;

	if (sc->count > 0 && sc->last_off + ETL_BUFFER_HEADER_SIZE < off)
		from = sc->last_off + ETL_BUFFER_HEADER_SIZE;
	if (sc->resynced >= from && sc->resynced < off)
		from = sc->resynced + 1;
	return from;
}

int etl__walk_scan_next(struct etl_bufscan *sc, struct etl_bufent *e, struct etl_diag *d)
{
	uint8_t raw[ETL_BUFFER_HEADER_SIZE];
	const struct etl_source *src = sc->src;
	int st;

	while (!sc->done && sc->off < src->size) {
		struct etl_bufhdr h;
		struct etl_diag bad;
		uint64_t off = sc->off, left = src->size - off, next;

		if (left < ETL_BUFFER_HEADER_SIZE) {
			st = etl__source_read(src, off, raw, (size_t)left, d);
			if (st != ETL_OK)
				return st;
			if (!all_bytes(raw, (size_t)left, 0) && !all_bytes(raw, (size_t)left, 0xFF)) {
				etl__diag_set(&bad, ETL_E_TRUNCATED, off,
					      "%llu bytes after the last buffer are too few for a buffer header",
					      (unsigned long long)left);
				scan_report(sc, &bad);
				sc->bytes_skipped += left;
			}
			break;
		}
		st = scan_read(sc, off, raw, sizeof(raw), d);
		if (st != ETL_OK)
			return st;
		if (all_bytes(raw, sizeof(raw), 0)) {
			int zero_tail;
			st = rest_is_zero(src, off, &zero_tail, d);
			if (st != ETL_OK)
				return st;
			if (zero_tail)
				break; /* preallocated, never written space: the end of the data */
		}
		if (off == 0 && sc->have_first)
			h = sc->first; /* the header buffer, as the caller read (and repaired) it */
		else
			etl__walk_header_decode(raw, &h);
		if (sc->count > 0 && h.type == ETL_BUFTYPE_HEADER)
			h.type = 0xFFFF; /* a second header buffer is damage here */
		if (h.type == 0xFFFF ||
		    (etl__walk_header_check(&h, off, sc->size_limit, sc->count ? sc->nominal : 0, &bad) != ETL_OK &&
		     !nominal_too_small(sc, &h, off))) {
			if (h.type == 0xFFFF)
				etl__diag_set(&bad, ETL_E_FORMAT, off, "buffer header: a header buffer in the middle of the trace");
			st = resync(src, resync_from(sc, off), sc->nominal, sc->compressed, sc->size_limit, &next, d);
			if (st != ETL_OK)
				return st;
			sc->resynced = next;
			if (next < off)
				etl__diag_append(&bad, "; the next buffer starts %llu bytes before it, at offset 0x%llx (bytes "
						 "lost in the buffer before)", (unsigned long long)(off - next),
						 (unsigned long long)next);
			else
				etl__diag_append(&bad, "; skipped %llu bytes to %s at offset 0x%llx",
						 (unsigned long long)(next - off),
						 next < src->size ? "the next plausible buffer" : "the end of the file",
						 (unsigned long long)next);
			scan_report(sc, &bad);
			sc->bytes_skipped += next > off ? next - off : 0;
			sc->off = next;
			continue;
		}
		while (sc->dup_at < sc->ndup && sc->dup[sc->dup_at] < off)
			sc->dup_at++;
		if (sc->dup_at < sc->ndup && sc->dup[sc->dup_at] == off && h.size <= left) {
			sc->off = off + h.size; /* a copy of a buffer read before (dups.c): said once */
			continue;
		}
		if ((h.flags & ETL_BUF_COMPRESSED) && (st = check_compressed_size(sc, &h, off)) != ETL_OK)
			return st;
		e->off = off;
		e->seq = h.seq;
		e->cpu = h.cpu;
		e->flags = h.flags;
		e->type = h.type;
		e->avail = h.size;
		if (h.size > left) {
			etl__diag_set(&bad, ETL_E_TRUNCATED, off,
				      "buffer %llu declares %u bytes but the file ends after %llu: reading what is there",
				      (unsigned long long)sc->count, (unsigned)h.size, (unsigned long long)left);
			scan_report(sc, &bad);
			e->avail = (uint32_t)left;
		}
		e->ordinal = (uint32_t)sc->count++;
		sc->last_off = off;
		sc->off = off + e->avail;
		return ETL_OK;
	}
	sc->done = 1;
	etl__walk_scan_free(sc);
	return ETL_END;
}

/* Per-CPU order seen by the first pass: whether every CPU's sequence numbers rise in file order. */
struct cpu_seen {
	uint32_t cpu;
	uint64_t last_seq;
};

static int cpu_eq(const void *entry, const void *key)
{
	return ((const struct cpu_seen *)entry)->cpu == *(const uint32_t *)key;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Notes e's CPU; clears *in_order when its sequence number does not rise.  ETL_OK or ETL_E_NOMEM. */
static int note_cpu(struct etl_bufindex *ix, struct etl_htab *cpus, const struct etl_bufent *e, int *in_order,
		    struct etl_diag *d)
{
	uint64_t h = etl__hash_mix(e->cpu);
	struct cpu_seen *c = etl__htab_find(cpus, h, cpu_eq, &e->cpu);

	if (c) {
		if (e->seq <= c->last_seq)
			*in_order = 0;
		c->last_seq = e->seq;
		return ETL_OK;
	}
	c = etl__htab_insert(cpus, h);
	if (!c || etl__grow(&ix->cpus, &ix->cpus_cap, ix->ncpus + 1, sizeof(*ix->cpus), 8) != 0) {
		etl__diag_set(d, ETL_E_NOMEM, e->off, "out of memory for the buffer index");
		return ETL_E_NOMEM;
	}
	c->cpu = e->cpu;
	c->last_seq = e->seq;
	ix->cpus[ix->ncpus++] = e->cpu;
	return ETL_OK;
}

/* The first pass: counts the buffers, reports damage, and says whether a forward scan gives each
 * CPU's buffers in sequence order; keeps the first entry (the header buffer). */
static int first_pass(struct etl_bufindex *ix, struct etl_bufscan *sc, uint64_t count_limit, int *in_order,
		      struct etl_diag *d)
{
	struct etl_htab cpus;
	struct etl_bufent e;
	int st;

	etl__htab_init(&cpus, sizeof(struct cpu_seen));
	*in_order = 1;
	while ((st = etl__walk_scan_next(sc, &e, d)) == ETL_OK) {
		if (sc->count > count_limit) {
			etl__diag_set(d, ETL_E_LIMIT, e.off, "more than %llu buffers (buffer-count limit)",
				      (unsigned long long)count_limit);
			st = ETL_E_LIMIT;
			break;
		}
		if (e.ordinal == 0) {
			if ((st = push(ix, &e, count_limit, d)) != ETL_OK)
				break;
		} else if ((st = note_cpu(ix, &cpus, &e, in_order, d)) != ETL_OK) {
			break;
		}
	}
	etl__htab_free(&cpus);
	etl__walk_scan_free(sc);
	if (st != ETL_END)
		return st;
	if (ix->ncpus > 1)
		qsort(ix->cpus, ix->ncpus, sizeof(*ix->cpus), cmp_u32);
	ix->buffers = sc->count;
	ix->bytes_skipped = sc->bytes_skipped;
	return ETL_OK;
}

int etl__walk_index_build(struct etl_bufindex *ix, const struct etl_source *src, const struct etl_bufhdr *first,
			uint32_t nominal, int compressed, uint64_t size_limit, uint64_t count_limit,
			etl_diag_fn report, void *ctx, struct etl_diag *d)
{
	struct etl_bufscan sc;
	int st, in_order;

	etl__walk_scan_init(&sc, src, first, nominal, compressed, size_limit, report, ctx);
	st = first_pass(ix, &sc, count_limit, &in_order, d);
	if (st != ETL_OK)
		return st;
	ix->src = src;
	ix->first = sc.first;
	ix->have_first = sc.have_first;
	ix->nominal = nominal;
	ix->compressed = compressed;
	ix->size_limit = size_limit;
	ix->forward = in_order;
	if (in_order)
		return ETL_OK;
	/* out of sequence: a buffer copied in again is one way to be; the copies are passed over,
	 * and the buffers counted again without them (the damage was said in the first pass) */
	if ((st = etl__walk_find_dups(ix, count_limit, report, ctx, d)) != ETL_OK || !ix->ndup)
		return st;
	ix->count = 0;
	ix->ncpus = 0;
	etl__walk_scan_again(ix, &sc);
	if ((st = first_pass(ix, &sc, count_limit, &in_order, d)) != ETL_OK)
		return st;
	ix->forward = in_order;
	return ETL_OK;
}

int etl__walk_index_fill(struct etl_bufindex *ix, uint64_t count_limit, struct etl_diag *d)
{
	struct etl_bufscan sc;
	struct etl_bufent e;
	int st;

	if (ix->count == ix->buffers)
		return ETL_OK;
	ix->count = 0; /* the header buffer again, then the others (damage was reported by the first pass) */
	etl__walk_scan_again(ix, &sc);
	while ((st = etl__walk_scan_next(&sc, &e, d)) == ETL_OK)
		if ((st = push(ix, &e, count_limit, d)) != ETL_OK)
			break;
	etl__walk_scan_free(&sc);
	if (st != ETL_END)
		return st;
	if (ix->cap > ix->count) { /* give back the growth slack */
		struct etl_bufent *fit = etl__realloc(ix->ent, ix->count * sizeof(*fit));
		if (fit) {
			ix->ent = fit;
			ix->cap = ix->count;
		}
	}
	return ETL_OK;
}

void etl__walk_scan_again(const struct etl_bufindex *ix, struct etl_bufscan *sc)
{
	etl__walk_scan_init(sc, ix->src, ix->have_first ? &ix->first : NULL, ix->nominal, ix->compressed,
			  ix->size_limit, NULL, NULL);
	sc->dup = ix->dup;
	sc->ndup = ix->ndup;
}

long etl__walk_cpu_index(const struct etl_bufindex *ix, uint32_t cpu)
{
	size_t lo = 0, hi = ix->ncpus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->cpus[mid] == cpu)
			return (long)mid;
		if (ix->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void etl__walk_scan_seek(struct etl_bufscan *sc, uint64_t off, uint64_t ordinal)
{
	sc->off = off;
	sc->count = ordinal;
	for (sc->dup_at = 0; sc->dup_at < sc->ndup && sc->dup[sc->dup_at] < off; sc->dup_at++)
		;
}

int etl__walk_index_given(struct etl_bufindex *ix, const struct etl_source *src, const struct etl_bufhdr *first,
			  uint32_t nominal, int compressed, uint64_t size_limit, uint64_t buffers,
			  uint64_t bytes_skipped, uint32_t *cpus, size_t ncpus, struct etl_diag *d)
{
	struct etl_bufent e;

	memset(&e, 0, sizeof(e));
	e.seq = first->seq;
	e.cpu = first->cpu;
	e.flags = first->flags;
	e.type = first->type;
	e.avail = first->size > src->size ? (uint32_t)src->size : first->size;
	if (push(ix, &e, buffers + 1, d) != ETL_OK) {
		etl__free(cpus);
		return d->code;
	}
	ix->cpus = cpus;
	ix->ncpus = ix->cpus_cap = ncpus;
	ix->buffers = buffers;
	ix->bytes_skipped = bytes_skipped;
	ix->src = src;
	ix->first = *first;
	ix->have_first = 1;
	ix->nominal = nominal;
	ix->compressed = compressed;
	ix->size_limit = size_limit;
	ix->forward = 1;
	return ETL_OK;
}

const uint8_t *etl__walk_iter_bytes(const struct etl_bufiter *it, const struct etl_bufent *e)
{
	const struct etl_bufscan *sc = &it->sc;

	if (it->ix->count == it->ix->buffers || !sc->win || e->off < sc->win_off || e->avail > sc->win_len ||
	    e->off - sc->win_off > sc->win_len - e->avail)
		return NULL;
	return sc->win + (e->off - sc->win_off);
}

void etl__walk_iter_init(struct etl_bufiter *it, const struct etl_bufindex *ix)
{
	it->ix = ix;
	it->i = 0;
	if (ix->count != ix->buffers)
		etl__walk_scan_again(ix, &it->sc);
}

int etl__walk_iter_next(struct etl_bufiter *it, struct etl_bufent *e)
{
	struct etl_diag ignored;

	if (it->ix->count == it->ix->buffers) {
		if (it->i >= it->ix->count)
			return 0;
		*e = it->ix->ent[it->i++];
		return 1;
	}
	if (etl__walk_scan_next(&it->sc, e, &ignored) == ETL_OK)
		return 1;
	etl__walk_scan_free(&it->sc);
	return 0;
}

void etl__walk_iter_stop(struct etl_bufiter *it)
{
	if (it->ix->count != it->ix->buffers)
		etl__walk_scan_free(&it->sc);
}

void etl__walk_index_free(struct etl_bufindex *ix)
{
	etl__free(ix->ent);
	etl__free(ix->cpus);
	etl__free(ix->dup);
	memset(ix, 0, sizeof(*ix));
}

int etl__bytes_have_logfile_header(const uint8_t *b, size_t n)
{
	/* the first record is a system header (32- or 64-bit) with HookId 0 */
	return n >= ETL_BUFFER_HEADER_SIZE + 8 && (b[0x48 + 3] & 0xC0) == 0xC0 && (b[0x48 + 2] == 1 || b[0x48 + 2] == 2) &&
	       etl_le16(b + 0x48 + 6) == 0;
}

int etl__bytes_look_like_trace(const uint8_t *b, size_t n)
{
	struct etl_bufhdr h;

	if (n < ETL_BUFFER_HEADER_SIZE + 8)
		return 0;
	etl__walk_header_decode(b, &h);
	/* a buffer (even one whose type field is damaged) that starts with the logfile header */
	return h.size >= ETL_BUFFER_HEADER_SIZE && etl__bytes_have_logfile_header(b, n);
}
