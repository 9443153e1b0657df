/*
 * scenario.h - deterministic synthetic traces for tests and the benchmark.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLW_SCENARIO_H
#define ETLW_SCENARIO_H

#include "etlw.h"

/* Record kinds the mixed scenario cycles through, in this order. */
enum scen_kind { SK_SYSTEM, SK_COMPACT, SK_PERFINFO, SK_FULL, SK_INSTANCE, SK_EVENT, SK_MESSAGE, SK_COUNT };

extern const struct etl_guid scen_provider;  /* EVENT_HEADER provider */
extern const struct etl_guid scen_classic;   /* FULL/INSTANCE class */
extern const struct etl_guid scen_related;   /* related activity id on every 3rd EVENT record */

/* What record i of the mixed scenario is. */
enum scen_kind scen_kind_of(unsigned i);
unsigned scen_cpu_of(unsigned i, unsigned ncpu);
uint64_t scen_ts_of(const struct etlw_opts *o, unsigned i, unsigned ncpu);
size_t scen_payload_len(unsigned i);
uint8_t scen_payload_byte(unsigned i, size_t k);

/* Writes n records of the mixed scenario.  Returns 0 or -1. */
int scen_write_mixed(struct etlw *w, const struct etlw_opts *o, unsigned n);
/* Builds a whole file (malloc'd). */
int scen_build_mixed(const struct etlw_opts *o, unsigned n, uint8_t **out, size_t *len);

/* The "system" scenario: Process, Thread and Image records (see system.c). */
int scen_process(struct etlw *w, const struct etlw_opts *o, unsigned cpu, unsigned opcode, uint64_t ts,
		 uint32_t pid, uint32_t ppid, int32_t exit_status, const char *image, const char *cmd);
int scen_thread(struct etlw *w, const struct etlw_opts *o, unsigned cpu, unsigned opcode, uint64_t ts,
		uint32_t pid, uint32_t tid);
int scen_image(struct etlw *w, const struct etlw_opts *o, unsigned cpu, unsigned opcode, uint64_t ts,
	       uint32_t pid, uint64_t base, uint64_t size, const char *name);
int scen_sample(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint64_t ts, uint64_t ip, uint32_t tid);
/* Thread/SetName (PerfInfo header): the thread's name. */
int scen_setname(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint64_t ts, uint32_t pid, uint32_t tid,
		 const char *name);
/* ImageID/DbgID_RSDS (classic, as the merge writes it): the PDB of the image at base, its GUID as
 * "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
int scen_rsds(struct etlw *w, const struct etlw_opts *o, uint64_t ts, uint32_t pid, uint64_t base, const char *guid,
	      uint32_t age, const char *pdb);
/* Thread/CSwitch (compact header, version 2) on cpu: from old_tid to new_tid. */
int scen_cswitch(struct etlw *w, unsigned cpu, uint64_t ts, uint32_t new_tid, uint32_t old_tid,
		 uint8_t wait_reason);
/* The "tables64" scenario (tables.c): every kind of record the analysis tables read, with
 * answers tests/check_tables.c knows. */
int scen_build_tables(const struct etlw_opts *o, uint8_t **out, size_t *len);
/* The "kproviders64" scenario (kproviders.c): the kernel's manifest providers, no kernel logger. */
int scen_build_kproviders(const struct etlw_opts *o, uint8_t **out, size_t *len);
/* The "hostile64" scenario (kproviders.c): names with terminal controls and bidirectional marks. */
int scen_build_hostile(const struct etlw_opts *o, uint8_t **out, size_t *len);
/* StackWalk/Stack logged at ts: the stack of the event of time stamp event_ts. */
int scen_stack_at(struct etlw *w, const struct etlw_opts *o, unsigned cpu, uint64_t ts, uint64_t event_ts,
		  uint32_t pid, uint32_t tid, const uint64_t *frames, unsigned n);
int scen_write_system(struct etlw *w, const struct etlw_opts *o);
int scen_build_system(const struct etlw_opts *o, uint8_t **out, size_t *len);
/* compressed stacks: samples with StackKeyKernel/User records, a key evicted (KeyDelete) and
 * used again, an undefined key, a stack record away from its event, the KeyRundown at the end */
int scen_build_stackkeys(const struct etlw_opts *o, uint8_t **out, size_t *len);
/* The same, repeated `rounds` times 10 ms apart with cache entries of their own (the KeyRundown
 * records of every round at the end). */
int scen_build_stackkeys_rounds(const struct etlw_opts *o, unsigned rounds, uint8_t **out, size_t *len);
/* The same rounds after lead samples without stack records (the trace shows stacks only later). */
int scen_build_stackkeys_lead(const struct etlw_opts *o, unsigned lead, unsigned rounds, uint8_t **out, size_t *len);
/* One sample with its stack record, then `quiet` samples without any (a tick apart, on CPUs 0
 * and 1 in turn), then a sample on CPU 0 whose stack record is logged a tick later on CPU 1:
 * what only the trace's stack index gives it, which a reader asks only once the trace showed a
 * stack record. */
int scen_build_stack_then_quiet(const struct etlw_opts *o, unsigned quiet, uint8_t **out, size_t *len);

/* n events with a stack key item (EVENT_HEADER_EXT_TYPE_STACK_KEY64) every fifth, on o->ncpu
 * CPUs in turn, then the KeyRundown records that define their two keys. */
int scen_build_keyed_events(const struct etlw_opts *o, unsigned n, uint8_t **out, size_t *len);

/* The "showcase" scenario (showcase.c): the system scenario with TraceLogging and manifest events
 * (fixtures/manifests/showcase.man); damaged = 1 cuts one event short. */
extern const struct etl_guid scen_showcase_manifest;
int scen_build_showcase(const struct etlw_opts *o, int damaged, uint8_t **out, size_t *len);
/* Image records whose layout their bytes decide, one that no layout fits (images.c). */
int scen_build_images32(const struct etlw_opts *o, uint8_t **out, size_t *len);
/* A CPU profile from a spec file (profile.c): processes, images with their PDB's DbgID_RSDS
 * record, .NET modules and methods, the sampling interval and samples with their stacks. */
int scen_build_profile(const struct etlw_opts *o, const char *spec, uint8_t **out, size_t *len);
/* WPP messages of fixtures/tmf/ (wpp.c). */
int scen_build_wpp(const struct etlw_opts *o, uint8_t **out, size_t *len);

#endif
