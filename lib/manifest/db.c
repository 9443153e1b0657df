/*
 * db.c - the manifests a reader loaded: their providers, an index of their
 * events, and loading documents from memory, files and directories.
 *
 * Manifests are untrusted input: libxml2 reads them with no network access
 * and no entity substitution or DTD loading; a manifest larger than the
 * size limit is refused, templates are bounded in fields and depth, and
 * every reference (template, map, count/length field, task, opcode) is
 * checked.  A bad template or event costs itself, counted as a warning.
 *
 * Each provider keeps everything it owns (names, schemas, maps, events) in
 * one arena, freed at once.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/source.h"
#include "manifest/mxml.h"

uint64_t etl__manifest_db_guid_hash(const struct etl_guid *g)
{
	uint64_t tail = 0;
	unsigned i;

	for (i = 0; i < 8; i++)
		tail = tail << 8 | g->data4[i];
	return etl__hash_mix(((uint64_t)g->data1 << 32 | (uint64_t)g->data2 << 16 | g->data3) ^ etl__hash_mix(tail));
}

struct etl_manifest_db *etl__manifest_db_new(void)
{
	struct etl_manifest_db *db = etl__calloc(1, sizeof(struct etl_manifest_db));

	if (db) {
		etl__htab_init(&db->index, sizeof(const struct etl_mevent *));
		etl__htab_init(&db->by_guid, sizeof(size_t));
		etl__htab_init(&db->pending, sizeof(struct etl_mdb_pending));
	}
	return db;
}

struct etl_manifest_db *etl__manifest_db_new_replacing(void)
{
	struct etl_manifest_db *db = etl__manifest_db_new();

	if (db)
		db->replace = 1;
	return db;
}

/* A provider the database lets go of: freed, unless a document cache keeps it (doccache.c). */
static void drop_provider(struct etl_mprovider *p)
{
	if (p && !p->cached)
		etl__manifest_provider_free(p);
}

void etl__manifest_db_free(struct etl_manifest_db *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nproviders; i++)
		drop_provider(db->providers[i]);
	etl__free(db->providers);
	etl__htab_free(&db->index);
	etl__htab_free(&db->by_guid);
	etl__htab_free(&db->pending);
	for (i = 0; i < db->ndocs; i++)
		etl__free(db->docs[i]);
	etl__free(db->docs);
	etl__free(db->decl);
	etl__free(db);
}

struct ev_key {
	const struct etl_guid *g;
	uint16_t id;
	uint8_t version;
};

static uint64_t ev_hash(const struct etl_guid *g, uint16_t id, uint8_t version)
{
	return etl__hash_mix((uint64_t)g->data1 << 32 ^ (uint64_t)id << 8 ^ version ^ (uint64_t)g->data3 << 24 ^
			     (uint64_t)g->data4[7] << 40);
}

static int ev_eq(const void *entry, const void *key)
{
	const struct etl_mevent *e = *(const struct etl_mevent *const *)entry;
	const struct ev_key *k = key;

	return e->id == k->id && e->version == k->version && etl_guid_equal(&e->provider->guid, k->g);
}

/* Whether two definitions of one event decode differently. */
static int schemas_differ(const struct etl_schema *a, const struct etl_schema *b)
{
	uint16_t i;

	if (!a || !b)
		return a != b;
	if (a->nfields != b->nfields || a->ntop != b->ntop)
		return 1;
	for (i = 0; i < a->nfields; i++) {
		const struct etl_field *x = &a->fields[i], *y = &b->fields[i];
		if (strcmp(x->name, y->name) != 0 || x->in_type != y->in_type || x->out_type != y->out_type ||
		    x->flags != y->flags || x->count != y->count || x->length != y->length ||
		    x->nmembers != y->nmembers ||
		    (x->nmembers && memcmp(x->members, y->members, x->nmembers * sizeof(*x->members)) != 0))
			return 1;
	}
	return 0;
}

