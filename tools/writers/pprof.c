/*
 * pprof.c - the pprof writer: a CPU profile as pprof's profile.proto,
 * gzipped (go tool pprof, and the tools that read its format).
 *
 * Two values per sample: samples/count, and cpu/nanoseconds, the count times
 * the sampling interval (the trace's PerfInfo CollectionStart or SetInterval
 * of the timer source, else 1 ms).  Each distinct frame (profile.h) is a
 * location with one line, of a function named as the frame is (without its
 * module), in a mapping per module; the process is a "process" label of
 * each sample.  The protobuf is written here (varints and length-delimited
 * fields), field numbers as profile.proto gives them.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "out.h"
#include "etldump.h"
#include "summary.h"
#include "writers/profile.h"
#include "writers/writer.h"

/* profile.proto field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5, P_STRING = 6,
	P_TIME = 9, P_DURATION = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_DEFAULT_TYPE = 14
};

struct pb {
	uint8_t *b;
	size_t n, cap;
	int failed;
};

static void pb_raw(struct pb *x, const void *p, size_t n)
{
	if (x->failed)
		return;
	if (grow_array(&x->b, &x->cap, x->n + n, 1, 4096) != 0) {
		x->failed = 1;
		return;
	}
	if (n)
		memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void pb_varint(struct pb *x, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	do {
		b[n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_raw(x, b, n);
}

static void pb_uint(struct pb *x, unsigned field, uint64_t v)
{
	pb_varint(x, (uint64_t)field << 3);
	pb_varint(x, v);
}

static void pb_bytes(struct pb *x, unsigned field, const void *p, size_t n)
{
	pb_varint(x, (uint64_t)field << 3 | 2);
	pb_varint(x, n);
	pb_raw(x, p, n);
}

/* A sub-message (built in m, then reset). */
static void pb_message(struct pb *x, unsigned field, struct pb *m)
{
	x->failed |= m->failed;
	pb_bytes(x, field, m->b, m->n);
	m->n = 0;
}

/* The string table: index by text. */
struct strings {
	struct hmap ix;
	const char **s;
	size_t n, cap;
	int failed;
};

struct str_slot {
	size_t i;
};

struct str_key {
	const struct strings *t;
	const char *s;
};

static int str_eq(const void *entry, const void *key)
{
	const struct str_key *k = key;

	return strcmp(k->t->s[((const struct str_slot *)entry)->i], k->s) == 0;
}

static uint64_t str_index(struct strings *t, const char *s)
{
	uint64_t h = hmap_hash_bytes(s, strlen(s), 0x9e37);
	struct str_key key = { t, s };
	struct str_slot *e = hmap_find(&t->ix, h, str_eq, &key);

	if (e)
		return e->i;
	if (grow_array(&t->s, &t->cap, t->n + 1, sizeof(*t->s), 256) != 0 || !(e = hmap_insert(&t->ix, h))) {
		t->failed = 1;
		return 0;
	}
	t->s[t->n] = s; /* borrowed from the profile, which outlives the table */
	e->i = t->n;
	return t->n++;
}

static void value_type(struct pb *x, unsigned field, struct strings *t, const char *type, const char *unit,
		       struct pb *m)
{
	pb_uint(m, 1, str_index(t, type));
	pb_uint(m, 2, str_index(t, unit));
	pb_message(x, field, m);
}

/* The mapping of each module (its id, 1-based, by the module's string index), written once. */
static uint64_t mapping_of(struct pb *x, struct strings *t, const char *module, uint64_t *ids, size_t *nids,
			   struct pb *m)
{
	uint64_t s = str_index(t, module), i;

	for (i = 0; i < *nids; i++)
		if (ids[i] == s)
			return i + 1;
	ids[(*nids)++] = s;
	pb_uint(m, 1, *nids);
	pb_uint(m, 5, s);  /* filename */
	pb_uint(m, 7, 1);  /* has_functions */
	pb_message(x, P_MAPPING, m);
	return *nids;
}

