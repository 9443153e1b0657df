/*
 * check_builtin.c - the provider descriptions built into the library
 * (manifest/builtin.h): the table, each description against the manifest it
 * was made from, and which source decodes an event when several describe it:
 *
 *   1. a manifest given to the reader;
 *   2. an EventSource manifest logged in the trace;
 *   3. the trace's merge-time metadata for the exact id and version (unless
 *      it describes a non-empty payload as empty);
 *   4. the built-in descriptions;
 *   5. the nearest older version in a given or built-in manifest.
 *
 * Names come from a given or built-in manifest whichever decodes the payload.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etlw.h"
#include "manifest/builtin.h"
#include "manifest/mxml.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

/* Microsoft-Windows-Kernel-Process, built in (Tx SystemEvents.man) */
static const struct etl_guid kproc = { 0x22fb2cd6, 0x0e7b, 0x422b,
				       { 0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16 } };
static const struct etl_guid metadata_class = { 0xbbccf6c1, 0x6cd1, 0x48c4,
						{ 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 } };

/* A manifest of our own for the same GUID, and an EventSource one: each names it otherwise. */
#define MAN(name) "<instrumentationManifest><instrumentation><events>" \
	"<provider name='" name "' guid='{22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716}'>" \
	"<templates><template tid='T'><data name='" name "Field' inType='win:UInt32'/></template></templates>" \
	"<events><event value='1' version='0' template='T'/></events></provider>" \
	"</events></instrumentation></instrumentationManifest>"
static const char given_xml[] = MAN("Given");
static const char es_xml[] = MAN("FromEventSource");

/* What a trace holds besides event 1 version 0 of Kernel-Process (ProcessStart_V0). */
enum { WITH_ES = 1, WITH_TEI = 2, WITH_EMPTY_TEI = 4, NEWER = 8 };

static void put_utf16(uint8_t *p, const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		etlw_put16(p + 2 * i, (uint8_t)s[i]);
	etlw_put16(p + 2 * i, 0);
}

/* A TRACE_EVENT_INFO of event 1 version 0 of Kernel-Process: one UInt32 "FromTrace", or none. */
static size_t tei(uint8_t *p, int empty)
{
	memset(p, 0, 200);
	etlw_put_guid(p, &kproc);
	etlw_put16(p + 32, 1); /* Id; Version 0 */
	etlw_put32(p + 52, 136); /* ProviderNameOffset */
	put_utf16(p + 136, "TraceName");
	if (empty)
		return 136 + 20;
	etlw_put32(p + 100, 1); /* PropertyCount */
	etlw_put32(p + 104, 1); /* TopLevelPropertyCount */
	etlw_put32(p + 112 + 4, 156); /* the property's NameOffset */
	etlw_put16(p + 112 + 8, 8);   /* InType UInt32 */
	put_utf16(p + 156, "FromTrace");
	return 156 + 20;
}

static uint8_t *trace_of(int what, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_event e;
	uint8_t *out, p[512];
	size_t n;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	if (what & (WITH_TEI | WITH_EMPTY_TEI)) {
		struct etlw_classic c;
		memset(&c, 0, sizeof(c));
		c.guid = metadata_class;
		c.type = 32; /* EventInfo */
		c.ts = o.start_ts + 5;
		n = tei(p, what & WITH_EMPTY_TEI);
		ck_assert_int_eq(etlw_classic(w, 0, &c, p, n), 0);
	}
	memset(&e, 0, sizeof(e));
	e.provider = kproc;
	e.pid = 100;
	e.tid = 200;
	if (what & WITH_ES) {
		p[0] = 1, p[1] = 1, p[2] = 0, p[3] = 0x5B;
		etlw_put16(p + 4, 1);
		etlw_put16(p + 6, 0);
		memcpy(p + 8, es_xml, sizeof(es_xml) - 1);
		e.id = 0xFFFE;
		e.opcode = 0xFE;
		e.ts = o.start_ts + 7;
		ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, p, 8 + sizeof(es_xml) - 1), 0);
	}
	/* ProcessStart_V0: ProcessID, CreateTime, ParentProcessID, SessionID, ImageName */
	memset(p, 0, sizeof(p));
	etlw_put32(p, 1234);
	etlw_put64(p + 4, 0x01d0000000000000ull);
	etlw_put32(p + 12, 4);
	etlw_put32(p + 16, 1);
	put_utf16(p + 20, "a.exe");
	n = 20 + 12;
	if (what & NEWER) { /* version 1 adds Flags before ImageName; 9 is newer than both */
		memmove(p + 24, p + 20, 12);
		etlw_put32(p + 20, 0);
		n += 4 + 2; /* and two bytes a version 9 would add */
	}
	e.id = 1;
	e.version = what & NEWER ? 9 : 0;
	e.opcode = 1;
	e.task = 1;
	e.ts = o.start_ts + 10;
	ck_assert_int_eq(etlw_event(w, 0, &e, NULL, 0, p, n), 0);
	ck_assert_int_eq(etlw_finish(w, &out, len), 0);
	etlw_free(w);
	return out;
}

