/*
 * chrome.c - the Chrome trace-event writer (chrome://tracing, Perfetto):
 * events as instants, Start/Stop pairs as async slices (paired by what they
 * describe: chrome_pairs.c), context switches as
 * "Running" slices on the thread tracks, processes and threads named by
 * metadata events.  Not stateless: pairs and names span events.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "out.h"
#include "render.h"
#include "summary.h"
#include "writers/chrome_pairs.h"
#include "writers/writer.h"

/* Context switches become "Running" slices on the thread tracks: what runs on each CPU of
 * each input since when. */
struct chrome_cpu {
	int trace;
	unsigned cpu;
	uint32_t pid, tid; /* tid 0: idle or not known yet */
	double since_us;
};
#define CHROME_MAX_CPUS 4096

/* The writer's state. */
struct chrome_state {
	int written;           /* events written so far (a comma before the next) */
	uint64_t origin;       /* FILETIME of the earliest input start */
	double last_us;        /* time of the latest event written */
	struct chrome_cpu *cpus;
	size_t ncpus, cap_cpus;
	struct chrome_pairs pairs;
};

static struct chrome_cpu *chrome_cpu_of(struct chrome_state *cs, int trace, unsigned cpu)
{
	size_t i;
	struct chrome_cpu *c;

	for (i = 0; i < cs->ncpus; i++)
		if (cs->cpus[i].trace == trace && cs->cpus[i].cpu == cpu)
			return &cs->cpus[i];
	if (cs->ncpus == CHROME_MAX_CPUS)
		return NULL;
	if (grow_array(&cs->cpus, &cs->cap_cpus, cs->ncpus + 1, sizeof(*cs->cpus), 16) != 0)
		return NULL;
	c = &cs->cpus[cs->ncpus++];
	memset(c, 0, sizeof(*c));
	c->trace = trace;
	c->cpu = cpu;
	return c;
}

static void chrome_slice(struct chrome_state *cs, const struct chrome_cpu *c, double end_us, const char *wait_reason)
{
	if (c->tid == 0 || end_us < c->since_us)
		return;
	out_cstr(cs->written++ ? ",\n" : "\n");
	OUT_LIT("{\"name\":\"Running\",\"cat\":\"cpu\",\"ph\":\"X\",\"ts\":");
	out_fixed3(c->since_us);
	OUT_LIT(",\"dur\":");
	out_fixed3(end_us - c->since_us);
	OUT_LIT(",\"pid\":");
	out_u64(c->pid);
	OUT_LIT(",\"tid\":");
	out_u64(c->tid);
	OUT_LIT(",\"args\":{\"cpu\":");
	out_u64(c->cpu);
	if (wait_reason) {
		out_cstr(",\"old_thread_wait_reason\":\"");
		out_json_str(wait_reason);
		out_char('"');
	}
	out_cstr("}}");
}

/* A context switch: the slice of the thread switched out ends, the new one's begins. */
static void chrome_cswitch(struct chrome_state *cs, const struct etl_event *ev, struct etl_reader *r, const struct etl_decoded *d,
			   double us)
{
	const struct etl_property *np = etl_decoded_property_by_name(d, "NewThreadID");
	const struct etl_property *wp = etl_decoded_property_by_name(d, "OldThreadWaitReason");
	struct chrome_cpu *c = chrome_cpu_of(cs, etl_event_trace_index(ev), etl_event_cpu(ev));
	const struct etl_process *p;
	uint64_t ntid;

	if (!c || !np || etl_property_as_u64(np, &ntid) != ETL_OK || ntid >= ETL_ID_NONE)
		return;
	chrome_slice(cs, c, us, wp ? etl_property_format(wp) : NULL);
	p = etl_reader_thread_process(r, etl_event_trace_index(ev), (uint32_t)ntid);
	c->tid = (uint32_t)ntid;
	c->pid = p ? etl_process_id(p) : 0;
	c->since_us = us;
}

/* What a Start or Stop describes, so that its pair is found whoever logs it: a process (kernel
 * Process events, by ProcessID), a thread (kernel Thread events, by ThreadID), an activity (the
 * activity id), else the logging thread.  *pid: the process whose track draws it. */
