/*
 * check_decode.c - payload decoding: TraceLogging (synthetic events with
 * every in-type, arrays, structs, hostile metadata) and, where the corpus
 * is present, the facts of its self-describing and merged traces.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "decode/ktables.h"
#include "decode/metadata.h"
#include "internal.h"
#include "clock.h"
#include "scenario.h"
#include "tlgmeta.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

/* ---- TraceLogging events (metadata built with tlgmeta.h) ---- */

static const uint8_t traits[] = { 16, 0, 'T', 'e', 's', 't', '.', 'P', 'r', 'o', 'v', 'i', 'd', 'e', 'r', 0 };

static int add_tl(struct etlw *w, unsigned i, const struct mb *m, const void *payload, size_t len)
{
	struct etlw_event e;
	struct etlw_ext ext[2];

	memset(&e, 0, sizeof(e));
	e.provider = scen_provider;
	e.channel = 11;
	e.level = 5;
	e.tid = 100 + i;
	e.pid = 4;
	e.ts = 1000000100ull + i;
	ext[0].type = ETL_EXT_PROV_TRAITS;
	ext[0].data = traits;
	ext[0].len = sizeof(traits);
	ext[1].type = ETL_EXT_EVENT_SCHEMA_TL;
	ext[1].data = m->b;
	ext[1].len = (uint16_t)m->n;
	return etlw_event(w, 0, &e, ext, 2, payload, len);
}

struct decoded_run {
	unsigned events, decoded, errors;
	char names[8][128];
	char text[8][512];
	char msg[8][320];
	int status[8];
};

static void decode_all(const uint8_t *d, size_t len, struct decoded_run *run)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned k = 0;

	memset(run, 0, sizeof(*run));
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "tl"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		size_t i;
		int st;

		run->events++;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		st = etl_reader_decode(r, ev, &dec);
		ck_assert_ptr_nonnull(dec);
		if (st != ETL_OK) {
			run->errors++;
			if (k < 8)
				snprintf(run->msg[k], sizeof(run->msg[k]), "%s", etl_error_message(etl_reader_error(r)));
		}
		if (etl_decoded_source(dec) == ETL_DECODER_TRACELOGGING && st == ETL_OK)
			run->decoded++;
		if (k < 8) {
			run->status[k] = st;
			snprintf(run->names[k], sizeof(run->names[k]), "%s", etl_decoded_name(dec));
			for (i = 0; i < etl_decoded_property_count(dec); i++) {
				const struct etl_property *p = etl_decoded_property_at(dec, i);
				size_t l = strlen(run->text[k]);
				snprintf(run->text[k] + l, sizeof(run->text[k]) - l, "%s%s=%s", i ? ";" : "",
					 etl_property_name(p), etl_property_format(p) ? etl_property_format(p) : "?");
			}
			k++;
		}
	}
	etl_reader_free(r);
}

static uint8_t *build_tl(int variant, size_t *len)
{
	struct etlw_opts o;
	struct etlw *w;
	struct mb m;
	uint8_t *out, pl[256];
	size_t n = 0;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	ck_assert_ptr_nonnull(w);
	/* 0: scalars of every kind */
	mb_begin(&m, "Scalars");
	mb_field(&m, "i8", 3, -1);
	mb_field(&m, "u16hex", 6, 4);
	mb_field(&m, "i32", 7, -1);
	mb_field(&m, "u64", 10, -1);
	mb_field(&m, "f", 11, -1);
	mb_field(&m, "d", 12, -1);
	mb_field(&m, "b", 13, -1);
	mb_field(&m, "g", 15, -1);
	mb_field(&m, "ft", 17, -1);
	mb_field(&m, "hex64", 21, -1);
	mb_field(&m, "ws", 1, -1);
	mb_field(&m, "cs", 22, -1);
	mb_field(&m, "bin", 14, -1);
	mb_field(&m, "ip", 8, 8);
	mb_field(&m, "port", 6, 7);
	mb_field(&m, "err", 8, 13);
	mb_end(&m);
	{
		static const uint8_t p0[] = {
			0xFE,                                     /* i8 -2 */
			0xAD, 0xDE,                               /* 0xdead */
			0x85, 0xFF, 0xFF, 0xFF,                   /* -123 */
			0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* 2^64-1 */
			0x00, 0x00, 0xC0, 0x3F,                   /* 1.5f */
			0x1F, 0x85, 0xEB, 0x51, 0xB8, 0x1E, 0x09, 0x40, /* 3.14 */
			0x01, 0x00, 0x00, 0x00,                   /* true */
			0x04, 0x03, 0x02, 0x01, 0x06, 0x05, 0x08, 0x07, 9, 10, 11, 12, 13, 14, 15, 16,
			0x00, 0x80, 0x3E, 0xD5, 0xDE, 0xB1, 0x9D, 0x01, /* 1970-01-01 */
			0xEF, 0xBE, 0xAD, 0xDE, 0, 0, 0, 0,       /* 0xdeadbeef */
			'h', 0, 'i', 0, 0, 0,                     /* L"hi" */
			4, 0, 'o', 0, 'k', 0,                     /* counted L"ok" */
			3, 0, 0xAA, 0xBB, 0xCC,                   /* binary */
			192, 168, 1, 2,                           /* ipv4 */
			0x01, 0xBB,                               /* port 443, network order */
			5, 0, 0, 0,                               /* win32 error 5 */
		};
		ck_assert_int_eq(add_tl(w, 0, &m, p0, sizeof(p0)), 0);
	}
	/* 1: arrays and nested structs */
	mb_begin(&m, "Shapes");
	mb_field(&m, "list", 8 | 0x40, -1);           /* UINT32 VCOUNT */
	mb_field(&m, "fixed", 4 | 0x20, -1);          /* UINT8 CCOUNT */
	mb_u16(&m, 3);
	mb_field(&m, "s", 24, 2);                     /* struct of 2 */
	mb_field(&m, "a", 2, -1);                     /* ANSI string */
	mb_field(&m, "inner", 24, 1);                 /* nested struct of 1 */
	mb_field(&m, "x", 5, -1);
	mb_field(&m, "text", 6 | 0x40, 2);            /* char16 array: text */
	mb_end(&m);
	n = 0;
	{
		static const uint8_t p1[] = {
			2, 0, 7, 0, 0, 0, 9, 0, 0, 0,             /* list [7, 9] */
			1, 2, 3,                                  /* fixed [1, 2, 3] */
			'o', 'k', 0,                              /* s.a */
			0xFF, 0xFF,                               /* s.inner.x = -1 */
			3, 0, 'a', 0, 'b', 0, 'c', 0,             /* "abc" */
		};
		memcpy(pl, p1, sizeof(p1));
		n = sizeof(p1);
	}
	ck_assert_int_eq(add_tl(w, 1, &m, pl, n), 0);
	switch (variant) {
	case 1: /* a payload shorter than its schema */
		mb_begin(&m, "Short");
		mb_field(&m, "a", 8, -1);
		mb_field(&m, "b", 10, -1);
		mb_end(&m);
		ck_assert_int_eq(add_tl(w, 2, &m, "\x01\x00\x00\x00\x02", 5), 0);
		break;
	case 2: /* a struct that claims more members than there are fields */
		mb_begin(&m, "BadStruct");
		mb_field(&m, "s", 24, 5);
		mb_field(&m, "a", 8, -1);
		mb_end(&m);
		ck_assert_int_eq(add_tl(w, 2, &m, "\x01\x00\x00\x00", 4), 0);
		break;
	case 3: /* an absurd variable count */
		mb_begin(&m, "Absurd");
		mb_field(&m, "v", 10 | 0x40, -1);
		mb_end(&m);
		ck_assert_int_eq(add_tl(w, 2, &m, "\xff\xff\x01\x02", 4), 0);
		break;
	case 4: /* metadata whose size runs past its item, and an unterminated name */
		mb_begin(&m, "Cut");
		mb_field(&m, "a", 8, -1);
		mb_end(&m);
		m.b[0] = (uint8_t)(m.n + 40);
		ck_assert_int_eq(add_tl(w, 2, &m, "\x01\x00\x00\x00", 4), 0);
		break;
	case 5: { /* structs nested 40 deep */
		int k;
		mb_begin(&m, "Deep");
		for (k = 0; k < 40; k++)
			mb_field(&m, "s", 24, 1);
		mb_field(&m, "a", 4, -1);
		mb_end(&m);
		ck_assert_int_eq(add_tl(w, 2, &m, "\x01", 1), 0);
		break;
	}
	case 6: /* a field name made to clear a terminal and forge a line, with an unknown in-type */
		mb_begin(&m, "Forged");
		mb_field(&m, "\x1b[2J\nlibetl: all good \xc2\x9b\xe2\x80\xae", 16, -1);
		mb_end(&m);
		ck_assert_int_eq(add_tl(w, 2, &m, "\x01", 1), 0);
		break;
	default:
		break;
	}
	/* after the bad one, a good event again: damage costs only its event */
	mb_begin(&m, "After");
	mb_field(&m, "ok", 4, -1);
	mb_end(&m);
	ck_assert_int_eq(add_tl(w, 3, &m, "\x2a", 1), 0);
	ck_assert_int_eq(etlw_finish(w, &out, len), 0);
	etlw_free(w);
	return out;
}

