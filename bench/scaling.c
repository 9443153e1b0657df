/*
 * scaling.c - etlbench --scaling: how `etldump -j N` would scale past this
 * machine's cores, from what does not depend on them (docs/PERFORMANCE.md,
 * "Scaling").
 *
 * For each trace, JSON Lines to /dev/null with one thread, -j 2 and -j 4:
 *   serial share  the CPU time of etldump's main thread at -j N (it reads,
 *                 copies and writes every batch, or plans the time slices: no
 *                 worker can share it; the tool reports it with
 *                 ETLDUMP_CPU_REPORT set, with the buffers it loaded for the
 *                 plan beside the helpers, work they could have taken - with
 *                 --instructions, less the instructions under run_first, where
 *                 it does so) over the CPU time of the one-thread run;
 *   work          the whole process's CPU time at -j N (wait4) over the
 *                 one-thread run's: what running in parallel adds;
 *   predicted     the speed-up on 4, 8 and 16 cores that the -j 4 figures
 *                 give: the main thread runs beside the workers, so a run
 *                 takes at least the serial share and at least work / cores
 *                 of the one-thread time: 1 / max(s, w / n).
 * And the cost of time slices: the plain synthetic trace read whole, headers
 * only, against the same read as 16 time slices (etl_reader_time_slices, each
 * slice a reader of its own with etl_reader_set_time_window), in the
 * process's CPU time: a slice still reads the records before it.
 *
 * And where the time of a -j 2 run goes, on the wall clock (its fastest run; the tool reports
 * when its phases began, on the machine's monotonic clock, with ETLDUMP_CPU_REPORT set):
 *   start         from the fork to the plan (or to the workers, without one): the process's
 *                 start, opening the trace - one thread;
 *   plan          planning the time slices (the main thread and N - 1 helpers);
 *   workers       until the first worker ends: every worker busy;
 *   tail          until the last ends: fewer than N busy;
 *   end           to the process's end (freeing, the kernel taking its memory back): one thread.
 *   one thread    (start + tail + end) over the run's time: what N cores cannot shorten.
 *
 * Each figure is the least of `repeat` runs, the three thread counts taken in
 * turn.  CPU time counts what the machine's contention adds (two shared vCPUs
 * run -j 4's eight threads); with --instructions the same table is made of
 * instruction counts, which do not move with the machine: valgrind's callgrind
 * counts each thread's (this machine's virtual CPUs have no counters for perf
 * to read), one run each, about fifty times slower.
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <etl.h>

#include "bench.h"

#define PHASES 5

struct cpu {
	double total; /* the process's user + system seconds */
	double main;  /* its main thread's (-j N only; -1 otherwise) */
	double wall;  /* from the fork to the wait, seconds (-1: not measured) */
	double phase[PHASES]; /* -j N: start, plan, workers, tail, end (see above; -1: not reported) */
};

/* The phases of a run from the tool's "wall clock:" report m (see above), forked at t0 and
 * waited for at t1, into c->phase; left at -1 when the report does not read. */
static void read_phases(struct cpu *c, const char *m, double t0, double t1)
{
	double plan = -1, start, first = 1e30, last = -1, e;
	char *p;

	m += strlen("wall clock: plan ");
	if (*m == '-') {
		m++;
	} else {
		plan = strtod(m, &p);
		m = p;
	}
	if (strncmp(m, " workers ", 9) != 0)
		return;
	start = strtod(m + 9, &p);
	if (strncmp(p, " ends", 5) != 0)
		return;
	for (p += 5; *p == ' ';) {
		e = strtod(p, &p);
		first = e < first ? e : first;
		last = e > last ? e : last;
	}
	if (last < start || start < t0 || last > t1)
		return;
	c->phase[0] = (plan >= 0 ? plan : start) - t0;
	c->phase[1] = plan >= 0 ? start - plan : 0;
	c->phase[2] = first - start;
	c->phase[3] = last - first;
	c->phase[4] = t1 - last;
}

static double seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* One run of etldump -f jsonl (-j threads) over path; its CPU times, or total -1 on failure. */
static struct cpu run_once(const char *etldump, const char *path, int threads)
{
	struct cpu c = { -1, -1, -1, { -1, -1, -1, -1, -1 } };
	char jarg[32], report[4096];
	FILE *err = tmpfile();
	struct rusage ru;
	double t0, t1;
	int status;
	pid_t pid;

