/*
 * clr.c - the gc, exceptions and jit tables, from the events of
 * Microsoft-Windows-DotNETRuntime, read with the CLR manifest's layouts
 * whether or not the trace describes them (FORMAT-NOTES section 14):
 *
 *   GCStart (1)        v0: Count, Reason; v1: Count, Depth, Reason, Type, ClrInstanceID; v2: + sequence
 *   GCEnd (2)          Count, Depth (u16 in v0, u32 from v1)
 *   GCHeapStats (4)    GenerationSize0, TotalPromotedSize0, ... 1, 2, 3 (u64 pairs), Finalization...,
 *                      pinned, sink blocks, handles; v2: + GenerationSize4, TotalPromotedSize4
 *   GCSuspendEEBegin (9) v0: Reason (u16); v1: Reason, Count (u32)
 *   GCRestartEEEnd (3)
 *   ExceptionThrown (80, v1): ExceptionType, ExceptionMessage, ExceptionEIP, ExceptionHRESULT, ...
 *   MethodJittingStarted (145): MethodID, ModuleID, MethodToken, MethodILSize, names
 *   MethodLoadVerbose (143): MethodID, ModuleID, MethodStartAddress, MethodSize, MethodToken,
 *                      MethodFlags, MethodNamespace, MethodName, MethodSignature
 *   ModuleLoad (152), ModuleDCStart (149; the rundown provider's 153, 154): ModuleID, AssemblyID,
 *                      ModuleFlags, Reserved1, ModuleILPath, ModuleNativePath
 *
 * A GC is known by (process, Count): the runtime of .NET 4.5 logs GCStart at
 * versions 1 and 2 for one GC, which is one row.  Its pause is the execution
 * engine's suspension for a GC (SuspendEEBegin with reason SuspendForGC or
 * SuspendForGCPrep) that holds its start, to the RestartEEEnd after it; its
 * heap after is the GCHeapStats after its end (the generations' sizes added
 * up), its heap before the previous GC's heap after.  A row is complete at
 * the restart after its end, or at the process's next GC; a GC with no end
 * is a row without one, and an end with no start is counted.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "tables/tables.h"
#include "util/cursor.h"

static const struct etl_guid clr_runtime = { 0xe13c0d23, 0xccbc, 0x4e12,
					     { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };
static const struct etl_guid clr_rundown = { 0xa669021c, 0xc450, 0x4609,
					     { 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } };

#define MAX_PENDING (1u << 16)

static const char note_gc_open[] = "GCs with no GCEnd in the trace (rows without end)";
static const char note_gc_orphan[] = "GCEnd events whose GCStart is not in the trace";
static const char note_method_short[] = "MethodLoadVerbose events too short for their names (no row)";
static const char note_gc_pending[] = "GCs not followed: too many processes at once";

struct gc_rec {
	int trace, has_end, has_pause, has_heap, done;
	uint32_t pid, count, depth, reason, type;
	uint64_t start, end, pause_start, pause_end, heap_before, heap_after, promoted;
};

/* Per process: the GCs in flight, the suspension, the last heap size. */
struct proc_gc {
	uint64_t key;            /* trace << 32 | pid */
	struct gc_rec *gcs;      /* not yet given as rows */
	size_t ngcs, capgcs;
	uint64_t suspend;        /* the open suspension's start, 0: none */
	uint64_t last_heap;
	int has_last_heap;
};

struct jit_slot {
	uint64_t key;            /* (trace, pid, method id) hashed */
	uint64_t method, start;
	uint32_t pid;
	int trace;
};

struct module_slot {
	uint64_t key;
	uint64_t id;
	uint32_t pid;
	int trace;
	size_t path;             /* + 1 into texts */
};

struct clr_state {
	struct etl_htab procs, jit, modules;
	struct tables_texts texts;
};

static int key_eq(const void *e, const void *k)
{
	return *(const uint64_t *)e == *(const uint64_t *)k;
}

static struct clr_state *state(struct etl_tables *T)
{
	if (!T->clr && (T->clr = etl__calloc(1, sizeof(*T->clr))) != NULL) {
		etl__htab_init(&T->clr->procs, sizeof(struct proc_gc));
		etl__htab_init(&T->clr->jit, sizeof(struct jit_slot));
		etl__htab_init(&T->clr->modules, sizeof(struct module_slot));
	}
	return T->clr;
}

