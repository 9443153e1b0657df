/*
 * state.h - the system state that kernel events describe: processes,
 * threads and loaded images, kept while the reader iterates.
 *
 * The tables only grow from events already delivered, so a lookup answers
 * "what was known at this point of the trace".  Process records are
 * allocated one by one: pointers handed out stay valid until the reader is
 * freed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_STATE_STATE_H
#define ETL_STATE_STATE_H

#include "decode/decode.h"
#include "util/htab.h"

struct etl_image_index;

struct etl_image_rec {
	uint64_t base, size;
	uint64_t load_time, unload_time; /* FILETIME; 0 unknown (loaded before the trace / not unloaded) */
	char *file_name;
};

struct etl_thread_name {
	uint32_t tid;
	char *name;
};

struct etl_process {
	int trace;
	uint32_t pid, parent_pid, session_id;
	int32_t exit_status;
	int ended;
	uint64_t start_time, end_time; /* FILETIME; 0 unknown (start: was running when the trace began) */
	char *image_name, *command_line; /* "" when unknown */
	struct etl_image_rec *images;
	size_t nimages, cap_images;
	struct etl_thread_name *threads; /* named threads, the latest name of each */
	size_t nthreads, cap_threads;
	struct etl_htab thread_at;       /* tid -> its index in threads (struct etl_state_slot) */
	struct etl_resolve_cache *rc;    /* address lookups (etl__process_resolve), made on first use */
	struct etl_image_index *ix;      /* images by address and base (images.h), made on first use */
	int ix_failed;                   /* no memory for it once: the images are searched one by one */
	uint64_t extents[16];            /* without it: a Bloom filter of its images' (base, size) */
};

struct etl_state_slot {
	uint64_t key;   /* trace << 32 | id, plus 1 */
	uint32_t value; /* process index (pid table) or pid (tid table) */
};

struct etl_state {
	struct etl_process **procs; /* in the order first seen */
	size_t nprocs, cap;
	struct etl_htab by_pid, by_tid; /* of struct etl_state_slot */
	size_t named_threads;
	uint64_t images, dropped;   /* images kept; records (or strings) not kept (limits, memory) */
	size_t string_bytes;        /* held by names and command lines */
	struct etl_arena image_names; /* the images' file names (kept as long as the tables) */
	struct etl_decoded scratch; /* decoding of the kernel events that feed the state */
	uint8_t *fact;              /* what the last of them gave the tables (facts.h) */
	size_t fact_cap;
	struct etl_guid last_class; /* the last MOF class seen and its kernel group (a one-entry cache) */
	int last_group, last_valid;
};

/* The most processes, threads and images kept, and the most bytes of names and command lines;
 * what does not fit is counted in dropped (a crafted trace cannot make the tables unbounded). */
#define ETL_STATE_MAX_PROCESSES (1u << 18)
#define ETL_STATE_MAX_THREADS (1u << 20)
#define ETL_STATE_MAX_IMAGES (1u << 20)
#define ETL_STATE_MAX_STRING_BYTES ((size_t)64 << 20)

/* Looks at a delivered event; updates the tables from Process, Thread and Image records: from
 * the fact ev carries (a copy of an event another reader delivered), else from its decoding.
 * keep, when not NULL (ev itself, delivered by this reader), is given the fact (valid until the
 * next such record), and the decoding is made in dec->out, as etl_reader_decode() would make
 * it, and left there for it (dec->out_event). */
void etl__state_observe(struct etl_state *st, struct etl_decode_state *dec, const struct etl_event *ev,
			struct etl_event *keep);
/* Whether etl__state_observe may update the tables from ev (a Process, Thread or Image record). */
int etl__state_observes(const struct etl_event *ev);
/* Whether a kernel record of group, opcode and version may change the tables: 0 when they do not
 * keep its kind, or it has no layout (it decodes to nothing). */
int etl__state_may_change(struct etl_decode_state *dec, int group, unsigned opcode, unsigned version);
/* Whether observing ev would change the tables: a record of the kinds they keep whose payload
 * decodes (a record without a layout, or damaged, changes nothing).  st and dec: scratch; when it
 * does, *fact_len is the length of its fact, left in st->fact (facts.h; 0: none made). */
int etl__state_changes(struct etl_state *st, struct etl_decode_state *dec, const struct etl_event *ev,
			size_t *fact_len);
/* The process an event belongs to (by pid, or by tid for records without one), or NULL. */
const struct etl_process *etl__state_process_of(const struct etl_state *st, const struct etl_event *ev);
/* subject.c: the process ev is about (its header's, else by the thread or process its payload
 * names: one rule per kind), or ETL_ID_NONE; and the thread its payload names (else its
 * header's). */
uint32_t etl__state_event_pid(const struct etl_state *st, const struct etl_event *ev);
uint32_t etl__state_subject_tid(const struct etl_event *ev);
/* The process of a thread, or NULL. */
const struct etl_process *etl__state_thread_process(const struct etl_state *st, int trace, uint32_t tid);
/* The latest name of a thread, or NULL. */
const char *etl__state_thread_name(const struct etl_state *st, int trace, uint32_t tid);
const struct etl_process *etl__state_find(const struct etl_state *st, int trace, uint32_t pid);
/* The image of p holding addr (and the offset in it), or NULL. */
const char *etl__process_resolve(const struct etl_process *p, uint64_t addr, uint64_t *offset);
void etl__state_free(struct etl_state *st);

#endif
