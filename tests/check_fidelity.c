/*
 * check_fidelity.c - decodings that must not pass silently (issue 16): a
 * layout whose values contradict the record stays raw, a partial decoding
 * says so, names are unique within an event; over synthetic records and,
 * where it is present, every trace of the corpus.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etlw.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";


/* UTF-16LE of an ASCII path with its terminator; returns the bytes written. */
static size_t put_wstr(uint8_t *p, const char *s)
{
	size_t n = 0;

	do
		etlw_put16(p + 2 * n, (uint8_t)s[n]);
	while (s[n++]);
	return 2 * n;
}

/* Image payloads laid out as sawbuck's 32-bit programs did (and as the kernel does). */
enum shape {
	V1_U64_U64,     /* {u64 base; u64 size; u32 pid; name}: the kernel's v1 with 8-byte pointers */
	V1_U64_U32,     /* {u64 base; u32 size; u32 pid; name}: a 32-bit program's own struct */
	V2_U64_U32,     /* the v2 fields after {u64 base; u32 size; u32 pid} */
	V1_U32_OTHER,   /* {u32 base; u32 size; u32 pid; name}, pid not the logger's (a rundown) */
	V1_U32_ODD_PID, /* the kernel's 4-byte v1, with a pid Windows cannot give */
	V1_U64_U32_OTHER, /* {u64 base; u32 size; u32 pid; name}, pid not the logger's: no layout fits */
	SHAPES
};

static size_t image_payload(enum shape sh, uint32_t pid, uint8_t *p)
{
	static const char name[] = "C:\\code\\test_program.exe";
	size_t n = 0;

	switch (sh) {
	case V1_U64_U64:
		etlw_put64(p, 0x1160000), etlw_put64(p + 8, 0x19e000), etlw_put32(p + 16, pid), n = 20;
		break;
	case V1_U64_U32:
		etlw_put64(p, 0x1160000), etlw_put32(p + 8, 0x19e000), etlw_put32(p + 12, pid), n = 16;
		break;
	case V1_U64_U32_OTHER:
		etlw_put64(p, 0x1160000), etlw_put32(p + 8, 0x19e000), etlw_put32(p + 12, pid + 8), n = 16;
		break;
	case V2_U64_U32:
		etlw_put64(p, 0x1160000), etlw_put32(p + 8, 0x19e000), etlw_put32(p + 12, pid), n = 16;
		etlw_put32(p + n, 0x4ba26867), etlw_put32(p + n + 4, 0xcafebabe), etlw_put32(p + n + 8, 0);
		etlw_put64(p + n + 12, 0), memset(p + n + 20, 0, 16), n += 36;
		break;
	case V1_U32_OTHER:
		etlw_put32(p, 0x1160000), etlw_put32(p + 4, 0x19e000), etlw_put32(p + 8, pid + 8), n = 12;
		break;
	case V1_U32_ODD_PID:
		etlw_put32(p, 0x1160000), etlw_put32(p + 4, 0x19e000), etlw_put32(p + 8, 4097), n = 12;
		break;
	default:
		break;
	}
	return n + put_wstr(p + n, name);
}

/* A trace whose header says 4-byte pointers, holding one Image/Load record of each shape. */
static uint8_t *image_trace(size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_classic c;
	uint8_t *out, pl[256];
	int sh;

	etlw_default_opts(&o);
	o.ptr_size = 4;
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(etl_guid_parse("2cb15d1d-5fc1-11d2-abe1-00a0c911f518", &c.guid), 0);
	c.type = 10; /* Load */
	c.pid = 4192;
	c.tid = 6452;
	for (sh = 0; sh < SHAPES; sh++) {
		c.version = sh == V2_U64_U32 ? 2 : 1;
		c.ts = o.start_ts + 1000u * (unsigned)(sh + 1);
		ck_assert_int_eq(etlw_classic(w, 0, &c, pl, image_payload((enum shape)sh, c.pid, pl)), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &out, len), 0);
	etlw_free(w);
	return out;
}

/* Every MOF-class image shape decodes with the layout its bytes prove (the kernel's, of either
 * pointer size, or the 32-bit programs' own {u64 base; u32 size; u32 pid}); a payload ProcessID
 * other than the header's pid says nothing.  What no layout proves stays raw and is reported:
 * etl_reader_decode fails with the reason, at the record's offset. */
