/*
 * check_manifest.c - manifest decoding: a synthetic manifest with every
 * feature against events made by the writer, UTF-16 manifests, malformed
 * and hostile manifests, directories, and the corpus expectations.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "manifest/mxml.h"
#include "reader/reader.h"
#include "clock.h"
#include "scenario.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

/* provider {11223344-5566-7788-99aa-bbccddeeff00} = scen_provider */
static const char manifest[] =
	"<?xml version='1.0' encoding='utf-8'?>\n"
	"<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'"
	" xmlns:win='http://manifests.microsoft.com/win/2004/08/windows/events'>\n"
	" <instrumentation><events>\n"
	"  <provider name='Test-Provider' guid='{11223344-5566-7788-99AA-BBCCDDEEFF00}' symbol='P'>\n"
	"   <tasks>\n"
	"    <task name='Connect' value='7' message='$(string.task.connect)'>\n"
	"     <opcodes><opcode name='Handshake' value='12' message='$(string.op.handshake)'/></opcodes>\n"
	"    </task>\n"
	"    <task name='Plain' value='8'/>\n"
	"   </tasks>\n"
	"   <keywords><keyword name='Net' mask='0x10'/><keyword name='Disk' mask='0x20'/></keywords>\n"
	"   <maps>\n"
	"    <valueMap name='ColorMap'><map value='1' message='$(string.red)'/><map value='2' message='Green '/></valueMap>\n"
	"    <bitMap name='FlagMap'><map value='0x1' message='A'/><map value='0x4' message='C'/></bitMap>\n"
	"   </maps>\n"
	"   <templates>\n"
	"    <template tid='T1'>\n"
	"     <data name='Name' inType='win:UnicodeString'/>\n"
	"     <data name='Count' inType='win:UInt16'/>\n"
	"     <data name='Values' inType='win:UInt32' count='Count'/>\n"
	"     <data name='Fixed' inType='win:UInt8' count='2'/>\n"
	"     <data name='Len' inType='win:UInt8'/>\n"
	"     <data name='Blob' inType='win:Binary' length='Len'/>\n"
	"     <data name='Tag' inType='win:AnsiString' length='3'/>\n"
	"     <data name='Color' inType='win:UInt32' map='ColorMap'/>\n"
	"     <data name='Flags' inType='win:UInt32' map='FlagMap'/>\n"
	"     <struct name='Pair' count='2'><data name='K' inType='win:UInt8'/><data name='V' inType='win:Int16'/></struct>\n"
	"     <data name='Ptr' inType='win:Pointer'/>\n"
	"     <data name='Status' inType='win:UInt32' outType='win:NTSTATUS'/>\n"
	"     <data name='Ip' inType='win:UInt32' outType='win:IPv4'/>\n"
	"     <data name='Ok' inType='win:Boolean'/>\n"
	"    </template>\n"
	"    <template tid='T2'><data name='X' inType='win:Int32'/></template>\n"
	"   </templates>\n"
	"   <events>\n"
	"    <event value='1' version='0' task='Connect' opcode='Handshake' level='win:Warning' keywords='Net Disk'"
	" template='T1' message='$(string.ev1)'/>\n"
	"    <event value='2' version='3' task='Plain' opcode='win:Start' template='T2'/>\n"
	"    <event value='3' version='0' task='Plain'/>\n"
	"   </events>\n"
	"  </provider>\n"
	" </events></instrumentation>\n"
	" <localization><resources culture='en-US'><stringTable>\n"
	"  <string id='task.connect' value='Conn'/>\n"
	"  <string id='op.handshake' value='Shake'/>\n"
	"  <string id='red' value='Red'/>\n"
	"  <string id='ev1' value='%1 sent %2 values,%tcolor %8%%'/>\n"
	" </stringTable></resources></localization>\n"
	"</instrumentationManifest>\n";

static uint8_t *build_trace(size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_event e;
	uint8_t *out;
	static const uint8_t p1[] = {
		'h', 0, 'i', 0, 0, 0,               /* Name */
		2, 0,                               /* Count */
		10, 0, 0, 0, 20, 0, 0, 0,           /* Values */
		7, 8,                               /* Fixed */
		3, 0xAA, 0xBB, 0xCC,                /* Len, Blob */
		'a', 'b', 'c',                      /* Tag */
		1, 0, 0, 0,                         /* Color = Red */
		5, 0, 0, 0,                         /* Flags = A, C */
		1, 0xFE, 0xFF, 2, 0x05, 0x00,       /* Pair[0] = {1, -2}, Pair[1] = {2, 5} */
		0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0, /* Ptr */
		0x22, 0x00, 0x00, 0xC0,             /* NTSTATUS 0xc0000022 */
		10, 0, 0, 1,                        /* 10.0.0.1 */
		1, 0, 0, 0,                         /* true */
	};

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&e, 0, sizeof(e));
	e.provider = scen_provider;
	e.ts = o.start_ts + 10;
	e.id = 1;
	e.opcode = 12;
	e.task = 7;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, p1, sizeof(p1)), 0);
	e.id = 2;
	e.version = 3;
	e.opcode = 1;
	e.task = 8;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, "\xff\xff\xff\xff", 4), 0);
	e.id = 2;
	e.version = 4; /* a version the manifest lacks: version 3's template reads its start */
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, "\x01\x00\x00\x00\x09", 5), 0);
	e.version = 5; /* one whose payload version 3's template does not fit */
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, "\x01\x00", 2), 0);
	e.id = 3;
	e.version = 0;
	e.opcode = 0;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(etlw_finish(w, &out, len), 0);
	etlw_free(w);
	return out;
}

