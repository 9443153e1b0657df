/*
 * decode.c - chooses how to decode an event (the decoder registry), keeps
 * the schema caches, names events, and implements the public decoded /
 * property accessors.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "decode/tei.h"
#include "decode/tlg.h"
#include "util/cursor.h"

#define TLG_CACHE_MAX 16384u   /* schemas kept before the cache is emptied */

/* ---- the TraceLogging schema cache: metadata bytes -> schema ---- */

struct tlg_entry {
	uint64_t hash;
	uint8_t *key;
	size_t key_len;
	struct etl_schema schema;
	int bad;                    /* the metadata was rejected: remember, do not reparse */
	struct etl_diag diag;
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void tlg_cache_clear(struct etl_decode_state *st)
{
	size_t i;

	for (i = 0; i < st->tlg_cap; i++) {
		if (st->tlg[i].key) {
			etl__free(st->tlg[i].key);
			etl__schema_free(&st->tlg[i].schema);
		}
	}
	if (st->tlg)
		memset(st->tlg, 0, st->tlg_cap * sizeof(*st->tlg));
	st->tlg_count = 0;
}

static struct tlg_entry *tlg_lookup(struct etl_decode_state *st, const uint8_t *meta, size_t len,
				    struct etl_diag *d)
{
	uint64_t h = fnv1a(meta, len);
	size_t i;
	struct tlg_entry *e;

	if (st->tlg_count * 2 >= st->tlg_cap) {
		/* grow (or start), up to the cache limit; beyond it, start over */
		size_t ncap = st->tlg_cap ? st->tlg_cap * 2 : 64, k;
		struct tlg_entry *old = st->tlg, *n;
		size_t oldcap = st->tlg_cap;

		if (st->tlg_count >= TLG_CACHE_MAX) {
			tlg_cache_clear(st);
		} else {
			n = etl__calloc(ncap, sizeof(*n));
			if (!n) {
				etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
				return NULL;
			}
			for (k = 0; k < oldcap; k++) {
				if (!old[k].key)
					continue;
				for (i = old[k].hash & (ncap - 1); n[i].key; i = (i + 1) & (ncap - 1))
					;
				n[i] = old[k];
			}
			etl__free(old);
			st->tlg = n;
			st->tlg_cap = ncap;
		}
	}
	for (i = h & (st->tlg_cap - 1);; i = (i + 1) & (st->tlg_cap - 1)) {
		e = &st->tlg[i];
		if (!e->key)
			break;
		if (e->hash == h && e->key_len == len && memcmp(e->key, meta, len) == 0)
			return e;
	}
	/* a new entry */
	e->key = etl__malloc(len ? len : 1);
	if (!e->key) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return NULL;
	}
	memcpy(e->key, meta, len);
	e->key_len = len;
	e->hash = h;
	st->tlg_count++;
	if (etl__tlg_schema(meta, len, &e->schema, &e->diag) != ETL_OK) {
		if (e->diag.code == ETL_E_NOMEM) {
			*d = e->diag;
			etl__free(e->key);
			memset(e, 0, sizeof(*e));
			st->tlg_count--;
			return NULL;
		}
		e->bad = 1;
	}
	return e;
}

/*
 * Names and reasons are built for every event, so this is a small formatter
 * of its own rather than vsnprintf: it knows %s, %u, %04x and %% (the
 * attribute lets the compiler check the arguments), and cuts at 511 bytes.
 */
static const char *arena_printf(struct etl_decoded *d, const char *fmt, ...) ETL_PRINTF(2, 3);
static const char *arena_printf(struct etl_decoded *d, const char *fmt, ...)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[512];
	size_t n = 0;
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt && n < sizeof(tmp) - 1; fmt++) {
		char num[12];
		size_t k = sizeof(num);
		const char *piece;
		size_t len;

		if (*fmt != '%') {
			tmp[n++] = *fmt;
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			piece = va_arg(ap, const char *);
			if (!piece)
				piece = "(null)";
			len = strlen(piece);
		} else if (*fmt == 'u') {
			unsigned v = va_arg(ap, unsigned);
			do {
				num[--k] = (char)('0' + v % 10);
				v /= 10;
			} while (v);
			piece = num + k;
			len = sizeof(num) - k;
		} else if (fmt[0] == '0' && fmt[1] == '4' && fmt[2] == 'x') {
			unsigned v = va_arg(ap, unsigned);
			unsigned digits = 0;
			fmt += 2;
			do {
				num[--k] = hex[v & 15];
				v >>= 4;
				digits++;
			} while (v || digits < 4);
			piece = num + k;
			len = sizeof(num) - k;
		} else {
			piece = "%"; /* %% (and nothing else is used) */
			len = 1;
			if (!*fmt)
				break;
		}
		if (len > sizeof(tmp) - 1 - n)
			len = sizeof(tmp) - 1 - n;
		memcpy(tmp + n, piece, len);
		n += len;
	}
	va_end(ap);
	return etl__arena_strndup(&d->arena, tmp, n);
}

