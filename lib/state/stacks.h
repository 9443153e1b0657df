/*
 * stacks.h - the stack index of a trace: compressed kernel stacks and stacks
 * logged away from their event.
 *
 * Most stack walk records follow their event in its buffer and the reader
 * attaches them by looking ahead (reader.c).  Two kinds cannot be found that
 * way, and this index holds them:
 *
 * - Stack keys.  With stack caching (Windows 8 and later, WPR's default) the
 *   kernel logs StackKeyKernel/StackKeyUser records naming a key (the address
 *   of a cache entry) instead of frames.  The entry's frames are logged when
 *   it is evicted (StackWalk/KeyDelete) or when the session ends
 *   (StackWalk/KeyRundown) - after the events that use it - and an evicted
 *   key may be used again for another stack.  A reference at time t
 *   therefore means the first definition of its key at or after t.
 * - Deferred stacks.  The user-mode part of a stack captured in kernel mode is
 *   walked when the thread returns to user mode, so its record (full or keyed)
 *   can come later, in another buffer.  Such records are indexed by the event
 *   they name: (EventTimeStamp, StackThread).
 *
 * The index is filled in one pass over the trace (stackwalk.c), made the
 * first time a stack of the trace is asked for (reader/deliver.c), on one
 * thread or in parts on several (reader/stackpass.c).
 * Memory is bounded: what does not fit the limit is counted, not kept.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_STATE_STACKS_H
#define ETL_STATE_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "state/imagehist.h"
#include "state/methodhist.h"
#include "walk/keep.h"
#include "walk/load.h"

/* a key definition (KeyDelete/KeyRundown) */
struct etl_stackdef {
	uint64_t key, ts; /* ts: raw time stamp of the defining record */
	size_t off;       /* of the frames in the pool */
	uint32_t count;   /* frames */
	uint8_t ptr;      /* bytes per frame */
};

/* a stack record that does not follow its event */
struct etl_stackref {
	uint64_t event_ts;    /* the event's raw time stamp */
	uint32_t tid;         /* StackThread */
	uint32_t pid;         /* StackProcess */
	uint8_t ptr, is_key;
	uint64_t key, key_ts; /* is_key: the key and the record's own time stamp */
	size_t off;           /* !is_key: the frames in the pool */
	uint32_t count;
};

struct etl_stacks {
	int loaded;               /* the index was read (possibly empty) */
	struct etl_stackdef *def; /* sorted by (key, ts) */
	size_t ndef, capdef;
	struct etl_stackref *ref; /* sorted by (event_ts, tid), then file order */
	size_t nref, capref;
	uint8_t *pool;            /* frames as logged (little-endian, ptr bytes each) */
	size_t pool_len, pool_cap;
	uint64_t dropped;         /* records not kept (the byte limit, memory) */
	/* the images over time, read in the same pass (imagehist.h): stack frames are resolved
	 * against the images loaded at their event's time */
	struct etl_imagehist images;
	/* the .NET methods over time, from the CLR's events read in the same pass (methodhist.h) */
	struct etl_methodhist methods;
};

/* Adds a key definition or a deferred record (frames copied); 0, or -1 when it was dropped. */
int etl__stacks_add_def(struct etl_stacks *k, uint64_t key, uint64_t ts, const uint8_t *frames,
			uint32_t count, unsigned ptr, uint64_t max_bytes);
int etl__stacks_add_ref(struct etl_stacks *k, const struct etl_stackref *ref, const uint8_t *frames,
			uint64_t max_bytes);
/* Sorts what was added (the stack records, and the image and .NET method histories: their
 * etl__imagehist_finish, etl__methodhist_finish); marks the index loaded. */
void etl__stacks_finish(struct etl_stacks *k);
/* The stack records' part of it alone (the histories are independent of them: another thread
 * may finish those meanwhile, reader/stackpass.c). */
void etl__stacks_sort(struct etl_stacks *k);
/* The definition a reference to key at raw time ts means, or NULL. */
const struct etl_stackdef *etl__stacks_find_def(const struct etl_stacks *k, uint64_t key, uint64_t ts);
/* The first deferred record naming event_ts with a thread >= tid (the next ones follow, sorted
 * by thread), or NULL when none names event_ts. */
const struct etl_stackref *etl__stacks_find_ref(const struct etl_stacks *k, uint64_t event_ts, uint32_t tid);
void etl__stacks_free(struct etl_stacks *k);

/* ---- stack records and events (stackwalk.c) ---- */

/* Attaches to ev (delivered from data[0, fill), its record ending at pos) the StackWalk records
 * that follow it and name its time and thread, and its stack-key extended item; sets *seen when
 * the trace has shown stack records (kept apart from the index, which another thread may be
 * reading in).  1 when the index may complete ev's stack (then etl__stacks_resolve), 0 when not
 * (no stack records seen yet, or ev is a stack record). */
int etl__stacks_attach(int *seen, struct etl_event *ev, const uint8_t *data, size_t fill, size_t pos);
/* Reads the trace's key definitions, away-from-event stack records, image and CLR method records in one
 * pass over its buffers (loaded with ld; damage is skipped silently, the reader's own pass reports it).
 * With keep, the buffers it decompressed without fault go there (within its budget) for the
 * reader's streams. */
void etl__stacks_load(struct etl_stacks *k, struct etl_bufload *ld, const struct etl_bufindex *ix,
		      unsigned ptr_size, uint64_t max_bytes, struct etl_bufkeep *keep);
/* Part of that pass: the buffers of ordinals [first, end) in the file (without
 * etl__stacks_finish).  The parts of a trace are independent: loaded into separate indexes
 * (on several threads) and appended in file order, they make the index of one pass. */
void etl__stacks_load_range(struct etl_stacks *k, struct etl_bufload *ld, const struct etl_bufindex *ix,
			    uint64_t first, uint64_t end, unsigned ptr_size, uint64_t max_bytes,
			    struct etl_bufkeep *keep);
/* One buffer of that pass (data, fill bytes, as loaded): parts of a pass made buffer by buffer
 * in file order (the header buffer left out) make the index of etl__stacks_load. */
void etl__stacks_load_buffer(struct etl_stacks *k, const uint8_t *data, size_t fill, unsigned ptr_size,
			     uint64_t max);
/* The same, parsing every record (etl__stacks_load_buffer parses only those it takes more than
 * the header of): what it must equal (tests/check_slices.c). */
void etl__stacks_load_buffer_whole(struct etl_stacks *k, const uint8_t *data, size_t fill, unsigned ptr_size,
				   uint64_t max);
/* Appends what part holds (loaded from later buffers than k's) to k, within max_bytes; 0, or -1
 * when something did not fit (then counted in k->dropped). */
int etl__stacks_append(struct etl_stacks *k, const struct etl_stacks *part, uint64_t max_bytes);
/* Completes ev's stack from the loaded index: records logged away from it, frames of keys. */
void etl__stacks_resolve(const struct etl_stacks *k, struct etl_event *ev);

#endif /* ETL_STATE_STACKS_H */
