/*
 * check_container.c - traces inside gzip streams and zip archives: built
 * here with zlib from the writer's traces, then damaged on purpose.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "internal.h"
#include "io/inflate.h"
#include "scenario.h"

#define NREC 500u

struct blob {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct blob *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (b->cap - b->len < n) {
		b->cap = (b->cap + n) * 2;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put16(struct blob *b, unsigned v)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	put(b, x, 2);
}

static void put32(struct blob *b, uint32_t v)
{
	put16(b, v & 0xFFFF);
	put16(b, v >> 16);
}

/* raw deflate (windowBits -15) or gzip (31) */
static struct blob deflate_bytes(const uint8_t *in, size_t n, int bits)
{
	struct blob out = { 0 };
	z_stream z;
	uint8_t buf[4096];
	int zr;

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		put(&out, buf, sizeof(buf) - z.avail_out);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return out;
}

struct member {
	const char *name;
	const uint8_t *data;
	size_t len;
	int method;     /* 0 stored, 8 deflate */
	int descriptor; /* sizes in a data descriptor after the data (flag bit 3) */
	int bad_crc;
	int encrypted;
};

static struct blob make_zip(const struct member *m, size_t n)
{
	struct blob z = { 0 }, cd = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t crc = (uint32_t)crc32(0, m[i].data, (uInt)m[i].len) ^ (m[i].bad_crc ? 1u : 0u);
		struct blob c = { 0 };
		uint32_t off = (uint32_t)z.len;
		unsigned flags = (m[i].descriptor ? 8 : 0) | (m[i].encrypted ? 1 : 0);

		if (m[i].method == 8)
			c = deflate_bytes(m[i].data, m[i].len, -15);
		else
			put(&c, m[i].data, m[i].len);
		put32(&z, 0x04034b50);
		put16(&z, 20);
		put16(&z, flags);
		put16(&z, (unsigned)m[i].method);
		put32(&z, 0);
		put32(&z, m[i].descriptor ? 0 : crc);
		put32(&z, m[i].descriptor ? 0 : (uint32_t)c.len);
		put32(&z, m[i].descriptor ? 0 : (uint32_t)m[i].len);
		put16(&z, (unsigned)strlen(m[i].name));
		put16(&z, 0);
		put(&z, m[i].name, strlen(m[i].name));
		put(&z, c.p, c.len);
		if (m[i].descriptor) {
			put32(&z, 0x08074b50);
			put32(&z, crc);
			put32(&z, (uint32_t)c.len);
			put32(&z, (uint32_t)m[i].len);
		}
		put32(&cd, 0x02014b50);
		put16(&cd, 20);
		put16(&cd, 20);
		put16(&cd, flags);
		put16(&cd, (unsigned)m[i].method);
		put32(&cd, 0);
		put32(&cd, crc);
		put32(&cd, (uint32_t)c.len);
		put32(&cd, (uint32_t)m[i].len);
		put16(&cd, (unsigned)strlen(m[i].name));
		put16(&cd, 0);
		put16(&cd, 0);
		put16(&cd, 0);
		put16(&cd, 0);
		put32(&cd, 0);
		put32(&cd, off);
		put(&cd, m[i].name, strlen(m[i].name));
		free(c.p);
	}
	{
		uint32_t cd_off = (uint32_t)z.len;
		put(&z, cd.p, cd.len);
		put32(&z, 0x06054b50);
		put16(&z, 0);
		put16(&z, 0);
		put16(&z, (unsigned)n);
		put16(&z, (unsigned)n);
		put32(&z, (uint32_t)cd.len);
		put32(&z, cd_off);
		put16(&z, 0);
	}
	free(cd.p);
	return z;
}

static uint8_t *trace(int ptr32, size_t *len)
{
	struct etlw_opts o;
	uint8_t *d;

	etlw_default_opts(&o);
	o.ncpu = 3;
	if (ptr32)
		o.ptr_size = 4;
	ck_assert_int_eq(scen_build_mixed(&o, NREC, &d, len), 0);
	return d;
}

struct tally {
	unsigned events, errors;
	int fatal, first_trace; /* the first error's trace index */
	uint64_t first_off;     /* and its offset (or the open's error's) */
	char first_msg[320];
	unsigned per_trace[4];
};

