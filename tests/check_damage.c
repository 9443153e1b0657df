/*
 * check_damage.c - damage recovery, proven: traces are truncated at every
 * buffer boundary and at random points, buffer headers zeroed, bytes
 * flipped inside one buffer, record sizes inflated; after each, every event
 * of every untouched buffer must still be delivered, and the error must
 * name the right offset.  Over the writer's fixtures and, where present,
 * small corpus traces (plain and compressed).
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "io/source.h"
#include "scenario.h"
#include "util/cursor.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

struct ev_id {
	uint64_t file_offset;
	uint32_t buffer_offset;
};

struct buf {
	uint64_t off, size;
};

struct trace {
	const char *name;
	uint8_t *data;
	size_t len;
	struct buf bufs[4096];
	size_t nbufs;
	struct ev_id *events; /* of the intact trace */
	size_t nevents;
};

struct result {
	struct ev_id *events;
	size_t n, errors;
	uint64_t first_err_offset;
	int first_err_code;
	char first_err[256];
	int fatal;
	int said; /* some error's message held the text looked for (`look_for`) */
};

static const char *look_for; /* a message run() looks for in every error it meets */

static int cmp_id(const void *a, const void *b)
{
	const struct ev_id *x = a, *y = b;
	if (x->file_offset != y->file_offset)
		return x->file_offset < y->file_offset ? -1 : 1;
	return x->buffer_offset < y->buffer_offset ? -1 : x->buffer_offset > y->buffer_offset;
}

static void run(const uint8_t *d, size_t len, struct result *res)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	size_t cap = 1024;
	int st;

	memset(res, 0, sizeof(*res));
	res->first_err_offset = UINT64_MAX;
	res->events = malloc(cap * sizeof(*res->events));
	if (etl_reader_open_memory(r, d, len, "damaged") != ETL_OK) {
		etl_reader_free(r);
		res->errors = 1;
		return;
	}
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			const struct etl_error *e = etl_reader_error(r);
			if (res->errors++ == 0) {
				res->first_err_offset = etl_error_offset(e);
				res->first_err_code = etl_error_code(e);
				snprintf(res->first_err, sizeof(res->first_err), "%s", etl_error_message(e));
			}
			if (look_for && strstr(etl_error_message(e), look_for))
				res->said = 1;
			ck_assert(strlen(etl_error_message(e)) > 0);
			if (etl_error_is_fatal(e)) {
				res->fatal = 1;
				break;
			}
			continue;
		}
		{
			/* decoding must survive damage too */
			const struct etl_decoded *dec;
			(void)etl_reader_decode(r, ev, &dec);
		}
		if (res->n == cap) {
			cap *= 2;
			res->events = realloc(res->events, cap * sizeof(*res->events));
		}
		res->events[res->n].file_offset = etl_event_file_offset(ev);
		res->events[res->n].buffer_offset = etl_event_buffer_offset(ev);
		res->n++;
	}
	etl_reader_free(r);
	qsort(res->events, res->n, sizeof(*res->events), cmp_id);
}

static int delivered(const struct result *res, const struct ev_id *id)
{
	return bsearch(id, res->events, res->n, sizeof(*res->events), cmp_id) != NULL;
}

/* The intact events whose buffer lies wholly outside [lo, hi) must all be delivered. */
static void expect_untouched(const struct trace *t, const struct result *res, uint64_t lo, uint64_t hi,
			     const char *what)
{
	size_t i, b;

	for (i = 0; i < t->nevents; i++) {
		const struct ev_id *id = &t->events[i];
		for (b = 0; b < t->nbufs; b++)
			if (id->file_offset >= t->bufs[b].off && id->file_offset < t->bufs[b].off + t->bufs[b].size)
				break;
		ck_assert_uint_lt(b, t->nbufs);
		if (t->bufs[b].off + t->bufs[b].size <= lo || t->bufs[b].off >= hi)
			ck_assert_msg(delivered(res, id), "%s: %s: event at 0x%llx+0x%x of an untouched buffer lost",
				      t->name, what, (unsigned long long)id->file_offset, (unsigned)id->buffer_offset);
	}
}

static void load_trace(struct trace *t, const char *name, uint8_t *data, size_t len)
{
	struct result res;
	uint64_t off = 0;

	t->name = name;
	t->data = data;
	t->len = len;
	t->nbufs = 0;
	while (off + 0x48 <= len && t->nbufs < 4096) {
		uint32_t size = etl_le32(data + off);
		if (size < 0x48 || size > len - off)
			break;
		t->bufs[t->nbufs].off = off;
		t->bufs[t->nbufs].size = size;
		t->nbufs++;
		off += size;
	}
	run(data, len, &res);
	ck_assert_uint_eq(res.errors, 0);
	t->events = res.events;
	t->nevents = res.n;
	ck_assert_uint_gt(t->nevents, 0);
}

