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

#include <etl.h>

/* The more severe of two exit statuses (ok < damaged < usage < io < nomem). */
static inline int exit_worse(int a, int b)
{
	static const int rank[] = { [EXIT_OK] = 0, [EXIT_DAMAGED] = 1, [EXIT_USAGE] = 2,
				    [EXIT_IO] = 3, [EXIT_NOMEM] = 4 };
	return rank[a] >= rank[b] ? a : b;
}

/* The exit status an error status of etl_reader_next() calls for. */
static inline int exit_of_status(int st)
{
	switch (st) {
	case ETL_E_IO: return EXIT_IO;
	case ETL_E_NOMEM: return EXIT_NOMEM;
	default: return EXIT_DAMAGED;
	}
}

#endif
