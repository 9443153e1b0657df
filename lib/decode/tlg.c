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

#include "decode/schema.h"
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
	case 1: return OUT_NOPRINT;
	case 2: return OUT_STRING;
	case 3: return OUT_BOOLEAN;
	case 4:
		switch (in) {
		case IN_INT8: case IN_UINT8: return OUT_HEXINT8;
		case IN_INT16: case IN_UINT16: return OUT_HEXINT16;
		case IN_INT32: case IN_UINT32: return OUT_HEXINT32;
		case IN_INT64: case IN_UINT64: return OUT_HEXINT64;
		default: return OUT_HEXBINARY;
		}
	case 5: return OUT_PID;
	case 6: return OUT_TID;
	case 7: return OUT_PORT;
	case 8: return OUT_IPV4;
	case 9: return OUT_IPV6;
	case 10: return OUT_SOCKETADDRESS;
	case 11: return OUT_XML;
	case 12: return OUT_JSON;
	case 13: return OUT_WIN32ERROR;
	case 14: return OUT_NTSTATUS;
	case 15: return OUT_HRESULT;
	case 16: return OUT_DATETIME;
	case 17: return OUT_LONG;
	case 18: return OUT_UNSIGNEDLONG;
	case 35: return OUT_UTF8;
	case 36: return OUT_PKCS7;
	case 37: return OUT_CODE_POINTER;
	case 38: return OUT_DATETIME_UTC;
	default: return OUT_NULL;
	}
}

struct builder {
	struct raw_field *raw;
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

int etl__tlg_schema(const uint8_t *meta, size_t len, struct etl_schema *out, struct etl_diag *d)
{
	struct etl_cursor c;
	struct raw_field *raw = NULL;
	size_t nraw = 0, cap, names = 0, i, event_len = 0, bytes;
	const char *event_name;
	uint16_t size;
	uint8_t *block, *p;
	struct builder b;
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
	while (cur_left(&c) > 0) {
		struct raw_field *f = &raw[nraw];
		size_t at = c.pos;

		if (nraw == cap) {
			st = ETL_E_LIMIT;
			etl__diag_set(d, st, at, "tracelogging metadata: too many fields");
			goto fail;
		}
		f->name = read_cstr(&c, &f->name_len);
		f->in = cur_u8(&c);
		if (f->in & 0x80) {
			f->has_out = 1;
			f->out = cur_u8(&c);
			if (f->out & 0x80)
				f->tags = read_tags(&c);
		}
		if ((f->in & 0x60) == 0x20) {
			f->ccount = cur_u16(&c);
		} else if ((f->in & 0x60) == 0x60) {
			f->custom_len = cur_u16(&c);
			f->custom = cur_take(&c, f->custom_len);
			names += f->custom_len;
		}
		if (!cur_ok(&c)) {
			st = ETL_E_FORMAT;
			etl__diag_set(d, st, at, "tracelogging metadata: field %zu runs past the metadata", nraw);
			goto fail;
		}
		names += f->name_len + 1;
		nraw++;
	}
	/* one block: fields, two index pools, names, event name */
	bytes = nraw * sizeof(struct etl_field) + 2 * nraw * sizeof(uint16_t) + names + event_len + 1 + 16;
	block = etl__malloc(bytes);
	if (!block) {
		st = ETL_E_NOMEM;
		etl__diag_set(d, st, ETL_OFFSET_NONE, "out of memory");
		goto fail;
	}
	out->block = block;
	out->fields = (struct etl_field *)(void *)block; /* malloc alignment */
	p = block + nraw * sizeof(struct etl_field);
	b.pool = (uint16_t *)(void *)p; /* after the fields: 2-byte aligned */
	out->top = b.pool + nraw;
	p += 2 * nraw * sizeof(uint16_t);
	for (i = 0; i < nraw; i++) {
		struct etl_field *f = &out->fields[i];
		uint8_t base = raw[i].in & 0x1F;

		memset(f, 0, sizeof(*f));
		memcpy(p, raw[i].name, raw[i].name_len);
		p[raw[i].name_len] = 0;
		f->name = (const char *)p;
		p += raw[i].name_len + 1;
		f->tags = raw[i].tags;
		switch (raw[i].in & 0x60) {
		case 0x20: f->flags |= FF_COUNT_CONST; f->count = raw[i].ccount; break;
		case 0x40: f->flags |= FF_COUNT_DATA; break;
		case 0x60:
			f->flags |= FF_CUSTOM;
			memcpy(p, raw[i].custom, raw[i].custom_len);
			f->custom_schema = p;
			f->custom_len = raw[i].custom_len;
			p += raw[i].custom_len;
			break;
		default: break;
		}
		if (base == TLG_STRUCT) {
			f->flags |= FF_STRUCT;
			f->nmembers = raw[i].out & 0x7F;
			if (!raw[i].has_out || f->nmembers == 0) {
				st = ETL_E_FORMAT;
				etl__diag_set(d, st, ETL_OFFSET_NONE,
					      "tracelogging metadata: struct '%s' has no member count", f->name);
				goto fail_block;
			}
			continue;
		}
		if (base == 16 || base > 25) {
			st = ETL_E_UNSUPPORTED;
			etl__diag_set(d, st, ETL_OFFSET_NONE, "tracelogging metadata: field '%s' has in-type %u",
				      f->name, (unsigned)base);
			goto fail_block;
		}
		f->in_type = base;
		if (base == 14) /* TlgInBINARY: u16 size, then the bytes */
			f->flags |= FF_LEN_PREFIX16;
		f->out_type = raw[i].has_out ? map_out(raw[i].out, base) : OUT_NULL;
		if (f->flags & FF_CUSTOM)
			f->in_type = IN_BINARY;
	}
	memcpy(p, event_name, event_len);
	p[event_len] = 0;
	out->event_name = (char *)p;
	out->event_tags = event_tags;
	out->nfields = (uint16_t)nraw;
	b.raw = raw;
	b.fields = out->fields;
	b.n = (uint16_t)nraw;
	b.next = 0;
	b.pool_next = 0;
	b.d = d;
	out->ntop = 0;
	while (b.next < b.n) {
		st = take_members(&b, out->top + out->ntop, 1, 0);
		if (st != ETL_OK)
			goto fail_block;
		out->ntop++;
	}
	etl__free(raw);
	return ETL_OK;
fail_block:
	etl__free(block);
	out->block = NULL;
fail:
	etl__free(raw);
	memset(out, 0, sizeof(*out));
	return st;
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
