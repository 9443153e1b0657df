/*
 * csv.c - the CSV writer (RFC 4180): a header line, then one row per event;
 * decoded properties as "name=value; ..." in one column (values quoted as
 * in text), and why a decoding stopped or did not happen in the last.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "out.h"
#include "etldump.h"
#include "report.h"
#include "render.h"
#include "summary.h"
#include "writers/writer.h"

/* A CSV cell (render.c: one rule with the tables' CSV) */
#define csv_field out_csv_cell

#define CSV_HEAD "time,unix_ns,file,file_offset,buffer,cpu,pid,tid,provider,name,decoder,id,version,level," \
		 "opcode,task,keywords,payload_size,"
#define CSV_TAIL "payload,undecoded_reason,decode_error,message\r\n"

/* The writer's state: with --csv-fields=columns, the property names of the first event, one
 * column each (the header is written with the first row). */
struct csv_state {
	char **cols;
	size_t ncols;
	int pending, warned;
	char *first_name;
};

static void csv_columns_free(struct csv_state *cs)
{
	while (cs->ncols)
		free(cs->cols[--cs->ncols]);
	free(cs->cols);
	free(cs->first_name);
	cs->cols = NULL;
	cs->first_name = NULL;
}

static void csv_begin(void *ws, struct etl_reader *r, const struct options *o)
{
	struct csv_state *cs = ws;

	(void)r;
	cs->pending = o->csv_columns;
	if (!o->csv_columns)
		out_cstr(CSV_HEAD "fields," CSV_TAIL);
}

static void csv_end(void *ws, struct etl_reader *r, const struct options *o)
{
	struct csv_state *cs = ws;

	(void)r;
	(void)o;
	if (cs->pending) /* no event: the header alone */
		out_cstr(CSV_HEAD CSV_TAIL);
	csv_columns_free(cs);
}

/* The columns from the first event's properties, and the header. */
static void csv_columns_head(struct csv_state *cs, const struct etl_decoded *d)
{
	size_t i, n = d && etl_decoded_source(d) != ETL_DECODER_NONE ? etl_decoded_property_count(d) : 0;
	char **cols;

	cs->pending = 0;
	cs->cols = cols = calloc(n ? n : 1, sizeof(*cs->cols));
	cs->first_name = strdup(d ? etl_decoded_name(d) : "");
	out_cstr(CSV_HEAD);
	for (i = 0; cols && i < n; i++) {
		static const char *const fixed[] = { "time", "unix_ns", "file", "file_offset", "buffer", "cpu", "pid",
						     "tid", "provider", "name", "decoder", "id", "version", "level",
						     "opcode", "task", "keywords", "payload_size", "payload",
						     "undecoded_reason", "decode_error", "message" };
		size_t k;
		cols[cs->ncols] = strdup(etl_property_name(etl_decoded_property_at(d, i)));
		if (!cols[cs->ncols])
			break;
		for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]) && strcmp(fixed[k], cols[cs->ncols]) != 0; k++)
			;
		if (k < sizeof(fixed) / sizeof(fixed[0]))
			out_cstr("field."); /* a property named like a column of the event's own */
		csv_field(cols[cs->ncols++]);
		out_char(',');
	}
	out_cstr(CSV_TAIL);
}

/* The event's values under the columns, by name; a property no column names is left out (said
 * once on stderr). */
static void csv_columns_values(struct csv_state *cs, const struct etl_decoded *d)
{
	size_t i, n = d && etl_decoded_source(d) != ETL_DECODER_NONE ? etl_decoded_property_count(d) : 0, placed = 0;

	for (i = 0; i < cs->ncols; i++) {
		const struct etl_property *p = n ? etl_decoded_property_by_name(d, cs->cols[i]) : NULL;
		const char *v = p ? render_value_text(p) : NULL;
		if (v) {
			placed++;
			csv_field(v); /* a cell of its own: CSV quoting is enough */
		}
		out_char(',');
	}
	if (placed < n && !cs->warned++) {
		char a[REPORT_SHOWN_MAX], b[REPORT_SHOWN_MAX];
		fprintf(stderr, "%s: --csv-fields=columns: %s has fields the columns (from %s) do not name; they are "
				"left out (select events of one schema with -e)\n",
			progname, report_shown(etl_decoded_name(d), a), report_shown(cs->first_name ? cs->first_name : "", b));
	}
}

/* "name=value; name=value" of the decoded properties, each value as the text format writes it
 * (quoted when it holds a space, a quote, '=' or a control byte), so that splitting at "; " and
 * at the first '=' is exact (docs/OUTPUT.md). */
