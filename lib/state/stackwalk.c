/*
 * stackwalk.c - the StackWalk records and the events they belong to.
 *
 * Stack walks: when stack tracing is on, the kernel logs a StackWalk/Stack record (hook
 * 0x1820: EventTimeStamp, StackProcess, StackThread, frames) right after the event it
 * belongs to, in the same buffer, one for the kernel part and one for the user part; with
 * stack caching it logs StackKeyKernel/StackKeyUser records (0x1825/0x1826: EventTimeStamp,
 * StackProcess, StackThread, a key) instead, whose frames come later.  Before an event is
 * delivered, the records that follow it in its buffer are looked at (a few byte reads when
 * there is none): those that name its time stamp (and its thread, when its header has one)
 * are attached.  They are still delivered as events of their own.  Keys, and the records
 * logged away from their event, are found through the trace's stack index (stacks.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "record/record.h"
#include "state/stacks.h"
#include "util/cursor.h"

#define HOOK_SAMPLE 0x0F2E /* PerfInfo SampledProfile */
#define HOOK_STACK 0x1820
#define HOOK_KEY_DELETE 0x1823
#define HOOK_KEY_RUNDOWN 0x1824
#define HOOK_KEY_KERNEL 0x1825
#define HOOK_KEY_USER 0x1826

static int is_kernel_header(const struct etl_event *ev)
{
	return ev->kind == ETL_HEADER_SYSTEM || ev->kind == ETL_HEADER_COMPACT || ev->kind == ETL_HEADER_PERFINFO;
}

/* The thread a stack record of a record names: its header's (tid), or for a CPU sample (a
 * PerfInfo header, which names none) its payload's, after the instruction pointer. */
static uint32_t owner_tid(uint32_t tid, int sample, const uint8_t *payload, size_t len, size_t ptr)
{
	if (tid == ETL_ID_NONE && sample && len >= ptr + 4)
		return etl_le32(payload + ptr);
	return tid;
}

static uint32_t stack_tid(const struct etl_event *ev)
{
	return owner_tid(ev->tid, ev->kind == ETL_HEADER_PERFINFO && ev->hook_id == HOOK_SAMPLE, ev->payload,
			 ev->payload_len, ev->ptr_size);
}

static void add_key_part(struct etl_event *ev, uint64_t key, uint64_t ts, unsigned ptr)
{
	unsigned k = ev->nstack_parts++;

	ev->stack_key[k] = key;
	ev->stack_key_ts[k] = ts;
	ev->stack_ptr[k] = (uint8_t)ptr;
	ev->stack_part[k] = NULL;
	ev->stack_count[k] = 0;
}

/* The stack record at p (in a buffer, avail bytes from p on): its hook, its header size and
 * pointer size; 0 when p is not a plain stack record. */
static unsigned stack_record_at(const uint8_t *p, size_t avail, size_t *hsz, unsigned *ptr, size_t *size)
{
	uint32_t m, htype;
	unsigned hook;

	if (avail < 24)
		return 0;
	m = etl_le32(p);
	htype = (m >> 16) & 0xFF;
	hook = etl_le16(p + 6);
	*size = etl_le16(p + 4);
	if ((m & 0xC0000000u) != 0xC0000000u || (hook != HOOK_STACK && hook != HOOK_KEY_KERNEL && hook != HOOK_KEY_USER))
		return 0;
	switch (htype) {
	case 0x01: *hsz = 0x20; *ptr = 4; break; /* system, 32-bit */
	case 0x02: *hsz = 0x20; *ptr = 8; break;
	case 0x03: *hsz = 0x18; *ptr = 4; break; /* compact */
	case 0x04: *hsz = 0x18; *ptr = 8; break;
	case 0x10: *hsz = 0x10; *ptr = 4; break; /* perfinfo (no counters on stack records) */
	case 0x11: *hsz = 0x10; *ptr = 8; break;
	default: return 0;
	}
	if (htype >= 0x10 && (etl_le16(p) & 0x8700))
		return 0; /* PMC counters or a PEBS index: not a plain stack record */
	if (*size > avail || *size < *hsz + 16)
		return 0;
	if (hook == HOOK_STACK ? (*size - *hsz - 16) % *ptr != 0 : *size != *hsz + 16 + *ptr)
		return 0;
	return hook;
}

