/*
 * setup.c - readers as etldump's options ask: the manifests and TMF files
 * (parsed once and shared), the options, and the inputs opened.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etldump.h"
#include "render.h"
#include "report.h"
#include "setup.h"
#include "writers/writer.h"

/* Calls fn for each path of the environment variable env (separated by ':'), then of list. */
static void each_path(const char *env, const char *const *list, size_t n, void (*fn)(const char *path, void *ctx),
		      void *ctx)
{
	const char *v = getenv(env);
	char *copy = v && *v ? strdup(v) : NULL, *p, *save = NULL;
	size_t k;

	for (p = copy ? strtok_r(copy, ":", &save) : NULL; p; p = strtok_r(NULL, ":", &save))
		fn(p, ctx);
	free(copy);
	for (k = 0; k < n; k++)
		fn(list[k], ctx);
}

/* One problem line for a manifest or TMF path: one that could not be read (skipped 0), or how
 * many problems one had, with the first. */
static void path_problem(const char *path, unsigned skipped, const struct etl_error *e, const struct options *o)
{
	char nb[REPORT_SHOWN_MAX];

	if (o->quiet || !e)
		return;
	if (skipped)
		fprintf(stderr, "%s: %s: %u problems, the first: %s\n", progname, report_shown(path, nb), skipped,
			etl_error_message(e));
	else
		fprintf(stderr, "%s: %s: %s\n", progname, report_shown(path, nb), etl_error_message(e));
}

struct manifest_ctx {
	struct etl_manifests *m;
	const struct options *o;
	int *exit_code;
};

static void add_manifest(const char *path, void *ctx)
{
	struct manifest_ctx *c = ctx;
	unsigned before = etl_manifests_warnings(c->m);

	if (etl_manifests_add_path(c->m, path) != ETL_OK) {
		path_problem(path, 0, etl_manifests_error(c->m), c->o);
		*c->exit_code = exit_worse(*c->exit_code, EXIT_DAMAGED);
	} else if (etl_manifests_warnings(c->m) != before) {
		path_problem(path, etl_manifests_warnings(c->m) - before, etl_manifests_error(c->m), c->o);
	}
}

static void add_tmf(const char *path, void *ctx)
{
	struct manifest_ctx *c = ctx;
	unsigned before = etl_manifests_warnings(c->m);
	int st = etl_manifests_add_tmf_path(c->m, path);

	if (st != ETL_OK)
		*c->exit_code = exit_worse(*c->exit_code, st == ETL_E_NOMEM ? EXIT_NOMEM : EXIT_DAMAGED);
	if (st != ETL_OK || etl_manifests_warnings(c->m) != before)
		path_problem(path, st == ETL_OK ? etl_manifests_warnings(c->m) - before : 0, etl_manifests_error(c->m),
			     c->o);
}

static int env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

/* The manifests and TMF files, parsed once for every input and thread: the environment's
 * search paths first, then --manifest and --tmf (later ones win). */
struct etl_manifests *setup_manifests(const struct options *o, int *exit_code)
{
	struct manifest_ctx c;

	if (!env_set("ETLDUMP_MANIFEST_PATH") && o->nmanifests == 0 && !env_set("ETLDUMP_TMF_PATH") && o->ntmf == 0)
		return NULL;
	if (!(c.m = etl_manifests_new())) {
		*exit_code = exit_worse(*exit_code, EXIT_NOMEM);
		return NULL;
	}
	c.o = o;
	c.exit_code = exit_code;
	each_path("ETLDUMP_MANIFEST_PATH", o->manifests, o->nmanifests, add_manifest, &c);
	each_path("ETLDUMP_TMF_PATH", o->tmf, o->ntmf, add_tmf, &c);
	return c.m;
}

/* Where PDB files are looked for: --symbols, then ETLDUMP_SYMBOLS, then _NT_SYMBOL_PATH (each a
 * symbol path: ';' between elements). */
