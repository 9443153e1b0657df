/*
 * manifest.h - instrumentation manifests (XML): providers, events,
 * templates (as schemas), maps, names and messages.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_MANIFEST_MANIFEST_H
#define ETL_MANIFEST_MANIFEST_H

#include "schema/schema.h"

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

struct etl_manifest_db *etl__manifest_db_new(void);
/* A database in which a provider loaded again replaces the one before (EventSource manifests
 * logged in a trace, once by each process). */
struct etl_manifest_db *etl__manifest_db_new_replacing(void);
uint64_t etl__manifest_db_guid_hash(const struct etl_guid *g);
void etl__manifest_db_free(struct etl_manifest_db *db);

/*
 * Loads every provider of an XML manifest (UTF-8 or UTF-16 with a BOM).
 * A provider already known (same GUID) stays, behind the new one: an event
 * is looked up in the newest that has it (or the older is replaced, when
 * db->replace is set).  Problems that cost
 * one event or template are counted and described in *warnings (the first
 * one in d); a document that cannot be read at all returns < 0.
 */
int etl__manifest_db_load_memory(struct etl_manifest_db *db, const uint8_t *xml, size_t len, const char *name,
			 unsigned *warnings, struct etl_diag *d);
/* A file, or every *.man / *.xml / *.manifest file of a directory (in name order; a file is
 * parsed when one of its providers is first needed: see etl__manifest_db_pending_doc). */
int etl__manifest_db_load_path(struct etl_manifest_db *db, const char *path, unsigned *warnings,
		       struct etl_diag *d);
/* The i-th file of a directory (in name order) that declares provider g, or -1. */
long etl__manifest_db_pending_doc(const struct etl_manifest_db *db, const struct etl_guid *g, size_t i);
/* Declares in db, as declared by file doc, the providers a manifest's text names in its
 * <provider guid=...> tags (a text scan, not a parse); how many in *found.  For folders and
 * fuzzing. */
int etl__manifest_db_scan(struct etl_manifest_db *db, const uint8_t *text, size_t len, long doc, unsigned *found);
/* Parses file doc of `from` into `into`, keeping its provider g. */
int etl__manifest_db_load_pending(struct etl_manifest_db *into, const struct etl_manifest_db *from, long doc,
			  const struct etl_guid *g, unsigned *warnings, struct etl_diag *d);

/* Manifests parsed once for several readers (doccache.c): documents by their bytes, each with
 * the providers it gave and how its loading went.  Thread-safe; what it holds is read only. */
struct etl_mdoc_cache;

/* NULL without memory. */
struct etl_mdoc_cache *etl__mdoc_cache_new(void);
/* After every database that borrowed its providers. */
void etl__mdoc_cache_free(struct etl_mdoc_cache *c);
/* etl__manifest_db_load_memory(db, ...) through the cache: a document met before (the same bytes)
 * is not parsed again, db borrowing its providers (same status, warnings and first message). */
int etl__mdoc_cache_load(struct etl_mdoc_cache *c, struct etl_manifest_db *db, const uint8_t *xml, size_t len,
			 const char *name, unsigned *warnings, struct etl_diag *d);
/* The documents kept (for tests). */
size_t etl__mdoc_cache_count(struct etl_mdoc_cache *c);
/* Adds cached providers to db (borrowed), as loading their document would; for doccache.c. */
int etl__manifest_db_add_cached(struct etl_manifest_db *db, struct etl_mprovider *const *p, size_t n);

const struct etl_mevent *etl__manifest_db_find(const struct etl_manifest_db *db, const struct etl_guid *provider,
				       uint16_t id, uint8_t version);
/* The same event at the nearest version (for names, which do not change across versions). */
const struct etl_mevent *etl__manifest_db_find_any_version(const struct etl_manifest_db *db,
						   const struct etl_guid *provider, uint16_t id, uint8_t version);
/* The provider's name and its map of that name, for decoding. */
const char *etl__manifest_provider_name(const struct etl_mprovider *p);
const struct etl_map *etl__manifest_provider_map(const struct etl_mprovider *p, const char *name);
/* Grows with every provider db adds or replaces (0 for NULL): names of its providers held
 * elsewhere are valid while it stays. */
unsigned long etl__manifest_db_gen(const struct etl_manifest_db *db);
/* A provider's name by its GUID, or NULL. */
const char *etl__manifest_db_provider_name_by_guid(const struct etl_manifest_db *db, const struct etl_guid *g);
/* The names a manifest of provider g gives task `task` and its opcode `opcode` (the task's own,
 * else provider-wide; each NULL when no manifest of g defines it), with the provider's name: 1,
 * or 0 when db has no manifest of g. */
int etl__manifest_db_names_by_value(const struct etl_manifest_db *db, const struct etl_guid *g, unsigned task,
			    unsigned opcode, const char **provider, const char **task_name, const char **opcode_name);
/* Event i over all providers (NULL past the end); for tests and fuzzing. */
const struct etl_mevent *etl__manifest_db_event_at(const struct etl_manifest_db *db, size_t i);

#endif
