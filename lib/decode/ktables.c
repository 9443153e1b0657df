/*
 * ktables.c - the classic kernel events as data: layouts (NT Kernel Logger,
 * WPR/xperf profiles, and MOF-class events logged with the kernel class
 * GUIDs) and PerfView's names.  Field lists follow the WDK's kernel MOF
 * classes (Process_V*_TypeGroup1, Thread_V*_TypeGroup1, Image_V*, CSwitch,
 * SampledProfile, StackWalk_Event, DiskIo_TypeGroup*, PageFault_*,
 * TcpIp/UdpIp_TypeGroup*), checked on the corpus where it has them
 * (docs/FORMAT-NOTES.md section 9).  A test holds the two tables to each
 * other (every layout has its names).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "decode/ktables.h"

#define U8(n) { n, ETL_IN_UINT8, 0, 0, 0, NULL }
#define I8(n) { n, ETL_IN_INT8, 0, 0, 0, NULL }
#define X8(n) { n, ETL_IN_UINT8, ETL_OUT_HEXINT8, 0, 0, NULL }
#define U16(n) { n, ETL_IN_UINT16, 0, 0, 0, NULL }
#define I16(n) { n, ETL_IN_INT16, 0, 0, 0, NULL }
#define U32(n) { n, ETL_IN_UINT32, 0, 0, 0, NULL }
#define I32(n) { n, ETL_IN_INT32, 0, 0, 0, NULL }
#define X32(n) { n, ETL_IN_UINT32, ETL_OUT_HEXINT32, 0, 0, NULL }
#define U64(n) { n, ETL_IN_UINT64, 0, 0, 0, NULL }
#define I64(n) { n, ETL_IN_INT64, 0, 0, 0, NULL }
#define X64(n) { n, ETL_IN_UINT64, ETL_OUT_HEXINT64, 0, 0, NULL }
#define PTR(n) { n, ETL_IN_POINTER, ETL_OUT_HEXINT64, 0, 0, NULL }
#define SZ(n) { n, ETL_IN_POINTER, ETL_OUT_UNSIGNEDLONG, 0, 0, NULL }
#define FT(n) { n, ETL_IN_FILETIME, 0, 0, 0, NULL }
#define WSTR(n) { n, ETL_IN_UNICODESTRING, 0, 0, 0, NULL }
#define ASTR(n) { n, ETL_IN_ANSISTRING, 0, 0, 0, NULL }
#define SID(n) { n, ETL_IN_WBEMSID, 0, 0, 0, NULL }
#define IP4(n) { n, ETL_IN_UINT32, ETL_OUT_IPV4, 0, 0, NULL }
#define IP6(n) { n, ETL_IN_BINARY, ETL_OUT_IPV6, 0, 16, NULL }
#define PORT(n) { n, ETL_IN_UINT16, ETL_OUT_PORT, 0, 0, NULL }
#define BIN(n, len) { n, ETL_IN_BINARY, 0, 0, len, NULL }
#define FRAMES(n) { n, ETL_IN_POINTER, ETL_OUT_HEXINT64, KF_REST, 0, NULL }
#define GUIDF(n) { n, ETL_IN_GUID, 0, 0, 0, NULL }
#define WCHARS(n, len) { n, ETL_IN_UNICODESTRING, 0, 0, len, NULL } /* a fixed array of len UTF-16 units */
/* with names for the values (kmaps.c) */
#define X32M(n, map) { n, ETL_IN_UINT32, ETL_OUT_HEXINT32, 0, 0, &map }
#define I8M(n, map) { n, ETL_IN_INT8, 0, 0, 0, &map }
#define WSTRS(n, count_field) { n, ETL_IN_UNICODESTRING, 0, KF_COUNT, count_field, NULL } /* strings, counted */

/* EventTrace */
static const struct kf k_header[] = {
	U32("BufferSize"), X32("Version"), U32("ProviderVersion"), U32("NumberOfProcessors"), FT("EndTime"),
	U32("TimerResolution"), U32("MaximumFileSize"), X32("LogFileMode"), U32("BuffersWritten"),
	U32("StartBuffers"), U32("PointerSize"), U32("EventsLost"), U32("CPUSpeed"), PTR("LoggerNamePointer"),
	PTR("LogFileNamePointer"), BIN("TimeZoneInformation", 172), BIN("Padding", 4), FT("BootTime"), U64("PerfFreq"),
	FT("StartTime"), U32("ReservedFlags"), U32("BuffersLost"), WSTR("SessionName"), WSTR("LogFileName"),
};
/* EventTrace records of Windows 10 and later, version 2 (field names from the system's MOF, as
 * TDH reports them; sizes checked on the corpus: see FORMAT-NOTES section 9) */
static const struct kf k_et_dbgid[] = { GUIDF("Guid"), U32("Age"), ASTR("PdbName") };
static const struct kf k_et_buildinfo[] = { ASTR("BuildString") };
static const struct kf k_et_binpath[] = {
	U32("GuidCount"), { "Guid", ETL_IN_GUID, 0, KF_COUNT, 0, NULL }, WSTR("BinaryPath"),
};
static const struct kf k_et_partition[] = {
	U16("EventVersion"), U16("Reserved"), U32("PartitionType"), I64("QpcOffsetFromRoot"),
	GUIDF("PartitionId"), GUIDF("ParentId"),
};
static const struct kf k_et_dropped[] = {
	U32("TimeStampCount"), U32("Padding"), { "TimeStamp", ETL_IN_UINT64, 0, KF_COUNT, 0, NULL },
};
static const struct kf k_extension[] = {
	X32("GroupMask1"), X32("GroupMask2"), X32("GroupMask3"), X32("GroupMask4"), X32("GroupMask5"),
	X32("GroupMask6"), X32("GroupMask7"), X32("GroupMask8"), U32("KernelEventVersion"),
};
static const struct kf k_none[] = { { NULL, 0, 0, 0, 0, NULL } };

/* Process */
static const struct kf k_process_v1[] = {
	PTR("PageDirectoryBase"), U32("ProcessID"), U32("ParentID"), U32("SessionID"), I32("ExitStatus"),
	SID("UserSID"), ASTR("ImageFileName"),
};
static const struct kf k_process_v2[] = {
	PTR("UniqueProcessKey"), U32("ProcessID"), U32("ParentID"), U32("SessionID"), I32("ExitStatus"),
	SID("UserSID"), ASTR("ImageFileName"), WSTR("CommandLine"),
};
static const struct kf k_process_v3[] = {
	PTR("UniqueProcessKey"), U32("ProcessID"), U32("ParentID"), U32("SessionID"), I32("ExitStatus"),
	PTR("DirectoryTableBase"), SID("UserSID"), ASTR("ImageFileName"), WSTR("CommandLine"),
};
static const struct kf k_process_v4[] = {
	PTR("UniqueProcessKey"), U32("ProcessID"), U32("ParentID"), U32("SessionID"), I32("ExitStatus"),
	PTR("DirectoryTableBase"), X32M("Flags", etl__kmap_process_flags), SID("UserSID"), ASTR("ImageFileName"), WSTR("CommandLine"),
	WSTR("PackageFullName"), WSTR("ApplicationID"),
};
/* Defunct version 5: version 4 and the time the process exited (verified on TraceLoggingTester:
 * the FILETIME lies before the trace, as a zombie's exit does) */
static const struct kf k_process_defunct_v5[] = {
	PTR("UniqueProcessKey"), U32("ProcessID"), U32("ParentID"), U32("SessionID"), I32("ExitStatus"),
	PTR("DirectoryTableBase"), X32M("Flags", etl__kmap_process_flags), SID("UserSID"), ASTR("ImageFileName"), WSTR("CommandLine"),
	WSTR("PackageFullName"), WSTR("ApplicationID"), FT("ExitTime"),
};
static const struct kf k_process_terminate[] = { U32("ProcessID") };
static const struct kf k_process_perfctr[] = {
	U32("ProcessID"), U32("PageFaultCount"), U32("HandleCount"), U32("Reserved"), SZ("PeakVirtualSize"),
	SZ("PeakWorkingSetSize"), SZ("PeakPagefileUsage"), SZ("QuotaPeakPagedPoolUsage"),
	SZ("QuotaPeakNonPagedPoolUsage"), SZ("VirtualSize"), SZ("WorkingSetSize"), SZ("PagefileUsage"),
	SZ("QuotaPagedPoolUsage"), SZ("QuotaNonPagedPoolUsage"), SZ("PrivatePageCount"),
};