static void setup_symbols(struct etl_reader *r, const struct options *o, int *exit_code)
{
	static const char *const env[] = { "ETLDUMP_SYMBOLS", "_NT_SYMBOL_PATH" };
	size_t i;
	int st = ETL_OK;

	if (o->no_symbols) {
		etl_reader_set_option(r, ETL_OPTION_SYMBOLS, 0);
		return;
	}
	for (i = 0; i < o->nsymbols && st == ETL_OK; i++)
		st = etl_reader_add_symbol_path(r, o->symbols[i]);
	for (i = 0; i < 2 && st == ETL_OK; i++) {
		const char *v = getenv(env[i]);
		if (v && *v)
			st = etl_reader_add_symbol_path(r, v);
	}
	if (st != ETL_OK)
		*exit_code = exit_worse(*exit_code, EXIT_NOMEM);
}

int setup_symbol_paths_given(const struct options *o)
{
	const char *a = getenv("ETLDUMP_SYMBOLS"), *b = getenv("_NT_SYMBOL_PATH");

	return o->nsymbols || (a && *a) || (b && *b);
}

int setup_report_symbols(struct etl_reader *r, const struct options *o)
{
	size_t i, n = etl_reader_symbol_file_count(r), missing = 0;
	int exit_code = EXIT_OK;
	struct etl_symbol_file f;
	char names[200] = "", shown[4 * sizeof(names)];

	for (i = 0; i < n; i++) {
		if (etl_reader_symbol_file(r, i, &f) != ETL_OK)
			continue;
		if (f.status == ETL_SYMBOLS_DAMAGED)
			exit_code = exit_worse(exit_code, EXIT_DAMAGED);
		if (f.status == ETL_SYMBOLS_NOT_FOUND) {
			size_t len = strlen(names);
			if (missing++ < 5)
				snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", frame_file_name(f.pdb_name));
			continue;
		}
		if (f.message && !o->quiet) /* a file refused, damaged, or with a damaged part */
			fprintf(stderr, "%s: symbols: %s\n", progname, f.message);
	}
	if (missing && !o->quiet && setup_symbol_paths_given(o)) {
		etl_text_escape(names, shown, sizeof(shown)); /* names from the trace */
		fprintf(stderr, "%s: symbols: no PDB file found for %zu image%s (%s%s)\n", progname, missing,
			missing == 1 ? "" : "s", shown, missing > 5 ? ", ..." : "");
	}
	return exit_code;
}

void setup_configure(struct etl_reader *r, const struct options *o, int quiet, int *exit_code)
{
	if ((!o->writer->stacks && !o->table && !o->report) || o->info || o->stats || o->providers || o->processes)
		etl_reader_set_option(r, ETL_OPTION_STACKS, 0); /* no output shows them: no stack index */
	if (o->derive)
		etl_reader_set_option(r, ETL_OPTION_DERIVE, 1);
	if (o->no_builtin)
		etl_reader_set_option(r, ETL_OPTION_BUILTIN_MANIFESTS, 0);
	if (o->manifest_set) /* manifests and TMF files, parsed once, shared (setup_manifests) */
		etl_reader_use_manifests(r, o->manifest_set);
	setup_symbols(r, o, exit_code);
}

int setup_open(struct etl_reader *r, char **files, int nfiles, const struct options *o, int quiet,
		 int *exit_code)
{
	int opened = 0, i;

	setup_configure(r, o, quiet, exit_code);
	for (i = 0; i < nfiles; i++) {
		int st;
		if (strcmp(files[i], "-") == 0)
			st = etl_reader_open_fd(r, 0, "(stdin)");
		else
			st = etl_reader_open_path(r, files[i]);
		if (st != ETL_OK) {
			struct options loud = *o;
			if (quiet)
				continue;
			loud.quiet = 0;
			report_error(r, files[i], &loud);
			/* nothing of it could be read as a trace: not partial damage */
			*exit_code = exit_worse(*exit_code, st == ETL_E_NOMEM ? EXIT_NOMEM : EXIT_IO);
			continue;
		}
		opened++;
	}
	return opened;
}


