/*
 * lznt1.h - MS-XCA LZNT1 decompression (the chunked LZ77 of NTFS and of
 * RtlCompressBuffer; WinSAT's trace records carry their XML in it).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_CODEC_LZNT1_H
#define ETL_CODEC_LZNT1_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decompresses the chunks in in[0..in_len) into out[0..out_cap).  Stops at
 * a zero chunk header or the end of the input.  Returns 0 and *produced on
 * success; -1 when the stream is damaged or does not fit out_cap, with
 * *err_at the input position where it went wrong and *why a static
 * description (*produced then counts the bytes written before).
 */
int etl__lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced,
			  size_t *err_at, const char **why);

#endif
