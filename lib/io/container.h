/*
 * container.h - traces inside gzip streams and zip archives (PerfView's
 * .etl.zip), recognised by content and unpacked into temporary files.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_IO_CONTAINER_H
#define ETL_IO_CONTAINER_H

#include "io/source.h"

enum etl_container { ETL_CONTAINER_NONE = 0, ETL_CONTAINER_GZIP, ETL_CONTAINER_ZIP };

/* What the first bytes of a source say it is. */
enum etl_container etl__container_sniff(const struct etl_source *src);

struct etl_member {
	char *name;             /* member path inside the archive ("" for gzip) */
	struct etl_source src;  /* the unpacked bytes (valid if unpacked) */
	int unpacked;           /* src holds the member's bytes (all, or up to damage) */
	int is_trace;           /* the bytes start like a trace (set by the caller) */
	int damaged;            /* diag describes what went wrong */
	struct etl_diag diag;   /* offsets are in the container file */
};

struct etl_members {
	struct etl_member *m;
	size_t count, cap;
};

/*
 * Unpacks every member.  Damage in one member (a truncated or corrupt
 * stream, a CRC mismatch) is recorded in that member and the bytes that
 * could be recovered are kept.  Returns < 0 with d set only when nothing
 * can be listed at all, or for I/O and memory failures.  limit bounds the
 * bytes unpacked per member.
 */
int etl__container_unpack(const struct etl_source *src, enum etl_container kind, uint64_t limit,
			  struct etl_members *out, struct etl_diag *d);
void etl__members_free(struct etl_members *ms);

#endif
