/*
 * mlookup.c - the manifests a decoder may take an event's description
 * from: the reader's own, then a set it shares with other readers, then the
 * files of manifest folders, which are parsed when one of the providers they
 * declare is first asked for (manifest/lazy.c scanned them).
 *
 * The files parsed on demand go into a database of the reader's own, so a
 * shared set never changes and needs no lock.  Every file that declares a
 * provider is parsed for it (in name order, so that the last one's events
 * come first and the others fill in what it lacks).  A file that cannot be
 * parsed is tried once per provider; its events stay undecoded and say why.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "decode/decode.h"
#include "manifest/builtin.h"

struct lazy_try {
	const struct etl_manifest_db *src;
	long doc;
	struct etl_guid g;
	int failed;
	char why[200];
};

static uint64_t try_hash(const struct etl_manifest_db *src, long doc, const struct etl_guid *g)
{
	return etl__hash_mix((uint64_t)(uintptr_t)src ^ (uint64_t)doc * 0x9E3779B97F4A7C15ull ^ etl__manifest_db_guid_hash(g));
}

static int try_eq(const void *entry, const void *key)
{
	const struct lazy_try *t = entry, *k = key;

	return t->src == k->src && t->doc == k->doc && etl_guid_equal(&t->g, &k->g);
}

static struct lazy_try *tried(const struct etl_decode_state *st, const struct etl_manifest_db *src, long doc,
			      const struct etl_guid *g)
{
	struct lazy_try key;

	key.src = src;
	key.doc = doc;
	key.g = *g;
	return etl__htab_find(&st->lazy_tried, try_hash(src, doc, g), try_eq, &key);
}

/* Parses file doc of src for provider g into the reader's database, once. */
static void load_once(struct etl_decode_state *st, const struct etl_manifest_db *src, long doc,
		      const struct etl_guid *g)
{
	struct lazy_try *t;
	struct etl_diag d;

	if (tried(st, src, doc, g))
		return;
	if (!st->lazy_tried.size)
		etl__htab_init(&st->lazy_tried, sizeof(struct lazy_try));
	t = etl__htab_insert(&st->lazy_tried, try_hash(src, doc, g));
	if (!t)
		return; /* out of memory: the events stay undecoded */
	t->src = src;
	t->doc = doc;
	t->g = *g;
	if (!st->lazy && !(st->lazy = etl__manifest_db_new())) {
		t->failed = 1;
		strcpy(t->why, "out of memory");
		return;
	}
	d.code = ETL_OK;
	if (etl__manifest_db_load_pending(st->lazy, src, doc, g, &st->lazy_warnings, &d) != ETL_OK) {
		t->failed = 1;
		st->lazy_warnings++; /* a file that cannot be read costs itself, as when a folder is parsed whole */
		etl_text_escape(d.msg, t->why, sizeof(t->why));
	}
}

/* The folder files that declare provider g, parsed if they were not yet: the shared set's first,
 * so that the reader's own, parsed after, come first. */
static void load_declaring(struct etl_decode_state *st, const struct etl_guid *g)
{
	const struct etl_manifest_db *src[2] = { st->shared, st->manifests };
	unsigned k;
	size_t i;
	long doc;

	for (k = 0; k < 2; k++)
		for (i = 0; (doc = etl__manifest_db_pending_doc(src[k], g, i)) >= 0; i++)
			load_once(st, src[k], doc, g);
}

typedef const struct etl_mevent *(*mdb_lookup)(const struct etl_manifest_db *db, const struct etl_guid *g,
						uint16_t id, uint8_t version);

/* The reader's manifests, then the shared set, then the folder files that declare g (parsed now
 * if they were not yet), each asked with lookup. */
static const struct etl_mevent *find_with(struct etl_decode_state *st, mdb_lookup lookup, const struct etl_guid *g,
					  uint16_t id, uint8_t version)
{
	const struct etl_mevent *m = lookup(st->manifests, g, id, version);

	if (!m)
		m = lookup(st->shared, g, id, version);
	if (!m) {
		load_declaring(st, g);
		m = lookup(st->lazy, g, id, version);
	}
	return m;
}

const struct etl_mevent *etl__man_find(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
				       uint8_t version)
{
	return find_with(st, etl__manifest_db_find, g, id, version);
}

const struct etl_mevent *etl__man_find_any(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
					   uint8_t version)
{
	return find_with(st, etl__manifest_db_find_any_version, g, id, version);
}

