/*
 * report.c - the HTML report's pass (see report.h): each event goes to the
 * analysis tables, whose streamed rows are added up here (CPU, I/O, network,
 * GCs, exceptions by process, file and endpoint, over time), and to the
 * report's own sums: events per provider over time, and each sample's stack
 * into the flame graph's tree.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report/report.h"

#define MAX_FRAME_NAMES (1u << 20) /* (trace, pid, address) -> name cached */

static const char *const table_names[] = { "processes", "cpu-samples", "cpu-usage", "disk-io", "file-io",
					   "network", "gc", "exceptions" };

/* ---- interned names ---- */

const char *etl__report_intern(struct etl_report *rep, const char *s)
{
	struct rb_sum *e = etl__report_sums_get(&rep->names, s ? s : "", ETL_ID_NONE);

	return e && e != &rep->names.other ? e->key : "?";
}

/* ---- reading the streamed rows ---- */

/* The column's index, from a cache by the table and the name's address (names are literals). */
static size_t col(struct etl_report *rep, const struct etl_table *t, const char *name)
{
	size_t h = (size_t)(((uintptr_t)name >> 3) ^ ((uintptr_t)t >> 4)) & 63;

	if (rep->cols[h].t != t || rep->cols[h].name != name) {
		rep->cols[h].t = t;
		rep->cols[h].name = name;
		rep->cols[h].col = etl_table_column_index(t, name);
	}
	return rep->cols[h].col;
}

static double num(struct etl_report *rep, const struct etl_table *t, const char *name)
{
	size_t c = col(rep, t, name);

	if (c == (size_t)-1 || etl_table_is_null(t, 0, c))
		return 0;
	return etl_table_column_type(t, c) == ETL_COLUMN_DOUBLE ? etl_table_double(t, 0, c)
								 : (double)etl_table_u64(t, 0, c);
}

/* An integer, time or bool cell as it is (0 when null): never through a double. */
static uint64_t u64v(struct etl_report *rep, const struct etl_table *t, const char *name)
{
	size_t c = col(rep, t, name);

	return c == (size_t)-1 || etl_table_is_null(t, 0, c) ? 0 : etl_table_u64(t, 0, c);
}

/* A duration in ms as 100-ns units, bounded (a weight or a slice from a hostile trace). */
static uint64_t ms_to_ticks(double ms)
{
	return ms > 0 && ms < 1e12 ? (uint64_t)(ms * 10000) : 0;
}

static int has(struct etl_report *rep, const struct etl_table *t, const char *name)
{
	size_t c = col(rep, t, name);

	return c != (size_t)-1 && !etl_table_is_null(t, 0, c);
}

static const char *text(struct etl_report *rep, const struct etl_table *t, const char *name, const char *none)
{
	size_t c = col(rep, t, name);
	const char *s = c != (size_t)-1 ? etl_table_text(t, 0, c) : NULL;

	return s && *s ? s : none;
}

/* "image (pid)" of a row, the key that names a process everywhere in the report (the last one
 * is kept: rows come in runs of one process). */
static const char *who(struct etl_report *rep, const struct etl_table *t, char *b, size_t cap, uint32_t *pid)
{
	const char *image;

	(void)b, (void)cap;
	*pid = has(rep, t, "pid") ? (uint32_t)u64v(rep, t, "pid") : ETL_ID_NONE;
	if (*pid == ETL_ID_NONE)
		return "(no process)";
	image = text(rep, t, "process", "?");
	if (*pid != rep->last_pid || strcmp(image, rep->last_image) != 0) {
		rep->last_pid = *pid;
		rep->last_cpu_sum = NULL;
		rep->last_cpu_series = NULL;
		snprintf(rep->last_image, sizeof(rep->last_image), "%s", image);
		snprintf(rep->last_key, sizeof(rep->last_key), "%s (%u)", image, *pid);
	}
	return rep->last_key;
}

static uint64_t when(struct etl_report *rep, const struct etl_table *t, const char *a, const char *b)
{
	return has(rep, t, a) ? u64v(rep, t, a) : has(rep, t, b) ? u64v(rep, t, b) : 0;
}

/* The latency bucket of ms: 2^i microseconds. */
static size_t bucket(double ms)
{
	double us = ms * 1000;
	size_t i = 0;

	while (us >= 2 && i < 23)
		us /= 2, i++;
	return i;
}

