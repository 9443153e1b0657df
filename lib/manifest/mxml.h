/*
 * mxml.h - what the parts of the manifest reader share: the provider and
 * database structures, and small helpers over libxml2's tree (mxml.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_MANIFEST_MXML_H
#define ETL_MANIFEST_MXML_H

#include <libxml/tree.h>

#include "manifest/manifest.h"
#include "util/htab.h"

#define MAX_MANIFEST_BYTES (64u << 20)
#define MAX_TEMPLATE_FIELDS 4096u
#define MAX_STRUCT_DEPTH 8
#define MAX_EVENTS (1u << 20)

struct etl_mprovider {
	struct etl_guid guid;
	const char *name;
	struct etl_arena arena;    /* everything the provider owns */
	struct etl_mevent *events;
	size_t nevents;
	struct etl_map **maps;
	size_t nmaps, cap_maps;
};

struct etl_manifest_db {
	struct etl_mprovider **providers;
	size_t nproviders, cap;
	struct etl_htab index;     /* of const struct etl_mevent *, by (guid, id, version) */
};

/* A name with its value, from a provider's tasks, opcodes, levels, keywords or channels. */
struct named_value {
	const char *name;
	uint64_t value;
	const char *message; /* localized display name, or NULL */
	int task;            /* for opcodes: the task value they belong to, -1 for provider-wide */
};

struct ntable {
	struct named_value *v;
	size_t n, cap;
};

/* The localized strings of a document: $(string.X) -> text. */
struct strtab {
	const char **ids, **values;
	size_t n, cap;
};

/* One document being loaded: its name and the problems found (the first one in d). */
struct load_ctx {
	unsigned warnings;
	struct etl_diag *d;
	const char *doc;
};

int etl__mx_is_el(const xmlNode *n, const char *name);
const xmlNode *etl__mx_child(const xmlNode *n, const char *name);
/* An attribute copied into the arena (NULL if absent or out of memory). */
const char *etl__mx_attr(struct etl_arena *a, const xmlNode *n, const char *name);
/* A decimal or 0x-hexadecimal number; 0 if s is not one. */
int etl__mx_u64(const char *s, uint64_t *v);
void etl__mx_strtab_collect(struct strtab *t, struct etl_arena *a, const xmlNode *n, int depth);
void etl__mx_strtab_free(struct strtab *t);
/* "$(string.X)" -> the string X; other text unchanged. */
const char *etl__mx_localize(const struct strtab *t, const char *s);
/* An inType (in != 0) or outType name to its TDH value; 0 if unknown. */
int etl__mx_type(const char *s, int in, uint16_t *v);
int etl__mx_ntable_add(struct ntable *t, const char *name, uint64_t value, const char *message, int task);
const struct named_value *etl__mx_ntable_find(const struct ntable *t, const char *name, int task);
/* The standard opcodes, levels and channels of winmeta.xml. */
const struct named_value *etl__mx_std_opcode(const char *name);
const struct named_value *etl__mx_std_level(const char *name);
const struct named_value *etl__mx_std_channel(const char *name);
/* The name to show: the message, else the name, without a "win:" prefix. */
const char *etl__mx_display(const struct named_value *v);
void etl__mx_warn(struct load_ctx *x, const char *what, const char *name, const char *why);

/* A <template> as a schema in the arena; NULL with *err set when rejected. */
struct etl_schema *etl__mx_template(struct etl_arena *a, const xmlNode *t, const char **err);
/* A <provider> element; NULL when rejected (warned). */
struct etl_mprovider *etl__mx_provider(const xmlNode *pn, const struct strtab *st, struct load_ctx *x);
void etl__mx_provider_free(struct etl_mprovider *p);

#endif
