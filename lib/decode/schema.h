/*
 * schema.h - the one description of a payload that every decoder builds
 * (TraceLogging metadata, manifests, merge-time TRACE_EVENT_INFO, built-in
 * kernel layouts), and the engine that decodes a payload against it into a
 * property tree.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_SCHEMA_H
#define ETL_DECODE_SCHEMA_H

#include "internal.h"

/* TDH in-types used on the wire (tdh.h TDH_IN_TYPE) */
enum {
	IN_NULL = 0, IN_UNICODESTRING = 1, IN_ANSISTRING = 2, IN_INT8 = 3, IN_UINT8 = 4,
	IN_INT16 = 5, IN_UINT16 = 6, IN_INT32 = 7, IN_UINT32 = 8, IN_INT64 = 9, IN_UINT64 = 10,
	IN_FLOAT = 11, IN_DOUBLE = 12, IN_BOOLEAN = 13, IN_BINARY = 14, IN_GUID = 15,
	IN_POINTER = 16, IN_FILETIME = 17, IN_SYSTEMTIME = 18, IN_SID = 19, IN_HEXINT32 = 20,
	IN_HEXINT64 = 21, IN_COUNTEDSTRING = 22, IN_COUNTEDANSISTRING = 23, IN_COUNTEDBINARY = 25,
	IN_MOF_COUNTEDSTRING = 300, IN_MOF_COUNTEDANSISTRING = 301, IN_REVERSEDCOUNTEDSTRING = 302,
	IN_REVERSEDCOUNTEDANSISTRING = 303, IN_NONNULLTERMINATEDSTRING = 304,
	IN_NONNULLTERMINATEDANSISTRING = 305, IN_UNICODECHAR = 306, IN_ANSICHAR = 307,
	IN_SIZET = 308, IN_HEXDUMP = 309, IN_WBEMSID = 310
};

/* TDH out-types (tdh.h TDH_OUT_TYPE) */
enum {
	OUT_NULL = 0, OUT_STRING = 1, OUT_DATETIME = 2, OUT_BYTE = 3, OUT_UNSIGNEDBYTE = 4,
	OUT_SHORT = 5, OUT_UNSIGNEDSHORT = 6, OUT_INT = 7, OUT_UNSIGNEDINT = 8, OUT_LONG = 9,
	OUT_UNSIGNEDLONG = 10, OUT_FLOAT = 11, OUT_DOUBLE = 12, OUT_BOOLEAN = 13, OUT_GUID = 14,
	OUT_HEXBINARY = 15, OUT_HEXINT8 = 16, OUT_HEXINT16 = 17, OUT_HEXINT32 = 18, OUT_HEXINT64 = 19,
	OUT_PID = 20, OUT_TID = 21, OUT_PORT = 22, OUT_IPV4 = 23, OUT_IPV6 = 24,
	OUT_SOCKETADDRESS = 25, OUT_CIMDATETIME = 26, OUT_ETWTIME = 27, OUT_XML = 28,
	OUT_ERRORCODE = 29, OUT_WIN32ERROR = 30, OUT_NTSTATUS = 31, OUT_HRESULT = 32,
	OUT_CULTURE_INSENSITIVE_DATETIME = 33, OUT_JSON = 34, OUT_UTF8 = 35, OUT_PKCS7 = 36,
	OUT_CODE_POINTER = 37, OUT_DATETIME_UTC = 38, OUT_REDUCEDSTRING = 300, OUT_NOPRINT = 301
};

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

/* a value map or bit map (manifest valueMap/bitMap, EVENT_MAP_INFO) */
struct etl_map_entry {
	uint32_t value;
	const char *text;
};

struct etl_map {
	const char *name;
	int bitmap;
	uint32_t count;
	struct etl_map_entry entries[];
};

struct etl_field {
	const char *name;
	const char *map_name;   /* resolved when decoding (maps may arrive later) */
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

/* A chunked arena: pointers into it stay valid until it is reset. */
struct etl_arena_block;
struct etl_arena {
	struct etl_arena_block *head;
	size_t used_in_head;
};

void *etl__arena_alloc(struct etl_arena *a, size_t n);
char *etl__arena_strndup(struct etl_arena *a, const char *s, size_t n);
void etl__arena_reset(struct etl_arena *a);
void etl__arena_free(struct etl_arena *a);

struct etl_decoded {
	enum etl_decoder source;
	const char *name, *provider_name, *event_name, *task_name, *opcode_name, *reason;
	const char *level_name, *channel_name, *keywords_name;
	const char *message_template;    /* with %N inserts */
	const char *message;             /* rendered on demand */
	size_t trailing;
	uint32_t event_tags;
	int has_group;
	struct etl_guid provider_group;
	struct etl_property *nodes;
	uint32_t nnodes, cap;
	uint32_t ntop;           /* top-level properties are nodes[0 .. ntop-1] */
	uint64_t *field_values;  /* per schema field: last integer value decoded (counts, lengths) */
	size_t field_values_cap;
	struct etl_arena arena;  /* names, strings, formatted text */
	uint32_t max_nodes;
	unsigned max_depth;      /* 0: the default (32) */
	/* finds a map by name for the event being decoded (may be NULL) */
	const struct etl_map *(*resolve_map)(const void *ctx, const char *name);
	const void *resolve_ctx;
};

/*
 * Decodes payload[0..len) against s into d (nodes and trailing).  Returns
 * ETL_OK, or < 0 with diag set (message names the field; offset is the
 * payload offset) keeping what was decoded before the fault.
 */
int etl__decode_payload(struct etl_decoded *d, const struct etl_schema *s, const uint8_t *payload,
			size_t len, unsigned ptr_size, struct etl_diag *diag);

const char *etl__format_property(struct etl_property *p);

#endif
