/*
 * metadata.c - the decoder's memory of in-trace metadata (see metadata.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "decode/metadata.h"
#include "decode/tlg.h"
#include "util/cursor.h"

#define TLG_CACHE_MAX 16384u   /* schemas kept before the cache is emptied */
#define TEI_MAX 65536u
#define MAP_MAX 65536u
#define ES_MAX_BYTES (16u << 20)
#define ES_MAX_PENDING 256u
#define NAMES_MAX 4096u        /* provider names learnt from the traces */
#define NAME_MAX_BYTES 255u

static const struct etl_guid metadata_guid = { 0xbbccf6c1, 0x6cd1, 0x48c4,
					       { 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 } };

struct map_entry {
	int trace;
	struct etl_guid provider;
	struct etl_map *map;
};

struct es_chunks {
	int trace;
	struct etl_guid provider;
	uint16_t total, next;
	uint8_t *buf;
	size_t len, cap;
};

/* ---- TraceLogging schemas, by their metadata bytes ---- */

struct tlg_key {
	const uint8_t *p;
	size_t len;
};

static int tlg_eq(const void *entry, const void *key)
{
	const struct tlg_entry *e = entry;
	const struct tlg_key *k = key;

	return e->key_len == k->len && memcmp(e->key, k->p, k->len) == 0;
}

static void tlg_cache_clear(struct etl_decode_state *st)
{
	size_t i;

	for (i = 0; i < st->tlg.cap; i++) {
		struct tlg_entry *e = etl__htab_at(&st->tlg, i);
		if (e) {
			etl__free(e->key);
			etl__schema_free(&e->schema);
		}
	}
	etl__htab_clear(&st->tlg);
}

struct tlg_entry *etl__meta_tlg_lookup(struct etl_decode_state *st, const uint8_t *meta, size_t len,
				       struct etl_diag *d)
{
	struct tlg_key k = { meta, len };
	uint64_t h = etl__hash_bytes(meta, len);
	struct tlg_entry *e, made;

	if (!st->tlg.size)
		etl__htab_init(&st->tlg, sizeof(struct tlg_entry));
	e = etl__htab_find(&st->tlg, h, tlg_eq, &k);
	if (e)
		return e;
	memset(&made, 0, sizeof(made));
	if (etl__tlg_schema(meta, len, &made.schema, &made.diag) != ETL_OK) {
		if (made.diag.code == ETL_E_NOMEM) { /* not remembered: the next event tries again */
			*d = made.diag;
			return NULL;
		}
		made.bad = 1; /* rejected: remembered, not parsed again */
	}
	if (st->tlg.count >= TLG_CACHE_MAX)
		tlg_cache_clear(st); /* beyond the limit, start over */
	made.key = etl__malloc(len ? len : 1);
	if (!made.key || !(e = etl__htab_insert(&st->tlg, h))) {
		etl__free(made.key);
		etl__schema_free(&made.schema);
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return NULL;
	}
	memcpy(made.key, meta, len);
	made.key_len = len;
	*e = made;
	return e;
}

/* ---- merge-time metadata ---- */

struct tei_key {
	int trace;
	const struct etl_guid *g;
	uint16_t id;
	uint8_t version;
};

static uint64_t tei_hash(int trace, const struct etl_guid *g, uint16_t id, uint8_t version)
{
	return etl__hash_mix((uint64_t)g->data1 << 32 ^ (uint64_t)id << 16 ^ (uint64_t)version << 8 ^
			     (uint64_t)(unsigned)trace << 40 ^ g->data2 ^ (uint64_t)g->data4[7] << 24);
}

static int tei_eq(const void *entry, const void *key)
{
	const struct tei_entry *e = entry;
	const struct tei_key *k = key;

	return e->trace == k->trace && e->tei.id == k->id && e->tei.version == k->version &&
	       etl_guid_equal(&e->tei.provider, k->g);
}

struct tei_entry *etl__meta_tei_find(struct etl_decode_state *st, int trace, const struct etl_guid *g,
				     uint16_t id, uint8_t version)
{
	struct tei_key k = { trace, g, id, version };

	return etl__htab_find(&st->tei, tei_hash(trace, g, id, version), tei_eq, &k);
}