static int open_and_drain(const uint8_t *p, size_t n, struct tally *t, struct etl_reader **keep)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int st;

	memset(t, 0, sizeof(*t));
	st = etl_reader_open_memory(r, p, n, "archive");
	if (st == ETL_OK) {
		while ((st = etl_reader_next(r, &ev)) != ETL_END) {
			if (st == ETL_OK) {
				t->events++;
				t->per_trace[etl_event_trace_index(ev) & 3]++;
				continue;
			}
			if (t->errors++ == 0) {
				snprintf(t->first_msg, sizeof(t->first_msg), "%s", etl_error_message(etl_reader_error(r)));
				t->first_trace = etl_error_trace_index(etl_reader_error(r));
				t->first_off = etl_error_offset(etl_reader_error(r));
			}
			if (etl_error_is_fatal(etl_reader_error(r))) {
				t->fatal = 1;
				break;
			}
		}
		st = ETL_OK;
	} else {
		snprintf(t->first_msg, sizeof(t->first_msg), "%s", etl_error_message(etl_reader_error(r)));
		t->first_off = etl_error_offset(etl_reader_error(r));
	}
	if (keep)
		*keep = r;
	else
		etl_reader_free(r);
	return st;
}

START_TEST(gzip_single_and_multi_member)
{
	size_t len;
	uint8_t *d = trace(0, &len);
	struct blob g = deflate_bytes(d, len, 31), g1, g2;
	struct tally t;
	struct etl_reader *r;

	ck_assert_int_eq(open_and_drain(g.p, g.len, &t, &r), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 0);
	ck_assert_str_eq(etl_trace_info_container(etl_reader_trace_info(r, 0)), "gzip");
	ck_assert_str_eq(etl_trace_info_name(etl_reader_trace_info(r, 0)), "archive");
	ck_assert_uint_eq(etl_trace_info_file_size(etl_reader_trace_info(r, 0)), len);
	etl_reader_free(r);
	/* two gzip members one after the other make one stream */
	g1 = deflate_bytes(d, len / 3, 31);
	g2 = deflate_bytes(d + len / 3, len - len / 3, 31);
	put(&g1, g2.p, g2.len);
	ck_assert_int_eq(open_and_drain(g1.p, g1.len, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 0);
	free(g.p);
	free(g1.p);
	free(g2.p);
	free(d);
}
END_TEST

START_TEST(gzip_truncated_and_corrupt)
{
	size_t len;
	uint8_t *d = trace(0, &len);
	struct blob g = deflate_bytes(d, len, 31);
	struct tally t;

	ck_assert_int_eq(open_and_drain(g.p, g.len * 6 / 10, &t, NULL), ETL_OK);
	ck_assert_uint_gt(t.events, NREC / 4);
	ck_assert_uint_lt(t.events, NREC);
	ck_assert_uint_ge(t.errors, 1);
	ck_assert(!t.fatal);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "gzip stream ends early"));
	/* corruption in the middle: what inflated before it is kept; the damage is said where it is
	 * found - never before the bytes set (here the trailer's check finds it) */
	memset(g.p + g.len / 2, 0xA5, 64);
	ck_assert_int_eq(open_and_drain(g.p, g.len, &t, NULL), ETL_OK);
	ck_assert_uint_ge(t.errors, 1);
	ck_assert_uint_gt(t.events, 0);
	ck_assert(!t.fatal);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "gzip data is corrupt"));
	ck_assert_uint_ge(t.first_off, g.len / 2);
	/* a block type that does not exist, in the first byte of the data: said where inflate
	 * stopped reading, just past it - not at the start of what inflate was given */
	g.p[10] = 0x07; /* BFINAL 1, BTYPE 3 */
	ck_assert_int_lt(open_and_drain(g.p, g.len, &t, NULL), 0);
	ck_assert_msg(strstr(t.first_msg, "gzip data is corrupt: invalid block type"), "%s", t.first_msg);
	ck_assert_uint_eq(t.first_off, 11);
	/* cut inside the gzip header: nothing to read */
	ck_assert_int_lt(open_and_drain(g.p, 12, &t, NULL), 0);
	free(g.p);
	free(d);
}
END_TEST

/* A gzip member whose trailer's CRC-32 does not match its data: inflate_into checks it (zlib
 * does not), the member is reported damaged, every event is read. */
START_TEST(gzip_crc_mismatch_is_reported)
{
	size_t len;
	uint8_t *d = trace(0, &len);
	struct blob g = deflate_bytes(d, len, 31);
	struct tally t;

	g.p[g.len - 8] ^= 1; /* the trailer: CRC-32, then the length */
	ck_assert_int_eq(open_and_drain(g.p, g.len, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 1);
	ck_assert(!t.fatal);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "gzip data is corrupt: incorrect data check"));
	g.p[g.len - 8] ^= 1;
	g.p[g.len - 4] ^= 1; /* the length, mod 2^32 */
	ck_assert_int_eq(open_and_drain(g.p, g.len, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "gzip data is corrupt: incorrect length check"));
	free(g.p);
	free(d);
}
END_TEST

