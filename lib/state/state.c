/*
 * state.c - processes, threads and images, from the classic kernel events.
 *
 * Fed from etl_reader_next() with every delivered event: the few kernel
 * records that describe the system (Process, Thread and Image start, stop
 * and rundown) are decoded with the built-in layouts into a scratch view,
 * whose fields the tables take are read into a fact (facts.h) - kept with
 * the delivered event, so that a copy of it teaches another reader without a
 * second decoding - and folded into the tables.  Everything else costs one
 * switch.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"
#include "state/facts.h"
#include "state/images.h"
#include "state/state.h"
#include "util/htab.h"
#include "util/cursor.h"

enum { G_PROCESS = 0x03, G_THREAD = 0x05, G_IMAGE = 0x14 };

/* ---- hash tables: (trace, id) -> value ---- */

static uint64_t make_key(int trace, uint32_t id)
{
	return (((uint64_t)(uint32_t)trace << 32) | id) + 1;
}

static int slot_eq(const void *entry, const void *key)
{
	return ((const struct etl_state_slot *)entry)->key == *(const uint64_t *)key;
}

static struct etl_state_slot *slot_find(const struct etl_htab *t, uint64_t key)
{
	return etl__htab_find(t, etl__hash_mix(key), slot_eq, &key);
}

/* Sets key -> value.  0 on out of memory. */
static int slot_put(struct etl_htab *t, uint64_t key, uint32_t value)
{
	struct etl_state_slot *s = slot_find(t, key);

	if (!s) {
		if (!t->size)
			etl__htab_init(t, sizeof(*s));
		s = etl__htab_insert(t, etl__hash_mix(key));
		if (!s)
			return 0;
		s->key = key;
	}
	s->value = value;
	return 1;
}

/* ---- reading a record's fact ---- */

/* A record's fact and where its texts are. */
struct fact {
	struct etl_fact f;
	const uint8_t *blob;
};

static int fact_u64(const struct fact *x, enum etl_fact_int k, uint64_t *v)
{
	return etl__fact_u64(&x->f, k, v);
}

/* String field k of x ("" when absent or unreadable, or once the string budget is spent): its
 * bytes and length, counted against the budget. */
static const char *fact_text_budgeted(struct etl_state *st, const struct fact *x, enum etl_fact_text k, size_t *len)
{
	const char *s = etl__fact_text(&x->f, x->blob, k, len);

	if (!s) {
		s = "";
		*len = 0;
	}
	if (*len > ETL_STATE_MAX_STRING_BYTES - st->string_bytes) {
		st->dropped++;
		*len = 0;
	}
	st->string_bytes += *len;
	return s;
}

/* A copy of string field k, of its own (freed with etl__free), or NULL without memory. */
static char *fact_str(struct etl_state *st, const struct fact *x, enum etl_fact_text k)
{
	size_t len = 0;
	const char *s = fact_text_budgeted(st, x, k, &len);
	char *out = etl__malloc(len + 1);

	if (out) {
		memcpy(out, s, len);
		out[len] = '\0';
	}
	return out;
}

/* An image's file name, in the tables' arena: images are never forgotten while the tables live,
 * and with the batches each worker's reader learns them all (TraceLoggingTester: 24,000 names a
 * reader, which had been a malloc and a free each).  NULL without memory. */
static char *image_name(struct etl_state *st, const struct fact *x)
{
	size_t len = 0;
	const char *s = fact_text_budgeted(st, x, FT_FILE_NAME, &len);

	return etl__arena_strndup(&st->image_names, s, len);
}

static void replace_str(char **dst, char *src)
{
	if (!src)
		return;
	if (src[0] == '\0' && *dst) { /* never forget a name for an empty one */
		etl__free(src);
		return;
	}
	etl__free(*dst);
	*dst = src;
}

/* ---- processes ---- */

const struct etl_process *etl__state_find(const struct etl_state *st, int trace, uint32_t pid)
{
	const struct etl_state_slot *s;

	if (pid == ETL_ID_NONE)
		return NULL;
	s = slot_find(&st->by_pid, make_key(trace, pid));
	return s ? st->procs[s->value] : NULL;
}

