/*
 * tei.c - merge-time metadata: the KernelTraceControl MetaData events that
 * WPR/xperf merges put into a trace.  EventInfo (opcode 32) carries a
 * TRACE_EVENT_INFO blob exactly as TDH lays it out in memory; EventMapInfo
 * (opcode 33) a provider GUID and an EVENT_MAP_INFO (value and bit maps).
 * Format reference 5e; tdh.h for the structures.
 *
 * TRACE_EVENT_INFO: ProviderGuid(16) EventGuid(16) EVENT_DESCRIPTOR(16)
 * DecodingSource(4), then u32 offsets of ProviderName, LevelName,
 * ChannelName, KeywordsName, TaskName, OpcodeName, EventMessage,
 * ProviderMessage, BinaryXML, BinaryXMLSize, EventName, EventAttributes,
 * then PropertyCount, TopLevelPropertyCount, Flags, and PropertyCount
 * EVENT_PROPERTY_INFO of 24 bytes: Flags, NameOffset, {InType, OutType,
 * MapNameOffset | StructStartIndex, NumOfStructMembers, pad}, count/index,
 * length/index, tags.  Names are NUL-terminated UTF-16 at their offsets.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "decode/tei.h"
#include "util/cursor.h"

#define TEI_FIXED 112u
#define EPI_SIZE 24u

/* EVENT_PROPERTY_INFO flags */
#define PROP_STRUCT 0x1u
#define PROP_PARAM_LENGTH 0x2u
#define PROP_PARAM_COUNT 0x4u
#define PROP_PARAM_FIXED_LENGTH 0x10u
#define PROP_PARAM_FIXED_COUNT 0x20u
#define PROP_CUSTOM_SCHEMA 0x80u

/* A UTF-16 name at off (0 = none), as UTF-8 in out; returns bytes written incl. NUL, 0 if none. */
static size_t name_at(const uint8_t *p, size_t len, uint32_t off, char *out, size_t cap)
{
	size_t used, n;
	char *s;

	if (off == 0 || off >= len || (len - off) < 2)
		return 0;
	s = etl__utf16_to_utf8(p + off, (len - off) / 2, &used);
	if (!s)
		return 0;
	n = strlen(s) + 1;
	if (out && n <= cap)
		memcpy(out, s, n);
	etl__free(s);
	return n;
}

static const char *strip_win(const char *s)
{
	return s && strncmp(s, "win:", 4) == 0 ? s + 4 : s;
}

/* Builds a schema in one block: fields, member and top pools, then the names. */
struct tei_build {
	const uint8_t *p;
	size_t len;
	uint32_t pc;       /* properties */
	uint16_t *pool;    /* member lists (pc entries), then the top list */
	char *strp, *end;  /* names still to write */
	struct etl_diag *d;
};

/* The next name of the block from the UTF-16 name at off: NULL when there is none. */
static const char *take_name(struct tei_build *b, uint32_t off)
{
	size_t n = name_at(b->p, b->len, off, b->strp, (size_t)(b->end - b->strp));
	const char *s = n ? b->strp : NULL;

	b->strp += n;
	return s;
}

/* The fixed header: ids, descriptor, the name offsets, and the property counts. */
static int parse_header(struct etl_cursor *c, size_t len, struct etl_tei *out, uint32_t offs[12], uint32_t *pc,
			uint32_t *tpc, struct etl_diag *d)
{
	uint32_t i;

	cur_guid(c, &out->provider);
	cur_skip(c, 16); /* EventGuid */
	out->id = cur_u16(c);
	out->version = cur_u8(c);
	cur_skip(c, 1);
	cur_skip(c, 1);
	out->opcode = cur_u8(c);
	out->task = cur_u16(c);
	cur_skip(c, 8);
	out->decoding_source = cur_u32(c);
	for (i = 0; i < 12; i++)
		offs[i] = cur_u32(c);
	*pc = cur_u32(c);
	*tpc = cur_u32(c);
	cur_skip(c, 4);
	if (!cur_ok(c)) {
		etl__diag_set(d, ETL_E_TRUNCATED, 0, "TRACE_EVENT_INFO: %zu bytes are too few for its header", len);
		return ETL_E_TRUNCATED;
	}
	if (*pc > 0xFFFF || *tpc > *pc || (size_t)*pc * EPI_SIZE > len - TEI_FIXED) {
		etl__diag_set(d, ETL_E_FORMAT, 100, "TRACE_EVENT_INFO: %u properties (%u top-level) do not fit %zu bytes",
			      (unsigned)*pc, (unsigned)*tpc, len);
		return ETL_E_FORMAT;
	}
	return ETL_OK;
}