static uint32_t rnd(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

static void damage_everything(struct trace *t)
{
	uint8_t *c = malloc(t->len);
	struct result res;
	uint32_t x = 12345;
	size_t b, k;

	/* 1. truncation at every buffer boundary: the earlier buffers whole, and one error at the
	 *    file's end (the logfile header says how many buffers were written) */
	for (b = 1; b < t->nbufs; b++) {
		run(t->data, (size_t)t->bufs[b].off, &res);
		ck_assert(!res.fatal);
		ck_assert_uint_eq(res.errors, 1);
		ck_assert_uint_eq(res.first_err_offset, t->bufs[b].off);
		expect_untouched(t, &res, t->bufs[b].off, UINT64_MAX, "cut at a buffer boundary");
		free(res.events);
	}
	/* 2. truncation at random points: every buffer before the cut whole; the error names the
	 *    cut buffer (or the trailing bytes) */
	for (k = 0; k < 40; k++) {
		size_t cut = t->bufs[0].size + rnd(&x) % (t->len - t->bufs[0].size);
		run(t->data, cut, &res);
		ck_assert(!res.fatal);
		for (b = 0; b < t->nbufs && t->bufs[b].off + t->bufs[b].size <= cut; b++)
			;
		if (b < t->nbufs && t->bufs[b].off < cut) {
			ck_assert_uint_ge(res.errors, 1);
			ck_assert_uint_eq(res.first_err_offset, t->bufs[b].off);
		}
		expect_untouched(t, &res, b < t->nbufs ? t->bufs[b].off : UINT64_MAX, UINT64_MAX, "random cut");
		free(res.events);
	}
	/* 3. a zeroed buffer header costs that buffer only */
	for (b = 1; b < t->nbufs && b < 24; b++) {
		memcpy(c, t->data, t->len);
		memset(c + t->bufs[b].off, 0, 0x48);
		run(c, t->len, &res);
		ck_assert(!res.fatal);
		if (b + 1 < t->nbufs) { /* (zeros at the very end read as unwritten space) */
			ck_assert_uint_ge(res.errors, 1);
			ck_assert_uint_eq(res.first_err_offset, t->bufs[b].off);
		}
		expect_untouched(t, &res, t->bufs[b].off, t->bufs[b].off + t->bufs[b].size, "zeroed header");
		free(res.events);
	}
	/* 4. random bytes flipped inside one buffer (past its header): the others are untouched */
	for (k = 0; k < 40 && t->nbufs > 1; k++) {
		size_t i;
		b = 1 + rnd(&x) % (t->nbufs - 1);
		memcpy(c, t->data, t->len);
		for (i = 0; i < 1 + rnd(&x) % 8; i++) {
			uint64_t at = t->bufs[b].off + 0x48 + rnd(&x) % (t->bufs[b].size - 0x48);
			c[at] ^= (uint8_t)(1 + rnd(&x) % 255);
		}
		run(c, t->len, &res);
		ck_assert(!res.fatal);
		expect_untouched(t, &res, t->bufs[b].off, t->bufs[b].off + t->bufs[b].size, "flipped bytes");
		free(res.events);
	}
	/* 5. an inflated size field in the first record of a buffer (uncompressed buffers) */
	for (b = 1; b < t->nbufs && b < 24; b++) {
		uint8_t *rec = c + t->bufs[b].off + 0x48;
		uint32_t m;
		if (etl_le16(t->data + t->bufs[b].off + 0x34) & 0x40)
			continue;
		memcpy(c, t->data, t->len);
		m = etl_le32(rec);
		if (m == 0xFFFFFFFFu)
			continue;
		if ((m & 0xC0000000u) == 0xC0000000u && (((m >> 16) & 0xFF) <= 4 || ((m >> 16) & 0xFF) == 0x10 ||
							  ((m >> 16) & 0xFF) == 0x11)) {
			rec[4] = 0xF0;
			rec[5] = 0xFF;
		} else {
			rec[0] = 0xF0;
			rec[1] = 0xFF;
		}
		run(c, t->len, &res);
		ck_assert(!res.fatal);
		ck_assert_uint_ge(res.errors, 1);
		ck_assert_uint_eq(res.first_err_offset, t->bufs[b].off + 0x48);
		expect_untouched(t, &res, t->bufs[b].off, t->bufs[b].off + t->bufs[b].size, "inflated size");
		free(res.events);
	}
	free(c);
}

static void free_trace(struct trace *t)
{
	free(t->events);
}

START_TEST(writer_fixtures)
{
	static const char *const names[] = { "mixed64", "mixed32", "compressed64", "win7cpu" };
	struct etlw_opts o;
	struct trace *t = calloc(1, sizeof(*t));
	uint8_t *d;
	size_t len;

	etlw_default_opts(&o);
	o.ncpu = 4;
	o.header_extra = 1;
	switch (_i) {
	case 1: o.ptr_size = 4; break;
	case 2: o.compress = 1; o.buffer_size = 8192; break;
	case 3: o.old_cpu_field = 1; o.ncpu = 3; break;
	default: break;
	}
	ck_assert_int_eq(scen_build_mixed(&o, 500, &d, &len), 0);
	load_trace(t, names[_i], d, len);
	damage_everything(t);
	free_trace(t);
	free(t);
	free(d);
}
END_TEST

static const char *const corpus_files[] = {
	"s4_SIH.20230422.034724.362.1.etl", "s4_WindowsUpdate.20251008.140245.443.8.etl",
	"perfview_primitive-types.etl", "airbus-etl-parser_lxcore_kernel.etl", "Tx_WsRm01.etl",
	"perfview_SelfDescribingSingleEvent.etl", "perfview_gcevents_PerfViewData.etl",
	"sawbuck_log_lib_image_data_32_v1.etl",
};

START_TEST(corpus_traces)
{
	char path[4096];
	struct etl_diag diag;
	size_t n;
	uint8_t *d;
	struct trace *t = calloc(1, sizeof(*t));

	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, corpus_files[_i]);
	ck_assert_int_eq(etl__read_file(path, 1u << 30, "trace", &d, &n, &diag), ETL_OK);
	load_trace(t, corpus_files[_i], d, n);
	damage_everything(t);
	free_trace(t);
	free(t);
	free(d);
}
END_TEST

/* ROBUSTNESS.md, issue 15: silent loss.  A trace from the writer (*d, *len), its events when
 * intact, and - unless c is NULL - *c, a copy of its bytes with room for extra more, to damage;
 * close_case frees them. */
static struct trace *silent_loss_case(uint8_t **d, size_t *len, uint8_t **c, size_t extra)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct etlw_opts o;

	etlw_default_opts(&o);
	o.ncpu = 2;
	ck_assert_int_eq(scen_build_mixed(&o, 200, d, len), 0);
	load_trace(t, "silent-loss", *d, *len);
	ck_assert_uint_gt(t->nbufs, 3);
	if (c) {
		*c = malloc(*len + extra);
		memcpy(*c, *d, *len);
	}
	return t;
}

static void close_case(struct trace *t, uint8_t *d, uint8_t *c)
{
	free(c);
	free_trace(t);
	free(t);
	free(d);
}

/* Data buffers whose Offset is 0: every event is still delivered (the records are read to the
 * buffer's end) and each buffer reports its damaged header - not a quiet fallback that drops the
 * events past SavedOffset. */
