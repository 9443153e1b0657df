/*
 * kmaps.c - names for the numbers and flags of classic kernel fields, from
 * the Windows headers that define them (wdm.h's IRP_* flags and I/O priority
 * hints, winnt.h's FILE_SHARE_* and MEM_*, ntifs.h's FILE_* create options and
 * dispositions, KWAIT_REASON, KTHREAD_STATE, KPROCESSOR_MODE), spelled as
 * PerfView spells them where it shows them.  FORMAT-NOTES section 12.
 *
 * SPDX-License-Identifier: MIT
 */
#include "decode/ktables.h"

#define MAP(name, bitmap, e) { name, bitmap, sizeof(e) / sizeof(e[0]), e, 0, 0, NULL, NULL, NULL }

/* I/O priority hint + 1 in bits 17-19 of IrpFlags (PerfView's Priority: 0x60000 is Normal) */
static const struct etl_map_entry io_priority_e[] = {
	{ 1, "VeryLow" }, { 2, "Low" }, { 3, "Normal" }, { 4, "High" }, { 5, "Critical" },
};
static const struct etl_map io_priority = MAP("IoPriority", 0, io_priority_e);

/* IRP_* flags; 0x2 and 0x40 carry two names each in wdm.h: the ones a disk IRP means */
static const struct etl_map_entry irp_flags_e[] = {
	{ 0x1, "Nocache" }, { 0x2, "PagingIo" }, { 0x4, "SynchronousApi" }, { 0x8, "AssociatedIrp" },
	{ 0x10, "BufferedIo" }, { 0x20, "DeallocateBuffer" }, { 0x40, "SynchronousPagingIo" },
	{ 0x80, "CreateOperation" }, { 0x100, "ReadOperation" }, { 0x200, "WriteOperation" },
	{ 0x400, "CloseOperation" }, { 0x800, "DeferIoCompletion" }, { 0x1000, "ObQueryName" },
	{ 0x2000, "HoldDeviceQueue" },
};
const struct etl_map etl__kmap_irp_flags = {
	"IrpFlags", 1, sizeof(irp_flags_e) / sizeof(irp_flags_e[0]), irp_flags_e, 0xE0000u, 17, "IoPriority", &io_priority, NULL,
};

/* FILE_* create options in the low 24 bits, the disposition (FILE_SUPERSEDE...) in the high 8 */
static const struct etl_map_entry disposition_e[] = {
	{ 0, "Supersede" }, { 1, "Open" }, { 2, "Create" }, { 3, "OpenIf" }, { 4, "Overwrite" }, { 5, "OverwriteIf" },
};
static const struct etl_map disposition = MAP("CreateDisposition", 0, disposition_e);
static const struct etl_map_entry create_options_e[] = {
	{ 0x1, "DirectoryFile" }, { 0x2, "WriteThrough" }, { 0x4, "SequentialOnly" },
	{ 0x8, "NoIntermediateBuffering" }, { 0x10, "SynchronousIoAlert" }, { 0x20, "SynchronousIoNonAlert" },
	{ 0x40, "NonDirectoryFile" }, { 0x80, "CreateTreeConnection" }, { 0x100, "CompleteIfOplocked" },
	{ 0x200, "NoEaKnowledge" }, { 0x400, "OpenRemoteInstance" }, { 0x800, "RandomAccess" },
	{ 0x1000, "DeleteOnClose" }, { 0x2000, "OpenByFileId" }, { 0x4000, "OpenForBackupIntent" },
	{ 0x8000, "NoCompression" }, { 0x10000, "OpenRequiringOplock" }, { 0x100000, "ReserveOpfilter" },
	{ 0x200000, "OpenReparsePoint" }, { 0x400000, "OpenNoRecall" }, { 0x800000, "OpenForFreeSpaceQuery" },
};
const struct etl_map etl__kmap_create_options = {
	"CreateOptions", 1, sizeof(create_options_e) / sizeof(create_options_e[0]), create_options_e, 0xFF000000u, 24,
	"Disposition", &disposition, NULL,
};