/* Thread */
static const struct kf k_thread_v2[] = {
	U32("ProcessID"), U32("ThreadID"), PTR("StackBase"), PTR("StackLimit"), PTR("UserStackBase"),
	PTR("UserStackLimit"), PTR("StartAddr"), PTR("Win32StartAddr"), PTR("TebBase"), X32("SubProcessTag"),
};
static const struct kf k_thread_v3[] = {
	U32("ProcessID"), U32("ThreadID"), PTR("StackBase"), PTR("StackLimit"), PTR("UserStackBase"),
	PTR("UserStackLimit"), PTR("Affinity"), PTR("Win32StartAddr"), PTR("TebBase"), X32("SubProcessTag"),
	U8("BasePriority"), U8("PagePriority"), U8("IoPriority"), U8("ThreadFlags"),
	WSTR("ThreadName"), /* Windows 10+ append it to version 3; empty where absent */
};
static const struct kf k_thread_v4[] = {
	U32("ProcessID"), U32("ThreadID"), PTR("StackBase"), PTR("StackLimit"), PTR("UserStackBase"),
	PTR("UserStackLimit"), PTR("Affinity"), PTR("Win32StartAddr"), PTR("TebBase"), X32("SubProcessTag"),
	U8("BasePriority"), U8("PagePriority"), U8("IoPriority"), U8("ThreadFlags"), WSTR("ThreadName"),
};
/* Thread/SetName (opcode 72): checked on the dotnetperf trace's payloads */
static const struct kf k_thread_setname[] = { U32("ProcessID"), U32("ThreadID"), WSTR("ThreadName") };
static const struct kf k_cswitch[] = {
	U32("NewThreadID"), U32("OldThreadID"), I8("NewThreadPriority"), I8("OldThreadPriority"),
	U8("PreviousCState"), I8("SpareByte"), I8M("OldThreadWaitReason", etl__kmap_wait_reason), I8M("OldThreadWaitMode", etl__kmap_wait_mode),
	I8M("OldThreadState", etl__kmap_thread_state), I8("OldThreadWaitIdealProcessor"), U32("NewThreadWaitTime"), U32("Reserved"),
};

/* Image */
static const struct kf k_image_v0[] = { PTR("ImageBase"), X32("ImageSize"), WSTR("FileName") };
static const struct kf k_image_v1[] = { PTR("ImageBase"), SZ("ImageSize"), U32("ProcessID"), WSTR("FileName") };
static const struct kf k_image_v2[] = {
	PTR("ImageBase"), SZ("ImageSize"), U32("ProcessID"), X32("ImageChecksum"), X32("TimeDateStamp"),
	U32("Reserved0"), PTR("DefaultBase"), U32("Reserved1"), U32("Reserved2"), U32("Reserved3"),
	U32("Reserved4"), WSTR("FileName"),
};
static const struct kf k_image_v3[] = {
	PTR("ImageBase"), SZ("ImageSize"), U32("ProcessID"), X32("ImageChecksum"), X32("TimeDateStamp"),
	U8("SignatureLevel"), U8("SignatureType"), U16("Reserved0"), PTR("DefaultBase"), U32("Reserved1"),
	U32("Reserved2"), U32("Reserved3"), U32("Reserved4"), WSTR("FileName"),
};

/* PerfInfo, StackWalk */
static const struct kf k_sample[] = {
	PTR("InstructionPointer"), U32("ThreadID"), U16("Count"), { "Flags", ETL_IN_UINT16, ETL_OUT_HEXINT16, 0, 0, NULL },
};
static const struct kf k_stack[] = { U64("EventTimeStamp"), U32("StackProcess"), U32("StackThread"), FRAMES("Stack") };

/* StackWalk keys (stack compression): the stack key's own stack, and the events that refer to it */
static const struct kf k_stack_key[] = { PTR("StackKey"), FRAMES("Stack") };
static const struct kf k_stack_key_ref[] = {
	U64("EventTimeStamp"), U32("StackProcess"), U32("StackThread"), PTR("StackKey"),
};

/* FileIo name records: Name, FileCreate, FileDelete, FileRundown */
static const struct kf k_fileio_name[] = { PTR("FileObject"), WSTR("FileName") };

/* Image/KernelBase */
static const struct kf k_image_kernelbase[] = { PTR("ImageBase") };

/* PerfInfo CollectionStart/End (the sampling interval) */
static const struct kf k_perfinfo_interval[] = {
	U32("SampleSource"), U32("NewInterval"), U32("OldInterval"), WSTR("SourceName"),
};
/* version 2 (Windows 7 era): the same, without the source's name, or with it (strict: the payload
 * decides) */
static const struct kf k_perfinfo_interval_v2[] = { U32("SampleSource"), U32("NewInterval"), U32("OldInterval") };

/* Image HypercallPage (opcode 34): the hypercall page's kernel address, 8 bytes whatever the
 * pointer size (net.4.5.2.x86, a 32-bit trace, has one of 8 bytes) */
static const struct kf k_image_hypercall[] = { X64("HypercallPageVa") };

/* DiskIo */
static const struct kf k_diskio_v2[] = {
	U32("DiskNumber"), X32M("IrpFlags", etl__kmap_irp_flags), U32("TransferSize"), U32("Reserved"), U64("ByteOffset"),
	PTR("FileObject"), PTR("Irp"), U64("HighResResponseTime"),
};
static const struct kf k_diskio_v3[] = {
	U32("DiskNumber"), X32M("IrpFlags", etl__kmap_irp_flags), U32("TransferSize"), U32("Reserved"), U64("ByteOffset"),
	PTR("FileObject"), PTR("Irp"), U64("HighResResponseTime"), U32("IssuingThreadId"),
};
static const struct kf k_diskinit_v2[] = { PTR("Irp") };
static const struct kf k_diskinit_v3[] = { PTR("Irp"), U32("IssuingThreadId") };
static const struct kf k_diskflush_v2[] = { U32("DiskNumber"), X32M("IrpFlags", etl__kmap_irp_flags), U64("HighResResponseTime"), PTR("Irp") };
static const struct kf k_diskflush_v3[] = {
	U32("DiskNumber"), X32M("IrpFlags", etl__kmap_irp_flags), U64("HighResResponseTime"), PTR("Irp"), U32("IssuingThreadId"),
};

/* Memory */
static const struct kf k_pagefault[] = { PTR("VirtualAddress"), PTR("ProgramCounter") };
/* PageFault_VirtualAlloc (MOF documentation; strict): BaseAddress, RegionSize (SizeT), ProcessId, Flags */
static const struct kf k_virtualalloc[] = {
	PTR("BaseAddress"), SZ("RegionSize"), U32("ProcessId"), X32M("Flags", etl__kmap_mem_flags),
};
static const struct kf k_hardfault[] = {
	U64("InitialTime"), U64("ReadOffset"), PTR("VirtualAddress"), PTR("FileObject"), U32("ThreadID"),
	U32("ByteCount"),
};

