/*
 * etlbench - throughput of libetl, each workload as a ratio to plainly
 * reading the same bytes in the same run.
 *
 *   etlbench [--size MB] [--dir DIR] [--corpus DIR] [--etldump PATH] [--repeat N] [--rounds R]
 *   etlbench --peak FILE     (the headers workload over FILE, and its peak memory)
 *   etlbench [--size MB] [--corpus DIR] [--etldump PATH] [--repeat N] --scaling [--instructions]
 *                            (etldump -j N's serial share and work: scaling.c)
 *   etlbench --corpus DIR [--etldump PATH] [--repeat N] --builtin
 *                            (what the built-in provider descriptions cost: builtin.c)
 *   etlbench --against OLD_ETLDUMP --corpus DIR [--etldump PATH] [--repeat N] [--instructions]
 *   etlbench --guard --corpus DIR --baseline FILE [--etldump PATH] [--record]
 *                            (two builds compared, and the guard of instruction counts: against.c;
 *                            a run given --baseline FILE ends with the guard)
 *
 * Workloads: synthetic mixed traces made by the project's writer (plain and
 * XPRESS-compressed, SIZE MB each), every corpus trace of 1 MB or more, and
 * the cost of a folder of 846 manifests (made from the corpus ones), and what a 50 MB PDB
 * costs to open and look up in, and naming frames costs JSON Lines (symbols.c).  For each it
 * reports MB/s (of trace bytes) and events/s for
 *   read      read() into a 1 MiB buffer and memchr over it (the baseline)
 *   headers   every event's header through etl_reader_next, in time order
 *   stacks    the same, plus every event's stack (etl_event_stack_depth and each frame;
 *             compressed and deferred stacks read the trace's stack index once)
 *   decode    the same, plus etl_reader_decode() of every event and the text of
 *             every top-level property (etl_property_format)
 *   calls     what etldump's JSON Lines asks of the library, without writing: each event's
 *             process, stack frames resolved to images, decoding, and every property's
 *             value (as a number, or its text); its "out MB/s" is the JSON Lines' bytes
 *             over this row's time, the rate JSON Lines would have with free formatting
 *   jsonl     etldump --format=jsonl > /dev/null
 *   jsonl-j2  the same with --threads=2
 *   jsonl-p   the same with -p of the provider whose events are nearest a third of them all
 *             (by GUID); "filter ratios" after the table give its time over jsonl's
 *   jsonl-win the same with --since/--until of the middle tenth of the trace's time
 *   stats     etldump --stats > /dev/null
 *   stats-j2  the same with --threads=2
 *   tables    etldump --report > /dev/null: every analysis table built in one pass
 *   html      etldump --report=html > /dev/null: the HTML report (tables, stacks, charts)
 * plus the decompressor alone (MB/s of output) over every compressed
 * buffer, and each workload's peak resident memory (its own process).
 *
 * Each row is the best of N runs (etldump's rows of at most 3).  With --rounds R,
 * a file's rows are measured R times in turn, each row keeping its best: on a
 * machine whose speed moves from minute to minute (a shared VM), every row then
 * meets the same moments, and rows of one file stay comparable.
 *
 * Not a test: it prints a table, and docs/PERFORMANCE.md records one run.
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "codec/xpress.h"
#include "util/cursor.h"
#include "scenario.h"
#include "bench.h"
#include "symbench.h"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct result {
	double seconds;
	unsigned long long events;
	long maxrss_kb;
	int ok;
};

/* Runs fn in a child process so that its peak RSS is its own. */
typedef unsigned long long (*work_fn)(const char *path, const char *etldump);

