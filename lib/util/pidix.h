/*
 * pidix.h - a process id's place in a table sorted by pid, found by hashing: what the image and
 * method histories look up for every stack frame.  Built once, then only read (by any thread).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_UTIL_PIDIX_H
#define ETL_UTIL_PIDIX_H

#include <stddef.h>
#include <stdint.h>

struct etl_pidix {
	struct etl_pidix_slot {
		uint32_t pid, at; /* at: the place + 1 (0: a free slot) */
	} *slot;
	size_t mask;              /* slots - 1 */
};

/* Room for n pids: 0, or -1 without memory (then nothing is found: the caller searches). */
int etl__pidix_init(struct etl_pidix *x, size_t n);
/* pid is at place at (< UINT32_MAX - 1; each pid once). */
void etl__pidix_add(struct etl_pidix *x, uint32_t pid, size_t at);
void etl__pidix_free(struct etl_pidix *x);

static inline size_t etl__pidix_hash(uint32_t pid, size_t mask)
{
	return (size_t)(((uint64_t)pid * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* pid's place, or -1 when it has none (or the index has no memory: check x->slot). */
static inline long etl__pidix_find(const struct etl_pidix *x, uint32_t pid)
{
	size_t k;

	for (k = etl__pidix_hash(pid, x->mask); x->slot[k].at; k = (k + 1) & x->mask)
		if (x->slot[k].pid == pid)
			return (long)x->slot[k].at - 1;
	return -1;
}

#endif
