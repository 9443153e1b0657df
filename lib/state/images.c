/*
 * images.c - the lookups of a process's images (see images.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "state/images.h"
#include "state/state.h"

/* ---- by address: runs painted into segments ---- */

struct span {
	uint64_t base, end; /* end: base + size, unless that passes 2^64 (open) */
	uint32_t image;     /* its index in the process */
	int open;
};

static int by_base(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The max-heap of the spans being swept (by image index: the newest on top). */
static void heap_push(uint32_t *h, size_t *n, const struct span *s, uint32_t v)
{
	size_t i = (*n)++;

	while (i > 0 && s[h[(i - 1) / 2]].image < s[v].image) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(uint32_t *h, size_t *n, const struct span *s)
{
	uint32_t v = h[--*n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && s[h[c + 1]].image > s[h[c]].image)
			c++;
		if (s[h[c]].image <= s[v].image)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
}

/* Appends segment [at, ...) naming image (+ 1, 0 none), merged with its neighbours. */
static void emit(struct etl_image_run *r, uint64_t at, uint32_t image)
{
	if (r->nseg && r->start[r->nseg - 1] == at) {
		r->image[r->nseg - 1] = image;
		if (r->nseg >= 2 && r->image[r->nseg - 2] == image)
			r->nseg--;
		return;
	}
	if (r->nseg && r->image[r->nseg - 1] == image)
		return;
	r->start[r->nseg] = at;
	r->image[r->nseg++] = image;
}

/* Paints r (its first and count set) from the images: a sweep over the span ends, the newest
 * span open at each point naming the segment that starts there.  0, or -1 without memory. */
static int paint(struct etl_image_run *r, const struct etl_image_rec *images)
{
	struct span *s = etl__malloc((r->count ? r->count : 1) * sizeof(*s));
	uint64_t *xs = etl__malloc((2 * r->count + 1) * sizeof(*xs));
	uint32_t *heap = etl__malloc((r->count ? r->count : 1) * sizeof(*heap));
	size_t m = 0, nx = 0, i, next = 0, nh = 0;
	int rc = -1;

	etl__free(r->start);
	etl__free(r->image);
	r->start = etl__malloc((2 * r->count + 2) * sizeof(*r->start));
	r->image = etl__malloc((2 * r->count + 2) * sizeof(*r->image));
	r->nseg = 0;
	if (!s || !xs || !heap || !r->start || !r->image)
		goto out;
	for (i = r->first; i < r->first + r->count; i++) {
		const struct etl_image_rec *im = &images[i];
		if (im->size == 0)
			continue; /* covers nothing */
		s[m].base = im->base;
		s[m].open = im->size > UINT64_MAX - im->base;
		s[m].end = s[m].open ? UINT64_MAX : im->base + im->size;
		s[m].image = (uint32_t)i;
		xs[nx++] = s[m].base;
		if (!s[m].open)
			xs[nx++] = s[m].end;
		m++;
	}
	qsort(s, m, sizeof(*s), by_base);
	qsort(xs, nx, sizeof(*xs), by_value);
	emit(r, 0, 0);
	for (i = 0; i < nx; i++) {
		uint64_t x = xs[i];
		if (i > 0 && x == xs[i - 1])
			continue;
		while (next < m && s[next].base <= x)
			heap_push(heap, &nh, s, (uint32_t)next++);
		while (nh && !s[heap[0]].open && s[heap[0]].end <= x)
			heap_pop(heap, &nh, s);
		emit(r, x, nh ? s[heap[0]].image + 1 : 0);
	}
	rc = 0;
out:
	etl__free(s);
	etl__free(xs);
	etl__free(heap);
	return rc;
}

static void run_free(struct etl_image_run *r)
{
	etl__free(r->start);
	etl__free(r->image);
	memset(r, 0, sizeof(*r));
}

/* Brings the runs up to images [0, n): each new image a run of one, equal runs merged.  -1
 * without memory: then the runs are not to be used again (etl__images_free). */
static int sync_runs(struct etl_image_index *x, const struct etl_image_rec *images, size_t n)
{
	while (x->indexed < n) {
		struct etl_image_run *r = &x->run[x->nrun];
		r->first = x->indexed;
		r->count = 1;
		if (paint(r, images) != 0) {
			run_free(r);
			return -1;
		}
		x->nrun++;
		x->indexed++;
		while (x->nrun >= 2 && x->run[x->nrun - 2].count == x->run[x->nrun - 1].count) {
			struct etl_image_run *older = &x->run[x->nrun - 2];
			older->count *= 2;
			run_free(&x->run[--x->nrun]);
			if (paint(older, images) != 0)
				return -1;
		}
	}
	return 0;
}

size_t etl__images_cover(struct etl_image_index *x, const struct etl_image_rec *images, size_t n, uint64_t addr,
			 uint64_t *lo, uint64_t *hi)
{
	unsigned k;

	if (x->indexed > n || sync_runs(x, images, n) != 0)
		return SIZE_MAX;
	*lo = 0;
	*hi = UINT64_MAX;
	for (k = x->nrun; k-- > 0;) { /* the newest run first: its answer wins */
		const struct etl_image_run *r = &x->run[k];
		size_t a = 0, b = r->nseg; /* the last segment starting at or before addr */
		while (b - a > 1) {
			size_t mid = a + (b - a) / 2;
			if (r->start[mid] <= addr)
				a = mid;
			else
				b = mid;
		}
		if (r->start[a] > *lo)
			*lo = r->start[a];
		if (a + 1 < r->nseg && r->start[a + 1] - 1 < *hi)
			*hi = r->start[a + 1] - 1;
		if (r->image[a])
			return r->image[a];
	}
	return 0;
}

/* ---- by base ---- */

struct base_entry {
	uint64_t base;
	uint32_t live; /* the newest image at base not unloaded, + 1 */
};

struct extent_entry {
	uint64_t base, size;
};

static int base_eq(const void *e, const void *k)
{
	return ((const struct base_entry *)e)->base == *(const uint64_t *)k;
}

static int extent_eq(const void *e, const void *k)
{
	const struct extent_entry *a = e, *b = k;

	return a->base == b->base && a->size == b->size;
}

static uint64_t extent_hash(uint64_t base, uint64_t size)
{
	return etl__hash_mix(base ^ etl__hash_mix(size));
}

int etl__images_added(struct etl_image_index *x, const struct etl_image_rec *images, size_t i)
{
	struct extent_entry key = { images[i].base, images[i].size }, *e;
	struct base_entry *b;
	uint64_t h = extent_hash(key.base, key.size);

	if (!x->by_base.size) {
		etl__htab_init(&x->by_base, sizeof(struct base_entry));
		etl__htab_init(&x->by_extent, sizeof(struct extent_entry));
	}
	if (etl__grow(&x->older, &x->cap_older, i + 1, sizeof(*x->older), 64) != 0)
		return -1;
	if (!etl__htab_find(&x->by_extent, h, extent_eq, &key)) {
		if (!(e = etl__htab_insert(&x->by_extent, h)))
			return -1;
		*e = key;
	}
	b = etl__htab_find(&x->by_base, etl__hash_mix(key.base), base_eq, &key.base);
	if (!b) {
		if (!(b = etl__htab_insert(&x->by_base, etl__hash_mix(key.base))))
			return -1;
		b->base = key.base;
	}
	if (!images[i].unload_time) { /* (an index made late is given images unloaded already) */
		x->older[i] = b->live;
		b->live = (uint32_t)i + 1;
	}
	return 0;
}

size_t etl__images_unload(struct etl_image_index *x, uint64_t base, int forget)
{
	struct base_entry *b = etl__htab_find(&x->by_base, etl__hash_mix(base), base_eq, &base);
	size_t live = b ? b->live : 0;

	if (live && forget)
		b->live = x->older[live - 1];
	return live;
}

int etl__images_seen(const struct etl_image_index *x, uint64_t base, uint64_t size)
{
	struct extent_entry key = { base, size };

	return etl__htab_find(&x->by_extent, extent_hash(base, size), extent_eq, &key) != NULL;
}

void etl__images_free(struct etl_image_index *x)
{
	unsigned k;

	for (k = 0; k < sizeof(x->run) / sizeof(x->run[0]); k++)
		run_free(&x->run[k]);
	etl__htab_free(&x->by_base);
	etl__htab_free(&x->by_extent);
	etl__free(x->older);
	memset(x, 0, sizeof(*x));
}
