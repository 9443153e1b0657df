/*
 * system.c - the "system" scenario: the kernel records that describe
 * processes, threads and images (rundown, start, stop, a reused pid, image
 * loads and an unload, a thread name, context switches, a sample's stack), in
 * the layouts of Process v3, Thread v3, Thread/SetName v2, CSwitch v2, Image
 * v3 and StackWalk/Stack v2, for either pointer size.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pbuf.h"
#include "scenario.h"

int scen_process(struct etlw *w, const struct etlw_opts *o, unsigned cpu, unsigned opcode, uint64_t ts,
		 uint32_t pid, uint32_t ppid, int32_t exit_status, const char *image, const char *cmd)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };

	pb_ptr(&p, 0xffff800000001000ULL + pid); /* UniqueProcessKey */
	pb_u32(&p, pid);
	pb_u32(&p, ppid);
	pb_u32(&p, 1);                          /* SessionID */
	pb_u32(&p, (uint32_t)exit_status);
	pb_ptr(&p, 0x1ab000);                   /* DirectoryTableBase */
	pb_u32(&p, 0);                          /* a null UserSID */
	pb_astr(&p, image);
	pb_wstr(&p, cmd);
	return etlw_system(w, cpu, 0, 3, (uint16_t)(0x0300 | opcode), 7, pid, ts, p.b, p.n);
}

int scen_thread(struct etlw *w, const struct etlw_opts *o, unsigned cpu, unsigned opcode, uint64_t ts,
		uint32_t pid, uint32_t tid)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };
	int i;

	pb_u32(&p, pid);
	pb_u32(&p, tid);
	for (i = 0; i < 7; i++) /* stack bounds, affinity, start address, TEB */
		pb_ptr(&p, 0x7ff000000ULL + (uint64_t)i * 0x1000);
	pb_u32(&p, 0);          /* SubProcessTag */
	pb_u32(&p, 0x00020508); /* priorities and flags */
	pb_wstr(&p, "");        /* ThreadName */
	return etlw_system(w, cpu, 0, 3, (uint16_t)(0x0500 | opcode), tid, pid, ts, p.b, p.n);
}

int scen_image(struct etlw *w, const struct etlw_opts *o, unsigned cpu, unsigned opcode, uint64_t ts,
	       uint32_t pid, uint64_t base, uint64_t size, const char *name)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };
	int i;

	pb_ptr(&p, base);
	pb_ptr(&p, size);
	pb_u32(&p, pid);
	pb_u32(&p, 0x1234);     /* ImageChecksum */
	pb_u32(&p, 0x5678);     /* TimeDateStamp */
	pb_u32(&p, 0);          /* signature level and type, reserved */
	pb_ptr(&p, base);       /* DefaultBase */
	for (i = 0; i < 4; i++)
		pb_u32(&p, 0);
	pb_wstr(&p, name);
	return etlw_system(w, cpu, 0, 3, (uint16_t)(0x1400 | opcode), 7, pid, ts, p.b, p.n);
}

/* PerfInfo SampledProfile: instruction pointer, thread, count 1, flags 0 */
int scen_sample(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint64_t ts, uint64_t ip, uint32_t tid)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };

	pb_ptr(&p, ip);
	pb_u32(&p, tid);
	pb_u32(&p, 1);
	return etlw_perfinfo(w, cpu, 2, 0x0F2E, ts, NULL, 0, NULL, p.b, p.n);
}

/* Thread/SetName (PerfInfo header, version 2): ProcessID, ThreadID, ThreadName */
int scen_setname(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint64_t ts, uint32_t pid, uint32_t tid,
		 const char *name)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };

	pb_u32(&p, pid);
	pb_u32(&p, tid);
	pb_wstr(&p, name);
	return etlw_perfinfo(w, cpu, 2, 0x0548, ts, NULL, 0, NULL, p.b, p.n);
}

/* Thread/CSwitch (compact header, version 2): new and old thread, priorities, wait reason... */
int scen_cswitch(struct etlw *w, unsigned cpu, uint64_t ts, uint32_t new_tid, uint32_t old_tid,
			uint8_t wait_reason)
{
	struct pbuf p = { .n = 0, .ptr = 8 };

	pb_u32(&p, new_tid);
	pb_u32(&p, old_tid);
	p.b[p.n++] = 8;           /* NewThreadPriority */
	p.b[p.n++] = 9;           /* OldThreadPriority */
	p.b[p.n++] = 1;           /* PreviousCState */
	p.b[p.n++] = 0;           /* SpareByte */
	p.b[p.n++] = wait_reason; /* OldThreadWaitReason */
	p.b[p.n++] = 1;           /* OldThreadWaitMode: user */
	p.b[p.n++] = 5;           /* OldThreadState: waiting */
	p.b[p.n++] = (uint8_t)cpu;
	pb_u32(&p, 3);            /* NewThreadWaitTime */
	pb_u32(&p, 0);            /* Reserved */
	return etlw_system(w, cpu, 1, 2, 0x0524, 0, 0, ts, p.b, p.n);
}

