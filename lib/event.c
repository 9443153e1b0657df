/*
 * event.c - the public event view: accessors and copies.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"
#include "util/cursor.h"

const char *etl_header_kind_name(enum etl_header_kind k)
{
	switch (k) {
	case ETL_HEADER_SYSTEM: return "system";
	case ETL_HEADER_COMPACT: return "compact";
	case ETL_HEADER_PERFINFO: return "perfinfo";
	case ETL_HEADER_FULL: return "full";
	case ETL_HEADER_INSTANCE: return "instance";
	case ETL_HEADER_EVENT: return "event";
	case ETL_HEADER_MESSAGE: return "message";
	}
	return "unknown";
}

enum etl_header_kind etl_event_header_kind(const struct etl_event *ev) { return ev->kind; }
unsigned etl_event_pointer_size(const struct etl_event *ev) { return ev->ptr_size; }
const struct etl_guid *etl_event_provider(const struct etl_event *ev) { return &ev->provider; }
uint16_t etl_event_id(const struct etl_event *ev) { return ev->id; }
uint8_t etl_event_version(const struct etl_event *ev) { return ev->version; }
uint8_t etl_event_channel(const struct etl_event *ev) { return ev->channel; }
uint8_t etl_event_level(const struct etl_event *ev) { return ev->level; }
uint8_t etl_event_opcode(const struct etl_event *ev) { return ev->opcode; }
uint16_t etl_event_task(const struct etl_event *ev) { return ev->task; }
uint64_t etl_event_keywords(const struct etl_event *ev) { return ev->keywords; }
uint16_t etl_event_hook_id(const struct etl_event *ev) { return ev->hook_id; }
uint32_t etl_event_pid(const struct etl_event *ev) { return ev->pid; }
uint32_t etl_event_tid(const struct etl_event *ev) { return ev->tid; }
uint32_t etl_event_cpu(const struct etl_event *ev) { return ev->cpu; }
uint32_t etl_event_kernel_time(const struct etl_event *ev) { return ev->kernel_time; }
uint32_t etl_event_user_time(const struct etl_event *ev) { return ev->user_time; }
uint16_t etl_event_header_flags(const struct etl_event *ev) { return ev->hdr_flags; }
uint16_t etl_event_property_flags(const struct etl_event *ev) { return ev->prop_flags; }
uint64_t etl_event_timestamp_raw(const struct etl_event *ev) { return ev->ts_raw; }
int etl_event_timestamp_inherited(const struct etl_event *ev) { return !!(ev->flags & ETL_EVF_TS_INHERITED); }
uint64_t etl_event_filetime(const struct etl_event *ev) { return ev->filetime; }
int64_t etl_event_unix_ns(const struct etl_event *ev) { return ev->unix_ns; }
uint32_t etl_event_record_size(const struct etl_event *ev) { return ev->record_size; }
int etl_event_trace_index(const struct etl_event *ev) { return ev->trace_index; }
uint64_t etl_event_file_offset(const struct etl_event *ev) { return ev->file_offset; }
uint64_t etl_event_buffer_index(const struct etl_event *ev) { return ev->buffer_index; }
uint32_t etl_event_buffer_offset(const struct etl_event *ev) { return ev->buffer_offset; }
int etl_event_from_compressed(const struct etl_event *ev) { return !!(ev->flags & ETL_EVF_COMPRESSED); }
uint16_t etl_event_message_flags(const struct etl_event *ev) { return ev->msg_flags; }
unsigned etl_event_pmc_count(const struct etl_event *ev) { return ev->pmc_count; }
unsigned etl_event_extended_count(const struct etl_event *ev) { return ev->ext_count; }

const struct etl_guid *etl_event_activity_id(const struct etl_event *ev)
{
	return (ev->flags & ETL_EVF_ACTIVITY) ? &ev->activity : NULL;
}

const struct etl_guid *etl_event_related_activity_id(const struct etl_event *ev)
{
	return (ev->flags & ETL_EVF_RELATED) ? &ev->related : NULL;
}

int etl_event_instance(const struct etl_event *ev, uint32_t *instance_id,
		       uint32_t *parent_instance_id, struct etl_guid *parent_guid)
{
	if (!(ev->flags & ETL_EVF_INSTANCE))
		return 0;
	if (instance_id)
		*instance_id = ev->instance_id;
	if (parent_instance_id)
		*parent_instance_id = ev->parent_instance_id;
	if (parent_guid)
		*parent_guid = ev->parent_guid;
	return 1;
}

uint64_t etl_event_pmc_at(const struct etl_event *ev, unsigned i)
{
	return i < ev->pmc_count ? etl_le64(ev->pmc + 8 * (size_t)i) : 0;
}

int etl_event_pebs_index(const struct etl_event *ev, uint64_t *value)
{
	if (!(ev->flags & ETL_EVF_PEBS))
		return 0;
	if (value)
		*value = ev->pebs;
	return 1;
}

int etl_event_message_sequence(const struct etl_event *ev, uint32_t *seq)
{
	if (!(ev->flags & ETL_EVF_MSG_SEQ))
		return 0;
	if (seq)
		*seq = ev->msg_seq;
	return 1;
}

int etl_event_message_component_id(const struct etl_event *ev, uint32_t *id)
{
	if (!(ev->flags & ETL_EVF_MSG_COMPID))
		return 0;
	if (id)
		*id = ev->msg_compid;
	return 1;
}

/* The chain was validated when the record was parsed. */
int etl_event_extended_at(const struct etl_event *ev, unsigned i, uint16_t *type,
			  const uint8_t **data, size_t *size)
{
	const uint8_t *p = ev->ext;
	unsigned k;

	if (i >= ev->ext_count)
		return ETL_E_MISUSE;
	for (k = 0; k < i; k++)
		p += etl_le16(p);
	if (type)
		*type = etl_le16(p + 2);
	if (data)
		*data = p + 8;
	if (size)
		*size = etl_le16(p + 6);
	return ETL_OK;
}

