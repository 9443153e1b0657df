/*
 * container.h - traces inside gzip streams and zip archives (PerfView's
 * .etl.zip), recognised by content and unpacked into temporary files.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_IO_CONTAINER_H
#define ETL_IO_CONTAINER_H

#include "io/source.h"

struct etl_unpack;

/* A kind of container (container.c lists them: adding one is a sniff, an unpack and a line
 * there; docs/HACKING.md) */
struct etl_container {
	const char *name;   /* "gzip", "zip": the trace information's container, and messages */
	int named_members;  /* its traces are named archive:member (else after the archive) */
	int (*sniff)(const uint8_t *head, size_t n); /* whether the file's first n bytes are its */
	int (*unpack)(struct etl_unpack *u, struct etl_diag *d);
};

/* What an archive may unpack in all: this many times its own size (a deflated trace shrinks 5 to
 * 20 times; deflate's own ceiling is 1032), and never more than the spool-size limit. */
#define ETL_SPOOL_RATIO 256u
/* Members of a zip archive looked at; the rest are reported, not read. */
#define ZIP_MAX_MEMBERS 4096u
/* Bytes of a member unpacked to tell whether it is a trace. */
#define ETL_CONTAINER_HEAD 0x50u

/* What the caller wants of a zip member, by its name and first bytes (at most
 * ETL_CONTAINER_HEAD): nothing, the trace it is, or its bytes kept for another use. */
enum etl_member_use { ETL_MEMBER_SKIP = 0, ETL_MEMBER_TRACE = 1, ETL_MEMBER_KEEP = 2 };
typedef enum etl_member_use (*etl_member_test)(const char *name, const uint8_t *head, size_t n);

/* The container the first bytes of a source say it is, or NULL (not one). */
const struct etl_container *etl__container_sniff(const struct etl_source *src);

struct etl_member {
	char *name;             /* member path inside the archive ("" for gzip), as stored */
	char shown[128];        /* the name escaped for messages (control bytes as \xNN), cut */
	struct etl_source src;  /* the unpacked bytes (valid if unpacked) */
	int unpacked;           /* src holds the member's bytes (all, or up to damage) */
	int is_trace;           /* the caller's test said a trace (gzip: always) */
	int kept;               /* the caller's test said keep (unpacked, not a trace) */
	int damaged;            /* diag describes what went wrong */
	struct etl_diag diag;   /* offsets are in the container file */
};

struct etl_members {
	struct etl_member *m;
	size_t count, cap;
	int noted;              /* note: something about the archive as a whole (too many members) */
	struct etl_diag note;
};

/*
 * Lists every member and unpacks those the caller's test wants (gzip: its one stream)
 * into one temporary file.  Damage in one member (a truncated or corrupt stream, a CRC
 * mismatch, data overlapping another member's) is recorded in that member and the bytes that
 * could be recovered are kept.  Returns < 0 with d set only when nothing can be listed at all,
 * or for I/O and memory failures.  limit bounds the bytes unpacked in all (with
 * ETL_SPOOL_RATIO).
 */
int etl__container_unpack(const struct etl_source *src, const struct etl_container *kind, uint64_t limit,
			  etl_member_test want, struct etl_members *out, struct etl_diag *d);
void etl__members_free(struct etl_members *ms);

#endif
