/*
 * crc32.h - the CRC-32 of gzip and zip members (crc32.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_UTIL_CRC32_H
#define ETL_UTIL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* zlib's crc32(crc, p, n): the CRC-32 of the bytes before (0 for none) continued over n bytes
 * at p; with carry-less multiplication where the processor has it. */
uint32_t etl__crc32(uint32_t crc, const uint8_t *p, size_t n);
/* The same, always by zlib (what the tests compare etl__crc32 with). */
uint32_t etl__crc32_portable(uint32_t crc, const uint8_t *p, size_t n);

#endif /* ETL_UTIL_CRC32_H */