static struct result in_child(work_fn fn, const char *path, const char *etldump, int repeat)
{
	struct result res = { 0, 0, 0, 0 };
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		return res;
	fflush(stdout); /* (or the child's exit writes the table's lines again) */
	pid = fork();
	if (pid == 0) {
		double t0, t, best = 1e30;
		unsigned long long ev = 0;
		int i;
		close(fds[0]);
		for (i = 0; i < repeat; i++) {
			t0 = bench_now();
			ev = fn(path, etldump);
			t = bench_now() - t0;
			if (t < best)
				best = t;
		}
		if (write(fds[1], &best, sizeof(best)) != sizeof(best) ||
		    write(fds[1], &ev, sizeof(ev)) != sizeof(ev))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0) {
		struct rusage ru;
		int status;
		if (read(fds[0], &res.seconds, sizeof(res.seconds)) == sizeof(res.seconds) &&
		    read(fds[0], &res.events, sizeof(res.events)) == sizeof(res.events))
			res.ok = 1;
		if (wait4(pid, &status, 0, &ru) == pid)
			res.maxrss_kb = ru.ru_maxrss;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			res.ok = 0;
	}
	close(fds[0]);
	return res;
}

/* ---- workloads ---- */

static unsigned long long w_read(const char *path, const char *unused)
{
	static char buf[1 << 20];
	unsigned long long found = 0;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	(void)unused;
	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		found += memchr(buf, 0x5A, (size_t)n) != NULL;
	close(fd);
	return found;
}

/* What etldump's JSON Lines asks of the library for one property (and its children): its
 * name, its kind, and its value as a number or as text. */
static unsigned long long touch_property(const struct etl_property *p, unsigned depth)
{
	unsigned long long sum = strlen(etl_property_name(p));
	size_t i, n = etl_property_child_count(p);

	if (etl_property_kind(p) == ETL_PROPERTY_VALUE || depth >= 64) {
		enum etl_value_kind k = etl_property_value_kind(p);
		uint64_t u;
		const char *t;
		if ((k == ETL_VALUE_UNSIGNED || k == ETL_VALUE_HEX) && !etl_property_map_name(p) &&
		    etl_property_as_u64(p, &u) == ETL_OK)
			return sum + u;
		t = etl_property_format(p);
		return sum + (t ? strlen(t) : 0);
	}
	for (i = 0; i < n; i++)
		sum += touch_property(etl_property_child_at(p, i), depth + 1);
	return sum;
}

/* The library's part of JSON Lines for one event: its process, its stack's frames resolved to
 * images, its decoding and every property's value (no text written). */
static unsigned long long touch_event(struct etl_reader *r, const struct etl_event *ev)
{
	const struct etl_process *proc = etl_reader_event_process(r, ev);
	const struct etl_decoded *d;
	unsigned long long sum = proc ? strlen(etl_process_image_name(proc)) : 0;
	size_t i, n = etl_event_stack_depth(ev);

	for (i = 0; i < n; i++) {
		uint64_t off = 0;
		const char *img = etl_reader_resolve_address(r, proc, etl_event_stack_frame(ev, i), &off);
		sum += img ? strlen(img) + off : 1;
	}
	if (etl_reader_decode(r, ev, &d) != ETL_OK || !d)
		return sum;
	sum += strlen(etl_decoded_name(d));
	n = etl_decoded_property_count(d);
	for (i = 0; i < n; i++)
		sum += touch_property(etl_decoded_property_at(d, i), 0);
	return sum;
}

/* touch: 0 header fields only; 1 also decode every payload and format every property; 2 the
 * stacks; 3 what JSON Lines asks of the library (touch_event). */
