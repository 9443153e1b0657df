/*
 * tables.h - the analysis tables (docs/TABLES.md): a layer above the reader,
 * built from one pass over its events.
 *
 *   store.c   a table's rows: cells by row and column, texts kept once each,
 *             notes (what could not be paired or kept), the public accessors
 *   defs.c    the tables and their columns
 *   build.c   the pass: each event to the handlers of the tables that want
 *             it, then what only the end of the trace can say
 *   sys.c     processes, threads, images
 *   cpu.c     cpu-samples, cpu-usage
 *   io.c      disk-io, file-io (the kernel logger's, and Kernel-File's and Kernel-Disk's)
 *   kproc.c   processes, threads, images of the Kernel-Process provider
 *   net.c     network
 *   clr.c     gc, exceptions, jit
 *   mem.c     hard-faults
 *   select.c  the rows a filter selects (etl_tables_set_filter): its processes, in its window
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_TABLES_TABLES_H
#define ETL_TABLES_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"
#include "reader/access.h"
#include "util/htab.h"

/* The kinds of table, in the order of etl_table_kind_name. */
enum table_kind {
	TK_PROCESSES, TK_THREADS, TK_IMAGES, TK_CPU_SAMPLES, TK_CPU_USAGE, TK_DISK_IO, TK_FILE_IO, TK_NETWORK,
	TK_GC, TK_EXCEPTIONS, TK_JIT, TK_HARD_FAULTS, TK_COUNT
};

/* The columns of each table, in the order of defs.c. */
enum { PR_TRACE, PR_PID, PR_PARENT, PR_IMAGE, PR_CMDLINE, PR_SESSION, PR_SID, PR_START, PR_START_AT_TRACE, PR_END,
       PR_EXIT, PR_THREADS, PR_IMAGES, PR_NCOLS };
enum { TH_TRACE, TH_PID, TH_TID, TH_PROCESS, TH_NAME, TH_START, TH_START_AT_TRACE, TH_END, TH_START_ADDRESS,
       TH_START_FUNCTION, TH_NCOLS };
enum { IM_TRACE, IM_PID, IM_PROCESS, IM_PATH, IM_BASE, IM_SIZE, IM_LOAD, IM_LOAD_AT_TRACE, IM_UNLOAD, IM_CHECKSUM,
       IM_STAMP, IM_PDB_GUID, IM_PDB_AGE, IM_PDB_NAME, IM_NCOLS };
enum { CS_TRACE, CS_TIME, CS_CPU, CS_PID, CS_PROCESS, CS_TID, CS_THREAD, CS_WEIGHT, CS_ADDRESS, CS_MODULE,
       CS_FUNCTION, CS_STACK, CS_NCOLS };
enum { CU_TRACE, CU_CPU, CU_PID, CU_PROCESS, CU_TID, CU_THREAD, CU_IN, CU_OUT, CU_USAGE, CU_READY, CU_READY_MS,
       CU_READYING_TID, CU_READYING_PID, CU_WAIT_REASON, CU_OUT_REASON, CU_PRIORITY, CU_NCOLS };
enum { DK_TRACE, DK_INIT, DK_COMPLETE, DK_ELAPSED, DK_PID, DK_PROCESS, DK_TID, DK_DISK, DK_TYPE, DK_OFFSET, DK_BYTES,
       DK_FILE, DK_PRIORITY, DK_IRP, DK_NCOLS };
enum { FI_TRACE, FI_START, FI_END, FI_ELAPSED, FI_PID, FI_PROCESS, FI_TID, FI_OPERATION, FI_FILE, FI_OFFSET,
       FI_BYTES, FI_STATUS, FI_IRP, FI_NCOLS };
enum { NW_TRACE, NW_TIME, NW_PID, NW_PROCESS, NW_PROTOCOL, NW_OPERATION, NW_LOCAL_ADDR, NW_LOCAL_PORT,
       NW_REMOTE_ADDR, NW_REMOTE_PORT, NW_BYTES, NW_SOURCE, NW_NCOLS };
enum { GC_TRACE, GC_PID, GC_PROCESS, GC_NUMBER, GC_GENERATION, GC_REASON, GC_TYPE, GC_START, GC_END, GC_DURATION,
       GC_PAUSE_START, GC_PAUSE, GC_HEAP_BEFORE, GC_HEAP_AFTER, GC_PROMOTED, GC_NCOLS };
enum { EX_TRACE, EX_TIME, EX_PID, EX_PROCESS, EX_TID, EX_TYPE, EX_MESSAGE, EX_HRESULT, EX_NCOLS };
enum { HF_TRACE, HF_TIME, HF_ELAPSED, HF_PID, HF_PROCESS, HF_TID, HF_FILE, HF_OFFSET, HF_BYTES, HF_ADDRESS,
       HF_NCOLS };
enum { JT_TRACE, JT_TIME, JT_PID, JT_PROCESS, JT_TID, JT_NAMESPACE, JT_NAME, JT_SIGNATURE, JT_MODULE, JT_ADDRESS,
       JT_SIZE, JT_JITTED, JT_JIT_MS, JT_NCOLS };

