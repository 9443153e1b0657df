/*
 * crc32.c - the CRC-32 of gzip and zip (ISO 3309, the reflected polynomial 0xEDB88320), as
 * zlib's crc32() gives it, faster where the processor multiplies without carries.
 *
 * On x86-64 with PCLMULQDQ, blocks of 64 bytes are folded into four 128-bit remainders by
 * carry-less multiplication with x^(512+32) and x^512 mod P (reflected), the four folded into one
 * with x^(128+32) and x^128, then 128 bits reduced to 64, to 32, and to the CRC by Barrett
 * reduction (the method of Gopal et al., "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ Instruction", Intel, 2009).  The constants are those powers of x, computed for the
 * reflected polynomial.  Elsewhere, and for the bytes left over, zlib's crc32().
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdatomic.h>
#include <zlib.h>

#include "internal.h"
#include "util/crc32.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define CRC_CLMUL 1

/* x^(4*128+32), x^(4*128-32) mod P; x^(128+32), x^(128-32); x^64; u = x^64 / P, P (reflected) */
#define K1 0x154442bd4ULL
#define K2 0x1c6e41596ULL
#define K3 0x1751997d0ULL
#define K4 0x0ccaa009eULL
#define K5 0x163cd6124ULL
#define P_REFLECTED 0x1db710641ULL
#define U_REFLECTED 0x1f7011641ULL

__attribute__((target("pclmul,sse4.1"))) static inline __m128i fold(__m128i x, __m128i k, __m128i next)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

static inline __m128i load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* The CRC register (not inverted) after n bytes at p: n >= 64, a multiple of 16. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_clmul(uint32_t crc, const uint8_t *p, size_t n)
{
	const __m128i k12 = _mm_set_epi64x((long long)K2, (long long)K1);
	const __m128i k34 = _mm_set_epi64x((long long)K4, (long long)K3);
	const __m128i k5 = _mm_set_epi64x(0, (long long)K5);
	const __m128i pu = _mm_set_epi64x((long long)U_REFLECTED, (long long)P_REFLECTED);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)crc));
	__m128i x2 = load(p + 16), x3 = load(p + 32), x4 = load(p + 48), t;

	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		x1 = fold(x1, k12, load(p));
		x2 = fold(x2, k12, load(p + 16));
		x3 = fold(x3, k12, load(p + 32));
		x4 = fold(x4, k12, load(p + 48));
	}
	x1 = fold(x1, k34, x2);
	x1 = fold(x1, k34, x3);
	x1 = fold(x1, k34, x4);
	for (; n >= 16; p += 16, n -= 16)
		x1 = fold(x1, k34, load(p));
	/* 128 bits to 64 */
	t = _mm_clmulepi64_si128(x1, k34, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
	/* 64 bits to 32 */
	t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k5, 0x00);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 4), t);
	/* Barrett reduction */
	t = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, low32), pu, 0x10), low32);
	t = _mm_clmulepi64_si128(t, pu, 0x00);
	x1 = _mm_xor_si128(x1, t);
	return (uint32_t)_mm_extract_epi32(x1, 1);
}

static int have_clmul(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#endif

/* zlib's crc32() in pieces its length type holds */
static uint32_t crc_zlib(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n > 0) {
		uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
		crc = (uint32_t)crc32(crc, p, k);
		p += k;
		n -= k;
	}
	return crc;
}

uint32_t etl__crc32(uint32_t crc, const uint8_t *p, size_t n)
{
#ifdef CRC_CLMUL
	static atomic_int clmul = -1; /* (every thread that asks finds the same answer) */
	int yes;

	if (n >= 64) {
		if ((yes = atomic_load_explicit(&clmul, memory_order_relaxed)) < 0) {
			yes = have_clmul();
			atomic_store_explicit(&clmul, yes, memory_order_relaxed);
		}
		if (yes) {
			size_t m = n & ~(size_t)15;
			crc = ~crc_clmul(~crc, p, m);
			p += m;
			n -= m;
		}
	}
#endif
	return crc_zlib(crc, p, n);
}

uint32_t etl__crc32_portable(uint32_t crc, const uint8_t *p, size_t n)
{
	return crc_zlib(crc, p, n);
}