int etl_event_extended_find(const struct etl_event *ev, uint16_t type, const uint8_t **data,
			    size_t *size)
{
	unsigned i;

	for (i = 0; i < ev->ext_count; i++) {
		uint16_t t;
		if (etl_event_extended_at(ev, i, &t, data, size) == ETL_OK && t == type)
			return 1;
	}
	return 0;
}

void etl_event_payload(const struct etl_event *ev, const uint8_t **data, size_t *size)
{
	if (data)
		*data = ev->payload;
	if (size)
		*size = ev->payload_len;
}

/* What a copy of ev holds after the event itself: PMC values, extended items, payload, the
 * stack as far as it is completed, what the reader's tables learnt from it. */
static size_t copy_tail(const struct etl_event *ev)
{
	size_t n = (size_t)ev->pmc_count * 8 + ev->ext_len + ev->payload_len + ev->state_fact_len;
	unsigned k;

	for (k = 0; k < ev->nstack_parts; k++)
		n += (size_t)ev->stack_count[k] * ev->stack_ptr[k];
	return n;
}

size_t etl_event_copy_size(const struct etl_event *ev, unsigned flags)
{
	if (!ev)
		return 0;
	if (!(flags & ETL_COPY_STACK_LATER))
		etl__event_stack_ready(ev); /* the copy will hold the whole stack */
	/* rounded up so that copies laid end to end stay aligned */
	return (sizeof(struct etl_event) + copy_tail(ev) + 7) & ~(size_t)7;
}

/* Copies ev into c, which has room for sizeof(*c) + copy_tail(ev) bytes.  A stack the reader
 * has not completed yet stays so: the copy completes it through the same reader (the parts found
 * so far, which point into the reader's buffer, are copied; the index's come later). */