static void add_sum(struct rb_sums *s, const char *key, uint32_t pid, double v0, double v1, double max)
{
	struct rb_sum *e = etl__report_sums_get(s, key, pid);

	if (!e)
		return;
	e->n++;
	e->v[0] += v0;
	e->v[1] += v1;
	if (max > e->max)
		e->max = max;
}

static void on_disk(struct etl_report *rep, const struct etl_table *t, const char *proc, uint32_t pid)
{
	double bytes = num(rep, t, "bytes"), ms = num(rep, t, "elapsed");
	const char *type = text(rep, t, "type", "?"), *file = text(rep, t, "file_name", NULL);

	rep->disk_ios++;
	if (!file)
		file = strcmp(type, "flush") == 0 ? "(flushes)" : "(no file name in the trace)";
	etl__report_line_add(rep->disk, when(rep, t, "complete_time", "init_time"), type, ETL_ID_NONE, bytes);
	add_sum(&rep->disk_by_file, file, ETL_ID_NONE, bytes, ms, ms);
	add_sum(&rep->disk_by_proc, proc, pid, bytes, ms, ms);
	if (has(rep, t, "elapsed"))
		rep->disk_lat[bucket(ms)]++;
}

static void on_file(struct etl_report *rep, const struct etl_table *t, const char *proc, uint32_t pid)
{
	double bytes = num(rep, t, "bytes"), ms = num(rep, t, "elapsed");

	rep->file_ios++;
	etl__report_line_add(rep->file, when(rep, t, "start_time", "end_time"), text(rep, t, "operation", "?"), ETL_ID_NONE, 1);
	add_sum(&rep->file_by_file, text(rep, t, "file_name", "(no file name in the trace)"), ETL_ID_NONE, bytes, ms, ms);
	add_sum(&rep->file_by_proc, proc, pid, bytes, ms, ms);
	if (has(rep, t, "elapsed"))
		rep->file_lat[bucket(ms)]++;
}

static void on_net(struct etl_report *rep, const struct etl_table *t, const char *proc, uint32_t pid)
{
	const char *op = text(rep, t, "operation", "?");
	double bytes = num(rep, t, "bytes"), sent = strcmp(op, "send") == 0 ? bytes : 0,
	       recv = strcmp(op, "receive") == 0 ? bytes : 0;
	char end[300];

	rep->net_events++;
	snprintf(end, sizeof(end), "%s %s:%.0f", text(rep, t, "protocol", "?"), text(rep, t, "remote_address", "?"),
		 num(rep, t, "remote_port"));
	etl__report_line_add(rep->net, when(rep, t, "time", "time"), proc, pid, bytes);
	etl__report_line_add(rep->net_ends, when(rep, t, "time", "time"), end, ETL_ID_NONE, bytes);
	add_sum(&rep->net_by_proc, proc, pid, sent, recv, 0);
	add_sum(&rep->net_by_end, end, ETL_ID_NONE, sent, recv, 0);
}

static void on_gc(struct etl_report *rep, const struct etl_table *t, const char *proc, uint32_t pid)
{
	double pause = num(rep, t, "pause");
	struct rb_point *p;

	rep->gcs++;
	add_sum(&rep->gc_by_proc, proc, pid, pause, num(rep, t, "duration"), pause);
	if (!has(rep, t, "start_time"))
		return;
	if (rep->npoints >= RB_MAX_POINTS) {
		rep->points_dropped++;
		return;
	}
	p = &rep->points[rep->npoints++];
	p->time = u64v(rep, t, "start_time");
	p->pause = has(rep, t, "pause") ? pause : num(rep, t, "duration");
	p->pid = pid;
	p->gen = (uint32_t)u64v(rep, t, "generation");
	p->proc = etl__report_intern(rep, proc);
	p->reason = etl__report_intern(rep, text(rep, t, "reason", "?"));
}

