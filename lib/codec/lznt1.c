/*
 * lznt1.c - MS-XCA LZNT1 decompression (MS-XCA section 2.5).
 *
 * The stream is a series of chunks, each with a 16-bit header: the low 12
 * bits are the chunk's size minus 3, bit 15 says whether it is compressed.
 * An uncompressed chunk holds its bytes as they are.  A compressed one is a
 * series of flag bytes, each followed by eight items (low bit first): a
 * literal byte for a 0 bit, a 16-bit copy token for a 1 bit.  A token's
 * split between back-offset and length depends on how far into the chunk's
 * output (at most 4096 bytes) it stands: 12 length bits at first, one fewer
 * each time the position passes a power of two from 16 on.
 *
 * SPDX-License-Identifier: MIT
 */
#include "codec/lznt1.h"

#define CHUNK_OUT 4096u

static int fail(size_t at, const char *msg, size_t *err_at, const char **why)
{
	*err_at = at;
	*why = msg;
	return -1;
}

/* what was written so far stays counted */
#define FAIL(at, msg) (*produced = op, fail(at, msg, err_at, why))

int etl__lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, size_t *produced,
			  size_t *err_at, const char **why)
{
	size_t ip = 0, op = 0;

	*produced = 0;
	while (in_len - ip >= 2) {
		uint16_t h = (uint16_t)(in[ip] | in[ip + 1] << 8);
		size_t csize, cend, chunk_start = op;

		if (h == 0)
			break; /* the end marker */
		csize = (size_t)(h & 0x0FFF) + 1; /* bytes after the header */
		if (csize > in_len - ip - 2)
			return FAIL(ip, "chunk runs past the end of the data");
		cend = ip + 2 + csize;
		ip += 2;
		if (!(h & 0x8000)) {
			/* stored as is */
			if (csize > out_cap - op)
				return FAIL(ip, "uncompressed chunk does not fit the output");
			for (; ip < cend; ip++)
				out[op++] = in[ip];
			*produced = op;
			continue;
		}
		while (ip < cend) {
			unsigned flags = in[ip++], bit;

			for (bit = 0; bit < 8 && ip < cend; bit++, flags >>= 1) {
				if (!(flags & 1)) {
					if (op == out_cap || op - chunk_start >= CHUNK_OUT)
						return FAIL(ip, "literal past the output or the chunk");
					out[op++] = in[ip++];
					continue;
				}
				if (cend - ip < 2)
					return FAIL(ip, "copy token cut by the chunk's end");
				{
					uint16_t t = (uint16_t)(in[ip] | in[ip + 1] << 8);
					size_t pos = op - chunk_start, i, len, back;
					unsigned len_bits = 12;

					for (i = pos - 1; pos > 0 && i >= 0x10; i >>= 1)
						len_bits--;
					len = (size_t)(t & ((1u << len_bits) - 1)) + 3;
					back = (size_t)(t >> len_bits) + 1;
					if (back > pos)
						return FAIL(ip, "copy token reaches before the chunk");
					if (len > out_cap - op || len > CHUNK_OUT - pos)
						return FAIL(ip, "copy past the output or the chunk");
					for (i = 0; i < len; i++, op++)
						out[op] = out[op - back];
					ip += 2;
				}
			}
		}
		*produced = op;
	}
	*produced = op;
	return 0;
}
