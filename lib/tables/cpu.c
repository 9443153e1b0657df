/*
 * cpu.c - the cpu-samples and cpu-usage tables.
 *
 * cpu-samples: one row per PerfInfo/Sample: its thread (the payload's
 *   ThreadID) and process (that thread's, etl_reader_event_pid), a weight of
 *   the sampling interval (the timer's NewInterval of PerfInfo CollectionStart
 *   or SetInterval, else 1 ms), and the leaf: the instruction pointer (a
 *   stack's first frame too), named as etl_reader_frame() names it.
 * cpu-usage: one row per time slice a thread ran on a processor, from
 *   Thread/CSwitch: switched in by one, out by the next on that processor.
 *   The slice's ready time and readying thread come from the ReadyThread
 *   record that readied the thread (the readying thread is the one running
 *   on the processor that logged it), its wait reason from the CSwitch that
 *   switched it out before.  A processor's first switch ends a slice begun
 *   before the trace (not a row: counted); a slice still running at the end
 *   is a row without a switch-out (counted).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "tables/tables.h"
#include "util/cursor.h"

#define OP_SAMPLE 46
#define OP_SET_INTERVAL 72
#define OP_COLLECTION_START 73
#define OP_CSWITCH 36
#define OP_READY 50
#define MAX_CPUS 4096u
#define MAX_STACK_TEXT 16384u

static const char note_before[] = "context switches that end a slice begun before the trace (no row)";
static const char note_running[] = "slices still running at the end of the trace (no switch-out time)";
static const char note_unread[] = "context switches without their threads' ids, or on a processor past the limit (no row)";
static const char note_short[] = "samples too short to hold their thread (no row)";
static const char note_no_pid[] = "samples of a thread no record had named yet (rows without pid)";

struct slice {
	int valid;
	uint32_t tid, pid, readying_tid, readying_pid, priority;
	uint64_t in, ready;
	const char *wait_reason; /* static or kept text */
	size_t wait_at;          /* + 1 into texts */
	int trace;
};

/* What the last ReadyThread and switch-out said of a thread. */
struct thread_slot {
	uint64_t key;            /* trace << 32 | tid */
	uint64_t ready;          /* 0: not readied since */
	uint32_t readying_tid, readying_pid;
	size_t wait_at;          /* its last switch-out reason: + 1 into texts */
};

struct cpu_state {
	struct slice *cur;       /* per processor */
	size_t ncpu;
	struct etl_htab threads;
	char *texts;             /* wait reasons (a few dozen distinct) */
	size_t ntexts, captexts;
	char *stack;             /* ETL_TABLES_STACKS: the text being made */
};

static struct cpu_state *state(struct etl_tables *T)
{
	if (!T->cpu && (T->cpu = etl__calloc(1, sizeof(*T->cpu))) != NULL)
		etl__htab_init(&T->cpu->threads, sizeof(struct thread_slot));
	return T->cpu;
}

static size_t keep_text(struct cpu_state *s, const char *t)
{
	size_t n = t ? strlen(t) : 0, i;

	if (!n)
		return 0;
	for (i = 0; i < s->ntexts; i += strlen(s->texts + i) + 1) /* a few dozen: searched */
		if (strcmp(s->texts + i, t) == 0)
			return i + 1;
	if (s->ntexts > (1u << 16) || etl__grow(&s->texts, &s->captexts, s->ntexts + n + 1, 1, 1024) != 0)
		return 0;
	memcpy(s->texts + s->ntexts, t, n + 1);
	s->ntexts += n + 1;
	return i + 1;
}

/* The timer's interval (source 0) from CollectionStart or SetInterval. */
static void note_interval(struct etl_tables *T, const struct etl_event *ev)
{
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	int ok1, ok2;
	uint64_t src = etl__tables_field_u64(d, "SampleSource", &ok1), v;

	if (!ok1)
		src = etl__tables_field_u64(d, "Source", &ok1);
	v = etl__tables_field_u64(d, "NewInterval", &ok2);
	if (ok1 && ok2 && src == 0 && v > 0 && v <= UINT32_MAX)
		T->interval = (uint32_t)v;
}

