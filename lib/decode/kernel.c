/*
 * kernel.c - decoding the classic kernel events with their built-in layouts
 * (the tables are in ktables.c): schemas built once per layout and pointer
 * size, a cache of the kinds a trace repeats, and the checks that keep a
 * doubtful layout from decoding.  Names are PerfView's
 * ("Windows Kernel/Process/Start").
 *
 * Pointer size: for SYSTEM/COMPACT/PERFINFO records it is the header's.
 * Classic MOF records (FULL/INSTANCE headers with a kernel class GUID) were
 * sometimes laid out by programs of the other pointer size (the sawbuck
 * `_64_` traces); for them a pointer size is used only when the payload
 * proves it (the layout uses every byte, a final string ends exactly at the
 * end, and the values can be: FORMAT-NOTES section 10), else the event stays
 * raw and the decoding is reported as a problem.  The kernel's own records
 * (SYSTEM, COMPACT and PERFINFO headers) follow their header's pointer size
 * and are never judged by their values.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "codec/lznt1.h"
#include "decode/ktables.h"
#include "util/cursor.h"

/* Notes where a layout has the fields implausible() checks (the first of each name; no layout
 * repeats one), at 1 + its index. */
static void set_role(uint8_t roles[3], const char *name, uint8_t at)
{
	static const char *const names[3] = { "ImageSize", "ProcessID", "ParentID" };
	unsigned r;

	for (r = 0; r < 3; r++)
		if (!roles[r] && strcmp(name, names[r]) == 0)
			roles[r] = at;
}

/* Schemas are built once per (layout, shape) and kept.  The shapes: 4-byte pointers, 8-byte
 * pointers, and (for MOF-class image records) 8-byte pointers with a 32-bit ImageSize, the struct
 * 32-bit programs wrote for themselves (FORMAT-NOTES section 10): packed, or with the natural
 * alignment a compiler gives it (an 8-byte field at a multiple of 8, a Padding field before it
 * where it would not be). */
enum kshape { KSHAPE_PTR4, KSHAPE_PTR8, KSHAPE_MIXED, KSHAPE_ALIGNED };

/* The bytes a kernel field of a fixed size takes in a shape, or 0 when its size varies. */
static unsigned fixed_size(const struct kf *k, enum kshape shape)
{
	switch (k->in) {
	case ETL_IN_UINT8: case ETL_IN_INT8: return 1;
	case ETL_IN_UINT16: case ETL_IN_INT16: return 2;
	case ETL_IN_UINT32: case ETL_IN_INT32: return 4;
	case ETL_IN_UINT64: case ETL_IN_INT64: case ETL_IN_FILETIME: return 8;
	case ETL_IN_GUID: return 16;
	case ETL_IN_POINTER:
		return shape == KSHAPE_PTR4 || (shape >= KSHAPE_MIXED && strcmp(k->name, "ImageSize") == 0) ? 4 : 8;
	default: return 0;
	}
}

static const struct etl_field padding = { .name = "Padding", .in_type = ETL_IN_BINARY, .flags = FF_LEN_CONST,
					  .length = 4 };

static int build_schema(struct etl_kernel_cache *kc, const struct klayout *l, enum kshape shape,
			const struct etl_schema **out)
{
	size_t idx = (size_t)(l - etl__klayouts) * ETL_KERNEL_SHAPES + shape;
	struct etl_schema *s = &kc->schemas[idx];
	uint8_t i, n = 0;
	int at = 0, padded = 0; /* the offset of the next field (-1: not known), and Padding put in */

	if (kc->built[idx]) {
		*out = s;
		return kc->built[idx] == 1 ? ETL_OK : ETL_END;
	}
	/* (room for a Padding field before each field, in the aligned shape) */
	s->fields = etl__calloc(l->nfields ? 2u * l->nfields : 1, sizeof(*s->fields));
	s->top = etl__calloc(l->nfields ? 2u * l->nfields : 1, sizeof(*s->top));
	if (!s->fields || !s->top) {
		etl__free(s->fields);
		etl__free(s->top);
		memset(s, 0, sizeof(*s));
		return ETL_E_NOMEM;
	}
	for (i = 0; i < l->nfields; i++) {
		const struct kf *k = &l->fields[i];
		unsigned size = fixed_size(k, shape);
		struct etl_field *f;
		if (shape == KSHAPE_ALIGNED && at >= 0 && size == 8 && at % 8 == 4) {
			s->fields[n] = padding;
			s->top[n] = n;
			n++;
			at += 4;
			padded = 1;
		}
		at = at >= 0 && size ? at + (int)size : -1; /* (past a field of varying size: not known) */
		f = &s->fields[n];
		f->name = k->name;
		f->in_type = k->in;
		f->out_type = k->out;
		f->map = k->map;
		if (shape >= KSHAPE_MIXED && k->in == ETL_IN_POINTER && strcmp(k->name, "ImageSize") == 0) {
			f->in_type = ETL_IN_UINT32;
			f->out_type = ETL_OUT_HEXINT32;
		}
		if (k->flags & KF_COUNT) {
			f->flags |= FF_COUNT_FIELD;
			f->count = k->length;
		} else if ((k->in == ETL_IN_BINARY || k->in == ETL_IN_UNICODESTRING) && k->length) {
			f->flags |= FF_LEN_CONST;
			f->length = k->length;
		}
		if (k->flags & KF_REST)
			f->flags |= FF_COUNT_REST;
		s->top[n] = n;
		n++;
		if (!padded) /* (the roles are the unpadded shapes' places: the aligned one keeps them) */
			set_role(kc->roles[l - etl__klayouts], k->name, n);
		else if (strcmp(k->name, "ImageSize") == 0 || strcmp(k->name, "ProcessID") == 0 ||
			 strcmp(k->name, "ParentID") == 0)
			padded = 2; /* a role moved: this shape is not used */
	}
	s->nfields = n;
	s->ntop = n;
	/* an aligned shape that needs no padding is the packed one, and one whose padding moves a
	 * value the checks read is not tried: ETL_END */
	kc->built[idx] = shape == KSHAPE_ALIGNED && padded != 1 ? 2 : 1;
	*out = s;
	return kc->built[idx] == 1 ? ETL_OK : ETL_END;
}