START_TEST(offset_zero_loses_nothing)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, b, i;

	t = silent_loss_case(&d, &len, &c, 0);
	for (b = 1; b < t->nbufs; b++) {
		memset(c + t->bufs[b].off + 0x30, 0, 4);                 /* Offset */
		c[t->bufs[b].off + 0x04] = (uint8_t)(0x48 + 8 * (b & 3)); /* a SavedOffset that hides records */
		c[t->bufs[b].off + 0x05] = 0;
		c[t->bufs[b].off + 0x06] = 0;
		c[t->bufs[b].off + 0x07] = 0;
	}
	run(c, len, &res);
	ck_assert_uint_eq(res.n, t->nevents);
	for (i = 0; i < t->nevents; i++)
		ck_assert(delivered(&res, &t->events[i]));
	ck_assert_uint_eq(res.errors, t->nbufs - 1);
	ck_assert_uint_eq(res.first_err_offset, t->bufs[1].off + 0x30);
	free(res.events);
	close_case(t, d, c);
}
END_TEST

/* One bit flipped in the high byte of the header buffer's BufferType: the first record is still
 * the logfile header, so the trace is read - every event - with the damage reported. */
START_TEST(header_type_bit_flip_is_salvaged)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len;

	t = silent_loss_case(&d, &len, &c, 0);
	c[0x37] ^= 0x04;
	run(c, len, &res);
	ck_assert_uint_eq(res.n, t->nevents);
	ck_assert_uint_eq(res.errors, 1);
	ck_assert_uint_eq(res.first_err_offset, 0x36);
	c[0x48 + 6] = 0x01; /* and with no logfile header either: not a trace */
	free(res.events);
	run(c, len, &res);
	ck_assert_uint_eq(res.n, 0);
	free(res.events);
	close_case(t, d, c);
}
END_TEST

/* An end-of-buffer marker in the middle of a buffer's records: reported, and the records after it
 * still delivered (found again by resynchronising). */
START_TEST(end_marker_mid_buffer_is_reported)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, i, hit = SIZE_MAX, after = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	/* the third event of the second data buffer */
	for (i = 0; i < t->nevents; i++)
		if (t->events[i].file_offset >= t->bufs[2].off && t->events[i].file_offset < t->bufs[2].off + t->bufs[2].size &&
		    ++after == 3) {
			hit = i;
			break;
		}
	ck_assert_uint_ne(hit, SIZE_MAX);
	memset(c + t->events[hit].file_offset, 0xFF, 4);
	run(c, len, &res);
	ck_assert_uint_ge(res.errors, 1);
	ck_assert_uint_eq(res.first_err_offset, t->events[hit].file_offset);
	ck_assert_uint_eq(res.n, t->nevents - 1); /* only the record whose marker was overwritten */
	free(res.events);
	close_case(t, d, c);
}
END_TEST


/* Issue 38: silent losses at the buffer level.  Each damage below lost events with exit 0 and
 * nothing said; now every event is delivered (or the one the damage hit), and it is said. */

/* A data buffer whose Offset is the header's own size (72) hid all its records. */
START_TEST(data_offset_72_keeps_the_records)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, b, i;

	t = silent_loss_case(&d, &len, &c, 0);
	for (b = 1; b < t->nbufs; b++) {
		memcpy(c, d, len);
		c[t->bufs[b].off + 0x30] = 0x48;
		c[t->bufs[b].off + 0x31] = 0;
		look_for = "ends the records, but";
		run(c, len, &res);
		look_for = NULL;
		ck_assert_uint_eq(res.n, t->nevents);
		for (i = 0; i < t->nevents; i++)
			ck_assert(delivered(&res, &t->events[i]));
		ck_assert_uint_eq(res.errors, 1);
		ck_assert_uint_eq(res.first_err_offset, t->bufs[b].off + 0x30);
		ck_assert(res.said);
		free(res.events);
	}
	close_case(t, d, c);
}
END_TEST

/* One damaged field of the header buffer refused the trace (Offset 72, the logfile record's
 * size) or lost every buffer after it (its BufferSize, or the logfile header's, off by 8). */
static void header_damage(const struct trace *t, const uint8_t *d, size_t len, size_t at, uint32_t value,
			  unsigned width, size_t lost, uint64_t err_at, const char *said)
{
	uint8_t *c = malloc(len);
	struct result res;
	unsigned i;

	memcpy(c, d, len);
	for (i = 0; i < width; i++)
		c[at + i] = (uint8_t)(value >> (8 * i));
	look_for = said;
	run(c, len, &res);
	look_for = NULL;
	ck_assert_msg(res.n == t->nevents - lost, "field at 0x%zx = %u: %zu of %zu events (%s)", at, (unsigned)value,
		      res.n, t->nevents, res.first_err);
	ck_assert(!res.fatal);
	ck_assert_uint_ge(res.errors, 1);
	ck_assert_uint_eq(res.first_err_offset, err_at);
	ck_assert_msg(res.said, "field at 0x%zx: no error says \"%s\" (first: %s)", at, said, res.first_err);
	free(res.events);
	free(c);
}

START_TEST(header_buffer_damage_is_tolerated)
{
	struct trace *t;
	uint8_t *d;
	size_t len;
	uint32_t size;

	t = silent_loss_case(&d, &len, NULL, 0);
	size = etl_le32(d);
	ck_assert_uint_eq(size, etl_le32(d + t->bufs[1].off));
	header_damage(t, d, len, 0x30, 0x48, 4, 0, 0x30, "Offset 72 ends the records");
	/* the logfile header's record (a system header: its size after the marker); that record is
	 * lost as an event, and its damage reported where the header buffer's records are read */
	header_damage(t, d, len, 0x48 + 4, 8, 2, 1, 0x4C, "logfile header: record size 8 is damaged");
	header_damage(t, d, len, 0, size + 8, 4, 0, 0, "header buffer: BufferSize");
	header_damage(t, d, len, 0, size - 8, 4, 0, 0, "header buffer: BufferSize");
	header_damage(t, d, len, 0x48 + 0x20, size + 8, 4, 0, 0x48, "logfile header: BufferSize");
	/* the mutation campaign's: a BufferSize too small or past the limit, an Offset past it, and an
	 * Offset short by 8 (it cut the logfile header's record) */
	header_damage(t, d, len, 0, 8, 4, 0, 0, "header buffer: BufferSize 8 is damaged");
	header_damage(t, d, len, 0, 72, 4, 0, 0, "header buffer: BufferSize 72 is damaged");
	header_damage(t, d, len, 0, size | 0x40000000u, 4, 0, 0, "where the next buffer starts");
	header_damage(t, d, len, 0x30, etl_le32(d + 0x30) | 0x400000u, 4, 0, 0x30, "is past its BufferSize");
	header_damage(t, d, len, 0x30, etl_le32(d + 0x30) - 8, 4, 0, 0x30, "records read to the buffer's end");
	close_case(t, d, NULL);
}
END_TEST

