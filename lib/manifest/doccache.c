/*
 * doccache.c - manifests parsed once for every reader of an input.
 *
 * The EventSource manifests a trace logs are met again by each reader of its
 * time slices (etl_reader_open_same: every slice's state holds them), and
 * parsing one costs as much as decoding thousands of events.  The cache keeps
 * each document's bytes and the providers it gave, marked cached: a reader's
 * database borrows them (db.c never frees a cached provider) and only reads
 * them, until the cache is freed with the input first opened, which outlives
 * the readers opened from it.  A document is looked up by its bytes (hash,
 * then compared whole) and its name, under the cache's lock, which a reader
 * parsing one holds: another that asks for it waits rather than parsing it
 * too.
 *
 * SPDX-License-Identifier: MIT
 */
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "manifest/mxml.h"
#include "util/htab.h"

#define CACHE_DOCS 256                /* documents kept, at most */
#define CACHE_TEXT ((size_t)64 << 20) /* bytes of their text kept, at most */
#define DIAG_UNSET INT_MAX            /* the loading left the message alone */

struct cached_doc {
	uint64_t hash;
	size_t len;
	uint8_t *text;
	char *name;               /* what the providers say they came from */
	struct etl_mprovider **p; /* the providers the document gave, in its order */
	size_t np;
	int status;
	unsigned warnings;
	struct etl_diag diag; /* code DIAG_UNSET: none */
};

struct etl_mdoc_cache {
	pthread_mutex_t mu;
	struct cached_doc *docs;
	size_t n, cap, text;
};

struct etl_mdoc_cache *etl__mdoc_cache_new(void)
{
	struct etl_mdoc_cache *c = etl__calloc(1, sizeof(*c));

	if (c && pthread_mutex_init(&c->mu, NULL) != 0) {
		etl__free(c);
		return NULL;
	}
	return c;
}

void etl__mdoc_cache_free(struct etl_mdoc_cache *c)
{
	size_t i, k;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		for (k = 0; k < c->docs[i].np; k++)
			etl__manifest_provider_free(c->docs[i].p[k]);
		etl__free(c->docs[i].p);
		etl__free(c->docs[i].text);
		etl__free(c->docs[i].name);
	}
	etl__free(c->docs);
	pthread_mutex_destroy(&c->mu);
	etl__free(c);
}

size_t etl__mdoc_cache_count(struct etl_mdoc_cache *c)
{
	size_t n;

	pthread_mutex_lock(&c->mu);
	n = c->n;
	pthread_mutex_unlock(&c->mu);
	return n;
}

static const struct cached_doc *find(const struct etl_mdoc_cache *c, uint64_t h, const uint8_t *xml, size_t len,
				     const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->docs[i].hash == h && c->docs[i].len == len && memcmp(c->docs[i].text, xml, len) == 0 &&
		    strcmp(c->docs[i].name, name) == 0)
			return &c->docs[i];
	return NULL;
}

/* Parses the document into a database of its own and keeps what it gave; NULL when it cannot be
 * kept (the cache is full, or memory ran out: the caller loads it itself). */
static const struct cached_doc *parse(struct etl_mdoc_cache *c, uint64_t h, const uint8_t *xml, size_t len,
				      const char *name)
{
	struct etl_manifest_db *tmp;
	struct cached_doc x;

	if (c->n >= CACHE_DOCS || len > CACHE_TEXT - c->text ||
	    etl__grow(&c->docs, &c->cap, c->n + 1, sizeof(*c->docs), 4) != 0 || !(tmp = etl__manifest_db_new_replacing()))
		return NULL;
	memset(&x, 0, sizeof(x));
	x.hash = h;
	x.len = len;
	x.diag.code = DIAG_UNSET;
	x.status = etl__manifest_db_load_memory(tmp, xml, len, name, &x.warnings, &x.diag);
	x.text = etl__malloc(len ? len : 1);
	x.name = etl__strdup(name);
	x.p = etl__calloc(tmp->nproviders ? tmp->nproviders : 1, sizeof(*x.p));
	if (x.status == ETL_E_NOMEM || !x.text || !x.name || !x.p) {
		etl__free(x.text);
		etl__free(x.name);
		etl__free(x.p);
		etl__manifest_db_free(tmp);
		return NULL;
	}
	if (len)
		memcpy(x.text, xml, len);
	for (x.np = 0; x.np < tmp->nproviders; x.np++) {
		x.p[x.np] = tmp->providers[x.np];
		x.p[x.np]->cached = 1; /* (before any other reader sees it: under the lock) */
	}
	etl__manifest_db_free(tmp); /* its providers stay: they are cached */
	c->docs[c->n] = x;
	c->text += len;
	return &c->docs[c->n++];
}

int etl__mdoc_cache_load(struct etl_mdoc_cache *c, struct etl_manifest_db *db, const uint8_t *xml, size_t len,
			 const char *name, unsigned *warnings, struct etl_diag *d)
{
	uint64_t h = etl__hash_bytes(xml, len);
	const struct cached_doc *doc;
	struct cached_doc got;
	int st;

	if (!name)
		name = "(memory)";
	pthread_mutex_lock(&c->mu);
	if (!(doc = find(c, h, xml, len, name)))
		doc = parse(c, h, xml, len, name);
	if (doc) /* a copy: the array moves when another thread keeps a document (its providers do not) */
		got = *doc;
	pthread_mutex_unlock(&c->mu);
	if (!doc)
		return etl__manifest_db_load_memory(db, xml, len, name, warnings, d);
	st = etl__manifest_db_add_cached(db, got.p, got.np);
	if (st != ETL_OK) {
		etl__diag_set(d, st, ETL_OFFSET_NONE, "out of memory");
		return st;
	}
	if (got.diag.code != DIAG_UNSET)
		*d = got.diag;
	if (warnings)
		*warnings += got.warnings;
	return got.status;
}
