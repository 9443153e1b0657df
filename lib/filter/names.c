/*
 * names.c - what a filter learns while it matches: the provider name of each
 * GUID it saw decoded (so that a provider glob is decided without decoding
 * for the GUID's later events), and, for each text pattern that has matched
 * nothing yet, the names it was compared with, so that one that matched
 * nothing can be told with the closest names the inputs have.  Bounded: at
 * most NAMES_MAX names and NAMES_BYTES bytes in all; past them, names are not
 * kept (a suggestion then comes from fewer).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <string.h>

#include "filter/filter.h"

#define NAMES_MAX 4096
#define NAMES_BYTES (256u << 10)
#define DIST_CHARS 96 /* the first characters compared for the closest names */

struct by_guid {
	struct etl_guid g;
	char *name;
};

struct seen {
	char *name;
};

static int guid_eq(const void *e, const void *k)
{
	return etl_guid_equal(&((const struct by_guid *)e)->g, k);
}

static int name_eq(const void *e, const void *k)
{
	return strcmp(((const struct seen *)e)->name, k) == 0;
}

/* ---- what FN_ANY nodes found for each text ---- */

struct memo {
	char *text;
	int yes;
};

static int memo_eq(const void *e, const void *k)
{
	return strcmp(((const struct memo *)e)->text, k) == 0;
}

int etl__filter_memo_get(struct etl_filter *f, const struct fnode *n, const char *text, int *yes)
{
	const struct memo *e;
	int found = 0;

	pthread_mutex_lock(&f->mu);
	if (n->memo.size && (e = etl__htab_find(&n->memo, etl__hash_bytes(text, strlen(text)), memo_eq, text)) != NULL) {
		*yes = e->yes;
		found = 1;
	}
	pthread_mutex_unlock(&f->mu);
	return found;
}

void etl__filter_memo_put(struct etl_filter *f, struct fnode *n, const char *text, int yes)
{
	uint64_t h = etl__hash_bytes(text, strlen(text));
	struct memo *e;

	pthread_mutex_lock(&f->mu);
	if (!n->memo.size)
		etl__htab_init(&n->memo, sizeof(struct memo));
	if (n->memo.count < FILTER_MEMO_MAX && !etl__htab_find(&n->memo, h, memo_eq, text)) {
		char *copy = etl__strdup(text);
		if (copy && (e = etl__htab_insert(&n->memo, h)) != NULL) {
			e->text = copy;
			e->yes = yes;
		} else {
			etl__free(copy);
		}
	}
	pthread_mutex_unlock(&f->mu);
}

void etl__filter_memo_free(struct fnode *n)
{
	size_t i;

	for (i = 0; i < n->memo.cap; i++) {
		struct memo *e = etl__htab_at(&n->memo, i);
		if (e)
			etl__free(e->text);
	}
	etl__htab_free(&n->memo);
}

void etl__filter_names_init(struct etl_filter *f)
{
	int i;

	pthread_mutex_init(&f->mu, NULL);
	etl__htab_init(&f->by_guid, sizeof(struct by_guid));
	for (i = 0; i < 3; i++)
		etl__htab_init(&f->seen[i], sizeof(struct seen));
}

void etl__filter_names_free(struct etl_filter *f)
{
	size_t i;
	int k;

	for (i = 0; i < f->by_guid.cap; i++) {
		struct by_guid *e = etl__htab_at(&f->by_guid, i);
		if (e)
			etl__free(e->name);
	}
	etl__htab_free(&f->by_guid);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < f->seen[k].cap; i++) {
			struct seen *e = etl__htab_at(&f->seen[k], i);
			if (e)
				etl__free(e->name);
		}
		etl__htab_free(&f->seen[k]);
	}
	pthread_mutex_destroy(&f->mu);
}

static uint64_t guid_hash(const struct etl_guid *g)
{
	return etl__hash_bytes(g, sizeof(*g));
}

int etl__filter_provider_of(struct etl_filter *f, const struct etl_guid *g, char *out, size_t cap)
{
	struct by_guid *e;
	int found = 0;

	pthread_mutex_lock(&f->mu);
	if ((e = etl__htab_find(&f->by_guid, guid_hash(g), guid_eq, g)) != NULL && strlen(e->name) < cap) {
		memcpy(out, e->name, strlen(e->name) + 1);
		found = 1;
	}
	pthread_mutex_unlock(&f->mu);
	return found;
}

/* Room for a name of n bytes in the bounds (under mu). */
static int room(struct etl_filter *f, size_t n, size_t count)
{
	return count < NAMES_MAX && f->seen_bytes + n <= NAMES_BYTES;
}

