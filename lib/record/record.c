/*
 * record.c - trace header kinds (format reference 3.1-3.5).
 *
 * Every kind is decoded through the cursor; a record is accepted only when
 * its declared size holds its fixed header and its optional items.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "record/record.h"
#include "util/cursor.h"

static void set_kernel_provider(struct etl_event *ev, uint16_t hook)
{
	const struct etl_guid *g;
	unsigned group = hook >> 8;

	/* Process group type 10 (LOAD_IMAGE) is reported under the Image class. */
	if (hook == 0x030A)
		group = 0x14;
	g = etl_kernel_group_guid(group);
	if (g)
		ev->provider = *g;
	else
		memset(&ev->provider, 0, sizeof(ev->provider));
	ev->hook_id = hook;
	ev->id = 0xFFFF;
	ev->opcode = (uint8_t)(hook & 0xFF);
}

/* Whether an extended item of isize bytes (its 8-byte header included) holding dsize bytes of
 * data fits the left bytes after its header: the one rule of parse_ext and peek_ext. */
static int ext_item_fits(unsigned isize, unsigned dsize, size_t left)
{
	return isize >= 8 && isize - 8 >= dsize && isize - 8 <= left;
}

/* Walks the extended item chain of an EVENT_HEADER record (3.5). */
static int parse_ext(struct etl_cursor *c, struct etl_event *ev, size_t pos, struct etl_diag *d)
{
	size_t start = c->pos;

	for (;;) {
		size_t item_at = c->pos;
		uint16_t isize, type, link, dsize;
		const uint8_t *data;

		if (cur_left(c) < 8) {
			etl__diag_set(d, ETL_E_TRUNCATED, pos + item_at,
				      "event header: extended item %u header runs past the record", ev->ext_count);
			return ETL_E_TRUNCATED;
		}
		isize = cur_u16(c);
		type = cur_u16(c);
		link = cur_u16(c);
		dsize = cur_u16(c);
		if (!ext_item_fits(isize, dsize, cur_left(c))) {
			etl__diag_set(d, ETL_E_FORMAT, pos + item_at,
				      "event header: extended item %u (type %u) size %u / data size %u does not fit the record",
				      ev->ext_count, (unsigned)type, (unsigned)isize, (unsigned)dsize);
			return ETL_E_FORMAT;
		}
		data = cur_take(c, (size_t)isize - 8);
		if (type == ETL_EXT_RELATED_ACTIVITYID && dsize >= 16 && !(ev->flags & ETL_EVF_RELATED)) {
			etl_guid_from_le(data, &ev->related);
			ev->flags |= ETL_EVF_RELATED;
		} else if (type == ETL_EXT_INSTANCE_INFO && dsize >= 24 && !(ev->flags & ETL_EVF_INSTANCE)) {
			ev->instance_id = etl_le32(data);
			ev->parent_instance_id = etl_le32(data + 4);
			etl_guid_from_le(data + 8, &ev->parent_guid);
			ev->flags |= ETL_EVF_INSTANCE;
		}
		ev->ext_count++;
		if (!(link & 1))
			break;
	}
	ev->ext = c->base + start;
	ev->ext_len = c->pos - start;
	return ETL_OK;
}

/* Fixed header size and name of a header type byte. */
static unsigned header_min(unsigned htype, const char **name)
{
	switch (htype) {
	case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64: *name = "system"; return 0x20;
	case ETL_HT_COMPACT32: case ETL_HT_COMPACT64: *name = "compact"; return 0x18;
	case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64: *name = "perfinfo"; return 0x10;
	case ETL_HT_FULL32: case ETL_HT_FULL64: *name = "full"; return 0x30;
	case ETL_HT_INSTANCE32: case ETL_HT_INSTANCE64: *name = "instance"; return 0x48;
	case ETL_HT_EVENT32: case ETL_HT_EVENT64: *name = "event"; return 0x50;
	default: *name = "message"; return 8;
	}
}

static int too_small(struct etl_diag *d, size_t pos, unsigned htype, unsigned size)
{
	const char *what;
	unsigned need = header_min(htype, &what);

	etl__diag_set(d, ETL_E_FORMAT, pos, "%s header: record size %u is smaller than its %u-byte header",
		      what, size, need);
	return ETL_E_FORMAT;
}

#define TOO_SMALL 2 /* internal: the record is smaller than its kind's fixed header */