/* ---- merge-time metadata ---- */

#define TEI_MAX 65536u
#define MAP_MAX 65536u

static const struct etl_guid metadata_guid = { 0xbbccf6c1, 0x6cd1, 0x48c4,
					       { 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 } };

struct tei_entry {
	int used;
	int trace;
	struct etl_tei tei;
};

struct map_entry {
	int trace;
	struct etl_guid provider;
	struct etl_map *map;
};

static size_t tei_hash(int trace, const struct etl_guid *g, uint16_t id, uint8_t version)
{
	uint64_t h = (uint64_t)g->data1 * 0x9E3779B97F4A7C15ULL ^ (uint64_t)id << 16 ^ (uint64_t)version << 40 ^
		     (uint64_t)(unsigned)trace << 48 ^ g->data2 ^ (uint64_t)g->data4[7] << 8;
	return (size_t)(h ^ h >> 29);
}

static struct tei_entry *tei_find(struct etl_decode_state *st, int trace, const struct etl_guid *g,
				  uint16_t id, uint8_t version)
{
	size_t i;

	if (!st->tei_cap)
		return NULL;
	for (i = tei_hash(trace, g, id, version) & (st->tei_cap - 1);; i = (i + 1) & (st->tei_cap - 1)) {
		struct tei_entry *e = &st->tei[i];
		if (!e->used)
			return NULL;
		if (e->trace == trace && e->tei.id == id && e->tei.version == version &&
		    etl_guid_equal(&e->tei.provider, g))
			return e;
	}
}

static void tei_add(struct etl_decode_state *st, int trace, struct etl_tei *t)
{
	struct tei_entry *e;
	size_t i;

	if (st->tei_count >= TEI_MAX) {
		etl__schema_free(&t->schema);
		st->metadata_rejected++;
		return;
	}
	if ((st->tei_count + 1) * 2 > st->tei_cap) {
		size_t ncap = st->tei_cap ? st->tei_cap * 2 : 64, k;
		struct tei_entry *n = etl__calloc(ncap, sizeof(*n));
		if (!n) {
			etl__schema_free(&t->schema);
			st->metadata_rejected++;
			return;
		}
		for (k = 0; k < st->tei_cap; k++) {
			if (!st->tei[k].used)
				continue;
			for (i = tei_hash(st->tei[k].trace, &st->tei[k].tei.provider, st->tei[k].tei.id,
					  st->tei[k].tei.version) & (ncap - 1);
			     n[i].used; i = (i + 1) & (ncap - 1))
				;
			n[i] = st->tei[k];
		}
		etl__free(st->tei);
		st->tei = n;
		st->tei_cap = ncap;
	}
	e = tei_find(st, trace, &t->provider, t->id, t->version);
	if (e) { /* the newer description wins */
		etl__schema_free(&e->tei.schema);
		e->tei = *t;
		return;
	}
	for (i = tei_hash(trace, &t->provider, t->id, t->version) & (st->tei_cap - 1); st->tei[i].used;
	     i = (i + 1) & (st->tei_cap - 1))
		;
	st->tei[i].used = 1;
	st->tei[i].trace = trace;
	st->tei[i].tei = *t;
	st->tei_count++;
}

static void map_add(struct etl_decode_state *st, int trace, const struct etl_guid *g, struct etl_map *m)
{
	if (st->map_count >= MAP_MAX) {
		etl__free(m);
		st->metadata_rejected++;
		return;
	}
	if (st->map_count == st->map_cap) {
		size_t ncap = st->map_cap ? st->map_cap * 2 : 16;
		struct map_entry *n = etl__realloc(st->maps, ncap * sizeof(*n));
		if (!n) {
			etl__free(m);
			st->metadata_rejected++;
			return;
		}
		st->maps = n;
		st->map_cap = ncap;
	}
	st->maps[st->map_count].trace = trace;
	st->maps[st->map_count].provider = *g;
	st->maps[st->map_count].map = m;
	st->map_count++;
}

static const struct etl_map *resolve_map(const void *ctx, const char *name)
{
	const struct etl_decode_state *st = ctx;
	size_t i;

	/* the newest map of that name for the provider wins */
	for (i = st->map_count; i-- > 0;) {
		const struct map_entry *m = &st->maps[i];
		if (m->trace == st->cur_trace && etl_guid_equal(&m->provider, &st->cur_provider) &&
		    strcmp(m->map->name, name) == 0)
			return m->map;
	}
	return NULL;
}

/* ---- EventSource manifests logged in the trace (id 0xFFFE, format reference 5d) ---- */