void etl__filter_saw_provider(struct etl_filter *f, const struct etl_guid *g, const char *name)
{
	uint64_t h = guid_hash(g);
	struct by_guid *e;

	pthread_mutex_lock(&f->mu);
	if (!etl__htab_find(&f->by_guid, h, guid_eq, g) && room(f, strlen(name) + 1, f->by_guid.count)) {
		char *copy = etl__strdup(name);
		if (copy && (e = etl__htab_insert(&f->by_guid, h)) != NULL) {
			e->g = *g;
			e->name = copy;
			f->seen_bytes += strlen(name) + 1;
		} else {
			etl__free(copy);
		}
	}
	pthread_mutex_unlock(&f->mu);
}

void etl__filter_saw(struct etl_filter *f, enum ffield field, const char *name)
{
	struct etl_htab *t = &f->seen[field == FF_PROVIDER ? 0 : field == FF_NAME ? 1 : 2];
	uint64_t h;
	struct seen *e;

	if (!name || !*name || !FF_IS_TEXT(field))
		return;
	h = etl__hash_bytes(name, strlen(name));
	pthread_mutex_lock(&f->mu);
	if (!etl__htab_find(t, h, name_eq, name) && room(f, strlen(name) + 1, t->count)) {
		char *copy = etl__strdup(name);
		if (copy && (e = etl__htab_insert(t, h)) != NULL) {
			e->name = copy;
			f->seen_bytes += strlen(name) + 1;
		} else {
			etl__free(copy);
		}
	}
	pthread_mutex_unlock(&f->mu);
}

/* The edits that make name match the glob: '*' takes any run for nothing, '?' any character,
 * case ignored; the first DIST_CHARS characters of each. */
static unsigned glob_distance(const char *glob, const char *name)
{
	unsigned row[DIST_CHARS + 1], prev[DIST_CHARS + 1];
	size_t m = strlen(name) < DIST_CHARS ? strlen(name) : DIST_CHARS, i, j;
	size_t n = strlen(glob) < DIST_CHARS ? strlen(glob) : DIST_CHARS;

	for (j = 0; j <= m; j++)
		prev[j] = (unsigned)j;
	for (i = 1; i <= n; i++) {
		int c = tolower((unsigned char)glob[i - 1]);
		row[0] = c == '*' ? prev[0] : prev[0] + 1;
		for (j = 1; j <= m; j++) {
			unsigned best;
			if (c == '*') {
				best = prev[j] < row[j - 1] ? prev[j] : row[j - 1];
			} else {
				int same = c == '?' || c == tolower((unsigned char)name[j - 1]);
				best = prev[j - 1] + !same;
				if (prev[j] + 1 < best)
					best = prev[j] + 1;
				if (row[j - 1] + 1 < best)
					best = row[j - 1] + 1;
			}
			row[j] = best;
		}
		memcpy(prev, row, (m + 1) * sizeof(*row));
	}
	return prev[m];
}

/* The pattern of enumeration index i among those that were compared with names and matched
 * none, or NULL. */
static const struct fnode *unmatched(const struct etl_filter *f, size_t i)
{
	size_t k;

	for (k = 0; f && k < f->npatterns; k++) {
		struct filter_pattern *p = (struct filter_pattern *)&f->patterns[k];
		if (atomic_load_explicit(&p->tried, memory_order_relaxed) &&
		    !atomic_load_explicit(&p->hit, memory_order_relaxed) && i-- == 0)
			return p->node;
	}
	return NULL;
}

const char *etl_filter_unmatched(const struct etl_filter *f, size_t i, const char **field)
{
	const struct fnode *n = unmatched(f, i);

	if (field)
		*field = !n ? NULL : n->field == FF_PROVIDER ? "provider" : n->field == FF_NAME ? "name" : "process";
	return n ? n->value : NULL;
}

size_t etl_filter_closest(const struct etl_filter *f, size_t i, const char **out, size_t max)
{
	const struct fnode *n = unmatched(f, i);
	const struct etl_htab *t;
	unsigned dist[16];
	size_t k, got = 0, j;

	if (!n || !out)
		return 0;
	if (max > 16)
		max = 16;
	t = &f->seen[n->field == FF_PROVIDER ? 0 : n->field == FF_NAME ? 1 : 2];
	for (k = 0; k < t->cap; k++) {
		const struct seen *e = etl__htab_at(t, k);
		unsigned d;
		if (!e)
			continue;
		d = glob_distance(n->value, e->name);
		if (d * 2 > strlen(n->value) + 2) /* (more than half of it changed: not a near miss) */
			continue;
		for (j = got < max ? got++ : max; j > 0 && (dist[j - 1] > d || (dist[j - 1] == d &&
							  strcmp(out[j - 1], e->name) > 0)); j--)
			if (j < max) {
				out[j] = out[j - 1];
				dist[j] = dist[j - 1];
			}
		if (j < max) {
			out[j] = e->name;
			dist[j] = d;
		}
	}
	return got;
}
