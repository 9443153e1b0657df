/*
 * sys.c - the processes, threads and images tables.
 *
 * processes: the reader's process records (one per process the trace
 *   described: running at its start, started, or both when a pid is reused),
 *   made at the end, with the user SID of its Process record and the threads
 *   its Thread records gave it.
 * threads: from Thread/Start, DCStart (running at the trace's start), Stop
 *   and DCStop (still running at its end) records, with the name the trace
 *   last gave the thread and its start address named as a stack frame is.
 * images: the trace's whole history of images (state/imagehist.h: Load,
 *   Unload, rundowns), with the PDB each DbgID_RSDS record names.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "tables/tables.h"

#define TEXT_MAX ((size_t)64 << 20) /* bytes of names and paths kept */


struct thread_rec {
	int trace;
	uint32_t pid, tid;
	uint64_t start, end;     /* FILETIME; 0 unknown */
	int start_at_trace, ended;
	uint64_t start_address;
	const struct etl_process *proc;
	size_t function;         /* + 1 into the function texts, or 0 */
};

/* A process record's facts only its events give. */
struct proc_slot {
	const struct etl_process *p;
	uint64_t threads;
	size_t sid;              /* + 1 into texts, or 0 */
};

/* An open thread: (trace, tid) -> its record. */
struct open_slot {
	uint64_t key;
	size_t rec;
};

struct sys_state {
	struct thread_rec *th;
	size_t nth, capth;
	struct etl_htab open;    /* of struct open_slot */
	struct etl_htab procs;   /* of struct proc_slot */
	struct tables_texts texts;
};

static int ptr_eq(const void *entry, const void *key)
{
	return ((const struct proc_slot *)entry)->p == key;
}

static int key_eq(const void *entry, const void *key)
{
	return ((const struct open_slot *)entry)->key == *(const uint64_t *)key;
}

static struct proc_slot *proc_slot(struct sys_state *s, const struct etl_process *p)
{
	uint64_t h = etl__hash_mix((uintptr_t)p);
	struct proc_slot *e = etl__htab_find(&s->procs, h, ptr_eq, p);

	if (!e && (e = etl__htab_insert(&s->procs, h)) != NULL)
		e->p = p;
	return e;
}

static struct sys_state *state(struct etl_tables *T)
{
	if (!T->sys && (T->sys = etl__calloc(1, sizeof(*T->sys))) != NULL) {
		etl__htab_init(&T->sys->open, sizeof(struct open_slot));
		etl__htab_init(&T->sys->procs, sizeof(struct proc_slot));
	}
	return T->sys;
}

/* Process/Start and DCStart: the record's user SID. */
static void on_process(struct etl_tables *T, struct sys_state *s, const struct etl_event *ev)
{
	const struct etl_process *p = etl_reader_event_process(T->r, ev);
	const struct etl_decoded *d;
	const char *sid;
	struct proc_slot *e;

	if (!p || !(d = etl__tables_decode(T, ev)) || !(sid = etl__tables_field_text(d, "UserSID")) || !*sid)
		return;
	if ((e = proc_slot(s, p)) != NULL && !e->sid)
		e->sid = etl__tables_keep(&s->texts, sid, TEXT_MAX);
}

/* The name of the thread's start address, as a frame of its Start record. */
static size_t start_function(struct etl_tables *T, struct sys_state *s, const struct etl_event *ev, uint64_t addr)
{
	struct etl_frame f;
	char text[512];

	if (!addr || etl_reader_frame(T->r, ev, addr, 0, &f) != ETL_OK || f.kind == ETL_FRAME_ADDRESS)
		return 0;
	if (f.function)
		snprintf(text, sizeof(text), "%s!%s+0x%llx", f.module, f.function, (unsigned long long)f.function_offset);
	else
		snprintf(text, sizeof(text), "%s!+0x%llx", f.module, (unsigned long long)f.module_offset);
	return etl__tables_keep(&s->texts, text, TEXT_MAX);
}

static uint64_t thread_key(int trace, uint32_t tid)
{
	return (uint64_t)(uint32_t)trace << 32 | tid;
}

