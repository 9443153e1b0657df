/*
 * ktables.h - the tables of the classic kernel events (ktables.c): their
 * layouts as data, (group, opcodes, versions) -> fields, and PerfView's
 * task and opcode names; kernel.c turns layouts into schemas and decodes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_KTABLES_H
#define ETL_DECODE_KTABLES_H

#include "decode/kernel.h"

#define KF_REST 2u
#define KF_COUNT 4u /* an array whose element count is the value of field `length` (its index) */
#define KTC_IMAGEID ETL_KERNEL_KTC_FIRST
#define KTC_SYSCONFIG (ETL_KERNEL_KTC_FIRST + 1)
#define KTC_METADATA (ETL_KERNEL_KTC_FIRST + 2) /* merge-time TRACE_EVENT_INFO: read by decode.c */
#define KTC_WINSAT (ETL_KERNEL_KTC_FIRST + 3)   /* WinSAT's assessment XML, LZNT1-compressed */


#define STRICT_OR_NEXT 2

struct kf {
	const char *name;
	uint16_t in, out;
	uint8_t flags;
	uint16_t length; /* ETL_IN_BINARY: bytes; ETL_IN_UNICODESTRING: a fixed array of this many units */
	const struct etl_map *map; /* names for its values (kmaps.c), or NULL */
};

/* kmaps.c: names of kernel fields' values and flags */
extern const struct etl_map etl__kmap_irp_flags, etl__kmap_create_options, etl__kmap_share_access,
	etl__kmap_wait_reason, etl__kmap_thread_state, etl__kmap_wait_mode, etl__kmap_process_flags,
	etl__kmap_mem_flags;

struct klayout {
	uint8_t group;
	uint8_t ops[10]; /* opcodes sharing the layout, 0xFF-terminated */
	uint8_t vmin, vmax;
	const struct kf *fields;
	uint8_t nfields;
	/* 1: a layout from the WDK's MOF documentation that no corpus record has checked; it is
	 * used only when it accounts for every payload byte, else the event stays raw.
	 * STRICT_OR_NEXT: the same, but a payload that does not fit is tried against the next row
	 * (an alternative the documentation leaves open, e.g. a string's encoding) */
	uint8_t strict;
};

extern const struct klayout etl__klayouts[];
/* The layout of (group, opcode, version), or NULL. */
const struct klayout *etl__klayout_find(unsigned group, unsigned opcode, unsigned version);
/* WinSAT's record (its Xml field is LZNT1-compressed) */
extern const struct kf etl__k_winsat[];
/* Name entry i of the table of PerfView's names (for tests): 1 and its parts, 0 past the end. */
int etl__kernel_name_at(size_t i, unsigned *group, unsigned *opcode, const char **task, const char **op);

#endif
