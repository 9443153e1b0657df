/*
 * folded.c - the folded writer: a CPU profile as Brendan Gregg's collapsed
 * stacks, one line per distinct stack, "process;root;...;leaf COUNT", the
 * lines sorted (flamegraph.pl, speedscope and inferno read it).  The stacks
 * are those of profile.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "etldump.h"
#include "summary.h"
#include "writers/profile.h"
#include "writers/writer.h"

struct folded_line {
	char *text;
	uint64_t count;
};

static int line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

static void folded_event(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
			 const struct etl_decoded *d)
{
	(void)d;
	profile_event(ws, r, o, ev);
}

static void folded_end(void *ws, struct etl_reader *r, const struct options *o)
{
	struct profile *p = ws;
	struct folded_line *lines = calloc(p->nstacks ? p->nstacks : 1, sizeof(*lines));
	size_t i, n = 0;

	(void)r;
	for (i = 0; lines && i < p->nstacks; i++) {
		if (!(lines[n].text = profile_stack_text(p, i))) {
			p->failed = 1;
			break;
		}
		lines[n++].count = p->stacks[i].count;
	}
	if (!lines)
		p->failed = 1;
	else
		qsort(lines, n, sizeof(*lines), line_cmp);
	for (i = 0; i < n; i++) {
		out_cstr(lines[i].text);
		out_char(' ');
		out_u64(lines[i].count);
		out_char('\n');
		free(lines[i].text);
	}
	free(lines);
	profile_report(p, o, "folded");
	profile_free(p);
}

const struct writer writer_folded = {
	.name = "folded",
	.about = "a CPU profile of the sampled stacks: collapsed stacks for flame graphs",
	.ext = "folded",
	.summary_ext = "txt",
	.stacks = 1,
	.no_decode = 1,
	.state_size = sizeof(struct profile),
	.event = folded_event,
	.end = folded_end,
	.summary = summary_text,
	.info = info_text,
};
