/*
 * setup.h - readers set up as the options ask (setup.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_SETUP_H
#define ETLDUMP_SETUP_H

#include <etl.h>

struct options;

/* Parses the manifests of ETLDUMP_MANIFEST_PATH and -m once, reporting problems (once); NULL
 * when there are none. */
struct etl_manifests *setup_manifests(const struct options *o, int *exit_code);
/* Sets r's options, manifests and TMF files from o (TMF problems reported unless quiet). */
void setup_configure(struct etl_reader *r, const struct options *o, int quiet, int *exit_code);
/* setup_configure, then opens the inputs, reporting those that cannot be read unless quiet: how
 * many were opened. */
int setup_open(struct etl_reader *r, char **files, int nfiles, const struct options *o, int quiet,
	       int *exit_code);

/* Reports the PDB files that were refused or damaged, and (when symbol paths were given) those
 * not found, unless --quiet; EXIT_DAMAGED when one was damaged, else EXIT_OK. */
int setup_report_symbols(struct etl_reader *r, const struct options *o);
/* Whether the user named any symbol path (--symbols, ETLDUMP_SYMBOLS, _NT_SYMBOL_PATH). */
int setup_symbol_paths_given(const struct options *o);

#endif