#define ES_MAX_BYTES (16u << 20)
#define ES_MAX_PENDING 256u

struct es_chunks {
	int trace;
	struct etl_guid provider;
	uint16_t total, next;
	uint8_t *buf;
	size_t len;
};

static void es_drop(struct etl_decode_state *st, size_t i)
{
	etl__free(st->es[i].buf);
	st->es[i] = st->es[--st->es_count];
}

static void observe_eventsource(struct etl_decode_state *st, const struct etl_event *ev)
{
	const uint8_t *p = ev->payload;
	uint16_t total, chunk;
	size_t i, body;
	struct es_chunks *c = NULL;

	if (ev->payload_len < 8 || p[3] != 0x5B || p[0] != 1)
		return;
	total = etl_le16(p + 4);
	chunk = etl_le16(p + 6);
	body = ev->payload_len - 8;
	if (total == 0 || chunk >= total)
		return;
	for (i = 0; i < st->es_count; i++)
		if (st->es[i].trace == ev->trace_index && etl_guid_equal(&st->es[i].provider, &ev->provider)) {
			c = &st->es[i];
			break;
		}
	if (chunk == 0) { /* a (new) manifest starts */
		if (c) {
			c->len = 0;
		} else {
			struct es_chunks *n;
			if (st->es_count >= ES_MAX_PENDING)
				return;
			n = etl__realloc(st->es, (st->es_count + 1) * sizeof(*n));
			if (!n)
				return;
			st->es = n;
			c = &st->es[st->es_count++];
			memset(c, 0, sizeof(*c));
			c->trace = ev->trace_index;
			c->provider = ev->provider;
		}
		c->total = total;
		c->next = 0;
	}
	if (!c || c->next != chunk || c->total != total)
		return; /* out of order: wait for the next chunk 0 */
	if (body > ES_MAX_BYTES - c->len) {
		es_drop(st, (size_t)(c - st->es));
		st->metadata_rejected++;
		return;
	}
	{
		uint8_t *nb = etl__realloc(c->buf, c->len + body + 1);
		if (!nb)
			return;
		c->buf = nb;
		memcpy(c->buf + c->len, p + 8, body);
		c->len += body;
		c->next++;
	}
	if (c->next == c->total) {
		struct etl_diag d;
		unsigned warnings = 0;
		if (!st->eventsource)
			st->eventsource = etl__mdb_new();
		if (!st->eventsource ||
		    etl__mdb_load_memory(st->eventsource, c->buf, c->len, "(EventSource manifest in the trace)",
					 &warnings, &d) != ETL_OK)
			st->metadata_rejected++;
		es_drop(st, (size_t)(c - st->es));
	}
}

void etl__decode_observe(struct etl_decode_state *st, const struct etl_event *ev)
{
	struct etl_diag d;

	if (ev->kind == ETL_HEADER_EVENT) {
		if (ev->id == 0xFFFE && ev->opcode == 0xFE)
			observe_eventsource(st, ev);
		return;
	}
	if (ev->kind != ETL_HEADER_FULL || !etl_guid_equal(&ev->provider, &metadata_guid))
		return;
	if (ev->opcode == ETL_METADATA_EVENTINFO) {
		struct etl_tei t;
		if (etl__tei_parse(ev->payload, ev->payload_len, &t, &d) == ETL_OK)
			tei_add(st, ev->trace_index, &t);
		else
			st->metadata_rejected++;
	} else if (ev->opcode == ETL_METADATA_EVENTMAPINFO) {
		struct etl_map *m;
		struct etl_guid g;
		if (etl__map_parse(ev->payload, ev->payload_len, &g, &m, &d) == ETL_OK)
			map_add(st, ev->trace_index, &g, m);
		else
			st->metadata_rejected++;
	}
}

/* PerfView's shape: Provider/Task/Opcode, Provider/Task when the opcode is 0 (Info). */
static void name_manifest_event(struct etl_decoded *out, const struct etl_event *ev)
{
	if (out->task_name && ev->opcode != 0 && out->opcode_name)
		out->name = arena_printf(out, "%s/%s/%s", out->provider_name, out->task_name, out->opcode_name);
	else if (out->task_name)
		out->name = arena_printf(out, "%s/%s", out->provider_name, out->task_name);
	else if (ev->opcode != 0 && out->opcode_name)
		out->name = arena_printf(out, "%s/EventID(%u)/%s", out->provider_name, ev->id, out->opcode_name);
	else
		out->name = arena_printf(out, "%s/EventID(%u)", out->provider_name, ev->id);
}

static void take_manifest_names(struct etl_decoded *out, const struct etl_mevent *m)
{
	out->provider_name = etl__mdb_provider_name(m->provider);
	out->task_name = m->task_name;
	out->opcode_name = m->opcode_name;
	out->level_name = m->level_name;
	out->channel_name = m->channel_name;
	out->keywords_name = m->keywords_name;
	out->message_template = m->message;
}

