/*
 * arena.c - a chunked arena: many small allocations freed at once, with the
 * bytes it holds counted (for limits on what an input may cost).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"
#include "util/arena.h"

struct etl_arena_block {
	struct etl_arena_block *next;
	size_t size;
	/* data follows, max_align_t aligned */
};

#define BLOCK_HDR ((sizeof(struct etl_arena_block) + 15) & ~(size_t)15)

void *etl__arena_alloc(struct etl_arena *a, size_t n)
{
	struct etl_arena_block *b = a->head;
	size_t need = (n + 15) & ~(size_t)15;

	if (need < n)
		return NULL;
	if (!b || b->size - a->used_in_head < need) {
		/* blocks grow with what the arena holds, from 4 KiB to 32 KiB: a small arena (a
		 * small provider's, of which a process may keep dozens) stays small */
		size_t size = a->bytes < 4096 ? 4096 : a->bytes > 32768 ? 32768 : a->bytes;
		if (need > size)
			size = need;
		if (size > SIZE_MAX - BLOCK_HDR)
			return NULL;
		b = etl__malloc(BLOCK_HDR + size);
		if (!b)
			return NULL;
		b->size = size;
		a->bytes += BLOCK_HDR + size;
		b->next = a->head;
		a->head = b;
		a->used_in_head = 0;
	}
	a->used_in_head += need;
	return (uint8_t *)b + BLOCK_HDR + a->used_in_head - need;
}

char *etl__arena_strndup(struct etl_arena *a, const char *s, size_t n)
{
	char *d = etl__arena_alloc(a, n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

void etl__arena_reset(struct etl_arena *a)
{
	/* keep the newest block, free the rest */
	struct etl_arena_block *b = a->head, *n;

	if (!b)
		return;
	n = b->next;
	b->next = NULL;
	while (n) {
		struct etl_arena_block *x = n->next;
		etl__free(n);
		n = x;
	}
	a->used_in_head = 0;
	a->bytes = BLOCK_HDR + b->size;
}

void etl__arena_free(struct etl_arena *a)
{
	while (a->head) {
		struct etl_arena_block *x = a->head->next;
		etl__free(a->head);
		a->head = x;
	}
	a->used_in_head = 0;
	a->bytes = 0;
}