/* The same in a compressed trace, whose header buffer is as long as its records (rounded up) and
 * whose logfile header's BufferSize bounds what each buffer decompresses to. */
START_TEST(compressed_header_buffer_damage_is_tolerated)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct etlw_opts o;
	uint8_t *d;
	size_t len;
	uint32_t size;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.compress = 1;
	ck_assert_int_eq(scen_build_mixed(&o, 200, &d, &len), 0);
	load_trace(t, "compressed", d, len);
	size = etl_le32(d);
	ck_assert_uint_lt(size, o.buffer_size);
	header_damage(t, d, len, 0, size + 8, 4, 0, 0, "where the next buffer starts");
	header_damage(t, d, len, 0, 8, 4, 0, 0, "header buffer: BufferSize 8 is damaged");
	header_damage(t, d, len, 0x48 + 0x20, 1024, 4, 0, 0x48, "bounded by the buffer-size limit");
	{ /* a BufferSize the first data buffer fits in but a later one does not: that buffer (and
	     every one after it) is read, not skipped, and the mismatch said */
		uint32_t first = etl_le32(d + t->bufs[1].off + 0x30);
		size_t b = 2;
		while (b < t->nbufs && etl_le32(d + t->bufs[b].off + 0x30) <= first)
			b++;
		ck_assert_uint_lt(b, t->nbufs);
		header_damage(t, d, len, 0x48 + 0x20, first, 4, 0, t->bufs[b].off, "(one of them is damaged): the buffer is read");
	}
	free_trace(t);
	free(t);
	free(d);
}
END_TEST

/* A trace cut at a buffer boundary read as a shorter intact one. */
START_TEST(cut_at_a_buffer_boundary_says_what_is_missing)
{
	struct trace *t;
	struct result res;
	uint8_t *d;
	size_t len;
	char want[128];

	t = silent_loss_case(&d, &len, NULL, 0);
	snprintf(want, sizeof(want), "the last %zu are missing", t->nbufs - 2);
	look_for = want;
	run(d, (size_t)t->bufs[2].off, &res);
	look_for = NULL;
	ck_assert_uint_eq(res.errors, 1);
	ck_assert_int_eq(res.first_err_code, ETL_E_TRUNCATED);
	ck_assert_uint_eq(res.first_err_offset, t->bufs[2].off);
	ck_assert_msg(res.said, "%s", res.first_err);
	free(res.events);
	close_case(t, d, NULL);
}
END_TEST

/* Where a record with marker m keeps its size: after the marker for the system, compact and
 * PerfInfo headers, else in the marker's low half. */
static size_t size_field(uint32_t m)
{
	unsigned ht = (m >> 16) & 0xFF;

	return (m & 0xC0000000u) == 0xC0000000u && (ht <= 4 || ht == 0x10 || ht == 0x11) ? 4 : 0;
}

/* Sets the size of the record at a of copy c (whose marker, read from the intact d, has its size
 * where size_field says) to v. */
static void set_size(uint8_t *c, const uint8_t *d, uint64_t a, size_t v)
{
	size_t at = a + size_field(etl_le32(d + a));

	c[at] = (uint8_t)v;
	c[at + 1] = (uint8_t)(v >> 8);
}

/* A record whose size takes in the next record (its own padded length plus the next one's) hid
 * that record. */
START_TEST(swallowed_record_is_said_and_delivered)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, i, tried = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	for (i = 0; i + 1 < t->nevents && tried < 12; i += 7) {
		uint64_t a = t->events[i].file_offset, b = t->events[i + 1].file_offset;
		uint32_t m = etl_le32(d + a);
		size_t at = a + size_field(m), own = etl_le16(d + at), next;
		if (b != a + ((own + 7) & ~(size_t)7) || (etl_le32(d + b) & 0xC0000000u) != 0xC0000000u)
			continue; /* not adjacent records of one buffer, or the next is not a simple one */
		next = etl_le16(d + b + size_field(etl_le32(d + b)));
		memcpy(c, d, len);
		set_size(c, d, a, b - a + next);
		look_for = "swallowed the next record";
		run(c, len, &res);
		look_for = NULL;
		ck_assert_msg(res.n == t->nevents, "record at 0x%llx (marker 0x%08x, size %zu) swallowing 0x%llx (%zu): %zu of %zu events, %s",
			      (unsigned long long)a, (unsigned)m, own, (unsigned long long)b, next, res.n, t->nevents, res.first_err);
		ck_assert_uint_eq(res.errors, 1);
		ck_assert_uint_eq(res.first_err_offset, a);
		ck_assert(res.said);
		free(res.events);
		tried++;
	}
	ck_assert_uint_ge(tried, 6);
	close_case(t, d, c);
}
END_TEST

/* A record size so damaged that the reader must look for the next record: bytes inside the
 * damaged record that parse as a record (here a copy of the next one, then bytes that are no
 * record) are not taken - no record follows them - but the next real record is, which the one
 * after it follows.  (Taking the first bytes that parsed delivered such a copy as an event; in
 * a corpus trace's mutant it took in the seven real records after it.) */