/* A new record for pid (replacing the one the pid named, if any).  NULL when not kept. */
static struct etl_process *process_new(struct etl_state *st, int trace, uint32_t pid)
{
	struct etl_process *p;

	if (st->nprocs >= ETL_STATE_MAX_PROCESSES) {
		st->dropped++;
		return NULL;
	}
	if (etl__grow(&st->procs, &st->cap, st->nprocs + 1, sizeof(*st->procs), 64) != 0) {
		st->dropped++;
		return NULL;
	}
	p = etl__calloc(1, sizeof(*p));
	if (!p || !(p->image_name = etl__strdup("")) || !(p->command_line = etl__strdup(""))) {
		if (p) {
			etl__free(p->image_name);
			etl__free(p);
		}
		st->dropped++;
		return NULL;
	}
	p->trace = trace;
	p->pid = pid;
	p->parent_pid = ETL_ID_NONE;
	p->session_id = ETL_ID_NONE;
	if (!slot_put(&st->by_pid, make_key(trace, pid), (uint32_t)st->nprocs)) {
		etl__free(p->image_name);
		etl__free(p->command_line);
		etl__free(p);
		st->dropped++;
		return NULL;
	}
	st->procs[st->nprocs++] = p;
	return p;
}

/* The current record of pid, made if there is none. */
static struct etl_process *process_get(struct etl_state *st, int trace, uint32_t pid)
{
	struct etl_process *p = (struct etl_process *)etl__state_find(st, trace, pid);

	return p ? p : process_new(st, trace, pid);
}

static void on_process(struct etl_state *st, const struct etl_event *ev, const struct fact *d)
{
	uint64_t pid, v;
	struct etl_process *p;
	char *img;

	if (!fact_u64(d, FI_PROCESS_ID, &pid) || pid >= ETL_ID_NONE) /* 0xFFFFFFFF names no process */
		return;
	p = (struct etl_process *)etl__state_find(st, ev->trace_index, (uint32_t)pid);
	img = fact_str(st, d, FT_IMAGE_FILE_NAME);
	switch (ev->opcode) {
	case 1: /* Start: a new process, even if the pid was seen before */
		p = process_new(st, ev->trace_index, (uint32_t)pid);
		if (p)
			p->start_time = ev->filetime;
		break;
	case 3: /* DCStart: running when the trace began */
		if (!p || p->ended || (img && img[0] && p->image_name[0] && strcmp(img, p->image_name) != 0))
			p = process_new(st, ev->trace_index, (uint32_t)pid);
		break;
	case 2: /* Stop */
	case 4: /* DCStop: still running when the trace ended */
		if (!p)
			p = process_new(st, ev->trace_index, (uint32_t)pid);
		if (p && ev->opcode == 2) {
			uint64_t es;

			p->ended = 1;
			p->end_time = ev->filetime;
			if (fact_u64(d, FI_EXIT_STATUS, &es))
				p->exit_status = (int32_t)(int64_t)es;
		}
		break;
	default:
		p = NULL;
	}
	if (!p) {
		etl__free(img);
		return;
	}
	if (fact_u64(d, FI_PARENT_ID, &v) && v <= UINT32_MAX)
		p->parent_pid = (uint32_t)v;
	if (fact_u64(d, FI_SESSION_ID, &v) && v <= UINT32_MAX)
		p->session_id = (uint32_t)v;
	replace_str(&p->image_name, img);
	if (etl__fact_present(&d->f, FT_COMMAND_LINE))
		replace_str(&p->command_line, fact_str(st, d, FT_COMMAND_LINE));
}

