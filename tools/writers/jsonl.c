/*
 * jsonl.c - the JSON Lines writer: one object per event with its header
 * fields, its decoded fields (or why it was not decoded), its stack and, where
 * the fields do not say all of it (or with --payload), its payload in hex; the
 * schema is in docs/OUTPUT.md.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "out.h"
#include "render.h"
#include "summary.h"
#include "writers/writer.h"

static int is_kernel_kind(enum etl_header_kind k)
{
	return k == ETL_HEADER_SYSTEM || k == ETL_HEADER_COMPACT || k == ETL_HEADER_PERFINFO;
}

/* "process" from the reader's process table, and "process_pid" where the process the event is
 * about (etl_reader_event_pid) is known and is not its header's pid */
static void process_json(struct etl_reader *r, const struct etl_event *ev)
{
	const struct etl_process *p = etl_reader_event_process(r, ev);
	uint32_t pid;

	if (p && *etl_process_image_name(p)) {
		out_cstr(",\"process\":\"");
		out_json_name(etl_process_image_name(p));
		out_cstr("\"");
	}
	if ((pid = etl_reader_event_pid(r, ev)) != ETL_ID_NONE && pid != etl_event_pid(ev)) {
		OUT_LIT(",\"process_pid\":");
		out_u64(pid);
	}
}

/* Where the event is, when, and who logged it. */
/* The input's name as a JSON string's content, escaped once per name (per thread; a name is
 * compared whole, as readers come and go in batch mode). */
static void json_file(struct etl_reader *r, int trace)
{
	static _Thread_local char orig[1024], escaped[1024];
	static _Thread_local size_t len = SIZE_MAX;
	const char *name = etl_trace_info_name(etl_reader_trace_info(r, trace));
	size_t n = strlen(name);

	if (n >= sizeof(orig)) {
		out_json_str(name); /* a long name: escaped each time */
		return;
	}
	if (len == SIZE_MAX || strcmp(orig, name) != 0) {
		memcpy(orig, name, n + 1);
		len = out_json_escape(name, escaped, sizeof(escaped));
		if (len == SIZE_MAX) {
			orig[0] = 0;
			out_json_str(name);
			return;
		}
	}
	out_mem(escaped, len);
}

static void json_location(struct etl_reader *r, const struct etl_event *ev)
{
	OUT_LIT("{\"type\":\"event\",\"file\":\"");
	json_file(r, etl_event_trace_index(ev));
	OUT_LIT("\",\"file_offset\":");
	out_u64(etl_event_file_offset(ev));
	OUT_LIT(",\"buffer\":");
	out_u64(etl_event_buffer_index(ev));
	OUT_LIT(",\"buffer_offset\":");
	out_u64(etl_event_buffer_offset(ev));
	OUT_LIT(",\"time\":\"");
	out_filetime(etl_event_filetime(ev));
	OUT_LIT("\",\"unix_ns\":");
	out_time_ns(etl_event_unix_ns(ev));
	OUT_LIT(",\"timestamp\":");
	out_u64_near(etl_event_timestamp_raw(ev));
	if (etl_event_timestamp_inherited(ev))
		OUT_LIT(",\"timestamp_inherited\":true");
	OUT_LIT(",\"header\":\"");
	out_cstr(etl_header_kind_name(etl_event_header_kind(ev)));
	OUT_LIT("\",\"pointer_size\":");
	out_u64(etl_event_pointer_size(ev));
	OUT_LIT(",\"cpu\":");
	out_u64(etl_event_cpu(ev));
	if (etl_event_pid(ev) != ETL_ID_NONE) {
		OUT_LIT(",\"pid\":");
		out_u64(etl_event_pid(ev));
	}
	if (etl_event_tid(ev) != ETL_ID_NONE) {
		OUT_LIT(",\"tid\":");
		out_u64(etl_event_tid(ev));
	}
	process_json(r, ev);
}

/* An event's descriptor as a cache key: the header fields json_descriptor_text writes. */
struct desc_key {
	struct etl_guid provider;
	uint64_t keywords;
	uint16_t id, task, hook_id;
	uint8_t version, channel, level, opcode, kind, pad;
};

/* The text of the descriptors seen last, per thread: events of one identity repeat it. */
#define DESC_SLOTS 64
#define DESC_TEXT 240
struct desc_slot {
	struct desc_key key;
	uint16_t len; /* 0: empty */
	char text[DESC_TEXT];
};

static void desc_key_of(const struct etl_event *ev, struct desc_key *k)
{
	memset(k, 0, sizeof(*k)); /* the padding too: keys are compared with memcmp */
	k->provider = *etl_event_provider(ev);
	k->keywords = etl_event_keywords(ev);
	k->id = etl_event_id(ev);
	k->task = etl_event_task(ev);
	k->hook_id = etl_event_hook_id(ev);
	k->version = etl_event_version(ev);
	k->channel = etl_event_channel(ev);
	k->level = etl_event_level(ev);
	k->opcode = etl_event_opcode(ev);
	k->kind = (uint8_t)etl_event_header_kind(ev);
}

