/*
 * symbols.c - which PDB file is an image's, and the functions it names (see
 * symbols.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "symbols/symbols.h"

/* An entry of by_id: a file, by (GUID, age, file name without case). */
struct id_slot {
	struct etl_guid guid;
	uint32_t age;
	const char *base;       /* into the file's pdb_name */
	size_t file;
};

/* An entry of names: a string of a PDB's memory, and its copy. */
struct name_slot {
	const char *at, *copy;
};

void etl__symbols_init(struct etl_symbols *s, uint64_t limit)
{
	unsigned i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < SYMBOLS_UNOPENED; i++)
		atomic_init(&s->unopened[i], NULL);
	pthread_mutex_init(&s->mu, NULL);
	etl__htab_init(&s->by_id, sizeof(struct id_slot));
	etl__htab_init(&s->names, sizeof(struct name_slot));
	s->limit = limit;
}

void etl__symbols_set_limit(struct etl_symbols *s, uint64_t limit)
{
	pthread_mutex_lock(&s->mu);
	s->limit = limit;
	pthread_mutex_unlock(&s->mu);
}

int etl__symbols_add_member(struct etl_symbols *s, const char *name, struct etl_source *src)
{
	struct etl_symmember *m;
	char *copy = etl__strdup(name), *p;

	if (!copy || etl__grow(&s->members, &s->capmembers, s->nmembers + 1, sizeof(*s->members), 8) != 0) {
		etl__free(copy);
		etl__source_close(src);
		return ETL_E_NOMEM;
	}
	for (p = copy; *p; p++)
		if (*p == '\\')
			*p = '/';
	m = &s->members[s->nmembers++];
	m->name = copy;
	m->src = *src;
	etl__source_init(src);
	return ETL_OK;
}

static uint64_t id_hash(const struct etl_guid *g, uint32_t age, const char *base)
{
	uint64_t h = etl__hash_mix(((uint64_t)g->data1 << 32 | (uint64_t)g->data2 << 16 | g->data3) ^ age);
	const char *p;

	h ^= etl__hash_bytes(g->data4, 8);
	for (p = base; *p; p++)
		h = etl__hash_mix(h ^ (uint64_t)tolower((unsigned char)*p));
	return h;
}

static int id_eq(const void *entry, const void *key)
{
	const struct id_slot *e = entry, *k = key;

	return e->age == k->age && etl_guid_equal(&e->guid, &k->guid) && strcasecmp(e->base, k->base) == 0;
}

/* Replaces *field with an escaped copy of text (NULL: none). */
static void set_text(char **field, const char *text)
{
	char buf[512];

	etl__free(*field);
	*field = NULL;
	if (text) {
		etl_text_escape(text, buf, sizeof(buf));
		*field = etl__strdup(buf);
	}
}

struct attempt {
	struct etl_symbols *s;
	struct etl_symfile *f;
};

/* Opens a candidate file; 1 when it is the image's PDB (then f holds it open). */
static int try_file(void *ctx, const char *path, struct etl_symmember *member)
{
	struct attempt *a = ctx;
	struct etl_symfile *f = a->f;
	struct etl_source src;
	struct etl_diag d;
	char msg[400], g1[ETL_GUID_STRING_SIZE], g2[ETL_GUID_STRING_SIZE];
	const char *shown = path ? path : member->name;
	uint64_t room = a->s->limit > a->s->held ? a->s->limit - a->s->held : 0;
	int st;

	st = path ? etl__source_open_regular(&src, path, &d) : etl__source_dup(&src, &member->src, &d);
	if (st != ETL_OK)
		return 0; /* no such file (or not a file): the next candidate */
	if ((st = etl__pdb_open(&f->pdb, &src, room, &d)) != ETL_OK) {
		f->status = st == ETL_E_LIMIT ? ETL_SYMBOLS_LIMIT : ETL_SYMBOLS_DAMAGED;
		snprintf(msg, sizeof(msg), "%s: %s", shown, d.msg);
		set_text(&f->message, msg);
		set_text(&f->path, shown);
		return 0;
	}
	if (!etl_guid_equal(&f->pdb.guid, &f->guid) || (f->age != f->pdb.age && f->age != f->pdb.dbi_age)) {
		etl_guid_format(&f->pdb.guid, g1);
		etl_guid_format(&f->guid, g2);
		snprintf(msg, sizeof(msg), "%s is GUID %s age %u; the image's PDB is GUID %s age %u: not used", shown, g1,
			 f->pdb.dbi_age, g2, f->age);
		etl__pdb_close(&f->pdb);
		f->status = ETL_SYMBOLS_MISMATCH;
		set_text(&f->message, msg);
		set_text(&f->path, shown);
		return 0;
	}
	f->status = ETL_SYMBOLS_LOADED;
	f->open = 1;
	set_text(&f->path, shown);
	set_text(&f->message, NULL);
	a->s->held += f->pdb.held;
	return 1;
}