/* Keeps the thread's name (Thread/SetName, or a name in Thread/Start or a rundown). */
static void name_thread(struct etl_state *st, const struct etl_event *ev, const struct fact *d,
			uint32_t pid, uint32_t tid)
{
	const char *s;
	struct etl_process *p;
	const struct etl_state_slot *at;
	char *name;
	size_t i, len;

	if (!(s = etl__fact_text(&d->f, d->blob, FT_THREAD_NAME, &len)) || len == 0)
		return;
	p = process_get(st, ev->trace_index, pid);
	if (!p)
		return;
	/* by a table, not a walk over the named threads: a trace may name a million */
	at = slot_find(&p->thread_at, make_key(0, tid));
	i = at ? at->value : p->nthreads;
	if (i < p->nthreads && strcmp(p->threads[i].name, s) == 0)
		return;
	if (i == p->nthreads) {
		if (st->named_threads >= ETL_STATE_MAX_THREADS ||
		    etl__grow(&p->threads, &p->cap_threads, p->nthreads + 1, sizeof(*p->threads), 4) != 0) {
			st->dropped++;
			return;
		}
		p->threads[i].tid = tid;
		p->threads[i].name = NULL;
	}
	name = fact_str(st, d, FT_THREAD_NAME);
	if (!name || !*name) { /* out of memory or of string budget: keep what there was */
		etl__free(name);
		return;
	}
	if (i == p->nthreads && !slot_put(&p->thread_at, make_key(0, tid), (uint32_t)i)) {
		etl__free(name);
		st->dropped++;
		return;
	}
	etl__free(p->threads[i].name);
	p->threads[i].name = name;
	if (i == p->nthreads) {
		p->nthreads++;
		st->named_threads++;
	}
}

static void on_thread(struct etl_state *st, const struct etl_event *ev, const struct fact *d)
{
	uint64_t pid, tid;

	if ((ev->opcode < 1 || ev->opcode > 4) && ev->opcode != 72)
		return;
	if (!fact_u64(d, FI_PROCESS_ID, &pid) || !fact_u64(d, FI_THREAD_ID, &tid) || pid >= ETL_ID_NONE ||
	    tid >= ETL_ID_NONE)
		return;
	if (ev->opcode != 2 && ev->opcode != 4)
		name_thread(st, ev, d, (uint32_t)pid, (uint32_t)tid);
	if (st->by_tid.count >= ETL_STATE_MAX_THREADS) {
		st->dropped++;
		return;
	}
	/* A thread stays known after it ends: later records may still name it. */
	if (!slot_put(&st->by_tid, make_key(ev->trace_index, (uint32_t)tid), (uint32_t)pid))
		st->dropped++;
}

static void drop_image_index(struct etl_process *p)
{
	if (p->ix) {
		etl__images_free(p->ix);
		etl__free(p->ix);
		p->ix = NULL;
	}
	p->ix_failed = 1;
}

/* The index of p's images (images.h) once it has IMAGE_INDEX_FROM of them (a walk over fewer
 * costs less than the index's memory: most processes load a few hundred at most); NULL before,
 * and without memory (then the images are searched one by one, as they were before it). */
#define IMAGE_INDEX_FROM 256
static struct etl_image_index *image_index(struct etl_process *p)
{
	size_t i;

	if (p->ix || p->ix_failed || p->nimages < IMAGE_INDEX_FROM)
		return p->ix;
	if (!(p->ix = etl__calloc(1, sizeof(*p->ix)))) {
		p->ix_failed = 1;
		return NULL;
	}
	for (i = 0; i < p->nimages; i++)
		if (etl__images_added(p->ix, p->images, i) != 0) {
			drop_image_index(p);
			return NULL;
		}
	return p->ix;
}

/* The two bits of the extent (base, size) in a process's filter (extents): where either is clear,
 * none of its images has that extent.  A rundown's DCStops of images loaded before the trace
 * are each new, and would each walk all the process's images. */
static void extent_bits(uint64_t base, uint64_t size, unsigned b[2])
{
	uint64_t h = etl__hash_mix(base ^ (size * 0x9E3779B97F4A7C15ull));

	b[0] = (unsigned)(h & 1023);
	b[1] = (unsigned)(h >> 54);
}

static int extent_may_be_kept(const struct etl_process *p, const unsigned b[2])
{
	return (p->extents[b[0] / 64] >> (b[0] % 64) & 1) && (p->extents[b[1] / 64] >> (b[1] % 64) & 1);
}