/* Attaches the stack records that follow ev at pos in data[0, fill); returns how many. */
static unsigned attach_following(struct etl_event *ev, const uint8_t *data, size_t fill, size_t pos,
				 uint32_t tid)
{
	unsigned n = 0;

	while (ev->nstack_parts < ETL_STACK_PARTS && pos <= fill) {
		const uint8_t *p = data + pos;
		size_t hsz, size;
		unsigned ptr, hook = stack_record_at(p, fill - pos, &hsz, &ptr, &size);

		if (!hook || etl_le64(p + hsz) != ev->ts_raw ||
		    (tid != ETL_ID_NONE && etl_le32(p + hsz + 12) != tid))
			break;
		if (!n)
			ev->stack_pid = etl_le32(p + hsz + 8); /* StackProcess: whose addresses they are */
		if (hook == HOOK_STACK) {
			ev->stack_part[ev->nstack_parts] = p + hsz + 16;
			ev->stack_count[ev->nstack_parts] = (uint32_t)((size - hsz - 16) / ptr);
			ev->stack_ptr[ev->nstack_parts] = (uint8_t)ptr;
			ev->nstack_parts++;
		} else {
			add_key_part(ev, ptr == 8 ? etl_le64(p + hsz + 16) : etl_le32(p + hsz + 16),
				     etl_le64(p + hsz - 8), ptr);
		}
		n++;
		pos += (size + 7) & ~(size_t)7;
	}
	return n;
}

int etl__stacks_attach(int *seen, struct etl_event *ev, const uint8_t *data, size_t fill, size_t pos)
{
	ev->nstack_parts = 0;
	ev->stack_pid = ev->pid;
	if (ev->kind == ETL_HEADER_EVENT && ev->ext_count) {
		const uint8_t *d;
		size_t n;
		if (etl_event_extended_find(ev, ETL_EXT_STACK_KEY64, &d, &n) && n >= 16)
			add_key_part(ev, etl_le64(d + 8), ev->ts_raw, 8);
		else if (etl_event_extended_find(ev, ETL_EXT_STACK_KEY32, &d, &n) && n >= 12)
			add_key_part(ev, etl_le32(d + 8), ev->ts_raw, 4);
		if (ev->nstack_parts)
			*seen = 1;
	}
	if (is_kernel_header(ev) && ev->hook_id >= HOOK_STACK && ev->hook_id <= HOOK_KEY_USER) {
		*seen = 1;
		return 0; /* a stack record itself */
	}
	if (attach_following(ev, data, fill, pos, stack_tid(ev)))
		*seen = 1;
	return *seen;
}

/* Whether the stack record at data+pos directly follows, in a run of stack records, the
 * event ev_ts/tid before them (then the main pass attaches it, and the index need not). */
static int follows_event(const uint8_t *p, size_t hsz, uint64_t ev_ts, uint32_t tid)
{
	return etl_le64(p + hsz) == ev_ts && (tid == ETL_ID_NONE || etl_le32(p + hsz + 12) == tid);
}

/* Adds the stack record at p (hook, header size hsz, pointer size ptr, size bytes) to the index of
 * records logged away from their event. */
static void add_away(struct etl_stacks *k, const uint8_t *p, unsigned hook, size_t hsz, unsigned ptr,
		     size_t size, uint64_t own_ts, uint64_t max)
{
	struct etl_stackref ref;

	memset(&ref, 0, sizeof(ref));
	ref.event_ts = etl_le64(p + hsz);
	ref.pid = etl_le32(p + hsz + 8);
	ref.tid = etl_le32(p + hsz + 12);
	ref.ptr = (uint8_t)ptr;
	ref.key_ts = own_ts;
	if (hook == HOOK_STACK) {
		ref.count = (uint32_t)((size - hsz - 16) / ptr);
		etl__stacks_add_ref(k, &ref, p + hsz + 16, max);
	} else {
		ref.is_key = 1;
		ref.key = ptr == 8 ? etl_le64(p + hsz + 16) : etl_le32(p + hsz + 16);
		etl__stacks_add_ref(k, &ref, NULL, max);
	}
}

/* Where the index is in a buffer: the time of the record before, and the event the stack records
 * since then follow (in_run: they all do). */
struct walk {
	uint64_t last, owner_ts;
	uint32_t owner_tid;
	int in_run;
};

/* A record that is not a stack record, at time ts: the stack records after it are its own. */
static void note_owner(struct walk *w, uint64_t ts, uint32_t tid)
{
	w->owner_ts = ts;
	w->owner_tid = tid;
	w->in_run = 1;
}

/* A kernel record of the stack hooks at p (avail bytes from p on), at time ts: indexed unless it
 * follows its event (then the main pass attaches it). */
