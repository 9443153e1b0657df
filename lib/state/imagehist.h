/*
 * imagehist.h - the images of a trace over time: which image held an address
 * of a process at a given time, by the trace's whole record of image loads,
 * unloads and rundowns.
 *
 * The reader's state tables (state.h) answer with what the trace said up to
 * the last event delivered, so a stack frame read early (before the rundown
 * at the end of a WPR trace) or late (after an image was unloaded and another
 * loaded at its base) would resolve otherwise.  This history is read in the
 * stack index pass (stackwalk.c): every Image record of the trace, decoded
 * with the built-in layouts, then replayed in time order into lifetimes:
 *
 *   Load at t           loaded from t until its Unload (or the end)
 *   Unload at t         the newest image at that base loaded then: ends at t;
 *                       none: one loaded before the trace, until t
 *   DCStart, DCStop     loaded before the trace (unless an image of that base
 *                       and size is loaded then), until the end
 *   DbgID_RSDS          (KernelTraceControl ImageID, written by the merge
 *                       just before each image's record, at its time) the
 *                       image's PDB: GUID, age and name, given to the image
 *                       of that base loaded then (replayed after the image
 *                       records of its time stamp)
 *
 * A lookup at time t takes, of the images of the process whose lifetime holds
 * t and that cover the address, the one loaded last.  Memory is bounded: what
 * does not fit max_bytes is counted, not kept.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_STATE_IMAGEHIST_H
#define ETL_STATE_IMAGEHIST_H

#include <stddef.h>
#include <stdint.h>

#include "util/pidix.h"

#include "internal.h"

struct etl_decode_state;

/* An image record as the pass read it. */
struct etl_imgrec {
	uint64_t ts;           /* raw time stamp */
	uint64_t order;        /* file order, for records of one time stamp */
	uint64_t base, size;
	uint32_t pid;
	uint8_t op;            /* 2 Unload, 3 DCStart, 4 DCStop, 10 Load, 36 DbgID_RSDS */
	uint32_t checksum, stamp; /* ImageChecksum and TimeDateStamp (0: not in the record) */
	size_t name;           /* offset of the UTF-8 file name in the pool */
	size_t dbg;            /* DbgID_RSDS: its entry in dbg[] */
};

/* An image's PDB, as a DbgID_RSDS record names it. */
struct etl_dbgid {
	struct etl_guid guid;
	uint32_t age;
	size_t pdb_name;       /* in the pool: the PDB's path as the image's debug directory gives it */
};

/* An image with its lifetime. */
struct etl_himage {
	uint64_t base, size;
	uint64_t from, to;     /* raw time stamps: 0 = before the trace, UINT64_MAX = after it */
	uint32_t pid;
	uint32_t checksum, stamp;
	size_t name;           /* in the pool */
	size_t file;           /* in the pool: its file name (the name without its folders) */
	size_t dbg;            /* its PDB: dbg[dbg - 1], or 0 when the trace names none */
};

struct etl_imagehist {
	struct etl_imgrec *rec;
	size_t nrec, caprec;
	char *pool;
	size_t pool_len, pool_cap;
	uint64_t dropped;      /* records not kept (the byte limit, memory) */
	uint64_t next_order;
	struct etl_dbgid *dbg; /* the DbgID_RSDS records' PDBs */
	size_t ndbg, capdbg;
	struct etl_decode_state *dec; /* decodes the records while they are read */
	/* built by etl__imagehist_finish: images sorted by (pid, base, from) */
	struct etl_himage *img;
	size_t nimg;
	uint64_t *reach;       /* by image: the highest end of its process's images up to it (NULL:
				  not made, no memory) - where a lookup stops going down */
	struct etl_hpid {
		uint32_t pid;
		size_t first, count;
		uint64_t max_size;
	} *pids;
	size_t npids;
	struct etl_pidix pid_ix; /* pids' places by pid (no memory: a search) */
	int built;
};

/* Whether ev is a record of images (kernel Image group, or a MOF-class image record), or a
 * DbgID_RSDS record. */
int etl__imagehist_wants(const struct etl_event *ev);
/* The same for a kernel header (system, compact, PerfInfo) of that HookId. */
int etl__imagehist_wants_hook(unsigned hook);
/* The same for a classic or instance header of that event class and opcode. */
int etl__imagehist_wants_class(const struct etl_guid *cls, unsigned opcode);
/* Reads an image record (decoding it); kept within max_bytes of memory, else counted. */
void etl__imagehist_add(struct etl_imagehist *h, const struct etl_event *ev, uint64_t max_bytes);
/* Appends what part holds (read from later buffers than h's) to h. */
void etl__imagehist_append(struct etl_imagehist *h, const struct etl_imagehist *part, uint64_t max_bytes);
/* Replays the records in time order into lifetimes (the records are freed then). */
void etl__imagehist_finish(struct etl_imagehist *h);
/* The image of process pid that held addr at raw time ts, or NULL; *name its file name. */
const struct etl_himage *etl__imagehist_find(const struct etl_imagehist *h, uint32_t pid, uint64_t addr, uint64_t ts);
const char *etl__imagehist_name(const struct etl_imagehist *h, const struct etl_himage *im);
/* Its file name without folders (a part of the name). */
const char *etl__imagehist_file(const struct etl_imagehist *h, const struct etl_himage *im);
/* The PDB the trace names for im, or NULL. */
const struct etl_dbgid *etl__imagehist_dbgid(const struct etl_imagehist *h, const struct etl_himage *im);
/* Text of the pool (a file name, a PDB's name). */
const char *etl__imagehist_text(const struct etl_imagehist *h, size_t at);
void etl__imagehist_free(struct etl_imagehist *h);

#endif