static char *fields_text(const struct etl_decoded *d)
{
	size_t cap = 256, len = 0, i;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	buf[0] = 0;
	size_t np = d ? etl_decoded_property_count(d) : 0, nd = d ? etl_decoded_derived_count(d) : 0;

	for (i = 0; i < np + nd; i++) {
		/* the properties, then the derived fields as derived.NAME */
		const struct etl_property *p = i < np ? etl_decoded_property_at(d, i) : etl_decoded_derived_at(d, i - np);
		const char *v = render_value_text(p), *n = etl_property_name(p);
		size_t need = strlen(n) + TEXT_QUOTED_SIZE(strlen(v ? v : "")) + 12;
		if (grow_array(&buf, &cap, len + need + 1, 1, 256) != 0) {
			free(buf);
			return NULL;
		}
		if (i) {
			memcpy(buf + len, "; ", 2);
			len += 2;
		}
		if (i >= np) {
			memcpy(buf + len, "derived.", 8);
			len += 8;
		}
		memcpy(buf + len, n, strlen(n));
		len += strlen(n);
		buf[len++] = '=';
		len += text_value_quoted(v ? v : "", buf + len);
	}
	return buf;
}

/* ws is NULL for --threads workers, which only --csv-fields=joined allows (pool.c) */
static void csv_event(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
		      const struct etl_decoded *d)
{
	struct csv_state *cs = ws;
	char when[RENDER_TIME_SIZE], guid[ETL_GUID_STRING_SIZE];
	const uint8_t *payload;
	size_t len;
	char *ft;

	if (cs && cs->pending)
		csv_columns_head(cs, d);
	render_time(r, ev, when);
	etl_event_payload(ev, &payload, &len);
	out_cstr(when);
	out_char(',');
	out_time_ns(etl_event_unix_ns(ev));
	out_char(',');
	csv_field(etl_trace_info_name(etl_reader_trace_info(r, etl_event_trace_index(ev))));
	out_char(',');
	out_u64(etl_event_file_offset(ev));
	out_char(',');
	out_u64(etl_event_buffer_index(ev));
	out_char(',');
	out_u64(etl_event_cpu(ev));
	out_char(',');
	if (etl_event_pid(ev) != ETL_ID_NONE)
		out_u64(etl_event_pid(ev));
	out_char(',');
	if (etl_event_tid(ev) != ETL_ID_NONE)
		out_u64(etl_event_tid(ev));
	out_char(',');
	if (d && etl_decoded_provider_name(d)) {
		csv_field(etl_decoded_provider_name(d));
	} else {
		etl_guid_format(etl_event_provider(ev), guid);
		csv_field(guid);
	}
	out_char(',');
	csv_field(d ? etl_decoded_name(d) : "");
	out_char(',');
	out_cstr(d ? etl_decoder_name(etl_decoded_source(d)) : "");
	out_char(',');
	out_u64(etl_event_id(ev));
	out_char(',');
	out_u64(etl_event_version(ev));
	out_char(',');
	out_u64(etl_event_level(ev));
	out_char(',');
	out_u64(etl_event_opcode(ev));
	out_char(',');
	out_u64(etl_event_task(ev));
	OUT_LIT(",0x");
	out_hex16(etl_event_keywords(ev));
	out_char(',');
	out_u64(len);
	out_char(',');
	if (o->csv_columns && cs) {
		csv_columns_values(cs, d);
	} else {
		ft = d && etl_decoded_source(d) != ETL_DECODER_NONE ? fields_text(d) : NULL;
		csv_field(ft ? ft : "");
		free(ft);
		out_char(',');
	}
	if (render_payload_wanted(o, d))
		out_hex(payload, len);
	out_char(',');
	if (d && etl_decoded_reason(d))
		csv_field(etl_decoded_reason(d));
	out_char(',');
	if (d && etl_decoded_error(d))
		csv_field(etl_decoded_error(d));
	out_char(',');
	if (render_message(d))
		csv_field(render_message(d));
	out_cstr("\r\n");
}

const struct writer writer_csv = {
	.name = "csv",
	.about = "comma-separated values",
	.ext = "csv",
	.summary_ext = "txt",
	.stateless = 1,
	.state_size = sizeof(struct csv_state),
	.begin = csv_begin,
	.event = csv_event,
	.end = csv_end,
	.summary = summary_text,
	.info = info_text,
};
