/*
 * sections.c - the report's page: the overview (the traces, their losses,
 * the providers over time), processes (a Gantt chart in tree order), CPU
 * (samples and context switches over time, the flame graph), disk and file
 * I/O, network, .NET, and what could not be paired.  A section without data
 * says so instead of drawing an empty chart.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "report/report.h"

enum fmt { F_COUNT, F_BYTES, F_MS, F_TEXT };

struct colspec {
	const char *label;
	int field; /* -1: n, 0-3: v[i], 4: max */
	enum fmt fmt;
};

static double field_of(const struct rb_sum *s, int f)
{
	return f < 0 ? (double)s->n : f < 4 ? s->v[f] : s->max;
}

static void cell(struct rb_out *o, double v, enum fmt f)
{
	char b[64];

	etl__report_printf(o, "<td data-v=\"%.6g\">", v);
	if (f == F_BYTES)
		etl__report_text(o, etl__report_bytes(v, b, sizeof(b)));
	else if (f == F_MS)
		etl__report_printf(o, "%.3f", v);
	else
		etl__report_printf(o, "%.0f", v);
	etl__report_str(o, "</td>");
}

/* A sortable table of the top sums, sorted by field `by`. */
static void sum_table(struct rb_out *o, const struct rb_sums *t, int by, const char *key_label,
		      const struct colspec *cols, size_t ncols)
{
	size_t n, i, c;
	struct rb_sum **v = etl__report_sums_sorted(t, by, &n);

	if (!v)
		return;
	etl__report_str(o, "<table class=\"sortable\"><thead><tr><th data-t=\"s\">");
	etl__report_text(o, key_label);
	etl__report_str(o, "</th>");
	for (c = 0; c < ncols; c++) {
		etl__report_str(o, "<th data-t=\"n\">");
		etl__report_text(o, cols[c].label);
		etl__report_str(o, "</th>");
	}
	etl__report_str(o, "</tr></thead><tbody>\n");
	for (i = 0; i < n && i < RB_TABLE_ROWS; i++) {
		etl__report_str(o, "<tr><td><span class=\"sw\" style=\"background:");
		etl__report_colour(o, v[i]->key, 0);
		etl__report_str(o, "\"></span>");
		etl__report_text(o, v[i]->key);
		etl__report_str(o, "</td>");
		for (c = 0; c < ncols; c++)
			cell(o, field_of(v[i], cols[c].field), cols[c].fmt);
		etl__report_str(o, "</tr>\n");
	}
	etl__report_str(o, "</tbody></table>\n");
	if (n > RB_TABLE_ROWS)
		etl__report_printf(o, "<p class=\"note\">%zu more not shown (etldump --table gives every row).</p>\n",
			  n - RB_TABLE_ROWS);
	etl__free(v);
}

static void none(struct rb_out *o, const char *what)
{
	etl__report_str(o, "<p class=\"none\">");
	etl__report_text(o, what);
	etl__report_str(o, "</p>\n");
}

static void head(struct rb_out *o, const char *id, const char *title)
{
	etl__report_printf(o, "<section id=\"%s\"><h2>", id);
	etl__report_text(o, title);
	etl__report_str(o, "</h2>\n");
}

static void time_text(char *b, uint64_t ft)
{
	if (ft)
		etl_filetime_format(ft, b);
	else
		strcpy(b, "-");
}

/* A sortable table of a timeline's series: name, total, share. */
static void sum_table_line(struct rb_out *o, const struct rb_line *l, const char *key_label, const char *what)
{
	size_t n, i;
	struct rb_series **v = etl__report_line_sorted(l, &n);
	double all = 0;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		all += v[i]->total;
	etl__report_str(o, "<table class=\"sortable\"><thead><tr><th data-t=\"s\">");
	etl__report_text(o, key_label);
	etl__report_str(o, "</th><th data-t=\"n\">");
	etl__report_text(o, what);
	etl__report_str(o, "</th><th data-t=\"n\">share</th></tr></thead><tbody>\n");
	for (i = 0; i < n && i < RB_TABLE_ROWS; i++) {
		etl__report_str(o, "<tr><td>");
		etl__report_text(o, v[i]->name);
		etl__report_str(o, "</td>");
		cell(o, v[i]->total, F_COUNT);
		etl__report_printf(o, "<td data-v=\"%.6g\">%.1f %%</td></tr>\n", v[i]->total, all > 0 ? 100 * v[i]->total / all : 0);
	}
	etl__report_str(o, "</tbody></table>\n");
	if (n > RB_TABLE_ROWS)
		etl__report_printf(o, "<p class=\"note\">%zu more not shown.</p>\n", n - RB_TABLE_ROWS);
	etl__free(v);
}

