/*
 * kernel.h - built-in layouts of the classic kernel events.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_KERNEL_H
#define ETL_DECODE_KERNEL_H

#include "schema/schema.h"

#define ETL_KERNEL_MAX_LAYOUTS 192
/* Pseudo-groups past the kernel's for KernelTraceControl's merge-time classes */
#define ETL_KERNEL_KTC_FIRST 0x40

#define ETL_KERNEL_KIND_SLOTS 256
/* Schemas per layout: 4-byte pointers, 8-byte pointers, 8-byte with a 32-bit ImageSize packed and
 * naturally aligned (kernel.c) */
#define ETL_KERNEL_SHAPES 4

/* What is known of one (group, opcode, version): its layout and PerfView's names. */
struct etl_kernel_kind {
	uint32_t key;          /* 0: empty slot */
	uint8_t layout;        /* index + 1 in the layout table; 0: none */
	const char *provider;  /* "Windows Kernel", "KernelTraceControl" or "MSNT_SystemTrace" (static) */
	const char *task, *op; /* PerfView's task and opcode names (static; may be NULL) */
	char *name;            /* the event name, owned by the cache */
	char *reason;          /* why it stays raw when it has no layout (owned; NULL until needed) */
};

struct etl_kernel_cache {
	struct etl_schema schemas[ETL_KERNEL_SHAPES * ETL_KERNEL_MAX_LAYOUTS]; /* by layout, then shape */
	uint8_t built[ETL_KERNEL_SHAPES * ETL_KERNEL_MAX_LAYOUTS];
	/* by layout: 1 + the top-level index of its ImageSize, ProcessID and ParentID fields (0:
	 * none), the values whose plausibility is checked after decoding */
	uint8_t roles[ETL_KERNEL_MAX_LAYOUTS][3];
	struct etl_kernel_kind kinds[ETL_KERNEL_KIND_SLOTS]; /* direct-mapped: traces repeat few kinds */
};

/* The layout and names of a kind, from the cache (NULL: out of memory). */
struct etl_kernel_kind *etl__kernel_kind(struct etl_kernel_cache *kc, unsigned group, unsigned opcode,
					 unsigned version);
/* PerfView's task and opcode names of a kernel group/opcode: 1 if known (opcode_name may be NULL). */
int etl__kernel_names(unsigned group, unsigned opcode, const char **task, const char **opcode_name);
/* "Windows Kernel", or "KernelTraceControl" for its pseudo-groups. */
const char *etl__kernel_provider_name(unsigned group);
/* The kernel group (or KernelTraceControl pseudo-group) whose class GUID g is, or -1. */
int etl__kernel_group_of_class(const struct etl_guid *g);
/* Decodes ev with its built-in layout: ETL_OK, ETL_END when there is none (or the pointer size of a
 * MOF-class event cannot be proven: d->reason says so and d->doubtful is set), or < 0 on a payload
 * fault. */
int etl__kernel_decode(struct etl_kernel_cache *kc, struct etl_decoded *d, const struct etl_event *ev,
		       const struct etl_kernel_kind *kind, struct etl_diag *diag);
void etl__kernel_cache_free(struct etl_kernel_cache *kc);
size_t etl__kernel_layout_count(void);

#endif
