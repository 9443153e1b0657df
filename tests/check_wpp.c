/*
 * check_wpp.c - WPP messages decoded with TMF files: every corpus TMF file
 * parses; writer-made WPP records with the corpus truth's GUIDs, numbers and
 * values format as the truth says; every item type at both pointer sizes;
 * damage (arguments that do not fit, bad TMF lines, unknown item types).
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "scenario.h"
#include "tmf/tmf.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";
static char tmf_dir[4096];

/* ---- helpers ---- */

struct bytes {
	uint8_t b[512];
	size_t n;
};

static void put_bytes(struct bytes *x, const void *p, size_t n)
{
	ck_assert_uint_le(x->n + n, sizeof(x->b));
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void put_le(struct bytes *x, uint64_t v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		x->b[x->n++] = (uint8_t)(v >> (8 * i));
}

struct wpp_rec {
	const char *guid;
	uint16_t number;
	unsigned ptr_size;
	struct bytes args;
};

/* A trace of WPP records (one CPU). */
static uint8_t *wpp_trace(const struct wpp_rec *recs, size_t n, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *out;
	size_t i;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	ck_assert_ptr_nonnull(w);
	for (i = 0; i < n; i++) {
		struct etlw_message m;
		memset(&m, 0, sizeof(m));
		m.number = recs[i].number;
		m.options = (uint16_t)(0x0002 | 0x0008 | 0x0020 | (recs[i].ptr_size == 4 ? 0x0040 : 0x0080));
		ck_assert_int_eq(etl_guid_parse(recs[i].guid, &m.guid), ETL_OK);
		m.ts = o.start_ts + 10 + i;
		m.tid = 8;
		m.pid = 4;
		ck_assert_int_eq(etlw_message(w, 0, &m, recs[i].args.b, recs[i].args.n), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &out, len), 0);
	etlw_free(w);
	return out;
}

/* Decodes the WPP records of a trace; calls check(k, decoded) for the k-th. */
static int each_message(struct etl_reader *r, const uint8_t *t, size_t len,
			void (*check)(size_t k, struct etl_reader *r, const struct etl_decoded *d))
{
	const struct etl_event *ev;
	const struct etl_decoded *d;
	size_t k = 0;

	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "wpp"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_header_kind(ev) != ETL_HEADER_MESSAGE)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		check(k++, r, d);
	}
	return (int)k;
}

static const char *prop_text(const struct etl_decoded *d, const char *name)
{
	size_t i;
	for (i = 0; i < etl_decoded_property_count(d); i++) {
		const struct etl_property *p = etl_decoded_property_at(d, i);
		if (strcmp(etl_property_name(p), name) == 0)
			return etl_property_format(p);
	}
	return NULL;
}

static char tmpdir_path[4096];

/* Writes text to a new file in a temporary folder; returns its path. */
static const char *temp_file(const char *name, const char *text)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir_path, name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* ---- the corpus TMF files ---- */

START_TEST(corpus_tmf_files_all_parse)
{
	struct tmf_db *db = etl__tmf_new();
	DIR *dir = opendir(tmf_dir);
	struct dirent *de;
	unsigned files = 0;

	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)) != NULL) {
		char path[4600];
		size_t n = strlen(de->d_name);
		struct etl_diag d;
		if (n < 5 || strcmp(de->d_name + n - 4, ".tmf") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmf_dir, de->d_name);
		d.code = ETL_OK;
		ck_assert_int_eq(etl__tmf_add_path(db, path, &d), ETL_OK);
		if (etl__tmf_warnings(db))
			ck_abort_msg("%s: %s", path, d.msg);
		files++;
	}
	closedir(dir);
	ck_assert_uint_eq(files, 90);
	ck_assert_uint_eq(etl__tmf_warnings(db), 0);
	/* README: 3,865 #typev messages; some files define a message twice */
	ck_assert_uint_eq(etl__tmf_parsed(db), 3865);
	ck_assert_uint_ge(etl__tmf_count(db), 1000);
	etl__tmf_free(db);
}
END_TEST

/* The corpus truth (the truth folder's .verified.txt files): messages of DsHidMini and BthPS3PSM
 * made again by the writer, with the same GUIDs, numbers and argument values. */