static void on_row(void *ctx, const struct etl_table *t)
{
	struct etl_report *rep = ctx;
	const char *name = etl_table_name(t), *proc;
	char b[300];
	uint32_t pid;

	proc = who(rep, t, b, sizeof(b), &pid);
	if (strcmp(name, "cpu-samples") == 0) {
		rep->samples++;
		double w = num(rep, t, "weight");
		struct rb_sum *e;
		if (pid != 0) { /* (the idle process: in the table, not drawn) */
			uint64_t at = u64v(rep, t, "time"), span = ms_to_ticks(w);
			struct rb_series *sr = proc == rep->last_key ? rep->last_cpu_series : NULL;
			if (!sr && (sr = etl__report_line_series(rep->cpu, proc, pid)) != NULL && proc == rep->last_key)
				rep->last_cpu_series = sr;
			/* a sample stands for the interval before it */
			etl__report_series_add_span(rep->cpu, sr, at > span ? at - span : 0, at, w);
		}
		/* (samples come in runs of one process: its sum is kept with its key) */
		if (proc != rep->last_key || !(e = rep->last_cpu_sum))
			e = etl__report_sums_get(&rep->cpu_by_proc, proc, pid);
		if (proc == rep->last_key)
			rep->last_cpu_sum = e;
		if (e) {
			e->n++;
			e->v[0] += w;
		}
	} else if (strcmp(name, "cpu-usage") == 0) {
		rep->switches++;
		if (pid != 0)
			etl__report_line_add_span(rep->cswitch, u64v(rep, t, "switch_in_time"), u64v(rep, t, "switch_out_time"),
					 proc, pid, num(rep, t, "cpu_usage"));
		add_sum(&rep->sw_by_proc, proc, pid, num(rep, t, "cpu_usage"), num(rep, t, "ready"), 0);
	} else if (strcmp(name, "disk-io") == 0) {
		on_disk(rep, t, proc, pid);
	} else if (strcmp(name, "file-io") == 0) {
		on_file(rep, t, proc, pid);
	} else if (strcmp(name, "network") == 0) {
		on_net(rep, t, proc, pid);
	} else if (strcmp(name, "gc") == 0) {
		on_gc(rep, t, proc, pid);
	} else if (strcmp(name, "exceptions") == 0) {
		rep->exceptions++;
		add_sum(&rep->exc_by_type, text(rep, t, "type", "?"), ETL_ID_NONE, 0, 0, 0);
	}
}

/* ---- the events themselves ---- */

static int is_kernel(const struct etl_event *ev)
{
	enum etl_header_kind k = etl_event_header_kind(ev);

	return k == ETL_HEADER_SYSTEM || k == ETL_HEADER_COMPACT || k == ETL_HEADER_PERFINFO;
}

struct pname {
	uint64_t key;
	struct rb_series *s;
};

static int pname_eq(const void *e, const void *k)
{
	return ((const struct pname *)e)->key == *(const uint64_t *)k;
}

/* Providers the tables read without their manifest: their names when nothing else names them. */
static const char *known_name(const char *guid)
{
	static const char *const known[][2] = {
		{ "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", "Microsoft-Windows-DotNETRuntime" },
		{ "a669021c-c450-4609-a035-5af59af4df18", "Microsoft-Windows-DotNETRuntimeRundown" },
		{ "763fd754-7086-4dfe-95eb-c01a46faf4ca", "Microsoft-Windows-DotNETRuntimePrivate" },
		{ "7dd42a49-5329-4832-8dfd-43d979153a88", "Microsoft-Windows-Kernel-Network" },
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(guid, known[i][0]) == 0)
			return known[i][1];
	return guid;
}

/* The series of the event's provider (for kernel records: "Windows Kernel/Group"), named by the
 * decoding of its first event. */
static struct rb_series *provider_series(struct etl_report *rep, const struct etl_event *ev)
{
	const struct etl_guid *g = etl_event_provider(ev);
	uint64_t key = is_kernel(ev) ? 0x4B00000000000000ull | (uint64_t)(etl_event_hook_id(ev) >> 8)
				     : etl__hash_bytes(g, sizeof(*g));
	uint64_t h = etl__hash_mix(key);
	struct pname *e = etl__htab_find(&rep->provider_names, h, pname_eq, &key);
	const struct etl_decoded *d;
	char b[512], gs[ETL_GUID_STRING_SIZE];