static const struct etl_map *resolve_manifest_map(const void *ctx, const char *name)
{
	const struct etl_decode_state *st = ctx;
	return etl__mdb_map(st->cur_mprovider, name);
}

static int decode_manifest(struct etl_decode_state *st, const struct etl_event *ev, const struct etl_mevent *m,
			   enum etl_decoder source, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	static const struct etl_schema empty = { NULL, 0, NULL, 0, 0, NULL, NULL };

	out->source = source;
	take_manifest_names(out, m);
	name_manifest_event(out, ev);
	st->cur_mprovider = m->provider;
	out->resolve_map = resolve_manifest_map;
	out->resolve_ctx = st;
	return etl__decode_payload(out, m->schema ? m->schema : &empty, ev->payload, ev->payload_len,
				   ev->ptr_size, d);
}

static int decode_tei(struct etl_decode_state *st, const struct etl_event *ev, struct tei_entry *e,
		      struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const struct etl_tei *t = &e->tei;
	char g[ETL_GUID_STRING_SIZE];

	out->source = ETL_DECODER_TRACE_METADATA;
	if (t->provider_name) {
		out->provider_name = t->provider_name;
	} else {
		etl_guid_format(&ev->provider, g);
		out->provider_name = arena_printf(out, "{%s}", g);
	}
	out->task_name = t->task_name;
	out->opcode_name = t->opcode_name;
	out->event_name = t->event_name;
	{
		/* the layout is the trace's own; names come from a loaded manifest when it knows the
		 * event (they are what PerfView shows) */
		const struct etl_mevent *m = etl__mdb_find(st->manifests, &ev->provider, ev->id, ev->version);
		if (!m)
			m = etl__mdb_find_any_version(st->manifests, &ev->provider, ev->id, ev->version);
		if (m) {
			const char *keep = out->message_template;
			take_manifest_names(out, m);
			if (m->version != ev->version)
				out->message_template = keep; /* a message of another version may cite other fields */
		}
	}
	name_manifest_event(out, ev);
	st->cur_trace = ev->trace_index;
	st->cur_provider = ev->provider;
	out->resolve_map = resolve_map;
	out->resolve_ctx = st;
	return etl__decode_payload(out, &t->schema, ev->payload, ev->payload_len, ev->ptr_size, d);
}

void etl__decode_state_free(struct etl_decode_state *st)
{
	size_t i;

	for (i = 0; i < st->tei_cap; i++)
		if (st->tei[i].used)
			etl__schema_free(&st->tei[i].tei.schema);
	etl__free(st->tei);
	for (i = 0; i < st->map_count; i++)
		etl__free(st->maps[i].map);
	etl__free(st->maps);
	tlg_cache_clear(st);
	etl__free(st->tlg);
	etl__mdb_free(st->manifests);
	etl__mdb_free(st->eventsource);
	if (st->kernel) {
		etl__kernel_cache_free(st->kernel);
		etl__free(st->kernel);
	}
	for (i = 0; i < st->es_count; i++)
		etl__free(st->es[i].buf);
	etl__free(st->es);
	etl__free(st->out.nodes);
	etl__free(st->out.field_values);
	etl__arena_free(&st->out.arena);
	memset(st, 0, sizeof(*st));
}

/* ---- naming ---- */

static void name_undecoded(struct etl_decoded *d, const struct etl_event *ev)
{
	char g[ETL_GUID_STRING_SIZE];
	const char *group;

	if (ev->kind != ETL_HEADER_SYSTEM && ev->kind != ETL_HEADER_COMPACT && ev->kind != ETL_HEADER_PERFINFO)
		etl_guid_format(&ev->provider, g);
	switch (ev->kind) {
	case ETL_HEADER_SYSTEM: case ETL_HEADER_COMPACT: case ETL_HEADER_PERFINFO:
		group = etl_kernel_group_name(ev->hook_id >> 8);
		d->provider_name = "Windows Kernel";
		d->task_name = group;
		if (group)
			d->name = arena_printf(d, "Windows Kernel/%s/Opcode(%u)", group, ev->opcode);
		else
			d->name = arena_printf(d, "Windows Kernel/Group(%u)/Opcode(%u)", ev->hook_id >> 8, ev->opcode);
		d->reason = arena_printf(d, "no built-in layout for kernel hook 0x%04x version %u", ev->hook_id,
					 ev->version);
		break;
	case ETL_HEADER_EVENT:
		d->name = arena_printf(d, "{%s}/EventID(%u)", g, ev->id);
		d->reason = arena_printf(d, "no schema for provider {%s} event %u version %u", g, ev->id,
					 ev->version);
		break;
	case ETL_HEADER_MESSAGE:
		d->name = arena_printf(d, "{%s}/Message(%u)", g, ev->id);
		d->reason = "WPP message: its format needs the provider's TMF files";
		break;
	default:
		d->name = arena_printf(d, "{%s}/Opcode(%u)", g, ev->opcode);
		d->reason = arena_printf(d, "no schema for event class {%s} opcode %u version %u", g, ev->opcode,
					 ev->version);
		break;
	}
}