static void check_decoding(struct etl_reader *r)
{
	const struct etl_event *ev;
	const struct etl_decoded *d;
	const struct etl_property *p;
	int n = 0;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		switch (n++) {
		case 0:
			ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_MANIFEST);
			ck_assert_str_eq(etl_decoded_name(d), "Test-Provider/Conn/Shake");
			ck_assert_str_eq(etl_decoded_level_name(d), "Warning");
			ck_assert_str_eq(etl_decoded_keywords_name(d), "Net Disk");
			ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Name")), "hi");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Values")), "[10, 20]");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Fixed")), "[7, 8]");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Blob")), "0xaabbcc");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Tag")), "abc");
			p = etl_decoded_property_by_name(d, "Color");
			ck_assert_str_eq(etl_property_format(p), "Red");
			ck_assert_str_eq(etl_property_map_name(p), "ColorMap");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Flags")), "A, C");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Pair")),
					 "[{K: 1, V: -2}, {K: 2, V: 5}]");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Ptr")), "0x12345678");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Status")), "0xc0000022");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Ip")), "10.0.0.1");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "Ok")), "true");
			ck_assert_str_eq(etl_decoded_message(d), "hi sent 2 values,\tcolor Red%");
			break;
		case 1:
			ck_assert_str_eq(etl_decoded_name(d), "Test-Provider/Plain/Start");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_at(d, 0)), "-1");
			break;
		case 2: /* the manifest lacks version 4: decoded with version 3's template, which a newer
			 * version only adds fields after; what follows it is trailing */
			ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_MANIFEST);
			ck_assert_str_eq(etl_decoded_name(d), "Test-Provider/Plain/Start");
			ck_assert_int_eq(etl_decoded_described_version(d), 3);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(d, "X")), "1");
			ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 1);
			ck_assert_ptr_null(etl_decoded_message(d));
			break;
		case 3: /* version 5, a payload version 3's template does not fit: raw, named, with why */
			ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_NONE);
			ck_assert_int_eq(etl_decoded_described_version(d), -1);
			ck_assert_str_eq(etl_decoded_name(d), "Test-Provider/Plain/Start");
			ck_assert_ptr_nonnull(strstr(etl_decoded_reason(d), "has event 2 at version 3, not 5, and that "
							       "version's template does not fit the payload"));
			break;
		case 4: /* no template, no payload */
			ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_MANIFEST);
			ck_assert_str_eq(etl_decoded_name(d), "Test-Provider/Plain");
			ck_assert_uint_eq(etl_decoded_property_count(d), 0);
			break;
		default:
			break;
		}
	}
	ck_assert_int_eq(n, 5);
}

START_TEST(manifest_every_feature)
{
	size_t len;
	uint8_t *t = build_trace(&len);
	struct etl_reader *r = etl_reader_new();

	ck_assert_int_eq(etl_reader_add_manifest_memory(r, manifest, sizeof(manifest) - 1, "m"), ETL_OK);
	ck_assert_uint_eq(etl_reader_manifest_warnings(r), 0);
	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "t"), ETL_OK);
	check_decoding(r);
	etl_reader_free(r);
	free(t);
}
END_TEST

/* A manifest set parsed once and shared: two readers decode with it, on two threads; it no longer
 * changes once used; it lives as long as the last reader that uses it. */
struct shared_run {
	struct etl_manifests *m;
	const uint8_t *trace;
	size_t len;
};

static void *decode_with_set(void *arg)
{
	struct shared_run *s = arg;
	struct etl_reader *r = etl_reader_new();

	ck_assert_int_eq(etl_reader_use_manifests(r, s->m), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, s->trace, s->len, "t"), ETL_OK);
	check_decoding(r);
	etl_reader_free(r);
	return NULL;
}

START_TEST(manifest_set_shared_by_readers)
{
	size_t len;
	uint8_t *t = build_trace(&len);
	struct etl_manifests *m = etl_manifests_new();
	struct shared_run s;
	struct etl_reader *r = etl_reader_new(), *late = etl_reader_new();
	pthread_t th[2];
	int i;

	ck_assert_int_eq(etl_manifests_add_memory(m, manifest, sizeof(manifest) - 1, "m"), ETL_OK);
	ck_assert_int_eq(etl_manifests_add_memory(m, "<x/>", 4, "bad"), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_manifests_error(m)), "bad"));
	ck_assert_uint_eq(etl_manifests_warnings(m), 0);
	s.m = m, s.trace = t, s.len = len;
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, decode_with_set, &s), 0);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* in use: no more loading */
	ck_assert_int_eq(etl_manifests_add_memory(m, manifest, sizeof(manifest) - 1, "again"), ETL_E_MISUSE);
	/* one set per reader, before its first event */
	ck_assert_int_eq(etl_reader_use_manifests(r, m), ETL_OK);
	ck_assert_int_eq(etl_reader_use_manifests(r, m), ETL_E_MISUSE);
	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "t"), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(late, t, len, "t"), ETL_OK);
	{
		const struct etl_event *ev;
		ck_assert_int_eq(etl_reader_next(late, &ev), ETL_OK);
		ck_assert_int_eq(etl_reader_use_manifests(late, m), ETL_E_MISUSE);
	}
	etl_manifests_free(m); /* the reader keeps it */
	check_decoding(r);
	etl_reader_free(r);
	etl_reader_free(late);
	free(t);
}
END_TEST

