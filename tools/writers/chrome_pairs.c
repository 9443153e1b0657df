/*
 * chrome_pairs.c - the open Start/Stop pairs of the Chrome writer
 * (chrome_pairs.h), in the shared hash table (common/hmap.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "writers/chrome_pairs.h"

struct pair {
	char *name, *cat;
	int trace;
	uint64_t subject, id; /* id: the hash of (trace, name, subject), the pair's async id */
	uint32_t pid;
	unsigned open;        /* nesting depth; 0 once closed (the entry stays for a later Start) */
};

struct pair_key {
	int trace;
	const char *name;
	uint64_t subject;
};

/* FNV-1a of (trace, name, subject), folded: the table's hash and the pair's async id */
static uint64_t id_of(const struct pair_key *k)
{
	uint64_t h = 14695981039346656037ull ^ (uint64_t)(unsigned)k->trace;
	const char *c;

	for (c = k->name; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	h = (h ^ k->subject) * 1099511628211ull;
	h ^= h >> 29;
	return h ? h : 1;
}

static int pair_eq(const void *entry, const void *key)
{
	const struct pair *p = entry;
	const struct pair_key *k = key;

	return p->trace == k->trace && p->subject == k->subject && strcmp(p->name, k->name) == 0;
}

static struct pair *find(struct chrome_pairs *ps, const struct pair_key *k, uint64_t id)
{
	if (!ps->ready) {
		hmap_init(&ps->open, sizeof(struct pair));
		ps->ready = 1;
	}
	return hmap_find(&ps->open, id, pair_eq, k);
}

uint64_t chrome_pair_open(struct chrome_pairs *ps, int trace, const char *name, const char *cat, uint64_t subject,
			  uint32_t pid)
{
	struct pair_key k = { trace, name, subject };
	uint64_t id = id_of(&k);
	struct pair *p = find(ps, &k, id);
	char *n, *c;

	if (p) {
		if (!p->open)
			p->pid = pid;
		p->open++;
		return id;
	}
	n = strdup(name);
	c = strdup(cat);
	if (!n || !c || !(p = hmap_insert(&ps->open, id))) {
		free(n);
		free(c);
		return id; /* no memory: the Stop will be drawn as an instant */
	}
	*p = (struct pair){ n, c, trace, subject, id, pid, 1 };
	return id;
}

int chrome_pair_close(struct chrome_pairs *ps, int trace, const char *name, uint64_t subject, uint64_t *id,
		      uint32_t *pid)
{
	struct pair_key k = { trace, name, subject };
	uint64_t h = id_of(&k);
	struct pair *p = find(ps, &k, h);

	if (!p || !p->open)
		return 0;
	p->open--;
	*id = p->id;
	*pid = p->pid;
	return 1;
}

void chrome_pairs_finish(struct chrome_pairs *ps,
			 void (*end)(void *ctx, const char *name, const char *cat, uint64_t id, uint32_t pid),
			 void *ctx)
{
	size_t i;

	for (i = 0; ps->ready && i < ps->open.cap; i++) {
		struct pair *p = hmap_at(&ps->open, i);
		if (!p)
			continue;
		for (; p->open; p->open--)
			end(ctx, p->name, p->cat, p->id, p->pid);
		free(p->name);
		free(p->cat);
	}
	if (ps->ready)
		hmap_free(&ps->open);
	ps->ready = 0;
}
