/*
 * report.h - the HTML report (etl_report_*): one self-contained page of
 * charts and tables over a reading, made from the analysis tables' rows and
 * from the events themselves (providers over time, the sampled stacks).
 *
 * Everything kept is bounded whatever the trace's size (docs/REPORT.md):
 * time series have RB_BINS bins whose width doubles as the trace goes on,
 * series and keys are capped (more fold into "other"), the stack tree is
 * capped in nodes, GC points in number; what is written is the top of each.
 *
 *   report.c   the pass: events to the tables and to the report's own sums
 *   bins.c     time series over shared bins, and sums by key
 *   flame.c    the sampled stacks as a tree, written as a flame graph
 *   html.c     the output: buffered writes, escaping, colours
 *   charts.c   SVG charts: stacked areas, small multiples, bars, Gantt, points
 *   sections.c the page: overview, processes, CPU, I/O, network, .NET
 *   assets.c   the inline CSS and JavaScript
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_REPORT_REPORT_H
#define ETL_REPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "etl.h"
#include "util/htab.h"

#define RB_BINS 256u          /* bins of every time series */
#define RB_MAX_SERIES 1024u   /* series per timeline; more go to "other" */
#define RB_MAX_KEYS 65536u    /* keys per sum table; more go to "other" */
#define RB_TOP 10u            /* series drawn per chart (then "other") */
#define RB_TABLE_ROWS 50u     /* rows per table */
#define RB_MAX_POINTS 4000u   /* GC points kept */
#define RB_MAX_PROCS 200u     /* processes in the Gantt chart */

/* ---- bins.c ---- */

/* The bins every timeline shares: from t0 (FILETIME), width 100-ns units each; when an event
 * falls past the last bin, every series merges bin pairs and the width doubles. */
struct rb_clock {
	uint64_t t0, width;
	size_t used;        /* bins up to the latest time seen */
	struct rb_line **lines;
	size_t nlines, cap;
};

struct rb_series {
	char *name;
	uint32_t pid;       /* for colours (ETL_ID_NONE: by name) */
	double total;
	double bin[RB_BINS];
};

/* A chart's series by key. */
struct rb_line {
	struct rb_clock *clock;
	struct etl_htab ix; /* hash of the key -> series index + 1 */
	struct rb_series **s;
	size_t n, cap;
	uint64_t dropped;   /* values past the series cap, added to "other" */
};

void etl__report_clock_init(struct rb_clock *c, uint64_t t0, uint64_t t1);
/* The span of a clock no event was added to yet (its lines stay): a report's selected window. */
void etl__report_clock_span(struct rb_clock *c, uint64_t t0, uint64_t t1);
void etl__report_clock_free(struct rb_clock *c);
/* A new timeline on the clock (NULL without memory). */
struct rb_line *etl__report_line_new(struct rb_clock *c);
/* Adds v at time ft to the series named key (pid for its colour). */
void etl__report_line_add(struct rb_line *l, uint64_t ft, const char *key, uint32_t pid, double v);
/* Adds v spread over the bins of [from, to) in proportion (a slice of CPU time). */
void etl__report_line_add_span(struct rb_line *l, uint64_t from, uint64_t to, const char *key, uint32_t pid, double v);
void etl__report_series_add_span(struct rb_line *l, struct rb_series *s, uint64_t from, uint64_t to, double v);
/* The series named key (made when new: "other" past the cap; NULL without memory), and v added
 * to a series at time ft: for callers that keep the series of a key. */
struct rb_series *etl__report_line_series(struct rb_line *l, const char *key, uint32_t pid);
void etl__report_series_add(struct rb_line *l, struct rb_series *s, uint64_t ft, double v);
/* The series by total, largest first (an array the caller frees; *n of them). */
struct rb_series **etl__report_line_sorted(const struct rb_line *l, size_t *n);
/* The bin of a time, clamped to the bins there are (for counts at the edges). */
size_t etl__report_clock_bin(struct rb_clock *c, uint64_t ft);

/* Sums by key: a count, up to four sums and a maximum. */
struct rb_sum {
	char *key;
	uint32_t pid;
	uint64_t n;
	double v[4], max;
};

struct rb_sums {
	struct etl_htab ix;
	struct rb_sum **s;
	size_t n, cap;
	struct rb_sum other; /* past RB_MAX_KEYS */
};

void etl__report_sums_init(struct rb_sums *t);
void etl__report_sums_free(struct rb_sums *t);
/* The sum of key (made when new; "other" past the cap; NULL without memory). */
struct rb_sum *etl__report_sums_get(struct rb_sums *t, const char *key, uint32_t pid);
/* The sum of key, or NULL. */
const struct rb_sum *etl__report_sums_find(const struct rb_sums *t, const char *key);
/* The sums sorted by v[k] (k < 0: by n), largest first (the caller frees the array). */
struct rb_sum **etl__report_sums_sorted(const struct rb_sums *t, int k, size_t *n);

/* ---- flame.c ---- */

