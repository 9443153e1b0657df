/*
 * showcase.c - the "showcase" scenario: a trace that shows what etldump is
 * for on its first screen.  The kernel records of the system scenario
 * (processes, threads, images, a sample with its stack) and, in one process,
 * a web server's TraceLogging events and a backup tool's manifest events
 * (fixtures/manifests/showcase.man describes them), and a disk read whose file
 * name and volume the trace gives later (what --derive shows).  With damaged = 1 one
 * TraceLogging event is cut short, so that its decoding is partial.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pbuf.h"
#include "scenario.h"
#include "tlgmeta.h"

/* Contoso-Backup, as fixtures/manifests/showcase.man declares it */
const struct etl_guid scen_showcase_manifest = { 0x6a2b7b9e, 0x3c1d, 0x4f5e,
						 { 0x9a, 0x8b, 0x7c, 0x6d, 0x5e, 0x4f, 0x3a, 0x2b } };
/* the TraceLogging provider Contoso.Web (its GUID is any: the traits name it) */
static const struct etl_guid web = { 0x5f3e1a2b, 0x7c4d, 0x5e6f, { 0x80, 0x91, 0xa2, 0xb3, 0xc4, 0xd5, 0xe6, 0xf7 } };
static const uint8_t web_traits[] = { 14, 0, 'C', 'o', 'n', 't', 'o', 's', 'o', '.', 'W', 'e', 'b', 0 };

static void event_base(struct etlw_event *e, uint64_t ts)
{
	memset(e, 0, sizeof(*e));
	e->level = 4;
	e->pid = 600;
	e->tid = 6001;
	e->ts = ts;
}

static int web_request(struct etlw *w, uint64_t ts, uint32_t id, const char *url)
{
	struct etlw_event e;
	struct etlw_ext ext[2];
	struct pbuf p = { .n = 0, .ptr = 8 };
	struct mb m;

	mb_begin(&m, "RequestStarted");
	mb_field(&m, "Url", 2, -1);     /* ANSI string */
	mb_field(&m, "RequestId", 8, -1); /* UINT32 */
	mb_end(&m);
	pb_astr(&p, url);
	pb_u32(&p, id);
	event_base(&e, ts);
	e.provider = web;
	e.opcode = 1;
	ext[0] = (struct etlw_ext){ ETL_EXT_PROV_TRAITS, web_traits, sizeof(web_traits) };
	ext[1] = (struct etlw_ext){ ETL_EXT_EVENT_SCHEMA_TL, m.b, (uint16_t)m.n };
	return etlw_event(w, 0, &e, ext, 2, p.b, p.n);
}

static int web_done(struct etlw *w, uint64_t ts, uint32_t id, uint32_t status, double ms, int cut)
{
	struct etlw_event e;
	struct etlw_ext ext[2];
	struct pbuf p = { .n = 0, .ptr = 8 };
	struct mb m;
	uint64_t bits;

	mb_begin(&m, "RequestFinished");
	mb_field(&m, "RequestId", 8, -1);
	mb_field(&m, "Status", 8, -1);
	mb_field(&m, "ElapsedMs", 12, -1); /* DOUBLE */
	mb_end(&m);
	memcpy(&bits, &ms, sizeof(bits));
	pb_u32(&p, id);
	pb_u32(&p, status);
	pb_u64(&p, bits);
	event_base(&e, ts);
	e.provider = web;
	e.opcode = 2;
	ext[0] = (struct etlw_ext){ ETL_EXT_PROV_TRAITS, web_traits, sizeof(web_traits) };
	ext[1] = (struct etlw_ext){ ETL_EXT_EVENT_SCHEMA_TL, m.b, (uint16_t)m.n };
	return etlw_event(w, 1, &e, ext, 2, p.b, cut ? 6 : p.n); /* cut: Status ends early */
}

