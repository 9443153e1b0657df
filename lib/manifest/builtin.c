/*
 * builtin.c - the built-in provider descriptions (builtin.h): found by GUID
 * in the generated table, inflated and parsed on first use.
 *
 * One database per GUID, made under one process-wide lock by the first
 * reader that asks and read only from then on; the readers keep the pointer
 * they got (under the lock, so what the maker wrote is theirs to read).  The
 * documents are ours, generated from manifests the loader reads, but they go
 * through the same loader and its checks as any other.
 *
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <string.h>

#include <zlib.h>

#include "manifest/builtin.h"
#include "manifest/mxml.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* by entry (the first of each GUID): the database made, or why it could not be (both NULL: not
 * tried, or memory ran out) */
static struct slot {
	struct etl_manifest_db *db;
	const char *why;
} *slots;

static int guid_cmp(const struct etl_guid *a, const struct etl_guid *b)
{
	if (a->data1 != b->data1)
		return a->data1 < b->data1 ? -1 : 1;
	if (a->data2 != b->data2)
		return a->data2 < b->data2 ? -1 : 1;
	if (a->data3 != b->data3)
		return a->data3 < b->data3 ? -1 : 1;
	return memcmp(a->data4, b->data4, sizeof(a->data4));
}

long etl__builtin_first(const struct etl_guid *g)
{
	size_t lo = 0, hi = etl__builtin_provider_count;

	while (lo < hi) { /* the first entry not below g */
		size_t mid = lo + (hi - lo) / 2;
		if (guid_cmp(&etl__builtin_providers[mid].guid, g) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < etl__builtin_provider_count && guid_cmp(&etl__builtin_providers[lo].guid, g) == 0 ? (long)lo : -1;
}

/* Entry e's manifest, inflated into memory of its own (NULL without memory, or when the table's
 * bytes do not inflate to the size it says: a build fault, said in *why). */
static uint8_t *inflate_doc(const struct etl_builtin_provider *e, const char **why)
{
	uint8_t *xml = etl__malloc(e->xml_len ? e->xml_len : 1);
	uLongf len = e->xml_len;

	if (!xml)
		return NULL;
	if (uncompress(xml, &len, e->doc, e->doc_len) != Z_OK || len != e->xml_len) {
		etl__free(xml);
		*why = "the built-in description does not inflate (a damaged build)";
		return NULL;
	}
	return xml;
}

/* Loads the entries of one GUID into db, the last first so that the first is the newest (the
 * one whose events are found first). */
static int load_all(struct etl_manifest_db *db, size_t first, const char **why)
{
	size_t n = first + 1, i;

	while (n < etl__builtin_provider_count &&
	       etl_guid_equal(&etl__builtin_providers[n].guid, &etl__builtin_providers[first].guid))
		n++;
	for (i = n; i-- > first;) {
		const struct etl_builtin_provider *e = &etl__builtin_providers[i];
		struct etl_diag d;
		unsigned warnings = 0;
		uint8_t *xml = inflate_doc(e, why);
		int st;

		if (!xml)
			return *why ? ETL_E_FORMAT : ETL_E_NOMEM;
		memset(&d, 0, sizeof(d));
		st = etl__manifest_db_load_memory(db, xml, e->xml_len, etl__builtin_sources[e->source].origin,
						  &warnings, &d);
		etl__free(xml); /* (the providers keep a copy of the text they point into) */
		if (st == ETL_E_NOMEM)
			return st;
		if (st != ETL_OK) {
			*why = "the built-in description was refused (a damaged build)";
			return st;
		}
	}
	return ETL_OK;
}

const struct etl_manifest_db *etl__builtin_db(long first, const char **why)
{
	const struct etl_manifest_db *got = NULL;
	struct slot *s;

	*why = NULL;
	if (first < 0 || (size_t)first >= etl__builtin_provider_count)
		return NULL;
	pthread_mutex_lock(&lock);
	if (!slots)
		slots = etl__calloc(etl__builtin_provider_count, sizeof(*slots));
	if (slots) {
		s = &slots[first];
		if (!s->db && !s->why) {
			struct etl_manifest_db *db = etl__manifest_db_new();
			const char *w = NULL;
			int st = db ? load_all(db, (size_t)first, &w) : ETL_E_NOMEM;
			if (st == ETL_OK) {
				s->db = db;
			} else {
				etl__manifest_db_free(db);
				s->why = w; /* NULL (out of memory): tried again */
			}
		}
		got = s->db;
		*why = s->why;
	}
	pthread_mutex_unlock(&lock);
	return got;
}
