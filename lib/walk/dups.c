/*
 * dups.c - buffers a file holds twice.
 *
 * A buffer copied in again (or written over another) repeats its CPU and
 * sequence number, which no two buffers of a session share: sequence numbers
 * count the session's buffers.  Such a file is out of sequence, so the index
 * of an out-of-sequence file is searched for them, by (CPU, sequence) - the
 * buffers sorted, the copies next to each other.  A copy with the same bytes
 * is said and passed over by every scan (its events are delivered once); two
 * buffers that share the numbers but not the bytes are both read, and said.
 *
 * Where a copy was written over another buffer, that buffer's sequence number
 * is missing.  Sequence numbers can be missing in an intact trace (Tx_Process
 * has two gaps), so only those missing among the buffers around a copy (its
 * neighbours in the file, which Windows writes about in sequence order) are
 * said, as what the copy may have cost.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "walk/buffer.h"

#define NEAR 4          /* neighbours in the file on each side of a copy */
#define MAX_SAID 16     /* copies said one by one; the rest counted */

static int by_cpu_seq(const void *a, const void *b)
{
	const struct etl_bufent *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether buffers a and b hold the same bytes (1), not (0), or < 0 on a fatal read error. */
static int same_bytes(const struct etl_source *src, const struct etl_bufent *a, const struct etl_bufent *b,
		      struct etl_diag *d)
{
	uint8_t *x, *y;
	int same;

	if (a->avail != b->avail)
		return 0;
	x = etl__malloc(a->avail);
	y = etl__malloc(b->avail);
	if (!x || !y) {
		etl__free(x);
		etl__free(y);
		etl__diag_set(d, ETL_E_NOMEM, b->off, "out of memory comparing two buffers");
		return ETL_E_NOMEM;
	}
	same = etl__source_read(src, a->off, x, a->avail, d) == ETL_OK &&
	       etl__source_read(src, b->off, y, b->avail, d) == ETL_OK && memcmp(x, y, a->avail) == 0;
	etl__free(x);
	etl__free(y);
	return d->code == ETL_E_IO || d->code == ETL_E_NOMEM ? d->code : same;
}

/* Says which sequence numbers are missing among the file neighbours of the copy at file position
 * at of all[0, n) (file order), seqs the sequence numbers of every buffer, sorted after the first. */
static void say_missing(const struct etl_bufent *all, size_t n, size_t at, const uint64_t *seqs, size_t nseq,
			etl_diag_fn report, void *ctx)
{
	uint64_t lo = UINT64_MAX, hi = 0, s;
	size_t i, from = at > NEAR ? at - NEAR : 1, to = at + NEAR < n ? at + NEAR : n - 1;
	unsigned missing = 0;
	struct etl_diag m;

	for (i = from; i <= to; i++)
		if (i != at) {
			lo = all[i].seq < lo ? all[i].seq : lo;
			hi = all[i].seq > hi ? all[i].seq : hi;
		}
	if (lo >= hi || hi - lo > 4 * NEAR)
		return;
	etl__diag_set(&m, ETL_E_FORMAT, all[at].off, "sequence number");
	for (s = lo + 1; s < hi; s++)
		if (!bsearch(&s, seqs + 1, nseq - 1, sizeof(*seqs), by_u64)) /* (seqs[0]: the header buffer's) */
			etl__diag_append(&m, "%s %llu", missing++ ? "," : "", (unsigned long long)s);
	if (!missing)
		return;
	etl__diag_append(&m, " %s missing among the buffers around the repeated one: the buffer%s a copy was "
			     "written over %s lost", missing > 1 ? "are" : "is", missing > 1 ? "s" : "",
			     missing > 1 ? "are" : "is");
	if (report)
		report(ctx, &m);
}

/* The dups among all[0, n): noted in ix->dup, said through report. */
static int find_in(struct etl_bufindex *ix, struct etl_bufent *all, size_t n, etl_diag_fn report, void *ctx,
		   struct etl_diag *d)
{
	struct etl_bufent *sorted = etl__malloc(n * sizeof(*sorted));
	uint64_t *seqs = etl__malloc(n * sizeof(*seqs));
	size_t i, said = 0;
	int st = ETL_OK;

	if (!sorted || !seqs) {
		etl__free(sorted);
		etl__free(seqs);
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory for the buffer index");
		return ETL_E_NOMEM;
	}
	memcpy(sorted, all, n * sizeof(*sorted));
	qsort(sorted + 1, n - 1, sizeof(*sorted), by_cpu_seq); /* (the header buffer stays first) */
	for (i = 0; i < n; i++)
		seqs[i] = all[i].seq;
	qsort(seqs + 1, n - 1, sizeof(*seqs), by_u64);
	for (i = 2; i < n && st == ETL_OK; i++) {
		const struct etl_bufent *a = &sorted[i - 1], *b = &sorted[i];
		struct etl_diag m;
		int same;
		if (a->cpu != b->cpu || a->seq != b->seq)
			continue;
		while (a > sorted + 1 && a[-1].cpu == b->cpu && a[-1].seq == b->seq)
			a--; /* the first of the group: every copy is compared with it */
		if ((same = same_bytes(ix->src, a, b, d)) < 0) {
			st = same;
			break;
		}
		if (same) {
			if (etl__grow(&ix->dup, &ix->ndup_cap, ix->ndup + 1, sizeof(*ix->dup), 8) != 0) {
				etl__diag_set(d, ETL_E_NOMEM, b->off, "out of memory for the buffer index");
				st = ETL_E_NOMEM;
				break;
			}
			ix->dup[ix->ndup++] = b->off;
		}
		if (said++ >= MAX_SAID || !report)
			continue;
		if (same)
			etl__diag_set(&m, ETL_E_FORMAT, b->off,
				      "it repeats buffer %u at offset 0x%llx (CPU %u, sequence %llu, the same bytes): "
				      "its events are delivered once", (unsigned)a->ordinal,
				      (unsigned long long)a->off, (unsigned)b->cpu, (unsigned long long)b->seq);
		else
			etl__diag_set(&m, ETL_E_FORMAT, b->off,
				      "it and buffer %u at offset 0x%llx both say CPU %u, sequence %llu, with other bytes "
				      "(one of them is damaged): both are read", (unsigned)a->ordinal,
				      (unsigned long long)a->off, (unsigned)b->cpu, (unsigned long long)b->seq);
		m.buffer_index = b->ordinal;
		report(ctx, &m);
		if (same)
			say_missing(all, n, b->ordinal, seqs, n, report, ctx);
	}
	if (st == ETL_OK && said > MAX_SAID && report) {
		struct etl_diag m;
		etl__diag_set(&m, ETL_E_FORMAT, ETL_OFFSET_NONE, "%zu more buffers repeat or share their CPU and "
			      "sequence number (not said one by one)", said - MAX_SAID);
		report(ctx, &m);
	}
	if (ix->ndup > 1)
		qsort(ix->dup, ix->ndup, sizeof(*ix->dup), by_u64);
	etl__free(sorted);
	etl__free(seqs);
	return st;
}

int etl__walk_find_dups(struct etl_bufindex *ix, uint64_t count_limit, etl_diag_fn report, void *ctx,
			struct etl_diag *d)
{
	struct etl_bufent *all = NULL, e;
	size_t n = 0, cap = 0;
	struct etl_bufscan sc;
	int st;

	etl__walk_scan_again(ix, &sc); /* (no copies known yet: every buffer) */
	while ((st = etl__walk_scan_next(&sc, &e, d)) == ETL_OK) {
		if (n >= count_limit || etl__grow(&all, &cap, n + 1, sizeof(*all), 64) != 0) {
			etl__diag_set(d, n >= count_limit ? ETL_E_LIMIT : ETL_E_NOMEM, e.off,
				      n >= count_limit ? "more buffers than the buffer-count limit" : "out of memory for the "
				      "buffer index");
			st = d->code;
			break;
		}
		all[n++] = e; /* (in file order: all[i].ordinal == i) */
	}
	etl__walk_scan_free(&sc);
	if (st == ETL_END)
		st = n > 2 ? find_in(ix, all, n, report, ctx, d) : ETL_OK;
	etl__free(all);
	return st;
}