static void note_stack(struct etl_stacks *k, struct walk *w, const uint8_t *p, size_t avail, uint64_t ts,
		       uint64_t max)
{
	size_t hsz, size;
	unsigned ptr, hook = stack_record_at(p, avail, &hsz, &ptr, &size);

	if (!hook || (w->in_run && follows_event(p, hsz, w->owner_ts, w->owner_tid)))
		return;
	w->in_run = 0;
	add_away(k, p, hook, hsz, ptr, size, ts, max);
}

/* Whether the index reads the record peeked at pos whole: an image or .NET method record (maybe),
 * or a stack key's frames. */
static int read_whole(const uint8_t *data, size_t pos, const struct etl_peek *pk)
{
	struct etl_guid cls;

	switch (pk->kind) {
	case ETL_HEADER_SYSTEM: case ETL_HEADER_COMPACT: case ETL_HEADER_PERFINFO:
		return pk->hook == HOOK_KEY_DELETE || pk->hook == HOOK_KEY_RUNDOWN || etl__imagehist_wants_hook(pk->hook);
	case ETL_HEADER_EVENT:
		return etl__methodhist_may_want(etl_le32(data + pos + 24)); /* (the provider GUID's first field) */
	case ETL_HEADER_FULL: case ETL_HEADER_INSTANCE:
		etl_guid_from_le(data + pk->guid_at, &cls);
		return etl__imagehist_wants_class(&cls, pk->opcode);
	default:
		return 0;
	}
}

/* stack_tid of a record peeked at pos. */
static uint32_t peeked_tid(const uint8_t *data, size_t pos, const struct etl_peek *pk)
{
	return owner_tid(pk->tid, pk->kind == ETL_HEADER_PERFINFO && pk->hook == HOOK_SAMPLE, data + pk->payload,
			 pk->end - pk->payload, data[pos + 2] == ETL_HT_PERFINFO32 ? 4 : 8 /* (its header type) */);
}

/* The record at pos, parsed whole: *adv its size; -1 where the records end. */
static int load_whole(struct etl_stacks *k, struct walk *w, const uint8_t *data, size_t fill, size_t pos,
		      unsigned ptr_size, size_t *adv, uint64_t max)
{
	struct etl_event ev;
	struct etl_diag d;
	unsigned ptr;

	if (etl__record_parse(data, fill, pos, ptr_size, &ev, adv, &d) != ETL_OK || *adv == 0)
		return -1;
	if (ev.flags & ETL_EVF_TS_INHERITED)
		ev.ts_raw = w->last;
	w->last = ev.ts_raw;
	if (!is_kernel_header(&ev) || ev.hook_id < HOOK_STACK || ev.hook_id > HOOK_KEY_USER) {
		if (etl__imagehist_wants(&ev))
			etl__imagehist_add(&k->images, &ev, max);
		else if (etl__methodhist_wants(&ev))
			etl__methodhist_add(&k->methods, &ev, max);
		note_owner(w, ev.ts_raw, stack_tid(&ev));
		return 0;
	}
	ptr = ev.ptr_size;
	if (ev.hook_id == HOOK_KEY_DELETE || ev.hook_id == HOOK_KEY_RUNDOWN) {
		w->in_run = 0;
		if (ev.payload_len >= ptr && (ev.payload_len - ptr) % ptr == 0)
			etl__stacks_add_def(k, ptr == 8 ? etl_le64(ev.payload) : etl_le32(ev.payload), ev.ts_raw,
					    ev.payload + ptr, (uint32_t)((ev.payload_len - ptr) / ptr), ptr, max);
		return 0;
	}
	note_stack(k, w, data + pos, fill - pos, ev.ts_raw, max);
	return 0;
}

/* Most records are peeked at (their header's time and thread); only those the index reads, and
 * those a peek does not take, are parsed (all of them when whole). */
static void load_buffer(struct etl_stacks *k, const uint8_t *data, size_t fill, unsigned ptr_size, uint64_t max,
			int whole)
{
	struct walk w = { 0, 0, ETL_ID_NONE, 0 };
	size_t pos, adv;

	for (pos = ETL_BUFFER_HEADER_SIZE; pos < fill; pos += adv) {
		struct etl_peek pk;
		uint64_t ts;

		if (whole || etl__record_peek(data, fill, pos, &pk, &adv) != ETL_OK || read_whole(data, pos, &pk)) {
			if (load_whole(k, &w, data, fill, pos, ptr_size, &adv, max) != 0)
				break;
			continue;
		}
		ts = pk.inherited ? w.last : pk.ts_raw;
		w.last = ts;
		if (pk.stack && pk.kind != ETL_HEADER_EVENT) /* (an event's: a stack key, not a stack record) */
			note_stack(k, &w, data + pos, fill - pos, ts, max);
		else
			note_owner(&w, ts, peeked_tid(data, pos, &pk));
	}
}