	if (!err)
		return c;
	snprintf(jarg, sizeof(jarg), "--threads=%d", threads);
	t0 = bench_now();
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, 1) < 0 || dup2(fileno(err), 2) < 0)
			_exit(127);
		setenv("ETLDUMP_CPU_REPORT", "1", 1);
		execlp(etldump, etldump, "--format=jsonl", "--quiet", jarg, path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
		t1 = bench_now();
		c.total = seconds(&ru.ru_utime) + seconds(&ru.ru_stime);
		c.wall = t1 - t0;
		rewind(err);
		while (fgets(report, sizeof(report), err)) {
			const char *m = strstr(report, "cpu seconds: main ");
			if (m)
				c.main = strtod(m + strlen("cpu seconds: main "), NULL);
			if ((m = strstr(report, "wall clock: plan ")) != NULL)
				read_phases(&c, m, t0, t1);
		}
	}
	fclose(err);
	return c;
}

/* The instructions of callgrind file f's calls to the function whose name holds `name`
 * (inclusive): the cost line after each "calls=" line whose cfn is it. */
static double calls_to(FILE *f, const char *name)
{
	static unsigned char named[1 << 16]; /* by the file's function id: 1 for name's */
	char line[1024];
	double sum = 0;
	int in_target = 0, after_calls = 0;

	memset(named, 0, sizeof(named));
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *p;
		if (after_calls) {
			after_calls = 0;
			if (in_target && (p = strchr(line, ' ')) != NULL)
				sum += strtod(p + 1, NULL);
			continue;
		}
		if (strncmp(line, "calls=", 6) == 0) {
			after_calls = 1;
			continue;
		}
		if (strncmp(line, "cfn=(", 5) == 0 || strncmp(line, "fn=(", 4) == 0) {
			char *open = strchr(line, '(');
			long id = strtol(open + 1, &p, 10);
			int known = id >= 0 && id < (long)sizeof(named);
			if (*p == ')' && p[1] == ' ' && known) /* (the first mention names it) */
				named[id] = strstr(p + 2, name) != NULL;
			if (line[0] == 'c')
				in_target = known && named[id];
		}
	}
	return sum;
}

/* The instructions of one run under callgrind, each thread in a file of dir (the main thread's
 * ends in -01, less what it ran of the plan's loading: run_first); total -1 on failure. */
static struct cpu count_once(const char *etldump, const char *path, int threads)
{
	struct cpu c = { -1, -1, -1, { -1, -1, -1, -1, -1 } };
	char dir[] = "/tmp/etlbench-cg-XXXXXX", out[4200], jarg[32], line[512];
	struct dirent *de;
	int status;
	pid_t pid;
	DIR *d;

	if (!mkdtemp(dir))
		return c;
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg", dir);
	snprintf(jarg, sizeof(jarg), "--threads=%d", threads);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		execlp("valgrind", "valgrind", "--tool=callgrind", "--separate-threads=yes", out, etldump,
		       "--format=jsonl", "--quiet", jarg, path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) <= 1 &&
	    (d = opendir(dir)) != NULL) {
		c.total = 0;
		while ((de = readdir(d)) != NULL) {
			char file[4500];
			FILE *f;
			double n = -1;
			if (de->d_name[0] == '.')
				continue;
			snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
			double loading = 0;
			size_t len = strlen(de->d_name);
			int main_thread = len > 3 && strcmp(de->d_name + len - 3, "-01") == 0;
			if ((f = fopen(file, "r")) != NULL) {
				while (fgets(line, sizeof(line), f))
					if (strncmp(line, "summary: ", 9) == 0)
						n = strtod(line + 9, NULL);
				if (main_thread && threads > 1)
					loading = calls_to(f, "run_first");
				fclose(f);
			}
			if (n >= 0) {
				c.total += n;
				if (threads > 1 && main_thread)
					c.main = n - loading;
			}
			unlink(file);
		}
		closedir(d);
	}
	rmdir(dir);
	return c;
}

/* One trace's row: least CPU times (or instructions) of repeat rounds of -j 1, -j 2 and -j 4 in
 * turn; fastest[0] and [1]: the fastest -j 1 and -j 2 runs on the wall clock (wall -1: none). */
static void scaling_row(const char *label, const char *etldump, const char *path, int repeat,
			struct cpu (*measure)(const char *, const char *, int), double unit, struct cpu fastest[2])
{
	static const int js[3] = { 1, 2, 4 };
	struct cpu best[3] = { { 1e30, 1e30, -1, { 0 } }, { 1e30, 1e30, -1, { 0 } }, { 1e30, 1e30, -1, { 0 } } };
	double s2, w2, s4, w4;
	int r, k, n;