START_TEST(image_layouts_must_agree_with_their_values)
{
	static const char *const why[SHAPES] = {
		NULL, NULL, NULL, NULL, "ProcessID is not a multiple of 4", "ImageSize is above 4 GiB",
	};
	static const char *const pid[SHAPES] = { "4192", "4192", "4192", "4200", NULL, NULL };
	size_t len;
	uint8_t *d = image_trace(&len);
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int n = 0;

	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "images"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		int st;
		if (etl_event_header_kind(ev) != ETL_HEADER_FULL)
			continue;
		st = etl_reader_decode(r, ev, &dec);
		ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/Image/Load");
		if (!why[n]) {
			ck_assert_int_eq(st, ETL_OK);
			ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_COMPLETE);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "ImageBase")), "0x1160000");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "ImageSize")), "0x19e000");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "ProcessID")), pid[n]);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "FileName")),
					 "C:\\code\\test_program.exe");
		} else {
			ck_assert_int_eq(st, ETL_E_FORMAT);
			ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_RAW);
			ck_assert_msg(strstr(etl_decoded_reason(dec), why[n]) != NULL, "shape %d: '%s'", n,
				      etl_decoded_reason(dec));
			ck_assert_msg(strstr(etl_error_message(etl_reader_error(r)), why[n]) != NULL, "shape %d: '%s'", n,
				      etl_error_message(etl_reader_error(r)));
			ck_assert_uint_eq(etl_error_offset(etl_reader_error(r)), etl_event_file_offset(ev));
		}
		n++;
	}
	ck_assert_int_eq(n, SHAPES);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Image v2 as a 32-bit program lays out {u64 base; u32 size; u32 pid; u32 checksum; u32 stamp;
 * u32 reserved; u64 default base; u32 reserved[4]; name} with natural alignment: 4 bytes of
 * padding before the default base, the name at 56 (a sawbuck trace with a 64-bit header).  Its
 * bytes prove it as the packed shape's do: every byte used, the name ending the payload, the
 * pid the logger's; with another pid it stays raw. */
START_TEST(image_v2_naturally_aligned_decodes)
{
	static const char name[] = "C:\\code\\test_program.exe";
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_classic c;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	uint8_t *out, pl[256];
	size_t len, n;
	int k, seen = 0;

	etlw_default_opts(&o);
	o.ptr_size = 8;
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(etl_guid_parse("2cb15d1d-5fc1-11d2-abe1-00a0c911f518", &c.guid), 0);
	c.type = 3; /* DCStart */
	c.version = 2;
	c.pid = 4192;
	c.tid = 6452;
	for (k = 0; k < 2; k++) {
		memset(pl, 0, sizeof(pl));
		etlw_put64(pl, 0x1160000), etlw_put32(pl + 8, 0x19e000), etlw_put32(pl + 12, k ? 4200 : 4192);
		etlw_put32(pl + 16, 0x4ba26867), etlw_put32(pl + 20, 0x4d5a0000), etlw_put32(pl + 24, 0xcafebabe);
		etlw_put32(pl + 28, 0); /* padding */
		etlw_put64(pl + 32, 0x400000);
		n = 56 + put_wstr(pl + 56, name);
		c.ts = o.start_ts + 1000u * (unsigned)(k + 1);
		ck_assert_int_eq(etlw_classic(w, 0, &c, pl, n), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &out, &len), 0);
	etlw_free(w);
	ck_assert_int_eq(etl_reader_open_memory(r, out, len, "aligned"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		int st;
		if (etl_event_header_kind(ev) != ETL_HEADER_FULL)
			continue;
		st = etl_reader_decode(r, ev, &d);
		ck_assert_str_eq(etl_decoded_name(d), "Windows Kernel/Image/DCStart");
		if (seen++ == 0) {
			ck_assert_int_eq(st, ETL_OK);
			ck_assert_int_eq(etl_decoded_status(d), ETL_DECODE_COMPLETE);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "ImageBase")), "0x1160000");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "ImageSize")), "0x19e000");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "ProcessID")), "4192");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "ImageChecksum")), "0x4ba26867");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "TimeDateStamp")), "0x4d5a0000");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Reserved0")), "3405691582");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "DefaultBase")), "0x400000");
			ck_assert_ptr_nonnull(etl_decoded_property_by_name(d, "Padding"));
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "FileName")), name);
		} else {
			ck_assert_int_eq(st, ETL_E_FORMAT); /* another pid: not proven */
			ck_assert_int_eq(etl_decoded_status(d), ETL_DECODE_RAW);
		}
	}
	ck_assert_int_eq(seen, 2);
	etl_reader_free(r);
	free(out);
}
END_TEST

/* The kernel's own image records follow their header: a rundown logged by the thread that ends
 * the session (the header's pid is the collector's) and a driver's unload (ProcessID 0 under the
 * System process's pid) decode as they are, with 4- and 8-byte pointers. */
