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
	V1_U32_OTHER,   /* {u32 base; u32 size; u32 pid; name}, pid not the logger's */
	V1_U32_ODD_PID, /* the kernel's 4-byte v1, with a pid Windows cannot give */
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

START_TEST(image_layouts_must_agree_with_their_values)
{
	static const char *const why[SHAPES] = {
		NULL, "ImageSize is above 4 GiB", "ImageSize is above 4 GiB",
		"ProcessID 4200 contradicts the header's pid 4192", "ProcessID is not a multiple of 4",
	};
	size_t len;
	uint8_t *d = image_trace(&len);
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int n = 0;

	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "images"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		if (etl_event_header_kind(ev) != ETL_HEADER_FULL)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/Image/Load");
		if (!why[n]) {
			ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_COMPLETE);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "ImageSize")), "0x19e000");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "ProcessID")), "4192");
		} else {
			ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_RAW);
			ck_assert_msg(strstr(etl_decoded_reason(dec), why[n]) != NULL, "shape %d: '%s'", n,
				      etl_decoded_reason(dec));
		}
		n++;
	}
	ck_assert_int_eq(n, SHAPES);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- kernel records with layouts from the documentation (FORMAT-NOTES section 11) ---- */

struct krec {
	uint16_t hook;
	uint8_t version;
	uint8_t b[1200];
	size_t n;
	const char *name, *field, *value; /* value NULL: the record stays raw */
};

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

	memset(k, 0, 9 * sizeof(*k));
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
	/* SystemConfig PnP v3 */
	k[i] = (struct krec){ .hook = 0x0B16, .version = 3, .name = "Windows Kernel/SystemConfig/PnP", .field = "FriendlyName", .value = "Disk" };
	k32(&k[i], 8), k32(&k[i], 10), k32(&k[i], 5), kw(&k[i], "PCI\\DEV"), kw(&k[i], "Disk drive"), kw(&k[i], "Disk"), i++;
	/* PerfInfo CollectionStart v2 without and with the source's name */
	k[i] = (struct krec){ .hook = 0x0F49, .version = 2, .name = "Windows Kernel/PerfInfo/CollectionStart", .field = "NewInterval", .value = "10000" };
	k32(&k[i], 0), k32(&k[i], 10000), k32(&k[i], 10000), i++;
	k[i] = (struct krec){ .hook = 0x0F4A, .version = 2, .name = "Windows Kernel/PerfInfo/CollectionEnd", .field = "SourceName", .value = "Timer" };
	k32(&k[i], 0), k32(&k[i], 10000), k32(&k[i], 10000), kw(&k[i], "Timer"), i++;
	/* Image HypercallPage: 8 bytes whatever the pointer size */
	k[i] = (struct krec){ .hook = 0x1422, .version = 2, .name = "Windows Kernel/Image/HypercallPage", .field = "HypercallPageVa", .value = "0xffffffffffd03000" };
	etlw_put64(k[i].b, 0xffffffffffd03000ull), k[i].n = 8, i++;
	*nk = i;
}

START_TEST(documented_kernel_layouts_decode)
{
	unsigned ptr = _i ? 8 : 4;
	struct krec k[9];
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
			}
		}
		etl_reader_free(r);
	}
	ck_assert_int_eq(seen, 2);
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

/* The ProcessID of an image event agrees with its header: equal, or the header has none
 * (PerfInfo records), or a rundown of a system-space image (ProcessID 0, DCStart/DCStop). */
static int image_pid_agrees(const struct etl_event *ev, const struct etl_decoded *dec)
{
	const struct etl_property *p = etl_decoded_property_by_name(dec, "ProcessID");
	uint64_t pid;

	if (!p || !etl_decoded_property_by_name(dec, "ImageSize") || etl_property_as_u64(p, &pid) != ETL_OK)
		return 1;
	return etl_event_pid(ev) == ETL_ID_NONE || pid == etl_event_pid(ev) ||
	       (pid == 0 && (etl_event_opcode(ev) == 3 || etl_event_opcode(ev) == 4));
}

START_TEST(corpus_decodings_are_consistent)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned long events = 0, images = 0, partial = 0, manifests = 0;
	const char *base = strrchr(files[_i], '/') + 1;
	int st;

	ck_assert_int_eq(etl_reader_open_path(r, files[_i]), ETL_OK);
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		const struct etl_decoded *dec;
		size_t i, j, n;
		if (st < 0)
			continue;
		events++;
		if (etl_reader_decode(r, ev, &dec) < 0 && !dec)
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
		if (strncmp(etl_decoded_name(dec), "Windows Kernel/Image/", 21) == 0 &&
		    etl_decoded_status(dec) != ETL_DECODE_RAW) {
			images++;
			ck_assert_msg(image_pid_agrees(ev, dec), "%s: %s at 0x%llx: ProcessID %s, header pid %u",
				      files[_i], etl_decoded_name(dec), (unsigned long long)etl_event_file_offset(ev),
				      etl_property_format(etl_decoded_property_by_name(dec, "ProcessID")),
				      etl_event_pid(ev));
		}
	}
	ck_assert_uint_gt(events, 0);
	ck_assert_uint_eq(partial, 0); /* no corpus trace contradicts its schemas */
	if (strcmp(base, "perfview_net.4.5.2.x86.etl") == 0)
		ck_assert_uint_eq(manifests, 4); /* PerfView's baseline: 2 PerfView, Tpl, Framework */
	etl_reader_free(r);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("fidelity");
	TCase *t = tcase_create("fidelity");
	SRunner *sr;
	int failed;

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_test(t, image_layouts_must_agree_with_their_values);
	tcase_add_loop_test(t, documented_kernel_layouts_decode, 0, 2);
	tcase_add_test(t, kernel_flag_names);
	tcase_add_test(t, derived_fields);
	files = corpus_files(&nfiles);
	if (files)
		tcase_add_loop_test(t, corpus_decodings_are_consistent, 0, (int)nfiles);
	else
		printf("corpus not found at %s: synthetic records only\n", corpus_dir);
	tcase_set_timeout(t, 600);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	while (nfiles)
		free(files[--nfiles]);
	free(files);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
