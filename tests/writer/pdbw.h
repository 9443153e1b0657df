/*
 * pdbw.h - PDB files for the tests, made from a description: an MSF 7.00
 * container of the streams the library reads (PDB info, DBI with one
 * module, the module's procedures and C13 lines, public symbols, section
 * headers, "/names"), and the container alone from streams a test makes
 * (broken ones included).  The real tools' files are the oracle
 * (tests/tool/symbols.py); these are for what real tools do not make:
 * NGEN-style PDBs without section headers, and damage.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLW_PDBW_H
#define ETLW_PDBW_H

#include <stddef.h>
#include <stdint.h>

#include <etl.h>

struct pdbw_stream {
	const uint8_t *data;
	uint32_t size;          /* 0xFFFFFFFF: a nil stream */
};

/* An MSF container of n streams in blocks of block_size bytes (malloc'd into *out). */
int pdbw_msf(const struct pdbw_stream *streams, unsigned n, uint32_t block_size, uint8_t **out, size_t *len);

struct pdbw_proc {
	const char *name;
	uint16_t section;       /* from 1 */
	uint32_t offset, size;
	uint32_t line;          /* its first line: one line entry per 4 bytes of code, line + k */
	int local;              /* S_LPROC32 */
};

struct pdbw_public {
	const char *name;
	uint16_t section;
	uint32_t offset;
};

struct pdbw_section {
	const char *name;
	uint32_t rva, size;
};

struct pdbw_spec {
	uint32_t block_size;
	struct etl_guid guid;
	uint32_t age;
	const struct pdbw_section *sections;
	unsigned nsections;
	int no_section_headers; /* NGEN form: the section map only */
	const struct pdbw_proc *procs;
	unsigned nprocs;
	const struct pdbw_public *publics;
	unsigned npublics;
	const char *source;     /* the source file the lines name */
	unsigned nmodules;      /* 0 or 1: one module; more: procedure i is module i % nmodules's */
	uint32_t filler_bytes;  /* a type stream of this many bytes, which the reader never reads */
};

/* The PDB streams of spec: streams[0, pdbw_stream_count(spec)) (malloc'd each; pdbw_streams_free);
 * module 0's stream is PDBW_MODULE, module m's (m >= 1) PDBW_STREAMS + m - 1. */
#define PDBW_STREAMS 9
enum { PDBW_INFO = 1, PDBW_DBI = 3, PDBW_MODULE = 5, PDBW_SYMREC = 6, PDBW_SECTIONS = 7, PDBW_NAMES = 8 };
unsigned pdbw_stream_count(const struct pdbw_spec *spec);
int pdbw_streams(const struct pdbw_spec *spec, struct pdbw_stream *streams);
void pdbw_streams_free(struct pdbw_stream *streams, unsigned n);
/* The whole file. */
int pdbw_build(const struct pdbw_spec *spec, uint8_t **out, size_t *len);

#endif