static unsigned long long iterate(const char *path, int touch)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned long long n = 0, sum = 0;
	int st;

	if (etl_reader_open_path(r, path) != ETL_OK) {
		fprintf(stderr, "etlbench: %s: %s\n", path, etl_error_message(etl_reader_error(r)));
		exit(1);
	}
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			if (etl_error_is_fatal(etl_reader_error(r)))
				break;
			continue;
		}
		n++;
		sum += etl_event_timestamp_raw(ev) + etl_event_pid(ev);
		if (touch == 3) {
			sum += touch_event(r, ev);
		} else if (touch == 2) {
			size_t i, depth = etl_event_stack_depth(ev);
			for (i = 0; i < depth; i++)
				sum += etl_event_stack_frame(ev, i);
		} else if (touch) {
			const struct etl_decoded *d;
			size_t i, np;
			if (etl_reader_decode(r, ev, &d) != ETL_OK || !d)
				continue;
			sum += strlen(etl_decoded_name(d));
			np = etl_decoded_property_count(d);
			for (i = 0; i < np; i++) {
				const char *t = etl_property_format(etl_decoded_property_at(d, i));
				sum += t ? (unsigned char)t[0] : 0;
			}
		}
	}
	etl_reader_free(r);
	if (sum == 42) /* keep the loop */
		fputc(' ', stderr);
	return n;
}

static unsigned long long w_headers(const char *path, const char *unused)
{
	(void)unused;
	return iterate(path, 0);
}

static unsigned long long w_stacks(const char *path, const char *unused)
{
	(void)unused;
	return iterate(path, 2);
}

static unsigned long long w_decode(const char *path, const char *unused)
{
	(void)unused;
	return iterate(path, 1);
}

static unsigned long long w_calls(const char *path, const char *unused)
{
	(void)unused;
	return iterate(path, 3);
}

/* Runs etldump with ARG, ARG2 when not NULL (and --quiet) on PATH, its output to OUT (NULL:
 * /dev/null). */
static unsigned long long run_etldump_to(const char *path, const char *etldump, const char *arg,
					 const char *arg2, const char *out)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : open("/dev/null", O_WRONLY);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		if (arg2)
			execlp(etldump, etldump, "--format=jsonl", "--quiet", arg, arg2, path, (char *)NULL);
		else
			execlp(etldump, etldump, "--format=jsonl", "--quiet", arg, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
		exit(1);
	return 0;
}

static unsigned long long w_jsonl(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, "--threads=1", NULL, NULL);
}

static unsigned long long w_jsonl2(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, "--threads=2", NULL, NULL);
}

static unsigned long long w_jsonl_p(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, bench_sel.provider[0] ? bench_sel.provider : "--threads=1", "--threads=1",
			      NULL);
}

static unsigned long long w_jsonl_win(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, bench_sel.since, bench_sel.until, NULL);
}

static unsigned long long w_stats(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, "--stats", NULL, NULL);
}

static unsigned long long w_stats2(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, "--stats", "--threads=2", NULL);
}

static unsigned long long w_tables(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, "--report", NULL, NULL);
}

static unsigned long long w_html(const char *path, const char *etldump)
{
	return run_etldump_to(path, etldump, "--report=html", NULL, NULL);
}

static const char *bench_dir = "/tmp";

/* The size of etldump's JSON Lines for PATH (one untimed run into a file). */
static unsigned long long jsonl_bytes(const char *path, const char *etldump)
{
	char out[4096];
	struct stat sb;
	unsigned long long n = 0;

	snprintf(out, sizeof(out), "%s/etlbench-%ld.jsonl", bench_dir, (long)getpid());
	run_etldump_to(path, etldump, "--threads=1", NULL, out);
	if (stat(out, &sb) == 0)
		n = (unsigned long long)sb.st_size;
	unlink(out);
	return n;
}

/* The decompressor alone over every compressed buffer of the file (read into
 * memory first); returns the decompressed bytes. */