START_TEST(resync_takes_a_record_that_another_follows)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, i, k, tried = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	for (i = 0; i + 2 < t->nevents && tried < 6; i++) {
		uint64_t a = t->events[i].file_offset, b = t->events[i + 1].file_offset;
		uint64_t n = t->events[i + 2].file_offset, q = (a + 16 + 7) & ~(uint64_t)7;
		uint32_t ma = etl_le32(d + a), mb = etl_le32(d + b);
		size_t own, blen;
		struct ev_id copy = { 0, 0 };

		if (!size_field(ma) || !size_field(mb))
			continue;
		own = etl_le16(d + a + size_field(ma));
		blen = etl_le16(d + b + size_field(mb));
		if (b != a + ((own + 7) & ~(size_t)7) || n != b + ((blen + 7) & ~(size_t)7) ||
		    q + ((blen + 7) & ~(size_t)7) + 8 > b)
			continue; /* not three adjacent records, or no room in the first for a copy of the next */
		memcpy(c, d, len);
		memcpy(c + q, d + b, blen);                                        /* the copy */
		memset(c + q + blen, 0x5A, (size_t)(b - q - blen));                /* no record after it */
		set_size(c, d, a, 0xFFFF);                                         /* past the buffer */
		run(c, len, &res);
		ck_assert_msg(res.n == t->nevents - 1, "record at 0x%llx: %zu of %zu events, %zu errors (%s)",
			      (unsigned long long)a, res.n, t->nevents, res.errors, res.first_err);
		ck_assert_uint_eq(res.errors, 1);
		ck_assert_uint_eq(res.first_err_offset, a);
		for (k = 0; k < t->nevents; k++)
			ck_assert(k == i || delivered(&res, &t->events[k]));
		copy.file_offset = q;
		copy.buffer_offset = t->events[i].buffer_offset + (uint32_t)(q - a);
		ck_assert(!delivered(&res, &copy));
		free(res.events);
		tried++;
	}
	ck_assert_uint_ge(tried, 3);
	close_case(t, d, c);
}
END_TEST

/* The last event of buffer b (the writer's records end at its Offset): its index in t->events. */
static size_t last_event_of(const struct trace *t, size_t b)
{
	size_t i, last = SIZE_MAX;

	for (i = 0; i < t->nevents; i++)
		if (t->events[i].file_offset >= t->bufs[b].off && t->events[i].file_offset < t->bufs[b].off + t->bufs[b].size)
			last = i;
	ck_assert_uint_ne(last, SIZE_MAX);
	return last;
}

/* A record size grown past the buffer's Offset (into the padding after it) took in the records
 * after it: the reader took the Offset for short and read on to the buffer's end (a corpus
 * trace's mutant lost four records so).  Now a record that ends where Offset does shows the size
 * is the damage: that record alone is lost, said at its offset. */
START_TEST(size_grown_past_offset_costs_its_record)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, b, i, k, tried = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	for (b = 1; b < t->nbufs && tried < 4; b++) {
		uint64_t off = t->bufs[b].off, filled = etl_le32(d + off + 0x30);
		size_t last = last_event_of(t, b);
		if (filled + 64 > t->bufs[b].size || last < 3)
			continue;
		for (i = last - 3; i < last; i++) { /* three records before the buffer's last */
			uint64_t a = t->events[i].file_offset;
			uint32_t m = etl_le32(d + a);
			size_t grown = (size_t)(off + filled - a) + 32;
			if (!size_field(m) || grown > 0xFFFF)
				continue;
			memcpy(c, d, len);
			set_size(c, d, a, grown);
			run(c, len, &res);
			ck_assert_msg(res.n == t->nevents - 1, "record at 0x%llx grown to %zu: %zu of %zu events (%s)",
				      (unsigned long long)a, grown, res.n, t->nevents, res.first_err);
			for (k = 0; k < t->nevents; k++)
				ck_assert(k == i || delivered(&res, &t->events[k]));
			ck_assert_uint_eq(res.errors, 1);
			ck_assert_uint_eq(res.first_err_offset, a);
			free(res.events);
			tried++;
		}
	}
	ck_assert_uint_ge(tried, 3);
	close_case(t, d, c);
}
END_TEST

/* Two sizes grown past the Offset in one buffer: the second is judged from what the first's
 * look through the buffer found (a buffer is looked through once), and costs its record alone. */
START_TEST(two_sizes_grown_past_offset_cost_two_records)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, b, k, tried = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	for (b = 1; b < t->nbufs && tried < 2; b++) {
		uint64_t off = t->bufs[b].off, filled = etl_le32(d + off + 0x30);
		size_t last = last_event_of(t, b), hit[2] = { SIZE_MAX, SIZE_MAX }, i, h = 0;
		if (filled + 64 > t->bufs[b].size)
			continue;
		for (i = last; i-- > 0 && h < 2 && t->events[i].file_offset >= off;) {
			uint32_t m = etl_le32(d + t->events[i].file_offset);
			if (size_field(m) && (h == 0 || i + 2 <= hit[0]))
				hit[h++] = i; /* simple records, not the last, one between */
		}
		if (h < 2)
			continue;
		memcpy(c, d, len);
		for (h = 0; h < 2; h++) {
			uint64_t a = t->events[hit[h]].file_offset;
			size_t grown = (size_t)(off + filled - a) + 16;
			ck_assert_uint_le(grown, 0xFFFF);
			set_size(c, d, a, grown);
		}
		run(c, len, &res);
		ck_assert_msg(res.n == t->nevents - 2, "buffer %zu: %zu of %zu events (%s)", b, res.n, t->nevents, res.first_err);
		for (k = 0; k < t->nevents; k++)
			ck_assert(k == hit[0] || k == hit[1] || delivered(&res, &t->events[k]));
		ck_assert_uint_eq(res.errors, 2);
		ck_assert_uint_eq(res.first_err_offset, t->events[hit[1]].file_offset);
		free(res.events);
		tried++;
	}
	ck_assert_uint_ge(tried, 1);
	close_case(t, d, c);
}
END_TEST

/* An Offset that cuts a buffer's last record, whose bytes past the cut are zero (so they look
 * like padding): the Offset is the damage, said at its field, and the record is still read. */
