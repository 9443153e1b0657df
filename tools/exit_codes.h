/*
 * exit_codes.h - etldump's exit statuses (documented in docs/etldump.1).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_EXIT_CODES_H
#define ETLDUMP_EXIT_CODES_H

#define EXIT_OK 0      /* every input read cleanly */
#define EXIT_DAMAGED 1 /* damaged or unsupported data was skipped; the rest was printed */
#define EXIT_USAGE 2   /* bad command line */
#define EXIT_IO 3      /* an input could not be opened or read, or output failed */
#define EXIT_NOMEM 4   /* out of memory */

#endif