/* ---- overview ---- */

static void overview(struct etl_report *rep, struct rb_out *o)
{
	int i;
	char a[ETL_FILETIME_STRING_SIZE], b[ETL_FILETIME_STRING_SIZE];
	double secs = rep->t1 > rep->t0 ? (double)(rep->t1 - rep->t0) / 1e7 : 0;

	head(o, "overview", "Overview");
	etl__report_str(o, "<table class=\"facts\"><thead><tr><th>trace</th><th>OS</th><th>CPUs</th><th>clock</th>"
		  "<th>start</th><th>end</th><th>events lost</th><th>buffers lost</th></tr></thead><tbody>\n");
	for (i = 0; i < etl_reader_trace_count(rep->r); i++) {
		const struct etl_trace_info *ti = etl_reader_trace_info(rep->r, i);
		static const char *const clocks[] = { "QPC", "system time", "CPU cycles" };
		unsigned ck = (unsigned)etl_trace_info_clock_type(ti);
		time_text(a, etl_trace_info_start_time(ti));
		time_text(b, etl_trace_info_end_time(ti));
		etl__report_str(o, "<tr><td>");
		etl__report_text(o, etl_trace_info_name(ti));
		etl__report_printf(o, "</td><td>Windows %u.%u build %u</td><td>%u</td><td>", etl_trace_info_os_major(ti),
			  etl_trace_info_os_minor(ti), etl_trace_info_os_build(ti), etl_trace_info_cpu_count(ti));
		etl__report_text(o, ck >= 1 && ck <= 3 ? clocks[ck - 1] : "?");
		etl__report_printf(o, ", %.1f ms timer</td><td>%s</td><td>%s</td><td>%u</td><td>%u</td></tr>\n",
			  etl_trace_info_timer_resolution(ti) / 10000.0, a, b, etl_trace_info_events_lost(ti),
			  etl_trace_info_buffers_lost(ti));
	}
	etl__report_str(o, "</tbody></table>\n");
	etl__report_printf(o, "<p class=\"big\"><b>%llu</b> events over <b>%.3f s</b>; <b>%llu</b> damage reports while "
		     "reading; <b>%zu</b> processes.</p>\n",
		  (unsigned long long)rep->events, secs,
		  (unsigned long long)etl_reader_count(rep->r, ETL_COUNT_ERRORS), rep->nprocs_all);
	etl__report_str(o, "<h3>Providers: events per second</h3>\n");
	if (!rep->events) {
		none(o, "No events in this trace.");
	} else {
		etl__report_chart_multiples(o, rep->providers, 24);
		sum_table_line(o, rep->providers, "provider", "events");
	}
	etl__report_str(o, "</section>\n");
}

/* ---- processes ---- */

#define GANTT_ROW 16.0
#define GANTT_LABEL 260.0
#define GANTT_W 960.0

static double gantt_x(const struct etl_report *rep, uint64_t ft)
{
	double span = rep->t1 > rep->t0 ? (double)(rep->t1 - rep->t0) : 1;
	double f = ft <= rep->t0 ? 0 : ft >= rep->t1 ? 1 : (double)(ft - rep->t0) / span;

	return GANTT_LABEL + (GANTT_W - GANTT_LABEL) * f;
}

