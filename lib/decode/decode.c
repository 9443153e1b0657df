/*
 * decode.c - chooses how to decode an event (the decoder registry) and
 * names it.  The caches of in-trace metadata are in metadata.c, the public
 * accessors of the decoded view in access.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "decode/metadata.h"
#include "decode/tlg.h"
#include "tmf/tmf.h"
#include "util/cursor.h"

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

/* "a/b", or "a/b/c" when c is not NULL, in d's arena: what arena_printf makes of the same pieces,
 * with one allocation and a copy of each piece (a manifest event's name, made for every event). */
static const char *arena_join(struct etl_decoded *d, const char *a, const char *b, const char *c)
{
	/* a missing piece ("(null)") or a name past arena_printf's cut: arena_printf's own text */
	size_t la = a ? strlen(a) : SIZE_MAX, lb = b ? strlen(b) : SIZE_MAX, lc = c ? strlen(c) : 0;
	size_t n = la + 1 + lb + (c ? 1 + lc : 0); /* (wraps only where a piece is over 511 too) */
	char *o;

	if (la > 511 || lb > 511 || lc > 511 || n > 511)
		return c ? arena_printf(d, "%s/%s/%s", a, b, c) : arena_printf(d, "%s/%s", a, b);
	o = etl__arena_alloc(&d->arena, n + 1);
	if (!o)
		return NULL;
	memcpy(o, a, la);
	o[la] = '/';
	memcpy(o + la + 1, b, lb);
	if (c) {
		o[la + 1 + lb] = '/';
		memcpy(o + la + 2 + lb, c, lc);
	}
	o[n] = 0;
	return o;
}

/* PerfView's shape: Provider/Task/Opcode, Provider/Task when the opcode is 0 (Info). */
static void name_manifest_event(struct etl_decoded *out, const struct etl_event *ev)
{
	if (out->task_name && ev->opcode != 0 && out->opcode_name)
		out->name = arena_join(out, out->provider_name, out->task_name, out->opcode_name);
	else if (out->task_name)
		out->name = arena_join(out, out->provider_name, out->task_name, NULL);
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
		/* the layout is the trace's own; names come from a loaded manifest (they are what
		 * PerfView shows): the event's own when it knows the event, else those of its task and
		 * opcode ids, so that one task has one name whichever events the manifest lacks */
		const struct etl_mevent *m = etl__man_find(st, &ev->provider, ev->id, ev->version);
		const char *pn, *tn, *on;
		if (!m)
			m = etl__man_find_any(st, &ev->provider, ev->id, ev->version);
		if (m) {
			const char *keep = out->message_template;
			take_manifest_names(out, m);
			if (m->version != ev->version)
				out->message_template = keep; /* a message of another version may cite other fields */
		} else if (etl__man_names_by_value(st, &ev->provider, ev->task, ev->opcode, &pn, &tn, &on)) {
			if (pn)
				out->provider_name = pn;
			if (tn)
				out->task_name = tn;
			if (on)
				out->opcode_name = on;
		}
	}
	name_manifest_event(out, ev);
	st->cur_trace = ev->trace_index;
	st->cur_provider = ev->provider;
	out->resolve_map = etl__meta_resolve_map;
	out->resolve_ctx = st;
	return etl__decode_payload(out, &t->schema, ev->payload, ev->payload_len, ev->ptr_size, d);
}

void etl__decode_state_free(struct etl_decode_state *st)
{
	etl__meta_free(st);
	etl__mdb_free(st->manifests);
	etl__man_free(st);
	etl__tmf_free(st->tmf);
	if (st->kernel) {
		etl__kernel_cache_free(st->kernel);
		etl__free(st->kernel);
	}
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
	if (rc == ETL_END && out->doubtful) {
		/* a layout the payload does not prove: raw, and a decoding problem, never silent */
		out->source = ETL_DECODER_NONE;
		out->trailing = ev->payload_len;
		out->nnodes = out->ntop = 0;
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "%s: %s", out->name, out->reason);
		return ETL_E_FORMAT;
	}
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