START_TEST(kernel_image_records_decode_whatever_their_pid)
{
	static const struct { uint16_t hook; uint8_t version; uint32_t hdr_pid, pid; const char *name; } k[] = {
		{ 0x1403, 2, 1876, 384, "Windows Kernel/Image/DCStart" },
		{ 0x1404, 2, 1876, 384, "Windows Kernel/Image/DCStop" },
		{ 0x1402, 3, 4, 0, "Windows Kernel/Image/Unload" },
		{ 0x140A, 3, 4, 0, "Windows Kernel/Image/Load" },
	};
	unsigned ptr;

	for (ptr = 4; ptr <= 8; ptr += 4) {
		struct etlw_opts o;
		struct etlw *w;
		struct etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		uint8_t *out, pl[256];
		size_t len, i, n, seen = 0;

		etlw_default_opts(&o);
		o.ptr_size = ptr;
		o.ncpu = 1;
		w = etlw_new(&o);
		for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
			n = 0;
			if (ptr == 8)
				etlw_put64(pl, 0xfffff80001160000ull), etlw_put64(pl + 8, 0x19e000), n = 16;
			else
				etlw_put32(pl, 0x81160000u), etlw_put32(pl + 4, 0x19e000), n = 8;
			etlw_put32(pl + n, k[i].pid), n += 4;
			etlw_put32(pl + n, 0x4ba26867), etlw_put32(pl + n + 4, 0x4a5bbf45), etlw_put32(pl + n + 8, 0), n += 12;
			memset(pl + n, 0, ptr + 16), n += ptr + 16; /* DefaultBase, Reserved1-4 */
			n += put_wstr(pl + n, "\\Windows\\System32\\drivers\\test.sys");
			ck_assert_int_eq(etlw_system(w, 0, 0, k[i].version, k[i].hook, 8, k[i].hdr_pid,
						     o.start_ts + 1000 * (i + 1), pl, n), 0);
		}
		ck_assert_int_eq(etlw_finish(w, &out, &len), 0);
		etlw_free(w);
		ck_assert_int_eq(etl_reader_open_memory(r, out, len, "kimages"), ETL_OK);
		while (etl_reader_next(r, &ev) == ETL_OK) {
			const struct etl_decoded *dec;
			char want[16];
			if (etl_event_header_kind(ev) != ETL_HEADER_SYSTEM || etl_event_hook_id(ev) >> 8 != 0x14)
				continue;
			ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
			ck_assert_str_eq(etl_decoded_name(dec), k[seen].name);
			ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_COMPLETE);
			snprintf(want, sizeof(want), "%u", (unsigned)k[seen].pid);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "ProcessID")), want);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "ImageSize")), "0x19e000");
			seen++;
		}
		ck_assert_uint_eq(seen, sizeof(k) / sizeof(k[0]));
		etl_reader_free(r);
		free(out);
	}
}
END_TEST

/* ---- stack frames and the images of their time ---- */

static void image_rec(struct etlw *w, const struct etlw_opts *o, uint16_t hook, uint64_t at, uint32_t pid,
		      uint64_t base, const char *name)
{
	uint8_t p[256];
	size_t n;

	memset(p, 0, sizeof(p));
	etlw_put64(p, base), etlw_put64(p + 8, 0x10000), etlw_put32(p + 16, pid);
	n = 56 + put_wstr(p + 56, name);
	ck_assert_int_eq(etlw_system(w, 0, 0, 3, hook, 8, pid, o->start_ts + at, p, n), 0);
}

/* A Thread/CSwitch-like record at `at` with a StackWalk record of one frame after it. */
static void stacked(struct etlw *w, const struct etlw_opts *o, uint64_t at, uint32_t pid, uint64_t frame)
{
	uint8_t p[32];

	memset(p, 0, sizeof(p));
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x0505, 9, pid, o->start_ts + at, p, 8), 0); /* Thread/Opcode(5) */
	etlw_put64(p, o->start_ts + at), etlw_put32(p + 8, pid), etlw_put32(p + 12, 9), etlw_put64(p + 16, frame);
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x1820, 9, pid, o->start_ts + at, p, 24), 0);
}

/* A frame resolves against the images loaded when its event happened, by the trace's whole record:
 * an image loaded after the event does not hold it, one unloaded before does not either, one only a
 * rundown at the end names does (it was loaded before the trace) - during the iteration and after
 * it alike. */
START_TEST(frames_resolve_against_the_images_of_their_time)
{
	static const struct { uint64_t frame; const char *image; } want[] = {
		{ 0x10001234, NULL },            /* t=10: a.dll loads at t=20 */
		{ 0x20000010, "c.dll" },         /* t=10: c.dll, named by the rundown at the end */
		{ 0x10001234, "a.dll" },         /* t=30: a.dll */
		{ 0x10001234, NULL },            /* t=50: a.dll unloaded at t=40 */
		{ 0x10001234, "b.dll" },         /* t=70: b.dll loaded at the same base at t=60 */
		{ 0xfffff80000101000ull, "k.sys" }, /* t=70: a driver (process 0's images) */
	};
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d;
	size_t len, n = 0, i;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	struct etl_event *copies[6];

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	stacked(w, &o, 10, 300, want[0].frame);
	stacked(w, &o, 10, 300, want[1].frame);
	image_rec(w, &o, 0x140A, 20, 300, 0x10000000, "\\Device\\HarddiskVolume1\\a.dll");
	stacked(w, &o, 30, 300, want[2].frame);
	image_rec(w, &o, 0x1402, 40, 300, 0x10000000, "\\Device\\HarddiskVolume1\\a.dll");
	stacked(w, &o, 50, 300, want[3].frame);
	image_rec(w, &o, 0x140A, 60, 300, 0x10000000, "\\Device\\HarddiskVolume1\\b.dll");
	stacked(w, &o, 70, 300, want[4].frame);
	stacked(w, &o, 70, 300, want[5].frame);
	image_rec(w, &o, 0x1404, 90, 300, 0x20000000, "\\Device\\HarddiskVolume1\\c.dll");
	image_rec(w, &o, 0x1404, 90, 0, 0xfffff80000100000ull, "\\SystemRoot\\k.sys");
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "frames"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const char *img;
		uint64_t off = 0;
		if (etl_event_hook_id(ev) != 0x0505)
			continue;
		ck_assert_uint_lt(n, 6);
		ck_assert_uint_eq(etl_event_stack_depth(ev), 1);
		ck_assert_uint_eq(etl_event_stack_frame(ev, 0), want[n].frame);
		img = etl_reader_frame_image(r, ev, want[n].frame, &off);
		if (!want[n].image)
			ck_assert_msg(!img, "frame %zu: %s", n, img);
		else
			ck_assert_msg(img && strstr(img, want[n].image), "frame %zu: %s", n, img ? img : "none");
		ck_assert_int_eq(etl_event_copy(ev, &copies[n]), ETL_OK);
		n++;
	}
	ck_assert_uint_eq(n, 6);
	for (i = 0; i < n; i++) { /* after the iteration: the same answers */
		const char *img = etl_reader_frame_image(r, copies[i], want[i].frame, NULL);
		ck_assert_int_eq(img != NULL, want[i].image != NULL);
		etl_event_free(copies[i]);
	}
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- kernel records with layouts from the documentation (FORMAT-NOTES section 11) ---- */

