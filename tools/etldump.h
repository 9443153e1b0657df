/*
 * etldump.h - what the parts of etldump share.
 *
 *   etldump.c  main: options, outputs (-o, -O), one run per output
 *   options.c  the command line and --help
 *   run.c      one run: a reader, its events handled, the end or the summary
 *   pool.c     --threads: workers that decode and format batches in order
 *   slicepool.c  --threads over time slices: workers that read whole slices, written in turn
 *   handle.c   one event: filters, decoding, the writer or the summary
 *   setup.c    readers as the options ask: manifests, TMF files, inputs
 *   report.c   diagnostics and progress on stderr
 *   render.c   values, stacks and times as text and JSON
 *   summary.c  --stats, --providers, --processes and --info
 *   known.c    --providers with no input: the providers that decode
 *   tabout.c   --table and --tables; overview.c --report
 *   writers/   one file per output format behind struct writer
 *
 * The parts call one way: etldump.c -> run.c -> slicepool.c, pool.c -> handle.c, setup.c ->
 * writers/, summary.c, render.c -> report.c, out.c, diag.c.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_ETLDUMP_H
#define ETLDUMP_ETLDUMP_H

#include <stddef.h>
#include <stdint.h>

#include <etl.h>

#include "exit_codes.h"
#include "selection.h"

struct inputs_seen;

struct writer;

#define MAX_MANIFESTS 256

enum { REPORT_NONE, REPORT_TEXT, REPORT_HTML }; /* --report */

struct options {
	const struct writer *writer; /* the output format */
	enum etl_order order;
	int info;
	int quiet;
	int raw;             /* do not decode payloads */
	int all_payloads;    /* --payload: payload hex for decoded events too */
	int no_maps;         /* mapped values as numbers */
	int derive;          /* derived fields (ETL_OPTION_DERIVE) */
	int time_mode;       /* --time: enum time_mode (render.h) */
	int csv_columns;     /* --csv-fields=columns */
	int stats;           /* --stats */
	int providers;       /* --providers */
	int processes;       /* --processes */
	const char *output;  /* -o FILE */
	const char *outdir;  /* -O DIR */
	struct selection sel; /* the filter options (sel.filter: NULL for none) */
	uint64_t max_events; /* 0 = all */
	size_t max_payload;  /* bytes of payload hex shown in text, SIZE_MAX = all */
	unsigned threads;    /* --threads: decoding and formatting threads (1 = none) */
	int threads_auto;    /* --threads=0: one per processor, for inputs large enough */
	const char *manifests[MAX_MANIFESTS];
	size_t nmanifests;
	const char *tmf[MAX_MANIFESTS]; /* --tmf */
	size_t ntmf;
	struct etl_manifests *manifest_set; /* all of them, parsed once (load_manifests) */
	const char *symbols[MAX_MANIFESTS]; /* --symbols */
	size_t nsymbols;
	int no_symbols;      /* --no-symbols: frames as module!+offset only */
	int no_builtin;      /* --no-builtin-manifests */
	int list_providers;  /* --providers with no input: the providers known */
	int lines;           /* --lines: source lines of frames */
	int signatures;      /* --signatures: .NET methods' argument lists */
	const char *table;   /* --table=NAME: an analysis table instead of events */
	int list_tables;     /* --tables */
	int table_stacks;    /* --table-stacks: cpu-samples with their stacks */
	int report;          /* --report: a one-page summary (REPORT_TEXT), or the HTML page */
	int force;           /* --force: -O may overwrite files already there (never an input) */
	/* set per run: the file to write, made the standard output once the inputs are open (so
	 * that an input that cannot be read leaves no output); exclusive: a -O output */
	const char *out_path;
	int out_exclusive;
	const struct inputs_seen *inputs;
};

extern const char *progname;

/* options.c: parses the command line into o; -1 to go on, else the exit status (help, version,
 * usage errors).  *first_input is the index of the first input in argv. */
int parse_options(int argc, char **argv, struct options *o, int *first_input);

/* run.c: reads the inputs (merged) and writes what o asks for to stdout; the exit status. */
int run_inputs(char **files, int nfiles, const struct options *o);
/* known.c: prints the providers given and built in; the exit status */
int providers_known(const struct options *o);

#endif
