/*
 * defs.c - the tables and their columns (docs/TABLES.md documents each).
 *
 * SPDX-License-Identifier: MIT
 */
#include "tables/tables.h"

#define U ETL_COLUMN_UINT
#define I ETL_COLUMN_INT
#define D ETL_COLUMN_DOUBLE
#define T ETL_COLUMN_TEXT
#define W ETL_COLUMN_TIME
#define B ETL_COLUMN_BOOL
#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

static const struct tcol c_processes[PR_NCOLS] = {
	{ "trace", U, "" }, { "pid", U, "" }, { "parent_pid", U, "" }, { "image", T, "" }, { "command_line", T, "" },
	{ "session", U, "" }, { "user_sid", T, "" }, { "start_time", W, "FILETIME" },
	{ "start_is_trace_start", B, "" }, { "end_time", W, "FILETIME" }, { "exit_code", I, "" },
	{ "threads", U, "" }, { "images", U, "" },
};
static const struct tcol c_threads[TH_NCOLS] = {
	{ "trace", U, "" }, { "pid", U, "" }, { "tid", U, "" }, { "process", T, "" }, { "name", T, "" },
	{ "start_time", W, "FILETIME" }, { "start_is_trace_start", B, "" }, { "end_time", W, "FILETIME" },
	{ "start_address", U, "address" }, { "start_function", T, "" },
};
static const struct tcol c_images[IM_NCOLS] = {
	{ "trace", U, "" }, { "pid", U, "" }, { "process", T, "" }, { "path", T, "" }, { "base", U, "address" },
	{ "size", U, "bytes" }, { "load_time", W, "FILETIME" }, { "load_is_trace_start", B, "" },
	{ "unload_time", W, "FILETIME" }, { "checksum", U, "hex" }, { "time_date_stamp", U, "hex" }, { "pdb_guid", T, "" },
	{ "pdb_age", U, "" }, { "pdb_name", T, "" },
};
static const struct tcol c_cpu_samples[CS_NCOLS] = {
	{ "trace", U, "" }, { "time", W, "FILETIME" }, { "cpu", U, "" }, { "pid", U, "" }, { "process", T, "" },
	{ "tid", U, "" }, { "thread_name", T, "" }, { "weight", D, "ms" }, { "address", U, "address" }, { "module", T, "" },
	{ "function", T, "" }, { "stack", T, "" },
};
static const struct tcol c_cpu_usage[CU_NCOLS] = {
	{ "trace", U, "" }, { "cpu", U, "" }, { "pid", U, "" }, { "process", T, "" }, { "tid", U, "" },
	{ "thread_name", T, "" }, { "switch_in_time", W, "FILETIME" }, { "switch_out_time", W, "FILETIME" },
	{ "cpu_usage", D, "ms" }, { "ready_time", W, "FILETIME" }, { "ready", D, "ms" }, { "readying_tid", U, "" },
	{ "readying_pid", U, "" }, { "wait_reason", T, "" }, { "switch_out_reason", T, "" }, { "priority", U, "" },
};
static const struct tcol c_disk_io[DK_NCOLS] = {
	{ "trace", U, "" }, { "init_time", W, "FILETIME" }, { "complete_time", W, "FILETIME" },
	{ "elapsed", D, "ms" }, { "pid", U, "" }, { "process", T, "" }, { "tid", U, "" }, { "disk", U, "" },
	{ "type", T, "" }, { "offset", U, "bytes" }, { "bytes", U, "bytes" }, { "file_name", T, "" },
	{ "priority", T, "" }, { "irp", U, "address" },
};
static const struct tcol c_file_io[FI_NCOLS] = {
	{ "trace", U, "" }, { "start_time", W, "FILETIME" }, { "end_time", W, "FILETIME" }, { "elapsed", D, "ms" },
	{ "pid", U, "" }, { "process", T, "" }, { "tid", U, "" }, { "operation", T, "" }, { "file_name", T, "" },
	{ "offset", U, "bytes" }, { "bytes", U, "bytes" }, { "status", U, "hex" }, { "irp", U, "address" },
};
static const struct tcol c_network[NW_NCOLS] = {
	{ "trace", U, "" }, { "time", W, "FILETIME" }, { "pid", U, "" }, { "process", T, "" }, { "protocol", T, "" },
	{ "operation", T, "" }, { "local_address", T, "" }, { "local_port", U, "" }, { "remote_address", T, "" },
	{ "remote_port", U, "" }, { "bytes", U, "bytes" }, { "source", T, "" },
};
static const struct tcol c_gc[GC_NCOLS] = {
	{ "trace", U, "" }, { "pid", U, "" }, { "process", T, "" }, { "gc_number", U, "" }, { "generation", U, "" },
	{ "reason", T, "" }, { "type", T, "" }, { "start_time", W, "FILETIME" }, { "end_time", W, "FILETIME" },
	{ "duration", D, "ms" }, { "pause_start_time", W, "FILETIME" }, { "pause", D, "ms" },
	{ "heap_before", U, "bytes" }, { "heap_after", U, "bytes" }, { "promoted", U, "bytes" },
};
static const struct tcol c_exceptions[EX_NCOLS] = {
	{ "trace", U, "" }, { "time", W, "FILETIME" }, { "pid", U, "" }, { "process", T, "" }, { "tid", U, "" },
	{ "type", T, "" }, { "message", T, "" }, { "hresult", U, "hex" },
};
static const struct tcol c_jit[JT_NCOLS] = {
	{ "trace", U, "" }, { "time", W, "FILETIME" }, { "pid", U, "" }, { "process", T, "" }, { "tid", U, "" },
	{ "namespace", T, "" }, { "name", T, "" }, { "signature", T, "" }, { "module", T, "" },
	{ "address", U, "address" }, { "size", U, "bytes" }, { "jitted", B, "" }, { "jit_time", D, "ms" },
};

