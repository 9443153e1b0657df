/*
 * fuzz_manifest - the manifest loader: the first two bytes give the XML
 * length, the XML follows, and the rest is decoded as the payload of every
 * event the manifest defines.  The same XML goes through the scan that finds
 * the providers of a folder's files without parsing them.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "manifest/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_manifest_db *db;
	struct etl_diag d;
	unsigned warnings = 0;
	size_t xlen, i, k;

	if (size < 2)
		return 0;
	xlen = (size_t)data[0] | (size_t)data[1] << 8;
	if (xlen > size - 2)
		xlen = size - 2;
	db = etl__manifest_db_new();
	if (!db)
		return 0;
	{
		unsigned found = 0;
		(void)etl__manifest_db_scan(db, data + 2, xlen, 0, &found);
	}
	if (etl__manifest_db_load_memory(db, data + 2, xlen, "fuzz", &warnings, &d) == ETL_OK) {
		const struct etl_mevent *e;
		for (i = 0; i < 64 && (e = etl__manifest_db_event_at(db, i)) != NULL; i++) {
			struct etl_decoded out;
			if (!e->schema)
				continue;
			memset(&out, 0, sizeof(out));
			out.max_nodes = 1u << 14;
			(void)etl__schema_decode(&out, e->schema, data + 2 + xlen, size - 2 - xlen, 8, &d);
			for (k = 0; k < out.nnodes; k++)
				(void)etl__schema_format(&out.nodes[k], 0);
			etl__free(out.nodes);
			etl__free(out.field_values);
			etl__arena_free(&out.arena);
		}
	}
	etl__manifest_db_free(db);
	return 0;
}