struct tcol {
	const char *name;
	enum etl_column_type type;
	const char *unit;
};

/* How a row falls in a filter's time window (select.c, docs/TABLES.md "Selections"). */
enum tspan {
	SPAN_POINT,    /* its time (t0; t1 where t0 is null) is in the window */
	SPAN_LIFETIME, /* [t0, t1] meets the window (t1 null: still alive at the end) */
	SPAN_CLIPPED   /* [t0, t1] meets the window, and is cut to it (ms: the length it keeps) */
};

struct tdef {
	const char *name, *desc;
	const struct tcol *cols;
	unsigned ncols;
	int streamed; /* rows complete one by one: may be streamed */
	/* the selection's columns: pid, process name, times (t1 -1: none), the length in ms */
	int pid, process, t0, t1, ms;
	enum tspan span;
};

extern const struct tdef etl__table_defs[TK_COUNT];

#define TABLE_MAX_NOTES 8

struct tnote {
	const char *what; /* static text */
	uint64_t count;
};

struct etl_table {
	const struct tdef *def;
	size_t nrows, cap;
	uint64_t *cells;     /* row-major: integers, times, bools, double bits, text offsets + 1 */
	uint8_t *set;        /* per cell: 1 when a value was given (else null) */
	char *text;          /* texts, each NUL-terminated */
	size_t text_len, text_cap;
	struct etl_htab text_ix; /* text -> offset, so that a repeated text is kept once */
	struct tnote notes[TABLE_MAX_NOTES];
	unsigned nnotes;
	uint64_t seen;       /* rows completed in all */
	int failed;          /* out of memory: rows not kept (a note says how many) */
};

/* ---- store.c ---- */
void etl__table_init(struct etl_table *t, const struct tdef *def);
void etl__table_free(struct etl_table *t);
/* A new row, every value null; SIZE_MAX without memory (counted in a note). */
size_t etl__table_row(struct etl_table *t);
void etl__table_u64(struct etl_table *t, size_t row, unsigned col, uint64_t v);
void etl__table_i64(struct etl_table *t, size_t row, unsigned col, int64_t v);
void etl__table_double(struct etl_table *t, size_t row, unsigned col, double v);
/* Text (NULL or "": left null). */
void etl__table_text(struct etl_table *t, size_t row, unsigned col, const char *s);
/* A note's count grows by n (notes are known by their text's address). */
void etl__table_note(struct etl_table *t, const char *what, uint64_t n);
/* Forgets every row (texts too): after a streamed row was given away. */
void etl__table_clear_rows(struct etl_table *t);

/* ---- select.c ---- */
/* Whether the last row of t is in the selection (cutting a clipped row to the window). */
int etl__tables_selected(struct etl_tables *T, struct etl_table *t);

/* ---- build.c: the pass ---- */
struct sys_state;
struct cpu_state;
struct io_state;
struct clr_state;

#define TABLES_ROUTES 16 /* providers the parts take, in all */

struct etl_tables {
	struct etl_reader *r;
	unsigned flags;
	etl_table_row_fn row_fn;
	void *ctx;
	struct etl_filter *filter;       /* etl_tables_set_filter, or NULL */
	struct etl_table *tab[TK_COUNT]; /* NULL: not asked for */
	uint64_t damage;
	uint32_t interval;               /* the timer's sampling interval, 100 ns units (0: not said) */
	struct sys_state *sys;
	struct cpu_state *cpu;
	struct io_state *io;
	struct clr_state *clr;
	/* by table kind, then trace (at most SOURCE_TRACES): which events first gave it rows, the
	 * kernel logger's (SRC_KERNEL) or a manifest provider's (SRC_MANIFEST); 0 none yet */
	uint8_t source[TK_COUNT][64];
	struct kproc_state *kproc;
	/* the parts' wants as the dispatch looks them up (build.c, route): by kernel group, a bit
	 * per part (etl__tables_parts order); the providers, in that order */
	uint8_t group_parts[32];
	struct tables_route {
		const struct etl_guid *provider;
		unsigned part;
		int arg;
	} routes[TABLES_ROUTES];
	size_t nroutes;
};

enum { SRC_KERNEL = 1, SRC_MANIFEST = 2 };

/* Texts a table's handler keeps for rows to come (names, paths), one after another. */
struct tables_texts {
	char *b;
	size_t n, cap;
};
/* Keeps t: 1 + its place (for etl__tables_kept), or 0 when t is NULL or empty, the texts would
 * pass max bytes, or memory ran out (the row then has no such text). */
size_t etl__tables_keep(struct tables_texts *x, const char *t, size_t max);
static inline const char *etl__tables_kept(const struct tables_texts *x, size_t at)
{
	return at ? x->b + at - 1 : NULL;
}
/* Whether an event of source src (SRC_*) gives table k of its trace rows: the first source that
 * does keeps it, so that a trace that logs both (the kernel logger and the Kernel-Process,
 * Kernel-File or Kernel-Disk providers) does not count them twice; the other's events are
 * counted in the table's notes.  Traces past the 64th are taken from both. */
