/*
 * chrome_pairs.c - the open Start/Stop pairs of the Chrome writer
 * (chrome_pairs.h): an open-addressing table keyed by a hash of (input,
 * name, subject), each slot counting how deep its pairs nest.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "writers/chrome_pairs.h"

struct pair {
	uint64_t key;     /* 0: free */
	char *name, *cat;
	int trace;
	uint64_t subject;
	uint32_t pid;
	unsigned open;    /* nesting depth; 0 once closed (the slot stays, as a tombstone) */
};

static struct pair *pairs;
static size_t cap, used;

static uint64_t key_of(int trace, const char *name, uint64_t subject)
{
	uint64_t h = 14695981039346656037ull ^ (uint64_t)(unsigned)trace;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	h = (h ^ subject) * 1099511628211ull;
	h ^= h >> 29;
	return h ? h : 1;
}

static struct pair *find(uint64_t key, int trace, const char *name, uint64_t subject)
{
	size_t i;

	if (!cap)
		return NULL;
	for (i = (size_t)key & (cap - 1); pairs[i].key; i = (i + 1) & (cap - 1))
		if (pairs[i].key == key && pairs[i].trace == trace && pairs[i].subject == subject &&
		    strcmp(pairs[i].name, name) == 0)
			return &pairs[i];
	return NULL;
}

static int grow(void)
{
	size_t ncap = cap ? cap * 2 : 256, i;
	struct pair *np = calloc(ncap, sizeof(*np));

	if (!np)
		return -1;
	for (i = 0; i < cap; i++) {
		size_t k;
		if (!pairs[i].key)
			continue;
		for (k = (size_t)pairs[i].key & (ncap - 1); np[k].key; k = (k + 1) & (ncap - 1))
			;
		np[k] = pairs[i];
	}
	free(pairs);
	pairs = np;
	cap = ncap;
	return 0;
}

uint64_t chrome_pair_open(int trace, const char *name, const char *cat, uint64_t subject, uint32_t pid)
{
	uint64_t key = key_of(trace, name, subject);
	struct pair *p = find(key, trace, name, subject);
	char *n, *c;
	size_t i;

	if (p) {
		if (!p->open)
			p->pid = pid;
		p->open++;
		return key;
	}
	if (2 * (used + 1) > cap && grow() != 0)
		return key; /* no memory: the Stop will be drawn as an instant */
	n = strdup(name);
	c = strdup(cat);
	if (!n || !c) {
		free(n);
		free(c);
		return key;
	}
	for (i = (size_t)key & (cap - 1); pairs[i].key; i = (i + 1) & (cap - 1))
		;
	pairs[i] = (struct pair){ key, n, c, trace, subject, pid, 1 };
	used++;
	return key;
}

int chrome_pair_close(int trace, const char *name, uint64_t subject, uint64_t *id, uint32_t *pid)
{
	uint64_t key = key_of(trace, name, subject);
	struct pair *p = find(key, trace, name, subject);

	if (!p || !p->open)
		return 0;
	p->open--;
	*id = key;
	*pid = p->pid;
	return 1;
}

void chrome_pairs_finish(void (*end)(const char *name, const char *cat, uint64_t id, uint32_t pid))
{
	size_t i;

	for (i = 0; i < cap; i++) {
		for (; pairs[i].key && pairs[i].open; pairs[i].open--)
			end(pairs[i].name, pairs[i].cat, pairs[i].key, pairs[i].pid);
		free(pairs[i].name);
		free(pairs[i].cat);
	}
	free(pairs);
	pairs = NULL;
	cap = used = 0;
}
