/*
 * reader.c - the public reader: lifecycle, inputs, per-CPU streams, the
 * time-ordered merge and the error flow.
 *
 * Data flow: each input (a "trace") is a byte source with a buffer index.
 * Its buffers are grouped into streams, one per CPU (plus one for the
 * header buffer); within a stream buffers are ordered by sequence number,
 * and records never go back in time.  A binary heap keyed on each stream's
 * next record time merges the streams (format reference 1.5).  In file
 * order, a trace is a single stream of its buffers as laid out.
 *
 * Damage is reported, not fatal: a bad record or buffer becomes an error
 * "head" of its stream, delivered in place of an event, and reading goes
 * on after it.  Only I/O errors, allocation failures and misuse are fatal.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/xpress.h"
#include "decode/decode.h"
#include "state/stacks.h"
#include "state/state.h"
#include "io/container.h"
#include "io/source.h"
#include "record/record.h"
#include "util/cursor.h"
#include "walk/buffer.h"

#define LOG_MODE_COMPRESSED 0x04000000u
#define COMPRESSION_XPRESS 3u
#define DIAG_QUEUE_MAX 1024

enum reader_state { ST_NEW = 0, ST_ITERATING = 1, ST_FATAL = 2 };
enum head_kind { HEAD_NONE = 0, HEAD_EVENT = 1, HEAD_ERROR = 2 };

struct etl_error {
	int code;
	int fatal;
	int trace;
	int64_t buffer;
	uint64_t offset;
	char msg[320];
};

struct trace {
	int index;
	struct etl_source src;
	struct etl_trace_info info;
	struct etl_clockconv clock;
	struct etl_bufindex ix;
	unsigned ptr_size;
	struct etl_stacks stacks; /* compressed and deferred stacks, read on first use */
};

struct stream {
	struct trace *t;
	uint32_t id;
	size_t next, end;    /* index entries still to load: [next, end) */
	size_t cur;          /* entry of the loaded buffer, SIZE_MAX if none */
	int compressed;      /* the loaded buffer was compressed */
	uint8_t *mem;        /* raw bytes of the loaded buffer (file sources) */
	size_t mem_cap;
	uint8_t *dmem;       /* decompressed bytes */
	size_t dmem_cap;
	const uint8_t *data; /* the loaded buffer, header included */
	size_t fill, pos;
	uint32_t cpu;
	uint64_t last_ts;
	enum head_kind head;
	struct etl_event ev;
	struct etl_diag diag;
	uint64_t key_ft, key_raw;
	int quiet; /* a side pass (stack keys): counts nothing */
};

struct etl_reader {
	enum reader_state state;
	enum etl_order order;
	uint64_t limits[ETL_LIMIT_COUNT_];
	struct trace **traces;
	int ntraces;
	struct stream *streams;
	size_t nstreams;
	struct stream **heap;
	size_t heap_len;
	struct stream *pending; /* heap[0], delivered its head; advance before the next delivery */
	struct etl_diag *queue; /* damage found while indexing, delivered first */
	size_t q_head, q_len;
	uint64_t q_dropped;
	struct etl_error err;
	int has_err;
	uint64_t counts[ETL_COUNT_COUNT_];
	struct etl_decode_state dec;
	unsigned manifest_warnings;
	struct etl_state sys; /* processes, threads, images */
};

static const uint64_t default_limits[ETL_LIMIT_COUNT_] = {
	[ETL_LIMIT_BUFFER_SIZE] = 64u << 20,
	[ETL_LIMIT_BUFFER_COUNT] = 16u << 20,
	[ETL_LIMIT_STREAMS] = 4096,
	[ETL_LIMIT_SPOOL_SIZE] = (uint64_t)64 << 30,
	[ETL_LIMIT_PROPERTIES] = 1u << 20,
	[ETL_LIMIT_DEPTH] = 32,
	[ETL_LIMIT_STACK_KEY_BYTES] = 256u << 20,
};

/* ------------------------------------------------------------------ */
/* errors                                                              */
/* ------------------------------------------------------------------ */

static int set_error_diag(struct etl_reader *r, const struct etl_diag *d, int trace, int fatal)
{
	r->err.code = d->code;
	r->err.fatal = fatal;
	r->err.trace = trace;
	r->err.buffer = d->buffer_index;
	r->err.offset = d->offset;
	snprintf(r->err.msg, sizeof(r->err.msg), "%s", d->msg);
	r->has_err = 1;
	if (fatal)
		r->state = ST_FATAL;
	return d->code;
}

static int misuse(struct etl_reader *r, const char *what)
{
	struct etl_diag d;

	etl__diag_set(&d, ETL_E_MISUSE, ETL_OFFSET_NONE, "%s", what);
	return set_error_diag(r, &d, -1, 0);
}

const struct etl_error *etl_reader_error(const struct etl_reader *r)
{
	return r && r->has_err ? &r->err : NULL;
}

int etl_error_code(const struct etl_error *e) { return e ? e->code : ETL_OK; }
const char *etl_error_message(const struct etl_error *e) { return e ? e->msg : ""; }
uint64_t etl_error_offset(const struct etl_error *e) { return e ? e->offset : ETL_OFFSET_NONE; }
int etl_error_trace_index(const struct etl_error *e) { return e ? e->trace : -1; }
int64_t etl_error_buffer_index(const struct etl_error *e) { return e ? e->buffer : -1; }
int etl_error_is_fatal(const struct etl_error *e) { return e ? e->fatal : 0; }

/* ------------------------------------------------------------------ */
/* lifecycle and options                                               */
/* ------------------------------------------------------------------ */

struct etl_reader *etl_reader_new(void)
{
	struct etl_reader *r = etl__calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	memcpy(r->limits, default_limits, sizeof(r->limits));
	r->order = ETL_ORDER_TIME;
	return r;
}

static void trace_free(struct trace *t)
{
	if (!t)
		return;
	etl__source_close(&t->src);
	etl__trace_info_clear(&t->info);
	etl__bufindex_free(&t->ix);
	etl__stacks_free(&t->stacks);
	etl__free(t);
}

void etl_reader_free(struct etl_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nstreams; i++) {
		etl__free(r->streams[i].mem);
		etl__free(r->streams[i].dmem);
	}
	etl__free(r->streams);
	etl__free(r->heap);
	for (i = 0; i < (size_t)r->ntraces; i++)
		trace_free(r->traces[i]);
	etl__free(r->traces);
	etl__free(r->queue);
	etl__decode_state_free(&r->dec);
	etl__state_free(&r->sys);
	etl__free(r);
}

