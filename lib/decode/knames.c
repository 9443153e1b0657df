/*
 * knames.c - PerfView's names of the classic kernel events (task and opcode
 * names by group and opcode), and the class GUIDs of the groups that
 * KernelTraceControl adds to merged traces.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "decode/ktables.h"
#include "record/record.h"

/* PerfView's names: group (task) and opcodes */
static const struct kname {
	uint8_t group, opcode;
	const char *task, *opcode_name;
} names[] = {
	{ 0x00, 0, "EventTrace", NULL }, { 0x00, 5, "EventTrace", "Extension" },
	{ 0x00, 8, "EventTrace", "RundownComplete" }, { 0x00, 32, "EventTrace", "EndExtension" },
	{ 0x00, 64, "EventTrace", "DbgIdRSDS" }, { 0x00, 66, "EventTrace", "BuildInfo" },
	{ 0x00, 67, "EventTrace", "ProviderBinaryPath" }, { 0x00, 80, "EventTrace", "PartitionInfoExtension" },
	{ 0x00, 82, "EventTrace", "LastDroppedTimes" },
	{ 0x01, 10, "DiskIO", "Read" }, { 0x01, 11, "DiskIO", "Write" }, { 0x01, 12, "DiskIO", "ReadInit" },
	{ 0x01, 13, "DiskIO", "WriteInit" }, { 0x01, 14, "DiskIO", "FlushBuffers" }, { 0x01, 15, "DiskIO", "FlushInit" },
	{ 0x02, 10, "Memory", "TransitionFault" }, { 0x02, 11, "Memory", "DemandZeroFault" },
	{ 0x02, 12, "Memory", "CopyOnWrite" }, { 0x02, 13, "Memory", "GuardPageFault" },
	{ 0x02, 14, "Memory", "HardPageFault" }, { 0x02, 15, "Memory", "AccessViolation" },
	{ 0x02, 32, "Memory", "HardFault" }, { 0x02, 98, "Memory", "VirtualAlloc" },
	{ 0x02, 99, "Memory", "VirtualFree" },
	{ 0x03, 1, "Process", "Start" }, { 0x03, 2, "Process", "Stop" }, { 0x03, 3, "Process", "DCStart" },
	{ 0x03, 4, "Process", "DCStop" }, { 0x03, 10, "Image", "Load" }, { 0x03, 11, "Process", "Terminate" },
	{ 0x03, 32, "Process", "PerfCtr" }, { 0x03, 33, "Process", "PerfCtrRundown" },
	{ 0x03, 39, "Process", "Defunct" },
	{ 0x05, 1, "Thread", "Start" }, { 0x05, 2, "Thread", "Stop" }, { 0x05, 3, "Thread", "DCStart" },
	{ 0x05, 4, "Thread", "DCStop" }, { 0x05, 36, "Thread", "CSwitch" }, { 0x05, 50, "Thread", "ReadyThread" },
	{ 0x05, 72, "Thread", "SetName" }, { 0x05, 37, "Thread", "CompCS" }, { 0x05, 41, "Thread", "SpinLock" },
	{ 0x05, 48, "Thread", "SetPriority" }, { 0x05, 49, "Thread", "SetBasePriority" },
	{ 0x05, 51, "Thread", "SetPagePriority" }, { 0x05, 52, "Thread", "SetIoPriority" },
	{ 0x05, 53, "Thread", "ThreadAffinity" }, { 0x05, 57, "Thread", "WorkerThread" },
	{ 0x05, 60, "Thread", "AntiStarvationBoost" }, { 0x05, 61, "Thread", "ThreadMigration" },
	{ 0x05, 62, "Thread", "KernelQueueEnqueue" }, { 0x05, 63, "Thread", "KernelQueueDequeue" },
	{ 0x05, 64, "Thread", "WorkerThreadStart" }, { 0x05, 65, "Thread", "WorkerThreadEnd" },
	{ 0x05, 66, "Thread", "AutoBoostSetFloor" }, { 0x05, 67, "Thread", "AutoBoostClearFloor" },
	{ 0x05, 68, "Thread", "AutoBoostEntryExhaustion" }, { 0x05, 69, "Thread", "SubProcessTagChanged" },
	{ 0x06, 10, "TcpIp", "Send" }, { 0x06, 11, "TcpIp", "Recv" }, { 0x06, 12, "TcpIp", "Connect" },
	{ 0x06, 13, "TcpIp", "Disconnect" }, { 0x06, 14, "TcpIp", "Retransmit" }, { 0x06, 15, "TcpIp", "Accept" },
	{ 0x06, 26, "TcpIp", "SendIPV6" }, { 0x06, 27, "TcpIp", "RecvIPV6" }, { 0x06, 28, "TcpIp", "ConnectIPV6" },
	{ 0x06, 29, "TcpIp", "DisconnectIPV6" }, { 0x06, 30, "TcpIp", "RetransmitIPV6" },
	{ 0x06, 31, "TcpIp", "AcceptIPV6" }, { 0x06, 16, "TcpIp", "Reconnect" },
	{ 0x06, 18, "TcpIp", "TCPCopy" }, { 0x06, 32, "TcpIp", "ReconnectIPV6" }, { 0x06, 34, "TcpIp", "TCPCopyIPV6" },
	{ 0x08, 10, "UdpIp", "Send" }, { 0x08, 11, "UdpIp", "Recv" }, { 0x08, 26, "UdpIp", "SendIPV6" },
	{ 0x08, 27, "UdpIp", "RecvIPV6" },
	{ 0x0B, 10, "SystemConfig", "CPU" }, { 0x0B, 11, "SystemConfig", "PhyDisk" },
	{ 0x0B, 12, "SystemConfig", "LogDisk" }, { 0x0B, 13, "SystemConfig", "NIC" },
	{ 0x0B, 14, "SystemConfig", "Video" }, { 0x0B, 15, "SystemConfig", "Services" },
	{ 0x0B, 16, "SystemConfig", "Power" }, { 0x0B, 17, "SystemConfig", "Network" },
	{ 0x0B, 21, "SystemConfig", "IRQ" }, { 0x0B, 22, "SystemConfig", "PnP" },
	{ 0x0B, 23, "SystemConfig", "IDEChannel" }, { 0x0B, 25, "SystemConfig", "Platform" },
	{ 0x0B, 18, "SystemConfig", "OpticalDisk" }, { 0x0B, 24, "SystemConfig", "NumaNode" },
	{ 0x0B, 26, "SystemConfig", "ProcessorGroup" }, { 0x0B, 27, "SystemConfig", "ProcessorNumber" },
	{ 0x0B, 28, "SystemConfig", "DPI" }, { 0x0B, 29, "SystemConfig", "CodeIntegrity" },
	{ 0x0B, 30, "SystemConfig", "TelemetryConfiguration" }, { 0x0B, 31, "SystemConfig", "Defragmentation" },
	{ 0x0B, 32, "SystemConfig", "MobilePlatform" }, { 0x0B, 33, "SystemConfig", "DeviceFamily" },
	{ 0x0B, 34, "SystemConfig", "FlightIds" }, { 0x0B, 35, "SystemConfig", "Processors" },
	{ 0x0B, 36, "SystemConfig", "VirtualizationConfigInfo" }, { 0x0B, 37, "SystemConfig", "BootConfigInfo" },
	{ 0x0F, 34, "PerfInfo", "Mark" }, { 0x0F, 46, "PerfInfo", "Sample" }, { 0x0F, 51, "PerfInfo", "SysClEnter" },
	{ 0x0F, 52, "PerfInfo", "SysClExit" }, { 0x0F, 66, "PerfInfo", "ThreadedDPC" },
	{ 0x0F, 67, "PerfInfo", "ISR" }, { 0x0F, 68, "PerfInfo", "DPC" }, { 0x0F, 69, "PerfInfo", "TimerDPC" },
	{ 0x0F, 73, "PerfInfo", "CollectionStart" }, { 0x0F, 74, "PerfInfo", "CollectionEnd" },
	{ 0x0F, 47, "PerfInfo", "PmcCounterProf" }, { 0x0F, 48, "PerfInfo", "PmcCtrConfig" },
	{ 0x0F, 50, "PerfInfo", "ISR_MSI" }, { 0x0F, 58, "PerfInfo", "DebuggerEnabled" },
	{ 0x0F, 70, "PerfInfo", "IOTimer" }, { 0x0F, 72, "PerfInfo", "SetInterval" },
	{ 0x0F, 75, "PerfInfo", "SpinlockConfigureCollectionStart" },
	{ 0x0F, 76, "PerfInfo", "SpinlockConfigureCollectionEnd" }, { 0x0F, 92, "PerfInfo", "ISR_Unexpected" },
	{ 0x0F, 93, "PerfInfo", "IoStartTimer" }, { 0x0F, 94, "PerfInfo", "IoStopTimer" },
	{ 0x0F, 95, "PerfInfo", "ISR_PASS" }, { 0x0F, 96, "PerfInfo", "WdfISR" },
	{ 0x0F, 97, "PerfInfo", "WdfPassiveISR" }, { 0x0F, 98, "PerfInfo", "WdfDPC" },
	{ 0x0F, 103, "PerfInfo", "WdfWorkItem" }, { 0x0F, 104, "PerfInfo", "SetKTimer2" },
	{ 0x0F, 105, "PerfInfo", "ExpireKTimer2" }, { 0x0F, 106, "PerfInfo", "CancelKTimer2" },
	{ 0x0F, 107, "PerfInfo", "DisableKTimer2" }, { 0x0F, 108, "PerfInfo", "FinalizeKTimer2" },
	{ 0x0F, 114, "PerfInfo", "KernelHypercall" },
	{ 0x14, 2, "Image", "Unload" }, { 0x14, 3, "Image", "DCStart" }, { 0x14, 4, "Image", "DCStop" },
	{ 0x14, 10, "Image", "Load" }, { 0x14, 33, "Image", "KernelBase" }, { 0x14, 34, "Image", "HypercallPage" },
	{ 0x18, 32, "StackWalk", "Stack" }, { 0x18, 34, "StackWalk", "KeyCreate" },
	{ 0x18, 35, "StackWalk", "KeyDelete" }, { 0x18, 36, "StackWalk", "KeyRundown" },
	{ 0x18, 37, "StackWalk", "StackKeyKernel" }, { 0x18, 38, "StackWalk", "StackKeyUser" },
	{ KTC_IMAGEID, 32, "ImageID", "None" },
	{ KTC_IMAGEID, 36, "ImageID", "DbgID_RSDS" }, { KTC_IMAGEID, 37, "ImageID", "DbgID_ILRSDS" },
	{ KTC_IMAGEID, 34, "ImageID", "DbgID_DBG" }, { KTC_IMAGEID, 38, "ImageID", "DbgPPDB" }, { KTC_IMAGEID, 40, "ImageID", "DbgDeterm" },
	{ KTC_IMAGEID, 64, "ImageID", "FileVersion" },
	{ KTC_METADATA, 32, "MetaData", "EventInfo" }, { KTC_METADATA, 33, "MetaData", "EventMapInfo" },
	{ KTC_WINSAT, 33, "WinSat", "WinSPR" }, { KTC_WINSAT, 35, "WinSat", "Metrics" },
	{ KTC_WINSAT, 37, "WinSat", "SystemConfig" },
	{ 0x04, 0, "FileIO", "Name" }, { 0x04, 32, "FileIO", "FileCreate" }, { 0x04, 35, "FileIO", "FileDelete" },
	{ 0x04, 36, "FileIO", "FileRundown" }, { 0x04, 64, "FileIO", "Create" }, { 0x04, 65, "FileIO", "Cleanup" },
	{ 0x04, 66, "FileIO", "Close" }, { 0x04, 67, "FileIO", "Read" }, { 0x04, 68, "FileIO", "Write" },
	{ 0x04, 69, "FileIO", "SetInfo" }, { 0x04, 70, "FileIO", "Delete" }, { 0x04, 71, "FileIO", "Rename" },
	{ 0x04, 72, "FileIO", "DirEnum" }, { 0x04, 73, "FileIO", "Flush" }, { 0x04, 74, "FileIO", "QueryInfo" },
	{ 0x04, 75, "FileIO", "FSControl" }, { 0x04, 76, "FileIO", "OperationEnd" },
	{ 0x04, 77, "FileIO", "DirNotify" }, { 0x04, 37, "FileIO", "MapFile" }, { 0x04, 38, "FileIO", "UnmapFile" },
	{ 0x04, 39, "FileIO", "MapFileDCStart" }, { 0x04, 40, "FileIO", "MapFileDCStop" },
	{ 0x04, 79, "FileIO", "DeletePath" }, { 0x04, 80, "FileIO", "RenamePath" },
	{ 0x04, 81, "FileIO", "SetLinkPath" }, { 0x04, 96, "FileIO", "PreOpInit" }, { 0x04, 97, "FileIO", "PostOpInit" },
	{ 0x04, 98, "FileIO", "PreOpCompletion" }, { 0x04, 99, "FileIO", "PostOpCompletion" },
	{ 0x04, 100, "FileIO", "PreOpFailure" }, { 0x04, 101, "FileIO", "PostOpFailure" },
	{ 0x09, 10, "Registry", "Create" }, { 0x09, 11, "Registry", "Open" }, { 0x09, 12, "Registry", "Delete" },
	{ 0x09, 13, "Registry", "Query" }, { 0x09, 14, "Registry", "SetValue" },
	{ 0x09, 15, "Registry", "DeleteValue" }, { 0x09, 16, "Registry", "QueryValue" },
	{ 0x09, 17, "Registry", "EnumerateKey" }, { 0x09, 18, "Registry", "EnumerateValueKey" },
	{ 0x09, 19, "Registry", "QueryMultipleValue" }, { 0x09, 20, "Registry", "SetInformation" },
	{ 0x09, 21, "Registry", "Flush" }, { 0x09, 22, "Registry", "KCBCreate" },
	{ 0x09, 23, "Registry", "KCBDelete" }, { 0x09, 24, "Registry", "KCBRundownBegin" },
	{ 0x09, 25, "Registry", "KCBRundownEnd" }, { 0x09, 26, "Registry", "Virtualize" },
	{ 0x09, 27, "Registry", "Close" },
	{ 0x1A, 33, "ALPC", "SendMessage" }, { 0x1A, 34, "ALPC", "ReceiveMessage" },
	{ 0x1A, 35, "ALPC", "WaitForReply" }, { 0x1A, 36, "ALPC", "WaitForNewMessage" },
	{ 0x1A, 37, "ALPC", "UnWait" },
	{ KTC_SYSCONFIG, 32, "SysConfig", "BuildInfo" }, { KTC_SYSCONFIG, 33, "SysConfig", "SystemPaths" },
	{ KTC_SYSCONFIG, 34, "SysConfig", "UnknownVolume" }, { KTC_SYSCONFIG, 35, "SysConfig", "VolumeMapping" },
};

