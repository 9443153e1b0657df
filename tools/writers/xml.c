/*
 * xml.c - the XML writer: <Events> of <Event> elements in the shape of
 * Windows event XML (System, EventData or BinaryEventData, RenderingInfo).
 *
 * SPDX-License-Identifier: MIT
 */
#include "out.h"
#include "render.h"
#include "summary.h"
#include "writers/writer.h"

static void xml_begin(void *ws, struct etl_reader *r, const struct options *o)
{
	(void)r;
	(void)o;
	out_cstr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Events>\n");
}

/* 1 where xml_text stops: the end, the five characters XML escapes, the control characters XML
 * 1.0 cannot hold even escaped (all below 0x20 but tab, line feed and carriage return), and the
 * lead byte of U+FFFE and U+FFFF (which it cannot hold either). */
static const unsigned char xml_stop[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['<'] = 1, ['>'] = 1, ['&'] = 1, ['"'] = 1, ['\''] = 1, [0xEF] = 1,
};

static void xml_text(const char *s)
{
	for (;;) {
		const char *run = s;
		unsigned char c;

		while (!xml_stop[(unsigned char)*s])
			s++;
		out_mem(run, (size_t)(s - run));
		switch (c = (unsigned char)*s++) {
		case 0: return;
		case '<': OUT_LIT("&lt;"); break;
		case '>': OUT_LIT("&gt;"); break;
		case '&': OUT_LIT("&amp;"); break;
		case '"': OUT_LIT("&quot;"); break;
		case '\'': OUT_LIT("&apos;"); break;
		case 0xEF:
			if ((unsigned char)s[0] == 0xBF && ((unsigned char)s[1] == 0xBE || (unsigned char)s[1] == 0xBF)) {
				OUT_LIT("\xef\xbf\xbd"); /* U+FFFE, U+FFFF: U+FFFD */
				s += 2;
			} else {
				out_char((char)c);
			}
			break;
		default: OUT_LIT("\xef\xbf\xbd"); /* U+FFFD for a control character */
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

static void xml_event(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
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
	OUT_LIT(" Guid=\"{");
	out_cstr(guid);
	OUT_LIT("}\"/><EventID>");
	out_u64(etl_event_id(ev));
	OUT_LIT("</EventID><Version>");
	out_u64(etl_event_version(ev));
	OUT_LIT("</Version><Level>");
	out_u64(etl_event_level(ev));
	OUT_LIT("</Level><Task>");
	out_u64(etl_event_task(ev));
	OUT_LIT("</Task><Opcode>");
	out_u64(etl_event_opcode(ev));
	OUT_LIT("</Opcode><Keywords>0x");
	out_x64(etl_event_keywords(ev));
	OUT_LIT("</Keywords><TimeCreated SystemTime=\"");
	out_cstr(when);
	OUT_LIT("\"/>");
	if (etl_event_activity_id(ev)) {
		char a[ETL_GUID_STRING_SIZE];
		etl_guid_format(etl_event_activity_id(ev), a);
		OUT_LIT("<Correlation ActivityID=\"{");
		out_cstr(a);
		OUT_LIT("}\"");
		if (etl_event_related_activity_id(ev)) {
			etl_guid_format(etl_event_related_activity_id(ev), a);
			OUT_LIT(" RelatedActivityID=\"{");
			out_cstr(a);
			OUT_LIT("}\"");
		}
		out_cstr("/>");
	}
	out_cstr("<Execution");
	if (etl_event_pid(ev) != ETL_ID_NONE) {
		OUT_LIT(" ProcessID=\"");
		out_u64(etl_event_pid(ev));
		out_char('"');
	}
	if (etl_event_tid(ev) != ETL_ID_NONE) {
		OUT_LIT(" ThreadID=\"");
		out_u64(etl_event_tid(ev));
		out_char('"');
	}
	OUT_LIT(" ProcessorID=\"");
	out_u64(etl_event_cpu(ev));
	OUT_LIT("\"/>");
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
			const char *v = render_value_text(p);
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
			xml_text(render_value_text(p));
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

static void xml_end(void *ws, struct etl_reader *r, const struct options *o)
{
	(void)r;
	(void)o;
	out_cstr("</Events>\n");
}

const struct writer writer_xml = {
	.name = "xml",
	.about = "XML, as Windows event logs are",
	.ext = "xml",
	.summary_ext = "txt",
	.stateless = 1,
	.begin = xml_begin,
	.event = xml_event,
	.end = xml_end,
	.summary = summary_text,
	.info = info_text,
};
