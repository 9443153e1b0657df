/*
 * kproc.c - processes, threads and images from the Microsoft-Windows-Kernel-
 * Process provider, for the traces recorded with it instead of the kernel
 * logger (logman or WPR sessions of manifest providers).
 *
 * ProcessStart (1) and ProcessStop (2) give a process its pid, parent,
 * session, image, start (CreateTime) and end (ExitTime, ExitCode);
 * ThreadStart (3) and ThreadStop (4) a thread; ImageLoad (5) and ImageUnload
 * (6) an image's lifetime in its process.  A stop with no start in the trace
 * is of one running at the trace's start.  A trace whose kernel logger
 * describes processes, threads or images gives that table its rows instead
 * (sys.c), and the provider's records of it are counted in the table's
 * notes; the events are read in any case (a few Kernel-Process events beside
 * a kernel trace are common).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "tables/tables.h"

static const struct etl_guid kernel_process = { 0x22fb2cd6, 0x0e7b, 0x422b,
						{ 0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16 } };

#define TEXT_MAX ((size_t)64 << 20) /* bytes of names and paths kept */

struct kp_rec {
	int trace;
	int kind;                /* TK_PROCESSES, TK_THREADS or TK_IMAGES */
	uint32_t pid, tid, parent, session;
	uint64_t base, size, checksum, stamp, start_address;
	uint64_t start, end;     /* FILETIME; 0 unknown */
	int start_at_trace, ended, has_exit;
	int64_t exit_code;
	size_t name;             /* + 1 into texts: the process's image, the image's path */
	uint64_t threads;
};

struct open_slot {
	uint64_t key[3];         /* kind and trace, id (pid or tid), image base */
	size_t rec;
};

struct kproc_state {
	struct kp_rec *r;
	size_t n, cap;
	struct etl_htab open;
	struct tables_texts texts;
};

static const char note_left[] = "Kernel-Process records left out: the trace's kernel events describe these";

static int open_eq(const void *e, const void *k)
{
	return memcmp(((const struct open_slot *)e)->key, k, sizeof(((const struct open_slot *)e)->key)) == 0;
}

static struct kproc_state *state(struct etl_tables *T)
{
	if (!T->kproc && (T->kproc = etl__calloc(1, sizeof(*T->kproc))) != NULL)
		etl__htab_init(&T->kproc->open, sizeof(struct open_slot));
	return T->kproc;
}

/* The open record of (kind, trace, id, base), made when make is set (and none is open); NULL
 * without memory or (make unset) when none is open.  *made says whether it is new. */
static struct kp_rec *record(struct kproc_state *s, int kind, int trace, uint64_t id, uint64_t base, int make,
			     int close, int *made)
{
	uint64_t key[3] = { (uint64_t)(unsigned)kind << 32 | (uint32_t)trace, id, base };
	uint64_t h = etl__hash_mix(key[0] ^ etl__hash_mix(key[1] ^ etl__hash_mix(key[2])));
	struct open_slot *o = etl__htab_find(&s->open, h, open_eq, key);
	struct kp_rec *r;

	*made = 0;
	if (o && !make) {
		r = &s->r[o->rec];
		if (close)
			etl__htab_remove(&s->open, o);
		return r;
	}
	if (etl__grow(&s->r, &s->cap, s->n + 1, sizeof(*s->r), 64) != 0)
		return NULL;
	r = &s->r[s->n];
	memset(r, 0, sizeof(*r));
	r->trace = trace;
	r->kind = kind;
	if (!close) {
		if (!o && !(o = etl__htab_insert(&s->open, h)))
			return NULL;
		memcpy(o->key, key, sizeof(key));
		o->rec = s->n;
	}
	s->n++;
	*made = 1;
	return r;
}

/* The file name at the end of a path. */
static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '\\') : NULL;

	return b ? b + 1 : path;
}

static int on_process(struct etl_tables *T, struct kproc_state *s, const struct etl_event *ev,
		      const struct etl_decoded *d, int start)
{
	int trace = etl_event_trace_index(ev), made, ok;
	uint64_t pid = etl__tables_field_u64(d, "ProcessID", &ok), v;
	struct kp_rec *r;

	if (!ok || !(r = record(s, TK_PROCESSES, trace, pid, 0, start, !start, &made)))
		return ok ? -1 : 0;
	r->pid = (uint32_t)pid;
	if (start || made) {
		r->start = etl__tables_field_u64(d, "CreateTime", &ok);
		if (!ok || !r->start)
			r->start = start ? etl_event_filetime(ev) : 0;
		r->start_at_trace = !start && !r->start;
		r->parent = (uint32_t)etl__tables_field_u64(d, "ParentProcessID", &ok);
		if (!ok)
			r->parent = ETL_ID_NONE;
		r->session = (uint32_t)etl__tables_field_u64(d, "SessionID", &ok);
		if (!ok)
			r->session = ETL_ID_NONE;
		r->name = etl__tables_keep(&s->texts, base_name(etl__tables_field_text(d, "ImageName")), TEXT_MAX);
	}
	if (!start) {
		v = etl__tables_field_u64(d, "ExitTime", &ok);
		r->end = ok && v ? v : etl_event_filetime(ev);
		r->ended = 1;
		r->exit_code = (int32_t)(uint32_t)etl__tables_field_u64(d, "ExitCode", &r->has_exit);
	}
	return 0;
}

