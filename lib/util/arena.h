/*
 * arena.h - a chunked arena: pointers into it stay valid until it is reset
 * or freed; bytes counts what it holds from the allocator.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_UTIL_ARENA_H
#define ETL_UTIL_ARENA_H

#include <stddef.h>

struct etl_arena_block;
struct etl_arena {
	struct etl_arena_block *head;
	size_t used_in_head;
	size_t bytes; /* held from the allocator, block headers included */
};

void *etl__arena_alloc(struct etl_arena *a, size_t n);
char *etl__arena_strndup(struct etl_arena *a, const char *s, size_t n);
/* Frees every block but the newest, which is reused from its start. */
void etl__arena_reset(struct etl_arena *a);
void etl__arena_free(struct etl_arena *a);

#endif
