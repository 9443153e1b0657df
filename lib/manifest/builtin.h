/*
 * builtin.h - the provider descriptions built into the library: manifests
 * of Windows and .NET providers, reduced to what decoding and naming read,
 * generated into builtin_data.c by scripts/gen-builtin-providers.py.
 *
 * A provider's documents are inflated and parsed the first time a reader
 * asks for its GUID, once per process for every reader and thread, and kept
 * until the process ends (what they cost is in docs/PERFORMANCE.md).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_MANIFEST_BUILTIN_H
#define ETL_MANIFEST_BUILTIN_H

#include "manifest/manifest.h"

/* Where built-in descriptions come from: the file's name in the shared corpus's manifests/, the
 * repository and file it came from there, and its license (SPDX). */
struct etl_builtin_source {
	const char *file, *origin, *license;
};

/* One provider of one source manifest: the GUID, the provider's name, its source (an index in
 * etl__builtin_sources), its events, and its reduced manifest, deflated (zlib format). */
struct etl_builtin_provider {
	struct etl_guid guid;
	const char *name;
	uint16_t source;
	uint16_t nevents;
	const unsigned char *doc;
	uint32_t doc_len, xml_len;
};

/* builtin_data.c: the providers in GUID order (for one GUID, the source that wins first) */
extern const struct etl_builtin_provider etl__builtin_providers[];
extern const size_t etl__builtin_provider_count;
extern const struct etl_builtin_source etl__builtin_sources[];
extern const size_t etl__builtin_source_count;

/* The first entry of GUID g in etl__builtin_providers, or -1: a lookup in a constant table, no
 * lock and no parsing. */
long etl__builtin_first(const struct etl_guid *g);

/*
 * The built-in database of GUID g (the entry at `first`, from etl__builtin_first, and those of
 * the same GUID after it, the first winning), parsed on the first call; read only, valid until
 * the process ends.  NULL when it cannot be made: memory ran out (tried again on a later call),
 * or a document was refused (never for the generated table; *why says it).  Thread-safe.
 */
const struct etl_manifest_db *etl__builtin_db(long first, const char **why);

#endif