START_TEST(manifest_utf16_and_directory)
{
	size_t len, i, n;
	uint8_t *t = build_trace(&len), *u16;
	char *text = malloc(sizeof(manifest) + 8), *enc;
	char dir[] = "/tmp/check_manifest_XXXXXX", path[256];
	struct etl_reader *r = etl_reader_new();
	FILE *f;

	/* UTF-16LE with a BOM, the encoding declaration changed to match */
	enc = strstr(manifest, "utf-8");
	ck_assert_ptr_nonnull(enc);
	snprintf(text, sizeof(manifest) + 8, "%.*sutf-16%s", (int)(enc - manifest), manifest, enc + 5);
	n = strlen(text);
	u16 = malloc(2 + 2 * n);
	u16[0] = 0xFF;
	u16[1] = 0xFE;
	for (i = 0; i < n; i++) {
		u16[2 + 2 * i] = (uint8_t)text[i];
		u16[3 + 2 * i] = 0;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.man", dir);
	f = fopen(path, "wb");
	ck_assert_int_eq((int)fwrite(u16, 1, 2 + 2 * n, f), (int)(2 + 2 * n));
	fclose(f);
	snprintf(path, sizeof(path), "%s/notes.txt", dir); /* ignored: not a manifest name */
	f = fopen(path, "wb");
	fputs("not xml", f);
	fclose(f);
	ck_assert_int_eq(etl_reader_add_manifest_path(r, dir), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "t"), ETL_OK);
	check_decoding(r);
	etl_reader_free(r);
	snprintf(path, sizeof(path), "%s/a.man", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	unlink(path);
	rmdir(dir);
	free(u16);
	free(text);
	free(t);
}
END_TEST

/* Writes text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq((int)fwrite(text, 1, strlen(text), f), (int)strlen(text));
	fclose(f);
}

static void remove_file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* The manifest with the provider renamed (same GUID). */
static char *renamed_manifest(const char *name)
{
	char *text = malloc(sizeof(manifest) + 64), *at = strstr(manifest, "Test-Provider");

	ck_assert_ptr_nonnull(at);
	snprintf(text, sizeof(manifest) + 64, "%.*s%s%s", (int)(at - manifest), manifest, name, at + 13);
	return text;
}

/* Provider/Task/Opcode names are cut at 511 bytes, whatever the length of each piece: names
 * that fit, that end at the cut, that cross it in the task or opcode, and a provider longer than
 * the cut. */
START_TEST(long_event_names_cut_at_511_bytes)
{
	static const size_t lens[] = { 1, 496, 499, 500, 505, 510, 511, 520 };
	size_t len, i, k;
	uint8_t *t = build_trace(&len);

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		const char *at = strstr(manifest, "Test-Provider");
		size_t cap = sizeof(manifest) + lens[i];
		char *text = malloc(cap), *pname = malloc(lens[i] + 1), want[3][600];
		const char *tails[3] = { "/Conn/Shake", "/Plain/Start", "/Plain" };
		struct etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		const struct etl_decoded *d;
		unsigned n = 0;

		ck_assert_ptr_nonnull(text);
		ck_assert_ptr_nonnull(pname);
		memset(pname, 'P', lens[i]);
		pname[lens[i]] = 0;
		snprintf(text, cap, "%.*s%s%s", (int)(at - manifest), manifest, pname, at + 13);
		for (k = 0; k < 3; k++) {
			snprintf(want[k], sizeof(want[k]), "%s%s", pname, tails[k]);
			want[k][511] = 0;
		}
		ck_assert_int_eq(etl_reader_add_manifest_memory(r, text, strlen(text), "long.man"), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, t, len, "t"), ETL_OK);
		while (etl_reader_next(r, &ev) == ETL_OK) {
			if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
				continue;
			ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
			ck_assert_str_eq(etl_decoded_name(d), want[n == 0 ? 0 : n < 4 ? 1 : 2]);
			n++;
		}
		ck_assert_uint_eq(n, 5);
		etl_reader_free(r);
		free(text);
		free(pname);
	}
	free(t);
}
END_TEST

/* One event of provider g, id 1. */
static uint8_t *one_event_trace(const struct etl_guid *g, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_event e;
	uint8_t *out;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&e, 0, sizeof(e));
	e.provider = *g;
	e.ts = o.start_ts + 10;
	e.id = 1;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, "\x01\x00\x00\x00", 4), 0);
	ck_assert_int_eq(etlw_finish(w, &out, len), 0);
	etlw_free(w);
	return out;
}

/* A folder's files are scanned for the providers they declare and parsed when a trace needs one:
 * the last file in name order wins, a declaration inside a comment does not count, a broken file
 * is reported by the events of its provider, and one nobody needs is never parsed. */
START_TEST(manifest_folder_parsed_on_demand)
{
	static const char broken[] =
		"<instrumentationManifest><instrumentation><events>"
		"<provider name='Broken' guid='{99999999-0000-0000-0000-000000000001}'><events><event";
	static const char unused[] =
		"<instrumentationManifest><instrumentation><events>"
		"<provider name='Unused' guid='{99999999-0000-0000-0000-000000000002}'><oops";
	static const char commented[] =
		"<instrumentationManifest><!-- <provider guid='{11223344-5566-7788-99AA-BBCCDDEEFF00}'/> -->"
		"<instrumentation><events><provider name='Other' guid='{99999999-0000-0000-0000-000000000003}'/>"
		"</events></instrumentation></instrumentationManifest>";
	struct etl_guid bad = { 0x99999999, 0, 0, { 0, 0, 0, 0, 0, 0, 0, 1 } };
	char dir[] = "/tmp/check_manifest_XXXXXX";
	char *old = renamed_manifest("Old-Provider");
	size_t len, len2;
	uint8_t *t = build_trace(&len), *t2 = one_event_trace(&bad, &len2);
	struct etl_reader *r = etl_reader_new();
	struct etl_manifests *m = etl_manifests_new();
	const struct etl_event *ev;
	const struct etl_decoded *d;
	int k;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	put_file(dir, "a.man", old);       /* the same provider, replaced by b.man */
	put_file(dir, "b.man", manifest);
	put_file(dir, "c.man", commented); /* mentions the provider only in a comment */
	put_file(dir, "d.man", broken);
	put_file(dir, "e.man", unused);
	ck_assert_int_eq(etl_reader_add_manifest_path(r, dir), ETL_OK);
	ck_assert_uint_eq(etl_reader_manifest_warnings(r), 0); /* nothing parsed yet */
	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "t"), ETL_OK);
	check_decoding(r);
	ck_assert_uint_eq(etl_reader_manifest_warnings(r), 0);
	etl_reader_free(r);

	/* the broken file, when its provider is needed: the event says why; e.man is never read */
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_add_manifest_path(r, dir), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, t2, len2, "t2"), ETL_OK);
	for (k = 0; etl_reader_next(r, &ev) == ETL_OK;) {
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_NONE);
		ck_assert_ptr_nonnull(strstr(etl_decoded_reason(d), "manifest could not be read"));
		ck_assert_ptr_nonnull(strstr(etl_decoded_reason(d), "d.man"));
		k++;
	}
	ck_assert_int_eq(k, 1);
	ck_assert_uint_eq(etl_reader_manifest_warnings(r), 1);
	etl_reader_free(r);

	/* a shared set: scanned once, parsed by each reader that needs it */
	ck_assert_int_eq(etl_manifests_add_path(m, dir), ETL_OK);
	ck_assert_uint_eq(etl_manifests_warnings(m), 0);
	for (k = 0; k < 2; k++) {
		r = etl_reader_new();
		ck_assert_int_eq(etl_reader_use_manifests(r, m), ETL_OK);
		ck_assert_int_eq(etl_reader_open_memory(r, t, len, "t"), ETL_OK);
		check_decoding(r);
		etl_reader_free(r);
	}
	etl_manifests_free(m);
	remove_file(dir, "a.man");
	remove_file(dir, "b.man");
	remove_file(dir, "c.man");
	remove_file(dir, "d.man");
	remove_file(dir, "e.man");
	rmdir(dir);
	free(old);
	free(t);
	free(t2);
}
END_TEST