/* TcpIp / UdpIp */
static const struct kf k_tcp_send4[] = {
	U32("PID"), U32("size"), IP4("daddr"), IP4("saddr"), PORT("dport"), PORT("sport"), U32("startime"),
	U32("endtime"), U32("seqnum"), PTR("connid"),
};
static const struct kf k_tcp_recv4[] = {
	U32("PID"), U32("size"), IP4("daddr"), IP4("saddr"), PORT("dport"), PORT("sport"), U32("seqnum"),
	PTR("connid"),
};
static const struct kf k_tcp_conn4[] = {
	U32("PID"), U32("size"), IP4("daddr"), IP4("saddr"), PORT("dport"), PORT("sport"), U16("mss"),
	U16("sackopt"), U16("tsopt"), U16("wsopt"), U32("rcvwin"), I16("rcvwinscale"), I16("sndwinscale"),
	U32("seqnum"), PTR("connid"),
};
static const struct kf k_tcp_send6[] = {
	U32("PID"), U32("size"), IP6("daddr"), IP6("saddr"), PORT("dport"), PORT("sport"), U32("startime"),
	U32("endtime"), U32("seqnum"), PTR("connid"),
};
static const struct kf k_tcp_recv6[] = {
	U32("PID"), U32("size"), IP6("daddr"), IP6("saddr"), PORT("dport"), PORT("sport"), U32("seqnum"),
	PTR("connid"),
};
static const struct kf k_tcp_conn6[] = {
	U32("PID"), U32("size"), IP6("daddr"), IP6("saddr"), PORT("dport"), PORT("sport"), U16("mss"),
	U16("sackopt"), U16("tsopt"), U16("wsopt"), U32("rcvwin"), I16("rcvwinscale"), I16("sndwinscale"),
	U32("seqnum"), PTR("connid"),
};

/* KernelTraceControl ImageID (added by merging: PDB signatures of loaded images) */
static const struct kf k_imageid[] = {
	PTR("ImageBase"), PTR("ImageSize"), U32("ProcessID"), X32("TimeDateStamp"), WSTR("OriginalFileName"),
};
static const struct kf k_imageid_base[] = { PTR("ImageBase"), U32("ProcessID") };
static const struct kf k_dbgid_rsds[] = {
	PTR("ImageBase"), U32("ProcessID"), GUIDF("GuidSig"), U32("Age"), ASTR("PDBFileName"),
};
/* DbgID_DBG (DBGID_LOG_TYPE_DBG, 0x22): an image whose debug directory names a .dbg file.  The
 * three words are proven on TraceLoggingTester's 28 records by the same image's other records:
 * Image ImageChecksum, ImageID TimeDateStamp and ImageSize (the names are libetl's) */
static const struct kf k_dbgid_dbg[] = {
	PTR("ImageBase"), U32("ProcessID"), X32("ImageChecksum"), X32("TimeDateStamp"), X32("ImageSize"),
	WSTR("DbgFileName"),
};
/* PerfInfo/Mark (opcode 34; xperf/WPR marks): Message, ANSI (the MOF adds a Padding char that the
 * corpus records do not have) */
static const struct kf k_mark[] = { ASTR("Message") };
/* opcode 41: one UTF-16 string, a merge diagnostic ("<path> [<kernel path>] failure: ...") */
static const struct kf k_imageid_text[] = { WSTR("Text") };
static const struct kf k_dbg_ppdb[] = {
	PTR("ImageBase"), U32("ProcessID"), X32("TimeDateStamp"), U16("MajorVersion"), U16("MinorVersion"),
};
static const struct kf k_file_version[] = {
	X32("ImageSize"), X32("TimeDateStamp"), WSTR("OrigFileName"), WSTR("FileDescription"),
	WSTR("FileVersion"), WSTR("BinFileVersion"), WSTR("VerLanguage"), WSTR("ProductName"),
	WSTR("CompanyName"), WSTR("ProductVersion"), WSTR("FileId"), WSTR("ProgramId"),
};
/* KernelTraceControl MetaData (merge-time descriptions of other events, FORMAT-NOTES section 7):
 * EventInfo is a TRACE_EVENT_INFO, EventMapInfo a provider GUID and an EVENT_MAP_INFO (tdh.h).
 * The fixed parts are decoded; the property list, map entries and names they point into are Data,
 * bytes (the decoders read them: tei.c) */
static const struct kf k_meta_event[] = {
	GUIDF("ProviderGuid"), GUIDF("EventGuid"), U16("Id"), U8("Version"), U8("Channel"), U8("Level"),
	U8("Opcode"), U16("Task"), X64("Keyword"), U32("DecodingSource"), U32("ProviderNameOffset"),
	U32("LevelNameOffset"), U32("ChannelNameOffset"), U32("KeywordsNameOffset"), U32("TaskNameOffset"),
	U32("OpcodeNameOffset"), U32("EventMessageOffset"), U32("ProviderMessageOffset"), U32("BinaryXMLOffset"),
	U32("BinaryXMLSize"), U32("EventNameOffset"), U32("EventAttributesOffset"), U32("PropertyCount"),
	U32("TopLevelPropertyCount"), X32("Flags"), BIN("Data", 0),
};
static const struct kf k_meta_map[] = {
	GUIDF("ProviderGuid"), U32("NameOffset"), X32("Flag"), U32("EntryCount"), U32("ValueType"), BIN("Data", 0),
};
/* SystemConfig */
/* WinSAT (merged by xperf/WPR): a word (1 in every record seen), the XML's size, then the XML as
 * UTF-16 in LZNT1 chunks; decoded into one string property, Xml */
const struct kf etl__k_winsat[] = { U32("Unknown"), U32("UncompressedSize"), { "Xml", ETL_IN_BINARY, 0, 0, 0, NULL } };

