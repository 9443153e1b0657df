/*
 * hmap.h - the small helpers etldump and the Python extension share (they
 * use libetl's public API only, so not the library's own): one hash table,
 * open addressing over fixed-size entries kept in the table, with the
 * caller's hash and equality, and one way to grow an array.
 *
 * A slot stores its entry's 64-bit hash (0 marks a free slot; a hash of 0 is
 * stored as 1), so the table grows at half load without hashing again.
 * Entries move when it grows: pointers to them hold until the next insertion.
 * The first allocation has 256 slots.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_COMMON_HMAP_H
#define ETL_COMMON_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint64_t *hash;         /* per slot: the entry's hash, 0 when free */
	unsigned char *entries;
	size_t size;            /* bytes per entry */
	size_t cap;             /* slots, a power of two (0 before the first insertion) */
	size_t count;           /* entries */
};

/* An empty table of entries of `size` bytes. */
void hmap_init(struct hmap *t, size_t size);
void hmap_free(struct hmap *t);
/* The entry with this hash that eq() says matches key, or NULL. */
void *hmap_find(const struct hmap *t, uint64_t hash, int (*eq)(const void *entry, const void *key),
		const void *key);
/* A new, zeroed entry for hash (the caller fills it); NULL when out of memory. */
void *hmap_insert(struct hmap *t, uint64_t hash);
/* Entry of slot i (i < cap), or NULL when the slot is free: for walking every entry. */
void *hmap_at(const struct hmap *t, size_t i);

/* FNV-1a of bytes, then mixed; and a mix of an integer key. */
uint64_t hmap_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t hmap_hash_mix(uint64_t h);

/* Grows the array at *arrp (elements of `size` bytes, *cap of them) to hold need, geometrically
 * (first: the capacity of a first allocation), every size computation checked: 0, or -1 without
 * memory (the array unchanged). */
int grow_array(void *arrp, size_t *cap, size_t need, size_t size, size_t first);

#endif