/* How event 1 of Kernel-Process is decoded: its decoder, name and first field's name. */
struct seen {
	enum etl_decoder source;
	char name[128], field[64];
	int described;
	size_t trailing;
};

static void decode_it(int what, const char *given, int builtin, struct seen *s)
{
	size_t len;
	uint8_t *t = trace_of(what, &len);
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int found = 0;

	if (given)
		ck_assert_int_eq(etl_reader_add_manifest_memory(r, given, strlen(given), "given.man"), ETL_OK);
	if (!builtin)
		ck_assert_int_eq(etl_reader_set_option(r, ETL_OPTION_BUILTIN_MANIFESTS, 0), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, t, len, "t"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		const struct etl_property *p;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT || etl_event_id(ev) != 1)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		s->source = etl_decoded_source(d);
		snprintf(s->name, sizeof(s->name), "%s", etl_decoded_name(d));
		p = etl_decoded_property_at(d, 0);
		snprintf(s->field, sizeof(s->field), "%s", p ? etl_property_name(p) : "");
		s->described = etl_decoded_described_version(d);
		s->trailing = etl_decoded_trailing_bytes(d);
		found++;
	}
	ck_assert_int_eq(found, 1);
	etl_reader_free(r);
	free(t);
}

START_TEST(builtin_alone_decodes)
{
	struct seen s;

	decode_it(0, NULL, 1, &s);
	ck_assert_int_eq(s.source, ETL_DECODER_BUILTIN_MANIFEST);
	ck_assert_str_eq(s.name, "Microsoft-Windows-Kernel-Process/ProcessStart/Start");
	ck_assert_str_eq(s.field, "ProcessID");
	ck_assert_int_eq(s.described, -1);
	ck_assert_uint_eq(s.trailing, 0);
	decode_it(0, NULL, 0, &s); /* turned off: raw */
	ck_assert_int_eq(s.source, ETL_DECODER_NONE);
}
END_TEST

START_TEST(given_manifest_wins_over_everything)
{
	struct seen s;

	decode_it(WITH_ES | WITH_TEI, given_xml, 1, &s);
	ck_assert_int_eq(s.source, ETL_DECODER_MANIFEST);
	ck_assert_str_eq(s.field, "GivenField");
	ck_assert_str_eq(s.name, "Given/EventID(1)"); /* the given one names it too */
}
END_TEST

START_TEST(eventsource_manifest_wins_over_metadata_and_builtin)
{
	struct seen s;

	decode_it(WITH_ES | WITH_TEI, NULL, 1, &s);
	ck_assert_int_eq(s.source, ETL_DECODER_EVENTSOURCE);
	ck_assert_str_eq(s.field, "FromEventSourceField");
}
END_TEST

/* The trace's own layout for the exact id and version decodes the payload; the built-in
 * description still names the event, as it does without the metadata. */
