/*
 * xpress.c - MS-XCA Plain LZ77 decompression ([MS-XCA] section 2.4).
 *
 * The stream is 32-bit flag words (read most significant bit first); a 0
 * bit is a literal byte, a 1 bit a 16-bit match token (distance - 1 in bits
 * 3..15, length - 3 in bits 0..2) whose length may be extended by a shared
 * nibble, a byte, a 16-bit and a 32-bit value.  Every read is checked
 * against the input, every copy against the output and its history.
 *
 * SPDX-License-Identifier: MIT
 */
#include "codec/xpress.h"
#include "util/cursor.h"

/* Far enough from the ends to copy literals 32 bytes at a time and read a match token with its
 * longest length (8 bytes) without a check: input and output left after the flag word. */
#define FAST_IN 64u
#define FAST_OUT 64u

static unsigned clz32(uint32_t x) /* x != 0 */
{
#if defined(__GNUC__)
	return (unsigned)__builtin_clz(x);
#else
	unsigned n = 0;
	while (!(x & 0x80000000u)) {
		x <<= 1;
		n++;
	}
	return n;
#endif
}

#define FAIL(msg)                    \
	do {                         \
		*err_at = ip;        \
		*why = (msg);        \
		*produced = op;      \
		return -1;           \
	} while (0)

/* A match length of 7 or more (the token's 3 bits all set): the shared nibble, then a byte, then
 * 16 or 32 bits (MS-XCA 2.4).  Returns NULL with *len the length less 3, or what was wrong. */
static const char *long_length(const uint8_t *in, size_t in_len, size_t *ip, size_t *half, size_t *len)
{
	size_t n;

	if (*half == 0) {
		if (*ip == in_len)
			return "length nibble runs past the input";
		n = in[*ip] & 15;
		*half = (*ip)++;
	} else {
		n = in[*half] >> 4;
		*half = 0;
	}
	if (n == 15) {
		if (*ip == in_len)
			return "length byte runs past the input";
		n = in[(*ip)++];
		if (n == 255) {
			if (in_len - *ip < 2)
				return "16-bit length runs past the input";
			n = etl_le16(in + *ip);
			*ip += 2;
			if (n == 0) {
				if (in_len - *ip < 4)
					return "32-bit length runs past the input";
				n = etl_le32(in + *ip);
				*ip += 4;
			}
			if (n < 15 + 7)
				return "extended match length is too small";
			n -= 15 + 7;
		}
		n += 15;
	}
	*len = n + 7;
	return NULL;
}

/* Copies a match of len bytes from dist back to out + op, with room bytes left in the output
 * (len <= room).  Overlapping copies are the point (runs): a block may be copied at once only
 * where its source was written before; with room to spare, fixed-size blocks may write past the
 * match (what follows overwrites it). */
static inline void copy_match(uint8_t *out, size_t op, size_t dist, size_t len, size_t room)
{
	uint8_t *d = out + op;
	const uint8_t *s = d - dist;
	size_t i;

	if (dist >= 16 && room >= 32 && len <= 32) {
		memcpy(d, s, 16);
		memcpy(d + 16, s + 16, 16);
	} else if (dist >= 16 && room >= len + 16) {
		for (i = 0; i < len; i += 16)
			memcpy(d + i, s + i, 16);
	} else if (dist >= 8 && room >= len + 8) {
		for (i = 0; i < len; i += 8)
			memcpy(d + i, s + i, 8);
	} else if (dist >= len) {
		memcpy(d, s, len);
	} else if (dist >= 8) {
		/* overlapping, but each 8-byte step reads bytes already written */
		for (i = 0; i + 8 <= len; i += 8)
			memcpy(d + i, s + i, 8);
		for (; i < len; i++)
			d[i] = s[i];
	} else {
		for (i = 0; i < len; i++)
			d[i] = s[i];
	}
}

/* How many of the flag word's nflags unread bits (its low ones) are zero from the top: literals. */
static inline size_t literal_run(uint32_t flags, unsigned nflags)
{
	uint32_t rest = nflags == 32 ? flags : flags & ((1u << nflags) - 1);

	return nflags - (rest ? (unsigned)(32 - clz32(rest)) : 0u);
}

int etl__xpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			   size_t *produced, size_t *err_at, const char **why)
{
	size_t ip = 0, op = 0, half = 0; /* half: position of a pending shared nibble, 0 = none */
	uint32_t flags = 0;
	unsigned nflags = 0;

	for (;;) {
		size_t run, len, dist;
		uint32_t tok;

		if (nflags == 0) {
			if (op == out_len)
				break; /* full; trailing flag words may follow */
			if (in_len - ip < 4)
				FAIL("flag word runs past the input");
			flags = etl_le32(in + ip);
			ip += 4;
			nflags = 32;
		}
		run = literal_run(flags, nflags);
		if (in_len - ip >= FAST_IN && out_len - op >= FAST_OUT) {
			/* far from both ends: the literals (perhaps none) in two vector moves, the bytes
			 * past the run written again later, and on to the match without a branch */
			memcpy(out + op, in + ip, 32);
			op += run;
			ip += run;
			nflags -= (unsigned)run;
			if (nflags == 0)
				continue;
		} else if (run) {
			if (run > in_len - ip)
				run = in_len - ip;
			if (run > out_len - op)
				run = out_len - op;
			if (run == 0)
				break;
			memcpy(out + op, in + ip, run);
			op += run;
			ip += run;
			nflags -= (unsigned)run;
			continue;
		}
		/* a match */
		nflags--;
		if (ip == in_len)
			break; /* the end of the stream */
		if (in_len - ip < 2)
			FAIL("match token runs past the input");
		tok = etl_le16(in + ip);
		ip += 2;
		len = tok & 7;
		dist = (size_t)(tok >> 3) + 1;
		if (len == 7) {
			const char *bad = long_length(in, in_len, &ip, &half, &len);
			if (bad)
				FAIL(bad);
		}
		len += 3;
		if (dist > op)
			FAIL("match distance reaches before the start of the output");
		if (len > out_len - op)
			FAIL("match runs past the declared uncompressed size");
		copy_match(out, op, dist, len, out_len - op);
		op += len;
	}
	*produced = op;
	if (op != out_len) {
		*err_at = ip;
		*why = "stream ended before the declared uncompressed size";
		return -1;
	}
	return 0;
}
