/*
 * reader.c - the public reader: lifecycle, options and limits, the error
 * flow, counters, decoding, and what the reader keeps (traces, manifests,
 * processes).  Inputs are added in open.c; events are merged in merge.c.
 *
 * Damage is reported, not fatal: a bad record or buffer becomes an error
 * "head" of its stream, delivered in place of an event, and reading goes
 * on after it.  Only I/O errors, allocation failures and misuse are fatal.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "reader/given.h"

static const uint64_t default_limits[ETL_LIMIT_COUNT_] = {
	[ETL_LIMIT_BUFFER_SIZE] = 64u << 20,
	[ETL_LIMIT_BUFFER_COUNT] = 16u << 20,
	[ETL_LIMIT_STREAMS] = 4096,
	[ETL_LIMIT_SPOOL_SIZE] = (uint64_t)64 << 30,
	[ETL_LIMIT_PROPERTIES] = 1u << 20,
	[ETL_LIMIT_DEPTH] = 32,
	[ETL_LIMIT_STACK_KEY_BYTES] = 256u << 20,
	[ETL_LIMIT_KEPT_BUFFER_BYTES] = 32u << 20,
	[ETL_LIMIT_SYMBOL_BYTES] = 512u << 20,
};


/* ---- errors ---- */

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

/* ---- lifecycle and options ---- */

/* The decoding limits, in the decoded view every decoding of the reader is made in (by
 * etl_reader_decode, and as state records are delivered). */
static void set_decode_limits(struct etl_reader *r)
{
	r->dec.out.max_nodes = (uint32_t)r->limits[ETL_LIMIT_PROPERTIES];
	r->dec.out.max_depth = (unsigned)r->limits[ETL_LIMIT_DEPTH];
}

/* The cache of input i's EventSource manifests: its origin's when it was opened from another
 * reader's (set when it was opened, then only read), so that each is parsed once; none for an
 * input no other reader was opened from. */
static struct etl_mdoc_cache *trace_mdocs(void *ctx, int i)
{
	const struct etl_reader *r = ctx;
	struct trace *t;

	if (i < 0 || i >= r->ntraces)
		return NULL;
	t = r->traces[i];
	if (t->origin)
		return t->origin->mdocs;
	return atomic_load(&t->shared) ? t->mdocs : NULL;
}

struct etl_reader *etl_reader_new(void)
{
	struct etl_reader *r = etl__calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	memcpy(r->limits, default_limits, sizeof(r->limits));
	set_decode_limits(r);
	r->options[ETL_OPTION_STACKS] = 1;
	r->options[ETL_OPTION_SYMBOLS] = 1;
	r->options[ETL_OPTION_BUILTIN_MANIFESTS] = 1;
	r->order = ETL_ORDER_TIME;
	r->dec.es_cache = trace_mdocs;
	r->dec.es_cache_ctx = r;
	etl__symbols_init(&r->symbols, r->limits[ETL_LIMIT_SYMBOL_BYTES]);
	return r;
}

void etl__reader_trace_free(struct trace *t)
{
	if (!t)
		return;
	etl__source_close(&t->src);
	etl__trace_info_clear(&t->info);
	etl__walk_index_free(&t->ix);
	etl__walk_scan_free(&t->fwd);
	etl__stacks_free(&t->stacks);
	etl__walk_keep_free(&t->kept);
	etl__walk_keep_free(&t->planned);
	pthread_mutex_destroy(&t->stack_mu);
	etl__files_free(&t->files);
	etl__mdoc_cache_free(t->mdocs); /* after the readers' databases that borrow from it */
	etl__free(t);
}

void etl__reader_streams_free(struct etl_reader *r)
{
	size_t i, j;

	etl__prefetch_free(r->pf); /* first: the helpers may be loading into the streams' jobs */
	r->pf = NULL;
	for (i = 0; i < r->nstreams; i++) {
		etl__walk_load_free(&r->streams[i].ld);
		etl__free(r->streams[i].q);
		etl__prerecs_free(&r->streams[i].pre);
		etl__prefacts_free(&r->streams[i].fx);
		if (r->streams[i].pf) {
			for (j = 0; j < PF_DEPTH; j++) {
				etl__walk_load_free(&r->streams[i].pf[j].ld);
				etl__prerecs_free(&r->streams[i].pf[j].pre);
				etl__prefacts_free(&r->streams[i].pf[j].fx);
			}
			etl__free(r->streams[i].pf);
		}
	}
	etl__free(r->streams);
	etl__free(r->heap);
	r->streams = NULL;
	r->heap = NULL;
	r->nstreams = r->heap_len = 0;
	r->pending = NULL;
}