struct krec {
	uint16_t hook;
	uint8_t version;
	uint8_t b[3072];
	size_t n;
	const char *name, *field, *value; /* value NULL: the record stays raw */
};

#define KRECS 12

static void k32(struct krec *k, uint32_t v) { etlw_put32(k->b + k->n, v); k->n += 4; }
static void kw(struct krec *k, const char *s) { k->n += put_wstr(k->b + k->n, s); }
static void kzero(struct krec *k, size_t n) { memset(k->b + k->n, 0, n); k->n += n; }

static void fixed_wstr(struct krec *k, const char *s, size_t units)
{
	size_t n = put_wstr(k->b + k->n, s);
	memset(k->b + k->n + n, 0, 2 * units - n);
	k->n += 2 * units;
}

static void build_krecs(struct krec *k, size_t *nk, unsigned ptr)
{
	size_t i = 0;

	memset(k, 0, KRECS * sizeof(*k));
	/* TcpIp TCPCopy (18), the Recv layout: PID, size, daddr, saddr, dport, sport, seqnum, connid */
	k[i] = (struct krec){ .hook = 0x0612, .version = 2, .name = "Windows Kernel/TcpIp/TCPCopy", .field = "size", .value = "1460" };
	k32(&k[i], 4), k32(&k[i], 1460), k32(&k[i], 0x0100000a), k32(&k[i], 0x0200000a), k32(&k[i], 0x39305000), k32(&k[i], 7);
	kzero(&k[i], ptr), i++;
	/* TcpIp TCPCopyIPV6 (34) */
	k[i] = (struct krec){ .hook = 0x0622, .version = 2, .name = "Windows Kernel/TcpIp/TCPCopyIPV6", .field = "dport", .value = "80" };
	k32(&k[i], 4), k32(&k[i], 100), kzero(&k[i], 32), k32(&k[i], 0x39305000), k32(&k[i], 9), kzero(&k[i], ptr), i++;
	/* SystemConfig CPU v2, DomainName of 134 units, and of 132 */
	for (int units = 134; units >= 132; units -= 2) {
		k[i] = (struct krec){ .hook = 0x0B0A, .version = 2, .name = "Windows Kernel/SystemConfig/CPU", .field = "DomainName", .value = "CONTOSO" };
		k32(&k[i], 2400), k32(&k[i], 4), k32(&k[i], 8192), k32(&k[i], 4096), k32(&k[i], 65536);
		fixed_wstr(&k[i], "HOST", 256), fixed_wstr(&k[i], "CONTOSO", (size_t)units), kzero(&k[i], ptr), i++;
	}
	/* ... and 130: neither fits */
	k[i] = (struct krec){ .hook = 0x0B0A, .version = 2, .name = "Windows Kernel/SystemConfig/CPU", .field = NULL, .value = NULL };
	k32(&k[i], 2400), k32(&k[i], 4), k32(&k[i], 8192), k32(&k[i], 4096), k32(&k[i], 65536);
	fixed_wstr(&k[i], "HOST", 256), fixed_wstr(&k[i], "CONTOSO", 130), kzero(&k[i], ptr), i++;
	/* SystemConfig PnP v3: the documentation's three strings, and real records' fourth */
	k[i] = (struct krec){ .hook = 0x0B16, .version = 3, .name = "Windows Kernel/SystemConfig/PnP", .field = "FriendlyName", .value = "Disk" };
	k32(&k[i], 8), k32(&k[i], 10), k32(&k[i], 5), kw(&k[i], "PCI\\DEV"), kw(&k[i], "Disk drive"), kw(&k[i], "Disk"), i++;
	k[i] = (struct krec){ .hook = 0x0B16, .version = 3, .name = "Windows Kernel/SystemConfig/PnP", .field = "PdoName", .value = "\\Device\\00000017" };
	k32(&k[i], 8), k32(&k[i], 10), k32(&k[i], 5), kw(&k[i], "PCI\\DEV"), kw(&k[i], "Disk drive"), kw(&k[i], "Disk");
	kw(&k[i], "\\Device\\00000017"), i++;
	/* SystemConfig IRQ v3: IRQAffinity, IRQGroup and Reserved (16 bits each), IRQNum, the description */
	k[i] = (struct krec){ .hook = 0x0B15, .version = 3, .name = "Windows Kernel/SystemConfig/IRQ", .field = "IRQGroup", .value = "1" };
	k32(&k[i], 0), k32(&k[i], 0), k32(&k[i], 1), k32(&k[i], 0xFFFFFFFE), k32(&k[i], 5), kw(&k[i], "HPET"), i++;
	/* SystemConfig Video v2: the documentation's DeviceID */
	k[i] = (struct krec){ .hook = 0x0B0E, .version = 2, .name = "Windows Kernel/SystemConfig/Video", .field = "DeviceID", .value = "VEN_1234" };
	k32(&k[i], 256), k32(&k[i], 1920), k32(&k[i], 1080), k32(&k[i], 32), k32(&k[i], 60);
	fixed_wstr(&k[i], "Chip", 256), fixed_wstr(&k[i], "DAC", 256), fixed_wstr(&k[i], "Adapter", 256);
	fixed_wstr(&k[i], "BIOS", 256), fixed_wstr(&k[i], "VEN_1234", 256), k32(&k[i], 1), i++;
	/* PerfInfo CollectionStart v2 without and with the source's name */
	k[i] = (struct krec){ .hook = 0x0F49, .version = 2, .name = "Windows Kernel/PerfInfo/CollectionStart", .field = "NewInterval", .value = "10000" };
	k32(&k[i], 0), k32(&k[i], 10000), k32(&k[i], 10000), i++;
	k[i] = (struct krec){ .hook = 0x0F4A, .version = 2, .name = "Windows Kernel/PerfInfo/CollectionEnd", .field = "SourceName", .value = "Timer" };
	k32(&k[i], 0), k32(&k[i], 10000), k32(&k[i], 10000), kw(&k[i], "Timer"), i++;
	/* Image HypercallPage: 8 bytes whatever the pointer size */
	k[i] = (struct krec){ .hook = 0x1422, .version = 2, .name = "Windows Kernel/Image/HypercallPage", .field = "HypercallPageVa", .value = "0xffffffffffd03000" };
	etlw_put64(k[i].b, 0xffffffffffd03000ull), k[i].n = 8, i++;
	ck_assert_uint_le(i, KRECS);
	*nk = i;
}

