/*
 * engine.c - decodes a payload against a schema into a property tree, and
 * formats property values.
 *
 * Every read goes through the cursor.  Nodes are addressed by index while
 * the tree grows (the array may move); child nodes of one parent are
 * contiguous.  Array lengths that come from the data are bounded by the
 * bytes left and by the node limit; nesting is bounded by depth.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/schema.h"
#include "util/cursor.h"

#define MAX_DEPTH 32

/* ------------------------------------------------------------------ */
/* arena                                                               */
/* ------------------------------------------------------------------ */

struct etl_arena_block {
	struct etl_arena_block *next;
	size_t size;
	/* data follows, max_align_t aligned */
};

#define BLOCK_HDR ((sizeof(struct etl_arena_block) + 15) & ~(size_t)15)

void *etl__arena_alloc(struct etl_arena *a, size_t n)
{
	struct etl_arena_block *b = a->head;
	size_t need = (n + 15) & ~(size_t)15;

	if (need < n)
		return NULL;
	if (!b || b->size - a->used_in_head < need) {
		size_t size = need > 32768 ? need : 32768;
		if (size > SIZE_MAX - BLOCK_HDR)
			return NULL;
		b = etl__malloc(BLOCK_HDR + size);
		if (!b)
			return NULL;
		b->size = size;
		b->next = a->head;
		a->head = b;
		a->used_in_head = 0;
	}
	a->used_in_head += need;
	return (uint8_t *)b + BLOCK_HDR + a->used_in_head - need;
}