/* The provider, the kernel hook and the event descriptor, from the key alone. */
static void json_descriptor_text(const struct desc_key *k)
{
	char guid[ETL_GUID_STRING_SIZE];

	etl_guid_format(&k->provider, guid);
	OUT_LIT(",\"provider\":\"");
	out_mem(guid, ETL_GUID_STRING_SIZE - 1);
	out_char('"');
	if (is_kernel_kind((enum etl_header_kind)k->kind)) {
		const char *group = etl_kernel_group_name(k->hook_id >> 8);
		OUT_LIT(",\"hook_id\":");
		out_u64(k->hook_id);
		if (group) {
			OUT_LIT(",\"kernel_group\":\"");
			out_cstr(group);
			out_char('"');
		}
	}
	OUT_LIT(",\"id\":");
	out_u64(k->id);
	OUT_LIT(",\"version\":");
	out_u64(k->version);
	OUT_LIT(",\"channel\":");
	out_u64(k->channel);
	OUT_LIT(",\"level\":");
	out_u64(k->level);
	OUT_LIT(",\"opcode\":");
	out_u64(k->opcode);
	OUT_LIT(",\"task\":");
	out_u64(k->task);
	OUT_LIT(",\"keywords\":\"0x");
	out_hex16(k->keywords);
	out_char('"');
}

/* The provider, the kernel hook, the event descriptor and the header flags. */
static void json_descriptor(const struct etl_event *ev)
{
	static _Thread_local struct desc_slot slots[DESC_SLOTS];
	struct desc_key k;
	struct desc_slot *slot;
	enum etl_header_kind kind = etl_event_header_kind(ev);
	uint64_t h;

	desc_key_of(ev, &k);
	h = (k.provider.data1 ^ (uint64_t)k.id << 32 ^ (uint64_t)k.opcode << 48 ^ (uint64_t)k.version << 56 ^
	     k.hook_id ^ k.keywords ^ (uint64_t)k.task << 16) * 0x9E3779B97F4A7C15ull;
	slot = &slots[h >> 58]; /* 6 bits: DESC_SLOTS */
	if (slot->len && memcmp(&slot->key, &k, sizeof(k)) == 0) {
		out_mem(slot->text, slot->len);
	} else {
		/* written, then kept when it went into the window in one piece */
		const char *window = out_buf.data;
		size_t at = out_buf.len;
		json_descriptor_text(&k);
		slot->len = 0;
		if (out_buf.data == window && out_buf.len >= at && out_buf.len - at <= DESC_TEXT) {
			slot->key = k;
			memcpy(slot->text, window + at, out_buf.len - at);
			slot->len = (uint16_t)(out_buf.len - at);
		}
	}
	if (kind == ETL_HEADER_EVENT) {
		OUT_LIT(",\"header_flags\":");
		out_u64(etl_event_header_flags(ev));
		OUT_LIT(",\"event_property\":");
		out_u64(etl_event_property_flags(ev));
	}
	if (kind == ETL_HEADER_SYSTEM || kind == ETL_HEADER_FULL || kind == ETL_HEADER_INSTANCE ||
	    kind == ETL_HEADER_EVENT) {
		OUT_LIT(",\"kernel_time\":");
		out_u64(etl_event_kernel_time(ev));
		OUT_LIT(",\"user_time\":");
		out_u64(etl_event_user_time(ev));
	}
}

/* Activity ids, instance, WPP message fields, PEBS and PMC counters. */
static void json_optional(const struct etl_event *ev)
{
	uint32_t a, b;
	uint64_t v;
	struct etl_guid pg;
	unsigned i, n;

	out_guid_field("activity_id", etl_event_activity_id(ev));
	out_guid_field("related_activity_id", etl_event_related_activity_id(ev));
	if (etl_event_instance(ev, &a, &b, &pg)) {
		OUT_LIT(",\"instance_id\":");
		out_u64(a);
		OUT_LIT(",\"parent_instance_id\":");
		out_u64(b);
		out_guid_field("parent_guid", &pg);
	}
	if (etl_event_header_kind(ev) == ETL_HEADER_MESSAGE) {
		OUT_LIT(",\"message_flags\":");
		out_u64(etl_event_message_flags(ev));
		if (etl_event_message_sequence(ev, &a)) {
			OUT_LIT(",\"sequence\":");
			out_u64(a);
		}
		if (etl_event_message_component_id(ev, &a)) {
			OUT_LIT(",\"component_id\":");
			out_u64(a);
		}
	}
	if (etl_event_pebs_index(ev, &v)) {
		OUT_LIT(",\"pebs_index\":");
		out_u64(v);
	}
	n = etl_event_pmc_count(ev);
	if (n) {
		OUT_LIT(",\"pmc\":[");
		for (i = 0; i < n; i++) {
			if (i)
				out_char(',');
			out_u64(etl_event_pmc_at(ev, i));
		}
		out_char(']');
	}
}