START_TEST(documented_kernel_layouts_decode)
{
	unsigned ptr = _i ? 8 : 4;
	struct krec k[KRECS];
	size_t nk, len, i = 0;
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;

	build_krecs(k, &nk, ptr);
	etlw_default_opts(&o);
	o.ptr_size = ptr;
	o.ncpu = 1;
	w = etlw_new(&o);
	for (i = 0; i < nk; i++)
		ck_assert_int_eq(etlw_system(w, 0, 0, k[i].version, k[i].hook, 8, 4, o.start_ts + 100 * (i + 1), k[i].b, k[i].n), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "kernel"), ETL_OK);
	i = 0;
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		if (etl_event_hook_id(ev) == 0 || etl_event_hook_id(ev) >> 8 == 0)
			continue; /* the logfile header and its companions */
		ck_assert_uint_lt(i, nk);
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		ck_assert_str_eq(etl_decoded_name(dec), k[i].name);
		if (k[i].value) {
			ck_assert_msg(etl_decoded_status(dec) == ETL_DECODE_COMPLETE, "%s: %s", k[i].name,
				      etl_decoded_reason(dec) ? etl_decoded_reason(dec) : "?");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, k[i].field)), k[i].value);
		} else {
			ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_RAW);
			ck_assert_ptr_nonnull(strstr(etl_decoded_reason(dec), "does not fit"));
		}
		i++;
	}
	ck_assert_uint_eq(i, nk);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Flags and enums of kernel fields get their names from the headers (kmaps.c); a bit map is text
 * whatever its value, a value map's unknown number stays a number. */
START_TEST(kernel_flag_names)
{
	static const struct { uint32_t flags; const char *text; } irp[] = {
		{ 0x60043, "Nocache, PagingIo, SynchronousPagingIo, IoPriority=Normal" },
		{ 0x0, "0x0" },
		{ 0x4000000, "0x4000000" },
		{ 0xE0001, "Nocache, 0xe0000" }, /* a priority with no name stays in the bits */
		{ 0x20000, "IoPriority=VeryLow" },
	};
	size_t n = sizeof(irp) / sizeof(irp[0]), len, i;
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d, p[64];
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	const char *waits[] = { "WrQueue", "45" };

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	for (i = 0; i < n; i++) { /* DiskIo Read v2: DiskNumber, IrpFlags, TransferSize, Reserved, ByteOffset, FileObject, Irp, time */
		memset(p, 0, sizeof(p));
		etlw_put32(p + 4, irp[i].flags);
		ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x010A, 8, 4, o.start_ts + 10 * (i + 1), p, 24 + 3 * 8), 0);
	}
	for (i = 0; i < 2; i++) { /* CSwitch v2: ..., OldThreadWaitReason at 12, mode 13, state 14 */
		memset(p, 0, sizeof(p));
		p[12] = i ? 45 : 15, p[13] = 1, p[14] = 5;
		ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x0524, 8, 4, o.start_ts + 100 + i, p, 24), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "flags"), ETL_OK);
	i = 0;
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		if (etl_event_hook_id(ev) >> 8 == 0)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_COMPLETE);
		if (i < n) {
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "IrpFlags")), irp[i].text);
			ck_assert_str_eq(etl_property_map_name(etl_decoded_property_by_name(dec, "IrpFlags")), "IrpFlags");
		} else {
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "OldThreadWaitReason")), waits[i - n]);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "OldThreadWaitMode")), "UserMode");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "OldThreadState")), "Waiting");
		}
		i++;
	}
	ck_assert_uint_eq(i, n + 2);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* --derive: a DiskIO read's file name through its key (a FileIo Name record logged after it, as
 * rundowns are) and the volume mapping, its elapsed time, an image's build time and DOS path;
 * none without the option. */
