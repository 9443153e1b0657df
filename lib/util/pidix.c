/*
 * pidix.c - process ids hashed to their places (pidix.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"
#include "util/pidix.h"

int etl__pidix_init(struct etl_pidix *x, size_t n)
{
	size_t slots = 16;

	x->slot = NULL;
	x->mask = 0;
	while (slots < 2 * n && slots < ((size_t)1 << 31))
		slots *= 2;
	if (n > UINT32_MAX - 2 || slots < 2 * n || !(x->slot = etl__calloc(slots, sizeof(*x->slot))))
		return -1;
	x->mask = slots - 1;
	return 0;
}

void etl__pidix_add(struct etl_pidix *x, uint32_t pid, size_t at)
{
	size_t k;

	if (!x->slot)
		return;
	for (k = etl__pidix_hash(pid, x->mask); x->slot[k].at; k = (k + 1) & x->mask)
		;
	x->slot[k].pid = pid;
	x->slot[k].at = (uint32_t)at + 1;
}

void etl__pidix_free(struct etl_pidix *x)
{
	etl__free(x->slot);
	x->slot = NULL;
	x->mask = 0;
}