START_TEST(trace_metadata_wins_over_builtin)
{
	struct seen s;

	decode_it(WITH_TEI, NULL, 1, &s);
	ck_assert_int_eq(s.source, ETL_DECODER_TRACE_METADATA);
	ck_assert_str_eq(s.field, "FromTrace");
	ck_assert_str_eq(s.name, "Microsoft-Windows-Kernel-Process/ProcessStart/Start");
	decode_it(WITH_TEI, NULL, 0, &s); /* without the built-ins, the trace's own names */
	ck_assert_int_eq(s.source, ETL_DECODER_TRACE_METADATA);
	ck_assert_str_eq(s.name, "TraceName/EventID(1)");
	/* metadata that describes the payload as empty is no layout: the built-in one decodes */
	decode_it(WITH_EMPTY_TEI, NULL, 1, &s);
	ck_assert_int_eq(s.source, ETL_DECODER_BUILTIN_MANIFEST);
	ck_assert_str_eq(s.field, "ProcessID");
}
END_TEST

/* A version newer than every description: the nearest older template reads its start, the
 * rest is trailing, and the event says which version decoded it. */
START_TEST(newer_version_decoded_with_the_nearest_older)
{
	struct seen s;

	decode_it(NEWER, NULL, 1, &s);
	ck_assert_int_eq(s.source, ETL_DECODER_BUILTIN_MANIFEST);
	ck_assert_int_eq(s.described, 1);
	ck_assert_uint_eq(s.trailing, 2);
	ck_assert_str_eq(s.name, "Microsoft-Windows-Kernel-Process/ProcessStart/Start");
	decode_it(NEWER, NULL, 0, &s);
	ck_assert_int_eq(s.source, ETL_DECODER_NONE);
}
END_TEST

/* The table: GUIDs in order, and every description inflates and parses with the name, event
 * count and no warning the table says. */
START_TEST(table_parses_whole)
{
	size_t i;

	ck_assert_uint_gt(etl__builtin_provider_count, 40);
	for (i = 0; i < etl__builtin_provider_count; i++) {
		const struct etl_builtin_provider *e = &etl__builtin_providers[i];
		const struct etl_manifest_db *db;
		const char *why = NULL;
		long first = etl__builtin_first(&e->guid);
		ck_assert_int_ge(first, 0);
		ck_assert_int_le(first, (long)i);
		ck_assert_ptr_nonnull(db = etl__builtin_db(first, &why));
		ck_assert_ptr_null(why);
		ck_assert_ptr_eq(etl__builtin_db(first, &why), db); /* parsed once */
		if ((long)i == first)
			ck_assert_str_eq(etl__manifest_db_provider_name_by_guid(db, &e->guid), e->name);
		ck_assert_uint_lt(e->source, etl__builtin_source_count);
	}
	for (i = 0; i < etl__builtin_source_count; i++)
		ck_assert(strcmp(etl__builtin_sources[i].license, "MIT") == 0 ||
			  strcmp(etl__builtin_sources[i].license, "Apache-2.0") == 0);
}
END_TEST

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every event of every corpus manifest is described the same built in: names, level, message,
 * and the template's fields (the reduction keeps all the loader reads). */
