/*
 * decode.h - the decoder registry kept by a reader.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_DECODE_H
#define ETL_DECODE_DECODE_H

#include "schema/schema.h"
#include "decode/kernel.h"
#include "manifest/manifest.h"

#include "util/htab.h"

struct es_chunks;
struct map_entry;

struct etl_decode_state {
	struct etl_decoded out;   /* the last decoded event */
	struct etl_htab tlg;      /* TraceLogging schemas by metadata bytes (metadata.c) */
	struct etl_htab tei;      /* merge-time TRACE_EVENT_INFO by (input, provider, id, version) */
	struct map_entry *maps;   /* merge-time maps, in the order they came (owned) */
	size_t map_count, map_cap;
	struct etl_htab map_index; /* the newest of them by (input, provider, name) (metadata.c) */
	uint64_t metadata_rejected;
	struct etl_manifest_db *manifests;   /* loaded by the caller */
	const struct etl_manifest_db *shared; /* a set shared with other readers (not owned), or NULL */
	struct etl_manifest_db *eventsource; /* manifests logged inside the traces */
	/* where input `trace`'s EventSource manifests are parsed once for all its readers, or NULL
	 * (set by the reader: ctx is it) */
	struct etl_mdoc_cache *(*es_cache)(void *ctx, int trace);
	void *es_cache_ctx;
	struct etl_manifest_db *lazy;        /* files of manifest folders, parsed on first use */
	int no_builtin;                      /* the built-in descriptions are not used (an option) */
	struct etl_htab builtin_seen;        /* their databases met so far, by GUID (mlookup.c) */
	struct etl_htab lazy_tried;          /* which of those files were parsed, and why one failed */
	unsigned lazy_warnings;              /* problems found in them */
	struct es_chunks *es;                /* EventSource manifests being collected */
	struct etl_htab provider_names;      /* provider names the traces give, by GUID (metadata.c) */
	size_t es_count, es_cap;
	const void *cur_mprovider;           /* map lookups for manifest decoding */
	struct etl_kernel_cache *kernel;     /* built-in layouts, built on first use */
	struct tmf_db *tmf;                  /* WPP message formats (TMF files), or NULL */
	struct tmf_db *shared_tmf;           /* those of a set shared with other readers (not owned) */
	void *wpp_scratch;                   /* where WPP messages are rendered (wppfmt.c) */
	/* the event being decoded, for map lookups */
	int cur_trace;
	struct etl_guid cur_provider;
	/* The event whose decoding `out` holds because the reader decoded it as it delivered it
	 * (a state record, for its facts: state.c), with that decoding's status and, when it is
	 * an error, its diagnostic; etl_reader_decode() gives it instead of decoding the event
	 * again.  Any other decoding, and the next event, clear it. */
	const struct etl_event *out_event;
	int out_rc;
	struct etl_diag out_diag;
};

/* Takes note of merge-time metadata records as they are delivered. */
void etl__decode_observe(struct etl_decode_state *st, const struct etl_event *ev);
/* Whether etl__decode_observe learns anything from ev (in-trace metadata). */
int etl__decode_observes(const struct etl_event *ev);

int etl__decode_event(struct etl_decode_state *st, const struct etl_event *ev,
		      const struct etl_decoded **result, struct etl_diag *d);
/* The kernel group of a kernel record (by HookId) or of a MOF-class record (by class GUID), or -1. */
int etl__decode_kernel_group(const struct etl_event *ev);
void etl__decode_state_free(struct etl_decode_state *st);

/* WPP messages with TMF files (wpp.c) */
struct tmf_msg;
int etl__decode_add_tmf(struct etl_decode_state *st, const char *path, struct etl_diag *d);
unsigned etl__decode_tmf_warnings(const struct etl_decode_state *st);

/* An event's description in the manifests given to the reader (its own, the shared set, then the
 * files of manifest folders, parsed on first use: mlookup.c); at the version, or the nearest. */
const struct etl_mevent *etl__man_find(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
				       uint8_t version);
const struct etl_mevent *etl__man_find_any(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
					   uint8_t version);
const char *etl__man_provider_name(struct etl_decode_state *st, const struct etl_guid *g);
/* The names the manifests of provider g (given, then logged in the trace) give its task `task` and
 * that task's opcode `opcode` (NULL when none defines it), with the provider's name: 1, or 0 when
 * no manifest describes g. */
int etl__man_names_by_value(struct etl_decode_state *st, const struct etl_guid *g, unsigned task, unsigned opcode,
			    const char **provider, const char **task_name, const char **opcode_name);
/* The built-in descriptions (manifest/builtin.h) of provider g: the event at that version, at
 * the nearest, the provider's name (NULL when none is built in, or they are turned off). */
const struct etl_mevent *etl__man_builtin_find(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
					       uint8_t version);
const struct etl_mevent *etl__man_builtin_find_any(struct etl_decode_state *st, const struct etl_guid *g,
						   uint16_t id, uint8_t version);
const char *etl__man_builtin_provider_name(struct etl_decode_state *st, const struct etl_guid *g);
/* For names: the given manifests' description of the event, else the built-in one; at that
 * version (any_version 0) or the nearest. */
const struct etl_mevent *etl__man_find_named(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
					     uint8_t version, int any_version);
/* Why the manifest file that declares provider g could not be parsed, or NULL. */
const char *etl__man_failure(const struct etl_decode_state *st, const struct etl_guid *g);
void etl__man_free(struct etl_decode_state *st);
/* Loads a manifest file/directory (path) or document (xml). */
int etl__decode_add_manifest(struct etl_decode_state *st, const char *path, const void *xml, size_t size,
			     const char *name, unsigned *warnings, struct etl_diag *d);

#endif
