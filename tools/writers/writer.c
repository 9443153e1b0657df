/*
 * writer.c - the table of output formats.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "writers/writer.h"

static const struct writer *const writers[] = {
	&writer_text, &writer_jsonl, &writer_csv, &writer_xml, &writer_chrome, &writer_folded, &writer_pprof,
};

const struct writer *writer_find(const char *name)
{
	size_t i;

	if (strcmp(name, "json") == 0)
		name = "jsonl";
	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (strcmp(writers[i]->name, name) == 0)
			return writers[i];
	return NULL;
}

void writer_names(char *out, size_t cap)
{
	size_t i, n = 0;

	out[0] = '\0';
	for (i = 0; i < sizeof(writers) / sizeof(writers[0]) && n < cap; i++) {
		int k = snprintf(out + n, cap - n, "%s%s", i ? ", " : "", writers[i]->name);
		if (k < 0)
			break;
		n += (size_t)k;
	}
}

void writer_help(FILE *f, int indent)
{
	size_t i;

	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		fprintf(f, "%*s%-8s %s\n", indent, "", writers[i]->name, writers[i]->about);
}