/* ---- provider names the traces give (merge-time metadata, EventSource manifests) ---- */

struct name_slot {
	struct etl_guid g;
	char *name; /* owned */
};

static int name_eq(const void *entry, const void *key)
{
	return etl_guid_equal(&((const struct name_slot *)entry)->g, key);
}

/* Notes that the traces call provider g name[0, len): the first name heard is kept, so that a
 * provider has one name in all its events. */
static void name_provider(struct etl_decode_state *st, const struct etl_guid *g, const char *name, size_t len)
{
	uint64_t h = etl__manifest_db_guid_hash(g);
	struct name_slot *e;
	char *copy;

	if (len == 0 || len > NAME_MAX_BYTES || !etl__utf8_valid((const uint8_t *)name, len))
		return;
	if (!st->provider_names.size)
		etl__htab_init(&st->provider_names, sizeof(struct name_slot));
	if (etl__htab_find(&st->provider_names, h, name_eq, g) || st->provider_names.count >= NAMES_MAX)
		return;
	if (!(copy = etl__malloc(len + 1)))
		return;
	memcpy(copy, name, len);
	copy[len] = 0;
	if (!(e = etl__htab_insert(&st->provider_names, h))) {
		etl__free(copy);
		return;
	}
	e->g = *g;
	e->name = copy;
}

const char *etl__meta_provider_name(const struct etl_decode_state *st, const struct etl_guid *g)
{
	const struct name_slot *e;

	if (!st->provider_names.count)
		return NULL;
	e = etl__htab_find(&st->provider_names, etl__manifest_db_guid_hash(g), name_eq, g);
	return e ? e->name : NULL;
}

static void tei_add(struct etl_decode_state *st, int trace, struct etl_tei *t)
{
	struct tei_entry *e = etl__meta_tei_find(st, trace, &t->provider, t->id, t->version);

	if (t->provider_name)
		name_provider(st, &t->provider, t->provider_name, strlen(t->provider_name));
	if (e) { /* the newer description wins */
		etl__schema_free(&e->tei.schema);
		e->tei = *t;
		e->names_known = 0;
		return;
	}
	if (!st->tei.size)
		etl__htab_init(&st->tei, sizeof(struct tei_entry));
	if (st->tei.count >= TEI_MAX ||
	    !(e = etl__htab_insert(&st->tei, tei_hash(trace, &t->provider, t->id, t->version)))) {
		etl__schema_free(&t->schema);
		st->metadata_rejected++;
		return;
	}
	e->trace = trace;
	e->tei = *t;
}

/* The index of the maps: the newest of each (input, provider, name). */
struct map_key {
	int trace;
	const struct etl_guid *g;
	const char *name;
};

struct map_slot {
	int trace;
	struct etl_guid provider;
	const struct etl_map *map; /* its name is the key's */
};

static uint64_t map_hash(int trace, const struct etl_guid *g, const char *name)
{
	return etl__hash_mix(etl__hash_bytes(name, strlen(name)) ^ (uint64_t)g->data1 << 32 ^ g->data2 ^
			     (uint64_t)g->data4[7] << 16 ^ (uint64_t)(unsigned)trace << 40);
}

static int map_eq(const void *entry, const void *key)
{
	const struct map_slot *e = entry;
	const struct map_key *k = key;

	return e->trace == k->trace && etl_guid_equal(&e->provider, k->g) && strcmp(e->map->name, k->name) == 0;
}

static void map_add(struct etl_decode_state *st, int trace, const struct etl_guid *g, struct etl_map *m)
{
	struct map_key k = { trace, g, m->name };
	uint64_t h = map_hash(trace, g, m->name);
	struct map_slot *e;

	if (st->map_count >= MAP_MAX ||
	    etl__grow(&st->maps, &st->map_cap, st->map_count + 1, sizeof(*st->maps), 16) != 0) {
		etl__free(m);
		st->metadata_rejected++;
		return;
	}
	if (!st->map_index.size)
		etl__htab_init(&st->map_index, sizeof(struct map_slot));
	e = etl__htab_find(&st->map_index, h, map_eq, &k);
	if (!e && (e = etl__htab_insert(&st->map_index, h)) != NULL) {
		e->trace = trace;
		e->provider = *g;
	}
	if (!e) {
		etl__free(m);
		st->metadata_rejected++;
		return;
	}
	e->map = m; /* the newest of that name wins; the older stays owned (a decoded view may use it) */
	st->maps[st->map_count].trace = trace;
	st->maps[st->map_count].provider = *g;
	st->maps[st->map_count].map = m;
	st->map_count++;
}

