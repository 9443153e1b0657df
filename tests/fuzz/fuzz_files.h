/*
 * fuzz_files.h - the temporary folder of the fuzz targets that run etldump
 * on files (fuzz_batch, fuzz_threads): made once per process under $TMPDIR
 * (or /tmp), every path given relative to it.  A failure to set it up aborts:
 * a target that cannot write its inputs proves nothing.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef FUZZ_FILES_H
#define FUZZ_FILES_H

#include <stddef.h>
#include <stdint.h>

/* Makes the folder TMPDIR/fuzz-<tag>-XXXXXX the first time; 1 then, 0 when it was there. */
int fuzz_root_make(const char *tag);
/* The folder's path joined with rel into out[cap]. */
void fuzz_path(char *out, size_t cap, const char *rel);
/* Writes n bytes of p as the file rel (created or emptied first). */
void fuzz_put(const char *rel, const void *p, size_t n);
/* The bytes of the regular file rel (malloc'd, *n its size), or NULL when rel is missing or not a
 * regular file (a link, a folder). */
uint8_t *fuzz_slurp(const char *rel, size_t *n);
/* Removes the entries rels[0, n) (files, then empty folders, in that order). */
void fuzz_remove(const char *const *rels, size_t n);

#endif