static const char *gc_reason(uint32_t r, char *buf, size_t cap)
{
	static const char *const names[] = { "AllocSmall", "Induced", "LowMemory", "Empty", "AllocLarge",
					     "OutOfSpaceSOH", "OutOfSpaceLOH", "InducedNotForced", "Stress",
					     "InducedLowMemory", "Internal", "InducedCompacting", "LowMemoryHost",
					     "PMFullGC", "LowMemoryHostBlocking" };

	if (r < sizeof(names) / sizeof(names[0]))
		return names[r];
	snprintf(buf, cap, "%u", r);
	return buf;
}

static const char *gc_type(uint32_t t, char *buf, size_t cap)
{
	static const char *const names[] = { "NonConcurrentGC", "BackgroundGC", "ForegroundGC" };

	if (t < 3)
		return names[t];
	snprintf(buf, cap, "%u", t);
	return buf;
}

static struct proc_gc *proc_of(struct clr_state *s, const struct etl_event *ev)
{
	uint64_t key = (uint64_t)(uint32_t)etl_event_trace_index(ev) << 32 | etl_event_pid(ev), h = etl__hash_mix(key);
	struct proc_gc *p = etl__htab_find(&s->procs, h, key_eq, &key);

	if (!p && s->procs.count < MAX_PENDING && (p = etl__htab_insert(&s->procs, h)) != NULL)
		p->key = key;
	return p;
}

static void gc_row(struct etl_tables *T, const struct gc_rec *g)
{
	struct etl_table *t = T->tab[TK_GC];
	const struct etl_process *p = etl_reader_find_process(T->r, g->trace, g->pid);
	char b1[16], b2[16];
	size_t row = etl__table_row(t);

	if (row == SIZE_MAX)
		return;
	etl__table_u64(t, row, GC_TRACE, (uint64_t)g->trace);
	etl__table_u64(t, row, GC_PID, g->pid);
	if (p)
		etl__table_text(t, row, GC_PROCESS, etl_process_image_name(p));
	etl__table_u64(t, row, GC_NUMBER, g->count);
	etl__table_u64(t, row, GC_GENERATION, g->depth);
	etl__table_text(t, row, GC_REASON, gc_reason(g->reason, b1, sizeof(b1)));
	etl__table_text(t, row, GC_TYPE, gc_type(g->type, b2, sizeof(b2)));
	etl__table_u64(t, row, GC_START, g->start);
	if (g->has_end) {
		etl__table_u64(t, row, GC_END, g->end);
		etl__table_double(t, row, GC_DURATION, etl__tables_ms(g->start, g->end));
	}
	if (g->has_pause) {
		etl__table_u64(t, row, GC_PAUSE_START, g->pause_start);
		if (g->pause_end)
			etl__table_double(t, row, GC_PAUSE, etl__tables_ms(g->pause_start, g->pause_end));
	}
	if (g->heap_before)
		etl__table_u64(t, row, GC_HEAP_BEFORE, g->heap_before);
	if (g->has_heap) {
		etl__table_u64(t, row, GC_HEAP_AFTER, g->heap_after);
		etl__table_u64(t, row, GC_PROMOTED, g->promoted);
	}
	etl__tables_row_done(T, TK_GC);
}

/* Gives the process's GCs that are done as rows, in their order. */
static void flush_done(struct etl_tables *T, struct proc_gc *p, int all)
{
	size_t i, k = 0;

	for (i = 0; i < p->ngcs; i++) {
		if (all || p->gcs[i].done) {
			if (!p->gcs[i].has_end)
				etl__table_note(T->tab[TK_GC], note_gc_open, 1);
			gc_row(T, &p->gcs[i]);
		} else {
			p->gcs[k++] = p->gcs[i];
		}
	}
	p->ngcs = k;
}

static struct gc_rec *gc_find(struct proc_gc *p, uint32_t count)
{
	size_t i;

	for (i = p->ngcs; i-- > 0;)
		if (p->gcs[i].count == count)
			return &p->gcs[i];
	return NULL;
}

static void on_gc_start(struct etl_tables *T, struct proc_gc *p, const struct etl_event *ev, struct etl_cursor *c)
{
	unsigned v = etl_event_version(ev);
	uint32_t count = cur_u32(c), depth = 0, reason, type = 0;
	struct gc_rec *g;

	if (v >= 1) {
		depth = cur_u32(c);
		reason = cur_u32(c);
		type = cur_u32(c);
	} else {
		reason = cur_u32(c);
	}
	if (!cur_ok(c) || gc_find(p, count))
		return; /* the same GC at another version */
	flush_done(T, p, 0);
	if (etl__grow(&p->gcs, &p->capgcs, p->ngcs + 1, sizeof(*p->gcs), 4) != 0)
		return;
	g = &p->gcs[p->ngcs++];
	memset(g, 0, sizeof(*g));
	g->trace = etl_event_trace_index(ev);
	g->pid = etl_event_pid(ev);
	g->count = count;
	g->depth = depth;
	g->reason = reason;
	g->type = type;
	g->start = etl_event_filetime(ev);
	if (p->suspend) {
		g->has_pause = 1;
		g->pause_start = p->suspend;
	}
	if (p->has_last_heap)
		g->heap_before = p->last_heap;
}