START_TEST(offset_cutting_the_last_record_is_said)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, b, tried = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	for (b = 1; b < t->nbufs && tried < 4; b++) {
		uint64_t off = t->bufs[b].off, filled = etl_le32(d + off + 0x30);
		uint64_t a = t->events[last_event_of(t, b)].file_offset;
		uint32_t cut = (uint32_t)(a - off) + 8;
		if (off + filled < a + 24)
			continue; /* (a record with bytes to cut) */
		memcpy(c, d, len);
		memset(c + off + cut, 0, (size_t)(off + filled - (off + cut)));
		etl_put_le32(c + off + 0x30, cut);
		look_for = "cuts the record";
		run(c, len, &res);
		look_for = NULL;
		ck_assert_msg(res.n == t->nevents, "buffer %zu cut at 0x%x: %zu of %zu events (%s)", b, (unsigned)cut,
			      res.n, t->nevents, res.first_err);
		ck_assert_uint_eq(res.errors, 1);
		ck_assert_uint_eq(res.first_err_offset, off + 0x30);
		ck_assert(res.said);
		free(res.events);
		tried++;
	}
	ck_assert_uint_ge(tried, 3);
	close_case(t, d, c);
}
END_TEST

/* Bytes inserted into a buffer cost that buffer's records, not every buffer after it: the
 * buffers are found again at any 8-byte offset. */
START_TEST(inserted_bytes_cost_their_buffer)
{
	static const size_t counts[] = { 8, 24, 512, 4096 + 8 };
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, k, i;

	t = silent_loss_case(&d, &len, &c, 8192);
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		size_t at = (size_t)t->bufs[2].off + 0x100, n = counts[k];
		memcpy(c, d, at);
		memset(c + at, 0x5A, n);
		memcpy(c + at + n, d + at, len - at);
		run(c, len + n, &res);
		ck_assert(!res.fatal);
		ck_assert_uint_ge(res.errors, 1);
		for (i = 0; i < t->nevents; i++) {
			struct ev_id id = t->events[i];
			if (id.file_offset >= t->bufs[2].off && id.file_offset < t->bufs[3].off)
				continue; /* the buffer the bytes went into */
			if (id.file_offset >= t->bufs[3].off)
				id.file_offset += n;
			ck_assert_msg(delivered(&res, &id), "%zu bytes inserted: the event at 0x%llx lost", n,
				      (unsigned long long)t->events[i].file_offset);
		}
		free(res.events);
	}
	close_case(t, d, c);
}
END_TEST

/* ---- hostile input, round 4 (issue 71) ---- */

/* How many of t's events lie in buffer b. */
static size_t events_in(const struct trace *t, size_t b)
{
	size_t i, n = 0;

	for (i = 0; i < t->nevents; i++)
		n += t->events[i].file_offset >= t->bufs[b].off && t->events[i].file_offset < t->bufs[b].off + t->bufs[b].size;
	return n;
}

/* A buffer copied in again is said and its events delivered once; copied over another buffer,
 * the buffer it replaced is said to be lost (its sequence number missing).  Before, both were
 * silent: the copy's events came out twice, exit 0. */
START_TEST(repeated_buffer_is_delivered_once)
{
	enum { A = 1, B = 4 }; /* buffer A copied before, then over, buffer B */
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, i;

	t = silent_loss_case(&d, &len, &c, 65536);
	ck_assert_uint_gt(t->nbufs, B + 1);
	ck_assert_uint_eq(t->bufs[A].size, t->bufs[B].size);
	/* inserted: a copy of buffer 2 before buffer 5 */
	memcpy(c, d, (size_t)t->bufs[B].off);
	memcpy(c + t->bufs[B].off, d + t->bufs[A].off, (size_t)t->bufs[A].size);
	memcpy(c + t->bufs[B].off + t->bufs[A].size, d + t->bufs[B].off, len - (size_t)t->bufs[B].off);
	look_for = "repeats buffer 1";
	run(c, len + (size_t)t->bufs[A].size, &res);
	ck_assert_msg(res.n == t->nevents, "%zu events, %zu intact", res.n, t->nevents);
	ck_assert_uint_eq(res.errors, 1);
	ck_assert(res.said);
	ck_assert_uint_eq(res.first_err_offset, t->bufs[B].off);
	free(res.events);
	/* written over buffer 5: its events are lost, and said */
	memcpy(c, d, len);
	memcpy(c + t->bufs[B].off, d + t->bufs[A].off, (size_t)t->bufs[A].size);
	look_for = "written over";
	run(c, len, &res);
	ck_assert_uint_eq(res.n, t->nevents - events_in(t, B));
	ck_assert_uint_eq(res.errors, 2);
	ck_assert(res.said);
	for (i = 0; i < t->nevents; i++)
		if (t->events[i].file_offset < t->bufs[B].off || t->events[i].file_offset >= t->bufs[B + 1].off)
			ck_assert(delivered(&res, &t->events[i]));
	free(res.events);
	look_for = NULL;
	close_case(t, d, c);
}
END_TEST

/* Bytes inserted or lost in a buffer, in any number (not a multiple of 8): only that buffer's
 * records are at stake - the next buffer header is looked for at every byte, before the
 * expected place too (bytes lost), the header buffer's included.  Before, every buffer after it
 * was lost (and, lost in the header buffer, the buffer after it). */
START_TEST(misaligned_bytes_cost_their_buffer)
{
	static const int counts[] = { 1, 3, 5, 13, -3, -5, -13 };
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, k, i, hit;

	t = silent_loss_case(&d, &len, &c, 64);
	ck_assert_uint_lt(etl_le32(d + 0x30) + 64, t->bufs[0].size); /* the header buffer has padding */
	for (hit = 0; hit <= 2; hit += 2)
		for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			size_t at = (size_t)t->bufs[hit].off + (hit ? 0x100 : (size_t)t->bufs[0].size - 24);
			size_t n = (size_t)(counts[k] < 0 ? -counts[k] : counts[k]);
			int64_t shift = counts[k];
			memcpy(c, d, at);
			if (counts[k] > 0) {
				memset(c + at, 0x5A, n);
				memcpy(c + at + n, d + at, len - at);
			} else {
				memcpy(c + at, d + at + n, len - at - n);
			}
			run(c, (size_t)((int64_t)len + shift), &res);
			ck_assert(!res.fatal);
			ck_assert_uint_ge(res.errors, 1);
			for (i = 0; i < t->nevents; i++) {
				struct ev_id id = t->events[i];
				if (id.file_offset < t->bufs[hit + 1].off)
					continue; /* before, or in, the buffer the bytes went into or came out of */
				id.file_offset = (uint64_t)((int64_t)id.file_offset + shift);
				ck_assert_msg(delivered(&res, &id), "%d bytes in buffer %zu: the event at 0x%llx lost",
					      counts[k], hit, (unsigned long long)t->events[i].file_offset);
			}
			free(res.events);
		}
	close_case(t, d, c);
}
END_TEST