static int kind_system(struct etl_cursor *c, unsigned htype, struct etl_event *ev)
{
	int compact = htype == ETL_HT_COMPACT32 || htype == ETL_HT_COMPACT64;

	if (c->len < (compact ? 0x18u : 0x20u))
		return TOO_SMALL;
	ev->kind = compact ? ETL_HEADER_COMPACT : ETL_HEADER_SYSTEM;
	ev->ptr_size = (htype == ETL_HT_SYSTEM32 || htype == ETL_HT_COMPACT32) ? 4 : 8;
	ev->version = (uint8_t)cur_u16(c);
	cur_skip(c, 4);
	set_kernel_provider(ev, cur_u16(c));
	ev->tid = cur_u32(c);
	ev->pid = cur_u32(c);
	ev->ts_raw = cur_u64(c);
	if (!compact) {
		ev->kernel_time = cur_u32(c);
		ev->user_time = cur_u32(c);
	}
	return ETL_OK;
}

static int kind_perfinfo(struct etl_cursor *c, unsigned htype, struct etl_event *ev, size_t pos,
			 struct etl_diag *d)
{
	uint16_t ver;
	unsigned npmc;
	size_t extra;

	if (c->len < 0x10)
		return TOO_SMALL;
	ev->kind = ETL_HEADER_PERFINFO;
	ev->ptr_size = htype == ETL_HT_PERFINFO32 ? 4 : 8;
	ver = cur_u16(c);
	ev->version = (uint8_t)ver;
	cur_skip(c, 4);
	set_kernel_provider(ev, cur_u16(c));
	ev->ts_raw = cur_u64(c);
	npmc = (ver >> 8) & 7;
	extra = (size_t)npmc * 8 + ((ver & 0x8000) ? 8 : 0);
	if (extra > cur_left(c)) {
		etl__diag_set(d, ETL_E_FORMAT, pos, "perfinfo header: %u PMC counters%s do not fit record size %zu",
			      npmc, (ver & 0x8000) ? " and a PEBS index" : "", c->len);
		return ETL_E_FORMAT;
	}
	if (ver & 0x8000) {
		ev->pebs = cur_u64(c);
		ev->flags |= ETL_EVF_PEBS;
	}
	ev->pmc_count = npmc;
	ev->pmc = cur_take(c, (size_t)npmc * 8);
	return ETL_OK;
}

static int kind_full(struct etl_cursor *c, unsigned htype, struct etl_event *ev)
{
	int inst = htype == ETL_HT_INSTANCE32 || htype == ETL_HT_INSTANCE64;

	if (c->len < (inst ? 0x48u : 0x30u))
		return TOO_SMALL;
	ev->kind = inst ? ETL_HEADER_INSTANCE : ETL_HEADER_FULL;
	ev->ptr_size = (htype == ETL_HT_FULL32 || htype == ETL_HT_INSTANCE32) ? 4 : 8;
	cur_skip(c, 4);
	ev->opcode = cur_u8(c);
	ev->level = cur_u8(c);
	ev->version = (uint8_t)cur_u16(c);
	ev->tid = cur_u32(c);
	ev->pid = cur_u32(c);
	ev->ts_raw = cur_u64(c);
	cur_guid(c, &ev->provider);
	ev->kernel_time = cur_u32(c);
	ev->user_time = cur_u32(c);
	if (inst) {
		ev->instance_id = cur_u32(c);
		ev->parent_instance_id = cur_u32(c);
		cur_guid(c, &ev->parent_guid);
		ev->flags |= ETL_EVF_INSTANCE;
	}
	return ETL_OK;
}

static int kind_event(struct etl_cursor *c, unsigned htype, struct etl_event *ev, size_t pos,
		      struct etl_diag *d)
{
	if (c->len < 0x50)
		return TOO_SMALL;
	ev->kind = ETL_HEADER_EVENT;
	ev->ptr_size = htype == ETL_HT_EVENT32 ? 4 : 8;
	cur_skip(c, 4);
	ev->hdr_flags = cur_u16(c);
	ev->prop_flags = cur_u16(c);
	ev->tid = cur_u32(c);
	ev->pid = cur_u32(c);
	ev->ts_raw = cur_u64(c);
	cur_guid(c, &ev->provider);
	ev->id = cur_u16(c);
	ev->version = cur_u8(c);
	ev->channel = cur_u8(c);
	ev->level = cur_u8(c);
	ev->opcode = cur_u8(c);
	ev->task = cur_u16(c);
	ev->keywords = cur_u64(c);
	ev->kernel_time = cur_u32(c);
	ev->user_time = cur_u32(c);
	cur_guid(c, &ev->activity);
	ev->flags |= ETL_EVF_ACTIVITY;
	if (ev->hdr_flags & 0x0001)
		return parse_ext(c, ev, pos, d);
	return ETL_OK;
}

