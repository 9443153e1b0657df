/*
 * provider.c - a manifest <provider>: its named values (tasks with their
 * opcodes, opcodes, levels, keywords, channels), maps, templates and events.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "manifest/mxml.h"

/* The named-value sections of a provider, read by one loop (read_named). */
enum { T_TASKS, T_OPCODES, T_LEVELS, T_KEYWORDS, T_CHANNELS, T_COUNT };

struct section {
	const char *section, *item, *value_attr;
	uint64_t max;
	int table;
};

static const struct section sections[] = {
	{ "tasks", "task", "value", 0xFFFF, T_TASKS },
	{ "opcodes", "opcode", "value", 255, T_OPCODES },
	{ "levels", "level", "value", 255, T_LEVELS },
	{ "keywords", "keyword", "mask", UINT64_MAX, T_KEYWORDS },
};

struct pbuild {
	struct etl_mprovider *p;
	const struct strtab *st;
	struct load_ctx *x;
	struct ntable t[T_COUNT];
	struct etl_htab tpl;       /* templates by tid */
	struct tpl_work work;
	int stop;                  /* the document costs more than its limit, or memory ran out */
};

struct tpl_entry {
	const char *tid;
	struct etl_schema *schema; /* NULL: rejected */
};

static const char *pattr(struct pbuild *b, const struct mnode *n, const char *name)
{
	(void)b;
	return etl__manifest_attr(n, name);
}

/* Whether the provider built so far still fits what the document may cost; stops it if not. */
static int within_budget(struct pbuild *b)
{
	if (b->stop)
		return 0;
	if (b->x->spent + etl__manifest_provider_bytes(b->p) + b->p->doc->strings.bytes > b->x->max_bytes) {
		etl__diag_set(b->x->d, ETL_E_LIMIT, ETL_OFFSET_NONE,
			      "manifest %s: loading it costs more than %zu bytes of memory (the limit for its size)",
			      b->x->doc, b->x->max_bytes);
		b->stop = 1;
	}
	return !b->stop;
}

/* The items of one section under parent into its table (opcodes of a task: task >= 0). */
static void read_named(struct pbuild *b, const struct mnode *parent, const struct section *s, int task)
{
	const struct mnode *sec = etl__manifest_child(parent, s->section), *c;

	for (c = sec ? sec->children : NULL; c; c = c->next) {
		const char *name;
		uint64_t v;

		if (!etl__manifest_is_el(c, s->item))
			continue;
		name = pattr(b, c, "name");
		if (!name || !etl__manifest_u64(pattr(b, c, s->value_attr), &v) || v > s->max) {
			if (s->table == T_TASKS)
				etl__manifest_warn(b->x, "task", name, "missing name or bad value");
			continue;
		}
		etl__manifest_ntable_add(&b->t[s->table], name, v, etl__manifest_localize(b->st, pattr(b, c, "message")),
				   task);
		if (s->table == T_TASKS)
			read_named(b, c, &sections[T_OPCODES], (int)v); /* the task's own opcodes */
	}
}

/* Channels: numbered by position unless they say; found by name or by chid. */
static void read_channels(struct pbuild *b, const struct mnode *pn)
{
	const struct mnode *sec = etl__manifest_child(pn, "channels"), *c;
	struct ntable *t = &b->t[T_CHANNELS];

	for (c = sec ? sec->children : NULL; c; c = c->next) {
		uint64_t v = 16 + t->n;
		const char *name, *cid;

		if (!etl__manifest_is_el(c, "channel") && !etl__manifest_is_el(c, "importChannel"))
			continue;
		name = pattr(b, c, "name");
		cid = pattr(b, c, "chid");
		etl__manifest_u64(pattr(b, c, "value"), &v);
		if (name)
			etl__manifest_ntable_add(t, name, v, NULL, -1);
		if (cid)
			etl__manifest_ntable_add(t, cid, v, name, -1);
	}
}

/* A map text without the spaces it often ends in: trimmed where it lies, in the document's text
 * (shared by every map entry and message that uses it). */
static const char *trimmed(const char *text)
{
	size_t l = strlen(text);

	while (l > 0 && text[l - 1] == ' ')
		l--;
	((char *)(uintptr_t)text)[l] = 0;
	return text;
}

static struct etl_map *parse_map(struct etl_arena *a, const struct mnode *m, const struct strtab *st)
{
	const struct mnode *c;
	uint32_t n = 0, k = 0;
	struct etl_map *map;
	struct etl_map_entry *entries;