struct rb_flame;
struct rb_flame *etl__report_flame_new(void);
void etl__report_flame_free(struct rb_flame *f);
/* One sample, frame by frame from the root: etl__report_flame_root() counts it for its process (named
 * "image (pid)") and gives its node; then for each frame, the child of the node for that address
 * (etl__report_flame_known: (size_t)-1 when the address was not seen under that node, then etl__report_flame_learn
 * with the frame's name), counted with etl__report_flame_step(), which gives the next node ((size_t)-1
 * past the cap: the rest of the stack is counted as cut).  Names are interned (etl__report_intern: a name
 * is known by its address). */
size_t etl__report_flame_root(struct rb_flame *f, const char *process, uint32_t pid, double weight);
size_t etl__report_flame_known(struct rb_flame *f, size_t node, uint64_t addr, int trace);
size_t etl__report_flame_learn(struct rb_flame *f, size_t node, uint64_t addr, int trace, const char *name);
size_t etl__report_flame_step(struct rb_flame *f, size_t node, double weight);
double etl__report_flame_total(const struct rb_flame *f);

/* ---- html.c ---- */

struct rb_out {
	etl_write_fn write;
	void *ctx;
	char buf[16384];
	size_t len;
	int failed;
	uint64_t bytes;
};

void etl__report_flush(struct rb_out *o);
void etl__report_raw(struct rb_out *o, const char *s, size_t n);
void etl__report_str(struct rb_out *o, const char *s);
void etl__report_printf(struct rb_out *o, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Text from the trace, escaped for HTML text and attribute values (control bytes as U+FFFD). */
void etl__report_text(struct rb_out *o, const char *s);
/* A number for SVG coordinates (finite, 2 decimals). */
void etl__report_num(struct rb_out *o, double v);
/* A stable colour for a name ("hsl(...)"): the same process is the same colour everywhere. */
void etl__report_colour(struct rb_out *o, const char *name, int warm);
/* "1.23 MB", "456 ms", ... */
const char *etl__report_bytes(double v, char *buf, size_t cap);
const char *etl__report_ms(double v, char *buf, size_t cap);

/* ---- charts.c ---- */

/* A stacked area chart of the top series of l (the rest as "other"), values per bin shown as
 * per_second ? v / bin seconds : v; y labelled with unit. */
void etl__report_chart_stacked(struct rb_out *o, const struct rb_line *l, const char *unit, int per_second);
/* Small multiples: one line per top series. */
void etl__report_chart_multiples(struct rb_out *o, const struct rb_line *l, size_t max);
/* A bar chart of labelled counts. */
void etl__report_chart_bars(struct rb_out *o, const char *const *labels, const double *v, size_t n, const char *unit);

/* ---- report.c (the state the sections read) ---- */

struct rb_proc {
	uint32_t pid, ppid;
	uint64_t start, end; /* FILETIME; 0: before or after the trace */
	char *image, *cmd;             /* owned, once chosen for the chart */
	const char *src_image, *src_cmd; /* the table's, while choosing */
	double cpu_ms;
	int depth;
};

struct rb_point {
	uint64_t time;
	double pause;
	uint32_t pid, gen;
	const char *proc, *reason; /* interned in the report's sums */
};

struct etl_report {
	struct etl_reader *r;
	struct etl_tables *tabs;
	struct etl_filter *filter;      /* etl_report_set_filter, or NULL */
	int added;                      /* an event was added (the filter is set before) */
	unsigned flags;
	uint64_t t0, t1, events;
	struct rb_clock clock;
	struct rb_line *providers, *cpu, *cswitch, *disk, *file, *net, *net_ends;
	struct rb_sums cpu_by_proc, sw_by_proc, disk_by_file, disk_by_proc, file_by_file, file_by_proc,
		net_by_proc, net_by_end, gc_by_proc, exc_by_type, names;
	double disk_lat[24], file_lat[24]; /* latency histograms: 2^i us */
	struct rb_point *points;
	size_t npoints;
	uint64_t points_dropped;
	struct rb_flame *flame;
	struct etl_htab provider_names; /* provider or kernel group -> its series */
	struct etl_htab frame_names;    /* (trace, pid, address) -> a frame's name */
	struct etl_htab proc_names;     /* process record -> "image (pid)", interned */
	struct { const void *t; const char *name; size_t col; } cols[64]; /* column indices, by name */
	struct rb_proc *procs;   /* the Gantt chart's, in tree order */
	size_t nprocs, nprocs_all;
	int finished;
	uint32_t last_pid;              /* who(): the last row's process and its key */
	char last_image[256], last_key[300];
	struct rb_sum *last_cpu_sum;    /* its CPU sum */
	struct rb_series *last_cpu_series;
	uint64_t samples, idle_samples, switches, disk_ios, file_ios, net_events, gcs, exceptions;
	int failed;
};

/* A name kept for the report's life (NULL without memory). */
const char *etl__report_intern(struct etl_report *rep, const char *s);

/* ---- sections.c ---- */

void etl__report_write_page(struct etl_report *rep, struct rb_out *o);
/* The flame graph's SVG (flame.c). */
void etl__report_flame_write(struct rb_out *o, const struct rb_flame *f);

/* ---- assets.c ---- */

extern const char etl__report_css[];
extern const char etl__report_js[];

#endif