	if (e)
		return e->s;
	etl_guid_format(g, gs);
	if (etl_reader_decode(rep->r, ev, &d) < 0 && !d) {
		snprintf(b, sizeof(b), "%s", known_name(gs));
	} else {
		const char *pn = etl_decoded_provider_name(d), *task = etl_decoded_task_name(d);
		if (!pn || !*pn || strcmp(pn, gs) == 0)
			snprintf(b, sizeof(b), "%s", known_name(gs));
		else if (is_kernel(ev))
			snprintf(b, sizeof(b), "%s/%s", pn, task && *task ? task : "?");
		else
			snprintf(b, sizeof(b), "%s", pn);
	}
	if (rep->provider_names.count >= RB_MAX_KEYS || !(e = etl__htab_insert(&rep->provider_names, h)))
		return etl__report_line_series(rep->providers, b, ETL_ID_NONE);
	e->key = key;
	e->s = etl__report_line_series(rep->providers, b, ETL_ID_NONE);
	return e->s;
}

struct fname {
	uint64_t addr;
	uint32_t pid;
	int trace;
	const char *name;
};

static int fname_eq(const void *e, const void *k)
{
	const struct fname *a = e, *b = k;

	return a->addr == b->addr && a->pid == b->pid && a->trace == b->trace;
}

/* A frame's name in the flame graph: module!function, else the module, else "?". */
static const char *frame_name(struct etl_report *rep, const struct etl_event *ev, uint32_t pid, uint64_t addr)
{
	struct fname key = { addr, pid, etl_event_trace_index(ev), NULL }, *e;
	uint64_t h = etl__hash_mix(addr ^ etl__hash_mix(((uint64_t)pid << 8) | (uint64_t)(key.trace & 0xFF)));
	struct etl_frame f;
	char b[600];
	const char *name;

	if ((e = etl__htab_find(&rep->frame_names, h, fname_eq, &key)) != NULL)
		return e->name;
	etl_reader_frame(rep->r, ev, addr, 0, &f);
	if (f.function && f.module)
		snprintf(b, sizeof(b), "%s!%s", f.module, f.function);
	else
		snprintf(b, sizeof(b), "%s", f.module ? f.module : "?");
	name = etl__report_intern(rep, b);
	if (rep->frame_names.count < MAX_FRAME_NAMES && (e = etl__htab_insert(&rep->frame_names, h)) != NULL) {
		*e = key;
		e->name = name;
	}
	return name;
}

struct pkey {
	const void *p;
	uint32_t pid;
	const char *name;
};

static int pkey_eq(const void *e, const void *k)
{
	return ((const struct pkey *)e)->p == ((const struct pkey *)k)->p &&
	       ((const struct pkey *)e)->pid == ((const struct pkey *)k)->pid;
}

/* "image (pid)" of a process record (interned; cached by the record). */
static const char *process_key(struct etl_report *rep, const struct etl_process *p, uint32_t pid)
{
	struct pkey key = { p, pid, NULL }, *e;
	uint64_t h = etl__hash_mix((uint64_t)(uintptr_t)p ^ pid);
	char b[300];

	if ((e = etl__htab_find(&rep->proc_names, h, pkey_eq, &key)) != NULL)
		return e->name;
	snprintf(b, sizeof(b), "%s (%u)", p && *etl_process_image_name(p) ? etl_process_image_name(p) : "?", pid);
	key.name = etl__report_intern(rep, b);
	if (rep->proc_names.count < RB_MAX_KEYS && (e = etl__htab_insert(&rep->proc_names, h)) != NULL)
		*e = key;
	return key.name;
}

static void on_sample(struct etl_report *rep, const struct etl_event *ev)
{
	size_t depth = etl_event_stack_depth(ev), i, n = 0, at;
	int trace = etl_event_trace_index(ev);
	uint32_t pid = etl_reader_event_pid(rep->r, ev), fpid = etl_event_stack_process(ev);
	const char *proc;

	if (pid == 0) { /* the idle process: counted, not drawn */
		rep->idle_samples++;
		return;
	}
	proc = pid == ETL_ID_NONE ? etl__report_intern(rep, "(no process)")
				  : process_key(rep, etl_reader_find_process(rep->r, etl_event_trace_index(ev), pid), pid);
	at = etl__report_flame_root(rep->flame, proc, pid, 1);
	for (i = depth; i-- > 0 && n++ < 256 && at != (size_t)-1;) {
		uint64_t addr = etl_event_stack_frame(ev, i);
		size_t next = etl__report_flame_known(rep->flame, at, addr, trace);
		if (next == (size_t)-1)
			next = etl__report_flame_learn(rep->flame, at, addr, trace, frame_name(rep, ev, fpid, addr));
		at = etl__report_flame_step(rep->flame, next, 1);
	}
}

