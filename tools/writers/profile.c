/*
 * profile.c - the CPU profile of the folded and pprof writers (see
 * profile.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "writers/profile.h"

#define PERFINFO 0x0F
#define OP_SAMPLE 46
#define OP_SET_INTERVAL 72
#define OP_COLLECTION_START 73
#define MAX_DEPTH 1024u         /* frames of a stack kept (the deepest ones are the root's) */

struct frame_slot {
	size_t id;
};

struct stack_slot {
	size_t id;
};

/* Whether ev is a PerfInfo event of opcode op (a kernel header, or the MOF class). */
static int perfinfo(const struct etl_event *ev, unsigned op)
{
	enum etl_header_kind k = etl_event_header_kind(ev);

	if (etl_event_opcode(ev) != op)
		return 0;
	if (k == ETL_HEADER_SYSTEM || k == ETL_HEADER_COMPACT || k == ETL_HEADER_PERFINFO)
		return etl_event_hook_id(ev) >> 8 == PERFINFO;
	return k == ETL_HEADER_FULL && etl_guid_equal(etl_event_provider(ev), etl_kernel_group_guid(PERFINFO));
}

/* The timer's interval from PerfInfo/CollectionStart or SetInterval (source 0: the timer). */
static void note_interval(struct profile *p, struct etl_reader *r, const struct etl_event *ev)
{
	const struct etl_decoded *d;
	const struct etl_property *src, *v;
	uint64_t s, n;

	if (etl_reader_decode(r, ev, &d) != ETL_OK || !d)
		return;
	src = etl_decoded_property_by_name(d, "SampleSource");
	if (!src)
		src = etl_decoded_property_by_name(d, "Source");
	v = etl_decoded_property_by_name(d, "NewInterval");
	if (src && v && etl_property_as_u64(src, &s) == ETL_OK && s == 0 && etl_property_as_u64(v, &n) == ETL_OK &&
	    n > 0 && n <= UINT32_MAX)
		p->interval = (uint32_t)n;
}

static uint64_t text_hash(const char *s)
{
	return hmap_hash_bytes(s, strlen(s), 0x5157);
}

struct frame_key {
	const struct profile *p;
	const char *text;
};

static int frame_eq(const void *entry, const void *key)
{
	const struct frame_key *k = key;

	return strcmp(k->p->frames[((const struct frame_slot *)entry)->id].text, k->text) == 0;
}

/* Text from the trace or a PDB made safe for a folded line: no ';' (the separator), and '?' for a
 * byte a terminal would act on (controls, C1 controls, separators, bidirectional controls, UTF-8
 * that is not: what etl_text_printable does not pass). */
static void clean(char *s)
{
	while (*s) {
		size_t k = etl_text_printable(s), i;
		for (i = 0; i < k; i++)
			if (s[i] == ';')
				s[i] = ',';
		s += k;
		if (*s)
			*s++ = '?';
	}
}

static char *dup_clean(const char *s)
{
	char *c = s ? strdup(s) : NULL;

	if (c)
		clean(c);
	return c;
}

/* The id of the frame of this text (made when new), or SIZE_MAX without memory. */
static size_t frame_id(struct profile *p, const char *text, const struct etl_frame *f, int process)
{
	uint64_t h = text_hash(text);
	struct frame_key key = { p, text };
	struct frame_slot *e;
	struct prof_frame *nf;

	if ((e = hmap_find(&p->frame_ix, h, frame_eq, &key)) != NULL)
		return e->id;
	if (grow_array(&p->frames, &p->capframes, p->nframes + 1, sizeof(*p->frames), 64) != 0 ||
	    !(e = hmap_insert(&p->frame_ix, h)))
		return SIZE_MAX;
	nf = &p->frames[p->nframes];
	memset(nf, 0, sizeof(*nf));
	nf->process = process;
	nf->text = strdup(text);
	if (!process && f && f->module)
		nf->module = dup_clean(f->module);
	nf->function = strdup(text);
	if (f && f->file && f->line && (render_frame_flags & ETL_FRAME_LINES)) {
		nf->file = dup_clean(f->file);
		nf->line = f->line;
		if (nf->function && strstr(nf->function, " ("))
			*strstr(nf->function, " (") = 0;
	}
	if (!nf->text || !nf->function) {
		free(nf->text);
		free(nf->function);
		free(nf->module);
		free(nf->file);
		return SIZE_MAX;
	}
	e->id = p->nframes;
	return p->nframes++;
}

/* A frame's text into buf (cap bytes). */
static void frame_text(const struct etl_frame *f, char *buf, size_t cap)
{
	if (f->kind == ETL_FRAME_ADDRESS)
		snprintf(buf, cap, "?");
	else if (!f->function)
		snprintf(buf, cap, "%s!?", f->module);
	else if (f->file && f->line && (render_frame_flags & ETL_FRAME_LINES))
		snprintf(buf, cap, "%s!%s (%s:%u)", f->module, f->function, frame_file_name(f->file), f->line);
	else
		snprintf(buf, cap, "%s!%s", f->module, f->function);
	clean(buf);
}

/* The process frame: "name (pid)". */
static size_t process_id(struct profile *p, struct etl_reader *r, const struct etl_event *ev)
{
	uint32_t pid = etl_event_stack_process(ev);
	const struct etl_process *pr =
		pid != ETL_ID_NONE ? etl_reader_find_process(r, etl_event_trace_index(ev), pid) : NULL;
	const char *name = pr ? etl_process_image_name(pr) : NULL;
	char buf[300];

	if (pid == ETL_ID_NONE)
		snprintf(buf, sizeof(buf), "?");
	else
		snprintf(buf, sizeof(buf), "%s (%u)", name && *name ? name : "Process", pid);
	clean(buf);
	return frame_id(p, buf, NULL, 1);
}

