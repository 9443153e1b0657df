/*
 * kproviders.c - the "kproviders64" scenario: a session of the Windows
 * kernel's manifest providers with no kernel logger, as
 * `logman create trace -p Microsoft-Windows-Kernel-Process ...` records it
 * (times in ms after the start; one processor; payloads as the providers'
 * manifests lay them out, version 1):
 *
 *   Kernel-Process  ProcessStart of 300 (app.exe, parent 4, session 1) at 1;
 *                   ThreadStart of 301 at 2; ImageLoad of app.exe at 3
 *                   (0x140000000, 64 KiB); ThreadStop of 301 at 60; ProcessStop
 *                   of 300 at 61 (exit code 7); ThreadStop of 999 in 4 at 62
 *                   (running before the trace)
 *   Kernel-File     Create (Irp A, FileObject F) of \Device\HarddiskVolume1\d.txt at
 *                   10 by 301, its OperationEnd at 11; Read (Irp B of F, 100 bytes at 4096)
 *                   at 12, its OperationEnd at 14 (60 bytes); Write (Irp C) at 15, never
 *                   ended; Create with Irp A again at 16 (the Irp reused), never ended
 *   Kernel-Disk     Read of F at 20: disk 0, 4096 bytes at 8192, 2 ms
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "pbuf.h"
#include "scenario.h"

static const struct etl_guid kprocess = { 0x22fb2cd6, 0x0e7b, 0x422b,
					  { 0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16 } };
static const struct etl_guid kfile = { 0xedd08927, 0x9cc4, 0x4e65, { 0xb9, 0x70, 0xc2, 0x56, 0x0f, 0xb5, 0xc2, 0x89 } };
static const struct etl_guid kdisk = { 0xc7bde69a, 0xe1e0, 0x4177, { 0xb6, 0xef, 0x28, 0x3a, 0xd1, 0x52, 0x52, 0x71 } };

#define IRP_A 0xffffa00000000a00ull
#define IRP_B 0xffffa00000000b00ull
#define IRP_C 0xffffa00000000c00ull
#define FO 0xffffb000000000f1ull

struct kctx {
	struct etlw *w;
	const struct etlw_opts *o;
	uint64_t ms;
	int rc;
};

/* An event of provider g: id (task id, opcode), version 1, by thread tid of pid. */
static void ev(struct kctx *c, const struct etl_guid *g, uint16_t id, uint16_t task, uint8_t opcode, double ms,
	       uint32_t pid, uint32_t tid, const struct pbuf *p)
{
	struct etlw_event e;

	memset(&e, 0, sizeof(e));
	e.provider = *g;
	e.id = id;
	e.version = 1;
	e.task = task;
	e.opcode = opcode;
	e.level = 4;
	e.pid = pid;
	e.tid = tid;
	e.ts = c->o->start_ts + (uint64_t)(ms * (double)c->ms + 0.5);
	c->rc |= etlw_event(c->w, 0, &e, NULL, 0, p->b, p->n);
}

/* ThreadStart / ThreadStop v1: ProcessID, ThreadID, 7 pointers, SubProcessTag (and CycleTime). */
static void thread(struct kctx *c, int start, double ms, uint32_t pid, uint32_t tid)
{
	struct pbuf p = { .n = 0, .ptr = 8 };
	int i;

	pb_u32(&p, pid), pb_u32(&p, tid);
	for (i = 0; i < 7; i++)
		pb_ptr(&p, i == 5 ? 0x140001000ull : 0);
	pb_u32(&p, 0);
	if (!start)
		pb_u64(&p, 1000);
	ev(c, &kprocess, start ? 3 : 4, start ? 3 : 4, start ? 1 : 2, ms, pid, tid, &p);
}

static void process_events(struct kctx *c)
{
	struct pbuf p = { .n = 0, .ptr = 8 };

	pb_u32(&p, 300), pb_u64(&p, 0), pb_u32(&p, 4), pb_u32(&p, 1), pb_u32(&p, 0);
	pb_wstr(&p, "\\Device\\HarddiskVolume1\\app.exe");
	ev(c, &kprocess, 1, 1, 1, 1, 4, 8, &p);
	thread(c, 1, 2, 300, 301);
	p.n = 0; /* ImageLoad: ImageBase, ImageSize, ProcessID, ImageCheckSum, TimeDateStamp, DefaultBase, ImageName */
	pb_ptr(&p, 0x140000000ull), pb_ptr(&p, 0x10000), pb_u32(&p, 300), pb_u32(&p, 0x1234), pb_u32(&p, 0x5f000000);
	pb_ptr(&p, 0x140000000ull), pb_wstr(&p, "\\Device\\HarddiskVolume1\\app.exe");
	ev(c, &kprocess, 5, 5, 0, 3, 300, 301, &p);
}