static const struct tcol c_hard_faults[HF_NCOLS] = {
	{ "trace", U, "" }, { "time", W, "FILETIME" }, { "elapsed", D, "ms" }, { "pid", U, "" }, { "process", T, "" },
	{ "tid", U, "" }, { "file_name", T, "" }, { "offset", U, "bytes" }, { "bytes", U, "bytes" },
	{ "address", U, "address" },
};

const struct tdef etl__table_defs[TK_COUNT] = {
	{ "processes", "one row per process record: running at the start, started or ended during the trace",
	  c_processes, N(c_processes), 0, PR_PID, PR_IMAGE, PR_START, PR_END, -1, SPAN_LIFETIME },
	{ "threads", "one row per thread", c_threads, N(c_threads), 0,
	  TH_PID, TH_PROCESS, TH_START, TH_END, -1, SPAN_LIFETIME },
	{ "images", "one row per image a process had loaded, with its lifetime and PDB", c_images, N(c_images), 0,
	  IM_PID, IM_PROCESS, IM_LOAD, IM_UNLOAD, -1, SPAN_LIFETIME },
	{ "cpu-samples", "one row per sampled-profile event (PerfInfo/Sample)", c_cpu_samples, N(c_cpu_samples), 1,
	  CS_PID, CS_PROCESS, CS_TIME, -1, -1, SPAN_POINT },
	{ "cpu-usage", "one row per time a thread ran on a processor, from context switches", c_cpu_usage,
	  N(c_cpu_usage), 1, CU_PID, CU_PROCESS, CU_IN, CU_OUT, CU_USAGE, SPAN_CLIPPED },
	{ "disk-io", "one row per disk I/O, its issue paired with its completion", c_disk_io, N(c_disk_io), 1,
	  DK_PID, DK_PROCESS, DK_INIT, DK_COMPLETE, -1, SPAN_POINT },
	{ "file-io", "one row per file operation, paired with its OperationEnd", c_file_io, N(c_file_io), 1,
	  FI_PID, FI_PROCESS, FI_START, -1, -1, SPAN_POINT },
	{ "network", "one row per TCP or UDP send, receive, connection or retransmission", c_network,
	  N(c_network), 1, NW_PID, NW_PROCESS, NW_TIME, -1, -1, SPAN_POINT },
	{ "gc", "one row per .NET garbage collection", c_gc, N(c_gc), 1,
	  GC_PID, GC_PROCESS, GC_START, -1, -1, SPAN_POINT },
	{ "exceptions", "one row per .NET exception thrown", c_exceptions, N(c_exceptions), 1,
	  EX_PID, EX_PROCESS, EX_TIME, -1, -1, SPAN_POINT },
	{ "jit", "one row per .NET method loaded (compiled) during the trace", c_jit, N(c_jit), 1,
	  JT_PID, JT_PROCESS, JT_TIME, -1, -1, SPAN_POINT },
	{ "hard-faults", "one row per hard page fault: a page read from a file", c_hard_faults, N(c_hard_faults), 1,
	  HF_PID, HF_PROCESS, HF_TIME, -1, -1, SPAN_POINT },
};

size_t etl_table_kind_count(void)
{
	return TK_COUNT;
}

const char *etl_table_kind_name(size_t i)
{
	return i < TK_COUNT ? etl__table_defs[i].name : NULL;
}

const char *etl_table_kind_description(size_t i)
{
	return i < TK_COUNT ? etl__table_defs[i].desc : NULL;
}