static const struct {
	const char *guid;
	uint16_t number;
	uint64_t arg; /* 0: none */
	unsigned arg_size;
	const char *name, *level, *message;
} truth[] = {
	{ "a3ec8c86-3da7-3295-4d7c-86a11d2f697c", 10, 0, 0, "sys/DriverEntry", "TRACE_LEVEL_INFORMATION",
	  "[DriverEntry]DriverEntry Entry" },
	{ "6827c296-b781-3084-bab0-678dd31e93ab", 10, 0, 0, "sys/InitIPC", "TRACE_LEVEL_VERBOSE",
	  "[InitIPC] --> Entry" },
	{ "6827c296-b781-3084-bab0-678dd31e93ab", 12, 0xC000000Fu, 4, "sys/InitIPC", "TRACE_LEVEL_ERROR",
	  "[InitIPC] ERROR:WdfRegistryQueryULong failed with status STATUS_NO_SUCH_FILE (0xC000000F)" },
	{ "324ed36d-6949-3aa1-d581-3e2dc9652ec2", 13, 0xFFFF95820BE02120ull, 8,
	  "BthPS3PSM/BthPS3PSMEvtIoInternalDeviceControl", "TRACE_LEVEL_VERBOSE",
	  "[BthPS3PSMEvtIoInternalDeviceControl]>> Bulk IN transfer (PipeHandle: 0xFFFF95820BE02120)" },
};

static void check_truth(size_t k, struct etl_reader *r, const struct etl_decoded *d)
{
	(void)r;
	ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_TMF);
	ck_assert_str_eq(etl_decoded_name(d), truth[k].name);
	ck_assert_str_eq(etl_decoded_level_name(d), truth[k].level);
	ck_assert_str_eq(etl_decoded_message(d), truth[k].message);
	ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
}

START_TEST(corpus_truth_messages_format_identically)
{
	struct wpp_rec recs[sizeof(truth) / sizeof(truth[0])];
	struct etl_reader *r = etl_reader_new();
	uint8_t *t;
	size_t len, i;

	memset(recs, 0, sizeof(recs));
	for (i = 0; i < sizeof(truth) / sizeof(truth[0]); i++) {
		recs[i].guid = truth[i].guid;
		recs[i].number = truth[i].number;
		recs[i].ptr_size = 8;
		if (truth[i].arg_size)
			put_le(&recs[i].args, truth[i].arg, truth[i].arg_size);
	}
	t = wpp_trace(recs, i, &len);
	ck_assert_int_eq(etl_reader_add_tmf_path(r, tmf_dir), ETL_OK); /* a folder: read on demand */
	ck_assert_int_eq(each_message(r, t, len, check_truth), (int)i);
	ck_assert_uint_eq(etl_reader_tmf_warnings(r), 0);
	etl_reader_free(r);
	free(t);
}
END_TEST

/* ---- every item type, both pointer sizes ---- */