void etl__kernel_cache_free(struct etl_kernel_cache *kc)
{
	size_t i;

	for (i = 0; i < sizeof(kc->schemas) / sizeof(kc->schemas[0]); i++) {
		etl__free(kc->schemas[i].fields);
		etl__free(kc->schemas[i].top);
	}
	for (i = 0; i < ETL_KERNEL_KIND_SLOTS; i++) {
		etl__free(kc->kinds[i].name);
		etl__free(kc->kinds[i].reason);
	}
}

static const char *implausible(const struct etl_decoded *d, const uint8_t roles[3]);

/* The reason an event stays raw when no layout of either pointer size fits it. */
static const char *kernel_reason(struct etl_decoded *d, const char *why4, const char *why8)
{
	char *r = etl__arena_alloc(&d->arena, 256);

	if (!r)
		return "no layout fits the payload: not decoded";
	if (why4 && why8 && strcmp(why4, why8) != 0)
		snprintf(r, 256, "no layout fits the payload (with 4-byte pointers %s; with 8-byte ones %s): not decoded",
			 why4, why8);
	else
		snprintf(r, 256, "no layout fits the payload (%s): not decoded", why4 ? why4 : why8);
	return r;
}

/* Whether the last top-level property, a string, ends exactly at the payload's end and reads as
 * a file name or command line does: no control characters at all, no private-use or surrogate
 * code units (a read with the wrong pointer size starts the string inside a number). */
static int string_ends_payload(const struct etl_decoded *d, const struct etl_schema *s, const uint8_t *end)
{
	const struct etl_field *last = &s->fields[s->top[s->ntop - 1]];
	const struct etl_property *lp = &d->nodes[d->ntop - 1];
	size_t i;

	if (last->in_type == ETL_IN_UNICODESTRING) {
		if (!lp->data || lp->data + lp->len + 2 != end)
			return 0;
		for (i = 0; i + 1 < lp->len; i += 2) {
			uint16_t u = etl_le16(lp->data + i);
			if (u < 0x20 || (u >= 0xD800 && u <= 0xF8FF))
				return 0;
		}
	} else if (last->in_type == ETL_IN_ANSISTRING) {
		if (!lp->data || lp->data + lp->len + 1 != end)
			return 0;
		for (i = 0; i < lp->len; i++)
			if (lp->data[i] < 0x20)
				return 0;
	}
	return 1;
}

/* Whether a payload decoded with s used every byte, with a final string ending at the end and
 * values that can be (*why says why not, when that is what failed).  With keep, a decoding that
 * proves the layout is left in d as the event's. */
static int proves(struct etl_decoded *d, const struct etl_schema *s, const struct etl_event *ev, unsigned ptr,
		  const uint8_t roles[3], int keep, const char **why, struct etl_diag *diag)
{
	uint32_t save_nodes = d->nnodes;
	int st = etl__schema_decode(d, s, ev->payload, ev->payload_len, ptr, diag), ok;

	ok = st == ETL_OK && d->trailing == 0;
	if (ok && s->ntop > 0)
		ok = string_ends_payload(d, s, ev->payload + ev->payload_len);
	if (!ok)
		*why = "its fields do not account for the payload";
	else if ((*why = implausible(d, roles)) != NULL)
		ok = 0;
	if (!(ok && keep)) {
		d->nnodes = save_nodes;
		d->ntop = 0;
	}
	return ok;
}

