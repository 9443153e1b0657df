/*
 * csv.c - the CSV writer (RFC 4180): a header line, then one row per event;
 * decoded properties as "name=value; ..." in one column (values quoted as
 * in text), and why a decoding stopped or did not happen in the last.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "render.h"
#include "summary.h"
#include "writers/writer.h"

static void csv_field(const char *v)
{
	const char *p;
	int quote = 0;

	for (p = v; *p; p++)
		if (*p == ',' || *p == '"' || *p == '\r' || *p == '\n')
			quote = 1;
	if (!quote) {
		out_cstr(v);
		return;
	}
	out_char('"');
	for (p = v; *p; p++) {
		if (*p == '"')
			out_char('"');
		out_char(*p);
	}
	out_char('"');
}

static void csv_begin(struct etl_reader *r, const struct options *o)
{
	(void)r;
	(void)o;
	out_cstr("time,unix_ns,file,file_offset,buffer,cpu,pid,tid,provider,name,decoder,id,version,level,"
		"opcode,task,keywords,payload_size,fields,payload,undecoded_reason,decode_error\r\n");
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
		const char *v = value_text(p), *n = etl_property_name(p);
		size_t need = strlen(n) + TEXT_QUOTED_SIZE(strlen(v ? v : "")) + 12;
		if (len + need + 1 > cap) {
			char *nb;
			while (len + need + 1 > cap)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%s%s=", i ? "; " : "", i < np ? "" : "derived.", n);
		len += text_value_quoted(v ? v : "", buf + len);
	}
	return buf;
}

static void csv_event(struct etl_reader *r, const struct options *o, const struct etl_event *ev,
		      const struct etl_decoded *d)
{
	char when[RENDER_TIME_SIZE], guid[ETL_GUID_STRING_SIZE], num[64];
	const uint8_t *payload;
	size_t len;
	char *ft;

	(void)o;
	render_time(r, ev, when);
	etl_guid_format(etl_event_provider(ev), guid);
	etl_event_payload(ev, &payload, &len);
	out_printf("%s,%" PRId64 ",", when, etl_event_unix_ns(ev));
	csv_field(etl_trace_info_name(etl_reader_trace_info(r, etl_event_trace_index(ev))));
	out_printf(",%" PRIu64 ",%" PRIu64 ",%u,", etl_event_file_offset(ev), etl_event_buffer_index(ev), etl_event_cpu(ev));
	if (etl_event_pid(ev) != ETL_ID_NONE)
		out_printf("%u", etl_event_pid(ev));
	out_char(',');
	if (etl_event_tid(ev) != ETL_ID_NONE)
		out_printf("%u", etl_event_tid(ev));
	out_char(',');
	csv_field(d && etl_decoded_provider_name(d) ? etl_decoded_provider_name(d) : guid);
	out_char(',');
	csv_field(d ? etl_decoded_name(d) : "");
	out_printf(",%s,%u,%u,%u,%u,%u,", d ? etl_decoder_name(etl_decoded_source(d)) : "", etl_event_id(ev),
	       etl_event_version(ev), etl_event_level(ev), etl_event_opcode(ev), etl_event_task(ev));
	snprintf(num, sizeof(num), "0x%016" PRIx64, etl_event_keywords(ev));
	out_printf("%s,%zu,", num, len);
	ft = d && etl_decoded_source(d) != ETL_DECODER_NONE ? fields_text(d) : NULL;
	csv_field(ft ? ft : "");
	free(ft);
	out_char(',');
	out_hex(payload, len);
	out_char(',');
	if (d && etl_decoded_reason(d))
		csv_field(etl_decoded_reason(d));
	out_char(',');
	if (d && etl_decoded_error(d))
		csv_field(etl_decoded_error(d));
	out_cstr("\r\n");
}

const struct writer writer_csv = {
	.name = "csv",
	.ext = "csv",
	.summary_ext = "txt",
	.stateless = 1,
	.begin = csv_begin,
	.event = csv_event,
	.summary = summary_text,
	.info = info_text,
};