int etl_reader_set_order(struct etl_reader *r, enum etl_order order)
{
	if (!r)
		return ETL_E_MISUSE;
	if (r->state != ST_NEW)
		return misuse(r, "the order can only be set before the first event is read");
	if (order != ETL_ORDER_TIME && order != ETL_ORDER_FILE)
		return misuse(r, "unknown order");
	r->order = order;
	return ETL_OK;
}

int etl_reader_set_limit(struct etl_reader *r, enum etl_limit which, uint64_t value)
{
	if (!r)
		return ETL_E_MISUSE;
	if ((unsigned)which >= ETL_LIMIT_COUNT_)
		return misuse(r, "unknown limit");
	if (r->ntraces > 0 || r->state != ST_NEW)
		return misuse(r, "limits can only be set before the first input is opened");
	if (value == 0)
		return misuse(r, "a limit must be at least 1");
	if (which == ETL_LIMIT_BUFFER_SIZE && value < ETL_BUFFER_HEADER_SIZE)
		return misuse(r, "the buffer-size limit must be at least 72 bytes");
	if (which == ETL_LIMIT_BUFFER_SIZE && value > UINT32_MAX)
		value = UINT32_MAX;
	if (which == ETL_LIMIT_PROPERTIES && value > UINT32_MAX)
		value = UINT32_MAX;
	if (which == ETL_LIMIT_DEPTH && value > 1024)
		value = 1024;
	r->limits[which] = value;
	return ETL_OK;
}

uint64_t etl_reader_get_limit(const struct etl_reader *r, enum etl_limit which)
{
	if (!r || (unsigned)which >= ETL_LIMIT_COUNT_)
		return 0;
	return r->limits[which];
}

uint64_t etl_reader_count(const struct etl_reader *r, enum etl_counter which)
{
	if (!r || (unsigned)which >= ETL_COUNT_COUNT_)
		return 0;
	return r->counts[which];
}

int etl_reader_trace_count(const struct etl_reader *r)
{
	return r ? r->ntraces : 0;
}

const struct etl_trace_info *etl_reader_trace_info(const struct etl_reader *r, int index)
{
	if (!r || index < 0 || index >= r->ntraces)
		return NULL;
	return &r->traces[index]->info;
}

/* ------------------------------------------------------------------ */
/* opening an input                                                    */
/* ------------------------------------------------------------------ */

static void queue_diag(void *ctx, const struct etl_diag *d)
{
	struct etl_reader *r = ctx;

	if (r->q_len >= DIAG_QUEUE_MAX) {
		r->q_dropped++;
		return;
	}
	if (!r->queue) {
		r->queue = etl__malloc(DIAG_QUEUE_MAX * sizeof(*r->queue));
		if (!r->queue) {
			r->q_dropped++;
			return;
		}
	}
	r->queue[r->q_len] = *d;
	r->queue[r->q_len].trace = r->ntraces; /* the input being opened */
	r->q_len++;
}

/* Reads the header buffer and the logfile header; builds the buffer index. */
static int trace_load(struct etl_reader *r, struct trace *t, struct etl_diag *d)
{
	uint8_t raw[ETL_BUFFER_HEADER_SIZE];
	struct etl_bufhdr h;
	uint8_t *hb;
	size_t avail;
	enum etl_clock ck;
	int st;

	t->info.file_size = t->src.size;
	if (t->src.size < ETL_BUFFER_HEADER_SIZE) {
		etl__diag_set(d, ETL_E_FORMAT, 0, "not a trace: %llu bytes is too small for a buffer header",
			      (unsigned long long)t->src.size);
		return ETL_E_FORMAT;
	}
	st = etl__source_read(&t->src, 0, raw, sizeof(raw), d);
	if (st != ETL_OK)
		return st;
	etl__bufhdr_decode(raw, &h);
	if (h.type != ETL_BUFTYPE_HEADER) {
		etl__diag_set(d, ETL_E_FORMAT, 0x36, "not a trace: the first buffer has BufferType %u, not 4 (header)",
			      (unsigned)h.type);
		return ETL_E_FORMAT;
	}
	st = etl__bufhdr_check(&h, 0, r->limits[ETL_LIMIT_BUFFER_SIZE], 0, d);
	if (st != ETL_OK) {
		size_t l = strlen(d->msg);
		memmove(d->msg + 13, d->msg, l + 1 > sizeof(d->msg) - 13 ? sizeof(d->msg) - 14 : l + 1);
		memcpy(d->msg, "not a trace: ", 13);
		d->msg[sizeof(d->msg) - 1] = 0;
		return st == ETL_E_LIMIT ? st : ETL_E_FORMAT;
	}
	if (h.flags & ETL_BUF_COMPRESSED) {
		etl__diag_set(d, ETL_E_FORMAT, 0x34, "the header buffer is marked compressed, which Windows never writes");
		return ETL_E_FORMAT;
	}
	avail = h.size;
	if (avail > t->src.size)
		avail = (size_t)t->src.size;
	hb = etl__malloc(avail);
	if (!hb) {
		etl__diag_set(d, ETL_E_NOMEM, 0, "out of memory for the header buffer");
		return ETL_E_NOMEM;
	}
	st = etl__source_read(&t->src, 0, hb, avail, d);
	if (st == ETL_OK)
		st = etl__logfile_parse(hb, etl__bufhdr_fill(&h, avail), &t->info, d);
	etl__free(hb);
	if (st != ETL_OK)
		return st;
	if (t->info.log_file_mode & LOG_MODE_COMPRESSED)
		t->info.compression_format = h.state & 0xFFFF;
	t->ptr_size = t->info.pointer_size;

	ck = (enum etl_clock)t->info.reserved_flags;
	if (ck != ETL_CLOCK_QPC && ck != ETL_CLOCK_SYSTEM_TIME && ck != ETL_CLOCK_CPU_CYCLES)
		ck = ETL_CLOCK_QPC; /* 0: the default clock, QPC */
	etl__clock_init(&t->clock, ck, t->info.start_raw, t->info.start_time, t->info.perf_freq,
			t->info.cpu_speed_mhz);

	st = etl__bufindex_build(&t->ix, &t->src, t->info.buffer_size,
				 (t->info.log_file_mode & LOG_MODE_COMPRESSED) != 0,
				 r->limits[ETL_LIMIT_BUFFER_SIZE], r->limits[ETL_LIMIT_BUFFER_COUNT],
				 queue_diag, r, d);
	if (st != ETL_OK)
		return st;
	if (t->ix.cap > t->ix.count && t->ix.count > 0) { /* give back the growth slack */
		struct etl_bufent *fit = etl__realloc(t->ix.ent, t->ix.count * sizeof(*fit));
		if (fit) {
			t->ix.ent = fit;
			t->ix.cap = t->ix.count;
		}
	}
	r->counts[ETL_COUNT_BYTES_SKIPPED] += t->ix.bytes_skipped;
	r->counts[ETL_COUNT_BUFFERS] += t->ix.count;
	return ETL_OK;
}

