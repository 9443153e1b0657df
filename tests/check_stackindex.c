/*
 * check_stackindex.c - the stack index pass reads most records by their header alone
 * (etl__stacks_load_buffer peeks at them, parsing only the image, .NET method and stack key
 * records): what it indexes from each buffer must equal what parsing every record indexes
 * (etl__stacks_load_buffer_whole) - key definitions, records logged away from their event, their
 * frames, images and methods - on writer traces with stacks, images and methods, on the corpus,
 * and on copies of every buffer with bytes changed where records start and at random.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "helpers/prefetch.h"
#include "reader/reader.h"
#include "record/record.h"
#include "scenario.h"
#include "state/stacks.h"
#include "util/cursor.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

#define MAX_BYTES ((uint64_t)1 << 30)

static void assert_defs_equal(const struct etl_stacks *a, const struct etl_stacks *b)
{
	size_t i;

	ck_assert_uint_eq(a->ndef, b->ndef);
	for (i = 0; i < a->ndef; i++) {
		ck_assert_uint_eq(a->def[i].key, b->def[i].key);
		ck_assert_uint_eq(a->def[i].ts, b->def[i].ts);
		ck_assert_uint_eq(a->def[i].off, b->def[i].off);
		ck_assert_uint_eq(a->def[i].count, b->def[i].count);
		ck_assert_uint_eq(a->def[i].ptr, b->def[i].ptr);
	}
}

static void assert_refs_equal(const struct etl_stacks *a, const struct etl_stacks *b)
{
	size_t i;

	ck_assert_uint_eq(a->nref, b->nref);
	for (i = 0; i < a->nref; i++) {
		const struct etl_stackref *x = &a->ref[i], *y = &b->ref[i];
		ck_assert_uint_eq(x->event_ts, y->event_ts);
		ck_assert_uint_eq(x->tid, y->tid);
		ck_assert_uint_eq(x->pid, y->pid);
		ck_assert_uint_eq(x->ptr, y->ptr);
		ck_assert_uint_eq(x->is_key, y->is_key);
		ck_assert_uint_eq(x->key, y->key);
		ck_assert_uint_eq(x->key_ts, y->key_ts);
		ck_assert_uint_eq(x->off, y->off);
		ck_assert_uint_eq(x->count, y->count);
	}
}

/* The index of one buffer, read lightly and whole: equal.  Returns what it held (to show that
 * the inputs exercise it). */
static size_t assert_buffer_indexes_equal(const uint8_t *data, size_t fill, unsigned ptr)
{
	struct etl_stacks a, b;
	size_t held;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	etl__stacks_load_buffer(&a, data, fill, ptr, MAX_BYTES);
	etl__stacks_load_buffer_whole(&b, data, fill, ptr, MAX_BYTES);
	assert_defs_equal(&a, &b);
	assert_refs_equal(&a, &b);
	ck_assert_uint_eq(a.pool_len, b.pool_len);
	ck_assert(a.pool_len == 0 || memcmp(a.pool, b.pool, a.pool_len) == 0);
	ck_assert_uint_eq(a.dropped, b.dropped);
	ck_assert_uint_eq(a.images.nrec, b.images.nrec);
	ck_assert_uint_eq(a.images.ndbg, b.images.ndbg);
	ck_assert_uint_eq(a.images.pool_len, b.images.pool_len);
	ck_assert(a.images.pool_len == 0 || memcmp(a.images.pool, b.images.pool, a.images.pool_len) == 0);
	ck_assert_uint_eq(a.images.dropped, b.images.dropped);
	ck_assert_uint_eq(a.methods.nrec, b.methods.nrec);
	ck_assert_uint_eq(a.methods.pool_len, b.methods.pool_len);
	ck_assert(a.methods.pool_len == 0 || memcmp(a.methods.pool, b.methods.pool, a.methods.pool_len) == 0);
	ck_assert_uint_eq(a.methods.dropped, b.methods.dropped);
	held = a.ndef + a.nref + a.images.nrec + a.methods.nrec;
	etl__stacks_free(&a);
	etl__stacks_free(&b);
	return held;
}

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

