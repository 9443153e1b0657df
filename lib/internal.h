/*
 * internal.h - types shared by the library's layers (never installed).
 *
 * The layers, in the direction the data flows:
 *   io/      byte sources (path, fd, memory)
 *   walk/    WMI buffers: headers, the buffer index, per-CPU streams
 *   codec/   buffer decompression (MS-XCA Plain LZ77)
 *   record/  trace headers: the logfile header and every event header kind
 *   clock/   raw session ticks -> FILETIME / Unix time
 *   event.c  the public event view accessors
 *   decode/, manifest/  payloads into properties
 *   state/   processes, threads, images and call stacks
 *   reader/  the public reader: lifecycle, inputs, time-ordered merge, errors
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_INTERNAL_H
#define ETL_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etl.h"

#if defined(__GNUC__)
#  define ETL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#  define ETL_ALWAYS_INLINE inline __attribute__((always_inline)) /* a hot path's helper */
#else
#  define ETL_PRINTF(a, b)
#  define ETL_ALWAYS_INLINE inline
#endif

#define ETL_OFFSET_NONE UINT64_MAX
#define ETL_BUFFER_HEADER_SIZE 0x48u

/* ---- diagnostics: what a lower layer reports upward ---- */

struct etl_diag {
	int code;             /* enum etl_status, < 0 */
	uint64_t offset;      /* absolute file offset or ETL_OFFSET_NONE */
	int64_t buffer_index; /* -1 if none */
	int trace;            /* input index, -1 if none */
	char msg[240];
};

void etl__diag_set(struct etl_diag *d, int code, uint64_t offset, const char *fmt, ...)
	ETL_PRINTF(4, 5);
/* Context for a diagnostic a lower layer made: text before its message, or after it (both
 * cut to fit the message buffer). */
void etl__diag_prefix(struct etl_diag *d, const char *prefix);
void etl__diag_append(struct etl_diag *d, const char *fmt, ...) ETL_PRINTF(2, 3);

/* Text from an input (a member name, a provider name) made safe for a message: control bytes,
 * DEL, backslashes and quotes as \xNN; cut to cap - 1 bytes.  Returns out. */
const char *etl__quote(const char *s, char *out, size_t cap);

/* ---- memory (one place, so tests can inject failures) ---- */

void *etl__malloc(size_t n);
void *etl__calloc(size_t n, size_t size);
void *etl__realloc(void *p, size_t n);
void etl__free(void *p);
char *etl__strdup(const char *s);
/* Test hook: fail the Nth allocation from now (0 = never). */
void etl__test_fail_alloc_after(unsigned long n);

/* Overflow-checked helpers: return 0 on overflow. */
static inline int etl__add_size(size_t a, size_t b, size_t *out)
{
	if (a > SIZE_MAX - b)
		return 0;
	*out = a + b;
	return 1;
}

static inline int etl__mul_size(size_t a, size_t b, size_t *out)
{
	if (b != 0 && a > SIZE_MAX / b)
		return 0;
	*out = a * b;
	return 1;
}

/* The higher of before and the end of [start, start + size) (UINT64_MAX where that wraps): the
 * reach of sorted ranges, kept running, says where none below reaches an address. */
static inline uint64_t etl__reach(uint64_t before, uint64_t start, uint64_t size)
{
	uint64_t end = start + size < start ? UINT64_MAX : start + size;

	return before > end ? before : end;
}

/*
 * Makes room for `need` elements of `size` bytes in the array *arrp (a pointer to the array
 * pointer) whose capacity is *cap: doubles the capacity (from `first`, or 16, when empty) until
 * it holds `need`.  0, or -1 on overflow or out of memory (the array and *cap unchanged).
 */
int etl__grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first);

/* ---- strings ---- */

/* Decodes UTF-16LE (at most n code units, stopping at a NUL) into a new
 * UTF-8 string.  Bad surrogates become U+FFFD.  *units_used receives the
 * number of code units consumed including the NUL if one was found.
 * Returns NULL only when out of memory. */
char *etl__utf16_to_utf8(const uint8_t *p, size_t max_units, size_t *units_used);
/* The UTF-16 units before the first NUL (at most max_units). */
size_t etl__utf16_units(const uint8_t *p, size_t max_units);
/* n units to UTF-8 and a NUL in out (room for 3 * n + 1 bytes); returns the bytes before the NUL. */
size_t etl__utf16_convert(const uint8_t *p, size_t n, uint8_t *out);
/* Whether p[0, n) is UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
int etl__utf8_valid(const uint8_t *p, size_t n);
/* 8-bit text from a trace as UTF-8 into out (2 * n + 1 bytes): copied when it is UTF-8, else read
 * as Latin-1; NUL-terminated; returns the length. */
size_t etl__text8_to_utf8(const uint8_t *p, size_t n, char *out);

/* The file name of a path with Windows or POSIX separators (the part after its last '\\' or '/'). */
const char *etl__path_file(const char *path);

/* The two lowercase hex digits of every byte value b at 2 * b (guid.c). */
extern const char etl__hex_pairs[513];
/* Writes the two hex digits of the byte b & 0xFF at o (no terminator). */
static inline void etl__hex_byte(char *o, unsigned b)
{
	memcpy(o, etl__hex_pairs + 2 * (b & 0xFF), 2);
}

/* ---- clock ---- */