/* Merge-time maps (KernelTraceControl EventMapInfo records) are found by hash: with the 65,536
 * a reader keeps, a decoding looks one up per mapped field, and a linear search made a crafted
 * trace cost events x fields x maps.  The newest map of a name wins; another provider's or
 * input's map of that name is not taken. */
static void observe_map(struct etl_decode_state *st, int trace, const struct etl_guid *provider, const char *name)
{
	static const struct etl_guid meta = { 0xbbccf6c1, 0x6cd1, 0x48c4,
					      { 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 } };
	uint8_t p[64];
	struct etl_event ev;
	size_t i, n = strlen(name);

	memset(p, 0, sizeof(p));
	etlw_put_guid(p, provider);
	p[16] = 16; /* EVENT_MAP_INFO: the name at 16, no entries; then the name in UTF-16 */
	for (i = 0; i < n && 32 + 2 * i + 2 < sizeof(p); i++)
		p[32 + 2 * i] = (uint8_t)name[i];
	memset(&ev, 0, sizeof(ev));
	ev.kind = ETL_HEADER_FULL;
	ev.provider = meta;
	ev.opcode = 33; /* ETL_METADATA_EVENTMAPINFO */
	ev.trace_index = trace;
	ev.payload = p;
	ev.payload_len = 32 + 2 * n + 2;
	etl__decode_observe(st, &ev);
}

START_TEST(merge_time_maps_are_found_by_hash)
{
	static const struct etl_guid a = { 0x11111111, 0x2222, 0x3333, { 4, 4, 4, 4, 4, 4, 4, 4 } };
	static const struct etl_guid b = { 0x11111111, 0x2222, 0x3333, { 4, 4, 4, 4, 4, 4, 4, 5 } };
	struct etl_decode_state st;
	const struct etl_map *m0, *m1, *first;
	char name[16];
	unsigned i, found = 0;
	double t0;

	memset(&st, 0, sizeof(st));
	observe_map(&st, 0, &a, "Dup");
	st.cur_trace = 0;
	st.cur_provider = a;
	first = etl__meta_resolve_map(&st, "Dup");
	observe_map(&st, 0, &a, "Dup");
	for (i = 0; i < 65532; i++) {
		snprintf(name, sizeof(name), "M%05u", i);
		observe_map(&st, 0, &a, name);
	}
	observe_map(&st, 1, &a, "Other");
	observe_map(&st, 0, &b, "Other");
	ck_assert_uint_eq(st.metadata_rejected, 0);
	observe_map(&st, 0, &a, "Full"); /* one more than a reader keeps */
	ck_assert_uint_eq(st.metadata_rejected, 1);
	ck_assert_ptr_null(etl__meta_resolve_map(&st, "Full"));
	ck_assert_ptr_null(etl__meta_resolve_map(&st, "Other")); /* another input's, another provider's */
	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_nonnull(etl__meta_resolve_map(&st, "Dup"));
	ck_assert_ptr_ne(etl__meta_resolve_map(&st, "Dup"), first); /* the newest */
	m0 = etl__meta_resolve_map(&st, "M00000");
	m1 = etl__meta_resolve_map(&st, "M65531");
	ck_assert_ptr_nonnull(m0);
	ck_assert_ptr_nonnull(m1);
	ck_assert_str_eq(m0->name, "M00000");
	ck_assert_str_eq(m1->name, "M65531");
	st.cur_trace = 1;
	ck_assert_str_eq(etl__meta_resolve_map(&st, "Other")->name, "Other");
	ck_assert_ptr_null(etl__meta_resolve_map(&st, "M00000"));
	st.cur_trace = 0;
	st.cur_provider = b;
	ck_assert_ptr_nonnull(etl__meta_resolve_map(&st, "Other"));
	st.cur_provider = a;
	/* 200,000 lookups, as many mapped fields: about 10^4 times longer by a linear search */
	t0 = test_cpu_seconds();
	for (i = 0; i < 200000; i++) {
		snprintf(name, sizeof(name), "M%05u", (i * 7919u) % 70000u);
		found += etl__meta_resolve_map(&st, name) != NULL;
	}
	ck_assert_uint_eq(found, 187239); /* the names below M65532 */
	ck_assert_double_lt(test_cpu_seconds() - t0, 2.0 * test_slowdown());
	etl__meta_free(&st);
}
END_TEST

START_TEST(tracelogging_scalars_arrays_structs)
{
	size_t len;
	uint8_t *d = build_tl(0, &len);
	struct decoded_run run;

	decode_all(d, len, &run);
	ck_assert_uint_eq(run.errors, 0);
	ck_assert_uint_eq(run.decoded, 3);
	ck_assert_str_eq(run.names[0], "Test.Provider/Scalars");
	ck_assert_str_eq(run.text[0],
			 "i8=-2;u16hex=0xdead;i32=-123;u64=18446744073709551615;f=1.5;d=3.14;b=true;"
			 "g=01020304-0506-0708-090a-0b0c0d0e0f10;ft=1970-01-01T00:00:00.0000000Z;hex64=0xdeadbeef;"
			 "ws=hi;cs=ok;bin=0xaabbcc;ip=192.168.1.2;port=443;err=0x00000005");
	ck_assert_str_eq(run.names[1], "Test.Provider/Shapes");
	ck_assert_str_eq(run.text[1], "list=[7, 9];fixed=[1, 2, 3];s={a: ok, inner: {x: -1}};text=abc");
	ck_assert_str_eq(run.text[2], "ok=42");
	free(d);
}
END_TEST