/* Copies of the buffer with a byte of a record's header changed (the marker, size, hook, header
 * type, times, thread, provider), and with bytes changed anywhere: each copy's indexes equal. */
static void assert_damaged_copies_equal(const uint8_t *data, size_t fill, unsigned ptr, uint64_t *seed)
{
	uint8_t *copy = malloc(fill);
	size_t starts[64], n = 0, pos, adv, i;
	struct etl_peek pk;

	ck_assert_ptr_nonnull(copy);
	for (pos = ETL_BUFFER_HEADER_SIZE; n < 64 && etl__record_peek(data, fill, pos, &pk, &adv) == ETL_OK; pos += adv)
		starts[n++] = pos;
	for (i = 0; i < 12 && fill > ETL_BUFFER_HEADER_SIZE + 8; i++) {
		size_t at;
		memcpy(copy, data, fill);
		if (n && i < 8)
			at = starts[rnd(seed) % n] + rnd(seed) % 48;
		else
			at = ETL_BUFFER_HEADER_SIZE + rnd(seed) % (fill - ETL_BUFFER_HEADER_SIZE);
		if (at >= fill)
			continue;
		copy[at] = (uint8_t)(i % 3 == 0 ? copy[at] ^ (1u << (rnd(seed) % 8)) : rnd(seed));
		(void)assert_buffer_indexes_equal(copy, fill, ptr);
	}
	free(copy);
}

/* Every data buffer of trace d (as the index pass loads it) and damaged copies of it; the records
 * the indexes held. */
static size_t assert_trace_indexes_equal(const uint8_t *d, size_t len, const char *name, uint64_t seed)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_bufiter it;
	struct etl_bufload ld;
	struct etl_bufent e;
	struct etl_diag diag;
	struct trace *t;
	size_t held = 0;

	ck_assert_ptr_nonnull(r);
	if (etl_reader_open_memory(r, d, len, name) != ETL_OK) {
		etl_reader_free(r);
		return 0; /* (a container: its traces are read by other tests) */
	}
	t = r->traces[0];
	etl__walk_load_init(&ld, &t->src, (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0,
			    t->info.compression_format);
	etl__walk_iter_init(&it, &t->ix);
	while (etl__walk_iter_next(&it, &e)) {
		if (e.type == ETL_BUFTYPE_HEADER)
			continue;
		(void)etl__walk_load(&ld, &e, &diag);
		if (!ld.data)
			continue;
		held += assert_buffer_indexes_equal(ld.data, ld.fill, t->ptr_size);
		assert_damaged_copies_equal(ld.data, ld.fill, t->ptr_size, &seed);
	}
	etl__walk_iter_stop(&it);
	etl__walk_load_free(&ld);
	etl_reader_free(r);
	return held;
}

/* A profile trace (tests/writer/profile.c) from spec. */
static void build_spec(const struct etlw_opts *o, const char *spec, uint8_t **d, size_t *len)
{
	char path[] = "/tmp/check_stackindex_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(spec, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(scen_build_profile(o, path, d, len), 0);
	unlink(path);
}

/* A CPU profile with an image and its PDB record, a .NET module, methods loaded and unloaded,
 * and samples with stacks. */
static void build_profile(const struct etlw_opts *o, uint8_t **d, size_t *len)
{
	static const char spec[] =
		"process\t100\tapp.exe\n"
		"image\t100\t0x140000000\t0x10000\tC:\\app.exe\t11111111-2222-3333-4444-555555555555\t1\tapp.pdb\n"
		"module\t100\t7\tC:\\app.dll\n"
		"method\t100\t1\t0x7ff000001000\t0x100\t7\tNs\tRun\tvoid ()\n"
		"method\t100\t2\t0x7ff000002000\t0x80\t7\tNs\tStep\tint (int)\n"
		"interval\t10000\n"
		"sample\t100\t101\t3\t0x140001010,0x7ff000001010\n"
		"sample\t100\t101\t4\t0x7ff000002010,0x140001020\n"
		"unload\t100\t5\t0x7ff000002000\t0x80\t7\tNs\tStep\tint (int)\n"
		"sample\t100\t102\t6\t0x140001030\n";

	build_spec(o, spec, d, len);
}