static void on_gc_end(struct etl_tables *T, struct proc_gc *p, const struct etl_event *ev, struct etl_cursor *c)
{
	uint32_t count = cur_u32(c);
	struct gc_rec *g = cur_ok(c) ? gc_find(p, count) : NULL;

	if (!g) {
		if (cur_ok(c))
			etl__table_note(T->tab[TK_GC], note_gc_orphan, 1);
		return;
	}
	if (g->has_end)
		return; /* the same end at another version */
	g->has_end = 1;
	g->end = etl_event_filetime(ev);
	if (!g->has_pause || g->pause_end)
		g->done = 1; /* (a background GC ends after its pause; its heap still comes next) */
}

/* GCHeapStats: to the last GC that ended without its heap. */
static void on_heap(struct proc_gc *p, const struct etl_event *ev, struct etl_cursor *c)
{
	uint64_t size = 0, promoted = 0;
	size_t i;
	int gen;

	for (gen = 0; gen < 4; gen++) {
		size += cur_u64(c);
		promoted += cur_u64(c);
	}
	cur_skip(c, 16 + 12);
	if (etl_event_version(ev) >= 2) {
		if (cur_left(c) >= 2 + 16) {
			cur_skip(c, 2);
			size += cur_u64(c);
			promoted += cur_u64(c);
		}
	}
	if (!cur_ok(c))
		return;
	p->last_heap = size;
	p->has_last_heap = 1;
	for (i = p->ngcs; i-- > 0;)
		if (p->gcs[i].has_end && !p->gcs[i].has_heap) {
			p->gcs[i].has_heap = 1;
			p->gcs[i].heap_after = size;
			p->gcs[i].promoted = promoted;
			break;
		}
}

static void on_suspend(struct proc_gc *p, const struct etl_event *ev, struct etl_cursor *c)
{
	uint32_t reason = etl_event_version(ev) >= 1 ? cur_u32(c) : cur_u16(c);

	if (cur_ok(c) && (reason == 1 || reason == 6)) /* SuspendForGC, SuspendForGCPrep */
		p->suspend = etl_event_filetime(ev);
}

static void on_restart(struct etl_tables *T, struct proc_gc *p, const struct etl_event *ev)
{
	size_t i;

	for (i = 0; i < p->ngcs; i++) {
		struct gc_rec *g = &p->gcs[i];
		if (g->has_pause && !g->pause_end && g->pause_start == p->suspend) {
			g->pause_end = etl_event_filetime(ev);
			if (g->has_end)
				g->done = 1;
		} else if (g->has_end && g->pause_end) {
			g->done = 1;
		}
	}
	p->suspend = 0;
	flush_done(T, p, 0);
}

/* A UTF-16 string at the cursor into out (UTF-8, cap bytes), stepped over; 0 when cut. */
static int wstr(struct etl_cursor *c, char *out, size_t cap)
{
	const uint8_t *p = c->base + c->pos;
	size_t n = etl__utf16_units(p, cur_left(c) / 2);
	char *u;

	if (2 * n + 2 > cur_left(c)) {
		c->failed = 1;
		return 0;
	}
	cur_skip(c, 2 * n + 2);
	if (!(u = etl__utf16_to_utf8(p, n, NULL))) {
		out[0] = 0;
		return 1;
	}
	snprintf(out, cap, "%s", u);
	etl__free(u);
	return 1;
}