/* ---- the public calls ---- */

int etl_report_new(struct etl_reader *r, unsigned flags, struct etl_report **out)
{
	struct etl_report *rep;
	int i, st;
	uint64_t t0 = UINT64_MAX, t1 = 0;

	if (!out)
		return ETL_E_MISUSE;
	*out = NULL;
	if (!r)
		return ETL_E_MISUSE;
	if (!(rep = etl__calloc(1, sizeof(*rep))))
		return ETL_E_NOMEM;
	rep->r = r;
	rep->flags = flags;
	rep->last_pid = ETL_ID_NONE;
	st = etl_tables_new(r, table_names, sizeof(table_names) / sizeof(table_names[0]), 0, on_row,
			    rep, &rep->tabs);
	for (i = 0; i < etl_reader_trace_count(r); i++) {
		const struct etl_trace_info *ti = etl_reader_trace_info(r, i);
		if (etl_trace_info_start_time(ti) && etl_trace_info_start_time(ti) < t0)
			t0 = etl_trace_info_start_time(ti);
		if (etl_trace_info_end_time(ti) > t1)
			t1 = etl_trace_info_end_time(ti);
	}
	rep->t0 = t0 == UINT64_MAX ? 0 : t0;
	rep->t1 = t1;
	etl__report_clock_init(&rep->clock, rep->t0, t1);
	etl__report_sums_init(&rep->cpu_by_proc), etl__report_sums_init(&rep->sw_by_proc), etl__report_sums_init(&rep->disk_by_file);
	etl__report_sums_init(&rep->disk_by_proc), etl__report_sums_init(&rep->file_by_file), etl__report_sums_init(&rep->file_by_proc);
	etl__report_sums_init(&rep->net_by_proc), etl__report_sums_init(&rep->net_by_end), etl__report_sums_init(&rep->gc_by_proc);
	etl__report_sums_init(&rep->exc_by_type), etl__report_sums_init(&rep->names);
	etl__htab_init(&rep->provider_names, sizeof(struct pname));
	etl__htab_init(&rep->frame_names, sizeof(struct fname));
	etl__htab_init(&rep->proc_names, sizeof(struct pkey));
	if (st == ETL_OK && (!(rep->providers = etl__report_line_new(&rep->clock)) || !(rep->cpu = etl__report_line_new(&rep->clock)) ||
			     !(rep->cswitch = etl__report_line_new(&rep->clock)) || !(rep->disk = etl__report_line_new(&rep->clock)) ||
			     !(rep->file = etl__report_line_new(&rep->clock)) || !(rep->net = etl__report_line_new(&rep->clock)) ||
			     !(rep->net_ends = etl__report_line_new(&rep->clock)) ||
			     !(rep->flame = etl__report_flame_new()) ||
			     !(rep->points = etl__malloc(RB_MAX_POINTS * sizeof(*rep->points)))))
		st = ETL_E_NOMEM;
	if (st != ETL_OK) {
		etl_report_free(rep);
		return st;
	}
	*out = rep;
	return ETL_OK;
}

int etl_report_set_filter(struct etl_report *rep, struct etl_filter *f)
{
	uint64_t t0 = UINT64_MAX, t1 = 0, a, b;
	int i;

	if (!rep || !f || rep->added)
		return ETL_E_MISUSE;
	rep->filter = f;
	if (etl_filter_parts(f) & ETL_FILTER_TIME) { /* the charts' time line: the window's */
		for (i = 0; i < etl_reader_trace_count(rep->r); i++)
			if (etl_filter_window(f, rep->r, i, &a, &b) == ETL_OK) {
				t0 = a < t0 ? a : t0;
				t1 = b > t1 ? b : t1;
			}
		if (t0 != UINT64_MAX) {
			rep->t0 = t0 > rep->t0 ? t0 : rep->t0;
			rep->t1 = t1 < rep->t1 ? t1 + 1 : rep->t1;
			etl__report_clock_span(&rep->clock, rep->t0, rep->t1);
		}
	}
	return etl_tables_set_filter(rep->tabs, f);
}

/* Whether an event is in the filter's window and of a process it selects (the charts' rule;
 * the tables apply theirs to their rows). */
