/*
 * htab.h - the library's one hash table: open addressing over fixed-size
 * entries kept in the table itself, with the caller's hash and equality.
 *
 * Each slot stores its entry's 64-bit hash (0 marks a free slot; a hash of 0
 * is stored as 1), so the table grows (at half load) without asking the
 * caller to hash again.  Entries move when it grows: pointers to them are
 * valid until the next insertion.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_UTIL_HTAB_H
#define ETL_UTIL_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct etl_htab {
	uint64_t *hash;  /* per slot: the entry's hash, 0 when free */
	unsigned char *entries;
	size_t size;     /* bytes per entry */
	size_t cap;      /* slots, a power of two (0 before the first insertion) */
	size_t count;    /* entries */
};

/* An empty table of entries of `size` bytes. */
void etl__htab_init(struct etl_htab *t, size_t size);
void etl__htab_free(struct etl_htab *t);
/* Forgets every entry (the caller frees what they own first, with etl__htab_at). */
void etl__htab_clear(struct etl_htab *t);

static inline uint64_t etl__htab_key(uint64_t h)
{
	return h ? h : 1;
}

/* The entry with this hash that eq() says matches key, or NULL. */
static inline void *etl__htab_find(const struct etl_htab *t, uint64_t hash,
				   int (*eq)(const void *entry, const void *key), const void *key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	hash = etl__htab_key(hash);
	for (i = (size_t)hash & (t->cap - 1); t->hash[i]; i = (i + 1) & (t->cap - 1))
		if (t->hash[i] == hash && eq(t->entries + i * t->size, key))
			return t->entries + i * t->size;
	return NULL;
}

/* Room for n entries in all, made at once, where the caller knows how many may come (growing by
 * doubling moves them each time, into fresh memory): 0, or -1 without memory (the table as it
 * was, still usable). */
int etl__htab_reserve(struct etl_htab *t, size_t n);
/* A new, zeroed entry for hash (the caller fills it); NULL when out of memory. */
void *etl__htab_insert(struct etl_htab *t, uint64_t hash);
/* Removes an entry etl__htab_find returned (the entries after it in its run move back: pointers
 * to other entries are not valid after this either). */
void etl__htab_remove(struct etl_htab *t, void *entry);
/* Entry of slot i (i < cap), or NULL when the slot is free: for walking every entry. */
void *etl__htab_at(const struct etl_htab *t, size_t i);

/* Hashes of keys made of integers, and of bytes. */
uint64_t etl__hash_mix(uint64_t h);
uint64_t etl__hash_bytes(const void *p, size_t n);

#endif