/* ---- classic kernel events ---- */

/* The kernel group of a kernel record (by HookId) or of a MOF-class record (by class GUID), or -1. */
int etl__decode_kernel_group(const struct etl_event *ev)
{
	switch (ev->kind) {
	case ETL_HEADER_SYSTEM: case ETL_HEADER_COMPACT: case ETL_HEADER_PERFINFO:
		return ev->hook_id >> 8;
	case ETL_HEADER_FULL: case ETL_HEADER_INSTANCE:
		return etl__kernel_group_of_class(&ev->provider);
	default:
		return -1;
	}
}

static int decode_kernel(struct etl_decode_state *st, const struct etl_event *ev, unsigned group,
			 struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	struct etl_kernel_kind *kind;
	const char *task;
	int rc;

	if ((!st->kernel && !(st->kernel = etl__calloc(1, sizeof(*st->kernel)))) ||
	    !(kind = etl__kernel_kind(st->kernel, group, ev->opcode, ev->version))) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	task = kind->task;
	out->provider_name = kind->provider;
	out->task_name = task;
	out->opcode_name = kind->op;
	out->name = kind->name;
	out->reason = NULL;
	rc = etl__kernel_decode(st->kernel, out, ev, kind, d);
	if (rc == ETL_END) {
		out->source = ETL_DECODER_NONE;
		out->trailing = ev->payload_len;
		out->nnodes = out->ntop = 0;
		if (out->reason)
			; /* the decoder said why (a pointer size the payload does not prove) */
		else if (kind->reason)
			out->reason = kind->reason; /* made once per kind */
		else if (task) {
			out->reason = arena_printf(out, "no built-in layout for kernel %s opcode %u version %u", task,
						   ev->opcode, ev->version);
			if (out->reason)
				kind->reason = etl__strdup(out->reason); /* NULL (no memory): made again next time */
		} else if (ev->kind != ETL_HEADER_FULL && ev->kind != ETL_HEADER_INSTANCE)
			out->reason = arena_printf(out, "no built-in layout for kernel hook 0x%04x version %u",
						   ev->hook_id, ev->version);
		else
			out->reason = arena_printf(out, "no built-in layout for kernel group %u opcode %u version %u",
						   group, ev->opcode, ev->version);
		return ETL_OK;
	}
	out->source = ETL_DECODER_BUILTIN;
	return rc;
}

/* ---- TraceLogging ---- */

static int decode_tlg(struct etl_decode_state *st, const struct etl_event *ev, const uint8_t *meta,
		      size_t meta_len, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const uint8_t *traits = NULL;
	size_t traits_len = 0, pn_len = 0;
	const char *pn = NULL;
	struct tlg_entry *e = tlg_lookup(st, meta, meta_len, d);
	char g[ETL_GUID_STRING_SIZE];

	if (!e)
		return d->code;
	if (etl_event_extended_find(ev, ETL_EXT_PROV_TRAITS, &traits, &traits_len) &&
	    etl__tlg_provider_name(traits, traits_len, &pn, &pn_len) == ETL_OK && pn_len > 0) {
		out->provider_name = pn; /* NUL-terminated inside the event's item */
	} else {
		etl_guid_format(&ev->provider, g);
		out->provider_name = arena_printf(out, "{%s}", g);
	}
	if (e->bad) {
		name_undecoded(out, ev);
		out->reason = arena_printf(out, "tracelogging metadata rejected: %s", e->diag.msg);
		*d = e->diag;
		d->offset = ETL_OFFSET_NONE; /* the fault is in the metadata item: report the record */
		return e->diag.code;
	}
	out->source = ETL_DECODER_TRACELOGGING;
	out->event_name = e->schema.event_name;
	out->event_tags = e->schema.event_tags;
	if (traits_len)
		out->has_group = etl__tlg_provider_group(traits, traits_len, &out->provider_group);
	out->name = arena_printf(out, "%s/%s", out->provider_name ? out->provider_name : "?", e->schema.event_name);
	return etl__decode_payload(out, &e->schema, ev->payload, ev->payload_len, ev->ptr_size, d);
}

