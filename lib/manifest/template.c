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
	struct etl_htab names; /* the latest value field of each name (count and length refer to them) */
};

struct name_slot {
	const char *name;
	uint16_t idx;
};

static int name_eq(const void *entry, const void *key)
{
	return strcmp(((const struct name_slot *)entry)->name, key) == 0;
}

static int find_field(const struct tbuild *b, const char *name, uint16_t *idx)
{
	const struct name_slot *s = etl__htab_find(&b->names, etl__hash_bytes(name, strlen(name)), name_eq, name);

	if (s)
		*idx = s->idx;
	return s != NULL;
}

/* Notes field idx (a value, not a struct) as the latest of its name. */
static int note_field(struct tbuild *b, uint16_t idx)
{
	const char *name = b->f[idx].name;
	uint64_t h = etl__hash_bytes(name, strlen(name));
	struct name_slot *s = etl__htab_find(&b->names, h, name_eq, name);

	if (!s && !(s = etl__htab_insert(&b->names, h))) {
		b->err = "out of memory";
		return 0;
	}
	s->name = name;
	s->idx = idx;
	return 1;
}

/* count="N" or count="FieldName" (and the same for length). */
static int count_or_length(struct tbuild *b, struct etl_field *f, const char *v, int is_count)
{
	uint64_t n;
	uint16_t idx;

	if (!v)
		return 1;
	if (etl__manifest_u64(v, &n)) {
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
static int parse_items(struct tbuild *b, const struct mnode *n, uint16_t *list, uint16_t *count, int depth)
{
	const struct mnode *c;
	uint16_t k = 0;

	if (depth > MAX_STRUCT_DEPTH) {
		b->err = "structs nested too deep";
		return 0;
	}
	for (c = n->children; c; c = c->next) {
		struct etl_field *f;
		uint16_t idx;

		if (!etl__manifest_is_el(c, "data") && !etl__manifest_is_el(c, "struct"))
			continue;
		if (b->n >= MAX_TEMPLATE_FIELDS) {
			b->err = "more than 4096 fields";
			return 0;
		}
		idx = b->n++;
		f = &b->f[idx];
		memset(f, 0, sizeof(*f));
		f->name = etl__manifest_attr(c, "name");
		if (!f->name) {
			b->err = "a field without a name";
			return 0;
		}
		if (etl__manifest_is_el(c, "data")) {
			const char *in = etl__manifest_attr(c, "inType"), *out = etl__manifest_attr(c, "outType");
			if (!etl__manifest_type(in, 1, &f->in_type)) {
				b->err = "unknown inType";
				return 0;
			}
			if (out && !etl__manifest_type(out, 0, &f->out_type))
				f->out_type = ETL_OUT_NULL; /* an unknown outType only changes the rendering */
			f->map_name = etl__manifest_attr(c, "map");
		} else {
			uint16_t *members = b->pool + b->pool_n, m = 0;
			f->flags |= FF_STRUCT;
			/* reserve the member list, then parse the members */
			{
				const struct mnode *x;
				uint16_t nm = 0;
				for (x = c->children; x; x = x->next)
					if (etl__manifest_is_el(x, "data") || etl__manifest_is_el(x, "struct"))
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
		if (!count_or_length(b, f, etl__manifest_attr(c, "count"), 1) ||
		    !count_or_length(b, f, etl__manifest_attr(c, "length"), 0))
			return 0;
		if (!(f->flags & FF_STRUCT) && !note_field(b, idx))
			return 0;
		list[k++] = idx;
	}
	*count = k;
	return 1;
}

int etl__manifest_tpl_work_init(struct tpl_work *w)
{
	w->f = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*w->f));
	w->pool = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*w->pool));
	w->top = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*w->top));
	if (w->f && w->pool && w->top)
		return 0;
	etl__manifest_tpl_work_free(w);
	return -1;
}

void etl__manifest_tpl_work_free(struct tpl_work *w)
{
	etl__free(w->f);
	etl__free(w->pool);
	etl__free(w->top);
	w->f = NULL;
	w->pool = w->top = NULL;
}

/* The schema in the arena from the working arrays: fields, member lists and the top list. */
static struct etl_schema *copy_out(struct etl_arena *a, const struct tbuild *b, const uint16_t *top, uint16_t ntop)
{
	struct etl_schema *s = etl__arena_alloc(a, sizeof(*s));
	uint16_t *pool = etl__arena_alloc(a, (b->pool_n ? b->pool_n : 1) * sizeof(*pool));
	uint16_t i;

	if (!s || !pool)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->fields = etl__arena_alloc(a, (size_t)(b->n ? b->n : 1) * sizeof(*s->fields));
	s->top = etl__arena_alloc(a, (size_t)(ntop ? ntop : 1) * sizeof(*s->top));
	if (!s->fields || !s->top)
		return NULL;
	memcpy(pool, b->pool, b->pool_n * sizeof(*pool));
	memcpy(s->fields, b->f, (size_t)b->n * sizeof(*s->fields));
	for (i = 0; i < b->n; i++)
		if (s->fields[i].flags & FF_STRUCT)
			s->fields[i].members = pool + (s->fields[i].members - b->pool);
	memcpy(s->top, top, (size_t)ntop * sizeof(*top));
	s->nfields = b->n;
	s->ntop = ntop;
	return s;
}

struct etl_schema *etl__manifest_template(struct etl_arena *a, const struct mnode *t, struct tpl_work *w,
				    const char **err)
{
	struct tbuild b;
	struct etl_schema *s = NULL;
	uint16_t ntop = 0;

	memset(&b, 0, sizeof(b));
	b.a = a;
	b.f = w->f;
	b.pool = w->pool;
	etl__htab_init(&b.names, sizeof(struct name_slot));
	if (!parse_items(&b, t, w->top, &ntop, 0))
		*err = b.err;
	else if (!(s = copy_out(a, &b, w->top, ntop)))
		*err = "out of memory";
	else
		etl__schema_count_frames(s);
	etl__htab_free(&b.names);
	return s;
}