/* A bit flipped high in a compressed data buffer's BufferSize: the size is checked against
 * where the next buffer header is, the buffer read to there - nothing lost.  Before, every
 * buffer the claimed size covered was skipped. */
START_TEST(compressed_size_checked_against_the_next_header)
{
	struct etlw_opts o;
	struct trace *t = calloc(1, sizeof(*t));
	struct result res;
	uint8_t *d, *c;
	size_t len, b = 2;
	unsigned bit, tried = 0;

	etlw_default_opts(&o);
	o.ncpu = 2;
	o.compress = 1;
	ck_assert_int_eq(scen_build_mixed(&o, 2000, &d, &len), 0);
	load_trace(t, "compressed", d, len);
	ck_assert_uint_gt(t->nbufs, 6);
	c = malloc(len);
	for (bit = 12; bit <= 24; bit++) {
		uint32_t size = etl_le32(d + t->bufs[b].off);
		if (size & (1u << bit))
			continue;
		memcpy(c, d, len);
		etlw_put32(c + t->bufs[b].off, size | 1u << bit);
		look_for = "runs past the next buffer header";
		run(c, len, &res);
		ck_assert_msg(res.n == t->nevents, "bit %u: %zu of %zu events (%s)", bit, res.n, t->nevents, res.first_err);
		ck_assert_uint_eq(res.errors, 1);
		ck_assert(res.said);
		ck_assert_uint_eq(res.first_err_offset, t->bufs[b].off);
		free(res.events);
		tried++;
	}
	ck_assert_uint_ge(tried, 8);
	look_for = NULL;
	free(c);
	free_trace(t);
	free(t);
	free(d);
}
END_TEST

/* A record size shrunk below its header, in a buffer whose records have ThreadId 0xFFFFFFFF 8
 * bytes in: the reader does not step into the record by that size (where the ThreadId reads as
 * an end marker), nor take a record that such a false end marker follows as a boundary.  The
 * damaged record alone is lost; before, the two after it were too, and bytes of the first were
 * delivered as an event. */
START_TEST(shrunk_size_reads_no_false_end)
{
	struct etlw_opts o;
	struct etlw *w;
	struct trace *t = calloc(1, sizeof(*t));
	struct result res;
	uint8_t *d, *c, p[48];
	size_t len, i, r = SIZE_MAX;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(p, 0x11, sizeof(p));
	for (i = 0; i < 40; i++) /* system records of 80 bytes, ThreadId and ProcessId 0xFFFFFFFF */
		ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x0524, 0xFFFFFFFF, 0xFFFFFFFF, o.start_ts + 10 + i, p, sizeof(p)), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	load_trace(t, "tid-1", d, len);
	for (i = 0; i + 3 < t->nevents && r == SIZE_MAX; i++)
		if (t->events[i].file_offset >= t->bufs[1].off && t->events[i + 3].file_offset == t->events[i].file_offset + 240)
			r = i + 1; /* (not the buffer's first: the damaged one follows another) */
	ck_assert_uint_ne(r, SIZE_MAX);
	c = malloc(len);
	memcpy(c, d, len);
	{
		uint64_t a = t->events[r].file_offset;
		etlw_put16(c + a + 4, 8);                 /* its size: 8, under the 32-byte header */
		memcpy(c + a + 32, "\x02\x00\x02\xc0", 4); /* and in its payload a "record" ending 8 */
		etlw_put16(c + a + 36, 160 + 8 - 32);     /* bytes into the record two after it */
		etlw_put16(c + a + 38, 0x7777);
	}
	run(c, len, &res);
	ck_assert_msg(res.n == t->nevents - 1, "%zu of %zu events (%s)", res.n, t->nevents, res.first_err);
	for (i = 0; i < t->nevents; i++)
		ck_assert(i == r || delivered(&res, &t->events[i]));
	free(res.events);
	free(c);
	free_trace(t);
	free(t);
	free(d);
}
END_TEST

/* Bytes that are not padding near the end of a buffer, far past its records: the buffer is read
 * to its end, and the padding between is one report, not one per 8 bytes (fuzz_reader found a
 * 196 KB input taking 17 s that way: each report scanned the rest of the buffer again). */
START_TEST(data_after_padding_is_one_report)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, i, b, filled = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	for (b = 1; b < t->nbufs; b++) /* a buffer with room after its records */
		if ((filled = etl_le32(d + t->bufs[b].off + 0x30)) + 256 < t->bufs[b].size)
			break;
	ck_assert_uint_lt(b, t->nbufs);
	for (i = filled; i < t->bufs[b].size; i++)
		c[t->bufs[b].off + i] = 0xFF;
	memset(c + t->bufs[b].off + t->bufs[b].size - 64, 0x5A, 8);
	run(c, len, &res);
	ck_assert_uint_eq(res.n, t->nevents);
	ck_assert_uint_ge(res.errors, 2);
	ck_assert_uint_le(res.errors, 4);
	ck_assert_uint_eq(res.first_err_offset, t->bufs[b].off + 0x30);
	free(res.events);
	close_case(t, d, c);
}
END_TEST

/* A size grown to end inside the buffer's last record, where that record's bytes are zero: what
 * follows the grown record looks like padding, but the buffer's Offset says records lie there.
 * The records it took in are lost, and that is said at the grown record's end.  Before, the
 * zeros were taken for padding, silently (a corpus trace's logfile header grown by 64). */
