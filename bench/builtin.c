/*
 * builtin.c - etlbench --builtin: what the provider descriptions built into
 * the library cost (docs/PERFORMANCE.md, "Built-in providers").
 *
 *   open     opening a trace and reading its first event, with the built-ins
 *            and without them (the table is looked up per provider, lazily:
 *            opening touches none of it)
 *   parse    each built-in provider's first use: inflating and parsing its
 *            description (each in a fresh process, once per process after)
 *   memory   the resident memory of a process after every built-in provider
 *            was parsed, against one that parsed none
 *   jsonl    etldump --format=jsonl over every corpus trace, with the
 *            built-ins, and with them off and the corpus manifests given
 *            (-m: the same events decoded both ways), interleaved, the
 *            minimum of N each; the speed ratio is without / with
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "internal.h"
#include "manifest/builtin.h"
#include "bench.h"

/* Opening path and reading its first event, builtin on or off: seconds (best of repeat). */
static double open_first(const char *path, int builtin, int repeat)
{
	double best = 1e30;
	int i;

	for (i = 0; i < repeat; i++) {
		double t0 = bench_now(), t;
		struct etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		const struct etl_decoded *d;
		etl_reader_set_option(r, ETL_OPTION_BUILTIN_MANIFESTS, builtin);
		etl_reader_set_option(r, ETL_OPTION_STACKS, 0);
		if (etl_reader_open_path(r, path) == ETL_OK && etl_reader_next(r, &ev) == ETL_OK)
			(void)etl_reader_decode(r, ev, &d);
		etl_reader_free(r);
		t = bench_now() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

/* Bytes the allocator has handed out and not taken back (glibc), else 0. */
static double heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	return (double)mallinfo2().uordblks;
#else
	return 0;
#endif
}

/* In a child: parses the built-in provider at first (all when first is -1, none when -2); its
 * peak RSS in KiB; the seconds the parsing took in *secs, and the heap it kept in *kept. */
static long child_parse(long first, double *secs, double *kept)
{
	int fds[2], status;
	pid_t pid;
	struct rusage ru;
	double got[2] = { 0, 0 };

	if (pipe(fds) != 0)
		return -1;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		double t0 = bench_now(), h0 = heap_in_use(), out[2];
		const char *why;
		size_t i;
		close(fds[0]);
		if (first >= 0)
			(void)etl__builtin_db(first, &why);
		else if (first == -1)
			for (i = 0; i < etl__builtin_provider_count; i++)
				(void)etl__builtin_db(etl__builtin_first(&etl__builtin_providers[i].guid), &why);
		out[0] = bench_now() - t0;
		out[1] = heap_in_use() - h0;
		_exit(write(fds[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], got, sizeof(got)) != sizeof(got) || wait4(pid, &status, 0, &ru) != pid) {
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	*secs = got[0];
	*kept = got[1];
	return ru.ru_maxrss;
}

/* etldump --format=jsonl ... PATH > /dev/null: seconds. */
static double jsonl(const char *etldump, const char *path, const char *a, const char *b, const char *c)
{
	double t0 = bench_now();
	pid_t pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		execlp(etldump, etldump, "--format=jsonl", "--quiet", a, b, c, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return bench_now() - t0;
}

static void bench_jsonl(const char *corpus, const char *etldump, int repeat)
{
	char *paths[64], man[4096];
	size_t n = bench_corpus_traces(corpus, 0, paths, 64), i;
	double all_with = 0, all_without = 0;

	snprintf(man, sizeof(man), "--manifest=%s/manifests", corpus);
	printf("\n| trace | with built-ins (s) | without, -m (s) | speed ratio |\n|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		double with = 1e30, without = 1e30, t;
		int k;
		for (k = 0; k < repeat; k++) { /* interleaved: both meet the same moments */
			if ((t = jsonl(etldump, paths[i], "--no-symbols", "--threads=1", "--threads=1")) >= 0 && t < with)
				with = t;
			if ((t = jsonl(etldump, paths[i], "--no-builtin-manifests", man, "--no-symbols")) >= 0 && t < without)
				without = t;
		}
		all_with += with;
		all_without += without;
		printf("| %s | %.4f | %.4f | %.3f |\n", strrchr(paths[i], '/') + 1, with, without, without / with);
		free(paths[i]);
	}
	printf("| all | %.4f | %.4f | %.3f |\n", all_with, all_without, all_without / all_with);
}

/* The built-in table's bytes: its documents and entries. */
static size_t table_bytes(void)
{
	size_t i, n = etl__builtin_provider_count * sizeof(etl__builtin_providers[0]);

	for (i = 0; i < etl__builtin_provider_count; i++)
		n += etl__builtin_providers[i].doc_len;
	return n;
}

void bench_builtin(const char *corpus, const char *etldump, int repeat)
{
	char small[4096];
	double on, off, secs, worst = 0, sum = 0, kept = 0, worst_kept = 0, most_kept = 0;
	long base, all, rss;
	size_t i;
	const char *worst_name = "";

	snprintf(small, sizeof(small), "%s/etl/perfview_gcevents_PerfViewData.etl", corpus);
	on = open_first(small, 1, repeat * 10);
	off = open_first(small, 0, repeat * 10);
	printf("etlbench --builtin: libetl %s, %zu built-in providers\n\n", etl_version_string(),
	       etl__builtin_provider_count);
	printf("open + first event of perfview_gcevents: %.3f ms with the built-ins, %.3f ms without (%+.3f ms)\n",
	       on * 1e3, off * 1e3, (on - off) * 1e3);
	for (i = 0; i < etl__builtin_provider_count; i++) {
		if (etl__builtin_first(&etl__builtin_providers[i].guid) != (long)i)
			continue;
		if (child_parse((long)i, &secs, &kept) < 0)
			continue;
		sum += secs;
		if (secs > worst) {
			worst = secs;
			worst_name = etl__builtin_providers[i].name;
			worst_kept = kept;
		}
		if (kept > most_kept)
			most_kept = kept;
	}
	printf("first use of a provider: %.3f ms at most (%s, which keeps %.2f MiB), %.3f ms for all of them;\n"
	       "the most a provider keeps: %.2f MiB\n", worst * 1e3, worst_name, worst_kept / 1048576.0, sum * 1e3,
	       most_kept / 1048576.0);
	base = child_parse(-2, &secs, &kept);
	all = child_parse(-1, &secs, &kept);
	rss = all - base;
	printf("every built-in parsed: %.2f MiB kept (heap in use), peak resident %.2f MiB over a process that\n"
	       "parsed none (%ld KiB, %ld KiB); the table itself is %zu KiB of read-only data\n", kept / 1048576.0,
	       (double)rss / 1024.0, all, base, table_bytes() / 1024);
	bench_jsonl(corpus, etldump, repeat);
}