START_TEST(tracelogging_hostile_metadata_costs_one_event)
{
	static const char *const why[] = { NULL, "property 'b': needs 8 bytes", "claims 5 members, only 1 fields follow",
					   "65535 elements cannot fit", "does not fit the item", "nested deeper than 32",
					   "field '\\x1b[2J\\x0alibetl: all good \\xc2\\x9b\\xe2\\x80\\xae' has in-type 16" };
	size_t len;
	uint8_t *d = build_tl(_i, &len);
	struct decoded_run run;

	decode_all(d, len, &run);
	ck_assert_uint_eq(run.errors, 1);
	ck_assert_int_lt(run.status[2], 0);
	ck_assert_msg(strstr(run.msg[2], why[_i]) != NULL, "message '%s' lacks '%s'", run.msg[2], why[_i]);
	ck_assert_str_eq(run.text[3], "ok=42"); /* the event after it decodes */
	ck_assert_uint_eq(run.decoded, 3);
	free(d);
}
END_TEST

/* Decodes a trace of one TraceLogging event (these provider traits, metadata m and payload) in r;
 * *d receives the trace's bytes (freed by the caller after r). */
static const struct etl_decoded *decode_one_tl(struct etl_reader *r, const uint8_t *ptraits, size_t ptraits_len,
					       const struct mb *m, const void *payload, size_t plen, uint8_t **d)
{
	struct etlw_opts o;
	struct etlw *w;
	struct etlw_event e;
	struct etlw_ext ext[2];
	const struct etl_event *ev;
	const struct etl_decoded *dec;
	size_t len;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	memset(&e, 0, sizeof(e));
	e.provider = scen_provider;
	e.channel = 11;
	e.ts = o.start_ts + 5;
	ext[0].type = ETL_EXT_PROV_TRAITS;
	ext[0].data = ptraits;
	ext[0].len = (uint16_t)ptraits_len;
	ext[1].type = ETL_EXT_EVENT_SCHEMA_TL;
	ext[1].data = m->b;
	ext[1].len = (uint16_t)m->n;
	ck_assert_int_eq(etlw_event(w, 0, &e, ext, 2, payload, plen), 0);
	ck_assert_int_eq(etlw_finish(w, d, &len), 0);
	etlw_free(w);
	ck_assert_int_eq(etl_reader_open_memory(r, *d, len, "t"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK && etl_event_header_kind(ev) != ETL_HEADER_EVENT)
		;
	ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
	return dec;
}

START_TEST(tags_custom_schema_and_group)
{
	struct mb m;
	uint8_t *d;
	struct etl_reader *r = etl_reader_new();
	const struct etl_decoded *dec;
	const struct etl_property *p;
	const uint8_t *bytes;
	size_t n;
	/* traits with a group trait: size, name, {u16 size 19, type 1, GUID} */
	static const uint8_t gtraits[] = { 23, 0, 'G', 0, 19, 0, 1, 0x1a, 0x73, 0x50, 0x4f, 0xcf, 0x89, 0x82, 0x47,
					   0xb3, 0xe5, 0xdc, 0xe8, 0xc9, 0x04, 0x76, 0xba };
	struct etl_guid g;
	char gs[ETL_GUID_STRING_SIZE];

	m.n = 0;
	mb_u16(&m, 0);
	mb_u8(&m, 0x85); /* event tags 0x05 << 7 | 0x03 */
	mb_u8(&m, 0x03);
	mb_str(&m, "Tagged");
	mb_str(&m, "f");
	mb_u8(&m, 8 | 0x80);
	mb_u8(&m, 0x80); /* no out-type, field tags follow */
	mb_u8(&m, 0x07);
	mb_str(&m, "c");
	mb_u8(&m, 0x60); /* custom */
	mb_u16(&m, 3);
	mb_bytes(&m, "xyz", 3);
	mb_end(&m);
	dec = decode_one_tl(r, gtraits, sizeof(gtraits), &m, "\x09\x00\x00\x00\x02\x00\xab\xcd", 8, &d);
	ck_assert_str_eq(etl_decoded_name(dec), "G/Tagged");
	ck_assert_uint_eq(etl_decoded_event_tags(dec), 0x05 << 7 | 0x03);
	ck_assert_int_eq(etl_decoded_provider_group(dec, &g), 1);
	etl_guid_format(&g, gs);
	ck_assert_str_eq(gs, "4f50731a-89cf-4782-b3e5-dce8c90476ba");
	p = etl_decoded_property_at(dec, 0);
	ck_assert_uint_eq(etl_property_tags(p), 7);
	ck_assert_str_eq(etl_property_format(p), "9");
	p = etl_decoded_property_at(dec, 1);
	ck_assert_int_eq(etl_property_custom_schema(p, &bytes, &n), ETL_OK);
	ck_assert_uint_eq(n, 3);
	ck_assert(memcmp(bytes, "xyz", 3) == 0);
	ck_assert_int_eq(etl_property_as_bytes(p, &bytes, &n), ETL_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(bytes[1], 0xcd);
	ck_assert_int_eq(etl_property_custom_schema(etl_decoded_property_at(dec, 0), &bytes, &n), ETL_E_MISUSE);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Names and 8-bit strings a trace gives as bytes come out as UTF-8 whatever the bytes: kept when
 * they are UTF-8, else read as Latin-1 (an overlong form or an encoded surrogate is not UTF-8). */
START_TEST(names_from_the_trace_are_utf8)
{
	struct mb m;
	uint8_t *d;
	struct etl_reader *r = etl_reader_new();
	const struct etl_decoded *dec;
	/* provider traits: size, the provider name "Pr\xa4v" (Latin-1), NUL */
	static const uint8_t ptraits[] = { 7, 0, 'P', 'r', 0xa4, 'v', 0 };

	m.n = 0;
	mb_u16(&m, 0);
	mb_u8(&m, 0); /* no event tags */
	mb_str(&m, "Ev\xe9nt");
	mb_str(&m, "f\xc0\x98"); /* an overlong form */
	mb_u8(&m, 2);            /* ANSI string */
	mb_str(&m, "caf\xc3\xa9"); /* UTF-8: kept */
	mb_u8(&m, 2);
	mb_end(&m);
	/* values: an encoded surrogate (not UTF-8), then UTF-8 */
	dec = decode_one_tl(r, ptraits, sizeof(ptraits), &m, "\xed\xa0\x80\0\xc3\xa9t\xc3\xa9\0", 10, &d);
	ck_assert_str_eq(etl_decoded_provider_name(dec), "Pr\xc2\xa4v");
	ck_assert_str_eq(etl_decoded_event_name(dec), "Ev\xc3\xa9nt");
	ck_assert_str_eq(etl_decoded_name(dec), "Pr\xc2\xa4v/Ev\xc3\xa9nt");
	ck_assert_str_eq(etl_property_name(etl_decoded_property_at(dec, 0)), "f\xc3\x80\xc2\x98");
	ck_assert_str_eq(etl_property_name(etl_decoded_property_at(dec, 1)), "caf\xc3\xa9");
	ck_assert_str_eq(etl_property_format(etl_decoded_property_at(dec, 0)), "\xc3\xad\xc2\xa0\xc2\x80");
	ck_assert_str_eq(etl_property_format(etl_decoded_property_at(dec, 1)), "\xc3\xa9t\xc3\xa9");
	etl_reader_free(r);
	free(d);
}
END_TEST

/* The names and reasons of undecoded events: %04x hook ids (short and long), decimal opcodes. */
START_TEST(undecoded_names_and_reasons)
{
	static const struct {
		uint16_t hook;
		uint8_t version;
		const char *name, *reason;
	} cases[] = {
		{ 0x1f00, 1, "Windows Kernel/Group(31)/Opcode(0)", "no built-in layout for kernel hook 0x1f00 version 1" },
		{ 0x7f05, 3, "Windows Kernel/Group(127)/Opcode(5)", "no built-in layout for kernel hook 0x7f05 version 3" },
		{ 0x0010, 0, "Windows Kernel/EventTrace/Opcode(16)", "no built-in layout for kernel EventTrace opcode 16 version 0" },
		{ 0xfeff, 255, "Windows Kernel/Group(254)/Opcode(255)", "no built-in layout for kernel hook 0xfeff version 255" },
	};
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d;
	size_t len, i;
	struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_decoded *dec;

	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_int_eq(etlw_system(w, 0, 0, cases[i].version, cases[i].hook, 4, 8, o.start_ts + 10 + i, "abcd", 4), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "t"), ETL_OK);
	i = 0;
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_header_kind(ev) != ETL_HEADER_SYSTEM || etl_event_hook_id(ev) == 0)
			continue; /* the logfile header */
		ck_assert_uint_lt(i, 4);
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		ck_assert_int_eq(etl_decoded_source(dec), ETL_DECODER_NONE);
		ck_assert_str_eq(etl_decoded_name(dec), cases[i].name);
		ck_assert_str_eq(etl_decoded_reason(dec), cases[i].reason);
		i++;
	}
	ck_assert_uint_eq(i, 4);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* Kernel layouts taken from the MOF documentation alone decode only a payload they account for
 * exactly; anything else stays raw with the reason. */
/* FileIO version 3 (TTID a 32-bit id after the pointers), 64-bit: Create and Read decode to
 * their fields; a Read of the version-2 size stays raw. */
static const char *fmt_by_name(const struct etl_decoded *d, const char *name);

START_TEST(fileio_v3_layouts)
{
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d, cr[48], rd[48];
	size_t len;
	struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_decoded *dec;
	unsigned seen = 0;

	/* Create v3: IrpPtr, FileObject, TTID, CreateOptions, FileAttributes, ShareAccess, OpenPath "C:" */
	memset(cr, 0, sizeof(cr));
	cr[8] = 0x40; cr[9] = 0x30;          /* FileObject 0x3040 */
	cr[16] = 0x2c; cr[17] = 0x01;        /* TTID 300 */
	cr[20] = 0x20;                       /* CreateOptions 0x20 */
	cr[28] = 0x07;                       /* ShareAccess 7 */
	cr[32] = 'C'; cr[34] = ':';          /* OpenPath, then its NUL */
	/* Read v3: Offset, IrpPtr, FileObject, FileKey, TTID, IoSize, IoFlags = 8 + 24 + 12 = 44 */
	memset(rd, 0, sizeof(rd));
	rd[1] = 0x10;                        /* Offset 0x1000 */
	rd[32] = 0x2d; rd[33] = 0x01;        /* TTID 301 */
	rd[37] = 0x02;                       /* IoSize 512 */
	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	ck_assert_int_eq(etlw_system(w, 0, 0, 3, 0x0440, 4, 8, o.start_ts + 10, cr, 38), 0);
	ck_assert_int_eq(etlw_system(w, 0, 0, 3, 0x0443, 4, 8, o.start_ts + 11, rd, 44), 0);
	ck_assert_int_eq(etlw_system(w, 0, 0, 3, 0x0443, 4, 8, o.start_ts + 12, rd, 48), 0); /* v2's size */
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "t"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_hook_id(ev) == 0)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		switch (seen++) {
		case 0:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/FileIO/Create");
			ck_assert_str_eq(fmt_by_name(dec, "FileObject"), "0x3040");
			ck_assert_str_eq(fmt_by_name(dec, "TTID"), "300");
			ck_assert_str_eq(fmt_by_name(dec, "CreateOptions"), "SynchronousIoNonAlert, Disposition=Supersede");
			ck_assert_str_eq(fmt_by_name(dec, "ShareAccess"), "Read, Write, Delete");
			ck_assert_str_eq(fmt_by_name(dec, "OpenPath"), "C:");
			break;
		case 1:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/FileIO/Read");
			ck_assert_str_eq(fmt_by_name(dec, "Offset"), "4096");
			ck_assert_str_eq(fmt_by_name(dec, "TTID"), "301");
			ck_assert_str_eq(fmt_by_name(dec, "IoSize"), "512");
			break;
		case 2:
			ck_assert_int_eq(etl_decoded_source(dec), ETL_DECODER_NONE);
			break;
		}
	}
	ck_assert_uint_eq(seen, 3);
	etl_reader_free(r);
	free(d);
}
END_TEST