static int selected(struct etl_report *rep, const struct etl_event *ev)
{
	uint64_t from, to, ft = etl_event_filetime(ev);
	const struct etl_process *p;

	if (!rep->filter)
		return 1;
	if ((etl_filter_parts(rep->filter) & ETL_FILTER_TIME) &&
	    (etl_filter_window(rep->filter, rep->r, etl_event_trace_index(ev), &from, &to) != ETL_OK || ft < from ||
	     ft > to))
		return 0;
	if (!(etl_filter_parts(rep->filter) & ETL_FILTER_PROCESS))
		return 1;
	p = etl_reader_event_process(rep->r, ev);
	return etl_filter_process_selected(rep->filter, etl_reader_event_pid(rep->r, ev),
					   p ? etl_process_image_name(p) : NULL);
}

int etl_report_add(struct etl_report *rep, const struct etl_event *ev)
{
	uint64_t ft;

	if (!rep || !ev)
		return ETL_E_MISUSE;
	rep->added = 1;
	if (!selected(rep, ev))
		return etl_tables_add(rep->tabs, ev);
	rep->events++;
	ft = etl_event_filetime(ev);
	if (!rep->t0 || ft < rep->t0) /* (a trace without a start time: its first event) */
		rep->t0 = rep->clock.t0 = rep->clock.t0 ? rep->clock.t0 : ft;
	if (ft > rep->t1)
		rep->t1 = ft;
	etl__report_series_add(rep->providers, provider_series(rep, ev), ft, 1);
	if (is_kernel(ev) && etl_event_hook_id(ev) == 0x0F2E)
		on_sample(rep, ev);
	return etl_tables_add(rep->tabs, ev);
}

void etl_report_free(struct etl_report *rep)
{
	size_t i;

	if (!rep)
		return;
	etl_tables_free(rep->tabs);
	etl__report_clock_free(&rep->clock);
	etl__report_sums_free(&rep->cpu_by_proc), etl__report_sums_free(&rep->sw_by_proc), etl__report_sums_free(&rep->disk_by_file);
	etl__report_sums_free(&rep->disk_by_proc), etl__report_sums_free(&rep->file_by_file), etl__report_sums_free(&rep->file_by_proc);
	etl__report_sums_free(&rep->net_by_proc), etl__report_sums_free(&rep->net_by_end), etl__report_sums_free(&rep->gc_by_proc);
	etl__report_sums_free(&rep->exc_by_type), etl__report_sums_free(&rep->names);
	etl__htab_free(&rep->provider_names);
	etl__htab_free(&rep->frame_names);
	etl__htab_free(&rep->proc_names);
	etl__report_flame_free(rep->flame);
	etl__free(rep->points);
	for (i = 0; i < rep->nprocs; i++) {
		etl__free(rep->procs[i].image);
		etl__free(rep->procs[i].cmd);
	}
	etl__free(rep->procs);
	etl__free(rep);
}

/* The processes table's rows, with their CPU (the report's sums) and the depth of their
 * ancestry, in tree order. */
static void take_processes(struct etl_report *rep);

int etl_report_write_html(struct etl_report *rep, etl_write_fn write, void *ctx)
{
	struct rb_out *o;
	int failed;

	if (!rep || !write)
		return ETL_E_MISUSE;
	if (!(o = etl__calloc(1, sizeof(*o))))
		return ETL_E_NOMEM;
	o->write = write;
	o->ctx = ctx;
	if (!rep->finished) {
		rep->finished = 1;
		etl_tables_finish(rep->tabs);
		take_processes(rep);
	}
	etl__report_write_page(rep, o);
	etl__report_flush(o);
	failed = o->failed;
	etl__free(o);
	return failed ? ETL_E_IO : ETL_OK;
}

int etl_report_html(struct etl_reader *r, unsigned flags, etl_write_fn write, void *ctx)
{
	struct etl_report *rep;
	const struct etl_event *ev;
	int st;

	if (!write)
		return ETL_E_MISUSE;
	if ((st = etl_report_new(r, flags, &rep)) != ETL_OK)
		return st;
	for (;;) {
		st = etl_reader_next(r, &ev);
		if (st == ETL_END) {
			st = ETL_OK;
			break;
		}
		if (st != ETL_OK) {
			if (etl_error_is_fatal(etl_reader_error(r)))
				break;
			st = ETL_OK;
			continue;
		}
		if ((st = etl_report_add(rep, ev)) != ETL_OK)
			break;
	}
	if (st == ETL_OK)
		st = etl_report_write_html(rep, write, ctx);
	etl_report_free(rep);
	return st;
}