/* Indexes p's events; a later duplicate replaces the earlier one.  With x, an event that an older
 * provider of the same GUID defines otherwise is reported (the newer definition is used). */
static int index_provider(struct etl_htab *ix, const struct etl_mprovider *p, struct load_ctx *x)
{
	size_t k;

	for (k = 0; k < p->nevents; k++) {
		const struct etl_mevent *e = &p->events[k];
		struct ev_key key = { &p->guid, e->id, e->version };
		uint64_t h = ev_hash(&p->guid, e->id, e->version);
		const struct etl_mevent **slot = etl__htab_find(ix, h, ev_eq, &key);
		if (!slot && !(slot = etl__htab_insert(ix, h)))
			return ETL_E_NOMEM;
		else if (slot && *slot && x && (*slot)->provider != p && schemas_differ((*slot)->schema, e->schema)) {
			char what[160], why[200];
			snprintf(what, sizeof(what), "%s %u version %u", p->name ? p->name : "?", (unsigned)e->id,
				 (unsigned)e->version);
			snprintf(why, sizeof(why), "defined otherwise by manifest %s; this definition is used",
				 (*slot)->provider->source ? (*slot)->provider->source : "?");
			etl__manifest_warn(x, "event", what, why);
		}
		*slot = e;
	}
	return ETL_OK;
}

/* The whole index again, after a provider was replaced (its old events must go). */
static int rebuild_index(struct etl_manifest_db *db)
{
	struct etl_htab ix;
	size_t i;

	etl__htab_init(&ix, sizeof(const struct etl_mevent *));
	for (i = 0; i < db->nproviders; i++) {
		if (index_provider(&ix, db->providers[i], NULL) != ETL_OK) {
			etl__htab_free(&ix);
			return ETL_E_NOMEM;
		}
	}
	etl__htab_free(&db->index);
	db->index = ix;
	db->stale = 0;
	return ETL_OK;
}

const struct etl_mevent *etl__manifest_db_find(const struct etl_manifest_db *db, const struct etl_guid *g,
				       uint16_t id, uint8_t version)
{
	struct ev_key key = { g, id, version };
	const struct etl_mevent **e;

	if (!db)
		return NULL;
	e = etl__htab_find(&db->index, ev_hash(g, id, version), ev_eq, &key);
	return e ? *e : NULL;
}

static int by_guid_eq(const void *entry, const void *key)
{
	const struct etl_manifest_db *db = ((const void *const *)key)[0];
	const struct etl_guid *g = ((const void *const *)key)[1];

	return etl_guid_equal(&db->providers[*(const size_t *)entry]->guid, g);
}

/* The provider of that GUID, or NULL. */
static const struct etl_mprovider *provider_by_guid(const struct etl_manifest_db *db, const struct etl_guid *g)
{
	const void *key[2] = { db, g };
	const size_t *k;

	if (!db)
		return NULL;
	k = etl__htab_find(&db->by_guid, etl__manifest_db_guid_hash(g), by_guid_eq, key);
	return k ? db->providers[*k] : NULL;
}

const struct etl_mevent *etl__manifest_db_find_any_version(const struct etl_manifest_db *db,
						   const struct etl_guid *g, uint16_t id, uint8_t version)
{
	const struct etl_mprovider *p;
	const struct etl_mevent *best = NULL;
	size_t k;

	/* the highest version not above the one asked for, else the lowest above it; of the newest
	 * provider that has the event at all */
	for (p = provider_by_guid(db, g); p && !best; p = p->older)
		for (k = 0; k < p->nevents; k++) {
			const struct etl_mevent *e = &p->events[k];
			if (e->id != id)
				continue;
			if (!best || (e->version <= version && (best->version > version || e->version > best->version)) ||
			    (e->version > version && best->version > version && e->version < best->version))
				best = e;
		}
	return best;
}