const struct etl_map *etl__meta_resolve_map(const void *ctx, const char *name)
{
	const struct etl_decode_state *st = ctx;
	struct map_key k = { st->cur_trace, &st->cur_provider, name };
	const struct map_slot *e;

	if (!st->map_index.count)
		return NULL;
	e = etl__htab_find(&st->map_index, map_hash(st->cur_trace, &st->cur_provider, name), map_eq, &k);
	return e ? e->map : NULL;
}

/* ---- EventSource manifests logged in the trace (id 0xFFFE, format reference 5d) ---- */

static void es_drop(struct etl_decode_state *st, size_t i)
{
	etl__free(st->es[i].buf);
	st->es[i] = st->es[--st->es_count];
}

/* The collection of ev's provider: found, or started by chunk 0; NULL when none. */
static struct es_chunks *es_collection(struct etl_decode_state *st, const struct etl_event *ev, uint16_t total,
				       uint16_t chunk)
{
	struct es_chunks *c = NULL;
	size_t i;

	for (i = 0; i < st->es_count; i++)
		if (st->es[i].trace == ev->trace_index && etl_guid_equal(&st->es[i].provider, &ev->provider)) {
			c = &st->es[i];
			break;
		}
	if (chunk != 0)
		return c;
	if (c) { /* a (new) manifest starts */
		c->len = 0;
	} else {
		if (st->es_count >= ES_MAX_PENDING ||
		    etl__grow(&st->es, &st->es_cap, st->es_count + 1, sizeof(*st->es), 4) != 0)
			return NULL;
		c = &st->es[st->es_count++];
		memset(c, 0, sizeof(*c));
		c->trace = ev->trace_index;
		c->provider = ev->provider;
	}
	c->total = total;
	c->next = 0;
	return c;
}

static void es_load(struct etl_decode_state *st, struct es_chunks *c)
{
	struct etl_diag d;
	unsigned warnings = 0;
	struct etl_mdoc_cache *cache = st->es_cache ? st->es_cache(st->es_cache_ctx, c->trace) : NULL;
	const char *name = "(EventSource manifest in the trace)";

	if (!st->eventsource) /* a manifest logged again (another process) replaces the one before */
		st->eventsource = etl__manifest_db_new_replacing();
	if (!st->eventsource ||
	    (cache ? etl__mdoc_cache_load(cache, st->eventsource, c->buf, c->len, name, &warnings, &d)
		   : etl__manifest_db_load_memory(st->eventsource, c->buf, c->len, name, &warnings, &d)) != ETL_OK)
		st->metadata_rejected++;
	es_drop(st, (size_t)(c - st->es));
}

/* The name of the <provider> tag for provider g in the first chunk of its manifest, so that the
 * chunks before the manifest is whole already have the name it will give them. */
