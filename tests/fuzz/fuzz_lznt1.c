/*
 * fuzz_lznt1 - the MS-XCA LZNT1 decompressor: the first two bytes give the
 * output size, the rest is the chunk stream.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>

#include "codec/lznt1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t out_cap, produced, err_at;
	const char *why = NULL;
	uint8_t *out;

	if (size < 2)
		return 0;
	out_cap = (size_t)data[0] << 8 | data[1];
	out = malloc(out_cap ? out_cap : 1);
	if (!out)
		return 0;
	if (etl__lznt1_decompress(data + 2, size - 2, out, out_cap, &produced, &err_at, &why) != 0) {
		if (produced > out_cap || err_at > size - 2 || !why)
			abort();
	} else if (produced > out_cap) {
		abort();
	}
	free(out);
	return 0;
}
