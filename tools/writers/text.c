/*
 * text.c - the text writer: one line per event, "name=value" properties
 * (values quoted when they are not plain tokens), raw events with their
 * header fields and payload hex.  docs/OUTPUT.md has the format.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>

#include "out.h"
#include "render.h"
#include "summary.h"
#include "writers/writer.h"

/* " len=N payload=HEX", cut at --payload-bytes */
static void text_payload(const struct options *o, const uint8_t *payload, size_t len)
{
	size_t shown = len < o->max_payload ? len : o->max_payload;

	OUT_LIT(" len=");
	out_u64(len);
	if (shown) {
		out_cstr(" payload=");
		out_hex(payload, shown);
		if (shown < len)
			out_cstr("...");
	}
}

static void text_event(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
		       const struct etl_decoded *d)
{
	const struct etl_process *proc = etl_reader_event_process(r, ev);

	char when[RENDER_TIME_SIZE], guid[ETL_GUID_STRING_SIZE];
	const uint8_t *payload;
	size_t len, i;
	enum etl_header_kind k = etl_event_header_kind(ev);

	render_time(r, ev, when);
	etl_event_payload(ev, &payload, &len);
	out_cstr(when);
	OUT_LIT(" cpu=");
	out_u64(etl_event_cpu(ev));
	if (etl_event_pid(ev) != ETL_ID_NONE) {
		OUT_LIT(" pid=");
		out_u64(etl_event_pid(ev));
	}
	if (etl_event_tid(ev) != ETL_ID_NONE) {
		OUT_LIT(" tid=");
		out_u64(etl_event_tid(ev));
	}
	if (proc && *etl_process_image_name(proc)) {
		out_cstr(" process=");
		out_text_value(etl_process_image_name(proc));
	}
	if (d) {
		out_char(' ');
		out_text_name(etl_decoded_name(d));
	}
	if (d && etl_decoded_source(d) != ETL_DECODER_NONE) {
		if (render_message(d)) {
			out_cstr(" message=");
			out_text_value(render_message(d));
		}
		for (i = 0; i < etl_decoded_property_count(d); i++) {
			const struct etl_property *p = etl_decoded_property_at(d, i);
			const char *v = render_value_text(p);
			out_char(' ');
			out_text_name(etl_property_name(p));
			out_char('=');
			out_text_value(v ? v : "");
		}
		for (i = 0; i < etl_decoded_derived_count(d); i++) {
			const struct etl_property *p = etl_decoded_derived_at(d, i);
			out_cstr(" derived.");
			out_text_name(etl_property_name(p));
			out_char('=');
			out_text_value(render_value_text(p));
		}
		if (etl_decoded_error(d)) {
			out_cstr(" decode_error=");
			out_text_value(etl_decoded_error(d));
		}
		if (o->all_payloads)
			text_payload(o, payload, len);
		out_stack(r, ev, 0);
		out_char('\n');
		return;
	}
	if (!d) {
		if (k == ETL_HEADER_SYSTEM || k == ETL_HEADER_COMPACT || k == ETL_HEADER_PERFINFO) {
			const char *g = etl_kernel_group_name(etl_event_hook_id(ev) >> 8);
			out_printf(" kernel=%s hook=0x%04x", g ? g : "?", etl_event_hook_id(ev));
		} else {
			etl_guid_format(etl_event_provider(ev), guid);
			out_printf(" provider={%s} id=%u", guid, etl_event_id(ev));
		}
		out_printf(" opcode=%u version=%u level=%u", etl_event_opcode(ev), etl_event_version(ev),
		       etl_event_level(ev));
	} else if (etl_decoded_reason(d)) {
		out_cstr(" undecoded_reason=");
		out_text_value(etl_decoded_reason(d));
	}
	text_payload(o, payload, len);
	out_stack(r, ev, 0);
	out_char('\n');
}

const struct writer writer_text = {
	.name = "text",
	.about = "a line per event (the default)",
	.ext = "txt",
	.summary_ext = "txt",
	.stateless = 1,
	.stacks = 1,
	.event = text_event,
	.summary = summary_text,
	.info = info_text,
};