/* MESSAGE_TRACE_HEADER (WPP): its option bits say which items follow. */
static int kind_message(struct etl_cursor *c, struct etl_event *ev, unsigned default_ptr_size, size_t pos,
			struct etl_diag *d)
{
	uint16_t opt;

	ev->kind = ETL_HEADER_MESSAGE;
	cur_skip(c, 4);
	ev->id = cur_u16(c);
	opt = cur_u16(c);
	ev->msg_flags = opt;
	ev->ptr_size = (opt & ETL_MSG_POINTER32) ? 4 : (opt & ETL_MSG_POINTER64) ? 8 : (uint8_t)default_ptr_size;
	if (opt & ETL_MSG_SEQUENCE) {
		ev->msg_seq = cur_u32(c);
		ev->flags |= ETL_EVF_MSG_SEQ;
	}
	if (opt & ETL_MSG_COMPONENT_ID) {
		ev->msg_compid = cur_u32(c);
		ev->flags |= ETL_EVF_MSG_COMPID;
	} else if (opt & ETL_MSG_GUID) {
		cur_guid(c, &ev->provider);
	}
	if (opt & ETL_MSG_TIMESTAMP)
		ev->ts_raw = cur_u64(c);
	else
		ev->flags |= ETL_EVF_TS_INHERITED;
	if (opt & ETL_MSG_SYSTEMINFO) {
		ev->tid = cur_u32(c);
		ev->pid = cur_u32(c);
	}
	if (!cur_ok(c)) {
		etl__diag_set(d, ETL_E_FORMAT, pos, "message header: option items 0x%04x do not fit record size %zu",
			      (unsigned)opt, c->len);
		return ETL_E_FORMAT;
	}
	return ETL_OK;
}

/* Whether a header of type htype keeps its size in its second 32-bit word (the system, compact
 * and PerfInfo headers) rather than in the marker's low 16 bits. */
static int size_after_marker(unsigned htype)
{
	switch (htype) {
	case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64:
	case ETL_HT_COMPACT32: case ETL_HT_COMPACT64:
	case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64:
		return 1;
	default:
		return 0;
	}
}

/* The header type and size of the record at pos (room bytes left in the buffer). */
static int record_bounds(const uint8_t *p, size_t room, size_t pos, unsigned *htype, size_t *size,
			 struct etl_diag *d)
{
	uint32_t m = etl_le32(p);

	if ((m & 0xC0000000u) == 0xC0000000u) {
		*htype = (m >> 16) & 0xFF;
		if (!size_after_marker(*htype)) {
			*size = m & 0xFFFF;
		} else if (room < 8) {
			etl__diag_set(d, ETL_E_TRUNCATED, pos, "record header runs past the buffer's filled bytes");
			return ETL_E_TRUNCATED;
		} else {
			*size = etl_le16(p + 4);
		}
	} else if ((m & 0xD0000000u) == 0x90000000u) {
		*htype = 0x0F; /* MESSAGE */
		*size = m & 0xFFFF;
	} else {
		etl__diag_set(d, ETL_E_FORMAT, pos, "record marker 0x%08x is not a trace header", (unsigned)m);
		return ETL_E_FORMAT;
	}
	if (*size > room) {
		etl__diag_set(d, ETL_E_TRUNCATED, pos, "record size %zu runs past the buffer's filled bytes (%zu left)",
			      *size, room);
		return ETL_E_TRUNCATED;
	}
	if (*size < 8) {
		etl__diag_set(d, ETL_E_FORMAT, pos, "record size %zu is too small for any trace header", *size);
		return ETL_E_FORMAT;
	}
	return ETL_OK;
}