static void on_exception(struct etl_tables *T, const struct etl_event *ev, struct etl_cursor *c)
{
	struct etl_table *t = T->tab[TK_EXCEPTIONS];
	char type[512], msg[2048];
	uint64_t eip;
	uint32_t hr;
	size_t row;

	if (etl_event_version(ev) < 1 || !wstr(c, type, sizeof(type)) || !wstr(c, msg, sizeof(msg)))
		return;
	eip = cur_ptr(c, etl_event_pointer_size(ev));
	hr = cur_u32(c);
	(void)eip;
	if (!cur_ok(c) || (row = etl__table_row(t)) == SIZE_MAX)
		return;
	etl__table_u64(t, row, EX_TRACE, (uint64_t)etl_event_trace_index(ev));
	etl__table_u64(t, row, EX_TIME, etl_event_filetime(ev));
	etl__table_u64(t, row, EX_PID, etl_event_pid(ev));
	etl__table_text(t, row, EX_PROCESS, etl__tables_process_name(T, ev, etl_event_pid(ev)));
	etl__table_u64(t, row, EX_TID, etl_event_tid(ev));
	etl__table_text(t, row, EX_TYPE, type);
	etl__table_text(t, row, EX_MESSAGE, msg);
	etl__table_u64(t, row, EX_HRESULT, hr);
	etl__tables_row_done(T, TK_EXCEPTIONS);
}

static uint64_t method_key(const struct etl_event *ev, uint64_t id)
{
	return etl__hash_mix(id ^ ((uint64_t)etl_event_pid(ev) << 32) ^ (uint64_t)(uint32_t)etl_event_trace_index(ev));
}

static int jit_eq(const void *e, const void *k)
{
	const struct jit_slot *a = e, *b = k;

	return a->method == b->method && a->pid == b->pid && a->trace == b->trace;
}

static int module_eq(const void *e, const void *k)
{
	const struct module_slot *a = e, *b = k;

	return a->id == b->id && a->pid == b->pid && a->trace == b->trace;
}

/* MethodJittingStarted: when compiling began. */
static int on_jitting(struct clr_state *s, const struct etl_event *ev, struct etl_cursor *c)
{
	struct jit_slot key = { 0, cur_u64(c), 0, etl_event_pid(ev), etl_event_trace_index(ev) }, *e;
	uint64_t h = method_key(ev, key.method);

	if (!cur_ok(c))
		return 0;
	if (!(e = etl__htab_find(&s->jit, h, jit_eq, &key))) {
		if (s->jit.count >= MAX_PENDING * 16 || !(e = etl__htab_insert(&s->jit, h)))
			return 0;
	}
	*e = key;
	e->key = h;
	e->start = etl_event_filetime(ev);
	return 0;
}

/* ModuleLoad, ModuleDCStart: a module's path, for the jit table's module column. */
static void on_module(struct clr_state *s, const struct etl_event *ev, struct etl_cursor *c)
{
	struct module_slot key = { 0, cur_u64(c), etl_event_pid(ev), etl_event_trace_index(ev), 0 }, *e;
	char il[1024], native[1024];
	uint64_t h = method_key(ev, key.id);

	cur_skip(c, 16);
	if (!wstr(c, il, sizeof(il)) || !wstr(c, native, sizeof(native)))
		return;
	if (!(e = etl__htab_find(&s->modules, h, module_eq, &key))) {
		if (s->modules.count >= MAX_PENDING || !(e = etl__htab_insert(&s->modules, h)))
			return;
		*e = key;
	}
	e->path = etl__tables_keep(&s->texts, etl__path_file(*il ? il : native), (size_t)16 << 20);
}

/* The path of a module the trace names anywhere (the stack index pass reads them all). */
static const char *module_path(struct etl_tables *T, const struct etl_event *ev, uint64_t module)
{
	const struct etl_methodhist *m = etl__reader_methods(T->r, etl_event_trace_index(ev));

	return m ? etl__methodhist_module(m, etl_event_pid(ev), module, NULL) : NULL;
}

