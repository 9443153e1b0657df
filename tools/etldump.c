/*
 * etldump - print the events of Windows ETW trace files (.etl).
 *
 * A thin tool: everything it prints comes through the public libetl API.
 * Data goes to stdout, diagnostics to stderr.  Exit codes: see --help and
 * docs/etldump.1.  etldump.h says where each part lives.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "etldump.h"
#include "out.h"
#include "render.h"
#include "writers/writer.h"

const char *progname = "etldump";

/* One input into its own output in the -O folder; its exit status. */
static int run_one_into(const char *input, const struct options *o)
{
	char path[4096];
	const char *base = strrchr(input, '/');
	const char *ext = o->info || o->stats || o->providers || o->processes ? o->writer->summary_ext : o->writer->ext;
	char *files[1];
	int code;

	base = base ? base + 1 : input;
	if (strcmp(input, "-") == 0)
		base = "stdin";
	snprintf(path, sizeof(path), "%s/%s.%s", o->outdir, base, ext);
	if (!freopen(path, "w", stdout)) {
		fprintf(stderr, "%s: %s: cannot create: %s\n", progname, path, strerror(errno));
		return EXIT_IO;
	}
	setvbuf(stdout, NULL, _IONBF, 0); /* out.c buffers */
	out_buf.failed = 0;
	files[0] = (char *)(uintptr_t)input;
	code = run_inputs(files, 1, o);
	out_flush();
	if ((code == EXIT_IO || code == EXIT_NOMEM) && fflush(stdout) == 0 && ftell(stdout) == 0)
		remove(path); /* the input could not be read: leave no empty output */
	if (code != EXIT_OK && !o->quiet)
		fprintf(stderr, "%s: %s: %s\n", progname, input,
			code == EXIT_DAMAGED ? "damaged (see above); output written" : "failed (see above)");
	if (fflush(stdout) == EOF && errno != EPIPE)
		code = worse(code, EXIT_IO);
	return code;
}

/* -O DIR: one output per input, named after it, in DIR (made if missing). */
static int run_outdir(char **inputs, int n, const struct options *o)
{
	int exit_code = EXIT_OK, problems = 0, i;

	if (mkdir(o->outdir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "%s: %s: cannot create the output directory: %s\n", progname, o->outdir,
			strerror(errno));
		return EXIT_IO;
	}
	for (i = 0; i < n; i++) {
		int code = run_one_into(inputs[i], o);
		if (code != EXIT_OK)
			problems++;
		exit_code = worse(exit_code, code);
	}
	if (!o->quiet && n > 1)
		fprintf(stderr, "%s: %d inputs, %d with problems\n", progname, n, problems);
	return exit_code;
}

int main(int argc, char **argv)
{
	static struct options o;
	int first, exit_code = parse_options(argc, argv, &o, &first);

	if (exit_code >= 0)
		return exit_code;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IONBF, 0); /* out.c buffers */
	render_no_maps = o.no_maps;
	if (o.outdir)
		return run_outdir(argv + first, argc - first, &o);
	if (o.output && !freopen(o.output, "w", stdout)) {
		fprintf(stderr, "%s: %s: cannot create: %s\n", progname, o.output, strerror(errno));
		return EXIT_IO;
	}
	if (o.output)
		setvbuf(stdout, NULL, _IONBF, 0);
	exit_code = run_inputs(argv + first, argc - first, &o);
	out_flush();
	if (fflush(stdout) == EOF || ferror(stdout) || out_buf.failed) {
		if (errno == EPIPE)
			return exit_code; /* the reader went away: not an error of ours */
		fprintf(stderr, "%s: cannot write output: %s\n", progname, strerror(errno));
		return worse(exit_code, EXIT_IO);
	}
	return exit_code;
}
