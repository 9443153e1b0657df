/*
 * pbuf.h - building record payloads for the writer's scenarios: values
 * little-endian as Windows logs them, pointers of the trace's size, strings
 * with their terminator.  Overflowing the buffer aborts (a scenario bug).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLW_PBUF_H
#define ETLW_PBUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pbuf {
	uint8_t b[600];
	size_t n;
	unsigned ptr; /* 4 or 8 */
};

static inline void pb_room(struct pbuf *p, size_t n)
{
	if (n > sizeof(p->b) - p->n)
		abort();
}

static inline void pb_u32(struct pbuf *p, uint32_t v)
{
	int i;

	pb_room(p, 4);
	for (i = 0; i < 4; i++)
		p->b[p->n++] = (uint8_t)(v >> (8 * i));
}

static inline void pb_u64(struct pbuf *p, uint64_t v)
{
	pb_u32(p, (uint32_t)v);
	pb_u32(p, (uint32_t)(v >> 32));
}

static inline void pb_ptr(struct pbuf *p, uint64_t v)
{
	pb_u32(p, (uint32_t)v);
	if (p->ptr == 8)
		pb_u32(p, (uint32_t)(v >> 32));
}

static inline void pb_astr(struct pbuf *p, const char *s)
{
	size_t n = strlen(s) + 1;

	pb_room(p, n);
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

/* an ASCII string as UTF-16LE with its terminator */
static inline void pb_wstr(struct pbuf *p, const char *s)
{
	pb_room(p, 2 * (strlen(s) + 1));
	do {
		p->b[p->n++] = (uint8_t)*s;
		p->b[p->n++] = 0;
	} while (*s++);
}

#endif
