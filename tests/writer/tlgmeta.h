/*
 * tlgmeta.h - building TraceLogging event metadata (the EVENT_SCHEMA_TL
 * extended item) for synthetic traces: an event name and its fields, in the
 * layout TraceLoggingProvider.h writes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLW_TLGMETA_H
#define ETLW_TLGMETA_H

#include <stddef.h>
#include <stdint.h>

struct mb {
	uint8_t b[1024];
	size_t n;
};

/* Each call aborts when the metadata outgrows the buffer (a bug in the caller). */
void mb_bytes(struct mb *m, const void *p, size_t n);
void mb_u8(struct mb *m, uint8_t v);
void mb_u16(struct mb *m, uint16_t v);
void mb_str(struct mb *m, const char *s);
/* Starts an event's metadata: size (patched by mb_end), tags 0, the name. */
void mb_begin(struct mb *m, const char *event);
/* A field: name, in-type (with its 0x20/0x40 array flags), an out-type when out >= 0. */
void mb_field(struct mb *m, const char *name, uint8_t in, int out);
void mb_end(struct mb *m);

#endif
