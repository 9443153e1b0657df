/*
 * fuzz_xpress - the MS-XCA Plain LZ77 decompressor: the first two bytes give
 * the output size, the rest is the stream.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>

#include "codec/xpress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t out_len, produced, err_at;
	const char *why;
	uint8_t *out;

	if (size < 2)
		return 0;
	out_len = (size_t)data[0] << 8 | data[1];
	out = malloc(out_len ? out_len : 1);
	if (!out)
		return 0;
	if (etl__xpress_decompress(data + 2, size - 2, out, out_len, &produced, &err_at, &why) != 0) {
		if (produced > out_len || err_at > size - 2 || !why)
			abort();
	}
	free(out);
	return 0;
}