START_TEST(malformed_manifests)
{
	static const struct {
		const char *xml;
		int status;
		unsigned warnings;
		const char *msg;
	} cases[] = {
		{ "not xml at all", ETL_E_FORMAT, 0, "not well-formed" },
		{ "<root/>", ETL_E_FORMAT, 0, "neither" },
		{ "<instrumentationManifest><instrumentation><events><provider name='P'"
		  " guid='{00000000-0000-0000-0000-000000000001}'><events><event value='1' template='Nope'/>"
		  "</events></provider></events></instrumentation></instrumentationManifest>",
		  ETL_OK, 1, "undefined template" },
		{ "<instrumentationManifest><instrumentation><events><provider name='P'"
		  " guid='{00000000-0000-0000-0000-000000000001}'><templates><template tid='T'>"
		  "<data name='A' inType='win:UInt8' count='70000'/></template></templates></provider></events>"
		  "</instrumentation></instrumentationManifest>",
		  ETL_OK, 1, "larger than 65535" },
		{ "<instrumentationManifest><instrumentation><events><provider name='P'"
		  " guid='{00000000-0000-0000-0000-000000000001}'><templates><template tid='T'>"
		  "<data name='A' inType='win:UInt8' count='Later'/><data name='Later' inType='win:UInt8'/>"
		  "</template></templates></provider></events></instrumentation></instrumentationManifest>",
		  ETL_OK, 1, "names no earlier field" },
		{ "<instrumentationManifest><instrumentation><events><provider name='P' guid='nope'/>"
		  "</events></instrumentation></instrumentationManifest>",
		  ETL_OK, 1, "malformed name or guid" },
		{ "<instrumentationManifest><instrumentation><events><provider name='P'"
		  " guid='{00000000-0000-0000-0000-000000000001}'><templates><template tid='T'>"
		  "<data name='A' inType='win:Quaternion'/></template></templates></provider></events>"
		  "</instrumentation></instrumentationManifest>",
		  ETL_OK, 1, "unknown inType" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct etl_reader *r = etl_reader_new();
		int st = etl_reader_add_manifest_memory(r, cases[i].xml, strlen(cases[i].xml), "bad");
		ck_assert_msg(st == cases[i].status, "case %zu: %d", i, st);
		ck_assert_uint_eq(etl_reader_manifest_warnings(r), cases[i].warnings);
		ck_assert_msg(strstr(etl_error_message(etl_reader_error(r)), cases[i].msg) != NULL,
			      "case %zu: '%s'", i, etl_error_message(etl_reader_error(r)));
		etl_reader_free(r);
	}
}
END_TEST

START_TEST(hostile_manifest_entities_are_not_read)
{
	/* an external entity pointing at a local file, and a DTD on the network */
	static const char xml[] =
		"<?xml version='1.0'?>\n"
		"<!DOCTYPE instrumentationManifest SYSTEM 'http://127.0.0.1:9/evil.dtd' [\n"
		"  <!ENTITY secret SYSTEM 'file:///etc/hostname'>\n"
		"  <!ENTITY a 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'>\n"
		"  <!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>\n"
		"  <!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>\n"
		"]>\n"
		"<instrumentationManifest><instrumentation><events><provider name='&secret;&c;'"
		" guid='{00000000-0000-0000-0000-000000000002}'/></events></instrumentation>"
		"</instrumentationManifest>";
	struct etl_reader *r = etl_reader_new();
	int st = etl_reader_add_manifest_memory(r, xml, sizeof(xml) - 1, "hostile");

	/* refused: a manifest declares no entities (never the file's content or a network fetch) */
	ck_assert_int_eq(st, ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "declares DTD entities"));
	etl_reader_free(r);
}
END_TEST

/* A growing text buffer for generated manifests. */
struct gen {
	char *p;
	size_t len, cap;
};

static void gen_add(struct gen *g, const char *s, size_t n)
{
	if (g->len + n + 1 > g->cap) {
		g->cap = (g->len + n + 1) * 2;
		g->p = realloc(g->p, g->cap);
		ck_assert_ptr_nonnull(g->p);
	}
	memcpy(g->p + g->len, s, n);
	g->len += n;
	g->p[g->len] = 0;
}

static void gen_str(struct gen *g, const char *s)
{
	gen_add(g, s, strlen(s));
}

#define PROVIDER_OPEN "<instrumentationManifest><instrumentation><events><provider name='P'" \
		      " guid='{00000000-0000-0000-0000-000000000001}'>"
#define PROVIDER_CLOSE "</provider></events></instrumentation>"

/* ROBUSTNESS.md, issue 15: an internal entity of 100 KB used 20,000 times in one attribute value
 * (a 160 KB file that once ran for minutes past 560 MB) is refused at once. */
START_TEST(hostile_entity_amplification_is_refused)
{
	struct gen g = { 0 };
	struct etl_reader *r = etl_reader_new();
	double t0;
	int i, st;

	gen_str(&g, "<?xml version='1.0'?><!DOCTYPE instrumentationManifest [<!ENTITY big '");
	for (i = 0; i < 100 * 1024; i++)
		gen_add(&g, "x", 1);
	gen_str(&g, "'>]>" PROVIDER_OPEN "<maps><valueMap name='M'><map value='1' message='");
	for (i = 0; i < 20000; i++)
		gen_str(&g, "&big;");
	gen_str(&g, "'/></valueMap></maps>" PROVIDER_CLOSE "</instrumentationManifest>");
	t0 = test_cpu_seconds();
	st = etl_reader_add_manifest_memory(r, g.p, g.len, "entities");
	ck_assert_int_eq(st, ETL_E_FORMAT);
	ck_assert_double_lt(test_cpu_seconds() - t0, 1.0 * test_slowdown());
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "declares DTD entities"));
	free(g.p);
	etl_reader_free(r);
}
END_TEST

/* 30,000 map entries that each name the same 64 KB localized string (a 1.3 MB file that once took
 * 2 GB): the string is held once, so the manifest loads within its cost limit (8 times its size
 * plus 16 MiB), and every entry shows the text. */
