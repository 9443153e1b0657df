/*
 * load.c - loading one buffer (see load.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "codec/xpress.h"
#include "walk/load.h"

void etl__walk_load_init(struct etl_bufload *l, const struct etl_source *src, int trace_compressed,
		       uint32_t compression_format)
{
	memset(l, 0, sizeof(*l));
	l->src = src;
	l->trace_compressed = trace_compressed;
	l->compression_format = compression_format;
}

void etl__walk_load_free(struct etl_bufload *l)
{
	etl__free(l->mem);
	etl__free(l->dmem);
	l->mem = l->dmem = NULL;
	l->mem_cap = l->dmem_cap = 0;
	l->data = NULL;
}

static int reserve(uint8_t **p, size_t *cap, size_t n, uint64_t off, struct etl_diag *d)
{
	uint8_t *q;

	if (*cap >= n)
		return ETL_OK;
	q = etl__realloc(*p, n);
	if (!q) {
		etl__diag_set(d, ETL_E_NOMEM, off, "out of memory for a %zu-byte buffer", n);
		return ETL_E_NOMEM;
	}
	*p = q;
	*cap = n;
	return ETL_OK;
}

/* Decompresses the raw buffer (header + XPRESS stream) into l->into when it fits there, else
 * into l->dmem. */
static int decompress(struct etl_bufload *l, const struct etl_bufent *e, const uint8_t *raw,
		      const struct etl_bufhdr *h, struct etl_diag *d)
{
	/* bufhdr_check guaranteed 0x48 <= Offset <= the buffer-size limit */
	size_t out_len = h->offset, produced = 0, err_at = 0;
	const char *why = NULL;
	uint8_t *out = l->into;

	if (!out || out_len > l->into_cap) {
		int st = reserve(&l->dmem, &l->dmem_cap, out_len, e->off, d);
		if (st != ETL_OK)
			return st;
		out = l->dmem;
	}
	memcpy(out, raw, ETL_BUFFER_HEADER_SIZE);
	l->data = out;
	if (etl__xpress_decompress(raw + ETL_BUFFER_HEADER_SIZE, e->avail - ETL_BUFFER_HEADER_SIZE,
				   out + ETL_BUFFER_HEADER_SIZE, out_len - ETL_BUFFER_HEADER_SIZE, &produced,
				   &err_at, &why) != 0) {
		l->fill = ETL_BUFFER_HEADER_SIZE + produced;
		etl__diag_set(d, ETL_E_FORMAT, e->off + ETL_BUFFER_HEADER_SIZE + err_at,
			      "compressed buffer: %s (%zu of %zu bytes recovered)", why, produced,
			      out_len - ETL_BUFFER_HEADER_SIZE);
		return ETL_E_FORMAT;
	}
	l->fill = out_len;
	return ETL_OK;
}

int etl__walk_load(struct etl_bufload *l, const struct etl_bufent *e, struct etl_diag *d)
{
	const uint8_t *raw;
	int st;

	l->data = NULL;
	l->fill = 0;
	l->compressed = 0;
	l->flags = 0;
	if (!l->src->mem && (st = reserve(&l->mem, &l->mem_cap, e->avail, e->off, d)) != ETL_OK)
		return st;
	raw = etl__source_view(l->src, e->off, e->avail, l->mem, d);
	if (!raw)
		return d->code;
	return etl__walk_load_raw(l, e, raw, d);
}

int etl__walk_load_raw(struct etl_bufload *l, const struct etl_bufent *e, const uint8_t *raw, struct etl_diag *d)
{
	struct etl_bufhdr h;

	l->data = NULL;
	l->fill = 0;
	l->compressed = 0;
	etl__walk_header_decode(raw, &h);
	l->flags = e->flags; /* as the index has them (the header buffer's may have been repaired) */
	if (!(e->flags & ETL_BUF_COMPRESSED)) {
		size_t short_by;
		l->data = raw;
		l->fill = etl__walk_header_fill(raw, &h, e->avail, &short_by);
		if (h.offset < ETL_BUFFER_HEADER_SIZE) {
			etl__diag_set(d, ETL_E_FORMAT, e->off + 0x30,
				      "buffer header: Offset %u is inside the 72-byte header: records read to the buffer's end",
				      (unsigned)h.offset);
			return ETL_E_FORMAT;
		}
		if (short_by) {
			etl__diag_set(d, ETL_E_FORMAT, e->off + 0x30,
				      "buffer header: Offset %u ends the records, but %zu bytes that are not padding follow "
				      "it: records read to the buffer's end", (unsigned)h.offset, short_by);
			return ETL_E_FORMAT;
		}
		return ETL_OK;
	}
	l->compressed = 1;
	if (!l->trace_compressed || l->compression_format != ETL_COMPRESSION_XPRESS) {
		etl__diag_set(d, ETL_E_UNSUPPORTED, e->off,
			      l->trace_compressed
				      ? "compressed buffer skipped: compression format %u is not supported (only 3, XPRESS)"
				      : "compressed buffer skipped: the trace does not declare compression (format %u)",
			      (unsigned)l->compression_format);
		return ETL_E_UNSUPPORTED;
	}
	return decompress(l, e, raw, &h, d);
}