/* PerfInfo events of the system's MOF, 64-bit: SetKTimer2 (three times, three pointers, a flag
 * byte) and ISR_MSI; a SetKTimer2 one byte short stays raw. */
START_TEST(perfinfo_mof_layouts)
{
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d, kt[49], msi[24];
	size_t len;
	struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_decoded *dec;
	unsigned seen = 0;

	memset(kt, 0, sizeof(kt));
	kt[0] = 0x10;                    /* DueTime 16 */
	kt[16] = 0x05;                   /* Period 5 */
	kt[24] = 0x88; kt[31] = 0xff;    /* Timer 0xff00000000000088 */
	kt[48] = 0x03;                   /* TimerFlags */
	memset(msi, 0, sizeof(msi));
	msi[16] = 1;                     /* ReturnValue */
	msi[17] = 0x34; msi[18] = 0x12;  /* Vector 0x1234 */
	msi[20] = 7;                     /* MessageNumber */
	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	ck_assert_int_eq(etlw_perfinfo(w, 0, 2, 0x0F68, o.start_ts + 10, NULL, 0, NULL, kt, 49), 0);
	ck_assert_int_eq(etlw_perfinfo(w, 0, 2, 0x0F32, o.start_ts + 11, NULL, 0, NULL, msi, 24), 0);
	ck_assert_int_eq(etlw_perfinfo(w, 0, 2, 0x0F68, o.start_ts + 12, NULL, 0, NULL, kt, 48), 0);
	{ /* Thread/KernelQueueDequeue v2: ThreadId, EntryCount 2, two pointers */
		uint8_t kq[24];
		memset(kq, 0, sizeof(kq));
		kq[0] = 9; kq[4] = 2; kq[8] = 0x10; kq[16] = 0x20;
		ck_assert_int_eq(etlw_perfinfo(w, 0, 2, 0x053F, o.start_ts + 13, NULL, 0, NULL, kq, 24), 0);
	}
	{ /* Memory/VirtualAlloc v2: BaseAddress, RegionSize, ProcessId, Flags */
		uint8_t va[24];
		memset(va, 0, sizeof(va));
		va[2] = 0x01; va[9] = 0x20; va[16] = 42; va[21] = 0x30;
		ck_assert_int_eq(etlw_perfinfo(w, 0, 2, 0x0262, o.start_ts + 14, NULL, 0, NULL, va, 24), 0);
	}
	{ /* ALPC/WaitForNewMessage v2: IsServerPort, PortName - in ANSI, then in UTF-16 */
		static const uint8_t a[] = { 1, 0, 0, 0, 'P', 'o', 'r', 't', 0 };
		static const uint8_t u[] = { 0, 0, 0, 0, 'P', 0, 'o', 0, 'r', 0, 't', 0, 0, 0 };
		ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x1A24, 4, 8, o.start_ts + 15, a, sizeof(a)), 0);
		ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x1A24, 4, 8, o.start_ts + 16, u, sizeof(u)), 0);
	}
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "t"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_hook_id(ev) == 0)
			continue; /* the logfile header */
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		switch (seen++) {
		case 0:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/PerfInfo/SetKTimer2");
			ck_assert_str_eq(fmt_by_name(dec, "DueTime"), "16");
			ck_assert_str_eq(fmt_by_name(dec, "Period"), "5");
			ck_assert_str_eq(fmt_by_name(dec, "Timer"), "0xff00000000000088");
			ck_assert_str_eq(fmt_by_name(dec, "TimerFlags"), "0x3");
			break;
		case 1:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/PerfInfo/ISR_MSI");
			ck_assert_str_eq(fmt_by_name(dec, "ReturnValue"), "1");
			ck_assert_str_eq(fmt_by_name(dec, "Vector"), "4660");
			ck_assert_str_eq(fmt_by_name(dec, "MessageNumber"), "7");
			break;
		case 2:
			ck_assert_int_eq(etl_decoded_source(dec), ETL_DECODER_NONE);
			break;
		case 3:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/Thread/KernelQueueDequeue");
			ck_assert_str_eq(fmt_by_name(dec, "EntryCount"), "2");
			ck_assert_str_eq(fmt_by_name(dec, "Entries"), "[0x10, 0x20]");
			break;
		case 4:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/Memory/VirtualAlloc");
			ck_assert_str_eq(fmt_by_name(dec, "BaseAddress"), "0x10000");
			ck_assert_str_eq(fmt_by_name(dec, "RegionSize"), "0x2000");
			ck_assert_str_eq(fmt_by_name(dec, "ProcessId"), "42");
			ck_assert_str_eq(fmt_by_name(dec, "Flags"), "MEM_COMMIT, MEM_RESERVE");
			break;
		case 5:
		case 6:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/ALPC/WaitForNewMessage");
			ck_assert_str_eq(fmt_by_name(dec, "IsServerPort"), seen == 6 ? "1" : "0");
			ck_assert_str_eq(fmt_by_name(dec, "PortName"), "Port");
			break;
		}
	}
	ck_assert_uint_eq(seen, 7);
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(documented_kernel_layouts_are_strict)
{
	struct etlw_opts o;
	struct etlw *w;
	uint8_t *d, rw[52], reg[64], rt[8], *vid;
	size_t len, i;
	struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_decoded *dec;
	unsigned seen = 0;

	/* FileIO/Read v2, 64-bit: Offset, IrpPtr, TTID, FileObject, FileKey, IoSize, IoFlags */
	memset(rw, 0, sizeof(rw));
	rw[0] = 0x00; rw[1] = 0x10;          /* Offset 0x1000 */
	rw[16] = 0x2c; rw[17] = 0x01;        /* TTID 300 */
	rw[40] = 0x00; rw[41] = 0x02;        /* IoSize 512 */
	/* Registry/Open v2: InitialTime, Status, Index, KeyHandle (8), KeyName "Ab" */
	memset(reg, 0, sizeof(reg));
	reg[8] = 0x34; reg[9] = 0x00; reg[10] = 0x00; reg[11] = 0xc0; /* Status 0xc0000034 */
	reg[24] = 'A'; reg[26] = 'b';
	/* Thread/ReadyThread v2: TThreadId, AdjustReason, AdjustIncrement, Flag, Reserved */
	memset(rt, 0, sizeof(rt));
	rt[0] = 0x39; rt[1] = 0x05; rt[4] = 1; rt[5] = (uint8_t)-2; rt[6] = 1;
	/* SystemConfig/Video v2: five words, five UTF-16 arrays of 256 units, StateFlags */
	vid = calloc(1, 2584);
	ck_assert_ptr_nonnull(vid);
	vid[4] = 0x80; vid[5] = 0x07;              /* XResolution 1920 */
	vid[20 + 2 * 512] = 'G'; vid[20 + 2 * 512 + 2] = 'P'; vid[20 + 2 * 512 + 4] = 'U'; /* AdapterString */
	vid[2580] = 0x05;                          /* StateFlags */
	etlw_default_opts(&o);
	o.ncpu = 1;
	w = etlw_new(&o);
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x0443, 4, 8, o.start_ts + 10, rw, 48), 0);
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x0443, 4, 8, o.start_ts + 11, rw, 52), 0); /* 4 bytes too many */
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x090B, 4, 8, o.start_ts + 12, reg, 30), 0);
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x090B, 4, 8, o.start_ts + 13, reg, 29), 0); /* the name cut */
	ck_assert_int_eq(etlw_system(w, 0, 1, 2, 0x0532, 4, 8, o.start_ts + 14, rt, 8), 0);
	ck_assert_int_eq(etlw_system(w, 0, 0, 2, 0x0B0E, 4, 8, o.start_ts + 15, vid, 2584), 0);
	ck_assert_int_eq(etlw_finish(w, &d, &len), 0);
	etlw_free(w);
	r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "t"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (etl_event_hook_id(ev) == 0)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		switch (seen++) {
		case 0:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/FileIO/Read");
			ck_assert_int_eq(etl_decoded_source(dec), ETL_DECODER_BUILTIN);
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "Offset")), "4096");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "TTID")), "0x12c");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "IoSize")), "512");
			break;
		case 1:
		case 3:
			ck_assert_int_eq(etl_decoded_source(dec), ETL_DECODER_NONE);
			ck_assert_ptr_nonnull(strstr(etl_decoded_reason(dec), "does not fit the documented layout"));
			ck_assert_uint_eq(etl_decoded_property_count(dec), 0);
			break;
		case 2:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/Registry/Open");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "Status")), "0xc0000034");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "KeyName")), "Ab");
			break;
		case 4:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/Thread/ReadyThread");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "TThreadId")), "1337");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "AdjustIncrement")), "-2");
			break;
		case 5:
			ck_assert_str_eq(etl_decoded_name(dec), "Windows Kernel/SystemConfig/Video");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "XResolution")), "1920");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "AdapterString")), "GPU");
			ck_assert_str_eq(etl_property_format(etl_decoded_property_by_name(dec, "StateFlags")), "0x5");
			break;
		}
		for (i = 0; i < etl_decoded_property_count(dec); i++)
			ck_assert_ptr_nonnull(etl_property_format(etl_decoded_property_at(dec, i)));
	}
	ck_assert_uint_eq(seen, 6);
	etl_reader_free(r);
	free(d);
	free(vid);
}
END_TEST