static void on_image(struct etl_state *st, const struct etl_event *ev, const struct fact *d)
{
	unsigned bits[2];
	uint64_t base, size, pid = 0;
	struct etl_process *p;
	struct etl_image_rec *im;
	struct etl_image_index *x;
	size_t i;

	if (ev->opcode != 10 && (ev->opcode < 2 || ev->opcode > 4))
		return;
	if (!fact_u64(d, FI_IMAGE_BASE, &base) || !fact_u64(d, FI_IMAGE_SIZE, &size))
		return;
	if (!fact_u64(d, FI_PROCESS_ID, &pid))
		pid = 0; /* version 0 has none: kernel images */
	if (pid >= ETL_ID_NONE)
		return;
	p = process_get(st, ev->trace_index, (uint32_t)pid);
	if (!p)
		return;
	x = image_index(p);
	if (ev->opcode == 2) { /* Unload: mark the newest loaded there that is not unloaded */
		if (x) { /* (an unload at time 0 leaves the image as it was: not forgotten) */
			size_t k = etl__images_unload(x, base, ev->filetime != 0);
			if (k)
				p->images[k - 1].unload_time = ev->filetime;
			return;
		}
		for (i = p->nimages; i-- > 0;) {
			if (p->images[i].base == base && !p->images[i].unload_time) {
				p->images[i].unload_time = ev->filetime;
				return;
			}
		}
		return;
	}
	extent_bits(base, size, bits);
	if (ev->opcode == 4) { /* DCStop repeats what DCStart said */
		if (x && etl__images_seen(x, base, size))
			return;
		for (i = 0; !x && extent_may_be_kept(p, bits) && i < p->nimages; i++)
			if (p->images[i].base == base && p->images[i].size == size)
				return;
	}
	if (st->images >= ETL_STATE_MAX_IMAGES) {
		st->dropped++;
		return;
	}
	if (etl__grow(&p->images, &p->cap_images, p->nimages + 1, sizeof(*p->images), 16) != 0) {
		st->dropped++;
		return;
	}
	im = &p->images[p->nimages];
	memset(im, 0, sizeof(*im));
	im->base = base;
	im->size = size;
	im->load_time = ev->opcode == 10 ? ev->filetime : 0;
	im->file_name = image_name(st, d);
	if (!im->file_name) {
		st->dropped++;
		return;
	}
	p->nimages++;
	st->images++;
	p->extents[bits[0] / 64] |= (uint64_t)1 << (bits[0] % 64);
	p->extents[bits[1] / 64] |= (uint64_t)1 << (bits[1] % 64);
	if (x && etl__images_added(x, p->images, p->nimages - 1) != 0)
		drop_image_index(p); /* no memory: one by one from now on */
}

/* Whether a kernel record of this group and opcode feeds the tables. */
static int observed_kind(int group, unsigned opcode)
{
	switch (group) {
	case G_PROCESS: /* start, stop, rundown; Image/Load of old traces */
		return (opcode >= 1 && opcode <= 4) || opcode == 10;
	case G_THREAD: /* start, stop, rundown, set name */
		return (opcode >= 1 && opcode <= 4) || opcode == 72;
	case G_IMAGE:
		return (opcode >= 2 && opcode <= 4) || opcode == 10;
	default:
		return 0;
	}
}

int etl__state_observes(const struct etl_event *ev)
{
	return ev->kind != ETL_HEADER_EVENT && observed_kind(etl__decode_kernel_group(ev), ev->opcode);
}

/* The fields a record of this group and opcode gives the tables (etl_fact_int, etl_fact_text
 * bits). */
static void fact_masks(int group, unsigned opcode, uint32_t *ints, uint32_t *texts)
{
	if (group == G_IMAGE || (group == G_PROCESS && opcode == 10)) {
		*ints = 1u << FI_IMAGE_BASE | 1u << FI_IMAGE_SIZE | 1u << FI_PROCESS_ID;
		*texts = 1u << FT_FILE_NAME;
	} else if (group == G_PROCESS) {
		*ints = 1u << FI_PROCESS_ID | 1u << FI_PARENT_ID | 1u << FI_SESSION_ID |
			(opcode == 2 ? 1u << FI_EXIT_STATUS : 0);
		*texts = 1u << FT_IMAGE_FILE_NAME | 1u << FT_COMMAND_LINE;
	} else {
		*ints = 1u << FI_PROCESS_ID | 1u << FI_THREAD_ID;
		*texts = opcode != 2 && opcode != 4 ? 1u << FT_THREAD_NAME : 0;
	}
}