static void collect_localization(struct strtab *st, const struct mnode *n, int depth)
{
	const struct mnode *c;

	if (depth > 4)
		return;
	for (c = n->children; c; c = c->next) {
		if (etl__manifest_is_el(c, "localization"))
			etl__manifest_strtab_collect(st, c, 0);
		else if (!etl__manifest_is_el(c, "events"))
			collect_localization(st, c, depth + 1);
	}
}

static void find_providers(const struct mnode *n, const struct mnode **out, size_t *count, size_t max, int depth)
{
	const struct mnode *c;

	if (depth > 6)
		return;
	for (c = n->children; c; c = c->next) {
		if (etl__manifest_is_el(c, "provider")) {
			/* ETW providers live under <events>; others (performance counters) are not ours */
			if (etl__manifest_is_el(n, "events") && *count < max)
				out[(*count)++] = c;
		} else if (!etl__manifest_is_el(c, "localization") && !etl__manifest_is_el(c, "counters")) {
			find_providers(c, out, count, max, depth + 1);
		}
	}
}

/* Adds p, the newest provider of its GUID: replacing one loaded before (db->replace), or in front
 * of it; p is taken either way. */
unsigned long etl__manifest_db_gen(const struct etl_manifest_db *db)
{
	return db ? db->gen : 0;
}

static int add_provider(struct etl_manifest_db *db, struct etl_mprovider *p, struct load_ctx *x)
{
	const void *key[2] = { db, &p->guid };
	uint64_t h = etl__manifest_db_guid_hash(&p->guid);
	size_t *k = etl__htab_find(&db->by_guid, h, by_guid_eq, key);
	struct etl_mprovider *older = k ? db->providers[*k] : NULL;

	db->gen++;
	if (k && db->replace) {
		if (db->providers[*k] != p)
			drop_provider(db->providers[*k]);
		db->providers[*k] = p;
		db->stale = 1; /* the index still points at the old one's events */
		return ETL_OK;
	}
	if (etl__grow(&db->providers, &db->cap, db->nproviders + 1, sizeof(*db->providers), 16) != 0 ||
	    (!k && !(k = etl__htab_insert(&db->by_guid, h)))) {
		drop_provider(p);
		return ETL_E_NOMEM;
	}
	if (!db->replace) /* (a replacing database has none: a cached provider is not written) */
		p->older = older;
	*k = db->nproviders;
	db->providers[db->nproviders++] = p;
	if (!db->stale && index_provider(&db->index, p, x) != ETL_OK)
		db->stale = 1; /* rebuilt (or reported) after the document */
	return ETL_OK;
}

/* The providers of a document's tree into db. */
static int load_tree(struct etl_manifest_db *db, const struct mtree *tree, struct load_ctx *x,
		     int (*accept)(const struct etl_guid *g, void *ctx), void *ctx)
{
	const struct mnode *provs[256];
	struct strtab st;
	size_t nprov = 0, i;
	int rc = ETL_OK;

	memset(&st, 0, sizeof(st));
	collect_localization(&st, tree->root, 0);
	find_providers(tree->root, provs, &nprov, sizeof(provs) / sizeof(provs[0]), 0);
	x->spent = tree->nodes.bytes;
	for (i = 0; i < nprov && rc == ETL_OK; i++) {
		struct etl_mprovider *p;

		if (accept) {
			const char *gs = etl__manifest_attr(provs[i], "guid");
			struct etl_guid g;
			if (!gs || etl_guid_parse(gs, &g) != ETL_OK || !accept(&g, ctx))
				continue;
		}
		x->d->code = ETL_OK;
		p = etl__manifest_provider(provs[i], &st, x, tree->doc);
		if (!p) {
			if (x->d->code == ETL_E_LIMIT || x->d->code == ETL_E_NOMEM)
				rc = x->d->code; /* the document as a whole is refused */
			continue;
		}
		x->spent += etl__manifest_provider_bytes(p);
		rc = add_provider(db, p, x);
	}
	etl__manifest_strtab_free(&st);
	return rc;
}