	for (c = m->children; c; c = c->next)
		if (etl__manifest_is_el(c, "map"))
			n++;
	map = etl__arena_alloc(a, sizeof(*map) + (size_t)n * sizeof(map->entries[0]));
	if (!map)
		return NULL;
	memset(map, 0, sizeof(*map));
	map->entries = entries = (struct etl_map_entry *)(map + 1);
	map->name = etl__manifest_attr(m, "name");
	map->bitmap = etl__manifest_is_el(m, "bitMap");
	for (c = m->children; c; c = c->next) {
		uint64_t v;
		const char *text;
		if (!etl__manifest_is_el(c, "map") || !etl__manifest_u64(etl__manifest_attr(c, "value"), &v) || v > 0xFFFFFFFFu)
			continue;
		text = etl__manifest_localize(st, etl__manifest_attr(c, "message"));
		if (!text)
			continue;
		entries[k].value = (uint32_t)v;
		entries[k].text = trimmed(text);
		k++;
	}
	map->count = k;
	/* bit maps bounded, big value maps found by value (a manifest may hold a million entries) */
	etl__schema_map_ready(map, entries, etl__schema_map_wants_order(map) ? etl__arena_alloc(a, (size_t)k * sizeof(uint32_t)) : NULL);
	return map->name ? map : NULL;
}

static void read_maps(struct pbuild *b, const struct mnode *pn)
{
	const struct mnode *sec = etl__manifest_child(pn, "maps"), *c;
	struct etl_mprovider *p = b->p;

	for (c = sec ? sec->children : NULL; c; c = c->next) {
		struct etl_map *m;

		if (!etl__manifest_is_el(c, "valueMap") && !etl__manifest_is_el(c, "bitMap"))
			continue;
		m = parse_map(&p->arena, c, b->st);
		if (!m)
			continue;
		if (etl__grow(&p->maps, &p->cap_maps, p->nmaps + 1, sizeof(*p->maps), 8) != 0)
			break;
		p->maps[p->nmaps++] = m;
		if (!etl__manifest_provider_map(p, m->name)) { /* the first map of a name is the one found */
			struct etl_map **slot = etl__htab_insert(&p->map_index, etl__hash_bytes(m->name, strlen(m->name)));
			if (!slot)
				break;
			*slot = m;
		}
		if (!within_budget(b))
			return;
	}
}

static int tpl_eq(const void *entry, const void *key)
{
	const struct tpl_entry *e = entry;

	return e->tid && strcmp(e->tid, key) == 0;
}

static const struct tpl_entry *find_template(const struct pbuild *b, const char *tid)
{
	return etl__htab_find(&b->tpl, etl__hash_bytes(tid, strlen(tid)), tpl_eq, tid);
}