START_TEST(shared_strings_load_within_the_limit)
{
	struct gen g = { 0 };
	struct etl_reader *r = etl_reader_new();
	char line[128];
	int i;

	gen_str(&g, PROVIDER_OPEN "<maps><valueMap name='M'>");
	for (i = 0; i < 30000; i++) {
		snprintf(line, sizeof(line), "<map value='%d' message='$(string.S)'/>", i);
		gen_str(&g, line);
	}
	gen_str(&g, "</valueMap></maps>" PROVIDER_CLOSE "<localization><resources culture='en-US'><stringTable>"
		    "<string id='S' value='");
	for (i = 0; i < 64 * 1024; i++)
		gen_add(&g, "y", 1);
	gen_str(&g, "'/></stringTable></resources></localization></instrumentationManifest>");
	ck_assert_int_eq(etl_reader_add_manifest_memory(r, g.p, g.len, "shared"), ETL_OK);
	ck_assert_uint_eq(etl_reader_manifest_warnings(r), 0);
	free(g.p);
	etl_reader_free(r);
}
END_TEST

/* What one manifest may cost is bounded: a document of empty elements (each costs its node, many
 * times its few bytes) is refused past the limit, with a limit status. */
START_TEST(manifest_cost_is_bounded)
{
	struct gen g = { 0 };
	struct etl_reader *r = etl_reader_new();
	int i, st;

	gen_str(&g, PROVIDER_OPEN "<maps>");
	for (i = 0; i < (3 << 20); i++)
		gen_str(&g, "<a/>");
	gen_str(&g, "</maps>" PROVIDER_CLOSE "</instrumentationManifest>");
	st = etl_reader_add_manifest_memory(r, g.p, g.len, "many-elements");
	ck_assert_int_eq(st, ETL_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "limit"));
	free(g.p);
	etl_reader_free(r);
}
END_TEST

/* Many templates and events (100,000 of each, 12 MB): templates are found by tid through an index
 * and grow geometrically, so the load takes well under a few seconds (a 66 MB manifest of 520,000
 * templates once took 18 s and 1.2 GB). */
START_TEST(many_templates_load_fast)
{
	struct gen g = { 0 };
	struct etl_reader *r = etl_reader_new();
	char line[256];
	double t0;
	int i;

	gen_str(&g, PROVIDER_OPEN "<templates>");
	for (i = 0; i < 100000; i++) {
		snprintf(line, sizeof(line), "<template tid='T%d'><data name='A' inType='win:UInt32'/>"
			 "<data name='B' inType='win:UnicodeString'/></template>", i);
		gen_str(&g, line);
	}
	gen_str(&g, "</templates><events>");
	for (i = 0; i < 100000; i++) {
		snprintf(line, sizeof(line), "<event value='%d' template='T%d'/>", i % 65536, 99999 - i);
		gen_str(&g, line);
	}
	gen_str(&g, "</events>" PROVIDER_CLOSE "</instrumentationManifest>");
	t0 = test_cpu_seconds();
	ck_assert_int_eq(etl_reader_add_manifest_memory(r, g.p, g.len, "templates"), ETL_OK);
	ck_assert_double_lt(test_cpu_seconds() - t0, 10.0 * test_slowdown()); /* (seconds in a normal build; the bound is for sanitizer builds) */
	ck_assert_uint_eq(etl_reader_manifest_warnings(r), 0);
	free(g.p);
	etl_reader_free(r);
}
END_TEST

/* A trace of `events` events of PROVIDER_OPEN's event 1, each with `values` 32-bit values
 * (value(i) each), read by r with the manifest xml (freed here) and opened. */
static uint8_t *open_mapped_trace(struct etl_reader *r, struct gen *xml, unsigned events, unsigned values,
				  uint32_t (*value)(unsigned))
{
	static const struct etl_guid g = { 0, 0, 0, { 0, 0, 0, 0, 0, 0, 0, 1 } }; /* PROVIDER_OPEN's */
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_event e;
	uint8_t *trace, *payload = malloc(4 * (size_t)values);
	size_t len;
	unsigned i;

	ck_assert_ptr_nonnull(payload);
	ck_assert_int_eq(etl_reader_add_manifest_memory(r, xml->p, xml->len, "bigmap"), ETL_OK);
	free(xml->p);
	etlw_default_opts(&o);
	o.ncpu = 1;
	o.buffer_size = 65536;
	w = etlw_new(&o);
	memset(&e, 0, sizeof(e));
	e.provider = g;
	e.id = 1;
	for (i = 0; i < values; i++)
		etlw_put32(payload + 4 * i, value(i));
	for (i = 0; i < events; i++) {
		e.ts = o.start_ts + 10 + i;
		ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, payload, 4 * values), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &trace, &len), 0);
	etlw_free(w);
	free(payload);
	ck_assert_int_eq(etl_reader_open_memory(r, trace, len, "mem"), ETL_OK);
	return trace;
}

/* The array A of r's next EVENT_HEADER event (decoded), with `values` elements; NULL at
 * the end. */
static const struct etl_property *next_mapped_array(struct etl_reader *r, unsigned values)
{
	const struct etl_event *ev;
	const struct etl_decoded *d;
	const struct etl_property *a;

	do {
		if (etl_reader_next(r, &ev) != ETL_OK)
			return NULL;
	} while (etl_event_header_kind(ev) != ETL_HEADER_EVENT);
	ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
	a = etl_decoded_property_by_name(d, "A");
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(etl_property_child_count(a), values);
	return a;
}

/* 0, 7 (named twice), ..., and some past the map */
static uint32_t value_map_value(unsigned i)
{
	return i == 1 ? 7 : i * 61u;
}

/* ROBUSTNESS.md: a value was looked up in its map entry by entry; a manifest's valueMap of
 * 200,000 entries and events of 4,000 mapped values each made every event take about a second.
 * Now by value in log time; the first entry of a value still wins. */
