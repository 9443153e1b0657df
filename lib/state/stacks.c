/*
 * stacks.c - the stack index of a trace (see stacks.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "state/stacks.h"

/* Bytes allocated (capacities, not contents: the limit bounds real memory). */
static uint64_t held(const struct etl_stacks *k)
{
	return (uint64_t)k->pool_cap + (uint64_t)k->capdef * sizeof(*k->def) + (uint64_t)k->capref * sizeof(*k->ref);
}

/* Grows an array of elements of size sz to hold one more, within max bytes held; 0 or -1. */
static int grow(struct etl_stacks *k, void **arr, size_t *cap, size_t n, size_t sz, uint64_t max)
{
	size_t nc;
	void *na;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 256;
	if (held(k) + (uint64_t)(nc - *cap) * sz > max) {
		/* near the limit: half of what still fits (the other arrays and the pool need room
		 * too; the steps halve, so they stay few) */
		uint64_t room = max > held(k) ? (max - held(k)) / sz : 0;
		if (room > SIZE_MAX / sz - *cap)
			room = SIZE_MAX / sz - *cap; /* (a limit beyond the address space) */
		if (room == 0)
			return -1;
		nc = *cap + (size_t)(room / 2 > 1 ? room / 2 : 1);
	}
	na = etl__realloc(*arr, nc * sz);
	if (!na)
		return -1;
	*arr = na;
	*cap = nc;
	return 0;
}

/* Copies frames into the pool, within max bytes held; their offset, or SIZE_MAX. */
static size_t pool_put(struct etl_stacks *k, const uint8_t *frames, size_t bytes, uint64_t max)
{
	size_t off = k->pool_len;

	if (k->pool_len + bytes > k->pool_cap) {
		size_t nc = k->pool_cap ? k->pool_cap : 16384;
		uint8_t *np;
		while (nc < k->pool_len + bytes)
			nc *= 2;
		if (held(k) - k->pool_cap + nc > max) {
			/* near the limit: what is needed and half of the rest (as grow) */
			uint64_t others = held(k) - k->pool_cap, need = (uint64_t)k->pool_len + bytes;
			uint64_t room = max > others ? max - others : 0;
			if (room > SIZE_MAX / 2)
				room = SIZE_MAX / 2; /* (a limit beyond the address space) */
			if (room < need)
				return SIZE_MAX;
			nc = (size_t)(need + (room - need) / 2);
		}
		np = etl__realloc(k->pool, nc);
		if (!np)
			return SIZE_MAX;
		k->pool = np;
		k->pool_cap = nc;
	}
	if (bytes)
		memcpy(k->pool + off, frames, bytes);
	k->pool_len += bytes;
	return off;
}

int etl__stacks_add_def(struct etl_stacks *k, uint64_t key, uint64_t ts, const uint8_t *frames,
			uint32_t count, unsigned ptr, uint64_t max_bytes)
{
	size_t bytes = (size_t)count * ptr, off;
	struct etl_stackdef *e;

	if (grow(k, (void **)&k->def, &k->capdef, k->ndef, sizeof(*e), max_bytes) != 0 ||
	    (off = pool_put(k, frames, bytes, max_bytes)) == SIZE_MAX) {
		k->dropped++;
		return -1;
	}
	e = &k->def[k->ndef++];
	e->key = key;
	e->ts = ts;
	e->off = off;
	e->count = count;
	e->ptr = (uint8_t)ptr;
	return 0;
}

int etl__stacks_add_ref(struct etl_stacks *k, const struct etl_stackref *ref, const uint8_t *frames,
			uint64_t max_bytes)
{
	size_t bytes = ref->is_key ? 0 : (size_t)ref->count * ref->ptr, off = 0;
	struct etl_stackref *e;

	if (grow(k, (void **)&k->ref, &k->capref, k->nref, sizeof(*e), max_bytes) != 0 ||
	    (bytes && (off = pool_put(k, frames, bytes, max_bytes)) == SIZE_MAX)) {
		k->dropped++;
		return -1;
	}
	e = &k->ref[k->nref++];
	*e = *ref;
	e->off = off;
	return 0;
}

int etl__stacks_append(struct etl_stacks *k, const struct etl_stacks *part, uint64_t max_bytes)
{
	uint64_t before = k->dropped;
	size_t i;

	for (i = 0; i < part->ndef; i++) {
		const struct etl_stackdef *e = &part->def[i];
		etl__stacks_add_def(k, e->key, e->ts, part->pool ? part->pool + e->off : NULL, e->count, e->ptr,
				    max_bytes);
	}
	for (i = 0; i < part->nref; i++) {
		const struct etl_stackref *e = &part->ref[i];
		etl__stacks_add_ref(k, e, !e->is_key && part->pool ? part->pool + e->off : NULL, max_bytes);
	}
	k->dropped += part->dropped;
	etl__imagehist_append(&k->images, &part->images, max_bytes);
	etl__methodhist_append(&k->methods, &part->methods, max_bytes);
	return k->dropped == before + part->dropped && !part->dropped ? 0 : -1;
}

static int cmp_def(const void *a, const void *b)
{
	const struct etl_stackdef *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* file order among equal times */
}

static int cmp_ref(const void *a, const void *b)
{
	const struct etl_stackref *x = a, *y = b;

	if (x->event_ts != y->event_ts)
		return x->event_ts < y->event_ts ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	/* kernel part before user part: a keyed kernel record has the earlier own time; for
	 * full records, the order they were added in (qsort is not stable: compare the pool) */
	if (x->key_ts != y->key_ts)
		return x->key_ts < y->key_ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

void etl__stacks_sort(struct etl_stacks *k)
{
	if (k->ndef > 1)
		qsort(k->def, k->ndef, sizeof(*k->def), cmp_def);
	if (k->nref > 1)
		qsort(k->ref, k->nref, sizeof(*k->ref), cmp_ref);
}

void etl__stacks_finish(struct etl_stacks *k)
{
	etl__stacks_sort(k);
	etl__imagehist_finish(&k->images);
	etl__methodhist_finish(&k->methods);
	k->loaded = 1;
}

const struct etl_stackdef *etl__stacks_find_def(const struct etl_stacks *k, uint64_t key, uint64_t ts)
{
	size_t lo = 0, hi = k->ndef;

	while (lo < hi) { /* the first entry not less than (key, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_stackdef *e = &k->def[mid];
		if (e->key < key || (e->key == key && e->ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->ndef && k->def[lo].key == key ? &k->def[lo] : NULL;
}

const struct etl_stackref *etl__stacks_find_ref(const struct etl_stacks *k, uint64_t event_ts, uint32_t tid)
{
	size_t lo = 0, hi = k->nref;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_stackref *e = &k->ref[mid];
		if (e->event_ts < event_ts || (e->event_ts == event_ts && e->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nref && k->ref[lo].event_ts == event_ts ? &k->ref[lo] : NULL;
}

void etl__stacks_free(struct etl_stacks *k)
{
	etl__free(k->def);
	etl__free(k->ref);
	etl__free(k->pool);
	etl__imagehist_free(&k->images);
	etl__methodhist_free(&k->methods);
	memset(k, 0, sizeof(*k));
}