/* Member g (as zlib writes it: no optional field) with a header CRC (FLG.FHCRC) - right, or one
 * bit off - after optional fields: extra bytes (xlen; none: -1), a name and a comment (their
 * lengths before the zero; none: -1). */
static struct blob header_crc_member(const struct blob *g, int xlen, int name, int comment, int right)
{
	struct blob h = { 0 };
	uint8_t flg = 2 | (xlen >= 0 ? 4 : 0) | (name >= 0 ? 8 : 0) | (comment >= 0 ? 16 : 0), fill[600];
	uint32_t c;

	ck_assert_uint_eq(g->p[3], 0);
	memset(fill, 'n', sizeof(fill));
	put(&h, g->p, 3);
	put(&h, &flg, 1);
	put(&h, g->p + 4, 6);
	if (xlen >= 0) {
		put16(&h, (unsigned)xlen);
		put(&h, fill, (size_t)xlen); /* (no zero: it does not end at one) */
	}
	if (name >= 0)
		put(&h, fill, (size_t)name + 1), h.p[h.len - 1] = 0;
	if (comment >= 0)
		put(&h, fill, (size_t)comment + 1), h.p[h.len - 1] = 0;
	c = (uint32_t)crc32(0, h.p, (uInt)h.len) ^ (right ? 0 : 0x100);
	put16(&h, c & 0xFFFF);
	put(&h, g->p + 10, g->len - 10);
	return h;
}

/* A gzip header with its own CRC (FLG.FHCRC: the low 16 bits of the CRC-32 of the header's bytes
 * before it) is checked, in every build: one that matches opens as without it, whatever optional
 * fields come before it (names longer than what is read at once, an empty extra field); one that
 * does not is damage at the CRC, said as zlib says it (the open's error: that damage, then what it
 * left), and nothing of its member is read. */
START_TEST(gzip_header_crc_is_checked)
{
	static const int fields[][3] = { { -1, -1, -1 }, { 0, -1, 0 }, { 300, 257, -1 }, { -1, 0, 511 }, { 1, 256, 255 } };
	size_t len, i;
	uint8_t *d = trace(0, &len);
	struct blob g = deflate_bytes(d, len, 31), h, two = { 0 };
	struct tally t;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		h = header_crc_member(&g, fields[i][0], fields[i][1], fields[i][2], 1);
		ck_assert_int_eq(open_and_drain(h.p, h.len, &t, NULL), ETL_OK);
		ck_assert_uint_eq(t.events, NREC + 1);
		ck_assert_uint_eq(t.errors, 0);
		free(h.p);
		h = header_crc_member(&g, fields[i][0], fields[i][1], fields[i][2], 0);
		ck_assert_int_ne(open_and_drain(h.p, h.len, &t, NULL), ETL_OK);
		ck_assert_uint_eq(t.first_off, h.len - g.len + 10 - 2);
		ck_assert_msg(strstr(t.first_msg, "gzip data is corrupt: header crc mismatch (0 bytes recovered): not a trace"),
			      "%s", t.first_msg);
		if (i + 1 < sizeof(fields) / sizeof(fields[0]))
			free(h.p);
	}
	/* a second member whose header's differs: the first one's trace, then that damage */
	put(&two, g.p, g.len);
	put(&two, h.p, h.len);
	ck_assert_int_eq(open_and_drain(two.p, two.len, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 1);
	ck_assert_msg(strstr(t.first_msg, "gzip data is corrupt: header crc mismatch") != NULL, "%s", t.first_msg);
	free(two.p);
	free(h.p);
	free(g.p);
	free(d);
}
END_TEST

/* ---- inflating at once (whole.c) against zlib ---- */

/* The spool's file's size on disk, and its bytes from start (n of them, into out). */
static uint64_t spool_file(const struct spool *sp, uint64_t start, uint8_t *out, size_t n)
{
	struct etl_source w;
	struct etl_diag d;
	struct stat st;

	ck_assert_int_eq(fstat(sp->file->fd, &st), 0);
	if (n) {
		etl__source_open_window(&w, sp->file, start, n);
		ck_assert_int_eq(etl__source_read(&w, 0, out, n, &d), ETL_OK);
		etl__source_close(&w);
	}
	return (uint64_t)st.st_size;
}

