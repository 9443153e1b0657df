/*
 * tlgmeta.c - TraceLogging event metadata for synthetic traces (tlgmeta.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "tlgmeta.h"

void mb_bytes(struct mb *m, const void *p, size_t n)
{
	if (m->n + n > sizeof(m->b))
		abort();
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

void mb_u8(struct mb *m, uint8_t v) { mb_bytes(m, &v, 1); }
void mb_str(struct mb *m, const char *s) { mb_bytes(m, s, strlen(s) + 1); }

void mb_u16(struct mb *m, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	mb_bytes(m, x, 2);
}

void mb_begin(struct mb *m, const char *event)
{
	m->n = 0;
	mb_u16(m, 0); /* size, patched in mb_end */
	mb_u8(m, 0);  /* event tags */
	mb_str(m, event);
}

void mb_field(struct mb *m, const char *name, uint8_t in, int out)
{
	mb_str(m, name);
	mb_u8(m, (uint8_t)(in | (out >= 0 ? 0x80 : 0)));
	if (out >= 0)
		mb_u8(m, (uint8_t)out);
}

void mb_end(struct mb *m)
{
	m->b[0] = (uint8_t)m->n;
	m->b[1] = (uint8_t)(m->n >> 8);
}