static const char every_item_tmf[] =
	"// PDB:  test.pdb\n"
	"aabbccdd-0000-1111-2222-333344445555 TestDrv // SRC=test.c MJ= MN=\n"
	"#typev test_c10 1 \"%0 [%!FUNC!] c=%10!d! uc=%11!u! s=%12!d! us=%13!u! l=%14!d! ul=%15!u! x=%16!08X!\""
	" //   LEVEL=TRACE_LEVEL_INFORMATION FLAGS=TRACE_ALL FUNC=TestFunc\n"
	"{\n"
	"a, ItemChar -- 10\n"
	"b, ItemUChar -- 11\n"
	"c, ItemShort -- 12\n"
	"d, ItemUShort -- 13\n"
	"(LONG)(x - y), ItemLong -- 14\n"
	"f->g, ItemULong -- 15\n"
	"g, ItemULongX -- 16\n"
	"}\n"
	"#typev test_c20 2 \"%10!I64d! %11!I64u! 0x%12!012I64X! %13!p! %14!Iu! %15!.3f! %16!x!\" //   LEVEL=TRACE_LEVEL_ERROR FUNC=F2\n"
	"{\n"
	"a, ItemLongLong -- 10\n"
	"b, ItemULongLong -- 11\n"
	"c, ItemLongLongXX -- 12\n"
	"p, ItemPtr -- 13\n"
	"sz, ItemSize -- 14\n"
	"dbl, ItemDouble -- 15\n"
	"p, ItemPtr -- 16\n"
	"}\n"
	"#typev test_c30 3 \"a=%10!s! w=%11!s! pa=%12!s! pw=%13!-6s!| g=%14!s!\" //   FUNC=F3\n"
	"{\n"
	"a, ItemString -- 10\n"
	"w, ItemWString -- 11\n"
	"pa, ItemPString -- 12\n"
	"pw, ItemPWString -- 13\n"
	"g, ItemGuid -- 14\n"
	"}\n"
	"#typev test_c40 4 \"nt=%10!s! we=%11!s! hr=%12!s! irql=%13!s! ip=%14!s! port=%15!s! nt2=%16!s!\" //   FUNC=F4\n"
	"{\n"
	"s, ItemNTSTATUS -- 10\n"
	"e, ItemWINERROR -- 11\n"
	"h, ItemHRESULT -- 12\n"
	"KeGetCurrentIrql(), ItemListByte(Low,APC,DPC) -- 13\n"
	"ip, ItemIPAddr -- 14\n"
	"port, ItemPort -- 15\n"
	"s2, ItemNTSTATUS -- 16\n"
	"}\n"
	"#typev test_c55 5 \"c4=%10!s! hex=%11!s! %!LINE! %!FILE! %!COMPNAME! %!LEVEL! %!FLAGS! %%%!NOPE! %9!d! %20!d!\" //   LEVEL=L5 FLAGS=F5 FUNC=F5\n"
	"{\n"
	"c4, ItemChar4 -- 10\n"
	"h, ItemHexDump -- 11\n"
	"}\n"
	"#typev test_c60 6 \"v6=%10!s! mac=%11!s! wc=%12!s! m=%13!u! nt=%14!s! nw=%15!s!\" //   FUNC=F6\n"
	"{\n"
	"a6, ItemIPV6Addr -- 10\n"
	"mac, ItemMACAddr -- 11\n"
	"wc, ItemWChar -- 12\n"
	"m, ItemMerror -- 13\n"
	"e, ItemNTerror -- 14\n"
	"rest, ItemNWString -- 15\n"
	"}\n";

#define TEST_GUID "aabbccdd-0000-1111-2222-333344445555"

static unsigned every_ptr;

static void check_every(size_t k, struct etl_reader *r, const struct etl_decoded *d)
{
	(void)r;
	ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_TMF);
	ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
	switch (k) {
	case 0:
		ck_assert_str_eq(etl_decoded_name(d), "TestDrv/TestFunc");
		ck_assert_str_eq(etl_decoded_keywords_name(d), "TRACE_ALL");
		ck_assert_str_eq(etl_decoded_message(d),
				 "[TestFunc] c=-2 uc=200 s=-300 us=60000 l=-70000 ul=4000000000 x=00ABCDEF");
		ck_assert_str_eq(prop_text(d, "arg14"), "-70000"); /* an expression: named by its number */
		ck_assert_str_eq(prop_text(d, "f.g"), "4000000000");
		ck_assert_str_eq(prop_text(d, "g"), "0xabcdef"); /* the library's hex, as for manifests */
		break;
	case 1:
		ck_assert_ptr_null(etl_decoded_keywords_name(d));
		ck_assert_str_eq(etl_decoded_message(d),
				 every_ptr == 8 ? "-5000000000 18000000000000000000 0x0000DEADBEEF 0x00007FF612345678 "
						  "4096 2.500 7ff612345678"
						: "-5000000000 18000000000000000000 0x0000DEADBEEF 0x12345678 4096 2.500 12345678");
		break;
	case 2:
		ck_assert_str_eq(etl_decoded_message(d),
				 "a=ansi w=wide pa=cnt pw=cw    | g=11223344-5566-7788-99aa-bbccddeeff00");
		ck_assert_str_eq(prop_text(d, "w"), "wide");
		break;
	case 3:
		ck_assert_str_eq(etl_decoded_message(d),
				 "nt=STATUS_ACCESS_DENIED (0xC0000022) we=ERROR_FILE_NOT_FOUND (0x00000002) "
				 "hr=E_NOTIMPL (0x80004001) irql=DPC ip=10.1.2.3 port=443 nt2=0x1234ABCD");
		ck_assert_str_eq(prop_text(d, "arg13"), "DPC"); /* "KeGetCurrentIrql()": named by its number */
		ck_assert_str_eq(etl_property_map_name(etl_decoded_property_at(d, 3)), "ItemListByte(Low,APC,DPC)");
		ck_assert_str_eq(prop_text(d, "ip"), "10.1.2.3");
		break;
	case 4:
		ck_assert_str_eq(etl_decoded_message(d), "c4=RIFF hex=0x0a0b0c 55 test.c TestDrv L5 F5 %%!NOPE!  %20!d!");
		ck_assert_str_eq(etl_decoded_level_name(d), "L5");
		break;
	case 5:
		ck_assert_str_eq(etl_decoded_message(d), "v6=2001:db8::1 mac=0x001a2b3c4d5e wc=Z m=7 "
						 "nt=ERROR_ACCESS_DENIED (0x00000005) nw=end");
		break;
	default:
		ck_abort_msg("more messages than written");
	}
}