/* From the MOF documentation only (no corpus record to check them; strict, see klayout) */
static const struct kf k_fileio_create[] = {
	PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), X32M("CreateOptions", etl__kmap_create_options), X32("FileAttributes"),
	X32M("ShareAccess", etl__kmap_share_access), WSTR("OpenPath"),
};
static const struct kf k_fileio_simpleop[] = { PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey") };
static const struct kf k_fileio_readwrite[] = {
	U64("Offset"), PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey"), U32("IoSize"), X32("IoFlags"),
};
static const struct kf k_fileio_info[] = {
	PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey"), PTR("ExtraInfo"), U32("InfoClass"),
};
static const struct kf k_fileio_direnum[] = {
	PTR("IrpPtr"), PTR("TTID"), PTR("FileObject"), PTR("FileKey"), U32("Length"), U32("InfoClass"),
	U32("FileIndex"), WSTR("FileName"),
};
static const struct kf k_fileio_opend[] = { PTR("IrpPtr"), PTR("ExtraInfo"), X32("NtStatus") };
/* FileIo version 3 (Windows 8 and later: TTID becomes a 32-bit thread id after the pointers), from
 * the WDK's wmicore.mof classes FileIo_V3_* as published reimplementations give them; no corpus
 * record has them, so they are strict */
static const struct kf k_fileio3_create[] = {
	PTR("IrpPtr"), PTR("FileObject"), U32("TTID"), X32M("CreateOptions", etl__kmap_create_options), X32("FileAttributes"),
	X32M("ShareAccess", etl__kmap_share_access), WSTR("OpenPath"),
};
static const struct kf k_fileio3_simpleop[] = { PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), U32("TTID") };
static const struct kf k_fileio3_readwrite[] = {
	U64("Offset"), PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), U32("TTID"), U32("IoSize"), X32("IoFlags"),
};
static const struct kf k_fileio3_info[] = {
	PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), PTR("ExtraInfo"), U32("TTID"), U32("InfoClass"),
};
static const struct kf k_fileio3_direnum[] = {
	PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), U32("TTID"), U32("Length"), U32("InfoClass"),
	U32("FileIndex"), WSTR("FileName"),
};
static const struct kf k_fileio3_pathop[] = {
	PTR("IrpPtr"), PTR("FileObject"), PTR("FileKey"), PTR("ExtraInfo"), U32("TTID"), U32("InfoClass"),
	WSTR("FileName"),
};
/* minifilter callbacks (version 3) */
static const struct kf k_fileio_fltinit[] = {
	PTR("RoutineAddr"), PTR("FileObject"), PTR("FileContext"), PTR("IrpPtr"), PTR("CallbackDataPtr"),
	U32("MajorFunction"),
};
static const struct kf k_fileio_fltdone[] = {
	U64("InitialTime"), PTR("RoutineAddr"), PTR("FileObject"), PTR("FileContext"), PTR("IrpPtr"),
	PTR("CallbackDataPtr"), U32("MajorFunction"),
};
static const struct kf k_fileio_fltfail[] = {
	PTR("RoutineAddr"), PTR("FileObject"), PTR("FileContext"), PTR("IrpPtr"), PTR("CallbackDataPtr"),
	U32("MajorFunction"), X32("Status"),
};
static const struct kf k_fileio_mapfile[] = {
	PTR("ViewBase"), PTR("FileObject"), X64("MiscInfo"), PTR("ViewSize"), U32("ProcessId"),
};
static const struct kf k_registry[] = {
	I64("InitialTime"), X32("Status"), U32("Index"), PTR("KeyHandle"), WSTR("KeyName"),
};
/* Thread events of the system's MOF (Windows 10 and later, as TDH reports them; strict) */
static const struct kf k_th_spinlock[] = {
	PTR("SpinLockAddress"), PTR("CallerAddress"), U64("AcquireTime"), U64("ReleaseTime"),
	U32("WaitTimeInCycles"), U32("SpinCount"), U32("ThreadId"), U32("InterruptCount"), U8("Irql"),
	U8("AcquireDepth"), U8("Flag"), U8("Reserved"),
};
static const struct kf k_th_priority[] = { U32("ThreadId"), U8("OldPriority"), U8("NewPriority"), U16("Reserved") };
static const struct kf k_th_affinity[] = { PTR("Affinity"), U32("ThreadId"), U16("Group"), U16("Reserved") };
static const struct kf k_th_worker[] = { U32("TThreadId"), U64("StartTime"), PTR("ThreadRoutine") };
static const struct kf k_th_antistarve[] = { U32("ThreadId"), U16("ProcessorIndex"), U8("Priority"), U8("Reserved") };
static const struct kf k_th_migration[] = {
	U32("ThreadId"), U16("SourceProcessorIndex"), U16("TargetProcessorIndex"), U8("Priority"),
	U8("IdealProcessorAdjust"), U16("OldIdealProcessorIndex"),
};
static const struct kf k_th_kq_enqueue[] = { PTR("Entry"), U32("ThreadId") };
static const struct kf k_th_kq_dequeue[] = {
	U32("ThreadId"), U32("EntryCount"), { "Entries", ETL_IN_POINTER, ETL_OUT_HEXINT64, KF_COUNT, 1, NULL },
};
static const struct kf k_th_callback[] = { PTR("CallbackRoutine") };
static const struct kf k_th_boost_set[] = {
	PTR("Lock"), U32("ThreadId"), U8("NewCpuPriorityFloor"), U8("OldCpuPriority"), U8("IoPriorities"),
	X8("BoostFlags"),
};
static const struct kf k_th_boost_clear[] = { PTR("LockAddress"), U32("ThreadId"), X32("BoostBitmap") };
static const struct kf k_th_boost_exhaust[] = { PTR("LockAddress"), U32("ThreadId") };
static const struct kf k_th_subtag[] = { X32("OldTag"), X32("NewTag") };
static const struct kf k_readythread[] = {
	U32("TThreadId"), I8("AdjustReason"), I8("AdjustIncrement"), I8("Flag"), I8("Reserved"),
};
static const struct kf k_syscall_enter[] = { PTR("SysCallAddress") };
static const struct kf k_syscall_exit[] = { X32("SysCallNtStatus") };
/* ISR: the MOF documentation says Vector uint8, Reserved uint16; the MOF that TDH reads on
 * Windows 10 and later says Vector uint16, Reserved uint8 (same size); libetl follows the latter */
static const struct kf k_isr[] = { U64("InitialTime"), PTR("Routine"), U8("ReturnValue"), U16("Vector"), U8("Reserved") };
static const struct kf k_isr_msi[] = {
	U64("InitialTime"), PTR("Routine"), U8("ReturnValue"), U16("Vector"), U8("Reserved"), U32("MessageNumber"),
};
/* PerfInfo events of the system's MOF (as TDH reports them on Windows 10 and later; no corpus
 * record: strict) */
static const struct kf k_isr_unexpected[] = { U16("Vector") };
static const struct kf k_routine[] = { PTR("Routine") };
static const struct kf k_pmc_prof[] = { PTR("InstructionPointer"), U32("ThreadId"), U16("ProfileSource"), U16("Reserved") };
static const struct kf k_pmc_config[] = { U32("CounterCount"), WSTRS("CounterName", 0) };
static const struct kf k_set_interval[] = { U32("Source"), U32("NewInterval"), U32("OldInterval") };
static const struct kf k_spinlock_config[] = {
	U32("SpinLockSpinThreshold"), U32("SpinLockContentionSampleRate"), U32("SpinLockAcquireSampleRate"),
	U32("SpinLockHoldThreshold"),
};
static const struct kf k_io_timer[] = { PTR("DeviceObject"), PTR("TimerRoutine") };
static const struct kf k_ktimer2[] = {
	U64("DueTime"), U64("MaximumDueTime"), U64("Period"), PTR("Timer"), PTR("Callback"), PTR("CallbackContext"),
	X8("TimerFlags"),
};
static const struct kf k_ktimer2_cancel[] = { PTR("Timer") };
static const struct kf k_ktimer2_disable[] = { PTR("Timer"), PTR("DisableCallback"), PTR("DisableContext"), X8("TimerFlags") };
static const struct kf k_ktimer2_finalize[] = { PTR("Timer"), PTR("DisableCallback"), PTR("DisableContext") };
static const struct kf k_hypercall[] = { X32("CallCode"), U8("IsFast"), U8("IsNested") };
static const struct kf k_dpc[] = { U64("InitialTime"), PTR("Routine") };
static const struct kf k_alpc_message[] = { U32("MessageID") };
/* SystemConfig records of Windows 8 and later, version 2: names from the system's MOF (as a
 * generated wrapper of it shows them); each layout is checked on corpus records (FORMAT-NOTES
 * section 9), the order of Processors' strings by their content */
static const struct kf k_sc_optical[] = {
	U16("DiskNumber"), U16("BusType"), U16("DeviceType"), U16("MediaType"), U64("StartingOffset"),
	U64("Size"), U64("NumberOfFreeBlocks"), U64("TotalNumberOfBlocks"), U64("NextWritableAddress"),
	U32("NumberOfSessions"), U32("NumberOfTracks"), U32("BytesPerSector"), U16("DiscStatus"),
	U16("LastSessionStatus"), WSTR("DriveLetter"), WSTR("FileSystemName"), ASTR("DeviceName"),
	ASTR("ManufacturerName"),
};
static const struct kf k_sc_procgroup[] = { U32("GroupCount"), { "Affinity", ETL_IN_POINTER, ETL_OUT_HEXINT64, KF_COUNT, 0, NULL } };
/* each ProcessorNumber is a PROCESSOR_NUMBER (Group u16, Number u8, Reserved u8) that the MOF
 * declares as uint32: shown in hex, 0x10000 = group 0, processor 1 */
static const struct kf k_sc_procnumber[] = { U32("ProcessorCount"), { "ProcessorNumber", ETL_IN_UINT32, ETL_OUT_HEXINT32, KF_COUNT, 0, NULL } };
static const struct kf k_sc_dpi[] = { U32("MachineDPI"), U32("UserDPI") };
static const struct kf k_sc_ci[] = { X32("CodeIntegrityInfo") };
static const struct kf k_sc_telemetry[] = { GUIDF("MachineId") };
static const struct kf k_sc_devfamily[] = { X64("UAPInfo"), U32("DeviceFamily"), U32("DeviceForm") };
static const struct kf k_sc_flightids[] = { WSTR("UpdateId"), WSTR("FlightIdList") };
static const struct kf k_sc_processors[] = {
	U32("ProcessorIndex"), X32("FeatureSet"), U32("ProcessorSpeed"), WCHARS("ProcessorName", 64),
	WCHARS("ProcessorIdentifier", 128), WCHARS("VendorIdentifier", 16),
};
/* Defragmentation: the MOF orders the fields by size, then by name; the two run times are
 * FILETIMEs (the MOF says uint64) */