/* What the faster way does not take leaves the spool as it was: its end and its file's size. */
static void whole_gzip_refused(const uint8_t *p, size_t n, uint64_t limit)
{
	struct etl_source src;
	struct spool sp;
	struct etl_diag d;
	uint64_t used = 12345;

	memset(&sp, 0, sizeof(sp));
	sp.limit = limit;
	ck_assert_int_eq(etl__spool_begin(&sp, 0, &d), ETL_OK);
	etl__source_init(&src);
	etl__source_open_memory(&src, p, n);
	ck_assert_int_eq(etl__inflate_whole_gzip(&src, &sp, &used), ETL_END);
	ck_assert_uint_eq(used, 12345);
	ck_assert_uint_eq(sp.end, 0);
	ck_assert_uint_eq(spool_file(&sp, 0, NULL, 0), 0);
	etl__tempfile_release(sp.file);
}

/* A whole gzip member inflates at once to zlib's bytes; several members, bytes after it, a CRC-32
 * or length that its data do not have, a cut, a length beyond the spool limit and one more than
 * 64 times the compressed bytes (WHOLE_RATIO) are left to zlib, the spool untouched.  (Without
 * libdeflate every input is left to zlib.) */
START_TEST(gzip_inflated_at_once_as_zlib_does)
{
	size_t len;
	uint8_t *d = trace(0, &len), *back = malloc(len);
	struct blob g = deflate_bytes(d, len, 31), two = { 0 }, h, z;
	uint8_t *zeros;
	struct etl_source src;
	struct spool sp;
	struct etl_diag dg;
	uint64_t used = 0;
	int possible = etl__inflate_whole_possible();

	memset(&sp, 0, sizeof(sp));
	sp.limit = UINT64_MAX;
	ck_assert_int_eq(etl__spool_begin(&sp, 0, &dg), ETL_OK);
	etl__source_init(&src);
	etl__source_open_memory(&src, g.p, g.len);
	ck_assert_int_eq(etl__inflate_whole_gzip(&src, &sp, &used), possible ? ETL_OK : ETL_END);
	if (possible) {
		ck_assert_uint_eq(used, g.len);
		ck_assert_uint_eq(sp.end, len);
		ck_assert_uint_eq(spool_file(&sp, 0, back, len), len);
		ck_assert_mem_eq(back, d, len);
	}
	etl__tempfile_release(sp.file);
	put(&two, g.p, g.len);
	put(&two, g.p, g.len);
	whole_gzip_refused(two.p, two.len, UINT64_MAX);   /* two members */
	whole_gzip_refused(g.p, g.len, len - 1);          /* more than the spool limit */
	whole_gzip_refused(g.p, g.len - 1, UINT64_MAX);   /* cut */
	h = deflate_bytes(d, len, 31);
	put(&h, "\0", 1);
	whole_gzip_refused(h.p, h.len, UINT64_MAX);       /* a byte after the member */
	g.p[g.len - 8] ^= 1;                              /* its CRC-32 */
	whole_gzip_refused(g.p, g.len, UINT64_MAX);
	g.p[g.len - 8] ^= 1;
	g.p[g.len - 4] ^= 1;                              /* its length, one more */
	whole_gzip_refused(g.p, g.len, UINT64_MAX);
	g.p[g.len - 4] ^= 3;                              /* one less */
	whole_gzip_refused(g.p, g.len, UINT64_MAX);
	zeros = calloc(1, (size_t)1 << 20);
	ck_assert_ptr_nonnull(zeros);
	z = deflate_bytes(zeros, (size_t)1 << 20, 31);    /* 1 MiB in about 1 KiB: more than 64 times */
	ck_assert_uint_lt(z.len * 64, (size_t)1 << 20);
	whole_gzip_refused(z.p, z.len, UINT64_MAX);
	free(z.p);
	free(zeros);
	free(h.p);
	free(two.p);
	free(g.p);
	free(back);
	free(d);
}
END_TEST

/* A zip member inflated at once where the spool does not start on a page (after another
 * member): zlib's bytes and CRC-32, at its place; a size the data do not have is left to zlib. */
