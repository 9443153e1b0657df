/*
 * symbench.h - etlbench's symbol rows (symbols.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLBENCH_SYMBENCH_H
#define ETLBENCH_SYMBENCH_H

/* Makes a 50 MB PDB and a trace of samples in its functions in dir, and prints what opening and
 * looking up cost, and JSON Lines with and without naming the frames. */
void bench_symbols(const char *dir, const char *etldump, int repeat, int keep);
/* JSON Lines of the corpus's .NET trace with its methods named, and with --no-symbols. */
void bench_symbols_corpus(const char *corpus, const char *etldump, int repeat);

#endif
