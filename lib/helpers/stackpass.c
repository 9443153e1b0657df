/*
 * stackpass.c - the stack index pass on several threads (see prefetch.h).
 *
 * The pass reads every buffer of the trace (decompressing it) for the few
 * stack records it keeps; nothing else can run until it ends, so with
 * ETL_OPTION_THREADS it is split into contiguous parts of the buffers, one per
 * thread.  A buffer's records depend on nothing outside it, so the parts
 * appended in order hold what one pass would.
 *
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <string.h>

#include "helpers/prefetch.h"

#define MAX_PARTS 4
#define FINISH_ALONE 4096 /* histories of fewer records are sorted on the caller's thread */

struct part {
	pthread_t thread;
	int started;
	struct etl_stacks k;
	struct etl_bufload ld;
	struct etl_bufkeep keep; /* its slice of the caller's keep, or none */
	int keeps;
	const struct etl_bufindex *ix;
	uint64_t first, end, max;
	unsigned ptr_size;
};

static void *part_main(void *arg)
{
	struct part *p = arg;

	etl__stacks_load_range(&p->k, &p->ld, p->ix, p->first, p->end, p->ptr_size, p->max,
			       p->keeps ? &p->keep : NULL);
	return NULL;
}

static void *finish_images(void *arg)
{
	etl__imagehist_finish(arg);
	return NULL;
}

static void *finish_methods(void *arg)
{
	etl__methodhist_finish(arg);
	return NULL;
}

/* etl__stacks_finish with, where threads are allowed, its three independent parts on threads of
 * their own where they are large: the image history and the .NET method history (each a sort, a
 * replay and another sort: 39 and 38 M instructions of TraceLoggingTester's), the stack records
 * here.  Each part is the one-thread code on data no other part touches, so the index is the
 * same. */
void etl__stacks_finish_threads(struct etl_stacks *k, unsigned threads)
{
	pthread_t ti, tm;
	int si = threads && k->images.nrec >= FINISH_ALONE &&
		 pthread_create(&ti, NULL, finish_images, &k->images) == 0;
	int sm = threads && k->methods.nrec >= FINISH_ALONE &&
		 pthread_create(&tm, NULL, finish_methods, &k->methods) == 0;

	etl__stacks_sort(k);
	if (si)
		pthread_join(ti, NULL);
	else
		etl__imagehist_finish(&k->images);
	if (sm)
		pthread_join(tm, NULL);
	else
		etl__methodhist_finish(&k->methods);
	k->loaded = 1;
}

/* The one-thread pass into k (emptied first). */
static void load_one(struct etl_stacks *k, const struct etl_source *src, int compressed, uint32_t format,
		     const struct etl_bufindex *ix, unsigned ptr_size, uint64_t max_bytes, struct etl_bufkeep *keep)
{
	struct etl_bufload ld;

	etl__stacks_free(k);
	if (keep)
		etl__walk_keep_clear(keep);
	etl__walk_load_init(&ld, src, compressed, format);
	etl__stacks_load(k, &ld, ix, ptr_size, max_bytes, keep);
	etl__walk_load_free(&ld);
}

void etl__stacks_load_threads(struct etl_stacks *k, const struct etl_source *src, int compressed,
			      uint32_t compression_format, const struct etl_bufindex *ix, unsigned ptr_size,
			      uint64_t max_bytes, unsigned threads, struct etl_bufkeep *keep)
{
	struct part parts[MAX_PARTS];
	unsigned n = threads + 1 < MAX_PARTS ? threads + 1 : MAX_PARTS, i;
	uint64_t per;
	int whole = 1;

	if (threads == 0 || ix->buffers < 2 * (uint64_t)n) {
		load_one(k, src, compressed, compression_format, ix, ptr_size, max_bytes, keep);
		return;
	}
	per = (ix->buffers + n - 1) / n;
	memset(parts, 0, sizeof(parts));
	for (i = 0; i < n; i++) {
		struct part *p = &parts[i];
		etl__walk_load_init(&p->ld, src, compressed, compression_format);
		p->ix = ix;
		p->first = i * per;
		p->end = i + 1 == n ? UINT64_MAX : (i + 1) * per;
		p->max = max_bytes / n;
		p->ptr_size = ptr_size;
		p->keeps = keep != NULL;
		if (keep)
			etl__walk_keep_slice(keep, i, n, &p->keep);
		else
			etl__walk_keep_init(&p->keep, 0);
		if (i > 0)
			p->started = pthread_create(&p->thread, NULL, part_main, p) == 0;
	}
	part_main(&parts[0]);
	for (i = 1; i < n; i++) {
		if (parts[i].started)
			pthread_join(parts[i].thread, NULL);
		else
			part_main(&parts[i]); /* no thread: this one too */
	}
	etl__stacks_free(k);
	*k = parts[0].k;
	memset(&parts[0].k, 0, sizeof(parts[0].k));
	whole = k->dropped == 0;
	for (i = 1; i < n; i++) {
		if (whole && etl__stacks_append(k, &parts[i].k, max_bytes) != 0)
			whole = 0;
		etl__stacks_free(&parts[i].k);
	}
	for (i = 0; i < n; i++) {
		etl__walk_load_free(&parts[i].ld);
		if (whole && keep)
			etl__walk_keep_append(keep, &parts[i].keep); /* the parts are in file order */
		etl__walk_keep_free(&parts[i].keep);
	}
	if (whole)
		etl__stacks_finish_threads(k, threads);
	else
		load_one(k, src, compressed, compression_format, ix, ptr_size, max_bytes, keep);
}