/* Looks for the PDB of (dbg, pdb_name) the first time it is named: its file entry. */
static struct etl_symfile *file_for(struct etl_symbols *s, const struct etl_dbgid *dbg, const char *pdb_name)
{
	struct id_slot key = { dbg->guid, dbg->age, etl__path_file(pdb_name), 0 }, *e;
	uint64_t h = id_hash(&key.guid, key.age, key.base);
	struct etl_symfile *f;
	struct attempt a;
	char msg[300];

	if ((e = etl__htab_find(&s->by_id, h, id_eq, &key)) != NULL)
		return s->files[e->file];
	if (etl__grow(&s->files, &s->capfiles, s->nfiles + 1, sizeof(*s->files), 16) != 0 ||
	    !(f = etl__calloc(1, sizeof(*f))))
		return NULL;
	if (!(f->pdb_name = etl__strdup(pdb_name)) || !(e = etl__htab_insert(&s->by_id, h))) {
		etl__free(f->pdb_name);
		etl__free(f);
		return NULL;
	}
	s->files[s->nfiles] = f;
	*e = (struct id_slot){ dbg->guid, dbg->age, etl__path_file(f->pdb_name), s->nfiles++ };
	f->guid = dbg->guid;
	f->age = dbg->age;
	f->status = ETL_SYMBOLS_NOT_FOUND;
	a.s = s;
	a.f = f;
	if (!etl__symbols_search(s, pdb_name, &f->guid, f->age, try_file, &a) && f->status == ETL_SYMBOLS_NOT_FOUND) {
		snprintf(msg, sizeof(msg), "%s: not in the symbol paths%s", etl__path_file(pdb_name),
			 s->ndirs || s->nmembers ? "" : " (none given)");
		set_text(&f->message, msg);
	}
	return f;
}

static int name_eq(const void *entry, const void *key)
{
	return ((const struct name_slot *)entry)->at == key;
}

/* The copy of text (a string of an open PDB, which outlives the copy's use), made the first time;
 * text itself when there is no room. */
static const char *copy_of(struct etl_symbols *s, const char *text)
{
	uint64_t h = etl__hash_mix((uintptr_t)text);
	struct name_slot *e;
	size_t n;
	char *c;

	if (!text)
		return NULL;
	if ((e = etl__htab_find(&s->names, h, name_eq, text)) != NULL)
		return e->copy;
	n = strlen(text);
	if (s->held + n + 1 + 2 * sizeof(*e) > s->limit || !(c = etl__arena_strndup(&s->name_text, text, n)))
		return text;
	if (!(e = etl__htab_insert(&s->names, h)))
		return text;
	e->at = text;
	e->copy = c;
	s->held += n + 1 + 2 * sizeof(*e);
	return c;
}

