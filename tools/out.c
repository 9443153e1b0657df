/*
 * out.c - etldump's output buffer (see out.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <etl.h>

#include "hmap.h"
#include "out.h"

#include <math.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

_Thread_local struct out_buffer out_buf;

void out_thread_init(void)
{
	out_buf.data = out_buf.own;
	out_buf.len = 0;
	out_buf.sink = NULL;
}

/* Room for n more bytes after the sink's len (its block may move); 0, or -1 without memory. */
static int sink_reserve(struct out_sink *k, size_t n)
{
	if (n > SIZE_MAX - k->len)
		return -1;
	return grow_array(&k->data, &k->cap, k->len + n, 1, 4 * (size_t)OUT_BUFFER_SIZE);
}

/* Points the window at the sink's free end (or at the thread's own buffer if it cannot grow:
 * the output is then lost, and out_buf.failed says so). */
static void sink_window(void)
{
	struct out_sink *k = out_buf.sink;

	out_buf.len = 0;
	if (k && !out_buf.failed && sink_reserve(k, OUT_BUFFER_SIZE) == 0) {
		out_buf.data = k->data + k->len;
		return;
	}
	if (k)
		out_buf.failed = 1;
	out_buf.data = out_buf.own;
}

void out_flush(void)
{
	struct out_sink *k = out_buf.sink;

	if (!k) {
		if (out_buf.len && fwrite(out_buf.data, 1, out_buf.len, stdout) != out_buf.len) {
			if (!out_buf.err)
				out_buf.err = errno ? errno : EIO;
			out_buf.failed = 1;
		}
		out_buf.len = 0;
		return;
	}
	if (out_buf.data != out_buf.own)
		k->len += out_buf.len; /* written in place */
	sink_window();
}

void out_set_sink(struct out_sink *k)
{
	out_flush();
	out_buf.sink = k;
	if (k)
		sink_window();
	else
		out_buf.data = out_buf.own;
}

#if defined(__GNUC__)
__attribute__((noinline)) /* the slow path stays out of the writers (and GCC's -O3 range checks) */
#endif
void out_mem_slow(const void *p, size_t n)
{
	struct out_sink *k = out_buf.sink;

	out_flush();
	if (n <= OUT_BUFFER_SIZE) {
		memcpy(out_buf.data, p, n);
		out_buf.len = n;
	} else if (!k) {
		if (fwrite(p, 1, n, stdout) != n)
			out_buf.failed = 1;
	} else if (!out_buf.failed && out_buf.data != out_buf.own && sink_reserve(k, n) == 0) {
		memcpy(k->data + k->len, p, n);
		k->len += n;
		sink_window();
	} else {
		out_buf.failed = 1;
	}
}

static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The digits tmp[i, end) into the window: with room for all of tmp[i, i + end) in one fixed-size
 * copy (end is a constant where this is inlined: two moves, no call). */
static inline void out_digits(const char *tmp, size_t i, size_t end)
{
	if (OUT_BUFFER_SIZE - out_buf.len >= end) {
		memcpy(out_buf.data + out_buf.len, tmp + i, end);
		out_buf.len += end - i;
	} else {
		out_mem(tmp + i, end - i);
	}
}

/* 1 to 4 digits of v (< 10000) at o, without leading zeros; their count. */
static inline size_t put_upto4(char *o, uint32_t v)
{
	if (v < 100) {
		if (v < 10) {
			o[0] = (char)('0' + v);
			return 1;
		}
		memcpy(o, two_digits + 2 * v, 2);
		return 2;
	}
	if (v < 1000) {
		o[0] = (char)('0' + v / 100);
		memcpy(o + 1, two_digits + 2 * (v % 100), 2);
		return 3;
	}
	memcpy(o, two_digits + 2 * (v / 100), 2);
	memcpy(o + 2, two_digits + 2 * (v % 100), 2);
	return 4;
}

