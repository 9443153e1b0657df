/*
 * slice.c - a time slice's state as bytes: written from a plan (plan.c), read back - checked,
 * as untrusted input - by the reader of the slice (etl_reader_set_slice), which then starts
 * each CPU's stream where the state says and replays the records it holds (merge.c).
 *
 * The bytes (little-endian; docs/API.md, "Time slices"):
 *   0   "ETLSLICE", u32 version (2), u32 flags (1: skips buffers, 2: stack records seen)
 *   16  u32 input, u32 CPUs, u64 from, u64 to
 *   40  u64 file size, u64 identity (a hash of the file's first and last 64 KiB and of 4 KiB at
 *       each sixteenth of it, with its size), u64 buffers,
 *       u64 bytes skipped, u64 scan offset, u64 scan ordinal, u64 records
 *   96  per CPU (32 bytes): u32 CPU, u32 0, u64 first buffer to read (ordinal; all ones: none),
 *       u64 the stream's last time before it, u64 the last buffer of its first run of buffers that
 *       read lightly give what the reader reads (all ones: all of them)
 *   then per record: u32 size, u32 CPU, u32 buffer offset, u16 CPU index, u16 flags,
 *       u64 buffer ordinal, u64 file offset, u32 fact size, u32 0, the record's bytes and its
 *       fact (what it tells the tables, state/facts.c; little-endian), each zero-padded to 8
 *   last: u32 CRC-32 (gzip's) of every byte before it, u32 0
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "slices/slices.h"
#include "record/record.h"
#include "state/facts.h"
#include "util/crc32.h"
#include "util/cursor.h"




size_t etl_slices_count(const struct etl_slices *p)
{
	return p ? p->k : 0;
}

uint64_t etl_slices_bound(const struct etl_slices *p, size_t i)
{
	return p && i <= p->k ? p->bounds[i] : 0;
}

uint64_t etl_slices_records(const struct etl_slices *p, size_t i)
{
	return p && p->records && i < p->k ? p->records[i] : 0;
}

void etl_slices_free(struct etl_slices *p)
{
	if (!p)
		return;
	etl__free(p->cpus);
	etl__free(p->clean_last);
	etl__free(p->bounds);
	etl__free(p->bufs);
	etl__free(p->recs);
	etl__free(p->arena);
	etl__free(p->out);
	etl__free(p->state_bytes);
	etl__free(p->state_nrec);
	etl__free(p->records);
	etl__decode_state_free(&p->dec);
	etl__decode_state_free(&p->classes.dec);
	etl__state_free(&p->sys);
	etl__free(p);
}

/* Where the reader of slice i takes up each CPU (s->cpus), whether the buffers it skips hold
 * stack records, and where its scan starts. */
static void slice_cpus(const struct etl_slices *p, size_t i, struct slice_state *s)
{
	size_t j, found = 0;

	s->scan_off = p->file_size;
	s->scan_ordinal = p->buffers;
	for (j = 0; j < p->ncpus; j++) {
		s->cpus[j].cpu = p->cpus[j];
		s->cpus[j].resume = UINT64_MAX;
		s->cpus[j].last_ts = p->start_raw;
		s->cpus[j].clean_last = p->clean_last[j];
	}
	for (j = 0; j < p->nbufs && found < p->ncpus; j++) {
		const struct plan_buf *b = &p->bufs[j];
		struct slice_cpu *c = &s->cpus[b->ci];
		if (c->resume != UINT64_MAX)
			continue; /* past this CPU's start */
		if (b->j0 <= i) { /* skipped */
			c->last_ts = b->last_ts;
			s->stacks_seen |= b->stack != 0;
			continue;
		}
		c->resume = b->ent.ordinal;
		found++;
		if (b->ent.ordinal < s->scan_ordinal) {
			s->scan_ordinal = b->ent.ordinal;
			s->scan_off = b->ent.off;
			s->scan_at = j;
		}
	}
}

int etl__slice_head(const struct etl_slices *p, size_t i, struct slice_state *s)
{
	s->trace = p->trace;
	s->skip = p->skip && i > 0;
	s->from = p->bounds[i];
	s->to = p->bounds[i + 1];
	s->file_size = p->file_size;
	s->ident = p->ident;
	s->buffers = p->buffers;
	s->bytes_skipped = p->bytes_skipped;
	if (!s->skip)
		return 0;
	if (!(s->cpus = etl__calloc(p->ncpus + 1, sizeof(*s->cpus))))
		return -1;
	s->ncpus = p->ncpus;
	s->nrec = p->state_nrec[i];
	slice_cpus(p, i, s);
	return 0;
}