/* Contoso-Backup event 1 (Backup/Start: Path, Bytes) or 2 (Backup/Stop: Path, Result, Files). */
static int backup(struct etlw *w, uint64_t ts, int stop, const char *path, uint64_t bytes, uint32_t result,
		  uint32_t files)
{
	struct etlw_event e;
	struct pbuf p = { .n = 0, .ptr = 8 };

	event_base(&e, ts);
	e.provider = scen_showcase_manifest;
	e.id = stop ? 2 : 1;
	e.task = 1;
	e.opcode = stop ? 2 : 1;
	e.channel = 16;
	e.keywords = 0x8000000000000001ull;
	pb_wstr(&p, path);
	if (stop) {
		pb_u32(&p, result);
		pb_u32(&p, files);
	} else {
		pb_u64(&p, bytes);
	}
	return etlw_event(w, 0, &e, NULL, 0, p.b, p.n);
}

/* The disk read of the backup (DiskIo Read v2, its file key), the file's name (FileIo Name, logged
 * later as rundowns are) and the volume mapping KernelTraceControl adds to merged traces: what
 * --derive turns into FileName and ElapsedTimeMSec. */
static int disk_read(struct etlw *w, const struct etlw_opts *o, uint64_t ts)
{
	struct pbuf p = { .n = 0, .ptr = 8 };

	pb_u32(&p, 0), pb_u32(&p, 0x60043), pb_u32(&p, 65536), pb_u32(&p, 0), pb_u64(&p, 0x1000000);
	pb_u64(&p, 0xffffc0012345a0b0ull), pb_u64(&p, 0xffffc00100001000ull), pb_u64(&p, o->perf_freq / 400); /* 2.5 ms */
	return etlw_system(w, 1, 0, 2, 0x010A, 6001, 600, ts, p.b, p.n);
}

static int file_name(struct etlw *w, uint64_t ts)
{
	struct pbuf p = { .n = 0, .ptr = 8 };

	pb_u64(&p, 0xffffc0012345a0b0ull);
	pb_wstr(&p, "\\Device\\HarddiskVolume3\\Users\\demo\\Documents\\report.docx");
	return etlw_perfinfo(w, 0, 2, 0x0400, ts, NULL, 0, NULL, p.b, p.n);
}

static int volume_mapping(struct etlw *w, uint64_t ts)
{
	static const struct etl_guid sysconfig = { 0x9b79ee91, 0xb5fd, 0x41c0,
						   { 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 } };
	struct etlw_classic c;
	struct pbuf p = { .n = 0, .ptr = 8 };

	memset(&c, 0, sizeof(c));
	c.guid = sysconfig;
	c.type = 35;
	c.ts = ts;
	pb_wstr(&p, "\\Device\\HarddiskVolume3\\");
	pb_wstr(&p, "C:\\");
	return etlw_classic(w, 0, &c, p.b, p.n);
}

int scen_build_showcase(const struct etlw_opts *o, int damaged, uint8_t **out, size_t *len)
{
	uint64_t t0 = o->start_ts, tick = o->perf_freq / 1000;
	struct etlw *w = etlw_new(o);
	int rc;

	if (!w)
		return -1;
	rc = scen_write_system(w, o);
	/* after the system scenario (its last record is at 40 ms): contoso.exe runs for 10 ms */
	rc |= scen_process(w, o, 0, 1, t0 + 41 * tick, 600, 400, 259, "contoso.exe", "contoso.exe --serve :8080");
	rc |= scen_thread(w, o, 0, 1, t0 + 41 * tick + 10, 600, 6001);
	rc |= backup(w, t0 + 42 * tick, 0, "C:\\Users\\demo\\Documents", 73400320, 0, 0);
	rc |= disk_read(w, o, t0 + 42 * tick + 500);
	rc |= web_request(w, t0 + 43 * tick, 1, "/index.html");
	rc |= web_done(w, t0 + 44 * tick, 1, 200, 1.25, 0);
	rc |= web_request(w, t0 + 45 * tick, 2, "/api/orders?id=42");
	rc |= web_done(w, t0 + 46 * tick, 2, 404, 0.5, damaged);
	rc |= backup(w, t0 + 48 * tick, 1, "C:\\Users\\demo\\Documents", 0, 5, 118);
	rc |= scen_process(w, o, 1, 2, t0 + 50 * tick, 600, 400, 0, "contoso.exe", "contoso.exe --serve :8080");
	rc |= file_name(w, t0 + 51 * tick);
	rc |= volume_mapping(w, t0 + 51 * tick + 1);
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc ? -1 : 0;
}