/* PerfView's group names where they differ from etl_kernel_group_name() */
static const char *task_of(unsigned group)
{
	switch (group) {
	case 0x01: return "DiskIO";
	case 0x02: return "Memory";
	case 0x04: return "FileIO";
	case 0x1A: return "ALPC";
	case KTC_IMAGEID: return "ImageID";
	case KTC_SYSCONFIG: return "SysConfig";
	case KTC_METADATA: return "MetaData";
	case KTC_WINSAT: return "WinSat";
	default: return etl_kernel_group_name(group);
	}
}

int etl__kernel_names(unsigned group, unsigned opcode, const char **task, const char **opcode_name)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].group == group && names[i].opcode == opcode) {
			*task = names[i].task;
			*opcode_name = names[i].opcode_name;
			return 1;
		}
	*task = task_of(group);
	*opcode_name = NULL;
	return 0;
}

/* KernelTraceControl's classes, added to traces by merging */
static const struct etl_guid ktc_imageid = {
	0xb3e675d7, 0x2554, 0x4f18, { 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde }
};

static const struct etl_guid ktc_sysconfig = {
	0x9b79ee91, 0xb5fd, 0x41c0, { 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 }
};

static const struct etl_guid ktc_winsat = {
	0xed54dff8, 0xc409, 0x4cf6, { 0xbf, 0x83, 0x05, 0xe1, 0xe6, 0x1a, 0x09, 0xc4 }
};