static int on_thread(struct etl_tables *T, struct kproc_state *s, const struct etl_event *ev,
		     const struct etl_decoded *d, int start)
{
	int trace = etl_event_trace_index(ev), made, ok1, ok2;
	uint64_t pid = etl__tables_field_u64(d, "ProcessID", &ok1), tid = etl__tables_field_u64(d, "ThreadID", &ok2);
	struct kp_rec *r;

	if (!ok1 || !ok2)
		return 0;
	if (!(r = record(s, TK_THREADS, trace, tid, 0, start, !start, &made)))
		return -1;
	r->pid = (uint32_t)pid;
	r->tid = (uint32_t)tid;
	if (start || made) {
		r->start = start ? etl_event_filetime(ev) : 0;
		r->start_at_trace = !start;
		r->start_address = etl__tables_field_u64(d, "Win32StartAddr", &ok1);
	}
	if (!start) {
		r->end = etl_event_filetime(ev);
		r->ended = 1;
	}
	(void)T;
	return 0;
}

static int on_image(struct etl_tables *T, struct kproc_state *s, const struct etl_event *ev,
		    const struct etl_decoded *d, int load)
{
	int trace = etl_event_trace_index(ev), made, ok1, ok2;
	uint64_t pid = etl__tables_field_u64(d, "ProcessID", &ok1), base = etl__tables_field_u64(d, "ImageBase", &ok2);
	struct kp_rec *r;
	char dos[1024];
	const char *path;

	if (!ok1 || !ok2)
		return 0;
	if (!(r = record(s, TK_IMAGES, trace, pid, base, load, !load, &made)))
		return -1;
	r->pid = (uint32_t)pid;
	r->base = base;
	if (load || made) {
		r->start = load ? etl_event_filetime(ev) : 0;
		r->start_at_trace = !load;
		r->size = etl__tables_field_u64(d, "ImageSize", NULL);
		r->checksum = etl__tables_field_u64(d, "ImageCheckSum", NULL);
		r->stamp = etl__tables_field_u64(d, "TimeDateStamp", NULL);
		path = etl__tables_field_text(d, "ImageName");
		if (path && etl__reader_dos_path(T->r, trace, path, dos, sizeof(dos)))
			path = dos;
		r->name = etl__tables_keep(&s->texts, path, TEXT_MAX);
	}
	if (!load) {
		r->end = etl_event_filetime(ev);
		r->ended = 1;
	}
	return 0;
}

int etl__kproc_event(struct etl_tables *T, const struct etl_event *ev, int arg)
{
	(void)arg;
	unsigned id = etl_event_id(ev);
	struct kproc_state *s;
	const struct etl_decoded *d;

	/* (processes always: the other tables name their rows' processes by them) */
	if (id < 1 || id > 6 || (id >= 3 && id <= 4 && !T->tab[TK_THREADS]) || (id >= 5 && !T->tab[TK_IMAGES]))
		return 0;
	if (!(d = etl__tables_decode(T, ev)))
		return 0;
	if (!(s = state(T)))
		return -1;
	if (id <= 2)
		return on_process(T, s, ev, d, id == 1);
	if (id <= 4)
		return on_thread(T, s, ev, d, id == 3);
	return on_image(T, s, ev, d, id == 5);
}

/* The image name of a process the provider described, or NULL. */
static const char *process_name(const struct kproc_state *s, int trace, uint32_t pid)
{
	size_t i;

	for (i = s->n; i-- > 0;) /* (the newest: a pid is reused) */
		if (s->r[i].kind == TK_PROCESSES && s->r[i].trace == trace && s->r[i].pid == pid && s->r[i].name)
			return etl__tables_kept(&s->texts, s->r[i].name);
	return NULL;
}

static void row_times(struct etl_table *t, size_t row, const struct kp_rec *r, uint64_t trace_start, int c_start,
		      int c_at_trace, int c_end)
{
	etl__table_u64(t, row, c_start, r->start ? r->start : trace_start);
	etl__table_u64(t, row, c_at_trace, r->start_at_trace);
	if (r->ended)
		etl__table_u64(t, row, c_end, r->end);
}