static void es_first_chunk_name(struct etl_decode_state *st, const struct etl_guid *g, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n, *tag = p;

	while ((tag = memchr(tag, '<', (size_t)(end - tag))) != NULL && end - tag > 9) {
		const uint8_t *close = memchr(tag, '>', (size_t)(end - tag)), *name = NULL, *gs = NULL, *q;
		size_t name_len = 0;
		tag++;
		if (!close)
			return;
		if (memcmp(tag, "provider", 8) != 0 || (tag[8] != ' ' && tag[8] != '\t' && tag[8] != '\n' && tag[8] != '\r'))
			continue;
		for (q = tag + 8; q + 7 < close; q++) { /* name="..." and guid="..." (or with ') */
			const uint8_t **at = NULL;
			if ((q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r') && memcmp(q, "name=", 5) == 0)
				at = &name;
			else if ((q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r') && memcmp(q, "guid=", 5) == 0)
				at = &gs;
			if (at && (q[5] == '"' || q[5] == '\'')) {
				const uint8_t *v = q + 6, *ve = memchr(v, q[5], (size_t)(close - v));
				if (!ve)
					break;
				*at = v;
				if (at == &name)
					name_len = (size_t)(ve - v);
				else if (ve - v > 38)
					gs = NULL;
				q = ve;
			}
		}
		if (name && gs) {
			char text[39];
			struct etl_guid pg;
			size_t gl = (size_t)((const uint8_t *)memchr(gs, gs[-1], (size_t)(close - gs)) - gs);
			memcpy(text, gs, gl);
			text[gl] = 0;
			if (etl_guid_parse(text, &pg) == ETL_OK && etl_guid_equal(&pg, g))
				name_provider(st, g, (const char *)name, name_len);
		}
		return; /* the first provider tag is the manifest's */
	}
}

static void observe_eventsource(struct etl_decode_state *st, const struct etl_event *ev)
{
	const uint8_t *p = ev->payload;
	uint16_t total, chunk;
	size_t body;
	struct es_chunks *c;

	if (ev->payload_len < 8 || p[3] != 0x5B || p[0] != 1)
		return;
	total = etl_le16(p + 4);
	chunk = etl_le16(p + 6);
	body = ev->payload_len - 8;
	if (total == 0 || chunk >= total)
		return;
	if (chunk == 0)
		es_first_chunk_name(st, &ev->provider, p + 8, body);
	c = es_collection(st, ev, total, chunk);
	if (!c || c->next != chunk || c->total != total)
		return; /* out of order: wait for the next chunk 0 */
	if (body > ES_MAX_BYTES - c->len) {
		es_drop(st, (size_t)(c - st->es));
		st->metadata_rejected++;
		return;
	}
	if (etl__grow(&c->buf, &c->cap, c->len + body + 1, 1, 4096) != 0)
		return;
	memcpy(c->buf + c->len, p + 8, body);
	c->len += body;
	c->next++;
	if (c->next == c->total)
		es_load(st, c);
}

int etl__decode_observes(const struct etl_event *ev)
{
	if (ev->kind == ETL_HEADER_EVENT)
		return ev->id == 0xFFFE && ev->opcode == 0xFE;
	return ev->kind == ETL_HEADER_FULL && etl_guid_equal(&ev->provider, &metadata_guid) &&
	       (ev->opcode == ETL_METADATA_EVENTINFO || ev->opcode == ETL_METADATA_EVENTMAPINFO);
}

void etl__decode_observe(struct etl_decode_state *st, const struct etl_event *ev)
{
	struct etl_diag d;

	if (!etl__decode_observes(ev))
		return;
	if (ev->kind == ETL_HEADER_EVENT) {
		observe_eventsource(st, ev);
	} else if (ev->opcode == ETL_METADATA_EVENTINFO) {
		struct etl_tei t;
		if (etl__tei_parse(ev->payload, ev->payload_len, &t, &d) == ETL_OK)
			tei_add(st, ev->trace_index, &t);
		else
			st->metadata_rejected++;
	} else {
		struct etl_map *m;
		struct etl_guid g;
		if (etl__map_parse(ev->payload, ev->payload_len, &g, &m, &d) == ETL_OK)
			map_add(st, ev->trace_index, &g, m);
		else
			st->metadata_rejected++;
	}
}

void etl__meta_free(struct etl_decode_state *st)
{
	size_t i;

	for (i = 0; i < st->tei.cap; i++) {
		struct tei_entry *e = etl__htab_at(&st->tei, i);
		if (e)
			etl__schema_free(&e->tei.schema);
	}
	etl__htab_free(&st->tei);
	for (i = 0; i < st->map_count; i++)
		etl__free(st->maps[i].map);
	etl__free(st->maps);
	etl__htab_free(&st->map_index);
	tlg_cache_clear(st);
	etl__htab_free(&st->tlg);
	etl__manifest_db_free(st->eventsource);
	for (i = 0; i < st->provider_names.cap; i++) {
		struct name_slot *e = etl__htab_at(&st->provider_names, i);
		if (e)
			etl__free(e->name);
	}
	etl__htab_free(&st->provider_names);
	for (i = 0; i < st->es_count; i++)
		etl__free(st->es[i].buf);
	etl__free(st->es);
}