static void copy_to(const struct etl_event *ev, struct etl_event *c)
{
	size_t pmc_len = (size_t)ev->pmc_count * 8;
	uint8_t *p = (uint8_t *)(c + 1);
	unsigned k;

	*c = *ev;
	c->flags &= ~(uint32_t)ETL_EVF_OWNED;
	if (pmc_len) {
		memcpy(p, ev->pmc, pmc_len);
		c->pmc = p;
		p += pmc_len;
	}
	if (ev->ext_len) {
		memcpy(p, ev->ext, ev->ext_len);
		c->ext = p;
		p += ev->ext_len;
	}
	if (ev->payload_len)
		memcpy(p, ev->payload, ev->payload_len);
	c->payload = p;
	p += ev->payload_len;
	for (k = 0; k < ev->nstack_parts; k++) {
		size_t n = (size_t)ev->stack_count[k] * ev->stack_ptr[k];
		if (n)
			memcpy(p, ev->stack_part[k], n);
		c->stack_part[k] = ev->stack_part[k] ? p : NULL; /* NULL: a key the index resolves */
		p += n;
	}
	if (ev->state_fact_len)
		memcpy(p, ev->state_fact, ev->state_fact_len);
	c->state_fact = ev->state_fact_len ? p : NULL;
}

int etl_event_copy(const struct etl_event *ev, struct etl_event **copy)
{
	struct etl_event *c;

	*copy = NULL;
	etl__event_stack_ready(ev); /* a copy of its own: the stack complete, nothing left to the reader */
	c = etl__malloc(sizeof(*c) + copy_tail(ev));
	if (!c)
		return ETL_E_NOMEM;
	copy_to(ev, c);
	c->flags |= ETL_EVF_OWNED;
	*copy = c;
	return ETL_OK;
}

const struct etl_event *etl_event_copy_into(const struct etl_event *ev, void *mem, size_t size,
					    unsigned flags)
{
	if (!ev || !mem || ((uintptr_t)mem & 7) != 0 || size < etl_event_copy_size(ev, flags))
		return NULL;
	copy_to(ev, mem);
	return mem;
}

void etl_event_free(struct etl_event *copy)
{
	if (copy && (copy->flags & ETL_EVF_OWNED))
		etl__free(copy);
}

/* The stack extended item of an EVENT_HEADER record: MatchId, then 4- or 8-byte addresses. */
static size_t ext_stack(const struct etl_event *ev, const uint8_t **frames, unsigned *ptr)
{
	const uint8_t *d;
	size_t n;

	if (etl_event_extended_find(ev, ETL_EXT_STACK_TRACE64, &d, &n) && n >= 8) {
		*frames = d + 8;
		*ptr = 8;
		return (n - 8) / 8;
	}
	if (etl_event_extended_find(ev, ETL_EXT_STACK_TRACE32, &d, &n) && n >= 8) {
		*frames = d + 8;
		*ptr = 4;
		return (n - 8) / 4;
	}
	return 0;
}

size_t etl_event_stack_depth(const struct etl_event *ev)
{
	const uint8_t *f;
	unsigned ptr, k;
	size_t n = 0;

	if (!ev)
		return 0;
	etl__event_stack_ready(ev);
	for (k = 0; k < ev->nstack_parts; k++)
		n += ev->stack_count[k];
	return n ? n : ext_stack(ev, &f, &ptr);
}

uint32_t etl_event_stack_process(const struct etl_event *ev)
{
	if (!ev)
		return ETL_ID_NONE;
	etl__event_stack_ready(ev);
	return ev->nstack_parts ? ev->stack_pid : ev->pid;
}

uint64_t etl_event_stack_frame(const struct etl_event *ev, size_t i)
{
	const uint8_t *f;
	unsigned ptr, k;
	size_t n;

	if (!ev)
		return 0;
	etl__event_stack_ready(ev);
	for (k = 0; k < ev->nstack_parts; k++) {
		if (i < ev->stack_count[k])
			return ev->stack_ptr[k] == 8 ? etl_le64(ev->stack_part[k] + 8 * i)
						     : etl_le32(ev->stack_part[k] + 4 * i);
		i -= ev->stack_count[k];
	}
	if (ev->nstack_parts)
		return 0;
	n = ext_stack(ev, &f, &ptr);
	if (i >= n)
		return 0;
	return ptr == 8 ? etl_le64(f + 8 * i) : etl_le32(f + 4 * i);
}
