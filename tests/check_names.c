/*
 * check_names.c - one description per event whatever describes it (issue 32):
 * several manifests of one provider, each filling in what the others lack,
 * with conflicting definitions reported; a stack array that says its own
 * length (ClrStack/Walk's FrameCount); one name per provider and task in a
 * trace, EventSource manifest chunks named before the manifest is whole.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etlw.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";
static const struct etl_guid prov = { 0x5a5a0001, 0x1111, 0x2222, { 0x33, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x66 } };

#define HEAD "<instrumentationManifest xmlns='http://schemas.microsoft.com/win/2004/08/events'><instrumentation>" \
	     "<events><provider name='Split-Provider' guid='{5a5a0001-1111-2222-3333-444455556666}'>"
#define TAIL "</provider></events></instrumentation></instrumentationManifest>"

/* Two manifests of one provider: A describes events 1 and 2, B describes 2 (otherwise) and 3. */
static const char man_a[] = HEAD
	"<templates><template tid='TA1'><data name='A' inType='win:UInt32'/></template>"
	"<template tid='TA2'><data name='S' inType='win:UnicodeString'/></template></templates>"
	"<events><event value='1' template='TA1'/><event value='2' template='TA2'/></events>" TAIL;
static const char man_b[] = HEAD
	"<templates><template tid='TB2'><data name='B' inType='win:UInt32'/></template>"
	"<template tid='TB3'><data name='C' inType='win:UInt64'/></template>"
	"<template tid='TB4'><data name='FrameCount' inType='win:UInt32'/>"
	"<data name='Stack' inType='win:Pointer' count='2'/></template></templates>"
	"<events><event value='2' template='TB2'/><event value='3' template='TB3'/>"
	"<event value='82' template='TB4'/></events>" TAIL;

static void event(struct etlw *w, const struct etlw_opts *o, uint16_t id, uint8_t opcode, uint64_t at,
		  const void *payload, size_t len)
{
	struct etlw_event e;

	memset(&e, 0, sizeof(e));
	e.provider = prov;
	e.id = id;
	e.opcode = opcode;
	e.pid = 100;
	e.tid = 200;
	e.ts = o->start_ts + at;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, payload, len), 0);
}

/* Events 1, 2 and 3 of the split provider, and a ClrStack-like event 82 with 5 frames. */
static uint8_t *split_trace(size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *out, p[64];
	unsigned i;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	etlw_put32(p, 7);
	event(w, &o, 1, 0, 10, p, 4);
	etlw_put32(p, 9);
	event(w, &o, 2, 0, 20, p, 4);
	etlw_put64(p, 11);
	event(w, &o, 3, 0, 30, p, 8);
	etlw_put32(p, 5);
	for (i = 0; i < 5; i++)
		etlw_put64(p + 4 + 8 * i, 0x7ff800001000ull + i);
	event(w, &o, 82, 0, 40, p, 44);
	ck_assert_int_eq(etlw_finish(w, &out, len), 0);
	etlw_free(w);
	return out;
}

/* Decodes the split trace with the reader's manifests: every event, event 2 as B says. */
static void check_split(struct etl_reader *r, const uint8_t *t, size_t len)
{
	static const char *const field[] = { "A", "B", "C", "Stack" };
	const struct etl_event *ev;
	const struct etl_decoded *d;
	unsigned n = 0;

	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "split"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_property *p;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_msg(etl_decoded_status(d) == ETL_DECODE_COMPLETE, "event %u: %s", etl_event_id(ev),
			      etl_decoded_reason(d) ? etl_decoded_reason(d) : "?");
		ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_MANIFEST);
		ck_assert_ptr_nonnull(p = etl_decoded_property_by_name(d, field[n]));
		if (n == 3) { /* FrameCount frames, not the manifest's 2 */
			ck_assert_uint_eq(etl_property_child_count(p), 5);
			ck_assert_str_eq(etl_property_format(etl_property_child_at(p, 4)), "0x7ff800001004");
			ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
		}
		n++;
	}
	ck_assert_uint_eq(n, 4);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Every manifest that declares a provider is asked for its events, files given one by one and
 * the files of a folder alike; a definition that differs from another manifest's is reported
 * (the newest one is used). */