START_TEST(decoding_limits_are_configurable)
{
	size_t len;
	uint8_t *d = build_tl(0, &len);
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int n = 0;

	/* "Shapes" has 2 + 3 list elements, a struct with a nested struct: 11 properties, depth 2 */
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_PROPERTIES, 8), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "tl"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT || n++ != 1)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_E_LIMIT);
		ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "property limit"));
	}
	etl_reader_free(r);
	r = etl_reader_new();
	n = 0;
	ck_assert_int_eq(etl_reader_set_limit(r, ETL_LIMIT_DEPTH, 1), ETL_OK);
	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "tl"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT || n++ != 1)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_E_LIMIT);
		ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "nested deeper than 1"));
	}
	etl_reader_free(r);
	free(d);
}
END_TEST

START_TEST(error_names_the_field_and_offset)
{
	size_t len;
	uint8_t *d = build_tl(1, &len);
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int n = 0;

	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "tl"), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT || n++ != 2)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_E_TRUNCATED);
		ck_assert_ptr_nonnull(strstr(etl_error_message(etl_reader_error(r)), "property 'b'"));
		/* the offset is that of the missing field inside the file */
		ck_assert_uint_eq(etl_error_offset(etl_reader_error(r)),
				  etl_event_file_offset(ev) + etl_event_record_size(ev) - 5 + 4);
		/* what decoded before the fault stays available; the event says it is partial, where
		 * and why */
		ck_assert_uint_eq(etl_decoded_property_count(dec), 1);
		ck_assert_str_eq(etl_property_format(etl_decoded_property_at(dec, 0)), "1");
		ck_assert_int_eq(etl_decoded_status(dec), ETL_DECODE_PARTIAL);
		ck_assert_str_eq(etl_decoded_error_field(dec), "b");
		ck_assert_ptr_nonnull(strstr(etl_decoded_error(dec), "property 'b'"));
		ck_assert_ptr_null(etl_decoded_property_by_name(dec, "b"));
	}
	etl_reader_free(r);
	free(d);
}
END_TEST