/* What the decoded values of a MOF-class record say about the layout it was read with: NULL when
 * they can be, else why not (static text).  An image larger than a PE image can be (SizeOfImage is
 * 32 bits), or a process id that Windows cannot give (they are multiples of 4; 0xFFFFFFFF is let
 * through).  A layout of the wrong pointer size reads numbers out of neighbouring fields and
 * strings, which these catch (FORMAT-NOTES section 10).  A payload ProcessID that differs from the
 * header's pid says nothing: rundown records are logged by the thread that ends the session. */
static const char *implausible(const struct etl_decoded *d, const uint8_t roles[3])
{
	uint32_t i;

	for (i = 0; i < d->ntop; i++) { /* in field order: the first fault found is the one said */
		const struct etl_property *p = &d->nodes[i];
		if (!p->data || p->kind != ETL_PROPERTY_VALUE)
			continue;
		if (i + 1 == roles[0] && (p->len == 4 || p->len == 8)) {
			if ((p->len == 8 ? etl_le64(p->data) : etl_le32(p->data)) > UINT32_MAX)
				return "ImageSize is above 4 GiB";
		} else if ((i + 1 == roles[1] || i + 1 == roles[2]) && p->len == 4) {
			uint32_t v = etl_le32(p->data);
			if (v % 4 != 0 && v != UINT32_MAX)
				return i + 1 == roles[1] ? "ProcessID is not a multiple of 4" : "ParentID is not a multiple of 4";
		}
	}
	return NULL;
}