static const struct kf k_sc_defrag[] = {
	U64("AlignmentClusters"), U64("AvgFreeSpaceSize"), U64("ClustersPerSlab"), U64("FragmentedDirectoryExtents"),
	U64("FragmentedExtents"), U64("FreeSpaceCount"), U64("LargestFreeSpaceSize"), U64("LastRunActualPurgeClusters"),
	U64("LastRunClustersTrimmed"), FT("LastRunFullDefragTime"), FT("LastRunTime"), U64("MFTSize"),
	U64("TotalClusters"), U64("TotalUsedClusters"), U32("AvgFragmentsPerFile"), U32("BytesPerCluster"),
	U32("DirectoryCount"), U32("FragmentedDirectories"), U32("FragmentedFiles"), U32("FragmentedSpace"),
	U32("HardwareIssue"), U32("InUseMFTRecords"), U32("InUseSlabs"), U32("LastRunActualPurgeSlabs"),
	U32("LastRunInitialBackedSlabs"), U32("LastRunPercentFragmentation"), U32("LastRunPinnedSlabs"),
	U32("LastRunPotentialPurgeSlabs"), U32("LastRunSpaceInefficientSlabs"), U32("LastRunTrimmedSlabs"),
	U32("LastRunUnknownEvictFailSlabs"), U32("LastRunVolsnapPinnedSlabs"), U32("MFTFragmentCount"),
	U32("MovableFiles"), U32("TotalMFTRecords"), U32("TotalSlabs"), U32("UnmovableFiles"), GUIDF("VolumeId"),
	WSTR("VolumePathNames"),
};
static const struct kf k_sc_virt[] = { U8("VbsEnabled"), U8("HvciEnabled"), U8("HyperVisorEnabled"), U8("Reserved") };
static const struct kf k_sc_boot[] = {
	X64("BootFlags"), U32("FirmwareType"), U8("SecureBootEnabled"), U8("SecureBootCapable"), U8("Reserved1"),
	U8("Reserved2"),
};
static const struct kf k_sc_video[] = {
	U32("MemorySize"), U32("XResolution"), U32("YResolution"), U32("BitsPerPixel"), U32("VRefresh"),
	WCHARS("ChipType", 256), WCHARS("DACType", 256), WCHARS("AdapterString", 256), WCHARS("BiosString", 256),
	WCHARS("DeviceID", 256), X32("StateFlags"),
};
static const struct kf k_alpc_unwait[] = { X32("Status") };
/* ALPC WaitForNewMessage: the documentation says "string PortName" without its encoding: tried as
 * ANSI, then as UTF-16; only one of them can account for every byte of a payload */
static const struct kf k_alpc_wait_new_a[] = { U32("IsServerPort"), ASTR("PortName") };
static const struct kf k_alpc_wait_new_w[] = { U32("IsServerPort"), WSTR("PortName") };

/* SystemConfig CPU version 2 (Vista, Windows 7): the MOF documentation's SystemConfig_CPU -
 * version 3 without its last fields; DomainName is 134 units in version 3 (checked) and "Max
 * (132)" in the documentation: both are tried, strictly */
static const struct kf k_sc_cpu_v2[] = {
	U32("MHz"), U32("NumberOfProcessors"), U32("MemSize"), U32("PageSize"), U32("AllocationGranularity"),
	WCHARS("ComputerName", 256), WCHARS("DomainName", 134), PTR("HyperThreadingFlag"),
};
static const struct kf k_sc_cpu_v2_132[] = {
	U32("MHz"), U32("NumberOfProcessors"), U32("MemSize"), U32("PageSize"), U32("AllocationGranularity"),
	WCHARS("ComputerName", 256), WCHARS("DomainName", 132), PTR("HyperThreadingFlag"),
};
/* SystemConfig PnP versions 2 and 3: the MOF documentation's SystemConfig_PnP (the string lengths
 * in characters, then the strings); real version-3 records add a fourth string, the device
 * object's name (\Device\00000017), with no length of its own: tried first, strictly */
static const struct kf k_sc_pnp_v2[] = {
	U32("IDLength"), U32("DescriptionLength"), U32("FriendlyNameLength"), WSTR("DeviceID"),
	WSTR("DeviceDescription"), WSTR("FriendlyName"),
};
static const struct kf k_sc_pnp_v3[] = {
	U32("IDLength"), U32("DescriptionLength"), U32("FriendlyNameLength"), WSTR("DeviceID"),
	WSTR("DeviceDescription"), WSTR("FriendlyName"), WSTR("PdoName"),
};

/* SystemConfig hardware records (checked field by field against PerfView's net.4.5.2.x86 baseline) */
static const struct kf k_sc_cpu_v3[] = {
	U32("MHz"), U32("NumberOfProcessors"), U32("MemSize"), U32("PageSize"), U32("AllocationGranularity"),
	WCHARS("ComputerName", 256), WCHARS("DomainName", 134), PTR("HyperThreadingFlag"),
	PTR("HighestUserAddress"), U16("ProcessorArchitecture"), U16("ProcessorLevel"), U16("ProcessorRevision"),
	U8("PaeEnabled"), U8("NxEnabled"), U32("MemorySpeed"),
};
static const struct kf k_sc_phydisk_v2[] = {
	U32("DiskNumber"), U32("BytesPerSector"), U32("SectorsPerTrack"), U32("TracksPerCylinder"), U64("Cylinders"),
	U32("SCSIPort"), U32("SCSIPath"), U32("SCSITarget"), U32("SCSILun"), WCHARS("Manufacturer", 256),
	U32("PartitionCount"), U8("WriteCacheEnabled"), U8("Pad"), WCHARS("BootDriveLetter", 3), WCHARS("Spare", 2),
};
static const struct kf k_sc_logdisk_v2[] = {
	U64("StartOffset"), U64("PartitionSize"), U32("DiskNumber"), U32("Size"), U32("DriveType"),
	WCHARS("DriveLetterString", 4), U32("Pad1"), U32("PartitionNumber"), U32("SectorsPerCluster"),
	U32("BytesPerSector"), U32("Pad2"), I64("NumberOfFreeClusters"), I64("TotalNumberOfClusters"),
	WCHARS("FileSystem", 16), U32("VolumeExt"), U32("Pad3"),
};
static const struct kf k_sc_nic_v2[] = {
	U64("PhysicalAddr"), U32("PhysicalAddrLen"), U32("Ipv4Index"), U32("Ipv6Index"), WSTR("NICDescription"),
	WSTR("IpAddresses"), WSTR("DnsServerAddresses"),
};
static const struct kf k_sc_power_v2[] = {
	U8("S1"), U8("S2"), U8("S3"), U8("S4"), U8("S5"), U8("Pad1"), U8("Pad2"), U8("Pad3"),
};
static const struct kf k_sc_network_v2[] = {
	U32("TcbTablePartitions"), U32("MaxHashTableSize"), U32("MaxUserPort"), U32("TcpTimedWaitDelay"),
};
static const struct kf k_sc_pnp_v4[] = {
	GUIDF("ClassGuid"), U32("UpperFilterCount"), U32("LowerFilterCount"), WSTR("DeviceID"),
	WSTR("DeviceDescription"), WSTR("FriendlyName"), WSTR("PdoName"), WSTR("ServiceName"),
	WSTRS("UpperFilters", 1), WSTRS("LowerFilters", 2), /* seen after ServiceName when counted */
};
/* version 5 adds the device node's status (DN_* flags: 0x0180200a = driver loaded, started,
 * disableable, NT enumerator, NT driver) and problem code after the counts */
static const struct kf k_sc_pnp_v5[] = {
	GUIDF("ClassGuid"), U32("UpperFilterCount"), U32("LowerFilterCount"), X32("DevStatus"),
	U32("DevProblem"), WSTR("DeviceID"), WSTR("DeviceDescription"), WSTR("FriendlyName"), WSTR("PdoName"),
	WSTR("ServiceName"), WSTRS("UpperFilters", 1), WSTRS("LowerFilters", 2),
};
/* version 3 adds two 16-bit words after IRQAffinity, IRQGroup and Reserved in the kernel's MOF
 * (IRQGroup reads 1 for message-signalled interrupts, 0 for line-based ones in TraceLoggingTester);
 * DeviceDescriptionLen counts the string's UTF-16 units with its NUL, which proves the offsets */