/* Bytes of the names: provider, task, opcode, event, then each property and map name. */
static size_t names_size(const uint8_t *p, size_t len, const uint32_t offs[12], uint32_t pc)
{
	size_t names = name_at(p, len, offs[0], NULL, 0) + name_at(p, len, offs[4], NULL, 0) +
		       name_at(p, len, offs[5], NULL, 0) + name_at(p, len, offs[10], NULL, 0);
	uint32_t i;

	for (i = 0; i < pc; i++) {
		const uint8_t *e = p + TEI_FIXED + (size_t)i * EPI_SIZE;
		names += name_at(p, len, etl_le32(e + 4), NULL, 0) + 1;
		if (!(etl_le32(e) & PROP_STRUCT))
			names += name_at(p, len, etl_le32(e + 12), NULL, 0);
	}
	return names;
}

/* A count or length that names a property past the last one. */
static int bad_reference(struct tei_build *b, uint32_t i, const char *what, const char *name, unsigned ref)
{
	etl__diag_set(b->d, ETL_E_FORMAT, TEI_FIXED + (size_t)i * EPI_SIZE,
		      "TRACE_EVENT_INFO: %s of '%s' refers to property %u of %u", what, name, ref, (unsigned)b->pc);
	return ETL_E_FORMAT;
}

/* Count and length of property i (EVENT_PROPERTY_INFO flags fl, count/length words). */
static int count_and_length(struct tei_build *b, uint32_t i, struct etl_field *f, uint32_t fl, uint16_t cnt,
			    uint16_t ln)
{
	int text = f->in_type == ETL_IN_BINARY || f->in_type == ETL_IN_UNICODESTRING || f->in_type == ETL_IN_ANSISTRING;

	if ((fl & PROP_PARAM_FIXED_COUNT) || (!(fl & PROP_PARAM_COUNT) && cnt > 1)) {
		/* older TDH (before Windows 8) marks a fixed array only by count > 1 */
		f->flags |= FF_COUNT_CONST;
		f->count = cnt;
	} else if (fl & PROP_PARAM_COUNT) {
		if (cnt >= b->pc)
			return bad_reference(b, i, "count", f->name, cnt);
		f->flags |= FF_COUNT_FIELD;
		f->count = cnt;
	}
	if (fl & PROP_PARAM_LENGTH) {
		if (ln >= b->pc)
			return bad_reference(b, i, "length", f->name, ln);
		f->flags |= FF_LEN_FIELD;
		f->length = ln;
	} else if (((fl & PROP_PARAM_FIXED_LENGTH) || (text && ln > 0 && !(fl & PROP_STRUCT))) && text) {
		/* for strings and binaries TDH puts a fixed length here */
		f->flags |= FF_LEN_CONST;
		f->length = ln;
	}
	if (fl & PROP_CUSTOM_SCHEMA)
		f->flags |= FF_CUSTOM;
	return ETL_OK;
}

/* EVENT_PROPERTY_INFO i into field f. */
static int parse_property(struct tei_build *b, uint32_t i, struct etl_field *f)
{
	const uint8_t *e = b->p + TEI_FIXED + (size_t)i * EPI_SIZE;
	uint32_t fl = etl_le32(e);

	memset(f, 0, sizeof(*f));
	f->name = take_name(b, etl_le32(e + 4));
	if (!f->name) {
		*b->strp = 0;
		f->name = b->strp++;
	}
	if (fl & PROP_STRUCT) {
		uint16_t start = etl_le16(e + 8), num = etl_le16(e + 10);
		if ((uint32_t)start + num > b->pc || start <= i) {
			etl__diag_set(b->d, ETL_E_FORMAT, TEI_FIXED + (size_t)i * EPI_SIZE,
				      "TRACE_EVENT_INFO: struct '%s' members %u..%u are out of range", f->name,
				      (unsigned)start, (unsigned)(start + num));
			return ETL_E_FORMAT;
		}
		f->flags |= FF_STRUCT;
		f->nmembers = num;
		f->members = b->pool + start; /* struct members are consecutive properties */
		for (; num > 0; num--, start++)
			b->pool[start] = start;
	} else {
		f->in_type = etl_le16(e + 8);
		f->out_type = etl_le16(e + 10);
		f->map_name = take_name(b, etl_le32(e + 12));
	}
	return count_and_length(b, i, f, fl, etl_le16(e + 16), etl_le16(e + 18));
}

