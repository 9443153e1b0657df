/*
 * xpress.h - MS-XCA "Plain LZ77" (XPRESS) decompression.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_CODEC_XPRESS_H
#define ETL_CODEC_XPRESS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decompresses in[0..in_len) into out[0..out_len).  Returns 0 when exactly
 * out_len bytes were produced; otherwise -1 and *err_at is the input
 * position where the stream went wrong, *why a static description.
 */
int etl__xpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			   size_t *produced, size_t *err_at, const char **why);

#endif
