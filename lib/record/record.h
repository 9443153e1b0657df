/*
 * record.h - event records inside a buffer: every trace header kind.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_RECORD_RECORD_H
#define ETL_RECORD_RECORD_H

#include "internal.h"

/* Header type byte values (format reference 3.1). */
enum {
	ETL_HT_SYSTEM32 = 0x01, ETL_HT_SYSTEM64 = 0x02,
	ETL_HT_COMPACT32 = 0x03, ETL_HT_COMPACT64 = 0x04,
	ETL_HT_FULL32 = 0x0A, ETL_HT_INSTANCE32 = 0x0B,
	ETL_HT_TIMED = 0x0C, ETL_HT_ERROR = 0x0D, ETL_HT_WNODE = 0x0E,
	ETL_HT_PERFINFO32 = 0x10, ETL_HT_PERFINFO64 = 0x11,
	ETL_HT_EVENT32 = 0x12, ETL_HT_EVENT64 = 0x13,
	ETL_HT_FULL64 = 0x14, ETL_HT_INSTANCE64 = 0x15
};

/* WPP / TraceMessage option flags */
enum {
	ETL_MSG_SEQUENCE = 0x0001, ETL_MSG_GUID = 0x0002, ETL_MSG_COMPONENT_ID = 0x0004,
	ETL_MSG_TIMESTAMP = 0x0008, ETL_MSG_PERF_TIMESTAMP = 0x0010, ETL_MSG_SYSTEMINFO = 0x0020,
	ETL_MSG_POINTER32 = 0x0040, ETL_MSG_POINTER64 = 0x0080
};

#define ETL_END_MARKER 0xFFFFFFFFu

/*
 * Parses the record at pos of a buffer whose records end at fill (offsets
 * count from the start of the buffer, header included).
 *   ETL_OK   ev is filled (times, cpu and location are left to the caller);
 *            *advance = the aligned record size.
 *   ETL_END  the end marker, or no room for another record.
 *   < 0      d is set (d->offset relative to the buffer).  *advance is the
 *            number of bytes to skip when the size was trustworthy, or 0
 *            when the caller must search for the next record.
 */
int etl__record_parse(const uint8_t *buf, size_t fill, size_t pos, unsigned default_ptr_size,
		      struct etl_event *ev, size_t *advance, struct etl_diag *d);

/* What a light reading (etl__record_walk_light) takes of a record, without making an event: read
 * only where etl__record_parse would give ETL_OK, with the same advance, payload offset and time. */
struct etl_peek {
	uint64_t ts_raw;  /* unless inherited (a message without a time of its own) */
	size_t payload;   /* offset of the payload in the buffer */
	size_t end;       /* where the record ends (its size, without padding) */
	size_t guid_at;   /* full and instance headers: offset of the class GUID (else 0) */
	enum etl_header_kind kind;
	uint16_t hook;    /* kernel headers: HookId */
	uint16_t id;      /* event headers */
	uint32_t tid;     /* the thread its header names (ETL_ID_NONE: none) */
	uint8_t opcode;   /* full, instance and event headers (a kernel header's is the hook's low byte) */
	uint8_t inherited;
	uint8_t stack;    /* a StackWalk record (a kernel header's hook), or an event with a stack key */
};
/* Reading a buffer's records lightly (reader/plan.c). */
struct etl_light {
	uint64_t last;  /* in: the stream's last time before the buffer; out: after what was read */
	int stack;      /* out: a record said it was a stack record or had a stack key */
	int any;            /* out: the buffer's first record read (peeked) */
	int lead_inherited; /* out: it takes its time from the one before */
	uint64_t first_ts;  /* out: else its time */
	uint64_t records;   /* out: the records read */
	/* called for each record that may describe something (a kernel or classic header, an
	 * EventSource manifest chunk, id 0xFFFE): nonzero stops the walk */
	int (*each)(void *ctx, const uint8_t *buf, size_t pos, const struct etl_peek *pk);
	void *ctx;
};
/* Reads the header of the record at pos as etl__record_walk_light does: ETL_OK, with *pk and
 * *advance, only where etl__record_parse would give ETL_OK (with the same advance, payload, time
 * and thread); else ETL_E_FORMAT, and only etl__record_parse says what the record is. */
int etl__record_peek(const uint8_t *buf, size_t fill, size_t pos, struct etl_peek *pk, size_t *advance);
/* Walks the records of an uncompressed or decompressed buffer from its header to fill as the
 * reader reads them (reader/merge.c), without making events: ETL_OK when each, up to where only
 * padding is left (data_end, etl__walk_padding_start), reads as etl__record_parse reads it, at a
 * time no earlier than the one before, and none takes in another (etl__record_swallowed); else
 * ETL_E_FORMAT - a record the reader would report, or a stop said by lt->each. */
int etl__record_walk_light(const uint8_t *buf, size_t fill, size_t data_end, unsigned ptr_size, struct etl_light *lt);

/* Of the record parsed at pos (advance bytes with its padding, its payload from offset payload,
 * its time ts_raw): where a whole record starts in its payload that ends exactly where it ends,
 * with a time of its own at or soon after ts_raw - the shape of a record whose size was damaged
 * to take in the next one - or 0. */
size_t etl__record_swallowed(const uint8_t *buf, size_t pos, size_t advance, size_t payload, uint64_t ts_raw,
			     unsigned default_ptr_size);

/* Parses the header buffer's first record, the logfile header, into t.
 * Returns ETL_OK or < 0 with d set. */
int etl__logfile_parse(const uint8_t *buf, size_t fill, struct etl_trace_info *t,
		       struct etl_diag *d);

/* The kernel group whose event-class GUID g is, or -1 (etl_kernel_group_guid() backwards). */
int etl__record_group_of_class(const struct etl_guid *g);

#endif
