/*
 * access.c - the public accessors of a decoded event and its properties.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "schema/schema.h"
#include "util/cursor.h"

const char *etl_decoder_description(enum etl_decoder k)
{
	switch (k) {
	case ETL_DECODER_NONE: return "unknown";
	case ETL_DECODER_MANIFEST: return "manifest";
	case ETL_DECODER_EVENTSOURCE: return "in-trace (EventSource manifest)";
	case ETL_DECODER_TRACELOGGING: return "TraceLogging";
	case ETL_DECODER_TRACE_METADATA: return "in-trace (merge metadata)";
	case ETL_DECODER_BUILTIN: return "built-in";
	case ETL_DECODER_TMF: return "WPP (TMF files)";
	case ETL_DECODER_BUILTIN_MANIFEST: return "built-in manifest";
	}
	return "unknown";
}

const char *etl_decoder_name(enum etl_decoder k)
{
	switch (k) {
	case ETL_DECODER_NONE: return "none";
	case ETL_DECODER_MANIFEST: return "manifest";
	case ETL_DECODER_EVENTSOURCE: return "eventsource";
	case ETL_DECODER_TRACELOGGING: return "tracelogging";
	case ETL_DECODER_TRACE_METADATA: return "trace-metadata";
	case ETL_DECODER_BUILTIN: return "builtin";
	case ETL_DECODER_TMF: return "tmf";
	case ETL_DECODER_BUILTIN_MANIFEST: return "builtin-manifest";
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
const char *etl_decoded_error(const struct etl_decoded *d) { return d->error; }
const char *etl_decoded_error_field(const struct etl_decoded *d) { return d->error_field; }
size_t etl_decoded_derived_count(const struct etl_decoded *d) { return d->nderived; }
int etl_decoded_described_version(const struct etl_decoded *d) { return d->older_version - 1; }

const struct etl_property *etl_decoded_derived_at(const struct etl_decoded *d, size_t i)
{
	return i < d->nderived ? &d->derived[i] : NULL;
}

enum etl_decode_status etl_decoded_status(const struct etl_decoded *d)
{
	if (d->source == ETL_DECODER_NONE)
		return ETL_DECODE_RAW;
	return d->error ? ETL_DECODE_PARTIAL : ETL_DECODE_COMPLETE;
}
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
		if (etl__grow(&out, &cap, n + pl + 1, 1, 256) != 0) {
			etl__free(out);
			return NULL;
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

	/* the library asks with the same literal its layouts name the field with: the linker
	 * merges equal literals, so the address mostly answers before any compare */
	for (i = 0; i < d->ntop; i++)
		if (d->nodes[i].name == name)
			return &d->nodes[i];
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
	       ((t >= ETL_IN_INT8 && t <= ETL_IN_UINT64) || t == ETL_IN_HEXINT32 || t == ETL_IN_HEXINT64 ||
		t == ETL_IN_POINTER || t == ETL_IN_SIZET || t == ETL_IN_BOOLEAN || t == ETL_IN_FILETIME) &&
	       (p->len == 1 || p->len == 2 || p->len == 4 || p->len == 8);
}

static int is_signed_in(uint16_t t)
{
	return t == ETL_IN_INT8 || t == ETL_IN_INT16 || t == ETL_IN_INT32 || t == ETL_IN_INT64;
}

