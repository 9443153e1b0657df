/*
 * xml.c - the XML writer: <Events> of <Event> elements in the shape of
 * Windows event XML (System, EventData or BinaryEventData, RenderingInfo).
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>

#include "out.h"
#include "render.h"
#include "summary.h"
#include "writers/writer.h"

static void xml_begin(struct etl_reader *r, const struct options *o)
{
	(void)r;
	(void)o;
	out_cstr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Events>\n");
}

static void xml_text(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': out_cstr("&lt;"); break;
		case '>': out_cstr("&gt;"); break;
		case '&': out_cstr("&amp;"); break;
		case '"': out_cstr("&quot;"); break;
		case '\'': out_cstr("&apos;"); break;
		default:
			/* characters XML 1.0 cannot hold, even escaped */
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				out_cstr("\xef\xbf\xbd");
			else
				out_char(c);
		}
	}
}

/* DecodeError="why" when a decoding stopped at a fault (the properties before it are shown). */
static void decode_error_attribute(const struct etl_decoded *d)
{
	if (!etl_decoded_error(d))
		return;
	out_cstr(" DecodeError=\"");
	xml_text(etl_decoded_error(d));
	out_char('"');
}

static void xml_event(struct etl_reader *r, const struct options *o, const struct etl_event *ev,
		      const struct etl_decoded *d)
{
	char when[ETL_FILETIME_STRING_SIZE], guid[ETL_GUID_STRING_SIZE];
	const uint8_t *payload;
	size_t len, i;

	(void)r;
	(void)o;
	etl_filetime_format(etl_event_filetime(ev), when);
	etl_guid_format(etl_event_provider(ev), guid);
	etl_event_payload(ev, &payload, &len);
	out_cstr("<Event xmlns=\"http://schemas.microsoft.com/win/2004/08/events/event\"><System><Provider");
	if (d && etl_decoded_provider_name(d)) {
		out_cstr(" Name=\"");
		xml_text(etl_decoded_provider_name(d));
		out_char('"');
	}
	out_printf(" Guid=\"{%s}\"/><EventID>%u</EventID><Version>%u</Version><Level>%u</Level><Task>%u</Task>"
	       "<Opcode>%u</Opcode><Keywords>0x%" PRIx64 "</Keywords><TimeCreated SystemTime=\"%s\"/>",
	       guid, etl_event_id(ev), etl_event_version(ev), etl_event_level(ev), etl_event_task(ev),
	       etl_event_opcode(ev), etl_event_keywords(ev), when);
	if (etl_event_activity_id(ev)) {
		char a[ETL_GUID_STRING_SIZE];
		etl_guid_format(etl_event_activity_id(ev), a);
		out_printf("<Correlation ActivityID=\"{%s}\"", a);
		if (etl_event_related_activity_id(ev)) {
			etl_guid_format(etl_event_related_activity_id(ev), a);
			out_printf(" RelatedActivityID=\"{%s}\"", a);
		}
		out_cstr("/>");
	}
	out_cstr("<Execution");
	if (etl_event_pid(ev) != ETL_ID_NONE)
		out_printf(" ProcessID=\"%u\"", etl_event_pid(ev));
	if (etl_event_tid(ev) != ETL_ID_NONE)
		out_printf(" ThreadID=\"%u\"", etl_event_tid(ev));
	out_printf(" ProcessorID=\"%u\"/>", etl_event_cpu(ev));
	if (d && etl_decoded_channel_name(d)) {
		out_cstr("<Channel>");
		xml_text(etl_decoded_channel_name(d));
		out_cstr("</Channel>");
	}
	out_cstr("</System>");
	if (d && etl_decoded_source(d) != ETL_DECODER_NONE) {
		out_cstr("<EventData");
		decode_error_attribute(d);
		out_char('>');
		for (i = 0; i < etl_decoded_property_count(d); i++) {
			const struct etl_property *p = etl_decoded_property_at(d, i);
			const char *v = value_text(p);
			out_cstr("<Data Name=\"");
			xml_text(etl_property_name(p));
			out_cstr("\">");
			xml_text(v ? v : "");
			out_cstr("</Data>");
		}
		for (i = 0; i < etl_decoded_derived_count(d); i++) {
			const struct etl_property *p = etl_decoded_derived_at(d, i);
			out_cstr("<Data Name=\"");
			xml_text(etl_property_name(p));
			out_cstr("\" Derived=\"true\">");
			xml_text(value_text(p));
			out_cstr("</Data>");
		}
		out_cstr("</EventData>");
	} else if (len) {
		out_cstr("<BinaryEventData");
		if (d)
			decode_error_attribute(d);
		out_char('>');
		out_hex(payload, len);
		out_cstr("</BinaryEventData>");
	}
	if (d) {
		out_cstr("<RenderingInfo><Task>");
		xml_text(etl_decoded_name(d));
		out_cstr("</Task>");
		if (etl_decoded_message(d)) {
			out_cstr("<Message>");
			xml_text(etl_decoded_message(d));
			out_cstr("</Message>");
		}
		out_cstr("</RenderingInfo>");
	}
	out_cstr("</Event>\n");
}

static void xml_end(struct etl_reader *r, const struct options *o)
{
	(void)r;
	(void)o;
	out_cstr("</Events>\n");
}

const struct writer writer_xml = {
	.name = "xml",
	.ext = "xml",
	.summary_ext = "txt",
	.stateless = 1,
	.begin = xml_begin,
	.event = xml_event,
	.end = xml_end,
	.summary = summary_text,
	.info = info_text,
};