START_TEST(zip_member_inflated_at_once_after_another)
{
	size_t len;
	uint8_t *d = trace(1, &len), *back = malloc(len);
	struct blob raw = deflate_bytes(d, len, -15), first = deflate_bytes(d, 1001, -15);
	struct etl_source a, b;
	struct spool sp;
	struct etl_diag dg;
	uint64_t used = 0, at;
	int possible = etl__inflate_whole_possible();

	memset(&sp, 0, sizeof(sp));
	sp.limit = UINT64_MAX;
	etl__source_init(&a);
	etl__source_open_memory(&a, first.p, first.len);
	ck_assert_int_eq(etl__spool_begin(&sp, 1, &dg), ETL_OK);
	ck_assert_int_eq(etl__inflate_into(&a, 0, first.len, 1, etl__sink_spool, &sp, &used, &dg), ETL_OK);
	ck_assert_uint_eq(sp.end, 1001);
	ck_assert_int_eq(etl__spool_begin(&sp, 1, &dg), ETL_OK);
	at = sp.end;
	etl__source_init(&b);
	etl__source_open_memory(&b, raw.p, raw.len);
	ck_assert_int_eq(etl__inflate_whole_raw(&b, 0, raw.len, len + 1, &sp, &used), ETL_END);
	ck_assert_int_eq(etl__inflate_whole_raw(&b, 0, raw.len - 1, len, &sp, &used), ETL_END);
	ck_assert_uint_eq(sp.end, at);
	ck_assert_uint_eq(spool_file(&sp, 0, NULL, 0), at);
	ck_assert_int_eq(etl__inflate_whole_raw(&b, 0, raw.len, len, &sp, &used), possible ? ETL_OK : ETL_END);
	if (possible) {
		ck_assert_uint_eq(used, raw.len);
		ck_assert_uint_eq(sp.end, at + len);
		ck_assert_uint_eq(sp.crc, (uint32_t)crc32(0, d, (uInt)len));
		ck_assert_uint_eq(spool_file(&sp, at, back, len), at + len);
		ck_assert_mem_eq(back, d, len);
		ck_assert_uint_eq(spool_file(&sp, 0, back, 1001), at + len); /* the first is as it was */
		ck_assert_mem_eq(back, d, 1001);
	}
	etl__tempfile_release(sp.file);
	free(raw.p);
	free(first.p);
	free(back);
	free(d);
}
END_TEST

START_TEST(zip_two_traces_and_a_log)
{
	size_t l64, l32;
	uint8_t *a = trace(0, &l64), *b = trace(1, &l32);
	static const char log[] = "PerfView log file\n";
	struct member m[] = {
		{ "dir/", (const uint8_t *)"", 0, 0, 0, 0, 0 },
		{ "dir/kernel.etl", a, l64, 8, 0, 0, 0 },
		{ "LogFile.txt", (const uint8_t *)log, sizeof(log) - 1, 0, 0, 0, 0 },
		{ "user.bin", b, l32, 0, 1, 0, 0 }, /* a trace by content, whatever its name */
	};
	struct blob z = make_zip(m, 4);
	struct tally t;
	struct etl_reader *r;
	const struct etl_trace_info *ti;

	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, &r), ETL_OK);
	ck_assert_uint_eq(t.errors, 0);
	ck_assert_int_eq(etl_reader_trace_count(r), 2);
	ck_assert_uint_eq(t.per_trace[0], NREC + 1);
	ck_assert_uint_eq(t.per_trace[1], NREC + 1);
	ti = etl_reader_trace_info(r, 0);
	ck_assert_str_eq(etl_trace_info_name(ti), "archive:dir/kernel.etl");
	ck_assert_str_eq(etl_trace_info_container(ti), "zip");
	ck_assert_uint_eq(etl_trace_info_other_member_count(ti), 1);
	ck_assert_str_eq(etl_trace_info_other_member(ti, 0), "LogFile.txt");
	ck_assert_str_eq(etl_trace_info_name(etl_reader_trace_info(r, 1)), "archive:user.bin");
	ck_assert_uint_eq(etl_trace_info_pointer_size(etl_reader_trace_info(r, 1)), 4);
	etl_reader_free(r);
	free(z.p);
	free(a);
	free(b);
}
END_TEST

/* etl_reader_open_same: a second reader of an archive's traces shares what the first unpacked,
 * delivers the same events, and outlives the first. */