void etl_reader_free(struct etl_reader *r)
{
	size_t i;

	if (!r)
		return;
	etl__reader_streams_free(r);
	etl__decode_state_free(&r->dec); /* first: its manifests may be borrowed from the traces' */
	for (i = 0; i < (size_t)r->ntraces; i++)
		etl__reader_trace_free(r->traces[i]);
	etl__free(r->traces);
	etl__free(r->queue);
	etl__state_free(&r->sys);
	etl__symbols_free(&r->symbols);
	etl_manifests_free(r->shared_manifests);
	etl__slice_state_free(r->slice);
	etl__free(r);
}

int etl_reader_set_order(struct etl_reader *r, enum etl_order order)
{
	if (!r)
		return ETL_E_MISUSE;
	if (r->state != ST_NEW)
		return etl__reader_misuse(r, "the order can only be set before the first event is read");
	if (order != ETL_ORDER_TIME && order != ETL_ORDER_FILE)
		return etl__reader_misuse(r, "unknown order");
	r->order = order;
	return ETL_OK;
}

int etl_reader_set_limit(struct etl_reader *r, enum etl_limit which, uint64_t value)
{
	if (!r)
		return ETL_E_MISUSE;
	if ((unsigned)which >= ETL_LIMIT_COUNT_)
		return etl__reader_misuse(r, "unknown limit");
	if (r->ntraces > 0 || r->state != ST_NEW)
		return etl__reader_misuse(r, "limits can only be set before the first input is opened");
	if (value == 0 && which != ETL_LIMIT_KEPT_BUFFER_BYTES) /* (0 keeps no buffers) */
		return etl__reader_misuse(r, "a limit must be at least 1");
	if (which == ETL_LIMIT_BUFFER_SIZE && value < ETL_BUFFER_HEADER_SIZE)
		return etl__reader_misuse(r, "the buffer-size limit must be at least 72 bytes");
	if (which == ETL_LIMIT_BUFFER_SIZE && value > UINT32_MAX)
		value = UINT32_MAX;
	if (which == ETL_LIMIT_PROPERTIES && value > UINT32_MAX)
		value = UINT32_MAX;
	if (which == ETL_LIMIT_DEPTH && value > 1024)
		value = 1024;
	r->limits[which] = value;
	if (which == ETL_LIMIT_SYMBOL_BYTES)
		etl__symbols_set_limit(&r->symbols, value);
	set_decode_limits(r);
	return ETL_OK;
}

uint64_t etl_reader_get_limit(const struct etl_reader *r, enum etl_limit which)
{
	if (!r || (unsigned)which >= ETL_LIMIT_COUNT_)
		return 0;
	return r->limits[which];
}

int etl_reader_set_option(struct etl_reader *r, enum etl_option which, int64_t value)
{
	if (!r)
		return ETL_E_MISUSE;
	if ((unsigned)which >= ETL_OPTION_COUNT_)
		return etl__reader_misuse(r, "unknown option");
	if (r->state != ST_NEW)
		return etl__reader_misuse(r, "options can only be set before the first event is read");
	if (which == ETL_OPTION_THREADS ? value < 0 || value > 64 : value != 0 && value != 1)
		return etl__reader_misuse(r, which == ETL_OPTION_THREADS ? "ETL_OPTION_THREADS is 0 to 64"
									 : "options are 0 or 1");
	r->options[which] = value;
	r->dec.no_builtin = r->options[ETL_OPTION_BUILTIN_MANIFESTS] == 0;
	return ETL_OK;
}

int64_t etl_reader_get_option(const struct etl_reader *r, enum etl_option which)
{
	if (!r || (unsigned)which >= ETL_OPTION_COUNT_)
		return 0;
	return r->options[which];
}

