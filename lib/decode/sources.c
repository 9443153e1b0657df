/*
 * sources.c - the decoders of the registry (decoders.h) whose descriptions
 * come from TraceLogging metadata, merge-time metadata, manifests (given, or
 * logged in the trace by EventSource) and the built-in kernel layouts: for
 * each, what it bids for an event and how it decodes it.  WPP messages are
 * in wpp.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "decode/decoders.h"
#include "decode/metadata.h"
#include "decode/tlg.h"

static const struct etl_map *resolve_manifest_map(const void *ctx, const char *name)
{
	const struct etl_decode_state *st = ctx;
	return etl__manifest_provider_map(st->cur_mprovider, name);
}

/* ---- manifests: given to the reader, or logged in the trace by EventSource ---- */

static int decode_manifest(struct etl_decode_state *st, const struct etl_event *ev, const struct etl_mevent *m,
			   enum etl_decoder source, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	static const struct etl_schema empty = { NULL, 0, NULL, 0, 0, NULL, NULL };

	out->source = source;
	etl__decode_take_names(out, m);
	etl__decode_name_manifest(out, ev);
	st->cur_mprovider = m->provider;
	out->resolve_map = resolve_manifest_map;
	out->resolve_ctx = st;
	return etl__schema_decode(out, m->schema ? m->schema : &empty, ev->payload, ev->payload_len,
				   ev->ptr_size, d);
}

static enum bid_strength bid_eventsource(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	if (ev->kind != ETL_HEADER_EVENT)
		return BID_NONE;
	b->what = etl__manifest_db_find(st->eventsource, &ev->provider, ev->id, ev->version);
	return b->what ? BID_SURE : BID_NONE;
}

static int decode_eventsource(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
			      struct etl_diag *d)
{
	return decode_manifest(st, ev, b->what, ETL_DECODER_EVENTSOURCE, d);
}

static enum bid_strength bid_manifest(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	if (ev->kind != ETL_HEADER_EVENT)
		return BID_NONE;
	b->what = etl__man_find(st, &ev->provider, ev->id, ev->version);
	return b->what ? BID_SURE : BID_NONE;
}

static int decode_given_manifest(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
				 struct etl_diag *d)
{
	return decode_manifest(st, ev, b->what, ETL_DECODER_MANIFEST, d);
}

static enum bid_strength bid_builtin(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	if (ev->kind != ETL_HEADER_EVENT)
		return BID_NONE;
	b->what = etl__man_builtin_find(st, &ev->provider, ev->id, ev->version);
	return b->what ? BID_SURE : BID_NONE;
}

static int decode_builtin(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
			  struct etl_diag *d)
{
	return decode_manifest(st, ev, b->what, ETL_DECODER_BUILTIN_MANIFEST, d);
}

/* An event newer than every description of it: a newer version only adds fields after the old
 * ones (the manifests' versioning rule), so the nearest older template reads the payload's
 * start, when it fits.  Given manifests first, then the built-in ones. */
static enum bid_strength bid_older(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	const struct etl_mevent *m;

	if (ev->kind != ETL_HEADER_EVENT || ev->version == 0)
		return BID_NONE;
	m = etl__man_find_any(st, &ev->provider, ev->id, ev->version);
	b->group = ETL_DECODER_MANIFEST;
	if (!m || m->version >= ev->version) {
		m = etl__man_builtin_find_any(st, &ev->provider, ev->id, ev->version);
		b->group = ETL_DECODER_BUILTIN_MANIFEST;
	}
	if (!m || m->version >= ev->version)
		return BID_NONE;
	b->what = m;
	return BID_SURE;
}

static int decode_older(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
			struct etl_diag *d)
{
	const struct etl_mevent *m = b->what;
	struct etl_decoded *out = &st->out;
	int rc = decode_manifest(st, ev, m, (enum etl_decoder)b->group, d);

	if (rc != ETL_OK && rc != ETL_E_NOMEM) {
		/* the older template does not fit: raw, saying why */
		out->source = ETL_DECODER_NONE;
		out->trailing = ev->payload_len;
		out->nnodes = out->ntop = 0;
		out->message_template = NULL;
		out->reason = etl__decode_printf(out, "the manifest of %s has event %u at version %u, not %u, and "
						 "that version's template does not fit the payload",
						 out->provider_name, ev->id, m->version, ev->version);
		return ETL_OK;
	}
	out->older_version = 1 + m->version;
	out->message_template = NULL; /* (a message of another version may cite other fields) */
	return rc;
}