static void read_templates(struct pbuild *b, const struct mnode *pn)
{
	const struct mnode *sec = etl__manifest_child(pn, "templates"), *c;

	for (c = sec ? sec->children : NULL; c && within_budget(b); c = c->next) {
		const char *err = NULL, *tid;
		struct etl_schema *schema;
		struct tpl_entry *e;

		if (!etl__manifest_is_el(c, "template"))
			continue;
		tid = pattr(b, c, "tid");
		schema = etl__manifest_template(&b->p->arena, c, &b->work, &err);
		if (!schema)
			etl__manifest_warn(b->x, "template", tid, err ? err : "rejected");
		if (!tid || find_template(b, tid))
			continue; /* the first template of a tid is the one used */
		if (!(e = etl__htab_insert(&b->tpl, etl__hash_bytes(tid, strlen(tid))))) {
			b->stop = 1;
			etl__diag_set(b->x->d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
			return;
		}
		e->tid = tid;
		e->schema = schema;
	}
}

/* The event's task and opcode (the opcode is looked up in the task's own first); 0 if it
 * names one that is not defined. */
static int event_task_opcode(struct pbuild *b, const struct mnode *c, struct etl_mevent *e)
{
	const struct named_value *nv;
	const char *s;
	int task = 0;

	if ((s = pattr(b, c, "task")) != NULL) {
		nv = etl__manifest_ntable_find(&b->t[T_TASKS], s, -1);
		if (!nv) {
			etl__manifest_warn(b->x, "event", s, "names an undefined task");
			return 0;
		}
		e->task = (uint16_t)nv->value;
		e->task_name = etl__manifest_display(nv);
		task = (int)nv->value;
	}
	if ((s = pattr(b, c, "opcode")) != NULL) {
		nv = etl__manifest_ntable_find(&b->t[T_OPCODES], s, task);
		if (!nv)
			nv = etl__manifest_ntable_find(&b->t[T_OPCODES], s, -1);
		if (!nv)
			nv = etl__manifest_std_opcode(s);
		if (!nv) {
			etl__manifest_warn(b->x, "event", s, "names an undefined opcode");
			return 0;
		}
		e->opcode = (uint8_t)nv->value;
		e->opcode_name = etl__manifest_display(nv);
	}
	return 1;
}

/* Level, channel and keywords: names that are not defined are left out. */
static void event_level_channel_keywords(struct pbuild *b, const struct mnode *c, struct etl_mevent *e)
{
	const struct named_value *nv;
	const char *s;

	if ((s = pattr(b, c, "level")) != NULL &&
	    ((nv = etl__manifest_ntable_find(&b->t[T_LEVELS], s, -1)) != NULL || (nv = etl__manifest_std_level(s)) != NULL)) {
		e->level = (uint8_t)nv->value;
		e->level_name = etl__manifest_display(nv);
	}
	if ((s = pattr(b, c, "channel")) != NULL &&
	    ((nv = etl__manifest_ntable_find(&b->t[T_CHANNELS], s, -1)) != NULL || (nv = etl__manifest_std_channel(s)) != NULL)) {
		e->channel = (uint8_t)nv->value;
		e->channel_name = nv->message ? nv->message : nv->name;
	}
	if ((s = pattr(b, c, "keywords")) != NULL) {
		/* space-separated keyword names, looked up where they lie */
		const char *w = s;
		while (*w) {
			size_t n = strcspn(w, " ");
			if (n && (nv = etl__manifest_ntable_find_n(&b->t[T_KEYWORDS], w, n, -1)) != NULL)
				e->keywords |= nv->value;
			w += n + (w[n] == ' ');
		}
		e->keywords_name = s;
	}
}

/* One <event>: 1 if it was kept. */
static int read_event(struct pbuild *b, const struct mnode *c, struct etl_mevent *e)
{
	uint64_t v = 0;
	const char *s;

	memset(e, 0, sizeof(*e));
	e->provider = b->p;
	if (!etl__manifest_u64(pattr(b, c, "value"), &v) || v > 0xFFFF) {
		etl__manifest_warn(b->x, "event", pattr(b, c, "symbol"), "missing or bad value");
		return 0;
	}
	e->id = (uint16_t)v;
	v = 0;
	if ((s = pattr(b, c, "version")) && (!etl__manifest_u64(s, &v) || v > 255)) {
		etl__manifest_warn(b->x, "event", s, "bad version");
		return 0;
	}
	e->version = (uint8_t)v;
	if (!event_task_opcode(b, c, e))
		return 0;
	event_level_channel_keywords(b, c, e);
	if ((s = pattr(b, c, "template")) != NULL) {
		const struct tpl_entry *t = find_template(b, s);
		if (!t || !t->schema) {
			etl__manifest_warn(b->x, "event", s, !t ? "names an undefined template" : "uses a rejected template");
			return 0;
		}
		e->schema = t->schema;
	}
	e->message = etl__manifest_localize(b->st, pattr(b, c, "message"));
	return 1;
}

static void read_events(struct pbuild *b, const struct mnode *pn)
{
	const struct mnode *sec = etl__manifest_child(pn, "events"), *c;
	struct etl_mprovider *p = b->p;
	size_t nev = 0;

	for (c = sec ? sec->children : NULL; c; c = c->next)
		if (etl__manifest_is_el(c, "event"))
			nev++;
	if (nev > MAX_EVENTS)
		nev = MAX_EVENTS;
	p->events = etl__arena_alloc(&p->arena, (nev ? nev : 1) * sizeof(*p->events));
	for (c = sec ? sec->children : NULL; c && p->events && p->nevents < nev; c = c->next)
		if (etl__manifest_is_el(c, "event") && read_event(b, c, &p->events[p->nevents]))
			p->nevents++;
	within_budget(b);
}

static int mname_cmp(const void *a, const void *b)
{
	const struct etl_mname *x = a, *y = b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->opcode < y->opcode ? -1 : x->opcode > y->opcode;
}

/* The tasks and opcodes by value, sorted for lookups (etl__manifest_provider_name_of). */
static void keep_names(struct pbuild *b)
{
	const struct ntable *tt = &b->t[T_TASKS], *ot = &b->t[T_OPCODES];
	struct etl_mprovider *p = b->p;
	size_t i, n = 0;

	p->names = etl__arena_alloc(&p->arena, (tt->n + ot->n + 1) * sizeof(*p->names));
	if (!p->names)
		return;
	for (i = 0; i < tt->n; i++)
		p->names[n++] = (struct etl_mname){ (int32_t)tt->v[i].value, -1, etl__manifest_display(&tt->v[i]) };
	for (i = 0; i < ot->n; i++)
		p->names[n++] = (struct etl_mname){ ot->v[i].task, (int32_t)ot->v[i].value, etl__manifest_display(&ot->v[i]) };
	qsort(p->names, n, sizeof(*p->names), mname_cmp);
	p->nnames = n;
}

const char *etl__manifest_provider_name_of(const struct etl_mprovider *p, int32_t task, int32_t opcode)
{
	size_t lo = 0, hi = p->nnames;
	struct etl_mname key = { task, opcode, NULL };

	while (lo < hi) { /* the first of equal keys: the first definition */
		size_t mid = lo + (hi - lo) / 2;
		if (mname_cmp(&p->names[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nnames && mname_cmp(&p->names[lo], &key) == 0 ? p->names[lo].name : NULL;
}

/* Frees what was only needed while building. */
static void pbuild_free(struct pbuild *b)
{
	size_t i;

	for (i = 0; i < T_COUNT; i++)
		etl__manifest_ntable_free(&b->t[i]);
	etl__htab_free(&b->tpl);
	etl__manifest_tpl_work_free(&b->work);
}

struct etl_mprovider *etl__manifest_provider(const struct mnode *pn, const struct strtab *st, struct load_ctx *x,
				       struct mdoc *doc)
{
	struct pbuild b;
	const char *guid_s;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.st = st;
	b.x = x;
	b.p = etl__calloc(1, sizeof(*b.p));
	if (!b.p || etl__manifest_tpl_work_init(&b.work) != 0) {
		etl__free(b.p);
		etl__diag_set(x->d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return NULL;
	}
	b.p->doc = doc;
	doc->refs++;
	etl__htab_init(&b.p->map_index, sizeof(struct etl_map *));
	etl__htab_init(&b.tpl, sizeof(struct tpl_entry));
	b.p->name = pattr(&b, pn, "name");
	guid_s = pattr(&b, pn, "guid");
	if (!b.p->name || !guid_s || etl_guid_parse(guid_s, &b.p->guid) != ETL_OK) {
		etl__manifest_warn(x, "provider", b.p->name, "missing or malformed name or guid");
		b.stop = 1;
	}
	for (i = 0; !b.stop && i < sizeof(sections) / sizeof(sections[0]); i++)
		read_named(&b, pn, &sections[i], -1);
	if (!b.stop) {
		read_channels(&b, pn);
		read_maps(&b, pn);
		read_templates(&b, pn);
	}
	if (!b.stop)
		read_events(&b, pn);
	if (!b.stop) {
		keep_names(&b);
		b.p->source = etl__arena_strndup(&b.p->arena, x->doc, strlen(x->doc));
	}
	pbuild_free(&b);
	if (b.stop) {
		etl__manifest_provider_free(b.p);
		return NULL;
	}
	return b.p;
}

void etl__manifest_provider_free(struct etl_mprovider *p)
{
	if (!p)
		return;
	etl__free(p->maps);
	etl__htab_free(&p->map_index);
	etl__arena_free(&p->arena);
	etl__manifest_doc_release(p->doc);
	etl__free(p);
}

size_t etl__manifest_provider_bytes(const struct etl_mprovider *p)
{
	return p->arena.bytes + p->cap_maps * sizeof(*p->maps) + p->map_index.cap * (sizeof(uint64_t) + p->map_index.size);
}

const char *etl__manifest_provider_name(const struct etl_mprovider *p)
{
	return p->name;
}

static int map_eq(const void *entry, const void *key)
{
	return strcmp((*(const struct etl_map *const *)entry)->name, key) == 0;
}

const struct etl_map *etl__manifest_provider_map(const struct etl_mprovider *p, const char *name)
{
	const struct etl_map *const *m = etl__htab_find(&p->map_index, etl__hash_bytes(name, strlen(name)), map_eq, name);

	return m ? *m : NULL;
}