START_TEST(big_value_maps_are_searched_by_value)
{
	enum { ENTRIES = 200000, VALUES = 4000, EVENTS = 100 };
	struct gen x = { 0 };
	struct etl_reader *r = etl_reader_new();
	const struct etl_property *a;
	uint8_t *trace;
	char line[128];
	unsigned i, n = 0;
	double t0;

	gen_str(&x, PROVIDER_OPEN "<maps><valueMap name='M'>");
	for (i = 0; i < ENTRIES; i++) {
		snprintf(line, sizeof(line), "<map value='%u' message='v%u'/>", (i * 7919u) % ENTRIES, (i * 7919u) % ENTRIES);
		gen_str(&x, line);
	}
	gen_str(&x, "<map value='7' message='again'/></valueMap></maps><templates><template tid='T'>"
		    "<data name='A' inType='win:UInt32' map='M' count='4000'/></template></templates>"
		    "<events><event value='1' template='T'/></events>" PROVIDER_CLOSE "</instrumentationManifest>");
	trace = open_mapped_trace(r, &x, EVENTS, VALUES, value_map_value);
	t0 = test_cpu_seconds();
	while ((a = next_mapped_array(r, VALUES)) != NULL) {
		for (i = 0; i < VALUES; i++) {
			const char *t = etl_property_format(etl_property_child_at(a, i));
			uint32_t v = value_map_value(i);
			if (v < ENTRIES)
				snprintf(line, sizeof(line), "v%u", v); /* the first of value 7, not "again" */
			else
				snprintf(line, sizeof(line), "%u", v);
			ck_assert_str_eq(t, line);
		}
		n++;
	}
	ck_assert_uint_eq(n, EVENTS);
	ck_assert_double_lt(test_cpu_seconds() - t0, 5.0 * test_slowdown()); /* about 0.2 s here */
	etl_reader_free(r);
	free(trace);
}
END_TEST

static const uint32_t bit_map_values[6] = { 3, 0, 2, 0x80000001u, 7, 0x10 };

static uint32_t bit_map_value(unsigned i)
{
	return bit_map_values[i % 6];
}

/* ROBUSTNESS.md: a bit map's text walked every entry for every value: a bitMap of 200,000 entries
 * and events of 4,000 values each took minutes.  A bit map now keeps the entries that can ever
 * name a bit (not value 0, not a later duplicate: the same text as before), at most
 * ETL_BITMAP_MAX, and the walk stops when no bit is left to name. */
START_TEST(big_bit_maps_cost_a_bounded_walk)
{
	enum { ENTRIES = 200000, VALUES = 4000, EVENTS = 100 };
	static const char *const texts[6] = { "a, b", "0x0", "b", "a, 0x80000000", "a, b, 0x4", "0x10" };
	struct gen x = { 0 };
	struct etl_reader *r = etl_reader_new();
	const struct etl_property *a;
	uint8_t *trace;
	char line[128];
	unsigned i, n = 0;
	double t0;

	/* the first of value 1 names it, value 0 names nothing; then entries that never match these
	 * values (bit 31 and a bit above 7), and a name for 4 past the bound */
	gen_str(&x, PROVIDER_OPEN "<maps><bitMap name='B'><map value='0' message='zero'/><map value='1' message='a'/>"
		    "<map value='0x1' message='again'/><map value='2' message='b'/>");
	for (i = 0; i < ENTRIES; i++) {
		snprintf(line, sizeof(line), "<map value='0x%x' message='j%u'/>", 0x80000000u | (i + 1) << 8, i);
		gen_str(&x, line);
	}
	gen_str(&x, "<map value='4' message='c'/></bitMap></maps><templates><template tid='T'>"
		    "<data name='A' inType='win:UInt32' map='B' count='4000'/></template></templates>"
		    "<events><event value='1' template='T'/></events>" PROVIDER_CLOSE "</instrumentationManifest>");
	trace = open_mapped_trace(r, &x, EVENTS, VALUES, bit_map_value);
	t0 = test_cpu_seconds();
	while ((a = next_mapped_array(r, VALUES)) != NULL) {
		for (i = 0; i < VALUES; i++)
			ck_assert_str_eq(etl_property_format(etl_property_child_at(a, i)), texts[i % 6]);
		n++;
	}
	ck_assert_uint_eq(n, EVENTS);
	ck_assert_double_lt(test_cpu_seconds() - t0, 5.0 * test_slowdown());
	etl_reader_free(r);
	free(trace);
}
END_TEST

/* ---- corpus ---- */

/* How count_decoders reads: the corpus manifests given (the built-in ones after them), nothing
 * given and the built-in descriptions on, or nothing at all. */
enum { GIVEN = 1, BUILTIN = 2, NOTHING = 0 };

/* Events decoded by a manifest (given, or with BUILTIN the built-in ones), an EventSource
 * manifest, none, and decoding errors. */
static void count_decoders(const char *file, int with_manifests, unsigned *from_manifest,
			   unsigned *eventsource, unsigned *none, unsigned *errors)
{
	char path[4096];
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;

	*from_manifest = *eventsource = *none = *errors = 0;
	if (with_manifests == NOTHING)
		ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_BUILTIN_MANIFESTS, 0), ETL_OK);
	if (with_manifests == GIVEN) {
		snprintf(path, sizeof(path), "%s/manifests", corpus_dir);
		ck_assert_int_eq(etl_reader_add_manifest_path(r, path), ETL_OK);
		ck_assert_uint_eq(etl_reader_manifest_warnings(r), 0);
	}
	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, file);
	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		if (etl_reader_decode(r, ev, &d) != ETL_OK)
			(*errors)++;
		switch (etl_decoded_source(d)) {
		case ETL_DECODER_MANIFEST:
			ck_assert_int_eq(with_manifests, GIVEN);
			(*from_manifest)++;
			ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
			break;
		case ETL_DECODER_BUILTIN_MANIFEST:
			ck_assert_int_ne(with_manifests, NOTHING);
			*from_manifest += with_manifests == BUILTIN;
			ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
			break;
		case ETL_DECODER_EVENTSOURCE:
			(*eventsource)++;
			break;
		case ETL_DECODER_NONE:
			(*none)++;
			ck_assert_ptr_nonnull(etl_decoded_reason(d));
			break;
		default:
			break;
		}
	}
	etl_reader_free(r);
}

START_TEST(corpus_manifest_traces_fully_decoded)
{
	static const struct { const char *file; unsigned events; } t[] = {
		{ "Tx_HTTP_Server.etl", 2041 },
		{ "Tx_CrossMachineHTTP.etl", 3396 },
		{ "Tx_Process.etl", 10343 },
	};
	unsigned m, es, none, err;

	count_decoders(t[_i].file, GIVEN, &m, &es, &none, &err);
	ck_assert_uint_eq(m, t[_i].events);
	ck_assert_uint_eq(none, 0);
	ck_assert_uint_eq(err, 0);
	/* the same with no manifest given: the built-in descriptions (made from these manifests) */
	count_decoders(t[_i].file, BUILTIN, &m, &es, &none, &err);
	ck_assert_uint_eq(m, t[_i].events);
	ck_assert_uint_eq(none, 0);
	ck_assert_uint_eq(err, 0);
}
END_TEST

