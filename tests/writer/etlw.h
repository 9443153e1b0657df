/*
 * etlw.h - a small .etl writer for tests, fixtures and benchmarks.
 *
 * It lays out records the way Windows does: per-CPU buffers flushed when
 * full (so CPUs interleave in the file), a header buffer with the logfile
 * header first, 8-byte record alignment, 0xFF slack, optional MS-XCA Plain
 * LZ77 compressed buffers.  It writes every trace header kind, 32- and
 * 64-bit.  Not installed; not part of the library's API.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLW_H
#define ETLW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <etl.h>

struct etlw_opts {
	unsigned ptr_size;       /* 4 or 8 */
	uint32_t buffer_size;    /* e.g. 4096 */
	unsigned ncpu;
	int compress;            /* XPRESS-compressed data buffers */
	int old_cpu_field;       /* Windows 7 layout: u8 CPU + 0x08, no PROC_INDEX flag */
	unsigned clock;          /* 1 QPC, 2 system time, 3 CPU cycles */
	uint64_t perf_freq;      /* QPC ticks per second */
	uint32_t cpu_mhz;
	uint64_t start_ft;       /* FILETIME of the session start */
	uint64_t start_ts;       /* raw timestamp of the logfile header */
	uint32_t os_build;
	int header_extra;        /* add a PartitionInfo record after SavedOffset (Windows 10 style) */
};

void etlw_default_opts(struct etlw_opts *o);

struct etlw;

struct etlw *etlw_new(const struct etlw_opts *o);
/* Streams data buffers to f as they fill (for large traces); etlw_finish
 * then writes the header buffer at the start of f and returns *out = NULL. */
struct etlw *etlw_new_file(const struct etlw_opts *o, FILE *f);
void etlw_free(struct etlw *w);

/* SYSTEM (compact = 0) or COMPACT (compact = 1) kernel record. */
int etlw_system(struct etlw *w, unsigned cpu, int compact, uint8_t version, uint16_t hook,
		uint32_t tid, uint32_t pid, uint64_t ts, const void *payload, size_t len);
/* PERFINFO record with optional PMC counters and PEBS index. */
int etlw_perfinfo(struct etlw *w, unsigned cpu, uint8_t version, uint16_t hook, uint64_t ts,
		  const uint64_t *pmc, unsigned npmc, const uint64_t *pebs, const void *payload,
		  size_t len);

struct etlw_classic {
	struct etl_guid guid;
	uint8_t type, level;
	uint16_t version;
	uint32_t tid, pid;
	uint64_t ts;
	int instance; /* write EVENT_INSTANCE_GUID_HEADER */
	uint32_t instance_id, parent_instance_id;
	struct etl_guid parent_guid;
};
int etlw_classic(struct etlw *w, unsigned cpu, const struct etlw_classic *c, const void *payload,
		 size_t len);

struct etlw_ext {
	uint16_t type;
	const void *data;
	uint16_t len;
};

struct etlw_event {
	struct etl_guid provider;
	uint16_t id;
	uint8_t version, channel, level, opcode;
	uint16_t task;
	uint64_t keywords;
	uint32_t tid, pid;
	uint64_t ts;
	struct etl_guid activity;
	uint16_t property;
};
int etlw_event(struct etlw *w, unsigned cpu, const struct etlw_event *e,
	       const struct etlw_ext *ext, unsigned next, const void *payload, size_t len);

struct etlw_message {
	uint16_t number;
	uint16_t options; /* ETL_MSG_* style flags: 1 seq, 2 guid, 4 compid, 8 ts, 0x20 sysinfo, 0x40/0x80 ptr */
	uint32_t sequence, component_id;
	struct etl_guid guid;
	uint64_t ts;
	uint32_t tid, pid;
};
int etlw_message(struct etlw *w, unsigned cpu, const struct etlw_message *m, const void *args,
		 size_t len);

/* Writes g as a file holds a GUID (Data1-3 little-endian, then Data4's 8 bytes) into p[0..16). */
void etlw_put_guid(uint8_t *p, const struct etl_guid *g);
/* Little-endian integers, as every field of a trace is (for payloads a test builds itself). */
void etlw_put16(uint8_t *p, uint16_t v);
void etlw_put32(uint8_t *p, uint32_t v);
void etlw_put64(uint8_t *p, uint64_t v);

/* Appends raw record bytes (for crafting damaged input); aligned to 8. */
int etlw_raw(struct etlw *w, unsigned cpu, const void *bytes, size_t len);

/* Lays out the file.  *out is malloc'd; free it with free(). */
int etlw_finish(struct etlw *w, uint8_t **out, size_t *len);

/* MS-XCA Plain LZ77 compression; returns the compressed size or 0 if it does not fit cap. */
size_t etlw_xpress_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

#endif
