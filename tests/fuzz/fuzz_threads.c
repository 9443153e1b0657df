/*
 * fuzz_threads - etldump's promise that --threads changes nothing but the
 * speed (etldump.1, --threads): the input is written to a file and etldump
 * runs over it twice, with one thread and with two or three, and the two
 * runs must give the same exit status, the same bytes on the output and the
 * same diagnostics.  Damaged and crafted inputs are where the two paths
 * (one reader that decodes, or one that copies events to workers that
 * decode) are most likely to part: a fault in the middle of a batch, state
 * records the workers learn from copies, summaries merged from workers.
 *
 * The last byte of the input chooses: bits 0-2 the output (text, jsonl, csv,
 * xml, chrome, --stats, --providers, or text in file order), bit 3 three
 * threads instead of two, bit 4 --derive, bit 5 --raw, bit 6 a second input
 * (the input's second half, from a 4 KiB boundary) merged with the first,
 * bit 7 filters that the workers apply with what they learnt of the trace
 * (process names, decoded fields).  Bit 0 of the byte before it sets
 * ETLDUMP_SLICES=3 for the threaded run: its workers read time slices of the
 * input (slicepool.c) wherever a plan of them gives a whole reading's order,
 * the batches of one reader where not.  Any difference aborts.
 *
 * SPDX-License-Identifier: MIT
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_files.h"

/* etldump's standard error goes to a file while it runs: a sanitizer's report must not go with
 * it (the file is the run's, and is compared, not shown) */
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_SANITIZED 1
#endif
#endif
#ifdef FUZZ_SANITIZED
#include <sanitizer/common_interface_defs.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int etldump_main(int argc, char **argv);

/* The bytes of the file rel (malloc'd, *n its size; an empty block when there is none). */
static uint8_t *contents(const char *rel, size_t *n)
{
	uint8_t *b = fuzz_slurp(rel, n);

	if (!b && !(*n = 0, b = malloc(1)))
		abort();
	return b;
}

static void remove_all(void)
{
	static const char *const rels[] = { "a.etl", "b.etl", "out", "err", "" };

	fuzz_remove(rels, sizeof(rels) / sizeof(rels[0]));
}

/* Runs etldump with args[0, nargs) and then --threads=threads; its exit status, standard output
 * (through -o) and standard error in *out and *err (malloc'd). */
static int run(char **args, int nargs, const char *threads, uint8_t **out, size_t *nout, uint8_t **err,
	       size_t *nerr)
{
	char outpath[256], errpath[256], thr[32];
	char *argv[24];
	int argc = 0, i, code, saved, saved_out, fd;

	fuzz_path(outpath, sizeof(outpath), "out");
	fuzz_path(errpath, sizeof(errpath), "err");
	snprintf(thr, sizeof(thr), "--threads=%s", threads);
	argv[argc++] = (char *)"etldump";
	argv[argc++] = (char *)"-o";
	argv[argc++] = outpath;
	argv[argc++] = thr;
	for (i = 0; i < nargs; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	saved_out = dup(STDOUT_FILENO); /* -o points standard output at the file */
	saved = dup(STDERR_FILENO);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (saved_out < 0 || saved < 0 || fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		abort();
	close(fd);
	optind = 0; /* glibc: start getopt afresh */
	code = etldump_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	if (dup2(saved_out, STDOUT_FILENO) < 0 || dup2(saved, STDERR_FILENO) < 0)
		abort();
	close(saved_out);
	close(saved);
	clearerr(stdout);
	*out = contents("out", nout);
	*err = contents("err", nerr);
	remove(outpath);
	return code;
}

static int same(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const outputs[] = { "--format=text", "--format=jsonl", "--format=csv", "--format=xml",
					       "--format=chrome", "--stats", "--providers", "--order=file" };
	uint8_t ctl = size ? data[size - 1] : 0;
	int sliced = size >= 2 && (data[size - 2] & 1);
	size_t half = size / 2 & ~(size_t)4095, n1, n2, e1, e2;
	char a[256], b[256];
	char *args[12];
	uint8_t *o1, *o2, *x1, *x2;
	int nargs = 0, c1, c2;

	if (fuzz_root_make("threads")) {
		atexit(remove_all);
#ifdef FUZZ_SANITIZED
		__sanitizer_set_report_fd((void *)(intptr_t)dup(STDERR_FILENO));
#endif
	}
	fuzz_put("a.etl", data, size);
	fuzz_path(a, sizeof(a), "a.etl");
	args[nargs++] = (char *)outputs[ctl & 7];
	if (ctl & 16)
		args[nargs++] = (char *)"--derive";
	if (ctl & 32)
		args[nargs++] = (char *)"--raw";
	if (ctl & 128) {
		args[nargs++] = (char *)"--process=*e*";
		args[nargs++] = (char *)"--where=not ProcessID=4";
	}
	args[nargs++] = a;
	if (ctl & 64) {
		fuzz_put("b.etl", data + half, size - half);
		fuzz_path(b, sizeof(b), "b.etl");
		args[nargs++] = b;
	}

	c1 = run(args, nargs, "1", &o1, &n1, &x1, &e1);
	if (sliced)
		setenv("ETLDUMP_SLICES", "3", 1);
	c2 = run(args, nargs, ctl & 8 ? "3" : "2", &o2, &n2, &x2, &e2);
	unsetenv("ETLDUMP_SLICES");
	if (c1 != c2 || !same(o1, n1, o2, n2) || !same(x1, e1, x2, e2)) {
		fprintf(stderr, "fuzz_threads: %s differs with --threads=%s%s (%s): exit %d/%d, output %zu/%zu bytes, "
				"diagnostics %zu/%zu bytes\n",
			outputs[ctl & 7], ctl & 8 ? "3" : "2", sliced ? " in slices" : "",
			ctl & 64 ? "two inputs" : "one input", c1, c2, n1, n2, e1, e2);
		abort();
	}
	free(o1);
	free(o2);
	free(x1);
	free(x2);
	return 0;
}