int etl__decoded_add_derived(struct etl_decoded *d, const char *name, uint16_t in_type, uint16_t out_type,
			     const void *bytes, size_t len)
{
	struct etl_property *p;
	uint8_t *copy;

	if (d->nderived >= ETL_DERIVED_MAX || !(copy = etl__arena_alloc(&d->arena, len + 1)))
		return -1;
	memcpy(copy, bytes, len);
	copy[len] = 0;
	p = &d->derived[d->nderived++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->owner = d;
	p->in_type = in_type;
	p->out_type = out_type;
	p->kind = ETL_PROPERTY_VALUE;
	p->data = copy;
	p->len = len;
	return 0;
}

/* ---- EventSource manifest records (id 0xFFFE, opcode 0xFE) ---- */

/* The chunk header PerfView shows (format reference 5d); the rest of the payload is the chunk of
 * the manifest itself, left as trailing bytes (the metadata layer reads it). */
static const struct etl_field manifest_data_fields[] = {
	{ .name = "Format", .in_type = ETL_IN_UINT8 },
	{ .name = "MajorVersion", .in_type = ETL_IN_UINT8 },
	{ .name = "MinorVersion", .in_type = ETL_IN_UINT8 },
	{ .name = "Magic", .in_type = ETL_IN_UINT8 },
	{ .name = "TotalChunks", .in_type = ETL_IN_UINT16 },
	{ .name = "ChunkNumber", .in_type = ETL_IN_UINT16 },
};
static uint16_t manifest_data_top[] = { 0, 1, 2, 3, 4, 5 };
static const struct etl_schema manifest_data_schema = {
	.fields = (struct etl_field *)manifest_data_fields, .nfields = 6, .ntop = 6, .top = manifest_data_top,
};

static int decode_manifest_data(struct etl_decode_state *st, const struct etl_event *ev, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const char *pn = etl__mdb_provider_name_by_guid(st->eventsource, &ev->provider);
	char g[ETL_GUID_STRING_SIZE];

	if (!pn)
		pn = etl__man_provider_name(st, &ev->provider);
	if (!pn)
		pn = etl__meta_provider_name(st, &ev->provider);
	if (!pn) {
		etl_guid_format(&ev->provider, g);
		pn = arena_printf(out, "{%s}", g);
	}
	out->provider_name = pn;
	out->event_name = "ManifestData";
	out->name = arena_printf(out, "%s/ManifestData", pn ? pn : "?");
	out->source = ETL_DECODER_BUILTIN;
	return etl__decode_payload(out, &manifest_data_schema, ev->payload, ev->payload_len, ev->ptr_size, d);
}

/* ---- TraceLogging ---- */

static int decode_tlg(struct etl_decode_state *st, const struct etl_event *ev, const uint8_t *meta,
		      size_t meta_len, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const uint8_t *traits = NULL;
	size_t traits_len = 0, pn_len = 0;
	const char *pn = NULL;
	struct tlg_entry *e = etl__meta_tlg_lookup(st, meta, meta_len, d);
	char g[ETL_GUID_STRING_SIZE];

	if (!e)
		return d->code;
	if (etl_event_extended_find(ev, ETL_EXT_PROV_TRAITS, &traits, &traits_len) &&
	    etl__tlg_provider_name(traits, traits_len, &pn, &pn_len) == ETL_OK && pn_len > 0) {
		if (etl__utf8_valid((const uint8_t *)pn, pn_len)) {
			out->provider_name = pn; /* NUL-terminated inside the event's item */
		} else { /* as Latin-1: names are UTF-8 */
			char *u = etl__arena_alloc(&out->arena, 2 * pn_len + 1);
			if (u)
				etl__text8_to_utf8((const uint8_t *)pn, pn_len, u);
			out->provider_name = u;
		}
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

/* A decoding that stopped at a fault: the event says so (etl_decoded_status), and the property that
 * failed is not shown as if it had a value - the ones before it are. */
static void note_error(struct etl_decoded *out, const struct etl_diag *d)
{
	char clean[sizeof(d->msg) * 4];

	etl_text_escape(d->msg, clean, sizeof(clean));
	out->error = arena_printf(out, "%s", clean);
	if (!out->error)
		out->error = "the payload contradicts its schema";
	if (out->source != ETL_DECODER_NONE && out->ntop > 0) {
		out->error_field = out->nodes[out->ntop - 1].name;
		out->ntop--;
	}
}

int etl__decode_event(struct etl_decode_state *st, const struct etl_event *ev,
		      const struct etl_decoded **result, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const uint8_t *meta;
	size_t meta_len;
	struct tei_entry *e;
	const struct etl_mevent *m;
	const struct tmf_msg *wm;
	const char *wpp_reason = NULL;
	int rc = ETL_OK, kgroup;

	st->out_event = NULL; /* out is about to hold another decoding */
	etl__arena_reset(&out->arena);
	out->source = ETL_DECODER_NONE;
	out->name = out->provider_name = out->event_name = out->task_name = out->opcode_name = NULL;
	out->reason = NULL;
	out->error = out->error_field = NULL;
	out->doubtful = 0;
	out->nderived = 0;
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
		   (e = etl__meta_tei_find(st, ev->trace_index, &ev->provider, ev->id, ev->version)) != NULL &&
		   /* an empty description of a non-empty payload is no layout: a manifest may do better */
		   !(e->tei.schema.ntop == 0 && ev->payload_len > 0 &&
		     (etl__mdb_find(st->eventsource, &ev->provider, ev->id, ev->version) ||
		      etl__man_find(st, &ev->provider, ev->id, ev->version)))) {
		rc = decode_tei(st, ev, e, d);
	} else if (ev->kind == ETL_HEADER_EVENT &&
		   (m = etl__mdb_find(st->eventsource, &ev->provider, ev->id, ev->version)) != NULL) {
		rc = decode_manifest(st, ev, m, ETL_DECODER_EVENTSOURCE, d);
	} else if (ev->kind == ETL_HEADER_EVENT &&
		   (m = etl__man_find(st, &ev->provider, ev->id, ev->version)) != NULL) {
		rc = decode_manifest(st, ev, m, ETL_DECODER_MANIFEST, d);
	} else if (ev->kind == ETL_HEADER_EVENT && ev->id == 0xFFFE && ev->opcode == 0xFE) {
		rc = decode_manifest_data(st, ev, d);
	} else if ((kgroup = etl__decode_kernel_group(ev)) >= 0) {
		rc = decode_kernel(st, ev, (unsigned)kgroup, d);
	} else if (ev->kind == ETL_HEADER_MESSAGE && (wm = etl__decode_wpp_find(st, ev, &wpp_reason)) != NULL) {
		rc = etl__decode_wpp(st, ev, wm, d);
	} else {
		name_undecoded(out, ev);
		if (wpp_reason)
			out->reason = wpp_reason; /* TMF files were given, but not this message's */
		out->trailing = ev->payload_len;
		if (ev->kind == ETL_HEADER_EVENT && !etl__man_find_any(st, &ev->provider, ev->id,
									      ev->version)) {
			/* a provider known by name, an event it does not describe */
			const char *pn = etl__mdb_provider_name_by_guid(st->eventsource, &ev->provider);
			if (!pn)
				pn = etl__man_provider_name(st, &ev->provider);
			if (pn) {
				out->provider_name = pn;
				out->name = arena_printf(out, "%s/EventID(%u)", pn, ev->id);
				out->reason = arena_printf(out, "the manifest of %s has no event %u", pn, ev->id);
			} else if ((pn = etl__man_failure(st, &ev->provider)) != NULL) {
				out->reason = arena_printf(out, "the provider's manifest could not be read: %s", pn);
			} else if ((pn = etl__meta_provider_name(st, &ev->provider)) != NULL) {
				out->provider_name = pn; /* the name the trace gives its other events */
				out->name = arena_printf(out, "%s/EventID(%u)", pn, ev->id);
			}
		}
		if (ev->kind == ETL_HEADER_EVENT &&
		    (m = etl__man_find_any(st, &ev->provider, ev->id, ev->version)) != NULL) {
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
	if (rc != ETL_OK && rc != ETL_E_NOMEM && !out->doubtful)
		note_error(out, d); /* (a doubtful layout's reason says it all) */
	return rc;
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