/* WinSAT's Xml: the LZNT1 chunks become the UTF-16 text they hold (at most 16 MiB). */
#define WINSAT_MAX_XML ((size_t)16 << 20)
static int winsat_xml(struct etl_decoded *d, struct etl_diag *diag)
{
	struct etl_property *size_p = &d->nodes[1], *xml = &d->nodes[2];
	size_t usize, produced = 0, err_at = 0;
	const char *why = NULL;
	uint8_t *out;

	if (d->ntop != 3 || !size_p->data || !xml->data)
		return ETL_OK;
	usize = etl_le32(size_p->data);
	if (usize > WINSAT_MAX_XML || usize % 2) {
		etl__diag_set(diag, ETL_E_FORMAT, 4, "WinSAT record: uncompressed size %zu is odd or over %zu", usize, WINSAT_MAX_XML);
		return ETL_E_FORMAT;
	}
	out = etl__arena_alloc(&d->arena, usize + 2);
	if (!out) {
		etl__diag_set(diag, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	if (etl__lznt1_decompress(xml->data, xml->len, out, usize, &produced, &err_at, &why) != 0 ||
	    produced != usize) {
		etl__diag_set(diag, ETL_E_FORMAT, 8 + (uint64_t)err_at,
			      "WinSAT record: LZNT1 data: %s (%zu of %zu bytes)", why ? why : "ends short",
			      produced, usize);
		return ETL_E_FORMAT;
	}
	out[usize] = out[usize + 1] = 0;
	xml->data = out;
	xml->len = usize;
	xml->in_type = ETL_IN_UNICODESTRING;
	xml->out_type = ETL_OUT_XML;
	xml->text = NULL;
	return ETL_OK;
}

struct etl_kernel_kind *etl__kernel_kind(struct etl_kernel_cache *kc, unsigned group, unsigned opcode,
					       unsigned version)
{
	uint32_t key = 1u << 24 | (group & 0xFF) << 16 | (opcode & 0xFF) << 8 | (version & 0xFF);
	struct etl_kernel_kind *k = &kc->kinds[((key * 2654435761u) >> 16) % ETL_KERNEL_KIND_SLOTS];
	const struct klayout *l;
	/* PerfView has no parser for SystemConfig/Platform and Image/KernelBase and names them by
	 * their MOF provider */
	const char *pn = (group == 0x0B && opcode == 25) || (group == 0x14 && opcode == 33)
				 ? "MSNT_SystemTrace" : etl__kernel_provider_name(group);
	char tmp[160];

	if (k->key == key)
		return k;
	etl__free(k->name);
	etl__free(k->reason);
	memset(k, 0, sizeof(*k));
	l = etl__klayout_find(group, opcode, version);
	etl__kernel_names(group, opcode, &k->task, &k->op);
	if (k->task && k->op)
		snprintf(tmp, sizeof(tmp), "%s/%s/%s", pn, k->task, k->op);
	else if (k->task && opcode == 0)
		snprintf(tmp, sizeof(tmp), "%s/%s", pn, k->task);
	else if (k->task)
		snprintf(tmp, sizeof(tmp), "%s/%s/Opcode(%u)", pn, k->task, opcode);
	else
		snprintf(tmp, sizeof(tmp), "%s/Group(%u)/Opcode(%u)", pn, group, opcode);
	k->name = etl__strdup(tmp);
	if (!k->name)
		return NULL;
	k->layout = l ? (uint8_t)(l - etl__klayouts + 1) : 0;
	k->provider = pn;
	k->key = key;
	return k;
}

/* After a layout's decoding: WinSAT's compressed XML. */
static int finish(struct etl_decoded *d, const struct klayout *l, int st, struct etl_diag *diag)
{
	if (st == ETL_OK && l->fields == etl__k_winsat)
		st = winsat_xml(d, diag);
	return st;
}

/* The shape 32-bit programs wrote for themselves: a 64-bit base, a 32-bit ImageSize and a 32-bit
 * ProcessID that is the logging process's own (the header's pid), accounting for every byte;
 * packed, then naturally aligned. */
static int proves_mixed(struct etl_kernel_cache *kc, struct etl_decoded *d, const struct klayout *l,
			const struct etl_event *ev, struct etl_diag *diag)
{
	const uint8_t *roles = kc->roles[l - etl__klayouts];
	const struct etl_schema *s;
	const char *why = NULL;
	enum kshape shape;

	if (!roles[0] || !roles[1] || ev->pid == ETL_ID_NONE)
		return 0;
	for (shape = KSHAPE_MIXED; shape <= KSHAPE_ALIGNED; shape++) {
		if (build_schema(kc, l, shape, &s) != ETL_OK || !proves(d, s, ev, 8, roles, 1, &why, diag))
			continue;
		if (d->ntop >= roles[1] && d->nodes[roles[1] - 1].len == 4 &&
		    etl_le32(d->nodes[roles[1] - 1].data) == ev->pid)
			return 1;
		d->nnodes = d->ntop = 0;
	}
	return 0;
}

/* A MOF-class event: its layout's pointer size must be proven by the payload.  The header's size
 * is tried first: when the payload proves it, that decoding is the event's whatever the other size
 * would give, so the other is tried only when it does not; then the 32-bit programs' own shape.
 * ETL_END with d->reason when none is proven (d->doubtful: the layout is known, the payload does
 * not prove it - a decoding problem, reported). */
static int decode_mof(struct etl_kernel_cache *kc, struct etl_decoded *d, const struct etl_event *ev,
		      const struct klayout *l, struct etl_diag *diag)
{
	const struct etl_schema *s4, *s8;
	const char *why[2] = { NULL, NULL }; /* the header's size, the other */
	const uint8_t *roles = kc->roles[l - etl__klayouts];
	unsigned ptr = ev->ptr_size, other = ptr == 8 ? 4 : 8;
	int st;

	if ((st = build_schema(kc, l, KSHAPE_PTR4, &s4)) != ETL_OK || (st = build_schema(kc, l, KSHAPE_PTR8, &s8)) != ETL_OK)
		return st;
	if (proves(d, ptr == 8 ? s8 : s4, ev, ptr, roles, 1, &why[0], diag) ||
	    proves(d, other == 8 ? s8 : s4, ev, other, roles, 1, &why[1], diag) ||
	    proves_mixed(kc, d, l, ev, diag))
		return finish(d, l, ETL_OK, diag);
	d->reason = ptr == 8 ? kernel_reason(d, why[1], why[0]) : kernel_reason(d, why[0], why[1]);
	d->doubtful = 1;
	return ETL_END;
}

int etl__kernel_decode(struct etl_kernel_cache *kc, struct etl_decoded *d, const struct etl_event *ev,
		       const struct etl_kernel_kind *kind, struct etl_diag *diag)
{
	const struct klayout *l = kind->layout ? &etl__klayouts[kind->layout - 1] : NULL;
	const struct etl_schema *s;
	int st;

	if (!l)
		return ETL_END; /* no layout: the caller keeps the event raw */
	if (ev->kind == ETL_HEADER_FULL || ev->kind == ETL_HEADER_INSTANCE)
		return decode_mof(kc, d, ev, l, diag);
	for (;;) {
		if ((st = build_schema(kc, l, ev->ptr_size == 8 ? KSHAPE_PTR8 : KSHAPE_PTR4, &s)) != ETL_OK)
			return st;
		st = etl__schema_decode(d, s, ev->payload, ev->payload_len, ev->ptr_size, diag);
		if (!l->strict || !((st != ETL_OK && st != ETL_E_NOMEM && st != ETL_E_LIMIT) ||
				    (st == ETL_OK && d->trailing != 0)))
			break;
		/* an unchecked layout that does not account for the payload exactly: not used */
		d->nnodes = d->ntop = 0;
		d->trailing = 0;
		if (l->strict == STRICT_OR_NEXT) {
			l++; /* the alternative on the next row */
			continue;
		}
		d->reason = "the payload does not fit the documented layout of this kernel event exactly: not decoded";
		return ETL_END;
	}
	return finish(d, l, st, diag);
}