static unsigned long long w_xpress(const char *path, const char *unused)
{
	/* The file is read once per process; repeats (best of N) time decompression only. */
	static uint8_t *f, *out;
	static off_t fsize;
	unsigned long long total = 0;
	uint64_t off = 0;

	(void)unused;
	if (!f) {
		struct stat sb;
		int fd = open(path, O_RDONLY);
		if (fd < 0 || fstat(fd, &sb) != 0)
			exit(1);
		fsize = sb.st_size;
		f = malloc((size_t)fsize);
		out = malloc(64u << 20);
		if (!f || !out || read(fd, f, (size_t)fsize) != fsize)
			exit(1);
		close(fd);
	}
	while (off + 0x48 <= (uint64_t)fsize) {
		uint32_t size = etl_le32(f + off), fill = etl_le32(f + off + 0x30);
		uint16_t flags = etl_le16(f + off + 0x34);
		size_t produced, err_at;
		const char *why;

		if (size < 0x48 || size > fsize - (off_t)off)
			break;
		if ((flags & 0x40) && fill > 0x48 && fill <= (64u << 20)) {
			if (etl__xpress_decompress(f + off + 0x48, size - 0x48, out, fill - 0x48, &produced,
						   &err_at, &why) == 0)
				total += produced;
		}
		off += size;
	}
	return total;
}

/* ---- inputs ---- */

static int make_synthetic(const char *path, int compress, unsigned long long bytes)
{
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *unused;
	size_t len;
	FILE *f = fopen(path, "w+b");
	unsigned long long records;
	int st;

	if (!f)
		return -1;
	etlw_default_opts(&o);
	o.ncpu = 4;
	o.buffer_size = 65536;
	o.compress = compress;
	o.header_extra = 1;
	/* the mixed scenario averages about 84 bytes a record uncompressed */
	records = bytes / 84;
	if (records > 0xFFFFFFFFull / 4)
		records = 0xFFFFFFFFull / 4;
	w = etlw_new_file(&o, f);
	st = w ? scen_write_mixed(w, &o, (unsigned)records) : -1;
	if (st == 0)
		st = etlw_finish(w, &unused, &len);
	etlw_free(w);
	if (fclose(f) != 0)
		st = -1;
	return st;
}

static unsigned long long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (unsigned long long)sb.st_size : 0;
}

/* OUT: bytes of output the workload wrote (0: none). */
static void row(const char *workload, const char *what, unsigned long long bytes, struct result r,
		double base_mbs, unsigned long long events, unsigned long long out)
{
	double mbs = r.seconds > 0 ? (double)bytes / 1e6 / r.seconds : 0;
	char outs[32] = "";

	if (!r.ok) {
		printf("| %-44s | %-8s | failed |  |  |  |  |\n", workload, what);
		return;
	}
	if (out && r.seconds > 0)
		snprintf(outs, sizeof(outs), "%.0f", (double)out / 1e6 / r.seconds);
	printf("| %-44s | %-8s | %9.0f | %9.2f | %6.3f | %9s | %7.1f |\n", workload, what, mbs,
	       events && r.seconds > 0 ? (double)events / 1e6 / r.seconds : 0.0,
	       base_mbs > 0 ? mbs / base_mbs : 0.0, outs, (double)r.maxrss_kb / 1024.0);
}

/* The better of two measurements of one workload: the shorter time, the larger peak, failed if
 * either failed. */
static struct result better(struct result a, struct result b)
{
	if (!a.ok || !b.ok) {
		a.ok = 0;
		return a;
	}
	if (b.seconds < a.seconds) {
		a.seconds = b.seconds;
		a.events = b.events;
	}
	if (b.maxrss_kb > a.maxrss_kb)
		a.maxrss_kb = b.maxrss_kb;
	return a;
}

static int rounds = 1; /* --rounds */


/* The rows of a file, in the order they run and print (W_STATS to W_JSONL2 run etldump). */
enum { W_READ, W_HEADERS, W_STACKS, W_DECODE, W_CALLS, W_STATS, W_STATS2, W_TABLES, W_HTML, W_JSONL, W_JSONL2,
       W_JSONL_P, W_JSONL_WIN, W_XPRESS, NWORK };