static uint64_t subject_of(const struct etl_event *ev, const struct etl_decoded *d, const char *name,
			   uint32_t *pid)
{
	const struct etl_property *p;
	const struct etl_guid *a = etl_event_activity_id(ev);
	uint64_t v = 0, w = 0;

	if (strncmp(name, "Windows Kernel/Process/", 23) == 0 && (p = etl_decoded_property_by_name(d, "ProcessID")) &&
	    etl_property_as_u64(p, &v) == ETL_OK) {
		*pid = (uint32_t)v;
		return 1ull << 62 | v;
	}
	if (strncmp(name, "Windows Kernel/Thread/", 22) == 0 && (p = etl_decoded_property_by_name(d, "ThreadID")) &&
	    etl_property_as_u64(p, &v) == ETL_OK) {
		if ((p = etl_decoded_property_by_name(d, "ProcessID")) && etl_property_as_u64(p, &w) == ETL_OK)
			*pid = (uint32_t)w;
		return 2ull << 62 | v;
	}
	if (a && (a->data1 || a->data2 || a->data3 || memcmp(a->data4, "\0\0\0\0\0\0\0\0", 8) != 0)) {
		uint64_t h = 14695981039346656037ull;
		size_t k;
		h = (h ^ a->data1) * 1099511628211ull;
		h = (h ^ ((uint64_t)a->data2 << 16 | a->data3)) * 1099511628211ull;
		for (k = 0; k < 8; k++)
			h = (h ^ a->data4[k]) * 1099511628211ull;
		return 3ull << 62 | (h >> 2);
	}
	return (uint64_t)etl_event_pid(ev) << 32 | etl_event_tid(ev);
}

static void head(struct chrome_state *cs, const char *name, const char *cat, const char *ph, uint64_t id, double us, uint32_t pid,
		 uint32_t tid)
{
	out_cstr(cs->written++ ? ",\n" : "\n");
	out_cstr("{\"name\":\"");
	out_json_str(name);
	out_cstr("\",\"cat\":\"");
	out_json_str(cat);
	OUT_LIT("\",\"ph\":\"");
	out_cstr(ph);
	OUT_LIT("\",");
	if (ph[0] == 'i')
		OUT_LIT("\"s\":\"t\",");
	OUT_LIT("\"ts\":");
	out_fixed3(us);
	OUT_LIT(",\"pid\":");
	out_u64(pid);
	OUT_LIT(",\"tid\":");
	out_u64(tid);
	if (id)
		out_printf(",\"id\":\"0x%" PRIx64 "\"", id);
}

/* A pair still open when the input ends: closed at the last time seen, and said so. */
static void unfinished(void *ctx, const char *name, const char *cat, uint64_t id, uint32_t pid)
{
	struct chrome_state *cs = ctx;

	head(cs, name, cat, "e", id, cs->last_us, pid, 0);
	out_cstr(",\"args\":{\"unfinished\":true}}");
}