int etl__decode_event(struct etl_decode_state *st, const struct etl_event *ev,
		      const struct etl_decoded **result, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const uint8_t *meta;
	size_t meta_len;
	struct tei_entry *e;
	const struct etl_mevent *m;
	int rc = ETL_OK, kgroup;

	etl__arena_reset(&out->arena);
	out->source = ETL_DECODER_NONE;
	out->name = out->provider_name = out->event_name = out->task_name = out->opcode_name = NULL;
	out->reason = NULL;
	out->trailing = 0;
	out->event_tags = 0;
	out->has_group = 0;
	out->level_name = out->channel_name = out->keywords_name = NULL;
	out->message_template = out->message = NULL;
	out->nnodes = 0;
	out->ntop = 0;
	if (!out->max_nodes)
		out->max_nodes = 1u << 20; /* callers other than the reader (tests, fuzzing) */
	*result = out;
	out->resolve_map = NULL;
	if (ev->kind == ETL_HEADER_EVENT &&
	    etl_event_extended_find(ev, ETL_EXT_EVENT_SCHEMA_TL, &meta, &meta_len)) {
		rc = decode_tlg(st, ev, meta, meta_len, d);
	} else if (ev->kind == ETL_HEADER_EVENT &&
		   (e = tei_find(st, ev->trace_index, &ev->provider, ev->id, ev->version)) != NULL &&
		   /* an empty description of a non-empty payload is no layout: a manifest may do better */
		   !(e->tei.schema.ntop == 0 && ev->payload_len > 0 &&
		     (etl__mdb_find(st->eventsource, &ev->provider, ev->id, ev->version) ||
		      etl__mdb_find(st->manifests, &ev->provider, ev->id, ev->version)))) {
		rc = decode_tei(st, ev, e, d);
	} else if (ev->kind == ETL_HEADER_EVENT &&
		   (m = etl__mdb_find(st->eventsource, &ev->provider, ev->id, ev->version)) != NULL) {
		rc = decode_manifest(st, ev, m, ETL_DECODER_EVENTSOURCE, d);
	} else if (ev->kind == ETL_HEADER_EVENT &&
		   (m = etl__mdb_find(st->manifests, &ev->provider, ev->id, ev->version)) != NULL) {
		rc = decode_manifest(st, ev, m, ETL_DECODER_MANIFEST, d);
	} else if ((kgroup = etl__decode_kernel_group(ev)) >= 0) {
		rc = decode_kernel(st, ev, (unsigned)kgroup, d);
	} else {
		name_undecoded(out, ev);
		out->trailing = ev->payload_len;
		if (ev->kind == ETL_HEADER_EVENT && !etl__mdb_find_any_version(st->manifests, &ev->provider, ev->id,
									      ev->version)) {
			/* a provider known by name, an event it does not describe */
			const char *pn = etl__mdb_provider_name_by_guid(st->eventsource, &ev->provider);
			if (!pn)
				pn = etl__mdb_provider_name_by_guid(st->manifests, &ev->provider);
			if (pn) {
				out->provider_name = pn;
				out->name = arena_printf(out, "%s/EventID(%u)", pn, ev->id);
				out->reason = arena_printf(out, "the manifest of %s has no event %u", pn, ev->id);
			}
		}
		if (ev->kind == ETL_HEADER_EVENT &&
		    (m = etl__mdb_find_any_version(st->manifests, &ev->provider, ev->id, ev->version)) != NULL) {
			take_manifest_names(out, m);
			out->message_template = NULL;
			name_manifest_event(out, ev);
			out->reason = arena_printf(out, "the manifest of %s has event %u at version %u, not %u",
						   out->provider_name, ev->id, m->version, ev->version);
		}
	}
	if (!out->name) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	return rc;
}

/* ---- public accessors ---- */

const char *etl_decoder_name(enum etl_decoder k)
{
	switch (k) {
	case ETL_DECODER_NONE: return "none";
	case ETL_DECODER_MANIFEST: return "manifest";
	case ETL_DECODER_EVENTSOURCE: return "eventsource";
	case ETL_DECODER_TRACELOGGING: return "tracelogging";
	case ETL_DECODER_TRACE_METADATA: return "trace-metadata";
	case ETL_DECODER_BUILTIN: return "builtin";
	}
	return "unknown";
}

enum etl_decoder etl_decoded_source(const struct etl_decoded *d) { return d->source; }
const char *etl_decoded_name(const struct etl_decoded *d) { return d->name ? d->name : ""; }
const char *etl_decoded_provider_name(const struct etl_decoded *d) { return d->provider_name; }
const char *etl_decoded_event_name(const struct etl_decoded *d) { return d->event_name; }
const char *etl_decoded_task_name(const struct etl_decoded *d) { return d->task_name; }
const char *etl_decoded_opcode_name(const struct etl_decoded *d) { return d->opcode_name; }
const char *etl_decoded_reason(const struct etl_decoded *d) { return d->reason; }
uint32_t etl_decoded_event_tags(const struct etl_decoded *d) { return d->event_tags; }
const char *etl_decoded_level_name(const struct etl_decoded *d) { return d->level_name; }
const char *etl_decoded_channel_name(const struct etl_decoded *d) { return d->channel_name; }
const char *etl_decoded_keywords_name(const struct etl_decoded *d) { return d->keywords_name; }