/* The four digits of v (< 10000), zeros kept, at o. */
static inline void put4(char *o, uint32_t v)
{
	memcpy(o, two_digits + 2 * (v / 100), 2);
	memcpy(o + 2, two_digits + 2 * (v % 100), 2);
}

void out_u64(uint64_t v)
{
	/* the digits end at tmp + 20, so that 20 bytes from the first digit are always inside tmp:
	 * with room in the window they go in one fixed-size copy (two moves, no call) */
	char tmp[40];
	size_t i = 20;

	if (OUT_BUFFER_SIZE - out_buf.len >= 8 && v < 100000000u) {
		/* most numbers (offsets, sizes, ids): straight into the window, four digits a step */
		char *o = out_buf.data + out_buf.len;
		uint32_t w = (uint32_t)v;
		if (w < 10000) {
			out_buf.len += put_upto4(o, w);
		} else {
			size_t n = put_upto4(o, w / 10000);
			put4(o + n, w % 10000);
			out_buf.len += n + 4;
		}
		return;
	}
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		i -= 2;
		memcpy(tmp + i, two_digits + 2 * r, 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(tmp + i, two_digits + 2 * v, 2);
	} else {
		tmp[--i] = (char)('0' + v);
	}
	out_digits(tmp, i, 20);
}

/* The nine digits of v (< 10^9), zeros kept, at o. */
static inline void put_low9(char *o, uint32_t v)
{
	uint32_t top = v / 100000000u, mid = v / 10000u % 10000u;

	o[0] = (char)('0' + top);
	put4(o + 1, mid);
	put4(o + 5, v % 10000u);
}

void out_u64_near(uint64_t v)
{
	/* the digits above the last nine of the last two such parts written on this thread (an
	 * event's time and its time stamp take one each) */
	static _Thread_local struct {
		uint64_t high;
		size_t len;
		char digits[16];
	} seen[2] = { { UINT64_MAX, 0, { 0 } }, { UINT64_MAX, 0, { 0 } } };
	static _Thread_local unsigned older;
	uint64_t high = v / 1000000000u;
	uint32_t low = (uint32_t)(v % 1000000000u);
	char tmp[32];
	size_t n;
	unsigned k;

	if (v < 1000000000u) {
		out_u64(v);
		return;
	}
	k = seen[0].high == high ? 0 : seen[1].high == high ? 1 : 2;
	if (k == 2) { /* at most 11 digits */
		char t[16];
		size_t j = sizeof(t);
		uint64_t h = high;
		do {
			t[--j] = (char)('0' + h % 10);
			h /= 10;
		} while (h);
		k = older;
		older ^= 1;
		seen[k].high = high;
		seen[k].len = sizeof(t) - j;
		memcpy(seen[k].digits, t + j, seen[k].len);
	}
	n = seen[k].len;
	if (OUT_BUFFER_SIZE - out_buf.len >= 32) { /* straight into the window */
		char *o = out_buf.data + out_buf.len;
		memcpy(o, seen[k].digits, sizeof(seen[k].digits));
		put_low9(o + n, low);
		out_buf.len += n + 9;
		return;
	}
	memcpy(tmp, seen[k].digits, sizeof(seen[k].digits));
	put_low9(tmp + n, low);
	out_mem(tmp, n + 9);
}

void out_fixed3(double x)
{
	double scaled = x * 1000.0;
	uint64_t m;

	/* A value within a quarter of a whole number m of thousandths (times from 100 ns ticks are
	 * tenths) is printed as m: below 1e15 the product is off x * 1000 by at most 0.0625, so x is
	 * within 0.32 of m and printf's correctly rounded "%.3f" gives m too.  Anything else (and
	 * negative values, -0.0, NaN, infinities) goes through printf. */
	if (!(scaled >= 0 && scaled < 1e15) || signbit(scaled)) { /* -0.0 prints as "-0.000" */
		out_printf("%.3f", x);
		return;
	}
	m = (uint64_t)(scaled + 0.5);
	if (scaled - (double)m > 0.25 || (double)m - scaled > 0.25) {
		out_printf("%.3f", x);
		return;
	}
	out_u64(m / 1000);
	out_char('.');
	out_char((char)('0' + m / 100 % 10));
	out_char((char)('0' + m / 10 % 10));
	out_char((char)('0' + m % 10));
}