static const struct kf k_sc_irq_v3[] = {
	X64("IRQAffinity"), U16("IRQGroup"), U16("Reserved"), I32("IRQNum"), U32("DeviceDescriptionLen"),
	WSTR("DeviceDescription"),
};
static const struct kf k_sc_idechannel_v2[] = {
	U32("TargetID"), U32("DeviceType"), U32("DeviceTimingMode"), U32("LocationInformationLen"),
	WSTR("LocationInformation"),
};
static const struct kf k_sc_platform_v2[] = {
	WSTR("SystemManufacturer"), WSTR("SystemProductName"), WSTR("BiosDate"), WSTR("BiosVersion"),
};
static const struct kf k_sc_services_v3[] = {
	U32("ProcessId"), U32("ServiceState"), U32("SubProcessTag"), WSTR("ServiceName"), WSTR("DisplayName"),
	WSTR("ProcessName"), WSTR("LoadOrderGroup"), WSTR("SvchostGroup"),
};

/* KernelTraceControl system configuration (PerfView's "SysConfig") */
static const struct kf k_sc_build[] = { FT("InstallDate"), WSTR("BuildLab"), WSTR("ProductName") };
static const struct kf k_sc_paths[] = { WSTR("SystemDirectory"), WSTR("SystemWindowsDirectory") };
static const struct kf k_sc_volume[] = { WSTR("Value") };
static const struct kf k_sc_mapping[] = { WSTR("NtPath"), WSTR("DosPath") };

#define N(a) (uint8_t)(sizeof(a) / sizeof(a[0]))