/* Locations and functions: one each per frame (id: the frame's index + 1). */
static void frames(struct pb *x, struct strings *t, const struct profile *p, struct pb *m, struct pb *line)
{
	uint64_t *maps = calloc(p->nframes ? p->nframes : 1, sizeof(*maps));
	size_t nmaps = 0, i;

	if (!maps) {
		x->failed = 1;
		return;
	}
	for (i = 0; i < p->nframes; i++) {
		const struct prof_frame *f = &p->frames[i];
		uint64_t map;
		if (f->process)
			continue; /* a label of the samples */
		map = f->module ? mapping_of(x, t, f->module, maps, &nmaps, m) : 0;
		pb_uint(m, 1, i + 1);
		if (map)
			pb_uint(m, 2, map);
		pb_uint(line, 1, i + 1);
		if (f->line)
			pb_uint(line, 2, f->line);
		pb_message(m, 4, line);
		pb_message(x, P_LOCATION, m);
		pb_uint(m, 1, i + 1);
		pb_uint(m, 2, str_index(t, f->function));
		pb_uint(m, 3, str_index(t, f->function));
		if (f->file)
			pb_uint(m, 4, str_index(t, f->file));
		pb_message(x, P_FUNCTION, m);
	}
	free(maps);
}

/* The samples: locations from the leaf (the process frame, first in a stack, is a label). */
static void samples(struct pb *x, struct strings *t, const struct profile *p, struct pb *m, struct pb *packed)
{
	uint64_t proc_key = str_index(t, "process"), ns = profile_interval_ns(p);
	size_t i, k;

	for (i = 0; i < p->nstacks; i++) {
		const struct prof_stack *s = &p->stacks[i];
		for (k = s->n; k-- > 1;)
			pb_varint(packed, p->ids[s->at + k] + 1);
		pb_message(m, 1, packed);
		pb_varint(packed, s->count);
		pb_varint(packed, s->count * ns);
		pb_message(m, 2, packed);
		pb_uint(packed, 1, proc_key);
		pb_uint(packed, 2, str_index(t, p->frames[p->ids[s->at]].text));
		pb_message(m, 3, packed);
		pb_message(x, P_SAMPLE, m);
	}
}

/* The whole profile.proto message into x. */
static void encode(struct pb *x, const struct profile *p)
{
	struct strings t;
	struct pb m = { 0 }, sub = { 0 }, strtab = { 0 };
	size_t i;

	memset(&t, 0, sizeof(t));
	hmap_init(&t.ix, sizeof(struct str_slot));
	str_index(&t, "");
	value_type(x, P_SAMPLE_TYPE, &t, "samples", "count", &m);
	value_type(x, P_SAMPLE_TYPE, &t, "cpu", "nanoseconds", &m);
	samples(x, &t, p, &m, &sub);
	frames(x, &t, p, &m, &sub);
	if (p->events) {
		pb_uint(x, P_TIME, (uint64_t)p->first_ns);
		pb_uint(x, P_DURATION, (uint64_t)(p->last_ns - p->first_ns));
	}
	value_type(x, P_PERIOD_TYPE, &t, "cpu", "nanoseconds", &m);
	pb_uint(x, P_PERIOD, profile_interval_ns(p));
	pb_uint(x, P_DEFAULT_TYPE, str_index(&t, "cpu"));
	for (i = 0; i < t.n; i++) /* the table last: every string is known now */
		pb_bytes(&strtab, P_STRING, t.s[i], strlen(t.s[i]));
	x->failed |= t.failed | m.failed | sub.failed | strtab.failed;
	pb_raw(x, strtab.b, strtab.n);
	free(m.b);
	free(sub.b);
	free(strtab.b);
	free(t.s);
	hmap_free(&t.ix);
}

/* x gzipped to the output. */
static int write_gzip(const struct pb *x)
{
	z_stream z;
	uint8_t buf[16384];
	int st;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = x->b;
	z.avail_in = (uInt)x->n;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		st = deflate(&z, Z_FINISH);
		out_mem(buf, sizeof(buf) - z.avail_out);
	} while (st == Z_OK || st == Z_BUF_ERROR);
	deflateEnd(&z);
	return st == Z_STREAM_END ? 0 : -1;
}

static void pprof_event(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
			const struct etl_decoded *d)
{
	(void)d;
	profile_event(ws, r, o, ev);
}

static void pprof_end(void *ws, struct etl_reader *r, const struct options *o)
{
	struct profile *p = ws;
	struct pb x = { 0 };

	(void)r;
	encode(&x, p);
	if (x.failed || x.n > UINT32_MAX || write_gzip(&x) != 0)
		fprintf(stderr, "%s: pprof: out of memory: no profile written\n", progname);
	free(x.b);
	profile_report(p, o, "pprof");
	profile_free(p);
}

const struct writer writer_pprof = {
	.name = "pprof",
	.about = "a CPU profile of the sampled stacks for go tool pprof",
	.ext = "pb.gz",
	.summary_ext = "txt",
	.stacks = 1,
	.no_decode = 1,
	.state_size = sizeof(struct profile),
	.event = pprof_event,
	.end = pprof_end,
	.summary = summary_text,
	.info = info_text,
};
