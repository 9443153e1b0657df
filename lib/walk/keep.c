/*
 * keep.c - decompressed buffers kept for a later load (see keep.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <string.h>

#include "walk/keep.h"

void etl__walk_keep_init(struct etl_bufkeep *k, uint64_t max_bytes)
{
	memset(k, 0, sizeof(*k));
	k->max = max_bytes;
}

void etl__walk_keep_free(struct etl_bufkeep *k)
{
	uint64_t max = k->max, given = k->given;

	etl__free(k->e);
	etl__free(k->region);
	etl__walk_keep_init(k, max);
	k->given = given; /* a count of what was done, kept for tests and measurements */
}

void etl__walk_keep_clear(struct etl_bufkeep *k)
{
	k->n = 0;
	k->used = 0;
}

int etl__walk_keep_reserve(struct etl_bufkeep *k, uint64_t need)
{
	size_t size = (size_t)(need < k->max ? need : k->max);

	if (k->region || size == 0 || size != (need < k->max ? need : k->max))
		return k->region ? 0 : -1;
	if (!(k->region = etl__malloc(size)))
		return -1;
	k->base = k->region;
	k->size = size;
	k->used = 0;
	return 0;
}

void etl__walk_keep_slice(struct etl_bufkeep *k, unsigned i, unsigned n, struct etl_bufkeep *part)
{
	size_t per = n ? k->size / n : 0;

	etl__walk_keep_init(part, per);
	if (k->base && per) {
		part->base = k->base + (size_t)i * per;
		part->size = per;
	}
}

/* Room for one more entry after the last, which must come before e in the file. */
static int room_after(struct etl_bufkeep *k, uint64_t off)
{
	return !(k->n && k->e[k->n - 1].off >= off) && etl__grow(&k->e, &k->cap, k->n + 1, sizeof(*k->e), 64) == 0;
}

void etl__walk_keep_aim(struct etl_bufkeep *k, struct etl_bufload *ld)
{
	ld->into = k->base && k->used < k->size ? k->base + k->used : NULL;
	ld->into_cap = ld->into ? k->size - k->used : 0;
}

void etl__walk_keep_aim_ahead(struct etl_bufkeep *k, struct etl_bufload *ld, size_t cap)
{
	size_t need = (cap + 63) & ~(size_t)63;

	ld->into = NULL;
	ld->into_cap = 0;
	if (k->base && need >= cap && need <= k->size - k->used) {
		ld->into = k->base + k->used;
		ld->into_cap = cap;
		k->used += need;
	}
}

int etl__walk_keep_take(struct etl_bufkeep *k, const struct etl_bufload *ld, const struct etl_bufent *e)
{
	uintptr_t at = (uintptr_t)ld->data, base = (uintptr_t)k->base;
	int ahead = k->base && at >= base && at < base + k->used; /* (etl__walk_keep_aim_ahead) */
	struct etl_kept *x;

	if (!k->base || !ld->compressed || !ld->data || (!ahead && ld->fill > k->size - k->used) ||
	    !room_after(k, e->off))
		return 0;
	x = &k->e[k->n++];
	x->off = e->off;
	x->avail = e->avail;
	x->flags = e->flags;
	x->given = 0;
	x->data = ahead ? ld->data : k->base + k->used;
	x->fill = ld->fill;
	if (ahead)
		return 1;
	if (ld->data != x->data) /* (decompressed there: etl__walk_keep_aim) */
		memcpy(k->base + k->used, ld->data, ld->fill);
	k->used += (ld->fill + 63) & ~(size_t)63; /* each buffer on a cache line of its own */
	if (k->used > k->size)
		k->used = k->size;
	return 1;
}

void etl__walk_keep_append(struct etl_bufkeep *k, struct etl_bufkeep *from)
{
	size_t i;

	for (i = 0; i < from->n && room_after(k, from->e[i].off); i++)
		k->e[k->n++] = from->e[i];
	etl__free(from->e);
	from->e = NULL;
	from->n = from->cap = 0;
}

/* The entry kept for e (its offset, size and flags), or NULL. */
static const struct etl_kept *find(const struct etl_bufkeep *k, const struct etl_bufent *e)
{
	size_t lo = 0, hi = k->n;
	const struct etl_kept *x;

	while (lo < hi) { /* the first entry at or after e->off */
		size_t mid = lo + (hi - lo) / 2;
		if (k->e[mid].off < e->off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == k->n)
		return NULL;
	x = &k->e[lo];
	return x->off == e->off && x->avail == e->avail && x->flags == e->flags ? x : NULL;
}

/* ld as etl__walk_load leaves it for a fault-free buffer, read in place from x (the region lasts
 * as long as the keep). */
static void load_from(struct etl_bufload *ld, const struct etl_kept *x, const struct etl_bufent *e)
{
	ld->data = x->data;
	ld->fill = x->fill;
	ld->compressed = 1;
	ld->flags = e->flags;
}

int etl__walk_keep_give(struct etl_bufkeep *k, struct etl_bufload *ld, const struct etl_bufent *e)
{
	struct etl_kept *x = (struct etl_kept *)find(k, e);

	if (!x || x->given)
		return 0;
	load_from(ld, x, e);
	x->given = 1;
	k->given++;
	return 1;
}

int etl__walk_keep_lend(const struct etl_bufkeep *k, struct etl_bufload *ld, const struct etl_bufent *e)
{
	const struct etl_kept *x = find(k, e);

	if (!x)
		return 0;
	load_from(ld, x, e);
	return 1;
}