START_TEST(open_same_shares_the_unpacked_traces)
{
	size_t l64, l32, i;
	uint8_t *a = trace(0, &l64), *b = trace(1, &l32);
	struct member m[] = {
		{ "kernel.etl", a, l64, 8, 0, 0, 0 },
		{ "user.etl", b, l32, 8, 0, 0, 0 },
	};
	struct blob z = make_zip(m, 2);
	struct etl_reader *first = etl_reader_new(), *again = etl_reader_new();
	const struct etl_event *ev;
	unsigned n[2] = { 0, 0 };
	int st;

	ck_assert_int_eq(etl_reader_open_memory(first, z.p, z.len, "archive"), ETL_OK);
	ck_assert_int_eq(etl_reader_trace_count(first), 2);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(etl_reader_open_same(again, first, (int)i), ETL_OK);
	ck_assert_int_eq(etl_reader_open_same(again, first, 2), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_same(again, NULL, 0), ETL_E_MISUSE);
	ck_assert_str_eq(etl_trace_info_name(etl_reader_trace_info(again, 1)), "archive:user.etl");
	etl_reader_free(first); /* the unpacked traces live on in `again` (its own descriptors) */
	free(z.p);
	while ((st = etl_reader_next(again, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		n[etl_event_trace_index(ev)]++;
	}
	ck_assert_uint_eq(n[0], NREC + 1);
	ck_assert_uint_eq(n[1], NREC + 1);
	ck_assert_int_eq(etl_reader_open_same(again, again, 0), ETL_E_MISUSE); /* too late */
	etl_reader_free(again);
	free(a);
	free(b);
}
END_TEST

START_TEST(zip_without_central_directory)
{
	size_t l64, l32;
	uint8_t *a = trace(0, &l64), *b = trace(1, &l32);
	struct member m[] = {
		{ "a.etl", a, l64, 8, 1, 0, 0 },
		{ "b.etl", b, l32, 8, 0, 0, 0 },
	};
	struct blob z = make_zip(m, 2);
	struct tally t;
	size_t cut;

	/* the directory is gone: both members are found from their local headers */
	cut = z.len - 22 - 2 * (46 + 5);
	ck_assert_int_eq(open_and_drain(z.p, cut, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, 2 * (NREC + 1));
	ck_assert_uint_eq(t.errors, 1);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "central directory"));
	/* cut in the middle of the second member: the first is whole, the second partial */
	cut = z.len * 3 / 4;
	ck_assert_int_eq(open_and_drain(z.p, cut, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.per_trace[0], NREC + 1);
	ck_assert_uint_gt(t.per_trace[1], 0);
	ck_assert_uint_lt(t.per_trace[1], NREC + 1);
	ck_assert_uint_ge(t.errors, 1);
	ck_assert(!t.fatal);
	free(z.p);
	free(a);
	free(b);
}
END_TEST

START_TEST(zip_member_damage)
{
	size_t len;
	uint8_t *a = trace(0, &len);
	static const char txt[] = "not a trace";
	struct member crc[] = { { "a.etl", a, len, 8, 0, 1, 0 } };
	struct member enc[] = { { "a.etl", a, len, 0, 0, 0, 1 } };
	struct member none[] = { { "readme.txt", (const uint8_t *)txt, sizeof(txt) - 1, 8, 0, 0, 0 } };
	struct member meth[] = { { "a.etl", a, len, 8, 0, 0, 0 } };
	struct blob z;
	struct tally t;

	z = make_zip(crc, 1); /* a CRC mismatch is reported; the events are still read */
	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 1);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "CRC-32 mismatch"));
	free(z.p);
	z = make_zip(enc, 1);
	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, NULL), ETL_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "encrypted"));
	free(z.p);
	z = make_zip(none, 1);
	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, NULL), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "holds no trace"));
	free(z.p);
	z = make_zip(meth, 1);
	z.p[8] = 14; /* LZMA in the local header and the directory */
	z.p[z.len - 22 - 46 - 5 + 10] = 14;
	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, NULL), ETL_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "compression method 14"));
	free(z.p);
	free(a);
}
END_TEST

START_TEST(spool_limit)
{
	size_t len;
	uint8_t *d = trace(0, &len);
	struct blob g = deflate_bytes(d, len, 31);
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned events = 0, errors = 0;
	int st;

	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_SPOOL_SIZE, 3 * 4096), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, g.p, g.len, "g"), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st == ETL_OK)
			events++;
		else if (errors++ == 0)
			ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "spool limit"));
	}
	ck_assert_uint_ge(errors, 1);
	ck_assert_uint_gt(events, 0);
	ck_assert_uint_lt(events, NREC);
	etl_reader_free(r);
	free(g.p);
	free(d);
}
END_TEST

