/*
 * xpress.c - MS-XCA Plain LZ77 decompression ([MS-XCA] section 2.4).
 *
 * The stream is 32-bit flag words (read most significant bit first); a 0
 * bit is a literal byte, a 1 bit a 16-bit match token (distance - 1 in bits
 * 3..15, length - 3 in bits 0..2) whose length may be extended by a shared
 * nibble, a byte, a 16-bit and a 32-bit value.  Every read is checked
 * against the input, every copy against the output and its history.
 *
 * SPDX-License-Identifier: MIT
 */
#include "codec/xpress.h"
#include "util/cursor.h"

#define FAIL(msg)                    \
	do {                         \
		*err_at = ip;        \
		*why = (msg);        \
		*produced = op;      \
		return -1;           \
	} while (0)

int etl__xpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			   size_t *produced, size_t *err_at, const char **why)
{
	size_t ip = 0, op = 0, half = 0; /* half: position of a pending shared nibble, 0 = none */
	uint32_t flags = 0;
	unsigned nflags = 0;

	for (;;) {
		if (nflags == 0) {
			if (op == out_len)
				break; /* full; trailing flag words may follow */
			if (in_len - ip < 4)
				FAIL("flag word runs past the input");
			flags = etl_le32(in + ip);
			ip += 4;
			nflags = 32;
		}
		nflags--;
		if (!(flags >> nflags & 1)) {
			if (ip == in_len || op == out_len)
				break;
			out[op++] = in[ip++];
			continue;
		}
		{
			size_t len, dist;
			uint32_t tok;

			if (ip == in_len)
				break; /* the end of the stream */
			if (in_len - ip < 2)
				FAIL("match token runs past the input");
			tok = etl_le16(in + ip);
			ip += 2;
			len = tok & 7;
			dist = (size_t)(tok >> 3) + 1;
			if (len == 7) {
				if (half == 0) {
					if (ip == in_len)
						FAIL("length nibble runs past the input");
					len = in[ip] & 15;
					half = ip++;
				} else {
					len = in[half] >> 4;
					half = 0;
				}
				if (len == 15) {
					if (ip == in_len)
						FAIL("length byte runs past the input");
					len = in[ip++];
					if (len == 255) {
						if (in_len - ip < 2)
							FAIL("16-bit length runs past the input");
						len = etl_le16(in + ip);
						ip += 2;
						if (len == 0) {
							if (in_len - ip < 4)
								FAIL("32-bit length runs past the input");
							len = etl_le32(in + ip);
							ip += 4;
						}
						if (len < 15 + 7)
							FAIL("extended match length is too small");
						len -= 15 + 7;
					}
					len += 15;
				}
				len += 7;
			}
			len += 3;
			if (dist > op)
				FAIL("match distance reaches before the start of the output");
			if (len > out_len - op)
				FAIL("match runs past the declared uncompressed size");
			/* Overlapping copies are the point (runs); copy byte by byte
			 * when they overlap, in blocks otherwise. */
			if (dist >= len) {
				memcpy(out + op, out + op - dist, len);
				op += len;
			} else {
				size_t i;
				for (i = 0; i < len; i++, op++)
					out[op] = out[op - dist];
			}
		}
	}
	*produced = op;
	if (op != out_len) {
		*err_at = ip;
		*why = "stream ended before the declared uncompressed size";
		return -1;
	}
	return 0;
}
