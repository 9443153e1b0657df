/*
 * profile.h - the CPU profile the folded and pprof writers print: every
 * distinct stack of the selected events (by default the sampled-profile
 * events, PerfInfo/Sample), with how many times it was seen, its frames
 * named as etl_reader_frame() names them.
 *
 * A frame is known by its text: module!Function for a PDB function or a
 * .NET method (with --lines, " (file.c:123)" after it), module!? for code in
 * an image no symbol names, ? for an address nothing holds.  A stack is its
 * process ("name (pid)") and its frames from the root to the leaf.  Memory
 * grows with the distinct stacks and frames, not with the events.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_WRITERS_PROFILE_H
#define ETLDUMP_WRITERS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include <etl.h>

#include "etldump.h"
#include "hmap.h"

struct prof_frame {
	char *text;             /* the frame's key, as folded prints it */
	char *module;           /* NULL for an address nothing holds */
	char *function;         /* the name pprof gives the function: the text without its line */
	char *file;             /* --lines */
	uint32_t line;
	int process;            /* the process a stack ran in, not a frame */
};

struct prof_stack {
	size_t at, n;           /* ids[at, at + n): the process, then the frames from the root */
	uint64_t count;
};

struct profile {
	int ready;
	int all_events;         /* -e, -p or another filter chose the events: every one with a stack */
	uint32_t interval;      /* the sampling interval in 100 ns units, 0 when the trace says none */
	struct hmap frame_ix;
	struct prof_frame *frames;
	size_t nframes, capframes;
	struct hmap stack_ix;
	struct prof_stack *stacks;
	size_t nstacks, capstacks;
	uint32_t *ids;
	size_t nids, capids;
	uint64_t events, without_stack;
	int64_t first_ns, last_ns; /* Unix times of the first and last event counted */
	int failed;             /* out of memory: what follows is not counted */
};

/* Counts ev (when it is one the profile takes) and notes the sampling interval. */
void profile_event(struct profile *p, struct etl_reader *r, const struct options *o, const struct etl_event *ev);
/* The sampling interval in nanoseconds: the trace's, else 1 ms. */
uint64_t profile_interval_ns(const struct profile *p);
/* Stack i's text, process;root;...;leaf (malloc'd), or NULL without memory. */
char *profile_stack_text(const struct profile *p, size_t i);
/* Says on stderr what was not counted (no stack, no memory), unless quiet. */
void profile_report(const struct profile *p, const struct options *o, const char *format);
void profile_free(struct profile *p);

#endif