static int parse_kind(struct etl_cursor *c, unsigned htype, struct etl_event *ev, unsigned default_ptr_size,
		      size_t pos, struct etl_diag *d)
{
	switch (htype) {
	case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64:
	case ETL_HT_COMPACT32: case ETL_HT_COMPACT64:
		return kind_system(c, htype, ev);
	case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64:
		return kind_perfinfo(c, htype, ev, pos, d);
	case ETL_HT_FULL32: case ETL_HT_FULL64:
	case ETL_HT_INSTANCE32: case ETL_HT_INSTANCE64:
		return kind_full(c, htype, ev);
	case ETL_HT_EVENT32: case ETL_HT_EVENT64:
		return kind_event(c, htype, ev, pos, d);
	case 0x0F:
		return kind_message(c, ev, default_ptr_size, pos, d);
	default:
		etl__diag_set(d, ETL_E_UNSUPPORTED, pos, "record with %s header type 0x%02x (%zu bytes) skipped",
			      (htype == ETL_HT_TIMED || htype == ETL_HT_ERROR || htype == ETL_HT_WNODE) ? "obsolete"
												  : "unknown",
			      htype, c->len);
		return ETL_E_UNSUPPORTED;
	}
}

int etl__record_parse(const uint8_t *buf, size_t fill, size_t pos, unsigned default_ptr_size,
		      struct etl_event *ev, size_t *advance, struct etl_diag *d)
{
	struct etl_cursor c;
	size_t room, size;
	unsigned htype;
	int st;

	*advance = 0;
	if (pos >= fill || fill - pos < 4)
		return ETL_END;
	room = fill - pos;
	if (etl_le32(buf + pos) == ETL_END_MARKER)
		return ETL_END;
	memset(ev, 0, sizeof(*ev));
	ev->pid = ETL_ID_NONE;
	ev->tid = ETL_ID_NONE;
	st = record_bounds(buf + pos, room, pos, &htype, &size, d);
	if (st != ETL_OK)
		return st;
	cur_init(&c, buf + pos, size);
	ev->record_size = (uint32_t)size;
	st = parse_kind(&c, htype, ev, default_ptr_size, pos, d);
	if (st == ETL_OK && !cur_ok(&c)) { /* cannot happen after the size checks; kept as a guard */
		etl__diag_set(d, ETL_E_FORMAT, pos, "record header runs past its size %zu", size);
		st = ETL_E_FORMAT;
	}
	*advance = (size + 7) & ~(size_t)7;
	if (st == TOO_SMALL) {
		/* a size smaller than the record's own header is damage: no step by it (into the
		 * record, whose ThreadId of 0xFFFFFFFF then reads as an end marker): the caller looks
		 * for the next record */
		*advance = 0;
		return too_small(d, pos, htype, (unsigned)size);
	}
	if (st != ETL_OK)
		return st;
	ev->payload = c.base + c.pos;
	ev->payload_len = cur_left(&c);
	if (*advance > room)
		*advance = room; /* the last record may end without padding */
	return ETL_OK;
}

#define SWALLOWED_TIME_SPAN ((uint64_t)1 << 40) /* clock ticks: 30 hours of a 10 MHz QPC */

static ETL_ALWAYS_INLINE size_t swallowed(const uint8_t *buf, size_t pos, size_t advance, size_t payload, uint64_t ts_raw,
				unsigned default_ptr_size)
{
	size_t end = pos + advance, q = (payload + 7) & ~(size_t)7;

	for (q = q < pos + 16 ? pos + 16 : q; q + 16 <= end; q += 8) {
		uint32_t m = etl_le32(buf + q);
		size_t size, adv;
		struct etl_diag ignored;
		struct etl_event inner;

		/* the marker bit and the sizes that would end it here first, quietly: most payload
		 * bytes stop here (a size is in the marker's low half, or after it) */
		if (!(m & 0x80000000u) ||
		    ((size_t)(end - q - (m & 0xFFFF)) >= 8 && (size_t)(end - q - etl_le16(buf + q + 4)) >= 8))
			continue;
		if ((m & 0xC0000000u) == 0xC0000000u)
			size = size_after_marker((m >> 16) & 0xFF) ? etl_le16(buf + q + 4) : (m & 0xFFFF);
		else if ((m & 0xD0000000u) == 0x90000000u)
			size = m & 0xFFFF;
		else
			continue;
		if (size < 16 || ((size + 7) & ~(size_t)7) != end - q)
			continue;
		/* its time where its kind keeps it (not a message's: its fields vary), before parsing */
		if ((m & 0xC0000000u) == 0xC0000000u) {
			unsigned ht = (m >> 16) & 0xFF;
			size_t at = ht == ETL_HT_PERFINFO32 || ht == ETL_HT_PERFINFO64 ? 8 : 16;
			uint64_t t = etl_le64(buf + q + at);
			if (t < ts_raw || t - ts_raw > SWALLOWED_TIME_SPAN)
				continue;
		}
		/* a record of its own time, at or after this one's, as the next record of a buffer is
		 * (a payload's bytes rarely are: 2^-24 of random 64-bit values are in that range) */
		if (etl__record_parse(buf, end, q, default_ptr_size, &inner, &adv, &ignored) == ETL_OK &&
		    !(inner.flags & ETL_EVF_TS_INHERITED) && inner.ts_raw >= ts_raw &&
		    inner.ts_raw - ts_raw <= SWALLOWED_TIME_SPAN)
			return q;
	}
	return 0;
}