START_TEST(derived_fields)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_classic c;
	uint8_t *d, p[256];
	size_t len, n;
	struct etl_reader *r;
	const struct etl_event *ev;
	int seen = 0, pass;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&c, 0, sizeof(c));
	/* KernelTraceControl SysConfig/VolumeMapping: NtPath, DosPath */
	ck_assert_int_eq(etl_guid_parse("9b79ee91-b5fd-41c0-a243-4248e266e9d0", &c.guid), 0);
	c.type = 35;
	c.ts = o.start_ts + 1;
	n = put_wstr(p, "\\Device\\HarddiskVolume2\\");
	n += put_wstr(p + n, "C:\\");
	ck_assert_int_eq(etlw_classic(w, 0, &c, p, n), 0);
	n = put_wstr(p, "\\SystemRoot\\");
	n += put_wstr(p + n, "D:\\Windows\\");
	ck_assert_int_eq(etlw_classic(w, 0, &c, p, n), 0);
	/* KernelTraceControl ImageID: ImageBase, ImageSize, ProcessID, TimeDateStamp, OriginalFileName */
	ck_assert_int_eq(etl_guid_parse("b3e675d7-2554-4f18-830b-2762732560de", &c.guid), 0);
	c.type = 0;
	memset(p, 0, sizeof(p));
	etlw_put64(p, 0x140000000ull), etlw_put64(p + 8, 0x20000), etlw_put32(p + 16, 4), etlw_put32(p + 20, 1343270522);
	n = 24 + put_wstr(p + 24, "x.dll");
	ck_assert_int_eq(etlw_classic(w, 0, &c, p, n), 0);
	/* DiskIo Read v2: DiskNumber, IrpFlags, TransferSize, Reserved, ByteOffset, FileObject, Irp, HighResResponseTime */
	memset(p, 0, sizeof(p));
	etlw_put64(p + 24, 0xfffff8a0016b9140ull);
	etlw_put64(p + 40, o.perf_freq / 100); /* 10 ms */
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x010A, 8, 4, o.start_ts + 10, p, 48), 0);
	/* Image Load v3 with a TimeDateStamp (2012-07-26T02:42:02Z) and an NT path */
	memset(p, 0, sizeof(p));
	etlw_put64(p, 0x140000000ull), etlw_put64(p + 8, 0x20000), etlw_put32(p + 16, 4), etlw_put32(p + 24, 1343270522);
	n = 56 + put_wstr(p + 56, "\\Device\\HarddiskVolume2\\Windows\\x.dll");
	ck_assert_int_eq(etlw_system(w, 0, 0, 3, 0x030A, 8, 4, o.start_ts + 20, p, n), 0);
	/* Image Unload v3 without a TimeDateStamp, its path with no device (as on the boot volume) */
	memset(p, 0, sizeof(p));
	etlw_put64(p, 0x150000000ull), etlw_put64(p + 8, 0x20000), etlw_put32(p + 16, 4);
	n = 56 + put_wstr(p + 56, "\\Windows\\System32\\y.dll");
	ck_assert_int_eq(etlw_system(w, 0, 0, 3, 0x1402, 8, 4, o.start_ts + 25, p, n), 0);
	/* FileIo Name (perfinfo, at the end): FileObject, FileName */
	etlw_put64(p, 0xfffff8a0016b9140ull);
	n = 8 + put_wstr(p + 8, "\\Device\\HarddiskVolume2\\data\\log.txt");
	ck_assert_int_eq(etlw_perfinfo(w, 0, 2, 0x0400, o.start_ts + 30, NULL, 0, NULL, p, n), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	for (pass = 0; pass < 2; pass++) {
		r = etl_reader_new();
		if (pass)
			ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_DERIVE, 1), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, d, len, "derive"), ETL_OK);
		while (etl_reader_next(r, &ev) == ETL_OK) {
			const struct etl_decoded *dec;
			const char *name;
			ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
			name = etl_decoded_name(dec);
			if (!pass) {
				ck_assert_uint_eq(etl_decoded_derived_count(dec), 0);
				continue;
			}
			if (strcmp(name, "Windows Kernel/DiskIO/Read") == 0) {
				ck_assert_uint_eq(etl_decoded_derived_count(dec), 2);
				ck_assert_str_eq(etl_property_name(etl_decoded_derived_at(dec, 0)), "ElapsedTimeMSec");
				ck_assert_str_eq(etl_property_format(etl_decoded_derived_at(dec, 0)), "10");
				ck_assert_str_eq(etl_property_format(etl_decoded_derived_at(dec, 1)), "C:\\data\\log.txt");
				seen++;
			} else if (strcmp(name, "Windows Kernel/Image/Load") == 0) {
				ck_assert_uint_eq(etl_decoded_derived_count(dec), 2);
				ck_assert_str_eq(etl_property_name(etl_decoded_derived_at(dec, 0)), "BuildTime");
				ck_assert_str_eq(etl_property_format(etl_decoded_derived_at(dec, 0)), "2012-07-26T02:42:02.0000000Z");
				ck_assert_str_eq(etl_property_format(etl_decoded_derived_at(dec, 1)), "C:\\Windows\\x.dll");
				ck_assert_ptr_null(etl_decoded_derived_at(dec, 2));
				seen++;
			} else if (strcmp(name, "Windows Kernel/Image/Unload") == 0) {
				/* no build time: none (a null), not 1970; the path on \SystemRoot's drive */
				ck_assert_uint_eq(etl_decoded_derived_count(dec), 2);
				ck_assert_str_eq(etl_property_name(etl_decoded_derived_at(dec, 0)), "BuildTime");
				ck_assert_int_eq(etl_property_value_kind(etl_decoded_derived_at(dec, 0)), ETL_VALUE_NONE);
				ck_assert_str_eq(etl_property_format(etl_decoded_derived_at(dec, 0)), "none");
				ck_assert_str_eq(etl_property_format(etl_decoded_derived_at(dec, 1)), "D:\\Windows\\System32\\y.dll");
				seen++;
			} else if (strcmp(name, "KernelTraceControl/ImageID") == 0) {
				ck_assert_uint_eq(etl_decoded_derived_count(dec), 1);
				ck_assert_str_eq(etl_property_name(etl_decoded_derived_at(dec, 0)), "BuildTime");
				ck_assert_str_eq(etl_property_format(etl_decoded_derived_at(dec, 0)), "2012-07-26T02:42:02.0000000Z");
				seen++;
			}
		}
		etl_reader_free(r);
	}
	ck_assert_int_eq(seen, 4);
	free(d);
}
END_TEST

