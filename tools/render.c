/*
 * render.c - values, stacks and times as etldump shows them (render.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "out.h"
#include "render.h"

int render_no_maps;
enum time_mode render_time_mode;
unsigned render_frame_flags;
int render_signatures;

const char *frame_file_name(const char *path)
{
	const char *b = path, *p;

	for (p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			b = p + 1;
	return b;
}

/* Seconds east of UTC of the local zone at time t (POSIX only: no tm_gmtoff). */
static long utc_offset(time_t t, const struct tm *local)
{
	struct tm g;
	long days;

	if (!gmtime_r(&t, &g))
		return 0;
	days = local->tm_year != g.tm_year ? (local->tm_year > g.tm_year ? 1 : -1) : local->tm_yday - g.tm_yday;
	return ((days * 24 + (local->tm_hour - g.tm_hour)) * 60 + (local->tm_min - g.tm_min)) * 60 +
	       (local->tm_sec - g.tm_sec);
}

const char *render_time(const struct etl_reader *r, const struct etl_event *ev, char out[RENDER_TIME_SIZE])
{
	uint64_t ft = etl_event_filetime(ev), origin = UINT64_MAX;
	struct tm l;
	time_t t;
	long off;
	int i;

	switch (render_time_mode) {
	case RTIME_RAW:
		snprintf(out, RENDER_TIME_SIZE, "%" PRIu64, etl_event_timestamp_raw(ev));
		return out;
	case RTIME_RELATIVE: /* milliseconds since the earliest input's start */
		for (i = 0; i < etl_reader_trace_count(r); i++)
			if (etl_trace_info_start_time(etl_reader_trace_info(r, i)) < origin)
				origin = etl_trace_info_start_time(etl_reader_trace_info(r, i));
		if (ft >= origin)
			snprintf(out, RENDER_TIME_SIZE, "%" PRIu64 ".%04" PRIu64, (ft - origin) / 10000, (ft - origin) % 10000);
		else
			snprintf(out, RENDER_TIME_SIZE, "-%" PRIu64 ".%04" PRIu64, (origin - ft) / 10000, (origin - ft) % 10000);
		return out;
	case RTIME_LOCAL:
		if (ft >= ETL_FILETIME_UNIX_EPOCH) {
			uint64_t secs = (ft - ETL_FILETIME_UNIX_EPOCH) / 10000000ull;
			t = (time_t)secs;
			if ((uint64_t)t == secs && localtime_r(&t, &l)) {
				off = utc_offset(t, &l);
				long a = off < 0 ? -off : off;
				snprintf(out, RENDER_TIME_SIZE, "%04d-%02d-%02dT%02d:%02d:%02d.%07u%c%02d:%02d", l.tm_year + 1900,
					 l.tm_mon + 1, l.tm_mday, l.tm_hour, l.tm_min, l.tm_sec, (unsigned)(ft % 10000000ull),
					 off < 0 ? '-' : '+', (int)(a / 3600 % 100), (int)(a / 60 % 60));
				return out;
			}
		}
		/* before 1970 or past time_t: UTC */
		/* fall through */
	default:
		etl_filetime_format(ft, out);
		return out;
	}
}

const char *render_value_text(const struct etl_property *p)
{
	return etl_property_format_flags(p, render_no_maps ? ETL_FORMAT_NO_MAPS : 0);
}

/* 1 for the bytes that make a value quoted in text (and the end, where the scan stops) */
static const unsigned char text_quoted_by[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[' '] = 1, ['"'] = 1, ['='] = 1, [0x7f] = 1,
};

/* Past the printable UTF-8 character at p (etl_text_printable(p) > 0). */
static const char *one_char(const char *p)
{
	do
		p++;
	while (((unsigned char)*p & 0xC0) == 0x80);
	return p;
}

/* The length of a value written as it is in text, or SIZE_MAX when it is quoted (empty, or with
 * a space, a quote, '=', a control byte, or a byte etl_text_printable does not pass: a C1
 * control, a separator, a bidirectional control, UTF-8 that is not). */
static size_t text_plain_len(const char *v)
{
	const char *p = v;

	for (;;) {
		while (!text_quoted_by[(unsigned char)*p] && (unsigned char)*p < 0x80)
			p++;
		if ((unsigned char)*p < 0x80)
			break;
		if (!etl_text_printable(p))
			return SIZE_MAX;
		p = one_char(p);
	}
	return *p || p == v ? SIZE_MAX : (size_t)(p - v);
}

