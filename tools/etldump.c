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
#include <unistd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "etldump.h"
#include "report.h"
#include "setup.h"
#include "out.h"
#include "outfiles.h"
#include "render.h"
#include "writers/writer.h"

const char *progname = "etldump";

/* One input into its own output (path) in the -O folder; its exit status. */
static int run_one_into(char *input, const char *path, const struct options *shared)
{
	struct options o = *shared;
	char nb[REPORT_SHOWN_MAX];
	int code;

	o.out_path = path;
	o.out_exclusive = 1;
	out_buf.failed = 0;
	out_buf.err = 0;
	code = run_inputs(&input, 1, &o);
	out_flush();
	if ((out_buf.failed || ferror(stdout)) && code != EXIT_USAGE) {
		/* a full disk, a quota: the output is cut, so it goes, and the run says so */
		int err = out_buf.err ? out_buf.err : EIO;
		fprintf(stderr, "%s: %s: cannot write: %s (the partial output is removed)\n", progname,
			report_shown(path, nb), strerror(err));
		if (unlink(path) != 0 && errno != ENOENT)
			fprintf(stderr, "%s: %s: cannot remove: %s\n", progname, report_shown(path, nb), strerror(errno));
		clearerr(stdout);
		code = exit_worse(code, EXIT_IO);
	}
	if (code != EXIT_OK && !o.quiet)
		fprintf(stderr, "%s: %s: %s\n", progname, report_shown(input, nb),
			code == EXIT_DAMAGED ? "damaged (see above); output written" : "failed (see above)");
	if (fflush(stdout) == EOF && errno != EPIPE)
		code = exit_worse(code, EXIT_IO);
	return code;
}

/* -O DIR: one output per input, named after it, in DIR (made if missing). */
static int run_outdir(char **inputs, int n, const struct options *o)
{
	int exit_code = EXIT_OK, problems = 0, i;
	char nb[REPORT_SHOWN_MAX];
	char **paths = NULL;

	if (mkdir(o->outdir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "%s: %s: cannot create the output directory: %s\n", progname, report_shown(o->outdir, nb),
			strerror(errno));
		return EXIT_IO;
	}
	exit_code = outdir_names(o, inputs, n, &paths);
	for (i = 0; paths && paths[n - 1] && i < n; i++) {
		int code = run_one_into(inputs[i], paths[i], o);
		if (code != EXIT_OK)
			problems++;
		exit_code = exit_worse(exit_code, code);
	}
	outdir_names_free(paths, n);
	if (!o->quiet && n > 1)
		fprintf(stderr, "%s: %d inputs, %d with problems\n", progname, n, problems);
	return exit_code;
}

/* The fuzz target of the batch path (tests/fuzz/fuzz_batch.c) builds this file
 * with ETLDUMP_MAIN=etldump_main and calls it as a function. */
#ifndef ETLDUMP_MAIN
#define ETLDUMP_MAIN main
#endif
int ETLDUMP_MAIN(int argc, char **argv);

int ETLDUMP_MAIN(int argc, char **argv)
{
	static struct options o;
	struct inputs_seen seen;
	int first, load_code = EXIT_OK, exit_code;

	out_thread_init();
	exit_code = parse_options(argc, argv, &o, &first);

	if (exit_code >= 0)
		return exit_code;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IONBF, 0); /* out.c buffers */
	render_no_maps = o.no_maps;
	render_time_mode = (enum time_mode)o.time_mode;
	render_frame_flags = o.lines ? ETL_FRAME_LINES : 0;
	render_signatures = o.signatures;
	if (inputs_note(&seen, argv + first, argc - first) != 0) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_NOMEM;
	}
	o.inputs = &seen;
	o.manifest_set = setup_manifests(&o, &load_code); /* once, for every input and thread */
	if (o.list_providers)
		exit_code = providers_known(&o);
	else if (o.outdir)
		exit_code = run_outdir(argv + first, argc - first, &o);
	else {
		o.out_path = o.output;
		exit_code = run_inputs(argv + first, argc - first, &o);
	}
	exit_code = exit_worse(exit_code, load_code);
	etl_manifests_free(o.manifest_set);
	selection_free(&o.sel);
	inputs_free(&seen);
	if (o.outdir)
		return exit_code;
	out_flush();
	if (fflush(stdout) == EOF || ferror(stdout) || out_buf.failed) {
		if (errno == EPIPE)
			return exit_code; /* the reader went away: not an error of ours */
		fprintf(stderr, "%s: cannot write output: %s\n", progname, strerror(errno));
		return exit_worse(exit_code, EXIT_IO);
	}
	return exit_code;
}