/* The extended items of an EVENT_HEADER record from ext (parse_ext's checks): the payload's
 * offset, or 0 when the chain does not fit; *stack when etl__stacks_attach would find a key. */
static size_t peek_ext(const uint8_t *p, size_t at, size_t size, uint8_t *stack)
{
	int key64 = 0, key32 = 0;

	for (;;) {
		unsigned isize, type, link, dsize;

		if (size - at < 8)
			return 0;
		isize = etl_le16(p + at);
		type = etl_le16(p + at + 2);
		link = etl_le16(p + at + 4);
		dsize = etl_le16(p + at + 6);
		if (!ext_item_fits(isize, dsize, size - at - 8))
			return 0;
		/* the first 64-bit key, else the first 32-bit one */
		if (type == ETL_EXT_STACK_KEY64 && !key64++ && dsize >= 16)
			*stack = 1;
		else if (type == ETL_EXT_STACK_KEY32 && !key32++ && dsize >= 12)
			*stack = 1;
		at += isize;
		if (!(link & 1))
			break;
	}
	return at;
}

/* A message header's option items (kind_message): the payload's offset, or 0 when they do not fit. */
static size_t peek_message(const uint8_t *p, size_t size, struct etl_peek *pk)
{
	unsigned opt = etl_le16(p + 6);
	size_t at = 8;

	at += (opt & ETL_MSG_SEQUENCE) ? 4 : 0;
	at += (opt & ETL_MSG_COMPONENT_ID) ? 4 : (opt & ETL_MSG_GUID) ? 16 : 0;
	if (opt & ETL_MSG_TIMESTAMP) {
		if (at + 8 > size)
			return 0;
		pk->ts_raw = etl_le64(p + at);
		at += 8;
	} else {
		pk->inherited = 1;
	}
	if (opt & ETL_MSG_SYSTEMINFO) {
		if (at + 8 > size)
			return 0;
		pk->tid = etl_le32(p + at);
		at += 8;
	}
	return at <= size ? at : 0;
}

size_t etl__record_swallowed(const uint8_t *buf, size_t pos, size_t advance, size_t payload, uint64_t ts_raw,
			     unsigned default_ptr_size)
{
	return swallowed(buf, pos, advance, payload, ts_raw, default_ptr_size);
}