size_t text_value_quoted(const char *v, char *dst)
{
	static const char hex[] = "0123456789abcdef";
	const char *p;
	size_t n = text_plain_len(v);

	if (n != SIZE_MAX) {
		memcpy(dst, v, n + 1);
		return n;
	}
	n = 0;
	dst[n++] = '"';
	for (p = v; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\') {
			dst[n++] = '\\';
			dst[n++] = (char)c;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			dst[n++] = '\\';
			dst[n++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		} else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !etl_text_printable(p))) {
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = hex[c >> 4];
			dst[n++] = hex[c & 15];
		} else if (c >= 0x80) { /* a whole printable character */
			const char *e = one_char(p);
			memcpy(dst + n, p, (size_t)(e - p));
			n += (size_t)(e - p);
			p = e - 1;
		} else {
			dst[n++] = (char)c;
		}
	}
	dst[n++] = '"';
	dst[n] = 0;
	return n;
}

void out_text_value(const char *v)
{
	char small[256], *big;
	size_t need = text_plain_len(v);

	if (need != SIZE_MAX) {
		out_mem(v, need);
		return;
	}
	need = TEXT_QUOTED_SIZE(strlen(v));
	big = need <= sizeof(small) ? small : malloc(need);
	if (!big) {
		out_buf.failed = 1;
		return;
	}
	out_mem(big, text_value_quoted(v, big));
	if (big != small)
		free(big);
}

void out_text_name(const char *s)
{
	while (*s) {
		size_t k = etl_text_printable(s);
		out_mem(s, k);
		s += k;
		if (*s) { /* a control byte, or one of a character that is not printable */
			out_printf("\\x%02x", (unsigned char)*s);
			s++;
		}
	}
}

void out_csv_cell(const char *v)
{
	const char *s;

	if (!v[strcspn(v, ",\"\r\n")] && etl_text_printable(v) == strlen(v)) {
		out_cstr(v);
		return;
	}
	out_char('"');
	for (s = v; *s;) {
		size_t k = etl_text_printable(s), q;
		while (k && (q = strcspn(s, "\"")) < k) { /* quotes doubled */
			out_mem(s, q + 1);
			out_char('"');
			s += q + 1;
			k -= q + 1;
		}
		out_mem(s, k);
		s += k;
		if (*s) { /* as text shows a person what a terminal would act on */
			out_printf("\\x%02x", (unsigned char)*s);
			s++;
		}
	}
	out_char('"');
}

int is_json_number(const char *t)
{
	const char *p = t;

	if (*p == '-')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return 0;
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == 0;
}

static int is_signed_in(uint16_t t)
{
	return t == ETL_IN_INT8 || t == ETL_IN_INT16 || t == ETL_IN_INT32 || t == ETL_IN_INT64;
}

static int is_status_code(uint16_t t)
{
	return t == ETL_OUT_ERRORCODE || t == ETL_OUT_WIN32ERROR || t == ETL_OUT_NTSTATUS || t == ETL_OUT_HRESULT;
}

/* A value as its kind says: numbers and booleans bare (unless a map named them), the rest as
 * JSON strings of their text. */
static void out_json_scalar(const struct etl_property *p)
{
	enum etl_value_kind k = etl_property_value_kind(p);
	/* a port is a number too (its text is the decimal value in host order) */
	int integer = k == ETL_VALUE_SIGNED || k == ETL_VALUE_UNSIGNED ||
		      (k == ETL_VALUE_ADDRESS && etl_property_out_type(p) == ETL_OUT_PORT);
	const char *text;
	int64_t iv;
	uint64_t uv;

	/* Integers with no map are written straight from their value, exactly as the library's
	 * text (etl_property_format) has them - the cases where they would differ go through the
	 * text below: decimal for plain integer in-types (the text shows a pointer, size or HexInt
	 * in-type in hex even under a decimal out-type, and sign-extends an unsigned in-type under
	 * a signed out-type), "0x" and hex digits for the hexadecimal kind (but status and error
	 * codes, which the text pads to eight digits). etldump_formats.py compares the two. */
	if ((k == ETL_VALUE_SIGNED || k == ETL_VALUE_UNSIGNED || k == ETL_VALUE_HEX) && !etl_property_map_name(p)) {
		uint16_t in = etl_property_in_type(p);

		if (k == ETL_VALUE_UNSIGNED && in >= ETL_IN_INT8 && in <= ETL_IN_UINT64 &&
		    etl_property_as_u64(p, &uv) == ETL_OK) {
			out_u64(uv);
			return;
		}
		if (k == ETL_VALUE_SIGNED && is_signed_in(in) &&
		    etl_property_as_i64(p, &iv) == ETL_OK) {
			out_i64(iv);
			return;
		}
		if (k == ETL_VALUE_HEX && !is_status_code(etl_property_out_type(p)) &&
		    etl_property_as_u64(p, &uv) == ETL_OK) {
			OUT_LIT("\"0x");
			out_x64(uv);
			out_char('"');
			return;
		}
	}
	if (k == ETL_VALUE_NONE && etl_property_in_type(p) == ETL_IN_NULL) {
		OUT_LIT("null"); /* a value that is not there (a derived field: none) */
		return;
	}
	text = render_value_text(p);
	if (!text)
		text = "";
	if ((k == ETL_VALUE_BOOLEAN && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)) ||
	    ((integer || k == ETL_VALUE_REAL) && is_json_number(text))) {
		out_cstr(text); /* a map may have turned a number into a name: then it is a string */
		return;
	}
	out_char('"');
	out_json_str(text);
	out_char('"');
}