const char *etl__man_provider_name(struct etl_decode_state *st, const struct etl_guid *g)
{
	const char *n = etl__manifest_db_provider_name_by_guid(st->manifests, g);

	if (!n)
		n = etl__manifest_db_provider_name_by_guid(st->shared, g);
	if (!n) {
		load_declaring(st, g);
		n = etl__manifest_db_provider_name_by_guid(st->lazy, g);
	}
	return n;
}

/* ---- the built-in descriptions ---- */

struct builtin_seen {
	struct etl_guid g;
	const struct etl_manifest_db *db; /* NULL: none built in, or refused */
};

static int seen_eq(const void *entry, const void *key)
{
	return etl_guid_equal(&((const struct builtin_seen *)entry)->g, key);
}

/* The built-in database of provider g: asked of the process-wide table once per reader and
 * provider, then kept (NULL when none is built in, they are off, or memory ran out). */
static const struct etl_manifest_db *builtin_db(struct etl_decode_state *st, const struct etl_guid *g)
{
	uint64_t h = etl__manifest_db_guid_hash(g);
	const struct etl_manifest_db *db;
	struct builtin_seen *e;
	const char *why;
	long first;

	if (st->no_builtin)
		return NULL;
	if (st->builtin_seen.size && (e = etl__htab_find(&st->builtin_seen, h, seen_eq, g)) != NULL)
		return e->db;
	if ((first = etl__builtin_first(g)) < 0)
		db = NULL;
	else if (!(db = etl__builtin_db(first, &why)) && !why)
		return NULL; /* out of memory: asked again next time */
	if (!st->builtin_seen.size)
		etl__htab_init(&st->builtin_seen, sizeof(struct builtin_seen));
	if ((e = etl__htab_insert(&st->builtin_seen, h)) != NULL) {
		e->g = *g;
		e->db = db;
	}
	return db;
}

const struct etl_mevent *etl__man_builtin_find(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
					       uint8_t version)
{
	const struct etl_manifest_db *db = builtin_db(st, g);

	return db ? etl__manifest_db_find(db, g, id, version) : NULL;
}

const struct etl_mevent *etl__man_builtin_find_any(struct etl_decode_state *st, const struct etl_guid *g,
						   uint16_t id, uint8_t version)
{
	const struct etl_manifest_db *db = builtin_db(st, g);

	return db ? etl__manifest_db_find_any_version(db, g, id, version) : NULL;
}

const char *etl__man_builtin_provider_name(struct etl_decode_state *st, const struct etl_guid *g)
{
	const struct etl_manifest_db *db = builtin_db(st, g);

	return db ? etl__manifest_db_provider_name_by_guid(db, g) : NULL;
}

const struct etl_mevent *etl__man_find_named(struct etl_decode_state *st, const struct etl_guid *g, uint16_t id,
					     uint8_t version, int any_version)
{
	const struct etl_mevent *m = etl__man_find(st, g, id, version);

	if (!m)
		m = etl__man_builtin_find(st, g, id, version);
	if (!m && any_version && !(m = etl__man_find_any(st, g, id, version)))
		m = etl__man_builtin_find_any(st, g, id, version);
	return m;
}

int etl__man_names_by_value(struct etl_decode_state *st, const struct etl_guid *g, unsigned task, unsigned opcode,
			    const char **provider, const char **task_name, const char **opcode_name)
{
	const struct etl_manifest_db *dbs[5];
	unsigned i;

	load_declaring(st, g);
	dbs[0] = st->manifests, dbs[1] = st->shared, dbs[2] = st->lazy, dbs[3] = st->eventsource;
	dbs[4] = builtin_db(st, g);
	for (i = 0; i < 5; i++)
		if (dbs[i] && etl__manifest_db_names_by_value(dbs[i], g, task, opcode, provider, task_name, opcode_name))
			return 1;
	return 0;
}

const char *etl__man_failure(const struct etl_decode_state *st, const struct etl_guid *g)
{
	const struct etl_manifest_db *src[2] = { st->manifests, st->shared };
	unsigned i;

	size_t j;
	long doc;

	for (i = 0; i < 2; i++)
		for (j = 0; (doc = etl__manifest_db_pending_doc(src[i], g, j)) >= 0; j++) {
			const struct lazy_try *t = tried(st, src[i], doc, g);
			if (t && t->failed)
				return t->why;
		}
	return NULL;
}

void etl__man_free(struct etl_decode_state *st)
{
	etl__manifest_db_free(st->lazy);
	st->lazy = NULL;
	etl__htab_free(&st->lazy_tried);
	etl__htab_free(&st->builtin_seen); /* (the databases are the process's) */
}
