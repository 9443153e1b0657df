/*
 * pool.h - --threads: workers that decode and format batches in order (pool.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_POOL_H
#define ETLDUMP_POOL_H

#include <etl.h>

struct options;
struct summary;

/* Decodes and writes the inputs of primary (opened, not read) with n worker threads, each with a
 * reader of its own that opens them again (etl_reader_open_same); with --stats or --providers
 * the workers count the events and sm gets their counts (and the damage).  The exit status. */
int pool_run(struct etl_reader *r, const struct options *o, unsigned n, struct summary *sm);
/* Whether --threads applies to this run. */
int pool_usable(const struct options *o, const struct etl_reader *r, char **files, int nfiles);

#endif