static void every_item_records(struct wpp_rec *recs, unsigned ptr)
{
	static const uint8_t guid_bytes[16] = { 0x44, 0x33, 0x22, 0x11, 0x66, 0x55, 0x88, 0x77,
						0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00 };
	struct bytes *a;
	size_t i;

	memset(recs, 0, 6 * sizeof(*recs));
	for (i = 0; i < 6; i++) {
		recs[i].guid = TEST_GUID;
		recs[i].number = (uint16_t)(i + 1);
		recs[i].ptr_size = ptr;
	}
	a = &recs[0].args;
	put_le(a, (uint8_t)-2, 1);
	put_le(a, 200, 1);
	put_le(a, (uint16_t)-300, 2);
	put_le(a, 60000, 2);
	put_le(a, (uint32_t)-70000, 4);
	put_le(a, 4000000000u, 4);
	put_le(a, 0xABCDEF, 4);
	a = &recs[1].args;
	put_le(a, (uint64_t)-5000000000ll, 8);
	put_le(a, 18000000000000000000ull, 8);
	put_le(a, 0xDEADBEEF, 8);
	put_le(a, ptr == 8 ? 0x7FF612345678ull : 0x12345678u, ptr);
	put_le(a, 4096, ptr);
	{
		double v = 2.5;
		uint64_t u;
		memcpy(&u, &v, 8);
		put_le(a, u, 8);
	}
	put_le(a, ptr == 8 ? 0x7FF612345678ull : 0x12345678u, ptr);
	a = &recs[2].args;
	put_bytes(a, "ansi", 5);
	put_bytes(a, "w\0i\0d\0e\0\0\0", 10);
	put_le(a, 3, 2);
	put_bytes(a, "cnt", 3);
	put_le(a, 4, 2);
	put_bytes(a, "c\0w\0", 4);
	put_bytes(a, guid_bytes, 16);
	a = &recs[3].args;
	put_le(a, 0xC0000022u, 4);
	put_le(a, 2, 4);
	put_le(a, 0x80004001u, 4);
	put_le(a, 2, 1);
	put_bytes(a, "\x0a\x01\x02\x03", 4);
	put_bytes(a, "\x01\xbb", 2); /* network order */
	put_le(a, 0x1234ABCDu, 4);
	a = &recs[4].args;
	put_bytes(a, "RIFF", 4);
	put_le(a, 3, 2);
	put_bytes(a, "\x0a\x0b\x0c", 3);
	a = &recs[5].args;
	put_bytes(a, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	put_bytes(a, "\x00\x1a\x2b\x3c\x4d\x5e", 6);
	put_bytes(a, "Z\0", 2);
	put_le(a, 7, 4);
	put_le(a, 5, 4);
	put_bytes(a, "e\0n\0d\0", 6);
}

/* The n records decoded with one TMF file of this text (read without a warning), each message
 * given to check. */
static void decode_with_tmf(const struct wpp_rec *recs, size_t n, const char *tmf_name, const char *tmf_text,
			    void (*check)(size_t k, struct etl_reader *r, const struct etl_decoded *d))
{
	struct etl_reader *r = etl_reader_new();
	const char *path = temp_file(tmf_name, tmf_text);
	size_t len;
	uint8_t *t = wpp_trace(recs, n, &len);

	ck_assert_int_eq(etl_reader_add_tmf_path(r, path), ETL_OK);
	ck_assert_uint_eq(etl_reader_tmf_warnings(r), 0);
	ck_assert_int_eq(each_message(r, t, len, check), (int)n);
	etl_reader_free(r);
	free(t);
	unlink(path);
}

START_TEST(every_item_type_at_both_pointer_sizes)
{
	struct wpp_rec recs[6];

	every_ptr = _i ? 8 : 4;
	every_item_records(recs, every_ptr);
	decode_with_tmf(recs, 6, "every.tmf", every_item_tmf, check_every);
}
END_TEST

/* ---- damage ---- */

static void check_damaged(size_t k, struct etl_reader *r, const struct etl_decoded *d)
{
	(void)r;
	switch (k) {
	case 0: /* arguments cut short: raw, with the reason */
		ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_NONE);
		ck_assert_ptr_nonnull(strstr(etl_decoded_reason(d), "its arguments do not fit the TMF"));
		ck_assert_ptr_nonnull(strstr(etl_decoded_reason(d), "bad.tmf line 2"));
		ck_assert_ptr_null(etl_decoded_message(d));
		break;
	case 1: /* the message after the bad one in the same file still decodes */
		ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_TMF);
		ck_assert_str_eq(etl_decoded_message(d), "fine 7");
		break;
	case 2: /* the message with an unknown item type was dropped */
		ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_NONE);
		ck_assert_ptr_nonnull(strstr(etl_decoded_reason(d), "in none of the TMF files given"));
		break;
	case 3: /* a GUID no TMF names */
		ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_NONE);
		ck_assert_ptr_nonnull(strstr(etl_decoded_name(d), "/Message(9)"));
		break;
	default:
		ck_abort_msg("more messages than written");
	}
}