/* Thread/Start (1), Stop (2), DCStart (3), DCStop (4). */
static int on_thread(struct etl_tables *T, struct sys_state *s, const struct etl_event *ev)
{
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	unsigned op = etl_event_opcode(ev);
	uint64_t pid, tid, key, h;
	struct open_slot *o;
	struct thread_rec *th;
	int ok1, ok2;

	if (!d)
		return 0;
	pid = etl__tables_field_u64(d, "ProcessID", &ok1);
	tid = etl__tables_field_u64(d, "ThreadID", &ok2);
	if (!ok1 || !ok2)
		return 0;
	key = thread_key(etl_event_trace_index(ev), (uint32_t)tid);
	h = etl__hash_mix(key);
	o = etl__htab_find(&s->open, h, key_eq, &key);
	if (op == 2 || op == 4) { /* an end: of the open record, else of one begun before the trace */
		if (!o) {
			if (etl__grow(&s->th, &s->capth, s->nth + 1, sizeof(*s->th), 256) != 0)
				return -1;
			th = &s->th[s->nth++];
			memset(th, 0, sizeof(*th));
			th->trace = etl_event_trace_index(ev);
			th->pid = (uint32_t)pid;
			th->tid = (uint32_t)tid;
			th->proc = etl_reader_find_process(T->r, th->trace, th->pid);
		} else {
			th = &s->th[o->rec];
			etl__htab_remove(&s->open, o);
		}
		if (op == 2) {
			th->end = etl_event_filetime(ev);
			th->ended = 1;
		}
		return 0;
	}
	if (etl__grow(&s->th, &s->capth, s->nth + 1, sizeof(*s->th), 256) != 0)
		return -1;
	th = &s->th[s->nth];
	memset(th, 0, sizeof(*th));
	th->trace = etl_event_trace_index(ev);
	th->pid = (uint32_t)pid;
	th->tid = (uint32_t)tid;
	th->start_at_trace = op == 3;
	th->start = op == 3 ? etl__tables_trace_start(T, th->trace) : etl_event_filetime(ev);
	th->start_address = etl__tables_field_u64(d, "Win32StartAddr", &ok1);
	th->function = start_function(T, s, ev, th->start_address);
	th->proc = etl_reader_find_process(T->r, th->trace, th->pid);
	if (th->proc) {
		struct proc_slot *e = proc_slot(s, th->proc);
		if (e)
			e->threads++;
	}
	if (!o && !(o = etl__htab_insert(&s->open, h)))
		return -1;
	o->key = key;
	o->rec = s->nth++;
	return 0;
}

int etl__sys_event(struct etl_tables *T, const struct etl_event *ev, int group)
{
	struct sys_state *s;
	unsigned op = etl_event_opcode(ev);

	if (!T->tab[TK_PROCESSES] && !T->tab[TK_THREADS])
		return 0;
	if (!(s = state(T)))
		return -1;
	if (group == G_PROCESS && (op == 1 || op == 3))
		on_process(T, s, ev);
	else if (group == G_THREAD && op >= 1 && op <= 4)
		return on_thread(T, s, ev);
	return 0;
}

static void process_rows(struct etl_tables *T, struct sys_state *s)
{
	struct etl_table *t = T->tab[TK_PROCESSES];
	size_t i, n = etl_reader_process_count(T->r);

	for (i = 0; i < n; i++) {
		const struct etl_process *p = etl_reader_process_at(T->r, i);
		struct proc_slot *e = s ? etl__htab_find(&s->procs, etl__hash_mix((uintptr_t)p), ptr_eq, p) : NULL;
		size_t row = etl__table_row(t);
		uint64_t end;
		int32_t code;
		if (row == SIZE_MAX)
			return;
		etl__table_u64(t, row, PR_TRACE, (uint64_t)etl_process_trace_index(p));
		etl__table_u64(t, row, PR_PID, etl_process_id(p));
		if (etl_process_parent_id(p) != ETL_ID_NONE)
			etl__table_u64(t, row, PR_PARENT, etl_process_parent_id(p));
		etl__table_text(t, row, PR_IMAGE, etl_process_image_name(p));
		etl__table_text(t, row, PR_CMDLINE, etl_process_command_line(p));
		if (etl_process_session_id(p) != ETL_ID_NONE)
			etl__table_u64(t, row, PR_SESSION, etl_process_session_id(p));
		if (e && e->sid)
			etl__table_text(t, row, PR_SID, etl__tables_kept(&s->texts, e->sid));
		etl__table_u64(t, row, PR_START_AT_TRACE, etl_process_start_filetime(p) == 0);
		etl__table_u64(t, row, PR_START, etl_process_start_filetime(p) ? etl_process_start_filetime(p)
									: etl__tables_trace_start(T, etl_process_trace_index(p)));
		if (etl_process_end(p, &end, &code)) {
			if (end)
				etl__table_u64(t, row, PR_END, end);
			etl__table_i64(t, row, PR_EXIT, code);
		}
		etl__table_u64(t, row, PR_THREADS, e ? e->threads : 0);
		etl__table_u64(t, row, PR_IMAGES, etl_process_image_count(p));
		etl__tables_row_done(T, TK_PROCESSES);
	}
}

