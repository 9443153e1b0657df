/*
 * bench.h - what etlbench's files share: the clock, the corpus traces, and the scaling rows
 * (scaling.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLBENCH_BENCH_H
#define ETLBENCH_BENCH_H

#include <stddef.h>

/* The monotonic clock (CLOCK_MONOTONIC: the same for every process of the machine), seconds. */
double bench_now(void);

/* The paths of CORPUS/etl's traces of min_bytes or more, in name order (at most max; the caller
 * frees each); how many. */
size_t bench_corpus_traces(const char *corpus, unsigned long long min_bytes, char **paths, size_t max);

/* For the synthetic traces and every corpus trace of 4 MB or more: etldump -j N's serial share
 * and work against one thread, and the speed-ups they predict on 4, 8 and 16 cores; in CPU time,
 * or with instructions in instruction counts (valgrind's callgrind). */
/* The CPU time of reading a trace as 16 time slices, with windows and with a plan, over reading it whole. */
void bench_slices(const char *path, int repeat);
void bench_scaling(const char *corpus, const char *const *synthetic, int nsynthetic, const char *etldump,
		   int repeat, int instructions);

/* What the built-in provider descriptions cost: opening, first use, memory, JSON Lines (builtin.c). */
void bench_builtin(const char *corpus, const char *etldump, int repeat);

/* jsonl-p's and jsonl-win's selections (filters.c): etldump's options for the provider whose
 * events are nearest a third of a trace's, and the middle tenth of its time. */
struct bench_selection {
	char provider[64], since[40], until[40];
};
extern struct bench_selection bench_sel;
void bench_pick_selection(const char *path);
/* Their times over jsonl's, noted per file and printed after the table. */
void bench_filter_ratio(const char *label, double p, double win);
void bench_print_filter_ratios(void);

/* Two builds of etldump on the corpus's kernel + CLR traces, runs alternated, and the guard of
 * instruction counts against a recorded baseline: 1 when a run grew by more than 3 % (against.c). */
void bench_against(const char *corpus, const char *old, const char *now, int repeat, int with_instructions);
int bench_guard(const char *corpus, const char *etldump, const char *baseline, int record);

#endif