int etl_property_as_u64(const struct etl_property *p, uint64_t *v)
{
	if (!is_int(p))
		return ETL_E_MISUSE;
	switch (p->len) {
	case 1: *v = p->data[0]; break;
	case 2: /* a port is in network order: its number, as its text shows it */
		*v = p->out_type == ETL_OUT_PORT ? (uint64_t)p->data[0] << 8 | p->data[1] : etl_le16(p->data);
		break;
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
	if (p->kind == ETL_PROPERTY_VALUE && p->data && p->in_type == ETL_IN_FLOAT && p->len == 4) {
		uint32_t u = etl_le32(p->data);
		float f;
		memcpy(&f, &u, sizeof(f));
		*v = f;
		return ETL_OK;
	}
	if (p->kind == ETL_PROPERTY_VALUE && p->data && p->in_type == ETL_IN_DOUBLE && p->len == 8) {
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
	if (p->kind != ETL_PROPERTY_VALUE || !p->data || p->in_type != ETL_IN_GUID || p->len != 16)
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
	return t == ETL_IN_UNICODESTRING || t == ETL_IN_ANSISTRING || t == ETL_IN_COUNTEDSTRING ||
	       t == ETL_IN_COUNTEDANSISTRING || t == ETL_IN_MOF_COUNTEDSTRING || t == ETL_IN_MOF_COUNTEDANSISTRING ||
	       t == ETL_IN_REVERSEDCOUNTEDSTRING || t == ETL_IN_REVERSEDCOUNTEDANSISTRING ||
	       t == ETL_IN_NONNULLTERMINATEDSTRING || t == ETL_IN_NONNULLTERMINATEDANSISTRING;
}

static int is_char_text(const struct etl_property *p)
{
	uint16_t t = p->in_type;
	return p->out_type == ETL_OUT_STRING && (t == ETL_IN_UINT8 || t == ETL_IN_UINT16 || t == ETL_IN_INT8 || t == ETL_IN_INT16);
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
	return etl__schema_format((struct etl_property *)(uintptr_t)p, 0);
}

const char *etl_property_format_flags(const struct etl_property *p, unsigned flags)
{
	return etl__schema_format((struct etl_property *)(uintptr_t)p, flags & ETL_FORMAT_NO_MAPS);
}

/* What the in-type alone says of a value's kind (etl_property_value_kind). */
enum in_kind {
	IK_OTHER,   /* binary, or none without data */
	IK_NONE,    /* the null type: none */
	IK_STRING,  /* text, or a character */
	IK_BINARY,  /* by its out-type (binary_kind), binary without data */
	IK_HEXDUMP, /* by its out-type, none without data */
	IK_GUID, IK_TIME, IK_SID, IK_REAL,
	/* integers: by the out-type (integer_kind), else as said here; none without data */
	IK_SIGNED, IK_UNSIGNED, IK_HEX, IK_BOOLEAN
};

static const uint8_t in_kind_low[ETL_IN_COUNTEDBINARY + 1] = {
	[ETL_IN_NULL] = IK_NONE, [ETL_IN_UNICODESTRING] = IK_STRING, [ETL_IN_ANSISTRING] = IK_STRING,
	[ETL_IN_INT8] = IK_SIGNED, [ETL_IN_UINT8] = IK_UNSIGNED, [ETL_IN_INT16] = IK_SIGNED,
	[ETL_IN_UINT16] = IK_UNSIGNED, [ETL_IN_INT32] = IK_SIGNED, [ETL_IN_UINT32] = IK_UNSIGNED,
	[ETL_IN_INT64] = IK_SIGNED, [ETL_IN_UINT64] = IK_UNSIGNED, [ETL_IN_FLOAT] = IK_REAL,
	[ETL_IN_DOUBLE] = IK_REAL, [ETL_IN_BOOLEAN] = IK_BOOLEAN, [ETL_IN_BINARY] = IK_BINARY,
	[ETL_IN_GUID] = IK_GUID, [ETL_IN_POINTER] = IK_HEX, [ETL_IN_FILETIME] = IK_TIME,
	[ETL_IN_SYSTEMTIME] = IK_TIME, [ETL_IN_SID] = IK_SID, [ETL_IN_HEXINT32] = IK_HEX,
	[ETL_IN_HEXINT64] = IK_HEX, [ETL_IN_COUNTEDSTRING] = IK_STRING,
	[ETL_IN_COUNTEDANSISTRING] = IK_STRING, [ETL_IN_COUNTEDBINARY] = IK_BINARY,
};

#define MOF(t) ((t) - ETL_IN_MOF_COUNTEDSTRING) /* the in-types from 300 */
static const uint8_t in_kind_mof[MOF(ETL_IN_WBEMSID) + 1] = {
	[MOF(ETL_IN_MOF_COUNTEDSTRING)] = IK_STRING, [MOF(ETL_IN_MOF_COUNTEDANSISTRING)] = IK_STRING,
	[MOF(ETL_IN_REVERSEDCOUNTEDSTRING)] = IK_STRING, [MOF(ETL_IN_REVERSEDCOUNTEDANSISTRING)] = IK_STRING,
	[MOF(ETL_IN_NONNULLTERMINATEDSTRING)] = IK_STRING,
	[MOF(ETL_IN_NONNULLTERMINATEDANSISTRING)] = IK_STRING, [MOF(ETL_IN_UNICODECHAR)] = IK_STRING,
	[MOF(ETL_IN_ANSICHAR)] = IK_STRING, [MOF(ETL_IN_SIZET)] = IK_HEX,
	[MOF(ETL_IN_HEXDUMP)] = IK_HEXDUMP, [MOF(ETL_IN_WBEMSID)] = IK_SID,
};
#undef MOF

/* The kind of an integer-typed value, from its out-type first (as format.c renders it). */
static enum etl_value_kind integer_kind(const struct etl_property *p, enum in_kind k)
{
	uint16_t in = p->in_type;
	size_t n = p->len;

	switch (p->out_type) {
	case ETL_OUT_BOOLEAN:
		return ETL_VALUE_BOOLEAN;
	case ETL_OUT_STRING:
		if (in == ETL_IN_UINT8 || in == ETL_IN_INT8 || in == ETL_IN_UINT16 || in == ETL_IN_INT16)
			return ETL_VALUE_STRING;
		break;
	case ETL_OUT_HEXINT8: case ETL_OUT_HEXINT16: case ETL_OUT_HEXINT32: case ETL_OUT_HEXINT64:
	case ETL_OUT_CODE_POINTER: case ETL_OUT_ERRORCODE: case ETL_OUT_WIN32ERROR: case ETL_OUT_NTSTATUS:
	case ETL_OUT_HRESULT:
		return ETL_VALUE_HEX;
	case ETL_OUT_PORT:
		if (n == 2)
			return ETL_VALUE_ADDRESS;
		break;
	case ETL_OUT_IPV4:
		if (n == 4)
			return ETL_VALUE_ADDRESS;
		break;
	case ETL_OUT_DATETIME: case ETL_OUT_DATETIME_UTC:
		if (n == 8)
			return ETL_VALUE_TIME;
		break;
	case ETL_OUT_BYTE: case ETL_OUT_SHORT: case ETL_OUT_INT: case ETL_OUT_LONG:
		return ETL_VALUE_SIGNED;
	case ETL_OUT_UNSIGNEDBYTE: case ETL_OUT_UNSIGNEDSHORT: case ETL_OUT_UNSIGNEDINT: case ETL_OUT_UNSIGNEDLONG:
		return ETL_VALUE_UNSIGNED;
	default:
		break;
	}
	/* by the in-type: pointers, sizes and HexInt in hex */
	return k == IK_HEX ? ETL_VALUE_HEX : k == IK_BOOLEAN ? ETL_VALUE_BOOLEAN
	       : k == IK_SIGNED ? ETL_VALUE_SIGNED : ETL_VALUE_UNSIGNED;
}

/* The kind of a binary value, by its out-type. */
static enum etl_value_kind binary_kind(const struct etl_property *p)
{
	uint16_t out = p->out_type;
	size_t n = p->len;

	if (out == ETL_OUT_IPV6 && n == 16)
		return ETL_VALUE_ADDRESS;
	if (out == ETL_OUT_SOCKETADDRESS && n >= 8 &&
	    (etl_le16(p->data) == 2 || (etl_le16(p->data) == 23 && n >= 24)))
		return ETL_VALUE_ADDRESS;
	if (out == ETL_OUT_UTF8 || out == ETL_OUT_STRING || out == ETL_OUT_XML || out == ETL_OUT_JSON)
		return ETL_VALUE_STRING;
	return ETL_VALUE_BINARY;
}

enum etl_value_kind etl_property_value_kind(const struct etl_property *p)
{
	/* a table lookup: every value of every decoded event asks this (JSON, CSV, Python) */
	uint16_t in = p->in_type;
	enum in_kind k = in < sizeof(in_kind_low) ? (enum in_kind)in_kind_low[in]
			 : (unsigned)in - ETL_IN_MOF_COUNTEDSTRING < sizeof(in_kind_mof)
				 ? (enum in_kind)in_kind_mof[in - ETL_IN_MOF_COUNTEDSTRING]
				 : IK_OTHER;

	if (p->kind != ETL_PROPERTY_VALUE || k == IK_NONE)
		return ETL_VALUE_NONE;
	if (k == IK_STRING)
		return ETL_VALUE_STRING;
	if (!p->data)
		return k == IK_BINARY ? ETL_VALUE_BINARY : ETL_VALUE_NONE;
	if (k >= IK_SIGNED)
		return integer_kind(p, k);
	switch (k) {
	case IK_BINARY: case IK_HEXDUMP:
		return binary_kind(p);
	case IK_GUID:
		return ETL_VALUE_GUID;
	case IK_TIME:
		return ETL_VALUE_TIME;
	case IK_SID:
		return ETL_VALUE_SID;
	case IK_REAL:
		return ETL_VALUE_REAL;
	default:
		return ETL_VALUE_BINARY;
	}
}

int etl__schema_add_derived(struct etl_decoded *d, const char *name, uint16_t in_type, uint16_t out_type,
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

void etl__schema_reset(struct etl_decoded *d)
{
	etl__arena_reset(&d->arena);
	memset(d, 0, offsetof(struct etl_decoded, nodes));
	if (!d->max_nodes)
		d->max_nodes = 1u << 20; /* callers other than the reader (tests, fuzzing) */
}