/* The sample's frames as text, leaf first, ';' between them. */
static const char *stack_text(struct etl_tables *T, struct cpu_state *s, const struct etl_event *ev)
{
	size_t i, n = etl_event_stack_depth(ev), len = 0;

	if (!s->stack && !(s->stack = etl__malloc(MAX_STACK_TEXT)))
		return NULL;
	s->stack[0] = 0;
	for (i = 0; i < n && len + 2 < MAX_STACK_TEXT; i++) {
		struct etl_frame f;
		int k;
		etl_reader_frame(T->r, ev, etl_event_stack_frame(ev, i), 0, &f);
		if (f.kind == ETL_FRAME_ADDRESS)
			k = snprintf(s->stack + len, MAX_STACK_TEXT - len, "%s0x%llx", i ? ";" : "",
				     (unsigned long long)f.address);
		else if (f.function)
			k = snprintf(s->stack + len, MAX_STACK_TEXT - len, "%s%s!%s+0x%llx", i ? ";" : "", f.module,
				     f.function, (unsigned long long)f.function_offset);
		else
			k = snprintf(s->stack + len, MAX_STACK_TEXT - len, "%s%s!+0x%llx", i ? ";" : "", f.module,
				     (unsigned long long)f.module_offset);
		if (k < 0 || (size_t)k >= MAX_STACK_TEXT - len) {
			s->stack[len] = 0; /* (cut at a frame) */
			break;
		}
		len += (size_t)k;
	}
	return s->stack;
}

static void on_sample(struct etl_tables *T, struct cpu_state *s, const struct etl_event *ev)
{
	struct etl_table *t = T->tab[TK_CPU_SAMPLES];
	const uint8_t *pl;
	size_t len, row, ptr = etl_event_pointer_size(ev);
	uint32_t pid = etl_reader_event_pid(T->r, ev), tid = etl_event_subject_tid(ev);
	uint64_t addr;
	struct etl_frame f;
	int trace = etl_event_trace_index(ev);

	etl_event_payload(ev, &pl, &len);
	if (len < ptr + 4) {
		etl__table_note(t, note_short, 1);
		return;
	}
	if ((row = etl__table_row(t)) == SIZE_MAX)
		return;
	addr = ptr == 8 ? etl_le64(pl) : etl_le32(pl);
	etl__table_u64(t, row, CS_TRACE, (uint64_t)trace);
	etl__table_u64(t, row, CS_TIME, etl_event_filetime(ev));
	etl__table_u64(t, row, CS_CPU, etl_event_cpu(ev));
	if (pid != ETL_ID_NONE) {
		etl__table_u64(t, row, CS_PID, pid);
		etl__table_text(t, row, CS_PROCESS, pid == 0 ? "Idle" : etl__tables_process_name(T, ev, pid));
	} else {
		etl__table_note(t, note_no_pid, 1);
	}
	if (tid != ETL_ID_NONE) {
		etl__table_u64(t, row, CS_TID, tid);
		etl__table_text(t, row, CS_THREAD, etl_reader_thread_name(T->r, trace, tid));
	}
	etl__table_double(t, row, CS_WEIGHT, T->interval ? (double)T->interval / 10000.0 : 1.0);
	etl__table_u64(t, row, CS_ADDRESS, addr); /* (a stack's first frame is this address too) */
	etl_reader_frame(T->r, ev, addr, 0, &f);
	etl__table_text(t, row, CS_MODULE, f.module);
	etl__table_text(t, row, CS_FUNCTION, f.function);
	if ((T->flags & ETL_TABLES_STACKS) && etl_event_stack_depth(ev))
		etl__table_text(t, row, CS_STACK, stack_text(T, s, ev));
	etl__tables_row_done(T, TK_CPU_SAMPLES);
}

static int thread_eq(const void *entry, const void *key)
{
	return ((const struct thread_slot *)entry)->key == *(const uint64_t *)key;
}