const struct decoder etl__decoder_eventsource = { "eventsource", bid_eventsource, decode_eventsource, KINDS_EVENT };
const struct decoder etl__decoder_manifest = { "manifest", bid_manifest, decode_given_manifest, KINDS_EVENT };
const struct decoder etl__decoder_builtin = { "builtin-manifest", bid_builtin, decode_builtin, KINDS_EVENT };
const struct decoder etl__decoder_older = { "older-version", bid_older, decode_older, KINDS_EVENT };

/* ---- merge-time metadata (KernelTraceControl EventInfo) ---- */

static enum bid_strength bid_tei(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	const struct tei_entry *e;

	if (ev->kind != ETL_HEADER_EVENT ||
	    !(e = etl__meta_tei_find(st, ev->trace_index, &ev->provider, ev->id, ev->version)))
		return BID_NONE;
	b->what = e;
	/* an empty description of a non-empty payload is no layout: a manifest may do better */
	return e->tei.schema.ntop == 0 && ev->payload_len > 0 ? BID_WEAK : BID_SURE;
}

/* What may hold names of the manifests' providers: a change of it may have dropped some. */
static unsigned long names_gen(const struct etl_decode_state *st)
{
	return etl__manifest_db_gen(st->eventsource) + etl__manifest_db_gen(st->lazy) +
	       etl__manifest_db_gen(st->manifests);
}

/* The layout is the trace's own; names come from a manifest, given or built in (they are what
 * PerfView shows, and the same whichever describes the payload): the event's own when it knows
 * the event, else those of its task and opcode ids, so that one task has one name whichever
 * events the manifest lacks.  Looked up once per description (e) while the manifests stay. */
static void tei_names(struct etl_decode_state *st, struct tei_entry *e, const struct etl_event *ev,
		      struct etl_decoded *out)
{
	const struct etl_mevent *m;

	if (!e->names_known || e->names_gen != names_gen(st) || e->names_task != ev->task ||
	    e->names_opcode != ev->opcode) {
		e->names_m = etl__man_find_named(st, &ev->provider, ev->id, ev->version, 1);
		e->pn = e->tn = e->on = NULL;
		e->names_by_value = !e->names_m && etl__man_names_by_value(st, &ev->provider, ev->task, ev->opcode,
									     &e->pn, &e->tn, &e->on);
		e->names_gen = names_gen(st); /* (after the lookups: they may load a folder's manifest) */
		e->names_task = ev->task;
		e->names_opcode = ev->opcode;
		e->names_known = 1;
	}
	if ((m = e->names_m) != NULL) {
		const char *keep = out->message_template;
		etl__decode_take_names(out, m);
		if (m->version != ev->version)
			out->message_template = keep; /* a message of another version may cite other fields */
	} else if (e->names_by_value) {
		if (e->pn)
			out->provider_name = e->pn;
		if (e->tn)
			out->task_name = e->tn;
		if (e->on)
			out->opcode_name = e->on;
	}
}

static int decode_tei(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
		      struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const struct etl_tei *t = &((const struct tei_entry *)b->what)->tei;
	char g[ETL_GUID_STRING_SIZE];

	out->source = ETL_DECODER_TRACE_METADATA;
	if (t->provider_name) {
		out->provider_name = t->provider_name;
	} else {
		etl_guid_format(&ev->provider, g);
		out->provider_name = etl__decode_printf(out, "{%s}", g);
	}
	out->task_name = t->task_name;
	out->opcode_name = t->opcode_name;
	out->event_name = t->event_name;
	tei_names(st, (struct tei_entry *)b->what, ev, out);
	etl__decode_name_manifest(out, ev);
	st->cur_trace = ev->trace_index;
	st->cur_provider = ev->provider;
	out->resolve_map = etl__meta_resolve_map;
	out->resolve_ctx = st;
	return etl__schema_decode(out, &t->schema, ev->payload, ev->payload_len, ev->ptr_size, d);
}

const struct decoder etl__decoder_tei = { "trace-metadata", bid_tei, decode_tei, KINDS_EVENT };

/* ---- the classic kernel events ---- */

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