void etl__stacks_load_buffer(struct etl_stacks *k, const uint8_t *data, size_t fill, unsigned ptr_size,
			     uint64_t max)
{
	load_buffer(k, data, fill, ptr_size, max, 0);
}

void etl__stacks_load_buffer_whole(struct etl_stacks *k, const uint8_t *data, size_t fill, unsigned ptr_size,
				   uint64_t max)
{
	load_buffer(k, data, fill, ptr_size, max, 1);
}

void etl__stacks_load_range(struct etl_stacks *k, struct etl_bufload *ld, const struct etl_bufindex *ix,
			    uint64_t first, uint64_t end, unsigned ptr_size, uint64_t max_bytes,
			    struct etl_bufkeep *keep)
{
	struct etl_diag d;
	struct etl_bufiter it;
	struct etl_bufent e;
	uint64_t ordinal;
	int st;

	etl__walk_iter_init(&it, ix);
	for (ordinal = 0; etl__walk_iter_next(&it, &e); ordinal++) {
		if (ordinal >= end) {
			etl__walk_iter_stop(&it);
			break;
		}
		if (ordinal < first || e.type == ETL_BUFTYPE_HEADER)
			continue;
		if (keep)
			etl__walk_keep_aim(keep, ld); /* decompressed straight into the keep when it fits */
		st = etl__walk_load(ld, &e, &d);
		if (st != ETL_OK && !ld->data)
			continue;
		etl__stacks_load_buffer(k, ld->data, ld->fill, ptr_size, max_bytes);
		if (keep && st == ETL_OK)
			(void)etl__walk_keep_take(keep, ld, &e);
	}
	ld->into = NULL; /* the keep's space is not the loader's any more */
	ld->into_cap = 0;
}

void etl__stacks_load(struct etl_stacks *k, struct etl_bufload *ld, const struct etl_bufindex *ix,
		      unsigned ptr_size, uint64_t max_bytes, struct etl_bufkeep *keep)
{
	etl__stacks_load_range(k, ld, ix, 0, UINT64_MAX, ptr_size, max_bytes, keep);
	etl__stacks_finish(k);
}

void etl__stacks_resolve(const struct etl_stacks *ix, struct etl_event *ev)
{
	const struct etl_stackref *ref, *end;
	uint32_t tid;
	unsigned k;

	/* Records logged away from the event, after those that follow it.  For an event whose
	 * header names no thread (most PERFINFO records), the records naming its time stamp are
	 * taken when they all name the same thread.  Only kernel records have such stacks (the
	 * merge-time records that repeat an event's time and thread, like ImageID, do not). */
	tid = stack_tid(ev);
	ref = ix->nref && is_kernel_header(ev) ? etl__stacks_find_ref(ix, ev->ts_raw, tid == ETL_ID_NONE ? 0 : tid) : NULL;
	end = ref ? ix->ref + ix->nref : NULL; /* (no arithmetic on the NULL of an empty index) */
	if (ref && tid == ETL_ID_NONE) {
		const struct etl_stackref *q = ref;
		while (q < end && q->event_ts == ev->ts_raw && q->tid == ref->tid)
			q++;
		if (q < end && q->event_ts == ev->ts_raw)
			ref = NULL; /* several threads: ambiguous */
		else
			tid = ref->tid;
	}
	if (ref)
		for (; ref < end && ref->event_ts == ev->ts_raw && ref->tid == tid && ev->nstack_parts < ETL_STACK_PARTS;
		     ref++) {
			k = ev->nstack_parts;
			if (k == 0)
				ev->stack_pid = ref->pid;
			if (ref->is_key) {
				add_key_part(ev, ref->key, ref->key_ts, ref->ptr);
			} else {
				ev->stack_part[k] = ix->pool + ref->off;
				ev->stack_count[k] = ref->count;
				ev->stack_ptr[k] = ref->ptr;
				ev->nstack_parts++;
			}
		}
	for (k = 0; k < ev->nstack_parts; k++) {
		const struct etl_stackdef *e;
		if (ev->stack_part[k])
			continue;
		e = etl__stacks_find_def(ix, ev->stack_key[k], ev->stack_key_ts[k]);
		if (e && e->ptr == ev->stack_ptr[k]) {
			ev->stack_part[k] = ix->pool + e->off;
			ev->stack_count[k] = e->count;
		}
	}
}