static void thread_rows(struct etl_tables *T, struct sys_state *s)
{
	struct etl_table *t = T->tab[TK_THREADS];
	size_t i;

	for (i = 0; s && i < s->nth; i++) {
		const struct thread_rec *th = &s->th[i];
		size_t row = etl__table_row(t);
		const char *name = etl_reader_thread_name(T->r, th->trace, th->tid);
		if (row == SIZE_MAX)
			return;
		etl__table_u64(t, row, TH_TRACE, (uint64_t)th->trace);
		etl__table_u64(t, row, TH_PID, th->pid);
		etl__table_u64(t, row, TH_TID, th->tid);
		if (th->proc)
			etl__table_text(t, row, TH_PROCESS, etl_process_image_name(th->proc));
		etl__table_text(t, row, TH_NAME, name);
		if (th->start)
			etl__table_u64(t, row, TH_START, th->start);
		etl__table_u64(t, row, TH_START_AT_TRACE, th->start_at_trace);
		if (th->ended)
			etl__table_u64(t, row, TH_END, th->end);
		if (th->start_address)
			etl__table_u64(t, row, TH_START_ADDRESS, th->start_address);
		if (th->function)
			etl__table_text(t, row, TH_START_FUNCTION, etl__tables_kept(&s->texts, th->function));
		etl__tables_row_done(T, TK_THREADS);
	}
}

/* The images of every trace's image history. */
static void image_rows(struct etl_tables *T)
{
	struct etl_table *t = T->tab[TK_IMAGES];
	struct etl_reader *r = T->r;
	int k;

	for (k = 0; k < etl__reader_inputs(r); k++) {
		const struct etl_clockconv *clock = etl__reader_clock(r, k);
		const struct etl_imagehist *h = etl__reader_images(r, k);
		size_t i;
		for (i = 0; i < h->nimg; i++) {
			const struct etl_himage *im = &h->img[i];
			const struct etl_dbgid *dbg = etl__imagehist_dbgid(h, im);
			const struct etl_process *p = etl_reader_find_process(r, k, im->pid);
			char g[ETL_GUID_STRING_SIZE];
			size_t row = etl__table_row(t);
			if (row == SIZE_MAX)
				return;
			etl__table_u64(t, row, IM_TRACE, (uint64_t)k);
			etl__table_u64(t, row, IM_PID, im->pid);
			if (p)
				etl__table_text(t, row, IM_PROCESS, etl_process_image_name(p));
			etl__table_text(t, row, IM_PATH, etl__imagehist_name(h, im));
			etl__table_u64(t, row, IM_BASE, im->base);
			etl__table_u64(t, row, IM_SIZE, im->size);
			etl__table_u64(t, row, IM_LOAD_AT_TRACE, im->from == 0);
			etl__table_u64(t, row, IM_LOAD, im->from ? etl__clock_filetime(clock, im->from)
								 : etl__tables_trace_start(T, k));
			if (im->to != UINT64_MAX)
				etl__table_u64(t, row, IM_UNLOAD, etl__clock_filetime(clock, im->to));
			if (im->checksum)
				etl__table_u64(t, row, IM_CHECKSUM, im->checksum);
			if (im->stamp)
				etl__table_u64(t, row, IM_STAMP, im->stamp);
			if (dbg) {
				etl_guid_format(&dbg->guid, g);
				etl__table_text(t, row, IM_PDB_GUID, g);
				etl__table_u64(t, row, IM_PDB_AGE, dbg->age);
				etl__table_text(t, row, IM_PDB_NAME, etl__imagehist_text(h, dbg->pdb_name));
			}
			etl__tables_row_done(T, TK_IMAGES);
		}
	}
}

int etl__sys_kernel_describes(struct etl_tables *T, int kind, int trace)
{
	struct etl_reader *r = T->r;
	size_t i, n;

	if (kind == TK_PROCESSES) {
		for (i = 0, n = etl_reader_process_count(r); i < n; i++)
			if (etl_process_trace_index(etl_reader_process_at(r, i)) == trace)
				return 1;
	} else if (kind == TK_THREADS) {
		for (i = 0; T->sys && i < T->sys->nth; i++)
			if (T->sys->th[i].trace == trace)
				return 1;
	} else if (kind == TK_IMAGES && trace >= 0 && trace < etl__reader_inputs(r)) {
		return etl__reader_images(r, trace)->nimg > 0;
	}
	return 0;
}

void etl__sys_finish(struct etl_tables *T)
{
	if (T->tab[TK_PROCESSES])
		process_rows(T, T->sys);
	if (T->tab[TK_THREADS])
		thread_rows(T, T->sys);
	if (T->tab[TK_IMAGES])
		image_rows(T);
}

void etl__sys_free(struct etl_tables *T)
{
	struct sys_state *s = T->sys;

	if (!s)
		return;
	etl__free(s->th);
	etl__free(s->texts.b);
	etl__htab_free(&s->open);
	etl__htab_free(&s->procs);
	etl__free(s);
	T->sys = NULL;
}

const struct tables_part etl__tables_part_sys = {
	.name = "system", .groups = GROUP_BIT(G_PROCESS) | GROUP_BIT(G_THREAD),
	.event = etl__sys_event, .finish = etl__sys_finish, .free = etl__sys_free,
};
