/*
 * check_out.c - unit tests of etldump's output buffer (tools/out.c), all
 * written through a sink: JSON string escaping against a byte-by-byte
 * statement of the rule (every byte value at every position of short strings,
 * and long mixed ones; names kept per thread, out_json_name), decimal and hex numbers at every distance from the
 * end of the window, numbers whose high digits are kept from call to call, and
 * times with three decimals against printf.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* The rule: a quote and a backslash take a backslash, bytes below 0x20 are \u00xx (lower case),
 * every other byte stays. */
static size_t expected_escape(const unsigned char *s, char *dst)
{
	size_t n = 0;

	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			dst[n++] = '\\';
			dst[n++] = (char)*s;
		} else if (*s < 0x20) {
			n += (size_t)sprintf(dst + n, "\\u%04x", *s);
		} else {
			dst[n++] = (char)*s;
		}
	}
	dst[n] = 0;
	return n;
}

/* out_json_str(s) as written to a sink */
static char *escaped_by_out(const char *s, size_t *len)
{
	struct out_sink k = { NULL, 0, 0 };

	out_thread_init();
	out_set_sink(&k);
	out_json_str(s);
	out_set_sink(NULL);
	ck_assert_int_eq(out_buf.failed, 0);
	*len = k.len;
	return k.data;
}

static void check_one(const unsigned char *s)
{
	static char want[6 * 4096 + 1];
	size_t n, wn = expected_escape(s, want), len = strlen((const char *)s);
	char *exact = malloc(len + 1), *got; /* a read past the string is then a sanitizer's error */

	ck_assert_ptr_nonnull(exact);
	memcpy(exact, s, len + 1);
	got = escaped_by_out(exact, &n);
	ck_assert_uint_eq(n, wn);
	ck_assert(memcmp(got, want, n) == 0);
	free(got);
	free(exact);
}

START_TEST(json_strings_escape_every_byte_at_every_position)
{
	unsigned char s[40];
	unsigned len, pos, c;

	for (len = 1; len < sizeof(s); len++) {
		for (pos = 0; pos < len; pos++) {
			for (c = 1; c < 256; c++) {
				memset(s, 'a' + len % 26, len);
				s[pos] = (unsigned char)c;
				s[len] = 0;
				check_one(s);
			}
		}
	}
}
END_TEST

START_TEST(json_strings_long_and_mixed)
{
	static unsigned char s[4096];
	uint32_t x = 2024;
	size_t i, n;
	int round;

	for (round = 0; round < 300; round++) {
		n = 1 + (size_t)(x % (sizeof(s) - 1));
		for (i = 0; i < n; i++) {
			x = x * 1664525u + 1013904223u;
			/* mostly plain text, now and then a byte to escape or a UTF-8 lead byte */
			s[i] = (unsigned char)((x >> 24) % 23 == 0 ? 1 + (x >> 8) % 255 : 'A' + (x >> 16) % 58);
		}
		s[n] = 0;
		check_one(s);
	}
	s[0] = 0;
	check_one(s);
}
END_TEST

/* out_json_name: the text out_json_str writes, the first time and again (kept), for names that
 * escape, fill the slot or do not fit it; a name whose memory now holds other text is written
 * anew; at every distance from the end of the window. */
