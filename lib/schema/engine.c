/*
 * engine.c - decodes a payload against a schema into a property tree
 * (values are formatted on demand by format.c).
 *
 * Every read goes through the cursor.  Nodes are addressed by index while
 * the tree grows (the array may move); child nodes of one parent are
 * contiguous.  Array lengths that come from the data are bounded by the
 * bytes left and by the node limit; nesting is bounded by depth.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "schema/schema.h"
#include "util/cursor.h"

#define MAX_DEPTH 32

void etl__schema_free(struct etl_schema *s)
{
	if (s)
		etl__free(s->block);
}

void etl__schema_count_frames(struct etl_schema *s)
{
	uint16_t i, j;

	for (i = 0; i < s->ntop; i++) {
		struct etl_field *f = &s->fields[s->top[i]];
		if (!(f->flags & FF_COUNT_CONST) || (f->flags & FF_STRUCT) || strcmp(f->name, "Stack") != 0)
			continue;
		for (j = 0; j < i; j++) {
			const struct etl_field *c = &s->fields[s->top[j]];
			if (strcmp(c->name, "FrameCount") == 0 && etl__schema_integer_in(c->in_type) &&
			    !(c->flags & (FF_STRUCT | FF_COUNT_CONST | FF_COUNT_DATA | FF_COUNT_FIELD | FF_COUNT_REST))) {
				f->flags = (uint16_t)((f->flags & ~FF_COUNT_CONST) | FF_COUNT_FIELD);
				f->count = s->top[j];
				break;
			}
		}
	}
}

/* Fills order[0, n) with the positions of e[0, n) sorted by value, ties in position order.  0,
 * or -1 without memory for the sort. */
static int map_order(const struct etl_map_entry *e, uint32_t n, uint32_t *order)
{
	uint32_t *tmp = etl__malloc((n ? n : 1) * sizeof(*tmp)), *from = order, *to = tmp, w, i;

	if (!tmp)
		return -1;
	for (i = 0; i < n; i++)
		order[i] = i;
	for (w = 1; w < n; w *= 2) { /* bottom-up merge sort: stable, so ties stay in entry order */
		uint32_t lo, *t;
		for (lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint32_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				to[k++] = e[from[b]].value < e[from[a]].value ? from[b++] : from[a++];
			while (a < mid)
				to[k++] = from[a++];
			while (b < hi)
				to[k++] = from[b++];
		}
		t = from;
		from = to;
		to = t;
	}
	if (from != order)
		memcpy(order, from, (size_t)n * sizeof(*order));
	etl__free(tmp);
	return 0;
}

/* The bit map's entries that can name a bit, in their order, at most ETL_BITMAP_MAX (see
 * etl__schema_map_ready); the new count (without memory, only the bound is applied). */
static uint32_t bitmap_prune(struct etl_map_entry *e, uint32_t n)
{
	uint32_t *order = etl__malloc((n ? n : 1) * sizeof(*order)), i, k = 0;
	uint8_t *drop = etl__calloc(n ? n : 1, 1);

	if (order && drop && map_order(e, n, order) == 0) {
		for (i = 0; i < n; i++) /* in value order, ties in entry order: all but the first of a value */
			drop[order[i]] = e[order[i]].value == 0 || (i > 0 && e[order[i - 1]].value == e[order[i]].value);
		for (i = 0; i < n; i++)
			if (!drop[i])
				e[k++] = e[i];
		n = k;
	}
	etl__free(order);
	etl__free(drop);
	return n < ETL_BITMAP_MAX ? n : ETL_BITMAP_MAX;
}

