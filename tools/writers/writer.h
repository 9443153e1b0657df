/*
 * writer.h - etldump's output formats, one per file of this folder, each
 * behind the same small table of entry points (as tcpdump's printers).
 *
 * A run calls begin() once after the inputs are opened, event() for every
 * event selected, and end() after the last one, each with the writer's state:
 * state_size bytes the run allocates zeroed (NULL for 0) and frees after end(),
 * so that a writer keeps nothing in globals.  Writers marked stateless format
 * each event on its own, with no state, so --threads workers may call event()
 * at once (each into its own output buffer); then begin() and end() are
 * called by the main thread, and end() gets a NULL reader.  summary() prints what
 * --stats, --providers and --processes gathered, and info() the trace
 * information of --info, in the writer's style (text or JSON).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_WRITERS_WRITER_H
#define ETLDUMP_WRITERS_WRITER_H

#include <stdio.h>

#include <etl.h>

#include "etldump.h"

struct summary;

struct writer {
	const char *name;     /* the --format value */
	const char *about;    /* what it is, for --help */
	const char *ext;      /* the file name extension of -O outputs of events */
	const char *summary_ext; /* ... and of summaries (--info, --stats, --providers, --processes) */
	int stateless;        /* events are formatted independently (--threads) */
	int stacks;           /* the output shows call stacks (the reader must attach them) */
	int no_decode;        /* event() needs no decoding (what the filters need is still decoded) */
	size_t state_size;    /* bytes of state the run gives begin(), event() and end() */
	void (*begin)(void *ws, struct etl_reader *r, const struct options *o);
	/* d is NULL when the event was not decoded (--raw) */
	void (*event)(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
		      const struct etl_decoded *d);
	void (*end)(void *ws, struct etl_reader *r, const struct options *o);
	void (*summary)(struct summary *sm, struct etl_reader *r, const struct options *o);
	void (*info)(const struct etl_trace_info *t, int index);
};

extern const struct writer writer_text, writer_jsonl, writer_csv, writer_xml, writer_chrome, writer_folded,
	writer_pprof;

/* The writer of a --format value ("json" is jsonl), or NULL. */
const struct writer *writer_find(const char *name);
/* The formats' names, ", " between them, into out (cap bytes, NUL-terminated) */
void writer_names(char *out, size_t cap);
/* A line per format for --help: its name and what it is, indented by indent spaces */
void writer_help(FILE *f, int indent);

#endif
