/*
 * hmap.c - the table and the array growth of hmap.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"

void hmap_init(struct hmap *t, size_t size)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
}

void hmap_free(struct hmap *t)
{
	free(t->hash);
	free(t->entries);
	hmap_init(t, t->size);
}

void *hmap_at(const struct hmap *t, size_t i)
{
	return i < t->cap && t->hash[i] ? t->entries + i * t->size : NULL;
}

void *hmap_find(const struct hmap *t, uint64_t hash, int (*eq)(const void *entry, const void *key),
		const void *key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	hash = hash ? hash : 1;
	for (i = (size_t)hash & (t->cap - 1); t->hash[i]; i = (i + 1) & (t->cap - 1))
		if (t->hash[i] == hash && eq(t->entries + i * t->size, key))
			return t->entries + i * t->size;
	return NULL;
}

static size_t free_slot(const uint64_t *hash, size_t cap, uint64_t h)
{
	size_t i;

	for (i = (size_t)h & (cap - 1); hash[i]; i = (i + 1) & (cap - 1))
		;
	return i;
}

static int grow(struct hmap *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 256, i;
	uint64_t *nh;
	unsigned char *ne;

	if (ncap < t->cap || ncap > SIZE_MAX / (t->size ? t->size : 1))
		return -1;
	nh = calloc(ncap, sizeof(*nh));
	ne = calloc(ncap, t->size);
	if (!nh || !ne) {
		free(nh);
		free(ne);
		return -1;
	}
	for (i = 0; i < t->cap; i++) {
		size_t j;
		if (!t->hash[i])
			continue;
		j = free_slot(nh, ncap, t->hash[i]);
		nh[j] = t->hash[i];
		memcpy(ne + j * t->size, t->entries + i * t->size, t->size);
	}
	free(t->hash);
	free(t->entries);
	t->hash = nh;
	t->entries = ne;
	t->cap = ncap;
	return 0;
}

void *hmap_insert(struct hmap *t, uint64_t hash)
{
	size_t i;

	if (2 * (t->count + 1) > t->cap && grow(t) != 0)
		return NULL;
	hash = hash ? hash : 1;
	i = free_slot(t->hash, t->cap, hash);
	t->hash[i] = hash;
	memset(t->entries + i * t->size, 0, t->size);
	t->count++;
	return t->entries + i * t->size;
}

uint64_t hmap_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

uint64_t hmap_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 14695981039346656037ull ^ seed;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return hmap_hash_mix(h);
}

int grow_array(void *arrp, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap;
	void *old, *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : (first ? first : 16);
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (size && ncap > SIZE_MAX / size)
		return -1;
	/* the array pointer is read and written as bytes: it may point to any object type */
	memcpy(&old, arrp, sizeof(old));
	n = realloc(old, ncap * size);
	if (!n)
		return -1;
	memcpy(arrp, &n, sizeof(n));
	*cap = ncap;
	return 0;
}
