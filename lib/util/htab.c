/*
 * htab.c - the hash table of htab.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"
#include "util/htab.h"

void etl__htab_init(struct etl_htab *t, size_t size)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
}

void etl__htab_free(struct etl_htab *t)
{
	etl__free(t->hash);
	etl__free(t->entries);
	etl__htab_init(t, t->size);
}

void etl__htab_clear(struct etl_htab *t)
{
	if (t->cap) {
		memset(t->hash, 0, t->cap * sizeof(*t->hash));
		memset(t->entries, 0, t->cap * t->size);
	}
	t->count = 0;
}

void *etl__htab_at(const struct etl_htab *t, size_t i)
{
	return i < t->cap && t->hash[i] ? t->entries + i * t->size : NULL;
}

static size_t free_slot(const uint64_t *hash, size_t cap, uint64_t h)
{
	size_t i;

	for (i = (size_t)h & (cap - 1); hash[i]; i = (i + 1) & (cap - 1))
		;
	return i;
}

/* Moves the entries into ncap slots (a power of two above cap). */
static int grow_to(struct etl_htab *t, size_t ncap)
{
	size_t i, bytes;
	uint64_t *nh;
	unsigned char *ne;

	if (!etl__mul_size(ncap, t->size, &bytes))
		return -1;
	nh = etl__calloc(ncap, sizeof(*nh));
	ne = etl__calloc(ncap, t->size);
	if (!nh || !ne) {
		etl__free(nh);
		etl__free(ne);
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
	etl__free(t->hash);
	etl__free(t->entries);
	t->hash = nh;
	t->entries = ne;
	t->cap = ncap;
	return 0;
}

static int grow(struct etl_htab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64;

	return ncap < t->cap ? -1 : grow_to(t, ncap);
}

int etl__htab_reserve(struct etl_htab *t, size_t n)
{
	size_t ncap = t->cap ? t->cap : 64;

	if (n > SIZE_MAX / 4)
		return -1;
	while ((n + 1) * 2 > ncap)
		ncap *= 2;
	return ncap > t->cap ? grow_to(t, ncap) : 0;
}

void *etl__htab_insert(struct etl_htab *t, uint64_t hash)
{
	size_t i;

	if ((t->count + 1) * 2 > t->cap && grow(t) != 0)
		return NULL;
	hash = etl__htab_key(hash);
	i = free_slot(t->hash, t->cap, hash);
	t->hash[i] = hash;
	t->count++;
	return t->entries + i * t->size;
}

uint64_t etl__hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

uint64_t etl__hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void etl__htab_remove(struct etl_htab *t, void *entry)
{
	size_t i = (size_t)((unsigned char *)entry - t->entries) / t->size, j = i, home;

	t->hash[i] = 0;
	for (;;) { /* backward shift: close the gap for the entries of the run after it */
		j = (j + 1) & (t->cap - 1);
		if (!t->hash[j])
			break;
		home = (size_t)t->hash[j] & (t->cap - 1);
		/* the entry at j may move to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		t->hash[i] = t->hash[j];
		memcpy(t->entries + i * t->size, t->entries + j * t->size, t->size);
		t->hash[j] = 0;
		i = j;
	}
	memset(t->entries + i * t->size, 0, t->size);
	t->count--;
}
