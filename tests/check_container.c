/*
 * check_container.c - traces inside gzip streams and zip archives: built
 * here with zlib from the writer's traces, then damaged on purpose.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "internal.h"
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
	int fatal;
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
			if (t->errors++ == 0)
				snprintf(t->first_msg, sizeof(t->first_msg), "%s", etl_error_message(etl_reader_error(r)));
			if (etl_error_is_fatal(etl_reader_error(r))) {
				t->fatal = 1;
				break;
			}
		}
		st = ETL_OK;
	} else {
		snprintf(t->first_msg, sizeof(t->first_msg), "%s", etl_error_message(etl_reader_error(r)));
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
	/* corruption in the middle: what inflated before it is kept */
	memset(g.p + g.len / 2, 0xA5, 64);
	ck_assert_int_eq(open_and_drain(g.p, g.len, &t, NULL), ETL_OK);
	ck_assert_uint_ge(t.errors, 1);
	ck_assert_uint_gt(t.events, 0);
	ck_assert(!t.fatal);
	/* cut inside the gzip header: nothing to read */
	ck_assert_int_lt(open_and_drain(g.p, 12, &t, NULL), 0);
	free(g.p);
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

int main(void)
{
	Suite *s = suite_create("container");
	TCase *t = tcase_create("container");
	SRunner *sr;
	int failed;

	tcase_add_test(t, gzip_single_and_multi_member);
	tcase_add_test(t, gzip_truncated_and_corrupt);
	tcase_add_test(t, zip_two_traces_and_a_log);
	tcase_add_test(t, zip_without_central_directory);
	tcase_add_test(t, zip_member_damage);
	tcase_add_test(t, spool_limit);
	tcase_add_test(t, random_damage_never_crashes);
	tcase_set_timeout(t, 300);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