START_TEST(json_names_as_json_strings)
{
	static const char *names[] = {
		"ImageBase", "", "a\"b\\c", "tab\there", "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c",
		"0123456789012345678901234567890123456789012345", /* 46: fits */
		"01234567890123456789012345678901234567890123456", /* 47 */
		"012345678901234567890123456789012345678901234567", /* 48: too long to keep */
		"a name of many more than forty-eight bytes, written as any string is",
		"\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f", /* short, but 48 bytes escaped */
		"caf\xc3\xa9.dll",
	};
	static char pad[64];
	char reused[64], want[512];
	size_t i, room, wn;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct out_sink k = { NULL, 0, 0 };
		wn = expected_escape((const unsigned char *)names[i], want);
		out_thread_init();
		out_set_sink(&k);
		out_json_name(names[i]);
		out_json_name(names[i]);
		out_set_sink(NULL);
		ck_assert_uint_eq(k.len, 2 * wn);
		ck_assert(memcmp(k.data, want, wn) == 0);
		ck_assert(memcmp(k.data + wn, want, wn) == 0);
		free(k.data);
	}
	/* the same memory, other text: of the same length, shorter, longer */
	{
		struct out_sink k = { NULL, 0, 0 };
		out_thread_init();
		out_set_sink(&k);
		strcpy(reused, "alpha");
		out_json_name(reused);
		out_json_name(reused);
		strcpy(reused, "delta");
		out_json_name(reused);
		strcpy(reused, "del");
		out_json_name(reused);
		strcpy(reused, "deltas\"");
		out_json_name(reused);
		out_set_sink(NULL);
		ck_assert_uint_eq(k.len, strlen("alphaalphadeltadeldeltas\\\""));
		ck_assert(memcmp(k.data, "alphaalphadeltadeldeltas\\\"", k.len) == 0);
		free(k.data);
	}
	memset(pad, '.', sizeof(pad));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i += 3) { /* plain, escaped, 47 bytes, escaped past a slot */
		wn = expected_escape((const unsigned char *)names[i], want);
		for (room = 0; room < 50; room++) {
			struct out_sink k = { NULL, 0, 0 };
			size_t used = OUT_BUFFER_SIZE - room;
			out_thread_init();
			out_set_sink(&k);
			out_json_name(names[i]); /* kept before the window fills */
			while (used) {
				size_t step = used < sizeof(pad) ? used : sizeof(pad);
				out_mem(pad, step);
				used -= step;
			}
			out_json_name(names[i]);
			out_set_sink(NULL);
			ck_assert_uint_eq(k.len, wn + OUT_BUFFER_SIZE - room + wn);
			ck_assert(memcmp(k.data + wn + OUT_BUFFER_SIZE - room, want, wn) == 0);
			free(k.data);
		}
	}
}
END_TEST

/* Numbers in decimal and hex, at every distance from the end of the window (the copy of a whole
 * number at once, or the careful path), checked against snprintf. */
START_TEST(numbers_at_every_window_position)
{
	uint64_t values[80], p10 = 1;
	static char pad[64];
	size_t v, room, nv = 0;

	/* every power of ten, one less and one more; powers of two around 2^32; the largest */
	for (v = 0; v < 20; v++, p10 *= 10) {
		values[nv++] = p10 - 1;
		values[nv++] = p10;
		values[nv++] = p10 + 1;
	}
	values[nv++] = 4294967295ull;
	values[nv++] = 4294967296ull;
	values[nv++] = UINT64_MAX;
	memset(pad, '.', sizeof(pad));
	for (v = 0; v < nv; v++) {
		for (room = 0; room < 24; room++) {
			struct out_sink k = { NULL, 0, 0 };
			char want[80];
			size_t used = OUT_BUFFER_SIZE - room, wn;
			int n;

			out_thread_init();
			out_set_sink(&k);
			/* fill the window up to `room` bytes from its end */
			while (used) {
				size_t step = used < sizeof(pad) ? used : sizeof(pad);
				out_mem(pad, step);
				used -= step;
			}
			out_u64(values[v]);
			out_char(' ');
			out_x64(values[v]);
			out_char(' ');
			out_i64(-(int64_t)(values[v] >> 1));
			out_set_sink(NULL);
			n = snprintf(want, sizeof(want), "%llu %llx -%llu", (unsigned long long)values[v],
				     (unsigned long long)values[v], (unsigned long long)(values[v] >> 1));
			wn = (size_t)n;
			if (values[v] >> 1 == 0)
				wn = (size_t)snprintf(want, sizeof(want), "%llu %llx 0", (unsigned long long)values[v],
						      (unsigned long long)values[v]);
			ck_assert_uint_eq(k.len, OUT_BUFFER_SIZE - room + wn);
			ck_assert(memcmp(k.data + OUT_BUFFER_SIZE - room, want, wn) == 0);
			free(k.data);
		}
	}
}
END_TEST

/* out_u64_near and out_time_ns against snprintf: runs of values sharing their digits above the
 * last nine (one, two or three such parts in turn: the kept parts are two), values under 10^9,
 * the largest ones, negative times, at every distance from the end of the window. */
