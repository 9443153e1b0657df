/*
 * subject.c - the process an event is about (etl_reader_event_pid).
 *
 * An event whose header names a process is about that process.  Many kernel
 * events carry none (PerfInfo headers, and headers of -1): for them, as
 * TraceEvent does, the payload names a thread - or a process - and the thread
 * table at the event's time gives the process.  A context switch is about the
 * thread switched in whatever its header says.  One rule per kind
 * (docs/TABLES.md), payload offsets from the kernel's MOF layouts (p = the
 * pointer size; checked against the decoded field of every event of the
 * corpus and the synthetic traces by tests/check_tables.c):
 *
 *   PerfInfo Sample (46), PmcCounterProf (47)   ThreadID at p (after InstructionPointer)
 *   Thread CSwitch (36), always                 NewThreadId at 0
 *   Thread ReadyThread (50)                     TThreadId at 0
 *   Thread SetName (72), Start/Stop/DCStart/DCEnd (1-4)
 *                                               ProcessId at 0 (a process)
 *   DiskIO Read, Write (10, 11), version 3      IssuingThreadId at 32 + 2p
 *   DiskIO ReadInit, WriteInit, FlushInit (12, 13, 15)
 *                                               IssuingThreadId at p
 *   DiskIO FlushBuffers (14), version 3         IssuingThreadId at 16 + p
 *   PageFault HardFault (32)                    TThreadId at 16 + 2p
 *   FileIO operations (64-75, 77)               TTID: version 2 after IrpPtr (at p; at 8 + p for
 *                                               Read and Write, after Offset), version 3 a u32
 *                                               after the pointers (Create 2p; Cleanup, Close,
 *                                               Flush, DirEnum, DirNotify 3p; Read, Write 8 + 3p;
 *                                               SetInfo, Delete, Rename, QueryInfo, FSControl 4p)
 *   TcpIp, UdpIp (every opcode)                 PID at 0 (a process)
 *
 * Thread 0 is the idle thread of every processor: its events are process
 * 0's (the Idle process).
 *
 * SPDX-License-Identifier: MIT
 */
#include "state/state.h"
#include "util/cursor.h"

/* kernel groups: the high byte of a kernel record's hook id */
#define G_DISKIO 0x01
#define G_PAGEFAULT 0x02
#define G_FILEIO 0x04
#define G_THREAD 0x05
#define G_TCPIP 0x06
#define G_UDPIP 0x08
#define G_PERFINFO 0x0F

/* What the payload names: a thread (IS_TID) or a process (IS_PID), at an offset. */
enum { NONE = 0, IS_TID = 1, IS_PID = 2 };

struct rule {
	int what;
	size_t at;      /* offset of the u32 */
	int first;      /* the payload decides even when the header names a process */
};

static struct rule rule(int what, size_t at)
{
	struct rule r = { what, at, 0 };

	return r;
}

/* The kernel group of a kernel header's hook (the MOF-class records are decoded with their
 * header's pid: not looked at here). */
static int group_of(const struct etl_event *ev)
{
	switch (ev->kind) {
	case ETL_HEADER_SYSTEM: case ETL_HEADER_COMPACT: case ETL_HEADER_PERFINFO:
		return ev->hook_id >> 8;
	default:
		return -1;
	}
}

/* FileIO: where the operation's thread is (ktables.c's FileIo and FileIo_V3 layouts). */
static struct rule fileio_rule(unsigned op, unsigned version, size_t p)
{
	size_t at;

	if (op < 64 || op > 77 || op == 76 || version < 2)
		return rule(NONE, 0);
	if (version == 2)
		at = op == 67 || op == 68 ? 8 + p : p;
	else if (op == 64)
		at = 2 * p;
	else if (op == 67 || op == 68)
		at = 8 + 3 * p;
	else if (op == 69 || op == 70 || op == 71 || op == 74 || op == 75)
		at = 4 * p;
	else
		at = 3 * p;
	return rule(IS_TID, at);
}

static struct rule rule_of(const struct etl_event *ev)
{
	size_t p = ev->ptr_size;
	unsigned op = ev->opcode;
	struct rule r = rule(NONE, 0);

	switch (group_of(ev)) {
	case G_PERFINFO:
		if (op == 46 || op == 47)
			r = rule(IS_TID, p);
		break;
	case G_THREAD:
		if (op == 36)
			r = rule(IS_TID, 0), r.first = 1;
		else if (op == 50)
			r = rule(IS_TID, 0);
		else if (op == 72 || (op >= 1 && op <= 4))
			r = rule(IS_PID, 0);
		break;
	case G_DISKIO:
		if ((op == 10 || op == 11) && ev->version >= 3)
			r = rule(IS_TID, 32 + 2 * p);
		else if (op == 12 || op == 13 || op == 15)
			r = rule(IS_TID, p);
		else if (op == 14 && ev->version >= 3)
			r = rule(IS_TID, 16 + p);
		break;
	case G_PAGEFAULT:
		if (op == 32)
			r = rule(IS_TID, 16 + 2 * p);
		break;
	case G_FILEIO:
		r = fileio_rule(op, ev->version, p);
		break;
	case G_TCPIP: case G_UDPIP:
		r = rule(IS_PID, 0);
		break;
	default:
		break;
	}
	if (r.what != NONE && (ev->payload_len < r.at + 4 || (ev->pid != ETL_ID_NONE && !r.first)))
		r.what = NONE; /* (the header decides) */
	return r;
}

uint32_t etl__state_subject_tid(const struct etl_event *ev)
{
	struct rule r = rule_of(ev);

	if (r.what == IS_TID)
		return etl_le32(ev->payload + r.at);
	return ev->tid;
}

uint32_t etl__state_event_pid(const struct etl_state *st, const struct etl_event *ev)
{
	struct rule r = rule_of(ev);
	uint32_t tid;
	const struct etl_process *p;

	if (r.what == NONE && ev->pid != ETL_ID_NONE)
		return ev->pid;
	if (r.what == IS_PID)
		return etl_le32(ev->payload + r.at);
	tid = r.what == IS_TID ? etl_le32(ev->payload + r.at) : ev->tid;
	if (tid == 0)
		return 0; /* the idle thread */
	if (tid == ETL_ID_NONE)
		return ETL_ID_NONE;
	p = etl__state_thread_process(st, ev->trace_index, tid);
	return p ? p->pid : ETL_ID_NONE;
}

uint32_t etl_event_subject_tid(const struct etl_event *ev)
{
	return ev ? etl__state_subject_tid(ev) : ETL_ID_NONE;
}
