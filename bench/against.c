/*
 * against.c - two builds of etldump on the same inputs, and the guard of
 * instruction counts (docs/PERFORMANCE.md, "Against an older build" and
 * "The guard").
 *
 *   etlbench --against OLD --corpus DIR [--etldump NEW] [--repeat N] [--instructions]
 *       JSON Lines and --stats of the corpus's kernel + CLR traces through OLD and NEW, runs
 *       alternated (old, new, old, new...: both meet the same moments of a shared machine),
 *       the minimum of each and NEW's over OLD's; with --instructions also callgrind's
 *       instruction counts (the same on any machine) and their ratio.
 *   etlbench --guard --corpus DIR --baseline FILE [--etldump PATH] [--record]
 *       the instruction counts of the same runs against the ones FILE records: a run that
 *       grew by more than 3 % is named, and etlbench exits 1; --record writes FILE anew.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define GUARD_GROWTH 0.03

/* The traces compared: the corpus's kernel and CLR traces with stacks, and a TraceLogging one. */
static const char *const traces[] = {
	"perfview_net.4.5.2.x86.etl",
	"dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl",
	"etwanalyzer_TraceLoggingTester.etl.gz",
	"Tx_Process.etl",
};
static const char *const formats[][2] = { { "jsonl", "--format=jsonl" }, { "stats", "--stats" } };
#define NTRACES (sizeof(traces) / sizeof(traces[0]))
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* Runs etldump on path with arg (its output to /dev/null), under callgrind when cg_out is not
 * NULL; 0 when it ran (exit 0 or 1). */
static int run(const char *etldump, const char *arg, const char *path, const char *cg_out)
{
	pid_t pid;
	int status;

	fflush(stdout); /* (or the child's freopen writes what is buffered again) */
	pid = fork();
	if (pid == 0) {
		FILE *null = freopen("/dev/null", "w", stdout);
		if (!null || !freopen("/dev/null", "w", stderr))
			_exit(127);
		if (cg_out)
			execlp("valgrind", "valgrind", "--tool=callgrind", cg_out, etldump, "--quiet", "--threads=1", arg,
			       path, (char *)NULL);
		else
			execlp(etldump, etldump, "--quiet", "--threads=1", arg, path, (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) <= 1 ? 0 : -1;
}

static double seconds(const char *etldump, const char *arg, const char *path)
{
	double t0 = bench_now();

	return run(etldump, arg, path, NULL) == 0 ? bench_now() - t0 : -1;
}

/* The instructions of one run (callgrind's summary), or -1. */
static double instructions(const char *etldump, const char *arg, const char *path)
{
	char file[] = "/tmp/etlbench-against-XXXXXX", opt[64], line[256];
	double n = -1;
	FILE *f;
	int fd = mkstemp(file);

	if (fd < 0)
		return -1;
	close(fd);
	snprintf(opt, sizeof(opt), "--callgrind-out-file=%s", file);
	if (run(etldump, arg, path, opt) == 0 && (f = fopen(file, "r")) != NULL) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "summary: ", 9) == 0)
				n = strtod(line + 9, NULL);
		fclose(f);
	}
	unlink(file);
	return n;
}

static int present(const char *corpus, size_t k, char *path, size_t cap)
{
	struct stat sb;

	snprintf(path, cap, "%s/etl/%s", corpus, traces[k]);
	return stat(path, &sb) == 0;
}

