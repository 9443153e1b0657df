/*
 * etldump.h - what the parts of etldump share.
 *
 *   etldump.c  main: options, outputs (-o, -O), one run per output
 *   options.c  the command line and --help
 *   run.c      one run: readers, filters, decoding, damage reports, progress
 *   pool.c     --threads: workers that decode and format batches in order
 *   render.c   values, stacks and times as text and JSON
 *   summary.c  --stats, --providers, --processes and --info
 *   writers/   one file per output format behind struct writer
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_ETLDUMP_H
#define ETLDUMP_ETLDUMP_H

#include <stddef.h>
#include <stdint.h>

#include <etl.h>

#include "exit_codes.h"
#include "filter.h"

struct inputs_seen;

struct writer;

#define MAX_MANIFESTS 256

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
	struct filter filter;
	uint64_t max_events; /* 0 = all */
	size_t max_payload;  /* bytes of payload hex shown in text, SIZE_MAX = all */
	unsigned threads;    /* --threads: decoding and formatting threads (1 = none) */
	int threads_auto;    /* --threads=0: one per processor, for inputs large enough */
	const char *manifests[MAX_MANIFESTS];
	size_t nmanifests;
	const char *tmf[MAX_MANIFESTS]; /* --tmf */
	size_t ntmf;
	struct etl_manifests *manifest_set; /* all of them, parsed once (load_manifests) */
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
/* The more severe of two exit statuses. */
int worse(int a, int b);
/* The reader's last error on stderr (unless quiet), as one line. */
void report(const struct etl_reader *r, const char *fallback_name, const struct options *o);
/* A name (a path, a member) as printed on stderr, escaped by etl_text_escape()
 * so that a crafted name cannot move the cursor, clear a terminal or forge a
 * line.  The text is in buf, cut at SHOWN_MAX bytes. */
#define SHOWN_MAX 1024
const char *shown(const char *name, char buf[SHOWN_MAX]);
/* The exit status an error status of etl_reader_next() calls for. */
int status_exit(int st);
/* After etl_reader_next returned st < 0: reports the damage, worsens *exit_code, and says
 * whether the reader can go on (0) or the error is fatal (1). */
int damage_ends(const struct etl_reader *r, const struct options *o, int st, int *exit_code);
/* Parses the manifests of ETLDUMP_MANIFEST_PATH and -m once, reporting problems (once); NULL
 * when there are none. */
struct etl_manifests *load_manifests(const struct options *o, int *exit_code);
/* Uses the manifests and opens the inputs; reports problems unless quiet. The inputs opened. */
/* Sets r's options, manifests and TMF files from o. */
void configure_reader(struct etl_reader *r, const struct options *o, int quiet, int *exit_code);
int setup_reader(struct etl_reader *r, char **files, int nfiles, const struct options *o, int quiet,
		 int *exit_code);
/* Filters, decodes and writes one event (or adds it to the summary); 1 if it was selected. */
struct summary;
int handle_event(struct etl_reader *r, const struct etl_event *ev, const struct options *o,
		 struct summary *sm);
/* Payload faults reported by this thread (workers add theirs up). */
extern _Thread_local int decode_errors;

/* pool.c: --threads; the exit status. */
/* Decodes and writes the inputs of primary (opened, not read) with n worker threads, each with a
 * reader of its own that opens them again (etl_reader_open_same); with --stats or
 * --providers the workers count the events and sm gets their counts (and the damage). */
int run_threaded(struct etl_reader *r, const struct options *o, unsigned n, struct summary *sm);
/* The events read so far, on stderr (a terminal); done: the last report. */
void progress(const struct etl_reader *r, uint64_t n, int done);
/* Whether --threads applies to this run. */
int threads_usable(const struct options *o, const struct etl_reader *r, char **files, int nfiles);

#endif