static void on_method(struct etl_tables *T, struct clr_state *s, const struct etl_event *ev, struct etl_cursor *c)
{
	struct etl_table *t = T->tab[TK_JIT];
	struct jit_slot jkey;
	struct module_slot mkey, *m;
	const struct jit_slot *j;
	char ns[1024], name[1024], sig[1024];
	const char *path;
	uint64_t id = cur_u64(c), module = cur_u64(c), start = cur_u64(c);
	uint32_t size = cur_u32(c), flags;
	size_t row;

	cur_skip(c, 4);
	flags = cur_u32(c);
	if (!wstr(c, ns, sizeof(ns)) || !wstr(c, name, sizeof(name)) || !wstr(c, sig, sizeof(sig))) {
		etl__table_note(t, note_method_short, 1);
		return;
	}
	if ((row = etl__table_row(t)) == SIZE_MAX)
		return;
	etl__table_u64(t, row, JT_TRACE, (uint64_t)etl_event_trace_index(ev));
	etl__table_u64(t, row, JT_TIME, etl_event_filetime(ev));
	etl__table_u64(t, row, JT_PID, etl_event_pid(ev));
	etl__table_text(t, row, JT_PROCESS, etl__tables_process_name(T, ev, etl_event_pid(ev)));
	etl__table_u64(t, row, JT_TID, etl_event_tid(ev));
	etl__table_text(t, row, JT_NAMESPACE, ns);
	etl__table_text(t, row, JT_NAME, name);
	etl__table_text(t, row, JT_SIGNATURE, sig);
	mkey = (struct module_slot){ 0, module, etl_event_pid(ev), etl_event_trace_index(ev), 0 };
	if ((m = etl__htab_find(&s->modules, method_key(ev, module), module_eq, &mkey)) != NULL && m->path)
		etl__table_text(t, row, JT_MODULE, etl__tables_kept(&s->texts, m->path));
	else if ((path = module_path(T, ev, module)) != NULL) /* named later in the trace (its rundown) */
		etl__table_text(t, row, JT_MODULE, etl__path_file(path));
	etl__table_u64(t, row, JT_ADDRESS, start);
	etl__table_u64(t, row, JT_SIZE, size);
	etl__table_u64(t, row, JT_JITTED, (flags & 0x8) != 0);
	jkey = (struct jit_slot){ 0, id, 0, etl_event_pid(ev), etl_event_trace_index(ev) };
	if ((j = etl__htab_find(&s->jit, method_key(ev, id), jit_eq, &jkey)) != NULL) {
		etl__table_double(t, row, JT_JIT_MS, etl__tables_ms(j->start, etl_event_filetime(ev)));
		etl__htab_remove(&s->jit, (void *)j);
	}
	etl__tables_row_done(T, TK_JIT);
}

int etl__clr_event(struct etl_tables *T, const struct etl_event *ev, int rundown)
{
	struct clr_state *s;
	struct proc_gc *p;
	struct etl_cursor c;
	const uint8_t *pl;
	size_t len;
	unsigned id = etl_event_id(ev);

	if (!T->tab[TK_GC] && !T->tab[TK_EXCEPTIONS] && !T->tab[TK_JIT])
		return 0;
	if (!(s = state(T)))
		return -1;
	etl_event_payload(ev, &pl, &len);
	cur_init(&c, pl, len);
	if (rundown) { /* ModuleDCStart, ModuleDCEnd */
		if ((id == 153 || id == 154) && T->tab[TK_JIT])
			on_module(s, ev, &c);
		return 0;
	}
	if (T->tab[TK_GC] && (id == 1 || id == 2 || id == 3 || id == 4 || id == 9)) {
		if (!(p = proc_of(s, ev))) {
			etl__table_note(T->tab[TK_GC], note_gc_pending, 1);
			return 0;
		}
		switch (id) {
		case 1: on_gc_start(T, p, ev, &c); break;
		case 2: on_gc_end(T, p, ev, &c); break;
		case 3: on_restart(T, p, ev); break;
		case 4: on_heap(p, ev, &c); break;
		default: on_suspend(p, ev, &c); break;
		}
	} else if (id == 80 && T->tab[TK_EXCEPTIONS]) {
		on_exception(T, ev, &c);
	} else if (id == 145 && T->tab[TK_JIT]) {
		return on_jitting(s, ev, &c);
	} else if (id == 143 && T->tab[TK_JIT]) {
		on_method(T, s, ev, &c);
	} else if ((id == 152 || id == 149) && T->tab[TK_JIT]) {
		on_module(s, ev, &c);
	}
	return 0;
}

void etl__clr_finish(struct etl_tables *T)
{
	struct clr_state *s = T->clr;
	size_t i;

	for (i = 0; s && T->tab[TK_GC] && i < s->procs.cap; i++) {
		struct proc_gc *p = etl__htab_at(&s->procs, i);
		if (p)
			flush_done(T, p, 1);
	}
}

void etl__clr_free(struct etl_tables *T)
{
	struct clr_state *s = T->clr;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->procs.cap; i++) {
		struct proc_gc *p = etl__htab_at(&s->procs, i);
		if (p)
			etl__free(p->gcs);
	}
	etl__htab_free(&s->procs);
	etl__htab_free(&s->jit);
	etl__htab_free(&s->modules);
	etl__free(s->texts.b);
	etl__free(s);
	T->clr = NULL;
}

const struct tables_part etl__tables_part_clr = {
	.name = "clr",
	.providers = { { &clr_runtime, 0 }, { &clr_rundown, 1 } },
	.event = etl__clr_event, .finish = etl__clr_finish, .free = etl__clr_free,
};
