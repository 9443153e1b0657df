/*
 * utf16.c - UTF-16LE to UTF-8 by explicit length.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "internal.h"
#include "util/cursor.h"

static size_t put_utf8(uint8_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (uint8_t)(0xC0 | cp >> 6);
		o[1] = (uint8_t)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (uint8_t)(0xE0 | cp >> 12);
		o[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
		o[2] = (uint8_t)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (uint8_t)(0xF0 | cp >> 18);
	o[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
	o[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
	o[3] = (uint8_t)(0x80 | (cp & 0x3F));
	return 4;
}

/* Four units (8 bytes) as a word in the host's order, for tests that hold in either order. */
static uint64_t word8(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

#if defined(__SSE2__)
/* Eight units (16 bytes, little-endian: every SSE2 host is) from p. */
static __m128i load8(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}
#endif

size_t etl__utf16_units(const uint8_t *p, size_t max_units)
{
	size_t n = 0;

#if defined(__SSE2__)
	/* eight units a step: the mask has two bits for each zero unit */
	for (; n + 8 <= max_units; n += 8) {
		int m = _mm_movemask_epi8(_mm_cmpeq_epi16(load8(p + 2 * n), _mm_setzero_si128()));
		if (m)
			return n + (size_t)__builtin_ctz((unsigned)m) / 2;
	}
#endif
	/* a zero unit is a zero 16-bit lane of the word, whatever the host's byte order */
	for (; n + 4 <= max_units; n += 4) {
		uint64_t v = word8(p + 2 * n);
		if ((v - 0x0001000100010001ull) & ~v & 0x8000800080008000ull)
			break;
	}
	while (n < max_units && etl_le16(p + 2 * n) != 0)
		n++;
	return n;
}

size_t etl__utf16_convert(const uint8_t *p, size_t n, uint8_t *out)
{
	/* the bits that are 0 in four ASCII units (low byte < 0x80, high byte 0), as bytes: the
	 * word reads the same bytes in either byte order */
	static const uint8_t not_ascii_bytes[8] = { 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF };
	const uint64_t not_ascii = word8(not_ascii_bytes);
	size_t i = 0, o = 0;

#if defined(__SSE2__)
	/* eight ASCII units a step, packed to eight bytes (each unit is below 0x80) */
	for (; i + 8 <= n; i += 8, o += 8) {
		__m128i v = load8(p + 2 * i);
		if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xFF80)),
						      _mm_setzero_si128())) != 0xFFFF)
			break;
		_mm_storel_epi64((__m128i *)(void *)(out + o), _mm_packus_epi16(v, v));
	}
#endif
	for (; i + 4 <= n && !(word8(p + 2 * i) & not_ascii); i += 4, o += 4) {
		out[o] = p[2 * i];
		out[o + 1] = p[2 * i + 2];
		out[o + 2] = p[2 * i + 4];
		out[o + 3] = p[2 * i + 6];
	}
	for (; i < n; i++) {
		uint32_t u = etl_le16(p + 2 * i);

		if (u < 0x80) {
			out[o++] = (uint8_t)u;
			continue;
		}
		if (u >= 0xD800 && u <= 0xDBFF && i + 1 < n) {
			uint32_t l = etl_le16(p + 2 * (i + 1));

			if (l >= 0xDC00 && l <= 0xDFFF) {
				o += put_utf8(out + o, 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00));
				i++;
				continue;
			}
		}
		if (u >= 0xD800 && u <= 0xDFFF)
			u = 0xFFFD;
		o += put_utf8(out + o, u);
	}
	out[o] = 0;
	return o;
}

char *etl__utf16_to_utf8(const uint8_t *p, size_t max_units, size_t *units_used)
{
	size_t n = etl__utf16_units(p, max_units), cap;
	uint8_t *out;

	if (units_used)
		*units_used = n < max_units ? n + 1 : n;
	/* Each unit becomes at most 3 bytes (a surrogate pair, 2 units, 4 bytes). */
	if (!etl__mul_size(n, 3, &cap) || !etl__add_size(cap, 1, &cap))
		return NULL;
	out = etl__malloc(cap);
	if (!out)
		return NULL;
	etl__utf16_convert(p, n, out);
	return (char *)out;
}