START_TEST(corpus_without_manifest_is_raw_never_an_error)
{
	unsigned m, es, none, err;

	count_decoders("krabsetw_powershell.etl", GIVEN, &m, &es, &none, &err);
	ck_assert_uint_eq(none, 112);
	ck_assert_uint_eq(err, 0);
	count_decoders("Tx_HTTP_Server.etl", NOTHING, &m, &es, &none, &err);
	ck_assert_uint_eq(none, 2041);
	ck_assert_uint_eq(err, 0);
}
END_TEST

START_TEST(corpus_eventsource_manifests_in_the_trace)
{
	unsigned m, es, none, err;

	/* 12 events: the manifest event itself (its chunk header built in: not raw) and 11 decoded
	 * with it */
	count_decoders("Tx_BondEtwSample.etl", NOTHING, &m, &es, &none, &err);
	ck_assert_uint_eq(es, 11);
	ck_assert_uint_eq(none, 0);
	ck_assert_uint_eq(err, 0);
}
END_TEST

/* The manifest with its provider named otherwise and event 1 gone: a second document of the GUID. */
static char *manifest_v2(void)
{
	char *m = strdup(manifest), *at;

	ck_assert_ptr_nonnull(m);
	at = strstr(m, "name='Test-Provider'");
	ck_assert_ptr_nonnull(at);
	memcpy(at, "name='Test-Providr2'", 20);
	at = strstr(m, "<event value='1'");
	ck_assert_ptr_nonnull(at);
	memcpy(at, "<event value='9'", 16);
	return m;
}

START_TEST(documents_parsed_once_for_every_reader)
{
	static const struct etl_guid g = { 0x11223344, 0x5566, 0x7788, { 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00 } };
	struct etl_mdoc_cache *c = etl__mdoc_cache_new();
	struct etl_manifest_db *a = etl__manifest_db_new_replacing(), *b = etl__manifest_db_new_replacing(),
			       *own = etl__manifest_db_new_replacing();
	const struct etl_mevent *ea, *eb, *eo;
	char *v2 = manifest_v2();
	struct etl_diag d;
	unsigned w = 0;
	size_t i;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(etl__mdoc_cache_load(c, a, (const uint8_t *)manifest, strlen(manifest), "es", &w, &d), ETL_OK);
	ck_assert_int_eq(etl__mdoc_cache_load(c, b, (const uint8_t *)manifest, strlen(manifest), "es", &w, &d), ETL_OK);
	ck_assert_int_eq(etl__manifest_db_load_memory(own, (const uint8_t *)manifest, strlen(manifest), "es", &w, &d),
			 ETL_OK);
	ck_assert_uint_eq(w, 0);
	ea = etl__manifest_db_find(a, &g, 1, 0);
	eb = etl__manifest_db_find(b, &g, 1, 0);
	eo = etl__manifest_db_find(own, &g, 1, 0);
	ck_assert_ptr_nonnull(ea);
	ck_assert_ptr_eq(ea, eb); /* parsed once: the same provider in both */
	ck_assert_ptr_ne(ea, eo);
	ck_assert_uint_eq(ea->schema->nfields, eo->schema->nfields);
	ck_assert_str_eq(etl__manifest_provider_name(ea->provider), "Test-Provider");
	/* the same document again into a: itself, unchanged */
	ck_assert_int_eq(etl__mdoc_cache_load(c, a, (const uint8_t *)manifest, strlen(manifest), "es", &w, &d), ETL_OK);
	ck_assert_ptr_eq(etl__manifest_db_find(a, &g, 1, 0), ea);
	/* another document of the GUID replaces it in a only, the cached one staying for b */
	ck_assert_int_eq(etl__mdoc_cache_load(c, a, (const uint8_t *)v2, strlen(v2), "es", &w, &d), ETL_OK);
	ck_assert_ptr_null(etl__manifest_db_find(a, &g, 1, 0));
	ck_assert_ptr_nonnull(etl__manifest_db_find(a, &g, 9, 0));
	ck_assert_str_eq(etl__manifest_provider_name(etl__manifest_db_find(a, &g, 9, 0)->provider), "Test-Providr2");
	etl__manifest_db_free(a); /* borrowed: b still reads them */
	ck_assert_ptr_eq(etl__manifest_db_find(b, &g, 1, 0), eb);
	ck_assert_str_eq(etl__manifest_provider_name(eb->provider), "Test-Provider");
	ck_assert_int_eq(eb->schema->nfields, eo->schema->nfields);
	/* a document the cache cannot keep (past its count) is loaded by the database itself */
	for (i = 0; i < 300; i++) {
		char doc[400];
		struct etl_guid gi = g;
		gi.data1 = (uint32_t)i;
		snprintf(doc, sizeof(doc),
			 "<instrumentationManifest><instrumentation><events><provider name='P%zu'"
			 " guid='{%08X-5566-7788-99AA-BBCCDDEEFF00}'><events><event value='4'/></events></provider>"
			 "</events></instrumentation></instrumentationManifest>", i, (unsigned)i);
		ck_assert_int_eq(etl__mdoc_cache_load(c, b, (const uint8_t *)doc, strlen(doc), "es", &w, &d), ETL_OK);
		ck_assert_ptr_nonnull(etl__manifest_db_find(b, &gi, 4, 0));
	}
	ck_assert_ptr_eq(etl__manifest_db_find(b, &g, 1, 0), eb);
	etl__manifest_db_free(b);
	etl__manifest_db_free(own);
	etl__mdoc_cache_free(c);
	free(v2);
}
END_TEST

