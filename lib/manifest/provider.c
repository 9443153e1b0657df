/*
 * provider.c - a manifest <provider>: its named values (tasks with their
 * opcodes, opcodes, levels, keywords, channels), maps, templates and events.
 *
 * SPDX-License-Identifier: MIT
 */
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
	struct etl_mtemplate {
		const char *tid;
		struct etl_schema *schema; /* NULL: rejected */
	} *tpl;
	size_t ntpl, cap_tpl;
};

static const char *pattr(struct pbuild *b, const xmlNode *n, const char *name)
{
	return etl__mx_attr(&b->p->arena, n, name);
}

/* The items of one section under parent into its table (opcodes of a task: task >= 0). */
static void read_named(struct pbuild *b, const xmlNode *parent, const struct section *s, int task)
{
	const xmlNode *sec = etl__mx_child(parent, s->section), *c;

	for (c = sec ? sec->children : NULL; c; c = c->next) {
		const char *name;
		uint64_t v;

		if (!etl__mx_is_el(c, s->item))
			continue;
		name = pattr(b, c, "name");
		if (!name || !etl__mx_u64(pattr(b, c, s->value_attr), &v) || v > s->max) {
			if (s->table == T_TASKS)
				etl__mx_warn(b->x, "task", name, "missing name or bad value");
			continue;
		}
		etl__mx_ntable_add(&b->t[s->table], name, v, etl__mx_localize(b->st, pattr(b, c, "message")),
				   task);
		if (s->table == T_TASKS)
			read_named(b, c, &sections[T_OPCODES], (int)v); /* the task's own opcodes */
	}
}

/* Channels: numbered by position unless they say; found by name or by chid. */
static void read_channels(struct pbuild *b, const xmlNode *pn)
{
	const xmlNode *sec = etl__mx_child(pn, "channels"), *c;
	struct ntable *t = &b->t[T_CHANNELS];

	for (c = sec ? sec->children : NULL; c; c = c->next) {
		uint64_t v = 16 + t->n;
		const char *name, *cid;

		if (!etl__mx_is_el(c, "channel") && !etl__mx_is_el(c, "importChannel"))
			continue;
		name = pattr(b, c, "name");
		cid = pattr(b, c, "chid");
		etl__mx_u64(pattr(b, c, "value"), &v);
		if (name)
			etl__mx_ntable_add(t, name, v, NULL, -1);
		if (cid)
			etl__mx_ntable_add(t, cid, v, name, -1);
	}
}

static struct etl_map *parse_map(struct etl_arena *a, const xmlNode *m, const struct strtab *st)
{
	const xmlNode *c;
	uint32_t n = 0, k = 0;
	struct etl_map *map;

	for (c = m->children; c; c = c->next)
		if (etl__mx_is_el(c, "map"))
			n++;
	map = etl__arena_alloc(a, sizeof(*map) + (size_t)n * sizeof(map->entries[0]));
	if (!map)
		return NULL;
	map->name = etl__mx_attr(a, m, "name");
	map->bitmap = etl__mx_is_el(m, "bitMap");
	for (c = m->children; c; c = c->next) {
		uint64_t v;
		const char *text;
		if (!etl__mx_is_el(c, "map") || !etl__mx_u64(etl__mx_attr(a, c, "value"), &v) || v > 0xFFFFFFFFu)
			continue;
		text = etl__mx_localize(st, etl__mx_attr(a, c, "message"));
		if (!text)
			continue;
		/* map texts often end in a space */
		{
			size_t l = strlen(text);
			while (l > 0 && text[l - 1] == ' ')
				l--;
			text = etl__arena_strndup(a, text, l);
		}
		map->entries[k].value = (uint32_t)v;
		map->entries[k].text = text;
		k++;
	}
	map->count = k;
	return map->name ? map : NULL;
}

static void read_maps(struct pbuild *b, const xmlNode *pn)
{
	const xmlNode *sec = etl__mx_child(pn, "maps"), *c;
	struct etl_mprovider *p = b->p;

	for (c = sec ? sec->children : NULL; c; c = c->next) {
		struct etl_map *m;

		if (!etl__mx_is_el(c, "valueMap") && !etl__mx_is_el(c, "bitMap"))
			continue;
		m = parse_map(&p->arena, c, b->st);
		if (!m)
			continue;
		if (etl__grow(&p->maps, &p->cap_maps, p->nmaps + 1, sizeof(*p->maps), 8) != 0)
			break;
		p->maps[p->nmaps++] = m;
	}
}

static void read_templates(struct pbuild *b, const xmlNode *pn)
{
	const xmlNode *sec = etl__mx_child(pn, "templates"), *c;

	for (c = sec ? sec->children : NULL; c; c = c->next) {
		const char *err = NULL;

		if (!etl__mx_is_el(c, "template"))
			continue;
		if (etl__grow(&b->tpl, &b->cap_tpl, b->ntpl + 1, sizeof(*b->tpl), 16) != 0)
			break;
		b->tpl[b->ntpl].tid = pattr(b, c, "tid");
		b->tpl[b->ntpl].schema = etl__mx_template(&b->p->arena, c, &err);
		if (!b->tpl[b->ntpl].schema)
			etl__mx_warn(b->x, "template", b->tpl[b->ntpl].tid, err ? err : "rejected");
		b->ntpl++;
	}
}

/* The event's task and opcode (the opcode is looked up in the task's own first); 0 if it
 * names one that is not defined. */
