/*
 * images.h - the lookups of a process's images that must stay fast however
 * many a trace loads (up to ETL_STATE_MAX_IMAGES): the newest image that
 * covers an address (stack frames), the newest not unloaded at a base
 * (Image/Unload), and whether a base and size were seen (Image/DCStop).
 *
 * By address, the images in load order are split as a binary counter into
 * runs of 2^k (the logarithmic method): each run is painted once into
 * disjoint segments that name its newest image covering them, and a lookup
 * asks the runs from the newest to the oldest - O(log^2 n) a lookup,
 * O(n log^2 n) over n loads.  By base: hash tables.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_STATE_IMAGES_H
#define ETL_STATE_IMAGES_H

#include <stddef.h>
#include <stdint.h>

#include "util/htab.h"

struct etl_image_rec;

struct etl_image_run {
	size_t first, count; /* images [first, first + count) */
	uint64_t *start;     /* segment k is [start[k], start[k + 1]) (the last one to the end) */
	uint32_t *image;     /* the newest image of the run covering it, + 1 (0: none) */
	size_t nseg;
};

struct etl_image_index {
	struct etl_image_run run[64]; /* oldest first; sizes strictly decreasing */
	unsigned nrun;
	size_t indexed;               /* images [0, indexed) are in the runs */
	struct etl_htab by_base;      /* base -> the newest image there not unloaded */
	struct etl_htab by_extent;    /* (base, size) of every image kept */
	uint32_t *older;              /* per image: the next older one not unloaded at its base, + 1 */
	size_t cap_older;
};

/* Notes image i (the newest, just appended, or the next of those a process had before its
 * index was made) in the tables by base; -1 without memory (the index is then dropped). */
int etl__images_added(struct etl_image_index *x, const struct etl_image_rec *images, size_t i);
/* The newest image at base not unloaded, + 1 (0: none); with forget (the caller gives it a
 * non-zero unload time), the next older one takes its place. */
size_t etl__images_unload(struct etl_image_index *x, uint64_t base, int forget);
/* Whether an image of this base and size was kept. */
int etl__images_seen(const struct etl_image_index *x, uint64_t base, uint64_t size);
/* The newest of images [0, n) covering addr, + 1 (0: none; SIZE_MAX: no memory for the index),
 * and the addresses [*lo, *hi] around addr where that answer holds. */
size_t etl__images_cover(struct etl_image_index *x, const struct etl_image_rec *images, size_t n, uint64_t addr,
			 uint64_t *lo, uint64_t *hi);
void etl__images_free(struct etl_image_index *x);

#endif