START_TEST(records_ending_before_offset_are_said)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, b, k, tried = 0;

	t = silent_loss_case(&d, &len, &c, 0);
	for (b = 1; b < t->nbufs && tried < 4; b++) {
		uint64_t off = t->bufs[b].off, end = off + etl_le32(d + off + 0x30);
		size_t last = last_event_of(t, b);
		uint64_t p = t->events[last ? last - 1 : 0].file_offset, l = t->events[last].file_offset;
		size_t hdr = size_field(etl_le32(d + l)) ? 32 : 80; /* at most, its header's size */
		if (last < 1 || p < off || end - l < hdr + 16 || end - 16 - p > 0xFFFF)
			continue; /* no record before the last in this buffer, or no 16 bytes of payload in it */
		memcpy(c, d, len);
		memset(c + end - 16, 0, 16); /* the last record's payload ends in zeros: still intact */
		run(c, len, &res);
		ck_assert_uint_eq(res.n, t->nevents);
		ck_assert_uint_eq(res.errors, 0);
		free(res.events);
		set_size(c, d, p, (size_t)(end - 16 - p));
		look_for = "the records end 16 bytes before the buffer's Offset";
		run(c, len, &res);
		look_for = NULL;
		ck_assert_msg(res.n == t->nevents - 1, "%zu of %zu events", res.n, t->nevents);
		for (k = 0; k < t->nevents; k++)
			ck_assert(k == last || delivered(&res, &t->events[k]));
		ck_assert_uint_eq(res.errors, 1);
		ck_assert(res.said);
		ck_assert_uint_eq(res.first_err_offset, end - 16);
		free(res.events);
		tried++;
	}
	ck_assert_uint_ge(tried, 1);
	close_case(t, d, c);
}
END_TEST

/* Bytes inserted into the logfile header's record: its fields after them (BufferSize among them)
 * are garbage, and no data buffer is where the header buffer's BufferSize says.  A size that is
 * no whole number of KiB gives way to the header buffer's, and the data buffers are found - each
 * event delivered.  Before, the garbage size was every buffer's, and none was found. */
START_TEST(bytes_in_the_logfile_header_cost_the_header_buffer)
{
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, i, at = 0x51, n = 24;

	t = silent_loss_case(&d, &len, &c, 64);
	memcpy(c, d, at);
	memset(c + at, 0xA7, n);
	memcpy(c + at + n, d + at, len - at);
	look_for = "is not a whole number of KiB";
	run(c, len + n, &res);
	look_for = NULL;
	ck_assert(!res.fatal);
	ck_assert(res.said);
	for (i = 0; i < t->nevents; i++) {
		struct ev_id id = t->events[i];
		if (id.file_offset < t->bufs[1].off)
			continue;
		id.file_offset += n;
		ck_assert_msg(delivered(&res, &id), "the event at 0x%llx lost", (unsigned long long)t->events[i].file_offset);
	}
	free(res.events);
	close_case(t, d, c);
}
END_TEST

/* A copy of a buffer, then a damaged buffer header right after it: the search for the next header
 * starts inside the buffer before the copy, finds the copy (skipped: a repeat) and comes back to
 * the damaged header - it must not go round for ever (fuzz_reader and fuzz_windows met it), and
 * every buffer but the damaged one is read. */
START_TEST(repeated_buffer_before_damage_ends)
{
	enum { A = 1, B = 4 };
	struct trace *t;
	struct result res;
	uint8_t *d, *c;
	size_t len, i, size;

	t = silent_loss_case(&d, &len, &c, 65536);
	size = (size_t)t->bufs[A].size;
	memcpy(c, d, (size_t)t->bufs[B].off);
	memcpy(c + t->bufs[B].off, d + t->bufs[A].off, size);
	memcpy(c + t->bufs[B].off + size, d + t->bufs[B].off, len - (size_t)t->bufs[B].off);
	c[t->bufs[B].off + size + 0x36] = 4; /* buffer B says it is a header buffer */
	run(c, len + size, &res);
	ck_assert(!res.fatal);
	ck_assert_uint_ge(res.errors, 2);
	for (i = 0; i < t->nevents; i++) {
		struct ev_id id = t->events[i];
		if (id.file_offset >= t->bufs[B].off && id.file_offset < t->bufs[B + 1].off)
			continue;
		if (id.file_offset >= t->bufs[B].off)
			id.file_offset += size;
		ck_assert_msg(delivered(&res, &id), "the event at 0x%llx lost", (unsigned long long)t->events[i].file_offset);
	}
	free(res.events);
	close_case(t, d, c);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("damage");
	TCase *t = tcase_create("damage"), *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_loop_test(t, writer_fixtures, 0, 4);
	tcase_add_test(t, offset_zero_loses_nothing);
	tcase_add_test(t, header_type_bit_flip_is_salvaged);
	tcase_add_test(t, end_marker_mid_buffer_is_reported);
	tcase_add_test(t, data_offset_72_keeps_the_records);
	tcase_add_test(t, header_buffer_damage_is_tolerated);
	tcase_add_test(t, compressed_header_buffer_damage_is_tolerated);
	tcase_add_test(t, cut_at_a_buffer_boundary_says_what_is_missing);
	tcase_add_test(t, swallowed_record_is_said_and_delivered);
	tcase_add_test(t, resync_takes_a_record_that_another_follows);
	tcase_add_test(t, size_grown_past_offset_costs_its_record);
	tcase_add_test(t, two_sizes_grown_past_offset_cost_two_records);
	tcase_add_test(t, offset_cutting_the_last_record_is_said);
	tcase_add_test(t, inserted_bytes_cost_their_buffer);
	tcase_add_test(t, data_after_padding_is_one_report);
	tcase_add_test(t, repeated_buffer_is_delivered_once);
	tcase_add_test(t, misaligned_bytes_cost_their_buffer);
	tcase_add_test(t, compressed_size_checked_against_the_next_header);
	tcase_add_test(t, shrunk_size_reads_no_false_end);
	tcase_add_test(t, records_ending_before_offset_are_said);
	tcase_add_test(t, bytes_in_the_logfile_header_cost_the_header_buffer);
	tcase_add_test(t, repeated_buffer_before_damage_ends);
	tcase_add_loop_test(c, corpus_traces, 0, (int)(sizeof(corpus_files) / sizeof(corpus_files[0])));
	tcase_set_timeout(t, 600);
	tcase_set_timeout(c, 600);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/etl/%s", corpus_dir, corpus_files[0]);
	return run_part(s, c, probe);
}