START_TEST(damaged_arguments_and_bad_tmf_lines)
{
	static const char bad[] =
		TEST_GUID " TestDrv // SRC=test.c\n"
		"#typev test_c1 1 \"v=%10!d! w=%11!d!\" // FUNC=F\n"
		"{\n"
		"a, ItemLong -- 10\n"
		"b, ItemLongLong -- 11\n"
		"}\n"
		"#typev test_c2 2 \"u=%10!d!\" // FUNC=F\n"
		"{\n"
		"a, ItemNoSuchType -- 10\n"
		"}\n"
		"this line is not TMF\n"
		"#typev test_c3 3 \"fine %10!d!\" // FUNC=G\n"
		"{\n"
		"a, ItemLong -- 10\n"
		"}\n";
	struct wpp_rec recs[4];
	struct etl_reader *r = etl_reader_new();
	const char *path = temp_file("bad.tmf", bad);
	const struct etl_error *e;
	uint8_t *t;
	size_t len;

	memset(recs, 0, sizeof(recs));
	recs[0].guid = recs[1].guid = recs[2].guid = TEST_GUID;
	recs[3].guid = "01020304-0506-0708-090a-0b0c0d0e0f10";
	recs[0].number = 1;
	put_le(&recs[0].args, 5, 4);
	put_le(&recs[0].args, 6, 4); /* 4 of the 8 bytes of argument 11 */
	recs[1].number = 3;
	put_le(&recs[1].args, 7, 4);
	recs[2].number = 2;
	put_le(&recs[2].args, 7, 4);
	recs[3].number = 9;
	recs[0].ptr_size = recs[1].ptr_size = recs[2].ptr_size = recs[3].ptr_size = 8;
	t = wpp_trace(recs, 4, &len);
	ck_assert_int_eq(etl_reader_add_tmf_path(r, path), ETL_OK);
	ck_assert_uint_eq(etl_reader_tmf_warnings(r), 2);
	e = etl_reader_error(r);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(etl_error_message(e), "bad.tmf line 9: unknown item type 'ItemNoSuchType'"));
	ck_assert_int_eq(each_message(r, t, len, check_damaged), 4);
	etl_reader_free(r);
	free(t);
	unlink(path);
}
END_TEST

/* A TMF file in an 8-bit code page (a format string, a function and a component name with a
 * Latin-1 byte): its text is read as Latin-1, so messages and names are UTF-8. */