static void chrome_event(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
			 const struct etl_decoded *d)
{
	struct chrome_state *cs = ws;
	/* records without a pid or tid in their header (CPU samples) go to the thread and process
	 * they name, so they land on its track */
	const struct etl_process *proc = etl_reader_event_process(r, ev);
	uint32_t pid = etl_event_pid(ev) != ETL_ID_NONE ? etl_event_pid(ev) : proc ? etl_process_id(proc) : 0;
	uint32_t tid = etl_event_tid(ev);
	uint64_t v, id = 0, subject;
	const char *name = d ? etl_decoded_name(d) : "event", *ph = "i";
	const char *cat = d && etl_decoded_provider_name(d) ? etl_decoded_provider_name(d) : "unknown";
	char base[512];
	size_t i, l;
	double us = ((double)etl_event_filetime(ev) - (double)cs->origin) / 10.0;

	(void)o;
	if (tid == ETL_ID_NONE) {
		const struct etl_property *t = d ? etl_decoded_property_by_name(d, "ThreadID") : NULL;
		tid = t && etl_property_as_u64(t, &v) == ETL_OK && v < ETL_ID_NONE ? (uint32_t)v : 0;
	}
	snprintf(base, sizeof(base), "%s", name);
	l = strlen(base);
	/* Start/Stop pairs (opcodes 1 and 2) become async slices named without the opcode, paired by
	 * what they describe; a Stop without its Start stays an instant */
	if (d && etl_event_opcode(ev) == 1 && l > 6 && strcmp(base + l - 6, "/Start") == 0) {
		base[l - 6] = 0;
		subject = subject_of(ev, d, name, &pid);
		id = chrome_pair_open(&cs->pairs, etl_event_trace_index(ev), base, cat, subject, pid);
		ph = "b";
	} else if (d && etl_event_opcode(ev) == 2 && l > 5 && strcmp(base + l - 5, "/Stop") == 0) {
		uint32_t spid = pid;
		base[l - 5] = 0;
		subject = subject_of(ev, d, name, &spid);
		if (chrome_pair_close(&cs->pairs, etl_event_trace_index(ev), base, subject, &id, &spid)) {
			ph = "e";
			pid = spid;
		} else {
			snprintf(base, sizeof(base), "%s", name);
		}
	}
	head(cs, base, cat, ph, id, us, pid, tid);
	out_cstr(",\"args\":{");
	OUT_LIT("\"cpu\":");
	out_u64(etl_event_cpu(ev));
	if (render_message(d)) {
		out_cstr(",\"message\":\"");
		out_json_str(render_message(d));
		out_char('"');
	}
	for (i = 0; d && etl_decoded_source(d) != ETL_DECODER_NONE && i < etl_decoded_property_count(d); i++) {
		const struct etl_property *p = etl_decoded_property_at(d, i);
		out_cstr(",\"");
		out_json_name(etl_property_name(p));
		out_cstr("\":");
		out_json_value(p, 0);
	}
	for (i = 0; d && i < etl_decoded_derived_count(d); i++) {
		const struct etl_property *p = etl_decoded_derived_at(d, i);
		out_cstr(",\"derived.");
		out_json_name(etl_property_name(p));
		out_cstr("\":");
		out_json_value(p, 0);
	}
	out_stack(r, ev, 1);
	out_cstr("}}");
	if (us > cs->last_us)
		cs->last_us = us;
	if (d && etl_decoded_source(d) != ETL_DECODER_NONE && strcmp(name, "Windows Kernel/Thread/CSwitch") == 0)
		chrome_cswitch(cs, ev, r, d, us);
}

static void chrome_begin(void *ws, struct etl_reader *r, const struct options *o)
{
	struct chrome_state *cs = ws;
	int i;

	(void)o;
	cs->origin = UINT64_MAX;
	for (i = 0; i < etl_reader_trace_count(r); i++) {
		uint64_t st = etl_trace_info_start_time(etl_reader_trace_info(r, i));
		if (st < cs->origin)
			cs->origin = st;
	}
	out_cstr("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
}

static void chrome_end(void *ws, struct etl_reader *r, const struct options *o)
{
	struct chrome_state *cs = ws;
	size_t np = etl_reader_process_count(r), j;

	(void)o;
	/* name the processes the kernel events described (the latest record of each pid) */
	for (j = 0; j < np; j++) {
		const struct etl_process *p = etl_reader_process_at(r, j);
		if (!*etl_process_image_name(p) ||
		    etl_reader_find_process(r, etl_process_trace_index(p), etl_process_id(p)) != p)
			continue;
		out_cstr(cs->written++ ? ",\n" : "\n");
		out_printf("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"",
		       etl_process_id(p));
		out_json_str(etl_process_image_name(p));
		out_cstr("\"}}");
	}
	/* and the threads that were named (the latest name of each) */
	for (j = 0; j < np; j++) {
		const struct etl_process *p = etl_reader_process_at(r, j);
		size_t t, nt = etl_process_thread_name_count(p);
		for (t = 0; t < nt; t++) {
			uint32_t tid;
			const char *tn = etl_process_thread_name_at(p, t, &tid);
			out_cstr(cs->written++ ? ",\n" : "\n");
			out_printf("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"",
				   etl_process_id(p), tid);
			out_json_str(tn);
			out_cstr("\"}}");
		}
	}
	/* the pairs and the slices still running when the trace ends */
	chrome_pairs_finish(&cs->pairs, unfinished, cs);
	for (j = 0; j < cs->ncpus; j++)
		chrome_slice(cs, &cs->cpus[j], cs->last_us, NULL);
	free(cs->cpus);
	cs->cpus = NULL;
	cs->ncpus = 0;
	out_cstr("\n]}\n");
}

const struct writer writer_chrome = {
	.name = "chrome",
	.about = "Chrome trace JSON (chrome://tracing, Perfetto)",
	.ext = "json",
	.summary_ext = "txt",
	.stacks = 1,
	.state_size = sizeof(struct chrome_state),
	.begin = chrome_begin,
	.event = chrome_event,
	.end = chrome_end,
	.summary = summary_text,
	.info = info_text,
};
