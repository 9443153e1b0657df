/*
 * tlg.c - TraceLogging: the event metadata blob (extended item 11) becomes
 * a schema; the provider traits blob (item 12) gives the provider name.
 * Format reference 5b; TraceLoggingProvider.h for the TlgIn/TlgOut values.
 *
 * Metadata: u16 size, event tags (7-bit groups, high bit = more), event
 * name (UTF-8, NUL), then fields: name (NUL), u8 in-type (bits 0-4 type,
 * 0x20 const count, 0x40 variable count, 0x60 custom, 0x80 out-type
 * follows), [u8 out-type (0x80: field tags follow), [tags]], [u16 const
 * count], [u16 custom schema size, schema].  A struct (in-type 24) has its
 * member count in the out-type byte; its members follow it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "schema/schema.h"
#include "decode/tlg.h"
#include "util/cursor.h"

#define TLG_STRUCT 24
#define MAX_DEPTH 32

struct raw_field {
	const char *name;
	size_t name_len;
	uint8_t in, out;
	int has_out;
	uint16_t ccount;
	uint32_t tags;
	const uint8_t *custom;
	uint16_t custom_len;
};

/* Reads 7-bit groups while the high bit is set (at most 4 bytes). */
static uint32_t read_tags(struct etl_cursor *c)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		uint8_t b = cur_u8(c);
		v = v << 7 | (b & 0x7F);
		if (!(b & 0x80))
			break;
	}
	return v;
}

static const char *read_cstr(struct etl_cursor *c, size_t *len)
{
	const uint8_t *p = c->base + c->pos;
	size_t left = cur_left(c), n = 0;

	while (n < left && p[n] != 0)
		n++;
	if (n == left) {
		c->failed = 1;
		return NULL;
	}
	cur_skip(c, n + 1);
	*len = n;
	return (const char *)p;
}

static uint16_t map_out(uint8_t tlg_out, uint16_t in)
{
	switch (tlg_out & 0x7F) {
	case 1: return ETL_OUT_NOPRINT;
	case 2: return ETL_OUT_STRING;
	case 3: return ETL_OUT_BOOLEAN;
	case 4:
		switch (in) {
		case ETL_IN_INT8: case ETL_IN_UINT8: return ETL_OUT_HEXINT8;
		case ETL_IN_INT16: case ETL_IN_UINT16: return ETL_OUT_HEXINT16;
		case ETL_IN_INT32: case ETL_IN_UINT32: return ETL_OUT_HEXINT32;
		case ETL_IN_INT64: case ETL_IN_UINT64: return ETL_OUT_HEXINT64;
		default: return ETL_OUT_HEXBINARY;
		}
	case 5: return ETL_OUT_PID;
	case 6: return ETL_OUT_TID;
	case 7: return ETL_OUT_PORT;
	case 8: return ETL_OUT_IPV4;
	case 9: return ETL_OUT_IPV6;
	case 10: return ETL_OUT_SOCKETADDRESS;
	case 11: return ETL_OUT_XML;
	case 12: return ETL_OUT_JSON;
	case 13: return ETL_OUT_WIN32ERROR;
	case 14: return ETL_OUT_NTSTATUS;
	case 15: return ETL_OUT_HRESULT;
	case 16: return ETL_OUT_DATETIME;
	case 17: return ETL_OUT_LONG;
	case 18: return ETL_OUT_UNSIGNEDLONG;
	case 35: return ETL_OUT_UTF8;
	case 36: return ETL_OUT_PKCS7;
	case 37: return ETL_OUT_CODE_POINTER;
	case 38: return ETL_OUT_DATETIME_UTC;
	default: return ETL_OUT_NULL;
	}
}

struct builder {
	const struct raw_field *raw;
	struct etl_field *fields;
	uint16_t n, next;
	uint16_t *pool;
	size_t pool_next;
	struct etl_diag *d;
};