/* Decodes the record and reads its fact into st->fact: its length, 0 without memory.  For an
 * event the reader delivers (deliver), the decoding is the one etl_reader_decode() would make
 * (a record of these kinds always goes to the kernel layouts), in dec->out, and is left there
 * for it: the event is decoded once, not twice.  An error there (a limit of the reader's, say)
 * leaves the facts to the decoding an observing reader makes. */
static size_t make_fact(struct etl_state *st, struct etl_decode_state *dec, const struct etl_event *ev, int group,
			int deliver)
{
	struct etl_diag diag;
	struct etl_decoded *d = &st->scratch;
	const struct etl_kernel_kind *kind;
	uint32_t ints, texts;

	fact_masks(group, ev->opcode, &ints, &texts);
	if (deliver) {
		const struct etl_decoded *res;
		int rc = etl__decode_event(dec, ev, &res, &diag);
		dec->out_event = ev;
		dec->out_rc = rc;
		if (rc != ETL_OK)
			dec->out_diag = diag;
		else /* raw (no layout the payload fits): no fact, as below */
			return etl__fact_build(&st->fact, &st->fact_cap, res->source == ETL_DECODER_BUILTIN ? res : NULL,
					       ints, texts);
	}
	if (!dec->kernel && !(dec->kernel = etl__calloc(1, sizeof(*dec->kernel))))
		return 0;
	etl__arena_reset(&d->arena);
	d->nnodes = d->ntop = 0;
	d->trailing = 0;
	d->reason = NULL;
	d->resolve_map = NULL;
	if (!d->max_nodes)
		d->max_nodes = 4096;
	kind = etl__kernel_kind(dec->kernel, (unsigned)group, ev->opcode, ev->version);
	if (!kind || etl__kernel_decode(dec->kernel, d, ev, kind, &diag) != ETL_OK)
		d = NULL; /* no layout or a damaged payload: the event itself says so when decoded */
	return etl__fact_build(&st->fact, &st->fact_cap, d, ints, texts);
}

void etl__state_observe(struct etl_state *st, struct etl_decode_state *dec, const struct etl_event *ev,
			struct etl_event *keep)
{
	int group;
	struct fact x;

	if (ev->kind == ETL_HEADER_FULL || ev->kind == ETL_HEADER_INSTANCE) {
		/* classic providers repeat their class GUID: compare with the last one first */
		if (!st->last_valid || !etl_guid_equal(&st->last_class, &ev->provider)) {
			st->last_class = ev->provider;
			st->last_group = etl__decode_kernel_group(ev);
			st->last_valid = 1;
		}
		group = st->last_group;
	} else {
		group = etl__decode_kernel_group(ev);
	}
	/* the hot path: most kernel records (samples, context switches, I/O) end here */
	if (!observed_kind(group, ev->opcode))
		return;
	if (ev->state_fact) {
		x.blob = ev->state_fact; /* read by the reader that delivered the event */
	} else {
		size_t len = make_fact(st, dec, ev, group, keep != NULL);
		if (!len) {
			st->dropped++;
			return;
		}
		x.blob = st->fact;
		if (keep) {
			keep->state_fact = st->fact;
			keep->state_fact_len = (uint32_t)len;
		}
	}
	etl__fact_read(x.blob, &x.f);
	if (!x.f.decoded)
		return;
	if (group == G_PROCESS && ev->opcode == 10)
		on_image(st, ev, &x);
	else if (group == G_PROCESS)
		on_process(st, ev, &x);
	else if (group == G_THREAD)
		on_thread(st, ev, &x);
	else
		on_image(st, ev, &x);
}

int etl__state_may_change(struct etl_decode_state *dec, int group, unsigned opcode, unsigned version)
{
	const struct etl_kernel_kind *kind;

	if (!observed_kind(group, opcode))
		return 0;
	if (!dec->kernel && !(dec->kernel = etl__calloc(1, sizeof(*dec->kernel))))
		return 1;
	kind = etl__kernel_kind(dec->kernel, (unsigned)group, opcode, version);
	return !kind || kind->layout != 0; /* without a layout it decodes to nothing (make_fact) */
}