static void gantt(struct etl_report *rep, struct rb_out *o)
{
	size_t i;
	char a[ETL_FILETIME_STRING_SIZE], b[ETL_FILETIME_STRING_SIZE];

	double secs = rep->t1 > rep->t0 ? (double)(rep->t1 - rep->t0) / 1e7 : 0;
	int k;

	etl__report_printf(o, "<svg class=\"gantt\" viewBox=\"0 0 960 %.0f\">\n", GANTT_ROW * (double)rep->nprocs + 22);
	for (k = 0; k <= 4; k++) { /* the time axis: 0, a quarter, ... the end */
		double x = GANTT_LABEL + (GANTT_W - GANTT_LABEL) * k / 4.0;
		etl__report_str(o, "<line class=\"grid\" x1=\"");
		etl__report_num(o, x);
		etl__report_str(o, "\" x2=\"");
		etl__report_num(o, x);
		etl__report_printf(o, "\" y1=\"0\" y2=\"%.0f\"/><text class=\"ax\" x=\"", GANTT_ROW * (double)rep->nprocs + 4);
		etl__report_num(o, k == 4 ? x - 2 : x + 2);
		etl__report_printf(o, "\" y=\"%.0f\" text-anchor=\"%s\">%.3g s</text>\n", GANTT_ROW * (double)rep->nprocs + 18,
			  k == 4 ? "end" : "start", secs * k / 4.0);
	}
	for (i = 0; i < rep->nprocs; i++) {
		const struct rb_proc *p = &rep->procs[i];
		double y = GANTT_ROW * (double)i + 2, x0 = gantt_x(rep, p->start ? p->start : rep->t0),
		       x1 = gantt_x(rep, p->end ? p->end : rep->t1);
		char key[300];
		snprintf(key, sizeof(key), "%s (%u)", p->image, p->pid);
		time_text(a, p->start);
		time_text(b, p->end);
		etl__report_str(o, "<g class=\"row\"><title>");
		etl__report_text(o, key);
		etl__report_str(o, "\n");
		etl__report_text(o, p->cmd);
		etl__report_printf(o, "\nparent %u; start %s; end %s; CPU %.1f ms (samples)</title>", p->ppid, p->start ? a : "before the trace",
			  p->end ? b : "after the trace", p->cpu_ms);
		etl__report_str(o, "<text class=\"lbl\" x=\"");
		etl__report_num(o, 4 + 10.0 * p->depth);
		etl__report_str(o, "\" y=\"");
		etl__report_num(o, y + 11);
		etl__report_str(o, "\">");
		etl__report_text(o, key);
		etl__report_str(o, "</text><rect x=\"");
		etl__report_num(o, x0);
		etl__report_str(o, "\" y=\"");
		etl__report_num(o, y + 1);
		etl__report_str(o, "\" width=\"");
		etl__report_num(o, x1 - x0 > 1 ? x1 - x0 : 1);
		etl__report_str(o, "\" height=\"");
		etl__report_num(o, GANTT_ROW - 4);
		etl__report_str(o, "\" fill=\"");
		etl__report_colour(o, key, 0);
		etl__report_str(o, "\"/></g>\n");
	}
	etl__report_str(o, "</svg>\n");
}

static void processes(struct etl_report *rep, struct rb_out *o)
{
	head(o, "processes", "Processes");
	if (!rep->nprocs) {
		none(o, "No process events in this trace (the kernel's Process provider was not enabled).");
		etl__report_str(o, "</section>\n");
		return;
	}
	etl__report_str(o, "<p>Each bar is a process's life in the trace (from the left edge: running when it began; to "
		  "the right edge: still running at its end); children are indented under their parent. Hover "
		  "for the command line.</p>\n");
	gantt(rep, o);
	if (rep->nprocs_all > rep->nprocs)
		etl__report_printf(o, "<p class=\"note\">The %zu processes with the most CPU samples are shown, of %zu.</p>\n",
			  rep->nprocs, rep->nprocs_all);
	etl__report_str(o, "</section>\n");
}

/* ---- CPU ---- */

static const struct colspec c_cpu[] = { { "samples", -1, F_COUNT }, { "CPU ms", 0, F_MS } };
static const struct colspec c_sw[] = { { "slices", -1, F_COUNT }, { "CPU ms", 0, F_MS }, { "ready ms", 1, F_MS } };