/* Windows message inserts: %N (1-based property), %N!fmt! (format ignored), %% %n %t %r %. */
const char *etl_decoded_message(const struct etl_decoded *cd)
{
	struct etl_decoded *d = (struct etl_decoded *)(uintptr_t)cd; /* the reader owns it */
	const char *s = d->message_template;
	char *out;
	size_t cap, n = 0;

	if (!s)
		return NULL;
	if (d->message)
		return d->message;
	cap = strlen(s) * 2 + 256;
	out = etl__malloc(cap);
	if (!out)
		return NULL;
	while (*s) {
		const char *piece = NULL;
		char one[2] = { 0, 0 };
		size_t pl;

		if (*s == '%' && s[1] >= '1' && s[1] <= '9') {
			unsigned long k = strtoul(s + 1, (char **)&s, 10);
			if (*s == '!') { /* skip a printf-style format */
				const char *e = strchr(s + 1, '!');
				s = e ? e + 1 : s;
			}
			piece = k >= 1 && k <= d->ntop ? etl_property_format(&d->nodes[k - 1]) : "";
			if (!piece)
				piece = "";
		} else if (*s == '%' && s[1]) {
			switch (s[1]) {
			case 'n': one[0] = '\n'; break;
			case 't': one[0] = '\t'; break;
			case 'r': one[0] = '\r'; break;
			default: one[0] = s[1]; break;
			}
			piece = one;
			s += 2;
		} else {
			one[0] = *s++;
			piece = one;
		}
		pl = strlen(piece);
		if (n + pl + 1 > cap) {
			char *nb;
			cap = (n + pl + 1) * 2;
			nb = etl__realloc(out, cap);
			if (!nb) {
				etl__free(out);
				return NULL;
			}
			out = nb;
		}
		memcpy(out + n, piece, pl);
		n += pl;
	}
	out[n] = 0;
	d->message = etl__arena_strndup(&d->arena, out, n);
	etl__free(out);
	return d->message;
}

int etl_decoded_provider_group(const struct etl_decoded *d, struct etl_guid *group)
{
	if (!d->has_group)
		return 0;
	if (group)
		*group = d->provider_group;
	return 1;
}

const char *etl_property_map_name(const struct etl_property *p)
{
	return p->map ? p->map->name : NULL;
}

uint32_t etl_property_tags(const struct etl_property *p)
{
	return p->field ? p->field->tags : 0;
}

int etl_property_custom_schema(const struct etl_property *p, const uint8_t **schema, size_t *size)
{
	if (!p->field || !(p->field->flags & FF_CUSTOM))
		return ETL_E_MISUSE;
	*schema = p->field->custom_schema;
	*size = p->field->custom_len;
	return ETL_OK;
}
size_t etl_decoded_trailing_bytes(const struct etl_decoded *d) { return d->trailing; }
size_t etl_decoded_property_count(const struct etl_decoded *d) { return d->ntop; }

const struct etl_property *etl_decoded_property_at(const struct etl_decoded *d, size_t i)
{
	return i < d->ntop ? &d->nodes[i] : NULL;
}

const struct etl_property *etl_decoded_property_by_name(const struct etl_decoded *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->ntop; i++)
		if (d->nodes[i].name && strcmp(d->nodes[i].name, name) == 0)
			return &d->nodes[i];
	return NULL;
}

const char *etl_property_name(const struct etl_property *p) { return p->name ? p->name : ""; }
enum etl_property_kind etl_property_kind(const struct etl_property *p) { return (enum etl_property_kind)p->kind; }
uint16_t etl_property_in_type(const struct etl_property *p) { return p->in_type; }
uint16_t etl_property_out_type(const struct etl_property *p) { return p->out_type; }
size_t etl_property_child_count(const struct etl_property *p) { return p->child_count; }

const struct etl_property *etl_property_child_at(const struct etl_property *p, size_t i)
{
	return i < p->child_count ? &p->owner->nodes[p->first_child + i] : NULL;
}

static int is_int(const struct etl_property *p)
{
	uint16_t t = p->in_type;
	return p->kind == ETL_PROPERTY_VALUE && p->data &&
	       ((t >= IN_INT8 && t <= IN_UINT64) || t == IN_HEXINT32 || t == IN_HEXINT64 ||
		t == IN_POINTER || t == IN_SIZET || t == IN_BOOLEAN || t == IN_FILETIME) &&
	       (p->len == 1 || p->len == 2 || p->len == 4 || p->len == 8);
}