	fastest[0].wall = fastest[1].wall = -1;
	for (r = 0; r < repeat; r++) {
		for (k = 0; k < 3; k++) {
			struct cpu c = measure(etldump, path, js[k]);
			if (c.total < 0) {
				printf("| %-44s | etldump failed |\n", label);
				return;
			}
			if (c.total < best[k].total)
				best[k].total = c.total;
			if (c.main >= 0 && c.main < best[k].main)
				best[k].main = c.main;
			if (k < 2 && c.wall >= 0 && (fastest[k].wall < 0 || c.wall < fastest[k].wall))
				fastest[k] = c;
		}
	}
	if (best[1].main > 1e29 || best[2].main > 1e29) {
		printf("| %-44s | -j did not run (a trace below 4 MB, or no thread CPU clock) |\n", label);
		return;
	}
	s2 = best[1].main / best[0].total;
	w2 = best[1].total / best[0].total;
	s4 = best[2].main / best[0].total;
	w4 = best[2].total / best[0].total;
	printf("| %-44s | %7.3f | %6.1f %% | %6.2f | %6.1f %% | %6.2f |", label, best[0].total / unit, 100 * s2, w2,
	       100 * s4, w4);
	for (n = 4; n <= 16; n *= 2) {
		double bound = s4 > w4 / n ? s4 : w4 / n;
		printf(" %*.2f |", n < 16 ? 7 : 8, 1 / bound);
	}
	printf("\n");
}

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return seconds(&ru.ru_utime) + seconds(&ru.ru_stime);
}

/* The events of reader r, up to a fatal error; frees it. */
static long long drain(struct etl_reader *r)
{
	const struct etl_event *ev;
	long long n = 0;
	int st;

	while ((st = etl_reader_next(r, &ev)) != ETL_END)
		if (st == ETL_OK)
			n++;
		else if (etl_error_is_fatal(etl_reader_error(r)))
			break;
	etl_reader_free(r);
	return n;
}

/* The events of path in [since, until) (headers only), or of the time slice state (len bytes) when
 * not NULL; -1 when it cannot be read. */
static long long read_window(const char *path, uint64_t since, uint64_t until, const void *state, size_t len)
{
	struct etl_reader *r = etl_reader_new();

	if (!r || etl_reader_set_option(r, ETL_OPTION_STACKS, 0) != ETL_OK ||
	    (state && etl_reader_set_slice(r, state, len) != ETL_OK) || etl_reader_open_path(r, path) != ETL_OK ||
	    ((since || until) && etl_reader_set_time_window(r, since, until) != ETL_OK)) {
		etl_reader_free(r);
		return -1;
	}
	return drain(r);
}

/* Reads path as the time slices of a plan (etl_reader_plan_slices; the planning reader's opening
 * and the plan counted), the first slice by the planning reader (it skips nothing): the events,
 * -1 when it cannot. */
static long long read_planned(const char *path, size_t k, size_t *got)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_slices *p = NULL;
	long long n = 0, m;
	size_t i, len;

	if (r && etl_reader_set_option(r, ETL_OPTION_STACKS, 0) == ETL_OK && etl_reader_open_path(r, path) == ETL_OK)
		p = etl_reader_plan_slices(r, 0, k);
	*got = etl_slices_count(p);
	if (!p || etl_reader_set_time_window(r, 0, etl_slices_bound(p, 1)) != ETL_OK) {
		etl_reader_free(r);
		etl_slices_free(p);
		return -1;
	}
	n = drain(r);
	for (i = 1; i < *got; i++) {
		const void *state = etl_slices_state(p, i, &len);
		if (!state || (m = read_window(path, 0, 0, state, len)) < 0) {
			n = -1;
			break;
		}
		n += m;
	}
	etl_slices_free(p);
	return n;
}

/* The CPU time of reading path as k time slices over that of reading it whole: each slice a
 * reader with its time window (one run), and each a reader given its state from a plan (least of
 * repeat, alternating with the whole reading). */
static void slices_row(const char *label, const char *path, size_t k, int repeat)
{
	uint64_t bounds[65];
	double whole = 1e30, sliced = 1e30, planned = 1e30, t;
	long long n_whole = 0, n_sliced = 0, n_planned = 0;
	size_t got = 0, got_planned = 0, i;
	struct etl_reader *r = etl_reader_new();
	int rep;

	if (r && etl_reader_open_path(r, path) == ETL_OK)
		got = etl_reader_time_slices(r, 0, k, bounds);
	etl_reader_free(r);
	if (!got || k > 64) {
		printf("%s: cannot cut into slices\n", label);
		return;
	}
	/* the windows once (they take k/2 readings); the whole reading and the plan's slices
	 * alternately, so that both meet the same minutes of this drifting machine */
	t = cpu_now();
	for (n_sliced = 0, i = 0; i < got; i++)
		n_sliced += read_window(path, bounds[i], bounds[i + 1], NULL, 0);
	sliced = cpu_now() - t;
	for (rep = 0; rep < repeat; rep++) {
		t = cpu_now();
		n_whole = read_window(path, 0, 0, NULL, 0);
		if (cpu_now() - t < whole)
			whole = cpu_now() - t;
		t = cpu_now();
		n_planned = read_planned(path, k, &got_planned);
		if (cpu_now() - t < planned)
			planned = cpu_now() - t;
	}
	printf("%s, headers only: whole %.3f s CPU; as %zu windows %.3f s (x%.2f, one run)%s; as %zu planned "
	       "slices %.3f s (x%.2f)%s\n",
	       label, whole, got, sliced, sliced / whole, n_sliced == n_whole ? "" : " - THE WINDOWS DO NOT ADD UP",
	       got_planned, planned, planned / whole, n_planned == n_whole ? "" : " - THE SLICES DO NOT ADD UP");
}

