/*
 * fuzz_tlg - TraceLogging metadata and payload decoding: the first two bytes
 * give the metadata length, the metadata follows, the rest is the payload.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "schema/schema.h"
#include "decode/tlg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_schema s;
	struct etl_diag d;
	struct etl_decoded out;
	size_t mlen, i;

	if (size < 2)
		return 0;
	mlen = (size_t)data[0] | (size_t)data[1] << 8;
	if (mlen > size - 2)
		mlen = size - 2;
	if (etl__tlg_schema(data + 2, mlen, &s, &d) != ETL_OK)
		return 0;
	memset(&out, 0, sizeof(out));
	out.max_nodes = 1u << 16;
	(void)etl__schema_decode(&out, &s, data + 2 + mlen, size - 2 - mlen, (data[0] & 1) ? 4 : 8, &d);
	for (i = 0; i < out.nnodes; i++)
		(void)etl__schema_format(&out.nodes[i], 0);
	etl__free(out.nodes);
	etl__free(out.field_values);
	etl__arena_free(&out.arena);
	etl__schema_free(&s);
	return 0;
}