/* ---- the corpus ---- */

static struct etl_reader *open_corpus(const char *file)
{
	char path[4096];
	struct etl_reader *r = etl_reader_new();

	snprintf(path, sizeof(path), "%s/etl/%s", corpus_dir, file);
	ck_assert_msg(etl_reader_open_path(r, path) == ETL_OK, "%s", path);
	return r;
}

static const char *fmt_by_name(const struct etl_decoded *d, const char *name)
{
	const struct etl_property *p = etl_decoded_property_by_name(d, name);
	return p ? etl_property_format(p) : "(missing)";
}

START_TEST(self_describing_single_event)
{
	struct etl_reader *r = open_corpus("perfview_SelfDescribingSingleEvent.etl");
	const struct etl_event *ev;
	int found = 0;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		const struct etl_property *a;
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_str_eq(etl_decoded_provider_name(d), "MySource");
		ck_assert_str_eq(etl_decoded_event_name(d), "TestEvent");
		ck_assert_str_eq(etl_decoded_name(d), "MySource/TestEvent");
		a = etl_decoded_property_at(d, 0);
		ck_assert_int_eq(etl_property_kind(a), ETL_PROPERTY_STRUCT);
		ck_assert_uint_eq(etl_property_child_count(a), 2);
		ck_assert_str_eq(etl_property_name(etl_property_child_at(a, 0)), "b");
		ck_assert_str_eq(etl_property_format(etl_property_child_at(a, 0)), "Hello");
		ck_assert_str_eq(etl_property_name(etl_property_child_at(a, 1)), "c");
		ck_assert_str_eq(etl_property_format(etl_property_child_at(a, 1)), "World!");
		found++;
	}
	ck_assert_int_eq(found, 1);
	etl_reader_free(r);
}
END_TEST

START_TEST(tracelogging_tester_facts)
{
	struct etl_reader *r = open_corpus("etwanalyzer_TraceLoggingTester.etl.gz");
	const struct etl_event *ev;
	int n = 0, seen[8] = { 0 }, providers = 0, st;
	uint64_t merged = 0, merged_decoded = 0;

	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		const struct etl_decoded *d;
		const char *name;
		ck_assert_int_eq(st, ETL_OK);
		if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		if (etl_decoded_source(d) == ETL_DECODER_TRACELOGGING) {
			ck_assert_str_eq(etl_decoded_provider_name(d), "CSharpTraceLoggingEventSource");
			providers = 1;
			n++;
			name = etl_decoded_event_name(d);
			if (strcmp(name, "MarkString") == 0 && !seen[0]++) {
				ck_assert_str_eq(fmt_by_name(d, "input"), "Hello, ETW!");
			} else if (strcmp(name, "MarkStringInteger") == 0 && !seen[1]++) {
				ck_assert_str_eq(fmt_by_name(d, "input"), "Hello, ETW with number");
				ck_assert_str_eq(fmt_by_name(d, "number1"), "42");
			} else if (strncmp(name, "MarkBool", 8) == 0 && !seen[2]++) {
				ck_assert_str_eq(fmt_by_name(d, "boolean"), "true");
				ck_assert_str_eq(fmt_by_name(d, "b"), "0");
				ck_assert_str_eq(fmt_by_name(d, "c"), "A");
				ck_assert_str_eq(fmt_by_name(d, "d"), "3.14");
				ck_assert_str_eq(fmt_by_name(d, "i16"), "-32768");
				ck_assert_str_eq(fmt_by_name(d, "i32"), "2147483647");
				ck_assert_str_eq(fmt_by_name(d, "i64"), "9223372036854775807");
				ck_assert_str_eq(fmt_by_name(d, "sb"), "-128");
				ck_assert_str_eq(fmt_by_name(d, "u16"), "65535");
				ck_assert_str_eq(fmt_by_name(d, "u32"), "4294967295");
				ck_assert_str_eq(fmt_by_name(d, "u64"), "18446744073709551615");
			} else if (strcmp(name, "WriteIntList") == 0 && !seen[3]++) {
				ck_assert_str_eq(fmt_by_name(d, "numbers"), "[0, 2, 3, 4]");
			} else if (strcmp(name, "WriteDateTime") == 0 && !seen[4]++) {
				ck_assert_str_eq(fmt_by_name(d, "dateTime"), "2000-01-01T00:00:00.0000000Z");
			} else if (strcmp(name, "WriteTimeSpan") == 0 && !seen[5]++) {
				ck_assert_str_eq(fmt_by_name(d, "timeSpan"), "420000000");
			} else if (strcmp(name, "WriteGuid") == 0 && !seen[6]++) {
				ck_assert_str_eq(fmt_by_name(d, "guid"), "00000000-0000-0000-0000-000000000001");
			}
		} else {
			/* every other EVENT_HEADER event of this merged trace is described by its metadata */
			merged++;
			merged_decoded += etl_decoded_source(d) == ETL_DECODER_TRACE_METADATA &&
					  etl_decoded_trailing_bytes(d) == 0;
		}
	}
	ck_assert_int_eq(providers, 1);
	ck_assert_int_eq(n, 70);
	ck_assert_int_eq(seen[0] + seen[1] + seen[2] + seen[3] + seen[4] + seen[5] + seen[6], 70);
	ck_assert_uint_eq(merged, 47490);
	ck_assert_uint_eq(merged_decoded, merged);
	etl_reader_free(r);
}
END_TEST