static void check_latin1(size_t k, struct etl_reader *r, const struct etl_decoded *d)
{
	(void)r;
	ck_assert_uint_eq(k, 0);
	ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_TMF);
	ck_assert_str_eq(etl_decoded_message(d), "caf\xc3\xa9 7");
	ck_assert_str_eq(etl_decoded_name(d), "Dr\xc3\xa9v/F\xc3\xbc");
}

START_TEST(latin1_tmf_text_becomes_utf8)
{
	static const char latin1[] =
		TEST_GUID " Dr\xe9v // SRC=test.c\n"
		"#typev test_c1 1 \"caf\xe9 %10!d!\" // FUNC=F\xfc\n"
		"{\n"
		"a, ItemLong -- 10\n"
		"}\n";
	struct wpp_rec rec;

	memset(&rec, 0, sizeof(rec));
	rec.guid = TEST_GUID;
	rec.number = 1;
	rec.ptr_size = 8;
	put_le(&rec.args, 7, 4);
	decode_with_tmf(&rec, 1, "latin1.tmf", latin1, check_latin1);
}
END_TEST

START_TEST(no_tmf_keeps_the_old_reason)
{
	struct wpp_rec rec;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	const struct etl_decoded *d;
	uint8_t *t;
	size_t len;
	int seen = 0;

	memset(&rec, 0, sizeof(rec));
	rec.guid = TEST_GUID;
	rec.number = 1;
	rec.ptr_size = 8;
	t = wpp_trace(&rec, 1, &len);
	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "wpp"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_header_kind(ev) != ETL_HEADER_MESSAGE)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_str_eq(etl_decoded_reason(d), "WPP message: its format needs the provider's TMF files");
		seen++;
	}
	ck_assert_int_eq(seen, 1);
	ck_assert_int_eq(etl_reader_add_tmf_path(r, "/nonexistent/x.tmf"), ETL_E_IO);
	etl_reader_free(r);
	free(t);
}
END_TEST

/* A GUID.tmf in a TMF folder that cannot be read (a symbolic link to itself) says why, instead
 * of "in none of the TMF files given". */
START_TEST(unreadable_guid_tmf_says_why)
{
	struct wpp_rec rec;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	const struct etl_decoded *d;
	char dir[4200], link[4300];
	uint8_t *t;
	size_t len;
	int seen = 0;

	snprintf(dir, sizeof(dir), "%s/loop", tmpdir_path);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(link, sizeof(link), "%s/%s.tmf", dir, TEST_GUID);
	ck_assert_int_eq(symlink(link, link), 0);
	memset(&rec, 0, sizeof(rec));
	rec.guid = TEST_GUID;
	rec.number = 1;
	rec.ptr_size = 8;
	t = wpp_trace(&rec, 1, &len);
	ck_assert_int_eq(etl_reader_add_tmf_path(r, dir), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "wpp"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_header_kind(ev) != ETL_HEADER_MESSAGE)
			continue;
		etl_reader_decode(r, ev, &d);
		ck_assert_msg(strstr(etl_decoded_reason(d), "could not be read") &&
				      strstr(etl_decoded_reason(d), strerror(ELOOP)),
			      "%s", etl_decoded_reason(d));
		seen++;
	}
	ck_assert_int_eq(seen, 1);
	unlink(link);
	rmdir(dir);
	etl_reader_free(r);
	free(t);
}
END_TEST

START_TEST(hostile_tmf_text_is_bounded)
{
	/* fuzz-like inputs: every prefix of a valid file, and junk, parse without harm */
	struct tmf_db *db = etl__tmf_new();
	size_t n;
	struct etl_diag d;

	for (n = 0; n <= sizeof(every_item_tmf) - 1; n += 7) {
		d.code = ETL_OK;
		ck_assert_int_eq(etl__tmf_parse(db, every_item_tmf, n, "prefix", &d), ETL_OK);
	}
	d.code = ETL_OK;
	ck_assert_int_eq(etl__tmf_parse(db, "\xff\xfe\x00\x00", 4, "utf16", &d), ETL_E_UNSUPPORTED);
	etl__tmf_free(db);
}
END_TEST

