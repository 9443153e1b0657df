/*
 * metadata.h - what the traces say about their own events, kept by the
 * decoder: TraceLogging schemas (cached by their metadata bytes), merge-time
 * TRACE_EVENT_INFO and EVENT_MAP_INFO records, and .NET EventSource
 * manifests logged in the trace (collected chunk by chunk).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_METADATA_H
#define ETL_DECODE_METADATA_H

#include "decode/decode.h"
#include "decode/tei.h"

struct tlg_entry {
	uint8_t *key;               /* the metadata bytes */
	size_t key_len;
	struct etl_schema schema;
	int bad;                    /* the metadata was rejected: remember, do not reparse */
	struct etl_diag diag;
};

struct tei_entry {
	int trace;
	struct etl_tei tei;
	/* the names a manifest gives its events (sources.c, decode_tei), looked up for its first
	 * event and kept while no manifest is added or replaced (names_gen) */
	int names_known, names_by_value;
	unsigned long names_gen;
	uint16_t names_task;
	uint8_t names_opcode;
	const struct etl_mevent *names_m;
	const char *pn, *tn, *on;
};

/* The schema of TraceLogging metadata (parsed once, then cached); NULL with d set when out
 * of memory.  The entry is valid until the next lookup. */
struct tlg_entry *etl__meta_tlg_lookup(struct etl_decode_state *st, const uint8_t *meta, size_t len,
				       struct etl_diag *d);
/* The merge-time description of an event, or NULL. */
struct tei_entry *etl__meta_tei_find(struct etl_decode_state *st, int trace, const struct etl_guid *g,
				     uint16_t id, uint8_t version);
/* Map lookup for the event being decoded (st->cur_trace, st->cur_provider): resolve_map of
 * struct etl_decoded. */
const struct etl_map *etl__meta_resolve_map(const void *ctx, const char *name);
/* The name the traces give provider g (the first heard: merge-time metadata, the first chunk of an
 * EventSource manifest), or NULL. */
const char *etl__meta_provider_name(const struct etl_decode_state *st, const struct etl_guid *g);
void etl__meta_free(struct etl_decode_state *st);

#endif