START_TEST(several_manifests_of_one_provider)
{
	char dir[] = "/tmp/check_names_XXXXXX", a[600], b[600];
	size_t len;
	uint8_t *t = split_trace(&len);
	struct etl_reader *r;
	int form;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	put_file(dir, "a.man", man_a);
	put_file(dir, "b.man", man_b);
	snprintf(a, sizeof(a), "%s/a.man", dir);
	snprintf(b, sizeof(b), "%s/b.man", dir);
	for (form = 0; form < 3; form++) {
		r = etl_reader_new();
		if (form == 0) {
			ck_assert_int_eq(etl_reader_add_manifest_memory(r, man_a, strlen(man_a), "a"), ETL_OK);
			ck_assert_int_eq(etl_reader_add_manifest_memory(r, man_b, strlen(man_b), "b"), ETL_OK);
		} else if (form == 1) {
			ck_assert_int_eq(etl_reader_add_manifest_path(r, a), ETL_OK);
			ck_assert_int_eq(etl_reader_add_manifest_path(r, b), ETL_OK);
		} else {
			ck_assert_int_eq(etl_reader_add_manifest_path(r, dir), ETL_OK);
		}
		check_split(r, t, len);
		/* event 2 of A and of B differ: said once */
		ck_assert_uint_eq(etl_reader_manifest_warnings(r), 1);
		if (form < 2)
			ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "defined otherwise"));
		etl_reader_free(r);
	}
	unlink(a);
	unlink(b);
	rmdir(dir);
	free(t);
}
END_TEST

/* An EventSource manifest in two chunks: the chunks, and an event of the provider before its
 * manifest is whole, take the name the first chunk gives it. */
START_TEST(eventsource_chunks_named_before_the_manifest_is_whole)
{
	static const char xml[] = "<instrumentationManifest><instrumentation><events>"
				  "<provider name='My-Source' guid='{5a5a0001-1111-2222-3333-444455556666}'>"
				  "<events></events></provider></events></instrumentation></instrumentationManifest>";
	size_t half = 130, len, n = 0; /* (the first chunk holds the provider tag, as real ones do) */
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *out, p[512];
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned k;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	for (k = 0; k < 2; k++) {
		size_t from = k ? half : 0, to = k ? sizeof(xml) - 1 : half;
		p[0] = 1, p[1] = 1, p[2] = 0, p[3] = 0x5B;
		etlw_put16(p + 4, 2);
		etlw_put16(p + 6, (uint16_t)k);
		memcpy(p + 8, xml + from, to - from);
		event(w, &o, 0xFFFE, 0xFE, 10 + 10 * k, p, 8 + to - from);
		if (!k)
			event(w, &o, 5, 0, 15, "\x01\x00", 2); /* between the chunks */
	}
	ck_assert_int_eq(etlw_finish(w, &out, &len), 0);
	etlw_free(w);
	ck_assert_int_eq(etl_reader_open_memory(r, out, len, "es"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_str_eq(etl_decoded_provider_name(d), "My-Source");
		ck_assert_str_eq(etl_decoded_name(d), n == 1 ? "My-Source/EventID(5)" : "My-Source/ManifestData");
		n++;
	}
	ck_assert_uint_eq(n, 3);
	etl_reader_free(r);
	free(out);
}
END_TEST

/* A trace's events of one provider and task have one name: the manifest's task names by task id
 * for events the manifest lacks too (DynamicEvents: GCMarkWithType, GCDynamicEvent, ...), and
 * without a manifest the trace's own provider name for events its metadata does not describe.
 * The names are the same with the CLR manifest given and without it (the built-in description
 * names them); only with neither do the trace's own metadata names show. */
START_TEST(corpus_one_name_per_task)
{
	char path[1024], man[1024];
	int with;

	snprintf(path, sizeof(path), "%s/etl/dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl", corpus_dir);
	snprintf(man, sizeof(man), "%s/manifests", corpus_dir);
	if (access(path, R_OK) != 0 || access(man, R_OK) != 0)
		return;
	for (with = 0; with < 3; with++) { /* built-in only, given, neither */
		struct etl_reader *r = etl_reader_new();
		const struct etl_event *ev;
		unsigned gc = 0;
		if (with == 1)
			ck_assert_int_eq(etl_reader_add_manifest_path(r, man), ETL_OK);
		if (with == 2)
			ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_BUILTIN_MANIFESTS, 0), ETL_OK);
		ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
		while (etl_reader_next(r, &ev) == ETL_OK) {
			const struct etl_decoded *d;
			const char *nm;
			(void)etl_reader_decode(r, ev, &d);
			nm = etl_decoded_name(d);
			ck_assert_msg(strncmp(nm, "{e13c0d23", 9) != 0, "%s", nm);
			if (etl_event_header_kind(ev) == ETL_HEADER_EVENT && etl_event_task(ev) == 1 &&
			    strncmp(nm, "Microsoft-Windows-DotNETRuntime/", 32) == 0 && etl_decoded_task_name(d)) {
				ck_assert_str_eq(etl_decoded_task_name(d), with < 2 ? "GC" : "GarbageCollection");
				gc++;
			}
		}
		ck_assert_uint_gt(gc, 20000);
		etl_reader_free(r);
	}
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("names");
	TCase *t = tcase_create("names"), *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_set_timeout(t, 120);
	tcase_add_test(t, several_manifests_of_one_provider);
	tcase_add_test(t, eventsource_chunks_named_before_the_manifest_is_whole);
	tcase_set_timeout(c, 120);
	tcase_add_test(c, corpus_one_name_per_task);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/manifests", corpus_dir);
	return run_part(s, c, probe);
}