static const struct etl_map_entry share_access_e[] = { { 0x1, "Read" }, { 0x2, "Write" }, { 0x4, "Delete" } };
const struct etl_map etl__kmap_share_access = MAP("ShareAccess", 1, share_access_e);

/* KWAIT_REASON */
static const struct etl_map_entry wait_reason_e[] = {
	{ 0, "Executive" }, { 1, "FreePage" }, { 2, "PageIn" }, { 3, "PoolAllocation" }, { 4, "DelayExecution" },
	{ 5, "Suspended" }, { 6, "UserRequest" }, { 7, "WrExecutive" }, { 8, "WrFreePage" }, { 9, "WrPageIn" },
	{ 10, "WrPoolAllocation" }, { 11, "WrDelayExecution" }, { 12, "WrSuspended" }, { 13, "WrUserRequest" },
	{ 14, "WrEventPair" }, { 15, "WrQueue" }, { 16, "WrLpcReceive" }, { 17, "WrLpcReply" },
	{ 18, "WrVirtualMemory" }, { 19, "WrPageOut" }, { 20, "WrRendezvous" }, { 21, "WrKeyedEvent" },
	{ 22, "WrTerminated" }, { 23, "WrProcessInSwap" }, { 24, "WrCpuRateControl" }, { 25, "WrCalloutStack" },
	{ 26, "WrKernel" }, { 27, "WrResource" }, { 28, "WrPushLock" }, { 29, "WrMutex" }, { 30, "WrQuantumEnd" },
	{ 31, "WrDispatchInt" }, { 32, "WrPreempted" }, { 33, "WrYieldExecution" }, { 34, "WrFastMutex" },
	{ 35, "WrGuardedMutex" }, { 36, "WrRundown" }, { 37, "WrAlertByThreadId" }, { 38, "WrDeferredPreempt" },
	{ 39, "WrPhysicalFault" }, { 40, "WrIoRing" }, { 41, "WrMdlCache" }, { 42, "WrRcu" },
};
const struct etl_map etl__kmap_wait_reason = MAP("KWAIT_REASON", 0, wait_reason_e);

/* KTHREAD_STATE */
static const struct etl_map_entry thread_state_e[] = {
	{ 0, "Initialized" }, { 1, "Ready" }, { 2, "Running" }, { 3, "Standby" }, { 4, "Terminated" },
	{ 5, "Waiting" }, { 6, "Transition" }, { 7, "DeferredReady" }, { 8, "GateWaitObsolete" },
	{ 9, "WaitingForProcessInSwap" },
};
const struct etl_map etl__kmap_thread_state = MAP("KTHREAD_STATE", 0, thread_state_e);

/* KPROCESSOR_MODE */
static const struct etl_map_entry wait_mode_e[] = { { 0, "KernelMode" }, { 1, "UserMode" } };
const struct etl_map etl__kmap_wait_mode = MAP("KPROCESSOR_MODE", 0, wait_mode_e);

/* Process Flags: the two PerfView's baseline names (2, 4); others stay 0x... */
static const struct etl_map_entry process_flags_e[] = { { 0x2, "Wow64" }, { 0x4, "Protected" } };
const struct etl_map etl__kmap_process_flags = MAP("ProcessFlags", 1, process_flags_e);

/* MEM_* allocation types of VirtualAlloc/VirtualFree */
static const struct etl_map_entry mem_flags_e[] = {
	{ 0x1000, "MEM_COMMIT" }, { 0x2000, "MEM_RESERVE" }, { 0x4000, "MEM_DECOMMIT" }, { 0x8000, "MEM_RELEASE" },
	{ 0x80000, "MEM_RESET" }, { 0x100000, "MEM_TOP_DOWN" }, { 0x200000, "MEM_WRITE_WATCH" },
	{ 0x400000, "MEM_PHYSICAL" }, { 0x1000000, "MEM_RESET_UNDO" }, { 0x20000000, "MEM_LARGE_PAGES" },
};
const struct etl_map etl__kmap_mem_flags = MAP("MemoryFlags", 1, mem_flags_e);