void bench_against(const char *corpus, const char *old, const char *now, int repeat, int with_instructions)
{
	size_t k, f;
	int i;

	printf("| trace | format | old s | new s | new/old time | old M instr | new M instr | new/old instr |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (k = 0; k < NTRACES; k++) {
		char path[4096];
		if (!present(corpus, k, path, sizeof(path)))
			continue;
		for (f = 0; f < NFORMATS; f++) {
			double best[2] = { 1e30, 1e30 }, ins[2] = { -1, -1 };
			for (i = 0; i < repeat; i++) { /* alternated: old, new, old, new, ... */
				double a = seconds(old, formats[f][1], path), b = seconds(now, formats[f][1], path);
				if (a >= 0 && a < best[0])
					best[0] = a;
				if (b >= 0 && b < best[1])
					best[1] = b;
			}
			if (with_instructions) {
				ins[0] = instructions(old, formats[f][1], path);
				ins[1] = instructions(now, formats[f][1], path);
			}
			printf("| %s | %s | %.4f | %.4f | %.3f |", traces[k], formats[f][0], best[0], best[1],
			       best[1] / best[0]);
			if (ins[0] > 0 && ins[1] > 0)
				printf(" %.1f | %.1f | %.3f |\n", ins[0] / 1e6, ins[1] / 1e6, ins[1] / ins[0]);
			else
				printf(" | | |\n");
			fflush(stdout);
		}
	}
}

/* The count FILE records for trace and format, or -1. */
static double recorded(const char *file, const char *trace, const char *format)
{
	char line[512], t[256], fm[32];
	double n, found = -1;
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '#' && sscanf(line, "%255s %31s %lf", t, fm, &n) == 3 && strcmp(t, trace) == 0 &&
		    strcmp(fm, format) == 0)
			found = n;
	if (f)
		fclose(f);
	return found;
}

/* Writes the counts measured (-1: none) to FILE; 0, or 1 with a message. */
static int write_baseline(const char *file, const double now[NTRACES][NFORMATS])
{
	FILE *out = fopen(file, "w");
	size_t k, f;

	if (!out) {
		perror(file);
		return 1;
	}
	fprintf(out, "# etldump's instructions (callgrind) per corpus trace and format: the guard of\n"
		     "# docs/PERFORMANCE.md (etlbench --guard); written by etlbench --guard --record.\n");
	for (k = 0; k < NTRACES; k++)
		for (f = 0; f < NFORMATS; f++)
			if (now[k][f] >= 0)
				fprintf(out, "%s %s %.0f\n", traces[k], formats[f][0], now[k][f]);
	if (fclose(out) != 0) {
		perror(file);
		return 1;
	}
	return 0;
}

int bench_guard(const char *corpus, const char *etldump, const char *baseline, int record)
{
	double now[NTRACES][NFORMATS];
	size_t k, f;
	int grown = 0;

	printf("\nThe guard: instructions against %s (more than %.0f %% grown is named)\n\n", baseline,
	       GUARD_GROWTH * 100);
	printf("| trace | format | recorded M | now M | now/recorded |\n|---|---|---|---|---|\n");
	for (k = 0; k < NTRACES; k++) {
		char path[4096];
		for (f = 0; f < NFORMATS; f++)
			now[k][f] = -1;
		if (!present(corpus, k, path, sizeof(path)))
			continue;
		for (f = 0; f < NFORMATS; f++) {
			double then = recorded(baseline, traces[k], formats[f][0]);
			int over;
			now[k][f] = instructions(etldump, formats[f][1], path);
			if (now[k][f] < 0) {
				printf("| %s | %s | | failed (is valgrind installed?) | |\n", traces[k], formats[f][0]);
				grown = 1;
				continue;
			}
			over = then > 0 && now[k][f] > then * (1 + GUARD_GROWTH);
			printf("| %s | %s | %.1f | %.1f | %s%.3f%s |\n", traces[k], formats[f][0], then / 1e6,
			       now[k][f] / 1e6, over ? "**" : "", then > 0 ? now[k][f] / then : 0, over ? " grown**" : "");
			if (over && !record) {
				fprintf(stderr, "etlbench: %s %s grew by %.1f %% (%.1f M instructions, %.1f M recorded)\n",
					traces[k], formats[f][0], (now[k][f] / then - 1) * 100, now[k][f] / 1e6, then / 1e6);
				grown = 1;
			}
		}
	}
	return record ? write_baseline(baseline, (const double(*)[NFORMATS])now) : grown;
}