static void cpu(struct etl_report *rep, struct rb_out *o)
{
	head(o, "cpu", "CPU");
	if (!rep->samples && !rep->switches) {
		none(o, "No CPU samples or context switches in this trace.");
		etl__report_str(o, "</section>\n");
		return;
	}
	if (rep->samples) {
		etl__report_str(o, "<h3>CPU by process, from samples (ms of CPU per second: 1000 is one processor; the idle "
			  "process is not drawn)</h3>\n");
		etl__report_chart_stacked(o, rep->cpu, "ms", 1);
		sum_table(o, &rep->cpu_by_proc, 0, "process", c_cpu, 2);
		etl__report_str(o, "<h3>Sampled stacks</h3>\n<div class=\"controls\"><label>process <select id=\"flame-proc\">"
			  "<option value=\"\">all</option></select></label> <label>search <input id=\"flame-find\" "
			  "type=\"search\" placeholder=\"function or module\"></label> <button id=\"flame-reset\" "
			  "type=\"button\">reset zoom</button> <span id=\"flame-found\" class=\"dim\"></span></div>\n");
		if (etl__report_flame_total(rep->flame) > 0)
			etl__report_flame_write(o, rep->flame);
		else
			none(o, "Every sample is of the idle process.");
		if (rep->idle_samples)
			etl__report_printf(o, "<p class=\"dim\">The idle process's samples (%llu) are not in the graph.</p>\n",
				  (unsigned long long)rep->idle_samples);
		etl__report_str(o, "<p class=\"dim\">Click a frame to zoom to it; the width of a frame is its share of the samples "
			  "(the callers below, the callees above).</p>\n");
	} else {
		none(o, "No CPU samples in this trace (the sampled profile was not enabled).");
	}
	if (rep->switches) {
		etl__report_str(o, "<h3>CPU by process, from context switches (precise; the idle process is not drawn)</h3>\n");
		etl__report_chart_stacked(o, rep->cswitch, "ms", 1);
		sum_table(o, &rep->sw_by_proc, 0, "process", c_sw, 3);
	} else {
		none(o, "No context switches in this trace.");
	}
	etl__report_str(o, "</section>\n");
}

/* ---- I/O ---- */

static const struct colspec c_io[] = { { "I/Os", -1, F_COUNT }, { "bytes", 0, F_BYTES }, { "total ms", 1, F_MS },
				       { "max ms", 4, F_MS } };

static void latency(struct rb_out *o, const double *h)
{
	static const char *const labels[24] = { "1µs", "2µs", "4µs", "8µs", "16µs", "32µs", "64µs", "128µs",
						"256µs", "512µs", "1ms", "2ms", "4ms", "8ms", "16ms", "33ms", "66ms",
						"131ms", "262ms", "524ms", "1s", "2s", "4s", "8s+" };
	size_t lo = 0, hi = 24;

	while (lo < hi && h[lo] == 0)
		lo++;
	while (hi > lo && h[hi - 1] == 0)
		hi--;
	lo = lo < 4 ? lo : 4;   /* at least 16 µs .. 524 ms, so that charts compare */
	hi = hi > 20 ? hi : 20;
	etl__report_str(o, "<h4>Latency (I/Os by elapsed time, up to)</h4>\n");
	etl__report_chart_bars(o, labels + lo, h + lo, hi - lo, "I/Os");
}

/* One kind of I/O: over time, its latency, its top files and processes (each sorted by field). */
struct io_part {
	const char *title, *unit, *files_title, *procs_title;
	const struct rb_line *line;
	const double *lat;
	const struct rb_sums *files, *procs;
	int procs_by; /* 0: bytes, 1: time */
};

static void io_part(struct rb_out *o, const struct io_part *p)
{
	etl__report_str(o, "<h3>");
	etl__report_text(o, p->title);
	etl__report_str(o, "</h3>\n");
	etl__report_chart_stacked(o, p->line, p->unit, 1);
	latency(o, p->lat);
	etl__report_str(o, "<h4>");
	etl__report_text(o, p->files_title);
	etl__report_str(o, "</h4>\n");
	sum_table(o, p->files, 1, "file", c_io, 4);
	etl__report_str(o, "<h4>");
	etl__report_text(o, p->procs_title);
	etl__report_str(o, "</h4>\n");
	sum_table(o, p->procs, p->procs_by, "process", c_io, 4);
}

static void io(struct etl_report *rep, struct rb_out *o)
{
	const struct io_part disk = { "Disk I/O: bytes per second", "bytes", "Files, by disk time", "Processes, by bytes",
				      rep->disk, rep->disk_lat, &rep->disk_by_file, &rep->disk_by_proc, 0 };
	const struct io_part file = { "File I/O: operations per second", "ops", "Files, by time", "Processes, by time",
				      rep->file, rep->file_lat, &rep->file_by_file, &rep->file_by_proc, 1 };

	head(o, "io", "Disk and file I/O");
	if (rep->disk_ios)
		io_part(o, &disk);
	else
		none(o, "No disk I/O events in this trace.");
	if (rep->file_ios)
		io_part(o, &file);
	else
		none(o, "No file I/O events in this trace.");
	etl__report_str(o, "</section>\n");
}

