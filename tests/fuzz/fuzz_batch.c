/*
 * fuzz_batch - etldump's batch path (-O DIR) end to end: the input becomes two
 * trace files with the same base name, etldump writes one output per input
 * into a folder that may hold a symbolic link where an output goes, and the
 * target checks what the tool promises (docs/ROBUSTNESS.md):
 *
 *   - the inputs and the file behind the link are unchanged;
 *   - nothing is written outside the output folder, and in it only the
 *     outputs the naming rule gives (a.etl.EXT, a.etl-2.EXT);
 *   - the exit status is 0, 1 or 3 (never usage, never out of memory);
 *   - text and JSON Lines outputs hold no control byte but the newline, and
 *     JSON Lines is UTF-8.
 *
 * The last byte of the input chooses the format (bits 0-2), --force (bit 3),
 * the link (bit 4) and where the second input starts (bits 5-7: eighths of
 * the input, rounded down to a 4 KiB buffer boundary but for 7), so that the
 * committed fixtures replay as they are: the whole file is the first input, a
 * tail of it the second.  Any broken promise aborts.
 *
 * SPDX-License-Identifier: MIT
 */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int etldump_main(int argc, char **argv);

static const char *const formats[] = { "text", "jsonl", "csv", "xml", "chrome" };
static const char *const exts[] = { "txt", "jsonl", "csv", "xml", "json" };
static const char victim_text[] = "not to be written";

static void same_file(const char *rel, const void *p, size_t n)
{
	size_t m;
	uint8_t *b = fuzz_slurp(rel, &m);

	if (!b || m != n || (n && memcmp(b, p, n) != 0))
		abort(); /* an input (or the file behind the link) was written */
	free(b);
}

/* Every entry of dir is one of names[]. */
static void only(const char *rel, const char *const *names, int nn)
{
	char path[256];
	struct dirent *e;
	DIR *d;
	int i, ok;

	fuzz_path(path, sizeof(path), rel);
	d = opendir(path);
	if (!d)
		abort();
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (ok = 0, i = 0; i < nn && !ok; i++)
			ok = !strcmp(e->d_name, names[i]);
		if (!ok)
			abort(); /* a file the tool had no business making */
	}
	closedir(d);
}

/* Whether b[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates). */
static int utf8_ok(const uint8_t *b, size_t n)
{
	size_t i = 0, k, j;
	uint32_t cp;

	while (i < n) {
		if (b[i] < 0x80) {
			i++;
			continue;
		}
		k = b[i] >= 0xf0 && b[i] <= 0xf4 ? 4 : b[i] >= 0xe0 && b[i] <= 0xef ? 3 : b[i] >= 0xc2 && b[i] <= 0xdf ? 2 : 0;
		if (!k || i + k > n)
			return 0;
		cp = b[i] & (0x7fu >> k);
		for (j = 1; j < k; j++) {
			if ((b[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (b[i + j] & 0x3fu);
		}
		if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += k;
	}
	return 1;
}

/* kind: 0 unchecked, 1 text (no control byte but the newline), 2 JSON Lines (that, and UTF-8) */
static void clean_output(const char *rel, int kind)
{
	char path[256];
	size_t n, i;
	uint8_t *b = fuzz_slurp(rel, &n);

	if (!b)
		return;
	for (i = 0; kind && i < n; i++)
		if (b[i] < 0x20 && b[i] != '\n')
			abort(); /* a raw control byte reached the output */
	if (kind == 2 && !utf8_ok(b, n))
		abort(); /* JSON text must be UTF-8 */
	free(b);
	fuzz_path(path, sizeof(path), rel);
	unlink(path);
}

static void remove_all(void)
{
	static const char *const rels[] = { "in/a.etl", "in2/a.etl", "victim", "in", "in2", "out", "" };

	fuzz_remove(rels, sizeof(rels) / sizeof(rels[0]));
}

static void setup(void)
{
	static const char *const dirs[] = { "in", "in2", "out" };
	char path[256];
	unsigned i;

	if (!fuzz_root_make("batch"))
		return;
	for (i = 0; i < 3; i++) {
		fuzz_path(path, sizeof(path), dirs[i]);
		if (mkdir(path, 0700) != 0)
			abort();
	}
	fuzz_put("victim", victim_text, sizeof(victim_text) - 1);
	atexit(remove_all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t ctl = size ? data[size - 1] : 0;
	int fmt = (ctl & 7) % 5, force = ctl >> 3 & 1, link_it = ctl >> 4 & 1, code, saved;
	size_t split = ctl >> 5 == 7 ? size - size / 8 : size * (ctl >> 5) / 8 & ~(size_t)4095; /* at a buffer, mostly */
	char outdir[256], a[256], b[256], name1[32], name2[32], lnk[320], vpath[256];
	char *argv[10];
	int argc = 0;
	const char *const root_names[] = { "in", "in2", "out", "victim" };
	const char *const out_names[] = { name1, name2 };

	setup();
	fuzz_put("in/a.etl", data, size);
	fuzz_put("in2/a.etl", data + split, size - split);
	snprintf(name1, sizeof(name1), "a.etl.%s", exts[fmt]);
	snprintf(name2, sizeof(name2), "a.etl-2.%s", exts[fmt]);
	fuzz_path(outdir, sizeof(outdir), "out");
	fuzz_path(a, sizeof(a), "in/a.etl");
	fuzz_path(b, sizeof(b), "in2/a.etl");
	fuzz_path(vpath, sizeof(vpath), "victim");
	snprintf(lnk, sizeof(lnk), "%s/%s", outdir, link_it ? name1 : name2);
	if (link_it && symlink(vpath, lnk) != 0)
		abort();
	argv[argc++] = (char *)"etldump";
	argv[argc++] = (char *)"-q";
	argv[argc++] = (char *)"-f";
	argv[argc++] = (char *)formats[fmt];
	if (force)
		argv[argc++] = (char *)"--force";
	argv[argc++] = (char *)"-O";
	argv[argc++] = outdir;
	argv[argc++] = a;
	argv[argc++] = b;
	argv[argc] = NULL;

	fflush(stdout);
	saved = dup(STDOUT_FILENO); /* -O points standard output at each output in turn */
	optind = 0;                 /* glibc: start getopt afresh */
	code = etldump_main(argc, argv);
	fflush(stdout);
	if (saved < 0 || dup2(saved, STDOUT_FILENO) < 0)
		abort();
	close(saved);
	clearerr(stdout);

	if (code != 0 && code != 1 && code != 3)
		abort();
	same_file("in/a.etl", data, size);
	same_file("in2/a.etl", data + split, size - split);
	same_file("victim", victim_text, sizeof(victim_text) - 1);
	only("", root_names, 4);
	only("out", out_names, 2);
	if (link_it)
		unlink(lnk);
	clean_output("out/a.etl.txt", 1);
	clean_output("out/a.etl-2.txt", 1);
	clean_output("out/a.etl.jsonl", 2);
	clean_output("out/a.etl-2.jsonl", 2);
	clean_output(fmt == 2 ? "out/a.etl.csv" : fmt == 3 ? "out/a.etl.xml" : "out/a.etl.json", 0);
	clean_output(fmt == 2 ? "out/a.etl-2.csv" : fmt == 3 ? "out/a.etl-2.xml" : "out/a.etl-2.json", 0);
	return 0;
}
