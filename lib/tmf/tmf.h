/*
 * tmf.h - WPP trace message format (TMF) files: what tracepdb writes from a
 * driver's PDB so that its WPP messages can be read.  A TMF file holds, for
 * each message GUID (one per source file), its module name and source file,
 * then one `#typev` line per message: its number, its format string, its
 * level, flags and function, and a block naming each argument's item type.
 *
 * tmf.c parses them into a database the decoder asks by (GUID, number);
 * folders are read lazily (a folder holds GUID.tmf files, so a GUID's file
 * is parsed the first time a trace names that GUID).  wppfmt.c renders a
 * message's format string with the decoded arguments.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_TMF_TMF_H
#define ETL_TMF_TMF_H

#include "internal.h"
#include "schema/schema.h"

/* documented limits (docs/WPP.md) */
#define TMF_MAX_FILE_BYTES (16u << 20) /* one TMF file */
#define TMF_MAX_LINE 8192              /* one line */
#define TMF_MAX_ARGS 64                /* arguments of one message */
#define TMF_MAX_LIST 256               /* names of one ItemList / ItemSet type */
#define TMF_MAX_FOLDERS 64             /* folders given to one database */
#define TMF_MAX_FOLDER_PATH 4000u      /* bytes of a folder's path (longer ones are refused) */
/* What the messages parsed from one file may cost: COST_RATIO times its size plus COST_BASE
 * (a message costs about 350 bytes; a real file's take 200 or more bytes of text each) */
#define TMF_COST_RATIO 8u /* (said as "8" in the message: tmf.c) */
#define TMF_COST_BASE (16u << 20)

/* The value types of WPP arguments (the TMF's ItemXxx names, tmf.c's table). */
enum tmf_item {
	TI_CHAR, TI_UCHAR, TI_SHORT, TI_USHORT, TI_LONG, TI_ULONG, TI_LONGLONG, TI_ULONGLONG,
	TI_PTR, TI_SIZE, TI_DOUBLE, TI_STRING, TI_WSTRING, TI_PSTRING, TI_PWSTRING, TI_GUID,
	TI_NTSTATUS, TI_WINERROR, TI_HRESULT, TI_LIST, TI_SET, TI_IPADDR, TI_PORT, TI_TIMESTAMP,
	TI_DELTA, TI_SID, TI_HEXDUMP, TI_CHAR4, TI_ENUM, TI_BINARY, TI_WCHAR
};

struct tmf_arg {
	const char *expr;  /* the C expression the driver logged, as the TMF names it */
	uint16_t number;   /* its %N */
	uint8_t item;      /* enum tmf_item */
	uint8_t size;      /* bytes of a fixed-size value, 0 for pointer-sized and variable ones */
	uint16_t in_type, out_type; /* how it is decoded (items.c) */
	uint8_t length;    /* a binary of this many bytes, else 0 */
	const char *type;  /* the ItemXxx name */
	const char *list;  /* ItemList / ItemSet: the names, "A,B,C", or NULL */
};

struct tmf_msg {
	struct etl_guid guid;
	uint16_t number;
	const char *ident;   /* the #typev name (File_cLINE) */
	const char *format;  /* with %N!spec! and %!NAME! inserts */
	const char *level, *flags, *func; /* from the trailing comment, or NULL */
	const char *module, *src;         /* of the GUID line */
	const char *file;                 /* the TMF file it came from */
	unsigned line;
	uint16_t nargs;
	struct tmf_arg *args;
	struct etl_schema schema; /* one field per argument, in payload order */
};

struct tmf_db;

struct tmf_db *etl__tmf_new(void);
void etl__tmf_free(struct tmf_db *db);

/* Adds a TMF file (parsed now) or a folder of GUID.tmf files (parsed on
 * demand).  Problems in single messages are counted (etl__tmf_warnings) with
 * the first described in d; ETL_OK unless nothing could be read. */
int etl__tmf_add_path(struct tmf_db *db, const char *path, struct etl_diag *d);

/* Parses TMF text (name: for messages).  Each bad line drops the message it
 * belongs to (counted in etl__tmf_warnings, the first described in d). */
int etl__tmf_parse(struct tmf_db *db, const char *text, size_t len, const char *name, struct etl_diag *d);

/* The message (GUID, number), reading the GUID's file from the folders the
 * first time; NULL when unknown (why: *why, when a TMF file said something). */
const struct tmf_msg *etl__tmf_find(struct tmf_db *db, const struct etl_guid *g, uint16_t number,
				    const char **why);

/* Distinct messages known so far; #typev messages read whole (a message defined
 * again counted again); problems seen (all files, eager and lazy). */
size_t etl__tmf_count(const struct tmf_db *db);
size_t etl__tmf_parsed(const struct tmf_db *db);
/* Every message, for tests and fuzzing: slot i < etl__tmf_slots() (NULL when empty). */
size_t etl__tmf_slots(const struct tmf_db *db);
const struct tmf_msg *etl__tmf_slot(const struct tmf_db *db, size_t i);
unsigned etl__tmf_warnings(const struct tmf_db *db);

/* ---- wppfmt.c ---- */

/* Renders m's format with the arguments decoded into d (nodes 0..nargs-1),
 * into d's arena, working in *scratch (made on first use, the caller's to free:
 * one per reader, so that readers may share a database).  NULL when out of memory. */
const char *etl__wpp_render(void **scratch, struct etl_decoded *d, const struct tmf_msg *m, unsigned ptr_size);

/* ---- statusnames.c (generated) ---- */

enum etl_status_kind { ETL_STATUS_NTSTATUS, ETL_STATUS_WIN32, ETL_STATUS_HRESULT };
const char *etl__status_name(enum etl_status_kind kind, uint32_t code);

#endif
