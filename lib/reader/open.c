/*
 * open.c - adding inputs to a reader: a plain trace (path, descriptor or
 * memory), or the traces inside a gzip stream or zip archive.  Each input is
 * checked (header buffer, logfile header), its clock set up and its buffers
 * indexed; damage found while indexing is queued for etl_reader_next().
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/container.h"
#include "reader/given.h"
#include "record/record.h"

/* Reads the header buffer and the logfile header; builds the buffer index. */
static int trace_load(struct etl_reader *r, struct trace *t, struct etl_diag *d)
{
	struct etl_bufhdr h;
	enum etl_clock ck;
	int st;

	t->info.file_size = t->src.size;
	if (t->src.size < ETL_BUFFER_HEADER_SIZE) {
		uint8_t raw[ETL_BUFFER_HEADER_SIZE];
		const char *what = NULL;
		if (etl__source_read(&t->src, 0, raw, (size_t)t->src.size, d) == ETL_OK)
			what = etl__bytes_describe(raw, (size_t)t->src.size, t->src.size);
		if (t->src.size == 0)
			etl__diag_set(d, ETL_E_FORMAT, 0, "not a trace: an empty file");
		else if (what)
			etl__diag_set(d, ETL_E_FORMAT, 0, "not a trace: %s (%llu bytes: too small for a buffer header)",
				      what, (unsigned long long)t->src.size);
		else
			etl__diag_set(d, ETL_E_FORMAT, 0, "not a trace: %llu bytes is too small for a buffer header",
				      (unsigned long long)t->src.size);
		return ETL_E_FORMAT;
	}
	st = etl__reader_header_buffer(r, t, &h, d);
	if (st == ETL_OK)
		st = etl__reader_logfile_header(r, t, &h, d);
	if (st != ETL_OK)
		return st;
	if (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED)
		t->info.compression_format = h.state & 0xFFFF;
	t->ptr_size = t->info.pointer_size;

	ck = (enum etl_clock)t->info.reserved_flags;
	if (ck != ETL_CLOCK_QPC && ck != ETL_CLOCK_SYSTEM_TIME && ck != ETL_CLOCK_CPU_CYCLES)
		ck = ETL_CLOCK_QPC; /* 0: the default clock, QPC */
	etl__clock_init(&t->clock, ck, t->info.start_raw, t->info.start_time, t->info.perf_freq,
			t->info.cpu_speed_mhz);

	st = etl__slice_install(r, t, &h, d); /* a time slice's state stands in for the index */
	if (st == 0)
		st = etl__walk_index_build(&t->ix, &t->src, &h, t->info.buffer_size,
					   (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0,
					   r->limits[ETL_LIMIT_BUFFER_SIZE], r->limits[ETL_LIMIT_BUFFER_COUNT],
					   etl__reader_queue_diag, r, d);
	if (st < 0)
		return st;
	etl__reader_check_buffer_count(r, t);
	r->counts[ETL_COUNT_BYTES_SKIPPED] += t->ix.bytes_skipped;
	r->counts[ETL_COUNT_BUFFERS] += t->ix.buffers;
	return ETL_OK;
}

static int add_trace(struct etl_reader *r, struct trace *t, const char *name)
{
	struct etl_diag d;
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
		if (etl__grow(&r->traces, &r->cap_traces, (size_t)r->ntraces + 1, sizeof(*r->traces), 4) != 0)
			etl__diag_set(&d, st = ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	}
	if (st != ETL_OK) {
		r->q_len = q_before; /* forget the diagnostics of an input that was not added */
		etl__reader_trace_free(t);
		return etl__reader_set_error(r, &d, -1, 0);
	}
	r->traces[r->ntraces++] = t;
	return ETL_OK;
}

static struct trace *new_trace(void)
{
	struct trace *t = etl__calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (pthread_mutex_init(&t->stack_mu, NULL) != 0) {
		etl__free(t);
		return NULL;
	}
	atomic_init(&t->stacks_ready, 0);
	atomic_init(&t->shared, 0);
	etl__source_init(&t->src);
	t->mdocs = etl__mdoc_cache_new(); /* (NULL: not shared, no harm) */
	return t;
}

static int open_check(struct etl_reader *r)
{
	if (!r)
		return ETL_E_MISUSE;
	if (r->state != ST_NEW)
		return etl__reader_misuse(r, "inputs can only be added before the first event is read");
	if (r->ntraces >= 65535)
		return etl__reader_misuse(r, "too many inputs");
	return ETL_OK;
}

/* Queues d for input `trace` at position `at` of the queue (or at the end). */
static void push_diag(struct etl_reader *r, const struct etl_diag *d, int trace, size_t at)
{
	size_t before = r->q_len;

	etl__reader_queue_diag(r, d);
	if (r->q_len == before)
		return; /* dropped (counted) */
	if (at > before)
		at = before;
	memmove(r->queue + at + 1, r->queue + at, (before - at) * sizeof(*r->queue));
	r->queue[at] = *d;
	r->queue[at].trace = trace;
}

/* Adds the traces inside a gzip stream or zip archive; takes the source. */
/* The names of the archive's members that are not traces (escaped), for every trace's info. */
static int other_members(struct trace *t, const struct etl_members *ms)
{
	size_t i, n = 0;

	for (i = 0; i < ms->count; i++)
		n += !ms->m[i].is_trace;
	if (!n)
		return ETL_OK;
	t->info.other_members = etl__calloc(n, sizeof(char *));
	if (!t->info.other_members)
		return ETL_E_NOMEM;
	for (i = 0; i < ms->count; i++) {
		if (ms->m[i].is_trace)
			continue;
		if (!(t->info.other_members[t->info.other_member_count] = etl__strdup(ms->m[i].shown)))
			return ETL_E_NOMEM;
		t->info.other_member_count++;
	}
	return ETL_OK;
}

/* Adds member m as an input named after the archive (and the member, in a zip). */
static int add_member_trace(struct etl_reader *r, struct etl_member *m, const struct etl_members *ms,
			    const struct etl_container *kind, const char *name)
{
	size_t len = strlen(name) + strlen(m->shown) + 2;
	char *tname = etl__malloc(len);
	struct trace *t = new_trace();
	int st;

	if (!tname || !t) {
		etl__free(tname);
		etl__free(t);
		return ETL_E_NOMEM;
	}
	snprintf(tname, len, kind->named_members ? "%s:%s" : "%s", name, m->shown);
	t->src = m->src;
	etl__source_init(&m->src);
	t->info.container = kind->name;
	st = other_members(t, ms);
	if (st != ETL_OK) {
		etl__reader_trace_free(t);
		etl__free(tname);
		return st;
	}
	st = add_trace(r, t, tname);
	etl__free(tname);
	return st;
}

/* What the reader takes of an archive: traces, and the PDB files of a symbols/ folder. */
static enum etl_member_use member_use(const char *name, const uint8_t *head, size_t n)
{
	if (etl__bytes_look_like_trace(head, n))
		return ETL_MEMBER_TRACE;
	return etl__symbols_member_wanted(name) ? ETL_MEMBER_KEEP : ETL_MEMBER_SKIP;
}

static int open_container(struct etl_reader *r, struct etl_source *src, const struct etl_container *kind,
			  const char *name)
{
	struct etl_members ms;
	struct etl_diag d, first;
	size_t i, q_at, note_at = SIZE_MAX;
	int st, added = 0, have_first = 0, first_trace = r->ntraces, noted;

	st = etl__container_unpack(src, kind, r->limits[ETL_LIMIT_SPOOL_SIZE], member_use, &ms, &d);
	etl__source_close(src);
	if (st != ETL_OK)
		return etl__reader_set_error(r, &d, -1, 0);
	noted = ms.noted;
	if (noted) { /* named after the archive's first trace, once it is known */
		note_at = r->q_len;
		push_diag(r, &ms.note, -1, SIZE_MAX);
	}
	for (i = 0; i < ms.count && st != ETL_E_NOMEM; i++) {
		struct etl_member *m = &ms.m[i];

		if (m->kept && m->unpacked && !m->damaged) { /* a PDB: for the frames of every trace of the reader */
			st = etl__symbols_add_member(&r->symbols, m->name, &m->src);
			continue;
		}
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
		q_at = r->q_len;
		st = add_member_trace(r, m, &ms, kind, name);
		if (st == ETL_OK) {
			added++;
			if (m->damaged) /* the cause first, then what it did to the buffers */
				push_diag(r, &m->diag, r->ntraces - 1, q_at);
		} else if (st != ETL_E_NOMEM && !have_first) {
			if (m->damaged) { /* what unpacking it met first, then what that left */
				first = m->diag;
				etl__diag_append(&first, ": %s", r->err.msg);
			} else {
				etl__diag_set(&first, r->err.code, r->err.offset, "%.*s", (int)sizeof(first.msg) - 1,
					      r->err.msg);
			}
			have_first = 1;
		}
	}
	etl__members_free(&ms);
	if (st == ETL_E_NOMEM)
		return etl__reader_nomem(r);
	if (added && note_at < r->q_len && r->queue[note_at].trace == -1)
		r->queue[note_at].trace = first_trace;
	if (added == 0) {
		if (!have_first && noted)
			etl__diag_set(&first, ETL_E_LIMIT, ETL_OFFSET_NONE,
				      "no trace in the first %u members of the zip archive (the limit: the rest are not read)",
				      ZIP_MAX_MEMBERS);
		else if (!have_first)
			etl__diag_set(&first, ETL_E_FORMAT, ETL_OFFSET_NONE, "the %s archive holds no trace",
				      kind->name);
		first.buffer_index = -1;
		return etl__reader_set_error(r, &first, -1, 0);
	}
	return ETL_OK;
}

/* Takes the source: a plain trace, or a container of traces. */
static int open_source(struct etl_reader *r, struct etl_source *src, const char *name)
{
	const struct etl_container *kind = etl__container_sniff(src);
	struct trace *t;

	if (kind)
		return open_container(r, src, kind, name);
	t = new_trace();
	if (!t) {
		etl__source_close(src);
		return etl__reader_nomem(r);
	}
	t->src = *src;
	return add_trace(r, t, name);
}

int etl_reader_open_same(struct etl_reader *r, const struct etl_reader *from, int trace)
{
	const struct trace *ft;
	struct etl_source src;
	struct etl_diag d;
	int st = open_check(r), before;

	if (st != ETL_OK)
		return st;
	if (!from || trace < 0 || trace >= from->ntraces)
		return etl__reader_misuse(r, "no such input to open again");
	ft = from->traces[trace];
	/* the caller's memory borrowed from `from`; a file on a descriptor of its own (pread needs
	 * no lock); a window of the library's temporary file with a reference to it and pages of its
	 * own (this reader may outlive `from`) */
	if (etl__source_dup(&src, &ft->src, &d) != ETL_OK) {
		etl__diag_set(&d, ETL_E_IO, ETL_OFFSET_NONE, "cannot open the input again: %s", strerror(errno));
		return etl__reader_set_error(r, &d, -1, 0);
	}
	before = r->ntraces;
	st = open_source(r, &src, etl_trace_info_name(&ft->info));
	if (st == ETL_OK && r->ntraces == before + 1) {
		/* one stack index for every reader of the input: the pass reads (and decompresses) every
		 * buffer, once is enough.  The index is built under its trace's lock, by whichever reader
		 * asks first, and only read after - which is what "from is only read" allows.  The
		 * buffers a plan of the input kept are lent the same way (buffers.c). */
		struct trace *t = r->traces[r->ntraces - 1];
		t->origin_reader = ft->origin ? ft->origin_reader : (struct etl_reader *)from;
		t->origin = ft->origin ? ft->origin : (struct trace *)ft;
		atomic_store(&t->origin->shared, 1); /* its readers parse manifests once from now on */
	}
	return st;
}

int etl_reader_open_memory(struct etl_reader *r, const void *data, size_t size, const char *name)
{
	struct etl_source src;
	int st = open_check(r);

	if (st != ETL_OK)
		return st;
	if (!data && size)
		return etl__reader_misuse(r, "NULL data");
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
		return etl__reader_misuse(r, "negative file descriptor");
	etl__source_init(&src);
	st = etl__source_open_fd(&src, fd, &d);
	if (st == ETL_E_UNSUPPORTED) /* a pipe or terminal: spool it */
		st = etl__source_spool_fd(&src, fd, r->limits[ETL_LIMIT_SPOOL_SIZE], &d);
	if (st != ETL_OK)
		return etl__reader_set_error(r, &d, -1, 0);
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
		return etl__reader_misuse(r, "NULL path");
	etl__source_init(&src);
	st = etl__source_open_path(&src, path, &d);
	if (st != ETL_OK)
		return etl__reader_set_error(r, &d, -1, 0);
	return open_source(r, &src, path);
}

