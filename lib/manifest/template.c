/*
 * template.c - a manifest <template> as a schema: its <data> and <struct>
 * items, with counts and lengths that are constants or name earlier fields.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "manifest/mxml.h"

struct tbuild {
	struct etl_arena *a;
	struct etl_field *f;
	uint16_t n;
	uint16_t *pool;
	size_t pool_n;
	const char *err;
};

static int find_field(const struct tbuild *b, const char *name, uint16_t *idx)
{
	uint16_t i;

	for (i = b->n; i-- > 0;)
		if (b->f[i].name && strcmp(b->f[i].name, name) == 0 && !(b->f[i].flags & FF_STRUCT)) {
			*idx = i;
			return 1;
		}
	return 0;
}

/* count="N" or count="FieldName" (and the same for length). */
static int count_or_length(struct tbuild *b, struct etl_field *f, const char *v, int is_count)
{
	uint64_t n;
	uint16_t idx;

	if (!v)
		return 1;
	if (etl__mx_u64(v, &n)) {
		if (n > 0xFFFF) {
			b->err = "count or length is larger than 65535";
			return 0;
		}
		if (is_count) {
			if (n != 1) {
				f->flags |= FF_COUNT_CONST;
				f->count = (uint16_t)n;
			}
		} else {
			f->flags |= FF_LEN_CONST;
			f->length = (uint16_t)n;
		}
		return 1;
	}
	if (!find_field(b, v, &idx)) {
		b->err = "count or length names no earlier field";
		return 0;
	}
	if (is_count) {
		f->flags |= FF_COUNT_FIELD;
		f->count = idx;
	} else {
		f->flags |= FF_LEN_FIELD;
		f->length = idx;
	}
	return 1;
}

/* Parses the <data>/<struct> children of n into fields; their indexes go to list. */
static int parse_items(struct tbuild *b, const xmlNode *n, uint16_t *list, uint16_t *count, int depth)
{
	const xmlNode *c;
	uint16_t k = 0;

	if (depth > MAX_STRUCT_DEPTH) {
		b->err = "structs nested too deep";
		return 0;
	}
	for (c = n->children; c; c = c->next) {
		struct etl_field *f;
		uint16_t idx;

		if (!etl__mx_is_el(c, "data") && !etl__mx_is_el(c, "struct"))
			continue;
		if (b->n >= MAX_TEMPLATE_FIELDS) {
			b->err = "more than 4096 fields";
			return 0;
		}
		idx = b->n++;
		f = &b->f[idx];
		memset(f, 0, sizeof(*f));
		f->name = etl__mx_attr(b->a, c, "name");
		if (!f->name) {
			b->err = "a field without a name";
			return 0;
		}
		if (etl__mx_is_el(c, "data")) {
			const char *in = etl__mx_attr(b->a, c, "inType"), *out = etl__mx_attr(b->a, c, "outType");
			if (!etl__mx_type(in, 1, &f->in_type)) {
				b->err = "unknown inType";
				return 0;
			}
			if (out && !etl__mx_type(out, 0, &f->out_type))
				f->out_type = ETL_OUT_NULL; /* an unknown outType only changes the rendering */
			f->map_name = etl__mx_attr(b->a, c, "map");
		} else {
			uint16_t *members = b->pool + b->pool_n, m = 0;
			f->flags |= FF_STRUCT;
			/* reserve the member list, then parse the members */
			{
				const xmlNode *x;
				uint16_t nm = 0;
				for (x = c->children; x; x = x->next)
					if (etl__mx_is_el(x, "data") || etl__mx_is_el(x, "struct"))
						nm++;
				if (b->pool_n + nm > MAX_TEMPLATE_FIELDS) {
					b->err = "more than 4096 fields";
					return 0;
				}
				b->pool_n += nm;
			}
			if (!parse_items(b, c, members, &m, depth + 1))
				return 0;
			f = &b->f[idx];
			f->members = members;
			f->nmembers = m;
		}
		if (!count_or_length(b, f, etl__mx_attr(b->a, c, "count"), 1) ||
		    !count_or_length(b, f, etl__mx_attr(b->a, c, "length"), 0))
			return 0;
		list[k++] = idx;
	}
	*count = k;
	return 1;
}

struct etl_schema *etl__mx_template(struct etl_arena *a, const xmlNode *t, const char **err)
{
	struct tbuild b;
	struct etl_schema *s;
	uint16_t *top, ntop = 0;

	memset(&b, 0, sizeof(b));
	b.a = a;
	b.f = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*b.f));
	b.pool = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*b.pool));
	top = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*top));
	s = etl__arena_alloc(a, sizeof(*s));
	if (!b.f || !b.pool || !top || !s) {
		*err = "out of memory";
		goto out_fail;
	}
	if (!parse_items(&b, t, top, &ntop, 0)) {
		*err = b.err;
		goto out_fail;
	}
	memset(s, 0, sizeof(*s));
	/* copy the working arrays into the provider's arena, then point members at the copy */
	s->fields = etl__arena_alloc(a, (size_t)(b.n ? b.n : 1) * sizeof(*s->fields));
	s->top = etl__arena_alloc(a, (size_t)(ntop ? ntop : 1) * sizeof(*s->top));
	{
		uint16_t *pool = etl__arena_alloc(a, (b.pool_n ? b.pool_n : 1) * sizeof(*pool));
		uint16_t i;
		if (!s->fields || !s->top || !pool) {
			*err = "out of memory";
			goto out_fail;
		}
		memcpy(pool, b.pool, b.pool_n * sizeof(*pool));
		memcpy(s->fields, b.f, (size_t)b.n * sizeof(*s->fields));
		for (i = 0; i < b.n; i++)
			if (s->fields[i].flags & FF_STRUCT)
				s->fields[i].members = pool + (s->fields[i].members - b.pool);
	}
	memcpy(s->top, top, (size_t)ntop * sizeof(*top));
	s->nfields = b.n;
	s->ntop = ntop;
	etl__free(b.f);
	etl__free(b.pool);
	etl__free(top);
	return s;
out_fail:
	etl__free(b.f);
	etl__free(b.pool);
	etl__free(top);
	return NULL;
}