int etl__state_changes(struct etl_state *st, struct etl_decode_state *dec, const struct etl_event *ev,
			size_t *fact_len)
{
	int group = etl__decode_kernel_group(ev);
	struct fact x;
	size_t len;

	*fact_len = 0;
	if (ev->kind == ETL_HEADER_EVENT || ev->state_fact || !observed_kind(group, ev->opcode))
		return ev->state_fact != NULL;
	len = make_fact(st, dec, ev, group, 0);
	if (!len)
		return 1; /* cannot tell (no memory) */
	etl__fact_read(st->fact, &x.f);
	*fact_len = x.f.decoded ? len : 0;
	return x.f.decoded;
}

const struct etl_process *etl__state_process_of(const struct etl_state *st, const struct etl_event *ev)
{
	uint32_t pid = etl__state_event_pid(st, ev);

	return pid != ETL_ID_NONE ? etl__state_find(st, ev->trace_index, pid) : NULL;
}

const struct etl_process *etl__state_thread_process(const struct etl_state *st, int trace, uint32_t tid)
{
	const struct etl_state_slot *s;

	if (tid == ETL_ID_NONE)
		return NULL;
	s = slot_find(&st->by_tid, make_key(trace, tid));
	return s ? etl__state_find(st, trace, s->value) : NULL;
}

const char *etl__state_thread_name(const struct etl_state *st, int trace, uint32_t tid)
{
	const struct etl_process *p = etl__state_thread_process(st, trace, tid);
	size_t i, k;

	if (!p)
		return NULL;
	/* the thread may belong to an earlier process of the same pid: newest first */
	for (k = st->nprocs; k-- > 0;) {
		const struct etl_process *q = st->procs[k];
		if (q->trace != trace || q->pid != p->pid)
			continue;
		for (i = 0; i < q->nthreads; i++)
			if (q->threads[i].tid == tid)
				return q->threads[i].name;
	}
	return NULL;
}

void etl__state_free(struct etl_state *st)
{
	size_t i, j;

	for (i = 0; i < st->nprocs; i++) {
		struct etl_process *p = st->procs[i];

		etl__free(p->images);
		etl__free(p->rc);
		drop_image_index(p);
		for (j = 0; j < p->nthreads; j++)
			etl__free(p->threads[j].name);
		etl__free(p->threads);
		etl__htab_free(&p->thread_at);
		etl__free(p->image_name);
		etl__free(p->command_line);
		etl__free(p);
	}
	etl__free(st->procs);
	etl__htab_free(&st->by_pid);
	etl__htab_free(&st->by_tid);
	etl__free(st->fact);
	etl__free(st->scratch.nodes);
	etl__free(st->scratch.field_values);
	etl__arena_free(&st->scratch.arena);
	etl__arena_free(&st->image_names);
	memset(st, 0, sizeof(*st));
}

/* ---- lookups and public accessors ---- */

/* Address lookups repeat the same few pages (a stack's frames, a hot function's samples): a small
 * cache of which image covers a 4 KiB page, valid while the process has that many images. */
#define RESOLVE_BITS 9
#define RESOLVE_SLOTS (1u << RESOLVE_BITS)
struct etl_resolve_cache {
	struct {
		uint64_t page;
		size_t nimages; /* 0: empty */
		size_t image;
	} slot[RESOLVE_SLOTS];
};