/* StackWalk/Stack (PerfInfo header, version 2) logged at ts: the stack of the event of time
 * stamp event_ts */
int scen_stack_at(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint64_t ts, uint64_t event_ts,
			 uint32_t pid, uint32_t tid, const uint64_t *frames, unsigned n)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };
	unsigned i;

	pb_u32(&p, (uint32_t)event_ts); /* EventTimeStamp: the event's raw time stamp */
	pb_u32(&p, (uint32_t)(event_ts >> 32));
	pb_u32(&p, pid);
	pb_u32(&p, tid);
	for (i = 0; i < n; i++)
		pb_ptr(&p, frames[i]);
	return etlw_perfinfo(w, cpu, 2, 0x1820, ts, NULL, 0, NULL, p.b, p.n);
}

/* StackWalk/Stack: the stack of the event logged just before */
static int scen_stack(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint64_t ts, uint32_t pid,
		      uint32_t tid, const uint64_t *frames, unsigned n)
{
	return scen_stack_at(w, o, cpu, ts, ts, pid, tid, frames, n);
}

int scen_write_system(struct etlw *w, const struct etlw_opts *o)
{
	uint64_t t0 = o->start_ts, tick = o->perf_freq / 1000; /* a millisecond */
	uint64_t kbase = o->ptr_size == 8 ? 0xfffff80000000000ULL : 0x80000000ULL;
	uint64_t ubase = o->ptr_size == 8 ? 0x140000000ULL : 0x400000ULL;
	int rc = 0;

	/* rundown: what was running when the trace began */
	rc |= scen_process(w, o, 0, 3, t0 + 1 * tick, 400, 4, 259, "old.exe", "old.exe /x");
	rc |= scen_thread(w, o, 0, 3, t0 + 2 * tick, 400, 4001);
	rc |= scen_image(w, o, 1, 3, t0 + 3 * tick, 0, kbase, 0x100000, "\\SystemRoot\\system32\\ntoskrnl.exe");
	/* a process starts, loads its image, runs, stops */
	rc |= scen_process(w, o, 1, 1, t0 + 10 * tick, 500, 400, 259, "new.exe", "new.exe -v \"a b\"");
	rc |= scen_thread(w, o, 1, 1, t0 + 11 * tick, 500, 5001);
	rc |= scen_setname(w, o, 1, t0 + 11 * tick + tick / 4, 500, 5001, "worker one");
	/* on CPU 1: idle, then new.exe's thread, then old.exe's, then idle again */
	rc |= scen_cswitch(w, 1, t0 + 11 * tick + tick / 2, 5001, 0, 0);
	rc |= scen_cswitch(w, 1, t0 + 13 * tick + tick / 2, 4001, 5001, 6);
	rc |= scen_cswitch(w, 1, t0 + 15 * tick, 0, 4001, 13);
	rc |= scen_image(w, o, 0, 10, t0 + 12 * tick, 500, ubase, 0x20000, "\\Device\\HarddiskVolume1\\new.exe");
	rc |= scen_sample(w, o, 0, t0 + 13 * tick, ubase + 0x1234, 5001);
	{
		/* its stack: in new.exe, then in the kernel; then a stack record naming another thread,
		 * which is not the sample's */
		const uint64_t frames[3] = { ubase + 0x1234, ubase + 0x2000, kbase + 0x10 };
		rc |= scen_stack(w, o, 0, t0 + 13 * tick, 500, 5001, frames, 3);
		rc |= scen_stack(w, o, 0, t0 + 13 * tick, 400, 4001, frames + 2, 1);
	}
	rc |= scen_image(w, o, 0, 2, t0 + 14 * tick, 500, ubase, 0x20000, "\\Device\\HarddiskVolume1\\new.exe");
	rc |= scen_process(w, o, 1, 2, t0 + 20 * tick, 500, 400, 3, "new.exe", "new.exe -v \"a b\"");
	/* its pid is reused */
	rc |= scen_process(w, o, 0, 1, t0 + 30 * tick, 500, 400, 259, "reuse.exe", "reuse.exe");
	/* rundown at the end: old.exe still runs */
	rc |= scen_process(w, o, 1, 4, t0 + 40 * tick, 400, 4, 259, "old.exe", "old.exe /x");
	return rc ? -1 : 0;
}