START_TEST(near_numbers_as_printf)
{
	static const uint64_t highs[] = { 1595981179ull, 1ull, 18446744073ull, 1000000000ull };
	struct out_sink k = { NULL, 0, 0 };
	char *want = malloc(1 << 22), pad[24];
	size_t wn = 0, i;
	uint64_t x = 88172645463325252ull;

	ck_assert_ptr_nonnull(want);
	memset(pad, '.', sizeof(pad));
	out_thread_init();
	out_set_sink(&k);
	for (i = 0; i < 60000; i++) {
		uint64_t v, r;
		int64_t t;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x % 1000000000u;
		switch (i / 5000 % 6) {
		case 0: v = highs[0] * 1000000000u + r; break;                  /* one part */
		case 1: v = highs[i % 2] * 1000000000u + r % 1000; break;        /* two in turn, low zeros */
		case 2: v = highs[i % 3] * 1000000000u + r; break;               /* three in turn */
		case 3: v = x >> (x % 64); break;                                /* any size */
		case 4: v = i % 2 ? UINT64_MAX - r : highs[3] * 1000000000u; break;
		default: v = r; break;                                           /* under 10^9 */
		}
		t = (int64_t)(v >> (i % 2)) * (i % 3 == 0 ? -1 : 1);
		out_mem(pad, i % sizeof(pad)); /* every distance from the end of the window, over time */
		out_u64_near(v);
		out_char(' ');
		out_time_ns(t);
		out_char('\n');
		wn += (size_t)sprintf(want + wn, "%.*s%llu %lld\n", (int)(i % sizeof(pad)), pad, (unsigned long long)v,
				      (long long)t);
	}
	out_set_sink(NULL);
	ck_assert_uint_eq(k.len, wn);
	ck_assert(memcmp(k.data, want, wn) == 0);
	free(k.data);
	free(want);
}
END_TEST

/* out_fixed3 against snprintf's "%.3f": times as the chrome writer makes them (differences of
 * FILETIMEs in doubles, over ten, and differences of those), arbitrary fractions, negatives and
 * values out of the fast path's range. */
static void check_fixed3(double x)
{
	struct out_sink k = { NULL, 0, 0 };
	char want[400];
	size_t wn = (size_t)snprintf(want, sizeof(want), "%.3f", x);

	out_thread_init();
	out_set_sink(&k);
	out_fixed3(x);
	out_set_sink(NULL);
	ck_assert_msg(k.len == wn && memcmp(k.data, want, wn) == 0, "%.17g: %.*s, not %s", x, (int)k.len, k.data,
		      want);
	free(k.data);
}

START_TEST(fixed3_as_printf)
{
	static const double odd[] = { 0.0, -0.0, 0.0005, 0.0015, 0.0025, 1.0005, 2.5e-4, 999.9995, 123456.7895,
				      -1.25, -0.0004, 1e15, 1e15 - 0.1, 9.99999e14, 1e20, 4503599627370495.5 };
	uint64_t x = 88172645463325252ull;
	double prev = 0;
	size_t i;

	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		check_fixed3(odd[i]);
	for (i = 0; i < 200000; i++) {
		uint64_t origin, ft;
		double us;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		origin = 130000000000000000ull + (x >> 40);
		ft = origin + (x >> (20 + i % 24)); /* 0 to 2^44 ticks after it */
		us = ((double)ft - (double)origin) / 10.0;
		check_fixed3(us);
		check_fixed3(us - prev);
		check_fixed3((double)(x >> 11) / 9007199254740992.0 * 1e6); /* any fraction */
		prev = us;
	}
}
END_TEST

static Suite *out_suite(void)
{
	Suite *s = suite_create("out");
	TCase *t = tcase_create("core");

	tcase_add_test(t, json_strings_escape_every_byte_at_every_position);
	tcase_add_test(t, json_strings_long_and_mixed);
	tcase_add_test(t, json_names_as_json_strings);
	tcase_add_test(t, numbers_at_every_window_position);
	tcase_add_test(t, fixed3_as_printf);
	tcase_add_test(t, near_numbers_as_printf);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(out_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
