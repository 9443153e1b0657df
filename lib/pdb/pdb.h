/*
 * pdb.h - functions and source lines of a PDB file, by relative virtual
 * address (RVA) in its image.
 *
 * What is read, and when (streams of the MSF container, msf.h):
 *
 *   open     stream 1, the PDB info stream: version, GUID, age, and the
 *            named streams ("/names"); stream 3, the DBI stream: its header
 *            (age, the symbol record stream), the module list, the section
 *            contributions (which module's code is at an address), the
 *            section map, and the optional debug header's section headers
 *            (and OMAP tables, when the image was rearranged after linking).
 *            A PDB without section headers (the NGEN PDBs PerfView writes
 *            for .NET native images) gets its sections placed from the
 *            section map: the first at RVA 0x1000, each next one at the
 *            first 0x1000 boundary after the one before.
 *   lookup   the module stream of the module whose contribution holds the
 *            RVA: its procedures (S_GPROC32, S_LPROC32 and their _ID forms,
 *            sorted by address) and, for lines, its C13 line and file
 *            checksum subsections and the "/names" stream; when no
 *            procedure holds the address, the public symbols (S_PUB32 of
 *            the symbol record stream, read once).
 *
 * Everything read is kept (the tables, the module streams looked at) within
 * max_bytes of memory; a stream that would pass it is not read (its lookups
 * fail with ETL_E_LIMIT).  A PDB is untrusted: every record is read through
 * the cursor, every count is checked against the bytes that hold it.
 *
 * Not thread-safe: the caller serialises lookups (symbols/symbols.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_PDB_PDB_H
#define ETL_PDB_PDB_H

#include <stddef.h>
#include <stdint.h>

#include "pdb/msf.h"

struct etl_pdb_proc {
	uint32_t rva, size;
	uint32_t name;          /* offset of its NUL-terminated name in the module's symbols */
};

struct etl_pdb_module {
	uint16_t stream;        /* 0xFFFF: none */
	uint32_t sym_bytes, c11_bytes, c13_bytes;
	int state;              /* 0 not read, 1 read, < 0 the status it failed with */
	uint8_t *syms;          /* symbols, then C11 and C13 lines: the first sym + c11 + c13 bytes */
	struct etl_pdb_proc *procs; /* sorted by rva */
	size_t nprocs;
	size_t nmanaged;        /* managed procedures (S_GMANPROC, S_LMANPROC): counted, not placed (IL) */
	uint64_t held;          /* bytes it holds */
};

struct etl_pdb_contrib {
	uint32_t rva, size;
	uint16_t module;
};

struct etl_pdb_public {
	uint32_t rva;
	uint32_t name;          /* offset of its name in the symbol record stream */
};

struct etl_pdb_section {
	uint32_t rva, size;
};

struct etl_pdb_omap {
	uint32_t from, to;
};

struct etl_pdb {
	struct etl_msf msf;
	struct etl_guid guid;
	uint32_t age;           /* the PDB info stream's */
	uint32_t dbi_age;       /* the DBI stream's */
	uint16_t symrec_stream; /* 0xFFFF: none */
	uint32_t names_stream;  /* "/names", UINT32_MAX: none */
	struct etl_pdb_section *sect;
	uint32_t nsect;
	struct etl_pdb_omap *omap; /* image RVA -> RVA of the sections above (sorted), or NULL */
	size_t nomap;
	struct etl_pdb_contrib *contrib; /* sorted by rva */
	size_t ncontrib;
	uint32_t *page_first;   /* per page (1 << page_shift bytes, from page_base): the first
				 * contribution that ends past the page's start (a lookup searches from
				 * there), or NULL */
	uint32_t page_base, npages;
	unsigned page_shift;
	struct etl_pdb_module *mod;
	size_t nmod;
	int publics_state;      /* 0 not read, 1 read, < 0 failed */
	uint8_t *symrec;        /* the symbol record stream (public names point into it) */
	struct etl_pdb_public *pub; /* sorted by rva */
	size_t npub;
	size_t npub_records;    /* S_PUB32 records, placed or not (a managed PDB's entry point token) */
	int names_state;
	uint8_t *names;         /* the "/names" string table's strings */
	uint32_t names_len;
	uint64_t held, max_bytes;
};

/* What a lookup found. */
struct etl_pdb_hit {
	const char *function;   /* NULL when nothing holds the address */
	uint32_t offset;        /* from the function's start */
	int from_public;        /* a public symbol, not a procedure */
	const char *file;       /* with lines: the source file, or NULL */
	uint32_t line;
};

/* Opens the PDB in src (taken).  ETL_OK, or an error with d set (the file offset, or the
 * stream and its offset, of what was wrong). */
int etl__pdb_open(struct etl_pdb *p, struct etl_source *src, uint64_t max_bytes, struct etl_diag *d);
/* Looks rva up (an RVA of the image).  ETL_OK (hit->function NULL when nothing holds it), or an
 * error reading what the lookup needed (then d says what; the same part fails again without
 * being read). */
int etl__pdb_lookup(struct etl_pdb *p, uint32_t rva, int lines, struct etl_pdb_hit *hit, struct etl_diag *d);
/* Reads every module's procedures and the public symbols (tests, the facts of a PDB). */
int etl__pdb_load_all(struct etl_pdb *p, struct etl_diag *d);
void etl__pdb_close(struct etl_pdb *p);

/* dbi.c: the DBI stream's parts (for pdb.c) */
int etl__pdb_read_dbi(struct etl_pdb *p, struct etl_diag *d);
/* modsyms.c: a module's stream, and lines in it */
int etl__pdb_load_module(struct etl_pdb *p, struct etl_pdb_module *m, struct etl_diag *d);
/* Reads the public symbols, once; ETL_OK or the status it failed with. */
int etl__pdb_read_publics(struct etl_pdb *p, struct etl_diag *d);
int etl__pdb_module_line(struct etl_pdb *p, const struct etl_pdb_module *m, uint32_t rva, const char **file,
			 uint32_t *line, struct etl_diag *d);
/* The page index of the contributions (dbi.c, after they are sorted). */
void etl__pdb_index_pages(struct etl_pdb *p);
/* The RVA of section:offset (sections numbered from 1), or UINT32_MAX. */
uint32_t etl__pdb_rva(const struct etl_pdb *p, uint16_t section, uint32_t offset);
/* Charges n more bytes held to p; -1 (nothing charged) past its limit. */
int etl__pdb_charge(struct etl_pdb *p, uint64_t n);
/* space.c: an image RVA in the layout the symbols were made in (through OMAP where the image has
 * it; UINT32_MAX where OMAP maps it nowhere), and the section holding rva (from 1), or 0. */
uint32_t etl__pdb_source_rva(const struct etl_pdb *p, uint32_t rva);
uint32_t etl__pdb_section_of(const struct etl_pdb *p, uint32_t rva);

#endif