void out_json_value(const struct etl_property *p, unsigned depth)
{
	enum etl_property_kind k = etl_property_kind(p);
	size_t i, n = etl_property_child_count(p);

	if (k == ETL_PROPERTY_VALUE || depth >= 64) {
		out_json_scalar(p);
		return;
	}
	out_char(k == ETL_PROPERTY_ARRAY ? '[' : '{');
	for (i = 0; i < n; i++) {
		const struct etl_property *c = etl_property_child_at(p, i);
		if (i)
			out_char(',');
		if (k == ETL_PROPERTY_STRUCT) {
			out_char('"');
			out_json_name(etl_property_name(c));
			out_cstr("\":");
		}
		out_json_value(c, depth + 1);
	}
	out_char(k == ETL_PROPERTY_ARRAY ? ']' : '}');
}

/* A name from the trace or a PDB in a text stack: controls, and the commas that separate frames,
 * as \xNN. */
static void out_frame_text(const char *s)
{
	const char *p, *run = s;

	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f || c == ',') {
			out_mem(run, (size_t)(p - run));
			out_printf("\\x%02x", c);
			run = p + 1;
		}
	}
	out_mem(run, (size_t)(p - run));
}

/* A frame's module (a few per trace: the name cache) or function (thousands: escaped each time). */
static void out_frame_name(const char *s, int json)
{
	if (json)
		out_json_name(s);
	else
		out_frame_text(s);
}

static void out_frame_function(const char *s, int json)
{
	if (json)
		out_json_str(s);
	else
		out_frame_text(s);
}

/* A stack frame: module!Function+0xOFF (a PDB's function or a .NET method; with --signatures a
 * method's argument list after its name; with --lines " (file.c:123)"), module!+0xOFF (an image
 * and no symbol), or the address in hex when nothing holds it. */
static void out_frame(struct etl_reader *r, const struct etl_event *ev, uint64_t addr, int json)
{
	struct etl_frame f;

	etl_reader_frame(r, ev, addr, render_frame_flags, &f);
	if (f.kind == ETL_FRAME_ADDRESS) {
		OUT_LIT("0x");
		out_x64(addr);
		return;
	}
	out_frame_name(f.module, json);
	out_char('!');
	if (!f.function) {
		OUT_LIT("+0x");
		out_x64(f.module_offset);
		return;
	}
	out_frame_function(f.function, json);
	if (render_signatures && f.signature && strchr(f.signature, '('))
		out_frame_function(strchr(f.signature, '('), json);
	OUT_LIT("+0x");
	out_x64(f.function_offset);
	if (f.file && f.line) {
		OUT_LIT(" (");
		out_frame_name(frame_file_name(f.file), json);
		out_char(':');
		out_u64(f.line);
		out_char(')');
	}
}

void out_stack(struct etl_reader *r, const struct etl_event *ev, int json)
{
	size_t i, n = etl_event_stack_depth(ev);

	if (!n)
		return;
	out_cstr(json ? ",\"stack\":[" : " stack=");
	for (i = 0; i < n; i++) {
		if (i)
			out_char(',');
		if (json)
			out_char('"');
		out_frame(r, ev, etl_event_stack_frame(ev, i), json);
		if (json)
			out_char('"');
	}
	if (json)
		out_char(']');
}

void out_guid_field(const char *key, const struct etl_guid *g)
{
	char s[ETL_GUID_STRING_SIZE];

	if (!g)
		return;
	etl_guid_format(g, s);
	out_char(',');
	out_char('"');
	out_cstr(key);
	OUT_LIT("\":\"");
	out_mem(s, ETL_GUID_STRING_SIZE - 1);
	out_char('"');
}

void out_json_kv_str(const char *k, const char *v, int comma)
{
	out_printf("%s\"%s\":\"", comma ? "," : "", k);
	out_json_str(v);
	out_char('"');
}


int render_payload_wanted(const struct options *o, const struct etl_decoded *d)
{
	return o->all_payloads || !d || etl_decoded_source(d) == ETL_DECODER_NONE || etl_decoded_error(d) ||
	       etl_decoded_trailing_bytes(d) > 0;
}

const char *render_message(const struct etl_decoded *d)
{
	return d && etl_decoded_source(d) == ETL_DECODER_TMF ? etl_decoded_message(d) : NULL;
}