/* StackWalk StackKeyKernel/StackKeyUser (hook 0x1825/0x1826, PerfInfo header, version 2):
 * EventTimeStamp, StackProcess, StackThread, the key */
static int scen_key_ref(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint16_t hook, uint64_t ts,
			uint64_t event_ts, uint32_t pid, uint32_t tid, uint64_t key)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };

	pb_u32(&p, (uint32_t)event_ts);
	pb_u32(&p, (uint32_t)(event_ts >> 32));
	pb_u32(&p, pid);
	pb_u32(&p, tid);
	pb_ptr(&p, key);
	return etlw_perfinfo(w, cpu, 2, hook, ts, NULL, 0, NULL, p.b, p.n);
}

/* StackWalk KeyDelete/KeyRundown (hook 0x1823/0x1824): the key, its frames */
static int scen_key_def(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint16_t hook, uint64_t ts,
			uint64_t key, const uint64_t *frames, unsigned n)
{
	struct pbuf p = { .n = 0, .ptr = o->ptr_size };
	unsigned i;

	pb_ptr(&p, key);
	for (i = 0; i < n; i++)
		pb_ptr(&p, frames[i]);
	return etlw_perfinfo(w, cpu, 2, hook, ts, NULL, 0, NULL, p.b, p.n);
}

int scen_build_stackkeys_rounds(const struct etlw_opts *o, unsigned rounds, uint8_t **out, size_t *len)
{
	return scen_build_stackkeys_lead(o, 0, rounds, out, len);
}

int scen_build_stackkeys_lead(const struct etlw_opts *o, unsigned lead, unsigned rounds, uint8_t **out, size_t *len)
{
	uint64_t tick = o->perf_freq / 1000;
	uint64_t kb = o->ptr_size == 8 ? 0xfffff80000000000ULL : 0x80000000ULL;
	uint64_t ub = o->ptr_size == 8 ? 0x140000000ULL : 0x400000ULL;
	const uint64_t fa1[2] = { kb + 0x10, kb + 0x11 }, fa2[1] = { kb + 0x30 };
	const uint64_t fu[2] = { ub + 0x100, ub + 0x200 }, fe[1] = { ub + 1 };
	struct etlw *w = etlw_new(o);
	unsigned k;
	int rc = 0;

	if (!w)
		return -1;
	/* samples without stack records first, on both CPUs, before the first round's first tick */
	for (k = 0; k < lead && k < tick; k++)
		rc |= scen_sample(w, o, k & 1, o->start_ts + k, kb + 0x10, 5001);
	for (k = 0; k < rounds; k++) {
		/* each round 10 ms after the one before, with cache entries of its own */
		uint64_t t0 = o->start_ts + 10 * k * tick;
		uint64_t ka = kb + 0x9000 + 0x1000 * k, kx = kb + 0x9200 + 0x1000 * k; /* cache entries */
		uint64_t ku = kb + 0x9100 + 0x1000 * k;
		/* A: a kernel key after it; its user part is logged later on CPU 1 */
		rc |= scen_sample(w, o, 0, t0 + 1 * tick, kb + 0x10, 5001);
		rc |= scen_key_ref(w, o, 0, 0x1825, t0 + 1 * tick + 1, t0 + 1 * tick, 500, 5001, ka);
		/* B: the same key before it is evicted */
		rc |= scen_sample(w, o, 0, t0 + 2 * tick, kb + 0x10, 5001);
		rc |= scen_key_ref(w, o, 0, 0x1825, t0 + 2 * tick + 1, t0 + 2 * tick, 500, 5001, ka);
		rc |= scen_key_ref(w, o, 1, 0x1826, t0 + 3 * tick, t0 + 1 * tick, 500, 5001, ku);
		rc |= scen_key_def(w, o, 1, 0x1823, t0 + 4 * tick, ka, fa1, 2); /* evicted */
		/* C: the key again, now for another stack */
		rc |= scen_sample(w, o, 0, t0 + 5 * tick, kb + 0x30, 5001);
		rc |= scen_key_ref(w, o, 0, 0x1825, t0 + 5 * tick + 1, t0 + 5 * tick, 500, 5001, ka);
		/* D: a key the trace never defines */
		rc |= scen_sample(w, o, 0, t0 + 6 * tick, kb + 0x40, 5001);
		rc |= scen_key_ref(w, o, 0, 0x1825, t0 + 6 * tick + 1, t0 + 6 * tick, 500, 5001, kx);
		/* E: a full stack record logged away from its event, on the other CPU */
		rc |= scen_sample(w, o, 0, t0 + 7 * tick, ub + 1, 5002);
		rc |= scen_stack_at(w, o, 1, t0 + 8 * tick, t0 + 7 * tick, 500, 5002, fe, 1);
	}
	/* the session ends: the cache's entries */
	for (k = 0; k < rounds; k++) {
		uint64_t t9 = o->start_ts + (10 * (rounds - 1) + 9) * tick + k;
		rc |= scen_key_def(w, o, 1, 0x1824, t9, kb + 0x9000 + 0x1000 * k, fa2, 1);
		rc |= scen_key_def(w, o, 1, 0x1824, t9, kb + 0x9100 + 0x1000 * k, fu, 2);
	}
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc ? -1 : 0;
}