/* Assigns the next `count` fields (and their own members) to list. */
static int take_members(struct builder *b, uint16_t *list, unsigned count, unsigned depth)
{
	unsigned k;

	if (depth > MAX_DEPTH) {
		etl__diag_set(b->d, ETL_E_LIMIT, ETL_OFFSET_NONE, "tracelogging metadata: structs nested deeper than %d",
			      MAX_DEPTH);
		return ETL_E_LIMIT;
	}
	for (k = 0; k < count; k++) {
		uint16_t idx;
		struct etl_field *f;

		if (b->next >= b->n) {
			etl__diag_set(b->d, ETL_E_FORMAT, ETL_OFFSET_NONE,
				      "tracelogging metadata: a struct claims more members than there are fields");
			return ETL_E_FORMAT;
		}
		idx = b->next++;
		list[k] = idx;
		f = &b->fields[idx];
		if (f->flags & FF_STRUCT) {
			uint16_t *members = b->pool + b->pool_next;
			int st;
			/* each field is a member of at most one struct: a claim beyond the fields left
			 * is a lie (and would overrun the member pool) */
			if (f->nmembers > b->n - b->next) {
				etl__diag_set(b->d, ETL_E_FORMAT, ETL_OFFSET_NONE,
					      "tracelogging metadata: struct '%s' claims %u members, only %u fields follow",
					      f->name, (unsigned)f->nmembers, (unsigned)(b->n - b->next));
				return ETL_E_FORMAT;
			}
			b->pool_next += f->nmembers;
			f->members = members;
			st = take_members(b, members, f->nmembers, depth + 1);
			if (st != ETL_OK)
				return st;
		}
	}
	return ETL_OK;
}

/* The raw field descriptions after the event name; *names grows by the bytes their names and
 * custom schemas need. */
static int read_raw_fields(struct etl_cursor *c, struct raw_field *raw, size_t cap, size_t *nraw, size_t *names,
			   struct etl_diag *d)
{
	while (cur_left(c) > 0) {
		struct raw_field *f = &raw[*nraw];
		size_t at = c->pos;

		if (*nraw == cap) {
			etl__diag_set(d, ETL_E_LIMIT, at, "tracelogging metadata: too many fields");
			return ETL_E_LIMIT;
		}
		f->name = read_cstr(c, &f->name_len);
		f->in = cur_u8(c);
		if (f->in & 0x80) {
			f->has_out = 1;
			f->out = cur_u8(c);
			if (f->out & 0x80)
				f->tags = read_tags(c);
		}
		if ((f->in & 0x60) == 0x20) {
			f->ccount = cur_u16(c);
		} else if ((f->in & 0x60) == 0x60) {
			f->custom_len = cur_u16(c);
			f->custom = cur_take(c, f->custom_len);
			*names += f->custom_len;
		}
		if (!cur_ok(c)) {
			etl__diag_set(d, ETL_E_FORMAT, at, "tracelogging metadata: field %zu runs past the metadata", *nraw);
			return ETL_E_FORMAT;
		}
		*names += 2 * f->name_len + 1; /* as UTF-8: Latin-1 doubles a byte at most */
		(*nraw)++;
	}
	return ETL_OK;
}

/* Field f from its raw description; its name (and custom schema) are copied to *p. */
static int fill_field(const struct raw_field *r, struct etl_field *f, uint8_t **p, struct etl_diag *d)
{
	uint8_t base = r->in & 0x1F;

	memset(f, 0, sizeof(*f));
	f->name = (const char *)*p;
	*p += etl__text8_to_utf8((const uint8_t *)r->name, r->name_len, (char *)*p) + 1;
	f->tags = r->tags;
	switch (r->in & 0x60) {
	case 0x20: f->flags |= FF_COUNT_CONST; f->count = r->ccount; break;
	case 0x40: f->flags |= FF_COUNT_DATA; break;
	case 0x60:
		f->flags |= FF_CUSTOM;
		memcpy(*p, r->custom, r->custom_len);
		f->custom_schema = *p;
		f->custom_len = r->custom_len;
		*p += r->custom_len;
		break;
	default: break;
	}
	if (base == TLG_STRUCT) {
		f->flags |= FF_STRUCT;
		f->nmembers = r->out & 0x7F;
		if (!r->has_out || f->nmembers == 0) {
			etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "tracelogging metadata: struct '%s' has no member count",
				      f->name);
			return ETL_E_FORMAT;
		}
		return ETL_OK;
	}
	if (base == 16 || base > 25) {
		etl__diag_set(d, ETL_E_UNSUPPORTED, ETL_OFFSET_NONE, "tracelogging metadata: field '%s' has in-type %u",
			      f->name, (unsigned)base);
		return ETL_E_UNSUPPORTED;
	}
	f->in_type = base;
	if (base == 14) /* TlgInBINARY: u16 size, then the bytes */
		f->flags |= FF_LEN_PREFIX16;
	f->out_type = r->has_out ? map_out(r->out, base) : ETL_OUT_NULL;
	if (f->flags & FF_CUSTOM)
		f->in_type = ETL_IN_BINARY;
	return ETL_OK;
}

