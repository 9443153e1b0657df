/*
 * mxml.h - what the parts of the manifest reader share: the provider and
 * database structures, and helpers over the document tree (mxml.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_MANIFEST_MXML_H
#define ETL_MANIFEST_MXML_H

#include "manifest/manifest.h"
#include "manifest/mtree.h"
#include "util/htab.h"

#define MAX_MANIFEST_BYTES (64u << 20)
#define MAX_TEMPLATE_FIELDS 4096u
#define MAX_STRUCT_DEPTH 8
#define MAX_EVENTS (1u << 20)
/* What loading a manifest may cost: its tree and text, and the providers built from it, at most
 * MANIFEST_COST_RATIO times its size plus MANIFEST_COST_BASE (docs/API.md). */
#define MANIFEST_COST_RATIO 8u
#define MANIFEST_COST_BASE ((size_t)16 << 20)

/* A task's name (opcode -1), or an opcode's within a task (task -1: provider-wide), by value. */
struct etl_mname {
	int32_t task, opcode;
	const char *name;
};

struct etl_mprovider {
	struct etl_guid guid;
	const char *name;
	const char *source;        /* the document it came from (quoted, for messages) */
	struct etl_mprovider *older; /* a provider of the same GUID loaded before (several manifests) */
	struct etl_mname *names;   /* tasks and opcodes by (task, opcode), for names by value */
	size_t nnames;
	struct etl_arena arena;    /* what is built for it: schemas, events, maps */
	struct mdoc *doc;          /* the document text it points into (one reference) */
	struct etl_mevent *events;
	size_t nevents;
	struct etl_map **maps;
	size_t nmaps, cap_maps;
	struct etl_htab map_index; /* of struct etl_map *, by name */
	/* Kept by a document cache (doccache.c), read only from then on: the databases it is added
	 * to borrow it and never free it. */
	int cached;
};

struct etl_manifest_db {
	struct etl_mprovider **providers;
	size_t nproviders, cap;
	struct etl_htab index;     /* of const struct etl_mevent *, by (guid, id, version): the newest */
	int stale;                 /* a provider was replaced: the index is rebuilt after the document */
	/* a new provider of a GUID already known replaces it (EventSource manifests logged again); else
	 * both are kept, the newer one's events first and the older's where it has none (given
	 * manifests: one file may describe events another lacks) */
	int replace;
	unsigned long gen;         /* grows with every provider added or replaced (what holds names
				      of its providers asks whether they may be gone: etl__decode_names_gen) */
	struct etl_htab by_guid;   /* of size_t, the newest provider's place in providers, by GUID */
	/* a folder's files, parsed when a provider they declare is first asked for (lazy.c) */
	char **docs;               /* their paths */
	size_t ndocs, cap_docs;
	struct etl_htab pending;   /* GUID -> the docs that declare it */
	long *decl;                /* the docs of a GUID, chained: doc, next, doc, next, ... */
	size_t ndecl, cap_decl;
};

/* An entry of etl_manifest_db.pending. */
struct etl_mdb_pending {
	struct etl_guid guid;
	long first, last; /* the chain of its docs in decl (pairs: doc, next; -1 ends) */
};

/* etl__manifest_db_load_memory, keeping only the providers accept() takes (all when accept is NULL). */
int etl__manifest_db_load_filtered(struct etl_manifest_db *db, const uint8_t *xml, size_t len, const char *name,
			   int (*accept)(const struct etl_guid *g, void *ctx), void *ctx, unsigned *warnings,
			   struct etl_diag *d);
/* Every manifest file of a folder: scanned for the providers it declares, parsed later (lazy.c). */
int etl__manifest_db_index_folder(struct etl_manifest_db *db, const char *path, unsigned *warnings, struct etl_diag *d);

/* A name with its value, from a provider's tasks, opcodes, levels, keywords or channels. */
struct named_value {
	const char *name;
	uint64_t value;
	const char *message; /* localized display name, or NULL */
	int task;            /* for opcodes: the task value they belong to, -1 for provider-wide */
};

/* Named values in the order defined, found by (name, task) through an index. */
struct ntable {
	struct named_value *v;
	size_t n, cap;
	struct etl_htab ix;  /* of size_t positions in v (the first definition of a name wins) */
};

/* The localized strings of a document: $(string.X) -> text. */
struct strtab {
	struct etl_htab ix;  /* of struct { const char *id, *value; } */
};

/* One document being loaded: its name, what it may still cost, and the problems found (the
 * first one in d). */
struct load_ctx {
	unsigned warnings;
	struct etl_diag *d;
	const char *doc;
	size_t max_bytes;    /* what its providers, its tree and its text may cost together */
	size_t spent;        /* what the tree and the providers built before cost */
};

int etl__manifest_is_el(const struct mnode *n, const char *name);
const struct mnode *etl__manifest_child(const struct mnode *n, const char *name);
/* An attribute's value in the document text (NULL if absent). */
const char *etl__manifest_attr(const struct mnode *n, const char *name);
/* A decimal or 0x-hexadecimal number; 0 if s is not one. */
int etl__manifest_u64(const char *s, uint64_t *v);
void etl__manifest_strtab_collect(struct strtab *t, const struct mnode *n, int depth);
void etl__manifest_strtab_free(struct strtab *t);
/* "$(string.X)" -> the string X; other text unchanged. */
const char *etl__manifest_localize(const struct strtab *t, const char *s);
/* An inType (in != 0) or outType name to its TDH value; 0 if unknown. */
int etl__manifest_type(const char *s, int in, uint16_t *v);
int etl__manifest_ntable_add(struct ntable *t, const char *name, uint64_t value, const char *message, int task);
const struct named_value *etl__manifest_ntable_find(const struct ntable *t, const char *name, int task);
/* The same for the first len bytes of name. */
const struct named_value *etl__manifest_ntable_find_n(const struct ntable *t, const char *name, size_t len, int task);
void etl__manifest_ntable_free(struct ntable *t);
/* The standard opcodes, levels and channels of winmeta.xml. */
const struct named_value *etl__manifest_std_opcode(const char *name);
const struct named_value *etl__manifest_std_level(const char *name);
const struct named_value *etl__manifest_std_channel(const char *name);
/* The name to show: the message, else the name, without a "win:" prefix. */
const char *etl__manifest_display(const struct named_value *v);
void etl__manifest_warn(struct load_ctx *x, const char *what, const char *name, const char *why);

/* Working memory for templates, reused from one to the next. */
struct tpl_work {
	struct etl_field *f;
	uint16_t *pool, *top;
};
int etl__manifest_tpl_work_init(struct tpl_work *w);
void etl__manifest_tpl_work_free(struct tpl_work *w);
/* A <template> as a schema in the arena; NULL with *err set when rejected. */
struct etl_schema *etl__manifest_template(struct etl_arena *a, const struct mnode *t, struct tpl_work *w,
				    const char **err);
/* A <provider> element; NULL when rejected (warned, or x->d set to an error when the document
 * costs too much or memory runs out). */
struct etl_mprovider *etl__manifest_provider(const struct mnode *pn, const struct strtab *st, struct load_ctx *x,
				       struct mdoc *doc);
void etl__manifest_provider_free(struct etl_mprovider *p);
/* The name of task `task` (opcode -1), or of opcode `opcode` within it (task -1: provider-wide), as
 * the provider's events show them; NULL when it defines none. */
const char *etl__manifest_provider_name_of(const struct etl_mprovider *p, int32_t task, int32_t opcode);
/* What the provider holds apart from its document's text (for the cost limit). */
size_t etl__manifest_provider_bytes(const struct etl_mprovider *p);

#endif