START_TEST(random_damage_never_crashes)
{
	size_t l64, l32, i;
	uint8_t *a = trace(0, &l64), *b = trace(1, &l32);
	struct member m[] = { { "a.etl", a, l64, 8, 0, 0, 0 }, { "b.etl", b, l32, 0, 1, 0, 0 } };
	struct blob z = make_zip(m, 2), g = deflate_bytes(a, l64, 31);
	uint32_t x = 7;
	struct tally t;

	for (i = 0; i < 300; i++) {
		struct blob *src = (i % 2) ? &z : &g;
		uint8_t *c = malloc(src->len);
		size_t k, n = src->len;

		memcpy(c, src->p, n);
		for (k = 0; k < 4; k++) {
			x = x * 1664525u + 1013904223u;
			c[x % n] ^= (uint8_t)(x >> 24 | 1);
		}
		if (i % 3 == 0)
			n = x % n;
		(void)open_and_drain(c, n, &t, NULL);
		ck_assert(!t.fatal);
		free(c);
	}
	free(z.p);
	free(g.p);
	free(a);
	free(b);
}
END_TEST

/* Replaces every central-directory entry's local-header offset with the first one's: N entries,
 * one stream (a 1 MB zip that once wrote 8 GB). */
static void alias_central_entries(struct blob *z)
{
	size_t i;
	uint32_t first = UINT32_MAX;

	for (i = 0; i + 46 <= z->len; i++) {
		uint32_t sig = (uint32_t)z->p[i] | (uint32_t)z->p[i + 1] << 8 | (uint32_t)z->p[i + 2] << 16 |
			       (uint32_t)z->p[i + 3] << 24;
		if (sig != 0x02014b50u)
			continue;
		if (first == UINT32_MAX)
			memcpy(&first, z->p + i + 42, 4); /* (little-endian hosts and others alike: copied bytes) */
		else
			memcpy(z->p + i + 42, &first, 4);
	}
}

/* ROBUSTNESS.md, issue 15: eight directory entries naming one member's data: one trace, seven
 * members refused as overlapping it. */
START_TEST(overlapping_members_are_refused)
{
	size_t len, i;
	uint8_t *d = trace(0, &len);
	struct member m[8];
	struct blob z;
	struct tally t;
	struct etl_reader *r;

	for (i = 0; i < 8; i++)
		m[i] = (struct member){ i ? "copy.etl" : "trace.etl", d, len, 8, 0, 0, 0 };
	z = make_zip(m, 8);
	alias_central_entries(&z);
	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, &r), ETL_OK);
	ck_assert_int_eq(etl_reader_trace_count(r), 1);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 7);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "overlap"));
	etl_reader_free(r);
	free(z.p);
	free(d);
}
END_TEST

/* What an archive unpacks is bounded by ETL_SPOOL_RATIO times its size: a gzip of a trace
 * followed by 40 MB of zeros (about 80 KB in all) stops at its bound, the trace still read. */
START_TEST(spool_ratio_bounds_an_archive)
{
	size_t len, zeros = 40u << 20;
	uint8_t *d = trace(0, &len), *big = calloc(1, len + zeros);
	struct blob g;
	struct tally t;

	ck_assert_ptr_nonnull(big);
	memcpy(big, d, len);
	g = deflate_bytes(big, len + zeros, 31);
	ck_assert_uint_lt(g.len * 256, len + zeros); /* the bound is below what it would unpack */
	ck_assert_int_eq(open_and_drain(g.p, g.len, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_ge(t.errors, 1);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "spool limit"));
	free(g.p);
	free(big);
	free(d);
}
END_TEST

static int open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return -1;
	while ((e = readdir(dir)) != NULL)
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* 1,101 members, one of them a trace, under a limit of 64 descriptors (one temporary file per
 * member once failed there and lost the trace): one descriptor for all, the trace read, and the
 * temporary file in $TMPDIR. */
START_TEST(many_members_keep_descriptors_constant)
{
	size_t len, i, n = 1101;
	uint8_t *d = trace(0, &len);
	struct member *m = calloc(n, sizeof(*m));
	static const char txt[] = "a log line\n";
	struct rlimit old, low;
	struct etl_reader *r;
	struct blob z;
	struct tally t;
	char tmpdir[] = "/tmp/libetl-test-XXXXXX", link[PATH_MAX], fdpath[64];
	int before, found = 0, fd;

	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	setenv("TMPDIR", tmpdir, 1);
	for (i = 0; i < n; i++)
		m[i] = i == n / 2 ? (struct member){ "trace.etl", d, len, 8, 0, 0, 0 }
				  : (struct member){ "log.txt", (const uint8_t *)txt, sizeof(txt) - 1, 8, 0, 0, 0 };
	z = make_zip(m, n);
	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	before = open_fds();
	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, &r), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 0);
	ck_assert_uint_eq(etl_trace_info_other_member_count(etl_reader_trace_info(r, 0)), n - 1);
	if (before >= 0) {
		ck_assert_int_eq(open_fds(), before + 1); /* the one temporary file */
		for (fd = 0; fd < 64; fd++) {
			ssize_t k;
			snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
			k = readlink(fdpath, link, sizeof(link) - 1);
			if (k > 0) {
				link[k] = 0;
				found += strncmp(link, tmpdir, strlen(tmpdir)) == 0;
			}
		}
		ck_assert_int_eq(found, 1);
	}
	etl_reader_free(r);
	setrlimit(RLIMIT_NOFILE, &old);
	unsetenv("TMPDIR");
	rmdir(tmpdir);
	free(z.p);
	free(m);
	free(d);
}
END_TEST