START_TEST(tmf_limits_say_what_they_are)
{
	/* a list of 257 names says so (not "out of memory"); a folder path past 4000 bytes is
	 * refused, never cut (a cut one would name another folder) */
	struct tmf_db *db = etl__tmf_new();
	struct etl_reader *r = etl_reader_new();
	struct etl_diag d;
	char *text = malloc(8192), *long_path = malloc(4100);
	size_t n, i;

	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(long_path);
	n = (size_t)sprintf(text, "aabbccdd-0000-1111-2222-333344445555 TestDrv // SRC=t.c\n"
				  "#typev t_c1 1 \"%%10!s!\" //   LEVEL=TRACE_LEVEL_INFORMATION\n{\nv, ItemListByte(");
	for (i = 0; i < 257; i++)
		n += (size_t)sprintf(text + n, "%sN%zu", i ? "," : "", i);
	n += (size_t)sprintf(text + n, ") -- 10\n}\n");
	d.code = ETL_OK;
	etl__tmf_parse(db, text, n, "list.tmf", &d);
	ck_assert_msg(strstr(d.msg, "more than 256 names") != NULL, "%s", d.msg);
	ck_assert_ptr_null(strstr(d.msg, "out of memory"));
	strcpy(long_path, "/tmp");
	for (i = 4; i < 4050; i += 2)
		strcat(long_path, "/.");
	ck_assert_int_eq(etl_reader_add_tmf_path(r, long_path), ETL_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "at most 4000"));
	etl_reader_free(r);
	etl__tmf_free(db);
	free(text);
	free(long_path);
}
END_TEST

/* Issue 38: a 16 MiB TMF of the shortest messages took 566 MB (34 times its size).  The messages
 * of one file cost at most 8 times its size and 16 MiB: the rest is not read, and that is said. */
START_TEST(tmf_memory_is_bounded_per_byte)
{
	struct tmf_db *db = etl__tmf_new();
	struct etl_diag d;
	size_t cap = 4u << 20, n = 0, lines = 0;
	char *text = malloc(cap);

	ck_assert_ptr_nonnull(text);
	n = (size_t)sprintf(text, "aabbccdd-0000-1111-2222-333344445555 m\n");
	while (n + 32 < cap) {
		n += (size_t)sprintf(text + n, "#typev a %zu \"\"\n", lines % 65536);
		if (++lines % 65536 == 0) /* a new GUID, so that every message is a distinct one */
			n += (size_t)sprintf(text + n, "aabbcc%02zx-0000-1111-2222-333344445555 m\n", lines / 65536);
	}
	d.code = ETL_OK;
	ck_assert_int_eq(etl__tmf_parse(db, text, n, "dense.tmf", &d), ETL_OK);
	ck_assert_msg(strstr(d.msg, "the TMF memory bound") != NULL, "%s", d.msg);
	ck_assert_uint_eq(etl__tmf_warnings(db), 1);
	/* about 350 bytes a message: the bound (48 MiB here) holds 100,000 or more, not all */
	ck_assert_uint_gt(etl__tmf_count(db), 100000);
	ck_assert_uint_lt(etl__tmf_count(db), lines);
	etl__tmf_free(db);
	free(text);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("wpp");
	TCase *t = tcase_create("wpp");
	TCase *c = tcase_create("corpus");
	int rc;

	if (argc > 1)
		corpus_dir = argv[1];
	snprintf(tmf_dir, sizeof(tmf_dir), "%s/tmf/nefarius-etw/symbols", corpus_dir);
	/* made here, in the parent: each test runs in a child of its own */
	snprintf(tmpdir_path, sizeof(tmpdir_path), "%s/check_wpp.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir_path)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	tcase_add_loop_test(t, every_item_type_at_both_pointer_sizes, 0, 2);
	tcase_add_test(t, damaged_arguments_and_bad_tmf_lines);
	tcase_add_test(t, latin1_tmf_text_becomes_utf8);
	tcase_add_test(t, no_tmf_keeps_the_old_reason);
	tcase_add_test(t, hostile_tmf_text_is_bounded);
	tcase_add_test(t, tmf_limits_say_what_they_are);
	tcase_add_test(t, tmf_memory_is_bounded_per_byte);
	tcase_add_test(t, unreadable_guid_tmf_says_why);
	suite_add_tcase(s, t);
	tcase_add_test(c, corpus_tmf_files_all_parse);
	tcase_add_test(c, corpus_truth_messages_format_identically);
	tcase_set_timeout(c, 120);
	rc = run_part(s, c, tmf_dir);
	rmdir(tmpdir_path);
	return rc;
}
