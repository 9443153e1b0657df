/*
 * symbols.h - a reader's symbol files: where PDB files are looked for, which
 * file an image's PDB is (by the GUID, age and name its DbgID_RSDS record
 * gives), and the functions they place at an image's addresses.
 *
 * Where (paths.c): folders and _NT_SYMBOL_PATH-style strings added by the
 * caller, searched in order, each for "name.pdb" and the symbol-store form
 * "name.pdb/GUIDAGE/name.pdb"; and the PDB files of an .etl.zip's symbols/
 * folder (PerfView puts the NGEN PDBs of the traced .NET code there).
 * Nothing is ever downloaded: of a srv* element only its local stores count.
 *
 * When (symbols.c): a PDB is looked for the first time a frame of an image
 * naming it is resolved, and opened then (pdb.h reads only what lookups
 * need).  A file whose GUID or age is not the image's is not used, and said
 * (etl_reader_symbol_file).  All PDBs of a reader share one memory budget
 * (ETL_LIMIT_SYMBOL_BYTES).  One lock guards it all: a reader's events may
 * be resolved on several threads.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_SYMBOLS_SYMBOLS_H
#define ETL_SYMBOLS_SYMBOLS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "io/source.h"
#include "pdb/pdb.h"
#include "state/imagehist.h"
#include "util/arena.h"
#include "util/htab.h"

/* A PDB file of an archive's symbols/ folder. */
struct etl_symmember {
	char *name;             /* its path in the archive, '\' made '/' */
	struct etl_source src;
};

/* A frame named before: the answers for (file, rva), kept so that the frames a profile repeats
 * cost a hash, not a search of the PDB (a direct-mapped cache). */
#define SYMBOLS_CACHE 16384u /* 768 KiB with 64-bit pointers */
#define SYMBOLS_UNOPENED 64u
struct etl_symhit {
	const struct etl_symfile *file; /* NULL: empty */
	uint32_t rva, line;
	int lines;              /* asked with ETL_FRAME_LINES */
	const char *function, *src;
	uint32_t offset;
};

/* An image's PDB as looked for: one per (GUID, age, file name). */
struct etl_symfile {
	struct etl_guid guid;
	uint32_t age;
	char *pdb_name;         /* as the trace names it */
	enum etl_symbol_status status;
	char *path;             /* the file used, or the last one refused */
	char *message;
	int open;               /* pdb is open */
	struct etl_pdb pdb;
};

struct etl_symbols {
	pthread_mutex_t mu;
	char **dirs;            /* folders (local symbol stores), in order */
	size_t ndirs, capdirs;
	struct etl_symmember *members;
	size_t nmembers, capmembers;
	struct etl_symfile **files;
	size_t nfiles, capfiles;
	struct etl_htab by_id;  /* (GUID, age, name) -> files[] */
	const struct etl_dbgid *last_dbg; /* the image record asked for last, and its file */
	struct etl_symfile *last_file;
	/* image records whose PDB was looked for and is not open, by a hash of the record's place
	 * (direct-mapped): their frames are passed over without the lock - a PDB not found is never
	 * looked for again, so an entry stays true; one overwritten costs one locked look */
	_Atomic(const struct etl_dbgid *) unopened[SYMBOLS_UNOPENED];
	struct etl_symhit *cache;           /* SYMBOLS_CACHE entries, made when first needed */
	/* the names and files frames were given, copied together (by their place in the PDB's
	 * memory): what a profile shows again and again is read from a few cache lines, not from
	 * all over the PDB's streams */
	struct etl_htab names;
	struct etl_arena name_text;
	uint64_t limit, held;   /* bytes the open PDBs hold in all, and the most they may */
};

void etl__symbols_init(struct etl_symbols *s, uint64_t limit);
void etl__symbols_set_limit(struct etl_symbols *s, uint64_t limit);
/* Adds a folder or a symbol path string (paths.c).  ETL_OK or ETL_E_NOMEM. */
int etl__symbols_add_path(struct etl_symbols *s, const char *path);
/* Whether an archive member's name is a PDB of a symbols/ folder. */
int etl__symbols_member_wanted(const char *name);
/* Adds an archive's PDB member (src taken).  ETL_OK or ETL_E_NOMEM. */
int etl__symbols_add_member(struct etl_symbols *s, const char *name, struct etl_source *src);
/* The function of the PDB the trace names for an image (dbg, its name pdb_name) at rva: fills
 * out's function, offset and (with lines) file and line, and makes out ETL_FRAME_SYMBOL; leaves
 * out as it is when nothing names rva. */
void etl__symbols_frame(struct etl_symbols *s, const struct etl_dbgid *dbg, const char *pdb_name, uint32_t rva,
			int lines, struct etl_frame *out);
size_t etl__symbols_file_count(struct etl_symbols *s);
/* The i-th file looked for: 1, or 0 when there is none. */
int etl__symbols_file(struct etl_symbols *s, size_t i, struct etl_symbol_file *out);
void etl__symbols_free(struct etl_symbols *s);

/* paths.c: the candidate files for a PDB, in order: calls try(ctx, path or NULL, member or
 * NULL) for each until it returns nonzero; 1 when one did. */
int etl__symbols_search(struct etl_symbols *s, const char *pdb_name, const struct etl_guid *guid, uint32_t age,
			int (*try)(void *ctx, const char *path, struct etl_symmember *member), void *ctx);

#endif