char *etl__arena_strndup(struct etl_arena *a, const char *s, size_t n)
{
	char *d = etl__arena_alloc(a, n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

void etl__arena_reset(struct etl_arena *a)
{
	/* keep the newest block, free the rest */
	struct etl_arena_block *b = a->head, *n;

	if (!b)
		return;
	n = b->next;
	b->next = NULL;
	while (n) {
		struct etl_arena_block *x = n->next;
		etl__free(n);
		n = x;
	}
	a->used_in_head = 0;
}

void etl__arena_free(struct etl_arena *a)
{
	while (a->head) {
		struct etl_arena_block *x = a->head->next;
		etl__free(a->head);
		a->head = x;
	}
	a->used_in_head = 0;
}

void etl__schema_free(struct etl_schema *s)
{
	if (s)
		etl__free(s->block);
}

/* ------------------------------------------------------------------ */
/* decoding                                                            */
/* ------------------------------------------------------------------ */

struct dctx {
	struct etl_decoded *d;
	const struct etl_schema *s;
	struct etl_cursor c;
	unsigned ptr;
	struct etl_diag *diag;
};

static int reserve_nodes(struct dctx *x, uint32_t n, uint32_t *first)
{
	struct etl_decoded *d = x->d;
	uint32_t i;

	if (n > d->max_nodes || d->nnodes > d->max_nodes - n) {
		etl__diag_set(x->diag, ETL_E_LIMIT, x->c.pos,
			      "more than %u properties in one event (property limit)", (unsigned)d->max_nodes);
		return ETL_E_LIMIT;
	}
	if (d->nnodes + n > d->cap) {
		uint32_t ncap = d->cap ? d->cap : 64;
		struct etl_property *p;
		while (ncap < d->nnodes + n)
			ncap *= 2;
		p = etl__realloc(d->nodes, (size_t)ncap * sizeof(*p));
		if (!p) {
			etl__diag_set(x->diag, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory for properties");
			return ETL_E_NOMEM;
		}
		d->nodes = p;
		d->cap = ncap;
	}
	*first = d->nnodes;
	for (i = 0; i < n; i++) {
		struct etl_property *p = &d->nodes[d->nnodes + i];
		memset(p, 0, sizeof(*p));
		p->owner = d;
		p->ptr_size = (uint8_t)x->ptr;
	}
	d->nnodes += n;
	return ETL_OK;
}

static int short_data(struct dctx *x, const struct etl_field *f, size_t need)
{
	etl__diag_set(x->diag, ETL_E_TRUNCATED, x->c.pos,
		      "property '%s': needs %zu bytes at payload offset %zu, %zu left", f->name ? f->name : "?",
		      need, x->c.pos, cur_left(&x->c));
	return ETL_E_TRUNCATED;
}

static int is_integer_in(uint16_t t)
{
	return (t >= IN_INT8 && t <= IN_UINT64) || t == IN_HEXINT32 || t == IN_HEXINT64 ||
	       t == IN_POINTER || t == IN_SIZET || t == IN_BOOLEAN;
}

/* Unsigned value of an integer-typed node (0 otherwise). */
static uint64_t node_u64(const struct etl_property *p)
{
	switch (p->len) {
	case 1: return p->data[0];
	case 2: return etl_le16(p->data);
	case 4: return etl_le32(p->data);
	case 8: return etl_le64(p->data);
	default: return 0;
	}
}

static int64_t node_i64(const struct etl_property *p)
{
	switch (p->len) {
	case 1: return (int8_t)p->data[0];
	case 2: return (int16_t)etl_le16(p->data);
	case 4: return (int32_t)etl_le32(p->data);
	case 8: return (int64_t)etl_le64(p->data);
	default: return 0;
	}
}

/* Length in units from FF_LEN_*, or -1 when the field has none. */
static int64_t field_length(struct dctx *x, const struct etl_field *f)
{
	if (f->flags & FF_LEN_CONST)
		return f->length;
	if ((f->flags & FF_LEN_FIELD) && f->length < x->s->nfields)
		return (int64_t)x->d->field_values[f->length];
	return -1;
}

static int decode_value(struct dctx *x, uint16_t fi, uint32_t node)
{
	const struct etl_field *f = &x->s->fields[fi];
	struct etl_cursor *c = &x->c;
	size_t size = 0, skip = 0, left = cur_left(c);
	int64_t units = field_length(x, f);
	struct etl_property *p;
	const uint8_t *at = c->base + c->pos;

	if (f->flags & FF_CUSTOM) {
		if (left < 2)
			return short_data(x, f, 2);
		skip = 2;
		size = etl_le16(at);
	} else {
		switch (f->in_type) {
		case IN_NULL: size = 0; break;
		case IN_INT8: case IN_UINT8: case IN_ANSICHAR: size = 1; break;
		case IN_INT16: case IN_UINT16: case IN_UNICODECHAR: size = 2; break;
		case IN_INT32: case IN_UINT32: case IN_HEXINT32: case IN_FLOAT: case IN_BOOLEAN: size = 4; break;
		case IN_INT64: case IN_UINT64: case IN_HEXINT64: case IN_DOUBLE: case IN_FILETIME: size = 8; break;
		case IN_GUID: case IN_SYSTEMTIME: size = 16; break;
		case IN_POINTER: case IN_SIZET: size = x->ptr; break;
		case IN_UNICODESTRING:
		case IN_ANSISTRING: {
			size_t unit = f->in_type == IN_UNICODESTRING ? 2 : 1;
			if (f->flags & FF_LEN_PREFIX16) {
				if (left < 2)
					return short_data(x, f, 2);
				skip = 2;
				size = etl_le16(at);
			} else if (units >= 0) {
				size = (size_t)units * unit;
				if ((uint64_t)units > left)
					return short_data(x, f, (size_t)units);
			} else {
				/* NUL-terminated; a missing terminator takes the rest */
				size_t k = 0;
				while (k + unit <= left && (unit == 1 ? at[k] != 0 : etl_le16(at + k) != 0))
					k += unit;
				size = k;
				if (k + unit <= left) {
					/* consume the terminator too, but keep it out of the value */
					p = &x->d->nodes[node];
					p->data = at;
					p->len = k;
					cur_skip(c, k + unit);
					return ETL_OK;
				}
				size = left - (left % unit);
			}
			break;
		}
		case IN_BINARY:
			if (f->flags & FF_LEN_PREFIX16) {
				if (left < 2)
					return short_data(x, f, 2);
				skip = 2;
				size = etl_le16(at);
			} else if (units >= 0) {
				size = (size_t)units;
				if ((uint64_t)units > left)
					return short_data(x, f, (size_t)units);
			} else {
				size = left;
			}
			break;
		case IN_COUNTEDSTRING: case IN_COUNTEDANSISTRING: case IN_COUNTEDBINARY:
		case IN_MOF_COUNTEDSTRING: case IN_MOF_COUNTEDANSISTRING:
			if (left < 2)
				return short_data(x, f, 2);
			skip = 2;
			size = etl_le16(at);
			break;
		case IN_REVERSEDCOUNTEDSTRING: case IN_REVERSEDCOUNTEDANSISTRING:
			if (left < 2)
				return short_data(x, f, 2);
			skip = 2;
			size = (size_t)at[0] << 8 | at[1];
			break;
		case IN_NONNULLTERMINATEDSTRING: case IN_NONNULLTERMINATEDANSISTRING:
			size = left;
			break;
		case IN_HEXDUMP:
			if (left < 4)
				return short_data(x, f, 4);
			skip = 4;
			size = etl_le32(at);
			break;
		case IN_SID:
			if (left < 8)
				return short_data(x, f, 8);
			size = 8 + 4 * (size_t)at[1];
			break;
		case IN_WBEMSID:
			/* a null SID is a zero 32-bit word (kernel Process events); a zero TOKEN_USER
			 * followed by a SID (revision 1 at 2 pointers in) is not */
			if (left >= 4 && etl_le32(at) == 0 &&
			    !(left >= 2 * (size_t)x->ptr + 8 && at[2 * (size_t)x->ptr] == 1 &&
			      etl_le32(at + 4) == 0 && (x->ptr == 4 || etl_le64(at) == 0))) {
				p = &x->d->nodes[node];
				p->data = at;
				p->len = 0;
				cur_skip(c, 4);
				return ETL_OK;
			}
			/* TOKEN_USER (a pointer and an attribute word, pointer-aligned) then the SID */
			if (left < 2 * (size_t)x->ptr + 8)
				return short_data(x, f, 2 * (size_t)x->ptr + 8);
			skip = 2 * (size_t)x->ptr;
			size = 8 + 4 * (size_t)at[skip + 1];
			break;
		default:
			etl__diag_set(x->diag, ETL_E_UNSUPPORTED, c->pos, "property '%s': in-type %u is not supported",
				      f->name ? f->name : "?", (unsigned)f->in_type);
			return ETL_E_UNSUPPORTED;
		}
	}
	if (skip > left || size > left - skip)
		return short_data(x, f, skip + size);
	p = &x->d->nodes[node];
	p->data = at + skip;
	p->len = size;
	if (f->map_name && x->d->resolve_map)
		p->map = x->d->resolve_map(x->d->resolve_ctx, f->map_name);
	cur_skip(c, skip + size);
	if (is_integer_in(f->in_type))
		x->d->field_values[fi] = node_u64(p);
	return ETL_OK;
}

static int decode_field(struct dctx *x, uint16_t fi, uint32_t node, unsigned depth);

static int decode_element(struct dctx *x, uint16_t fi, uint32_t node, unsigned depth)
{
	const struct etl_field *f = &x->s->fields[fi];

	if (f->flags & FF_STRUCT) {
		uint32_t first = 0, i;
		int st;

		if (depth >= (x->d->max_depth ? x->d->max_depth : MAX_DEPTH)) {
			etl__diag_set(x->diag, ETL_E_LIMIT, x->c.pos, "property '%s': structs nested deeper than %u",
				      f->name ? f->name : "?", x->d->max_depth ? x->d->max_depth : MAX_DEPTH);
			return ETL_E_LIMIT;
		}
		st = reserve_nodes(x, f->nmembers, &first);
		if (st != ETL_OK)
			return st;
		x->d->nodes[node].kind = ETL_PROPERTY_STRUCT;
		x->d->nodes[node].first_child = first;
		x->d->nodes[node].child_count = f->nmembers;
		x->d->nodes[node].data = x->c.base + x->c.pos;
		for (i = 0; i < f->nmembers; i++) {
			st = decode_field(x, f->members[i], first + i, depth + 1);
			if (st != ETL_OK)
				return st;
		}
		x->d->nodes[node].len = (size_t)(x->c.base + x->c.pos - x->d->nodes[node].data);
		return ETL_OK;
	}
	return decode_value(x, fi, node);
}

static int decode_field(struct dctx *x, uint16_t fi, uint32_t node, unsigned depth)
{
	const struct etl_field *f = &x->s->fields[fi];
	struct etl_property *p = &x->d->nodes[node];
	uint64_t n;
	uint32_t first = 0, i;
	int st;

	p->name = f->name;
	p->in_type = f->in_type;
	p->out_type = f->out_type;
	p->field = f;
	if (!(f->flags & (FF_COUNT_CONST | FF_COUNT_DATA | FF_COUNT_FIELD | FF_COUNT_REST)))
		return decode_element(x, fi, node, depth);
	if (f->flags & FF_COUNT_REST) {
		/* fixed-size elements to the end of the payload (kernel stack frames) */
		size_t esz = f->in_type == IN_POINTER || f->in_type == IN_SIZET ? x->ptr
			     : (f->in_type == IN_UINT64 || f->in_type == IN_HEXINT64) ? 8 : 4;
		n = cur_left(&x->c) / esz;
	} else if (f->flags & FF_COUNT_CONST) {
		n = f->count;
	} else if (f->flags & FF_COUNT_DATA) {
		if (cur_left(&x->c) < 2)
			return short_data(x, f, 2);
		n = cur_u16(&x->c);
	} else {
		n = f->count < x->s->nfields ? x->d->field_values[f->count] : 0;
	}
	/* An element takes at least one byte unless it is a struct of nothing: bound by the data. */
	if (n > cur_left(&x->c) && !((f->flags & FF_STRUCT) && f->nmembers == 0) && f->in_type != IN_NULL) {
		etl__diag_set(x->diag, ETL_E_FORMAT, x->c.pos,
			      "property '%s': array of %llu elements cannot fit the %zu bytes left",
			      f->name ? f->name : "?", (unsigned long long)n, cur_left(&x->c));
		return ETL_E_FORMAT;
	}
	if (!(f->flags & FF_STRUCT) && f->out_type == OUT_STRING &&
	    (f->in_type == IN_UINT8 || f->in_type == IN_UINT16 || f->in_type == IN_INT8 || f->in_type == IN_INT16)) {
		/* an array of characters is text: one value, not one property per character */
		size_t unit = (f->in_type == IN_UINT8 || f->in_type == IN_INT8) ? 1 : 2;
		if (n * unit > cur_left(&x->c))
			return short_data(x, f, (size_t)n * unit);
		p->data = x->c.base + x->c.pos;
		p->len = (size_t)n * unit;
		cur_skip(&x->c, p->len);
		return ETL_OK;
	}
	if (n > UINT32_MAX)
		n = UINT32_MAX; /* reserve_nodes enforces the node limit */
	st = reserve_nodes(x, (uint32_t)n, &first);
	if (st != ETL_OK)
		return st;
	p = &x->d->nodes[node];
	p->kind = ETL_PROPERTY_ARRAY;
	p->first_child = first;
	p->child_count = (uint32_t)n;
	p->data = x->c.base + x->c.pos;
	for (i = 0; i < n; i++) {
		struct etl_property *e = &x->d->nodes[first + i];
		e->name = f->name;
		e->in_type = f->in_type;
		e->out_type = f->out_type;
		e->field = f;
		st = decode_element(x, fi, first + i, depth + 1);
		if (st != ETL_OK)
			return st;
	}
	p = &x->d->nodes[node];
	p->len = (size_t)(x->c.base + x->c.pos - p->data);
	return ETL_OK;
}

int etl__decode_payload(struct etl_decoded *d, const struct etl_schema *s, const uint8_t *payload,
			size_t len, unsigned ptr_size, struct etl_diag *diag)
{
	struct dctx x;
	uint32_t first = 0, i;
	int st;

	x.d = d;
	x.s = s;
	x.ptr = ptr_size;
	x.diag = diag;
	cur_init(&x.c, payload, len);
	if (d->field_values_cap < s->nfields) {
		uint64_t *v = etl__realloc(d->field_values, (size_t)s->nfields * sizeof(*v));
		if (!v) {
			etl__diag_set(diag, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
			return ETL_E_NOMEM;
		}
		d->field_values = v;
		d->field_values_cap = s->nfields;
	}
	if (s->nfields)
		memset(d->field_values, 0, (size_t)s->nfields * sizeof(*d->field_values));
	st = reserve_nodes(&x, s->ntop, &first);
	if (st != ETL_OK)
		return st;
	d->ntop = s->ntop;
	for (i = 0; i < s->ntop; i++) {
		st = decode_field(&x, s->top[i], first + i, 0);
		if (st != ETL_OK) {
			d->ntop = i + 1; /* the properties before the fault, and the one that failed */
			return st;
		}
	}
	d->trailing = cur_left(&x.c);
	return ETL_OK;
}

/* ------------------------------------------------------------------ */
/* formatting                                                          */
/* ------------------------------------------------------------------ */

/* Text being built: in the inline bytes while it fits (most values do), on the heap after. */
struct sbuf {
	char *p;
	size_t len, cap;
	int failed;
	char inline_bytes[256];
};

static void sb_init(struct sbuf *b)
{
	b->p = b->inline_bytes;
	b->len = 0;
	b->cap = sizeof(b->inline_bytes);
	b->failed = 0;
}

static void sb_release(struct sbuf *b)
{
	if (b->p != b->inline_bytes)
		etl__free(b->p);
}

/* Room for n more bytes and a NUL; returns where they go, or NULL (b->failed). */
static char *sb_reserve(struct sbuf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->cap - b->len < n + 1) {
		size_t ncap = b->cap;
		char *q;
		while (ncap - b->len < n + 1) {
			if (ncap > SIZE_MAX / 2) {
				b->failed = 1;
				return NULL;
			}
			ncap *= 2;
		}
		if (b->p == b->inline_bytes) {
			q = etl__malloc(ncap);
			if (q)
				memcpy(q, b->p, b->len);
		} else {
			q = etl__realloc(b->p, ncap);
		}
		if (!q) {
			b->failed = 1;
			return NULL;
		}
		b->p = q;
		b->cap = ncap;
	}
	return b->p + b->len;
}

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	char *o;

	if (n == 0)
		return;
	o = sb_reserve(b, n);
	if (!o)
		return;
	memcpy(o, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void sb_u64(struct sbuf *b, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_add(b, tmp + i, sizeof(tmp) - i);
}

static void sb_i64(struct sbuf *b, int64_t v)
{
	if (v < 0) {
		sb_add(b, "-", 1);
		sb_u64(b, -(uint64_t)v);
	} else {
		sb_u64(b, (uint64_t)v);
	}
}

/* "0x" and lower-case hex digits, at least min_digits of them */
static void sb_hex64(struct sbuf *b, uint64_t v, unsigned min_digits)
{
	static const char dig[] = "0123456789abcdef";
	char tmp[18];
	size_t i = sizeof(tmp);
	unsigned k = 0;

	do {
		tmp[--i] = dig[v & 15];
		v >>= 4;
		k++;
	} while (v || k < min_digits);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	sb_add(b, tmp + i, sizeof(tmp) - i);
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_fmt(struct sbuf *b, const char *fmt, ...) ETL_PRINTF(2, 3);
static void sb_fmt(struct sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void sb_hex(struct sbuf *b, const uint8_t *p, size_t n)
{
	static const char dig[] = "0123456789abcdef";
	char tmp[64];
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		tmp[o++] = dig[p[i] >> 4];
		tmp[o++] = dig[p[i] & 15];
		if (o == sizeof(tmp)) {
			sb_add(b, tmp, o);
			o = 0;
		}
	}
	sb_add(b, tmp, o);
}

static void sb_utf16(struct sbuf *b, const uint8_t *p, size_t bytes)
{
	size_t n = etl__utf16_units(p, bytes / 2);
	char *o;

	if (n == 0 || n > (SIZE_MAX - 1) / 3)
		return;
	o = sb_reserve(b, 3 * n);
	if (o)
		b->len += etl__utf16_convert(p, n, (uint8_t *)o);
}

static int valid_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0, j, k;

	while (i < n) {
		uint8_t c = p[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			k = 1;
		else if ((c & 0xF0) == 0xE0)
			k = 2;
		else if (c >= 0xF0 && c <= 0xF4)
			k = 3;
		else
			return 0;
		if (n - i - 1 < k)
			return 0;
		for (j = 1; j <= k; j++)
			if ((p[i + j] & 0xC0) != 0x80)
				return 0;
		i += k + 1;
	}
	return 1;
}

/* 8-bit text up to a NUL: kept if valid UTF-8, else read as Latin-1. */
static void sb_ansi(struct sbuf *b, const uint8_t *p, size_t n)
{
	size_t i, len = 0;

	while (len < n && p[len])
		len++;
	if (valid_utf8(p, len)) {
		sb_add(b, (const char *)p, len);
		return;
	}
	for (i = 0; i < len; i++) {
		char two[2];
		if (p[i] < 0x80) {
			sb_add(b, (const char *)p + i, 1);
			continue;
		}
		two[0] = (char)(0xC0 | p[i] >> 6);
		two[1] = (char)(0x80 | (p[i] & 0x3F));
		sb_add(b, two, 2);
	}
}

static void sb_filetime(struct sbuf *b, uint64_t ft)
{
	const uint64_t epoch = 116444736000000000ULL;
	int64_t u = ft >= epoch ? (int64_t)((ft - epoch) / 10000000) : -(int64_t)((epoch - ft + 9999999) / 10000000);
	uint32_t frac = (uint32_t)(ft % 10000000);
	time_t secs = (time_t)u;
	struct tm tm;

	if (ft == 0 || !gmtime_r(&secs, &tm)) {
		sb_fmt(b, "%llu", (unsigned long long)ft);
		return;
	}
	sb_fmt(b, "%04d-%02d-%02dT%02d:%02d:%02d.%07uZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
	       tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)frac);
}

static void sb_double(struct sbuf *b, double v)
{
	char tmp[40];
	int prec;

	if (isnan(v)) {
		sb_str(b, "NaN");
		return;
	}
	if (isinf(v)) {
		sb_str(b, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	/* the shortest text that reads back as the same double */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	sb_str(b, tmp);
}

static void sb_sid(struct sbuf *b, const uint8_t *p, size_t n)
{
	uint64_t auth;
	unsigned i, count;

	if (n < 8) {
		sb_hex(b, p, n);
		return;
	}
	count = p[1];
	auth = (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
	       (uint64_t)p[6] << 8 | p[7];
	sb_fmt(b, "S-%u-%llu", p[0], (unsigned long long)auth);
	for (i = 0; i < count && 8 + 4 * (size_t)i + 4 <= n; i++)
		sb_fmt(b, "-%u", (unsigned)etl_le32(p + 8 + 4 * i));
}

static void sb_ipv6(struct sbuf *b, const uint8_t *a)
{
	/* RFC 5952: lower case, the longest run of zero groups (2+) as "::" */
	int best = -1, bestlen = 0, i;

	for (i = 0; i < 8;) {
		int j = i;
		while (j < 8 && a[2 * j] == 0 && a[2 * j + 1] == 0)
			j++;
		if (j - i > bestlen && j - i >= 2) {
			best = i;
			bestlen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			sb_str(b, "::");
			i += bestlen - 1;
			continue;
		}
		if (i > 0 && i != best + bestlen)
			sb_str(b, ":");
		sb_fmt(b, "%x", (unsigned)(a[2 * i] << 8 | a[2 * i + 1]));
	}
}

static void format_value(struct sbuf *b, const struct etl_property *p)
{
	const uint8_t *d = p->data;
	size_t n = p->len;
	uint16_t in = p->in_type, out = p->out_type;

	if (!d && n == 0 && in != IN_NULL && in != IN_UNICODESTRING && in != IN_ANSISTRING &&
	    in != IN_BINARY && in != IN_COUNTEDSTRING && in != IN_COUNTEDANSISTRING &&
	    in != IN_COUNTEDBINARY) {
		return; /* not decoded (after a fault) */
	}
	switch (in) {
	case IN_UNICODESTRING: case IN_COUNTEDSTRING: case IN_MOF_COUNTEDSTRING:
	case IN_REVERSEDCOUNTEDSTRING: case IN_NONNULLTERMINATEDSTRING: case IN_UNICODECHAR:
		sb_utf16(b, d, n);
		return;
	case IN_ANSISTRING: case IN_COUNTEDANSISTRING: case IN_MOF_COUNTEDANSISTRING:
	case IN_REVERSEDCOUNTEDANSISTRING: case IN_NONNULLTERMINATEDANSISTRING: case IN_ANSICHAR:
		sb_ansi(b, d, n);
		return;
	case IN_BINARY: case IN_COUNTEDBINARY: case IN_HEXDUMP:
		if (out == OUT_IPV6 && n == 16) {
			sb_ipv6(b, d);
			return;
		}
		if (out == OUT_SOCKETADDRESS && n >= 8) {
			unsigned fam = etl_le16(d), port = (unsigned)(d[2] << 8 | d[3]);
			if (fam == 2) {
				sb_fmt(b, "%u.%u.%u.%u:%u", d[4], d[5], d[6], d[7], port);
				return;
			}
			if (fam == 23 && n >= 24) {
				sb_str(b, "[");
				sb_ipv6(b, d + 8);
				sb_fmt(b, "]:%u", port);
				return;
			}
		}
		if (out == OUT_UTF8 || out == OUT_STRING || out == OUT_XML || out == OUT_JSON) {
			sb_ansi(b, d, n);
			return;
		}
		sb_str(b, "0x");
		sb_hex(b, d, n);
		return;
	case IN_GUID: {
		struct etl_guid g;
		char s[ETL_GUID_STRING_SIZE];
		etl_guid_from_le(d, &g);
		etl_guid_format(&g, s);
		sb_str(b, s);
		return;
	}
	case IN_FILETIME:
		sb_filetime(b, etl_le64(d));
		return;
	case IN_SYSTEMTIME:
		sb_fmt(b, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", etl_le16(d), etl_le16(d + 2), etl_le16(d + 6),
		       etl_le16(d + 8), etl_le16(d + 10), etl_le16(d + 12), etl_le16(d + 14));
		return;
	case IN_SID: case IN_WBEMSID:
		sb_sid(b, d, n);
		return;
	case IN_FLOAT: {
		uint32_t u = etl_le32(d);
		float f;
		memcpy(&f, &u, sizeof(f));
		sb_double(b, (double)f);
		return;
	}
	case IN_DOUBLE: {
		uint64_t u = etl_le64(d);
		double v;
		memcpy(&v, &u, sizeof(v));
		sb_double(b, v);
		return;
	}
	default:
		break;
	}
	if (!is_integer_in(in) && in != IN_NULL) {
		sb_str(b, "0x");
		sb_hex(b, d, n);
		return;
	}
	if (in == IN_NULL) {
		return;
	}
	if (p->map && n <= 8) {
		uint64_t v = node_u64(p);
		uint32_t i;
		int any = 0;

		if (!p->map->bitmap) {
			for (i = 0; i < p->map->count; i++)
				if (p->map->entries[i].value == v) {
					sb_str(b, p->map->entries[i].text);
					return;
				}
		} else {
			uint64_t rest = v;
			for (i = 0; i < p->map->count; i++) {
				uint32_t bit = p->map->entries[i].value;
				if (bit && (v & bit) == bit) {
					if (any++)
						sb_str(b, ", ");
					sb_str(b, p->map->entries[i].text);
					rest &= ~(uint64_t)bit;
				}
			}
			if (!rest && any)
				return;
			if (any) {
				sb_fmt(b, ", 0x%llx", (unsigned long long)rest);
				return;
			}
		}
		/* no entry: fall through to the number */
	}
	{
		uint64_t u = node_u64(p);
		int is_signed = in == IN_INT8 || in == IN_INT16 || in == IN_INT32 || in == IN_INT64;

		switch (out) {
		case OUT_BOOLEAN:
			sb_str(b, u ? "true" : "false");
			return;
		case OUT_STRING: /* a character, or an array of them read as text */
			if (in == IN_UINT8 || in == IN_INT8) {
				sb_ansi(b, d, n);
				return;
			}
			if (in == IN_UINT16 || in == IN_INT16) {
				sb_utf16(b, d, n);
				return;
			}
			break;
		case OUT_HEXINT8: case OUT_HEXINT16: case OUT_HEXINT32: case OUT_HEXINT64:
		case OUT_CODE_POINTER:
			sb_hex64(b, u, 1);
			return;
		case OUT_ERRORCODE: case OUT_WIN32ERROR: case OUT_NTSTATUS: case OUT_HRESULT:
			sb_hex64(b, u, 8);
			return;
		case OUT_PORT:
			if (n == 2) {
				sb_u64(b, (unsigned)(d[0] << 8 | d[1]));
				return;
			}
			break;
		case OUT_IPV4:
			if (n == 4) {
				sb_fmt(b, "%u.%u.%u.%u", d[0], d[1], d[2], d[3]);
				return;
			}
			break;
		case OUT_DATETIME: case OUT_DATETIME_UTC:
			if (n == 8) {
				sb_filetime(b, u);
				return;
			}
			break;
		case OUT_BYTE: case OUT_SHORT: case OUT_INT: case OUT_LONG:
			is_signed = 1;
			break;
		case OUT_UNSIGNEDBYTE: case OUT_UNSIGNEDSHORT: case OUT_UNSIGNEDINT: case OUT_UNSIGNEDLONG:
			is_signed = 0;
			break;
		default:
			break;
		}
		if (in == IN_HEXINT32 || in == IN_HEXINT64 || in == IN_POINTER || in == IN_SIZET) {
			sb_hex64(b, u, 1);
			return;
		}
		if (in == IN_BOOLEAN) {
			sb_str(b, u ? "true" : "false");
			return;
		}
		if (is_signed)
			sb_i64(b, node_i64(p));
		else
			sb_u64(b, u);
	}
}

static void format_any(struct sbuf *b, const struct etl_property *p, unsigned depth)
{
	uint32_t i;

	if (p->kind == ETL_PROPERTY_VALUE) {
		format_value(b, p);
		return;
	}
	if (depth > MAX_DEPTH * 2)
		return;
	sb_str(b, p->kind == ETL_PROPERTY_ARRAY ? "[" : "{");
	for (i = 0; i < p->child_count; i++) {
		const struct etl_property *c = &p->owner->nodes[p->first_child + i];
		if (i)
			sb_str(b, ", ");
		if (p->kind == ETL_PROPERTY_STRUCT) {
			sb_str(b, c->name ? c->name : "?");
			sb_str(b, ": ");
		}
		format_any(b, c, depth + 1);
	}
	sb_str(b, p->kind == ETL_PROPERTY_ARRAY ? "]" : "}");
}

const char *etl__format_property(struct etl_property *p)
{
	struct sbuf b;
	char *s;

	if (p->text)
		return p->text;
	sb_init(&b);
	b.p[0] = 0;
	format_any(&b, p, 0);
	if (b.failed) {
		sb_release(&b);
		return NULL;
	}
	s = etl__arena_strndup(&p->owner->arena, b.p, b.len);
	sb_release(&b);
	p->text = s;
	return s;
}