/* A frame a sample's stack should resolve to: its kind, and the image or method it names. */
struct want_frame {
	int kind;
	const char *name;
};

/* Reads the trace of spec (one sample) and checks its stack's n frames against want. */
static void check_sample_frames(const char *spec, const struct want_frame *want, size_t n)
{
	struct etlw_opts o;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	uint8_t *d = NULL;
	size_t len = 0, i, samples = 0;

	etlw_default_opts(&o);
	build_spec(&o, spec, &d, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "frames"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_hook_id(ev) != 0x0F2E)
			continue;
		samples++;
		ck_assert_uint_eq(etl_event_stack_depth(ev), n);
		for (i = 0; i < n; i++) {
			struct etl_frame f;
			ck_assert_int_eq(etl_reader_frame(r, ev, etl_event_stack_frame(ev, i), 0, &f), ETL_OK);
			ck_assert_int_eq((int)f.kind, want[i].kind);
			if (want[i].kind == ETL_FRAME_IMAGE)
				ck_assert_str_eq(f.module, want[i].name);
			else if (want[i].kind == ETL_FRAME_METHOD)
				ck_assert_str_eq(f.function, want[i].name);
		}
	}
	ck_assert_uint_eq(samples, 1);
	etl_reader_free(r);
	free(d);
}

/* Images and methods that lie inside a larger one: a lookup goes down past the small ones to the
 * large one that holds the address (each stops where no image or method below reaches it). */
START_TEST(frames_inside_large_images_and_methods)
{
	static const char spec[] =
		"process\t100\tapp.exe\n"
		"image\t100\t0x10000000\t0x1000000\tC:\\a.dll\n"
		"image\t100\t0x10100000\t0x1000\tC:\\b.dll\n"
		"image\t100\t0x10200000\t0x1000\tC:\\c.dll\n"
		"image\t100\t0x20000000\t0x1000\tC:\\d.dll\n"
		"module\t100\t7\tC:\\m.dll\n"
		"method\t100\t1\t0x7ff000000000\t0x100000\t7\tNs\tBig\tvoid ()\n"
		"method\t100\t1\t0x7ff000010000\t0x100\t7\tNs\tSmall\tvoid ()\n"
		"method\t100\t1\t0x7ff000020000\t0x100\t7\tNs\tOther\tvoid ()\n"
		"sample\t100\t101\t3\t0x10100010,0x10500000,0x11000010,0x20000010,0x7ff000010010,"
		"0x7ff000050000,0x7ff000200000\n";
	static const struct want_frame want[] = {
		{ ETL_FRAME_IMAGE, "b.dll" }, { ETL_FRAME_IMAGE, "a.dll" }, { ETL_FRAME_ADDRESS, NULL },
		{ ETL_FRAME_IMAGE, "d.dll" }, { ETL_FRAME_METHOD, "Ns.Small" }, { ETL_FRAME_METHOD, "Ns.Big" },
		{ ETL_FRAME_ADDRESS, NULL },
	};

	check_sample_frames(spec, want, sizeof(want) / sizeof(want[0]));
}
END_TEST

/* The method that ends highest is the last one a lookup may find: its last byte is it, the byte
 * after it nothing (a lookup above every method's end does not search). */
START_TEST(frames_at_the_top_of_the_methods)
{
	static const char spec[] =
		"process\t100\tapp.exe\n"
		"module\t100\t7\tC:\\m.dll\n"
		"method\t100\t1\t0x7ff000001000\t0x100\t7\tNs\tLow\tvoid ()\n"
		"method\t100\t1\t0x7ff000002000\t0x100\t7\tNs\tHigh\tvoid ()\n"
		"sample\t100\t101\t3\t0x7ff0000020ff,0x7ff000002100,0x7ff000001000,0xfffff80000001000\n";
	static const struct want_frame want[] = {
		{ ETL_FRAME_METHOD, "Ns.High" }, { ETL_FRAME_ADDRESS, NULL }, { ETL_FRAME_METHOD, "Ns.Low" },
		{ ETL_FRAME_ADDRESS, NULL },
	};

	check_sample_frames(spec, want, sizeof(want) / sizeof(want[0]));
}
END_TEST