static const struct etl_guid ktc_metadata = {
	0xbbccf6c1, 0x6cd1, 0x48c4, { 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 }
};

/* PerfView files the merged system configuration under Windows Kernel, image ids under KernelTraceControl */
const char *etl__kernel_provider_name(unsigned group)
{
	return group == KTC_IMAGEID || group == KTC_METADATA || group == KTC_WINSAT ? "KernelTraceControl"
										     : "Windows Kernel";
}

int etl__kernel_group_of_class(const struct etl_guid *g)
{
	if (g->data1 == ktc_imageid.data1 && etl_guid_equal(g, &ktc_imageid))
		return KTC_IMAGEID;
	if (g->data1 == ktc_sysconfig.data1 && etl_guid_equal(g, &ktc_sysconfig))
		return KTC_SYSCONFIG;
	if (g->data1 == ktc_metadata.data1 && etl_guid_equal(g, &ktc_metadata))
		return KTC_METADATA;
	if (g->data1 == ktc_winsat.data1 && etl_guid_equal(g, &ktc_winsat))
		return KTC_WINSAT;
	return etl__record_group_of_class(g);
}



int etl__kernel_name_at(size_t i, unsigned *group, unsigned *opcode, const char **task, const char **op)
{
	if (i >= sizeof(names) / sizeof(names[0]))
		return 0;
	*group = names[i].group;
	*opcode = names[i].opcode;
	*task = names[i].task;
	*op = names[i].opcode_name;
	return 1;
}