/* Many volume mappings: the longest NT prefix wins whatever its case, through the index (5,000
 * mappings, each path looked up once); mappings past ETL_FILES_MAX_VOLUMES (4096) are not kept. */
START_TEST(many_volume_mappings)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_classic c;
	uint8_t *d, p[512];
	size_t len, n;
	char nt[64], dos[32];
	struct etl_reader *r;
	const struct etl_event *ev;
	static const char *const paths[] = { "\\device\\harddiskvolume7\\deep\\a.dll", "\\Device\\HarddiskVolume7\\b.dll",
					     "\\Device\\HarddiskVolume4999\\c.dll" };
	static const char *const want[] = { "Q:\\a.dll", "V7:\\b.dll", NULL };
	int i, seen = 0;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(etl_guid_parse("9b79ee91-b5fd-41c0-a243-4248e266e9d0", &c.guid), 0);
	c.type = 35;
	c.ts = o.start_ts + 1;
	n = put_wstr(p, "\\Device\\HarddiskVolume7\\deep\\");
	n += put_wstr(p + n, "Q:\\");
	ck_assert_int_eq(etlw_classic(w, 0, &c, p, n), 0);
	for (i = 0; i < 5000; i++) {
		snprintf(nt, sizeof(nt), "\\Device\\HarddiskVolume%d\\", i);
		snprintf(dos, sizeof(dos), "V%d:\\", i);
		n = put_wstr(p, nt);
		n += put_wstr(p + n, dos);
		ck_assert_int_eq(etlw_classic(w, 0, &c, p, n), 0);
	}
	for (i = 0; i < 3; i++) { /* Image Load v3 with an NT path */
		memset(p, 0, sizeof(p));
		etlw_put64(p, 0x140000000ull + 0x100000ull * (uint64_t)i), etlw_put64(p + 8, 0x20000);
		etlw_put32(p + 16, 4);
		n = 56 + put_wstr(p + 56, paths[i]);
		ck_assert_int_eq(etlw_system(w, 0, 0, 3, 0x030A, 8, 4, o.start_ts + 20 + (uint64_t)i, p, n), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_DERIVE, 1), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "volumes"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		const struct etl_property *path = NULL;
		size_t k;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		if (strcmp(etl_decoded_name(dec), "Windows Kernel/Image/Load") != 0)
			continue;
		for (k = 0; k < etl_decoded_derived_count(dec); k++)
			if (strcmp(etl_property_name(etl_decoded_derived_at(dec, k)), "BuildTime") != 0)
				path = etl_decoded_derived_at(dec, k);
		if (want[seen])
			ck_assert_msg(path && strcmp(etl_property_format(path), want[seen]) == 0, "%s -> %s", paths[seen],
				      path ? etl_property_format(path) : "(none)");
		else
			ck_assert_msg(!path, "%s -> %s: a mapping past the limit was used", paths[seen],
				      etl_property_format(path));
		seen++;
	}
	ck_assert_int_eq(seen, 3);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- every trace of the corpus ---- */

static char **corpus_files(size_t *n)
{
	char path[4096], **v = NULL;
	struct dirent *e;
	DIR *dir;

	*n = 0;
	snprintf(path, sizeof(path), "%s/etl", corpus_dir);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[*n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		sprintf(v[*n], "%s/%s", path, e->d_name);
		(*n)++;
	}
	closedir(dir);
	return v;
}

