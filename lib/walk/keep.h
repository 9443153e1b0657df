/*
 * keep.h - decompressed buffers kept for a later load of the same buffer.
 *
 * The stack index pass (state/stackwalk.c) decompresses every buffer of a
 * trace before the reader's own streams get to most of them.  Instead of
 * dropping what it decompressed, the pass copies each buffer's bytes into a
 * keep, up to a byte budget, and the stream that later loads that buffer
 * reads them there instead of decompressing the buffer again.  Each kept
 * buffer is given at most once; the keep's memory is freed when the
 * iteration ends, or with the reader.  A slice plan's light reading keeps
 * what its helpers decompressed the same way, but lends it: once the plan
 * is made that keep is only read, by every slice's reader.
 *
 * The bytes go to one region reserved for the keep, of small pages (huge
 * pages, which the kernel gives on request, cost more where a virtual
 * machine's host must back them first: docs/PERFORMANCE.md).  The stack
 * pass's parts on several threads fill slices of the same region.  A keep is
 * filled by one thread, then only read and emptied by another once published
 * (the caller orders the two: reader/deliver.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_WALK_KEEP_H
#define ETL_WALK_KEEP_H

#include "walk/load.h"

struct etl_kept {
	uint64_t off;       /* the buffer's file offset */
	uint32_t avail;     /* and its size and flags in the index, which must match */
	uint16_t flags;
	uint8_t given;      /* copied out already */
	const uint8_t *data; /* decompressed, header included, in the region */
	size_t fill;
};

struct etl_bufkeep {
	struct etl_kept *e;  /* in file order */
	size_t n, cap;
	uint64_t max;        /* the budget */
	uint8_t *base;       /* where this keep writes: its region or a slice of another's */
	size_t size, used;
	void *region;        /* owned (NULL for a slice) */
	uint64_t given;      /* buffers given so far (tests, measurements) */
};

void etl__walk_keep_init(struct etl_bufkeep *k, uint64_t max_bytes);
/* Reserves the region: the budget, or need bytes when fewer will do.  0, or -1 (no memory: the
 * keep then keeps nothing). */
int etl__walk_keep_reserve(struct etl_bufkeep *k, uint64_t need);
/* Makes part (initialised here) the i-th of n equal slices of k's region. */
void etl__walk_keep_slice(struct etl_bufkeep *k, unsigned i, unsigned n, struct etl_bufkeep *part);
/* Points ld's next decompression at the keep's free space (etl__walk_load's into), or nowhere
 * when the keep has none. */
void etl__walk_keep_aim(struct etl_bufkeep *k, struct etl_bufload *ld);
/* Reserves cap bytes of the keep's free space for ld's next decompression, which may be kept
 * later than others aimed after it (helpers decompress several buffers at once); nowhere when
 * the keep has no such room.  The space stays reserved whether or not the buffer is kept. */
void etl__walk_keep_aim_ahead(struct etl_bufkeep *k, struct etl_bufload *ld, size_t cap);
/* Keeps what ld holds of entry e (decompressed without fault) when it fits the space left, in
 * file order: in place when it was decompressed there (etl__walk_keep_aim, or in space
 * etl__walk_keep_aim_ahead reserved), else copied.  1 when kept, 0 when not. */
int etl__walk_keep_take(struct etl_bufkeep *k, const struct etl_bufload *ld, const struct etl_bufent *e);
/* Moves the entries of from (a slice of k's region, later in the file than k's) to k. */
void etl__walk_keep_append(struct etl_bufkeep *k, struct etl_bufkeep *from);
/* Gives entry e to ld from the keep when it holds it: 1 (ld as etl__walk_load leaves it for a
 * fault-free buffer, its data in the keep's region, valid until the keep is freed), else 0 (ld
 * untouched). */
int etl__walk_keep_give(struct etl_bufkeep *k, struct etl_bufload *ld, const struct etl_bufent *e);
/* As etl__walk_keep_give, without marking the entry given: a keep that no thread changes any
 * more lends its buffers to any number of readers, as often as asked (a slice plan's, read by
 * the slices' readers: reader/plan.c). */
int etl__walk_keep_lend(const struct etl_bufkeep *k, struct etl_bufload *ld, const struct etl_bufent *e);
/* Forgets k's entries (its region stays, all free again). */
void etl__walk_keep_clear(struct etl_bufkeep *k);
/* Empties k: its entries, and its region when it owns one (the count of buffers given stays). */
void etl__walk_keep_free(struct etl_bufkeep *k);

#endif
