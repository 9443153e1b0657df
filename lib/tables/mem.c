/*
 * mem.c - the hard-faults table: one row per Memory/HardFault of the kernel's
 * PageFault group (opcode 32), a page the memory manager read from a file -
 * what WPA's Hard Faults table and PerfView's Memory Hard Faults view show.
 *
 * The record gives the thread (ThreadID), the file object, the offset and the
 * bytes read and the faulting address; its derived fields (ETL_OPTION_DERIVE)
 * the time the read took (ElapsedTimeMSec: the record's time less its
 * InitialTime) and the file's name through the trace's file records, with the
 * drive letter where the trace maps the volume.
 *
 * SPDX-License-Identifier: MIT
 */
#include "tables/tables.h"

#define OP_HARD_FAULT 32

static int mem_event(struct etl_tables *T, const struct etl_event *ev, int group)
{
	struct etl_table *t = T->tab[TK_HARD_FAULTS];
	const struct etl_decoded *d;
	const struct etl_property *p;
	uint64_t v;
	uint32_t pid;
	double ms;
	size_t row;
	int ok;

	(void)group;
	if (!t || etl_event_opcode(ev) != OP_HARD_FAULT || !(d = etl__tables_decode(T, ev)) ||
	    (row = etl__table_row(t)) == SIZE_MAX)
		return 0;
	etl__table_u64(t, row, HF_TRACE, (uint64_t)etl_event_trace_index(ev));
	etl__table_u64(t, row, HF_TIME, etl_event_filetime(ev));
	if ((p = etl__tables_derived(d, "ElapsedTimeMSec")) != NULL && etl_property_as_double(p, &ms) == ETL_OK)
		etl__table_double(t, row, HF_ELAPSED, ms);
	if ((pid = etl_reader_event_pid(T->r, ev)) != ETL_ID_NONE) { /* (the faulting thread's process) */
		etl__table_u64(t, row, HF_PID, pid);
		etl__table_text(t, row, HF_PROCESS, pid == 0 ? "Idle" : etl__tables_process_name(T, ev, pid));
	}
	if ((v = etl__tables_field_u64(d, "ThreadID", &ok)), ok)
		etl__table_u64(t, row, HF_TID, v);
	if ((p = etl__tables_derived(d, "FileName")) != NULL)
		etl__table_text(t, row, HF_FILE, etl_property_format(p));
	if ((v = etl__tables_field_u64(d, "ReadOffset", &ok)), ok)
		etl__table_u64(t, row, HF_OFFSET, v);
	if ((v = etl__tables_field_u64(d, "ByteCount", &ok)), ok)
		etl__table_u64(t, row, HF_BYTES, v);
	if ((v = etl__tables_field_u64(d, "VirtualAddress", &ok)), ok)
		etl__table_u64(t, row, HF_ADDRESS, v);
	etl__tables_row_done(T, TK_HARD_FAULTS);
	return 0;
}

const struct tables_part etl__tables_part_mem = {
	.name = "hard-faults", .groups = GROUP_BIT(G_PAGEFAULT), .event = mem_event,
};