static struct thread_slot *thread_of(struct cpu_state *s, int trace, uint32_t tid, int make)
{
	uint64_t key = (uint64_t)(uint32_t)trace << 32 | tid, h = etl__hash_mix(key);
	struct thread_slot *e = etl__htab_find(&s->threads, h, thread_eq, &key);

	if (!e && make && (e = etl__htab_insert(&s->threads, h)) != NULL)
		e->key = key;
	return e;
}

/* The processor's slot (made when first seen); NULL past MAX_CPUS or without memory. */
static struct slice *slot_of(struct cpu_state *s, unsigned cpu)
{
	if (cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= s->ncpu) {
		size_t cap = s->ncpu, n = cpu + 1;
		if (etl__grow(&s->cur, &cap, n, sizeof(*s->cur), 8) != 0)
			return NULL;
		memset(s->cur + s->ncpu, 0, (cap - s->ncpu) * sizeof(*s->cur));
		s->ncpu = cap;
	}
	return &s->cur[cpu];
}

/* The row of a slice that ended at out (0: still running at the end). */
static void slice_row(struct etl_tables *T, struct cpu_state *s, const struct slice *c, unsigned cpu, uint64_t out,
		      const char *out_reason)
{
	struct etl_table *t = T->tab[TK_CPU_USAGE];
	size_t row = etl__table_row(t);
	const struct etl_process *p;

	if (row == SIZE_MAX)
		return;
	etl__table_u64(t, row, CU_TRACE, (uint64_t)c->trace);
	etl__table_u64(t, row, CU_CPU, cpu);
	etl__table_u64(t, row, CU_TID, c->tid);
	etl__table_text(t, row, CU_THREAD, etl_reader_thread_name(T->r, c->trace, c->tid));
	if (c->pid != ETL_ID_NONE) {
		etl__table_u64(t, row, CU_PID, c->pid);
		p = c->pid ? etl_reader_find_process(T->r, c->trace, c->pid) : NULL;
		etl__table_text(t, row, CU_PROCESS, c->pid == 0 ? "Idle" : p ? etl_process_image_name(p) : NULL);
	}
	etl__table_u64(t, row, CU_IN, c->in);
	if (out) {
		etl__table_u64(t, row, CU_OUT, out);
		etl__table_double(t, row, CU_USAGE, etl__tables_ms(c->in, out));
		etl__table_text(t, row, CU_OUT_REASON, out_reason);
	}
	if (c->ready) {
		etl__table_u64(t, row, CU_READY, c->ready);
		etl__table_double(t, row, CU_READY_MS, etl__tables_ms(c->ready, c->in));
		etl__table_u64(t, row, CU_READYING_TID, c->readying_tid);
		if (c->readying_pid != ETL_ID_NONE)
			etl__table_u64(t, row, CU_READYING_PID, c->readying_pid);
	}
	if (c->wait_at)
		etl__table_text(t, row, CU_WAIT_REASON, s->texts + c->wait_at - 1);
	etl__table_u64(t, row, CU_PRIORITY, c->priority);
	etl__tables_row_done(T, TK_CPU_USAGE);
}

static uint32_t pid_of_thread(struct etl_tables *T, int trace, uint32_t tid)
{
	const struct etl_process *p;

	if (tid == 0)
		return 0;
	p = etl_reader_thread_process(T->r, trace, tid);
	return p ? etl_process_id(p) : ETL_ID_NONE;
}

