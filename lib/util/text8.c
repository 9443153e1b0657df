/*
 * text8.c - 8-bit text from a trace as UTF-8: kept when it is UTF-8, else
 * read as Latin-1 (every byte one code point), so that what the library
 * hands out is always valid UTF-8 whatever the trace held.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"

int etl__utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = p[i], lo = 0x80, hi = 0xBF;
		size_t k, j;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF) {
			k = 1;
		} else if (c >= 0xE0 && c <= 0xEF) {
			k = 2;
			if (c == 0xE0)
				lo = 0xA0; /* not overlong */
			else if (c == 0xED)
				hi = 0x9F; /* not a surrogate */
		} else if (c >= 0xF0 && c <= 0xF4) {
			k = 3;
			if (c == 0xF0)
				lo = 0x90; /* not overlong */
			else if (c == 0xF4)
				hi = 0x8F; /* not past U+10FFFF */
		} else {
			return 0;
		}
		if (n - i - 1 < k || p[i + 1] < lo || p[i + 1] > hi)
			return 0;
		for (j = 2; j <= k; j++)
			if ((p[i + j] & 0xC0) != 0x80)
				return 0;
		i += k + 1;
	}
	return 1;
}

size_t etl__text8_to_utf8(const uint8_t *p, size_t n, char *out)
{
	size_t i, o = 0;

	if (etl__utf8_valid(p, n)) {
		if (n) /* an empty value may have no bytes at all (p NULL) */
			memcpy(out, p, n);
		out[n] = 0;
		return n;
	}
	for (i = 0; i < n; i++) {
		if (p[i] < 0x80) {
			out[o++] = (char)p[i];
			continue;
		}
		out[o++] = (char)(0xC0 | p[i] >> 6);
		out[o++] = (char)(0x80 | (p[i] & 0x3F));
	}
	out[o] = 0;
	return o;
}

const char *etl__path_file(const char *path)
{
	const char *b = path, *p;

	for (p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			b = p + 1;
	return b;
}
