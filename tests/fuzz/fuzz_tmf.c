/*
 * fuzz_tmf - TMF parsing and WPP message rendering: the first two bytes give
 * the length of the TMF text, the text follows, the rest is a WPP payload
 * decoded and rendered against every message the text defines (at most 8),
 * at the pointer size the first byte's low bit picks.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "schema/schema.h"
#include "tmf/tmf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmf_db *db;
	void *scratch = NULL;
	struct etl_diag d;
	size_t tlen, i, done = 0;
	unsigned ptr;

	if (size < 2)
		return 0;
	tlen = (size_t)data[0] | (size_t)data[1] << 8;
	if (tlen > size - 2)
		tlen = size - 2;
	ptr = (data[0] & 1) ? 4 : 8;
	db = etl__tmf_new();
	if (!db)
		return 0;
	d.code = ETL_OK;
	(void)etl__tmf_parse(db, (const char *)data + 2, tlen, "fuzz.tmf", &d);
	for (i = 0; i < etl__tmf_slots(db) && done < 8; i++) {
		const struct tmf_msg *m = etl__tmf_slot(db, i);
		struct etl_decoded out;
		size_t k;
		if (!m)
			continue;
		done++;
		memset(&out, 0, sizeof(out));
		out.max_nodes = 1u << 16;
		if (etl__schema_decode(&out, &m->schema, data + 2 + tlen, size - 2 - tlen, ptr, &d) == ETL_OK)
			(void)etl__wpp_render(&scratch, &out, m, ptr);
		for (k = 0; k < out.nnodes; k++)
			(void)etl__schema_format(&out.nodes[k], 0);
		etl__free(out.nodes);
		etl__free(out.field_values);
		etl__arena_free(&out.arena);
	}
	etl__tmf_free(db);
	etl__free(scratch);
	return 0;
}