const char *etl__process_resolve(const struct etl_process *p, uint64_t addr, uint64_t *offset)
{
	uint64_t page = addr >> 12, lo = page << 12, hi = lo + 4095;
	size_t i, k = (size_t)((page * 0x9E3779B97F4A7C15ull) >> (64 - RESOLVE_BITS));
	int whole = 1; /* no later image touches the page: the answer holds for all of it */

	if (!p->rc)
		((struct etl_process *)p)->rc = etl__calloc(1, sizeof(*p->rc)); /* NULL: no cache */
	if (p->rc && p->rc->slot[k].nimages == p->nimages && p->nimages && p->rc->slot[k].page == page) {
		const struct etl_image_rec *im;
		if (p->rc->slot[k].image == SIZE_MAX)
			return NULL; /* no image touches the page */
		im = &p->images[p->rc->slot[k].image];
		if (offset)
			*offset = addr - im->base;
		return im->file_name;
	}
	/* the latest load that covers addr (bases are reused after unloads): from the index, or
	 * (without memory for it) one by one */
	if (image_index((struct etl_process *)p)) { /* (the index is the process's own: made here too) */
		uint64_t a, b;
		size_t c = etl__images_cover(p->ix, p->images, p->nimages, addr, &a, &b);
		if (c != SIZE_MAX) {
			if (p->rc && p->nimages && a <= lo && b >= hi) { /* the answer holds for the page */
				p->rc->slot[k].page = page;
				p->rc->slot[k].nimages = p->nimages;
				p->rc->slot[k].image = c ? c - 1 : SIZE_MAX;
			}
			if (!c)
				return NULL;
			if (offset)
				*offset = addr - p->images[c - 1].base;
			return p->images[c - 1].file_name;
		}
		drop_image_index((struct etl_process *)p);
	}
	for (i = p->nimages; i-- > 0;) {
		const struct etl_image_rec *im = &p->images[i];

		if (addr >= im->base && addr - im->base < im->size) {
			if (p->rc && whole && lo >= im->base && hi - im->base < im->size) {
				p->rc->slot[k].page = page;
				p->rc->slot[k].nimages = p->nimages;
				p->rc->slot[k].image = i;
			}
			if (offset)
				*offset = addr - im->base;
			return im->file_name;
		}
		if (im->base <= hi && (im->size == 0 || im->base + (im->size - 1) >= lo))
			whole = 0;
	}
	if (p->rc && whole && p->nimages) {
		p->rc->slot[k].page = page;
		p->rc->slot[k].nimages = p->nimages;
		p->rc->slot[k].image = SIZE_MAX;
	}
	return NULL;
}

int etl_process_trace_index(const struct etl_process *p) { return p ? p->trace : -1; }
uint32_t etl_process_id(const struct etl_process *p) { return p ? p->pid : ETL_ID_NONE; }
uint32_t etl_process_parent_id(const struct etl_process *p) { return p ? p->parent_pid : ETL_ID_NONE; }
uint32_t etl_process_session_id(const struct etl_process *p) { return p ? p->session_id : ETL_ID_NONE; }
const char *etl_process_image_name(const struct etl_process *p) { return p ? p->image_name : ""; }
const char *etl_process_command_line(const struct etl_process *p) { return p ? p->command_line : ""; }
uint64_t etl_process_start_filetime(const struct etl_process *p) { return p ? p->start_time : 0; }

int etl_process_end(const struct etl_process *p, uint64_t *filetime, int32_t *exit_status)
{
	if (!p || !p->ended)
		return 0;
	if (filetime)
		*filetime = p->end_time;
	if (exit_status)
		*exit_status = p->exit_status;
	return 1;
}

size_t etl_process_thread_name_count(const struct etl_process *p) { return p ? p->nthreads : 0; }

const char *etl_process_thread_name_at(const struct etl_process *p, size_t i, uint32_t *tid)
{
	if (!p || i >= p->nthreads)
		return NULL;
	if (tid)
		*tid = p->threads[i].tid;
	return p->threads[i].name;
}

size_t etl_process_image_count(const struct etl_process *p) { return p ? p->nimages : 0; }

const char *etl_process_image_at(const struct etl_process *p, size_t i, uint64_t *base, uint64_t *size)
{
	if (!p || i >= p->nimages)
		return NULL;
	if (base)
		*base = p->images[i].base;
	if (size)
		*size = p->images[i].size;
	return p->images[i].file_name;
}

/* (public: what a record changes in what a reader keeps is known below the reader, so the
 * helpers' light reading asks it too) */
int etl_event_updates_state(const struct etl_event *ev)
{
	return ev && (etl__decode_observes(ev) || etl__state_observes(ev));
}