/* ---- network ---- */

static const struct colspec c_net[] = { { "events", -1, F_COUNT }, { "sent", 0, F_BYTES }, { "received", 1, F_BYTES } };

static void network(struct etl_report *rep, struct rb_out *o)
{
	head(o, "network", "Network");
	if (!rep->net_events) {
		none(o, "No TCP/IP or UDP events in this trace.");
		etl__report_str(o, "</section>\n");
		return;
	}
	etl__report_str(o, "<h3>Bytes per second, by process</h3>\n");
	etl__report_chart_stacked(o, rep->net, "bytes", 1);
	etl__report_str(o, "<h3>Bytes per second, by remote endpoint</h3>\n");
	etl__report_chart_stacked(o, rep->net_ends, "bytes", 1);
	etl__report_str(o, "<h4>Processes</h4>\n");
	sum_table(o, &rep->net_by_proc, 0, "process", c_net, 3);
	etl__report_str(o, "<h4>Remote endpoints</h4>\n");
	sum_table(o, &rep->net_by_end, 0, "endpoint", c_net, 3);
	etl__report_str(o, "</section>\n");
}

/* ---- .NET ---- */

static const struct colspec c_gc[] = { { "GCs", -1, F_COUNT }, { "pause ms", 0, F_MS }, { "max pause ms", 4, F_MS },
				       { "GC ms", 1, F_MS } };
static const struct colspec c_exc[] = { { "thrown", -1, F_COUNT } };

static void gc_points(struct etl_report *rep, struct rb_out *o)
{
	double max = 0, span = rep->t1 > rep->t0 ? (double)(rep->t1 - rep->t0) : 1;
	size_t i;

	for (i = 0; i < rep->npoints; i++)
		if (rep->points[i].pause > max)
			max = rep->points[i].pause;
	etl__report_str(o, "<svg class=\"chart\" viewBox=\"0 0 960 220\" preserveAspectRatio=\"none\">\n");
	etl__report_printf(o, "<text class=\"ax\" x=\"60\" y=\"14\" text-anchor=\"end\">%.2f ms</text>"
		     "<text class=\"ax\" x=\"60\" y=\"198\" text-anchor=\"end\">0</text>\n", max);
	for (i = 0; i < rep->npoints; i++) {
		const struct rb_point *p = &rep->points[i];
		double f = p->time <= rep->t0 ? 0 : (double)(p->time - rep->t0) / span;
		etl__report_str(o, "<circle class=\"pt\" r=\"3\" cx=\"");
		etl__report_num(o, 64 + 890 * (f < 1 ? f : 1));
		etl__report_str(o, "\" cy=\"");
		etl__report_num(o, max > 0 ? 198 - 186 * p->pause / max : 198);
		etl__report_str(o, "\" fill=\"");
		etl__report_colour(o, p->proc, 0);
		etl__report_str(o, "\"><title>");
		etl__report_text(o, p->proc);
		etl__report_printf(o, ": generation %u, ", p->gen);
		etl__report_text(o, p->reason);
		etl__report_printf(o, ", pause %.3f ms</title></circle>\n", p->pause);
	}
	etl__report_str(o, "</svg>\n");
	if (rep->points_dropped)
		etl__report_printf(o, "<p class=\"note\">The first %u GCs are drawn; %llu more are in the table.</p>\n",
			  RB_MAX_POINTS, (unsigned long long)rep->points_dropped);
}

static void dotnet(struct etl_report *rep, struct rb_out *o)
{
	head(o, "dotnet", ".NET");
	if (rep->gcs) {
		etl__report_str(o, "<h3>Garbage collections: pause per GC over time</h3>\n");
		gc_points(rep, o);
		sum_table(o, &rep->gc_by_proc, 0, "process", c_gc, 4);
	} else {
		none(o, "No .NET garbage collections in this trace.");
	}
	if (rep->exceptions) {
		etl__report_str(o, "<h3>Exceptions by type</h3>\n");
		sum_table(o, &rep->exc_by_type, -1, "type", c_exc, 1);
	} else {
		none(o, "No .NET exceptions in this trace.");
	}
	etl__report_str(o, "</section>\n");
}