static void process_row(struct etl_tables *T, struct kproc_state *s, struct kp_rec *r)
{
	struct etl_table *t = T->tab[TK_PROCESSES];
	size_t row = etl__table_row(t), i;
	uint64_t images = 0;

	if (row == SIZE_MAX)
		return;
	for (i = 0; i < s->n; i++) {
		int mine = s->r[i].trace == r->trace && s->r[i].pid == r->pid;
		r->threads += mine && s->r[i].kind == TK_THREADS && !s->r[i].start_at_trace;
		images += mine && s->r[i].kind == TK_IMAGES;
	}
	etl__table_u64(t, row, PR_TRACE, (uint64_t)r->trace);
	etl__table_u64(t, row, PR_PID, r->pid);
	if (r->parent != ETL_ID_NONE)
		etl__table_u64(t, row, PR_PARENT, r->parent);
	if (r->name)
		etl__table_text(t, row, PR_IMAGE, etl__tables_kept(&s->texts, r->name));
	if (r->session != ETL_ID_NONE)
		etl__table_u64(t, row, PR_SESSION, r->session);
	row_times(t, row, r, etl__tables_trace_start(T, r->trace), PR_START, PR_START_AT_TRACE, PR_END);
	if (r->has_exit)
		etl__table_i64(t, row, PR_EXIT, r->exit_code);
	etl__table_u64(t, row, PR_THREADS, r->threads);
	etl__table_u64(t, row, PR_IMAGES, images);
	etl__tables_row_done(T, TK_PROCESSES);
}

static void thread_row(struct etl_tables *T, struct kproc_state *s, const struct kp_rec *r)
{
	struct etl_table *t = T->tab[TK_THREADS];
	size_t row = etl__table_row(t);

	if (row == SIZE_MAX)
		return;
	etl__table_u64(t, row, TH_TRACE, (uint64_t)r->trace);
	etl__table_u64(t, row, TH_PID, r->pid);
	etl__table_u64(t, row, TH_TID, r->tid);
	etl__table_text(t, row, TH_PROCESS, process_name(s, r->trace, r->pid));
	row_times(t, row, r, etl__tables_trace_start(T, r->trace), TH_START, TH_START_AT_TRACE, TH_END);
	if (r->start_address)
		etl__table_u64(t, row, TH_START_ADDRESS, r->start_address);
	etl__tables_row_done(T, TK_THREADS);
}

static void image_row(struct etl_tables *T, struct kproc_state *s, const struct kp_rec *r)
{
	struct etl_table *t = T->tab[TK_IMAGES];
	size_t row = etl__table_row(t);

	if (row == SIZE_MAX)
		return;
	etl__table_u64(t, row, IM_TRACE, (uint64_t)r->trace);
	etl__table_u64(t, row, IM_PID, r->pid);
	etl__table_text(t, row, IM_PROCESS, process_name(s, r->trace, r->pid));
	if (r->name)
		etl__table_text(t, row, IM_PATH, etl__tables_kept(&s->texts, r->name));
	etl__table_u64(t, row, IM_BASE, r->base);
	etl__table_u64(t, row, IM_SIZE, r->size);
	row_times(t, row, r, etl__tables_trace_start(T, r->trace), IM_LOAD, IM_LOAD_AT_TRACE, IM_UNLOAD);
	if (r->checksum)
		etl__table_u64(t, row, IM_CHECKSUM, r->checksum);
	if (r->stamp)
		etl__table_u64(t, row, IM_STAMP, r->stamp);
	etl__tables_row_done(T, TK_IMAGES);
}

void etl__kproc_finish(struct etl_tables *T)
{
	struct kproc_state *s = T->kproc;
	size_t i;

	for (i = 0; s && i < s->n; i++) {
		struct kp_rec *r = &s->r[i];
		if (!T->tab[r->kind])
			continue;
		if (etl__sys_kernel_describes(T, r->kind, r->trace)) {
			etl__table_note(T->tab[r->kind], note_left, 1);
			continue;
		}
		if (r->kind == TK_PROCESSES)
			process_row(T, s, r);
		else if (r->kind == TK_THREADS)
			thread_row(T, s, r);
		else
			image_row(T, s, r);
	}
}

const char *etl__kproc_process_name(const struct etl_tables *T, int trace, uint32_t pid)
{
	return T->kproc ? process_name(T->kproc, trace, pid) : NULL;
}

void etl__kproc_free(struct etl_tables *T)
{
	struct kproc_state *s = T->kproc;

	if (!s)
		return;
	etl__free(s->r);
	etl__free(s->texts.b);
	etl__htab_free(&s->open);
	etl__free(s);
	T->kproc = NULL;
}

const struct tables_part etl__tables_part_kproc = {
	.name = "kernel-process",
	.providers = { { &kernel_process, 0 } },
	.event = etl__kproc_event, .finish = etl__kproc_finish, .free = etl__kproc_free,
};