struct etl_clockconv {
	enum etl_clock type;
	uint64_t origin_raw;   /* raw timestamp of the logfile-header event */
	uint64_t origin_ft;    /* StartTime: FILETIME at origin_raw */
	uint64_t num, den;     /* FILETIME units per raw tick = num / den */
};

void etl__clock_init(struct etl_clockconv *c, enum etl_clock type, uint64_t origin_raw,
		     uint64_t start_ft, uint64_t perf_freq, uint32_t cpu_mhz);
uint64_t etl__clock_filetime(const struct etl_clockconv *c, uint64_t raw);
int64_t etl__filetime_to_unix_ns(uint64_t ft);

/* ---- trace information ---- */

struct etl_trace_info {
	char *name;
	const char *container;
	char **other_members;
	size_t other_member_count;
	uint64_t file_size;
	uint32_t buffer_size;
	uint32_t os_major, os_minor, layout_major, layout_minor, os_build;
	uint32_t cpu_count;
	uint64_t end_time, boot_time, start_time;
	uint32_t timer_resolution, maximum_file_size;
	uint32_t log_file_mode, buffers_written, start_buffers, pointer_size;
	uint32_t events_lost, cpu_speed_mhz, buffers_lost;
	uint32_t timer_source, perf_counter_source;
	uint32_t reserved_flags;
	uint64_t perf_freq;
	uint64_t start_raw;
	int32_t tz_bias, tz_std_bias, tz_dl_bias;
	char *tz_std_name, *tz_dl_name;
	char *logger_name, *log_file_name;
	uint32_t compression_format;
};

void etl__trace_info_clear(struct etl_trace_info *t);

/* ---- the event view ---- */

enum {
	ETL_EVF_ACTIVITY = 1u << 0,
	ETL_EVF_RELATED = 1u << 1,
	ETL_EVF_INSTANCE = 1u << 2,
	ETL_EVF_PEBS = 1u << 3,
	ETL_EVF_MSG_SEQ = 1u << 4,
	ETL_EVF_MSG_COMPID = 1u << 5,
	ETL_EVF_TS_INHERITED = 1u << 6,
	ETL_EVF_COMPRESSED = 1u << 7,
	ETL_EVF_OWNED = 1u << 8
};

/* Stack parts an event can have: kernel and user, full or compressed. */
#define ETL_STACK_PARTS 4

struct etl_event {
	enum etl_header_kind kind;
	uint8_t ptr_size;
	uint8_t version, channel, level, opcode;
	uint16_t id, task, hook_id;
	uint16_t hdr_flags, prop_flags, msg_flags;
	uint32_t flags; /* ETL_EVF_* */
	uint64_t keywords;
	uint32_t pid, tid, cpu, kernel_time, user_time;
	uint64_t ts_raw;
	uint64_t filetime;
	int64_t unix_ns;
	struct etl_guid provider, activity, related;
	uint32_t instance_id, parent_instance_id;
	struct etl_guid parent_guid;
	uint32_t msg_seq, msg_compid;
	uint64_t pebs;
	unsigned pmc_count;
	const uint8_t *pmc;     /* pmc_count little-endian u64 values */
	const uint8_t *ext;     /* extended item chain */
	size_t ext_len;
	unsigned ext_count;
	const uint8_t *payload;
	size_t payload_len;
	uint32_t record_size;
	int trace_index;
	uint64_t file_offset;
	uint64_t buffer_index;
	uint32_t buffer_offset;
	/* The call stack, in parts (kernel part, then user part): frames of stack_ptr[k] bytes
	 * each, set by the reader before the event is delivered (state/stacks.h).  A compressed
	 * part (StackKeyKernel/User, or a stack-key extended item) names a key; its stack_part
	 * stays NULL when the trace does not define the key. */
	unsigned nstack_parts;
	uint32_t stack_pid; /* the process whose addresses the frames are (StackProcess), or the header's */
	const uint8_t *stack_part[ETL_STACK_PARTS];
	uint32_t stack_count[ETL_STACK_PARTS];
	uint8_t stack_ptr[ETL_STACK_PARTS];
	uint64_t stack_key[ETL_STACK_PARTS], stack_key_ts[ETL_STACK_PARTS];
	/* A stack the trace's stack index may complete, not completed yet: the reader that
	 * delivered the event completes it (stack_finish(stack_ctx, ev)) when it is first asked
	 * for - reading the index then - so that events nobody asks the stack of cost nothing. */
	void (*stack_finish)(void *ctx, struct etl_event *ev);
	void *stack_ctx;
	/* What the reader that delivered the event learnt from it for its process, thread and image
	 * tables (state/facts.h), so that another reader given a copy need not decode it again;
	 * NULL for the other events.  An opaque blob here: copies carry it. */
	const uint8_t *state_fact;
	uint32_t state_fact_len;
};

/* Completes ev's stack where its reader left that for later (see struct etl_event). */
static inline void etl__event_stack_ready(const struct etl_event *ev)
{
	if (ev->stack_finish) {
		struct etl_event *m = (struct etl_event *)(uintptr_t)ev; /* the reader's own event */
		void (*f)(void *, struct etl_event *) = m->stack_finish;
		m->stack_finish = NULL;
		f(m->stack_ctx, m);
	}
}

#endif /* ETL_INTERNAL_H */