/* Looks rva up in f's PDB (open): hit filled, or hit->function NULL. */
static void lookup(struct etl_symbols *s, struct etl_symfile *f, uint32_t rva, int lines, struct etl_symhit *hit)
{
	struct etl_pdb_hit h;
	struct etl_diag d;
	uint64_t before = f->pdb.held;
	int st;

	f->pdb.max_bytes = before + (s->limit > s->held ? s->limit - s->held : 0);
	st = etl__pdb_lookup(&f->pdb, rva, lines, &h, &d);
	s->held += f->pdb.held - before;
	if (st != ETL_OK && !f->message) { /* the first problem of a file that opened */
		char msg[400];
		snprintf(msg, sizeof(msg), "%s: %s", f->path ? f->path : f->pdb_name, d.msg);
		set_text(&f->message, msg);
	}
	*hit = (struct etl_symhit){ f, rva, h.line, lines, copy_of(s, h.function), copy_of(s, h.file), h.offset };
}

void etl__symbols_frame(struct etl_symbols *s, const struct etl_dbgid *dbg, const char *pdb_name, uint32_t rva,
			int lines, struct etl_frame *out)
{
	struct etl_symfile *f;
	struct etl_symhit *e, miss;
	unsigned u = (unsigned)(etl__hash_mix((uintptr_t)dbg) % SYMBOLS_UNOPENED);

	if (atomic_load_explicit(&s->unopened[u], memory_order_relaxed) == dbg)
		return; /* (most frames, where no PDB is found: a reader's threads pass them at once) */
	pthread_mutex_lock(&s->mu);
	if (dbg == s->last_dbg) { /* (a stack's frames are mostly in a few images) */
		f = s->last_file;
	} else {
		f = file_for(s, dbg, pdb_name);
		s->last_dbg = dbg;
		s->last_file = f;
	}
	if (f && f->open) {
		if (!s->cache)
			s->cache = etl__calloc(SYMBOLS_CACHE, sizeof(*s->cache));
		e = s->cache ? &s->cache[(uint32_t)etl__hash_mix((uintptr_t)f ^ (uint64_t)rva << 20) % SYMBOLS_CACHE]
			     : &miss;
		if (e->file != f || e->rva != rva || e->lines < lines)
			lookup(s, f, rva, lines, e);
		if (e->function) {
			out->kind = ETL_FRAME_SYMBOL;
			out->function = e->function;
			out->function_offset = e->offset;
			if (lines) {
				out->file = e->src;
				out->line = e->line;
			}
		}
	} else if (f) { /* (not when memory ran out: it is looked for again) */
		atomic_store_explicit(&s->unopened[u], dbg, memory_order_relaxed);
	}
	pthread_mutex_unlock(&s->mu);
}

size_t etl__symbols_file_count(struct etl_symbols *s)
{
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = s->nfiles;
	pthread_mutex_unlock(&s->mu);
	return n;
}

int etl__symbols_file(struct etl_symbols *s, size_t i, struct etl_symbol_file *out)
{
	int ok;

	pthread_mutex_lock(&s->mu);
	ok = i < s->nfiles;
	if (ok) {
		const struct etl_symfile *f = s->files[i];
		out->pdb_name = f->pdb_name;
		out->guid = f->guid;
		out->age = f->age;
		out->status = f->status;
		out->path = f->path;
		out->message = f->message;
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

void etl__symbols_free(struct etl_symbols *s)
{
	size_t i;

	for (i = 0; i < s->nfiles; i++) {
		struct etl_symfile *f = s->files[i];
		if (f->open)
			etl__pdb_close(&f->pdb);
		etl__free(f->pdb_name);
		etl__free(f->path);
		etl__free(f->message);
		etl__free(f);
	}
	etl__free(s->files);
	for (i = 0; i < s->nmembers; i++) {
		etl__free(s->members[i].name);
		etl__source_close(&s->members[i].src);
	}
	etl__free(s->members);
	for (i = 0; i < s->ndirs; i++)
		etl__free(s->dirs[i]);
	etl__free(s->dirs);
	etl__htab_free(&s->by_id);
	etl__free(s->cache);
	etl__htab_free(&s->names);
	etl__arena_free(&s->name_text);
	pthread_mutex_destroy(&s->mu);
	memset(s, 0, sizeof(*s));
}