START_TEST(cached_documents_fail_as_parsed_ones)
{
	static const char *const docs[] = {
		"not xml at all",
		"<root/>",
		"<instrumentationManifest><instrumentation><events><provider name='P'"
		" guid='{00000000-0000-0000-0000-000000000001}'><events><event value='1' template='Nope'/>"
		"</events></provider></events></instrumentation></instrumentationManifest>",
	};
	struct etl_mdoc_cache *c = etl__mdoc_cache_new();
	size_t i, k;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct etl_manifest_db *own = etl__manifest_db_new_replacing();
		struct etl_diag d0;
		unsigned w0 = 0;
		int st0;

		memset(&d0, 0, sizeof(d0));
		st0 = etl__manifest_db_load_memory(own, (const uint8_t *)docs[i], strlen(docs[i]), "es", &w0, &d0);
		for (k = 0; k < 2; k++) { /* parsed, then found */
			struct etl_manifest_db *db = etl__manifest_db_new_replacing();
			struct etl_diag d;
			unsigned w = 0;
			memset(&d, 0, sizeof(d));
			ck_assert_int_eq(etl__mdoc_cache_load(c, db, (const uint8_t *)docs[i], strlen(docs[i]), "es", &w, &d), st0);
			ck_assert_uint_eq(w, w0);
			ck_assert_int_eq(d.code, d0.code);
			ck_assert_str_eq(d.msg, d0.msg);
			etl__manifest_db_free(db);
		}
		ck_assert_int_ne(d0.code, 0);
		etl__manifest_db_free(own);
	}
	etl__mdoc_cache_free(c);
}
END_TEST

struct cache_worker {
	struct etl_mdoc_cache *c;
	unsigned id, found;
};

/* Loads a document common to every worker and 80 of its own through the cache, the shared one
 * between each, and counts the events its database then finds. */
static void *cache_worker_main(void *arg)
{
	struct cache_worker *cw = arg;
	struct etl_manifest_db *db = etl__manifest_db_new_replacing();
	unsigned i;

	for (i = 0; i < 80; i++) {
		char doc[400];
		struct etl_diag d;
		unsigned w = 0;
		struct etl_guid g = { cw->id << 16 | i, 0x5566, 0x7788, { 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x01 } };
		snprintf(doc, sizeof(doc),
			 "<instrumentationManifest><instrumentation><events><provider name='W%u'"
			 " guid='{%08X-5566-7788-99AA-BBCCDDEEFF01}'><events><event value='4'/></events></provider>"
			 "</events></instrumentation></instrumentationManifest>", i, (unsigned)g.data1);
		if (etl__mdoc_cache_load(cw->c, db, (const uint8_t *)doc, strlen(doc), "es", &w, &d) == ETL_OK &&
		    etl__mdoc_cache_load(cw->c, db, (const uint8_t *)manifest, strlen(manifest), "es", &w, &d) == ETL_OK &&
		    etl__manifest_db_find(db, &g, 4, 0))
			cw->found++;
	}
	etl__manifest_db_free(db);
	return NULL;
}

/* Four threads load through one cache at once: each document is kept once (the cache's array
 * grows under the others), and every database finds what it loaded. */
START_TEST(document_cache_shared_by_threads)
{
	struct etl_mdoc_cache *c = etl__mdoc_cache_new();
	struct cache_worker cw[4];
	pthread_t t[4];
	unsigned i;

	for (i = 0; i < 4; i++) {
		cw[i].c = c;
		cw[i].id = i + 1;
		cw[i].found = 0;
		ck_assert_int_eq(pthread_create(&t[i], NULL, cache_worker_main, &cw[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ck_assert_uint_eq(cw[i].found, 80);
	}
	etl__mdoc_cache_free(c);
}
END_TEST

/* The first property's name of the first event decoded from an EventSource manifest. */
static const char *first_eventsource_name(struct etl_reader *r)
{
	const struct etl_event *ev;
	const char *name = NULL;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		if (etl_reader_decode(r, ev, &d) == ETL_OK && etl_decoded_source(d) == ETL_DECODER_EVENTSOURCE &&
		    etl_decoded_property_count(d) > 0 && !name)
			name = etl_property_name(etl_decoded_property_at(d, 0));
	}
	return name;
}

START_TEST(corpus_eventsource_manifest_shared_by_readers_of_an_input)
{
	char path[4096];
	struct etl_reader *a = etl_reader_new(), *b = etl_reader_new(), *c = etl_reader_new();
	const char *na, *nb, *nc;

	snprintf(path, sizeof(path), "%s/etl/Tx_BondEtwSample.etl", corpus_dir);
	ck_assert_int_eq(etl_reader_open_path(a, path), ETL_OK);
	ck_assert_int_eq(etl_reader_open_same(b, a, 0), ETL_OK);
	ck_assert_int_eq(etl_reader_open_path(c, path), ETL_OK);
	na = first_eventsource_name(a);
	nb = first_eventsource_name(b);
	nc = first_eventsource_name(c);
	ck_assert_ptr_nonnull(na);
	ck_assert_str_eq(na, nc);
	ck_assert_ptr_eq(na, nb); /* b borrowed what a parsed */
	ck_assert_ptr_ne(na, nc); /* c, another input, parsed its own */
	ck_assert_uint_eq(etl__mdoc_cache_count(a->traces[0]->mdocs), 1);
	ck_assert_uint_eq(etl__mdoc_cache_count(c->traces[0]->mdocs), 0); /* alone: no copy kept */
	etl_reader_free(b);
	etl_reader_free(c);
	etl_reader_free(a);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("manifest");
	TCase *t = tcase_create("manifest");
	TCase *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_test(t, manifest_every_feature);
	tcase_add_test(t, manifest_utf16_and_directory);
	tcase_add_test(t, manifest_folder_parsed_on_demand);
	tcase_add_test(t, long_event_names_cut_at_511_bytes);
	tcase_add_test(t, manifest_set_shared_by_readers);
	tcase_add_test(t, malformed_manifests);
	tcase_add_test(t, hostile_manifest_entities_are_not_read);
	tcase_add_test(t, hostile_entity_amplification_is_refused);
	tcase_add_test(t, shared_strings_load_within_the_limit);
	tcase_add_test(t, manifest_cost_is_bounded);
	tcase_add_test(t, many_templates_load_fast);
	tcase_add_test(t, big_value_maps_are_searched_by_value);
	tcase_add_test(t, big_bit_maps_cost_a_bounded_walk);
	tcase_add_test(t, documents_parsed_once_for_every_reader);
	tcase_add_test(t, cached_documents_fail_as_parsed_ones);
	tcase_add_test(t, document_cache_shared_by_threads);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/etl/Tx_Process.etl", corpus_dir);
	tcase_add_loop_test(c, corpus_manifest_traces_fully_decoded, 0, 3);
	tcase_add_test(c, corpus_without_manifest_is_raw_never_an_error);
	tcase_add_test(c, corpus_eventsource_manifests_in_the_trace);
	tcase_add_test(c, corpus_eventsource_manifest_shared_by_readers_of_an_input);
	tcase_set_timeout(c, 300);
	return run_part(s, c, probe);
}