const struct klayout etl__klayouts[] = {
	{ 0x00, { 0, 0xFF }, 0, 2, k_header, N(k_header), 0 },
	{ 0x00, { 5, 32, 0xFF }, 0, 2, k_extension, N(k_extension), 0 },
	{ 0x00, { 8, 0xFF }, 0, 2, k_none, 0, 0 },
	{ 0x00, { 64, 0xFF }, 2, 2, k_et_dbgid, N(k_et_dbgid), 0 },
	{ 0x00, { 66, 0xFF }, 2, 2, k_et_buildinfo, N(k_et_buildinfo), 0 },
	{ 0x00, { 67, 0xFF }, 2, 2, k_et_binpath, N(k_et_binpath), 1 },
	{ 0x00, { 80, 0xFF }, 2, 2, k_et_partition, N(k_et_partition), 0 },
	{ 0x00, { 82, 0xFF }, 2, 2, k_et_dropped, N(k_et_dropped), 0 },
	{ 0x03, { 1, 2, 3, 4, 39, 0xFF }, 1, 1, k_process_v1, N(k_process_v1), 0 },
	{ 0x03, { 1, 2, 3, 4, 39, 0xFF }, 2, 2, k_process_v2, N(k_process_v2), 0 },
	{ 0x03, { 1, 2, 3, 4, 39, 0xFF }, 3, 3, k_process_v3, N(k_process_v3), 0 },
	{ 0x03, { 1, 2, 3, 4, 39, 0xFF }, 4, 4, k_process_v4, N(k_process_v4), 0 },
	{ 0x03, { 39, 0xFF }, 5, 5, k_process_defunct_v5, N(k_process_defunct_v5), 0 },
	{ 0x03, { 11, 0xFF }, 2, 2, k_process_terminate, N(k_process_terminate), 0 },
	{ 0x03, { 32, 33, 0xFF }, 2, 2, k_process_perfctr, N(k_process_perfctr), 0 },
	{ 0x03, { 10, 0xFF }, 0, 0, k_image_v0, N(k_image_v0), 0 },
	{ 0x03, { 10, 0xFF }, 1, 1, k_image_v1, N(k_image_v1), 0 },
	{ 0x03, { 10, 0xFF }, 2, 2, k_image_v2, N(k_image_v2), 0 },
	{ 0x03, { 10, 0xFF }, 3, 3, k_image_v3, N(k_image_v3), 0 },
	{ 0x05, { 1, 2, 3, 4, 0xFF }, 2, 2, k_thread_v2, N(k_thread_v2), 0 },
	{ 0x05, { 1, 2, 3, 4, 0xFF }, 3, 3, k_thread_v3, N(k_thread_v3), 0 },
	{ 0x05, { 1, 2, 3, 4, 0xFF }, 4, 4, k_thread_v4, N(k_thread_v4), 0 },
	{ 0x05, { 72, 0xFF }, 2, 2, k_thread_setname, N(k_thread_setname), 0 },
	{ 0x05, { 36, 0xFF }, 2, 4, k_cswitch, N(k_cswitch), 0 },
	{ 0x14, { 2, 3, 4, 10, 0xFF }, 0, 0, k_image_v0, N(k_image_v0), 0 },
	{ 0x14, { 2, 3, 4, 10, 0xFF }, 1, 1, k_image_v1, N(k_image_v1), 0 },
	{ 0x14, { 2, 3, 4, 10, 0xFF }, 2, 2, k_image_v2, N(k_image_v2), 0 },
	{ 0x14, { 2, 3, 4, 10, 33, 0xFF }, 3, 3, k_image_v3, N(k_image_v3), 0 },
	{ 0x0F, { 46, 0xFF }, 2, 2, k_sample, N(k_sample), 0 },
	{ 0x18, { 32, 0xFF }, 2, 2, k_stack, N(k_stack), 0 },
	{ 0x01, { 10, 11, 0xFF }, 2, 2, k_diskio_v2, N(k_diskio_v2), 0 },
	{ 0x01, { 10, 11, 0xFF }, 3, 3, k_diskio_v3, N(k_diskio_v3), 0 },
	{ 0x01, { 12, 13, 15, 0xFF }, 2, 2, k_diskinit_v2, N(k_diskinit_v2), 0 },
	{ 0x01, { 12, 13, 15, 0xFF }, 3, 3, k_diskinit_v3, N(k_diskinit_v3), 0 },
	{ 0x01, { 14, 0xFF }, 2, 2, k_diskflush_v2, N(k_diskflush_v2), 0 },
	{ 0x01, { 14, 0xFF }, 3, 3, k_diskflush_v3, N(k_diskflush_v3), 0 },
	{ 0x02, { 10, 11, 12, 13, 14, 15, 0xFF }, 2, 2, k_pagefault, N(k_pagefault), 0 },
	{ 0x02, { 32, 0xFF }, 2, 2, k_hardfault, N(k_hardfault), 0 },
	{ 0x02, { 98, 99, 0xFF }, 2, 2, k_virtualalloc, N(k_virtualalloc), 1 },
	{ 0x06, { 10, 0xFF }, 2, 2, k_tcp_send4, N(k_tcp_send4), 0 },
	{ 0x06, { 11, 13, 14, 0xFF }, 2, 2, k_tcp_recv4, N(k_tcp_recv4), 0 },
	/* the rest of the MOF's TcpIp_TypeGroup1 and 3 (Reconnect, TCPCopy and their IPv6 twins) */
	{ 0x06, { 16, 18, 0xFF }, 2, 2, k_tcp_recv4, N(k_tcp_recv4), 1 },
	{ 0x06, { 32, 34, 0xFF }, 2, 2, k_tcp_recv6, N(k_tcp_recv6), 1 },
	{ 0x06, { 12, 15, 0xFF }, 2, 2, k_tcp_conn4, N(k_tcp_conn4), 0 },
	{ 0x06, { 26, 0xFF }, 2, 2, k_tcp_send6, N(k_tcp_send6), 0 },
	{ 0x06, { 27, 29, 30, 0xFF }, 2, 2, k_tcp_recv6, N(k_tcp_recv6), 0 },
	{ 0x06, { 28, 31, 0xFF }, 2, 2, k_tcp_conn6, N(k_tcp_conn6), 0 },
	{ 0x08, { 10, 11, 0xFF }, 2, 2, k_tcp_recv4, N(k_tcp_recv4), 0 },
	{ 0x08, { 26, 27, 0xFF }, 2, 2, k_tcp_recv6, N(k_tcp_recv6), 0 },
	{ 0x0B, { 15, 0xFF }, 3, 3, k_sc_services_v3, N(k_sc_services_v3), 0 },
	{ 0x0B, { 10, 0xFF }, 3, 3, k_sc_cpu_v3, N(k_sc_cpu_v3), 0 },
	{ 0x0B, { 10, 0xFF }, 2, 2, k_sc_cpu_v2, N(k_sc_cpu_v2), STRICT_OR_NEXT },
	{ 0x0B, { 10, 0xFF }, 2, 2, k_sc_cpu_v2_132, N(k_sc_cpu_v2_132), 1 },
	{ 0x0B, { 22, 0xFF }, 3, 3, k_sc_pnp_v3, N(k_sc_pnp_v3), STRICT_OR_NEXT },
	{ 0x0B, { 22, 0xFF }, 2, 3, k_sc_pnp_v2, N(k_sc_pnp_v2), 1 },
	{ 0x0B, { 11, 0xFF }, 2, 2, k_sc_phydisk_v2, N(k_sc_phydisk_v2), 0 },
	{ 0x0B, { 12, 0xFF }, 2, 2, k_sc_logdisk_v2, N(k_sc_logdisk_v2), 0 },
	{ 0x0B, { 13, 0xFF }, 2, 2, k_sc_nic_v2, N(k_sc_nic_v2), 0 },
	{ 0x0B, { 16, 0xFF }, 2, 2, k_sc_power_v2, N(k_sc_power_v2), 0 },
	{ 0x0B, { 17, 0xFF }, 2, 2, k_sc_network_v2, N(k_sc_network_v2), 0 },
	{ 0x0B, { 22, 0xFF }, 4, 4, k_sc_pnp_v4, N(k_sc_pnp_v4), 0 },
	{ 0x0B, { 22, 0xFF }, 5, 5, k_sc_pnp_v5, N(k_sc_pnp_v5), 0 },
	{ 0x0B, { 21, 0xFF }, 3, 3, k_sc_irq_v3, N(k_sc_irq_v3), 0 },
	{ 0x0B, { 23, 0xFF }, 2, 2, k_sc_idechannel_v2, N(k_sc_idechannel_v2), 0 },
	{ 0x0B, { 25, 0xFF }, 2, 2, k_sc_platform_v2, N(k_sc_platform_v2), 0 },
	{ 0x0B, { 18, 0xFF }, 2, 2, k_sc_optical, N(k_sc_optical), 1 },
	{ 0x0B, { 26, 0xFF }, 2, 2, k_sc_procgroup, N(k_sc_procgroup), 1 },
	{ 0x0B, { 27, 0xFF }, 2, 2, k_sc_procnumber, N(k_sc_procnumber), 1 },
	{ 0x0B, { 28, 0xFF }, 2, 2, k_sc_dpi, N(k_sc_dpi), 1 },
	{ 0x0B, { 29, 0xFF }, 2, 2, k_sc_ci, N(k_sc_ci), 1 },
	{ 0x0B, { 30, 0xFF }, 2, 2, k_sc_telemetry, N(k_sc_telemetry), 1 },
	{ 0x0B, { 31, 0xFF }, 2, 2, k_sc_defrag, N(k_sc_defrag), 1 },
	{ 0x0B, { 33, 0xFF }, 2, 2, k_sc_devfamily, N(k_sc_devfamily), 1 },
	{ 0x0B, { 34, 0xFF }, 2, 2, k_sc_flightids, N(k_sc_flightids), 1 },
	{ 0x0B, { 35, 0xFF }, 2, 2, k_sc_processors, N(k_sc_processors), 1 },
	{ 0x0B, { 36, 0xFF }, 2, 2, k_sc_virt, N(k_sc_virt), 1 },
	{ 0x0B, { 37, 0xFF }, 2, 2, k_sc_boot, N(k_sc_boot), 1 },
	{ 0x04, { 0, 32, 35, 36, 0xFF }, 2, 2, k_fileio_name, N(k_fileio_name), 0 },
	{ 0x04, { 0, 32, 35, 36, 0xFF }, 3, 3, k_fileio_name, N(k_fileio_name), 1 },
	{ 0x04, { 64, 0xFF }, 3, 3, k_fileio3_create, N(k_fileio3_create), 1 },
	{ 0x04, { 65, 66, 73, 0xFF }, 3, 3, k_fileio3_simpleop, N(k_fileio3_simpleop), 1 },
	{ 0x04, { 67, 68, 0xFF }, 3, 3, k_fileio3_readwrite, N(k_fileio3_readwrite), 1 },
	{ 0x04, { 69, 70, 71, 74, 75, 0xFF }, 3, 3, k_fileio3_info, N(k_fileio3_info), 1 },
	{ 0x04, { 72, 77, 0xFF }, 3, 3, k_fileio3_direnum, N(k_fileio3_direnum), 1 },
	{ 0x04, { 76, 0xFF }, 3, 3, k_fileio_opend, N(k_fileio_opend), 1 },
	{ 0x04, { 79, 80, 81, 0xFF }, 3, 3, k_fileio3_pathop, N(k_fileio3_pathop), 1 },
	{ 0x04, { 37, 38, 39, 40, 0xFF }, 2, 2, k_fileio_mapfile, N(k_fileio_mapfile), 1 },
	{ 0x04, { 96, 97, 0xFF }, 3, 3, k_fileio_fltinit, N(k_fileio_fltinit), 1 },
	{ 0x04, { 98, 99, 0xFF }, 3, 3, k_fileio_fltdone, N(k_fileio_fltdone), 1 },
	{ 0x04, { 100, 101, 0xFF }, 3, 3, k_fileio_fltfail, N(k_fileio_fltfail), 1 },
	{ 0x14, { 33, 0xFF }, 2, 2, k_image_kernelbase, N(k_image_kernelbase), 0 },
	{ 0x0F, { 73, 74, 0xFF }, 3, 3, k_perfinfo_interval, N(k_perfinfo_interval), 0 },
	{ 0x0F, { 73, 74, 0xFF }, 2, 2, k_perfinfo_interval_v2, N(k_perfinfo_interval_v2), STRICT_OR_NEXT },
	{ 0x0F, { 73, 74, 0xFF }, 2, 2, k_perfinfo_interval, N(k_perfinfo_interval), 1 },
	{ 0x14, { 34, 0xFF }, 2, 2, k_image_hypercall, N(k_image_hypercall), 1 },
	{ 0x0F, { 34, 0xFF }, 0, 0, k_mark, N(k_mark), 1 },
	{ 0x18, { 35, 36, 0xFF }, 2, 2, k_stack_key, N(k_stack_key), 0 },
	{ 0x18, { 37, 38, 0xFF }, 2, 2, k_stack_key_ref, N(k_stack_key_ref), 0 },
	{ 0x04, { 64, 0xFF }, 2, 2, k_fileio_create, N(k_fileio_create), 1 },
	{ 0x04, { 65, 66, 73, 0xFF }, 2, 2, k_fileio_simpleop, N(k_fileio_simpleop), 1 },
	{ 0x04, { 67, 68, 0xFF }, 2, 2, k_fileio_readwrite, N(k_fileio_readwrite), 1 },
	{ 0x04, { 69, 70, 71, 74, 75, 0xFF }, 2, 2, k_fileio_info, N(k_fileio_info), 1 },
	{ 0x04, { 72, 77, 0xFF }, 2, 2, k_fileio_direnum, N(k_fileio_direnum), 1 },
	{ 0x04, { 76, 0xFF }, 2, 2, k_fileio_opend, N(k_fileio_opend), 1 },
	{ 0x09, { 10, 11, 12, 13, 14, 15, 16, 17, 18, 0xFF }, 2, 2, k_registry, N(k_registry), 1 },
	{ 0x09, { 19, 20, 21, 22, 23, 24, 25, 26, 27, 0xFF }, 2, 2, k_registry, N(k_registry), 1 },
	{ 0x05, { 50, 0xFF }, 2, 2, k_readythread, N(k_readythread), 1 },
	{ 0x05, { 37, 0xFF }, 2, 2, k_none, 0, 1 },
	{ 0x05, { 41, 0xFF }, 2, 2, k_th_spinlock, N(k_th_spinlock), 1 },
	{ 0x05, { 48, 49, 51, 52, 0xFF }, 3, 3, k_th_priority, N(k_th_priority), 1 },
	{ 0x05, { 53, 0xFF }, 2, 2, k_th_affinity, N(k_th_affinity), 1 },
	{ 0x05, { 57, 0xFF }, 2, 2, k_th_worker, N(k_th_worker), 1 },
	{ 0x05, { 60, 0xFF }, 2, 2, k_th_antistarve, N(k_th_antistarve), 1 },
	{ 0x05, { 61, 0xFF }, 2, 2, k_th_migration, N(k_th_migration), 1 },
	{ 0x05, { 62, 0xFF }, 2, 2, k_th_kq_enqueue, N(k_th_kq_enqueue), 1 },
	{ 0x05, { 63, 0xFF }, 2, 2, k_th_kq_dequeue, N(k_th_kq_dequeue), 1 },
	{ 0x05, { 64, 65, 0xFF }, 2, 2, k_th_callback, N(k_th_callback), 1 },
	{ 0x05, { 66, 0xFF }, 2, 2, k_th_boost_set, N(k_th_boost_set), 1 },
	{ 0x05, { 67, 0xFF }, 2, 2, k_th_boost_clear, N(k_th_boost_clear), 1 },
	{ 0x05, { 68, 0xFF }, 2, 2, k_th_boost_exhaust, N(k_th_boost_exhaust), 1 },
	{ 0x05, { 69, 0xFF }, 2, 2, k_th_subtag, N(k_th_subtag), 1 },
	{ 0x0F, { 51, 0xFF }, 2, 2, k_syscall_enter, N(k_syscall_enter), 1 },
	{ 0x0F, { 52, 0xFF }, 2, 2, k_syscall_exit, N(k_syscall_exit), 1 },
	{ 0x0F, { 67, 0xFF }, 2, 2, k_isr, N(k_isr), 1 },
	{ 0x0F, { 66, 68, 69, 70, 0xFF }, 2, 2, k_dpc, N(k_dpc), 1 },
	{ 0x0F, { 95, 0xFF }, 2, 2, k_isr, N(k_isr), 1 },
	{ 0x0F, { 50, 0xFF }, 2, 2, k_isr_msi, N(k_isr_msi), 1 },
	{ 0x0F, { 92, 0xFF }, 2, 2, k_isr_unexpected, N(k_isr_unexpected), 1 },
	{ 0x0F, { 96, 97, 98, 103, 0xFF }, 2, 2, k_routine, N(k_routine), 1 },
	{ 0x0F, { 58, 0xFF }, 2, 2, k_none, 0, 1 },
	{ 0x0F, { 47, 0xFF }, 2, 2, k_pmc_prof, N(k_pmc_prof), 1 },
	{ 0x0F, { 48, 0xFF }, 2, 2, k_pmc_config, N(k_pmc_config), 1 },
	{ 0x0F, { 72, 0xFF }, 2, 2, k_set_interval, N(k_set_interval), 1 },
	{ 0x0F, { 75, 76, 0xFF }, 3, 3, k_spinlock_config, N(k_spinlock_config), 1 },
	{ 0x0F, { 93, 94, 0xFF }, 2, 2, k_io_timer, N(k_io_timer), 1 },
	{ 0x0F, { 104, 105, 0xFF }, 2, 2, k_ktimer2, N(k_ktimer2), 1 },
	{ 0x0F, { 106, 0xFF }, 2, 2, k_ktimer2_cancel, N(k_ktimer2_cancel), 1 },
	{ 0x0F, { 107, 0xFF }, 2, 2, k_ktimer2_disable, N(k_ktimer2_disable), 1 },
	{ 0x0F, { 108, 0xFF }, 2, 2, k_ktimer2_finalize, N(k_ktimer2_finalize), 1 },
	{ 0x0F, { 114, 0xFF }, 2, 2, k_hypercall, N(k_hypercall), 1 },
	{ 0x1A, { 33, 34, 35, 0xFF }, 2, 2, k_alpc_message, N(k_alpc_message), 1 },
	{ 0x1A, { 37, 0xFF }, 2, 2, k_alpc_unwait, N(k_alpc_unwait), 1 },
	{ 0x1A, { 36, 0xFF }, 2, 2, k_alpc_wait_new_a, N(k_alpc_wait_new_a), STRICT_OR_NEXT },
	{ 0x1A, { 36, 0xFF }, 2, 2, k_alpc_wait_new_w, N(k_alpc_wait_new_w), 1 },
	{ 0x0B, { 14, 0xFF }, 2, 2, k_sc_video, N(k_sc_video), 1 },
	/* KernelTraceControl ImageID: any version (the payload proves the layout) */
	{ KTC_IMAGEID, { 0, 0xFF }, 0, 0xFF, k_imageid, N(k_imageid), 0 },
	{ KTC_IMAGEID, { 32, 40, 0xFF }, 0, 0xFF, k_imageid_base, N(k_imageid_base), 0 },
	{ KTC_IMAGEID, { 36, 37, 0xFF }, 0, 0xFF, k_dbgid_rsds, N(k_dbgid_rsds), 0 },
	{ KTC_IMAGEID, { 38, 0xFF }, 0, 0xFF, k_dbg_ppdb, N(k_dbg_ppdb), 0 },
	{ KTC_IMAGEID, { 34, 0xFF }, 2, 2, k_dbgid_dbg, N(k_dbgid_dbg), 1 },
	{ KTC_IMAGEID, { 41, 0xFF }, 1, 1, k_imageid_text, N(k_imageid_text), 1 },
	{ KTC_IMAGEID, { 64, 0xFF }, 0, 0xFF, k_file_version, N(k_file_version), 0 },
	{ KTC_SYSCONFIG, { 32, 0xFF }, 0, 0xFF, k_sc_build, N(k_sc_build), 0 },
	{ KTC_SYSCONFIG, { 33, 0xFF }, 0, 0xFF, k_sc_paths, N(k_sc_paths), 0 },
	{ KTC_SYSCONFIG, { 34, 0xFF }, 0, 0xFF, k_sc_volume, N(k_sc_volume), 0 },
	{ KTC_SYSCONFIG, { 35, 0xFF }, 0, 0xFF, k_sc_mapping, N(k_sc_mapping), 0 },
	{ KTC_WINSAT, { 33, 35, 37, 0xFF }, 0, 0xFF, etl__k_winsat, 3, 0 },
	{ KTC_METADATA, { 32, 0xFF }, 0, 0, k_meta_event, N(k_meta_event), 0 },
	{ KTC_METADATA, { 33, 0xFF }, 0, 0, k_meta_map, N(k_meta_map), 0 },
};

/* build_schema() keeps two schemas per layout; a kind stores index + 1 in a byte */
_Static_assert(sizeof(etl__klayouts) / sizeof(etl__klayouts[0]) <= ETL_KERNEL_MAX_LAYOUTS, "raise ETL_KERNEL_MAX_LAYOUTS");
_Static_assert(ETL_KERNEL_MAX_LAYOUTS < 255, "a kind stores its layout index in a byte");

size_t etl__kernel_layout_count(void)
{
	return sizeof(etl__klayouts) / sizeof(etl__klayouts[0]);
}

const struct klayout *etl__klayout_find(unsigned group, unsigned opcode, unsigned version)
{
	size_t i, k;

	for (i = 0; i < etl__kernel_layout_count(); i++) {
		const struct klayout *l = &etl__klayouts[i];
		if (l->group != group || version < l->vmin || version > l->vmax)
			continue;
		for (k = 0; k < sizeof(l->ops) && l->ops[k] != 0xFF; k++)
			if (l->ops[k] == opcode)
				return l;
	}
	return NULL;
}