void out_i64(int64_t v)
{
	if (v < 0) {
		out_char('-');
		out_u64(-(uint64_t)v); /* well defined for INT64_MIN too */
	} else {
		out_u64((uint64_t)v);
	}
}

/* the two hex digits of every byte value (a constant: the worker threads share it) */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void out_x64(uint64_t v)
{
	char tmp[32]; /* as out_u64: the digits end at tmp + 16, copied 16 bytes at once */
	size_t i = 16;

	do { /* a byte a step, then without the top byte's leading zero */
		i -= 2;
		memcpy(tmp + i, hex_pairs + 2 * (v & 0xFF), 2);
		v >>= 8;
	} while (v);
	if (tmp[i] == '0' && i < 15)
		i++;
	out_digits(tmp, i, 16);
}

void out_hex16(uint64_t v)
{
	uint8_t b[8];
	unsigned i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
	out_hex(b, 8);
}

void out_filetime(uint64_t ft)
{
	static _Thread_local uint64_t second = UINT64_MAX;
	static _Thread_local char prefix[ETL_FILETIME_STRING_SIZE];
	static _Thread_local size_t prefix_len;
	uint64_t s = ft / 10000000u, frac = ft % 10000000u;
	char digits[8];
	int i;

	if (s != second) {
		/* the second's text up to its fraction ("YYYY-MM-DDTHH:MM:SS."), the library's; the
		 * fraction's seven digits and 'Z' follow, as etl_filetime_format writes them */
		char full[ETL_FILETIME_STRING_SIZE];
		const char *dot;
		etl_filetime_format(s * 10000000u, full);
		if (!(dot = strrchr(full, '.'))) {
			etl_filetime_format(ft, full); /* a text without a fraction: the library's as it is */
			out_cstr(full);
			return;
		}
		prefix_len = (size_t)(dot - full) + 1;
		memcpy(prefix, full, prefix_len);
		second = s;
	}
	out_mem(prefix, prefix_len);
	for (i = 6; i >= 0; i--, frac /= 10)
		digits[i] = (char)('0' + frac % 10);
	digits[7] = 'Z';
	out_mem(digits, 8);
}

void out_hex(const uint8_t *p, size_t n)
{
	while (n) {
		size_t room = (OUT_BUFFER_SIZE - out_buf.len) / 2, i;
		char *o;

		if (room == 0) {
			out_flush();
			continue;
		}
		if (room > n)
			room = n;
		o = out_buf.data + out_buf.len;
		for (i = 0; i < room; i++)
			memcpy(o + 2 * i, hex_pairs + 2 * p[i], 2);
		out_buf.len += 2 * room;
		p += room;
		n -= room;
	}
}

/* 1 for the bytes a JSON string must escape */
static const unsigned char json_escape[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1,
};

/* Where the first byte JSON must escape is in s[0, n), or n: eight bytes at a time (a word with a
 * control byte, a quote or a backslash is then looked at byte by byte). */
static size_t json_plain_prefix(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 0;

#if defined(__SSE2__)
	/* sixteen bytes a step: a control byte is one that the unsigned minimum with 0x1F leaves */
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
							_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
					   _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v));
		int m = _mm_movemask_epi8(hit);
		if (m)
			return i + (size_t)__builtin_ctz((unsigned)m);
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t w, q, b;
		memcpy(&w, s + i, 8); /* any byte order: only whether a byte matches counts */
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		if (((w - ones * 0x20) | (q - ones) | (b - ones)) & ~w & highs)
			break; /* a byte below 0x20, or 0 after the xor (a byte of 0x80 or more never matches) */
	}
	while (i < n && !json_escape[(unsigned char)s[i]])
		i++;
	return i;
}