START_TEST(corpus_builtin_equals_its_manifest)
{
	size_t k, checked = 0;

	for (k = 0; k < etl__builtin_source_count; k++) {
		char path[1024];
		struct etl_manifest_db *db = etl__manifest_db_new();
		struct etl_diag d;
		const struct etl_mevent *m;
		size_t i;

		snprintf(path, sizeof(path), "%s/manifests/%s", corpus_dir, etl__builtin_sources[k].file);
		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(etl__manifest_db_load_path(db, path, NULL, &d), ETL_OK);
		for (i = 0; (m = etl__manifest_db_event_at(db, i)) != NULL; i++) {
			const struct etl_mprovider *p = m->provider;
			const char *why;
			long first = etl__builtin_first(&p->guid);
			const struct etl_manifest_db *b = etl__builtin_db(first, &why);
			const struct etl_mevent *x;
			uint16_t f;
			ck_assert_ptr_nonnull(b);
			x = etl__manifest_db_find(b, &p->guid, m->id, m->version);
			ck_assert_ptr_nonnull(x);
			if (!strstr(x->provider->source, etl__builtin_sources[k].origin))
				continue; /* another manifest of this GUID wins for this event */
			ck_assert(same_text(x->task_name, m->task_name) && same_text(x->opcode_name, m->opcode_name));
			ck_assert(same_text(x->level_name, m->level_name) && same_text(x->message, m->message));
			ck_assert(same_text(x->keywords_name, m->keywords_name) && same_text(x->channel_name, m->channel_name));
			ck_assert_uint_eq(x->keywords, m->keywords);
			ck_assert_uint_eq(!x->schema, !m->schema);
			if (!m->schema)
				continue;
			ck_assert_uint_eq(x->schema->nfields, m->schema->nfields);
			for (f = 0; f < m->schema->nfields; f++) {
				const struct etl_field *a = &x->schema->fields[f], *c = &m->schema->fields[f];
				ck_assert_str_eq(a->name, c->name);
				ck_assert(same_text(a->map_name, c->map_name));
				ck_assert_uint_eq(a->in_type, c->in_type);
				ck_assert_uint_eq(a->out_type, c->out_type);
				ck_assert_uint_eq(a->flags, c->flags);
				ck_assert_uint_eq(a->count, c->count);
				ck_assert_uint_eq(a->length, c->length);
			}
			checked++;
		}
		etl__manifest_db_free(db);
	}
	ck_assert_uint_gt(checked, 1500);
}
END_TEST

/* Every event of a real trace has the same name with its manifest given and built in. */
START_TEST(corpus_names_equal_with_and_without_manifest)
{
	static const char *const traces[] = { "dotnetperf_DynamicEvents_tmp0qw4cn.tmp.etl", "perfview_net.4.5.2.x86.etl",
					      "Tx_Process.etl", "Tx_HTTP_Server.etl" };
	char path[1024], man[1024];
	struct etl_reader *r[2];
	const struct etl_event *ev[2];
	size_t n = 0;
	int k;

	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, traces[_i]);
	snprintf(man, sizeof(man), "%s/manifests", corpus_dir);
	for (k = 0; k < 2; k++) {
		r[k] = etl_reader_new();
		ck_assert_int_eq(etl_reader_set_option(r[k], ETL_OPTION_STACKS, 0), ETL_OK);
		if (k)
			ck_assert_int_eq(etl_reader_add_manifest_path(r[k], man), ETL_OK);
		ck_assert_int_eq(etl_reader_open_path(r[k], path), ETL_OK);
	}
	while (etl_reader_next(r[0], &ev[0]) == ETL_OK) {
		const struct etl_decoded *d[2];
		ck_assert_int_eq(etl_reader_next(r[1], &ev[1]), ETL_OK);
		for (k = 0; k < 2; k++)
			(void)etl_reader_decode(r[k], ev[k], &d[k]);
		ck_assert_str_eq(etl_decoded_name(d[0]), etl_decoded_name(d[1]));
		n++;
	}
	ck_assert_int_eq(etl_reader_next(r[1], &ev[1]), ETL_END);
	ck_assert_uint_gt(n, 2000);
	for (k = 0; k < 2; k++)
		etl_reader_free(r[k]);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("builtin");
	TCase *tc = tcase_create("precedence"), *tk = tcase_create("corpus");
	char probe[1024];

	if (argc > 1)
		corpus_dir = argv[1];
	snprintf(probe, sizeof(probe), "%s/manifests/Tx_SystemEvents.man", corpus_dir);
	tcase_add_test(tc, builtin_alone_decodes);
	tcase_add_test(tc, given_manifest_wins_over_everything);
	tcase_add_test(tc, eventsource_manifest_wins_over_metadata_and_builtin);
	tcase_add_test(tc, trace_metadata_wins_over_builtin);
	tcase_add_test(tc, newer_version_decoded_with_the_nearest_older);
	tcase_add_test(tc, table_parses_whole);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tk, 120);
	tcase_add_test(tk, corpus_builtin_equals_its_manifest);
	tcase_add_loop_test(tk, corpus_names_equal_with_and_without_manifest, 0, 4);
	return run_part(s, tk, probe);
}