/* Issue 6's acceptance: every classic record of TraceLoggingTester decodes, except the kinds
 * FORMAT-NOTES section 9 lists (with why); this holds the list and the counts.  And the three
 * merge-time kinds whose layout the trace itself proves: DbgID_DBG, marks, ImageID opcode 41. */
START_TEST(tracelogging_tester_classic_records)
{
	static const struct { const char *name; unsigned n; } raw[] = {
		{ "KernelTraceControl/ImageID/Opcode(39)", 4 },
		{ "Windows Kernel/SysConfig/Opcode(36)", 56 },
		{ "Windows Kernel/SysConfig/Opcode(37)", 1 },
		{ "Windows Kernel/SystemConfig/NumaNode", 1 },
		{ "Windows Kernel/SystemConfig/Opcode(19)", 1 },
	};
	unsigned seen[sizeof(raw) / sizeof(raw[0])] = { 0 }, classic = 0, other = 0, dbg = 0, marks = 0, text = 0;
	unsigned sc[4] = { 0 }, hyper = 0, meta[2] = { 0 }, rundown = 0;
	struct etl_reader *r = open_corpus("etwanalyzer_TraceLoggingTester.etl.gz");
	const struct etl_event *ev;
	size_t i;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		const char *name;
		if (etl_event_header_kind(ev) == ETL_HEADER_EVENT)
			continue;
		classic++;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		name = etl_decoded_name(d);
		if (etl_decoded_source(d) == ETL_DECODER_NONE) {
			for (i = 0; i < sizeof(raw) / sizeof(raw[0]) && strcmp(raw[i].name, name) != 0; i++)
				;
			if (i < sizeof(raw) / sizeof(raw[0]))
				seen[i]++;
			else
				other++;
			continue;
		}
		ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
		if (strcmp(name, "KernelTraceControl/ImageID/DbgID_DBG") == 0 &&
		    strcmp(fmt_by_name(d, "ImageBase"), "0x1e10000") == 0) {
			ck_assert_str_eq(fmt_by_name(d, "ProcessID"), "19500");
			ck_assert_str_eq(fmt_by_name(d, "ImageChecksum"), "0x13103");
			ck_assert_str_eq(fmt_by_name(d, "TimeDateStamp"), "0x575a6d31");
			ck_assert_str_eq(fmt_by_name(d, "ImageSize"), "0x12000");
			ck_assert_str_eq(fmt_by_name(d, "DbgFileName"), "qico.dbg");
		}
		dbg += strcmp(name, "KernelTraceControl/ImageID/DbgID_DBG") == 0;
		/* merge-time descriptions: their fixed parts, the rest as Data */
		if (strcmp(name, "KernelTraceControl/MetaData/EventInfo") == 0) {
			meta[0]++;
			rundown += strcmp(fmt_by_name(d, "ProviderGuid"), "a669021c-c450-4609-a035-5af59af4df18") == 0;
			ck_assert_ptr_nonnull(etl_decoded_property_by_name(d, "Data"));
		}
		meta[1] += strcmp(name, "KernelTraceControl/MetaData/EventMapInfo") == 0;
		if (strcmp(name, "Windows Kernel/Image/HypercallPage") == 0) {
			ck_assert_str_eq(fmt_by_name(d, "HypercallPageVa"), "0xfffff80220f00000");
			hyper++;
		}
		if (strcmp(name, "Windows Kernel/PerfInfo/Mark") == 0 && marks++ == 0)
			ck_assert_str_eq(fmt_by_name(d, "Message"), "Wpr_Initiated_Rundown");
		text += strcmp(name, "KernelTraceControl/ImageID/Opcode(41)") == 0;
		if (strcmp(name, "Windows Kernel/SystemConfig/Processors") == 0 && !sc[0]++) {
			ck_assert_str_eq(fmt_by_name(d, "ProcessorName"), "13th Gen Intel(R) Core(TM) i5-13600KF");
			ck_assert_str_eq(fmt_by_name(d, "ProcessorIdentifier"), "Intel64 Family 6 Model 183 Stepping 1");
			ck_assert_str_eq(fmt_by_name(d, "VendorIdentifier"), "GenuineIntel");
			ck_assert_str_eq(fmt_by_name(d, "ProcessorSpeed"), "3494");
		} else if (strcmp(name, "Windows Kernel/SystemConfig/Defragmentation") == 0 &&
			   strcmp(fmt_by_name(d, "VolumePathNames"), "C:\\") == 0) {
			ck_assert_str_eq(fmt_by_name(d, "BytesPerCluster"), "4096");
			ck_assert_str_eq(fmt_by_name(d, "TotalClusters"), "488101375");
			ck_assert_str_eq(fmt_by_name(d, "TotalUsedClusters"), "439675443");
			ck_assert_str_eq(fmt_by_name(d, "LastRunTime"), "2025-07-16T15:48:17.6040000Z");
			sc[1]++;
		} else if (strcmp(name, "Windows Kernel/SystemConfig/OpticalDisk") == 0) {
			ck_assert_str_eq(fmt_by_name(d, "DeviceType"), "5");
			ck_assert_str_eq(fmt_by_name(d, "DriveLetter"), "D:");
			sc[2]++;
		} else if (strcmp(name, "Windows Kernel/SystemConfig/DeviceFamily") == 0) {
			ck_assert_str_eq(fmt_by_name(d, "UAPInfo"), "0xa000065f4122c"); /* 10.0.26100.4652 */
			ck_assert_str_eq(fmt_by_name(d, "DeviceFamily"), "3");
			sc[3]++;
		}
	}
	ck_assert_uint_eq(sc[0], 20);
	ck_assert_uint_eq(sc[1], 1);
	ck_assert_uint_eq(sc[2], 1);
	ck_assert_uint_eq(sc[3], 1);
	ck_assert_uint_eq(classic, 125156);
	ck_assert_uint_eq(other, 0);
	for (i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		ck_assert_msg(seen[i] == raw[i].n, "%s: %u raw, expected %u", raw[i].name, seen[i], raw[i].n);
	ck_assert_uint_eq(dbg, 28);
	ck_assert_uint_eq(meta[0], 10);
	ck_assert_uint_eq(meta[1], 8);
	ck_assert_uint_eq(rundown, 10); /* the CLR rundown events the merger described */
	ck_assert_uint_eq(marks, 4);
	ck_assert_uint_eq(hyper, 1);
	ck_assert_uint_eq(text, 11);
	etl_reader_free(r);
}
END_TEST

/* EventTrace records of Windows 10 and later (version 2), on s4_CldFlt1 (a Windows 11 24H2
 * trace taken in a partition): PartitionInfoExtension, BuildInfo, DbgIdRSDS; and
 * TraceLoggingTester's LastDroppedTimes (20 time stamps, all 0). */
