/*
 * load.h - loading one buffer of the index into memory: read (or viewed in
 * place, for memory inputs), and decompressed when the logger compressed it.
 *
 * The reader's per-CPU streams and the stack-index pass each own a loader,
 * so a buffer is loaded the same way wherever it is needed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_WALK_LOAD_H
#define ETL_WALK_LOAD_H

#include "walk/buffer.h"

#define ETL_LOG_MODE_COMPRESSED 0x04000000u
#define ETL_COMPRESSION_XPRESS 3u

struct etl_bufload {
	const struct etl_source *src;
	int trace_compressed;         /* the trace declares compressed buffers */
	uint32_t compression_format;  /* as the header buffer declares it */
	uint8_t *mem, *dmem;          /* read and decompressed bytes (owned) */
	size_t mem_cap, dmem_cap;
	uint8_t *into;                /* where to decompress the next buffer instead of dmem, when it */
	size_t into_cap;              /* fits into_cap bytes (a keep's free space; not owned) */
	/* the buffer loaded last */
	const uint8_t *data;          /* header included; NULL when nothing could be loaded */
	size_t fill;                  /* end of its records */
	int compressed;               /* it was compressed */
	uint16_t flags;               /* its BufferFlag */
};

void etl__walk_load_init(struct etl_bufload *l, const struct etl_source *src, int trace_compressed,
		       uint32_t compression_format);
/*
 * Loads index entry e.  ETL_OK, or < 0 with d set: ETL_E_UNSUPPORTED (a compression the trace
 * does not declare or that is not XPRESS: nothing loaded), ETL_E_FORMAT (a corrupt compressed
 * stream: data/fill hold what decompressed before the fault), ETL_E_NOMEM, ETL_E_IO.
 */
int etl__walk_load(struct etl_bufload *l, const struct etl_bufent *e, struct etl_diag *d);
/* The same, of the buffer's e->avail bytes at raw (read already; they must stay while the buffer
 * is used, unless it was compressed). */
int etl__walk_load_raw(struct etl_bufload *l, const struct etl_bufent *e, const uint8_t *raw, struct etl_diag *d);
void etl__walk_load_free(struct etl_bufload *l);

#endif