static int peek(const uint8_t *buf, size_t fill, size_t pos, struct etl_peek *pk, size_t *advance)
{
	const uint8_t *p = buf + pos;
	size_t room = fill - pos, size, at;
	uint32_t m;
	unsigned htype;

	if (pos >= fill || room < 8)
		return ETL_E_FORMAT; /* (the caller asks etl__record_parse what it is) */
	m = etl_le32(p);
	if ((m & 0xC0000000u) == 0xC0000000u && m != ETL_END_MARKER)
		htype = (m >> 16) & 0xFF;
	else if ((m & 0xD0000000u) == 0x90000000u)
		htype = 0x0F;
	else
		return ETL_E_FORMAT;
	size = size_after_marker(htype) ? etl_le16(p + 4) : (m & 0xFFFF);
	if (size > room)
		return ETL_E_FORMAT;
	pk->inherited = 0;
	pk->stack = 0;
	pk->guid_at = 0;
	pk->tid = ETL_ID_NONE;
	switch (htype) {
	case ETL_HT_SYSTEM32: case ETL_HT_SYSTEM64: case ETL_HT_COMPACT32: case ETL_HT_COMPACT64:
		at = htype <= ETL_HT_SYSTEM64 ? 0x20 : 0x18;
		if (size < at)
			return ETL_E_FORMAT;
		pk->kind = htype <= ETL_HT_SYSTEM64 ? ETL_HEADER_SYSTEM : ETL_HEADER_COMPACT;
		pk->hook = etl_le16(p + 6);
		pk->stack = pk->hook >= 0x1820 && pk->hook <= 0x1826; /* StackWalk and stack keys */
		pk->tid = etl_le32(p + 8);
		pk->ts_raw = etl_le64(p + 16);
		break;
	case ETL_HT_PERFINFO32: case ETL_HT_PERFINFO64: {
		unsigned ver = etl_le16(p);
		at = 0x10 + (size_t)((ver >> 8) & 7) * 8 + ((ver & 0x8000) ? 8 : 0);
		if (size < at)
			return ETL_E_FORMAT;
		pk->kind = ETL_HEADER_PERFINFO;
		pk->hook = etl_le16(p + 6);
		pk->stack = pk->hook >= 0x1820 && pk->hook <= 0x1826;
		pk->ts_raw = etl_le64(p + 8);
		break;
	}
	case ETL_HT_FULL32: case ETL_HT_FULL64: case ETL_HT_INSTANCE32: case ETL_HT_INSTANCE64:
		at = (htype == ETL_HT_FULL32 || htype == ETL_HT_FULL64) ? 0x30 : 0x48;
		if (size < at)
			return ETL_E_FORMAT;
		pk->kind = at == 0x30 ? ETL_HEADER_FULL : ETL_HEADER_INSTANCE;
		pk->opcode = p[4];
		pk->tid = etl_le32(p + 8);
		pk->ts_raw = etl_le64(p + 16);
		pk->guid_at = pos + 24;
		break;
	case ETL_HT_EVENT32: case ETL_HT_EVENT64:
		if (size < 0x50)
			return ETL_E_FORMAT;
		pk->kind = ETL_HEADER_EVENT;
		pk->tid = etl_le32(p + 8);
		pk->ts_raw = etl_le64(p + 16);
		pk->id = etl_le16(p + 40);
		pk->opcode = p[45];
		at = (etl_le16(p + 4) & 1) ? peek_ext(p, 0x50, size, &pk->stack) : 0x50;
		if (!at)
			return ETL_E_FORMAT;
		break;
	case 0x0F:
		pk->kind = ETL_HEADER_MESSAGE;
		if (!(at = peek_message(p, size, pk)))
			return ETL_E_FORMAT;
		break;
	default:
		return ETL_E_FORMAT;
	}
	pk->payload = pos + at;
	pk->end = pos + size;
	*advance = (size + 7) & ~(size_t)7;
	if (*advance > room)
		*advance = room;
	return ETL_OK;
}

int etl__record_peek(const uint8_t *buf, size_t fill, size_t pos, struct etl_peek *pk, size_t *advance)
{
	return peek(buf, fill, pos, pk, advance);
}

int etl__record_walk_light(const uint8_t *buf, size_t fill, size_t data_end, unsigned ptr_size, struct etl_light *lt)
{
	size_t pos, adv;

	for (pos = ETL_BUFFER_HEADER_SIZE; pos < fill; pos += adv) {
		struct etl_peek pk;
		uint64_t ts;

		if (peek(buf, fill, pos, &pk, &adv) != ETL_OK) {
			struct etl_event ev;
			struct etl_diag d;
			/* the parser's own status says whether the records end here (reader/merge.c) */
			int st = etl__record_parse(buf, fill, pos, ptr_size, &ev, &adv, &d);
			return (st == ETL_END || st == ETL_E_FORMAT) && pos >= data_end ? ETL_OK : ETL_E_FORMAT;
		}
		ts = pk.inherited ? lt->last : pk.ts_raw;
		if (pos == ETL_BUFFER_HEADER_SIZE) {
			lt->any = 1;
			lt->lead_inherited = pk.inherited;
			lt->first_ts = pk.ts_raw;
		}
		if (ts < lt->last || swallowed(buf, pos, adv, pk.payload, ts, ptr_size))
			return ETL_E_FORMAT;
		if (pk.kind != ETL_HEADER_MESSAGE && (pk.kind != ETL_HEADER_EVENT || pk.id == 0xFFFE) &&
		    lt->each(lt->ctx, buf, pos, &pk) != 0)
			return ETL_E_FORMAT;
		lt->stack |= pk.stack;
		lt->last = ts;
		lt->records++;
	}
	return ETL_OK;
}
