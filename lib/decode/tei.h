/*
 * tei.h - merge-time metadata (TRACE_EVENT_INFO, EVENT_MAP_INFO).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_TEI_H
#define ETL_DECODE_TEI_H

#include "schema/schema.h"

struct etl_tei {
	struct etl_guid provider;
	uint16_t id, task;
	uint8_t version, opcode;
	uint32_t decoding_source;
	const char *provider_name, *task_name, *opcode_name, *event_name; /* in schema.block */
	struct etl_schema schema;
};

/* The KernelTraceControl MetaData provider {bbccf6c1-6cd1-48c4-80ff-839482e37671}. */
#define ETL_METADATA_EVENTINFO 32
#define ETL_METADATA_EVENTMAPINFO 33

/* Parses a TRACE_EVENT_INFO blob (one allocation: free with etl__schema_free(&out->schema)). */
int etl__tei_parse(const uint8_t *p, size_t len, struct etl_tei *out, struct etl_diag *d);
/* Parses GUID + EVENT_MAP_INFO; *out is one allocation freed with etl__free. */
int etl__map_parse(const uint8_t *p, size_t len, struct etl_guid *provider, struct etl_map **out,
		   struct etl_diag *d);

#endif