/* The image of a process that ends highest is the last its lookup may find: its last byte is
 * it, the byte after it nothing; a kernel address, above every image of the process, is the
 * kernel's image (the process's lookup stops at once). */
START_TEST(frames_at_the_top_of_the_images)
{
	static const char spec[] =
		"process\t100\tapp.exe\n"
		"image\t100\t0x10000000\t0x1000\tC:\\low.dll\n"
		"image\t100\t0x20000000\t0x2000\tC:\\high.dll\n"
		"image\t0\t0xfffff80000000000\t0x100000\tC:\\Windows\\ntoskrnl.exe\n"
		"sample\t100\t101\t3\t0x20001fff,0x20002000,0x10000fff,0xfffff80000000010\n";
	static const struct want_frame want[] = {
		{ ETL_FRAME_IMAGE, "high.dll" }, { ETL_FRAME_ADDRESS, NULL }, { ETL_FRAME_IMAGE, "low.dll" },
		{ ETL_FRAME_IMAGE, "ntoskrnl.exe" },
	};

	check_sample_frames(spec, want, sizeof(want) / sizeof(want[0]));
}
END_TEST

START_TEST(writer_traces_index_alike)
{
	struct etlw_opts o;
	uint8_t *d = NULL;
	size_t len = 0;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.ptr_size = _i ? 4 : 8;
	ck_assert_int_eq(scen_build_stackkeys_rounds(&o, 40, &d, &len), 0);
	ck_assert_uint_gt(assert_trace_indexes_equal(d, len, "stackkeys", 1), 0);
	free(d);
	d = NULL;
	if (!_i) { /* (the profile scenario is 64-bit) */
		build_profile(&o, &d, &len);
		ck_assert_uint_gt(assert_trace_indexes_equal(d, len, "profile", 2), 0);
		free(d);
		d = NULL;
	}
	ck_assert_int_eq(scen_build_images32(&o, &d, &len), 0);
	ck_assert_uint_gt(assert_trace_indexes_equal(d, len, "images32", 3), 0);
	free(d);
}
END_TEST

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* A buffer by hand: a WPP message with a thread (its header's system information), then a
 * StackWalk record naming its time and a thread, 64-bit. */
static size_t message_then_stack(uint8_t *b, size_t cap, uint32_t msg_tid, uint32_t stack_tid)
{
	size_t at = ETL_BUFFER_HEADER_SIZE;

	ck_assert_uint_ge(cap, at + 32 + 64);
	memset(b, 0, cap);
	etl_put_le32(b + at, 0x90000000u | 32);                    /* a message of 32 bytes */
	put16(b + at + 4, 1);                               /* its number */
	put16(b + at + 6, ETL_MSG_TIMESTAMP | ETL_MSG_SYSTEMINFO);
	etl_put_le64(b + at + 8, 5000);                            /* its time */
	etl_put_le32(b + at + 16, msg_tid);
	etl_put_le32(b + at + 20, 4);                              /* its process */
	at += 32;
	etl_put_le32(b + at, 0xC0000000u | ETL_HT_SYSTEM64 << 16 | 2);
	put16(b + at + 4, 64);                              /* its size */
	put16(b + at + 6, 0x1820);                          /* StackWalk/Stack */
	etl_put_le32(b + at + 8, stack_tid);
	etl_put_le32(b + at + 12, 4);
	etl_put_le64(b + at + 16, 5000);
	etl_put_le64(b + at + 32, 5000);                           /* EventTimeStamp */
	etl_put_le32(b + at + 40, 4);                              /* StackProcess */
	etl_put_le32(b + at + 44, stack_tid);                      /* StackThread */
	etl_put_le64(b + at + 48, 0x140001000u);
	etl_put_le64(b + at + 56, 0x140002000u);
	return at + 64;
}

/* The thread a message's header names is the one its stack records follow it on: peeked as
 * parsed (the stack record is attached to the message then, not indexed). */
START_TEST(a_message_owns_the_stack_records_after_it)
{
	uint8_t b[256];
	size_t fill = message_then_stack(b, sizeof(b), 77, 77);
	struct etl_stacks k;

	(void)assert_buffer_indexes_equal(b, fill, 8);
	memset(&k, 0, sizeof(k));
	etl__stacks_load_buffer(&k, b, fill, 8, MAX_BYTES);
	ck_assert_uint_eq(k.nref, 0); /* follows its event */
	etl__stacks_free(&k);
	fill = message_then_stack(b, sizeof(b), 77, 78);
	ck_assert_uint_eq(assert_buffer_indexes_equal(b, fill, 8), 1); /* another thread's: indexed */
}
END_TEST

/* The corpus's trace folder (its path into dir), or NULL when there is none (said on stderr). */
static DIR *open_corpus(char *dir, size_t cap)
{
	DIR *dh;

	snprintf(dir, cap, "%s/etl", corpus_dir);
	if (!(dh = opendir(dir)))
		fprintf(stderr, "check_stackindex: no corpus under %s\n", corpus_dir);
	return dh;
}

START_TEST(corpus_traces_index_alike)
{
	char dir[4096], path[8192];
	DIR *dh;
	struct dirent *de;
	size_t tried = 0, held = 0;

	if (!(dh = open_corpus(dir, sizeof(dir))))
		return;
	while ((de = readdir(dh)) != NULL) {
		size_t n = strlen(de->d_name), len;
		uint8_t *d;
		struct etl_diag diag;
		if (n < 4 || strcmp(de->d_name + n - 4, ".etl") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (etl__read_file(path, 1u << 30, "trace", &d, &len, &diag) != ETL_OK)
			continue;
		held += assert_trace_indexes_equal(d, len, de->d_name, tried + 11);
		free(d);
		tried++;
	}
	closedir(dh);
	if (tried)
		ck_assert_uint_gt(held, 0); /* (the corpus has stacks, images and methods) */
}
END_TEST

/* Two indexes whose pools are laid out apart (parts appended): the same records, frames and
 * order, their frames compared where each pool holds them. */
static void assert_records_equal_apart(const struct etl_stacks *a, const struct etl_stacks *b)
{
	size_t i;

	ck_assert_uint_eq(a->ndef, b->ndef);
	ck_assert_uint_eq(a->nref, b->nref);
	ck_assert_uint_eq(a->pool_len, b->pool_len);
	for (i = 0; i < a->ndef; i++) {
		const struct etl_stackdef *x = &a->def[i], *y = &b->def[i];
		ck_assert(x->key == y->key && x->ts == y->ts && x->count == y->count && x->ptr == y->ptr);
		ck_assert(x->count == 0 || memcmp(a->pool + x->off, b->pool + y->off, (size_t)x->count * x->ptr) == 0);
	}
	for (i = 0; i < a->nref; i++) {
		const struct etl_stackref *x = &a->ref[i], *y = &b->ref[i];
		ck_assert(x->event_ts == y->event_ts && x->tid == y->tid && x->pid == y->pid && x->ptr == y->ptr);
		ck_assert(x->is_key == y->is_key && x->key == y->key && x->key_ts == y->key_ts && x->count == y->count);
		ck_assert(x->is_key || x->count == 0 ||
			  memcmp(a->pool + x->off, b->pool + y->off, (size_t)x->count * x->ptr) == 0);
	}
}

/* The finished histories of two indexes: the same images and methods, in the same order. */
static void assert_histories_equal(const struct etl_stacks *a, const struct etl_stacks *b)
{
	const struct etl_imagehist *x = &a->images, *y = &b->images;
	const struct etl_methodhist *u = &a->methods, *v = &b->methods;
	size_t i;

	ck_assert(a->loaded && b->loaded && x->built && y->built && u->built && v->built);
	ck_assert_uint_eq(x->nimg, y->nimg);
	ck_assert_uint_eq(x->npids, y->npids);
	ck_assert_uint_eq(x->dropped, y->dropped);
	ck_assert((x->reach == NULL) == (y->reach == NULL));
	for (i = 0; i < x->nimg; i++) {
		const struct etl_himage *p = &x->img[i], *q = &y->img[i];
		ck_assert(p->base == q->base && p->size == q->size && p->from == q->from && p->to == q->to);
		ck_assert(p->pid == q->pid && p->checksum == q->checksum && p->stamp == q->stamp && p->dbg == q->dbg);
		ck_assert_str_eq(x->pool + p->name, y->pool + q->name);
		ck_assert(!x->reach || x->reach[i] == y->reach[i]);
	}
	for (i = 0; i < x->npids; i++)
		ck_assert(x->pids[i].pid == y->pids[i].pid && x->pids[i].first == y->pids[i].first &&
			  x->pids[i].count == y->pids[i].count && x->pids[i].max_size == y->pids[i].max_size);
	ck_assert_uint_eq(u->nm, v->nm);
	ck_assert_uint_eq(u->nmod, v->nmod);
	ck_assert_uint_eq(u->max_size, v->max_size);
	for (i = 0; i < u->nm; i++) {
		const struct etl_method *p = &u->m[i], *q = &v->m[i];
		ck_assert(p->start == q->start && p->module == q->module && p->from == q->from && p->to == q->to);
		ck_assert(p->size == q->size && p->pid == q->pid);
		ck_assert_str_eq(u->pool + p->name, v->pool + q->name);
		ck_assert(!u->reach || u->reach[i] == v->reach[i]);
	}
	for (i = 0; i < u->nmod; i++)
		ck_assert(u->mod[i].pid == v->mod[i].pid && u->mod[i].id == v->mod[i].id);
}

/* The index made on several threads - its parts loaded apart, then its stack records sorted here
 * while the image and .NET method histories are finished on threads of their own - equals the
 * one-thread pass's, on every corpus trace (TraceLoggingTester's 46,628 image records and
 * perfview_net's methods are past the size where the histories get threads). */
START_TEST(corpus_indexes_made_on_threads_alike)
{
	char dir[4096], path[8192];
	DIR *dh;
	struct dirent *de;
	size_t tried = 0, threaded = 0;

	if (!(dh = open_corpus(dir, sizeof(dir))))
		return;
	while ((de = readdir(dh)) != NULL) {
		struct etl_reader *r = etl_reader_new();
		struct etl_stacks a, b;
		struct trace *t;
		int compressed;
		if (de->d_name[0] == '.')
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (etl_reader_open_path(r, path) != ETL_OK || r->ntraces < 1 || r->traces[0]->ix.buffers < 2)
			goto next;
		t = r->traces[0];
		compressed = (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		etl__stacks_load_threads(&a, &t->src, compressed, t->info.compression_format, &t->ix, t->ptr_size,
					 MAX_BYTES, 0, NULL);
		etl__stacks_load_threads(&b, &t->src, compressed, t->info.compression_format, &t->ix, t->ptr_size,
					 MAX_BYTES, 3, NULL);
		assert_records_equal_apart(&a, &b);
		assert_histories_equal(&a, &b);
		threaded += a.images.nimg >= 4096 || a.methods.nm >= 4096;
		etl__stacks_free(&a);
		etl__stacks_free(&b);
		tried++;
	next:
		etl_reader_free(r);
	}
	closedir(dh);
	if (tried)
		ck_assert_uint_ge(threaded, 1);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("stackindex");
	TCase *t = tcase_create("stackindex"), *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_loop_test(t, writer_traces_index_alike, 0, 2);
	tcase_add_test(t, a_message_owns_the_stack_records_after_it);
	tcase_add_test(t, frames_inside_large_images_and_methods);
	tcase_add_test(t, frames_at_the_top_of_the_methods);
	tcase_add_test(t, frames_at_the_top_of_the_images);
	tcase_add_test(c, corpus_traces_index_alike);
	tcase_add_test(c, corpus_indexes_made_on_threads_alike);
	tcase_set_timeout(t, 600);
	tcase_set_timeout(c, 600);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/etl", corpus_dir);
	return run_part(s, c, probe);
}