/* 5,000 members: the first 4,096 are looked at (the trace among them is read) and the archive
 * says the rest were not. */
START_TEST(members_past_the_bound_are_reported)
{
	size_t len, i, n = 5000;
	uint8_t *d = trace(0, &len);
	struct member *m = calloc(n, sizeof(*m));
	static const char txt[] = "x";
	struct blob z;
	struct tally t;

	for (i = 0; i < n; i++)
		m[i] = i == 10 ? (struct member){ "trace.etl", d, len, 0, 0, 0, 0 }
			       : (struct member){ "x.txt", (const uint8_t *)txt, 1, 0, 0, 0, 0 };
	z = make_zip(m, n);
	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, NULL), ETL_OK);
	ck_assert_uint_eq(t.events, NREC + 1);
	ck_assert_uint_eq(t.errors, 1);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "more than 4096 members"));
	ck_assert_int_eq(t.first_trace, 0); /* named after the archive's trace, not "?" */
	free(z.p);
	/* the trace past the limit: the open says that the limit hid it */
	m[10] = (struct member){ "x.txt", (const uint8_t *)txt, 1, 0, 0, 0, 0 };
	m[4500] = (struct member){ "trace.etl", d, len, 0, 0, 0, 0 };
	z = make_zip(m, n);
	ck_assert_int_ne(open_and_drain(z.p, z.len, &t, NULL), ETL_OK);
	ck_assert_msg(strstr(t.first_msg, "no trace in the first 4096 members") != NULL, "%s", t.first_msg);
	free(z.p);
	free(m);
	free(d);
}
END_TEST

/* Member names go into messages and trace names escaped: a name holding a terminal escape and a
 * newline cannot clear a screen or forge a line. */
START_TEST(member_names_are_escaped)
{
	size_t len;
	uint8_t *d = trace(0, &len);
	struct member m[] = { { "\x1b[2Jevil\nname.etl", d, len, 8, 0, 1, 0 } };
	struct blob z = make_zip(m, 1);
	struct etl_reader *r;
	struct tally t;

	ck_assert_int_eq(open_and_drain(z.p, z.len, &t, &r), ETL_OK);
	ck_assert_ptr_nonnull(strstr(t.first_msg, "\\x1b[2Jevil\\x0aname.etl"));
	ck_assert_ptr_null(strchr(t.first_msg, '\n'));
	ck_assert_ptr_null(strchr(etl_trace_info_name(etl_reader_trace_info(r, 0)), '\x1b'));
	etl_reader_free(r);
	free(z.p);
	free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("container");
	TCase *t = tcase_create("container");
	SRunner *sr;
	int failed;

	tcase_add_test(t, gzip_single_and_multi_member);
	tcase_add_test(t, open_same_shares_the_unpacked_traces);
	tcase_add_test(t, gzip_truncated_and_corrupt);
	tcase_add_test(t, gzip_crc_mismatch_is_reported);
	tcase_add_test(t, gzip_header_crc_is_checked);
	tcase_add_test(t, gzip_inflated_at_once_as_zlib_does);
	tcase_add_test(t, zip_member_inflated_at_once_after_another);
	tcase_add_test(t, zip_two_traces_and_a_log);
	tcase_add_test(t, zip_without_central_directory);
	tcase_add_test(t, zip_member_damage);
	tcase_add_test(t, spool_limit);
	tcase_add_test(t, random_damage_never_crashes);
	tcase_add_test(t, overlapping_members_are_refused);
	tcase_add_test(t, spool_ratio_bounds_an_archive);
	tcase_add_test(t, many_members_keep_descriptors_constant);
	tcase_add_test(t, members_past_the_bound_are_reported);
	tcase_add_test(t, member_names_are_escaped);
	tcase_set_timeout(t, 300);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