void etl__schema_map_ready(struct etl_map *m, struct etl_map_entry *entries, uint32_t *order)
{
	if (m->bitmap)
		m->count = bitmap_prune(entries, m->count);
	else if (order && etl__schema_map_wants_order(m) && map_order(entries, m->count, order) == 0)
		m->by_value = order;
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
	if (etl__grow(&d->nodes, &d->cap, (size_t)d->nnodes + n, sizeof(*d->nodes), 64) != 0) {
		etl__diag_set(x->diag, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory for properties");
		return ETL_E_NOMEM;
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

/* Length in units from FF_LEN_*, or -1 when the field has none. */
static int64_t field_length(struct dctx *x, const struct etl_field *f)
{
	if (f->flags & FF_LEN_CONST)
		return f->length;
	if ((f->flags & FF_LEN_FIELD) && f->length < x->s->nfields)
		return (int64_t)x->d->field_values[f->length];
	return -1;
}

#define VALUE_SET 1 /* internal: the value was stored already (a terminator or a null SID consumed) */

/* Stores the value at the cursor (skip bytes of count or prefix, then size bytes) in node. */
static void store_value(struct dctx *x, uint32_t node, size_t skip, size_t size, size_t consumed)
{
	struct etl_property *p = &x->d->nodes[node];

	p->data = x->c.base + x->c.pos + skip;
	p->len = size;
	cur_skip(&x->c, consumed);
}

/* The size of a fixed-size in-type, or 0 with *variable set. */
static inline size_t fixed_size(uint16_t in, unsigned ptr, int *variable)
{
	*variable = 0;
	switch (in) {
	case ETL_IN_NULL: return 0;
	case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_ANSICHAR: return 1;
	case ETL_IN_INT16: case ETL_IN_UINT16: case ETL_IN_UNICODECHAR: return 2;
	case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_FLOAT: case ETL_IN_BOOLEAN: return 4;
	case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64: case ETL_IN_DOUBLE: case ETL_IN_FILETIME: return 8;
	case ETL_IN_GUID: case ETL_IN_SYSTEMTIME: return 16;
	case ETL_IN_POINTER: case ETL_IN_SIZET: return ptr;
	default: *variable = 1; return 0;
	}
}

/* Where the first zero byte is in at[0, left), or left. */
static size_t nul_byte(const uint8_t *at, size_t left)
{
	const uint8_t *z = left ? memchr(at, 0, left) : NULL;

	return z ? (size_t)(z - at) : left;
}

/* Where the first zero 16-bit unit (at an even offset) is in at[0, left), or the end of the last
 * whole unit (etl__utf16_units tests four units at a time). */
static size_t nul_unit16(const uint8_t *at, size_t left)
{
	return 2 * etl__utf16_units(at, left / 2);
}

/* A UNICODESTRING/ANSISTRING or BINARY: a u16 byte-length prefix, a length (constant or from
 * a field), or (strings) NUL-terminated, a missing terminator taking the rest. */
static int measure_sized(struct dctx *x, const struct etl_field *f, uint32_t node, size_t *skip, size_t *size)
{
	const uint8_t *at = x->c.base + x->c.pos;
	size_t left = cur_left(&x->c), unit = f->in_type == ETL_IN_UNICODESTRING ? 2 : 1, k = 0;
	int64_t units = field_length(x, f);

	if (f->flags & FF_LEN_PREFIX16) {
		if (left < 2)
			return short_data(x, f, 2);
		*skip = 2;
		*size = etl_le16(at);
		return ETL_OK;
	}
	if (units >= 0) {
		if ((uint64_t)units > left)
			return short_data(x, f, (size_t)units);
		*size = (size_t)units * (f->in_type == ETL_IN_BINARY ? 1 : unit);
		return ETL_OK;
	}
	if (f->in_type == ETL_IN_BINARY) {
		*size = left;
		return ETL_OK;
	}
	k = unit == 1 ? nul_byte(at, left) : nul_unit16(at, left);
	if (k + unit <= left) { /* consume the terminator too, but keep it out of the value */
		store_value(x, node, 0, k, k + unit);
		return VALUE_SET;
	}
	*size = left - (left % unit);
	return ETL_OK;
}

/* A WBEMSID: a null SID is a zero 32-bit word (kernel Process events); a zero TOKEN_USER followed
 * by a SID (revision 1 at 2 pointers in) is not.  Else TOKEN_USER (a pointer and an attribute
 * word, pointer-aligned) then the SID. */
static int measure_wbemsid(struct dctx *x, const struct etl_field *f, uint32_t node, size_t *skip, size_t *size)
{
	const uint8_t *at = x->c.base + x->c.pos;
	size_t left = cur_left(&x->c), ptr = x->ptr;

	if (left >= 4 && etl_le32(at) == 0 &&
	    !(left >= 2 * ptr + 8 && at[2 * ptr] == 1 && etl_le32(at + 4) == 0 && (ptr == 4 || etl_le64(at) == 0))) {
		store_value(x, node, 0, 0, 4);
		return VALUE_SET;
	}
	if (left < 2 * ptr + 8)
		return short_data(x, f, 2 * ptr + 8);
	*skip = 2 * ptr;
	*size = 8 + 4 * (size_t)at[*skip + 1];
	return ETL_OK;
}

/* A count prefix of `bytes` bytes (reversed: big-endian u16) then that many bytes. */
static int measure_counted(struct dctx *x, const struct etl_field *f, size_t bytes, int reversed, size_t *skip,
			   size_t *size)
{
	const uint8_t *at = x->c.base + x->c.pos;

	if (cur_left(&x->c) < bytes)
		return short_data(x, f, bytes);
	*skip = bytes;
	*size = bytes == 4 ? etl_le32(at) : reversed ? ((size_t)at[0] << 8 | at[1]) : etl_le16(at);
	return ETL_OK;
}

/* Where the value at the cursor is: count or prefix bytes to skip, then its size. */
static int measure(struct dctx *x, const struct etl_field *f, uint32_t node, size_t *skip, size_t *size)
{
	int variable;

	*skip = 0;
	if (f->flags & FF_CUSTOM)
		return measure_counted(x, f, 2, 0, skip, size);
	*size = fixed_size(f->in_type, x->ptr, &variable);
	if (!variable)
		return ETL_OK;
	switch (f->in_type) {
	case ETL_IN_UNICODESTRING: case ETL_IN_ANSISTRING: case ETL_IN_BINARY:
		return measure_sized(x, f, node, skip, size);
	case ETL_IN_COUNTEDSTRING: case ETL_IN_COUNTEDANSISTRING: case ETL_IN_COUNTEDBINARY:
	case ETL_IN_MOF_COUNTEDSTRING: case ETL_IN_MOF_COUNTEDANSISTRING:
		return measure_counted(x, f, 2, 0, skip, size);
	case ETL_IN_REVERSEDCOUNTEDSTRING: case ETL_IN_REVERSEDCOUNTEDANSISTRING:
		return measure_counted(x, f, 2, 1, skip, size);
	case ETL_IN_NONNULLTERMINATEDSTRING: case ETL_IN_NONNULLTERMINATEDANSISTRING:
		*size = cur_left(&x->c);
		return ETL_OK;
	case ETL_IN_HEXDUMP:
		return measure_counted(x, f, 4, 0, skip, size);
	case ETL_IN_SID:
		if (cur_left(&x->c) < 8)
			return short_data(x, f, 8);
		*size = 8 + 4 * (size_t)x->c.base[x->c.pos + 1];
		return ETL_OK;
	case ETL_IN_WBEMSID:
		return measure_wbemsid(x, f, node, skip, size);
	default:
		etl__diag_set(x->diag, ETL_E_UNSUPPORTED, x->c.pos, "property '%s': in-type %u is not supported",
			      f->name ? f->name : "?", (unsigned)f->in_type);
		return ETL_E_UNSUPPORTED;
	}
}

/* The value at the cursor (skip bytes of count or prefix, then size bytes, both checked) into
 * node, with its map and, for an integer, the value later fields may take a length from. */
static ETL_ALWAYS_INLINE void take_value(struct dctx *x, uint16_t fi, uint32_t node, size_t skip, size_t size)
{
	const struct etl_field *f = &x->s->fields[fi];
	struct etl_property *p;

	store_value(x, node, skip, size, skip + size);
	p = &x->d->nodes[node];
	if (f->map)
		p->map = f->map;
	else if (f->map_name && x->d->resolve_map)
		p->map = x->d->resolve_map(x->d->resolve_ctx, f->map_name);
	if (etl__schema_integer_in(f->in_type))
		x->d->field_values[fi] = etl__schema_node_u64(p);
}

static int decode_value(struct dctx *x, uint16_t fi, uint32_t node)
{
	const struct etl_field *f = &x->s->fields[fi];
	size_t skip, size, left = cur_left(&x->c);
	int st = measure(x, f, node, &skip, &size);

	if (st == VALUE_SET)
		return ETL_OK;
	if (st != ETL_OK)
		return st;
	if (skip > left || size > left - skip)
		return short_data(x, f, skip + size);
	take_value(x, fi, node, skip, size);
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
	if (!(f->flags & (FF_COUNT_CONST | FF_COUNT_DATA | FF_COUNT_FIELD | FF_COUNT_REST | FF_STRUCT | FF_CUSTOM))) {
		/* most properties: one value of a fixed size (decode_value's path, without its calls) */
		int variable;
		size_t size = fixed_size(f->in_type, x->ptr, &variable);
		if (!variable) {
			if (size > cur_left(&x->c))
				return short_data(x, f, size);
			take_value(x, fi, node, 0, size);
			return ETL_OK;
		}
	}
	if (!(f->flags & (FF_COUNT_CONST | FF_COUNT_DATA | FF_COUNT_FIELD | FF_COUNT_REST)))
		return decode_element(x, fi, node, depth);
	if (f->flags & FF_COUNT_REST) {
		/* fixed-size elements to the end of the payload (kernel stack frames) */
		size_t esz = f->in_type == ETL_IN_POINTER || f->in_type == ETL_IN_SIZET ? x->ptr
			     : (f->in_type == ETL_IN_UINT64 || f->in_type == ETL_IN_HEXINT64) ? 8 : 4;
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
	if (n > cur_left(&x->c) && !((f->flags & FF_STRUCT) && f->nmembers == 0) && f->in_type != ETL_IN_NULL) {
		etl__diag_set(x->diag, ETL_E_FORMAT, x->c.pos,
			      "property '%s': array of %llu elements cannot fit the %zu bytes left",
			      f->name ? f->name : "?", (unsigned long long)n, cur_left(&x->c));
		return ETL_E_FORMAT;
	}
	if (!(f->flags & FF_STRUCT) && f->out_type == ETL_OUT_STRING &&
	    (f->in_type == ETL_IN_UINT8 || f->in_type == ETL_IN_UINT16 || f->in_type == ETL_IN_INT8 || f->in_type == ETL_IN_INT16)) {
		/* an array of characters is text: one value, not one property per character */
		size_t unit = (f->in_type == ETL_IN_UINT8 || f->in_type == ETL_IN_INT8) ? 1 : 2;
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

int etl__schema_decode(struct etl_decoded *d, const struct etl_schema *s, const uint8_t *payload,
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
	if (etl__grow(&d->field_values, &d->field_values_cap, s->nfields, sizeof(*d->field_values), 16) != 0) {
		etl__diag_set(diag, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
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