struct stack_key {
	const struct profile *p;
	size_t n;               /* ids at p->ids + p->nids */
};

static int stack_eq(const void *entry, const void *key)
{
	const struct stack_key *k = key;
	const struct prof_stack *s = &k->p->stacks[((const struct stack_slot *)entry)->id];

	return s->n == k->n && memcmp(k->p->ids + s->at, k->p->ids + k->p->nids, s->n * sizeof(uint32_t)) == 0;
}

/* Counts the stack held in ids[nids, nids + n) (just written there): a new one keeps them. */
static int count_stack(struct profile *p, size_t n)
{
	struct stack_key key = { p, n };
	uint64_t h = hmap_hash_bytes(p->ids + p->nids, n * sizeof(uint32_t), n);
	struct stack_slot *e;

	if ((e = hmap_find(&p->stack_ix, h, stack_eq, &key)) != NULL) {
		p->stacks[e->id].count++;
		return 0;
	}
	if (grow_array(&p->stacks, &p->capstacks, p->nstacks + 1, sizeof(*p->stacks), 64) != 0 ||
	    !(e = hmap_insert(&p->stack_ix, h)))
		return -1;
	p->stacks[p->nstacks] = (struct prof_stack){ p->nids, n, 1 };
	e->id = p->nstacks++;
	p->nids += n;
	return 0;
}

void profile_event(struct profile *p, struct etl_reader *r, const struct options *o, const struct etl_event *ev)
{
	size_t depth, i, n = 0;
	char buf[1024];

	if (!p->ready) {
		hmap_init(&p->frame_ix, sizeof(struct frame_slot));
		hmap_init(&p->stack_ix, sizeof(struct stack_slot));
		p->all_events = o->sel.terms[SEL_EVENT] || o->sel.terms[SEL_PROVIDER] || o->sel.terms[SEL_ID] ||
				 o->sel.terms[SEL_OPCODE];
		p->ready = 1;
	}
	if (perfinfo(ev, OP_COLLECTION_START) || perfinfo(ev, OP_SET_INTERVAL))
		note_interval(p, r, ev);
	if (p->failed || (!p->all_events && !perfinfo(ev, OP_SAMPLE)))
		return;
	if (!(depth = etl_event_stack_depth(ev))) {
		p->without_stack++;
		return;
	}
	if (depth > MAX_DEPTH)
		depth = MAX_DEPTH;
	/* room for the process and the frames */
	if (grow_array(&p->ids, &p->capids, p->nids + depth + 1, sizeof(*p->ids), 1024) != 0) {
		p->failed = 1;
		return;
	}
	p->ids[p->nids + n++] = (uint32_t)process_id(p, r, ev);
	for (i = depth; i-- > 0;) { /* from the root */
		struct etl_frame f;
		etl_reader_frame(r, ev, etl_event_stack_frame(ev, i), render_frame_flags, &f);
		frame_text(&f, buf, sizeof(buf));
		p->ids[p->nids + n++] = (uint32_t)frame_id(p, buf, &f, 0);
	}
	for (i = 0; i < n; i++)
		if (p->ids[p->nids + i] == (uint32_t)SIZE_MAX) {
			p->failed = 1;
			return;
		}
	if (count_stack(p, n) != 0) {
		p->failed = 1;
		return;
	}
	if (!p->events++)
		p->first_ns = etl_event_unix_ns(ev);
	p->last_ns = etl_event_unix_ns(ev);
}

uint64_t profile_interval_ns(const struct profile *p)
{
	return p->interval ? (uint64_t)p->interval * 100 : 1000000;
}

char *profile_stack_text(const struct profile *p, size_t i)
{
	const struct prof_stack *s = &p->stacks[i];
	size_t k, len = 1;
	char *t, *o;

	for (k = 0; k < s->n; k++)
		len += strlen(p->frames[p->ids[s->at + k]].text) + 1;
	if (!(t = malloc(len)))
		return NULL;
	for (o = t, k = 0; k < s->n; k++) {
		size_t m = strlen(p->frames[p->ids[s->at + k]].text);
		if (k)
			*o++ = ';';
		memcpy(o, p->frames[p->ids[s->at + k]].text, m);
		o += m;
	}
	*o = 0;
	return t;
}

void profile_report(const struct profile *p, const struct options *o, const char *format)
{
	if (o->quiet)
		return;
	if (p->failed)
		fprintf(stderr, "%s: %s: out of memory: the profile stops before the end\n", progname, format);
	if (!p->events)
		fprintf(stderr, "%s: %s: no %s with a stack%s\n", progname, format,
			p->all_events ? "selected event" : "sampled-profile event (PerfInfo/Sample)",
			p->without_stack ? " (the trace's have none: record with stacks)" : "");
}

void profile_free(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nframes; i++) {
		free(p->frames[i].text);
		free(p->frames[i].module);
		free(p->frames[i].function);
		free(p->frames[i].file);
	}
	free(p->frames);
	free(p->stacks);
	free(p->ids);
	if (p->ready) {
		hmap_free(&p->frame_ix);
		hmap_free(&p->stack_ix);
	}
	memset(p, 0, sizeof(*p));
}