uint64_t etl_reader_count(const struct etl_reader *r, enum etl_counter which)
{
	uint64_t n = 0;
	int i;

	if (!r || (unsigned)which >= ETL_COUNT_COUNT_)
		return 0;
	if (which != ETL_COUNT_STACKS_DROPPED)
		return r->counts[which];
	/* counted by the stack index of each trace, which any thread may be reading in (merge.c) */
	for (i = 0; i < r->ntraces; i++) {
		struct trace *t = r->traces[i]->origin ? r->traces[i]->origin : r->traces[i];
		pthread_mutex_lock(&t->stack_mu);
		if (t->stacks.loaded) /* image and method records not kept make frames unresolved too */
			n += t->stacks.dropped + t->stacks.images.dropped + t->stacks.methods.dropped;
		pthread_mutex_unlock(&t->stack_mu);
	}
	return n;
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

/* ---- decoding and manifests ---- */

int etl_reader_decode(struct etl_reader *r, const struct etl_event *ev, const struct etl_decoded **decoded)
{
	struct etl_diag d;
	int st;

	if (!r || !ev || !decoded)
		return r ? etl__reader_misuse(r, "NULL event or result pointer") : ETL_E_MISUSE;
	*decoded = NULL;
	if (ev == r->dec.out_event) {
		/* decoded as it was delivered (a state record: deliver.c), with the same limits */
		*decoded = &r->dec.out;
		st = r->dec.out_rc;
		if (st != ETL_OK)
			d = r->dec.out_diag;
		r->dec.out_event = NULL; /* once: a second ask decodes again, as before */
	} else {
		st = etl__decode_event(&r->dec, ev, decoded, &d);
	}
	if (st != ETL_OK) {
		/* The decoder speaks in payload offsets (or none, for metadata faults):
		 * make them file offsets, as every other error. */
		uint64_t at = ev->file_offset, hdr = ev->record_size - ev->payload_len;

		if (ev->flags & ETL_EVF_COMPRESSED)
			etl__diag_append(&d, " (record at offset 0x%x of the decompressed buffer)",
					 (unsigned)ev->buffer_offset);
		else if (d.offset != ETL_OFFSET_NONE)
			at += hdr + d.offset;
		d.offset = at;
		d.buffer_index = (int64_t)ev->buffer_index;
		etl__reader_set_error(r, &d, ev->trace_index, d.code == ETL_E_NOMEM);
		if (d.code == ETL_E_NOMEM)
			*decoded = NULL;
	}
	if (*decoded && r->options[ETL_OPTION_DERIVE])
		etl__reader_derive(r, ev, &r->dec.out);
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
		return etl__reader_misuse(r, "NULL manifest");
	before = r->manifest_warnings;
	d.code = ETL_OK;
	st = etl__decode_add_manifest(&r->dec, path, xml, size, name, &r->manifest_warnings, &d);
	if (st != ETL_OK)
		return etl__reader_set_error(r, &d, -1, st == ETL_E_NOMEM);
	if (r->manifest_warnings != before && d.code != ETL_OK)
		etl__reader_set_error(r, &d, -1, 0); /* loaded, with the first problem on record */
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

int etl_reader_add_tmf_path(struct etl_reader *r, const char *path)
{
	struct etl_diag d;
	unsigned before;
	int st;

	if (!r)
		return ETL_E_MISUSE;
	if (!path)
		return etl__reader_misuse(r, "NULL TMF path");
	before = etl_reader_tmf_warnings(r);
	d.code = ETL_OK;
	st = etl__decode_add_tmf(&r->dec, path, &d);
	if (st != ETL_OK)
		return etl__reader_set_error(r, &d, -1, st == ETL_E_NOMEM);
	if (etl_reader_tmf_warnings(r) != before && d.code != ETL_OK)
		etl__reader_set_error(r, &d, -1, 0); /* added, with the first problem on record */
	return ETL_OK;
}

unsigned etl_reader_tmf_warnings(const struct etl_reader *r)
{
	return r ? etl__decode_tmf_warnings(&r->dec) : 0;
}

unsigned etl_reader_manifest_warnings(const struct etl_reader *r)
{
	return r ? r->manifest_warnings + r->dec.lazy_warnings : 0;
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

uint32_t etl_reader_event_pid(const struct etl_reader *r, const struct etl_event *ev)
{
	return r && ev ? etl__state_event_pid(&r->sys, ev) : ETL_ID_NONE;
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

int etl__reader_set_keep(struct etl_reader *r,
			 int (*keep)(void *ctx, const struct etl_reader *r, const struct etl_event *ev), void *ctx)
{
	r->keep = keep;
	r->keep_ctx = ctx;
	return ETL_OK;
}

int etl__reader_fresh(const struct etl_reader *r)
{
	return r->state == ST_NEW && !r->observer;
}

const struct etl_methodhist *etl__reader_methods(struct etl_reader *r, int k)
{
	if (k < 0 || k >= r->ntraces)
		return NULL;
	return &etl__reader_stack_index(r, r->traces[k])->methods;
}

int etl__reader_inputs(const struct etl_reader *r)
{
	return r->ntraces;
}

const struct etl_clockconv *etl__reader_clock(const struct etl_reader *r, int k)
{
	return &r->traces[k]->clock;
}

const struct etl_imagehist *etl__reader_images(struct etl_reader *r, int k)
{
	return &etl__reader_stack_index(r, r->traces[k])->images;
}