/* ---- losses ---- */

static void losses(struct etl_report *rep, struct rb_out *o)
{
	size_t k, i, any = 0;

	head(o, "losses", "Pairing and losses");
	etl__report_str(o, "<ul>\n");
	for (k = 0; k < etl_table_kind_count(); k++) {
		const struct etl_table *t = etl_tables_get(rep->tabs, etl_table_kind_name(k));
		for (i = 0; t && i < etl_table_note_count(t); i++) {
			uint64_t n = 0;
			const char *what = etl_table_note(t, i, &n);
			etl__report_str(o, "<li>");
			etl__report_text(o, etl_table_name(t));
			etl__report_printf(o, ": %llu ", (unsigned long long)n);
			etl__report_text(o, what);
			etl__report_str(o, "</li>\n");
			any++;
		}
	}
	for (i = 0; i < (size_t)etl_reader_trace_count(rep->r); i++) {
		const struct etl_trace_info *ti = etl_reader_trace_info(rep->r, (int)i);
		if (etl_trace_info_events_lost(ti)) {
			etl__report_str(o, "<li>");
			etl__report_text(o, etl_trace_info_name(ti));
			etl__report_printf(o, ": %u events lost by the logger</li>\n", etl_trace_info_events_lost(ti));
			any++;
		}
	}
	if (etl_reader_count(rep->r, ETL_COUNT_ERRORS)) {
		etl__report_printf(o, "<li>%llu damage reports while reading</li>\n",
			  (unsigned long long)etl_reader_count(rep->r, ETL_COUNT_ERRORS));
		any++;
	}
	etl__report_str(o, "</ul>\n");
	if (!any)
		none(o, "Nothing: every pair was complete and nothing was lost.");
	etl__report_str(o, "</section>\n");
}

void etl__report_write_page(struct etl_report *rep, struct rb_out *o)
{
	const char *name = etl_reader_trace_count(rep->r) ? etl_trace_info_name(etl_reader_trace_info(rep->r, 0)) : "";
	const char *base = strrchr(name, '/');

	etl__report_str(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	etl__report_text(o, base ? base + 1 : name);
	etl__report_str(o, " - trace report</title>\n<meta name=\"generator\" content=\"libetl ");
	etl__report_text(o, etl_version_string());
	etl__report_str(o, "\">\n<style>");
	etl__report_str(o, etl__report_css);
	etl__report_str(o, "</style></head>\n<body>\n<header><h1>Trace report</h1><p>");
	etl__report_text(o, base ? base + 1 : name);
	if (etl_reader_trace_count(rep->r) > 1)
		etl__report_printf(o, " and %d more", etl_reader_trace_count(rep->r) - 1);
	if (rep->filter) {
		etl__report_str(o, "</p><p class=\"selection\">Selection: <code>");
		etl__report_text(o, etl_filter_text(rep->filter));
		etl__report_str(o, (etl_filter_parts(rep->filter) & ETL_FILTER_OTHER)
				       ? "</code> (its time window and processes; its other terms select events, not "
					 "these tables)"
				       : "</code>");
	}
	etl__report_str(o, "</p><nav><a href=\"#overview\">Overview</a> <a href=\"#processes\">Processes</a> "
		  "<a href=\"#cpu\">CPU</a> <a href=\"#io\">Disk and files</a> <a href=\"#network\">Network</a> "
		  "<a href=\"#dotnet\">.NET</a> <a href=\"#losses\">Losses</a></nav></header>\n<main>\n");
	overview(rep, o);
	processes(rep, o);
	cpu(rep, o);
	io(rep, o);
	network(rep, o);
	dotnet(rep, o);
	losses(rep, o);
	etl__report_str(o, "</main>\n<footer>Made by libetl ");
	etl__report_text(o, etl_version_string());
	etl__report_str(o, " from the trace alone; every chart is drawn in this file.</footer>\n<script>");
	etl__report_str(o, etl__report_js);
	etl__report_str(o, "</script>\n</body></html>\n");
}