/* ---- processes, in tree order ---- */

static int proc_by_start(const void *a, const void *b)
{
	const struct rb_proc *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int proc_by_cpu(const void *a, const void *b)
{
	const struct rb_proc *x = a, *y = b;

	if (x->cpu_ms != y->cpu_ms)
		return x->cpu_ms > y->cpu_ms ? -1 : 1;
	return proc_by_start(a, b);
}

/* Whether in[k] is in[i]'s parent: its pid, started before it. */
static int parent_of(const struct rb_proc *in, size_t k, size_t i)
{
	return k != i && in[k].pid == in[i].ppid && in[k].pid != in[i].pid && in[k].start <= in[i].start;
}

/* Appends p and, after it, its children, depth by depth (n is at most RB_MAX_PROCS). */
static void tree_order(struct rb_proc *in, size_t n, char *used, size_t i, int depth, struct rb_proc *out,
		       size_t *m)
{
	size_t k;

	used[i] = 1;
	in[i].depth = depth;
	out[(*m)++] = in[i];
	for (k = 0; k < n && depth < 16; k++)
		if (!used[k] && parent_of(in, i, k))
			tree_order(in, n, used, k, depth + 1, out, m);
}

/* A row of the processes table. */
static void proc_row(struct etl_report *rep, const struct etl_table *t, size_t i, struct rb_proc *p)
{
	size_t c = col(rep, t, "parent_pid");
	const char *image = etl_table_text(t, i, col(rep, t, "image")), *cmd = etl_table_text(t, i, col(rep, t, "command_line"));
	const struct rb_sum *s;
	char key[300];

	p->pid = (uint32_t)etl_table_u64(t, i, col(rep, t, "pid"));
	p->ppid = etl_table_is_null(t, i, c) ? ETL_ID_NONE : (uint32_t)etl_table_u64(t, i, c);
	p->start = etl_table_u64(t, i, col(rep, t, "start_is_trace_start")) ? 0 : etl_table_u64(t, i, col(rep, t, "start_time"));
	c = col(rep, t, "end_time");
	p->end = etl_table_is_null(t, i, c) ? 0 : etl_table_u64(t, i, c);
	snprintf(key, sizeof(key), "%s (%u)", image ? image : "?", p->pid);
	s = etl__report_sums_find(&rep->cpu_by_proc, key);
	p->cpu_ms = s ? s->v[0] : 0;
	p->src_image = image;
	p->src_cmd = cmd;
}

static void take_processes(struct etl_report *rep)
{
	const struct etl_table *t = etl_tables_get(rep->tabs, "processes");
	size_t n = t ? etl_table_row_count(t) : 0, i, m = 0;
	struct rb_proc *in = n ? etl__calloc(n, sizeof(*in)) : NULL, *out;
	char *used;

	rep->nprocs_all = n;
	if (!in)
		return;
	for (i = 0; i < n; i++)
		proc_row(rep, t, i, &in[i]);
	if (n > RB_MAX_PROCS) { /* the busiest ones */
		qsort(in, n, sizeof(*in), proc_by_cpu);
		n = RB_MAX_PROCS;
	}
	qsort(in, n, sizeof(*in), proc_by_start);
	out = etl__calloc(n, sizeof(*out));
	used = etl__calloc(n, 1);
	for (i = 0; out && used && i < n; i++) {
		size_t k;
		int root = 1;
		for (k = 0; k < n && root; k++)
			root = !parent_of(in, k, i);
		if (root && !used[i])
			tree_order(in, n, used, i, 0, out, &m);
	}
	for (i = 0; out && used && i < n; i++) /* (cycles in what the trace says: the rest, flat) */
		if (!used[i])
			tree_order(in, n, used, i, 0, out, &m);
	for (i = 0; out && i < m; i++) {
		out[i].image = etl__strdup(out[i].src_image ? out[i].src_image : "?");
		out[i].cmd = etl__strdup(out[i].src_cmd ? out[i].src_cmd : "");
	}
	etl__free(in);
	etl__free(used);
	rep->procs = out;
	rep->nprocs = out ? m : 0;
}