static void bench_file(const char *label, const char *path, const char *etldump, int repeat)
{
	static const work_fn fns[NWORK] = { w_read, w_headers, w_stacks, w_decode, w_calls,
					    w_stats, w_stats2, w_tables, w_html, w_jsonl, w_jsonl2, w_jsonl_p,
					    w_jsonl_win, w_xpress };
	unsigned long long bytes = file_size(path);
	int few = repeat > 3 ? 3 : repeat, k, w;
	struct result res[NWORK], x;
	unsigned long long out, events;
	double base_mbs;

	bench_pick_selection(path);
	for (k = 0; k < rounds; k++) {
		for (w = 0; w < NWORK; w++) {
			int n = w == W_XPRESS ? repeat + 1 : w >= W_STATS && w <= W_JSONL_WIN ? few : repeat;
			struct result r = in_child(fns[w], path, etldump, n);
			res[w] = k ? better(res[w], r) : r;
		}
	}
	out = jsonl_bytes(path, etldump);
	base_mbs = res[W_READ].seconds > 0 ? (double)bytes / 1e6 / res[W_READ].seconds : 0;
	events = res[W_HEADERS].events;
	x = res[W_XPRESS];
	row(label, "read", bytes, res[W_READ], base_mbs, 0, 0);
	row(label, "headers", bytes, res[W_HEADERS], base_mbs, events, 0);
	row(label, "stacks", bytes, res[W_STACKS], base_mbs, events, 0);
	row(label, "decode", bytes, res[W_DECODE], base_mbs, events, 0);
	row(label, "calls", bytes, res[W_CALLS], base_mbs, events, out);
	row(label, "stats", bytes, res[W_STATS], base_mbs, events, 0);
	row(label, "stats-j2", bytes, res[W_STATS2], base_mbs, events, 0);
	row(label, "tables", bytes, res[W_TABLES], base_mbs, events, 0);
	row(label, "html", bytes, res[W_HTML], base_mbs, events, 0);
	row(label, "jsonl", bytes, res[W_JSONL], base_mbs, events, out);
	row(label, "jsonl-j2", bytes, res[W_JSONL2], base_mbs, events, out);
	row(label, "jsonl-p", bytes, res[W_JSONL_P], base_mbs, events, 0);
	row(label, "jsonl-win", bytes, res[W_JSONL_WIN], base_mbs, events, 0);
	if (res[W_JSONL].ok && res[W_JSONL].seconds > 0 && res[W_JSONL_P].ok && res[W_JSONL_WIN].ok)
		bench_filter_ratio(label, res[W_JSONL_P].seconds / res[W_JSONL].seconds,
				   res[W_JSONL_WIN].seconds / res[W_JSONL].seconds);
	if (x.ok && x.events) {
		double mbs = x.seconds > 0 ? (double)x.events / 1e6 / x.seconds : 0;
		printf("| %-44s | %-8s | %9.0f | %9s | %6s | %9s | %7.1f |\n", label, "xpress*", mbs, "",
		       "", "", (double)x.maxrss_kb / 1024.0);
	}
}

/* ---- a folder of many manifests ---- */