/* (after the file and disk events: a processor's records go in time order) */
static void process_ends(struct kctx *c)
{
	struct pbuf p = { .n = 0, .ptr = 8 };
	int i;

	thread(c, 0, 60, 300, 301);
	p.n = 0; /* ProcessStop v1 */
	pb_u32(&p, 300), pb_u64(&p, 0), pb_u64(&p, 0), pb_u32(&p, 7), pb_u32(&p, 1), pb_u32(&p, 10);
	pb_u64(&p, 4096), pb_u64(&p, 8192), pb_u64(&p, 1000);
	for (i = 0; i < 5; i++)
		pb_u32(&p, 0);
	pb_astr(&p, "app.exe");
	ev(c, &kprocess, 2, 2, 2, 61, 300, 301, &p);
	thread(c, 0, 62, 4, 999);
}

static void file_events(struct kctx *c)
{
	struct pbuf p = { .n = 0, .ptr = 8 };

	/* Create v1: Irp, FileObject, IssuingThreadId, CreateOptions, CreateAttributes, ShareAccess, FileName */
	pb_ptr(&p, IRP_A), pb_ptr(&p, FO), pb_u32(&p, 301), pb_u32(&p, 0), pb_u32(&p, 0x80), pb_u32(&p, 1);
	pb_wstr(&p, "\\Device\\HarddiskVolume1\\d.txt");
	ev(c, &kfile, 12, 12, 0, 10, 300, 301, &p);
	p.n = 0; /* OperationEnd: Irp, ExtraInformation, Status */
	pb_ptr(&p, IRP_A), pb_ptr(&p, 1), pb_u32(&p, 0);
	ev(c, &kfile, 24, 24, 0, 11, 300, 301, &p);
	p.n = 0; /* Read v1: ByteOffset, Irp, FileObject, FileKey, IssuingThreadId, IOSize, IOFlags, ExtraFlags */
	pb_u64(&p, 4096), pb_ptr(&p, IRP_B), pb_ptr(&p, FO), pb_ptr(&p, 0), pb_u32(&p, 301), pb_u32(&p, 100);
	pb_u32(&p, 0), pb_u32(&p, 0);
	ev(c, &kfile, 15, 15, 0, 12, 300, 301, &p);
	p.n = 0;
	pb_ptr(&p, IRP_B), pb_ptr(&p, 60), pb_u32(&p, 0);
	ev(c, &kfile, 24, 24, 0, 14, 300, 301, &p);
	p.n = 0; /* Write v1, never ended */
	pb_u64(&p, 0), pb_ptr(&p, IRP_C), pb_ptr(&p, FO), pb_ptr(&p, 0), pb_u32(&p, 301), pb_u32(&p, 10);
	pb_u32(&p, 0), pb_u32(&p, 0);
	ev(c, &kfile, 16, 16, 0, 15, 300, 301, &p);
	p.n = 0; /* Create with Irp A again, never ended */
	pb_ptr(&p, IRP_A), pb_ptr(&p, FO + 0x10), pb_u32(&p, 301), pb_u32(&p, 0), pb_u32(&p, 0x80), pb_u32(&p, 1);
	pb_wstr(&p, "\\Device\\HarddiskVolume1\\e.txt");
	ev(c, &kfile, 12, 12, 0, 16, 300, 301, &p);
}

/* Kernel-Disk Read (10): DiskNumber, IrpFlags, TransferSize, Reserved, ByteOffset, FileObject,
 * IORequestPacket, HighResResponseTime (QPC ticks). */
static void disk_events(struct kctx *c)
{
	struct pbuf p = { .n = 0, .ptr = 8 };

	pb_u32(&p, 0), pb_u32(&p, 0x60000), pb_u32(&p, 4096), pb_u32(&p, 0), pb_u64(&p, 8192), pb_ptr(&p, FO);
	pb_ptr(&p, 0xffffa00000000d00ull), pb_u64(&p, 2 * c->ms);
	ev(c, &kdisk, 10, 0, 0, 20, 4, 8, &p);
}

int scen_build_kproviders(const struct etlw_opts *o, uint8_t **out, size_t *len)
{
	struct kctx c;

	c.w = etlw_new(o);
	c.o = o;
	c.ms = o->perf_freq / 1000;
	c.rc = c.w ? 0 : -1;
	if (c.rc)
		return -1;
	process_events(&c);
	file_events(&c);
	disk_events(&c);
	process_ends(&c);
	if (c.rc == 0)
		c.rc = etlw_finish(c.w, out, len);
	etlw_free(c.w);
	return c.rc ? -1 : 0;
}

/* The "hostile64" scenario: a process whose image name and command line hold what would act on a
 * terminal or a spreadsheet's reader - ESC, CR, LF, DEL, the C1 control U+009B (CSI) and the
 * bidirectional override U+202E - and a thread of it. */
int scen_build_hostile(const struct etlw_opts *o, uint8_t **out, size_t *len)
{
	static const char image[] = "a\x1b[2J\xc2\x9b" "b\xe2\x80\xaetxt.exe";
	static const char cmd[] = "a.exe \"x\r\ny\x7f\"";
	struct etlw *w = etlw_new(o);
	int rc = w ? 0 : -1;

	if (rc)
		return -1;
	rc |= scen_process(w, o, 0, 1, o->start_ts + 10, 300, 4, 259, image, cmd);
	rc |= scen_thread(w, o, 0, 1, o->start_ts + 20, 300, 301);
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc ? -1 : 0;
}