static int on_cswitch(struct etl_tables *T, struct cpu_state *s, const struct etl_event *ev)
{
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	unsigned cpu = etl_event_cpu(ev);
	struct slice *c = slot_of(s, cpu);
	struct thread_slot *th;
	uint64_t now = etl_event_filetime(ev), new_tid, old_tid, prio;
	const char *reason;
	size_t reason_at;
	int ok1, ok2, trace = etl_event_trace_index(ev);

	new_tid = etl__tables_field_u64(d, "NewThreadId", &ok1);
	old_tid = etl__tables_field_u64(d, "OldThreadId", &ok2);
	if (!c || !ok1 || !ok2) {
		etl__table_note(T->tab[TK_CPU_USAGE], note_unread, 1);
		return 0;
	}
	prio = etl__tables_field_u64(d, "NewThreadPriority", NULL);
	reason = etl__tables_field_text(d, "OldThreadWaitReason");
	reason_at = keep_text(s, reason);
	if (c->valid)
		slice_row(T, s, c, cpu, now, reason_at ? s->texts + reason_at - 1 : NULL);
	else
		etl__table_note(T->tab[TK_CPU_USAGE], note_before, 1);
	if ((th = thread_of(s, trace, (uint32_t)old_tid, 1)) != NULL)
		th->wait_at = reason_at;
	memset(c, 0, sizeof(*c));
	c->valid = 1;
	c->trace = trace;
	c->tid = (uint32_t)new_tid;
	c->pid = pid_of_thread(T, trace, c->tid);
	c->in = now;
	c->priority = (uint32_t)prio;
	if ((th = thread_of(s, trace, c->tid, 0)) != NULL) {
		c->ready = th->ready;
		c->readying_tid = th->readying_tid;
		c->readying_pid = th->readying_pid;
		c->wait_at = th->wait_at;
		th->ready = 0;
	}
	return 0;
}

/* ReadyThread: the thread readied, by the one running on the processor that logged it. */
static int on_ready(struct etl_tables *T, struct cpu_state *s, const struct etl_event *ev)
{
	const uint8_t *pl;
	size_t len;
	struct thread_slot *th;
	struct slice *c = slot_of(s, etl_event_cpu(ev));

	etl_event_payload(ev, &pl, &len);
	if (len < 4)
		return 0;
	if (!(th = thread_of(s, etl_event_trace_index(ev), etl_le32(pl), 1)))
		return -1;
	th->ready = etl_event_filetime(ev);
	th->readying_tid = c && c->valid ? c->tid : ETL_ID_NONE;
	th->readying_pid = c && c->valid ? c->pid : ETL_ID_NONE;
	return 0;
}

int etl__cpu_event(struct etl_tables *T, const struct etl_event *ev, int group)
{
	struct cpu_state *s;
	unsigned op = etl_event_opcode(ev);

	if (group == G_PERFINFO && (op == OP_COLLECTION_START || op == OP_SET_INTERVAL)) {
		note_interval(T, ev);
		return 0;
	}
	if (!T->tab[TK_CPU_SAMPLES] && !T->tab[TK_CPU_USAGE])
		return 0;
	if (!(s = state(T)))
		return -1;
	if (group == G_PERFINFO && op == OP_SAMPLE && T->tab[TK_CPU_SAMPLES])
		on_sample(T, s, ev);
	else if (group == G_THREAD && op == OP_CSWITCH && T->tab[TK_CPU_USAGE])
		return on_cswitch(T, s, ev);
	else if (group == G_THREAD && op == OP_READY && T->tab[TK_CPU_USAGE])
		return on_ready(T, s, ev);
	return 0;
}

void etl__cpu_finish(struct etl_tables *T)
{
	struct cpu_state *s = T->cpu;
	size_t i;

	if (!s || !T->tab[TK_CPU_USAGE])
		return;
	for (i = 0; i < s->ncpu; i++)
		if (s->cur[i].valid) {
			slice_row(T, s, &s->cur[i], (unsigned)i, 0, NULL);
			etl__table_note(T->tab[TK_CPU_USAGE], note_running, 1);
		}
}

void etl__cpu_free(struct etl_tables *T)
{
	struct cpu_state *s = T->cpu;

	if (!s)
		return;
	etl__free(s->cur);
	etl__free(s->texts);
	etl__free(s->stack);
	etl__htab_free(&s->threads);
	etl__free(s);
	T->cpu = NULL;
}

const struct tables_part etl__tables_part_cpu = {
	.name = "cpu", .groups = GROUP_BIT(G_THREAD) | GROUP_BIT(G_PERFINFO),
	.event = etl__cpu_event, .finish = etl__cpu_finish, .free = etl__cpu_free,
};