static enum bid_strength bid_kernel(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	(void)st;
	b->group = etl__decode_kernel_group(ev);
	return b->group >= 0 ? BID_SURE : BID_NONE;
}

static int decode_kernel(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
			 struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	unsigned group = (unsigned)b->group;
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
			out->reason = etl__decode_printf(out, "no built-in layout for kernel %s opcode %u version %u", task,
						   ev->opcode, ev->version);
			if (out->reason)
				kind->reason = etl__strdup(out->reason); /* NULL (no memory): made again next time */
		} else if (ev->kind != ETL_HEADER_FULL && ev->kind != ETL_HEADER_INSTANCE)
			out->reason = etl__decode_printf(out, "no built-in layout for kernel hook 0x%04x version %u",
						   ev->hook_id, ev->version);
		else
			out->reason = etl__decode_printf(out, "no built-in layout for kernel group %u opcode %u version %u",
						   group, ev->opcode, ev->version);
		return ETL_OK;
	}
	out->source = ETL_DECODER_BUILTIN;
	return rc;
}

const struct decoder etl__decoder_kernel = { "kernel", bid_kernel, decode_kernel, ~0u };

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

static enum bid_strength bid_manifest_data(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	(void)st;
	(void)b;
	return ev->kind == ETL_HEADER_EVENT && ev->id == 0xFFFE && ev->opcode == 0xFE ? BID_SURE : BID_NONE;
}

static int decode_manifest_data(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
				struct etl_diag *d)
{
	(void)b;
	struct etl_decoded *out = &st->out;
	const char *pn = etl__manifest_db_provider_name_by_guid(st->eventsource, &ev->provider);
	char g[ETL_GUID_STRING_SIZE];

	if (!pn)
		pn = etl__man_provider_name(st, &ev->provider);
	if (!pn)
		pn = etl__meta_provider_name(st, &ev->provider);
	if (!pn)
		pn = etl__man_builtin_provider_name(st, &ev->provider);
	if (!pn) {
		etl_guid_format(&ev->provider, g);
		pn = etl__decode_printf(out, "{%s}", g);
	}
	out->provider_name = pn;
	out->event_name = "ManifestData";
	out->name = etl__decode_printf(out, "%s/ManifestData", pn ? pn : "?");
	out->source = ETL_DECODER_BUILTIN;
	return etl__schema_decode(out, &manifest_data_schema, ev->payload, ev->payload_len, ev->ptr_size, d);
}

const struct decoder etl__decoder_manifest_data = { "manifest-data", bid_manifest_data, decode_manifest_data, KINDS_EVENT };

/* ---- TraceLogging ---- */

static enum bid_strength bid_tlg(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	const uint8_t *meta;

	(void)st;
	if (ev->kind != ETL_HEADER_EVENT || !etl_event_extended_find(ev, ETL_EXT_EVENT_SCHEMA_TL, &meta, &b->len))
		return BID_NONE;
	b->what = meta;
	return BID_SURE;
}

static int decode_tlg(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
		      struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const uint8_t *traits = NULL;
	size_t traits_len = 0, pn_len = 0;
	const char *pn = NULL;
	struct tlg_entry *e = etl__meta_tlg_lookup(st, b->what, b->len, d);
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
		out->provider_name = etl__decode_printf(out, "{%s}", g);
	}
	if (e->bad) {
		etl__decode_name_undecoded(out, ev);
		out->reason = etl__decode_printf(out, "tracelogging metadata rejected: %s", e->diag.msg);
		*d = e->diag;
		d->offset = ETL_OFFSET_NONE; /* the fault is in the metadata item: report the record */
		return e->diag.code;
	}
	out->source = ETL_DECODER_TRACELOGGING;
	out->event_name = e->schema.event_name;
	out->event_tags = e->schema.event_tags;
	if (traits_len)
		out->has_group = etl__tlg_provider_group(traits, traits_len, &out->provider_group);
	out->name = etl__decode_printf(out, "%s/%s", out->provider_name ? out->provider_name : "?", e->schema.event_name);
	return etl__schema_decode(out, &e->schema, ev->payload, ev->payload_len, ev->ptr_size, d);
}

const struct decoder etl__decoder_tlg = { "tracelogging", bid_tlg, decode_tlg, KINDS_EVENT };