void out_json_str(const char *s)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = strlen(s);

	for (;;) {
		size_t k = json_plain_prefix(s, n);
		unsigned char c;

		out_mem(s, k);
		if (k == n)
			return;
		c = (unsigned char)s[k];
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			out_mem(e, 2);
		} else {
			char e[6] = {'\\', 'u', '0', '0', digits[c >> 4], digits[c & 15]};
			out_mem(e, 6);
		}
		s += k + 1;
		n -= k + 1;
	}
}

/* The JSON bodies of the short strings written last, per thread, found by the string's
 * address and used only while the text there is the same as when it was escaped. */
#define NAME_SLOTS 1024
#define NAME_TEXT 48
struct name_slot {
	const char *at;          /* NULL: empty */
	uint8_t elen;            /* the length of its JSON body */
	char text[NAME_TEXT];    /* with its terminator */
	char body[NAME_TEXT];    /* room for a fixed-size copy: elen <= NAME_TEXT */
};

static _Thread_local struct name_slot name_slots[NAME_SLOTS];

#if defined(__GNUC__)
__attribute__((noinline)) /* (the hit path below stays short) */
#endif
static void name_miss(struct name_slot *k, const char *s)
{
	size_t n = strlen(s), e = SIZE_MAX;

	if (n < NAME_TEXT && json_plain_prefix(s, n) == n) { /* most names: nothing to escape */
		memcpy(k->body, s, n);
		e = n;
	} else if (n < NAME_TEXT) {
		e = out_json_escape(s, k->body, NAME_TEXT);
	}
	if (e == SIZE_MAX) { /* long, or escaped longer than the slot: as any string */
		k->at = NULL;
		out_json_str(s);
		return;
	}
	memcpy(k->text, s, n + 1);
	k->at = s;
	k->elen = (uint8_t)e;
	out_mem(k->body, e);
}

void out_json_name(const char *s)
{
	struct name_slot *k = &name_slots[((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 54]; /* 10 bits: NAME_SLOTS */

	if (k->at != s || strcmp(k->text, s) != 0) {
		name_miss(k, s);
	} else if (OUT_BUFFER_SIZE - out_buf.len >= NAME_TEXT) { /* one fixed-size copy */
		memcpy(out_buf.data + out_buf.len, k->body, NAME_TEXT);
		out_buf.len += k->elen;
	} else {
		out_mem(k->body, k->elen);
	}
}

size_t out_json_escape(const char *s, char *dst, size_t cap)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (n + 6 >= cap)
			return SIZE_MAX;
		if (!json_escape[c]) {
			dst[n++] = (char)c;
		} else if (c == '"' || c == '\\') {
			dst[n++] = '\\';
			dst[n++] = (char)c;
		} else {
			memcpy(dst + n, "\\u00", 4);
			dst[n + 4] = digits[c >> 4];
			dst[n + 5] = digits[c & 15];
			n += 6;
		}
	}
	return n;
}

void out_printf(const char *fmt, ...)
{
	va_list ap;
	size_t room = OUT_BUFFER_SIZE - out_buf.len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out_buf.data + out_buf.len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		out_buf.failed = 1;
		return;
	}
	if ((size_t)n < room) {
		out_buf.len += (size_t)n;
		return;
	}
	/* did not fit: flush and write again, through the heap when it cannot fit at all */
	out_flush();
	va_start(ap, fmt);
	if ((size_t)n < OUT_BUFFER_SIZE) {
		vsnprintf(out_buf.data, OUT_BUFFER_SIZE, fmt, ap);
		out_buf.len = (size_t)n;
	} else {
		char *big = malloc((size_t)n + 1);
		if (big) {
			vsnprintf(big, (size_t)n + 1, fmt, ap);
			out_mem_slow(big, (size_t)n);
			free(big);
		} else {
			out_buf.failed = 1;
		}
	}
	va_end(ap);
}