static char **files;
static size_t nfiles;

START_TEST(corpus_decodings_are_consistent)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned long events = 0, images = 0, rejected = 0, partial = 0, manifests = 0, clr_stacks = 0;
	const char *base = strrchr(files[_i], '/') + 1;
	int st, dst;

	ck_assert_int_eq(etl_reader_open_path(r, files[_i]), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		const struct etl_decoded *dec;
		size_t i, j, n;
		if (st < 0)
			continue;
		events++;
		if ((dst = etl_reader_decode(r, ev, &dec)) < 0 && !dec)
			continue;
		/* a status that agrees with the rest of the view */
		switch (etl_decoded_status(dec)) {
		case ETL_DECODE_COMPLETE:
			ck_assert_ptr_null(etl_decoded_error(dec));
			break;
		case ETL_DECODE_PARTIAL:
			ck_assert_ptr_nonnull(etl_decoded_error(dec));
			partial++;
			break;
		case ETL_DECODE_RAW:
			ck_assert_int_eq(etl_decoded_source(dec), ETL_DECODER_NONE);
			break;
		}
		/* top-level names are unique (JSON objects would collapse them) */
		n = etl_decoded_property_count(dec);
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				ck_assert_msg(strcmp(etl_property_name(etl_decoded_property_at(dec, i)),
						     etl_property_name(etl_decoded_property_at(dec, j))) != 0,
					      "%s: %s has '%s' twice", files[_i], etl_decoded_name(dec),
					      etl_property_name(etl_decoded_property_at(dec, i)));
		if (etl_event_id(ev) == 0xFFFE && etl_event_header_kind(ev) == ETL_HEADER_EVENT) {
			/* EventSource manifest chunks, named and read as PerfView does */
			const char *nm = etl_decoded_name(dec);
			ck_assert_str_eq(nm + strlen(nm) - 13, "/ManifestData");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "Magic")), "91");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "Format")), "1");
			manifests++;
		}
		if (strstr(etl_decoded_name(dec), "/ClrStack/Walk") || strstr(etl_decoded_name(dec), "/CLRStack/CLRStackWalk")) {
			/* FrameCount frames, whatever the CLR manifest's count="2" says */
			const struct etl_property *fc = etl_decoded_property_by_name(dec, "FrameCount");
			uint64_t frames = 0;
			ck_assert_int_eq(etl_property_as_u64(fc, &frames), ETL_OK);
			ck_assert_uint_eq(etl_property_child_count(etl_decoded_property_by_name(dec, "Stack")), frames);
			ck_assert_uint_eq(etl_decoded_trailing_bytes(dec), 0);
			clr_stacks++;
		}
		if (strncmp(etl_decoded_name(dec), "Windows Kernel/Image/", 21) == 0) {
			/* every image record decodes; one that no layout proves could only be a sawbuck
			 * 32-bit writer's, and it is reported (none is, in the corpus) */
			images++;
			if (etl_decoded_status(dec) == ETL_DECODE_RAW) {
				rejected++;
				ck_assert_int_lt(dst, 0);
				ck_assert_msg(strncmp(base, "sawbuck_", 8) == 0, "%s: %s at 0x%llx raw: %s", files[_i],
					      etl_decoded_name(dec), (unsigned long long)etl_event_file_offset(ev),
					      etl_decoded_reason(dec));
			}
		}
	}
	ck_assert_uint_gt(events, 0);
	ck_assert_uint_eq(partial, 0); /* no corpus trace contradicts its schemas */
	ck_assert_uint_eq(rejected, 0);
	if (strcmp(base, "perfview_net.4.5.2.x86.etl") == 0)
		ck_assert_uint_eq(images, 3735); /* rundowns in PerfInfo and SYSTEM records, loads, unloads */
	if (strcmp(base, "perfview_net.4.5.2.x86.etl") == 0)
		ck_assert_uint_eq(clr_stacks, 5206);
	if (strcmp(base, "perfview_net.4.5.2.x86.etl") == 0)
		ck_assert_uint_eq(manifests, 4); /* PerfView's baseline: 2 PerfView, Tpl, Framework */
	etl_reader_free(r);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("fidelity");
	TCase *t = tcase_create("fidelity"), *c = tcase_create("corpus");
	char probe[4096];
	int rc;

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_test(t, image_layouts_must_agree_with_their_values);
	tcase_add_test(t, image_v2_naturally_aligned_decodes);
	tcase_add_test(t, kernel_image_records_decode_whatever_their_pid);
	tcase_add_test(t, frames_resolve_against_the_images_of_their_time);
	tcase_add_loop_test(t, documented_kernel_layouts_decode, 0, 2);
	tcase_add_test(t, kernel_flag_names);
	tcase_add_test(t, derived_fields);
	tcase_add_test(t, many_volume_mappings);
	files = corpus_files(&nfiles);
	tcase_add_loop_test(c, corpus_decodings_are_consistent, 0, (int)nfiles);
	tcase_set_timeout(t, 600);
	tcase_set_timeout(c, 600);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/etl", corpus_dir);
	rc = run_part(s, c, probe);
	while (nfiles)
		free(files[--nfiles]);
	free(files);
	return rc;
}