int scen_build_stack_then_quiet(const struct etlw_opts *o, unsigned quiet, uint8_t **out, size_t *len)
{
	uint64_t tick = o->perf_freq / 1000, t = o->start_ts;
	uint64_t kb = o->ptr_size == 8 ? 0xfffff80000000000ULL : 0x80000000ULL;
	uint64_t ub = o->ptr_size == 8 ? 0x140000000ULL : 0x400000ULL;
	const uint64_t fk[2] = { kb + 0x10, kb + 0x11 }, fe[1] = { ub + 1 };
	struct etlw *w = etlw_new(o);
	unsigned k;
	int rc = 0;

	if (!w)
		return -1;
	/* one stack record first: from here on the trace shows stacks */
	rc |= scen_sample(w, o, 0, t, kb + 0x10, 5001);
	rc |= scen_stack_at(w, o, 0, t + 1, t, 500, 5001, fk, 2);
	/* then samples without stack records on both CPUs, a tick apart */
	for (k = 0; k < quiet; k++)
		rc |= scen_sample(w, o, k & 1, t + (k + 1) * tick, kb + 0x20, 5001);
	/* last, a sample whose stack record is logged away from it, on the other CPU, a tick later */
	t += (uint64_t)(quiet + 2) * tick;
	rc |= scen_sample(w, o, 0, t, ub + 1, 5002);
	rc |= scen_stack_at(w, o, 1, t + tick, t, 500, 5002, fe, 1);
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc ? -1 : 0;
}

int scen_build_keyed_events(const struct etlw_opts *o, unsigned n, uint8_t **out, size_t *len)
{
	uint64_t kb = o->ptr_size == 8 ? 0xfffff80000000000ULL : 0x80000000ULL;
	const uint64_t frames[2] = { kb + 0x10, kb + 0x20 };
	struct etlw *w = etlw_new(o);
	unsigned i;
	int rc = 0;

	if (!w)
		return -1;
	for (i = 0; i < n; i++) {
		struct etlw_event e;
		struct etlw_ext key = { 18, NULL, 16 }; /* EVENT_HEADER_EXT_TYPE_STACK_KEY64 */
		uint8_t item[16], payload[4];
		memset(&e, 0, sizeof(e));
		e.provider = scen_provider;
		e.id = (uint16_t)(i % 9);
		e.level = 4;
		e.tid = 6000 + i % 3;
		e.pid = 60;
		e.ts = o->start_ts + 10 * (uint64_t)i;
		etlw_put64(item, i);                            /* MatchId */
		etlw_put64(item + 8, kb + 0x9000 + 0x100 * (i % 2)); /* the key */
		key.data = item;
		etlw_put32(payload, i);
		rc |= etlw_event(w, i % o->ncpu, &e, i % 5 == 2 ? &key : NULL, i % 5 == 2, payload, sizeof(payload));
	}
	/* the keys' definitions, as a session's end logs them (KeyRundown) */
	for (i = 0; i < 2; i++)
		rc |= scen_key_def(w, o, 0, 0x1824, o->start_ts + 10 * (uint64_t)n + i, kb + 0x9000 + 0x100 * i, frames,
				   2 - i);
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc ? -1 : 0;
}

int scen_build_stackkeys(const struct etlw_opts *o, uint8_t **out, size_t *len)
{
	return scen_build_stackkeys_rounds(o, 1, out, len);
}

int scen_build_system(const struct etlw_opts *o, uint8_t **out, size_t *len)
{
	struct etlw *w = etlw_new(o);
	int rc;

	if (!w)
		return -1;
	rc = scen_write_system(w, o);
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc;
}
