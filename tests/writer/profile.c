/*
 * profile.c - the "profile64" scenario: a CPU profile a test describes in a
 * spec file, one record per line, fields separated by tabs (numbers in C
 * notation, 0x for hex; times in milliseconds after the trace's start, fractions allowed):
 *
 *   process  PID  NAME                         Process/DCStart
 *   image    PID  BASE  SIZE  PATH  [GUID  AGE  PDB]
 *                                              Image/DCStart, after the merge's
 *                                              ImageID/DbgID_RSDS record of its PDB
 *   module   PID  MODULEID  PATH               CLR Loader/ModuleLoad
 *   method   PID  MS  START  SIZE  MODULEID  NAMESPACE  NAME  SIGNATURE
 *                                              CLR Method/LoadVerbose at MS
 *   unload   PID  MS  START  SIZE  MODULEID  NAMESPACE  NAME  SIGNATURE
 *                                              CLR Method/UnloadVerbose at MS
 *   interval UNITS                             PerfInfo/CollectionStart (100 ns units)
 *   sample   PID  TID  MS  FRAME,FRAME,...     PerfInfo/Sample and its StackWalk/Stack
 *                                              (innermost frame first; a stack record
 *                                              names its sample by time and thread, so
 *                                              two samples of a thread need two times)
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbuf.h"
#include "scenario.h"

#define MAX_FIELDS 12

static const struct etl_guid ktc_imageid = { 0xb3e675d7, 0x2554, 0x4f18,
					     { 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde } };
static const struct etl_guid clr_runtime = { 0xe13c0d23, 0xccbc, 0x4e12,
					     { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

/* A time in milliseconds after the start (a fraction allowed) as a raw time stamp. */
static uint64_t at_ms(const struct etlw_opts *o, const char *s)
{
	return o->start_ts + (uint64_t)(strtod(s, NULL) * (double)o->perf_freq / 1000.0);
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (the writer links no library: parsed here); 0 or -1. */
static int parse_guid(const char *s, struct etl_guid *g)
{
	char hex[33];
	size_t i, n = 0;

	for (i = 0; s[i] && n < 32; i++)
		if (s[i] != '-' && s[i] != '{' && s[i] != '}')
			hex[n++] = s[i];
	hex[n] = 0;
	if (n != 32 || strspn(hex, "0123456789abcdefABCDEF") != 32)
		return -1;
	for (i = 0; i < 8; i++) {
		char b[3] = { hex[16 + 2 * i], hex[17 + 2 * i], 0 };
		g->data4[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	hex[16] = 0;
	g->data3 = (uint16_t)strtoul(hex + 12, NULL, 16);
	hex[12] = 0;
	g->data2 = (uint16_t)strtoul(hex + 8, NULL, 16);
	hex[8] = 0;
	g->data1 = (uint32_t)strtoul(hex, NULL, 16);
	return 0;
}

/* The merge's DbgID_RSDS record: ImageBase, ProcessID, GuidSig, Age, PDBFileName (ANSI). */
int scen_rsds(struct etlw *w, const struct etlw_opts *o, uint64_t ts, uint32_t pid, uint64_t base, const char *guid,
	      uint32_t age, const char *pdb)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };
	struct etlw_classic c;
	struct etl_guid g;

	if (parse_guid(guid, &g) != 0)
		return -1;
	pb_ptr(&p, base);
	pb_u32(&p, pid);
	pb_room(&p, 16);
	etlw_put_guid(p.b + p.n, &g);
	p.n += 16;
	pb_u32(&p, age);
	pb_astr(&p, pdb);
	memset(&c, 0, sizeof(c));
	c.guid = ktc_imageid;
	c.type = 36;
	c.version = 2;
	c.pid = pid;
	c.tid = 1;
	c.ts = ts;
	return etlw_classic(w, 0, &c, p.b, p.n);
}

static int clr_event(struct etlw *w, uint16_t id, uint32_t pid, uint64_t ts, const struct pbuf *p)
{
	struct etlw_event e;

	memset(&e, 0, sizeof(e));
	e.provider = clr_runtime;
	e.id = id;
	e.version = 1;
	e.level = 4;
	e.pid = pid;
	e.tid = 1;
	e.ts = ts;
	return etlw_event(w, 0, &e, NULL, 0, p->b, p->n);
}

/* Method/LoadVerbose (143) or UnloadVerbose (144), version 1. */
static int method(struct etlw *w, const struct etlw_opts *o, uint16_t id, char **f)
{
	struct pbuf p = { .n = 0, .ptr = 8 };
	uint64_t ts = at_ms(o, f[2]);

	pb_u64(&p, num(f[3]) ^ 0x5a5a); /* MethodID */
	pb_u64(&p, num(f[5]));          /* ModuleID */
	pb_u64(&p, num(f[3]));          /* MethodStartAddress */
	pb_u32(&p, (uint32_t)num(f[4]));
	pb_u32(&p, 0x06000001);         /* MethodToken */
	pb_u32(&p, 0);                  /* MethodFlags */
	pb_wstr(&p, f[6]);
	pb_wstr(&p, f[7]);
	pb_wstr(&p, f[8]);
	pb_u32(&p, 9); /* ClrInstanceID (u16) and two bytes the CLR would not write: kept short below */
	p.n -= 2;
	return clr_event(w, id, (uint32_t)num(f[1]), ts, &p);
}

/* Loader/ModuleLoad (152), version 1. */
static int module(struct etlw *w, const struct etlw_opts *o, char **f)
{
	struct pbuf p = { .n = 0, .ptr = 8 };

	pb_u64(&p, num(f[2])); /* ModuleID */
	pb_u64(&p, 0x1000);    /* AssemblyID */
	pb_u32(&p, 8);         /* ModuleFlags */
	pb_u32(&p, 0);         /* Reserved1 */
	pb_wstr(&p, f[3]);     /* ModuleILPath */
	pb_wstr(&p, "");       /* ModuleNativePath */
	pb_u32(&p, 9);
	p.n -= 2;
	return clr_event(w, 152, (uint32_t)num(f[1]), o->start_ts + 1, &p);
}

static int sample(struct etlw *w, const struct etlw_opts *o, char **f)
{
	uint64_t frames[64], ts = at_ms(o, f[3]) + 1;
	uint32_t pid = (uint32_t)num(f[1]), tid = (uint32_t)num(f[2]);
	unsigned n = 0;
	char *s = f[4], *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok && n < 64; tok = strtok_r(NULL, ",", &save))
		frames[n++] = num(tok);
	if (!n || scen_sample(w, o, 0, ts, frames[0], tid) != 0)
		return -1;
	return scen_stack_at(w, o, 0, ts, ts, pid, tid, frames, n);
}

