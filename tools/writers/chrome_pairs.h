/*
 * chrome_pairs.h - Start/Stop pairs of the Chrome writer, matched by what
 * they describe (a process, a thread, an activity, else the logging thread),
 * so that a Stop another thread logs still ends its Start.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_CHROME_PAIRS_H
#define ETLDUMP_CHROME_PAIRS_H

#include <stdint.h>

#include "hmap.h"

/* The open pairs of a run (zeroed to start): a table keyed by (input, name, subject), each entry
 * counting how deep its pairs nest. */
struct chrome_pairs {
	struct hmap open;
	int ready;
};

/* Opens a pair: its async id (the same for the Stop that closes it). */
uint64_t chrome_pair_open(struct chrome_pairs *ps, int trace, const char *name, const char *cat, uint64_t subject,
			  uint32_t pid);
/* Closes the latest open pair of (trace, name, subject): 1 with its id and the pid it was drawn
 * on, or 0 when none is open. */
int chrome_pair_close(struct chrome_pairs *ps, int trace, const char *name, uint64_t subject, uint64_t *id,
		      uint32_t *pid);
/* Calls end(ctx, name, cat, id, pid) for every pair still open (once per nesting level), then
 * forgets them. */
void chrome_pairs_finish(struct chrome_pairs *ps,
			 void (*end)(void *ctx, const char *name, const char *cat, uint64_t id, uint32_t pid),
			 void *ctx);

#endif