static int is_signed_in(uint16_t t)
{
	return t == IN_INT8 || t == IN_INT16 || t == IN_INT32 || t == IN_INT64;
}

int etl_property_as_u64(const struct etl_property *p, uint64_t *v)
{
	if (!is_int(p))
		return ETL_E_MISUSE;
	switch (p->len) {
	case 1: *v = p->data[0]; break;
	case 2: *v = etl_le16(p->data); break;
	case 4: *v = etl_le32(p->data); break;
	default: *v = etl_le64(p->data); break;
	}
	return ETL_OK;
}

int etl_property_as_i64(const struct etl_property *p, int64_t *v)
{
	uint64_t u;

	if (etl_property_as_u64(p, &u) != ETL_OK)
		return ETL_E_MISUSE;
	if (!is_signed_in(p->in_type)) {
		*v = (int64_t)u;
		return ETL_OK;
	}
	switch (p->len) {
	case 1: *v = (int8_t)u; break;
	case 2: *v = (int16_t)u; break;
	case 4: *v = (int32_t)u; break;
	default: *v = (int64_t)u; break;
	}
	return ETL_OK;
}

int etl_property_as_double(const struct etl_property *p, double *v)
{
	if (p->kind == ETL_PROPERTY_VALUE && p->data && p->in_type == IN_FLOAT && p->len == 4) {
		uint32_t u = etl_le32(p->data);
		float f;
		memcpy(&f, &u, sizeof(f));
		*v = f;
		return ETL_OK;
	}
	if (p->kind == ETL_PROPERTY_VALUE && p->data && p->in_type == IN_DOUBLE && p->len == 8) {
		uint64_t u = etl_le64(p->data);
		memcpy(v, &u, sizeof(*v));
		return ETL_OK;
	}
	if (is_int(p)) {
		int64_t i;
		uint64_t u;
		if (is_signed_in(p->in_type) && etl_property_as_i64(p, &i) == ETL_OK)
			*v = (double)i;
		else if (etl_property_as_u64(p, &u) == ETL_OK)
			*v = (double)u;
		return ETL_OK;
	}
	return ETL_E_MISUSE;
}

int etl_property_as_guid(const struct etl_property *p, struct etl_guid *v)
{
	if (p->kind != ETL_PROPERTY_VALUE || !p->data || p->in_type != IN_GUID || p->len != 16)
		return ETL_E_MISUSE;
	etl_guid_from_le(p->data, v);
	return ETL_OK;
}

int etl_property_as_bytes(const struct etl_property *p, const uint8_t **data, size_t *size)
{
	if (!p->data && p->len)
		return ETL_E_MISUSE;
	*data = p->data;
	*size = p->len;
	return ETL_OK;
}

static int is_text(uint16_t t)
{
	return t == IN_UNICODESTRING || t == IN_ANSISTRING || t == IN_COUNTEDSTRING ||
	       t == IN_COUNTEDANSISTRING || t == IN_MOF_COUNTEDSTRING || t == IN_MOF_COUNTEDANSISTRING ||
	       t == IN_REVERSEDCOUNTEDSTRING || t == IN_REVERSEDCOUNTEDANSISTRING ||
	       t == IN_NONNULLTERMINATEDSTRING || t == IN_NONNULLTERMINATEDANSISTRING;
}

static int is_char_text(const struct etl_property *p)
{
	uint16_t t = p->in_type;
	return p->out_type == OUT_STRING && (t == IN_UINT8 || t == IN_UINT16 || t == IN_INT8 || t == IN_INT16);
}

int etl_property_as_utf8(const struct etl_property *p, const char **s, size_t *len)
{
	const char *t;

	if (p->kind != ETL_PROPERTY_VALUE || !(is_text(p->in_type) || is_char_text(p)))
		return ETL_E_MISUSE;
	t = etl_property_format(p);
	if (!t)
		return ETL_E_NOMEM;
	*s = t;
	if (len)
		*len = strlen(t);
	return ETL_OK;
}

const char *etl_property_format(const struct etl_property *p)
{
	/* The tree belongs to the reader; the cache of formatted text lives in it. */
	return etl__format_property((struct etl_property *)(uintptr_t)p);
}

int etl__decode_add_manifest(struct etl_decode_state *st, const char *path, const void *xml, size_t size,
			     const char *name, unsigned *warnings, struct etl_diag *d)
{
	if (!st->manifests) {
		st->manifests = etl__mdb_new();
		if (!st->manifests) {
			etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
			return ETL_E_NOMEM;
		}
	}
	if (path)
		return etl__mdb_load_path(st->manifests, path, warnings, d);
	return etl__mdb_load_memory(st->manifests, xml, size, name, warnings, d);
}