static void json_extended(const struct etl_event *ev)
{
	unsigned i, n = etl_event_extended_count(ev);

	if (!n)
		return;
	OUT_LIT(",\"extended\":[");
	for (i = 0; i < n; i++) {
		uint16_t type;
		const uint8_t *xd;
		size_t dl;

		etl_event_extended_at(ev, i, &type, &xd, &dl);
		if (i)
			out_char(',');
		OUT_LIT("{\"type\":");
		out_u64(type);
		OUT_LIT(",\"data\":\"");
		out_hex(xd, dl);
		OUT_LIT("\"}");
	}
	out_char(']');
}

/* {"name":value,...} of n properties (the fields, or the derived fields) */
static void json_object(const struct etl_decoded *d, size_t n,
			const struct etl_property *(*at)(const struct etl_decoded *, size_t))
{
	size_t i;

	out_char('{');
	for (i = 0; i < n; i++) {
		const struct etl_property *p = at(d, i);
		if (i)
			out_char(',');
		out_char('"');
		out_json_name(etl_property_name(p));
		out_cstr("\":");
		out_json_value(p, 0);
	}
	out_char('}');
}

/* The name, the decoder, and the fields or why there are none. */
static void json_decoded(const struct etl_decoded *d)
{
	OUT_LIT(",\"name\":\"");
	out_json_name(etl_decoded_name(d));
	OUT_LIT("\",\"decoder\":\"");
	out_cstr(etl_decoder_name(etl_decoded_source(d)));
	out_char('"');
	if (etl_decoded_described_version(d) >= 0) {
		OUT_LIT(",\"described_version\":");
		out_u64((uint64_t)etl_decoded_described_version(d));
	}
	if (etl_decoded_error(d)) {
		OUT_LIT(",\"decode_error\":\"");
		out_json_str(etl_decoded_error(d));
		out_char('"');
	}
	if (etl_decoded_source(d) == ETL_DECODER_NONE) {
		if (etl_decoded_reason(d)) {
			OUT_LIT(",\"undecoded_reason\":\"");
			out_json_str(etl_decoded_reason(d));
			out_char('"');
		}
		return;
	}
	if (render_message(d)) {
		OUT_LIT(",\"message\":\"");
		out_json_str(render_message(d));
		out_char('"');
		if (etl_decoded_level_name(d)) {
			OUT_LIT(",\"level_name\":\"");
			out_json_str(etl_decoded_level_name(d));
			out_char('"');
		}
		if (etl_decoded_keywords_name(d)) {
			OUT_LIT(",\"flags_name\":\"");
			out_json_str(etl_decoded_keywords_name(d));
			out_char('"');
		}
	}
	OUT_LIT(",\"fields\":");
	json_object(d, etl_decoded_property_count(d), etl_decoded_property_at);
	if (etl_decoded_derived_count(d)) {
		OUT_LIT(",\"derived\":");
		json_object(d, etl_decoded_derived_count(d), etl_decoded_derived_at);
	}
	if (etl_decoded_trailing_bytes(d)) {
		OUT_LIT(",\"trailing_bytes\":");
		out_u64(etl_decoded_trailing_bytes(d));
	}
}

static void jsonl_event(void *ws, struct etl_reader *r, const struct options *o, const struct etl_event *ev,
			const struct etl_decoded *d)
{
	const uint8_t *payload;
	size_t len;

	etl_event_payload(ev, &payload, &len);
	json_location(r, ev);
	json_descriptor(ev);
	json_optional(ev);
	json_extended(ev);
	if (d)
		json_decoded(d);
	out_stack(r, ev, 1);
	OUT_LIT(",\"record_size\":");
	out_u64(etl_event_record_size(ev));
	OUT_LIT(",\"payload_size\":");
	out_u64(len);
	if (render_payload_wanted(o, d)) {
		OUT_LIT(",\"payload\":\"");
		out_hex(payload, len);
		out_char('"');
	}
	OUT_LIT("}\n");
}

const struct writer writer_jsonl = {
	.name = "jsonl",
	.about = "JSON Lines, an object per event",
	.ext = "jsonl",
	.summary_ext = "json",
	.stateless = 1,
	.stacks = 1,
	.event = jsonl_event,
	.summary = summary_json,
	.info = info_json,
};
