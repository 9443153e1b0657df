/*
 * msf.h - the MSF 7.00 container of PDB files: numbered streams, each a
 * list of fixed-size blocks of the file.
 *
 * The file begins with a superblock:
 *
 *   char  magic[32]        "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0"
 *   u32   block_size       512 to 32768, a power of two
 *   u32   free_block_map   1 or 2
 *   u32   block_count      blocks of the file
 *   u32   directory_bytes  size of the stream directory
 *   u32   unknown
 *   u32   directory_map    block holding the directory's block numbers
 *
 * The directory: u32 stream count, u32 size of each stream (0xFFFFFFFF: a
 * nil stream, read as empty), then each stream's block numbers in order.
 *
 * A PDB is untrusted input.  Opening checks every block number of the
 * directory (inside the file, never block 0, and no more blocks in all than
 * the file has), so that a stream can always be read without a loop or an
 * allocation the file's size does not justify; nothing else is read until a
 * stream is asked for.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_PDB_MSF_H
#define ETL_PDB_MSF_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "io/source.h"

#define MSF_MAX_STREAMS 65535u /* PDB streams are numbered with 16 bits */

struct etl_msf {
	struct etl_source src;  /* the file (owned) */
	uint32_t block_size, block_count;
	uint32_t nstreams;
	uint32_t *size;         /* bytes of each stream */
	uint32_t *first;        /* its first block's place in blocks[] */
	uint32_t *blocks;       /* every stream's block numbers, stream after stream */
};

/* Opens the container in src (taken: closed by etl__msf_close, also on failure).  ETL_OK, or
 * ETL_E_FORMAT / ETL_E_UNSUPPORTED / ETL_E_IO / ETL_E_NOMEM with d set (the file offset of what
 * was wrong). */
int etl__msf_open(struct etl_msf *m, struct etl_source *src, struct etl_diag *d);
/* Bytes of stream s (0 for a nil stream or one past the directory). */
uint32_t etl__msf_stream_size(const struct etl_msf *m, uint32_t s);
/* Reads n bytes at off of stream s into dst.  ETL_OK, or ETL_E_FORMAT (past the stream's end)
 * / ETL_E_IO with d set. */
int etl__msf_read(const struct etl_msf *m, uint32_t s, uint32_t off, void *dst, size_t n, struct etl_diag *d);
/* Reads the whole of stream s into *out (malloc'd, *len bytes; NULL for an empty stream),
 * refusing one of more than max bytes (ETL_E_LIMIT). */
int etl__msf_load(const struct etl_msf *m, uint32_t s, uint32_t max, uint8_t **out, uint32_t *len,
		  struct etl_diag *d);
void etl__msf_close(struct etl_msf *m);

#endif
