/*
 * outfiles.h - where etldump writes (-o FILE, -O DIR), never over an input
 * and, in a -O folder, never through a link or over a file already there
 * unless --force says so.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_OUTFILES_H
#define ETLDUMP_OUTFILES_H

#include <sys/types.h>

#include "etldump.h"

/* The files being read, by device and inode (an output must be none of them). */
struct inputs_seen {
	dev_t *dev;
	ino_t *ino;
	size_t n;
};

/* Notes the inputs that exist as files; 0, or -1 out of memory. */
int inputs_note(struct inputs_seen *in, char **files, int n);
void inputs_free(struct inputs_seen *in);

/*
 * The output file of each input in the -O folder: DIR/BASE.EXT, BASE the input's file name
 * ("stdin" for -), EXT the format's; a name an earlier input took gets "-2", "-3", ... before
 * the extension.  0, or an exit status (a name too long for a path) with the message printed.
 */
int outdir_names(const struct options *o, char **files, int n, char ***paths);
void outdir_names_free(char **paths, int n);

/*
 * Makes path the standard output.  In a -O folder (exclusive): a new file only (O_EXCL) unless
 * --force, never through a symbolic link (O_NOFOLLOW).  Never a file that is one of the inputs:
 * an existing file is truncated only after it was found to be none of them.  0, or EXIT_IO
 * with the message printed.
 */
int output_open(const char *path, int exclusive, int force, const struct inputs_seen *in);

#endif