/* The fields in one block (fields, two index pools, names, event name) and the tree of members. */
static int build(struct etl_schema *out, const struct raw_field *raw, size_t nraw, size_t names,
		 const char *event_name, size_t event_len, struct etl_diag *d)
{
	size_t bytes = nraw * sizeof(struct etl_field) + 2 * nraw * sizeof(uint16_t) + names + 2 * event_len + 1 + 16, i;
	uint8_t *block = etl__malloc(bytes), *p;
	struct builder b;
	int st;

	if (!block) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	out->block = block;
	out->fields = (struct etl_field *)(void *)block; /* malloc alignment */
	p = block + nraw * sizeof(struct etl_field);
	b.pool = (uint16_t *)(void *)p; /* after the fields: 2-byte aligned */
	out->top = b.pool + nraw;
	p += 2 * nraw * sizeof(uint16_t);
	for (i = 0; i < nraw; i++)
		if ((st = fill_field(&raw[i], &out->fields[i], &p, d)) != ETL_OK)
			return st;
	etl__text8_to_utf8((const uint8_t *)event_name, event_len, (char *)p); /* names are UTF-8 */
	out->event_name = (char *)p;
	out->nfields = (uint16_t)nraw;
	b.raw = raw;
	b.fields = out->fields;
	b.n = (uint16_t)nraw;
	b.next = 0;
	b.pool_next = 0;
	b.d = d;
	out->ntop = 0;
	while (b.next < b.n) {
		if ((st = take_members(&b, out->top + out->ntop, 1, 0)) != ETL_OK)
			return st;
		out->ntop++;
	}
	return ETL_OK;
}

int etl__tlg_schema(const uint8_t *meta, size_t len, struct etl_schema *out, struct etl_diag *d)
{
	struct etl_cursor c;
	struct raw_field *raw;
	size_t nraw = 0, cap, names = 0, event_len = 0;
	const char *event_name;
	uint16_t size;
	uint32_t event_tags;
	int st;

	memset(out, 0, sizeof(*out));
	cur_init(&c, meta, len);
	size = cur_u16(&c);
	if (!cur_ok(&c) || size < 4 || size > len) {
		etl__diag_set(d, ETL_E_FORMAT, 0, "tracelogging metadata: size %u does not fit the item's %zu bytes",
			      (unsigned)size, len);
		return ETL_E_FORMAT;
	}
	c.len = size;
	event_tags = read_tags(&c);
	event_name = read_cstr(&c, &event_len);
	if (!cur_ok(&c)) {
		etl__diag_set(d, ETL_E_FORMAT, c.pos, "tracelogging metadata: the event name is not terminated");
		return ETL_E_FORMAT;
	}
	/* every field takes at least 2 bytes: a bound on the count */
	cap = cur_left(&c) / 2 + 1;
	if (cap > 65535)
		cap = 65535;
	raw = etl__calloc(cap, sizeof(*raw));
	if (!raw) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	st = read_raw_fields(&c, raw, cap, &nraw, &names, d);
	if (st == ETL_OK)
		st = build(out, raw, nraw, names, event_name, event_len, d);
	etl__free(raw);
	if (st != ETL_OK) {
		etl__free(out->block);
		memset(out, 0, sizeof(*out));
		return st;
	}
	out->event_tags = event_tags;
	return ETL_OK;
}

int etl__tlg_provider_name(const uint8_t *traits, size_t len, const char **name, size_t *name_len)
{
	struct etl_cursor c;
	uint16_t size;

	cur_init(&c, traits, len);
	size = cur_u16(&c);
	if (!cur_ok(&c) || size < 3 || size > len)
		return ETL_E_FORMAT;
	c.len = size;
	*name = read_cstr(&c, name_len);
	return cur_ok(&c) ? ETL_OK : ETL_E_FORMAT;
}

int etl__tlg_provider_group(const uint8_t *traits, size_t len, struct etl_guid *group)
{
	struct etl_cursor c;
	uint16_t size;
	size_t n;

	cur_init(&c, traits, len);
	size = cur_u16(&c);
	if (!cur_ok(&c) || size < 3 || size > len)
		return 0;
	c.len = size;
	if (!read_cstr(&c, &n))
		return 0;
	while (cur_left(&c) >= 3) {
		size_t at = c.pos;
		uint16_t tsize = cur_u16(&c);
		uint8_t type = cur_u8(&c);
		if (tsize < 3 || (size_t)tsize - 3 > cur_left(&c))
			return 0;
		if (type == 1 && (size_t)tsize - 3 >= 16) { /* EtwProviderTraitTypeGroup */
			cur_guid(&c, group);
			return cur_ok(&c);
		}
		cur_seek(&c, at + tsize);
	}
	return 0;
}