/* The header and CPU entries of state h (out: SLICE_HEAD + its CPUs' bytes, zeroed). */
static void write_head(const struct slice_state *h, uint8_t *out)
{
	uint8_t *c = out + SLICE_HEAD;
	size_t j;

	memcpy(out, SLICE_MAGIC, 8);
	etl_put_le32(out + 8, SLICE_VERSION);
	etl_put_le32(out + 12, (h->skip ? SLICE_SKIPS : 0) | (h->stacks_seen ? SLICE_STACKS : 0));
	etl_put_le32(out + 16, (uint32_t)h->trace);
	etl_put_le32(out + 20, (uint32_t)h->ncpus);
	etl_put_le64(out + 24, h->from);
	etl_put_le64(out + 32, h->to);
	etl_put_le64(out + 40, h->file_size);
	etl_put_le64(out + 48, h->ident);
	etl_put_le64(out + 56, h->buffers);
	etl_put_le64(out + 64, h->bytes_skipped);
	etl_put_le64(out + 72, h->scan_off);
	etl_put_le64(out + 80, h->scan_ordinal);
	etl_put_le64(out + 88, h->nrec);
	for (j = 0; j < h->ncpus; j++, c += SLICE_CPU) {
		etl_put_le32(c, h->cpus[j].cpu);
		etl_put_le64(c + 8, h->cpus[j].resume);
		etl_put_le64(c + 16, h->cpus[j].last_ts);
		etl_put_le64(c + 24, h->cpus[j].clean_last);
	}
}

int etl__slices_weigh(struct etl_slices *p)
{
	size_t i, j;

	p->state_bytes = etl__calloc(p->k + 1, sizeof(*p->state_bytes));
	p->state_nrec = etl__calloc(p->k + 1, sizeof(*p->state_nrec));
	if (!p->state_bytes || !p->state_nrec)
		return -1;
	for (j = 0; j < p->nrec; j++) { /* a record is in the states of its buffer's j0 on */
		uint32_t j0 = p->bufs[p->recs[j].buf].j0;
		if (j0 < p->k) {
			p->state_bytes[j0] += SLICE_REC + slice_pad8(p->recs[j].len) + slice_pad8(p->recs[j].fact_len);
			p->state_nrec[j0]++;
		}
	}
	for (i = 1; i < p->k; i++) {
		p->state_bytes[i] += p->state_bytes[i - 1];
		p->state_nrec[i] += p->state_nrec[i - 1];
	}
	return 0;
}

/* The bytes of slice i's state, and its records into *nrec. */
static size_t state_size(const struct etl_slices *p, size_t i, size_t *nrec)
{
	int skip = p->skip && i > 0;

	*nrec = skip ? p->state_nrec[i] : 0;
	return SLICE_HEAD + (skip ? p->ncpus * SLICE_CPU + p->state_bytes[i] : 0) + SLICE_SUM;
}

size_t etl_slices_state_size(const struct etl_slices *p, size_t i)
{
	size_t nrec;

	return p && i < p->k ? state_size(p, i, &nrec) : 0;
}

const void *etl_slices_state(struct etl_slices *p, size_t i, size_t *len)
{
	struct slice_state h;
	size_t need, j, at;
	uint8_t *out;

	if (!p || i >= p->k || !len)
		return NULL;
	memset(&h, 0, sizeof(h));
	need = etl_slices_state_size(p, i);
	if (etl__slice_head(p, i, &h) != 0 || etl__grow(&p->out, &p->out_cap, need, 1, 4096) != 0) {
		etl__free(h.cpus);
		return NULL;
	}
	out = p->out;
	memset(out, 0, SLICE_HEAD + h.ncpus * SLICE_CPU); /* (each record's below) */
	write_head(&h, out);
	etl__free(h.cpus);
	at = SLICE_HEAD + h.ncpus * SLICE_CPU;
	for (j = 0; h.skip && j < p->nrec; j++) {
		const struct plan_rec *rc = &p->recs[j];
		if (p->bufs[rc->buf].j0 > i)
			continue;
		etl_put_le32(out + at, rc->len);
		etl_put_le32(out + at + 4, rc->cpu);
		etl_put_le32(out + at + 8, rc->buffer_offset);
		out[at + 12] = (uint8_t)rc->ci;
		out[at + 13] = (uint8_t)(rc->ci >> 8);
		out[at + 14] = (uint8_t)rc->flags;
		out[at + 15] = (uint8_t)(rc->flags >> 8);
		etl_put_le64(out + at + 16, rc->ordinal);
		etl_put_le64(out + at + 24, rc->file_offset);
		etl_put_le32(out + at + 32, rc->fact_len);
		etl_put_le32(out + at + 36, 0);
		memcpy(out + at + SLICE_REC, p->arena + rc->at, rc->len);
		memset(out + at + SLICE_REC + rc->len, 0, slice_pad8(rc->len) - rc->len);
		at += SLICE_REC + slice_pad8(rc->len);
		if (rc->fact_len)
			etl__fact_to_le(p->arena + rc->fact_at, rc->fact_len, out + at);
		memset(out + at + rc->fact_len, 0, slice_pad8(rc->fact_len) - rc->fact_len);
		at += slice_pad8(rc->fact_len);
	}
	/* the sum: a state carried between processes (libetl.dask) that changed is refused */
	etl_put_le32(out + at, etl__crc32(0, out, at));
	etl_put_le32(out + at + 4, 0);
	*len = need;
	return out;
}