static int interval(struct etlw *w, const struct etlw_opts *o, char **f)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };

	pb_u32(&p, 0); /* SampleSource: the timer */
	pb_u32(&p, (uint32_t)num(f[1]));
	pb_u32(&p, 10000);
	pb_wstr(&p, "Timer");
	return etlw_perfinfo(w, 0, 3, 0x0F49, o->start_ts + 2, NULL, 0, NULL, p.b, p.n);
}

static int line(struct etlw *w, const struct etlw_opts *o, char **f, int n)
{
	uint64_t t1 = o->start_ts + 1;

	if (strcmp(f[0], "process") == 0 && n >= 3)
		return scen_process(w, o, 0, 3, t1, (uint32_t)num(f[1]), 4, 259, f[2], f[2]);
	if (strcmp(f[0], "image") == 0 && n >= 5) {
		if (n >= 8 && scen_rsds(w, o, t1, (uint32_t)num(f[1]), num(f[2]), f[5], (uint32_t)num(f[6]), f[7]) != 0)
			return -1;
		return scen_image(w, o, 0, 3, t1, (uint32_t)num(f[1]), num(f[2]), num(f[3]), f[4]);
	}
	if (strcmp(f[0], "module") == 0 && n >= 4)
		return module(w, o, f);
	if ((strcmp(f[0], "method") == 0 || strcmp(f[0], "unload") == 0) && n >= 9)
		return method(w, o, f[0][0] == 'm' ? 143 : 144, f);
	if (strcmp(f[0], "interval") == 0 && n >= 2)
		return interval(w, o, f);
	if (strcmp(f[0], "sample") == 0 && n >= 5)
		return sample(w, o, f);
	return -1;
}

int scen_build_profile(const struct etlw_opts *o, const char *spec, uint8_t **out, size_t *len)
{
	FILE *in = fopen(spec, "r");
	struct etlw *w = in ? etlw_new(o) : NULL;
	char buf[2048];
	int rc = 0;

	if (!w) {
		if (in)
			fclose(in);
		return -1;
	}
	while (rc == 0 && fgets(buf, sizeof(buf), in)) {
		char *f[MAX_FIELDS] = { NULL }, *save = NULL, *tok;
		int n = 0;
		buf[strcspn(buf, "\r\n")] = 0;
		if (!buf[0] || buf[0] == '#')
			continue;
		for (tok = strtok_r(buf, "\t", &save); tok && n < MAX_FIELDS; tok = strtok_r(NULL, "\t", &save))
			f[n++] = tok;
		rc = line(w, o, f, n);
	}
	fclose(in);
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc;
}
