/*
 * cursor.h - the one way decoders read bytes: a bounds-checked cursor.
 *
 * Every getter checks `n <= len - pos` (never `pos + n <= len`, which can
 * overflow), builds integers from little-endian bytes explicitly (no struct
 * overlays, no unaligned loads, no host-endianness assumption) and, on a
 * short read, sets a sticky error and returns zero.  A decoder reads a whole
 * structure and then checks `cur_ok()` once.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_UTIL_CURSOR_H
#define ETL_UTIL_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etl.h"

struct etl_cursor {
	const uint8_t *base; /* first byte of the region */
	size_t len;          /* bytes in the region */
	size_t pos;          /* next byte to read, 0..len */
	int failed;          /* sticky: a read ran past len */
};

static inline uint16_t etl_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t etl_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t etl_le64(const uint8_t *p)
{
	return (uint64_t)etl_le32(p) | (uint64_t)etl_le32(p + 4) << 32;
}

/* Writing the same order (what the library writes to be read back: a time slice's state). */
static inline void etl_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void etl_put_le64(uint8_t *p, uint64_t v)
{
	etl_put_le32(p, (uint32_t)v);
	etl_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline void etl_guid_from_le(const uint8_t *p, struct etl_guid *g)
{
	g->data1 = etl_le32(p);
	g->data2 = etl_le16(p + 4);
	g->data3 = etl_le16(p + 6);
	memcpy(g->data4, p + 8, 8);
}

static inline void cur_init(struct etl_cursor *c, const uint8_t *base, size_t len)
{
	c->base = base;
	c->len = len;
	c->pos = 0;
	c->failed = 0;
}

static inline int cur_ok(const struct etl_cursor *c)
{
	return !c->failed;
}

static inline size_t cur_left(const struct etl_cursor *c)
{
	return c->len - c->pos;
}

/* Claims n bytes; returns a pointer to them or NULL (and fails the cursor). */
static inline const uint8_t *cur_take(struct etl_cursor *c, size_t n)
{
	const uint8_t *p;

	if (c->failed || n > c->len - c->pos) {
		c->failed = 1;
		return NULL;
	}
	p = c->base + c->pos;
	c->pos += n;
	return p;
}

static inline int cur_seek(struct etl_cursor *c, size_t pos)
{
	if (c->failed || pos > c->len) {
		c->failed = 1;
		return 0;
	}
	c->pos = pos;
	return 1;
}

static inline int cur_skip(struct etl_cursor *c, size_t n)
{
	return cur_take(c, n) != NULL;
}

static inline uint8_t cur_u8(struct etl_cursor *c)
{
	const uint8_t *p = cur_take(c, 1);
	return p ? p[0] : 0;
}

static inline uint16_t cur_u16(struct etl_cursor *c)
{
	const uint8_t *p = cur_take(c, 2);
	return p ? etl_le16(p) : 0;
}

static inline uint32_t cur_u32(struct etl_cursor *c)
{
	const uint8_t *p = cur_take(c, 4);
	return p ? etl_le32(p) : 0;
}

static inline uint64_t cur_u64(struct etl_cursor *c)
{
	const uint8_t *p = cur_take(c, 8);
	return p ? etl_le64(p) : 0;
}

/* A pointer-sized field (4 or 8 bytes), widened to 64 bits. */
static inline uint64_t cur_ptr(struct etl_cursor *c, unsigned ptr_size)
{
	return ptr_size == 4 ? cur_u32(c) : cur_u64(c);
}

static inline void cur_guid(struct etl_cursor *c, struct etl_guid *g)
{
	const uint8_t *p = cur_take(c, 16);
	if (p)
		etl_guid_from_le(p, g);
	else
		memset(g, 0, sizeof(*g));
}

#endif /* ETL_UTIL_CURSOR_H */
