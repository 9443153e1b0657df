/*
 * schema.h - the one description of a payload that every decoder builds
 * (TraceLogging metadata, manifests, merge-time TRACE_EVENT_INFO, built-in
 * kernel layouts), and the engine that decodes a payload against it into a
 * property tree.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_SCHEMA_SCHEMA_H
#define ETL_SCHEMA_SCHEMA_H

#include "internal.h"
#include "util/arena.h"
#include "util/cursor.h"

/* field flags */
enum {
	FF_STRUCT = 1u << 0,      /* members in `members` */
	FF_COUNT_CONST = 1u << 1, /* array of `count` elements */
	FF_COUNT_DATA = 1u << 2,  /* array: u16 element count precedes the elements (TraceLogging VCOUNT) */
	FF_COUNT_FIELD = 1u << 3, /* array: count is the value of sibling field `count` */
	FF_LEN_CONST = 1u << 4,   /* string/binary of `length` units */
	FF_LEN_FIELD = 1u << 5,   /* length is the value of sibling field `length` */
	FF_LEN_PREFIX16 = 1u << 6,/* u16 byte length precedes the value (TraceLogging BINARY) */
	FF_CUSTOM = 1u << 7,      /* u16 size + opaque bytes (TraceLogging custom schema) */
	FF_COUNT_REST = 1u << 8   /* array: as many elements as the rest of the payload holds */
};

/* a value map or bit map (manifest valueMap/bitMap, EVENT_MAP_INFO, built-in kernel maps) */
struct etl_map_entry {
	uint32_t value;
	const char *text;
};

struct etl_map {
	const char *name;
	int bitmap;
	uint32_t count;
	const struct etl_map_entry *entries;
	/* a bit map may hold a small number in some bits (IrpFlags' I/O priority): shown after the
	 * bits as "sub_name=text" through sub (a value map), when sub names it */
	uint32_t sub_mask;
	unsigned sub_shift;
	const char *sub_name;
	const struct etl_map *sub;
	/* a value map's entries by value (their positions, ties in entry order), so that a value is
	 * found in log time whatever a manifest or trace makes the map hold; NULL: searched in order */
	const uint32_t *by_value;
};

struct etl_field {
	const char *name;
	const char *map_name;   /* resolved when decoding (maps may arrive later) */
	const struct etl_map *map; /* a map known when the schema is built (built-in kernel maps) */
	uint16_t in_type, out_type;
	uint16_t flags;
	uint16_t count;     /* constant, or field index */
	uint16_t length;    /* constant, or field index */
	uint16_t nmembers;  /* FF_STRUCT: number of member indexes at members */
	const uint16_t *members;
	uint32_t tags;
	const uint8_t *custom_schema; /* FF_CUSTOM: the schema bytes (in the schema's block) */
	uint16_t custom_len;
};

struct etl_schema {
	char *event_name;          /* TraceLogging event name, or NULL */
	uint32_t event_tags;
	struct etl_field *fields;
	uint16_t nfields;
	uint16_t ntop;
	uint16_t *top;             /* indexes of the top-level fields */
	/* the single allocation holding everything above (freed with etl__schema_free) */
	void *block;
};

void etl__schema_free(struct etl_schema *s);
/* ClrStack/Walk: the CLR's manifest (and the merge-time metadata made from it) declares its Stack
 * an array of 2 pointers, but each record holds FrameCount of them (TraceEvent reads them so).  A
 * top-level array of constant count named Stack, after a top-level integer FrameCount, takes its
 * count from FrameCount (FORMAT-NOTES section 8). */
void etl__schema_count_frames(struct etl_schema *s);
/* A bit map's text walks its entries for every value, so a map keeps at most this many: real ones
 * have one entry per bit and a few combinations (docs/ROBUSTNESS.md). */
#define ETL_BITMAP_MAX 1024u
/* A value map of more entries than this is searched by value (etl_map.by_value), a smaller one
 * entry by entry. */
#define ETL_MAP_ORDER_FROM 8u
/* Readies map m, whose m->count entries are filled in entries (m->entries, writable), for
 * lookups - wherever the map came from (manifest, merge-time record, TMF list):
 * - a bit map keeps, in their order, only the entries that can ever name a bit: not those of
 *   value 0, nor a later entry of a value an earlier one has (either that one took the bits or
 *   they were not all set, and they only get fewer), and at most ETL_BITMAP_MAX of them;
 * - a value map of more than ETL_MAP_ORDER_FROM entries takes its order by value (ties in entry
 *   order) into order[0, m->count), which the caller provides when etl__schema_map_wants_order(m)
 *   (NULL, or no memory for the sort: the map is searched in order). */