START_TEST(eventtrace_v2_records)
{
	struct etl_reader *r = open_corpus("s4_CldFlt1-2025-12-21-121418.etlgz");
	const struct etl_event *ev;
	unsigned seen = 0;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		const char *name;
		if (etl_event_header_kind(ev) == ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		name = etl_decoded_name(d);
		if (strcmp(name, "Windows Kernel/EventTrace/PartitionInfoExtension") == 0) {
			ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
			ck_assert_str_eq(fmt_by_name(d, "PartitionType"), "4");
			ck_assert_str_eq(fmt_by_name(d, "QpcOffsetFromRoot"), "573074290");
			ck_assert_str_eq(fmt_by_name(d, "PartitionId"), "5afba13c-746f-4634-a6d8-bc0f84c9a9c3");
			ck_assert_str_eq(fmt_by_name(d, "ParentId"), "00000000-0000-0000-0000-000000000000");
			seen |= 1;
		} else if (strcmp(name, "Windows Kernel/EventTrace/BuildInfo") == 0) {
			ck_assert_str_eq(fmt_by_name(d, "BuildString"), "26100.1.amd64fre.ge_release.240331-1435");
			seen |= 2;
		} else if (strcmp(name, "Windows Kernel/EventTrace/DbgIdRSDS") == 0) {
			ck_assert_str_eq(fmt_by_name(d, "PdbName"), "cldflt.pdb");
			ck_assert_str_eq(fmt_by_name(d, "Age"), "1");
			seen |= 4;
		}
	}
	ck_assert_uint_eq(seen, 7);
	etl_reader_free(r);
	r = open_corpus("etwanalyzer_TraceLoggingTester.etl.gz");
	seen = 0;
	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		if (etl_event_hook_id(ev) != 0x0052 || etl_event_header_kind(ev) == ETL_HEADER_EVENT)
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_str_eq(etl_decoded_name(d), "Windows Kernel/EventTrace/LastDroppedTimes");
		ck_assert_str_eq(fmt_by_name(d, "TimeStampCount"), "20");
		ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
		seen++;
	}
	ck_assert_uint_eq(seen, 4);
	etl_reader_free(r);
}
END_TEST

START_TEST(no_undecoded_tracelogging)
{
	static const struct { const char *file; unsigned tl; } files[] = {
		{ "airbus-etl-parser_AMSITrace.etl", 19 },
		{ "airbus-etl-parser_lxcore_kernel.etl", 2 },
		{ "s4_SIH.20230422.034724.362.1.etl", 10 },
		{ "s4_WindowsUpdate.20251008.140245.443.8.etl", 80 },
		{ "perfview_primitive-types.etl", 5 },
	};
	struct etl_reader *r = open_corpus(files[_i].file);
	const struct etl_event *ev;
	unsigned tl = 0, amsi_text = 0;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *d;
		if (!etl_event_extended_find(ev, ETL_EXT_EVENT_SCHEMA_TL, NULL, NULL))
			continue;
		ck_assert_int_eq(etl_reader_decode(r, ev, &d), ETL_OK);
		ck_assert_int_eq(etl_decoded_source(d), ETL_DECODER_TRACELOGGING);
		ck_assert_uint_eq(etl_decoded_trailing_bytes(d), 0);
		tl++;
		if (_i == 0 && strcmp(etl_decoded_event_name(d), "AmsiScript") == 0) {
			const char *s;
			size_t l;
			/* the scanned script is readable text, both as Script and as Raw Script */
			ck_assert_int_eq(etl_property_as_utf8(etl_decoded_property_by_name(d, "Raw Script"), &s, &l), ETL_OK);
			ck_assert_str_eq(s, fmt_by_name(d, "Script"));
			if (strstr(s, "IWshShell3.Run(\"powershell.exe -nop -w 1 -enc"))
				amsi_text++;
		}
	}
	ck_assert_uint_eq(tl, files[_i].tl);
	if (_i == 0)
		ck_assert_uint_ge(amsi_text, 1);
	etl_reader_free(r);
}
END_TEST

/* The kernel tables agree: every layout has PerfView's names, no (group, opcode) is named twice,
 * and no two layouts claim one (group, opcode, version) unless the first hands a payload that
 * does not fit to the next (STRICT_OR_NEXT). */
START_TEST(kernel_layout_and_name_tables_agree)
{
	size_t n = etl__kernel_layout_count(), i, j, k, m, names = 0;
	unsigned g, o, g2, o2;
	const char *task, *op, *task2, *op2;

	ck_assert_uint_gt(n, 100);
	for (i = 0; i < n; i++) {
		const struct klayout *l = &etl__klayouts[i];
		for (k = 0; k < sizeof(l->ops) && l->ops[k] != 0xFF; k++) {
			/* opcode 0 is named Provider/Task: its task is enough; ImageID opcode 41 has a layout
			 * proven by its records but no name anywhere (FORMAT-NOTES section 9) */
			int unnamed = l->ops[k] == 0 || (l->group == ETL_KERNEL_KTC_FIRST && l->ops[k] == 41);
			ck_assert_msg(etl__kernel_names(l->group, l->ops[k], &task, &op) == 1 || unnamed,
				      "layout %zu: group 0x%02x opcode %u has no name", i, l->group, l->ops[k]);
			ck_assert_ptr_nonnull(task);
			for (j = i + 1; j < n; j++) {
				const struct klayout *x = &etl__klayouts[j];
				if (x->group != l->group || x->vmin > l->vmax || x->vmax < l->vmin)
					continue;
				for (m = 0; m < sizeof(x->ops) && x->ops[m] != 0xFF; m++)
					ck_assert_msg(x->ops[m] != l->ops[k] || (j == i + 1 && l->strict == STRICT_OR_NEXT),
						      "layouts %zu and %zu both claim group 0x%02x opcode %u", i, j, l->group,
						      l->ops[k]);
			}
		}
	}
	for (i = 0; etl__kernel_name_at(i, &g, &o, &task, &op); i++) {
		names++;
		for (j = i + 1; etl__kernel_name_at(j, &g2, &o2, &task2, &op2); j++)
			ck_assert_msg(g != g2 || o != o2, "group 0x%02x opcode %u is named twice", g, o);
	}
	ck_assert_uint_gt(names, 150);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("decode");
	TCase *t = tcase_create("tracelogging");
	TCase *c = tcase_create("corpus");
	char path[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_add_test(t, tracelogging_scalars_arrays_structs);
	tcase_add_test(t, merge_time_maps_are_found_by_hash);
	tcase_add_loop_test(t, tracelogging_hostile_metadata_costs_one_event, 1, 7);
	tcase_add_test(t, error_names_the_field_and_offset);
	tcase_add_test(t, tags_custom_schema_and_group);
	tcase_add_test(t, names_from_the_trace_are_utf8);
	tcase_add_test(t, undecoded_names_and_reasons);
	tcase_add_test(t, documented_kernel_layouts_are_strict);
	tcase_add_test(t, fileio_v3_layouts);
	tcase_add_test(t, perfinfo_mof_layouts);
	tcase_add_test(t, decoding_limits_are_configurable);
	tcase_add_test(t, kernel_layout_and_name_tables_agree);
	suite_add_tcase(s, t);
	snprintf(path, sizeof(path), "%s/etl/perfview_SelfDescribingSingleEvent.etl", corpus_dir);
	tcase_add_test(c, self_describing_single_event);
	tcase_add_test(c, tracelogging_tester_facts);
	tcase_add_test(c, tracelogging_tester_classic_records);
	tcase_add_test(c, eventtrace_v2_records);
	tcase_add_loop_test(c, no_undecoded_tracelogging, 0, 5);
	tcase_set_timeout(c, 300);
	return run_part(s, c, path);
}