void bench_slices(const char *path, int repeat)
{
	const char *base = strrchr(path, '/');

	slices_row(base ? base + 1 : path, path, 16, repeat);
}

/* The wall-clock table: where the time of each trace's fastest -j 2 run went (see above). */
static void phases_table(const char *const *labels, const struct cpu (*fastest)[2], size_t n)
{
	static const char *const names[PHASES] = { "start", "plan", "workers", "tail", "end" };
	size_t i;
	int k;

	printf("| %-44s | wall 1 | wall 2 |", "etldump -f jsonl, ms");
	for (k = 0; k < PHASES; k++)
		printf(" %7s |", names[k]);
	printf(" one thread |\n|----------------------------------------------|--------|--------|");
	for (k = 0; k < PHASES; k++)
		printf("---------|");
	printf("------------|\n");
	for (i = 0; i < n; i++) {
		const struct cpu *one = &fastest[i][0], *two = &fastest[i][1];
		if (one->wall < 0 || two->wall < 0 || two->phase[0] < 0) {
			printf("| %-44s | not reported (-j 2 ran on one thread) |\n", labels[i]);
			continue;
		}
		printf("| %-44s | %6.1f | %6.1f |", labels[i], 1e3 * one->wall, 1e3 * two->wall);
		for (k = 0; k < PHASES; k++)
			printf(" %7.1f |", 1e3 * two->phase[k]);
		printf(" %8.1f %% |\n", 100 * (two->phase[0] + two->phase[3] + two->phase[4]) / two->wall);
	}
	printf("\nwall 1, wall 2: the fastest -j 1 and -j 2 runs; start: the fork to the plan (or the\n"
	       "workers); plan: the time slices planned; workers: until the first worker ends; tail: until\n"
	       "the last does; end: to the process's end; one thread: (start + tail + end) / wall 2.\n\n");
}

void bench_scaling(const char *corpus, const char *const *synthetic, int nsynthetic, const char *etldump,
		   int repeat, int instructions)
{
	char *paths[256];
	const char *labels[256 + 16];
	struct cpu fastest[256 + 16][2];
	size_t n = corpus ? bench_corpus_traces(corpus, 4000000, paths, 256) : 0, k, rows = 0;
	struct cpu (*measure)(const char *, const char *, int) = instructions ? count_once : run_once;
	double unit = instructions ? 1e9 : 1;
	int i;

	if (instructions)
		repeat = 1; /* (the counts do not move) */
	printf("| %-44s | %s | serial 2 | work 2 | serial 4 | work 4 | 4 cores | 8 cores | 16 cores |\n",
	       "etldump -f jsonl", instructions ? "Ginstr 1" : "CPU s 1");
	printf("|----------------------------------------------|---------|----------|--------|----------|--------|"
	       "---------|---------|----------|\n");
	for (i = 0; i < nsynthetic && rows < 16; i++) {
		const char *base = strrchr(synthetic[i], '/');
		labels[rows] = base ? base + 1 : synthetic[i];
		scaling_row(labels[rows], etldump, synthetic[i], repeat, measure, unit, fastest[rows]);
		rows++;
	}
	/* the corpus traces of 4 MB or more (below, etldump -j on its own uses one thread) */
	for (k = 0; k < n; k++) {
		labels[rows] = strrchr(paths[k], '/') + 1;
		scaling_row(labels[rows], etldump, paths[k], repeat, measure, unit, fastest[rows]);
		rows++;
	}
	printf("\nserial: %s of etldump's main thread at -j N over the 1-thread run's; work: the\n"
	       "process's at -j N over the same; N cores: 1 / max(serial, work / N) from the -j 4 run.\n\n",
	       instructions ? "instructions (callgrind)" : "CPU time");
	if (!instructions)
		phases_table(labels, (const struct cpu(*)[2])fastest, rows);
	for (k = 0; k < n; k++)
		free(paths[k]);
	if (!instructions && nsynthetic > 0)
		bench_slices(synthetic[0], repeat);
}