int etl__tei_parse(const uint8_t *p, size_t len, struct etl_tei *out, struct etl_diag *d)
{
	struct etl_cursor c;
	struct tei_build b;
	uint32_t offs[12], pc, tpc, i;
	size_t bytes;
	uint8_t *block;
	struct etl_schema *s = &out->schema;
	int st;

	memset(out, 0, sizeof(*out));
	if (len < TEI_FIXED) {
		etl__diag_set(d, ETL_E_TRUNCATED, 0, "TRACE_EVENT_INFO: %zu bytes are too few for its header", len);
		return ETL_E_TRUNCATED;
	}
	cur_init(&c, p, len);
	if ((st = parse_header(&c, len, out, offs, &pc, &tpc, d)) != ETL_OK)
		return st;
	bytes = (size_t)pc * sizeof(struct etl_field) + (size_t)pc * sizeof(uint16_t) * 2 + names_size(p, len, offs, pc) + 8;
	block = etl__malloc(bytes);
	if (!block) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	s->block = block;
	s->fields = (struct etl_field *)(void *)block;
	b.p = p;
	b.len = len;
	b.pc = pc;
	b.d = d;
	b.pool = (uint16_t *)(void *)(block + (size_t)pc * sizeof(struct etl_field));
	s->top = b.pool + pc;
	b.strp = (char *)(b.pool + 2 * (size_t)pc);
	b.end = (char *)block + bytes;
	out->provider_name = take_name(&b, offs[0]);
	out->task_name = strip_win(take_name(&b, offs[4]));
	out->opcode_name = strip_win(take_name(&b, offs[5]));
	out->event_name = take_name(&b, offs[10]);
	for (i = 0; i < pc; i++)
		if (parse_property(&b, i, &s->fields[i]) != ETL_OK) {
			etl__free(block);
			memset(out, 0, sizeof(*out));
			return d->code;
		}
	for (i = 0; i < tpc; i++) /* top-level properties: the first TopLevelPropertyCount */
		s->top[i] = (uint16_t)i;
	s->ntop = (uint16_t)tpc;
	s->nfields = (uint16_t)pc;
	etl__schema_count_frames(s);
	return ETL_OK;
}

int etl__map_parse(const uint8_t *p, size_t len, struct etl_guid *provider, struct etl_map **out,
		   struct etl_diag *d)
{
	const uint8_t *m;
	size_t mlen, names = 0, i;
	uint32_t flags, count, name_off;
	struct etl_map *map;
	struct etl_map_entry *entries;
	char *strp;

	*out = NULL;
	if (len < 16 + 16) {
		etl__diag_set(d, ETL_E_TRUNCATED, 0, "EventMapInfo: %zu bytes are too few", len);
		return ETL_E_TRUNCATED;
	}
	etl_guid_from_le(p, provider);
	m = p + 16;
	mlen = len - 16;
	name_off = etl_le32(m);
	flags = etl_le32(m + 4);
	count = etl_le32(m + 8);
	if (count > (mlen - 16) / 8) {
		etl__diag_set(d, ETL_E_FORMAT, 24, "EVENT_MAP_INFO: %u entries do not fit %zu bytes", (unsigned)count, mlen);
		return ETL_E_FORMAT;
	}
	names += name_at(m, mlen, name_off, NULL, 0);
	for (i = 0; i < count; i++)
		names += name_at(m, mlen, etl_le32(m + 16 + 8 * i), NULL, 0) + 1;
	map = etl__malloc(sizeof(*map) + count * (sizeof(map->entries[0]) + sizeof(uint32_t)) + names + 1);
	if (!map) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	memset(map, 0, sizeof(*map));
	map->entries = entries = (struct etl_map_entry *)(map + 1);
	map->count = count;
	/* value maps (1 manifest, 8 WBEM) vs bit maps (2 manifest, 16 WBEM) */
	map->bitmap = (flags & (2u | 16u)) != 0;
	strp = (char *)((uint32_t *)(entries + count) + count); /* after the entries and their order */
	i = name_at(m, mlen, name_off, strp, names + 1);
	map->name = strp;
	if (!i)
		*strp++ = 0;
	strp += i;
	for (i = 0; i < count; i++) {
		size_t n = name_at(m, mlen, etl_le32(m + 16 + 8 * i), strp, names + 1), l;
		entries[i].value = etl_le32(m + 16 + 8 * i + 4);
		entries[i].text = strp;
		if (!n) {
			*strp++ = 0;
			continue;
		}
		/* manifest texts often end in a space: trim it in place */
		for (l = n - 1; l > 0 && strp[l - 1] == ' '; l--)
			strp[l - 1] = 0;
		strp += n;
	}
	/* bit maps bounded, big value maps found by value (a trace may make one thousands of entries
	 * long): the order goes after the entries */
	etl__schema_map_ready(map, entries, (uint32_t *)(entries + count));
	*out = map;
	return ETL_OK;
}