static int add_trace(struct etl_reader *r, struct trace *t, const char *name)
{
	struct etl_diag d;
	struct trace **nt;
	size_t q_before = r->q_len;
	int st;

	t->index = r->ntraces;
	st = trace_load(r, t, &d);
	if (st == ETL_OK) {
		t->info.name = etl__strdup(name);
		if (!t->info.name)
			etl__diag_set(&d, st = ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	}
	if (st == ETL_OK) {
		nt = etl__realloc(r->traces, (size_t)(r->ntraces + 1) * sizeof(*nt));
		if (!nt)
			etl__diag_set(&d, st = ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		else
			r->traces = nt;
	}
	if (st != ETL_OK) {
		r->q_len = q_before; /* forget the diagnostics of an input that was not added */
		trace_free(t);
		return set_error_diag(r, &d, -1, 0);
	}
	r->traces[r->ntraces++] = t;
	return ETL_OK;
}

static struct trace *new_trace(void)
{
	struct trace *t = etl__calloc(1, sizeof(*t));

	if (t)
		etl__source_init(&t->src);
	return t;
}

static int open_check(struct etl_reader *r)
{
	if (!r)
		return ETL_E_MISUSE;
	if (r->state != ST_NEW)
		return misuse(r, "inputs can only be added before the first event is read");
	if (r->ntraces >= 65535)
		return misuse(r, "too many inputs");
	return ETL_OK;
}

static int nomem(struct etl_reader *r)
{
	struct etl_diag d;

	etl__diag_set(&d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return set_error_diag(r, &d, -1, 0);
}

/* Queues d for input `trace` at position `at` of the queue (or at the end). */
static void push_diag(struct etl_reader *r, const struct etl_diag *d, int trace, size_t at)
{
	size_t before = r->q_len;

	queue_diag(r, d);
	if (r->q_len == before)
		return; /* dropped (counted) */
	if (at > before)
		at = before;
	memmove(r->queue + at + 1, r->queue + at, (before - at) * sizeof(*r->queue));
	r->queue[at] = *d;
	r->queue[at].trace = trace;
}

/* Adds the traces inside a gzip stream or zip archive; takes the source. */
static int open_container(struct etl_reader *r, struct etl_source *src, enum etl_container kind,
			  const char *name)
{
	struct etl_members ms;
	struct etl_diag d, first;
	char **others = NULL;
	size_t nothers = 0, i, k, q_at;
	int st, added = 0, have_first = 0;
	const char *kname = kind == ETL_CONTAINER_GZIP ? "gzip" : "zip";

	st = etl__container_unpack(src, kind, r->limits[ETL_LIMIT_SPOOL_SIZE], &ms, &d);
	etl__source_close(src);
	if (st != ETL_OK)
		return set_error_diag(r, &d, -1, 0);
	for (i = 0; i < ms.count; i++)
		if (!ms.m[i].is_trace)
			nothers++;
	if (nothers && !(others = etl__calloc(nothers, sizeof(*others)))) {
		etl__members_free(&ms);
		return nomem(r);
	}
	for (i = 0, k = 0; i < ms.count; i++)
		if (!ms.m[i].is_trace)
			others[k++] = ms.m[i].name;
	for (i = 0; i < ms.count; i++) {
		struct etl_member *m = &ms.m[i];
		struct trace *t;
		char *tname;
		size_t j, len;

		if (!m->is_trace) {
			if (m->damaged) { /* unreadable: it may have been a trace */
				push_diag(r, &m->diag, -1, SIZE_MAX);
				if (!have_first) {
					first = m->diag;
					have_first = 1;
				}
			}
			continue;
		}
		len = strlen(name) + strlen(m->name) + 2;
		tname = etl__malloc(len);
		t = new_trace();
		if (!tname || !t) {
			etl__free(tname);
			etl__free(t);
			st = ETL_E_NOMEM;
			break;
		}
		if (kind == ETL_CONTAINER_ZIP)
			snprintf(tname, len, "%s:%s", name, m->name);
		else
			snprintf(tname, len, "%s", name);
		t->src = m->src;
		etl__source_init(&m->src);
		t->info.container = kname;
		if (nothers) {
			t->info.other_members = etl__calloc(nothers, sizeof(char *));
			for (j = 0; t->info.other_members && j < nothers; j++) {
				t->info.other_members[j] = etl__strdup(others[j]);
				if (!t->info.other_members[j])
					break;
				t->info.other_member_count++;
			}
		}
		q_at = r->q_len;
		st = add_trace(r, t, tname);
		etl__free(tname);
		if (st == ETL_E_NOMEM)
			break;
		if (st != ETL_OK) {
			if (!have_first) {
				first.code = r->err.code;
				first.offset = r->err.offset;
				snprintf(first.msg, sizeof(first.msg), "%.*s", (int)sizeof(first.msg) - 1, r->err.msg);
				have_first = 1;
			}
			st = ETL_OK;
			continue;
		}
		added++;
		if (m->damaged) /* the cause first, then what it did to the buffers */
			push_diag(r, &m->diag, r->ntraces - 1, q_at);
	}
	etl__free(others);
	etl__members_free(&ms);
	if (st == ETL_E_NOMEM)
		return nomem(r);
	if (added == 0) {
		if (!have_first)
			etl__diag_set(&first, ETL_E_FORMAT, ETL_OFFSET_NONE, "the %s archive holds no trace", kname);
		first.buffer_index = -1;
		return set_error_diag(r, &first, -1, 0);
	}
	return ETL_OK;
}

/* Takes the source: a plain trace, or a container of traces. */
static int open_source(struct etl_reader *r, struct etl_source *src, const char *name)
{
	enum etl_container kind = etl__container_sniff(src);
	struct trace *t;

	if (kind != ETL_CONTAINER_NONE)
		return open_container(r, src, kind, name);
	t = new_trace();
	if (!t) {
		etl__source_close(src);
		return nomem(r);
	}
	t->src = *src;
	return add_trace(r, t, name);
}

int etl_reader_open_memory(struct etl_reader *r, const void *data, size_t size, const char *name)
{
	struct etl_source src;
	int st = open_check(r);

	if (st != ETL_OK)
		return st;
	if (!data && size)
		return misuse(r, "NULL data");
	etl__source_init(&src);
	etl__source_open_memory(&src, data ? data : "", size);
	return open_source(r, &src, name ? name : "(memory)");
}

int etl_reader_open_fd(struct etl_reader *r, int fd, const char *name)
{
	struct etl_source src;
	struct etl_diag d;
	int st = open_check(r);

	if (st != ETL_OK)
		return st;
	if (fd < 0)
		return misuse(r, "negative file descriptor");
	etl__source_init(&src);
	st = etl__source_open_fd(&src, fd, &d);
	if (st == ETL_E_UNSUPPORTED) /* a pipe or terminal: spool it */
		st = etl__source_spool_fd(&src, fd, r->limits[ETL_LIMIT_SPOOL_SIZE], &d);
	if (st != ETL_OK)
		return set_error_diag(r, &d, -1, 0);
	return open_source(r, &src, name ? name : "(fd)");
}

int etl_reader_open_path(struct etl_reader *r, const char *path)
{
	struct etl_source src;
	struct etl_diag d;
	int st = open_check(r);

	if (st != ETL_OK)
		return st;
	if (!path)
		return misuse(r, "NULL path");
	etl__source_init(&src);
	st = etl__source_open_path(&src, path, &d);
	if (st != ETL_OK)
		return set_error_diag(r, &d, -1, 0);
	return open_source(r, &src, path);
}

/* ------------------------------------------------------------------ */
/* streams                                                             */
/* ------------------------------------------------------------------ */

static int cmp_cpu_seq(const void *a, const void *b)
{
	const struct etl_bufent *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/* Loads index entry i into s.  On damage, returns < 0 with s->diag set;
 * s->data/fill may still hold what could be recovered (a partly
 * decompressed buffer). */
static int load_buffer(struct etl_reader *r, struct stream *s, size_t i)
{
	struct trace *t = s->t;
	const struct etl_bufent *e = &t->ix.ent[i];
	struct etl_bufhdr h;
	const uint8_t *raw;

	s->cur = i;
	s->data = NULL;
	s->fill = s->pos = 0;
	s->compressed = 0;
	s->cpu = e->cpu;
	if (!t->src.mem && s->mem_cap < e->avail) {
		uint8_t *n = etl__realloc(s->mem, e->avail);
		if (!n) {
			etl__diag_set(&s->diag, ETL_E_NOMEM, e->off, "out of memory for a %u-byte buffer",
				      (unsigned)e->avail);
			return ETL_E_NOMEM;
		}
		s->mem = n;
		s->mem_cap = e->avail;
	}
	raw = etl__source_view(&t->src, e->off, e->avail, s->mem, &s->diag);
	if (!raw)
		return s->diag.code;
	etl__bufhdr_decode(raw, &h);
	if (e->type != ETL_BUFTYPE_HEADER && !s->quiet)
		r->counts[ETL_COUNT_BUFFERS_EVENTS_LOST] += (h.flags & ETL_BUF_EVENTS_LOST) ? 1 : 0;
	s->pos = ETL_BUFFER_HEADER_SIZE;
	if (!(h.flags & ETL_BUF_COMPRESSED)) {
		s->data = raw;
		s->fill = etl__bufhdr_fill(&h, e->avail);
		return ETL_OK;
	}

	if (!s->quiet)
		r->counts[ETL_COUNT_BUFFERS_COMPRESSED]++;
	s->compressed = 1;
	if (!(t->info.log_file_mode & LOG_MODE_COMPRESSED) || t->info.compression_format != COMPRESSION_XPRESS) {
		etl__diag_set(&s->diag, ETL_E_UNSUPPORTED, e->off,
			      (t->info.log_file_mode & LOG_MODE_COMPRESSED)
				      ? "compressed buffer skipped: compression format %u is not supported (only 3, XPRESS)"
				      : "compressed buffer skipped: the trace does not declare compression (format %u)",
			      (unsigned)t->info.compression_format);
		if (!s->quiet) {
			r->counts[ETL_COUNT_BUFFERS_SKIPPED]++;
			r->counts[ETL_COUNT_BYTES_SKIPPED] += e->avail;
		}
		s->pos = s->fill = 0;
		return ETL_E_UNSUPPORTED;
	}
	{
		size_t out_len = h.offset, produced = 0, err_at = 0;
		const char *why = NULL;

		/* bufhdr_check guaranteed 0x48 <= Offset <= the buffer-size limit. */
		if (s->dmem_cap < out_len) {
			uint8_t *n = etl__realloc(s->dmem, out_len);
			if (!n) {
				etl__diag_set(&s->diag, ETL_E_NOMEM, e->off, "out of memory for a %zu-byte buffer",
					      out_len);
				return ETL_E_NOMEM;
			}
			s->dmem = n;
			s->dmem_cap = out_len;
		}
		memcpy(s->dmem, raw, ETL_BUFFER_HEADER_SIZE);
		s->data = s->dmem;
		if (etl__xpress_decompress(raw + ETL_BUFFER_HEADER_SIZE, e->avail - ETL_BUFFER_HEADER_SIZE,
					   s->dmem + ETL_BUFFER_HEADER_SIZE, out_len - ETL_BUFFER_HEADER_SIZE,
					   &produced, &err_at, &why) != 0) {
			s->fill = ETL_BUFFER_HEADER_SIZE + produced;
			etl__diag_set(&s->diag, ETL_E_FORMAT, e->off + ETL_BUFFER_HEADER_SIZE + err_at,
				      "compressed buffer: %s (%zu of %zu bytes recovered)", why, produced,
				      out_len - ETL_BUFFER_HEADER_SIZE);
			return ETL_E_FORMAT;
		}
		s->fill = out_len;
	}
	return ETL_OK;
}

/* Fixes up the location of a diagnostic produced for the loaded buffer. */
static void locate_diag(struct stream *s, struct etl_diag *d)
{
	const struct etl_bufent *e = &s->t->ix.ent[s->cur];
	size_t l;

	d->buffer_index = (int64_t)s->t->ix.ent[s->cur].ordinal;
	if (d->offset == ETL_OFFSET_NONE)
		return;
	if (s->compressed) {
		l = strlen(d->msg);
		snprintf(d->msg + l, sizeof(d->msg) - l, " (offset 0x%llx in the decompressed buffer)",
			 (unsigned long long)d->offset);
		d->offset = e->off;
	} else {
		d->offset += e->off;
	}
}

/* Looks for the next record boundary after damage at s->pos. */
static void resync_in_buffer(struct etl_reader *r, struct stream *s)
{
	size_t p = (s->pos + 8) & ~(size_t)7;

	for (; p < s->fill; p += 8) {
		struct etl_event tmp;
		struct etl_diag ignored;
		size_t adv;
		int st = etl__record_parse(s->data, s->fill, p, s->t->ptr_size, &tmp, &adv, &ignored);

		if (st == ETL_OK || st == ETL_END)
			break;
	}
	if (p > s->fill)
		p = s->fill;
	r->counts[ETL_COUNT_BYTES_SKIPPED] += p - s->pos;
	s->pos = p;
}

static void finish_event(struct stream *s)
{
	struct etl_event *ev = &s->ev;
	const struct etl_bufent *e = &s->t->ix.ent[s->cur];

	ev->cpu = s->cpu;
	ev->trace_index = s->t->index;
	ev->buffer_index = s->t->ix.ent[s->cur].ordinal;
	ev->buffer_offset = (uint32_t)s->pos;
	ev->file_offset = s->compressed ? e->off : e->off + s->pos;
	if (s->compressed)
		ev->flags |= ETL_EVF_COMPRESSED;
	if (ev->flags & ETL_EVF_TS_INHERITED)
		ev->ts_raw = s->last_ts;
	else
		s->last_ts = ev->ts_raw;
	ev->filetime = etl__clock_filetime(&s->t->clock, ev->ts_raw);
	ev->unix_ns = etl__filetime_to_unix_ns(ev->filetime);
}

/* Produces the stream's next head: an event, an error, or nothing (end). */
static void stream_advance(struct etl_reader *r, struct stream *s)
{
	for (;;) {
		size_t adv = 0;
		int st;

		if (s->cur == SIZE_MAX || s->pos >= s->fill) {
			if (s->next >= s->end) {
				s->head = HEAD_NONE;
				return;
			}
			st = load_buffer(r, s, s->next++);
			if (st != ETL_OK) {
				s->diag.buffer_index = (int64_t)s->t->ix.ent[s->cur].ordinal;
				s->head = HEAD_ERROR;
				goto keyed;
			}
			continue;
		}
		st = etl__record_parse(s->data, s->fill, s->pos, s->t->ptr_size, &s->ev, &adv, &s->diag);
		if (st == ETL_END) {
			s->pos = s->fill;
			continue;
		}
		if (st == ETL_OK) {
			finish_event(s);
			s->pos += adv;
			s->head = HEAD_EVENT;
			s->key_ft = s->ev.filetime;
			s->key_raw = s->ev.ts_raw;
			return;
		}
		locate_diag(s, &s->diag);
		r->counts[ETL_COUNT_RECORDS_SKIPPED]++;
		if (adv) {
			r->counts[ETL_COUNT_BYTES_SKIPPED] += adv;
			s->pos += adv;
		} else {
			resync_in_buffer(r, s);
		}
		s->head = HEAD_ERROR;
		goto keyed;
	}
keyed:
	/* An error sorts where the stream stood: right after its last event. */
	s->key_raw = s->last_ts;
	s->key_ft = etl__clock_filetime(&s->t->clock, s->last_ts);
}

static int stream_less(const struct etl_reader *r, const struct stream *a, const struct stream *b)
{
	if (r->order == ETL_ORDER_TIME) {
		if (a->key_ft != b->key_ft)
			return a->key_ft < b->key_ft;
		if (a->t == b->t && a->key_raw != b->key_raw)
			return a->key_raw < b->key_raw;
	}
	return a->id < b->id;
}

static void heap_push(struct etl_reader *r, struct stream *s)
{
	size_t i = r->heap_len++;

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!stream_less(r, s, r->heap[p]))
			break;
		r->heap[i] = r->heap[p];
		i = p;
	}
	r->heap[i] = s;
}

/*
 * Stack walks: when stack tracing is on, the kernel logs a StackWalk/Stack record (hook
 * 0x1820: EventTimeStamp, StackProcess, StackThread, frames) right after the event it
 * belongs to, in the same buffer, one for the kernel part and one for the user part; with
 * stack caching it logs StackKeyKernel/StackKeyUser records (0x1825/0x1826: EventTimeStamp,
 * StackProcess, StackThread, a key) instead, whose frames come later.  Before an event is
 * delivered, the records that follow it in its buffer are looked at (a few byte reads when
 * there is none): those that name its time stamp (and its thread, when its header has one)
 * are attached.  They are still delivered as events of their own.  Keys, and the records
 * logged away from their event, are found through the trace's stack index (state/stacks.h).
 */
#define HOOK_STACK 0x1820
#define HOOK_KEY_DELETE 0x1823
#define HOOK_KEY_RUNDOWN 0x1824
#define HOOK_KEY_KERNEL 0x1825
#define HOOK_KEY_USER 0x1826

static int is_kernel_header(const struct etl_event *ev)
{
	return ev->kind == ETL_HEADER_SYSTEM || ev->kind == ETL_HEADER_COMPACT || ev->kind == ETL_HEADER_PERFINFO;
}

/* The thread a stack record of ev names: its header's, or a CPU sample's payload's. */
static uint32_t stack_tid(const struct etl_event *ev)
{
	if (ev->tid == ETL_ID_NONE && ev->kind == ETL_HEADER_PERFINFO && ev->hook_id == 0x0F2E &&
	    ev->payload_len >= (size_t)ev->ptr_size + 4)
		return etl_le32(ev->payload + ev->ptr_size);
	return ev->tid;
}

static void add_key_part(struct etl_event *ev, uint64_t key, uint64_t ts, unsigned ptr)
{
	unsigned k = ev->nstack_parts++;

	ev->stack_key[k] = key;
	ev->stack_key_ts[k] = ts;
	ev->stack_ptr[k] = (uint8_t)ptr;
	ev->stack_part[k] = NULL;
	ev->stack_count[k] = 0;
}

/* The stack record at p (in a buffer, avail bytes from p on): its hook, its header size and
 * pointer size; 0 when p is not a plain stack record. */
static unsigned stack_record_at(const uint8_t *p, size_t avail, size_t *hsz, unsigned *ptr, size_t *size)
{
	uint32_t m, htype;
	unsigned hook;

	if (avail < 24)
		return 0;
	m = etl_le32(p);
	htype = (m >> 16) & 0xFF;
	hook = etl_le16(p + 6);
	*size = etl_le16(p + 4);
	if ((m & 0xC0000000u) != 0xC0000000u || (hook != HOOK_STACK && hook != HOOK_KEY_KERNEL && hook != HOOK_KEY_USER))
		return 0;
	switch (htype) {
	case 0x01: *hsz = 0x20; *ptr = 4; break; /* system, 32-bit */
	case 0x02: *hsz = 0x20; *ptr = 8; break;
	case 0x03: *hsz = 0x18; *ptr = 4; break; /* compact */
	case 0x04: *hsz = 0x18; *ptr = 8; break;
	case 0x10: *hsz = 0x10; *ptr = 4; break; /* perfinfo (no counters on stack records) */
	case 0x11: *hsz = 0x10; *ptr = 8; break;
	default: return 0;
	}
	if (htype >= 0x10 && (etl_le16(p) & 0x8700))
		return 0; /* PMC counters or a PEBS index: not a plain stack record */
	if (*size > avail || *size < *hsz + 16)
		return 0;
	if (hook == HOOK_STACK ? (*size - *hsz - 16) % *ptr != 0 : *size != *hsz + 16 + *ptr)
		return 0;
	return hook;
}

/* Attaches the stack records that follow ev at pos in data[0, fill); returns how many. */
static unsigned attach_following(struct etl_event *ev, const uint8_t *data, size_t fill, size_t pos,
				 uint32_t tid)
{
	unsigned n = 0;

	while (ev->nstack_parts < ETL_STACK_PARTS && pos <= fill) {
		const uint8_t *p = data + pos;
		size_t hsz, size;
		unsigned ptr, hook = stack_record_at(p, fill - pos, &hsz, &ptr, &size);

		if (!hook || etl_le64(p + hsz) != ev->ts_raw ||
		    (tid != ETL_ID_NONE && etl_le32(p + hsz + 12) != tid))
			break;
		if (hook == HOOK_STACK) {
			ev->stack_part[ev->nstack_parts] = p + hsz + 16;
			ev->stack_count[ev->nstack_parts] = (uint32_t)((size - hsz - 16) / ptr);
			ev->stack_ptr[ev->nstack_parts] = (uint8_t)ptr;
			ev->nstack_parts++;
		} else {
			add_key_part(ev, ptr == 8 ? etl_le64(p + hsz + 16) : etl_le32(p + hsz + 16),
				     etl_le64(p + hsz - 8), ptr);
		}
		n++;
		pos += (size + 7) & ~(size_t)7;
	}
	return n;
}

static void attach_stacks(struct etl_reader *r, struct stream *s)
{
	struct etl_event *ev = &s->ev;
	struct etl_stacks *ix = &s->t->stacks;

	ev->nstack_parts = 0;
	ev->stack_keys_pending = 0;
	ev->owner = r;
	if (ev->kind == ETL_HEADER_EVENT && ev->ext_count) {
		const uint8_t *d;
		size_t n;
		if (etl_event_extended_find(ev, ETL_EXT_STACK_KEY64, &d, &n) && n >= 16)
			add_key_part(ev, etl_le64(d + 8), ev->ts_raw, 8);
		else if (etl_event_extended_find(ev, ETL_EXT_STACK_KEY32, &d, &n) && n >= 12)
			add_key_part(ev, etl_le32(d + 8), ev->ts_raw, 4);
		if (ev->nstack_parts)
			ix->seen = 1;
	}
	if (is_kernel_header(ev) && ev->hook_id >= HOOK_STACK && ev->hook_id <= HOOK_KEY_USER) {
		ix->seen = 1;
		return; /* a stack record itself */
	}
	if (attach_following(ev, s->data, s->fill, s->pos, stack_tid(ev)))
		ix->seen = 1;
	if (ix->seen) {
		ev->stack_keys_pending = 1;
		if (ix->loaded)
			etl__reader_resolve_stack_keys(r, ev);
	}
}

/* Whether the stack record at data+pos directly follows, in a run of stack records, the
 * event ev_ts/tid before them (then the main pass attaches it, and the index need not). */
static int follows_event(const uint8_t *p, size_t hsz, uint64_t ev_ts, uint32_t tid)
{
	return etl_le64(p + hsz) == ev_ts && (tid == ETL_ID_NONE || etl_le32(p + hsz + 12) == tid);
}

/*
 * Reads trace t's stack index in one pass over its buffers: the key definitions
 * (StackWalk/KeyDelete and KeyRundown: key, frames) and the stack records that do not
 * follow their event.  Damage is skipped silently here: the main pass reports it.
 */
static void load_stack_index(struct etl_reader *r, struct trace *t)
{
	uint64_t max = r->limits[ETL_LIMIT_STACK_KEY_BYTES];
	struct stream sc;
	struct etl_event ev;
	struct etl_diag d;
	size_t i;

	memset(&sc, 0, sizeof(sc));
	sc.t = t;
	sc.quiet = 1;
	for (i = 0; i < t->ix.count; i++) {
		size_t pos, adv;
		uint64_t last = 0, owner_ts = 0;
		uint32_t owner_tid = ETL_ID_NONE;
		int in_run = 0; /* the records since the last event are all stacks that follow it */

		if (t->ix.ent[i].type == ETL_BUFTYPE_HEADER)
			continue;
		if (load_buffer(r, &sc, i) != ETL_OK && !sc.data)
			continue;
		for (pos = sc.pos; pos < sc.fill; pos += adv) {
			int st = etl__record_parse(sc.data, sc.fill, pos, t->ptr_size, &ev, &adv, &d);
			const uint8_t *p = sc.data + pos;
			size_t hsz, size;
			unsigned ptr, hook;

			if (st != ETL_OK || adv == 0)
				break;
			if (ev.flags & ETL_EVF_TS_INHERITED)
				ev.ts_raw = last;
			last = ev.ts_raw;
			if (!is_kernel_header(&ev) || ev.hook_id < HOOK_STACK || ev.hook_id > HOOK_KEY_USER) {
				owner_ts = ev.ts_raw;
				owner_tid = stack_tid(&ev);
				in_run = 1;
				continue;
			}
			ptr = ev.ptr_size;
			if (ev.hook_id == HOOK_KEY_DELETE || ev.hook_id == HOOK_KEY_RUNDOWN) {
				in_run = 0;
				if (ev.payload_len >= ptr && (ev.payload_len - ptr) % ptr == 0)
					etl__stacks_add_def(&t->stacks, ptr == 8 ? etl_le64(ev.payload) : etl_le32(ev.payload),
							    ev.ts_raw, ev.payload + ptr,
							    (uint32_t)((ev.payload_len - ptr) / ptr), ptr, max);
				continue;
			}
			hook = stack_record_at(p, sc.fill - pos, &hsz, &ptr, &size);
			if (!hook)
				continue;
			if (in_run && follows_event(p, hsz, owner_ts, owner_tid))
				continue; /* attached by the main pass */
			in_run = 0;
			{
				struct etl_stackref ref;
				memset(&ref, 0, sizeof(ref));
				ref.event_ts = etl_le64(p + hsz);
				ref.tid = etl_le32(p + hsz + 12);
				ref.ptr = (uint8_t)ptr;
				ref.key_ts = ev.ts_raw;
				if (hook == HOOK_STACK) {
					ref.count = (uint32_t)((size - hsz - 16) / ptr);
					etl__stacks_add_ref(&t->stacks, &ref, p + hsz + 16, max);
				} else {
					ref.is_key = 1;
					ref.key = ptr == 8 ? etl_le64(p + hsz + 16) : etl_le32(p + hsz + 16);
					etl__stacks_add_ref(&t->stacks, &ref, NULL, max);
				}
			}
		}
	}
	etl__free(sc.mem);
	etl__free(sc.dmem);
	etl__stacks_finish(&t->stacks);
	r->counts[ETL_COUNT_STACKS_DROPPED] += t->stacks.dropped;
}

void etl__reader_resolve_stack_keys(struct etl_reader *r, struct etl_event *ev)
{
	const struct etl_stackref *ref, *end;
	struct etl_stacks *ix;
	uint32_t tid;
	unsigned k;

	if (!ev->stack_keys_pending)
		return;
	ev->stack_keys_pending = 0;
	if (!r || ev->trace_index < 0 || ev->trace_index >= r->ntraces)
		return;
	ix = &r->traces[ev->trace_index]->stacks;
	if (!ix->loaded)
		load_stack_index(r, r->traces[ev->trace_index]);
	/* Records logged away from the event, after those that follow it.  For an event whose
	 * header names no thread (most PERFINFO records), the records naming its time stamp are
	 * taken when they all name the same thread.  Only kernel records have such stacks (the
	 * merge-time records that repeat an event's time and thread, like ImageID, do not). */
	tid = stack_tid(ev);
	ref = ix->nref && is_kernel_header(ev) ? etl__stacks_find_ref(ix, ev->ts_raw, tid == ETL_ID_NONE ? 0 : tid) : NULL;
	end = ref ? ix->ref + ix->nref : NULL; /* (no arithmetic on the NULL of an empty index) */
	if (ref && tid == ETL_ID_NONE) {
		const struct etl_stackref *q = ref;
		while (q < end && q->event_ts == ev->ts_raw && q->tid == ref->tid)
			q++;
		if (q < end && q->event_ts == ev->ts_raw)
			ref = NULL; /* several threads: ambiguous */
		else
			tid = ref->tid;
	}
	if (ref)
		for (; ref < end && ref->event_ts == ev->ts_raw && ref->tid == tid && ev->nstack_parts < ETL_STACK_PARTS;
		     ref++) {
			k = ev->nstack_parts;
			if (ref->is_key) {
				add_key_part(ev, ref->key, ref->key_ts, ref->ptr);
			} else {
				ev->stack_part[k] = ix->pool + ref->off;
				ev->stack_count[k] = ref->count;
				ev->stack_ptr[k] = ref->ptr;
				ev->nstack_parts++;
			}
		}
	for (k = 0; k < ev->nstack_parts; k++) {
		const struct etl_stackdef *e;
		if (ev->stack_part[k])
			continue;
		e = etl__stacks_find_def(ix, ev->stack_key[k], ev->stack_key_ts[k]);
		if (e && e->ptr == ev->stack_ptr[k]) {
			ev->stack_part[k] = ix->pool + e->off;
			ev->stack_count[k] = e->count;
		}
	}
}

/* Restores the heap after its top changed (its stream advanced) or was replaced. */
static void heap_sift_top(struct etl_reader *r)
{
	struct stream *top = r->heap[0];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= r->heap_len)
			break;
		if (c + 1 < r->heap_len && stream_less(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!stream_less(r, r->heap[c], top))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = top;
}

/* Drops the top (a stream that ended). */
static void heap_remove_top(struct etl_reader *r)
{
	r->heap[0] = r->heap[--r->heap_len];
	if (r->heap_len > 0)
		heap_sift_top(r);
}

/* Builds the streams of every input and primes the heap. */
static int start_iteration(struct etl_reader *r)
{
	struct etl_diag d;
	size_t total = 0, k = 0, i;
	int ti;

	for (ti = 0; ti < r->ntraces; ti++) {
		struct trace *t = r->traces[ti];
		size_t n = t->ix.count, runs = n > 0 ? 1 : 0;

		/* Sort entries 1..n by (cpu, seq, offset); each keeps its file ordinal. */
		if (r->order == ETL_ORDER_TIME && n > 1) {
			qsort(t->ix.ent + 1, n - 1, sizeof(*t->ix.ent), cmp_cpu_seq);
			for (i = 2; i < n; i++)
				if (t->ix.ent[i].cpu != t->ix.ent[i - 1].cpu)
					runs++;
			runs++; /* the header buffer's own stream */
			if (runs > r->limits[ETL_LIMIT_STREAMS] + 1) {
				etl__diag_set(&d, ETL_E_LIMIT, ETL_OFFSET_NONE,
					      "%zu per-CPU streams exceed the limit %llu", runs - 1,
					      (unsigned long long)r->limits[ETL_LIMIT_STREAMS]);
				return set_error_diag(r, &d, ti, 1);
			}
		}
		total += runs;
	}
	r->streams = etl__calloc(total ? total : 1, sizeof(*r->streams));
	r->heap = etl__calloc(total ? total : 1, sizeof(*r->heap));
	if (!r->streams || !r->heap)
		goto oom;
	for (ti = 0; ti < r->ntraces; ti++) {
		struct trace *t = r->traces[ti];
		size_t n = t->ix.count, start;

		if (n == 0)
			continue;
		if (r->order == ETL_ORDER_FILE || n == 1) {
			r->streams[k].t = t;
			r->streams[k].next = 0;
			r->streams[k].end = n;
			k++;
			continue;
		}
		r->streams[k].t = t; /* the header buffer */
		r->streams[k].next = 0;
		r->streams[k].end = 1;
		k++;
		for (start = 1; start < n;) {
			size_t end = start + 1;
			while (end < n && t->ix.ent[end].cpu == t->ix.ent[start].cpu)
				end++;
			r->streams[k].t = t;
			r->streams[k].next = start;
			r->streams[k].end = end;
			k++;
			start = end;
		}
	}
	r->nstreams = k;
	for (i = 0; i < k; i++) {
		struct stream *s = &r->streams[i];
		s->id = (uint32_t)i;
		s->cur = SIZE_MAX;
		s->last_ts = s->t->info.start_raw;
		stream_advance(r, s);
		if (s->head != HEAD_NONE)
			heap_push(r, s);
	}
	r->state = ST_ITERATING;
	return ETL_OK;
oom:
	etl__diag_set(&d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return set_error_diag(r, &d, -1, 1);
}

static int deliver_queued(struct etl_reader *r)
{
	struct etl_diag d;

	if (r->q_head < r->q_len) {
		d = r->queue[r->q_head++];
		r->counts[ETL_COUNT_ERRORS]++;
		return set_error_diag(r, &d, d.trace, 0);
	}
	if (r->q_dropped) {
		etl__diag_set(&d, ETL_E_FORMAT, ETL_OFFSET_NONE,
			      "%llu further buffer-level errors were not listed",
			      (unsigned long long)r->q_dropped);
		r->q_dropped = 0;
		r->counts[ETL_COUNT_ERRORS]++;
		return set_error_diag(r, &d, -1, 0);
	}
	return ETL_OK;
}

int etl_reader_next(struct etl_reader *r, const struct etl_event **event)
{
	struct stream *s;
	int st;

	if (!r)
		return ETL_E_MISUSE;
	if (!event)
		return misuse(r, "NULL event pointer");
	*event = NULL;
	if (r->state == ST_FATAL)
		return r->err.code;
	if (r->state == ST_NEW) {
		if (r->ntraces == 0)
			return misuse(r, "no input was opened");
		st = start_iteration(r);
		if (st != ETL_OK)
			return st;
	}
	st = deliver_queued(r);
	if (st != ETL_OK)
		return st;
	if (r->pending) {
		/* the stream delivered last is still the heap's top: advance it and sift it
		 * down once (a pop and a push would walk the heap twice) */
		s = r->pending;
		r->pending = NULL;
		stream_advance(r, s);
		if (s->head != HEAD_NONE)
			heap_sift_top(r);
		else
			heap_remove_top(r);
	}
	if (r->heap_len == 0)
		return ETL_END;
	s = r->heap[0];
	r->pending = s;
	if (s->head == HEAD_ERROR) {
		int fatal = s->diag.code == ETL_E_NOMEM || s->diag.code == ETL_E_IO;
		r->counts[ETL_COUNT_ERRORS]++;
		return set_error_diag(r, &s->diag, s->t->index, fatal);
	}
	r->counts[ETL_COUNT_EVENTS]++;
	attach_stacks(r, s);
	if (s->ev.kind == ETL_HEADER_FULL || (s->ev.kind == ETL_HEADER_EVENT && s->ev.id == 0xFFFE))
		etl__decode_observe(&r->dec, &s->ev); /* metadata that describes later events */
	if (s->ev.kind != ETL_HEADER_EVENT)
		etl__state_observe(&r->sys, &r->dec, &s->ev); /* processes, threads, images */
	*event = &s->ev;
	return ETL_OK;
}

int etl_reader_decode(struct etl_reader *r, const struct etl_event *ev, const struct etl_decoded **decoded)
{
	struct etl_diag d;
	int st;

	if (!r || !ev || !decoded)
		return r ? misuse(r, "NULL event or result pointer") : ETL_E_MISUSE;
	*decoded = NULL;
	r->dec.out.max_nodes = (uint32_t)r->limits[ETL_LIMIT_PROPERTIES];
	r->dec.out.max_depth = (unsigned)r->limits[ETL_LIMIT_DEPTH];
	st = etl__decode_event(&r->dec, ev, decoded, &d);
	if (st != ETL_OK) {
		/* The decoder speaks in payload offsets (or none, for metadata faults):
		 * make them file offsets, as every other error. */
		uint64_t at = ev->file_offset, hdr = ev->record_size - ev->payload_len;
		size_t l = strlen(d.msg);

		if (ev->flags & ETL_EVF_COMPRESSED)
			snprintf(d.msg + l, sizeof(d.msg) - l, " (record at offset 0x%x of the decompressed buffer)",
				 (unsigned)ev->buffer_offset);
		else if (d.offset != ETL_OFFSET_NONE)
			at += hdr + d.offset;
		d.offset = at;
		d.buffer_index = (int64_t)ev->buffer_index;
		set_error_diag(r, &d, ev->trace_index, d.code == ETL_E_NOMEM);
		if (d.code == ETL_E_NOMEM)
			*decoded = NULL;
	}
	return st;
}

static int add_manifest(struct etl_reader *r, const char *path, const void *xml, size_t size, const char *name)
{
	struct etl_diag d;
	unsigned before;
	int st;

	if (!r)
		return ETL_E_MISUSE;
	if (!path && !xml)
		return misuse(r, "NULL manifest");
	before = r->manifest_warnings;
	d.code = ETL_OK;
	st = etl__decode_add_manifest(&r->dec, path, xml, size, name, &r->manifest_warnings, &d);
	if (st != ETL_OK)
		return set_error_diag(r, &d, -1, st == ETL_E_NOMEM);
	if (r->manifest_warnings != before && d.code != ETL_OK)
		set_error_diag(r, &d, -1, 0); /* loaded, with the first problem on record */
	return ETL_OK;
}

int etl_reader_add_manifest_path(struct etl_reader *r, const char *path)
{
	return add_manifest(r, path, NULL, 0, NULL);
}

int etl_reader_add_manifest_memory(struct etl_reader *r, const void *xml, size_t size, const char *name)
{
	return add_manifest(r, NULL, xml ? xml : "", size, name);
}

unsigned etl_reader_manifest_warnings(const struct etl_reader *r)
{
	return r ? r->manifest_warnings : 0;
}

/* ------------------------------------------------------------------ */
/* system state                                                        */
/* ------------------------------------------------------------------ */

size_t etl_reader_process_count(const struct etl_reader *r)
{
	return r ? r->sys.nprocs : 0;
}

const struct etl_process *etl_reader_process_at(const struct etl_reader *r, size_t i)
{
	return r && i < r->sys.nprocs ? r->sys.procs[i] : NULL;
}

const struct etl_process *etl_reader_find_process(const struct etl_reader *r, int trace, uint32_t pid)
{
	return r ? etl__state_find(&r->sys, trace, pid) : NULL;
}

const struct etl_process *etl_reader_event_process(const struct etl_reader *r, const struct etl_event *ev)
{
	return r && ev ? etl__state_process_of(&r->sys, ev) : NULL;
}

const struct etl_process *etl_reader_thread_process(const struct etl_reader *r, int trace_index, uint32_t tid)
{
	return r ? etl__state_thread_process(&r->sys, trace_index, tid) : NULL;
}

const char *etl_reader_thread_name(const struct etl_reader *r, int trace_index, uint32_t tid)
{
	return r ? etl__state_thread_name(&r->sys, trace_index, tid) : NULL;
}

uint64_t etl_reader_state_dropped(const struct etl_reader *r)
{
	return r ? r->sys.dropped : 0;
}

const char *etl_reader_resolve_address(const struct etl_reader *r, const struct etl_process *p, uint64_t addr,
				       uint64_t *offset)
{
	const char *name;

	if (!r)
		return NULL;
	if (p && (name = etl__process_resolve(p, addr, offset)) != NULL)
		return name;
	p = etl__state_find(&r->sys, p ? p->trace : 0, 0);
	return p ? etl__process_resolve(p, addr, offset) : NULL;
}