int etl__manifest_db_load_memory(struct etl_manifest_db *db, const uint8_t *xml, size_t len, const char *name,
			 unsigned *warnings, struct etl_diag *d)
{
	return etl__manifest_db_load_filtered(db, xml, len, name, NULL, NULL, warnings, d);
}

int etl__manifest_db_load_filtered(struct etl_manifest_db *db, const uint8_t *xml, size_t len, const char *name,
			   int (*accept)(const struct etl_guid *g, void *ctx), void *ctx, unsigned *warnings,
			   struct etl_diag *d)
{
	struct mtree tree;
	struct load_ctx x;
	char quoted[256];
	int st;

	x.warnings = 0;
	x.d = d;
	x.doc = etl__quote(name ? name : "(memory)", quoted, sizeof(quoted));
	if (len > MAX_MANIFEST_BYTES || len > INT32_MAX) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "manifest %s: %zu bytes exceed the %u-byte limit",
			      x.doc, len, MAX_MANIFEST_BYTES);
		return ETL_E_LIMIT;
	}
	x.max_bytes = len * MANIFEST_COST_RATIO + MANIFEST_COST_BASE;
	st = etl__manifest_tree_parse(&tree, xml, len, x.max_bytes, x.doc, d);
	if (st != ETL_OK)
		return st;
	/* an instrumentation manifest, or a Windows side-by-side assembly manifest that holds one */
	if (!(etl__manifest_is_el(tree.root, "instrumentationManifest") || etl__manifest_is_el(tree.root, "assembly"))) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE,
			      "manifest %s: the root is neither <instrumentationManifest> nor <assembly>", x.doc);
		etl__manifest_tree_free(&tree);
		return ETL_E_FORMAT;
	}
	st = load_tree(db, &tree, &x, accept, ctx);
	etl__manifest_tree_free(&tree); /* the providers keep the text they use */
	if (db->stale) {
		int ri = rebuild_index(db);
		if (st == ETL_OK)
			st = ri;
	}
	if (st == ETL_E_NOMEM)
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	if (warnings)
		*warnings += x.warnings;
	return st;
}

int etl__manifest_db_add_cached(struct etl_manifest_db *db, struct etl_mprovider *const *p, size_t n)
{
	size_t i;
	int st = ETL_OK;

	for (i = 0; i < n && st == ETL_OK; i++)
		st = add_provider(db, p[i], NULL);
	if (db->stale) {
		int ri = rebuild_index(db);
		if (st == ETL_OK)
			st = ri;
	}
	return st;
}

const struct etl_mevent *etl__manifest_db_event_at(const struct etl_manifest_db *db, size_t i)
{
	size_t k;

	for (k = 0; db && k < db->nproviders; k++) {
		if (i < db->providers[k]->nevents)
			return &db->providers[k]->events[i];
		i -= db->providers[k]->nevents;
	}
	return NULL;
}

const char *etl__manifest_db_provider_name_by_guid(const struct etl_manifest_db *db, const struct etl_guid *g)
{
	const struct etl_mprovider *p = provider_by_guid(db, g);

	return p ? p->name : NULL;
}

int etl__manifest_db_names_by_value(const struct etl_manifest_db *db, const struct etl_guid *g, unsigned task,
			    unsigned opcode, const char **provider, const char **task_name, const char **opcode_name)
{
	const struct etl_mprovider *p, *newest = provider_by_guid(db, g);
	const char *t = NULL, *o = NULL;

	for (p = newest; p && (!t || !o); p = p->older) {
		if (!t)
			t = etl__manifest_provider_name_of(p, (int32_t)task, -1);
		if (!o && (o = etl__manifest_provider_name_of(p, (int32_t)task, (int32_t)opcode)) == NULL)
			o = etl__manifest_provider_name_of(p, -1, (int32_t)opcode);
	}
	if (!newest)
		return 0;
	*provider = newest->name;
	*task_name = t;
	*opcode_name = o;
	return 1;
}