static int event_task_opcode(struct pbuild *b, const xmlNode *c, struct etl_mevent *e)
{
	const struct named_value *nv;
	const char *s;
	int task = 0;

	if ((s = pattr(b, c, "task")) != NULL) {
		nv = etl__mx_ntable_find(&b->t[T_TASKS], s, -1);
		if (!nv) {
			etl__mx_warn(b->x, "event", s, "names an undefined task");
			return 0;
		}
		e->task = (uint16_t)nv->value;
		e->task_name = etl__mx_display(nv);
		task = (int)nv->value;
	}
	if ((s = pattr(b, c, "opcode")) != NULL) {
		nv = etl__mx_ntable_find(&b->t[T_OPCODES], s, task);
		if (!nv)
			nv = etl__mx_ntable_find(&b->t[T_OPCODES], s, -1);
		if (!nv)
			nv = etl__mx_std_opcode(s);
		if (!nv) {
			etl__mx_warn(b->x, "event", s, "names an undefined opcode");
			return 0;
		}
		e->opcode = (uint8_t)nv->value;
		e->opcode_name = etl__mx_display(nv);
	}
	return 1;
}

/* Level, channel and keywords: names that are not defined are left out. */
static void event_level_channel_keywords(struct pbuild *b, const xmlNode *c, struct etl_mevent *e)
{
	const struct named_value *nv;
	const char *s;

	if ((s = pattr(b, c, "level")) != NULL &&
	    ((nv = etl__mx_ntable_find(&b->t[T_LEVELS], s, -1)) != NULL || (nv = etl__mx_std_level(s)) != NULL)) {
		e->level = (uint8_t)nv->value;
		e->level_name = etl__mx_display(nv);
	}
	if ((s = pattr(b, c, "channel")) != NULL &&
	    ((nv = etl__mx_ntable_find(&b->t[T_CHANNELS], s, -1)) != NULL || (nv = etl__mx_std_channel(s)) != NULL)) {
		e->channel = (uint8_t)nv->value;
		e->channel_name = nv->message ? nv->message : nv->name;
	}
	if ((s = pattr(b, c, "keywords")) != NULL) {
		/* space-separated keyword names */
		char *w = etl__arena_strndup(&b->p->arena, s, strlen(s)), *tok, *save = NULL;
		for (tok = w ? strtok_r(w, " ", &save) : NULL; tok; tok = strtok_r(NULL, " ", &save)) {
			nv = etl__mx_ntable_find(&b->t[T_KEYWORDS], tok, -1);
			if (nv)
				e->keywords |= nv->value;
		}
		e->keywords_name = s;
	}
}

/* One <event>: 1 if it was kept. */
static int read_event(struct pbuild *b, const xmlNode *c, struct etl_mevent *e)
{
	uint64_t v = 0;
	const char *s;
	size_t i;

	memset(e, 0, sizeof(*e));
	e->provider = b->p;
	if (!etl__mx_u64(pattr(b, c, "value"), &v) || v > 0xFFFF) {
		etl__mx_warn(b->x, "event", pattr(b, c, "symbol"), "missing or bad value");
		return 0;
	}
	e->id = (uint16_t)v;
	v = 0;
	if ((s = pattr(b, c, "version")) && (!etl__mx_u64(s, &v) || v > 255)) {
		etl__mx_warn(b->x, "event", s, "bad version");
		return 0;
	}
	e->version = (uint8_t)v;
	if (!event_task_opcode(b, c, e))
		return 0;
	event_level_channel_keywords(b, c, e);
	if ((s = pattr(b, c, "template")) != NULL) {
		for (i = 0; i < b->ntpl; i++)
			if (b->tpl[i].tid && strcmp(b->tpl[i].tid, s) == 0)
				break;
		if (i == b->ntpl || !b->tpl[i].schema) {
			etl__mx_warn(b->x, "event", s, i == b->ntpl ? "names an undefined template" : "uses a rejected template");
			return 0;
		}
		e->schema = b->tpl[i].schema;
	}
	e->message = etl__mx_localize(b->st, pattr(b, c, "message"));
	return 1;
}

static void read_events(struct pbuild *b, const xmlNode *pn)
{
	const xmlNode *sec = etl__mx_child(pn, "events"), *c;
	struct etl_mprovider *p = b->p;
	size_t nev = 0;

	for (c = sec ? sec->children : NULL; c; c = c->next)
		if (etl__mx_is_el(c, "event"))
			nev++;
	if (nev > MAX_EVENTS)
		nev = MAX_EVENTS;
	p->events = etl__arena_alloc(&p->arena, (nev ? nev : 1) * sizeof(*p->events));
	for (c = sec ? sec->children : NULL; c && p->events && p->nevents < nev; c = c->next)
		if (etl__mx_is_el(c, "event") && read_event(b, c, &p->events[p->nevents]))
			p->nevents++;
}

struct etl_mprovider *etl__mx_provider(const xmlNode *pn, const struct strtab *st, struct load_ctx *x)
{
	struct pbuild b;
	const char *guid_s;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.st = st;
	b.x = x;
	b.p = etl__calloc(1, sizeof(*b.p));
	if (!b.p)
		return NULL;
	b.p->name = pattr(&b, pn, "name");
	guid_s = pattr(&b, pn, "guid");
	if (!b.p->name || !guid_s || etl_guid_parse(guid_s, &b.p->guid) != ETL_OK) {
		etl__mx_warn(x, "provider", b.p->name, "missing or malformed name or guid");
		etl__mx_provider_free(b.p);
		return NULL;
	}
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		read_named(&b, pn, &sections[i], -1);
	read_channels(&b, pn);
	read_maps(&b, pn);
	read_templates(&b, pn);
	read_events(&b, pn);
	for (i = 0; i < T_COUNT; i++)
		etl__free(b.t[i].v);
	etl__free(b.tpl);
	return b.p;
}

void etl__mx_provider_free(struct etl_mprovider *p)
{
	if (!p)
		return;
	etl__free(p->maps);
	etl__arena_free(&p->arena);
	etl__free(p);
}