/* Writes N bytes of TEXT to DIR/NAME; 0 or -1. */
static int write_file(const char *dir, const char *name, const char *text, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%.3000s/%.511s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	if (fwrite(text, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* Copies every UTF-8 manifest of SRC into DST COPIES times, copy k > 0 with
 * the first word of each guid="{...}" changed, so that every copy declares
 * providers of its own and copy 0 keeps the real ones.  Returns the count. */
static int make_manifest_folder(const char *src, const char *dst, int copies)
{
	DIR *d = opendir(src);
	struct dirent *de;
	int made = 0, j = 0;

	if (!d || (mkdir(dst, 0700) != 0 && errno != EEXIST)) {
		if (d)
			closedir(d);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		char in[4096], name[512];
		FILE *f;
		char *text;
		size_t n = 0;
		int k;

		if (de->d_name[0] == '.')
			continue;
		snprintf(in, sizeof(in), "%.3000s/%.255s", src, de->d_name);
		f = fopen(in, "rb");
		if (!f)
			continue;
		text = malloc(4u << 20);
		if (text)
			n = fread(text, 1, (4u << 20) - 1, f);
		fclose(f);
		if (!text || n < 2 || (uint8_t)text[0] == 0xFF || (uint8_t)text[0] == 0xFE) {
			free(text); /* UTF-16 manifests are left out */
			continue;
		}
		text[n] = 0;
		j++;
		for (k = 0; k < copies; k++) {
			char *p = text;
			while (k > 0 && (p = strstr(p, "guid=\"{")) != NULL) {
				char word[9];
				snprintf(word, sizeof(word), "%04x%04x", (unsigned)j & 0xFFFF, (unsigned)k & 0xFFFF);
				memcpy(p + 7, word, 8);
				p += 15;
			}
			snprintf(name, sizeof(name), "%04d_%.400s", k, de->d_name);
			made += write_file(dst, name, text, n) == 0;
		}
		free(text);
	}
	closedir(d);
	return made;
}

static const char *manifest_dir;

/* Decodes PATH with the manifest folder (when set) added to the reader;
 * returns how many events were decoded from a manifest. */
static unsigned long long w_decode_with_manifests(const char *path, const char *unused)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned long long n = 0;
	int st;

	(void)unused;
	if (manifest_dir && etl_reader_add_manifest_path(r, manifest_dir) != ETL_OK)
		exit(1);
	if (etl_reader_open_path(r, path) != ETL_OK)
		exit(1);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		const struct etl_decoded *d;
		if (st != ETL_OK) {
			if (etl_error_is_fatal(etl_reader_error(r)))
				break;
			continue;
		}
		if (etl_reader_decode(r, ev, &d) == ETL_OK && d &&
		    etl_decoded_source(d) == ETL_DECODER_MANIFEST)
			n++;
	}
	etl_reader_free(r);
	return n;
}

static void remove_folder(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)) != NULL) {
		char path[4096];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%.3000s/%.255s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void bench_manifests(const char *corpus, const char *dir, int repeat, int keep)
{
	char src[4096], dst[4096], trace[4096];
	struct result without, with;
	int made;

	snprintf(src, sizeof(src), "%s/manifests", corpus);
	snprintf(dst, sizeof(dst), "%s/etlbench-manifests", dir);
	snprintf(trace, sizeof(trace), "%s/etl/Tx_HTTP_Server.etl", corpus);
	made = make_manifest_folder(src, dst, 94);
	if (made > 0 && file_size(trace) > 0) {
		manifest_dir = NULL;
		without = in_child(w_decode_with_manifests, trace, NULL, repeat);
		manifest_dir = dst;
		with = in_child(w_decode_with_manifests, trace, NULL, repeat);
		printf("\nManifest folder: %d manifests in %s, added to a reader that decodes\n"
		       "Tx_HTTP_Server.etl: %.3f s with the folder (%llu events decoded from manifests),\n"
		       "%.3f s without it (%llu); peak %.1f MiB with, %.1f MiB without.\n",
		       made, dst, with.seconds, with.events, without.seconds, without.events,
		       (double)with.maxrss_kb / 1024.0, (double)without.maxrss_kb / 1024.0);
	}
	if (!keep)
		remove_folder(dst);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t bench_corpus_traces(const char *corpus, unsigned long long min_bytes, char **paths, size_t max)
{
	char dir[4096];
	size_t n = 0;
	DIR *d;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/etl", corpus);
	if (!(d = opendir(dir)))
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		char path[4096];
		snprintf(path, sizeof(path), "%.3000s/%.255s", dir, de->d_name);
		if (de->d_name[0] != '.' && file_size(path) >= min_bytes && (paths[n] = strdup(path)))
			n++;
	}
	closedir(d);
	qsort(paths, n, sizeof(paths[0]), by_name);
	return n;
}

/* Every trace of CORPUS/etl of 1 MB or more, in name order. */
static void bench_corpus(const char *corpus, const char *etldump, int repeat)
{
	char *paths[256];
	size_t n = bench_corpus_traces(corpus, 1000000, paths, 256), k;

	for (k = 0; k < n; k++) {
		bench_file(strrchr(paths[k], '/') + 1, paths[k], etldump, repeat);
		free(paths[k]);
	}
}

/* Whether `etldump --version` runs (a path, or a name looked up in PATH); says so when not. */
static int etldump_runs(const char *etldump)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execlp(etldump, etldump, "--version", (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	fprintf(stderr, "etlbench: cannot run %s (give its path with --etldump PATH)\n", etldump);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long size_mb = 256;
	const char *dir = "/tmp", *corpus = NULL, *etldump = "etldump", *against = NULL, *baseline = NULL;
	char plain[4096], packed[4096];
	int repeat = 3, i, keep = 0, scaling = 0, instructions = 0, guard = 0, record = 0, grown = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
			size_mb = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc)
			corpus = argv[++i];
		else if (strcmp(argv[i], "--etldump") == 0 && i + 1 < argc)
			etldump = argv[++i];
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--keep") == 0)
			keep = 1;
		else if (strcmp(argv[i], "--scaling") == 0)
			scaling = 1;
		else if (strcmp(argv[i], "--slices") == 0)
			scaling = 2;
		else if (strcmp(argv[i], "--instructions") == 0)
			instructions = 1;
		else if (strcmp(argv[i], "--against") == 0 && i + 1 < argc)
			against = argv[++i];
		else if (strcmp(argv[i], "--baseline") == 0 && i + 1 < argc)
			baseline = argv[++i];
		else if (strcmp(argv[i], "--guard") == 0)
			guard = 1;
		else if (strcmp(argv[i], "--record") == 0)
			record = 1;
		else if (strcmp(argv[i], "--symbols-only") == 0) {
			if (!etldump_runs(etldump))
				return 1;
			bench_symbols(dir, etldump, repeat, keep);
	if (corpus)
		bench_symbols_corpus(corpus, etldump, repeat);
			return 0;
		}
		else if (strcmp(argv[i], "--builtin") == 0) {
			if (!corpus || !etldump_runs(etldump)) {
				fprintf(stderr, "etlbench --builtin needs --corpus DIR and etldump\n");
				return 1;
			}
			bench_builtin(corpus, etldump, repeat);
			return 0;
		}
		else if (strcmp(argv[i], "--peak") == 0 && i + 1 < argc) {
			/* the headers workload over one file, and its peak resident memory */
			struct result h = in_child(w_headers, argv[i + 1], etldump, 1);
			printf("%s: %llu events in %.3f s, peak %.1f MiB\n", argv[i + 1], h.events, h.seconds,
			       (double)h.maxrss_kb / 1024.0);
			return h.ok ? 0 : 1;
		}
		else {
			fprintf(stderr, "usage: etlbench [--size MB] [--dir DIR] [--corpus DIR] [--etldump PATH] [--repeat N] [--rounds R] [--keep]\n"
					"       etlbench --peak FILE\n"
					"       etlbench [--size MB] [--corpus DIR] [--etldump PATH] [--repeat N] --scaling [--instructions]\n"
					"       etlbench [--size MB] [--dir DIR] [--repeat N] [--keep] --slices\n"
					"       etlbench [--dir DIR] [--etldump PATH] [--repeat N] --symbols-only\n"
					"       etlbench --corpus DIR [--etldump PATH] [--repeat N] --builtin\n"
					"       etlbench --against OLD_ETLDUMP --corpus DIR [--etldump PATH] [--repeat N] [--instructions]\n"
					"       etlbench --guard --corpus DIR --baseline FILE [--etldump PATH] [--record]\n"
					"       (a run with --baseline FILE ends with the guard)\n");
			return 2;
		}
	}
	if (instructions && !against)
		scaling = 1;
	if (against || guard) {
		if (!corpus || !etldump_runs(etldump) || (against && !etldump_runs(against)) || (guard && !baseline)) {
			fprintf(stderr, "etlbench: --against and --guard need --corpus DIR (and --guard --baseline FILE)\n");
			return 2;
		}
		if (against)
			bench_against(corpus, against, etldump, repeat < 1 ? 1 : repeat, instructions);
		return against ? 0 : bench_guard(corpus, etldump, baseline, record);
	}
	if (repeat < 1)
		repeat = 1;
	if (rounds < 1)
		rounds = 1;
	if (scaling != 2 && !etldump_runs(etldump))
		return 1;
	bench_dir = dir;
	snprintf(plain, sizeof(plain), "%s/etlbench-mixed-%llu.etl", dir, size_mb);
	snprintf(packed, sizeof(packed), "%s/etlbench-mixed-%llu-xpress.etl", dir, size_mb);
	if (file_size(plain) == 0 && make_synthetic(plain, 0, size_mb << 20) != 0) {
		fprintf(stderr, "etlbench: cannot write %s\n", plain);
		return 1;
	}
	if (file_size(packed) == 0 && make_synthetic(packed, 1, size_mb << 20) != 0) {
		fprintf(stderr, "etlbench: cannot write %s\n", packed);
		return 1;
	}
	if (scaling == 2) {
		bench_slices(plain, repeat);
		if (!keep)
			unlink(plain);
		return 0;
	}
	if (scaling) {
		const char *synthetic[2] = { plain, packed };
		printf("etlbench --scaling: libetl %s, %s\n\n", etl_version_string(),
		       instructions ? "instructions counted by callgrind" : "CPU time, least of the runs");
		bench_scaling(corpus, synthetic, 2, etldump, repeat, instructions);
		if (!keep) {
			unlink(plain);
			unlink(packed);
		}
		return 0;
	}
	if (rounds > 1)
		printf("etlbench: libetl %s, best of %d rounds of %d runs (etldump's rows: of %d), files in the page cache\n\n",
		       etl_version_string(), rounds, repeat, repeat > 3 ? 3 : repeat);
	else
		printf("etlbench: libetl %s, best of %d runs, files in the page cache\n\n", etl_version_string(), repeat);
	printf("| %-44s | what     |      MB/s | Mevents/s | ratio  | out MB/s  | peak MiB |\n", "workload");
	printf("|----------------------------------------------|----------|-----------|-----------|--------|-----------|---------|\n");
	{
		char label[128];
		snprintf(label, sizeof(label), "synthetic mixed %llu MB", (unsigned long long)(file_size(plain) >> 20));
		bench_file(label, plain, etldump, repeat);
		snprintf(label, sizeof(label), "synthetic mixed xpress %llu MB", (unsigned long long)(file_size(packed) >> 20));
		bench_file(label, packed, etldump, repeat);
	}
	if (corpus) {
		bench_corpus(corpus, etldump, repeat);
		bench_print_filter_ratios();
		bench_manifests(corpus, dir, repeat, keep);
	}
	bench_symbols(dir, etldump, repeat, keep);
	if (corpus)
		bench_symbols_corpus(corpus, etldump, repeat);
	printf("\nratio: MB/s of trace bytes divided by the read row of the same file; out MB/s: JSON\n"
	       "written per second.  stats: etldump --stats (decodes every event); -j2: --threads=2;\n"
	       "tables: etldump --report (every analysis table, one pass); html: --report=html.\n"
	       "xpress*: the decompressor alone, MB/s of decompressed output; peak MiB is the\n"
	       "process's maximum resident size (for xpress*, the file is held in memory).\n");
	if (!keep) {
		unlink(plain);
		unlink(packed);
	}
	if (corpus && baseline)
		grown = bench_guard(corpus, etldump, baseline, 0);
	return grown;
}