void etl__schema_map_ready(struct etl_map *m, struct etl_map_entry *entries, uint32_t *order);
static inline int etl__schema_map_wants_order(const struct etl_map *m)
{
	return !m->bitmap && m->count > ETL_MAP_ORDER_FROM;
}

/* ---- the decoded property tree ---- */

struct etl_property {
	const char *name;
	struct etl_decoded *owner;
	uint16_t in_type, out_type;
	uint8_t kind;            /* enum etl_property_kind */
	uint8_t ptr_size;
	uint32_t first_child;    /* index in owner->nodes */
	uint32_t child_count;
	const uint8_t *data;     /* the value's bytes (strings without terminator / count) */
	size_t len;
	const char *text;        /* formatted on demand */
	const struct etl_map *map;
	const struct etl_field *field;
};

#define ETL_DERIVED_MAX 4 /* derived fields an event may get */

struct etl_decoded {
	/* ---- what one decoding made: zeroed before each (etl__schema_reset) ---- */
	enum etl_decoder source;
	const char *name, *provider_name, *event_name, *task_name, *opcode_name, *reason;
	const char *error, *error_field; /* a payload that contradicts its schema: why, and where */
	int doubtful;            /* raw because no layout it has is proven by the payload: reported */
	int older_version;       /* decoded with an older version's template: 1 + that version; else 0 */
	const char *level_name, *channel_name, *keywords_name;
	const char *message_template;    /* with %N inserts */
	const char *message;             /* rendered on demand */
	size_t trailing;
	uint32_t event_tags;
	int has_group;
	struct etl_guid provider_group;
	uint32_t nnodes;
	uint32_t ntop;           /* top-level properties are nodes[0 .. ntop-1] */
	uint32_t nderived;
	/* finds a map by name for the event being decoded (may be NULL) */
	const struct etl_map *(*resolve_map)(const void *ctx, const char *name);
	const void *resolve_ctx;
	/* ---- what decodings reuse ---- */
	struct etl_property *nodes;
	size_t cap;              /* nodes allocated */
	struct etl_property derived[ETL_DERIVED_MAX]; /* computed from the trace (ETL_OPTION_DERIVE) */
	uint64_t *field_values;  /* per schema field: last integer value decoded (counts, lengths) */
	size_t field_values_cap;
	struct etl_arena arena;  /* names, strings, formatted text */
	uint32_t max_nodes;
	unsigned max_depth;      /* 0: the default (32) */
};

/* Readies d for another decoding: what the last one made is gone (its arena's text too). */
void etl__schema_reset(struct etl_decoded *d);

/* Adds a derived field (a value computed from the trace, not read from the payload): name (static),
 * the in- and out-type it is shown with, its bytes (copied; little-endian as a payload holds
 * them).  0, or -1 when there is no room or memory. */
int etl__schema_add_derived(struct etl_decoded *d, const char *name, uint16_t in_type, uint16_t out_type,
			     const void *bytes, size_t len);

/*
 * Decodes payload[0..len) against s into d (nodes and trailing).  Returns
 * ETL_OK, or < 0 with diag set (message names the field; offset is the
 * payload offset) keeping what was decoded before the fault.
 */
int etl__schema_decode(struct etl_decoded *d, const struct etl_schema *s, const uint8_t *payload,
			size_t len, unsigned ptr_size, struct etl_diag *diag);

/* The canonical text of a value (format.c), cached in the property; flags: ETL_FORMAT_*, the text
 * not cached then. */
const char *etl__schema_format(struct etl_property *p, unsigned flags);

/* integer in-types, and the value of an integer node (0 for other sizes) */
static inline int etl__schema_integer_in(uint16_t t)
{
	return (t >= ETL_IN_INT8 && t <= ETL_IN_UINT64) || t == ETL_IN_HEXINT32 || t == ETL_IN_HEXINT64 ||
	       t == ETL_IN_POINTER || t == ETL_IN_SIZET || t == ETL_IN_BOOLEAN;
}

/* Unsigned value of an integer-typed node (0 otherwise). */
static inline uint64_t etl__schema_node_u64(const struct etl_property *p)
{
	switch (p->len) {
	case 1: return p->data[0];
	case 2: return etl_le16(p->data);
	case 4: return etl_le32(p->data);
	case 8: return etl_le64(p->data);
	default: return 0;
	}
}

static inline int64_t etl__schema_node_i64(const struct etl_property *p)
{
	switch (p->len) {
	case 1: return (int8_t)p->data[0];
	case 2: return (int16_t)etl_le16(p->data);
	case 4: return (int32_t)etl_le32(p->data);
	case 8: return (int64_t)etl_le64(p->data);
	default: return 0;
	}
}


#endif
