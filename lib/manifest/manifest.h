/*
 * manifest.h - instrumentation manifests (XML): providers, events,
 * templates (as schemas), maps, names and messages.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_MANIFEST_MANIFEST_H
#define ETL_MANIFEST_MANIFEST_H

#include "decode/schema.h"

struct etl_mprovider;

struct etl_mevent {
	const struct etl_mprovider *provider;
	uint16_t id;
	uint8_t version, level, opcode, channel;
	uint16_t task;
	uint64_t keywords;
	const char *task_name, *opcode_name, *level_name, *channel_name, *keywords_name;
	const char *message;              /* with %N inserts, or NULL */
	const struct etl_schema *schema;  /* NULL: the event has no template (no payload) */
};

struct etl_manifest_db;

struct etl_manifest_limits {
	size_t max_bytes;      /* largest manifest accepted */
	unsigned max_events;   /* events per database */
};

struct etl_manifest_db *etl__mdb_new(void);
void etl__mdb_free(struct etl_manifest_db *db);

/*
 * Loads every provider of an XML manifest (UTF-8 or UTF-16 with a BOM).
 * Providers already known (same GUID) are replaced.  Problems that cost
 * one event or template are counted and described in *warnings (the first
 * one in d); a document that cannot be read at all returns < 0.
 */
int etl__mdb_load_memory(struct etl_manifest_db *db, const uint8_t *xml, size_t len, const char *name,
			 unsigned *warnings, struct etl_diag *d);
/* A file, or every *.man / *.xml / *.manifest file of a directory (in name order; a file is
 * parsed when one of its providers is first needed: see etl__mdb_pending_doc). */
int etl__mdb_load_path(struct etl_manifest_db *db, const char *path, unsigned *warnings,
		       struct etl_diag *d);
/* The file of a directory, not parsed yet, that declares provider g (the last one in name
 * order), or -1; its path. */
long etl__mdb_pending_doc(const struct etl_manifest_db *db, const struct etl_guid *g);
const char *etl__mdb_pending_path(const struct etl_manifest_db *db, long doc);
/* Declares in db, as declared by file doc, the providers a manifest's text names in its
 * <provider guid=...> tags (a text scan, not a parse); how many in *found.  For folders and
 * fuzzing. */
int etl__mdb_scan(struct etl_manifest_db *db, const uint8_t *text, size_t len, long doc, unsigned *found);
/* Parses file doc of `from` into `into`, with the providers it is the declaring file of. */
int etl__mdb_load_pending(struct etl_manifest_db *into, const struct etl_manifest_db *from, long doc,
			  unsigned *warnings, struct etl_diag *d);

const struct etl_mevent *etl__mdb_find(const struct etl_manifest_db *db, const struct etl_guid *provider,
				       uint16_t id, uint8_t version);
/* The same event at the nearest version (for names, which do not change across versions). */
const struct etl_mevent *etl__mdb_find_any_version(const struct etl_manifest_db *db,
						   const struct etl_guid *provider, uint16_t id, uint8_t version);
/* The provider's name and its map of that name, for decoding. */
const char *etl__mdb_provider_name(const struct etl_mprovider *p);
const struct etl_map *etl__mdb_map(const struct etl_mprovider *p, const char *name);
size_t etl__mdb_provider_count(const struct etl_manifest_db *db);
/* A provider's name by its GUID, or NULL. */
const char *etl__mdb_provider_name_by_guid(const struct etl_manifest_db *db, const struct etl_guid *g);
/* Event i over all providers (NULL past the end); for tests and fuzzing. */
const struct etl_mevent *etl__mdb_event_at(const struct etl_manifest_db *db, size_t i);

#endif