int etl__tables_source(struct etl_tables *T, enum table_kind k, const struct etl_event *ev, int src);

/* A row of table k is complete (the last one): dropped when the selection does not take it
 * (select.c), else given to the callback when the table is streamed. */
void etl__tables_row_done(struct etl_tables *T, enum table_kind k);
/* The event's decoding, or NULL (not decodable). */
const struct etl_decoded *etl__tables_decode(struct etl_tables *T, const struct etl_event *ev);
/* A decoded field as an integer / text; 0 when the event has none (*ok says whether it had). */
uint64_t etl__tables_field_u64(const struct etl_decoded *d, const char *name, int *ok);
const char *etl__tables_field_text(const struct etl_decoded *d, const char *name);
/* A derived field (ETL_OPTION_DERIVE) by name, or NULL. */
const struct etl_property *etl__tables_derived(const struct etl_decoded *d, const char *name);
/* The image name of process pid of the event's trace, or NULL. */
const char *etl__tables_process_name(struct etl_tables *T, const struct etl_event *ev, uint32_t pid);
/* The trace's start and end (FILETIME) of the event's input. */
uint64_t etl__tables_trace_start(struct etl_tables *T, int trace);
/* ms between two FILETIMEs. */
double etl__tables_ms(uint64_t from, uint64_t to);

/* ---- the tables' parts (parts.c lists them): each takes the events it wants, returning -1
 * without memory for its state, and finishes and frees what it kept ---- */

/* Kernel groups, as etl__decode_kernel_group gives them */
#define G_DISKIO 0x01
#define G_PAGEFAULT 0x02
#define G_PROCESS 0x03
#define G_FILEIO 0x04
#define G_THREAD 0x05
#define G_TCPIP 0x06
#define G_UDPIP 0x08
#define G_PERFINFO 0x0F
#define GROUP_BIT(g) ((uint32_t)1 << (g))

/* A manifest provider a part takes, and the argument its event() gets for its events */
struct tables_want {
	const struct etl_guid *provider;
	int arg;
};
struct tables_part {
	const char *name;
	uint32_t groups;                 /* the kernel groups it takes (GROUP_BIT), the group as argument */
	struct tables_want providers[2]; /* and the providers (NULL: no more) */
	int (*event)(struct etl_tables *T, const struct etl_event *ev, int arg);
	void (*finish)(struct etl_tables *T); /* (NULL: nothing to finish) */
	void (*free)(struct etl_tables *T);   /* (NULL: nothing kept) */
};
/* In the order they take an event (the system tables before the CPU's: a thread's start names
 * it first) and finish (Kernel-Process before the kernel's own system tables). */
extern const struct tables_part *const etl__tables_parts[];
extern const size_t etl__tables_nparts;
extern const struct tables_part etl__tables_part_kproc, etl__tables_part_sys, etl__tables_part_cpu,
	etl__tables_part_io, etl__tables_part_net, etl__tables_part_clr, etl__tables_part_mem;

int etl__sys_event(struct etl_tables *T, const struct etl_event *ev, int group);
void etl__sys_finish(struct etl_tables *T);
void etl__sys_free(struct etl_tables *T);

int etl__cpu_event(struct etl_tables *T, const struct etl_event *ev, int group);
void etl__cpu_finish(struct etl_tables *T);
void etl__cpu_free(struct etl_tables *T);

/* group: the kernel's DiskIO or FileIO group, or G_KERNEL_FILE / G_KERNEL_DISK for the events of
 * those manifest providers */
#define G_KERNEL_FILE (-2)
#define G_KERNEL_DISK (-3)
int etl__io_event(struct etl_tables *T, const struct etl_event *ev, int group);
void etl__io_finish(struct etl_tables *T);
void etl__io_free(struct etl_tables *T);

int etl__net_event(struct etl_tables *T, const struct etl_event *ev, int group);

/* kproc.c: the Microsoft-Windows-Kernel-Process provider's processes, threads and images, for the
 * traces whose kernel logger did not give them */
int etl__kproc_event(struct etl_tables *T, const struct etl_event *ev, int arg);
void etl__kproc_finish(struct etl_tables *T);
void etl__kproc_free(struct etl_tables *T);
/* The image name the provider gave process pid of a trace, or NULL. */
const char *etl__kproc_process_name(const struct etl_tables *T, int trace, uint32_t pid);
/* sys.c: whether the trace's kernel events describe that table's rows (processes, threads,
 * images): then Kernel-Process's are left out. */
int etl__sys_kernel_describes(struct etl_tables *T, int kind, int trace);

/* rundown: the event is Microsoft-Windows-DotNETRuntimeRundown's (only its module records are read) */
int etl__clr_event(struct etl_tables *T, const struct etl_event *ev, int rundown);
void etl__clr_finish(struct etl_tables *T);
void etl__clr_free(struct etl_tables *T);

#endif
